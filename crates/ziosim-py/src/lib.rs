//! `ziosim._core`: the only crate that knows Python. Config in (JSON), results out (JSON
//! with columnar time series). A panic never reaches Python as a crash: it becomes a
//! `RuntimeError` whose message starts with "internal error", which the Python layer turns
//! into `ziosim.InternalError` with the seed and a reproduce command.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde_json::json;
use std::panic::{catch_unwind, AssertUnwindSafe};
use ziosim_model::config::RunConfig;
use ziosim_model::device::{presets, DeviceSpec};
use ziosim_model::release::Release;
use ziosim_model::series;
use ziosim_model::sim::Run;
use ziosim_model::tunables::{Tunables, DECLS, DEFAULT_RAM_BYTES};

thread_local! {
    /// Where the last panic on this thread happened (the quiet hook's record).
    static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Panics become one-line Python errors; the default hook's stderr lines ("thread panicked
/// at …", a backtrace under RUST_BACKTRACE) would put a Rust trace in front of them. This hook
/// only records the location for the message; `ZIOSIM_BACKTRACE=1` keeps the default output
/// for developers.
fn install_quiet_panic_hook() {
    if std::env::var_os("ZIOSIM_BACKTRACE").is_some() {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let at = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
        PANIC_AT.with(|p| *p.borrow_mut() = at);
    }));
}

fn internal(e: Box<dyn std::any::Any + Send>) -> PyErr {
    let msg = e
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into());
    let at = PANIC_AT.with(|p| p.borrow_mut().take()).map(|a| format!(" at {a}")).unwrap_or_default();
    PyRuntimeError::new_err(format!("internal error: {msg}{at}"))
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pyfunction]
fn releases() -> Vec<&'static str> {
    Release::ALL.iter().map(|r| r.key()).collect()
}

/// Every tunable declaration as JSON; with `release`, only those the release has. A default
/// derived from the machine (`derived`) is given as the core computes it for `ram_bytes` of
/// RAM (a scenario's default `zfs.ram` when omitted), and its row says which RAM: the
/// declaration's own number only marks the releases that have it and is never a default.
#[pyfunction]
#[pyo3(signature = (release=None, ram_bytes=None))]
fn tunables_json(release: Option<&str>, ram_bytes: Option<u64>) -> PyResult<String> {
    let rel = match release {
        Some(r) => Some(parse_release(r)?),
        None => None,
    };
    let ram = ram_bytes.unwrap_or(DEFAULT_RAM_BYTES);
    let at_ram: Vec<Tunables> = Release::ALL.iter().map(|r| Tunables::defaults(*r, ram)).collect();
    let v: Vec<_> = DECLS
        .iter()
        .enumerate()
        .filter(|(_, d)| rel.map_or(true, |r| d.default_for(r).is_some()))
        .map(|(i, d)| {
            let defaults: serde_json::Map<String, serde_json::Value> = Release::ALL
                .iter()
                .zip(&at_ram)
                .map(|(r, t)| {
                    // `Tunables::defaults` fills the derived slots in every release; only
                    // those of releases that have the tunable are defaults.
                    let v = d.default_for(*r).and_then(|v| if d.derived.is_some() { t.try_get_index(i) } else { Some(v) });
                    (r.key().to_string(), json!(v))
                })
                .collect();
            let mut row = json!({"name": d.name, "unit": d.unit, "min": d.min, "max": d.max, "doc": d.doc,
                                 "source": d.source, "derived": d.derived, "defaults": defaults});
            if d.derived.is_some() {
                row["ram_bytes"] = json!(ram);
            }
            row
        })
        .collect();
    Ok(serde_json::to_string(&v).unwrap())
}

fn parse_release(r: &str) -> PyResult<Release> {
    Release::parse(r).ok_or_else(|| {
        let all: Vec<&str> = Release::ALL.iter().map(|r| r.key()).collect();
        PyValueError::new_err(format!("release: {r} — allowed: one of {}", all.join(", ")))
    })
}

/// The tunables a run of `release` on `ram_bytes` of RAM starts with, given the scenario's
/// overrides (`{name: value}` JSON): `{name: value}` for every tunable the release has. The
/// same `Tunables::at_load` the simulation calls, so the derived defaults (and their
/// re-derivation from an overridden percent or cap) are the run's, not a copy of the rule.
#[pyfunction]
fn tunables_at_load(release: &str, ram_bytes: u64, overrides_json: &str) -> PyResult<String> {
    let rel = parse_release(release)?;
    let overrides: std::collections::BTreeMap<String, i64> =
        serde_json::from_str(overrides_json).map_err(|e| PyValueError::new_err(format!("tunables: {e}")))?;
    let t = Tunables::at_load(rel, ram_bytes, &overrides).map_err(|e| PyValueError::new_err(e.0))?;
    let has = |n: &str| DECLS.iter().any(|d| d.name == n && d.default_for(rel).is_some());
    let m: serde_json::Map<String, serde_json::Value> =
        t.iter().filter(|(n, _)| has(n)).map(|(n, v)| (n.to_string(), json!(v))).collect();
    Ok(serde_json::to_string(&m).unwrap())
}

/// Bundled device presets: `{name: {"description", "spec"}}`.
#[pyfunction]
fn presets_json() -> String {
    let m: serde_json::Map<String, serde_json::Value> = presets::all()
        .into_iter()
        .map(|(n, d, s)| (n.to_string(), json!({"description": d, "spec": s})))
        .collect();
    serde_json::to_string(&m).unwrap()
}

/// Bundled link presets: `{name: {"description", "spec"}}`.
#[pyfunction]
fn link_presets_json() -> String {
    let m: serde_json::Map<String, serde_json::Value> = ziosim_model::device::link::presets()
        .into_iter()
        .map(|(n, d, s)| (n.to_string(), json!({"description": d, "spec": s})))
        .collect();
    serde_json::to_string(&m).unwrap()
}

/// Check a full link specification; raises ValueError with one line naming the field.
#[pyfunction]
fn validate_link(spec_json: &str) -> PyResult<()> {
    let spec: ziosim_model::device::link::LinkParams =
        serde_json::from_str(spec_json).map_err(|e| PyValueError::new_err(format!("{e}")))?;
    spec.validate().map_err(PyValueError::new_err)
}

/// Check a full device specification; raises ValueError with one line naming the field.
#[pyfunction]
fn validate_device(spec_json: &str) -> PyResult<()> {
    let spec: DeviceSpec = serde_json::from_str(spec_json).map_err(|e| PyValueError::new_err(format!("{e}")))?;
    spec.validate().map_err(PyValueError::new_err)
}

/// The run's interrupt poll: Python's pending signals handled now (`PyErr_CheckSignals`);
/// true when a handler raised (KeyboardInterrupt, the CLI's SIGTERM), which `step_events`
/// then returns. A handler that raises nothing leaves the run alone.
fn python_signal_raised() -> bool {
    // SAFETY: the poll runs only inside `Simulation::step_events`, which holds the GIL.
    unsafe { pyo3::ffi::PyErr_CheckSignals() != 0 }
}

/// One simulation run, stepped from Python in chunks of events.
#[pyclass(unsendable)]
struct Simulation {
    run: Run,
    /// `take_results` moved the series out: the results are no longer whole here.
    taken: bool,
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(config_json: &str) -> PyResult<Self> {
        let cfg = RunConfig::from_json(config_json).map_err(PyValueError::new_err)?;
        let mut run = catch_unwind(AssertUnwindSafe(|| Run::new(cfg))).map_err(internal)?.map_err(PyValueError::new_err)?;
        run.set_interrupt_poll(python_signal_raised);
        Ok(Simulation { run, taken: false })
    }

    /// Handle up to `n` events; True once the run has ended. A Ctrl-C (or a SIGTERM the CLI
    /// handles) during the call raises its exception here, within a few thousand events or
    /// walk steps, not after the whole chunk; the run is then abandoned.
    fn step_events(&mut self, py: Python<'_>, n: u64) -> PyResult<bool> {
        let done = catch_unwind(AssertUnwindSafe(|| self.run.step_events(n))).map_err(internal)?;
        if self.run.interrupted() {
            return Err(PyErr::fetch(py));
        }
        Ok(done)
    }

    #[getter]
    fn now_ns(&self) -> u64 {
        self.run.sim.now()
    }
    #[getter]
    fn stop_ns(&self) -> u64 {
        self.run.stop_ns
    }
    #[getter]
    fn events(&self) -> u64 {
        self.run.sim.events_handled()
    }
    /// The running (or last) scan's (examined, to_examine, issued, skipped) bytes and whether
    /// it is sorted; None before any scan.
    #[getter]
    fn scan_progress(&self) -> Option<(u64, u64, u64, u64, bool)> {
        self.run.sim.model().scan_progress()
    }
    /// (done, total) of the workloads with an end of their own; None when there is none.
    #[getter]
    fn workloads_progress(&self) -> Option<(u64, u64)> {
        self.run.sim.model().workloads_progress()
    }
    #[getter]
    fn digest(&self) -> String {
        format!("{:016x}", self.run.sim.digest())
    }

    fn results_json(&self) -> PyResult<String> {
        self.check_not_taken()?;
        catch_unwind(AssertUnwindSafe(|| self.run.results_json(false))).map_err(internal)
    }

    /// The results without a second copy of their bulk, once: `(document, columns)`. The
    /// document is `results_json()`'s but for `series.leaves` (`[]`) and the status
    /// snapshots' trees (indices into `status.rows`); `columns` are the leaf series as
    /// `(name, bytes)` in the document's key order (`group/class` for a per-class series),
    /// each native-endian u64 with one row per (interval, leaf) and (interval, workload) —
    /// interval-major, leaves then workloads, 0 in the workload rows. Each column is freed
    /// in the core as it is handed over.
    fn take_results<'py>(&mut self, py: Python<'py>) -> PyResult<(String, Vec<(String, Bound<'py, PyBytes>)>)> {
        self.check_not_taken()?;
        let doc = catch_unwind(AssertUnwindSafe(|| self.run.results_json(true))).map_err(internal)?;
        self.taken = true;
        let model = self.run.sim.model_mut();
        let (leaves, samples) = (model.leaf_count(), model.sample_count());
        let stride = leaves + model.workload_count();
        let mut out = Vec::with_capacity(series::COLUMNS);
        for (name, c) in series::column_names() {
            let col = model.take_leaf_column(c);
            if col.len() != samples * leaves {
                return Err(PyRuntimeError::new_err(format!("internal error: series column {name} has {} values, not {samples} × {leaves}", col.len())));
            }
            // Interval-major with the workload rows left 0: leaf i of interval k at k·stride + i.
            let bytes = PyBytes::new_with(py, samples * stride * 8, |buf| {
                for (row, vals) in buf.chunks_exact_mut(stride * 8).zip(col.chunks_exact(leaves.max(1))) {
                    for (at, v) in row.chunks_exact_mut(8).zip(vals) {
                        at.copy_from_slice(&v.to_ne_bytes());
                    }
                }
                Ok(())
            })?;
            drop(col);
            out.push((name, bytes));
        }
        Ok((doc, out))
    }
}

impl Simulation {
    fn check_not_taken(&self) -> PyResult<()> {
        if self.taken {
            return Err(PyRuntimeError::new_err("the results were already taken (take_results hands them over once)"));
        }
        Ok(())
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    install_quiet_panic_hook();
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(releases, m)?)?;
    m.add_function(wrap_pyfunction!(tunables_json, m)?)?;
    m.add_function(wrap_pyfunction!(tunables_at_load, m)?)?;
    m.add_function(wrap_pyfunction!(presets_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate_device, m)?)?;
    m.add_function(wrap_pyfunction!(link_presets_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate_link, m)?)?;
    m.add_class::<Simulation>()?;
    Ok(())
}
