"""ncu's human-readable details page (``ncu ./app`` or ``ncu -i REPORT.ncu-rep`` without ``--csv``) and raw page,
read as the details CSV page they print.

The page is what ncu writes to the terminal by default, and what many job logs hold::

    [663] microbench@127.0.0.1
      stream_triad(float4 *, ...) (1056, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
        Section: GPU Speed Of Light Throughput
        ----------------------- ----------- ------------
        Metric Name             Metric Unit Metric Value
        ----------------------- ----------- ------------
        DRAM Frequency                  Ghz         3.20
        ...
        ----------------------- ----------- ------------

        OPT   Est. Speedup: 46.08%
              Out of the 268471392.0 bytes sent to the L2 Compression unit only 0.00% were ...

Each metric row holds what the CSV page's row holds (the same label, unit and value as written, rounded as the
CSV's are), so the page is turned into a details CSV page (:func:`as_details_csv`) that the details reader reads:
one CSV line per line of the page (metric rows and rule results on their own lines, every other line empty), so
that any error names the page's own line. What the page does not carry, and the CSV does:

- launch IDs: numbered 0, 1, 2 ... in the page's order (ncu numbers a report's results so);
- rule names: the page prints a rule's type, estimate and message only. The rules the analysis reads
  (``SOLBottleneck``, ``SOLFPRoofline``, ``HighPipeUtilization``) and ncu's other stock rules are told by their
  section and message (``RULE_MESSAGES``); a message of another rule is named after its section's identifier;
- NVTX ranges: a push/pop stack's domains and ranges become the CSV's NVTX column (not the colours and payloads
  printed under them); start/end ranges are not read (named in ``not_understood``);
- a rule message's runs of spaces: the page's wrapped lines are joined by one space (ncu wraps at spaces; a word
  longer than a line, a link, is cut at the line's end and joined again without one).

The raw page without ``--csv`` (``--page raw``) is one table per launch of every metric by its name (two spaces in,
ended by a blank line): its rows are read as the details page's rows of ``RAW_SECTION``, each value as printed
(two decimals in a unit ncu picks per value, where the CSV raw page prints every digit).

Older kernel lines (ncu 2019.5-2021 reports: ``name, 2020-Aug-28 10:25:54, Context 1, Stream 7``) give the
``Kernel Time`` column and no launch shape, device or CC; tables without a header row (``--metrics`` lists in
"Command line profiler metrics") are read as the three columns they show.

Body items (``--print-details body`` or ``all``: a section's charts and tables under its header table) are read
where they are tables of a metric table's three columns (the roofline charts' series, the throughput charts and
breakdowns, the tensor chart's tables): each row with the CSV page's ``Body Item Label``, the last title above its
table (a series, ``Single Precision Roofline``, or a ``Table Name : ...``; the series' parts, ``Peak Work``, are
not items; a table with no line above it has none). Tables of other shapes (the memory tables) are skipped and
their sections named in ``not_understood``.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError
from ..labels import REQUESTED_METRICS_SECTION
from ..vocabulary import CUT_SHORT, DETAILS_EXPORT
from .sniff import (
    ANY_SECTION_LINE,
    DASHES,
    METRIC_TABLE_HEADER,
    PROCESS_LINE,
    RAW_TABLE_HEADER,
    SECTION_LINE,
    Skipped,
    launch_tail,
    shifted_by,
    skip_reason,
    unshifted,
)

#: The raw page's table (``--page raw``, its header ``sniff.RAW_TABLE_HEADER``): every metric of a launch by its name,
#: two spaces in, ended by a blank line; its rows are read as the details page's rows of the section of the metrics
#: asked for with ``--metrics``, where each field is a metric name, as each column of the raw CSV page is.
RAW_SECTION = REQUESTED_METRICS_SECTION
#: What a launch without a process line above it (a log pasted from its launch line on) gets: pid, process, host.
NO_PROCESS = ("0", "", "")
#: Before the tail: the launch's shape (``(grid)x(block)``), or the time it was profiled (2019.5-2021 reports).
_SHAPE = re.compile(r" (?P<grid>\(\d+, \d+, \d+\))x(?P<block>\(\d+, \d+, \d+\))$")
_TIME = re.compile(r", (?P<time>\d{4}-\w{3}-\d{2} \d{2}:\d{2}:\d{2})$")
_RULE = re.compile(r"^    (?P<type>OPT|INF|WRN|ERR)(?: +(?P<text>\S.*?))?\s*$")
#: The first letter after the indent of a section's heading or of a rule result (a cheap test before the patterns).
_SECTION_OR_RULE = frozenset("SOIWE")
_ESTIMATE = re.compile(r"^Est\. (?:(?P<kind>Local|Global) )?Speedup: (?P<value>[\d.,]+(?:[eE][-+]?\d+)?)%$")
#: A line of a rule's message (a word longer than the line is cut where the line ends, and goes on in the next).
_CONTINUED = re.compile(r"^ {10}(?P<text>.*\S)\s*$")
_RULE_DETAIL = re.compile(r"^    >")
#: The separator ncu prints between two rule results of one section.
_RULE_SEPARATOR = re.compile(r"^    -----(?: -+)?\s*$")
_NVTX = re.compile(r"^    NVTX Push/Pop Stack for Thread (?P<thread>\d+):\s*$")
_NVTX_OTHER = re.compile(r"^    NVTX ")
#: In a push/pop stack: a domain (``<default domain>``), and a range pushed in it (``<0,memory>``).
_NVTX_DOMAIN = re.compile(r"^ {5,}<(?P<domain>[^<>]*)>\s*$")
_NVTX_RANGE = re.compile(r"^ {5,}<(?P<level>\d+),(?P<name>.*)>\s*$")
_WARNING = re.compile(r"^    (?:Warning|Note|Error): ")
#: A body item's table name (``Table Name : Floating Point Operations Roofline``): the item its rows belong to,
#: unless a series line (``Single Precision Roofline``) follows it.
_TABLE_NAME = re.compile(r"^    Table Name : (?P<name>.*\S)\s*$")
#: The lines a roofline chart's series prints above each of its tables: not items of their own (the CSV page
#: labels their rows with the series).
_SERIES_PARTS = frozenset({"Peak Work", "Peak Traffic", "Achieved Work", "Achieved Traffic"})
#: What ncu prints before a value it could not compute (``(!) n/a``), in the value's column or the unit's; the CSV
#: page has the value alone.
_NOT_COMPUTED = "(!)"

#: Section display name -> identifier (rule results carry the identifier on the CSV page), for ncu 2019.5-2025.3.
SECTION_IDS: dict[str, str] = {
    "C2CLink": "C2CLink",
    "Compute Workload Analysis": "ComputeWorkloadAnalysis",
    "GPU Speed Of Light": "SpeedOfLight",
    "GPU Speed Of Light Throughput": "SpeedOfLight",
    "GPU Speed Of Light Roofline Chart": "SpeedOfLight_RooflineChart",
    "GPU Speed Of Light Hierarchical Roofline Chart (Double Precision)": "SpeedOfLight_HierarchicalDoubleRooflineChart",
    "GPU Speed Of Light Hierarchical Roofline Chart (Half Precision)": "SpeedOfLight_HierarchicalHalfRooflineChart",
    "GPU Speed Of Light Hierarchical Roofline Chart (Single Precision)": "SpeedOfLight_HierarchicalSingleRooflineChart",
    "GPU Speed Of Light Hierarchical Roofline Chart (Tensor Core)": "SpeedOfLight_HierarchicalTensorRooflineChart",
    "GPU and Memory Workload Distribution": "WorkloadDistribution",
    "Instruction Statistics": "InstructionStats",
    "Launch Statistics": "LaunchStats",
    "Memory Workload Analysis": "MemoryWorkloadAnalysis",
    "Memory Workload Analysis Chart": "MemoryWorkloadAnalysis_Chart",
    "Memory Workload Analysis Tables": "MemoryWorkloadAnalysis_Tables",
    "NUMA Affinity": "NumaAffinity",
    "NVLink": "Nvlink",
    "NVLink Tables": "Nvlink_Tables",
    "NVLink Topology": "Nvlink_Topology",
    "Occupancy": "Occupancy",
    "PM Sampling": "PmSampling",
    "PM Sampling: Warp States": "PmSampling_WarpStates",
    "Scheduler Statistics": "SchedulerStats",
    "Source Counters": "SourceCounters",
    "Warp State Statistics": "WarpStateStats",
}

#: (section identifier, pattern of the message's beginning, rule name): ncu's stock rules, told apart by what
#: their messages say (ncu 2022.3-2025.3). The first match names a message; none: the section's identifier.
RULE_MESSAGES: tuple[tuple[str, re.Pattern[str], str], ...] = tuple(
    (section, re.compile(pattern), name)
    for section, pattern, name in (
        ("SpeedOfLight", r"", "SOLBottleneck"),
        ("SpeedOfLight_RooflineChart", r"The ratio of peak float", "SOLFPRoofline"),
        (
            "ComputeWorkloadAnalysis",
            r"[\w ()]+ is the highest-utilized pipeline|All compute pipelines are under-utilized",
            "HighPipeUtilization",
        ),
        ("InstructionStats", r"This kernel executes \S+ fused and", "FPInstructions"),
        (
            "LaunchStats",
            r"A wave of thread blocks|If you execute __syncthreads|The grid for this launch is configured"
            r"|Threads are executed in groups of",
            "LaunchConfiguration",
        ),
        (
            "MemoryWorkloadAnalysis_Chart",
            r"Out of the \S+ bytes sent to the L2 Compression unit"
            r"|The access patterns for writes to compressible memory",
            "MemoryL2Compression",
        ),
        (
            "MemoryWorkloadAnalysis_Tables",
            r"The memory access pattern for shared (?:loads|stores)",
            "SharedMemoryConflicts",
        ),
        (
            "MemoryWorkloadAnalysis_Tables",
            r"The memory access pattern for (?:global|local) (?:loads|stores)",
            "MemoryCacheAccessPattern",
        ),
        ("Occupancy", r"The difference between calculated theoretical", "AchievedOccupancy"),
        ("Occupancy", r"The \S+ theoretical warps per scheduler", "TheoreticalOccupancy"),
        ("PmSampling", r"Sampling interval is", "PMSamplingData"),
        ("SchedulerStats", r"Every scheduler is capable of issuing", "IssueSlotUtilization"),
        ("SourceCounters", r"This kernel has uncoalesced global accesses", "UncoalescedGlobalAccess"),
        ("SourceCounters", r"This kernel has uncoalesced shared accesses", "UncoalescedSharedAccess"),
        ("SourceCounters", r"Sampling metrics were enabled, but no samples", "PCSamplingData"),
        ("WarpStateStats", r"On average, each warp of this workload spends|Check the Warp Stall Sampling", "CPIStall"),
        (
            "WorkloadDistribution",
            r"One or more \S+(?: \S+)? have a much (?:lower|higher) number of active cycles",
            "WorkloadImbalance",
        ),
    )
)


def rule_name(section_id: str, message: str) -> str | None:
    """The stock rule whose result ``message`` is, in ``section_id`` (``RULE_MESSAGES``), or None."""
    for section, pattern, name in RULE_MESSAGES:
        if section == section_id and pattern.match(message):
            return name
    return None


@dataclass
class PageLaunch:
    """A launch line of the page (and the process line above it): what the CSV page's identity columns hold."""

    pid: str
    process: str
    host: str
    name: str
    context: str
    stream: str
    grid: str | None = None
    block: str | None = None
    device: str | None = None
    cc: str | None = None
    time: str | None = None
    thread: str | None = None  # the thread of its NVTX push/pop stack, and the ranges on it (domain, name)
    nvtx: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class PageRow:
    """A metric row (``rule`` None) or a rule result of ``launch``, written on page line ``line``."""

    line: int
    launch: int
    section: str
    label: str = ""
    unit: str = ""
    value: str = ""
    rule: tuple[str, str, str, str, str] | None = None  # name, type, message, speedup type, speedup
    item: str = ""  # the body item a chart's or table's row belongs to (the CSV's Body Item Label); "": the header


@dataclass
class TextPage:
    """What :func:`parse` read of a page: launches, rows, lines skipped, and what was not understood."""

    launches: list[PageLaunch] = field(default_factory=list)
    rows: list[PageRow] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)
    body_items: bool = False  # whether rows of body items were read (--print-details all): the CSV's Body Item Label


#: A piece of a launch line ("(1056, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0").
_LAUNCH_PIECE = re.compile(r"\)x\(|\bContext \d|\bStream \d|\bDevice \d|\bCC \d")


def _launch_of(text: str, pid: str, process: str, host: str) -> PageLaunch | None:
    """The launch a ``  name ..., Context c, Stream s[, Device d, CC x.y]`` line names, or None."""
    tail = launch_tail(text)
    if tail is None:
        return None
    head = text[: tail.start()].lstrip(" ")
    launch = PageLaunch(pid, process, host, head, tail["context"], tail["stream"], device=tail["device"], cc=tail["cc"])
    shape, when = _SHAPE.search(head), _TIME.search(head)
    if shape is not None:
        launch.name, launch.grid, launch.block = head[: shape.start()], shape["grid"], shape["block"]
    elif when is not None:
        launch.name, launch.time = head[: when.start()], when["time"]
    return launch if launch.name.strip() else None


def nvtx_domain(printed: str) -> str:
    """An NVTX domain as the CSV pages name it, from what the page prints between its brackets: ncu's default
    domain (printed ``<default domain>``) keeps its brackets, any other is its name."""
    return "<default domain>" if printed == "default domain" else printed


def spans_of(dashes: re.Match[str]) -> list[tuple[int, int]]:
    """The columns a table's dashed line marks: (start, end) of each run of dashes."""
    start = len(dashes["indent"])
    return [(start + m.start(), start + m.end()) for m in re.finditer(r"-+", dashes["runs"])]


def raw_cells(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """A table row cut at its columns as printed, padding kept (the last column runs to the end of the line: a
    value wider than it; a wrapped value's line ends where ncu cut it)."""
    return [text[a:b] for a, b in spans[:-1]] + [text[spans[-1][0] :]]


def cells_of(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """A table row cut at its columns, each cell stripped (``raw_cells``)."""
    return [c.strip() for c in raw_cells(text, spans)]


class _Parser:
    """One pass over the page's lines (see the module's text)."""

    def __init__(self) -> None:
        self.page = TextPage()
        self.process: tuple[str, str, str] | None = None
        self.section = ""
        self.table: list[tuple[int, int]] | None = None  # the open table's columns
        self.table_ok = False  # whether its rows are read (three columns: name, unit, value)
        self.expect_header = False
        self.rule: tuple[str, str, str] | None = None  # type, speedup type, speedup: the open rule result
        self.words: list[tuple[str, bool]] = []  # its message's lines, and whether each ends in a cut word
        self.width = 0  # the open rule's widest line
        self.rule_line = 0
        self.rule_detail = False
        self.nvtx = False
        self.domain = ""
        self.header_rule = False  # a table's header row was read: the dashed line under it comes next
        self.fresh_section = False  # the line before was a section's heading
        self.odd_tables: set[str] = set()
        self.annotated: list[int] = []  # table rows with text after the last column (notes added to the page)
        self.body: set[str] = set()  # sections with body items not read (tables of other shapes than three columns)
        self.item = ""  # the body item of the next table: the last title or series line (see in_launch)
        self.titled = False  # a title, series or part line came since the last table (else the next one has none)
        self.unnamed: set[str] = set()  # sections of rule results whose rule is not known
        self.no_process = False  # a launch line without a process line above it (a pasted log)
        self.raw_header = False  # the raw page's table header was the line before
        self.raw_table = False  # the open table is the raw page's (two spaces in, no closing dashes)
        self.start_end = False  # the page prints NVTX start/end ranges (not read)
        self.header_first = False  # the section's table header came before its dashed line (no closing line then)
        self.table_item = ""  # the body item of the open table's rows
        self.blank_ends = False  # the open table ends at a blank line, not at a dashed one
        self.processes: dict[tuple[str, str, str], int] = {}  # process line -> launches before it (printed once)
        self.again: tuple[int, str] | None = None  # (line, pid) of a process line printed a second time
        self.sections: set[str] = set()  # the sections of the open launch so far
        self.last_skipped: tuple[int, str] | None = None  # (see skip)
        self.skipped_at: tuple[int, bool] = (0, False)  # the last line skipped, and whether indented as a launch line
        # (line, the line skipped before it) of a section heading with no launch line of its own before it: a section
        # before any launch line, or a second heading of one section in a launch (its launch line not read)
        self.lost: tuple[int, tuple[int, str] | None] | None = None

    def close_table(self) -> None:
        self.table, self.raw_table, self.blank_ends, self.header_rule = None, False, False, False

    def skip(self, number: int, text: str, reason: str | None = None) -> None:
        self.page.skipped.append(Skipped(number, text, reason or skip_reason(text)))
        # the line skipped last that may be a piece of a launch line: what a section heading with no launch line
        # before it names (a launch line wrapped in two); else the last one that is not ncu's
        piece = _LAUNCH_PIECE.search(text) is not None
        ours = text.strip() and (reason or skip_reason(text)) != "ncu message" and not _WARNING.match(text)
        if ours and (piece or self.last_skipped is None or not _LAUNCH_PIECE.search(self.last_skipped[1])):
            self.last_skipped = (number, text.strip())
        self.skipped_at = (number, text[:2] == "  " and text[2:3] != " ")

    def close_rule(self) -> None:
        if self.rule is None:
            return
        kind, speed_type, speedup = self.rule
        message = ""
        glue = True
        for text, cut in self.words:
            message += text if glue else " " + text
            glue = cut
        section_id = SECTION_IDS.get(self.section, self.section)
        name = rule_name(section_id, message)
        if name is None:
            name = section_id
            self.unnamed.add(section_id)
        result = (name, kind, message, speed_type, speedup)
        self.page.rows.append(PageRow(self.rule_line, len(self.page.launches) - 1, section_id, rule=result))
        self.rule, self.words, self.rule_detail = None, [], False

    def message_line(self, text: str) -> None:
        """A line of the open rule's message; a word that fills the line to its end (no padding after it, no
        space in it: a link longer than the line) is cut there, and the next line goes on with it."""
        words = text[10:].strip()
        cut = not text.endswith(" ") and " " not in words and len(text) >= self.width
        self.width = max(self.width, len(text))
        self.words.append((words, cut))

    def feed(self, number: int, text: str) -> None:
        if not text.strip():
            self.close_rule()
            self.nvtx = False
            if self.blank_ends:  # a table without a closing dashed line (the raw page's) ends at a blank line
                self.close_table()
            return
        if self.table is not None and not self.blank_ends and text.startswith("    "):
            # a row of an open section table, most of the page's lines: none of the checks below would stop it
            self.table_line(number, text)
            return
        if self.page.launches and "Section: " in text and ANY_SECTION_LINE.match(text) and text[:1] == " ":
            text = "    " + text.lstrip(" ")  # a section's heading a space or two off its indent (a paste): its own
        if self.table is not None and (launch_tail(text) or PROCESS_LINE.match(text)):
            self.close_table()  # the next launch: the end of a table cut short (a pasted page's "...") or not closed
        if self.raw_table:
            self.table_line(number, text)
            return
        process = PROCESS_LINE.match(text)
        if process is not None:
            self.close_rule()
            self.process = (process["pid"], process["name"], process["host"])
            if self.process in self.processes and len(self.page.launches) > self.processes[self.process]:
                self.again = self.again or (number, process["pid"])  # the page (or its process) printed twice
            self.processes.setdefault(self.process, len(self.page.launches))
            self.close_table()
            return
        if self.table is None and self.rule is None:
            launch = _launch_of(text, *(self.process or NO_PROCESS))
            if launch is not None:
                if self.skipped_at == (number - 1, True) and text[:1] != " ":  # its head on the line above, indented
                    self.lost = self.lost or (number, self.last_skipped)  # as ncu indents a launch line: wrapped
                self.no_process |= self.process is None
                self.page.launches.append(launch)
                self.section, self.nvtx, self.sections = "", False, set()
                return
        if self.page.launches and self.table is None and RAW_TABLE_HEADER.match(text):
            self.section, self.raw_header = RAW_SECTION, True
            return
        if self.raw_header:  # the dashed line under the raw page's header: its columns
            self.raw_header = False
            dashes = DASHES.match(text)
            if dashes is not None:
                self.table, self.raw_table, self.blank_ends, self.expect_header = spans_of(dashes), True, True, False
                self.table_item = ""
                self.table_ok = len(self.table) == 3
                return
        if not self.page.launches or not text.startswith("    "):
            self.close_rule()
            if not self.page.launches and SECTION_LINE.match(text):  # a section with no launch line before it
                self.lost = self.lost or (number, self.last_skipped)
            self.skip(number, text)
            return
        self.in_launch(number, text)

    def in_launch(self, number: int, text: str) -> None:
        if self.table is not None:
            self.table_line(number, text)
            return
        if self.rule is not None:
            more = _CONTINUED.match(text)
            if _RULE_DETAIL.match(text):
                self.rule_detail = True
                return
            if more is not None:
                if not self.rule_detail:
                    self.message_line(text)
                    self.rule_line = number
                return
            self.close_rule()
        if self.nvtx and text.startswith("     "):
            pushed, domain = _NVTX_RANGE.match(text), _NVTX_DOMAIN.match(text)
            if pushed is not None:
                self.page.launches[-1].nvtx.append((self.domain, pushed["name"]))
            elif domain is not None:
                self.domain = nvtx_domain(domain["domain"])
            return
        section = SECTION_LINE.match(text)
        if section is not None:
            if section["name"] in self.sections:  # ncu prints a launch's sections once each
                self.lost = self.lost or (number, self.last_skipped)
            self.sections.add(section["name"])
            self.section, self.fresh_section = section["name"], True
            self.item, self.titled = "", False
            return
        if self.fresh_section and METRIC_TABLE_HEADER.match(text):  # a header row above the dashed line: rows follow it
            self.header_first = True
            return
        fresh, self.fresh_section = self.fresh_section, False
        rule = _RULE.match(text)
        if rule is not None:
            estimate = _ESTIMATE.match(rule["text"] or "")
            kind = ("local" if estimate["kind"] == "Local" else "global") if estimate is not None else ""
            speedup = estimate["value"] if estimate is not None else ""
            self.rule, self.width = (rule["type"], kind, speedup), len(text)
            if estimate is None and rule["text"]:
                self.message_line(text)
            self.rule_line = number
            return
        dashes = DASHES.match(text)
        if dashes is not None and not _RULE_SEPARATOR.match(text):
            # the section's own table comes right under its heading; any later one is a body item's (--print-details
            # body or all): a chart's or a table's rows, read where they have the three columns of a metric table
            self.table = spans_of(dashes)
            self.table_ok = len(self.table) == 3
            self.expect_header = not self.header_first
            self.blank_ends, self.header_first = self.header_first, False
            self.table_item = "" if fresh or not self.titled else self.item
            self.titled = False
            self.page.body_items |= self.table_ok and not fresh
            if not self.table_ok:
                (self.odd_tables if fresh else self.body).add(self.section)
            return
        if _RULE_SEPARATOR.match(text):
            return
        nvtx = _NVTX.match(text)
        if nvtx is not None:
            self.nvtx, self.domain = True, ""
            self.page.launches[-1].thread = nvtx["thread"]
            return
        if _NVTX_OTHER.match(text):  # start/end ranges: not read
            self.nvtx = self.start_end = True
            return
        if _WARNING.match(text):
            self.skip(number, text.strip(), "ncu message")
            return
        if self.section:  # a body item's title, table name, a chart's series or a series' part
            name, line = _TABLE_NAME.match(text), text.strip()
            if name is not None:
                self.item = name["name"]
            elif line not in _SERIES_PARTS:
                self.item = line
            self.titled = True
            return
        self.skip(number, text.strip(), "not understood")

    def table_line(self, number: int, text: str) -> None:
        assert self.table is not None
        if not self.raw_table and text[4:5] in _SECTION_OR_RULE and (SECTION_LINE.match(text) or _RULE.match(text)):
            self.close_table()  # a table without a closing line (cut short, or none printed) and no blank line after it
            self.in_launch(number, text)
            return
        if self.expect_header:
            self.expect_header = False
            if METRIC_TABLE_HEADER.match(text) or not self.table_ok:
                self.header_rule = True
                return
            if DASHES.match(text):  # the rule under a header left out (a paste without it): the rows follow
                return
        dashes = DASHES.match(text)
        if dashes is not None:
            if self.header_rule:  # the rule under the header: the rows follow
                self.header_rule = False
                return
            self.close_table()
            return
        self.header_rule = False
        if not self.table_ok:
            return
        (a, b), (c, d), (e, f) = self.table  # table_ok: three columns
        if text[f:].strip():  # ncu's columns hold their values: text past the last one was added to the page
            self.annotated.append(number)
            text = text[:f]
        label, unit, value = text[a:b].strip(), text[c:d].strip(), text[e:].strip()  # (cells_of, unrolled)
        if not label:
            self.skip(number, text.strip(), "not understood")
            return
        if unit == _NOT_COMPUTED:
            unit = ""
        value = value.removeprefix(_NOT_COMPUTED).lstrip()
        launch = len(self.page.launches) - 1
        self.page.rows.append(PageRow(number, launch, self.section, label, unit, value, item=self.table_item))


#: How many lines of a page ``page_lines`` looks at to tell that it was shifted (``sniff.shifted_by``).
SHIFT_LOOKAHEAD = 400


def page_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The lines of a page ncu printed without ``--csv`` (UTF-8 text, a BOM dropped, undecodable bytes replaced),
    numbered from 1, without their line ends (LF, CRLF or CR); a page whose every line was shifted right (pasted
    as a Markdown code block: ``sniff.shifted_by``) shifted back."""
    with path.open("r", encoding="utf-8-sig", errors="replace", newline=None) as fh:
        head = list(itertools.islice(fh, SHIFT_LOOKAHEAD))
        by = shifted_by(raw.rstrip("\r\n") for raw in head)
        for number, raw in enumerate(itertools.chain(head, fh), start=1):
            text = raw.rstrip("\r\n")
            yield number, unshifted(text, by) if by else text


def parse(path: Path) -> TextPage:
    """Read a human-readable details page (UTF-8 text) line by line."""
    parser = _Parser()
    for number, text in page_lines(path):
        parser.feed(number, text)
    parser.close_rule()
    if parser.again is not None:
        line, pid = parser.again
        raise FormatError(
            path,
            f"the launches of process {pid} are printed a second time here (ncu prints a process's launches once): "
            "two captures of one process in one file? export each capture to a file of its own",
            line=line,
        )
    if parser.lost is not None:
        line, before = parser.lost
        what = f" (line {before[0]}, {before[1][:60]!r}, is not read as one)" if before else ""
        raise FormatError(
            path,
            f"a launch's sections without the whole launch line above them{what}: a launch line wrapped or edited? "
            "ncu prints each launch on one line ('  name (grid)x(block), Context c, Stream s, Device d, CC x.y'); "
            f"mend it, or export the page with '{DETAILS_EXPORT}'",
            line=line,
        )
    page = parser.page
    if parser.annotated:
        lines = ", ".join(str(n) for n in parser.annotated[:3]) + (
            f" and {len(parser.annotated) - 3} more" if len(parser.annotated) > 3 else ""
        )
        page.not_understood.append(
            f"text after a table's last column, left out (line {lines}): notes added to the page, not ncu's"
        )
    if parser.odd_tables:
        page.not_understood.append(
            "tables of other shapes (body items) in " + ", ".join(repr(s) for s in sorted(parser.odd_tables))
        )
    if parser.no_process:
        page.not_understood.append(
            "launch lines without the process line above them ('[pid] name@host'): process ID 0, no process name"
        )
    if parser.start_end:
        page.not_understood.append("NVTX start/end ranges, not read from a human-readable page (push/pop ranges are)")
    if parser.body:
        page.not_understood.append(
            "body items (--print-details body or all) in tables of other shapes than a metric table's three columns, "
            f"not read from a human-readable page: {', '.join(repr(s) for s in sorted(parser.body))}; export with "
            "--csv to read them"
        )
    if parser.unnamed:
        page.not_understood.append(
            "rule results of rules the page does not name, named after their section: "
            + ", ".join(sorted(parser.unnamed))
        )
    cut = _cut_short(path)
    if cut:
        page.not_understood.append(cut)
    if not page.launches:
        raise FormatError(path, "ncu's human-readable page without a launch line ('  name ..., Context c, Stream s')")
    if not any(r.rule is None and not r.item for r in page.rows):
        what = (
            "only body items (--print-details body)" if parser.body or page.body_items else "no section's metric table"
        )
        raise FormatError(path, f"ncu's human-readable page with {what}: export it with '{DETAILS_EXPORT}'")
    return page


def _cut_short(path: Path) -> str | None:
    """What says a page was cut short (``head -c``, a copy stopped mid-way): its last line without a line break
    (ncu ends every line it prints). None where it ends with one. (A launch without a section the one before has
    is no sign: micro_full's last launch has no Source Counters rows on the real page.)"""
    with path.open("rb") as fh:
        fh.seek(0, 2)
        if not fh.tell():
            return None
        fh.seek(-1, 2)
        if fh.read(1) in (b"\n", b"\r"):
            return None
    return f"{CUT_SHORT}: its last line has no line break (ncu ends every line it prints)"


#: The details CSV page's column of NVTX push/pop ranges (``--nvtx``), and how a cell of it lists a thread's ranges.
NVTX_PUSH_POP = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"


def _nvtx_cell(launch: PageLaunch) -> str:
    """``663  "<default domain>:memory:none:none:none:none:none:none" ``: the thread and its ranges, as the CSV
    page writes them (the payload, colour and message the stack prints under a range are not kept)."""
    if launch.thread is None:
        return ""
    items = "".join(f'  "{domain}:{name}:none:none:none:none:none:none"' for domain, name in launch.nvtx)
    return f"{launch.thread}{items} "


def quoted(fields: list[str]) -> str:
    """A CSV record as ncu writes it: every field quoted, quotes doubled."""
    if '"' in "".join(fields):
        return ",".join('"' + f.replace('"', '""') + '"' for f in fields)
    return '"' + '","'.join(fields) + '"'  # (most records: no quote to double, one join)


@contextlib.contextmanager
def as_details_csv(path: Path) -> Iterator[tuple[Path, TextPage]]:
    """The page as a details CSV page in a temporary file (removed afterwards), each of its lines on the page's
    line (the header on line 1, which a page never uses for a row), and what was parsed of it."""
    page = parse(path)
    launches = page.launches
    old = any(x.time is not None for x in launches)
    shaped = all(x.grid is not None for x in launches)
    device = all(x.device is not None for x in launches)
    cc = all(x.cc is not None for x in launches)
    nvtx = any(x.nvtx for x in launches)
    identity = ["ID", "Process ID", "Process Name", "Host Name", *([NVTX_PUSH_POP] if nvtx else []), "Kernel Name"]
    identity += ["Kernel Time"] if old else []
    identity += ["Context", "Stream"]
    identity += ["Block Size", "Grid Size"] if shaped else []
    identity += ["Device"] if device else []
    identity += ["CC"] if cc else []
    body = ["Body Item Label"] if page.body_items else []

    def item(row: PageRow) -> list[str]:
        return [row.item] if body else []

    header = [*identity, "Section Name", *body, "Metric Name", "Metric Unit", "Metric Value", "Rule Name",
              "Rule Type", "Rule Description", "Estimated Speedup Type", "Estimated Speedup"]  # fmt: skip
    ident: list[list[str]] = []
    for i, x in enumerate(launches):
        cells = [str(i), x.pid, x.process, x.host, *([_nvtx_cell(x)] if nvtx else []), x.name]
        cells += [x.time or ""] if old else []
        cells += [x.context, x.stream]
        cells += [x.block or "", x.grid or ""] if shaped else []
        cells += [x.device or ""] if device else []
        cells += [x.cc or ""] if cc else []
        ident.append(cells)
    prefix = [quoted(cells) + "," for cells in ident]  # each launch's fields, quoted once
    records = (
        (row.line, prefix[row.launch] + quoted([row.section, *item(row), row.label, row.unit, row.value]) + ",")
        if row.rule is None  # (a metric row ends in an empty field, as ncu writes it)
        else (row.line, prefix[row.launch] + quoted([row.section, *item(row), "", "", "", *row.rule]))
        for row in sorted(page.rows, key=lambda r: r.line)
    )
    with csv_on_lines(path.name + ".csv", header, records) as out:
        yield out, page


@contextlib.contextmanager
def csv_on_lines(name: str, header: list[str] | None, records: Iterable[tuple[int, str]]) -> Iterator[Path]:
    """A CSV file ``name`` in a temporary folder (removed afterwards): ``header`` on line 1, each record (its line,
    from 2 on and in order; its text) on that line, the lines between them empty: a copy of a page whose line
    numbers are the page's. Without a header, records from line 1 on (a page that carries its own headers)."""
    with tempfile.TemporaryDirectory(prefix="ncu-roofline-") as tmp:
        out = Path(tmp) / name
        with out.open("w", encoding="utf-8", newline="\n") as fh:
            at = 1
            if header is not None:
                fh.write(quoted(header) + "\n")
                at = 2
            for line, text in records:
                fh.write("\n" * (line - at) + text + "\n")
                at = line + 1
        yield out
