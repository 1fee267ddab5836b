"""How a user sets each ZFS tunable ziosim models, per platform and release.

ziosim declares a tunable once (name, unit, range, default per release; see `ziosim
tunables`). This module adds where that C variable is reachable on a real system and
renders the commands an administrator types:

* Linux (ZoL / OpenZFS): the kernel module parameter of the same name, live in
  `/sys/module/zfs/parameters/` when its mode is 0644, persistent as `options zfs …`
  in `/etc/modprobe.d/zfs.conf`.
* FreeBSD 13+ (OpenZFS 2.x): a sysctl under `vfs.zfs`, live with `sysctl` when it is
  CTLFLAG_RWTUN (persistent in `/etc/sysctl.conf`), boot-only when CTLFLAG_RDTUN
  (`/boot/loader.conf`). FreeBSD 9 (in-tree ZFS) had its own, older names.
* illumos / OpenSolaris: the kernel symbol, live with `mdb -kw`, persistent as
  `set zfs:<symbol> = <value>` in `/etc/system` (read at boot).

Rule: a knob exists for (platform, release, tunable) only if ziosim's declaration has a
default for that release and the platform's source of that era declares the knob. Where
ziosim models a variable the platform never exported (e.g. `zfs_delay_max_ns` on Linux,
a plain global there), the answer is None, never a guessed name.

Every fact in `_ROWS` was read from source (docs/platforms.md lists the files):

* openzfs/zfs at tags zfs-0.6.5, zfs-0.7.0, zfs-0.8.0, zfs-2.0.0, zfs-2.1.0, zfs-2.2.0,
  zfs-2.3.0 (ziosim's zfs-X.Y is the X.Y.0 tag): `module_param(name, type, perm)` up to
  0.8, `ZFS_MODULE_PARAM(scope, prefix, name, type, ZMOD_RW|ZMOD_RD, …)` from 2.0 in
  module/zfs/*.c. Linux names are prefix+name (include/os/linux/kernel/linux/mod_compat.h,
  ZMOD_RW = 0644, ZMOD_RD = 0444); FreeBSD names are vfs.<scope, `_` → `.`>.<name>
  (include/os/freebsd/spl/sys/mod_os.h, ZMOD_RW = CTLFLAG_RWTUN, ZMOD_RD = CTLFLAG_RDTUN;
  the nodes are declared in module/os/freebsd/zfs/sysctl_os.c). All the knobs below are
  declared in module/zfs/, so FreeBSD 2.x has exactly the Linux set for 2.x releases.
* FreeBSD 9: `TUNABLE_*` + `SYSCTL_*(_vfs_zfs…)` in sys/cddl/contrib/opensolaris/uts/
  common/fs/zfs/{vdev_queue,dsl_scan,dsl_pool,txg,dmu_zfetch,zil,zfs_log,zvol,vdev_mirror,arc}.c,
  read in the stored copy ChimeraCoder/freebsd@f7ff0d66 (FreeBSD head as 10.0-CURRENT in
  2013, still with the pre-2013 queue and write throttle freebsd-9 models); no 9.x release
  copy could be read. CTLFLAG_RW = live, CTLFLAG_RDTUN = boot only.
* illumos: global definitions in usr/src/uts/common/fs/zfs/*.c of openzfs/openzfs at
  975c32a05c (solaris-2009, parent of il:c33e334fd3), 7e0e2549bf (illumos-2012, parent of
  4045 il:69962b5647) and bc9014e6a8 (illumos-2014, parent of 5313 il:fe319232d2).
  int, uint32_t and boolean_t are 32 bits (mdb /W); uint64_t, ssize_t and hrtime_t are
  64 bits on the 64-bit kernel (mdb /Z).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

from . import _native
from .errors import ScenarioError
from .scenario import nearest
from .units import size_label

__all__ = ["PLATFORMS", "Knob", "platforms_for", "knob", "render"]

PLATFORMS: tuple[str, ...] = ("linux", "freebsd", "illumos")

# Release -> platforms that shipped its ZFS, in display order.
_SHIPPED: dict[str, tuple[str, ...]] = {
    "solaris-2009": ("illumos",),
    "freebsd-9": ("freebsd",),
    "illumos-2012": ("illumos",),
    "illumos-2014": ("illumos",),
    "zfs-0.6.5": ("linux",),
    "zfs-0.7": ("linux",),
    "zfs-0.8": ("linux",),
    "zfs-2.0": ("linux", "freebsd"),
    "zfs-2.1": ("linux", "freebsd"),
    "zfs-2.2": ("linux", "freebsd"),
    "zfs-2.3": ("linux", "freebsd"),
}

# Source families in release order. A span in _ROWS uses the short names after the dash:
# "0.6.5+" = zfs-0.6.5 and later, "0.6.5-0.7" = zfs-0.6.5 to zfs-0.7, "2012" = illumos-2012 only.
_OPENZFS = ("zfs-0.6.5", "zfs-0.7", "zfs-0.8", "zfs-2.0", "zfs-2.1", "zfs-2.2", "zfs-2.3")
_ILLUMOS = ("solaris-2009", "illumos-2012", "illumos-2014")

# Writable at runtime (Linux 0644 / ZMOD_RW, FreeBSD CTLFLAG_RW or RWTUN) or only at boot
# (0444 / ZMOD_RD, CTLFLAG_RDTUN).
RW, RD = True, False

# ZFS_MODULE_PARAM (scope, name prefix) pairs as declared in openzfs/zfs 2.0.0-2.3.0.
_Z = ("zfs", "zfs_")
_V = ("zfs_vdev", "zfs_vdev_")
_M = ("zfs_vdev_mirror", "zfs_vdev_mirror_")
_T = ("zfs_txg", "zfs_txg_")
_P = ("zfs_prefetch", "zfs_prefetch_")
_F = ("zfs_prefetch", "zfetch_")
_L = ("zfs_zil", "zil_")
_L2 = ("zfs_l2arc", "l2arc_")
_ZIO = ("zfs_zio", "zio_")
_SPA = ("zfs", "spa_")


class _Row(NamedTuple):
    tunable: str
    openzfs: str  # span of openzfs/zfs releases declaring the module parameter ("" = none)
    mode: bool  # RW or RD, Linux and FreeBSD 2.x alike (one flag in the source)
    scope: Optional[tuple[str, str]]  # ZFS_MODULE_PARAM scope and prefix in 2.x
    bsd9: str  # FreeBSD 9 sysctl after "vfs.zfs." ("" = none declared)
    bsd9_mode: bool
    illumos: str  # span of illumos releases defining the global ("" = none)
    bits: int  # width of its C type in illumos (0 when not there)


# fmt: off
# tunable                               openzfs      mode 2.x   FreeBSD 9 vfs.zfs.…        mode illumos      bits
_ROWS = tuple(_Row(*r) for r in (
    ("zfs_vdev_max_pending",                   "",          RW, None, "vdev.max_pending",       RW, "2009-2012", 32),
    ("zfs_vdev_min_pending",                   "",          RW, None, "vdev.min_pending",       RW, "2009-2012", 32),
    ("zfs_vdev_ramp_rate",                     "",          RW, None, "vdev.ramp_rate",         RW, "2009-2012", 32),
    ("zfs_vdev_time_shift",                    "",          RW, None, "vdev.time_shift",        RW, "2009-2012", 32),
    ("zfs_vdev_max_active",                    "0.6.5+",    RW, _V,   "",                       RW, "2014+",     32),
    ("zfs_vdev_sync_read_min_active",          "0.6.5+",    RW, _V,   "",                       RW, "2014+",     32),
    ("zfs_vdev_sync_read_max_active",          "0.6.5+",    RW, _V,   "",                       RW, "2014+",     32),
    ("zfs_vdev_sync_write_min_active",         "0.6.5+",    RW, _V,   "",                       RW, "2014+",     32),
    ("zfs_vdev_sync_write_max_active",         "0.6.5+",    RW, _V,   "",                       RW, "2014+",     32),
    ("zfs_vdev_async_read_min_active",         "0.6.5+",    RW, _V,   "",                       RW, "2014+",     32),
    ("zfs_vdev_async_read_max_active",         "0.6.5+",    RW, _V,   "",                       RW, "2014+",     32),
    ("zfs_vdev_async_write_min_active",        "0.6.5+",    RW, _V,   "",                       RW, "2014+",     32),
    ("zfs_vdev_async_write_max_active",        "0.6.5+",    RW, _V,   "",                       RW, "2014+",     32),
    ("zfs_vdev_scrub_min_active",              "0.6.5+",    RW, _V,   "",                       RW, "2014+",     32),
    ("zfs_vdev_scrub_max_active",              "0.6.5+",    RW, _V,   "",                       RW, "2014+",     32),
    ("zfs_vdev_removal_min_active",            "0.8+",      RW, _V,   "",                       RW, "",          0),
    ("zfs_vdev_removal_max_active",            "0.8+",      RW, _V,   "",                       RW, "",          0),
    ("zfs_vdev_initializing_min_active",       "0.8+",      RW, _V,   "",                       RW, "",          0),
    ("zfs_vdev_initializing_max_active",       "0.8+",      RW, _V,   "",                       RW, "",          0),
    ("zfs_vdev_trim_min_active",               "0.8+",      RW, _V,   "",                       RW, "",          0),
    ("zfs_vdev_trim_max_active",               "0.8+",      RW, _V,   "",                       RW, "",          0),
    ("zfs_vdev_rebuild_min_active",            "2.0+",      RW, _V,   "",                       RW, "",          0),
    ("zfs_vdev_rebuild_max_active",            "2.0+",      RW, _V,   "",                       RW, "",          0),
    ("zfs_vdev_async_write_active_min_dirty_percent", "0.6.5+", RW, _V, "",                  RW, "2014+",     32),
    ("zfs_vdev_async_write_active_max_dirty_percent", "0.6.5+", RW, _V, "",                  RW, "2014+",     32),
    ("zfs_vdev_nia_delay",                     "2.1+",      RW, _V,   "",                       RW, "",          0),
    ("zfs_vdev_nia_credit",                    "2.1+",      RW, _V,   "",                       RW, "",          0),
    ("zfs_vdev_aggregation_limit",             "0.6.5+",    RW, _V,   "vdev.aggregation_limit", RW, "2009+",     32),
    ("zfs_vdev_aggregation_limit_non_rotating", "0.8+",      RW, _V,   "",                       RW, "",          0),
    ("zfs_vdev_read_gap_limit",                "0.6.5+",    RW, _V,   "vdev.read_gap_limit",    RW, "2009+",     32),
    ("zfs_vdev_write_gap_limit",               "0.6.5+",    RW, _V,   "vdev.write_gap_limit",   RW, "2012+",     32),
    ("zfs_vdev_mirror_rotating_inc",           "0.7+",      RW, _M,   "",                       RW, "",          0),
    ("zfs_vdev_mirror_rotating_seek_inc",      "0.7+",      RW, _M,   "",                       RW, "",          0),
    ("zfs_vdev_mirror_rotating_seek_offset",   "0.7+",      RW, _M,   "",                       RW, "",          0),
    ("zfs_vdev_mirror_non_rotating_inc",       "0.7+",      RW, _M,   "",                       RW, "",          0),
    ("zfs_vdev_mirror_non_rotating_seek_inc",  "0.7+",      RW, _M,   "",                       RW, "",          0),
    ("zfs_top_maxinflight",                    "0.6.5-0.7", RW, None, "top_maxinflight",        RW, "2012+",     32),
    ("zfs_scrub_delay",                        "0.6.5-0.7", RW, None, "scrub_delay",            RW, "2012+",     32),
    ("zfs_resilver_delay",                     "0.6.5-0.7", RW, None, "resilver_delay",         RW, "2012+",     32),
    ("zfs_scan_idle",                          "0.6.5-0.7", RW, None, "scan_idle",              RW, "2012+",     32),
    ("zfs_scan_min_time_ms",                   "0.6.5-0.7", RW, None, "scan_min_time_ms",       RW, "2012+",     32),
    ("zfs_scrub_min_time_ms",                  "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_resilver_min_time_ms",               "0.6.5+",    RW, _Z,   "resilver_min_time_ms",   RW, "2012+",     32),
    ("zfs_resilver_disable_defer",             "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_resilver_defer_percent",             "2.3+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_scrub_limit",                        "",          RW, None, "",                       RW, "2009+",     32),
    ("zfs_no_scrub_io",                        "0.6.5+",    RW, _Z,   "no_scrub_io",            RW, "2009+",     32),
    ("zfs_no_scrub_prefetch",                  "0.6.5+",    RW, _Z,   "no_scrub_prefetch",      RW, "2012+",     32),
    ("zfs_scan_legacy",                        "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_scan_vdev_limit",                    "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_scan_issue_strategy",                "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_scan_max_ext_gap",                   "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_scan_fill_weight",                   "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_scan_mem_lim_fact",                  "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_scan_mem_lim_soft_fact",             "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_scan_checkpoint_intval",             "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_scan_strict_mem_lim",                "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_rebuild_max_segment",                "2.0+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_rebuild_queue_limit",                "",          RW, None, "",                       RW, "",          0),
    ("zfs_rebuild_vdev_limit",                 "2.1+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_rebuild_scrub_enabled",              "2.1+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_prefetch_disable",                   "0.6.5+",    RW, _P,   "prefetch_disable",       RW, "2009+",     32),
    ("zfetch_max_distance",                    "0.7+",      RW, _F,   "",                       RW, "",          0),
    ("zfetch_min_distance",                    "2.2+",      RW, _F,   "",                       RW, "",          0),
    ("zfetch_block_cap",                       "0.6.5",     RW, None, "zfetch.block_cap",       RW, "2009+",     32),
    ("zfetch_max_streams",                     "0.6.5+",    RW, _F,   "zfetch.max_streams",     RW, "2009+",     32),
    ("zfetch_min_sec_reap",                    "0.6.5+",    RW, _F,   "zfetch.min_sec_reap",    RW, "2009+",     32),
    ("zfetch_max_sec_reap",                    "2.2+",      RW, _F,   "",                       RW, "",          0),
    ("l2arc_write_max",                        "0.6.5+",    RW, _L2,  "l2arc_write_max",        RW, "2009+",     64),
    ("l2arc_headroom",                         "0.6.5+",    RW, _L2,  "l2arc_headroom",         RW, "2009+",     64),
    ("l2arc_feed_secs",                        "0.6.5+",    RW, _L2,  "l2arc_feed_secs",        RW, "2009+",     64),
    ("l2arc_feed_min_ms",                      "0.6.5+",    RW, _L2,  "l2arc_feed_min_ms",      RW, "2009+",     64),
    ("l2arc_feed_again",                       "0.6.5+",    RW, _L2,  "l2arc_feed_again",       RW, "2009+",     32),
    ("l2arc_norw",                             "0.6.5+",    RW, _L2,  "l2arc_norw",             RW, "2009+",     32),
    ("zfs_dirty_data_max_percent",             "0.6.5+",    RD, _Z,   "",                       RW, "2014+",     32),
    ("zfs_dirty_data_max",                     "0.6.5+",    RW, _Z,   "",                       RW, "2014+",     64),
    ("zfs_dirty_data_max_max",                 "0.6.5+",    RD, _Z,   "",                       RW, "2014+",     64),
    ("zfs_txg_timeout",                        "0.6.5+",    RW, _T,   "txg.timeout",            RW, "2009+",     32),
    ("zfs_dirty_data_sync",                    "0.6.5-0.7", RW, None, "",                       RW, "2014+",     64),
    ("zfs_dirty_data_sync_percent",            "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_delay_min_dirty_percent",            "0.6.5+",    RW, _Z,   "",                       RW, "2014+",     32),
    ("zfs_delay_scale",                        "0.6.5+",    RW, _Z,   "",                       RW, "2014+",     64),
    ("zfs_delay_max_ns",                       "",          RW, None, "",                       RW, "2014+",     64),
    ("zfs_wrlog_data_max",                     "2.2+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_txg_synctime_ms",                    "",          RW, None, "txg.synctime_ms",        RD, "2012",      32),
    ("zfs_write_limit_shift",                  "",          RW, None, "write_limit_shift",      RD, "2009-2012", 32),
    ("zfs_write_limit_min",                    "",          RW, None, "write_limit_min",        RD, "2009-2012", 64),
    ("zfs_write_limit_override",               "",          RW, None, "write_limit_override",   RD, "2009-2012", 64),
    ("zfs_no_write_throttle",                  "",          RW, None, "no_write_throttle",      RD, "2009-2012", 32),
    ("zio_dva_throttle_enabled",               "0.7+",      RW, _ZIO, "",                       RW, "",          0),
    ("zfs_vdev_queue_depth_pct",               "0.7+",      RW, _V,   "",                       RW, "",          0),
    ("zfs_vdev_def_queue_depth",               "2.2+",      RW, _V,   "",                       RW, "",          0),
    ("spa_num_allocators",                     "2.3",       RW, _SPA, "",                       RW, "",          0),
    ("zfs_special_class_metadata_reserve_pct", "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_user_indirect_is_special",           "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zfs_immediate_write_sz",                 "0.6.5+",    RW, _Z,   "",                       RW, "2009+",     64),
    ("zvol_immediate_write_sz",                "",          RW, None, "",                       RW, "2009+",     64),
    ("zil_slog_limit",                         "0.6.5",     RW, None, "",                       RW, "2012+",     64),
    ("zil_slog_bulk",                          "0.7+",      RW, _L,   "",                       RW, "",          0),
    ("zfs_commit_timeout_pct",                 "0.8+",      RW, _Z,   "",                       RW, "",          0),
    ("zil_min_commit_timeout",                 "2.2",       RW, _L,   "",                       RW, "",          0),
    ("zil_maxblocksize",                       "2.0+",      RW, _L,   "",                       RW, "",          0),
    ("zil_maxcopied",                          "2.2+",      RW, _L,   "",                       RW, "",          0),
    ("zfs_nocacheflush",                       "0.6.5+",    RW, _Z,   "cache_flush_disable",    RD, "2009+",     32),
    ("zil_nocacheflush",                       "0.8+",      RW, _L,   "",                       RW, "",          0),
    ("zil_disable",                            "",          RW, None, "",                       RW, "2009",      32),
))

# fmt: on
_BY_NAME = {r.tunable: r for r in _ROWS}

# illumos ZFS reads these once, in arc_init() (arc.c@bc9014e6a8): an mdb write changes the
# variable but nothing uses the new value before the next boot.
_ILLUMOS_READ_AT_INIT = frozenset({"zfs_dirty_data_max_percent", "zfs_dirty_data_max_max"})


@dataclass(frozen=True)
class Knob:
    """One tunable as a user reaches it on one platform."""

    platform: str
    tunable: str  # ZFS's C name, as ziosim declares it
    name: str  # what the user types: module parameter, sysctl OID or kernel symbol
    runtime: bool  # writable on a running system
    width_bits: int  # illumos: 32 (mdb /W) or 64 (mdb /Z); 0 elsewhere


def platforms_for(release: str) -> list[str]:
    """Platforms that shipped this release's ZFS, in display order."""
    if release not in _SHIPPED:
        raise ScenarioError(
            f"release: {_show(release)} — allowed: {', '.join(_SHIPPED)}", _did_you_mean(release, _SHIPPED)
        )
    return list(_SHIPPED[release])


def knob(platform: str, release: str, tunable: str) -> Knob | None:
    """How `tunable` is set on `platform` for `release`; None if that platform's ZFS of that
    release has no such knob (e.g. zfs_scrub_delay on zfs-2.2, zfs_vdev_nia_delay on FreeBSD 9)."""
    _check_shipped(platform, release)
    declared = _declarations()
    if tunable not in declared:
        raise ScenarioError(
            f"tunable: {_show(tunable)} — allowed: a tunable ziosim models (`ziosim tunables` lists them)",
            _did_you_mean(tunable, declared),
        )
    if declared[tunable]["defaults"].get(release) is None:
        return None
    row = _BY_NAME.get(tunable)
    if row is None:
        raise AssertionError(f"platforms: {tunable} is declared by the core but missing from _ROWS")
    if platform == "illumos":
        if release not in _span(row.illumos, _ILLUMOS):
            return None
        return Knob(platform, tunable, tunable, True, row.bits)
    if release == "freebsd-9":
        return Knob(platform, tunable, f"vfs.zfs.{row.bsd9}", row.bsd9_mode, 0) if row.bsd9 else None
    if release not in _span(row.openzfs, _OPENZFS):
        return None
    if platform == "linux":
        return Knob(platform, tunable, tunable, row.mode, 0)
    scope, prefix = row.scope  # type: ignore[misc]  # every 2.x row carries its scope
    return Knob(platform, tunable, f"vfs.{scope.replace('_', '.')}.{tunable[len(prefix):]}", row.mode, 0)


def render(platform: str, release: str, changes: list[tuple[str, int, int]],
           ram_bytes: Optional[int] = None) -> list[str]:
    """Text lines a user can paste: for each (tunable, new_value, old_value) the command to
    apply it now (if runtime-writable), the persistent configuration line and the file it goes
    in, what else is needed for it to take effect (reboot / initramfs), and the commands that
    revert to the old values — called "the <release> defaults" only when each old value is
    the release's default on a machine with ``ram_bytes`` of RAM (None: ``zfs.ram``'s
    default; ``zfs_dirty_data_max`` and the others ``derived`` from RAM depend on it). Values
    are plain decimal integers in the C variable's own unit."""
    _check_shipped(platform, release)
    declared = _declarations(ram_bytes)
    lines = [f"# {_title(platform, release)} — run as root"]
    if not changes:
        lines.append(f"# nothing to change: the {release} defaults are already best")
        return lines
    chosen: list[tuple[Knob, int, int]] = []
    seen: set[str] = set()
    for i, change in enumerate(changes):
        tunable, value, default = _check_change(i, change, declared, seen)
        k = knob(platform, release, tunable)
        if k is None:
            lines.append(f"# {tunable}: {_why_none(platform, release, tunable, declared)}; skipped")
        else:
            chosen.append((k, value, default))
    if not chosen:
        lines.append("# nothing here can be set on this platform")
        return lines
    writer = {"linux": _render_linux, "freebsd": _render_freebsd, "illumos": _render_illumos}[platform]
    return lines + writer(release, chosen, declared)


# ---- rendering, one function per platform -------------------------------------------------


def _render_linux(release: str, chosen: list[tuple[Knob, int, int]], declared: dict) -> list[str]:
    live, boot = _split(chosen, lambda k: k.runtime)
    out = _apply_now("until the zfs module is next loaded", [_sysfs(k, v) for k, v, _ in live])
    out += [f"# {k.name} is read-only while the module is loaded (mode 0444): it takes effect at the next boot"
            for k, _, _ in boot]
    out.append("# keep across reboots: this one line in /etc/modprobe.d/zfs.conf, with a comment saying why and when")
    out.append("options zfs " + " ".join(f"{k.name}={v}" for k, v, _ in chosen))
    out.append("# if ZFS loads from the initramfs (root on ZFS), rebuild it so the boot sees that line:")
    out.append("update-initramfs -u    # Debian, Ubuntu, Proxmox")
    out.append("dracut -f              # RHEL, Fedora and other dracut-based systems")
    out += _revert(release, "delete that line from /etc/modprobe.d/zfs.conf, rebuild the initramfs as above",
                   [_sysfs(k, d) for k, _, d in live], boot, chosen, declared)
    return out + _derived_notes(chosen, declared, release)


def _render_freebsd(release: str, chosen: list[tuple[Knob, int, int]], declared: dict) -> list[str]:
    live, boot = _split(chosen, lambda k: k.runtime)
    out = _apply_now("until reboot", [f"sysctl {k.name}={v}" for k, v, _ in live])
    if live:
        out.append("# keep across reboots: these lines in /etc/sysctl.conf")
        out += [f"{k.name}={v}" for k, v, _ in live]
    if boot:
        out.append("# boot-time tunables (read-only once booted): these lines in /boot/loader.conf, then reboot")
        out += [f'{k.name}="{v}"' for k, v, _ in boot]
    files = " and ".join(f for f, group in (("/etc/sysctl.conf", live), ("/boot/loader.conf", boot)) if group)
    out += _revert(release, f"delete those lines from {files}", [f"sysctl {k.name}={d}" for k, _, d in live], boot,
                   chosen, declared)
    return out + _derived_notes(chosen, declared, release)


def _render_illumos(release: str, chosen: list[tuple[Knob, int, int]], declared: dict) -> list[str]:
    live, late = _split(chosen, lambda k: k.tunable not in _ILLUMOS_READ_AT_INIT)
    out = _apply_now("patches the running kernel; lost at reboot", [_mdb(k, v) for k, v, _ in live])
    out += [f"# {k.name} is read once, when ZFS starts (arc_init): it takes effect at the next boot"
            for k, _, _ in late]
    out.append("# keep across reboots: these lines in /etc/system (read at boot: they take effect at the next reboot)")
    out += [f"set zfs:{k.name} = {v}" for k, v, _ in chosen]
    out += _revert(release, "delete those lines from /etc/system", [_mdb(k, d) for k, _, d in live], late, chosen,
                   declared)
    return out + _derived_notes(chosen, declared, release)


def _split(chosen: list[tuple[Knob, int, int]], live: Any) -> tuple[list, list]:
    return [c for c in chosen if live(c[0])], [c for c in chosen if not live(c[0])]


def _apply_now(lasts: str, commands: list[str]) -> list[str]:
    return [f"# apply now ({lasts})", *commands] if commands else []


def _revert(release: str, undo: str, commands: list[str], boot: list[tuple[Knob, int, int]],
            chosen: list[tuple[Knob, int, int]], declared: dict) -> list[str]:
    # "the defaults" only when every value reverted to is the release's declared default (a
    # scenario may run non-default values; the commands then restore those).
    defaults = all(declared.get(k.tunable, {}).get("defaults", {}).get(release) == d for k, _, d in chosen)
    what = f"the {release} defaults" if defaults else "the values before"
    head = f"# revert to {what}: {undo}" + (", then" if commands else "")
    return [head, *commands, *(f"# {k.name} returns to {d} at the next boot" for k, _, d in boot)]


def _sysfs(k: Knob, value: int) -> str:
    return f"echo {value} > /sys/module/zfs/parameters/{k.name}"


def _mdb(k: Knob, value: int) -> str:
    fmt = {32: "W", 64: "Z"}[k.width_bits]  # /W writes 4 bytes, /Z 8; 0t marks decimal
    return f"echo '{k.name}/{fmt}0t{value}' | mdb -kw"


# Knobs a running system reads only at a later event, whatever the platform: the change
# (live or persistent) takes effect then. zil_disable is consulted when a file system is
# mounted (zfsvfs_setup destroys the new mount's log; zfs_vfsops.c, snv_117 as in
# zfs-fuse 5c5ace08), so a file system mounted before the change keeps its ZIL.
_TAKES_EFFECT = {
    "zil_disable": "is read when a file system is mounted: remount each file system (zfs umount, zfs mount) "
                   "for a change to reach it",
}


def _derived_notes(chosen: list[tuple[Knob, int, int]], declared: dict, release: str) -> list[str]:
    """Some defaults depend on the machine: a revert to one is the value for the RAM
    simulated, which a real machine's may differ from. Some knobs act only at a later event
    (``_TAKES_EFFECT``)."""
    out = [f"# note: {k.tunable} {_TAKES_EFFECT[k.tunable]}" for k, _, _ in chosen if k.tunable in _TAKES_EFFECT]
    for k, _, d in chosen:
        t = declared[k.tunable]
        if t.get("derived") and t["defaults"].get(release) == d:
            out.append(f"# note: {d} is the {release} default for {k.tunable} with {size_label(t['ram_bytes'])} "
                       f"of RAM, as simulated ({t['derived']}); deleting the setting and rebooting restores "
                       "this machine's own")
    return out


def _title(platform: str, release: str) -> str:
    if platform == "linux":
        return f"Linux, OpenZFS {release}: module parameters"
    if platform == "illumos":
        return f"illumos/Solaris, {release}: zfs kernel variables"
    if release == "freebsd-9":
        return "FreeBSD 9, in-tree ZFS: sysctls and loader tunables"
    return f"FreeBSD 13+, OpenZFS {release}: sysctls and loader tunables"


def _why_none(platform: str, release: str, tunable: str, declared: dict) -> str:
    defaults = declared[tunable]["defaults"]
    if defaults.get(release) is None:
        has = [r for r in _SHIPPED if defaults.get(r) is not None]
        return f"{release} has no such tunable (it is in {_runs(tuple(_SHIPPED), has)})"
    what = {"linux": "module parameter", "freebsd": "sysctl or loader tunable", "illumos": "kernel variable"}[platform]
    return f"not a {what} in the {release} source, so it cannot be set on {platform}"


# ---- inputs and data ---------------------------------------------------------------------------


def _check_shipped(platform: str, release: str) -> None:
    if platform not in PLATFORMS:
        raise ScenarioError(
            f"platform: {_show(platform)} — allowed: {', '.join(PLATFORMS)}", _did_you_mean(platform, PLATFORMS)
        )
    shipped = platforms_for(release)
    if platform not in shipped:
        raise ScenarioError(f"platform: {_show(platform)} — {release} shipped on {', '.join(shipped)} only")


def _check_change(i: int, change: Any, declared: dict, seen: set[str]) -> tuple[str, int, int]:
    where = f"changes[{i}]"
    if not (isinstance(change, (tuple, list)) and len(change) == 3):
        raise ScenarioError(f"{where}: {change!r} — allowed: a (tunable, new_value, default_value) triple")
    tunable, value, default = change
    if not isinstance(tunable, str) or tunable not in declared:
        raise ScenarioError(
            f"{where}: {_show(tunable)} — allowed: a tunable ziosim models", _did_you_mean(str(tunable), declared)
        )
    if tunable in seen:
        raise ScenarioError(f"{where}: {tunable} — allowed: each tunable once")
    seen.add(tunable)
    lo, hi = declared[tunable]["min"], declared[tunable]["max"]
    for label, v in (("new_value", value), ("default_value", default)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ScenarioError(f"{where}.{label}: {v!r} — allowed: a decimal integer in {tunable}'s own unit")
    if not lo <= value <= hi:
        raise ScenarioError(f"{where}.new_value: {value} — allowed: {lo}..={hi} for {tunable}")
    return tunable, value, default


def _span(text: str, family: tuple[str, ...]) -> tuple[str, ...]:
    """The releases of `family` a span from _ROWS names ("" = none)."""
    if not text:
        return ()
    short = [r.split("-", 1)[1] for r in family]
    first, dash, last = text.rstrip("+").partition("-")
    lo = short.index(first)
    hi = len(family) - 1 if text.endswith("+") else short.index(last) if dash else lo
    return family[lo : hi + 1]


_cache: Optional[tuple[object, Optional[int], dict[str, dict[str, Any]]]] = None


def _declarations(ram_bytes: Optional[int] = None) -> dict[str, dict[str, Any]]:
    """ziosim's tunable declarations by name, re-read when the core module changes (tests swap
    it); the defaults derived from RAM are those for ``ram_bytes`` (None: ``zfs.ram``'s default)."""
    global _cache
    core = _native.core()
    if _cache is None or _cache[0] is not core or _cache[1] != ram_bytes:
        _cache = (core, ram_bytes, {t["name"]: t for t in _native.tunables(ram_bytes)})
    return _cache[2]


def _show(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _did_you_mean(name: str, candidates: Any) -> Optional[str]:
    n = nearest(name, list(candidates))
    return f"did you mean {n}?" if n else None


# ---- the name table in docs/platforms.md (regenerated by tests/python/test_platforms.py) ----


def _name_table() -> list[str]:
    """Markdown rows: every tunable's name per platform, with the releases that have it."""
    out = [
        "| tunable | Linux module parameter | FreeBSD 13+ sysctl | FreeBSD 9 sysctl | illumos symbol |",
        "|---|---|---|---|---|",
    ]
    columns = (("linux", _OPENZFS), ("freebsd", _OPENZFS[3:]), ("freebsd", ("freebsd-9",)), ("illumos", _ILLUMOS))
    for name in _declarations():
        cells = [f"`{name}`"]
        for platform, family in columns:
            have = {r: knob(platform, r, name) for r in family}
            cells.append(_name_cell(family, {r: k for r, k in have.items() if k is not None}))
        out.append("| " + " | ".join(cells) + " |")
    return out


def _name_cell(family: tuple[str, ...], have: dict[str, Knob]) -> str:
    if not have:
        return "—"
    (k, *_) = have.values()
    if len({x.name for x in have.values()}) != 1:
        raise AssertionError(f"platforms: {k.tunable} has two names on {k.platform}")
    if k.platform == "illumos":
        how = " /W" if k.width_bits == 32 else " /Z"
    else:
        how = "" if k.runtime else ", boot only"
    return f"`{k.name}`{how} ({_runs(family, list(have))})"


def _runs(family: tuple[str, ...], members: list[str]) -> str:
    """Releases as runs of neighbours in `family`: "zfs-0.8 … zfs-2.3", "zfs-2.2"."""
    runs: list[list[str]] = []
    for r in members:
        if runs and family.index(r) == family.index(runs[-1][-1]) + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]} … {run[-1]}" for run in runs)
