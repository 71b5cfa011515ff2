"""Comparing two analyses (before and after a change): matched launches, per-kernel changes, a program total.

Pure: frames and numbers, no printing (``ncu_roofline.report.diffout`` and ``diff_html`` render them).

Matching. Launches are paired in passes, each over the launches the earlier passes left, pairing the n-th launch
of a key in BEFORE with the n-th launch of that key in AFTER (launch order = row order of ``launches``); where
a key's launches differ in number between the sides, those of the same grid and block first:

1. ``name+nvtx``: kernel name and NVTX path (push/pop, else start/end; a launch outside any range has "");
2. ``name+nvtx-shape``: kernel name and NVTX path with every number masked (PyTorch's
   ``aten::linear, seq = 470, op_id = 22`` ranges carry counters that differ from run to run);
3. ``name``: kernel name alone (ranges renamed or collected on one side only);
4. ``short-name``: the display name (template arguments or a mangled/demangled export differ);
5. ``function``: the function's own name, where a side was printed with ``--print-kernel-base function`` (every
   kernel name of that side is a function's name alone, so no other pass can pair its templated kernels).

What no pass pairs is reported as ``before only`` or ``after only``. A summary page's row (a group of launches, the
mean of its ``invocations``) is matched as that many launches of its key: each launch of the other side takes one
(compared with the group's mean), and a group against a group pairs as many launches as both have.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .analysis import Analysis
from .io import read_warnings
from .io.identity import function_names, nvtx_renames, short_names
from .model import launch_index
from .summary import dominant, launch_weights
from .vector import launch_positions
from .vocabulary import PRECISIONS, Level

#: (pass name, key columns of the frame ``_match_frame`` builds), in the order they run.
MATCH_PASSES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("name+nvtx", ("kernel", "nvtx")),
    ("name+nvtx-shape", ("kernel", "nvtx_shape")),
    ("name", ("kernel",)),
    ("short-name", ("short",)),
    ("function", ("function",)),  # only where a side prints function names alone (``_function_printed``)
)
MATCHED, BEFORE_ONLY, AFTER_ONLY = "matched", "before only", "after only"
#: Precisions a kernel's roofline point may use (the one with the most FLOPs over both sides wins).
POINT_PRECISIONS = PRECISIONS
#: The roofline level of the point: DRAM (HBM) traffic, the classic roofline's x axis.
POINT_LEVEL = Level.DRAM.value

PAIR_COLUMNS: dict[str, str] = {
    "kernel": "string",  # BEFORE's kernel name where matched, else the launch's own
    "display_name": "string",
    "nvtx_path": "string",
    "status": "string",  # matched, before only, after only
    "matched_by": "string",  # a MATCH_PASSES name ("name" where neither launch has an NVTX range)
    "invocations": "Int64",  # the launches the row pairs (or leaves unmatched): 1, or launches of a summary group
    "before_report": "string",
    "before_process_id": "Int64",
    "before_launch_id": "Int64",
    "after_report": "string",
    "after_process_id": "Int64",
    "after_launch_id": "Int64",
    "before_duration_ns": "float64",
    "after_duration_ns": "float64",
    "speedup": "float64",  # before / after duration
    "before_limiter": "string",
    "after_limiter": "string",
    "before_regime": "string",
    "after_regime": "string",
}

KERNEL_COLUMNS: dict[str, str] = {
    "kernel": "string",
    "display_name": "string",
    "status": "string",  # matched (every launch), partly matched, before only, after only
    "before_launches": "Int64",
    "after_launches": "Int64",
    "matched_launches": "Int64",
    "before_ns": "float64",  # total GPU time of the kernel's launches (NaN where it has none)
    "after_ns": "float64",
    "delta_ns": "float64",  # after - before, a side without launches counting 0 (NaN: a side's time not measured)
    "change": "float64",  # after / before - 1 (both sides present)
    "speedup": "float64",  # before / after
    "before_limiter": "string",  # the verdict holding the most GPU time among the kernel's launches
    "after_limiter": "string",
    "before_pipe": "string",
    "after_pipe": "string",
    "before_regime": "string",
    "after_regime": "string",
    "precision": "string",  # of the roofline point
    "before_intensity": "float64",  # FLOP per DRAM byte
    "after_intensity": "float64",
    "before_flops": "float64",  # achieved FLOP/s (time-weighted over the launches)
    "after_flops": "float64",
    "before_bytes_per_s": "float64",  # achieved DRAM bandwidth
    "after_bytes_per_s": "float64",
    "peak_flops": "float64",  # roofs of the point's precision and level (BEFORE's, else AFTER's)
    "peak_bytes_per_s": "float64",
    "hints_appeared": "string",  # hint ids, ", "-joined
    "hints_gone": "string",
}

HINT_DIFF_COLUMNS: dict[str, str] = {
    "kernel": "string",
    "display_name": "string",
    "hint": "string",
    "status": "string",  # appeared, gone
    "comparable": "bool",  # False: the other side may just not have measured what the hint needs
    "severity": "string",
    "source": "string",
    "message": "string",  # the side where it is present
}


@dataclass(frozen=True)
class Total:
    """The whole program: every launch of each side, and the matched launches alone."""

    before_ns: float
    after_ns: float
    before_launches: int
    after_launches: int
    matched: int
    before_only: int
    after_only: int
    #: Over the matched launches timed on both sides (a pair with one side's duration unknown compares nothing).
    matched_before_ns: float
    matched_after_ns: float
    #: Launches without a duration, both sides together: the two GPU times then add up different launches, so
    #: the whole program's change and speedup are not given (NaN); the matched launches' are.
    untimed: int = 0

    @property
    def delta_ns(self) -> float:
        return self.after_ns - self.before_ns

    @property
    def change(self) -> float:
        """after / before - 1 of the whole program (NaN without a BEFORE time, or where a side has launches
        without a duration: ``matched_change`` then)."""
        if self.untimed:
            return math.nan
        return self.after_ns / self.before_ns - 1.0 if self.before_ns > 0 else math.nan

    @property
    def speedup(self) -> float:
        if self.untimed:
            return math.nan
        return self.before_ns / self.after_ns if self.after_ns > 0 else math.nan

    @property
    def matched_change(self) -> float:
        return self.matched_after_ns / self.matched_before_ns - 1.0 if self.matched_before_ns > 0 else math.nan

    @property
    def matched_speedup(self) -> float:
        return self.matched_before_ns / self.matched_after_ns if self.matched_after_ns > 0 else math.nan


@dataclass
class Diff:
    """BEFORE vs AFTER: ``pairs`` (PAIR_COLUMNS, one row per launch pair or unmatched launch), ``kernels``
    (KERNEL_COLUMNS, sorted by the size of the change), ``hints`` (HINT_DIFF_COLUMNS), the ``total``, and
    ``caveats``: reasons a change may not come from the code (different metrics, GPUs, ncu versions)."""

    before: Analysis
    after: Analysis
    before_name: str
    after_name: str
    pairs: pd.DataFrame
    kernels: pd.DataFrame
    hints: pd.DataFrame
    total: Total
    caveats: list[str] = field(default_factory=list)

    @property
    def unmatched(self) -> pd.DataFrame:
        """The launches no pass could pair (rows of ``pairs``)."""
        return self.pairs[self.pairs["status"] != MATCHED].reset_index(drop=True)

    def match_counts(self) -> dict[str, int]:
        """Matched launches per pass (only passes that matched any)."""
        m = self.pairs[self.pairs["status"] == MATCHED].groupby("matched_by")["invocations"].sum()
        return {name: int(m[name]) for name in [*(p for p, _ in MATCH_PASSES), "name"] if name in m.index}


# ----------------------------------------------------------------------------------------------- matching

_NUMBER = re.compile(r"\d+")


def _match_frame(analysis: Analysis) -> pd.DataFrame:
    """Keys of every launch for matching: pos (row in launches), kernel, short (its display name, not cut),
    function (its function's own name), nvtx, nvtx_shape, launch (its grid and block, "" where not given)."""
    lv = analysis.launches
    named = lv["kernel_name"].astype(object).where(lv["kernel_name"].notna(), lv["display_name"].astype(object))
    kernel = _without_rename(named.fillna("").astype(str).to_numpy(), lv["nvtx_path"])
    nvtx = lv["nvtx_path"].astype(object).where(lv["nvtx_path"].notna(), lv["nvtx_start_end"].astype(object))
    nvtx = nvtx.where(nvtx.notna(), "")
    return pd.DataFrame(
        {
            "pos": np.arange(len(lv)),
            "kernel": kernel,
            # whole: two kernels whose display names begin alike (cuBLAS' and cuDNN's long names) are two keys
            "short": short_names(kernel, max_len=sys.maxsize),
            "function": function_names(kernel),
            "nvtx": nvtx.astype(str).to_numpy(),
            "nvtx_shape": [_NUMBER.sub("#", s) for s in nvtx.astype(str)],
            "launch": _launch_shapes(lv),
        }
    )


def _without_rename(kernel: np.ndarray, paths: pd.Series) -> np.ndarray:
    """The kernel names to match by, without the NVTX range that ``--print-nvtx-rename kernel`` put before a
    launch's kernel name (``nvtx_renames``): an export printed with it matches the same report's plain export (its
    ranges are still matched, by the NVTX passes)."""
    renamed, _, own = nvtx_renames(pd.Series(kernel), paths)
    if not renamed.any():
        return kernel
    out: np.ndarray = np.where(renamed, own, kernel)
    return out


def _function_printed(frame: pd.DataFrame) -> bool:
    """Whether every kernel name of a side (``_match_frame``) is its function's own name alone, as
    ``--print-kernel-base function`` prints them: only then does the ``function`` pass run (elsewhere the
    function's name alone pairs kernels that differ in what they compute: ``vectorized_elementwise_kernel<Gelu>``
    with ``vectorized_elementwise_kernel<Relu>``)."""
    kernels = frame["kernel"].to_numpy(dtype=object)
    return bool(len(kernels)) and bool((kernels == frame["function"].to_numpy(dtype=object)).all())


def _launch_shapes(lv: pd.DataFrame) -> np.ndarray:
    """Each launch's grid and block as one text ("" for a dimension not given)."""
    dims = [c for c in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z") if c in lv.columns]
    if not dims:
        return np.full(len(lv), "", dtype=object)
    cells = [lv[c].astype("Int64").astype("string").fillna("").reset_index(drop=True) for c in dims]
    joined = cells[0]
    for c in cells[1:]:
        joined = joined + "," + c
    out: np.ndarray = joined.to_numpy(dtype=object)
    return out


def _copies(analysis: Analysis) -> np.ndarray:
    """How many launches each row of ``launches`` stands for, as a whole number of at least 1: a summary page's
    row its invocations (``launch_weights``), any other row 1."""
    weights = np.rint(launch_weights(analysis.launches))
    out: np.ndarray = np.maximum(np.nan_to_num(weights, nan=1.0), 1.0).astype(np.int64)
    return out


def match_launches(before: Analysis, after: Analysis) -> pd.DataFrame:
    """Pairs of launch positions (rows of each side's ``launches``): before_pos, after_pos, matched_by, invocations.

    A side's position is -1 where the launch has no partner (see the module docstring for the passes). A summary
    page's row stands for its invocations and is matched as that many launches: each of the other side's launches
    takes one of them, and what two rows share is one pair, ``invocations`` the launches it pairs (1 between two
    launches; a group's launches left over are that row unmatched, ``invocations`` how many). The work follows the
    rows, not the invocations they stand for."""
    b, a = _match_frame(before), _match_frame(after)
    left_b, left_a = _copies(before), _copies(after)  # each row's launches not matched yet
    # a summary page's rows are in the order of its groups, not of the launches: no launch order to pair by
    grouped = _summary_page(before) != _summary_page(after)
    found = []
    for name, keys in MATCH_PASSES:
        if name == "function" and not (_function_printed(b) or _function_printed(a)):
            continue
        # where a key's launches differ in number between the sides (one added or removed), those of the same grid
        # and block are paired first: the launch removed is the one left over, not its kernel's last; where they
        # are as many, launch order alone (a launch whose grid changed pairs with its own), but against a summary
        # page's groups, whose order is not the launches', the same grid and block first for every key
        for shaped in (True, False):
            rows_b, rows_a = np.flatnonzero(left_b > 0), np.flatnonzero(left_a > 0)
            if not len(rows_b) or not len(rows_a):
                break
            cols = list(keys)
            if shaped:
                if not grouped:
                    rows_b, rows_a = _uneven(b, a, rows_b, rows_a, left_b, left_a, cols)
                cols.append("launch")
            pb, pa_, n = _pair_in_order(b, a, rows_b, rows_a, left_b, left_a, cols)
            if not len(n):
                continue
            np.subtract.at(left_b, pb, n)
            np.subtract.at(left_a, pa_, n)
            no_nvtx = (b["nvtx"].to_numpy()[pb] == "") & (a["nvtx"].to_numpy()[pa_] == "")
            label = np.where(no_nvtx & (name in ("name+nvtx", "name+nvtx-shape")), "name", name)
            found.append(pd.DataFrame({"before_pos": pb, "after_pos": pa_, "matched_by": label, "invocations": n}))
    rest_b, rest_a = np.flatnonzero(left_b > 0), np.flatnonzero(left_a > 0)
    found.append(
        pd.DataFrame({"before_pos": rest_b, "after_pos": -1, "matched_by": None, "invocations": left_b[rest_b]})
    )
    found.append(
        pd.DataFrame({"before_pos": -1, "after_pos": rest_a, "matched_by": None, "invocations": left_a[rest_a]})
    )
    types = {"before_pos": "int64", "after_pos": "int64", "matched_by": "string", "invocations": "int64"}
    parts = [f.astype(types) for f in found if len(f)]
    if not parts:
        return pd.DataFrame({c: [] for c in types}).astype(types)
    # one pair of rows matched in two steps of a pass (a group's launches of two shapes) is one pair
    out = pd.concat(parts, ignore_index=True).groupby(["before_pos", "after_pos", "matched_by"], sort=False,
                                                      dropna=False)["invocations"].sum().reset_index()  # fmt: skip
    # order: by BEFORE's launch order, AFTER-only launches last in their order
    order = np.lexsort((out["after_pos"].to_numpy(), np.where(out["before_pos"] < 0, len(b), out["before_pos"])))
    result: pd.DataFrame = out.iloc[order].reset_index(drop=True).astype(types)
    return result


def _key_totals(
    b: pd.DataFrame, a: pd.DataFrame, rows_b: np.ndarray, rows_a: np.ndarray, left_b: np.ndarray,
    left_a: np.ndarray, cols: list[str],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Each given row's key (``cols``), numbered over the rows of both sides, and each key's launches not matched
    yet (``left_*``) on each side: (BEFORE's keys, AFTER's keys, BEFORE's totals, AFTER's totals)."""
    both = pd.concat([b[cols].iloc[rows_b], a[cols].iloc[rows_a]], ignore_index=True)
    kid = both.groupby(cols, sort=False, dropna=False).ngroup().to_numpy(dtype=np.int64)
    kb, ka = kid[: len(rows_b)], kid[len(rows_b) :]
    n = int(kid.max()) + 1 if len(kid) else 0
    tb = np.bincount(kb, weights=left_b[rows_b], minlength=n).astype(np.int64)
    ta = np.bincount(ka, weights=left_a[rows_a], minlength=n).astype(np.int64)
    return kb, ka, tb, ta


def _uneven(
    b: pd.DataFrame, a: pd.DataFrame, rows_b: np.ndarray, rows_a: np.ndarray, left_b: np.ndarray,
    left_a: np.ndarray, cols: list[str],
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The rows of the keys whose launches (not matched yet) differ in number between the sides."""
    kb, ka, tb, ta = _key_totals(b, a, rows_b, rows_a, left_b, left_a, cols)
    uneven = tb != ta
    return rows_b[uneven[kb]], rows_a[uneven[ka]]


def _pair_in_order(
    b: pd.DataFrame, a: pd.DataFrame, rows_b: np.ndarray, rows_a: np.ndarray, left_b: np.ndarray,
    left_a: np.ndarray, cols: list[str],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The n-th launch of each key (``cols``) BEFORE paired with the n-th AFTER, over the given rows in their order,
    a row standing for its launches not matched yet (``left_*``): (BEFORE row, AFTER row, launches) per pair of
    rows that share any. Each key's launches are laid out on one line, both sides from the same point: a row is
    an interval as long as its launches, and two rows pair where their intervals overlap (for rows of one launch
    each: the n-th with the n-th)."""
    empty = np.zeros(0, dtype=np.int64)
    if not len(rows_b) or not len(rows_a):
        return empty, empty, empty
    kb, ka, tb, ta = _key_totals(b, a, rows_b, rows_a, left_b, left_a, cols)
    n_keys = len(tb)
    wb, wa = left_b[rows_b], left_a[rows_a]
    origin = np.concatenate([[0], np.cumsum(np.maximum(tb, ta))])  # each key's point on the line
    paired = origin[:-1] + np.minimum(tb, ta)  # ... and the end of what both sides have of it

    def intervals(k: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(order of the rows by key, then as given; their starts; their ends) on the line."""
        order = np.argsort(k, kind="stable")
        ks, ws = k[order], w[order]
        before_it = np.cumsum(ws) - ws
        key_first = np.searchsorted(ks, ks, side="left")  # each row's key's first row in this order
        start = origin[ks] + before_it - before_it[key_first]
        return order, start, start + ws

    ob, sb, eb = intervals(kb, wb)
    oa, sa, ea = intervals(ka, wa)
    points = np.unique(np.concatenate([sb, eb, sa, ea, paired]))
    lo, hi = points[:-1], points[1:]
    key = np.searchsorted(origin, lo, side="right") - 1
    keep = lo < paired[np.minimum(key, n_keys - 1)]  # segments that both sides have
    lo, hi = lo[keep], hi[keep]
    ib = np.searchsorted(sb, lo, side="right") - 1  # the rows whose intervals hold each segment
    ia = np.searchsorted(sa, lo, side="right") - 1
    # consecutive segments of one pair of rows as one pair
    pair_b, pair_a = rows_b[ob[ib]], rows_a[oa[ia]]
    new = np.ones(len(lo), dtype=bool)
    new[1:] = (pair_b[1:] != pair_b[:-1]) | (pair_a[1:] != pair_a[:-1])
    first = np.flatnonzero(new)
    launches = np.add.reduceat(hi - lo, first) if len(first) else empty
    return pair_b[first], pair_a[first], launches.astype(np.int64)


# --------------------------------------------------------------------------------------------- per launch


def _side(analysis: Analysis) -> pd.DataFrame:
    """Per launch (row order of ``launches``): keys, names, duration, verdict fields."""
    lv = analysis.launches.reset_index(drop=True)
    v = analysis.verdicts.reset_index(drop=True)
    weight = _copies(analysis).astype(np.float64)  # a summary page's group: its invocations (as matched)
    return pd.DataFrame(
        {
            "report": lv["report"].astype("string"),
            "process_id": lv["process_id"].astype("Int64"),
            "launch_id": lv["launch_id"].astype("Int64"),
            "kernel": lv["kernel_name"].astype("string").fillna(lv["display_name"].astype("string")),
            "display_name": lv["display_name"].astype("string"),
            "nvtx_path": lv["nvtx_path"].astype("string"),
            "duration_ns": lv["duration_ns"].astype("float64") * weight,
            "invocations": pd.array(weight.astype(np.int64), dtype="Int64"),
            "limiter": v["limiter"].astype("string"),
            "compute_pipe": v["compute_pipe"].astype("string"),
            "regime": v["regime"].astype("string"),
        }
    )


def _take(frame: pd.DataFrame, pos: np.ndarray, column: str) -> pd.Series:
    """``frame[column]`` at positions ``pos`` (-1: missing), as a Series of the column's dtype."""
    col = frame[column]
    out = col.iloc[np.where(pos < 0, 0, pos)].reset_index(drop=True) if len(col) else pd.Series([None] * len(pos))
    return out.astype(col.dtype).where(pd.Series(pos >= 0))


def _kernel_groups(kernel: pd.Series, after_kernel: pd.Series, status: np.ndarray) -> pd.Series:
    """The kernel (group) of each row of PAIR_COLUMNS: BEFORE's kernel name where matched, else the launch's own;
    an AFTER launch left over whose kernel name a later pass paired under another BEFORE name (a template argument
    or a printing that differs) joins that kernel, so that a kernel with one launch more is one kernel row, not a
    matched one and a new one."""
    matched, extra = status == MATCHED, status == AFTER_ONLY
    renamed = matched & (after_kernel != kernel).fillna(False).to_numpy(dtype=bool)
    if not (renamed.any() and extra.any()):
        return kernel
    alias = pd.Series(kernel[renamed].to_numpy(), index=after_kernel[renamed].to_numpy())
    alias = alias[~alias.index.duplicated()]  # a name paired with several: the first (BEFORE's launch order)
    out = kernel.copy()
    out[extra] = after_kernel[extra].map(alias).fillna(after_kernel[extra])
    return out


def launch_pairs(before: Analysis, after: Analysis, matches: pd.DataFrame | None = None) -> pd.DataFrame:
    """PAIR_COLUMNS: one row per matched pair and per unmatched launch, in BEFORE's launch order."""
    matches = match_launches(before, after) if matches is None else matches
    b, a = _side(before), _side(after)
    pb, pa_ = matches["before_pos"].to_numpy(), matches["after_pos"].to_numpy()
    status = np.where((pb >= 0) & (pa_ >= 0), MATCHED, np.where(pb >= 0, BEFORE_ONLY, AFTER_ONLY))

    def either(column: str) -> pd.Series:
        return _take(b, pb, column).fillna(_take(a, pa_, column))

    n = pd.Series(matches["invocations"].to_numpy(dtype=np.float64))

    def duration(side: pd.DataFrame, pos: np.ndarray) -> pd.Series:
        """The GPU time of the launches a pair takes of a row: its mean duration x the pair's invocations."""
        return _take(side, pos, "duration_ns") / _take(side, pos, "invocations").astype("float64") * n

    bd, ad = duration(b, pb), duration(a, pa_)
    frame = pd.DataFrame(
        {
            "kernel": _kernel_groups(either("kernel"), _take(a, pa_, "kernel"), status),
            "display_name": either("display_name"),
            "nvtx_path": either("nvtx_path"),
            "status": status,
            "matched_by": matches["matched_by"].to_numpy(),
            "invocations": matches["invocations"].to_numpy(),
            "before_report": _take(b, pb, "report"),
            "before_process_id": _take(b, pb, "process_id"),
            "before_launch_id": _take(b, pb, "launch_id"),
            "after_report": _take(a, pa_, "report"),
            "after_process_id": _take(a, pa_, "process_id"),
            "after_launch_id": _take(a, pa_, "launch_id"),
            "before_duration_ns": bd,
            "after_duration_ns": ad,
            "speedup": bd / ad.where(ad > 0),
            "before_limiter": _take(b, pb, "limiter"),
            "after_limiter": _take(a, pa_, "limiter"),
            "before_regime": _take(b, pb, "regime"),
            "after_regime": _take(a, pa_, "regime"),
        }
    )
    result: pd.DataFrame = frame[list(PAIR_COLUMNS)].astype(PAIR_COLUMNS)
    return result


# --------------------------------------------------------------------------------------------- per kernel


_POINT_COLUMNS = ["group", "precision", "flop", "byte", "flop_seconds", "byte_seconds", "flop_both", "byte_both",
                  "peak_flops", "peak_bytes_per_s"]  # fmt: skip


def _points(analysis: Analysis, groups: pd.Series) -> pd.DataFrame:
    """Per group and precision at POINT_LEVEL: FLOP and DRAM bytes (rate x duration, summed), the time of the
    launches that measured each (``flop_seconds``, ``byte_seconds``: a launch without the figure is not a launch
    that did none, e.g. a details page's beside a raw page's), FLOP and bytes of the launches that measured both
    (``flop_both``, ``byte_both``: the intensity's), roofs.

    ``groups``: the kernel group of each launch (row order of ``launches``)."""
    r = analysis.roofline
    r = r[(r["level"] == POINT_LEVEL) & r["precision"].isin(POINT_PRECISIONS)]
    if r.empty:
        return pd.DataFrame(columns=_POINT_COLUMNS)
    lv = analysis.launches.reset_index(drop=True)
    rows = launch_positions(r, launch_index(lv))
    seconds = lv["duration_ns"].astype(float).to_numpy() * launch_weights(lv) / 1e9
    ok = rows >= 0
    idx = rows[ok]
    r = r[ok]
    s = seconds[idx]
    flop = r["achieved_flops"].to_numpy(dtype=float) * s
    byte = r["achieved_bytes_per_s"].to_numpy(dtype=float) * s
    has_flop, has_byte = ~np.isnan(flop), ~np.isnan(byte)
    frame = pd.DataFrame(
        {
            "group": groups.to_numpy()[idx],
            "precision": r["precision"].astype(str).to_numpy(),
            "flop": flop,
            "byte": byte,
            "flop_seconds": np.where(has_flop, s, np.nan),
            "byte_seconds": np.where(has_byte, s, np.nan),
            "flop_both": np.where(has_byte, flop, np.nan),
            "byte_both": np.where(has_flop, byte, np.nan),
            "peak_flops": r["peak_flops"].to_numpy(dtype=float),
            "peak_bytes_per_s": r["peak_bytes_per_s"].to_numpy(dtype=float),
        }
    )
    g = frame.groupby(["group", "precision"], sort=False)
    summed = ("flop", "byte", "flop_seconds", "byte_seconds", "flop_both", "byte_both")
    out = g.agg(
        **{c: (c, lambda x: x.sum(min_count=1)) for c in summed},  # none measured: NaN, not zero
        peak_flops=("peak_flops", "max"),
        peak_bytes_per_s=("peak_bytes_per_s", "max"),
    )
    result: pd.DataFrame = out.reset_index()
    return result


def _hint_sets(analysis: Analysis, groups: pd.Series) -> pd.DataFrame:
    """Distinct hints per group: group, hint, severity, source, message (the first launch's)."""
    h = analysis.hints
    cols = ["group", "hint", "severity", "source", "message"]
    if h.empty:
        return pd.DataFrame(columns=cols)
    at = launch_positions(h, launch_index(analysis.launches))  # -1 (no launch): no group
    frame = pd.DataFrame(
        {
            "group": pd.Series(groups.to_numpy()).reindex(at).to_numpy(),
            "hint": h["hint"].astype(str).to_numpy(),
            "severity": h["severity"].astype(object).to_numpy(),
            "source": h["source"].astype(object).to_numpy(),
            "message": h["message"].astype(object).to_numpy(),
        }
    )
    result: pd.DataFrame = frame[frame["group"].notna()].drop_duplicates(["group", "hint"]).reset_index(drop=True)
    return result


def roofline_points(points_b: pd.DataFrame, points_a: pd.DataFrame) -> pd.DataFrame:
    """Per kernel group, its roofline point on both sides at the precision with the most FLOPs over both
    (none where neither side has FLOPs): the KERNEL_COLUMNS from ``precision`` to ``peak_bytes_per_s``,
    indexed by group. Roofs are BEFORE's where it has them, else AFTER's."""
    cols = ["precision", "before_intensity", "after_intensity", "before_flops", "after_flops",
            "before_bytes_per_s", "after_bytes_per_s", "peak_flops", "peak_bytes_per_s"]  # fmt: skip
    both = pd.concat([points_b.assign(side="before"), points_a.assign(side="after")], ignore_index=True)
    if both.empty:
        return pd.DataFrame(columns=cols)
    flop = both.groupby(["group", "precision"], sort=False)["flop"].sum()
    flop = flop[flop > 0]
    if flop.empty:
        return pd.DataFrame(columns=cols)
    best = flop.groupby(level="group", sort=False).idxmax().map(lambda key: key[1]).rename("precision")
    chosen = both.merge(best.reset_index(), on=["group", "precision"], how="inner")
    chosen = chosen.assign(
        flops=chosen["flop"] / chosen["flop_seconds"].where(chosen["flop_seconds"] > 0),
        bytes_per_s=chosen["byte"] / chosen["byte_seconds"].where(chosen["byte_seconds"] > 0),
        intensity=chosen["flop_both"] / chosen["byte_both"].where(chosen["byte_both"] > 0),
    )
    wide = chosen.pivot(index="group", columns="side", values=["flops", "bytes_per_s", "intensity"])
    out = pd.DataFrame(index=best.index)
    out["precision"] = best
    for side in ("before", "after"):
        for value in ("intensity", "flops", "bytes_per_s"):
            out[f"{side}_{value}"] = wide[(value, side)] if (value, side) in wide.columns else np.nan
    roofs = chosen.sort_values("side", key=lambda s: s.map({"before": 0, "after": 1}), kind="stable")
    roofs = roofs.groupby("group", sort=False)[["peak_flops", "peak_bytes_per_s"]].first()
    out = out.join(roofs)
    result: pd.DataFrame = out[cols]
    return result


def _group_labels(pairs: pd.DataFrame, n_before: int, n_after: int, matches: pd.DataFrame) -> tuple[pd.Series, ...]:
    """The kernel group (pairs' ``kernel``) of every launch of each side, in row order."""
    gb = pd.Series([None] * n_before, dtype=object)
    ga = pd.Series([None] * n_after, dtype=object)
    pb, pa_ = matches["before_pos"].to_numpy(), matches["after_pos"].to_numpy()
    kernel = pairs["kernel"].astype(object).to_numpy()
    gb.iloc[pb[pb >= 0]] = kernel[pb >= 0]
    ga.iloc[pa_[pa_ >= 0]] = kernel[pa_ >= 0]
    return gb, ga


def _measured(analysis: Analysis, groups: pd.Series) -> dict[object, frozenset[str]]:
    """Per kernel group, the quantities measured (not NaN) for at least one of its launches."""
    q = analysis.quantities.reindex(launch_index(analysis.launches))
    present = q.notna().to_numpy()
    names = np.array([str(c) for c in q.columns])
    out: dict[object, frozenset[str]] = {}
    for group, rows in pd.Series(np.arange(len(groups))).groupby(groups.to_numpy(), sort=False):
        out[group] = frozenset(names[present[rows.to_numpy()].any(axis=0)]) if len(names) else frozenset()
    return out


def kernel_changes(
    before: Analysis, after: Analysis, pairs: pd.DataFrame, matches: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """KERNEL_COLUMNS (one row per kernel of either side) and HINT_DIFF_COLUMNS.

    A hint that appeared (went away) is ``comparable`` only where the side without it measured every quantity
    the side with it did for that kernel, and, for ncu's own rules, has rule results at all: otherwise it may
    just not have been measurable there (reports made with different sections)."""
    sb, sa = _side(before), _side(after)
    gb, ga = _group_labels(pairs, len(sb), len(sa), matches)
    sb["group"], sa["group"] = gb.to_numpy(), ga.to_numpy()
    by_b = dict(tuple(sb.groupby("group", sort=False)))
    by_a = dict(tuple(sa.groupby("group", sort=False)))
    points = roofline_points(_points(before, gb), _points(after, ga))
    hints_b = {g: f.set_index("hint") for g, f in _hint_sets(before, gb).groupby("group", sort=False)}
    hints_a = {g: f.set_index("hint") for g, f in _hint_sets(after, ga).groupby("group", sort=False)}
    measured_b, measured_a = _measured(before, gb), _measured(after, ga)
    rules_b, rules_a = len(before.report.rules) > 0, len(after.report.rules) > 0
    empty_side, empty_hints = sb.iloc[0:0], pd.DataFrame()
    rows = []
    hint_rows = []
    for group, part in pairs.groupby("kernel", sort=False, dropna=False):
        lb, la = by_b.get(group, empty_side), by_a.get(group, empty_side)
        n_match = int(part.loc[part["status"] == MATCHED, "invocations"].sum())
        bns, ans = _time_ns(lb["duration_ns"]), _time_ns(la["duration_ns"])
        some_untimed = lb["duration_ns"].isna().any() or la["duration_ns"].isna().any()
        if some_untimed and not (math.isnan(bns) or math.isnan(ans)):
            # launches without a duration on a side, some with: the two sums would add up different launches;
            # the kernel is compared over its matched launches timed on both sides (none: not compared). A side
            # with none timed keeps the other's time, and no change.
            both = _timed_on_both_sides(part)
            bns, ans = _time_ns(both["before_duration_ns"]), _time_ns(both["after_duration_ns"])
        if la.empty or lb.empty:
            status = BEFORE_ONLY if la.empty else AFTER_ONLY
        else:
            status = MATCHED if n_match == lb["invocations"].sum() == la["invocations"].sum() else "partly matched"
        row: dict[str, object] = {
            "kernel": group,
            "display_name": part["display_name"].iloc[0],
            "status": status,
            "before_launches": int(lb["invocations"].sum()),  # a summary page's row counts its invocations
            "after_launches": int(la["invocations"].sum()),
            "matched_launches": n_match,
            "before_ns": bns,
            "after_ns": ans,
            # a side without the kernel counts 0; a side with it and no duration measured leaves no change
            "delta_ns": (0.0 if la.empty else ans) - (0.0 if lb.empty else bns),
            "change": ans / bns - 1.0 if bns > 0 and not math.isnan(ans) else math.nan,
            "speedup": bns / ans if ans > 0 and not math.isnan(bns) else math.nan,
        }
        for side, lx in (("before", lb), ("after", la)):
            for col, out in (("limiter", "limiter"), ("compute_pipe", "pipe"), ("regime", "regime")):
                row[f"{side}_{out}"] = dominant(lx[col], lx["duration_ns"]) if len(lx) else None
        if group in points.index:
            row.update({str(k): v for k, v in points.loc[group].items()})
        hb, ha = hints_b.get(group, empty_hints), hints_a.get(group, empty_hints)
        # ncu's own rules are compared only where both sides have rule results (a raw page has none): else every
        # rule of the side that has them would read as a change (the caveat says so once)
        appeared = [h for h in ha.index if h not in hb.index and (rules_b or ha.loc[h, "source"] != "ncu")]
        gone = [h for h in hb.index if h not in ha.index and (rules_a or hb.loc[h, "source"] != "ncu")]
        appeared, gone = (appeared if len(lb) else []), (gone if len(la) else [])
        row["hints_appeared"] = ", ".join(appeared) or None
        row["hints_gone"] = ", ".join(gone) or None
        mb, ma = measured_b.get(group, frozenset()), measured_a.get(group, frozenset())
        for status_, ids, src, lacks, has_rules in (
            ("appeared", appeared, ha, bool(ma - mb), rules_b),
            ("gone", gone, hb, bool(mb - ma), rules_a),
        ):
            for h in ids:
                source = src.loc[h, "source"]
                hint_rows.append(
                    {
                        "kernel": group,
                        "display_name": row["display_name"],
                        "hint": h,
                        "status": status_,
                        "comparable": not lacks and (has_rules or source != "ncu"),
                        "severity": src.loc[h, "severity"],
                        "source": source,
                        "message": src.loc[h, "message"],
                    }
                )
        rows.append(row)
    kernels = pd.DataFrame(rows, columns=list(KERNEL_COLUMNS))
    if len(kernels):
        size = kernels["delta_ns"].abs()
        biggest = kernels[["before_ns", "after_ns"]].max(axis=1)
        kernels = kernels.assign(_size=size, _big=biggest).sort_values(
            ["_size", "_big"], ascending=[False, False], kind="stable"
        )
        kernels = kernels.drop(columns=["_size", "_big"])
    kernels = kernels.astype(KERNEL_COLUMNS).reset_index(drop=True)
    hints = pd.DataFrame(hint_rows, columns=list(HINT_DIFF_COLUMNS)).astype(HINT_DIFF_COLUMNS)
    return kernels, hints


# -------------------------------------------------------------------------------------------------- total


def _metric_names(analysis: Analysis) -> set[str]:
    values = analysis.report.values
    present = np.asarray(values.notna().to_numpy().any(axis=0), dtype=bool)
    return {str(c) for c, p in zip(values.columns, present.tolist(), strict=True) if p}


def caveats(before: Analysis, after: Analysis) -> list[str]:
    """Why a change may not come from the code: different metrics collected, launches without a duration, GPUs,
    ncu versions."""
    out = []
    mb, ma = _metric_names(before), _metric_names(after)
    only_b, only_a = len(mb - ma), len(ma - mb)
    both = len(before.launches) > 0 and len(after.launches) > 0  # a side without launches measured nothing
    if both and (only_b or only_a):
        out.append(
            f"the reports carry different metrics ({only_b} only in BEFORE, {only_a} only in AFTER): "
            "a limiter or hint that needs one of them can change for that reason alone; "
            "profile both with the same sections for a like-for-like comparison"
        )
    db = sorted({str(x) for x in before.launches["device_name"].dropna()})
    da = sorted({str(x) for x in after.launches["device_name"].dropna()})
    if db and da and db != da:
        out.append(f"different GPUs: BEFORE ran on {', '.join(db)}, AFTER on {', '.join(da)}")
    rb, ra = len(before.report.rules) > 0, len(after.report.rules) > 0
    if rb != ra:
        side, other = ("AFTER", "BEFORE") if rb else ("BEFORE", "AFTER")
        out.append(
            f"{side} has no ncu rule results (a raw or summary page), so ncu's own rules are not compared: "
            f"those of {other} are not listed as changes; export the details page of both for them"
        )
    ub, ua = untimed_launches(before), untimed_launches(after)  # a summary page's group: its invocations
    if ub or ua:
        out.append(
            f"launches without a duration ({ub} in BEFORE, {ua} in AFTER; no duration metric collected): the GPU "
            "times add up the launches measured, and a kernel with none measured has no time"
        )
    sides = (("BEFORE", before), ("AFTER", after))
    grouped = [(side, _copies(a)) for side, a in sides if _summary_page(a)]
    # rows of groups against rows of launches: the pairs are not launch for launch (where a group has several)
    if len(grouped) == 1 and (grouped[0][1] > 1).any():
        side, copies = grouped[0]
        groups = "group" if len(copies) == 1 else "groups"
        out.append(
            f"{side} is a summary page ({len(copies)} {groups} of {int(copies.sum())} "
            "launches), the other side launches: each launch is paired with one launch of a group, whose duration "
            "is the group's mean, so compare the kernels' GPU time rather than the matched launches; export the "
            "same page of both for a launch-by-launch comparison"
        )
    for side, a in (("BEFORE", before), ("AFTER", after)):  # a page cut short, a value twice, an input twice
        out.extend(f"{side}: {text}" for text in read_warnings(a.report))
    vb = sorted({str(x) for x in before.report.source["ncu_version"].dropna()})
    va = sorted({str(x) for x in after.report.source["ncu_version"].dropna()})
    if vb and va and vb != va:
        out.append(f"different ncu versions: BEFORE {', '.join(vb)}, AFTER {', '.join(va)}")
    return out


def _name(analysis: Analysis) -> str:
    return "+".join(str(x) for x in analysis.report.source["report"].dropna()) or "report"


def _summary_page(analysis: Analysis) -> bool:
    """Whether ``analysis`` is of a summary page (a row per group of launches): its flavour says so, or a row stands
    for several launches."""
    flavours = analysis.report.source["flavour"].dropna().astype(str)
    return bool(flavours.str.contains("summary").any()) or bool((_copies(analysis) != 1).any())


def untimed_launches(analysis: Analysis) -> int:
    """The launches of ``analysis`` without a measured duration (a summary page's row: its invocations): GPU time
    that no total includes."""
    lv = analysis.launches
    if not len(lv):
        return 0
    return int(_copies(analysis)[lv["duration_ns"].isna().to_numpy()].sum())


def _timed_on_both_sides(pairs: pd.DataFrame) -> pd.DataFrame:
    """The matched pairs (rows of PAIR_COLUMNS) whose launches were timed on both sides: the launches whose GPU
    times compare like with like."""
    keep = (
        (pairs["status"] == MATCHED).to_numpy(dtype=bool)
        & pairs["before_duration_ns"].notna().to_numpy()
        & pairs["after_duration_ns"].notna().to_numpy()
    )
    return pairs[keep]


def _time_ns(durations: pd.Series) -> float:
    """The GPU time of some launches: the sum of the durations measured; NaN (not measured, never zero) where
    none is, or where there are no launches."""
    d = durations.to_numpy(dtype=np.float64, na_value=np.nan)
    return float(np.nansum(d)) if (~np.isnan(d)).any() else math.nan


def compare(
    before: Analysis, after: Analysis, *, before_name: str | None = None, after_name: str | None = None
) -> Diff:
    """Compare two analyses of the same program (see the module docstring for how launches are matched)."""
    matches = match_launches(before, after)
    pairs = launch_pairs(before, after, matches)
    kernels, hints = kernel_changes(before, after, pairs, matches)
    sb, sa = _side(before), _side(after)
    m = pairs[pairs["status"] == MATCHED]
    timed = _timed_on_both_sides(pairs)
    total = Total(
        before_ns=_time_ns(sb["duration_ns"]),
        after_ns=_time_ns(sa["duration_ns"]),
        before_launches=int(sb["invocations"].sum()),
        after_launches=int(sa["invocations"].sum()),
        matched=int(m["invocations"].sum()),
        before_only=int(pairs.loc[pairs["status"] == BEFORE_ONLY, "invocations"].sum()),
        after_only=int(pairs.loc[pairs["status"] == AFTER_ONLY, "invocations"].sum()),
        matched_before_ns=_time_ns(timed["before_duration_ns"]),
        matched_after_ns=_time_ns(timed["after_duration_ns"]),
        untimed=untimed_launches(before) + untimed_launches(after),
    )
    return Diff(
        before=before,
        after=after,
        before_name=before_name or _name(before),
        after_name=after_name or _name(after),
        pairs=pairs,
        kernels=kernels,
        hints=hints,
        total=total,
        caveats=_nothing_matched(total) + caveats(before, after),
    )


def _nothing_matched(total: Total) -> list[str]:
    """The first caveat where no launch of one side matched one of the other (both have launches): the totals
    still compare what each side ran (a rewrite that renamed every kernel), but nothing else is paired."""
    if total.matched or not (total.before_launches and total.after_launches):
        return []
    return [
        "no launch matched (no kernel name in common): the totals compare whatever each side ran, kernel by kernel "
        "nothing is paired; are BEFORE and AFTER the same program?"
    ]
