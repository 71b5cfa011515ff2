"""A metric a launch has twice in one section, with different values, on a details page: ncu writes a label once
per section, so one of the two is damage (or an edit), and neither is taken (the reader took the first one,
silently). Built from the real H200 details page (``micro_full.details.csv``): one metric row written again
after itself with another value; the golden values are the page's own numbers and the lines of the construction."""

from __future__ import annotations

import csv
import gzip
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


@pytest.mark.parametrize("padded", [False, True], ids=["ragged", "padded"])
def test_a_second_copy_that_is_no_number_is_a_second_value(tmp_path: Path, padded: bool) -> None:
    """A copy whose digits are grouped wrongly ("3,2.0") is no number: the two copies cannot be told equal, so
    neither is taken, on either reader (the streamed one kept the first, the careful one took neither), and the
    cell is named as no number too."""
    path, line, text = written_twice(tmp_path, "3,2.0", padded=padded)
    report = ncu_roofline.read(path)
    assert np.isnan(_value(report, 0))
    note = report.source["not_understood"].iloc[0]
    assert f"'3,2.0' (line {line + 1})" in note
    assert f"2 times {TWO_VALUES} ({text} Ghz and 3,2.0 Ghz, lines {line} and {line + 1}): not measured" in note


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


def test_a_metric_another_section_also_gives_is_not_measured_either(tmp_path: Path) -> None:
    """On a --print-details all page, Duration is in Speed Of Light and again under PM Sampling: with two values
    of the first, the launch's duration is not measured at all (PM Sampling's was taken, under a note saying
    "not measured")."""
    lines = gzip.decompress(data("llm_full.details-all.csv.gz").read_bytes()).decode().splitlines(keepends=True)
    header = _rows(lines[0])[0]
    name, section, at = header.index("Metric Name"), header.index("Section Name"), header.index("Metric Value")
    target = next(
        i for i, line in enumerate(lines) if line.startswith('"1",')
        and (f := _rows(line)[0])[name] == "Duration" and f[section] == SECTION
    )  # fmt: skip
    others = [i for i, line in enumerate(lines) if line.startswith('"1",') and _rows(line)[0][name] == "Duration"]
    assert len(others) > 1  # the page gives launch 1's duration in another section too
    fields = _rows(lines[target])[0]
    copy = lines[target].replace(f'"{fields[at]}"', f'"1{fields[at]}"')
    path = tmp_path / "all.csv"
    path.write_text("".join([*lines[: target + 1], copy, *lines[target + 1 :]]))
    report = ncu_roofline.read(path)
    durations = report.values["gpu__time_duration.sum"]
    launch = report.values.index.get_level_values("launch_id")
    assert np.isnan(durations[launch == 1]).all()
    original = ncu_roofline.read(data("llm_full.details-all.csv.gz")).values["gpu__time_duration.sum"]
    assert (durations.to_numpy()[launch != 1] == original.to_numpy()[launch != 1]).all()
    assert f"lines {target + 1} and {target + 2}" in report.warnings[0]


def test_every_warning_is_kept_however_many_notes_a_page_has(tmp_path: Path) -> None:
    """A page with more notes than ``source.not_understood`` shows (five) keeps its warnings whole: the first
    metric written twice with how many more, and the page being cut short (the command line warned of neither
    where the notes were many: it read them from the shortened text)."""
    lines = data(SOURCE).read_text().splitlines()
    header = _rows(lines[0])[0]
    at, name = header.index("Metric Value"), header.index("Metric Name")
    out = [lines[0]]
    for text in lines[1:]:
        out.append(text)
        fields = _rows(text)[0]
        if fields[0] in ("0", "1", "2") and fields[name] in ("Duration", "Elapsed Cycles", "DRAM Throughput"):
            v = fields[at]  # another number as ncu writes one: a digit more in front, its groups of three kept
            other = f"9,{v}" if "," in v and len(v.split(",")[0]) == 3 else f"9{v}"
            out.append(text.replace(f'"{v}",', f'"{other}",'))  # nine labels twice, two values
    path = tmp_path / "many.csv"
    path.write_text("\n".join(out[:-20]) + "\n")  # and cut inside the last launch
    report = ncu_roofline.read(path)
    assert report.source["not_understood"].iloc[0].startswith("10 not understood")
    cut, two = report.warnings
    assert cut.startswith(f"{path}: the page may be cut short: its last launch (ID 15 of process 663) ends after")
    assert two.startswith(f"{path}: launch ID 0 of process 663 has 'Elapsed Cycles' of section {SECTION!r} 2 times")
    assert two.endswith("; and 8 more such metrics")
    r = CliRunner().invoke(cli.main, [str(path), "--format", "json", "-o", str(tmp_path / "out.json")])
    assert [w.removeprefix("ncu-roofline: warning: ") for w in r.stderr.splitlines() if "warning:" in w] == [cut, two]
