"""A straggler found in ``iostat -x`` is simulated as one (docs/import.md, "A straggler is
simulated as one"): its own device, the vdev's preset with read recovery calibrated from its
service time without queueing; ``--no-straggler-model``, SSD vdevs and disks whose reads are
no slower keep the report only. Values are checked against the fixtures' own numbers."""

from __future__ import annotations

import statistics

import pytest
from typer.testing import CliRunner

from ziosim.importers import iostat_x
from ziosim.importers import scenario as isc

from conftest import ROOT

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

FIX = ROOT / "tests" / "python" / "fixtures" / "import"
REL = "tests/python/fixtures/import"
STRAGGLER = "zfs-2.1-iostat-x-straggler.txt"
BUSY = "freebsd-13-iostat-x-busy.txt"
ENV = {"NO_COLOR": "1", "COLUMNS": "100"}

pytestmark = pytest.mark.needs_core


@pytest.fixture(scope="module")
def presets():
    pytest.importorskip("ziosim._core")
    from ziosim import _native

    return _native.presets()


def imported(names, texts=()):
    files = [(f"{REL}/{n}", (FIX / n).read_text()) for n in names] + list(texts)
    return isc.read_inputs(files)


def build(names, presets, texts=(), **opts) -> str:
    return isc.build(imported(names, texts), isc.Options(**opts), presets)


def header(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith("#")]


def config(text: str) -> dict:
    from ziosim import scenario

    return scenario.loads(text, path="x.toml").config


# ----------------------------------------------------------------------------- the arithmetic


def service_without_queueing(r_s, read_ms, w_s, write_ms, busy_percent):
    """The docs' rule, written out again: printed time × U ÷ N when N > U."""
    n = (r_s * read_ms + w_s * write_ms) / 1000
    u = busy_percent / 100
    return read_ms * u / n if n > u else read_ms


# Report 2 of the Linux fixture: r/s, r_await, w/s, w_await, %util
SDC = (48.10, 141.30, 2.90, 6.82, 99.60)
PEERS = {"sda": (62.40, 5.82, 3.10, 4.21, 38.21), "sdb": (61.90, 6.47, 3.00, 4.53, 40.12),
         "sdd": (62.10, 4.91, 3.10, 3.88, 35.44), "sde": (61.70, 7.64, 3.00, 4.95, 44.90),
         "sdf": (62.30, 5.37, 3.10, 4.02, 36.70)}
REV_7200_MS = 60_000 / 7200


def test_service_time_without_queueing_of_the_fixture_rows():
    x = imported([STRAGGLER]).iostat_x
    by = {d.name: d for d in x.disks}
    assert iostat_x.in_flight(by["sdc"]) == pytest.approx(by["sdc"].queue, abs=0.005)  # Little's law = aqu-sz
    assert iostat_x.device_service_ms(by["sdc"]) == pytest.approx(service_without_queueing(*SDC))
    assert iostat_x.device_service_ms(by["sdc"]) == pytest.approx(20.65, abs=0.01)
    assert iostat_x.device_service_ms(by["sda"]) == 5.82  # 0.376 in flight at 38 % busy: nothing waited
    ada3 = {d.name: d for d in imported([BUSY]).iostat_x.disks}["ada3"]
    assert iostat_x.device_service_ms(ada3) == 13  # 74 × 13 ms + 4 × 9 ms = 0.998 in flight at 100 %


def test_straggler_gets_its_own_device_calibrated_from_the_fixture(presets):
    own = service_without_queueing(*SDC)
    peers = statistics.median(service_without_queueing(*p) for p in PEERS.values())
    delta = own - peers
    assert peers == 5.82 and delta == pytest.approx(14.83, abs=0.01) and delta > REV_7200_MS
    text = build([STRAGGLER], presets)
    doc = tomllib.loads(text)
    slow = doc["devices"]["sdc-slow"]
    assert slow == {"like": "hdd-7200-sata-2014", "capacity": doc["devices"]["hdd"]["capacity"],
                    "read_recovery_probability": 1.0,
                    "read_recovery_revolutions_mean": float(f"{delta / REV_7200_MS:.3g}")}
    assert slow["read_recovery_revolutions_mean"] == 1.78
    (vdev,) = doc["pool"]["vdevs"]
    assert "device" not in vdev and vdev["devices"] == ["hdd", "hdd", "sdc-slow", "hdd", "hdd", "hdd"]
    lines = text.splitlines()
    comment = lines[lines.index("[devices.sdc-slow]   # the straggler sdc (header: iostat -x)") + 1]
    assert comment == ("# sdc: 20.6 ms per read vs peers' median 5.8 ms (iostat -x r_await 141.3 ms × %util 99.6 ÷ "
                       "6.82 I/Os in flight: the queueing taken out): every read recovers, mean 1.78 revolutions of "
                       "8.33 ms")
    assert any(ln.startswith("#   straggler sdc: its slower reads are modelled as media read recovery (device "
                             "sdc-slow), the least variable recovery") for ln in header(text))
    c = config(text)
    assert [d["device"] for d in c["pool"]["vdevs"][0]["disks"]] == ["hdd", "hdd", "sdc-slow", "hdd", "hdd", "hdd"]
    spec = c["devices"]["sdc-slow"]
    assert (spec["read_recovery_probability"], spec["read_recovery_revolutions_mean"]) == (1.0, 1.78)
    assert spec["capacity_bytes"] == c["devices"]["hdd"]["capacity_bytes"]
    assert spec["recovery_time_limit_ms"] == presets["hdd-7200-sata-2014"]["spec"]["recovery_time_limit_ms"]


def test_less_than_a_revolution_is_a_share_of_reads_for_one_revolution(presets):
    # ada3: ms/r 13 as printed (nothing waited); peers 3, 4 × 0.33/0.388 and 3 ms: median 3.0 ms; Δ = 10 ms.
    # On a 5400 rpm WD Red a revolution is 11.1 ms, so 10/11.1 = 90 % of reads recover once.
    text = build([BUSY], presets, device="wd20efrx")
    doc = tomllib.loads(text)
    assert doc["devices"]["ada3p3-slow"]["read_recovery_probability"] == float(f"{10 / (60_000 / 5400):.3g}") == 0.9
    assert doc["devices"]["ada3p3-slow"]["read_recovery_revolutions_mean"] == 1.0
    assert [v.get("device", v.get("devices")) for v in doc["pool"]["vdevs"]] == ["hdd", ["hdd", "ada3p3-slow"]]
    assert "90.0% of reads recover, one revolution of 11.11 ms each" in text
    config(text)
    # at 7200 rpm the same 10 ms is more than a revolution: every read, 1.2 revolutions
    doc = tomllib.loads(build([BUSY], presets))
    assert doc["devices"]["ada3p3-slow"]["read_recovery_revolutions_mean"] == float(f"{10 / REV_7200_MS:.3g}") == 1.2


def test_no_straggler_model_keeps_the_report_only(presets):
    text = build([STRAGGLER], presets, straggler_model=False)
    assert "-slow" not in text and "read_recovery" not in text
    doc = tomllib.loads(text)
    assert doc["pool"]["vdevs"][0]["device"] == "hdd" and "devices" not in doc["pool"]["vdevs"][0]
    assert "#   not modelled: --no-straggler-model; sdc runs at its peers' speed here, so expect the real scan and " \
           "the users' latency to be worse" in header(text)
    assert any(ln.startswith("#   straggler (slow and busy): sdc in raidz2-0") for ln in header(text))
    config(text)


def test_ssd_vdev_keeps_the_report_only_and_says_why(presets):
    assert presets["samsung-850pro"]["spec"]["kind"] == "ssd"
    text = build([STRAGGLER], presets, device="samsung-850pro")
    assert "-slow" not in text and "read_recovery" not in text
    assert ("#   not modelled: its vdev's device samsung-850pro is an SSD, and only ziosim's HDD model has read "
            "recovery to make one disk slower; sdc runs at its peers' speed here, so expect the real scan and the "
            "users' latency to be worse") in header(text)
    config(text)


MIRROR = """\
$ zpool status tank
  pool: tank
 state: ONLINE
config:

\tNAME        STATE     READ WRITE CKSUM
\ttank        ONLINE       0     0     0
\t  mirror-0  ONLINE       0     0     0
\t    sda     ONLINE       0     0     0
\t    sdb     ONLINE       0     0     0
\t    sdc     ONLINE       0     0     0

errors: No known data errors
$ iostat -x 10 2
Device            r/s     rkB/s r_await     w/s     wkB/s w_await  aqu-sz  %util
sda              1.00      4.00    1.00    1.00      4.00    1.00    0.00   0.10
sdb              1.00      4.00    1.00    1.00      4.00    1.00    0.00   0.10
sdc              1.00      4.00    1.00    1.00      4.00    1.00    0.00   0.10

Device            r/s     rkB/s r_await     w/s     wkB/s w_await  aqu-sz  %util
sda             60.00   7680.00    6.00    1.00      4.00    1.00    0.36  {a_util}
sdb             60.00   7680.00    6.00    1.00      4.00    1.00    0.36  {a_util}
sdc             {c_r_s}  7680.00  {c_ms}    1.00      4.00    1.00    {c_q}  {c_util}
"""


def mirror(a_util="36.10", c_r_s="150.00", c_ms="6.00", c_q="0.90", c_util="95.00"):
    return [("mirror.txt", MIRROR.format(a_util=a_util, c_r_s=c_r_s, c_ms=c_ms, c_q=c_q, c_util=c_util))]


def test_a_busy_disk_whose_reads_are_no_slower_is_not_modelled(presets):
    # sdc is busy (95 % vs 36 %) from doing more reads, each as fast as its peers' (0.9 and 0.361 in
    # flight at 95 % and 36.1 % busy: nothing waited on either): no recovery to model.
    text = build([], presets, texts=mirror())
    assert any(ln.startswith("#   straggler (busy): sdc in mirror-0") for ln in header(text))
    assert ("#   not modelled: without queueing its r_await (6.0 ms) is no longer than its peers' median (6.0 ms): its "
            "extra busy time is not slower reads; sdc runs at its peers' speed here, so expect the real scan and the "
            "users' latency to be worse") in header(text)
    assert "-slow" not in text
    config(text)


def test_the_recovery_time_limit_is_named_when_it_cuts_the_mean(presets):
    # 0.2 reads/s of 4 s each at 95 % busy (0.801 in flight: nothing waited): Δ = 3994 ms, 479 revolutions
    # on average, which the 7 s ERC limit of the 2014 preset cuts (a geometric count of mean m cut at k has
    # mean m (1 − (1 − 1/m)^k)); the 30 s of the 2009 desktop drive, without ERC, hardly does.
    texts = mirror(c_r_s="0.20", c_ms="4000.00", c_q="0.80")
    text = build([], presets, texts=texts)
    doc = tomllib.loads(text)
    m = doc["devices"]["sdc-slow"]["read_recovery_revolutions_mean"]
    assert m == float(f"{3994 / REV_7200_MS:.3g}") == 479
    gain = m * (1 - (1 - 1 / m) ** (7000 / REV_7200_MS)) * REV_7200_MS
    assert 0.8 * 3994 < gain < 0.85 * 3994
    cut = [ln for ln in header(text) if ln.startswith("#   modelled: sdc")]
    assert cut and (f"the preset's recovery_time_limit_ms cuts the longest, so reads gain {gain:.1f} ms, not "
                    f"{m * REV_7200_MS:.1f} ms (raise it if the drive has no ERC/TLER)") in cut[0]
    config(text)
    text = build([], presets, texts=texts, device="hdd-7200-desktop-2009")
    assert "cuts the longest" not in text


def test_a_disk_name_that_is_no_bare_toml_key_is_quoted(presets):
    assert isc._key("sdc-slow") == "sdc-slow"
    assert isc._key("ada1p3.eli-slow") == '"ada1p3.eli-slow"'
    text = build([], presets, texts=[("m.txt", mirror(c_r_s="15.00", c_ms="60.00", c_util="99.00")[0][1]
                                      .replace("sdc", "ada1p3.eli"))])
    assert '[devices."ada1p3.eli-slow"]' in text
    assert tomllib.loads(text)["devices"]["ada1p3.eli-slow"]["read_recovery_probability"] == 1.0
    config(text)


# ----------------------------------------------------------------------------- the command line


def _invoke(*args):
    from ziosim.cli import app

    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, ["import", *[str(a) for a in args]], env=ENV)


def test_cli_says_what_became_of_each_straggler():
    r = _invoke(FIX / STRAGGLER)
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines()[0].endswith("; modelled as device sdc-slow: every read recovers, mean 1.78 "
                                             "revolutions of 8.33 ms")
    assert "[devices.sdc-slow]" in r.stdout
    old = _invoke(FIX / STRAGGLER, "--no-straggler-model")
    assert old.exit_code == 0, old.stderr
    assert old.stderr.splitlines()[0].endswith(f"({FIX}/{STRAGGLER} line 45); not modelled: --no-straggler-model")
    assert "sdc-slow" not in old.stdout and 'device = "hdd"' in old.stdout


# ----------------------------------------------------------------------------- a run


def read_service_ms(text: str, stop: str = "10s") -> dict[str, float]:
    """Mean time at the disk of each data disk's scrub reads, from the summary's leaves."""
    from ziosim import runner, scenario
    from ziosim.report.summary import build_summary

    leaves = build_summary(runner.run(scenario.loads(text, path="x.toml", stop=stop)), {})["leaves"]
    return {n: leaf["classes"]["scrub"]["disk_wait_ns"]["mean"] for n, leaf in leaves.items()
            if leaf["classes"].get("scrub", {}).get("ops")}


def test_the_imported_straggler_reads_slower_than_its_peers_in_a_run(presets):
    slow = read_service_ms(build([STRAGGLER], presets))
    assert sorted(slow) == ["sda", "sdb", "sdc", "sdd", "sde", "sdf"]
    peers = max(v for n, v in slow.items() if n != "sdc")
    assert slow["sdc"] > 2 * peers, slow
    # the same pool without the model: sdc is one of the crowd, so the model made the difference
    alike = read_service_ms(build([STRAGGLER], presets, straggler_model=False))
    assert alike["sdc"] < 1.3 * min(v for n, v in alike.items() if n != "sdc"), alike
