"""ncu_roofline.campaign: many real reports as one Parquet dataset, read back with pyarrow.dataset."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from conftest import analysed, data, read_shared

from ncu_roofline.campaign import FRAMES, ExportOptions, export, open_dataset, partition_folder
from ncu_roofline.errors import EXIT_INPUT, InputError, OutputError
from ncu_roofline.io import report_names

INPUTS = ("micro_full.raw.csv", "micro_roof.raw.csv.gz", "llm_full.details.csv.gz")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """The three reports exported with two worker processes."""
    root = tmp_path_factory.mktemp("campaign") / "ds"
    paths = [data(n) for n in INPUTS]
    results = export(list(zip(paths, report_names(paths), strict=True)), root, ExportOptions(), jobs=2)
    assert [r.status for r in results] == ["ok", "ok", "ok"]
    return root, paths


def test_each_frame_is_one_hive_dataset_partitioned_by_report(dataset: tuple[Path, list[Path]]) -> None:
    root, paths = dataset
    assert sorted(p.name for p in root.iterdir()) == sorted(FRAMES)
    for frame in FRAMES:
        assert sorted(p.name for p in (root / frame).iterdir()) == sorted(
            f"report={n}" for n in ("micro_full.raw", "micro_roof.raw", "llm_full.details")
        )
    launches = ds.dataset(root / "launches", format="parquet", partitioning="hive").to_table().to_pandas()
    counts = launches.groupby("report", observed=True).size().to_dict()
    assert counts == {p: len(read_shared(path).launches) for p, path in zip(report_names(paths), paths, strict=True)}


def test_dataset_holds_the_analysis_frames(dataset: tuple[Path, list[Path]]) -> None:
    root, paths = dataset
    analysis = analysed(paths[0])
    verdicts = open_dataset(root, "verdicts").to_table(filter=ds.field("report") == "micro_full.raw").to_pandas()
    verdicts = verdicts.sort_values("launch_id").reset_index(drop=True)
    assert verdicts["limiter"].tolist() == analysis.verdicts["limiter"].astype(object).tolist()
    metrics = open_dataset(root, "metrics").to_table(filter=ds.field("report") == "micro_full.raw")
    assert metrics.num_rows == len(analysis.report.metrics)
    sources = open_dataset(root, "sources").to_table().to_pandas().set_index("report")
    assert sources.loc["micro_roof.raw", "path"] == str(paths[1])


def test_every_partition_of_a_frame_has_the_same_schema(dataset: tuple[Path, list[Path]]) -> None:
    root, _ = dataset
    for frame in FRAMES:
        schemas = {pq.read_schema(f).remove_metadata() for f in (root / frame).glob("*/part-0.parquet")}
        assert len(schemas) == 1, frame
        assert "report" not in schemas.pop().names  # the partition key lives in the folder name


def test_reports_already_in_the_dataset_need_force(dataset: tuple[Path, list[Path]], tmp_path: Path) -> None:
    root = tmp_path / "ds"
    shutil.copytree(dataset[0], root)
    path = data("micro_full.raw.csv")
    with pytest.raises(OutputError, match=r"already holds 1 of these reports \(micro_full.raw\); use --force"):
        export([(path, "micro_full.raw")], root, ExportOptions())
    before = (root / "launches" / "report=micro_full.raw" / "part-0.parquet").stat().st_mtime_ns
    [result] = export([(path, "micro_full.raw")], root, ExportOptions(force=True), jobs=1)
    assert result.status == "ok"
    assert (root / "launches" / "report=micro_full.raw" / "part-0.parquet").stat().st_mtime_ns >= before
    # a new report is added beside the others
    [added] = export([(data("micro_metrics.raw.csv"), "micro_metrics.raw")], root, ExportOptions(), jobs=1)
    assert added.status == "ok"
    reports = open_dataset(root, "launches").to_table().column("report").unique().to_pylist()
    assert sorted(reports) == ["llm_full.details", "micro_full.raw", "micro_metrics.raw", "micro_roof.raw"]


def test_a_bad_file_fails_alone_and_an_empty_one_is_skipped(tmp_path: Path) -> None:
    bad = tmp_path / "notes.csv"
    bad.write_text("just,some,csv\n1,2,3\n")
    inputs = [(data("micro_full.raw.csv"), "micro_full.raw"), (bad, "notes"), (data("micro_full.session.csv"), "s")]
    results = export(inputs, tmp_path / "ds", ExportOptions(), jobs=2)
    assert [r.status for r in results] == ["ok", "failed", "skipped"]
    assert results[1].exit_code == EXIT_INPUT
    assert "notes.csv" in results[1].message
    assert sorted(p.name for p in (tmp_path / "ds" / "launches").iterdir()) == ["report=micro_full.raw"]


def test_filters_apply_per_report(tmp_path: Path) -> None:
    inputs = [(data("micro_full.raw.csv"), "micro_full.raw"), (data("llm_full.raw.csv.gz"), "llm_full.raw")]
    results = export(inputs, tmp_path / "ds", ExportOptions(kernel=("tiny_launch",), metrics=False), jobs=1)
    assert [(r.status, r.launches) for r in results] == [("ok", 4), ("skipped", 0)]
    assert "selects none" in results[1].message
    assert not (tmp_path / "ds" / "metrics").exists()


def test_report_names_that_look_like_numbers_or_hold_slashes_stay_text(tmp_path: Path) -> None:
    for run in ("0001", "0002"):
        (tmp_path / run).mkdir()
        shutil.copy(data("micro_full.raw.csv"), tmp_path / run / "report.csv")
    paths = [tmp_path / "0001" / "report.csv", tmp_path / "0002" / "report.csv"]
    names = report_names(paths)
    assert names == ["0001/report", "0002/report"]
    export(list(zip(paths, names, strict=True)), tmp_path / "ds", ExportOptions(metrics=False), jobs=1)
    assert partition_folder(tmp_path / "ds", "launches", "0001/report").name == "report=0001%2Freport"
    table = open_dataset(tmp_path / "ds", "launches").to_table()
    assert table.schema.field("report").type == pa.string()
    assert sorted(table.column("report").unique().to_pylist()) == names


def test_report_names_of_a_file_and_its_gzip_twin_keep_their_whole_names(tmp_path: Path) -> None:
    # one folder, one stem: names without the suffixes would be equal (this was "the same file is given twice")
    shutil.copy(data("micro_full.raw.csv"), tmp_path / "run.raw.csv")
    shutil.copy(data("micro_roof.raw.csv.gz"), tmp_path / "run.raw.csv.gz")
    (tmp_path / "other").mkdir()
    shutil.copy(data("micro_full.raw.csv"), tmp_path / "other" / "run.raw.csv")
    paths = [tmp_path / "run.raw.csv", tmp_path / "run.raw.csv.gz", tmp_path / "other" / "run.raw.csv"]
    assert report_names(paths) == ["run.raw.csv", "run.raw.csv.gz", "other/run.raw"]
    assert report_names(paths[:2]) == ["run.raw.csv", "run.raw.csv.gz"]


def test_report_names_take_as_many_folders_as_tell_files_apart(tmp_path: Path) -> None:
    # two copies of one tree, alike in their innermost ten folders: the eleventh tells them apart
    tail = "/".join(f"d{i}" for i in range(10))
    paths = [tmp_path / side / tail / "report.csv" for side in ("left", "right")]
    assert report_names(paths) == [f"left/{tail}/report", f"right/{tail}/report"]
    # the root is never part of a name
    assert report_names([Path("/report.csv"), Path("/x/report.csv")]) == ["report", "x/report"]


def test_report_names_refuse_the_same_file_twice_naming_it(tmp_path: Path) -> None:
    shutil.copy(data("micro_full.raw.csv"), tmp_path / "run.csv")
    twice = tmp_path / "sub" / ".." / "run.csv"
    (tmp_path / "sub").mkdir()
    with pytest.raises(InputError, match="the same file is given twice") as err:
        report_names([tmp_path / "run.csv", twice])
    assert str(err.value).startswith(f"{twice}: ")


def test_a_missing_parent_folder_is_an_output_error(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="does not exist"):
        export([(data("micro_full.raw.csv"), "m")], tmp_path / "a" / "b", ExportOptions())


def test_the_command_line_doc_names_every_frame() -> None:
    """docs/cli.md's list of the dataset's frames is the dataset's (it left out `rules`)."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    paragraph = doc[doc.index("\nFrames: ") : doc.index("\n\n", doc.index("\nFrames: "))]
    for frame in FRAMES:
        assert f"`{frame}`" in paragraph, frame
