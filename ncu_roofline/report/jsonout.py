"""The JSON output (``ncu-roofline REPORT --format json``): stable keys, documented in the README.

Top level: ``schema`` (version of this layout), ``tool``, ``sources`` (files read), ``launches`` (one object per
launch, keys below), ``summary`` (``ncu_roofline.summary.Summary`` serialised: GPU time by limiter and by
regime, the top kernels by GPU time, the NVTX ranges, the findings (each hint across the report), the total GPU
time and kernel count, and the agreement with ncu's SOLBottleneck rule). ``docs/json.md`` and
``docs/schema.json`` describe every key.

Per launch: ``report``, ``id``, ``process_id``, ``kernel``, ``display_name``, ``nvtx_path``, ``grid_size``,
``block_size``, ``duration_ns``, ``limiter``, ``compute_pipe``, ``regime``, ``basis``, ``reason``, ``missing``,
``unmeasured`` (list of the units the export did not measure: hbm, l2, l1, compute, sm), ``partial`` (the
verdict stands on the measured units only; an unmeasured one could change it), ``recipes`` ({figure: the
recipe that computed it}, ``ncu_roofline.quantities.RECIPES``), ``pipe_basis``, ``roof_fraction`` (the
limiter's score, "% of roof" everywhere; = 1 - ``headroom``), ``headroom``, ``time_at_roof_ns``, ``scores``
({hbm, l2, l1, compute}: 0..1), ``explanation``, ``ncu_bottleneck``, ``agrees_with_ncu``, ``not_checked``
(hint rules that lacked their evidence, each "<rule>: <metric> not collected (<ncu option>)"),
``utilization`` ({unit: 0..1}, the units of
``ncu_roofline.classify.UNIT_COLUMNS``), ``memory`` (list of {level, achieved_bytes_per_s, peak_bytes_per_s,
fraction, recipe}: the three bandwidth roofs, whatever the precision), ``roofline`` (list of {precision,
level, dtype, series, achieved_flops, achieved_bytes_per_s, intensity, peak_flops, peak_bytes_per_s,
ridge_intensity, attainable_flops, roof_fraction, bound, work_recipe, traffic_recipe, estimate}) and
``hints`` (list of {id, severity, source, message, advice, evidence, estimated_speedup}).

Which roofline rows: the points ncu's hierarchical roofline charts draw, i.e. the precisions (fp64, fp32,
fp16, and the launch's dominant tensor series) with achieved work above zero, at each of the three levels. A
precision the launch does no work in has no point on a log-log chart and is left out; a launch without any
floating-point or tensor work has an empty list (its traffic is in ``memory``). Missing numbers, and the
infinite intensity of work without traffic, are ``null``.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

from .. import __version__
from ..analysis import Analysis
from ..classify import LIMITERS, records
from ..model import LAUNCH_KEY
from ..summary import Summary, summarize
from .registry import FunctionRenderer, Options, Run

SCHEMA = 3
#: Kernels listed in ``summary.top_kernels``.
TOP_KERNELS = 10


def _num(v: Any) -> float | None:
    if v is None or v is pd.NA:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) or math.isinf(f) else f


def _str(v: Any) -> str | None:
    return None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else str(v)


def _int(v: Any) -> int | None:
    return None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else int(v)


def _bool(v: Any) -> bool | None:
    return None if v is None or v is pd.NA else bool(v)


def _list(v: Any) -> list[str]:
    """A comma-separated verdict column as a list ([] where empty)."""
    text = _str(v)
    return [] if not text else [x.strip() for x in text.split(",")]


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(row[k] for k in LAUNCH_KEY)


def _groups(frame: pd.DataFrame) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    """The rows of ``frame`` as records, grouped by launch key (one pass, input order kept)."""
    out: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in records(frame):
        out.setdefault(_key(row), []).append(row)
    return out


def roofline_rows(roof: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The roofline rows of one launch as JSON objects: precisions with achieved work > 0, every level."""
    keep = [x for x in roof if (_num(x["achieved_flops"]) or 0.0) > 0]
    return [
        {
            "precision": _str(x["precision"]),
            "level": _str(x["level"]),
            "dtype": _str(x["dtype"]),
            "series": _str(x["series"]),
            "achieved_flops": _num(x["achieved_flops"]),
            "achieved_bytes_per_s": _num(x["achieved_bytes_per_s"]),
            "intensity": _num(x["intensity"]),
            "peak_flops": _num(x["peak_flops"]),
            "peak_bytes_per_s": _num(x["peak_bytes_per_s"]),
            "ridge_intensity": _num(x["ridge_intensity"]),
            "attainable_flops": _num(x["attainable_flops"]),
            "roof_fraction": _num(x["roof_fraction"]),
            "bound": _str(x["bound"]),
            "work_recipe": _str(x.get("work_recipe")),
            "traffic_recipe": _str(x.get("traffic_recipe")),
            "estimate": _bool(x.get("estimate")),
        }
        for x in keep
    ]


def memory_rows(roof: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The three bandwidth roofs of one launch (the first row per level: traffic is precision-independent)."""
    first: dict[str, dict[str, Any]] = {}
    for x in roof:
        first.setdefault(str(x["level"]), x)
    return [
        {
            "level": _str(x["level"]),
            "achieved_bytes_per_s": _num(x["achieved_bytes_per_s"]),
            "peak_bytes_per_s": _num(x["peak_bytes_per_s"]),
            "fraction": _num(x["bandwidth_fraction"]),
            "recipe": _str(x.get("traffic_recipe")),
        }
        for x in first.values()
    ]


def _hint_rows(hints: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "id": _str(x["hint"]),
            "severity": _str(x["severity"]),
            "source": _str(x["source"]),
            "message": _str(x["message"]),
            "advice": _str(x["advice"]),
            "evidence": json.loads(str(x["evidence"])) if _str(x["evidence"]) else [],
            "estimated_speedup": _num(x["estimated_speedup"]),
        }
        for x in hints
    ]


def to_dict(analysis: Analysis, summary: Summary | None = None) -> dict[str, Any]:
    """The JSON document as Python objects (see the module docstring for the keys); the ``summary`` part
    serialises ``summary`` (``ncu_roofline.summary.summarize(analysis)`` unless given)."""
    summary = summarize(analysis) if summary is None else summary
    util = _groups(analysis.utilization)
    roof = _groups(analysis.roofline)
    hints = _groups(analysis.hints)
    recipes = {
        tuple(key): {str(f): _str(v) for f, v in row.items()}
        for key, row in zip(analysis.recipes.index, records(analysis.recipes), strict=True)
    }
    launches = []
    for lrow, vrow in zip(records(analysis.launches), records(analysis.verdicts), strict=True):
        k = _key(lrow)
        u, r, h, rec = util.get(k), roof.get(k), hints.get(k), recipes.get(k)
        launches.append(
            {
                "report": _str(lrow["report"]),
                "id": _int(lrow["launch_id"]),
                "process_id": _int(lrow["process_id"]),
                "kernel": _str(lrow["kernel_name"]),
                "display_name": _str(lrow["display_name"]),
                "nvtx_path": _str(lrow["nvtx_path"]),
                "grid_size": _int(lrow["grid_size"]),
                "block_size": _int(lrow["block_size"]),
                "duration_ns": _num(lrow["duration_ns"]),
                "limiter": _str(vrow["limiter"]),
                "compute_pipe": _str(vrow["compute_pipe"]),
                "regime": _str(vrow["regime"]),
                "basis": _str(vrow["basis"]),
                "reason": _str(vrow["reason"]),
                "missing": _str(vrow["missing"]),
                "unmeasured": _list(vrow["unmeasured"]),
                "partial": _bool(vrow["partial"]),
                "recipes": {} if rec is None else {f: r for f, r in rec.items() if r is not None},
                "pipe_basis": _str(vrow["pipe_basis"]),
                "roof_fraction": _num(vrow["roof_fraction"]),
                "headroom": _num(vrow["headroom"]),
                "time_at_roof_ns": _num(vrow["time_at_roof_ns"]),
                "scores": {lim: _num(vrow[f"score_{lim}"]) for lim in LIMITERS},
                "explanation": _str(vrow["explanation"]),
                "ncu_bottleneck": _str(vrow["ncu_bottleneck"]),
                "agrees_with_ncu": _bool(vrow["agrees_with_ncu"]),
                "not_checked": [] if _str(vrow.get("not_checked")) is None else str(vrow["not_checked"]).split("; "),
                "utilization": {}
                if u is None
                else {str(x["unit"]): _num(x["value"]) for x in u if not str(x["unit"]).startswith("limiter_")},
                "memory": [] if r is None else memory_rows(r),
                "roofline": [] if r is None else roofline_rows(r),
                "hints": [] if h is None else _hint_rows(h),
            }
        )

    def time_rows(column: str, t: pd.DataFrame) -> list[dict[str, Any]]:
        return [
            {
                column: _str(x[column]),
                "duration_ns": _num(x["duration_s"] * 1e9),
                "share": _num(x["share"]),
                "launches": _int(x["launches"]),
            }
            for x in records(t)
        ]

    top = summary.kernels.head(TOP_KERNELS)
    src = analysis.report.source
    return {
        "schema": SCHEMA,
        "tool": {"name": "ncu-roofline", "version": __version__},
        "sources": [
            {
                "report": _str(x["report"]),
                "path": _str(x["path"]),
                "flavour": _str(x["flavour"]),
                "ncu_version": _str(x["ncu_version"]),
                "launches": _int(x["launches"]),
                "skipped_lines": _int(x["skipped_lines"]),
                "skipped": _str(x["skipped"]),
                "not_understood": _str(x["not_understood"]),
            }
            for x in records(src)
        ],
        "launches": launches,
        "summary": {
            "by_limiter": time_rows("limiter", summary.by_limiter),
            "by_regime": time_rows("regime", summary.by_regime),
            "top_kernels": [
                {
                    "report": _str(x["report"]),
                    "kernel": _str(x["kernel_name"]),
                    "display_name": _str(x["display_name"]),
                    "launches": _int(x["launches"]),
                    "duration_ns": _num(x["duration_ns"]),
                    "share": _num(x["share"]),
                    "limiter": _str(x["limiter"]),
                    "compute_pipe": _str(x["compute_pipe"]),
                    "regime": _str(x["regime"]),
                }
                for x in records(top)
            ],
            "gpu_time_ns": _num(summary.gpu_time_ns),
            "kernels": len(summary.kernels),
            "ranges": [
                {
                    "report": _str(x["report"]),
                    "range": _str(x["range"]),
                    "launches": _int(x["launches"]),
                    "kernels": _int(x["kernels"]),
                    "duration_ns": _num(x["duration_ns"]),
                    "share": _num(x["share"]),
                    "limiter": _str(x["limiter"]),
                    "regime": _str(x["regime"]),
                }
                for x in records(summary.ranges)
            ],
            "findings": [
                {
                    "hint": _str(x["hint"]),
                    "source": _str(x["source"]),
                    "severity": _str(x["severity"]),
                    "launches": _int(x["launches"]),
                    "kernels": _int(x["kernels"]),
                    "duration_ns": _num(x["duration_ns"]),
                    "share": _num(x["share"]),
                    "recoverable_ns": _num(x["recoverable_ns"]),
                    "recoverable_share": _num(x["recoverable_share"]),
                }
                for x in records(summary.findings)
            ],
            "ncu_agreement": {
                "launches_compared": summary.agreement.launches_compared,
                "share": _num(summary.agreement.share),
            },
        },
    }


def render_json(analysis: Analysis, summary: Summary | None = None) -> str:
    """The JSON document as text: sorted keys, two-space indent, deterministic."""
    return json.dumps(to_dict(analysis, summary), indent=2, sort_keys=True, allow_nan=False) + "\n"


def _render(run: Run, _options: Options) -> str:
    return render_json(run.analysis, run.summary)


JSON: FunctionRenderer[Run] = FunctionRenderer("json", ".json", _render)
