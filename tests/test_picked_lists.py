"""Metrics picked by hand (``ncu --metrics``) in whole groups: whatever subset of the Speed Of Light, the byte and
FLOP counts and the pipes an export has, a verdict the classifier settles (not partial) is the one the whole page
gives, and on the micro kernels the one their construction gives (the samples README).

Each list keeps the raw page's identity columns and the groups' metrics, every value ncu's own; the lists are
every combination of up to three groups, with the duration and without it, over the micro and llm_full raw
pages.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import derive
import pandas as pd
import pytest
from conftest import data
from test_classify import MICRO_TRUTH

import ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.classify import COLLECT, COLLECT_SOL


def _groups(header: list[str]) -> dict[str, list[str]]:
    def like(pattern: str) -> list[str]:
        return [c for c in header if re.fullmatch(pattern, c)]

    return {
        "sm": like(r"sm__throughput\.avg\.pct_of_peak_sustained_elapsed"),
        "memory": like(r"gpu__compute_memory_throughput\.avg\.pct_of_peak_sustained_elapsed"),
        "dram": like(r"gpu__dram_throughput\.avg\.pct_of_peak_sustained_elapsed"),
        "l2": like(r"lts__throughput\.avg\.pct_of_peak_sustained_elapsed"),
        "l1_active": like(r"l1tex__throughput\.avg\.pct_of_peak_sustained_active"),
        "l1_elapsed": like(r"l1tex__throughput\.avg\.pct_of_peak_sustained_elapsed"),
        "bytes": like(
            r"(dram__bytes|lts__t_bytes|l1tex__t_bytes)\.sum(\.per_second)?|(sm|gpc)__cycles_elapsed\.avg(\.per_second)?"
        ),
        "flops": like(r"(sm|smsp)__sass_thread_inst_executed_op_[dfh](add|mul|fma)_pred_on\.sum(\.per_cycle_elapsed)?"),
        "pipes": like(r"sm__(inst_executed_pipe|pipe)_\w+\.avg\.pct_of_peak_sustained_active"),
    }


def _lists(header: list[str]) -> list[tuple[str, ...]]:
    names = [g for g, columns in _groups(header).items() if columns]
    return [c for k in (1, 2, 3) for c in itertools.combinations(names, k)]


def _verdicts(rows: list[list[str]], picked: tuple[str, ...], path: Path, timed: bool) -> pd.DataFrame:
    groups = _groups(rows[0])
    columns = [*(["gpu__time_duration.sum"] if timed else []), *(c for g in picked for c in groups[g])]
    v = analyze(ncu_roofline.read(derive.picked(rows, columns, path))).verdicts
    return v.set_index(v["launch_id"].astype(int))


def _settled_against(v: pd.DataFrame, expected: dict[int, tuple[str | None, str]]) -> list[str]:
    """The settled verdicts of ``v`` that contradict ``expected`` (launch -> limiter, regime): a bound verdict
    names the expected limiter, a latency or launch verdict the expected regime."""
    wrong = []
    for lid, r in v.iterrows():
        if pd.isna(r["limiter"]) or bool(r["partial"]):
            continue
        limiter, regime = expected[int(lid)]
        if r["regime"] != regime or (regime == "bound" and r["limiter"] != limiter):
            wrong.append(f"{lid}: {r['limiter']}/{r['regime']}, expected {limiter}/{regime}: {r['reason']}")
    return wrong


MICRO = derive.raw_rows(data("micro_full.raw.csv"))
LLM = derive.raw_rows(data("llm_full.raw.csv"))


#: with the duration, and without it (a list that leaves gpu__time_duration out: a latency verdict may then be
#: a launch-bound one, and a memory header may have nothing to cap it)
TIMED = pytest.mark.parametrize("timed", [True, False], ids=["timed", "untimed"])


@TIMED
@pytest.mark.parametrize("picked", _lists(MICRO[0]), ids="+".join)
def test_micro_settled_verdicts_are_the_kernels_construction(
    picked: tuple[str, ...], timed: bool, tmp_path: Path
) -> None:
    truth = {lid: (limiter, regime) for lid, (_, limiter, _, regime) in MICRO_TRUTH.items()}
    assert _settled_against(_verdicts(MICRO, picked, tmp_path / "p.raw.csv", timed), truth) == []


@pytest.fixture(scope="module")
def llm_whole() -> dict[int, tuple[str | None, str]]:
    v = analyze(ncu_roofline.read(data("llm_full.raw.csv"))).verdicts
    return {int(r["launch_id"]): (r["limiter"], r["regime"]) for _, r in v.iterrows()}


@TIMED
@pytest.mark.parametrize("picked", _lists(LLM[0]), ids="+".join)
def test_llm_settled_verdicts_are_the_whole_pages(
    picked: tuple[str, ...], timed: bool, tmp_path: Path, llm_whole: dict[int, tuple[str | None, str]]
) -> None:
    assert _settled_against(_verdicts(LLM, picked, tmp_path / "p.raw.csv", timed), llm_whole) == []


def test_memory_throughput_caps_no_header_without_drams_figure(tmp_path: Path) -> None:
    """Memory Throughput, L2 and SM throughput picked, DRAM's figure not (a published --metrics list): Memory
    Throughput is stream_triad's DRAM (86.8 %), so the L2 header (90.7 %) capped at it is DRAM's number, not
    L2's (its busiest L2 member is 58 %): no L2 score, partial or not; a memory unit at 87 % is said, none named."""
    v = _verdicts(MICRO, ("memory", "l2", "sm"), tmp_path / "p.raw.csv", timed=True)
    assert pd.isna(v.loc[0, "limiter"]) and pd.isna(v.loc[1, "limiter"])  # stream_triad, strided_read
    assert "Memory Throughput (its busiest memory unit) is 87%" in v.loc[0, "reason"]
    whole = analyze(ncu_roofline.read(data("micro_full.raw.csv"))).verdicts.set_index("launch_id")
    assert whole.loc[0, "limiter"] == "hbm"


@pytest.mark.parametrize("rollup", ["avg", "max", "min"])
def test_the_duration_in_any_rollup(rollup: str, tmp_path: Path) -> None:
    """gpu__time_duration picked as .avg (a public pagerank script: `--metrics gpu__time_duration.avg`), .max or
    .min: one instance per launch, so each is the launch's duration, the .sum of ncu's own page (it was "not
    measured")."""
    rows = derive.raw_rows(data("micro_metrics.raw.csv"))  # a real --metrics page holding all four
    page = derive.picked(rows, [f"gpu__time_duration.{rollup}"], tmp_path / "d.raw.csv")
    got = analyze(ncu_roofline.read(page)).quantities["duration"].to_numpy()
    want = analyze(ncu_roofline.read(data("micro_metrics.raw.csv"))).quantities["duration"].to_numpy()
    assert (got == want).all() and len(got) == 16


def test_dram_bytes_spelled_op_read_and_op_write(tmp_path: Path) -> None:
    """A Blackwell run of ncu (an RTX 5070's saxpy, published) picked dram__bytes_op_read.sum and
    dram__bytes_op_write.sum: read + write over the duration is the launch's DRAM traffic. The real H200 page's
    dram__bytes.sum respelled as those two (all of it read, a write of 0). The list has no device name or
    attribute, so no DRAM peak: the bytes are measured, and what is missing is the peak, not the metrics."""
    rows = derive.raw_rows(data("micro_metrics.raw.csv"))
    page = derive.picked(rows, ["gpu__time_duration.sum", "dram__bytes.sum"], tmp_path / "p.raw.csv")
    spelled = derive.rows(page.read_text())
    header = spelled[0]
    header[header.index("dram__bytes.sum")] = "dram__bytes_op_read.sum"
    header.append("dram__bytes_op_write.sum")
    spelled[1].append(spelled[1][header.index("dram__bytes_op_read.sum")])
    for r in spelled[2:]:
        r.append("0")
    page.write_text(derive.write(spelled))
    a = analyze(ncu_roofline.read(page))
    whole = analyze(
        ncu_roofline.read(derive.picked(rows, ["gpu__time_duration.sum", "dram__bytes.sum"], tmp_path / "w.raw.csv"))
    )
    dram = a.roofline[(a.roofline["level"] == "dram") & (a.roofline["precision"] == "fp32")]
    want = whole.roofline[(whole.roofline["level"] == "dram") & (whole.roofline["precision"] == "fp32")]
    assert dram["achieved_bytes_per_s"].to_numpy() == pytest.approx(want["achieved_bytes_per_s"].to_numpy(), rel=1e-12)
    assert dram["achieved_bytes_per_s"].notna().all()
    missing = a.verdicts["missing"].astype(str)
    assert not missing.str.contains(COLLECT["hbm"], regex=False).any()  # it asked for dram__bytes.sum.per_second
    assert missing.str.contains(COLLECT_SOL["hbm"], regex=False).all()
    assert missing.str.contains("peak dram_bytes_per_s", regex=False).all()


def test_a_short_launch_without_a_verdict_and_a_grid_without_the_sm_count_say_what_they_lack(tmp_path: Path) -> None:
    """The duration and the grid size alone (a published list picked them, among others): tiny_launch (1 block,
    2 us) has no verdict, so launch_overhead cannot tell it launch-bound, and without the SM count small_grid
    cannot count idle SMs; each says so in not_checked (they were silent). With --device, the table's 132 SMs
    give small_grid its figure."""
    page = derive.picked(MICRO, ["gpu__time_duration.sum", "launch__grid_size"], tmp_path / "p.raw.csv")
    a = analyze(ncu_roofline.read(page))
    tiny = a.launches.index[a.launches["kernel_name"].astype(str).str.startswith("tiny_launch")]
    assert len(tiny) == 4
    for pos in tiny:
        assert pd.isna(a.verdicts["regime"].iloc[pos])
        said = str(a.verdicts["not_checked"].iloc[pos])
        assert "launch_overhead: a figure of every unit (no verdict: its reason names those missing)" in said
        assert "small_grid: launch__waves_per_multiprocessor, or launch__grid_size and the GPU's SM count" in said
    long = a.quantities["duration"].to_numpy() >= 5e-6
    assert not a.verdicts["not_checked"].astype(str)[long].str.contains("launch_overhead").any()
    h200 = analyze(ncu_roofline.read(page), device="NVIDIA H200")
    grids = h200.hints[h200.hints["hint"] == "small_grid"]
    assert set(grids["launch_id"].astype(int)) >= set(a.launches["launch_id"].iloc[tiny].astype(int))
    assert grids["message"].str.contains("1 block for 132 SMs", regex=False).any()


def test_nothing_measured_is_said_as_such(tmp_path: Path) -> None:
    """SOL headers of L2 and L1 alone (no Memory Throughput to cap them, no SM figure): no unit has a score, so
    the reason does not say "every measured unit is under 60 %"; and the time by limiter gives no share to a
    memory level no launch measured (it printed "HBM 0.0%"), while a regime no launch has is 0 of the time."""
    from ncu_roofline.report.viewmodel import build_view

    a = analyze(
        ncu_roofline.read(
            derive.picked(
                MICRO,
                ["gpu__time_duration.sum", *_groups(MICRO[0])["l2"], *_groups(MICRO[0])["l1_active"]],
                tmp_path / "p.raw.csv",
            )
        )
    )
    reasons = a.verdicts["reason"].astype(str)
    assert reasons.str.startswith("no verdict: hbm, l2, l1, compute not measured;").all()
    assert not reasons.str.contains("every measured unit").any()
    b = analyze(
        ncu_roofline.read(
            derive.picked(MICRO, ["gpu__time_duration.sum", *_groups(MICRO[0])["sm"]], tmp_path / "s.raw.csv")
        )
    )
    shares = {r.key: r.share for r in build_view(b).by_limiter}
    assert shares["hbm"] is None and shares["l2"] is None and shares["l1"] is None
    assert shares["compute"] is not None and shares["compute"] > 0
    assert {r.key: r.share for r in build_view(a).by_limiter}["compute"] is None  # no SM figure on the first


def test_a_dram_byte_roof_is_not_what_memory_throughput_is_made_of(tmp_path: Path) -> None:
    """Memory Throughput, L2's SOL header and DRAM's bytes (its byte roof from a DRAM peak given), not DRAM's
    SOL figure: Memory Throughput (86.6 %) is still stream_triad's DRAM figure, so it caps no L2 header (which
    took 86.6 % over DRAM's byte roof of 85 % and named L2 the limiter)."""
    g = _groups(MICRO[0])
    dram_bytes = [c for c in g["bytes"] if c.startswith("dram__")]
    page = derive.picked(MICRO, ["gpu__time_duration.sum", *g["memory"], *g["l2"], *dram_bytes], tmp_path / "p.raw.csv")
    v = analyze(ncu_roofline.read(page), peaks={"dram_bytes_per_s": 4.9e12}).verdicts.set_index("launch_id")
    assert v.loc[0, "limiter"] != "l2" and v.loc[1, "limiter"] != "l2"  # stream_triad, strided_read: DRAM-bound


def test_no_verdict_anywhere_gives_no_share_to_any_limiter_or_regime(tmp_path: Path) -> None:
    """The duration alone: every launch unclassified, so no limiter or regime has a share of the time, not 0 %
    ("Latency-bound 0.0%" read as a measured absence of latency)."""
    from ncu_roofline.report.viewmodel import build_view

    view = build_view(analyze(ncu_roofline.read(derive.picked(MICRO, ["gpu__time_duration.sum"], tmp_path / "t.csv"))))
    for rows in (view.by_limiter, view.by_regime):
        shares = {r.key: r.share for r in rows}
        assert shares.pop(None) == pytest.approx(1.0) and set(shares.values()) == {None}


def test_no_hint_fired_says_what_could_not_be_checked(tmp_path: Path) -> None:
    """The duration alone: no hint fires, and none could look (it said "No hint fired on any launch." as if
    every launch had been checked)."""
    from ncu_roofline.report.html import HTML
    from ncu_roofline.report.registry import Options, Run
    from ncu_roofline.report.terminal import render_terminal

    a = analyze(ncu_roofline.read(derive.picked(MICRO, ["gpu__time_duration.sum"], tmp_path / "t.csv")))
    text = " ".join(render_terminal(a).split())
    assert "No hint fired, but some could not be checked on 16 launches" in text
    page = str(HTML.render(Run(a), Options()))
    assert "Some could not be checked on 16 launches" in page
