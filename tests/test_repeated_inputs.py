"""One report given twice (two pages of it, two ncu versions' exports of it): its launches would count twice, so
the command line warns and a diff says so among its caveats. Real exports: micro_roof's details and raw pages (ncu
2025.3.1, H200) and its raw page re-exported by ncu 2024.2; micro_full and micro_metrics, two runs of one program."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from click.testing import CliRunner
from conftest import DATA, data

import ncu_roofline
from ncu_roofline import cli
from ncu_roofline.analysis import analyze
from ncu_roofline.diff import compare
from ncu_roofline.model import repeated_reports
from ncu_roofline.report.viewmodel import build_view

ROOF_2024 = DATA / "reexport/ncu-2024.2/micro_roof.raw.csv.gz"


def test_two_pages_and_two_versions_of_one_report_are_the_same_launches() -> None:
    pages = ncu_roofline.read([data("micro_roof.details.csv"), data("micro_roof.raw.csv"), ROOF_2024])
    assert repeated_reports(pages.launches) == [
        ("micro_roof.details", "data/micro_roof.raw", 16),  # (the two raw pages named apart by their folders)
        ("micro_roof.details", "ncu-2024.2/micro_roof.raw", 16),  # each paired with the first it repeats
    ]


def test_two_runs_of_one_program_and_a_summary_page_are_not() -> None:
    # micro_full and micro_metrics ran the same 16 kernels in two processes: their durations differ (the second
    # launch 39.14 us against 40.29 us); a summary page's rows are groups, not launches
    runs = ncu_roofline.read([data("micro_full.raw.csv"), data("micro_metrics.raw.csv")])
    assert repeated_reports(runs.launches) == []
    grouped = ncu_roofline.read([data("micro_full.summary-per-kernel.csv"), data("micro_full.raw.csv")])
    assert repeated_reports(grouped.launches) == []


def test_the_command_line_warns_and_the_diff_says_it(tmp_path: Path) -> None:
    details, raw = data("micro_roof.details.csv"), data("micro_roof.raw.csv")
    r = CliRunner().invoke(cli.main, [str(details), str(raw), "-o", str(tmp_path / "x.json"), "--format", "json"])
    assert r.exit_code == 0
    said = f"warning: {details} and {raw} hold the same 16 launches"
    assert [line for line in r.stderr.splitlines() if said in line]
    before = analyze(ncu_roofline.read([details, raw]))
    d = compare(before, analyze(ncu_roofline.read(raw)))
    assert [c for c in d.caveats if c.startswith(f"BEFORE: {details} and {raw} hold the same 16 launches")]
    assert not [c for c in d.caveats if c.startswith("AFTER:")]
    # and the HTML report, which people share without the command line's stderr, says it at its top
    assert [w for w in build_view(before).header.warnings if w.startswith(f"{details} and {raw} hold the same 16")]


def test_another_process_is_another_report(tmp_path: Path) -> None:
    # an MPI rank's capture: the same kernels in the same order in another process (durations 0.3 % apart, within a
    # details page's rounding) was "the same 16 launches ... counted twice"
    rows = list(csv.reader(io.StringIO(data("micro_full.raw.csv").read_text())))
    pid = rows[0].index("Process ID")
    for r in rows[2:]:
        r[pid] = str(int(r[pid]) + 1)
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    (tmp_path / "rank1.raw.csv").write_text(out.getvalue())
    both = ncu_roofline.read([data("micro_full.raw.csv"), tmp_path / "rank1.raw.csv"])
    assert repeated_reports(both.launches) == []
