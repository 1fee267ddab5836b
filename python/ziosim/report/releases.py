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


def sizes_names_with_ids(release: str) -> bool:
    """Before 0.7 ``max_width`` sizes the ``zpool iostat -v`` name column with
    ``zpool_vdev_name(..., B_TRUE)`` — an interior vdev with its id, ``replacing-1`` — while
    ``print_vdev_stats`` prints ``replacing`` (ZM@zfs-0.6.5:cmd/zpool/zpool_main.c:1316,
    il:4445fffbbb and il:7a09f97bc0 usr/src/cmd/zpool/zpool_main.c ``max_width``). The
    flag came with il:88ecc943b4 (2009), after solaris-2009's il:379c004d1f; from
    ZM@zfs-0.7.0 both use ``cb_name_flags``."""
    return release != "solaris-2009" and not has_extended_iostat(release)


def name_column_max(release: str) -> int | None:
    """The widest ``zpool iostat`` name column: 38 on OpenSolaris and illumos
    (``get_namewidth`` clamps to [10, 38], il:379c004d1f, il:4445fffbbb, il:7a09f97bc0) and
    on FreeBSD 9, whose zpool is theirs (its source is not in the mirrors); ZoL clamps to
    the terminal's columns - 42, which is no limit when stdout is not a terminal."""
    return 38 if release in ("solaris-2009", "freebsd-9", "illumos-2012", "illumos-2014") else None


def has_json_status(release: str) -> bool:
    """``zpool status -j`` (and ``--json-int``, ``--json-flat-vdevs``,
    ``--json-pool-key-guid``) arrived in OpenZFS 2.3.0 (ZM@zfs-2.3.0, commit 959e963)."""
    return at_least(release, "zfs-2.3")
