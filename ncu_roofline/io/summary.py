"""Reader of ncu's summary pages (``--print-summary per-kernel|per-nvtx|per-gpu``).

A summary row aggregates launches that share a kernel and launch shape: no ``ID``, an ``Invocations``
count, and ``Minimum``/``Maximum``/``Average`` per metric. Each group becomes one row of ``launches`` with
``invocations`` set and a ``launch_id`` numbered 0.. in order of appearance; its metrics carry the average
in ``value`` and the extremes in ``minimum``/``maximum``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from ..errors import FormatError
from .identity import IDENTITY_COLUMNS, build_launches, is_nvtx_column, main_cc
from .metricframe import long_metrics
from .records import (
    check_nonempty,
    classify_odd_rows,
    column,
    int_keys,
    number_style,
    read_records,
    string_columns,
)
from .sniff import Located, Skipped

REQUIRED = (
    "Process ID",
    "Kernel Name",
    "Invocations",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Average",
)


def read_summary(loc: Located, report: str) -> tuple[pd.DataFrame, pd.DataFrame, list[Skipped]]:
    """(launches = kernel groups, metrics, skipped lines) of a summary page."""
    header = loc.header
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise FormatError(loc.path, f"summary page without column(s) {missing}", line=loc.header_line)
    si = header.index("Section Name")
    group_cols = [c for c in header[:si] if c in IDENTITY_COLUMNS or is_nvtx_column(c)]
    dict_cols = {*group_cols, "Section Name", "Metric Name", "Metric Unit"}
    table, odd = read_records(loc, list(header), string_columns(list(header), dict_cols))
    classified = classify_odd_rows(loc, odd, record_width=len(header), rule_width=None)
    check_nonempty(loc, table.num_rows, "rows")
    pid = int_keys(loc, "Process ID", column(table, "Process ID"))
    # A group = the identity columns before "Section Name"; number groups by first appearance.
    codes = np.stack(
        [column(table, c).indices.to_numpy(zero_copy_only=False).astype(np.int64) for c in group_cols], axis=1
    )
    _, first, inverse = np.unique(codes, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(first, kind="stable")
    group_number = np.empty_like(order)
    group_number[order] = np.arange(len(order))
    lid = group_number[inverse]
    rows = first[order]
    ident = pd.DataFrame({c: column(table, c).take(pa.array(rows)).to_pylist() for c in group_cols})
    ident["ID"] = np.arange(len(rows)).astype(str)
    launches = build_launches(ident, report)
    style = number_style(loc, column(table, "Average"))
    metrics = long_metrics(
        loc,
        report,
        process_id=pid,
        launch_id=lid,
        section=column(table, "Section Name"),
        body_item=None,
        metric_field=column(table, "Metric Name"),
        unit=column(table, "Metric Unit"),
        value=column(table, "Average"),
        style=style,
        cc=main_cc(launches),
        minimum=column(table, "Minimum") if "Minimum" in header else None,
        maximum=column(table, "Maximum") if "Maximum" in header else None,
    )
    return launches, metrics, classified.skipped
