"""Issue 4 integration: the analysis reads what our NcuRoofline section collects.

The inputs are the SYNTHETIC details exports of ``tests/data/sections`` (built from the real micro_full raw
page with our section file; see their README). Golden values: the verdicts the analysis gives on the real
raw page of the same launches, and the micro-kernel truth (tests/test_classify.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import analysed, data

import ncu_roofline
from ncu_roofline import device
from ncu_roofline.analysis import Analysis
from ncu_roofline.quantities import metric_names
from ncu_roofline.sections import collected_metrics

SECTION_EXPORTS = ("sections/micro_ncuroofline.details.csv", "sections/micro_ncuroofline.details-names.csv")
VERDICT = ["limiter", "compute_pipe", "regime"]


@pytest.fixture(scope="module")
def raw(micro_full: ncu_roofline.Report) -> Analysis:
    return analysed(data("micro_full.raw.csv"))


@pytest.mark.parametrize("name", SECTION_EXPORTS)
def test_section_export_gets_the_full_roofline(name: str) -> None:
    a = analysed(data(name))
    r = a.roofline
    assert len(a.launches) == 16
    for (lid, prec, level), g in r.groupby(["launch_id", "precision", "level"]):
        if prec == "tensor":
            continue
        assert len(g) == 1
        row = g.iloc[0]
        for col in ("achieved_flops", "achieved_bytes_per_s", "peak_flops", "peak_bytes_per_s"):
            assert np.isfinite(row[col]) and row[col] >= 0, (lid, prec, level, col)
    got = (
        r[r["precision"] != "tensor"].groupby("launch_id").apply(lambda g: set(zip(g.precision, g.level, strict=True)))
    )
    expected = {(p, lv) for p in ("fp64", "fp32", "fp16") for lv in ("dram", "l2", "l1")}
    assert all(s == expected for s in got)
    assert (a.peaks["peak_source"] == "report").all()  # every peak from the export itself


@pytest.mark.parametrize("name", SECTION_EXPORTS)
def test_section_export_gives_the_raw_pages_verdicts(name: str, raw: Analysis) -> None:
    a = analysed(data(name))
    ours = a.verdicts.set_index("launch_id")[VERDICT]
    ref = raw.verdicts.set_index("launch_id")[VERDICT]
    pd.testing.assert_frame_equal(ours, ref)
    assert set(a.verdicts["basis"]) == {"roofline+speed-of-light+pipes"}
    assert a.verdicts["missing"].isna().all()


@pytest.mark.parametrize("name", SECTION_EXPORTS)
def test_section_roofline_equals_the_raw_pages(name: str, raw: Analysis) -> None:
    a = analysed(data(name))
    cols = [
        "launch_id",
        "precision",
        "level",
        "achieved_flops",
        "achieved_bytes_per_s",
        "peak_flops",
        "peak_bytes_per_s",
    ]
    ours = a.roofline[a.roofline["precision"] != "tensor"][cols].reset_index(drop=True)
    ref = raw.roofline[raw.roofline["precision"] != "tensor"][cols].reset_index(drop=True)
    assert ours[["launch_id", "precision", "level"]].equals(ref[["launch_id", "precision", "level"]])
    # The details page prints 3-4 significant digits where the raw page prints 6 decimals: 1 %, or 0.01 % of
    # the roof for values too small to print to 1 %.
    for c, peak in (
        ("achieved_flops", "peak_flops"),
        ("achieved_bytes_per_s", "peak_bytes_per_s"),
        ("peak_flops", "peak_flops"),
    ):
        tol = np.maximum(0.01 * ref[c].abs(), 1e-4 * ref[peak])
        assert ((ours[c] - ref[c]).abs() <= tol).all(), c


def analysis_reads() -> set[str]:
    """Every ncu metric name the analysis reads: the metric table (quantities, the roofline's achieved work
    and traffic, the peaks, the device attributes)."""
    return set(metric_names())


@pytest.mark.parametrize("variant", ["full", "lite"])
def test_quantities_know_every_metric_the_section_collects(variant: str) -> None:
    used = analysis_reads()
    for cc, metrics in collected_metrics(variant).items():
        unknown = {
            m
            for m in metrics
            if m not in used
            and not m.startswith(device.TENSOR_PREFIX)  # read by pattern: ncu_roofline.device.tensor_series
            and not m.startswith("derived__ncu_roofline__")  # the section's own copies of the roofline formulas;
            # the analysis reads the base counters the section collects next to them
        }
        assert not unknown, (cc, sorted(unknown))
