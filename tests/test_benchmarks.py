"""benchmarks/pipeline.py's verdict on issue 12's goals: each limit read the way the issue writes it ("<=" or "<"),
against the measurement it names, and goals whose measurements a run did not take left out."""

from __future__ import annotations

import csv
import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture
def pipeline(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # the scripts import each other, as when run from that folder
    monkeypatch.delitem(sys.modules, "pipeline", raising=False)
    return importlib.import_module("pipeline")


def _m(seconds: float, peak: float = 0.0) -> dict[str, float]:
    return {"seconds": seconds, "peak_bytes": peak}


def test_goals_at_their_limits(pipeline: ModuleType) -> None:
    size = 300_000_000
    results = {
        10_240: {"pandas": _m(0.5), "ingest": _m(0.5, 2 * size), "json": _m(1.0), "html": _m(1.01)},
        102_400: {"pandas": _m(5.0), "json": _m(10.5, 4e9), "html": _m(10.6, 3.9e9)},
    }
    got = {what: (round(figure, 6), met) for what, figure, met in pipeline.goals(results, {10_240: size})}
    assert got == {
        "JSON run <= 2.0x the bare read": (2.0, True),  # at the limit: "<=" holds
        "HTML run <= 2.0x the bare read": (2.02, False),
        "ingest <= 1.0x the bare read": (1.0, True),
        "ingest peak < 2x the file": (2.0, False),  # at the limit: "<" does not
        "JSON run <= 10.5x its 10,240-launch time": (10.5, True),
        "HTML run <= 10.5x its 10,240-launch time": (round(10.6 / 1.01, 6), True),
        "JSON run peak < 4 GB": (4e9, False),
        "HTML run peak < 4 GB": (3.9e9, True),
    }


def test_goals_of_measurements_not_taken_are_left_out(pipeline: ModuleType) -> None:
    # only the JSON run, and 102,400 launches without 10,240: no ratio to an unmeasured time is made up
    results = {102_400: {"pandas": _m(5.0), "json": _m(20.0, 3e9)}}
    assert [what for what, _, _ in pipeline.goals(results, {102_400: 3 * 10**9})] == ["JSON run peak < 4 GB"]
    assert pipeline.goals({1_024: {"pandas": _m(0.1), "json": _m(0.5)}}, {1_024: 10**7}) == []


def test_the_stages_after_the_read_are_summed_and_set_against_the_bare_read(pipeline: ModuleType) -> None:
    stages = {"read": 0.5, "read_cpu": 1.0, "analyse": 0.4, "summary": 0.1, "json": 0.25, "view": 9.0, "page": 9.0}
    line = pipeline.after_read(stages, {"seconds": 0.5, "cpu": 0.55})
    # 0.4 + 0.1 + 0.25 = 0.75 s, 1.5x a 0.5 s bare read; the HTML stages (view, page) are not the JSON run's
    assert line.startswith("after the read: analyse + summary + json 0.75 s, 1.50x the bare read")
    assert "the read 0.50 s with 1.00 s of CPU (2.0 cores)" in line
    assert line.endswith("the bare read 0.55 s of CPU")


def test_per_cpu_second_sets_each_measurements_cpu_against_the_bare_reads(pipeline: ModuleType) -> None:
    r = {"pandas": {"cpu": 0.8}, "ingest": {"cpu": 1.0}, "json": {"cpu": 1.6}, "stages": {"cpu": 9.0}}
    assert pipeline.per_cpu(r) == "ingest 1.25x, json 2.00x"  # no HTML run measured, the stages are no run
    assert pipeline.per_cpu({"json": {"cpu": 1.6}}) == ""  # without the bare read: nothing made up


def test_cpu_between_two_readings_counts_user_and_system_time(pipeline: ModuleType) -> None:
    import resource

    def reading(user: float, system: float) -> resource.struct_rusage:  # the other 14 fields play no part
        return resource.struct_rusage((user, system, *([0] * 14)))

    got = pipeline.cpu_between(reading(1.25, 0.5), reading(2.0, 0.75), "read_")
    assert got == {"read_cpu": 1.0, "read_sys": 0.25}  # (2.0 - 1.25) + (0.75 - 0.5), and the system part alone
    assert pipeline.user_cpu({"cpu": 1.0, "sys": 0.25}) == 0.75  # the growth's second line: the code's own work


def test_an_interrupted_build_leaves_no_page_to_reuse(
    pipeline: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--keep`` reuses a page that is there: a build stopped half-way (Ctrl-C, a killed run) must not leave one
    with fewer launches than its name says."""
    ingest = sys.modules["ingest"]
    out = tmp_path / "bench-32.details.csv"
    sample = (ingest.DATA / "micro_full.details.csv").read_text().count("\n") - 1  # its 16 launches' rows
    assert ingest.build_details(out, 32) == 2 * sample  # two copies of the sample
    assert out.read_text().count("\n") == 1 + 2 * sample and [p.name for p in tmp_path.iterdir()] == [out.name]
    out.unlink()

    class Stop(Exception):
        pass

    real = ingest._Template.write
    calls = []

    def interrupted(self: object, fh: object, base: int, k: int) -> int:
        calls.append(k)
        if k == 1:
            raise Stop
        return int(real(self, fh, base, k))

    monkeypatch.setattr(ingest._Template, "write", interrupted)
    with pytest.raises(Stop):
        ingest.build_details(out, 32, distinct=True)
    assert calls == [0, 1] and not out.exists()


def test_the_2021_page_is_the_sample_in_the_columns_of_ncu_2021(pipeline: ModuleType, tmp_path: Path) -> None:
    """``--page 2021``: the sample's metric rows again and again in ncu 2019.5-2021's 12 columns, no rule rows."""
    import ncu_roofline

    ingest = sys.modules["ingest"]
    sample = list(csv.reader((ingest.DATA / "micro_full.details.csv").read_text().splitlines()))
    metric_rows = [r for r in sample[1:] if r[sample[0].index("Metric Name")]]
    out = tmp_path / "cols12-32.details.csv"
    assert ingest.build_details(out, 32, columns=ingest.COLUMNS_2021) == 2 * len(metric_rows)
    page = list(csv.reader(out.read_text().splitlines()))
    assert page[0] == list(ingest.COLUMNS_2021) and {len(r) for r in page} == {12}
    name = page[0].index("Metric Name")
    assert [r[name] for r in page[1:]] == [r[sample[0].index("Metric Name")] for r in metric_rows] * 2
    report = ncu_roofline.read(out)
    assert len(report.launches) == 32 and report.launches["launch_id"].tolist() == list(range(32))
    assert len(report.rules) == 0 and int(report.source["metric_rows"].iloc[0]) == 2 * len(metric_rows)


def test_the_all_page_is_the_print_details_all_sample_again(pipeline: ModuleType, tmp_path: Path) -> None:
    """``--page all``: the --print-details all sample's lines again with new launch IDs; its text body items and
    embedded tables as they are, and read as the sample is read, twice over."""
    import ncu_roofline

    ingest = sys.modules["ingest"]
    sample_path = ingest.DATA / "micro_full.details-all.csv.gz"
    header, body = ingest._rows(sample_path)
    out = tmp_path / "all-32.details.csv"
    assert ingest.build_details(out, 32, sample="micro_full.details-all.csv") == 2 * len(body)
    lines = out.read_text().splitlines(keepends=True)
    others = [line for line in body if not ingest._LAUNCH_RECORD.match(line)]  # text items, tables, blank lines
    assert len(others) == 4 * 16 and lines[0] == header
    assert [line for line in lines[1:] if not ingest._LAUNCH_RECORD.match(line)] == others * 2
    sample, report = ncu_roofline.read(sample_path), ncu_roofline.read(out)
    assert report.launches["launch_id"].tolist() == list(range(32))
    assert report.source["skipped_lines"].iloc[0] == 2 * sample.source["skipped_lines"].iloc[0] == 2 * 3 * 16
    assert int(report.source["metric_rows"].iloc[0]) == 2 * int(sample.source["metric_rows"].iloc[0])
    assert len(report.rules) == 2 * len(sample.rules)


@pytest.fixture
def merge(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.delitem(sys.modules, "merge", raising=False)
    return importlib.import_module("merge")


def test_merge_growth_is_each_size_against_the_one_before(merge: ModuleType) -> None:
    results = {25: {"json": _m(1.0, 100.0)}, 100: {"json": _m(9.0, 250.0)}, 50: {"json": _m(2.0, 150.0)}}
    assert merge.growth(results, "json", "seconds") == {50: 2.0, 100: 4.5}
    assert merge.growth(results, "json", "peak_bytes") == {50: 1.5, 100: 250.0 / 150.0}


def test_merge_folders_are_n_copies_of_the_sample_and_an_interrupted_one_is_built_again(
    merge: ModuleType, tmp_path: Path
) -> None:
    folder = merge.build_folder(tmp_path, 3)
    assert sorted(p.name for p in folder.iterdir()) == ["run0001.raw.csv", "run0002.raw.csv", "run0003.raw.csv"]
    assert all(p.read_bytes() == merge.SAMPLE.read_bytes() for p in folder.iterdir())
    (folder / "run0003.raw.csv").unlink()  # a folder short of its files is not taken as it is
    assert len(list(merge.build_folder(tmp_path, 3).iterdir())) == 3
    assert not (tmp_path / "3.part").exists()
