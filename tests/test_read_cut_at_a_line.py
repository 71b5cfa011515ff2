"""A details page cut at a line break (``head -n``, a copy stopped between lines): no field count shows it, so the
reader compares the last launch with the launch of its kernel before it; where the last one's metric rows are the
first of the other's, the page may be cut short, and ``source.not_understood`` and the command line say so. Built
from the real H200 details page (``micro_full.details.csv``: launches 14 and 15 are one kernel); the golden
counts are the page's own rows, counted here."""

from __future__ import annotations

import csv
import io
from html import escape as html_escape
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import data

import ncu_roofline
from ncu_roofline import cli
from ncu_roofline.analysis import analyze
from ncu_roofline.diff import compare
from ncu_roofline.report.html import render_html
from ncu_roofline.report.viewmodel import build_view
from ncu_roofline.vocabulary import CUT_SHORT

SOURCE = "micro_full.details.csv"


def _fields(line: str) -> list[str]:
    return next(csv.reader(io.StringIO(line)))


def page() -> tuple[list[str], list[int], dict[int, int]]:
    """The page's lines, each record's launch ID (-1 for the header) and each launch's metric row count."""
    lines = data(SOURCE).read_text().splitlines()
    header = _fields(lines[0])
    name = header.index("Metric Name")
    launch = [-1] + [int(_fields(line)[0]) for line in lines[1:]]
    metric_rows: dict[int, int] = {}
    for line, lid in zip(lines[1:], launch[1:], strict=True):
        if _fields(line)[name]:
            metric_rows[lid] = metric_rows.get(lid, 0) + 1
    return lines, launch, metric_rows


def cut(tmp_path: Path, keep_of_last: int, *, padded: bool = False, within: int = 15) -> Path:
    """The page up to the ``keep_of_last``-th metric row of launch ``within`` (the last, 15, by default), cut after
    that line's break. ``padded``: metric rows filled to the header's width, as ncu 2021 wrote them (the careful
    reader's page)."""
    lines, launch, _rows = page()
    header = _fields(lines[0])
    name, value = header.index("Metric Name"), header.index("Metric Value")
    out, seen = [lines[0]], 0
    for line, lid in zip(lines[1:], launch[1:], strict=True):
        fields = _fields(line)
        if lid > within:
            break
        if lid == within and fields[name]:
            if seen == keep_of_last:
                break
            seen += 1
        if padded and fields[name]:
            fields = fields[: value + 1] + [""] * (len(header) - value - 1)
            out.append(",".join('"' + f.replace('"', '""') + '"' for f in fields))
        else:
            out.append(line)
    path = tmp_path / f"cut-{within}-{keep_of_last}{'-padded' if padded else ''}.csv"
    path.write_text("\n".join(out) + "\n")
    return path


@pytest.mark.parametrize("padded", [False, True], ids=["ragged", "padded"])
@pytest.mark.parametrize("keep", [1, 40])
def test_a_last_launch_cut_at_a_line_is_said(tmp_path: Path, keep: int, padded: bool) -> None:
    _lines, _launch, rows = page()
    assert rows[14] == rows[15]  # one kernel, the same sections
    report = ncu_roofline.read(cut(tmp_path, keep, padded=padded))
    assert len(report.launches) == 16  # the cut launch is read, with what it has
    note = report.source["not_understood"].iloc[0]
    assert (
        f"{CUT_SHORT}: its last launch (ID 15 of process 663) ends after {keep} of the {rows[14]} metric rows of "
        "launch ID 14 of its kernel"
    ) in note


@pytest.mark.parametrize("padded", [False, True], ids=["ragged", "padded"])
def test_a_kernels_only_launch_cut_is_compared_with_the_launch_before_it(tmp_path: Path, padded: bool) -> None:
    """Cut inside launch 1 (strided_read, no launch of its kernel before it): compared with launch 0, another
    kernel's, whose rows are the same labels (every launch's in the real pages)."""
    _lines, _launch, rows = page()
    assert rows[0] == rows[1]
    report = ncu_roofline.read(cut(tmp_path, 30, padded=padded, within=1))
    assert len(report.launches) == 2
    assert report.warnings[0].endswith(
        f"{CUT_SHORT}: its last launch (ID 1 of process 663) ends after 30 of the {rows[0]} metric rows of launch "
        "ID 0 before it; 2 launches read"
    )


def test_a_page_cut_between_launches_is_not_said(tmp_path: Path) -> None:
    """Cut after launch 14's rows (before 15's first metric row): nothing tells it from a page of 15 launches."""
    report = ncu_roofline.read(cut(tmp_path, 0))
    assert len(report.launches) == 15
    assert report.source["not_understood"].isna().all()


def test_the_whole_page_is_not_said_to_be_cut() -> None:
    assert ncu_roofline.read(data(SOURCE)).source["not_understood"].isna().all()


def test_the_command_line_warns_of_a_cut_at_a_line(tmp_path: Path) -> None:
    _lines, _launch, rows = page()
    path = cut(tmp_path, 40)
    r = CliRunner().invoke(cli.main, [str(path), "--format", "json", "-o", str(tmp_path / "out.json")])
    assert r.exit_code == 0
    assert [w for w in r.stderr.splitlines() if "warning:" in w] == [
        f"ncu-roofline: warning: {path}: {CUT_SHORT}: its last launch (ID 15 of process 663) ends after 40 of the "
        f"{rows[14]} metric rows of launch ID 14 of its kernel; 16 launches read"
    ]


def test_the_html_report_shows_what_the_command_line_warns_of(tmp_path: Path) -> None:
    """The report people share carries the warning too: a page cut short at the top of the page; none on a whole
    page."""
    _lines, _launch, rows = page()
    path = cut(tmp_path, 40)
    said = f"{path}: {CUT_SHORT}: its last launch (ID 15 of process 663) ends after 40 of the {rows[14]} metric rows"
    assert build_view(analyze(ncu_roofline.read(path))).header.warnings[0].startswith(said)
    html = render_html(analyze(ncu_roofline.read(path)))
    assert 'id="read-warnings"' in html and html_escape(said) in html
    assert 'id="read-warnings"' not in render_html(analyze(ncu_roofline.read(data(SOURCE))))


def test_a_diff_lists_the_warning_among_its_caveats(tmp_path: Path) -> None:
    """A diff against a page cut short says so in its caveats (every format shows them: its HTML page too)."""
    path = cut(tmp_path, 40)
    d = compare(analyze(ncu_roofline.read(path)), analyze(ncu_roofline.read(data(SOURCE))))
    assert [c for c in d.caveats if c.startswith(f"BEFORE: {path}: {CUT_SHORT}: its last launch (ID 15")]
    assert not [c for c in d.caveats if c.startswith("AFTER:")]


# --- summary pages: a group per kernel (and launch shape), each with the metric rows of every other group

SUMMARY = "micro_full.summary-per-kernel.csv"


def summary_cut(tmp_path: Path, keep: int) -> tuple[Path, int, int]:
    """The per-kernel summary page cut after its last group's ``keep``-th row: (path, that group's number of rows
    on the whole page, the group's 0-based number)."""
    import gzip

    lines = gzip.decompress(data(SUMMARY).read_bytes()).decode().splitlines()
    header = _fields(lines[0])
    group_of = [tuple(f[: header.index("Section Name")]) for f in map(_fields, lines[1:])]
    last = group_of[-1]
    start = group_of.index(last) + 1  # its first line (after the header)
    path = tmp_path / "summary.csv"
    path.write_text("\n".join(lines[: start + keep]) + "\n")
    return path, len(group_of) - start + 1, len(dict.fromkeys(group_of)) - 1


@pytest.mark.parametrize("keep", [1, 40, 83])
def test_a_summary_page_cut_at_a_line_is_said(tmp_path: Path, keep: int) -> None:
    path, rows, group = summary_cut(tmp_path, keep)
    assert rows == 84  # every group of the page has 84 metric rows
    report = ncu_roofline.read(path)
    assert len(report.launches) == group + 1
    said = (
        f"{CUT_SHORT}: its last launch (ID {group} of process 663) ends after {keep} of the 84 metric rows of "
        f"launch ID {group - 1} before it"
    )
    assert said in str(report.source["not_understood"].iloc[0])
    assert report.warnings == (f"{path}: {said}; {group + 1} launches read",)


def test_a_whole_summary_page_or_one_cut_between_groups_is_not_said(tmp_path: Path) -> None:
    for path in (data(SUMMARY), summary_cut(tmp_path, 0)[0], data("train_step.summary-per-kernel.csv")):
        notes = ncu_roofline.read(path).source["not_understood"].dropna()
        assert not any(CUT_SHORT in str(n) for n in notes), path


def _text_table_rows(lines: list[str]) -> int:
    """The metric rows of the section tables in ``lines``: the lines after a table's second dashed line (its
    header's underline) that are neither dashes nor blank."""
    rows, dashes = 0, 0
    for line in lines:
        if line.strip().startswith("Section:"):
            dashes = 0
        elif line.strip().startswith("---"):
            dashes += 1
        elif dashes == 2 and line.strip():
            rows += 1
    return rows


def test_a_text_summary_page_cut_inside_its_last_table_is_said(tmp_path: Path) -> None:
    """ncu 2024.2's per-kernel summary page without ``--csv`` (the same reader's groups), cut after the first row
    of its last group's Memory Workload Analysis table; the golden counts are the page's table rows."""
    import gzip

    text = gzip.decompress(data("reexport/ncu-2024.2/micro_roof.text-summary-per-kernel.txt").read_bytes()).decode()
    lines = text.splitlines()
    group = max(i for i, line in enumerate(lines) if "Device 0, CC 9.0, Invocations" in line)
    mwa = max(i for i, line in enumerate(lines) if line.strip() == "Section: Memory Workload Analysis")
    cut_at = mwa + 5  # the section's heading, dashes, header, dashes, a row
    before = max(i for i, line in enumerate(lines[:group]) if "Device 0, CC 9.0, Invocations" in line)
    kept, whole_group = _text_table_rows(lines[group:cut_at]), _text_table_rows(lines[before:group])
    path = tmp_path / "summary.txt"
    path.write_text("\n".join(lines[:cut_at]) + "\n")
    report = ncu_roofline.read(path)
    said = f"{CUT_SHORT}: its last launch (ID 12 of process 2601) ends after {kept} of the {whole_group} metric rows"
    assert said in str(report.source["not_understood"].iloc[0])
    whole = ncu_roofline.read(data("reexport/ncu-2024.2/micro_roof.text-summary-per-kernel.txt"))
    assert not any(CUT_SHORT in str(n) for n in whole.source["not_understood"].dropna())
