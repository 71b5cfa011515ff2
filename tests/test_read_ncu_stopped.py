"""A page whose output goes on after its last record: ncu prints its error there when it stops part-way through an
export, and a capture of its standard output and error together (``> page.csv 2>&1``, or ``| ncu-roofline -``)
keeps it. The real case: ncu 2024.2 exporting the H200 report ``micro_roof.ncu-rep`` with ``--print-details all``
prints launch 0 up to its Compute Workload Analysis header, then ``stold`` on its standard error, and exits with 1
(tests/data/reexport/README.md). The page is read as far as it goes, and the reader says it may be cut short;
ncu's notes (``==PROF==``), text body items (indented) and whole pages are not said to be cut."""

from __future__ import annotations

import gzip
import subprocess
from pathlib import Path

import pytest
from _ncu import require_ncu
from click.testing import CliRunner
from conftest import SHARED_ROOT, data

import ncu_roofline
from ncu_roofline import cli
from ncu_roofline.vocabulary import CUT_SHORT

REPORT = SHARED_ROOT / "ncu-samples" / "h200-micro" / "micro_roof.ncu-rep"
#: What ncu 2024.2 printed on its standard error when it stopped (the stored re-export's README).
STOLD = "stold"
#: ncu's sentence for a page of these tests: after the record, the line and its number.
AFTER = "after its last record comes {text!r} (line {line}), as when ncu stops on an error part-way"


def _said(path: Path, text: str, line: int, launches: int) -> str:
    read = f"{launches} launch{'es' * (launches != 1)} read"
    return f"{path}: {CUT_SHORT}: {AFTER.format(text=text, line=line)}; {read}"


def test_ncu_2024_2_stopping_part_way_is_said(tmp_path: Path) -> None:
    """The real ncu's output and error captured together: it exits with 1, its page ends with ``stold``; the page
    is read (launch 0, the only one ncu printed) and the warning names the line."""
    ncu = require_ncu("2024.2")
    path = tmp_path / "micro_roof.details-all.csv"
    with path.open("wb") as out:
        done = subprocess.run(
            [str(ncu), "-i", str(REPORT), "--csv", "--page", "details", "--print-details", "all"],
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=600,
            check=False,
        )
    assert done.returncode == 1
    lines = path.read_text().splitlines()
    assert lines[-1] == STOLD and all(line.startswith('"') for line in lines[:-1])  # golden: the file itself
    report = ncu_roofline.read(path)
    assert set(report.launches["launch_id"]) == {0}
    assert report.warnings == (_said(path, STOLD, len(lines), 1),)


def _stored_with(tmp_path: Path, name: str, tail: str) -> tuple[Path, int]:
    """The stored 2024.2 re-export of ``--print-details all`` (launch 0 only: ncu stopped there) with ``tail``
    after it, as a capture of ncu's output and error would have it: (path, the line number of ``tail``)."""
    text = gzip.decompress(data("reexport/ncu-2024.2/micro_roof.details-all.csv.gz").read_bytes()).decode()
    path = tmp_path / name
    path.write_text(text + tail + "\n")
    return path, text.count("\n") + 1


@pytest.mark.parametrize(
    "tail",
    [STOLD, "==ERROR== An error occurred while trying to export the report", "terminate called after throwing"],
)
def test_a_line_after_the_last_record_is_said(tmp_path: Path, tail: str) -> None:
    path, line = _stored_with(tmp_path, "page.csv", tail)
    report = ncu_roofline.read(path)
    assert report.warnings == (_said(path, tail, line, 1),)
    assert f"{CUT_SHORT}: {AFTER.format(text=tail, line=line)}" in str(report.source["not_understood"].iloc[0])


@pytest.mark.parametrize(
    "tail",
    [
        "",  # nothing after the records: a whole page as far as the file tells
        "==PROF== Disconnected from process 3837",  # ncu's notes (the live capture's own line)
        "==WARNING== Note: Running with unmodified GPU clocks.",
        "    The system does not have any NVLink connections.",  # a text body item (ncu indents them)
    ],
)
def test_ncu_notes_and_text_items_are_not_said(tmp_path: Path, tail: str) -> None:
    path, _line = _stored_with(tmp_path, "page.csv", tail)
    assert ncu_roofline.read(path).warnings == ()


def test_a_raw_page_stopped_part_way_is_said(tmp_path: Path) -> None:
    """A raw page (a record per launch) that ncu stopped after 8 of its 16 launches."""
    lines = data("micro_full.raw.csv").read_text().splitlines()
    path = tmp_path / "raw.csv"
    path.write_text("\n".join([*lines[:10], STOLD]) + "\n")  # the header, the units row, 8 launches
    report = ncu_roofline.read(path)
    assert len(report.launches) == 8
    assert report.warnings == (_said(path, STOLD, 11, 8),)


def test_the_command_line_warns_of_it(tmp_path: Path) -> None:
    path, line = _stored_with(tmp_path, "page.csv", STOLD)
    r = CliRunner().invoke(cli.main, [str(path), "--format", "json", "-o", str(tmp_path / "out.json")])
    assert r.exit_code == 0
    assert [w for w in r.stderr.splitlines() if "warning:" in w] == [
        f"ncu-roofline: warning: {_said(path, STOLD, line, 1)}"
    ]


@pytest.mark.parametrize(
    "name",
    [
        "micro_full.details.csv",
        "micro_full.raw.csv",
        "direct_details.stdout.csv",  # a live capture: program output and ncu's notes before the page
        "micro_full.details-all.csv.gz",  # text body items inside launches
        "micro_full.summary-per-kernel.csv.gz",
    ],
)
def test_whole_pages_are_not_said(name: str) -> None:
    assert ncu_roofline.read(data(name)).warnings == ()
