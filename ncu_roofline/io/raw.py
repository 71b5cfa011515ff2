"""Reader of ncu's raw page (``--page raw``): wide, one column per metric name, a units row, one row per launch.

Kept wide (``WideMetrics``): the analysis reads it as a launch x metric matrix, and the long form is built only
when asked for. ``--print-metric-instances values`` cells keep their text; a cell of a value and its instances
(``1,056 (0; 0; 16; ...)``) has that value, one of instances alone (``(0.00; 0; 0; ...)``, where the plain page's
cell is empty) is NaN (use the ``.sum``/``.avg`` rollups, which ncu exports beside them). Scaling units (its
default), ncu writes such a value of data, frequency or time in a prefix of its own, not the column's (``440``
under ``%/Kbyte`` for 0.44 %/Kbyte: %/Mbyte): its unit is unknown, and it is NaN unless 0;
``source.not_understood`` names those metrics. A page in base units has no such cell.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pyarrow as pa

from ..errors import DuplicateLaunchError, FormatError
from ..model import WideMetrics
from ..units import (
    Unit,
    in_base_units,
    parse_numbers,
    scaled_per_value,
    unit_or_none,
    unread_numbers,
    with_instances,
)
from .identity import IDENTITY_COLUMNS, build_launches, is_nvtx_column
from .metricframe import check_unit_kinds
from .page import Page
from .records import (
    MAX_CHUNKS,
    check_header,
    check_nonempty,
    classify_odd_rows,
    column,
    drop_repeated_headers,
    int_keys,
    number_style,
    read_records,
    string_columns,
    unread_note,
)
from .sniff import Located, fields_of, lines_starting

IDENTITY_EXTRA = ("Kernel Time",)


def _units_row(loc: Located) -> list[str]:
    with loc.path.open("rb") as fh:
        fh.seek(loc.data_offset)
        line = fh.readline().decode("utf-8", errors="replace")
    fields = fields_of(line.strip()) or []
    if len(fields) != len(loc.header) or any(fields[:2]):
        raise FormatError(
            loc.path,
            f"expected the units row after the header ({len(loc.header)} fields, empty under ID and Process ID)",
            line=loc.header_line + 1,
        )
    return fields


#: Cells of a raw page parsed as one text array (a run of whole columns; the runs go to one thread per core).
GROUP_CELLS = 1 << 18


def read_raw(loc: Located, report: str) -> Page:
    """Launches, wide metrics, skipped lines and units not understood of a raw page.

    A column in a unit we do not know keeps its text and has no values (NaN); ``not_understood`` names it."""
    header = loc.header
    check_header(loc, "raw page")
    units = _units_row(loc)
    check_unit_kinds(loc, (("", c, u) for c, u in zip(header, units, strict=True)), None, line=loc.header_line + 1)
    identity = [c for c in header if c in IDENTITY_COLUMNS or is_nvtx_column(c) or c in IDENTITY_EXTRA]
    metric_cols = [c for c in header if c not in identity]
    table, odd = read_records(loc, list(header), string_columns(list(header), set(identity)), skip_rows=1)
    table, again = drop_repeated_headers(loc, table, ("ID", "Process ID"), units)
    classified = classify_odd_rows(loc, odd, record_width=len(header), rule_width=None)
    classified.skipped += again
    check_nonempty(loc, table.num_rows, "launch rows")
    pid = int_keys(loc, "Process ID", column(table, "Process ID"))
    lid = int_keys(loc, "ID", column(table, "ID"))
    key = pd.DataFrame({"process_id": pid, "launch_id": lid})
    repeated = key.duplicated(keep=False).to_numpy()
    if repeated.any():
        i = int(np.flatnonzero(repeated)[0])
        count = int(((pid == pid[i]) & (lid == lid[i])).sum())
        lines = lines_starting(loc.path, f'"{lid[i]}","{pid[i]}",', start=loc.data_offset)
        appended = "; the header repeats: two captures of one process appended? export each to a file of its own"
        raise DuplicateLaunchError(
            loc.path,
            f"launch ID {lid[i]} of process {pid[i]} has {count} rows (expected one row per launch in a raw page"
            f"{appended if again else ''})",
            line=lines[1] if len(lines) > 1 else (lines[0] if lines else again[0].line if again else None),
        )
    ident = pd.DataFrame({c: column(table, c).to_pylist() for c in identity if c not in ("ID", "Process ID")})
    ident["ID"] = lid.astype(str)
    ident["Process ID"] = pid.astype(str)
    launches = build_launches(ident, report)

    col_index = {c: i for i, c in enumerate(header)}
    cells = [column(table, c) for c in metric_cols]  # each metric column as one array, taken once
    sample = (
        pa.chunked_array([col.slice(0, 8) for col in cells], type=pa.string())
        if metric_cols
        else pa.chunked_array([], type=pa.string())
    )
    style = number_style(loc, sample)
    n = table.num_rows
    values = np.empty((n, len(metric_cols)), dtype=np.float64, order="F")
    base_units: list[str] = []
    factors: list[float] = []
    unknown: dict[str, list[str]] = {}
    known: dict[int, Unit] = {}
    with_unit = np.array([bool(units[col_index[c]].strip()) for c in metric_cols], dtype=bool)
    for j, c in enumerate(metric_cols):
        parsed = unit_or_none(units[col_index[c]])
        if parsed is None:
            unknown.setdefault(units[col_index[c]], []).append(c)
            base_units.append("")
            factors.append(np.nan)
            continue
        known[j] = parsed
        base_units.append(parsed.base)
        factors.append(parsed.factor)
    # columns whose instanced cells ncu writes in a unit of their own (scaled units): such a cell's unit is unknown
    scaled = set() if in_base_units(known.values()) else {j for j, u in known.items() if scaled_per_value(u)}
    not_understood = [
        f"unit {u!r} (line {loc.header_line + 1}, column{'s' if len(cols) > 1 else ''} {_some(cols)})"
        for u, cols in unknown.items()
    ]

    def convert(cols: range) -> tuple[list[str], list[str]]:
        """A run of metric columns parsed as one text array (one pass, not one per column: a raw page of a few
        launches has thousands of short columns), in base units. The columns whose instanced cells of a
        value other than 0 were left out (``scaled``: the unit each was written in is not the column's), and
        the cells that look like numbers and are none (``unread_numbers``)."""
        text = pa.concat_arrays([cells[j] for j in cols])
        flat = parse_numbers(text, style).to_numpy(zero_copy_only=False)
        unread = unread_numbers(text, flat, np.repeat(with_unit[cols.start : cols.stop], n))
        parsed = flat.reshape(len(cols), n)
        left_out = []
        for j in sorted(scaled.intersection(cols)):  # (only these columns' text scanned: a few of the run's)
            own_unit = with_instances(cells[j]) & (parsed[j - cols.start] != 0)
            if own_unit.any():
                if not parsed.flags.writeable:  # a zero-copy view of Arrow's buffer (a run without nulls)
                    parsed = parsed.copy()
                parsed[j - cols.start, own_unit] = np.nan
                left_out.append(metric_cols[j])
        values[:, cols.start : cols.stop] = parsed.T * np.asarray(factors[cols.start : cols.stop])
        return left_out, unread

    width = max(1, GROUP_CELLS // max(n, 1))  # columns per run
    runs = [range(j, min(j + width, len(metric_cols))) for j in range(0, len(metric_cols), width)]
    if len(runs) > 1:  # pyarrow compute releases the GIL: runs convert side by side
        with ThreadPoolExecutor(MAX_CHUNKS) as pool:
            converted = list(pool.map(convert, runs))
    else:
        converted = [convert(runs[0])] if runs else []
    own_units = [c for left_out, _ in converted for c in left_out]
    unread = unread_note(loc, list(dict.fromkeys(c for _, cells_of in converted for c in cells_of)))
    if own_units:
        not_understood.append(
            f"{len(own_units)} metric(s) with instances in scaled units ({_some(own_units)}; ncu writes each such "
            "value in a unit of its own, not the column's: export with --print-units base to read them)"
        )
    if unread:
        not_understood.append(unread)
    keys = pd.DataFrame(
        {
            "report": [report] * n,
            "process_id": pid,
            "launch_id": lid,
        }
    )
    wide = WideMetrics(
        keys=keys,
        values=pd.DataFrame(values, columns=pd.Index(metric_cols, dtype=object), copy=False),
        texts=_column_major(table, metric_cols, cells),
        units=[units[col_index[c]] for c in metric_cols],
        base_units=base_units,
    )
    return Page(launches, wide, skipped=classified.skipped, not_understood=not_understood)


def _some(columns: list[str]) -> str:
    """The first three of ``columns`` quoted, and how many more."""
    return ", ".join(repr(c) for c in columns[:3]) + (f" and {len(columns) - 3} more" if len(columns) > 3 else "")


def _column_major(table: pa.Table, columns: list[str], cells: list[pa.Array]) -> pa.ChunkedArray:
    """The text of the metric ``columns`` one after the other (``WideMetrics.texts``). A page of little text is
    joined into one buffer (``cells``: each column as one array): a few launches' thousands of columns, kept
    three small buffers each, pinned about 15 MB of the C library's heap per page read (a folder of reports
    merged). A larger page keeps the table's own buffers, each already large, and is not copied."""
    if cells and table.nbytes <= JOINED_TEXT:  # (the whole table's bytes: one call, not one per column)
        return pa.chunked_array([pa.concat_arrays(cells)], type=pa.string())
    return pa.chunked_array([chunk for c in columns for chunk in table.column(c).chunks], type=pa.string())


#: Bytes of text up to which a raw page's cell text is joined into one buffer (``_column_major``).
JOINED_TEXT = 64 << 20
