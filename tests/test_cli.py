"""The command line, in process with click's CliRunner: every command, every documented exit code, every error
path; outputs checked for what any correct renderer gives (file name and place, JSON keys, tables, escaping).

``test_cli_subprocess.py`` runs the same on the real samples as a user does, in a subprocess.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import sys
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result
from conftest import data, shared
from edits import renamed, untimed, without_kernel

from ncu_roofline import __version__, cli
from ncu_roofline.device import OVERRIDE_KEYS
from ncu_roofline.errors import (
    EXIT_ANALYSIS,
    EXIT_FAILURE,
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_MISSING_EXTRA,
    EXIT_OK,
    EXIT_OUTPUT,
    EXIT_USAGE,
    InputError,
    MissingExtraError,
)
from ncu_roofline.files import default_output, expand_inputs, input_stem
from ncu_roofline.io import read_one, report_names
from ncu_roofline.report.jsonout import SCHEMA


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli.main, [str(a) for a in args])


def _digest(path: Path) -> tuple[str, str]:
    """The path as given (the report records it) and the file's content."""
    return str(path), hashlib.sha1(path.read_bytes()).hexdigest()


@pytest.fixture(autouse=True)
def _read_and_analyse_each_input_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests run the command line on a few exports over and over; what they check is the command line
    around the analysis (options, filters, outputs, errors, exit codes), so the inputs (by name and content) are
    read once per session (``cli.read_inputs``), and each report analysed once with each device and peaks
    (``cli.analyze``), shared as ``conftest.shared`` shares (checked unchanged at the end). Runs with a progress
    bar read and analyse as they are (the bar moves as they go), as do tests that replace either function;
    errors are never cached."""
    real_read, real_analyze = cli.read_inputs, cli.analyze
    no_bar = (cli.PROGRESS_MIN_BYTES, cli._is_tty)
    made: dict[int, tuple[object, ...]] = {}  # id(report) -> its key, for the reports read here

    def read_inputs(paths: list[Path], in_folder: Collection[Path] = (), progress: object = None) -> object:
        bar = (cli.PROGRESS_MIN_BYTES, cli._is_tty) != no_bar or getattr(progress, "bar", None) is not None
        if bar or not all(Path(p).is_file() for p in paths):
            return real_read(paths, in_folder, progress)  # type: ignore[arg-type]
        # of in_folder (the files found in a folder argument) only which of these paths are in it matters
        key = ("command line inputs", "read", tuple((*_digest(Path(p)), Path(p) in in_folder) for p in paths))
        report = shared(key, lambda: real_read(paths, in_folder, progress))  # type: ignore[arg-type]
        made[id(report)] = key
        return report

    def analyze(report: object, **options: object) -> object:
        bar = (cli.PROGRESS_MIN_BYTES, cli._is_tty) != no_bar
        if bar or id(report) not in made:
            return real_analyze(report, **options)  # type: ignore[arg-type]
        key = ("command line inputs", "analyze", made[id(report)], repr(sorted(options.items())))
        return shared(key, lambda: real_analyze(report, **options))  # type: ignore[arg-type]

    monkeypatch.setattr(cli, "read_inputs", read_inputs)
    monkeypatch.setattr(cli, "analyze", analyze)


def one_error_line(result: Result) -> str:
    """The single line an error prints on stderr (asserting there is exactly one, and no traceback)."""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("ncu-roofline: ")
    assert "Traceback" not in result.stderr
    return lines[0]


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch folder, the current directory, with copies of two real exports."""
    shutil.copy(data("micro_full.raw.csv"), tmp_path / "micro_full.raw.csv")
    shutil.copy(data("micro_roof.raw.csv.gz"), tmp_path / "micro_roof.raw.csv.gz")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ------------------------------------------------------------------------------------------- analyze


def test_default_prints_the_summary_and_writes_html_next_to_the_input(work: Path) -> None:
    r = run("micro_roof.raw.csv.gz")
    assert r.exit_code == EXIT_OK, r.stderr
    assert "wmma_bf16" in r.stdout
    html = work / "micro_roof.raw.roofline.html"
    assert html.is_file()
    assert "<html" in html.read_text()
    assert r.stderr.strip() == f"ncu-roofline: wrote {html.relative_to(work)}"


def test_never_overwrites_without_force(work: Path) -> None:
    assert run("micro_full.raw.csv").exit_code == EXIT_OK
    # a page the tool wrote itself is replaced on a re-run (its generator tag); anything else needs --force
    assert run("micro_full.raw.csv").exit_code == EXIT_OK
    assert run("micro_full.raw.csv", "--format", "json", "-o", "a.json").exit_code == EXIT_OK
    assert run("micro_full.raw.csv", "--format", "json", "-o", "a.json").exit_code == EXIT_OK
    assert run("micro_full.raw.csv", "--format", "csv", "-o", "a.csv").exit_code == EXIT_OK
    assert run("micro_full.raw.csv", "--format", "csv", "-o", "a.csv").exit_code == EXIT_OUTPUT  # no marker
    target = work / "micro_full.raw.roofline.html"
    target.write_text("mine")
    r = run("micro_full.raw.csv")
    assert r.exit_code == EXIT_OUTPUT
    assert "already exists and is not an output ncu-roofline recognises as its own" in one_error_line(r)
    assert r.stdout == ""  # the check comes before any output
    assert target.read_text() == "mine"
    assert run("micro_full.raw.csv", "--force").exit_code == EXIT_OK
    assert "<html" in target.read_text()


def test_a_text_or_csv_output_written_before_is_not_said_to_be_someone_elses(work: Path) -> None:
    # the tool cannot tell its own CSV or text (they carry no mark), so it must not say it did not write them
    for name in ("s.txt", "k.csv"):
        assert run("micro_full.raw.csv", "-o", name).exit_code == EXIT_OK
        r = run("micro_full.raw.csv", "-o", name)
        assert r.exit_code == EXIT_OUTPUT
        line = one_error_line(r)
        assert "did not write" not in line
        assert f"{name}: already exists and is not an output ncu-roofline recognises as its own" in line
        assert "use --force" in line


def test_an_unreadable_folder_is_permission_denied(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "runs").mkdir()
    shutil.copy(work / "micro_full.raw.csv", work / "runs" / "a.raw.csv")
    real_scandir = os.scandir

    def scandir(path: Any = ".") -> Any:  # as for another user's `chmod 000 runs` (root may read anything)
        if Path(path).name == "runs":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    r = run("runs", "--format", "json")
    assert r.exit_code == EXIT_INPUT  # as for an unreadable file
    assert one_error_line(r) == "ncu-roofline: error: runs: cannot list this folder: Permission denied"


def test_open_with_an_output_that_is_a_device_is_a_usage_error(work: Path) -> None:
    r = run("micro_full.raw.csv", "-o", "/dev/null", "--open")
    assert r.exit_code == EXIT_USAGE
    assert "-o /dev/null is a pipe or a device, not a file" in one_error_line(r)


def test_output_into_a_missing_folder(work: Path) -> None:
    r = run("micro_full.raw.csv", "-o", work / "nope" / "x.html")
    assert r.exit_code == EXIT_OUTPUT
    assert "the folder" in one_error_line(r) and "does not exist" in r.stderr


def test_analyze_command_is_the_default(work: Path) -> None:
    a = run("analyze", "micro_full.raw.csv", "--format", "json")
    b = run("micro_full.raw.csv", "--format", "json")
    assert a.exit_code == b.exit_code == EXIT_OK
    assert a.stdout == b.stdout


def test_json_to_stdout(work: Path) -> None:
    r = run("micro_full.raw.csv", "--format", "json")
    assert r.exit_code == EXIT_OK
    doc = json.loads(r.stdout)
    assert {"schema", "tool", "sources", "launches", "summary"} <= set(doc)
    assert len(doc["launches"]) == 16
    assert r.stderr == ""
    assert not list(work.glob("*.html"))


def test_format_follows_the_output_suffix(work: Path) -> None:
    r = run("micro_full.raw.csv", "-o", "out.json")
    assert r.exit_code == EXIT_OK
    assert json.loads((work / "out.json").read_text())["schema"] == SCHEMA
    assert r.stdout == ""
    assert run("micro_full.raw.csv", "-o", "out.md").exit_code == EXIT_OK
    assert MD_RULE.search((work / "out.md").read_text())


#: The rule under a Markdown table's header: | --- | --: |
MD_RULE = re.compile(r"^\|( *:?-+:? *\|)+$", re.M)


def test_csv_and_markdown(work: Path) -> None:
    r = run("micro_full.raw.csv", "--format", "csv")
    assert r.exit_code == EXIT_OK
    lines = r.stdout.splitlines()
    assert "launch_id" in lines[0].split(",")
    assert len(lines) >= 17  # a header and the 16 launches (or one row per kernel and more)
    r = run("micro_full.raw.csv", "--format", "markdown", "--top", "3")
    assert r.exit_code == EXIT_OK
    assert MD_RULE.search(r.stdout)  # a Markdown table


def test_parquet_folder(work: Path) -> None:
    r = run("micro_full.raw.csv", "--format", "parquet")
    assert r.exit_code == EXIT_OK, r.stderr
    folder = work / "micro_full.raw.roofline.parquet"
    files = sorted(folder.rglob("*.parquet"))
    assert files
    assert all(pq.read_table(f).num_columns > 0 for f in files)
    # one layout with `export --parquet`: the same files, the same tables
    assert run("export", "micro_full.raw.csv", "--parquet", "campaign").exit_code == EXIT_OK
    exported = sorted((work / "campaign").rglob("*.parquet"))
    assert [p.relative_to(work / "campaign") for p in exported] == [p.relative_to(folder) for p in files]
    for ours, theirs in zip(files, exported, strict=True):
        assert pq.read_table(ours).equals(pq.read_table(theirs))
    assert run("micro_full.raw.csv", "--format", "parquet").exit_code == EXIT_OK  # its own dataset: replaced
    (folder / "notes.txt").write_text("mine")
    again = run("micro_full.raw.csv", "--format", "parquet")
    assert again.exit_code == EXIT_OUTPUT
    assert "not empty; use --force" in one_error_line(again)
    assert run("micro_full.raw.csv", "--format", "parquet", "--force").exit_code == EXIT_OK
    assert run("micro_full.raw.csv", "--format", "parquet", "-o", "-").exit_code == EXIT_USAGE


def test_parquet_of_a_raw_and_a_details_page_merged(work: Path) -> None:
    # the long metrics frames of the two readers are joined (their categories were of two dtypes: exit 70)
    shutil.copy(data("micro_full.details.csv"), work / "micro_full.details.csv")
    r = run("micro_full.raw.csv", "micro_full.details.csv", "--format", "parquet", "-o", "both")
    assert r.exit_code == EXIT_OK, r.stderr
    metrics = pq.read_table(work / "both" / "metrics").to_pandas()
    assert sorted(metrics["report"].astype(str).unique()) == ["micro_full.details", "micro_full.raw"]


def test_html_to_stdout(work: Path) -> None:
    r = run("micro_full.raw.csv", "--format", "html", "-o", "-")
    assert r.exit_code == EXIT_OK
    assert "<html" in r.stdout
    assert not list(work.glob("*.html"))


def test_several_inputs_merge_and_keep_each_launchs_source(work: Path) -> None:
    r = run("micro_full.raw.csv", "micro_roof.raw.csv.gz", "--format", "json")
    assert r.exit_code == EXIT_OK
    doc = json.loads(r.stdout)
    assert len(doc["launches"]) == 32
    assert {x["report"] for x in doc["launches"]} == {"micro_full.raw", "micro_roof.raw"}
    assert [s["report"] for s in doc["sources"]] == ["micro_full.raw", "micro_roof.raw"]
    r = run("micro_full.raw.csv", "micro_roof.raw.csv.gz")
    assert r.exit_code == EXIT_OK
    assert (work / "micro_full.raw.merged.roofline.html").is_file()
    assert "2 inputs merged into one report, named after the first; -o chooses the name" in r.stderr


def test_folder_and_glob_inputs(work: Path) -> None:
    by_folder = run(work, "--format", "json")
    by_glob = run(str(work / "*.csv*"), "--format", "json")
    assert by_folder.exit_code == by_glob.exit_code == EXIT_OK
    assert len(json.loads(by_folder.stdout)["launches"]) == 32
    assert by_folder.stdout == by_glob.stdout


def test_an_export_of_no_rows_in_a_folder_is_skipped_and_named_alone_is_an_error(work: Path) -> None:
    # ncu 2024.2's `--print-details body` page of gene_dzv: its header only (its sections have no body items);
    # it ended the run of its folder (exit 3) where a file that is not an export is skipped with a warning
    body = "gene_dzv.details-body.csv.gz"
    shutil.copy(data(f"reexport/ncu-2024.2/{body}"), work / body)
    r = run(work, "--format", "json")
    assert r.exit_code == EXIT_OK, r.stderr
    assert f"warning: skipped {work / body}: the export has a header but no rows" in r.stderr
    assert [s["report"] for s in json.loads(r.stdout)["sources"]] == ["micro_full.raw", "micro_roof.raw"]
    alone = run(body)
    assert alone.exit_code == EXIT_INPUT and "the export has a header but no rows" in one_error_line(alone)
    # ... and why, from its header: a body page has rows only where the sections have body items
    assert "printed with --print-details body or all" in one_error_line(alone)
    assert "export the details page without --print-details, or the raw page" in one_error_line(alone)


def test_a_file_and_its_gzip_twin_in_one_folder_are_two_reports(work: Path) -> None:
    # both named micro_full.raw without their suffixes: the whole file names tell them apart (this was an error,
    # "the same file is given twice"); a hidden folder beside them is not searched
    with (work / "micro_full.raw.csv").open("rb") as src, gzip.open(work / "micro_full.raw.csv.gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    (work / ".cache").mkdir()
    shutil.copy(work / "micro_full.raw.csv", work / ".cache" / "old.raw.csv")
    r = run(work, "--format", "json")
    assert r.exit_code == EXIT_OK, r.stderr
    doc = json.loads(r.stdout)
    assert [s["report"] for s in doc["sources"]] == ["micro_full.raw.csv", "micro_full.raw.csv.gz", "micro_roof.raw"]
    assert len(doc["launches"]) == 48
    twice = run("micro_full.raw.csv", "./micro_full.raw.csv")  # one file: kept once
    assert twice.exit_code == EXIT_OK, twice.stderr


def test_standard_input_is_one_side_of_a_diff_only_and_no_export_input(work: Path) -> None:
    r = run("diff", "-", "-")
    assert r.exit_code == EXIT_USAGE
    assert "can be one side of a diff only" in r.stderr
    r = run("export", "-", "--parquet", "out")
    assert r.exit_code == EXIT_USAGE
    assert "save standard input ('-') to a file" in r.stderr


def test_standard_input_read_from_a_terminal_is_an_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.BytesIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(Terminal()))
    with pytest.raises(
        InputError, match=r"^<stdin>: '-' reads an export piped in \(ncu --csv \.\.\. \| ncu-roofline -\)"
    ):
        read_one("-")


def test_a_file_named_dash_is_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(data("micro_full.raw.csv"), tmp_path / "-")
    assert expand_inputs(["./-"]) == [tmp_path / "-"]
    r = run("./-", "--format", "json")
    assert r.exit_code == EXIT_OK, r.stderr
    assert json.loads(r.stdout)["sources"][0]["path"] == str(tmp_path / "-")


def test_standard_input_named_twice_is_read_once() -> None:
    assert expand_inputs(["-", "-"]) == [Path("-")]
    assert report_names([Path("-"), Path("run.csv")]) == ["stdin", "run"]
    assert report_names([Path("-"), Path.cwd() / "-"]) == ["stdin", "-"]  # a file named "-" is another input
    assert input_stem(Path("-")) == "stdin"
    assert default_output([Path("-")], ".roofline.html") == Path("stdin.roofline.html")


def test_kernel_and_nvtx_filters(work: Path) -> None:
    r = run("micro_full.raw.csv", "--format", "json", "--kernel", "^tiny")
    assert [x["id"] for x in json.loads(r.stdout)["launches"]] == [12, 13, 14, 15]
    r = run("micro_full.raw.csv", "--format", "json", "--nvtx", "compute")
    assert [x["display_name"] for x in json.loads(r.stdout)["launches"]] == [
        "fp32_fma",
        "fp64_fma",
        "half_hfma2",
        "wmma_bf16",
    ]
    r = run("micro_full.raw.csv", "--kernel", "gemm")
    assert r.exit_code == EXIT_ANALYSIS
    assert "--kernel 'gemm' selects none of the 16 launches" in one_error_line(r)


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("dram_bytes_per_s=4.8T", "dram_bytes_per_s", 4.8e12),
        ("fp32_flops=6.7e13", "fp32_flops", 6.7e13),
        ("sm_clock_hz = 1980M", "sm_clock_hz", 1.98e9),
        ("l2_bytes_per_s=10k", "l2_bytes_per_s", 1e4),
        ("sm_count=132", "sm_count", 132.0),
    ],
)
def test_parse_peak(text: str, key: str, value: float) -> None:
    assert cli.parse_peak(text) == (key, pytest.approx(value))


def test_peak_override_and_device(work: Path) -> None:
    r = run("micro_full.raw.csv", "--format", "json", "--peak", "dram_bytes_per_s=1T", "--device", "h200")
    assert r.exit_code == EXIT_OK, r.stderr
    roofs = [x for launch in json.loads(r.stdout)["launches"] for x in launch["roofline"] if x["level"] == "dram"]
    assert roofs
    assert {x["peak_bytes_per_s"] for x in roofs} == {1e12}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--peak", "nonsense=1"], "'nonsense' is not a peak figure"),
        (["--peak", "dram_bytes_per_s"], "expected KEY=VALUE"),
        (["--peak", "dram_bytes_per_s=fast"], "'fast' is not a number"),
        (["--peak", "dram_bytes_per_s=-1"], "must be a positive"),
        (["--device", "Voodoo 5"], "unknown device 'Voodoo 5'"),
        (["--kernel", "("], "not a regular expression"),
        (["--fomat", "json"], "No such option"),
        (["--format", "xml"], "'xml' is not one of"),
        (["--top", "0"], "--top"),
        (["--format", "json", "--open"], "--open opens the HTML report"),
        (["-o", "-", "--open"], "--open opens the HTML report"),
    ],
)
def test_usage_errors_exit_2_with_one_line(work: Path, args: list[str], message: str) -> None:
    r = run("micro_full.raw.csv", *args)
    assert r.exit_code == EXIT_USAGE
    line = one_error_line(r)
    assert message in line
    assert line.startswith("ncu-roofline: error: ")


@pytest.mark.parametrize(
    ("make", "code", "message"),
    [
        (lambda d: d / "missing.csv", EXIT_INPUT, "missing.csv: no such file or folder"),
        (lambda d: d / "*.nothing", EXIT_INPUT, "no file matches this pattern"),
        (lambda d: d / "not_ncu.csv", EXIT_INPUT, "not_ncu.csv"),
        (lambda d: d / "session.csv", EXIT_ANALYSIS, "no kernel launches"),
    ],
)
def test_input_errors(work: Path, make, code: int, message: str) -> None:  # type: ignore[no-untyped-def]
    (work / "not_ncu.csv").write_text("name,value\nx,1\n")
    shutil.copy(data("micro_full.session.csv"), work / "session.csv")
    r = run(make(work))
    assert r.exit_code == code
    assert message in one_error_line(r)


def test_verbose_explains_an_error_and_debug_raises(work: Path) -> None:
    (work / "not_ncu.csv").write_text("name,value\nx,1\n")
    r = run("-v", "not_ncu.csv")
    assert r.exit_code == EXIT_INPUT
    first, *more = r.stderr.splitlines()
    assert first.startswith("ncu-roofline: error: not_ncu.csv")
    assert more and "FormatError" in more[0]
    assert "Traceback" not in r.stderr
    r = run("not_ncu.csv", "--debug")
    assert isinstance(r.exception, InputError)


def test_verbose_says_what_was_read(work: Path) -> None:
    r = run("micro_full.raw.csv", "-v", "--format", "json")
    assert "ncu-roofline: read micro_full.raw.csv: raw page, 16 launches" in r.stderr


def test_quiet(work: Path) -> None:
    r = run("micro_full.raw.csv", "-q")
    assert r.exit_code == EXIT_OK
    assert r.stdout == r.stderr == ""
    assert (work / "micro_full.raw.roofline.html").is_file()


def test_internal_error_is_one_line_and_exit_70(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "analyze", broken)
    r = run("micro_full.raw.csv")
    assert r.exit_code == EXIT_INTERNAL
    line = one_error_line(r)
    assert "internal error: RuntimeError: boom" in line
    assert "--debug" in line
    assert isinstance(run("micro_full.raw.csv", "--debug").exception, RuntimeError)


def test_missing_extra_exits_6(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def needs_extra(*_args: object, **_kwargs: object) -> None:
        raise MissingExtraError("reading .ncu-rep files needs ncu_report: pip install 'ncu-roofline[ncu-rep]'")

    monkeypatch.setattr(cli, "read_inputs", needs_extra)
    r = run("micro_full.raw.csv")
    assert r.exit_code == EXIT_MISSING_EXTRA
    assert "pip install" in one_error_line(r)


def test_interrupt_exits_130(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "read_inputs", interrupted)
    r = run("micro_full.raw.csv")
    assert r.exit_code == EXIT_INTERRUPTED
    assert "ncu-roofline: interrupted" in r.stderr


def test_open_uses_a_browser_only_with_a_display(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    monkeypatch.setattr(cli.webbrowser, "open", lambda url: opened.append(url) or True)
    monkeypatch.setattr(cli.sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    r = run("micro_full.raw.csv", "--open")
    assert r.exit_code == EXIT_OK
    assert opened == []
    assert "no display to open a browser on" in r.stderr
    monkeypatch.setenv("DISPLAY", ":0")
    r = run("micro_full.raw.csv", "--open", "--force")
    assert r.exit_code == EXIT_OK
    assert opened == [(work / "micro_full.raw.roofline.html").resolve().as_uri()]


def test_display_available() -> None:
    assert cli.display_available({}, "darwin")
    assert cli.display_available({}, "win32")
    assert not cli.display_available({}, "linux")
    assert cli.display_available({"WAYLAND_DISPLAY": "wayland-0"}, "linux")


def test_progress_bar_only_on_a_terminal(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = run("micro_full.raw.csv", "micro_roof.raw.csv.gz", "--format", "json")
    assert "reading" not in plain.stderr
    monkeypatch.setattr(cli, "PROGRESS_MIN_BYTES", 0)
    monkeypatch.setattr(cli, "_is_tty", lambda _stream: True)
    bar = run("micro_full.raw.csv", "micro_roof.raw.csv.gz", "--format", "json")
    assert bar.exit_code == EXIT_OK
    assert "reading" in bar.stderr
    assert json.loads(bar.stdout) == json.loads(plain.stdout)


def test_progress_bar_moves_through_reading_analysing_and_writing_one_file(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli, "PROGRESS_MIN_BYTES", 0)
    monkeypatch.setattr(cli, "_is_tty", lambda _stream: True)
    r = run("micro_full.raw.csv", "--format", "json", "-o", "out.json")
    assert r.exit_code == EXIT_OK, r.output
    err = r.stderr  # (not a real terminal: click prints each label, not the bar)
    stages = [err.find(s) for s in ("reading micro_full.raw.csv", "analysing", "writing", "wrote out.json")]
    assert -1 not in stages and stages == sorted(stages), err
    assert len(json.loads((work / "out.json").read_text())["launches"]) == 16


def test_the_version_is_written_once_and_read_without_package_metadata() -> None:
    """``__version__`` is a literal in ``ncu_roofline/__init__.py``, which pyproject.toml reads (hatch's version
    source): the installed distribution says the same, and no command imports ``importlib.metadata`` to learn it
    (about 25 ms of every start)."""
    import importlib.metadata
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    assert re.search(r'^__version__ = "([^"]+)"$', (root / "ncu_roofline" / "__init__.py").read_text(), re.M)
    assert importlib.metadata.version("ncu-roofline") == __version__  # CI and the README install the checkout
    code = "import sys, ncu_roofline.cli; print('importlib.metadata' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "False"


def test_version_help_and_no_arguments() -> None:
    r = run("--version")
    assert r.exit_code == EXIT_OK
    assert r.stdout.strip() == f"ncu-roofline {__version__}"
    for args in (["--version", "-q"], ["-q", "--version"], ["-v", "--debug", "--version", "--quiet"]):
        r = run(*args)  # the common flags are taken (and mean nothing here), as with every command
        assert (r.exit_code, r.stdout.strip(), r.stderr) == (EXIT_OK, f"ncu-roofline {__version__}", ""), args
    r = run("--help", "-q")
    assert r.exit_code == EXIT_OK
    assert "Usage: ncu-roofline" in r.stdout
    r = run("--help")
    assert r.exit_code == EXIT_OK
    for command in ("analyze", "diff", "export", "sections", "devices"):
        assert command in r.stdout
    r = run()
    assert r.exit_code == EXIT_USAGE
    assert "Usage: ncu-roofline" in r.stderr


def test_a_file_named_like_a_command(work: Path) -> None:
    shutil.copy(work / "micro_full.raw.csv", work / "diff")
    r = run("./diff", "--format", "json")
    assert r.exit_code == EXIT_OK
    assert len(json.loads(r.stdout)["launches"]) == 16


def test_common_flags_before_the_command_name(work: Path) -> None:
    r = run("-v", "diff", "micro_roof.raw.csv.gz", "micro_full.raw.csv", "--format", "json")
    assert r.exit_code == EXIT_OK
    assert "ncu-roofline: read " in r.stderr


# ------------------------------------------------------------------------------------------------ diff


def test_diff_roof_vs_full(work: Path) -> None:
    r = run("diff", "micro_roof.raw.csv.gz", "micro_full.raw.csv")
    assert r.exit_code == EXIT_OK, r.stderr
    assert "matched 16 of 16 BEFORE and 16 AFTER launches" in r.stdout
    assert "every launch matched" in r.stdout
    assert "caveat: the reports carry different metrics" in r.stdout
    page = work / "micro_roof.raw_vs_micro_full.raw.diff.html"
    assert page.is_file()
    assert "<html" in page.read_text()
    again = run("diff", "micro_roof.raw.csv.gz", "micro_full.raw.csv")
    assert again.exit_code == EXIT_OK  # the page it wrote itself is replaced
    page.write_text("<html>mine</html>")
    assert run("diff", "micro_roof.raw.csv.gz", "micro_full.raw.csv").exit_code == EXIT_OUTPUT


def test_diff_by_nvtx_refuses_a_side_without_nvtx_ranges(work: Path) -> None:
    """micro_metrics.raw.csv (the same microbenchmark, a --metrics run) has no NVTX columns: --nvtx cannot select
    its launches, which would read as four kernels removed; with the filters selecting none of a side's launches,
    --fail-if-slower says that, not that the side has no duration metric."""
    shutil.copy(data("micro_metrics.raw.csv"), work / "micro_metrics.raw.csv")
    assert "NVTX" not in (work / "micro_metrics.raw.csv").read_text().splitlines()[0]
    r = run("diff", "micro_full.raw.csv", "micro_metrics.raw.csv", "--nvtx", "compute", "--format", "text")
    assert r.exit_code == EXIT_ANALYSIS
    assert "--nvtx: AFTER has no NVTX ranges (its export has no NVTX columns)" in r.stderr
    assert "removed" not in r.stdout
    without_kernel(data("micro_full.raw.csv"), work / "no_l2_reread.raw.csv", "l2_reread")
    r = run("diff", "micro_full.raw.csv", "no_l2_reread.raw.csv", "--kernel", "l2_reread", "--format", "text",
            "--fail-if-slower", "10")  # fmt: skip
    assert r.exit_code == EXIT_ANALYSIS
    assert "--fail-if-slower: AFTER has none of the launches the filters select" in r.stderr


def test_diff_kernel_removed_says_what_it_could_not_match(work: Path) -> None:
    without_kernel(work / "micro_full.raw.csv", work / "no_l2.raw.csv", "l2_reread")
    r = run("diff", "micro_full.raw.csv", "no_l2.raw.csv", "--format", "text")
    assert r.exit_code == EXIT_OK
    assert "could not match 1 BEFORE and 0 AFTER launches" in r.stdout
    assert "only in BEFORE  l2_reread  (micro_full.raw launch 2, NVTX memory)" in r.stdout
    doc = json.loads(run("diff", "micro_full.raw.csv", "no_l2.raw.csv", "--format", "json").stdout)
    assert doc["total"]["before_only"] == 1
    assert [p["display_name"] for p in doc["pairs"] if p["status"] == "before only"] == ["l2_reread"]


def test_diff_same_stem_in_two_folders_is_named_by_folder(work: Path) -> None:
    for run_name in ("base", "new"):
        (work / run_name).mkdir()
        shutil.copy(work / "micro_full.raw.csv", work / run_name / "report.csv")
    r = run("diff", "base/report.csv", "new/report.csv", "--format", "text")
    assert r.stdout.startswith("base/report -> new/report: ")


def test_diff_of_two_folders(work: Path) -> None:
    for side in ("before", "after"):
        (work / side).mkdir()
        shutil.copy(work / "micro_full.raw.csv", work / side / "micro_full.raw.csv")
        shutil.copy(work / "micro_roof.raw.csv.gz", work / side / "micro_roof.raw.csv.gz")
    r = run("diff", "before", "after", "--format", "json")
    assert r.exit_code == EXIT_OK, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["before"]["name"], doc["after"]["name"]) == ("before", "after")
    assert [s["report"] for s in doc["before"]["sources"]] == ["micro_full.raw", "micro_roof.raw"]
    assert doc["total"]["matched"] == 32
    assert doc["total"]["change"] == 0


def test_diff_fail_if_slower(work: Path) -> None:
    # micro_full ran 0.06 % longer than micro_roof in total (ncu's own durations)
    r = run("diff", "micro_roof.raw.csv.gz", "micro_full.raw.csv", "--format", "json", "--fail-if-slower", "0")
    assert r.exit_code == EXIT_FAILURE
    assert "AFTER is 0.1% slower than BEFORE" in one_error_line(r)
    assert json.loads(r.stdout)["total"]["change"] > 0  # the output is still written
    r = run("diff", "micro_roof.raw.csv.gz", "micro_full.raw.csv", "--format", "json", "--fail-if-slower", "1")
    assert r.exit_code == EXIT_OK
    r = run("diff", "micro_full.raw.csv", "micro_roof.raw.csv.gz", "--format", "json", "--fail-if-slower", "0")
    assert r.exit_code == EXIT_OK  # faster


def test_diff_fail_if_slower_refuses_totals_of_different_launches(work: Path) -> None:
    """One kernel's time not collected on one side (wmma_bf16, 5.12 ms of micro_full's 20.5 ms): the totals add up
    the launches measured, so they compare different launches (AFTER looked 25 % faster, or BEFORE 33 % slower,
    as the sides go). The gate refuses, naming the side, either way round; a side with no time at all is named
    too. Its kernel has no change where a side's time is not measured (it was the other side's time, negated)."""
    untimed(work / "micro_full.raw.csv", work / "untimed.csv", "wmma_bf16")
    for before, after, side in (
        ("micro_full.raw.csv", "untimed.csv", "AFTER"),
        ("untimed.csv", "micro_full.raw.csv", "BEFORE"),
    ):
        r = run("diff", before, after, "--format", "json", "--fail-if-slower", "5")
        assert r.exit_code == EXIT_ANALYSIS
        assert f"--fail-if-slower: 1 launch of {side} has no duration" in one_error_line(r)
        wmma = next(k for k in json.loads(r.stdout)["kernels"] if k["display_name"] == "wmma_bf16")
        assert wmma["delta_ns"] is None and wmma["change"] is None
    # no time at all on AFTER: AFTER is named (it said BEFORE)
    everything = work / "nothing.csv"
    shutil.copy(work / "micro_full.raw.csv", everything)
    micro = "stream_triad strided_read l2_reread l1_reread smem_bank_conflict fp32_fma fp64_fma half_hfma2 wmma_bf16"
    for kernel in (*micro.split(), "spill_heavy", "low_occupancy", "atomic_hot", "tiny_launch"):
        untimed(everything, everything, kernel)
    r = run("diff", "micro_full.raw.csv", everything, "--format", "json", "--fail-if-slower", "5")
    assert r.exit_code == EXIT_ANALYSIS and "AFTER has no GPU time to compare" in one_error_line(r)


def test_diff_kernel_filter_of_a_kernel_on_one_side(work: Path) -> None:
    """``--kernel`` naming a kernel only AFTER has (fp32_fma renamed fp32_fma_v2): a new kernel, not an error; one
    that neither side has is an error naming both sides, its pattern quoted as a shell takes it."""
    renamed(work / "micro_full.raw.csv", work / "renamed.csv", "fp32_fma", "fp32_fma_v2")
    r = run("diff", "micro_full.raw.csv", "renamed.csv", "--kernel", "fp32_fma_v2", "--format", "json")
    assert r.exit_code == EXIT_OK
    doc = json.loads(r.stdout)
    assert [(k["display_name"], k["status"]) for k in doc["kernels"]] == [("fp32_fma_v2", "after only")]
    assert (doc["total"]["before_launches"], doc["total"]["after_launches"]) == (0, 1)
    assert not any("carry different metrics" in c for c in doc["caveats"])  # a side without launches measured none
    r = run("diff", "micro_full.raw.csv", "renamed.csv", "--kernel", "gemm\\(", "--format", "json")
    assert r.exit_code == EXIT_ANALYSIS
    assert "--kernel 'gemm\\(' selects none of BEFORE's 16 launches nor of AFTER's 16" in one_error_line(r)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["diff", "micro_full.raw.csv"], EXIT_USAGE),
        (["diff", "micro_full.raw.csv", "missing.csv"], EXIT_INPUT),
        (["diff", "micro_full.raw.csv", "micro_full.raw.csv", "--fail-if-slower", "-1"], EXIT_USAGE),
        (["diff", "micro_full.raw.csv", "micro_full.raw.csv", "--kernel", "gemm"], EXIT_ANALYSIS),
        (["diff", "micro_full.raw.csv", "micro_full.raw.csv", "-o", "nope/x.html"], EXIT_OUTPUT),
    ],
)
def test_diff_errors(work: Path, args: list[str], code: int) -> None:
    r = run(*args)
    assert r.exit_code == code
    one_error_line(r)


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity", "1e400", "-1", "-0.5"])
def test_fail_if_slower_must_be_a_finite_percentage(work: Path, value: str) -> None:
    # nan is inside any range (every comparison with it is false) and inf never trips: the gate silently off
    r = run("diff", "micro_full.raw.csv", "micro_roof.raw.csv.gz", "--format", "json", "--fail-if-slower", value)
    assert r.exit_code == EXIT_USAGE
    assert "Invalid value for '--fail-if-slower'" in one_error_line(r)
    assert r.stdout == ""


def test_diff_formats(work: Path) -> None:
    base = ("diff", "micro_roof.raw.csv.gz", "micro_full.raw.csv")
    md = run(*base, "--format", "markdown").stdout.splitlines()
    assert sum(line.startswith("|---") for line in md) == 1
    csv_lines = run(*base, "--format", "csv").stdout.splitlines()
    assert csv_lines[0].startswith("kernel,display_name,status")
    assert len(csv_lines) == 14
    assert "<html" in run(*base, "--format", "html", "-o", "-").stdout


# ---------------------------------------------------------------------------------------------- export


def test_export_dataset(work: Path) -> None:
    import pyarrow.dataset as ds

    r = run("export", "micro_full.raw.csv", "micro_roof.raw.csv.gz", "--parquet", "campaign", "-j", "2")
    assert r.exit_code == EXIT_OK, r.stderr
    assert "exported 2 of 2 reports (32 launches) to campaign" in r.stderr
    table = ds.dataset(work / "campaign" / "verdicts", format="parquet", partitioning="hive").to_table()
    assert table.num_rows == 32
    assert sorted(table.column("report").unique().to_pylist()) == ["micro_full.raw", "micro_roof.raw"]
    again = run("export", "micro_full.raw.csv", "--parquet", "campaign")
    assert again.exit_code == EXIT_OUTPUT
    assert "use --force" in one_error_line(again)
    assert run("export", "micro_full.raw.csv", "--parquet", "campaign", "--force").exit_code == EXIT_OK


def test_export_carries_on_past_a_bad_file_and_exits_with_its_code(work: Path) -> None:
    (work / "not_ncu.csv").write_text("name,value\nx,1\n")
    r = run("export", "micro_full.raw.csv", "not_ncu.csv", "--parquet", "campaign", "--no-metrics")
    assert r.exit_code == EXIT_INPUT
    lines = r.stderr.splitlines()
    assert any(line.startswith("ncu-roofline: error: not_ncu.csv") for line in lines)
    assert "exported 1 of 2 reports (16 launches)" in r.stderr
    assert "1 of 2 reports failed" in lines[-1]
    assert not (work / "campaign" / "metrics").exists()


def test_export_needs_the_parquet_folder(work: Path) -> None:
    r = run("export", "micro_full.raw.csv")
    assert r.exit_code == EXIT_USAGE
    assert "--parquet" in one_error_line(r)


# -------------------------------------------------------------------------------------- sections, devices


def test_sections_prints_the_folder_and_the_ncu_commands(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from ncu_roofline.sections import NcuChoice, describe, ncu_report, section_folder

    monkeypatch.setenv("PATH", str(tmp_path))  # no ncu on PATH (tests/test_section_forms.py covers one)
    r = run("sections")
    assert r.exit_code == EXIT_OK
    lines, check = ncu_report(NcuChoice(None, None, "no ncu on PATH"), section_folder())
    assert check is None
    assert r.stdout == describe(None, lines)
    assert "ncu: none on PATH" in r.stdout
    assert "ncu --section-folder" in r.stdout


def test_sections_for_an_older_ncu_version_prints_the_commands_of_its_copy(work: Path) -> None:
    """``sections --ncu 2024.2``: the shipped files are the newest form, which ncu 2024.2 rejects: the commands
    are those of the copy it is told to write, not of the shipped folder; ``--copy`` writes that form."""
    r = run("sections", "--ncu", "2024.2")
    assert r.exit_code == EXIT_OK
    assert "ncu-roofline sections --copy ./ncu-roofline-sections --ncu 2024.2" in r.stdout
    assert "ncu --section-folder ncu-roofline-sections --section NcuRoofline --csv" in r.stdout
    copied = run("sections", "--ncu", "2024.2", "--copy", "old")
    assert copied.exit_code == EXIT_OK
    assert "the files here are the ncu 2024.2 form, the one it loads" in copied.stdout
    assert f"ncu --section-folder {work / 'old'} --section NcuRoofline" in copied.stdout


def test_sections_copy_never_overwrites_without_force(work: Path) -> None:
    r = run("sections", "--copy", "mine")
    assert r.exit_code == EXIT_OK
    assert sorted(p.name for p in (work / "mine").iterdir()) == ["NcuRoofline.section", "NcuRooflineLite.section"]
    assert f"ncu --section-folder {work / 'mine'} --section NcuRoofline" in r.stdout
    again = run("sections", "--copy", "mine")
    assert again.exit_code == EXIT_OUTPUT
    assert "use --force" in one_error_line(again)
    assert run("sections", "--copy", "mine", "--force").exit_code == EXIT_OK
    assert run("sections", "--force").exit_code == EXIT_USAGE


def test_devices_table_and_sources() -> None:
    from ncu_roofline.devices import DEVICES

    r = run("devices")
    assert r.exit_code == EXIT_OK
    for d in DEVICES:
        assert d.name in r.stdout
    r = run("devices", "h200")
    assert r.exit_code == EXIT_OK
    assert r.stdout.startswith("NVIDIA H200 ")
    assert "https://" in r.stdout  # every figure with its source
    doc = json.loads(run("devices", "--format", "json").stdout)
    assert len(doc) == len(DEVICES)
    assert all(fig is None or fig["source"] for d in doc for fig in d["figures"].values())
    assert run("devices", "--keys").stdout.split() == sorted(OVERRIDE_KEYS)
    # a bare family: its first form, and which (docs/devices.md), as --device says it
    family = run("devices", "a100")
    assert family.exit_code == EXIT_OK and family.stdout.startswith("NVIDIA A100-SXM4-80GB ")
    assert "device 'a100' taken as NVIDIA A100-SXM4-80GB (also: " in family.stderr
    assert run("devices", "h200").stderr == ""
    bad = run("devices", "Voodoo 5")
    assert bad.exit_code == EXIT_USAGE
    assert "unknown device 'Voodoo 5'" in one_error_line(bad)


@pytest.fixture()
def arrow_pool() -> Iterator[None]:
    """Arrow's default memory pool put back as it was after the test."""
    import pyarrow as pa

    before = pa.default_memory_pool()
    yield
    pa.set_memory_pool(before)


def test_the_command_line_takes_arrow_buffers_from_malloc(
    arrow_pool: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import pyarrow as pa

    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
    pa.set_memory_pool(pa.mimalloc_memory_pool())
    result = run(data("micro_full.details.csv"), "--format", "json", "-o", tmp_path / "out.json")
    assert result.exit_code == 0, result.output
    assert pa.default_memory_pool().backend_name == "system"


def test_a_pool_the_user_chose_is_kept(arrow_pool: None) -> None:
    import pyarrow as pa

    from ncu_roofline.arrowpool import use_system_allocator

    pa.set_memory_pool(pa.mimalloc_memory_pool())
    assert not use_system_allocator({"ARROW_DEFAULT_MEMORY_POOL": "mimalloc"})
    assert pa.default_memory_pool().backend_name == "mimalloc"
    assert use_system_allocator({})
    assert pa.default_memory_pool().backend_name == "system"


def test_a_page_cut_short_is_warned_of(work: Path) -> None:
    """A page without --csv cut mid-line (``head -c``): the launches before the cut are analysed, and stderr says
    the page may be cut short (before, only -v said so, and 8 of 16 launches looked like the whole run)."""
    text = gzip.decompress(data("micro_full.details.txt.gz").read_bytes())
    (work / "cut.txt").write_bytes(text[:120_000])
    r = run("cut.txt", "--format", "json", "-o", "cut.json")
    assert r.exit_code == EXIT_OK
    warning = [line for line in r.stderr.splitlines() if "warning:" in line]
    assert warning == [
        "ncu-roofline: warning: cut.txt: the page may be cut short: its last line has no line break (ncu ends every "
        "line it prints); 8 launches read"
    ]


# ------------------------------------------------------------------------------------------- an audit's findings


def test_output_whose_folder_is_a_file(work: Path) -> None:
    (work / "plain").write_text("x")
    r = run("micro_full.raw.csv", "--format", "json", "-o", work / "plain" / "x.json")
    assert r.exit_code == EXIT_OUTPUT
    assert one_error_line(r).endswith(f"cannot write: {work / 'plain'} is not a folder")


@pytest.mark.parametrize(
    "args",
    [
        ("micro_full.raw.csv", "--format", "csv", "-o", "micro_full.raw.csv", "--force"),
        ("micro_full.raw.csv", "--format", "text", "-o", "micro_full.raw.csv", "--force"),
        ("micro_full.raw.csv", "-o", "micro_full.raw.csv", "--force"),
        ("micro_full.raw.csv", "--format", "parquet", "-o", ".", "--force"),
        ("diff", "micro_roof.raw.csv.gz", "micro_full.raw.csv", "-o", "micro_full.raw.csv", "--force"),
        ("export", ".", "--parquet", ".", "--force"),
    ],
)
def test_no_output_replaces_an_input_even_with_force(work: Path, args: tuple[str, ...]) -> None:
    """``--force`` replaces outputs, never the export being read: ``-o run.csv --force`` for the input run.csv
    replaced the ncu export with the tool's CSV; a folder output holding an input would have been emptied."""
    before = {p.name: p.read_bytes() for p in work.iterdir()}
    r = run(*args)
    assert r.exit_code == EXIT_OUTPUT, r.output
    assert "an input of this run; name another output" in one_error_line(r)
    assert {p.name: p.read_bytes() for p in work.iterdir()} == before


def test_a_folder_output_that_is_a_file_is_an_output_error(work: Path) -> None:
    (work / "plain").write_text("x")
    for args in (("export", "micro_full.raw.csv", "--parquet", "plain"), ("sections", "--copy", "plain")):
        r = run(*args)
        assert r.exit_code == EXIT_OUTPUT, (args, r.output)  # (click's own check said 2, a usage error)
        assert one_error_line(r) == "ncu-roofline: error: plain: exists and is not a folder"


@pytest.mark.parametrize(
    "args", [("micro_full.raw.csv", "--kernel", "nomatch"), ("micro_full.raw.csv", "--nvtx", "nomatch")]
)
def test_export_of_no_launch_is_a_filter_error(work: Path, args: tuple[str, ...]) -> None:
    """As the analysis and diff: a filter that keeps no launch of any report is exit 4, and no empty dataset
    folder is left behind."""
    r = run("export", *args, "--parquet", "e1")
    assert r.exit_code == EXIT_ANALYSIS, r.output
    assert "no launch to export in 1 report (micro_full.raw.csv: --" in one_error_line(r)
    assert not (work / "e1").exists()


def test_a_folder_is_named_after_its_first_report_not_a_file_skipped(work: Path) -> None:
    folder = work / "runs"
    folder.mkdir()
    shutil.copy(data("ptxas-v.txt"), folder / "notes.txt")  # sorted first, no export
    shutil.copy(data("micro_full.raw.csv"), folder / "run.csv")
    r = run("runs", "-q")
    assert r.exit_code == EXIT_OK, r.output
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt", "run.csv", "run.roofline.html"]
    assert "merged" not in r.stderr


def test_diff_markdown_and_json_are_replaced_by_a_rerun(work: Path) -> None:
    """A diff's Markdown carries the mark a re-run recognises (it had none: the second run was refused); its JSON
    is compact as the analysis' is, indented with --pretty."""
    for fmt, out in (("markdown", "d.md"), ("json", "d.json")):
        for _ in range(2):
            r = run("diff", "micro_roof.raw.csv.gz", "micro_full.raw.csv", "--format", fmt, "-o", out)
            assert r.exit_code == EXIT_OK, r.output
    assert (work / "d.md").read_text().startswith("### ncu-roofline: micro_roof.raw → micro_full.raw\n")
    compact = (work / "d.json").read_text()
    assert compact.count("\n") == 1
    r = run("diff", "micro_roof.raw.csv.gz", "micro_full.raw.csv", "--format", "json", "--pretty", "-o", "d.json")
    assert r.exit_code == EXIT_OK
    pretty = (work / "d.json").read_text()
    assert pretty.startswith('{\n  "after": ') and json.loads(pretty) == json.loads(compact)


def test_devices_keys_as_json_and_alone() -> None:
    r = run("devices", "--keys", "--format", "json")
    assert r.exit_code == EXIT_OK and json.loads(r.stdout) == sorted(OVERRIDE_KEYS)
    for extra in (("a100",), ("--sources",)):
        r = run("devices", "--keys", *extra)
        assert r.exit_code == EXIT_USAGE and "give it without NAME or --sources" in r.stderr
