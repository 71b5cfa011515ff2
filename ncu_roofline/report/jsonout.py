"""The JSON output (``ncu-roofline REPORT --format json``): stable keys, documented in the README.

Top level: ``schema`` (version of this layout), ``tool``, ``sources`` (files read), ``launches`` (one object per
launch, keys below), ``summary`` (GPU time by limiter and by regime). Per launch:
``report``, ``id``, ``process_id``, ``kernel``, ``display_name``, ``duration_ns``, ``limiter``, ``compute_pipe``,
``regime``, ``basis``, ``reason``, ``utilization`` ({unit: 0..1}), ``roofline`` (list of {precision, level,
achieved_flops, achieved_bytes_per_s, intensity, peak_flops, peak_bytes_per_s, roof_fraction}),
``hints`` (list of {id, severity, source, message, advice, evidence}). Missing numbers are ``null``.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

from .. import __version__
from ..analysis import Analysis, time_by
from ..model import LAUNCH_KEY

SCHEMA = 1


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
    return None if v is None or v is pd.NA else int(v)


def to_dict(analysis: Analysis) -> dict[str, Any]:
    """The JSON document as Python objects (see the module docstring for the keys)."""
    key = list(LAUNCH_KEY)
    util = {k: g for k, g in analysis.utilization.groupby(key, dropna=False, sort=False)}
    roof = {k: g for k, g in analysis.roofline.groupby(key, dropna=False, sort=False)}
    hints = {k: g for k, g in analysis.hints.groupby(key, dropna=False, sort=False)}
    launches = []
    for lrow, vrow in zip(
        analysis.launches.to_dict(orient="records"), analysis.verdicts.to_dict(orient="records"), strict=True
    ):
        k = (lrow["report"], lrow["process_id"], lrow["launch_id"])
        u = util.get(k)
        r = roof.get(k)
        h = hints.get(k)
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
                "utilization": {} if u is None else {str(x.unit): _num(x.value) for x in u.itertuples()},
                "roofline": []
                if r is None
                else [
                    {
                        "precision": _str(x.precision),
                        "level": _str(x.level),
                        "achieved_flops": _num(x.achieved_flops),
                        "achieved_bytes_per_s": _num(x.achieved_bytes_per_s),
                        "intensity": _num(x.intensity),
                        "peak_flops": _num(x.peak_flops),
                        "peak_bytes_per_s": _num(x.peak_bytes_per_s),
                        "roof_fraction": _num(x.roof_fraction),
                    }
                    for x in r.itertuples()
                ],
                "hints": []
                if h is None
                else [
                    {
                        "id": _str(x.hint),
                        "severity": _str(x.severity),
                        "source": _str(x.source),
                        "message": _str(x.message),
                        "advice": _str(x.advice),
                        "evidence": json.loads(str(x.evidence)) if _str(x.evidence) else [],
                    }
                    for x in h.itertuples()
                ],
            }
        )

    def summary(column: str) -> list[dict[str, Any]]:
        t = time_by(analysis, column)
        return [
            {column: _str(x[column]), "duration_ns": _num(x["duration_s"] * 1e9), "share": _num(x["share"]),
             "launches": _int(x["launches"])}  # fmt: skip
            for x in t.to_dict(orient="records")
        ]

    src = analysis.report.source
    return {
        "schema": SCHEMA,
        "tool": {"name": "ncu-roofline", "version": __version__},
        "sources": [
            {"report": _str(x["report"]), "path": _str(x["path"]), "flavour": _str(x["flavour"]),
             "ncu_version": _str(x["ncu_version"]), "launches": _int(x["launches"]),
             "skipped_lines": _int(x["skipped_lines"]), "skipped": _str(x["skipped"])}  # fmt: skip
            for x in src.to_dict(orient="records")
        ],
        "launches": launches,
        "summary": {"by_limiter": summary("limiter"), "by_regime": summary("regime")},
    }


def render_json(analysis: Analysis) -> str:
    """The JSON document as text: sorted keys, two-space indent, deterministic."""
    return json.dumps(to_dict(analysis), indent=2, sort_keys=True, allow_nan=False) + "\n"
