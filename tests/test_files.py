"""ncu_roofline.files: inputs from files, folders and globs; output names; writing without silent overwrite."""

from __future__ import annotations

import errno
import gzip
import io
import os
import shutil
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
from conftest import data

from ncu_roofline import files
from ncu_roofline.errors import InputError, OutputError
from ncu_roofline.files import (
    check_writable,
    default_output,
    expand_inputs,
    input_stem,
    prepare_folder,
    uncompressed_size,
    write_behind,
    write_text,
    written_by_us,
)


@pytest.fixture()
def campaign(tmp_path: Path) -> Path:
    """A folder tree of real exports, with files that are not exports beside them."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "deep").mkdir()
    shutil.copy(data("micro_full.raw.csv"), tmp_path / "a" / "micro_full.raw.csv")
    shutil.copy(data("micro_roof.raw.csv.gz"), tmp_path / "a" / "deep" / "micro_roof.raw.csv.gz")
    (tmp_path / "a" / "notes.md").write_text("not an export")
    (tmp_path / "a" / "old.roofline.html").write_text("<html></html>")
    return tmp_path


def test_folder_gives_its_exports_recursively_sorted(campaign: Path) -> None:
    got = expand_inputs([campaign / "a"])
    assert [p.relative_to(campaign / "a").as_posix() for p in got] == [
        "deep/micro_roof.raw.csv.gz",
        "micro_full.raw.csv",
    ]


def test_glob_pattern_the_shell_did_not_expand(campaign: Path) -> None:
    got = expand_inputs([str(campaign / "a" / "**" / "*.csv*")])
    assert sorted(p.name for p in got) == ["micro_full.raw.csv", "micro_roof.raw.csv.gz"]


def test_a_file_reached_twice_is_kept_once_in_the_order_given(campaign: Path) -> None:
    f = campaign / "a" / "micro_full.raw.csv"
    got = expand_inputs([f, campaign / "a", str(f)])
    assert [p.name for p in got] == ["micro_full.raw.csv", "micro_roof.raw.csv.gz"]


def test_a_named_file_is_taken_whatever_its_suffix(campaign: Path) -> None:
    assert expand_inputs([campaign / "a" / "notes.md"]) == [campaign / "a" / "notes.md"]


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("missing.csv", "no such file or folder"),
        ("*.nothing", "no file matches this pattern"),
    ],
)
def test_input_errors_name_the_path(tmp_path: Path, argument: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as err:
        expand_inputs([str(tmp_path / argument)])
    assert str(tmp_path) in str(err.value)


def test_folder_without_exports_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "readme.md").write_text("x")
    with pytest.raises(InputError, match="folder without ncu exports"):
        expand_inputs([tmp_path])


def test_hidden_folders_and_files_in_a_folder_are_not_searched(campaign: Path) -> None:
    # a project folder's virtual environment and version control hold .txt files that are no ncu export
    (campaign / "a" / ".venv" / "lib").mkdir(parents=True)
    shutil.copy(data("micro_full.raw.csv"), campaign / "a" / ".venv" / "lib" / "copy.raw.csv")
    (campaign / "a" / ".venv" / "lib" / "LICENSE.txt").write_text("not an export")
    shutil.copy(data("micro_full.raw.csv"), campaign / "a" / ".hidden.raw.csv")
    got = expand_inputs([campaign / "a"])
    assert [p.relative_to(campaign / "a").as_posix() for p in got] == [
        "deep/micro_roof.raw.csv.gz",
        "micro_full.raw.csv",
    ]
    # a hidden folder named on the command line is searched; a hidden file named there is read
    assert [p.name for p in expand_inputs([campaign / "a" / ".venv"])] == ["LICENSE.txt", "copy.raw.csv"]
    assert expand_inputs([campaign / "a" / ".hidden.raw.csv"]) == [campaign / "a" / ".hidden.raw.csv"]


def test_a_folder_with_exports_only_in_hidden_folders_says_they_are_not_searched(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    shutil.copy(data("micro_full.raw.csv"), tmp_path / ".git" / "a.raw.csv")
    with pytest.raises(InputError, match="hidden files and folders, named with a leading dot, are not searched"):
        expand_inputs([tmp_path])


def test_no_arguments_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no input files"):
        expand_inputs([])


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("micro_full.raw.csv", "micro_full.raw"),
        ("micro_roof.raw.csv.gz", "micro_roof.raw"),
        ("micro_roof.ncu-rep", "micro_roof"),
        ("micro_roof.ncu-rep.gz", "micro_roof"),
        ("capture.txt", "capture"),
        ("report", "report"),
        (".csv", ".csv"),
    ],
)
def test_input_stem(name: str, stem: str) -> None:
    assert input_stem(Path("x") / name) == stem


def test_default_output_is_next_to_the_first_input() -> None:
    one = [Path("runs/a/micro_full.raw.csv")]
    two = [Path("runs/a/micro_full.raw.csv"), Path("runs/b/other.csv")]
    assert default_output(one, ".roofline.html") == Path("runs/a/micro_full.raw.roofline.html")
    assert default_output(two, ".roofline.html") == Path("runs/a/micro_full.raw.merged.roofline.html")


def test_write_text_never_overwrites_without_force(tmp_path: Path) -> None:
    target = tmp_path / "out.html"
    write_text(target, "first")
    with pytest.raises(OutputError, match="already exists and is not an output ncu-roofline recognises as its own"):
        write_text(target, "second")
    assert target.read_text() == "first"
    write_text(target, "second", force=True)
    assert target.read_text() == "second"
    assert [p.name for p in tmp_path.iterdir()] == ["out.html"]  # no temporary file left


def test_what_the_tool_wrote_is_recognised_by_its_marker(tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    write_text(page, '<!DOCTYPE html><html><head><meta name="generator" content="ncu-roofline 1.0">')
    assert written_by_us(page)
    write_text(page, "replaced without --force")  # ours: replaced
    assert page.read_text() == "replaced without --force" and not written_by_us(page)
    doc = tmp_path / "r.json"
    doc.write_text('{\n  "tool": {\n    "name": "someone else"\n  }\n}\n')
    assert not written_by_us(doc)
    doc.write_text('{\n  "tool": {\n    "name": "ncu-roofline",\n    "version": "1"\n  }\n}\n')
    assert written_by_us(doc)
    data = tmp_path / "ds"
    (data / "launches" / "report=a").mkdir(parents=True)
    (data / "launches" / "report=a" / "part-0.parquet").write_bytes(b"PAR1")
    assert written_by_us(data)
    (data / "mine.txt").write_text("x")
    assert not written_by_us(data)


def test_pieces_are_written_in_order_on_a_thread_of_their_own(tmp_path: Path) -> None:
    writers: set[str] = set()

    class Recording(io.BytesIO):
        def write(self, b: bytes) -> int:  # type: ignore[override]
            writers.add(threading.current_thread().name)
            return super().write(b)

    fh = Recording()
    pieces = ["{", "\u00b5s", ",", *(str(i) for i in range(100)), "}"]
    write_behind(fh, pieces)
    assert fh.getvalue() == "".join(pieces).encode("utf-8")
    write_behind(fh, [b"and", b" bytes"])
    assert fh.getvalue().endswith(b"99}and bytes")
    assert writers == {"ncu-roofline-write"}  # not the caller's thread
    target = tmp_path / "out.json"
    write_text(target, iter(pieces))
    assert target.read_text(encoding="utf-8") == "".join(pieces)


def test_a_failed_write_stops_the_maker_and_is_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Full(io.BytesIO):
        def write(self, b: bytes) -> int:  # type: ignore[override]
            if self.tell() >= 3:
                raise OSError(errno.ENOSPC, "No space left on device")
            return super().write(b)

    made: list[int] = []

    def pieces() -> Iterator[bytes]:
        for i in range(10_000):
            made.append(i)
            yield b"x"

    with pytest.raises(OSError, match="No space left"):
        write_behind(Full(), pieces())
    assert len(made) < 100  # the maker stopped soon after the failure, not at the end of its pieces
    # through write_text: a clear error naming the file, and no temporary file left
    target = tmp_path / "out.json"
    monkeypatch.setattr(files, "write_behind", lambda fh, parts: write_behind(Full(), parts))
    with pytest.raises(OutputError, match=r"out\.json: cannot write: No space left on device"):
        write_text(target, pieces())
    assert list(tmp_path.iterdir()) == []


def test_an_error_while_making_the_pieces_stops_the_writer_and_is_raised(tmp_path: Path) -> None:
    def pieces() -> Iterator[str]:
        yield "a"
        yield "b"
        raise ValueError("bad launch")

    fh = io.BytesIO()
    with pytest.raises(ValueError, match="bad launch"):
        write_behind(fh, pieces())
    assert fh.getvalue() == b"ab"  # what came before the error, and the writing thread gone
    assert not [t for t in threading.enumerate() if t.name == "ncu-roofline-write"]
    target = tmp_path / "out.json"
    with pytest.raises(ValueError, match="bad launch"):
        write_text(target, pieces())
    assert list(tmp_path.iterdir()) == []  # neither the output nor the temporary file


def test_write_text_into_a_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="does not exist"):
        write_text(tmp_path / "nope" / "out.html", "x")


def test_write_text_onto_a_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="is a folder"):
        write_text(tmp_path, "x", force=True)


def test_prepare_folder(tmp_path: Path) -> None:
    folder = prepare_folder(tmp_path / "pq")
    assert folder.is_dir()
    (folder / "old.parquet").write_text("x")
    with pytest.raises(OutputError, match="not empty; use --force"):
        prepare_folder(folder)
    prepare_folder(folder, force=True)
    assert list(folder.iterdir()) == []
    with pytest.raises(OutputError, match="does not exist"):
        prepare_folder(tmp_path / "a" / "b")


def test_uncompressed_size_reads_the_gzip_trailer(tmp_path: Path) -> None:
    gz = data("micro_roof.raw.csv.gz")
    with gzip.open(gz, "rb") as fh:
        assert uncompressed_size(gz) == len(fh.read())
    plain = data("micro_full.raw.csv")
    assert uncompressed_size(plain) == plain.stat().st_size


def _made_drop_behinds(monkeypatch: pytest.MonkeyPatch) -> list[files.DropBehind]:
    """Every DropBehind that write_behind makes from now on."""
    made: list[files.DropBehind] = []
    real_init = files.DropBehind.__init__

    def init(self: files.DropBehind, fd: int) -> None:
        real_init(self, fd)
        made.append(self)

    monkeypatch.setattr(files.DropBehind, "__init__", init)
    return made


def _recorded_drop_behind(monkeypatch: pytest.MonkeyPatch) -> tuple[list[files.DropBehind], list[tuple[int, int]]]:
    """DropBehind made by write_behind, and the advice it gives (start, length), with the advice recorded."""
    advised: list[tuple[int, int]] = []

    def advise(fd: int, offset: int, length: int, advice: int) -> None:
        assert advice == files.os.POSIX_FADV_DONTNEED
        advised.append((offset, length))

    monkeypatch.setattr(files.os, "posix_fadvise", advise)
    return _made_drop_behinds(monkeypatch), advised


def _ended(behind: files.DropBehind) -> None:
    """Wait for ``behind``'s thread (it must have one) and check that it has ended."""
    assert behind.thread is not None
    behind.thread.join(5)
    assert not behind.thread.is_alive()


def _closes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The descriptors os.close is called with, from now on."""
    closed: list[int] = []
    real_close = files.os.close

    def close(fd: int) -> None:
        closed.append(fd)
        real_close(fd)

    monkeypatch.setattr(files.os, "close", close)
    return closed


@pytest.mark.skipif(not hasattr(files.os, "posix_fadvise"), reason="no posix_fadvise on this system")
def test_drop_behind_lets_the_pages_past_the_first_bytes_go_once_written_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each piece past KEEP_CACHED is given to the kernel when written (write it back) and again DROP_LAG pieces
    later with all before it (drop their pages); the first bytes and the last pieces are left cached; the file
    is whole."""
    monkeypatch.setattr(files, "KEEP_CACHED", 10)
    made, advised = _recorded_drop_behind(monkeypatch)
    closed = _closes(monkeypatch)
    pieces = [b"a" * 4, b"b" * 8, b"c" * 8, b"d" * 8, b"e" * 8]
    target = tmp_path / "out.json"
    write_text(target, iter(pieces))
    assert target.read_bytes() == b"".join(pieces)
    assert len(made) == 1
    _ended(made[0])
    # bytes 0-9 kept; 10-11 of the second piece, then each piece; two pieces on, all before it again
    assert advised == [(10, 2), (12, 8), (20, 8), (10, 2), (28, 8), (10, 10)]
    assert made[0].fd in closed  # its own descriptor closed
    # a small file: no advice at all, and no thread
    advised.clear()
    monkeypatch.setattr(files, "KEEP_CACHED", 1 << 20)
    write_text(target, iter(pieces), force=True)
    assert len(made) == 2 and made[1].thread is None and made[1].fd is None
    assert advised == []


@pytest.mark.skipif(not hasattr(files.os, "posix_fadvise"), reason="no posix_fadvise on this system")
def test_drop_behind_on_a_file_that_takes_no_advice_writes_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pipe refuses the advice (ESPIPE): the pieces all arrive, the helper thread ends and closes its
    descriptor; a file object without one gets no helper at all."""
    monkeypatch.setattr(files, "KEEP_CACHED", 0)
    made = _made_drop_behinds(monkeypatch)
    closed = _closes(monkeypatch)
    read_end, write_end = files.os.pipe()
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(files.os.fdopen(read_end, "rb").read()))
    reader.start()
    with files.os.fdopen(write_end, "wb") as fh:
        write_behind(fh, [b"x" * 1000] * 50)
    reader.join(5)
    assert got == [b"x" * 50_000]
    _ended(made[0])
    assert made[0].fd in closed
    write_behind(io.BytesIO(), [b"no descriptor"])
    assert len(made) == 1


# ------------------------------------------------------------------------------ unreadable folders, stream outputs


@pytest.fixture()
def locked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Folders made unreadable (``chmod 000``) by appending them to the list; for root, whom permissions do not
    stop, listing them (``os.scandir``, which ``Path.rglob`` uses too) raises PermissionError as it would."""
    folders: list[Path] = []
    real_scandir = os.scandir

    def scandir(path: Any = ".") -> Any:
        if Path(path) in folders:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    if os.geteuid() == 0:
        monkeypatch.setattr(os, "scandir", scandir)
    yield folders
    for folder in folders:
        folder.chmod(0o755)


def _lock(folders: list[Path], folder: Path) -> Path:
    folder.chmod(0o000)
    folders.append(folder)
    return folder


def test_an_unreadable_folder_is_permission_denied_not_a_folder_without_exports(
    tmp_path: Path, locked: list[Path]
) -> None:
    (tmp_path / "runs").mkdir()
    shutil.copy(data("micro_full.raw.csv"), tmp_path / "runs" / "a.raw.csv")
    folder = _lock(locked, tmp_path / "runs")
    with pytest.raises(InputError) as err:
        expand_inputs([folder])
    assert str(err.value) == f"{folder}: cannot list this folder: Permission denied"


def test_an_unreadable_folder_inside_a_folder_is_an_error_not_left_out(campaign: Path, locked: list[Path]) -> None:
    # its exports would be missing from the analysis without a word; a hidden one is not searched anyway
    (campaign / "a" / ".cache").mkdir()
    _lock(locked, campaign / "a" / ".cache")
    assert len(expand_inputs([campaign / "a"])) == 2
    inner = _lock(locked, campaign / "a" / "deep")
    with pytest.raises(InputError, match="cannot list this folder: Permission denied") as err:
        expand_inputs([campaign / "a"])
    assert err.value.path == str(inner)


def _opened_and_closed(fifo: Path) -> Callable[[], object]:
    """What unblocks one waiting to open ``fifo`` for reading, or reading it: a writer that closes at once."""
    return lambda: os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def _unblocked(work: Callable[[], object], unblock: Callable[[], object]) -> object:
    """``work()`` (which writes into a pipe) on a thread of its own, its result or exception returned; should it
    still wait after a while (a bug: it reads the pipe), ``unblock()`` frees it so that nothing hangs, and the
    test fails."""
    done: list[object] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:
            done.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=60)
    stuck = thread.is_alive()
    if stuck:
        with suppress(OSError):
            unblock()
        thread.join(timeout=60)
    assert not stuck, "writing into a pipe hung: it was read"
    return done[0]


def _reader(fifo: Path) -> tuple[threading.Thread, list[bytes]]:
    got: list[bytes] = []
    thread = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    thread.start()
    return thread, got


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("pieces", [False, True])
def test_a_named_pipe_is_written_into_never_read_or_replaced(tmp_path: Path, force: bool, pieces: bool) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    text = "x" * 200_000  # past what a pipe holds: the reader must be reading as it is written
    reader, got = _reader(fifo)
    written = _unblocked(
        lambda: write_text(fifo, [text[:1000], text[1000:]] if pieces else text, force), _opened_and_closed(fifo)
    )
    reader.join(timeout=60)
    assert written == fifo
    assert got == [text.encode()]
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # not replaced by a file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.fifo"]  # no temporary file
    with pytest.raises(OutputError, match="exists and is not a folder"):  # a folder format (parquet) cannot go there
        prepare_folder(fifo)


def test_a_character_device_is_written_into_without_force() -> None:
    assert files.is_stream_output(Path("/dev/null"))
    check_writable(Path("/dev/null"), force=False)
    assert write_text(Path("/dev/null"), "x") == Path("/dev/null")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.skipif(not Path("/dev/fd").is_dir(), reason="no /dev/fd on this system")
def test_a_descriptor_name_is_written_into(tmp_path: Path) -> None:
    # -o /dev/stdout, /dev/fd/3: into what the descriptor is; a pipe's is never read (it would wait for data)
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as pipe:
        try:
            name = Path(f"/dev/fd/{write_end}")
            assert files.is_stream_output(name)
            # a reading of it would wait for data (buffered: for 4096 bytes)
            assert _unblocked(lambda: write_text(name, "into a pipe"), lambda: os.write(write_end, b"-" * 4096)) == name
        finally:
            os.close(write_end)
        assert pipe.read() == b"into a pipe"
    # a file the shell opened (`> out.json`): appended to (after what went there before), never replaced
    target = tmp_path / "out.json"
    with target.open("wb") as fh:
        fh.write(b"summary\n")
        fh.flush()
        inode = target.stat().st_ino
        write_text(Path(f"/dev/fd/{fh.fileno()}"), "page")
    assert target.read_bytes() == b"summary\npage"
    assert target.stat().st_ino == inode
    with pytest.raises(OutputError, match=r"^/dev/fd/987: cannot write: "):
        write_text(Path("/dev/fd/987"), "x")


def test_an_existing_output_it_cannot_recognise_is_described_truly(tmp_path: Path) -> None:
    # a CSV or text output carries no mark: the tool may have written it, but cannot tell
    target = tmp_path / "k.csv"
    write_text(target, "report,launch_id\n")
    with pytest.raises(OutputError) as err:
        write_text(target, "report,launch_id\n")
    assert str(err.value) == (
        f"{target}: already exists and is not an output ncu-roofline recognises as its own (it marks its HTML, "
        "JSON and Markdown; CSV and text carry no mark); use --force to overwrite it, or -o to choose another name"
    )
