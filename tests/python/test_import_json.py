"""``zpool status -j`` (OpenZFS 2.3+): ziosim prints it (views ``status-json`` and
``status-json-int``) and ``ziosim import`` reads it back.

* Round trip (needs the core): every status snapshot of real runs at release zfs-2.3 is
  printed as JSON in four forms — strings, ``--json-int``, ``--json-int --json-flat-vdevs
  --json-pool-key-guid``, ``--json-flat-vdevs`` — and as text; both are read back and must
  give the same tree, states and notes, the same scan blocks, and the same numbers: exactly
  (integer form: the text's number is the JSON's exact one as zfs_nicebytes rounds it) or
  within the printed precision (string form). The flat and guid-keyed forms are made from
  the nested one as ``vdev_stats_nvlist`` and ``status_callback_json`` make them
  (cmd/zpool/zpool_main.c@zfs-2.3.0), quirks included.
* Hand-written fixtures (tests/python/fixtures/import/zfs-2.3-json-*.txt) modelled on the
  real output — identity fields, ``def_space``, ``rep_dev_size``, dates with a zone name or
  without (FreeBSD), ``-T u`` and ``-T d``, ``not_present``, ``configured_ashift``, classes —
  each with its expected reading; the arithmetic is in the comments.
* Errors: one line naming the file, the line, the JSON path and what is allowed; exit 2.
"""

from __future__ import annotations

import json
import re

import pytest

from ziosim.errors import ScenarioError
from ziosim.importers import ImportTextError, parse_number, split_sections
from ziosim.importers import scenario as isc
from ziosim.importers import zpool_status, zpool_status_json
from ziosim.report.nicenum import zfs_nicebytes
from ziosim.report.status import zpool_status as render_text_status
from ziosim.report.status_json import zpool_status_json as render_json

from conftest import ROOT, SCENARIOS

FIX = ROOT / "tests" / "python" / "fixtures" / "import"
GiB, TiB = 1 << 30, 1 << 40
E = 1697241601  # Sat Oct 14 00:00:01 2023 UTC


def status_of(text: str, name: str = "status.txt") -> zpool_status.PoolStatus:
    (sec,) = split_sections(name, text)
    parse = zpool_status_json.parse if sec.kind == zpool_status_json.KIND else zpool_status.parse
    (pool,) = parse(sec)
    return pool


def fixture(name: str) -> zpool_status.PoolStatus:
    return status_of((FIX / name).read_text(), name)


# ----------------------------------------------------------------------------- other forms


def _with_parent(v: dict, parent: str | None) -> dict:
    """``fill_vdev_info`` ends with ``state``; ``vdev_stats_nvlist`` adds ``parent`` next."""
    out = {}
    for k, x in v.items():
        if k == "vdevs":
            continue
        out[k] = x
        if k == "state" and parent is not None:
            out["parent"] = parent
    return out


def _flat_add(v: dict, parent: str | None, item: dict) -> None:
    """``vdev_stats_nvlist`` with ``cb_flat_vdevs``: a leaf goes into ``item``; each child
    is visited twice, into ``item`` (flat) and into this vdev's own ``vdevs``; an nvlist
    key added again moves to the end (NV_UNIQUE_NAME: remove, then append)."""
    name = v["name"]
    vds = _with_parent(v, parent)
    kids = v.get("vdevs") or {}
    if not kids:
        item[name] = dict(vds)
    ch: dict = {}
    for c in kids.values():
        _flat_add(c, name, item)
        _flat_add(c, name, ch)
    if ch:
        vds["vdevs"] = ch
    item.pop(name, None)
    item[name] = vds


def flat_vdevs(doc: dict) -> dict:
    """``--json-flat-vdevs``: the class sections' vdevs join ``vdevs``, without a parent."""
    out = dict(doc, pools={})
    for key, item in doc["pools"].items():
        flat: dict = {}
        _flat_add(item["vdevs"][item["name"]], None, flat)
        for cls in ("dedup", "special", "logs", "l2cache", "spares"):
            for member in (item.get(cls) or {}).values():
                _flat_add(member, None, flat)
        out["pools"][key] = {k: (flat if k == "vdevs" else v) for k, v in item.items()
                             if k not in ("dedup", "special", "logs", "l2cache", "spares")}
    return out


def key_by_guid(doc: dict, guid: int = 3920273586464696295) -> dict:
    """``--json-pool-key-guid``: pools keyed by guid; ``fill_pool_info`` puts ``pool_guid``
    after ``state``."""
    out = dict(doc, pools={})
    for item in doc["pools"].values():
        as_int = isinstance(item["spa_version"], int)
        new: dict = {}
        for k, v in item.items():
            new[k] = v
            if k == "state":
                new["pool_guid"] = guid if as_int else str(guid)
        out["pools"][str(guid)] = new
    return out


def forms(snap: dict, pool: str, epoch: int, layout: dict | None = None) -> dict[str, str]:
    s = render_json(snap, "zfs-2.3", pool, epoch, layout=layout)
    i = render_json(snap, "zfs-2.3", pool, epoch, as_int=True, layout=layout)
    compact = lambda d: json.dumps(d, separators=(",", ":")) + "\n"  # noqa: E731
    return {
        "strings": s,
        "int": i,
        "int-flat-guid": compact(key_by_guid(flat_vdevs(json.loads(i)))),
        "strings-flat": "$ zpool status -j --json-flat-vdevs -T u | jq\n" + json.dumps(flat_vdevs(json.loads(s)),
                                                                                          indent=2) + "\n",
    }


def test_flat_form_has_zpools_quirks():
    """The flat form as zfs-2.3.0 prints it: leaves first, then their vdev, the root last;
    a top-level vdev still nests its children, and grandchildren leak one level up."""
    st = json.loads((FIX.parent / "status_snapshots.json").read_text())
    doc = flat_vdevs(json.loads(render_json(st["rebuild"], "zfs-2.3", "tank", st["epoch_s"])))
    vdevs = doc["pools"]["tank"]["vdevs"]
    assert list(vdevs) == ["sda", "sdb", "sdc", "replacing-1", "mirror-0", "tank"]
    assert [(k, v.get("parent")) for k, v in vdevs["mirror-0"]["vdevs"].items()] == [
        ("sda", "mirror-0"), ("sdb", "replacing-1"), ("sdc", "replacing-1"), ("replacing-1", "mirror-0")]
    assert "parent" not in vdevs["tank"] and vdevs["sdb"]["parent"] == "replacing-1"
    assert list(vdevs["sdb"])[:5] == ["name", "vdev_type", "class", "state", "parent"]


# ----------------------------------------------------------------------------- round trip


@pytest.fixture(scope="module")
def runs():
    """Snapshots of real runs at zfs-2.3: a scrub in progress (then paused, canceled,
    finished), a resilver with replacing, a sequential rebuild, its scrub and a resilver,
    and a resilver of a pool with log vdevs and an L2ARC device. Each with its results."""
    from ziosim import runner, scenario

    def load(path, stop, interval):
        doc = scenario.parse_toml((ROOT / path).read_text(), path)
        doc["scenario"] = {**doc.get("scenario", {}), "report_interval": interval}
        doc["zfs"] = {**doc.get("zfs", {}), "release": "zfs-2.3"}
        return scenario.from_dict(doc, default_name="x", stop=stop)  # as --stop: later actions left out

    from test_import import FAIL_REPLACE, SCRUB_PAUSE_CANCEL, SLOG_CACHE, SMALL

    def small(actions, stop, interval):
        return scenario.loads(SMALL.format(stop=stop, interval=interval, actions=actions)
                              .replace('release = "zfs-2.2"', 'release = "zfs-2.3"'), path="small.toml")

    scs = {
        "default": load("scenarios/default.toml", "3m", "30s"),
        "rebuild": load("scenarios/rebuild-mirror-zfs-2.1.toml", "42m", "1m"),
        "small-scrub": small(SCRUB_PAUSE_CANCEL, "70s", "2s"),
        "small-resilver": small(FAIL_REPLACE, "40s", "3s"),
        "small-slog-resilver": small(SLOG_CACHE + FAIL_REPLACE, "20s", "5s"),
    }
    out = []
    for name, sc in scs.items():
        assert sc.release == "zfs-2.3"
        r = runner.run(sc)
        for snap in r["status"]["snapshots"]:
            out.append((name, sc.config["pool"]["name"], r["status"]["epoch_s"], snap, r))
    return out


def _exact_as_printed(got: int | None, text: int | None) -> bool:
    """An exact number (JSON integers) against the text's: the same once zfs_nicebytes has
    rounded it."""
    if got is None or text is None:
        return got is text
    return parse_number(zfs_nicebytes(got)) == text


def _close(got: int | None, text: int | None, rel: float) -> bool:
    if got is None or text is None:
        return got is text
    return abs(got - text) <= rel * text + 1


_SAME = ("key", "func", "state", "shape", "rebuild_vdev", "since", "started", "ended", "took", "took_s", "errors",
         "indent", "hms")
_COUNTERS = ("scanned_bytes", "issued_bytes", "total_bytes", "processed_bytes")
_DERIVED = ("issue_total_bytes", "scan_rate_bytes_per_s", "issue_rate_bytes_per_s")


def _same_reading(js: zpool_status.PoolStatus, tx: zpool_status.PoolStatus, form: str) -> None:
    assert (js.name, js.state, js.errors, js.source, tx.source) == (tx.name, tx.state, tx.errors, "json", "text")
    assert [(r.depth, r.name, r.state, r.read, r.write, r.cksum, r.note) for r in js.rows] == [
        (r.depth, r.name, r.state, r.read, r.write, r.cksum, r.note) for r in tx.rows]
    assert [(v.kind, [leaf.name for leaf in v.leaves()]) for v in js.vdevs] == [
        (v.kind, [leaf.name for leaf in v.leaves()]) for v in tx.vdevs]
    assert [(lab, [(v.kind, [leaf.name for leaf in v.leaves()]) for v in vs]) for lab, vs in js.classes] == [
        (lab, [(v.kind, [leaf.name for leaf in v.leaves()]) for v in vs]) for lab, vs in tx.classes]
    assert len(js.scans) == len(tx.scans)
    exact = form.startswith("int")
    for j, t in zip(js.scans, tx.scans):
        for f in _SAME:
            assert getattr(j, f) == getattr(t, f), f
        for f in _COUNTERS:
            if exact:
                assert _exact_as_printed(getattr(j, f), getattr(t, f)), f
            else:
                assert getattr(j, f) == getattr(t, f), f  # the same zfs_nicebytes string, read alike
        for f in _DERIVED:
            if exact:
                assert _exact_as_printed(getattr(j, f), getattr(t, f)), f
            else:  # from rounded strings: each off by at most half a unit of its last digit
                assert _close(getattr(j, f), getattr(t, f), 0.011), f
        if t.done_percent is None:
            assert j.done_percent is None
        else:
            # From rounded strings the ratio of two three-digit sizes is off by up to about
            # ±0.2 % relative each, i.e. ±0.4 % of the percentage.
            tol = 0.005 + 1e-9 if exact else max(0.2, 0.004 * t.done_percent)
            assert abs(j.done_percent - t.done_percent) <= tol
        if exact:
            assert (j.eta, j.eta_s, j.days) == (t.eta, t.eta_s, t.days)
        else:
            assert (j.eta_s is None) == (t.eta_s is None) or abs((j.eta_s or 0) - (t.eta_s or 0)) < 0.05 * (
                t.eta_s or j.eta_s or 1)
        assert j.nicebytes in (t.nicebytes, None)


@pytest.mark.needs_core
def test_round_trip_json_reads_as_the_text(runs):
    seen, checked, with_classes = set(), 0, 0
    for name, pool, epoch, snap, results in runs:
        text = render_text_status(snap, "zfs-2.3", pool, epoch, results)
        tx = status_of(text)
        with_classes += bool(tx.vdevs_of("logs") and tx.vdevs_of("cache"))
        for form, doc in forms(snap, pool, epoch, results).items():
            js = status_of(doc, f"{name}.json")
            where = f"{name} at {snap['t_ns'] // 10**9}s, {form}:\n{text}\n{doc}"
            try:
                _same_reading(js, tx, form)
            except AssertionError as e:
                raise AssertionError(f"{e}; {where}") from None
            assert zpool_status.guess_release(js).release == "zfs-2.3", where
            for s in js.scans:
                assert "zfs-2.3" in zpool_status.candidate_releases(s)[0], where
                seen.add((s.shape, s.state, s.sequential))
            checked += 1
    assert checked > 200 and with_classes > 3
    assert {("slash", "scanning", False), ("slash", "paused", False), ("finished", "finished", False),
            ("canceled", "canceled", False), ("slash", "scanning", True), ("finished", "finished", True)} <= seen, seen
    notes = {r.note for _, pool, epoch, snap, _ in runs
             for r in status_of(render_json(snap, "zfs-2.3", pool, epoch)).rows}
    assert {"cannot open", "(resilvering)"} <= notes


@pytest.mark.needs_core
@pytest.mark.parametrize("run", ["small-resilver", "small-slog-resilver"])
def test_imported_json_builds_the_text_scenario(runs, presets, run):
    """Downstream is unchanged: the scenario from the JSON is the text's, but for the
    header (the lines it quotes) and line references."""
    name, pool, epoch, snap, results = next(r for r in runs if r[0] == run
                                            and (r[3]["scan"] or {}).get("state") == "scanning")
    text = render_text_status(snap, "zfs-2.3", pool, epoch, results)
    from_text = isc.build(isc.read_inputs([("s.txt", text)]), isc.Options(release="zfs-2.3"), presets)
    from_json = isc.build(isc.read_inputs([("s.txt", render_json(snap, "zfs-2.3", pool, epoch, as_int=True,
                                                                 layout=results))]),
                          isc.Options(release="zfs-2.3"), presets)
    def body(t: str) -> list[str]:  # the TOML, line references and where sizes came from aside
        lines = [re.sub(r" \(s\.txt line \d+\)", "", ln) for ln in t.splitlines() if not ln.startswith("#")]
        return [re.sub(r"   # .*", "", ln) for ln in lines if not ln.startswith("capacity = ")]

    assert body(from_json) == body(from_text)
    # The JSON also says how big the disks are (phys_space) and how much each vdev holds
    # (alloc_space): the same pool, from the JSON's own figures.
    assert "zpool status -j: each vdev's alloc_space" in from_json
    assert re.search(r'capacity = "\d+G"   # .*zpool status -j: mirror-0 smallest disk phys_space', from_json)
    assert "replace" in from_json
    if run == "small-slog-resilver":  # the log mirror, the lone log disk and the L2ARC device
        assert 'names = ["sdd", "sde"]' in from_json and 'names = ["sdf"]' in from_json
        assert "[pool.cache]" in from_json and 'names = ["sdc"]' in from_json


# ----------------------------------------------------------------------------- fixtures

# file -> (pool, state, [(vdev kind, leaves)], classes, [scan fields of each block])
FIXTURES = {
    # strings, nested, -T u (time 1697246736 = pass_start + 5135 s), the pool of zfs-2.2-classes.txt.
    # scan rate 6.02T // 5135 = 6619059999212 // 5135 = 1289008763 ("1.20G"); issue rate
    # 2319969534607 // 5135 = 451795430 ("431M"); 15.7T = 17262332556083; % done 13.4395;
    # ETA (17262332556083 - 2319969534607) // 451795430 = 33073 s = 09:11:13 (the text's
    # 09:11:02 came from exact numbers).
    "zfs-2.3-json-scrub.txt": (
        "tank", "ONLINE",
        [("raidz2", [f"ata-WDC_WD80EFZX-68UW8N0_VK0A1B2{c}" for c in "CDEFGH"])],
        [("special", ["nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part3", "nvme-Samsung_SSD_970_EVO_S4EVNF0M2-part3"]),
         ("logs", ["nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part1", "nvme-Samsung_SSD_970_EVO_S4EVNF0M2-part1"]),
         ("cache", ["nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part2"]),
         ("spares", ["ata-WDC_WD80EFZX-68UW8N0_VK0A1B2J"])],
        [dict(func="scrub", state="scanning", shape="slash", since="Sat Oct 14 00:00:01 2023",
              scanned_bytes=6619059999212, total_bytes=17262332556083, issued_bytes=2319969534607,
              issue_total_bytes=17262332556083, scan_rate_bytes_per_s=1289008763,
              issue_rate_bytes_per_s=451795430, processed_bytes=0, eta="09:11:13", eta_s=33073, hms=True)]),
    # --json-int --json-flat-vdevs --json-pool-key-guid, one line, no -T: exact bytes, no
    # rate, no ETA. issue total 11435343085568 - 1099511627776 = 10335831457792;
    # % done 2211908157440 / 10335831457792 = 21.4004.
    "zfs-2.3-json-int-flat-resilver.txt": (
        "tank", "DEGRADED",
        [("raidz2", ["15227935785154093815", "sdg", "sdb", "sdc", "sdd", "sde", "sdf"])], [],
        [dict(func="resilver", state="scanning", shape="slash", since="Sat Jan  9 08:06:41 2021",
              scanned_bytes=2396942229504, issued_bytes=2211908157440, total_bytes=11435343085568,
              issue_total_bytes=10335831457792, processed_bytes=387620519936, scan_rate_bytes_per_s=None,
              issue_rate_bytes_per_s=None, eta=None, eta_s=None)]),
    # The scrub the finished rebuild started, then the rebuild (print_scan_status prints
    # both: the rebuild ended after the last resilver). scan_time "3?" (3310 s: zpool's
    # NICENUM_TIME has no unit past seconds), so the rebuild's time is end - start.
    "zfs-2.3-json-rebuild-scrub.txt": (
        "tank", "ONLINE",
        [("mirror", ["sda", "sde"]), ("mirror", ["sdc", "sdd"])], [],
        [dict(func="scrub", state="finished", shape="finished", took="00:34:46", took_s=2086, errors=0,
              processed_bytes=0, ended="Sat Oct 14 01:30:18 2023", rebuild_vdev=None),
         dict(func="resilver", state="finished", shape="finished", rebuild_vdev="mirror-0", took="00:55:10",
              took_s=3310, processed_bytes=parse_number("30.9G"), ended="Sat Oct 14 00:55:31 2023")]),
    # FreeBSD, -T d: dates without a zone name; elapsed = 01:25:36 - 00:00:01 = 5135 s.
    # 1.20T // 5135 = 1319413953331 // 5135 = 256945268; 1.02T // 5135 = 218403478;
    # ETA (3859285813494 - 1121501860332) // 218403478 = 12535 s = 03:28:55.
    "zfs-2.3-json-freebsd-offline.txt": (
        "zroot", "DEGRADED",
        [("mirror", ["ada0p2", "ada1p2"]), ("mirror", ["ada2p2", "ada3p2"])], [],
        [dict(func="scrub", state="scanning", scanned_bytes=1319413953331, total_bytes=3859285813494,
              scan_rate_bytes_per_s=256945268, issue_rate_bytes_per_s=218403478, eta_s=12535,
              done_percent=pytest.approx(29.0598, abs=1e-4))]),
}


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture_reads_as_expected(name):
    pool, state, vdevs, classes, scans = FIXTURES[name]
    st = fixture(name)
    assert (st.name, st.state, st.errors) == (pool, state, "No known data errors")
    assert [(v.kind, [leaf.name for leaf in v.leaves()]) for v in st.vdevs] == vdevs
    assert [(label, [leaf.name for v in vs for leaf in v.leaves()]) for label, vs in st.classes] == classes
    assert len(st.scans) == len(scans)
    for s, want in zip(st.scans, scans):
        for key, value in want.items():
            assert getattr(s, key) == value, (key, getattr(s, key), value)
    assert zpool_status.guess_release(st).release == "zfs-2.3"


@pytest.mark.needs_core
@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_every_json_fixture_makes_a_valid_scenario(name, presets):
    from ziosim import scenario

    st = fixture(name)
    text = isc.build(isc.read_inputs([(name, (FIX / name).read_text())]), isc.Options(), presets)
    sc = scenario.loads(text, path="imported.toml")
    assert sc.release == "zfs-2.3" and sc.config["pool"]["name"] == st.name
    assert sc.config["stop_on_scan_done"] == any(s.active for s in st.scans)
    assert "#   release zfs-2.3: zpool status -j (JSON output, OpenZFS 2.3.0 and later)" in text.splitlines()


def test_fixture_notes_and_states():
    rows = {r.name: r for r in fixture("zfs-2.3-json-int-flat-resilver.txt").rows}
    assert (rows["15227935785154093815"].state, rows["15227935785154093815"].note) == ("UNAVAIL", "was /dev/sda1")
    assert (rows["sdg"].note, rows["replacing-0"].state) == ("(resilvering)", "DEGRADED")
    rows = {r.name: r for r in fixture("zfs-2.3-json-freebsd-offline.txt").rows}
    assert rows["ada2p2"].state == "OFFLINE"
    assert rows["ada3p2"].note == "block size: 512B configured, 4096B native"
    assert zpool_status.guess_release(fixture("zfs-2.3-json-freebsd-offline.txt")).platform == "freebsd"
    st = fixture("zfs-2.3-json-scrub.txt")
    (spare,) = st.vdevs_of("spares")
    assert (spare.state, spare.read) == ("AVAIL", None)
    assert [r.line for r in st.rows[:2]] == [10, 48]  # where each vdev's name stands in the file
    assert [ln.number for ln in st.scans[0].lines] == [17, 21, 26]


def test_one_file_holds_text_and_json():
    """A prompt names each output; the JSON section ends where its document does."""
    text = (FIX / "zfs-2.2-paused.txt").read_text() + "\n" + (FIX / "zfs-2.3-json-rebuild-scrub.txt").read_text()
    t = isc.read_texts([("both.txt", text)])
    assert [f.split(": ", 1)[1] for f in t.found] == ["zpool status (lines 1-19)", "zpool status -j (lines 21-186)"]
    assert [s.source for s in t.statuses] == ["text", "json"]


def test_interval_repeats_read_as_the_last():
    one = (FIX / "zfs-2.3-json-int-flat-resilver.txt").read_text().splitlines()[1]
    later = one.replace('"examined":2396942229504', '"examined":2496942229504')
    imp = isc.read_inputs([("watch.txt", f"{one}\n{later}\n")])
    assert imp.status.scans[0].scanned_bytes == 2496942229504 and imp.status.first_line == 2


# ----------------------------------------------------------------------------- errors

GOOD = (FIX / "zfs-2.3-json-freebsd-offline.txt").read_text()


def _error(text: str) -> str:
    with pytest.raises(ScenarioError) as e:
        isc.read_inputs([("bad.json", text)])
    assert "\n" not in e.value.line
    return e.value.line


@pytest.mark.parametrize(("change", "expected"), [
    (lambda t: t.replace('"examined": "1.20T"', '"examined": "1.20Q"'),
     'bad.json:24: .pools.zroot.scan_stats.examined: "1.20Q" — expected a byte count as zpool prints it ("1.21T", '
     '"0B", "512") or, with --json-int, an integer'),
    (lambda t: t.replace('"state": "OFFLINE"', '"state": "HAPPY"'),
     'bad.json:116: .pools.zroot.vdevs.zroot.vdevs["mirror-1"].vdevs.ada2p2.state: "HAPPY" — expected one of '
     "ONLINE, DEGRADED, FAULTED, OFFLINE, CLOSED, REMOVED, CANT_OPEN, AVAIL, INUSE"),
    (lambda t: t.replace('"start_time": "Sat Oct 14 00:00:01 2023"', '"start_time": "Sa 14 Okt 2023 00:00:01"'),
     'bad.json:21: .pools.zroot.scan_stats.start_time: "Sa 14 Okt 2023 00:00:01" — expected a date as zpool status '
     '-j prints it in the C locale ("Sat Oct 14 00:00:01 UTC 2023", "-") or, with --json-int, seconds since 1970 '
     "(run LC_ALL=C zpool status -j, or add --json-int)"),
    (lambda t: t.replace('"function": "SCRUB"', '"function": "ERRORSCRUB"'),
     'bad.json:19: .pools.zroot.scan_stats.function: "ERRORSCRUB" — expected one of NONE, SCRUB, RESILVER'),
    (lambda t: t.replace('"command": "zpool status"', '"command": "zpool list"'),
     'bad.json:4: .output_version.command: "zpool list" — expected zpool status -j output (this is zpool list -j '
     "output; zpool list and zpool iostat are read as text)"),
    (lambda t: t[: t.index('"scan_stats"')],
     "bad.json:18: expected JSON as zpool status -j prints it (Expecting property name enclosed in double quotes "
     "at column 7); is the paste cut off?"),
    (lambda t: t.replace('"read_errors": "0",\n', "", 1),
     'bad.json:36: .pools.zroot.vdevs.zroot.read_errors: expected a byte count as zpool prints it ("1.21T", "0B", '
     '"512") or, with --json-int, an integer (the key is missing)'),
    (lambda t: re.sub(r'"pools": \{.*\n(?=  "time")', '"pools": {},\n', t, flags=re.S),
     "bad.json:8: .pools: expected a pool's zpool status -j (the JSON lists none: zpool status -x -j leaves healthy "
     "pools out; run zpool status -j POOL)"),
    (lambda t: t.replace('"vdev_type": "mirror"', '"vdev_type": "raidz"', 1),
     'bad.json:50: .pools.zroot.vdevs.zroot.vdevs["mirror-0"].name: "mirror-0" — expected a raidz vdev named '
     'raidzP-N ("raidz2-0"), which gives its parity (zpool status -j -g names vdevs by guid; run it without -g)'),
])
def test_errors_name_file_line_path_and_what_is_allowed(change, expected):
    assert isc.read_inputs([("ok.json", GOOD)]).status.name == "zroot"  # the unchanged text reads
    assert _error(change(GOOD)) == expected


def test_error_examples_in_the_docs_are_what_ziosim_prints():
    doc = (ROOT / "docs" / "import.md").read_text().split("## `zpool status -j` (JSON, 2.3+)")[1].split("\n## ")[0]
    shown = [ln for ln in doc.split("```")[-2].splitlines() if ln.startswith("error: ")]
    made = []
    for change in (lambda t: t.replace('"examined": "1.20T"', '"examined": "1.20Q"'),
                   lambda t: t[: t.index('"scan_stats"')],
                   lambda t: t.replace('"command": "zpool status"', '"command": "zpool list"')):
        with pytest.raises(ScenarioError) as e:
            isc.read_inputs([("status.json", change(GOOD))])
        made.append(f"error: {e.value.line}")
    assert shown == made


def test_import_text_error_with_a_json_path_is_one_line():
    e = ImportTextError("f.json", 3, "HAPPY", "one of ONLINE", path=".pools.tank.state")
    assert e.line == 'f.json:3: .pools.tank.state: "HAPPY" — expected one of ONLINE'


# ----------------------------------------------------------------------------- CLI


@pytest.fixture(scope="module")
def presets():
    pytest.importorskip("ziosim._core")
    from ziosim import _native

    return _native.presets()


def _cli(*args):
    from typer.testing import CliRunner

    from ziosim.cli import app

    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, [str(a) for a in args], env={"NO_COLOR": "1", "COLUMNS": "100"})


@pytest.mark.needs_core
def test_cli_imports_json_as_2_3(tmp_path):
    r = _cli("import", FIX / "zfs-2.3-json-int-flat-resilver.txt")
    assert r.exit_code == 0, r.stderr
    assert 'release = "zfs-2.3"' in r.stdout and "zpool status -j (JSON output, OpenZFS 2.3.0" in r.stdout
    assert 'do = "replace"\nold = "15227935785154093815"\nnew = "sdg"' in r.stdout
    bad = tmp_path / "cut.json"
    bad.write_text((FIX / "zfs-2.3-json-int-flat-resilver.txt").read_text()[:900])
    r = _cli("import", bad)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith(f"error: {bad}:2: ") and r.stderr.count("\n") == 1


@pytest.mark.needs_core
def test_cli_json_view_needs_2_3(tmp_path):
    r = _cli("run", SCENARIOS / "default.toml", "--stop", "1s", "--views", "status-json", "--out", tmp_path / "o")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == ('error: --views: "status-json" — status-json is zpool status -j, which release zfs-2.2 '
                        "lacks (added in OpenZFS 2.3.0); allowed: release zfs-2.3, or the view status\n")
    assert not (tmp_path / "o").exists()


@pytest.mark.needs_core
def test_cli_json_view_is_deterministic_and_reads_back(tmp_path):
    args = ("run", SCENARIOS / "default.toml", "--stop", "70s", "--set", "zfs.release=zfs-2.3", "--views",
            "status-json,status-json-int", "-q")
    one, two = _cli(*args, "--out", tmp_path / "a"), _cli(*args, "--out", tmp_path / "b")
    assert one.exit_code == 0, one.stderr
    assert one.stdout == two.stdout
    blocks = one.stdout.split("\n$ ")[1:]
    assert [b.splitlines()[0] for b in blocks] == ["zpool status -j -T u tank",
                                                   "zpool status -j --json-int -T u tank"]
    strings, ints = (json.loads(b.splitlines()[1]) for b in blocks)
    assert strings["pools"]["tank"]["scan_stats"]["function"] == "SCRUB"
    assert isinstance(ints["time"], int) and strings["time"] == str(ints["time"])
    st = isc.read_inputs([("run.txt", one.stdout.split("\n", 2)[2])]).status  # the header lines are not zpool's
    assert st.source == "json" and st.scans[0].state == "scanning"
