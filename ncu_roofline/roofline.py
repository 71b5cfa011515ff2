"""The hierarchical roofline: per launch, per precision and memory level, the point ncu's charts draw.

Formulas (those of the stock ``SpeedOfLight_Hierarchical{Double,Single,Half,Tensor}RooflineChart`` sections,
ncu 2025.3.1; ``tests/test_roofline.py`` checks them against the charts' own body items on every launch of
the H200 samples). <op> stands for ``smsp__sass_thread_inst_executed_op_<op>_pred_on.sum.per_cycle_elapsed``;
the sections' own ``derived__*_x2``/``_x4`` metrics are read first where present (same numbers):

=========  ========================================================================================
precision  achieved work [FLOP/s]
=========  ========================================================================================
fp64       (dadd + dmul + 2 x dfma) x ``smsp__cycles_elapsed.avg.per_second``
fp32       (fadd + fmul + 2 x ffma) x ``smsp__cycles_elapsed.avg.per_second``
fp16       (2 x hadd + 2 x hmul + 4 x hfma) x ``smsp__cycles_elapsed.avg.per_second``  (the chart's
           "HADD/HMUL Thread Instructions Executed Per Cycle" items are already the x2 values)
tensor     ``sm__ops_path_tensor_<series>.sum.per_cycle_elapsed`` x ``sm__cycles_elapsed.avg.per_second``
           (ncu counts tensor *operations*: FLOP for float sources, integer ops for int8/int1)
=========  ========================================================================================

Achieved work uses the SMSP clock because the counters are SMSP sums per SMSP cycle and the sections'
``AchievedWork`` names ``smsp__cycles_elapsed.avg.per_second``; the peaks (``ncu_roofline.device``) use
``sm__cycles_elapsed.avg.per_second``, as the sections' ``PeakWork`` does. The two clocks are one clock domain
and equal on every launch of the samples (and the chart labels both "SM Frequency"), so the distinction is
the sections', not something the samples can show. Tensor work is an SM counter per SM cycle: SM clock.

=====  ==========================================================================================
level  achieved traffic [byte/s]
=====  ==========================================================================================
dram   ``dram__bytes.sum.per_second``
l2     ``lts__lts2xbar_cycles_active.sum.per_second`` x 32 (``derived__lts__lts2xbar_bytes.sum.per_second``)
l1     ``l1tex__lsu_writeback_active_mem_lgds.sum.per_second`` x 128 (``_mem_lg`` before CC 9.0): global and
       local loads and stores that reach L1TEX, as in the chart's "L1 ... (Global/Local)"
=====  ==========================================================================================

Derived per row: intensity = achieved_flops / achieved_bytes_per_s (FLOP/byte); ridge_intensity =
peak_flops / peak_bytes_per_s; attainable_flops = min(peak_flops, intensity x peak_bytes_per_s);
roof_fraction = achieved_flops / attainable_flops; bandwidth_fraction = achieved_bytes_per_s /
peak_bytes_per_s; compute_fraction = achieved_flops / peak_flops; bound = "memory" if intensity <
ridge_intensity else "compute" (<NA> when the intensity is undefined: no work and no traffic). With no
traffic and some work the intensity is +inf and the point is compute bound; with no work the roof fraction
is NaN (no point on the chart).

Tensor rows: ncu draws one roof per tensor *series* (an instruction x source type x sparsity, e.g.
``op_hmma_src_bf16_dst_fp32_sparsity_off``, plus per-source aggregates such as ``src_bf16_dst_fp32``). With
``tensor="dominant"`` (default) each launch gets one tensor row per level, for the series that did the most
work, preferring per-instruction series (their roof is the one the instruction can reach; the aggregates'
roof includes sparse MMA); a launch without tensor work gets ``DEFAULT_TENSOR_SERIES``. ``tensor="all"``
gives one row per series the report has, as the chart does. Columns ``dtype`` (source type) and ``series``
say which; fp rows have dtype = precision and series <NA>.
"""

from __future__ import annotations

from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from ncu_roofline.device import (
    TENSOR_DTYPES,
    TensorSeries,
    float_column,
    parse_series,
    tensor_series,
)
from ncu_roofline.quantities import (
    FLOP_PER_INSTRUCTION,
    RECIPES,
    TENSOR_FLOP_PER_INSTRUCTION,
    TENSOR_WORK,
    derive,
    series_values,
)
from ncu_roofline.thresholds import FP16_MOVE_NOISE, FP16_MOVE_SHARE
from ncu_roofline.vector import per_distinct, strings, taken

PRECISIONS: tuple[str, ...] = ("fp64", "fp32", "fp16", "tensor")
LEVELS: tuple[str, ...] = ("dram", "l2", "l1")

#: Tensor series for a launch with no tensor work (first the report has): the dense BF16 roof of the
#: fastest MMA path on Hopper, then Ampere/Ada's; the figure a user compares a tensor kernel against.
DEFAULT_TENSOR_SERIES: tuple[str, ...] = (
    "op_hgmma_src_bf16_dst_fp32_sparsity_off",
    "op_hmma_src_bf16_dst_fp32_sparsity_off",
    "op_hmma_src_fp16_dst_fp32_sparsity_off",
    "op_hmma_src_fp16_dst_fp32",
    "src_bf16_dst_fp32",
    "src_fp16",
)
#: Tensor data type assumed when the report has no tensor metrics at all (peak from table/override).
DEFAULT_TENSOR_DTYPE = "bf16"

ROOFLINE_COLUMNS: dict[str, str] = {
    "report": "string",
    "process_id": "Int64",
    "launch_id": "Int64",
    "precision": "string",
    "level": "string",
    "dtype": "string",
    "series": "string",
    "achieved_flops": "float64",
    "achieved_bytes_per_s": "float64",
    "intensity": "float64",
    "peak_flops": "float64",
    "peak_bytes_per_s": "float64",
    "ridge_intensity": "float64",
    "attainable_flops": "float64",
    "roof_fraction": "float64",
    "bandwidth_fraction": "float64",
    "compute_fraction": "float64",
    "bound": "string",
    "work_recipe": "string",  # how achieved_flops was computed (RECIPES name, or "ncu chart body items")
    "traffic_recipe": "string",  # how achieved_bytes_per_s was computed
    "estimate": "boolean",  # achieved_flops rests on an assumption (tensor FLOP per instruction)
}


def counted_precisions(values: pd.DataFrame, duration: pd.Series) -> set[str]:
    """The FP precisions (fp64, fp32, fp16) whose instruction counts some launch of ``values`` (a report's wide
    values) has, while no launch with them has a ``duration`` (by launch, its index): the metrics of the
    precision's recipes that divide by the duration (``quantities.RECIPES``: the NERSC counts). Work collected
    without the time to make FLOP/s of it."""
    timed = duration.notna().to_numpy()
    if timed.all():
        return set()
    found = set()
    for precision in FLOP_PER_INSTRUCTION:
        recipes = RECIPES[f"{precision}_flops"]
        names = [m for r in recipes if r.per == "duration" for m in r.metrics() if m in values.columns]
        if not names:
            continue
        counted = values[names].reindex(duration.index).notna().any(axis=1).to_numpy()
        if counted.any() and not (counted & timed).any():
            found.add(precision)
    return found


def achieved_flops(values: pd.DataFrame, precision: str) -> pd.Series:
    """Achieved FLOP/s of one FP precision (fp64, fp32, fp16): the chart's per-cycle rates x clock, else the
    NERSC instruction counts / duration (``ncu_roofline.quantities.RECIPES``)."""
    return pd.Series(derive(values, f"{precision}_flops")[0], index=values.index)


def achieved_traffic(values: pd.DataFrame, level: str) -> pd.Series:
    """Achieved bytes/s at one memory level (dram, l2, l1), by the first recipe of ``RECIPES`` a launch has."""
    return pd.Series(derive(values, f"{level}_bytes_per_s")[0], index=values.index)


def _tensor_estimate(values: pd.DataFrame, cc: pd.Series | None, per_s: np.ndarray) -> pd.Series:
    """Estimated tensor FLOP/s from the tensor-pipe instructions per second (``per_s``, derived by the caller) x
    the architecture's FLOP per instruction (``TENSOR_FLOP_PER_INSTRUCTION``); NaN where either is unknown."""
    inst = pd.Series(per_s, index=values.index)
    if cc is None:
        return inst * np.nan
    # once per distinct compute capability
    factor = per_distinct(
        cc.reindex(values.index).to_numpy(dtype=object), lambda c: TENSOR_FLOP_PER_INSTRUCTION.get(str(c), np.nan)
    )
    out: pd.Series = inst * factor.astype(float)
    return out


def tensor_achieved(values: pd.DataFrame, series: list[TensorSeries]) -> pd.DataFrame:
    """Achieved tensor ops/s per series (columns = series names), per launch: the metric table's
    ``tensor_{series}_flops`` work row (``ncu_roofline.quantities.TENSOR_WORK``)."""
    data = series_values(values, TENSOR_WORK, [s.name for s in series])
    out: pd.DataFrame = pd.DataFrame(data, index=values.index, dtype=float, columns=[s.name for s in series])
    return out


def dominant_tensor_series(values: pd.DataFrame) -> pd.Series:
    """Per launch, the tensor series of its tensor row (see the module docstring); <NA> without metrics."""
    series = tensor_series(values)
    out: pd.Series = pd.Series(pd.NA, index=values.index, dtype="string")
    if not series:
        return out
    work = tensor_achieved(values, series)
    names = [s.name for s in series]
    default = next((n for n in DEFAULT_TENSOR_SERIES if n in names), None)
    if default is None:
        dense = [s.name for s in series if s.op is not None and s.sparsity != "on"]
        default = dense[0] if dense else names[0]
    per_op = [s.name for s in series if s.op is not None]
    chosen = np.full(len(values.index), default, dtype=object)
    decided = np.zeros(len(values.index), dtype=bool)
    for group in (per_op, names):  # the series with the most work, per-instruction series first
        if not group:
            continue
        w = work[group].fillna(0.0).to_numpy(dtype=np.float64)
        busiest = w.argmax(axis=1)  # the first of equal maxima, as idxmax
        pick = ~decided & (w.max(axis=1) > 0.0)
        chosen[pick] = np.asarray(group, dtype=object)[busiest[pick]]
        decided |= pick
    return pd.Series(pd.array(chosen, dtype="string"), index=values.index)


def roofline(
    values: pd.DataFrame,
    peaks: pd.DataFrame,
    *,
    tensor: Literal["dominant", "all"] = "dominant",
    cc: pd.Series | None = None,
) -> pd.DataFrame:
    """The long roofline frame: one row per launch x precision x level (x tensor series).

    Takes ``Report.values`` (wide, index ``LAUNCH_KEY``) and the peaks of
    ``ncu_roofline.device.resolve_peaks`` (same index). Returns ``ROOFLINE_COLUMNS``: report, process_id,
    launch_id, precision (fp64, fp32, fp16, tensor), level (dram, l2, l1), dtype, series, achieved_flops
    [FLOP/s], achieved_bytes_per_s, intensity [FLOP/byte], peak_flops, peak_bytes_per_s, ridge_intensity,
    attainable_flops, roof_fraction, bandwidth_fraction, compute_fraction (fractions 0..1), bound
    ("memory"/"compute"). Rows are in launch order, then PRECISIONS, then LEVELS (``tensor="all"``: the
    tensor rows per series, in series-name order). Missing metrics give NaN, never zero. ``work_recipe`` and
    ``traffic_recipe`` name the recipe of each figure; ``cc`` (compute capability per launch, same index)
    lets a report without tensor operation counts estimate tensor work from tensor-pipe instructions
    (``estimate`` true on those rows).
    """
    if tensor not in ("dominant", "all"):
        raise ValueError(f"tensor must be 'dominant' or 'all', not {tensor!r}")
    peaks = peaks.reindex(values.index)
    n = len(values.index)
    # one entry per column and part (a precision x level block of every launch), in the order the rows take:
    # numbers as arrays; texts as a scalar (the same on every launch) or an object array, taken by codes below
    columns: dict[str, list[Any]] = {c: [] for c in _PART_COLUMNS}
    done: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    traffic = {lv: derive(values, f"{lv}_bytes_per_s", done) for lv in LEVELS}
    traffic_recipe = {lv: np.asarray(traffic[lv][1], dtype=object) for lv in LEVELS}
    none = np.full(n, None, dtype=object)
    peak_bw = {lv: float_column(peaks, f"{lv}_bytes_per_s").to_numpy(dtype=float) for lv in LEVELS}

    def block(
        prec: str,
        *,
        dtype: str | pd.Series,
        series: str | pd.Series | None,
        work: pd.Series | np.ndarray,
        peak: pd.Series,
        order: float,
        recipe: np.ndarray = none,
        estimate: bool = False,
    ) -> None:
        # ``order``: the parts are added in the order of their rows within a launch (PRECISIONS, then the
        # tensor series), which the assembly below keeps
        # converted once per block: its levels share the arrays (and ``_part_texts`` their codes)
        no_recipe = pd.isna(recipe)
        part_work = np.asarray(work, dtype=float)
        part_peak = peak.to_numpy(dtype=float)
        part_dtype = dtype if isinstance(dtype, str) else dtype.to_numpy(dtype=object)
        part_series = series if series is None or isinstance(series, str) else series.to_numpy(dtype=object)
        part_recipe = np.asarray(recipe, dtype=object)
        for lv in LEVELS:
            part = {
                "precision": prec,
                "level": lv,
                "dtype": part_dtype,
                "series": part_series,
                "achieved_flops": part_work,
                "achieved_bytes_per_s": np.asarray(traffic[lv][0], dtype=float),
                "work_recipe": part_recipe,
                "traffic_recipe": traffic_recipe[lv],
                "estimate": (estimate, no_recipe),  # the value, and where it is <NA>
                "peak_flops": part_peak,
                "peak_bytes_per_s": peak_bw[lv],
            }
            for c, v in part.items():
                columns[c].append(v)

    for pi, prec in enumerate(PRECISIONS[:3]):
        block(
            prec,
            dtype=prec,
            series=None,
            work=derive(values, f"{prec}_flops", done)[0],
            peak=float_column(peaks, f"{prec}_flops"),
            order=float(pi),
            recipe=derive(values, f"{prec}_flops", done)[1],
        )

    series = tensor_series(values)
    by_name = {s.name: s for s in series}
    work = tensor_achieved(values, series)
    tensor_recipe = _where(work.notna().any(axis=1).to_numpy(), TENSOR_OPS_RECIPE, None) if series else none
    if not series:
        dtype_peak = float_column(peaks, f"tensor_{DEFAULT_TENSOR_DTYPE}_flops")
        inst_per_s, est_recipe = derive(values, "tensor_inst_per_s", done)
        estimate = _tensor_estimate(values, cc, inst_per_s)
        block(
            "tensor",
            dtype=DEFAULT_TENSOR_DTYPE,
            series=None,
            work=estimate,
            peak=dtype_peak,
            order=3.0,
            recipe=_where(estimate.notna().to_numpy(), est_recipe, None),
            estimate=True,
        )
    elif tensor == "all":
        for si, s in enumerate(series):
            block(
                "tensor",
                dtype=s.dtype,
                series=s.name,
                work=work[s.name],
                peak=_series_peak(peaks, s),
                order=3.0 + si / (len(series) + 1),
                recipe=_where(work[s.name].notna().to_numpy(), TENSOR_OPS_RECIPE, None),
            )
    else:
        chosen = dominant_tensor_series(values)
        w = pd.Series(np.nan, index=values.index)
        p = pd.Series(np.nan, index=values.index)
        d = pd.Series(pd.NA, index=values.index, dtype=object)
        for name in sorted(set(chosen.dropna().astype(str))):
            rows = (chosen == name).fillna(False).to_numpy()
            s = by_name[name]
            w[rows] = work[name][rows]
            p[rows] = _series_peak(peaks, s)[rows]
            d[rows] = s.dtype
        block("tensor", dtype=d, series=chosen, work=w, peak=p, order=3.0, recipe=tensor_recipe)

    # launch-major: row (launch i, part p) of P parts is i * P + p (the parts' (order, level) keys ascend), so
    # a launch x part matrix, flattened, is the column
    parts = len(columns["precision"])
    frame: dict[str, Any] = {}
    for c, v in columns.items():
        if c == "estimate":
            known = np.stack([np.full(n, bool(e)) for e, _ in v], axis=1).ravel() if v else np.zeros(0, bool)
            mask = np.stack([np.asarray(m, dtype=bool) for _, m in v], axis=1).ravel() if v else np.zeros(0, bool)
            frame[c] = pd.arrays.BooleanArray(known, mask)
        elif c in _NUMBER_COLUMNS:
            frame[c] = np.stack(v, axis=1).ravel() if v else np.zeros(0)
        else:
            frame[c] = _part_texts(v, n)
    keys = values.index.to_frame(index=False)
    launch_of_row = np.repeat(np.arange(n), parts)
    frame["report"] = _report_column(values.index, keys, launch_of_row)
    for k in ("process_id", "launch_id"):
        frame[k] = keys[k].astype("Int64").array.take(launch_of_row)
    return _derive(frame)


def _report_column(index: pd.Index, keys: pd.DataFrame, rows: np.ndarray) -> Any:
    """The ``report`` key of each roofline row (``rows``: its launch's position in ``index``), as the string
    dtype: taken by the MultiIndex's own codes where its report names are text, else from the key column."""
    if isinstance(index, pd.MultiIndex) and "report" in index.names:
        level = index.names.index("report")
        names = index.levels[level]
        if all(isinstance(x, str) for x in names):
            return taken(list(names), np.asarray(index.codes[level], dtype=np.int64)[rows])
    return pd.array(keys["report"].to_numpy(dtype=object), dtype="string").take(rows)


def _where(mask: np.ndarray, yes: Any, no: Any) -> np.ndarray:
    """An object array: ``yes`` (scalar or array) where ``mask``, else ``no``."""
    out = np.full(len(mask), no, dtype=object)
    picked = np.asarray(yes, dtype=object)
    out[mask] = picked[mask] if picked.ndim else picked
    return out


#: Recipe name of tensor work measured by ncu's per-series operation counters (the metric table's row).
TENSOR_OPS_RECIPE = TENSOR_WORK.recipes[0].name


def _series_peak(peaks: pd.DataFrame, s: TensorSeries) -> pd.Series:
    """The roof of one tensor series: its own peak column, else the dense figure of its data type."""
    own = float_column(peaks, f"tensor_{s.name}_flops")
    if s.dtype in TENSOR_DTYPES and s.sparsity != "on":
        own = own.where(own.notna(), float_column(peaks, f"tensor_{s.dtype}_flops"))
    return own


#: Columns of a roofline part before the derived figures (``_derive``).
_PART_COLUMNS = (
    "precision",
    "level",
    "dtype",
    "series",
    "achieved_flops",
    "achieved_bytes_per_s",
    "work_recipe",
    "traffic_recipe",
    "estimate",
    "peak_flops",
    "peak_bytes_per_s",
)
#: The numeric ones among them (float arrays per part).
_NUMBER_COLUMNS = ("achieved_flops", "achieved_bytes_per_s", "peak_flops", "peak_bytes_per_s")


def _part_texts(parts: list[Any], n: int) -> Any:
    """One text column of the roofline (string dtype), launch-major, from its parts: each a scalar (str or
    None, the same on every launch) or an object array of ``n``. The texts are few (precisions, levels,
    recipe names): each part becomes codes into one list of distinct texts, taken by Arrow."""
    if not parts:
        return strings(np.zeros(0, dtype=object))
    distinct: dict[str, int] = {}
    codes = np.empty((n, len(parts)), dtype=np.int64)
    coded: dict[int, np.ndarray] = {}  # by id: parts often share one array (a recipe on every level)
    for p, v in enumerate(parts):
        if v is None or isinstance(v, str):
            codes[:, p] = -1 if v is None else distinct.setdefault(v, len(distinct))
            continue
        if id(v) not in coded:
            at, uniques = pd.factorize(v)  # missing (None, NaN, <NA>): -1
            if any(not isinstance(u, str) for u in uniques):  # not text: converted the pandas way
                return strings(np.stack(_parts_as_objects(parts, n), axis=1).ravel())
            remap = np.array([*(distinct.setdefault(u, len(distinct)) for u in uniques), -1], dtype=np.int64)
            coded[id(v)] = remap[at]
        codes[:, p] = coded[id(v)]
    return taken(list(distinct), codes.ravel())


def _parts_as_objects(parts: list[Any], n: int) -> list[np.ndarray]:
    """The parts of ``_part_texts`` as object arrays of ``n``."""
    return [np.full(n, v, dtype=object) if v is None or isinstance(v, str) else v for v in parts]


#: The texts of the ``bound`` column.
_BOUNDS = ("memory", "compute")


def _derive(frame: pd.DataFrame | dict[str, Any]) -> pd.DataFrame:
    """ROOFLINE_COLUMNS from LAUNCH_KEY + ``_PART_COLUMNS`` (a frame, or a dict of equal-length arrays)."""
    w = np.asarray(frame["achieved_flops"], dtype=np.float64)
    b = np.asarray(frame["achieved_bytes_per_s"], dtype=np.float64)
    pw = np.asarray(frame["peak_flops"], dtype=np.float64)
    pb = np.asarray(frame["peak_bytes_per_s"], dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        intensity = np.where(b > 0, w / np.where(b > 0, b, 1.0), np.where(w > 0, np.inf, np.nan))
        intensity = np.where(np.isnan(w) | np.isnan(b), np.nan, intensity)
        ridge = pw / pb
        attainable = np.minimum(pw, intensity * pb)
        attainable = np.where(np.isinf(intensity) & (intensity > 0), pw, attainable)
        roof = np.where(attainable > 0, w / np.where(attainable > 0, attainable, 1.0), np.nan)
        roof = np.where(np.isnan(attainable), np.nan, roof)
        bw_frac = b / pb
        comp_frac = w / pw
    defined = ~(np.isnan(intensity) | np.isnan(ridge))
    with np.errstate(invalid="ignore"):
        bound = np.where(defined, np.where(intensity < ridge, 0, 1), -1)  # codes into _BOUNDS; -1: <NA>

    def typed(column: str, dtype: str = "string") -> Any:
        v = frame[column]
        if isinstance(v, (pd.Series, pd.api.extensions.ExtensionArray)):
            return pd.array(cast(Any, v), dtype=dtype)  # no copy when it has the type already
        if dtype == "string":
            return strings(np.asarray(v, dtype=object))
        return pd.array(cast(Any, np.asarray(v, dtype=object)), dtype=dtype)

    out = pd.DataFrame(
        {
            "report": typed("report"),
            "process_id": typed("process_id", "Int64"),
            "launch_id": typed("launch_id", "Int64"),
            "precision": typed("precision"),
            "level": typed("level"),
            "dtype": typed("dtype"),
            "series": typed("series"),
            "achieved_flops": w,
            "achieved_bytes_per_s": b,
            "intensity": intensity,
            "peak_flops": pw,
            "peak_bytes_per_s": pb,
            "ridge_intensity": ridge,
            "attainable_flops": attainable,
            "roof_fraction": roof,
            "bandwidth_fraction": bw_frac,
            "compute_fraction": comp_frac,
            "bound": taken(_BOUNDS, bound),
            "work_recipe": typed("work_recipe"),
            "traffic_recipe": typed("traffic_recipe"),
            "estimate": typed("estimate", "boolean"),
        }
    )
    # only the columns not built in their type already (astype of the whole frame copies every column)
    have = dict(zip(out.columns, out.dtypes, strict=True))
    wanted = {t: pd.api.types.pandas_dtype(t) for t in set(ROOFLINE_COLUMNS.values())}
    retype = {c: t for c, t in ROOFLINE_COLUMNS.items() if have[c] != wanted[t]}
    result: pd.DataFrame = out.astype(retype) if retype else out
    return result


__all__ = [
    "DEFAULT_TENSOR_SERIES",
    "LEVELS",
    "PRECISIONS",
    "ROOFLINE_COLUMNS",
    "achieved_flops",
    "achieved_traffic",
    "dominant_tensor_series",
    "parse_series",
    "roofline",
]


def fp16_register_moves(roof: pd.DataFrame) -> np.ndarray:
    """Per roofline row: True for FP16 rows that are not FP16 work, to leave off the FP16 chart.

    The compiler moves registers with HFMA2.MMA in integer and FP32 kernels, which ncu counts as FP16 FLOPs: an
    FP16 rate under FP16_MOVE_SHARE of the FP16 peak and below the launch's FP32/FP64 work, or under
    FP16_MOVE_NOISE with no other FP work, is such a move. Takes ROOFLINE_COLUMNS."""
    if not len(roof):
        return np.zeros(0, dtype=bool)
    keys = [roof[k] for k in ("report", "process_id", "launch_id")]
    prec = roof["precision"].astype("string").fillna("")
    flops = roof["achieved_flops"].to_numpy(dtype=np.float64)
    other = pd.Series(np.where(prec.isin(["fp32", "fp64"]).to_numpy(), flops, np.nan), index=roof.index)
    other_max = other.groupby(keys, dropna=False).transform("max").to_numpy(dtype=np.float64)
    frac = roof["compute_fraction"].to_numpy(dtype=np.float64)
    fp16 = (prec == "fp16").to_numpy()
    with np.errstate(invalid="ignore"):
        below = (frac < FP16_MOVE_SHARE) & (flops <= np.nan_to_num(other_max, nan=0.0))
        noise = frac < FP16_MOVE_NOISE
    out: np.ndarray = fp16 & (below | noise)
    return out
