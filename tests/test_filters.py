"""ncu_roofline.filters: launches by kernel regex and NVTX range, and the views of an Analysis they give.

Expected launches come from the construction of the micro benchmark (microbench.cu): its NVTX ranges are
``memory`` (launches 0-4), ``compute`` (5-8) and ``pathologies`` (9-15), and tiny_launch runs 4 times.
"""

from __future__ import annotations

import pytest
from _analyses import sample

from ncu_roofline.analysis import Analysis
from ncu_roofline.errors import NoLaunchesError
from ncu_roofline.filters import (
    compile_kernel_pattern,
    filter_analysis,
    launch_mask,
    nvtx_matches,
    subset_report,
)
from ncu_roofline.model import LAUNCH_KEY, launch_index


@pytest.fixture(scope="module")
def raw() -> Analysis:
    return sample("micro_full.raw.csv")


@pytest.fixture(scope="module")
def details() -> Analysis:
    return sample("micro_full.details.csv")


@pytest.mark.parametrize(
    ("path", "wanted", "hit"),
    [
        ("train/step/fwd", "step", True),
        ("train/step/fwd", "step/fwd", True),
        ("train/step/fwd", "step/f*", True),
        ("train/step/fwd", "fwd/step", False),  # nesting order matters
        ("train/step/fwd", "ste", False),  # a whole range, not a substring
        ("train/step/fwd", "*ep", True),
        ("train/step/fwd", "step/", True),  # ncu's push/pop syntax
        ("memory", "Memory", False),  # case-sensitive, as NVTX names are
        (None, "memory", False),
        ("aten::linear, seq = 470, op_id = 22/aten::to", "aten::linear*", True),
    ],
)
def test_nvtx_matches(path: str | None, wanted: str, hit: bool) -> None:
    assert nvtx_matches(path, wanted) is hit


def test_kernel_regex_searches_full_and_short_names(raw: Analysis) -> None:
    lv = raw.launches
    assert lv.loc[launch_mask(lv, kernel=["^tiny"]), "launch_id"].tolist() == [12, 13, 14, 15]
    # the demangled name carries the parameter list: search finds a parameter type
    assert lv.loc[launch_mask(lv, kernel=[r"__half2 \*"]), "display_name"].tolist() == ["half_hfma2"]
    # several patterns: any of them
    assert lv.loc[launch_mask(lv, kernel=["fp32_fma", "fp64_fma"]), "launch_id"].tolist() == [5, 6]


def test_nvtx_and_kernel_filters_combine(raw: Analysis) -> None:
    lv = raw.launches
    assert lv.loc[launch_mask(lv, nvtx=["compute"]), "launch_id"].tolist() == [5, 6, 7, 8]
    assert lv.loc[launch_mask(lv, nvtx=["memory", "compute"]), "launch_id"].tolist() == list(range(9))
    assert lv.loc[launch_mask(lv, kernel=["_fma$"], nvtx=["compute"]), "launch_id"].tolist() == [5, 6]
    assert launch_mask(lv).all()


def test_bad_regex_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="not a regular expression"):
        compile_kernel_pattern("(")


@pytest.mark.parametrize("fixture", ["raw", "details"])
def test_filtered_analysis_keeps_every_frame_consistent(fixture: str, request: pytest.FixtureRequest) -> None:
    full: Analysis = request.getfixturevalue(fixture)
    view = filter_analysis(full, kernel=["tiny_launch"])
    keys = set(launch_index(view.launches))
    assert len(keys) == 4
    for name in ("launches", "verdicts", "roofline", "utilization", "hints"):
        frame = getattr(view, name)
        assert set(launch_index(frame)) <= keys, name
    assert set(view.quantities.index) == keys
    assert set(view.peaks.index) == keys
    assert set(launch_index(view.report.launches)) == keys
    assert set(launch_index(view.report.metrics)) == keys
    assert set(view.report.values.index) == keys
    # rows of the kept launches are the whole analysis' rows, unchanged
    kept = full.verdicts[launch_index(full.verdicts).isin(list(keys))].reset_index(drop=True)
    assert view.verdicts.reset_index(drop=True).equals(kept)
    # ncu's rule results (details page) follow the launches
    assert set(launch_index(view.report.rules)) <= keys


def test_no_filter_returns_the_analysis_itself(raw: Analysis) -> None:
    assert filter_analysis(raw) is raw


def test_a_filter_that_keeps_nothing_names_the_kernels(raw: Analysis) -> None:
    with pytest.raises(NoLaunchesError, match="--kernel 'gemm' selects none of the 16 launches") as err:
        filter_analysis(raw, kernel=["gemm"])
    assert "stream_triad" in str(err.value)
    with pytest.raises(NoLaunchesError, match="NVTX ranges: compute, memory, pathologies"):
        filter_analysis(raw, nvtx=["training"])


def test_subset_report_of_nothing_keeps_the_columns(raw: Analysis) -> None:
    empty = subset_report(raw.report, launch_index(raw.launches.iloc[0:0]))
    assert len(empty.launches) == 0
    assert list(empty.launches.columns) == list(raw.report.launches.columns)
    assert set(LAUNCH_KEY) <= set(empty.metrics.columns)
    assert len(empty.metrics) == 0
