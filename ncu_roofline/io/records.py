"""Fast, strict reading of the CSV records after an ncu header, with pyarrow's multithreaded parser.

Rows whose field count differs from the expected width are not lost: pyarrow hands each to a callback,
and :func:`classify_odd_rows` decides what it is (an ncu message, program output, a table ncu embeds in
``--print-details all`` exports, a rule row, or damage). Damage is an error that names the line.
"""

from __future__ import annotations

import csv
import mmap
import os
import re
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..arrowpool import LIBC
from ..errors import EmptyExportError, FormatError, ParseError
from ..units import detect_number_style, other_grouping, space_grouped, spaces_read, style_examples
from .sniff import PROF_LINE, Located, Skipped, classify_header, fields_of, line_of, lines_of

BLOCK_SIZE = 1 << 22  # 4 MiB blocks: enough rows per block for the 2,240-column raw page
DICT = pa.dictionary(pa.int32(), pa.string())
_INT = re.compile(r"^\d+$")
#: An integer key as ncu writes it, or as pandas writes it back from a float column ("663.0": a column with an
#: empty cell, the raw page's units row, is read as floats by ``pd.read_csv``).
_KEY = re.compile(r"^(\d+)(?:\.0+)?$")
#: A key written with its thousands grouped ("1,024"): groups of three after the first.
_GROUPED_KEY = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.0+)?$")


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity mask (what ``taskset``, a batch job's ``srun -c`` or a
    container's cpuset leaves it), not every CPU of the machine (``os.cpu_count``: 128 on a node of which a job
    may have 2, and 8 parsing threads on 2 CPUs read 25% slower with 200 MB more at peak than 2 threads do)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows: no affinity mask to read
        return max(1, os.cpu_count() or 1)


#: Split a file into at most this many byte ranges parsed side by side (one per CPU this process may use).
MAX_CHUNKS = max(1, min(8, usable_cpus()))
#: ... each at least this large: below it one serial parse is cheaper than threads.
MIN_CHUNK_BYTES = 8 << 20


@dataclass
class OddRows:
    """Rows pyarrow did not accept at the expected width, as (field count, text); ``lines``: the line number of
    each, where the reader knows them (else they are found by their text)."""

    rows: list[tuple[int, str]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)

    def __call__(self, row: Any) -> str:
        self.rows.append((int(row.actual_columns), str(row.text)))
        return "skip"


def _chunk_bounds(path: Path, start: int, size: int) -> list[int]:
    """Byte offsets that cut [start, size) into line-aligned ranges, one per core for a large file."""
    k = max(1, min(MAX_CHUNKS, (size - start) // MIN_CHUNK_BYTES))
    bounds = [start]
    with path.open("rb") as fh:
        for i in range(1, k):
            fh.seek(start + (size - start) * i // k)
            fh.readline()  # ncu never writes a line break inside a field: a line start is a row start
            pos = fh.tell()
            if bounds[-1] < pos < size:
                bounds.append(pos)
    bounds.append(size)
    return bounds


def read_records(
    loc: Located,
    names: list[str],
    types: dict[str, pa.DataType],
    skip_rows: int = 0,
    include: list[str] | None = None,
) -> tuple[pa.Table, OddRows]:
    """Read the records after the header as strings; rows of another width go to the returned OddRows.

    A large file is cut at line starts into one range per core, each parsed serially on its own thread
    (pyarrow releases the GIL while parsing). The odd-row callback needs the GIL: with one pyarrow reader
    threaded internally, the many rule rows of a details page made parsing twice as slow on two cores."""
    with pa.memory_map(str(loc.path)) as src:
        size = src.size()
        bounds = _chunk_bounds(loc.path, loc.data_offset, size)
        buf = src.read_buffer()
        if not valid_utf8(buf.slice(loc.data_offset)):
            raise NotUtf8Error(loc.path, "bytes that are not UTF-8 after the header (expected UTF-8 text)")
        odds = [OddRows() for _ in bounds[1:]]  # one per range: keeps the rows in file order

        def parse(i: int) -> pa.Table | None:
            a, b = bounds[i], bounds[i + 1]
            try:
                return pacsv.read_csv(
                    pa.BufferReader(buf.slice(a, b - a)),
                    read_options=pacsv.ReadOptions(
                        column_names=names,
                        skip_rows=skip_rows if i == 0 else 0,
                        use_threads=False,
                        block_size=BLOCK_SIZE,
                    ),
                    parse_options=pacsv.ParseOptions(invalid_row_handler=odds[i], newlines_in_values=False),
                    convert_options=text_cells(types, include),
                )
            except pa.ArrowInvalid as exc:
                if "Empty CSV file" in str(exc):  # nothing in this range
                    return None
                raise _arrow_error(loc, exc, a) from exc

        n = len(bounds) - 1
        if n == 1:
            parts = [parse(0)]
        else:
            with ThreadPoolExecutor(n) as pool:
                parts = list(pool.map(parse, range(n)))
        odd = OddRows([row for o in odds for row in o.rows])
        tables = [t for t in parts if t is not None]
        if not tables:  # nothing after the header: the caller says what was expected
            return pa.table({c: pa.array([], type=types[c]) for c in (include or names)}), odd
        table = pa.concat_tables(tables).unify_dictionaries().combine_chunks()
        lines, blank = _count_lines(buf, loc.data_offset)
    if table.num_rows + len(odd.rows) + skip_rows + blank != lines:
        # pyarrow joined lines: a quoted field holds a line break. Find it (slow, only on damage).
        _no_line_breaks(loc, table)
        raise ParseError(
            loc.path,
            "a line break inside a quoted field (a damaged row): the records do not add up to the file's lines",
            line=_first_open_quote(loc),
        )
    return table, odd


def _count_lines(buf: pa.Buffer, start: int) -> tuple[int, int]:
    """(lines, blank lines) in the buffer from ``start``: the rows pyarrow must have seen, and skipped.

    Counted on the memory map in slices, without copying the file: the positions of the line breaks, then blank
    lines from the gaps between them (a gap of 1 is "\\n\\n", a gap of 2 over a CR is "\\n\\r\\n")."""
    data = np.frombuffer(buf, dtype=np.uint8)[start:]
    breaks = _line_breaks(data)
    lines = len(breaks) + int(len(data) > 0 and data[-1] != 10)
    gap = np.diff(breaks)
    blank = int(np.count_nonzero(gap == 1))
    two = breaks[:-1][gap == 2]
    blank += int(np.count_nonzero(data[two + 1] == 13))
    blank += int(len(data) > 0 and data[0] == 10)
    return lines, blank


def _first_open_quote(loc: Located) -> int | None:
    """The 1-based line of the first record line that opens a quote it does not close (``quote_left_open``):
    where a CSV parse joins lines. Read only on damage."""
    with loc.path.open("rb") as fh:
        before = fh.read(loc.data_offset).count(b"\n")
        for n, raw in enumerate(fh, start=before + 1):
            if quote_left_open(raw.decode("utf-8", errors="replace").rstrip("\r\n")):
                return n
    return None


def _no_line_breaks(loc: Located, table: pa.Table) -> None:
    """ncu never writes a line break inside a field: one there means a damaged row that happens to parse."""
    for name in table.column_names:
        col = table.column(name)
        arr = col.combine_chunks()
        values = arr.dictionary if isinstance(arr.type, pa.DictionaryType) else arr
        if not pa.types.is_string(values.type):
            continue
        hit = pc.match_substring_regex(values, r"[\r\n]")
        if pc.any(hit).as_py():
            bad = values.filter(hit)[0].as_py()
            line = line_of(loc.path, bad.splitlines()[0] if bad.strip() else bad, start=loc.data_offset)
            raise ParseError(loc.path, f"a line break inside a field of column {name!r} (a damaged row)", line=line)


class NotUtf8Error(ParseError):
    """Bytes after the header that are not UTF-8 (program output in another code page): the caller reads a copy
    with those bytes replaced."""


def valid_utf8(buf: pa.Buffer) -> bool:
    """Whether a buffer is UTF-8 text (Arrow's vectorised check: about 15 GB/s, the buffer is not copied)."""
    offsets = pa.py_buffer(np.array([0, buf.size], dtype=np.int64).tobytes())
    arr = pa.LargeBinaryArray.from_buffers(pa.large_binary(), 1, [None, offsets, buf])
    try:
        arr.cast(pa.large_string())
    except pa.ArrowInvalid:
        return False
    return True


def _long_line(path: Path, size: int) -> int | None:
    """The 1-based number of the first line of ``path`` longer than ``size`` bytes (None: none)."""
    with path.open("rb") as fh:
        for number, line in enumerate(iter(lambda: fh.readline(size + 1), b""), 1):
            if len(line) > size:  # (a shorter line is read whole, so the count stays right)
                return number
    return None


def _arrow_error(loc: Located, exc: Exception, offset: int) -> ParseError:
    message = str(exc)
    m = re.search(r"row (\d+)", message)
    line = None
    if m and "CSV parse error" in message:
        # pyarrow counts rows from the start of the byte range it read.
        with loc.path.open("rb") as fh:
            before = fh.read(offset).count(b"\n")
        line = before + int(m.group(1))
    text = message.split(": ", 1)[-1] if "CSV parse error" in message else message
    if "straddl" in message:  # pyarrow: "straddling object straddles two block boundaries (try to increase ...)"
        line = _long_line(loc.path, BLOCK_SIZE)
        return ParseError(
            loc.path,
            f"a record longer than {BLOCK_SIZE >> 20} MiB (a field that long is no ncu cell: a damaged quote, or "
            "another file glued in?)",
            line=line,
        )
    return ParseError(loc.path, f"malformed CSV ({text})", line=line)


#: Why a repeated header (and the raw page's units row under it) is skipped.
REPEATED_HEADER = "the header again (a second capture appended to the file, e.g. one per MPI rank)"


def _equals_text(arr: pa.Array, text: str) -> np.ndarray:
    """Per row, whether a (dictionary-encoded) string column's cell is ``text``; the rows' codes compared, not
    their strings, where the column is dictionary-encoded."""
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)) and not isinstance(
        arr.type, pa.DictionaryType
    ):
        return np.zeros(len(arr), dtype=bool)  # a column parsed as numbers holds no name
    if isinstance(arr.type, pa.DictionaryType):
        words = arr.dictionary.to_pylist()
        if text not in words:
            return np.zeros(len(arr), dtype=bool)
        codes = arr.indices.to_numpy(zero_copy_only=False)
        out: np.ndarray = codes == words.index(text)
        return out
    return np.asarray(pc.fill_null(pc.equal(arr, text), False).to_numpy(zero_copy_only=False), dtype=bool)


def drop_repeated_headers(
    loc: Located, table: pa.Table, keys: tuple[str, str], units: list[str] | None = None
) -> tuple[pa.Table, list[Skipped]]:
    """The table without the rows that repeat the header (two captures written into one file: ``mpirun -np 2 ncu
    --csv ...`` or ``>>``), found by two of its columns (``keys``) holding their own names; on a raw page
    (``units``) the units row under each must equal the first one (the values of both captures are in the same
    units), else FormatError naming its line. Returns the rows kept and the skipped lines."""
    first, second = keys
    again = _equals_text(column(table, first), first) & _equals_text(column(table, second), second)
    if not again.any():
        return table, []
    header_text = ",".join(f'"{c}"' for c in loc.header)
    lines = lines_of(loc.path, [header_text], start=loc.data_offset).get(header_text, [])
    drop = again.copy()
    skipped = [Skipped(n, header_text, REPEATED_HEADER) for n in lines]
    if units is not None:
        at = np.flatnonzero(again) + 1  # the row under each repeated header: its units row
        for k, row in enumerate(at.tolist()):
            line = lines[k] + 1 if k < len(lines) else None
            cells = [str(column(table, c)[row].as_py() or "") if row < table.num_rows else "" for c in loc.header]
            if row >= table.num_rows or cells != units:
                differ = next((c for c, a, b in zip(loc.header, cells, units, strict=True) if a != b), loc.header[0])
                raise FormatError(
                    loc.path,
                    f"the header again, but not the units row of line {loc.header_line + 1} under it (column "
                    f"{differ!r}): two raw pages with other units in one file; export each capture to a file of "
                    "its own",
                    line=line,
                )
            drop[row] = True
            skipped.append(Skipped(line, ",".join(f'"{u}"' for u in units), REPEATED_HEADER + ": its units row"))
    kept = table.filter(pa.array(~drop))
    # the dictionaries without the header's words (readers check every word of a key column's dictionary)
    columns = [
        pc.dictionary_encode(column(kept, c).dictionary_decode())
        if isinstance(kept.schema.field(c).type, pa.DictionaryType)
        else kept.column(c)
        for c in kept.column_names
    ]
    return pa.table(columns, names=kept.column_names), skipped


def column(table: pa.Table, name: str) -> pa.Array:
    """One column of a read table as a single contiguous array."""
    col = table.column(name)
    return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()


def text_cells(
    types: dict[str, pa.DataType], include: list[str] | None = None, *, check_utf8: bool = True
) -> pacsv.ConvertOptions:
    """pyarrow's conversion of ncu's cells: the given types, only the included columns, and an empty cell (quoted
    or not) an empty string, never null (ncu writes every cell; a missing one is the row's width's business).
    ``check_utf8=False`` where the caller has checked the bytes already."""
    return pacsv.ConvertOptions(
        column_types=types,
        include_columns=include,
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
        check_utf8=check_utf8,
    )


def string_columns(names: list[str], dictionary: set[str]) -> dict[str, pa.DataType]:
    return {n: (DICT if n in dictionary else pa.string()) for n in names}


@dataclass
class Classified:
    """What the odd rows were: rule rows (a table with the header's columns, as strings) and skipped lines."""

    rules: pa.Table | None = None
    skipped: list[Skipped] = field(default_factory=list)


def _rule_table(header: list[str], texts: list[str]) -> tuple[pa.Table | None, list[str]]:
    """Parse rule-row candidates in one pass; return (table of launch-keyed rows, texts that are not)."""
    clean = [t for t in texts if "\n" not in t and "\r" not in t]
    rest = [t for t in texts if "\n" in t or "\r" in t]
    if not clean:
        return None, rest
    try:
        table = pacsv.read_csv(
            pa.BufferReader("\n".join(clean).encode("utf-8")),
            read_options=pacsv.ReadOptions(column_names=header, use_threads=False),
            convert_options=text_cells(dict.fromkeys(header, pa.string())),
        )
    except pa.ArrowInvalid:
        return None, texts
    if table.num_rows != len(clean):
        return None, texts
    keyed = pc.and_(
        pc.match_substring_regex(table.column(header[0]), r"^\d+$"),
        pc.match_substring_regex(table.column(header[1]), r"^\d+$"),
    )
    if pc.all(keyed).as_py():
        return table, rest
    mask = keyed.to_numpy(zero_copy_only=False)
    return table.filter(keyed), rest + [t for t, ok in zip(clean, mask, strict=True) if not ok]


def classify_odd_rows(
    loc: Located, odd: OddRows, *, record_width: int, rule_width: int | None, header: list[str] | None = None
) -> Classified:
    """Sort the odd rows into rule rows, skippable lines, and damage (raised as ParseError).

    - a row of ``rule_width`` fields whose first two fields are integers (ID, Process ID): a rule result;
    - a line ncu itself prints (``==PROF==``, ``==WARNING==``, ``==ERROR==``): skipped, recorded;
    - a line that is not a quoted CSV record (program output, a text body item): skipped, recorded;
    - a table ncu embeds in ``--print-details all`` output (a header of names, e.g. ``"GPU ID","GPU Name"``,
      then rows of the same width that are not launch records): skipped, recorded;
    - anything else, e.g. a launch record with the wrong number of fields, or a row cut short: ParseError.
    """
    out = Classified()
    table_widths: set[int] = set()
    pending: list[tuple[int, str, list[str], bool, int | None]] = []
    known: list[int | None] = list(odd.lines) if len(odd.lines) == len(odd.rows) else [None] * len(odd.rows)
    rows = [(w, t, n) for (w, t), n in zip(odd.rows, known, strict=True)]
    if rule_width is not None and header is not None:
        candidates = [t for w, t, _ in rows if w == rule_width and t.startswith('"')]
        out.rules, leftover = _rule_table(header, candidates)
        chosen = set(candidates) - set(leftover) if out.rules is not None else set()
        rows = [(w, t, n) for w, t, n in rows if t not in chosen]
    rule_rows: list[list[str]] = []
    for width, text, line in rows:
        stripped = text.strip()
        if not stripped:
            continue
        if PROF_LINE.match(stripped):
            out.skipped.append(Skipped(line, text, "ncu message"))
            continue
        if not stripped.startswith('"'):
            out.skipped.append(Skipped(line, text, "not a CSV record (program output or a text body item)"))
            continue
        fields = fields_of(stripped)
        if fields is None:  # a quoted field that is not closed: never a record ncu wrote
            pending.append((width, text, loose_fields(stripped), True, line))
            continue
        if any("\n" in f or "\r" in f for f in fields):
            first = stripped.splitlines()[0]
            raise ParseError(loc.path, "a line break inside a field (a damaged row)", line=_find_line(loc, first))
        launch_like = len(fields) >= 2 and bool(_INT.match(fields[0])) and bool(_INT.match(fields[1]))
        if rule_width is not None and width == rule_width and launch_like:
            rule_rows.append(fields)
            continue
        if fields == loc.header:  # a second capture's header (the first's is loc's)
            out.skipped.append(Skipped(line, text, REPEATED_HEADER))
            continue
        other = classify_header(fields)
        if other is not None:  # another page's header: its rows are no part of this page
            raise FormatError(
                loc.path,
                f"a second ncu page here ({other} page) after the {loc.flavour} page that starts at line "
                f"{loc.header_line}: export each page to a file of its own",
                line=line if line is not None else line_of(loc.path, stripped, start=loc.data_offset),
            )
        if not launch_like and fields and all(f and not _INT.match(f) for f in fields):
            table_widths.add(len(fields))
            out.skipped.append(Skipped(line, text, "table embedded by ncu (header)"))
            continue
        pending.append((width, text, fields, False, line))
    for _width, text, fields, unclosed, at in pending:
        launch_like = len(fields) >= 2 and bool(_INT.match(fields[0])) and bool(_INT.match(fields[1]))
        if not launch_like and not unclosed and len(fields) in table_widths:
            out.skipped.append(Skipped(at, text, "table embedded by ncu (row)"))
            continue
        line = _find_line(loc, text)
        expected = f"{record_width}" + (f" (metric row) or {rule_width} (rule row)" if rule_width else "")
        cut = " - the file may be cut short" if line is not None and _is_last_record(loc, line) else ""
        what = f"row has {len(fields)} fields" + (" and an unclosed quote" if unclosed else "")
        raise ParseError(loc.path, f"{what}, expected {expected}{cut}", line=line)
    if rule_rows and header is not None:
        extra = pa.table({c: pa.array([r[i] for r in rule_rows], pa.string()) for i, c in enumerate(header)})
        out.rules = extra if out.rules is None else pa.concat_tables([out.rules, extra])
    if any(s.line is None for s in out.skipped):
        out.skipped = _with_lines(loc, out.skipped)
    else:
        out.skipped.sort(key=lambda s: s.line or 0)  # as _with_lines orders them
    return out


def loose_fields(text: str) -> list[str]:
    """Fields of a damaged line, as well as they can be told apart."""
    try:
        return next(csv.reader([text]), [])
    except csv.Error:
        return text.split(",")


def _find_line(loc: Located, text: str) -> int | None:
    found = lines_of(loc.path, [text.rstrip("\r\n")], start=loc.data_offset).get(text.rstrip("\r\n"), [])
    return found[0] if found else None


def _is_last_record(loc: Located, line: int) -> bool:
    with loc.path.open("rb") as fh:
        total = sum(1 for _ in fh)
    return line >= total


def _with_lines(loc: Located, skipped: list[Skipped]) -> list[Skipped]:
    """Attach line numbers to skipped lines (the parser runs threaded and does not know them)."""
    texts = sorted({s.text.rstrip("\r\n") for s in skipped})
    where = lines_of(loc.path, texts, start=loc.data_offset)
    used: dict[str, int] = {}
    out = []
    for s in skipped:
        key = s.text.rstrip("\r\n")
        i = used.get(key, 0)
        used[key] = i + 1
        lines = where.get(key, [])
        out.append(Skipped(lines[i] if i < len(lines) else None, s.text, s.reason))
    return sorted(out, key=lambda s: (s.line is None, s.line or 0))


def describe_skipped(skipped: list[Skipped] | tuple[Skipped, ...]) -> str:
    """One line per kind of skipped line: count, reason, first line numbers and an example."""
    if not skipped:
        return ""
    groups: dict[str, list[Skipped]] = {}
    for s in skipped:
        groups.setdefault(s.reason, []).append(s)
    parts = []
    for reason, items in groups.items():
        lines = [str(s.line) for s in items if s.line is not None]
        shown = ", ".join(lines[:5]) + (", ..." if len(lines) > 5 else "")
        example = items[0].text.strip()
        if len(example) > 60:
            example = example[:57] + "..."
        parts.append(f"{len(items)} {reason} line(s) (line {shown}; e.g. {example!r})")
    return "; ".join(parts)


def number_style(loc: Located, values: pa.Array | pa.ChunkedArray) -> str:
    """Decide the number style of a file from a sample of its value cells (distinct values first)."""
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if isinstance(arr.type, pa.DictionaryType):
        arr = arr.dictionary
    head = arr.slice(0, 200_000)
    cell = other_grouping(head)
    if cell is not None:
        raise _grouped(loc, cell, ": ncu groups digits by ',' (by '.' or a space where the decimal mark is ',')")
    samples = [s for s in head.unique().to_pylist() if s]
    style = detect_number_style(samples)
    spaced = space_grouped(head)
    if not spaces_read(style, spaced):
        assert spaced is not None
        raise _grouped(
            loc,
            spaced,
            " where no other number has a decimal comma: a page of one locale groups by a space only beside decimal "
            "commas ('19,38')",
        )
    if style is None:
        both = style_examples(samples)
        shown = f"{both[0]!r} and {both[1]!r}" if both else "e.g. '1,234.5' and '1.234,5'"
        raise ParseError(
            loc.path,
            f"numbers in two styles ({shown}): expected one locale per file",
            line=line_of(loc.path, f'"{both[1]}"', start=loc.data_offset) if both else None,
        )
    return style


def unread_note(loc: Located, cells: Sequence[str]) -> str | None:
    """The ``source.not_understood`` note of cells that look like numbers and are none
    (``units.unread_numbers``): how many, the first three, and the line of the first. None for none."""
    if not cells:
        return None
    line = line_of(loc.path, f'"{cells[0]}"', start=loc.data_offset)
    shown = ", ".join(repr(c) for c in cells[:3]) + (f" and {len(cells) - 3} more" if len(cells) > 3 else "")
    return (
        f"{len(cells)} number{'s' if len(cells) > 1 else ''} as ncu writes none (damaged?), not measured: {shown}"
        + (f" (line {line})" if line else "")
    )


def _grouped(loc: Located, cell: str, why: str) -> ParseError:
    """The error for a number whose digit groups are refused (``cell``), with ``why``, naming its line."""
    sep = next(c for c in cell if not c.isdigit() and c not in "-.,")
    return ParseError(
        loc.path,
        f"a number grouped by {sep!r} ({cell!r}){why}; export again in the C locale (LC_ALL=C ncu ...)",
        line=line_of(loc.path, f'"{cell}"', start=loc.data_offset),
    )


def int_keys(loc: Located, column: str, arr: pa.Array) -> np.ndarray:
    """Integer key column (ID, Process ID; int64 or dictionary-encoded text) -> int64 numpy array; damage raises."""
    if pa.types.is_integer(arr.type):
        keys: np.ndarray = arr.to_numpy(zero_copy_only=False).astype(np.int64)
        if len(keys) and keys.min() < 0:  # ncu numbers launches and processes from 0
            bad = str(int(keys.min()))
            line = line_of(loc.path, f'"{bad}"', start=loc.data_offset)
            raise ParseError(loc.path, f"{column} {bad!r} is not an integer of 0 or more", line=line, column=column)
        return keys
    if not isinstance(arr.type, pa.DictionaryType):
        arr = arr.dictionary_encode()
    words = arr.dictionary.to_pylist()
    ints = np.empty(len(words), dtype=np.int64)
    for i, w in enumerate(words):
        text = w.strip()  # thousands grouped by three ("1,024"), or no key ("1,0,2,4" was read as 1024)
        m = _KEY.match(text.replace(",", "") if _GROUPED_KEY.match(text) else text)
        if not m:
            line = line_of(loc.path, f'"{w}"', start=loc.data_offset)
            raise ParseError(loc.path, f"{column} {w!r} is not an integer", line=line, column=column)
        ints[i] = int(m.group(1))
    codes = arr.indices.to_numpy(zero_copy_only=False)
    result: np.ndarray = ints[codes]
    return result


def categorical(arr: pa.Array, empty_as_na: bool = True) -> pd.Categorical:
    """A (dictionary-encoded) arrow string column as a pandas Categorical; '' becomes NA."""
    if not isinstance(arr.type, pa.DictionaryType):
        arr = arr.dictionary_encode()
    cats = arr.dictionary.to_pylist()
    codes = arr.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    if empty_as_na and "" in cats:
        e = cats.index("")
        cats = cats[:e] + cats[e + 1 :]
        codes = np.where(codes == e, -1, np.where(codes > e, codes - 1, codes)).astype(np.int32)
    return pd.Categorical.from_codes(codes, categories=pd.Index(cats, dtype=object), validate=False)


def quote_left_open(text: str) -> bool:
    """Whether a line is no CSV record by itself: a field that opens a quote (``0,"x`` or ``0","``) not closed on
    it, or other quoting no CSV record has; a quote inside a field that does not start with one (``He said "hi``)
    is text. (A count of the quotes took ``0","``, two of them, for closed.)"""
    return '"' in text and fields_of(text.strip()) is None


def check_header(loc: Located, page: str, required: Sequence[str] = ()) -> None:
    """FormatError where the header lacks a column of ``required`` (a ``page`` without it) or names one twice."""
    header = loc.header
    missing = [c for c in required if c not in header]
    if missing:
        raise FormatError(loc.path, f"{page} without column(s) {missing}", line=loc.header_line)
    if len(set(header)) != len(header):
        dup = sorted({c for c in header if header.count(c) > 1})
        raise FormatError(loc.path, f"header repeats column(s) {dup}", line=loc.header_line)


def check_nonempty(loc: Located, n_rows: int, what: str) -> None:
    """EmptyExportError where the page has no rows after its header; on a page printed with ``--print-details
    body`` or ``all`` (a ``Body Item Label`` column), that such a page has rows only where the report's sections
    have body items to print, and what to export instead."""
    if n_rows == 0:
        why = ""
        if "Body Item Label" in loc.header:
            why = (
                "; its 'Body Item Label' column says it was printed with --print-details body or all, which has rows"
                " only where the report's sections have body items: export the details page without"
                " --print-details, or the raw page"
            )
        raise EmptyExportError(
            loc.path,
            f"the export has a header but no {what} (expected at least one launch after line {loc.header_line}){why}",
            line=loc.header_line,
        )


# ------------------------------------------------------------------------------------------ streamed blocks

#: Bytes read and parsed at a time by :func:`split_blocks`: memory stays bounded by this, not by the file.
#: 32 MB since the rows are read by runs (records._by_prefix): a block's fixed costs weigh more beside its parse.
#: The 10,240-launch pages read in 0.53-0.59 s against 0.57-0.72 s with 16 MB, Arrow's buffers from malloc as the
#: command line takes them (the JSON run 1.16-1.36 s against 1.21-1.52 s); with pyarrow's mimalloc no faster and
#: 30-50 MB more at its peak; 64 MB no faster than 32 and 100 MB more.
STREAM_BLOCK = 32 << 20
#: ... but a page of fewer blocks than parsing threads is cut into one block per thread, down to this size (a
#: 31 MB page of 1,024 launches read in 0.10 s as two 16 MB blocks, 0.12 s as one of 31 MB).
MIN_STREAM_BLOCK = 4 << 20


class Fallback(Exception):
    """The streamed reader met something only the careful reader handles (a line of another kind, a key that is
    not an integer, damage, bytes that are not UTF-8): the caller reads the file again the careful way, which
    says what and where."""


@dataclass
class Block:
    """One line-aligned byte range of a page, its lines sorted by a byte test and each kind parsed once.

    ``metric``: the rows ending in the empty field after ``Metric Value`` (the metric rows of a ragged page), or
    every non-blank row of a page without rule columns;
    ``rules``: every other non-blank row, parsed at the header's full width (rule rows), or None;
    ``lines``: the block's lines (only while ``prepare`` runs: the bytes are reused);
    ``metric_line``: the line of each metric row;
    ``heads``: see below."""

    metric: pa.Table
    rules: pa.Table | None
    lines: pa.Array
    metric_line: np.ndarray
    extra: Any = None  # what the caller's ``prepare`` computed from the block, on the parsing thread
    #: (the columns before ``prefix_until`` of each run's first line, as strings; each metric row's run) where
    #: the metric rows were parsed by :func:`_by_prefix`, else None
    heads: tuple[pa.Table, np.ndarray] | None = None
    #: the lines of the block (blank ones included)
    n_lines: int = 0
    #: the lines that are neither a metric nor a rule row (a ragged page's text body items, the tables ncu embeds
    #: in ``--print-details all`` pages, program output, ncu's messages): (line in the block, 0-based; field count;
    #: text), as the careful reader's OddRows sees them, for :func:`classify_odd_rows`
    odd: list[tuple[int, int, str]] = field(default_factory=list)


def _parse_group(
    buf: pa.Buffer,
    names: list[str],
    types: dict[str, pa.DataType],
    include: list[str],
    rows: int,
    odd: list[tuple[int, int, str]] | None = None,
) -> pa.Table:
    """Parse lines that must all be records of ``len(names)`` fields; any that is not, or a count that does not
    add up (a line break pyarrow saw that we did not, e.g. a lone CR), is a Fallback. The lines are UTF-8 (their
    block was checked) and none is blank (blank lines are in neither group). ``odd``: rows of another width are
    collected there instead, as (their line among these, 0-based; field count; text), as the careful reader's
    OddRows sees them."""

    def collect(row: Any) -> str:
        if odd is None or row.number is None:
            return "error"  # a row of another width or none: pyarrow raises
        odd.append((int(row.number) - 1, int(row.actual_columns), str(row.text)))
        return "skip"

    try:
        table = pacsv.read_csv(
            pa.BufferReader(buf),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False, block_size=1 << 22),
            parse_options=pacsv.ParseOptions(
                newlines_in_values=False, ignore_empty_lines=False, invalid_row_handler=None if odd is None else collect
            ),
            convert_options=text_cells(types, include, check_utf8=False),
        )
    except pa.ArrowInvalid as exc:
        raise Fallback(str(exc)) from exc
    if table.num_rows + (len(odd) if odd is not None else 0) != rows:
        raise Fallback("rows that do not add up to the lines")
    return table


def text_of(lines: pa.Array) -> pa.Buffer:
    """The bytes of a (large) string array's values, back to back, without a copy."""
    if not len(lines):
        return pa.py_buffer(b"")
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[lines.offset : lines.offset + len(lines) + 1]
    data: pa.Buffer = lines.buffers()[2].slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    return data


def release_memory() -> None:
    """Hand memory freed by parsed blocks back to the system: Arrow's allocator keeps freed pages for reuse, and
    glibc keeps what the parsing threads freed in their own arenas (a third of the peak at 10,240 launches)."""
    pa.default_memory_pool().release_unused()
    trim = getattr(LIBC, "malloc_trim", None)  # glibc's
    if trim is not None:
        trim(0)


def _mapped(fd: int, offset: int, length: int) -> np.ndarray:
    """``length`` bytes of the file from ``offset``, mapped read-only (no copy: the page cache's own pages;
    unmapped when the last view of them goes). Paged in as they are first read, by the line-break scan, whose
    numpy loop lets the other threads run: not by ``MAP_POPULATE``, during which Python's ``mmap`` holds the
    interpreter lock (CPython 3.11), every other thread stopped while a block not in the page cache is read from
    disk (0.16 s for 256 MB here)."""
    if length <= 0:
        return np.zeros(0, dtype=np.uint8)
    base = offset - offset % mmap.ALLOCATIONGRANULARITY
    mm = mmap.mmap(fd, length + offset - base, access=mmap.ACCESS_READ, offset=base)
    view = np.frombuffer(mm, dtype=np.uint8)[offset - base :]
    view.flags.writeable = False  # the pages are mapped read-only
    return view


def _read_range(fd: int, start: int, end: int, size: int, first: bool) -> tuple[np.ndarray, bool]:
    """The lines that start in [start, end) of the file, as a read-only view of its pages (each parsing thread
    maps its own range). A line starts at ``start`` itself only if ``first``, else after the first line break at
    or after ``start - 1``; the range ends after the first line break at or after ``end - 1`` (or at the end of
    the file). Returns the bytes and whether they reach the end of the file."""
    lead = 0 if first else 1
    spare = 1 << 16
    while True:
        buf = _mapped(fd, start - lead, min(end + spare, size) - (start - lead))
        got = len(buf)
        begin = 0 if first else _after_first_break(buf, 0)
        if begin < 0:  # no line starts in this range
            return buf[:0], start - lead + got >= size
        stop = _after_first_break(buf, end - (start - lead) - 1)  # == begin: no line starts in the range
        if stop >= 0:
            return buf[begin:stop], start - lead + stop >= size
        if start - lead + got >= size:
            return buf[begin:], True
        spare *= 8  # a line longer than the spare bytes


def _after_first_break(data: np.ndarray, at: int) -> int:
    """The position after the first line break at or after ``at``, -1 if there is none."""
    step = 1 << 16
    while at < len(data):
        hits = np.flatnonzero(data[at : at + step] == 10)
        if len(hits):
            return at + int(hits[0]) + 1
        at += step
    return -1


def split_blocks(
    loc: Located,
    metric: tuple[list[str], dict[str, pa.DataType], list[str]],
    rules: tuple[list[str], dict[str, pa.DataType], list[str]] | None,
    block_bytes: int | None = None,
    prepare: Callable[[Block], Any] | None = None,
    prefix_until: str | None = None,
) -> Iterator[Block]:
    """The records after the header, ``block_bytes`` at a time, parsed on one thread per core and handed over in
    file order; at most one block per core more than the caller holds is in memory (never the whole file).
    ``prepare(block)``, run on the parsing thread, goes to ``block.extra`` (work that needs no other block).

    ``metric``/``rules``: (column names, types, columns kept) of the two kinds of rows. Lines are told apart by
    their last byte: a metric row of a ragged page ends with the separator before its empty last field, a rule
    row with the closing quote of its last field. Blank lines are skipped (as the careful reader does); any other
    line ends up in a group where it does not fit, and that is a Fallback. ``rules`` None: a page without rule
    columns (ncu 2019.5-2021, 2023.1), whose every line is a metric row, a record quoted from its first byte to
    its last (any other line is a Fallback).

    ``prefix_until``: a column of ``metric`` before which every column is the same on all of a launch's rows (the
    launch's identity): the rows of both kinds are then parsed from that column on, and the columns before it once
    per run of lines that start alike (:func:`_by_prefix`)."""
    workers = MAX_CHUNKS
    step = block_bytes or STREAM_BLOCK
    size = loc.path.stat().st_size
    count = -(-(size - loc.data_offset) // step)
    if count < workers:  # a page of a few blocks still keeps every worker busy, in blocks of MIN_STREAM_BLOCK or more
        count = max(count, min(workers, (size - loc.data_offset) // MIN_STREAM_BLOCK))
    if count > 1:  # as many blocks per worker, of (about) the same size: no worker idles at the end
        count = -(-count // workers) * workers
        step = -(-(size - loc.data_offset) // count)
    bounds = list(range(loc.data_offset, size, step))
    with loc.path.open("rb") as fh, ThreadPoolExecutor(workers) as pool:
        fd = fh.fileno()

        def work(i: int) -> Block:
            a = bounds[i]
            data, final = _read_range(fd, a, min(a + step, size), size, first=i == 0)
            block = _block(data, metric, rules, final, prepare, prefix_until)
            block.lines = pa.array([], pa.large_string())  # a view of the mapped range: let the pages go
            return block

        queue: deque[Future[Block]] = deque()
        try:
            asked = 0  # blocks whose bytes the kernel has been asked to read ahead
            for i in range(len(bounds)):
                for j in range(asked, min(len(bounds), i + 1 + READ_AHEAD_BLOCKS)):
                    read_ahead(fd, bounds[j], min(bounds[j] + step, size) - bounds[j])
                    asked = j + 1
                queue.append(pool.submit(work, i))
                if len(queue) > workers:
                    yield queue.popleft().result()
            while queue:
                yield queue.popleft().result()
        finally:
            for task in queue:
                task.cancel()


#: Blocks beyond the one queued for parsing whose bytes the kernel is asked to read ahead (``read_ahead``): a file
#: not in the page cache is read from disk while the blocks before are parsed; a bounded window, so that a file
#: larger than the memory is not read twice.
READ_AHEAD_BLOCKS = 2


def read_ahead(fd: int, offset: int, length: int) -> None:
    """Ask the kernel to read ``length`` bytes of the file from ``offset`` into the page cache now, without
    waiting for them (``POSIX_FADV_WILLNEED``). Nothing where the system has no such advice; a file already
    cached costs a look-up of its pages."""
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:  # pragma: no cover - not POSIX
        return
    try:
        for at in range(offset, offset + length, READ_AHEAD_STEP):
            advise(fd, at, min(READ_AHEAD_STEP, offset + length - at), os.POSIX_FADV_WILLNEED)
    except OSError:  # pragma: no cover - advice only: a file system that takes none
        pass


#: Bytes asked for by one ``read_ahead`` advice: Linux reads at most the device's readahead or largest request
#: (``read_ahead_kb``, ``max_sectors_kb``: 128 KB to a few MB) per advice, so a block is asked for a piece at a
#: time (a cached 306 MB file: 1 ms of advice in 1 MB pieces, 23 ms in 128 KB ones).
READ_AHEAD_STEP = 1 << 20


def _line_breaks(data: np.ndarray) -> np.ndarray:
    """Positions of the line breaks, found a cache-sized piece at a time (4x faster than one pass)."""
    step = 1 << 20
    parts = [np.flatnonzero(data[i : i + step] == 10) + i for i in range(0, len(data), step)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _block(
    data: np.ndarray,
    metric: tuple[list[str], dict[str, pa.DataType], list[str]],
    rules: tuple[list[str], dict[str, pa.DataType], list[str]] | None,
    final: bool,
    prepare: Callable[[Block], Any] | None = None,
    prefix_until: str | None = None,
) -> Block:
    """Parse one block: the rule rows and the metric rows are each copied out and parsed once, with no callback
    (parsing the metric rows where they lie, with the rule rows blanked, cost pyarrow more than the copy); each
    kind by :func:`_by_prefix` instead where ``prefix_until`` is given and the block allows it."""
    buf = pa.py_buffer(data)
    if not valid_utf8(buf):
        raise Fallback("not UTF-8")
    breaks = _line_breaks(data)
    ends = breaks + 1
    if final and len(data) and data[-1] != 10:
        ends = np.append(ends, len(data))
    starts = np.empty(len(ends), dtype=np.int64)
    if len(ends):
        starts[0] = 0
        starts[1:] = ends[:-1]
    # the last byte of each line's text: before "\n", before "\r\n"
    stop = ends - (data[ends - 1] == 10)
    stop -= (stop > starts) & (data[np.maximum(stop - 1, 0)] == 13)
    blank = stop == starts
    last = data[np.maximum(stop - 1, 0)]
    if rules is None:  # no rule columns: every line a metric row, quoted from its first byte to its last
        is_metric = ~blank
        is_rule = np.zeros(len(blank), dtype=bool)
        if ((data[starts[is_metric]] != 34) | (last[is_metric] != 34)).any():
            raise Fallback("a line that is not a record")  # program output, an ncu message
    else:
        is_metric = ~blank & (last == 44)  # ','
        is_rule = ~blank & ~is_metric
    offsets = np.append(starts, ends[-1] if len(ends) else 0)
    lines = pa.LargeStringArray.from_buffers(len(starts), pa.py_buffer(offsets), buf)
    rule_table = None

    def parsed(
        kind: np.ndarray,
        spec: tuple[list[str], dict[str, pa.DataType], list[str]],
        odd: list[tuple[int, int, str]] | None = None,
    ) -> tuple[pa.Table, tuple[pa.Table, np.ndarray] | None]:
        """(table, the runs' heads or None) of the lines of one kind: by runs where the block allows it, else
        copied out and parsed whole (``odd``: rows of another width collected there, by their line in the block,
        instead of a Fallback)."""
        at = np.flatnonzero(kind)
        by_prefix = None if prefix_until is None else _by_prefix(data, buf, starts[at], ends[at], spec, prefix_until)
        if by_prefix is not None:
            return by_prefix[0], by_prefix[1:]
        found: list[tuple[int, int, str]] | None = None if odd is None else []
        table = _parse_group(text_of(lines.filter(pa.array(kind))), *spec, rows=len(at), odd=found)
        if odd is not None and found:
            odd += [(int(at[i]), width, text) for i, width, text in found]
        return table, None

    odd: list[tuple[int, int, str]] = []
    if rules is not None and is_rule.any():
        plain = is_rule & (data[starts] != 34)  # not a quoted record: program output, an ncu message, a text item
        if plain.any():
            is_rule &= ~plain
            if parsed(plain, rules, odd)[0].num_rows:  # a line of a rule row's width: the careful reader's call
                raise Fallback("a line that is not a quoted record, of a rule row's width")
        if is_rule.any():
            rule_table = parsed(is_rule, rules, odd)[0]  # rows of another width: tables ncu embeds
        if any(width == len(metric[0]) for _, width, _ in odd):  # (never a rule row's: those were parsed)
            raise Fallback("a line of a metric row's width that is not one")
        if any(quote_left_open(text) for _, _, text in odd):  # read whole, its field runs on into the next line
            raise Fallback("a line with a quote that is not closed")
        odd.sort()
    heads = None
    if is_metric.any():
        table, heads = parsed(is_metric, metric)
    else:  # pyarrow calls a buffer without records an error
        table = pa.table({c: pa.array([], type=metric[1][c]) for c in metric[2]})
    block = Block(table, rule_table, lines, np.flatnonzero(is_metric), heads=heads, n_lines=len(starts), odd=odd)
    if prepare is not None:
        block.extra = prepare(block)
    return block


# ------------------------------------------------------------------------------------------ rows by prefix

#: Leading bytes of each line compared with the line before to find where one launch's lines end: ncu's ``"ID",
#: "Process ID",`` fields are in them (two launches alike in these bytes only cost a check, see _by_prefix).
RUN_HEAD = 16
#: Arrow's binary view (16 bytes per value: length, first 4 bytes, buffer, offset; values over 12 bytes point into
#: the buffer): a view of byte ranges of a block without copying them (pyarrow 25 and later: :func:`_views_work`).
_VIEW = np.dtype([("length", "<i4"), ("prefix", "V4"), ("buffer", "<i4"), ("offset", "<i4")])


def _bytes_at(data: np.ndarray, at: np.ndarray, width: int) -> np.ndarray:
    """The ``width`` bytes from each offset ``at`` (each within the data), one fixed-size value per offset."""
    whole = np.ndarray(shape=(len(data) - width + 1,), dtype=f"V{width}", buffer=data, strides=(1,))
    out: np.ndarray = whole[at]
    return out


def _views(
    data: np.ndarray, buf: pa.Buffer, at: np.ndarray, length: np.ndarray, first4: np.ndarray | None = None
) -> pa.Array:
    """The byte ranges [at, at + length) of a block (each longer than 12 bytes) as one binary-view array over its
    buffer, nothing copied. ``first4``: the first 4 bytes of each range, where the caller has them."""
    views = np.empty(len(at), dtype=_VIEW)
    views["length"] = length
    views["prefix"] = _bytes_at(data, at, 4) if first4 is None else first4
    views["buffer"] = 0
    views["offset"] = at
    return pa.Array.from_buffers(pa.binary_view(), len(at), [None, pa.py_buffer(views), buf])


def _copied(views: pa.Array) -> pa.Buffer:
    """The bytes of a binary-view array's values, back to back (one copy)."""
    return text_of(views.cast(pa.large_binary()))


def _views_work() -> bool:
    """Whether this pyarrow builds binary views over a buffer of ours, compares and copies them (what _by_prefix
    needs): pyarrow before 16 has no binary views, and 16 to 24 (tried: 16, 17, 18, 20, 22, 24) no views over a
    second buffer in ``from_buffers``; 25 and 26 do."""
    if not hasattr(pa, "binary_view"):
        return False
    data = np.frombuffer(b"0123456789abcdefghij" * 2, dtype=np.uint8)
    try:
        views = _views(data, pa.py_buffer(data), np.array([0, 20]), np.array([15, 15]))
        return bool(pc.all(pc.equal(views, views)).as_py()) and _copied(views).to_pybytes() == bytes(data[:15]) * 2
    except (pa.ArrowException, TypeError, ValueError):
        return False


_HAS_VIEWS = _views_work()


def all_digits(arr: pa.Array | pa.ChunkedArray) -> bool:
    """Whether every cell of a string array is a non-empty run of ASCII digits (as ``^\\d+$`` would say)."""
    if isinstance(arr, pa.ChunkedArray):
        return all(all_digits(chunk) for chunk in arr.chunks)
    if arr.null_count:
        return False
    if not len(arr):
        return True
    kind = np.int64 if arr.type in (pa.large_string(), pa.large_binary()) else np.int32
    offsets = np.frombuffer(arr.buffers()[1], dtype=kind)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    return bool((np.diff(offsets) > 0).all() and _DIGIT[data].all())


#: Byte -> whether it is an ASCII digit.
_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[list(b"0123456789")] = True


def _by_prefix(
    data: np.ndarray,
    buf: pa.Buffer,
    starts: np.ndarray,
    ends: np.ndarray,
    spec: tuple[list[str], dict[str, pa.DataType], list[str]],
    until: str,
) -> tuple[pa.Table, pa.Table, np.ndarray] | None:
    """Rows of one kind (metric or rule rows) parsed as pyarrow would parse them whole (the table of ``spec``:
    names, types, columns kept), reading the columns before ``until`` once per run of lines that begin with the
    same bytes: (table, those columns of each run's first line as strings, each row's run). None where the block
    does not allow it (the caller parses the rows whole, and says what is wrong if anything is).

    A launch's rows repeat its identity (``"ID","Process ID",...,"CC",``, four fifths of a row's bytes): lines
    are cut into runs where their first RUN_HEAD bytes change; each run's first line is parsed whole, and its
    prefix (the fields before ``until``) must be exactly what ncu writes for those fields (each quoted, quotes
    doubled, a separator after each). Every line of the run must begin with those same bytes, so that it has the
    same fields before ``until``; the rest of each line, from the opening quote of ``until`` on, is parsed as a
    record of the remaining columns. A line is then read as if parsed whole: the prefix leaves the parser
    between fields. Two launches whose lines begin alike, a launch whose rows differ before ``until``, a field
    not quoted, keys that are not plain digits: None."""
    names, types, include = spec
    if not _HAS_VIEWS or until not in names[1:] or len(data) >= 1 << 31:
        return None
    k = names.index(until)
    width = ends - starts
    if not len(starts) or width.min() <= RUN_HEAD + 12:
        return None
    head = _bytes_at(data, starts, RUN_HEAD)
    first4 = head.view("V4").reshape(len(starts), RUN_HEAD // 4)[:, 0]  # each line's first 4 bytes
    head = head.view("<u8").reshape(len(starts), RUN_HEAD // 8)
    new = np.ones(len(starts), dtype=bool)
    np.any(head[1:] != head[:-1], axis=1, out=new[1:])
    first = np.flatnonzero(new)
    run = np.cumsum(new) - 1
    lead = names[:k]
    try:
        heads = pacsv.read_csv(
            pa.BufferReader(_copied(_views(data, buf, starts[first], width[first], first4[first]))),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(newlines_in_values=False, ignore_empty_lines=False),
            convert_options=text_cells(dict.fromkeys(names, pa.string()), lead, check_utf8=False),
        ).combine_chunks()
        if heads.num_rows != len(first):
            return None
        fields = [heads.column(c) for c in lead]
        quoted = [pc.binary_join_element_wise('"', pc.replace_substring(f, '"', '""'), '"', "") for f in fields]
        written = pc.binary_join_element_wise(*quoted, pa.scalar("", pa.string()), ",")  # ends in a separator
        size = pc.binary_length(written).to_numpy(zero_copy_only=False).astype(np.int64)
        if ((width[first] - size) <= 12).any():
            return None
        prefix = _views(data, buf, starts[first], size, first4[first]).cast(pa.large_binary())
        if not pc.all(pc.equal(prefix, pc.cast(written, pa.large_binary()))).as_py():
            return None  # a field ncu would have quoted otherwise, or no separator after the prefix
        at = size[run]
        if (width - at <= 12).any():
            return None
        # (a run's lines begin with the same RUN_HEAD bytes: the same first 4 bytes as the run's first line)
        same = pc.equal(_views(data, buf, starts, at, first4), _views(data, buf, starts[first][run], at, first4))
        if same.null_count or not pc.all(same).as_py():
            return None  # two launches alike in their first bytes, or a launch whose identity changes
        for c in ("ID", "Process ID"):
            if c in lead and not all_digits(heads.column(c)):
                return None
        rest = names[k:]
        table = pacsv.read_csv(
            pa.BufferReader(_copied(_views(data, buf, starts + at, width - at))),
            read_options=pacsv.ReadOptions(column_names=rest, use_threads=False, block_size=1 << 22),
            parse_options=pacsv.ParseOptions(newlines_in_values=False, ignore_empty_lines=False),
            convert_options=text_cells(
                {c: types[c] for c in rest}, [c for c in include if c in rest], check_utf8=False
            ),
        )
    except (pa.ArrowException, TypeError, ValueError):  # damage, or a pyarrow whose binary views lack a kernel
        return None
    if table.num_rows != len(starts):
        return None
    columns: dict[str, pa.Array] = {}
    taken = pa.array(run)
    for c in include:
        if c in rest:
            columns[c] = column(table, c)
            continue
        cells = heads.column(c).chunk(0) if heads.column(c).num_chunks else pa.array([], pa.string())
        kind = types[c]
        if pa.types.is_integer(kind):
            try:
                columns[c] = pc.cast(cells, kind).take(taken)
            except pa.ArrowInvalid:  # more digits than the type holds
                return None
        elif isinstance(kind, pa.DictionaryType):
            coded = cells.dictionary_encode()
            columns[c] = pa.DictionaryArray.from_arrays(coded.indices.take(taken), coded.dictionary)
        else:
            columns[c] = cells.take(taken)
    return pa.table(columns), heads, run
