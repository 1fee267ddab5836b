use ziosim_model::device::{presets, Cmd, Device, DeviceSpec};
use ziosim_model::io::Op;
fn main() {
    let spec = presets::get("hdd-7200-sata-2014").unwrap();
    for (qd, sz) in [(1u64, 1u64 << 20), (2, 1 << 20), (3, 1 << 20), (4, 1 << 20), (4, 128 << 10), (8, 128 << 10)] {
        let DeviceSpec::Hdd(_) = &spec else { panic!() };
        let mut d = spec.build(1);
        let mut now = 0u64;
        let mut next_off = 0u64;
        let mut tag = 0u32;
        let mut done = Vec::new();
        let mut n = 0u64;
        for _ in 0..qd {
            d.submit(now, Cmd { tag, op: Op::Read, offset_bytes: next_off, size_bytes: sz });
            tag += 1;
            next_off += sz;
        }
        while n < 2000 {
            now = d.next_event_ns().unwrap();
            done.clear();
            d.advance(now, &mut done);
            for _ in &done {
                n += 1;
                d.submit(now, Cmd { tag, op: Op::Read, offset_bytes: next_off, size_bytes: sz });
                tag += 1;
                next_off += sz;
            }
        }
        println!("qd {qd} size {} KiB: {:.1} MB/s", sz >> 10, (n * sz) as f64 / (now as f64 / 1e9) / 1e6);
    }
}
