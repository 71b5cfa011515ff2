"""Whole-program rollups the report shows, next to ``ncu_roofline.aggregate.kernel_groups``.

Each one combines launches with the rule its figure calls for: utilisations and fractions of a peak are
averaged weighted by each launch's duration (never summed), GPU time is summed, a label (limiter, regime) is the
one holding the most GPU time. Pure functions of an :class:`~ncu_roofline.analysis.Analysis`; nothing here
formats or prints.

- :func:`group_utilization`: per kernel (``aggregate.GROUP_KEY``) and unit, the time-weighted utilisation.
- :func:`group_peak_fraction`: per kernel, the time-weighted ``verdicts.utilization`` (the limiting unit's
  fraction of its peak, on whatever basis the classifier used).
- :func:`range_groups`: GPU time per NVTX range (the op, outermost range by default), with its dominant
  limiter and regime.
- :func:`hint_groups`: per hint, the launches and kernels it fires on and the GPU time they hold.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .aggregate import GROUP_KEY
from .analysis import Analysis
from .io.identity import nvtx_op
from .model import LAUNCH_KEY

RANGE_COLUMNS: dict[str, str] = {
    "report": "string",
    "range": "string",  # the NVTX range (normalised by io.identity.nvtx_op); <NA>: launches outside any range
    "launches": "Int64",
    "kernels": "Int64",  # distinct kernel names
    "duration_ns": "float64",
    "share": "float64",  # of the whole report's GPU time
    "limiter": "string",
    "regime": "string",
    "first_launch_id": "Int64",
}

HINT_GROUP_COLUMNS: dict[str, str] = {
    "hint": "string",
    "source": "string",
    "severity": "string",  # the most severe the hint was given with
    "launches": "Int64",
    "kernels": "Int64",
    "duration_ns": "float64",  # GPU time of the launches it fires on
    "share": "float64",
}

_SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2, "info": 3}


def _launch_frame(analysis: Analysis) -> pd.DataFrame:
    """Launch keys, kernel_name, nvtx_path, duration_ns (NaN-safe), limiter, regime, utilization; one row per
    launch in ``analysis.launches`` order."""
    lv = analysis.launches.reset_index(drop=True)
    v = analysis.verdicts.reset_index(drop=True)
    out = pd.DataFrame(
        {
            "report": lv["report"].astype("string"),
            "process_id": lv["process_id"].astype("Int64"),
            "launch_id": lv["launch_id"].astype("Int64"),
            "kernel_name": lv["kernel_name"].astype("string"),
            "nvtx_path": lv["nvtx_path"].astype("string") if "nvtx_path" in lv else pd.NA,
            "duration_ns": pd.to_numeric(lv["duration_ns"], errors="coerce").astype("float64"),
        }
    )
    for c in ("limiter", "regime", "utilization"):
        out[c] = v[c].to_numpy() if c in v.columns and len(v) == len(out) else pd.NA
    return out


def _weighted_mean(values: pd.Series, weights: pd.Series, groups: list[pd.Series]) -> pd.Series:
    """Mean of ``values`` per group weighted by ``weights`` over the rows that have a value; the plain mean
    where no row with a value has a positive weight."""
    v = pd.to_numeric(values, errors="coerce").astype("float64")
    w = pd.to_numeric(weights, errors="coerce").astype("float64").fillna(0.0).clip(lower=0.0)
    has = v.notna()
    num = (v.fillna(0.0) * w).groupby(groups, sort=False, dropna=False).sum()
    den = (w * has).groupby(groups, sort=False, dropna=False).sum()
    plain = v.groupby(groups, sort=False, dropna=False).mean()
    result: pd.Series = (num / den.where(den > 0)).where(den > 0, plain)
    return result


def group_utilization(analysis: Analysis) -> pd.DataFrame:
    """Per kernel and unit, the utilisation (0..1) averaged over the kernel's launches weighted by duration.

    Takes ``analysis.utilization`` (KEY, unit, value, source) and ``analysis.launches`` (kernel_name,
    duration_ns). Returns report, kernel_name, unit, source, value, launches (launches with a value)."""
    cols = ["report", "kernel_name", "unit", "source", "value", "launches"]
    u = analysis.utilization
    if not len(u):
        return pd.DataFrame({c: pd.Series([], dtype="float64" if c == "value" else "string") for c in cols}).astype(
            {"launches": "Int64"}
        )
    lf = _launch_frame(analysis)[[*LAUNCH_KEY, "kernel_name", "duration_ns"]]
    m = u.merge(lf, on=list(LAUNCH_KEY), how="left")
    keys = [
        m["report"].astype(object),
        m["kernel_name"].astype(object),
        m["unit"].astype(object),
        m["source"].astype(object),
    ]
    value = _weighted_mean(m["value"], m["duration_ns"], keys)
    count = m["value"].notna().groupby(keys, sort=False, dropna=False).sum()
    out = value.rename("value").to_frame()
    out["launches"] = count.to_numpy()
    out = out.reset_index()
    out.columns = cols
    result: pd.DataFrame = out.astype(
        {
            "report": "string",
            "kernel_name": "string",
            "unit": "string",
            "source": "string",
            "value": "float64",
            "launches": "Int64",
        }
    )
    return result


def group_peak_fraction(analysis: Analysis) -> pd.DataFrame:
    """Per kernel, ``verdicts.utilization`` (the limiting unit's fraction of its peak) averaged over the
    kernel's launches weighted by duration. Returns report, kernel_name, peak_fraction."""
    lf = _launch_frame(analysis)
    keys = [lf[k].astype(object) for k in GROUP_KEY]
    s = _weighted_mean(lf["utilization"], lf["duration_ns"], keys)
    out = s.rename("peak_fraction").reset_index()
    out.columns = [*GROUP_KEY, "peak_fraction"]
    result: pd.DataFrame = out.astype({"report": "string", "kernel_name": "string", "peak_fraction": "float64"})
    return result


def _dominant(labels: pd.Series, weights: pd.Series) -> object:
    """The label holding the most weight (GPU time); ties go to the first seen; None when all are NA."""
    ok = labels.notna()
    if not ok.any():
        return None
    w = weights.fillna(0.0)[ok].groupby(labels[ok].astype(object), sort=False).sum()
    return w.idxmax()


def range_groups(analysis: Analysis, *, depth: int = 1) -> pd.DataFrame:
    """GPU time per NVTX range: the first ``depth`` levels of each launch's NVTX path, normalised by
    :func:`ncu_roofline.io.identity.nvtx_op` (PyTorch's ``seq``/``op_id`` counters dropped, so every call
    of one op groups together). Sorted by GPU time. Launches outside any range form one row with range <NA>.

    Takes ``analysis.launches`` (nvtx_path, kernel_name, duration_ns) and ``analysis.verdicts``. Returns
    RANGE_COLUMNS; empty when no launch has an NVTX path."""
    lf = _launch_frame(analysis)
    if not len(lf) or lf["nvtx_path"].isna().all():
        return pd.DataFrame({c: pd.Series([], dtype=t) for c, t in RANGE_COLUMNS.items()})
    cache: dict[object, str | None] = {}
    ranges = []
    for p in lf["nvtx_path"].astype(object).tolist():
        if p not in cache:
            cache[p] = nvtx_op(p if isinstance(p, str) else None, depth=depth)
        ranges.append(cache[p])
    lf["range"] = pd.array(ranges, dtype="string")
    total = float(np.nansum(lf["duration_ns"]))
    rows = []
    for (report, rng), grp in lf.groupby(["report", "range"], sort=False, dropna=False):
        d = grp["duration_ns"]
        rows.append(
            {
                "report": report,
                "range": rng,
                "launches": len(grp),
                "kernels": int(grp["kernel_name"].nunique()),
                "duration_ns": float(np.nansum(d)) if d.notna().any() else np.nan,
                "limiter": _dominant(grp["limiter"], d),
                "regime": _dominant(grp["regime"], d),
                "first_launch_id": grp["launch_id"].min(),
            }
        )
    frame = pd.DataFrame(rows, columns=[c for c in RANGE_COLUMNS if c != "share"])
    frame["share"] = frame["duration_ns"] / total if total > 0 else np.nan
    frame = frame.sort_values(
        ["duration_ns", "first_launch_id"], ascending=[False, True], kind="stable", na_position="last"
    )
    result: pd.DataFrame = frame[list(RANGE_COLUMNS)].astype(RANGE_COLUMNS).reset_index(drop=True)
    return result


def hint_groups(analysis: Analysis) -> pd.DataFrame:
    """Per hint (and source): how many launches and kernels it fires on and the GPU time those launches
    hold, sorted by that time. A launch counts once per hint even where the hint appears twice for it.

    Takes ``analysis.hints`` (KEY, hint, source, severity) and ``analysis.launches``. Returns
    HINT_GROUP_COLUMNS."""
    h = analysis.hints
    if not len(h):
        return pd.DataFrame({c: pd.Series([], dtype=t) for c, t in HINT_GROUP_COLUMNS.items()})
    lf = _launch_frame(analysis)[[*LAUNCH_KEY, "kernel_name", "duration_ns"]]
    total = float(np.nansum(lf["duration_ns"]))
    m = h[[*LAUNCH_KEY, "hint", "source", "severity"]].merge(lf, on=list(LAUNCH_KEY), how="left")
    rows = []
    for (hint, source), grp in m.groupby(["hint", "source"], sort=False, dropna=False):
        once = grp.drop_duplicates(list(LAUNCH_KEY))
        sev = [str(s) for s in grp["severity"].dropna().unique()]
        sev.sort(key=lambda s: _SEVERITY_ORDER.get(s, len(_SEVERITY_ORDER)))
        d = once["duration_ns"]
        rows.append(
            {
                "hint": hint,
                "source": source,
                "severity": sev[0] if sev else None,
                "launches": len(once),
                "kernels": int(once["kernel_name"].nunique()),
                "duration_ns": float(np.nansum(d)) if d.notna().any() else np.nan,
            }
        )
    frame = pd.DataFrame(rows, columns=[c for c in HINT_GROUP_COLUMNS if c != "share"])
    frame["share"] = frame["duration_ns"] / total if total > 0 else np.nan
    frame = frame.sort_values(["duration_ns", "hint"], ascending=[False, True], kind="stable", na_position="last")
    result: pd.DataFrame = frame[list(HINT_GROUP_COLUMNS)].astype(HINT_GROUP_COLUMNS).reset_index(drop=True)
    return result
