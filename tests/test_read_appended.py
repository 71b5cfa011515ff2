"""Two captures in one file: ``mpirun -np 2 ncu --csv ./app > out.csv`` (one ncu per rank, each printing its page
with its header) or ``ncu --csv ./app >> out.csv`` twice. Built here from the real captures of ncu 2025.3
(``direct_*.stdout.csv``: a page with ncu's messages and the program's output around it), the second copy given
another process ID as a second rank has; the golden values are the single capture's own numbers."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import data

import ncu_roofline
from ncu_roofline.io.records import REPEATED_HEADER

#: The file, its process ID and the launches (or summary groups) of the capture.
CAPTURES = {
    "raw": ("direct_raw_metrics.stdout.csv", 4037, 16),
    "summary": ("direct_summary.stdout.csv", 4236, 13),
    "details": ("direct_details.stdout.csv", 3837, 16),
}


def rank(text: str, pid: int, other: int) -> str:
    """The capture as another process (MPI rank) prints it: its process ID in the records and ncu's messages."""
    return re.sub(rf'(^"[^"]*",)?"{pid}"', lambda m: f'{m.group(1) or ""}"{other}"', text, flags=re.M).replace(
        f"process {pid}", f"process {other}"
    )


def appended(tmp_path: Path, page: str, other: int | None) -> tuple[Path, str]:
    name, pid, _n = CAPTURES[page]
    text = data(name).read_text()
    second = text if other is None else rank(text, pid, other)
    assert other is None or f'"{other}"' in second
    path = tmp_path / f"two-{page}.csv"
    path.write_text(text + second)
    return path, text


@pytest.mark.parametrize("page", list(CAPTURES))
def test_two_ranks_in_one_file_are_both_read(tmp_path: Path, page: str) -> None:
    path, text = appended(tmp_path, page, 99999)
    name, pid, n = CAPTURES[page]
    one = ncu_roofline.read(data(name))
    two = ncu_roofline.read(path)
    assert len(one.launches) == n and len(two.launches) == 2 * n
    assert sorted(two.launches["process_id"].unique().tolist()) == sorted([pid, 99999])
    # each rank's launches have the single capture's values (ncu's own numbers), in its order (a summary page
    # numbers its groups on, so the second rank's are 13..25)
    v1 = one.values
    for p in (pid, 99999):
        v2 = two.values.xs(p, level="process_id")
        assert list(v2.columns) == list(v1.columns)
        np.testing.assert_array_equal(v2.to_numpy(), v1.to_numpy())
    # the second header is skipped and said so, at its line
    header_line = text.splitlines().index(next(t for t in text.splitlines() if t.startswith(('"ID"', '"Process'))))
    second = len(text.splitlines()) + header_line + 1
    skipped = two.source["skipped"].iloc[0]
    assert REPEATED_HEADER in skipped and f"line {second}" in skipped


@pytest.mark.parametrize("page", list(CAPTURES))
def test_one_process_captured_twice_is_refused(tmp_path: Path, page: str) -> None:
    """The same process ID twice (a capture appended to itself, or a container reusing a PID): the launches of
    both would merge into one (the details page took the first row of each metric, silently)."""
    path, _ = appended(tmp_path, page, None)
    with pytest.raises(ncu_roofline.InputError, match="two captures of one process appended") as err:
        ncu_roofline.read(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_a_second_raw_page_in_other_units_is_refused(tmp_path: Path) -> None:
    name, pid, _n = CAPTURES["raw"]
    text = data(name).read_text()
    second = rank(text, pid, 99999)
    lines = second.splitlines(keepends=True)
    at = next(i for i, t in enumerate(lines) if t.startswith('"ID"')) + 1  # the units row
    assert '"ns"' in lines[at]
    lines[at] = lines[at].replace('"ns"', '"us"', 1)  # ncu picked another unit for the duration
    path = tmp_path / "units.csv"
    path.write_text(text + "".join(lines))
    with pytest.raises(ncu_roofline.FormatError, match="not the units row") as err:
        ncu_roofline.read(path)
    assert f":{len(text.splitlines()) + at + 1}:" in str(err.value)


def test_a_page_of_another_kind_appended_is_refused(tmp_path: Path) -> None:
    """A details capture with a summary capture appended (another rank's, or another run's): its rows are not the
    details page's (they were skipped as "a table embedded by ncu" and the second capture lost without a word)."""
    details = data("direct_details.stdout.csv").read_text()
    summary = rank(data("direct_summary.stdout.csv").read_text(), 4236, 4237)
    path = tmp_path / "mixed.csv"
    path.write_text(details + summary)
    second = len(details.splitlines()) + next(
        i for i, t in enumerate(summary.splitlines(), 1) if t.startswith('"Process ID"')
    )
    with pytest.raises(ncu_roofline.FormatError, match=r"a second ncu page here \(summary page\) after the details"):
        ncu_roofline.read(path)
    with pytest.raises(ncu_roofline.FormatError, match=f"mixed.csv:{second}:"):
        ncu_roofline.read(path)


def _records(text: str) -> tuple[list[str], list[str]]:
    """(the lines up to and with the header, the records after it) of a capture."""
    lines = text.splitlines(keepends=True)
    at = next(i for i, t in enumerate(lines) if t.startswith('"ID"')) + 1
    return lines[:at], [t for t in lines[at:] if t.startswith('"')]


@pytest.mark.parametrize("page", ["details-names", "details"])
def test_one_process_appended_without_its_header_is_refused(tmp_path: Path, page: str) -> None:
    """``tail -n +2 b.csv >> a.csv``: the second capture's records after the first's, no header between, the same
    process ID (one process profiled twice, or a PID reused): its launch IDs start again at 0, and each launch
    would take the rows of two (it was read as 16 launches, each metric given twice "not measured"). Refused,
    naming the launch; the same with the second capture's Host Name changed (another node)."""
    name = "micro_full.details.csv" if page == "details" else "micro_full.details-names.csv"
    head, records = _records(data(name).read_text())
    for second in (records, [t.replace('"127.0.0.1"', '"node2"') for t in records]):
        path = tmp_path / "appended.csv"
        path.write_text("".join([*head, *records, *second]))
        with pytest.raises(ncu_roofline.FormatError, match="two captures of one process appended") as err:
            ncu_roofline.read(path)
        assert "launch ID 0 of process 663 has rows in two places" in str(err.value)


def test_two_ranks_printing_at_once_are_both_read(tmp_path: Path) -> None:
    """Two ranks' pages whose records interleave line by line (both printing to one terminal at once): each
    launch's rows are together within its process, so each rank's 16 launches are read with the single capture's
    values."""
    name, pid, n = CAPTURES["details"]
    text = data(name).read_text()
    head, mine = _records(text)
    _, theirs = _records(rank(text, pid, 99999))
    mixed = [t for pair in zip(mine, theirs, strict=True) for t in pair]
    path = tmp_path / "interleaved.csv"
    path.write_text("".join([*head, *mixed]))
    one, two = ncu_roofline.read(data(name)), ncu_roofline.read(path)
    assert len(two.launches) == 2 * n
    for p in (pid, 99999):
        np.testing.assert_array_equal(two.values.xs(p, level="process_id").to_numpy(), one.values.to_numpy())
