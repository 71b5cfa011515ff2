"""The limiter/regime classifier against the micro-kernel ground truth and against ncu's SOLBottleneck rule.

Golden values: the table "What each micro kernel is" in ../shared/ncu-samples/README.md (the kernels'
construction, ``workloads/microbench.cu``) and ncu's own rule rows in the details exports. Nothing here is
read back from the code under test.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import derive
import numpy as np
import pandas as pd
import pytest
from conftest import analysed, data, read_shared

import ncu_roofline
from ncu_roofline.analysis import Analysis, analyze, rules_for
from ncu_roofline.classify import (
    BOUND_THRESHOLD,
    LAUNCH_DURATION_S,
    LIMITERS,
    PIPES,
    REGIMES,
    VERDICT_COLUMNS,
    agreement,
    pick_limiter,
)
from ncu_roofline.ncurules import parse_sol_bottleneck, sol_bottleneck
from ncu_roofline.quantities import DRAM_BREAKDOWN, L1_BREAKDOWN, L2_BREAKDOWN, QUANTITIES, quantities
from ncu_roofline.summary import time_by

# ID -> (kernel, limiter or None when the table gives none, compute pipe, regime): the samples README table.
MICRO_TRUTH: dict[int, tuple[str, str | None, str | None, str]] = {
    0: ("stream_triad", "hbm", None, "bound"),
    1: ("strided_read", "hbm", None, "bound"),
    2: ("l2_reread", "l2", None, "latency"),
    3: ("l1_reread", "compute", "other", "bound"),
    4: ("smem_bank_conflict", "l1", None, "bound"),
    5: ("fp32_fma", "compute", "fp32", "bound"),
    6: ("fp64_fma", "compute", "fp64", "bound"),
    7: ("half_hfma2", "compute", "fp16", "bound"),
    8: ("wmma_bf16", "compute", "tensor", "bound"),
    9: ("spill_heavy", "l2", None, "bound"),
    10: ("low_occupancy", None, None, "latency"),
    11: ("atomic_hot", None, None, "latency"),
    12: ("tiny_launch", None, None, "launch"),
    13: ("tiny_launch", None, None, "launch"),
    14: ("tiny_launch", None, None, "launch"),
    15: ("tiny_launch", None, None, "launch"),
}

#: Every export of the micro run (and the micro_roof run of the same program) that carries the Speed Of Light.
MICRO_INPUTS = (
    "micro_full.raw.csv",
    "micro_full.raw-base.csv",
    "micro_full.details.csv",
    "micro_full.details-names.csv",
    "micro_full.details-base.csv",
    "micro_full.details-all.csv",
    "micro_roof.raw.csv",
    "micro_roof.details.csv",
    "sections/micro_ncuroofline.details.csv",
    "sections/micro_ncuroofline.details-names.csv",
)


@pytest.fixture(scope="module")
def micro(micro_full: ncu_roofline.Report) -> Analysis:
    return analyze(micro_full, rules=rules_for(read_shared(data("micro_full.details.csv")).rules, "micro_full.raw"))


def _by_id(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.set_index(frame["launch_id"].astype(int))


def check_truth(a: Analysis, *, pipes: bool = True) -> None:
    v = _by_id(a.verdicts)
    names = _by_id(a.launches)["display_name"]
    for lid, (kernel, limiter, pipe, regime) in MICRO_TRUTH.items():
        assert names[lid] == kernel
        got = v.loc[lid]
        assert got["regime"] == regime, (lid, kernel, got["regime"], got["explanation"])
        if limiter is not None:
            assert got["limiter"] == limiter, (lid, kernel, got["limiter"], got["explanation"])
        if limiter == "compute" and pipes:
            assert got["compute_pipe"] == pipe, (lid, kernel, got["compute_pipe"], got["pipe_basis"])
        if limiter != "compute":
            assert pd.isna(got["compute_pipe"]) or got["limiter"] == "compute"


def test_micro_truth_on_the_full_raw_page(micro: Analysis) -> None:
    check_truth(micro)
    v = _by_id(micro.verdicts)
    assert set(v["basis"]) == {"roofline+speed-of-light+sol-breakdown+pipes"}
    assert v["missing"].isna().all()
    assert (v.loc[[3, 5, 6, 7, 8], "pipe_basis"] == "pipes").all()


@pytest.mark.parametrize("name", MICRO_INPUTS)
def test_micro_truth_on_every_export(name: str) -> None:
    a = analysed(data(name))
    check_truth(a)


def test_micro_low_occupancy_and_atomics_are_latency_not_bound(micro: Analysis) -> None:
    # The brief's known problem: atomic_hot / low_occupancy were "bound"; every unit is under 10 %.
    v = _by_id(micro.verdicts)
    for lid in (10, 11):
        assert v.loc[lid, "utilization"] < 0.10
        assert v.loc[lid, "regime"] == "latency"


def test_micro_tiny_launches_are_launch_bound_despite_the_l1_header(micro: Analysis) -> None:
    # ncu's SOL header shows L1/TEX 67-105 % "of active cycles" for these 2 us, one-block launches.
    q = micro.quantities.reset_index(drop=True)
    assert (q.loc[12:15, "l1_throughput_pct"] > 60).all()
    v = _by_id(micro.verdicts)
    assert (v.loc[12:15, "regime"] == "launch").all()
    assert (v.loc[12:15, "utilization"] < 0.01).all()
    assert (q.loc[12:15, "duration"] < LAUNCH_DURATION_S).all()


def test_without_the_duration_a_latency_verdict_says_it_could_be_launch_bound(tmp_path: Path) -> None:
    # ncu's details page without its Duration and Elapsed Cycles rows (nothing else gives a launch's duration):
    # the tiny launches, launch-bound by construction (2 us), cannot be told from latency-bound ones
    rows = derive.raw_rows(data("micro_full.details.csv"))
    label = rows[0].index("Metric Name")
    kept = [r for r in rows if len(r) <= label or r[label] not in ("Duration", "Elapsed Cycles")]
    assert len(rows) - len(kept) == 2 * 16
    path = tmp_path / "no_duration.details.csv"
    path.write_text(derive.write(kept))
    a = analyze(ncu_roofline.read(path))
    assert a.quantities["duration"].isna().all()
    v = _by_id(a.verdicts)
    unbound = [lid for lid, (_, _, _, regime) in MICRO_TRUTH.items() if regime != "bound"]
    assert (v.loc[unbound, "regime"] == "latency").all()  # the regime the measured units give
    said = v.loc[unbound, "reason"].str.contains(
        "or launch-bound (duration not measured: launch-bound if under 5 us)", regex=False
    )
    assert said.all(), v.loc[unbound, "reason"]
    assert v.loc[unbound, "missing"].str.contains("gpu__time_duration.sum", regex=False).all()
    # with the duration, those words are nowhere
    assert not _by_id(analysed(data("micro_full.details.csv")).verdicts)["reason"].str.contains("or launch-bound").any()


def test_micro_stream_and_strided_are_hbm_although_the_l2_header_is_higher(micro: Analysis) -> None:
    q = micro.quantities.reset_index(drop=True)
    v = _by_id(micro.verdicts)
    for lid in (0, 1):
        assert q.loc[lid, "l2_throughput_pct"] > q.loc[lid, "dram_throughput_pct"]  # the trap
        assert v.loc[lid, "limiter"] == "hbm"
        # how far from the roof: the DRAM roof fraction, 87 % and 76 % (samples README); "% of roof" is the
        # limiter's score, one number: roof_fraction = utilization = 1 - headroom
    assert v.loc[0, "roof_fraction"] == pytest.approx(0.87, abs=0.01)
    assert v.loc[1, "roof_fraction"] == pytest.approx(0.76, abs=0.01)
    assert (v["roof_fraction"] == v["utilization"]).all()


def test_hidden_work_units_are_explained(micro: Analysis) -> None:
    # Byte roofs do not see shared memory (4) or local memory (9): the unit is busy, the roof near zero.
    v = _by_id(micro.verdicts)
    for lid in (4, 9):
        assert v.loc[lid, "utilization"] > 0.8
        assert v.loc[lid, "roof_fraction"] == v.loc[lid, "utilization"]
        assert "does not count" in v.loc[lid, "explanation"]
        m = re.search(r"the byte roof shows only ([\d.]+)%", v.loc[lid, "explanation"])
        assert m is not None and float(m.group(1)) < 1
    # integer/address work (3): SM 76 %, no FP roof close; its % of roof is the SM's 76 %
    assert v.loc[3, "compute_pipe"] == "other"
    assert v.loc[3, "roof_fraction"] == pytest.approx(0.76, abs=0.01)


def test_verdict_frame_shape(micro: Analysis) -> None:
    v = micro.verdicts
    assert list(v.columns) == list(VERDICT_COLUMNS)
    assert {str(c): str(t) for c, t in v.dtypes.items()} == VERDICT_COLUMNS
    assert set(v["limiter"].dropna()) <= set(LIMITERS)
    assert set(v["regime"].dropna()) <= set(REGIMES)
    assert set(v["compute_pipe"].dropna()) <= set(PIPES)
    assert (v["headroom"] - (1 - v["utilization"])).abs().max() < 1e-12
    assert len(v) == len(micro.launches)


def test_utilization_table(micro: Analysis) -> None:
    u = micro.utilization
    assert list(u.columns) == ["report", "process_id", "launch_id", "unit", "value", "source"]
    assert u["value"].notna().all()
    stream = u[u["launch_id"] == 0].set_index("unit")
    # ncu's own SOL figures (micro_full.details.csv): DRAM 86.58 %, L2 90.44 %, SM 5.52 %
    assert stream.loc["dram", "value"] == pytest.approx(0.8658, abs=1e-4)
    assert stream.loc["l2", "value"] == pytest.approx(0.9044, abs=1e-4)
    assert stream.loc["sm", "value"] == pytest.approx(0.0552, abs=1e-4)
    assert stream.loc["dram", "source"] == "speed-of-light"
    assert stream.loc["dram_roof", "source"] == "roofline"
    assert stream.loc["limiter_hbm", "source"] == "classifier"
    fp32 = u[u["launch_id"] == 5].set_index("unit")
    assert fp32.loc["fp32", "value"] == pytest.approx(0.91, abs=0.01)  # README: 91 % of FP32 peak
    assert fp32.loc["pipe_fma", "value"] == pytest.approx(0.91, abs=0.01)  # NCU-FACTS: FMA 91 %


# ---------------------------------------------------------------------------------------- ncu agreement

AGREEMENT = {
    "micro_full": ("micro_full.raw.csv", "micro_full.details.csv"),
    "llm_full": ("llm_full.raw.csv", "llm_full.details.csv"),
    "train_step": ("train_step.raw.csv", "train_step.details.csv"),
}


def disagree(v: pd.DataFrame) -> np.ndarray:
    """Launches where ncu gave a verdict and ours differs."""
    out: np.ndarray = v["agrees_with_ncu"].eq(False).fillna(False).to_numpy(dtype=bool)
    return out


def _with_ncu(raw: str, details: str) -> Analysis:
    report = read_shared(data(raw))
    rules = rules_for(read_shared(data(details)).rules, str(report.launches["report"].iloc[0]))
    return analyze(report, rules=rules)


@pytest.mark.parametrize("name", list(AGREEMENT))
def test_agreement_with_ncu_solbottleneck(name: str) -> None:
    a = _with_ncu(*AGREEMENT[name])
    v = a.verdicts
    compared = v["agrees_with_ncu"].notna()
    assert compared.all(), "every launch of these reports has a SOLBottleneck row"
    assert agreement(v) >= 0.90
    for row in v[disagree(v)].itertuples():
        assert "differs from ncu" in str(row.explanation)


@pytest.mark.parametrize("name", ["micro_full.details.csv", "llm_full.details.csv", "train_step.details.csv"])
def test_agreement_from_the_details_export_alone(name: str) -> None:
    # the default details page: Speed Of Light only for the verdict, rules in the same file
    a = analysed(data(name))
    assert agreement(a.verdicts) >= 0.90


def test_ncu_verdict_parsing_against_the_rule_rows() -> None:
    rules = read_shared(data("micro_full.details.csv")).rules
    sol = rules[rules["rule"] == "SOLBottleneck"].set_index("launch_id")["description"]
    got = {int(k): parse_sol_bottleneck(str(t)) for k, t in sol.items()}
    # what ncu's messages say, read by eye in micro_full.details.csv
    assert got == {
        0: "dram",
        1: "dram",
        2: "latency",
        3: "compute",
        4: "l1",
        5: "compute",
        6: "compute",
        7: "compute",
        8: "compute",
        9: "l2",
        10: "latency",
        11: "small_grid",
        12: "small_grid",
        13: "small_grid",
        14: "small_grid",
        15: "small_grid",
    }


def test_sol_bottleneck_keeps_ncu_message_per_launch() -> None:
    """Each launch's ``ncu_message`` is the Rule Description of its own SOLBottleneck row (read with the csv module)."""
    path = data("micro_full.details.csv")
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    head = rows[0]
    expected = {
        int(r[head.index("ID")]): r[head.index("Rule Description")]
        for r in rows[1:]
        if len(r) == len(head) and r[head.index("Rule Name")] == "SOLBottleneck"
    }
    sol = sol_bottleneck(read_shared(path).rules)
    got = {int(key[-1]): str(text) for key, text in sol["ncu_message"].items()}
    assert len(expected) == 16
    assert got == expected


def test_disagreements_are_explained_with_figures() -> None:
    # Compare the micro verdicts with the rule rows of a *different* report (the LLM run, same launch IDs):
    # most disagree, and each disagreement must say what ncu compared and what decided ours.
    micro = read_shared(data("micro_full.raw.csv"))
    llm_rules = rules_for(read_shared(data("llm_full.details.csv")).rules, "micro_full.raw")
    llm_rules["process_id"] = micro.launches["process_id"].iloc[0]
    v = analyze(micro, rules=llm_rules).verdicts
    wrong = v[disagree(v)]
    assert len(wrong) >= 5
    for e in wrong["explanation"]:
        assert "differs from ncu" in e and "ncu compares SM" in e and "%" in e


# ---------------------------------------------------------------------------------------- degradation

BASIC_SECTIONS = {
    "GPU Speed Of Light Throughput",
    "Launch Statistics",
    "Occupancy",
    "GPU and Memory Workload Distribution",
}
BASIC_RULE_SECTIONS = {"SpeedOfLight", "LaunchStats", "Occupancy", "WorkloadDistribution"}


def basic_only(src: Path, dest: Path) -> Path:
    """A details export of ncu's default ``basic`` set, made from a real ``--set full`` export by keeping only
    the rows of the basic sections (their metric rows and their rule rows)."""
    with src.open(newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    si, ri = head.index("Section Name"), head.index("Rule Name")
    keep = [head]
    for r in rows[1:]:
        is_rule = len(r) > ri and r[ri] != ""
        if (is_rule and r[si] in BASIC_RULE_SECTIONS) or (not is_rule and r[si] in BASIC_SECTIONS):
            keep.append(r)
    with dest.open("w", newline="") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(keep)
    return dest


def test_basic_set_still_gets_a_verdict(tmp_path: Path) -> None:
    path = basic_only(data("micro_full.details.csv"), tmp_path / "micro_basic.csv")
    report = ncu_roofline.read(path)
    assert not any(c.startswith("smsp__sass_thread_inst") for c in report.values.columns)
    a = analyze(report)
    check_truth(a, pipes=False)  # no pipes and no HighPipeUtilization rule in the basic set
    v = a.verdicts
    assert set(v["basis"]) == {"speed-of-light"}
    assert a.roofline.empty or a.roofline["achieved_flops"].isna().all()  # no roofline ...
    assert (v["roof_fraction"] == v["utilization"]).all()  # ... but "% of roof" is the limiter's SOL figure
    for m in v["missing"]:
        assert "hierarchical roofline" in m
        assert "--section NcuRoofline --csv ./app > report.csv" in m
        assert "--section-folder" in m
    compute = v[v["limiter"] == "compute"]
    assert compute["compute_pipe"].isna().all()
    assert compute["missing"].str.contains("pipe utilisation").all()
    assert agreement(v) >= 0.90


def test_train_step_details_is_basic_and_classified() -> None:
    # SOL, LaunchStats and Occupancy only: a verdict for every launch, marked as Speed Of Light
    a = analysed(data("train_step.details.csv"))
    v = a.verdicts
    assert v["limiter"].notna().all() and v["regime"].notna().all()
    assert set(v["basis"]) == {"speed-of-light"}
    assert v["missing"].str.contains("NcuRoofline").all()


def test_the_nersc_metrics_run_gets_verdicts() -> None:
    # the --metrics run of the NERSC recipe (cycles, clock, instruction counts, dram/lts/l1tex bytes): every
    # level's traffic and the FP work come from counts / duration, so the kernels built for one roof get it
    # (README truth table: stream_triad HBM bound, fp32_fma / fp64_fma compute bound).
    a = analysed(data("micro_metrics.raw.csv"))
    v = _by_id(a.verdicts)
    assert v.loc[0, "limiter"] == "hbm" and v.loc[0, "regime"] == "bound"  # stream_triad: 86 % of DRAM
    assert v.loc[1, "limiter"] == "hbm" and v.loc[1, "regime"] == "bound"
    for lid, pipe in ((5, "fp32"), (6, "fp64")):
        assert v.loc[lid, "limiter"] == "compute" and v.loc[lid, "regime"] == "bound"
        assert v.loc[lid, "compute_pipe"] == pipe


def test_every_export_of_every_sample_is_classified_without_errors() -> None:
    for name in (
        "llm_full.details-all.csv",
        "llm_full.details-nvtx.csv",
        "micro_full.details-nvtx.csv",
        "direct_details.stdout.csv",
    ):
        a = analysed(data(name))
        assert a.verdicts["regime"].notna().all(), name


# ---------------------------------------------------------------------------------------- pieces


def test_memory_breakdown_members_are_ncus(micro_full: ncu_roofline.Report) -> None:
    # Every label of the SOL "Memory Throughput Breakdown" body item (details-all) equals, on every launch,
    # one metric of the declared DRAM/L2/L1 lists, and the unit of its label prefix is that list's unit.
    d = read_shared(data("micro_full.details-all.csv"))
    m = d.metrics
    m = m[(m["body_item"] == "Memory Throughput Breakdown").fillna(False).to_numpy()]
    raw = micro_full.values.reset_index(level=[0, 1], drop=True)
    lists = {"DRAM": DRAM_BREAKDOWN, "L2": L2_BREAKDOWN, "L1": L1_BREAKDOWN}
    matched = 0
    for label, g in m.groupby("label", observed=True):
        unit = str(label).split(":")[0]
        if unit not in lists:
            continue
        s = pd.Series(g["value"].to_numpy(), index=g["launch_id"].astype(int).to_numpy()).sort_index()
        if (s == 0).all():
            continue  # an all-zero member matches any all-zero metric
        hits = [c for c in lists[unit] if np.allclose(raw[c].reindex(s.index), s, rtol=2e-3, atol=6e-3)]
        assert hits, label
        matched += 1
    assert matched >= 15


def test_details_all_breakdown_labels_fill_the_quantities() -> None:
    d = read_shared(data("micro_full.details-all.csv"))
    from ncu_roofline.analysis import report_quantities

    q = report_quantities(d).reset_index(drop=True)
    # ncu: spill_heavy's memory throughput 83.65 % is its busiest L2 member (lts__xbar2lts 83.7 %)
    assert q.loc[9, "l2_busiest_pct"] == pytest.approx(83.65, abs=0.1)
    assert q.loc[3, "pipe_alu_pct"] == pytest.approx(75.7, abs=0.5)  # ncu HighPipeUtilization: ALU 75.7 %


def test_tie_goes_to_the_outer_memory_level() -> None:
    s = pd.DataFrame(
        {
            "hbm": [0.8658, 0.10, 0.0003, 0.50],
            "l2": [0.8658, 0.955, 0.004, 0.90],
            "l1": [0.20, 0.96, 0.0040, 0.20],
            "compute": [0.05, 0.20, 0.0001, 0.91],
        }
    )
    limiter, value = pick_limiter(s)
    assert list(limiter) == ["hbm", "l2", "l2", "compute"]
    assert value[0] == pytest.approx(0.8658)


def test_bound_threshold_is_ncus() -> None:
    assert BOUND_THRESHOLD == 0.60  # SOLBottleneck: latency_bound_threshold = 60


def test_quantity_combine_rules(micro_full: ncu_roofline.Report) -> None:
    v = micro_full.values
    q = quantities(v).reset_index(drop=True)
    raw = v.reset_index(drop=True)
    assert q["l2_busiest_pct"].tolist() == raw[list(L2_BREAKDOWN)].max(axis=1).tolist()
    names = {x.name for x in QUANTITIES}
    assert len(names) == len(QUANTITIES)


def test_time_by_adds_up(micro: Analysis) -> None:
    d = micro.quantities["duration"].sum()
    for col in ("limiter", "regime"):
        t = time_by(micro, col)
        assert t["duration_s"].sum() == pytest.approx(d)
        assert t["share"].sum() == pytest.approx(1.0)
        assert t["launches"].sum() == 16
    r = time_by(micro, "regime").set_index("regime")
    assert r.loc["launch", "launches"] == 4
    # the four tiny launches: 2.08 + 1.952 + 2.016 + 1.92 us (ncu's gpu__time_duration.sum)
    assert r.loc["launch", "duration_s"] == pytest.approx(7.968e-6, rel=1e-3)


def test_latency_verdicts_lead_with_the_regime_and_name_the_stalls(micro: Analysis) -> None:
    # low_occupancy (10): every unit under 10 %; ncu's Warp State Statistics put 49.55 of its 53.47 warp cycles
    # per issued instruction on long scoreboard (smsp__average_warps_issue_stalled_long_scoreboard_per_issue_
    # active / smsp__average_warp_latency_per_inst_issued): 93 %
    v = _by_id(micro.verdicts)
    reason = str(v.loc[10, "reason"])
    assert reason.startswith("latency-bound (every unit under 60%)")
    assert "busiest unit hbm at 7.0%" in reason
    assert "stalls: long scoreboard 93%" in reason
    assert "limiter" not in reason
    assert str(v.loc[12, "reason"]).startswith("launch-bound")
    # a bound launch keeps its limiter first
    assert str(v.loc[0, "reason"]).startswith("hbm at 87% of its peak")


def test_latency_verdicts_name_the_section_when_stalls_were_not_collected() -> None:
    # train_step's details page has SpeedOfLight, LaunchStats and Occupancy only (samples README)
    a = analysed(data("train_step.details.csv"))
    lat = a.verdicts[a.verdicts["regime"] == "latency"]
    assert len(lat)
    for r in lat["reason"]:
        assert "stall reasons not collected (--section WarpStateStats" in str(r)


def test_latency_verdicts_on_a_details_page_name_ncus_stall() -> None:
    # micro_full's details page has no stall metrics, but ncu's CPIStall rule says it in words: low_occupancy's
    # warps spend 49.5 cycles per instruction waiting on an L1TEX scoreboard dependency (the raw page's long
    # scoreboard stall, 49.55)
    a = analysed(data("micro_full.details.csv"))
    reason = str(_by_id(a.verdicts).loc[10, "reason"])
    assert reason.startswith("latency-bound")
    assert (
        "stalls (ncu's CPIStall rule): 49.5 cycles per instruction waiting for a scoreboard dependency on a L1TEX"
        in reason
    )


def test_latency_verdicts_on_a_details_page_without_ncus_stall_say_where_the_reasons_are(tmp_path: Path) -> None:
    """The same page without ncu's CPIStall rows: WarpStateStats ran (its warp cycles per instruction are on the
    page), so the stall reasons were collected and are on the raw page (it said they were not collected)."""
    lines = data("micro_full.details.csv").read_text().splitlines(keepends=True)
    page = tmp_path / "micro_full.details.csv"
    page.write_text("".join(x for x in lines if '"CPIStall"' not in x))
    reason = str(_by_id(analysed(page).verdicts).loc[10, "reason"])
    assert reason.startswith("latency-bound")
    assert "stall reasons not on this page (WarpStateStats collected them: export the raw page, --page raw)" in reason


#: A Speed Of Light picked by hand (--metrics): each unit's throughput, L1's of its active cycles, no Memory
#: Throughput (gpu__compute_memory_throughput), which caps that figure in ncu's own section.
HAND_PICKED_SOL = (
    "gpu__time_duration.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__throughput.avg.pct_of_peak_sustained_active",
)


def _figures(source: str, metric: str) -> dict[int, float]:
    """ncu's percentage ``metric`` per launch ID of a raw page, as a fraction."""
    raw = derive.raw_rows(data(source))
    return {int(r[0]): float(r[raw[0].index(metric)].replace(",", "")) / 100 for r in raw if r[0].isdigit()}


def _raw_subset(tmp_path: Path, metrics: tuple[str, ...], source: str = "micro_full.raw.csv") -> Path:
    """The real raw page with its identity columns and ``metrics`` only (derive.picked)."""
    return derive.picked(derive.raw_rows(data(source)), metrics, tmp_path / "picked.raw.csv")


def test_l1_of_active_cycles_alone_is_an_upper_bound_not_a_score(tmp_path: Path) -> None:
    """Without Memory Throughput to cap it, L1's throughput of its active cycles gives no score: on the
    one-block tiny_launch ncu reads 67-105 % there (0.2 % of elapsed cycles), and a verdict built on it said
    "l1 bound". It still bounds the level: under 60 % it cannot be the one at its bound."""
    active = _figures("micro_full.raw.csv", "l1tex__throughput.avg.pct_of_peak_sustained_active")
    assert active[13] > 1.0 and active[12] > BOUND_THRESHOLD  # ncu's own figures: the trap

    a = analyze(ncu_roofline.read(_raw_subset(tmp_path, HAND_PICKED_SOL)))
    v = _by_id(a.verdicts)
    assert v["score_l1"].isna().all()
    assert (v[[f"score_{k}" for k in LIMITERS]].max(axis=1).dropna() <= 1.0).all()
    for lid in range(12, 16):  # no verdict: L1 could be at its bound; the reason gives ncu's figure as the bound
        assert pd.isna(v.loc[lid, "limiter"]) and "l1" in v.loc[lid, "unmeasured"]
        assert f"l1 at most {active[lid]:.0%}" in v.loc[lid, "reason"]
    for lid in (5, 6, 7):  # FP-bound kernels: L1 under 1 % of its active cycles leaves only DRAM open
        assert v.loc[lid, "limiter"] == "compute" and v.loc[lid, "reason"].endswith("partial: hbm not measured")
    assert "elapsed" in v.loc[12, "missing"]  # what to collect names the figure of elapsed cycles

    # with the figure of elapsed cycles collected too, the tiny launches are what the samples README says
    b = analyze(
        ncu_roofline.read(
            _raw_subset(tmp_path, (*HAND_PICKED_SOL, "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"))
        )
    )
    w = _by_id(b.verdicts)
    assert (w.loc[12:15, "regime"] == "launch").all()
    assert (w.loc[12:15, "score_l1"] < 0.01).all()


def test_memory_throughput_alone_scores_no_level_and_says_a_level_is_at_its_bound(tmp_path: Path) -> None:
    """The two headline figures picked by hand (Compute and Memory Throughput): Memory Throughput caps the L2 and
    L1 figures, it is none of them (L2 and L1 scored the cap itself: "l2 at 87%" on stream_triad, whose L2
    figure was never collected). Where it is at or over 60 %, some memory level is at its bound: no verdict, and
    the reason says so rather than "every measured unit is under 60%"."""
    picked = ("gpu__time_duration.sum", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
              "sm__throughput.avg.pct_of_peak_sustained_elapsed")  # fmt: skip
    memory = _figures("micro_full.raw.csv", picked[1])
    v = _by_id(analyze(ncu_roofline.read(_raw_subset(tmp_path, picked))).verdicts)
    assert v[["score_hbm", "score_l2", "score_l1"]].isna().all().all()
    for lid in (0, 1, 4, 9):  # stream_triad, strided_read, smem_bank_conflict, spill_heavy: Memory Throughput >= 60 %
        assert memory[lid] >= BOUND_THRESHOLD and pd.isna(v.loc[lid, "limiter"])
        assert f"Memory Throughput (its busiest memory unit) is {memory[lid]:.0%}" in v.loc[lid, "reason"]
    for lid in (5, 6, 7):  # the FP kernels: compute-bound, every memory level at most Memory Throughput (< 1 %)
        assert v.loc[lid, "limiter"] == "compute" and memory[lid] < 0.01
        assert "hbm, l2, l1 not measured, at most ncu's Memory Throughput" in v.loc[lid, "reason"]
    assert (v.loc[12:15, "regime"] == "launch").all()  # all under 60 %, the levels capped by it: settled


def test_the_l2_header_alone_is_an_upper_bound_and_the_outer_level_holds(tmp_path: Path) -> None:
    """Each unit's Speed Of Light figure picked by hand, without Memory Throughput: ``lts__throughput`` counts
    more than ncu's memory breakdown (stream_triad and strided_read: 90 % against DRAM's 87 % and 76 %), so alone
    it bounds L2 and scores nothing. The DRAM kernels are hbm-bound as the samples README says (partial: L2 could
    be busier, at most ncu's figure), not "l2 at 90%"; under 60 % the bound settles L2 (l2_reread: latency)."""
    picked = (*HAND_PICKED_SOL, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")
    lts = _figures("micro_full.raw.csv", "lts__throughput.avg.pct_of_peak_sustained_elapsed")
    v = _by_id(analyze(ncu_roofline.read(_raw_subset(tmp_path, picked))).verdicts)
    assert v["score_l2"].isna().all()
    for lid in (0, 1):
        assert lts[lid] > v.loc[lid, "score_hbm"]  # the trap, in ncu's own figures
        assert (v.loc[lid, "limiter"], v.loc[lid, "regime"]) == MICRO_TRUTH[lid][1::2] == ("hbm", "bound")
        assert v.loc[lid, "partial"] and f"l2 at most {lts[lid]:.0%} (SOL L2 throughput" in v.loc[lid, "reason"]
    assert v.loc[2, "regime"] == "latency" and f"l2 at most {lts[2]:.0%}" in v.loc[2, "reason"]
    assert pd.isna(v.loc[9, "limiter"]) and f"l2 at most {lts[9]:.0%}" in v.loc[9, "reason"]  # spill_heavy: open


def test_the_pipes_alone_cannot_settle_that_the_sm_is_under_its_bound(tmp_path: Path) -> None:
    """Every pipe of ComputeWorkloadAnalysis, without sm__throughput: the SM's throughput is the busiest of more
    than its pipes (issue slots among them), so two llm_full launches whose SM ncu reads over 60 % have no pipe
    over 60 %. Such a launch gets no settled latency verdict: the SM stays open (partial or no verdict)."""
    raw = derive.raw_rows(data("llm_full.raw.csv"))
    pipes = tuple(
        c for c in raw[0] if re.fullmatch(r"sm__(inst_executed_pipe|pipe)_\w+\.avg\.pct_of_peak_sustained_active", c)
    )
    picked = ("gpu__time_duration.sum", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", *pipes)

    def figure(row: list[str], name: str) -> float:
        return float(row[raw[0].index(name)].replace(",", "")) / 100

    launches = [r for r in raw if r[0].isdigit()]
    hidden = [
        int(r[0])
        for r in launches
        if figure(r, "sm__throughput.avg.pct_of_peak_sustained_elapsed") >= BOUND_THRESHOLD
        and max(figure(r, p) for p in pipes) < BOUND_THRESHOLD
    ]
    assert len(pipes) >= 20 and len(hidden) >= 2  # ncu's figures: the SM busier than any pipe
    v = _by_id(analyze(ncu_roofline.read(_raw_subset(tmp_path, picked, "llm_full.raw.csv"))).verdicts)
    for lid in hidden:
        assert pd.isna(v.loc[lid, "limiter"]) or (v.loc[lid, "partial"] and "sm not measured" in v.loc[lid, "reason"])
    assert "sm__throughput" in v.loc[hidden[0], "missing"]


def test_an_idle_tensor_roof_alone_does_not_make_fp64_work_other(tmp_path: Path) -> None:
    """Sections picked by hand from a --print-details all page: the tensor roofline chart (fp64_fma's tensor roof
    is 0 %) without the FP64, FP32 and FP16 charts. The FLOP roofs cannot tell FP64 work from integer work then:
    the pipe is not "other" (the construction: fp64), and no "non-FP compute" hint says so."""
    original = derive.text_of(data("micro_full.details-all.csv"))
    page = derive.rows(original)
    section = page[0].index("Section Name")
    picked = {"Compute Workload Analysis", "GPU Speed Of Light Hierarchical Roofline Chart (Tensor Core)"}
    rows = [page[0], *(r for r in page[1:] if len(r) > section and r[section] in picked)]
    path = tmp_path / "picked.details.csv"
    path.write_text(derive.write_like(rows))
    a = analyze(ncu_roofline.read(path))
    v = _by_id(a.verdicts)
    assert MICRO_TRUTH[6][:3] == ("fp64_fma", "compute", "fp64")
    assert v.loc[6, "limiter"] == "compute" and str(v.loc[6, "compute_pipe"]) in ("fp64", "<NA>")
    fired = a.hints[a.hints["launch_id"].astype(int) == 6]["hint"]
    assert "non_fp_compute" not in set(fired)


def _as_cc70(raw: list[list[str]], fp16_pipe: bool) -> list[list[str]]:
    """The real H200 raw page as a GPU whose FP16 instructions have a pipe of their own would write it (CC 7.0:
    ``quantities.FP16_PIPE_CCS``): the FP16 figures under ``sm__inst_executed_pipe_fp16`` (left out unless
    ``fp16_pipe``), and the FMA pipe's figures less them (what the FMA pipe did besides its FP16 instructions,
    the H200 counting those on it)."""
    header = raw[0]
    out = [list(r) for r in raw]
    cc = header.index("CC")
    for row in out[2:]:
        row[cc] = "7.0"
    for when in ("active", "elapsed"):
        fp16 = header.index(f"sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_{when}")
        for fma in (f"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_{when}",
                    f"sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_{when}"):  # fmt: skip
            col = header.index(fma)
            for row in out[2:]:
                less = float(row[col].replace(",", "")) - float(row[fp16].replace(",", ""))
                row[col] = f"{max(less, 0.0):.6f}"
        out[0][fp16] = f"sm__inst_executed_pipe_fp16.avg.pct_of_peak_sustained_{when}"
    if not fp16_pipe:
        keep = [i for i, c in enumerate(out[0]) if not c.startswith("sm__inst_executed_pipe_fp16.")]
        out = [[r[i] for i in keep] for r in out]
    return out


@pytest.mark.parametrize("fp16_pipe", [True, False])
def test_fp16_work_on_a_pipe_of_its_own_is_not_other_work(tmp_path: Path, fp16_pipe: bool) -> None:
    """Volta, Turing and GA100 (CC 7.0-8.0) run FP16x2 instructions on an FP16 pipe, not the FMA pipe: half_hfma2
    keeps that pipe busy and the FMA pipe idle. Its busiest pipe is the FP16 pipe (the construction: fp16), not
    "other"; without that pipe's figure nor the FP16 FLOPs, the pipes cannot tell FP16 work from integer work
    on such a GPU, and no pipe is named (l1_reread's "other" neither)."""
    raw = derive.raw_rows(data("micro_full.raw.csv"))
    pipes = [c for c in raw[0] if re.fullmatch(r"sm__(inst_executed_pipe|pipe)_\w+\.avg\.pct_of_peak_sustained_\w+", c)]
    memory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
    picked = (*HAND_PICKED_SOL, memory, *pipes)
    sm = derive.picked(raw, picked, tmp_path / "sm90.raw.csv")
    cc70 = tmp_path / "cc70.raw.csv"
    cc70.write_text(derive.write(_as_cc70(derive.raw_rows(sm), fp16_pipe)))
    before, after = (_by_id(analyze(ncu_roofline.read(p)).verdicts) for p in (sm, cc70))
    assert MICRO_TRUTH[7][:3] == ("half_hfma2", "compute", "fp16") and MICRO_TRUTH[3][2] == "other"
    assert (before.loc[7, "compute_pipe"], before.loc[3, "compute_pipe"]) == (
        "fp16",
        "other",
    )  # CC 9.0: on the FMA pipe
    assert after.loc[7, "limiter"] == "compute"
    if fp16_pipe:
        assert (after.loc[7, "compute_pipe"], after.loc[7, "pipe_basis"]) == ("fp16", "pipes")
        assert after.loc[3, "compute_pipe"] == "other"
    else:
        assert pd.isna(after.loc[7, "compute_pipe"]) and pd.isna(after.loc[3, "compute_pipe"])
        assert "pipe utilisation" in after.loc[7, "missing"]


def test_the_texts_of_a_gpu_without_hbm_call_its_dram_dram(tmp_path: Path) -> None:
    """The reason and explanation name the units by their keys, the DRAM unit ``hbm``: on a GPU of GDDR (the real
    H200 raw page rebuilt as an L40S writes it: its name, CC 8.9) they say ``dram``, as the summaries' label says
    DRAM there; the limiter stays ``hbm`` (the key). On the H200 they say ``hbm``."""
    raw = derive.raw_rows(data("micro_full.raw.csv"))
    header = raw[0]
    cc, name = header.index("CC"), header.index("device__attribute_display_name")
    for row in raw[2:]:
        row[cc], row[name] = "8.9", "NVIDIA L40S"
    l40s = tmp_path / "l40s.raw.csv"
    l40s.write_text(derive.write(raw))
    h200, gddr = (_by_id(analyze(ncu_roofline.read(p)).verdicts) for p in (data("micro_full.raw.csv"), l40s))
    assert MICRO_TRUTH[0][:2] == ("stream_triad", "hbm")
    assert h200.loc[0, "limiter"] == gddr.loc[0, "limiter"] == "hbm"
    assert h200.loc[0, "reason"].startswith("hbm at ") and gddr.loc[0, "reason"].startswith("dram at ")
    assert gddr.loc[0, "reason"] == "dram" + h200.loc[0, "reason"][len("hbm") :]
    for column in ("reason", "explanation"):
        said = " ".join(h200[column].dropna())
        assert re.search(r"\bhbm\b", said)  # other launches' scores, the busiest unit of latency-bound ones
        assert not re.search(r"\bhbm\b", " ".join(gddr[column].dropna()))
        assert len(re.findall(r"\bdram\b", " ".join(gddr[column].dropna()))) == len(re.findall(r"\bhbm\b", said))


def test_a_launch_its_tensor_pipe_holds_without_a_tensor_roofline_says_what_collects_it() -> None:
    """train_step was profiled with the FP32 and FP16 roofline charts and not the tensor one (tests/data/README):
    its cuBLAS GEMMs (nvjet) are compute-bound on the tensor pipe with FP32 points only. Their ``missing`` names the
    stock tensor chart section; launches with tensor work on their roofline (llm_full, --set full) do not."""
    train = analysed(data("train_step.raw.csv.gz"))
    v, roof = train.verdicts, train.roofline
    assert not (roof["precision"].eq("tensor") & roof["achieved_flops"].notna()).any()
    tensor = (v["limiter"] == "compute") & (v["compute_pipe"] == "tensor")
    says = v["missing"].fillna("").str.contains("--section SpeedOfLight_HierarchicalTensorRooflineChart", regex=False)
    assert tensor.sum() >= 10 and (says == tensor).all()
    assert train.launches.loc[tensor.to_numpy(), "display_name"].str.startswith("nvjet").all()  # positional

    llm = analysed(data("llm_full.raw.csv.gz"))
    lv, lroof = llm.verdicts, llm.roofline
    held = (lv["limiter"] == "compute") & (lv["compute_pipe"] == "tensor")
    measured = set(lroof.loc[lroof["precision"].eq("tensor") & lroof["achieved_flops"].notna(), "launch_id"])
    assert held.any() and set(lv.loc[held, "launch_id"]) <= measured
    assert not lv["missing"].fillna("").str.contains("tensor roofline", regex=False).any()
