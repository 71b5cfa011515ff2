"""The terminal summary and the machine-readable exports (Markdown, CSV, Parquet)."""

from __future__ import annotations

import gzip
import io
import re

import pandas as pd
import pyarrow.parquet as pq
import pytest
from _analyses import HOSTILE, all_missing, hostile, no_launches, sample
from conftest import analysed, data

import ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.filters import filter_analysis
from ncu_roofline.report.exports import (
    md_code,
    md_text,
    parquet_files,
    render_csv,
    render_markdown,
)
from ncu_roofline.report.html import render_html
from ncu_roofline.report.terminal import render_terminal
from ncu_roofline.report.viewmodel import build_view, limiter_label

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_terminal_summary_of_the_training_step() -> None:
    a = sample("train_step.raw.csv")
    text = render_terminal(a)
    lines = text.splitlines()
    assert lines[0] == "ncu-roofline · train_step.raw.csv.gz"
    assert "382 launches of 48 kernels" in lines[1] and "8.00 ms" in lines[1]
    # one line per limiter with the share of the GPU time of the launches it binds, then latency- and
    # launch-bound time on their own lines (no roof holds those)
    v = a.verdicts.assign(d=a.launches["duration_ns"].to_numpy())
    key_of = v["limiter"].where(v["regime"] == "bound", v["regime"])
    shares = v.groupby(key_of)["d"].sum()
    shares = shares / shares.sum()
    rows = (("hbm", "HBM"), ("l2", "L2"), ("l1", "L1"), ("compute", "Compute"), ("latency", "Latency-bound"),
            ("launch", "Launch-bound"))  # fmt: skip
    for key, label in rows:
        (line,) = [x for x in lines if x.startswith(f"  {label} ")]
        assert f"{shares.get(key, 0.0) * 100:.1f}%" in line
    regimes = a.verdicts.assign(d=a.launches["duration_ns"].to_numpy()).groupby("regime")["d"].sum()
    regimes = regimes / regimes.sum()
    expected = " · ".join(f"{r} {regimes.get(r, 0.0) * 100:.1f}%" for r in ("bound", "latency", "launch"))
    assert f"GPU time by regime: {expected}" in text
    # the top 15 kernels, then how many more
    table = lines[lines.index("Top 15 kernels by GPU time") + 1 :]
    assert table[0].split()[:3] == ["#", "Kernel", "Launches"] and "% roof" in table[0]
    from ncu_roofline.summary import kernel_groups

    cell = table[1].split()[1]  # the name, cut with an ellipsis to fit the width
    assert kernel_groups(a)["display_name"].iloc[0].startswith(cell.rstrip("…")) and len(cell) > 20
    assert "… and 33 more kernels" in text
    assert "\x1b" not in text


def test_terminal_says_how_many_hints_it_leaves_out() -> None:
    """The terminal lists our five hints with the most recoverable time, then how many more there are (the page
    and Markdown list them all): micro_full's raw page has 9 (its README table of kernels and hints)."""
    a = sample("micro_full.raw.csv")
    ours = a.hints.loc[a.hints["source"] != "ncu", "hint"].nunique()
    assert ours == 9
    text = render_terminal(a, width=120)
    hints = text.split("\nHints\n", 1)[1].splitlines()
    assert sum(1 for line in hints[:5] if ": 1 kernel, up to " in line) == 5  # (a long one cut at the width)
    assert hints[5] == f"  … and {ours - 5} more hints (the HTML report lists them all)"


@pytest.mark.parametrize("width", [60, 80, 120, 160])
def test_terminal_fits_the_width(width: int) -> None:
    text = render_terminal(sample("llm_full.raw.csv"), width=width, top=5)
    assert max(len(x) for x in text.splitlines()) <= max(width, 60)
    assert "Top 5 kernels" in text


def test_terminal_colour_is_opt_in() -> None:
    a = sample("micro_full.raw.csv")
    coloured = render_terminal(a, color=True)
    assert "\x1b[" in coloured
    assert ANSI.sub("", coloured) == render_terminal(a)


def test_terminal_shows_our_first_hint() -> None:
    text = render_terminal(sample("micro_full.raw.csv"), width=100)
    assert "Register spilling" in text and "Uncoalesced global access" in text


def test_terminal_shows_the_start_of_ncus_message_after_its_rule() -> None:
    """A kernel whose first hint is ncu's rule: its name, then its message (the name alone says little). The text
    is ncu's own, from the llm_full details page's rule row for the nvjet GEMM."""
    lines = render_terminal(sample("llm_full.details.csv"), width=120).splitlines()  # hints under the rows
    at = next(i for i, line in enumerate(lines) if "  nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA" in line)
    assert "↳ ncu:CPIStall · On average, each warp of this workload spends 6.0 cycles being stalled" in lines[at + 1]


def test_hints_that_remove_work_say_what_they_recover_without_it() -> None:
    # smem_bank_conflict: 4.24 ms of the sample's 20.47 ms, at 100 % of its L1 roof (2.9 us recoverable at
    # today's work: under 0.1 %, not "0.0%"); without its 32-way replays it still takes its SM's 4.11 %:
    # 4.24 x 0.959 / 20.47 = 19.9 %.
    # Ranked by that, it leads our hints, in the terminal and in Markdown
    a = sample("micro_full.raw.csv")
    lines = render_terminal(a, width=140).splitlines()
    assert lines[lines.index("Hints") + 1] == (
        "  Shared bank conflicts: 1 kernel, up to 19.9% of GPU time recoverable with less work (<0.1% at today's "
        "work), 20.7% of GPU time touched"
    )
    assert (
        "**Shared bank conflicts** (high): 1 kernel, up to 19.9% of GPU time recoverable with less work (<0.1% at "
        "today's work)" in render_markdown(a)
    )
    # a hint that moves a launch toward its roof says one figure
    assert any(x.startswith("  Tail effect: 1 kernel, up to 5.0% of GPU time recoverable, 25.0%") for x in lines)


def test_terminal_with_missing_values_and_no_launches() -> None:
    base = sample("micro_full.raw.csv")
    assert "GPU time –" in render_terminal(all_missing(base))
    text = render_terminal(no_launches(base))
    assert "0 launches of 0 kernels" in text


def test_one_launch_of_one_kernel_is_said_in_the_singular() -> None:
    one = filter_analysis(sample("micro_full.raw.csv"), kernel=["stream_triad"])  # the sample launches it once
    assert len(one.launches) == 1
    assert " · 1 launch of 1 kernel · " in render_terminal(one).splitlines()[1]
    assert " · 1 launch of 1 kernel · " in render_markdown(one)
    assert "189 µs  1 launch\n" in render_terminal(one)  # the limiter's line: its launches


def test_markdown_summary() -> None:
    md = render_markdown(sample("llm_full.raw.csv"), top=5)
    assert md.startswith("### ncu-roofline: llm\\_full.raw.csv.gz\n")
    rows = [x for x in md.splitlines() if x.startswith("| ") and x[2].isdigit()]
    assert len(rows) == 5
    assert rows[0].startswith("| 1 | `sm80_xmma_gemm_f32f32")
    assert "| Limiter | GPU time | Share | Launches |" in md
    assert "**Uncoalesced global access** (high)" in md
    assert "… and 11 more kernels." in md


def test_markdown_escapes_input_strings() -> None:
    md = render_markdown(hostile(sample("micro_full.raw.csv")))
    # outside code spans (which GitHub shows verbatim) no markup survives
    outside = re.sub(r"(`+) .*? \1|`[^`]*`", "", md)
    assert "<script" not in outside and "<b " not in outside and HOSTILE not in md
    assert md_text("a|b<c>*_") == "a\\|b&lt;c&gt;\\*\\_"
    assert md_code("k<float>") == "`k<float>`"
    assert md_code("a|b") == "`a\\|b`"
    assert md_code("x`y") == "`` x`y ``"
    # every table row keeps its column count despite the | in the name
    for line in md.splitlines():
        if line.startswith("| ") and "k<float>" in line:
            assert len(re.findall(r"(?<!\\)\|", line)) == 10


def test_csv_has_one_row_per_launch_with_the_verdicts() -> None:
    a = sample("micro_full.details.csv")
    text = render_csv(a)
    df = pd.read_csv(io.StringIO(text))
    assert len(df) == len(a.launches) == 16
    assert list(df.columns[:3]) == ["report", "process_id", "launch_id"]
    for c in a.verdicts.columns:
        assert c in df.columns
    assert df["limiter"].tolist() == a.verdicts["limiter"].tolist()
    assert df["kernel_name"].iloc[0] == a.launches["kernel_name"].iloc[0]
    expected = a.hints[a.hints["launch_id"] == 0]["hint"].drop_duplicates().tolist()
    assert df["hints"].iloc[0].split(";") == expected
    assert render_csv(a) == text and "\r" not in text


def test_csv_of_a_summary_page_counts_each_rows_invocations() -> None:
    """A summary page's row is the mean of its invocations: the CSV says how many, so that its GPU time adds up
    to the page's (train_step: 382 launches in 68 rows, 8.00 ms; the rows' mean durations alone sum to 2.85 ms);
    a raw page's rows are one launch each, and name their GPU."""
    a = sample("train_step.summary-per-kernel.csv")
    df = pd.read_csv(io.StringIO(render_csv(a)))
    assert len(df) == 68 and df["invocations"].sum() == 382
    assert (df["duration_ns"] * df["invocations"]).sum() == pytest.approx(8.00e6, rel=5e-3)
    assert "device_name" in df.columns  # (a summary page names no GPU: empty)
    raw = pd.read_csv(io.StringIO(render_csv(sample("train_step.raw.csv"))))
    assert raw["invocations"].eq(1).all() and len(raw) == 382 and set(raw["device_name"]) == {"NVIDIA H200"}


def test_csv_with_missing_values() -> None:
    df = pd.read_csv(io.StringIO(render_csv(all_missing(sample("micro_full.raw.csv")))))
    assert len(df) == 16 and df["limiter"].isna().all() and df["hints"].isna().all()


def test_parquet_files_are_the_export_layout() -> None:
    """--format parquet writes the files of a one-report ``export`` dataset: every frame (rules too), each at
    <frame>/report=<name>/part-0.parquet, without the report column (the folder carries it)."""
    import io

    from ncu_roofline.campaign import FRAMES

    a = sample("micro_full.raw.csv")
    files = parquet_files(a)
    assert sorted(files) == sorted(f"{n}/report=micro_full.raw/part-0.parquet" for n in FRAMES)
    launches = pq.read_table(io.BytesIO(files["launches/report=micro_full.raw/part-0.parquet"]))
    assert launches.num_rows == 16 and "report" not in launches.column_names  # the 16 micro kernels
    roof = pq.read_table(io.BytesIO(files["roofline/report=micro_full.raw/part-0.parquet"])).to_pandas()
    assert len(roof) == len(a.roofline) and list(roof.columns) == [c for c in a.roofline.columns if c != "report"]
    rules = pq.read_table(io.BytesIO(files["rules/report=micro_full.raw/part-0.parquet"]))
    assert rules.num_rows == len(a.report.rules)


def test_latency_bound_kernels_show_their_busiest_unit_as_context() -> None:
    a = sample("train_step.raw.csv")
    text = render_terminal(a, width=160)
    v = build_view(a)
    lat = [k for k in v.kernels[:15] if k.regime == "latency" and k.limiter]
    assert lat
    for k in lat:
        (line,) = [x for x in text.splitlines() if k.display_name[:20] in x and "latency" in x][:1]
        assert "(" + limiter_label(k.limiter) in line


def test_beside_the_hints_that_fired_the_summaries_say_which_could_not_be_checked() -> None:
    """direct_summary.stdout.csv is a summary page of the SpeedOfLight section alone (its Section Name column):
    no SourceCounters (register spilling), no Launch Statistics (tail effect, small grid), no memory tables. One
    hint fires (launch overhead on tiny_launch); the rest are said to be not checked, with their launches (the
    page's 13 groups are 16 launches: tiny_launch's 4 invocations counted)."""
    text = data("direct_summary.stdout.csv").read_text()
    assert "GPU Speed Of Light Throughput" in text
    assert not any(s in text for s in ("Source Counters", "Launch Statistics", "Occupancy", "Memory Workload"))
    a = analysed(data("direct_summary.stdout.csv"))
    hints = render_terminal(a, width=200).split("\nHints\n", 1)[1]
    assert hints.startswith("  Launch overhead: 1 kernel")
    note = " ".join(hints.split("\nNot checked (metrics not in the export): ", 1)[1].split("\n\n")[0].split())
    assert (
        "register spilling, tail effect, uncoalesced global access, shared bank conflicts and atomic contention "
        "on 16 launches" in note
    )
    assert "small grid on 7" in note and "low occupancy on 3" in note
    md = render_markdown(a)
    assert "Not checked (metrics not in the export): register spilling" in md
    # a full export has every rule's evidence: nothing to say
    assert "Not checked" not in render_terminal(sample("micro_full.raw.csv"), width=200)


def test_markdown_marks_partial_verdicts_and_says_why_a_kernel_has_none() -> None:
    """The NERSC-recipe page (no SM throughput, no shared-memory figures) gives partial verdicts: marked in the
    Markdown table as in the terminal's, with the footnote. gene_dzv's V100 export has no bytes and no SOL: no
    verdict, and the Markdown says why and that no hint could be checked."""
    md = render_markdown(analysed(data("micro_metrics.raw.csv")))
    assert "| `stream_triad` | 1 | 190 µs | 0.9% | HBM\\* | bound |" in md
    assert "\\* partial verdict: a unit the export did not measure could be busier" in md
    gene = render_markdown(analysed(data("wild/public/v100_summit_gene_dzv.csv.gz")))
    assert "unclassified: no verdict: dram, l2, l1, compute not measured" in gene  # no GPU named: DRAM, not HBM
    assert "No hint fired, but some could not be checked on 4 launches" in gene


def test_the_header_counts_the_launches_the_gpu_time_leaves_out() -> None:
    """The A100 export has no duration (no gpu__time_duration, no elapsed cycles): merged with micro_full's 16
    timed launches, the GPU time is theirs, and the header says the 240 others have none."""
    a100 = data("wild/public/a100_opinsight_pooling.csv.gz")
    raw = gzip.decompress(a100.read_bytes()).decode()
    assert "Duration" not in raw and "gpu__time_duration" not in raw and "cycles_elapsed" not in raw
    merged = analyze(ncu_roofline.read([data("micro_full.raw.csv"), a100]))
    line = render_terminal(merged, width=200).splitlines()[1]
    assert "256 launches of" in line and line.endswith("GPU time 20.5 ms (240 launches without a duration)")
    assert "**20.5 ms** GPU time (240 launches without a duration)" in render_markdown(merged)
    assert "without a duration" not in render_terminal(sample("micro_full.raw.csv")).splitlines()[1]


def test_a_summary_page_says_its_rows_are_averages_over_launches() -> None:
    """train_step's per-kernel summary page: 68 groups (kernel, launch shape) of 382 invocations in all (the
    file's own Invocations column); each row's figures are ncu's averages, so its verdict holds for its launches
    alike: the header says so in the terminal, the Markdown and the page. A page of single launches says
    nothing of it."""
    page = pd.read_csv(data("train_step.summary-per-kernel.csv.gz"))
    groups = page.drop_duplicates(["Kernel Name", "Block Size", "Grid Size", "Device", "Invocations"])
    assert len(groups) == 68 and groups["Invocations"].sum() == 382
    a = analysed(data("train_step.summary-per-kernel.csv.gz"))
    note = build_view(a).header.averaged
    assert note is not None and note.startswith("A summary page: its 68 rows are ncu's averages")
    assert "(382 in all;" in note
    assert " ".join(render_terminal(a, width=200).split()).find(" ".join(note.split())) > 0
    assert md_text(note) in render_markdown(a)
    assert f'<p class="note" id="averaged">{note}</p>' in render_html(a).replace("&#39;", "'")
    assert build_view(sample("train_step.raw.csv")).header.averaged is None
