"""Reader of ncu's binary report (``.ncu-rep``) through NVIDIA's ``ncu_report`` module.

``ncu_report`` comes from the optional extra ``ncu-roofline[ncu-rep]`` (PyPI ``ncu-report``; it bundles
its native library and needs neither a GPU nor ncu). One action of the report is one launch; its ``launch_id``
is the action's position across all ranges, which is the ``ID`` ncu prints when it exports the same report
as CSV. The process ID is not exposed by ``ncu_report``: ``process_id`` is <NA> for these launches.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np
import pandas as pd

from ..errors import FormatError, MissingExtraError
from ..model import LAUNCH_COLUMNS, METRIC_COLUMNS, RULE_COLUMNS, LongMetrics, conform, empty_frame
from ..units import Unit, unit_or_none
from ..vocabulary import RAW_EXPORT
from .identity import display_name
from .page import Page
from .sniff import Located

#: ncu_report.MsgType_* -> the "Rule Type" the CSV export writes (an OK message is exported as INF).
MSG_TYPES = {0: "NONE", 1: "INF", 2: "OPT", 3: "WRN", 4: "ERR"}
SPEEDUP_TYPES = {0: None, 1: "local", 2: "global"}  # ncu_report.SpeedupType_*


def _module() -> Any:
    try:
        return importlib.import_module("ncu_report")
    except ImportError as exc:
        raise MissingExtraError(
            "reading .ncu-rep files needs NVIDIA's ncu_report module: pip install 'ncu-roofline[ncu-rep]' "
            f"(or export a CSV with: {RAW_EXPORT})"
        ) from exc


def _metric_value(m: Any) -> tuple[float, str]:
    """(numeric value or NaN, text) of an IMetric; instanced and string metrics keep their text."""
    if not m.has_value():
        return math.nan, ""
    value = m.value()
    if isinstance(value, str):
        return math.nan, value
    if isinstance(value, bool):
        return float(value), str(value)
    if isinstance(value, (int, float)):
        text = repr(value) if isinstance(value, float) else str(value)
        return float(value), text
    return math.nan, str(value)


def read_ncurep(loc: Located, report: str) -> Page:
    """Launches, metrics, rules and units not understood of an .ncu-rep file."""
    ncu_report = _module()
    try:
        ctx = ncu_report.load_report(str(loc.path))
    except Exception as exc:  # ncu_report raises its own RuntimeError subclasses
        raise FormatError(loc.path, f"ncu_report cannot load this report: {exc}") from exc
    launches: list[dict[str, object]] = []
    metric_cols: dict[str, list[Any]] = {c: [] for c in METRIC_COLUMNS}
    rule_rows: list[dict[str, object]] = []
    unknown: dict[str, str] = {}
    launch_id = 0
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            launches.append(_launch(ncu_report, action, report, launch_id))
            _metrics(action, report, launch_id, metric_cols, unknown)
            rule_rows += _rules(action, report, launch_id)
            launch_id += 1
    if not launches:
        raise FormatError(loc.path, "the report holds no profiled kernels (expected at least one launch)")
    frame = pd.DataFrame(metric_cols)
    for c, t in METRIC_COLUMNS.items():
        if t == "category":
            frame[c] = frame[c].astype("category")
    metrics = conform(frame, METRIC_COLUMNS)
    rules = conform(pd.DataFrame(rule_rows), RULE_COLUMNS) if rule_rows else empty_frame(RULE_COLUMNS)
    return Page(
        conform(pd.DataFrame(launches), LAUNCH_COLUMNS),
        LongMetrics(metrics),
        rules,
        not_understood=[f"unit {u!r} (metric {m})" for u, m in unknown.items()],
    )


def _num(action: Any, name: str) -> int | None:
    m = action.metric_by_name(name)
    if m is None or not m.has_value():
        return None
    v = m.value()
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _launch(ncu_report: Any, action: Any, report: str, launch_id: int) -> dict[str, object]:
    kernel = action.name(ncu_report.IAction.NameBase_DEMANGLED)
    dims = {
        k: _num(action, f"launch__{k.split('_')[0]}_dim_{k[-1]}")
        for k in ("block_x", "block_y", "block_z", "grid_x", "grid_y", "grid_z")
    }
    major = _num(action, "device__attribute_compute_capability_major")
    minor = _num(action, "device__attribute_compute_capability_minor")
    ranges: list[str] = []
    state = action.nvtx_state()
    if state is not None:
        for d in state.domains():
            dom = state.domain_by_id(d)
            prefix = "" if dom.name() in ("<default domain>", "") else f"{dom.name()}:"
            ranges += [prefix + str(x) for x in dom.push_pop_ranges()]
    return {
        "report": report,
        "process_id": None,
        "launch_id": launch_id,
        "kernel_name": kernel,
        "display_name": display_name(kernel),
        "context": _num(action, "launch__context_id"),
        "stream": _num(action, "launch__stream_id"),
        "device": _num(action, "launch__device_id"),
        "cc": f"{major}.{minor}" if major is not None and minor is not None else None,
        **dims,
        "block_size": _num(action, "launch__block_size"),
        "grid_size": _num(action, "launch__grid_size"),
        "invocations": 1,
        "nvtx_path": "/".join(ranges) if ranges else None,
    }


def _metrics(action: Any, report: str, launch_id: int, out: dict[str, list[Any]], unknown: dict[str, str]) -> None:
    """Append one action's metrics to ``out``; a unit we do not know goes to ``unknown`` (unit -> a metric)."""
    sections: dict[str, str] = {}
    for s in action.sections():
        for m in s.header_metrics():
            sections.setdefault(m.name(), s.name())
    for name in sorted(action.metric_names()):
        m = action.metric_by_name(name)
        if m is None:
            continue
        value, text = _metric_value(m)
        unit = m.unit() or ""
        parsed = unit_or_none(unit)
        if parsed is None:
            unknown.setdefault(unit, name)
            parsed = Unit(unit, math.nan, "")
        label = m.label() if hasattr(m, "label") else ""
        out["report"].append(report)
        out["process_id"].append(None)
        out["launch_id"].append(launch_id)
        out["section"].append(sections.get(name))
        out["body_item"].append(None)
        out["metric"].append(name)
        out["label"].append(label or None)
        out["unit"].append(unit or None)
        out["base_unit"].append(parsed.base or None)
        out["value"].append(value * parsed.factor if not np.isnan(value) else math.nan)
        out["text"].append(text)
        out["minimum"].append(math.nan)
        out["maximum"].append(math.nan)


def _rules(action: Any, report: str, launch_id: int) -> list[dict[str, object]]:
    rows = []
    for rr in action.rule_results():
        if not rr.has_rule_message():
            continue
        msg = rr.rule_message()
        speedup = rr.speedup_estimation() if rr.has_speedup_estimation() else None
        rows.append(
            {
                "report": report,
                "process_id": None,
                "launch_id": launch_id,
                "section": rr.section_identifier(),
                "rule": rr.rule_identifier(),
                "type": MSG_TYPES.get(int(msg.get("type", 0))),
                "description": msg.get("message"),
                "speedup_type": SPEEDUP_TYPES.get(int(speedup["type"])) if speedup else None,
                "speedup": float(speedup["speedup"]) if speedup else math.nan,
            }
        )
    return rows
