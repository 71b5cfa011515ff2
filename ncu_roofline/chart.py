"""ncu's own hierarchical roofline points, read off the chart body items of a ``--print-details all`` page.

A details page made with ``--print-details all`` carries, per launch, chart and memory level, the inputs of
each point ncu draws (section "GPU Speed Of Light Hierarchical Roofline Chart (...)", body items
"DRAM Roofline", "L2 Achieved Value", "L1/TEX Cache Roofline (Op:hmma Src:bf16 ...)" ...), labelled but not
named. The chart's recipe (``RooflineChart`` in the stock section files) combines them:

=================  ==========================================================================================
peak work          "Theoretical ... Operations" (per cycle) x "SM Frequency" of the Roofline item
peak traffic       "Theoretical ... Bytes Accessible" (per cycle) x the level's "... Frequency"
achieved work      sum of the Achieved Value item's per-cycle work items x its "SM Frequency"
achieved traffic   the Achieved Value item's "... Bandwidth"
=================  ==========================================================================================

so the points equal ncu's by construction. Items are told apart by their label's role, not by the exact
wording, which changes between ncu versions. ``fill_from_chart`` puts these figures into a roofline frame
where the metrics gave none (a details page has no metric names for them).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .device import parse_series
from .model import LAUNCH_KEY
from .roofline import DEFAULT_TENSOR_SERIES, ROOFLINE_COLUMNS, _derive
from .vector import launch_positions, per_distinct

#: Chart section display name -> precision.
CHART_SECTIONS: dict[str, str] = {
    "GPU Speed Of Light Hierarchical Roofline Chart (Double Precision)": "fp64",
    "GPU Speed Of Light Hierarchical Roofline Chart (Single Precision)": "fp32",
    "GPU Speed Of Light Hierarchical Roofline Chart (Half Precision)": "fp16",
    "GPU Speed Of Light Hierarchical Roofline Chart (Tensor Core)": "tensor",
}
_ITEM = re.compile(
    r"^(?P<level>DRAM|L2|L1|L1/TEX)(?: Cache)? (?P<kind>Roofline|Achieved Value)(?: \((?P<series>.*)\))?$"
)
_LEVEL = {"DRAM": "dram", "L2": "l2", "L1": "l1", "L1/TEX": "l1"}
#: Recipe name the filled rows record.
CHART_RECIPE = "ncu chart body items"

CHART_COLUMNS: dict[str, str] = {
    "report": "string",
    "process_id": "Int64",
    "launch_id": "Int64",
    "precision": "string",
    "level": "string",
    "series": "string",
    "achieved_flops": "float64",
    "achieved_bytes_per_s": "float64",
    "peak_flops": "float64",
    "peak_bytes_per_s": "float64",
}


def series_name(label: str) -> str:
    """ncu's series label -> metric suffix: "Op:hmma Src:bf16 Dst:fp32 Sparsity:off" ->
    "op_hmma_src_bf16_dst_fp32_sparsity_off"; Turing's "Src:fp16,bf16,tf32 Dst:fp32" ->
    "src_fp16_bf16_tf32_dst_fp32"."""
    return "_".join(part.replace(":", "_").replace(",", "_").lower() for part in label.split())


def _role(kind: str, label: str) -> str:
    if label == "SM Frequency":
        return "sm_clock" if kind != "Roofline" else "peak_sm_clock"
    if kind == "Roofline":
        if label.startswith("Theoretical") and "Bytes" in label:
            return "peak_bytes"
        if label.startswith("Theoretical"):
            return "peak_ops"
        if label.endswith("Frequency"):
            return "memory_clock"
        return "other"
    if "Bandwidth" in label:
        return "bandwidth"
    return "work"


def chart_points(metrics: pd.DataFrame) -> pd.DataFrame:
    """Every hierarchical roofline point of the chart body items in ``metrics`` (``Report.metrics``).

    Returns CHART_COLUMNS: one row per launch x precision x level (x tensor series: ``series`` is the
    metric suffix, <NA> on the FP charts), base units. A point whose inputs are incomplete is NaN there.

    The rows are grouped by integer codes, not by their texts: each key column is numbered in the order of its
    values (``_ranked``), so that every grouping, sort and join below orders the points as it would order the
    texts, and the codes are turned back into texts once per point."""
    if not len(metrics) or "body_item" not in metrics.columns:
        return _no_points()
    section_codes, sections = _ranked(metrics["section"])
    precision_of = np.array([CHART_SECTIONS.get(str(s)) for s in sections], dtype=object)
    item_codes, items = _ranked(metrics["body_item"])
    sel = (section_codes >= 0) & pd.notna(precision_of[section_codes]) & (item_codes >= 0)
    sel &= metrics["process_id"].notna().to_numpy() & metrics["launch_id"].notna().to_numpy()
    m = metrics.loc[sel, [*LAUNCH_KEY, "label", "value"]]
    if m.empty:
        return _no_points()
    # the item names and labels repeat per launch: parse each distinct one once
    parts = pd.Series(items, dtype=object).str.extract(_ITEM)
    level_of = parts["level"].map(_LEVEL).to_numpy(dtype=object)
    roofline_item = (parts["kind"] == "Roofline").to_numpy(dtype=bool)
    series_of = (
        parts["series"]
        .where(parts["series"] != "Global/Local")
        .map(series_name, na_action="ignore")
        .fillna("")
        .to_numpy(dtype=object)
    )
    item = item_codes[sel]
    keep = pd.notna(level_of)[item]
    label_codes, labels = _ranked(m["label"])
    keep &= label_codes >= 0  # an item without a label has no role in the chart
    roles = np.array(sorted({_role(k, str(lab)) for lab in labels for k in ("Roofline", "Achieved Value")}))
    role_roof = np.searchsorted(roles, [_role("Roofline", str(lab)) for lab in labels])
    role_achieved = np.searchsorted(roles, [_role("Achieved Value", str(lab)) for lab in labels])
    role = np.where(roofline_item[item], role_roof[label_codes], role_achieved[label_codes])
    report_codes, reports = _ranked(m["report"])
    precision_code, precisions = _ranked(pd.Series(precision_of, dtype=object))  # per section
    level_code, levels = _ranked(pd.Series(level_of, dtype=object))  # per item
    series_code, series = _ranked(pd.Series(series_of, dtype=object))
    item = item[keep]
    frame = pd.DataFrame(
        {
            "report": report_codes[keep],
            "process_id": m["process_id"].to_numpy(dtype=np.int64)[keep],
            "launch_id": m["launch_id"].to_numpy(dtype=np.int64)[keep],
            "precision": precision_code[section_codes[sel][keep]],
            "level": level_code[item],
            "series": series_code[item],
            "role": role[keep],
            "value": m["value"].to_numpy(dtype=float)[keep],
        }
    )
    keys = ["report", "process_id", "launch_id", "precision", "level", "series"]
    is_work = (frame["role"] == (int(np.flatnonzero(roles == "work")[0]) if "work" in roles else -1)).to_numpy()
    work = frame[is_work].groupby(keys, sort=False)["value"].sum(min_count=1)
    single = frame[~is_work].groupby([*keys, "role"], sort=False)["value"].first().unstack("role")
    single.columns = [str(roles[c]) for c in single.columns]
    wide = single.join(work.rename("work"), how="outer")
    for col in ("sm_clock", "peak_sm_clock", "peak_ops", "peak_bytes", "memory_clock", "bandwidth", "work"):
        if col not in wide.columns:
            wide[col] = np.nan
    out = pd.DataFrame(
        {
            "achieved_flops": wide["work"] * wide["sm_clock"],
            "achieved_bytes_per_s": wide["bandwidth"],
            "peak_flops": wide["peak_ops"] * wide["peak_sm_clock"],
            "peak_bytes_per_s": wide["peak_bytes"] * wide["memory_clock"],
        },
        index=wide.index,
    ).reset_index()
    for col, texts in (("report", reports), ("precision", precisions), ("level", levels), ("series", series)):
        out[col] = np.asarray(texts, dtype=object)[out[col].to_numpy()]
    out["series"] = out["series"].where(out["series"] != "", None)
    result: pd.DataFrame = out[list(CHART_COLUMNS)].astype(CHART_COLUMNS)
    return result


def _no_points() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series([], dtype=t) for c, t in CHART_COLUMNS.items()})


def _ranked(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the rank of its text among the column's distinct texts in sorted order (-1: missing), and those
    texts sorted: codes that order as the texts do."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy().astype(np.int64)
        names = np.asarray(column.cat.categories.astype(str), dtype=object)
    else:
        codes, uniques = pd.factorize(column)
        codes = codes.astype(np.int64)
        names = np.asarray([str(u) for u in uniques], dtype=object)
    order = np.argsort(names, kind="stable")
    rank = np.empty(len(names), dtype=np.int64)
    rank[order] = np.arange(len(names))
    return np.where(codes >= 0, rank[np.maximum(codes, 0)] if len(names) else -1, -1), names[order]


def _pick_tensor(points: pd.DataFrame) -> pd.DataFrame:
    """Per launch, the tensor series of its dominant row, as ``ncu_roofline.roofline.dominant_tensor_series``
    picks it: the per-instruction series with the most work, else any series with work, else the default."""
    t = points[(points["precision"] == "tensor").to_numpy() & (points["level"] == "dram").to_numpy()]
    if t.empty:
        return t
    t = t.assign(
        _per_op=t["series"].astype(str).str.startswith("op_").to_numpy(),
        _work=t["achieved_flops"].fillna(0.0).to_numpy(),
        _default=t["series"]
        .astype(str)
        .map({n: i for i, n in enumerate(DEFAULT_TENSOR_SERIES)})
        .fillna(len(DEFAULT_TENSOR_SERIES))
        .to_numpy(),
    )
    t = t.assign(_has=(t["_work"] > 0).to_numpy())
    t = t.sort_values(["_has", "_per_op", "_work", "_default"], ascending=[False, False, False, True], kind="stable")
    chosen: pd.DataFrame = t.drop_duplicates(list(LAUNCH_KEY))[[*LAUNCH_KEY, "series"]]
    return chosen


#: The Half chart's operation figures as a details page labels them ("Theoretical Predicated-On HFMA Operations",
#: "Predicated-On HFMA Operations Per Cycle"): the label table names them as ncu 2025.3 does, which counts an HFMA2
#: thread instruction as 4 FLOP (``..._x4``, its HADD2 and HMUL2 as 2: ``..._x2``). ncu 2022.3-2024.2's sections
#: count them as 2 (``..._x2``; HADD and HMUL as 1) under the same labels, so every FP16 figure of their chart is
#: half of 2025.3's (NVIDIA's datasheets count as 2025.3: V100's 31.4 TFLOPS of FP16).
HALF_OPERATIONS = (
    "derived__sm__sass_thread_inst_executed_op_hfma_pred_on_x4",
    "derived__smsp__sass_thread_inst_executed_op_hfma_pred_on_x4",
)
#: The peak HFMA thread instructions per cycle, the Half chart section's own metric (its ``Metrics`` block, every
#: version 2022.3-2025.3): the chart's peak operations are this x 4 (2025.3) or x 2 (2022.3-2024.2).
HALF_PEAK_INSTRUCTIONS = "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained"


def half_chart_scale(values: pd.DataFrame) -> np.ndarray:
    """Per launch of ``values`` (``Report.values``), the factor that makes its Half chart's figures count as
    ncu 2025.3 counts them: 2.0 where the chart's peak operations per cycle (HALF_OPERATIONS, read by label) are
    twice its peak HFMA instructions (a chart of ncu 2022.3-2024.2), else 1.0 (2025.3's: four times; a page that
    names its metrics). A launch without that evidence (its ``Metrics`` block row missing, a peak of 0) takes
    its report's, where the report's other launches agree: one report is one ncu's."""
    out = np.ones(len(values.index))
    if HALF_OPERATIONS[0] not in values.columns or HALF_PEAK_INSTRUCTIONS not in values.columns:
        return out
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = values[HALF_OPERATIONS[0]].to_numpy(dtype=float) / values[HALF_PEAK_INSTRUCTIONS].to_numpy(dtype=float)
    old, new = np.abs(ratio - 2.0) < 0.5, np.abs(ratio - 4.0) < 0.5  # NaN (a figure missing, no peak): neither
    out[old] = 2.0
    unknown = ~old & ~new & ~np.isnan(values[HALF_OPERATIONS[0]].to_numpy(dtype=float))
    if unknown.any() and old.any():
        report = pd.factorize(values.index.get_level_values(0))[0]
        only_old = np.bincount(report[old], minlength=report.max() + 1) > 0
        only_old &= np.bincount(report[new], minlength=report.max() + 1) == 0
        out[unknown & only_old[report]] = 2.0
    return out


def counted_half(values: pd.DataFrame, scale: np.ndarray) -> pd.DataFrame:
    """``values`` with the Half chart's operation figures (HALF_OPERATIONS) times ``scale`` (``half_chart_scale``):
    the same frame where every factor is 1."""
    if (scale == 1.0).all():
        return values
    return values.assign(**{m: values[m].to_numpy(dtype=float) * scale for m in HALF_OPERATIONS if m in values.columns})


def counted_half_points(points: pd.DataFrame, scale: np.ndarray, index: pd.Index) -> pd.DataFrame:
    """``points`` (``chart_points``) with the FP16 chart's achieved and peak FLOP/s times ``scale`` at their
    launch of ``index`` (``half_chart_scale``): the same frame where every factor is 1."""
    if not len(points) or (scale == 1.0).all():
        return points
    pos = launch_positions(points, index)
    half = (points["precision"] == "fp16").fillna(False).to_numpy(dtype=bool) & (pos >= 0)
    factor = np.ones(len(points))
    factor[half] = scale[pos[half]]
    return points.assign(
        achieved_flops=points["achieved_flops"].to_numpy(dtype=float) * factor,
        peak_flops=points["peak_flops"].to_numpy(dtype=float) * factor,
    )


#: What the FP16 work recipe of a launch whose Half chart was counted again says after its name.
HALF_RECOUNTED = " (a Half chart of ncu 2022.3-2024.2, x 2: an HFMA2 as 4 FLOP)"


def counted_half_recipes(roof: pd.DataFrame, scale: np.ndarray, index: pd.Index) -> pd.DataFrame:
    """``roof`` (ROOFLINE_COLUMNS) with HALF_RECOUNTED after the work recipe of the FP16 rows of the launches of
    ``index`` whose figures ``scale`` doubled (``half_chart_scale``): the same frame where every factor is 1."""
    if not len(roof) or (scale == 1.0).all():
        return roof
    pos = launch_positions(roof, index)
    sel = (roof["precision"] == "fp16").fillna(False).to_numpy(dtype=bool) & (pos >= 0)
    sel[sel] = scale[pos[sel]] != 1.0
    sel &= roof["work_recipe"].notna().to_numpy()
    if not sel.any():
        return roof
    recipe = roof["work_recipe"].astype(object).to_numpy().copy()
    recipe[sel] = [f"{r}{HALF_RECOUNTED}" for r in recipe[sel]]
    return roof.assign(work_recipe=pd.Series(recipe, index=roof.index).astype(roof["work_recipe"].dtype))


#: The peak figures (``device.FIGURES``) a chart point gives directly: the FP roofs by precision, the bandwidth
#: roofs by level. The tensor roofs are per series (``fill_from_chart`` takes them).
CHART_FLOP_FIGURES = {"fp64": "fp64_flops", "fp32": "fp32_flops", "fp16": "fp16_flops"}
CHART_BYTE_FIGURES = {"dram": "dram_bytes_per_s", "l2": "l2_bytes_per_s", "l1": "l1_bytes_per_s"}


def chart_peaks(points: pd.DataFrame, index: pd.Index) -> pd.DataFrame:
    """Per launch of ``index``, the FP and bandwidth roofs ncu's chart points (``chart_points``) draw, as the
    peak figures of ``CHART_FLOP_FIGURES`` and ``CHART_BYTE_FIGURES``: the report's own peaks, for
    ``device.resolve_peaks`` to take before its table. NaN where the chart has none."""
    columns = [*CHART_FLOP_FIGURES.values(), *CHART_BYTE_FIGURES.values()]
    out = np.full((len(index), len(columns)), np.nan)
    if len(points) and len(index):
        pos = launch_positions(points, index)
        precision = points["precision"].astype(object).to_numpy()
        level = points["level"].astype(object).to_numpy()
        for j, (key, source, value) in enumerate(
            [(p, precision, "peak_flops") for p in CHART_FLOP_FIGURES]
            + [(lv, level, "peak_bytes_per_s") for lv in CHART_BYTE_FIGURES]
        ):
            figure = points[value].to_numpy(dtype=float)
            rows = np.flatnonzero((source == key) & (pos >= 0) & ~np.isnan(figure))
            launches, first = np.unique(pos[rows], return_index=True)  # each launch's first point
            out[launches, j] = figure[rows[first]]
    return pd.DataFrame(out, index=index, columns=columns)


def fill_from_chart(roof: pd.DataFrame, points: pd.DataFrame) -> pd.DataFrame:
    """``roof`` (ROOFLINE_COLUMNS, one tensor row per launch and level) with the achieved and peak figures
    the metrics left NaN taken from ncu's chart points (``chart_points``), and the rows re-derived.

    A tensor row without work takes the launch's dominant chart series (its dtype, series and roof)."""
    if not len(points) or not len(roof):
        return roof
    out = roof.copy()
    tensor = (out["precision"] == "tensor").fillna(False).to_numpy()
    chosen = _pick_tensor(points)
    if len(chosen):
        key = pd.MultiIndex.from_frame(out[list(LAUNCH_KEY)].astype(object))
        pick = pd.Series(
            chosen["series"].to_numpy(dtype=object),
            index=pd.MultiIndex.from_frame(chosen[list(LAUNCH_KEY)].astype(object)),
        )
        pos = pick.index.get_indexer(key)
        take = tensor & (pos >= 0) & out["achieved_flops"].isna().to_numpy()
        new_series = pick.to_numpy(dtype=object)[pos[take]]
        out.loc[take, "series"] = new_series
        out.loc[take, "dtype"] = per_distinct(  # once per distinct series name
            new_series, lambda n: s.dtype if (s := parse_series(str(n))) is not None else None
        )
        out.loc[take, "peak_flops"] = np.nan  # the roof of the chosen series, from the chart below
    join = [*LAUNCH_KEY, "precision", "level"]
    left = out[join].astype(object).copy()
    left["series"] = out["series"].astype(object).where(tensor, None)
    right = points.astype(object).copy()
    right["series"] = right["series"].where(right["precision"] == "tensor", None)
    both = [*join, "series"]
    left_key = pd.MultiIndex.from_frame(left[both].fillna("-"))
    right_key = pd.MultiIndex.from_frame(right[both].fillna("-"))
    right_unique = ~right_key.duplicated()
    right, right_key = right[right_unique], right_key[right_unique]
    pos = right_key.get_indexer(left_key)
    hit = pos >= 0
    for col, recipe_col in (
        ("achieved_flops", "work_recipe"),
        ("achieved_bytes_per_s", "traffic_recipe"),
        ("peak_flops", None),
        ("peak_bytes_per_s", None),
    ):
        have = out[col].to_numpy(dtype=float)
        chart = np.full(len(out), np.nan)
        chart[hit] = right[col].to_numpy(dtype=float)[pos[hit]]
        fill = np.isnan(have) & ~np.isnan(chart)
        if not fill.any():
            continue
        have = np.where(fill, chart, have)
        out[col] = have
        if recipe_col is not None:
            rec = out[recipe_col].astype(object).to_numpy().copy()
            rec[fill] = CHART_RECIPE
            out[recipe_col] = rec
            if col == "achieved_flops":
                est = out["estimate"].astype(object).to_numpy().copy()
                est[fill] = False
                out["estimate"] = est
    base = out[[c for c in out.columns if c not in ("intensity", "ridge_intensity", "attainable_flops")]]
    result: pd.DataFrame = _derive(base)[list(ROOFLINE_COLUMNS)]
    return result
