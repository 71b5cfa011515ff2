"""Fast, strict reading of the CSV records after an ncu header, with pyarrow's multithreaded parser.

Rows whose field count differs from the expected width are not lost: pyarrow hands each to a callback,
and :func:`classify_odd_rows` decides what it is (an ncu message, program output, a table ncu embeds in
``--print-details all`` exports, a rule row, or damage). Damage is an error that names the line.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..errors import ParseError
from ..units import detect_number_style
from .sniff import PROF_LINE, Located, Skipped, fields_of, line_of, lines_of

BLOCK_SIZE = 1 << 22  # 4 MiB blocks: enough rows per block for the 2,240-column raw page
DICT = pa.dictionary(pa.int32(), pa.string())
_INT = re.compile(r"^\d+$")


@dataclass
class OddRows:
    """Rows pyarrow did not accept at the expected width, as (field count, text)."""

    rows: list[tuple[int, str]] = field(default_factory=list)

    def __call__(self, row: Any) -> str:
        self.rows.append((int(row.actual_columns), str(row.text)))
        return "skip"


def read_records(
    loc: Located, names: list[str], types: dict[str, pa.DataType], skip_rows: int = 0
) -> tuple[pa.Table, OddRows]:
    """Read the records after the header as strings; rows of another width go to the returned OddRows."""
    odd = OddRows()
    try:
        with pa.memory_map(str(loc.path)) as src:
            src.seek(loc.data_offset)
            table = pacsv.read_csv(
                src,
                read_options=pacsv.ReadOptions(
                    column_names=names, skip_rows=skip_rows, use_threads=True, block_size=BLOCK_SIZE
                ),
                parse_options=pacsv.ParseOptions(invalid_row_handler=odd, newlines_in_values=False),
                convert_options=pacsv.ConvertOptions(
                    column_types=types, strings_can_be_null=False, quoted_strings_can_be_null=False
                ),
            )
    except pa.ArrowInvalid as exc:
        if "Empty CSV file" in str(exc):  # nothing after the header: the caller says what was expected
            return pa.table({n: pa.array([], type=types[n]) for n in names}), odd
        raise _arrow_error(loc, exc) from exc
    table = table.unify_dictionaries().combine_chunks()
    _no_line_breaks(loc, table)
    return table, odd


def _no_line_breaks(loc: Located, table: pa.Table) -> None:
    """ncu never writes a line break inside a field: one there means a damaged row that happens to parse."""
    for name in table.column_names:
        col = table.column(name)
        arr = col.combine_chunks()
        values = arr.dictionary if isinstance(arr.type, pa.DictionaryType) else arr
        hit = pc.match_substring_regex(values, r"[\r\n]")
        if pc.any(hit).as_py():
            bad = values.filter(hit)[0].as_py()
            line = line_of(loc.path, bad.splitlines()[0] if bad.strip() else bad, start=loc.data_offset)
            raise ParseError(loc.path, f"a line break inside a field of column {name!r} (a damaged row)", line=line)


def _arrow_error(loc: Located, exc: Exception) -> ParseError:
    message = str(exc)
    m = re.search(r"row (\d+)", message)
    line = None
    if m and "CSV parse error" in message:
        # pyarrow counts rows from the start of what it read (the header is not in it).
        line = loc.header_line + int(m.group(1))
    text = message.split(": ", 1)[-1] if "CSV parse error" in message else message
    return ParseError(loc.path, f"malformed CSV ({text})", line=line)


def column(table: pa.Table, name: str) -> pa.Array:
    """One column of a read table as a single contiguous array."""
    return table.column(name).combine_chunks()


def string_columns(names: list[str], dictionary: set[str]) -> dict[str, pa.DataType]:
    return {n: (DICT if n in dictionary else pa.string()) for n in names}


@dataclass
class Classified:
    """What the odd rows were."""

    rule_rows: list[list[str]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def classify_odd_rows(loc: Located, odd: OddRows, *, record_width: int, rule_width: int | None) -> Classified:
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
    pending: list[tuple[int, str, list[str], bool]] = []
    for width, text in odd.rows:
        stripped = text.strip()
        if not stripped:
            continue
        if PROF_LINE.match(stripped):
            out.skipped.append(Skipped(None, text, "ncu message"))
            continue
        if not stripped.startswith('"'):
            out.skipped.append(Skipped(None, text, "not a CSV record (program output or a text body item)"))
            continue
        fields = fields_of(stripped)
        if fields is None:  # a quoted field that is not closed: never a record ncu wrote
            pending.append((width, text, loose_fields(stripped), True))
            continue
        if any("\n" in f or "\r" in f for f in fields):
            first = stripped.splitlines()[0]
            raise ParseError(loc.path, "a line break inside a field (a damaged row)", line=_find_line(loc, first))
        launch_like = len(fields) >= 2 and bool(_INT.match(fields[0])) and bool(_INT.match(fields[1]))
        if rule_width is not None and width == rule_width and launch_like:
            out.rule_rows.append(fields)
            continue
        if not launch_like and fields and all(f and not _INT.match(f) for f in fields):
            table_widths.add(len(fields))
            out.skipped.append(Skipped(None, text, "table embedded by ncu (header)"))
            continue
        pending.append((width, text, fields, False))
    for _width, text, fields, unclosed in pending:
        launch_like = len(fields) >= 2 and bool(_INT.match(fields[0])) and bool(_INT.match(fields[1]))
        if not launch_like and not unclosed and len(fields) in table_widths:
            out.skipped.append(Skipped(None, text, "table embedded by ncu (row)"))
            continue
        line = _find_line(loc, text)
        expected = f"{record_width}" + (f" (metric row) or {rule_width} (rule row)" if rule_width else "")
        cut = " - the file may be cut short" if line is not None and _is_last_record(loc, line) else ""
        what = f"row has {len(fields)} fields" + (" and an unclosed quote" if unclosed else "")
        raise ParseError(loc.path, f"{what}, expected {expected}{cut}", line=line)
    if out.skipped:
        out.skipped = _with_lines(loc, out.skipped)
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
    sample = arr.slice(0, 200_000).unique().to_pylist()
    style = detect_number_style([s for s in sample if s])
    if style is None:
        raise ParseError(
            loc.path,
            "numbers in two styles (e.g. '1,234.5' and '1.234,5'): expected one locale per file",
        )
    return style


def int_keys(loc: Located, column: str, arr: pa.Array) -> np.ndarray:
    """Dictionary-encoded integer key column (ID, Process ID) -> int64 numpy array; damage raises."""
    if not isinstance(arr.type, pa.DictionaryType):
        arr = arr.dictionary_encode()
    words = arr.dictionary.to_pylist()
    ints = np.empty(len(words), dtype=np.int64)
    for i, w in enumerate(words):
        text = w.replace(",", "").strip()
        if not _INT.match(text):
            line = _find_line(loc, f'"{w}"')
            raise ParseError(loc.path, f"{column} {w!r} is not an integer", line=line, column=column)
        ints[i] = int(text)
    codes = arr.indices.to_numpy(zero_copy_only=False)
    return ints[codes]


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


def check_nonempty(loc: Located, n_rows: int, what: str) -> None:
    if n_rows == 0:
        raise ParseError(
            loc.path,
            f"the export has a header but no {what} (expected at least one launch after line {loc.header_line})",
            line=loc.header_line,
        )
