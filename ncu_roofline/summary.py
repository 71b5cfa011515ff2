"""The whole-program summary: one stage, computed once per run, over columns, that every renderer reads.

:func:`summarize` turns an :class:`~ncu_roofline.analysis.Analysis` into a :class:`Summary`: the kernels (repeated
launches of one kernel rolled up), what each kernel's launches say (verdict reason, NVTX range, hints), the
utilisation of each unit per kernel, GPU time per NVTX range, the findings (each hint across the report), GPU
time by limiter and by regime, and the agreement with ncu. The terminal summary, the HTML page, Markdown and
JSON all read the same Summary, so they cannot disagree; the view model (``report.viewmodel``) only selects and
formats from it.

Each figure is combined across launches with its own rule, never a blanket ``.sum()``: counts and times are
summed, rates, utilisations and fractions of a peak are averaged weighted by each launch's duration, limits take
their min or max (``ncu_roofline.quantities.Quantity.rollup``), and a label (limiter, regime) is the one that
holds the most GPU time among the launches.

A row of a summary page stands for its group's ``invocations`` launches (its metrics their average): every count
of launches and every sum of GPU time here counts it that many times (``_launch_frame``'s ``weight`` and
``time_ns``), so the totals, the kernels, the ranges and the findings agree with the raw page of the same run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from .analysis import Analysis
from .arrowpool import malloc_arrow
from .classify import agreement
from .io.identity import nvtx_op
from .model import LAUNCH_KEY
from .quantities import BY_NAME
from .vector import first_of_each, key_runs, per_distinct, run_lengths, take_rows
from .vocabulary import SEVERITY_ORDER

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

#: ``Summary.kernels``: GROUP_COLUMNS plus what the kernel's launches say as a whole.
KERNEL_COLUMNS: dict[str, str] = {
    **GROUP_COLUMNS,
    "timed_launches": "Int64",  # launches with a duration (0: duration_ns, mean and share are missing)
    "peak_fraction": "float64",  # time-weighted verdicts.utilization (the limiting unit's fraction of its peak)
    "reason": "string",  # the verdict's reason on the kernel's longest launch of its verdict (else its longest)
    "nvtx": "string",  # the NVTX range (op, outermost) most of its launches ran in
    "nvtx_ranges": "Int64",  # distinct such ranges
}

UTILIZATION_COLUMNS: dict[str, str] = {
    "report": "string",
    "kernel_name": "string",
    "unit": "string",
    "source": "string",
    "value": "float64",
    "launches": "Int64",  # launches with a value
}

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
    "duration_ns": "float64",  # GPU time of the launches it fires on ("time touched", context)
    "share": "float64",
    "recoverable_ns": "float64",  # sum over those launches of estimated_speedup x duration (the ranking key)
    "recoverable_share": "float64",  # of the report's GPU time
    # the same with estimated_speedup_less_work (hints whose fix removes work; NaN for the others): what the fix
    # recovers once the work it counts is gone, above recoverable_ns where that work is the limiter's
    "recoverable_less_work_ns": "float64",
    "recoverable_less_work_share": "float64",
}

#: ``Summary.kernel_hints``: one row per kernel and hint, as given on the kernel's longest launch that has it.
KERNEL_HINT_COLUMNS: dict[str, str] = {
    "kernel": "Int64",  # row of Summary.kernels
    "hint": "string",
    "source": "string",
    "severity": "string",  # the most severe over the kernel's launches
    "launches": "Int64",  # launches of the kernel with this hint
    "launch_id": "Int64",  # the launch the message and evidence come from
    "message": "string",
    "advice": "string",
    "evidence": "string",
    "estimated_speedup": "float64",
    "estimated_speedup_less_work": "float64",
}

TIME_COLUMNS: dict[str, str] = {"duration_s": "float64", "launches": "Int64", "share": "float64"}

#: Source of ncu's own rule results in the hints frame.
NCU_SOURCE = "ncu"


@dataclass(frozen=True)
class Agreement:
    """Agreement of our limiter with ncu's SOLBottleneck rule: launches compared, share that agree (NaN: none)."""

    launches_compared: int
    share: float


@dataclass(frozen=True, repr=False)
class Summary:
    """The whole-program view of one Analysis (see the module docstring). Frames keep their columns when empty.

    ``kernels``: KERNEL_COLUMNS, one row per kernel (GROUP_KEY), sorted by GPU time; a kernel's number anywhere
    else in the Summary is its row here. ``launch_kernel``: per launch (``analysis.launches`` order), its kernel.
    ``kernel_utilization``: UTILIZATION_COLUMNS, per kernel and unit. ``kernel_hints``: KERNEL_HINT_COLUMNS.
    ``ranges``: RANGE_COLUMNS. ``findings``: HINT_GROUP_COLUMNS. ``by_limiter``/``by_regime``: the verdict value
    then TIME_COLUMNS (:func:`time_by`). ``gpu_time_ns``: None when no launch has a duration.

    ``kernel_utilization`` and ``kernel_hints`` are built on first use (the page and the terminal read them, the
    JSON does not) from the analysis the Summary keeps.
    """

    kernels: pd.DataFrame
    launch_kernel: np.ndarray
    ranges: pd.DataFrame
    findings: pd.DataFrame
    by_limiter: pd.DataFrame
    by_regime: pd.DataFrame
    agreement: Agreement
    launches: int
    untimed_launches: int
    gpu_time_ns: float | None
    #: The analysis and its launch frame (``_launch_frame``) the two per-kernel tables are built from.
    origin: tuple[Analysis, pd.DataFrame] = field(compare=False)
    #: The launch key codes of the analysis frames, computed once for every reader of this Summary.
    keys: LaunchKeys = field(compare=False, repr=False)

    @cached_property
    def kernel_utilization(self) -> pd.DataFrame:
        analysis, lf = self.origin
        return group_utilization(analysis, lf, keys=self.keys) if len(lf) else _empty(UTILIZATION_COLUMNS)

    @cached_property
    def kernel_hints(self) -> pd.DataFrame:
        analysis, lf = self.origin
        return kernel_hints(analysis, lf, self.launch_kernel, keys=self.keys)

    def __repr__(self) -> str:
        t = "no GPU time" if self.gpu_time_ns is None else f"{self.gpu_time_ns / 1e6:.3f} ms"
        return (
            f"<Summary: {self.launches} launches of {len(self.kernels)} kernels, {t}, "
            f"{len(self.ranges)} NVTX ranges, {len(self.findings)} findings>"
        )


# ------------------------------------------------------------------------------------------- the rules


def _empty(columns: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series([], dtype=t) for c, t in columns.items()})


def weighted_mean(values: pd.Series, weights: pd.Series, groups: pd.Series | list[pd.Series]) -> pd.Series:
    """Mean of ``values`` per group weighted by ``weights`` (GPU time) over the rows that have a value; the plain
    mean where no row with a value has a positive weight. The rule for rates, utilisations and fractions."""
    v = pd.to_numeric(values, errors="coerce").astype("float64")
    w = pd.to_numeric(weights, errors="coerce").astype("float64").fillna(0.0).clip(lower=0.0)
    has = v.notna()
    num = (v.fillna(0.0) * w).groupby(groups, sort=False, dropna=False).sum()
    den = (w * has).groupby(groups, sort=False, dropna=False).sum()
    plain = v.groupby(groups, sort=False, dropna=False).mean()
    result: pd.Series = (num / den.where(den > 0)).where(den > 0, plain)
    return result


def dominant(labels: pd.Series, weights: pd.Series) -> object:
    """The label holding the most weight (GPU time); ties go to the first seen; None when all are NA."""
    ok = labels.notna()
    if not ok.any():
        return None
    w = weights.fillna(0.0)[ok].groupby(labels[ok].astype(object), sort=False).sum()
    return w.idxmax()


def dominant_per_group(gid: np.ndarray, labels: pd.Series, weights: pd.Series) -> pd.Series:
    """Per group id, the label holding the most weight, as :func:`dominant` gives it for one group (ties to the
    first seen; absent where every label is NA), for all groups at once. Index: the group ids."""
    codes, names = pd.factorize(labels)  # NA: -1; the labels grouped by their codes
    ok = codes >= 0
    if not ok.any():
        return pd.Series(dtype=object)
    width = len(names)
    pair, pairs = pd.factorize(gid[ok].astype(np.int64) * width + codes[ok])  # (group, label), as first seen
    # the weight of each (group, label), summed by pandas as a two-key groupby sums it
    w = pd.Series(weights.fillna(0.0).to_numpy()[ok]).groupby(pair).sum().to_numpy()
    group = pairs // width
    order = np.lexsort((np.arange(len(pairs)), -w, group))  # per group, the most weight first, then first seen
    best = order[np.r_[True, group[order][1:] != group[order][:-1]]]
    values = np.asarray(names, dtype=object)[pairs[best] % width]
    return pd.Series(values, index=group[best], dtype=object)


def rollup_quantities(frame: pd.DataFrame, groups: pd.Series) -> pd.DataFrame:
    """Quantities per group with each quantity's rollup rule; ``frame`` has a ``duration`` column (weights).

    Columns taken: any quantity names (QUANTITIES) and ``duration``. Returns one row per group."""
    out: dict[str, pd.Series] = {}
    g = frame.groupby(groups, sort=False, dropna=False)
    for name in frame.columns:
        q = BY_NAME.get(name)
        if q is None:
            continue
        if q.rollup == "sum":
            out[name] = g[name].sum(min_count=1)
        elif q.rollup == "max":
            out[name] = g[name].max()
        elif q.rollup == "min":
            out[name] = g[name].min()
        elif q.rollup == "first":
            out[name] = g[name].first()
        else:  # time_mean: weighted by duration over launches that have the value
            out[name] = weighted_mean(frame[name], frame["duration"], groups)
    return pd.DataFrame(out)


# ------------------------------------------------------------------------------------------- per launch


def launch_weights(launches: pd.DataFrame) -> np.ndarray:
    """How many launches each row of ``launches`` stands for: its ``invocations`` (a summary page's group), else 1."""
    if "invocations" not in launches.columns:
        return np.ones(len(launches), dtype=np.float64)
    inv = pd.to_numeric(launches["invocations"], errors="coerce").astype("float64").to_numpy()
    out: np.ndarray = np.where(np.isnan(inv), 1.0, inv)
    return out


def _launch_frame(analysis: Analysis) -> pd.DataFrame:
    """Launch keys, kernel_name, nvtx_path, duration_ns (NaN-safe; a summary group's average), weight (the launches
    the row stands for, ``launch_weights``), time_ns (duration_ns x weight: the row's GPU time), limiter,
    compute_pipe, regime, utilization, reason; one row per launch in ``analysis.launches`` order."""
    lv = analysis.launches.reset_index(drop=True)
    v = analysis.verdicts.reset_index(drop=True)
    n = len(lv)
    duration = pd.to_numeric(lv["duration_ns"], errors="coerce").astype("float64")
    weight = launch_weights(lv)
    out = pd.DataFrame(
        {
            "report": lv["report"].astype("string"),
            "process_id": lv["process_id"].astype("Int64"),
            "launch_id": lv["launch_id"].astype("Int64"),
            "kernel_name": lv["kernel_name"].astype("string"),
            "nvtx_path": lv["nvtx_path"].astype("string") if "nvtx_path" in lv else pd.NA,
            "duration_ns": duration,
            "weight": weight,
            "time_ns": duration.to_numpy() * weight,
        }
    )
    for c in ("limiter", "compute_pipe", "regime", "utilization", "reason"):
        out[c] = v[c].to_numpy() if c in v.columns and len(v) == n else pd.NA
    return out


def time_by(analysis: Analysis, column: str) -> pd.DataFrame:
    """GPU time per value of a verdict column (limiter or regime): ``column``, duration_s, launches, share
    (of the report's GPU time), sorted by time. A launch without a verdict counts under <NA>.

    By limiter, only bound launches count under their limiter: a latency- or launch-bound launch is held by no
    roof, so its time is its own row, "latency" or "launch" (the regime)."""
    v = analysis.verdicts
    key = v[column].reset_index(drop=True)
    if column == "limiter" and "regime" in v.columns:
        regime = v["regime"].astype("string").reset_index(drop=True)
        key = key.astype("string").where(regime.isna() | (regime == "bound"), regime)
    weight = launch_weights(analysis.launches)  # a summary page's row: its invocations
    duration = pd.Series(analysis.quantities["duration"].to_numpy() * weight)
    # groups by value in sorted order, <NA> last (a groupby on the column, by its codes)
    codes, values = pd.factorize(key, sort=True, use_na_sentinel=False)
    launches = np.bincount(codes, weights=weight, minlength=len(values))
    g = pd.DataFrame(
        {
            "duration_s": duration.groupby(codes).sum(min_count=1).to_numpy(),  # no duration: no time, not 0
            "launches": pd.array(np.round(launches).astype(np.int64), dtype="Int64"),
        },
        index=pd.Index(values, name=column),
    )
    total = float(np.nansum(duration))
    g["share"] = g["duration_s"] / total if total > 0 else np.nan
    result: pd.DataFrame = g.sort_values("duration_s", ascending=False, kind="stable").reset_index()
    return result


# ------------------------------------------------------------------------------------------- per kernel


def _kernel_ids(lf: pd.DataFrame) -> np.ndarray:
    return np.asarray(lf.groupby(list(GROUP_KEY), sort=False, dropna=False).ngroup().to_numpy(), dtype=np.int64)


def kernel_groups(analysis: Analysis) -> pd.DataFrame:
    """One row per kernel (GROUP_KEY), sorted by total GPU time: GROUP_COLUMNS.

    Takes ``analysis.launches`` (duration_ns, names, NVTX, invocations) and ``analysis.verdicts``."""
    return _kernel_groups(analysis)[0][list(GROUP_COLUMNS)]


def _kernel_groups(analysis: Analysis, launch_frame: pd.DataFrame | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """The kernel frame (GROUP_COLUMNS and ``gid``) sorted by GPU time, and each launch's row in it."""
    lv = analysis.launches.reset_index(drop=True)
    lf = _launch_frame(analysis) if launch_frame is None else launch_frame
    n_launches = len(lv)
    if not n_launches:
        return _empty({**GROUP_COLUMNS, "gid": "int64"}), np.zeros(0, dtype=np.int64)
    gid = _kernel_ids(lf)
    d = lf["duration_ns"]
    inv, time = lf["weight"], lf["time_ns"]
    timed_inv = inv.where(d.notna())
    # shares of the whole GPU time, summary pages' invocations counted (each row stands for N launches)
    total = float(np.nansum(time))
    # the group's first launch, in group-id order (ids are numbered in order of first appearance)
    first_rows = lv[["report", "kernel_name", "display_name"]].iloc[first_of_each(gid)]
    frame = pd.DataFrame(
        {
            "report": first_rows["report"].to_numpy(),
            "kernel_name": first_rows["kernel_name"].to_numpy(),
            "display_name": first_rows["display_name"].to_numpy(),
            "launches": inv.groupby(gid).sum().round().astype("int64").to_numpy(),
            "duration_ns": time.groupby(gid).sum(min_count=1).to_numpy(),  # no duration: no time, not 0
            # per launch with a duration (a summary group's average counted once per invocation)
            "mean_duration_ns": (time.groupby(gid).sum(min_count=1) / timed_inv.groupby(gid).sum()).to_numpy(),
            "nvtx_paths": lv["nvtx_path"].groupby(gid).nunique().to_numpy(),
            "first_launch_id": lv["launch_id"].groupby(gid).min().to_numpy(),
        }
    )
    n = len(frame)
    for c in ("limiter", "compute_pipe", "regime"):
        frame[c] = dominant_per_group(gid, lf[c], time).reindex(range(n)).to_numpy()
    frame["share"] = frame["duration_ns"] / total if total > 0 else np.nan
    frame["gid"] = np.arange(n)
    frame = frame.sort_values(["duration_ns", "first_launch_id"], ascending=[False, True], kind="stable")
    frame = frame[[*GROUP_COLUMNS, "gid"]].astype(GROUP_COLUMNS).reset_index(drop=True)
    row_of = np.empty(n, dtype=np.int64)
    row_of[frame["gid"].to_numpy()] = np.arange(n)
    return frame, row_of[gid]


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


def group_utilization(
    analysis: Analysis, launch_frame: pd.DataFrame | None = None, *, keys: LaunchKeys | None = None
) -> pd.DataFrame:
    """Per kernel and unit, the utilisation (0..1) averaged over the kernel's launches weighted by duration.

    Takes ``analysis.utilization`` (KEY, unit, value, source) and ``analysis.launches`` (kernel_name,
    duration_ns); ``launch_frame``: ``_launch_frame(analysis)`` when the caller has it. Returns
    UTILIZATION_COLUMNS."""
    u = analysis.utilization
    if not len(u):
        return _empty(UTILIZATION_COLUMNS)
    lf = (_launch_frame(analysis) if launch_frame is None else launch_frame)[
        [*LAUNCH_KEY, "kernel_name", "time_ns", "weight"]
    ]
    pos = _launch_positions(lf, u) if keys is None else keys.positions("utilization")
    if pos is None:  # launches that share a key, or rows of no launch: the join says what that means
        m = u.merge(lf, on=list(LAUNCH_KEY), how="left")
        by = [m[c].astype(object) for c in ("report", "kernel_name", "unit", "source")]
        value = weighted_mean(m["value"], m["time_ns"], by)
        count = (m["value"].notna() * m["weight"].fillna(1.0)).groupby(by, sort=False, dropna=False).sum()
        out = value.rename("value").to_frame()
        out["launches"] = count.round().to_numpy()
        out = out.reset_index()
        out.columns = list(UTILIZATION_COLUMNS)
        result: pd.DataFrame = out.astype(UTILIZATION_COLUMNS)
        return result
    # the same groups by codes: (report, kernel_name) by kernel id, unit and source factorised (NA a value)
    kernel = _kernel_ids(lf)[pos]
    unit, units = pd.factorize(u["unit"], use_na_sentinel=False)
    source, sources = pd.factorize(u["source"], use_na_sentinel=False)
    # groups (kernel, unit, source) numbered in order of first appearance
    gid = pd.Series(pd.factorize((kernel * len(units) + unit) * len(sources) + source)[0])
    value = weighted_mean(u["value"].reset_index(drop=True), lf["time_ns"].iloc[pos].reset_index(drop=True), gid)
    weight = lf["weight"].to_numpy()[pos]
    count = pd.Series(u["value"].notna().to_numpy() * weight).groupby(gid, sort=False).sum()
    first = first_of_each(gid.to_numpy())  # each group's first row (groups numbered in order)
    result = pd.DataFrame(
        {
            "report": lf["report"].to_numpy()[pos[first]],
            "kernel_name": lf["kernel_name"].to_numpy()[pos[first]],
            "unit": np.asarray(units, dtype=object)[unit[first]],
            "source": np.asarray(sources, dtype=object)[source[first]],
            "value": value.to_numpy(),
            "launches": np.round(count.to_numpy()).astype(np.int64),
        }
    ).astype(UTILIZATION_COLUMNS)
    return result


class LaunchKeys:
    """The LAUNCH_KEY codes of an analysis' launches and of its per-launch frames (``FRAMES``), as
    :func:`key_codes` gives them, computed once over all of them on first use and shared by the summary, the view
    model and the JSON (each used to match the rows of these frames to their launches on its own)."""

    FRAMES = ("utilization", "roofline", "hints")

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self._codes: list[np.ndarray] | None = None
        self._positions: dict[str, np.ndarray | None] = {}

    def codes(self, frame: str) -> tuple[np.ndarray, np.ndarray]:
        """``key_codes(analysis.launches, getattr(analysis, frame))``: the launches' codes and the frame's."""
        if self._codes is None:
            a = self.analysis
            self._codes = key_codes(a.launches, *(getattr(a, name) for name in self.FRAMES))
        return self._codes[0], self._codes[1 + self.FRAMES.index(frame)]

    def positions(self, frame: str) -> np.ndarray | None:
        """Each row's launch (row of ``analysis.launches``); None unless every row has exactly one."""
        if frame not in self._positions:
            self._positions[frame] = _positions_of(*self.codes(frame))
        return self._positions[frame]


def key_codes(*frames: pd.DataFrame) -> list[np.ndarray]:
    """Per frame, one int64 per row that is equal where LAUNCH_KEY is equal (across the frames; a missing value
    equals a missing value), numbered from 0 in order of first appearance over the frames in turn: keys compared
    as numbers, each key column factorised once over all the frames. Only the first row of each run of rows
    with one key is factorised (``vector.key_runs``; the per-launch frames are launch-major, so about one row per
    launch, not 30) and its code given to the run: the same codes, as every value first appears at a run's
    first row."""
    runs = [key_runs(f) for f in frames]
    combined = np.zeros(sum(len(r) for r in runs), dtype=np.int64)
    for c in LAUNCH_KEY:
        col = pd.concat([f[c].iloc[r] for f, r in zip(frames, runs, strict=True)], ignore_index=True)
        codes, uniques = pd.factorize(col, use_na_sentinel=False)
        combined = pd.factorize(combined * max(len(uniques), 1) + codes)[0].astype(np.int64)
    parts = np.split(combined, np.cumsum([len(r) for r in runs])[:-1])
    return [np.repeat(k, run_lengths(r, len(f))) for k, r, f in zip(parts, runs, frames, strict=True)]


def _launch_positions(lf: pd.DataFrame, frame: pd.DataFrame) -> np.ndarray | None:
    """Each ``frame`` row's launch (row of ``lf``) by LAUNCH_KEY; None unless every row has exactly one."""
    return _positions_of(*key_codes(lf, frame))


def _positions_of(launch: np.ndarray, rows: np.ndarray) -> np.ndarray | None:
    """``_launch_positions`` from the key codes of the launches and of the frame's rows."""
    index = pd.Index(launch)
    if not index.is_unique:
        return None
    pos = index.get_indexer(rows)
    return None if (pos < 0).any() else np.asarray(pos)


def _most_common(values: pd.Series, gid: np.ndarray, n: int, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per group id (0..n-1): the most frequent non-missing value, each row counted ``weight`` times (ties to the
    first seen), and how many distinct values the group has."""
    t = pd.DataFrame({"gid": gid, "v": values.astype(object).to_numpy(), "w": weight})
    t = t[values.notna().to_numpy()]
    best = np.full(n, None, dtype=object)
    distinct = np.zeros(n, dtype=np.int64)
    if len(t):
        c = t.groupby(["gid", "v"], sort=False)["w"].sum().reset_index(name="n")
        top = c.loc[c.groupby("gid", sort=False)["n"].idxmax()]
        best[top["gid"].to_numpy()] = top["v"].to_numpy()
        k = c.groupby("gid", sort=False).size()
        distinct[k.index.to_numpy()] = k.to_numpy()
    return best, distinct


def _kernels(analysis: Analysis, lf: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """Summary.kernels and Summary.launch_kernel."""
    frame, launch_kernel = _kernel_groups(analysis, lf)
    frame = frame.drop(columns="gid")
    n = len(frame)
    if not n:
        return _empty(KERNEL_COLUMNS), launch_kernel
    d = lf["duration_ns"]
    timed = (d.notna() * lf["weight"]).groupby(launch_kernel).sum().reindex(range(n), fill_value=0).round().to_numpy()
    for c in ("duration_ns", "mean_duration_ns", "share"):  # a sum over no duration is no time, not zero time
        frame[c] = frame[c].where(timed > 0)
    frame["timed_launches"] = timed
    peak = weighted_mean(lf["utilization"], lf["time_ns"], pd.Series(launch_kernel))
    frame["peak_fraction"] = peak.reindex(range(n)).to_numpy()

    # the reason on the longest launch with the kernel's verdict (its regime and limiter, else its regime: the
    # "why" of the verdict shown beside it; train_step's bfloat16 copy is latency-bound by GPU time, its longest
    # launch HBM-bound), else the longest; launches without a duration last, then launch order
    def same(column: str) -> np.ndarray:
        mine = lf[column].astype("string").to_numpy(dtype=object, na_value="")  # (no verdict is "": none matches)
        theirs = frame[column].astype("string").to_numpy(dtype=object, na_value="")[launch_kernel]
        out: np.ndarray = (mine == theirs) & (theirs != "")
        return out

    regime = same("regime")
    rank = np.where(regime & same("limiter"), 0, np.where(regime, 1, 2))
    order = np.lexsort((np.arange(len(lf)), -d.fillna(-1.0).to_numpy(), rank, launch_kernel))
    first = order[np.r_[True, launch_kernel[order][1:] != launch_kernel[order][:-1]]]
    reason = np.full(n, None, dtype=object)
    reason[launch_kernel[first]] = lf["reason"].astype(object).to_numpy()[first]
    frame["reason"] = reason
    ops = per_distinct(lf["nvtx_path"].to_numpy(dtype=object), nvtx_op)
    frame["nvtx"], frame["nvtx_ranges"] = _most_common(
        pd.Series(ops, dtype=object), launch_kernel, n, lf["weight"].to_numpy()
    )
    result: pd.DataFrame = frame[list(KERNEL_COLUMNS)].astype(KERNEL_COLUMNS)
    return result, launch_kernel


def _codes_of(values: pd.Series, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of ``values`` at ``rows`` numbered in order of first appearance there, and the distinct values
    (object array; ``pd.factorize(values.to_numpy()[rows])`` without a Python object per row)."""
    codes, names = pd.factorize(values, use_na_sentinel=False)
    local, seen = pd.factorize(codes[rows])
    return local, np.asarray(names, dtype=object)[seen]


def kernel_hints(
    analysis: Analysis, lf: pd.DataFrame, launch_kernel: np.ndarray, *, keys: LaunchKeys | None = None
) -> pd.DataFrame:
    """Per kernel and hint (KERNEL_HINT_COLUMNS): the hint as given on the kernel's longest launch that has it
    (message, advice, evidence, estimate), its most severe level and how many launches have it. Per kernel, our
    hints first (most severe, most launches, largest estimate), then ncu's rules (largest estimate first); the
    estimate ranked by is the larger of estimated_speedup and estimated_speedup_less_work, to 0.1 %.

    Takes ``analysis.hints`` (KEY, hint, source, severity, message, advice, evidence, estimated_speedup,
    estimated_speedup_less_work)."""
    h = analysis.hints
    if not len(h) or not len(lf):
        return _empty(KERNEL_HINT_COLUMNS)
    # the hint rows are ranked and grouped by codes and positions; their text is taken for the rows kept only
    launch, rows_key = key_codes(lf, h) if keys is None else keys.codes("hints")
    pos = pd.Index(launch).get_indexer(rows_key)
    rows = np.flatnonzero(h["hint"].notna().to_numpy() & (pos >= 0))
    if not len(rows):
        return _empty(KERNEL_HINT_COLUMNS)
    pos = pos[rows]
    # codes of the rows kept, numbered in order of first appearance among them (each distinct text once)
    hint_code, hint_names = _codes_of(h["hint"].astype("string"), rows)
    source_code, source_names = _codes_of(h["source"].astype("string").fillna(""), rows)
    sev = _severity_rank(h["severity"].astype("string"))[rows]
    hint_rank = np.empty(len(hint_names), dtype=np.int64)  # the hint's name in sorted order
    hint_rank[np.argsort(np.asarray(hint_names, dtype=object), kind="stable")] = np.arange(len(hint_names))
    kernel = launch_kernel[pos]
    speedup = pd.to_numeric(h["estimated_speedup"], errors="coerce").astype("float64").to_numpy()[rows]
    less = _less_work_of(h)[rows]
    dur = lf["duration_ns"].fillna(0.0).to_numpy()[pos]
    # the rows by duration (longest first), then launch; per (kernel, source, hint) the first such row (the
    # longest launch with the hint), those in the order they come
    key = pd.factorize((kernel.astype(np.int64) * len(source_names) + source_code) * len(hint_names) + hint_code)[0]
    n_keys = int(key.max()) + 1
    order = np.lexsort((np.arange(len(rows)), pos, -dur))
    at = order[first_of_each(pd.factorize(key[order])[0])]
    # per key: launches with the hint; the most severe row (the first in the order above among equals)
    pairs = pd.unique(key.astype(np.int64) * len(lf) + pos)  # each (key, launch) once, counted x invocations
    weight = lf["weight"].to_numpy()[pairs % len(lf)]
    launches = np.round(np.bincount(pairs // len(lf), weights=weight, minlength=n_keys)).astype(np.int64)
    by_sev = order[np.lexsort((np.arange(len(order)), sev[order]))]
    sev_codes, sev_keys = pd.factorize(key[by_sev])
    best = np.empty(n_keys, dtype=np.int64)
    best[sev_keys] = by_sev[first_of_each(sev_codes)]
    sev_min = sev[best]
    k = key[at]
    out = pd.DataFrame(
        {
            "kernel": kernel[at],
            "source": source_code[at],
            "hint": hint_code[at],
            "row": rows[at],
            "launch": pos[at],
            "estimated_speedup": speedup[at],
            "estimated_speedup_less_work": less[at],
            "launches": launches[k],
            "severity_row": rows[best[k]],
            "_rank": np.minimum(sev_min, len(SEVERITY_ORDER))[k],
            "_known": np.isfinite(sev_min)[k],
        }
    )
    ncu = np.asarray(source_names, dtype=object)[out["source"].to_numpy()] == NCU_SOURCE
    # to the tenth of a percent the page prints: ncu's 3e-7 (MemoryL2Compression on a kernel that writes no
    # compressible memory) ties with the rules that give no estimate, and severity decides between them
    est = -np.round(
        np.nan_to_num(np.fmax(out["estimated_speedup"].to_numpy(), out["estimated_speedup_less_work"].to_numpy())), 3
    )
    rank, launches = out["_rank"].to_numpy(), -out["launches"].to_numpy(dtype="float64")
    # ours: severity, launches, estimate, name; ncu's: estimate, severity, launches, name
    out["_ncu"] = ncu
    out["_k1"] = np.where(ncu, est, rank)
    out["_k2"] = np.where(ncu, rank, launches)
    out["_k3"] = np.where(ncu, launches, est)
    out["_name"] = hint_rank[out["hint"].to_numpy()]
    out = out.sort_values(["kernel", "_ncu", "_k1", "_k2", "_k3", "_name"], kind="stable")
    at = out["row"].to_numpy()
    best_severity = take_rows(h["severity"], out["severity_row"].to_numpy()).astype("string")
    best_severity = best_severity.where(out["_known"].to_numpy())
    result = pd.DataFrame(
        {
            "kernel": out["kernel"].to_numpy(),
            "hint": np.asarray(hint_names, dtype=object)[out["hint"].to_numpy()],
            "source": np.asarray(source_names, dtype=object)[out["source"].to_numpy()],
            "severity": best_severity.to_numpy(),
            "launches": out["launches"].to_numpy(),
            "launch_id": h["launch_id"].iloc[at].astype("Int64").to_numpy(),
            "message": take_rows(h["message"], at).astype("string").to_numpy(),
            "advice": take_rows(h["advice"], at).astype("string").to_numpy(),
            "evidence": take_rows(h["evidence"], at).astype("string").to_numpy(),
            "estimated_speedup": out["estimated_speedup"].to_numpy(),
            "estimated_speedup_less_work": out["estimated_speedup_less_work"].to_numpy(),
        }
    )
    typed: pd.DataFrame = result.astype(KERNEL_HINT_COLUMNS)
    return typed


# ------------------------------------------------------------------------------------------- across kernels


def range_groups(analysis: Analysis, *, depth: int = 1, launch_frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """GPU time per NVTX range: the first ``depth`` levels of each launch's NVTX path, normalised by
    :func:`ncu_roofline.io.identity.nvtx_op` (PyTorch's ``seq``/``op_id`` counters dropped, so every call
    of one op groups together). Sorted by GPU time. Launches outside any range form one row with range <NA>.

    Takes ``analysis.launches`` (nvtx_path, kernel_name, duration_ns) and ``analysis.verdicts``. Returns
    RANGE_COLUMNS; empty when no launch has an NVTX path. ``launch_frame``: ``_launch_frame(analysis)`` when the
    caller has it."""
    lf = _launch_frame(analysis) if launch_frame is None else launch_frame.copy(deep=False)
    if not len(lf) or lf["nvtx_path"].isna().all():
        return _empty(RANGE_COLUMNS)
    ranges = per_distinct(lf["nvtx_path"].to_numpy(dtype=object), lambda p: nvtx_op(p, depth=depth))
    lf["range"] = pd.array(ranges, dtype="string")
    total = float(np.nansum(lf["time_ns"]))
    g = lf.groupby(["report", "range"], sort=False, dropna=False)
    gid = g.ngroup().to_numpy()
    d = lf["time_ns"]
    frame = pd.DataFrame(
        {
            "launches": lf["weight"].groupby(gid).sum().round(),
            "kernels": lf["kernel_name"].groupby(gid).nunique(),
            "duration_ns": d.groupby(gid).sum(min_count=1),
            "first_launch_id": lf["launch_id"].groupby(gid).min(),
        }
    )
    first = lf.groupby(gid, sort=True).head(1)
    frame["report"] = first["report"].to_numpy()
    frame["range"] = first["range"].to_numpy()
    for c in ("limiter", "regime"):
        frame[c] = dominant_per_group(gid, lf[c], d).reindex(frame.index).to_numpy()
    frame["share"] = frame["duration_ns"] / total if total > 0 else np.nan
    frame = frame.sort_values(
        ["duration_ns", "first_launch_id"], ascending=[False, True], kind="stable", na_position="last"
    )
    result: pd.DataFrame = frame[list(RANGE_COLUMNS)].astype(RANGE_COLUMNS).reset_index(drop=True)
    return result


def hint_groups(
    analysis: Analysis, launch_frame: pd.DataFrame | None = None, *, keys: LaunchKeys | None = None
) -> pd.DataFrame:
    """Per hint (and source): how many launches and kernels it fires on, the GPU time those launches hold
    (context) and the GPU time a fix could recover (sum of estimated_speedup x duration; a launch counts once
    per hint, with its largest estimate; the same with estimated_speedup_less_work), sorted by recoverable time
    (the larger of the two), then by time touched.

    Takes ``analysis.hints`` (KEY, hint, source, severity) and ``analysis.launches``; ``launch_frame``:
    ``_launch_frame(analysis)`` when the caller has it. Returns HINT_GROUP_COLUMNS."""
    h = analysis.hints
    if not len(h):
        return _empty(HINT_GROUP_COLUMNS)
    lf = (_launch_frame(analysis) if launch_frame is None else launch_frame)[
        [*LAUNCH_KEY, "kernel_name", "time_ns", "weight"]
    ]
    total = float(np.nansum(lf["time_ns"]))
    pos = _launch_positions(lf, h) if keys is None else keys.positions("hints")
    if pos is not None:
        return _hint_groups(h, lf, pos, total)
    m = h[[*LAUNCH_KEY, "hint", "source", "severity", "estimated_speedup"]].merge(lf, on=list(LAUNCH_KEY), how="left")
    m["_gain"] = m["estimated_speedup"].astype("float64") * m["time_ns"].astype("float64")
    m["_less"] = _less_work_of(h) * m["time_ns"].astype("float64").to_numpy()
    m["_sev"] = m["severity"].astype(object).map(SEVERITY_ORDER).astype("float64").fillna(len(SEVERITY_ORDER))
    m.loc[m["severity"].isna().to_numpy(), "_sev"] = np.inf
    gid = m.groupby(["hint", "source"], sort=False, dropna=False).ngroup().to_numpy()
    m["_gid"] = gid
    gain = m.groupby(["_gid", *LAUNCH_KEY], sort=False, dropna=False)[["_gain", "_less"]].max()
    recoverable = gain["_gain"].groupby(level="_gid").sum(min_count=1)
    recoverable_less = gain["_less"].groupby(level="_gid").sum(min_count=1)
    once = m.drop_duplicates(["_gid", *LAUNCH_KEY])
    og = once.groupby("_gid", sort=True)
    first = m.groupby("_gid", sort=True).head(1).set_index("_gid")
    sev = m.groupby("_gid", sort=True)["_sev"].min()
    # the most severe level given; an unknown level ranks after the known ones, a missing one is no level
    best_sev = m.sort_values(["_gid", "_sev"], kind="stable").groupby("_gid", sort=True)["severity"].first()
    frame = pd.DataFrame(
        {
            "hint": first["hint"],
            "source": first["source"],
            "severity": best_sev.where(np.isfinite(sev)),
            "launches": og["weight"].sum().round(),
            "kernels": og["kernel_name"].nunique(),
            "duration_ns": og["time_ns"].sum(min_count=1),
            "recoverable_ns": recoverable.reindex(first.index),
            "recoverable_less_work_ns": recoverable_less.reindex(first.index),
        }
    )
    return _ranked_hint_groups(frame, total)


def _ranked_hint_groups(frame: pd.DataFrame, total: float) -> pd.DataFrame:
    """The per-hint groups with their shares of ``total`` GPU time, most recoverable time first (HINT_GROUP_COLUMNS)."""
    frame["share"] = frame["duration_ns"] / total if total > 0 else np.nan
    frame["recoverable_share"] = frame["recoverable_ns"] / total if total > 0 else np.nan
    frame["recoverable_less_work_share"] = frame["recoverable_less_work_ns"] / total if total > 0 else np.nan
    # ranked by the larger of the two recoverable times (the less-work one, where the hint removes work)
    frame["_ranked"] = np.fmax(frame["recoverable_ns"].to_numpy(dtype=float), frame["recoverable_less_work_ns"])
    frame = frame.sort_values(
        ["_ranked", "duration_ns", "hint"], ascending=[False, False, True], kind="stable", na_position="last"
    )
    result: pd.DataFrame = frame[list(HINT_GROUP_COLUMNS)].astype(HINT_GROUP_COLUMNS).reset_index(drop=True)
    return result


def _less_work_of(h: pd.DataFrame) -> np.ndarray:
    """Each hint row's estimated_speedup_less_work as floats (NaN where the hint does not remove work)."""
    out: np.ndarray = pd.to_numeric(h["estimated_speedup_less_work"], errors="coerce").astype("float64").to_numpy()
    return out


def _severity_rank(severity: pd.Series) -> np.ndarray:
    """Per value, its rank in SEVERITY_ORDER (most severe first); an unknown level after the known ones, a missing
    one infinite (no level). Each distinct value looked up once."""
    codes, names = pd.factorize(severity)  # missing: -1
    table = np.array([*(SEVERITY_ORDER.get(str(x), len(SEVERITY_ORDER)) for x in names), np.inf], dtype=np.float64)
    rank: np.ndarray = table[codes]
    return rank


def _hint_groups(h: pd.DataFrame, lf: pd.DataFrame, pos: np.ndarray, total: float) -> pd.DataFrame:
    """hint_groups where each hint row has its launch (row ``pos`` of ``lf``): the same groups and sums, by codes
    and positions instead of a join on the key and groups on text (sums by pandas, in the same order)."""
    hint = pd.factorize(h["hint"], use_na_sentinel=False)[0]
    source = pd.factorize(h["source"], use_na_sentinel=False)[0]
    severity = h["severity"].astype("string")
    sev = _severity_rank(severity)
    duration = lf["time_ns"].astype("float64").to_numpy()[pos]  # the row's GPU time: x invocations
    weight = lf["weight"].to_numpy()[pos]
    kernel = pd.factorize(lf["kernel_name"])[0][pos]  # no name: -1, not counted (as nunique does)
    gain = pd.to_numeric(h["estimated_speedup"], errors="coerce").astype("float64").to_numpy() * duration
    less_gain = _less_work_of(h) * duration
    # groups (hint, source) numbered in order of first appearance; their first rows in that order
    gid = pd.factorize(hint.astype(np.int64) * (int(source.max()) + 1) + source)[0]
    n_groups = int(gid.max()) + 1
    first = first_of_each(gid)
    # per group and launch: its rows' largest gain (NaN: none), the launches in order of first appearance
    pair = pd.factorize(gid.astype(np.int64) * len(lf) + pos)[0]
    once = first_of_each(pair)  # each (group, launch)'s first row, in row order
    best_gain = np.full(len(once), np.nan)
    np.fmax.at(best_gain, pair, gain)
    best_less = np.full(len(once), np.nan)
    np.fmax.at(best_less, pair, less_gain)
    og = gid[once]
    recoverable = pd.Series(best_gain).groupby(og, sort=True).sum(min_count=1)
    recoverable_less = pd.Series(best_less).groupby(og, sort=True).sum(min_count=1)
    launches = np.round(np.bincount(og, weights=weight[once], minlength=n_groups)).astype(np.int64)
    counted = kernel[once] >= 0
    kernels = np.bincount(
        pd.unique(og[counted].astype(np.int64) * len(lf) + kernel[once][counted]) // len(lf), minlength=n_groups
    )
    touched = pd.Series(duration[once]).groupby(og, sort=True).sum(min_count=1)
    # the most severe level given (first row among equals); an unknown level ranks after the known ones, a missing
    # one is no level
    order = np.lexsort((np.arange(len(h)), sev, gid))
    best = order[np.r_[0, np.flatnonzero(np.diff(gid[order])) + 1]]
    best_sev = np.array(severity.iloc[best].tolist(), dtype=object)
    best_sev[~np.isfinite(sev[best])] = None
    frame = pd.DataFrame(
        {
            "hint": h["hint"].iloc[first].to_numpy(),
            "source": h["source"].iloc[first].to_numpy(),
            "severity": best_sev,
            "launches": launches,
            "kernels": kernels,
            "duration_ns": touched.to_numpy(),
            "recoverable_ns": recoverable.to_numpy(),
            "recoverable_less_work_ns": recoverable_less.to_numpy(),
        },
        index=np.arange(n_groups),
    )
    return _ranked_hint_groups(frame, total)


# ------------------------------------------------------------------------------------------- the stage


@malloc_arrow
def summarize(analysis: Analysis) -> Summary:
    """The whole-program Summary of ``analysis`` (see the module docstring): computed once per run, read by
    every renderer."""
    lf = _launch_frame(analysis)
    keys = LaunchKeys(analysis)
    kernels, launch_kernel = _kernels(analysis, lf)
    has_verdicts = len(analysis.verdicts) == len(lf) and len(lf) > 0
    by = {}
    for column in ("limiter", "regime"):
        if has_verdicts and column in analysis.verdicts.columns:
            by[column] = time_by(analysis, column)
        else:
            by[column] = _empty({column: "string", **TIME_COLUMNS})
    weight = lf["weight"].to_numpy()
    launches = round(float(weight.sum()))
    timed = round(float(weight[lf["duration_ns"].notna().to_numpy()].sum()))
    total = by["limiter"]["duration_s"]
    gpu_time = float(np.nansum(total)) * 1e9 if timed and len(total) else None
    compared = int(analysis.verdicts["agrees_with_ncu"].notna().sum()) if "agrees_with_ncu" in analysis.verdicts else 0
    return Summary(
        kernels=kernels,
        launch_kernel=launch_kernel,
        ranges=range_groups(analysis, launch_frame=lf),
        findings=hint_groups(analysis, lf, keys=keys) if len(lf) else _empty(HINT_GROUP_COLUMNS),
        by_limiter=by["limiter"],
        by_regime=by["regime"],
        agreement=Agreement(compared, agreement(analysis.verdicts) if compared else math.nan),
        launches=launches,
        untimed_launches=launches - timed,
        gpu_time_ns=gpu_time,
        origin=(analysis, lf),
        keys=keys,
    )
