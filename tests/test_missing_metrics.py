"""A missing metric is never a zero: real exports with metrics left out (as a hand-picked ``--metrics`` list or an
older ncu leaves them out) give "not measured", "not checked" or no verdict, never a figure, hint or claim made
from what is not there. Each case drops columns of a real raw page (H200, ncu 2025.3.1) and checks the launch
against what the full page says (ncu's own numbers) and what the micro kernel is (the samples' README)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import derive
import pandas as pd
import pytest
from conftest import analysed, data

from ncu_roofline.analysis import Analysis
from ncu_roofline.summary import summarize

MICRO = "micro_full.raw.csv"
TRAIN = "train_step.raw.csv.gz"


def without(source: str, pattern: str, tmp_path: Path) -> Analysis:
    """The raw page ``source`` without the metric columns whose name matches ``pattern`` (re.search)."""
    raw = derive.raw_rows(data(source))
    header = raw[0]
    metrics = header[header.index("CC") + 1 :]
    keep = [m for m in metrics if not re.search(pattern, m)]
    assert len(keep) < len(metrics), pattern
    return analysed(derive.picked(raw, keep, tmp_path / f"without.{source.removesuffix('.gz')}"))


def launch(a: Analysis, name: str) -> pd.Series:
    """The verdict row of the first launch of the micro kernel ``name``, with its hints' ids."""
    v = a.verdicts.assign(name=a.launches["display_name"].to_numpy())
    row = v[v["name"] == name].iloc[0].copy()
    row["hints"] = set(a.hints[a.hints["launch_id"] == row["launch_id"]]["hint"])
    return row


def hint(a: Analysis, launch_id: int, hint_id: str) -> pd.Series:
    h = a.hints[(a.hints["launch_id"] == launch_id) & (a.hints["hint"] == hint_id)]
    assert len(h) == 1, (launch_id, hint_id)
    return h.iloc[0]


def test_atomics_without_the_reductions_are_not_a_count(tmp_path: Path) -> None:
    """atomic_hot issues reductions only (270,336 on the full page): without their count its atomic requests are
    not measured, not "0 global atomic requests"; the busiest L2 slice (100 %) still shows the contention."""
    a = without(MICRO, r"^l1tex__t_requests_pipe_lsu_mem_global_op_red\.sum$", tmp_path)
    row = launch(a, "atomic_hot")
    h = hint(a, row["launch_id"], "atomic_contention")
    assert not h["message"].startswith("0 ") and "global atomic requests" not in h["message"]
    assert "l1tex__t_requests_pipe_lsu_mem_global_op_{atom,red}.sum" not in {
        e["metric"] for e in json.loads(h["evidence"])
    }


def test_l1_throughput_covers_a_breakdown_member_left_out(tmp_path: Path) -> None:
    """smem_bank_conflict is L1-bound at 99.9 % (its shared wavefronts, the breakdown's busiest member): without
    that member the L1 throughput of elapsed cycles (the busiest member, equal to it on every full-page launch)
    still gives 99.9 %, not the next member's 3 %."""
    full = launch(analysed(data(MICRO)), "smem_bank_conflict")
    row = launch(without(MICRO, r"^l1tex__data_pipe_lsu_wavefronts\.avg\.pct_of_peak_sustained_elapsed$", tmp_path),
                 "smem_bank_conflict")  # fmt: skip
    assert (row["limiter"], row["regime"]) == ("l1", "bound") == (full["limiter"], full["regime"])
    assert row["score_l1"] == pytest.approx(full["score_l1"])
    assert "shared_bank_conflicts" in row["hints"]


def test_l2_by_its_bytes_alone_leaves_its_other_work_open(tmp_path: Path) -> None:
    """spill_heavy is L2-bound (84 % on the full page, its local-memory traffic): without L2's Speed Of Light
    figures its L2 bytes show 1 %, while ncu's Memory Throughput still says 84 %: no verdict (a unit not measured
    is at its bound), not "l1, latency-bound"."""
    full = launch(analysed(data(MICRO)), "spill_heavy")
    assert (full["limiter"], full["regime"]) == ("l2", "bound")
    # the L2 Speed Of Light header and its breakdown (its bytes per second stay)
    l2_sol = (
        r"^lts__(throughput\.|t_bytes\.sum\.pct|t_sectors\.sum\.pct|(d_sectors|d_sectors_fill_device|"
        r"d_sectors_fill_sysmem|t_sectors|t_tag_requests|xbar2lts_cycles_active|lts2xbar_cycles_active|"
        r"d_atomic_input_cycles_active|d_decomp_input_sectors)\.avg\.pct_of_peak_sustained_elapsed)"
    )
    a = without(MICRO, l2_sol, tmp_path)
    row = launch(a, "spill_heavy")
    assert pd.isna(row["limiter"]) and pd.isna(row["regime"])
    assert "l2_other" in str(row["unmeasured"]) and "is at its bound" in row["reason"]
    assert "lts__throughput" in str(row["missing"])


def test_the_waves_left_out_leave_small_grid_and_low_occupancy_open(tmp_path: Path) -> None:
    """atomic_hot runs 0.50 waves (small_grid by its half wave on the full page): without the waves the rule is
    not checked there, not passed. train_step's launch 9 (0.97 waves) is under a wave, small_grid's case, so not
    low_occupancy's: without the waves it is not checked either, not fired."""
    a = without(MICRO, r"^launch__waves_per_multiprocessor$", tmp_path)
    row = launch(a, "atomic_hot")
    assert "small_grid" in launch(analysed(data(MICRO)), "atomic_hot")["hints"]
    assert "small_grid" not in row["hints"]
    assert "small_grid: launch__waves_per_multiprocessor not collected" in str(row["not_checked"])
    t = without(TRAIN, r"^launch__waves_per_multiprocessor$", tmp_path)
    full = analysed(data(TRAIN))
    assert full.quantities["waves_per_sm"].iloc[9] < 1.0
    assert "low_occupancy" not in set(t.hints[t.hints["launch_id"] == 9]["hint"])
    nine = t.verdicts[t.verdicts["launch_id"] == 9].iloc[0]
    assert "low_occupancy: launch__waves_per_multiprocessor not collected" in str(nine["not_checked"])


def test_small_grid_without_the_grid_size_says_so(tmp_path: Path) -> None:
    row = launch(without(MICRO, r"^launch__grid_size$", tmp_path), "atomic_hot")
    assert "small_grid" in row["hints"]
    a = without(MICRO, r"^launch__grid_size$", tmp_path)
    message = hint(a, row["launch_id"], "small_grid")["message"]
    assert "the grid size is not in the export" in message and "nan" not in message


def test_a_missing_occupancy_limit_names_no_limiter(tmp_path: Path) -> None:
    """low_occupancy is limited by shared memory (the full page's Block Limit Shared Mem: 1 block): without that
    limit the least of the others (warps) is not its limiter, and no limiter is named."""
    full = analysed(data(MICRO))
    f = launch(full, "low_occupancy")
    assert "limited by shared memory" in hint(full, f["launch_id"], "low_occupancy")["message"]
    a = without(MICRO, r"^launch__occupancy_limit_shared_mem$", tmp_path)
    message = hint(a, f["launch_id"], "low_occupancy")["message"]
    assert "limited by" not in message


def test_stall_reasons_left_out_are_not_small_ones(tmp_path: Path) -> None:
    """l2_reread's warps wait on the long scoreboard (84 % on the full page): without that reason the others are
    not "no stall reason above 15 %" of a complete set; without the warp cycles per instruction the shares are
    said to be of the measured reasons' sum."""
    full = launch(analysed(data(MICRO)), "l2_reread")
    assert "long scoreboard" in full["reason"]
    row = launch(without(MICRO, r"^smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active\.ratio$",
                         tmp_path), "l2_reread")  # fmt: skip
    assert "no stall reason above" not in row["reason"]
    assert re.search(r"1 of \d+ stall reasons not measured", row["reason"])
    row = launch(without(MICRO, r"^smsp__average_warp_latency_per_inst_issued\.ratio$", tmp_path), "tiny_launch")
    assert "shares of the measured reasons' sum" in row["reason"]


def test_compute_pipes_and_flops_left_out_do_not_make_non_fp_work(tmp_path: Path) -> None:
    """train_step's GeLU (launch 16) does FP32 work at 20 % of its roof: without the FP32 counters its other FLOP
    roofs (under 1 %) do not make it non-FP work; the nvjet GEMM (launch 5, tensor pipe) without its tensor-pipe
    figures is not "other" work either. Both are said not checked."""
    full = analysed(data(TRAIN))
    assert not len(full.hints[(full.hints["launch_id"].isin([5, 16])) & (full.hints["hint"] == "non_fp_compute")])
    a = without(TRAIN, r"sass_thread_inst_executed_op_f(add|mul|fma)_pred_on", tmp_path)
    v = a.verdicts.set_index("launch_id")
    assert "non_fp_compute" not in set(a.hints[a.hints["launch_id"] == 16]["hint"])
    assert "non_fp_compute: FLOP counts of every precision" in str(v.loc[16, "not_checked"])
    t = without(TRAIN, r"^sm__pipe_tensor", tmp_path)
    five = t.verdicts.set_index("launch_id").loc[5]
    assert full.verdicts.set_index("launch_id").loc[5, "compute_pipe"] == "tensor"
    assert str(five["compute_pipe"]) != "other"
    assert "non_fp_compute" not in set(t.hints[t.hints["launch_id"] == 5]["hint"])


def test_no_verdict_is_not_a_disagreement_with_ncu(tmp_path: Path) -> None:
    """micro_full's details page without its Speed Of Light rows: no verdict of ours on any launch, so nothing is
    compared with ncu's SOLBottleneck (it said 16 compared, 0 % agreement)."""
    text = derive.text_of(data("micro_full.details.csv"))
    rows = derive.rows(text)
    section = rows[0].index("Section Name")
    kept = [rows[0], *(r for r in rows[1:] if r[section] != "GPU Speed Of Light Throughput")]
    path = tmp_path / "no_sol.details.csv"
    path.write_text(derive.write(kept))
    a = analysed(path)
    assert a.verdicts["limiter"].isna().all()
    assert a.verdicts["agrees_with_ncu"].isna().all()
    assert summarize(a).agreement.launches_compared == 0
