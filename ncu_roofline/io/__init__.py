"""Reading ncu exports: one reader per flavour, and :func:`read`, the front door that sniffs which to use."""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from os import PathLike
from pathlib import Path
from typing import BinaryIO, Protocol, TypeVar

import numpy as np
import pandas as pd

from ..arrowpool import malloc_arrow
from ..errors import InputError, ParseError
from ..files import STDIN, STDIN_STEM, expand_inputs, is_stdin, is_stream
from ..model import (
    LAUNCH_COLUMNS,
    RULE_COLUMNS,
    SESSION_COLUMNS,
    SOURCE_COLUMNS,
    MetricSource,
    Report,
    conform,
    empty_frame,
    launch_index,
    merged_columns,
    repeated_reports,
)
from ..quantities import DEVICE_ATTRIBUTES, duration_metrics, duration_ns, metric_names
from ..units import CHECKED_COUNTERS
from ..vocabulary import CUT_SHORT, TWO_VALUES
from .details import read_details
from .ncurep import read_ncurep
from .page import Page, describe_not_understood
from .raw import read_raw
from .records import NotUtf8Error, describe_skipped
from .session import read_session
from .sniff import (
    Located,
    Skipped,
    UnquotedError,
    check_path,
    decompressed,
    is_gzip,
    lines_starting,
    locate,
    requoted,
    trailing_line,
    utf16_encoding,
)
from .summary import read_summary
from .textpage import as_details_csv
from .textsession import as_session_csv
from .textsummary import as_summary_csv

__all__ = ["STDIN", "is_stdin", "read", "read_one", "read_warnings", "report_names"]

PathArg = str | PathLike[str]


#: How errors name standard input (``files.STDIN``, ``-``; its report name is ``files.STDIN_STEM``, ``stdin``).
STDIN_SHOWN = "<stdin>"


def _stem(p: Path) -> str:
    if is_stdin(p):
        return STDIN_STEM
    name = p.name[:-3] if p.name.endswith(".gz") else p.name
    return name.rsplit(".", 1)[0] if "." in name else name


def report_names(paths: Sequence[Path]) -> list[str]:
    """A short, unique name per file: its name without the last suffix (and .gz), with parent folders as
    needed to tell apart files of the same name (as many as it takes; the root is never part of a name). Files
    of one folder whose names differ only in the suffixes dropped (``run.csv`` and ``run.csv.gz``) keep their
    whole file names. The same file twice (by its resolved path) is an ``InputError`` naming it."""
    resolved = [Path(STDIN_SHOWN) if is_stdin(p) else p.resolve() for p in paths]  # "-" is no file of the folder
    first: dict[Path, int] = {}
    for i, r in enumerate(resolved):
        if first.setdefault(r, i) != i:
            raise InputError(paths[i], "the same file is given twice")
    folders = [r.parent.parts[1:] if r.parent.anchor else r.parent.parts for r in resolved]
    names, clash = _with_folders([_stem(p) for p in paths], folders)
    if clash:  # one folder, one stem: their whole file names (the others' names kept), with folders if need be
        names, clash = _with_folders(
            [r.name if i in clash else n for i, (n, r) in enumerate(zip(names, resolved, strict=True))], folders
        )
    if clash:  # pragma: no cover - distinct resolved paths: their folders and file names tell them apart
        raise InputError(paths[min(clash)], "cannot be told apart from another input by its name")
    return names


def _with_folders(names: list[str], folders: list[tuple[str, ...]]) -> tuple[list[str], set[int]]:
    """``names`` with, where two are equal, their innermost parent folders put before them (one more each round
    until they differ), and the positions of those still equal once every folder is used."""
    depth = 1
    while True:
        counts = Counter(names)
        clash = {i for i, n in enumerate(names) if counts[n] > 1}
        if not clash or all(depth > len(folders[i]) for i in clash):
            return names, clash
        names = ["/".join([*folders[i][-depth:], n.split("/")[-1]]) if i in clash else n for i, n in enumerate(names)]
        depth += 1


def read_one(path: PathArg, report: str | None = None) -> Report:
    """Read one ncu export of any flavour into a :class:`Report` (gzip-compressed files too); ``-``: standard
    input, copied to a temporary file first (report name ``stdin``, errors naming ``<stdin>``)."""
    p = Path(path)
    name = report or report_names([p])[0]
    if is_stdin(path):
        return _read_stdin(name)
    if is_stream(p):  # read once, as '-' is, and opened once (check_path's open and close would leave a named
        # pipe's writer without its reader)
        try:
            stream = p.open("rb")
        except OSError as exc:
            raise InputError(p, f"cannot open: {exc.strerror or exc}") from exc
        with stream:
            return _read_stream(stream, p, name)
    check_path(p)
    return _read_file(p, p, name)


def _read_file(p: Path, shown: Path, name: str) -> Report:
    """Read ``p``, gzip-compressed or not (a decompressed copy read then); errors name ``shown``."""
    if is_gzip(p):
        with decompressed(p) as plain:
            return _read_plain(plain, shown, name)
    return _read_plain(p, shown, name)


def _read_stdin(name: str) -> Report:
    """Read an export piped into standard input (``_read_stream``); errors name ``<stdin>``."""
    shown = Path(STDIN_SHOWN)
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise InputError(shown, "no standard input to read")
    if stream.isatty():
        raise InputError(shown, "'-' reads an export piped in (ncu --csv ... | ncu-roofline -), not the terminal")
    return _read_stream(stream, shown, name)


def _read_stream(stream: BinaryIO, shown: Path, name: str) -> Report:
    """Read an export that can be read only once (standard input, a pipe): copied to a temporary file (the
    readers map and seek their input), then read as a file is, gzip-compressed too; errors name ``shown``."""
    with tempfile.TemporaryDirectory(prefix="ncu-roofline-") as tmp:
        copy = Path(tmp) / STDIN_STEM
        with copy.open("wb") as out:
            shutil.copyfileobj(stream, out, length=1 << 20)
        try:
            return _read_file(copy, shown, name)
        except InputError as exc:  # (one naming the copy: damaged gzip)
            raise _named(exc, copy, shown) from None


def _read_plain(p: Path, shown: Path, name: str) -> Report:
    """Read ``p`` (maybe a decompressed copy of ``shown``); errors name ``shown``."""
    encoding = utf16_encoding(p)
    if encoding is not None:
        # Windows PowerShell 5 writes `ncu --csv ... > out.csv` in UTF-16: read a UTF-8 copy.
        with _transcoded(p, encoding) as copy:
            try:
                return _read_page(copy, shown, name)
            except InputError as exc:
                raise _named(exc, copy, shown) from None
    try:
        try:
            return _read_page(p, shown, name)
        except NotUtf8Error:
            pass
        # Program output in another code page around or inside the CSV (e.g. CP949 on a Korean Windows console):
        # read a copy with those bytes replaced; they are in lines that are skipped, or listed as not understood.
        with _utf8_copy(p) as (copy, count):
            note = f"{count} line(s) not in UTF-8 (their bytes replaced)"
            try:
                return _read_page(copy, shown, name, [note])
            except InputError as exc:
                raise _named(exc, copy, p) from None
    except InputError as exc:
        raise _named(exc, p, shown) from None


def _named(exc: InputError, actual: Path, shown: Path) -> InputError:
    """The same error naming ``shown`` where it names ``actual`` (a temporary copy)."""
    if exc.path != str(actual) or actual == shown:
        return exc
    return type(exc)(shown, exc.detail, line=exc.line, column=exc.column)


@contextlib.contextmanager
def _transcoded(path: Path, encoding: str) -> Iterator[Path]:
    """A UTF-8 copy of a text file in ``encoding`` (undecodable bytes replaced)."""
    with tempfile.TemporaryDirectory(prefix="ncu-roofline-") as tmp:
        out = Path(tmp) / path.name
        with (
            path.open("r", encoding=encoding, errors="replace", newline="") as src,
            out.open("w", encoding="utf-8", newline="") as dst,
        ):
            shutil.copyfileobj(src, dst, length=1 << 20)
        yield out


@contextlib.contextmanager
def _utf8_copy(path: Path) -> Iterator[tuple[Path, int]]:
    """A copy of ``path`` with bytes that are not UTF-8 replaced (U+FFFD), and how many lines had any."""
    with tempfile.TemporaryDirectory(prefix="ncu-roofline-") as tmp:
        out = Path(tmp) / path.name
        count = 0
        with path.open("rb") as src, out.open("wb") as dst:
            for line in src:
                try:
                    line.decode("utf-8")
                    dst.write(line)
                except UnicodeDecodeError:
                    count += 1
                    dst.write(line.decode("utf-8", errors="replace").encode("utf-8"))
        yield out, count


def _read_page(p: Path, shown: Path, name: str, notes: Sequence[str] = ()) -> Report:
    try:
        loc = locate(p)
    except UnquotedError as exc:  # saved again without ncu's quotes: read a copy quoted as ncu writes it (the
        assert exc.line is not None  # same cells: nothing to say in not_understood)
        with requoted(p, exc.line, exc.row_numbers) as copy:
            try:
                return _read_page(copy, shown, name, notes)
            except InputError as err:
                raise _named(err, copy, shown) from None
    session = empty_frame(SESSION_COLUMNS)
    version = loc.ncu_version
    if loc.flavour == "details":
        page = read_details(loc, name)
    elif loc.flavour == "text":
        page = _through_copy(p, shown, name, as_details_csv, read_details)
    elif loc.flavour == "text-summary":
        page = _through_copy(p, shown, name, as_summary_csv, read_summary)
    elif loc.flavour == "raw":
        page = read_raw(loc, name)
    elif loc.flavour == "summary":
        page = read_summary(loc, name)
    elif loc.flavour == "session":
        page = Page(empty_frame(LAUNCH_COLUMNS))
        session, version = read_session(loc, name)
    elif loc.flavour == "text-session":
        (session, version), text = _read_copy(p, shown, name, as_session_csv, read_session)
        page = Page(empty_frame(LAUNCH_COLUMNS), skipped=text.skipped, not_understood=text.not_understood)
    elif loc.flavour == "ncu-rep":
        page = read_ncurep(loc, name)
    else:  # pragma: no cover - locate() returns only the flavours above
        raise InputError(p, f"unknown flavour {loc.flavour}")
    sources: tuple[MetricSource, ...] = () if page.metrics is None else (page.metrics,)
    skipped: list[Skipped] = [*loc.preamble, *page.skipped]
    ended = _ended_early(p, loc.flavour, skipped)
    items = [*notes, *page.not_understood, *([ended] if ended else [])]
    metric_rows = sum(x.row_count() for x in sources)
    source = conform(
        pd.DataFrame(
            [
                {
                    "report": name,
                    "path": str(shown),
                    "flavour": "text" if loc.flavour.startswith("text") else loc.flavour,
                    "ncu_version": version,
                    "launches": len(page.launches),
                    "metric_rows": metric_rows,
                    "rule_rows": len(page.rules),
                    "skipped_lines": len(skipped),
                    "skipped": describe_skipped(skipped) or None,
                    "not_understood": describe_not_understood(items),
                }
            ]
        ),
        SOURCE_COLUMNS,
    )
    launches = with_cc(with_duration(page.launches, sources), sources)
    _check_durations(shown, launches)
    _check_signs(shown, launches, sources)
    warnings = _warnings(shown, items, len(launches))
    return Report(
        launches=launches, rules=page.rules, source=source, session=session, warnings=warnings, _sources=sources
    )


#: The flavours whose every record is a quoted line of CSV (what follows the last one is no part of the page).
_CSV_PAGES = frozenset({"details", "raw", "summary"})


def _ended_early(p: Path, flavour: str, skipped: Sequence[Skipped]) -> str | None:
    """CUT_SHORT's note where a CSV page's output goes on after its last record with a line that may be ncu's
    error (``sniff.trailing_line``), with its line number where the reader skipped it."""
    text = trailing_line(p) if flavour in _CSV_PAGES else None
    if text is None:
        return None
    lines = [s.line for s in skipped if s.line is not None and s.text.strip() == text]
    at = f" (line {max(lines)})" if lines else ""
    shown = text if len(text) <= 80 else text[:77] + "..."
    return f"{CUT_SHORT}: after its last record comes {shown!r}{at}, as when ncu stops on an error part-way"


def _warnings(shown: Path, items: Sequence[str], launches: int) -> tuple[str, ...]:
    """``Report.warnings`` of one file from its notes (``source.not_understood``'s items, all of them): that the
    page may be cut short (``CUT_SHORT``: the launches after the cut are missing), and the first metric a launch
    has twice with different values (``TWO_VALUES``: not measured), with how many more there are."""
    read = f"{launches} launch{'es' * (launches != 1)} read"
    out = [f"{shown}: {item}; {read}" for item in items if item.startswith(CUT_SHORT)][:1]
    two = [item for item in items if TWO_VALUES in item]
    if two:
        more = len(two) - 1
        out.append(f"{shown}: {two[0]}" + (f"; and {more} more such metric{'s' * (more > 1)}" if more else ""))
    return tuple(out)


def _check_durations(shown: Path, launches: pd.DataFrame) -> None:
    """ParseError naming the first launch whose GPU time is negative (no GPU time is: a damaged or edited cell,
    which would subtract from every sum of GPU time) or beyond float64 in ns (``1e307`` us)."""
    d = launches["duration_ns"].to_numpy(dtype=np.float64, na_value=np.nan)
    _refuse_negative(shown, launches, d, "its duration is {value:g} ns (expected a duration of zero or more")
    _refuse(shown, launches, np.isinf(d), "its duration in ns is beyond 1e308 (expected a finite duration")


def _check_signs(shown: Path, launches: pd.DataFrame, sources: Sequence[MetricSource]) -> None:
    """ParseError naming the first launch and metric where a counter verdicts are made of (``CHECKED_COUNTERS``:
    throughputs, bytes, byte rates, clocks) is negative: none is, and one such cell (a DRAM byte rate of -5) made
    a roof fraction negative."""
    names = sorted(m for m in metric_names() if m.partition(".")[0] in CHECKED_COUNTERS)
    columns = merged_columns(sources, launch_index(launches), names)
    for name in names:
        if name in columns:
            values = np.asarray(columns[name], dtype=np.float64)
            _refuse_negative(shown, launches, values, f"{name} is {{value:g}} (expected zero or more")


def _refuse_negative(shown: Path, launches: pd.DataFrame, values: np.ndarray, said: str) -> None:
    """ParseError naming the first launch (row of ``launches``) whose value is negative: ``said`` with its
    ``{value}``, then that the cell is damaged or edited; the line, the launch's first with a negative cell."""
    bad = values < 0
    if bad.any():
        _refuse(shown, launches, bad, said.format(value=values[int(np.argmax(bad))]), ',"-')


def _refuse(shown: Path, launches: pd.DataFrame, bad: np.ndarray, said: str, containing: str | None = None) -> None:
    """ParseError naming the first launch (row of ``launches``) where ``bad`` holds: ``said``, then that the cell
    is damaged or edited; with the line of that launch's first record holding ``containing``, where given."""
    at = np.flatnonzero(bad)
    if len(at):
        row = launches.iloc[int(at[0])]
        lid, pid = row["launch_id"], row["process_id"]
        # (a CSV page's records begin with the launch's key)
        found = containing is not None and shown.is_file()
        line = lines_starting(shown, f'"{lid}","{pid}",', containing=containing or "", limit=1) if found else []
        raise ParseError(
            shown,
            f"launch ID {lid} of process {pid} ({row['kernel_name']}): {said}: the cell is damaged or edited)",
            line=line[0] if line else None,
        )


_Read = TypeVar("_Read")


class _Parsed(Protocol):
    skipped: list[Skipped]
    not_understood: list[str]


def _read_copy(
    p: Path,
    shown: Path,
    name: str,
    convert: Callable[[Path], AbstractContextManager[tuple[Path, _Parsed]]],
    reader: Callable[[Located, str], _Read],
) -> tuple[_Read, _Parsed]:
    """What ``reader`` reads of the CSV copy ``convert`` writes of a page ncu printed without ``--csv`` (each row on
    the page's own line, so errors name the page's lines), and what ``convert`` parsed of the page."""
    with convert(p) as (copy, text):
        try:
            return reader(locate(copy), name), text
        except InputError as err:
            raise _named(err, copy, shown) from None


def _through_copy(
    p: Path,
    shown: Path,
    name: str,
    convert: Callable[[Path], AbstractContextManager[tuple[Path, _Parsed]]],
    reader: Callable[[Located, str], Page],
) -> Page:
    """A page ncu printed without ``--csv``, read through its CSV copy (``_read_copy``): its skipped lines and what
    was not understood are the page's."""
    page, text = _read_copy(p, shown, name, convert, reader)
    return replace(page, skipped=text.skipped, not_understood=[*text.not_understood, *page.not_understood])


def with_duration(launches: pd.DataFrame, sources: Sequence[MetricSource]) -> pd.DataFrame:
    """``launches`` with ``duration_ns`` filled: each launch's GPU time in ns by the first recipe of the metric
    table's ``duration`` figure the export has (``gpu__time_duration.sum``, else elapsed cycles / clock); NaN
    where none is measured (never 0). Reads only those metrics (a raw page's other columns are not touched)."""
    index = launch_index(launches)
    # only the duration metrics, merged as Report.values merges sources (a details page's long form is not built)
    columns = merged_columns(sources, index, duration_metrics())
    out = launches.copy()
    out["duration_ns"] = duration_ns(pd.DataFrame(columns, index=index))
    return out


def with_cc(launches: pd.DataFrame, sources: Sequence[MetricSource]) -> pd.DataFrame:
    """``launches`` with ``cc`` filled where the page has no CC column (the raw and details pages of ncu 2019.5-2022)
    from the device attributes a launch carries (``device__attribute_compute_capability_major``/``minor``, ``"7.0"``);
    a page's own CC is kept (``9`` read as ``9.0``: a spreadsheet that re-saved the page dropped its ``.0``); missing
    where neither is."""
    if "cc" not in launches.columns:
        return launches
    whole = launches["cc"].str.fullmatch(r"\d+").fillna(False).to_numpy(dtype=bool)
    if whole.any():
        launches = launches.assign(cc=launches["cc"].where(~whole, launches["cc"] + ".0"))
    if launches["cc"].notna().all():
        return launches
    names = tuple(DEVICE_ATTRIBUTES[k].metrics[0] for k in ("cc_major", "cc_minor"))
    columns = merged_columns(sources, launch_index(launches), names)
    if not all(n in columns for n in names):
        return launches
    major, minor = (np.asarray(columns[n], dtype=np.float64) for n in names)
    known = np.isfinite(major) & np.isfinite(minor) & launches["cc"].isna().to_numpy()
    if not known.any():
        return launches
    out = launches.copy()
    text = out["cc"].to_numpy(dtype=object)
    text[known] = [f"{int(a)}.{int(b)}" for a, b in zip(major[known], minor[known], strict=True)]
    out["cc"] = pd.array(text, dtype="string")  # (the STR of LAUNCH_COLUMNS)
    return out


def _path_list(paths: object) -> list[PathArg]:
    """``read``'s argument as a list of paths; InputError for what is not (an open file, text or bytes in memory,
    a frame: each was taken as a list of paths, its lines or column names, and failed on the first)."""
    what = _not_a_path(paths)
    if what is None:
        try:
            items: list[PathArg] = list(paths)  # type: ignore[call-overload]
        except TypeError:
            what = type(paths).__name__
        else:
            bad = next((x for x in items if not isinstance(x, (str, PathLike))), None)
            if bad is None:
                return items
            what = f"a list holding {_not_a_path(bad) or type(bad).__name__}"
    raise InputError(None, f"read() takes the path of an export, or several; got {what}")


def _not_a_path(value: object) -> str | None:
    """What ``value`` is, and what to pass instead, when it is a thing often passed for a path; else None."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "bytes: write them to a file and pass its path"
    if hasattr(value, "read"):
        return f"an open file or stream ({type(value).__name__}): pass its path (a file's .name), or write it to a file"
    if isinstance(value, pd.DataFrame):  # (a Series of paths is a list of them)
        return "a pandas DataFrame: pass the path of the export it was read from"
    return None


def _expands(path: Path) -> bool:
    """Whether a path given to ``read`` names more than itself: a folder, or a glob pattern (no such file)."""
    return (path.is_dir() and not is_stdin(path)) or (not path.exists() and any(c in str(path) for c in "*?["))


@malloc_arrow
def read(paths: PathArg | Iterable[PathArg]) -> Report:
    """Read one or more ncu exports (details, raw, summary or session pages, stdout captures, those pages as ncu
    prints them without ``--csv``, .ncu-rep).

    ``paths``: a path (``str`` or ``os.PathLike``), or several; a folder (every export under it) or a glob pattern
    (``"runs/*.csv"``) as the command line reads them (``ncu_roofline.files.expand_inputs``), except that a file
    found there that is not an ncu export is an error here, where the command line skips it with a warning.
    Several files give one Report whose frames carry each launch's ``report`` (the file's short name).
    Raises a subclass of :class:`ncu_roofline.errors.InputError` naming the file, line and what was expected.
    """
    given = [paths] if isinstance(paths, (str, PathLike)) else _path_list(paths)
    if not given:
        raise InputError(None, "no input files given")
    if len(given) == 1 and not _expands(Path(given[0])):
        return read_one(given[0])
    plist = expand_inputs(Path(x) for x in given)
    if len(plist) == 1:
        return read_one(plist[0])
    names = report_names(plist)
    return merge([read_one(p, n) for p, n in zip(plist, names, strict=True)])


def read_warnings(report: Report) -> list[str]:
    """What a reader of the results must know of the inputs, one line each (the command line warns of each, the
    HTML report shows them): ``Report.warnings`` (a page that may be cut short, a metric a launch has twice with
    different values) and inputs that hold the same launches (``repeated_inputs``)."""
    return [*report.warnings, *repeated_inputs(report)]


def repeated_inputs(report: Report) -> list[str]:
    """Per pair of a merged report's inputs that hold the same launches (``model.repeated_reports``), one line
    saying so, naming their files."""
    path = dict(zip(report.source["report"].astype(object), report.source["path"].astype(object), strict=True))
    return [
        f"{path.get(a, a)} and {path.get(b, b)} hold the same {n} launches (one report given twice, as two pages or "
        "two ncu versions' exports?): each launch is counted twice; give one of them"
        for a, b, n in repeated_reports(report.launches)
    ]


def merge(reports: Sequence[Report]) -> Report:
    """One Report from several (their ``report`` names must differ)."""
    if len(reports) == 1:
        return reports[0]

    def cat(frames: list[pd.DataFrame], cols: dict[str, str]) -> pd.DataFrame:
        frames = [f for f in frames if len(f)]
        if not frames:
            return empty_frame(cols)
        return conform(pd.concat(frames, ignore_index=True), cols)

    return Report(
        launches=cat([r.launches for r in reports], LAUNCH_COLUMNS),
        rules=cat([r.rules for r in reports], RULE_COLUMNS),
        source=cat([r.source for r in reports], SOURCE_COLUMNS),
        session=cat([r.session for r in reports], SESSION_COLUMNS),
        warnings=tuple(w for r in reports for w in r.warnings),
        _sources=tuple(x for r in reports for x in r._sources),
    )
