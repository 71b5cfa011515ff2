"""Find what a file is: which ncu export flavour, and where its CSV header starts.

Captures of ncu's stdout carry ``==PROF==``/``==WARNING==``/``==ERROR==`` lines and the program's own output
before (and around) the CSV; the header is the first line whose leading fields are ncu's identity columns.
Columns are never selected by position: the header is matched by the names it contains.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import mmap
import os
import re
import shlex
import shutil
import tempfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError, InputError, NcuError, ParseError
from ..files import written_by_us
from ..vocabulary import DETAILS_EXPORT, RAW_EXPORT

NCU_REP_MAGIC = b"NVR\x00"
GZIP_MAGIC = b"\x1f\x8b"
#: The marker of ncu's own message lines in a capture.
_MARKER = r"==(PROF|WARNING|ERROR|INFO|NOTE)=="
#: ... at a line's start.
PROF_LINE = re.compile("^" + _MARKER)
#: ... also glued to the end of a program line that did not end with a line break.
PROF_ANYWHERE = re.compile(_MARKER)
#: A line ncu printed: its marker first, or after a launcher's tag without spaces (``0: `` of ``srun --label``,
#: ``[1,0]<stderr>:`` of ``mpirun --tag-output``); a capture has one (a README quoting ncu's messages has none).
_NCU_LINE = re.compile(r"^\s*(?:\S*?[:>]\s*)?" + _MARKER)
#: The start of every ncu CSV header, found also after program output on the same line.
_HEADER_START = re.compile(r'"(ID","Process ID|Process ID","Process Name|Domain","Range)"')
#: The start of an ncu header whose fields are not quoted (ncu quotes every field): re-saved by a spreadsheet or
#: by pandas' ``to_csv``, which quote only the fields that need it; group 1: the unnamed first column of the row
#: numbers that ``to_csv`` writes unless told ``index=False``.
_UNQUOTED_HEADER = re.compile(r"^(,)?(?:ID,Process ID,|Process ID,Process Name,|Domain,Range)")
#: The start of an ncu header whose fields another separator parts (a spreadsheet's "save as CSV" in a locale
#: whose list separator is ";", or an export pasted as tab-separated text), quoted or not, as group 1 or 2 (the
#: skipped lines it is matched against have no byte order mark: ``locate`` drops it).
_OTHER_SEPARATOR = re.compile(r'^"?(?:ID"?([;\t|])"?Process ID|Process ID"?([;\t|])"?Process Name)"?(?:[;\t|]|$)')
#: ncu's errors that leave a capture without CSV, and what to do about each (https://developer.nvidia.com/ERR_NVGPUCTRPERM).
NCU_ERRORS: dict[str, str] = {
    "ERR_NVGPUCTRPERM": (
        "ncu could not read the GPU performance counters (ERR_NVGPUCTRPERM): profile as root (sudo ncu ...) or "
        "allow every user (Linux: 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' in /etc/modprobe.d, "
        "then reboot; Windows: NVIDIA Control Panel > Developer > Manage GPU Performance Counters), "
        "see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
    ),
}
_NO_KERNELS = "No kernels were profiled"
#: ncu's run log: a launch it profiled ("==PROF== Profiling "name" - 3: 0%....100% - 38 passes") and the report it
#: saved with ``-o`` (group ``path``), printed at the run's end instead of a page.
_PROFILING = re.compile(r'==PROF== Profiling ".*" - \d+(?: \(\d+/\d+\))?: ')
_SAVED_REPORT = re.compile(r"==PROF== Report: (?P<path>\S.*?)\s*$")
#: ncu's pages without ``--csv``: the header of a metric table (the raw page's, ``RAW_TABLE_HEADER``, two spaces in),
#: a table's dashed line (its runs of dashes mark the columns), a section's heading at any depth (a per-gpu summary
#: page puts them two spaces deeper than ``SECTION_LINE``).
METRIC_TABLE_HEADER = re.compile(r"^\s+Metric Name\s+Metric Unit\s+Metric Value\s*$")
DASHES = re.compile(r"^(?P<indent> +)(?P<runs>-+(?: -+)*)\s*$")
#: ... at any indent, the first column too (the session page; ncu 2020-2022's per-NVTX summary).
ANY_INDENT_DASHES = re.compile(r"^(?P<indent> *)(?P<runs>-+(?: -+)*)\s*$")
ANY_SECTION_LINE = re.compile(r"^ +Section: (?P<name>\S.*?)\s*$")
#: The header of a summary page's metric table (without ``--csv``).
SUMMARY_TABLE_HEADER = re.compile(r"^\s*Metric Name\s+Metric Unit\s+Minimum\s+Maximum\s+Average\s*$")
#: Lines only ncu's human-readable pages have: a section heading (details page, summaries), the metric table's
#: header of the raw page and of the summaries (the raw page's summary has no section heading), the attribute
#: tables' headers of the session page.
_TEXT_PAGE = re.compile(
    rf"^\s+Section: \S|{METRIC_TABLE_HEADER.pattern}|{SUMMARY_TABLE_HEADER.pattern}"
    r"|^(?:Launch|Session|Process|Device) Attribute\s+Value\b"
)
#: ncu's human-readable details page (``textpage``): ``[pid] process@host`` above a process's launches; the end
#: of a launch's line (context and stream, since ncu 2022 the device and compute capability); a section's heading.
PROCESS_LINE = re.compile(r"^\[(?P<pid>\d+)\] (?P<name>.*)@(?P<host>[^@\s]*)\s*$")
#: ncu's version where a line before the records names it (``NVIDIA (R) Nsight Compute Command Line Profiler ...
#: Version 2024.2.1.0``).
_NCU_VERSION = re.compile(r"Nsight Compute[^\d]*(\d{4}\.\d+(\.\d+)*)")
#: The per-NVTX summary page's first line (``--print-summary per-nvtx`` without ``--csv``).
NVTX_STATE = "== NVTX State =="
#: The header of an attribute table of the session page without ``--csv`` (``--page session``).
SESSION_TABLE_HEADER = re.compile(r"^(?:(?:Launch|Session) Attribute\s+Value|Device Attribute\s+Device \d+\b)")
LAUNCH_TAIL = re.compile(
    r", Context (?P<context>\d+), Stream (?P<stream>\d+)(?:, Device (?P<device>\d+))?(?:, CC (?P<cc>\d+\.\d+))?\s*$"
)
RAW_TABLE_HEADER = re.compile(r"^  Metric Name\s+Metric Unit\s+Metric Value\s*$")
SECTION_LINE = re.compile(r"^    Section: (?P<name>\S.*?)\s*$")


#: ncu's human-readable summary page (``textsummary``): a kernel group, ncu 2023+ (``name (grid)x(block)[, Device d,
#: CC x.y], Invocations n``) and 2020-2022 (``name, Block Size b, Grid Size g[, Device d], n invocations``); on a
#: per-gpu page, the device above its groups.
SUMMARY_GROUP = re.compile(
    r"^ +(?P<name>\S.*?) (?P<grid>\(\d+, \d+, \d+\))x(?P<block>\(\d+, \d+, \d+\))(?:, Device (?P<device>\d+))?"
    r"(?:, CC (?P<cc>\d+\.\d+))?, Invocations (?P<invocations>\d+)\s*$"
)
OLD_SUMMARY_GROUP = re.compile(
    r"^ +(?P<name>\S.*?), Block Size (?P<block>\d+), Grid Size (?P<grid>\d+)(?:, Device (?P<device>\d+))?, "
    r"(?P<invocations>\d+) invocations?\s*$"
)
DEVICE_LINE = re.compile(r"^  Device (?P<device>\d+)(?:, CC (?P<cc>\d+\.\d+))?\s*$")


def is_summary_text_page(lines: list[str]) -> bool:
    """Whether the non-empty lines of a file are ncu's human-readable summary page: a process line, a group (or
    a device) line right under it, and a section heading after those (or, on the raw page's summary, the header
    of a metric table right under the group)."""
    grouped = False
    for i, text in enumerate(lines):
        if PROCESS_LINE.match(text) and i + 1 < len(lines):
            after = lines[i + 1]
            grouped |= bool(SUMMARY_GROUP.match(after) or OLD_SUMMARY_GROUP.match(after) or DEVICE_LINE.match(after))
        elif grouped and (ANY_SECTION_LINE.match(text) or SUMMARY_TABLE_HEADER.match(text)):
            return True
    return False


def shifted_by(lines: Iterable[str]) -> int:
    """The indentation every line of a human-readable page was shifted by, 0 where none: a page pasted as a
    Markdown code block (four spaces before each line) or kept in a log that indents what it holds. ncu writes
    the process line (``[pid] name@host``) at the margin and the launch line under it two spaces in, the
    launch's section headings four: a process line ``k`` spaces in with the next line ``k + 2`` in says ``k``,
    as does (a page pasted from its launch line on) a heading ``k + 4`` in under a launch line ``k + 2`` in."""
    process: int | None = None  # the process line just above, its indentation
    launch: int | None = None  # the last launch line, its indentation
    for text in lines:
        stripped = text.lstrip(" ")
        if not stripped:
            continue
        indent = len(text) - len(stripped)
        if process is not None:
            return process if process > 0 and indent == process + 2 else 0
        if PROCESS_LINE.match(stripped):
            process = indent
        elif not stripped.startswith("==") and LAUNCH_TAIL.search(stripped):
            launch = indent
        elif stripped.startswith("Section: "):
            return launch - 2 if launch is not None and launch > 2 and indent == launch + 2 else 0
    return 0


def unshifted(text: str, by: int) -> str:
    """``text`` without the ``by`` spaces a shifted page put before it (``shifted_by``); a line with fewer (an empty
    one, a program's output) loses the spaces it has."""
    return text[by:] if text[:by].isspace() or not by else text.lstrip(" ")


def _raise_reindented(path: Path, preamble: Sequence[Skipped]) -> None:
    """FormatError, naming the launch line, for ncu's human-readable page whose lines lost the indentation ncu
    gives them (launch line two spaces in, section headings four: a page pasted flat, every line at one margin),
    which says which line is what; nothing where the page has no launch line and section heading."""
    launch = next(
        (s for s in preamble if not s.text.lstrip().startswith("==") and LAUNCH_TAIL.search(s.text.strip())), None
    )
    section = next((s for s in preamble if s.text.lstrip().startswith("Section: ")), None)
    if section is None:
        return
    if launch is None:
        raise FormatError(
            path,
            "a section of ncu's human-readable page with no launch line above it (an excerpt?): ncu prints each "
            "launch's line ('name (grid)x(block), Context c, Stream s') before its sections; export the whole page "
            f"('{DETAILS_EXPORT}')",
            line=section.line,
        )
    raise FormatError(
        path,
        "ncu's human-readable page with its indentation changed (pasted flat?): ncu writes a launch's line two "
        "spaces in and its section headings four, and this page reads by them; export the page again "
        f"('{DETAILS_EXPORT}')",
        line=launch.line,
    )


def launch_tail(text: str) -> re.Match[str] | None:
    """The end of a launch's line of the human-readable page (``LAUNCH_TAIL``: context, stream, device, CC), where
    ``text`` is one: ``name ..., Context c, Stream s[, Device d, CC x.y]``, two spaces in under its process line
    (none to two where a log was pasted without it); else None."""
    if len(text) - len(text.lstrip(" ")) > 2 or text.startswith("=="):
        return None
    return LAUNCH_TAIL.search(text)


def skip_reason(text: str) -> str:
    """Why a line around an export's records is skipped: an ncu message (``==PROF==`` and the like) or the
    program's own output."""
    return "ncu message" if PROF_ANYWHERE.search(text) else "program output"


#: ncu's messages that a capture may end with after a complete page (its notes; its errors are not among them).
_NCU_NOTE = re.compile(r"^==(PROF|WARNING|INFO|NOTE)==")
#: Bytes of a file's end read by :func:`trailing_line` (an error message is one line).
TAIL_BYTES = 1 << 14


def trailing_line(path: Path) -> str | None:
    """The last non-blank line of a CSV page where it follows the page's records and may be ncu's error: not a
    quoted record, not a text body item (ncu indents those) and not one of ncu's notes (``==PROF==``,
    ``==WARNING==``); else None. ncu prints its error there when it stops part-way through an export (2024.2's
    ``stold`` on ``--print-details all``; ``==ERROR== ...``), and nothing else comes after the records: the
    program's output comes before them, as ncu prints the page when the program has ended."""
    with path.open("rb") as fh:
        start = max(0, fh.seek(0, os.SEEK_END) - TAIL_BYTES)
        fh.seek(start)
        tail = fh.read()
    if start:  # from the first whole line on (a raw page's record is longer than the tail)
        tail = tail[tail.find(b"\n") + 1 :] if b"\n" in tail else b""
    lines = [line for line in tail.decode("utf-8", errors="replace").splitlines() if line.strip()]
    if not lines:
        return None
    last = lines[-1]
    if last.startswith(('"', " ", "\t")) or _NCU_NOTE.match(last):
        return None
    return last.strip()


def is_text_page(lines: list[str]) -> bool:
    """Whether the non-empty lines of a file are ncu's human-readable details or raw page: a launch line (with or
    without the process line above it) and a section heading or the raw page's table header under it."""
    launched = False
    for text in lines:
        if launch_tail(text) is not None:
            launched = True
        elif launched and (SECTION_LINE.match(text) or RAW_TABLE_HEADER.match(text)):
            return True
    return False


#: How many bytes of a file we look at to decide it is text.
SNIFF_BYTES = 1 << 16


#: The header of ncu's source page, quoted as ncu writes it or saved again without quotes: SASS (``Address,Source``),
#: PTX or CUDA (``Line No,Source``; CUDA and SASS side by side after ``File Path`` and ``Function Name`` lines).
_SOURCE_HEADER = re.compile(r'^(?:"Address","Source"|Address,Source|"Line No","Source"|Line No,Source)(?:,|$)')
#: What ncu prints instead of a source page it cannot show (no PTX in the report, no line info for CUDA).
_SOURCE_WARNING = re.compile(r"==WARNING== (?:PTX source is not available|No lineinfo available to show CUDA)")
#: ... and its header without ``--csv``, under a table's dashed line (its columns' names wrapped in their widths:
#: ``Instru`` / ``ctions``).
_SOURCE_TEXT_HEADER = re.compile(r"^Address +Source(?: +\S+)*\s*$")
_TABLE_RULE = re.compile(r"^-+(?: -+)+\s*$")
#: What a source page is told.
_SOURCE_PAGE = (
    "this is ncu's source page (--page source: instructions, no metrics per launch): export the details or raw "
    f"page ({RAW_EXPORT})"
)


class UnquotedError(FormatError):
    """An ncu header (at ``line``) whose fields are not quoted as ncu quotes them: the caller reads a copy with
    every record quoted as ncu writes it (:func:`requoted`); ``row_numbers``: the header and every row begin with a
    column of row numbers (pandas' index), which the copy leaves out."""

    def __init__(
        self,
        path: str | Path | None,
        message: str = "an ncu header whose fields are not quoted as ncu quotes them",
        *,
        line: int | None = None,
        column: str | None = None,
        row_numbers: bool = False,
    ) -> None:  # InputError's own arguments first, so that it is made again as every InputError is (io._named)
        super().__init__(path, message, line=line, column=column)
        self.row_numbers = row_numbers


@dataclass(frozen=True)
class Skipped:
    """A line that was not part of the export's records, with why it was skipped."""

    line: int | None
    text: str
    reason: str


@dataclass(frozen=True)
class Located:
    """Where the records of an export start."""

    path: Path
    flavour: str
    header: list[str] = field(default_factory=list)
    header_line: int = 0  # 1-based line number of the header
    data_offset: int = 0  # byte offset of the first line after the header
    preamble: tuple[Skipped, ...] = ()
    ncu_version: str | None = None


def check_path(path: Path) -> None:
    """Raise InputError for a path that does not exist, is a directory, or cannot be opened."""
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a directory, expected an ncu export file (.csv, .txt or .ncu-rep)")
    try:
        with path.open("rb"):
            pass
    except OSError as exc:
        raise InputError(path, f"cannot open: {exc.strerror or exc}") from exc


def is_gzip(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def utf16_encoding(path: Path) -> str | None:
    """ "utf-16" for a file that starts with a UTF-16 byte-order mark, or that has a zero byte after each ASCII
    byte of its first line (UTF-16 LE without one); None otherwise."""
    with path.open("rb") as fh:
        head = fh.read(512)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    if len(head) >= 8 and head[1::2][:64].count(0) == len(head[1::2][:64]) and head[0::2][:64].count(0) == 0:
        return "utf-16-le"
    return None


@contextlib.contextmanager
def decompressed(path: Path) -> Iterator[Path]:
    """A gzip-compressed export, decompressed into a temporary file that is removed afterwards.

    The file keeps the original name without ``.gz`` (an ``.ncu-rep`` must be a real file for ncu_report)."""
    name = path.name[:-3] if path.name.endswith(".gz") else path.name + ".out"
    with tempfile.TemporaryDirectory(prefix="ncu-roofline-") as tmp:
        out = Path(tmp) / name
        try:
            with gzip.open(path, "rb") as src, out.open("wb") as dst:
                shutil.copyfileobj(src, dst, length=1 << 20)
        except (OSError, EOFError, zlib.error) as exc:
            raise FormatError(path, f"damaged gzip data ({exc})") from exc
        yield out


@contextlib.contextmanager
def requoted(path: Path, header_line: int, row_numbers: bool = False) -> Iterator[Path]:
    """A copy of an export whose header (at ``header_line``) and records are not quoted as ncu quotes them (saved
    again by a spreadsheet, or by pandas' ``to_csv``, which quote a field only where it needs it), every record
    written as ncu writes it: each field quoted, its quotes doubled, but the empty last field of a row shorter
    than the header (ncu's metric rows end so), which stays bare. ``row_numbers``: each record's first field is
    pandas' row number (``to_csv`` without ``index=False``), left out; one that is not a whole number is a
    ParseError. The lines before the header are copied as they are, and each record keeps its lines, so that the
    copy's line numbers are the file's. Removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="ncu-roofline-") as tmp:
        out = Path(tmp) / path.name
        with path.open("rb") as src, out.open("wb") as dst:
            for _ in range(header_line - 1):
                dst.write(src.readline())
            text = io.TextIOWrapper(
                src, encoding="utf-8-sig" if header_line == 1 else "utf-8", errors="surrogateescape", newline=""
            )
            writer = io.TextIOWrapper(dst, encoding="utf-8", errors="surrogateescape", newline="")
            reader = csv.reader(text)
            width = None
            try:
                for record in reader:
                    if not record or (len(record) == 1 and not record[0].strip()):  # a blank line (spaces only too)
                        writer.write("\n")
                        continue
                    if row_numbers and width is not None and not (record[0].isascii() and record[0].isdigit()):
                        line = header_line + reader.line_num - 1
                        raise ParseError(path, f"a row number {record[0]!r} before the ncu columns", line=line)
                    row = record[1:] if row_numbers else record
                    if width is None:
                        width = len(row)
                    quoted = ['"' + f.replace('"', '""') + '"' for f in row]
                    if len(row) < width and row[-1] == "":
                        quoted[-1] = ""
                    writer.write(",".join(quoted) + "\n")
            except csv.Error as exc:  # a NUL byte, a field longer than the csv module takes (128 KiB)
                line = header_line + reader.line_num - 1
                raise ParseError(path, f"malformed CSV ({exc})", line=line) from None
            writer.flush()
            writer.detach()
            text.detach()
        yield out


def _lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset of the line, line bytes without newline), streamed."""
    offset = 0
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            yield number, offset, raw.rstrip(b"\r\n")
            offset += len(raw)


def _decode(raw: bytes) -> tuple[str, bool]:
    """A line as text, and whether it was UTF-8 (program output may be in any code page, e.g. CP949 on a
    Korean Windows console: its bytes are replaced, the line is skipped as program output anyway)."""
    try:
        return raw.decode("utf-8"), True
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), False


def fields_of(text: str) -> list[str] | None:
    """The CSV fields of one line, or None if it is not a well-formed CSV line."""
    try:
        return next(csv.reader([text], strict=True), [])
    except csv.Error:
        return None


def classify_header(fields: list[str]) -> str | None:
    """The flavour a header line announces, or None if it is not an ncu header."""
    if len(fields) >= 2 and fields[0] == "ID" and fields[1] == "Process ID":
        if "Metric Name" in fields and "Metric Value" in fields:
            return "details"
        if "Kernel Name" in fields:
            return "raw"
        return None
    if {"Invocations", "Metric Name", "Average"} <= set(fields) and fields[0] != "ID":
        # per kernel ("Process ID", ...) or per NVTX range ("Domain", "Range:...", ...); with "Section Name" and
        # the sections' labels, or without it and every metric by name (``--page raw --print-summary ...``)
        return "summary"
    if (
        len(fields) == 2
        and fields[0].endswith("Attribute")
        and (fields[1] == "Value" or fields[1].startswith("Device"))
    ):
        return "session"
    return None


#: The words of every line the line-by-line sniff (``locate``) stops at: an ncu CSV header's (quoted or not, glued
#: to program output or not), the source page's, a session page's attribute block's. A file that has none of them
#: is sniffed to its end.
_STOP_WORDS = (
    b"Process ID", b'Domain","Range', b"Domain,Range", b"Address", b"Line No", b"Invocations", b"Attribute",
)  # fmt: skip


def _text_page_at_once(path: Path, head: bytes) -> Located | None:
    """A page ncu printed without ``--csv`` (``textpage``), told as ``locate``'s line-by-line sniff tells it but
    without a Python step per line: by its first ``SNIFF_BYTES`` (a launch line, a section heading under it) and
    a search of the whole file for ``_STOP_WORDS``; None where the sniff has to go line by line (a page that has
    them, any other file)."""
    lines = head.split(b"\n")
    if len(head) == SNIFF_BYTES:
        lines.pop()  # cut short: the rest of that line is in the file
    texts = [raw.rstrip(b"\r").decode("utf-8", errors="replace") for raw in lines]
    if texts:
        texts[0] = texts[0].removeprefix("\ufeff")
    texts = [t for t in texts if t.strip()]
    if not any(_TEXT_PAGE.match(t) or t.strip() == NVTX_STATE for t in texts) or not is_text_page(texts):
        return None
    version: str | None = None
    try:
        with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as whole:
            if any(whole.find(word) >= 0 for word in _STOP_WORDS):
                return None
            at = whole.find(b"Nsight Compute")
            while at >= 0:  # the version the last line that names it gives, as the sniff reads it
                start, end = whole.rfind(b"\n", 0, at) + 1, whole.find(b"\n", at)
                end = len(whole) if end < 0 else end
                line = whole[start:end].decode("utf-8", errors="replace").strip()
                m = None if line.startswith('"') else _NCU_VERSION.search(line)
                version = m.group(1) if m else version
                at = whole.find(b"Nsight Compute", end)
    except (OSError, ValueError):  # a file that cannot be mapped: sniffed line by line
        return None
    return Located(path, "text", ncu_version=version)


#: Archives and compressions an export may come in besides gzip (which is read): their first bytes.
_ARCHIVES = tuple(
    (re.compile(magic, re.DOTALL), what)
    for magic, what in (
        (rb"PK\x03\x04", "a zip archive"),
        (rb"\xfd7zXZ\x00", "xz-compressed data"),
        (rb"BZh[1-9]1AY&SY", "bzip2-compressed data"),  # (the block's magic too: "BZh" could begin a text)
        (rb"\(\xb5/\xfd", "zstd-compressed data"),
        (rb"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    )
)
_ARCHIVE_ADVICE = "extract the export and read it (or compress it with gzip, which is read as it is)"


def locate(path: Path) -> Located:
    """Sniff the flavour of ``path`` and find its header line."""
    check_path(path)
    with path.open("rb") as fh:
        head = fh.read(SNIFF_BYTES)
    if head.startswith(NCU_REP_MAGIC):
        return Located(path, "ncu-rep")
    if not head.strip():
        raise FormatError(path, "empty file (expected an ncu CSV export or .ncu-rep report)")
    for magic, archive in _ARCHIVES:
        if magic.match(head):
            raise FormatError(path, f"{archive}, not an ncu export: {_ARCHIVE_ADVICE}")
    if b"\x00" in head:
        line = head.count(b"\n", 0, head.index(b"\x00")) + 1  # (its first NUL byte's)
        raise FormatError(path, "binary data, not an ncu CSV export (and not an .ncu-rep report)", line=line)
    text_page = _text_page_at_once(path, head)
    if text_page is not None:
        return text_page
    preamble: list[Skipped] = []
    version: str | None = None
    previous_title: tuple[int, int] | None = None
    under_rule = False  # the line before was a table's dashed line in the first column
    not_utf8 = 0
    for number, offset, raw in _lines(path):
        text, utf8 = _decode(raw)
        not_utf8 += not utf8
        if number == 1 and text.startswith("\ufeff"):
            text = text[1:]
        stripped = text.strip()
        if not stripped:
            continue
        glued = _HEADER_START.search(stripped)
        if glued and glued.start() > 0 and not stripped.startswith('"'):
            # The header after program output that did not end with a line break.
            preamble.append(Skipped(number, stripped[: glued.start()], "program output"))
            stripped = stripped[glued.start() :]
        unquoted = _UNQUOTED_HEADER.match(stripped)
        if unquoted:
            raise UnquotedError(path, line=number, row_numbers=unquoted.group(1) is not None)
        if _SOURCE_HEADER.match(stripped) or (under_rule and _SOURCE_TEXT_HEADER.match(text)):
            raise FormatError(path, _SOURCE_PAGE, line=number)
        under_rule = bool(_TABLE_RULE.match(text))
        if stripped.startswith('"'):
            fields = fields_of(stripped) or []
            flavour = classify_header(fields)
            if flavour == "session":
                # A session page starts with a bare title line above its first attribute block.
                start = previous_title if previous_title is not None else (number, offset)
                if previous_title is not None:
                    preamble.pop()  # the block's title line belongs to the page
                return Located(path, "session", fields, start[0], start[1], tuple(preamble), version)
            if flavour is not None:
                return Located(
                    path,
                    flavour,
                    fields,
                    number,
                    offset + len(raw) + _newline_len(path, offset + len(raw)),
                    tuple(preamble),
                    version,
                )
            preamble.append(Skipped(number, text, "before the ncu header"))
            previous_title = None
            continue
        preamble.append(Skipped(number, text, skip_reason(stripped)))
        previous_title = (number, offset)
        m = _NCU_VERSION.search(stripped) if "Nsight Compute" in stripped else None
        if m:
            version = m.group(1)
    if any(_TEXT_PAGE.match(s.text) or s.text.strip() == NVTX_STATE for s in preamble):
        texts = [s.text for s in preamble]
        by = shifted_by(texts)  # a page pasted as a Markdown code block: read as ncu wrote it
        texts = [unshifted(t, by) for t in texts] if by else texts
        if is_text_page(texts):
            return Located(path, "text", ncu_version=version)
        if is_summary_text_page(texts) or NVTX_STATE in (t.strip() for t in texts):  # (textsummary reads both)
            return Located(path, "text-summary", ncu_version=version)
        if any(SESSION_TABLE_HEADER.match(t) for t in texts):
            return Located(path, "text-session", ncu_version=version)
        _raise_reindented(path, preamble)
        raise FormatError(
            path,
            f"this is ncu's human-readable page, not a CSV export: export it with '{RAW_EXPORT}' (or run ncu "
            "with --csv)",
        )
    _raise_ncu_error(path, preamble)
    _raise_usage_error(path, preamble)
    _raise_reindented(path, preamble)
    if any(_SOURCE_WARNING.match(s.text.strip()) for s in preamble):
        raise FormatError(path, f"{_SOURCE_PAGE}; ncu printed no source for it")
    _raise_run_log(path, preamble)
    _raise_other_separator(path, preamble)
    if preamble and all(s.reason == "ncu message" for s in preamble):
        raise FormatError(path, "only ncu messages, no CSV records (did ncu profile any kernel?)")
    if written_by_us(path):  # (its HTML, JSON or Markdown, by the marks a re-run looks for)
        raise FormatError(path, "a report ncu-roofline wrote, not an ncu export: give the export it was made from")
    encoding = f" ({not_utf8} line(s) are not UTF-8 text)" if not_utf8 else ""
    raise FormatError(
        path,
        'no ncu CSV header found: expected a line starting with "ID","Process ID" (details or raw page), '
        '"Process ID","Process Name" or "Domain","Range..." with "Invocations" (summary page) or an attribute '
        f"block (session page){encoding}",
    )


def _raise_other_separator(path: Path, lines: list[Skipped]) -> None:
    """A header of ncu's columns parted by another separator than ncu's ",": raise FormatError naming its line and
    the separator (the file was re-saved by a spreadsheet or converted; ncu itself always writes ",")."""
    for s in lines:
        m = _OTHER_SEPARATOR.match(s.text)
        if m:
            sep = m.group(1) or m.group(2)
            raise FormatError(
                path,
                f"an ncu header with its fields separated by {sep!r}, not ',' (re-saved by a spreadsheet or "
                f"converted?): read ncu's own CSV export ('{RAW_EXPORT}')",
                line=s.line,
            )


def _raise_ncu_error(path: Path, lines: list[Skipped]) -> None:
    """A capture without CSV that carries ncu's own error (or its warning that no kernel was profiled): raise
    NcuError saying so, in one line, with what to do."""
    if not any(_NCU_LINE.match(s.text) for s in lines):
        return  # no line ncu printed (a README that quotes ncu's messages): not a capture
    errors = [s for s in lines if "==ERROR==" in s.text]  # (glued after program output, too)
    for s in errors:
        for code, message in NCU_ERRORS.items():
            if code in s.text:
                raise NcuError(path, message, line=s.line)
    if errors:
        first = errors[0]
        said = first.text[first.text.index("==ERROR==") + len("==ERROR==") :].strip()
        raise NcuError(path, f"ncu reported an error and wrote no CSV: {said}", line=first.line)
    for s in lines:
        if _NO_KERNELS in s.text and PROF_ANYWHERE.search(s.text):
            raise NcuError(
                path,
                f"ncu profiled no kernel ('{_NO_KERNELS}') and wrote no CSV: check that the program launches CUDA "
                "kernels, and the filters (--kernel-name, --kernel-id, --launch-skip, --launch-count, "
                "--nvtx-include) and --target-processes of the ncu command line",
                line=s.line,
            )


#: ncu's last words on a command line it refuses (2022.3 prints them on a line of their own, after the reason
#: without a ``==ERROR==`` mark; 2024.2 after ``==ERROR== <reason>.`` on the same line, read as ncu's error).
_USAGE_END = "Use --help for further details."


def _raise_usage_error(path: Path, lines: list[Skipped]) -> None:
    """A capture of ncu refusing its command line (``ncu --csv --print-details all ... > page.csv 2>&1`` with an
    ncu that lacks the option): the reason is the line before ncu's "Use --help for further details."; raise
    NcuError with it. Only where the capture holds those two lines and nothing else (blank lines aside)."""
    texts = [s for s in lines if s.text.strip()]
    if len(texts) == 2 and texts[1].text.strip() == _USAGE_END:
        reason = texts[0].text.strip()
        raise NcuError(
            path, f"ncu refused its command line and wrote no CSV: {reason} (an option of another ncu version?)",
            line=texts[0].line,
        )  # fmt: skip


def _raise_run_log(path: Path, lines: list[Skipped]) -> None:
    """ncu's log of a profiling run that printed no page (the results went to the report ``-o`` saved): raise
    FormatError naming that report, at the line that names it, and how to read it."""
    n = sum(1 for s in lines if _PROFILING.search(s.text))
    profiled = f"{n} launch profiled" if n == 1 else f"{n} launches profiled"
    for s in reversed(lines):
        m = _SAVED_REPORT.search(s.text)
        if m:
            report = m.group("path")
            quoted = shlex.quote(report)
            raise FormatError(
                path,
                f"ncu's log of a run ({profiled}) that saved its results to {report} and "
                f"printed no page: read that report (ncu-roofline {quoted}) or a page exported from it "
                f"('{DETAILS_EXPORT.replace('REPORT.ncu-rep', quoted)}')",
                line=s.line,
            )
    if n:
        raise FormatError(
            path,
            f"ncu's log of a run ({profiled}) with no page of their results: read the report "
            "the run saved (-o) or the page ncu printed at the run's end (with --csv)",
        )


def _newline_len(path: Path, offset: int) -> int:
    with path.open("rb") as fh:
        fh.seek(offset)
        nl = fh.read(2)
    if nl.startswith(b"\r\n"):
        return 2
    return 1 if nl[:1] in (b"\n", b"\r") else 0


def line_of(path: Path, needle: str, start: int = 0) -> int | None:
    """1-based line number of the first line at or after byte ``start`` that contains ``needle``."""
    data = path.read_bytes()
    pos = data.find(needle.encode("utf-8"), start)
    if pos < 0:
        return None
    return data.count(b"\n", 0, pos) + 1


def lines_starting(
    path: Path,
    prefix: str,
    start: int = 0,
    limit: int = 2,
    containing: str | tuple[str, ...] = "",
    field: tuple[int, str] | None = None,
) -> list[int]:
    """The first ``limit`` 1-based line numbers, at or after byte ``start`` (a line's first byte), of lines that
    begin with ``prefix`` (a launch's key, ``"0","663",``), hold ``containing`` (each of them) and, where
    ``field`` is given as (index, text), have that text as their CSV field of that index."""
    data = path.read_bytes()
    b = prefix.encode("utf-8")
    inside = [t.encode("utf-8") for t in ((containing,) if isinstance(containing, str) else containing)]
    found: list[int] = []
    line, last = 1, 0
    pos = start if data.startswith(b, start) else data.find(b"\n" + b, max(start - 1, 0))
    while pos >= 0 and len(found) < limit:
        at = pos if data.startswith(b, pos) and (pos == 0 or data[pos - 1 : pos] == b"\n") else pos + 1
        end = data.find(b"\n", at)
        stop = len(data) if end < 0 else end
        if all(data.find(t, at, stop) >= 0 for t in inside) and (field is None or _field(data[at:stop], field)):
            line += data.count(b"\n", last, at)
            last = at
            found.append(line)
        pos = data.find(b"\n" + b, at)
    return found


def _field(line: bytes, field: tuple[int, str]) -> bool:
    """Whether CSV ``line`` has ``field[1]`` as its field of index ``field[0]``."""
    fields = next(csv.reader([line.decode("utf-8", errors="replace").rstrip("\r")]), [])
    return len(fields) > field[0] and fields[field[0]] == field[1]


def lines_of(path: Path, needles: list[str], start: int = 0) -> dict[str, list[int]]:
    """All 1-based line numbers, at or after byte ``start``, of lines whose whole text is one of ``needles``."""
    data = path.read_bytes()
    out: dict[str, list[int]] = {}
    for needle in needles:
        b = needle.encode("utf-8")
        found: list[int] = []
        line, last = 1, 0
        pos = data.find(b, start)
        while pos >= 0:
            end = pos + len(b)
            whole = (pos == 0 or data[pos - 1 : pos] in (b"\n", b"\r")) and (
                end == len(data) or data[end : end + 1] in (b"\n", b"\r")
            )
            if whole:
                line += data.count(b"\n", last, pos)
                last = pos
                found.append(line)
            pos = data.find(b, pos + 1)
        out[needle] = found
    return out
