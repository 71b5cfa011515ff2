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
own line.

``per-nvtx`` groups by NVTX push/pop stack, under ``== NVTX State ==`` and without a process line: a domain line
(``<default domain>``), then a stack's ranges (``  <GENE>``, each with the attributes it was pushed with,
``RGB: 0xff``, ``ASCII: GENE``) above the groups launched under it; the next ranges printed are the next groups'
whole stack. ncu 2020-2022 print its groups, sections and tables without indent. The CSV copy gives each group its
``Domain`` and ``Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg`` cells as the CSV page writes them (an
attribute of a kind other than a colour or a message is taken for the payload).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError
from ..vocabulary import NVTX_SUMMARY_EXPORT, SUMMARY_EXPORT
from .sniff import (
    ANY_INDENT_DASHES,
    ANY_SECTION_LINE,
    DASHES,
    DEVICE_LINE,
    NVTX_STATE,
    OLD_SUMMARY_GROUP,
    PROCESS_LINE,
    PROF_ANYWHERE,
    SUMMARY_GROUP,
    SUMMARY_TABLE_HEADER,
    Skipped,
    skip_reason,
)
from .textpage import cells_of, csv_on_lines, nvtx_domain, page_lines, quoted, spans_of

#: On the per-NVTX page: a domain (first column), a range of the stack and an attribute it was pushed with; groups,
#: sections and tables with any indent (ncu 2020-2022 print them without).
_NVTX_DOMAIN = re.compile(r"^<(?P<domain>[^<>]*)>\s*$")
_NVTX_RANGE = re.compile(r"^ +<(?P<name>.*)>\s*$")
_NVTX_ATTRIBUTE = re.compile(r"^ +(?P<kind>[A-Za-z][A-Za-z0-9_]*): (?P<value>.*?)\s*$")
_NVTX_GROUPS = tuple(re.compile(p.pattern.replace("^ +", "^ *", 1)) for p in (SUMMARY_GROUP, OLD_SUMMARY_GROUP))
_NVTX_SECTION = re.compile(ANY_SECTION_LINE.pattern.replace("^ +", "^ *", 1))
#: The per-NVTX CSV page's column of the stack, and which attribute kinds are a range's colour and message (any
#: other: its payload).
NVTX_RANGES = "Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"
_COLOUR_KINDS = frozenset({"RGB", "ARGB"})
_MESSAGE_KINDS = frozenset({"ASCII", "UNICODE", "REGISTERED"})


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
    nvtx: tuple[str, str] | None = None  # per-NVTX page: the Domain and Range cells of the CSV page


@dataclass
class Range:
    """A range of an NVTX stack on the per-NVTX page, with what it was pushed with (``none`` where not printed)."""

    name: str
    payload: tuple[str, str] = ("none", "none")
    colour: tuple[str, str] = ("none", "none")
    message: tuple[str, str] = ("none", "none")

    def cell(self) -> str:
        """``"GENE:none:none:RGB:0xff:ASCII:GENE"``: the range as an item of the CSV page's range cell."""
        return '"' + ":".join((self.name, *self.payload, *self.colour, *self.message)) + '"'


def _ranges_cell(stack: list[Range]) -> str:
    """The CSV page's range cell of a stack: each range quoted, two spaces between, one around."""
    return " " + "  ".join(r.cell() for r in stack) + " "


@dataclass
class SummaryPage:
    groups: list[Group] = field(default_factory=list)
    rows: list[tuple[int, int, str, list[str]]] = field(default_factory=list)  # line, group, section, 5 cells
    skipped: list[Skipped] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)
    nvtx: bool = False  # the per-NVTX page


def _group(
    text: str, process: tuple[str, str, str] | None, device: tuple[str, str | None] | None, per_nvtx: bool = False
) -> Group | None:
    """The group a line names (under ``process``, and ``device`` on a per-gpu page; on the per-NVTX page, under no
    process, at any indent), or None."""
    if per_nvtx:
        found = _NVTX_GROUPS[0].match(text) or _NVTX_GROUPS[1].match(text)
        process = ("", "", "")
    else:
        found = SUMMARY_GROUP.match(text) or OLD_SUMMARY_GROUP.match(text)
    if found is None or process is None:
        return None
    names = found.groupdict()
    on = device or (None, None)
    return Group(*process, names["name"], names["block"], names["grid"], names["device"] or on[0],
                 names.get("cc") or on[1], names["invocations"], "cc" not in names)  # fmt: skip


class _Stack:
    """The NVTX stack of the per-NVTX page's groups: the ranges printed above them, replaced by the next ranges
    printed after a group."""

    def __init__(self) -> None:
        self.domain = ""
        self.ranges: list[Range] = []
        self.done = True  # a group came since the last range: the next range begins a new stack

    def line(self, text: str) -> bool:
        """Take a line of the stack (a domain, a range, a range's attribute); False where it is none of these."""
        domain, pushed = _NVTX_DOMAIN.match(text), _NVTX_RANGE.match(text)
        if domain is not None:
            self.domain, self.ranges, self.done = nvtx_domain(domain["domain"]), [], False
            return True
        if pushed is not None:
            if self.done:
                self.ranges, self.done = [], False
            self.ranges.append(Range(pushed["name"]))
            return True
        attribute = _NVTX_ATTRIBUTE.match(text)
        if attribute is None or not self.ranges or self.done:
            return False
        pair = (attribute["kind"], attribute["value"])
        last = self.ranges[-1]
        if pair[0] in _COLOUR_KINDS:
            last.colour = pair
        elif pair[0] in _MESSAGE_KINDS:
            last.message = pair
        else:
            last.payload = pair
        return True

    def cells(self) -> tuple[str, str]:
        """The Domain and Range cells of the groups under this stack (which the next range replaces)."""
        self.done = True
        return self.domain, _ranges_cell(self.ranges)


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
    stack: _Stack | None = None  # on the per-NVTX page
    for number, text in page_lines(path):
        if not text.strip():
            rows = note = False
            continue
        if note or text.lstrip().startswith("Note:"):  # ncu's note under the groups, to its blank line
            note = True
            page.skipped.append(Skipped(number, text.strip(), "ncu message"))
            continue
        if text.strip() == NVTX_STATE and not page.groups:
            stack, page.nvtx = _Stack(), True
            continue
        found = PROCESS_LINE.match(text)
        if found is not None and stack is None:
            process, device, rows = (found["pid"], found["name"], found["host"]), None, False
            continue
        found = DEVICE_LINE.match(text)
        if found is not None and process is not None:
            device, rows = (found["device"], found["cc"]), False
            continue
        group = _group(text, process, device, per_nvtx=stack is not None)
        if group is not None:
            if stack is not None:
                group.nvtx = stack.cells()
            page.groups.append(group)
            section, rows = "", False
            continue
        found = (ANY_SECTION_LINE if stack is None else _NVTX_SECTION).match(text)
        if found is not None and page.groups:
            section, spans, header, rows = found["name"], None, False, False
            continue
        if stack is not None and not rows and stack.line(text):
            continue
        if page.groups and SUMMARY_TABLE_HEADER.match(text):
            header = True
            continue
        dashes = (DASHES if stack is None else ANY_INDENT_DASHES).match(text)
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
        which, export = ("per-NVTX summary", NVTX_SUMMARY_EXPORT) if page.nvtx else ("summary", SUMMARY_EXPORT)
        raise FormatError(path, f"ncu's human-readable page ({which}) without a metric table: export it with "
                                f"'{export}'")  # fmt: skip
    return page


@contextlib.contextmanager
def as_summary_csv(path: Path) -> Iterator[tuple[Path, SummaryPage]]:
    """The page as a summary CSV page in a temporary file (removed afterwards), each row on the page's line."""
    page = parse(path)
    old = any(g.old for g in page.groups)
    cc = all(g.cc is not None for g in page.groups)
    device = all(g.device is not None for g in page.groups)
    group_of = ["Domain", NVTX_RANGES] if page.nvtx else ["Process ID", "Process Name", "Host Name"]
    identity = [*group_of, "Kernel Name", "Block Size", "Grid Size"]
    identity += (["Device Id"] if old else ["Device"]) if device else []
    identity += ["CC"] if cc and not old else []
    # the raw page's summary has no sections (every metric by name): its CSV page has no Section Name either
    sections = any(section for _line, _index, section, _cells in page.rows)
    metric_columns = ["Metric Name", "Metric Unit", "Minimum", "Maximum", "Average"]
    header = [*identity, "Invocations", *(["Section Name"] if sections else []), *metric_columns]
    ident = []
    for g in page.groups:
        cells = [*(g.nvtx or ("", "")), g.name] if page.nvtx else [g.pid, g.process, g.host, g.name]
        cells += [g.block, g.grid]
        cells += [g.device or ""] if device else []
        cells += [g.cc or ""] if cc and not old else []
        ident.append([*cells, g.invocations])
    records = (
        (line, quoted([*ident[index], *([section] if sections else []), *cells]))
        for line, index, section, cells in page.rows
    )
    with csv_on_lines(path.name + ".csv", header, records) as out:
        yield out, page
