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

import contextlib
import functools
import mmap
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..errors import DuplicateLaunchError, FormatError, ParseError
from ..labels import page_versions, resolve
from ..model import (
    BODY_COLUMNS,
    RULE_COLUMNS,
    STR,
    LazyMetrics,
    WideValues,
    categories,
    conform,
    empty_frame,
    ext_array,
    launch_index,
    missing_array,
)
from ..units import (
    has_unit,
    number_evidence,
    other_grouping,
    parse_numbers,
    space_grouped,
    spaces_read,
    style_of,
    unit_or_none,
    unread_numbers,
)
from ..vocabulary import CUT_SHORT, TWO_VALUES
from .identity import IDENTITY_COLUMNS, build_launches, is_nvtx_column, main_cc
from .metricframe import (
    check_unit_kinds,
    check_units,
    label_not_understood,
    long_metrics,
    metric_units,
    resolve_names,
    resolved_names,
    unit_columns,
    unknown_labels,
    versions_of,
)
from .page import Page
from .records import (
    DICT,
    Block,
    Fallback,
    OddRows,
    all_digits,
    categorical,
    check_header,
    check_nonempty,
    classify_odd_rows,
    column,
    drop_repeated_headers,
    int_keys,
    loose_fields,
    number_style,
    quote_left_open,
    read_records,
    release_memory,
    split_blocks,
    string_columns,
    text_of,
    unread_note,
)
from .sniff import Located, Skipped, fields_of, lines_starting

REQUIRED = ("ID", "Process ID", "Kernel Name", "Section Name", "Metric Name", "Metric Unit", "Metric Value")


def _metric_row_width(loc: Located, value_index: int) -> int:
    """Field count of metric rows: ragged layouts stop one field after Metric Value."""
    width = len(loc.header)
    with loc.path.open("rb") as fh:
        fh.seek(loc.data_offset)
        chunk = fh.read(1 << 16)
        whole = len(chunk) < 1 << 16 or not fh.read(1)  # the page's last line is whole, else it may be cut
        head = chunk.decode("utf-8", errors="replace").splitlines()[: None if whole else -1]
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


#: Identity columns the fast path parses on every row (to check that a launch key has one identity: its kernel
#: and launch configuration, and the GPU whose peaks its roofline takes); the others are read from each launch's
#: first line only.
ROW_IDENTITY = ("Kernel Name", "Block Size", "Grid Size", "Device", "CC")


def read_details(loc: Located, report: str) -> Page:
    """Launches, metrics (built on first use), rules, skipped lines and cells not understood of a details page."""
    header = loc.header
    check_header(loc, "details page", REQUIRED)
    vi = header.index("Metric Value")
    width = _metric_row_width(loc, vi)
    ragged = width in (vi + 1, vi + 2) and width != len(header)
    names = [*header[: vi + 1], *(["__trailing__"] if width == vi + 2 else [])] if ragged else list(header)
    identity = [c for c in header[:vi] if c in IDENTITY_COLUMNS or is_nvtx_column(c) or c == "Kernel Time"]
    streamed = ragged and names[-1] == "__trailing__"  # metric rows end in an empty field: a byte tells them apart
    streamed |= width == len(header) == vi + 1 and "Rule Name" not in header  # no rule rows: each row a metric row
    page = None
    if streamed:
        # on Fallback, something only the careful reader below handles: it says what and where
        with contextlib.suppress(Fallback):
            page = _read_streamed(loc, report, names, identity)
    if page is None:
        page = _read_careful(loc, report, names, identity, ragged)
    return page


def _launch_apart(pid: np.ndarray, lid: np.ndarray) -> int | None:
    """The first row (of rows in file order, or of runs of a launch's rows) whose launch has rows before it that
    other rows of its process part from it; None where every launch's rows are together within its process. ncu
    writes a launch's metric rows together: a launch apart is two captures of one process in one file (appended
    with or without the second header, or a process ID reused), whose launches would merge. Another process's
    rows between (two ranks printing at once) part no launch."""
    if len(pid) < 2:
        return None
    order = np.argsort(pid, kind="stable")  # each process's rows, in file order
    p, l_ = pid[order], lid[order]
    new = np.ones(len(p), dtype=bool)
    new[1:] = (p[1:] != p[:-1]) | (l_[1:] != l_[:-1])
    again = pd.DataFrame({"p": p[new], "l": l_[new]}).duplicated().to_numpy()  # a run of a launch seen before
    return int(order[new][again].min()) if again.any() else None


def _apart_error(loc: Located, pid: int, lid: int, header_repeats: bool) -> FormatError:
    where = "the header repeats and " if header_repeats else ""
    return FormatError(
        loc.path,
        f"{where}launch ID {lid} of process {pid} has rows in two places, other launches of that process between "
        "them: two captures of one process appended into one file? export each capture to a file of its own",
    )


def _read_careful(loc: Located, report: str, names: list[str], identity: list[str], ragged: bool) -> Page:
    """The whole page parsed at once; rows of another width go through pyarrow's callback and are classified
    one by one (ncu messages, program output, embedded tables, damage)."""
    header = loc.header
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
            at = int(pc.index(pc.not_equal(trailing, ""), True).as_py())
            key = "".join(f'"{column(table, c)[at].as_py()}",' for c in ("ID", "Process ID"))
            extra = trailing[at].as_py()
            line = lines_starting(loc.path, key, loc.data_offset, 1, field=(names.index("__trailing__"), extra))
            raise ParseError(
                loc.path,
                f"a metric row has a value after 'Metric Value' ({extra!r}; expected none)",
                line=line[0] if line else None,
            )
    # Rows that carry a rule in a non-ragged layout.
    rule_table = classified.rules
    if not ragged and "Rule Name" in header:
        is_rule = pc.not_equal(column(table, "Rule Name"), "")
        if pc.any(is_rule).as_py():
            rule_table = table.filter(is_rule).cast(pa.schema([(c, pa.string()) for c in header]))
            table = table.filter(pc.invert(is_rule))
    n_rules = 0 if rule_table is None else rule_table.num_rows
    table, again = drop_repeated_headers(loc, table, ("ID", "Process ID"))  # the header of a second capture
    classified.skipped += again
    check_nonempty(loc, table.num_rows + n_rules, "rows")

    pid = int_keys(loc, "Process ID", column(table, "Process ID"))
    lid = int_keys(loc, "ID", column(table, "ID"))
    launches = _launches(loc, report, table, row_identity, identity, pid, lid)  # (a key of two identities first)
    apart = _launch_apart(pid, lid)
    if apart is not None:
        raise _apart_error(loc, int(pid[apart]), int(lid[apart]), bool(again))
    if rule_table is not None and rule_table.num_rows:
        launches = _with_rule_only_launches(loc, report, launches, rule_table, identity)
    style = number_style(loc, column(table, "Metric Value"))
    unit = column(table, "Metric Unit")
    not_understood = check_units(loc, unit)
    cc = main_cc(launches)
    body = column(table, "Body Item Label") if "Body Item Label" in header else None
    section, field, value = column(table, "Section Name"), column(table, "Metric Name"), column(table, "Metric Value")
    check_unit_kinds(loc, metric_units(section, field, unit), cc)
    versions = versions_of(section, field)  # the ncu versions whose labels these are

    parsed = parse_numbers(value, style).to_numpy(zero_copy_only=False)  # (the long frame parses again, lazily)
    unread = unread_note(loc, unread_numbers(value, parsed, has_unit(unit)))
    not_understood += [unread] if unread else []
    twice, notes = _two_values(loc, pid, lid, section, field, body, unit, value, parsed, cc, versions)
    not_understood += notes
    kernel = column(table, "Kernel Name")
    short = last_launch_short(*last_two_launches_of_table(pid, lid, kernel, section, field, body))
    not_understood += [short] if short else []

    def build() -> pd.DataFrame:
        frame = long_metrics(
            report, process_id=pid, launch_id=lid, section=section, body_item=body, metric_field=field,
            unit=unit, value=value, style=style, cc=cc, versions=versions,
        )  # fmt: skip
        if len(twice):  # a metric a launch has twice with two values: not measured (its texts kept)
            measured = frame["value"].to_numpy(dtype=np.float64, copy=True)
            measured[twice] = np.nan
            frame["value"] = measured
        return frame

    not_understood += unknown_labels(section, field, body, cc)
    rules = _rules(loc, report, rule_table, style, launches)
    has_body = body is not None and bool((categorical(body).codes >= 0).any())
    lazy = LazyMetrics(table.num_rows, build, body_items=has_body, names=resolved_names(section, field, cc, versions))
    return Page(launches, lazy, rules, classified.skipped, not_understood)


def _two_values(
    loc: Located,
    pid: np.ndarray,
    lid: np.ndarray,
    section: pa.Array,
    field: pa.Array,
    body: pa.Array | None,
    unit: pa.Array,
    value: pa.Array,
    parsed: np.ndarray,
    cc: str | None,
    versions: frozenset[str] | None = None,
) -> tuple[np.ndarray, list[str]]:
    """Where a launch has a label twice with two values (the same label in the same section, outside body items,
    a metric the analysis reads): every row of that launch's metric (in any section, body items too: none is
    taken, so the metric is not measured for the launch), and one note per such label naming the launch, both
    values and their lines. ncu writes a label once per section, so one of them is damage (or an edit); the
    first was taken, silently. Values (``parsed``: ``value`` read in the page's style) are compared in base units;
    the same value written twice is kept."""
    sec, fld = categorical(section), categorical(field)
    name, _label = resolve_names(sec, fld, cc, versions)
    named = name.codes >= 0
    if body is not None:
        named &= categorical(body).codes < 0
    rows = np.flatnonzero(named)
    nothing: tuple[np.ndarray, list[str]] = (np.zeros(0, dtype=np.int64), [])
    if len(rows) < 2:
        return nothing
    keys = pd.DataFrame({"p": pid[rows], "l": lid[rows], "s": sec.codes[rows], "f": fld.codes[rows]})
    again = keys.duplicated(keep=False).to_numpy()
    if not again.any():
        return nothing
    rows, keys = rows[again], keys.loc[again]
    factor, _base = unit_columns(categorical(unit.take(pa.array(rows))))
    number = parsed[rows] * factor
    keys = keys.assign(v=np.where(np.isnan(number), np.inf, number))  # a cell without a number: a value of its own
    kinds = keys.groupby(["p", "l", "s", "f"], sort=False)["v"].transform("nunique").to_numpy()
    rows, keys = rows[kinds > 1], keys.loc[kinds > 1].reset_index(drop=True)
    if not len(rows):
        return nothing
    texts = value.take(pa.array(rows)).to_pylist()
    units = unit.take(pa.array(rows)).to_pylist()
    found = _lines_of_rows(loc, keys, sec, fld)
    group = keys.groupby(["p", "l", "s", "f"], sort=False).ngroup().to_numpy()
    notes = []
    for g in range(int(group.max()) + 1):
        at = np.flatnonzero(group == g).tolist()
        p, lnch, s, f = (int(x) for x in keys.iloc[at[0]][["p", "l", "s", "f"]])
        shown = " and ".join(f"{texts[i]} {units[i] or ''}".rstrip() for i in at[:2]) + (" ..." if len(at) > 2 else "")
        label, where_in = str(fld.categories[f]), str(sec.categories[s])
        lines = found.get((p, lnch, where_in, label), [])
        where = f", lines {' and '.join(map(str, lines[:2]))}{' ...' if len(lines) > 2 else ''}" if lines else ""
        notes.append(
            f"launch ID {lnch} of process {p} has {label!r} of section {where_in!r} "
            f"{len(at)} times {TWO_VALUES} ({shown}{where}): not measured"
        )
    # every row of each such launch's metric: the one label's, and the metric's in other sections and body items
    launch = pd.MultiIndex.from_arrays([pid, lid])
    flagged = pd.MultiIndex.from_arrays([keys["p"].to_numpy(), keys["l"].to_numpy()])
    metric = name.codes[rows]
    of = np.zeros(len(pid), dtype=bool)
    for code in np.unique(metric).tolist():
        of |= (name.codes == code) & launch.isin(flagged[metric == code])
    return np.flatnonzero(of), notes


def _lines_of_rows(
    loc: Located, keys: pd.DataFrame, sec: pd.Categorical, fld: pd.Categorical
) -> dict[tuple[int, int, str, str], list[int]]:
    """The 1-based lines of the metric rows of ``keys`` (process, launch, section code, field code), each row
    outside a body item: one pass over the file, reading only the lines of those launches."""
    wanted = {
        (int(p), int(lnch), str(sec.categories[s]), str(fld.categories[f]))
        for p, lnch, s, f in keys[["p", "l", "s", "f"]].itertuples(index=False)
    }
    prefixes = {f'"{lnch}","{p}",' for p, lnch, _s, _f in wanted}
    header = loc.header
    at = {c: header.index(c) for c in ("Section Name", "Metric Name", "Body Item Label") if c in header}
    found: dict[tuple[int, int, str, str], list[int]] = {}
    with loc.path.open("r", encoding="utf-8", errors="replace", newline="") as fh:
        for n, line in enumerate(fh, start=1):
            if n <= loc.header_line or line[: line.find(",", line.find(",") + 1) + 1] not in prefixes:
                continue
            fields = loose_fields(line.rstrip("\r\n"))
            if len(fields) <= at["Metric Name"] or ("Body Item Label" in at and fields[at["Body Item Label"]]):
                continue
            key = (int(fields[1]), int(fields[0]), fields[at["Section Name"]], fields[at["Metric Name"]])
            if key in wanted:
                found.setdefault(key, []).append(n)
    return found


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


def _launch_of_rows(pid: np.ndarray, lid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per distinct (Process ID, ID) of the rows, in key order, its first row; per row, its key's index."""
    key = pid.astype(np.int64) * (int(lid.max()) + 1 if len(lid) else 1) + lid
    _uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, np.asarray(inverse).reshape(-1)


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
    first, inverse = _launch_of_rows(pid, lid)
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
            key, cell = f'"{lid[i]}","{pid[i]}",', (loc.header.index(col), str(b))
            line = lines_starting(loc.path, key, loc.data_offset, 1, field=cell)
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
    ident["ID"] = lid[order]
    ident["Process ID"] = pid[order]
    return build_launches(ident, report)


def _with_rule_only_launches(
    loc: Located, report: str, launches: pd.DataFrame, rule_table: pa.Table, identity: list[str]
) -> pd.DataFrame:
    """``launches`` and the launches that only rule rows name, after them in launch ID order: a `--metrics`
    list of metrics the details page has no section for (ncu prints each launch's rule results, SOLBottleneck
    and the like, and no metric row). Each such launch's identity is its first rule row's (rule rows carry
    every column of the header)."""
    pid = int_keys(loc, "Process ID", column(rule_table, "Process ID"))
    lid = int_keys(loc, "ID", column(rule_table, "ID"))
    if _unknown_launch(pid, lid, launches) is None:  # every rule row's launch has metric rows: the common page
        return launches
    known = set(zip(launches["process_id"].tolist(), launches["launch_id"].tolist(), strict=True))
    seen: set[tuple[int, int]] = set()
    rows: list[int] = []
    for i, k in enumerate(zip(pid.tolist(), lid.tolist(), strict=True)):
        if k not in known and k not in seen:
            seen.add(k)
            rows.append(i)
    if not rows:
        return launches
    first = rule_table.take(pa.array(rows))
    ident = pd.DataFrame({c: first.column(c).cast(pa.string()).to_pandas() for c in identity})
    ident["ID"] = lid[rows]
    ident["Process ID"] = pid[rows]
    more = build_launches(ident, report)
    if not len(launches):
        return more
    both = pd.concat([launches, more], ignore_index=True)
    return both.sort_values("launch_id", kind="stable", ignore_index=True)


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
    """RULE_COLUMNS from the rule rows (string columns, the header's names; ID and Process ID may be int64)."""
    if table is None or table.num_rows == 0:
        return empty_frame(RULE_COLUMNS)
    n = table.num_rows
    names = set(table.column_names)

    def text(col: str) -> pd.Series:
        if col not in names:
            return pd.Series(missing_array("string", n))
        arr = table.column(col)  # chunks kept: no copy of the (long) texts
        empty = pc.equal(arr, "")
        if pc.any(empty).as_py():
            arr = pc.if_else(empty, pa.scalar(None, pa.string()), arr)
        return pd.Series(ext_array(arr, "string"))

    def key(col: str) -> np.ndarray:
        arr = column(table, col)
        return arr.to_numpy() if pa.types.is_integer(arr.type) and not arr.null_count else int_keys(loc, col, arr)

    speedup = (
        parse_numbers(column(table, "Estimated Speedup"), style).to_numpy(zero_copy_only=False)
        if "Estimated Speedup" in names
        else np.full(n, np.nan)
    )
    process_id, launch_id = key("Process ID"), key("ID")
    frame = pd.DataFrame(
        {
            "report": pd.Series(report, index=pd.RangeIndex(n), dtype=STR),
            "process_id": pd.arrays.IntegerArray(process_id, np.zeros(n, dtype=bool)),
            "launch_id": pd.arrays.IntegerArray(launch_id, np.zeros(n, dtype=bool)),
            "section": text("Section Name"),
            "rule": text("Rule Name"),
            "type": text("Rule Type"),
            "description": text("Rule Description"),
            "speedup_type": text("Estimated Speedup Type"),
            "speedup": speedup,
        }
    )
    rules = conform(frame, RULE_COLUMNS)
    missing = _unknown_launch(process_id, launch_id, launches)
    if missing is not None:
        raise ParseError(
            loc.path,
            f"rule result for launch ID {launch_id[missing]} of process {process_id[missing]}, "
            "which has no metric rows (expected some)",
        )
    return rules


def _unknown_launch(process_id: np.ndarray, launch_id: np.ndarray, launches: pd.DataFrame) -> int | None:
    """The first rule row whose (process, launch) is not a row of ``launches`` (one report), or None."""
    known_p, known_l = launches["process_id"], launches["launch_id"]
    small = not (known_p.isna().any() or known_l.isna().any())
    if small:
        kp, kl = known_p.to_numpy(np.int64), known_l.to_numpy(np.int64)
        small = all(len(a) == 0 or (a.min() >= 0 and a.max() < 1 << 31) for a in (kp, kl, process_id, launch_id))
    if not small:  # keys beyond 31 bits (or none): pairs through pandas
        rules = pd.MultiIndex.from_arrays([process_id, launch_id])
        pos = pd.MultiIndex.from_arrays([known_p.astype(object), known_l.astype(object)]).get_indexer(rules)
    else:
        if not len(kp):
            return 0
        known = np.sort((kp << 32) | kl)
        keys = (process_id.astype(np.int64) << 32) | launch_id
        pos = np.minimum(np.searchsorted(known, keys), len(known) - 1)
        pos[known[pos] != keys] = -1
    bad = np.flatnonzero(pos < 0)
    return int(bad[0]) if len(bad) else None


# ------------------------------------------------------------------------------------------ streamed reading

#: Rows of ``Metric Value`` the number style is decided from (as :func:`records.number_style` samples).
STYLE_SAMPLE = 200_000
RULE_KEEP = ("ID", "Process ID", "Section Name", "Rule Name", "Rule Type", "Rule Description",
             "Estimated Speedup Type", "Estimated Speedup")  # fmt: skip
LONG_COLUMNS = ("Section Name", "Body Item Label", "Metric Name", "Metric Unit", "Metric Value")


class _Words:
    """A dictionary of strings grown block by block, codes in order of first appearance in the file; '' is -1
    (as :func:`records.categorical` leaves it out of the categories)."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self._index: dict[str, int] = {}

    def mapping(self, local: list[str]) -> np.ndarray:
        """This dictionary's code for each word of a block's own dictionary (new words are added in order)."""
        table = np.empty(len(local) + 1, dtype=np.int32)
        for i, word in enumerate(local):
            code = self._index.get(word, -1) if word else -1
            if word and code < 0:
                code = self._index[word] = len(self.words)
                self.words.append(word)
            table[i] = code
        table[-1] = -1  # lets -1 (no word) map to -1
        return table

    def categorical(self, codes: np.ndarray) -> pd.Categorical:
        """The words of ``codes`` (-1: the empty string) as a Categorical."""
        at = np.where(codes < 0, len(self.words), codes)
        return pd.Categorical.from_codes(at, categories=pd.Index([*self.words, ""], dtype=object), validate=False)


def _local(arr: pa.Array) -> tuple[list[str], np.ndarray]:
    """A block's own dictionary of a string column, and each row's index into it."""
    if not isinstance(arr.type, pa.DictionaryType):
        arr = arr.dictionary_encode()
    return arr.dictionary.to_pylist(), arr.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)


@functools.cache
def _factor(unit: str) -> float:
    """The factor to base units of a unit as written (NaN: a unit we do not know; 1 for no unit)."""
    if not unit:
        return 1.0
    parsed = unit_or_none(unit)
    return np.nan if parsed is None else parsed.factor


@dataclass
class _Prepared:
    """What one block's metric rows give without looking at other blocks (computed on the parsing thread)."""

    lid: np.ndarray
    pid: np.ndarray
    keys: tuple[np.ndarray, np.ndarray, np.ndarray]  # unique (process, launch) keys, first row, inverse
    first_rest: pa.Table | None  # the identity columns not parsed on every row, from each key's first row
    local: dict[str, tuple[list[str], np.ndarray]]  # column -> (block dictionary, row indices)
    pairs: np.ndarray  # distinct (section, field) index pairs, as _pair codes over the block's dictionaries
    header_pairs: np.ndarray  # ... of the rows outside body items
    pair_of_row: np.ndarray  # each row's pair as a dense index: (section + 1) * (fields + 1) + field + 1
    pair_slots: int  # the dense indices there can be
    pair_units: np.ndarray  # distinct (pair, unit): pair dense index * (units + 1) + unit + 1
    in_body: np.ndarray
    value: pa.Array  # Metric Value as written
    base: np.ndarray  # ... as a number in base units, read in the "en" style
    codes: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]  # section, field, unit, body: local, small
    numeric: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # the cells with a number ("en"): key, pair,
    # in body?, value
    unread: list[str]  # cells that look like numbers and are none in the "en" style (``units.unread_numbers``)
    runs: tuple[np.ndarray, np.ndarray]  # (process ID, launch ID) of each run of a launch's rows, in block order


def _prepare(block: Block, first_spec: tuple[list[str], list[str]]) -> _Prepared | None:
    """Checks and conversions of one block that need no other block: integer keys in range, no value after
    Metric Value, rule rows keyed by integers, one identity per launch key within the block; the keys' first
    rows (``first_spec``: the page's column names, and the columns read from those rows); the block's
    dictionaries; the numbers."""
    if block.rules is not None and block.rules.num_rows:
        for c in ("ID", "Process ID"):
            keys = column(block.rules, c)
            if not all_digits(keys):
                raise Fallback("a rule row without integer keys")
            try:
                keys = pc.cast(keys, pa.int64())
            except pa.ArrowInvalid as exc:  # more digits than an int64 holds
                raise Fallback("a rule row's key out of range") from exc
            block.rules = block.rules.set_column(block.rules.schema.get_field_index(c), c, keys)
    table = block.metric
    if table.num_rows == 0:
        return None
    table = table.unify_dictionaries().combine_chunks()
    lid_arr, pid_arr = column(table, "ID"), column(table, "Process ID")
    if lid_arr.null_count or pid_arr.null_count:
        raise Fallback("a row without a key")
    lid, pid = lid_arr.to_numpy(), pid_arr.to_numpy()
    if lid.min() < 0 or pid.min() < 0 or lid.max() >= 1 << 32 or pid.max() >= 1 << 30:
        raise Fallback("keys out of range")
    if "__trailing__" in table.column_names and _text_bytes(column(table, "__trailing__")):
        raise Fallback("a value after Metric Value")
    uniq, first, inverse = _unique_keys((pid << 32) | lid)
    local = {
        c: _local(column(table, c))
        for c in table.column_names
        if isinstance(table.schema.field(c).type, pa.DictionaryType)
    }
    for c, (words, idx) in local.items():  # '' as -1, as every dictionary here
        if "" in words:
            local[c] = (words, np.where(idx == words.index(""), -1, idx).astype(np.int32))
    head = first[inverse]
    for c in ROW_IDENTITY:  # one identity per (Process ID, ID) in the block; across blocks: _Stream.add
        if c in local and (local[c][1] != local[c][1][head]).any():
            raise Fallback(f"a launch with two {c!r} values")
    section, field = local["Section Name"][1], local["Metric Name"][1]
    in_body = local["Body Item Label"][1] >= 0 if "Body Item Label" in local else np.zeros(len(lid), dtype=bool)
    n_field = len(local["Metric Name"][0]) + 1
    pair = (section.astype(np.int64) + 1) * n_field + (field + 1)  # dense: the block's dictionaries are small
    seen = np.bincount(pair, minlength=(len(local["Section Name"][0]) + 1) * n_field)
    in_header = np.bincount(pair[~in_body], minlength=len(seen)) if in_body.any() else seen
    unit_words, unit = local["Metric Unit"]
    n_unit = len(unit_words) + 1
    # the distinct (pair, unit): each pair's first unit, and the rows of another (few: a metric keeps its unit)
    first_unit = np.full(len(seen), -2, dtype=np.int64)
    first_unit[pair[::-1]] = unit[::-1]  # (the last write wins: each pair's first row)
    present = np.flatnonzero(seen)
    pair_units = present * n_unit + (first_unit[present] + 1)
    other = unit != first_unit[pair]
    if other.any():
        pair_units = np.union1d(pair_units, pair[other] * n_unit + (unit[other] + 1))
    factors = np.array([_factor(u) for u in unit_words] + [1.0])
    value = column(table, "Metric Value")
    parsed = parse_numbers(value, "en").to_numpy(zero_copy_only=False)
    base = parsed * factors[unit]
    inverse = inverse.astype(np.int32)
    pair = pair.astype(np.int32)
    codes = (
        _small(section, local["Section Name"][0]), _small(field, local["Metric Name"][0]), _small(unit, unit_words),
        _small(local["Body Item Label"][1], local["Body Item Label"][0]) if "Body Item Label" in local else None,
    )  # fmt: skip
    return _Prepared(
        lid, pid, (uniq, first, inverse), _first_rest(block, first, *first_spec), local,
        _dense_pairs(np.flatnonzero(seen), n_field), _dense_pairs(np.flatnonzero(in_header), n_field), pair,
        len(seen), pair_units, in_body, value, base, codes, _numeric(base, inverse, pair, in_body),
        unread_numbers(value, parsed, unit >= 0), _runs(pid, lid),
    )  # fmt: skip


def _runs(pid: np.ndarray, lid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(process ID, launch ID) of each run of rows of one launch, in row order."""
    starts = np.flatnonzero(np.r_[True, (pid[1:] != pid[:-1]) | (lid[1:] != lid[:-1])])
    return pid[starts], lid[starts]


def _first_rest(block: Block, first: np.ndarray, names: list[str], rest: list[str]) -> pa.Table | None:
    """The ``rest`` columns (as strings) of the lines of the given metric rows."""
    if not rest:
        return None
    if block.heads is not None and set(rest) <= set(block.heads[0].column_names):  # parsed already, once a run
        heads, run = block.heads
        return heads.select(rest).take(pa.array(run[first]))
    text = text_of(block.lines.take(pa.array(block.metric_line[first])))
    table = pacsv.read_csv(
        pa.BufferReader(text),
        read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
        parse_options=pacsv.ParseOptions(newlines_in_values=False),
        convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(names, pa.string()), include_columns=rest),
    )
    if table.num_rows != len(first):  # pragma: no cover - these lines were parsed as metric rows
        raise Fallback("first lines")
    return table


def _numeric(
    base: np.ndarray, key: np.ndarray, pair: np.ndarray, in_body: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows that hold a number: (key, pair, in body?, value in base units)."""
    keep = ~np.isnan(base)
    return key[keep], pair[keep], in_body[keep], base[keep]


def _dense_index(pairs: np.ndarray, n_field: int) -> np.ndarray:
    """_pair codes -> (section + 1) * n_field + (field + 1), as :func:`_prepare` numbers a block's pairs."""
    out: np.ndarray = (pairs >> 32) * n_field + (pairs & 0xFFFFFFFF)
    return out


def _dense_pairs(dense: np.ndarray, n_field: int) -> np.ndarray:
    """(section + 1) * n_field + (field + 1) -> the same pairs as _pair codes (ascending either way)."""
    return _pair(dense // n_field - 1, dense % n_field - 1)


def _unique_keys(key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(key, return_index=True, return_inverse=True)``, over runs of equal keys (a launch's rows
    follow each other): one comparison per row, the sort only over the runs."""
    head = np.flatnonzero(key[1:] != key[:-1]) + 1
    head = np.concatenate([np.zeros(1, dtype=np.int64), head])
    uniq, first, inverse = np.unique(key[head], return_index=True, return_inverse=True)
    lengths = np.diff(np.append(head, len(key)))
    return uniq, head[first], np.repeat(inverse, lengths)


def _text_bytes(arr: pa.Array) -> int:
    """The bytes of a string array's values (0: every cell empty), from its offsets."""
    if not len(arr):
        return 0
    kind = np.int64 if arr.type == pa.large_string() else np.int32
    offsets = np.frombuffer(arr.buffers()[1], dtype=kind)
    return int(offsets[arr.offset + len(arr)] - offsets[arr.offset])


def _small(codes: np.ndarray, words: list[str]) -> np.ndarray:
    """A block's codes kept per metric row in 16 bits while its dictionary allows (half the memory)."""
    return codes.astype(np.int16) if len(words) < 1 << 15 else codes


def _pair(section: np.ndarray, field: np.ndarray) -> np.ndarray:
    """One int64 per (section, field) code pair, -1 codes included."""
    out: np.ndarray = ((section.astype(np.int64) + 1) << 32) | (field.astype(np.int64) + 1)
    return out


def _map_pairs(pairs: np.ndarray, section: np.ndarray, field: np.ndarray) -> list[int]:
    """Pair codes over a block's dictionaries -> pair codes over the file's."""
    s = section[(pairs >> 32) - 1]  # index -1 (no word) is the mapping's last slot: -1
    f = field[(pairs & 0xFFFFFFFF) - 1]
    out: list[int] = _pair(s, f).tolist()
    return out


class _Stream:
    """What a details page is reduced to, block by block: launch keys and identity, the dictionaries of
    sections, fields and units, the numeric metric cells (launch, section, field, body item?, value in base
    units) and the rule rows. Anything unusual is a Fallback to the careful reader."""

    def __init__(self, row_identity: list[str]) -> None:
        self.row_identity = row_identity
        self.launch_row: dict[int, int] = {}
        self.lid: list[np.ndarray] = []
        self.pid: list[np.ndarray] = []
        self.runs: list[tuple[np.ndarray, np.ndarray]] = []  # each block's runs of a launch's rows (_runs)
        self.first_rest: list[pa.Table] = []
        self.words = {c: _Words() for c in row_identity}
        self.ident = {c: np.zeros(0, dtype=np.int32) for c in row_identity}
        self.section, self.field, self.body, self.unit = _Words(), _Words(), _Words(), _Words()
        self.pair_id: dict[int, int] = {}  # (section, field) _pair code over the file's dictionaries -> pair id
        self.header_pairs: set[int] = set()
        self.pair_units: set[tuple[int, int]] = set()  # (pair code over the file's dictionaries, unit code)
        self.has_body = False
        self.rows = 0
        self.rules: list[pa.Table] = []
        self.style: str | None = None
        self.evidence = (False, False)  # for the "en" style, for "dot-grouped", in the rows sampled so far
        self.spaced: str | None = None  # a number grouped by a space, in the rows sampled so far
        self.sampled = 0
        self.pending: list[tuple[_Prepared, np.ndarray, np.ndarray]] = []  # blocks before the number style is known
        self.cells: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []  # row, pair id, in body, value
        self.kept: list[_Kept] = []  # what the long frame is built from, if asked for
        self.lines = 0  # the lines of the blocks so far
        self.odd: list[tuple[int, int, str]] = []  # lines that are no row: (line of the file's records, 0-based,
        # field count, text)
        self.unread: dict[str, None] = {}  # the blocks' cells that look like numbers and are none in "en"

    def add(self, block: Block) -> None:
        self.odd += [(self.lines + i, width, text) for i, width, text in block.odd]
        self.lines += block.n_lines
        pre: _Prepared | None = block.extra
        if block.rules is not None and block.rules.num_rows:
            self.rules.append(block.rules)
        if pre is None:
            return
        n = len(pre.lid)
        uniq, first, inverse = pre.keys
        local_row = np.empty(len(uniq), dtype=np.int64)
        new: list[int] = []
        keys = uniq.tolist()
        for j in np.argsort(first, kind="stable").tolist():
            r = self.launch_row.get(keys[j])
            if r is None:
                r = self.launch_row[keys[j]] = len(self.launch_row)
                new.append(j)
            local_row[j] = r
        local_row = local_row.astype(np.int32)
        fresh = first[np.array(new, dtype=np.int64)]
        self.lid.append(pre.lid[fresh])
        self.pid.append(pre.pid[fresh])
        self.runs.append(pre.runs)
        if pre.first_rest is not None:
            self.first_rest.append(pre.first_rest.take(pa.array(new, pa.int64())))
        new_keys = np.array(new, dtype=np.int64)
        for c in self.row_identity:  # one identity per (Process ID, ID): each row is its key's first in the block
            words, idx = pre.local[c]
            codes = self.words[c].mapping(words)[idx[first]]
            self.ident[c] = np.concatenate([self.ident[c], codes[new_keys]])
            if (codes != self.ident[c][local_row]).any():  # ... and that is the key's first in the file
                raise Fallback(f"a launch with two {c!r} values")
        maps = {
            name: words.mapping(pre.local[col][0])
            for name, col, words in (
                ("section", "Section Name", self.section),
                ("field", "Metric Name", self.field),
                ("unit", "Metric Unit", self.unit),
                ("body", "Body Item Label", self.body),
            )
            if col in pre.local
        }
        self.has_body |= bool(pre.in_body.any())
        self.unread.update(dict.fromkeys(pre.unread))
        value = pre.value
        pair_maps = (maps["section"], maps["field"])
        self.kept.append(_Kept(local_row, inverse, pre.codes, maps, value))
        pair_ids = [self.pair_id.setdefault(p, len(self.pair_id)) for p in _map_pairs(pre.pairs, *pair_maps)]
        slot = np.full(pre.pair_slots, -1, dtype=np.int32)
        slot[_dense_index(pre.pairs, len(pre.local["Metric Name"][0]) + 1)] = pair_ids
        self.header_pairs.update(_map_pairs(pre.header_pairs, *pair_maps))
        n_unit = len(pre.local["Metric Unit"][0]) + 1
        pairs = _map_pairs(_dense_pairs(pre.pair_units // n_unit, len(pre.local["Metric Name"][0]) + 1), *pair_maps)
        units = maps["unit"][pre.pair_units % n_unit - 1].tolist()  # (-1, no unit: the mapping's last slot, -1)
        self.pair_units.update(zip(pairs, units, strict=True))
        self.rows += n
        if self.style is None:
            take = min(n, STYLE_SAMPLE - self.sampled)
            if take > 0:
                sample = value.slice(0, take)
                if other_grouping(sample) is not None:  # the careful reader names them
                    raise Fallback("numbers grouped by an apostrophe, or by a space with a decimal point")
                en, dot = number_evidence(sample)
                self.evidence = (self.evidence[0] or en, self.evidence[1] or dot)
                self.spaced = self.spaced or space_grouped(sample)
                self.sampled += take
            self.pending.append((pre, local_row, slot))
            if self.sampled >= STYLE_SAMPLE:
                self.decide_style()
            return
        self.numbers(pre, local_row, slot)

    def decide_style(self) -> None:
        style = style_of(*self.evidence)
        if style is None:
            raise Fallback("numbers in two styles")
        if not spaces_read(style, self.spaced):  # the careful reader names the cell
            raise Fallback("a number grouped by a space where no other has a decimal comma")
        self.style = style
        for part in self.pending:
            self.numbers(*part)
        self.pending = []

    def numbers(self, pre: _Prepared, local_row: np.ndarray, slot: np.ndarray) -> None:
        """Keep the cells that hold a number, in base units (as the long frame's ``value``): as the parsing
        thread read them in the "en" style, or read again in the file's style if another."""
        if self.style == "en":
            key, pair, in_body, value = pre.numeric
        else:
            assert self.style is not None
            factors = np.array([_factor(u) for u in pre.local["Metric Unit"][0]] + [1.0])
            base = parse_numbers(pre.value, self.style).to_numpy(zero_copy_only=False) * factors[pre.codes[2]]
            key, pair, in_body, value = _numeric(base, pre.keys[2], pre.pair_of_row, pre.in_body)
        self.cells.append((local_row[key], slot[pair], in_body, value))


@dataclass
class _Kept:
    """What the long frame is built from, per block: each row's launch (``row_of_key[key]``) and codes over the
    block's dictionaries (``maps``: block code -> file code, the last slot for -1), and the value texts."""

    row_of_key: np.ndarray
    key: np.ndarray
    codes: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]  # section, field, unit, body
    maps: dict[str, np.ndarray]
    value: pa.Array

    def file_codes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(launch row, section, field, unit, body) over the file's dictionaries."""
        section, field, unit, body = self.codes
        n = len(self.key)
        return (
            self.row_of_key[self.key],
            self.maps["section"][section],
            self.maps["field"][field],
            self.maps["unit"][unit],
            self.maps["body"][body] if body is not None and "body" in self.maps else np.full(n, -1, dtype=np.int32),
        )


def _read_streamed(loc: Located, report: str, names: list[str], identity: list[str]) -> Page:
    """A details page read block by block (:func:`records.split_blocks`): a ragged page (metric rows end in an
    empty field after ``Metric Value``, rule rows fill the header), or a page without rule columns (every row a
    metric row of the header's width). Each block is reduced to launch identity, numeric cells and rule rows
    before the next is read, so memory follows the launches, not the file. The long ``metrics`` frame is built
    only when asked for (from what the blocks kept)."""
    header = loc.header
    row_identity = [c for c in identity if c in ROW_IDENTITY]
    rest = [c for c in identity if c not in row_identity]
    long_cols = [c for c in LONG_COLUMNS if c in names]
    trailing = ["__trailing__"] if names[-1] == "__trailing__" else []
    wanted = ["ID", "Process ID", *row_identity, *long_cols, *trailing]
    types: dict[str, pa.DataType] = dict.fromkeys(names, DICT)
    types.update({"ID": pa.int64(), "Process ID": pa.int64(), "Metric Value": pa.string()})
    types.update(dict.fromkeys(trailing, pa.string()))
    rule_keep = [c for c in RULE_KEEP if c in header]
    rule_spec = (list(header), dict.fromkeys(header, pa.string()), rule_keep) if trailing else None
    stream = _Stream(row_identity)
    prepare = functools.partial(_prepare, first_spec=(names, rest))
    for block in split_blocks(loc, (names, types, wanted), rule_spec, prepare=prepare, prefix_until="Section Name"):
        stream.add(block)
    if not stream.rows:
        raise Fallback("no metric rows")
    if _launch_apart(*(np.concatenate(x) for x in zip(*stream.runs, strict=True))) is not None:
        raise Fallback("a launch with rows in two places")  # the careful reader names it
    skipped = _skipped(loc, stream.odd, len(names)) if stream.odd else []
    if stream.style is None:
        stream.decide_style()
    style = stream.style
    assert style is not None
    unread = list(stream.unread)
    if unread and style != "en":  # read again in the page's style: those still no number
        text = pa.array(unread, pa.string())
        # (each a cell with a unit, or like a number: with_unit all True keeps the words, checks the rest again)
        parsed_again = parse_numbers(text, style).to_numpy(zero_copy_only=False)
        unread = unread_numbers(text, parsed_again, np.ones(len(unread), dtype=bool))
    if unread:  # damage: such a cell may be a label's second copy, which the careful reader compares too
        raise Fallback(f"{len(unread)} cell(s) that look like numbers and are none")
    lid, pid = np.concatenate(stream.lid), np.concatenate(stream.pid)

    ident = pd.DataFrame({c: stream.words[c].categorical(stream.ident[c]) for c in row_identity})
    if rest:
        first = pa.concat_tables(stream.first_rest)
        for c in rest:
            ident[c] = first.column(c).to_pandas()
    ident["ID"] = lid
    ident["Process ID"] = pid
    cc_text = ident["CC"].astype("string") if "CC" in ident.columns else None
    cc = None if cc_text is None else main_cc(pd.DataFrame({"cc": cc_text.mask(cc_text == "")}))  # as launches'

    def launches_and_rules() -> tuple[pd.DataFrame, pd.DataFrame, pd.MultiIndex]:
        """The launches and rules frames: on a thread of their own while this one builds the wide values."""
        launches = build_launches(ident, report)
        rule_table = pa.concat_tables(stream.rules) if stream.rules else None
        return launches, _rules(loc, report, rule_table, style, launches), launch_index(launches)

    with ThreadPoolExecutor(1) as side:  # an error here waits for the side thread, then propagates
        frames = side.submit(launches_and_rules)
        not_understood = check_units(loc, pa.array(stream.unit.words, pa.string()))
        sections, fields = stream.section.words, stream.field.words
        n_f = len(fields) + 1

        def ordered(pairs: set[int]) -> list[tuple[int, int]]:
            """(section, field) codes in the order of ``metricframe``'s pair codes over the final categories."""
            out = [(p >> 32, p & 0xFFFFFFFF) for p in pairs]  # codes + 1
            return sorted(out, key=lambda sf: sf[0] * n_f + sf[1])

        for s_i, f_i in ordered(stream.header_pairs):
            if f_i == 0:
                continue
            said = label_not_understood(sections[s_i - 1] if s_i > 0 else "", fields[f_i - 1], cc)
            if said is not None:
                not_understood.append(said)
        unit_words = stream.unit.words
        check_unit_kinds(
            loc,
            (
                (sections[(p >> 32) - 1] if p >> 32 else "", fields[(p & 0xFFFFFFFF) - 1], unit_words[u])
                for p, u in sorted(stream.pair_units)
                if u >= 0 and p & 0xFFFFFFFF
            ),
            cc,
        )

        # metric name per (section, field) pair, categories in the order the long frame gives them
        pair_keys: list[int] = []
        pair_names: list[str | None] = []
        pairs = [(sections[s_i - 1] if s_i > 0 else "", fields[f_i - 1] if f_i else "", s_i, f_i)
                 for s_i, f_i in ordered(set(stream.pair_id))]  # fmt: skip
        versions = page_versions((section, field) for section, field, _, _ in pairs)  # whose labels these are
        for section, field, s_i, f_i in pairs:
            pair_keys.append((s_i << 32) | f_i)
            pair_names.append(resolve(section, field, cc, versions)[0] if f_i else None)
        categories = list(dict.fromkeys(n for n in pair_names if n is not None))
        code_of = {n: i for i, n in enumerate(categories)}
        pair_code = np.array([code_of[n] if n is not None else -1 for n in pair_names], dtype=np.int32)
        code_of_pair = np.empty(len(stream.pair_id), dtype=np.int32)  # pair id -> metric code (-1: none)
        code_of_pair[[stream.pair_id[k] for k in pair_keys]] = pair_code
        wide = _wide(stream, code_of_pair, len(lid), categories)
        short = last_launch_short(*_last_two_launches(stream, len(lid)), lid, pid)
        not_understood += [short] if short else []
        launches, rules, keys = frames.result()

    words = {"section": sections, "field": fields, "body": stream.body.words, "unit": stream.unit.words}
    page = _KeptPage(loc, report, stream.kept, words, lid, pid, style, cc, versions)
    stream.kept = []
    lazy = LazyMetrics(
        stream.rows,
        functools.partial(page.long, "Body Item Label" in names),
        body_items=stream.has_body,
        names=frozenset(categories),
        wide=WideValues(keys, wide[0], wide[1]),
        body=page.body_rows if stream.has_body else None,
    )
    release_memory()  # what the blocks' parsing left in the allocators, before the analysis needs memory
    return Page(launches, lazy, rules, skipped, not_understood)


def _reference(kernels: np.ndarray) -> tuple[int, int, bool]:
    """(the last launch's row, the launch the cut check compares it with, whether that one is of its kernel):
    the launch of its kernel before it, else the launch just before it (-1: none)."""
    last = len(kernels) - 1
    same = np.flatnonzero(kernels[:last] == kernels[last]) if last > 0 else np.zeros(0, dtype=np.int64)
    return (last, int(same[-1]), True) if len(same) else (last, last - 1, False)


def _last_two_launches(stream: _Stream, n_launch: int) -> tuple[int, int, bool, np.ndarray, np.ndarray]:
    """(``_reference``'s last launch, the launch it is compared with and whether of its kernel, and the (section,
    field) codes of each one's metric rows outside body items, in file order): from the blocks that hold them."""
    last, earlier, same = _reference(stream.ident["Kernel Name"][:n_launch])
    none = np.zeros((0, 2), dtype=np.int64)
    if earlier < 0:
        return last, -1, same, none, none
    parts: dict[int, list[np.ndarray]] = {last: [], earlier: []}
    for kept in reversed(stream.kept):  # (every block: a damaged page may give a launch rows in two places)
        if not len(kept.row_of_key):
            continue
        lo, hi = int(kept.row_of_key.min()), int(kept.row_of_key.max())
        if not (lo <= earlier <= hi or lo <= last <= hi):
            continue
        row, section, field, _unit, body = kept.file_codes()
        for target, found in parts.items():
            at = (row == target) & (body < 0)
            found.insert(0, np.stack([section[at], field[at]], axis=1).astype(np.int64))
    joined = {t: np.concatenate(p) if p else none for t, p in parts.items()}
    return last, earlier, same, joined[last], joined[earlier]


def last_two_launches_of_table(
    pid: np.ndarray, lid: np.ndarray, kernel: pa.Array, section: pa.Array, field: pa.Array, body: pa.Array | None
) -> tuple[int, int, bool, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``_last_two_launches`` from a page's metric rows (the careful reader's table), with each launch row's
    launch ID and process ID: (last, earlier, of its kernel?, mine, theirs, lid, pid)."""
    first, inverse = _launch_of_rows(pid, lid)
    order = np.argsort(first, kind="stable")  # launch rows in file order
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    row = rank[inverse]
    heads = first[order]  # each launch row's first table row
    last, earlier, same = _reference(categorical(kernel, empty_as_na=False).codes[heads])
    codes = np.stack([categorical(section).codes, categorical(field).codes], axis=1).astype(np.int64)
    outside = np.ones(len(row), dtype=bool) if body is None else categorical(body).codes < 0
    mine, theirs = (codes[(row == r) & outside] for r in (last, earlier))
    return last, earlier, same, mine, theirs, lid[heads], pid[heads]


def last_launch_short(last: int, earlier: int, same: bool, mine: np.ndarray, theirs: np.ndarray, lid: np.ndarray,
                      pid: np.ndarray) -> str | None:  # fmt: skip
    """CUT_SHORT's note where the page's last launch (row ``last``) has fewer metric rows than the launch it is
    compared with (row ``earlier``: of its kernel where ``same``, else the launch before it) and they are the first
    of that launch's (``mine``, ``theirs``: each one's (section, field) codes in file order): a page cut at a line
    break (``head -n``), which no field count shows. A launch whose rows differ otherwise is not said to be cut.
    (In the real pages no launch has fewer such rows than the one before it, of its kernel or of another: 1,047
    and 1,087 pairs.)"""
    n = len(mine)
    if earlier < 0 or not n or n >= len(theirs) or not (theirs[:n] == mine).all():
        return None
    which = "of its kernel" if same else "before it"
    return (
        f"{CUT_SHORT}: its last launch (ID {lid[last]} of process {pid[last]}) ends after {n} of the "
        f"{len(theirs)} metric rows of launch ID {lid[earlier]} {which}"
    )


def _skipped(loc: Located, odd: list[tuple[int, int, str]], record_width: int) -> list[Skipped]:
    """The lines of a ragged page that are neither metric nor rule rows (``_Stream.odd``), classified as the careful
    reader classifies them (``classify_odd_rows``), with their line numbers; any it would not skip (damage, a rule
    row) is a Fallback: the careful reader says what and where."""
    first = loc.header_line + 1  # the line after the header: the first of the records
    rows = OddRows([(width, text) for _, width, text in odd], [first + i for i, _, _ in odd])
    try:
        classified = classify_odd_rows(
            loc, rows, record_width=record_width, rule_width=len(loc.header), header=loc.header
        )
    except ParseError as exc:
        raise Fallback(str(exc)) from exc
    if classified.rules is not None and classified.rules.num_rows:
        raise Fallback("a rule row among the lines that are no row")
    if any(quote_left_open(text) for _, _, text in odd):  # the careful reader's CSV parse joins such a line with
        raise Fallback("a line with a quote left open")  # the next, and says whether that is damage
    return classified.skipped


def _two_values_in_a_pair(
    key: np.ndarray, pair: np.ndarray, value: np.ndarray, in_body: np.ndarray, suspects: np.ndarray
) -> bool:
    """Whether a (launch, metric) of ``suspects`` has two values from one (section, field) pair outside body
    items (two pairs of one metric may differ by their rounding: the first is taken, as ever)."""
    look = np.isin(key, suspects) & ~in_body
    cells = pd.DataFrame({"k": key[look], "p": pair[look], "v": value[look]})
    return bool((cells.groupby(["k", "p"], sort=False)["v"].nunique() > 1).any())


#: Largest metrics x launches matrix whose repeated cells are found by counting (beyond: by sorting).
WIDE_COUNTS = 1 << 26


def _wide(
    stream: _Stream, code_of_pair: np.ndarray, n_launch: int, categories: list[str]
) -> tuple[list[str], np.ndarray]:
    """(names, matrix metrics x launches): per launch and metric, the first numeric cell outside body items,
    else the first in a body item (as ``model.long_to_wide`` picks from the long frame). A label a launch has
    twice in one section with two values is a Fallback: the careful reader says which (``_two_values``)."""
    n_code = len(categories)
    if not stream.cells or not n_code:
        return [], np.zeros((0, n_launch))
    keys, pairs, bodies, values = [], [], [], []
    for row, pair, body, number in stream.cells:  # (launch, metric) per cell: a launch's cells lie together
        code = code_of_pair[pair]
        key = row.astype(np.int64) * n_code + code
        named = code >= 0
        whole = named.all()  # else: cells of no metric we name, left out
        keys.append(key if whole else key[named])
        pairs.append(pair if whole else pair[named])
        bodies.append(body if whole else body[named])
        values.append(number if whole else number[named])
    stream.cells = []
    key, in_body, value = np.concatenate(keys), np.concatenate(bodies), np.concatenate(values)
    if not len(key):
        return [], np.zeros((0, n_launch))
    if in_body.any():
        order = np.lexsort((np.arange(len(key)), in_body))  # header rows first, then file order
        key, value, in_body = key[order], value[order], in_body[order]
        pairs = [np.concatenate(pairs)[order]]
    if n_launch * n_code <= WIDE_COUNTS:  # a count per (launch, metric): repeats found without a sort
        counts = np.bincount(key, minlength=n_launch * n_code)
        used = np.flatnonzero(counts.reshape(n_launch, n_code).any(axis=0))
        repeats = np.flatnonzero(counts[key] > 1) if counts.max() > 1 else np.zeros(0, dtype=np.int64)
    else:
        used = np.flatnonzero(np.bincount(key % n_code, minlength=n_code))
        _, repeats = np.unique(key, return_index=True)  # the first cell of each: all written again below
    by_launch = np.full((n_launch, n_code), np.nan)
    flat = by_launch.ravel()
    flat[key] = value  # where a (launch, metric) repeats, which write wins is not defined: ...
    if len(repeats):  # ... the first of each is written again
        _, f = np.unique(key[repeats], return_index=True)
        first_of = repeats[f]
        flat[key[first_of]] = value[first_of]
        other = repeats[(value[repeats] != flat[key[repeats]]) & ~in_body[repeats]]
        if len(other) and _two_values_in_a_pair(key, np.concatenate(pairs), value, in_body, key[other]):
            raise Fallback("a launch with one label of a section twice, with two values")  # the careful reader
            # tells which and where
    # metrics x launches, C order; metrics without a number left out
    matrix = np.ascontiguousarray(by_launch.T) if len(used) == n_code else by_launch.T[used]
    return [categories[c] for c in used.tolist()], matrix


def _dictionary(codes: np.ndarray, words: list[str]) -> pa.DictionaryArray:
    """A dictionary-encoded column from codes into ``words`` (-1: the empty string)."""
    indices = np.where(codes < 0, len(words), codes).astype(np.int32)
    return pa.DictionaryArray.from_arrays(pa.array(indices), pa.array([*words, ""], pa.string()))


@dataclass
class _KeptPage:
    """What a streamed page keeps for the frames built on first use (the long ``metrics`` frame, the body item
    rows): the blocks' kept rows, the file's dictionaries, each launch's keys, the number style and the main CC."""

    loc: Located
    report: str
    kept: list[_Kept]
    words: dict[str, list[str]]
    lid: np.ndarray
    pid: np.ndarray
    style: str
    cc: str | None
    #: ``labels.page_versions`` of the page.
    versions: frozenset[str] | None

    def joined(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, pa.Array]:
        """Every row's (launch row, section, field, unit, body codes over the file's dictionaries; value text),
        the blocks' kept rows joined in file order."""
        row, section, field, unit, body = (
            np.concatenate(parts) for parts in zip(*(k.file_codes() for k in self.kept), strict=True)
        )
        value = pa.chunked_array([k.value for k in self.kept], pa.string()).combine_chunks()
        return row, section, field, unit, body, value

    def long(self, body: bool) -> pd.DataFrame:
        """The long ``metrics`` frame (``body``: the page has a Body Item Label column)."""
        row, section, field, unit, body_codes, value = self.joined()
        w = self.words
        return long_metrics(
            self.report, process_id=self.pid[row], launch_id=self.lid[row],
            section=_dictionary(section, w["section"]), body_item=_dictionary(body_codes, w["body"]) if body else None,
            metric_field=_dictionary(field, w["field"]), unit=_dictionary(unit, w["unit"]), value=value,
            style=self.style, cc=self.cc, versions=self.versions,
        )  # fmt: skip

    def body_rows(self) -> pd.DataFrame:
        """The body item rows (BODY_COLUMNS), as the long frame has them, without building it: only those rows,
        and no metric name, unit or text columns (the chart points and the Speed Of Light breakdown read these).
        The same constructions as :func:`long_metrics` for each column."""
        row, section, field, unit, body, value = self.joined()
        at = np.flatnonzero(body >= 0)
        w = self.words
        sec = categorical(_dictionary(section[at], w["section"]))
        _name, label = resolve_names(sec, categorical(_dictionary(field[at], w["field"])), self.cc, self.versions)
        factor, _base = unit_columns(categorical(_dictionary(unit[at], w["unit"])))
        numbers = parse_numbers(value.take(pa.array(at)), self.style).to_numpy(zero_copy_only=False)
        frame = pd.DataFrame(
            {
                "report": categories(np.zeros(len(at), dtype=np.int8), [self.report]),
                "process_id": ext_array(self.pid[row[at]], "Int64"),
                "launch_id": ext_array(self.lid[row[at]], "Int64"),
                "section": sec,
                "body_item": categorical(_dictionary(body[at], w["body"])),
                "label": label,
                "value": numbers * factor,
            }
        )
        return conform(frame, BODY_COLUMNS)
