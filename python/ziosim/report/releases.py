"""Release keys and the output features each release's tools have.

The list mirrors ``crates/ziosim-model/src/release.rs`` (chronological). Feature gates
were read from ``cmd/zpool/zpool_main.c`` at the tags named in each comment.
"""

from __future__ import annotations

RELEASES: tuple[str, ...] = (
    "solaris-2009",
    "freebsd-9",
    "illumos-2012",
    "illumos-2014",
    "zfs-0.6.5",
    "zfs-0.7",
    "zfs-0.8",
    "zfs-2.0",
    "zfs-2.1",
    "zfs-2.2",
    "zfs-2.3",
)


def index(release: str) -> int:
    try:
        return RELEASES.index(release)
    except ValueError:
        raise ValueError(
            f"release: unknown release {release!r}; known: {', '.join(RELEASES)}"
        ) from None


def at_least(release: str, oldest: str) -> bool:
    """True if ``release`` is ``oldest`` or newer."""
    return index(release) >= index(oldest)


def has_extended_iostat(release: str) -> bool:
    """``zpool iostat -l/-q/-w/-r`` arrived in ZoL 0.7.0 (ZM@zfs-0.7.0)."""
    return at_least(release, "zfs-0.7")


def has_trim(release: str) -> bool:
    """TRIM columns: 0.8.0+ (ZM@zfs-0.8.0)."""
    return at_least(release, "zfs-0.8")


def has_rebuild_columns(release: str) -> bool:
    """Rebuild columns in -l/-q/-w/-r: 2.2.0+ (ZM@zfs-2.2.0, 00888c0898)."""
    return at_least(release, "zfs-2.2")


def names_top_level_with_id(release: str) -> bool:
    """``zpool iostat -v`` names top-level vdevs ``raidz2-0`` from 2.2.0
    (VDEV_NAME_TYPE_ID in print_vdev_stats, ZM@zfs-2.2.0); before, ``raidz2``."""
    return at_least(release, "zfs-2.2")


def has_json_status(release: str) -> bool:
    """``zpool status -j`` (and ``--json-int``, ``--json-flat-vdevs``,
    ``--json-pool-key-guid``) arrived in OpenZFS 2.3.0 (ZM@zfs-2.3.0, commit 959e963)."""
    return at_least(release, "zfs-2.3")
