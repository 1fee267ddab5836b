"""How long a real scan still has to go, from a simulation of the same pool.

``zpool status`` prints a scan's progress and the release's own estimate of the time left,
a straight line through the pass's average rate (spec/zfs-model.md §5.3). That line is
often several times too short (spec/users.md §6 item 1): a sorted scan issues nothing while
it walks metadata, the issue rate changes as extents shrink, a resilver's last stretch may
be small blocks. A simulation of the pool knows the shape of the whole scan; the real
scan's progress so far tells how fast the real pool runs against the model.

``remaining`` puts the two together. The simulated scan is read at the snapshot where it
reaches the real ``% done`` (the same arithmetic, as the release prints it), giving

* the model's time left from there: simulated end − the time it reached that progress;
* the same time at the real pool's pace so far: × real elapsed ÷ simulated elapsed to that
  progress (a real pool slower than the model — an unknown load, a different disk — runs the
  rest slower in the same proportion, if what slows it down stays the same);
* the release's own ETA, for comparison.

A simulation stopped before its scan ended is completed with its release's ETA at the last
snapshot (what `ziosim advise` does for an unfinished scan) — unrounded where the release
prints whole minutes (≤0.7): the time so far scaled by the fraction examined.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Below this share done, the pace (real ÷ simulated elapsed) rests on too little of the
#: scan to scale the rest with; it is still printed, with a warning.
PACE_MIN_FRACTION = 0.02


@dataclass(frozen=True)
class Remaining:
    """The comparison for one scan (all times in seconds)."""

    kind: str                   # "scrub", "resilver" or "rebuild"
    fraction: float             # the real scan's share done, 0..1
    real_elapsed_s: float | None
    real_eta_s: float | None    # the release's ETA as the real zpool status printed it
    sim_total_s: float          # the simulated scan from start to end
    sim_finished: bool          # False: sim_total_s is completed with the simulated ETA
    sim_reach_s: float | None   # simulated time from the scan's start to `fraction`
    sim_left_s: float | None    # sim_total_s − sim_reach_s
    pace: float | None          # real_elapsed_s ÷ sim_reach_s
    paced_left_s: float | None  # sim_left_s × pace
    warnings: tuple[str, ...]


class PredictError(ValueError):
    """The simulation has no scan to compare with the real one."""


def _rows(results: dict, meta: dict, kind: str) -> list[dict[str, Any]]:
    from .report.files import scan_table

    table = scan_table(results, meta)
    if table is None:
        return []
    rows = table.to_pylist()
    if kind == "rebuild":
        return [r for r in rows if r["kind"] == "rebuild"]
    return [r for r in rows if r["kind"] == "scan" and r["func"] == kind]


def remaining(
    results: dict,
    meta: dict,
    kind: str,
    fraction: float,
    real_elapsed_s: float | None,
    real_eta_s: float | None,
) -> Remaining:
    """Compare a real scan at ``fraction`` done (after ``real_elapsed_s``) with the simulated
    scan of the same ``kind`` in ``results`` (a run of the imported scenario)."""
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction {fraction}: allowed 0..1")
    rows = _rows(results, meta, kind)
    if not rows:
        ahead = [r for r in _rows(results, meta, "rebuild") if r.get("state") not in ("finished", "complete")]
        if kind != "rebuild" and ahead:
            # A dRAID spare's or `replace -s` rebuild comes first; its scrub starts when it ends.
            raise PredictError(f"the simulation ran no {kind} by the end of the run: the sequential rebuild ahead "
                               f"of it had not finished; allowed: a longer --stop (the {kind} starts when the "
                               "rebuild ends)")
        raise PredictError(f"the simulation ran no {kind}: nothing to compare with")
    start_s = rows[0]["start_s"]
    if start_s is None:
        raise PredictError(f"the simulated {kind} has no start time")
    warnings: list[str] = []
    # Where the simulated scan ended, or would end by its release's estimate.
    last = rows[-1]
    finished = last["fraction_done"] == 1.0 and (last["state"] in ("finished", "complete"))
    if finished:
        end_s = last["end_s"] if last["end_s"] else last["time_s"]
        total = float(end_s - start_s)
    elif last.get("eta_s") is not None:
        from .advise import eta_in_minutes

        ran = float(last["time_s"] - start_s)
        total = ran + last["eta_s"]
        seen, whole = last.get("examined_bytes") or 0, last.get("to_examine_bytes") or 0
        unrounded = ""
        if kind != "rebuild" and eta_in_minutes(meta.get("release")) and seen > 0 and whole > 0:
            # The release prints whole minutes (13 s to go is "0h0m"): its straight line unrounded.
            total = ran * max(whole, seen) / seen
            unrounded = f", {_dur_text(total - ran)} before it drops the seconds"
        warnings.append(
            f"the simulation stopped before its {kind} ended: its end is the release's ETA at the "
            f"last snapshot ({last['eta']} to go{unrounded}), a straight line like the real one"
        )
    else:
        raise PredictError(f"the simulated {kind} neither ended nor has an estimate at its last snapshot")
    # The first snapshot at or past `fraction`, interpolated linearly from the one before.
    reach: float | None = None
    prev_t, prev_f = float(start_s), 0.0
    for r in rows:
        f = r["fraction_done"]
        if f is None:
            continue
        t = float(r["time_s"])
        if f >= fraction:
            span = f - prev_f
            reach = (prev_t if span <= 0 else prev_t + (t - prev_t) * (fraction - prev_f) / span) - start_s
            break
        prev_t, prev_f = t, f
    if reach is None:
        warnings.append(
            f"the simulated {kind} did not reach {fraction:.2%} before it stopped; run it longer "
            "(--stop) to compare"
        )
        return Remaining(kind, fraction, real_elapsed_s, real_eta_s, total, finished, None, None, None, None,
                         tuple(warnings))
    left = max(0.0, total - reach)
    pace = paced = None
    if real_elapsed_s is not None and reach > 0:
        pace = real_elapsed_s / reach
        paced = left * pace
        if fraction < PACE_MIN_FRACTION:
            warnings.append(
                f"the real {kind} is only {fraction:.2%} done: its pace against the model rests on "
                "little of the scan"
            )
    elif real_elapsed_s is None:
        warnings.append("the real elapsed time is not in the text: no pace to scale the model with")
    return Remaining(kind, fraction, real_elapsed_s, real_eta_s, total, finished, reach, left, pace, paced,
                     tuple(warnings))


def _dur_text(s: float) -> str:
    from .importers.scenario import _dur

    return _dur(int(round(s)))


def lines(r: Remaining) -> list[str]:
    """The comparison as text, in ZFS's own duration style (``10h36m``)."""

    def d(s: float | None) -> str:
        return "—" if s is None else _dur_text(s)

    pct = f"{r.fraction * 100:.2f}%"
    out = [f"Real {r.kind}: {pct} done"
           + (f" after ≈ {d(r.real_elapsed_s)}" if r.real_elapsed_s is not None else "")
           + (f"; its zpool status ETA {d(r.real_eta_s)}" if r.real_eta_s is not None else "; no ETA printed")]
    end = "" if r.sim_finished else " (projected: the run stopped first)"
    out.append(f"Simulated {r.kind} (this scenario, with its assumptions): {d(r.sim_total_s)} in all{end}")
    if r.sim_reach_s is not None:
        out.append(f"  reaches {pct} after {d(r.sim_reach_s)}"
                   + (f"; the real pool took {d(r.real_elapsed_s)} (pace × {r.pace:.2f})" if r.pace is not None else ""))
        out.append(f"Time left from {pct}:")
        out.append(f"  the model as it is              {d(r.sim_left_s)}")
        if r.paced_left_s is not None:
            out.append(f"  at the real pool's pace so far  {d(r.paced_left_s)}")
        out.append(f"  the release's own ETA           {d(r.real_eta_s)}")
    out.extend(f"note: {w}" for w in r.warnings)
    return out
