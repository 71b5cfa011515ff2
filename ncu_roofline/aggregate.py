"""Whole-program views: repeated launches of one kernel rolled up, each quantity with its own rule.

Counts and times are summed, rates and percentages are averaged weighted by each launch's duration, limits take
their min or max (``ncu_roofline.quantities.Quantity.rollup``); a verdict (limiter, regime) is the one holding
the most GPU time among the group's launches. Never a blanket ``.sum()``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .analysis import Analysis
from .quantities import BY_NAME

#: What makes launches "the same kernel" for the rollup: the demangled name (launch shape may differ).
GROUP_KEY = ("report", "kernel_name")

GROUP_COLUMNS: dict[str, str] = {
    "report": "string",
    "kernel_name": "string",
    "display_name": "string",
    "launches": "Int64",
    "duration_ns": "float64",  # total
    "mean_duration_ns": "float64",
    "share": "float64",  # of the whole report's GPU time
    "limiter": "string",
    "compute_pipe": "string",
    "regime": "string",
    "nvtx_paths": "Int64",  # distinct NVTX paths the kernel ran under
    "first_launch_id": "Int64",
}


def _dominant(labels: pd.Series, weights: pd.Series) -> object:
    """The label that holds the most weight (GPU time); ties go to the first seen."""
    if labels.isna().all():
        return None
    w = weights.fillna(0.0).groupby(labels.astype(object), sort=False, dropna=True).sum()
    return w.idxmax() if len(w) else None


def rollup_quantities(frame: pd.DataFrame, groups: pd.Series) -> pd.DataFrame:
    """Quantities per group with each quantity's rollup rule; ``frame`` has a ``duration`` column (weights).

    Columns taken: any quantity names (QUANTITIES) and ``duration``. Returns one row per group."""
    out: dict[str, pd.Series] = {}
    w = frame["duration"].fillna(0.0)
    g = frame.groupby(groups, sort=False, dropna=False)
    for name in frame.columns:
        q = BY_NAME.get(name)
        if q is None:
            continue
        col = frame[name]
        if q.rollup == "sum":
            out[name] = g[name].sum(min_count=1)
        elif q.rollup == "max":
            out[name] = g[name].max()
        elif q.rollup == "min":
            out[name] = g[name].min()
        elif q.rollup == "first":
            out[name] = g[name].first()
        else:  # time_mean: weighted by duration over launches that have the value
            has = col.notna()
            num = (col.fillna(0.0) * w).groupby(groups, sort=False, dropna=False).sum()
            den = (w * has).groupby(groups, sort=False, dropna=False).sum()
            mean = g[name].mean()
            out[name] = (num / den.replace(0.0, np.nan)).where(den > 0, mean)
    return pd.DataFrame(out)


def _dominant_per_group(gid: np.ndarray, labels: pd.Series, weights: pd.Series) -> pd.Series:
    """Per group id, the label holding the most weight (GPU time), as ``_dominant`` gives it for one group
    (ties to the first seen; None where every label is NA), for all groups at once."""
    t = pd.DataFrame({"gid": gid, "label": labels.astype(object).to_numpy(), "w": weights.fillna(0.0).to_numpy()})
    t = t[labels.notna().to_numpy()]
    if not len(t):
        return pd.Series(dtype=object)
    s = t.groupby(["gid", "label"], sort=False)["w"].sum().reset_index()
    best = s.loc[s.groupby("gid", sort=False)["w"].idxmax()]
    return pd.Series(best["label"].to_numpy(), index=best["gid"].to_numpy(), dtype=object)


def kernel_groups(analysis: Analysis) -> pd.DataFrame:
    """One row per kernel (GROUP_KEY), sorted by total GPU time: GROUP_COLUMNS.

    Takes ``analysis.launches`` (duration_ns, names, NVTX) and ``analysis.verdicts``. Vectorised over the
    groups (a report of thousands of distinct kernels takes well under a second)."""
    lv = analysis.launches.reset_index(drop=True).copy()
    v = analysis.verdicts.reset_index(drop=True)
    for c in ("limiter", "compute_pipe", "regime"):
        lv[c] = v[c].to_numpy()
    keys = list(GROUP_KEY)
    g = lv.groupby(keys, sort=False, dropna=False)
    gid = g.ngroup().to_numpy()
    d = lv["duration_ns"].astype("float64")
    inv = lv["invocations"].astype("Float64").fillna(1.0).astype("float64")
    # shares of the whole GPU time, summary pages' invocations counted (each row stands for N launches)
    total = float(np.nansum(d * inv))
    first_rows = lv.groupby(gid, sort=True).head(1)  # the group's first launch, in group-id order
    frame = pd.DataFrame(
        {
            "report": first_rows["report"].to_numpy(),
            "kernel_name": first_rows["kernel_name"].to_numpy(),
            "display_name": first_rows["display_name"].to_numpy(),
            "launches": inv.groupby(gid).sum().round().astype("int64").to_numpy(),
            "duration_ns": (d * inv).groupby(gid).sum().to_numpy(),
            "mean_duration_ns": d.groupby(gid).mean().to_numpy(),
            "nvtx_paths": lv["nvtx_path"].groupby(gid).nunique().to_numpy(),
            "first_launch_id": lv["launch_id"].groupby(gid).min().to_numpy(),
        }
    )
    n = len(frame)
    for c in ("limiter", "compute_pipe", "regime"):
        frame[c] = _dominant_per_group(gid, lv[c], d).reindex(range(n)).to_numpy()
    frame["share"] = frame["duration_ns"] / total if total > 0 else np.nan
    frame = frame.sort_values(["duration_ns", "first_launch_id"], ascending=[False, True], kind="stable")
    result: pd.DataFrame = frame[list(GROUP_COLUMNS)].astype(GROUP_COLUMNS).reset_index(drop=True)
    return result


def top_kernels(analysis: Analysis, n: int = 10) -> pd.DataFrame:
    """The ``n`` kernels with the most GPU time (GROUP_COLUMNS, as :func:`kernel_groups`)."""
    result: pd.DataFrame = kernel_groups(analysis).head(n).reset_index(drop=True)
    return result


def kernel_rollups(analysis: Analysis) -> pd.DataFrame:
    """Every quantity rolled up per kernel (GROUP_KEY) with its own rule (``rollup_quantities``), plus
    ``launches``. Index: GROUP_KEY; rows in first-launch order.

    Takes ``analysis.launches`` (report, kernel_name) and ``analysis.quantities``."""
    q = analysis.quantities.reset_index(drop=True)
    lv = analysis.launches.reset_index(drop=True)
    key = lv["report"].astype(str) + "\x00" + lv["kernel_name"].astype(str)
    out = rollup_quantities(q, key)
    first = lv.groupby(key, sort=False)[list(GROUP_KEY)].first()
    out.index = pd.MultiIndex.from_frame(first.loc[out.index])
    out.insert(0, "launches", lv.groupby(key, sort=False).size().loc[key.unique()].to_numpy())
    return out
