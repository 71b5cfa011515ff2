"""A ``--print-details all`` page alone (no raw page beside it) gives ncu's own roofline points.

Golden values: ncu's chart body items combined by the chart's recipe on the test side (``_ncuchart``, which
does not import the code under test). Acceptance: within 1 % at every level and precision where ncu draws a
point (achieved work and traffic above zero), for the FP charts and the launch's dominant tensor series.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest
from _ncuchart import chart_points as ncu_points
from _ncuchart import series_metric_suffix
from _rawwide import DETAILS_ALL
from conftest import analysed, read_shared

from ncu_roofline.chart import CHART_RECIPE, chart_points

QUANTITIES = ("achieved_flops", "achieved_bytes_per_s", "intensity", "peak_flops", "peak_bytes_per_s")
REPORTS = ("micro_full", "llm_full", "micro_roof")


@pytest.fixture(scope="module", params=REPORTS)
def case(request: pytest.FixtureRequest) -> dict[str, Any]:
    path = DETAILS_ALL[request.param]
    report = read_shared(path)
    name = str(report.launches["report"].iloc[0])
    analysis = analysed(path)
    roof = analysis.roofline
    lut = {
        (int(r.launch_id), str(r.precision), str(r.level), None if r.precision != "tensor" else str(r.series)): r
        for r in roof.itertuples()
    }
    return {"points": ncu_points(path, name), "lut": lut, "analysis": analysis, "report": report}


def test_points_equal_ncu_chart_within_one_percent(case: dict[str, Any]) -> None:
    checked = 0
    for pt in case["points"]:
        series = series_metric_suffix(pt.series) if pt.series else None
        row = case["lut"].get((pt.launch_id, pt.precision, pt.level, series))
        if row is None:
            assert pt.precision == "tensor", (pt.launch_id, pt.precision, pt.level)
            continue  # a tensor series other than the launch's dominant one
        drawn = pt.quantity("achieved_flops")[0] > 0 and pt.quantity("achieved_bytes_per_s")[0] > 0
        for q in QUANTITIES:
            if q == "intensity" and not drawn:
                continue
            want = pt.quantity(q)[0]
            got = float(getattr(row, q))
            assert math.isclose(got, want, rel_tol=0.01, abs_tol=0.0), (pt.launch_id, pt.precision, pt.level, q)
        checked += drawn
    assert checked > 0


def test_every_drawn_fp_point_and_dominant_tensor_point_is_there(case: dict[str, Any]) -> None:
    """Every FP point ncu draws has its row; every launch with tensor work has its dominant series' row."""
    lut = case["lut"]
    tensor_work: dict[int, float] = {}
    for pt in case["points"]:
        work = pt.quantity("achieved_flops")[0]
        if pt.precision == "tensor":
            if pt.series.startswith("Op:") and pt.level == "dram":
                tensor_work[pt.launch_id] = max(tensor_work.get(pt.launch_id, 0.0), work)
            continue
        if work > 0:
            assert (pt.launch_id, pt.precision, pt.level, None) in lut
    for lid, work in tensor_work.items():
        row = lut[(lid, "tensor", "dram", next(k[3] for k in lut if k[0] == lid and k[1] == "tensor"))]
        if work > 0:
            assert math.isclose(float(row.achieved_flops), work, rel_tol=0.01)


def test_chart_rows_record_their_recipe(case: dict[str, Any]) -> None:
    roof = case["analysis"].roofline
    assert (roof["work_recipe"] == CHART_RECIPE).any()
    drawn = roof[(roof["achieved_flops"] > 0).fillna(False)]
    assert drawn["work_recipe"].notna().all()
    assert drawn["traffic_recipe"].notna().all()


def test_no_missing_roofline_on_a_details_all_page(case: dict[str, Any]) -> None:
    """The page has every chart: nothing asks the user to collect the roofline sections again."""
    missing = case["analysis"].verdicts["missing"].dropna().astype(str)
    assert not missing.str.contains("roofline").any(), missing.tolist()


def test_chart_points_of_a_page_without_charts_are_empty() -> None:
    report = read_shared(DETAILS_ALL["micro_full"].with_name("micro_full.details.csv"))
    assert chart_points(report.metrics).empty


def test_points_frame_shape() -> None:
    report = read_shared(DETAILS_ALL["micro_roof"])
    pts = chart_points(report.metrics)
    # 16 launches x 3 FP charts x 3 levels, plus tensor series
    fp = pts[pts["precision"] != "tensor"]
    assert len(fp) == 16 * 3 * 3
    assert pd.isna(fp["series"]).all()
    assert pts[pts["precision"] == "tensor"]["series"].str.startswith(("op_", "src_")).all()


KEY = ["report", "process_id", "launch_id", "precision", "level", "series"]


@pytest.mark.parametrize("order", ["reversed", "shuffled", "another report first"])
def test_points_do_not_depend_on_the_order_of_the_metric_rows(order: str) -> None:
    """The points are grouped by codes that order as their texts do: any order of the rows gives the same points,
    sorted by launch key, precision, level and series (the FP charts' missing series first)."""
    metrics = read_shared(DETAILS_ALL["micro_full"]).metrics
    expected = chart_points(metrics)
    assert expected.equals(expected.sort_values(KEY, na_position="first", kind="stable").reset_index(drop=True))
    if order == "reversed":
        rows = metrics.iloc[::-1]
    elif order == "shuffled":
        rows = metrics.sample(frac=1.0, random_state=7)
    else:  # the same launches under a report named before it, then the report itself
        renamed = metrics.assign(report=metrics["report"].cat.rename_categories(lambda c: f"a_{c}"))
        rows = pd.concat([metrics, renamed]).astype({"report": "category"})
    points = chart_points(rows.reset_index(drop=True))
    assert points.equals(points.sort_values(KEY, na_position="first", kind="stable").reset_index(drop=True))
    if order == "another report first":
        other = points[points["report"].str.startswith("a_")].reset_index(drop=True)
        assert len(other) == len(expected) and (other.index == expected.index).all()
        pd.testing.assert_frame_equal(other.drop(columns="report"), expected.drop(columns="report"))
        points = points[~points["report"].str.startswith("a_")].reset_index(drop=True)
    pd.testing.assert_frame_equal(points, expected, check_exact=True)


def test_a_chart_item_without_a_label_has_no_part_in_its_point() -> None:
    metrics = read_shared(DETAILS_ALL["micro_full"]).metrics
    sections = metrics["section"].astype(str)
    achieved = (
        sections.str.contains("Hierarchical Roofline Chart")
        & metrics["body_item"].astype(str).str.contains("Achieved Value")
        & (metrics["label"].astype(str) == "DRAM Bandwidth")  # a part of the point, but not of its work
    ).to_numpy()
    rows = metrics.index[achieved][::5]
    assert len(rows) > 10
    unlabelled = metrics.copy()
    unlabelled.loc[rows, "label"] = None
    pd.testing.assert_frame_equal(chart_points(unlabelled), chart_points(metrics.drop(index=rows)), check_exact=True)
