"""The report's view model: what each figure, table and panel of the report shows, as plain Python values.

:func:`build_view` selects and formats from an :class:`~ncu_roofline.analysis.Analysis` and its
:class:`~ncu_roofline.summary.Summary` (computed once per run); it never computes a metric or rolls one up.
Every renderer (HTML, terminal, Markdown) reads this model, and the tests check it. Missing values (NaN, NA)
become None; strings from the input are kept as they are (escaping is the renderer's job).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, cast

import numpy as np
import pandas as pd

from ..analysis import Analysis
from ..classify import UNIT_COLUMNS, UNMEASURED_UNITS
from ..device import memory_is_hbm, parse_series, peaks_note
from ..hints import RULES, read_evidence
from ..io import read_warnings
from ..io.identity import display_name as short_name
from ..io.identity import nvtx_op
from ..ncurules import ROOFLINE_RULE, ROOFLINE_RULE_PRECISIONS, rule_ran_anywhere
from ..quantities import BY_NAME, DURATION_METRIC, ROOFLINE_SET, WORK_SECTIONS
from ..roofline import counted_precisions, fp16_register_moves
from ..summary import NCU_SOURCE, LaunchKeys, Summary, key_codes, launch_weights, summarize
from ..thresholds import BOUND_THRESHOLD, LAUNCH_DURATION_S, NCU_RULE_LEADS
from ..vector import first_of_each
from ..vocabulary import (
    LEVEL_LABELS,
    LEVELS,
    LIMITER_LABELS,
    LIMITERS,
    PRECISION_LABELS,
    PRECISIONS,
    RAW_EXPORT,
    REGIME_LABELS,
    REGIMES,
    Level,
    Precision,
)
from . import fmt

# ------------------------------------------------------------------------------------------------ vocabulary
# The words themselves (limiters, regimes, precisions, levels and their labels) are ``ncu_roofline.vocabulary``'s;
# what is here is how the report shows them.

#: Rows of "GPU time by limiter" for launches no roof holds (their regime).
UNBOUND_LABELS = {"latency": "Latency-bound", "launch": "Launch-bound"}
#: The ncu section that carries each precision's hierarchical roofline (what to add when it is missing).
PRECISION_SECTIONS = {p.value: WORK_SECTIONS[p.value] for p in Precision}  # the metric table's work rows
#: Okabe-Ito colours (distinguishable with the common colour-vision deficiencies).
LIMITER_COLORS = {"hbm": "#D55E00", "l2": "#0072B2", "l1": "#009E73", "compute": "#CC79A7"}
REGIME_COLORS = {"bound": "#0072B2", "latency": "#E69F00", "launch": "#56B4E9"}
MISSING_COLOR = "#9a9a9a"
UNCLASSIFIED = "unclassified"

#: Unit labels and order: the classifier's own unit table (one source of truth), then its per-limiter scores
#: (labelled by ``unit_label`` with the report's limiter labels).
UNIT_LABELS: dict[str, str] = {unit: label for unit, _, label in UNIT_COLUMNS}
UNIT_ORDER: tuple[str, ...] = (*(f"limiter_{k}" for k in LIMITER_LABELS), *(u for u, _, _ in UNIT_COLUMNS))
SOURCE_LABELS = {
    "classifier": (
        "Verdict (each limiter's score: the larger of its roofline and Speed Of Light figures; for L2 and L1 the "
        "busiest member of ncu's breakdown, not the SOL header, which may count other work, or the header capped "
        "at Memory Throughput)"
    ),
    "speed-of-light": "Speed Of Light (% of each unit's peak throughput)",
    "sol-breakdown": "Speed Of Light breakdown (busiest member per level)",
    "roofline": "Roofline (% of each peak FLOP/s and bytes/s)",
    "pipe": "Pipes (% of peak issue rate)",
}
#: Pipes below this share of their peak are left out of a kernel's diagnosis (idle pipes say nothing).
IDLE_PIPE = 0.005

#: Kernels on the first screen ("look at these first").
TOP_KERNELS = 10
#: NVTX ranges on the first screen.
TOP_RANGES = 8
#: Findings (hints across kernels) on the first screen.
TOP_FINDINGS = 8
#: The first screen calls out latency- and launch-bound time from this share of the GPU time on.
LEAD_MIN_SHARE = 0.05


def limiter_label(value: str | None, labels: Mapping[str, str] = LIMITER_LABELS) -> str:
    """A limiter's label (``labels``: a report's own, ``ReportView.limiter_labels``), an unbound regime's, or
    "unclassified"."""
    return labels.get(value, UNBOUND_LABELS.get(value, value)) if value else UNCLASSIFIED


#: The DRAM limiter's label on a report whose GPUs' DRAM is not HBM (GDDR, LPDDR: a T4, a GeForce card; ncu's
#: own word), and on one of GPUs of both kinds.
DRAM_LABEL, HBM_OR_DRAM_LABEL = "DRAM", "HBM/DRAM"


def limiter_labels(analysis: Analysis) -> dict[str, str]:
    """LIMITER_LABELS for a report: its DRAM limiter (``hbm`` in the frames and the JSON) is called "HBM" where
    every launch's GPU has HBM, "DRAM" where none is known to (GDDR, LPDDR, or not known: HBM is DRAM too, GDDR
    is not HBM), "HBM/DRAM" where some (``device.memory_is_hbm``; the launches' texts say ``dram`` for it where
    their GPU's is not known to be HBM)."""
    lv = analysis.launches
    if not len(lv) or "device_table" not in lv.columns:
        return {**LIMITER_LABELS, "hbm": DRAM_LABEL}
    cc = lv["cc"] if "cc" in lv.columns else pd.Series(None, index=lv.index, dtype=object)
    kinds = set(memory_is_hbm(lv["device_table"], cc))
    if kinds == {True}:
        return dict(LIMITER_LABELS)
    return {**LIMITER_LABELS, "hbm": HBM_OR_DRAM_LABEL if True in kinds else DRAM_LABEL}


def regime_label(value: str | None) -> str:
    return REGIME_LABELS.get(value, value) if value else UNCLASSIFIED


def limiter_color(value: str | None) -> str:
    return LIMITER_COLORS.get(value or "", REGIME_COLORS.get(value or "", MISSING_COLOR))


def regime_color(value: str | None) -> str:
    return REGIME_COLORS.get(value or "", MISSING_COLOR)


#: Hint names whose words need more than a capital letter.
HINT_LABELS = {
    "non_fp_compute": "Non-FP compute",
    "fp32_instead_of_tensor": "FP32 instead of tensor cores",
}


def hint_label(hint: str) -> str:
    """``uncoalesced_global_access`` -> ``Uncoalesced global access``; ncu's ``ncu:Rule`` stays."""
    if hint.startswith("ncu:") or not hint:
        return hint
    if hint in HINT_LABELS:
        return HINT_LABELS[hint]
    words = hint.replace("_", " ")
    return words[0].upper() + words[1:]


def unit_label(unit: str, labels: Mapping[str, str] = LIMITER_LABELS) -> str:
    """A unit's label; a per-limiter score's (``limiter_<key>``) with the report's limiter ``labels``."""
    limiter = unit.removeprefix("limiter_")
    if limiter != unit and limiter in labels:
        return f"score as limiter: {labels[limiter]}"
    if unit in UNIT_LABELS:
        return UNIT_LABELS[unit]
    q = BY_NAME.get(unit)
    if q is not None:
        return q.description
    return unit.replace("_", " ")


# ------------------------------------------------------------------------------------------------ the model


@dataclass(frozen=True)
class SourceFile:
    report: str
    path: str | None
    flavour: str | None
    ncu_version: str | None
    launches: int | None
    skipped: str | None


@dataclass(frozen=True)
class Header:
    sources: tuple[SourceFile, ...]
    ncu_versions: tuple[str, ...]
    launches: int
    kernels: int
    gpu_time_ns: float | None
    #: Launches without a duration (not in the GPU time).
    untimed_launches: int
    #: The roofline peaks nobody gave and how to give them (``ncu_roofline.device.peaks_note``); None: none.
    missing_peaks: str | None = None
    #: Each distinct GPU with its compute capability, "NVIDIA H200 (CC 9.0)" ("unknown device (CC 9.0)", no
    #: "(CC ...)" where not known), in order of first appearance.
    gpus: tuple[str, ...] = ()
    #: What a reader must know of the inputs (``io.read_warnings``: a page cut short, a value given twice, an
    #: input given twice), one line each; the command line warns of the same.
    warnings: tuple[str, ...] = ()
    #: Where inputs are summary pages: that their rows are ncu's averages over launches (``_averaged_note``).
    averaged: str | None = None

    @property
    def untimed_note(self) -> str:
        """What the header says after the GPU time where some launches are timed and some not (the GPU time and
        its shares are of the timed ones): " (240 launches without a duration)"; else "" (none timed: the lead
        says so)."""
        n = self.untimed_launches
        if not n or n >= self.launches:
            return ""
        return f" ({fmt.counted(n, 'launch', 'launches')} without a duration)"


@dataclass(frozen=True)
class TimeShare:
    """GPU time of one limiter or regime (``key`` None: launches the classifier could not place)."""

    key: str | None
    label: str
    duration_ns: float | None
    share: float | None
    launches: int
    color: str


@dataclass(frozen=True)
class HintItem:
    """One hint on a kernel, as given on its longest launch that has it."""

    hint: str
    label: str
    source: str
    severity: str | None
    message: str | None
    advice: str | None
    evidence: tuple[dict[str, Any], ...]
    estimated_speedup: float | None
    #: Where the hint's fix removes work: the share of the launch's time saved without that work (else None).
    estimated_speedup_less_work: float | None
    #: Launches of the kernel that have this hint, and the launch the message and evidence come from.
    launches: int
    launch_id: int | None

    @property
    def speedup_text(self) -> str | None:
        """The estimate as a hint card gives it, in whole percent: "est. speedup 12%", or where removing the
        work recovers more (``fmt.less_work_first``) "est. speedup 96% with less work (<1% at today's work)";
        None where there is no estimate."""
        figures = fmt.less_work_first(self.estimated_speedup, self.estimated_speedup_less_work, 0)
        if figures is None:
            return None
        lead, today = figures
        return f"est. speedup {lead}" + (f" with less work ({today} at today's work)" if today is not None else "")


@dataclass(frozen=True)
class UnitUse:
    unit: str
    label: str
    source: str
    value: float


@dataclass(frozen=True)
class KernelRow:
    index: int
    report: str | None
    kernel_name: str | None
    display_name: str
    launches: int
    duration_ns: float | None
    mean_duration_ns: float | None
    share: float | None
    limiter: str | None
    compute_pipe: str | None
    regime: str | None
    #: Time-weighted verdict utilisation: the limiting unit's fraction of its peak ("% of roof").
    peak_fraction: float | None
    #: The verdict's reason on the kernel's longest launch of its verdict (else its longest launch).
    reason: str | None
    #: The NVTX range (op) most of the kernel's launches ran in, and how many distinct ones.
    nvtx: str | None
    nvtx_ranges: int
    hints: tuple[HintItem, ...]
    ncu_rules: tuple[HintItem, ...]
    utilization: tuple[UnitUse, ...]
    launch_rows: tuple[int, ...]
    #: Some launch's verdict is partial: a unit the export did not measure could change it.
    partial: bool = False
    #: Hint rules that lacked their evidence on the kernel's longest launch ("<rule>: <metric> not collected").
    not_checked: str | None = None

    @property
    def first_hint(self) -> HintItem | None:
        """Our most important hint, else ncu's rule with the largest estimated speedup where that is at least
        ``NCU_RULE_LEADS`` (a rule without one, or with a smaller one, leads no row)."""
        if self.hints:
            return self.hints[0]
        if not self.ncu_rules:
            return None
        rule = self.ncu_rules[0]  # ranked by its larger estimate (summary.kernel_hints)
        estimates = (rule.estimated_speedup, rule.estimated_speedup_less_work)
        best = max((x for x in estimates if x is not None), default=0.0)
        return rule if best >= NCU_RULE_LEADS else None


class LaunchRow(NamedTuple):
    """One launch of the report's launch table (a named tuple, not a frozen dataclass: a page of 10,240 launches
    builds its rows in 6 ms, not 55)."""

    position: int  # the launch's row in ``analysis.launches`` (``KernelRow.launch_rows`` hold these)
    kernel: int
    report: str | None
    process_id: int | None
    launch_id: int | None
    duration_ns: float | None
    limiter: str | None
    compute_pipe: str | None
    regime: str | None
    peak_fraction: float | None
    reason: str | None
    nvtx_path: str | None
    nvtx_op: str | None
    grid: str | None
    block: str | None
    hints: tuple[str, ...]
    #: The verdict stands on the measured units only (``unmeasured``: the units the export lacks).
    partial: bool = False
    unmeasured: tuple[str, ...] = ()
    #: The launches the row stands for: a summary page's group (its duration their mean), else 1.
    invocations: int = 1


@dataclass(frozen=True)
class RangeRow:
    report: str | None
    range: str | None
    launches: int
    kernels: int
    duration_ns: float | None
    share: float | None
    limiter: str | None
    regime: str | None


@dataclass(frozen=True)
class Finding:
    """A hint across the report: where it fires and how much GPU time that is."""

    hint: str
    label: str
    source: str
    severity: str | None
    launches: int
    kernels: int
    duration_ns: float | None
    share: float | None
    advice: str | None
    #: The kernels it fires on with the most GPU time (indices into ``ReportView.kernels``).
    top_kernels: tuple[int, ...]
    #: GPU time a fix could recover (sum of estimate x duration) and its share of the report's GPU time.
    recoverable_ns: float | None = None
    recoverable_share: float | None = None
    #: ... once the work the hint counts is removed (hints whose fix removes work; None for the others).
    recoverable_less_work_ns: float | None = None
    recoverable_less_work_share: float | None = None

    @property
    def ranked_share(self) -> float:
        """What the findings are ranked by: the larger of the two recoverable shares (0 where neither is known)."""
        return max(self.recoverable_share or 0.0, self.recoverable_less_work_share or 0.0)

    def recoverable_text(self) -> str | None:
        """The phrase "up to 7.0% of GPU time recoverable"; where removing the work the hint counts recovers more
        (as printed), that figure first: "up to 19.9% of GPU time recoverable with less work (<0.1% at today's
        work)" (a kernel at its roof gains nothing from the same work done faster); None where no estimate is
        known."""
        figures = fmt.less_work_first(self.recoverable_share, self.recoverable_less_work_share)
        if figures is None:
            return None
        lead, today = figures
        if today is not None:
            return f"up to {lead} of GPU time recoverable with less work ({today} at today's work)"
        return f"up to {lead} of GPU time recoverable"


@dataclass(frozen=True)
class MemoryRoof:
    level: str
    label: str
    peak_bytes_per_s: float
    ridge_intensity: float | None


@dataclass(frozen=True)
class ComputeRoof:
    """The roofs of one precision (and, for tensor, one data type) as one launch's peaks give them."""

    dtype: str | None
    label: str
    peak_flops: float
    memory: tuple[MemoryRoof, ...]
    #: The launch whose peaks these are (the median peak FLOP/s of the plotted launches).
    launch_id: int | None
    report: str | None
    #: The range of peak FLOP/s over the plotted launches (peaks follow each launch's clocks).
    peak_flops_min: float | None
    peak_flops_max: float | None
    #: The GPU whose roofs these are, where the chart has several GPUs' (their memory roofs are named after it).
    gpu: str | None = None


@dataclass(frozen=True)
class RooflinePoints:
    """Columnar: one entry per (launch, level) point, launches in report order, levels DRAM, L2, L1."""

    launch: list[int] = field(default_factory=list)
    kernel: list[int] = field(default_factory=list)
    level: list[str] = field(default_factory=list)
    intensity: list[float] = field(default_factory=list)
    flops: list[float] = field(default_factory=list)
    #: The launch's one "% of roof" figure (its limiter's score), as in the tables.
    roof_fraction: list[float | None] = field(default_factory=list)
    #: This point's own fraction of the roof above it (achieved over attainable at its level: where the chart
    #: draws it against the roofs).
    point_fraction: list[float | None] = field(default_factory=list)
    duration_ns: list[float | None] = field(default_factory=list)
    limiter: list[str | None] = field(default_factory=list)
    name: list[str] = field(default_factory=list)
    launch_id: list[int | None] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.launch)


@dataclass(frozen=True)
class RooflinePanel:
    precision: str
    label: str
    roofs: tuple[ComputeRoof, ...]
    points: RooflinePoints
    #: Launches with a point on this chart.
    launches: int
    #: Why the chart is empty (None when it has points).
    note: str | None
    #: Whether it is empty for what the export holds: its work was not collected (NOT_COLLECTED), or was (ncu's
    #: roofline chart rule ran) and this page leaves it out (NOT_EXPORTED); None otherwise.
    absent: str | None = None
    #: What the chart leaves out of the analysis' points, and why (FP16 register moves); None: nothing.
    left_out: str | None = None


@dataclass(frozen=True)
class ReportView:
    title: str
    header: Header
    lead: tuple[str, ...]
    by_limiter: tuple[TimeShare, ...]
    by_regime: tuple[TimeShare, ...]
    ranges: tuple[RangeRow, ...]
    kernels: tuple[KernelRow, ...]
    launches: tuple[LaunchRow, ...]
    top_kernels: tuple[int, ...]
    findings: tuple[Finding, ...]
    rooflines: tuple[RooflinePanel, ...]
    regime_help: str
    #: Largest launch duration (the marker-size scale of every roofline chart).
    max_duration_ns: float | None
    #: Launches some hint could not be checked on for want of its metrics (their ``not_checked``).
    unchecked_launches: int = 0
    #: Each hint rule that could not be checked on some launches, with those launches (``unchecked_note``).
    unchecked_rules: tuple[tuple[str, int], ...] = ()
    #: Each limiter's label on this report (``limiter_labels``: the DRAM limiter's follows its GPUs' memory).
    limiter_labels: Mapping[str, str] = field(default_factory=lambda: dict(LIMITER_LABELS))

    def limiter_label(self, value: str | None) -> str:
        """A limiter's label on this report (``limiter_label`` with ``limiter_labels``)."""
        return limiter_label(value, self.limiter_labels)


# ------------------------------------------------------------------------------------------------ helpers


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of a frame as dicts (column name -> value)."""
    return cast(list[dict[str, Any]], frame.to_dict(orient="records"))


def _col(frame: pd.DataFrame, name: str) -> list[Any]:
    """A column as a list of Python values, or all None when the frame lacks it."""
    if name in frame.columns:
        return frame[name].astype(object).tolist()
    return [None] * len(frame)


def _objects(values: np.ndarray, f: Any) -> list[Any]:
    return [f(v) for v in values.tolist()]


def _texts(frame: pd.DataFrame, name: str) -> list[str | None]:
    """``fmt.text`` over a column (each distinct text once for a string column); all None without the column."""
    if name not in frame.columns:
        return [None] * len(frame)
    s = frame[name]
    if isinstance(s.dtype, pd.StringDtype):
        codes, uniques = pd.factorize(s)
        table = np.empty(len(uniques) + 1, dtype=object)
        table[:-1] = [str(u) or None for u in uniques]
        table[-1] = None  # code -1: missing
        out: list[str | None] = table[codes].tolist()
        return out
    return _objects(s.astype(object).to_numpy(), fmt.text)


def _numbers(frame: pd.DataFrame, name: str) -> list[float | None]:
    """``fmt.number`` over a column: finite floats, else None; all None without the column."""
    if name not in frame.columns:
        return [None] * len(frame)
    s = frame[name]
    if not (pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)):
        return _objects(s.astype(object).to_numpy(), fmt.number)
    a = s.to_numpy(dtype=np.float64, na_value=np.nan)
    out = a.astype(object)
    out[~np.isfinite(a)] = None
    values: list[float | None] = out.tolist()
    return values


def _integers(frame: pd.DataFrame, name: str) -> list[int | None]:
    """``fmt.integer`` over a column: int(float(value)) where finite, else None; all None without the column."""
    if name not in frame.columns:
        return [None] * len(frame)
    s = frame[name]
    if not (pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)):
        return _objects(s.astype(object).to_numpy(), fmt.integer)
    a = s.to_numpy(dtype=np.float64, na_value=np.nan)
    ok = np.isfinite(a)
    out = np.trunc(np.where(ok, a, 0.0)).astype(np.int64).astype(object)
    out[~ok] = None
    values: list[int | None] = out.tolist()
    return values


def _launch_hints(
    launches: pd.DataFrame, hints: pd.DataFrame, codes: tuple[np.ndarray, np.ndarray] | None = None
) -> dict[int, tuple[str, ...]]:
    """Per launch (row of ``launches``), the ids of its hints (rows of ``hints`` with its LAUNCH_KEY), each once,
    in the order of the hint rows; launches without hints are left out. ``codes``: ``key_codes(launches, hints)``
    where the caller has them."""
    if not len(hints) or not len(launches):
        return {}
    launch_code, hint_code = key_codes(launches, hints) if codes is None else codes
    if "hint" not in hints.columns:
        return {}
    ids, names = pd.factorize(hints["hint"])  # each distinct id once; missing: -1
    table = np.array([*(str(u) or None for u in names), None], dtype=object)  # fmt.text: "" is no id
    rows = np.flatnonzero(pd.notna(table[ids]))
    # each (launch, id) once, at its first row; the launches' rows together, in row order
    width = max(len(names), 1)
    rows = rows[first_of_each(pd.factorize(hint_code[rows].astype(np.int64) * width + ids[rows])[0])]
    rows = rows[np.argsort(hint_code[rows], kind="stable")]
    code_of = hint_code[rows]
    texts = table[ids[rows]].tolist()
    starts = np.flatnonzero(np.r_[True, code_of[1:] != code_of[:-1]]) if len(rows) else np.zeros(0, dtype=np.int64)
    by_code = {
        int(code_of[a]): tuple(texts[a:b])
        for a, b in zip(starts.tolist(), [*starts[1:].tolist(), len(rows)], strict=True)
    }
    return {i: by_code[c] for i, c in enumerate(launch_code.tolist()) if c in by_code}


def _dims(x: Any, y: Any, z: Any, size: Any) -> str | None:
    xs = [fmt.integer(v) for v in (x, y, z)]
    if xs[0] is None:
        n = fmt.integer(size)
        return None if n is None else str(n)
    return "(" + ", ".join(str(v if v is not None else 1) for v in xs) + ")"


def _evidence(text: Any) -> tuple[dict[str, Any], ...]:
    s = fmt.text(text)
    if not s:
        return ()
    try:
        data = read_evidence(s)
    except ValueError:
        return ({"metric": s},)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        return ()
    return tuple(d for d in data if isinstance(d, dict))


# ------------------------------------------------------------------------------------------------ building


def _header(analysis: Analysis, summary: Summary) -> Header:
    src = analysis.report.source
    sources = tuple(
        SourceFile(
            report=fmt.text(r.get("report")) or "",
            path=fmt.text(r.get("path")),
            flavour=fmt.text(r.get("flavour")),
            ncu_version=fmt.text(r.get("ncu_version")),
            launches=fmt.integer(r.get("launches")),
            skipped=fmt.text(r.get("skipped")),
        )
        for r in _records(src)
    )
    lv = analysis.launches

    def gpu(name: Any, cc: Any) -> str:
        return (fmt.text(name) or "unknown device") + (f" (CC {fmt.text(cc)})" if fmt.text(cc) else "")

    # each distinct (GPU, CC) once, not a Python call per launch
    named = [c for c in ("device_name", "cc") if c in lv.columns]
    kinds = lv[named].drop_duplicates() if named else pd.DataFrame(index=range(min(len(lv), 1)))
    pairs = [(r.get("device_name"), r.get("cc")) for r in kinds.to_dict("records")]

    return Header(
        sources=sources,
        ncu_versions=tuple(dict.fromkeys(s.ncu_version for s in sources if s.ncu_version)),
        launches=summary.launches,
        kernels=len(summary.kernels),
        gpu_time_ns=summary.gpu_time_ns,
        untimed_launches=summary.untimed_launches,
        missing_peaks=peaks_note(analysis.peaks, launch_weights(analysis.launches), analysis.launches["device_name"]),
        gpus=tuple(dict.fromkeys(gpu(name, cc) for name, cc in pairs)),
        warnings=tuple(read_warnings(analysis.report)),
        averaged=_averaged_note(lv, [x.report for x in sources if x.flavour == "summary"]),
    )


def _averaged_note(launches: pd.DataFrame, reports: Sequence[str]) -> str | None:
    """Where some inputs are summary pages (``reports``), what their rows are: ncu's averages over a group of
    launches, so a row's verdict holds for all of its launches alike; None where none is, or where each row is
    one launch."""
    if not reports or "report" not in launches.columns:
        return None
    mine = launches["report"].isin(list(reports)).to_numpy(dtype=bool)
    rows = int(mine.sum())
    if not rows:
        return None
    total = round(float(launch_weights(launches)[mine].sum()))
    if total <= rows:  # a launch per row: its own figures
        return None
    page, their = ("A summary page", "its") if len(reports) == 1 else ("Summary pages", "their")
    return (
        f"{page}: {their} {rows:,} rows are ncu's averages over groups of launches ({total:,} in all; a kernel and "
        "launch shape each), so a row's verdict, % of roof and hints hold for all of its launches alike; the raw "
        "or details page gives each launch its own."
    )


def _time_shares(
    t: pd.DataFrame,
    column: str,
    known: Sequence[str],
    unmeasured: frozenset[str] = frozenset(),
    labels: Mapping[str, str] = LIMITER_LABELS,
) -> tuple[TimeShare, ...]:
    """The rows of ``Summary.by_limiter`` or ``by_regime``: the known values first (in their order, with 0
    where absent, or no time where no launch has a duration or, ``unmeasured``, where no launch measured that
    unit: not a 0), then any other value, then the unclassified launches."""
    rows = {fmt.text(r[column]): r for r in _records(t)}
    # the time and share of a value no launch has: none where no launch has a time at all, or where no launch has
    # any value (every launch unclassified: no regime is 0 % of the time, none was told)
    timed = any(fmt.number(r["share"]) is not None for r in rows.values())
    absent = 0.0 if timed and any(k is not None for k in rows) else None
    label: Callable[[str | None], str] = functools.partial(limiter_label, labels=labels)
    color = limiter_color
    if column != "limiter":
        label, color = regime_label, regime_color
    order = [*known, *sorted(k for k in rows if k is not None and k not in known)]
    if None in rows:
        order.append(None)  # type: ignore[arg-type]
    out = []
    for key in order:
        r = rows.get(key)
        none = None if key in unmeasured else absent  # a unit no launch measured has no share, not 0
        dur = fmt.number(r["duration_s"]) if r is not None else none
        out.append(
            TimeShare(
                key=key,
                label=label(key),
                duration_ns=None if dur is None else dur * 1e9,
                share=fmt.number(r["share"]) if r is not None else none,
                launches=fmt.integer(r["launches"]) or 0 if r is not None else 0,
                color=color(key),
            )
        )
    return tuple(out)


def _unchecked(analysis: Analysis) -> tuple[int, tuple[tuple[str, int], ...]]:
    """The launches (a summary group: its invocations) some hint could not be checked on (``not_checked``: "<rule>:
    <metric> not collected (<option>)", "; "-joined), and each such rule with the launches it could not be checked
    on, most launches first, then in the order the rules run. Each distinct text is read once."""
    v = analysis.verdicts
    if "not_checked" not in v.columns or not len(v):
        return 0, ()
    codes, texts = pd.factorize(v["not_checked"].astype("string").fillna(""))  # a few distinct texts
    weights = np.bincount(codes, weights=launch_weights(analysis.launches), minlength=len(texts))
    said = np.array([bool(t) for t in texts], dtype=bool)
    launches: dict[str, float] = {}
    for text, weight in zip(texts[said], weights[said], strict=True):
        for note in str(text).split("; "):
            rule = note.split(":", 1)[0]
            launches[rule] = launches.get(rule, 0.0) + float(weight)
    order = {rule: i for i, rule in enumerate(RULES)}
    ranked = sorted(launches.items(), key=lambda x: (-round(x[1]), order.get(x[0], len(order))))
    return round(float(weights[said].sum())), tuple((rule, round(n)) for rule, n in ranked)


def unchecked_note(rules: Sequence[tuple[str, int]]) -> str | None:
    """The hints that could not be checked, each with its launches (``_unchecked``), as the summaries say
    it beside the hints that fired (silence is not their absence): "Not checked (metrics not in the export): register
    spilling and tail effect on 382 launches, thread divergence on 306 (...)"; None where every rule had
    its evidence."""
    if not rules:
        return None
    groups: dict[int, list[str]] = {}
    for rule, n in rules:
        label = hint_label(rule)
        groups.setdefault(n, []).append(label if label[:2].isupper() else label[0].lower() + label[1:])
    parts = []
    for i, (n, labels) in enumerate(groups.items()):
        named = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + f" and {labels[-1]}"
        parts.append(f"{named} on {fmt.counted(n, 'launch', 'launches') if i == 0 else f'{n:,}'}")
    return (
        "Not checked (metrics not in the export): "
        + ", ".join(parts)
        + " (JSON `not_checked`: the metrics, the ncu options; or this tool's section: `ncu-roofline sections`)."
    )


#: Appended to the limiter of a partial verdict in the summaries' kernel tables (``classify``: ``partial``,
#: ``unmeasured``).
PARTIAL_MARK = "*"


def limiter_cell(view: ReportView, k: KernelRow) -> str:
    """A kernel's limiter as the summaries' kernel tables give it: its label, the compute pipe where one is
    named, and PARTIAL_MARK on a partial verdict (the tables put a latency- or launch-bound kernel's in
    parentheses: its busiest unit, not a limiter)."""
    return (
        view.limiter_label(k.limiter)
        + (f" {k.compute_pipe}" if k.compute_pipe and k.compute_pipe != "other" else "")
        + (PARTIAL_MARK if k.partial and k.limiter else "")
    )


def table_notes(kernels: Sequence[KernelRow]) -> list[str]:
    """What the summaries say under their kernel table of ``kernels``: why a kernel has no verdict (each reason
    once, the first two in the table's order), and what the partial mark means where a row has it."""
    unclassified = (k.reason for k in kernels if not k.limiter and k.reason and k.reason.startswith("no "))
    out = [f"unclassified: {reason}" for reason in list(dict.fromkeys(unclassified))[:2]]
    if any(k.partial and k.limiter for k in kernels):
        out.append(
            f"{PARTIAL_MARK} partial verdict: a unit the export did not measure could be busier (JSON `unmeasured`)."
        )
    return out


def hints_note(view: ReportView, kernels: Sequence[KernelRow]) -> str | None:
    """What the summaries say of the hints that could not be checked (the ``kernels`` shown: where ncu's rules
    lead some of them): beside the hints that fired, which ones and on how many launches (``unchecked_note``);
    where none of this tool's fired, that none did and that some could not be checked. None where every rule
    had its evidence."""
    ours = [f for f in view.findings if f.source != NCU_SOURCE]
    if ours:
        return unchecked_note(view.unchecked_rules)
    if not view.unchecked_launches:
        return None
    if not view.findings:
        none = "No hint fired"
    elif any(k.first_hint is not None for k in kernels):  # shown in the table (its column, or a line under it)
        none = "No hint of this tool fired (ncu's rules did: each kernel's first hint above)"
    else:  # ncu's rules without an estimate that would lead a kernel's hints
        none = "No hint of this tool fired (ncu's rules did: the HTML report and --format json list them)"
    launches = fmt.counted(view.unchecked_launches, "launch", "launches")
    return (
        f"{none}, but some could not be checked on {launches}: their metrics are not in the export "
        "(--format json: each launch's not_checked; or this tool's section: `ncu-roofline sections`)."
    )


def _never_measured(verdicts: pd.DataFrame) -> frozenset[str]:
    """The limiters (hbm, l2, l1, compute) that every launch has among its unmeasured units."""
    if not len(verdicts) or "unmeasured" not in verdicts.columns:
        return frozenset()
    texts = set(verdicts["unmeasured"].astype("string").fillna("").unique().tolist())  # a few distinct lists
    return frozenset(k for k in LIMITERS if all(k in str(t).split(", ") for t in texts))


def _kernel_hint_items(hints: pd.DataFrame) -> dict[int, tuple[tuple[HintItem, ...], tuple[HintItem, ...]]]:
    """Per kernel (its ``kernel`` number), our hints and ncu's rules from the ``Summary.kernel_hints`` rows (already
    in order). Each column is formatted as a whole; each distinct hint label and evidence text is made once."""
    if not len(hints):
        return {}
    names = [h or "" for h in _texts(hints, "hint")]
    sources = [x or "" for x in _texts(hints, "source")]
    labels = {h: hint_label(h) for h in dict.fromkeys(names)}
    evidence_texts = _texts(hints, "evidence")
    evidence = {t: _evidence(t) for t in dict.fromkeys(evidence_texts)}
    items = [
        HintItem(
            hint=hint,
            label=labels[hint],
            source=source,
            severity=severity,
            message=message,
            advice=advice,
            evidence=evidence[ev],
            estimated_speedup=speedup,
            estimated_speedup_less_work=less,
            launches=launches or 0,
            launch_id=launch_id,
        )
        for hint, source, severity, message, advice, ev, speedup, less, launches, launch_id in zip(
            names,
            sources,
            _texts(hints, "severity"),
            _texts(hints, "message"),
            _texts(hints, "advice"),
            evidence_texts,
            _numbers(hints, "estimated_speedup"),
            _numbers(hints, "estimated_speedup_less_work"),
            _integers(hints, "launches"),
            _integers(hints, "launch_id"),
            strict=True,
        )
    ]
    ours: dict[int, list[HintItem]] = {}
    ncu: dict[int, list[HintItem]] = {}
    for kernel, item in zip(hints["kernel"].astype(object).tolist(), items, strict=True):
        (ncu if item.source == NCU_SOURCE else ours).setdefault(int(kernel), []).append(item)
    return {k: (tuple(ours.get(k, ())), tuple(ncu.get(k, ()))) for k in dict.fromkeys([*ours, *ncu])}


#: A unit's place in UNIT_ORDER (units not in it after every one that is).
_UNIT_RANK = {u: i for i, u in enumerate(UNIT_ORDER)}


def _kernel_utilization(
    util: pd.DataFrame, limiters: Mapping[str, str] = LIMITER_LABELS
) -> dict[tuple[str | None, str | None], tuple[UnitUse, ...]]:
    """Per (report, kernel name) of the ``Summary.kernel_utilization`` rows, their UnitUse in UNIT_ORDER: the
    rows with a unit and a finite value, less the idle pipes. Each column is formatted as a whole."""
    if not len(util):
        return {}
    units = _texts(util, "unit")
    labels = {u: unit_label(u, limiters) for u in dict.fromkeys(units) if u is not None}
    of: dict[tuple[str | None, str | None], list[UnitUse]] = {}
    for key, unit, source, v in zip(
        zip(_texts(util, "report"), _texts(util, "kernel_name"), strict=True),
        units,
        _texts(util, "source"),
        _numbers(util, "value"),
        strict=True,
    ):
        if v is None or unit is None or (v < IDLE_PIPE and unit.startswith("pipe_")):
            continue
        of.setdefault(key, []).append(UnitUse(unit=unit, label=labels[unit], source=source or "", value=v))
    last = len(_UNIT_RANK)
    return {
        key: tuple(sorted(items, key=lambda u: (_UNIT_RANK.get(u.unit, last), u.unit, u.source)))
        for key, items in of.items()
    }


def _longest_launches(kernel_of: np.ndarray, durations: Sequence[float | None], kernels: int) -> np.ndarray:
    """Per kernel, the position of its longest launch (the first of the longest; a launch without a duration
    counts as 0), -1 for a kernel without launches."""
    out = np.full(kernels, -1, dtype=np.int64)
    if not len(kernel_of):
        return out
    d = np.array([0.0 if x is None else x for x in durations], dtype=np.float64)
    order = np.lexsort((np.arange(len(d)), -d, kernel_of))
    k = kernel_of[order]
    first = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    out[k[first]] = order[first]
    return out


def _positions(
    frame: pd.DataFrame, launches: pd.DataFrame, codes: tuple[np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """For each row of ``frame`` (LAUNCH_KEY columns), the position of its launch in ``launches``; -1 if none.
    ``codes``: ``key_codes(launches, frame)`` where the caller has them."""
    if not len(frame):
        return np.zeros(0, dtype=np.int64)
    if not len(launches):
        return np.full(len(frame), -1, dtype=np.int64)
    launch, rows = key_codes(launches, frame) if codes is None else codes
    pos: np.ndarray = pd.Index(launch).get_indexer(rows)
    return pos.astype(np.int64)


def _units(value: Any) -> tuple[str, ...]:
    """A comma-separated ``unmeasured`` verdict value as a tuple."""
    text = fmt.text(value)
    return tuple(x.strip() for x in text.split(",")) if text else ()


def _floats(frame: pd.DataFrame, column: str) -> np.ndarray:
    if column not in frame.columns:
        return np.full(len(frame), np.nan)
    out: np.ndarray = pd.to_numeric(frame[column], errors="coerce").astype("float64").to_numpy(na_value=np.nan)
    return out


#: ``RooflinePanel.absent``: the chart's work was not collected, or collected and left out of this page, or
#: counted without a duration to make FLOP/s of it.
NOT_COLLECTED, NOT_EXPORTED, NO_DURATION = "not collected", "not exported", "no duration"

#: The roofline columns a chart reads.
PANEL_COLUMNS = (
    "achieved_flops", "intensity", "level", "dtype", "series", "peak_flops", "peak_bytes_per_s", "ridge_intensity",
    "roof_fraction",
)  # fmt: skip
#: A tensor series' instruction as a roof names it: on Hopper the warpgroup MMA (wgmma, HGMMA) has a higher roof
#: than the warp-level one (mma.sync, HMMA) for the same data type (the H200's BF16: 978 and 652 TFLOP/s).
TENSOR_OPS = {
    "hmma": "HMMA (mma.sync)", "hgmma": "HGMMA (wgmma)", "imma": "IMMA (mma.sync)", "igmma": "IGMMA (wgmma)",
    "dmma": "DMMA", "bmma": "BMMA", "bgmma": "BGMMA (wgmma)",
}  # fmt: skip


def _tensor_op(series: object) -> str | None:
    """The instruction of a tensor series (``op_hgmma_src_bf16_...`` -> ``hgmma``); None where it names none."""
    parsed = parse_series(str(series)) if isinstance(series, str) else None
    return None if parsed is None or not parsed.op else str(parsed.op)


def _roofline_panel(
    precision: str,
    roof: pd.DataFrame,
    roof_pos: np.ndarray,
    launches: Sequence[LaunchRow],
    kernels: Sequence[KernelRow],
    chart_ran: bool = False,
    gpus: np.ndarray | None = None,
    untimed: frozenset[str] = frozenset(),
) -> RooflinePanel:
    """The chart of one precision: its points (one per launch and level with work and a finite intensity) and
    its roofs (per data type, the peaks of the plotted launch with the median peak FLOP/s; per data type and GPU
    where the plotted launches ran on several: ``gpus``, each launch's GPU name by position). ``chart_ran``:
    ncu's roofline chart rule ran for some launch (the FP32 and FP64 work was collected, shown on this page or
    not); ``untimed``: the precisions whose instruction counts the export has though no launch has a duration
    (``--metrics`` without ``gpu__time_duration.sum``)."""
    label = PRECISION_LABELS.get(precision, precision)
    section = PRECISION_SECTIONS.get(precision, "")
    empty = RooflinePanel(precision, label, (), RooflinePoints(), 0, None)
    if "precision" not in roof.columns or not len(roof):
        return replace(empty, note=f"No {label} roofline in this analysis.")
    sel = (roof["precision"] == precision).fillna(False).to_numpy(dtype=bool)
    if not sel.any():
        return replace(empty, note=f"No {label} roofline in this analysis.")
    left_out = None
    if precision == "fp16":  # HFMA2.MMA register moves in integer/FP32 kernels are not FP16 work
        moves = sel & fp16_register_moves(roof)
        sel &= ~moves
        if not sel.any():
            return replace(empty, note=f"No launch does {label} work (FP16 instructions counted are register moves).")
        with np.errstate(invalid="ignore"):
            work = _floats(roof, "achieved_flops") > 0  # a row of no FP16 work is not drawn anyway
        moved = len(np.unique(roof_pos[moves & work]))
        if moved:
            left_out = (
                f"Not drawn: {fmt.counted(moved, 'launch', 'launches')} whose FP16 instructions are register moves "
                "(HFMA2.MMA in integer and FP32 code), not FP16 work; the JSON keeps their points."
            )
    r = roof.loc[sel, [c for c in PANEL_COLUMNS if c in roof.columns]]  # the columns read below only
    pos = roof_pos[sel]
    flops = _floats(r, "achieved_flops")
    if np.isnan(flops).all():
        if precision in untimed:
            note = (
                f"{label} work was counted (its instructions are in the export), but no launch that counted it has "
                f"a duration to make FLOP/s of it: add {DURATION_METRIC} to --metrics (or profile with --section "
                f"{section})."
            )
            return replace(empty, note=note, absent=NO_DURATION)
        if chart_ran and precision in ROOFLINE_RULE_PRECISIONS:
            note = (
                f"{label} work is not on this page, though ncu collected it (its {ROOFLINE_RULE} rule ran): export "
                f"the report's raw page ({RAW_EXPORT})."
            )
            return replace(empty, note=note, absent=NOT_EXPORTED)
        note = (
            f"{label} work is not in this export: profile with --section {section} (or --set {ROOFLINE_SET}), or "
            "export the raw page of a report made with it."
        )
        return replace(empty, note=note, absent=NOT_COLLECTED)
    if not (flops > 0).any():
        return replace(empty, note=f"No launch executed {label} instructions.")
    x = _floats(r, "intensity")
    with np.errstate(invalid="ignore"):
        ok = (pos >= 0) & (flops > 0) & np.isfinite(flops) & np.isfinite(x) & (x > 0)
    if not ok.any():
        note = f"No launch has a finite {label} arithmetic intensity (no memory traffic measured)."
        return replace(empty, note=note)
    levels = r["level"].astype(object).where(r["level"].notna(), "").to_numpy()
    rank = np.array([LEVELS.index(lv) if lv in LEVELS else len(LEVELS) for lv in levels])
    idx = np.flatnonzero(ok)
    idx = idx[np.lexsort((rank[idx], pos[idx]))]
    # "% of roof" is the launch's one figure (the limiter's score), the same as in the tables; the point's own
    # position against the roof above it is beside it (fp32_fma: limiter 99.8 % by the SM's throughput, its point
    # at 91 % of the FP32 roof)
    frac = np.array([np.nan if launches[p].peak_fraction is None else launches[p].peak_fraction for p in pos[idx]])
    own = _floats(r, "roof_fraction")[idx]
    pts = RooflinePoints(
        launch=pos[idx].tolist(),
        kernel=[launches[p].kernel for p in pos[idx]],
        level=[str(v) for v in levels[idx]],
        intensity=x[idx].tolist(),
        flops=flops[idx].tolist(),
        roof_fraction=[None if np.isnan(v) else float(v) for v in frac],
        point_fraction=[None if np.isnan(v) else float(v) for v in own],
        duration_ns=[launches[p].duration_ns for p in pos[idx]],
        limiter=[launches[p].limiter for p in pos[idx]],
        name=[kernels[launches[p].kernel].display_name for p in pos[idx]],
        launch_id=[launches[p].launch_id for p in pos[idx]],
    )
    plotted = np.unique(pos[idx])

    # The roofs: per data type, the peaks of the plotted launch with the median peak FLOP/s.
    on = np.isin(pos, plotted)
    part = r[on]
    ppos = pos[on]
    dtypes = (
        part["dtype"].astype(object).where(part["dtype"].notna(), None).tolist()
        if "dtype" in part.columns
        else [None] * len(part)
    )
    if precision == "tensor" and "series" in part.columns:  # one roof per data type and instruction
        series = part["series"].astype(object).tolist()
        dtypes = [None if d is None or pd.isna(d) else (d, _tensor_op(x)) for d, x in zip(dtypes, series, strict=True)]
    plevels = levels[on]
    peaks = _floats(part, "peak_flops")
    bws = _floats(part, "peak_bytes_per_s")
    ridges = _floats(part, "ridge_intensity")
    # each row's GPU ("" where not named): one set of roofs per GPU where the launches ran on several
    row_gpu = np.full(len(ppos), "", dtype=object)
    if gpus is not None and len(ppos):
        named = gpus[ppos]
        row_gpu = np.where(pd.isna(named), "", named).astype(object)
    roofs = []
    for dtype in dict.fromkeys(dtypes):
        mine = np.array([d == dtype for d in dtypes], dtype=bool)
        dram = plevels == Level.DRAM.value
        base = mine & dram if (mine & dram).any() else mine
        cand = np.flatnonzero(base & np.isfinite(peaks) & (peaks > 0))
        if not len(cand):
            continue
        plain, op = dtype if isinstance(dtype, tuple) else (dtype, None)
        dt = fmt.text(plain)
        name = label if precision != "tensor" or not dt else f"{label} {dt.upper()}"
        name += f" {TENSOR_OPS.get(op, op.upper())}" if name != label and op else ""
        on_gpus = [str(g) for g in pd.unique(row_gpu[cand])]  # in order of first appearance
        for gpu in on_gpus:
            theirs = cand[row_gpu[cand] == gpu]
            order = theirs[np.argsort(peaks[theirs], kind="stable")]
            chosen = order[(len(order) - 1) // 2]
            launch = ppos[chosen]
            memory = []
            for level in LEVELS:
                at = np.flatnonzero(mine & (ppos == launch) & (plevels == level))
                if not len(at):
                    continue
                bw = fmt.number(bws[at[0]])
                if bw is None or bw <= 0:
                    continue
                memory.append(MemoryRoof(level, LEVEL_LABELS[level], bw, fmt.number(ridges[at[0]])))
            roofs.append(
                ComputeRoof(
                    dtype=dt,
                    label=name if len(on_gpus) == 1 else f"{name} · {gpu or 'unknown GPU'}",
                    peak_flops=float(peaks[chosen]),
                    memory=tuple(memory),
                    launch_id=launches[launch].launch_id,
                    report=launches[launch].report,
                    peak_flops_min=fmt.number(peaks[theirs].min()),
                    peak_flops_max=fmt.number(peaks[theirs].max()),
                    gpu=None if len(on_gpus) == 1 else gpu or "unknown GPU",
                )
            )
    return RooflinePanel(precision, label, tuple(roofs), pts, len(plotted), None, left_out=left_out)


#: What the lead calls the units a verdict may lack (``classify.UNMEASURED_UNITS``) other than the memory levels
#: (those by the report's limiter labels: HBM or DRAM).
UNMEASURED_LABELS = {
    "compute": "compute",
    "sm": "the SM's integer, tensor and issue work",
    "shared": "L1's shared-memory work",
    "l2_other": "L2's atomics, tag lookups and fills",
}


def _partial_caution(launches: Sequence[LaunchRow], regimes: set[str | None], labels: dict[str, str]) -> str | None:
    """Where some of the GPU time of the launches of ``regimes`` (latency- and launch-bound) stands on partial
    verdicts (a unit the export did not measure: ``unmeasured``), the lead's caution: that share of their time
    and the units (named by ``labels``, the limiters', and UNMEASURED_LABELS); None where none does."""
    slow = [r for r in launches if r.regime in regimes and r.duration_ns is not None and r.duration_ns > 0]
    total = sum((r.duration_ns or 0.0) * r.invocations for r in slow)  # a summary group: its launches' time
    partial = [r for r in slow if r.partial]
    if not partial or total <= 0:
        return None
    share = sum((r.duration_ns or 0.0) * r.invocations for r in partial) / total
    order = {u: i for i, u in enumerate(UNMEASURED_UNITS)}
    units = sorted({u for r in partial for u in r.unmeasured}, key=lambda u: order.get(u, len(order)))
    named = [UNMEASURED_LABELS.get(u) or labels.get(u, u) for u in units]
    what = f" ({', '.join(named)})" if named else ""
    return (
        f"For {fmt.percent(share)} of that time the verdicts are partial: a unit the export did not "
        f"measure{what} could be at its bound."
    )


def _lead(view_parts: dict[str, Any]) -> tuple[str, ...]:
    """The first screen's sentences: where the time goes and what to look at first."""
    header: Header = view_parts["header"]
    by_limiter: tuple[TimeShare, ...] = view_parts["by_limiter"]
    by_regime: tuple[TimeShare, ...] = view_parts["by_regime"]
    kernels: tuple[KernelRow, ...] = view_parts["kernels"]
    ranges: tuple[RangeRow, ...] = view_parts["ranges"]
    findings: tuple[Finding, ...] = view_parts["findings"]
    out = []
    if header.gpu_time_ns is None or not header.launches:
        return ("No launch has a duration: the report has no GPU time to attribute.",)
    reg = {t.key: t for t in by_regime}
    slow = [t for t in (reg.get("latency"), reg.get("launch")) if t is not None and (t.share or 0) > 0]
    if any((t.share or 0) >= LEAD_MIN_SHARE for t in slow):
        under = f"below {fmt.percent(BOUND_THRESHOLD, 0)} of its peak"
        parts = " and ".join(f"{fmt.percent(t.share)} {t.key}-bound" for t in slow)
        caution = _partial_caution(view_parts["launches"], {t.key for t in slow}, view_parts["limiter_labels"])
        out.append(
            f"{parts[0].upper()}{parts[1:]} GPU time: those launches keep every {'measured ' if caution else ''}"
            f"unit {under}, so more work per launch (occupancy, larger grids) or fewer, fused launches help them "
            "more than a faster unit would." + (f" {caution}" if caution else "")
        )
    # the largest row of all (bound limiters, latency- and launch-bound time) leads
    lim = sorted((t for t in by_limiter if t.key is not None and (t.share or 0) > 0), key=lambda t: -(t.share or 0))
    if lim:
        top = lim[0]
        unbound = top.key in UNBOUND_LABELS
        kernels_top = [
            k for k in kernels if (k.regime == top.key if unbound else (k.limiter == top.key and k.regime == "bound"))
        ][:2]
        names = " and ".join(k.display_name for k in kernels_top)
        what = f"{top.label} launches hold the most GPU time" if unbound else f"{top.label} limits the most GPU time"
        out.append(f"{what} ({fmt.percent(top.share)})" + (f", led by {names}." if names else "."))
    named = [r for r in ranges if r.range is not None][:2]
    if named:
        out.append(
            "Ranges with the most GPU time: " + " and ".join(f"{r.range} ({fmt.percent(r.share)})" for r in named) + "."
        )
    ours = [f for f in findings if f.source != NCU_SOURCE]
    if ours:
        out.append(
            "Hints: "
            + "; ".join(
                f"{f.label.lower()} on {fmt.counted(f.kernels, 'kernel')} "
                + (
                    f"({f.recoverable_text()}, {fmt.percent(f.share)} touched)"
                    if f.recoverable_share is not None
                    else f"({fmt.percent(f.share)} of GPU time)"
                )
                for f in ours[:3]
            )
            + "."
        )
    return tuple(out)


def _regime_help() -> str:
    """What the regimes mean, with the classifier's own thresholds (imported, so a renamed one fails mypy)."""
    return (
        f"Bound: the limiter unit runs at or above {fmt.percent(BOUND_THRESHOLD, 0)} of its peak, so that roof "
        "holds the kernel. Latency: every unit runs below that, the kernel waits (occupancy, dependencies, too "
        f"few threads). Launch: shorter than {fmt.duration_ns(LAUNCH_DURATION_S * 1e9)} with every unit under "
        f"{fmt.percent(BOUND_THRESHOLD, 0)}, launch overhead dominates."
    )


def _launch_rows(
    analysis: Analysis, lv: pd.DataFrame, v: pd.DataFrame, summary: Summary, shared: LaunchKeys | None
) -> list[LaunchRow]:
    """One row object per launch (``lv``: the launches, ``v``: their verdicts, both in launch order), every column
    formatted as a whole (each distinct text once); ``shared``: the summary's launch key codes, if of this
    analysis."""
    n = len(lv)
    hint_ids = _launch_hints(lv, analysis.hints, None if shared is None else shared.codes("hints"))
    ints = {c: _integers(lv, c) for c in ("grid_x", "grid_y", "grid_z", "grid_size", "block_x", "block_y", "block_z")}
    ints["block_size"] = _integers(lv, "block_size")
    nvtx_paths = _texts(lv, "nvtx_path")
    ops = {p: nvtx_op(p, depth=None) for p in dict.fromkeys(nvtx_paths) if p is not None}
    grid = list(zip(ints["grid_x"], ints["grid_y"], ints["grid_z"], ints["grid_size"], strict=True))
    block = list(zip(ints["block_x"], ints["block_y"], ints["block_z"], ints["block_size"], strict=True))
    dims = {d: _dims(*d) for d in dict.fromkeys([*grid, *block])}
    texts = {c: _texts(v, c) for c in ("limiter", "compute_pipe", "regime", "reason")}
    unmeasured = _col(v, "unmeasured")
    units = {u: _units(u) for u in dict.fromkeys(unmeasured)}  # by the unmeasured text (or its missing value)
    return list(
        map(
            LaunchRow,  # the fields in their order
            range(n),
            summary.launch_kernel.tolist(),
            _texts(lv, "report"),
            _integers(lv, "process_id"),
            _integers(lv, "launch_id"),
            _numbers(lv, "duration_ns"),
            texts["limiter"],
            texts["compute_pipe"],
            texts["regime"],
            _numbers(v, "utilization"),
            texts["reason"],
            nvtx_paths,
            [None if p is None else ops[p] for p in nvtx_paths],
            [dims[d] for d in grid],
            [dims[d] for d in block],
            [hint_ids.get(i, ()) for i in range(n)],
            [x is True for x in _col(v, "partial")],  # <NA>: False
            [units[u] for u in unmeasured],
            np.rint(launch_weights(lv)).astype(np.int64).tolist(),
        )
    )


def _kernel_rows(
    summary: Summary, v: pd.DataFrame, launch_rows: list[LaunchRow], limiters: Mapping[str, str]
) -> list[KernelRow]:
    """The summary's kernel rows with their utilisation, hints and launches (``v``: the verdicts in launch order),
    every column formatted as a whole."""
    sk = summary.kernels
    members: list[list[int]] = [[] for _ in range(len(sk))]
    if len(sk):
        order = np.argsort(summary.launch_kernel, kind="stable")
        counts = np.bincount(summary.launch_kernel, minlength=len(sk))
        members = [part.tolist() for part in np.split(order, np.cumsum(counts)[:-1])]
    gkey = list(zip(_texts(sk, "report"), _texts(sk, "kernel_name"), strict=True))
    util_of = _kernel_utilization(summary.kernel_utilization, limiters)
    hints_of = _kernel_hint_items(summary.kernel_hints)
    base_names = [
        name or (short_name(kname) if kname else None) or "(unnamed kernel)"
        for name, (_, kname) in zip(_texts(sk, "display_name"), gkey, strict=True)
    ]
    names = fmt.unique_names(base_names, [r or "" for r, _ in gkey])
    nc = _texts(v, "not_checked")
    partial = np.array([r.partial for r in launch_rows], dtype=bool)
    partial_kernel = np.zeros(len(sk), dtype=bool)
    partial_kernel[summary.launch_kernel[partial]] = True
    longest = _longest_launches(summary.launch_kernel, [r.duration_ns for r in launch_rows], len(sk)).tolist()
    counts_of = _integers(sk, "launches")
    nvtx_ranges = _integers(sk, "nvtx_ranges")
    num = {c: _numbers(sk, c) for c in ("duration_ns", "mean_duration_ns", "share", "peak_fraction")}
    txt = {c: _texts(sk, c) for c in ("limiter", "compute_pipe", "regime", "reason", "nvtx")}
    no_hints: tuple[tuple[HintItem, ...], tuple[HintItem, ...]] = ((), ())
    kernels = []
    for i in range(len(sk)):
        ours, ncu = hints_of.get(i, no_hints)
        kernels.append(
            KernelRow(
                index=i,
                report=gkey[i][0],
                kernel_name=gkey[i][1],
                display_name=names[i],
                launches=counts_of[i] or len(members[i]),
                duration_ns=num["duration_ns"][i],
                mean_duration_ns=num["mean_duration_ns"][i],
                share=num["share"][i],
                limiter=txt["limiter"][i],
                compute_pipe=txt["compute_pipe"][i],
                regime=txt["regime"][i],
                peak_fraction=num["peak_fraction"][i],
                reason=txt["reason"][i],
                nvtx=txt["nvtx"][i],
                nvtx_ranges=nvtx_ranges[i] or 0,
                hints=ours,
                ncu_rules=ncu,
                utilization=util_of.get(gkey[i], ()),
                launch_rows=tuple(members[i]),
                partial=bool(partial_kernel[i]),
                not_checked=None if longest[i] < 0 else nc[longest[i]],
            )
        )
    return kernels


def _range_rows(summary: Summary) -> tuple[RangeRow, ...]:
    return tuple(
        RangeRow(
            report=fmt.text(r.get("report")),
            range=fmt.text(r.get("range")),
            launches=fmt.integer(r.get("launches")) or 0,
            kernels=fmt.integer(r.get("kernels")) or 0,
            duration_ns=fmt.number(r.get("duration_ns")),
            share=fmt.number(r.get("share")),
            limiter=fmt.text(r.get("limiter")),
            regime=fmt.text(r.get("regime")),
        )
        for r in _records(summary.ranges)
    )


def _findings(summary: Summary, kernels: list[KernelRow]) -> list[Finding]:
    """Each hint across the report, with the kernels holding the most time first: ours first (they carry
    advice), then ncu's rules, each by recoverable GPU time (the larger of the two), then by time touched."""
    kernels_with: dict[tuple[str, str], list[int]] = {}  # (hint, source) -> the kernels with it, in order
    # per kernel: hint -> (the GPU time its first item of that hint with advice could recover, that advice)
    advice_of: list[dict[str, tuple[float, str]]] = []
    for k in kernels:
        advice_of.append({})
        for h in (*k.hints, *k.ncu_rules):
            with_it = kernels_with.setdefault((h.hint, h.source), [])
            if not with_it or with_it[-1] != k.index:
                with_it.append(k.index)
            if h.advice:
                estimate = max(h.estimated_speedup or 0.0, h.estimated_speedup_less_work or 0.0)
                advice_of[-1].setdefault(h.hint, (estimate * (k.duration_ns or 0.0), h.advice))
    findings = []
    for r in _records(summary.findings):
        hint, source = fmt.text(r.get("hint")) or "", fmt.text(r.get("source")) or ""
        with_it = kernels_with.get((hint, source), [])
        # the advice of the kernel whose fix recovers the most (a rule advises by launch: train_step's small grids
        # on launch-bound launches want fewer launches, its 24-block GammaBetaBackward more blocks); the first
        # kernel by GPU time among equals
        given = [advice_of[i][hint] for i in with_it if hint in advice_of[i]]
        advice = max(given, key=lambda g: g[0])[1] if given else None
        findings.append(
            Finding(
                hint=hint,
                label=hint_label(hint),
                source=source,
                severity=fmt.text(r.get("severity")),
                launches=fmt.integer(r.get("launches")) or 0,
                kernels=fmt.integer(r.get("kernels")) or 0,
                duration_ns=fmt.number(r.get("duration_ns")),
                share=fmt.number(r.get("share")),
                advice=advice,
                top_kernels=tuple(with_it[:3]),
                recoverable_ns=fmt.number(r.get("recoverable_ns")),
                recoverable_share=fmt.number(r.get("recoverable_share")),
                recoverable_less_work_ns=fmt.number(r.get("recoverable_less_work_ns")),
                recoverable_less_work_share=fmt.number(r.get("recoverable_less_work_share")),
            )
        )
    findings.sort(key=lambda f: (f.source == NCU_SOURCE, -f.ranked_share, -(f.share or 0.0), f.hint))
    return findings


def build_view(
    analysis: Analysis, summary: Summary | None = None, *, title: str | None = None, top: int = TOP_KERNELS
) -> ReportView:
    """The view model of ``analysis`` (see the module docstring): selects and formats from ``summary``
    (``ncu_roofline.summary.summarize(analysis)`` unless given) and the analysis frames; computes nothing."""
    summary = summarize(analysis) if summary is None else summary
    lv = analysis.launches.reset_index(drop=True)
    v = analysis.verdicts.reset_index(drop=True)
    if len(v) != len(lv):  # a verdict frame out of step with the launches: use none rather than misalign
        v = pd.DataFrame(index=range(len(lv)))
    shared = summary.keys if summary.keys.analysis is analysis else None  # its key codes, if of this analysis
    launch_rows = _launch_rows(analysis, lv, v, summary, shared)
    limiters = limiter_labels(analysis)
    kernels = _kernel_rows(summary, v, launch_rows, limiters)
    never = _never_measured(analysis.verdicts)
    by_limiter = _time_shares(summary.by_limiter, "limiter", (*LIMITERS, *UNBOUND_LABELS), never, limiters)
    by_regime = _time_shares(summary.by_regime, "regime", REGIMES)
    header = _header(analysis, summary)
    ranges = _range_rows(summary)
    findings = _findings(summary, kernels)

    roof = analysis.roofline
    roof_pos = _positions(roof, lv, None if shared is None else shared.codes("roofline"))
    chart_ran = rule_ran_anywhere(analysis.report.rules, ROOFLINE_RULE)
    gpus = lv["device_name"].to_numpy(dtype=object) if "device_name" in lv.columns else None
    durations = [r.duration_ns for r in launch_rows if r.duration_ns is not None]
    untimed = frozenset(counted_precisions(analysis.report.values, analysis.quantities["duration"]))
    rooflines = tuple(
        _roofline_panel(p, roof, roof_pos, launch_rows, kernels, chart_ran, gpus, untimed) for p in PRECISIONS
    )
    if title is None:
        paths = [s.path or s.report for s in header.sources]
        title = ", ".join(p.replace("\\", "/").rsplit("/", 1)[-1] for p in paths) or "ncu-roofline report"
    parts = {
        "header": header,
        "by_limiter": by_limiter,
        "by_regime": by_regime,
        "kernels": tuple(kernels),
        "ranges": ranges,
        "findings": tuple(findings),
        "launches": launch_rows,
        "limiter_labels": limiters,
    }
    unchecked = _unchecked(analysis)
    return ReportView(
        title=title,
        header=header,
        lead=_lead(parts),
        by_limiter=by_limiter,
        by_regime=by_regime,
        ranges=ranges,
        kernels=tuple(kernels),
        launches=tuple(launch_rows),
        top_kernels=tuple(range(min(top, len(kernels)))),
        findings=tuple(findings),
        rooflines=rooflines,
        regime_help=_regime_help(),
        max_duration_ns=max(durations) if durations else None,
        unchecked_launches=unchecked[0],
        unchecked_rules=unchecked[1],
        limiter_labels=limiters,
    )
