"""ncu's human-readable summary page (``--print-summary per-kernel`` or ``per-gpu`` without ``--csv``), read as the
summary CSV page it prints.

One group per kernel (and launch shape), its metrics' minimum, maximum and average over its invocations::

    [2601] microbench@127.0.0.1
      atomic_hot(unsigned int *, int) (528, 1, 1)x(256, 1, 1), Device 0, CC 9.0, Invocations 1
        Section: Compute Workload Analysis
        -------------------- ----------- ------- ------- -------
        Metric Name          Metric Unit Minimum Maximum Average
        -------------------- ----------- ------- ------- -------
        Executed Ipc Active   inst/cycle    0.01    0.01    0.01

``per-gpu`` puts the device on a line of its own above its groups (``  Device 0, CC 9.0``). ncu 2020-2022 write a
group as ``name, Block Size 256, Grid Size 53760, Device 5, 4 invocations`` and its table's header above the dashed
line, without a closing one. As for the details page (``textpage``), the CSV copy keeps each row on the page's
own line. The ``per-nvtx`` page (groups under an NVTX state) is refused with the command that exports it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError
from ..vocabulary import SUMMARY_EXPORT
from .sniff import (
    ANY_SECTION_LINE,
    DASHES,
    DEVICE_LINE,
    OLD_SUMMARY_GROUP,
    PROCESS_LINE,
    PROF_ANYWHERE,
    SUMMARY_GROUP,
    Skipped,
    per_nvtx_page,
    skip_reason,
)
from .textpage import cells_of, csv_on_lines, quoted, spans_of

_HEADER = re.compile(r"^\s+Metric Name\s+Metric Unit\s+Minimum\s+Maximum\s+Average\s*$")
_NVTX_STATE = re.compile(r"^== NVTX State ==\s*$")


@dataclass
class Group:
    """A kernel group of the page: the summary CSV page's identity columns."""

    pid: str
    process: str
    host: str
    name: str
    block: str
    grid: str
    device: str | None
    cc: str | None
    invocations: str
    old: bool


@dataclass
class SummaryPage:
    groups: list[Group] = field(default_factory=list)
    rows: list[tuple[int, int, str, list[str]]] = field(default_factory=list)  # line, group, section, 5 cells
    skipped: list[Skipped] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)


def _group(text: str, process: tuple[str, str, str] | None, device: tuple[str, str | None] | None) -> Group | None:
    """The group a line names (under ``process``, and ``device`` on a per-gpu page), or None."""
    found = SUMMARY_GROUP.match(text) or OLD_SUMMARY_GROUP.match(text)
    if found is None or process is None:
        return None
    names = found.groupdict()
    on = device or (None, None)
    return Group(*process, names["name"], names["block"], names["grid"], names["device"] or on[0],
                 names.get("cc") or on[1], names["invocations"], found.re is OLD_SUMMARY_GROUP)  # fmt: skip


def _why(text: str, in_groups: bool) -> str:
    """Why a line of the page is skipped: an ncu message, the program's output before the groups, or (among
    them) not understood."""
    return "not understood" if in_groups and not PROF_ANYWHERE.search(text) else skip_reason(text)


def parse(path: Path) -> SummaryPage:
    """Read a human-readable summary page line by line."""
    page = SummaryPage()
    process: tuple[str, str, str] | None = None
    device: tuple[str, str | None] | None = None
    section = ""
    spans: list[tuple[int, int]] | None = None
    header = rows = note = False
    odd: set[str] = set()
    with path.open("r", encoding="utf-8-sig", errors="replace", newline=None) as fh:
        for number, raw in enumerate(fh, start=1):
            text = raw.rstrip("\r\n")
            if not text.strip():
                rows = note = False
                continue
            if note or text.lstrip().startswith("Note:"):  # ncu's note under the groups, to its blank line
                note = True
                page.skipped.append(Skipped(number, text.strip(), "ncu message"))
                continue
            if _NVTX_STATE.match(text):
                raise per_nvtx_page(path, number)
            found = PROCESS_LINE.match(text)
            if found is not None:
                process, device, rows = (found["pid"], found["name"], found["host"]), None, False
                continue
            found = DEVICE_LINE.match(text)
            if found is not None and process is not None:
                device, rows = (found["device"], found["cc"]), False
                continue
            group = _group(text, process, device)
            if group is not None:
                page.groups.append(group)
                section, rows = "", False
                continue
            found = ANY_SECTION_LINE.match(text)
            if found is not None and page.groups:
                section, spans, header, rows = found["name"], None, False, False
                continue
            if page.groups and _HEADER.match(text):
                header = True
                continue
            dashes = DASHES.match(text)
            if dashes is not None and page.groups:
                if rows:  # the table's closing line
                    rows = False
                    continue
                spans = spans_of(dashes)
                rows, header = header and len(spans) == 5, False
                if len(spans) != 5:
                    odd.add(section)
                continue
            if rows and spans is not None:
                cells = cells_of(text, spans)
                if cells[0]:
                    page.rows.append((number, len(page.groups) - 1, section, cells))
                    continue
            page.skipped.append(Skipped(number, text.strip(), _why(text, bool(page.groups))))
    if odd:
        page.not_understood.append("tables of other shapes in " + ", ".join(repr(s) for s in sorted(odd)))
    if not page.rows:
        raise FormatError(path, f"ncu's human-readable summary page without a metric table: export it with "
                                f"'{SUMMARY_EXPORT}'")  # fmt: skip
    return page


@contextlib.contextmanager
def as_summary_csv(path: Path) -> Iterator[tuple[Path, SummaryPage]]:
    """The page as a summary CSV page in a temporary file (removed afterwards), each row on the page's line."""
    page = parse(path)
    old = any(g.old for g in page.groups)
    cc = all(g.cc is not None for g in page.groups)
    device = all(g.device is not None for g in page.groups)
    identity = ["Process ID", "Process Name", "Host Name", "Kernel Name", "Block Size", "Grid Size"]
    identity += (["Device Id"] if old else ["Device"]) if device else []
    identity += ["CC"] if cc and not old else []
    header = [*identity, "Invocations", "Section Name", "Metric Name", "Metric Unit", "Minimum", "Maximum", "Average"]
    ident = []
    for g in page.groups:
        cells = [g.pid, g.process, g.host, g.name, g.block, g.grid]
        cells += [g.device or ""] if device else []
        cells += [g.cc or ""] if cc and not old else []
        ident.append([*cells, g.invocations])
    records = ((line, quoted([*ident[index], section, *cells])) for line, index, section, cells in page.rows)
    with csv_on_lines(path.name + ".csv", header, records) as out:
        yield out, page
