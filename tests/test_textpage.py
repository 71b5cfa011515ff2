"""ncu's human-readable details page (no --csv): read as the details CSV page of the same report.

Golden values: ncu's own CSV export of the same report by the same ncu version (the H200 sample's 2025.3.1 page;
ncu 2022.3 and 2024.2 re-exporting micro_roof and gene_dzv, tools/reexport_ncu_rep.py)."""

from __future__ import annotations

import gzip
from csv import reader as csv_rows
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, close_within_rounding, data

import ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.errors import FormatError
from ncu_roofline.io import sniff
from ncu_roofline.io.textpage import as_details_csv, parse, rule_name
from ncu_roofline.io.textsummary import as_summary_csv

REEXPORT = DATA / "reexport"

#: (text page, the CSV page of the same report by the same ncu): the H200 sample, and ncu 2022.3 and 2024.2
#: printing micro_roof (2025.3's report, H200) and gene_dzv (2020.1's, V100, the NERSC recipe, NVTX) in each form.
PAIRS = [
    (data("micro_full.details.txt"), data("micro_full.details.csv")),
    *[
        (REEXPORT / f"ncu-{v}/{r}.{text}.txt.gz", REEXPORT / f"ncu-{v}/{r}.{csv}.csv.gz")
        for v, reports in (("2024.2", ("micro_roof", "gene_dzv")), ("2022.3", ("gene_dzv",)))
        for r in reports
        for text, csv in (
            ("text", "details"),
            ("text-base", "details-base"),
            ("text-names", "details-names"),
            ("text-rule-details", "details"),
            ("text-nvtx", "details-nvtx-rename"),
        )
        if (REEXPORT / f"ncu-{v}/{r}.{text}.txt.gz").exists()
    ],
]
LAUNCH_COLUMNS = ["process_id", "launch_id", "kernel_name", "process_name", "host_name", "context", "stream",
                  "device", "cc", "block_size", "grid_size", "nvtx_path", "duration_ns"]  # fmt: skip
RULE_COLUMNS = ["process_id", "launch_id", "section", "rule", "type", "description", "speedup_type", "speedup"]


def _name(pair: tuple[Path, Path]) -> str:
    return f"{pair[0].parent.name}/{pair[0].name}"


def test_pairs_found() -> None:
    assert len(PAIRS) == 1 + 5 + 3 + 3  # micro_full; 2024.2 micro_roof (5), gene_dzv (3 distinct); 2022.3 (3)


@pytest.mark.parametrize("pair", PAIRS, ids=_name)
def test_text_page_reads_as_its_csv_page(pair: tuple[Path, Path]) -> None:
    text, csv = (ncu_roofline.read(p) for p in pair)
    assert text.source["flavour"].tolist() == ["text"]
    assert len(text.launches) == len(csv.launches) > 0
    pd.testing.assert_frame_equal(
        text.launches[LAUNCH_COLUMNS].reset_index(drop=True), csv.launches[LAUNCH_COLUMNS].reset_index(drop=True)
    )
    # every metric of every launch, as ncu's CSV page of the same report gives it (the same rounding)
    a, b = text.values, csv.values
    assert sorted(a.columns) == sorted(b.columns)
    pd.testing.assert_frame_equal(
        a[sorted(a.columns)].reset_index(drop=True), b[sorted(b.columns)].reset_index(drop=True), check_exact=True
    )
    # ncu's rule results: type, message, estimate, and the rule's name told from its section and message; a
    # message's runs of spaces are one space on the page (ncu wraps its lines there: "achieved  close to 0%")
    r, s = (x.rules[RULE_COLUMNS].reset_index(drop=True) for x in (text, csv))
    for x in (r, s):
        x["description"] = x["description"].str.split().str.join(" ")
    pd.testing.assert_frame_equal(r, s)


@pytest.mark.parametrize("pair", PAIRS[:1] + PAIRS[1:2], ids=_name)
def test_text_page_analysis_equals_csv_page(pair: tuple[Path, Path]) -> None:
    text, csv = (analyze(ncu_roofline.read(p)) for p in pair)
    keep = ["launch_id", "limiter", "compute_pipe", "regime", "roof_fraction", "reason", "missing"]
    pd.testing.assert_frame_equal(text.verdicts[keep].reset_index(drop=True), csv.verdicts[keep].reset_index(drop=True))
    hints = ["launch_id", "hint", "severity", "message", "estimated_speedup"]
    pd.testing.assert_frame_equal(text.hints[hints].reset_index(drop=True), csv.hints[hints].reset_index(drop=True))


def _page(name: Path) -> str:
    return gzip.decompress(name.read_bytes()).decode("utf-8")


def _second_launch(lines: list[str]) -> int:
    """Where a page's second launch line is (the first is line 2, under its process line)."""
    return next(i for i, x in enumerate(lines) if i > 1 and x.startswith("  ") and not x.startswith("   "))


def test_each_line_of_the_copy_is_the_pages_line(tmp_path: Path) -> None:
    """The CSV copy keeps the page's line numbers: each metric row and rule result on its own line, so that
    whatever the details reader says of a line names the page's."""
    path = tmp_path / "micro_full.details.txt"
    path.write_text(_page(data("micro_full.details.txt")), encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    with as_details_csv(path) as (copy, page):
        written = copy.read_text(encoding="utf-8").splitlines()
    assert written[0].startswith('"ID","Process ID"')
    for row in page.rows:
        at = written[row.line - 1]
        if row.rule is None:
            assert f'"{row.label}","{row.unit}","{row.value}",' in at
            assert lines[row.line - 1].strip().startswith(row.label)
        else:
            assert f'"{row.rule[1]}"' in at  # the rule's type; its line: the message's last
    numbered = {r.line for r in page.rows}
    assert all(not text for i, text in enumerate(written[1:], start=2) if i not in numbered)
    assert len(page.rows) == 1570  # the CSV page's rows (metric rows and rule results)


def test_capture_of_ncu_and_the_program(tmp_path: Path) -> None:
    """What `ncu ./app > log` holds: ncu's messages and the program's output, then the page."""
    prof = [
        "==PROF== Connected to process 663 (/tmp/ncuwork/microbench)",
        '==PROF== Profiling "stream_triad" - 0: 0%....50%....100% - 38 passes',
        "device: NVIDIA H200, 132 SMs, L2 60 MB",
        "==PROF== Disconnected from process 663",
    ]
    page = _page(data("micro_full.details.txt"))
    with_log = "\n".join(prof) + "\n" + page + "done\n"
    path = tmp_path / "capture.log"
    path.write_text(with_log, encoding="utf-8")
    capture, alone = ncu_roofline.read(path), ncu_roofline.read(data("micro_full.details.txt"))
    pd.testing.assert_frame_equal(capture.values.reset_index(drop=True), alone.values.reset_index(drop=True))
    skipped = capture.source["skipped"].iloc[0]
    assert "ncu message line(s) (line 1, 2, 4," in skipped
    assert "2 program output line(s) (line 3, " in skipped


def test_print_details_all_page_reads_as_its_csv_page() -> None:
    """A `--print-details all` page: the sections' header tables and their body items (the roofline charts'
    series, the throughput charts and breakdowns, the tensor chart's tables) read as the CSV page of the same
    report by the same ncu prints them, each row with its Body Item Label (the series or table name above it; none
    for a table with no title); ncu's "(!)" before a value it could not compute is not part of the value. The
    roofline of that page is the CSV page's. ncu 2024.2 printed only the first launch of micro_roof's body (it
    crashes after it, on both pages)."""
    text, csv = (
        ncu_roofline.read(REEXPORT / f"ncu-2024.2/micro_roof.{name}.gz") for name in ("text-all.txt", "details-all.csv")
    )
    assert text.source["not_understood"].isna().all()
    cols = ["launch_id", "section", "body_item", "label", "metric", "unit", "value", "text"]
    a, b = (x.metrics[cols].reset_index(drop=True) for x in (text, csv))
    assert len(a) == 4813 and a["body_item"].notna().sum() == 3652  # as many as ncu's CSV page has
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    x, y = (analyze(r) for r in (text, csv))
    assert x.roofline["achieved_flops"].gt(0).any()
    for frame in ("roofline", "verdicts", "hints", "utilization"):
        pd.testing.assert_frame_equal(
            getattr(x, frame).drop(columns="report").reset_index(drop=True),
            getattr(y, frame).drop(columns="report").reset_index(drop=True),
        )


def test_body_tables_of_other_shapes_are_named(tmp_path: Path) -> None:
    """A body item's table of more columns than a metric table's three (the memory tables of --print-details all)
    is not read; the page says so, naming its section, and reads the rest."""
    lines = _page(REEXPORT / "ncu-2024.2/micro_roof.text.txt.gz").splitlines(keepends=True)
    launch = "".join(lines[: _second_launch(lines)])  # the process line and the first launch
    wide = (
        "    Shared Memory\n    ------------- ------------ ---------- -----------\n"
        "                  Instructions Wavefronts % Peak\n    ------------- ------------ ---------- -----------\n"
        "    Shared Load              0          0           0\n"
        "    ------------- ------------ ---------- -----------\n\n"
    )
    at = launch.index("\n\n", launch.index("    Section: GPU Speed Of Light Throughput")) + 2
    body = launch[:at] + wide + launch[at:]
    (tmp_path / "header.txt").write_text(launch, encoding="utf-8")
    (tmp_path / "all.txt").write_text(body, encoding="utf-8")
    a, b = ncu_roofline.read(tmp_path / "all.txt"), ncu_roofline.read(tmp_path / "header.txt")
    pd.testing.assert_frame_equal(a.values.reset_index(drop=True), b.values.reset_index(drop=True))
    said = a.source["not_understood"].iloc[0]
    assert "body items" in said and "'GPU Speed Of Light Throughput'" in said
    assert "Shared Load" not in set(a.metrics["label"])


def test_body_items_alone_are_refused(tmp_path: Path) -> None:
    page = (
        "[1] app@host\n  k (1, 1, 1)x(32, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
        "    Section: GPU Speed Of Light Throughput\n    GPU Throughput Chart\n    Table Name : GPU Throughput\n"
        "    ---------------- ----------- ------------\n    Metric Name      Metric Unit Metric Value\n"
        "    ---------------- ----------- ------------\n    Memory [%]                 %        86.81\n"
        "    ---------------- ----------- ------------\n"
    )
    (tmp_path / "body.txt").write_text(page, encoding="utf-8")
    with pytest.raises(FormatError, match=r"body\.txt: ncu's human-readable page with only body items .* --csv"):
        ncu_roofline.read(tmp_path / "body.txt")


def test_old_launch_lines_give_kernel_time() -> None:
    """ncu 2022.3 printing a 2020.1 report: `name, 2020-Aug-28 10:25:54, Context 1, Stream 7`."""
    report = ncu_roofline.read(REEXPORT / "ncu-2022.3/gene_dzv.text.txt.gz")
    assert report.launches["kernel_name"].str.startswith("void gt::detail::kernel_assign_6<").all()
    assert report.launches["block_size"].isna().all() and report.launches["cc"].isna().all()
    assert report.launches["nvtx_path"].iloc[0] == "GENE/gsub/timeloop/t_loop/eRK_standard/eRK_stage_1/CalFRhs0/dzv_ak"


def test_rule_names() -> None:
    # the rules the analysis reads, by their messages (ncu 2025.3.1's words)
    assert rule_name("SpeedOfLight", "This kernel grid is too small to fill the available resources") == (
        "SOLBottleneck"
    )
    assert rule_name("ComputeWorkloadAnalysis", "ALU is the highest-utilized pipeline (5.4%) based on") == (
        "HighPipeUtilization"
    )
    assert rule_name("SpeedOfLight_RooflineChart", "The ratio of peak float (FP32) to double") == "SOLFPRoofline"
    assert rule_name("Occupancy", "The 4.00 theoretical warps per scheduler this kernel can issue") == (
        "TheoreticalOccupancy"
    )
    assert rule_name("Occupancy", "Something ncu may say one day") is None


def test_unknown_rule_is_named_after_its_section(tmp_path: Path) -> None:
    page = (
        "[1] app@host\n  k (1, 1, 1)x(32, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
        "    Section: GPU Speed Of Light Throughput\n    ----------------------- ----------- ------------\n"
        "    Metric Name             Metric Unit Metric Value\n    ----------------------- ----------- ------------\n"
        "    Duration                         us       189.41\n    ----------------------- ----------- ------------\n"
        "\n    Section: Occupancy\n    OPT   Est. Local Speedup: 12.5%\n"
        "          A message of a rule of a newer ncu,\n          on two lines.\n"
    )
    (tmp_path / "p.txt").write_text(page, encoding="utf-8")
    report = ncu_roofline.read(tmp_path / "p.txt")
    assert report.launches["duration_ns"].tolist() == [189410.0]
    rule = report.rules.iloc[0]
    assert (rule["section"], rule["rule"], rule["type"], rule["speedup_type"]) == (
        "Occupancy", "Occupancy", "OPT", "local"
    )  # fmt: skip
    assert rule["description"] == "A message of a rule of a newer ncu, on two lines."
    assert np.isclose(rule["speedup"], 12.5)
    assert "named after their section: Occupancy" in report.source["not_understood"].iloc[0]
    assert parse(tmp_path / "p.txt").rows[-1].line == 13  # the result's line: its message's last


def test_log_pasted_from_its_launch_line(tmp_path: Path) -> None:
    """A page pasted from its launch line on (no `[pid] name@host` above it, the launch line not indented): read,
    process ID 0, and said so."""
    lines = _page(data("micro_full.details.txt")).splitlines()
    second = _second_launch(lines)
    pasted = ["$ ncu ./microbench", lines[1].lstrip(), *lines[2:second]]
    (tmp_path / "pasted.txt").write_text("\n".join(pasted) + "\n", encoding="utf-8")
    (tmp_path / "whole.txt").write_text("\n".join(lines[:second]) + "\n", encoding="utf-8")
    a, b = ncu_roofline.read(tmp_path / "pasted.txt"), ncu_roofline.read(tmp_path / "whole.txt")
    assert a.launches["process_id"].tolist() == [0] and b.launches["process_id"].tolist() == [663]
    assert a.launches["kernel_name"].tolist() == b.launches["kernel_name"].tolist()
    pd.testing.assert_frame_equal(a.values.reset_index(drop=True), b.values.reset_index(drop=True))
    assert "without the process line" in a.source["not_understood"].iloc[0]
    assert "program output line(s) (line 1;" in a.source["skipped"].iloc[0]


@pytest.mark.parametrize(
    "page",
    [
        "micro_full.details.txt",
        "reexport/ncu-2024.2/micro_roof.text-raw.txt.gz",
        "reexport/ncu-2024.2/micro_roof.text-summary-per-kernel.txt.gz",
    ],
)
def test_a_page_shifted_as_a_markdown_code_block_reads_as_the_page(page: str, tmp_path: Path) -> None:
    """Every line four spaces in (a page pasted into a README as an indented code block): read as the page ncu
    wrote, the same launches and values."""
    text = _page(DATA / page if page.startswith("reexport") else data(page))
    shifted = tmp_path / "shifted.txt"
    shifted.write_text("".join("    " + line for line in text.splitlines(keepends=True)), encoding="utf-8")
    (tmp_path / "page.txt").write_text(text, encoding="utf-8")
    a, b = ncu_roofline.read(shifted), ncu_roofline.read(tmp_path / "page.txt")
    assert len(a.launches) == len(b.launches) > 0
    assert a.launches["kernel_name"].tolist() == b.launches["kernel_name"].tolist()
    pd.testing.assert_frame_equal(a.values.reset_index(drop=True), b.values.reset_index(drop=True))


@pytest.mark.parametrize("margin", ["", "    "])
def test_a_page_pasted_flat_is_refused_naming_its_launch_line(margin: str, tmp_path: Path) -> None:
    """Every line at one margin (a README's paste that lost ncu's indentation, found in a public repository):
    which line is a launch's and which a section's is lost; refused naming the launch line, not called a
    page without a CSV header."""
    lines = _page(data("micro_full.details.txt")).splitlines()
    flat = tmp_path / "flat.txt"
    flat.write_text("".join(margin + line.lstrip() + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(FormatError, match=r"indentation changed") as err:
        ncu_roofline.read(flat)
    assert err.value.line == 2


RAW_PAIRS = [
    (REEXPORT / f"ncu-{v}/{r}.text-raw.txt.gz", REEXPORT / f"ncu-{v}/{r}.raw.csv.gz")
    for v, r in (("2024.2", "micro_roof"), ("2024.2", "gene_dzv"), ("2022.3", "gene_dzv"))
]


@pytest.mark.parametrize("pair", RAW_PAIRS, ids=_name)
def test_raw_text_page_reads_as_its_raw_csv_page(pair: tuple[Path, Path]) -> None:
    """`--page raw` without --csv: every metric by name, each value in a unit of its own with two decimals. Every
    value agrees with the CSV raw page of the same report within the printing of both; verdicts and hints equal."""
    text, raw = (ncu_roofline.read(p) for p in pair)
    keys = [c for c in LAUNCH_COLUMNS if c != "duration_ns"]
    pd.testing.assert_frame_equal(text.launches[keys].reset_index(drop=True), raw.launches[keys].reset_index(drop=True))
    cols = ["launch_id", "metric", "value", "text"]
    # every metric of the CSV page is on the text page by its name, those not shaped unit__counter too (a 2025.3
    # report's inst_executed, derived_tempMetric0): nothing is left out as not understood
    on_text = set(zip(text.metrics["launch_id"], text.metrics["metric"], strict=True))
    assert set(zip(raw.metrics["launch_id"], raw.metrics["metric"], strict=True)) <= on_text
    assert text.source["not_understood"].isna().all()
    both = text.metrics[cols].merge(raw.metrics[cols], on=["launch_id", "metric"], suffixes=("_t", "_r"))
    numbers = both[both["value_t"].notna() | both["value_r"].notna()]
    close = close_within_rounding(numbers, "_t", "_r")
    assert close.all(), numbers[~close].head().to_dict("records")
    a, b = (analyze(x) for x in (text, raw))
    keep = ["launch_id", "limiter", "compute_pipe", "regime"]
    pd.testing.assert_frame_equal(a.verdicts[keep].reset_index(drop=True), b.verdicts[keep].reset_index(drop=True))
    hints = ["launch_id", "hint", "severity"]
    pd.testing.assert_frame_equal(a.hints[hints].reset_index(drop=True), b.hints[hints].reset_index(drop=True))


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig"])
def test_windows_console_page(tmp_path: Path, encoding: str) -> None:
    """The page as a Windows console saves it: CRLF line ends, UTF-16 (PowerShell 5's `>`) or UTF-8 with a BOM."""
    path = tmp_path / "page.txt"
    path.write_text(_page(data("micro_full.details.txt")).replace("\n", "\r\n"), encoding=encoding, newline="")
    a, b = ncu_roofline.read(path), ncu_roofline.read(data("micro_full.details.txt"))
    assert a.source["flavour"].tolist() == ["text"]
    pd.testing.assert_frame_equal(a.values.reset_index(drop=True), b.values.reset_index(drop=True))
    pd.testing.assert_frame_equal(a.rules.drop(columns="report"), b.rules.drop(columns="report"))


def test_tables_with_their_header_above_the_dashes(tmp_path: Path) -> None:
    """The layout of ncu 2022.3's summary tables, should a details page use it: the header row, then the dashed
    line, then the rows, and no closing line (the next blank line, section or rule result ends the table)."""
    lines = _page(data("micro_full.details.txt")).splitlines()
    out: list[str] = []
    i = tables = 0
    while i < len(lines):
        section, header = lines[i], lines[i + 2] if i + 2 < len(lines) else ""
        if section.startswith("    Section: ") and header.strip().startswith("Metric Name"):
            out += [section, header, lines[i + 1]]  # the header, then the dashed line
            i += 4
            while not lines[i].strip().startswith("---"):
                out.append(lines[i])
                i += 1
            i += 1  # no closing line; after every other table no blank line either
            tables += 1
            if tables % 2 and i < len(lines) and not lines[i].strip():
                i += 1
            continue
        out.append(lines[i])
        i += 1
    assert tables > 100
    (tmp_path / "first.txt").write_text("\n".join(out) + "\n", encoding="utf-8")
    a, b = ncu_roofline.read(tmp_path / "first.txt"), ncu_roofline.read(data("micro_full.details.txt"))
    pd.testing.assert_frame_equal(a.values.reset_index(drop=True), b.values.reset_index(drop=True))
    pd.testing.assert_frame_equal(a.rules.drop(columns="report"), b.rules.drop(columns="report"))


SUMMARY_PAIRS = [
    (REEXPORT / f"ncu-{v}/{r}.text-summary-{by}.txt.gz", REEXPORT / f"ncu-{v}/{r}.summary-{by}.csv.gz")
    for v, r in (("2024.2", "micro_roof"), ("2024.2", "gene_dzv"), ("2022.3", "gene_dzv"))
    for by in ("per-kernel", "per-gpu", "per-nvtx")
]
SUMMARY_COLUMNS = ["process_id", "kernel_name", "process_name", "host_name", "device", "cc", "block_size",
                   "grid_size", "invocations", "nvtx_path", "duration_ns"]  # fmt: skip


@pytest.mark.parametrize("pair", SUMMARY_PAIRS, ids=_name)
def test_summary_text_page_reads_as_its_csv_page(pair: tuple[Path, Path]) -> None:
    """`--print-summary per-kernel`, `per-gpu` or `per-nvtx` without --csv: one group per kernel (per NVTX stack
    and kernel), its metrics' minimum, maximum and average, as the summary CSV page the same ncu writes of the same
    report (the per-NVTX groups' ranges as the CSV page's NVTX paths)."""
    text, csv = (ncu_roofline.read(p) for p in pair)
    assert text.source["flavour"].tolist() == ["text"] and len(text.launches) == len(csv.launches) > 0
    pd.testing.assert_frame_equal(
        text.launches[SUMMARY_COLUMNS].reset_index(drop=True), csv.launches[SUMMARY_COLUMNS].reset_index(drop=True)
    )
    cols = ["metric", "label", "unit", "value", "minimum", "maximum"]
    pd.testing.assert_frame_equal(text.metrics[cols].reset_index(drop=True), csv.metrics[cols].reset_index(drop=True))
    assert "ncu message" in text.source["skipped"].iloc[0]  # ncu's note under the groups


@pytest.mark.parametrize(
    "pair",
    [
        (
            REEXPORT / f"ncu-{v}/{r}.text-raw-summary-per-kernel.txt.gz",
            REEXPORT / f"ncu-{v}/{r}.raw-summary-per-kernel.csv.gz",
        )
        for v, r in (("2024.2", "micro_roof"), ("2024.2", "gene_dzv"), ("2022.3", "gene_dzv"))
    ],
    ids=_name,
)
def test_raw_summary_text_page_reads_as_its_csv_page(pair: tuple[Path, Path]) -> None:
    """`--page raw --print-summary per-kernel` without --csv: no section headings, a metric table right under
    each group, every metric by name; read as the raw summary CSV page the same ncu writes (it was "no ncu CSV
    header found"). Values as printed (six decimals in a unit ncu picks per value) within that printing."""
    text, csv = (ncu_roofline.read(p) for p in pair)
    assert text.source["flavour"].tolist() == ["text"] and len(text.launches) == len(csv.launches) > 0
    cols = ["process_id", "kernel_name", "block_size", "grid_size", "invocations"]
    pd.testing.assert_frame_equal(text.launches[cols].reset_index(drop=True), csv.launches[cols].reset_index(drop=True))
    t, c = text.metrics.reset_index(drop=True), csv.metrics.reset_index(drop=True)
    assert t["metric"].tolist() == c["metric"].tolist() and t["section"].isna().all()
    both = t["value"].notna() & c["value"].notna()
    assert both.sum() > 0.9 * c["value"].notna().sum()
    np.testing.assert_allclose(t.loc[both, "value"], c.loc[both, "value"], rtol=5e-6, atol=1e-9)


def test_per_nvtx_summary_text_page_stacks(tmp_path: Path) -> None:
    """The per-NVTX page prints a stack's ranges above the groups launched under it; the next ranges printed are
    the next groups' whole stack. An attribute of a range is its colour, message or (another kind) payload, as
    the CSV page's range cell lists them; a page cut before its first table is refused with the export command."""
    page = (
        "\n== NVTX State ==\n<default domain>\n  <outer>\n    RGB: 0xff\n  <inner>\n    ASCII: step 1\n"
        "    INT64: 42\n  k (1, 1, 1)x(32, 1, 1), Device 0, CC 9.0, Invocations 2\n"
        "    Section: GPU Speed Of Light Throughput\n    -------- ----------- ------- ------- -------\n"
        "    Metric Name Metric Unit Minimum Maximum Average\n    -------- ----------- ------- ------- -------\n"
        "    Duration     us       1.00    3.00    2.00\n    -------- ----------- ------- ------- -------\n\n"
        "  j (2, 1, 1)x(32, 1, 1), Device 0, CC 9.0, Invocations 1\n"
        "    Section: GPU Speed Of Light Throughput\n    -------- ----------- ------- ------- -------\n"
        "    Metric Name Metric Unit Minimum Maximum Average\n    -------- ----------- ------- ------- -------\n"
        "    Duration     us       5.00    5.00    5.00\n    -------- ----------- ------- ------- -------\n\n"
        "  <other>\n  k (1, 1, 1)x(32, 1, 1), Device 0, CC 9.0, Invocations 1\n"
        "    Section: GPU Speed Of Light Throughput\n    -------- ----------- ------- ------- -------\n"
        "    Metric Name Metric Unit Minimum Maximum Average\n    -------- ----------- ------- ------- -------\n"
        "    Duration     us       7.00    7.00    7.00\n    -------- ----------- ------- ------- -------\n"
    )
    (tmp_path / "nvtx.txt").write_text(page, encoding="utf-8")
    with as_summary_csv(tmp_path / "nvtx.txt") as (copy, _page):
        cells = [row[1] for row in csv_rows(copy.read_text().splitlines()[1:]) if row]
    inner = '"inner:INT64:42:none:none:ASCII:step 1"'
    assert cells == [f' "outer:none:none:RGB:0xff:none:none"  {inner} '] * 2 + [
        ' "other:none:none:none:none:none:none" '
    ]
    r = ncu_roofline.read(tmp_path / "nvtx.txt")
    assert r.launches["nvtx_path"].tolist() == ["outer/inner", "outer/inner", "other"]
    assert r.launches["invocations"].tolist() == [2, 1, 1]
    assert r.launches["duration_ns"].tolist() == [2000.0, 5000.0, 7000.0]
    cut = "\n== NVTX State ==\n<default domain>\n  <compute>\n"
    cut += "  k (1, 1, 1)x(32, 1, 1), Device 0, CC 9.0, Invocations 1\n    Section: Compute Workload Analysis\n"
    (tmp_path / "cut.txt").write_text(cut, encoding="utf-8")
    with pytest.raises(FormatError, match=r"per-NVTX summary\) without a metric table.*--print-summary per-nvtx"):
        ncu_roofline.read(tmp_path / "cut.txt")


def test_session_text_page_reads_as_its_csv_page() -> None:
    """`--page session` without --csv: each block's attributes as the session CSV page gives them, a value wider
    than its column (the profiler's command line, wrapped over five lines) joined again where ncu cut it; the page
    names the GPU of a details page read with it, as the CSV session page does."""
    for report, attributes in (("micro_roof", 21), ("gene_dzv", 15)):
        pages = ("text-session.txt", "session.csv")
        text, csv = (ncu_roofline.read(REEXPORT / f"ncu-2024.2/{report}.{name}.gz") for name in pages)
        assert text.source["flavour"].tolist() == ["text"]
        assert text.source["ncu_version"].tolist() == csv.source["ncu_version"].tolist()
        a, b = (x.session.drop(columns="report").reset_index(drop=True) for x in (text, csv))
        b["value"] = b["value"].str.rstrip()  # (ncu's CSV page ends the command line in a space the text page pads)
        pd.testing.assert_frame_equal(a, b)
        assert len(a) == attributes
        if report == "micro_roof":  # the command line, over five lines of the page
            assert "--section SpeedOfLight_RooflineChart -f -o" in a["value"].iloc[0]
    alone = analyze(ncu_roofline.read(REEXPORT / "ncu-2024.2/micro_roof.text.txt.gz"))
    both = analyze(
        ncu_roofline.read([REEXPORT / f"ncu-2024.2/micro_roof.{n}.txt.gz" for n in ("text", "text-session")])
    )
    # alone, the page's GPU is told by its attributes (CC, SMs, the DRAM peak its throughput implies); with the
    # session page, by the name it gives
    assert set(alone.launches["device_basis"]) == {"attributes"}
    assert set(both.launches["device_name"]) == {"NVIDIA H200"}
    assert set(both.launches["device_basis"]) == {"display_name"}


@pytest.mark.parametrize(
    ("page", "line"),
    [("ncu-2024.2/micro_roof", 5), ("ncu-2024.2/gene_dzv", 54), ("ncu-2022.3/gene_dzv", 79)],  # (long kernel names)
)
def test_source_text_page_is_refused_as_the_source_page(page: str, line: int) -> None:
    """`--page source` without --csv: instructions, no metrics per launch; refused as its CSV page is, at the line
    of its table's header (under the kernel's name, wrapped), with the command that exports a page we read."""
    with pytest.raises(FormatError, match=rf"text-source-sass\.txt\.gz:{line}: this is ncu's source page .*--page raw"):
        ncu_roofline.read(REEXPORT / f"{page}.text-source-sass.txt.gz")


def _sniffed_line_by_line(path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    with monkeypatch.context() as m:
        m.setattr(sniff, "_text_page_at_once", lambda _path, _head: None)
        try:
            return sniff.locate(path)
        except FormatError as exc:
            return str(exc)


TEXT_INPUTS = sorted(p for p in DATA.rglob("*.txt*") if not p.name.endswith(".gz")) + sorted(DATA.rglob("*.txt.gz"))


@pytest.mark.parametrize("name", [p.relative_to(DATA).as_posix() for p in TEXT_INPUTS])
def test_a_text_page_is_told_at_once_as_line_by_line(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sniff tells ncu's pages without --csv from their first 64 KiB and a search of the file for the words of
    the lines it would stop at, not a Python step per line (0.6 s of a 1,024-launch page): what it says of every
    page (flavour, ncu version, error) is what the line-by-line sniff says."""
    path = data(name) if name.endswith(".gz") else DATA / name
    if path.suffix == ".gz":
        path = tmp_path / path.name.removesuffix(".gz")
        path.write_bytes(gzip.decompress((DATA / name).read_bytes()))
    try:
        fast: object = sniff.locate(path)
    except FormatError as exc:
        fast = str(exc)
    assert fast == _sniffed_line_by_line(path, monkeypatch)


def test_a_text_page_with_a_csv_header_after_it_is_sniffed_line_by_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a file that starts as a page without --csv and later holds a CSV page (two runs' output in one log): the
    # header decides, as the line-by-line sniff finds it; and a version named on a line before it is kept
    page = _page(data("micro_full.details.txt"))
    csv_page = data("micro_full.details.csv").read_text(encoding="utf-8")
    both = tmp_path / "both.log"
    both.write_text(page + csv_page, encoding="utf-8")
    found = sniff.locate(both)
    assert found.flavour == "details" and found.header_line == page.count("\n") + 1
    assert found == _sniffed_line_by_line(both, monkeypatch)
    named = tmp_path / "named.log"
    named.write_text("==PROF== Connected\n" + page + "Copyright (c) NVIDIA Nsight Compute 2025.3.1.0\n", "utf-8")
    assert sniff.locate(named) == _sniffed_line_by_line(named, monkeypatch)
    assert sniff.locate(named).flavour == "text" and sniff.locate(named).ncu_version == "2025.3.1.0"


def test_a_page_cut_mid_line_says_it_may_be_cut_short(tmp_path: Path) -> None:
    """``head -c 120000`` of the page (cut inside launch 8's tables): the launches before read as they are, and the
    cut is said (ncu ends every line it prints); the whole page says nothing of the kind."""
    text = gzip.decompress(data("micro_full.details.txt.gz").read_bytes())
    cut = tmp_path / "cut.txt"
    cut.write_bytes(text[:120_000])
    assert not text[:120_000].endswith(b"\n")
    report = ncu_roofline.read(cut)
    assert 0 < len(report.launches) < 16
    assert "may be cut short: its last line has no line break" in report.source["not_understood"].iloc[0]
    whole = ncu_roofline.read(data("micro_full.details.txt.gz")).source["not_understood"].iloc[0]
    assert pd.isna(whole) or "cut short" not in whole


def test_a_page_printed_twice_is_refused(tmp_path: Path) -> None:
    """A page without --csv of one process appended to itself (``ncu ./app >> log`` twice, a log concatenated):
    the page has no launch IDs, so the second copy's launches read as more launches of the process (8 for gene_dzv's
    4, twice its GPU time). ncu prints each process's line once, above its launches: the second one is refused."""
    text = gzip.decompress((REEXPORT / "ncu-2024.2/gene_dzv.text.txt.gz").read_bytes()).decode()
    twice = tmp_path / "twice.txt"
    twice.write_text(text + text)
    second = len(text.splitlines()) + 1 + next(i for i, t in enumerate(text.splitlines()) if t.startswith("[6244]"))
    with pytest.raises(FormatError, match=f"twice.txt:{second}: the launches of process 6244 are printed a second"):
        ncu_roofline.read(twice)
    assert len(ncu_roofline.read(REEXPORT / "ncu-2024.2/gene_dzv.text.txt.gz").launches) == 4


def test_a_failed_launchs_placeholder_shape_is_not_a_zero(tmp_path: Path) -> None:
    """ncu prints a launch that failed as `(0, 0, 0)x(0, 0, 0)` (its Launch Statistics say n/a; a public ncu
    2023.2 capture): no block or grid size, not 0."""
    lines = _page(data("micro_full.details.txt")).splitlines()
    assert "(1056, 1, 1)x(256, 1, 1)" in lines[1]
    lines[1] = lines[1].replace("(1056, 1, 1)x(256, 1, 1)", "(0, 0, 0)x(0, 0, 0)")
    (tmp_path / "failed.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    launches = ncu_roofline.read(tmp_path / "failed.txt").launches
    assert launches["block_size"].isna().iloc[0] and launches["grid_size"].isna().iloc[0]
    assert launches["block_size"].notna().iloc[1:].all()


def test_notes_after_a_tables_last_column_are_left_out_and_said(tmp_path: Path) -> None:
    """A page annotated by hand (a blog's copy: `Duration  us  106.46  # kernel time ...`): each value is read
    as ncu printed it and the notes are named (the rows were kept as text: the launch had no duration)."""
    text = _page(data("micro_full.details.txt"))
    lines = text.splitlines()
    rows = [i for i, line in enumerate(lines[:40]) if line.startswith("    Duration ") or " Throughput " in line]
    assert len(rows) >= 3
    for i in rows:
        lines[i] += "  # note: 注释"
    (tmp_path / "notes.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "page.txt").write_text(text, encoding="utf-8")
    a, b = ncu_roofline.read(tmp_path / "notes.txt"), ncu_roofline.read(tmp_path / "page.txt")
    pd.testing.assert_frame_equal(a.values.reset_index(drop=True), b.values.reset_index(drop=True))
    said = str(a.source["not_understood"].iloc[0])
    assert f"text after a table's last column, left out (line {rows[0] + 1}," in said


def test_sections_without_a_launch_line_are_refused_as_an_excerpt(tmp_path: Path) -> None:
    """A page's sections without the launch line above them (a README's excerpt): which launch they are of is not
    on the page; refused naming the first section (it was told "not a CSV export", though such pages are read)."""
    lines = _page(data("micro_full.details.txt")).splitlines()
    second = _second_launch(lines)
    (tmp_path / "excerpt.txt").write_text("\n".join(lines[2:second]) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match="no launch line above it") as err:
        ncu_roofline.read(tmp_path / "excerpt.txt")
    first = next(i for i, line in enumerate(lines[2:second]) if "Section: " in line)
    assert err.value.line == first + 1


def test_a_table_cut_short_ends_at_the_next_launch(tmp_path: Path) -> None:
    """A page pasted with its first table cut short ("..." after a row, no closing dashed line, the rest of the
    launch left out; flashinfer issue 188's RTX 4090 excerpt): the rows above the cut are the first launch's, and
    the next launch line starts the next launch, read as on the whole page (it was taken as program output, and its
    section heading as a row of the cut table: a made-up unit, and a crash naming a temporary file)."""
    lines = _page(data("micro_full.details.txt")).splitlines()
    second = _second_launch(lines)
    duration = next(i for i, x in enumerate(lines) if x.startswith("    Duration "))
    cut = [*lines[: duration + 1], "...", "", *lines[second:]]
    (tmp_path / "cut.txt").write_text("\n".join(cut) + "\n", encoding="utf-8")
    (tmp_path / "page.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    a, b = ncu_roofline.read(tmp_path / "cut.txt"), ncu_roofline.read(tmp_path / "page.txt")
    assert len(a.launches) == len(b.launches) == 16
    pd.testing.assert_frame_equal(_unnamed(a.values.iloc[1:]), _unnamed(b.values.iloc[1:]))  # as on the page
    first = a.values.iloc[0].dropna()
    assert first["gpu__time_duration.sum"] == pytest.approx(189.41e-6)  # ncu's row above the cut
    assert first.eq(b.values.iloc[0][first.index]).all()
    assert "Section" not in str(a.source["not_understood"].iloc[0])
    assert "ght Throughpu" not in str(analyze(a).launches.to_dict())


def test_a_section_heading_off_its_indent_by_a_space_is_its_section(tmp_path: Path) -> None:
    """A section heading pasted a space off ncu's four (nv-nsight-cu-cli 2020's SOL section in a course's notes,
    "   Section: GPU Speed Of Light"): its table is that section's, not rows of no section whose labels resolve to
    no metric (the launch lost its duration and every throughput, said only in the JSON's not_understood)."""
    lines = _page(data("micro_full.details.txt")).splitlines()
    heading = next(i for i, x in enumerate(lines) if x.startswith("    Section: GPU Speed Of Light Throughput"))
    shifted = [*lines[:heading], lines[heading][1:], *lines[heading + 1 :]]
    (tmp_path / "shifted.txt").write_text("\n".join(shifted) + "\n", encoding="utf-8")
    (tmp_path / "page.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    a, b = ncu_roofline.read(tmp_path / "shifted.txt"), ncu_roofline.read(tmp_path / "page.txt")
    pd.testing.assert_frame_equal(_unnamed(a.values), _unnamed(b.values))
    assert a.source["not_understood"].isna().all()


def _unnamed(values: pd.DataFrame) -> pd.DataFrame:
    """``values`` without the report's name (the file's) in its index."""
    return values.reset_index("report", drop=True)


def test_a_table_whose_header_row_was_left_out_is_read(tmp_path: Path) -> None:
    """A page pasted without a table's header row ("Metric Name  Metric Unit  Metric Value"): the two dashed lines
    meet, and the rows under them are the table's (the second dashed line closed the table, and its rows were taken
    for body item titles: the launch lost its duration and every throughput, said nowhere)."""
    lines = _page(data("micro_full.details.txt")).splitlines()
    header = next(i for i, x in enumerate(lines) if x.strip().startswith("Metric Name") and "Metric Value" in x)
    (tmp_path / "cut.txt").write_text("\n".join(lines[:header] + lines[header + 1 :]) + "\n", encoding="utf-8")
    (tmp_path / "page.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    a, b = ncu_roofline.read(tmp_path / "cut.txt"), ncu_roofline.read(tmp_path / "page.txt")
    pd.testing.assert_frame_equal(_unnamed(a.values), _unnamed(b.values))


def _launch_lines(lines: list[str]) -> list[int]:
    """Indices of the page's launch lines (two spaces in, ending in the CC), golden from the text itself."""
    return [i for i, t in enumerate(lines) if t.startswith("  ") and not t.startswith("   ") and ", CC " in t]


@pytest.mark.parametrize("launch", [0, 4])
def test_a_launch_line_wrapped_in_two_is_refused_not_dropped(tmp_path: Path, launch: int) -> None:
    """A pasted page whose launch line wrapped (a terminal's width): the launch's sections had no launch line of
    their own, and were skipped (launch 0, stream_triad's 189 us gone) or read as the launch before's (launch 4's
    into launch 3's), exit 0. Refused at the first section heading with no launch line above it, naming the
    piece of launch line it could not read."""
    lines, at, cut, err = _wrapped(tmp_path, launch, "Stream", 4)
    heading = next(i for i in range(at + 1, len(lines)) if lines[i].startswith("    Section: "))
    assert err.line == heading + 2  # (a line more above it, wrapped)
    assert f"(line {at + 2}, {lines[at][cut:].strip()!r}, is not read as one)" in str(err)


def test_a_launch_line_wrapped_inside_its_name_is_refused(tmp_path: Path) -> None:
    """Wrapped inside the kernel's name, the rest of the line (unindented) reads as a launch of a kernel named
    "nt)": refused at it, naming the head on the line above."""
    lines, at, cut, err = _wrapped(tmp_path, 4, "(", 5)
    assert err.line == at + 2
    assert f"(line {at + 1}, {lines[at][:cut].strip()!r}" in str(err)


def _wrapped(tmp_path: Path, launch: int, word: str, after: int) -> tuple[list[str], int, int, FormatError]:
    """The page with launch ``launch``'s line cut in two ``after`` characters into ``word``, and the error reading
    it: (the page's own lines, that launch line's index, where it was cut, the error)."""
    lines = _page(data("micro_full.details.txt")).splitlines()
    at = _launch_lines(lines)[launch]
    cut = lines[at].index(word) + after
    path = tmp_path / "wrapped.txt"
    path.write_text("\n".join([*lines[:at], lines[at][:cut], lines[at][cut:], *lines[at + 1 :]]) + "\n", "utf-8")
    with pytest.raises(FormatError, match="a launch line wrapped or edited") as err:
        ncu_roofline.read(path)
    return lines, at, cut, err.value
