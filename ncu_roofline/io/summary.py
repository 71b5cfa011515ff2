"""Reader of ncu's summary pages (``--print-summary per-kernel|per-nvtx|per-gpu``), of every version.

A summary row aggregates launches that share a kernel and launch shape (and, per NVTX range, a range): no ``ID``,
an ``Invocations`` count, and ``Minimum``/``Maximum``/``Average`` per metric. Each group becomes one row of
``launches`` with ``invocations`` set and a ``launch_id`` numbered 0.. in order of appearance; its metrics carry
the average in ``value`` and the extremes in ``minimum``/``maximum``.

Headers seen (columns found by name):
- per kernel: ``Process ID, Process Name, Host Name, Kernel Name, [Context, Stream,] Block Size, Grid Size,
  Device Id`` (2020-2022) or ``Device, CC`` (2023-2025), ``Invocations, Section Name, Metric Name, Metric Unit,
  Minimum, Maximum, Average``;
- per NVTX range: no process columns; ``Domain`` and ``Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg``
  (each range of the stack a quoted item) before ``Kernel Name``;
- per GPU: the device columns only.
Every column before ``Section Name`` (but ``Invocations``) names the group. The raw page's summary (``--page raw
--print-summary per-kernel|per-nvtx``) has no ``Section Name``: its ``Metric Name`` is every metric's name, and the
columns before it name the group.

ncu 2024.2 writes a row for a metric without data (its value "no data" in the details page) as the group's
identity and section only, without a line break, so that the line breaks of the rows after it fall
mid-row until a line that ends in a lone comma (a row of 11 fields on a 15-column page). Such a page is read as
one stream of fields and cut back into rows; each row without its metric is skipped and reported.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import FormatError, ParseError
from ..model import LongMetrics
from ..units import has_unit, parse_numbers, unread_numbers
from .details import last_launch_short, last_two_launches_of_table
from .identity import build_launches, main_cc
from .metricframe import check_unit_kinds, check_units, long_metrics, metric_units, unknown_labels, versions_of
from .page import Page
from .records import (
    DICT,
    OddRows,
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
from .sniff import PROF_LINE, Located, Skipped, fields_of, line_of, lines_starting

REQUIRED = ("Invocations", "Metric Name", "Metric Unit", "Average")
_PARTIAL = "summary row without its metric (ncu 2024.2 writes one for a metric without data)"


#: A summary row's Invocations: a whole number, its thousands grouped by three ("1,024") or not ("1,2" is damage).
_COUNT = re.compile(r"^(?:\d+|\d{1,3}(?:,\d{3})+)$")
#: A metric's name as ncu spells it (``dram__bytes.sum.per_second``, ``launch__grid_size``); a label has spaces.
_METRIC_NAME = re.compile(r"^[a-z0-9_]+__\S+$")


def _check_metric_names(loc: Located, names: pa.Array) -> None:
    """A summary page without "Section Name" is the raw page's summary, whose Metric Name is each metric's name:
    FormatError where most are labels (a details page's summary whose Section Name column was lost or renamed:
    its sections were taken for kernel groups, 13 kernels as 176 launches)."""
    distinct = [str(x) for x in (names.dictionary if isinstance(names.type, pa.DictionaryType) else names.unique())]
    labels = [x for x in distinct if x and not _METRIC_NAME.match(x)]
    if len(labels) * 2 > len(distinct):
        raise FormatError(
            loc.path,
            f"summary page without column(s) ['Section Name']: its metric names are labels ({labels[0]!r}), as a "
            "details page's summary writes them beside their section",
            line=loc.header_line,
        )


def read_summary(loc: Located, report: str) -> Page:
    """Launches (= kernel or NVTX-range groups), metrics, skipped lines and cells not understood of a summary page."""
    header = loc.header
    check_header(loc, "summary page", REQUIRED)
    sections = "Section Name" in header  # not on the raw page's summary: metrics by name
    si = header.index("Section Name" if sections else "Metric Name")
    # every column before "Section Name" but the count names the group (per kernel, per NVTX range, per GPU)
    group_cols = [c for c in header[:si] if c != "Invocations"]
    dict_cols = {*group_cols, "Section Name", "Metric Name", "Metric Unit"} & set(header)
    table, odd = read_records(loc, list(header), string_columns(list(header), dict_cols))
    table, again = drop_repeated_headers(loc, table, ("Invocations", "Metric Name"))
    reflowed = sections and _misaligned(header, table, odd)
    if reflowed:
        table, skipped = _reflow(loc, header, dict_cols)
    else:
        skipped = classify_odd_rows(loc, odd, record_width=len(header), rule_width=None).skipped
    skipped += again
    check_nonempty(loc, table.num_rows, "rows")
    if not sections:
        _check_metric_names(loc, column(table, "Metric Name"))
    if "Process ID" in header:
        pid = int_keys(loc, "Process ID", column(table, "Process ID"))
    else:  # per-NVTX pages have no process column
        pid = np.zeros(table.num_rows, dtype=np.int64)
    # A group = the identity columns before "Section Name"; number groups by first appearance.
    codes = np.stack(
        [column(table, c).indices.to_numpy(zero_copy_only=False).astype(np.int64) for c in group_cols]
        or [np.zeros(table.num_rows, dtype=np.int64)],
        axis=1,
    )
    _, first, inverse = np.unique(codes, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    # two captures in one file (the header repeats, or a page without --csv printed twice): one process's twice
    # would merge its groups
    _same_group_twice(loc, table, inverse, sections, reflowed)
    order = np.argsort(first, kind="stable")
    group_number = np.empty_like(order)
    group_number[order] = np.arange(len(order))
    lid = group_number[inverse]
    rows = first[order]
    ident = pd.DataFrame({c: column(table, c).take(pa.array(rows)).to_pylist() for c in group_cols})
    ident["ID"] = np.arange(len(rows)).astype(str)
    if "Process ID" not in header:
        ident["Process ID"] = "0"
    ident["Invocations"] = column(table, "Invocations").take(pa.array(rows)).cast(pa.string()).to_pylist()
    for count in dict.fromkeys(ident["Invocations"]):  # a count, its thousands grouped by three at most, of one
        if count is None or not _COUNT.match(count.strip()) or not int(count.strip().replace(",", "")):  # or more
            raise ParseError(
                loc.path,
                f"Invocations {count!r} is not a count of launches (a whole number of one or more)",
                line=line_of(loc.path, f'"{count}"', start=loc.data_offset),
                column="Invocations",
            )
    _one_count_per_group(loc, table, first[inverse], group_cols)
    launches = build_launches(ident, report)
    average = column(table, "Average")
    style = number_style(loc, average)
    unit = column(table, "Metric Unit")
    section = _sections_of(table, sections)
    not_understood = check_units(loc, unit) + _cut_at_a_line(table, pid, lid, section)
    parsed = parse_numbers(average, style).to_numpy(zero_copy_only=False)
    unread = unread_note(loc, unread_numbers(average, parsed, has_unit(unit)))
    not_understood += [unread] if unread else []
    outside = _outside_range(loc, table, parsed, style)
    not_understood += [outside[1]] if outside else []
    cc = main_cc(launches)
    check_unit_kinds(
        loc, metric_units(column(table, "Section Name") if sections else None, column(table, "Metric Name"), unit), cc
    )
    if sections:  # the raw page's summary names every metric: nothing to resolve
        not_understood += unknown_labels(section, column(table, "Metric Name"), None, cc)
    metrics = long_metrics(
        report,
        process_id=pid,
        launch_id=lid,
        section=section,
        body_item=None,
        metric_field=column(table, "Metric Name"),
        unit=unit,
        value=column(table, "Average"),
        style=style,
        cc=cc,
        versions=versions_of(section, column(table, "Metric Name")) if sections else None,
        minimum=column(table, "Minimum") if "Minimum" in header else None,
        maximum=column(table, "Maximum") if "Maximum" in header else None,
        by_name=not sections,
    )
    if outside:
        metrics.loc[outside[0], "value"] = np.nan
    return Page(launches, LongMetrics(metrics), skipped=skipped, not_understood=not_understood)


def _outside_range(loc: Located, table: pa.Table, average: np.ndarray, style: str) -> tuple[np.ndarray, str] | None:
    """The rows whose Average is not between their Minimum and Maximum (all three numbers; ncu's figures over the
    group's launches, in the row's one unit, rounded alike, so ``Minimum <= Average <= Maximum`` holds on every row
    it writes), and the ``source.not_understood`` note naming the first's line: their Average is damaged or
    one of the others is, and which is not known, so it is not measured. None where every row holds (or the page
    has no Minimum and Maximum)."""
    if "Minimum" not in table.column_names or "Maximum" not in table.column_names:
        return None
    low, high = (parse_numbers(column(table, c), style).to_numpy(zero_copy_only=False) for c in ("Minimum", "Maximum"))
    with np.errstate(invalid="ignore"):
        bad = (average < low) | (average > high)  # (NaN compares False: a cell that is no number is no figure here)
    if not bad.any():
        return None
    at = int(np.flatnonzero(bad)[0])
    cells = [column(table, c)[at].as_py() for c in ("Metric Name", "Metric Unit", "Minimum", "Maximum", "Average")]
    line = line_of(loc.path, ",".join(f'"{c}"' for c in cells), start=loc.data_offset)
    count = int(bad.sum())
    return bad, (
        f"{count} metric row{'s' if count > 1 else ''} whose Average is not between its Minimum and Maximum"
        f" (damaged?), not measured: {cells[0]} {cells[4]!r} beside {cells[2]!r} to {cells[3]!r}"
        + (f" (line {line})" if line else "")
    )


def _cut_at_a_line(table: pa.Table, pid: np.ndarray, lid: np.ndarray, section: pa.Array) -> list[str]:
    """CUT_SHORT's note where the page's last group has the first of the metric rows of the group of its kernel
    before it (else of the group just before it) and fewer: a page cut at a line break (``head -n``), as on a
    details page (``details.last_launch_short``). None on a page without a Kernel Name column."""
    if "Kernel Name" not in table.column_names:
        return []
    kernel, field = column(table, "Kernel Name"), column(table, "Metric Name")
    short = last_launch_short(*last_two_launches_of_table(pid, lid, kernel, section, field, None))
    return [short] if short else []


def _sections_of(table: pa.Table, sections: bool) -> pa.Array:
    """The page's Section Name column, or on the raw page's summary (no sections) '' on every row (NA in the
    frame)."""
    if sections:
        return column(table, "Section Name")
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(table.num_rows, np.int32)), pa.array([""]))


def _one_count_per_group(loc: Located, table: pa.Table, first_row: np.ndarray, group_cols: list[str]) -> None:
    """ParseError where a group's rows do not all give its first row's Invocations (ncu repeats the group's count on
    each of its rows; two counts is damage, and which would be taken is no choice to make). ``first_row``: each
    row's group's first row."""
    inv = column(table, "Invocations").cast(pa.string()).to_numpy(zero_copy_only=False)
    other = np.flatnonzero(inv != inv[first_row])
    if len(other):
        at = int(other[0])
        name = column(table, "Kernel Name")[at].as_py() if "Kernel Name" in group_cols else None
        group = f" of {name}" if name else ""
        raise ParseError(
            loc.path,
            f"the group{group} gives Invocations {inv[first_row[at]]!r} on one row and {inv[at]!r} on another "
            "(expected one count per group, on each of its rows)",
            column="Invocations",
        )


def _same_group_twice(loc: Located, table: pa.Table, group: np.ndarray, sections: bool, reflowed: bool) -> None:
    """FormatError where a group has a metric twice: two captures of one process (same process ID, same kernels)
    appended into one file, whose groups cannot be told apart; or, on a page whose rows ncu cut across lines
    (``reflowed``), the body tables ``--print-details all`` adds (their labels repeat within a section: both
    pipe-utilisation tables of Compute Workload Analysis have an "ALU" row)."""
    metric = [column(table, "Metric Name")] + ([column(table, "Section Name")] if sections else [])
    codes = [group.astype(np.int64)] + [
        pc.dictionary_encode(m).indices.to_numpy(zero_copy_only=False).astype(np.int64) for m in metric
    ]
    rows = pd.DataFrame(np.stack(codes, axis=1))
    twice = rows.duplicated().to_numpy()
    if twice.any():
        i = int(np.flatnonzero(twice)[0])
        if "Kernel Name" not in table.column_names:  # a page of several kernels that lost its kernel column
            raise FormatError(
                loc.path,
                f"summary page without column(s) ['Kernel Name'], and a group has metric {metric[0][i].as_py()!r} "
                "twice: its kernels cannot be told apart",
                line=loc.header_line,
            )
        kernel, name = column(table, "Kernel Name")[i].as_py(), metric[0][i].as_py()
        pid = column(table, "Process ID")[i].as_py() if "Process ID" in table.column_names else None
        quoted = tuple('"' + str(t).replace('"', '""') + '"' for t in (kernel, name))
        lines = lines_starting(loc.path, f'"{pid}",' if pid is not None else '"', loc.data_offset, 2, quoted)
        why = (
            "ncu printed its sections' body tables into this summary (--print-details all or body: its rows cut "
            "across lines, tables whose labels repeat); export the summary without --print-details, or the details "
            "or raw page"
            if reflowed
            else "two captures of one process appended into one file? export each capture to a file of its own"
        )
        raise FormatError(
            loc.path,
            f"the group of {kernel!r} has metric {name!r} twice: {why}",
            line=lines[1] if len(lines) > 1 else None,
        )


def _misaligned(header: list[str], table: pa.Table, odd: OddRows) -> bool:
    """Whether rows are cut across lines: a quoted line of another width, or an ``Invocations`` cell that is not
    a count (a line that starts mid-row has the page's width by chance)."""
    if any(text.lstrip().startswith('"') and not PROF_LINE.match(text.lstrip()) for _w, text in odd.rows):
        return True
    inv = column(table, "Invocations")
    if isinstance(inv.type, pa.DictionaryType):
        inv = inv.dictionary
    return bool(pc.any(pc.invert(pc.match_substring_regex(inv, r"^[0-9][0-9,.]*$"))).as_py())


def _reflow(loc: Located, header: list[str], dict_cols: set[str]) -> tuple[pa.Table, list[Skipped]]:
    """Read the records as one stream of fields and cut it into rows of the header's width.

    A row that stops after ``Section Name`` (followed by the next row's identity) is skipped and reported; a
    stream that cannot be cut into such rows is damage (ParseError naming the line)."""
    width, si = len(header), header.index("Section Name")
    inv_i = header.index("Invocations")
    with loc.path.open("rb") as fh:
        fh.seek(loc.data_offset)
        data = fh.read()
    lines = data.decode("utf-8", errors="replace").splitlines()
    cut_short = bool(data.strip()) and not data.endswith((b"\n", b"\r"))  # its last line has no line break
    parsed: list[tuple[int, str, list[str]]] = []
    skipped: list[Skipped] = []
    for k, text in enumerate(lines):
        number = loc.header_line + 1 + k
        stripped = text.strip()
        if not stripped:
            continue
        if not stripped.startswith('"'):
            reason = "ncu message" if PROF_LINE.match(stripped) else "not a CSV record (program output)"
            skipped.append(Skipped(number, text, reason))
            continue
        fields = fields_of(stripped)
        if fields is None:
            raise ParseError(loc.path, "a row with an unclosed quote", line=number)
        if fields == header:  # a second capture's header: the read of the table skipped and listed it already
            continue
        parsed.append((number, text, fields))
    sections = {f[si] for _n, _t, f in parsed if len(f) == width and f[inv_i].replace(",", "").isdigit()}
    last = loc.header_line + len(lines)  # the file's last line
    if cut_short and parsed and parsed[-1][0] == last and len(parsed[-1][2]) != width:  # it stops mid-row
        number, _text, fields = parsed[-1]
        raise ParseError(
            loc.path,
            f"row has {len(fields)} fields, expected {width} - the file is cut short (its last line has no line break)",
            line=number,
        )
    records: list[list[str]] = []
    stream: list[str] = []
    start = 0  # line of the first field in the stream

    def cut(final: bool) -> None:
        nonlocal start
        while stream:
            head = _partial_row(stream, si, sections, final)
            if head is None:  # not decidable yet: wait for the next line
                return
            if head:
                skipped.append(Skipped(start, ",".join(f'"{f}"' for f in stream[: si + 1]), _PARTIAL))
                del stream[: si + 1]
            elif len(stream) >= width:
                row = stream[:width]
                if row[si] not in sections or not row[inv_i].replace(",", "").isdigit():
                    raise ParseError(
                        loc.path,
                        f"cannot cut the fields into rows of {width}: expected a section name and an invocation "
                        f"count, found {row[si]!r} and {row[inv_i]!r}",
                        line=start,
                    )
                records.append(row)
                del stream[:width]
            else:
                return

    for number, _text, line_fields in parsed:
        if not stream:
            start = number
        lone_comma = bool(line_fields) and line_fields[-1] == "" and len(line_fields) % width != 0
        # the lone comma that ends a broken run: the stream must come out even here
        stream += line_fields[:-1] if lone_comma else line_fields
        cut(final=lone_comma)
        if stream:
            start = number
    cut(final=True)
    if stream:
        raise ParseError(
            loc.path, f"row has {len(stream)} fields, expected {width} - the file may be cut short", line=start
        )
    types = string_columns(header, dict_cols)
    table = pa.table(
        {c: pa.array([r[i] for r in records], pa.string()).cast(types[c]) if types[c] == DICT
         else pa.array([r[i] for r in records], pa.string()) for i, c in enumerate(header)}
    )  # fmt: skip
    return table, skipped


def _partial_row(stream: list[str], si: int, sections: set[str], final: bool) -> bool | None:
    """Whether the stream starts with a row cut after ``Section Name``: the next row's identity follows it
    (its first fields repeat the row's first fields where a full row has its metric name), or nothing does at
    the end of a broken run. None when too few fields are there yet to tell."""
    n = si + 1
    if len(stream) > n:
        k = min(si, len(stream) - n)
        return stream[n : n + k] == stream[:k] and stream[si] in sections
    if len(stream) == n and final:
        return stream[si] in sections
    return None if not final else False
