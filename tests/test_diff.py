"""ncu_roofline.diff: matching launches across two real reports and what changed.

Golden numbers are ncu's own: each launch's ``gpu__time_duration.sum`` as the export carries it. The variants
(a kernel removed, a kernel renamed, NVTX counters renumbered) are real exports edited the way a changed
program or a second run would change them (``tests/edits.py``).
"""

from __future__ import annotations

import csv
import gzip
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _analyses import sample
from conftest import DATA, data
from edits import renamed, renumbered_nvtx, reshaped, untimed, without_kernel, without_launch, without_nvtx

import ncu_roofline
from ncu_roofline.analysis import Analysis, analyze
from ncu_roofline.diff import (
    AFTER_ONLY,
    BEFORE_ONLY,
    HINT_DIFF_COLUMNS,
    KERNEL_COLUMNS,
    MATCHED,
    PAIR_COLUMNS,
    _pair_in_order,
    compare,
)
from ncu_roofline.report.diffout import headline, matching_line, render_diff_text

DURATION = "gpu__time_duration.sum"
DATA_REEXPORT = DATA / "reexport"


def durations(analysis: Analysis) -> dict[int, float]:
    """ncu's duration of each launch in ns, by launch ID, straight from the export's values."""
    v = analysis.report.values[DURATION]
    return {int(k[2]): float(x) * 1e9 for k, x in v.items()}


@pytest.fixture(scope="module")
def roof() -> Analysis:
    return sample("micro_roof.raw.csv.gz")


@pytest.fixture(scope="module")
def full() -> Analysis:
    return sample("micro_full.raw.csv")


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("variants")


@pytest.fixture(scope="module")
def no_l2(variants: Path) -> Analysis:
    path = without_kernel(data("micro_full.raw.csv"), variants / "no_l2.raw.csv", "l2_reread")
    return analyze(ncu_roofline.read(path))


def test_roof_vs_full_matches_every_launch_by_name_and_nvtx(roof: Analysis, full: Analysis) -> None:
    d = compare(roof, full)
    assert d.match_counts() == {"name+nvtx": 16}
    assert (d.pairs["status"] == MATCHED).all()
    assert d.unmatched.empty
    # launch order pairs the four tiny_launch launches one to one
    tiny = d.pairs[d.pairs["display_name"] == "tiny_launch"]
    assert tiny["before_launch_id"].tolist() == [12, 13, 14, 15]
    assert tiny["after_launch_id"].tolist() == [12, 13, 14, 15]
    assert list(d.pairs.columns) == list(PAIR_COLUMNS)
    assert list(d.kernels.columns) == list(KERNEL_COLUMNS)
    assert list(d.hints.columns) == list(HINT_DIFF_COLUMNS)


def test_roof_vs_full_times_are_ncus(roof: Analysis, full: Analysis) -> None:
    d = compare(roof, full)
    b, a = durations(roof), durations(full)
    assert d.total.before_ns == pytest.approx(sum(b.values()))
    assert d.total.after_ns == pytest.approx(sum(a.values()))
    assert d.total.change == pytest.approx(sum(a.values()) / sum(b.values()) - 1)
    assert d.total.speedup == pytest.approx(sum(b.values()) / sum(a.values()))
    strided = d.kernels.set_index("display_name").loc["strided_read"]
    assert strided["before_ns"] == pytest.approx(b[1])
    assert strided["after_ns"] == pytest.approx(a[1])
    assert strided["speedup"] == pytest.approx(b[1] / a[1])
    tiny = d.kernels.set_index("display_name").loc["tiny_launch"]
    assert tiny["before_launches"] == tiny["after_launches"] == tiny["matched_launches"] == 4
    assert tiny["before_ns"] == pytest.approx(sum(b[i] for i in (12, 13, 14, 15)))
    # sorted by the size of the change: wmma_bf16 moved the most (ncu's own numbers say so)
    moved = {k: abs(a[k] - b[k]) for k in b}
    assert d.kernels["display_name"].iloc[0] == d.pairs.loc[max(moved, key=moved.__getitem__), "display_name"]


def test_roof_vs_full_limiters_and_the_point_on_the_roofline(roof: Analysis, full: Analysis) -> None:
    d = compare(roof, full)
    k = d.kernels.set_index("display_name")
    # same program, same kernels: no limiter or regime moved
    assert (k["before_limiter"] == k["after_limiter"]).all()
    assert (k["before_regime"] == k["after_regime"]).all()
    # each micro kernel sits on the roofline of the precision it was built to exercise
    assert k.loc["fp32_fma", "precision"] == "fp32"
    assert k.loc["fp64_fma", "precision"] == "fp64"
    assert k.loc["half_hfma2", "precision"] == "fp16"
    assert k.loc["wmma_bf16", "precision"] == "tensor"
    assert math.isnan(k.loc["atomic_hot", "before_flops"])  # integer atomics: no FLOPs, no point
    r = full.roofline
    row = r[(r["launch_id"] == 5) & (r["precision"] == "fp32") & (r["level"] == "dram")].iloc[0]
    assert k.loc["fp32_fma", "after_flops"] == pytest.approx(row["achieved_flops"])
    assert k.loc["fp32_fma", "after_intensity"] == pytest.approx(row["intensity"])
    assert k.loc["fp32_fma", "peak_flops"] > k.loc["fp32_fma", "before_flops"] > 0


def test_roof_vs_full_hints_that_need_metrics_roof_lacks_are_not_comparable(roof: Analysis, full: Analysis) -> None:
    d = compare(roof, full)
    # The same program twice: a hint can only "appear" because micro_full collected what micro_roof did not.
    assert (d.hints["status"] == "appeared").all()
    assert not d.hints["comparable"].any()
    pairs = set(zip(d.hints["display_name"], d.hints["hint"], strict=True))
    # built with 32-way shared-memory bank conflicts; the bank-conflict counters are only in micro_full
    assert ("smem_bank_conflict", "shared_bank_conflicts") in pairs
    assert "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum" not in roof.report.values.columns
    # every such hint is absent from BEFORE's own analysis and present in AFTER's
    for name, hint in pairs:
        in_full = full.hints.merge(full.launches[["launch_id", "display_name"]], on="launch_id")
        in_roof = roof.hints.merge(roof.launches[["launch_id", "display_name"]], on="launch_id")
        assert ((in_full["display_name"] == name) & (in_full["hint"] == hint)).any()
        assert not ((in_roof["display_name"] == name) & (in_roof["hint"] == hint)).any()
    assert len(d.caveats) == 1
    assert "different metrics" in d.caveats[0]
    before, after = (set(a.report.values.dropna(axis=1, how="all").columns) for a in (roof, full))
    assert f"0 only in BEFORE, {len(after - before)} only in AFTER" in d.caveats[0]


def test_a_report_against_itself_changes_nothing(full: Analysis) -> None:
    d = compare(full, full)
    assert d.total.change == 0
    assert d.total.matched == 16
    assert d.caveats == []
    assert d.hints.empty
    assert (d.kernels["delta_ns"] == 0).all()


def test_time_not_measured_is_no_time_never_zero(full: Analysis, variants: Path) -> None:
    # the A100 export has no duration metric: its GPU time is unknown on both sides, not 0 ns -> 0 ns
    a100 = sample("wild/public/a100_opinsight_pooling.csv.gz")
    d = compare(a100, a100)
    assert d.total.matched == 240
    for figure in (d.total.before_ns, d.total.after_ns, d.total.delta_ns, d.total.change, d.total.matched_before_ns):
        assert math.isnan(figure)
    assert d.kernels["before_ns"].isna().all() and d.kernels["after_ns"].isna().all()
    assert any(c.startswith("launches without a duration (240 in BEFORE, 240 in AFTER;") for c in d.caveats)
    # one kernel's time not collected AFTER: its after time is unknown, the others' are ncu's durations
    path = untimed(data("micro_full.raw.csv"), variants / "untimed.raw.csv", "stream_triad")
    d = compare(full, analyze(ncu_roofline.read(path)))
    k = d.kernels.set_index("display_name")
    assert math.isnan(k.loc["stream_triad", "after_ns"])
    assert k.loc["stream_triad", "before_ns"] == pytest.approx(
        sum(t for i, t in durations(full).items() if i in _ids(full, "stream_triad"))
    )
    assert any(c.startswith("launches without a duration (0 in BEFORE, 1 in AFTER;") for c in d.caveats)
    assert d.total.after_ns == pytest.approx(
        sum(t for i, t in durations(full).items() if i not in _ids(full, "stream_triad"))
    )


def test_groups_of_many_launches_are_matched_by_their_counts() -> None:
    """A row of a billion invocations is matched as a billion launches without standing for each: against itself
    every group pairs whole, against the raw page each launch takes one and the rest is AFTER's alone."""
    summary = analyze(ncu_roofline.read(data("micro_full.summary-per-kernel.csv.gz")))
    launches = summary.launches.copy()
    launches["invocations"] = 10**9
    big = replace(summary, launches=launches)
    d = compare(big, big)
    assert (d.total.matched, len(d.pairs), d.unmatched.empty) == (13 * 10**9, 13, True)
    d = compare(sample("micro_full.raw.csv"), big)
    assert (d.total.matched, d.total.before_only, d.total.after_only) == (16, 0, 13 * 10**9 - 16)
    assert len(d.unmatched) == 13 and d.unmatched["invocations"].sum() == 13 * 10**9 - 16


def test_rows_of_many_launches_pair_as_their_launches_would_one_by_one() -> None:
    """``_pair_in_order`` (rows as intervals on a line per key) against its definition: every row copied once per
    launch, the n-th copy of a key BEFORE paired with the n-th AFTER, the copies of one pair of rows counted."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        nb, na = rng.integers(0, 12, size=2)
        b = pd.DataFrame({"k": rng.integers(0, 3, nb).astype(str)})
        a = pd.DataFrame({"k": rng.integers(0, 3, na).astype(str)})
        wb, wa = rng.integers(0, 5, nb), rng.integers(0, 5, na)  # 0: a row already matched whole
        rows_b, rows_a = np.flatnonzero(wb > 0), np.flatnonzero(wa > 0)
        pb, pa_, n = _pair_in_order(b, a, rows_b, rows_a, wb, wa, ["k"])
        got = sorted(zip(pb.tolist(), pa_.tolist(), n.tolist(), strict=True))
        copies_b = [(k, i) for i in rows_b.tolist() for k in [b["k"][i]] * int(wb[i])]
        copies_a = [(k, j) for j in rows_a.tolist() for k in [a["k"][j]] * int(wa[j])]
        want: dict[tuple[int, int], int] = {}
        for key in {k for k, _ in copies_b}:
            mine = [i for k, i in copies_b if k == key]
            theirs = [j for k, j in copies_a if k == key]
            for i, j in zip(mine, theirs, strict=False):
                want[(i, j)] = want.get((i, j), 0) + 1
        assert got == sorted((i, j, c) for (i, j), c in want.items())


def test_two_summary_pages_have_no_caveat_on_pairing_launches_with_groups() -> None:
    """llm_full's summary page (every group one launch) against micro_full's (tiny_launch's group of 4): both are
    summary pages, so no side is "the other side launches"."""
    llm, micro = (
        analyze(ncu_roofline.read(data(f"{n}.summary-per-kernel.csv.gz"))) for n in ("llm_full", "micro_full")
    )
    d = compare(llm, micro)
    assert not any("is a summary page" in c for c in d.caveats)
    text = render_diff_text(d, top=2)  # the rows left out counted in launches, as the list's head counts them
    assert "could not match 32 launches:" in text and "  ... and 30 more launches (" in text
    one = compare(sample("micro_full.raw.csv"), micro).caveats
    assert any(c.startswith("AFTER is a summary page (13 groups of 16 launches)") for c in one)


def test_a_summary_group_without_a_duration_counts_its_launches(full: Analysis, variants: Path) -> None:
    """The caveat counts launches without a duration, as the totals and ``--fail-if-slower`` do: a summary page's
    group without one is its 4 launches (it said 1, the row)."""
    text = gzip.decompress(data("micro_full.summary-per-kernel.csv.gz").read_bytes()).decode()
    timing = [f'","{label}","' for label in ("Duration", "Elapsed Cycles", "SM Frequency", "DRAM Frequency")]
    cut = [x for x in text.splitlines(keepends=True) if '"tiny_launch(' not in x or not any(t in x for t in timing)]
    path = variants / "micro_full.untimed-tiny.summary-per-kernel.csv"
    path.write_text("".join(cut))
    after = analyze(ncu_roofline.read(path))
    tiny = after.launches[after.launches["display_name"] == "tiny_launch"]
    assert tiny["duration_ns"].isna().all() and int(tiny["invocations"].iloc[0]) == 4
    d = compare(full, after)
    assert any(c.startswith("launches without a duration (0 in BEFORE, 4 in AFTER;") for c in d.caveats)


def _ids(analysis: Analysis, display_name: str) -> set[int]:
    lv = analysis.launches
    return set(lv.loc[lv["display_name"] == display_name, "launch_id"].astype(int))


def test_kernel_removed(full: Analysis, no_l2: Analysis) -> None:
    d = compare(full, no_l2)
    ncu = durations(full)
    assert d.total.matched == 15
    assert (d.total.before_only, d.total.after_only) == (1, 0)
    gone = d.unmatched.iloc[0]
    assert gone["status"] == BEFORE_ONLY
    assert gone["display_name"] == "l2_reread"
    assert gone["before_launch_id"] == 2
    assert gone["nvtx_path"] == "memory"
    k = d.kernels.iloc[0]  # the biggest change
    assert k["display_name"] == "l2_reread"
    assert k["status"] == BEFORE_ONLY
    assert k["delta_ns"] == pytest.approx(-ncu[2])
    assert math.isnan(k["after_ns"])
    assert d.total.after_ns == pytest.approx(sum(ncu.values()) - ncu[2])
    assert d.total.matched_change == 0  # every kernel that is in both ran as long
    # the program's change is the kernel gone; the headline gives the launches paired beside it
    removed = (sum(ncu.values()) - ncu[2]) / sum(ncu.values()) - 1.0
    assert d.total.change == pytest.approx(removed)
    assert headline(d).endswith(f"{removed * 100:+.1f}%, speedup {1 / (1 + removed):.2f}x; 15 launches matched: "
                                "+0.0%, speedup 1.00x), 16 -> 15 launches")  # fmt: skip
    assert "matched" not in headline(compare(full, full))
    # the other way round, the kernel is new
    back = compare(no_l2, full)
    assert back.unmatched["status"].tolist() == [AFTER_ONLY]
    assert back.kernels.iloc[0]["status"] == AFTER_ONLY


def test_one_of_repeated_launches_removed_is_matched_in_launch_order(full: Analysis, variants: Path) -> None:
    source = data("micro_full.raw.csv")
    rows = source.read_text().splitlines(keepends=True)
    first_tiny = next(i for i, line in enumerate(rows) if '"tiny_launch(' in line)
    path = variants / "one_tiny_less.raw.csv"
    path.write_text("".join(rows[:first_tiny] + rows[first_tiny + 1 :]))
    d = compare(full, analyze(ncu_roofline.read(path)))
    tiny = d.kernels.set_index("display_name").loc["tiny_launch"]
    assert (tiny["before_launches"], tiny["after_launches"], tiny["matched_launches"]) == (4, 3, 3)
    assert tiny["status"] == "partly matched"
    # the n-th launch pairs with the n-th: the last BEFORE launch is the one left over
    assert d.unmatched["before_launch_id"].tolist() == [15]


def test_a_launch_removed_from_a_kernel_of_several_shapes_is_the_one_left_over(variants: Path) -> None:
    """l2_reread renamed stream_triad: one kernel, two launches in the same NVTX range, grids of 1056 and 528. Its
    first launch removed AFTER, the launch of the same grid and block pairs with its own (in launch order alone,
    launch 0 paired with launch 2 and launch 2 was left over)."""
    l2 = "l2_reread(const float *, unsigned long, int, float *)"
    triad = "stream_triad(float4 *, const float4 *, const float4 *, float, unsigned long)"
    before = renamed(data("micro_full.raw.csv"), variants / "two_triads.raw.csv", l2, triad)
    after = without_launch(before, variants / "two_triads_less.raw.csv", 0)
    b, a = analyze(ncu_roofline.read(before)), analyze(ncu_roofline.read(after))
    d = compare(b, a)
    assert d.unmatched["before_launch_id"].tolist() == [0]
    pair = d.pairs[(d.pairs["status"] == MATCHED) & (d.pairs["before_launch_id"] == 2)].iloc[0]
    assert pair["after_launch_id"] == 2 and pair["speedup"] == 1.0 and pair["matched_by"] == "name+nvtx"
    assert d.match_counts() == {"name+nvtx": 15}


def test_a_launch_whose_block_changed_pairs_with_its_own(full: Analysis, variants: Path) -> None:
    """tiny_launch's first launch retuned to 64 threads a block, its 4 launches AFTER as many as BEFORE: each pairs
    with its own in launch order (launches of the same shape paired first, 13 with 12, 14 with 13, ..., shifted
    every pair by one and paired 15 with the retuned 12)."""
    after = analyze(ncu_roofline.read(reshaped(data("micro_full.raw.csv"), variants / "tiny64.raw.csv", 12, 64)))
    assert after.launches.loc[12, "block_x"] == 64
    d = compare(full, after)
    tiny = d.pairs[d.pairs["display_name"] == "tiny_launch"]
    assert tiny["before_launch_id"].tolist() == tiny["after_launch_id"].tolist() == [12, 13, 14, 15]
    assert d.unmatched.empty


def test_renamed_kernel_is_matched_by_its_short_name(full: Analysis, variants: Path) -> None:
    path = renamed(
        data("micro_full.raw.csv"), variants / "renamed.raw.csv", "stream_triad(float4 *", "stream_triad(double4 *"
    )
    after = analyze(ncu_roofline.read(path))
    d = compare(full, after)
    assert d.match_counts() == {"name+nvtx": 15, "short-name": 1}
    pair = d.pairs[d.pairs["matched_by"] == "short-name"].iloc[0]
    assert pair["display_name"] == "stream_triad"
    assert d.unmatched.empty


def test_a_kernel_paired_by_its_short_name_with_a_launch_more_is_one_kernel(variants: Path) -> None:
    """tiny_launch retyped AFTER (``tiny_launch(double *)``: the name pass cannot pair it, the short-name pass
    does) and its first launch removed BEFORE: 3 launches against 4. The launch left over is tiny_launch's, on
    the kernel row of the launches paired, not a new kernel of its own."""
    plain = data("micro_full.raw.csv")
    before = analyze(ncu_roofline.read(without_launch(plain, variants / "tiny3.raw.csv", 12)))
    after = analyze(
        ncu_roofline.read(renamed(plain, variants / "tiny_double.raw.csv", "tiny_launch(float", "tiny_launch(double"))
    )
    d = compare(before, after)
    assert d.match_counts() == {"name+nvtx": 12, "short-name": 3}
    # in launch order, as every pass pairs: the AFTER launch left over is the last
    assert d.unmatched["after_launch_id"].tolist() == [15] and d.unmatched["status"].tolist() == [AFTER_ONLY]
    tiny = d.kernels[d.kernels["display_name"] == "tiny_launch"]
    assert len(tiny) == 1 and len(d.kernels) == 13  # tiny_launch and the 12 others
    row = tiny.iloc[0]
    assert (row["status"], row["before_launches"], row["after_launches"], row["matched_launches"]) == (
        "partly matched",
        3,
        4,
        3,
    )
    ns = durations(before), durations(after)
    assert row["before_ns"] == pytest.approx(sum(ns[0][i] for i in (13, 14, 15)))
    assert row["after_ns"] == pytest.approx(sum(ns[1][i] for i in (12, 13, 14, 15)))


def test_the_function_name_pairs_only_a_side_printed_by_function_name(variants: Path) -> None:
    """stream_triad as two instantiations of one template (``ns::stream_triad<Gelu>`` BEFORE,
    ``ns::stream_triad<Relu>`` AFTER): different kernels, whose function's name alone is the same. Neither side
    prints function names alone, so they stay unpaired (``--print-kernel-base function`` pages: below)."""
    plain = data("micro_full.raw.csv")
    triad = "stream_triad(float4 *"
    gelu = renamed(plain, variants / "gelu.raw.csv", triad, "void ns::stream_triad<ns::Gelu>(float4 *")
    relu = renamed(plain, variants / "relu.raw.csv", triad, "void ns::stream_triad<ns::Relu>(float4 *")
    d = compare(analyze(ncu_roofline.read(gelu)), analyze(ncu_roofline.read(relu)))
    assert d.match_counts() == {"name+nvtx": 15}
    assert sorted(d.unmatched["display_name"]) == ["stream_triad<Gelu>", "stream_triad<Relu>"]


def test_display_names_alike_in_their_first_60_characters_are_two_kernels(variants: Path) -> None:
    """cuBLAS names its kernels by their tiles and options, ``sm90_xmma_gemm_..._tilesize128x256x64_
    warpgroupsize2x1x1_...``: a display name is cut at 60 characters, but two such kernels are two, not one
    matched by the short-name pass."""
    plain = data("micro_full.raw.csv")
    head = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize"
    one = renamed(plain, variants / "wg1.raw.csv", "stream_triad(float4 *", f"{head}1x1x1_kernel(float4 *")
    two = renamed(plain, variants / "wg2.raw.csv", "stream_triad(float4 *", f"{head}2x1x1_kernel(float4 *")
    b, a = analyze(ncu_roofline.read(one)), analyze(ncu_roofline.read(two))
    assert b.launches.loc[0, "display_name"] == a.launches.loc[0, "display_name"]  # cut alike
    d = compare(b, a)
    assert d.match_counts() == {"name+nvtx": 15}
    assert len(d.unmatched) == 2


@pytest.mark.parametrize(
    ("report", "passes"),
    [
        ("ncu-2022.3/gene_dzv", {"function": 4}),
        ("ncu-2024.2/gene_dzv", {"function": 4}),
        ("ncu-2024.2/micro_roof", {"short-name": 16}),  # no templates: the short names are the function names
    ],
)
@pytest.mark.parametrize("page", ["details", "raw"])
def test_a_page_printed_by_function_name_pairs_with_the_default_printing(
    report: str, passes: dict[str, int], page: str
) -> None:
    """``--print-kernel-base function`` (real re-exports by ncu 2022.3 and 2024.2) prints ``kernel_assign_6``
    where the default page prints ``void gt::detail::kernel_assign_6<gt::gtensor_view<...>, ...>(...)``: every
    launch pairs with its own, both ways."""
    function = analyze(ncu_roofline.read(DATA_REEXPORT / f"{report}.details-function.csv.gz"))
    other = analyze(ncu_roofline.read(DATA_REEXPORT / f"{report}.{page}.csv.gz"))
    for d in (compare(other, function), compare(function, other)):
        assert d.match_counts() == passes
        assert d.unmatched.empty
        assert (d.pairs["before_launch_id"] == d.pairs["after_launch_id"]).all()
        assert len(d.kernels) == other.launches["kernel_name"].nunique()


def test_pytorch_nvtx_counters_that_differ_between_runs(variants: Path) -> None:
    plain = variants / "train_step.raw.csv"
    plain.write_bytes(gzip.decompress(data("train_step.raw.csv.gz").read_bytes()))
    before = analyze(ncu_roofline.read(plain))
    after = analyze(ncu_roofline.read(renumbered_nvtx(plain, variants / "train_step2.raw.csv", 1000)))
    assert not set(before.launches["nvtx_path"].dropna()) & set(after.launches["nvtx_path"].dropna())
    d = compare(before, after)
    assert d.match_counts() == {"name+nvtx-shape": 382}
    assert d.total.change == 0


def test_nvtx_on_one_side_only_falls_back_to_name_and_order(full: Analysis, variants: Path) -> None:
    after = analyze(ncu_roofline.read(without_nvtx(data("micro_full.raw.csv"), variants / "no_nvtx.raw.csv")))
    assert after.launches["nvtx_path"].isna().all()
    d = compare(full, after)
    assert d.match_counts() == {"name": 16}
    assert d.unmatched.empty


def test_different_programs_match_nothing_and_say_so(full: Analysis) -> None:
    llm = sample("llm_full.raw.csv.gz")
    d = compare(full, llm)
    assert d.total.matched == 0
    assert (d.total.before_only, d.total.after_only) == (16, 16)
    assert set(d.kernels["status"]) == {BEFORE_ONLY, AFTER_ONLY}
    assert np.isnan(d.kernels["change"]).all()


def test_a_summary_page_against_a_raw_page_counts_launches_and_says_how_it_pairs() -> None:
    """train_step's raw page (382 launches) against its per-kernel summary page (68 groups of the same 382): the
    totals and each kernel count launches on both sides (they said "382 -> 68", a kernel "19 -> 1"), the GPU time is
    the same, and a caveat says that rows of groups are paired with rows of launches."""
    raw, summary = sample("train_step.raw.csv"), analyze(ncu_roofline.read(data("train_step.summary-per-kernel.csv")))
    d = compare(raw, summary)
    assert d.total.before_launches == d.total.after_launches == 382
    assert d.total.after_ns == pytest.approx(d.total.before_ns, rel=1e-4)
    k = d.kernels
    assert (k["before_launches"] == k["after_launches"]).all() and k["after_launches"].sum() == 382
    assert any("AFTER is a summary page (68 groups of 382 launches)" in c for c in d.caveats)
    assert not any("summary page (" in c for c in compare(raw, raw).caveats)


def test_a_summary_page_pairs_each_launch_of_the_other_side_with_one_of_a_group() -> None:
    """train_step's raw page against its summary page, both of the same 382 launches: each launch pairs with one
    launch of its kernel's group (they paired 68 rows with 68 launches and left 314 "only in AFTER"), compared with
    the group's mean, which ncu made of the same launches: per kernel, the pairs' times add up on both sides."""
    raw, summary = sample("train_step.raw.csv"), analyze(ncu_roofline.read(data("train_step.summary-per-kernel.csv")))
    for d, launches_side in ((compare(raw, summary), "before"), (compare(summary, raw), "after")):
        assert (d.total.matched, d.total.before_only, d.total.after_only) == (382, 0, 0)
        assert d.unmatched.empty and len(d.pairs) == 382 and (d.pairs["invocations"] == 1).all()
        assert sum(d.match_counts().values()) == 382
        assert (d.kernels["status"] == MATCHED).all()
        assert (d.kernels["matched_launches"] == d.kernels["before_launches"]).all()
        # each launch once; a group's row in as many pairs as its invocations
        group_side = "after" if launches_side == "before" else "before"
        assert not d.pairs[f"{launches_side}_launch_id"].duplicated().any()
        per_group = d.pairs.groupby(f"{group_side}_launch_id").size()
        assert per_group.sum() == 382 and len(per_group) == 68
        sums = d.pairs.groupby("kernel")[["before_duration_ns", "after_duration_ns"]].sum()
        assert np.allclose(sums["before_duration_ns"], sums["after_duration_ns"], rtol=5e-3)
        assert d.total.matched_change == pytest.approx(d.total.change, abs=1e-12)


def test_a_summary_page_against_itself_pairs_its_groups_whole() -> None:
    summary = analyze(ncu_roofline.read(data("train_step.summary-per-kernel.csv")))
    d = compare(summary, summary)
    assert (d.total.matched, d.total.before_only, d.total.after_only) == (382, 0, 0)
    assert len(d.pairs) == 68 and d.pairs["invocations"].sum() == 382
    assert (d.pairs["before_launch_id"] == d.pairs["after_launch_id"]).all()
    assert (d.pairs["speedup"].dropna() == 1.0).all() and d.total.matched_change == 0


def test_launches_fewer_than_a_summary_group_leave_the_rest_of_it_unmatched(variants: Path) -> None:
    """micro_full's raw page without two of tiny_launch's 4 launches against the summary page's group of 4: 2
    launches pair with 2 of the group's, the other 2 are AFTER's alone (one row: the group's mean duration x 2)."""
    rows = data("micro_full.raw.csv").read_text().splitlines(keepends=True)
    tiny = [i for i, line in enumerate(rows) if '"tiny_launch(' in line]
    assert len(tiny) == 4
    path = variants / "two_tiny_less.raw.csv"
    path.write_text("".join(r for i, r in enumerate(rows) if i not in tiny[:2]))
    summary = analyze(ncu_roofline.read(data("micro_full.summary-per-kernel.csv.gz")))
    d = compare(analyze(ncu_roofline.read(path)), summary)
    assert (d.total.matched, d.total.before_only, d.total.after_only) == (14, 0, 2)
    left = d.unmatched
    assert len(left) == 1 and left["invocations"].tolist() == [2] and left["display_name"].tolist() == ["tiny_launch"]
    group = summary.launches[summary.launches["display_name"] == "tiny_launch"]
    assert int(group["invocations"].iloc[0]) == 4
    assert left["after_duration_ns"].iloc[0] == pytest.approx(2 * float(group["duration_ns"].iloc[0]))
    k = d.kernels.set_index("display_name").loc["tiny_launch"]
    assert (k["before_launches"], k["after_launches"], k["matched_launches"], k["status"]) == (
        2,
        4,
        2,
        "partly matched",
    )
    text = render_diff_text(d)
    assert "could not match 2 launches:" in text and "2 launches of its group)" in text


def test_a_launch_that_measured_no_flop_is_not_one_that_did_none() -> None:
    # BEFORE: micro_roof's details page (no FP counts) and its raw page (ncu's FLOP counts), the same 16 launches
    # pooled by kernel name; AFTER: the raw page. The raw page's launches did the FLOPs: each kernel's point is
    # theirs on both sides (the details page's launches were counted as 0 FLOP: wmma_bf16 222T -> 444T FLOP/s)
    raw, details = (ncu_roofline.read(data(f"micro_roof.{page}.csv")) for page in ("raw", "details"))
    before = analyze(ncu_roofline.io.merge([details, raw]))
    d = compare(before, analyze(raw))
    k = d.kernels[d.kernels["before_flops"].notna()]
    assert len(k) >= 8
    np.testing.assert_allclose(k["before_flops"], k["after_flops"], rtol=1e-12)
    np.testing.assert_allclose(k["before_intensity"], k["after_intensity"], rtol=1e-12)
    # (the bytes: the details page's launches measured DRAM too, printed to 3 digits)
    np.testing.assert_allclose(k["before_bytes_per_s"], k["after_bytes_per_s"], rtol=0.05)


def test_nothing_matched_is_said_first() -> None:
    # gene_dzv (V100, ncu 2020.1's report re-exported by 2024.2: 4 launches of one kernel) against micro_roof (H200,
    # 16 launches of other kernels): the totals are real sums (a rewrite may rename every kernel) but nothing is
    # paired, and that is the first caveat and the matching line's end
    gene = analyze(ncu_roofline.read(DATA_REEXPORT / "ncu-2024.2/gene_dzv.raw.csv.gz"))
    roof = analyze(ncu_roofline.read(data("micro_roof.raw.csv")))
    d = compare(gene, roof)
    assert d.total.matched == 0 and d.total.before_launches == 4 and d.total.after_launches == 16
    assert d.caveats[0].startswith("no launch matched (no kernel name in common)")
    said = "no kernel in common: the totals above compare different kernels (see the caveats)"
    assert matching_line(d).endswith(said)
    assert not any(c.startswith("no launch matched") for c in compare(roof, roof).caveats)


def _innermost_ranges(path: Path) -> dict[int, str]:
    """Each launch's innermost NVTX push/pop range, read off the CSV itself (golden: the file, not the reader):
    the range name of the last quoted item of its push/pop cell (``<default domain>:memory:none:...``)."""
    with gzip.open(path, "rt", newline="") as fh:
        rows = csv.reader(fh)
        header = next(rows)
        i, col = header.index("ID"), next(j for j, c in enumerate(header) if "Push/Pop_Range" in c)
        return {int(r[i]): r[col].split('"')[-2].split(":")[1] for r in rows if len(r) > col and r[i].isdigit()}


@pytest.mark.parametrize(
    ("plain_path", "renamed_path", "passes"),
    [
        (
            "reexport/ncu-2024.2/micro_roof.details",
            "reexport/ncu-2024.2/micro_roof.details-nvtx-rename",
            {"name+nvtx": 16},
        ),
        ("reexport/ncu-2022.3/gene_dzv.details", "reexport/ncu-2022.3/gene_dzv.details-nvtx-rename", {"name+nvtx": 4}),
        # ncu 2024.2 prints the plain page's long template names shortened, the renamed page's in full
        ("reexport/ncu-2024.2/gene_dzv.details", "reexport/ncu-2024.2/gene_dzv.details-nvtx-rename", {"short-name": 4}),
        # ncu 2025.3 too, on 8 of the 16 (``at::vectorized_elementwise_kernel<8, ...>`` against
        # ``at::native::vectorized_elementwise_kernel<(int)8, ...>``): one display name from either printing
        ("llm_full.details", "llm_full.details-nvtx", {"name+nvtx": 8, "short-name": 8}),
    ],
)
def test_kernels_renamed_by_their_nvtx_range_read_as_the_plain_export(
    plain_path: str, renamed_path: str, passes: dict[str, int]
) -> None:
    """``--print-nvtx-rename kernel`` prints each kernel as its innermost NVTX push/pop range, "/" and its
    name (real exports of one report by ncu 2022.3, 2024.2 and 2025.3). Each launch's display name is that range,
    "/" and the plain export's display name of the same launch, whatever the kernel's own name looks like
    (``memory/stream_triad`` kept its range and ``dzv_ak/void gt::detail::kernel_assign_6<...>`` lost it, as if
    a return type), and however ncu printed the name on each page; ``diff`` pairs every launch with the plain
    export's as it pairs two plain exports of that report."""
    renamed_file, plain_file = DATA / f"{renamed_path}.csv.gz", DATA / f"{plain_path}.csv.gz"
    ranges = _innermost_ranges(renamed_file)
    plain, renamed_ = analyze(ncu_roofline.read(plain_file)), analyze(ncu_roofline.read(renamed_file))
    p = plain.launches.set_index("launch_id")
    r = renamed_.launches.set_index("launch_id")
    assert sorted(r.index) == sorted(ranges) == sorted(p.index)
    for lid, inner in ranges.items():
        assert str(r.at[lid, "kernel_name"]).startswith(inner + "/")  # ncu's rename, as the file has it
        assert r.at[lid, "display_name"] == f"{inner}/{p.at[lid, 'display_name']}"
    d = compare(plain, renamed_)
    assert d.match_counts() == passes
    assert d.unmatched.empty
    assert (d.pairs["before_launch_id"] == d.pairs["after_launch_id"]).all()


def test_a_slash_in_a_name_is_no_rename_unless_the_launchs_range_is_before_it() -> None:
    from ncu_roofline.io.identity import nvtx_renamed, renamed_display_name

    assert nvtx_renamed("fwd/attn/softmax_kernel(float *)", "step/fwd/attn") == ("fwd/attn", "softmax_kernel(float *)")
    assert nvtx_renamed("attn/softmax_kernel(float *)", "step/fwd/attn") == ("attn", "softmax_kernel(float *)")
    assert nvtx_renamed("operator/(float2, float2)", "step") is None
    assert nvtx_renamed("attn/softmax_kernel(float *)", None) is None
    assert nvtx_renamed("attn/", "attn") is None
    assert renamed_display_name("void ns::k<Op>(int)", "attn") == "k<Op>"
    # a number, cast as older ncu versions print it, names no type: as the number alone (ncu 2025.3's printing)
    assert renamed_display_name(
        "r/void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float>>(T3)", "r"
    ) == ("r/reduce_kernel<ReduceOp>")
    long_range = "aten::scaled_dot_product_attention, seq = 12"
    assert renamed_display_name(f"{long_range}/void k(int)", f"x/{long_range}") == "aten::scaled_dot_produc…/k"


def test_launches_timed_on_one_side_only_are_no_speedup() -> None:
    """BEFORE: micro_full's 16 launches and micro_roof's 16, all timed; AFTER: micro_full again and micro_roof's
    `--metrics`-picked details re-export (ncu 2024.2: no duration metric). The same runs on both sides: the
    whole program's change and speedup are not given (the times add up 32 and 16 launches), the launches timed
    on both sides do not move, and no kernel reads 2x faster for half its launches being untimed."""
    picked = data("reexport/ncu-2024.2/micro_roof.details-picked.csv.gz")
    assert b"gpu__time_duration" not in gzip.decompress(picked.read_bytes())
    before = analyze(ncu_roofline.read([data("micro_full.raw.csv"), data("micro_roof.raw.csv.gz")]))
    after = analyze(ncu_roofline.read([data("micro_full.raw.csv"), picked]))
    d = compare(before, after)
    assert d.total.untimed == 16 and math.isnan(d.total.change) and math.isnan(d.total.speedup)
    assert d.total.matched_change == pytest.approx(0.0, abs=1e-3)
    both = d.kernels[d.kernels["before_ns"].notna() & d.kernels["after_ns"].notna()]
    assert len(both) == 13 and (both["change"].abs() < 1e-3).all()
    assert "those timed on both sides: +0.0%, speedup 1.00x" in headline(d)


def test_launches_pair_with_the_summary_group_of_their_own_launch_shape() -> None:
    """train_step's raw page against its per-kernel summary page: every launch pairs with a group of its kernel,
    grid and block (a summary group is a kernel and launch shape; the raw page's rows give each launch's): 125 of
    the 382 were paired with a group of another grid, by launch order, which a summary page's rows do not keep."""
    raw = pd.read_csv(data("train_step.raw.csv.gz"), skiprows=[1], usecols=["ID", "Grid Size", "Block Size"])
    summary = pd.read_csv(data("train_step.summary-per-kernel.csv.gz"))
    before = analyze(ncu_roofline.read(data("train_step.raw.csv.gz")))
    after = analyze(ncu_roofline.read(data("train_step.summary-per-kernel.csv.gz")))
    d = compare(before, after)
    m = d.pairs[d.pairs["status"] == "matched"]
    assert (
        int(m["invocations"].sum())
        == len(raw)
        == 382
        == summary.drop_duplicates(["Kernel Name", "Block Size", "Grid Size", "Invocations"])["Invocations"].sum()
    )

    def threads(text: str) -> int:  # "(2, 66, 1)" -> 132
        return int(np.prod([int(x) for x in text.strip("()").split(",")]))

    shape_of = raw.set_index("ID")
    lv = after.launches.set_index("launch_id")
    for r in m.itertuples(index=False):
        launch, group = shape_of.loc[r.before_launch_id], lv.loc[r.after_launch_id]
        assert threads(launch["Grid Size"]) == group["grid_size"], (r.before_launch_id, r.after_launch_id)
        assert threads(launch["Block Size"]) == group["block_size"]
