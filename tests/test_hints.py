"""Hint rules on real launches that show each diagnosis and on launches that must not show it.

Golden expectations: the construction of the micro kernels (``../shared/ncu-samples/workloads/microbench.cu``
and the samples README table), the LLM workload's construction (``llm_ops.py`` turns TF32 off), the compiler's
own spill report (``ptxas-v.txt``), and ncu's own rule messages in the details exports of the same reports.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re

import pandas as pd
import pytest
from conftest import data

import ncu_roofline
from ncu_roofline.analysis import Analysis, analyze, launch_views
from ncu_roofline.hints import HINT_COLUMNS, RULES, thread_divergence
from ncu_roofline.model import launch_index

#: Hints the samples README says a user must get, per micro launch.
REQUIRED: dict[int, set[str]] = {
    1: {"uncoalesced_global_access"},
    3: {"non_fp_compute"},
    4: {"shared_bank_conflicts"},
    9: {"register_spilling"},
    10: {"low_occupancy"},
    11: {"small_grid", "atomic_contention"},
    12: {"small_grid", "launch_overhead"},
    13: {"small_grid", "launch_overhead"},
    14: {"small_grid", "launch_overhead"},
    15: {"small_grid", "launch_overhead"},
}
#: Hints beyond the README's list that ncu's own rules also report for the launch (checked below).
NCU_BACKED: dict[int, set[str]] = {8: {"tail_effect"}, 9: {"uncoalesced_global_access"}}

BRIEF_HINTS = {
    "register_spilling", "low_occupancy", "launch_overhead", "small_grid", "tail_effect",
    "uncoalesced_global_access", "shared_bank_conflicts", "thread_divergence", "low_cache_hit_rate",
    "fp32_instead_of_tensor", "atomic_contention",
}  # fmt: skip


@pytest.fixture(scope="module")
def micro(micro_full: ncu_roofline.Report) -> Analysis:
    return analyze(micro_full)


@pytest.fixture(scope="module")
def micro_rules() -> pd.DataFrame:
    return ncu_roofline.read(data("micro_full.details.csv")).rules


@pytest.fixture(scope="module")
def llm() -> Analysis:
    return analyze(ncu_roofline.read(data("llm_full.raw.csv")))


def ours(a: Analysis) -> dict[int, set[str]]:
    h = a.hints[a.hints["source"] == "ncu-roofline"]
    out: dict[int, set[str]] = {int(k): set() for k in a.launches["launch_id"]}
    for lid, hint in zip(h["launch_id"], h["hint"], strict=True):
        out[int(lid)].add(str(hint))
    return out


def hint(a: Analysis, lid: int, hid: str) -> pd.Series:
    h = a.hints
    row = h[(h["launch_id"] == lid) & (h["hint"] == hid)]
    assert len(row) == 1, (lid, hid)
    return row.iloc[0]


def ncu_says(rules: pd.DataFrame, lid: int, rule: str, pattern: str = "") -> bool:
    r = rules[(rules["launch_id"] == lid) & (rules["rule"] == rule)]
    return bool(r["description"].str.contains(pattern, regex=False).any())


def test_every_hint_of_the_brief_is_registered() -> None:
    assert set(RULES) >= BRIEF_HINTS


def test_micro_hints_are_exactly_the_expected_ones(micro: Analysis, micro_rules: pd.DataFrame) -> None:
    got = ours(micro)
    for lid in range(16):
        expected = REQUIRED.get(lid, set()) | NCU_BACKED.get(lid, set())
        assert got[lid] == expected, (lid, got[lid], expected)
    # the extras are ncu's own findings too
    assert ncu_says(micro_rules, 8, "LaunchConfiguration", "partial wave")
    assert ncu_says(micro_rules, 9, "UncoalescedGlobalAccess", "excessive sectors")


def test_hint_frame_shape(micro: Analysis) -> None:
    h = micro.hints
    assert list(h.columns) == list(HINT_COLUMNS)
    assert {str(c): str(t) for c, t in h.dtypes.items()} == HINT_COLUMNS
    ours_ = h[h["source"] == "ncu-roofline"]
    assert set(ours_["severity"]) <= {"high", "medium", "low", "info"}
    for ev in ours_["evidence"]:
        items = json.loads(ev)
        assert items and all(set(e) == {"metric", "value", "threshold", "op"} for e in items)
    s = ours_["estimated_speedup"].dropna()
    assert ((s >= 0) & (s <= 1)).all()
    assert ours_["advice"].notna().all()


def test_register_spilling_matches_the_compiler(micro: Analysis) -> None:
    # ptxas -v: only spill_heavy has spill stores/loads (296 bytes each at 32 registers)
    spilling = set()
    text = data("ptxas-v.txt").read_text()
    for fn, stores in re.findall(r"Function properties for (\S+)\n.*?(\d+) bytes spill stores", text):
        if int(stores) > 0:
            spilling.add(fn)
    assert spilling == {"_Z11spill_heavyPKfPfi"}
    got = {lid for lid, hs in ours(micro).items() if "register_spilling" in hs}
    assert got == {9}
    h = hint(micro, 9, "register_spilling")
    assert h["severity"] == "high"
    assert "32 registers/thread" in h["message"]


def test_low_occupancy_names_shared_memory(micro: Analysis, micro_rules: pd.DataFrame) -> None:
    h = hint(micro, 10, "low_occupancy")
    assert "limited by shared memory" in h["message"]
    ev = {e["metric"]: e for e in json.loads(h["evidence"])}
    assert ev["launch__occupancy_limit_shared_mem"]["value"] == 1.0
    assert ev["sm__warps_active.avg.pct_of_peak_sustained_active"]["value"] == pytest.approx(6.23, abs=0.01)
    # ncu says the same: theoretical occupancy 6.2 % limited by the required amount of shared memory
    assert ncu_says(micro_rules, 10, "TheoreticalOccupancy", "limited by the required amount of shared memory")
    # ... and estimates 93 % to gain; ours is the same kind of upper bound (time at the busiest unit's peak)
    assert h["estimated_speedup"] == pytest.approx(0.93, abs=0.01)


def test_uncoalesced_is_relative_to_the_access_width(micro: Analysis) -> None:
    # stream_triad's float4 loads: 16 sectors per request is the ideal for 16-byte accesses
    q = micro.quantities.reset_index(drop=True)
    assert q.loc[0, "global_load_sectors"] / q.loc[0, "global_load_requests"] == 16
    assert "uncoalesced_global_access" not in ours(micro)[0]
    h = hint(micro, 1, "uncoalesced_global_access")
    # ncu's UncoalescedGlobalAccess: 1,835,008 excessive sectors, 78 % of 2,359,296; estimate 74.33 %
    assert "1,835,008 excess L2 sectors" in h["message"]
    assert h["estimated_speedup"] == pytest.approx(0.7433, abs=5e-4)


def test_uncoalesced_without_ncus_theoretical_sectors() -> None:
    # our section collects sectors and requests only: strided_read's 32 sectors per request are more than
    # any coalesced warp access touches (16, for float4); stream_triad's 16 are not
    a = analyze(ncu_roofline.read(data("sections/micro_ncuroofline.details.csv")))
    got = ours(a)
    assert "uncoalesced_global_access" in got[1]
    assert "uncoalesced_global_access" not in got[0]
    assert "32.0 sectors per request" in hint(a, 1, "uncoalesced_global_access")["message"]


def test_uncoalesced_agrees_with_ncus_rule_where_it_matters(llm: Analysis) -> None:
    rules = ncu_roofline.read(data("llm_full.details.csv")).rules
    flagged = set(rules[rules["rule"] == "UncoalescedGlobalAccess"]["launch_id"].astype(int))
    got = {lid for lid, hs in ours(llm).items() if "uncoalesced_global_access" in hs}
    assert got == flagged == {8}  # the layer norm


def test_shared_bank_conflicts_32_way(micro: Analysis, micro_rules: pd.DataFrame) -> None:
    h = hint(micro, 4, "shared_bank_conflicts")
    assert "32-way" in h["message"]  # microbench.cu: all 32 lanes hit one bank
    assert ncu_says(micro_rules, 4, "SharedMemoryConflicts", "32.0 - way bank conflict")
    got = {lid for lid, hs in ours(micro).items() if "shared_bank_conflicts" in hs}
    assert got == {4}


@pytest.mark.parametrize(
    ("raw", "details"),
    [
        ("micro_full.raw.csv", "micro_full.details.csv"),
        ("llm_full.raw.csv", "llm_full.details.csv"),
        ("train_step.raw.csv", "train_step.details.csv"),
    ],
)
def test_tail_effect_is_ncus(raw: str, details: str) -> None:
    a = analyze(ncu_roofline.read(data(raw)))
    rules = ncu_roofline.read(data(details)).rules
    tail = rules[(rules["rule"] == "LaunchConfiguration") & rules["description"].str.contains("partial wave")]
    expected = dict(zip(tail["launch_id"].astype(int), tail["speedup"] / 100.0, strict=True))
    h = a.hints[a.hints["hint"] == "tail_effect"]
    got = dict(zip(h["launch_id"].astype(int), h["estimated_speedup"], strict=True))
    assert set(got) == set(expected) and expected
    for lid, speedup in expected.items():
        assert got[lid] == pytest.approx(speedup, abs=1e-3)


def test_small_grid_and_launch_overhead(micro: Analysis, llm: Analysis) -> None:
    for lid in (12, 13, 14, 15):
        h = hint(micro, lid, "launch_overhead")
        assert h["severity"] == "high" and "4 launches of this kernel" in h["message"]
        assert "CUDA graph" in h["advice"]
        assert "1 block for 132 SMs" in hint(micro, lid, "small_grid")["message"]
    assert "0.50 waves" in hint(micro, 11, "small_grid")["message"]
    # the LLM's tiny_add: one launch of 2.8 us -> launch-bound, not "repeated"
    assert hint(llm, 15, "launch_overhead")["severity"] == "medium"
    # a full grid (low_occupancy launches one block per SM, 1.0 wave) is not a small grid
    assert "small_grid" not in ours(micro)[10]


def test_atomic_contention(micro: Analysis, llm: Analysis) -> None:
    h = hint(micro, 11, "atomic_contention")  # microbench.cu: every thread adds to one of 8 counters
    assert "270,336 global atomic requests" in h["message"]
    assert "atomic_contention" not in ours(llm)[3]  # 4,030 atomics spread over the L2 slices (max 1.4 %)
    # with our section only (no per-slice figures): atomics are all of the requests of a latency-bound launch
    a = analyze(ncu_roofline.read(data("sections/micro_ncuroofline.details.csv")))
    assert {lid for lid, hs in ours(a).items() if "atomic_contention" in hs} == {11}


def test_fp32_instead_of_tensor(llm: Analysis, micro: Analysis) -> None:
    # llm_ops.py sets allow_tf32 = False: "sgemm_fp32" runs cuBLAS's FP32 FFMA GEMM (sm80_xmma_gemm_f32f32)
    assert "f32f32" in str(llm.launches.set_index("launch_id").loc[11, "kernel_name"])
    got = {lid for lid, hs in ours(llm).items() if "fp32_instead_of_tensor" in hs}
    assert got == {11}
    h = hint(llm, 11, "fp32_instead_of_tensor")
    assert "TF32" in h["advice"]
    assert 0.5 < h["estimated_speedup"] < 1.0  # TF32 tensor roof (~7x the FP32 peak on H200), memory-capped
    # fp32_fma: FP32 FMAs at 91 % of peak but on registers only: no matrix to hand to tensor cores
    assert "fp32_instead_of_tensor" not in ours(micro)[5]


def test_low_cache_hit_rate(llm: Analysis, micro: Analysis) -> None:
    # naive attention's P @ V: DRAM-bound at 82 %, L2 read hit rate 12 % (ncu's lts__t_sector_op_read_hit_rate)
    h = hint(llm, 6, "low_cache_hit_rate")
    assert "12.1 %" in h["message"]
    assert {lid for lid, hs in ours(llm).items() if "low_cache_hit_rate" in hs} == {6}
    # pure streams hit ~0 % (stream_triad, strided_read, low_occupancy's copy) and l2_reread bypasses L1 by
    # construction (__ldcg): no micro launch gets it
    assert not any("low_cache_hit_rate" in hs for hs in ours(micro).values())


def test_thread_divergence() -> None:
    # No sample launch diverges (every one runs >= 31 of 32 threads per instruction): none may get the hint.
    for name in ("micro_full.raw.csv", "llm_full.raw.csv"):
        a = analyze(ncu_roofline.read(data(name)))
        assert a.quantities["threads_per_instruction"].min() > 31
        assert not any("thread_divergence" in hs for hs in ours(a).values())
    # The rule on a real launch (l1_reread) whose threads-per-instruction figure is set to 12: warps that run
    # 12 of 32 lanes on average.
    report = ncu_roofline.read(data("micro_full.raw.csv"))
    a = analyze(report)
    views = launch_views(a.launches, a.quantities, a.roofline, a.verdicts, a.peaks, a.report.rules,
                   launch_index(report.launches))  # fmt: skip
    view = views[3][1]
    assert thread_divergence(view) is None
    diverged = dataclasses.replace(view, q={**view.q, "threads_per_instruction": 12.0})
    h = thread_divergence(diverged)
    assert h is not None and "12.0 of 32 threads" in h.message
    assert h.estimated_speedup == pytest.approx(1 - 12 / 32)  # compute-bound: issue slots wasted on idle lanes


def test_ncu_rules_ride_along(micro_rules: pd.DataFrame) -> None:
    a = analyze(ncu_roofline.read(data("micro_full.details.csv")))
    n = a.hints[a.hints["source"] == "ncu"]
    expected = micro_rules[micro_rules["type"].isin(["OPT", "WRN", "ERR"])]
    assert len(n) == len(expected)
    assert set(n["hint"]) == {f"ncu:{r}" for r in expected["rule"]}
    tail = n[(n["launch_id"] == 8) & (n["hint"] == "ncu:LaunchConfiguration")]
    assert tail["estimated_speedup"].iloc[0] == pytest.approx(0.50)


def test_hints_on_a_default_details_export(micro_rules: pd.DataFrame) -> None:
    # Labels only, no roofline, no pipes: the rules that have their metrics still speak, the others stay silent.
    a = analyze(ncu_roofline.read(data("micro_full.details.csv")))
    got = ours(a)
    assert "register_spilling" in got[9]  # derived__local_spilling_requests is in the default details page
    assert "low_occupancy" in got[10]
    assert got[0] == set()
    for lid in (12, 13, 14, 15):
        assert {"small_grid", "launch_overhead"} <= got[lid]
    assert all(not math.isnan(x) for x in a.verdicts["utilization"])
