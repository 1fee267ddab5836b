"""The `ziosim` command line.

stdout is data (the text report, `--json` documents, tables); stderr is logs, progress
and errors. Exit codes: 0 ok, 1 a check failed (or an internal error), 2 a usage or
input error, 130 interrupted. A mistake in a scenario prints ``error: <one line>`` and
perhaps ``hint: …`` — never a traceback. Colour follows rich, which honours `NO_COLOR`.
"""

# No `from __future__ import annotations` here: typer < 0.24 (the newest on Python 3.9)
# reads Annotated options only from evaluated annotations.

import contextlib
import importlib
import io
import json
import os
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup

from . import __version__, _native, runner
from . import scenario as scenario_mod
from .errors import InternalError, ScenarioError
from .results import json_default
from .units import show, sim_seconds, size_label

try:  # typer 0.2x carries its own copy of click
    from typer._click import exceptions as _click_errors
except ImportError:  # pragma: no cover - older typer (Python 3.9) uses click itself
    from click import exceptions as _click_errors  # type: ignore[no-redef]

# Arrow's default allocator (mimalloc) keeps what the Parquet writer used — tens of MB for
# a long run, on top of the results — where the C allocator gives it back; the bytes
# written are the same. Arrow reads this once, before pyarrow's first use (the report
# imports it lazily); a value the user set wins.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

EXIT_OK, EXIT_CHECK, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


# ----------------------------------------------------------------------------- usage errors
#
# The option parser (click, under typer) reports a bad option as a usage block, three lines
# that do not repeat the value. ziosim reports it as it reports every input mistake: one
# line ``error: <option>: <value> — allowed: …`` (and perhaps ``hint: …``), exit 2.


class _UsageLine(_click_errors.UsageError):
    """A usage error printed as ``error: <line>`` (and ``hint: …``); exit 2."""

    def __init__(self, line: str, hint: Optional[str] = None) -> None:
        super().__init__(line)
        self.line, self.hint = line, hint

    def show(self, file: Any = None) -> None:
        _say(f"error: {self.line}")
        if self.hint:
            _say(f"hint: {self.hint}")


_ARGV = "ziosim.argv"  # the command line as given, in the context's meta (shared with subcommands)
# `ziosim` alone prints the help through this error (click 8.2+; older click exits instead).
_NO_ARGS_IS_HELP = getattr(_click_errors, "NoArgsIsHelpError", _UsageLine)


def _option_value(opts: list[str], argv: list[str]) -> tuple[Optional[str], Optional[str]]:
    """(the option as typed, its value) for the last use of any of ``opts`` in ``argv``:
    ``--knobs 5``, ``--knobs=5`` or ``-j5``."""
    found: tuple[Optional[str], Optional[str]] = (None, None)
    for i, tok in enumerate(argv):
        if tok == "--":
            break
        for o in opts:
            if tok == o:
                found = (o, argv[i + 1] if i + 1 < len(argv) else None)
            elif o.startswith("--") and tok.startswith(o + "="):
                found = (o, tok[len(o) + 1:])
            elif len(o) == 2 and not tok.startswith("--") and tok.startswith(o) and len(tok) > 2:
                found = (o, tok[2:])
    return found


def _param_kind(param: Any) -> tuple[str, Any, Any]:
    """(what the parser takes, min, max) for a click/typer parameter."""
    ann = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    ptype = getattr(param, "type", None)
    lo, hi = getattr(param, "min", None), getattr(param, "max", None)
    if lo is None and hi is None:
        lo, hi = getattr(ptype, "min", None), getattr(ptype, "max", None)
    tname = str(getattr(ptype, "name", ""))
    if ann is int or tname.startswith("integer"):
        return "an integer", lo, hi
    if ann is float or tname.startswith("float"):
        return "a number", lo, hi
    if ann is Path or tname in ("path", "file"):
        return "a path", None, None
    choices = getattr(ptype, "choices", None)
    if choices:
        return "one of " + ", ".join(str(c) for c in choices), None, None
    return "a value", None, None


def _bounds(lo: Any, hi: Any) -> str:
    if lo is not None and hi is not None:
        return f" {lo}..{hi}"
    if lo is not None:
        return f", at least {lo}"
    return f", at most {hi}" if hi is not None else ""


def _bad_parameter(e: Any, argv: list[str]) -> _UsageLine:
    """``--knobs: 5 — out of range; allowed: an integer 1..4``."""
    p = e.param
    opts = list(getattr(p, "opts", [])) + list(getattr(p, "secondary_opts", []))
    is_option = any(o.startswith("-") for o in opts)
    typed, raw = _option_value(opts, argv) if is_option else (None, None)
    name = typed or (max(opts, key=len) if is_option else (getattr(p, "metavar", None) or str(p.name).upper()))
    kind, lo, hi = _param_kind(p)
    if name == "--seed":  # it becomes scenario.seed
        lo, hi = 0, scenario_mod.SEED_MAX
    allowed = kind + _bounds(lo, hi)
    if isinstance(e, _click_errors.MissingParameter):
        return _UsageLine(f"{name}: missing — allowed: {allowed}")
    cause = e.__cause__  # typer 0.2x converts through pydantic, whose error keeps the input
    details = cause.errors() if hasattr(cause, "errors") else []
    if details and details[0].get("input") is not None:
        raw = details[0]["input"]
    if kind in ("an integer", "a number") and isinstance(raw, str):
        try:
            int(raw) if kind == "an integer" else float(raw)
        except ValueError:
            return _UsageLine(f"{name}: {show(raw)} — not {kind}; allowed: {allowed}")
        return _UsageLine(f"{name}: {raw} — out of range; allowed: {allowed}")  # a number, as written
    value = "no value" if raw is None else show(raw)
    return _UsageLine(f"{name}: {value} — {str(e.message).rstrip('.')}; allowed: {allowed}")


def _usage_line(e: Any, argv: list[str], cmd: str = "ziosim", command: Any = None) -> Any:
    """The one-line form of a usage error of the option parser; ``cmd`` and ``command`` are
    the (sub)command being parsed, for errors that do not carry their context."""
    if isinstance(e, (_UsageLine, _NO_ARGS_IS_HELP)):
        return e
    if e.ctx is not None:
        cmd, command = e.ctx.command_path, e.ctx.command
    listed = f"what '{cmd} --help' lists"
    if isinstance(e, _click_errors.BadParameter) and e.param is not None:
        return _bad_parameter(e, argv)
    if isinstance(e, _click_errors.NoSuchOption):
        near = sorted(e.possibilities or ())
        return _UsageLine(f"{e.option_name}: no such option of {cmd} — allowed: {listed}",
                          f"did you mean {' or '.join(near)}?" if near else None)
    if isinstance(e, _click_errors.BadOptionUsage):
        # "Option '--out' requires an argument.": the option's kind, from its declaration.
        param = next((q for q in getattr(command, "params", ()) if e.option_name in getattr(q, "opts", ())), None)
        if param is not None and "requires" in str(e.message):
            kind, lo, hi = _param_kind(param)
            return _UsageLine(f"{e.option_name}: no value — allowed: {kind}{_bounds(lo, hi)}")
        why = str(e.message).split(f"{e.option_name!r} ", 1)[-1].rstrip(".")
        return _UsageLine(f"{e.option_name}: {why} — allowed: {listed}")
    return _UsageLine(f"{cmd}: {str(e.format_message()).rstrip('.')} — allowed: {listed}")


class _Group(TyperGroup):
    """The `ziosim` command group, with the option parser's errors in ziosim's one-line form."""

    def make_context(self, info_name: Optional[str], args: list[str], parent: Any = None, **extra: Any) -> Any:
        argv = list(args)
        try:
            ctx = super().make_context(info_name, args, parent=parent, **extra)
        except _click_errors.UsageError as e:
            raise _usage_line(e, argv) from None
        ctx.meta[_ARGV] = argv
        return ctx

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is None \
                and not ctx.resilient_parsing:
            names = self.list_commands(ctx)
            near = scenario_mod.nearest(args[0], names)
            raise _UsageLine(f"{show(args[0])}: no such command — allowed: {', '.join(names)}",
                             f"did you mean {near}?" if near else None)
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _click_errors.UsageError as e:
            argv = ctx.meta.get(_ARGV, [])
            sub = next((a for a in argv if not a.startswith("-")), None)
            command = self.get_command(ctx, sub) if sub else None
            cmd = f"{ctx.command_path} {sub}" if command is not None else ctx.command_path
            raise _usage_line(e, argv, cmd, command) from None


app = typer.Typer(
    name="ziosim",
    cls=_Group,
    help="Simulate the ZFS I/O pipeline: scrub, resilver, vdev queues and disks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

# Options `run` and `sweep` share.
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no log lines on stderr.")]
NoProgressOpt = Annotated[
    bool, typer.Option("--no-progress", help="No progress bar (it only shows on a terminal anyway).")
]
# Options the verbs that run many points (sweep, advise) share.
JobsOpt = Annotated[
    Optional[int], typer.Option("--jobs", "-j", min=1, help="Runs in parallel. [default: the CPUs available]")
]
BackendOpt = Annotated[
    str, typer.Option("--backend", help="local (a process pool) or ray (Ray tasks; needs ziosim[ray]).")
]
SetOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--set",
        metavar="FIELD=VALUE",
        help="Override one scenario field, e.g. zfs.tunables.zfs_scrub_delay=0 (repeatable; paths as in "
        "docs/sweep.md).",
    ),
]


def _stderr() -> Console:
    return Console(file=sys.stderr, highlight=False, soft_wrap=True)


def _print_table(table: Table) -> None:
    out = Console(file=sys.stdout, highlight=False)
    if out.is_terminal:
        out.print(table)
        return
    # Piped or captured: wide enough that nothing wraps, and no trailing padding.
    buf = io.StringIO()
    Console(file=buf, highlight=False, width=400, color_system=None).print(table)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines()))


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


@contextlib.contextmanager
def _errors(reproduce: Optional[str] = None) -> Iterator[None]:
    """Map exceptions to one-line messages and exit codes."""
    try:
        yield
    except typer.Exit:
        raise
    except ScenarioError as e:
        _say(f"error: {e.line}")
        if e.hint:
            _say(f"hint: {e.hint}")
        raise typer.Exit(EXIT_USAGE) from None
    except _native.CoreMissing as e:
        _say(f"error: {e}")
        raise typer.Exit(EXIT_CHECK) from None
    except InternalError as e:
        # One raised with its own reproduce line (a core panic) says it; the others get the command's.
        tail = f" (please report; reproduce: {reproduce})" if e.reproduce is None and reproduce else ""
        _say(f"internal error: {e}{tail}")
        raise typer.Exit(EXIT_CHECK) from None
    except KeyboardInterrupt:
        _say("interrupted")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except Exception as e:
        line = f"{type(e).__name__}: {e}".splitlines()[0]
        tail = f" (please report; reproduce: {reproduce})" if reproduce else " (please report)"
        _say(f"internal error: {line}{tail}")
        raise typer.Exit(EXIT_CHECK) from None


@app.callback(invoke_without_command=True)
def _main(
    version: Annotated[bool, typer.Option("--version", help="Print the ziosim version and exit.")] = False,
) -> None:
    """Simulate the ZFS I/O pipeline: scrub, resilver, vdev queues and disks."""
    # Handled here rather than in an eager option callback: older typer releases drop
    # callbacks given through Annotated.
    if version:
        print(f"ziosim {__version__}")
        raise typer.Exit()


# ----------------------------------------------------------------------------- run


def _fmt_s(ns: int) -> str:
    return f"{ns / 1e9:.1f}s"


class _Bar:
    """A rich progress bar on stderr as a context manager; ``bar`` None means no bar."""

    bar: Any = None

    def __enter__(self):
        if self.bar is not None:
            self.bar.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


class _Progress(_Bar):
    """A rich bar of simulated time on stderr; a no-op when not wanted."""

    def __init__(self, enabled: bool, label: str) -> None:
        self.bar = None
        self._scan: Optional[tuple[float, str]] = None  # (share, text), for runs that stop at scan-done
        self._work: Optional[tuple[int, int]] = None  # (done, total), for runs that stop at workloads-done
        if not enabled:
            return
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[sim]}"),
            TextColumn("{task.fields[events]} events"),
            TimeElapsedColumn(),
            console=Console(file=sys.stderr),
            transient=True,
        )
        self.task = self.bar.add_task(label, total=1, sim="0.0s simulated", events=0)

    def update(self, now_ns: int, stop_ns: int, events: int) -> None:
        if self.bar is not None:
            scan, work = self._scan, self._work
            if work is not None:
                sim = f"{_fmt_s(now_ns)} simulated, {work[0]} of {work[1]} done"
                total, done = max(work[1], 1), min(work[0], work[1])
            else:
                sim = (f"{_fmt_s(now_ns)} simulated, {scan[1]}" if scan is not None
                       else f"{_fmt_s(now_ns)}/{_fmt_s(stop_ns)} simulated")
                total, done = (1000, int(scan[0] * 1000)) if scan is not None else (max(stop_ns, 1), min(now_ns, stop_ns))
            self.bar.update(self.task, total=total, completed=done, sim=sim, events=events)

    def work(self, done: int, total: int) -> None:
        """A run that stops when its workloads are done shows their records or files done
        (every workload with an end of its own, summed) instead of simulated time."""
        self._work = (done, total)

    def scan(self, examined: int, to_examine: int, issued: int, skipped: int, sorted_scan: bool) -> None:
        """A run that stops when its scan is done shows the scan's share done, as `zpool
        status` counts "% done", instead of simulated time: a legacy scan's scanned share; a
        sorted scan's (0.8+) issued share of what it will issue — its walk scans everything
        early and the reads come after, so "scanned" would stand at 100 % for most of it."""
        if not to_examine:
            self._scan = None
        elif sorted_scan:
            share = min(issued / max(to_examine - skipped, 1), 1.0)
            self._scan = (share, f"{share:.1%} issued")
        else:
            share = min(examined / to_examine, 1.0)
            self._scan = (share, f"{share:.1%} scanned")


def _progress_enabled(quiet: bool, no_progress: bool) -> bool:
    return not quiet and not no_progress and sys.stderr.isatty()


def _slug(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")
    return s or "scenario"


def _command_line(ctx: typer.Context) -> str:
    """The command as the user gave it — ``ziosim``, the verb, its arguments and every option
    set on the command line, in declaration order — quoted for a POSIX shell: the
    ``reproduce:`` line of an error, so rerunning it meets the same failure."""
    words = ["ziosim", ctx.info_name or ""]
    for p in ctx.command.params:
        source = ctx.get_parameter_source(p.name) if p.name else None
        if source is None or source.name not in ("COMMANDLINE", "ENVIRONMENT"):
            continue  # a default, or a flag not given
        value = ctx.params.get(p.name)
        if p.param_type_name == "argument":
            words += [str(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
            continue
        name = next((o for o in p.opts if o.startswith("--")), p.opts[0])
        if getattr(p, "is_flag", False):
            secondary = getattr(p, "secondary_opts", None)
            if value or secondary:
                words.append(name if value else secondary[0])
            continue
        for v in value if getattr(p, "multiple", False) else [value]:
            words += [name, str(v)]
    return " ".join(shlex.quote(w) for w in words)


def _seeded(cmd: str, seed: Optional[int], sc: scenario_mod.Scenario) -> str:
    """A reproduce line that pins the seed the run used when the command line did not."""
    return cmd if seed is not None else f"{cmd} --seed {sc.seed}"


def _check_options(seed: Optional[int] = None, stop: Optional[str] = None, sets: Optional[list[str]] = None,
                   one_value: bool = False) -> list[tuple[str, list[Any]]]:
    """The options that need no scenario, checked before it is read (docs/scenario.md,
    "Errors"), each error naming the option rather than the field it overrides; returns
    the ``--set`` options parsed (``one_value``: one value each, as `run` takes them)."""
    from .fields import parse_set_option

    if seed is not None and not 0 <= seed <= scenario_mod.SEED_MAX:
        raise ScenarioError(f"--seed: {seed} — out of range; allowed: an integer 0..{scenario_mod.SEED_MAX}")
    if stop is not None:
        scenario_mod.parse_stop(stop, "--stop")
    return [parse_set_option(opt, one_value) for opt in sets or ()]


def _load(path: Path, seed: Optional[int], stop: Optional[str], sets: Optional[list[str]],
          pool: Optional[str] = None, fill: Optional[str] = None) -> scenario_mod.Scenario:
    """The scenario file with ``--pool``/``--fill`` and then each ``--set field=value``
    applied before validation, so an override is checked (and named in errors) exactly as
    the same value in the file. The options are checked first, before the file is read."""
    parsed = _check_options(seed, stop, sets, one_value=True)
    from . import poolspec

    pool_fields = poolspec.parse_pool(pool) if pool is not None else None
    fill_ratio = poolspec.parse_fill(fill) if fill is not None else None
    if not parsed and pool_fields is None and fill_ratio is None:
        return scenario_mod.load(path, seed=seed, stop=stop)
    from .fields import set_path

    doc = scenario_mod.parse_toml(scenario_mod.read_text(path, "scenario"), str(path))
    poolspec.apply(doc, pool_fields, fill_ratio)
    for fld, values in parsed:
        set_path(doc, fld, values[0], "--set")
    try:
        return scenario_mod.from_dict(doc, default_name=path.stem, path=str(path), seed=seed, stop=stop)
    except ScenarioError as e:
        # A field the command line gave is named with the option that gave it; a --set
        # given after --pool wins (its field is named as it was set).
        where = None
        if any(re.match(re.escape(str(fld)) + r"(\b|$)", e.line) for fld, _ in parsed):
            raise
        if pool_fields is not None and re.match(r"pool\.(vdevs|log|cache|spares)\b", e.line):
            where = f"--pool {json.dumps(pool)}"
        elif fill_ratio is not None and re.match(r"pool\.(fill|allocated)\b", e.line):
            where = f"--fill {json.dumps(fill)}"
        if where is None:
            raise
        raise ScenarioError(f"{where}: {e.line}", e.hint) from None


def _left_out_by_stop(sc: scenario_mod.Scenario, stop: Optional[str]) -> Optional[str]:
    """`--stop` cuts a run short on purpose, so the actions and workload starts it cuts off
    are left out rather than refused (the file's own stop refuses them); say which."""
    if stop is None:
        return None
    c = sc.config
    end = c["stop_ns"]
    gone = [f"action[{i}] ({a['do']} at {scenario_mod.duration_text(a['at_ns'])})"
            for i, a in enumerate(c.get("actions", [])) if a["at_ns"] >= end]
    gone += [f"workload[{i}] ({w.get('name', w.get('kind'))} from {scenario_mod.duration_text(w['start_ns'])})"
             for i, w in enumerate(c.get("workloads", [])) if w.get("start_ns", 0) >= end]
    if not gone:
        return None
    return f"note: --stop {stop} ends the run before " + ", ".join(gone) + "; not run"


def _run_once(sc: scenario_mod.Scenario, progress: bool, repro: str) -> dict[str, Any]:
    with _Progress(progress, sc.name) as bar:
        on_scan = bar.scan if sc.config.get("stop_on_scan_done") else None
        on_work = bar.work if sc.config.get("stop_on_workloads_done") else None
        return runner.run(sc, on_progress=bar.update, reproduce=repro, on_scan=on_scan, on_work=on_work)


@app.command()
def run(
    ctx: typer.Context,
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO", help="Scenario file (TOML; see docs/scenario.md).")],
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out", help="Directory for summary.json, Parquet, plots and report.html: new, empty, or a previous "
            "run's (replaced whole); never one holding other files. [default: out/<scenario name>]"
        ),
    ] = None,
    seed: Annotated[
        Optional[int], typer.Option("--seed", help="Seed for every random stream (overrides scenario.seed).")
    ] = None,
    stop: Annotated[
        Optional[str], typer.Option("--stop", help='Simulated time to run, e.g. "10s", "2h" (overrides scenario.stop).')
    ] = None,
    sets: SetOpt = None,
    pool: Annotated[
        Optional[str],
        typer.Option(
            "--pool", help='The pool as zpool create lists its vdevs, with Nx for N disks of a device, e.g. '
            '"raidz2 6x hdd-7200-sata-2014 log mirror 2x intel-s3700": replaces the scenario\'s vdevs, log, cache '
            'and spares (docs/scenario.md).'
        ),
    ] = None,
    fill: Annotated[
        Optional[str],
        typer.Option("--fill", help='How full the pool is, e.g. "62%" or 0.62 (replaces pool.fill or pool.allocated).'),
    ] = None,
    views: Annotated[
        Optional[str],
        typer.Option(
            "--views", help="Comma-separated text views to print, e.g. iostat,latency. [default: the report's own]"
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print summary.json on stdout instead of the text report.")
    ] = False,
    quiet: QuietOpt = False,
    no_progress: NoProgressOpt = False,
    no_plots: Annotated[
        bool, typer.Option("--no-plots", help="Write no SVG plots; report.html keeps its text and tables.")
    ] = False,
) -> None:
    """Run a scenario: print the text report and write summary.json, Parquet, SVG plots and report.html."""
    repro = _command_line(ctx)
    with _errors(repro):
        sc = _load(scenario, seed, stop, sets, pool, fill)
        repro = _seeded(repro, seed, sc)
    view_list: Optional[list[str]] = None
    if views is not None:
        view_list = [v.strip() for v in views.split(",") if v.strip()]
    outdir = out if out is not None else Path("out") / _slug(sc.name)
    with _errors(repro):
        report = importlib.import_module("ziosim.report")
        files = getattr(report, "files", None)  # ziosim.report.files; the CLI tests' stand-in has none
        if files is not None:
            files.check_outdir(outdir)  # refused before minutes of simulation, not after
        if view_list is not None:
            try:
                report.check_views(view_list, sc.release)  # before minutes of simulation, not after
            except ValueError as e:
                reason = re.sub(r"^views?: ", "", str(e).splitlines()[0])
                raise ScenarioError(f"--views: {json.dumps(views)} — {reason}") from None
        left_out = _left_out_by_stop(sc, stop)
        if left_out and not quiet:
            _say(left_out)
        if not quiet:
            for note in sc.notes:
                _say(note)
        try:
            try:
                results = _run_once(sc, _progress_enabled(quiet, no_progress), repro)
            except ScenarioError as e:
                # The core's "does not fit" names pool.fill: say which option set it.
                if fill is None or not e.line.startswith("pool.fill"):
                    raise
                raise ScenarioError(f"--fill {json.dumps(fill)}: {e.line}", e.hint) from None
            meta = runner.meta(sc)
            try:
                if as_json:
                    text = ""  # summary.json goes to stdout; the text report is not rendered
                elif view_list is None:
                    text = report.render_text(results, meta)  # the report's default views
                else:
                    text = report.render_text(results, meta, view_list)
            except ValueError as e:
                if view_list is None:
                    raise
                reason = re.sub(r"^views?: ", "", str(e).splitlines()[0])
                raise ScenarioError(f"--views: {json.dumps(views)} — {reason}") from None
            if no_plots:
                report.write_outputs(outdir, results, meta, plots=False)
            else:
                report.write_outputs(outdir, results, meta)
        except KeyboardInterrupt:
            _say("interrupted; nothing written")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        if as_json:
            summary = Path(outdir) / "summary.json"
            if not summary.is_file():
                raise InternalError(f"the report wrote no {summary}", seed=sc.seed, reproduce=repro)
            sys.stdout.write(summary.read_text(encoding="utf-8").rstrip("\n") + "\n")
        elif text:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
        if str(results.get("end", "")).startswith("limit:"):
            _say(f"warning: the run stopped early — {results['end']}")
        for name, need, size in report.overfull_vdevs(results):
            _say(f"warning: vdev {name} needed {report.zfs_nicebytes(need)} of its {report.zfs_nicebytes(size)}: "
                 "the run's writes outgrew it, and ziosim models no ENOSPC (its blocks went on the vdev as if "
                 "there were room; docs/output.md, \"zpool iostat\")")
        if not quiet:
            _say(
                f"wrote {outdir} — {sim_seconds(results.get('sim_time_ns', 0))} simulated, "
                f"{results.get('events', 0)} events, digest {results.get('digest', '?')}, "
                f"scenario {sc.hash}, seed {sc.seed}"
            )


# ----------------------------------------------------------------------------- sweep / compare


class _PointProgress(_Bar):
    """A rich bar of finished points on stderr (a terminal only); a no-op otherwise."""

    def __init__(self, enabled: bool, total: int) -> None:
        self.bar = None
        if not enabled or total == 0:
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(
            TextColumn("points"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[last]}"),
            TimeElapsedColumn(), console=Console(file=sys.stderr), transient=True,
        )
        self.task = self.bar.add_task("points", total=total, last="")

    def update(self, done: int, total: int, describe: str, reused: bool) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done, last=describe + (" (reused)" if reused else ""))


def _metrics_opt(metrics: Optional[str]) -> Optional[list[str]]:
    if metrics is None:
        return None
    from .report.compare import check_metrics

    return check_metrics([m for m in metrics.split(",") if m.strip()], "--metrics")


def _run_points(sw: Any, outdir: Path, jobs: Optional[int], backend: str, fresh: bool, progress: bool) -> Any:
    """Run a sweep's unfinished points with a progress bar; an interrupt or a failed point
    ends the command (exit 130 / 1) with what to do next."""
    from .sweep import execute

    with _PointProgress(progress, len(sw.points)) as bar:
        try:
            res = execute.run_sweep(sw, outdir, jobs=jobs, backend=backend, fresh=fresh, on_point=bar.update)
        except KeyboardInterrupt:
            _say(f"interrupted; finished points are kept in {outdir}/points — run the same command to resume")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    if res.failures:
        for f in res.failures:
            _say(f"error: point {f.index} ({f.describe}): {f.message}")
        _say(f"{len(res.failures)} of {len(sw.points)} points failed; no {execute.TABLE} written"
             f" (reproduce: {res.failures[0].reproduce})")
        raise typer.Exit(EXIT_CHECK)
    return res


_BaselineOpt = Annotated[
    Optional[list[str]],
    typer.Option("--baseline", metavar="AXIS=VALUE", help="Compare with this axis value (repeatable). [default: point 1]"),
]


@app.command()
def sweep(
    ctx: typer.Context,
    sweep_file: Annotated[
        Path,
        typer.Argument(
            metavar="SWEEP", help="Sweep file (TOML with a [sweep] table; see docs/sweep.md), or a scenario file."
        ),
    ],
    out: Annotated[
        Optional[Path],
        typer.Option("--out", help="Directory for sweep.json, sweep.parquet and points/. [default: out/sweep-<name>]"),
    ] = None,
    sets: Annotated[
        Optional[list[str]],
        typer.Option(
            "--set", metavar="FIELD=V1,V2", help="Add an axis (or replace the file's axis on FIELD); repeatable."
        ),
    ] = None,
    jobs: JobsOpt = None,
    backend: BackendOpt = "local",
    baseline: _BaselineOpt = None,
    metrics: Annotated[
        Optional[str],
        typer.Option("--metrics", help="Comma-separated metrics for the comparison view, or all. [default: by content]"),
    ] = None,
    stop: Annotated[
        Optional[str], typer.Option("--stop", help='Simulated time for every point, e.g. "30s" (overrides scenario.stop).')
    ] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Re-run points that are already finished in OUT.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Validate every point and list them; run nothing.")
    ] = False,
    quiet: QuietOpt = False,
    no_progress: NoProgressOpt = False,
) -> None:
    """Run a grid of scenario variants (resumable) and print a comparison of the results."""
    from .report import compare as compare_mod
    from .sweep import execute, spec

    repro = _command_line(ctx)
    with _errors(repro):
        _check_options(stop=stop, sets=sets)
        sw = spec.load(sweep_file, sets=list(sets or []), stop=stop)
        metric_list = _metrics_opt(metrics)
        base_spec = compare_mod.parse_baseline_options(baseline) if baseline else None
        if base_spec:
            compare_mod.resolve_baseline(base_spec, sw.axes, "--baseline")
        execute.check_backend(backend)
    outdir = out if out is not None else Path("out") / f"sweep-{_slug(sw.name)}"
    if dry_run:
        for p in sw.points:
            print(f"{p.index}  {p.id}  {p.describe(sw.axes)}")
        if not quiet:
            _say(f"{len(sw.points)} point{'s' if len(sw.points) != 1 else ''} valid; nothing run")
        return
    with _errors(repro):
        res = _run_points(sw, outdir, jobs, backend, fresh, _progress_enabled(quiet, no_progress))
        rows = execute.read_table(outdir, res.manifest)
        text = compare_mod.render(res.manifest, rows, base_spec, metric_list)
        sys.stdout.write(text)
        sys.stdout.flush()
        if not quiet:
            _say(f"wrote {outdir} — {len(sw.points)} points ({res.ran} run, {res.reused} reused), "
                 f"{len(rows)} rows in {execute.TABLE}")


@app.command()
def compare(
    ctx: typer.Context,
    out: Annotated[Path, typer.Argument(metavar="OUT", help="A directory `ziosim sweep` wrote.")],
    baseline: _BaselineOpt = None,
    metrics: Annotated[
        Optional[str],
        typer.Option("--metrics", help="Comma-separated metrics, or all. [default: the sweep's own, or by content]"),
    ] = None,
) -> None:
    """Print the comparison view of a finished sweep again (other baseline, other metrics)."""
    from .report import compare as compare_mod
    from .sweep import execute

    with _errors(_command_line(ctx)):
        man = execute.read_manifest(out)
        metric_list = _metrics_opt(metrics)
        base_spec = compare_mod.parse_baseline_options(baseline) if baseline else None
        rows = execute.read_table(out, man)
        if (out / "advice.json").is_file():
            man, advised = _as_advised(man, out / "advice.json")
            base_spec = base_spec if base_spec is not None else advised
        sys.stdout.write(compare_mod.render(man, rows, base_spec, metric_list))


def _as_advised(man: dict, path: Path) -> tuple[dict, Optional[dict]]:
    """An advise directory shown as advise showed it (docs/advise.md: "`ziosim compare OUT`
    shows the runs again"): a byte tunable's values as ZFS prints sizes (``1M``, not
    1048576), and the baseline advise's — the scenario's current settings — rather than
    each axis's first value. None when advise had no baseline point."""
    import copy

    from .advise import label_of, setting_value

    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return man, None  # not advise's after all: the sweep's own view
    man = copy.deepcopy(man)
    for ax in man["axes"]:
        ax["labels"] = [label_of(ax["field"], setting_value(ax["field"], v), lab)
                        for v, lab in zip(ax["values"], ax["labels"])]
    for p in man["points"]:
        p["labels"] = [label_of(ax["field"], setting_value(ax["field"], v), lab)
                       for ax, v, lab in zip(man["axes"], p["values"], p["labels"])]
    point = (doc.get("baseline") or {}).get("point")
    bp = next((p for p in man["points"] if p["index"] == point), None)
    if bp is None:
        return man, None
    return man, {ax["field"]: lab for ax, lab in zip(man["axes"], bp["labels"])}


# ----------------------------------------------------------------------------- advise


def _with_baseline(opt: str, baseline: dict) -> str:
    """A --set axis on a tunable gains the scenario's own value, so the baseline is a point —
    unless a value already is it, however spelt (``16M`` is 16777216)."""
    from .advise import setting_value, tunable_decls
    from .fields import parse_set_option

    fld, values = parse_set_option(opt)
    cur = baseline.get(fld)
    if not fld.startswith("zfs.tunables.") or cur is None:
        return opt

    def same(v: Any) -> bool:
        try:
            return setting_value(fld, v) == cur
        except ScenarioError:
            return False  # the sweep reports a bad value with its own words

    if any(same(v) for v in values):
        return opt
    # Spelt as the other values are: a duration tunable tried as "2s","10s" gets "5s", not 5.
    unit = (tunable_decls().get(fld[len("zfs.tunables."):]) or {}).get("unit")
    if unit in ("s", "ms", "ns") and any(isinstance(v, str) for v in values):
        cur = f"{cur}{unit}"
    return f"{fld}=" + ",".join(str(v) for v in [cur, *values])


def _not_a_release_axis(fld: str, values: list[Any], where: str) -> None:
    """advise recommends what an admin sets on the pool it has; its release is not one of
    those (the commands, the defaults and the revert are the scenario's release's)."""
    if fld.replace(" ", "") == "zfs.release":
        from .fields import value_label

        raise ScenarioError(
            f"{where} zfs.release={','.join(value_label(v) for v in values)}: a ZFS release is not a setting to "
            "change on the pool; allowed: tunables (zfs.tunables.NAME), zfs.sync, zfs.logbias, pool or workload "
            "fields — to compare releases, use ziosim sweep --set zfs.release=…"
        )


@app.command()
def advise(
    ctx: typer.Context,
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO", help="Scenario file (TOML): the pool as it runs today.")],
    goal: Annotated[
        Optional[str],
        typer.Option("--goal", metavar="[WORKLOAD.]MEASURE",
                     help="What to minimise or maximise: scan-time, scan-rate, p50, p90, p99, p99.9, max, mean, "
                          "ops/s, elapsed, at-risk, commit-p99. [default: scan-time when the scenario scans]"),
    ] = None,
    limits: Annotated[
        Optional[list[str]],
        typer.Option("--limit", metavar="[WORKLOAD.]MEASURE<=VALUE",
                     help="A bound every recommended setting must meet, e.g. users.p99<=50ms (repeatable; "
                          "workload measures are taken during the scan when the scenario scans)."),
    ] = None,
    sets: Annotated[
        Optional[list[str]],
        typer.Option("--set", metavar="FIELD=V1,V2",
                     help="Settings to try instead of the default knobs (repeatable; a grid, as in ziosim sweep)."),
    ] = None,
    knob_count: Annotated[
        Optional[int], typer.Option("--knobs", min=1, max=4,
                                    help="Without --set: how many of the release's scan knobs to sweep (the grid "
                                         "grows as the product of their ladders). [default: 2]")
    ] = None,
    out: Annotated[
        Optional[Path], typer.Option("--out", help="Directory for the runs and advice.json. [default: out/advise-<name>]")
    ] = None,
    jobs: JobsOpt = None,
    backend: BackendOpt = "local",
    stop: Annotated[
        Optional[str], typer.Option("--stop", help='Simulated time for every run, e.g. "30m" (overrides scenario.stop).')
    ] = None,
    allow_unsafe: Annotated[
        bool, typer.Option("--allow-unsafe", help="Also recommend settings that put acknowledged data at risk.")
    ] = False,
    tolerance: Annotated[
        float, typer.Option("--tolerance", min=0.0, max=1.0,
                            help="Goal values within this fraction of the best are as good; then the fewest "
                                 "changes win.")
    ] = 0.02,
    show_all: Annotated[bool, typer.Option("--all", help="List every setting tried, also those that miss a limit.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the advice as JSON instead of text.")] = False,
    fresh: Annotated[bool, typer.Option("--fresh", help="Re-run settings already finished in OUT.")] = False,
    quiet: QuietOpt = False,
    no_progress: NoProgressOpt = False,
) -> None:
    """Find the tunable setting that best meets a goal, and print how to apply and revert it."""
    from . import advise as advise_mod
    from .sweep import execute, spec

    repro = _command_line(ctx)
    with _errors(repro):
        for fld, values in _check_options(stop=stop, sets=sets):
            _not_a_release_axis(fld, values, "--set")
        if sets and knob_count is not None:
            raise ScenarioError(f"--knobs: {knob_count} with --set — allowed: one of them; --set gives the settings "
                                "to try, --knobs how many default knobs to sweep without it")
        sc = scenario_mod.load(scenario, stop=stop)
        config = sc.config
        scanning = bool(advise_mod.scan_kinds(config))
        if goal is None:
            if not scanning:
                raise ScenarioError("--goal: missing — the scenario runs no scrub or resilver; allowed: a measure "
                                    "such as p99 or ops/s (see --help)")
            goal = "scan-time"
        g = advise_mod.parse_goal(goal)
        lims = [advise_mod.parse_limit(t) for t in (limits or [])]
        names = [w["name"] for w in config.get("workloads", [])]
        g = advise_mod.with_workload(g, names, "--goal")
        lims = [advise_mod.with_workload(lim, names, f"--limit {lim.text}") for lim in lims]
        for lim in lims:
            wrong = {"min": ">=", "max": "<="}[lim.measure.better]
            if lim.op == wrong:
                right = "<=" if wrong == ">=" else ">="
                _say(f"note: --limit {lim.text}: a {'floor' if wrong == '>=' else 'ceiling'} on {lim.measure.name}, "
                     f"which is better {'lower' if wrong == '>=' else 'higher'}; {right} is the usual limit")
        if sets:
            set_opts = list(sets)
        else:
            # Before the default knobs, which follow the scan the runs will make.
            advise_mod.check_measurable(g, lims, [config])
            knobs = advise_mod.default_knobs(config, count=knob_count or 2)
            if not knobs:
                raise ScenarioError("--set: missing — the scenario runs no scan ziosim has default knobs for; allowed: "
                                    "the settings to try, e.g. --set zfs.tunables.zfs_txg_timeout=1,5,10")
            set_opts = advise_mod.set_options(knobs)
        fields = [o.split("=", 1)[0].strip() for o in set_opts]
        current = advise_mod.current_tunables(config, fields)
        set_opts = [_with_baseline(o, current) for o in set_opts]
        sw = spec.load(scenario, sets=set_opts, stop=stop)
        for i, ax in enumerate(sw.axes):
            _not_a_release_axis(ax.field, list(ax.values), f"sweep.axis[{i}]")
        advise_mod.check_measurable(g, lims, [p.scenario.config for p in sw.points])
        execute.check_backend(backend)
    outdir = out if out is not None else Path("out") / f"advise-{_slug(sc.name)}"
    with _errors(repro):
        res = _run_points(sw, outdir, jobs, backend, fresh, _progress_enabled(quiet, no_progress))
        rows = execute.read_table(outdir, res.manifest)
        now = advise_mod.current_values(config, sw.base, [ax.field for ax in sw.axes])
        advice = advise_mod.choose(g, lims, res.manifest, rows, advise_mod.baseline_point(config, sw.points),
                                   scan_window=scanning,
                                   allow_unsafe=allow_unsafe, pool=config["pool"]["name"], tolerance=tolerance,
                                   ram_bytes=config["ram_bytes"], release=sc.release,
                                   current=now, vdevs=[(v["type"], len(v["disks"])) for v in config["pool"]["vdevs"]])
        doc_json = advise_mod.to_json(advice)
        doc_json.update(ziosim_version=__version__, scenario={"name": sc.name, "path": str(scenario),
                                                               "hash": sc.hash, "seed": sc.seed})
        svg = advise_mod.tradeoff_svg(advice, f"ziosim {__version__}, {sc.release}, seed {sc.seed}, "
                                              f"scenario {sc.name} ({sc.hash})")
        for name, body in (("advice.json", json.dumps(doc_json, indent=2, sort_keys=True) + "\n"),
                           ("tradeoff.svg", svg)):
            try:
                if body is not None:
                    execute.write_atomic(outdir / name, body)
            except OSError as e:
                raise execute.out_error(outdir, f"write {name}", e) from None
        if json_out:
            sys.stdout.write(json.dumps(doc_json, indent=2, sort_keys=True) + "\n")
        else:
            sys.stdout.write(advise_mod.render(advice, str(outdir), show_all=show_all))
        sys.stdout.flush()
        if not quiet:
            _say(f"wrote {outdir} — {len(sw.points)} settings ({res.ran} run, {res.reused} reused), advice.json"
                 + (", tradeoff.svg" if svg is not None else ""))
    if advice.best is None:
        raise typer.Exit(EXIT_CHECK)


# ----------------------------------------------------------------------------- import


def _audit_only(texts: Any, release: Optional[str], out: Optional[Path], quiet: bool) -> None:
    """Tunables files without a zpool status: their audit, as a table on stdout."""
    from .importers import tunables_conf as conf_mod

    first = texts.confs[0].file
    if release is None:
        raise ScenarioError(f"{first}: tunables only, no zpool status — allowed: --release R to audit them for "
                            f"that release ({', '.join(_native.releases())})")
    if out is not None:
        raise ScenarioError("--out: the files hold tunables only, so there is no scenario to write — allowed: --out "
                            "with a zpool status among the files (the audit alone goes to stdout)")
    rows = conf_mod.audit(texts.confs, release)
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    for col in ("LINE", "NAME", "VALUE", "VERDICT"):
        table.add_column(col, no_wrap=True)
    table.add_column("EXPLANATION")
    for r in rows:
        table.add_row(r.where, r.name, r.value, r.verdict, r.why)
    _print_table(table)
    failing = [r for r in rows if r.verdict in conf_mod.FAILING]
    if not quiet:
        counts = {v: sum(r.verdict == v for r in rows) for v in conf_mod.VERDICTS}
        platform = conf_mod.platform_of(texts.confs, release)
        _say(f"audit of {len(rows)} settings for {release} on {platform}: "
             + ", ".join(f"{n} {v}" for v, n in counts.items() if n)
             + (f"; exit {EXIT_CHECK}: {len(failing)} to fix (UNKNOWN, OUT OF RANGE, WRONG PLATFORM SYNTAX, UNSAFE)"
                if failing else ""))
    if failing:
        raise typer.Exit(EXIT_CHECK)


def _read_pasted(p: Path) -> str:
    """A pasted text file; bytes that are not UTF-8 (a localised date) become U+FFFD."""
    try:
        return p.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise ScenarioError(f"{p}: no such file — allowed: a text file with the output of zpool status") from None
    except OSError as e:
        if p.is_dir():
            raise ScenarioError(f"{p}: is a directory — allowed: a text file with the output of zpool status") from None
        raise ScenarioError(f"{p}: cannot read ({e.strerror or type(e).__name__}) — allowed: a text file you can "
                            "read, with the output of zpool status") from None


@app.command("import")
def import_(
    ctx: typer.Context,
    files: Annotated[
        list[Path],
        typer.Argument(metavar="FILE...",
                       help="Text files with the output of zpool status (one pool; text or -j), and optionally zpool "
                            "list [-v] [-p], zpool iostat -v [-l] [-q] [-p], iostat -x (Linux, FreeBSD, illumos) and "
                            "tunables files "
                            "(modprobe.d, /sys/module/zfs/parameters, "
                            "loader.conf, sysctl.conf, sysctl vfs.zfs, /etc/system); recognised by content, several "
                            "per file allowed. Tunables files alone (with --release) print their audit: exit 0, or 1 "
                            "if a line is UNKNOWN, OUT OF RANGE, WRONG PLATFORM SYNTAX or UNSAFE."),
    ],
    out: Annotated[
        Optional[Path], typer.Option("--out", help="Write the scenario to this file (atomically). [default: stdout]")
    ] = None,
    release: Annotated[
        Optional[str],
        typer.Option("--release", help="ZFS release to simulate, and to audit tunables files for. [default: guessed "
                                        "from the zpool status format; required for tunables files alone]"),
    ] = None,
    device: Annotated[
        Optional[str],
        typer.Option("--device", metavar="PRESET",
                     help="Device preset of the data disks (`ziosim presets`). [default: hdd-7200-sata-2014]"),
    ] = None,
    log_device: Annotated[
        Optional[str],
        typer.Option("--log-device", metavar="PRESET", help="Device preset of log devices. [default: intel-s3700]"),
    ] = None,
    cache_device: Annotated[
        Optional[str],
        typer.Option("--cache-device", metavar="PRESET",
                     help="Device preset of cache devices. [default: samsung-850pro]"),
    ] = None,
    special_device: Annotated[
        Optional[str],
        typer.Option("--special-device", metavar="PRESET",
                     help="Device preset of the special vdevs' disks. [default: intel-s3700]"),
    ] = None,
    pool: Annotated[
        Optional[str], typer.Option("--pool", help="The pool to import when zpool status shows several.")
    ] = None,
    workload_from_iostat: Annotated[
        bool,
        typer.Option("--workload-from-iostat",
                     help="Add an open-loop random-read workload at the pool's read ops/s and mean read size "
                          "from zpool iostat -v, or from iostat -x for a pool of mirrors and single disks."),
    ] = False,
    no_straggler_model: Annotated[
        bool,
        typer.Option("--no-straggler-model",
                     help="Only report the stragglers iostat -x or zpool iostat -l shows; without it each straggler "
                          "on an HDD gets its own device, the vdev's preset with read recovery calibrated from its "
                          "service time."),
    ] = False,
    predict: Annotated[
        bool,
        typer.Option("--predict",
                     help="Then run the scenario and print how long the real scan has left as the simulation sees "
                          "it: the model's time, the same at the real pool's pace so far, and zpool's own ETA "
                          "(on stdout with --out, else on stderr). The run may take minutes; Ctrl-C stops it."),
    ] = False,
    stop: Annotated[
        Optional[str],
        typer.Option("--stop", help='With --predict: simulated time to run, e.g. "2h"; an unfinished scan is '
                                    "completed with its release's ETA. [default: until the scan is done]"),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No log lines on stderr.")] = False,
) -> None:
    """Turn pasted zpool status, zpool list and zpool iostat -v output, and tunables files, into a scenario; or
    audit tunables files alone (docs/import.md)."""
    from .importers import scenario as import_mod
    from .importers import tunables_conf as conf_mod

    repro = _command_line(ctx)
    with _errors(repro):
        releases = _native.releases()
        if release is not None and release not in releases:
            hint = scenario_mod.nearest(release, releases)
            raise ScenarioError(f"--release: {json.dumps(release)} — allowed: {', '.join(releases)}",
                                hint=f"did you mean {hint}?" if hint else None)
        if stop is not None and not predict:
            raise ScenarioError(f"--stop: {json.dumps(stop)} — allowed: only with --predict (the scenario's own stop "
                                "is scan-done; `ziosim run FILE --stop` runs it for a set time)")
        if stop is not None:
            scenario_mod.parse_stop(stop, "--stop")  # before anything is read or written
        opts = import_mod.Options(release=release, device=device, log_device=log_device, cache_device=cache_device,
                                  special_device=special_device, workload_from_iostat=workload_from_iostat,
                                  straggler_model=not no_straggler_model)
        presets = _native.presets()
        import_mod.check_presets(opts, presets)
        texts = import_mod.read_texts([(str(f), _read_pasted(f)) for f in files])
        if texts.confs and not (texts.statuses or texts.lists or texts.iostats or texts.iostatxs):
            _audit_only(texts, release, out, quiet)
            return
        imp = import_mod.pick_pool(texts, pool=pool)
        text = import_mod.build(imp, opts, presets)
        try:
            sc = scenario_mod.loads(text, path=str(out) if out is not None else f"{imp.status.name}.toml")
        except ScenarioError as e:
            raise ScenarioError(f"the imported scenario does not validate: {e.line}",
                                hint="a bug in ziosim import if the files are real zpool output; please report it "
                                     "with them") from None
        target = _predict_target(imp, sc) if predict else None  # refused before anything is written
        if out is not None:
            from .sweep.execute import write_atomic

            try:
                write_atomic(out, text)
            except OSError as e:
                raise ScenarioError(f"--out: {out}: cannot write — {e.strerror or e}") from None
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
        if not quiet:
            rows = conf_mod.audit(imp.confs, sc.release) if imp.confs else []
            for r in rows:
                _say(r.describe())
            for line in import_mod.straggler_lines(imp, opts, presets):
                _say(line)
            pool = sc.config["pool"]
            disks = sum(len(v["disks"]) for v in pool["vdevs"] + pool.get("special", []))
            acts = len(sc.config["actions"])
            where = f"wrote {out}" if out is not None else "scenario on stdout"
            tun = len(conf_mod.applied(rows))
            _say(f"{where} — pool {imp.status.name}, release {sc.release}, {disks} disks, "
                 f"{acts} action{'s' if acts != 1 else ''}"
                 + (f", {tun} tunable{'s' if tun != 1 else ''} from {len(rows)} settings" if rows else "")
                 + "; check the assumptions in its # header")
        if target is not None:
            _predict_imported(imp, target, text, sc, out, stop, quiet, repro)


def _predict_target(imp: Any, sc: scenario_mod.Scenario) -> tuple[Any, str]:
    """The real scan ``--predict`` compares with, and the kind of simulated scan that models it."""
    from .importers.scenario import compared_scan

    real = compared_scan(imp.status)  # the one the import's header compares with
    if real is None:
        raise ScenarioError("--predict: the zpool status text shows no scan in progress — allowed: with a scrub, "
                            "resilver or rebuild in progress (for a new scan, run the scenario: ziosim run)")
    if real.done_percent is None:
        raise ScenarioError(f"--predict: the {real.func} in the text prints no % done — allowed: a scan line with "
                            "one (zfs-0.7 and later, illumos from 2012)")
    acts = {a["do"] for a in sc.config["actions"]}
    kind = "rebuild" if real.sequential else real.func
    if kind == "resilver" and not acts & {"replace", "attach"}:
        kind = "scrub"  # the import models a resilver with no disk being replaced as a scrub (its header says so)
    return real, kind


def _predict_imported(imp: Any, target: tuple[Any, str], text: str, sc: scenario_mod.Scenario, out: Optional[Path],
                      stop: Optional[str], quiet: bool, repro: str) -> None:
    """``ziosim import --predict``: run the imported scenario, compare with the real scan (ziosim.predict)."""
    from . import predict as predict_mod

    real, kind = target
    if stop is not None:
        sc = scenario_mod.loads(text, path=str(out) if out is not None else f"{imp.status.name}.toml", stop=stop)
    try:
        results = _run_once(sc, _progress_enabled(quiet, False), repro)
    except KeyboardInterrupt:
        _say("interrupted; no prediction" + (f" ({out} was written)" if out is not None else ""))
        raise typer.Exit(EXIT_INTERRUPTED) from None
    try:
        r = predict_mod.remaining(results, runner.meta(sc), kind, real.done_percent / 100, real.elapsed_estimate_s(),
                                  real.eta_s)
    except predict_mod.PredictError as e:
        raise ScenarioError(f"--predict: {e}") from None
    stream = sys.stdout if out is not None else sys.stderr
    stream.write("\n".join(predict_mod.lines(r)) + "\n")
    stream.flush()


# ----------------------------------------------------------------------------- check-determinism


def first_difference(a: Any, b: Any, path: str = "") -> Optional[str]:
    """The first key path (sorted-key order) at which two JSON values differ, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            p = f"{path}.{k}" if path else str(k)
            if k not in a or k not in b:
                return p
            d = first_difference(a[k], b[k], p)
            if d is not None:
                return d
        return None
    if isinstance(a, (list, memoryview)) and isinstance(b, (list, memoryview)):  # a series view is a list here
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d is not None:
                return d
        if len(a) != len(b):
            return f"{path}[{min(len(a), len(b))}]"
        return None
    if type(a) is not type(b) or a != b:
        return path or "(document)"
    return None


def _at(doc: Any, path: str) -> Any:
    cur = doc
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        try:
            cur = cur[int(part[1:-1])] if part.startswith("[") else cur[part]
        except (KeyError, IndexError, TypeError):
            return "(missing)"
    return cur


@app.command("check-determinism")
def check_determinism(
    ctx: typer.Context,
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO", help="Scenario file (TOML).")],
    stop: Annotated[
        Optional[str], typer.Option("--stop", help='Simulated time to run, e.g. "10s" (overrides scenario.stop).')
    ] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Seed (overrides scenario.seed).")] = None,
    sets: SetOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar on stderr.")] = False,
) -> None:
    """Run a scenario twice and compare the digests and the full results."""
    repro = _command_line(ctx)
    with _errors(repro):
        sc = _load(scenario, seed, stop, sets)
        repro = _seeded(repro, seed, sc)
        progress = _progress_enabled(quiet, False)
        try:
            first = _run_once(sc, progress, repro)
            second = _run_once(sc, progress, repro)
        except KeyboardInterrupt:
            _say("interrupted")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    da, db = first.get("digest"), second.get("digest")
    if da == db and scenario_mod.canonical_json(first) == scenario_mod.canonical_json(second):
        print(f"identical (digest {da})")
        return
    # The digest sorts first but says least; name the first result that differs.
    body_a = {k: v for k, v in first.items() if k != "digest"}
    body_b = {k: v for k, v in second.items() if k != "digest"}
    where = first_difference(body_a, body_b) or "digest"
    print(
        f"differ at {where}: {json.dumps(_at(first, where), default=json_default)} "
        f"vs {json.dumps(_at(second, where), default=json_default)} "
        f"(digests {da}, {db}; seed {sc.seed}; reproduce: {repro})"
    )
    raise typer.Exit(EXIT_CHECK)


# ----------------------------------------------------------------------------- validate


@app.command()
def validate(
    cases: Annotated[
        Optional[list[str]], typer.Argument(metavar="[CASE]...", help="Cases to run (default: every case in cases/).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar on stderr.")] = False,
) -> None:
    """Run the field cases and print predicted vs reported figures (exit 1 on a miss)."""
    from . import validate as validate_mod

    names = list(cases or validate_mod.available())
    rows = []
    with _errors(f"ziosim validate {' '.join(names)}"):
        for name in names:
            rows.extend(validate_mod.run_case(name))
    width = max([len(f"{r.case}: {r.figure}") for r in rows] + [6])
    print(f"{'figure':<{width}}  {'reported':>9}  {'predicted':>9}  {'allowed':>8}  unit   verdict")
    for r in rows:
        print(
            f"{r.case + ': ' + r.figure:<{width}}  {r.reported:>9}  {r.predicted:>9.3g}  {r.allowed:>8}  {r.unit:<5}  "
            f"{'ok' if r.ok else 'MISS'}"
        )
    misses = sum(not r.ok for r in rows)
    print(f"{len(rows) - misses} passed, {misses} failed")
    if misses:
        raise typer.Exit(EXIT_CHECK)


# ----------------------------------------------------------------------------- tunables / presets


def _compact_defaults(defaults: dict[str, Optional[int]], releases: list[str]) -> str:
    """Change points only: ``35; freebsd-9+: 10; illumos-2014+: —``."""
    parts: list[str] = []
    prev: Any = object()
    for i, r in enumerate(releases):
        v = defaults.get(r)
        if v == prev:
            continue
        if not (v is None and not parts):  # leading "not in release" needs no entry
            shown = "—" if v is None else str(v)
            parts.append(shown if i == 0 else f"{r}+: {shown}")
        prev = v
    return "; ".join(parts)


@app.command()
def tunables(
    ctx: typer.Context,
    release: Annotated[
        Optional[str], typer.Option("--release", help="Show defaults in this release only (e.g. zfs-2.2).")
    ] = None,
    name: Annotated[Optional[str], typer.Option("--name", help="Only tunables whose name contains this text.")] = None,
    platform: Annotated[
        Optional[str],
        typer.Option("--platform", help="With --release: how each is set there (linux, freebsd or illumos; "
                                        "docs/platforms.md)."),
    ] = None,
    ram: Annotated[
        Optional[str],
        typer.Option("--ram", help="Machine RAM the defaults derived from it are computed for, as zfs.ram "
                                   "(zfs_dirty_data_max is 10 % of it, capped). [default: zfs.ram's default, 16G]"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the declarations as JSON on stdout.")] = False,
) -> None:
    """List the ZFS tunables ziosim models: unit, default per release, range, trade-off."""
    from . import platforms
    from .units import parse_size

    with _errors(_command_line(ctx)):
        releases = _native.releases()
        ram_bytes = parse_size(ram if ram is not None else scenario_mod.DEFAULTS["ram"], "--ram")
        if ram_bytes < 64 << 20:
            raise ScenarioError(f"--ram: {json.dumps(ram)} — too small; allowed: at least \"64M\", as zfs.ram")
        rows = _native.tunables(ram_bytes)
        if release is not None and release not in releases:
            hint = scenario_mod.nearest(release, releases)
            raise ScenarioError(
                f"--release: {json.dumps(release)} — allowed: {', '.join(releases)}",
                hint=f"did you mean {hint}?" if hint else None,
            )
        if platform is not None:
            if release is None:
                raise ScenarioError(f"--platform: {json.dumps(platform)} — names differ by release; allowed: "
                                    "with --release, e.g. --release zfs-2.2 --platform freebsd")
            shipped = platforms.platforms_for(release)
            if platform not in shipped:
                raise ScenarioError(f"--platform: {json.dumps(platform)} — {release} ran on: {', '.join(shipped)}")
    if name:
        rows = [t for t in rows if name.lower() in t["name"].lower()]
    if release is not None:
        rows = [dict(t, default=t["defaults"].get(release)) for t in rows if t["defaults"].get(release) is not None]
    if platform is not None:
        for t in rows:
            k = platforms.knob(platform, release, t["name"])
            t["set_as"] = None if k is None else {"name": k.name, "runtime": k.runtime}
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    if not rows:
        _say("no tunables match")
        raise typer.Exit(EXIT_CHECK)
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("NAME", no_wrap=True)
    table.add_column("UNIT", no_wrap=True)
    table.add_column(f"DEFAULT ({release})" if release else "DEFAULT BY RELEASE", no_wrap=release is not None)
    table.add_column("RANGE", no_wrap=True)
    if platform is not None:
        table.add_column(f"ON {platform.upper()}", no_wrap=True)
    table.add_column("TRADE-OFF")
    for t in rows:
        if release is not None:
            default = str(t["default"])
        else:
            default = _compact_defaults(t["defaults"], releases)
        doc = t["doc"]
        if t.get("derived"):
            # The number is this RAM's; the formula is what a machine of other RAM gets.
            default += f" ({size_label(t['ram_bytes'])} RAM)"
            doc = f"Default: {t['derived']}. {doc}"
        cells = [t["name"], t["unit"], default, f"{t['min']}..{t['max']}"]
        if platform is not None:
            k = t["set_as"]
            cells.append("-" if k is None else k["name"] + ("" if k["runtime"] else " (boot)"))
        table.add_row(*cells, doc)
    _print_table(table)


@app.command()
def presets(
    as_json: Annotated[bool, typer.Option("--json", help="Print every preset's full specification as JSON.")] = False,
) -> None:
    """List the bundled device presets a scenario can name with `like = "..."`."""
    with _errors("ziosim presets"):
        data = _native.presets()
    if as_json:
        print(json.dumps(data, indent=2))
        return
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("NAME", no_wrap=True)
    table.add_column("KIND", no_wrap=True)
    table.add_column("CAPACITY BYTES", no_wrap=True, justify="right")
    table.add_column("DESCRIPTION")
    for n, p in data.items():
        spec = p.get("spec", {})
        table.add_row(n, str(spec.get("kind", "?")), str(spec.get("capacity_bytes", "?")), p.get("description", ""))
    _print_table(table)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, systemd, a batch scheduler, CI): handled as Ctrl-C is — a run's
    partial outputs removed, a sweep's workers stopped — then exit 143 (128 + SIGTERM)."""


_terminated = False


def _on_sigterm(signum: int, frame: Any) -> None:
    global _terminated
    _terminated = True
    raise Terminated()


def main() -> None:
    """Console-script entry point (`ziosim`)."""
    import signal

    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        app(prog_name="ziosim")
    except SystemExit as e:
        if e.code == EXIT_INTERRUPTED and _terminated:
            raise SystemExit(128 + signal.SIGTERM) from None
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    main()
