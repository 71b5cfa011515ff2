"""Files on the command line: inputs from files, folders and globs; output names; writing without overwriting.

Pure file-system helpers for ``ncu_roofline.cli``: no printing. Every failure is an ``InputError`` (inputs) or an
``OutputError`` (outputs) naming the path and what to do.
"""

from __future__ import annotations

import glob
import os
import queue
import re
import shutil
import stat
import struct
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import BinaryIO

from .errors import InputError, OutputError

#: Suffixes of the files a folder contributes (each also with ``.gz``): ncu CSV pages and stdout captures,
#: ncu's text output (``ncu ./app > run.log``, a batch job's ``slurm-123.out``), and ncu's own report files.
EXPORT_SUFFIXES: tuple[str, ...] = (".csv", ".txt", ".log", ".out", ".ncu-rep")
#: Suffixes dropped from an input's name to make the stem of its outputs (``run.raw.csv.gz`` -> ``run.raw``).
INPUT_SUFFIXES: tuple[str, ...] = (".gz", *EXPORT_SUFFIXES)
GLOB_CHARS = frozenset("*?[")
#: The argument that names standard input (``ncu --csv ./app | ncu-roofline -``; a file named ``-`` is ``./-``),
#: and its report name, the stem of the outputs named after it.
STDIN, STDIN_STEM = "-", "stdin"


def is_stdin(path: str | os.PathLike[str]) -> bool:
    """Whether an input argument names standard input (exactly ``-``; ``Path("./-")`` reads as ``-`` too, so
    ``expand_arguments`` makes a file of that name absolute)."""
    return str(path) == STDIN


def is_export_file(path: Path) -> bool:
    """Whether a file found in a folder looks like an ncu export (by its suffix, .gz or not)."""
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    return name.endswith(EXPORT_SUFFIXES)


def _hidden(relative: Path) -> bool:
    """Whether a path found under a folder lies in a hidden folder or is a hidden file (a name with a leading
    dot: ``.venv``, ``.git``, ``.ipynb_checkpoints``), which a folder's search leaves out, as ripgrep does:
    a project folder's virtual environment holds thousands of ``.txt`` files that are no ncu export."""
    return any(part.startswith(".") for part in relative.parts)


def expand_inputs(arguments: Iterable[str | Path]) -> list[Path]:
    """The input files named by command-line arguments, in the order given (see :func:`expand_arguments`)."""
    return expand_arguments(arguments)[0]


def expand_arguments(arguments: Iterable[str | Path]) -> tuple[list[Path], frozenset[Path]]:
    """The input files named by command-line arguments, in the order given, and those of them found in a folder.

    An argument is a file (taken as is, whatever its suffix), a folder (every ncu export under it, recursively,
    sorted by path: ``EXPORT_SUFFIXES``, optionally ``.gz``; hidden files and folders left out, ``_hidden``) or
    a glob pattern the shell did not expand (``'runs/**/*.csv'``, for more files than a command line holds). A
    file reached twice is kept once.
    A file found in a folder may turn out not to be an export (a stray ``notes.txt``): readers skip it with a
    warning, where a file named explicitly is an error.
    Raises ``InputError`` for a path that does not exist, a folder without exports, a folder (the one given, or
    one not hidden under it) that cannot be listed, a pattern that matches nothing, or no arguments at all.
    """
    out: list[Path] = []
    seen: set[Path] = set()
    in_folder: set[Path] = set()

    def add(p: Path, found: bool = False) -> None:
        if is_stdin(p):  # a file named "-" (given as ./-: Path("./-") is Path("-")), not standard input
            p = p.absolute()
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            out.append(p)
            if found:
                in_folder.add(p)

    for arg in arguments:
        text = str(arg)
        path = Path(text)
        if is_stdin(text):  # standard input, read once however often it is named
            if path not in seen:
                seen.add(path)
                out.append(path)
        elif path.is_dir():
            _check_listable(path)
            found = []
            for p in path.rglob("*"):
                if _hidden(p.relative_to(path)):
                    continue
                if p.is_dir():
                    if not p.is_symlink():  # one rglob goes into: it skips one it cannot list, and its exports
                        _check_listable(p)
                elif p.is_file() and is_export_file(p):
                    found.append(p)
            found.sort()
            if not found:
                raise InputError(
                    path,
                    f"folder without ncu exports (files ending in {', '.join(EXPORT_SUFFIXES)}, or .gz; "
                    "hidden files and folders, named with a leading dot, are not searched)",
                )
            for p in found:
                add(p, found=True)
        elif path.exists():
            add(path)
        elif GLOB_CHARS & set(text):
            matches = sorted(glob.glob(text, recursive=True))
            files = [Path(m) for m in matches if Path(m).is_file()]
            if not files:
                raise InputError(path, "no file matches this pattern")
            for p in files:
                add(p)
        else:
            raise InputError(path, "no such file or folder")
    if not out:
        raise InputError(None, "no input files given")
    return out, frozenset(in_folder)


def _check_listable(folder: Path) -> None:
    """Raise ``InputError`` (naming ``folder``) unless its entries can be listed (a ``chmod 000`` folder of
    another user: permission denied, where ``Path.rglob`` would find nothing and say nothing)."""
    try:
        with os.scandir(folder):
            pass
    except OSError as exc:
        raise InputError(folder, f"cannot list this folder: {exc.strerror or exc}") from exc


def input_stem(path: Path) -> str:
    """An input's name without its export suffixes: ``run.raw.csv.gz`` -> ``run.raw``, ``a.ncu-rep`` -> ``a``."""
    if is_stdin(path):
        return STDIN_STEM
    name = path.name
    changed = True
    while changed:
        changed = False
        for suffix in INPUT_SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
                changed = True
    return name


def is_stream(path: Path) -> bool:
    """Whether ``path`` reads only once: a pipe or a device (``/dev/stdin``, a named pipe, a shell's
    ``<(zcat run.csv.gz)``), not ``-`` (``is_stdin``), a file or a folder."""
    return not is_stdin(path) and path.exists() and not path.is_file() and not path.is_dir()


def default_output(inputs: Sequence[Path], suffix: str) -> Path:
    """Where an output goes without ``-o``: next to the first input, named ``<stem><suffix>``, with
    ``.merged`` before the suffix when several inputs make one output (``a.raw.merged.roofline.html``); in the
    current folder where the first input is standard input or another stream (a shell's ``<(zcat run.csv.gz)``
    is ``/dev/fd/63``, a folder nobody writes in)."""
    first = inputs[0]
    stem = input_stem(first) + (".merged" if len(inputs) > 1 else "")
    return (Path(".") if is_stream(first) else first.parent) / f"{stem}{suffix}"


def uncompressed_size(path: Path) -> int:
    """The size of a file's data: for gzip, the uncompressed size its trailer records (modulo 4 GiB)."""
    try:
        size = path.stat().st_size
        if path.name.endswith(".gz") and size >= 18:
            with path.open("rb") as fh:
                fh.seek(-4, os.SEEK_END)
                isize: int = struct.unpack("<I", fh.read(4))[0]
                return max(size, isize)
    except OSError:
        return 0
    return size


#: What the outputs ncu-roofline writes carry, so that a re-run may replace them without --force: the HTML pages'
#: generator tag and the Markdown summary's first line (at the start), the JSON documents' ``tool`` (at the end,
#: sorted keys). CSV and plain text carry none: an existing one needs --force.
HEAD_MARKERS: tuple[bytes, ...] = (b'<meta name="generator" content="ncu-roofline', b"### ncu-roofline: ")
TAIL_MARKERS: tuple[bytes, ...] = (b'"name": "ncu-roofline"', b'"name":"ncu-roofline"')
MARKER_WINDOW = 4096


def written_by_us(path: Path) -> bool:
    """Whether ``path`` is a file ncu-roofline wrote (it carries one of the markers), or a folder holding only
    a Parquet dataset in its layout (``<frame>/report=<name>/part-0.parquet``)."""
    try:
        if path.is_dir():
            files = [p for p in path.rglob("*") if p.is_file()]
            return bool(files) and all(
                len(p.relative_to(path).parts) == 3
                and p.name == "part-0.parquet"
                and p.parent.name.startswith("report=")
                for p in files
            )
        if not path.is_file():  # never opened to read: a named pipe would block, a device is no report
            return False
        with path.open("rb") as fh:
            head = fh.read(MARKER_WINDOW)
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - MARKER_WINDOW))
            tail = fh.read()
    except OSError:
        return False
    return any(m in head for m in HEAD_MARKERS) or any(m in tail for m in TAIL_MARKERS)


#: Output names that stand for a descriptor of this process: ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/3``,
#: ``/proc/self/fd/1``. Written into as they are, whatever the descriptor is (a pipe, a terminal, or a file the
#: shell opened: ``> out.json``), never replaced.
DESCRIPTOR_NAME = re.compile(r"/(?:dev/(?:stdout|stderr|fd/\d+)|proc/(?:self|thread-self|\d+)/fd/\d+)")


def is_stream_output(path: Path) -> bool:
    """Whether an output path is written into as it is (opened for writing once, never read, replaced or
    renamed over, no --force needed): a name of a descriptor (:data:`DESCRIPTOR_NAME`), a named pipe or a
    character device (``/dev/null``, a terminal)."""
    if DESCRIPTOR_NAME.fullmatch(str(path)):
        return True
    try:
        mode = os.stat(path).st_mode  # never opens it: opening a named pipe waits for the other end
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def check_writable(path: Path, force: bool) -> None:
    """Raise ``OutputError`` unless ``path`` can be written: its folder exists, and it is not there already
    (or ``force``, or it is an output of ours, :func:`written_by_us`) and not a folder or another thing that is
    not a file (a block device, a socket). A named pipe, a character device or a descriptor's name
    (:func:`is_stream_output`) is written into as it is: only its permission is checked (it is never opened
    here: a named pipe would wait for its reader)."""
    if is_stream_output(path):
        if path.exists() and not os.access(path, os.W_OK):
            raise OutputError(f"{path}: cannot write: Permission denied")
        return
    parent = path.parent
    if not parent.is_dir():
        what = f"{parent} is not a folder" if parent.exists() else f"the folder {parent} does not exist"
        raise OutputError(f"{path}: cannot write: {what}")
    if path.is_dir():
        raise OutputError(f"{path}: is a folder; name an output file")
    if path.exists() and not path.is_file():
        raise OutputError(f"{path}: is not a file, a named pipe or a character device; name an output file")
    if path.exists() and not force and not written_by_us(path):
        raise OutputError(
            f"{path}: already exists and is not an output ncu-roofline recognises as its own (it marks its HTML, "
            "JSON and Markdown; CSV and text carry no mark); use --force to overwrite it, or -o to choose another name"
        )


def check_not_input(target: Path, inputs: Iterable[Path]) -> None:
    """Raise ``OutputError`` where writing ``target`` would replace or empty an input of the run, whatever --force
    says: the same file (``-o run.csv`` for the export being read), or a folder output holding an input
    (``export runs/ --parquet runs``). Standard input, streams and outputs that are descriptors never are."""
    if is_stream_output(target) or not target.exists():
        return
    here = target.resolve()
    for p in inputs:
        if is_stdin(p) or is_stream(p) or not p.exists():
            continue
        there = p.resolve()
        if there == here or (target.is_dir() and here in there.parents):
            held = "" if there == here else f"a folder holding {p}, "
            raise OutputError(f"{target}: is {held}an input of this run; name another output")


def write_text(path: Path, text: str | Iterable[str] | Iterable[bytes], force: bool = False) -> Path:
    """Write ``text`` (a string, or pieces written as they come: text, or bytes already encoded) to ``path``
    (UTF-8), never replacing a file unless ``force``; atomic (temp + rename). A named pipe, a character device
    or a descriptor's name (:func:`is_stream_output`) is written into directly."""
    check_writable(path, force)
    if is_stream_output(path):
        return _write_into(path, text)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # same folder (rename is atomic), umask honoured
    try:
        try:
            with tmp.open("xb") as fh:
                _write_all(fh, text)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    return path


def _write_all(fh: BinaryIO, text: str | Iterable[str] | Iterable[bytes]) -> None:
    if isinstance(text, str):
        fh.write(text.encode("utf-8"))
    else:
        write_behind(fh, text)


def _write_into(path: Path, text: str | Iterable[str] | Iterable[bytes]) -> Path:
    """``text`` written into a named pipe, a device or a descriptor's name: opened for writing once (a named
    pipe waits for its reader, as ``cat > fifo`` does), without creating, truncating or replacing anything;
    appended where the descriptor is a file (``-o /dev/stdout > out.json`` after the summary)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "wb") as fh:
            _write_all(fh, text)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    return path


#: Pieces made but not yet written that :func:`write_behind` holds at most (besides the one being written).
WRITE_AHEAD = 2


def write_behind(fh: BinaryIO, pieces: Iterable[str] | Iterable[bytes]) -> None:
    """Write ``pieces`` (text as UTF-8, or bytes) to ``fh`` in order, on a thread of its own while the caller's
    iterator makes the next ones: the kernel's work of writing a piece (page-cache pages for it, which a virtual
    machine's host may back only then) runs beside the making of the next. At most ``WRITE_AHEAD`` pieces wait.
    The first error of either side is raised here, after the writing thread has stopped; nothing is written
    after it."""
    waiting: queue.Queue[bytes | None] = queue.Queue(maxsize=WRITE_AHEAD)
    failed: list[BaseException] = []
    behind = DropBehind.of(fh)

    def drain() -> None:
        at = 0
        while (piece := waiting.get()) is not None:
            if failed:
                continue  # keep taking pieces: the maker never waits on a full queue
            try:
                fh.write(piece)
            except BaseException as exc:  # raised again on the caller's thread
                failed.append(exc)
                continue
            if behind is not None:
                behind.written(at, at + len(piece))
            at += len(piece)
        if behind is not None:
            behind.close()

    writer = threading.Thread(target=drain, name="ncu-roofline-write", daemon=True)
    writer.start()
    try:
        for piece in pieces:
            if failed:
                break
            waiting.put(piece if isinstance(piece, bytes) else piece.encode("utf-8"))
    finally:
        waiting.put(None)
        writer.join()
    if failed:
        raise failed[0]


#: Bytes at the start of an output file that :class:`DropBehind` leaves in the page cache.
KEEP_CACHED = 16 << 20

#: Pieces that :class:`DropBehind` lets the kernel write back before it drops their pages.
DROP_LAG = 2


class DropBehind:
    """The page cache of a large output file let go behind its writer, on a thread of its own. Each piece written
    past the first ``KEEP_CACHED`` bytes is given to the kernel at once (``POSIX_FADV_DONTNEED``: it starts
    writing the dirty pages back, and drops only clean ones) and again ``DROP_LAG`` pieces later, written back
    by then, when its pages are dropped, with every piece before it whose writeback had not ended the last time.
    The file's later pieces take the pages its earlier ones left, and the run's page cache stays about
    ``KEEP_CACHED`` plus a few pieces, not the whole file (900 MB of JSON at 102,400 launches: 33-37 MB left
    cached, against 212-299 MB when each piece was dropped once). That matters where a new page-cache page is
    dear: a virtual machine whose host backs a page only when the guest first touches it (this project's
    development machine: 11.4 s against 0.26 s for 900 MB in 9 MB pieces, in an hour when a fresh page cost
    56 us), or a container whose page cache counts against its memory limit. A disk slower than the writer only
    leaves more of the file cached: this thread waits for the disk, the writer does not, and nobody waits for
    this thread (it closes its own descriptor when it is done). On a system without the advice, or a file that
    takes none (a pipe), nothing is done."""

    def __init__(self, fd: int) -> None:
        self.file = fd  # the writer's descriptor, duplicated for the thread when a piece first passes KEEP_CACHED
        self.fd: int | None = None
        self.ranges: queue.SimpleQueue[tuple[int, int] | None] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None  # none for a small file
        self.off = False

    @classmethod
    def of(cls, fh: BinaryIO) -> DropBehind | None:
        """One for ``fh``, or None where there is nothing to advise (no ``posix_fadvise``, no descriptor)."""
        if not hasattr(os, "posix_fadvise"):
            return None
        try:
            return cls(fh.fileno())
        except (OSError, AttributeError, ValueError):  # io.UnsupportedOperation is an OSError and a ValueError
            return None

    def written(self, start: int, stop: int) -> None:
        """Bytes ``start`` to ``stop`` of the file were written (only those past ``KEEP_CACHED`` are let go; the
        thread starts with the first of them)."""
        start = max(start, KEEP_CACHED)
        if stop <= start or self.off:
            return
        if self.thread is None:
            try:
                self.fd = os.dup(self.file)
            except OSError:  # no descriptor to spare: the pages stay, as without this
                self.off = True
                return
            self.thread = threading.Thread(target=self._run, args=(self.fd,), name="ncu-roofline-drop-behind")
            self.thread.daemon = True
            self.thread.start()
        self.ranges.put((start, stop))

    def close(self) -> None:
        """Nothing more is written: the thread gives the kernel what it has and ends (the last pieces stay
        cached, written back by the kernel as any file's pages are)."""
        if self.thread is not None:
            self.ranges.put(None)

    def _run(self, fd: int) -> None:
        behind: list[tuple[int, int]] = []
        first: int | None = None
        try:
            while (written := self.ranges.get()) is not None:
                _let_go(fd, *written)  # write back now
                first = written[0] if first is None else first
                behind.append(written)
                if len(behind) > DROP_LAG:
                    # written back by now: drop, and again what was still being written back before (a range
                    # already let go costs the kernel a look at an empty stretch of the file's cache)
                    _let_go(fd, first, behind.pop(0)[1])
        except OSError:
            pass  # a file that takes no advice: its pages stay, as without this
        finally:
            os.close(fd)


def _let_go(fd: int, start: int, stop: int) -> None:
    """Bytes ``start`` to ``stop`` of the file: dirty pages written back (started), clean ones dropped."""
    os.posix_fadvise(fd, start, stop - start, os.POSIX_FADV_DONTNEED)


def prepare_folder(folder: Path, force: bool = False) -> Path:
    """An output folder that is new or empty; a non-empty one only with ``force`` or when it holds only a dataset
    ncu-roofline wrote (:func:`written_by_us`); its contents are then removed.

    Its parent must exist (a typo in a path should not create a tree of folders)."""
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder}: exists and is not a folder")
    if not folder.parent.is_dir():
        raise OutputError(f"{folder}: cannot create: the folder {folder.parent} does not exist")
    try:
        if folder.exists() and any(folder.iterdir()):
            if not force and not written_by_us(folder):
                raise OutputError(f"{folder}: folder is not empty; use --force to replace its contents")
            for child in folder.iterdir():
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child)
                else:
                    child.unlink()
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{folder}: cannot write: {exc.strerror or exc}") from exc
    return folder
