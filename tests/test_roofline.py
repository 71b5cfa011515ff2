"""The roofline frame against ncu's own chart points (acceptance), the micro-kernel truth, and its shape.

Golden values come from ncu: the body items of the hierarchical roofline charts in the ``--print-details all``
exports (``_ncuchart``), and the figures the samples README quotes from those charts. The frame under test
is computed from the raw page of the same reports (``_rawwide``, stand-in for ``ncu_roofline.read``).

Tolerances are not a flat percentage: ncu prints body items with 2-3 significant digits ("1.94" GHz, "4.17"
Tbyte/s) and the raw page prints each column in one unit with 6 decimals (0.000001 Tbyte/s for a 1.15 MB/s
launch), so every value is an interval of its printing, and the checks are: (1) the frame's value lies in
the interval the raw inputs allow under the chart's formula, and (2) that interval overlaps the interval of
ncu's chart point computed from its body items. A separate test requires a flat 1 % wherever both
printings are finer than 1 %.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
from _ncuchart import ChartPoint, Iv, chart_points, series_metric_suffix
from _rawwide import DETAILS_ALL, raw_rounding, raw_wide
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.device import resolve_peaks
from ncu_roofline.roofline import LEVELS, PRECISIONS, ROOFLINE_COLUMNS, roofline

REPORTS = tuple(DETAILS_ALL)
QUANTITIES = ("achieved_flops", "achieved_bytes_per_s", "intensity", "peak_flops", "peak_bytes_per_s")

# ---- the chart's formulas, written out from the stock section files (golden formulas, test side) ----------
SMSP_CLOCK = "smsp__cycles_elapsed.avg.per_second"
SM_CLOCK = "sm__cycles_elapsed.avg.per_second"


def _op(op: str) -> str:
    return f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed"


ACHIEVED_WORK = {  # per SMSP cycle: metric names (already in FLOP), x SMSP clock
    "fp64": (_op("dadd"), _op("dmul"), "derived__smsp__sass_thread_inst_executed_op_dfma_pred_on_x2"),
    "fp32": (_op("fadd"), _op("fmul"), "derived__smsp__sass_thread_inst_executed_op_ffma_pred_on_x2"),
    "fp16": (
        "derived__smsp__sass_thread_inst_executed_op_hadd_pred_on_x2",
        "derived__smsp__sass_thread_inst_executed_op_hmul_pred_on_x2",
        "derived__smsp__sass_thread_inst_executed_op_hfma_pred_on_x4",
    ),
}
PEAK_WORK = {  # per SM cycle, x SM clock
    "fp64": "derived__sm__sass_thread_inst_executed_op_dfma_pred_on_x2",
    "fp32": "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2",
    "fp16": "derived__sm__sass_thread_inst_executed_op_hfma_pred_on_x4",
}
TRAFFIC = {
    "dram": "dram__bytes.sum.per_second",
    "l2": "derived__lts__lts2xbar_bytes.sum.per_second",
    "l1": "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second",
}
PEAK_TRAFFIC = {
    "dram": ("dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second"),
    "l2": ("derived__lts__lts2xbar_bytes.sum.peak_sustained", "lts__cycles_elapsed.avg.per_second"),
    "l1": (
        "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained",
        "l1tex__cycles_elapsed.avg.per_second",
    ),
}


class Raw:
    """One launch of a raw page as intervals."""

    def __init__(self, values: pd.Series, rounding: pd.Series) -> None:
        self.values, self.rounding = values, rounding

    def iv(self, metric: str) -> Iv:
        return Iv.around(float(self.values[metric]), float(self.rounding[metric]))

    def quantity(self, pt: ChartPoint, name: str) -> Iv:
        """The chart quantity from raw metrics by the golden formula, as an interval."""
        if pt.precision == "tensor":
            s = series_metric_suffix(pt.series)
            work = self.iv(f"sm__ops_path_tensor_{s}.sum.per_cycle_elapsed") * self.iv(SM_CLOCK)
            peak = self.iv(f"sm__ops_path_tensor_{s}.sum.peak_sustained") * self.iv(SM_CLOCK)
        else:
            total = Iv(0.0, 0.0)
            for m in ACHIEVED_WORK[pt.precision]:
                total = total + self.iv(m)
            work = total * self.iv(SMSP_CLOCK)
            peak = self.iv(PEAK_WORK[pt.precision]) * self.iv(SM_CLOCK)
        traffic = self.iv(TRAFFIC[pt.level])
        per_cycle, clock = PEAK_TRAFFIC[pt.level]
        return {
            "achieved_flops": work,
            "achieved_bytes_per_s": traffic,
            "intensity": work / traffic,
            "peak_flops": peak,
            "peak_bytes_per_s": self.iv(per_cycle) * self.iv(clock),
        }[name]


@pytest.fixture(scope="module", params=REPORTS)
def sample(request: pytest.FixtureRequest) -> dict[str, Any]:
    report = request.param
    values = raw_wide(report)
    frame = roofline(values, resolve_peaks(values), tensor="all")
    lut = {
        (
            int(r.launch_id),
            str(r.precision),
            str(r.level),
            None if r.precision != "tensor" else str(r.series),
        ): r
        for r in frame.itertuples()
    }
    return {
        "report": report,
        "values": values,
        "rounding": raw_rounding(report),
        "lut": lut,
        "points": chart_points(DETAILS_ALL[report], report),
    }


def _pairs(sample: dict[str, Any], precision: str, level: str) -> Iterator[tuple[ChartPoint, Any, Raw]]:
    for pt in sample["points"]:
        if pt.precision != precision or pt.level != level:
            continue
        key = (pt.launch_id, pt.precision, pt.level, series_metric_suffix(pt.series) if pt.series else None)
        row = sample["lut"][key]
        idx = (sample["report"], pt.process_id, pt.launch_id)
        yield pt, row, Raw(sample["values"].loc[idx], sample["rounding"].loc[idx])


def test_every_chart_point_is_covered(sample: dict[str, Any]) -> None:
    """Each report has all four charts x three levels for all 16 launches (tensor: one per series)."""
    points = sample["points"]
    launches = {p.launch_id for p in points}
    assert len(launches) == 16
    for prec in ("fp64", "fp32", "fp16"):
        for lv in LEVELS:
            assert sum(1 for p in points if p.precision == prec and p.level == lv) == 16
    assert sum(1 for p in points if p.precision == "tensor") == 16 * 3 * 28


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("precision", PRECISIONS)
def test_matches_ncu_chart_points(sample: dict[str, Any], precision: str, level: str) -> None:
    """Achieved work, traffic, intensity and both roofs agree with ncu's chart, every launch and series."""
    failures = []
    checked = 0
    for pt, row, raw in _pairs(sample, precision, level):
        for q in QUANTITIES:
            ncu_value, ncu_iv = pt.quantity(q)
            if q == "intensity" and not (ncu_value and math.isfinite(ncu_value)):
                continue  # no chart point without work or traffic
            mine = float(getattr(row, q))
            raw_iv = raw.quantity(pt, q)
            eps = 1e-9 * max(abs(mine), 1.0)
            checked += 1
            if not raw_iv.contains(mine, eps):
                failures.append(f"launch {pt.launch_id} {pt.series} {q}: {mine:.6g} not in raw formula {raw_iv}")
            if not raw_iv.overlaps(ncu_iv, eps):
                inputs = [(p.label, p.text) for p in pt.achieved_items + pt.roof_items]
                failures.append(
                    f"launch {pt.launch_id} {pt.series} {q}: mine {mine:.6g} (raw {raw_iv}) vs ncu "
                    f"{ncu_value:.6g} {ncu_iv} from {inputs}"
                )
    assert checked > 0
    assert not failures, "\n".join(failures[:10])


@pytest.mark.parametrize("precision", ("fp64", "fp32", "fp16"))
def test_within_one_percent_where_printing_allows(sample: dict[str, Any], precision: str) -> None:
    """Flat 1 % wherever ncu's value is non-zero and both printings resolve it finer than 1 %."""
    failures = []
    n = 0
    for level in LEVELS:
        for pt, row, raw in _pairs(sample, precision, level):
            for q in QUANTITIES:
                ncu_value, ncu_iv = pt.quantity(q)
                if not ncu_value or not math.isfinite(ncu_value):
                    continue
                raw_iv = raw.quantity(pt, q)
                width = (ncu_iv.hi - ncu_iv.lo + raw_iv.hi - raw_iv.lo) / 2 / abs(ncu_value)
                if width >= 0.01:
                    continue
                n += 1
                mine = float(getattr(row, q))
                if abs(mine - ncu_value) > 0.01 * abs(ncu_value):
                    failures.append(f"{level} launch {pt.launch_id} {q}: {mine:.6g} vs ncu {ncu_value:.6g}")
    assert n > 0
    assert not failures, "\n".join(failures)


def test_chart_inputs_are_the_metrics_named() -> None:
    """The body items are the raw metrics the formulas name (within both printings), incl. the clocks."""
    values, rounding = raw_wide("micro_full"), raw_rounding("micro_full")
    for pt in chart_points(DETAILS_ALL["micro_full"], "micro_full"):
        if pt.precision == "tensor":
            continue
        raw = Raw(
            values.loc[("micro_full", pt.process_id, pt.launch_id)],
            rounding.loc[("micro_full", pt.process_id, pt.launch_id)],
        )
        assert raw.iv(SMSP_CLOCK).overlaps(pt.achieved_sm_frequency.iv)
        assert raw.iv(SM_CLOCK).overlaps(pt.peak_sm_frequency.iv)
        assert raw.iv(PEAK_WORK[pt.precision]).overlaps(pt.peak_ops_per_cycle.iv)
        per_cycle, clock = PEAK_TRAFFIC[pt.level]
        assert raw.iv(per_cycle).overlaps(pt.peak_bytes_per_cycle.iv)
        assert raw.iv(clock).overlaps(pt.memory_frequency.iv)
        assert raw.iv(TRAFFIC[pt.level]).overlaps(pt.bandwidth.iv)


def test_derived_metrics_are_the_factors_ncu_facts_names() -> None:
    """x2 (FMA), x4 (HFMA2), x2 (HADD2/HMUL2), x32 B (L2 port cycle), x128 B (L1 writeback cycle)."""
    v, e = raw_wide("micro_full"), raw_rounding("micro_full")
    pairs = [
        (
            "derived__sm__sass_thread_inst_executed_op_dfma_pred_on_x2",
            "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
            2,
        ),
        (
            "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2",
            "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
            2,
        ),
        (
            "derived__sm__sass_thread_inst_executed_op_hfma_pred_on_x4",
            "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained",
            4,
        ),
        ("derived__smsp__sass_thread_inst_executed_op_ffma_pred_on_x2", _op("ffma"), 2),
        ("derived__smsp__sass_thread_inst_executed_op_hfma_pred_on_x4", _op("hfma"), 4),
        ("derived__smsp__sass_thread_inst_executed_op_hadd_pred_on_x2", _op("hadd"), 2),
        (
            "derived__lts__lts2xbar_bytes.sum.peak_sustained",
            "lts__lts2xbar_cycles_active.sum.peak_sustained",
            32,
        ),
        ("derived__lts__lts2xbar_bytes.sum.per_second", "lts__lts2xbar_cycles_active.sum.per_second", 32),
        (
            "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained",
            "l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained",
            128,
        ),
        (
            "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second",
            "l1tex__lsu_writeback_active_mem_lgds.sum.per_second",
            128,
        ),
    ]
    for derived, base, k in pairs:
        lhs = v[derived]
        rhs = v[base] * k
        tol = e[derived] + e[base] * k + 1e-9 * rhs.abs()
        assert ((lhs - rhs).abs() <= tol).all(), derived


# ---- the micro-kernel ground truth (shared/ncu-samples/README.md, micro_full) ------------------------------


@pytest.fixture(scope="module")
def micro() -> pd.DataFrame:
    values = raw_wide("micro_full")
    return roofline(values, resolve_peaks(values))


def _get(frame: pd.DataFrame, launch: int, precision: str, level: str, column: str) -> float:
    rows = frame[(frame["launch_id"] == launch) & (frame["precision"] == precision) & (frame["level"] == level)]
    assert len(rows) == 1
    return float(rows[column].iloc[0])


@pytest.mark.parametrize(
    "case",
    [
        (0, "stream_triad", "fp32", "dram", "bandwidth_fraction", 87),
        (1, "strided_read", "fp32", "dram", "bandwidth_fraction", 76),
        (2, "l2_reread", "fp32", "l2", "bandwidth_fraction", 56),
        (2, "l2_reread", "fp32", "dram", "bandwidth_fraction", 2),
        (3, "l1_reread", "fp32", "l1", "bandwidth_fraction", 21),
        (3, "l1_reread", "fp32", "l1", "compute_fraction", 3),
        (4, "smem_bank_conflict", "fp32", "l1", "bandwidth_fraction", 0),
        (5, "fp32_fma", "fp32", "dram", "compute_fraction", 91),
        (6, "fp64_fma", "fp64", "dram", "compute_fraction", 98),
        (7, "half_hfma2", "fp16", "dram", "compute_fraction", 50),
        (8, "wmma_bf16", "tensor", "dram", "compute_fraction", 68),
    ],
    ids=lambda c: f"{c[1]}-{c[3]}-{c[4]}",
)
def test_micro_kernel_table(micro: pd.DataFrame, case: tuple[int, str, str, str, str, int]) -> None:
    """The README's figures (launch, kernel, precision, level, column, percent), as whole percent."""
    launch, kernel, precision, level, column, percent = case
    assert round(100 * _get(micro, launch, precision, level, column)) == percent, kernel


def test_compute_kernels_are_compute_bound_and_stream_is_memory_bound(micro: pd.DataFrame) -> None:
    bound = micro.set_index(["launch_id", "precision", "level"])["bound"]
    assert bound[(0, "fp32", "dram")] == "memory"
    assert bound[(5, "fp32", "dram")] == "compute"
    assert bound[(6, "fp64", "dram")] == "compute"
    assert bound[(7, "fp16", "dram")] == "compute"
    assert bound[(8, "tensor", "dram")] == "compute"
    # roof fraction: the compute roof for compute-bound points, the bandwidth roof for memory-bound ones
    assert _get(micro, 5, "fp32", "dram", "roof_fraction") == pytest.approx(
        _get(micro, 5, "fp32", "dram", "compute_fraction")
    )
    assert _get(micro, 0, "fp32", "dram", "roof_fraction") == pytest.approx(
        _get(micro, 0, "fp32", "dram", "bandwidth_fraction")
    )


def test_stream_triad_dram_point(micro: pd.DataFrame) -> None:
    """NCU-FACTS: stream_triad achieved 4.17 TB/s at DRAM; the chart prints 4.17 Tbyte/s."""
    assert _get(micro, 0, "fp32", "dram", "achieved_bytes_per_s") == pytest.approx(4.17e12, abs=0.005e12)


def test_wmma_uses_the_hmma_bf16_roof(micro: pd.DataFrame) -> None:
    """wmma compiles to HMMA (mma.sync): its roof is the dense HMMA BF16 series (360,448 op/cycle)."""
    row = micro[(micro["launch_id"] == 8) & (micro["precision"] == "tensor") & (micro["level"] == "dram")]
    assert row["series"].iloc[0] == "op_hmma_src_bf16_dst_fp32_sparsity_off"
    assert row["dtype"].iloc[0] == "bf16"


# ---- shape and semantics ---------------------------------------------------------------------------------


def test_frame_shape_and_order(micro: pd.DataFrame) -> None:
    assert list(micro.columns) == list(ROOFLINE_COLUMNS)
    assert {c: str(t) for c, t in micro.dtypes.items()} == ROOFLINE_COLUMNS
    assert len(micro) == 16 * len(PRECISIONS) * len(LEVELS)
    first = micro.iloc[: len(PRECISIONS) * len(LEVELS)]
    assert first["launch_id"].nunique() == 1
    assert list(first["precision"]) == [p for p in PRECISIONS for _ in LEVELS]
    assert list(first["level"]) == list(LEVELS) * len(PRECISIONS)
    fp = micro[micro["precision"] != "tensor"]
    assert (fp["dtype"] == fp["precision"]).all()
    assert fp["series"].isna().all()


def test_missing_metrics_give_nan_not_zero() -> None:
    """train_step collected only the single/half charts: fp64 and tensor work are unknown, not zero."""
    values = raw_wide("train_step")
    frame = roofline(values, resolve_peaks(values, "NVIDIA H200"))
    fp64 = frame[frame["precision"] == "fp64"]
    assert fp64["achieved_flops"].isna().all()
    assert fp64["peak_flops"].notna().all()  # from the table
    tensor = frame[frame["precision"] == "tensor"]
    assert tensor["achieved_flops"].isna().all()
    assert (tensor["dtype"] == "bf16").all()
    # the H200 datasheet's dense BF16 (at its 1.98 GHz boost clock) at each launch's measured SM clock, at most
    # the boost clock (train_step's shortest launches measure up to 2.50 GHz)
    clock = np.minimum(values["sm__cycles_elapsed.avg.per_second"].to_numpy(dtype=float), 1.98e9)
    per_launch = pd.Series(989.5e12 * clock / 1.98e9, index=values.index)
    at = pd.MultiIndex.from_frame(tensor[["report", "process_id", "launch_id"]])
    np.testing.assert_allclose(tensor["peak_flops"], per_launch.reindex(at))
    fp32 = frame[frame["precision"] == "fp32"]
    assert fp32["achieved_flops"].notna().all()
    assert fp32["peak_flops"].notna().all()


def test_tensor_override_sets_the_roof(micro: pd.DataFrame) -> None:
    values = raw_wide("micro_full")
    frame = roofline(values, resolve_peaks(values, overrides={"tensor_bf16_flops": 9.0e14}))
    row = frame[(frame["launch_id"] == 8) & (frame["precision"] == "tensor") & (frame["level"] == "dram")]
    assert row["peak_flops"].iloc[0] == 9.0e14
    assert row["compute_fraction"].iloc[0] == pytest.approx(_get(micro, 8, "tensor", "dram", "achieved_flops") / 9.0e14)


def test_tensor_all_gives_every_series() -> None:
    values = raw_wide("llm_full")
    frame = roofline(values, resolve_peaks(values), tensor="all")
    t = frame[frame["precision"] == "tensor"]
    assert t["series"].nunique() == 28
    assert len(t) == 16 * 28 * 3
    with pytest.raises(ValueError, match="tensor"):
        roofline(values, resolve_peaks(values), tensor="some")  # type: ignore[arg-type]


def test_dominant_tensor_series_on_llm() -> None:
    values = raw_wide("llm_full")
    frame = roofline(values, resolve_peaks(values))
    t = frame[(frame["precision"] == "tensor") & (frame["level"] == "dram")].set_index("launch_id")
    assert t.loc[0, "series"] == "op_hgmma_src_bf16_dst_fp32_sparsity_off"  # prefill GEMM (nvjet, HGMMA)
    assert t.loc[0, "compute_fraction"] == pytest.approx(0.914, abs=0.001)
    assert t.loc[12, "series"] == "src_fp64"  # fp64 GEMM: DMMA has only the per-source series
    assert t.loc[12, "dtype"] == "fp64"


def test_a_turing_series_named_for_three_types_carries_its_work() -> None:
    """The real micro_full page with its dense BF16 HMMA series renamed as Turing's (``src_fp16_bf16_tf32_dst_fp32``,
    every other tensor series dropped): wmma_bf16's tensor work and fraction are those of the page as ncu
    wrote it, not zero (the series was dropped: an unparsed name)."""
    values = raw_wide("micro_full")
    before = roofline(values, resolve_peaks(values))
    old = "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off."
    new = "sm__ops_path_tensor_src_fp16_bf16_tf32_dst_fp32."
    tensor = [c for c in values.columns if str(c).startswith("sm__ops_path_tensor_")]
    turing = values.drop(columns=[c for c in tensor if not str(c).startswith(old)])
    turing = turing.rename(columns={c: new + str(c)[len(old) :] for c in tensor if str(c).startswith(old)})
    after = roofline(turing, resolve_peaks(turing))

    def tensor_row(frame: pd.DataFrame) -> pd.Series:
        pick = (frame["launch_id"] == 8) & (frame["precision"] == "tensor") & (frame["level"] == "dram")
        return frame[pick].iloc[0]

    was, now = tensor_row(before), tensor_row(after)
    assert was["series"] == "op_hmma_src_bf16_dst_fp32_sparsity_off" and now["series"] == "src_fp16_bf16_tf32_dst_fp32"
    assert now["dtype"] == "fp16"
    assert now["achieved_flops"] == pytest.approx(was["achieved_flops"], rel=1e-12) and now["achieved_flops"] > 0
    assert now["compute_fraction"] == pytest.approx(was["compute_fraction"], rel=1e-9)


_pos = st.floats(min_value=1e3, max_value=1e16, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)  # each example runs the whole peaks + roofline pipeline
@given(work=_pos, traffic=_pos, peak_work=_pos, peak_bw=_pos, zero_work=st.booleans())
def test_roofline_identities(work: float, traffic: float, peak_work: float, peak_bw: float, zero_work: bool) -> None:
    """attainable = min(peak, I x BW); roof_fraction = work / attainable; bound follows the ridge point."""
    idx = pd.MultiIndex.from_tuples([("synthetic", 1, 0)], names=["report", "process_id", "launch_id"])
    clock = 1.5e9
    w = 0.0 if zero_work else work
    values = pd.DataFrame(
        {
            _op("fadd"): [w / clock],
            _op("fmul"): [0.0],
            _op("ffma"): [0.0],
            SMSP_CLOCK: [clock],
            SM_CLOCK: [clock],
            "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": [peak_work / clock / 2],
            "dram__bytes.sum.per_second": [traffic],
            "dram__bytes.sum.peak_sustained": [peak_bw / 1e9],
            "dram__cycles_elapsed.avg.per_second": [1e9],
        },
        index=idx,
    )
    frame = roofline(values, resolve_peaks(values))
    row = frame[(frame["precision"] == "fp32") & (frame["level"] == "dram")].iloc[0]
    intensity = w / traffic
    assert row["intensity"] == pytest.approx(intensity, rel=1e-9)
    assert row["ridge_intensity"] == pytest.approx(peak_work / peak_bw, rel=1e-9)
    assert row["attainable_flops"] == pytest.approx(min(peak_work, intensity * peak_bw), rel=1e-9)
    assert row["bound"] == ("memory" if row["intensity"] < row["ridge_intensity"] else "compute")
    if zero_work:
        assert np.isnan(row["roof_fraction"])
    else:
        assert row["roof_fraction"] == pytest.approx(w / min(peak_work, intensity * peak_bw), rel=1e-9)
    assert row["bandwidth_fraction"] == pytest.approx(traffic / peak_bw, rel=1e-9)
    assert row["compute_fraction"] == pytest.approx(w / peak_work, rel=1e-9)
    # missing counters elsewhere stay NaN
    assert np.isnan(frame[frame["precision"] == "fp64"]["achieved_flops"]).all()


def test_no_traffic_with_work_is_compute_bound() -> None:
    idx = pd.MultiIndex.from_tuples([("synthetic", 1, 0)], names=["report", "process_id", "launch_id"])
    values = pd.DataFrame(
        {
            _op("fadd"): [10.0],
            _op("fmul"): [0.0],
            _op("ffma"): [0.0],
            SMSP_CLOCK: [1e9],
            SM_CLOCK: [1e9],
            "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": [100.0],
            "dram__bytes.sum.per_second": [0.0],
            "dram__bytes.sum.peak_sustained": [10.0],
            "dram__cycles_elapsed.avg.per_second": [1e9],
        },
        index=idx,
    )
    row = roofline(values, resolve_peaks(values)).iloc[3]
    assert row["precision"] == "fp32" and row["level"] == "dram"
    assert math.isinf(row["intensity"])
    assert row["bound"] == "compute"
    assert row["attainable_flops"] == pytest.approx(200e9)
    assert row["roof_fraction"] == pytest.approx(10e9 / 200e9)
