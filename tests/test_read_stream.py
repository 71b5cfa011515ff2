"""The streamed details reader: blocks cut anywhere in a page read the same launches, metrics and rules, and
anything unusual in any block is handed to the careful reader, which names the line.

Counts come from the export itself (its rows of each width, read with the csv module)."""

from __future__ import annotations

import csv
import gzip
import itertools
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import derive
import pytest
from conftest import data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pandas.testing import assert_frame_equal

import ncu_roofline
from ncu_roofline.errors import ParseError
from ncu_roofline.io import details, records

DETAILS = data("micro_full.details.csv")
LINES = DETAILS.read_text().splitlines(keepends=True)


@dataclass(frozen=True)
class Page:
    """A details page to read in small blocks: its file, lines (the header first), the width of each row after the
    header (csv module), and its launches (the distinct IDs of its rows)."""

    path: Path
    lines: list[str]

    @property
    def widths(self) -> list[int]:
        return [len(r) for r in csv.reader(self.lines[1:])]

    @property
    def launches(self) -> int:
        return len({line.split(",", 1)[0] for line in self.lines[1:]})


#: micro_full.details.csv's first launches: the page of the 200-byte blocks (every line of it crosses blocks, and a
#: block of the whole page costs as much as one of 4 KB, so the whole page would take 20 s a test).
FIRST_LAUNCHES = 4


@pytest.fixture(scope="module")
def first_launches(tmp_path_factory: pytest.TempPathFactory) -> Page:
    ids = {f'"{i}"' for i in range(FIRST_LAUNCHES)}
    lines = [LINES[0], *(line for line in LINES[1:] if line.split(",", 1)[0] in ids)]
    path = tmp_path_factory.mktemp("first") / "first_launches.csv"
    path.write_text("".join(lines))
    return Page(path, lines)


@pytest.fixture(params=[4096, 200])
def small_blocks(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, first_launches: Page) -> Page:
    """Blocks of 4 KB over the whole page (a launch's rows, and single rows, cross block boundaries) and of 200
    bytes over its first launches (shorter than most rows: many blocks hold no row start). The page read."""
    monkeypatch.setattr(records, "STREAM_BLOCK", request.param)
    return Page(DETAILS, LINES) if request.param == 4096 else first_launches


def test_rows_of_each_kind_are_counted_once(small_blocks: Page) -> None:
    report = ncu_roofline.read(small_blocks.path)
    widths = small_blocks.widths
    assert int(report.source["metric_rows"].iloc[0]) == widths.count(18)  # metric rows: 17 fields + 1 empty
    assert len(report.rules) == widths.count(22)  # rule rows fill every column of the header
    assert len(report.launches) == small_blocks.launches
    assert report.source["skipped_lines"].iloc[0] == 0


def test_small_blocks_read_what_one_block_reads(small_blocks: Page, monkeypatch: pytest.MonkeyPatch) -> None:
    small = ncu_roofline.read(small_blocks.path)
    monkeypatch.setattr(records, "STREAM_BLOCK", 1 << 30)
    whole = ncu_roofline.read(small_blocks.path)
    for name in ("launches", "rules", "values", "metrics"):
        assert_frame_equal(getattr(small, name), getattr(whole, name), check_exact=True)


def test_crlf_lines_read_the_same(small_blocks: Page, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crlf = tmp_path / "crlf.csv"
    crlf.write_bytes(small_blocks.path.read_bytes().replace(b"\n", b"\r\n"))
    a = ncu_roofline.read(crlf)  # in small blocks: a CR and its LF fall in two blocks
    monkeypatch.setattr(records, "STREAM_BLOCK", 1 << 30)  # the LF page in one (small blocks: the test above)
    b = ncu_roofline.read(small_blocks.path)
    assert_frame_equal(a.values.reset_index(drop=True), b.values.reset_index(drop=True), check_exact=True)
    assert a.rules["description"].tolist() == b.rules["description"].tolist()


def test_damage_in_a_late_block_names_its_line(small_blocks: Page, tmp_path: Path) -> None:
    lines = small_blocks.lines
    n = len(lines) * 3 // 4  # a metric row (the launch's rule rows come first) in a late block
    fields = next(csv.reader([lines[n - 1]]))
    assert len(fields) == 18
    broken = ",".join('"' + f.replace('"', '""') + '"' for f in fields[:10]) + "\n"
    path = tmp_path / "damaged.csv"
    path.write_text("".join(lines[: n - 1]) + broken + "".join(lines[n:]))
    with pytest.raises(ParseError, match="row has 10 fields, expected 18") as info:
        ncu_roofline.read(path)
    assert info.value.line == n


def test_ncu_message_between_rows_is_skipped_with_its_line(
    small_blocks: Page, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = small_blocks.lines
    n = len(lines) * 9 // 16
    path = tmp_path / "capture.csv"
    path.write_text("".join(lines[: n - 1]) + "==PROF== Disconnected from process 663\n" + "".join(lines[n - 1 :]))
    report = _streamed_as_careful(path, monkeypatch)
    assert report.source["skipped_lines"].iloc[0] == 1
    assert f"line {n}" in report.source["skipped"].iloc[0]
    assert int(report.source["metric_rows"].iloc[0]) == small_blocks.widths.count(18)


# ------------------------------------------------------------------------------------------ rows by prefix
# A launch's metric and rule rows repeat its identity: records._by_prefix parses it once per run of lines that begin
# alike and the rest of each line on its own. What it gives must be what parsing every line whole gives, and any
# block it cannot prove that for is parsed whole (the reader's answer, frames or error, then unchanged).


#: The tests that want rows read by runs: pyarrow 25 and later build binary views over a buffer of ours; before,
#: every block is parsed whole (what the other tests check too). In CI (CI=true) they run, and fail without them.
needs_views = pytest.mark.skipif(
    not records._HAS_VIEWS and not os.environ.get("CI"),
    reason="this pyarrow builds no binary views over a buffer (pyarrow 25 and later do): every row is parsed whole",
)


def _spied(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each call of records._by_prefix gave rows (True) or left the block to the whole parse (False)."""
    taken: list[bool] = []
    real = records._by_prefix

    def spy(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(records, "_by_prefix", spy)
    return taken


def _read_both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, list[bool]]:
    """(the page read with rows by prefix, read with every row parsed whole, which blocks went by prefix)."""
    taken = _spied(monkeypatch)
    fast = ncu_roofline.read(path)
    taken = list(taken)
    with monkeypatch.context() as whole:
        whole.setattr(records, "_HAS_VIEWS", False)
        slow = ncu_roofline.read(path)
    return fast, slow, taken


def _assert_same(a: Any, b: Any) -> None:
    for name in ("launches", "rules", "values", "metrics"):
        assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True)


@needs_views
@pytest.mark.parametrize(
    "name",
    [
        "micro_full.details.csv",
        "micro_full.details-nvtx.csv.gz",
        "llm_full.details.csv.gz",
        "train_step.details.csv.gz",
    ],
)
def test_rows_by_prefix_are_the_rows_parsed_whole(name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = data(name)
    if path.suffix == ".gz":  # the streamed reader reads plain files (a .gz is read whole)
        plain = tmp_path / path.stem
        plain.write_bytes(gzip.decompress(path.read_bytes()))
        path = plain
    fast, slow, taken = _read_both(path, monkeypatch)
    assert taken and all(taken)  # metric rows and rule rows of every block
    _assert_same(fast, slow)


@needs_views
def test_rows_by_prefix_in_small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(records, "STREAM_BLOCK", 4096)  # a launch's rows, and single rows, across blocks
    fast, slow, taken = _read_both(DETAILS, monkeypatch)
    assert len(taken) > 100 and all(taken)
    _assert_same(fast, slow)


def _edited(tmp_path: Path, edit: Callable[[int, list[str]], list[str]]) -> Path:
    """micro_full.details.csv with each record's fields passed through ``edit(line number, fields)`` and written
    as ncu writes them (every field quoted, quotes doubled; a metric row's trailing empty field unquoted)."""
    out = [LINES[0]]
    for n, line in enumerate(LINES[1:], start=2):
        fields = edit(n, next(csv.reader([line])))
        metric = fields[-1] == "" and len(fields) == 18
        body = ",".join('"' + f.replace('"', '""') + '"' for f in (fields[:-1] if metric else fields))
        out.append(body + ("," if metric else "") + "\n")
    path = tmp_path / "edited.csv"
    path.write_text("".join(out))
    return path


KERNEL = LINES[0].split('","').index("Kernel Name")


@needs_views
def test_quotes_and_separators_inside_an_identity_field(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = _edited(tmp_path, lambda _n, f: [*f[:KERNEL], f[KERNEL] + ' "a","b"', *f[KERNEL + 1 :]])
    fast, slow, taken = _read_both(path, monkeypatch)
    assert all(taken)
    assert fast.launches["kernel_name"].str.endswith(' "a","b"').all()
    _assert_same(fast, slow)


def test_an_unquoted_identity_field_is_parsed_whole(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "unquoted.csv"
    path.write_text(LINES[0] + "".join(line.replace('"microbench"', "microbench", 1) for line in LINES[1:]))
    fast, slow, taken = _read_both(path, monkeypatch)
    assert taken and not any(taken)  # the prefix is not what ncu writes for those fields: whole
    _assert_same(fast, slow)
    assert (fast.launches["process_name"] == "microbench").all()


def test_launches_alike_in_their_first_bytes_are_parsed_whole(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # the first launch twice, with 16-digit IDs: every line begins with the same 16 bytes ('"100000000000000') and
    # has the same length, but the second launch's prefix is not the first's
    first = [line for line in LINES[1:] if line.startswith('"0",')]
    path = tmp_path / "alike.csv"
    path.write_text(LINES[0] + "".join(f'"{10**15 + i}",' + line[4:] for i in (0, 1) for line in first))
    fast, slow, taken = _read_both(path, monkeypatch)
    assert taken and not any(taken)
    _assert_same(fast, slow)
    assert fast.launches["launch_id"].tolist() == [10**15, 10**15 + 1]


def test_a_prefix_that_is_not_what_ncu_writes_is_parsed_whole(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # one section's rows only, so that every line also begins with the same bytes after a wrongly placed prefix
    rows = [line for line in LINES[1:] if '"GPU Speed Of Light Throughput","' in line and line.startswith('"0",')]
    path = tmp_path / "unquoted.csv"
    path.write_text(LINES[0] + "".join(line.replace('"microbench"', "microbench", 1) for line in rows))
    fast, slow, taken = _read_both(path, monkeypatch)
    assert taken == [False]
    _assert_same(fast, slow)
    assert set(fast.metrics["section"]) == {"GPU Speed Of Light Throughput"}


@pytest.mark.parametrize(
    ("col", "other"),
    [("Grid Size", "(1, 1, 1)"), ("Device", "1"), ("CC", "8.0")],  # the GPU too: its peaks make the roofline
)
def test_a_launch_whose_identity_changes_is_left_to_the_whole_parse(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, col: str, other: str
) -> None:
    at = LINES[0].split('","').index(col)
    path = _edited(tmp_path, lambda n, f: [*f[:at], other, *f[at + 1 :]] if n == 40 else f)
    taken = _spied(monkeypatch)
    with pytest.raises(ParseError, match=f"two different '{col}' values .* '{re.escape(other)}'") as fast:
        ncu_roofline.read(path)
    assert False in taken
    assert fast.value.line == 40  # the row edited (a Device "1" is also the Context column's cell on every row)
    monkeypatch.setattr(records, "_HAS_VIEWS", False)
    with pytest.raises(ParseError) as slow:
        ncu_roofline.read(path)
    assert str(fast.value) == str(slow.value) and fast.value.line == slow.value.line


def test_a_page_smaller_than_a_block_is_shared_by_the_parsing_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    sizes: list[int] = []
    real = records._block

    def spy(data: Any, *args: Any, **kwargs: Any) -> Any:
        sizes.append(len(data))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(records, "_block", spy)
    monkeypatch.setattr(records, "MAX_CHUNKS", 4)
    monkeypatch.setattr(records, "MIN_STREAM_BLOCK", 64 << 10)  # the page is 400 KB: one block per thread
    whole = ncu_roofline.read(DETAILS)
    assert len(sizes) == 4 and sum(sizes) == DETAILS.stat().st_size - len(LINES[0].encode())
    assert max(sizes) < 2 * min(sizes)
    monkeypatch.setattr(records, "MIN_STREAM_BLOCK", 1 << 30)  # blocks no smaller than that: one
    sizes.clear()
    _assert_same(whole, ncu_roofline.read(DETAILS))
    assert len(sizes) == 1


def test_the_kernel_is_asked_to_read_each_block_ahead_once_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every byte after the header is asked for once (POSIX_FADV_WILLNEED), in file order, in pieces no larger
    than READ_AHEAD_STEP, and never more than READ_AHEAD_BLOCKS blocks beyond those queued for parsing: a file not
    in the page cache is read while earlier blocks are parsed, and one larger than the memory is not read twice."""
    if not hasattr(os, "posix_fadvise"):
        pytest.skip("no posix_fadvise here")
    asked: list[tuple[int, int]] = []
    queued: list[int] = []  # the bytes asked for when each block began to be parsed
    real_advise, real_block = os.posix_fadvise, records._block

    def advise(fd: int, offset: int, length: int, advice: int) -> None:
        assert advice == os.POSIX_FADV_WILLNEED
        asked.append((offset, length))
        real_advise(fd, offset, length, advice)

    def block(data: Any, *args: Any, **kwargs: Any) -> Any:
        queued.append(sum(n for _, n in asked))
        return real_block(data, *args, **kwargs)

    expected = ncu_roofline.read(DETAILS)
    monkeypatch.setattr(os, "posix_fadvise", advise)
    monkeypatch.setattr(records, "_block", block)
    monkeypatch.setattr(records, "MAX_CHUNKS", 1)  # one parsing thread: blocks begin in file order
    monkeypatch.setattr(records, "STREAM_BLOCK", 16 << 10)
    monkeypatch.setattr(records, "READ_AHEAD_STEP", 5000)
    report = ncu_roofline.read(DETAILS)
    asked, queued = list(asked), list(queued)  # (the long frame, asked for below, reads the file again)
    _assert_same(report, expected)
    start = len(LINES[0].encode())
    assert asked[0][0] == start and all(a + n == b for (a, n), (b, _) in itertools.pairwise(asked))  # in order, once
    assert sum(n for _, n in asked) == DETAILS.stat().st_size - start  # every byte
    assert max(n for _, n in asked) <= 5000
    assert len(queued) > 10
    for i, seen in enumerate(queued):  # block i began with blocks up to i + 1 + READ_AHEAD_BLOCKS asked for, no more
        assert seen <= (i + 2 + records.READ_AHEAD_BLOCKS) * (16 << 10)
    assert queued[0] < DETAILS.stat().st_size - start  # not the whole file at once


@pytest.fixture
def blocks_4k(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 4 KB: a launch's rows, and single rows, cross block boundaries (what the tests of one kind of line
    need; the 200-byte blocks of ``small_blocks`` are the first test's)."""
    monkeypatch.setattr(records, "STREAM_BLOCK", 4096)


# ------------------------------------------------------------------------------------------ pages without rule columns
# ncu 2019.5-2021 (12 columns, "Kernel Time") and 2023.1 (15 columns) write no rule columns: every row is a metric
# row of the header's width, quoted from its first byte to its last. Such a page is streamed too, and reads what the
# careful reader reads; a line that is not such a record hands the page to the careful reader.


def _without_rule_columns(
    tmp_path: Path, columns: list[str], edit: Callable[[str], str] = str, page: Path = DETAILS
) -> Path:
    """``page`` (micro_full.details.csv) in an older layout without rule columns (``derive.layout``), then
    ``edit``ed."""
    path = tmp_path / "old.csv"
    path.write_text(edit(derive.layout(page.read_text(), columns, old_units=len(columns) == 12)))
    return path


def _streamed(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each call of the streamed reader read the page (True) or handed it to the careful reader."""
    outcomes: list[bool] = []
    real = details._read_streamed

    def spy(*args: Any, **kwargs: Any) -> Any:
        try:
            page = real(*args, **kwargs)
        except records.Fallback:
            outcomes.append(False)
            raise
        outcomes.append(True)
        return page

    monkeypatch.setattr(details, "_read_streamed", spy)
    return outcomes


def _careful(path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The page as the careful reader alone reads it (the streamed reader refusing every page)."""

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise records.Fallback("refused by the test")

    with monkeypatch.context() as careful:
        careful.setattr(details, "_read_streamed", refuse)
        return ncu_roofline.read(path)


def _streamed_as_careful(path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The page read by the streamed reader (checked: it did not hand the page over), whose frames and source
    (skipped lines and their numbers) are the careful reader's."""
    streamed = _streamed(monkeypatch)
    fast = ncu_roofline.read(path)
    assert streamed == [True]
    slow = _careful(path, monkeypatch)
    _assert_same(fast, slow)
    assert_frame_equal(fast.source, slow.source, check_exact=True)
    return fast


LAYOUTS = pytest.mark.parametrize(
    "columns", [derive.LAYOUT_12, derive.LAYOUT_15], ids=["12-column (2019.5-2021)", "15-column (2023.1)"]
)


@LAYOUTS
def test_a_page_without_rule_columns_is_streamed_as_the_careful_reader_reads_it(
    columns: list[str], small_blocks: Page, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = _streamed_as_careful(_without_rule_columns(tmp_path, columns, page=small_blocks.path), monkeypatch)
    assert len(fast.launches) == small_blocks.launches and len(fast.rules) == 0
    assert int(fast.source["metric_rows"].iloc[0]) == small_blocks.widths.count(18)  # each of the 2025.3 page


@needs_views
@LAYOUTS
def test_a_page_without_rule_columns_is_read_by_prefix(
    columns: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(records, "STREAM_BLOCK", 4096)
    fast, slow, taken = _read_both(_without_rule_columns(tmp_path, columns), monkeypatch)
    assert len(taken) > 50 and all(taken)
    _assert_same(fast, slow)


@pytest.mark.parametrize("name", ["wild/public/v100_summit_gene_dzv.csv", "reexport/ncu-2022.3/gene_dzv.details.csv"])
def test_real_pages_without_rule_columns_are_streamed(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ncu 2020.1's own export (NERSC's --metrics recipe), and ncu 2022.3's re-export of that report."""
    plain = tmp_path / Path(name).name
    plain.write_bytes(gzip.decompress(data(name).read_bytes()))
    assert '"Rule Name"' not in plain.read_text().splitlines()[0]
    _streamed_as_careful(plain, monkeypatch)


def _line_inserted(at: int, line: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        lines = text.splitlines(keepends=True)
        return "".join([*lines[: at - 1], line, *lines[at - 1 :]])

    return edit


@LAYOUTS
@pytest.mark.parametrize(
    "line",
    [
        "==PROF== Disconnected from process 663\n",  # an ncu message
        "step 3 loss 0.25\n",  # the program's own output
        '"a","record","of","program","output"\n',  # quoted, but not a metric row
    ],
    ids=["ncu message", "program output", "quoted output"],
)
def test_a_line_that_is_not_a_metric_row_hands_the_page_to_the_careful_reader(
    columns: list[str], line: str, blocks_4k: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _without_rule_columns(tmp_path, columns, _line_inserted(700, line))
    streamed = _streamed(monkeypatch)
    report = ncu_roofline.read(path)
    assert streamed == [False]
    assert report.source["skipped_lines"].iloc[0] == 1
    assert "line 700" in report.source["skipped"].iloc[0]
    _assert_same(report, _careful(path, monkeypatch))


@LAYOUTS
def test_a_metric_row_cut_short_is_named_by_its_line(
    columns: list[str], blocks_4k: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def short(text: str) -> str:  # the 11th row again at line 500, without its last field
        return _line_inserted(500, text.splitlines(keepends=True)[10].rsplit(",", 1)[0] + "\n")(text)

    path = _without_rule_columns(tmp_path, columns, short)
    streamed = _streamed(monkeypatch)
    with pytest.raises(ParseError, match=f"row has {len(columns) - 1} fields, expected {len(columns)}") as info:
        ncu_roofline.read(path)
    assert streamed == [False]
    assert info.value.line == 500


@LAYOUTS
def test_an_unquoted_last_field_is_left_to_the_careful_reader(
    columns: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row whose Metric Value is not quoted (not what ncu writes, but a record): the careful reader reads it."""

    def unquoted(text: str) -> str:
        return text.replace('"cycle","370,890"\n', '"cycle",370890\n', 1)

    path = _without_rule_columns(tmp_path, columns, unquoted)
    assert '"cycle",370890\n' in path.read_text()
    streamed = _streamed(monkeypatch)
    fast = ncu_roofline.read(path)
    assert streamed == [False]
    _assert_same(fast, _careful(path, monkeypatch))


# ------------------------------------------------------------------------------------------ lines that are no row
# A ragged page may hold lines that are neither metric nor rule rows: the text body items and the tables ncu embeds
# in a --print-details all page (a table's header and rows, of their own width), ncu's messages and program output
# in a capture. The streamed reader collects them with their line numbers and classifies them as the careful
# reader does; a line the careful reader would not skip (damage), or one of a row's width, hands the page to it.


@pytest.mark.parametrize("block", [64 << 10, records.STREAM_BLOCK], ids=["64 KB blocks", "one block"])
@pytest.mark.parametrize("name", ["micro_full.details-all.csv", "llm_full.details-all.csv"])
def test_a_print_details_all_page_is_streamed_as_the_careful_reader_reads_it(
    name: str, block: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(records, "STREAM_BLOCK", block)  # 64 KB: a launch's 1,900 rows across many blocks
    plain = tmp_path / name
    plain.write_bytes(gzip.decompress(data(name).read_bytes()))
    text = plain.read_text()
    body_items = [n for n, line in enumerate(text.splitlines(), start=1) if line.startswith("    ")]
    assert len(body_items) == 16  # a text body item per launch ("The system does not have any NVLink ...")
    fast = _streamed_as_careful(plain, monkeypatch)
    assert fast.source["skipped_lines"].iloc[0] == 3 * 16  # the text item, the table's header and its row
    assert f"line {body_items[0]}, {body_items[1]}" in fast.source["skipped"].iloc[0]


def _with_line(tmp_path: Path, n: int, line: str) -> Path:
    path = tmp_path / "page.csv"
    path.write_text("".join(LINES[: n - 1]) + line + "".join(LINES[n - 1 :]))
    return path


@pytest.mark.parametrize(
    "line",
    [
        ",".join(["7"] * 22) + "\n",  # not quoted, of a rule row's width (22 fields)
        ",".join(["x"] * 18) + "\n",  # not quoted, of a metric row's width (18 fields)
        '"5","663","x"\n',  # quoted, launch-like, of no row's width: damage
        '0,"\n',  # a quote not closed: read whole, its field runs on into the next line (damage there)
    ],
    ids=["rule width", "metric width", "damage", "unclosed quote"],
)
def test_a_line_the_careful_reader_would_not_skip_is_left_to_it(
    line: str, blocks_4k: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _with_line(tmp_path, 800, line)
    streamed = _streamed(monkeypatch)
    try:
        report: Any = ncu_roofline.read(path)
    except ParseError as exc:
        report = exc
    assert streamed == [False]
    try:
        careful: Any = _careful(path, monkeypatch)
    except ParseError as exc:
        careful = exc
    if isinstance(careful, ParseError):
        assert isinstance(report, ParseError) and str(report) == str(careful) and report.line == careful.line
    else:
        _assert_same(report, careful)
        assert_frame_equal(report.source, careful.source, check_exact=True)


# ------------------------------------------------------------------------------------------ the two readers agree
# Whatever a page holds, the streamed reader's answer is the careful reader's: the same frames and skipped lines,
# or the same error. Real pages in each layout the streamed reader takes, mutated (lines dropped, repeated, cut,
# bytes inserted), read in small blocks, and compared with the careful reader alone.


def _answer(read: Callable[[], Any]) -> Any:
    """What ``read()`` gives: the report, or the error as (type, message, line)."""
    try:
        return read()
    except ncu_roofline.NcuRooflineError as exc:
        return (type(exc).__name__, str(exc), getattr(exc, "line", None))


def _page_lines(kind: str) -> list[str]:
    if kind == "ragged":
        return LINES[:260]
    if kind == "12-column":
        return derive.layout(DETAILS.read_text(), derive.LAYOUT_12, old_units=True).splitlines(keepends=True)[:260]
    text = gzip.decompress(data("micro_full.details-all.csv").read_bytes()).decode()
    return text.splitlines(keepends=True)[1660:1720]  # a launch's last rows, its body items and embedded tables


@st.composite
def _mutated_page(draw: st.DrawFn) -> tuple[str, str]:
    kind = draw(st.sampled_from(["ragged", "12-column", "details-all"]))
    lines = _page_lines(kind)
    header, body = LINES[0] if kind != "12-column" else lines[0], lines[1:] if kind != "details-all" else lines
    if kind == "details-all":
        header = gzip.decompress(data("micro_full.details-all.csv").read_bytes()).decode().splitlines(True)[0]
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(body) - 1))
        what = draw(st.sampled_from(["drop", "repeat", "cut", "insert", "unquote", "blank"]))
        if what == "drop":
            del body[i]
        elif what == "repeat":
            body.insert(draw(st.integers(0, len(body))), body[i])
        elif what == "cut":
            body[i] = body[i][: draw(st.integers(0, len(body[i]) - 1))] + "\n"
        elif what == "insert":
            junk = draw(st.text(alphabet=st.sampled_from(list('",;x09 =PROF')), min_size=1, max_size=30))
            body.insert(i, junk + "\n")
        elif what == "unquote":
            body[i] = body[i].replace('"', "", 2)
        else:
            body.insert(i, "\n")
        if not body:
            break
    return kind, header + "".join(body)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(page=_mutated_page())
def test_the_streamed_reader_answers_as_the_careful_reader(
    page: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _kind, text = page
    path = tmp_path / "page.csv"
    path.write_text(text)
    with monkeypatch.context() as small:
        small.setattr(records, "STREAM_BLOCK", 4096)
        fast = _answer(lambda: ncu_roofline.read(path))
        slow = _answer(lambda: _careful(path, small))
    if isinstance(slow, tuple) or isinstance(fast, tuple):
        assert fast == slow
        return
    _assert_same(fast, slow)
    assert_frame_equal(fast.source, slow.source, check_exact=True)


def test_parsing_threads_follow_the_cpus_this_process_may_use() -> None:
    """A process pinned to one CPU (``taskset``, a batch job's share of a node) parses on one thread, however many
    CPUs the machine has; the export command's default worker count is the same figure."""
    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs an affinity mask of two CPUs or more to narrow")
    one = min(os.sched_getaffinity(0))
    code = (
        f"import os; os.sched_setaffinity(0, {{{one}}})\n"
        "from ncu_roofline.io import records\n"
        "from ncu_roofline.campaign import default_jobs\n"
        "print(records.MAX_CHUNKS, default_jobs(), os.cpu_count())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[:2] == ["1", "1"] and int(out[2]) >= 2
    assert min(8, len(os.sched_getaffinity(0))) == records.MAX_CHUNKS


def test_a_line_that_opens_a_quote_is_the_careful_readers_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `0","`: two quotes, the second opening a field the line does not close; the careful reader's CSV parse joins
    # it with the next line (damage), the streamed one counted the quotes, took them for closed and skipped the line
    lines = _page_lines("ragged")
    path = tmp_path / "page.csv"
    path.write_text(LINES[0] + '0","\n' + "".join(lines[1:]))
    with monkeypatch.context() as small:
        small.setattr(records, "STREAM_BLOCK", 4096)
        fast = _answer(lambda: ncu_roofline.read(path))
        slow = _answer(lambda: _careful(path, small))
    assert fast == slow and fast[0] == "ParseError"
    assert (
        records.quote_left_open('0","')
        and not records.quote_left_open('He said "hi')
        and not records.quote_left_open('"a","b"')
    )
