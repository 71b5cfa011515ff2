"""Whole-program views on the training step (382 launches of 48 kernels): rollups per kernel with the right
rule per metric, GPU time by limiter and regime. Golden values are recomputed here from ncu's own numbers
(the raw page's ``gpu__time_duration.sum`` and SOL percentages), not read back from the code under test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _analyses import sample
from conftest import data
from edits import untimed

import ncu_roofline
from ncu_roofline.analysis import Analysis, analyze
from ncu_roofline.report.jsonout import to_dict
from ncu_roofline.summary import (
    GROUP_COLUMNS,
    kernel_groups,
    kernel_rollups,
    rollup_quantities,
    summarize,
    time_by,
    top_kernels,
)


@pytest.fixture(scope="module")
def train() -> Analysis:
    return sample("train_step.raw.csv")


def raw_table(a: Analysis) -> pd.DataFrame:
    v = a.report.values.reset_index()
    names = a.launches[["launch_id", "kernel_name"]]
    return v.merge(names, on="launch_id")


def test_kernel_groups_add_up(train: Analysis) -> None:
    g = kernel_groups(train)
    assert list(g.columns) == list(GROUP_COLUMNS)
    assert g["launches"].sum() == 382
    # ncu's own per-kernel summary of the same run names 48 distinct kernels (the samples README says 47)
    summary = pd.read_csv(data("train_step.summary-per-kernel.csv"), usecols=["Kernel Name"])
    assert len(g) == summary["Kernel Name"].nunique() == 48
    total = train.report.values["gpu__time_duration.sum"].sum() * 1e9
    assert g["duration_ns"].sum() == pytest.approx(total)
    assert g["share"].sum() == pytest.approx(1.0)
    assert g["duration_ns"].is_monotonic_decreasing


def test_group_verdict_is_the_one_holding_most_time(train: Analysis) -> None:
    g = kernel_groups(train).set_index("kernel_name")
    lv = train.launches.assign(limiter=train.verdicts["limiter"].to_numpy(), regime=train.verdicts["regime"].to_numpy())
    for name, grp in lv.groupby("kernel_name"):
        by = grp.groupby("regime")["duration_ns"].sum()
        assert g.loc[name, "regime"] == by.idxmax(), name


def test_rollups_use_each_quantitys_rule(train: Analysis) -> None:
    raw = raw_table(train)
    r = kernel_rollups(train).reset_index()
    name = raw["kernel_name"].value_counts().idxmax()  # the kernel with the most launches
    mine = raw[raw["kernel_name"] == name]
    assert len(mine) >= 10
    row = r[r["kernel_name"] == name].iloc[0]
    d = mine["gpu__time_duration.sum"]
    assert row["launches"] == len(mine)
    assert row["duration"] == pytest.approx(d.sum())  # counts and times: summed
    sm = mine["sm__throughput.avg.pct_of_peak_sustained_elapsed"]
    assert row["sm_throughput_pct"] == pytest.approx((sm * d).sum() / d.sum())  # rates: time-weighted mean
    assert row["sm_throughput_pct"] <= 100  # never a sum of percentages
    assert row["registers_per_thread"] == mine["launch__registers_per_thread"].max()  # limits: max
    assert row["theoretical_occupancy_pct"] == mine["sm__maximum_warps_per_active_cycle_pct"].min()


def test_rollup_weights_ignore_missing_values() -> None:
    frame = pd.DataFrame({"duration": [1.0, 3.0, 2.0], "sm_throughput_pct": [10.0, np.nan, 40.0]})
    out = rollup_quantities(frame, pd.Series(["k", "k", "k"]))
    assert out.loc["k", "sm_throughput_pct"] == pytest.approx((10 * 1 + 40 * 2) / 3)
    assert out.loc["k", "duration"] == 6.0


def test_time_by_regime_on_a_whole_application(train: Analysis) -> None:
    t = time_by(train, "regime")
    assert t["launches"].sum() == 382
    assert t["share"].sum() == pytest.approx(1.0)
    # "A whole application: most launches are small, latency- or launch-bound" (samples README)
    by = t.set_index("regime")["launches"]
    assert by.get("latency", 0) + by.get("launch", 0) > 382 / 2


def test_a_summary_page_counts_each_group_as_its_invocations(train: Analysis) -> None:
    """A row of ncu's per-kernel summary page stands for its ``Invocations`` launches (its metrics their average):
    the totals, the kernels, the verdict tables and the findings count it that many times, so they agree with the
    raw page of the same run (ncu's own launches and durations). The page said 68 launches and 2.85 ms here."""
    page = analyze(ncu_roofline.read(data("train_step.summary-per-kernel.csv")))
    assert len(page.launches) == 68  # 68 groups (kernel and launch shape) ...
    s, raw = summarize(page), summarize(train)
    assert s.launches == int(page.launches["invocations"].sum()) == raw.launches == 382  # ... of 382 launches
    # ncu's averages of gpu__time_duration.sum times the invocations: the raw page's sum, to its printed digits
    total = float(train.quantities["duration"].sum()) * 1e9
    assert s.gpu_time_ns == pytest.approx(total, rel=1e-4)
    for by in (s.by_limiter, s.by_regime):
        assert by["launches"].sum() == 382
        assert by["duration_s"].sum() * 1e9 == pytest.approx(total, rel=1e-4)
    kernels = s.kernels.set_index("kernel_name")
    raw_kernels = train.launches.groupby("kernel_name").size()
    assert kernels["launches"].sort_index().to_dict() == raw_kernels.to_dict()
    assert kernels["timed_launches"].sum() == 382
    times = train.launches.groupby("kernel_name")["duration_ns"]  # the page prints 3 digits: 2.50 us for 2,496 ns
    assert kernels["mean_duration_ns"].sort_index().to_numpy() == pytest.approx(times.mean().to_numpy(), rel=2e-3)
    # a hint of every launch of a group counts the group's invocations: tail effect on the same 165 launches
    assert s.findings["launches"].max() <= 382
    assert (s.findings["duration_ns"] <= s.gpu_time_ns * (1 + 1e-9)).all()
    tail = s.findings.set_index("hint").loc["tail_effect"]
    raw_tail = raw.findings.set_index("hint").loc["tail_effect"]
    assert tail["launches"] == raw_tail["launches"]
    assert tail["duration_ns"] == pytest.approx(raw_tail["duration_ns"], rel=1e-4)
    assert (s.kernel_hints["launches"] <= kernels["launches"].to_numpy()[s.kernel_hints["kernel"]]).all()


def test_a_summary_page_per_nvtx_range_counts_invocations() -> None:
    """ncu 2024.2's per-NVTX summary of micro_roof: 13 groups of 16 launches (tiny_launch 4 invocations) in the
    three ranges microbench.cu pushes; each range's launches are its groups' invocations."""
    page = analyze(ncu_roofline.read(data("wild/ncu-2024.2/micro_roof.summary-per-nvtx.csv.gz")))
    assert len(page.launches) == 13
    s = summarize(page)
    assert s.launches == 16
    assert s.ranges["launches"].sum() == 16
    groups = page.launches.assign(range=page.launches["nvtx_path"].str.split("/").str[0])
    expected = groups.groupby("range")["invocations"].sum()
    assert s.ranges.set_index("range")["launches"].sort_index().to_dict() == expected.to_dict()


def test_top_kernels(train: Analysis) -> None:
    top = top_kernels(train, 5)
    assert len(top) == 5
    assert top["duration_ns"].iloc[0] == kernel_groups(train)["duration_ns"].max()


def test_json_terminal_and_page_read_one_summary(train: Analysis) -> None:
    """The JSON summary and the view model come from the same Summary: same kernels in the same order, same
    GPU time by limiter, same findings."""
    from ncu_roofline.report.jsonout import to_dict
    from ncu_roofline.report.viewmodel import build_view
    from ncu_roofline.summary import summarize

    s = summarize(train)
    doc = to_dict(train, s)["summary"]
    view = build_view(train, s)
    assert [k["kernel"] for k in doc["top_kernels"]] == [k.kernel_name for k in view.kernels[:10]]
    json_time = {r["limiter"]: r["duration_ns"] for r in doc["by_limiter"]}
    assert {t.key: t.duration_ns for t in view.by_limiter if t.launches} == pytest.approx(json_time)
    assert {(f["hint"], f["source"]) for f in doc["findings"]} == {(f.hint, f.source) for f in view.findings}
    assert doc["gpu_time_ns"] == pytest.approx(view.header.gpu_time_ns)
    # ncu's own durations: the summary's GPU time is the sum of gpu__time_duration.sum over the launches
    assert s.gpu_time_ns == pytest.approx(float(train.quantities["duration"].sum()) * 1e9)
    assert repr(s).startswith("<Summary: 382 launches of 48 kernels")


def test_print_of_a_report_or_analysis_is_one_short_line() -> None:
    from _analyses import sample

    a = sample("micro_full.raw.csv")  # 16 launches (the sample's README table)
    assert repr(a.report) == "<Report micro_full.raw: 16 launches, 0 rule rows, raw page>"
    assert repr(a).startswith("<Analysis of <Report micro_full.raw") and "16 launches" in repr(a)
    assert "\n" not in repr(a) and len(repr(a)) < 200
    assert "duration_ns" in a.launches.columns  # each launch's duration, ns


def test_time_not_measured_is_no_time_never_zero(tmp_path: Path) -> None:
    # the A100 export's --metrics list has no duration metric: 240 launches of unknown time, not of 0 ns
    a = sample("wild/public/a100_opinsight_pooling.csv.gz")
    assert a.quantities["duration"].isna().all()
    for column in ("limiter", "regime"):
        t = time_by(a, column)
        assert t["launches"].tolist() == [240]
        assert t["duration_s"].isna().all() and t["share"].isna().all()
    assert kernel_groups(a)["duration_ns"].isna().all()
    doc = to_dict(a, summarize(a))["summary"]
    assert [(r["duration_ns"], r["launches"]) for r in doc["by_limiter"]] == [(None, 240)]
    assert [(r["duration_ns"], r["launches"]) for r in doc["by_regime"]] == [(None, 240)]
    assert doc["gpu_time_ns"] is None
    # one kernel's durations not collected (the H200 export edited): that kernel has no time, the others ncu's
    full = analyze(ncu_roofline.read(untimed(data("micro_full.raw.csv"), tmp_path / "u.raw.csv", "stream_triad")))
    g = kernel_groups(full).set_index("display_name")
    assert np.isnan(g.loc["stream_triad", "duration_ns"])
    own = raw_table(sample("micro_full.raw.csv"))
    for name, d in own.groupby(own["kernel_name"].str.split("(").str[0])["gpu__time_duration.sum"]:
        if name != "stream_triad":
            assert g.loc[name.split("<")[0], "duration_ns"] == pytest.approx(d.sum() * 1e9)
    assert list(g.index[-1:]) == ["stream_triad"]  # sorted last, after every kernel with a time


def test_a_kernels_why_is_that_of_a_launch_with_its_verdict(train: Analysis) -> None:
    """A kernel's verdict is its launches' by GPU time, and its reason the longest such launch's (train_step's
    bfloat16 copy: latency-bound by GPU time, its longest launch HBM-bound; the reason given was that launch's,
    "bound", beside "latency"). Where no launch has the verdict, the longest launch's."""
    k = summarize(train).kernels
    v = train.verdicts.reset_index(drop=True)
    d = train.launches["duration_ns"].to_numpy(dtype=float)
    launch_kernel = summarize(train).launch_kernel
    checked = 0
    for i, row in k.iterrows():
        mine = np.flatnonzero(launch_kernel == i)
        same = [j for j in mine if v.loc[j, "regime"] == row["regime"] and v.loc[j, "limiter"] == row["limiter"]]
        if not same or pd.isna(row["reason"]):
            continue
        longest = max(same, key=lambda j: (np.nan_to_num(d[j], nan=-1.0), -j))
        assert row["reason"] == v.loc[longest, "reason"], row["display_name"]
        checked += 1
    assert checked > 30
    copy = k[k["display_name"].str.contains("bfloat16_copy")].iloc[0]
    assert copy["regime"] == "latency" and str(copy["reason"]).startswith("latency-bound")
