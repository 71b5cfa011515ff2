"""ncu exports in the wild: other ncu versions (2020.1, 2022.3, 2024.2), other GPUs, ncu's own errors.

The files are byte-identical copies (gzip-compressed) of ``../shared/ncu-wild`` (``data/wild/*/README.md`` and
``SOURCES.md`` say where each came from). Launch counts come from those documents and from the files' own
``ID``/``Invocations`` columns, counted here with the csv module; values are held against the 2025.3 exports of
the same report, within the rounding of the printed numbers.
"""

from __future__ import annotations

import csv
import gzip
import re
import shutil
import subprocess
import sys
from pathlib import Path

import _ncu
import derive
import pandas as pd
import pytest
from conftest import DATA, close_within_rounding, data, read_shared

import ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.diff import compare
from ncu_roofline.errors import FormatError, NcuError
from ncu_roofline.io.identity import demangled, display_name
from ncu_roofline.labels import TENSOR_TABLE_LABEL

WILD = DATA / "wild"
V24 = WILD / "ncu-2024.2"
V22 = WILD / "ncu-2022.3"
PUBLIC = WILD / "public"
MICRO_KERNELS = 13  # ../shared/ncu-samples/README.md: 13 kernels, 16 launches (tiny_launch 4 times)
MICRO_LAUNCHES = 16


def text_of(path: Path) -> str:
    raw = path.read_bytes()
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8")


def records(path: Path) -> tuple[list[str], list[list[str]]]:
    """The header and the records after it (csv module; every line after the header that is a CSV record)."""
    lines = text_of(path).splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(('"ID","Process ID"', '"Process ID"', '"Domain"')))
    rows = list(csv.reader(lines[start:]))
    return rows[0], [r for r in rows[1:] if r]


def launch_ids(path: Path) -> set[tuple[str, str]]:
    """Distinct (Process ID, ID) of the records, as the file writes them."""
    header, rows = records(path)
    i, p = header.index("ID"), header.index("Process ID")
    return {(r[p], r[i]) for r in rows if len(r) > max(i, p) and r[i].isdigit() and r[p].isdigit()}


# --------------------------------------------------------------------------- every file, with its launch count

#: (file, launches) as documented: SOURCES.md (public), the folders' READMEs (4 launches of one kernel; the
#: 16 launches of micro_roof), cross-checked with the files' own ID columns below.
DOCUMENTED = {
    "public/v100_summit_gene_dzv.csv.gz": 4,
    "public/a100_opinsight_pooling.csv.gz": 240,
    "ncu-2022.3/gene_dzv.details-nvtx.csv.gz": 4,
    "ncu-2022.3/gene_dzv.raw.csv.gz": 4,
    "ncu-2022.3/gene_dzv.raw-base.csv.gz": 4,
    "ncu-2024.2/micro_roof.details.csv.gz": MICRO_LAUNCHES,
    "ncu-2024.2/micro_roof.details-names.csv.gz": MICRO_LAUNCHES,
    "ncu-2024.2/micro_roof.raw.csv.gz": MICRO_LAUNCHES,
    "ncu-2024.2/micro_roof.raw-base.csv.gz": MICRO_LAUNCHES,
    # ncu 2024.2 --print-details all wrote launch 0 only (4,815 rows, every ID "0"): the file's own count
    "ncu-2024.2/micro_roof.details-all.csv.gz": 1,
}


def test_every_wild_file_is_covered() -> None:
    names = {p.relative_to(WILD).as_posix() for p in WILD.glob("*/*") if not p.name.endswith(".md")}
    summaries = {n for n in names if ".summary-" in n}
    others = {"public/edge_errperm_nodata.csv", "public/v100_summit_gene_dzv.ncu-rep.gz",
              "ncu-2024.2/micro_roof.session.csv.gz"}  # fmt: skip
    assert names == set(DOCUMENTED) | summaries | others


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_reads_with_its_documented_launch_count(name: str) -> None:
    path = WILD / name
    report = read_shared(path)
    assert len(report.launches) == DOCUMENTED[name] == len(launch_ids(path))
    got = {(str(p), str(i)) for p, i in report.launches[["process_id", "launch_id"]].itertuples(index=False)}
    assert got == launch_ids(path)
    assert (report.launches["invocations"] == 1).all()
    assert len(report.metrics) > 0 and report.metrics["value"].notna().any()


def test_ncu_rep_of_the_v100_report() -> None:
    pytest.importorskip("ncu_report")
    report = read_shared(PUBLIC / "v100_summit_gene_dzv.ncu-rep.gz")
    assert len(report.launches) == 4


def test_session_page_of_2024_2() -> None:
    s = read_shared(V24 / "micro_roof.session.csv.gz").session
    attrs = dict(zip(s["attribute"], s["value"], strict=False))
    assert attrs["display_name"] == "NVIDIA H200"


# ------------------------------------------------------------------------------------------- summary pages


def summary_groups(path: Path) -> list[tuple[str, ...]]:
    """One tuple per distinct group of the page (its columns before Section Name, or before Metric Name on the raw
    page's summary), with its Invocations last; rows cut by ncu 2024.2 (fewer fields than the header) are rejoined
    first by the page's own layout."""
    header, rows = records(path)
    si = header.index("Section Name" if "Section Name" in header else "Metric Name")
    inv = header.index("Invocations")
    fields = [f for r in rows for f in (r[:-1] if len(r) != len(header) and r[-1] == "" else r)]
    groups: dict[tuple[str, ...], None] = {}
    k = 0
    while k < len(fields):
        row = fields[k : k + len(header)]
        if row[si + 1 : si + 1 + 3] == row[:3]:  # identity and section only: a metric without data
            k += si + 1
            continue
        assert row[inv].isdigit(), row
        groups[(*row[:si], row[inv])] = None
        k += len(header)
    return list(groups)


@pytest.mark.parametrize(
    ("name", "groups", "invocations"),
    [
        ("ncu-2022.3/gene_dzv.summary-per-kernel.csv.gz", 1, 4),  # one kernel, 4 launches
        ("ncu-2022.3/gene_dzv.summary-per-nvtx.csv.gz", 4, 4),  # one per eRK stage range
        ("ncu-2024.2/micro_roof.summary-per-kernel.csv.gz", MICRO_KERNELS, MICRO_LAUNCHES),
        ("ncu-2024.2/micro_roof.summary-per-nvtx.csv.gz", MICRO_KERNELS, MICRO_LAUNCHES),
    ],
)
def test_summary_pages_give_one_row_per_group(name: str, groups: int, invocations: int) -> None:
    path = WILD / name
    report = read_shared(path)
    launches = report.launches
    expected = summary_groups(path)
    assert len(launches) == groups == len(expected)
    assert int(launches["invocations"].sum()) == invocations == sum(int(g[-1]) for g in expected)
    assert launches["invocations"].tolist() == [int(g[-1]) for g in expected]


def test_ncu_2024_2_summary_rows_without_their_metric_are_skipped_and_reported() -> None:
    path = V24 / "micro_roof.summary-per-kernel.csv.gz"
    header, rows = records(path)
    # ncu wrote 13 rows of 11 fields (10 and a lone comma) on a 15-column page: one per kernel group
    assert sum(1 for r in rows if len(r) == 11 and r[-1] == "") == MICRO_KERNELS
    report = read_shared(path)
    assert report.source["skipped_lines"].iloc[0] == MICRO_KERNELS
    assert "summary row without its metric" in report.source["skipped"].iloc[0]
    # the metric ncu wrote without data: the details page of the same report says "no data" for it
    details = read_shared(V24 / "micro_roof.details.csv.gz").metrics
    no_data = set(details.loc[details["text"] == "no data", "label"])
    assert "Local Memory Spilling Request Overhead" in no_data
    m = report.metrics
    assert not (m["label"] == "Local Memory Spilling Request Overhead").any()
    # every other row of the page is read: 15-column rows of the rejoined stream
    fields = sum(len(r) - (1 if len(r) == 11 else 0) for r in rows)
    assert len(m) * len(header) + MICRO_KERNELS * (header.index("Section Name") + 1) == fields


def test_summary_averages_equal_the_details_values() -> None:
    # Launches that ran once: the summary's Average is the details page's value (same report, same version).
    details = read_shared(V24 / "micro_roof.details.csv.gz")
    summary = read_shared(V24 / "micro_roof.summary-per-kernel.csv.gz")
    d = details.metrics.merge(details.launches[["launch_id", "kernel_name"]], on="launch_id")
    s = summary.metrics.merge(summary.launches[["launch_id", "kernel_name", "invocations"]], on="launch_id")
    s = s[s["invocations"] == 1]
    joined = s.merge(d, on=["kernel_name", "section", "label"], suffixes=("_s", "_d"))
    joined = joined[joined["value_d"].notna()]
    assert len(joined) > 500
    assert close_within_rounding(joined, "_s", "_d").all()


def test_nvtx_ranges_of_every_version_and_page() -> None:
    # 2022.3 details (push/pop column, thread id prefix) and per-NVTX summary (Domain + Range columns) of the
    # same report name the same 8-deep stacks, outermost first.
    details = read_shared(V22 / "gene_dzv.details-nvtx.csv.gz").launches
    summary = read_shared(V22 / "gene_dzv.summary-per-nvtx.csv.gz").launches
    header, rows = records(V22 / "gene_dzv.details-nvtx.csv.gz")
    col = header.index("thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg")
    # each quoted item is "<default domain>:<range>:<6 payload fields>"; the range is the second field
    by_id = {r[0]: "/".join(item.split(":")[1] for item in re.findall(r'"([^"]*)"', r[col])) for r in rows}
    assert details["nvtx_path"].tolist() == [by_id[str(i)] for i in details["launch_id"]]
    assert by_id["0"] == "GENE/gsub/timeloop/t_loop/eRK_standard/eRK_stage_1/CalFRhs0/dzv_ak"
    assert sorted(summary["nvtx_path"]) == sorted(by_id.values())
    # 2024.2: the ranges of the per-NVTX summary are those of the details page, kernel by kernel
    d24 = read_shared(V24 / "micro_roof.details.csv.gz").launches
    s24 = read_shared(V24 / "micro_roof.summary-per-nvtx.csv.gz").launches
    assert set(zip(s24["nvtx_path"], s24["kernel_name"], strict=True)) == set(
        zip(d24["nvtx_path"], d24["kernel_name"], strict=True)
    )
    assert set(s24["nvtx_path"]) == {"memory", "compute", "pathologies"}  # ../shared/ncu-samples/README.md


# ------------------------------------------------------------ the same report in ncu 2024.2 and 2025.3 exports


@pytest.mark.parametrize("flavour", ["details", "details-names"])
def test_2024_2_details_values_equal_2025_3(flavour: str) -> None:
    new = read_shared(data("micro_roof.details.csv")).metrics
    old = read_shared(V24 / f"micro_roof.{flavour}.csv.gz").metrics
    # labels (details) or names (details-names): join on the metric name where the label table knows it
    key = ["launch_id", "section", "label"] if flavour == "details" else ["launch_id", "metric"]
    joined = new.merge(old, on=key, suffixes=("_25", "_24"))
    joined = joined[joined["value_25"].notna()]
    assert joined["launch_id"].nunique() == MICRO_LAUNCHES
    assert len(joined) >= 0.9 * new["value"].notna().sum()
    ok = close_within_rounding(joined, "_25", "_24")
    assert ok.all(), joined.loc[~ok, [*key, "text_25", "unit_25", "text_24", "unit_24"]].head().to_string()


@pytest.mark.parametrize(
    ("details", "raw", "launches"),
    [
        ("micro_full.details-all.csv.gz", "micro_full.raw-base.csv.gz", MICRO_LAUNCHES),  # ncu 2025.3, H200
        # another report of that ncu: the labels source 4 of the table took from micro_full's pages hold here too
        ("llm_full.details-all.csv.gz", "llm_full.raw.csv.gz", 16),
        ("reexport/ncu-2024.2/micro_roof.details-all.csv.gz", "reexport/ncu-2024.2/micro_roof.raw-base.csv.gz", 1),
    ],
)
def test_every_label_of_a_print_details_all_page_means_its_metric(details: str, raw: str, launches: int) -> None:
    """Each label a --print-details all page prints outside the charts' body items (header metrics and the
    sections' Metrics blocks) is read as a metric whose value is the raw page's value of that metric in the same
    report, launch by launch: ncu's own numbers, never the reader's. (ncu 2024.2's export stops after launch 0.)
    The label table once read the Half chart's "Predicated-On HADD ... Per Cycle" as 2025.3's body-item
    ``..._x2`` (twice the value) and, from 2024.2's own section, "Max. Issued Slots Busy" as ``..._active``."""
    page = read_shared(DATA / details).metrics
    named = page[page["metric"].notna() & page["body_item"].isna() & page["value"].notna()]
    joined = named.merge(read_shared(DATA / raw).metrics, on=["launch_id", "metric"], suffixes=("_all", "_raw"))
    assert len(joined) == len(named), set(named["metric"]) - set(joined["metric"])  # every one is on the raw page
    assert joined["launch_id"].nunique() == launches
    ok = close_within_rounding(joined, "_all", "_raw")
    assert ok.all(), joined.loc[~ok, ["launch_id", "section_all", "label_all", "metric", "text_all", "text_raw"]]
    labels = set(zip(joined["section_all"], joined["label_all"], strict=True))
    assert ("GPU Speed Of Light Throughput", "Waves Per SM") in labels  # a Metrics-block label, 2022.3 on
    if launches > 1:
        assert len(labels) > 150
        assert {
            ("Memory Workload Analysis Tables", "L2 Hit Rate For Loads"),
            ("Memory Workload Analysis Tables", "Average Bytes Per Sector For Global Loads"),
            ("Source Counters", "stall_long_sb"),
            (
                "GPU Speed Of Light Hierarchical Roofline Chart (Half Precision)",
                "Predicated-On HADD Thread Instructions Executed Per Cycle",
            ),
        } <= labels


@pytest.mark.parametrize("flavour", ["raw", "raw-base"])
def test_2024_2_raw_values_equal_2025_3(flavour: str) -> None:
    # The 2024.2 raw page writes dimensionless rates as 1/cycle, 1/ns, 1/s and one percentage as "%/",
    # where 2025.3 leaves the unit empty or writes "%": read, every value equals 2025.3's.
    old = read_shared(V24 / f"micro_roof.{flavour}.csv.gz")
    assert pd.isna(old.source["not_understood"].iloc[0])
    units = set(records(V24 / "micro_roof.raw.csv.gz")[1][0])
    assert {"1/cycle", "1/ns", "1/s", "%/"} <= units
    new = read_shared(data("micro_roof.raw.csv")).metrics
    joined = new.merge(old.metrics, on=["launch_id", "metric"], suffixes=("_25", "_24"))
    joined = joined[joined["value_25"].notna()]
    assert joined["launch_id"].nunique() == MICRO_LAUNCHES
    assert joined["metric"].nunique() >= 0.95 * new.loc[new["value"].notna(), "metric"].nunique()
    ok = close_within_rounding(joined, "_25", "_24")
    assert ok.all(), joined.loc[~ok, ["launch_id", "metric", "text_25", "unit_25", "text_24", "unit_24"]].head()
    # one of them by hand: ncu 2025.3 prints 444,028,573,834,586.50 (no unit), 2024.2 prints 444028.573835 1/ns
    bf16 = joined["metric"] == "sm__ops_path_tensor_src_bf16_dst_fp32.sum.per_second"
    pick = joined[bf16 & (joined["launch_id"] == 8)]
    assert pick["text_25"].iloc[0] == "444,028,573,834,586.50"
    assert pick["value_24"].iloc[0] == pytest.approx(444_028_573_834_586.5, rel=1e-9)
    if flavour == "raw":
        assert pick["text_24"].iloc[0] == "444028.573835" and pick["unit_24"].iloc[0] == "1/ns"


def test_2022_3_raw_equals_the_2020_1_details_of_the_same_report() -> None:
    # v100_summit_gene_dzv.csv is ncu 2020.1's own export (12 columns, Kernel Time, --units base); the 2022.3
    # raw page is a re-export of the same .ncu-rep: the NERSC recipe metrics agree within print rounding.
    old = read_shared(PUBLIC / "v100_summit_gene_dzv.csv.gz").metrics
    new = read_shared(V22 / "gene_dzv.raw.csv.gz").metrics
    joined = old.merge(new, on=["launch_id", "metric"], suffixes=("_20", "_22"))
    assert "sm__sass_thread_inst_executed_op_dfma_pred_on.sum" in set(joined["metric"])
    assert len(joined) == len(old) == 20  # 5 metrics x 4 launches, every one found again
    assert close_within_rounding(joined, "_20", "_22").all()


# ------------------------------------------------------------------------------------------ ncu's own errors


def test_err_nvgpuctrperm_capture_says_what_ncu_said(tmp_path: Path) -> None:
    path = PUBLIC / "edge_errperm_nodata.csv"
    with pytest.raises(NcuError) as info:
        ncu_roofline.read(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:2: ncu could not read the GPU performance counters (ERR_NVGPUCTRPERM)")
    assert "https://developer.nvidia.com/ERR_NVGPUCTRPERM" in message
    assert info.value.exit_code == 3


def test_no_kernels_profiled(tmp_path: Path) -> None:
    text = text_of(PUBLIC / "edge_errperm_nodata.csv")
    no_error = "".join(ln for ln in text.splitlines(keepends=True) if "==ERROR==" not in ln)
    p = tmp_path / "capture.csv"
    p.write_text(no_error)
    with pytest.raises(NcuError, match=r"capture.csv:\d+: ncu profiled no kernel \('No kernels were profiled'\)"):
        ncu_roofline.read(p)
    # the same, glued to the end of the program's last line (no line break before ncu's message)
    lines = no_error.splitlines(keepends=True)
    glued = "".join(lines[:-2]) + lines[-2].rstrip("\n") + lines[-1]
    p.write_text(glued)
    with pytest.raises(NcuError, match="No kernels were profiled"):
        ncu_roofline.read(p)


def test_a_text_quoting_ncu_errors_is_no_capture(tmp_path: Path) -> None:
    """A README whose table quotes ncu's messages (``==ERROR== ERR_NVGPUCTRPERM``) is no ncu output: no header found
    (it was refused as a capture whose counters ncu could not read); a capture tagged by its launcher is one."""
    readme = tmp_path / "SOURCES.md"
    readme.write_text(
        "| file | what |\n|---|---|\n| `run.csv` | `==ERROR== ERR_NVGPUCTRPERM` (no permission), "
        "`==WARNING== No kernels were profiled.` |\n"
    )
    with pytest.raises(FormatError, match="no ncu CSV header found"):
        ncu_roofline.read(readme)
    tagged = tmp_path / "rank0.log"
    tagged.write_text("".join(f"0: {line}" for line in text_of(PUBLIC / "edge_errperm_nodata.csv").splitlines(True)))
    with pytest.raises(NcuError, match=r"rank0.log:2: ncu could not read the GPU performance counters"):
        ncu_roofline.read(tagged)


def test_other_ncu_error_is_quoted(tmp_path: Path) -> None:
    p = tmp_path / "capture.csv"
    p.write_text("==PROF== Connected to process 7 (/app)\nhello\n==ERROR== Failed to prepare kernel for profiling\n")
    with pytest.raises(NcuError, match=r":3: ncu reported an error and wrote no CSV: Failed to prepare kernel"):
        ncu_roofline.read(p)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("refused-option-2022.3.csv", "unrecognised option '--print-details'"),
        ("refused-page-2022.3.csv", "the argument for option '--page' is invalid"),
    ],
)
def test_ncu_2022_3_refusing_its_command_line_is_said(name: str, reason: str) -> None:
    """ncu 2022.3's own words on a command line it refuses, captured with ``2>&1`` (``--csv --page details
    --print-details all``, an option of 2023.1 on; ``--csv --page session``): no ``==ERROR==`` mark, the reason
    then "Use --help for further details." (it was "no ncu CSV header found")."""
    with pytest.raises(NcuError, match=rf":1: ncu refused its command line and wrote no CSV: {re.escape(reason)}"):
        ncu_roofline.read(DATA / "ncu-cli" / name)


@pytest.mark.parametrize("version", _ncu.VERSIONS)
def test_ncu_refusing_its_command_line_live_is_said(tmp_path: Path, version: str) -> None:
    """The real ncu of each version on an option it lacks, its output captured as a user's ``> page.csv 2>&1``
    does: 2022.3's unmarked reason or 2024.2's ``==ERROR==`` line is named, not "no ncu CSV header"."""
    ncu = _ncu.require_ncu(version)
    page = tmp_path / "page.csv"
    with page.open("wb") as out:
        done = subprocess.run(
            [str(ncu), "--csv", "--print-no-such-option", "-i", str(tmp_path / "r.ncu-rep")],
            stdout=out, stderr=subprocess.STDOUT, timeout=120, check=False,
        )  # fmt: skip
    assert done.returncode != 0
    with pytest.raises(NcuError, match=r"wrote no CSV: .*--print-no-such-option"):
        ncu_roofline.read(page)


def test_a_summary_with_body_tables_is_refused_as_what_it_is() -> None:
    """The real ncu 2024.2 on ``-i micro_roof.ncu-rep --csv --print-summary per-kernel --print-details all``
    (``ncu-cli/summary-details-all-2024.2.csv.gz``: ncu takes 17 s to print it): rows cut across lines (read again
    as one stream) and body tables whose labels repeat within a section (both pipe tables of Compute Workload
    Analysis have "ALU"). Refused, saying so; it was "two captures of one process appended into one file?", which
    it is not."""
    with pytest.raises(FormatError, match=r"has metric 'ALU' twice: ncu printed its sections' body tables") as info:
        ncu_roofline.read(data("ncu-cli/summary-details-all-2024.2.csv.gz"))
    assert "two captures" not in str(info.value)


# ------------------------------------------------------------- program output in any encoding, CRLF, glued lines

CP949 = "프로그램 출력: 완료, 결과 = 3\n".encode("cp949")


def test_cp949_program_output_around_and_inside_the_csv(tmp_path: Path) -> None:
    base = data("direct_details.stdout.csv").read_bytes()
    lines = base.splitlines(keepends=True)
    header = next(i for i, ln in enumerate(lines) if ln.startswith(b'"ID","Process ID"'))
    # before the CSV, after a record in the middle, and at the end (a line ending without a break)
    mixed = b"".join([CP949, *lines[: header + 5], CP949, *lines[header + 5 :], CP949.rstrip(b"\n")])
    p = tmp_path / "windows.csv"
    p.write_bytes(mixed)
    plain = read_shared(data("direct_details.stdout.csv"))
    report = ncu_roofline.read(p)
    assert len(report.launches) == len(plain.launches) == 16
    pd.testing.assert_series_equal(report.metrics["value"], plain.metrics["value"])
    assert report.source["skipped_lines"].iloc[0] == plain.source["skipped_lines"].iloc[0] + 3
    assert "not in UTF-8" in report.source["not_understood"].iloc[0]
    assert str(report.source["path"].iloc[0]) == str(p)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le"])
def test_powershell_utf16_capture(tmp_path: Path, encoding: str) -> None:
    # Windows PowerShell 5 redirects `ncu --csv ./app > out.csv` as UTF-16 (with a byte-order mark) and CRLF
    text = data("direct_details.stdout.csv").read_text()
    p = tmp_path / "ps.csv"
    p.write_bytes(text.replace("\n", "\r\n").encode(encoding))
    plain, report = read_shared(data("direct_details.stdout.csv")), ncu_roofline.read(p)
    assert len(report.launches) == len(plain.launches) == 16
    pd.testing.assert_series_equal(report.metrics["value"], plain.metrics["value"])
    assert report.source["skipped_lines"].iloc[0] == plain.source["skipped_lines"].iloc[0]


def test_crlf_capture_reads_the_same(tmp_path: Path) -> None:
    for name in ("direct_details.stdout.csv", "direct_summary.stdout.csv"):
        text = data(name).read_bytes()
        p = tmp_path / name
        p.write_bytes(text.replace(b"\n", b"\r\n"))
        a, b = read_shared(data(name)), ncu_roofline.read(p)
        assert len(a.launches) == len(b.launches) > 0
        pd.testing.assert_series_equal(a.metrics["value"], b.metrics["value"])
    # and an ncu 2024.2 summary page with its cut rows
    p = tmp_path / "summary.csv"
    p.write_bytes(text_of(V24 / "micro_roof.summary-per-kernel.csv.gz").replace("\n", "\r\n").encode())
    assert ncu_roofline.read(p).launches["invocations"].sum() == MICRO_LAUNCHES


def test_header_glued_to_program_output(tmp_path: Path) -> None:
    text = data("direct_details.stdout.csv").read_text()
    i = text.index('"ID","Process ID"')
    before = text[:i].rstrip("\n")  # the program's last line had no line break
    p = tmp_path / "glued.csv"
    p.write_text(before + "Done." + text[i:])
    plain = read_shared(data("direct_details.stdout.csv"))
    report = ncu_roofline.read(p)
    assert len(report.launches) == len(plain.launches) == 16
    # the program's last line, with the header glued to it, is still one skipped line of program output
    assert report.source["skipped_lines"].iloc[0] == plain.source["skipped_lines"].iloc[0]
    pd.testing.assert_series_equal(report.metrics["value"], plain.metrics["value"])


# ------------------------------------------------------------------- older layouts made from real exports


def test_derived_18_column_details_page(tmp_path: Path) -> None:
    # ncu 2022-2023: the 2025 layout without "Estimated Speedup Type/Estimated Speedup" (18 columns without
    # NVTX, as the A100 file of SOURCES.md; here with its rule rows), derived from a real 2025.3 export.
    rows = derive.rows(text_of(data("micro_roof.details.csv")))
    header = rows[0]
    a100 = records(PUBLIC / "a100_opinsight_pooling.csv.gz")[0]
    keep = [i for i, c in enumerate(header) if c in a100]
    assert [header[i] for i in keep] == a100
    vi = header.index("Metric Value")
    out = [[header[i] for i in keep]]
    for r in rows[1:]:  # metric rows stop after Metric Value (and a trailing comma), rule rows fill all 18
        out.append([r[i] for i in keep if i <= vi] if len(r) <= vi + 2 else [r[i] for i in keep])
    assert len(out[0]) == 18
    p = tmp_path / "eighteen.csv"
    p.write_text(derive.write(out, ragged_from=out[0].index("Metric Value") + 1))
    a, b = read_shared(data("micro_roof.details.csv")), ncu_roofline.read(p)
    assert len(b.launches) == len(a.launches) == MICRO_LAUNCHES
    assert len(b.rules) == len(a.rules) > 0
    pd.testing.assert_series_equal(a.metrics["value"], b.metrics["value"])


@pytest.mark.parametrize("trailing", [True, False])
def test_derived_2021_layout_kernel_time_with_rule_columns(tmp_path: Path, trailing: bool) -> None:
    # ncu 2021 (SOURCES.md): the 12 columns with "Kernel Time", then "Rule Name, Rule Type, Rule Description":
    # 15 columns, metric rows shorter than rule rows (with or without an empty field after the value).
    rows = derive.rows(text_of(data("micro_roof.details.csv")))
    header = rows[0]
    old = [*derive.LAYOUT_12, "Rule Name", "Rule Type", "Rule Description"]
    vi, mi = header.index("Metric Value"), header.index("Metric Name")
    out = [old]
    for r in rows[1:]:
        row = [("2021-Jun-01 10:00:00" if c == "Kernel Time" else (r[header.index(c)] if header.index(c) < len(r)
                else "")) for c in old]  # fmt: skip
        out.append(row[: old.index("Metric Value") + 1] if len(r) <= vi + 2 and r[mi] else row)
    p = tmp_path / "kernel-time-rules.csv"
    p.write_text(derive.write(out, ragged_from=old.index("Metric Value") + 1 if trailing else None))
    a, b = read_shared(data("micro_roof.details.csv")), ncu_roofline.read(p)
    assert len(b.launches) == len(a.launches) == MICRO_LAUNCHES
    assert len(b.rules) == len(a.rules) > 0
    pd.testing.assert_series_equal(a.metrics["value"], b.metrics["value"])
    assert b.launches["block_size"].isna().all()  # that layout has no launch shape


def test_per_gpu_summary_of_a_one_kernel_report(tmp_path: Path) -> None:
    # --print-summary per-gpu groups by device only; for a report of one kernel on one GPU (gene_dzv: 4 launches
    # of one kernel, SOURCES.md) its rows are the per-kernel page's without the kernel columns.
    header, rows = records(V22 / "gene_dzv.summary-per-kernel.csv.gz")
    keep = [i for i, c in enumerate(header) if c not in {"Process ID", "Process Name", "Host Name", "Kernel Name",
                                                         "Block Size", "Grid Size"}]  # fmt: skip
    p = tmp_path / "per-gpu.csv"
    p.write_text(derive.write([[r[i] for i in keep] for r in [header, *rows]]))
    per_gpu, per_kernel = ncu_roofline.read(p), read_shared(V22 / "gene_dzv.summary-per-kernel.csv.gz")
    assert len(per_gpu.launches) == 1 and int(per_gpu.launches["invocations"].iloc[0]) == 4
    pd.testing.assert_series_equal(per_gpu.metrics["value"], per_kernel.metrics["value"])


# ------------------------------------------------------------------------------ folders with stray files


def test_folder_with_a_stray_text_file(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ncu_roofline.cli import main

    folder = tmp_path / "run"
    folder.mkdir()
    shutil.copy(V24 / "micro_roof.raw.csv.gz", folder / "micro_roof.raw.csv.gz")
    (folder / "notes.txt").write_text("profiled on Tuesday, see the wiki\n")
    shutil.copy(PUBLIC / "edge_errperm_nodata.csv", folder / "failed.csv")
    result = CliRunner().invoke(main, [str(folder), "--format", "json"])
    assert result.exit_code == 0, result.output
    warnings = [ln for ln in result.stderr.splitlines() if "warning: skipped" in ln]
    assert len(warnings) == 2
    assert any("notes.txt: no ncu CSV header found" in w for w in warnings)
    assert any("failed.csv:2: ncu could not read the GPU performance counters" in w or
               "failed.csv: ncu could not read" in w for w in warnings)  # fmt: skip
    doc = __import__("json").loads(result.stdout)
    assert len(doc["launches"]) == MICRO_LAUNCHES
    # the stray file named explicitly is still an error (exit 3), and so is the failed capture
    named = CliRunner().invoke(main, [str(folder / "notes.txt"), "--format", "json"])
    assert named.exit_code == 3 and "no ncu CSV header found" in named.stderr
    failed = CliRunner().invoke(main, [str(folder / "failed.csv"), "--format", "json"])
    assert failed.exit_code == 3
    assert "ncu could not read the GPU performance counters (ERR_NVGPUCTRPERM)" in failed.stderr
    assert len(failed.stderr.strip().splitlines()) == 1
    # a folder where nothing is an export: the first file's own error
    (folder / "micro_roof.raw.csv.gz").unlink()
    empty = CliRunner().invoke(main, [str(folder), "--format", "json"])
    assert empty.exit_code == 3 and "ERR_NVGPUCTRPERM" in empty.stderr


def test_folder_of_job_logs_reads_the_ncu_output_they_hold(tmp_path: Path) -> None:
    """ncu's output kept as a batch job's log (``ncu ./app > run.log``, ``slurm-123.out``) is found in a folder
    like a ``.csv`` or ``.txt`` export; a compiled program beside them (``a.out``) is skipped with a warning."""
    from click.testing import CliRunner

    from ncu_roofline.cli import main

    folder = tmp_path / "jobs"
    folder.mkdir()
    with gzip.open(DATA / "micro_full.details.txt.gz", "rb") as page:  # ncu's page without --csv
        (folder / "run.log").write_bytes(page.read())
    shutil.copy(DATA / "direct_details.stdout.csv", folder / "slurm-7.out")  # ncu --csv ./app > slurm-7.out
    shutil.copy(sys.executable, folder / "a.out")  # a compiled program
    result = CliRunner().invoke(main, [str(folder), "--format", "json"])
    assert result.exit_code == 0, result.output
    warnings = [ln for ln in result.stderr.splitlines() if "warning: skipped" in ln]
    assert len(warnings) == 1 and "a.out" in warnings[0]
    doc = __import__("json").loads(result.stdout)
    assert sorted(s["report"] for s in doc["sources"]) == ["run", "slurm-7"]  # named without .log and .out
    assert {s["flavour"] for s in doc["sources"]} == {"text", "details"}
    assert len(doc["launches"]) == 2 * MICRO_LAUNCHES


def test_gzip_errors_name_the_file_given(tmp_path: Path) -> None:
    p = tmp_path / "capture.csv.gz"
    p.write_bytes(gzip.compress(text_of(PUBLIC / "edge_errperm_nodata.csv").encode()))
    with pytest.raises(NcuError) as info:
        ncu_roofline.read(p)
    assert str(info.value).startswith(f"{p}:2: ")


# ---------------------------------------------------------------------------------------------------- units


def units_of(path: Path) -> set[str]:
    """Every unit a CSV export writes: its ``Metric Unit`` column, or a raw page's units row."""
    header, rows = records(path)
    if "Invocations" in header:  # a summary page: only its whole rows (ncu 2024.2 cuts some across lines)
        n = header.index("Section Name") + 1
        rows = [r for r in rows if len(r) == len(header) and r[0] == rows[0][0] and r[n] != r[0]]
    if "Metric Unit" in header:
        i = header.index("Metric Unit")
        return {r[i] for r in rows if len(r) > i and r[i]}
    return {u for u in rows[0] if u}  # raw page: the row after the header


REAL_EXPORTS = sorted(
    p
    for p in [*DATA.glob("*.csv*"), *WILD.glob("*/*.csv*")]
    if "session" not in p.name and "edge_" not in p.name and "direct_" not in p.name
)


def test_every_unit_of_every_real_export_is_understood() -> None:
    from ncu_roofline.units import unit_or_none

    seen: set[str] = set()
    for path in REAL_EXPORTS:
        seen |= units_of(path)
    assert {"1/cycle", "1/ns", "1/s", "%/", "%/register", "%/Kbyte", "cycle/second", "inst"} <= seen
    assert sorted(u for u in seen if unit_or_none(u) is None) == []
    for path in REAL_EXPORTS:
        said = read_shared(path).source["not_understood"].iloc[0]
        assert pd.isna(said) or "unit '" not in said, (path, said)


@pytest.mark.parametrize(
    ("unit", "factor", "base"),
    [
        # per nanosecond is 1e9 per second: 2024.2's "444028.573835 1/ns" is 2025.3's 444,028,573,834,586.50
        ("1/ns", 1e9, "1/s"),
        ("1/cycle", 1.0, "1/cycle"),
        ("1/s", 1.0, "1/s"),
        ("%/", 1.0, "%"),  # 2024.2's derived__pct_occupancy_per_block_size, "%" in 2025.3 with the same values
        ("nsecond", 1e-9, "s"),  # ncu 2020-2022 spellings
        ("usecond", 1e-6, "s"),
        ("cycle/second", 1.0, "hz"),  # the V100 file of SOURCES.md: 1,311,197,574.27 cycle/second
        ("cycle/nsecond", 1e9, "hz"),
        ("Gbyte/second", 1e9, "byte/s"),
        ("%/register", 1.0, "%/register"),
        ("%/Kbyte", 1e3, "%/byte"),  # ncu scales the number (README: 2.614 %/Kbyte = 2,614 %/byte)
        ("byte/1", 1.0, "byte"),  # ncu --query-metrics
    ],
)
def test_units_ncu_prints(unit: str, factor: float, base: str) -> None:
    from ncu_roofline.units import parse_unit

    parsed = parse_unit(unit)
    assert parsed.factor == factor and parsed.base == base


def test_export_skips_a_folders_stray_file(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ncu_roofline.cli import main

    folder = tmp_path / "run"
    folder.mkdir()
    shutil.copy(V22 / "gene_dzv.raw.csv.gz", folder / "gene_dzv.raw.csv.gz")
    (folder / "notes.txt").write_text("profiled on Tuesday\n")
    out = tmp_path / "dataset"
    result = CliRunner().invoke(main, ["export", str(folder), "--parquet", str(out), "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "warning: skipped" in result.stderr and "notes.txt" in result.stderr
    assert "exported 1 of 2 reports (4 launches)" in result.stderr
    # named explicitly, the stray file fails the export (exit 3)
    named = CliRunner().invoke(main, ["export", str(folder / "notes.txt"), "--parquet", str(tmp_path / "d2")])
    assert named.exit_code == 3


# ------------------------------------------- every flavour ncu 2022.3 and 2024.2 write (tools/reexport_ncu_rep.py)

REEXPORT = DATA / "reexport"
REEXPORTS = sorted(p.relative_to(REEXPORT).as_posix() for p in REEXPORT.glob("*/*.csv.gz"))


@pytest.mark.parametrize("name", REEXPORTS)
def test_every_reexported_flavour_reads(name: str) -> None:
    path = REEXPORT / name
    if ".source-" in name:  # --page source: SASS lines, no metrics per launch
        with pytest.raises(ncu_roofline.FormatError, match="source page"):
            ncu_roofline.read(path)
        return
    if ".session" in name:
        assert len(read_shared(path).session) > 0
        return
    _header, rows = records(path)
    if not rows:  # ncu 2024.2 --print-details body of the V100 report: the header and nothing else
        with pytest.raises(ncu_roofline.ParseError, match="header but no rows"):
            ncu_roofline.read(path)
        return
    report = read_shared(path)
    if ".summary-" in name or ".raw-summary-" in name:
        groups = summary_groups(path)
        assert len(report.launches) == len(groups)
        assert report.launches["invocations"].tolist() == [int(g[-1]) for g in groups]
        assert int(report.launches["invocations"].sum()) == (4 if "gene_dzv" in name else MICRO_LAUNCHES)
    else:
        assert len(report.launches) == len(launch_ids(path))
        # ncu 2024.2's --print-details all/body of micro_roof stop after launch 0 (every ID "0")
        truncated = name.startswith("ncu-2024.2/micro_roof.details-") and ("-all" in name or "-body" in name)
        assert len(report.launches) == (4 if "gene_dzv" in name else 1 if truncated else MICRO_LAUNCHES)
    said = report.source["not_understood"].iloc[0]
    assert pd.isna(said) or "unit '" not in said, said


@pytest.mark.parametrize(
    ("name", "raw_name"),
    [
        ("ncu-2024.2/micro_roof.raw-summary-per-kernel.csv.gz", "ncu-2024.2/micro_roof.raw.csv.gz"),
        ("ncu-2024.2/micro_roof.raw-summary-per-nvtx.csv.gz", "ncu-2024.2/micro_roof.raw.csv.gz"),
        ("ncu-2022.3/gene_dzv.raw-summary-per-kernel.csv.gz", "ncu-2022.3/gene_dzv.raw.csv.gz"),
        ("ncu-2024.2/gene_dzv.raw-summary-per-kernel.csv.gz", "ncu-2024.2/gene_dzv.raw.csv.gz"),
    ],
)
def test_the_raw_pages_summary_is_the_raw_page_per_group(name: str, raw_name: str) -> None:
    """``--page raw --print-summary per-kernel|per-nvtx``: no Section Name, every metric by name, each group's
    minimum, maximum and average. A group of one launch has the raw page's values (ncu's own numbers on both
    pages), a group of several their average; the verdicts and the GPU time are the raw page's."""
    page, raw = read_shared(REEXPORT / name), read_shared(REEXPORT / raw_name)
    assert "Section Name" not in records(REEXPORT / name)[0]
    assert page.launches["invocations"].sum() == len(raw.launches)
    said = page.source["not_understood"].iloc[0]
    assert pd.isna(said) or "not understood" not in said, said
    m = page.metrics
    assert m["section"].isna().all() and m["metric"].notna().all()
    # the kernels' groups against the raw page's launches: one launch per group on both samples' single kernels
    summary = analyze(page).quantities.reset_index()
    full = analyze(raw)
    by_kernel = raw.launches.groupby("kernel_name")
    for row, launch in zip(summary.itertuples(), page.launches.itertuples(), strict=True):
        launches = by_kernel.get_group(launch.kernel_name)
        if "nvtx" not in name:
            assert launch.invocations == len(launches)
        q = full.quantities.reset_index().set_index("launch_id").loc[launches["launch_id"]]
        checked = []
        for quantity in ("duration", "dram_bytes", "sm_count", "grid_size"):
            if quantity in q.columns and q[quantity].notna().all():
                # the average over the group's launches, as ncu prints it (up to 6 significant digits)
                assert getattr(row, quantity) == pytest.approx(q[quantity].mean(), rel=1e-5), (quantity, launch)
                checked.append(quantity)
        assert "duration" in checked and len(checked) >= 2, checked
    if "micro_roof" in name:
        verdicts = analyze(page).verdicts.reset_index()
        names = page.launches.set_index("launch_id")["kernel_name"]
        raw_verdicts = full.verdicts.reset_index().merge(raw.launches[["launch_id", "kernel_name"]])
        expected = raw_verdicts.drop_duplicates("kernel_name").set_index("kernel_name")["limiter"]
        got = verdicts.set_index(verdicts["launch_id"].map(names))["limiter"]
        assert got.groupby(level=0).first().to_dict() == expected.to_dict()


@pytest.mark.parametrize(
    "flavour", ["details-base", "details-fp", "details-function", "details-mangled", "details-nvtx-rename"]
)
def test_every_2024_2_details_flavour_equals_2025_3(flavour: str) -> None:
    new = read_shared(data("micro_roof.details.csv")).metrics
    old = read_shared(REEXPORT / "ncu-2024.2" / f"micro_roof.{flavour}.csv.gz").metrics
    joined = new.merge(old, on=["launch_id", "section", "label"], suffixes=("_25", "_24"))
    joined = joined[joined["value_25"].notna()]
    assert joined["launch_id"].nunique() == MICRO_LAUNCHES
    assert len(joined) >= 0.9 * new["value"].notna().sum()
    assert close_within_rounding(joined, "_25", "_24").all()


@pytest.mark.parametrize("flavour", ["raw-fp", "raw-instances", "raw-instance-details", "details-label-names"])
def test_every_2024_2_name_flavour_equals_2025_3(flavour: str) -> None:
    new = read_shared(data("micro_roof.raw.csv")).metrics
    old = read_shared(REEXPORT / "ncu-2024.2" / f"micro_roof.{flavour}.csv.gz").metrics
    joined = new.merge(old, on=["launch_id", "metric"], suffixes=("_25", "_24"))
    joined = joined[joined["value_25"].notna() & joined["value_24"].notna()]
    assert joined["launch_id"].nunique() == MICRO_LAUNCHES
    assert len(joined) > 500
    ok = close_within_rounding(joined, "_25", "_24")
    assert ok.all(), joined.loc[~ok, ["launch_id", "metric", "text_25", "unit_25", "text_24", "unit_24"]].head()


@pytest.mark.parametrize("report", ["micro_roof", "gene_dzv"])
def test_mangled_kernel_names_are_shown_as_the_demangled_export_shows_them(report: str) -> None:
    # ncu 2024.2 wrote the same report with --print-kernel-base mangled and with its default (demangled) names
    mangled = read_shared(REEXPORT / "ncu-2024.2" / f"{report}.details-mangled.csv.gz").launches
    plain = read_shared(REEXPORT / "ncu-2024.2" / f"{report}.details.csv.gz").launches
    assert mangled["kernel_name"].str.startswith("_Z").all()  # the names stay as exported
    assert not plain["kernel_name"].str.startswith("_Z").any()
    assert mangled["display_name"].tolist() == plain["display_name"].tolist()
    assert mangled["display_name"].nunique() == {"micro_roof": 13, "gene_dzv": 1}[report]  # the kernels built
    # and a diff of the two pairs every launch by that name
    d = compare(
        analyze(read_shared(REEXPORT / "ncu-2024.2" / f"{report}.details.csv.gz")),
        analyze(read_shared(REEXPORT / "ncu-2024.2" / f"{report}.details-mangled.csv.gz")),
    )
    assert d.unmatched.empty
    assert set(d.match_counts()) == {"short-name"}


def test_a_name_that_is_not_mangled_is_left_as_it_is() -> None:
    assert demangled("_Z12stream_triadP6float4PKS_S2_fm") == (
        "stream_triad(float4*, float4 const*, float4 const*, float, unsigned long)"
    )
    assert demangled("_Zbad") is None and display_name("_Zbad") == "_Zbad"
    assert demangled("stream_triad") is None
    assert display_name("_Z_not a name") == "_Z_not a name"


@pytest.mark.parametrize(
    "name",
    ["micro_full.details-all.csv", "llm_full.details-all.csv", "reexport/ncu-2024.2/micro_roof.details-all.csv.gz"],
)
def test_the_tensor_charts_tables_are_recognised_and_their_series_are_the_charts_points(name: str) -> None:
    # A --print-details all page prints the Tensor Core chart's tables: six rows per series under one label
    # ("Op:hmma Src:bf16 Dst:fp32 Sparsity:off"), told apart by their order only, and rows per source type. Not
    # read, and not "not understood" either (55 of micro_full's 55 such labels were): every series of the tables
    # is one of the chart's points, which give its figures by name (ncu's own file says so).
    report = read_shared(DATA / name if name.startswith("reexport") else data(name))
    m = report.metrics
    tensor = m[m["section"].astype(str).str.contains("Tensor Core", regex=False)]
    labels = tensor["label"].astype(str)
    table = tensor[tensor["body_item"].isna() & labels.str.match(TENSOR_TABLE_LABEL.pattern)]
    assert len(table) > 100 and table["metric"].isna().all()
    series = set(table["label"].astype(str)[table["label"].astype(str).str.startswith("Op:")])
    points = set(tensor["body_item"].dropna().astype(str).str.extract(r"\((Op:[^)]*)\)$")[0].dropna())
    assert len(series) >= 20 and series <= points
    said = report.source["not_understood"].iloc[0]
    assert pd.isna(said) or "Tensor Core" not in said, said


#: Columns of the source view that ncu 2025.3 prints and 2024.2's section file does not define.
SOURCE_VIEW_2025 = {"Avg. Predicated-On Threads Unexecuted", "Derivative Avg. Predicated-On Threads Executed"}


@pytest.mark.parametrize("name", ["micro_full.details-all.csv", "llm_full.details-all.csv"])
def test_the_source_views_columns_are_recognised(name: str) -> None:
    # A --print-details all page prints the Source Counters section's source-view columns once per launch
    # ("L1 Wavefronts Shared Ideal", "Address Space", "# Samples", a stall reason each): per-instruction figures
    # the analysis does not read, and not "not understood" either (22 of micro_full's 27 such labels were).
    # Each is a column of the section file's SourceMetrics (real ncu 2024.2's file), but two 2025.3 added; those
    # its Metrics block lists under a plain name (Instructions Executed: inst_executed, Address Space:
    # memory_type ...) are read as those metrics, the rest are recognised and not read.
    ncu = _ncu.require_ncu("2024.2")
    text = (_ncu.stock_section_folder(ncu) / "SourceCounters.section").read_text()
    columns = set(re.findall(r'Label: "([^"]*)"', text[text.index("SourceMetrics {") :]))
    report = read_shared(data(name))
    m = report.metrics
    source = m[(m["section"].astype(str) == "Source Counters") & m["body_item"].isna()]
    unread = set(source.loc[source["metric"].isna(), "label"].dropna().astype(str))
    read = set(source.loc[source["metric"].notna(), "label"].astype(str))
    assert len(unread) >= 8 and unread <= columns | SOURCE_VIEW_2025
    assert {"Branch Efficiency", "Instructions Executed", "Address Space"} <= read  # its header, Metrics block
    # nothing else is left not understood either (5 labels of 2025.3's Metrics blocks were: test_labels.py)
    assert pd.isna(report.source["not_understood"].iloc[0])


def test_a_page_without_a_cc_column_takes_the_launches_cc_from_their_device_attributes() -> None:
    """ncu 2019.5-2022 pages have no CC column; a raw page carries each launch's compute capability as device
    attributes (the V100: 7.0), so the launches get it there; a page's own CC column is kept."""
    from click.testing import CliRunner

    from ncu_roofline.cli import main

    old = ncu_roofline.read(V22 / "gene_dzv.raw.csv.gz")
    assert "cc" not in pd.read_csv(V22 / "gene_dzv.raw.csv.gz", nrows=0).columns.str.lower()
    assert old.launches["cc"].tolist() == ["7.0"] * 4
    assert set(read_shared(data("micro_full.raw.csv")).launches["cc"]) == {"9.0"}
    # two GPUs in one run: each named with its own CC
    both = [str(data("micro_full.raw.csv")), str(V22 / "gene_dzv.raw.csv.gz"), "--format", "text"]
    first = CliRunner().invoke(main, both).stdout.splitlines()[1]
    assert first.startswith("NVIDIA H200 (CC 9.0), Tesla V100-SXM2-16GB (CC 7.0) · 20 launches of 14 kernels")


def test_small_grids_of_a_page_without_its_sm_count_take_the_count_its_waves_imply() -> None:
    """The A100 details page (ncu 2022-2023) carries no SM count; its waves imply 108 (``implied_sm_count``), the
    number ncu's own rule rows give ("less than the GPU's 108 multiprocessors"). Each launch ncu's rule says runs
    N blocks on those 108 gets our small-grid hint of N blocks for 108 SMs (1 - N / 108 of them idle), not "every
    SM has a block" (said of a 1-block grid while the count was unknown)."""
    from conftest import analysed

    path = PUBLIC / "a100_opinsight_pooling.csv.gz"
    a = analysed(path)
    said = re.compile(r"execute only (\d+) blocks, which is less than the GPU's (\d+) multiprocessors")
    rules = a.report.rules
    ncu = {}
    for row in rules.itertuples():
        m = said.search(str(row.description))
        if m:
            ncu[int(row.launch_id)] = (int(m.group(1)), int(m.group(2)))
    assert ncu and {sms for _, sms in ncu.values()} == {108}
    h = a.hints[a.hints["hint"] == "small_grid"]
    ours = {int(r.launch_id): str(r.message) for r in h.itertuples()}
    for launch, (blocks, sms) in ncu.items():
        noun = "block" if blocks == 1 else "blocks"
        assert ours[launch].startswith(f"{blocks} {noun} for {sms} SMs: {1 - blocks / sms:.0%} of the SMs"), launch
    assert not any("every SM has a block" in m for launch, m in ours.items() if launch in ncu)
