"""Scenario files: load TOML, validate every field, produce the normalised run config.

The scenario format is documented in `docs/scenario.md` (and as a JSON Schema in
`ziosim/schema/scenario.schema.json`); the run config it becomes is the contract with the
core, `docs/internals.md`. Validation happens here, field by field, so that every mistake
reaches the user as one line naming the field:

    pool.vdevs[0].disks: 2 — too few for raidz2; allowed: at least 3

with, for a misspelt key, a second line ``hint: did you mean vdevs?``.

Order of work: sections are checked in file-independent order (scenario, zfs, devices,
links, pool, workload), because later sections refer to earlier ones (a vdev names a
device; `fill` needs device capacities; a workload's region must lie inside `allocated`).
Within a table, keys are checked in the order the file gives them, so the first mistake in
the file is the one reported.

The run config holds every size in bytes and every time in ns. It records only the
tunables the scenario overrides; the core applies the release defaults (some depend on
`ram_bytes`). `scenario_hash` is the first 16 hex digits of the SHA-256 of the canonical
JSON (sorted keys, no spaces) of the run config, so it changes with the seed and the stop
time as well as with the pool.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _native
from .errors import ScenarioError
from .results import json_default
from .units import parse_duration, parse_rate, parse_size, show, size_label

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib

__all__ = [
    "Scenario",
    "load",
    "loads",
    "from_dict",
    "canonical_json",
    "scenario_hash",
    "default_hz",
    "nearest",
    "VDEV_MIN_DISKS",
    "WORKLOAD_KINDS",
    "json_schema",
]

# Limits the core enforces on every run (docs/internals.md, "limits").
EVENTS_MAX = 2_000_000_000
TIME_NS_MAX = 400 * 86_400 * 1_000_000_000
# Most report intervals a run may keep (the core's REPORT_SAMPLES_MAX, sim.rs).
REPORT_SAMPLES_MAX = 20_000
# Every duration field (a think time, a latency, a workload's stop) is at most the longest run:
# beyond it the value changes nothing, and the run config carries it as a u64 of ns.
DURATION_NS_MAX = TIME_NS_MAX
# zfs.ram: 8 EiB, the most a signed 64-bit byte count holds — what the derived tunables
# (zfs_dirty_data_max, zfs_arc_max: i64 in the core, as FreeBSD's physmem is a long) can be.
RAM_BYTES_MIN = 64 << 20
RAM_BYTES_MAX = 8 << 60
# workload[].net_rate: 1 TiB/s, faster than any network (a bound, so the core's u64 holds it).
NET_RATE_MAX = 1 << 40

VDEV_MIN_DISKS = {"disk": 1, "mirror": 2, "raidz1": 2, "raidz2": 3, "raidz3": 4, "draid1": 2, "draid2": 3, "draid3": 4}
VDEV_PARITY = {"disk": 0, "mirror": 0, "raidz1": 1, "raidz2": 2, "raidz3": 3, "draid1": 1, "draid2": 2, "draid3": 3}
VDEV_ALIASES = {"raidz": "raidz1", "draid": "draid1"}  # as `zpool create` spells them
# dRAID (zpool_vdev.c draid_config_by_type@zfs-2.1.0): at most 100 distributed spares.
DRAID_SPARES_MAX = 100
VDEV_DISKS_MAX = 255  # raidz's own child limit
POOL_DISKS_MAX = 4096  # a bound on leaves (design.md's largest case is 100 disks)
WORKLOAD_KINDS = ("random-read", "random-write", "seq-read", "seq-write", "fsync-write", "nfs-copy", "database", "zvol",
                  "trace")
WORKLOAD_KINDS_LATER: tuple[str, ...] = ()
TRACE_KEYS = ("trace", "trace_format", "speed", "repeat", "arc_size", "volume")
# Kinds a modelled ARC (`arc_size`) may serve (config.rs `WorkloadKind::arc_size_allowed`).
ARC_SIZE_KINDS = ("trace", "random-read", "seq-read", "random-write", "seq-write")
# Most records a trace's modelled ARC may hold (config.rs ARC_RECORDS_MAX).
ARC_RECORDS_MAX = 1 << 22
NFS_KEYS = ("files", "wsize", "rtt", "net_rate", "dirs", "source")
DB_KEYS = ("reads", "wal", "dirty_pages", "checkpoint", "checkpoint_spread")
DB_PAGE = 8192  # PostgreSQL BLCKSZ: the default page size of a database workload
SYNC_MODES = ("standard", "always", "disabled")
LOGBIAS_MODES = ("latency", "throughput")
LINK_KINDS = ("shared", "pm-cbs", "pm-fbs")
LINK_KINDS_LATER: tuple[str, ...] = ()
NOT_YET = "not yet supported"

TOP_KEYS = ("scenario", "zfs", "devices", "links", "pool", "workload", "action")
TOP_KEYS_LATER: tuple[str, ...] = ()
SCENARIO_KEYS = ("name", "seed", "stop", "report_interval", "start_time")
ACTIONS = ("scrub", "pause-scrub", "resume-scrub", "cancel", "fail", "replace", "attach", "detach",
           "offline", "online", "set")
ACTION_KEYS = {
    "scrub": (),
    "pause-scrub": (),
    "resume-scrub": (),
    "cancel": (),
    "fail": ("disk",),
    "replace": ("old", "new", "device", "sequential"),
    "attach": ("disk", "new", "device", "sequential"),
    "detach": ("disk",),
    "offline": ("disk",),
    "online": ("disk",),
    "set": ("tunable", "value"),
}
# Actions after which a scan (or a rebuild) may run: what `stop = "scan-done"` waits for.
SCAN_ACTIONS = ("scrub", "replace", "attach", "online")
# Releases whose platform puts no hot spare in by itself (the core's Release::activates_spares).
SPARES_MANUAL_RELEASES = ("freebsd-9", "zfs-0.6.5")
# 2023-10-14 00:00:01 UTC, the date of the spec's zfs-2.2 zpool status example.
DEFAULT_EPOCH_S = 1_697_241_601
# scenario.start_time: from the Unix epoch (the core keeps it as a u64 of seconds) until the
# run's last date is still a four-digit year, as ctime(3) and the reports print it.
START_TIME_MIN = "1970-01-01 00:00:00"
START_TIME_LAST = "9999-12-31 23:59:59"
ZFS_KEYS = ("release", "hz", "ram", "tunables", "sync", "logbias", "special_small_blocks")
POOL_KEYS = ("name", "ashift", "recordsize", "allocated", "fill", "vdevs", "special", "cache", "log", "spares",
             "layout", "failmode")
# Allocation classes (`zpool create … special mirror …`) came with OpenZFS 0.8.0 (feature
# allocation_classes); a special vdev is a data vdev of any type but dRAID here.
SPECIAL_FIRST_RELEASE = "zfs-0.8"
SPECIAL_TYPES = ("disk", "mirror", "raidz1", "raidz2", "raidz3")
# special_small_blocks at 0.8: "zero or a power of 2 from 512B to 128K" (SPA_OLD_MAXBLOCKSIZE,
# zfs_valid_proplist in lib/libzfs/libzfs_dataset.c@zfs-0.8.0); from 2.0 the pool's
# maxblocksize, MIN(zfs_max_recordsize, SPA_MAXBLOCKSIZE) (@zfs-2.0.0, spa_prop_get_config in
# module/zfs/spa.c): 1M by default in 2.0 and 2.1, 16M from 2.2 — max_recordsize's eras.
SPECIAL_SMALL_BLOCKS_MAX_08 = 128 << 10
# The `failmode` pool property (zpoolprops(7)); "wait" is ZFS's default.
FAILMODES = ("wait", "continue", "panic")
LOG_KEYS = ("device", "count", "mirror", "link", "names")
POOL_KEYS_LATER: tuple[str, ...] = ()
LAYOUT_KEYS = ("fragmentation", "files", "compression", "seed", "written_by")
# Named layouts: a fresh sequential fill, or a pool aged by rewrites and deletes.
LAYOUT_PRESETS = {"fresh": 0.0, "aged": 0.6}
LAYOUT_FILE_CLASSES_MAX = 64
COMPRESSION_MAX = 100.0
VDEV_KEYS = ("type", "disks", "device", "devices", "link", "names", "data", "spares")
CACHE_KEYS = ("device", "count", "link", "names")
SPARE_KEYS = CACHE_KEYS + ("auto",)
LINK_FIELDS = ("kind", "rate_bytes_per_s", "per_command_overhead_ns", "latency_ns", "host_slots")
# The keys a scenario writes (the fields without their units, as the schema has them).
LINK_KEYS = ("like", "kind", "rate", "per_command_overhead", "latency", "host_slots")
WORKLOAD_KEYS = (
    "name",
    "kind",
    "size",
    "sizes",
    "rate",
    "threads",
    "think",
    "region",
    "arc_hit",
    "arc_hit_latency",
    "l2arc_hit",
    "start",
    "stop",
    "o_dsync",
    "fua",
    "flush_every",
    "files",
    "wsize",
    "rtt",
    "net_rate",
    "dirs",
    "source",
    "reads",
    "wal",
    "dirty_pages",
    "checkpoint",
    "checkpoint_spread",
    "trace",
    "trace_format",
    "speed",
    "repeat",
    "arc_size",
    "volume",
)
REGION_KEYS = ("offset", "length")

DEFAULTS = {
    "seed": 0,
    "stop": "60s",
    "report_interval": "10s",
    "ram": "16G",
    "pool.name": "tank",
    "pool.ashift": 12,
    "pool.recordsize": "128K",
    "arc_hit_latency": "2us",
}
SEED_MAX = (1 << 64) - 1


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: the run config for the core plus where it came from."""

    config: dict[str, Any]
    hash: str
    path: str | None = None
    # What the user should know that is no error (a trace's records left out).
    notes: tuple[str, ...] = ()
    # How the pool's allocation was given: ("pool.fill", 0.9) or ("pool.allocated", "2.8T"),
    # so that the core's "does not fit" can name the field the user wrote.
    allocation: tuple[str, Any] | None = None

    @property
    def name(self) -> str:
        return self.config["name"]

    @property
    def seed(self) -> int:
        return self.config["seed"]

    @property
    def release(self) -> str:
        return self.config["release"]

    @property
    def hz(self) -> int:
        return self.config["hz"]

    def config_json(self) -> str:
        return canonical_json(self.config)


def canonical_json(obj: Any) -> str:
    """Sorted keys, no whitespace, ASCII: the byte form hashes and comparisons use."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False,
                      default=json_default)


def scenario_hash(config: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical_json(config).encode("ascii")).hexdigest()[:16]


@dataclass(frozen=True)
class Stop:
    """A parsed ``scenario.stop``: the hard bound and what else ends the run."""

    stop_ns: int
    scan_done: bool = False
    after_scan_ns: int = 0
    workloads_done: bool = False
    # "scan-done" or "workloads-done" with no "or D": no end known before the run.
    open_ended: bool = False


def parse_stop(stop: Any, field: str) -> Stop:
    """``scenario.stop`` (or the ``--stop`` that overrides it, named ``field`` in errors): a
    duration, ``scan-done [+ D] [or D]`` or ``workloads-done [or D]``."""
    scan = (re.fullmatch(r"\s*scan-done(?:\s*\+\s*(\S+))?(?:\s+or\s+(.*?))?\s*", stop)
            if isinstance(stop, str) else None)
    wdone = (re.fullmatch(r"\s*workloads-done(?:\s+or\s+(.*?))?\s*", stop) if isinstance(stop, str) else None)
    after = 0
    open_ended = False
    if wdone:
        open_ended = wdone.group(1) is None
        stop_ns = parse_duration(wdone.group(1), field) if wdone.group(1) is not None else TIME_NS_MAX
    elif scan:
        open_ended = scan.group(2) is None
        # "scan-done + 20m": keep running 20 minutes after the scan (an "after" window).
        if scan.group(1) is not None:
            after = parse_duration(scan.group(1), field)
        # "scan-done" alone still has a hard bound: 400 days of simulated time.
        stop_ns = parse_duration(scan.group(2), field) if scan.group(2) is not None else TIME_NS_MAX
    else:
        stop_ns = parse_duration(stop, field)
    if not 0 < stop_ns <= TIME_NS_MAX:
        raise ScenarioError(f"{field}: {show(stop)} — out of range; allowed: more than 0, at most 400d")
    return Stop(stop_ns, scan_done=bool(scan) and not wdone, after_scan_ns=after, workloads_done=bool(wdone),
                open_ended=open_ended)


def start_epoch_s(value: Any, stop_ns: int) -> int:
    """``scenario.start_time`` as Unix seconds: from the epoch, and early enough that the
    run's last date (``stop_ns`` on) is still one the reports can print."""
    import datetime as _dt

    if value is None:
        return DEFAULT_EPOCH_S
    fmt = "%Y-%m-%d %H:%M:%S"
    try:
        when = _dt.datetime.strptime(_str(value, "scenario.start_time"), fmt)
    except ValueError:
        raise ScenarioError(f'scenario.start_time: {show(value)} — allowed: "YYYY-MM-DD HH:MM:SS" (UTC)') from None
    last = _dt.datetime.strptime(START_TIME_LAST, fmt) - _dt.timedelta(seconds=-(-stop_ns // 1_000_000_000))
    if not _dt.datetime.strptime(START_TIME_MIN, fmt) <= when <= last:
        why = "before 1970" if when.year < 1970 else f"the run would end after {START_TIME_LAST}"
        raise ScenarioError(f'scenario.start_time: {show(value)} — {why}; allowed: {START_TIME_MIN} to '
                            f'{last.strftime(fmt)} (UTC)')
    return int(when.replace(tzinfo=_dt.timezone.utc).timestamp())


# --------------------------------------------------------------------------- entry points


def load(
    path: str | os.PathLike[str],
    *,
    seed: int | None = None,
    stop: str | None = None,
) -> Scenario:
    """Read and validate a scenario file. `seed`/`stop` override the file's values."""
    p = Path(path)
    return loads(read_text(p, "scenario"), path=str(p), seed=seed, stop=stop)


def read_text(p: Path, what: str) -> str:
    """A `what` .toml file's text, or a one-line error naming the path: the problem in
    words (not Python's errno text) and what is allowed."""
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ScenarioError(f"{p}: no such file — allowed: a path to a {what} .toml file") from None
    except OSError as e:
        if p.is_dir():  # IsADirectoryError on Linux; other systems say EACCES or EISDIR
            raise ScenarioError(f"{p}: is a directory — allowed: a path to a {what} .toml file") from None
        raise ScenarioError(f"{p}: cannot read ({e.strerror or type(e).__name__}) — allowed: a path to a "
                            f"{what} .toml file you can read") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise ScenarioError(f"{p}: not UTF-8 text (byte 0x{raw[e.start]:02x} at offset {e.start}, line {line}) — "
                            f"allowed: a TOML {what} file (UTF-8 text)") from None


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """TOML text as a dict, or a one-line error naming `where`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{where}: not valid TOML — {str(e).splitlines()[0]}") from None


def loads(
    text: str,
    *,
    path: str | None = None,
    seed: int | None = None,
    stop: str | None = None,
) -> Scenario:
    """Validate scenario TOML text; `path` names it in errors and gives the default name."""
    doc = parse_toml(text, path or "scenario")
    default_name = Path(path).stem if path else "scenario"
    return from_dict(doc, default_name=default_name, path=path, seed=seed, stop=stop)


def from_dict(
    doc: Mapping[str, Any],
    *,
    default_name: str = "scenario",
    path: str | None = None,
    seed: int | None = None,
    stop: str | None = None,
) -> Scenario:
    """Validate a parsed scenario document and normalise it into the run config."""
    doc = copy.deepcopy(dict(doc))
    if seed is not None or stop is not None:
        sc = doc.setdefault("scenario", {})
        if isinstance(sc, dict):
            if seed is not None:
                sc["seed"] = seed
            if stop is not None:
                sc["stop"] = stop
    base = Path(path).parent if path else None
    norm = _Normaliser(doc, default_name, stop_overridden=stop is not None, base_dir=base)
    config = norm.run()
    return Scenario(config=config, hash=scenario_hash(config), path=path, notes=tuple(norm.notes),
                    allocation=norm.allocation)


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the scenario format, shipped in the package."""
    text = (Path(__file__).parent / "schema" / "scenario.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def retire_agent_on(pool: Mapping[str, Any], release: str) -> bool:
    """Does a retire agent put a spare in when a disk fails (`pool.spares.auto`, else the
    release's platform; the core's `spares_activate`)?"""
    return bool(pool.get("spares_auto", release not in SPARES_MANUAL_RELEASES))


def draid_spare_names(pool: Mapping[str, Any]) -> dict[str, int]:
    """The distributed spares of a normalised pool, by name (`draid<parity>-<vdev>-<id>`,
    vdev_draid_spare_create@zfs-2.1.0), each with the index of its dRAID vdev."""
    return {f"draid{VDEV_PARITY[v['type']]}-{t}-{s}": t
            for t, v in enumerate(pool["vdevs"]) if v.get("spares") for s in range(v["spares"])}


# The largest record (and volblocksize) `zfs set` takes, by release. Before large blocks
# SPA_MAXBLOCKSIZE was 128K (sys/spa.h: SPA_MAXBLOCKSHIFT 17 at openzfs/openzfs 975c32a05c
# = solaris-2009 and 7e0e2549bf = illumos-2012; FreeBSD 9's ZFS predates large blocks too).
# Large blocks (illumos 5027, feature large_blocks, il:b515258426, Nov 2014, an ancestor of
# illumos-2014's bc9014e6a8; ZoL 0.6.5) raised SPA_MAXBLOCKSIZE to 16M but cap the property
# at zfs_max_recordsize, 1M by default (dsl_dataset.c at bc9014e6a8, zfs-0.6.5, zfs-0.7.0,
# zfs-2.1.0; zfs_check_settable, zvol_check_volblocksize), 16M from zfs-2.2.0 (1M there only
# on 32-bit kernels, which ziosim does not model). ziosim has no zfs_max_recordsize tunable,
# so the limit is the release's default.
RECORDSIZE_MAX_ERAS: tuple[tuple[str, int], ...] = (
    ("solaris-2009", 128 << 10),
    ("illumos-2014", 1 << 20),
    ("zfs-2.2", 16 << 20),
)


def max_recordsize(release: str, releases: Sequence[str]) -> int:
    """The largest `pool.recordsize` ``release`` allows (RECORDSIZE_MAX_ERAS)."""
    at = releases.index(release)
    return max(m for first, m in RECORDSIZE_MAX_ERAS if releases.index(first) <= at)


def special_small_blocks_max(release: str, releases: Sequence[str]) -> int:
    """The largest `zfs.special_small_blocks` ``release`` takes (a 0.8+ release): 128K on
    zfs-0.8, then the pool's maxblocksize, which is `max_recordsize`'s (libzfs_dataset.c
    zfs_valid_proplist @zfs-0.8.0, @zfs-2.0.0, @zfs-2.2.0)."""
    if release == SPECIAL_FIRST_RELEASE:
        return SPECIAL_SMALL_BLOCKS_MAX_08
    return max_recordsize(release, releases)


def recordsize_allowed(release: str, releases: Sequence[str]) -> str:
    """The "allowed: …" part of a `pool.recordsize` error for ``release``."""
    top = max_recordsize(release, releases)
    later = [(first, m) for first, m in RECORDSIZE_MAX_ERAS if m > top]
    if not later:
        return f"allowed: a power of two from 512 to {size_label(top)}"
    if top <= 128 << 10:
        why = "SPA_MAXBLOCKSIZE before large blocks"
    else:
        why = "the release's default maximum: zfs_max_recordsize, not a ziosim tunable"
    nxt, more = later[0]
    return (f"allowed on {release}: a power of two from 512 to {size_label(top)} ({why}); "
            f"up to {size_label(more)} from release {nxt}")


def default_hz(release: str) -> int:
    """Tick rate of the release's usual platform: illumos/Solaris 100, FreeBSD 1000, Linux 250."""
    if release.startswith(("solaris", "illumos")):
        return 100
    if release.startswith("freebsd"):
        return 1000
    return 250


# --------------------------------------------------------------------------- helpers


def _edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        prev = cur
    return prev[len(b)]


def nearest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest by edit distance, if within half the name's length (as the core)."""
    best: tuple[int, str] | None = None
    for c in candidates:
        d = _edit_distance(name, c)
        if best is None or (d, c) < best:
            best = (d, c)
    if best is None or best[0] > max(len(name), 4) // 2:
        return None
    return best[1]


def _hint(name: str, candidates: Iterable[str]) -> str | None:
    n = nearest(name, candidates)
    return f"did you mean {n}?" if n else None


_DURATION_UNITS = (("d", 86_400 * 10**9), ("h", 3_600 * 10**9), ("m", 60 * 10**9), ("s", 10**9),
                   ("ms", 10**6), ("us", 10**3), ("ns", 1))


def duration_text(ns: int) -> str:
    """``ns`` exactly, as a scenario writes a duration: ``"1s"``, ``"1m30s"``, ``"2s500ms"``."""
    parts = []
    for unit, size in _DURATION_UNITS:
        n, ns = divmod(ns, size)
        if n:
            parts.append(f"{n}{unit}")
    return "".join(parts) or "0s"


# What became of a tunable some releases lack, as the import audit of tunables files says it
# (importers/tunables_conf.py holds the table): the fact, and the release's nearest counterpart.
def fate(name: str, release: str, releases: Sequence[str]) -> tuple[str | None, str | None]:
    """(what became of ``name``, the tunable that took its place) for a release without it;
    the fact only where it applies to ``release`` (removed in 0.8: only 0.8 and later)."""
    try:
        from .importers.tunables_conf import _AFTER_08, _FATE
    except ImportError:  # the importers need ziosim.report, which CLI tests replace by a stand-in
        return None, None
    if name not in _FATE:
        return None, None
    fact, counterpart = _FATE[name]
    after_08 = release.startswith("zfs-") and releases.index(release) >= releases.index("zfs-0.8")
    return (fact if fact != _AFTER_08 or after_08 else None), counterpart


# Knobs ZFS copies into a private variable when the module loads, whatever the platform's
# permission on the knob says: a write to a running system changes nothing (DS@zfs-0.8.0 …
# DS@zfs-2.3.0 `scan_init`: "fill_weight is non-tunable at runtime, so we copy it at module
# init from zfs_scan_fill_weight").
_READ_AT_MODULE_LOAD = {"zfs_scan_fill_weight": "scan_init copies it into fill_weight, dsl_scan.c"}
# Knobs a file system reads when it is mounted: a write to a running system changes nothing
# until a remount, which ziosim does not model (snv_117 `zfsvfs_setup`: `if (zil_disable)
# { zil_destroy(…); zfsvfs->z_log = NULL; }`, zfs_vfsops.c; the ZPL never reads it again).
_READ_AT_MOUNT = {"zil_disable": "zfsvfs_setup reads it when a file system is mounted, zfs_vfsops.c"}
# Knobs read when a pool is imported or created: a running pool keeps what it read.
_READ_AT_IMPORT = {"spa_num_allocators": "spa_add sets spa_alloc_count from it, spa_misc.c@zfs-2.3.0"}


def boot_only(name: str, release: str) -> str | None:
    """Why a running system of ``release`` cannot change tunable ``name`` (a `set` action
    of it would change nothing), or None when one can. A tunable is boot-only when ZFS reads
    it only at module load, or when every platform that ran the release and exports it makes
    it read-only once booted — ``ziosim tunables --platform`` marks those "(boot)"."""
    from . import platforms

    if name in _READ_AT_MODULE_LOAD:
        return f"{release} reads it only when the zfs module loads ({_READ_AT_MODULE_LOAD[name]})"
    if name in _READ_AT_MOUNT:
        return f"{release} reads it only when a file system is mounted ({_READ_AT_MOUNT[name]})"
    if name in _READ_AT_IMPORT:
        return f"{release} reads it only when a pool is imported ({_READ_AT_IMPORT[name]})"
    why = []
    for p in platforms.platforms_for(release):
        k = platforms.knob(p, release, name)
        if k is None:
            continue
        if p == "illumos" and name in platforms._ILLUMOS_READ_AT_INIT:
            why.append("illumos reads it once, when ZFS starts (arc_init)")
        elif k.runtime:
            return None
        elif p == "linux":
            why.append("Linux: a read-only module parameter, mode 0444")
        else:
            why.append(f"FreeBSD: {k.name} is a loader tunable, read-only once booted")
    return f"{release} reads it only at boot ({'; '.join(why)})" if why else None


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    """A finite number: TOML's nan and inf are no value any field can take."""
    if isinstance(v, float):
        return math.isfinite(v)
    return isinstance(v, int) and not isinstance(v, bool)


def _table(v: Any, path: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ScenarioError(f"{path}: {show(v)} — allowed: a table")
    return v


def check_keys(
    t: Mapping[str, Any],
    path: str,
    allowed: Sequence[str],
    later: Sequence[str] = (),
) -> None:
    for k in t:
        if k in later:
            raise ScenarioError(f"{_join(path, k)}: {NOT_YET} — remove it for now")
        if k not in allowed:
            where = f"in {path}" if path else "at the top level"
            raise ScenarioError(
                f"{_join(path, k)}: unknown key — allowed {where}: {', '.join(allowed)}",
                hint=_hint(k, allowed),
            )


def _int(v: Any, path: str, lo: int, hi: int, unit: str = "") -> int:
    u = f" {unit}" if unit else ""
    if not _is_int(v):
        raise ScenarioError(f"{path}: {show(v)} — allowed: an integer {lo}..{hi}{u}")
    if not lo <= v <= hi:
        raise ScenarioError(f"{path}: {v} — out of range; allowed: {lo}..{hi}{u}")
    return v


def _duration(v: Any, path: str) -> int:
    """A duration field of the scenario: ``parse_duration`` within the longest run."""
    return _within_longest_run(parse_duration(v, path), v, path)


def _within_longest_run(ns: int, v: Any, path: str) -> int:
    if ns > DURATION_NS_MAX:
        raise ScenarioError(f"{path}: {show(v)} — too long; allowed: at most 400d (the longest run)")
    return ns


def _ratio(v: Any, path: str, *, zero_ok: bool = True) -> float:
    allowed = "a number 0..1" if zero_ok else "a number greater than 0, at most 1"
    if not _is_num(v):
        raise ScenarioError(f"{path}: {show(v)} — allowed: {allowed}")
    if v > 1 or v < 0 or (v == 0 and not zero_ok):
        raise ScenarioError(f"{path}: {v} — out of range; allowed: {allowed}")
    return float(v)


def _str(v: Any, path: str, what: str = "a string") -> str:
    if not isinstance(v, str) or not v.strip():
        raise ScenarioError(f"{path}: {show(v)} — allowed: {what}")
    return v


def _choice(v: Any, path: str, allowed: Sequence[str], later: Sequence[str] = ()) -> str:
    if isinstance(v, str) and v in later:
        raise ScenarioError(f"{path}: {show(v)} — {NOT_YET}; allowed now: {', '.join(allowed)}")
    if not isinstance(v, str) or v not in allowed:
        hint = _hint(v, allowed) if isinstance(v, str) else None
        raise ScenarioError(f"{path}: {show(v)} — allowed: {', '.join(allowed)}", hint=hint)
    return v


def _required(t: Mapping[str, Any], key: str, path: str, what: str) -> Any:
    if key not in t:
        raise ScenarioError(f"{_join(path, key)}: missing — allowed: {what}")
    return t[key]


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def linux_disk_name(i: int) -> str:
    """sda … sdz, sdaa … sdzz, as the Linux sd driver names disks (bijective base 26)."""
    s = ""
    i += 1
    while i > 0:
        i, r = divmod(i - 1, 26)
        s = chr(ord("a") + r) + s
    return "sd" + s


def _field_kind(field: str) -> str:
    """Which parser a device or link field takes, from the unit in its name."""
    toks = field.split("_")
    per = toks[toks.index("per") - 1] if "per" in toks[1:] else None  # the unit before "per"
    if per == "bytes":
        return "rate"
    if per in ("ns", "ms"):
        return "plain"  # a ratio such as age_weight_ms_per_ms
    if "bytes" in toks:
        return "size"
    if "ns" in toks:
        return "ns"
    if "ms" in toks:
        return "ms"
    return "plain"


def _convert_field(field: str, v: Any, path: str, like: Any = None, *, key: str | None = None) -> Any:
    """A device or link field's value in the field's own unit. `key` is the key as written:
    when it dropped the field's unit suffix (`latency` for `latency_ns`), a plain number has
    no unit and is an error, as in every other duration field."""
    kind = _field_kind(field)
    if kind == "rate":
        return parse_rate(v, path)
    if kind == "size":
        return parse_size(v, path)
    if kind in ("ns", "ms"):
        return _duration_field(kind, v, path, unit_written=key is None or key == field)
    if like is None:
        return v
    if isinstance(like, bool):
        if not isinstance(v, bool):
            raise ScenarioError(f"{path}: {show(v)} — allowed: true or false")
    elif _is_int(like):
        # The range (a negative value included) is the core's to check: its message gives it.
        if not _is_int(v):
            raise ScenarioError(f"{path}: {show(v)} — allowed: an integer")
    elif isinstance(like, float):
        if not _is_num(v):
            raise ScenarioError(f"{path}: {show(v)} — allowed: a number")
        return float(v)
    elif isinstance(like, str):
        if not isinstance(v, str):
            raise ScenarioError(f"{path}: {show(v)} — allowed: a string")
    return v


def _duration_field(unit: str, v: Any, path: str, *, unit_written: bool) -> int | float:
    """A `*_ns` field (integer ns) or `*_ms` field (float ms): a duration with a unit
    ("9ms", "1s"), or a plain number in the unit the key's name gives. The core checks the
    range, so a negative number is left to it."""
    if unit_written and _is_num(v):
        if unit == "ms":
            return float(v)
        if _is_int(v) or float(v).is_integer():
            return int(v)
        raise ScenarioError(
            f"{path}: {show(v)} — not a whole number of ns; "
            'allowed: an integer (ns) or a duration with a unit, e.g. "50us"'
        )
    ns = parse_duration(v, path)
    return ns if unit == "ns" else ns / 1_000_000


def _resolve_field(key: str, fields: Sequence[str]) -> str | None:
    """`capacity` → `capacity_bytes`: a key without its unit names the one field that has it."""
    if key in fields:
        return key
    units = ("_bytes", "_ns", "_ms", "_bytes_per_s")
    matches = [f for f in fields if f in (key + u for u in units)]
    return matches[0] if len(matches) == 1 else None


DEVICE_KINDS = ("hdd", "ssd", "simple")
# serde_json's errors end with the place in the JSON document the core was given.
_SERDE_AT = re.compile(r"^(?P<msg>.*) at line \d+ column (?P<col>\d+)$")
# A core check's one line: `field: value — what is wrong; allowed: …` (device/mod.rs).
_CORE_LINE = re.compile(r"^(?P<field>[a-z][a-z0-9_]*): (?P<value>\S+) — (?P<why>.*?); allowed: (?P<allowed>.*)$")
_INT_TYPES = re.compile(r"^[ui](?:8|16|32|64|128|size)$")
# What serde quotes of a value it refused: its kind and the value.
_SERDE = re.compile(
    r'^(?:invalid (?:type|value): (?P<kind>integer|floating point|boolean|string|sequence|map)'
    r'(?: `(?P<tick>[^`]*)`| "(?P<str>.*?)")?, expected |unknown (?P<variant>variant) `(?P<vtick>[^`]*)`)'
)


def _ticked(text: str) -> list[str]:
    return re.findall(r"`([^`]*)`", text)


def _field_at(doc: str, col: int) -> str | None:
    """The key whose value ends at (1-based) column `col` of a flat one-line JSON object:
    where serde_json says it stopped, for the errors that do not name the field."""
    keys = re.findall(r'"([^"\\]+)":', doc[:col])
    return keys[-1] if keys else None


def _first_line(e: BaseException) -> str:
    return (str(e).splitlines() or [""])[0].strip()


class _CoreCheck:
    """One spec checked by the core (`validate_device` or `validate_link`), its errors
    turned into the scenario's one-line shape at `path`. The core's own range checks
    already say `field: value — out of range; allowed: …`; what serde says about the JSON
    (a missing or unknown field, a wrong type, a negative or too large integer) is
    rewritten here, since its words and positions are those of an internal document."""

    def __init__(self, validate: Any, spec: Mapping[str, Any], path: str, what: str) -> None:
        self.validate, self.spec, self.path, self.what = validate, dict(spec), path, what
        self.doc = canonical_json(self.spec)

    def run(self) -> None:
        try:
            self.validate(self.doc)
        except ValueError as e:
            raise self.error(_first_line(e)) from None

    def error(self, line: str) -> ScenarioError:
        path = self.path
        if line.startswith("devices.<x>"):  # a core that names the field itself
            return ScenarioError(f"{path}{line[len('devices.<x>'):]}")
        line = line.removeprefix("link.")
        if _CORE_LINE.match(line):
            return ScenarioError(f"{path}.{line}")
        m = _SERDE_AT.match(line)
        if m or line.startswith(("missing field", "unknown field", "unknown variant", "invalid type", "invalid value")):
            return self.serde_error(m.group("msg") if m else line, int(m.group("col")) if m else None)
        if line.startswith(path):
            return ScenarioError(line)
        return ScenarioError(f"{path}: {line}")

    def serde_error(self, msg: str, col: int | None) -> ScenarioError:
        path, what = self.path, self.what
        names = _ticked(msg)
        if msg.startswith("missing field") and names:
            return ScenarioError(
                f"{path}.{names[0]}: missing — a full {what} spec needs every field of the model; allowed: all of "
                'them, or like = "<preset>" and only the fields to change (`ziosim presets --json` shows the fields)'
            )
        if msg.startswith("unknown field") and names:
            return ScenarioError(
                f"{path}.{names[0]}: unknown key — allowed in a {what} spec: kind, {', '.join(names[1:])}",
                hint=_hint(names[0], names[1:]),
            )
        field = _field_at(self.doc, col) if col is not None else self.field_valued(msg)
        if field is None:
            return ScenarioError(f"{path}: {msg}")
        value = self.spec.get(field)
        if msg.startswith("unknown variant") and names:
            return ScenarioError(f"{path}.{field}: {show(value)} — allowed: {', '.join(names[1:])}",
                                 hint=_hint(names[0], names[1:]))
        expected = msg.rsplit(", expected ", 1)[-1].strip()
        if _is_int(value) and _INT_TYPES.match(expected):
            allowed = self.allowed_range(field) or "an integer, 0 or more"
            return ScenarioError(f"{path}.{field}: {value} — out of range; allowed: {allowed}")
        words = {"a boolean": "true or false", "f64": "a number", "f32": "a number", "a string": "a string"}
        allowed = "an integer" if _INT_TYPES.match(expected) else words.get(expected, expected)
        return ScenarioError(f"{path}.{field}: {show(value)} — allowed: {allowed}")

    def field_valued(self, msg: str) -> str | None:
        """The field serde means when it gives no position (an internally tagged spec): the
        first, in the document's (sorted) order, whose value is the one it quotes."""
        m = _SERDE.match(msg)
        if m is None:
            return None
        kind, tick, text = m.group("kind") or "variant", m.group("tick") or m.group("vtick"), m.group("str")

        def same(v: Any) -> bool:
            if kind == "integer":
                return _is_int(v) and str(v) == tick
            if kind == "floating point":
                return _is_num(v) and float(v) == float(tick)
            if kind == "boolean":
                return isinstance(v, bool) and show(v) == tick
            if kind in ("string", "variant"):
                want = text if kind == "string" else tick
                return isinstance(v, str) and want in (v, json.dumps(v, ensure_ascii=False)[1:-1])
            return isinstance(v, list) if kind == "sequence" else isinstance(v, dict) if kind == "map" else False

        return next((k for k in sorted(self.spec) if k != "kind" and same(self.spec[k])), None)

    def allowed_range(self, field: str) -> str | None:
        """The core's own words for an integer field's range, asked with a value at each end
        (0, then 2^32 − 1, above every bounded field's limit), so that the range lives in
        the core alone and -1 is answered as 0 would be."""
        for probe in (0, (1 << 32) - 1):
            try:
                self.validate(canonical_json({**self.spec, field: probe}))
            except ValueError as e:
                m = _CORE_LINE.match(_first_line(e).removeprefix("link."))
                if m and m.group("field") == field:
                    return m.group("allowed")
        return None


# --------------------------------------------------------------------------- normaliser


class _Normaliser:
    def __init__(self, doc: dict[str, Any], default_name: str, stop_overridden: bool = False,
                 base_dir: Path | None = None) -> None:
        self.doc = doc
        self.notes: list[str] = []
        self.allocation: tuple[str, Any] | None = None
        # Files a scenario names (a trace) are found relative to the scenario's own file.
        self.base_dir = base_dir if base_dir is not None else Path.cwd()
        self.default_name = default_name
        # `--stop` cuts the run short on purpose (a quick look at a long scenario): the
        # actions and workload starts after it are left out (the CLI says which), while either
        # after the file's own stop is an error.
        self.stop_overridden = stop_overridden
        self.releases = _native.releases()
        self.tunable_decls = {t["name"]: t for t in _native.tunables()}
        self.presets = _native.presets()
        self.core = _native.core()

    def run(self) -> dict[str, Any]:
        doc = self.doc
        check_keys(doc, "", TOP_KEYS, TOP_KEYS_LATER)
        c: dict[str, Any] = {}
        self.scenario(_table(doc.get("scenario", {}), "scenario"), c)
        self.zfs(_table(_required(doc, "zfs", "", 'a [zfs] table with release = "zfs-2.2"'), "zfs"), c)
        self.devices = self.normalise_devices(_table(doc.get("devices", {}), "devices"))
        self.links = self.normalise_links(_table(doc.get("links", {}), "links"))
        self.release_name = c["release"]
        pool = self.pool(_table(_required(doc, "pool", "", "a [pool] table"), "pool"))
        c["devices"] = self.devices
        c["links"] = self.links
        c["pool"] = pool
        if c.get("special_small_blocks_bytes") and not pool.get("special"):
            # ZFS takes the property all the same ("property requires a special device in the
            # pool", a warning of zfs set: libzfs_dataset.c@zfs-0.8.0); it changes nothing.
            self.notes.append(f"note: zfs.special_small_blocks: "
                              f"{show(doc['zfs']['special_small_blocks'])} — the pool has no special vdevs "
                              "(pool.special), so every data block stays on the data vdevs")
        c["workloads"] = self.workloads(doc.get("workload", []), pool, c)
        c["actions"] = self.actions(doc.get("action", []), c)
        # A failure starts a resilver too when a retire agent puts a hot spare in (a dRAID's
        # distributed spares count: zed puts them in with a sequential rebuild).
        any_spares = bool(pool.get("spares")) or bool(draid_spare_names(pool))
        spares_act = any_spares and retire_agent_on(pool, c["release"])
        scan_actions = SCAN_ACTIONS + (("fail",) if spares_act else ())
        if c["stop_on_scan_done"] and not any(a["do"] in scan_actions for a in c["actions"]):
            raise ScenarioError(
                f"scenario.stop: {show(doc.get('scenario', {}).get('stop'))} — allowed only with a scrub, replace, attach"
                " or online [[action]]" + (" (or a fail: a retire agent puts a hot spare in)" if any_spares else "")
            )
        for i, w in enumerate(c["workloads"]):
            finite = (w["kind"] == "nfs-copy" and w.get("files", 0) > 0) or (
                w["kind"] == "trace" and not w["trace"]["repeat"])
            if self.stop_workloads and finite and w.get("stop_ns") is not None:
                raise ScenarioError(
                    f"workload[{i}].stop: {show(doc['workload'][i].get('stop'))} — with scenario.stop = "
                    "\"workloads-done\" the run waits for this workload to end by itself; allowed: no stop")
        if self.stop_workloads and not any(
                (w["kind"] == "nfs-copy" and w.get("files", 0) > 0)
                or (w["kind"] == "trace" and not w["trace"]["repeat"]) for w in c["workloads"]):
            raise ScenarioError(
                f"scenario.stop: {show(doc.get('scenario', {}).get('stop'))} — no workload ever finishes; allowed only "
                "with a trace played once (repeat = false) or an nfs-copy of files > 0")
        c["limits"] = {"events_max": EVENTS_MAX, "time_ns_max": TIME_NS_MAX}
        return c

    # [[action]]
    def actions(self, raw: Any, c: dict[str, Any]) -> list[dict[str, Any]]:
        if not isinstance(raw, list):
            raise ScenarioError("action: not an array of tables — allowed: [[action]] tables")
        # Data and special disks: both are in top-level vdevs of the pool's root, which zpool
        # fails, replaces, attaches and detaches alike (the special class is an allocation bias).
        tops = c["pool"]["vdevs"] + c["pool"].get("special", [])
        disks = [d["name"] for v in tops for d in v["disks"]]
        # The type of each disk's top-level vdev; replace/attach add their new disks.
        kinds = [v["type"] for v in tops for _ in v["disks"]]
        # Log and cache disks: they can fail, go offline and come back (fail, offline,
        # online); zpool detach/replace/attach of one is not modelled, so those are refused.
        aux = {d["name"]: "a log device (pool.log)" for v in c["pool"].get("log") or [] for d in v["disks"]}
        aux.update({d["name"]: "a cache device (pool.cache)" for d in c["pool"].get("cache") or []})
        # Hot spares: `replace` may name one as its new disk; after that, the others may too.
        # A dRAID's distributed spares follow them (vdev_draid_spare_create), each usable
        # only in its own dRAID vdev, and also with -s (a sequential rebuild).
        draid_spares = draid_spare_names(c["pool"])
        spares = [d["name"] for d in c["pool"].get("spares") or []] + list(draid_spares)
        owner = [t for t, v in enumerate(tops) for _ in v["disks"]]
        out: list[dict[str, Any]] = []
        last = 0
        for i, a in enumerate(raw):
            path = f"action[{i}]"
            a = _table(a, path)
            do = _choice(_required(a, "do", path, ", ".join(ACTIONS)), f"{path}.do", ACTIONS)
            check_keys(a, path, ("at", "do") + ACTION_KEYS[do])
            at = parse_duration(a.get("at", "0s"), f"{path}.at")
            if at < last:
                raise ScenarioError(f"{path}.at: {show(a.get('at'))} — allowed: actions in time order (not before "
                                    f"{show(duration_text(last))}, action[{i - 1}]'s time)")
            if at >= c["stop_ns"] and not self.stop_overridden:
                # As workload[].start: the run ends first, so the action would never happen.
                raise ScenarioError(
                    f"{path}.at: {show(a.get('at'))} — at or after scenario.stop; allowed: earlier than the run's end"
                )
            _within_longest_run(at, a.get("at"), f"{path}.at")  # past a --stop, still a u64 of ns
            last = at
            act: dict[str, Any] = {"at_ns": at, "do": do}
            if do in ("fail", "offline", "online"):
                act["disk"] = self.disk_ref(a, "disk", path, disks + spares + list(aux))
            elif do == "detach":
                act["disk"] = self.disk_ref(a, "disk", path, disks + spares, aux)
            elif do in ("replace", "attach"):
                key = "old" if do == "replace" else "disk"
                target = self.disk_ref(a, key, path, disks, aux)
                act[key] = target
                new = _str(_required(a, "new", path, "the new disk's name"), f"{path}.new")
                if new in disks or new in aux:
                    raise ScenarioError(f"{path}.new: {show(new)} — allowed: a name no disk of the pool has"
                                        + (", or a hot spare's" if spares else ""))
                if new in draid_spares and (do != "replace" or "device" in a):
                    own = draid_spares[new]
                    raise ScenarioError(f"{path}.new: {show(new)} — a distributed spare of pool.vdevs[{own}]; "
                                        'allowed: with do = "replace", without device')
                if new in spares and (do != "replace" or "device" in a or a.get("sequential", False)) \
                        and new not in draid_spares:
                    raise ScenarioError(f"{path}.new: {show(new)} — a hot spare (pool.spares); allowed: with "
                                        'do = "replace", without device or sequential')
                if new in draid_spares and draid_spares[new] != owner[disks.index(target)]:
                    own = draid_spares[new]
                    raise ScenarioError(
                        f"{path}.new: {show(new)} — a distributed spare of pool.vdevs[{own}]: zpool says "
                        "\"dRAID spares can only replace child devices in their parent's dRAID vdev\"; allowed: a "
                        "spare of the old disk's own vdev")
                act["new"] = new
                if "device" in a:
                    act["device"] = self.device_ref(a["device"], f"{path}.device")
                seq = a.get("sequential", False)
                if not isinstance(seq, bool):
                    raise ScenarioError(f"{path}.sequential: {show(seq)} — allowed: true or false")
                if seq and self.releases.index(c["release"]) < self.releases.index("zfs-2.0"):
                    raise ScenarioError(
                        f"{path}.sequential: true — allowed: only from release zfs-2.0 (zpool {do} -s)")
                kind = kinds[disks.index(target)]
                if (kind.startswith("raidz") and seq) or (kind[:5] in ("raidz", "draid") and do == "attach"):
                    # zpool_vdev_attach's messages (lib/libzfs/libzfs_pool.c@zfs-2.1.0).
                    why = ("only mirror and dRAID vdevs support sequential reconstruction" if do == "replace"
                           else "can only attach to mirrors and top-level disks")
                    field, value = ("sequential", "true") if do == "replace" else ("disk", show(target))
                    raise ScenarioError(
                        f'{path}.{field}: {value} — {target} is in a {kind}: zpool says "{why}"; '
                        f"allowed: {'false for a raidz disk' if do == 'replace' else 'a disk or mirror child'}")
                act["sequential"] = seq
                owner.append(owner[disks.index(target)])
                disks.append(new)
                kinds.append("mirror" if do == "attach" and kind == "disk" else kind)
            elif do == "set":
                name = _str(_required(a, "tunable", path, "a tunable name"), f"{path}.tunable")
                act["tunable"] = name
                act["value"] = self.tunable(name, _required(a, "value", path, "a value"), c["release"], action=path)
                boot = boot_only(name, c["release"])
                if boot is not None:
                    raise ScenarioError(f"{path}.tunable: {show(name)} — {boot}, so a set at run time changes "
                                        "nothing; allowed: set it in zfs.tunables instead")
            elif do in ("pause-scrub", "resume-scrub"):
                if self.releases.index(c["release"]) < self.releases.index("zfs-0.7"):
                    raise ScenarioError(f"{path}.do: {show(do)} — allowed: from release zfs-0.7 (zpool scrub -p)")
            out.append(act)
        return out

    @staticmethod
    def disk_ref(a: Mapping[str, Any], key: str, path: str, disks: list[str],
                 aux: Mapping[str, str] | None = None) -> str:
        v = _required(a, key, path, "a disk name")
        what = (aux or {}).get(v) if isinstance(v, str) else None
        if what is not None:
            raise ScenarioError(f"{path}.{key}: {show(v)} — {what}; ziosim models only fail, offline and "
                                f"online of log and cache devices; allowed: one of {', '.join(disks)}")
        if v not in disks:
            raise ScenarioError(f"{path}.{key}: {show(v)} — allowed: one of {', '.join(disks)}", hint=_hint(str(v), disks))
        return v

    # [scenario]
    def scenario(self, t: dict[str, Any], c: dict[str, Any]) -> None:
        def _fmt_ns(ns: int) -> str:
            """A duration in the scenario syntax, rounded up to whole seconds or minutes."""
            secs = -(-ns // 1_000_000_000)
            return f'"{-(-secs // 60)}m"' if secs >= 600 else f'"{secs}s"'

        check_keys(t, "scenario", SCENARIO_KEYS)
        c["name"] = _str(t.get("name", self.default_name), "scenario.name", "a non-empty string")
        seed = t.get("seed", DEFAULTS["seed"])
        c["seed"] = _int(seed, "scenario.seed", 0, SEED_MAX)
        stop = t.get("stop", DEFAULTS["stop"])
        st = parse_stop(stop, "--stop" if self.stop_overridden else "scenario.stop")
        c["stop_on_scan_done"] = st.scan_done
        c["stop_after_scan_done_ns"] = st.after_scan_ns
        # Written only when set, so scenarios without it keep their hash.
        self.stop_workloads = st.workloads_done
        if st.workloads_done:
            c["stop_on_workloads_done"] = True
        stop_ns = st.stop_ns
        c["stop_ns"] = stop_ns
        ri = t.get("report_interval", DEFAULTS["report_interval"])
        ri_ns = _duration(ri, "scenario.report_interval")
        if ri_ns < 1_000_000:
            raise ScenarioError(f'scenario.report_interval: {show(ri)} — too short; allowed: at least "1ms"')
        # Every report interval keeps a sample of every series (and a zpool status
        # snapshot): bound their number so memory stays bounded too. "scan-done" alone has
        # no end known here; the core stops such a run at the same count ("limit: …").
        if not st.open_ended:
            n = -(-stop_ns // ri_ns)
            if n > REPORT_SAMPLES_MAX:
                least = -(-stop_ns // REPORT_SAMPLES_MAX)
                raise ScenarioError(
                    f"scenario.report_interval: {show(ri)} — gives {n} reports over scenario.stop = {show(stop)}; "
                    f"allowed: at most {REPORT_SAMPLES_MAX} reports, so at least {_fmt_ns(least)}")
        c["report_interval_ns"] = ri_ns
        c["epoch_s"] = start_epoch_s(t.get("start_time"), stop_ns)

    # [zfs]
    def zfs(self, t: dict[str, Any], c: dict[str, Any]) -> None:
        check_keys(t, "zfs", ZFS_KEYS)
        rel = _required(t, "release", "zfs", ", ".join(self.releases))
        release = _choice(rel, "zfs.release", self.releases)
        c["release"] = release
        c["hz"] = _int(t.get("hz", default_hz(release)), "zfs.hz", 10, 10_000, "ticks per second")
        ram = parse_size(t.get("ram", DEFAULTS["ram"]), "zfs.ram")
        if not RAM_BYTES_MIN <= ram <= RAM_BYTES_MAX:
            why = "too small" if ram < RAM_BYTES_MIN else "too large"
            raise ScenarioError(f'zfs.ram: {show(t.get("ram"))} — {why}; allowed: "64M" to "8E"')
        c["ram_bytes"] = ram
        c["tunables"] = self.tunables(_table(t.get("tunables", {}), "zfs.tunables"), release)
        # Dataset properties; written to the run config only when given (the defaults
        # are the core's), so scenarios without them keep their hash.
        if "sync" in t:
            c["sync"] = _choice(t["sync"], "zfs.sync", SYNC_MODES)
        if "logbias" in t:
            c["logbias"] = _choice(t["logbias"], "zfs.logbias", LOGBIAS_MODES)
        small = self.special_small_blocks(t["special_small_blocks"], release) if "special_small_blocks" in t else 0
        if small:
            c["special_small_blocks_bytes"] = small
        # Properties the release predates (≈ snv_117): only their default, which is what
        # it did. `sync` came with PSARC/2010/108 (il:55da60b91d, May 2010, in place of
        # zil_disable), `logbias` with PSARC 2009/423 (snv_122).
        first = self.releases.index("freebsd-9")
        if self.releases.index(release) < first:
            if c.get("sync", "standard") != "standard":
                raise ScenarioError(
                    f'zfs.sync: {show(c["sync"])} — allowed on {release}: "standard" (the sync property '
                    "came in 2010, PSARC/2010/108); to disable the ZIL there set zfs.tunables.zil_disable = 1; "
                    f"{show(c['sync'])} from release {self.releases[first]}")
            if c.get("logbias", "latency") != "latency":
                raise ScenarioError(
                    f'zfs.logbias: {show(c["logbias"])} — allowed on {release}: "latency" (the logbias '
                    f"property came with snv_122, PSARC 2009/423); {show(c['logbias'])} from release "
                    f"{self.releases[first]}")

    def special_small_blocks(self, v: Any, release: str) -> int:
        """The dataset's `special_small_blocks` in bytes: file data blocks of at most this
        psize go to the special class (spa_preferred_class, module/zfs/spa_misc.c@zfs-0.8.0).
        0 or a power of two from 512 to the release's largest (SPECIAL_SMALL_BLOCKS_MAX_08)."""
        path = "zfs.special_small_blocks"
        n = parse_size(v, path)
        rels = self.releases
        first = rels.index(SPECIAL_FIRST_RELEASE)
        if rels.index(release) < first:
            if n == 0:
                return 0
            raise ScenarioError(
                f"{path}: {show(v)} — allowed on {release}: 0 (the property came with allocation classes in "
                f"OpenZFS 0.8.0); other values from release {SPECIAL_FIRST_RELEASE}")
        top = special_small_blocks_max(release, rels)
        if n == 0 or (512 <= n <= top and _power_of_two(n)):
            return n
        later = next(((r, special_small_blocks_max(r, rels)) for r in rels[rels.index(release) + 1:]
                      if special_small_blocks_max(r, rels) > top), None)
        more = f"; up to {size_label(later[1])} from release {later[0]}" if later else ""
        raise ScenarioError(f"{path}: {show(v)} — allowed on {release}: 0 or a power of two from 512 to "
                            f"{size_label(top)}{more}")

    def tunables(self, t: dict[str, Any], release: str) -> dict[str, int]:
        return dict(sorted((name, self.tunable(name, v, release)) for name, v in t.items()))

    def tunable(self, name: str, v: Any, release: str, action: str | None = None) -> int:
        """A tunable's value in its unit. Errors name `zfs.tunables.<name>`, or for a `set`
        action (`action` is its path) the action's own `tunable` or `value` field."""
        value_at = f"{action}.value" if action else f"zfs.tunables.{name}"

        def bad_name(why: str, allowed: str, hint: str | None = None) -> ScenarioError:
            if action is None:
                return ScenarioError(f"zfs.tunables.{name}: {why} — {allowed}", hint=hint)
            return ScenarioError(f"{action}.tunable: {show(name)} — {why}; {allowed}", hint=hint)

        d = self.tunable_decls.get(name)
        if d is None:
            raise bad_name("unknown tunable", f"allowed: the names `ziosim tunables --release {release}` lists",
                           _hint(name, self.tunable_decls))
        if d["defaults"].get(release) is None:
            have = [r for r in self.releases if d["defaults"].get(r) is not None]
            fact, counterpart = fate(name, release, self.releases)
            there = counterpart if counterpart and self.tunable_decls.get(counterpart, {}).get(
                "defaults", {}).get(release) is not None else None
            why = f"not in release {release}" + (f" ({fact})" if fact else "")
            allowed = f"releases that have it: {', '.join(have)}"
            if there is not None:
                allowed += f"; in {release} its nearest counterpart is {there} ({self.tunable_decls[there]['unit']})"
            raise bad_name(why, allowed)
        value = self.tunable_value(v, value_at, d)
        if not d["min"] <= value <= d["max"]:
            raise ScenarioError(f"{value_at}: {show(v)} — out of range; allowed: {d['min']}..{d['max']} {d['unit']}")
        return value

    @staticmethod
    def tunable_value(v: Any, path: str, d: Mapping[str, Any]) -> int:
        unit = d["unit"]
        allowed = f"an integer {d['min']}..{d['max']} {unit}"
        if unit == "bool" and isinstance(v, bool):
            return int(v)
        if _is_int(v):
            return v
        if isinstance(v, str) and unit == "bytes":
            return parse_size(v, path)
        scale = {"ns": 1, "ms": 1_000_000, "s": 1_000_000_000}.get(unit)
        if isinstance(v, str) and scale is not None:
            ns = parse_duration(v, path)
            if ns % scale:
                raise ScenarioError(f"{path}: {show(v)} — not a whole number of {unit}; allowed: {allowed}")
            return ns // scale
        raise ScenarioError(f"{path}: {show(v)} — allowed: {allowed}")

    # [devices.<name>]
    def normalise_devices(self, t: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {name: self.device(_table(d, f"devices.{name}"), f"devices.{name}") for name, d in t.items()}

    def device(self, d: dict[str, Any], path: str) -> dict[str, Any]:
        if "like" in d and "kind" in d:
            raise ScenarioError(
                f"{path}.kind: {show(d['kind'])} — give like (a preset) or kind (a full spec), not both"
            )
        if "like" in d:
            preset = d["like"]
            if not isinstance(preset, str) or preset not in self.presets:
                hint = _hint(preset, self.presets) if isinstance(preset, str) else None
                raise ScenarioError(
                    f"{path}.like: {show(preset)} — allowed: a preset "
                    f"({', '.join(self.presets)}; see `ziosim presets`)",
                    hint=hint,
                )
            spec = copy.deepcopy(self.presets[preset]["spec"])
            fields = [f for f in spec if f != "kind"]
            # Optional fields a preset leaves at their default are not in its spec (the HDD's
            # smr_* fields): the model's own field list admits them too.
            extra = [f for f in self.model_fields(str(spec.get("kind"))) or [] if f not in spec]
            for k, v in d.items():
                if k == "like":
                    continue
                field = _resolve_field(k, fields) or _resolve_field(k, extra)
                if field is None:
                    raise ScenarioError(
                        f"{path}.{k}: unknown key — allowed: like and the fields of {preset}: {', '.join(fields)}",
                        hint=_hint(k, fields),
                    )
                spec[field] = _convert_field(field, v, f"{path}.{k}", spec.get(field), key=k)
            what = str(spec.get("kind", "device"))
        elif "kind" in d:
            what = _choice(d["kind"], f"{path}.kind", DEVICE_KINDS)
            spec = {"kind": what}
            fields = self.model_fields(what)
            known = fields or sorted(
                {f for p in self.presets.values() if p["spec"].get("kind") == what for f in p["spec"]} - {"kind"}
            )
            for k, v in d.items():
                if k == "kind":
                    continue
                field = _resolve_field(k, known)
                if field is None and fields is not None:
                    raise ScenarioError(
                        f"{path}.{k}: unknown key — allowed in a {what} spec: kind, {', '.join(fields)}",
                        hint=_hint(k, fields),
                    )
                field = field or k
                spec[field] = _convert_field(field, v, f"{path}.{k}", key=k)
        else:
            raise ScenarioError(
                f'{path}: no like or kind — allowed: like = "<preset>" (see `ziosim presets`) or a full spec with kind'
            )
        _CoreCheck(self.core.validate_device, spec, path, what).run()
        return spec

    def model_fields(self, kind: str) -> list[str] | None:
        """Every field of a device model, as the core's spec declares them: the list serde
        gives for a field it does not know. None if this core does not say."""
        try:
            self.core.validate_device(json.dumps({"kind": kind, "~": 0}))
        except ValueError as e:
            m = re.match(r"^unknown field `~`, expected (.*?)(?: at line \d+ column \d+)?$", _first_line(e))
            if m:
                return _ticked(m.group(1))
        return None

    def capacity(self, device: str) -> int:
        cap = self.devices[device].get("capacity_bytes")
        if not _is_int(cap) or cap <= 0:
            bad = "missing" if cap is None else show(cap)
            raise ScenarioError(f"devices.{device}.capacity_bytes: {bad} — allowed: a size greater than 0")
        return cap

    def device_ref(self, v: Any, path: str) -> str:
        """A device name from [devices], or a preset name used as is."""
        name = _str(v, path, "a device name from [devices] or a preset")
        if name in self.devices:
            return name
        if name in self.presets:
            self.devices[name] = copy.deepcopy(self.presets[name]["spec"])
            return name
        choices = list(self.devices) + list(self.presets)
        raise ScenarioError(
            f"{path}: {show(v)} — allowed: a device from [devices] ({', '.join(self.devices) or 'none'}) or a preset",
            hint=_hint(name, choices),
        )

    # [links.<name>]
    def normalise_links(self, t: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """`like = "<link preset>"` plus overrides, or a full spec (`kind`, `rate`, …)."""
        presets = _native.link_presets()
        out = {}
        for name, raw in t.items():
            path = f"links.{name}"
            link = _table(raw, path)
            if "like" in link:
                preset = link["like"]
                if not isinstance(preset, str) or preset not in presets:
                    raise ScenarioError(
                        f"{path}.like: {show(preset)} — allowed: a link preset ({', '.join(presets)})",
                        hint=_hint(preset, presets) if isinstance(preset, str) else None,
                    )
                spec = copy.deepcopy(presets[preset]["spec"])
            else:
                _required(link, "kind", path, ", ".join(LINK_KINDS))
                _required(link, "rate", path, 'a rate such as "117M/s"')
                spec = {}
            check_keys(link, path, LINK_KEYS)
            for key, v in link.items():
                if key == "like":
                    continue
                field = _resolve_field(key, LINK_FIELDS)
                assert field is not None, key
                if field == "kind":
                    spec["kind"] = _choice(v, f"{path}.kind", LINK_KINDS, LINK_KINDS_LATER)
                else:
                    spec[field] = _convert_field(field, v, f"{path}.{key}", like=0, key=key)
            # The core checks every range (the rate's lower bound included).
            _CoreCheck(_native.core().validate_link, spec, path, "link").run()
            out[name] = spec
        return out

    def link_ref(self, v: Any, path: str) -> str:
        if isinstance(v, str) and v in self.links:
            return v
        raise ScenarioError(
            f"{path}: {show(v)} — allowed: a link from [links] ({', '.join(self.links) or 'none defined'})",
            hint=_hint(v, self.links) if isinstance(v, str) else None,
        )

    # [pool]
    def pool(self, t: dict[str, Any]) -> dict[str, Any]:
        check_keys(t, "pool", POOL_KEYS, POOL_KEYS_LATER)
        p: dict[str, Any] = {"name": _str(t.get("name", DEFAULTS["pool.name"]), "pool.name", "a pool name")}
        if not re.match(r"^[A-Za-z][A-Za-z0-9_.:-]*$", p["name"]):
            raise ScenarioError(f"pool.name: {show(p['name'])} — allowed: a letter, then letters, digits, _ - . :")
        p["ashift"] = _int(t.get("ashift", DEFAULTS["pool.ashift"]), "pool.ashift", 9, 16)
        rs_raw = t.get("recordsize", DEFAULTS["pool.recordsize"])
        rs = parse_size(rs_raw, "pool.recordsize")
        if not (512 <= rs <= max_recordsize(self.release_name, self.releases) and _power_of_two(rs)):
            raise ScenarioError(f"pool.recordsize: {show(rs_raw)} — "
                                f"{recordsize_allowed(self.release_name, self.releases)}")
        p["recordsize_bytes"] = rs
        self.used_names: set = set()
        raw_vdevs = _required(t, "vdevs", "pool", 'an array such as [{ type = "raidz2", disks = 6, device = "hdd" }]')
        if not isinstance(raw_vdevs, list) or not raw_vdevs:
            raise ScenarioError(f"pool.vdevs: {show(raw_vdevs)} — allowed: a non-empty array of vdev tables")
        specs = [self.vdev_spec(_table(v, f"pool.vdevs[{i}]"), f"pool.vdevs[{i}]") for i, v in enumerate(raw_vdevs)]
        special_specs = self.special_specs(t["special"]) if "special" in t else []
        cache_spec = None
        if "cache" in t:
            cache_spec = self.cache_spec(_table(t["cache"], "pool.cache"), "pool.cache")
        spare_spec = None
        auto_only = None
        if "spares" in t:
            raw_spares = _table(t["spares"], "pool.spares")
            if set(raw_spares) == {"auto"} and any(isinstance(v, dict) and v.get("spares") for v in raw_vdevs):
                # No hot spare, only whether zed puts a dRAID's distributed spares in.
                auto_only = raw_spares["auto"]
                if not isinstance(auto_only, bool):
                    raise ScenarioError(f"pool.spares.auto: {show(auto_only)} — allowed: true or false")
            else:
                spare_spec = self.cache_spec(raw_spares, "pool.spares", SPARE_KEYS)
        log_specs = []
        if "log" in t:
            raw_log = t["log"]
            if not isinstance(raw_log, list):
                raise ScenarioError(f"pool.log: {show(raw_log)} — allowed: an array such as [{{ device = \"s3700\" }}]")
            log_specs = [self.log_spec(_table(v, f"pool.log[{i}]"), f"pool.log[{i}]") for i, v in enumerate(raw_log)]
        total = sum(sp["count"] for sp in specs + special_specs) + (cache_spec["count"] if cache_spec else 0)
        total += sum(sp["count"] for sp in log_specs) + (spare_spec["count"] if spare_spec else 0)
        if total > POOL_DISKS_MAX:
            raise ScenarioError(f"pool.vdevs: {total} disks — too many; allowed: at most {POOL_DISKS_MAX} in a pool")
        # Names: explicit ones first (they are reserved), then sda, sdb, … in pool order: the data
        # disks, the special ones (zpool create's order), then the cache, log and spare devices
        # (these three in ziosim's order of old, so that no existing scenario's names change).
        # 2 × POOL_DISKS_MAX candidates always suffice: at most POOL_DISKS_MAX are reserved.
        gen = (linux_disk_name(i) for i in range(2 * POOL_DISKS_MAX))

        def names_for(spec: dict[str, Any]) -> list[str]:
            if spec["names"] is not None:
                return spec["names"]
            out = []
            while len(out) < spec["count"]:
                n = next(gen)
                if n not in self.used_names:
                    out.append(n)
            return out

        p["vdevs"] = []
        usable = 0
        for spec in specs:
            disks = [{"name": n, "device": d, "link": spec["link"]} for n, d in zip(names_for(spec), spec["devices"])]
            vdev = {"type": spec["type"], "disks": disks}
            if "data" in spec:
                vdev.update(data=spec["data"], spares=spec["spares"])
            p["vdevs"].append(vdev)
            # ZFS sizes a vdev by its smallest child (vdev_mirror_open, vdev_raidz_open).
            cap = min(self.capacity(d) for d in spec["devices"])
            if spec["type"] == "mirror":
                usable += cap
            elif "data" in spec:
                # dRAID: the children less the spares' share, data columns of each group.
                par = VDEV_PARITY[spec["type"]]
                usable += cap * (spec["count"] - spec["spares"]) * spec["data"] // (spec["data"] + par)
            else:
                usable += cap * (spec["count"] - VDEV_PARITY[spec["type"]])
        if special_specs:
            # Normal-class space only: `fill` and `allocated` are the data vdevs' (the
            # special class holds metadata and small blocks, which the core places).
            p["special"] = []
            for spec in special_specs:
                for d in spec["devices"]:
                    self.capacity(d)
                disks = [{"name": n, "device": d, "link": spec["link"]}
                         for n, d in zip(names_for(spec), spec["devices"])]
                p["special"].append({"type": spec["type"], "disks": disks})
        p["cache"] = []
        if cache_spec is not None:
            p["cache"] = [
                {"name": n, "device": cache_spec["device"], "link": cache_spec["link"]} for n in names_for(cache_spec)
            ]
        p["allocated_bytes"] = self.allocated(t, usable, p["ashift"])
        # `special` only when the pool has special vdevs, so other scenarios keep their hash.
        keys = ["name", "ashift", "recordsize_bytes", "allocated_bytes", "vdevs"]
        keys += ["special"] if special_specs else []
        keys.append("cache")
        if log_specs:
            # A mirror is one log vdev; otherwise each device is its own log vdev.
            p["log"] = []
            for sp in log_specs:
                disks = [{"name": n, "device": sp["device"], "link": sp["link"]} for n in names_for(sp)]
                if sp["mirror"]:
                    p["log"].append({"type": "mirror", "disks": disks})
                else:
                    p["log"].extend({"type": "disk", "disks": [d]} for d in disks)
            keys.append("log")
        if spare_spec is not None:
            # Hot spares: named after the log devices (zpool create … log … spare …).
            p["spares"] = [{"name": n, "device": spare_spec["device"], "link": spare_spec["link"]}
                           for n in names_for(spare_spec)]
            keys.append("spares")
            if spare_spec["auto"] is not None:
                p["spares_auto"] = spare_spec["auto"]
                keys.append("spares_auto")
        elif auto_only is not None:
            p["spares_auto"] = auto_only
            keys.append("spares_auto")
        if "layout" in t:
            p["layout"] = self.layout(t["layout"], "pool.layout")
            keys.append("layout")
        failmode = t.get("failmode", "wait")
        if failmode not in FAILMODES:
            raise ScenarioError(f"pool.failmode: {show(failmode)} — allowed: " + ", ".join(f'"{m}"' for m in FAILMODES),
                                hint=_hint(failmode, FAILMODES) if isinstance(failmode, str) else None)
        if failmode != "wait":
            # Only a non-default value enters the run config: scenarios without it keep their hash.
            p["failmode"] = failmode
            keys.append("failmode")
        # Key order as docs/internals.md shows it (canonical JSON sorts anyway).
        return {k: p[k] for k in keys}

    def layout(self, v: Any, path: str) -> dict[str, Any]:
        """`"fresh"`, `"aged"` (fragmentation 0.6) or a table; absent keys take the fresh values."""
        if isinstance(v, str):
            if v not in LAYOUT_PRESETS:
                raise ScenarioError(
                    f"{path}: {show(v)} — allowed: " + ", ".join(f'"{k}"' for k in LAYOUT_PRESETS) + " or a table",
                    hint=_hint(v, LAYOUT_PRESETS),
                )
            return {"fragmentation": LAYOUT_PRESETS[v], "files": [], "compression_ratio": 1.0}
        if not isinstance(v, dict):
            raise ScenarioError(
                f'{path}: {show(v)} — allowed: "fresh", "aged" or a table such as '
                '{ fragmentation = 0.4, files = [["16K", 0.2], ["1M", 0.8]], compression = 1.5 }'
            )
        check_keys(v, path, LAYOUT_KEYS)
        out: dict[str, Any] = {"fragmentation": _ratio(v.get("fragmentation", 0.0), f"{path}.fragmentation")}
        out["files"] = _Normaliser.layout_files(v["files"], f"{path}.files") if "files" in v else []
        c = v.get("compression", 1.0)
        if not _is_num(c) or not 1 <= c <= COMPRESSION_MAX:
            raise ScenarioError(f"{path}.compression: {show(c)} — allowed: a ratio 1..{COMPRESSION_MAX:g} (lsize / psize)")
        out["compression_ratio"] = float(c)
        if "seed" in v:
            out["seed"] = _int(v["seed"], f"{path}.seed", 0, SEED_MAX)
        if "written_by" in v:
            out["written_by"] = _choice(v["written_by"], f"{path}.written_by", self.releases)
        return out

    @staticmethod
    def layout_files(raw: Any, path: str) -> list[list[Any]]:
        example = 'an array of [size, weight] pairs, e.g. [["16K", 0.2], ["1M", 0.8]]'
        if not isinstance(raw, list) or not raw or len(raw) > LAYOUT_FILE_CLASSES_MAX:
            raise ScenarioError(f"{path}: {show(raw)} — allowed: {example} (1..{LAYOUT_FILE_CLASSES_MAX} classes)")
        out: list[list[Any]] = []
        for j, pair in enumerate(raw):
            pp = f"{path}[{j}]"
            if not isinstance(pair, list) or len(pair) != 2:
                raise ScenarioError(f'{pp}: {show(pair)} — allowed: a [size, weight] pair such as ["16K", 0.2]')
            size = parse_size(pair[0], pp + "[0]")
            if not 1 <= size <= 1 << 50:
                raise ScenarioError(f"{pp}[0]: {show(pair[0])} — allowed: a file size from 1 byte to 1P")
            wt = pair[1]
            if not _is_num(wt) or wt <= 0:
                raise ScenarioError(f"{pp}[1]: {show(wt)} — allowed: a weight greater than 0")
            out.append([size, float(wt)])
        return out

    def allocated(self, t: Mapping[str, Any], usable: int, ashift: int) -> int:
        if "allocated" in t and "fill" in t:
            raise ScenarioError(f"pool.fill: {show(t['fill'])} — give allocated or fill, not both")
        if "allocated" in t:
            self.allocation = ("pool.allocated", t["allocated"])
            a = parse_size(t["allocated"], "pool.allocated")
            sector = 1 << ashift
            if a < sector or a > usable:
                raise ScenarioError(
                    f"pool.allocated: {show(t['allocated'])} — allowed: at least one sector ({sector} bytes), "
                    f"at most the usable capacity ({usable} bytes)"
                )
            return a // sector * sector  # ZFS allocates whole sectors
        if "fill" in t:
            f = _ratio(t["fill"], "pool.fill", zero_ok=False)
            self.allocation = ("pool.fill", t["fill"])
            sector = 1 << ashift
            return max(sector, int(usable * f) // sector * sector)
        raise ScenarioError(
            'pool.allocated: missing — allowed: allocated (a size such as "2.84T") or fill (0 < fill ≤ 1)'
        )

    def _names(self, v: Any, path: str, count: int) -> list[str]:
        if not isinstance(v, list) or len(v) != count or not all(isinstance(n, str) and n for n in v):
            raise ScenarioError(f"{path}: {show(v)} — allowed: an array of {count} disk names")
        for i, n in enumerate(v):
            if n in self.used_names:
                raise ScenarioError(f"{path}[{i}]: {show(n)} — already used; allowed: a name unique in the pool")
            self.used_names.add(n)
        return list(v)

    def special_specs(self, raw: Any) -> list[dict[str, Any]]:
        """`pool.special`: the vdevs of the special allocation class (`zpool create tank …
        special mirror nvme0 nvme1`, OpenZFS 0.8.0+), each a vdev table as in `pool.vdevs`."""
        if not isinstance(raw, list):
            raise ScenarioError(f'pool.special: {show(raw)} — allowed: an array of vdev tables such as '
                                '[{ type = "mirror", disks = 2, device = "intel-s3700" }]')
        rels = self.releases
        if raw and rels.index(self.release_name) < rels.index(SPECIAL_FIRST_RELEASE):
            n = len(raw)
            raise ScenarioError(
                f"pool.special: {n} vdev{'s' if n > 1 else ''} — allowed: from release {SPECIAL_FIRST_RELEASE} "
                f"(allocation classes came with OpenZFS 0.8.0); this scenario's release is {self.release_name}")
        return [self.vdev_spec(_table(v, f"pool.special[{i}]"), f"pool.special[{i}]", SPECIAL_TYPES)
                for i, v in enumerate(raw)]

    def vdev_spec(self, v: dict[str, Any], path: str,
                  types: Sequence[str] = tuple(VDEV_MIN_DISKS)) -> dict[str, Any]:
        check_keys(v, path, VDEV_KEYS)
        raw_type = _required(v, "type", path, ", ".join(types))
        vtype = VDEV_ALIASES.get(raw_type, raw_type) if isinstance(raw_type, str) else raw_type
        if isinstance(vtype, str) and vtype in VDEV_MIN_DISKS and vtype not in types:
            raise ScenarioError(f"{path}.type: {show(raw_type)} — ziosim models no dRAID special vdev; allowed: "
                                f"{', '.join(types)}")
        vtype = _choice(vtype, f"{path}.type", list(types))
        lo = VDEV_MIN_DISKS[vtype]
        count = v.get("disks", 1) if vtype == "disk" else _required(v, "disks", path, f"a disk count, at least {lo}")
        if not _is_int(count):
            raise ScenarioError(f"{path}.disks: {show(count)} — allowed: an integer, at least {lo}")
        if vtype == "disk" and count != 1:
            raise ScenarioError(f"{path}.disks: {count} — a disk vdev has exactly one; allowed: 1")
        if count < lo:
            raise ScenarioError(f"{path}.disks: {count} — too few for {vtype}; allowed: at least {lo}")
        if count > VDEV_DISKS_MAX:
            raise ScenarioError(f"{path}.disks: {count} — too many; allowed: at most {VDEV_DISKS_MAX}")
        devices = self.vdev_devices(v, path, count)
        link = self.link_ref(v["link"], f"{path}.link") if "link" in v else None
        names = self._names(v["names"], f"{path}.names", count) if "names" in v else None
        spec = {"type": vtype, "count": count, "devices": devices, "link": link, "names": names}
        if vtype.startswith("draid"):
            spec.update(self.draid_spec(v, path, vtype, count))
        else:
            for k in ("data", "spares"):
                if k in v:
                    raise ScenarioError(
                        f"{path}.{k}: {show(v[k])} — applies to draid vdevs only (draid2:<data>d:<spares>s)")
        return spec

    def draid_spec(self, v: dict[str, Any], path: str, vtype: str, count: int) -> dict[str, Any]:
        """`zpool create tank draid2:8d:24c:2s …`: data columns per group and distributed
        spares, checked as `draid_config_by_type` (cmd/zpool/zpool_vdev.c@zfs-2.1.0) does."""
        if self.releases.index(self.release_name) < self.releases.index("zfs-2.1"):
            raise ScenarioError(f"{path}.type: {show(vtype)} — allowed: from release zfs-2.1 (dRAID came with "
                                f"OpenZFS 2.1.0); this scenario's release is {self.release_name}")
        parity = VDEV_PARITY[vtype]
        spares = _int(v.get("spares", 0), f"{path}.spares", 0, DRAID_SPARES_MAX)
        if count <= spares + parity:
            raise ScenarioError(f"{path}.spares: {spares} — with {parity} parity leaves no disk of {count} for data; "
                                f"allowed: at most {max(count - parity - 1, 0)}")
        room = count - spares - parity
        data = _int(v["data"], f"{path}.data", 1, room) if "data" in v else min(room, 8)
        return {"data": data, "spares": spares}

    def vdev_devices(self, v: dict[str, Any], path: str, count: int) -> list[str]:
        """One device per disk: `device` for all of them, or `devices` naming each in turn."""
        if "device" in v and "devices" in v:
            raise ScenarioError(
                f"{path}.devices: {show(v['devices'])} — allowed: device (the same for every disk) or devices "
                "(one per disk), not both"
            )
        if "device" in v:
            return [self.device_ref(v["device"], f"{path}.device")] * count
        if "devices" not in v:
            raise ScenarioError(
                f"{path}.device: missing — allowed: a device from [devices] or a preset, "
                f"or devices (an array of {count}, one per disk)"
            )
        raw = v["devices"]
        if not isinstance(raw, list) or len(raw) != count:
            s = "s" if count > 1 else ""
            got = f"{len(raw)} devices for {count} disk{s}" if isinstance(raw, list) else show(raw)
            raise ScenarioError(
                f"{path}.devices: {got} — allowed: an array of {count} device{s}, one per disk "
                "(a [devices] key or a preset each)"
            )
        return [self.device_ref(d, f"{path}.devices[{i}]") for i, d in enumerate(raw)]

    def log_spec(self, v: dict[str, Any], path: str) -> dict[str, Any]:
        """A separate intent log (SLOG): `count` devices, one log vdev each or one mirror."""
        check_keys(v, path, LOG_KEYS)
        device = self.device_ref(_required(v, "device", path, "a device from [devices] or a preset"), f"{path}.device")
        count = _int(v.get("count", 1), f"{path}.count", 1, 16)
        mirror = v.get("mirror", False)
        if not isinstance(mirror, bool):
            raise ScenarioError(f"{path}.mirror: {show(mirror)} — allowed: true or false")
        if mirror and count < 2:
            raise ScenarioError(f"{path}.count: {count} — a mirror needs at least 2; allowed: 2..16")
        link = self.link_ref(v["link"], f"{path}.link") if "link" in v else None
        names = self._names(v["names"], f"{path}.names", count) if "names" in v else None
        return {"device": device, "count": count, "mirror": mirror, "link": link, "names": names}

    def cache_spec(self, v: dict[str, Any], path: str, keys: tuple[str, ...] = CACHE_KEYS) -> dict[str, Any]:
        check_keys(v, path, keys)
        device = self.device_ref(_required(v, "device", path, "a device from [devices] or a preset"), f"{path}.device")
        count = _int(v.get("count", 1), f"{path}.count", 1, 16)
        link = self.link_ref(v["link"], f"{path}.link") if "link" in v else None
        names = self._names(v["names"], f"{path}.names", count) if "names" in v else None
        auto = v.get("auto")
        if auto is not None and not isinstance(auto, bool):
            raise ScenarioError(f"{path}.auto: {show(auto)} — allowed: true or false")
        return {"device": device, "count": count, "link": link, "names": names, "auto": auto}

    # [[workload]]
    def workloads(self, raw: Any, pool: dict[str, Any], c: dict[str, Any]) -> list[dict[str, Any]]:
        if isinstance(raw, dict):
            raise ScenarioError("workload: {table} — allowed: an array of tables; write [[workload]], not [workload]")
        if not isinstance(raw, list):
            raise ScenarioError(f"workload: {show(raw)} — allowed: an array of tables ([[workload]])")
        out = []
        seen: dict[str, int] = {}
        for i, w in enumerate(raw):
            path = f"workload[{i}]"
            n = self.workload(_table(w, path), path, pool, c)
            if n["name"] in seen:
                raise ScenarioError(
                    f"{path}.name: {show(n['name'])} — already used by workload[{seen[n['name']]}]; "
                    "allowed: a unique name"
                )
            seen[n["name"]] = i
            out.append(n)
        # A zvol workload makes the dataset a volume: no files for the file workloads, and
        # the 2009 zvol log path is not modelled.
        # A trace with volume = true makes it one too (a block device's trace).
        zvols = [i for i, n in enumerate(out) if n["kind"] == "zvol" or n.get("volume")]
        if zvols:
            i = zvols[0]
            what = "volume: true" if out[i].get("volume") else 'kind: "zvol"'
            if c["release"] == "solaris-2009":
                raise ScenarioError(
                    f"workload[{i}].{what} — allowed: from release freebsd-9 "
                    "(the 2009 zvol log path is not modelled)"
                )
            for n in out:
                if n["kind"] in ("fsync-write", "nfs-copy", "database"):
                    raise ScenarioError(
                        f"workload[{i}].{what} — the dataset is then a volume, which "
                        f"{n['name']} ({n['kind']}) cannot use; allowed: zvol with random or sequential workloads"
                    )
        return out

    def workload(self, w: dict[str, Any], path: str, pool: dict[str, Any], c: dict[str, Any]) -> dict[str, Any]:
        check_keys(w, path, WORKLOAD_KEYS)
        kind = _choice(
            _required(w, "kind", path, ", ".join(WORKLOAD_KINDS)), f"{path}.kind", WORKLOAD_KINDS, WORKLOAD_KINDS_LATER
        )
        name = _str(w.get("name", kind), f"{path}.name", "a non-empty string")
        for k in TRACE_KEYS:
            if k == "arc_size" and kind in ARC_SIZE_KINDS:
                continue
            if k in w and kind != "trace":
                allowed = ", ".join(ARC_SIZE_KINDS) if k == "arc_size" else "trace"
                raise ScenarioError(f"{path}.{k}: {show(w[k])} — applies to {allowed} only; remove it for {kind}")
        trace = None
        if kind == "trace":
            trace = self.trace(w, path)
            sizes = []
            rate, threads, think = None, None, 0
            if "rate" in w:
                raise ScenarioError(f"{path}.rate: {show(w['rate'])} — a trace carries its own times; allowed: "
                                    "threads (a closed-loop replay) or neither")
            if "threads" in w:
                rate, threads, think = self.loop(w, path)
            elif trace.t_ns is None:
                raise ScenarioError(f"{path}.trace: {show(w['trace'])} — its records have no times; allowed: "
                                    "threads = N (replayed with N operations in flight)")
            if "speed" in w and (threads is not None or trace.t_ns is None):
                raise ScenarioError(f"{path}.speed: {show(w['speed'])} — a closed-loop replay ignores the trace's "
                                    "times; allowed: speed without threads, on a trace with times")
            biggest = max(trace.size, default=0)
        else:
            sizes = self.sizes(w, path, DB_PAGE if kind == "database" else pool["recordsize_bytes"])
            rate, threads, think = self.loop(w, path)
            biggest = max(s for s, _ in sizes)
        alloc = pool["allocated_bytes"]
        off, length = 0, 0
        if "region" in w:
            r = _table(w["region"], f"{path}.region")
            check_keys(r, f"{path}.region", REGION_KEYS)
            off = parse_size(r.get("offset", 0), f"{path}.region.offset")
            if off >= alloc:
                raise ScenarioError(
                    f"{path}.region.offset: {show(r.get('offset'))} — beyond the allocated space; "
                    f"allowed: less than {alloc} bytes"
                )
            length = parse_size(r.get("length", 0), f"{path}.region.length")
            if length == 0 and off > 0:
                length = alloc - off  # from offset to the end
            if off + length > alloc:
                raise ScenarioError(
                    f"{path}.region.length: {show(r.get('length'))} — runs past the allocated space; "
                    f"allowed: offset + length ≤ {alloc} bytes"
                )
            if 0 < length < biggest:
                raise ScenarioError(
                    f"{path}.region.length: {show(r.get('length'))} — smaller than the largest I/O size"
                )
        arc = _ratio(w.get("arc_hit", 0.0), f"{path}.arc_hit")
        l2 = _ratio(w.get("l2arc_hit", 0.0), f"{path}.l2arc_hit")
        if kind.endswith("write") or kind == "zvol":
            # arc_hit of a writer: the share of partly covered records found in the ARC.
            if w.get("l2arc_hit", 0):
                raise ScenarioError(f"{path}.l2arc_hit: {show(w['l2arc_hit'])} — applies to reads only; allowed for {kind}: 0")
        if l2 > 0 and not pool["cache"]:
            raise ScenarioError(f"{path}.l2arc_hit: {show(w['l2arc_hit'])} — needs an L2ARC; add pool.cache or set 0")
        arc_ns = _duration(w.get("arc_hit_latency", DEFAULTS["arc_hit_latency"]), f"{path}.arc_hit_latency")
        start = parse_duration(w.get("start", "0s"), f"{path}.start")
        if start >= c["stop_ns"] and not self.stop_overridden:
            raise ScenarioError(
                f"{path}.start: {show(w['start'])} — at or after scenario.stop; allowed: earlier than the run's end"
            )
        _within_longest_run(start, w.get("start"), f"{path}.start")  # past a --stop, still a u64 of ns
        stop = None
        if "stop" in w:
            stop = _duration(w["stop"], f"{path}.stop")
            if stop <= start:
                raise ScenarioError(
                    f"{path}.stop: {show(w['stop'])} — not after start; allowed: later than {path}.start"
                )
        o_dsync = w.get("o_dsync", False)
        if not isinstance(o_dsync, bool):
            raise ScenarioError(f"{path}.o_dsync: {show(o_dsync)} — allowed: true or false")
        if o_dsync and kind not in ("fsync-write", "database"):
            raise ScenarioError(f"{path}.o_dsync: true — applies to fsync-write and database only; allowed for {kind}: false")
        extra: dict[str, Any] = {"o_dsync": True} if o_dsync else {}
        if trace is not None:
            repeat = w.get("repeat", False)
            if not isinstance(repeat, bool):
                raise ScenarioError(f"{path}.repeat: {show(repeat)} — allowed: true or false")
            if repeat and trace.t_ns is not None and "threads" not in w and len(trace) and trace.t_ns[-1] == 0:
                # Open loop, the next lap one mean gap after the last record: a trace whose times
                # do not differ has laps of no length, and would replay without end in no time.
                what = "its one record has" if len(trace) == 1 else f"its {len(trace)} records all have"
                raise ScenarioError(
                    f"{path}.repeat: true — {what} one time, so a lap has no length; allowed: false, threads "
                    "(a closed loop, which ignores the times), or a trace whose times differ")
            if biggest > (length or alloc - off):
                raise ScenarioError(
                    f"{path}.trace: a record of {biggest} bytes — larger than the workload's region; allowed: "
                    "records no larger than region.length (or the allocated space)")
            extra["trace"] = trace.config(repeat)
            volume = w.get("volume", False)
            if not isinstance(volume, bool):
                raise ScenarioError(f"{path}.volume: {show(volume)} — allowed: true or false")
            if volume:
                extra["volume"] = True
        if "arc_size" in w:
            if "arc_hit" in w:
                raise ScenarioError(f"{path}.arc_hit: {show(w['arc_hit'])} — give arc_hit (a share of hits) or "
                                    "arc_size (the ARC modelled over the records it reads), not both")
            arc_b = parse_size(w["arc_size"], f"{path}.arc_size")
            recs = arc_b // pool["recordsize_bytes"]
            if not 1 <= recs <= ARC_RECORDS_MAX:
                raise ScenarioError(
                    f"{path}.arc_size: {show(w['arc_size'])} — {recs} records of pool.recordsize; allowed: "
                    f"1 to {ARC_RECORDS_MAX} records")
            extra["arc_bytes"] = arc_b
        for k in ("fua", "flush_every"):
            if k in w and kind != "zvol":
                raise ScenarioError(f"{path}.{k}: {show(w[k])} — applies to zvol only; remove it for {kind}")
        if kind == "zvol":
            fua = w.get("fua", False)
            if not isinstance(fua, bool):
                raise ScenarioError(f"{path}.fua: {show(fua)} — allowed: true or false")
            if fua:
                extra["fua"] = True
            every = _int(w.get("flush_every", 0), f"{path}.flush_every", 0, 1 << 31)
            if every:
                extra["flush_every"] = every
        for k in NFS_KEYS:
            if k in w and kind != "nfs-copy":
                raise ScenarioError(f"{path}.{k}: {show(w[k])} — applies to nfs-copy only; remove it for {kind}")
        for k in DB_KEYS:
            if k in w and kind != "database":
                raise ScenarioError(f"{path}.{k}: {show(w[k])} — applies to database only; remove it for {kind}")
        if kind == "database":
            if threads is None:
                raise ScenarioError(f"{path}.rate: {show(rate)} — a database runs sessions; allowed: threads instead")
            if "reads" in w:
                extra["reads_per_txn"] = _int(w["reads"], f"{path}.reads", 0, 1_000_000)
            if "dirty_pages" in w:
                extra["dirty_pages_per_txn"] = _int(w["dirty_pages"], f"{path}.dirty_pages", 0, 1_000_000)
            if "wal" in w:
                wal = parse_size(w["wal"], f"{path}.wal")
                if not 1 <= wal <= 16 << 20:
                    raise ScenarioError(f"{path}.wal: {show(w['wal'])} — allowed: a size from 1 byte to 16M")
                extra["wal_bytes"] = wal
            if "checkpoint" in w:
                ck = _duration(w["checkpoint"], f"{path}.checkpoint")
                if ck <= 0:
                    raise ScenarioError(f"{path}.checkpoint: {show(w['checkpoint'])} — allowed: a duration above 0")
                extra["checkpoint_ns"] = ck
            if "checkpoint_spread" in w:
                sp = w["checkpoint_spread"]
                if not _is_num(sp) or not 0 < sp <= 1:
                    raise ScenarioError(
                        f"{path}.checkpoint_spread: {show(sp)} — allowed: a number above 0 and at most 1"
                    )
                extra["checkpoint_spread"] = float(sp)
        if kind == "nfs-copy" and threads is None:
            raise ScenarioError(f"{path}.rate: {show(rate)} — nfs-copy copies file after file; allowed: threads instead")
        if kind == "nfs-copy":
            extra["files"] = _int(w.get("files", 0), f"{path}.files", 0, 1 << 40)
            if "wsize" in w:
                extra["wsize_bytes"] = self.io_size(w["wsize"], f"{path}.wsize")
            if "rtt" in w:
                extra["rtt_ns"] = _duration(w["rtt"], f"{path}.rtt")
            if "net_rate" in w:
                r = parse_rate(w["net_rate"], f"{path}.net_rate")
                if not 0 < r <= NET_RATE_MAX:
                    raise ScenarioError(
                        f"{path}.net_rate: {show(w['net_rate'])} — allowed: a rate above 0, at most \"1T/s\"")
                extra["net_bytes_per_s"] = r
            if "dirs" in w:
                extra["dirs"] = _int(w["dirs"], f"{path}.dirs", 0, 1 << 40)
                # File k goes to directory k·dirs/files and a directory is made just
                # before its first file (sim.rs nfs_start): one without files is never made.
                files = extra["files"]
                if files and extra["dirs"] > files:
                    raise ScenarioError(
                        f"{path}.dirs: {show(w['dirs'])} — more than files ({files}): every directory is made "
                        f"for its first file; allowed: 0 … {files}")
                if not files and extra["dirs"] > 1:
                    raise ScenarioError(
                        f"{path}.dirs: {show(w['dirs'])} — with files = 0 (until the run stops) the tree is one "
                        "directory; allowed: 0 or 1, or give files")
            if "source" in w:
                # The client's own disk the tree is read from: its own instance of the
                # device, never a pool disk.
                extra["source"] = self.device_ref(w["source"], f"{path}.source")
        return {
            **extra,
            "name": name,
            "kind": kind,
            "sizes": sizes,
            "rate_per_s": rate,
            "threads": threads,
            "think_ns": think,
            "region_offset_bytes": off,
            "region_length_bytes": length,
            "arc_hit_ratio": arc,
            "arc_hit_ns": arc_ns,
            "l2arc_hit_ratio": l2,
            "start_ns": start,
            "stop_ns": stop,
        }

    def trace(self, w: Mapping[str, Any], path: str) -> Any:
        """A trace workload's file, parsed (``trace.py``)."""
        from . import trace as trace_mod

        raw = _required(w, "trace", path, "the path of a trace file")
        fname = _str(raw, f"{path}.trace", "the path of a trace file")
        fmt = _choice(w.get("trace_format", "auto"), f"{path}.trace_format", trace_mod.FORMATS)
        speed = w.get("speed", 1.0)
        if not _is_num(speed) or not 1e-6 <= speed <= 1e6:
            raise ScenarioError(f"{path}.speed: {show(speed)} — allowed: a factor from 0.000001 to 1000000 "
                                "(2 replays twice as fast)")
        p = Path(fname).expanduser()
        if not p.is_absolute():
            p = self.base_dir / p
        tr = trace_mod.load(p, fmt, where=f"{path}.trace: {fname}", speed=float(speed))
        if tr.skipped:
            what = ", ".join(f"{why} {n}" for why, n in tr.skipped.items())
            self.notes.append(f"note: {path}.trace: {fname}: {len(tr)} records replayed, "
                              f"{sum(tr.skipped.values())} left out ({what}; docs/traces.md)")
        return tr

    @staticmethod
    def io_size(v: Any, path: str) -> int:
        s = parse_size(v, path)
        if not (512 <= s <= 16 << 20) or s % 512:
            raise ScenarioError(f"{path}: {show(v)} — allowed: a multiple of 512 from 512 to 16M")
        return s

    def sizes(self, w: Mapping[str, Any], path: str, recordsize: int) -> list[list[Any]]:
        if "size" in w and "sizes" in w:
            raise ScenarioError(f"{path}.sizes: {show(w['sizes'])} — give size or sizes, not both")
        if "sizes" not in w:
            if "size" not in w:
                return [[recordsize, 1.0]]
            return [[self.io_size(w["size"], f"{path}.size"), 1.0]]
        raw = w["sizes"]
        if not isinstance(raw, list) or not raw:
            raise ScenarioError(
                f'{path}.sizes: {show(raw)} — allowed: an array of [size, weight] pairs, e.g. [["4K", 3], ["128K", 1]]'
            )
        out: list[list[Any]] = []
        for j, pair in enumerate(raw):
            pp = f"{path}.sizes[{j}]"
            if not isinstance(pair, list) or len(pair) != 2:
                raise ScenarioError(f'{pp}: {show(pair)} — allowed: a [size, weight] pair such as ["4K", 3]')
            size = self.io_size(pair[0], pp + "[0]")
            wt = pair[1]
            if not _is_num(wt) or wt <= 0:
                raise ScenarioError(f"{pp}[1]: {show(wt)} — allowed: a weight greater than 0")
            out.append([size, wt])
        total = sum(wt for _, wt in out)
        return [[s, wt / total] for s, wt in out]

    @staticmethod
    def loop(w: Mapping[str, Any], path: str) -> tuple[float | None, int | None, int]:
        if "rate" in w and "threads" in w:
            raise ScenarioError(
                f"{path}.threads: {show(w['threads'])} — give rate (open loop) or threads (closed loop), not both"
            )
        if "rate" in w:
            r = w["rate"]
            if not _is_num(r) or not 0 < r <= 10_000_000:
                raise ScenarioError(
                    f"{path}.rate: {show(r)} — allowed: operations per second, more than 0, at most 10000000"
                )
            if "think" in w:
                raise ScenarioError(
                    f"{path}.think: {show(w['think'])} — only with threads (closed loop); remove it or use threads"
                )
            return float(r), None, 0
        if "threads" in w:
            threads = _int(w["threads"], f"{path}.threads", 1, 4096)
            think = _duration(w.get("think", "0s"), f"{path}.think")
            return None, threads, think
        raise ScenarioError(
            f"{path}.rate: missing — allowed: rate (operations per second, open loop) or threads (closed loop)"
        )
