"""A stand-in for the compiled `ziosim._core`, with the API of docs/internals.md.

Tests put this module into `sys.modules["ziosim._core"]` (see conftest.py). Its data is
realistic: the tunable table is `fake_core_tunables.json`, extracted from
crates/ziosim-model/src/tunables.rs; the presets follow spec/devices.md §9 (field names
are this fake's assumption until the device models land). `Simulation` advances simulated
time by `NS_PER_EVENT` per event and returns a canned results document derived from the
config, so the same config always yields the same digest.

Switches for failure tests (module attributes, reset by the fixture):
`NONDETERMINISTIC` makes every Simulation's results differ; `INTERRUPT_AFTER_STEPS`
raises KeyboardInterrupt from `step_events` after that many calls; `PANIC` raises a
RuntimeError as a panic surfacing from the core would.
"""

from __future__ import annotations

import hashlib
import json
import pathlib

_DATA = json.loads((pathlib.Path(__file__).with_name("fake_core_tunables.json")).read_text())
RELEASES = _DATA["releases"]
TUNABLES = _DATA["tunables"]

NS_PER_EVENT = 1_000_000
NONDETERMINISTIC = False
INTERRUPT_AFTER_STEPS: int | None = None
PANIC = False
_instances = 0

MIB = 1 << 20

PRESETS = {
    "hdd-7200-sata-2014": {
        "description": "1 TB 7200 rpm SATA, 2014 (Seagate Constellation ES.3 ST1000NM0033 class)",
        "spec": {
            "kind": "hdd",
            "capacity_bytes": 1_000_204_886_016,
            "rpm": 7200,
            "surfaces": 3,
            "rate_od_bytes_per_s": 175_000_000,
            "rate_id_bytes_per_s": 83_000_000,
            "seek_read_avg_ns": 8_500_000,
            "seek_write_avg_ns": 9_500_000,
            "head_switch_ns": 800_000,
            "overhead_miss_ns": 150_000,
            "overhead_hit_ns": 100_000,
            "queue_depth": 32,
            "scheduler": "satf",
            "age_weight": 0.01,
            "seq_affinity": False,
            "cache_bytes": 128 * MIB,
            "write_cache": True,
            "write_cache_dirty_max_bytes": 16 * MIB,
            "link_rate_bytes_per_s": 560_000_000,
            "read_recovery_probability": 0.0,
            "read_recovery_revolutions_mean": 1.0,
            "recovery_time_limit_ms": 7000.0,
        },
    },
    "wd20efrx": {
        "description": "WD Red 2 TB 5400 rpm CMR NAS disk (WD20EFRX-68EUZN0)",
        "spec": {
            "kind": "hdd",
            "capacity_bytes": 2_000_398_934_016,
            "rpm": 5400,
            "surfaces": 4,
            "rate_od_bytes_per_s": 147_000_000,
            "rate_id_bytes_per_s": 70_000_000,
            "seek_read_avg_ns": 10_000_000,
            "seek_write_avg_ns": 11_000_000,
            "head_switch_ns": 800_000,
            "overhead_miss_ns": 150_000,
            "overhead_hit_ns": 100_000,
            "queue_depth": 32,
            "scheduler": "satf",
            "age_weight": 0.0,
            "seq_affinity": True,
            "cache_bytes": 64 * MIB,
            "write_cache": True,
            "write_cache_dirty_max_bytes": 16 * MIB,
            "link_rate_bytes_per_s": 560_000_000,
            "read_recovery_probability": 0.0,
            "read_recovery_revolutions_mean": 1.0,
            "recovery_time_limit_ms": 7000.0,
        },
    },
    "samsung-850pro": {
        "description": "Samsung 850 Pro 256 GB consumer SATA SSD, no power-loss protection",
        "spec": {
            "kind": "ssd",
            "capacity_bytes": 256_060_514_304,
            "channels": 8,
            "dies_per_channel": 4,
            "planes_per_die": 2,
            "page_bytes": 16384,
            "read_ns": 60_000,
            "program_ns": 800_000,
            "erase_ns": 4_000_000,
            "command_overhead_ns": 15_000,
            "queue_depth": 32,
            "dram_bytes": 512 * MIB,
            "plp": False,
            "flush_ns": 1_000_000,
            "overprovision": 0.07,
            "link_rate_bytes_per_s": 560_000_000,
        },
    },
}

_FIELDS = {
    "hdd": set(PRESETS["hdd-7200-sata-2014"]["spec"]) - {"kind"},
    "ssd": set(PRESETS["samsung-850pro"]["spec"]) - {"kind"},
    "simple": {
        "capacity_bytes",
        "service_ns_mean",
        "distribution",
        "bandwidth_bytes_per_s",
        "queue_depth",
        "rotational",
    },
}


def version() -> str:
    return "0.1.0"


def releases() -> list:
    return list(RELEASES)


def tunables_json(release: str | None = None, ram_bytes: int | None = None) -> str:
    rows = TUNABLES
    if ram_bytes is not None:
        at = {r: _at_load(r, ram_bytes, {}) for r in RELEASES}
        rows = [dict(t, defaults={r: at[r].get(t["name"]) for r in RELEASES}, ram_bytes=ram_bytes)
                if t["derived"] else t for t in rows]
    if release is not None:
        rows = [dict(t, defaults={release: t["defaults"][release]}) for t in rows]
    return json.dumps(rows)


def tunables_at_load(release: str, ram_bytes: int, overrides_json: str) -> str:
    return json.dumps(_at_load(release, ram_bytes, json.loads(overrides_json)))


def _at_load(release: str, ram: int, overrides: dict) -> dict:
    """The core's `Tunables::at_load` (tunables.rs) for the three RAM-derived tunables; the
    rest are the release defaults and the overrides (test_fake_core compares with the core)."""
    gib, rel = 1 << 30, RELEASES.index(release)
    vals = {t["name"]: t["defaults"][release] for t in TUNABLES if t["defaults"][release] is not None}
    for k, v in overrides.items():
        if k not in vals:
            raise ValueError(f"zfs.tunables.{k}: release {release} does not have this tunable")
        vals[k] = v
    if "zfs_dirty_data_max" not in vals:
        return vals
    if "zfs_dirty_data_max_max" not in overrides:
        cap = (min(ram // 4, 4 * gib) if rel >= RELEASES.index("zfs-0.7")
               else ram // 4 if rel >= RELEASES.index("zfs-0.6.5") else 4 * gib)
        vals["zfs_dirty_data_max_max"] = max(cap, MIB)
    if "zfs_dirty_data_max" not in overrides:
        pct = vals.get("zfs_dirty_data_max_percent", 10)
        vals["zfs_dirty_data_max"] = max(min(ram * pct // 100, vals["zfs_dirty_data_max_max"]), MIB)
    if "zfs_wrlog_data_max" in vals and "zfs_wrlog_data_max" not in overrides:
        vals["zfs_wrlog_data_max"] = 2 * vals["zfs_dirty_data_max"]
    return vals


def presets_json() -> str:
    return json.dumps(PRESETS)


LINK_PRESETS = _DATA["link_presets"]


def link_presets_json() -> str:
    return json.dumps(LINK_PRESETS)


def validate_link(spec_json: str) -> None:
    spec = json.loads(spec_json)
    if spec.get("kind") not in ("shared", "pm-cbs", "pm-fbs"):
        raise ValueError(f"link.kind = {spec.get('kind')} is not a link kind")


def validate_device(spec_json: str) -> None:
    spec = json.loads(spec_json)
    kind = spec.get("kind")
    if kind not in _FIELDS:
        raise ValueError(f"devices.<x>.kind: unknown kind {kind!r}; allowed: hdd, ssd, simple")
    for k in sorted(_FIELDS[kind] - set(spec)):
        raise ValueError(f"devices.<x>.{k}: missing")
    for k in sorted(set(spec) - _FIELDS[kind] - {"kind"}):
        raise ValueError(f"devices.<x>.{k}: unknown field")
    if spec["capacity_bytes"] <= 0:
        raise ValueError("devices.<x>.capacity_bytes: must be positive")
    if not 1 <= spec["queue_depth"] <= 256:
        raise ValueError(f"devices.<x>.queue_depth: {spec['queue_depth']} is out of range; allowed 1..=256")


def _log2(n: int, k: int) -> list:
    out = [0] * n
    out[k] = 1
    return out


class Simulation:
    def __init__(self, config_json: str) -> None:
        global _instances
        _instances += 1
        self._instance = _instances
        self.config = json.loads(config_json)
        if self.config["release"] not in RELEASES:
            raise ValueError(f"release: unknown release {self.config['release']!r}")
        self.stop_ns = self.config["stop_ns"]
        self.now_ns = 0
        self.events = 0
        self._steps = 0
        self._ended = False

    def step_events(self, n: int) -> bool:
        self._steps += 1
        if INTERRUPT_AFTER_STEPS is not None and self._steps > INTERRUPT_AFTER_STEPS:
            raise KeyboardInterrupt
        if PANIC:
            raise RuntimeError("panic in the core: assertion failed: tag < queue_depth")
        left = (self.stop_ns - self.now_ns + NS_PER_EVENT - 1) // NS_PER_EVENT
        k = min(n, left)
        self.events += k
        self.now_ns = min(self.stop_ns, self.now_ns + k * NS_PER_EVENT)
        self._ended = self.now_ns >= self.stop_ns
        return self._ended

    def results_json(self) -> str:
        if not self._ended:
            raise RuntimeError("results_json called before the run ended")
        c = self.config
        canon = json.dumps(c, sort_keys=True, separators=(",", ":"))
        if NONDETERMINISTIC:
            canon += str(self._instance)
        digest = hashlib.sha256(b"events:" + canon.encode()).hexdigest()[:16]
        leaves, vdevs = [], []
        # Data vdevs, then the special ones (numbered after them, their leaves after the data
        # disks'), each with its allocation class, as the real core lists them.
        tops = [(v, "normal") for v in c["pool"]["vdevs"]] + [(v, "special") for v in c["pool"].get("special", [])]
        for i, (v, cls) in enumerate(tops):
            vname = v["disks"][0]["name"] if v["type"] == "disk" else f"{v['type']}-{i}"
            ids = []
            for d in v["disks"]:
                ids.append(len(leaves))
                leaves.append(self._leaf(d, vname))
            vdevs.append({"name": vname, "type": v["type"], "class": cls, "leaves": ids, "alloc_bytes": 0,
                          "size_bytes": 0})
        cache = []
        for d in c["pool"]["cache"]:
            cache.append(len(leaves))
            leaves.append(self._leaf(d, "cache"))
        # Log vdevs as the real core names them (sim.rs): top-level vdevs numbered after the
        # data vdevs, a lone disk by its own name; their leaves come after the cache's.
        log = []
        for k, v in enumerate(c["pool"].get("log", [])):
            vname = v["disks"][0]["name"] if v["type"] == "disk" else f"{v['type']}-{len(vdevs) + k}"
            ids = []
            for d in v["disks"]:
                ids.append(len(leaves))
                leaves.append(self._leaf(d, vname))
            log.append({"name": vname, "type": v["type"], "leaves": ids})
        n = max(1, c["stop_ns"] // c["report_interval_ns"])
        t_ns = [c["report_interval_ns"] * (k + 1) for k in range(n)]
        p99 = 8_000_000 + (int(digest[:4], 16) if NONDETERMINISTIC else 0)
        wl = [
            {
                "name": w["name"],
                "kind": w["kind"],
                "ops": 1000,
                "bytes": 1000 * w["sizes"][0][0],
                "arc_hits": 0,
                "l2arc_hits": 0,
                "latency_log2": _log2(64, 23),
                "latency_ns": {
                    "min": 100_000,
                    "mean": 6_000_000.0,
                    "max": 40_000_000,
                    "p50": 5_000_000,
                    "p90": 7_000_000,
                    "p99": p99,
                    "p999": 30_000_000,
                },
                "ops_per_s": 1000 / (c["stop_ns"] / 1e9),
                "bytes_per_s": 0.0,
            }
            for w in c["workloads"]
        ]
        return json.dumps(
            {
                "digest": digest,
                "events": self.events,
                "sim_time_ns": self.now_ns,
                "end": "stop-time",
                "leaf_ios": 1000,
                "peak_live_ios": 32,
                "pool": {
                    "name": c["pool"]["name"],
                    "alloc_bytes": c["pool"]["allocated_bytes"],
                    "size_bytes": 0,
                    "vdevs": vdevs,
                    "cache": cache,
                    "log": log,
                },
                "leaves": leaves,
                "classes": {"sync_read": {"ops": 1000, "bytes": 0}},
                "workloads": wl,
                "series": {
                    "interval_ns": c["report_interval_ns"],
                    "t_ns": t_ns,
                    "leaves": [{"read_ops": [1] * n} for _ in leaves],
                    "workloads": [{"ops": [1] * n} for _ in wl],
                },
            }
        )

    def _leaf(self, d: dict, vdev: str) -> dict:
        spec = self.config["devices"][d["device"]]
        return {
            "name": d["name"],
            "vdev": vdev,
            "device": d["device"],
            "rotational": spec["kind"] == "hdd",
            "size_bytes": spec["capacity_bytes"],
            "busy_ns": 0,
            "classes": {},
        }
