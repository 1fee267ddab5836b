//! Bundled device presets (`spec/devices.md` §9). Each model file declares its own presets
//! (`hdd::presets()`, `ssd::presets()`); this module is the one index over them.
use super::DeviceSpec;

/// (name, one-line description, specification) of every bundled preset, in a stable order.
pub fn all() -> Vec<(&'static str, &'static str, DeviceSpec)> {
    let mut v: Vec<(&'static str, &'static str, DeviceSpec)> = Vec::new();
    for (n, d, p) in super::hdd::presets() {
        v.push((n, d, DeviceSpec::Hdd(p)));
    }
    for (n, d, p) in super::ssd::presets() {
        v.push((n, d, DeviceSpec::Ssd(p)));
    }
    v
}

/// The preset's full specification.
pub fn get(name: &str) -> Option<DeviceSpec> {
    all().into_iter().find(|(n, _, _)| *n == name).map(|(_, _, s)| s)
}
