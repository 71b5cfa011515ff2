"""Campaigns: the tidy frames of many reports as one Parquet dataset, one partition per report, built in parallel.

Layout (Hive partitioning, readable by ``pyarrow.dataset``, DuckDB, Spark, Dask, Polars)::

    DIR/<frame>/report=<report name>/part-0.parquet

one folder per frame (``FRAMES``), one partition per report. The ``report`` column is the partition key (it is
not stored in the files; readers restore it from the folder name, percent-encoded where the name needs it).
Every file of a frame has the same schema, whatever the report holds (``arrow_schema``), so a dataset of
thousands of reports reads as one table. Each report is read, analysed and written by one worker process
(``concurrent.futures.ProcessPoolExecutor``); a report that fails does not stop the others.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import traceback
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from .analysis import Analysis, analyze
from .device import PEAK_COLUMNS
from .errors import EXIT_INTERNAL, FormatError, NcuRooflineError, NoLaunchesError, OutputError
from .filters import filter_analysis
from .io import read_one
from .io.records import usable_cpus

#: The frames of a campaign dataset, each its own folder: what they hold is documented on ``Analysis`` and
#: ``ncu_roofline.model``; ``quantities`` and ``peaks`` have their LAUNCH_KEY index as columns, ``peaks`` only
#: the ``PEAK_COLUMNS``; ``sources`` is the file each report was read from.
FRAMES: tuple[str, ...] = (
    "launches",
    "verdicts",
    "roofline",
    "utilization",
    "hints",
    "quantities",
    "peaks",
    "sources",
    "rules",
    "metrics",
)
PARTITION_KEY = "report"
PART_FILE = "part-0.parquet"


def tidy_frames(analysis: Analysis, *, metrics: bool = True) -> dict[str, pd.DataFrame]:
    """The frames of ``FRAMES`` for one analysis, each with a ``report`` column (``metrics``: include the long
    metrics frame, by far the largest)."""
    frames = {
        "launches": analysis.launches,
        "verdicts": analysis.verdicts,
        "roofline": analysis.roofline,
        "utilization": analysis.utilization,
        "hints": analysis.hints,
        "quantities": analysis.quantities.reset_index(),
        "peaks": analysis.peaks[[c for c in PEAK_COLUMNS if c in analysis.peaks.columns]].reset_index(),
        "sources": analysis.report.source,
        "rules": analysis.report.rules,
    }
    if metrics:
        frames["metrics"] = analysis.report.metrics
    return frames


def _arrow_type(dtype: object) -> pa.DataType:
    kind = str(dtype)
    if kind == "float64":
        return pa.float64()
    if kind in ("Int64", "int64"):
        return pa.int64()
    if kind in ("bool", "boolean"):
        return pa.bool_()
    return pa.large_string()  # string, str, object, category: text


def arrow_schema(frame: pd.DataFrame, *, drop: Sequence[str] = ()) -> pa.Schema:
    """The Arrow schema a frame is stored with: floats, 64-bit integers, booleans, and text for everything else
    (categories and object columns too), so the files of every report agree."""
    return pa.schema([(str(c), _arrow_type(frame[c].dtype)) for c in frame.columns if c not in drop])


def to_arrow(frame: pd.DataFrame, *, drop: Sequence[str] = ()) -> pa.Table:
    """A frame as an Arrow table with ``arrow_schema`` (columns in ``drop`` left out)."""
    schema = arrow_schema(frame, drop=drop)
    data = frame.drop(columns=list(drop))
    for name, dtype in zip(data.columns, data.dtypes, strict=True):
        if _arrow_type(dtype) == pa.large_string() and str(dtype) != "string":
            data[name] = data[name].astype("string")
    table: pa.Table = pa.Table.from_pandas(data, schema=schema, preserve_index=False)
    return table.replace_schema_metadata(None)


def partition_folder(root: Path, frame: str, report: str) -> Path:
    """``root/<frame>/report=<name>``: the name percent-encoded where it has ``/``, ``=``, ``%`` or spaces."""
    return root / frame / f"{PARTITION_KEY}={urllib.parse.quote(report, safe='')}"


@dataclass(frozen=True)
class ExportOptions:
    """How each report of a campaign is analysed and written."""

    device: str | None = None
    peaks: Mapping[str, float] = field(default_factory=dict)
    kernel: tuple[str, ...] = ()
    nvtx: tuple[str, ...] = ()
    metrics: bool = True
    force: bool = False


@dataclass(frozen=True)
class ExportResult:
    """What became of one report: ``status`` "ok", "skipped" (nothing selected) or "failed" (with the message,
    the exit code its error carries, and for an unexpected error the traceback)."""

    path: str
    report: str
    status: str
    launches: int = 0
    files: tuple[str, ...] = ()
    message: str = ""
    exit_code: int = 0
    traceback: str = ""
    not_an_export: bool = False  # the file is not an ncu export (FormatError): a folder's stray file is skipped


def dataset_tables(analysis: Analysis, *, metrics: bool = True) -> dict[str, pa.Table]:
    """The dataset files of an analysis, ``<frame>/report=<name>/part-0.parquet`` -> table (without the
    ``report`` column: the folder name carries it), one per frame and report. ``ncu-roofline REPORT --format
    parquet`` and ``export`` both write these, so the two layouts are one."""
    out: dict[str, pa.Table] = {}
    reports = list(dict.fromkeys(str(r) for r in analysis.launches[PARTITION_KEY].dropna()))
    for name, frame in tidy_frames(analysis, metrics=metrics).items():
        for report in reports:
            part = frame[(frame[PARTITION_KEY].astype("string") == report).fillna(False).to_numpy(dtype=bool)]
            folder = partition_folder(Path(), name, report)
            out[(folder / PART_FILE).as_posix()] = to_arrow(part, drop=[PARTITION_KEY])
    return out


def write_partition(analysis: Analysis, root: Path, report: str, *, metrics: bool, force: bool) -> list[Path]:
    """Write one report's frames into its partitions under ``root`` (replacing them only with ``force``)."""
    written = []
    for name, frame in tidy_frames(analysis, metrics=metrics).items():
        folder = partition_folder(root, name, report)
        if folder.exists():
            if not force:
                raise OutputError(f"{folder}: this report is already in the dataset; use --force to replace it")
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        target = folder / PART_FILE
        tmp = folder / f".{PART_FILE}.tmp"
        pq.write_table(to_arrow(frame, drop=[PARTITION_KEY]), tmp)
        os.replace(tmp, target)
        written.append(target)
    return written


def export_one(path: str, report: str, root: str, options: ExportOptions) -> ExportResult:
    """Read, analyse and write one report (the worker of ``export``); never raises."""
    try:
        analysis = analyze(read_one(path, report), device=options.device, peaks=dict(options.peaks))
        if len(analysis.launches) == 0:
            return ExportResult(path, report, "skipped", message="no kernel launches in this file")
        try:
            analysis = filter_analysis(analysis, options.kernel, options.nvtx)
        except NoLaunchesError as exc:
            return ExportResult(path, report, "skipped", message=str(exc))
        try:
            files = write_partition(analysis, Path(root), report, metrics=options.metrics, force=options.force)
        except OSError as exc:
            raise OutputError(f"{root}: cannot write the partition of {report}: {exc.strerror or exc}") from exc
        return ExportResult(path, report, "ok", launches=len(analysis.launches), files=tuple(str(f) for f in files))
    except NcuRooflineError as exc:
        return ExportResult(
            path,
            report,
            "failed",
            message=str(exc),
            exit_code=exc.exit_code,
            not_an_export=isinstance(exc, FormatError),
        )
    except Exception as exc:
        return ExportResult(
            path,
            report,
            "failed",
            message=f"internal error: {type(exc).__name__}: {exc}",
            exit_code=EXIT_INTERNAL,
            traceback=traceback.format_exc(),
        )


def open_dataset(root: str | Path, frame: str) -> ds.Dataset:
    """One frame of a campaign dataset as a ``pyarrow.dataset.Dataset``, ``report`` read as text (a report named
    ``0001`` stays ``"0001"``): ``open_dataset("campaign", "verdicts").to_table().to_pandas()``."""
    if frame not in FRAMES:
        raise ValueError(f"unknown frame {frame!r}: expected one of {', '.join(FRAMES)}")
    partitioning = ds.partitioning(pa.schema([(PARTITION_KEY, pa.string())]), flavor="hive")
    return ds.dataset(Path(root) / frame, format="parquet", partitioning=partitioning)


def existing_partitions(root: Path, reports: Iterable[str]) -> list[str]:
    """The reports that already have a partition in some frame of the dataset at ``root``."""
    return [r for r in reports if any(partition_folder(root, f, r).exists() for f in FRAMES)]


def default_jobs() -> int:
    """Worker processes by default: the CPUs this process may run on."""
    return usable_cpus()


def _context() -> multiprocessing.context.BaseContext:
    # forkserver, not fork: forking a process whose Arrow and BLAS thread pools are running can deadlock.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def export(
    inputs: Sequence[tuple[Path, str]],
    root: Path,
    options: ExportOptions,
    *,
    jobs: int | None = None,
    on_result: Callable[[ExportResult], None] | None = None,
) -> list[ExportResult]:
    """Export every ``(path, report name)`` into the dataset at ``root`` with up to ``jobs`` worker processes.

    ``root`` is created if missing (its parent must exist). Before any work, a report already in the dataset is
    an ``OutputError`` unless ``options.force``. Returns one result per input, in input order; ``on_result``
    is called as each finishes (for a progress bar)."""
    if root.exists() and not root.is_dir():
        raise OutputError(f"{root}: exists and is not a folder")
    if not root.parent.is_dir():
        raise OutputError(f"{root}: cannot create: the folder {root.parent} does not exist")
    if not options.force:
        there = existing_partitions(root, [name for _, name in inputs])
        if there:
            some = ", ".join(there[:5]) + (f" and {len(there) - 5} more" if len(there) > 5 else "")
            raise OutputError(
                f"{root}: already holds {len(there)} of these reports ({some}); use --force to replace them"
            )
    try:
        root.mkdir(exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{root}: cannot create: {exc.strerror or exc}") from exc
    jobs = max(1, min(jobs or default_jobs(), len(inputs)))
    results: dict[int, ExportResult] = {}
    for i, result in _run(inputs, root, options, jobs):
        results[i] = result
        if on_result is not None:
            on_result(result)
    return [results[i] for i in range(len(inputs))]


def _run(
    inputs: Sequence[tuple[Path, str]], root: Path, options: ExportOptions, jobs: int
) -> Iterator[tuple[int, ExportResult]]:
    if jobs == 1:
        for i, (path, name) in enumerate(inputs):
            yield i, export_one(str(path), name, str(root), options)
        return
    with ProcessPoolExecutor(max_workers=jobs, mp_context=_context()) as pool:
        futures: dict[Future[ExportResult], int] = {
            pool.submit(export_one, str(path), name, str(root), options): i for i, (path, name) in enumerate(inputs)
        }
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BaseException:  # Ctrl-C, or the caller stopped: start no more reports
            pool.shutdown(wait=False, cancel_futures=True)
            raise
