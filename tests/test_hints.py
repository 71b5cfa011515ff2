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
from pathlib import Path

import derive
import numpy as np
import pandas as pd
import pytest
from conftest import analysed, data, read_shared

import ncu_roofline
from ncu_roofline.analysis import Analysis, analyze
from ncu_roofline.classify import unit_table
from ncu_roofline.device import lookup_device
from ncu_roofline.hints import HINT_COLUMNS, RULES, Frame, build_frame, evaluate, thread_divergence
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
NCU_BACKED: dict[int, set[str]] = {8: {"tail_effect"}}

SAMPLES = (
    "micro_full.raw.csv", "micro_full.details.csv", "micro_full.details-all.csv", "micro_roof.raw.csv",
    "micro_roof.details.csv", "llm_full.raw.csv", "llm_full.details.csv", "llm_full.details-all.csv",
    "train_step.raw.csv", "train_step.details.csv", "sections/micro_ncuroofline.details.csv",
)  # fmt: skip

BRIEF_HINTS = {
    "register_spilling", "low_occupancy", "launch_overhead", "small_grid", "tail_effect",
    "uncoalesced_global_access", "shared_bank_conflicts", "thread_divergence",
    "fp32_instead_of_tensor", "atomic_contention",
}  # fmt: skip


@pytest.fixture(scope="module")
def micro(micro_full: ncu_roofline.Report) -> Analysis:
    return analysed(data("micro_full.raw.csv"))


@pytest.fixture(scope="module")
def micro_rules() -> pd.DataFrame:
    return read_shared(data("micro_full.details.csv")).rules


@pytest.fixture(scope="module")
def llm() -> Analysis:
    return analysed(data("llm_full.raw.csv"))


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


def test_uncoalesced_is_bounded_by_the_excess_share_of_the_l2s_work(micro: Analysis, micro_rules: pd.DataFrame) -> None:
    """spill_heavy (launch 9): ncu's UncoalescedGlobalAccess finds 354,816 excessive sectors, 18 % of its 2,010,624
    global ones, and estimates 17.31 % (excess share x L2 busy). But its spills bring 327,791,060 sectors of local
    traffic to that L2 (lts__t_sectors_srcunit_tex.sum on the raw page): the excess is 0.11 % of the sectors the
    SMs send the L2, so coalescing can save at most 0.11 % of its busy time, under ncu's 5 % floor: no hint of
    ours (the README's table lists spilling alone); ncu's own finding stays ncu's."""
    assert ncu_says(micro_rules, 9, "UncoalescedGlobalAccess", "354816 excessive sectors (18% of the total 2010624")
    rv = micro.report.values.reset_index(drop=True)
    tex = float(rv.loc[9, "lts__t_sectors_srcunit_tex.sum"])
    assert tex == 327_791_060
    assert 354_816 / tex < 0.0011
    assert "uncoalesced_global_access" not in ours(micro)[9]
    # strided_read's global sectors are its whole traffic to the L2: its estimate stays ncu's, capped (above)
    assert float(rv.loc[1, "lts__t_sectors_srcunit_tex.sum"]) == 2_359_296
    assert "uncoalesced_global_access" in ours(micro)[1]


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


def test_without_a_spill_count_local_memory_traffic_fires_the_spilling_hint(tmp_path: Path) -> None:
    """ncu 2024.2 and older count no spills; their Memory Workload Analysis tables count local-memory sectors. The
    real H200 raw page without its spill counters (sass__inst_executed_register_spilling*, derived__local_spilling*):
    spill_heavy, the only kernel ptxas spills (test above), is the only launch with local traffic (ncu's sectors:
    321,352,916 loaded + 321,324,572 stored, 99.7 % of its L1 global and local sectors), and the hint fires on it
    from there, saying it cannot tell spills from arrays; on every launch the hint is checked (local memory 0)."""
    raw = derive.raw_rows(data("micro_full.raw.csv"))
    counts = [c for c in raw[0] if c.startswith(("sass__inst_executed_register_spilling", "derived__local_spilling"))]
    assert counts
    kept = [c for c in raw[0][raw[0].index("CC") + 1 :] if c not in counts]
    a = analyze(ncu_roofline.read(derive.picked(raw, kept, tmp_path / "no_spill_counts.raw.csv")))
    assert {lid for lid, hs in ours(a).items() if "register_spilling" in hs} == {9}
    h = hint(a, 9, "register_spilling")
    assert h["severity"] == "high"
    assert h["message"] == (
        "642,677,488 local-memory sectors at 32 registers/thread; local memory is 100% of the L1 sectors: spills, or "
        "per-thread arrays indexed at run time (this ncu counts no spills)"
    )
    ev = {e["metric"]: e for e in json.loads(h["evidence"])}
    share = ev["local share of l1tex__t_sectors_pipe_lsu_mem_{global,local}_op_{ld,st}.sum"]
    assert share["value"] == pytest.approx(642677488 / (642677488 + 1976832 + 33792)) and share["threshold"] == 0.1
    assert not a.verdicts["not_checked"].fillna("").str.contains("register_spilling").any()

    # a sector of local memory, all a launch moves, is no spill: it needs a sector per LOCAL_SECTOR_THREADS threads
    # of the launch (one 4-byte spill store by each), which the smallest launch here (32 threads) does not reach
    rows = derive.raw_rows(data("micro_full.raw.csv"))
    at = {c: i for i, c in enumerate(rows[0])}
    for row in rows[2:]:
        for kind in ("local_op_ld", "local_op_st", "global_op_ld", "global_op_st"):
            row[at[f"l1tex__t_sectors_pipe_lsu_mem_{kind}.sum"]] = "1" if kind == "local_op_ld" else "0"
    tiny = analyze(ncu_roofline.read(derive.picked(rows, kept, tmp_path / "one_sector.raw.csv")))
    assert not any("register_spilling" in hs for hs in ours(tiny).values())


def test_low_occupancy_names_shared_memory(micro: Analysis, micro_rules: pd.DataFrame) -> None:
    h = hint(micro, 10, "low_occupancy")
    assert "limited by shared memory" in h["message"]
    ev = {e["metric"]: e for e in json.loads(h["evidence"])}
    assert ev["launch__occupancy_limit_shared_mem"]["value"] == 1.0
    assert ev["sm__warps_active.avg.pct_of_peak_sustained_active"]["value"] == pytest.approx(6.23, abs=0.01)
    # ncu says the same: theoretical occupancy 6.2 % limited by the required amount of shared memory
    assert ncu_says(micro_rules, 10, "TheoreticalOccupancy", "limited by the required amount of shared memory")
    # ... and estimates 93 % to gain. Ours: the idle issue slots (1 - ncu's One or More Eligible, 1.87 %)
    # capped at the headroom to the limiting unit: the same 93 %
    assert h["estimated_speedup"] == pytest.approx(0.93, abs=0.01)


def test_uncoalesced_is_relative_to_the_access_width(micro: Analysis) -> None:
    # stream_triad's float4 loads: 16 sectors per request is the ideal for 16-byte accesses
    q = micro.quantities.reset_index(drop=True)
    assert q.loc[0, "global_load_sectors"] / q.loc[0, "global_load_requests"] == 16
    assert "uncoalesced_global_access" not in ours(micro)[0]
    h = hint(micro, 1, "uncoalesced_global_access")
    # ncu's UncoalescedGlobalAccess: 1,835,008 excessive sectors, 78 % of 2,359,296; estimate 74.33 %. The
    # launch runs at 76 % of its DRAM peak (ncu's dram__throughput): no fix makes it faster than DRAM at
    # peak, so the estimate is ncu's figure capped at that headroom
    assert "1,835,008 excess L2 sectors" in h["message"]
    dram = float(micro.quantities.reset_index().loc[1, "dram_throughput_pct"]) / 100
    assert h["estimated_speedup"] == pytest.approx(min(0.7433, 1 - dram), abs=5e-3)


def test_uncoalesced_without_ncus_theoretical_sectors() -> None:
    # our section collects sectors and requests only: strided_read's 32 sectors per request are more than
    # any coalesced warp access touches (16, for float4); stream_triad's 16 are not
    a = analysed(data("sections/micro_ncuroofline.details.csv"))
    got = ours(a)
    assert "uncoalesced_global_access" in got[1]
    assert "uncoalesced_global_access" not in got[0]
    assert "32.0 sectors per global load request" in hint(a, 1, "uncoalesced_global_access")["message"]


def test_uncoalesced_without_the_ideal_needs_ncus_ten_percent_excess() -> None:
    """llm_full's launch 12 stores 16.05 sectors per request, 0.3 % over a float4 access's 16. The raw page of the
    same report, with ncu's ideal sectors, has no excess worth ncu's 10 %, and ncu's rule does not fire: the
    --print-details all page (its Source Counters print the same ideal) flags nothing either."""
    page = read_shared(data("llm_full.details-all.csv"))
    sectors = page.values.loc[(slice(None), slice(None), 12), "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
    requests = page.values.loc[(slice(None), slice(None), 12), "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]
    per = float(sectors.iloc[0]) / float(requests.iloc[0])
    assert 16 < per < 16 / 0.9  # ncu's own counts: just over the ideal
    rules = read_shared(data("llm_full.details.csv")).rules
    assert 12 not in set(rules[rules["rule"] == "UncoalescedGlobalAccess"]["launch_id"].astype(int))
    assert "uncoalesced_global_access" not in ours(analysed(data("llm_full.details-all.csv"))).get(12, [])


def test_uncoalesced_on_a_print_details_all_page_reads_ncus_sectors_and_no_mixed_busy_share() -> None:
    """A --print-details all page prints Source Counters' theoretical sectors, and the L2 cycles as the Workload
    Distribution section does: the active cycles averaged per slice ("Average L2 Active Cycles"), the elapsed
    ones summed ("Total L2 Elapsed Cycles"). strided_read's excess is ncu's own (1,835,008 of 2,359,296 sectors,
    78 %); the L2's busy share is not that average over that sum (1 %, under ncu's 5 % floor: no hint), and ncu's
    rule reads .sum over .sum (its UncoalescedGlobalAccess.py, real ncu 2024.2), as the raw page gives it."""
    page = read_shared(data("micro_full.details-all.csv"))
    values = page.values.reset_index(drop=True)
    assert {"lts__cycles_active.avg", "lts__cycles_elapsed.sum"} <= set(values.columns)
    assert not {"lts__cycles_active.sum", "lts__cycles_elapsed.avg"} & set(values.columns)
    a = analyze(page)
    assert np.isnan(float(a.quantities.reset_index(drop=True).loc[1, "l2_busy"]))  # not measured, not mixed
    h = hint(a, 1, "uncoalesced_global_access")
    assert "1,835,008 excess L2 sectors" in h["message"] and "(ideal 524,288)" in h["message"]
    raw = analysed(data("micro_full.raw.csv"))
    rv = raw.report.values.reset_index(drop=True)
    busy = float(rv.loc[1, "lts__cycles_active.sum"]) / float(rv.loc[1, "lts__cycles_elapsed.sum"])
    assert float(raw.quantities.reset_index(drop=True).loc[1, "l2_busy"]) == pytest.approx(busy)
    # ncu's estimate on that launch is its excess share x that busy share: 74.33 % (micro_full.details.csv)
    assert (1835008 / 2359296) * busy == pytest.approx(0.7433, abs=5e-5)
    # without the busy share, the SOL section's L2 throughput stands in for it (at most the busy share): strided
    # read's 89.62 % gives 78 % x 89.62 % = 69.7 % before the headroom cap, the raw page's hint with its estimate
    q = a.quantities.reset_index(drop=True)
    assert float(q.loc[1, "l2_throughput_pct"]) == pytest.approx(89.62)
    assert h["estimated_speedup"] == pytest.approx(
        min((1835008 / 2359296) * 0.8962, float(a.verdicts.reset_index(drop=True).loc[1, "headroom"])), abs=1e-4
    )
    assert "excess share x L2 throughput" in h["evidence"]
    # wmma_bf16 (launch 8, compute-limited) touches 25 % more sectors than it needs, at 0.39 % of its L2
    # throughput: 0.1 %, under ncu's 5 % floor, so no hint, as on the raw page (its L2 busy 0.46 %); ncu's own rule
    # reports 0.11 % there
    assert float(q.loc[8, "l2_throughput_pct"]) == pytest.approx(0.39)
    assert "uncoalesced_global_access" not in ours(a)[8]
    assert ncu_says(page.rules, 8, "UncoalescedGlobalAccess")
    assert "uncoalesced_global_access" not in ours(raw)[8]
    # and the page's hints are the raw page's: strided_read (spill_heavy's excess is 0.1 % of its L2 work, below)
    assert (
        {lid for lid, hs in ours(a).items() if "uncoalesced_global_access" in hs}
        == {lid for lid, hs in ours(raw).items() if "uncoalesced_global_access" in hs}
        == {1}
    )


def test_uncoalesced_agrees_with_ncus_rule_where_it_matters(llm: Analysis) -> None:
    rules = read_shared(data("llm_full.details.csv")).rules
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
def test_tail_effect_is_the_emptiness_of_the_last_wave(raw: str, details: str) -> None:
    # ncu's LaunchConfiguration rule flags a partial wave with 1 / (full waves + 1), the worst case of an empty
    # last wave. The SM slot time a partial last wave leaves idle is (1 - fill) / ceil(waves), from ncu's own
    # launch__waves_per_multiprocessor: every launch ncu flags has it (from 2 %, capped at the headroom), never
    # above ncu's figure
    a = analysed(data(raw))
    rules = read_shared(data(details)).rules
    tail = rules[(rules["rule"] == "LaunchConfiguration") & rules["description"].str.contains("partial wave")]
    expected = dict(zip(tail["launch_id"].astype(int), tail["speedup"] / 100.0, strict=True))
    waves = dict(zip(a.launches["launch_id"].astype(int), a.quantities["waves_per_sm"], strict=True))
    room = dict(zip(a.verdicts["launch_id"].astype(int), a.verdicts["headroom"], strict=True))
    h = a.hints[a.hints["hint"] == "tail_effect"]
    got = dict(zip(h["launch_id"].astype(int), h["estimated_speedup"], strict=True))
    assert expected
    for lid, ncu_estimate in expected.items():
        w = waves[lid]
        idle = (1 - (w - math.floor(w))) / math.ceil(w)
        if idle >= 0.02:
            assert got[lid] == pytest.approx(min(idle, room[lid]), abs=1e-3)
            assert got[lid] <= ncu_estimate + 1e-9
    for lid, est in got.items():
        w = waves[lid]
        assert est == pytest.approx(min((1 - (w - math.floor(w))) / math.ceil(w), room[lid]), abs=1e-3)


def test_tail_effect_of_the_dgemm_and_the_sgemm() -> None:
    # llm_ops.py's dgemm_fp64 (1.94 waves: the last wave 94 % full) and sgemm_fp32 (3.88 waves) leave 6 % and
    # 12 % of one wave idle: 3 % of the SM slot time each, well under 10 % (ncu's rule quotes 50 % and 25 %)
    a = analysed(data("llm_full.raw.csv"))
    names = a.launches.set_index("launch_id")["kernel_name"].astype(str)
    assert "f64f64" in names[12] and "f32f32" in names[11]
    for lid in (11, 12):
        est = hint(a, lid, "tail_effect")["estimated_speedup"]
        assert est < 0.10
        assert est == pytest.approx(0.03, abs=0.002)


def test_ncus_advice_to_use_fp32_keeps_its_estimate_as_less_work() -> None:
    """ncu's SOLFPRoofline on micro_full's fp64_fma (98 % of the H200's FP64 peak): "consider using 32-bit precision",
    estimated speedup 48.97 % (the details page's own figure). The launch is at its FP64 roof, so at today's work
    its headroom caps the estimate (2 %); done in FP32 the work is another, and ncu's figure stands as the
    less-work estimate (it was left at 2 %, which read as not worth doing)."""
    a = analysed(data("micro_full.details.csv"))
    h = a.hints[(a.hints["hint"] == "ncu:SOLFPRoofline") & (a.hints["launch_id"] == 6)].iloc[0]
    assert h["estimated_speedup"] == pytest.approx(0.0206, abs=1e-3)
    assert h["estimated_speedup_less_work"] == pytest.approx(0.4897, abs=1e-9)


def test_launch_overhead_counts_the_kernels_launch_bound_launches() -> None:
    """train_step's direct_copy kernel: 63 launches, 29 of them under the 5 us launch cost (125 us together, golden:
    the raw page's gpu__time_duration.sum), the others longer, one of 364 us. The hint fires on the 29, and its
    message counts them and their time, not the kernel's 63 launches and 868 us."""
    a = analysed(data("train_step.raw.csv"))
    names = a.launches.set_index("launch_id")["kernel_name"].astype(str)
    counts = names[names.str.contains("direct_copy")].value_counts()
    copy = names[names == counts.index[counts == 63][0]].index  # (the other direct_copy kernel has 6)
    duration = a.report.values.reset_index().set_index("launch_id").loc[copy, "gpu__time_duration.sum"]  # (s)
    short = duration[duration < 5e-6]
    assert len(copy) == 63 and len(short) == 29 and duration.max() > 300e-6
    h = a.hints[(a.hints["hint"] == "launch_overhead") & a.hints["launch_id"].isin(copy)]
    assert set(h["launch_id"]) == set(short.index)
    message = h["message"].iloc[0]
    assert f"29 of this kernel's 63 launches launch-bound, {short.sum() * 1e6:.1f} us in all" in message
    assert (h["severity"] == "high").all()


def test_small_grid_and_launch_overhead(micro: Analysis, llm: Analysis) -> None:
    for lid in (12, 13, 14, 15):
        h = hint(micro, lid, "launch_overhead")
        assert h["severity"] == "high" and "4 launches of this kernel" in h["message"]
        assert "CUDA graph" in h["advice"]
        assert "1 block for 132 SMs" in hint(micro, lid, "small_grid")["message"]
    assert "0.50 waves" in hint(micro, 11, "small_grid")["message"]
    # 1 block of 32 threads on 132 SMs, 2 us a launch: 131 SMs without a block, but the launch cost holds it (regime
    # launch), so the idle SMs are no estimate (99 % of 2 us is 20 ns, under the cost of any launch) and the hint is
    # the low one beside launch_overhead
    for lid in (12, 13, 14, 15):
        h = hint(micro, lid, "small_grid")
        assert np.isnan(h["estimated_speedup"]) and h["severity"] == "low"
        assert "the launch cost, not the grid" in h["message"]
        # ... and its advice is launch_overhead's, not "launch more blocks" (which the message says would not help)
        assert "CUDA graph" in h["advice"] and not h["advice"].startswith("Launch more blocks")
    assert hint(micro, 11, "small_grid")["advice"].startswith("Launch more blocks")  # atomic_hot: latency-bound
    # a small grid on a latency-bound launch is quantified: the share of SMs without a block, within the headroom
    train = analysed(data("train_step.raw.csv"))
    small = train.hints[(train.hints["hint"] == "small_grid") & train.hints["estimated_speedup"].notna()]
    q = train.quantities.reset_index().set_index("launch_id").loc[small["launch_id"]]
    v = train.verdicts.reset_index().set_index("launch_id").loc[small["launch_id"]]
    assert (v["regime"] == "latency").all() and len(small) > 10
    idle = 1 - q["grid_size"].to_numpy() / q["sm_count"].to_numpy()
    expected = np.minimum(idle, v["headroom"].to_numpy())
    assert small["estimated_speedup"].to_numpy() == pytest.approx(expected, abs=1e-9)
    # the LLM's tiny_add: one launch of 2.8 us -> launch-bound, not "repeated"
    assert hint(llm, 15, "launch_overhead")["severity"] == "medium"
    # a full grid (low_occupancy launches one block per SM, 1.0 wave) is not a small grid
    assert "small_grid" not in ours(micro)[10]
    # nor are the decode GEMVs' 128 blocks on 132 SMs (0.97 waves: 3 % of the SMs idle)
    q = llm.quantities.reset_index().set_index("launch_id")
    for lid in (1, 2):
        assert q.loc[lid, "grid_size"] == 128 and q.loc[lid, "waves_per_sm"] == pytest.approx(0.97)
        assert "small_grid" not in ours(llm)[lid]


def test_atomic_contention(micro: Analysis, llm: Analysis) -> None:
    h = hint(micro, 11, "atomic_contention")  # microbench.cu: every thread adds to one of 8 counters
    assert "270,336 global atomic requests" in h["message"]
    assert "atomic_contention" not in ours(llm)[3]  # 4,030 atomics spread over the L2 slices (max 1.4 %)
    # with our section only (no per-slice figures): atomics are all of the requests of a latency-bound launch
    a = analysed(data("sections/micro_ncuroofline.details.csv"))
    assert {lid for lid, hs in ours(a).items() if "atomic_contention" in hs} == {11}


def test_atomic_contention_from_the_slices_alone(micro: Analysis) -> None:
    # Without request counters the busiest L2 slice's atomic unit against the average still says it:
    # atomic_hot's busiest slice 100 % busy, the average 1.1 % (lts__d_atomic_input_cycles_active .max/.avg)
    f = _frame(micro)
    nan = [math.nan] * f.n
    blind = f.with_quantity("global_atomic_requests", nan).with_quantity("global_reduction_requests", nan)
    hints, _ = evaluate(blind)
    rows = hints[hints["hint"] == "atomic_contention"]
    assert set(rows["launch_id"].astype(int)) == {11}
    row = rows.iloc[0]
    assert "busiest L2 slice's atomic unit is 100 % busy" in row["message"]
    q = micro.quantities.reset_index().loc[11]
    bound = (q["l2_atomic_input_max_pct"] - q["l2_atomic_input_pct"]) / 100
    assert row["estimated_speedup"] == pytest.approx(min(bound, float(micro.verdicts.loc[11, "headroom"])))


@pytest.mark.parametrize("name", ["llm_full.raw.csv", "llm_full.details.csv", "llm_full.details-all.csv"])
def test_fp32_instead_of_tensor(name: str, micro: Analysis) -> None:
    # llm_ops.py sets allow_tf32 = False: "sgemm_fp32" runs cuBLAS's FP32 FFMA GEMM (sm80_xmma_gemm_f32f32);
    # the raw page shows it on the FP32 roof and FFMA counters, the details page in ncu's SOLFPRoofline text
    a = analysed(data(name))
    assert "f32f32" in str(a.launches.set_index("launch_id").loc[11, "kernel_name"])
    got = {lid for lid, hs in ours(a).items() if "fp32_instead_of_tensor" in hs}
    assert got == {11}
    h = hint(a, 11, "fp32_instead_of_tensor")
    assert "TF32" in h["advice"]
    est = h["estimated_speedup"]
    assert math.isnan(est) or est <= float(a.verdicts.set_index("launch_id").loc[11, "headroom"]) + 1e-12
    # fp32_fma: FP32 FMAs at 91 % of peak but on registers only: no matrix to hand to tensor cores
    assert "fp32_instead_of_tensor" not in ours(micro)[5]


def test_fp32_instead_of_tensor_says_what_the_tensor_roof_would_give(llm: Analysis) -> None:
    # H200: TF32 dense 494.7 TFLOP/s, FP32 66.9 TFLOP/s: at 77 % of the FP32 peak the launch would take about
    # 0.77 x 66.9 / 494.7 = 10 % of its time at the TF32 roof (its memory roofs are far above)
    h = hint(llm, 11, "fp32_instead_of_tensor")
    m = re.search(r"at the TF32 tensor roof it would take (\d+)% of its time", h["message"])
    assert m is not None and 5 <= int(m.group(1)) <= 15


def _as_older_gpu(tmp_path: Path, name: str, cc: str) -> Analysis:
    """llm_full's real raw page as if its GPU were ``name`` of compute capability ``cc``: the CC column, the
    CC attributes, the SM count (the table entry's) and the display name changed, and the tensor series of
    types that GPU lacks (TF32, BF16, FP8) dropped; every measurement as ncu wrote it."""
    raw = derive.raw_rows(data("llm_full.raw.csv"))
    header = raw[0]
    lacks = ("_tf32", "_bf16", "_fp8")
    keep = [
        i for i, m in enumerate(header) if not (m.startswith("sm__ops_path_tensor_") and any(t in m for t in lacks))
    ]
    major, minor = cc.split(".")
    spec = lookup_device(name)
    assert spec.sm_count is not None
    for r in raw[2:]:
        r[header.index("CC")] = cc
        r[header.index("device__attribute_multiprocessor_count")] = str(int(spec.sm_count.value))
        r[header.index("device__attribute_compute_capability_major")] = major
        r[header.index("device__attribute_compute_capability_minor")] = minor
        r[header.index("device__attribute_display_name")] = name
    path = tmp_path / "older.raw.csv"
    path.write_text(derive.write([[r[i] for i in keep] for r in raw]))
    return analyze(ncu_roofline.read(path))


def test_fp32_instead_of_tensor_on_a_gpu_without_tf32(tmp_path: Path) -> None:
    """On a V100 (CC 7.0: tensor cores, but no TF32 or BF16 path) the plain-FP32 GEMM is still worth moving to
    tensor cores, in FP16 with FP32 accumulation; no time at a TF32 roof is estimated (there is none: the roof
    was once taken as the launch's memory roof, 7x the FP32 peak of a T4)."""
    a = _as_older_gpu(tmp_path, "Tesla V100-SXM2-16GB", "7.0")
    assert a.peaks["tensor_tf32_flops"].isna().all()
    h = hint(a, 11, "fp32_instead_of_tensor")
    assert "FP16 with FP32 accumulation" in h["advice"] and "TF32 (" not in h["advice"]
    assert "TF32 tensor roof" not in h["message"]
    assert math.isnan(h["estimated_speedup"])
    assert any(e["metric"].startswith("compute capability") and e["value"] == 7.0 for e in json.loads(h["evidence"]))


def test_fp32_instead_of_tensor_not_on_a_gpu_without_tensor_cores(tmp_path: Path) -> None:
    """A GTX 1650 (TU117: CC 7.5 but no tensor cores, as its table entry says) has none to move the work to."""
    a = _as_older_gpu(tmp_path, "NVIDIA GeForce GTX 1650", "7.5")
    assert "fp32_instead_of_tensor" not in ours(a)[11]
    assert "fp32_instead_of_tensor" in ours(_as_older_gpu(tmp_path, "NVIDIA GeForce RTX 2080 Ti", "7.5"))[11]


def test_thread_divergence() -> None:
    # No sample launch diverges (every one runs >= 31 of 32 threads per instruction): none may get the hint.
    for name in ("micro_full.raw.csv", "llm_full.raw.csv"):
        a = analysed(data(name))
        assert a.quantities["threads_per_instruction"].min() > 31
        assert not any("thread_divergence" in hs for hs in ours(a).values())
    # The rule on a real launch (l1_reread) whose threads-per-instruction figure is set to 12: warps that run
    # 12 of 32 lanes on average.
    a = analysed(data("micro_full.raw.csv"))
    f = _frame(a)
    assert not thread_divergence(f).fires[3]
    diverged = f.with_quantity("threads_per_instruction", [12.0 if i == 3 else 32.0 for i in range(f.n)])
    assert list(np.flatnonzero(thread_divergence(diverged).fires)) == [3]
    hints, _ = evaluate(diverged)
    h = hints[hints["hint"] == "thread_divergence"].iloc[0]
    assert "12.0 of 32 threads" in h["message"]
    # compute-bound: issue slots wasted on idle lanes, 1 - 12/32, capped at the headroom (SM 76 %)
    assert h["estimated_speedup"] == pytest.approx(min(1 - 12 / 32, float(a.verdicts.loc[3, "headroom"])))


def test_ncu_rules_ride_along(micro_rules: pd.DataFrame) -> None:
    a = analysed(data("micro_full.details.csv"))
    n = a.hints[a.hints["source"] == "ncu"]
    expected = micro_rules[micro_rules["type"].isin(["OPT", "WRN", "ERR"])]
    assert len(n) == len(expected)
    assert set(n["hint"]) == {f"ncu:{r}" for r in expected["rule"]}
    tail = n[(n["launch_id"] == 8) & (n["hint"] == "ncu:LaunchConfiguration")].iloc[0]
    # ncu's own figure (50 %: 1 / (1 full wave + 1)) is kept in the evidence; the estimate is capped at the
    # launch's headroom like ours (wmma_bf16 runs its SM at 68 %: 32 % left)
    ev = json.loads(tail["evidence"])
    assert ev == [{"metric": "ncu estimate", "op": "==", "threshold": None, "value": 0.5}]
    room = float(a.verdicts.set_index("launch_id").loc[8, "headroom"])
    assert room < 0.5
    assert tail["estimated_speedup"] == pytest.approx(room)


def test_hints_on_a_default_details_export(micro_rules: pd.DataFrame) -> None:
    # Labels only, no roofline, no pipes: the rules that have their metrics still speak, the others stay silent.
    a = analysed(data("micro_full.details.csv"))
    got = ours(a)
    assert "register_spilling" in got[9]  # derived__local_spilling_requests is in the default details page
    assert "low_occupancy" in got[10]
    assert got[0] == set()
    for lid in (12, 13, 14, 15):
        assert {"small_grid", "launch_overhead"} <= got[lid]
    assert all(not math.isnan(x) for x in a.verdicts["utilization"])


def _frame(a: Analysis) -> Frame:
    index = launch_index(a.launches)
    table = unit_table(a.quantities, a.roofline)
    return build_frame(a.launches, a.quantities, table, a.verdicts, a.roofline, a.peaks, a.report.rules, index)


def test_bank_conflicts_once_the_replays_are_gone(micro: Analysis) -> None:
    # smem_bank_conflict (launch 4) is built to replay its shared loads 32 ways: ncu counts 1,072,693,923 conflicts
    # in 1,107,296,931 shared wavefronts (96.9 %) and runs L1 at 99.99 % of its peak. Its headroom is nothing, so
    # the estimate at today's work is nothing; without the replays the launch still takes its SM's time, 4.11 %
    # of elapsed (ncu's Compute (SM) Throughput), and the rest (95.9 %) can go: ncu's own estimate is 96.86 %
    h = hint(micro, 4, "shared_bank_conflicts")
    v = micro.verdicts.set_index("launch_id").loc[4]
    assert v["limiter"] == "l1"
    assert h["estimated_speedup"] <= v["headroom"] + 1e-12 < 0.001
    assert h["estimated_speedup_less_work"] == pytest.approx(1 - 0.0411, abs=2e-3)
    assert h["estimated_speedup_less_work"] <= 0.9686


def test_ncus_work_removing_rules_get_the_same_bound(micro_rules: pd.DataFrame) -> None:
    a = analysed(data("micro_full.details.csv"))
    # ncu's SharedMemoryConflicts on the same launch: its 96.86 % under the SM's 4.11 %
    h = hint(a, 4, "ncu:SharedMemoryConflicts")
    assert h["estimated_speedup_less_work"] == pytest.approx(1 - 0.0411, abs=1e-9)
    assert h["estimated_speedup"] == pytest.approx(1 - 0.9993, abs=1e-9)  # the headroom (Memory Throughput)
    # ncu's FPInstructions on strided_read (DRAM-limited, 76 %): fusing FP32 instructions relieves the SM, not
    # the DRAM that limits it, so without that work the launch saves what ncu says (0.244 %), no more
    h = hint(a, 1, "ncu:FPInstructions")
    assert h["estimated_speedup_less_work"] == h["estimated_speedup"] == pytest.approx(0.00244, abs=1e-6)
    # a rule that moves a launch toward its roof has no such figure
    assert math.isnan(hint(a, 4, "ncu:HighPipeUtilization")["estimated_speedup_less_work"])


def test_a_local_ncu_estimate_is_no_share_of_the_launch(tmp_path: Path) -> None:
    # ncu's "local" estimate is the speedup of the part its rule is about, not of the launch: it gives neither
    # estimate, and stays in the evidence as such. On the sample, IssueSlotUtilization's are all local
    a = analysed(data("micro_full.details.csv"))
    issue = a.hints[a.hints["hint"] == "ncu:IssueSlotUtilization"]
    assert len(issue) == 14 and issue["estimated_speedup"].isna().all()
    assert all(json.loads(e)[0]["metric"] == "ncu estimate (local)" for e in issue["evidence"])
    # ... and the same SharedMemoryConflicts row marked local
    text = data("micro_full.details.csv").read_text(encoding="utf-8")
    assert text.count('"global","96.86"') == 1
    page = tmp_path / "local.details.csv"
    page.write_text(text.replace('"global","96.86"', '"local","96.86"'), encoding="utf-8")
    h = hint(analyze(ncu_roofline.read(page)), 4, "ncu:SharedMemoryConflicts")
    assert math.isnan(h["estimated_speedup"]) and math.isnan(h["estimated_speedup_less_work"])
    assert json.loads(h["evidence"]) == [
        {"metric": "ncu estimate (local)", "op": "==", "threshold": None, "value": pytest.approx(0.9686)}
    ]


def test_fp32_gemm_on_tensor_cores_is_bounded_by_its_memory_units(llm: Analysis) -> None:
    # the FP32 SGEMM at 87 % of its SM: on the tensor pipe the same traffic still takes its busiest memory
    # unit's time (L1), so the saving is at most 1 - that score, far above the 13 % headroom
    row = llm.hints[llm.hints["hint"] == "fp32_instead_of_tensor"].iloc[0]
    v = llm.verdicts.set_index("launch_id").loc[int(row["launch_id"])]
    memory = max(float(v["score_hbm"]), float(v["score_l2"]), float(v["score_l1"]))
    assert v["limiter"] == "compute"
    assert row["estimated_speedup"] == pytest.approx(float(v["headroom"]))
    assert row["estimated_speedup_less_work"] == pytest.approx(1 - memory)
    assert row["estimated_speedup_less_work"] > 2 * row["estimated_speedup"]


@pytest.mark.parametrize("name", SAMPLES)
def test_less_work_is_bounded_by_the_units_a_fix_does_not_relieve(name: str) -> None:
    # Every hint of every sample: the less-work figure only on the rules that remove work, never below the
    # estimate, at most 1 - the busiest score the fix does not relieve, and equal to the estimate where the
    # limiter is not a unit it relieves (removing work elsewhere cannot outrun the limiter)
    from ncu_roofline.hints import NCU_RULE_RELIEVES
    from ncu_roofline.vocabulary import LIMITERS

    a = analysed(data(name))
    relieves = {**{r.id: r.relieves for r in RULES.values()}, **NCU_RULE_RELIEVES}
    v = a.verdicts.set_index("launch_id")
    for _, h in a.hints.iterrows():
        less, est = float(h["estimated_speedup_less_work"]), float(h["estimated_speedup"])
        units = relieves.get(str(h["hint"]), ())
        if not units:
            assert math.isnan(less), h["hint"]
            continue
        if math.isnan(less):
            continue
        row = v.loc[int(h["launch_id"])]
        others = [float(row[f"score_{k}"]) for k in LIMITERS if k not in units]
        assert est - 1e-12 <= less <= 1 - np.nanmax(others) + 1e-12 or less == pytest.approx(est), h["hint"]
        if row["limiter"] not in units:
            assert less == pytest.approx(est), (h["hint"], row["limiter"])


@pytest.mark.parametrize("name", SAMPLES)
def test_no_estimate_above_the_headroom(name: str) -> None:
    # Every launch of every sample: what a hint says a fix can recover is at most 1 - the limiting unit's
    # fraction of its peak, and never negative; the roof fraction is that same figure (1 - headroom)
    a = analysed(data(name))
    v = a.verdicts[["launch_id", "headroom", "utilization", "roof_fraction"]]
    h = a.hints[a.hints["source"] == "ncu-roofline"].merge(v, on="launch_id")
    est = h["estimated_speedup"].astype(float)
    known = est.notna()
    assert h.loc[known, "headroom"].notna().all()
    assert (est[known] >= 0).all()
    assert (est[known] <= h.loc[known, "headroom"] + 1e-12).all()
    k = v.dropna(subset=["utilization"])
    assert ((k["roof_fraction"] - (1 - k["headroom"])).abs() < 1e-12).all()


@pytest.mark.parametrize("name", ["micro_full.details.csv", "train_step.details.csv", "llm_full.details.csv"])
def test_evidence_or_silence(name: str) -> None:
    # Details pages without FLOP counts: non_fp_compute is never made from FLOPs that were not collected
    # (llm_full: softmax, layernorm, GELU do FP32 work at 17-23 % of peak on the raw page of the same run);
    # the launch says what was not checked, that the report's raw page may have it, and which ncu option adds it.
    a = analysed(data(name))
    assert a.roofline.empty or a.roofline["achieved_flops"].isna().all()
    assert not any("non_fp_compute" in hs for hs in ours(a).values())
    v = a.verdicts
    compute_other = v[(v["limiter"] == "compute") & (v["compute_pipe"] == "other") & (v["regime"] == "bound")]
    for nc in compute_other["not_checked"]:
        assert "non_fp_compute: FLOP counts" in str(nc)
        assert "not on this details page (the report's raw page may have it, else --section" in str(nc)


def test_non_fp_compute_is_not_checked_where_nothing_tells_the_pipe() -> None:
    """micro_full's per-kernel summary page has SOL figures but no FLOP counts and no pipes: its compute-bound
    kernels (l1_reread among them, whose work the samples README gives as integer/issue, not FLOPs) have no
    compute pipe, so non_fp_compute could be theirs: it is said to be not checked, not left out in silence."""
    a = analysed(data("micro_full.summary-per-kernel.csv.gz"))
    v = a.verdicts.assign(name=a.launches["display_name"].to_numpy())
    bound = v[(v["limiter"] == "compute") & (v["regime"] == "bound")]
    assert "l1_reread" in set(bound["name"]) and bound["compute_pipe"].isna().all()
    for nc in bound["not_checked"]:
        assert "non_fp_compute: FLOP counts" in str(nc)


def test_non_fp_compute_is_not_checked_where_a_precision_is_left_out(tmp_path: Path) -> None:
    """micro_full's raw page without its pipe figures and its FP16 FLOP counts: nothing tells half_hfma2's pipe,
    and the FLOP counts left show no FP work (its work is FP16, the samples README): it is not non-FP work, and
    not to be passed as checked either. l1_reread (integer work) is in the same place: both are not checked."""
    raw = derive.raw_rows(data("micro_full.raw.csv"))
    header = raw[0]
    gone = ("_pipe_", "op_hadd", "op_hmul", "op_hfma")
    keep = [m for m in header[header.index("CC") + 1 :] if not any(g in m for g in gone)]
    a = analysed(derive.picked(raw, keep, tmp_path / "no_fp16.raw.csv"))
    v = a.verdicts.assign(name=a.launches["display_name"].to_numpy()).set_index("name")
    for name in ("half_hfma2", "l1_reread"):
        assert (v.loc[name, "limiter"], v.loc[name, "regime"]) == ("compute", "bound")
        assert pd.isna(v.loc[name, "compute_pipe"])
        assert "non_fp_compute: FLOP counts of every precision" in str(v.loc[name, "not_checked"])
    assert "non_fp_compute" not in set(a.hints["hint"])
    # with the pipes but not every precision, the pipes tell: fp32_fma's FP32 pipe needs no FP16 count
    assert "non_fp_compute" not in str(v.loc["fp32_fma", "not_checked"])


def test_evidence_names_what_the_figure_was_read_from(tmp_path: Path) -> None:
    """An evidence row names the metric its value came from, or the recipe where a figure has several: the
    duration of micro_full's raw page without gpu__time_duration (the SM's elapsed cycles over its clock, the
    duration recipe next in the table) is not labelled gpu__time_duration.sum."""
    raw = derive.raw_rows(data("micro_full.raw.csv"))
    header = raw[0]
    keep = [m for m in header[header.index("CC") + 1 :] if not m.startswith("gpu__time_duration")]
    for path, label in (
        (data("micro_full.raw.csv"), "gpu__time_duration.sum"),
        (derive.picked(raw, keep, tmp_path / "untimed.raw.csv"), "duration (SM cycles / SM clock)"),
    ):
        a = analysed(path)
        rows = a.hints[a.hints["hint"] == "launch_overhead"]
        assert len(rows) == 4  # tiny_launch's four launches, 2.1 us each, by either duration
        for ev in rows["evidence"]:
            assert json.loads(ev)[0]["metric"] == label
        assert set(a.recipes["duration"].dropna()) == {label.removeprefix("duration (").removesuffix(")")}


def test_non_fp_compute_on_measured_flops(llm: Analysis) -> None:
    # llm_full's raw page measures FLOPs: softmax, layernorm and GELU do FP32 work (ncu's SOLFPRoofline on the
    # details page of the same run reports their share of the FP32 peak): not "non-FP work"
    rules = read_shared(data("llm_full.details.csv")).rules
    for lid in (5, 8, 9):
        assert "non_fp_compute" not in ours(llm)[lid]
        assert ncu_says(rules, lid, "SOLFPRoofline", "FP32 peak performance")


def test_low_occupancy_limited_by_design_gets_no_register_advice(micro: Analysis) -> None:
    # low_occupancy (micro 10): one block per SM by shared memory with every unit under 10 %: not near a roof,
    # so the advice is to raise the limit. The same launch with its tensor pipe at 70 % (a warp-specialised
    # GEMM that holds one CTA per SM by design) gets no "fewer registers / smaller tiles" advice.
    assert "less shared memory per block" in hint(micro, 10, "low_occupancy")["advice"]
    f = _frame(micro)
    units = f.units.copy()
    units.loc[10, "pipe_tensor"] = 0.70
    hints, _ = evaluate(dataclasses.replace(f, units=units))
    row = hints[(hints["hint"] == "low_occupancy") & (hints["launch_id"] == 10)].iloc[0]
    assert row["severity"] == "low"
    assert "by design" in row["message"]
    assert "registers" not in row["advice"] and "smaller tiles" not in row["advice"]


def test_fp32_instead_of_tensor_from_the_fma_pipe(llm: Analysis) -> None:
    # a raw page without FLOP counters: the SGEMM's FMA pipe (ncu's sm__inst_executed_pipe_fma) and its
    # verdict's FP32 pipe still show FP32 FMA work with the tensor pipe idle
    f = _frame(llm)
    units = f.units.copy()
    for c in ("fp64", "fp32", "fp16", "tensor"):
        units[c] = np.nan
    nan = [math.nan] * f.n
    blind = dataclasses.replace(f, units=units).with_quantity("ffma_per_cycle", nan)
    hints, _ = evaluate(blind)
    assert set(hints[hints["hint"] == "fp32_instead_of_tensor"]["launch_id"].astype(int)) == {11}


def test_low_occupancy_of_a_gemm_by_design(micro: Analysis) -> None:
    # the same one-block-per-SM launch named like a warp-specialised GEMM with its tensor pipe busy at 20 %
    # (its SOL figures low: the case of a Blackwell GEMM): limited by design, no register/tile advice
    f = _frame(micro)
    units = f.units.copy()
    units.loc[10, "pipe_tensor"] = 0.20
    names = f.kernel_name.copy()
    names[10] = "sm100_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_warpspecialized"
    hints, _ = evaluate(dataclasses.replace(f, units=units, kernel_name=names))
    row = hints[(hints["hint"] == "low_occupancy") & (hints["launch_id"] == 10)].iloc[0]
    assert row["severity"] == "low" and "by design" in row["message"]
    assert "registers" not in row["advice"] and "smaller tiles" not in row["advice"]


def test_bank_conflicts_without_l1_utilisation_show_no_product_they_did_not_measure(tmp_path: Path) -> None:
    """The loads' and stores' shared-memory counters picked by hand (as forum answers give them), no L1 figure:
    the conflict share alone decides (llm_full launch 7: ncu's counts give 25.2 % of the loads' and stores'
    wavefronts), the evidence says it counts loads and stores only (the launch's other shared traffic, 21.7 M
    wavefronts in all, is not in them), and it has no "share x L1 utilisation" row made with an L1 it assumed."""
    rows = derive.raw_rows(data("llm_full.raw.csv"))
    names = tuple(
        f"l1tex__data_{what}_mem_shared_op_{op}.sum"
        for what in ("bank_conflicts_pipe_lsu", "pipe_lsu_wavefronts")
        for op in ("ld", "st")
    )
    path = derive.picked(rows, names, tmp_path / "shared.raw.csv")
    launch = next(r for r in rows if r[0] == "7")
    c_ld, c_st, w_ld, w_st = (float(launch[rows[0].index(n)].replace(",", "")) for n in names)
    share = (c_ld + c_st) / (w_ld + w_st)
    assert share == pytest.approx(0.252, abs=1e-3)
    h = hint(analysed(path), 7, "shared_bank_conflicts")
    evidence = {e["metric"]: e["value"] for e in json.loads(h["evidence"])}
    label = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld + _op_st / their wavefronts (loads and stores only)"
    assert list(evidence) == [label] and evidence[label] == pytest.approx(share)


def test_a_hint_on_a_partial_latency_verdict_says_it_is_partial(micro: Analysis) -> None:
    """low_occupancy (ID 10, latency-bound by construction) on the --metrics run of the same program, whose SM
    throughput was not collected: the verdict is latency-bound as far as measured, and the hint says so; on the
    full page the verdict is settled and the hint names a latency-bound launch."""
    picked = analysed(data("micro_metrics.raw.csv"))
    v = picked.verdicts.set_index(picked.verdicts["launch_id"].astype(int))
    assert v.loc[10, "regime"] == "latency" and bool(v.loc[10, "partial"])
    assert "% achieved occupancy (theoretical" in hint(picked, 10, "low_occupancy")["message"]
    assert (
        ") on a launch latency-bound as far as measured (partial verdict)"
        in hint(picked, 10, "low_occupancy")["message"]
    )
    assert ") on a latency-bound launch" in hint(micro, 10, "low_occupancy")["message"]


@pytest.mark.parametrize("name", ["micro_full.raw.csv", "llm_full.raw.csv", "train_step.details.csv"])
def test_no_message_restates_its_hint(name: str) -> None:
    """The terminal and the HTML print a hint as "<label>: <message>": a message that opens with its label or
    says it again in other words ("Low occupancy: Low occupancy on ...", "Launch overhead: Launch-bound: ...",
    "Small grid: Grid too small to fill the GPU: ...") starts with what the rule counted instead."""
    from ncu_roofline.report.viewmodel import hint_label

    h = analysed(data(name)).hints
    ours = h[h["source"] == "ncu-roofline"]
    assert len(ours) > 0
    for hid, message in zip(ours["hint"].astype(str), ours["message"].astype(str), strict=True):
        opening = message.split(":")[0].lower()
        assert not opening.startswith((hint_label(hid).lower(), "launch-bound", "grid too small")), (hid, message)


def test_no_need_holds_the_separator_of_not_checked() -> None:
    """not_checked joins its notes with "; " and the JSON splits them there: a need whose text held "; " came out
    as two broken items (small_grid's "... (--section LaunchStats" and "the SM count also --device NAME)")."""
    texts = [t for r in RULES.values() for n in r.needs for t in (n.metric, n.option)]
    assert len(texts) > 20 and not [t for t in texts if "; " in t]


def test_small_grid_under_half_a_wave_with_some_sms_idle_does_not_say_every_sm_has_a_block() -> None:
    """train_step's 128-block launches on the H200's 132 SMs (0.03 waves): 4 SMs (3 %) have no block, fewer than
    the small-grid threshold of SMs, so the hint fires for the half wave; it said "every SM has a block"."""
    from _analyses import sample

    a = sample("train_step.raw.csv")
    h = a.hints[a.hints["hint"] == "small_grid"].merge(a.launches[["launch_id", "grid_size"]], on="launch_id")
    part = h[h["grid_size"] == 128]
    assert len(part) >= 1
    for message in part["message"].astype(str):
        assert message.startswith(f"0.03 waves: {1 - 128 / 132:.0%} of the SMs have no block, and the others"), message
        assert "every SM has a block" not in message


# --------------------------------------------------------------------------------- an audit against ncu's numbers


def _raw_value(name: str, launch_id: int, metric: str) -> float:
    """A metric's value of one launch, straight from a raw page (golden: the file, not the reader)."""
    import csv
    import gzip

    path = data(name)
    with gzip.open(path, "rt", newline="") if path.suffix == ".gz" else path.open(newline="") as fh:
        rows = csv.reader(fh)
        header = next(rows)
        next(rows)  # units
        for row in rows:
            if row[header.index("ID")] == str(launch_id):
                return float(row[header.index(metric)].replace(",", ""))
    raise KeyError(launch_id)


def test_pipes_of_elapsed_cycles_tell_the_pipe_of_a_raw_page_without_the_active_ones() -> None:
    """train_step's raw page has the pipes as % of elapsed cycles only (``..._elapsed``): its compute-bound
    launches had no pipe (49 of 61), and non_fp_compute neither fired nor was said not checked. CatArrayBatchedCopy
    (launch 164): SM at 70 %, ALU 61 %, FLOP roofs at 0 %: integer and address work."""
    a = analysed(data("train_step.raw.csv.gz"))
    v = a.verdicts.set_index("launch_id")
    bound = v[(v["limiter"] == "compute") & (v["regime"] == "bound")]
    assert bound["compute_pipe"].notna().all()
    names = a.launches.set_index("launch_id")["display_name"]
    gemms = bound.index[names[bound.index].str.startswith("nvjet_sm90")]
    assert len(gemms) and (bound.loc[gemms, "compute_pipe"] == "tensor").all()  # cuBLAS' Hopper GEMMs
    alu = _raw_value("train_step.raw.csv.gz", 164, "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed")
    assert alu == pytest.approx(61.2, abs=0.05)
    hint = a.hints[(a.hints["launch_id"] == 164) & (a.hints["hint"] == "non_fp_compute")]
    assert len(hint) == 1 and f"busiest pipe ALU at {alu:.0f}%" in hint["message"].iloc[0]
    # its evidence names the column the figure was read from (the page has the pipes' % of elapsed cycles only)
    row = json.loads(hint["evidence"].iloc[0])[-1]
    assert row["metric"] == "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed (fraction)"
    assert row["value"] * 100 == pytest.approx(alu)


def test_rules_whose_evidence_is_missing_say_not_checked_rather_than_nothing() -> None:
    """low_occupancy on launches without a verdict whose occupancy is low (the A100 pooling export's launch 121:
    Achieved Occupancy 20.57 %) went unsaid, neither fired nor listed as not checked."""
    a100 = analysed(data("wild/public/a100_opinsight_pooling.csv.gz"))
    v = a100.verdicts.set_index("launch_id")
    assert v.loc[121, "regime"] is pd.NA
    assert "low_occupancy: a figure of every unit" in v.loc[121, "not_checked"]


def test_low_occupancy_says_when_the_eligible_warps_were_not_measured() -> None:
    """micro_metrics' low_occupancy launch (10) has no smsp__warps_eligible: the hint fires on the occupancy and
    says the eligible warps were not measured (it read as if they had been found too few)."""
    a = analysed(data("micro_metrics.raw.csv"))
    assert (
        "eligible_warps_per_scheduler" not in a.quantities.columns
        or a.quantities["eligible_warps_per_scheduler"].isna().all()
    )
    hint = a.hints[(a.hints["launch_id"] == 10) & (a.hints["hint"] == "low_occupancy")]
    assert len(hint) == 1 and "eligible warps not measured" in hint["message"].iloc[0]


def test_occupancy_advice_asks_for_blocks_only_where_a_slot_is_left_empty() -> None:
    """cuDNN's flash-attention forward on train_step (launches 6, 26, ...): 132 blocks on 132 SMs, one block per
    SM (registers and shared memory): every block slot is filled from the start, so "launch enough blocks" was
    advice against the evidence."""
    a = analysed(data("train_step.raw.csv.gz"))
    grid = _raw_value("train_step.raw.csv.gz", 6, "launch__grid_size")
    sms = _raw_value("train_step.raw.csv.gz", 6, "device__attribute_multiprocessor_count")
    assert grid == sms == 132
    hint = a.hints[(a.hints["launch_id"] == 6) & (a.hints["hint"] == "low_occupancy")]
    assert len(hint) == 1
    assert "launch enough blocks" not in hint["advice"].iloc[0]
    assert hint["advice"].iloc[0].startswith("Balance the work per block and per warp.")


@pytest.mark.parametrize("name", ["micro_full.raw.csv", "llm_full.raw.csv.gz", "train_step.raw.csv.gz"])
def test_every_evidence_threshold_shown_is_one_the_launch_meets(name: str) -> None:
    """A rule that fires on one of several conditions shows the others' figures as context (op "==", no
    threshold): small_grid on atomic_hot (micro_full 11) fires on its waves (0.5 <= 0.5) while every SM has a
    block; it read "1 - grid/SMs >= 0.1" beside the value 0.0."""
    compare = {"<": float.__lt__, "<=": float.__le__, ">": float.__gt__, ">=": float.__ge__, "==": float.__eq__}
    a = analysed(data(name))
    rows = [e for text in a.hints.loc[a.hints["source"] == "ncu-roofline", "evidence"] for e in json.loads(text)]
    assert rows
    for e in rows:
        if e["threshold"] is not None:
            assert compare[e["op"]](float(e["value"]), float(e["threshold"])), e
    if name == "micro_full.raw.csv":
        h = a.hints[(a.hints["launch_id"] == 11) & (a.hints["hint"] == "small_grid")]
        (blocks,) = [e for e in json.loads(h["evidence"].iloc[0]) if e["metric"].startswith("1 - launch__grid_size")]
        assert (blocks["op"], blocks["threshold"], blocks["value"]) == ("==", None, 0.0)


def test_an_evidence_threshold_per_launch_is_each_fired_launchs_own() -> None:
    """A threshold given per launch (an array over every launch) is read at the launches that fired, not broadcast
    over them: launch 1 meets its 0.5, launch 3 fails its 0.8 (shown as context)."""
    from ncu_roofline.hints import Ev, _evidence_json

    value, bound = np.array([0.1, 0.9, 0.5, 0.7]), np.array([0.5, 0.5, 0.6, 0.8])
    rows = _evidence_json([Ev("x", value, bound, ">=")], np.array([1, 3]))
    assert [json.loads(r) for r in rows] == [
        [{"metric": "x", "op": ">=", "threshold": 0.5, "value": 0.9}],
        [{"metric": "x", "op": "==", "threshold": None, "value": 0.7}],
    ]


def test_need_texts_never_hold_the_notes_separator() -> None:
    """A launch's not_checked notes are joined by "; " and the summaries split them there: a need's metric or
    option with "; " in it read as two rules (the spilling option once named the older ncu so)."""
    for r in RULES.values():
        for need in r.needs:
            assert "; " not in need.metric and "; " not in need.option, r.id


def test_a_what_if_frame_keeps_what_its_evidence_names(micro: Analysis) -> None:
    """Frame.with_quantity keeps every other field: the sources the evidence names (it built a new frame field by
    field and left them out, so a what-if's duration read gpu__time_duration.sum whatever gave it)."""
    f = dataclasses.replace(
        _frame(micro), sources={"duration": np.full(micro.launches.shape[0], "SM cycles / SM clock", dtype=object)}
    )
    g = f.with_quantity("threads_per_instruction", np.full(f.n, 12.0))
    assert set(g.source("duration")) == {"duration (SM cycles / SM clock)"}
    assert g.details_page is f.details_page and g.q["threads_per_instruction"].eq(12.0).all()
