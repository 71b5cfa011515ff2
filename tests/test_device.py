"""Device peaks: from the report (checked against NCU-FACTS and ncu's own numbers), the table, overrides."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from _rawwide import raw_texts, raw_wide

from ncu_roofline.device import (
    FIGURES,
    OVERRIDE_KEYS,
    PEAK_COLUMNS,
    list_devices,
    lookup_device,
    parse_series,
    peaks_from_metrics,
    resolve_peaks,
    table_figures,
)
from ncu_roofline.devices import DEVICES, DeviceSpec
from ncu_roofline.errors import AnalysisError

# ---- the table -------------------------------------------------------------------------------------------

REQUIRED = {
    "Tesla V100-SXM2-16GB",
    "Tesla V100-SXM2-32GB",
    "Tesla T4",
    "NVIDIA A100-SXM4-40GB",
    "NVIDIA A100-SXM4-80GB",
    "NVIDIA A10",
    "NVIDIA L4",
    "NVIDIA L40S",
    "NVIDIA H100 SXM",
    "NVIDIA H100 PCIe",
    "NVIDIA H200",
    "NVIDIA B200",
    "NVIDIA GeForce RTX 4090",
}


def test_table_has_the_required_gpus() -> None:
    assert set(list_devices()) >= REQUIRED
    assert len(set(list_devices())) == len(list_devices())


@pytest.mark.parametrize("spec", DEVICES, ids=lambda d: d.name)
def test_every_figure_has_a_source(spec: DeviceSpec) -> None:
    for name, fig in spec.figures().items():
        if fig is None:
            continue
        assert fig.value > 0 and math.isfinite(fig.value), name
        assert len(fig.source) > 20, (name, fig.source)
        # a document with its address, a derivation, or an ncu measurement
        assert re.search(r"https?://|arXiv:|derived:|ncu", fig.source), (name, fig.source)
    missing = [n for n, f in spec.figures().items() if f is None]
    if any(n in {"l2_bytes_per_s", "l1_bytes_per_s", "fp16_flops"} for n in missing):
        assert spec.notes, f"{spec.name}: say why {missing} are missing"


@pytest.mark.parametrize("spec", DEVICES, ids=lambda d: d.name)
def test_table_is_self_consistent(spec: DeviceSpec) -> None:
    """Orders of magnitude and the ratios the architectures fix (catches unit slips like GB/s vs TB/s)."""
    assert 1.0e9 < spec.boost_clock_hz.value < 3.0e9
    assert 20 <= spec.sm_count.value <= 200
    assert 1e11 < spec.dram_bytes_per_s.value < 1e13
    assert 1e12 < spec.fp32_flops.value < 2e14
    assert spec.fp64_flops.value <= spec.fp32_flops.value
    if spec.tensor_fp16_flops is not None:
        assert spec.tensor_fp16_flops.value > spec.fp32_flops.value
    if spec.tensor_bf16_flops is not None and spec.tensor_tf32_flops is not None:
        assert spec.tensor_tf32_flops.value == pytest.approx(spec.tensor_bf16_flops.value / 2, rel=0.03)
    if spec.l1_bytes_per_s is not None:
        per_sm_clk = spec.l1_bytes_per_s.value / spec.sm_count.value / spec.boost_clock_hz.value
        assert per_sm_clk in (64, 128)
    # FP32 = 2 FLOP x lanes x clock (64 lanes/SM on V100/T4/A100, 128 on GA10x, Ada, Hopper, Blackwell)
    lanes = 64 if spec.cc in {"7.0", "7.5", "8.0"} else 128
    assert spec.fp32_flops.value == pytest.approx(2 * lanes * spec.sm_count.value * spec.boost_clock_hz.value, rel=0.02)


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
        ("NVIDIA L40S", "NVIDIA L40S"),
        ("L4", "NVIDIA L4"),
    ],
)
def test_lookup_by_name_and_alias(name: str, expected: str) -> None:
    assert lookup_device(name).name == expected


def test_lookup_does_not_confuse_l4_and_l40s() -> None:
    assert lookup_device("NVIDIA L4").name == "NVIDIA L4"
    assert lookup_device("NVIDIA L40S").name == "NVIDIA L40S"
    with pytest.raises(AnalysisError):
        lookup_device("NVIDIA L40")


def test_unknown_device_error_lists_known_names() -> None:
    with pytest.raises(AnalysisError) as err:
        lookup_device("NVIDIA Quadro K420")
    msg = str(err.value)
    assert "Quadro K420" in msg
    assert "NVIDIA H200" in msg and "Tesla T4" in msg
    assert "--set roofline" in msg
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


# ---- resolving -------------------------------------------------------------------------------------------


def test_resolve_report_only(micro_peaks: pd.DataFrame) -> None:
    values = raw_wide("micro_full")
    peaks = resolve_peaks(values)
    assert list(peaks.columns[: len(PEAK_COLUMNS)]) == list(PEAK_COLUMNS)
    assert (peaks["peak_source"] == "report").all()
    assert peaks["device"].isna().all()
    pd.testing.assert_series_equal(peaks["fp32_flops"], micro_peaks["fp32_flops"])


def test_resolve_falls_back_to_the_table_per_missing_figure() -> None:
    """train_step has no FP64 or tensor metrics: those come from the table, the rest from the report."""
    values = raw_wide("train_step")
    names = raw_texts("train_step")["device__attribute_display_name"]
    peaks = resolve_peaks(values, names)
    spec = lookup_device("NVIDIA H200")
    assert (peaks["source_fp64_flops"] == "table:NVIDIA H200").all()
    assert (peaks["fp64_flops"] == spec.fp64_flops.value).all()
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


def test_unknown_override_key() -> None:
    with pytest.raises(AnalysisError, match="dram_bandwidth"):
        resolve_peaks(raw_wide("micro_full"), None, {"dram_bandwidth": 1.0})
    assert set(FIGURES) == OVERRIDE_KEYS


def test_unknown_device_only_fails_when_the_table_is_needed() -> None:
    # every figure is in micro_full: the device name is not looked up
    peaks = resolve_peaks(raw_wide("micro_full"), "Some Future GPU")
    assert (peaks["peak_source"] == "report").all()
    with pytest.raises(AnalysisError, match="Some Future GPU"):
        resolve_peaks(raw_wide("train_step"), "Some Future GPU")


def test_table_figures_keys_are_peak_columns() -> None:
    for spec in DEVICES:
        assert set(table_figures(spec)) <= set(FIGURES)
