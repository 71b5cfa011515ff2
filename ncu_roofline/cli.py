"""The command line: ``ncu-roofline REPORT...`` and the ``diff``, ``export``, ``sections`` and ``devices`` commands.

Thin: parse options, call the library, write what it returns, and turn its exceptions into one line on stderr
and an exit code (``ncu_roofline.errors``: the EXIT_* codes, documented in the README). The logic lives in
``files`` (inputs, output names), ``filters``, ``diff``, ``campaign`` and the ``report`` renderers; renderers
are imported inside the commands that use them, so a command loads only what it needs.
"""

# ruff: noqa: E402 (Ctrl-C is made quiet before the slow imports: see _interrupted_while_starting)

from __future__ import annotations

import io
import math
import os
import re
import shutil
import signal
import sys
import traceback
import webbrowser
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import IO, Any, TypeVar


def _interrupted_while_starting(_signum: int, _frame: FrameType | None) -> None:
    """Ctrl-C while this module loads (its imports take a good part of a second): the line and exit code of an
    interrupted command (``Cli.main``), not a traceback of the import under way."""
    sys.stderr.write("ncu-roofline: interrupted\n")
    raise SystemExit(130)  # EXIT_INTERRUPTED, not yet imported


def _quiet_interrupt(on: bool) -> None:
    """Install (``on``) or take back :func:`_interrupted_while_starting`: only over Python's own handler (an
    ignored SIGINT, as a background job's, or a program's own handler stays), only in the main thread."""
    now, ours = signal.getsignal(signal.SIGINT), _interrupted_while_starting
    if (now is signal.default_int_handler) if on else (now is ours):
        with suppress(ValueError):  # not the main thread: signals are not ours to handle
            signal.signal(signal.SIGINT, ours if on else signal.default_int_handler)


_quiet_interrupt(True)  # taken back at the end of this module: Cli.main turns KeyboardInterrupt into exit 130

import click

from . import __version__
from .analysis import Analysis, analyze
from .arrowpool import keep_freed_memory, use_system_allocator
from .errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    AnalysisError,
    EmptyExportError,
    FormatError,
    NcuRooflineError,
    NoLaunchesError,
    OutputError,
    SlowerError,
)
from .files import (
    STDIN_STEM,
    check_not_input,
    check_writable,
    default_output,
    expand_arguments,
    input_stem,
    is_stdin,
    is_stream_output,
    prepare_folder,
    uncompressed_size,
)
from .files import write_text as _write_text
from .filters import compile_kernel_pattern, filter_analysis
from .model import Report
from .report.jsonout import CHUNK as JSON_CHUNK
from .report.registry import ANALYSIS, DIFF, Options, Registry, Run
from .units import PREFIXES

PROG = "ncu-roofline"
DEFAULT_COMMAND = "analyze"
#: Options every command takes, which may also come before the command's name (``ncu-roofline -v diff a b``).
COMMON_FLAG = re.compile(r"^(-[vq]+|--verbose|--quiet|--debug)$")
#: Show a progress bar when the inputs hold at least this much data (uncompressed): about a second of reading.
PROGRESS_MIN_BYTES = 16 * 1024 * 1024

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


@dataclass
class Settings:
    """The common options, shared by every command's context (``ctx.obj``)."""

    verbose: int = 0
    quiet: bool = False
    debug: bool = False


def settings() -> Settings:
    """The Settings of the running command (defaults outside a command)."""
    ctx = click.get_current_context(silent=True)
    found = ctx.find_object(Settings) if ctx is not None else None
    return found if found is not None else Settings()


def note(message: str) -> None:
    """A note on stderr (what was written, where), unless ``-q``."""
    if not settings().quiet:
        click.echo(f"{PROG}: {message}", err=True)


def detail(message: str) -> None:
    """A detail on stderr, only with ``-v``."""
    if settings().verbose and not settings().quiet:
        click.echo(f"{PROG}: {message}", err=True)


# ------------------------------------------------------------------------------------------- the group


class Cli(click.Group):
    """A group whose first argument may be a report instead of a command: ``ncu-roofline run.csv`` runs the
    default command (``analyze``); a file named like a command is passed as ``./diff``. Errors become one line
    on stderr and an exit code (see ``main``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and not ctx.resilient_parsing:
            lead = 0
            while lead < len(args) and COMMON_FLAG.match(args[lead]):
                lead += 1
            if lead < len(args) and args[lead] in self.commands:
                args = [args[lead], *args[:lead], *args[lead + 1 :]]  # common flags go after the command name
            elif (lead < len(args) and args[lead] == "--version") or args[0] in ("--help", "-h"):
                args = [a for a in args if not COMMON_FLAG.match(a)]  # -q, -v, --debug: nothing to do for these
            else:
                args = [DEFAULT_COMMAND, *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, "[OPTIONS] REPORT...  |  COMMAND [ARGS]...")

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run, and exit with the documented code: one line on stderr per error, no traceback unless
        ``--debug`` (which re-raises), details with ``-v``."""
        state = extra.setdefault("obj", Settings())
        try:
            rv = super().main(args, prog_name or PROG, complete_var, standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else EXIT_OK
        except click.exceptions.NoArgsIsHelpError as exc:
            exc.show()
            code = EXIT_USAGE
        except click.UsageError as exc:
            where = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            click.echo(f"{PROG}: error: {_one_line(exc.format_message())}{where}", err=True)
            code = exc.exit_code
        except click.ClickException as exc:
            click.echo(f"{PROG}: error: {_one_line(exc.format_message())}", err=True)
            code = exc.exit_code
        except (click.Abort, KeyboardInterrupt):  # click makes Ctrl-C an Abort once a command runs
            click.echo(f"{PROG}: interrupted", err=True)
            code = EXIT_INTERRUPTED
        except NcuRooflineError as exc:
            if state.debug:
                raise
            click.echo(f"{PROG}: error: {_one_line(str(exc))}", err=True)
            if state.verbose:
                _explain(exc)
            code = exc.exit_code
        except Exception as exc:
            if state.debug:
                raise
            click.echo(
                f"{PROG}: internal error: {type(exc).__name__}: {_one_line(str(exc))} "
                "(a bug in ncu-roofline: run with --debug for the traceback, and please report it)",
                err=True,
            )
            if state.verbose:
                _explain(exc)
            code = EXIT_INTERNAL
        sys.exit(code)


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.strip().splitlines() if part.strip())


def _explain(exc: BaseException) -> None:
    """``-v`` on an error: its type, where it was raised, and the chain of causes."""
    seen: BaseException | None = exc
    first = True
    while seen is not None:
        frames = traceback.extract_tb(seen.__traceback__)
        where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
        label = "" if first else f"caused by: {_one_line(str(seen))} "
        click.echo(f"{PROG}:   {label}({type(seen).__module__}.{type(seen).__name__}{where})", err=True)
        seen = seen.__cause__ or (None if seen.__suppress_context__ else seen.__context__)
        first = False


# ------------------------------------------------------------------------------------------- options


def _set_verbose(ctx: click.Context, _param: click.Parameter, value: int) -> None:
    if value:
        ctx.ensure_object(Settings).verbose += value


def _set_quiet(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.ensure_object(Settings).quiet = True


def _set_debug(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.ensure_object(Settings).debug = True


def common_options(f: F) -> F:
    """-v/--verbose, -q/--quiet, --debug: on every command (also accepted before the command's name)."""
    f = click.option(
        "--debug", is_flag=True, expose_value=False, is_eager=True, callback=_set_debug,
        help="On an error, show the Python traceback.",
    )(f)  # fmt: skip
    f = click.option(
        "-q", "--quiet", is_flag=True, expose_value=False, is_eager=True, callback=_set_quiet,
        help="Print nothing but errors (and the output a command writes to stdout).",
    )(f)  # fmt: skip
    f = click.option(
        "-v", "--verbose", count=True, expose_value=False, is_eager=True, callback=_set_verbose,
        help="Say what was read and, on an error, where it came from.",
    )(f)  # fmt: skip
    return f


class FiniteFloatRange(click.FloatRange):
    """A ``FloatRange`` that refuses NaN and infinities: ``nan`` is inside any range (every comparison with it is
    false), and ``--fail-if-slower nan`` or ``inf`` would be a gate silently off."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return super().convert(number, param, ctx)


def _kernel_patterns(_ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    for pattern in value:
        try:
            compile_kernel_pattern(pattern)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param=param) from None
    return value


def _device_name(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from .device import lookup_device, match_device

    try:
        lookup_device(value)  # unknown or ambiguous: a usage error
    except AnalysisError as exc:
        raise click.BadParameter(str(exc), param=param) from None
    said = match_device(value).said(launches=True)
    if said:
        note(said)
    return value  # as given (checked): each launch takes the form of the GPU it names that fits it (given_forms)


#: SI prefixes a --peak value may end in: ncu's (K, M, G, T, P) and the SI spelling of kilo.
_SI = {**{p: f for p, f in PREFIXES.items() if p}, "k": PREFIXES["K"]}


def parse_peak(text: str) -> tuple[str, float]:
    """``"dram_bytes_per_s=4.8T"`` -> ``("dram_bytes_per_s", 4.8e12)``: a figure of the peaks frame and a
    positive number in base units, optionally with an SI prefix (k, M, G, T, P). ``ValueError`` otherwise."""
    from .device import OVERRIDE_KEYS

    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key or not raw:
        raise ValueError(f"{text!r}: expected KEY=VALUE, e.g. dram_bytes_per_s=4.8e12")
    if key not in OVERRIDE_KEYS:
        raise ValueError(f"{key!r} is not a peak figure; known: {', '.join(sorted(OVERRIDE_KEYS))}")
    factor = _SI.get(raw[-1], 1.0)
    try:
        value = float(raw[:-1] if raw[-1] in _SI else raw) * factor
    except ValueError:
        raise ValueError(f"{key}: {raw!r} is not a number (e.g. 4.8e12 or 4.8T)") from None
    if not value > 0 or value == float("inf"):
        raise ValueError(f"{key}: {raw!r} must be a positive, finite number")
    return key, value


def _peaks(_ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in value:
        try:
            key, number = parse_peak(item)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param=param) from None
        out[key] = number
    return out


def analysis_options(f: F) -> F:
    """--kernel, --nvtx, --device, --peak: which launches, and which peaks."""
    f = click.option(
        "--peak", "peaks", multiple=True, metavar="KEY=VALUE", callback=_peaks,
        help="Override a peak figure in base units (SI prefixes allowed), e.g. dram_bytes_per_s=4.8T; "
        "repeatable. Keys: `ncu-roofline devices --keys`.",
    )(f)  # fmt: skip
    f = click.option(
        "--device", metavar="NAME", callback=_device_name,
        help="GPU of the built-in peak table for figures the report lacks (`ncu-roofline devices`), for the "
        "launches of its compute capability; any spelling: a100, A100-80GB, 'h100 sxm'.",
    )(f)  # fmt: skip
    f = click.option(
        "--nvtx", multiple=True, metavar="RANGE",
        help="Keep launches inside this NVTX range (nested ranges as outer/inner; * and ? wildcards); repeatable.",
    )(f)  # fmt: skip
    f = click.option(
        "--kernel", multiple=True, metavar="REGEX", callback=_kernel_patterns,
        help="Keep launches whose kernel name matches this regular expression (re.search); repeatable.",
    )(f)  # fmt: skip
    return f


def output_options(what: str) -> Callable[[F], F]:
    """-o/--output, --force, --open (``what``: the help text of -o)."""

    def decorate(f: F) -> F:
        f = click.option(
            "--open", "open_browser", is_flag=True,
            help="Open the HTML report in a web browser (when there is a display).",
        )(f)  # fmt: skip
        f = click.option("--force", is_flag=True, help="Overwrite output files that exist.")(f)
        f = click.option(
            "-o", "--output", type=click.Path(path_type=Path), metavar="PATH", help=what,
        )(f)  # fmt: skip
        return f

    return decorate


# ------------------------------------------------------------------------------------------- helpers


class Progress:
    """One progress bar over a whole run, on standard error: reading (by file size), analysing, then writing (by
    pieces of output), so a single large file moves the bar through the three and not from 0 to 100 % at once.
    Without a bar (``bar`` None: not a terminal, small inputs, -q) every call does nothing."""

    #: Where each stage ends on the bar (of END): at 10,000 launches reading takes about 40 % of the time.
    READ_END, ANALYSE_END, END = 400, 750, 1000

    def __init__(self, bar: Any | None) -> None:
        self.bar = bar
        self.pos = 0

    def move(self, pos: int, label: str | None = None) -> None:
        """Move the bar to ``pos`` (never back), with a new label when given."""
        if self.bar is None:
            return
        relabel = label is not None and label != self.bar.label
        if relabel:
            self.bar.label = label
        pos = max(self.pos, min(pos, self.END))
        if pos > self.pos:
            self.bar.update(pos - self.pos)
            self.pos = pos
        elif relabel:
            self.bar.render_progress()

    def done(self) -> None:
        """Fill the bar and end its line (before other output goes to the terminal)."""
        if self.bar is None:
            return
        self.move(self.END)
        self.bar.render_finish()
        self.bar = None

    def pieces(self, pieces: Iterable[T], expected: int) -> Iterator[T]:
        """``pieces`` passed through, the bar moving from where it is to the end over ``expected`` of them."""
        start, n = self.pos, max(expected, 1)
        for i, piece in enumerate(pieces, 1):
            yield piece
            self.move(start + (self.END - start) * min(i, n) // n)
        self.done()  # before the note that says where the output went


@contextmanager
def progress_for(paths: Sequence[Path]) -> Iterator[Progress]:
    """A :class:`Progress` over a run that reads ``paths``: a bar on a terminal when they are large (and not -q)."""
    if settings().quiet or not _is_tty(sys.stderr) or sum(uncompressed_size(p) for p in paths) < PROGRESS_MIN_BYTES:
        yield Progress(None)
        return
    bar = click.progressbar(length=Progress.END, label="reading", file=sys.stderr)
    bar.render_progress()
    progress = Progress(bar)
    try:
        yield progress
    finally:
        progress.done()


def read_inputs(paths: Sequence[Path], in_folder: Collection[Path] = (), progress: Progress | None = None) -> Report:
    """Read the input files into one Report, with a progress bar on a terminal when they are large.

    A file found in a folder (``in_folder``) that is not an ncu export (FormatError: no CSV header, binary,
    empty, a capture of ncu's own error) or is one of no rows (EmptyExportError) is skipped with one warning; if
    no file is left, the first such error is raised. A file named explicitly is always an error. ``progress``:
    the run's bar, moved to its reading mark as the files are read (without one, a bar of the reading alone, as
    the other commands show)."""
    from .io import merge, read_one, report_names

    names: list[str | None] = list(report_names(paths)) if len(paths) > 1 else [None]
    sizes = [uncompressed_size(p) for p in paths]
    parts: list[Report] = []
    first: FormatError | EmptyExportError | None = None
    with nullcontext(progress) if progress is not None else progress_for(paths) as bar:
        done, total = 0, max(sum(sizes), 1)
        for path, name, size in zip(paths, names, sizes, strict=True):
            bar.move(bar.READ_END * done // total, f"reading {STDIN_STEM if is_stdin(path) else path.name}")
            try:
                parts.append(read_one(path, name))
            except (FormatError, EmptyExportError) as exc:
                if path not in in_folder:
                    raise
                first = first or exc
                note(f"warning: skipped {path}: {_one_line(exc.detail)}")
            done += size
        bar.move(bar.READ_END * done // total)
    if not parts:
        assert first is not None
        raise first
    return merge(parts)


def _inputs_read(paths: Sequence[Path], report: Report) -> list[Path]:
    """The inputs ``report`` was read from, in order: ``paths`` less a folder's files skipped as no export (the
    output is named after the first report read, not after a stray ``notes.txt``)."""
    from .io import STDIN_SHOWN

    shown = set(report.source["path"].astype(str))
    return [p for p in paths if (STDIN_SHOWN if is_stdin(p) else str(p)) in shown] or list(paths)


def _is_tty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def load(
    paths: Sequence[Path],
    *,
    device: str | None,
    peaks: Mapping[str, float],
    kernel: Sequence[str],
    nvtx: Sequence[str],
    in_folder: Collection[Path] = (),
    progress: Progress | None = None,
) -> Analysis:
    """Read, analyse and filter: the Analysis the commands render. NoLaunchesError when there is nothing.
    ``progress``: the run's bar (moved through reading and analysing)."""
    report = read_inputs(paths, in_folder, progress)
    for row in report.source.itertuples():
        version = f", ncu {row.ncu_version}" if isinstance(row.ncu_version, str) else ""
        skipped = f"; skipped {row.skipped}" if isinstance(row.skipped, str) else ""
        unknown = f"; {row.not_understood}" if isinstance(row.not_understood, str) else ""
        detail(f"read {row.path}: {row.flavour} page{version}, {row.launches} launches{skipped}{unknown}")
    from .io import read_warnings

    for text in read_warnings(report):  # not details: a page cut short, a value given twice, an input twice
        note(f"warning: {text}")
    if len(report.launches) == 0:
        names = ", ".join(str(p) for p in paths)
        raise NoLaunchesError(
            f"{names}: no kernel launches in the input (a session page has none: export the details or raw page)"
        )
    if progress is not None:
        progress.move(progress.READ_END, "analysing")
    analysis = filter_analysis(analyze(report, device=device, peaks=dict(peaks)), kernel, nvtx)
    if device is not None and len(analysis.launches):
        for text in device_not_used(analysis, device):
            note(f"warning: {text}")
    if progress is not None:
        progress.move(progress.ANALYSE_END, "writing")
    return analysis


def device_not_used(analysis: Analysis, device: str) -> list[str]:
    """What ``--device`` was not used for, and why: launches of another compute capability (another GPU's: they
    keep their own figures), and launches of its CC that no form of the GPU it names fits (``given_forms``: a MIG
    instance, or another number of SMs): they keep the entry identified for them, if any, else have none."""
    import pandas as pd

    from .device import find_device, is_mig, sm_counts
    from .model import launch_index
    from .report.fmt import counted
    from .summary import launch_weights  # (a summary page's row: its invocations)

    lv = analysis.launches
    other = lv["device_basis"].astype("string").fillna("").to_numpy(dtype=object) != "--device"
    given = find_device(device)
    if not other.any() or given is None:
        return []
    cc = lv["cc"].astype("string").str.strip()
    same_cc = (cc.isna() | (cc == given.cc)).to_numpy(dtype=bool, na_value=True)
    weights = launch_weights(lv)
    out = []
    if (other & ~same_cc).any():
        ccs = ", ".join(sorted({str(c) for c in lv["cc"][other & ~same_cc].dropna()}))
        n = round(float(weights[other & ~same_cc].sum()))
        out.append(
            f"--device {given.name} is not used for {counted(n, 'launch', 'launches')} "
            f"of another compute capability (CC {ccs}): they keep their own GPU's figures"
        )
    report = analysis.report  # each launch's SM count as the analysis found it (the report's, or its waves')
    index = launch_index(report.launches)
    sms = pd.Series(sm_counts(report.launches, report.values.reindex(index)), index=index)
    sms_of = sms.reindex(launch_index(lv)).to_numpy(dtype=float)
    mig = is_mig(lv["device_name"])
    own = lv["device_table"].astype("string")
    whole = f" ({given.sm_count.value:,.0f} SMs)" if given.sm_count is not None else ""
    for rows, why in (
        (other & same_cc & mig, "of a MIG instance"),
        (other & same_cc & ~mig, ""),
    ):
        if not rows.any():
            continue
        n = round(float(weights[rows].sum()))
        seen = sorted({int(v) for v in sms_of[rows] if not math.isnan(v)})
        on = f"on {', '.join(map(str, seen))} SMs" if seen else ""
        what = " ".join(w for w in (why, on) if w) or "of another form of the GPU"
        kept = sorted({str(t) for t in own[rows].dropna()})
        then = (
            f"they keep their own GPU's figures ({', '.join(kept)})"
            if kept and own[rows].notna().all()
            else "give their peaks with --peak"
        )
        out.append(
            f"--device {given.name} is not used for {counted(n, 'launch', 'launches')} {what}: its figures are "
            f"those of {given.name}{whole}, not theirs; {then}"
        )
    return out


def write_output(path: Path, text: str | Iterable[str] | Iterable[bytes], force: bool) -> None:
    _write_text(path, text, force)
    note(f"wrote {path}")


def display_available(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether a browser can show a page: always on macOS and Windows; elsewhere an X11 or Wayland display."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform == "darwin" or platform.startswith("win"):
        return True
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def open_in_browser(path: Path) -> None:
    """Open a written HTML file in a browser, or say where it is when that cannot be done."""
    if not display_available():
        note(f"no display to open a browser on: open {path.resolve()} on a machine with one")
        return
    if not webbrowser.open(path.resolve().as_uri()):
        note(f"could not start a web browser: open {path.resolve()}")


def _terminal_shape() -> tuple[int | None, bool]:
    """(width, colour) for the terminal summary: the terminal's width and colour on a TTY (NO_COLOR honoured)."""
    if not _is_tty(sys.stdout):
        return None, False
    return shutil.get_terminal_size().columns, "NO_COLOR" not in os.environ


def _is_stdout(path: Path) -> bool:
    """Whether an output path is this process's standard output under another name (``/dev/stdout``,
    ``/dev/fd/1``): the summary printed there would run into the page."""
    if not is_stream_output(path):
        return False
    try:
        a, b = os.stat(path), os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _format_of(fmt: str | None, output: Path | None, suffixes: Mapping[str, str]) -> str | None:
    """The format asked for: ``--format``, else the one whose suffix ``-o`` ends in (the registry's suffix map);
    None (the default: summary and HTML) for an HTML name or none."""
    if fmt is not None or output is None or str(output) == "-":
        return fmt
    found = suffixes.get(output.suffix.lower())
    return None if found == "html" else found


def _write_folder(folder: Path, files: Mapping[str, bytes], force: bool) -> None:
    """A folder format's files (relative path -> bytes) into ``folder``: new or empty, or replaced with force."""
    prepare_folder(folder, force)
    try:
        for rel, data in files.items():
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    except OSError as exc:
        raise OutputError(f"{folder}: cannot write: {exc.strerror or exc}") from exc
    note(f"wrote {len(files)} files to {folder}")


def _check_open(open_browser: bool, fmt: str | None, output: Path | None) -> None:
    if open_browser and (fmt not in (None, "html") or str(output) == "-"):
        raise click.UsageError(
            "--open opens the HTML report file: use it without --format or with --format html, not -o -"
        )
    if open_browser and output is not None and is_stream_output(output):
        raise click.UsageError(f"--open opens the HTML report file: -o {output} is a pipe or a device, not a file")


def _emit(text: str | Iterable[str] | Iterable[bytes], output: Path | None, force: bool) -> None:
    """Text output (a string, or pieces written as they come): to ``-o`` when given (not '-'), else standard
    output."""
    if output is None or str(output) == "-":
        for piece in [text] if isinstance(text, str) else text:
            click.echo(piece, nl=False)
    else:
        write_output(output, text, force)


def _html_and_summary(
    html: Callable[[], str],
    summary: Callable[[], str] | None,
    target: Path,
    force: bool,
    open_browser: bool,
) -> None:
    """The default output: the terminal summary on stdout (unless -q) and the HTML file (or '-': stdout)."""
    if str(target) == "-":
        click.echo(html(), nl=False)
        return
    check_writable(target, force)  # fail before any work is shown
    page = html()
    if summary is not None and not settings().quiet:
        click.echo(summary(), nl=False)
    write_output(target, page, force)
    if open_browser:
        open_in_browser(target)


# ------------------------------------------------------------------------------------------- commands


@click.group(
    cls=Cli,
    name=PROG,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110},
    no_args_is_help=True,
)
@click.version_option(__version__, "--version", prog_name=PROG, message="%(prog)s %(version)s")
def main() -> None:
    """Hierarchical roofline, limiter and hints from Nsight Compute (ncu) exports.

    \b
      ncu-roofline REPORT...                   analyse (the default command: `analyze`)
      ncu-roofline diff BEFORE AFTER           what moved between two reports
      ncu-roofline export REPORT... --parquet DIR
      ncu-roofline sections                    section files and the ncu commands to profile with
      ncu-roofline devices                     the built-in GPU peak table

    \b
    A REPORT is an ncu export (details, raw or summary CSV, stdout capture,
    the text ncu prints without --csv, .ncu-rep; gzip-compressed too), a
    folder of them, a quoted glob, or - for standard input
    (ncu --csv ./app | ncu-roofline -).
    `ncu-roofline COMMAND --help` shows a command's options.

    \b
    Exit codes: 0 ok, 1 `diff --fail-if-slower` tripped, 2 usage, 3 input,
    4 analysis, 5 output, 6 missing extra, 70 internal error, 130 interrupted.
    """
    use_system_allocator()
    keep_freed_memory()


#: ``--format`` values: the renderer registries' names (``ncu_roofline.report.registry``).
ANALYZE_FORMATS = ANALYSIS.names

#: Without --format: the text summary on the terminal and the HTML report in a file (``_render``), the renderers
#: the command line prepares beside the read.
SUMMARY_FORMAT, PAGE_FORMAT = "text", "html"


@main.command(DEFAULT_COMMAND, short_help="Analyse reports (the default command).")
@click.argument("reports", nargs=-1, required=True, metavar="REPORT...")
@click.option(
    "--format", "fmt", type=click.Choice(ANALYZE_FORMATS),
    help="Output format. Default: the text summary on stdout and the HTML report in a file.",
)  # fmt: skip
@output_options(
    "Output file (HTML by default; the format follows a .json/.csv/.md/.txt suffix), or folder for parquet; "
    "'-' for stdout. Default: <input-stem>.roofline.html next to the first input."
)
@click.option("--top", type=click.IntRange(min=1), default=15, show_default=True, help="Kernels in the summary.")
@click.option("--pretty", is_flag=True, help="JSON indented by two spaces (default: compact, one line).")
@analysis_options
@common_options
def analyze_command(
    reports: tuple[str, ...],
    fmt: str | None,
    output: Path | None,
    force: bool,
    open_browser: bool,
    top: int,
    pretty: bool,
    kernel: tuple[str, ...],
    nvtx: tuple[str, ...],
    device: str | None,
    peaks: dict[str, float],
) -> None:
    """Analyse one or more reports (merged into one view, each launch keeping its source).

    Without --format: print the summary and write <input-stem>.roofline.html next to the (first) input
    (<stem>.merged.roofline.html for several inputs). json, csv, markdown and text go to stdout unless -o
    names a file; parquet writes a folder (-o, default <input-stem>.roofline.parquet). A file is overwritten
    only with --force, unless it is an output of ncu-roofline's own (HTML, JSON, Markdown: a re-run replaces it).
    """
    fmt = _format_of(fmt, output, ANALYSIS.suffixes())
    _check_open(open_browser, fmt, output)
    paths, in_folder = expand_arguments(reports)
    if len(paths) > 1:
        detail(f"{len(paths)} inputs: {', '.join(str(p) for p in paths)}")
    # the renderers' imports and one-time work (the HTML template, plotly.js) beside the read, on the idle core
    prepared = ANALYSIS.prepare(*((fmt,) if fmt else (SUMMARY_FORMAT, PAGE_FORMAT)))
    with progress_for(paths) as progress:
        try:
            analysis = load(
                paths, device=device, peaks=peaks, kernel=kernel, nvtx=nvtx, in_folder=in_folder, progress=progress
            )
        finally:
            prepared.join()  # (never left running into the interpreter's exit, where an import would be cut off)
        run = Run(analysis)
        read = _inputs_read(paths, analysis.report)
        if output is None and len(read) > 1 and fmt in (None, "html", "parquet"):
            note(f"{len(read)} inputs merged into one report, named after the first; -o chooses the name")
        _render(
            ANALYSIS,
            fmt,
            run,
            Options(top=top, pretty=pretty),
            output,
            lambda suffix: default_output(read, f".roofline{suffix}"),
            force,
            open_browser,
            progress,
            -(-len(run.analysis.launches) // JSON_CHUNK) + 2,  # the launches' pieces, the head and the rest
            inputs=paths,
        )


S = TypeVar("S")


def _render(
    registry: Registry[S],
    fmt: str | None,
    subject: S,
    options: Options,
    output: Path | None,
    default: Callable[[str], Path],
    force: bool,
    open_browser: bool,
    progress: Progress | None = None,
    pieces: int = 1,
    inputs: Sequence[Path] = (),
) -> None:
    """Render ``subject`` in ``fmt`` from ``registry`` and write it: without a format, the text summary on stdout
    and the HTML in a file (``default(".html")`` unless -o); a folder format into a folder; text to -o or
    stdout. Every format of every command goes through here. ``progress``: the run's bar, moved to its end as
    the output is written (about ``pieces`` pieces of streamed text). No output replaces one of ``inputs``, the
    files read (``check_not_input``), even with --force."""
    bar = progress or Progress(None)
    if fmt is None or fmt == PAGE_FORMAT:
        html = registry.get(PAGE_FORMAT)
        summary: Callable[[], str] | None = None
        if fmt is None and not (output is not None and _is_stdout(output)):  # -o /dev/stdout: the page alone
            width, color = _terminal_shape()
            text, shaped = registry.get(SUMMARY_FORMAT), replace(options, width=width, color=color)

            def summary() -> str:
                return str(text.render(subject, shaped))

        def page() -> str:
            text = str(html.render(subject, options))
            bar.done()  # the summary goes to the terminal next
            return text

        target = output or default(registry.entry(PAGE_FORMAT).suffix)
        check_not_input(target, inputs)
        _html_and_summary(page, summary, target, force, open_browser)
        return
    entry, renderer = registry.entry(fmt), registry.get(fmt)
    if entry.folder:
        if output is not None and str(output) == "-":
            raise click.UsageError(f"{fmt} is a folder of files: -o names the folder, not '-'")
        folder = output or default(entry.suffix)
        check_not_input(folder, inputs)
        files = renderer.render(subject, options)
        assert isinstance(files, Mapping)
        _write_folder(folder, files, force)
        return
    binary = getattr(renderer, "binary", None)  # bytes straight to a file, where the renderer has them
    to_file = output is not None and str(output) != "-"
    if output is not None and to_file:
        check_not_input(output, inputs)
    text_out = binary(subject, options) if binary is not None and to_file else renderer.render(subject, options)
    assert not isinstance(text_out, Mapping)
    to_terminal = (output is None or str(output) == "-") and _is_tty(sys.stdout)
    if not isinstance(text_out, str) and not to_terminal:  # the bar and the text would share the screen
        text_out = bar.pieces(text_out, pieces)
    _emit(text_out, output, force)
    bar.done()


DIFF_FORMATS = DIFF.names


def _side_names(before: str, after: str, b_paths: Sequence[Path], a_paths: Sequence[Path]) -> tuple[str, str]:
    """Names of the two sides for headings: a file's stem (with its parent folders where two files share one),
    or the argument as given for a folder or glob."""
    from .io import report_names

    if len(b_paths) == 1 and len(a_paths) == 1 and b_paths[0].resolve() != a_paths[0].resolve():
        b, a = report_names([b_paths[0], a_paths[0]])
        return b, a
    return (
        input_stem(b_paths[0]) if len(b_paths) == 1 else before,
        input_stem(a_paths[0]) if len(a_paths) == 1 else after,
    )


@main.command("diff", short_help="Compare two reports: what moved, per kernel and in total.")
@click.argument("before", metavar="BEFORE")
@click.argument("after", metavar="AFTER")
@click.option(
    "--format", "fmt", type=click.Choice(DIFF_FORMATS),
    help="Output format. Default: the text comparison on stdout and the HTML page (roofline arrows) in a file.",
)  # fmt: skip
@output_options(
    "Output file (HTML by default; the format follows a .json/.csv/.md/.txt suffix); '-' for stdout. "
    "Default: <before-stem>_vs_<after-stem>.diff.html next to AFTER."
)
@click.option("--top", type=click.IntRange(min=1), default=15, show_default=True, help="Kernels in the table.")
@click.option("--pretty", is_flag=True, help="JSON indented by two spaces (default: compact, one line).")
@click.option(
    "--fail-if-slower", type=FiniteFloatRange(min=0), metavar="PCT",
    help="Exit with code 1 when AFTER's total GPU time is more than PCT percent above BEFORE's (for CI).",
)  # fmt: skip
@analysis_options
@common_options
def diff_command(
    before: str,
    after: str,
    fmt: str | None,
    output: Path | None,
    force: bool,
    open_browser: bool,
    top: int,
    pretty: bool,
    fail_if_slower: float | None,
    kernel: tuple[str, ...],
    nvtx: tuple[str, ...],
    device: str | None,
    peaks: dict[str, float],
) -> None:
    """Compare two reports of the same program: per kernel, the change in GPU time, limiter, regime, roofline
    position and hints, and the whole-program total.

    Launches are matched by kernel name and NVTX range, then launch order (docs/cli.md); what cannot be
    matched is listed. BEFORE and AFTER are each a file, a folder or a quoted glob.
    """
    from .diff import compare

    fmt = _format_of(fmt, output, DIFF.suffixes())
    _check_open(open_browser, fmt, output)
    if is_stdin(before) and is_stdin(after):
        raise click.UsageError("standard input ('-') can be one side of a diff only: it is read once")
    (b_paths, b_folder), (a_paths, a_folder) = expand_arguments([before]), expand_arguments([after])
    options: dict[str, Any] = {"device": device, "peaks": peaks, "kernel": (), "nvtx": ()}
    b_name, a_name = _side_names(before, after, b_paths, a_paths)
    sides = [load(b_paths, in_folder=b_folder, **options), load(a_paths, in_folder=a_folder, **options)]
    if kernel or nvtx:  # a side may have none of the kernels selected: new, or gone; both none is an error
        from .filters import describe_filters

        if nvtx:  # a side without NVTX ranges cannot be selected by them: its launches would read as gone
            for side, a in (("BEFORE", sides[0]), ("AFTER", sides[1])):
                paths = a.launches["nvtx_path"] if "nvtx_path" in a.launches.columns else None
                if len(a.launches) and (paths is None or paths.isna().all()):
                    raise NoLaunchesError(
                        f"--nvtx: {side} has no NVTX ranges (its export has no NVTX columns), so --nvtx cannot "
                        "select its launches: profile it with --nvtx (and export the page with its NVTX columns), "
                        "or compare by --kernel"
                    )
        kept = [filter_analysis(a, kernel, nvtx, allow_empty=True) for a in sides]
        if not any(len(a.launches) for a in kept):
            counts = (f"{len(a.launches):,}" for a in sides)
            raise NoLaunchesError(
                f"{describe_filters(kernel, nvtx)} selects none of BEFORE's {next(counts)} launches nor of AFTER's "
                f"{next(counts)}"
            )
        sides = kept
    diff = compare(sides[0], sides[1], before_name=b_name, after_name=a_name)
    stem = f"{input_stem(b_paths[0])}_vs_{input_stem(a_paths[0])}"
    _render(
        DIFF,
        fmt,
        diff,
        Options(top=top, pretty=pretty),
        output,
        lambda suffix: a_paths[0].parent / f"{stem}.diff{suffix}",
        force,
        open_browser,
        inputs=[*b_paths, *a_paths],
    )

    if fail_if_slower is not None:
        from .diff import untimed_launches
        from .report.fmt import counted

        t = diff.total
        for side, ns, a in (("BEFORE", t.before_ns, diff.before), ("AFTER", t.after_ns, diff.after)):
            if not len(a.launches):  # the filters selected none of its launches
                raise AnalysisError(f"--fail-if-slower: {side} has none of the launches the filters select")
            if not ns > 0:  # NaN or none: nothing to compare
                raise AnalysisError(f"--fail-if-slower: {side} has no GPU time to compare (no duration metric)")
            if untimed := untimed_launches(a):  # the totals would compare different launches
                raise AnalysisError(
                    f"--fail-if-slower: {counted(untimed, 'launch', 'launches')} of {side} "
                    f"{'has' if untimed == 1 else 'have'} no duration (no duration metric collected there): the "
                    "total GPU times would compare different launches; profile both with the duration"
                )
        if t.change * 100.0 > fail_if_slower:
            raise SlowerError(
                f"AFTER is {t.change * 100.0:.1f}% slower than BEFORE in total GPU time "
                f"({t.before_ns / 1e6:.3f} ms -> {t.after_ns / 1e6:.3f} ms), over --fail-if-slower {fail_if_slower:g}%"
            )
        detail(f"total change {t.change * 100.0:+.1f}% is within --fail-if-slower {fail_if_slower:g}%")


@main.command("export", short_help="Many reports as one Parquet dataset, in parallel.")
@click.argument("reports", nargs=-1, required=True, metavar="REPORT...")
@click.option(
    "--parquet", "folder", type=click.Path(path_type=Path), required=True, metavar="DIR",
    help="The dataset folder: DIR/<frame>/report=<name>/part-0.parquet (created; reports are added to it).",
)  # fmt: skip
@click.option(
    "-j", "--jobs", type=click.IntRange(min=1), metavar="N",
    help="Worker processes (default: one per CPU this process may use).",
)  # fmt: skip
@click.option("--metrics/--no-metrics", default=True, show_default=True, help="Include the long metrics frame.")
@click.option("--force", is_flag=True, help="Replace reports already in the dataset.")
@analysis_options
@common_options
def export_command(
    reports: tuple[str, ...],
    folder: Path,
    jobs: int | None,
    metrics: bool,
    force: bool,
    kernel: tuple[str, ...],
    nvtx: tuple[str, ...],
    device: str | None,
    peaks: dict[str, float],
) -> None:
    """Export the tidy frames of many reports as one Parquet dataset, partitioned by report, in parallel.

    Each report is read, analysed and written by its own worker; one that fails is reported and the others
    carry on (the exit code is then the first failure's). Query the dataset with pyarrow.dataset, DuckDB,
    Spark or Dask (docs/cli.md).
    """
    from .campaign import ExportOptions, ExportResult, default_jobs, export
    from .io import report_names

    if any(is_stdin(r) for r in reports):
        raise click.UsageError("export reads each report in a worker process: save standard input ('-') to a file")
    paths, in_folder = expand_arguments(reports)
    check_not_input(folder, paths)  # (a file in the folder's place: campaign.export says so, exit 5)
    created = not folder.exists()
    names = report_names(paths)
    options = ExportOptions(device=device, peaks=peaks, kernel=kernel, nvtx=nvtx, metrics=metrics, force=force)
    workers = min(jobs or default_jobs(), len(paths))
    detail(f"{len(paths)} reports, {workers} worker process{'es' if workers != 1 else ''}")
    show_bar = not settings().quiet and _is_tty(sys.stderr) and len(paths) > 1

    def stray(result: ExportResult) -> bool:
        return result.status == "failed" and result.not_an_export and Path(result.path) in in_folder

    def report(result: ExportResult) -> None:
        if stray(result):
            note(f"warning: skipped {_one_line(result.message)}")
        elif result.status == "failed":
            click.echo(f"{PROG}: error: {_one_line(result.message)}", err=True)
            if settings().debug and result.traceback:
                click.echo(result.traceback, err=True, nl=False)
        elif result.status == "skipped":
            detail(f"skipped {result.path}: {result.message}")

    if show_bar:
        with click.progressbar(length=len(paths), label="exporting", file=sys.stderr) as bar:

            def step(result: ExportResult) -> None:
                bar.update(1)
                report(result)

            results = export(list(zip(paths, names, strict=True)), folder, options, jobs=workers, on_result=step)
    else:
        results = export(list(zip(paths, names, strict=True)), folder, options, jobs=workers, on_result=report)

    ok = [r for r in results if r.status == "ok"]
    failed = [r for r in results if r.status == "failed" and not stray(r)]
    skipped = len(results) - len(ok) - len(failed)
    launches = sum(r.launches for r in ok)
    extra = f", {skipped} without launches to export" if skipped else ""
    if skipped and not ok and not failed:  # nothing exported: as the analysis, a filter that keeps none is an error
        from .report.fmt import counted

        if created and not any(folder.iterdir()):
            folder.rmdir()  # (made by this run for nothing)
        first = next(r for r in results if r.status == "skipped")
        raise NoLaunchesError(
            f"no launch to export in {counted(len(results), 'report')} ({first.path}: {_one_line(first.message)})"
        )
    note(f"exported {len(ok)} of {len(results)} reports ({launches} launches) to {folder}{extra}")
    if failed:
        error = NcuRooflineError(f"{len(failed)} of {len(results)} reports failed (listed above)")
        error.exit_code = failed[0].exit_code
        raise error


@main.command("sections", short_help="The section files, the ncu they load in, and the ncu commands.")
@click.option(
    "--copy", "dest", type=click.Path(path_type=Path), metavar="DIR",
    help="Write the section files into DIR (created if missing), in the form the ncu at hand loads; the printed "
    "commands then use DIR.",
)  # fmt: skip
@click.option(
    "--ncu", "ncu_spec", metavar="BIN|VERSION",
    help="The ncu to write for and check with: its executable (the version from `BIN --version`) or a version "
    "such as 2024.2. Default: the ncu on PATH; without one, the newest form (ncu 2025.3).",
)  # fmt: skip
@click.option("--force", is_flag=True, help="With --copy: replace section files already in DIR.")
@common_options
def sections_command(dest: Path | None, ncu_spec: str | None, force: bool) -> None:
    """Show where the ncu-roofline section files are, whether the ncu at hand loads them, and the exact ncu
    commands to profile with them. With --copy, write them in the form that ncu loads (ncu 2022.3 and newer)."""
    from .errors import NcuRooflineError
    from .sectionforms import NEWEST_FORM, FormChoice
    from .sections import COPY_PLACEHOLDER, copy_sections, describe, ncu_report, resolve_ncu, section_folder

    if force and dest is None:
        raise click.UsageError("--force goes with --copy DIR")
    choice = resolve_ncu(ncu_spec)
    folder = section_folder()
    if dest is not None:
        form_choice = choice.form() or FormChoice(NEWEST_FORM, NEWEST_FORM.version, None)
        if form_choice.note:
            note(form_choice.note)
        copied = copy_sections(dest, force=force, form=form_choice.form)
        note(f"wrote {', '.join(p.name for p in copied)} to {dest} in the ncu {form_choice.form.version} form")
        folder = dest.resolve()  # the printed commands work from any folder
    folder_form = form_choice.form.version if dest is not None else NEWEST_FORM.version
    lines, check = ncu_report(choice, folder, folder_form)
    # the printed commands: with the files this ncu loads, run by the ncu named with --ncu (else the one on PATH)
    if check is not None:
        loads = check.loads()
    else:  # no ncu run: its version given with --ncu, or none at all (the files here then stand)
        given = choice.form()
        loads = given is None or given.form.version == folder_form
    profile_folder = Path(COPY_PLACEHOLDER) if dest is None and not loads else None
    run_with = choice.command if ncu_spec is not None and choice.command is not None else "ncu"
    click.echo(describe(folder, lines, profile_folder=profile_folder, ncu=run_with), nl=False)
    if dest is not None and check is not None and not check.loads():
        raise NcuRooflineError(f"ncu {choice.version} does not load the files written to {dest} (listed above)")


DEVICE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("SMs", "sm_count", ""),
    ("boost clock", "sm_clock_hz", "Hz"),
    ("DRAM", "dram_bytes_per_s", "B/s"),
    ("L2", "l2_bytes_per_s", "B/s"),
    ("FP64", "fp64_flops", "FLOP/s"),
    ("FP32", "fp32_flops", "FLOP/s"),
    ("FP16", "fp16_flops", "FLOP/s"),
    ("BF16 tensor", "tensor_bf16_flops", "FLOP/s"),
    ("FP8 tensor", "tensor_fp8_flops", "FLOP/s"),
)
FIGURE_UNITS = {"sm_count": "", "sm_clock_hz": "Hz", "tensor_int8_flops": "OP/s"}


def _figure_unit(name: str) -> str:
    return FIGURE_UNITS.get(name, "B/s" if name.endswith("bytes_per_s") else "FLOP/s")


@main.command("devices", short_help="The built-in GPU peak table, with sources.")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.option("--sources", is_flag=True, help="Every figure of every device with its source.")
@click.option("--keys", is_flag=True, help="List the KEY names --peak accepts.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@common_options
def devices_command(names: tuple[str, ...], sources: bool, keys: bool, fmt: str) -> None:
    """The built-in peak table: the fallback for figures a report lacks. NAME shows one GPU's figures, each with
    the document it comes from (matching ignores case and punctuation, aliases allowed)."""
    import json

    from .device import OVERRIDE_KEYS, lookup_device, match_device
    from .devices import DEVICES
    from .report import fmt as f

    if keys:
        if names or sources:
            raise click.UsageError("--keys lists the KEY names --peak accepts: give it without NAME or --sources")
        listed = sorted(OVERRIDE_KEYS)
        click.echo(json.dumps(listed) if fmt == "json" else "\n".join(listed))
        return
    specs = []
    for name in names:
        try:
            specs.append(lookup_device(name))
        except AnalysisError as exc:
            raise click.BadParameter(str(exc), param_hint="NAME") from None
        said = match_device(name).note  # a bare family: which form it was taken for, as --device says
        if said:
            note(said)
    specs = specs or list(DEVICES)
    if fmt == "json":
        doc = [
            {
                "name": d.name,
                "family": d.family,
                "aliases": list(d.aliases),
                "cc": d.cc,
                "memory": d.memory,
                "notes": d.notes,
                "figures": {
                    k: None if v is None else {"value": v.value, "source": v.source} for k, v in d.figures().items()
                },
            }
            for d in specs
        ]
        click.echo(json.dumps(doc, indent=2, sort_keys=True))
        return
    if names or sources:
        for i, d in enumerate(specs):
            lines = [f"{d.name} (CC {d.cc}, {d.memory})", f"  aliases: {', '.join(d.aliases)}"]
            for key, fig in d.figures().items():
                value = "not published" if fig is None else f.si(fig.value, _figure_unit(key), digits=4)
                source = "" if fig is None else f"  [{fig.source}]"
                lines.append(f"  {key:<18} {value:>14}{source}")
            if d.notes:
                lines.append(f"  notes: {d.notes}")
            click.echo(("\n" if i else "") + "\n".join(lines))
        return
    rows = []
    for d in specs:
        figs = d.figures()
        row = [d.name, d.cc]
        for _label, key, unit in DEVICE_COLUMNS:
            fig = figs[key]
            row.append(f.MISSING if fig is None else f.si(fig.value, unit))
        rows.append(row)
    headers = ["GPU", "CC", *(label for label, _, _ in DEVICE_COLUMNS)]
    click.echo("\n".join(f.table(headers, rows, [False, False, *([True] * len(DEVICE_COLUMNS))])))
    click.echo(
        f"\nTensor figures are dense (no sparsity); '{f.MISSING}': not published. Every figure has its source: "
        "`ncu-roofline devices NAME` or --sources."
    )


_quiet_interrupt(False)  # loaded: Ctrl-C is Python's KeyboardInterrupt again, which Cli.main turns into exit 130
