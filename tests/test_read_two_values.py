"""A metric a launch has twice in one section, with different values, on a details page: ncu writes a label once
per section, so one of the two is damage (or an edit), and neither is taken (the reader took the first one,
silently). Built from the real H200 details page (``micro_full.details.csv``): one metric row written again
after itself with another value; the golden values are the page's own numbers and the lines of the construction."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import data

import ncu_roofline
from ncu_roofline import cli
from ncu_roofline.vocabulary import TWO_VALUES

SOURCE = "micro_full.details.csv"
LABEL = "DRAM Frequency"
SECTION = "GPU Speed Of Light Throughput"
#: What the label reads as (labels.csv, the implied DRAM peak's clock).
METRIC = "dram__cycles_elapsed.avg.per_second"


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _line(fields: list[str], ragged: bool) -> str:
    """A row written as ncu writes it: every field quoted, a ragged metric row ending in a separator."""
    return ",".join('"' + f.replace('"', '""') + '"' for f in fields) + ("," if ragged else "")


def written_twice(tmp_path: Path, value: str, *, padded: bool = False) -> tuple[Path, int, str]:
    """The page with launch 0's LABEL row written again right after itself, its value ``value``: (path, the
    original row's 1-based line, its value). ``padded``: every metric row filled to the header's width with
    empty rule fields, as ncu 2021 wrote them (a page the careful reader reads)."""
    lines = data(SOURCE).read_text().splitlines()
    header = _rows(lines[0])[0]
    at = header.index("Metric Value")
    out = [lines[0]]
    found = None
    for text in lines[1:]:
        fields = _rows(text)[0]
        ragged = len(fields) == at + 2 and fields[-1] == ""
        if ragged:
            fields = fields[: at + 1]
        if padded and ragged:
            fields += [""] * (len(header) - len(fields))
        out.append(_line(fields, ragged and not padded))
        if found is None and fields[0] == "0" and fields[header.index("Metric Name")] == LABEL:
            found = (len(out), fields[at])
            copy = list(fields)
            copy[at] = value
            out.append(_line(copy, ragged and not padded))
    assert found is not None
    path = tmp_path / f"twice{'-padded' if padded else ''}.csv"
    path.write_text("\n".join(out) + "\n")
    return path, *found


def _value(report: ncu_roofline.Report, launch: int) -> float:
    values = report.values
    return float(values[METRIC].iloc[int(np.flatnonzero(values.index.get_level_values("launch_id") == launch)[0])])


@pytest.mark.parametrize("padded", [False, True], ids=["ragged", "padded"])
def test_two_values_are_not_measured_and_said_with_their_lines(tmp_path: Path, padded: bool) -> None:
    original = ncu_roofline.read(data(SOURCE))
    path, line, text = written_twice(tmp_path, "10.60", padded=padded)
    report = ncu_roofline.read(path)
    assert np.isnan(_value(report, 0))  # neither 3.20 nor 10.60 GHz
    assert _value(report, 1) == _value(original, 1) == pytest.approx(3.20e9)  # the other launches as they were
    note = report.source["not_understood"].iloc[0]
    assert (
        f"launch ID 0 of process 663 has {LABEL!r} of section {SECTION!r} 2 times {TWO_VALUES} "
        f"({text} Ghz and 10.60 Ghz, lines {line} and {line + 1}): not measured"
    ) in note
    cells = report.metrics
    mine = cells[(cells["launch_id"] == 0) & (cells["metric"] == METRIC) & (cells["section"] == SECTION)]
    assert mine["text"].tolist() == [text, "10.60"]  # kept as text
    assert mine["value"].isna().all()


def test_the_same_value_written_twice_is_kept(tmp_path: Path) -> None:
    original = ncu_roofline.read(data(SOURCE))
    path, _line_no, text = written_twice(tmp_path, "3.20")
    assert text == "3.20"
    report = ncu_roofline.read(path)
    assert _value(report, 0) == _value(original, 0) == pytest.approx(3.20e9)
    assert report.source["not_understood"].isna().all()


def test_the_command_line_warns_of_two_values(tmp_path: Path) -> None:
    path, line, text = written_twice(tmp_path, "10.60")
    r = CliRunner().invoke(cli.main, [str(path), "--format", "json", "-o", str(tmp_path / "out.json")])
    assert r.exit_code == 0
    warnings = [w for w in r.stderr.splitlines() if "warning:" in w]
    assert warnings == [
        f"ncu-roofline: warning: {path}: launch ID 0 of process 663 has {LABEL!r} of section {SECTION!r} 2 times "
        f"{TWO_VALUES} ({text} Ghz and 10.60 Ghz, lines {line} and {line + 1}): not measured"
    ]
