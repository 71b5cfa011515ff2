"""Device peaks: from the report (checked against NCU-FACTS and ncu's own numbers), the table, overrides."""

from __future__ import annotations

import math
import re
from pathlib import Path

import derive
import numpy as np
import pandas as pd
import pytest
from _rawwide import raw_texts, raw_wide
from conftest import at_measured, data

import ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.chart import series_name
from ncu_roofline.device import (
    FIGURES,
    OVERRIDE_KEYS,
    PEAK_COLUMNS,
    find_device,
    list_devices,
    lookup_device,
    match_device,
    name_tokens,
    parse_series,
    peaks_from_metrics,
    resolve_peaks,
    table_figures,
)
from ncu_roofline.devices import DEVICES, DeviceSpec
from ncu_roofline.errors import AnalysisError

# ---- the table -------------------------------------------------------------------------------------------

REQUIRED = {
    # the GPUs issue 9 names, Volta to Blackwell, data-centre, workstation and GeForce
    "Tesla V100-SXM2-16GB",
    "Tesla V100-SXM2-32GB",
    "Tesla V100-PCIE-16GB",
    "Tesla V100-PCIE-32GB",
    "Tesla T4",
    "NVIDIA A10",
    "NVIDIA A30",
    "NVIDIA A40",
    "NVIDIA A100-SXM4-40GB",
    "NVIDIA A100-SXM4-80GB",
    "NVIDIA A100-PCIE-40GB",
    "NVIDIA A100 80GB PCIe",
    "NVIDIA L4",
    "NVIDIA L40",
    "NVIDIA L40S",
    "NVIDIA RTX A6000",
    "NVIDIA RTX 6000 Ada Generation",
    "NVIDIA H100 SXM",
    "NVIDIA H100 PCIe",
    "NVIDIA H100 NVL",
    "NVIDIA H20",
    "NVIDIA H200",
    "NVIDIA GH200 480GB",
    "NVIDIA B200",
    "NVIDIA GB200",
    "NVIDIA GeForce RTX 3080",
    "NVIDIA GeForce RTX 3090",
    "NVIDIA GeForce RTX 4080",
    "NVIDIA GeForce RTX 4090",
    "NVIDIA GeForce RTX 5080",
    "NVIDIA GeForce RTX 5090",
    "NVIDIA GeForce RTX 2080 Ti",
    "NVIDIA GeForce GTX 1080",
}


def test_table_has_the_required_gpus() -> None:
    assert set(list_devices()) >= REQUIRED
    assert len(set(list_devices())) == len(list_devices())


def test_every_spelling_names_one_entry() -> None:
    """No name or alias of one entry is (case and punctuation aside) a name or alias of another."""
    seen: dict[tuple[str, ...], str] = {}
    for d in DEVICES:
        for n in (d.name, *d.aliases):
            key = name_tokens(n)
            assert seen.setdefault(key, d.name) == d.name, (n, seen[key])
        assert lookup_device(d.name) is d
        assert all(lookup_device(a) is d for a in d.aliases)


def test_figures_are_the_keys_peak_accepts() -> None:
    """What `devices NAME` prints is what --peak overrides (issue 13: no boost_clock_hz, tensor_int8_ops)."""
    for spec in DEVICES:
        assert set(spec.figures()) <= OVERRIDE_KEYS
        assert set(table_figures(spec)) <= set(FIGURES)


@pytest.mark.parametrize("spec", DEVICES, ids=lambda d: d.name)
def test_every_figure_has_a_source(spec: DeviceSpec) -> None:
    for name, fig in spec.figures().items():
        if fig is None:
            continue
        assert fig.value > 0 and math.isfinite(fig.value), name
        assert len(fig.source) > 20, (name, fig.source)
        # a document with its address, a derivation, a measurement, or a third party with its address
        assert re.search(r"https?://|arXiv:|derived:|measured:|ncu", fig.source), (name, fig.source)
    missing = [n for n, f in spec.figures().items() if f is None]
    if any(
        n in {"sm_count", "sm_clock_hz", "fp32_flops", "l2_bytes_per_s", "l1_bytes_per_s", "fp16_flops"}
        for n in missing
    ):
        assert spec.notes, f"{spec.name}: say why {missing} are missing"


@pytest.mark.parametrize("spec", DEVICES, ids=lambda d: d.name)
def test_table_is_self_consistent(spec: DeviceSpec) -> None:
    """Orders of magnitude and the ratios the architectures fix (catches unit slips like GB/s vs TB/s)."""
    assert 1e11 < spec.dram_bytes_per_s.value < 1e13
    fp32, fp64 = spec.fp32_flops, spec.fp64_flops
    if fp32 is not None:
        assert 1e12 < fp32.value < 2e14
        if fp64 is not None:
            assert fp64.value <= fp32.value
        if spec.tensor_fp16_flops is not None:
            assert spec.tensor_fp16_flops.value > fp32.value
    if spec.tensor_bf16_flops is not None and spec.tensor_tf32_flops is not None:
        assert spec.tensor_tf32_flops.value == pytest.approx(spec.tensor_bf16_flops.value / 2, rel=0.03)
    if spec.sm_count is None or spec.sm_clock_hz is None:
        return
    assert 1.0e9 < spec.sm_clock_hz.value < 3.0e9
    assert 10 <= spec.sm_count.value <= 200
    if spec.l1_bytes_per_s is not None:
        per_sm_clk = spec.l1_bytes_per_s.value / spec.sm_count.value / spec.sm_clock_hz.value
        assert per_sm_clk == pytest.approx(64) or per_sm_clk == pytest.approx(128)
    # FP32 = 2 FLOP x lanes x clock (64 lanes/SM on V100/Turing/A100, 128 on Pascal, GA10x, Ada, Hopper,
    # Blackwell); the H20's third-party FP32 figure is the one exception (its clock is unknown)
    if fp32 is not None:
        lanes = 64 if spec.cc in {"7.0", "7.5", "8.0"} else 128
        assert fp32.value == pytest.approx(2 * lanes * spec.sm_count.value * spec.sm_clock_hz.value, rel=0.02)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("NVIDIA H200", "NVIDIA H200"),
        ("nvidia h200", "NVIDIA H200"),
        ("NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"),
        ("A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"),
        ("Tesla V100-SXM2-16GB", "Tesla V100-SXM2-16GB"),
        ("Tesla V100-SXM2-32GB", "Tesla V100-SXM2-32GB"),
        ("Tesla T4", "Tesla T4"),
        ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM"),
        ("NVIDIA H100 PCIe", "NVIDIA H100 PCIe"),
        ("NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"),
        ("GeForce RTX 4090", "NVIDIA GeForce RTX 4090"),  # older drivers' display name
        ("NVIDIA L40S", "NVIDIA L40S"),
        ("NVIDIA L40", "NVIDIA L40"),
        ("L4", "NVIDIA L4"),
        # forgiving: case, punctuation, brand words, a bare family (its first form in the table)
        ("a100", "NVIDIA A100-SXM4-80GB"),
        ("A100-80GB", "NVIDIA A100-SXM4-80GB"),
        ("a100 pcie", "NVIDIA A100 80GB PCIe"),
        ("A100 40 GB PCIe", "NVIDIA A100-PCIE-40GB"),
        ("h100 sxm", "NVIDIA H100 SXM"),
        ("H100", "NVIDIA H100 SXM"),
        ("h100_nvl", "NVIDIA H100 NVL"),
        ("v100 sxm 32gb", "Tesla V100-SXM2-32GB"),
        ("rtx-5090", "NVIDIA GeForce RTX 5090"),
        ("4090", "NVIDIA GeForce RTX 4090"),
        ("gh200", "NVIDIA GH200 480GB"),
        ("b200", "NVIDIA B200"),
        ("GB200", "NVIDIA GB200"),
        ("A6000", "NVIDIA RTX A6000"),
        ("rtx 6000 ada", "NVIDIA RTX 6000 Ada Generation"),
    ],
)
def test_lookup_forgives_spelling(name: str, expected: str) -> None:
    assert lookup_device(name).name == expected


def test_bare_family_says_which_form_it_took() -> None:
    m = match_device("a100")
    assert m.spec is not None and not m.exact
    assert m.note is not None and "NVIDIA A100-SXM4-40GB" in m.note and "NVIDIA A100 80GB PCIe" in m.note
    assert match_device("NVIDIA A100-PCIE-40GB").note is None  # an exact name says nothing


def test_lookup_does_not_confuse_similar_names() -> None:
    assert lookup_device("NVIDIA L4").name == "NVIDIA L4"
    assert lookup_device("NVIDIA L40S").name == "NVIDIA L40S"
    assert lookup_device("A10").name == "NVIDIA A10"  # not A100
    assert lookup_device("B200").name == "NVIDIA B200"  # not GB200
    assert lookup_device("V100S").name == "Tesla V100S-PCIE-32GB"


@pytest.mark.parametrize(
    ("name", "candidates"),
    [
        ("rtx 5080 5090", None),  # no entry has both words: unknown, not ambiguous
        ("ti", {"NVIDIA GeForce RTX 2080 Ti", "NVIDIA GeForce RTX 5060 Ti"}),
        ("sxm", {"NVIDIA H100 SXM", "NVIDIA A100-SXM4-80GB", "Tesla V100-SXM2-16GB"}),
    ],
)
def test_ambiguous_names_list_the_candidates(name: str, candidates: set[str] | None) -> None:
    with pytest.raises(AnalysisError) as err:
        lookup_device(name)
    msg = str(err.value)
    assert err.value.exit_code == 4
    if candidates is None:
        assert msg.startswith(f"unknown device {name!r}")
    else:
        assert msg.startswith(f"device {name!r} is ambiguous: it matches ")
        assert all(c in msg for c in candidates)
    assert find_device(name) is None


def test_unknown_device_error_lists_known_names() -> None:
    with pytest.raises(AnalysisError) as err:
        lookup_device("NVIDIA Quadro K420")
    msg = str(err.value)
    assert "Quadro K420" in msg
    assert "NVIDIA H200" in msg and "Tesla T4" in msg
    assert "--peak" in msg
    assert err.value.exit_code == 4


def test_sample_names_its_device() -> None:
    """The string metric the table is looked up by, as the H200 samples carry it."""
    names = raw_texts("micro_full")["device__attribute_display_name"]
    assert set(names) == {"NVIDIA H200"}
    assert lookup_device(names.iloc[0]).name == "NVIDIA H200"


# ---- from the report -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def micro_peaks() -> pd.DataFrame:
    return peaks_from_metrics(raw_wide("micro_full"))


def test_h200_report_peaks_match_ncu_facts(micro_peaks: pd.DataFrame) -> None:
    """NCU-FACTS: DRAM ~ 1.5 KB/cycle x 3.2 GHz ~ 4.8 TB/s; FP32 = 16,896 FFMA/cycle x 2 x ~1.95 GHz ~ 66 TF.

    (The figures are per launch: ncu's peaks use each launch's measured clocks.)
    """
    values = raw_wide("micro_full")
    assert micro_peaks["dram_bytes_per_s"].to_numpy() == pytest.approx(4.8e12, rel=0.02)
    assert micro_peaks["fp32_flops"].median() == pytest.approx(66e12, rel=0.02)
    np.testing.assert_allclose(micro_peaks["fp32_flops"], 16896 * 2 * values["sm__cycles_elapsed.avg.per_second"])
    np.testing.assert_allclose(micro_peaks["fp64_flops"], 8448 * 2 * values["sm__cycles_elapsed.avg.per_second"])
    np.testing.assert_allclose(micro_peaks["fp16_flops"], 16896 * 4 * values["sm__cycles_elapsed.avg.per_second"])
    np.testing.assert_allclose(micro_peaks["l2_bytes_per_s"], 188 * 32 * values["lts__cycles_elapsed.avg.per_second"])
    np.testing.assert_allclose(
        micro_peaks["l1_bytes_per_s"], 132 * 128 * values["l1tex__cycles_elapsed.avg.per_second"]
    )
    assert (micro_peaks["sm_count"] == 132).all()


def test_h200_tensor_peaks(micro_peaks: pd.DataFrame) -> None:
    """Dense peaks per type = the best non-sparse instruction path (HGMMA on Hopper), ops/cycle x SM clock."""
    clock = raw_wide("micro_full")["sm__cycles_elapsed.avg.per_second"]
    per_cycle = {
        "bf16": 540672,
        "fp16": 540672,
        "tf32": 270336,
        "fp8": 1081344,
        "int8": 1081344,
        "fp64": 33792,
    }
    for dtype, ops in per_cycle.items():
        np.testing.assert_allclose(micro_peaks[f"tensor_{dtype}_flops"], ops * clock, err_msg=dtype)
    np.testing.assert_allclose(micro_peaks["tensor_op_hmma_src_bf16_dst_fp32_sparsity_off_flops"], 360448 * clock)


def test_report_and_table_agree_for_h200(micro_peaks: pd.DataFrame) -> None:
    """The datasheet and the report's own peaks (the latter at the measured clocks) within a few percent."""
    spec = lookup_device("NVIDIA H200")
    assert micro_peaks["dram_bytes_per_s"].median() == pytest.approx(spec.dram_bytes_per_s.value, rel=0.02)
    assert micro_peaks["fp32_flops"].median() == pytest.approx(spec.fp32_flops.value, rel=0.03)
    assert micro_peaks["fp64_flops"].median() == pytest.approx(spec.fp64_flops.value, rel=0.05)
    assert spec.fp16_flops is not None and spec.tensor_bf16_flops is not None and spec.l2_bytes_per_s is not None
    assert micro_peaks["fp16_flops"].median() == pytest.approx(spec.fp16_flops.value, rel=0.03)
    # NVIDIA's Hopper tensor figures assume 1.83 GHz; ncu's roof uses the measured clock (median 1.98 GHz)
    assert micro_peaks["tensor_bf16_flops"].median() == pytest.approx(
        spec.tensor_bf16_flops.value * 1.98 / 1.83, rel=0.01
    )
    assert micro_peaks["l2_bytes_per_s"].median() == pytest.approx(spec.l2_bytes_per_s.value, rel=0.01)


def test_series_names_parse() -> None:
    s = parse_series("op_hmma_src_bf16_dst_fp32_sparsity_off")
    assert s is not None and (s.op, s.src, s.dst, s.sparsity) == ("hmma", "bf16", "fp32", "off")
    assert s.label == "Op:hmma Src:bf16 Dst:fp32 Sparsity:off"
    s = parse_series("src_fp8_sparsity_on")
    assert s is not None and (s.op, s.src, s.dst, s.sparsity) == (None, "fp8", None, "on")
    assert parse_series("not_a_series") is None


def test_a_series_of_several_source_types_is_of_the_first() -> None:
    """Turing's FP16-in, FP32-accumulate path is one counter named for three types (ncu 2024.2's Tensor chart
    section, its TU10x block; query-metrics-2024.2/tu102.txt): it is read, as FP16, not dropped."""
    s = parse_series("src_fp16_bf16_tf32_dst_fp32")
    assert s is not None and (s.op, s.src, s.also, s.dst, s.sparsity) == (None, "fp16", "bf16_tf32", "fp32", None)
    assert s.label == "Src:fp16,bf16,tf32 Dst:fp32"  # as ncu 2024.2's TU10x Tensor chart labels it
    assert series_name(s.label) == s.name
    s = parse_series("op_hmma_src_tf32_dst_fp32_sparsity_on")
    assert s is not None and (s.src, s.also, s.dst) == ("tf32", None, "fp32")


def test_a_series_of_fp8_and_narrower_floats_is_of_fp8() -> None:
    """Blackwell's kind::f8f6f4 MMA takes FP4, FP6 and FP8 at FP8's rate (ncu 2025.3's Tensor chart series
    ``op_utcqmma_src_fp4_fp6_fp8``, labels-by-version.csv): its data type is FP8, not its first type, FP4 (whose
    twice-as-fast peak is the block-scaled ``op_utcomma_src_fp4`` series'). Turing's series stays of its first."""
    s = parse_series("op_utcqmma_src_fp4_fp6_fp8_dst_fp32_sparsity_off")
    assert s is not None and (s.op, s.src, s.also, s.dtype) == ("utcqmma", "fp4", "fp6_fp8", "fp8")
    assert s.label == "Op:utcqmma Src:fp4,fp6,fp8 Dst:fp32 Sparsity:off"  # ncu's words, unchanged
    fp4 = parse_series("op_utcomma_src_fp4_dst_fp32_sparsity_off")
    assert fp4 is not None and fp4.dtype == "fp4"
    turing = parse_series("src_fp16_bf16_tf32_dst_fp32")
    assert turing is not None and turing.dtype == "fp16"


def test_the_fp8_figure_of_a_blackwell_page_is_its_f8f6f4_series_peak(tmp_path: Path) -> None:
    """The real H200 raw page with wmma_bf16's tensor series named as the B200's f8f6f4 one (its hgmma series
    and the per-source aggregates left out; named B200, CC 10.0): the FP8 dense figure is that series' peak
    x the SM clock, from the report (it was left to the table: the series was read as FP4's), and the
    launch's tensor point is of FP8 (it said fp4)."""
    old, new = "op_hmma_src_bf16_dst_fp32_sparsity_", "op_utcqmma_src_fp4_fp6_fp8_dst_fp32_sparsity_"
    raw = derive.raw_rows(data("micro_full.raw.csv"))
    header = raw[0]
    keep = [i for i, c in enumerate(header) if not re.match(r"sm__ops_path_tensor_(op_hgmma|src_)", c)]
    at = {c: i for i, c in enumerate(header)}
    for row in raw[2:]:
        row[at["CC"]], row[at["device__attribute_display_name"]] = "10.0", "NVIDIA B200"
        row[at["device__attribute_compute_capability_major"]] = "10"
        row[at["device__attribute_compute_capability_minor"]] = "0"
    page = [[r[i] for i in keep] for r in raw]
    page[0] = [c.replace(old, new) for c in page[0]]
    path = tmp_path / "b200.raw.csv"
    path.write_text(derive.write(page))
    peak = f"sm__ops_path_tensor_{old}off.sum.peak_sustained"
    clock = "sm__cycles_elapsed.avg.per_second"
    units = dict(zip(header, raw[1], strict=True))
    assert (units[peak], units[clock]) == ("", "Ghz")  # operations per cycle, 1e9 cycles per second
    expected = [float(r[at[peak]].replace(",", "")) * float(r[at[clock]].replace(",", "")) * 1e9 for r in raw[2:]]

    a = analyze(ncu_roofline.read(path))
    assert a.peaks["tensor_fp8_flops"].to_numpy() == pytest.approx(expected, rel=1e-9)
    assert (a.peaks["source_tensor_fp8_flops"] == "report").all()
    roof = a.roofline
    wmma = roof[(roof["launch_id"] == 8) & (roof["precision"] == "tensor") & roof["achieved_flops"].notna()]
    assert len(wmma) and set(wmma["dtype"]) == {"fp8"} and set(wmma["series"]) == {f"{new}off"}


# ---- resolving -------------------------------------------------------------------------------------------


def test_resolve_report_only(micro_peaks: pd.DataFrame) -> None:
    values = raw_wide("micro_full")
    peaks = resolve_peaks(values)
    assert list(peaks.columns[: len(PEAK_COLUMNS)]) == list(PEAK_COLUMNS)
    assert (peaks["peak_source"] == "report").all()
    assert peaks["device"].isna().all()
    pd.testing.assert_series_equal(peaks["fp32_flops"], micro_peaks["fp32_flops"])


def test_a_details_pages_table_roofs_are_at_its_sm_frequency() -> None:
    """A details page has no ``sm__cycles_elapsed.avg.per_second``; its Speed Of Light "SM Frequency" is the
    GPC clock (``gpc__cycles_elapsed.avg.per_second``, three digits), the clock domain of the SMs: the table's
    L1 roof (per SM per cycle x SMs x boost) is taken at it, as the raw page's is at the SM clock. Golden: the
    page's printed SM Frequency x the table figure over the boost clock; and ncu's own L1 roof of the same
    report's raw page (``l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained`` x 128 x the L1 clock), which
    the details page's roof now meets within 1 % on 13 of the 16 launches (within 10 % on the rest: launches of
    a few microseconds, whose GPC and SM clocks differ), against 10 at the boost clock."""
    page = ncu_roofline.read(data("micro_full.details.csv"))
    h200 = lookup_device("NVIDIA H200")
    clock = page.values["gpc__cycles_elapsed.avg.per_second"].to_numpy(dtype=np.float64)
    assert np.isfinite(clock).all() and "sm__cycles_elapsed.avg.per_second" not in page.values.columns
    peaks = resolve_peaks(page.values, "NVIDIA H200")
    assert (peaks["source_l1_bytes_per_s"] == "table:NVIDIA H200").all()
    assert h200.l1_bytes_per_s is not None and h200.sm_clock_hz is not None
    want = h200.l1_bytes_per_s.value * np.minimum(clock / h200.sm_clock_hz.value, 1.0)
    np.testing.assert_allclose(peaks["l1_bytes_per_s"], want)
    np.testing.assert_allclose(peaks["l1_bytes_per_s"], at_measured("l1_bytes_per_s", h200, page.values))
    raw = resolve_peaks(raw_wide("micro_full"))["l1_bytes_per_s"].to_numpy()
    off = np.abs(peaks["l1_bytes_per_s"].to_numpy() / raw - 1)
    assert (off < 0.01).sum() == 13 and (off < 0.10).all()
    assert (np.abs(h200.l1_bytes_per_s.value / raw - 1) < 0.01).sum() == 10


def test_resolve_falls_back_to_the_table_per_missing_figure() -> None:
    """train_step has no FP64 or tensor metrics: those come from the table, the rest from the report."""
    values = raw_wide("train_step")
    names = raw_texts("train_step")["device__attribute_display_name"]
    peaks = resolve_peaks(values, names)
    spec = lookup_device("NVIDIA H200")
    assert (peaks["source_fp64_flops"] == "table:NVIDIA H200").all()
    # at each launch's measured SM clock (the datasheet's 34 TFLOP/s is at the 1.98 GHz boost clock)
    np.testing.assert_allclose(peaks["fp64_flops"], at_measured("fp64_flops", spec, values))
    assert (peaks["source_tensor_bf16_flops"] == "table:NVIDIA H200").all()
    assert (peaks["source_fp32_flops"] == "report").all()
    assert (peaks["source_dram_bytes_per_s"] == "report").all()
    assert (peaks["peak_source"] == "report+table:NVIDIA H200").all()
    assert (peaks["device"] == "NVIDIA H200").all()


def test_resolve_without_device_leaves_missing_figures_missing() -> None:
    peaks = resolve_peaks(raw_wide("train_step"))
    assert peaks["fp64_flops"].isna().all()
    assert (peaks["source_fp64_flops"] == "missing").all()
    assert (peaks["peak_source"] == "report").all()


def test_overrides_win() -> None:
    values = raw_wide("micro_full")
    peaks = resolve_peaks(values, "NVIDIA H200", {"dram_bytes_per_s": 4.0e12, "tensor_bf16_flops": 9.0e14})
    assert (peaks["dram_bytes_per_s"] == 4.0e12).all()
    assert (peaks["source_dram_bytes_per_s"] == "override").all()
    assert (peaks["peak_source"] == "report+override").all()
    # a data type's override replaces the roof of each of its series
    assert (peaks["tensor_op_hmma_src_bf16_dst_fp32_sparsity_off_flops"] == 9.0e14).all()
    assert (peaks["tensor_op_hgmma_src_bf16_dst_fp32_sparsity_on_flops"] == 18.0e14).all()
    assert (peaks["tensor_op_hmma_src_fp16_dst_fp32_sparsity_off_flops"] != 9.0e14).all()


def test_a_clock_or_sm_count_given_moves_the_peaks_made_of_it() -> None:
    """ncu locks the clocks at base by default: --peak sm_clock_hz=BOOST gives the compute roofs at the boost clock.
    Each launch's report peak is per-cycle work x its own clock, so it scales by the given clock over that one (the
    H200 sample's SM clock is 1.755 GHz on every launch, its FP32 peak 2 x ffma.peak_sustained x that clock); the
    memory roofs follow their own clocks only, and a figure given itself wins over the clock's."""
    values = raw_wide("micro_full")
    base = resolve_peaks(values, "NVIDIA H200")
    boost = 1.98e9
    peaks = resolve_peaks(values, "NVIDIA H200", {"sm_clock_hz": boost})
    clock = values["sm__cycles_elapsed.avg.per_second"]
    expected = 2 * values["sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"] * boost
    np.testing.assert_allclose(peaks["fp32_flops"], expected, rtol=1e-12)
    np.testing.assert_allclose(peaks["fp32_flops"] / base["fp32_flops"], boost / clock, rtol=1e-12)
    series = "tensor_op_hmma_src_bf16_dst_fp32_sparsity_off_flops"
    np.testing.assert_allclose(peaks[series] / base[series], boost / clock, rtol=1e-12)
    assert (peaks["source_fp32_flops"] == "override").all() and (peaks["sm_clock_hz"] == boost).all()
    pd.testing.assert_series_equal(peaks["dram_bytes_per_s"], base["dram_bytes_per_s"])
    # the DRAM clock moves the DRAM roof alone; an SM count the FLOP roofs; a figure given wins
    dram = resolve_peaks(
        values, "NVIDIA H200", {"dram_clock_hz": 2 * float(values["dram__cycles_elapsed.avg.per_second"].iloc[0])}
    )
    assert dram["dram_bytes_per_s"].iloc[0] == pytest.approx(2 * base["dram_bytes_per_s"].iloc[0])
    pd.testing.assert_series_equal(dram["fp32_flops"], base["fp32_flops"])
    half = resolve_peaks(values, "NVIDIA H200", {"sm_count": 66, "fp64_flops": 1e13})
    np.testing.assert_allclose(half["fp32_flops"], base["fp32_flops"] / 2, rtol=1e-12)
    np.testing.assert_allclose(half["l1_bytes_per_s"], base["l1_bytes_per_s"] / 2, rtol=1e-12)  # L1 is per SM
    pd.testing.assert_series_equal(half["l2_bytes_per_s"], base["l2_bytes_per_s"])
    assert (half["fp64_flops"] == 1e13).all()


def test_unknown_override_key() -> None:
    with pytest.raises(AnalysisError, match="dram_bandwidth"):
        resolve_peaks(raw_wide("micro_full"), None, {"dram_bandwidth": 1.0})
    assert set(FIGURES) == OVERRIDE_KEYS


def test_unknown_device_is_no_error() -> None:
    """A GPU outside the table: the report's own peaks carry it; what nobody gives stays missing."""
    peaks = resolve_peaks(raw_wide("micro_full"), "Some Future GPU")
    assert (peaks["peak_source"] == "report").all()
    peaks = resolve_peaks(raw_wide("train_step"), "Some Future GPU")
    assert (peaks["source_fp64_flops"] == "missing").all() and peaks["fp64_flops"].isna().all()
    assert (peaks["source_dram_bytes_per_s"] == "report").all()
    pd.testing.assert_series_equal(peaks["fp32_flops"], resolve_peaks(raw_wide("train_step"))["fp32_flops"])
