//! Run a normalised run config (JSON, docs/internals.md) without Python and print the
//! results document: `cargo run --release -p ziosim-model --example runcfg -- config.json`.
//! Handy for debugging and profiling the core alone.
use ziosim_model::config::RunConfig;
use ziosim_model::sim::Run;

fn main() {
    let path = std::env::args().nth(1).expect("usage: runcfg CONFIG.json");
    let text = std::fs::read_to_string(&path).expect("read config");
    let cfg = RunConfig::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut run = Run::new(cfg).unwrap_or_else(|e| panic!("{e}"));
    run.run_to_end();
    println!("{}", run.results());
}
