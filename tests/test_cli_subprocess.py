"""The command line as a user runs it: ``python -m ncu_roofline`` in a subprocess on the real samples, importing
this checkout (PYTHONPATH = its root). Exit codes, stdout, stderr, and the files written."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from conftest import data
from edits import without_kernel

from ncu_roofline.errors import (
    EXIT_ANALYSIS,
    EXIT_FAILURE,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_OUTPUT,
    EXIT_USAGE,
)

ROOT = Path(__file__).resolve().parents[1]


def ncu_roofline(
    *args: str | Path, cwd: Path, stdin: bytes | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``python -m ncu_roofline ARGS`` in ``cwd``, ``stdin`` piped into it where given; its output as text."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    done = subprocess.run(
        [sys.executable, "-m", "ncu_roofline", *(str(a) for a in args)],
        cwd=cwd,
        env=env,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def python_code(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -c CODE`` in ``cwd`` with this checkout on the path and ``env`` added; its output as text."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    shutil.copy(data("micro_full.raw.csv"), tmp_path / "micro_full.raw.csv")
    shutil.copy(data("micro_roof.raw.csv.gz"), tmp_path / "micro_roof.raw.csv.gz")
    return tmp_path


def test_this_checkout_is_the_one_imported(work: Path) -> None:
    p = python_code("import ncu_roofline.cli as c; print(c.__file__)", work)
    assert p.returncode == 0, p.stderr
    assert Path(p.stdout.strip()).resolve() == ROOT / "ncu_roofline" / "cli.py"


def test_analyze_default_and_no_overwrite(work: Path) -> None:
    p = ncu_roofline("micro_full.raw.csv", cwd=work)
    assert p.returncode == EXIT_OK, p.stderr
    assert "wmma_bf16" in p.stdout
    html = work / "micro_full.raw.roofline.html"
    assert "<html" in html.read_text()
    html.write_text("<html>not ours</html>")
    p = ncu_roofline("micro_full.raw.csv", "--open", cwd=work)
    assert p.returncode == EXIT_OUTPUT
    assert p.stderr.count("\n") == 1 and "already exists" in p.stderr
    p = ncu_roofline("micro_full.raw.csv", "--open", "--force", "-q", cwd=work)
    assert p.returncode == EXIT_OK
    assert p.stdout == ""
    assert "no display to open a browser on" not in p.stderr  # -q


def test_analyze_json_of_several_reports(work: Path) -> None:
    p = ncu_roofline("micro_full.raw.csv", "micro_roof.raw.csv.gz", "--format", "json", cwd=work)
    assert p.returncode == EXIT_OK, p.stderr
    doc = json.loads(p.stdout)
    assert {x["report"] for x in doc["launches"]} == {"micro_full.raw", "micro_roof.raw"}


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["missing.csv"], EXIT_INPUT, "ncu-roofline: error: missing.csv: no such file or folder"),
        (["micro_full.raw.csv", "--fomat", "json"], EXIT_USAGE, "No such option"),
        (["micro_full.raw.csv", "--peak", "dram_bytes_per_s=fast"], EXIT_USAGE, "'fast' is not a number"),
        (["micro_full.raw.csv", "--device", "Voodoo 5"], EXIT_USAGE, "unknown device"),
        (["micro_full.raw.csv", "--nvtx", "training"], EXIT_ANALYSIS, "selects none"),
    ],
)
def test_errors_are_one_line_with_the_documented_code(work: Path, args: list[str], code: int, message: str) -> None:
    p = ncu_roofline(*args, cwd=work)
    assert p.returncode == code
    assert p.stderr.count("\n") == 1, p.stderr
    assert message in p.stderr
    assert "Traceback" not in p.stderr


def test_debug_shows_the_traceback(work: Path) -> None:
    p = ncu_roofline("--debug", "missing.csv", cwd=work)
    assert p.returncode == 1
    assert "Traceback" in p.stderr
    assert "InputError: missing.csv: no such file or folder" in p.stderr


def test_diff_roof_vs_full_and_fail_if_slower(work: Path) -> None:
    p = ncu_roofline("diff", "micro_roof.raw.csv.gz", "micro_full.raw.csv", cwd=work)
    assert p.returncode == EXIT_OK, p.stderr
    assert "matched 16 of 16 BEFORE and 16 AFTER launches" in p.stdout
    assert (work / "micro_roof.raw_vs_micro_full.raw.diff.html").is_file()
    p = ncu_roofline(
        "diff", "micro_roof.raw.csv.gz", "micro_full.raw.csv", "--format", "text", "--fail-if-slower", "0", cwd=work
    )
    assert p.returncode == EXIT_FAILURE
    assert "slower than BEFORE" in p.stderr


def test_diff_kernel_removed(work: Path) -> None:
    without_kernel(work / "micro_full.raw.csv", work / "no_l2.raw.csv", "l2_reread")
    p = ncu_roofline("diff", "micro_full.raw.csv", "no_l2.raw.csv", "--format", "text", cwd=work)
    assert p.returncode == EXIT_OK
    assert "only in BEFORE  l2_reread" in p.stdout


def test_export_in_parallel(work: Path) -> None:
    p = ncu_roofline("export", work, "--parquet", "campaign", "-j", "2", cwd=work)
    assert p.returncode == EXIT_OK, p.stderr
    table = ds.dataset(work / "campaign" / "launches", format="parquet", partitioning="hive").to_table()
    assert table.num_rows == 32


def test_sections_and_devices(work: Path) -> None:
    p = ncu_roofline("sections", cwd=work)
    assert p.returncode == EXIT_OK
    assert "ncu --section-folder" in p.stdout
    p = ncu_roofline("devices", cwd=work)
    assert p.returncode == EXIT_OK
    assert "NVIDIA H200" in p.stdout


def test_an_export_piped_into_standard_input_is_read(work: Path) -> None:
    # ncu --csv ./app | ncu-roofline -: the same analysis as of the file, its report named stdin
    own_text = ncu_roofline("micro_full.raw.csv", "--format", "json", cwd=work).stdout
    own = json.loads(own_text.replace('"report":"micro_full.raw"', '"report":"stdin"'))
    p = ncu_roofline("-", "--format", "json", cwd=work, stdin=(work / "micro_full.raw.csv").read_bytes())
    assert p.returncode == EXIT_OK, p.stderr
    doc = json.loads(p.stdout)
    assert [(s["report"], s["path"], s["launches"]) for s in doc["sources"]] == [("stdin", "<stdin>", 16)]
    assert {k: v for k, v in doc.items() if k != "sources"} == {k: v for k, v in own.items() if k != "sources"}
    # gzip-compressed, beside a file: two reports; without --format the page is named after stdin, here
    p = ncu_roofline("-", "micro_full.raw.csv", "-q", cwd=work, stdin=(work / "micro_roof.raw.csv.gz").read_bytes())
    assert p.returncode == EXIT_OK, p.stderr
    assert (work / "stdin.merged.roofline.html").is_file()


def test_an_export_given_as_a_pipe_path_is_read(work: Path) -> None:
    """/dev/stdin, a named pipe, a shell's <(zcat run.txt.gz) (/dev/fd/63): a path that reads once is copied and
    read as '-' is (it read the head, then the rest as another file: "no launch line", "no ncu CSV header"); the
    page without -o goes to the current folder, not next to the pipe."""
    page = gzip.decompress(data("micro_full.details.txt.gz").read_bytes())  # a page without --csv
    p = ncu_roofline("/dev/stdin", "--format", "json", cwd=work, stdin=page)
    assert p.returncode == EXIT_OK, p.stderr
    assert json.loads(p.stdout)["sources"][0]["launches"] == 16
    fifo = work / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes((work / "micro_roof.raw.csv.gz").read_bytes()))
    writer.start()
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    p = ncu_roofline(fifo, "-q", cwd=elsewhere)
    writer.join()
    assert p.returncode == EXIT_OK, p.stderr
    assert (elsewhere / "pipe.roofline.html").is_file() and not (work / "pipe.roofline.html").exists()


def test_damage_in_standard_input_is_named_by_its_line(work: Path) -> None:
    lines = (work / "micro_full.raw.csv").read_bytes().splitlines(keepends=True)
    cut = b"".join(lines[:5]) + lines[5][:40]  # the sixth line cut short
    p = ncu_roofline("-", "--format", "json", cwd=work, stdin=cut)
    assert p.returncode == EXIT_INPUT
    err = p.stderr
    assert err.count("\n") == 1, err
    assert err.startswith("ncu-roofline: error: <stdin>:6: "), err
    p = ncu_roofline("-", cwd=work, stdin=b"")
    assert p.returncode == EXIT_INPUT
    assert p.stderr.startswith("ncu-roofline: error: <stdin>: empty file"), p.stderr


def test_output_piped_into_a_command_that_stops_reading_exits_quietly(work: Path) -> None:
    # `ncu-roofline X --format json | head -c 10`: no traceback, no message; click's exit status for a closed pipe
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    with subprocess.Popen(
        # two reports: 180 KB of JSON, past the 64 KB a pipe holds, so the run is still writing when it closes
        [sys.executable, "-m", "ncu_roofline", "micro_full.raw.csv", "micro_roof.raw.csv.gz", "--format", "json"],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as p:
        assert p.stdout is not None and p.stderr is not None
        assert p.stdout.read(10) == b'{"devices"'
        p.stdout.close()
        err = p.stderr.read()
        assert p.wait(timeout=300) == EXIT_FAILURE
    assert err == b"", err


def test_output_into_a_named_pipe_dev_stdout_and_dev_null(work: Path) -> None:
    """-o to a path that is no regular file is written into as it is: opened once for writing (never read,
    which waited for a writer that never came), never replaced by a file, and without --force."""
    fifo = work / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    try:
        p = ncu_roofline("micro_full.raw.csv", "--format", "json", "-o", fifo, cwd=work, timeout=120)
    finally:
        if reader.is_alive() and not got:  # the run failed before it opened the pipe: let the reader end
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=60)
    assert p.returncode == EXIT_OK, p.stderr
    assert p.stderr == f"ncu-roofline: wrote {fifo}\n"
    assert len(json.loads(got[0])["launches"]) == 16
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(q.name for q in work.iterdir()) == ["micro_full.raw.csv", "micro_roof.raw.csv.gz", "out.fifo"]
    p = ncu_roofline("micro_full.raw.csv", "--format", "json", "-o", "/dev/stdout", cwd=work, timeout=120)  # a pipe
    assert p.returncode == EXIT_OK, p.stderr
    assert len(json.loads(p.stdout)["launches"]) == 16
    # the default (summary and page) into /dev/stdout: the page alone, as with -o - (the summary ran into it)
    p = ncu_roofline("micro_full.raw.csv", "-o", "/dev/stdout", cwd=work, timeout=120)
    assert p.returncode == EXIT_OK, p.stderr
    assert p.stdout.startswith("<!DOCTYPE html>") and "ncu-roofline ·" not in p.stdout.split("<", 2)[0]
    p = ncu_roofline("micro_full.raw.csv", "--format", "csv", "-o", "/dev/null", cwd=work, timeout=120)
    assert (p.returncode, p.stdout, p.stderr) == (EXIT_OK, "", "ncu-roofline: wrote /dev/null\n")
    p = ncu_roofline("micro_full.raw.csv", "--format", "parquet", "-o", fifo, cwd=work)
    assert (p.returncode, p.stderr) == (EXIT_OUTPUT, f"ncu-roofline: error: {fifo}: exists and is not a folder\n")


#: Runs the command line as its console script does (``from ncu_roofline.cli import main``) or as ``python -m
#: ncu_roofline``, with SIGINT sent to itself while ``ncu_roofline.cli`` is being imported: when it first asks
#: for a module that only the command line imports (click, the JSON renderer), as a Ctrl-C in the first second.
INTERRUPTED_WHILE_IMPORTING = """
import os, signal, sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        # at click (the first import of cli.py), or at the first import of pandas wherever it comes (it came with
        # `import ncu_roofline`, before cli.py could make Ctrl-C quiet: 0.6 s of the 0.8 s start)
        if name == os.environ["INTERRUPT_AT"] and (name == "pandas" or "ncu_roofline.cli" in sys.modules):
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None
sys.meta_path.insert(0, Interrupt())
sys.argv = ["ncu-roofline", "--version"]
if os.environ.get("AS_MODULE"):
    import runpy
    runpy.run_module("ncu_roofline", run_name="__main__", alter_sys=True)
else:
    from ncu_roofline.cli import main
    main()
"""


@pytest.mark.parametrize("at", ["click", "pandas"])
@pytest.mark.parametrize("as_module", [False, True])
def test_ctrl_c_while_the_command_line_is_imported_is_clean(work: Path, as_module: bool, at: str) -> None:
    env = {"AS_MODULE": "1" if as_module else "", "INTERRUPT_AT": at}
    p = python_code(INTERRUPTED_WHILE_IMPORTING, work, **env)
    assert (p.returncode, p.stdout, p.stderr) == (EXIT_INTERRUPTED, "", "ncu-roofline: interrupted\n")
    # once imported, Ctrl-C is Python's KeyboardInterrupt again (a program importing the module keeps it)
    p = python_code("import signal, ncu_roofline.cli; print(signal.getsignal(signal.SIGINT).__name__)", work, **env)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "default_int_handler\n"
