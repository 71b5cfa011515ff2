"""units.parse_numbers: the byte-level path (string columns without nulls) reads every cell as the regex path does;
units.number_evidence (Arrow's regexes) decides the number style as detect_number_style (Python's) does."""

from __future__ import annotations

import csv
from pathlib import Path

import derive
import numpy as np
import pyarrow as pa
import pytest
from conftest import data
from hypothesis import given, settings
from hypothesis import strategies as st

import ncu_roofline
from ncu_roofline.units import (
    NUMBER_STYLES,
    _parse_numbers_regex,
    detect_number_style,
    number_evidence,
    parse_numbers,
    style_of,
    unread_numbers,
)

#: Cells ncu writes and cells that look almost like numbers.
CELLS = ["1,234.5", "1.234,5", "12", "", "n/a", " 12", "12 ", "1e5", "-1.5e-3", ".5", "5.", "inf", "nan", "1-2",
         ",", ".", "all", "3.20", "370,890", "+1", "1.2.3", "1,2,3", "27.595.520", "65,77", "1 234", "é1"]  # fmt: skip
CELL = st.one_of(st.sampled_from(CELLS), st.text(alphabet="0123456789.,eE+- a/", max_size=8))


def _same(a: pa.Array, b: pa.Array) -> bool:
    x, y = a.to_numpy(zero_copy_only=False), b.to_numpy(zero_copy_only=False)
    return bool(np.array_equal(x, y, equal_nan=True)) and a.null_count == b.null_count


@settings(max_examples=300, deadline=None)
@given(cells=st.lists(CELL, max_size=12), style=st.sampled_from(NUMBER_STYLES), large=st.booleans(), cut=st.booleans())
def test_byte_path_reads_as_the_regex_path(cells: list[str], style: str, large: bool, cut: bool) -> None:
    arr = pa.array(cells, pa.large_string() if large else pa.string())
    if cut and len(arr) > 2:  # a slice: offsets that do not start at 0
        arr = arr.slice(1, len(arr) - 2)
    assert _same(parse_numbers(arr, style), _parse_numbers_regex(arr, style))


@pytest.mark.parametrize(
    ("cells", "style", "expected"),
    [
        (["1,234.5", "all", "", "3"], "en", [1234.5, np.nan, np.nan, 3.0]),
        (["1.234,5", "65,77", "n/a"], "dot-grouped", [1234.5, 65.77, np.nan]),
        (["1-2", "7"], "en", [np.nan, 7.0]),  # plain-number characters that are no number
    ],
)
def test_cells(cells: list[str], style: str, expected: list[float]) -> None:
    got = parse_numbers(pa.array(cells), style).to_numpy(zero_copy_only=False)
    np.testing.assert_array_equal(got, np.array(expected))


@settings(max_examples=300, deadline=None)
@given(cells=st.lists(CELL, min_size=1, max_size=12))
def test_number_evidence_decides_as_detect_number_style(cells: list[str]) -> None:
    assert style_of(*number_evidence(pa.array(cells))) == detect_number_style([c for c in cells if c])


def test_digits_grouped_by_a_space_are_read_only_as_groups_of_three() -> None:
    """In a decimal-comma page (sv_SE) a space groups digits by three: '23 982 976' and '1 056 (0; 0; 16)' read,
    '1 2', '37 0890' or '12  345' are no number (they were read as 12, 370890 and 12345)."""
    cells = ["23 982 976", "19,38", "1\u00a0234,5", "12\u202f345", "1 056 (0; 0; 16)", "1 2", "37 0890", "12  345"]
    got = parse_numbers(pa.array(cells), "dot-grouped").to_pylist()
    assert got == [23982976.0, 19.38, 1234.5, 12345.0, 1056.0, None, None, None]


@pytest.mark.parametrize("large", [False, True])
def test_digits_grouped_otherwise_than_by_three_are_no_number(large: bool) -> None:
    """A separator groups digits by three, in the integer part: '1,2,3' (a damaged cell) was read as 123 and moved
    a launch's duration from 189 us to 123 us, '12,34' as 1234; on both paths they are no number, and ncu's own
    spellings ('370,890', '1,234,567.5', '-1,234', '1,056 (0; 0; 16)') read as before."""
    en = ["1,2,3", "12,34", "1234,567", "1.5,000", ",123", "370,890", "1,234,567.5", "-1,234", "1,056 (0; 0; 16)", "5"]
    got = parse_numbers(pa.array(en, pa.large_string() if large else pa.string()), "en").to_pylist()
    assert got == [None, None, None, None, None, 370890.0, 1234567.5, -1234.0, 1056.0, 5.0]
    padded = [" 1,024", "1,024 ", " 1024"]  # (a hand-made page's padding: read, as an ungrouped number is)
    assert (
        parse_numbers(pa.array(padded), "en").to_pylist()
        == parse_numbers(pa.array([*padded, None]), "en").to_pylist()[:3]
    )
    assert parse_numbers(pa.array(padded), "en").to_pylist() == [1024.0, 1024.0, 1024.0]
    dot = ["1.2.3", "12.34", "27.595.520", "1.234,5", "65,77"]
    assert parse_numbers(pa.array(dot), "dot-grouped").to_pylist() == [None, None, 27595520.0, 1234.5, 65.77]


def test_a_number_beyond_float64s_range_is_no_number() -> None:
    # '1e999' was cast to infinity: one such DRAM Throughput made every launch's DRAM peak 0 and its device unknown,
    # one such launch__block_size an internal error (OverflowError); 'inf' was no number already
    cells = ["1e999", "-1e999", "1.5e3", "inf", "1,234"]
    assert parse_numbers(pa.array(cells), "en").to_pylist() == [None, None, 1500.0, None, 1234.0]
    assert parse_numbers(pa.array([*cells, None]), "en").to_pylist() == [None, None, 1500.0, None, 1234.0, None]


def test_cells_that_look_like_numbers_and_are_none() -> None:
    ncu = ["1,234.5", "n/a", "", "(1, 2, 3)", "12", None, "LRU", "no data", "0x7fe20b7ac010", "1,056 (0; 0; 16)"]
    damaged = ["1159,966,902.07", "1e999", "1,2,3", "189.41x", "0.5 GHz", "-3abc", ".5z"]
    cells = pa.array([*ncu, *damaged, "(49.39; 0; 1)", " 7 "])
    parsed = parse_numbers(cells, "en").to_numpy(zero_copy_only=False)
    # not ncu's texts (n/a, no data, shapes, words, an address, instances without a value), nor numbers
    assert unread_numbers(cells, parsed) == damaged
    # a cell of a metric with a unit is a number, or one of ncu's texts for none: a word there is damage
    cases = [("n/a", True), ("no data", True), ("", True), ("nan", True), ("(1, 2, 3)", True), ("abc", True),
             ("12", True), ("-inf", True), (" N/A ", True), ("LRU", False), ("1,056 (0; 0; 16)", True)]  # fmt: skip
    cells = pa.array([text for text, _ in cases])
    with_unit = np.array([unit for _, unit in cases])  # LRU: the text of a metric without a unit
    parsed = parse_numbers(cells, "en").to_numpy(zero_copy_only=False)
    assert unread_numbers(cells, parsed, with_unit) == ["abc"]
    assert unread_numbers(cells, parsed) == []


def _damaged(text: str, column: str, row: int, cell: str) -> tuple[str, int]:
    """``text`` (a page) with the ``column`` cell of its ``row``-th record (1: the first under the header) written
    as ``cell``: the page and that line's number."""
    lines = text.splitlines(keepends=True)
    fields = next(csv.reader([lines[row]]))
    header = next(csv.reader([lines[0]]))
    old = f'"{fields[header.index(column)]}"'
    head, sep, tail = lines[row].rpartition(old) if column == "Metric Value" else lines[row].partition(old)
    assert sep, (column, row)
    lines[row] = head + f'"{cell}"' + tail
    return "".join(lines), row + 1


@pytest.mark.parametrize(
    ("name", "column", "row", "style", "cell"),
    [
        ("micro_full.details.csv", "Metric Value", 6, "en", "1159,966,902.07"),  # read block by block
        ("micro_full.details.csv", "Metric Value", 6, "dot-grouped", "1159,966,902.07"),  # ... de_DE: read again
        ("micro_full.raw.csv", "gpu__time_duration.sum", 3, "en", "1159,966,902.07"),
        ("micro_full.details.csv", "Metric Value", 6, "en", "189.41x"),  # something after the number
        ("micro_full.raw.csv", "gpu__time_duration.sum", 3, "en", "3.39 2"),
        # a word in a cell with a unit (``"Duration","us","abc"``), whatever the style: none of ncu's texts
        ("micro_full.details.csv", "Metric Value", 6, "en", "abc"),
        ("micro_full.details.csv", "Metric Value", 6, "dot-grouped", "abc"),
        ("micro_full.raw.csv", "gpu__time_duration.sum", 3, "en", "abc"),
    ],
)
def test_a_damaged_number_is_not_measured_and_said(
    tmp_path: Path, name: str, column: str, row: int, style: str, cell: str
) -> None:
    """A cell damaged into digits no ncu writes (grouped by four, then three: ``1159,966,902.07``), or a number with
    something after it (``189.41x``), is not measured, and ``source.not_understood`` says so with its line (it was
    not measured, silently: the duration then came from cycles over the clock)."""
    text = data(name).read_text()
    if style == "dot-grouped":
        text = derive.dot_grouped(text)
    page, line = _damaged(text, column, row, cell)
    path = tmp_path / name
    path.write_text(page)
    report = ncu_roofline.read(path)
    note = report.source["not_understood"].iloc[0]
    assert f"1 number as ncu writes none (damaged?), not measured: '{cell}' (line {line})" in note
    cells = report.metrics
    assert cells.loc[cells["text"] == cell, "value"].isna().all()
    whole = tmp_path / f"whole-{name}"
    whole.write_text(text)
    assert ncu_roofline.read(whole).source["not_understood"].isna().all()
