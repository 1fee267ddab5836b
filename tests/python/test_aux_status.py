"""`zpool status` of failed and offline log and cache devices (aux_fail.rs), per era: the
rows the snapshot carries under `logs`/`cache`, the pool state (a log vdev not ONLINE makes
the root DEGRADED, `vdev_propagate_state`'s "Root special"; a cache device does not) and the
status/action text (`find_vdev_problem` walks the log vdevs in every era, the L2ARC devices
from illumos 3818, il:7f2416ef64). Texts built from the releases' format strings:
`print_status_config` rows, `print_logs`/`print_class_vdevs` labels, `print_l2cache`."""

from ziosim.report.status import zpool_status

LAYOUT = {"pool": {"name": "tank", "vdevs": [{"name": "mirror-0", "type": "mirror", "leaves": [0, 1]}],
                   "log": [{"name": "mirror-1", "type": "mirror", "leaves": [2, 3]}], "cache": [4]},
          "leaves": [{"name": n} for n in ("sda", "sdb", "sdc", "sdd", "sde")]}


def row(depth, name, state, note=""):
    return {"depth": depth, "name": name, "state": state, "note": note, "read": 0, "write": 0, "cksum": 0}


DATA = [row(1, "mirror-0", "ONLINE"), row(2, "sda", "ONLINE"), row(2, "sdb", "ONLINE")]
# A log mirror with one child dead, the cache device offline.
DEGRADED_LOG = {"t_ns": 0, "state": "DEGRADED", "errors": 0, "scan": None, "spares": [], "rebuild": None,
                "tree": [row(0, "tank", "DEGRADED")] + DATA,
                "logs": [row(1, "mirror-1", "DEGRADED"), row(2, "sdc", "UNAVAIL", "cannot open"),
                         row(2, "sdd", "ONLINE")],
                "cache": [row(1, "sde", "OFFLINE")]}
# Only the cache device dead: the pool stays ONLINE.
DEAD_CACHE = {**DEGRADED_LOG, "state": "ONLINE", "tree": [row(0, "tank", "ONLINE")] + DATA,
              "logs": [row(1, "mirror-1", "ONLINE"), row(2, "sdc", "ONLINE"), row(2, "sdd", "ONLINE")],
              "cache": [row(1, "sde", "UNAVAIL", "cannot open")]}


def status(snap, release):
    return zpool_status(snap, release, "tank", 1_700_000_000, LAYOUT)

SOLARIS_2009_DEGRADED_LOG = (
    '  pool: tank\n'
    ' state: DEGRADED\n'
    'status: One or more devices could not be opened.  Sufficient replicas exist for\n'
    '\tthe pool to continue functioning in a degraded state.\n'
    "action: Attach the missing device and online it using 'zpool online'.\n"
    '   see: http://www.sun.com/msg/ZFS-8000-2Q\n'
    ' scrub: none requested\n'
    'config:\n'
    '\n'
    '\tNAME        STATE     READ WRITE CKSUM\n'
    '\ttank        DEGRADED     0     0     0\n'
    '\t  mirror    ONLINE       0     0     0\n'
    '\t    sda     ONLINE       0     0     0\n'
    '\t    sdb     ONLINE       0     0     0\n'
    '\tlogs        DEGRADED     0     0     0\n'
    '\t  mirror    DEGRADED     0     0     0\n'
    '\t    sdc     UNAVAIL      0     0     0  cannot open\n'
    '\t    sdd     ONLINE       0     0     0\n'
    '\tcache\n'
    '\t  sde       OFFLINE      0     0     0\n'
    '\n'
    'errors: No known data errors\n'
)

ZFS_22_DEGRADED_LOG = (
    '  pool: tank\n'
    ' state: DEGRADED\n'
    'status: One or more devices could not be opened.  Sufficient replicas exist for\n'
    '\tthe pool to continue functioning in a degraded state.\n'
    "action: Attach the missing device and online it using 'zpool online'.\n"
    '   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-2Q\n'
    'config:\n'
    '\n'
    '\tNAME        STATE     READ WRITE CKSUM\n'
    '\ttank        DEGRADED     0     0     0\n'
    '\t  mirror-0  ONLINE       0     0     0\n'
    '\t    sda     ONLINE       0     0     0\n'
    '\t    sdb     ONLINE       0     0     0\n'
    '\tlogs\t\n'
    '\t  mirror-1  DEGRADED     0     0     0\n'
    '\t    sdc     UNAVAIL      0     0     0  cannot open\n'
    '\t    sdd     ONLINE       0     0     0\n'
    '\tcache\n'
    '\t  sde       OFFLINE      0     0     0\n'
    '\n'
    'errors: No known data errors\n'
)

FREEBSD_9_DEAD_CACHE = (
    '  pool: tank\n'
    ' state: ONLINE\n'
    '  scan: none requested\n'
    'config:\n'
    '\n'
    '\tNAME        STATE     READ WRITE CKSUM\n'
    '\ttank        ONLINE       0     0     0\n'
    '\t  mirror-0  ONLINE       0     0     0\n'
    '\t    sda     ONLINE       0     0     0\n'
    '\t    sdb     ONLINE       0     0     0\n'
    '\tlogs\n'
    '\t  mirror-1  ONLINE       0     0     0\n'
    '\t    sdc     ONLINE       0     0     0\n'
    '\t    sdd     ONLINE       0     0     0\n'
    '\tcache\n'
    '\t  sde       UNAVAIL      0     0     0  cannot open\n'
    '\n'
    'errors: No known data errors\n'
)

ILLUMOS_2012_DEAD_CACHE = (
    '  pool: tank\n'
    ' state: ONLINE\n'
    'status: One or more devices could not be opened.  Sufficient replicas exist for\n'
    '\tthe pool to continue functioning in a degraded state.\n'
    "action: Attach the missing device and online it using 'zpool online'.\n"
    '   see: http://illumos.org/msg/ZFS-8000-2Q\n'
    '  scan: none requested\n'
    'config:\n'
    '\n'
    '\tNAME        STATE     READ WRITE CKSUM\n'
    '\ttank        ONLINE       0     0     0\n'
    '\t  mirror-0  ONLINE       0     0     0\n'
    '\t    sda     ONLINE       0     0     0\n'
    '\t    sdb     ONLINE       0     0     0\n'
    '\tlogs\n'
    '\t  mirror-1  ONLINE       0     0     0\n'
    '\t    sdc     ONLINE       0     0     0\n'
    '\t    sdd     ONLINE       0     0     0\n'
    '\tcache\n'
    '\t  sde       UNAVAIL      0     0     0  cannot open\n'
    '\n'
    'errors: No known data errors\n'
)



def test_degraded_log_mirror_solaris_2009():
    # il:379c004d1f: the "logs" row is print_status_config of the root (its state).
    assert status(DEGRADED_LOG, "solaris-2009") == SOLARIS_2009_DEGRADED_LOG


def test_degraded_log_mirror_zfs_22():
    # ZM@zfs-2.2.0 print_class_vdevs: "\tlogs\t"; the missing log child is MISSING_DEV_R.
    assert status(DEGRADED_LOG, "zfs-2.2") == ZFS_22_DEGRADED_LOG


def test_dead_cache_device_counts_from_illumos_3818():
    assert status(DEAD_CACHE, "freebsd-9") == FREEBSD_9_DEAD_CACHE
    assert status(DEAD_CACHE, "illumos-2012") == ILLUMOS_2012_DEAD_CACHE


def test_snapshot_without_aux_rows_prints_them_online():
    plain = {k: v for k, v in DEAD_CACHE.items() if k not in ("logs", "cache")}
    out = status(plain, "zfs-2.2")
    assert "\t  sde       ONLINE       0     0     0\n" in out and "UNAVAIL" not in out
