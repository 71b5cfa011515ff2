"""Bad input: one precise message (file, line, what was expected) through the project's own exceptions.

Every damaged file is made from a real export, the way files get damaged in practice.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import re
import shutil
import sys
import zipfile
from pathlib import Path
from typing import Any

import derive
import pandas as pd
import pytest
from conftest import DATA, data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ncu_roofline
from ncu_roofline.errors import DuplicateLaunchError, FormatError, InputError, ParseError, UnitError
from ncu_roofline.io.records import Fallback

DETAILS = data("micro_full.details.csv").read_text()
RAW = data("micro_full.raw.csv").read_text()
LINES = DETAILS.splitlines(keepends=True)


def write(tmp_path: Path, text: str | bytes, name: str = "report.csv") -> Path:
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text)
    return p


def expect(exc: type[Exception], path: Path, pattern: str, line: int | None = None) -> InputError:
    with pytest.raises(exc) as info:
        ncu_roofline.read(path)
    err = info.value
    assert isinstance(err, InputError)
    message = str(err)
    assert "\n" not in message, message
    assert message.startswith(str(path)), message
    assert re.search(pattern, message), message
    if line is not None:
        assert err.line == line, message
        assert f"{path}:{line}:" in message
    return err


def test_missing_file(tmp_path: Path) -> None:
    expect(InputError, tmp_path / "nope.csv", "no such file")


def test_directory(tmp_path: Path) -> None:
    # a folder is read as the command line reads it (every export under it); one without any is an error, and a
    # file found there that is not an export is one too (the command line skips it with a warning)
    with pytest.raises(InputError, match="folder without ncu exports"):
        ncu_roofline.read(tmp_path)
    (tmp_path / "notes.csv").write_text("hello\n", encoding="utf-8")
    expect(FormatError, tmp_path / "notes.csv", "no ncu CSV header found")
    with pytest.raises(FormatError, match=r"notes\.csv: no ncu CSV header found"):
        ncu_roofline.read(tmp_path)


def test_a_folder_or_a_pattern_reads_what_the_command_line_reads(tmp_path: Path) -> None:
    for name in ("micro_full.raw.csv", "micro_metrics.raw.csv"):
        shutil.copy(data(name), tmp_path / name)
    series = pd.Series([str(tmp_path / "micro_full.raw.csv"), str(tmp_path / "micro_metrics.raw.csv")])  # of paths
    for paths in (
        tmp_path,
        str(tmp_path / "*.raw.csv"),
        [tmp_path / "micro_full.raw.csv", str(tmp_path / "m*")],
        series,
    ):
        assert ncu_roofline.read(paths).source["report"].tolist() == ["micro_full.raw", "micro_metrics.raw"]


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.open("rb"), r"an open file or stream \(BufferedReader\): pass its path"),
        (lambda p: io.StringIO(p.read_text()), r"an open file or stream \(StringIO\)"),
        (lambda p: p.read_bytes(), "bytes: write them to a file"),
        (pd.read_csv, "a pandas DataFrame: pass the path of the export it was read from"),
        (lambda p: [p, 3], "a list holding int$"),
    ],
    ids=["binary file", "text in memory", "bytes", "frame", "list with a number"],
)
def test_what_is_not_a_path_is_refused_saying_what_it_is(make: Any, said: str) -> None:
    # each was taken as paths (a file's lines, a frame's column names) and failed on the first: "File name too long"
    # (OSError), "cannot be told apart from another input by its name", a TypeError
    with pytest.raises(InputError, match=r"^<input>: read\(\) takes the path of an export, or several; got " + said):
        ncu_roofline.read(make(data("micro_full.raw.csv")))


def test_empty_file(tmp_path: Path) -> None:
    expect(FormatError, write(tmp_path, ""), "empty file")
    expect(FormatError, write(tmp_path, "\n\n  \n", "blank.csv"), "empty file")


def test_header_only(tmp_path: Path) -> None:
    expect(ParseError, write(tmp_path, LINES[0]), "header but no rows", line=1)
    raw_head = "".join(RAW.splitlines(keepends=True)[:2])
    expect(ParseError, write(tmp_path, raw_head, "raw.csv"), "header but no launch rows", line=1)


def test_csv_not_from_ncu(tmp_path: Path) -> None:
    expect(FormatError, write(tmp_path, "name,value\nfoo,1\nbar,2\n"), "no ncu CSV header found")
    expect(FormatError, write(tmp_path, '"a","b"\n"1","2"\n', "quoted.csv"), "no ncu CSV header found")


def test_binary_garbage(tmp_path: Path) -> None:
    expect(FormatError, write(tmp_path, bytes(range(256)) * 40), "binary data", line=1)
    nul = "".join(LINES[:4]) + "\x00" + "".join(LINES[4:])  # a NUL byte at the start of line 5
    expect(FormatError, write(tmp_path, nul, "nul.csv"), "binary data", line=5)
    expect(FormatError, write(tmp_path, b"\xff\xfe" + "ID,x".encode("utf-16-le"), "utf16.csv"), "no ncu CSV header")
    expect(FormatError, write(tmp_path, b'"ID","Process ID"\n\xc3\x28\n', "bad-utf8.csv"), "1 line.s. are not UTF-8")


def _zipped(page: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("report.csv", page)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("pack", "what"),
    [
        (_zipped, "a zip archive"),
        (lzma.compress, "xz-compressed data"),
        (bz2.compress, "bzip2-compressed data"),
    ],
)
def test_an_export_in_an_archive_other_than_gzip_is_named_as_such(tmp_path: Path, pack: Any, what: str) -> None:
    # (gzip is read as it is; these say what they are and what to do, not "binary data")
    packed = write(tmp_path, pack(data("micro_full.details.csv").read_bytes()), "report.packed")
    expect(FormatError, packed, f"{what}, not an ncu export: extract the export and read it")
    # a text whose first letters are those of bzip2's magic is no archive
    expect(FormatError, write(tmp_path, "BZh hello\n", "bzh.csv"), "no ncu CSV header")


def test_file_cut_in_the_middle_of_a_row(tmp_path: Path) -> None:
    cut = DETAILS[: len(DETAILS) - 150]  # the last rule row, cut inside its description
    last_line = cut.count("\n") + 1
    pattern = r"fields( and an unclosed quote)?, expected 18 \(metric row\) or 22 \(rule row\).*cut short"
    expect(ParseError, write(tmp_path, cut), pattern, line=last_line)
    # cut inside a metric row, in the middle of a quoted field
    n = len(LINES) // 2
    text = "".join(LINES[:n]) + LINES[n][:40]
    expect(ParseError, write(tmp_path, text, "cut2.csv"), "unclosed quote, expected.*cut short", line=n + 1)


def test_row_with_wrong_number_of_fields_in_the_middle(tmp_path: Path) -> None:
    n = 700
    fields = next(csv.reader([LINES[n - 1]]))
    broken = ",".join('"' + f.replace('"', '""') + '"' for f in fields[:10]) + "\n"
    text = "".join(LINES[: n - 1]) + broken + "".join(LINES[n:])
    expect(ParseError, write(tmp_path, text), "row has 10 fields, expected 18", line=n)
    # one field too many
    extra = LINES[n - 1].rstrip("\n") + '"junk",\n'
    text = "".join(LINES[: n - 1]) + extra + "".join(LINES[n:])
    expect(ParseError, write(tmp_path, text, "extra.csv"), "fields, expected", line=n)


def test_unknown_unit_is_kept_as_text_and_listed(tmp_path: Path) -> None:
    # A unit the reader does not know never refuses a file: the cell keeps its text, has no value, and the
    # source names the unit and the line that first uses it.
    text = DETAILS.replace('"Duration","us","189.41"', '"Duration","furlong/fortnight","189.41"', 1)
    r = ncu_roofline.read(write(tmp_path, text))
    m = r.metrics
    cell = m[(m["unit"] == "furlong/fortnight")]
    assert len(cell) == 1 and cell["text"].iloc[0] == "189.41" and cell["value"].isna().all()
    assert "unit 'furlong/fortnight' (line 7)" in r.source["not_understood"].iloc[0]
    assert len(r.launches) == 16  # nothing else lost
    raw_lines = RAW.splitlines(keepends=True)
    header, units = next(csv.reader([raw_lines[0]])), next(csv.reader([raw_lines[1]]))
    column = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
    units[header.index(column)] = "Qbyte"
    raw_lines[1] = ",".join(f'"{u}"' for u in units) + "\n"
    r = ncu_roofline.read(write(tmp_path, "".join(raw_lines), "raw.csv"))
    assert f"unit 'Qbyte' (line 2, column '{column}')" in r.source["not_understood"].iloc[0]
    values = r.metrics[r.metrics["metric"] == column]
    assert len(values) == 16 and values["value"].isna().all() and values["text"].notna().all()


def test_non_integer_launch_id(tmp_path: Path) -> None:
    text = DETAILS.replace('"3","663"', '"x3","663"', 1)
    line = text[: text.index('"x3","663"')].count("\n") + 1
    expect(ParseError, write(tmp_path, text), "ID 'x3' is not an integer", line=line)  # (the line, not only the cell)


@pytest.mark.parametrize("key", ["-8", "8x"])
def test_a_launch_id_of_a_late_row_that_is_no_key_is_named_by_its_line(tmp_path: Path, key: str) -> None:
    """One row of launch 8 (line 801) with its ID damaged: a negative number read as launch -8, a launch of one
    metric (it was: 17 launches), or text; refused either way, at that line."""
    lines = list(LINES)
    assert lines[800].startswith('"8","663"')
    lines[800] = f'"{key}"' + lines[800][len('"8"') :]
    what = "is not an integer of 0 or more" if key.startswith("-") else "is not an integer"
    expect(ParseError, write(tmp_path, "".join(lines)), f"ID '{key}' {what}", line=801)


def test_same_launch_id_in_two_processes_is_two_launches(tmp_path: Path) -> None:
    # The same IDs from a second process (e.g. two reports concatenated): both kept, keyed by process.
    body = "".join(LINES[1:]).replace('","663","', '","664","')
    r = ncu_roofline.read(write(tmp_path, DETAILS + body))
    assert len(r.launches) == 32
    assert r.launches.groupby("process_id").size().to_dict() == {663: 16, 664: 16}
    assert r.values.shape[0] == 32


def test_duplicate_launch_key_with_two_identities(tmp_path: Path) -> None:
    # ID 0 of process 663 claimed by two different kernels: refuse rather than merge them.
    extra = "".join(LINES[1:3]).replace("stream_triad", "other_kernel")
    # the line of the first row that gives the other identity: the first appended one
    expect(
        DuplicateLaunchError,
        write(tmp_path, DETAILS + extra),
        "launch ID 0 of process 663 appears with two",
        line=len(LINES) + 1,
    )
    raw_lines = RAW.splitlines(keepends=True)
    expect(  # the second row of the launch: the one appended
        DuplicateLaunchError,
        write(tmp_path, RAW + raw_lines[2], "raw.csv"),
        "launch ID 0 of process 663 has 2 rows",
        line=len(raw_lines) + 1,
    )


#: The first lines of ncu's pages without --csv, cut short before a metric table (ncu 2024.2 re-exporting
#: micro_roof.ncu-rep; whole, they are read: tests/test_textpage.py).
TEXT_PAGES = {
    "details": "[663] microbench@127.0.0.1\n  k (1, 1, 1)x(32, 1, 1)\n    Section: GPU Speed Of Light Throughput\n",
    "summary-per-nvtx": (
        "\n== NVTX State ==\n<default domain>\n  <compute>\n  fp32_fma(float *, int, float, float) (2112, 1, 1)"
        "x(256, 1, 1), Device 0, CC 9.0, Invocations 1\n    Section: Compute Workload Analysis\n"
    ),
}


@pytest.mark.parametrize("page", list(TEXT_PAGES))
def test_human_readable_page(tmp_path: Path, page: str) -> None:
    expect(FormatError, write(tmp_path, TEXT_PAGES[page], "page.txt"), "human-readable page")


def test_only_prof_lines(tmp_path: Path) -> None:
    text = "==PROF== Connected to process 1 (/app)\n==PROF== Disconnected from process 1\n"
    expect(FormatError, write(tmp_path, text), "only ncu messages")


@pytest.mark.parametrize(
    ("log", "launches", "line", "report"),
    [
        ("micro_full.log", 16, 26, "/tmp/ncuwork/micro/micro_full.ncu-rep"),
        ("train_step.log.gz", 382, 387, "/tmp/w4/train/train_step.ncu-rep"),  # "- 0 (1/400):" (--launch-count)
    ],
)
def test_run_log_names_the_report_it_saved(log: str, launches: int, line: int, report: str) -> None:
    # What ncu printed while it profiled with -o: its messages and the program's output, no page.
    err = expect(FormatError, data(log), f"ncu's log of a run \\({launches} launches profiled\\)", line=line)
    assert f"saved its results to {report} and printed no page" in str(err)
    assert f"'ncu -i {report} --csv --page details > details.csv'" in str(err)


def test_run_log_without_its_report_line(tmp_path: Path) -> None:
    lines = data("micro_full.log").read_text().splitlines()
    text = "\n".join(line for line in lines if "==PROF== Report:" not in line) + "\n"
    expect(FormatError, write(tmp_path, text, "run.log"), r"\(16 launches profiled\) with no page of their results")


def test_truncated_gzip(tmp_path: Path) -> None:
    gz = data("micro_full.summary-per-kernel.csv").read_bytes()
    expect(FormatError, write(tmp_path, gz[: len(gz) // 2], "s.csv.gz"), "damaged gzip")


def test_ncu_rep_without_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ncu_report", None)  # as if the extra were not installed
    with pytest.raises(ncu_roofline.MissingExtraError, match=r"pip install 'ncu-roofline\[ncu-rep\]'"):
        ncu_roofline.read(write(tmp_path, b"NVR\x00" + b"\x00" * 64, "r.ncu-rep"))


def test_damaged_ncu_rep(tmp_path: Path) -> None:
    pytest.importorskip("ncu_report")
    expect(FormatError, write(tmp_path, b"NVR\x00" + b"\x07" * 4096, "r.ncu-rep"), "cannot load|no profiled kernels")


# ----------------------------------------------------------------------------- property-based: never a stray error

SMALL = "".join(LINES[:200])


@st.composite
def mutated(draw: st.DrawFn, base: str | None = None) -> str:
    text = SMALL if base is None else base
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "replace", "truncate", "dupline", "dropline", "swapquote"]))
        pos = draw(st.integers(0, max(0, len(text) - 1)))
        if kind == "delete":
            n = draw(st.integers(1, 50))
            text = text[:pos] + text[pos + n :]
        elif kind == "insert":
            junk = draw(st.text(alphabet=st.sampled_from(list('",\n\r;x0.9 %/=PROF')), max_size=20))
            text = text[:pos] + junk + text[pos:]
        elif kind == "replace":
            text = text[:pos] + draw(st.sampled_from(['"', ",", "\n", "x", "1,0", "n/a", ""])) + text[pos + 1 :]
        elif kind == "truncate":
            text = text[:pos]
        else:
            lines = text.splitlines(keepends=True)
            if len(lines) < 2:
                continue
            i = draw(st.integers(1, len(lines) - 1))
            if kind == "dupline":
                lines.insert(i, lines[i])
            elif kind == "dropline":
                del lines[i]
            else:
                lines[i] = lines[i].replace('"', "", 1)
            text = "".join(lines)
    return text


def read_or_one_line_error(path: Path, text: str) -> ncu_roofline.Report | None:
    """Write ``text`` to ``path`` and read it: the Report, or None where the reader raised one of our errors,
    which must be one line."""
    path.write_text(text)
    try:
        return ncu_roofline.read(path)
    except ncu_roofline.NcuRooflineError as exc:
        assert "\n" not in str(exc)
        return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mutated())
def test_mutated_exports_read_or_raise_our_error(tmp_path: Path, text: str) -> None:
    r = read_or_one_line_error(tmp_path / "mutated.csv", text)
    if r is None:
        return
    # Read: then nothing was lost silently. Every launch ID in the text that looks like a record is a launch,
    # and whatever was not read as a record is listed in source.skipped.
    # (an ID with a group separator, "1,0", is launch 10: the reader reads keys as ncu groups numbers)
    ids = {int(m.group(1).replace(",", "")) for m in re.finditer(r'^"(\d[\d,]*)","663"', text, flags=re.M)}
    assert set(r.launches["launch_id"].astype(int)) <= ids
    skipped = int(r.source["skipped_lines"].iloc[0])
    records = len(r.metrics) + len(r.rules)
    # Every line is accounted for: the header, a record, or a reported skipped line. (A stray carriage return
    # may split a line in two: count lines both ways.)
    by_newline = [ln for ln in text.split("\n") if ln.strip()]
    by_any_break = [ln for ln in text.splitlines() if ln.strip()]
    # A header glued to program output before it ("0"ID","Process ID",...) is read, and the program output
    # before it is listed as skipped: two entries for that line.
    glued = sum(1 for ln in by_newline if not ln.lstrip().startswith('"') and '"ID","Process ID"' in ln)
    assert len(by_newline) <= 1 + records + skipped - glued <= len(by_any_break)


SUMMARY_2024 = gzip.decompress((DATA / "wild" / "ncu-2024.2" / "micro_roof.summary-per-kernel.csv.gz").read_bytes())
SUMMARY_SMALL = "".join(SUMMARY_2024.decode().splitlines(keepends=True)[:120])  # two groups, two cut runs


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mutated(SUMMARY_SMALL))
def test_mutated_2024_2_summary_pages_read_or_raise_our_error(tmp_path: Path, text: str) -> None:
    # ncu 2024.2's summary page with its rows cut across lines: damage on top of that is still one of our errors
    r = read_or_one_line_error(tmp_path / "summary.csv", text)
    if r is None:
        return
    assert int(r.launches["invocations"].sum()) >= len(r.launches)


def _first_lines(path: Path, n: int) -> str:
    """The first ``n`` lines of a gzip-compressed page."""
    return "".join(gzip.decompress(path.read_bytes()).decode().splitlines(keepends=True)[:n])


TEXT_SMALL = _first_lines(data("micro_full.details.txt"), 420)
#: The pages ncu 2024.2 printed of micro_roof without --csv.
TEXT_2024 = DATA / "reexport" / "ncu-2024.2"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    raw=mutated(_first_lines(TEXT_2024 / "micro_roof.text-raw.txt.gz", 400)),
    summary=mutated(_first_lines(TEXT_2024 / "micro_roof.text-summary-per-kernel.txt.gz", 120)),
    nvtx=mutated(_first_lines(TEXT_2024 / "gene_dzv.text-summary-per-nvtx.txt.gz", 90)),
    all_=mutated(_first_lines(TEXT_2024 / "micro_roof.text-all.txt.gz", 700)),
    session=mutated(_first_lines(TEXT_2024 / "micro_roof.text-session.txt.gz", 60)),
)
def test_mutated_raw_summary_body_and_session_text_pages_read_or_raise_our_error(
    tmp_path: Path, raw: str, summary: str, nvtx: str, all_: str, session: str
) -> None:
    read_or_one_line_error(tmp_path / "raw.txt", raw)
    read_or_one_line_error(tmp_path / "summary.txt", summary)
    read_or_one_line_error(tmp_path / "nvtx.txt", nvtx)  # the per-NVTX summary
    read_or_one_line_error(tmp_path / "all.txt", all_)  # --print-details all: body items
    read_or_one_line_error(tmp_path / "session.txt", session)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mutated(TEXT_SMALL))
def test_mutated_text_pages_read_or_raise_our_error(tmp_path: Path, text: str) -> None:
    # ncu's human-readable page (two launches), damaged: read, or one of our errors; never more launches than it
    # has launch lines
    r = read_or_one_line_error(tmp_path / "page.txt", text)
    if r is None:
        return
    assert len(r.launches) <= sum(1 for line in text.splitlines() if "Context 1, Stream 7" in line)


@pytest.mark.parametrize("name", ["micro_full.raw.csv", "micro_full.details.csv"])
def test_a_negative_duration_is_refused(tmp_path: Path, name: str) -> None:
    """A duration cell made negative (damaged or edited) would subtract from every sum of GPU time ("HBM -32.5 %
    -4.96 ms" in the summary): refused, naming the launch (stream_triad, launch 0, 189.41 us)."""
    lines = data(name).read_text().splitlines(keepends=True)
    rows = list(csv.reader(lines))
    header = rows[0]
    if "raw" in name:
        at, col = 2, header.index("gpu__time_duration.sum")  # launch 0's row, under the units row
    else:
        at = next(i for i, r in enumerate(rows) if r[header.index("Metric Name")] == "Duration")
        col = header.index("Metric Value")
    assert rows[at][0] == "0" and float(rows[at][col]) > 0
    rows[at][col] = "-" + rows[at][col]
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(rows[at])
    lines[at] = out.getvalue()
    path = tmp_path / name
    path.write_text("".join(lines))
    with pytest.raises(ncu_roofline.ParseError, match=r"launch ID 0 of process \d+ \(stream_triad.*duration is -") as e:
        ncu_roofline.read(path)
    assert "\n" not in str(e.value)
    assert e.value.line == at + 1  # the line of the cell made negative (lines count from 1)


@pytest.mark.parametrize(
    ("sep", "says"),
    [("'", "LC_ALL=C"), ("\u2019", "LC_ALL=C")]
    + [(space, "no other number has a decimal comma") for space in (" ", "\u00a0", "\u202f")],
)
def test_numbers_grouped_by_an_apostrophe_or_a_space_among_decimal_points_are_named(
    tmp_path: Path, sep: str, says: str
) -> None:
    """de_CH's apostrophe between digit groups, which no ncu export shows, and a space (a comma-decimal locale's:
    sv_SE, fr_FR) in a page of decimal points ('1,234.5'): each such cell read as no number (273 cells of a page
    in that locale) would leave the analysis without them, silently: refused, naming the line and the cell."""
    text = data("micro_full.details.csv").read_text()
    lines = text.splitlines(keepends=True)
    at = next(i for i, t in enumerate(lines) if '"370,890"' in t)  # stream_triad's Elapsed Cycles
    path = tmp_path / "grouped.csv"
    path.write_text(text.replace('"370,890"', f'"370{sep}890"', 1))
    with pytest.raises(ncu_roofline.ParseError, match=f"grouped by {re.escape(repr(sep))}") as e:
        ncu_roofline.read(path)
    assert f"grouped.csv:{at + 1}:" in str(e.value) and says in str(e.value)


def test_a_space_grouped_number_among_whole_numbers_is_refused(tmp_path: Path) -> None:
    """A page of whole numbers ("524,288": 524288, or 524.288 with a decimal comma) with one cell grouped by a
    space: that cell says nothing of the others' style, and reading the page as sv_SE's turned every comma into a
    decimal mark (524,288 -> 524.288, silently); refused naming the cell's line."""
    raw = derive.raw_rows(data("micro_metrics.raw.csv"))
    page = derive.picked(raw, ["device__attribute_l2_cache_size", "launch__grid_size"], tmp_path / "whole.raw.csv")
    rows = derive.rows(page.read_text())
    i = rows[0].index("launch__grid_size")
    assert rows[2][i] == "1,056" and rows[2][i - 1] == "62,914,560"  # stream_triad's grid, the H200's L2 bytes
    rows[2][i] = "1 056"
    page.write_text(derive.write(rows))
    with pytest.raises(ncu_roofline.ParseError, match=r"'1 056'.*no other number has a decimal comma") as e:
        ncu_roofline.read(page)
    assert "whole.raw.csv:3:" in str(e.value)


def test_a_record_longer_than_the_readers_block_is_named(tmp_path: Path) -> None:
    """A 17 MiB field (no ncu cell is that long: a damaged quote, or another file glued in) gave pyarrow's
    "straddling object straddles two block boundaries (try to increase block size?)"; now the line and what it is."""
    lines = data("micro_full.raw.csv").read_text().splitlines(keepends=True)
    row = next(csv.reader([lines[2]]))
    row[4] = "k" * (17 << 20)
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(row)
    lines[2] = out.getvalue()
    path = tmp_path / "long.csv"
    path.write_text("".join(lines))
    with pytest.raises(ncu_roofline.ParseError, match=r"long\.csv:3: a record longer than 4 MiB"):
        ncu_roofline.read(path)


def _summary_columns(tmp_path: Path, edit: Any) -> Path:
    """The H200 sample's per-kernel summary page with its columns edited (``edit``: header list -> header list of
    the columns kept, by name; a name may be renamed by ``(old, new)``)."""
    rows = list(
        csv.reader(io.StringIO(gzip.decompress(data("micro_full.summary-per-kernel.csv").read_bytes()).decode()))
    )
    picks = edit(rows[0])
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow([p[1] if isinstance(p, tuple) else p for p in picks])
    at = [rows[0].index(p[0] if isinstance(p, tuple) else p) for p in picks]
    w.writerows([r[i] for i in at] for r in rows[1:])
    return write(tmp_path, out.getvalue(), "summary.csv")


def test_a_summary_page_with_a_column_twice_or_without_one_is_refused(tmp_path: Path) -> None:
    # each was an internal error (KeyError: 'Field "Average" exists 2 times in schema'; 'Field "Kernel Name" does
    # not exist'); a page of one kernel without its name is read (test_wild: a per-GPU page's shape)
    twice = _summary_columns(tmp_path, lambda h: [*h, "Average"])
    expect(FormatError, twice, r"header repeats column\(s\) \['Average'\]", line=1)
    unnamed = _summary_columns(tmp_path, lambda h: [c for c in h if c != "Kernel Name"])
    expect(FormatError, unnamed, r"summary page without column\(s\) \['Kernel Name'\], and a group has metric", line=1)


def test_a_summary_page_of_labels_without_its_section_column_is_refused(tmp_path: Path) -> None:
    # "Section Name" renamed: the page was taken for the raw page's summary (metrics by name) and each section
    # for a kernel group: 13 kernels as 176 launches, none with a duration
    renamed = _summary_columns(
        tmp_path, lambda h: [("Section Name", "Section NamX") if c == "Section Name" else c for c in h]
    )
    expect(FormatError, renamed, r"without column\(s\) \['Section Name'\]: its metric names are labels", line=1)


def test_a_summary_page_cut_after_a_section_name_is_cut_short(tmp_path: Path) -> None:
    # ncu 2024.2 ends a row after its Section Name where a metric has no data, and goes on on the next line: such a
    # row at the end of a file cut mid-line (no line break) was taken for one and the page read as whole
    page = DATA / "reexport/ncu-2024.2/micro_roof.summary-per-kernel.csv.gz"
    lines = gzip.decompress(page.read_bytes()).decode().splitlines()
    fields = next(csv.reader([lines[-1]]))
    cut = ",".join(f'"{f}"' for f in fields[:10]) + ","  # the last row up to its Section Name ("Occupancy")
    assert fields[9] == "Occupancy"
    expect(ParseError, write(tmp_path, "\n".join([*lines[:-1], cut])), "the file is cut short", line=len(lines))
    whole = write(tmp_path, "\n".join([*lines[:-1], cut, lines[-1]]) + "\n", "whole.csv")  # ncu's row of no data
    a, b = (ncu_roofline.read(p).values.reset_index("report", drop=True) for p in (whole, page))
    assert a.equals(b)


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "careful"])
def test_a_unit_of_another_kind_than_its_metric_is_refused(tmp_path: Path, streamed: bool, monkeypatch: Any) -> None:
    # DRAM Throughput (a percentage) in Gbyte: read as its unit said, 86.58 "Gbyte" was 86,580,000 % of the DRAM
    # roof and every launch HBM-bound; the line that shows it is named
    if not streamed:
        from ncu_roofline.io import details

        monkeypatch.setattr(details, "_read_streamed", lambda *a, **k: (_ for _ in ()).throw(Fallback("test")))
    text = data("micro_full.details.csv").read_text()
    edited = text.replace('"DRAM Throughput","%","86.58"', '"DRAM Throughput","Gbyte","86.58"', 1)
    assert edited != text
    err = expect(
        UnitError, write(tmp_path, edited), r"unit 'Gbyte' for DRAM Throughput \(\S+\): expected a percentage", line=6
    )
    assert err.column == "Metric Unit"


@pytest.mark.parametrize(
    ("metric", "kind"),
    [
        ("gpu__time_duration.sum", "a time"),
        ("dram__bytes.sum.per_second", "a rate per second"),
        ("dram__bytes_read.sum", "bytes"),
    ],
)
def test_a_raw_column_in_a_unit_of_another_kind_is_refused(tmp_path: Path, metric: str, kind: str) -> None:
    # gpu__time_duration.sum in Gbyte was a duration of 1.9e17 ns; the raw page names the column and its units row
    rows = list(csv.reader(io.StringIO(data("micro_full.raw.csv").read_text())))
    rows[1][rows[0].index(metric)] = "Gbyte/cycle" if kind == "bytes" else "Gbyte"
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    err = expect(UnitError, write(tmp_path, out.getvalue()), f"unit '.*': expected {kind}$", line=2)
    assert err.column == metric


def test_units_ncu_writes_its_own_way_are_taken() -> None:
    # ncu's own spellings of the checked counters' units pass (ms, usecond, Ghz, cycle/nsecond, Tbyte/s, Kbyte, %,
    # peaks per cycle), and counters ncu writes in an odd unit are not checked
    from ncu_roofline.units import parse_unit, unit_misfit

    fits = [("gpu__time_duration.sum", "usecond"), ("gpu__time_duration.sum", "ms"),
            ("sm__cycles_elapsed.avg.per_second", "Ghz"), ("dram__cycles_elapsed.avg.per_second", "cycle/nsecond"),
            ("dram__bytes.sum.per_second", "Tbyte/s"), ("dram__bytes.sum", "Kbyte"),
            ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "%"),
            ("dram__bytes.sum.peak_sustained", "Kbyte/cycle"), ("sm__cycles_elapsed.avg", "cycle"),
            ("lts__d_decomp_input_sectors.avg.pct_of_peak_sustained_elapsed", "sector"),
            ("derived__lts__lts2xbar_bytes.sum.per_second", "Tbyte")]  # fmt: skip
    assert [m for m, u in fits if unit_misfit(m, parse_unit(u).base)] == []


def test_a_negative_throughput_or_byte_rate_is_refused(tmp_path: Path) -> None:
    # none of the counters verdicts are made of is negative: a DRAM byte rate of -5 Tbyte/s made a launch's DRAM
    # roof fraction -1.04, a Memory Throughput of -5 % a utilisation of -0.05; the launch and metric are named
    rows = list(csv.reader(io.StringIO(data("micro_full.raw.csv").read_text())))
    rows[3][rows[0].index("dram__bytes.sum.per_second")] = "-5"  # launch 1 (strided_read)
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    said = (
        r"launch ID 1 of process 663 \(strided_read.*\): dram__bytes.sum.per_second is -5e\+12 \(expected zero or more"
    )
    expect(ParseError, write(tmp_path, out.getvalue()), said)
    text = data("micro_full.details.csv").read_text()
    edited = text.replace('"Memory Throughput","%","86.58"', '"Memory Throughput","%","-5"', 1)
    assert edited != text
    said = r"launch ID 0 .*: gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed is -5 \(expected zero"
    expect(ParseError, write(tmp_path, edited, "details.csv"), said)


def test_a_launch_shape_beyond_an_integer_is_not_measured(tmp_path: Path) -> None:
    # a page whose launch lines carry no shape takes Launch Statistics'; a block size of 1e30 was an internal error
    # ("cannot safely cast non-equivalent float64 to int64"), 1e999 one too before it was no number
    from ncu_roofline.analysis import analyze

    rows = list(csv.reader(io.StringIO(data("micro_full.raw.csv").read_text())))
    header = rows[0]
    rows[2][header.index("Block Size")] = ""
    rows[2][header.index("launch__block_size")] = "1e30"
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    a = analyze(ncu_roofline.read(write(tmp_path, out.getvalue())))
    assert a.launches["block_size"].isna().iloc[0] and a.launches["block_size"].notna().iloc[1:].all()


def test_a_launch_id_grouped_otherwise_than_by_three_is_no_integer(tmp_path: Path) -> None:
    # "1,0,2,4" (a damaged cell) was launch 1024; "1,024" is ncu's own grouping of 1024
    rows = list(csv.reader(io.StringIO(data("micro_full.raw.csv").read_text())))
    rows[3][0] = "1,0,2,4"
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    expect(ParseError, write(tmp_path, out.getvalue()), r"ID '1,0,2,4' is not an integer")
    rows[3][0] = "1,024"
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    assert 1024 in ncu_roofline.read(write(tmp_path, out.getvalue(), "grouped.csv")).launches["launch_id"].tolist()


def test_a_summary_rows_invocations_grouped_otherwise_than_by_three_is_refused(tmp_path: Path) -> None:
    # "1,2" (a damaged cell) was 12 launches of the group, its GPU time counted 12 times
    page = _summary_columns(tmp_path, lambda h: h)
    text = page.read_text()
    first = text.splitlines()[1]
    fields = next(csv.reader([first]))
    at = next(csv.reader([text.splitlines()[0]])).index("Invocations")
    fields[at] = "1,2"
    edited = text.replace(first, ",".join(f'"{f}"' for f in fields), 1)
    expect(ParseError, write(tmp_path, edited, "bad.csv"), r"Invocations '1,2' is not a count of launches", line=2)


@pytest.mark.parametrize("fmt", ["html", "json", "markdown"])
def test_a_report_this_tool_wrote_is_named_as_such(tmp_path: Path, fmt: str) -> None:
    # a page written next to its input (gene_dzv.raw.merged.roofline.html in a folder of exports) was "no ncu CSV
    # header found", as if it were some other file
    from click.testing import CliRunner

    from ncu_roofline.cli import main

    out = tmp_path / f"report.roofline.{fmt}"
    r = CliRunner().invoke(main, [str(data("micro_full.raw.csv")), "--format", fmt, "-o", str(out), "-q"])
    assert r.exit_code == 0, r.output
    expect(FormatError, out, "^.*: a report ncu-roofline wrote, not an ncu export: give the export it was made from$")


def test_a_line_that_opens_a_quote_is_named(tmp_path: Path) -> None:
    """A line of garbage that opens a quote (a byte-damaged line, program output) joins the next lines into one
    field in a CSV parse: the error names the line that opened it."""
    text = "".join(LINES[:9]) + '"8","663","micro\n' + "".join(LINES[9:])
    expect(ParseError, write(tmp_path, text), "line break inside", line=10)


def test_a_summary_row_written_twice_is_named(tmp_path: Path) -> None:
    """A summary page whose group has a metric twice (two captures appended): refused at the second row."""
    lines = gzip.decompress(data("micro_full.summary-per-kernel.csv.gz").read_bytes()).decode().splitlines(True)
    text = "".join(lines[:5]) + lines[4] + "".join(lines[5:])  # line 5 again, as line 6
    expect(FormatError, write(tmp_path, text, "summary.csv"), "has metric .* twice", line=6)


def test_numbers_in_two_styles_are_named(tmp_path: Path) -> None:
    """A page of '3.20' (a decimal point) with one cell '3,25' (a decimal comma): two locales, refused at the
    cell that disagrees, both shown."""
    at = next(i for i, line in enumerate(LINES) if '"DRAM Frequency","Ghz","3.20"' in line)
    lines = list(LINES)
    lines[at] = lines[at].replace('"3.20"', '"3,25"')
    expect(ParseError, write(tmp_path, "".join(lines)), r"numbers in two styles \('[^']+' and '3,25'\)", line=at + 1)


def test_a_duration_beyond_float64_in_ns_is_refused_without_numpy_warnings(tmp_path: Path) -> None:
    """Duration "1e307" us: a number, but 1e310 ns overflows; it was read as no duration (null GPU time, no note),
    with numpy's overflow warnings and their source lines printed."""
    import warnings

    cell = '"Duration","us","189.41"'
    assert DETAILS.count(cell) == 1
    path = write(tmp_path, DETAILS.replace(cell, '"Duration","us","1e307"'))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        expect(ParseError, path, r"launch ID 0 of process 663 .*its duration in ns is beyond 1e308")


@pytest.mark.parametrize("edit", ["another count", "zero"])
def test_a_summary_groups_invocations_must_be_one_count_of_one_or_more(tmp_path: Path, edit: str) -> None:
    """ncu repeats a group's Invocations on each of its rows. One row with another count (the group's GPU time was
    counted as the last row's: 5 taken where the rows said 4 and 5), or a count of 0 (a group of metrics measured
    on no launch), is damage: refused."""
    page = _summary_columns(tmp_path, lambda h: h)
    lines = page.read_text().splitlines(keepends=True)
    header = next(csv.reader([lines[0]]))
    at = header.index("Invocations")
    rows = [next(csv.reader([t])) for t in lines[1:]]
    group = [i for i, r in enumerate(rows) if r[:at] == rows[0][:at]]  # the first group's rows
    assert len(group) > 2 and len({rows[i][at] for i in group}) == 1
    count = rows[0][at]
    new = str(int(count) + 1) if edit == "another count" else "0"
    target = group[1] if edit == "another count" else 0
    rows[target][at] = new
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows([header, *rows])
    path = write(tmp_path, out.getvalue(), "bad.csv")
    if edit == "another count":
        expect(ParseError, path, rf"gives Invocations '{count}' on one row and '{new}' on another")
    else:
        expect(ParseError, path, r"Invocations '0' is not a count of launches", line=2)


@pytest.mark.parametrize("edit", ["minimum above maximum", "average above maximum"])
def test_a_summary_rows_average_outside_its_minimum_and_maximum_is_not_measured_and_said(
    tmp_path: Path, edit: str
) -> None:
    """ncu's Minimum, Maximum and Average of a group's metric are figures over its launches in the row's one unit:
    ``Minimum <= Average <= Maximum`` on all 50,000 rows of the summary pages in ../shared. A row where it fails is
    damaged, and which of its cells is not known: its Average is not measured, and said with its line (it was
    read as measured)."""
    page = _summary_columns(tmp_path, lambda h: h)
    lines = page.read_text().splitlines(keepends=True)
    header = next(csv.reader([lines[0]]))
    low, high, mean = (header.index(c) for c in ("Minimum", "Maximum", "Average"))
    rows = [next(csv.reader([t])) for t in lines[1:]]
    at = next(i for i, r in enumerate(rows) if r[header.index("Metric Name")] == "Duration")
    row = rows[at]
    assert 0 < float(row[low]) <= float(row[mean]) <= float(row[high]), row
    if edit == "minimum above maximum":
        row[low] = str(float(row[high]) * 2)
    else:
        row[mean] = str(float(row[high]) * 2)
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows([header, *rows])
    path = write(tmp_path, out.getvalue(), "bad.csv")
    report = ncu_roofline.read(path)
    note = report.source["not_understood"].iloc[0]
    assert (
        "1 metric row whose Average is not between its Minimum and Maximum (damaged?), not measured: Duration "
        f"{row[mean]!r} beside {row[low]!r} to {row[high]!r} (line {at + 2})"
    ) in note
    cells = report.metrics
    duration = cells[cells["label"] == "Duration"]
    assert duration["value"].isna().sum() == 1
    assert duration["value"].notna().sum() == len(duration) - 1
    assert ncu_roofline.read(_summary_columns(tmp_path, lambda h: h)).source["not_understood"].isna().all()


@pytest.mark.parametrize("extra", ['"x"', "x"])
def test_a_metric_row_with_a_value_after_metric_value_is_refused_at_its_line(tmp_path: Path, extra: str) -> None:
    """ncu ends a metric row of its ragged layout with one empty field after Metric Value; a row with something
    there is damaged, refused naming its line (the error named none)."""
    lines = list(LINES)
    assert lines[7].endswith('",\n')
    lines[7] = lines[7].rstrip("\n") + extra + "\n"
    expect(ParseError, write(tmp_path, "".join(lines)), r"a metric row has a value after 'Metric Value' \('x'", line=8)
