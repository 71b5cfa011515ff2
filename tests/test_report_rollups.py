"""The report's rollups (ncu_roofline.rollups) and NVTX op names (io.identity.nvtx_op), checked against sums and
counts taken straight from the analysis frames of the real samples."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _analyses import sample

from ncu_roofline.io.identity import nvtx_op
from ncu_roofline.summary import (
    HINT_GROUP_COLUMNS,
    RANGE_COLUMNS,
    group_utilization,
    hint_groups,
    range_groups,
    summarize,
)


@pytest.mark.parametrize(
    ("path", "depth", "expected"),
    [
        ("aten::linear, seq = 470, op_id = 22/aten::to, seq = 470, op_id = 23", 1, "aten::linear"),
        ("aten::linear, seq = 470, op_id = 22/aten::to, seq = 470, op_id = 23", None, "aten::linear/aten::to"),
        ("autograd::engine::evaluate_function: AddmmBackward0, op_id = 2090/AddmmBackward0, seq = 524", 1,
         "AddmmBackward0"),
        ("aten::mm, seq = 3, op_id = 9, sizes = [[8, 512], [512, 512]]", 1, "aten::mm"),
        ("memory", 1, "memory"),
        ("a/b/c", 2, "a/b"),
        (None, 1, None),
        ("", 1, None),
    ],
)  # fmt: skip
def test_nvtx_op(path: str | None, depth: int | None, expected: str | None) -> None:
    assert nvtx_op(path, depth=depth) == expected


def test_range_groups_of_the_training_step() -> None:
    a = sample("train_step.raw.csv")
    r = range_groups(a)
    assert list(r.columns) == list(RANGE_COLUMNS)
    assert r["launches"].sum() == len(a.launches) == 382
    assert r["share"].sum() == pytest.approx(1.0)
    assert (np.diff(r["duration_ns"].to_numpy()) <= 0).all()
    # the backward of the linear layers: every launch whose outermost range is the autograd node AddmmBackward0
    prefix = "autograd::engine::evaluate_function: AddmmBackward0,"
    mine = a.launches[a.launches["nvtx_path"].str.startswith(prefix)]
    top = r.iloc[0]
    assert top["range"] == "AddmmBackward0"
    assert top["launches"] == len(mine) == 72
    assert top["duration_ns"] == pytest.approx(mine["duration_ns"].sum())
    assert top["kernels"] == mine["kernel_name"].nunique()


def test_range_groups_without_nvtx_is_empty() -> None:
    a = sample("micro_full.raw.csv")
    launches = a.launches.copy()
    launches["nvtx_path"] = launches["nvtx_path"].where(launches["launch_id"] < 0)
    from dataclasses import replace

    r = range_groups(replace(a, launches=launches))
    assert r.empty and list(r.columns) == list(RANGE_COLUMNS)


def test_group_utilization_is_time_weighted() -> None:
    a = sample("micro_full.raw.csv")
    g = group_utilization(a)
    u = a.utilization.merge(a.launches[["launch_id", "kernel_name", "duration_ns"]], on="launch_id")
    # one launch: its own figure
    triad = g[(g["kernel_name"].str.startswith("stream_triad")) & (g["unit"] == "dram")]
    own = u[(u["launch_id"] == 0) & (u["unit"] == "dram")]["value"]
    assert triad["value"].iloc[0] == pytest.approx(own.iloc[0])
    # tiny_launch x4: the mean weighted by each launch's duration
    tiny = u[u["kernel_name"].str.startswith("tiny_launch") & (u["unit"] == "l1")]
    expected = np.average(tiny["value"], weights=tiny["duration_ns"])
    got = g[g["kernel_name"].str.startswith("tiny_launch") & (g["unit"] == "l1")]
    assert got["value"].iloc[0] == pytest.approx(expected)
    assert got["launches"].iloc[0] == 4


def test_group_peak_fraction_is_time_weighted() -> None:
    a = sample("micro_full.raw.csv")
    p = summarize(a).kernels
    v = a.verdicts.merge(a.launches[["launch_id", "kernel_name", "duration_ns"]], on="launch_id")
    tiny = v[v["kernel_name"].str.startswith("tiny_launch")]
    got = p[p["kernel_name"].str.startswith("tiny_launch")]["peak_fraction"].iloc[0]
    assert got == pytest.approx(np.average(tiny["utilization"], weights=tiny["duration_ns"]))
    assert len(p) == a.launches["kernel_name"].nunique()


def test_hint_groups_count_launches_and_time() -> None:
    a = sample("micro_full.raw.csv")
    g = hint_groups(a)
    assert list(g.columns) == list(HINT_GROUP_COLUMNS)
    h = a.hints[a.hints["hint"] == "uncoalesced_global_access"]
    row = g[g["hint"] == "uncoalesced_global_access"].iloc[0]
    ids = set(h["launch_id"].tolist())
    assert row["launches"] == len(ids)
    dur = a.launches[a.launches["launch_id"].isin(ids)]["duration_ns"].sum()
    assert row["duration_ns"] == pytest.approx(dur)
    assert row["share"] == pytest.approx(dur / a.launches["duration_ns"].sum())


def test_hint_groups_of_ncu_rules() -> None:
    a = sample("micro_full.details.csv")
    g = hint_groups(a)
    # one group per (hint, source) of the analysis, ncu's rule results among them
    assert set(zip(g["hint"], g["source"], strict=True)) == set(zip(a.hints["hint"], a.hints["source"], strict=True))
    assert (g.loc[g["hint"].str.startswith("ncu:"), "source"] == "ncu").all()
    launches = a.hints.drop_duplicates(["launch_id", "hint"]).groupby("hint").size()
    assert g.set_index("hint")["launches"].to_dict() == launches.to_dict()
    assert g["launches"].max() <= len(a.launches)


@pytest.mark.parametrize("name", ["train_step.raw.csv", "micro_full.summary-per-kernel.csv"])
def test_kernel_groups_match_a_per_group_loop(name: str) -> None:
    """The vectorised kernel_groups against the obvious loop over groups, on real exports."""
    from ncu_roofline.summary import kernel_groups

    a = sample(name)
    got = kernel_groups(a).set_index("kernel_name")
    lv = a.launches.assign(**{c: a.verdicts[c].to_numpy() for c in ("limiter", "regime")})
    total = np.nansum(lv["duration_ns"] * lv["invocations"].fillna(1))
    for kernel, grp in lv.groupby("kernel_name"):
        row = got.loc[kernel]
        inv = grp["invocations"].fillna(1)
        assert row["launches"] == inv.sum()
        assert row["duration_ns"] == pytest.approx(np.nansum(grp["duration_ns"] * inv))
        assert row["share"] == pytest.approx(np.nansum(grp["duration_ns"] * inv) / total)
        assert row["first_launch_id"] == grp["launch_id"].min()
        time = grp["duration_ns"] * inv  # a summary group holds its invocations' GPU time
        assert row["limiter"] == time.groupby(grp["limiter"]).sum().idxmax()
        assert row["regime"] == time.groupby(grp["regime"]).sum().idxmax()
    assert (np.diff(got["duration_ns"].to_numpy()) <= 0).all()


@pytest.mark.parametrize("name", ["micro_full.raw.csv", "micro_full.details.csv", "llm_full.raw.csv"])
def test_hint_groups_by_a_join_equal_those_by_positions(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the join on the launch key (taken where a hint's launch is not found once) gives the groups, sums and
    # ranking the positional path gives, the less-work sums too
    import ncu_roofline.summary as summary_module

    a = sample(name)
    fast = hint_groups(a)
    assert fast["recoverable_less_work_ns"].notna().any()
    monkeypatch.setattr(summary_module, "_launch_positions", lambda lf, frame: None)
    pd.testing.assert_frame_equal(hint_groups(a), fast, check_exact=False, rtol=1e-12)
