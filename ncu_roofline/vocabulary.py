"""The words of the analysis, declared once: limiters, regimes, precisions, memory levels, severities, flavours.

Each is a ``StrEnum``, so a member is the plain string the frames, the JSON and the page carry (``Limiter.HBM ==
"hbm"``) and code that reads a frame compares with the member, never with a string typed again. The display
labels and the order things are shown in live here too.

One unit, two words: the device memory is a *limiter* named ``hbm`` (what the user buys and reads about) and a
roofline *level* named ``dram`` (ncu's own word: ``dram__bytes``, "DRAM" in its charts). Both spellings stay in
the output, for compatibility; :data:`LEVEL_OF_LIMITER` and :data:`LIMITER_OF_LEVEL` are the one place they are
tied together.
"""

from __future__ import annotations

from enum import StrEnum


class Limiter(StrEnum):
    """The unit that limits a launch."""

    HBM = "hbm"
    L2 = "l2"
    L1 = "l1"
    COMPUTE = "compute"


class Regime(StrEnum):
    """Why a launch takes its time: a unit near its roof, waiting, or too short to amortise its launch."""

    BOUND = "bound"
    LATENCY = "latency"
    LAUNCH = "launch"


class Precision(StrEnum):
    """The compute roofs: one chart each."""

    FP64 = "fp64"
    FP32 = "fp32"
    FP16 = "fp16"
    TENSOR = "tensor"


class Level(StrEnum):
    """The memory levels of the hierarchical roofline, outermost first."""

    DRAM = "dram"
    L2 = "l2"
    L1 = "l1"


class Severity(StrEnum):
    """How much a hint matters, most first."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    INFO = "info"


class Flavour(StrEnum):
    """What kind of ncu export a file is."""

    DETAILS = "details"
    RAW = "raw"
    SUMMARY = "summary"
    SESSION = "session"
    NCU_REP = "ncu-rep"
    TEXT = "text"  # ncu's human-readable details, raw, summary or session page (no --csv)


#: The ncu command that exports a report's raw page: every metric it collected (the roofline charts' too), what
#: a user is told to export where a file is not one the analysis can read or leaves metrics out.
RAW_EXPORT = "ncu -i REPORT.ncu-rep --csv --page raw > raw.csv"
#: ... the details page, and the summary pages: what a page ncu printed without ``--csv`` that is not read is told.
DETAILS_EXPORT = "ncu -i REPORT.ncu-rep --csv --page details > details.csv"
SUMMARY_EXPORT = "ncu -i REPORT.ncu-rep --csv --print-summary per-kernel > summary.csv"
NVTX_SUMMARY_EXPORT = "ncu -i REPORT.ncu-rep --csv --print-summary per-nvtx > summary.csv"
#: What ``source.not_understood`` (and ``Report.warnings``) begins with for a page that may be cut short: a page
#: ncu printed without ``--csv`` whose last line has no line break (``head -c``), a details page whose last launch
#: ends early (``head -n``), a CSV page followed by what ncu prints when it stops part-way; the command line warns
#: of it.
CUT_SHORT = "the page may be cut short"
#: ... of a metric a launch has twice in one section with different values (neither is taken); the command line
#: warns of it.
TWO_VALUES = "with different values"


# The same, as plain strings in their order (for frames, column names and JSON keys).
LIMITERS: tuple[str, ...] = tuple(m.value for m in Limiter)
MEMORY_LIMITERS: tuple[str, ...] = (Limiter.HBM.value, Limiter.L2.value, Limiter.L1.value)
REGIMES: tuple[str, ...] = tuple(m.value for m in Regime)
PRECISIONS: tuple[str, ...] = tuple(m.value for m in Precision)
LEVELS: tuple[str, ...] = tuple(m.value for m in Level)
SEVERITIES: tuple[str, ...] = tuple(m.value for m in Severity)
FLAVOURS: tuple[str, ...] = tuple(m.value for m in Flavour)

#: Severity -> rank (0: most severe); an unknown severity ranks after these.
SEVERITY_ORDER: dict[str, int] = {s.value: i for i, s in enumerate(Severity)}

#: The memory limiter and the roofline level that name the same unit.
LEVEL_OF_LIMITER: dict[str, str] = {
    Limiter.HBM.value: Level.DRAM.value,
    Limiter.L2.value: Level.L2.value,
    Limiter.L1.value: Level.L1.value,
}
LIMITER_OF_LEVEL: dict[str, str] = {v: k for k, v in LEVEL_OF_LIMITER.items()}

LIMITER_LABELS: dict[str, str] = {"hbm": "HBM", "l2": "L2", "l1": "L1", "compute": "Compute"}
REGIME_LABELS: dict[str, str] = {"bound": "Bound", "latency": "Latency", "launch": "Launch"}
PRECISION_LABELS: dict[str, str] = {"fp64": "FP64", "fp32": "FP32", "fp16": "FP16", "tensor": "Tensor"}
LEVEL_LABELS: dict[str, str] = {"dram": "DRAM", "l2": "L2", "l1": "L1"}
