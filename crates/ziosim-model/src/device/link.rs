//! Links — placeholder until the shared-link model lands (bandwidth caps, SATA port
//! multipliers with command- and FIS-based switching). See `spec/devices.md` §4.
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LinkParams {
    pub rate_bytes_per_s: u64,
}
