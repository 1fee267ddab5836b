"""Parsed ``zpool`` output → a scenario TOML a user can run (``ziosim import``).

Theory of operation
-------------------
``read_inputs`` cuts every file into sections (``importers.split_sections``), parses them
(``read_texts``) and picks the one pool the scenario is about (``--pool`` when the texts
hold several).
``build`` then decides, in this order, and writes each decision where the user reads it —
inferred values as ``#`` lines in the header and beside the key, assumptions as a list of
their own (spec/users.md §6 items 1 and 6: the user must be able to see what was guessed):

1. **Release**: ``zpool_status.guess_release`` (the scan line's format, narrowed by the
   device names and ``see:`` URL, and by a dRAID vdev to zfs-2.1+), or ``--release``. A
   dRAID with ``--release`` older than zfs-2.1, or without it beside a scan line only older
   releases print, is refused (``check_draid_release``).
2. **Pool**: one ``[[pool.vdevs]]`` per top-level vdev with the real disk names; inside a
   ``replacing-N``/``spare-N`` the old disk stands in the pool and the new one arrives by
   a ``replace`` action. The ``special`` section becomes ``[[pool.special]]`` (its disks
   fail and are replaced as the data disks are; on their own ``[devices.special]``,
   ``special_devices``), logs ``[[pool.log]]``, cache devices ``[pool.cache]``, the
   ``spares`` section ``[pool.spares]`` (``spare_devices``); ``dedup`` vdevs have no
   counterpart in ziosim (it models no deduplication) and are named in the header instead,
   as is a special dRAID. ZFS numbers top-level vdevs in the order they were added, ziosim
   the data vdevs, then the special, then the log vdevs: the header says which names differ
   (``class_names``). A text with a special section is 0.8+ (``check_special_release``).
2b. **dRAID**: ``draid2:8d:24c:2s-0`` is ``type = "draid2"`` with ``data`` and ``spares``
   from its name and its rows' disks (their count is the name's, checked by the parsers).
   Its distributed spares (``draid2-0-1``) are no devices: the ``spares`` section's are
   checked against the names and counted by the vdev's ``spares``, never ``[pool.spares]``.
   ZFS numbers them by top-level vdev id, ziosim by the place among pool.vdevs
   (``scenario.draid_spare_names``), so ``draid_spare_names`` here maps one to the other and
   the header says so when they differ. A ``spare-N`` holding one is a ``replace`` by it
   (``distributed_spare_in``): sequential, as zed does it (cmd/zed/agents/zfs_retire.c), unless the text
   shows it under a healing resilver. A failed dRAID disk with a free distributed spare and
   no spare-N means zed did not act (``draid_spares_check``): ``[pool.spares] auto = false``
   (alone when the pool has no hot spares).
3. **Disks**: ``--device`` (default ``hdd-7200-sata-2014``), capacity from ``zpool list
   -v`` (the smallest disk of a vdev — 2.2+ prints disks' SIZE, 2.1 does not — or a raidz
   vdev's SIZE ÷ width, a mirror's SIZE, a dRAID's SIZE ÷ (children − distributed spares):
   ``vdev_draid_open`` sets its asize to the smallest child's × ``vdc_ndisks``, which is
   children − spares, module/zfs/vdev_draid.c@zfs-2.1.0; SIZE ÷ children would understate a
   disk by the spares' share), else from the pool's SIZE ÷ Σ widths; without ``zpool list``
   the preset's, raised only if the scanned data would not fit. Distributed spares' rows are
   no disks and are left out of the smallest.
4. **Allocated**: ``zpool list`` ALLOC, else the scan's total — both count raid-z parity,
   ziosim's ``allocated`` does not, so each vdev's share is scaled by data/width (a dRAID's
   by data / (data + parity), a rebuild's total of a dRAID too).
   ``layout = "aged"`` when FRAG ≥ 30 %.
5. **Actions at 0 s**: ``replace`` old → spare for each ``spare-N`` (first, so neither the
   retire agent nor the order of ``pool.spares`` picks another spare), ``fail``
   (FAULTED/UNAVAIL/REMOVED) or ``offline`` (OFFLINE) for each missing disk, ``replace``
   old → new for each replacing vdev (``sequential``
   under a ``resilver (mirror-0)`` rebuild), then ``scrub`` if a scrub runs — unless a
   sequential replace will rebuild at 0 s, as none starts during a rebuild; the rebuild's end
   starts one (zfs_rebuild_scrub_enabled, vdev_rebuild.c). ``stop =
   "scan-done"`` when any of them starts a scan, so the simulated scan time can be set
   against the real one (elapsed + the release's ETA), both printed in the header.
6. **Workload**: none (the real one is unknown) unless ``--workload-from-iostat`` asks for
   an open-loop ``random-read`` at the pool's observed read ops/s and mean read size: from
   ``zpool iostat -v``, else from ``iostat -x`` for a pool of mirrors and single disks
   only (a mirror read goes to one disk, so the disks' reads add up to the pool's; a
   raid-z block's read touches one to all of its data columns depending on the block's
   size, which ``iostat -x`` does not show, so that is refused).
6b. **iostat -x**: the devices are matched to the pool's disks (``iostat_x.match_devices``,
   every match and miss in the header), the data disks' load quoted, and stragglers
   flagged (``iostat_x.stragglers``) in the header and on stderr. On an HDD preset each
   straggler gets its own device (``straggler_models``): ``[devices.<disk>-slow]``, the
   vdev's preset and capacity plus read recovery calibrated from Δ, its service time per
   read without queueing (``iostat_x.device_service_ms``) minus its peers' median, and the
   vdev lists it in ``devices``. Not with ``--no-straggler-model``, an SSD preset, or
   Δ ≤ 0: then only the report, with the reason.
6c. **zpool iostat -l**: each data disk's row is found by its name (zpool prints the same
   names in both outputs), its load and waits quoted, and the same rule and calibration
   applied to its read ``disk_wait`` (``zpool_iostat.disk_stat``): zpool iostat prints no
   %busy, so there is no busy test and no queueing to take out — Δ is read ``disk_wait``
   as printed minus the peers' median, too large when the drive's own queue is deep (the
   header says so). With both, stragglers come from ``iostat -x`` (``disk_figures``),
   unless it matched no two disks of a group and ``-l`` did.
7. **Tunables**: the settings of any tunables files (``tunables_conf``), audited for the
   release; the ones it applies go into ``[zfs.tunables]``, every verdict into the header.
   The files' platform also narrows the release guess (a Linux ``zfs.conf`` beside a
   status that illumos and ZoL both print picks ZoL).

TOML is written by hand (``_q``): strings as TOML basic strings, one key per line.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import ScenarioError
from ..platforms import platforms_for
from ..report.nicenum import zfs_nicenum
from ..report.releases import RELEASES, at_least
from ..scenario import DEFAULT_EPOCH_S, SPARES_MANUAL_RELEASES, VDEV_PARITY, default_hz, nearest
from . import Section, kind_label, split_sections
from . import iostat_x as iostat_x_mod
from . import tunables_conf as conf_mod
from . import zpool_iostat as iostat_mod
from . import zpool_list as list_mod
from . import zpool_status as status_mod
from . import zpool_status_json as status_json_mod
from .zpool_iostat import IostatSample
from .zpool_list import PoolList
from .zpool_status import PoolStatus, Scan, Vdev

__all__ = ["Options", "Imported", "Texts", "read_texts", "read_inputs", "pick_pool", "build", "DEFAULT_DEVICE",
           "DEFAULT_LOG_DEVICE", "DEFAULT_SPECIAL_DEVICE", "DEFAULT_CACHE_DEVICE", "StragglerModel",
           "straggler_models", "straggler_lines", "DiskFigures", "disk_figures"]

DEFAULT_DEVICE = "hdd-7200-sata-2014"
DEFAULT_LOG_DEVICE = "intel-s3700"
# Special vdevs hold metadata and small blocks, and are SSDs in practice.
DEFAULT_SPECIAL_DEVICE = "intel-s3700"
DEFAULT_CACHE_DEVICE = "samsung-850pro"
FRAG_AGED_PERCENT = 30
FILL_ASSUMED = 0.5
ALLOCATED_MAX_SHARE = 0.95  # of usable: room for metadata, which ziosim adds on top
REPORT_INTERVALS = ("10s", "30s", "1m", "5m", "10m", "30m", "1h", "2h", "6h")
_INTERVAL_S = {"10s": 10, "30s": 30, "1m": 60, "5m": 300, "10m": 600, "30m": 1800, "1h": 3600, "2h": 7200,
               "6h": 21600}
_GONE = ("FAULTED", "UNAVAIL", "REMOVED")


@dataclass(frozen=True)
class Options:
    """What the command line adds: each None means "guess, and say so"."""

    release: str | None = None
    device: str | None = None
    log_device: str | None = None
    cache_device: str | None = None
    special_device: str | None = None
    workload_from_iostat: bool = False
    straggler_model: bool = True  # False: --no-straggler-model, stragglers only reported


@dataclass(frozen=True)
class Imported:
    """The parsed pieces about one pool, and what each file held."""

    status: PoolStatus
    listing: PoolList | None
    iostat: IostatSample | None
    files: tuple[str, ...]
    found: tuple[str, ...]  # "status.txt: zpool status (lines 1-24)"
    confs: tuple[conf_mod.Config, ...] = ()  # tunables files, in the order given
    iostat_x: iostat_x_mod.IostatX | None = None  # the last iostat -x section


@dataclass(frozen=True)
class Texts:
    """Everything the files hold, before a pool is picked."""

    statuses: tuple[PoolStatus, ...]
    lists: tuple[PoolList, ...]
    iostats: tuple[IostatSample, ...]
    confs: tuple[conf_mod.Config, ...]
    files: tuple[str, ...]
    found: tuple[str, ...]
    iostatxs: tuple[iostat_x_mod.IostatX, ...] = ()


# ----------------------------------------------------------------------------- reading


def _span(sec: Section) -> str:
    return f"lines {sec.first_line}-{sec.lines[-1].number}"


def read_texts(texts: Sequence[tuple[str, str]]) -> Texts:
    """Parse ``(file name, text)`` pairs into their sections' contents."""
    statuses: list[PoolStatus] = []
    lists: list[PoolList] = []
    iostats: list[IostatSample] = []
    confs: list[conf_mod.Config] = []
    iostatxs: list[iostat_x_mod.IostatX] = []
    found: list[str] = []
    for name, text in texts:
        for sec in split_sections(name, text):
            if sec.kind == "conf":
                c = conf_mod.parse(sec)
                confs.append(c)
                found.append(f"{name}: {c.label} ({_span(sec)})")
                continue
            if sec.kind == "iostatx":
                x = iostat_x_mod.parse(sec)
                iostatxs.append(x)
                found.append(f"{name}: {x.label} ({_span(sec)})")
                continue
            if sec.kind == "iostat":
                got = iostat_mod.parse(sec)
                iostats += got
                found.append(f"{name}: zpool iostat {got[-1].flags} ({_span(sec)})")
                continue
            found.append(f"{name}: {kind_label(sec.kind)} ({_span(sec)})")
            if sec.kind == "status":
                statuses += status_mod.parse(sec)
            elif sec.kind == status_json_mod.KIND:
                statuses += status_json_mod.parse(sec)
            else:
                lists += list_mod.parse(sec)
    return Texts(tuple(statuses), tuple(lists), tuple(iostats), tuple(confs), tuple(n for n, _ in texts),
                 tuple(found), tuple(iostatxs))


def read_inputs(texts: Sequence[tuple[str, str]], pool: str | None = None) -> Imported:
    """Parse ``(file name, text)`` pairs; the pool is the only one in the status texts,
    or ``pool``."""
    return pick_pool(read_texts(texts), pool)


def pick_pool(t: Texts, pool: str | None = None) -> Imported:
    """The one pool of the status texts (or ``pool``) with its zpool list and iostat."""
    statuses, lists, iostats = t.statuses, t.lists, t.iostats
    if not statuses:
        first = t.files[0] if t.files else "input"
        alone = "; tunables files on their own are audited with --release R" if t.confs else ""
        raise ScenarioError(f"{first}: no zpool status among the files — allowed: at least one file with the "
                            "output of zpool status POOL (zpool list and zpool iostat -v only add to it)" + alone)
    names = list(dict.fromkeys(s.name for s in statuses))
    if pool is None:
        if len(names) > 1:
            s2 = next(s for s in statuses if s.name == names[1])
            raise ScenarioError(f"{s2.file}:{s2.first_line}: a second pool ({', '.join(names)}) — allowed: one pool "
                                "per scenario; pick one with --pool NAME")
        pool = names[0]
    if pool not in names:
        raise ScenarioError(f"--pool: {_q(pool)} — allowed: a pool of the zpool status text ({', '.join(names)})",
                            hint=f"did you mean {nearest(pool, names)}?" if nearest(pool, names) else None)
    status = [s for s in statuses if s.name == pool][-1]
    listing = next((p for p in reversed(lists) if p.name == pool), None)
    if lists and listing is None:
        raise ScenarioError(f"{lists[0].file}:{lists[0].pool.line}: zpool list has no pool {pool} — allowed: the "
                            f"zpool list of the same pool (it lists {', '.join(p.name for p in lists)})")
    io = next((p for p in reversed(iostats) if p.name == pool), None)
    if iostats and io is None:
        raise ScenarioError(f"{iostats[0].file}:{iostats[0].pool.line}: zpool iostat has no pool {pool} — allowed: "
                            f"the zpool iostat -v of the same pool (it shows {', '.join(p.name for p in iostats)})")
    return Imported(status, listing, io, t.files, t.found, t.confs, t.iostatxs[-1] if t.iostatxs else None)


# ----------------------------------------------------------------------------- small helpers


def _q(v: object) -> str:
    """A TOML value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        out = []
        for ch in v:
            if ch in ('"', "\\"):
                out.append("\\" + ch)
            elif ord(ch) < 0x20 or ord(ch) == 0x7F:
                out.append(f"\\u{ord(ch):04x}")
            else:
                out.append(ch)
        return '"' + "".join(out) + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_q(x) for x in v) + "]"
    raise TypeError(type(v))


def _dur(seconds: int) -> str:
    """A duration for humans and for TOML: ``7h01m``, ``45m``, ``30s``, ``2d3h``."""
    s = int(seconds)
    d, h, m = s // 86400, (s // 3600) % 24, (s // 60) % 60
    if d:
        return f"{d}d{h}h{m:02d}m"
    if h:
        return f"{h}h{m:02d}m"
    if m:
        return f"{m}m{s % 60:02d}s" if s < 600 and s % 60 else f"{m}m"
    return f"{s}s"


def _size(n: int, exact: bool) -> object:
    return n if exact else zfs_nicenum(n)


def _capacity(n: int, exact: bool) -> object:
    """A disk capacity ziosim accepts (a whole number of 512-byte sectors): exact bytes
    rounded down to 4 KiB under ``-p``, else whole GiB (``7454G`` for a 7.28T disk)."""
    if exact or n < 1 << 30:
        return n // 4096 * 4096
    return f"{n >> 30}G"


def _key(name: str) -> str:
    """A TOML key: bare when it can be (``sdc-slow``), else quoted (``"ada0p3.eli-slow"``)."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else _q(name)


def _comment(text: str) -> str:
    return "# " + text.replace("\t", " ").rstrip() if text else "#"


@dataclass
class _Plan:
    """What ``build`` has decided so far, and the notes it owes the reader."""

    inferred: list[str] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    actions: list[tuple[dict, str]] = field(default_factory=list)
    vdevs: list[dict] = field(default_factory=list)


def _vdev_type(v: Vdev) -> str:
    if v.kind in ("disk", "replacing", "spare"):
        return "disk"
    return v.kind


def _width(v: dict) -> int:
    return len(v["names"])


def _data_disks(v: dict) -> float:
    """Disks' worth of data space: a dRAID's groups hold ``data`` of every ``data + parity``
    columns on its disks less the distributed spares' share."""
    if v["type"].startswith("draid"):
        return _raw_disks(v) * v["data"] / (v["data"] + VDEV_PARITY[v["type"]])
    return 1 if v["type"] in ("disk", "mirror") else _width(v) - VDEV_PARITY[v["type"]]


# The record size an imported scenario assumes (`recordsize = "128K"`, ZFS's default).
RECORD_ASSUMED = 128 * 1024


def _alloc_share(v: dict, ashift: int) -> float:
    """Data bytes per byte of a vdev's ``vs_alloc`` (``zpool list`` ALLOC, a scan's total)
    for the assumed 128K records, as ziosim's layout allocates them: a mirror's counts one
    copy; raid-z adds parity and pads each block to a multiple of parity + 1 sectors
    (``vdev_raidz_asize``: 7/8 of an 8-wide raidz3's nominal 5/8 at ashift 12); a dRAID
    rounds each block up to whole rows of its groups (``vdev_draid_asize``). So an imported
    pool scans the bytes the real one did."""
    t = v["type"]
    if t in ("disk", "mirror"):
        return 1.0
    p = VDEV_PARITY[t]
    s = -(-RECORD_ASSUMED // (1 << ashift))
    if t.startswith("draid"):
        d = v["data"]
        return s / (-(-s // d) * (d + p))
    d = _width(v) - p
    tot = s + p * -(-s // d)
    return s / (-(-tot // (p + 1)) * (p + 1))


def _parity_words(vdevs: list[dict]) -> str:
    return "parity" if any(v["type"].startswith("draid") for v in vdevs) else "raid-z parity"


def _raw_disks(v: dict) -> int:
    """Disks whose space a vdev's raw SIZE/ALLOC counts: a mirror counts one copy; a dRAID
    its children less its distributed spares (vdev_draid_open sizes it as the smallest
    child's asize × vdc_ndisks, "children - spares", module/zfs/vdev_draid.c@zfs-2.1.0)."""
    if v["type"].startswith("draid"):
        return _width(v) - v["spares"]
    return 1 if v["type"] in ("disk", "mirror") else _width(v)


def _preset(name: str | None, default: str, option: str, presets: dict) -> str:
    if name is None:
        return default
    if name not in presets:
        hint = nearest(name, presets)
        raise ScenarioError(f"{option}: {_q(name)} — allowed: a preset ({', '.join(presets)}; see `ziosim presets`)",
                            hint=f"did you mean {hint}?" if hint else None)
    return name


def check_presets(opts: Options, presets: dict) -> None:
    """Refuse an unknown ``--device``/``--log-device``/``--special-device``/``--cache-device``
    before any parsing."""
    _preset(opts.device, DEFAULT_DEVICE, "--device", presets)
    _preset(opts.log_device, DEFAULT_LOG_DEVICE, "--log-device", presets)
    _preset(opts.special_device, DEFAULT_SPECIAL_DEVICE, "--special-device", presets)
    _preset(opts.cache_device, DEFAULT_CACHE_DEVICE, "--cache-device", presets)


# ----------------------------------------------------------------------------- the builder


# OpenSolaris 2009.06 notes a leaf's repair bytes ("10.0G resilvered") where later releases
# print "(resilvering)", and keeps the note after the scan (print_status_config at
# il:379c004d1f): it means a disk being resilvered only while a resilver runs.
_REPAIRED_2009 = re.compile(r"\d+(?:\.\d+)?[KMGTPEZ]? resilvered")


# A leaf's note on 0.8+ while a resilver runs and another is deferred (print_status_config).
_AWAITING = "(awaiting resilver)"
# When the deferred resilver's replace happens: after the running resilver has started (three
# txgs after the actions at 0s), so it waits for it rather than joining it.
_DEFERRED_AT = "1m"


def _resilvering(st: PoolStatus, v: Vdev) -> bool:
    return v.resilvering or (_REPAIRED_2009.fullmatch(v.note) is not None
                             and any(s.func == "resilver" and s.active for s in st.scans))


class _Builder:
    """Holds every decision ``build`` makes; ``emit`` writes them out."""

    def __init__(self, imp: Imported, opts: Options, presets: dict) -> None:
        self.imp, self.opts, self.presets = imp, opts, presets
        self.st = imp.status
        self.plan = _Plan()
        self.names_used = {leaf.name for leaf in self.st.all_leaves()}
        self.rebuilding = {s.rebuild_vdev for s in self.st.scans if s.sequential and s.active}
        self.exact = bool(imp.listing and imp.listing.parsable)
        self.release = ""
        self.logs: list[dict] = []
        self.special: list[dict] = []  # as plan.vdevs' entries: type, names, source
        self.special_devs: list[tuple[str, int | None, str]] = []  # (device key, capacity, how), as devices
        self.special_dev_names: list[str] = []  # the device of each special vdev
        self.special_preset = DEFAULT_SPECIAL_DEVICE
        self.cache: dict | None = None
        self.spares: list[str] = []
        self.spares_in_use: list[str] = []
        # dRAID distributed spares: the text's name → ziosim's (scenario.draid_spare_names
        # numbers them by the vdev's place in pool.vdevs, ZFS by its top-level vdev id), the
        # index of their vdev, and the ones in use (ziosim's names).
        self.dspare_names: dict[str, str] = {}
        self.dspare_vdev: dict[str, int] = {}
        self.dspares_in_use: list[str] = []
        self.dspares_listed: dict[str, str] = {}  # the spares section's, text name → state
        self.spare_dev: tuple[str, int | None] | None = None  # (device key, capacity of a [devices.spare])
        self.spares_auto: bool | None = None  # None: the release's default
        self.devices: list[tuple[str, int | None, str]] = []
        self.dev_names: list[str] = []
        self.share_top: str | None = None  # the dRAID whose spare's share is being written (pool_vdevs)
        self.allocated: int | None = None
        self.alloc_how = ""
        self.layout = "fresh"
        self.failmode: str | None = None  # from a suspended pool's msgid (settings)
        self.ashift = 12
        self.workload: dict | None = None
        self.acts: list[tuple[dict, str]] = []
        self.stop, self.interval, self.start_time = "10m", "1m", None
        self.real_scan: Scan | None = None
        self.elapsed_s: int | None = None
        self.total_s: int | None = None
        self.audit: list[conf_mod.Row] = []
        self.iostat_lines: list[str] = []
        self.stragglers: list[StragglerModel] = []
        self.figures: DiskFigures | None = None
        self.awaiting: list[str] = []  # disks marked (awaiting resilver): a deferred resilver

    # --- release
    def choose_release(self) -> None:
        g = self.narrowed_by_confs(status_mod.guess_release(self.st))
        p = self.plan
        same = ", ".join(g.candidates)
        self.check_draid_release(g)
        if self.opts.release is not None:
            rel = self.opts.release
            if rel in g.candidates:
                p.inferred.append(f"release {rel}: from --release (the text's format is printed by {same})")
            else:
                p.inferred.append(f"release {rel}: from --release, although {rel} does not print the text's format "
                                  f"(printed by {same})")
        elif g.no_scan_line:
            rel = g.release
            draid = (f"; a dRAID vdev needs {status_mod.DRAID_FIRST_RELEASE} or later"
                     if status_mod.draid_vdevs(self.st) else "")
            p.assumed.append(f"release {rel}: the status has no scan line, so its format cannot tell; zfs-2.0 and "
                             f"later print none for a pool never scanned{draid} (--release to set it)")
        else:
            rel = g.release
            also = [r for r in g.candidates if r != rel]
            p.inferred.append(f"release {rel}: " + "; ".join(g.reasons)
                              + (f"; also printed by {', '.join(also)} (--release to choose)" if also else ""))
        if rel == "freebsd-9":
            p.inferred.append("release freebsd-9 stands for FreeBSD's legacy ZFS (FreeBSD 9 to 12)")
        self.check_special_release(rel, g)
        self.release = rel

    def check_special_release(self, rel: str, g: status_mod.ReleaseGuess) -> None:
        """Allocation classes came with OpenZFS 0.8.0: a special section with an older
        --release, or beside a scan line only older releases print, is refused (one line)."""
        special = self.st.vdevs_of("special")
        if not special or at_least(rel, status_mod.SPECIAL_FIRST_RELEASE):
            return
        v = special[0]
        if self.opts.release is not None:
            newer = ", ".join(r for r in RELEASES if at_least(r, status_mod.SPECIAL_FIRST_RELEASE))
            raise ScenarioError(f"--release: {_q(rel)} — allowed: {newer}, as {self.st.file} line {v.line} shows the "
                                f"special vdev {v.name} and allocation classes came with OpenZFS 0.8.0")
        raise ScenarioError(f"{self.st.file}:{v.line}: the special vdev {v.name} — the text's format is printed only "
                            f"by {', '.join(g.candidates)}, older than allocation classes (OpenZFS 0.8.0); allowed: "
                            "the zpool status of one pool as one release printed it; if the text is real, pass "
                            f"--release {status_mod.SPECIAL_FIRST_RELEASE} or later")

    def check_draid_release(self, g: status_mod.ReleaseGuess) -> None:
        """dRAID came with OpenZFS 2.1.0: an older --release, or a text whose format only
        older releases print, is refused (one line, exit 2)."""
        draids = status_mod.draid_vdevs(self.st)
        if not draids:
            return
        first, d = status_mod.DRAID_FIRST_RELEASE, draids[0]
        rel = self.opts.release
        if rel is not None and not at_least(rel, first):
            newer = ", ".join(r for r in RELEASES if at_least(r, first))
            raise ScenarioError(f"--release: {_q(rel)} — allowed: {newer}, as {self.st.file} line {d.line} shows the "
                                f"dRAID vdev {d.name} and dRAID came with OpenZFS 2.1.0")
        if rel is None and g.draid_conflict is not None:
            ln = self.st.scans[0].lines[0]
            raise ScenarioError(f"{ln.file}:{ln.number}: {g.draid_conflict} — allowed: the zpool status of one "
                                f"pool as one release printed it; if the text is real, pass --release {first} or "
                                "later")

    def narrowed_by_confs(self, g: status_mod.ReleaseGuess) -> status_mod.ReleaseGuess:
        """The guess kept to releases that ran on the tunables files' platform, if any do."""
        plats = [(c.platform, c.file) for c in self.imp.confs if c.platform is not None]
        if not plats or self.opts.release is not None:
            return g
        plat, file = plats[0]
        cands = tuple(r for r in g.candidates if plat in platforms_for(r))
        if not cands or cands == g.candidates:
            return g  # no narrowing; a mismatch is refused by the audit, naming the line
        pick = next(r for r in status_mod.PREFERENCE if r in cands)
        return dataclasses.replace(g, release=pick, candidates=cands,
                                   reasons=(*g.reasons, f"{file} is a {plat} tunables file"))

    # --- vdev tree
    def leaf_state(self, leaf: Vdev, in_pool: bool) -> None:
        errs = [leaf.read or 0, leaf.write or 0, leaf.cksum or 0]
        if leaf.state in _GONE or leaf.state == "OFFLINE":
            why = f"{leaf.name} is {leaf.state}" + (f" ({leaf.note})" if leaf.note else "")
            if in_pool:
                do = "offline" if leaf.state == "OFFLINE" else "fail"
                self.plan.actions.append(({"do": do, "disk": leaf.name}, why))
            else:
                self.plan.inferred.append(f"{why}: ziosim cannot fail a log or cache device; left as is")
        if leaf.state == "DEGRADED" or any(errs):
            # A failed disk's counts too: they say why it failed (docs/import.md: noted).
            self.plan.inferred.append(f"{leaf.name}: {leaf.state}, {errs[0]} read / {errs[1]} write / {errs[2]} "
                                      "checksum errors — not modelled (ziosim's disks return no errors)")

    def new_name(self, name: str) -> str:
        """A name no disk of the text has, for the new disk that replaces ``name``."""
        new = name + "-new"
        while new in self.names_used:
            new += "-new"
        self.names_used.add(new)
        return new

    def member(self, v: Vdev, top: str, in_pool: bool = True) -> str:
        """The disk that stands in the pool for ``v``; records what happens to it."""
        if v.kind == "disk":
            self.leaf_state(v, in_pool)
            if _resilvering(self.st, v) and in_pool and top != self.share_top:
                new = self.new_name(v.name)
                self.plan.actions.append(({"do": "fail", "disk": v.name}, f"{v.name} shows (resilvering) outside a "
                                          "replacing vdev: it came back after an outage"))
                self.plan.actions.append(({"do": "replace", "old": v.name, "new": new},
                                          "an upper bound: ziosim cannot know how much it missed, so a whole new "
                                          f"disk {new} is resilvered"))
            elif _AWAITING in v.note and in_pool:
                self.awaiting.append(v.name)
            return v.name
        if v.kind == "spare" and in_pool:
            # The spare went in first (the retire agent or the administrator replaced the
            # disk with it), then whatever the old disk's subtree shows: its failure, or a
            # replacing-0 under spare-N. In that order the retire agent, which puts a spare
            # in only for a disk nothing stands in for yet, leaves it alone, and the spare
            # is the one the text names whatever pool.spares.auto is.
            orig = v.children[0].leaves()[0].name
            spare = v.children[-1].leaves()[-1].name
            how = " → ".join(f"{c.name} {c.state}{' ' + c.note if c.note else ''}" for c in v.children)
            if v.children[-1].leaves()[-1].dspare:
                self.distributed_spare_in(v, top, orig, how)
                return self.member(v.children[0], top, in_pool)
            act = {"do": "replace", "old": orig, "new": spare}
            self.sequential(act, top, v)
            self.plan.actions.append((act, f"{v.name}: {how}: the hot spare {spare} stands in for {orig}"))
            self.spares_in_use.append(spare)
            return self.member(v.children[0], top, in_pool)
        if v.kind in ("replacing", "spare"):
            old = self.member(v.children[0], top, in_pool)
            if not in_pool:
                return old
            new = v.children[-1].leaves()[-1].name
            how = " → ".join(f"{c.name} {c.state}{' ' + c.note if c.note else ''}" for c in v.children)
            act: dict = {"do": "replace", "old": old, "new": new}
            self.sequential(act, top, v)
            self.plan.actions.append((act, f"{v.name}: {how}"))
            return old
        raise ScenarioError(f"{self.st.file}:{v.line}: {v.name} inside {top} — allowed: disks, replacing-N and "
                            "spare-N under a top-level vdev")

    def distributed_spare_in(self, v: Vdev, top: str, orig: str, how: str) -> None:
        """A ``spare-N`` whose spare is a dRAID's distributed spare: ``replace`` old → that
        spare (ziosim's name for it), sequential as zed does it (replace_with_spare,
        cmd/zed/agents/zfs_retire.c@zfs-2.1.0, rebuilds onto a dRAID spare) unless the text
        shows the spare under a healing resilver (``zpool replace`` without ``-s``). The
        spare must be its own dRAID's (zpool_vdev_attach, lib/libzfs/libzfs_pool.c@zfs-2.1.0)."""
        leaf = v.children[-1].leaves()[-1]
        new = self.dspare_names.get(leaf.name)
        idx = next(i for i, t in enumerate(self.st.vdevs) if t.name == top)
        if new is None or self.dspare_vdev[new] != idx:
            own = [n for n, z in self.dspare_names.items() if self.dspare_vdev[z] == idx]
            allowed = f"one of {top}'s own ({', '.join(own)})" if own else f"none: {top} has no distributed spares"
            raise ScenarioError(f"{self.st.file}:{leaf.line}: {_q(leaf.name)} — a distributed spare under {v.name} "
                                f"of {top}; zpool says \"dRAID spares can only replace child devices in their "
                                f"parent's dRAID vdev\"; allowed: {allowed}")
        act: dict = {"do": "replace", "old": orig, "new": new}
        rebuild = top in self.rebuilding
        healing = (not rebuild and _resilvering(self.st, leaf)
                   and any(s.func == "resilver" and s.active and not s.sequential for s in self.st.scans))
        why = f"{v.name}: {how}: the distributed spare {leaf.name} stands in for {orig}"
        if new != leaf.name:
            why += f" ({new} in ziosim's numbering)"
        if rebuild:
            self.sequential(act, top, v)
        elif healing:
            why += "; a healing resilver, as the text shows (zpool replace without -s)"
        else:
            act["sequential"] = True
            why += "; sequential, as zed puts a distributed spare in (replace -s)"
        self.plan.actions.append((act, why))
        self.dspares_in_use.append(new)

    def sequential(self, act: dict, top: str, v: Vdev) -> None:
        """A replace under a ``resilver (mirror-0) in progress`` rebuild is ``replace -s``."""
        if top not in self.rebuilding:
            return
        if at_least(self.release, "zfs-2.0"):
            act["sequential"] = True
        else:
            self.plan.inferred.append(f"{v.name}: the text shows a sequential rebuild, which {self.release} "
                                      "lacks; modelled as a healing resilver")

    def pool_vdevs(self) -> None:
        self.draid_spare_names()
        for v in self.st.vdevs:
            members = [v] if v.kind in ("disk", "replacing", "spare") else list(v.children)
            # A dRAID whose distributed spare is being resilvered or rebuilt: every disk holding
            # part of the spare takes its writes and counts them (`vs_scan_processed` /
            # `vs_rebuild_processed`), so zpool status marks it "(resilvering)" too.
            inuse = [leaf.name for leaf in v.leaves() if leaf.dspare and leaf.resilvering]
            self.share_top = v.name if v.draid is not None and inuse else None
            if self.share_top is not None and any(leaf.resilvering and not leaf.dspare for leaf in v.leaves()):
                self.plan.inferred.append(f"{v.name}: its disks marked (resilvering) hold the share of "
                                          f"{inuse[0]} being written, not disks back from an outage")
            names = [self.member(c, v.name) for c in members]
            self.share_top = None
            entry = {"type": _vdev_type(v), "names": names, "source": v}
            dn = v.draid
            if dn is not None:
                entry.update(data=dn.data, spares=dn.spares)
            self.plan.vdevs.append(entry)

    def draid_spare_names(self) -> None:
        """Each dRAID's distributed spares, as the text names them (``draid<parity>-<top vdev
        id>-<spare id>``, the id the vdev's name ends in) and as the scenario does (the vdev's
        place among pool.vdevs): the two differ when logs, special or removed vdevs took ids."""
        for i, v in enumerate(self.st.vdevs):
            dn = v.draid
            if dn is None:
                continue
            zid = dn.vdev_id if dn.vdev_id is not None else i
            pairs = [(f"draid{dn.parity}-{zid}-{k}", f"draid{dn.parity}-{i}-{k}") for k in range(dn.spares)]
            for real, ours in pairs:
                self.dspare_names[real] = ours
                self.dspare_vdev[ours] = i
            what = (f"dRAID {v.name} ({self.st.file} line {v.line}): type draid{dn.parity}, {dn.children} disks, "
                    f"{dn.data} data disks per redundancy group")
            if dn.spares:
                what += (f", {dn.spares} distributed spare{'s' if dn.spares > 1 else ''} "
                         f"({', '.join(r for r, _ in pairs)}): spare space on its own disks, no devices, so "
                         "pool.vdevs' spares count and not [pool.spares]")
            if zid != i:
                what += (f"; ZFS numbers them by the vdev's id, {zid}, which log, special or removed vdevs added "
                         f"before it also take; ziosim by its place among the data vdevs, {i} (it numbers the "
                         "special and log vdevs after them): "
                         + ", ".join(f"{r} is {o}" for r, o in pairs))
            self.plan.inferred.append(what)

    def classes(self) -> None:
        for label, vs in self.st.classes:
            if label == "logs":
                for v in vs:
                    kids = v.children if v.kind == "mirror" else [v]
                    names = [self.member(c, v.name, in_pool=False) for c in kids]
                    self.logs.append({"names": names, "mirror": v.kind == "mirror", "source": v})
            elif label == "cache":
                self.cache = {"names": [self.member(v, "cache", in_pool=False) for v in vs]}
            elif label == "spares":
                for v in vs:
                    if v.dspare:
                        self.listed_distributed_spare(v)
                    elif v.state in ("AVAIL", "INUSE"):
                        self.spares.append(v.name)
                    else:
                        self.plan.ignored.append(f"spare {v.name} ({v.state}): ziosim's spares start AVAIL, so one "
                                                 "that is not is left out")
            elif label == "special":
                for v in vs:
                    self.special_vdev(v)
            else:
                what = ", ".join(f"{v.name} ({', '.join(leaf.name for leaf in v.leaves())})" for v in vs)
                self.plan.ignored.append(f"{label} vdevs {what}: ziosim models no deduplication, so no dedup table "
                                         "(DDT), the only blocks a dedup vdev holds")
        self.class_names()

    def special_vdev(self, v: Vdev) -> None:
        """A vdev of the ``special`` section: a ``[[pool.special]]`` whose disks fail and are
        replaced as the data disks' are (its top-level vdev is one of the root's children,
        like theirs); a special dRAID is left out (ziosim models none)."""
        if v.draid is not None:
            disks = ", ".join(leaf.name for leaf in v.leaves())
            self.plan.ignored.append(f"special vdev {v.name} ({disks}): a dRAID, which ziosim does not model as a "
                                     "special vdev; the metadata and small blocks it holds are simulated on the other "
                                     "special vdevs, or on the data vdevs without any")
            return
        members = [v] if v.kind in ("disk", "replacing", "spare") else list(v.children)
        names = [self.member(c, v.name) for c in members]
        self.special.append({"type": _vdev_type(v), "names": names, "source": v})

    def class_names(self) -> None:
        """Names of the special and log vdevs that differ between the text and the run: ZFS
        gives a top-level vdev the next id when it is added (``zpool create`` in the order of
        its arguments, ``zpool add`` later); ziosim numbers the data vdevs, then the special
        vdevs, then the log vdevs, and its zpool status names them so (``mirror-<id>``)."""
        ndata, out = len(self.plan.vdevs), []
        tops = [("special", sp["source"], sp["type"] != "disk") for sp in self.special]
        tops += [("log", lg["source"], lg["mirror"]) for lg in self.logs]
        for k, (what, src, named) in enumerate(tops):
            ours = f"{src.kind}-{ndata + k}"
            if named and src.name != ours:
                out.append(f"{what} {src.name} is {ours}")
        if out:
            self.plan.inferred.append("vdev names: ZFS numbers top-level vdevs in the order they were added, ziosim "
                                      "the data vdevs, then the special, then the log vdevs, so the simulated zpool "
                                      f"status names them otherwise: {'; '.join(out)}")

    def listed_distributed_spare(self, v: Vdev) -> None:
        """A distributed spare in the ``spares`` section: one of a dRAID of this pool (its
        count comes from the vdev's name), never a ``[pool.spares]`` device."""
        if v.name not in self.dspare_names:
            parity, top, _ = status_mod.dspare_name(v.name)  # type: ignore[misc]
            left_out = [c.name for label, vs in self.st.classes if label in ("special", "dedup") for c in vs
                        if c.draid is not None and (c.draid.parity, c.draid.vdev_id) == (parity, top)]
            if left_out:
                self.plan.ignored.append(f"distributed spare {v.name}: of {left_out[0]}, left out with it")
                return
            known = ", ".join(self.dspare_names) or "none: no dRAID of this pool has distributed spares"
            raise ScenarioError(f"{self.st.file}:{v.line}: {_q(v.name)} — a distributed spare "
                                "(draid<parity>-<top vdev id>-<spare id>) of no dRAID vdev of this pool; allowed: "
                                f"{known}")
        self.dspares_listed[v.name] = v.state or ""
        if v.state not in ("AVAIL", "INUSE"):
            self.plan.inferred.append(f"distributed spare {v.name} is {v.state}: ziosim's start AVAIL")

    def draid_spares_check(self) -> None:
        """The spares section against the dRAID names, and the retire agent: a failed dRAID
        disk nothing stands in for while one of its distributed spares is free means zed did
        not act."""
        plan = self.plan
        missing = [n for n in self.dspare_names if n not in self.dspares_listed]
        if missing:
            plan.inferred.append(f"the spares section lacks the distributed spare{'s' if len(missing) > 1 else ''} "
                                 f"{', '.join(missing)} that the dRAID name{'s' if len(missing) > 1 else ''} "
                                 "count; the scenario has them (ZFS lists every one: vdev_draid_spare_create)")
        spared = {a["old"] for a, _ in plan.actions if a.get("do") == "replace"}
        for i, v in enumerate(plan.vdevs):
            if not v.get("spares"):
                continue
            bare = [a["disk"] for a, _ in plan.actions if a.get("do") == "fail" and a["disk"] in v["names"]
                    and a["disk"] not in spared]
            free = [(real, ours) for real, ours in self.dspare_names.items()
                    if self.dspare_vdev[ours] == i and ours not in self.dspares_in_use]
            if not bare or not free:
                continue
            why = (f"{', '.join(bare)} of {v['source'].name} failed and no distributed spare stands in while "
                   f"{', '.join(r for r, _ in free)} {'is' if len(free) == 1 else 'are'} free, so the real zed did "
                   "not act")
            # With hot spares [pool.spares] carries `auto`; without, `spares = { auto = false }`
            # alone says it (scenario.py).
            if self.spares_auto is not False:
                self.spares_auto = False
                plan.inferred.append(f"pool.spares.auto = false: {why}")

    def spare_devices(self) -> None:
        """``pool.spares``: the ``spares`` section's AVAIL and INUSE disks (and any spare a
        ``spare-N`` holds that the text's section lacks), on the data disks' device — the one
        of the vdev the first spare in use stands in for — unless ``zpool list -v`` gives
        the spares another size."""
        names = self.spares + [n for n in self.spares_in_use if n not in self.spares]
        if not names:
            return
        self.spares = names
        plan = self.plan
        spared = {a["old"] for a, _ in plan.actions
                  if a.get("do") == "replace" and (a.get("new") in names or a.get("new") in self.dspare_vdev)}
        bare = [a["disk"] for a, _ in plan.actions if a.get("do") == "fail" and a["disk"] not in spared]
        avail = [n for n in names if n not in self.spares_in_use]
        if bare and avail and self.release not in SPARES_MANUAL_RELEASES and self.spares_auto is not False:
            self.spares_auto = False
            plan.inferred.append(f"pool.spares.auto = false: {', '.join(bare)} failed and no spare stands in for "
                                 f"{'it' if len(bare) == 1 else 'them'} while {', '.join(avail)} "
                                 f"{'is' if len(avail) == 1 else 'are'} AVAIL, so the real retire agent did not act "
                                 "(zed not running, or the spare too small)")
        olds = [a["old"] for a, _ in plan.actions if a.get("do") == "replace" and a.get("new") in names]
        i = next((i for i, v in enumerate(plan.vdevs) for o in olds if o in v["names"]), 0)
        dev = self.dev_names[i]
        cap = next(c for name, c, _ in self.devices if name == dev)
        listed = {r.name: r.size_bytes for r in self.imp.listing.section_rows("spares")} if self.imp.listing else {}
        sizes = [listed[n] for n in names if listed.get(n)]
        auto = self.release not in SPARES_MANUAL_RELEASES and self.spares_auto is not False
        if auto:
            agent = "a disk that fails during the run takes the first AVAIL one at once (the release's retire agent)"
        elif self.release in SPARES_MANUAL_RELEASES:
            agent = (f"{self.release} puts none in by itself, so a disk that fails during the run waits "
                     "for a replace action")
        else:
            # The release's retire agent would, but this pool's did not (spares.auto = false above).
            agent = ("none goes in by itself (pool.spares.auto = false, as on the real pool), so a disk that fails "
                     "during the run waits for a replace action")
        if sizes and (cap is None or _size(min(sizes), self.exact) != _size(cap, self.exact)):
            self.spare_dev = ("spare", min(sizes))
            plan.inferred.append(f"hot spares {', '.join(names)}: [pool.spares] on the {self.dev_preset} model, "
                                 f"{zfs_nicenum(min(sizes))} each from zpool list -v (the smallest); {agent}")
        else:
            self.spare_dev = (dev, None)
            where = ("zpool list -v" if sizes else "zpool status does not show their size")
            plan.inferred.append(f"hot spares {', '.join(names)}: [pool.spares] on the data disks' device {dev} "
                                 f"({where}); {agent}")

    # --- disks, capacity, allocation
    def disks(self) -> None:
        plan, opts, presets = self.plan, self.opts, self.presets
        preset = _preset(opts.device, DEFAULT_DEVICE, "--device", presets)
        self.dev_preset = preset
        kind = str(presets[preset]["spec"].get("kind", "disk"))
        if opts.device is None:
            plan.assumed.append(f"device model {preset} for every data disk: ziosim's default, as the text does not "
                                "say what the disks are (--device PRESET; `ziosim presets` lists them)")
        else:
            plan.inferred.append(f"device model {preset}: from --device")
        preset_cap = int(presets[preset]["spec"].get("capacity_bytes", 0))
        caps, cap_how = _vdev_disk_bytes(plan.vdevs, self.imp.listing, plan)
        known = [c for c in caps if c is not None]
        caps_eff = [c if c is not None else (min(known) if known else preset_cap) for c in caps]
        share = _data_share(plan.vdevs, caps_eff, self.ashift)
        self.allocation(share, caps_eff)
        usable = sum(_data_disks(v) * c for v, c in zip(plan.vdevs, caps_eff))
        how = cap_how
        if known:
            plan.inferred.append(f"disk capacity from {cap_how}")
        elif self.allocated is not None and self.allocated > 0.8 * usable:
            need = self.allocated / 0.8 / sum(_data_disks(v) for v in plan.vdevs)
            raised = 10 ** 12 * math.ceil(need / 10 ** 12)
            caps_eff = [raised] * len(caps)
            usable = sum(_data_disks(v) * c for v, c in zip(plan.vdevs, caps_eff))
            how = (f"{raised // 10 ** 12} TB, raised from the preset's {zfs_nicenum(preset_cap)} so the scanned data "
                   "fits at most 80 % full")
            known = caps_eff
            plan.assumed.append(f"disk capacity {zfs_nicenum(raised)}: unknown without zpool list, and the preset's "
                                f"{zfs_nicenum(preset_cap)} is too small for the scanned data")
        else:
            plan.assumed.append(f"disk capacity: the preset's {zfs_nicenum(preset_cap)} (no zpool list among the "
                                "files)")
        if self.allocated is not None and self.allocated > ALLOCATED_MAX_SHARE * usable:
            plan.inferred.append(f"allocated capped at {ALLOCATED_MAX_SHARE:.0%} of the usable space (the text says "
                                 f"{zfs_nicenum(self.allocated)}) so that ziosim's metadata fits")
            self.allocated = int(ALLOCATED_MAX_SHARE * usable)
        by_cap: dict[object, str] = {}
        for c in caps_eff:
            key = _size(c, self.exact) if known else None
            if key not in by_cap:
                name = kind if not by_cap else f"{kind}{len(by_cap) + 1}"
                by_cap[key] = name
                self.devices.append((name, c if known else None, how))
            self.dev_names.append(by_cap[key])

    def special_devices(self) -> None:
        """The special vdevs' disks: ``--special-device`` (default an SSD preset, as special
        vdevs are in practice), each vdev's disk capacity found as the data vdevs' is
        (``_vdev_disk_bytes`` on the ``special`` section of ``zpool list -v``, else ``zpool
        status -j``'s ``phys_space``), else the preset's. One ``[devices.special]`` per size."""
        if not self.special:
            return
        plan, opts = self.plan, self.opts
        preset = _preset(opts.special_device, DEFAULT_SPECIAL_DEVICE, "--special-device", self.presets)
        self.special_preset = preset
        kind = str(self.presets[preset]["spec"].get("kind", "disk"))
        if opts.special_device is None:
            plan.assumed.append(f"device model {preset} for the special vdevs' disks: an SSD, as special vdevs "
                                "usually are; the text does not say what they are (--special-device PRESET)")
        else:
            plan.inferred.append(f"special vdevs' device model {preset}: from --special-device")
        caps, how = _vdev_disk_bytes(self.special, self.imp.listing, plan, "special")
        if any(c is not None for c in caps):
            plan.inferred.append(f"special vdevs' disk capacity from {how}")
        else:
            plan.assumed.append(f"special vdevs' disk capacity: the preset's "
                                f"{zfs_nicenum(int(self.presets[preset]['spec'].get('capacity_bytes', 0)))} "
                                "(no size of them among the files)")
        by_cap: dict[object, str] = {}
        for c in caps:
            key = _size(c, self.exact) if c is not None else None
            if key not in by_cap:
                by_cap[key] = "special" if not by_cap else f"special{len(by_cap) + 1}"
                self.special_devs.append((by_cap[key], c, how))
            self.special_dev_names.append(by_cap[key])
        if kind == "hdd":
            plan.assumed.append(f"the special vdevs on {preset}, an HDD: metadata reads then seek as the data's do")

    def allocation(self, share: float, caps: list[int]) -> None:
        lst, st, plan = self.imp.listing, self.st, self.plan
        vdevs = plan.vdevs
        if lst is not None and lst.pool.alloc_bytes is not None:
            tops = [r for r in lst.section_rows(None) if r.depth == 1]
            if lst.verbose and len(tops) == len(vdevs) and all(r.alloc_bytes is not None for r in tops):
                self.allocated = int(sum(r.alloc_bytes * _alloc_share(v, self.ashift)  # type: ignore[operator]
                                         for r, v in zip(tops, vdevs)))
                self.alloc_how = (f"zpool list -v: each vdev's ALLOC × its data share ({_parity_words(vdevs)} "
                                  "and padding out)")
            else:
                self.allocated = int(lst.pool.alloc_bytes * share)
                self.alloc_how = (f"zpool list: ALLOC {zfs_nicenum(lst.pool.alloc_bytes)}"
                                  + (f" × {share:.3f} ({_parity_words(vdevs)} and padding out)" if share < 1 else ""))
        elif vdevs and all(v["source"].alloc_bytes is not None for v in vdevs):
            self.allocated = int(sum(v["source"].alloc_bytes * _alloc_share(v, self.ashift) for v in vdevs))
            self.alloc_how = (f"zpool status -j: each vdev's alloc_space × its data share ({_parity_words(vdevs)} "
                              "and padding out)")
        else:
            scan = next((s for s in st.scans if s.total_bytes and not s.sequential), None)
            rebuild = next((s for s in st.scans if s.total_bytes and s.sequential), None)
            idx = next((i for i, v in enumerate(vdevs) if rebuild and v["source"].name == rebuild.rebuild_vdev), None)
            if scan is not None:
                self.allocated = int(scan.total_bytes * share)  # type: ignore[operator]
                self.alloc_how = (f"the scan's total {zfs_nicenum(scan.total_bytes)}"  # type: ignore[arg-type]
                                  + (f" × {share:.3f} ({_parity_words(vdevs)} and padding out)" if share < 1 else ""))
            elif rebuild is not None and idx is not None and vdevs[idx]["type"].startswith("draid"):
                # A dRAID rebuild's total counts parity (vrs_bytes_est: its allocated ranges).
                v = vdevs[idx]
                usable = [_data_disks(u) * c for u, c in zip(vdevs, caps)]
                vshare = _alloc_share(v, self.ashift)
                self.allocated = int(rebuild.total_bytes * vshare  # type: ignore[operator]
                                     * sum(usable) / usable[idx])
                self.alloc_how = (f"the rebuild's total {zfs_nicenum(rebuild.total_bytes)} for "  # type: ignore
                                  f"{rebuild.rebuild_vdev} × {vshare:.3f} (parity and padding out), as if every "
                                  "vdev were as full")
            elif rebuild is not None and idx is not None:
                self.allocated = int(rebuild.total_bytes * sum(caps) / caps[idx])  # type: ignore[operator]
                self.alloc_how = (f"the rebuild's total {zfs_nicenum(rebuild.total_bytes)} for "  # type: ignore
                                  f"{rebuild.rebuild_vdev}, as if every vdev were as full")
        if self.allocated is not None:
            self.allocated = max(self.allocated, 1 << 20)  # at least a few sectors, whatever the text says
        if self.allocated is None:
            plan.assumed.append(f"fill {FILL_ASSUMED}: neither zpool list nor the scan line says how much is "
                                "allocated (add zpool list to the files)")

    def fragmentation(self) -> None:
        lst, plan = self.imp.listing, self.plan
        lst_frag = lst.pool.frag_percent if lst is not None else None
        if lst_frag is None:
            plan.assumed.append('layout "fresh": fragmentation unknown (zpool list FRAG gives it)')
        else:
            self.layout = "aged" if lst_frag >= FRAG_AGED_PERCENT else "fresh"
            plan.inferred.append(f'layout "{self.layout}": FRAG {lst_frag:g} % is '
                                 f'{"≥" if self.layout == "aged" else "<"} {FRAG_AGED_PERCENT} %')

    def sector_size(self) -> None:
        plan = self.plan
        for leaf in self.st.all_leaves():
            m = re.search(r"block size: (\d+)B configured", leaf.note)
            if m and int(m.group(1)) in (512, 1024, 2048, 4096, 8192):
                self.ashift = int(math.log2(int(m.group(1))))
                plan.inferred.append(f'ashift {self.ashift}: {leaf.name} says "{leaf.note}"')
                break
        else:
            plan.assumed.append("ashift 12: not in zpool status (`zdb -C POOL | grep ashift` shows it)")

    def settings(self) -> None:
        plan = self.plan
        # A suspended pool's msgid says its failmode (ZPOOL_STATUS_IO_FAILURE_WAIT: ZFS-8000-HC,
        # _CONTINUE: ZFS-8000-JQ; zfs_msgid_table in libzfs_status.c).
        see = self.st.see or ""
        self.failmode = "continue" if see.endswith("ZFS-8000-JQ") else "wait" if see.endswith("ZFS-8000-HC") else None
        if self.failmode is not None:
            plan.inferred.append(f"failmode {self.failmode}: the pool was suspended ({see}); the scenario starts "
                                 "it healthy, and it suspends again only if the failures it replays leave a "
                                 "top-level vdev with no copy")
        plan.assumed.append("recordsize 128K: ZFS's default (`zfs get recordsize POOL`); it sets the block sizes a "
                            "scan reads")
        if self.special:
            plan.assumed.append("special_small_blocks 0: ZFS's default (`zfs get special_small_blocks POOL`), so only "
                                "metadata goes to the special vdevs; set zfs.special_small_blocks to send small file "
                                "blocks there too")
            # What the real class holds, when zpool list -v says: the run places the pool's
            # contents as if the class had been there from the first write (layout.rs), so a
            # class added to a pool that already held data holds less in reality.
            lst = self.imp.listing
            rows = [r for r in lst.section_rows("special") if r.depth == 1] if lst is not None else []
            held = sum(r.alloc_bytes for r in rows if r.alloc_bytes is not None)
            real = (f"; zpool list -v shows the real special class holding {zfs_nicenum(held)}: compare the run's "
                    "special vdevs in `zpool iostat -v`") if held else ""
            plan.assumed.append("the special vdevs were there from the first write: ziosim places the pool's "
                                "contents so, while a class added to a pool that already held data has only what "
                                f"was written since (less metadata, no older small blocks){real}")
        plan.assumed.append("ram 16G: ziosim's default; set zfs.ram to the host's RAM (it sizes "
                            "zfs_dirty_data_max and the scan's memory)")
        if not self.imp.confs:
            plan.assumed.append("tunables: the release's defaults (zpool status does not show them)")
        if not at_least(self.release, "zfs-0.8"):
            plan.assumed.append(f"hz {default_hz(self.release)}: the release's usual tick rate; its scrub and "
                                "resilver delays count ticks (a FreeBSD VM often runs kern.hz=100; set zfs.hz)")

    def tunables(self) -> None:
        if not self.imp.confs:
            return
        self.audit = conf_mod.audit(self.imp.confs, self.release)
        n = len(conf_mod.applied(self.audit))
        files = ", ".join(dict.fromkeys(c.file for c in self.imp.confs))
        self.plan.assumed.append(f"tunables: the release's defaults except the {n} set by {files} (audited below); "
                                 "check that the files are what the machine runs")

    # --- what happens
    def happenings(self) -> None:
        plan, st = self.plan, self.st
        # Hot spares go in first, while every disk still answers (see member), then failures,
        # then replacements.
        inuse = set(self.spares_in_use) | set(self.dspares_in_use)
        acts = sorted(plan.actions, key=lambda a: -1 if a[0]["do"] == "replace" and a[0]["new"] in inuse
                      else {"fail": 0, "offline": 0, "replace": 1}.get(a[0]["do"], 2))
        active = [s for s in st.scans if s.active]
        scrub = next((s for s in active if s.func == "scrub"), None)
        rebuild = next((a for a, _ in acts if a["do"] == "replace" and a.get("sequential")), None)
        if scrub is not None and rebuild is not None:
            # A scrub cannot start while a rebuild runs (zpool scrub: "currently sequentially
            # resilvering"); the rebuild's end starts one (vdev_rebuild_complete_sync,
            # zfs_rebuild_scrub_enabled, module/zfs/vdev_rebuild.c@zfs-2.1.0).
            plan.inferred.append(f"the scrub in progress: no scrub action, as none can start during the sequential "
                                 f"rebuild the replace of {rebuild['old']} starts at 0s; its end starts one "
                                 "(zfs_rebuild_scrub_enabled), as it did on the real pool, and that scrub is the "
                                 "one to compare")
        elif scrub is not None:
            acts.append(({"do": "scrub"}, "the scrub in progress"
                         + (" (paused in the text; it runs unpaused here)" if scrub.state == "paused" else "")))
        elif any(s.func == "resilver" for s in active) and not any(a[0]["do"] == "replace" for a in acts):
            acts.append(({"do": "scrub"}, "a resilver is in progress but no disk is being replaced or shows "
                                          "(resilvering): modelled as a scrub of the whole pool"))
        acts += self.deferred_resilvers()
        rerun = {v["source"].name for v in plan.vdevs for a, _ in acts
                 if a["do"] == "replace" and a.get("sequential") and a["old"] in v["names"]}
        for s in st.scans:
            if s.state == "finished" and s.rebuild_vdev in rerun:
                plan.inferred.append(f"the rebuild of {s.rebuild_vdev} finished in {s.took}; the replace above runs "
                                     "it again from 0s, as a scenario cannot start with a spare already rebuilt")
            elif s.state == "finished":
                plan.inferred.append(f"the last {s.func} finished in {s.took}: no action; to simulate one, "
                                     f"{self.how_to_scan(s.func)} and set stop = \"scan-done\"")
            elif s.state == "canceled":
                plan.inferred.append(f"the last {s.func} was canceled: no action")
        self.acts = acts
        s = compared_scan(st)
        if s is not None:
            self.real_scan, self.elapsed_s = s, s.elapsed_estimate_s()
            if self.elapsed_s is not None and s.eta_s is not None:
                self.total_s = self.elapsed_s + s.eta_s
            printed = s.started or s.since
            when = status_mod.parse_ctime(printed)
            if when is not None:
                self.start_time = when.strftime("%Y-%m-%d %H:%M:%S")
            elif printed:
                # A localised date (LC_TIME=de_DE: "Sa Okt 14 …"): say so rather than drop it unseen.
                epoch = _dt.datetime.fromtimestamp(DEFAULT_EPOCH_S, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
                plan.assumed.append(
                    f'start_time left out: the scan\'s start "{printed.strip()}" is no C-locale date (as in '
                    f'"Sat Oct 14 00:00:01 2023"), so simulated dates start at {epoch}; set scenario.start_time = '
                    '"YYYY-MM-DD HH:MM:SS" to the real start for zpool status dates to line up')
        if any(a[0]["do"] in ("scrub", "replace") for a in acts):
            self.stop = "scan-done"
            guess = self.total_s
            s = self.real_scan
            if guess is None and s is not None and self.elapsed_s and s.done_percent:
                guess = int(self.elapsed_s * 100 / s.done_percent)
            if guess:
                self.interval = next((i for i in REPORT_INTERVALS if _INTERVAL_S[i] * 24 >= guess), "6h")

    def how_to_scan(self, func: str) -> str:
        """The actions that start a scan like ``func``: a scrub's is a scrub; a resilver's is
        a disk failing and its replacement (a scrub copies nothing to any disk), the disk one
        of a redundant vdev's so that the pool survives the failure."""
        if func != "resilver":
            return 'add [[action]] do = "scrub"'
        redundant = [v for v in self.plan.vdevs if v["type"] != "disk" and v["names"]]
        disk = redundant[0]["names"][-1] if redundant else None
        if disk is None:
            return ('add [[action]] do = "replace" with old = a disk and new = a new name (a resilver onto the new '
                    "disk; the pool has no redundant vdev to fail a disk of)")
        return (f'add [[action]] do = "fail", disk = "{disk}", then [[action]] do = "replace", old = "{disk}", '
                f'new = "{disk}-new" (a failed disk\'s resilver; a scrub copies nothing)')

    def deferred_resilvers(self) -> list[tuple[dict, str]]:
        """A disk marked "(awaiting resilver)" (0.8+, ``vs_resilver_deferred``) needs a
        resilver that waits for the running one to end (``resilver_defer``): a second
        resilver, so the pool is fully redundant later than the running one's ETA says.
        Modelled as a replace by a new disk after the running resilver has started, which
        ziosim defers the same way — an upper bound, as the real disk misses only the txgs
        of its outage, which the text does not tell."""
        out = []
        for name in self.awaiting:
            new = self.new_name(name)
            defers = at_least(self.release, "zfs-0.8")
            self.plan.inferred.append(
                f"{name} (awaiting resilver): the real pool runs a second, deferred resilver of {name} after the "
                "running one ends, so full redundancy comes later than the running resilver's ETA says; modelled as "
                f"a replace by a new disk {new} at {_DEFERRED_AT}, "
                + ("which waits for the running resilver as ZFS's does — an upper bound, as the real disk missed "
                   "only the txgs of its outage; compare the real resilver below with the first of summary.json's "
                   "scans, not the last"
                   if defers else f"which on {self.release} restarts the running resilver (no deferral before 0.8)"))
            out.append(({"at": _DEFERRED_AT, "do": "replace", "old": name, "new": new},
                        f"{name} shows (awaiting resilver): its resilver waits for the running one"))
        return out

    def workload_from_iostat(self) -> None:
        io, opts, plan = self.imp.iostat, self.opts, self.plan
        if io is not None:
            p = io.pool
            busiest = max(io.data_leaves(), key=lambda r: r.read_ops_per_s + r.write_ops_per_s, default=None)
            plan.inferred.append(
                f"observed load (zpool iostat -v, {io.file} line {p.line}, the last of {io.samples} sample"
                f"{'s' if io.samples > 1 else ''}): {p.read_ops_per_s} reads/s {zfs_nicenum(p.read_bytes_per_s)}/s, "
                f"{p.write_ops_per_s} writes/s {zfs_nicenum(p.write_bytes_per_s)}/s"
                + (f"; busiest disk {busiest.name}: {busiest.read_ops_per_s} reads/s, {busiest.write_ops_per_s} "
                   "writes/s" if busiest is not None else ""))
        if not opts.workload_from_iostat:
            plan.assumed.append("workload: none, as the real load is unknown; add [[workload]] tables "
                                "(docs/scenario.md)" + (" or pass --workload-from-iostat"
                                                        if io is not None or self.imp.iostat_x is not None else ""))
            return
        if io is None and self.imp.iostat_x is not None:
            self.workload_from_iostat_x(self.imp.iostat_x)
            return
        if io is None:
            raise ScenarioError("--workload-from-iostat: no zpool iostat -v output among the files — allowed: add a "
                                "file with the output of zpool iostat -v POOL INTERVAL COUNT")
        p = io.pool
        raidz = [v.name for v in self.st.vdevs if v.kind.startswith(("raidz", "draid"))]
        if raidz:
            # From 0.7.0 the pool and vdev rows add up their disks' I/Os (vdev_get_stats_ex,
            # as ziosim's own zpool iostat prints them): a raidz block's read counts once per
            # data column it touches, which depends on its size. Older releases' pool rows
            # were not read in the source. Either way the pool's own reads are not there.
            raise ScenarioError(
                f"--workload-from-iostat: {io.file}:{p.line}: the pool row of zpool iostat -v adds up its disks' "
                f"reads, and a read of a block on {', '.join(raidz)} counts once per data column it touches, so "
                "the pool's own reads per second cannot be told — allowed: a pool of mirrors and single disks, or "
                "describe the load with [[workload]] tables (docs/scenario.md)")
        ops, rbytes, where = p.read_ops_per_s, p.read_bytes_per_s, "the pool row: its disks' reads added up"
        if any(r.is_label and r.name == "special" for r in io.rows):
            # The pool row adds up every top-level vdev, logs and special ones too
            # (vdev_get_stats_ex_impl at the root, vdev.c@zfs-2.2.0).
            # With special_small_blocks assumed 0 (`settings`) the special vdevs' reads are
            # metadata, which the run's reads make for themselves: the data vdevs' rows are
            # the workload's reads.
            tops = []
            for r in io.rows:
                if r.is_label:
                    break
                if r.depth == 1:
                    tops.append(r)
            ops, rbytes = sum(r.read_ops_per_s for r in tops), sum(r.read_bytes_per_s for r in tops)
            where = "the data vdevs' rows, without the special class's: their disks' reads added up"
        if ops <= 0:
            plan.assumed.append("workload: none, as zpool iostat -v shows no reads")
            return
        size = min(max(round(rbytes / ops / 512) * 512, 512), 16 << 20)
        plan.assumed.append(f"workload: random reads at the observed {ops}/s of {zfs_nicenum(size)} "
                            f"({where}, and a mirror read goes to one disk), Poisson "
                            "arrivals, no ARC hits; writes are left out, and the observed reads include any scrub or "
                            "resilver reads of that moment")
        self.workload = {"name": "observed", "kind": "random-read", "size": zfs_nicenum(size), "rate": ops}

    def workload_from_iostat_x(self, x: iostat_x_mod.IostatX) -> None:
        """Pool reads from disk reads: mirrors and single disks only (module docstring, 6)."""
        plan, st = self.plan, self.st
        raidz = [v.name for v in st.vdevs if v.kind.startswith(("raidz", "draid"))]
        where = f"{x.file}:{x.header_line}"
        if raidz:
            raise ScenarioError(
                f"--workload-from-iostat: {where}: iostat -x shows each disk's reads, and a read of a block on "
                f"{', '.join(raidz)} touches one to all of its data disks depending on the block's size, which "
                "iostat -x does not show — allowed: zpool iostat -v POOL INTERVAL COUNT beside it (its pool row), "
                "or iostat -x of a pool of mirrors and single disks")
        leaves = [leaf.name for v in st.vdevs for leaf in v.leaves()]
        m = iostat_x_mod.match_devices(leaves, x)
        if m.no_row:
            raise ScenarioError(
                f"--workload-from-iostat: {where}: no iostat -x row for the pool "
                f"disk{'s' if len(m.no_row) > 1 else ''} {', '.join(m.no_row)}, so the pool's reads cannot be added up — allowed: iostat -x naming every "
                "data disk as the kernel does (sysstat iostat -j ID prints /dev/disk/by-id names), or zpool iostat -v")
        ops = sum(m.disks[leaf].read_ops_per_s for leaf in leaves)
        rbytes = sum(m.disks[leaf].read_bytes_per_s for leaf in leaves)
        if ops <= 0:
            plan.assumed.append("workload: none, as iostat -x shows no reads on the pool's data disks")
            return
        rate = round(ops, 1) if ops < 100 else round(ops)
        size = min(max(round(rbytes / ops / 512) * 512, 512), 16 << 20)
        plan.assumed.append(
            f"workload: random reads at {rate}/s of {zfs_nicenum(size)}, the sum of the data disks' r/s in iostat -x "
            f"({where}; a mirror read goes to one disk, so the disks' reads add up to the pool's) and their mean "
            "read; Poisson arrivals, no ARC hits; writes are left out, and a scrub or resilver of that moment reads "
            "every copy, so its reads are counted in")
        self.workload = {"name": "observed", "kind": "random-read", "size": zfs_nicenum(size), "rate": rate}

    def iostat_x(self) -> None:
        """Quote the data disks' load from iostat -x and zpool iostat -l, flag stragglers in
        one of them (``disk_figures``) and model each (module docstring, 6b–6c)."""
        x, io = self.imp.iostat_x, _latency_sample(self.imp)
        if x is None and io is None:
            return
        self.figures, why = disk_figures(self.imp)
        self.stragglers = straggler_models(self.imp, self.opts, self.presets)
        if x is not None:
            self.iostat_lines += _iostat_x_lines(self.st, x, self.figures, self.stragglers)
        if io is not None:
            self.iostat_lines += _iostat_l_lines(self.st, io, self.release, self.figures, why, self.stragglers)
        f = self.figures
        for sm in self.stragglers:
            if sm.device is not None and f is not None:
                queue = ("" if f.busy is not None else
                         "; zpool iostat prints no %busy, so unlike iostat -x's the wait in the drive's own queue is "
                         "not taken out of its disk_wait, only bounded (a disk serves a command in at most "
                         "1 s ÷ its commands per second): the slowdown is overestimated when the disk is not busy "
                         "all the time")
                self.plan.assumed.append(
                    f"straggler {sm.straggler.leaf}: its slower reads are modelled as media read recovery (device "
                    f"{sm.device}), the least variable recovery that gives its measured mean; the real cause may "
                    "be another (a weak head, vibration, a bad cable's retries) with another spread of latencies"
                    f"{queue} (the {f.tool} block below; docs/import.md; --no-straggler-model leaves it out)")

    def disk_devices(self, i: int) -> list[str]:
        """Device of each disk of data vdev ``i``: its capacity's device, a straggler its own."""
        own = {sm.straggler.leaf: sm.device for sm in self.stragglers if sm.device is not None}
        return [own.get(n, self.dev_names[i]) for n in self.plan.vdevs[i]["names"]]

    # --- the text
    def header(self) -> list[str]:
        imp, st, plan = self.imp, self.st, self.plan
        out = [f"Imported by `ziosim import {' '.join(imp.files)}`: pool {st.name}.", "Read:"]
        out += [f"  {f}" for f in imp.found]
        if plan.inferred:
            out.append("Inferred from the text:")
            out += [f"  {x}" for x in plan.inferred]
        out.append("Assumed — check each against the real system:")
        out += [f"  {x}" for x in plan.assumed]
        out += [f"  left out: {x}" for x in plan.ignored]
        if self.audit:
            plat = conf_mod.platform_of(imp.confs, self.release)
            out.append(f"Tunables files, audited for {self.release} on {plat} (FILE:LINE SETTING: VERDICT — why):")
            out += [f"  {r.describe()}" for r in self.audit]
        out += self.iostat_lines
        s = self.real_scan
        if s is not None:
            ln = s.lines
            what = f"rebuild of {s.rebuild_vdev}" if s.sequential else s.func
            where = f"line {ln[0].number}" if len(ln) == 1 else f"lines {ln[0].number}-{ln[-1].number}"
            out.append(f"Real {what} ({st.file} {where}):")
            out += ["  " + x.text.strip() for x in ln]
            out.append("  " + _scan_reading(s))
            if s.inconsistency() is not None:
                out.append(f"  inconsistent: {s.inconsistency()}")
            if self.elapsed_s is not None:
                eta = (f"; the release's ETA {s.eta}" if s.eta_s is not None
                       else f"; no ETA ({s.eta or 'none printed'})")
                tot = f"; real total ≈ {_dur(self.total_s)} (elapsed + ETA)" if self.total_s is not None else ""
                how = "as printed" if s.elapsed_s is not None else "bytes so far ÷ the pass-average rate"
                out.append(f"  elapsed ≈ {_dur(self.elapsed_s)} ({how}){eta}{tot}")
                real = (f"the real total ≈ {_dur(self.total_s)}" if self.total_s is not None
                        else f"the real elapsed ≈ {_dur(self.elapsed_s)} and however long it still takes")
            else:
                out.append(f"  {s.state}: zpool status prints no rate and no ETA, so the real duration is unknown")
                real = "the real scan's duration once it has finished"
            out.append('Compare: the simulated scan time (summary.json scan.duration_ns, or the "in TIME" of the last')
            out.append(f"  zpool status `ziosim run` prints) with {real}.")
            out.append("  ziosim simulates the whole scan from its start, not only the part still to go.")
        out.append('Use: ziosim run FILE; ziosim advise FILE (add a workload first to bound its latency with --limit).')
        return [_comment(x) for x in out]

    def emit(self) -> str:
        st, plan, q = self.st, self.plan, _q
        out = self.header()
        c = out.append
        c("")
        c("[scenario]")
        c(f"name = {q(st.name)}")
        c(f"stop = {q(self.stop)}")
        c(f"report_interval = {q(self.interval)}")
        if self.start_time is not None:
            c(f"start_time = {q(self.start_time)}   # the real scan's start, so zpool status dates line up")
        c("")
        c("[zfs]")
        c(f"release = {q(self.release)}")
        chosen = conf_mod.applied(self.audit)
        if chosen:
            c("")
            c("[zfs.tunables]   # from the tunables files; their audit is in the header")
        for name, r in chosen.items():
            note = {"REDUNDANT": f": the {self.release} default", "UNSAFE": ": UNSAFE, see the header"}
            c(f"{name} = {r.number}   # {r.where}{note.get(r.verdict, '')}")
        for name, cap, how in self.devices:
            c("")
            c(f"[devices.{name}]")
            c(f"like = {q(self.dev_preset)}")
            if cap is not None:
                c(f"capacity = {q(_capacity(cap, self.exact))}   # {zfs_nicenum(cap)}: {how}")
        f = self.figures
        for sm in self.stragglers:
            if sm.device is None or f is None:
                continue
            i = next(i for i, v in enumerate(plan.vdevs) if sm.straggler.leaf in v["names"])
            cap = next(cap for name, cap, _ in self.devices if name == self.dev_names[i])
            c("")
            c(f"[devices.{_key(sm.device)}]   # the straggler {sm.straggler.leaf} (header: {f.tool})")
            c(_comment(f"{sm.straggler.leaf}: {_measured_words(sm, f)}: {_recovery_words(sm)}"))
            c(f"like = {q(sm.preset)}")
            if cap is not None:
                c(f"capacity = {q(_capacity(cap, self.exact))}   # as its vdev's other disks")
            c(f"read_recovery_probability = {q(sm.probability)}")
            c(f"read_recovery_revolutions_mean = {q(sm.revolutions_mean)}")
        for name, cap, how in self.special_devs:
            c("")
            c(f"[devices.{name}]   # the special vdevs' disks")
            c(f"like = {q(self.special_preset)}" + ("   # assumed: see the header (--special-device)"
                                                   if self.opts.special_device is None else ""))
            if cap is not None:
                c(f"capacity = {q(_capacity(cap, self.exact))}   # {zfs_nicenum(cap)}: {how}")
        if self.logs:
            lp = _preset(self.opts.log_device, DEFAULT_LOG_DEVICE, "--log-device", self.presets)
            c("")
            c("[devices.slog]")
            c(f"like = {q(lp)}" + ("   # assumed: the text does not say what the log devices are (--log-device)"
                                   if self.opts.log_device is None else ""))
        if self.cache:
            cp = _preset(self.opts.cache_device, DEFAULT_CACHE_DEVICE, "--cache-device", self.presets)
            c("")
            c("[devices.l2arc]")
            c(f"like = {q(cp)}" + ("   # assumed: the text does not say what the cache devices are "
                                   "(--cache-device)" if self.opts.cache_device is None else ""))
        if self.spare_dev is not None and self.spare_dev[1] is not None:
            dev, cap = self.spare_dev
            c("")
            c(f"[devices.{dev}]   # the hot spares")
            c(f"like = {q(self.dev_preset)}")
            c(f"capacity = {q(_capacity(cap, self.exact))}   # {zfs_nicenum(cap)}: zpool list -v")
        c("")
        c("[pool]")
        c(f"name = {q(st.name)}")
        c(f"ashift = {self.ashift}")
        c('recordsize = "128K"   # assumed')
        if self.allocated is not None:
            c(f"allocated = {q(_size(self.allocated, self.exact))}   # {self.alloc_how}")
        else:
            c(f"fill = {FILL_ASSUMED}   # assumed")
        c(f"layout = {q(self.layout)}")
        if self.failmode is not None:
            c(f"failmode = {q(self.failmode)}   # the pool was suspended: {st.see}")
        for i, (v, dev) in enumerate(zip(plan.vdevs, self.dev_names)):
            src: Vdev = v["source"]
            c("")
            c(f"[[pool.vdevs]]   # {src.name} {src.state} ({st.file} line {src.line})")
            c(f"type = {q(v['type'])}")
            if v["type"] != "disk":
                c(f"disks = {len(v['names'])}")
            if "data" in v:
                c(f"data = {v['data']}")
                own = [n for n, z in self.dspare_vdev.items() if z == i]
                c(f"spares = {v['spares']}" + (f"   # distributed: {', '.join(own)}" if own else ""))
            each = self.disk_devices(i)
            if each == [dev] * len(each):
                c(f"device = {q(dev)}")
            else:
                c(f"devices = {q(each)}   # one per disk, in the order of names")
            c(f"names = {q(v['names'])}")
        for sp, dev in zip(self.special, self.special_dev_names):
            src = sp["source"]
            c("")
            c(f"[[pool.special]]   # special: {src.name} {src.state} ({st.file} line {src.line})")
            c(f"type = {q(sp['type'])}")
            if sp["type"] != "disk":
                c(f"disks = {len(sp['names'])}")
            c(f"device = {q(dev)}")
            c(f"names = {q(sp['names'])}")
        for lg in self.logs:
            c("")
            c(f"[[pool.log]]   # logs: {lg['source'].name}")
            c('device = "slog"')
            c(f"count = {len(lg['names'])}")
            if lg["mirror"]:
                c("mirror = true")
            c(f"names = {q(lg['names'])}")
        if self.cache:
            c("")
            c("[pool.cache]")
            c('device = "l2arc"')
            c(f"count = {len(self.cache['names'])}")
            c(f"names = {q(self.cache['names'])}")
        if self.spare_dev is not None:
            dev = self.spare_dev[0]
            c("")
            inuse = set(self.spares_in_use)
            c("[pool.spares]   # " + ", ".join(f"{n} {'INUSE' if n in inuse else 'AVAIL'}" for n in self.spares))
            c(f"device = {q(dev)}")
            c(f"count = {len(self.spares)}")
            c(f"names = {q(self.spares)}")
            if self.spares_auto is not None:
                c(f"auto = {'true' if self.spares_auto else 'false'}   # see the header")
        elif self.spares_auto is not None:
            c("")
            c("[pool.spares]   # no hot spares: only whether zed puts the distributed spares in")
            c(f"auto = {'true' if self.spares_auto else 'false'}   # see the header")
        if self.workload is not None:
            c("")
            c("[[workload]]   # --workload-from-iostat")
            for k in ("name", "kind", "size", "rate"):
                c(f"{k} = {q(self.workload[k])}")
        for act, why in self.acts:
            c("")
            c(f"[[action]]   # {why}")
            c(f"at = {q(act.get('at', '0s'))}")
            for k, val in act.items():
                if k != "at":
                    c(f"{k} = {q(val)}")
        return "\n".join(out) + "\n"


def _vdev_disk_bytes(vdevs: list[dict], listing: PoolList | None, plan: _Plan,
                     section: str | None = None) -> tuple[list[int | None], str]:
    """Per data vdev (per special vdev with ``section`` "special"), the capacity of one
    disk from zpool list, else from the disks' ``phys_space`` in ``zpool status -j`` (None:
    unknown), and how. A class takes nothing from the pool's SIZE alone, which is mostly
    the data vdevs' (and for them counts the special class's space too: vdev_space_update)."""
    if listing is None:
        sizes = [[d.size_bytes for d in v["source"].leaves() if d.size_bytes and not d.dspare] for v in vdevs]
        if sizes and all(sizes):
            how = "; ".join(f"{v['source'].name} smallest disk phys_space {zfs_nicenum(min(s))}"
                            for v, s in zip(vdevs, sizes))
            return [min(s) for s in sizes], "zpool status -j: " + how
        return [None] * len(vdevs), ""
    rows = listing.section_rows(section)
    tops = [r for r in rows if r.depth == 1]
    if section is not None and not (listing.verbose and len(tops) == len(vdevs)):
        return _vdev_disk_bytes(vdevs, None, plan, section)
    if listing.verbose and len(tops) == len(vdevs):
        out: list[int | None] = []
        how = []
        for v, top in zip(vdevs, tops):
            under = []
            for r in rows[rows.index(top) + 1:]:
                if r.depth <= 1:
                    break
                if r.size_bytes is not None and status_mod.dspare_name(r.name) is None:
                    under.append(r.size_bytes)  # a distributed spare is no disk
            if under:
                out.append(min(under))
                how.append(f"{top.name} smallest disk SIZE {zfs_nicenum(min(under))}")
            elif top.size_bytes is not None:
                raw = _raw_disks(v)
                out.append(top.size_bytes // raw)
                how.append(f"{top.name} SIZE {zfs_nicenum(top.size_bytes)}" + (f" ÷ {raw}" if raw > 1 else "")
                           + (" (children − distributed spares, as vdev_draid_open sizes a dRAID)"
                              if v["type"].startswith("draid") else ""))
            else:
                out.append(None)
        return out, "zpool list -v: " + "; ".join(how)
    if listing.verbose:
        plan.inferred.append(f"zpool list -v shows {len(tops)} top-level vdevs and zpool status {len(vdevs)}: its "
                             "per-vdev sizes are not used")
    raw = sum(_raw_disks(v) for v in vdevs)
    size = listing.pool.size_bytes or 0
    return [size // raw] * len(vdevs), (f"zpool list: SIZE {zfs_nicenum(size)} ÷ {raw} "
                                        f"disk{'s' if raw > 1 else ''} of raw space")


def _data_share(vdevs: list[dict], caps: list[int], ashift: int) -> float:
    """Data bytes per raw allocated byte over the pool (`_alloc_share` of each vdev),
    each vdev weighted by its raw size."""
    raw = sum(_raw_disks(v) * c for v, c in zip(vdevs, caps))
    data = sum(_alloc_share(v, ashift) * _raw_disks(v) * c for v, c in zip(vdevs, caps))
    return data / raw if raw else 1.0


def _scan_reading(s: Scan) -> str:
    """What the importer read from the scan lines, in words."""
    nb = zfs_nicenum
    parts = [f"read as: {'sequential rebuild' if s.sequential else s.func}, {s.state}"]
    if s.scanned_bytes is not None:
        parts.append(f"scanned {nb(s.scanned_bytes)}" + (f" of {nb(s.total_bytes)}" if s.total_bytes else ""))
    if s.issued_bytes is not None:
        parts.append(f"issued {nb(s.issued_bytes)}"
                     + (f" of {nb(s.issue_total_bytes)}" if s.issue_total_bytes is not None else ""))
    if s.scan_rate_bytes_per_s:
        parts.append(f"scan rate {nb(s.scan_rate_bytes_per_s)}/s")
    if s.issue_rate_bytes_per_s:
        parts.append(f"issue rate {nb(s.issue_rate_bytes_per_s)}/s")
    if s.processed_bytes is not None:
        parts.append(f"{'repaired' if s.func == 'scrub' else 'resilvered'} {nb(s.processed_bytes)}")
    if s.done_percent is not None:
        parts.append(f"{s.done_percent:.2f}% done")
    return "; ".join(parts)


# ----------------------------------------------------------------------------- iostat -x, zpool iostat -l


def _peer_groups(st: PoolStatus) -> list[tuple[str, list[str]]]:
    """Data disks that should see the same load: one group per vdev, or one for the pool
    when its data vdevs are all of one type. Disks being replaced or resilvered, under a
    spare, or not ONLINE are left out (their load differs by design)."""
    def steady(v: Vdev) -> list[str]:
        if v.kind in ("replacing", "spare"):
            return []
        if v.kind == "disk":
            return [v.name] if v.state == "ONLINE" and not _resilvering(st, v) else []
        return [n for c in v.children for n in steady(c)]

    vdevs = list(st.vdevs)
    kinds = {_vdev_type(v) for v in vdevs}
    if len(kinds) == 1 and len(vdevs) > 1:
        kind = kinds.pop()
        return [(f"the pool's {kind} disks", [n for v in vdevs for n in steady(v)])]
    return [(v.name, steady(v)) for v in vdevs]


def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f} ms"


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


@dataclass(frozen=True)
class DiskFigures:
    """The per-disk figures stragglers are looked for in (module docstring, 6b–6c):
    ``iostat -x``, or the read ``disk_wait`` of ``zpool iostat -l``."""

    tool: str  # "iostat -x" or "zpool iostat -l"
    file: str
    column: str  # the time compared: r_await, ms/r, await, svc_t, asvc_t, ms/t; or "disk_wait read"
    busy: str | None  # "%util" or "%b"; None: zpool iostat prints no busy share
    per_read: bool  # ``column`` times reads only
    groups: tuple[tuple[str, tuple[tuple[str, iostat_x_mod.DiskStat], ...]], ...]  # _peer_groups, matched

    @property
    def comparable(self) -> bool:
        """Some group has two disks with figures: stragglers can be looked for."""
        return any(len(ms) > 1 for _, ms in self.groups)


def _busy_label(x: iostat_x_mod.IostatX) -> str:
    return "%util" if x.flavour == "linux" else "%b"


def _matched_groups(st: PoolStatus, x: iostat_x_mod.IostatX) -> list[tuple[str, list]]:
    m = iostat_x_mod.match_devices(_device_leaves(st), x)
    return [(label, [(n, m.disks[n]) for n in names if n in m.disks]) for label, names in _peer_groups(st)]


_DEV = re.compile(r"^/dev/(?:r?dsk/)?")


def _device_leaves(st: PoolStatus) -> list[str]:
    """The pool's leaves that are devices: a dRAID's distributed spares are not."""
    return [leaf.name for leaf in st.all_leaves() if not leaf.dspare]


def _l_rows(st: PoolStatus, io: IostatSample) -> dict[str, iostat_mod.IostatRow]:
    """Each pool disk's row: the same name, as zpool prints both (``/dev/`` aside, for ``-P``)."""
    by: dict[str, iostat_mod.IostatRow] = {}
    for r in io.rows:
        if not r.is_label:
            by.setdefault(_DEV.sub("", r.name), r)
    return {n: by[_DEV.sub("", n)] for n in _device_leaves(st) if _DEV.sub("", n) in by}


def _figures_x(st: PoolStatus, x: iostat_x_mod.IostatX) -> DiskFigures:
    groups = tuple((label, tuple(ms)) for label, ms in _matched_groups(st, x))
    return DiskFigures("iostat -x", x.file, x.service_column, _busy_label(x), x.service_column in ("r_await", "ms/r"),
                       groups)


def _figures_l(st: PoolStatus, io: IostatSample) -> DiskFigures:
    rows = _l_rows(st, io)
    groups = tuple((label, tuple((n, iostat_mod.disk_stat(rows[n])) for n in names if n in rows))
                   for label, names in _peer_groups(st))
    return DiskFigures("zpool iostat -l", io.file, "disk_wait read", None, True, groups)


def _latency_sample(imp: Imported) -> IostatSample | None:
    return imp.iostat if imp.iostat is not None and imp.iostat.has_latency else None


def disk_figures(imp: Imported) -> tuple[DiskFigures | None, str]:
    """The figures stragglers are looked for in, and why those when both tools were given:
    ``iostat -x`` first, as its %busy lets the drive's own queueing be taken out; ``zpool
    iostat -l`` when it is alone, or when ``iostat -x`` matched no two disks of a group."""
    x, io = imp.iostat_x, _latency_sample(imp)
    fx = _figures_x(imp.status, x) if x is not None else None
    fl = _figures_l(imp.status, io) if io is not None else None
    if fx is None or fl is None:
        return fx or fl, ""
    if fx.comparable or not fl.comparable:
        return fx, ("stragglers: looked for in iostat -x (above), whose %util lets the wait in the drive's own queue "
                    "be taken out; this disk_wait is not used for them")
    return fl, ("stragglers: looked for here, as iostat -x (above) matched no two data disks of a vdev or of a vdev "
                "type")


def _load(d: iostat_x_mod.DiskStat, x: iostat_x_mod.IostatX) -> str:
    return (f"{d.read_ops_per_s:.1f} r/s {zfs_nicenum(int(d.read_bytes_per_s))}/s, {d.write_ops_per_s:.1f} w/s "
            f"{zfs_nicenum(int(d.write_bytes_per_s))}/s, {x.service_column} {_ms(d.service_ms)}, "
            f"{_busy_label(x)} {_pct(d.busy_percent)}")


def _load_l(r: iostat_mod.IostatRow) -> str:
    w = r.waits or iostat_mod.Waits()
    t = iostat_mod.wait_text
    return (f"{r.read_ops_per_s} r/s {zfs_nicenum(r.read_bytes_per_s)}/s, {r.write_ops_per_s} w/s "
            f"{zfs_nicenum(r.write_bytes_per_s)}/s; disk_wait read {t(w.disk_wait_read_ns)} write "
            f"{t(w.disk_wait_write_ns)}; total_wait read {t(w.total_wait_read_ns)} write {t(w.total_wait_write_ns)}")


def _straggler_text(s: iostat_x_mod.Straggler, f: DiskFigures) -> str:
    ops = "r/s" if f.per_read else "I/Os per s"
    why = " and ".join(w for w, on in (("slow", s.slow), ("busy", s.busy)) if on)
    busy = f", {f.busy} {_pct(s.disk.busy_percent)}" if f.busy else ""
    peer_busy = f", {f.busy} {_pct(s.peer_busy_percent)}" if f.busy else ""
    return (f"straggler ({why}): {s.leaf} in {s.group}: {f.column} {_ms(s.disk.service_ms)} at "
            f"{s.disk.service_ops_per_s:.1f} {ops}{busy}; its {s.peers} peers' median "
            f"{_ms(s.peer_service_ms)}{peer_busy} ({f.file} line {s.disk.line})")


def _rule(f: DiskFigures) -> str:
    m = iostat_x_mod
    slow = (f"{f.column} > {m.SLOW_FACTOR:g}× the peers' median and ≥ {m.SLOW_MS_MIN:g} ms at ≥ "
            f"{m.OPS_MIN_PER_S:g} I/Os per s")
    if f.busy is None:
        return slow + "; no busy test, as zpool iostat prints no %busy"
    return (f"{slow}, or {f.busy} ≥ {m.BUSY_PERCENT_MIN:g} with the peers' median at most "
            f"{m.BUSY_PEER_SHARE_MAX:g}× its own")


@dataclass(frozen=True)
class StragglerModel:
    """What the scenario makes of one straggler: its own device with read recovery, or why not."""

    straggler: iostat_x_mod.Straggler
    device: str | None = None  # "<leaf>-slow", a [devices] table; None: not modelled
    preset: str = ""
    probability: float = 0.0
    revolutions_mean: float = 1.0
    own_ms: float = 0.0  # service time per read without queueing (iostat_x.device_service_ms)
    peers_ms: float = 0.0
    rev_ms: float = 0.0
    mean_ms: float = 0.0  # mean recovery per read once the drive's time limit cuts the longest
    why_not: str = ""  # when device is None


def _sig(v: float) -> float:
    """Three significant digits: what a TOML line and a reader need of a calibration."""
    return float(f"{v:.3g}")


def straggler_models(imp: Imported, opts: Options, presets: dict) -> list[StragglerModel]:
    """Each straggler's recovery, calibrated from its own measurement (module docstring, 6b):
    Δ = its service time per read − its peers' median (both without queueing where the
    figures allow it: iostat -x; zpool iostat -l's disk_wait as printed); with T_rev the
    preset's revolution, every read recovers for Δ / T_rev revolutions on average when
    Δ ≥ T_rev, else a share Δ / T_rev of the reads for one revolution — the least variable
    recovery with that mean (each recovery is whole revolutions)."""
    f, _ = disk_figures(imp)
    if f is None:
        return []
    preset = _preset(opts.device, DEFAULT_DEVICE, "--device", presets)
    spec = presets[preset]["spec"]
    out = []
    for s in iostat_x_mod.stragglers(f.groups):
        own, peers = iostat_x_mod.device_service_ms(s.disk), s.peer_device_ms
        if not opts.straggler_model:
            out.append(StragglerModel(s, why_not="--no-straggler-model"))
        elif spec.get("kind") != "hdd" or not spec.get("rpm"):
            what = {"ssd": "an SSD"}.get(str(spec.get("kind")), f"a {spec.get('kind')} device")
            out.append(StragglerModel(s, why_not=f"its vdev's device {preset} is {what}, and only ziosim's HDD "
                                                 "model has read recovery to make one disk slower"))
        elif own is None or peers is None:
            out.append(StragglerModel(s, why_not=f"no {f.column} of its own or of peers doing at least "
                                                 f"{iostat_x_mod.OPS_MIN_PER_S:g} I/Os per s to calibrate from"))
        elif own <= peers:
            out.append(StragglerModel(s, why_not=f"without queueing its {f.column} ({_ms(own)}) is no "
                                                 f"longer than its peers' median ({_ms(peers)}): its extra busy "
                                                 "time is not slower reads"))
        else:
            rev_ms = 60_000 / spec["rpm"]
            delta = own - peers
            p, m = (1.0, min(delta / rev_ms, 10_000.0)) if delta >= rev_ms else (delta / rev_ms, 1.0)
            p, m = _sig(p), _sig(m)
            # E[min(G, k)] = m (1 − (1 − 1/m)^k) revolutions for a geometric G of mean m cut at k.
            k = float(spec.get("recovery_time_limit_ms", math.inf)) / rev_ms
            mean_ms = p * rev_ms * (m * (1 - (1 - 1 / m) ** k) if m > 1 else min(1.0, k))
            out.append(StragglerModel(s, f"{s.leaf}-slow", preset, p, m, own, peers, rev_ms, mean_ms))
    return out


def _recovery_words(sm: StragglerModel) -> str:
    if sm.probability >= 1:
        out = f"every read recovers, mean {sm.revolutions_mean:g} revolutions of {sm.rev_ms:.2f} ms"
    else:
        out = f"{sm.probability:.1%} of reads recover, one revolution of {sm.rev_ms:.2f} ms each"
    full = sm.probability * sm.revolutions_mean * sm.rev_ms
    if sm.mean_ms < 0.99 * full:
        out += (f"; the preset's recovery_time_limit_ms cuts the longest, so reads gain {_ms(sm.mean_ms)}, not "
                f"{_ms(full)} (raise it if the drive has no ERC/TLER)")
    return out


def _measured_words(sm: StragglerModel, f: DiskFigures) -> str:
    """How the service time per read was had from the row: as printed, or with its queueing out."""
    d = sm.straggler.disk
    per = "per read" if f.per_read else "per I/O (reads and writes: no read column)"
    if f.busy is None:
        ops = d.read_ops_per_s + d.write_ops_per_s
        bound = (f", bounded by 1000 ms ÷ {ops:g} I/Os per s (a disk busy at most all the time)"
                 if d.service_ms is not None and sm.own_ms < d.service_ms else "")
        how = (f"{f.tool} {f.column} {_ms(d.service_ms) if d.service_ms is not None else '?'}{bound}: with no %busy "
               "the wait in the drive's own queue cannot be taken out, only bounded")
    elif d.service_ms is not None and sm.own_ms < d.service_ms:
        how = (f"iostat -x {f.column} {_ms(d.service_ms)} × {f.busy} {_pct(d.busy_percent)} ÷ "
               f"{iostat_x_mod.in_flight(d):.2f} I/Os in flight: the queueing taken out")
    else:
        how = f"iostat -x {f.column} as printed: nothing waited, as its I/Os in flight ≤ its busy share"
    return f"{_ms(sm.own_ms)} {per} vs peers' median {_ms(sm.peers_ms)} ({how})"


def _model_line(sm: StragglerModel, f: DiskFigures) -> str:
    if sm.device is None:
        return (f"not modelled: {sm.why_not}; {sm.straggler.leaf} runs at its peers' speed here, so expect the real scan "
                "and the users' latency to be worse")
    return (f"modelled: {sm.straggler.leaf} is device {sm.device}, {sm.preset} with read recovery: "
            f"{_measured_words(sm, f)}; {_recovery_words(sm)}")


def _straggler_block(f: DiskFigures, models: Sequence[StragglerModel]) -> list[str]:
    """The stragglers found in ``f``, the rule, and what became of each (header lines)."""
    if models:
        return ([f"  {_straggler_text(sm.straggler, f)}" for sm in models] + [f"  (rule: {_rule(f)}; docs/import.md)"]
                + [f"  {_model_line(sm, f)}" for sm in models])
    if f.comparable:
        return [f"  stragglers: none ({_rule(f)})"]
    return ["  stragglers: not looked for, as no two matched data disks share a vdev or a vdev type"]


def _iostat_x_lines(st: PoolStatus, x: iostat_x_mod.IostatX, used: DiskFigures | None,
                    models: Sequence[StragglerModel]) -> list[str]:
    leaves = _device_leaves(st)
    m = iostat_x_mod.match_devices(leaves, x)
    which = (f"report {x.used} of {x.reports}, the last complete one" if x.reports > 1
             else "its only report: the averages since boot, not an interval (run iostat -x INTERVAL 2)")
    out = [f"iostat -x ({x.file} lines {x.first_line}-{x.last_line}: {x.label}, {which}, header line "
           f"{x.header_line}):"]
    same = [leaf for leaf in m.disks if m.how[leaf] == leaf]
    other = [m.how[leaf] for leaf in m.disks if m.how[leaf] != leaf]
    matched = ([f"{', '.join(same)} (same names)"] if same else []) + other
    out.append("  matched to the pool's disks: " + ("; ".join(matched) if matched else "none"))
    if m.not_in_pool:
        out.append(f"  not the pool's disks, skipped: {', '.join(m.not_in_pool)}")
    for dev, ls in m.shared:
        out.append(f"  skipped: {dev} holds {', '.join(ls)}, whose I/O it shows together")
    if m.no_row:
        labels = [n for n in m.no_row if "/" in n.removeprefix("/dev/") or "-" in n]
        rest = [n for n in m.no_row if n not in labels]
        if labels:
            why = ("a label such as /dev/disk/by-id or gptid/… names no kernel disk, and no mapping is guessed: "
                   "ls -l /dev/disk/by-id or glabel status gives it; sysstat iostat -j ID prints by-id names")
            out.append(f"  pool disks with no row ({why}): {', '.join(labels)}")
        if rest:
            why = ("iostat -x without -n prints sdN instance names: run iostat -xn" if x.flavour == "illumos-x"
                   else "not in the report: a missing disk does no I/O, and iostat -z leaves idle ones out")
            out.append(f"  pool disks with no row ({why}): {', '.join(rest)}")
    f = _figures_x(st, x)
    for label, members in f.groups:
        for leaf, d in members:
            out.append(f"  {leaf} ({label}): {_load(d, x)}")
    return out + _straggler_block(f, models if used is not None and used.tool == f.tool else ())


def _iostat_l_lines(st: PoolStatus, io: IostatSample, release: str, used: DiskFigures | None, why: str,
                    models: Sequence[StragglerModel]) -> list[str]:
    which = (f"the last of {io.samples} samples" if io.samples > 1
             else "its only sample: the averages since the pool was imported, not an interval (run zpool iostat -vl "
                  "POOL 10 2)")
    out = [f"zpool iostat -l ({io.file} lines {io.first_line}-{io.last_line}: zpool iostat {io.flags}, {which}, "
           f"header line {io.header_line}):"]
    want = (5 + at_least(release, "zfs-0.8") + at_least(release, "zfs-2.2")) if at_least(release, "zfs-0.7") else 0
    if len(io.latency_groups) != want:
        out.append(f"  note: its -l columns ({' '.join(io.latency_groups[4:])} waits) are those of {io.layout}, "
                   f"not of {release}")
    rows = _l_rows(st, io)
    leaves = _device_leaves(st)
    same = [n for n in leaves if n in rows]
    out.append("  matched to the pool's disks: " + (f"{', '.join(same)} (same names)" if same else "none"))
    missing = [n for n in leaves if n not in rows]
    if missing:
        hint = "" if io.rows else "; zpool iostat without -v shows no disks: run zpool iostat -vl"
        out.append(f"  pool disks with no row: {', '.join(missing)}{hint}")
    f = _figures_l(st, io)
    for label, members in f.groups:
        for leaf, _ in members:
            out.append(f"  {leaf} ({label}): {_load_l(rows[leaf])}")
    if used is not None and used.tool != f.tool:
        return out + [f"  {why}"]
    if why:
        out.append(f"  {why}")
    return out + _straggler_block(f, models)


def straggler_lines(imp: Imported, opts: Options, presets: dict) -> list[str]:
    """One line per straggler, for stderr (the header holds the same and more)."""
    f, _ = disk_figures(imp)
    out = []
    for sm in straggler_models(imp, opts, presets):
        what = (f"modelled as device {sm.device}: {_recovery_words(sm)}" if sm.device is not None
                else f"not modelled: {sm.why_not}")
        out.append(f"{_straggler_text(sm.straggler, f)}; {what}")  # type: ignore[arg-type]
    return out


def compared_scan(st: PoolStatus) -> Scan | None:
    """The scan in progress the simulation is compared with: a sequential rebuild first
    (it restores redundancy; its scrub follows), else the scan running."""
    active = [s for s in st.scans if s.active]
    return sorted(active, key=lambda s: not s.sequential)[0] if active else None


def build(imp: Imported, opts: Options, presets: dict) -> str:
    """The scenario TOML for the imported pool (see the module docstring)."""
    check_presets(opts, presets)
    b = _Builder(imp, opts, presets)
    b.choose_release()
    b.pool_vdevs()
    b.classes()
    b.sector_size()
    b.disks()
    b.special_devices()
    b.draid_spares_check()
    b.spare_devices()
    b.fragmentation()
    b.settings()
    b.tunables()
    b.iostat_x()
    b.workload_from_iostat()
    b.happenings()
    return b.emit()
