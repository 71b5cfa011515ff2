"""The diff's renderings: text, Markdown, CSV, JSON (report/diffout.py) and the HTML page (report/diff_html.py)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import derive
import pytest
from _analyses import sample
from conftest import data
from edits import renamed, without_kernel

import ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.diff import KERNEL_COLUMNS, Diff, compare
from ncu_roofline.report import fmt
from ncu_roofline.report.diff_html import PLOT_ID, figure, render_diff_html, view
from ncu_roofline.report.diffout import render_diff_csv, render_diff_json, render_diff_markdown, render_diff_text

EVIL = "k<float></script><b>x"


@pytest.fixture(scope="module")
def removed(tmp_path_factory: pytest.TempPathFactory) -> Diff:
    """micro_full -> micro_full without l2_reread."""
    folder = tmp_path_factory.mktemp("diff_report")
    after = without_kernel(data("micro_full.raw.csv"), folder / "no_l2.raw.csv", "l2_reread")
    return compare(sample("micro_full.raw.csv"), analyze(ncu_roofline.read(after)))


@pytest.fixture(scope="module")
def roof_full() -> Diff:
    return compare(
        sample("micro_roof.raw.csv.gz"),
        sample("micro_full.raw.csv"),
    )


@pytest.fixture(scope="module")
def evil(tmp_path_factory: pytest.TempPathFactory) -> Diff:
    """Both sides with a kernel whose name would close a <script> element and open a tag."""
    folder = tmp_path_factory.mktemp("evil")
    source = data("micro_full.raw.csv")
    before = renamed(source, folder / "before.raw.csv", "stream_triad", EVIL)
    after = without_kernel(before, folder / "after.raw.csv", "l2_reread")
    return compare(analyze(ncu_roofline.read(before)), analyze(ncu_roofline.read(after)))


def test_a_side_that_did_not_measure_a_verdict_shows_a_dash(tmp_path: Path) -> None:
    """AFTER the same launches timed only (its duration alone): a matched kernel's limiter, regime and roofline
    read "compute -> –" (they read "compute", as if unchanged); a removed kernel's are shown alone."""
    raw = derive.raw_rows(data("micro_full.raw.csv"))
    timed = derive.picked(raw, ["gpu__time_duration.sum"], tmp_path / "timed.raw.csv")
    d = compare(sample("micro_full.raw.csv"), analyze(ncu_roofline.read(timed)))
    for text in (render_diff_text(d), render_diff_markdown(d)):
        row = next(line for line in text.splitlines() if "wmma_bf16" in line)
        assert "compute -> –" in row and "bound -> –" in row and "443T -> –" in row
    html = render_diff_html(d)
    assert "compute → –" in html


def test_text_lists_the_removed_kernel_and_the_total(removed: Diff) -> None:
    text = render_diff_text(removed)
    lines = text.splitlines()
    assert lines[0].startswith("micro_full.raw -> no_l2.raw: ")
    assert "could not match 1 BEFORE and 0 AFTER launches" in lines[1]
    row = next(line for line in lines if line.startswith("l2_reread"))
    assert "removed" in row
    assert "1 -> 0" in row
    assert any(line.startswith("whole program") and "16 -> 15" in line for line in lines)
    assert "only in BEFORE  l2_reread  (micro_full.raw launch 2, NVTX memory)" in text


def test_text_marks_hints_that_may_not_have_been_measurable(roof_full: Diff) -> None:
    text = render_diff_text(roof_full)
    assert "every launch matched" in text
    # smem_bank_conflict is built with 32-way conflicts; micro_roof does not collect bank-conflict counters
    assert re.search(r"smem_bank_conflict\s+\+ shared_bank_conflicts \(\w+\) \?", text)
    assert "caveat: the reports carry different metrics" in text


def test_text_top_limits_the_table(roof_full: Diff) -> None:
    text = render_diff_text(roof_full, top=3)
    assert "... and 10 more kernels" in text


def test_text_tells_kernels_of_one_family_apart() -> None:
    """llm_full's cuBLAS kernels nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT and ..._TNT differ past the table's
    36 characters: each keeps its end where cutting would make them alike, as do two elementwise kernels."""
    d = compare(sample("llm_full.details.csv.gz"), sample("llm_full.raw.csv.gz"))
    rows = [line[:36].rstrip() for line in render_diff_text(d, top=50).splitlines()[3:19]]
    assert "nvjet_sm90_tst_256…x2_h_bz_coopA_NNT" in rows and "nvjet_sm90_tst_256…x2_h_bz_coopA_TNT" in rows
    assert "vectorized_elementwise_kernel<AUnar…" in rows  # cut as before: no other reads alike
    assert len(set(rows)) == len(rows) == 16


def test_shorten_apart_and_unique_names() -> None:
    names = ["gemm_128x64_NN", "gemm_128x64_TN", "copy", "gemm_128x64_NN_long_enough"]
    # all three gemm names cut alike ("gemm_128x…"): each keeps 5 characters of its head and 4 of its tail
    assert fmt.shorten_apart(names, 10) == ["gemm_…4_NN", "gemm_…4_TN", "copy", "gemm_…ough"]
    assert fmt.shorten_apart(["abcdefghijkl"], 6) == ["abcde…"]
    assert fmt.unique_names(["gemm", "gemm", "copy"]) == ["gemm", "gemm (2)", "copy"]
    assert fmt.unique_names(["k", "k"], ["a", "b"]) == ["k [a]", "k [b]"]


def test_markdown_has_a_table_with_the_total(removed: Diff) -> None:
    md = render_diff_markdown(removed)
    assert "| kernel | launches | before | after |" in md
    assert "|---|---:|" in md
    assert re.search(r"^\| whole program \| 16 -> 15 \|", md, re.M)


def test_csv_is_one_row_per_kernel(removed: Diff) -> None:
    rows = list(csv.DictReader(io.StringIO(render_diff_csv(removed))))
    assert len(rows) == 13
    assert list(rows[0]) == list(KERNEL_COLUMNS)
    assert rows[0]["display_name"] == "l2_reread"
    assert rows[0]["status"] == "before only"


def test_json_keys_and_values(removed: Diff) -> None:
    doc = json.loads(render_diff_json(removed))
    assert set(doc) == {
        "schema",
        "tool",
        "before",
        "after",
        "total",
        "matched_by",
        "kernels",
        "hints",
        "pairs",
        "caveats",
    }
    assert doc["total"]["matched"] == 15
    assert doc["total"]["before_only"] == 1
    assert doc["total"]["after_ns"] == pytest.approx(removed.total.after_ns)
    assert doc["matched_by"] == {"name+nvtx": 15}
    assert doc["kernels"][0]["after_ns"] is None
    assert len(doc["pairs"]) == 16
    assert render_diff_json(removed) == render_diff_json(removed)  # deterministic


def test_html_is_self_contained_with_an_arrow_per_kernel_on_the_chart(roof_full: Diff) -> None:
    page = render_diff_html(roof_full)
    assert page.startswith("<!DOCTYPE html>")
    assert "<html" in page
    assert f'<div id="{PLOT_ID}"></div>' in page
    assert "Plotly.newPlot" in page
    assert "cdn" not in page.lower().split("<script>")[0]  # no external resources in the head
    assert not re.search(r"<script[^>]+src=", page)
    fig, off_chart = figure(roof_full)
    both = roof_full.kernels.dropna(subset=["before_flops", "after_flops", "before_intensity", "after_intensity"])
    assert len(fig["layout"]["annotations"]) == len(both) == 12
    assert off_chart == ["atomic_hot"]
    assert render_diff_html(roof_full) == page  # deterministic


def test_html_arrows_go_from_before_to_after(roof_full: Diff) -> None:
    import math

    fig, _ = figure(roof_full)
    k = roof_full.kernels.set_index("display_name").loc["wmma_bf16"]
    arrow = next(a for a in fig["layout"]["annotations"] if a["x"] == pytest.approx(math.log10(k["after_intensity"])))
    assert arrow["ax"] == pytest.approx(math.log10(k["before_intensity"]))
    assert arrow["y"] == pytest.approx(math.log10(k["after_flops"]))
    assert arrow["ay"] == pytest.approx(math.log10(k["before_flops"]))


def test_html_escapes_kernel_names(evil: Diff) -> None:
    page = render_diff_html(evil)
    assert EVIL in set(evil.kernels["kernel"].str.split("(").str[0])
    assert "</script><b>x" not in page
    assert page.count("</script>") == 2  # plotly.js and the figure
    assert "k&lt;float&gt;&lt;/script&gt;&lt;b&gt;x" in page
    model = view(evil)
    assert any(k.full_name.startswith(EVIL) for k in model.kernels)
    # in the chart: HTML-escaped for plotly's labels, then no <, > or & left in the script's JSON
    assert "\\u0026lt;/script\\u0026gt;\\u0026lt;b\\u0026gt;x" in model.figure_json
    assert not set("<>&") & set(model.figure_json)


def test_html_lists_unmatched_launches(removed: Diff, tmp_path: Path) -> None:
    page = render_diff_html(removed)
    assert "Launches that could not be matched" in page
    assert "only in BEFORE" in page


def test_one_sided_ncu_rules_are_not_changes_and_a_side_without_points_says_why(roof_full: Diff) -> None:
    """A raw page has no ncu rule results and a summary page no roofline point: against the details page of the
    same run, ncu's rules are not listed as appeared (a caveat says why), and the page says why the summary
    side has no arrows."""
    from _analyses import sample

    from ncu_roofline.report.diff_html import chart_note

    raw, details = sample("micro_full.raw.csv"), sample("micro_full.details.csv")
    assert len(raw.report.rules) == 0 and len(details.report.rules) > 0  # the premise, from the files
    d = compare(raw, details)
    assert not d.hints["hint"].str.startswith("ncu:").any()
    assert any("no ncu rule results" in c and c.startswith("BEFORE") for c in d.caveats)
    assert "+ ncu:" not in render_diff_text(d)
    summary = sample("micro_full.summary-per-kernel.csv.gz")
    s = compare(summary, raw)
    note = chart_note(s)
    assert note is not None and note.startswith("No arrows: BEFORE has no roofline point")
    assert note in render_diff_html(s).replace("&#39;", "'")
    assert chart_note(roof_full) is None  # both sides have points
