"""Partial verdicts, said as partial: a launch gets the verdict its measured units allow, the units that were
not measured are listed with it (``unmeasured``; JSON, terminal and HTML mark it), "bound" on DRAM is never
settled while L2 or L1 were not measured, and ``missing`` names only what the file lacks, with the ncu option.

Golden facts: the samples README truth table (stream_triad is HBM bound at 87 % of DRAM; fp32_fma compute
bound) and the metric lists of the files (what each export has).
"""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import SHARED_ROOT, analysed, data, read_shared

import ncu_roofline
from ncu_roofline.classify import classify
from ncu_roofline.device import resolve_peaks
from ncu_roofline.model import launch_index
from ncu_roofline.quantities import quantities
from ncu_roofline.report.jsonout import to_dict
from ncu_roofline.report.terminal import render_terminal
from ncu_roofline.report.viewmodel import PARTIAL_MARK
from ncu_roofline.roofline import roofline

GENE_RAW = SHARED_ROOT / "ncu-wild" / "ncu-2022.3" / "gene_dzv.raw.csv"


def _by_id(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.set_index("launch_id")


@pytest.fixture(scope="module")
def nersc() -> ncu_roofline.Report:
    """The H200 --metrics run of the NERSC recipe: byte counts per level and FP instruction counts, no SOL."""
    return read_shared(data("micro_metrics.raw.csv"))


def test_dram_bound_is_not_settled_without_l2_and_l1(micro_full: ncu_roofline.Report) -> None:
    """stream_triad with only its DRAM figures: HBM bound (86.6 % of DRAM), partial, L2 and L1 listed."""
    values = micro_full.values.reindex(launch_index(micro_full.launches))
    keep = [c for c in values.columns if c.startswith(("dram__", "gpu__time_duration"))]
    values = values[keep]
    v = _by_id(classify(quantities(values), roofline(values, resolve_peaks(values, "H200"))))
    triad = v.loc[0]
    assert triad["limiter"] == "hbm" and triad["regime"] == "bound"
    assert bool(triad["partial"]) is True
    assert triad["unmeasured"] == "l2, l1, compute"
    assert "partial: l2, l1, compute not measured (could be busier)" in triad["reason"]
    assert "--metrics lts__t_bytes.sum.per_second" in triad["missing"]


def test_latency_is_never_claimed_with_units_unmeasured(micro_full: ncu_roofline.Report) -> None:
    """l2_reread (L2 56 %, DRAM 2 %) with only DRAM measured: no verdict, not "latency"."""
    values = micro_full.values.reindex(launch_index(micro_full.launches))
    values = values[[c for c in values.columns if c.startswith(("dram__", "gpu__time_duration"))]]
    v = _by_id(classify(quantities(values), roofline(values, resolve_peaks(values, "H200"))))
    assert pd.isna(v.loc[2, "limiter"]) and pd.isna(v.loc[2, "regime"])
    assert v.loc[2, "unmeasured"] == "l2, l1, compute"
    assert "no verdict" in v.loc[2, "reason"]


def test_nersc_run_is_partial_on_the_sm_pipes(nersc: ncu_roofline.Report) -> None:
    v = _by_id(analysed(data("micro_metrics.raw.csv")).verdicts)
    # memory-bound verdicts: the SM's non-FP work was not measured and could be busier, nor was L1's shared-memory
    # work (the recipe's l1tex__t_bytes counts global and local traffic only), nor L2's atomics, tag lookups and
    # fills (its lts__t_bytes count the sectors L2 sends the SMs)
    assert v.loc[0, "limiter"] == "hbm" and bool(v.loc[0, "partial"])
    assert v.loc[0, "unmeasured"] == "sm, shared, l2_other"
    # compute bound on FP32 FLOPs: every memory level's bytes were measured, but not L1's shared-memory work, which
    # could be busier than compute's bound (the recipe has no Memory Throughput to cap it)
    assert v.loc[5, "limiter"] == "compute" and bool(v.loc[5, "partial"])
    assert v.loc[5, "reason"].endswith("partial: shared, l2_other not measured")
    # smem_bank_conflict (32-way conflicts, L1 at 100 % on the full page) reads 0 % of L1 bytes: its latency verdict
    # says L1's shared-memory work was not measured, and what collects it
    assert v.loc[4, "regime"] == "latency" and "shared" in v.loc[4, "unmeasured"]
    assert "l1tex__throughput.avg.pct_of_peak_sustained_elapsed" in v.loc[4, "missing"]
    # l1_reread (integer-bound in the truth table) shows every measured unit under the bound: the latency verdict
    # the measured units allow, partial, saying the SM pipes could be at their bound and what collects them
    assert v.loc[3, "regime"] == "latency" and bool(v.loc[3, "partial"])
    assert v.loc[3, "unmeasured"] == "sm, shared, l2_other"
    assert (
        "every measured unit" in v.loc[3, "reason"]
        and "sm, shared, l2_other not measured (could be at their bound)" in v.loc[3, "reason"]
    )
    # atomic_hot, its L2 atomic unit 100 % busy on the full page at 1 % of L2's bytes: L2's other work is named
    assert v.loc[11, "regime"] == "latency" and "l2_other" in v.loc[11, "unmeasured"]
    assert "lts__throughput.avg.pct_of_peak_sustained_elapsed" in v.loc[11, "missing"]
    assert "sm__throughput" in v.loc[3, "missing"] and "--section SpeedOfLight" in v.loc[3, "missing"]
    # wherever a regime is latency or launch here, the verdict is partial: the SM was not measured
    open_regime = v["regime"].isin(["latency", "launch"])
    assert open_regime.any() and v.loc[open_regime, "partial"].astype(bool).all()


def test_full_exports_are_not_partial(micro_full: ncu_roofline.Report) -> None:
    v = analysed(data("micro_full.raw.csv")).verdicts
    assert v["unmeasured"].isna().all()
    assert not v["partial"].astype(bool).any()


def test_json_terminal_and_html_mark_partial(nersc: ncu_roofline.Report) -> None:
    a = analysed(data("micro_metrics.raw.csv"))
    d = to_dict(a)
    first = next(x for x in d["launches"] if x["id"] == 0)
    assert first["unmeasured"] == ["sm", "shared", "l2_other"] and first["partial"] is True
    assert first["recipes"]["l2_bytes_per_s"] == "lts__t_bytes.sum.per_second"
    assert all(x["unmeasured"] == ["sm", "shared", "l2_other"] for x in d["launches"])
    text = render_terminal(a, width=120)
    assert f"HBM{PARTIAL_MARK}" in text and "partial verdict" in text
    from ncu_roofline.report.html import page_data
    from ncu_roofline.report.viewmodel import build_view

    page = page_data(build_view(a))
    triad = next(k for k in page["kernels"] if k["name"] == "stream_triad")
    assert triad["partial"] is True


def test_the_lead_says_when_latency_bound_time_stands_on_partial_verdicts() -> None:
    """The NERSC recipe collects neither SM throughput nor L1's shared-memory work (the file's metric list), so
    every launch's verdict is partial: the lead's latency sentence says "every measured unit" and names what was
    not measured; wmma_bf16 (a tensor-core kernel, its tensor work among what the recipe misses) is one of them.
    A full export (micro_full: SpeedOfLight collected) keeps the plain sentence."""
    from ncu_roofline.report.viewmodel import build_view

    nersc_view = build_view(analysed(data("micro_metrics.raw.csv")))
    latency = next(x for x in nersc_view.lead if "latency-bound" in x and "GPU time:" in x)
    assert "every measured unit below 60% of its peak" in latency
    assert "For 100.0% of that time the verdicts are partial" in latency
    assert (
        "(the SM's integer, tensor and issue work, L1's shared-memory work, L2's atomics, tag lookups and fills) "
        "could be at its bound" in latency
    )
    wmma = next(k for k in nersc_view.kernels if k.display_name == "wmma_bf16")
    assert wmma.regime == "latency" and wmma.partial
    text = render_terminal(analysed(data("micro_metrics.raw.csv")), width=120)
    assert "the verdicts are partial" in text

    full = build_view(analysed(data("micro_full.raw.csv")))
    plain = next(x for x in full.lead if "latency-bound" in x and "GPU time:" in x)
    assert "every unit below 60% of its peak" in plain and "partial" not in plain


def test_missing_names_only_what_the_file_lacks() -> None:
    """gene_dzv (ncu 2022.3 raw page, NERSC time-flops run): cycles, clock and FP64 counts, no bytes. The
    duration and FP64 work are there (not missing); the memory levels are, with the option that collects them."""
    a = analysed(GENE_RAW)
    v = a.verdicts
    assert "unclassified: no verdict: hbm, l2, l1, sm not measured" in render_terminal(a, width=200)
    for text in v["missing"]:
        assert "gpu__time_duration" not in text  # the duration comes from cycles / clock
        assert "--metrics dram__bytes.sum.per_second" in text
        assert "--metrics lts__t_bytes.sum.per_second" in text
    assert (v["unmeasured"] == "hbm, l2, l1, sm").all()
    assert v["limiter"].isna().all()  # FP64 at 0.07 % of its peak says nothing while memory is unmeasured


@pytest.mark.parametrize("name", ["micro_full.raw.csv", "micro_full.details.csv", "micro_metrics.raw.csv"])
def test_every_text_column_of_the_analysis_is_text_with_na_where_missing(name: str) -> None:
    """Every text column of every frame of an ``Analysis`` in one dtype, <NA> (never NaN, never "") where
    missing: ``recipes``' FLOP and byte columns, ``launches``' device columns and ``utilization``'s unit and
    source were pandas' ``str`` (NaN where missing) beside the others' ``string``. The details page has no FLOP
    counts (its FP recipes all <NA>)."""
    a = analysed(data(name))
    frames = {
        f: getattr(a, f)
        for f in ("launches", "quantities", "peaks", "roofline", "utilization", "verdicts", "hints", "recipes")
    }
    for frame_name, frame in frames.items():
        for column, dtype in frame.dtypes.items():
            assert str(dtype) not in ("object", "str"), (frame_name, column, dtype)
            if isinstance(dtype, pd.StringDtype):
                assert dtype.na_value is pd.NA, (frame_name, column)
    assert not (a.recipes == "").any().any()
    if name == "micro_full.details.csv":
        assert a.recipes["fp64_flops"].isna().all() and a.recipes["duration"].notna().all()
