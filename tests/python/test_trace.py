"""Trace workloads (``kind = "trace"``): the file formats (python/ziosim/trace.py), the
scenario fields, the ``workloads-done`` stop, and a replay through the real core."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys

import pytest

from conftest import ROOT, SCENARIOS

from ziosim import ScenarioError
from ziosim import trace as T

BLKPARSE = """\
  8,0    3        1     0.000000000   697  Q   R 223490 + 8 [fio]
  8,0    3        2     0.000001000   697  G   R 223490 + 8 [fio]
  8,0    3        3     0.000005000   697  D   R 223490 + 8 [fio]
  8,0    1        4     0.004000000     0  C   R 223490 + 8 [0]
  8,16   0        5     0.010000000   345  Q FWFS 1000 + 8 [jbd2/sda1-8]
  8,0    0        6     0.020000000   345  Q  FN [kworker]
  8,0    0        7     0.030000000   345  Q  DS 5000 + 2048 [fstrim]
  8,0    0        8     0.040000000   345  Q  WS 9000 + 256 [postgres]

CPU0 (8,0):
 Reads Queued:           1,        4KiB\t Writes Queued:           0,        0KiB
Total (8,0):
"""

FIO3 = """\
fio version 3 iolog
0 /dev/sdb add
1 /dev/sdb open
100 /dev/sdb write 0 4096
250 /dev/sdb read 8192 4096
300 /dev/sdb sync 0 0
320 /dev/sdb trim 0 4096
400 /dev/sdb close
"""

MSR = """\
128166372003061629,hm,1,Read,3154152960,32768,11659
128166372016382155,hm,1,Write,3154152960,32768,12151
128166372026382245,hm,0,Write,0,4096,12151
"""

SPC = """\
0,303567,3584,w,0.000000
1,55590,3072,w,0.000000
0,303574,3584,r,0.026214
"""

CSV = """\
# a comment
time,op,offset,size
0.5,W,8192,8192
0.25,read,0,4096
0.75,fsync,0,0
1.0,T,0,4096
"""


def test_blkparse_takes_the_queued_events_and_their_flags():
    t = T.parse(BLKPARSE)
    assert t.fmt == "blkparse"
    # Q events only: R; PREFLUSH+FUA write = a flush then a durable write; a bare flush;
    # the discard skipped; a plain write.
    assert t.ops == ["R", "F", "S", "F", "W"]
    assert list(t.t_ns) == [0, 10_000_000, 10_000_000, 20_000_000, 40_000_000]
    assert list(t.size) == [4096, 0, 4096, 0, 131072]
    assert t.files == ["8,0", "8,16"] and list(t.file) == [0, 1, 1, 0, 0]
    assert t.skipped == {"discard": 1}
    # Each device from its lowest sector (rounded down to 1 MiB), the devices end to end.
    r, w = t.offset[0], t.offset[4]
    assert r - w == (223490 - 9000) * 512
    assert w == 9000 * 512 % (1 << 20)
    assert t.offset[2] >= 1 << 20  # the second device comes after the first


def test_blkparse_falls_back_to_issued_events():
    text = "\n".join(ln for ln in BLKPARSE.splitlines() if " Q " not in ln)
    t = T.parse(text)
    assert t.ops == ["R"] and list(t.t_ns) == [0]


def test_fio_v3_times_are_microseconds_and_v2_is_untimed():
    t = T.parse(FIO3)
    assert (t.fmt, t.ops, list(t.t_ns), list(t.offset)) == ("fio", ["W", "R", "F"], [0, 150_000, 200_000], [0, 8192, 0])
    assert t.skipped == {"trim": 1}
    v2 = T.parse("fio version 2 iolog\n/dev/sdb add\n/dev/sdb read 0 4096\n/dev/sdb read 4096 4096\n")
    assert v2.t_ns is None and v2.ops == ["R", "R"]
    # A v2 wait holds the records after it until its time (ms since the start).
    w = T.parse("fio version 2 iolog\nf read 0 4096\nf wait 0 0\nf wait 250 0\nf read 0 4096\n")
    assert list(w.t_ns) == [0, 250_000_000]


def test_msr_and_spc_units():
    m = T.parse(MSR)
    assert m.fmt == "msr" and m.ops == ["R", "W", "W"]
    assert list(m.t_ns) == [0, (128166372016382155 - 128166372003061629) * 100, (128166372026382245 - 128166372003061629) * 100]
    assert m.files == ["hm/1", "hm/0"]
    s = T.parse(SPC)
    assert s.fmt == "spc" and s.ops == ["W", "W", "R"] and list(s.t_ns) == [0, 0, 26_214_000]
    assert s.offset[2] - s.offset[0] == (303574 - 303567) * 512


def test_csv_sorts_by_time_and_speed_divides_it():
    t = T.parse(CSV, speed=2.0)
    assert t.fmt == "csv" and t.ops == ["R", "W", "F"]
    assert list(t.t_ns) == [0, 125_000_000, 250_000_000]
    assert t.skipped == {"trim": 1}
    untimed = T.parse("op,offset,size\nR,0,4096\n")
    assert untimed.t_ns is None


@pytest.mark.parametrize("text, fmt, where", [
    ("time,op,offset,size\n0.1,X,0,4096\n", "auto", "t.csv:2: op 'X' — allowed: R, W, S, F or T"),
    ("time,op,size\n0.1,R,4096\n", "csv", "t.csv:1: header 'time,op,size' has no offset column"),
    ("time,op,offset,size\n0.1,R,zero,4096\n", "csv", "t.csv:2: offset 'zero' — allowed: a whole number"),
    ("time,op,offset,size\n-1,R,0,4096\n", "csv", "t.csv:2: time '-1' — allowed: 0 or more seconds"),
    ("hello world\n", "auto", "t.csv:1: 'hello world' — cannot tell the format"),
    ("fio version 3 iolog\n1 f read 0\n", "auto", "t.csv:2: 4 fields — allowed"),
    ("fio version 3 iolog\n1 f frob 0 1\n", "auto", "t.csv:2: action 'frob' with 2 values"),
    ("fio version 1 iolog\n", "fio", "t.csv:1: 'fio version 1 iolog' — allowed: a first line"),
    ("  8,0  3  1  0.0  697  Q  R xyz\n", "blkparse", "t.csv:1: '8,0  3  1  0.0  697  Q  R xyz' — a read or write with no"),
    ("1,hm,1,Frob,0,4096,1\n", "msr", "t.csv:1: type 'Frob' — allowed: Read or Write"),
    ("time,op,offset,size\n", "csv", "t.csv: no records"),
    ("time,op,offset,size\n0,T,0,4096\n", "csv", "t.csv: no records"),
])
def test_bad_traces_fail_with_one_line_naming_the_line(text, fmt, where):
    with pytest.raises(ScenarioError) as e:
        T.parse(text, fmt, where="t.csv")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(where), msg


LONGEST = "allowed: at most 34560000 s (400d, the longest run) after the first record, after dividing by speed"


@pytest.mark.parametrize("text, fmt, speed, line", [
    # The QA inputs (/tmp/qa/cli/tr): each was `internal error: OverflowError: int too big to convert`.
    ("time,op,offset,size\n0.0,R,0,4096\n30000,R,0,4096\n", "csv", 0.000001,
     "t.csv:3: time 30000 s — 30000000000 s after the first record (line 2), after dividing by speed 1e-06; "
     + LONGEST),
    ("time,op,offset,size\n0.0,R,0,4096\n2e10,R,0,4096\n", "csv", 1.0,
     "t.csv:3: time 20000000000 s — 20000000000 s after the first record (line 2); " + LONGEST),
    ("0,20941264,8192,W,0.5\n0,20939840,8192,W,30000000000\n", "spc", 1.0,
     "t.csv:2: time 30000000000 s — 29999999999.5 s after the first record (line 1); " + LONGEST),
    # 1e12 is finite: the message said "allowed: 0 or more seconds, finite".
    ("time,op,offset,size\n0.0,R,0,4096\n1e12,R,0,4096\n", "csv", 1.0,
     "t.csv:3: time 1e+12 s — 1e+12 s after the first record (line 2); " + LONGEST),
    # Out of order: the earlier record puts the later one past the bound.
    ("time,op,offset,size\n40000000,R,0,4096\n0.5,R,0,4096\n", "csv", 1.0,
     "t.csv:3: time 0.5 s — 39999999.5 s before the record at line 2; " + LONGEST),
    ("fio version 3 iolog\n0 f read 0 4096\n99999999999999999999 f read 0 4096\n", "fio", 1.0,
     "t.csv:3: time 1e+14 s — 1e+14 s after the first record (line 2); " + LONGEST),
    # Close together but beyond the u64 nanoseconds the trace's clock is kept in.
    ("time,op,offset,size\n2e10,R,0,4096\n2e10,R,0,4096\n", "csv", 1.0,
     "t.csv:2: time 20000000000 s — allowed: at most 18446744073.7 s (2^64 ns) as written"),
])
def test_times_past_the_longest_run_are_one_line_with_the_bound(text, fmt, speed, line):
    with pytest.raises(ScenarioError) as e:
        T.parse(text, fmt, where="t.csv", speed=speed)
    assert str(e.value) == line


def test_a_trace_as_long_as_the_longest_run_is_replayed():
    from ziosim.scenario import TIME_NS_MAX

    t = T.parse("time,op,offset,size\n0,R,0,4096\n34560000,R,0,4096\n")
    assert list(t.t_ns) == [0, TIME_NS_MAX]
    slow = T.parse("time,op,offset,size\n5,R,0,4096\n39.56,R,0,4096\n", speed=0.000001)
    assert list(slow.t_ns) == [0, TIME_NS_MAX]
    with pytest.raises(ScenarioError, match=r"^t\.csv:3: time 34560000\.001\d* s — 34560000\.001\d* s after"):
        T.parse("time,op,offset,size\n0,R,0,4096\n34560000.001,R,0,4096\n", where="t.csv")
    # Unix times are fine: counted from the first record.
    epoch = T.parse("time,op,offset,size\n1700000000,R,0,4096\n1700000002,R,0,4096\n")
    assert list(epoch.t_ns) == [0, 2_000_000_000]


def test_an_overflowing_trace_is_an_input_error_of_the_run(tmp_path):
    """The whole command: exit 2, one line naming the field, the file and its line."""
    p = _scenario(tmp_path, "speed = 0.000001", trace="time,op,offset,size\n0.0,R,0,4096\n30000,R,0,4096\n")
    r = subprocess.run([sys.executable, "-m", "ziosim", "run", p, "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == ("error: workload[0].trace: t.csv:3: time 30000 s — 30000000000 s after the first record "
                        "(line 2), after dividing by speed 1e-06; " + LONGEST + "\n")


def test_gzip_and_unreadable_files(tmp_path):
    p = tmp_path / "t.csv.gz"
    p.write_bytes(gzip.compress(CSV.encode()))
    assert T.load(p).ops == ["R", "W", "F"]
    b = tmp_path / "t.bin"
    b.write_bytes(b"\x00\xff\xfe" * 10)
    with pytest.raises(ScenarioError, match="not text"):
        T.load(b)
    with pytest.raises(ScenarioError, match="no such file"):
        T.load(tmp_path / "missing.csv")


def _scenario(tmp_path, workload: str, stop: str = "60s", trace: str = CSV) -> str:
    (tmp_path / "t.csv").write_text(trace)
    p = tmp_path / "s.toml"
    p.write_text(f"""
[scenario]
stop = "{stop}"
[zfs]
release = "zfs-2.2"
[pool]
allocated = "10G"
vdevs = [{{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }}]
[[workload]]
kind = "trace"
trace = "t.csv"
{workload}
""")
    return str(p)


def test_a_trace_workload_in_a_scenario(tmp_path, fake_core):
    from ziosim import scenario

    sc = scenario.load(_scenario(tmp_path, "speed = 2\narc_hit = 0.5"))
    w = sc.config["workloads"][0]
    assert w["kind"] == "trace" and w["sizes"] == [] and w["threads"] is None
    assert w["trace"]["ops"] == "RWF" and list(w["trace"]["t_ns"]) == [0, 125_000_000, 250_000_000]
    assert w["trace"]["repeat"] is False and "file" not in w["trace"]
    # The records are in the scenario's hash.
    other = scenario.load(_scenario(tmp_path, "speed = 2\narc_hit = 0.5", trace=CSV.replace("8192,8192", "16384,8192")))
    assert other.hash != sc.hash
    # Closed loop: threads; the records' times are then unused.
    closed = scenario.load(_scenario(tmp_path, "threads = 4\nrepeat = true")).config["workloads"][0]
    assert closed["threads"] == 4 and closed["trace"]["repeat"] is True
    lru = scenario.load(_scenario(tmp_path, 'arc_size = "8G"')).config["workloads"][0]
    assert lru["arc_bytes"] == 8 << 30
    vol = scenario.load(_scenario(tmp_path, "volume = true")).config["workloads"][0]
    assert vol["volume"] is True and "volume" not in w


@pytest.mark.parametrize("workload, stop, message", [
    ("rate = 10", "60s", "workload[0].rate: 10 — a trace carries its own times"),
    ("threads = 2\nspeed = 2", "60s", "workload[0].speed: 2 — a closed-loop replay ignores"),
    ("speed = 0", "60s", "workload[0].speed: 0 — allowed: a factor"),
    ("trace_format = \"pcap\"", "60s", "workload[0].trace_format: \"pcap\" — allowed"),
    ("repeat = 1", "60s", "workload[0].repeat: 1 — allowed: true or false"),
    ("repeat = true", "workloads-done", "scenario.stop: \"workloads-done\" — no workload ever finishes"),
    ("arc_size = \"1G\"\narc_hit = 0.5", "60s", "workload[0].arc_hit: 0.5 — give arc_hit"),
    ("volume = 1", "60s", "workload[0].volume: 1 — allowed: true or false"),
    ("volume = true\n[[workload]]\nkind = \"fsync-write\"\nthreads = 1", "60s",
     "workload[0].volume: true — the dataset is then a volume, which fsync-write (fsync-write) cannot use"),
    ("arc_size = \"1K\"", "60s", "workload[0].arc_size: \"1K\" — 0 records of pool.recordsize"),
    ("stop = \"1m\"", "workloads-done or 2m", "workload[0].stop: \"1m\" — with scenario.stop = \"workloads-done\""),
    ("trace_format = \"fio\"", "60s", "workload[0].trace: t.csv:1: '# a comment' — allowed: a first line"),
])
def test_trace_field_errors_name_the_field(tmp_path, fake_core, workload, stop, message):
    from ziosim import scenario

    with pytest.raises(ScenarioError) as e:
        scenario.load(_scenario(tmp_path, workload, stop))
    assert str(e.value).startswith(message), str(e.value)


@pytest.mark.parametrize("trace, what", [("time,op,offset,size\n3,R,0,4096\n3,W,8192,4096\n", "its 2 records all have"),
                                         ("time,op,offset,size\n0.5,R,0,4096\n", "its one record has")])
def test_a_timed_trace_of_one_instant_cannot_repeat_open_loop(tmp_path, fake_core, trace, what):
    # Its lap (the span plus one mean gap) would be 0: the replay looped every nanosecond
    # and never reached the stop (QA pass 2), and a single record got a made-up 1 ms lap.
    from ziosim import scenario

    with pytest.raises(ScenarioError) as e:
        scenario.load(_scenario(tmp_path, "repeat = true", trace=trace))
    assert str(e.value).startswith(f"workload[0].repeat: true — {what} one time, so a lap has no length; allowed: ")
    assert scenario.load(_scenario(tmp_path, "repeat = true\nthreads = 1", trace=trace))  # a closed loop may
    assert scenario.load(_scenario(tmp_path, "", trace=trace))  # and so may a single pass


def test_trace_keys_on_another_kind_and_untimed_traces_without_threads(tmp_path, fake_core):
    from ziosim import scenario

    p = tmp_path / "s.toml"
    p.write_text('[zfs]\nrelease = "zfs-2.2"\n[pool]\nallocated = "1G"\n'
                 'vdevs = [{ type = "disk", disks = 1, device = "hdd-7200-sata-2014" }]\n'
                 '[[workload]]\nkind = "random-read"\nrate = 5\nrepeat = true\n')
    with pytest.raises(ScenarioError, match=r"^workload\[0\]\.repeat: true — applies to trace only"):
        scenario.load(p)
    with pytest.raises(ScenarioError, match=r"^workload\[0\]\.trace: \"t.csv\" — its records have no times"):
        scenario.load(_scenario(tmp_path, "", trace="op,offset,size\nR,0,4096\n"))


def test_arc_size_models_the_arc_of_a_random_or_sequential_reader_too(tmp_path, fake_core):
    from ziosim import scenario

    def load(kind: str, extra: str = 'arc_size = "2G"'):
        p = tmp_path / "s.toml"
        p.write_text('[zfs]\nrelease = "zfs-2.2"\n[pool]\nallocated = "100G"\n'
                     'vdevs = [{ type = "disk", disks = 1, device = "hdd-7200-sata-2014" }]\n'
                     f'[[workload]]\nkind = "{kind}"\nthreads = 1\n{extra}\n')
        return scenario.load(p).config["workloads"][0]

    assert load("random-read")["arc_bytes"] == 2 << 30
    assert load("seq-read")["arc_bytes"] == 2 << 30
    assert load("random-write")["arc_bytes"] == 2 << 30
    with pytest.raises(ScenarioError, match=r"^workload\[0\]\.arc_size: \"2G\" — applies to trace, random-read, "
                                            r"seq-read, random-write, seq-write only; remove it for fsync-write$"):
        load("fsync-write")
    with pytest.raises(ScenarioError, match=r"^workload\[0\]\.arc_hit: 0\.5 — give arc_hit"):
        load("random-read", 'arc_size = "2G"\narc_hit = 0.5')


@pytest.mark.needs_core
def test_a_reader_with_a_modelled_arc_reports_its_indirect_blocks(tmp_path):
    # 16 KiB records over 200 GiB: a 32 MiB ARC holds few records and few of the ~12,800
    # level-1 blocks above them, so reads climb, and the summary says how often.
    from ziosim import runner, scenario
    from ziosim.report.summary import build_summary, summary_text

    p = tmp_path / "s.toml"
    p.write_text('[scenario]\nstop = "20s"\n[zfs]\nrelease = "zfs-2.1"\n[pool]\nallocated = "200G"\n'
                 'recordsize = "16K"\nvdevs = [{ type = "disk", disks = 1, device = "hdd-7200-sata-2014" }]\n'
                 '[[workload]]\nname = "db"\nkind = "random-read"\nthreads = 1\nsizes = [["8K", 1.0]]\n'
                 'arc_size = "32M"\n')
    res = runner.run(scenario.load(p))
    meta = {"release": "zfs-2.1", "name": "s", "seed": 0, "version": "t", "scenario_hash": "h"}
    summ = build_summary(res, meta)
    w = summ["workloads"]["db"]
    ind = w["arc"]["indirect"]
    assert ind["cache_bytes"] == 24 << 20  # zfs-2.1: zfs_arc_meta_limit_percent = 75
    assert ind["reads"] == ind["misses"] and ind["reads"] > (w["ops"] - w["arc_hits"]) // 2, ind
    text = summary_text(res, meta, summ)
    assert f"of 24M held): hits={ind['hits']}, misses={ind['misses']}, reads before their records={ind['reads']}" \
        in text, text


@pytest.mark.needs_core
def test_a_replay_through_the_core_ends_with_workloads_done(tmp_path):
    import ziosim

    rows = ["time,op,offset,size"] + [f"{i * 0.01:.2f},R,{(i * 7919 % 2000) * 4096},4096" for i in range(500)]
    res = ziosim.run_scenario(_scenario(tmp_path, "", stop="workloads-done or 10m", trace="\n".join(rows) + "\n"))
    assert res["end"] == "workloads-done"
    w = res["workloads"][0]
    assert w["ops"] == 500 and w["finished"] is True
    assert w["trace"]["by_op"]["read"]["ops"] == 500
    assert 4.99e9 < w["finished_ns"] < 5.3e9
    assert res["sim_time_ns"] == w["finished_ns"]


@pytest.mark.needs_core
def test_a_workloads_done_run_reports_its_records_as_progress(tmp_path):
    from ziosim import runner, scenario

    rows = ["time,op,offset,size"] + [f"{i * 0.01:.2f},R,{i * 4096},4096" for i in range(300)]
    sc = scenario.load(_scenario(tmp_path, "", stop="workloads-done", trace="\n".join(rows) + "\n"))
    seen = []
    runner.run(sc, chunk=200, on_work=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (300, 300) and len(seen) > 2
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and {t for _, t in seen} == {300}


@pytest.mark.needs_core
def test_the_example_scenario_runs_and_run_json_counts_the_records(tmp_path):
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "ziosim", "run", str(SCENARIOS / "trace" / "scrub-under-app.toml"),
                        "--stop", "3m", "--out", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "reads (" in p.stdout and "flushes (" in p.stdout and "reads during scan (" in p.stdout
    assert 'dtrace: @["app", "read"] = quantize(latency_ns)   # during the scan' in p.stdout
    meta = json.loads((out / "run.json").read_text())
    assert meta["config"]["workloads"][0]["trace"] == {"records": 6000, "timed": True, "files": 1, "repeat": True}


@pytest.mark.needs_core
def test_the_traces_doc_example_is_what_the_example_prints(tmp_path):
    import os

    from conftest import check_doc_blocks

    p = subprocess.run([sys.executable, "-m", "ziosim", "run", "scenarios/trace/scrub-under-app.toml", "--stop", "3m",
                        "--views", "summary", "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("app:"))
    j = next(k for k in range(i, len(lines)) if lines[k].startswith("async_write"))
    body = "\n".join(["$ ziosim run scenarios/trace/scrub-under-app.toml --stop 3m --views summary", "…",
                      *lines[i:j], "…"]) + "\n"
    update = os.environ.get("UPDATE_SNAPSHOTS") == "1"
    check_doc_blocks(ROOT / "docs" / "traces.md", "trace-example", {"summary": body}, update)


def test_a_bad_trace_exits_2_with_one_line(tmp_path):
    p = _scenario(tmp_path, "", trace="time,op,offset,size\n0.1,R,0\n")
    r = subprocess.run([sys.executable, "-m", "ziosim", "run", p], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: workload[0].trace: t.csv:2: 3 fields"), r.stderr


@pytest.mark.needs_core
def test_records_left_out_are_said_on_stderr(tmp_path):
    # A fio v3 log whose trims and zero-length records are not replayed: one note says how many.
    log = ("fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n0 /dev/sdb read 0 4096\n"
           "10 /dev/sdb trim 4096 4096\n20 /dev/sdb write 8192 0\n30 /dev/sdb write 8192 4096\n"
           "40 /dev/sdb trim 0 8192\n50 /dev/sdb close\n")
    p = _scenario(tmp_path, 'threads = 1', trace="")
    (tmp_path / "t.csv").write_text(log)
    r = subprocess.run([sys.executable, "-m", "ziosim", "run", p, "--stop", "1s", "--views", "summary", "--out",
                        str(tmp_path / "o")], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    notes = [ln for ln in r.stderr.splitlines() if ln.startswith("note: workload[0].trace")]
    assert notes == ["note: workload[0].trace: t.csv: 2 records replayed, 3 left out (empty 1, trim 2; "
                     "docs/traces.md)"], r.stderr
    q = subprocess.run([sys.executable, "-m", "ziosim", "run", p, "--stop", "1s", "-q", "--out", str(tmp_path / "q")],
                       capture_output=True, text=True, cwd=ROOT)
    assert q.returncode == 0 and "note:" not in q.stderr


def test_the_example_trace_is_what_its_script_writes(tmp_path):
    d = SCENARIOS / "trace"
    subprocess.run([sys.executable, str(d / "make_fileserver_trace.py")], cwd=tmp_path, check=True)
    assert (tmp_path / "fileserver.csv").read_text() == (d / "fileserver.csv").read_text()


@pytest.mark.parametrize("seed", range(4))
def test_fuzzed_traces_parse_or_fail_with_one_line(seed):
    rng = random.Random(seed)
    samples = [BLKPARSE, FIO3, MSR, SPC, CSV]
    for _ in range(150):
        text = list(rng.choice(samples))
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(text))
            op = rng.random()
            if op < 0.4:
                text[i] = rng.choice("0123456789,. -+xRWFSQD\n\t#e")
            elif op < 0.7:
                del text[i]
            else:
                text.insert(i, rng.choice(["9" * 25, "-", ",", "\n", "nan", "1e999"]))
        src = "".join(text)
        try:
            t = T.parse(src, rng.choice(T.FORMATS), where="f")
        except ScenarioError as e:
            assert "\n" not in str(e) and str(e).startswith("f"), repr(str(e))
            continue
        n = len(t)
        assert n and len(t.offset) == n and len(t.size) == n and len(t.file) == n
        assert t.t_ns is None or (len(t.t_ns) == n and list(t.t_ns) == sorted(t.t_ns))
