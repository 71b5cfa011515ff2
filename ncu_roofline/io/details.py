"""Reader of ncu's details page (``--csv``, ``--page details``), in every layout ncu has written.

Layouts handled (columns found by name, never by position):
- 2025.x: ``ID, Process ID, Process Name, Host Name, [NVTX columns], Kernel Name, Context, Stream,
  Block Size, Grid Size, Device, CC, Section Name, [Body Item Label], Metric Name, Metric Unit, Metric Value,
  Rule Name, Rule Type, Rule Description, Estimated Speedup Type, Estimated Speedup``; metric rows are
  ragged (they stop after ``Metric Value`` plus one empty field), rule rows fill every column;
- 2022-2023: the 18 columns up to ``Rule Description`` (metric rows ragged), or the 15 up to ``Metric Value``;
- 2019.5-2021: 12 columns with ``Kernel Time`` and no launch shape, device or CC, and 2021's 15 with the three
  rule columns after them.
Ragged metric rows stop after ``Metric Value``, with or without one empty field after it.
"""

from __future__ import annotations

import mmap

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DuplicateLaunchError, FormatError, ParseError
from ..model import (
    RULE_COLUMNS,
    LazyMetrics,
    conform,
    empty_frame,
    ext_array,
    launch_index,
    missing_array,
)
from ..units import parse_numbers
from .identity import IDENTITY_COLUMNS, build_launches, is_nvtx_column, main_cc
from .metricframe import check_units, long_metrics, resolved_names, unknown_labels
from .page import Page
from .records import (
    DICT,
    OddRows,
    categorical,
    check_nonempty,
    classify_odd_rows,
    column,
    int_keys,
    loose_fields,
    number_style,
    read_records,
    string_columns,
)
from .sniff import Located, fields_of, lines_of

REQUIRED = ("ID", "Process ID", "Kernel Name", "Section Name", "Metric Name", "Metric Unit", "Metric Value")


def _metric_row_width(loc: Located, value_index: int) -> int:
    """Field count of metric rows: ragged layouts stop one field after Metric Value."""
    width = len(loc.header)
    with loc.path.open("rb") as fh:
        fh.seek(loc.data_offset)
        head = fh.read(1 << 16).decode("utf-8", errors="replace").splitlines()[:-1]
    for line in head:
        fields = fields_of(line) if line.startswith('"') else None
        if fields is None:
            continue
        if len(fields) > value_index and fields[value_index - 2 : value_index - 1] != [""]:
            # a metric row (its Metric Name field is set)
            if len(fields) == value_index + 2 and fields[-1] == "":
                return value_index + 2
            if len(fields) == value_index + 1:  # ragged without the trailing empty field
                return value_index + 1
            return width
    return width


#: Identity columns the fast path parses on every row (to check that a launch key has one identity); the
#: others are read from each launch's first line only.
ROW_IDENTITY = ("Kernel Name", "Block Size", "Grid Size")


def read_details(loc: Located, report: str) -> Page:
    """Launches, metrics (built on first use), rules, skipped lines and cells not understood of a details page."""
    header = loc.header
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise FormatError(loc.path, f"details page without column(s) {missing}", line=loc.header_line)
    if len(set(header)) != len(header):
        dup = sorted({c for c in header if header.count(c) > 1})
        raise FormatError(loc.path, f"header repeats column(s) {dup}", line=loc.header_line)
    vi = header.index("Metric Value")
    width = _metric_row_width(loc, vi)
    ragged = width in (vi + 1, vi + 2) and width != len(header)
    names = [*header[: vi + 1], *(["__trailing__"] if width == vi + 2 else [])] if ragged else list(header)
    identity = [c for c in header[:vi] if c in IDENTITY_COLUMNS or is_nvtx_column(c) or c == "Kernel Time"]
    fast = ragged or "Rule Name" not in header
    parsed = _parse_fast(loc, names, identity) if fast else None
    if parsed is None:
        dict_cols = {*identity, "Section Name", "Body Item Label", "Metric Name", "Metric Unit"}
        table, odd = read_records(loc, names, string_columns(names, dict_cols))
        row_identity = identity
    else:
        table, odd = parsed
        row_identity = [c for c in identity if c in ROW_IDENTITY]
    classified = classify_odd_rows(
        loc, odd, record_width=len(names), rule_width=len(header) if ragged else None, header=header
    )
    if "__trailing__" in names:
        trailing = column(table, "__trailing__")
        if pc.any(pc.not_equal(trailing, "")).as_py():
            raise ParseError(loc.path, "a metric row has a value after 'Metric Value' (expected none)")
    # Rows that carry a rule in a non-ragged layout.
    rule_table = classified.rules
    if not ragged and "Rule Name" in header:
        is_rule = pc.not_equal(column(table, "Rule Name"), "")
        if pc.any(is_rule).as_py():
            rule_table = table.filter(is_rule).cast(pa.schema([(c, pa.string()) for c in header]))
            table = table.filter(pc.invert(is_rule))
    n_rules = 0 if rule_table is None else rule_table.num_rows
    check_nonempty(loc, table.num_rows + n_rules, "rows")

    pid = int_keys(loc, "Process ID", column(table, "Process ID"))
    lid = int_keys(loc, "ID", column(table, "ID"))
    launches = _launches(loc, report, table, row_identity, identity, pid, lid)
    style = number_style(loc, column(table, "Metric Value"))
    unit = column(table, "Metric Unit")
    not_understood = check_units(loc, unit)
    cc = main_cc(launches)
    body = column(table, "Body Item Label") if "Body Item Label" in header else None
    section, field, value = column(table, "Section Name"), column(table, "Metric Name"), column(table, "Metric Value")

    def build() -> pd.DataFrame:
        return long_metrics(
            loc, report, process_id=pid, launch_id=lid, section=section, body_item=body, metric_field=field,
            unit=unit, value=value, style=style, cc=cc,
        )  # fmt: skip

    not_understood += unknown_labels(section, field, body, cc)
    rules = _rules(loc, report, rule_table, style, launches)
    has_body = body is not None and bool((categorical(body).codes >= 0).any())
    lazy = LazyMetrics(table.num_rows, build, body_items=has_body, names=resolved_names(section, field, cc))
    return Page(launches, lazy, rules, classified.skipped, not_understood)


def _parse_fast(loc: Located, names: list[str], identity: list[str]) -> tuple[pa.Table, OddRows] | None:
    """Parse only what every row must carry: integer keys, the identity columns checked per row, section,
    metric, unit and value. None when a key is not a plain integer (the full parse then says where)."""
    wanted = ["ID", "Process ID", *[c for c in identity if c in ROW_IDENTITY]]
    wanted += [
        c for c in ("Section Name", "Body Item Label", "Metric Name", "Metric Unit", "Metric Value") if c in names
    ]
    wanted += [c for c in ("__trailing__", "Rule Name") if c in names]
    types: dict[str, pa.DataType] = {c: (pa.string() if c in ("Metric Value", "__trailing__", "Rule Name") else DICT)
                                     for c in names}  # fmt: skip
    types["ID"] = types["Process ID"] = pa.int64()
    try:
        return read_records(loc, names, types, include=wanted)
    except ParseError:
        return None


def _launches(
    loc: Located,
    report: str,
    table: pa.Table,
    row_identity: list[str],
    identity: list[str],
    pid: np.ndarray,
    lid: np.ndarray,
) -> pd.DataFrame:
    """One row per (Process ID, ID), in order of first appearance; a key with two identities raises.

    ``row_identity``: identity columns parsed on every row (checked for one value per key); the rest of
    ``identity`` comes from each launch's first line."""
    key = pid.astype(np.int64) * (int(lid.max()) + 1 if len(lid) else 1) + lid
    _uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    for col in row_identity:
        arr = column(table, col)
        codes = arr.indices.to_numpy(zero_copy_only=False) if isinstance(arr.type, pa.DictionaryType) else None
        if codes is None:
            continue
        mismatch = np.flatnonzero(codes != codes[first[inverse]])
        if len(mismatch):
            i = int(mismatch[0])
            j = int(first[inverse[i]])
            a, b = arr[j].as_py(), arr[i].as_py()
            lines = lines_of(loc.path, [f'"{lid[i]}","{pid[i]}"'], start=loc.data_offset)
            line = next(iter(lines.values()), [None])
            raise DuplicateLaunchError(
                loc.path,
                f"launch ID {lid[i]} of process {pid[i]} appears with two different {col!r} values "
                f"({a!r} and {b!r}): expected one identity per (Process ID, ID)",
                line=line[0] if line else None,
            )
    order = np.sort(first)
    take = pa.array(order)
    ident = pd.DataFrame({col: column(table, col).take(take).cast(pa.string()).to_pandas() for col in row_identity})
    rest = [c for c in identity if c not in row_identity]
    if rest:
        texts = first_lines(loc, list(zip(lid[order].tolist(), pid[order].tolist(), strict=True)))
        idx = [loc.header.index(c) for c in rest]
        fields = [loose_fields(text) for text in texts]
        for c, i in zip(rest, idx, strict=True):
            ident[c] = [f[i] if i < len(f) else None for f in fields]
    ident["ID"] = lid[order].astype(str)
    ident["Process ID"] = pid[order].astype(str)
    return build_launches(ident, report)


def first_lines(loc: Located, keys: list[tuple[int, int]]) -> list[str]:
    """The first line of each launch (ID, Process ID), keys in order of first appearance in the file.

    Each search starts where the previous launch's first line was, so all of them together read the file once."""
    out: list[str] = []
    with loc.path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        pos = max(loc.data_offset - 1, 0)
        for launch, process in keys:
            needle = f'\n"{launch}","{process}",'.encode()
            hit = mm.find(needle, pos)
            if hit < 0:  # pragma: no cover - the table's rows come from these lines
                hit = mm.find(needle, max(loc.data_offset - 1, 0))
            start = hit + 1
            end = mm.find(b"\n", start)
            out.append(mm[start : end if end >= 0 else len(mm)].decode("utf-8").rstrip("\r"))
            pos = hit
    return out


def _rules(loc: Located, report: str, table: pa.Table | None, style: str, launches: pd.DataFrame) -> pd.DataFrame:
    """RULE_COLUMNS from the rule rows (all string columns, the header's names)."""
    if table is None or table.num_rows == 0:
        return empty_frame(RULE_COLUMNS)
    n = table.num_rows
    names = set(table.column_names)

    def text(col: str) -> pd.Series:
        if col not in names:
            return pd.Series(missing_array("string", n))
        s = pd.Series(ext_array(column(table, col), "string"))
        return s.mask(s == "")

    speedup = (
        parse_numbers(column(table, "Estimated Speedup"), style).to_numpy(zero_copy_only=False)
        if "Estimated Speedup" in names
        else np.full(n, np.nan)
    )
    frame = pd.DataFrame(
        {
            "report": report,
            "process_id": int_keys(loc, "Process ID", column(table, "Process ID")),
            "launch_id": int_keys(loc, "ID", column(table, "ID")),
            "section": text("Section Name"),
            "rule": text("Rule Name"),
            "type": text("Rule Type"),
            "description": text("Rule Description"),
            "speedup_type": text("Estimated Speedup Type"),
            "speedup": speedup,
        }
    )
    rules = conform(frame, RULE_COLUMNS)
    known = launch_index(launches)
    pos = known.get_indexer(launch_index(rules))
    if (pos < 0).any():
        i = int(np.flatnonzero(pos < 0)[0])
        raise ParseError(
            loc.path,
            f"rule result for launch ID {rules['launch_id'].iloc[i]} of process {rules['process_id'].iloc[i]}, "
            "which has no metric rows (expected some)",
        )
    return rules
