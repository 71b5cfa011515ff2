"""The streamed details reader: blocks cut anywhere in a page read the same launches, metrics and rules, and
anything unusual in any block is handed to the careful reader, which names the line.

Counts come from the export itself (its rows of each width, read with the csv module)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import data
from pandas.testing import assert_frame_equal

import ncu_roofline
from ncu_roofline.errors import ParseError
from ncu_roofline.io import records

DETAILS = data("micro_full.details.csv")
LINES = DETAILS.read_text().splitlines(keepends=True)
WIDTHS = [len(r) for r in csv.reader(LINES[1:])]


@pytest.fixture(params=[4096, 200])
def small_blocks(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """Blocks of 4 KB (a launch's rows, and single rows, cross block boundaries) and of 200 bytes (shorter than
    most rows: many blocks hold no row start)."""
    monkeypatch.setattr(records, "STREAM_BLOCK", request.param)


def test_rows_of_each_kind_are_counted_once(small_blocks: None) -> None:
    report = ncu_roofline.read(DETAILS)
    assert int(report.source["metric_rows"].iloc[0]) == WIDTHS.count(18)  # metric rows: 17 fields + 1 empty
    assert len(report.rules) == WIDTHS.count(22)  # rule rows fill every column of the header
    assert len(report.launches) == 16
    assert report.source["skipped_lines"].iloc[0] == 0


def test_small_blocks_read_what_one_block_reads(small_blocks: None, monkeypatch: pytest.MonkeyPatch) -> None:
    small = ncu_roofline.read(DETAILS)
    monkeypatch.setattr(records, "STREAM_BLOCK", 1 << 30)
    whole = ncu_roofline.read(DETAILS)
    for name in ("launches", "rules", "values", "metrics"):
        assert_frame_equal(getattr(small, name), getattr(whole, name), check_exact=True)


def test_crlf_lines_read_the_same(small_blocks: None, tmp_path: Path) -> None:
    crlf = tmp_path / "crlf.csv"
    crlf.write_bytes(DETAILS.read_bytes().replace(b"\n", b"\r\n"))
    a, b = ncu_roofline.read(crlf), ncu_roofline.read(DETAILS)
    assert_frame_equal(a.values.reset_index(drop=True), b.values.reset_index(drop=True), check_exact=True)
    assert a.rules["description"].tolist() == b.rules["description"].tolist()


def test_damage_in_a_late_block_names_its_line(small_blocks: None, tmp_path: Path) -> None:
    n = 1200
    fields = next(csv.reader([LINES[n - 1]]))
    broken = ",".join('"' + f.replace('"', '""') + '"' for f in fields[:10]) + "\n"
    path = tmp_path / "damaged.csv"
    path.write_text("".join(LINES[: n - 1]) + broken + "".join(LINES[n:]))
    with pytest.raises(ParseError, match="row has 10 fields, expected 18") as info:
        ncu_roofline.read(path)
    assert info.value.line == n


def test_ncu_message_between_rows_is_skipped_with_its_line(small_blocks: None, tmp_path: Path) -> None:
    n = 900
    path = tmp_path / "capture.csv"
    path.write_text("".join(LINES[: n - 1]) + "==PROF== Disconnected from process 663\n" + "".join(LINES[n - 1 :]))
    report = ncu_roofline.read(path)
    assert report.source["skipped_lines"].iloc[0] == 1
    assert f"line {n}" in report.source["skipped"].iloc[0]
    assert int(report.source["metric_rows"].iloc[0]) == WIDTHS.count(18)
