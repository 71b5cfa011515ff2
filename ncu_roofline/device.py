"""Device peaks for the roofline (from the report's own metrics, a built-in GPU table, or the user), and
which GPU ran each launch (``identify``; ``match_device``: forgiving names).

An unknown GPU is never an error: its report's own peaks carry the analysis; peaks nobody gives stay
missing (NaN), and ``missing_peaks`` says which ones a launch's roofline needs and how to give them.

Three sources, in rising priority (``resolve_peaks``):

1. **report**: the ``.peak_sustained`` metrics and clocks ncu collected with the launch, combined exactly as
   the stock hierarchical roofline sections combine them (``SpeedOfLight_Hierarchical*RooflineChart``,
   ncu 2025.3.1; verified against the chart's body items in ``tests/test_roofline.py``): the ``peak`` rows of
   the metric table, ``ncu_roofline.quantities.TABLE`` (the formulas below are those rows);
2. **table:<gpu>**: the datasheet figures in ``ncu_roofline.devices`` (each with its source), per missing
   figure only;
3. **override**: figures the user passes (keys = the figure columns below), which win over everything.

The peaks frame (``PEAK_COLUMNS``) has one row per launch, indexed like ``Report.values``
(report, process_id, launch_id), floats in base SI units:

``device``            the GPU name given for the table look-up: the built-in entry ``identify`` found, or
                      ``--device`` (string; <NA> when none)
``sm_count``          ``device__attribute_multiprocessor_count``
``sm_clock_hz``       ``sm__cycles_elapsed.avg.per_second``: the clock of every *peak* work figure (the
                      sections' ``PeakWork`` uses it; achieved work uses
                      ``smsp__cycles_elapsed.avg.per_second``, see ``ncu_roofline.roofline``)
``dram_clock_hz``     ``dram__cycles_elapsed.avg.per_second``
``l2_clock_hz``       ``lts__cycles_elapsed.avg.per_second``
``l1_clock_hz``       ``l1tex__cycles_elapsed.avg.per_second``
``fp64_flops``        ``sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained`` x 2 x sm clock
``fp32_flops``        ``sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained`` x 2 x sm clock
``fp16_flops``        ``sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained`` x 4 x sm clock
                      (an HFMA2 thread instruction is two FMAs: 4 FLOP)
``tensor_<t>_flops``  dense tensor peak per data type t in ``TENSOR_DTYPES`` (``tensor_int8_flops`` counts
                      integer operations): the largest ``sm__ops_path_tensor_<series>.sum.peak_sustained``
                      x sm clock over the non-sparse series of that data type (``tensor_dtype_series``)
``dram_bytes_per_s``  ``dram__bytes.sum.peak_sustained`` x dram clock
``l2_bytes_per_s``    ``lts__lts2xbar_cycles_active.sum.peak_sustained`` x 32 x l2 clock
``l1_bytes_per_s``    ``l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained`` x 128 x l1 clock
                      (``_mem_lg`` before CC 9.0, ``l1tex__lsu_writeback_active`` before CC 7.5)

and, not in ``PEAK_COLUMNS`` but present when the report has them, one ``tensor_<series>_flops`` column per
tensor series ncu measures (``<series>`` = the metric name after ``sm__ops_path_tensor_``, e.g.
``op_hmma_src_bf16_dst_fp32_sparsity_off``): the roof of that series in ncu's Tensor Core chart.

For every figure F there is a string column ``source_F`` ("report", "table:<gpu name>", "override" or
"missing"); ``peak_source`` sums them up per launch ("report", or the distinct sources joined by "+").
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ncu_roofline import quantities
from ncu_roofline.devices import DEVICES, DeviceSpec, Figure
from ncu_roofline.errors import AnalysisError
from ncu_roofline.model import Report, launch_index
from ncu_roofline.quantities import (  # noqa: F401 - kept importable from here
    FLOP_PER_FMA,
    FLOP_PER_HFMA2,
    L1_BYTES_PER_CYCLE,
    L2_BYTES_PER_CYCLE,
    SM_CLOCK,
    SMSP_CLOCK,
    TENSOR_PREFIX,
)
from ncu_roofline.thresholds import TENSOR_CORES_FROM_CC
from ncu_roofline.vector import distinct_rows, launch_positions, taken

#: Rate of a 2:4 sparse MMA over the dense one (NVIDIA datasheets: "with sparsity"; dense is one-half).
SPARSE_SPEEDUP = 2.0
#: Tensor data types with a dense peak figure (datasheet names; ``int8`` counts integer operations).
TENSOR_DTYPES: tuple[str, ...] = ("fp64", "tf32", "bf16", "fp16", "fp8", "int8")

#: Per figure, the recipes that compute it from report metrics, best first: the ``peak`` rows of the metric
#: table (``ncu_roofline.quantities.TABLE``; names and factors are those of the stock section files). The first
#: recipe whose metric and clock are both present (per launch) wins.
PEAK_RECIPES = quantities.PEAK_RECIPES

#: Every figure column of the peaks frame, in order (see the module docstring).
FIGURES: tuple[str, ...] = (
    "sm_count",
    "sm_clock_hz",
    "dram_clock_hz",
    "l2_clock_hz",
    "l1_clock_hz",
    "fp64_flops",
    "fp32_flops",
    "fp16_flops",
    *(f"tensor_{t}_flops" for t in TENSOR_DTYPES),
    "dram_bytes_per_s",
    "l2_bytes_per_s",
    "l1_bytes_per_s",
)
#: Keys ``resolve_peaks`` accepts in ``overrides`` (the figure columns).
OVERRIDE_KEYS: frozenset[str] = frozenset(FIGURES)
PEAK_COLUMNS: tuple[str, ...] = ("device", *FIGURES, *(f"source_{f}" for f in FIGURES), "peak_source")

REPORT = "report"
OVERRIDE = "override"
MISSING = "missing"
#: The source of a figure the built-in table gave: this, then the entry's name.
TABLE = "table:"


# --------------------------------------------------------------------------------------------------------
# tensor series names


#: FP8 and the narrower floats that one Blackwell MMA instruction takes at one rate, FP8's: ``tcgen05.mma
#: kind::f8f6f4``, ncu 2025.3's ``op_utcqmma_src_fp4_fp6_fp8`` series (B200: 4.5 PFLOPS dense for FP8 and FP6 alike;
#: FP4 runs at twice that only through the block-scaled kinds, the ``op_utcomma_src_fp4`` series). A series of
#: these types is of FP8 (``TensorSeries.dtype``), not of its first type.
NARROW_FLOATS = frozenset({"fp8", "fp6", "fp4"})


@dataclass(frozen=True)
class TensorSeries:
    """A tensor series of ncu's Tensor Core chart, parsed from its metric name suffix."""

    name: str  # metric suffix after ``sm__ops_path_tensor_``: ``op_hgmma_src_bf16_dst_fp32_sparsity_off``
    op: str | None  # ``hgmma``, ``hmma``, ``imma`` ...; None for the per-source aggregate series
    src: str  # ``bf16``, ``fp16``, ``tf32``, ``fp8``, ``int8``, ``int1``, ``fp64``
    dst: str | None
    sparsity: str | None  # "on", "off", or None (not split)
    #: the rest of the source part after its first type (``src``): Turing's ``src_fp16_bf16_tf32_dst_fp32``
    #: (FP16 in, FP32 accumulated; the chip has no BF16 or TF32) -> ``bf16_tf32``; None for one type
    also: str | None = None

    @property
    def dtype(self) -> str:
        """The data type whose tensor peak the series runs at: its source type (the first of several: Turing's
        FP16-in path), but FP8 for a series of FP8 and narrower floats (``NARROW_FLOATS``)."""
        types = {self.src, *(self.also.split("_") if self.also else ())}
        return "fp8" if len(types) > 1 and types <= NARROW_FLOATS else self.src

    @property
    def label(self) -> str:
        """The series as ncu's chart body items name it: ``Op:hmma Src:bf16 Dst:fp32 Sparsity:off``."""
        parts = []
        if self.op:
            parts.append(f"Op:{self.op}")
        parts.append(f"Src:{self.src}" + ("," + self.also.replace("_", ",") if self.also else ""))
        if self.dst:
            parts.append(f"Dst:{self.dst}")
        if self.sparsity:
            parts.append(f"Sparsity:{self.sparsity}")
        return " ".join(parts)


_SERIES = re.compile(
    r"^(?:op_(?P<op>[a-z0-9]+)_)?src_(?P<src>[a-z0-9]+)"
    r"(?:_(?P<also>(?!dst_|sparsity_)[a-z0-9]+(?:_(?!dst_|sparsity_)[a-z0-9]+)*))?"  # more types, qualifiers
    r"(?:_dst_(?P<dst>[a-z0-9]+))?"
    r"(?:_sparsity_(?P<sp>on|off))?$"
)


def parse_series(name: str) -> TensorSeries | None:
    """The parsed series for a metric suffix such as ``op_hmma_src_bf16_dst_fp32_sparsity_off``; a series of
    several source types (Turing's ``src_fp16_bf16_tf32_dst_fp32``) is of the first (``src``) and keeps the
    others (``also``)."""
    m = _SERIES.match(name)
    if m is None:
        return None
    return TensorSeries(name, m.group("op"), m.group("src"), m.group("dst"), m.group("sp"), m.group("also"))


def tensor_series(values: pd.DataFrame) -> list[TensorSeries]:
    """The tensor series whose ``.sum.peak_sustained`` metric the report has, sorted by name."""
    names = set()
    prefix, suffix = quantities.TENSOR_PEAK.metrics[0].split(quantities.SERIES)  # the table's template row
    for col in values.columns:
        c = str(col)
        if c.startswith(prefix) and c.endswith(suffix):
            names.add(c[len(prefix) : -len(suffix)])
    out = [s for s in (parse_series(n) for n in sorted(names)) if s is not None]
    return out


def tensor_dtype_series(series: list[TensorSeries], dtype: str) -> list[TensorSeries]:
    """The dense series of one data type (``TensorSeries.dtype``) whose peak defines that type's dense tensor figure.

    Per-instruction series (``op_*``) where the type has any, without the sparse ones; otherwise the
    per-source aggregate series, without the sparse ones. The per-source aggregates of types that have
    per-instruction series (``src_bf16_dst_fp32``, ``src_int8`` ...) are left out: their peak is the largest
    over all instructions *including* sparse MMA (on the H200 sample ``src_bf16_dst_fp32`` = 1,081,344
    ops/cycle = the sparse HGMMA peak), which is not a dense figure.
    """
    of_type = [s for s in series if s.dtype == dtype and s.sparsity != "on"]
    per_op = [s for s in of_type if s.op is not None]
    return per_op if per_op else of_type


# --------------------------------------------------------------------------------------------------------
# from the report


def float_column(values: pd.DataFrame, name: str) -> pd.Series:
    """Column ``name`` as floats, or all-NaN where the frame lacks it."""
    out: pd.Series
    if name in values.columns and values[name].dtype == np.float64:  # floats already (copy on write)
        out = values[name]
    elif name in values.columns:
        out = pd.to_numeric(values[name], errors="coerce").astype(float)
    else:
        out = pd.Series(np.nan, index=values.index, dtype=float)
    return out


def peaks_from_metrics(values: pd.DataFrame) -> pd.DataFrame:
    """Per launch, the peak figures the report's own metrics give, as ncu's roofline charts compute them.

    Takes the wide ``Report.values`` frame; returns the figure columns of ``PEAK_COLUMNS`` (without
    ``device``, sources and ``peak_source``) plus one ``tensor_<series>_flops`` column per tensor series in
    the report, same index. A figure whose metrics the report lacks is NaN (e.g. ``fp64_flops`` when the
    double-precision chart was not collected); ``resolve_peaks`` fills those.
    """
    out: dict[str, pd.Series] = {
        fig: pd.Series(col, index=values.index) for fig, col in quantities.peaks(values).items()
    }
    series = tensor_series(values)
    per_series = {
        name: pd.Series(col, index=values.index)
        for name, col in quantities.series_values(values, quantities.TENSOR_PEAK, [s.name for s in series]).items()
    }
    for t in TENSOR_DTYPES:
        cands = [per_series[s.name] for s in tensor_dtype_series(series, t)]
        out[f"tensor_{t}_flops"] = (
            pd.concat(cands, axis=1).max(axis=1, skipna=True)
            if cands
            else pd.Series(np.nan, index=values.index, dtype=float)
        )
    frame: pd.DataFrame = pd.DataFrame({f: out[f] for f in FIGURES}, index=values.index)
    for name, col in per_series.items():
        frame[f"tensor_{name}_flops"] = col
    return frame


# --------------------------------------------------------------------------------------------------------
# the built-in table: names


#: Words a GPU name may carry or not ("NVIDIA GeForce RTX 4090" == "RTX 4090").
NOISE_WORDS = frozenset({"nvidia", "tesla", "geforce", "quadro"})


def name_tokens(name: str) -> tuple[str, ...]:
    """A GPU name as comparable words: lower case, punctuation ignored, brand words dropped, memory sizes
    spelled one way ("80 GB", "80G", "80gb" -> "80gb")."""
    words = re.sub(r"[^a-z0-9]+", " ", name.lower()).split()
    out: list[str] = []
    for w in words:
        if w in NOISE_WORDS:
            continue
        if w in {"gb", "g"} and out and out[-1].isdigit():
            out[-1] += "gb"
            continue
        m = re.fullmatch(r"(\d+)g", w)
        out.append(f"{m.group(1)}gb" if m else w)
    return tuple(out)


def _spellings(spec: DeviceSpec) -> list[frozenset[str]]:
    """The word sets a query may be a subset of: one per name and alias, with ``sxm2``/``sxm4``/``sxm5`` also
    matching a plain ``sxm``."""
    out = []
    for n in (spec.name, *spec.aliases):
        words = set(name_tokens(n))
        words |= {"sxm" for w in words if re.fullmatch(r"sxm\d", w)}
        out.append(frozenset(words))
    return out


def list_devices() -> list[str]:
    """Names of the GPUs in the built-in table, in table order."""
    return [d.name for d in DEVICES]


@dataclass(frozen=True)
class DeviceMatch:
    """What a GPU name matches in the built-in table.

    ``spec``: the entry (None: unknown, or ambiguous); ``candidates``: every entry the words match, in table
    order; ``exact``: the name is an entry's name or alias (case and punctuation aside)."""

    query: str
    spec: DeviceSpec | None
    candidates: tuple[DeviceSpec, ...]
    exact: bool

    @property
    def ambiguous(self) -> bool:
        return self.spec is None and len(self.candidates) > 1

    @property
    def note(self) -> str | None:
        """Says which entry a bare family name was taken for (None when the name was exact or unique)."""
        return self.said()

    def said(self, launches: bool = False) -> str | None:
        """``note``; ``launches``: said of ``--device``, which gives a launch on another form's SM count that form
        (``given_forms``)."""
        if self.spec is None or self.exact or len(self.candidates) < 2:
            return None
        others = ", ".join(c.name for c in self.candidates if c is not self.spec)
        forms = "; a launch on the SM count of one of them takes that one" if launches else ""
        return f"device {self.query!r} taken as {self.spec.name} (also: {others}{forms}; name one to choose)"


def match_device(name: str) -> DeviceMatch:
    """The table entry a GPU name means, forgiving spelling: case, punctuation and brand words ignored
    (``a100``, ``A100-80GB``, ``h100 sxm``, ``NVIDIA GeForce RTX 4090``).

    An entry's name or alias wins outright; otherwise the entries whose name or an alias contains every word
    of ``name`` are the candidates. Candidates of one family (``a100`` -> the four A100 forms) give the
    family's first form in the table; candidates of several families are ambiguous (``spec`` None).
    """
    words = name_tokens(name)
    if not words:
        return DeviceMatch(name, None, (), False)
    for d in DEVICES:
        if any(words == name_tokens(n) for n in (d.name, *d.aliases)):
            return DeviceMatch(name, d, (d,), True)
    want = set(words)
    cands = tuple(d for d in DEVICES if any(want <= s for s in _spellings(d)))
    families = {d.family for d in cands}
    spec = cands[0] if len(families) == 1 else None
    return DeviceMatch(name, spec, cands, False)


def lookup_device(name: str) -> DeviceSpec:
    """The table entry for a GPU name (``match_device``); ``AnalysisError`` when the name matches none (the
    message lists the table) or entries of several families (the message lists them)."""
    m = match_device(name)
    if m.spec is not None:
        return m.spec
    if m.ambiguous:
        raise AnalysisError(
            f"device {name!r} is ambiguous: it matches {', '.join(c.name for c in m.candidates)}; "
            "name one of them (`ncu-roofline devices` lists the table)"
        )
    known = ", ".join(list_devices())
    raise AnalysisError(
        f"unknown device {name!r}: no built-in peak figures for it (known: {known}); "
        "the report's own peaks (ncu --set roofline) need no table, "
        "or give the figures with --peak KEY=VALUE"
    )


def find_device(name: str) -> DeviceSpec | None:
    """The table entry for a GPU name, or None when the name is unknown or ambiguous (never raises)."""
    return match_device(name).spec


def given_forms(device: str, given: DeviceSpec, sms: np.ndarray) -> np.ndarray:
    """Per launch (positional), the table entry ``--device`` gives it (object array, None: none): ``given``
    (``find_device(device)``) where the launch's SM count (``sm_counts``: the report's, or the one its waves imply)
    is that entry's or not known; where it is another, the form of the GPU ``device`` also names with that count
    (``--device h100`` on a 114-SM launch: the H100 PCIe, not the SXM's 132); None where no form has it (a MIG
    instance, a slice of the GPU's SMs and memory, or a form the table lacks: the entry's whole-GPU figures are
    not the launch's)."""
    out = np.full(len(sms), given.name, dtype=object)
    if given.sm_count is None:
        return out
    other = ~np.isnan(sms) & (sms != given.sm_count.value)
    out[other] = None
    for form in match_device(device).candidates:  # table order: the first form of each SM count
        if form.family == given.family and form.cc == given.cc and form.sm_count is not None:
            out[other & (sms == form.sm_count.value) & pd.isna(out)] = form.name
    return out


def hbm_of_cc(cc: str | None) -> bool | None:
    """Whether a GPU of compute capability ``cc`` the table does not name has HBM: the ``hbm`` every table entry of
    that CC has (HBM for 7.0, 8.0, 9.0, 10.0; GDDR or LPDDR for 7.5, 8.6, 8.9, 12.0 ...). None where the table has
    no entry of it, or its entries differ."""
    kinds = {d.hbm for d in DEVICES if cc is not None and d.cc == cc}
    return kinds.pop() if len(kinds) == 1 else None


def memory_is_hbm(
    tables: Sequence[object] | np.ndarray | pd.Series, cc: Sequence[object] | np.ndarray | pd.Series
) -> np.ndarray:
    """Per launch, whether its GPU's DRAM is HBM (True), is not (False: GDDR, LPDDR) or is not known (None): its
    table entry's (``tables``: the launches' ``device_table``), else that of the table's GPUs of its compute
    capability (``hbm_of_cc``: an H100 or H200 page that names no GPU has HBM). Once per distinct pair."""
    none = "\x00"  # no name, no CC (neither text holds it)

    def text(values: Sequence[object] | np.ndarray | pd.Series) -> pd.Series:
        return pd.Series(np.asarray(values, dtype=object), dtype=object).astype("string").fillna(none)

    codes, pairs = pd.factorize(text(tables) + "\x1f" + text(cc))
    kinds = np.empty(len(pairs), dtype=object)
    for i, pair in enumerate(pairs):
        table, of_cc = (None if part == none else part for part in str(pair).split("\x1f"))
        spec = None if table is None else find_device(table)
        kinds[i] = spec.hbm if spec is not None else hbm_of_cc(of_cc)
    out: np.ndarray = kinds[codes]
    return out


def table_figures(spec: DeviceSpec) -> dict[str, Figure]:
    """The table's figures for a device, keyed like the peaks frame columns (only those it has)."""
    return {k: v for k, v in spec.figures().items() if v is not None}


# --------------------------------------------------------------------------------------------------------
# resolving


def _device_names(values: pd.DataFrame, device: str | pd.Series | None) -> pd.Series:
    out: pd.Series
    if device is None:
        out = pd.Series(pd.NA, index=values.index, dtype="string")
    elif isinstance(device, str):
        out = pd.Series(device, index=values.index, dtype="string")
    else:
        out = device.reindex(values.index).astype("string")
    return out


def resolve_peaks(
    values: pd.DataFrame,
    device: str | pd.Series | None = None,
    overrides: Mapping[str, float] | None = None,
    chart: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Peaks per launch: report metrics first, then the report's roofline chart (``chart``: figure columns
    indexed like ``values``, ``chart.chart_peaks``), the built-in table per missing figure, user overrides last.

    ``values``: the wide ``Report.values`` frame. ``device``: the GPU name for the table fallback, either one
    name for every launch or a Series of names indexed like ``values`` (the text of
    ``device__attribute_display_name``, which is a string metric and so not in ``values``); None: no
    table fallback. ``overrides``: figure -> value in base units (keys: ``OVERRIDE_KEYS``, e.g.
    ``dram_bytes_per_s``, ``fp32_flops``, ``tensor_bf16_flops``); an override of ``tensor_<t>_flops`` (a
    dense figure) also replaces the roof of every ``tensor_<series>_flops`` column of type t: the value for
    dense series, twice it for sparse ones (2:4 sparsity doubles the MMA rate, as the datasheets state).

    Returns ``PEAK_COLUMNS`` plus the per-series tensor columns, indexed like ``values``. A figure nobody
    provides stays NaN with source "missing" (``missing_peaks`` says which ones a launch's roofline needs):
    a device the table does not know (or a name matching several entries) is no error, only no fallback.
    Raises ``AnalysisError`` for an unknown override key.
    """
    overrides = dict(overrides or {})
    bad = sorted(set(overrides) - OVERRIDE_KEYS)
    if bad:
        raise AnalysisError(f"unknown peak override(s) {', '.join(bad)}; known: {', '.join(sorted(OVERRIDE_KEYS))}")
    for key, value in overrides.items():  # as --peak checks them: a roof of 0, <0, NaN or text is no roof
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) < math.inf:
            raise AnalysisError(f"peak override {key}: {value!r} must be a positive, finite number (base units)")
    frame = peaks_from_metrics(values)
    if chart is not None:  # ncu's chart points: the report's own figures too
        for fig in chart.columns:
            frame[fig] = frame[fig].fillna(chart[fig].reindex(frame.index))
    names = _device_names(values, device)
    frame.insert(0, "device", names)
    # each figure's source per launch as a code into ``labels`` (few distinct texts: taken once at the end)
    labels: list[str] = [REPORT, MISSING]
    missing = frame[list(FIGURES)].isna().to_numpy()
    sources = np.where(missing, 1, 0).astype(np.int64)  # launch x figure, in FIGURES order

    def code(label: str) -> int:
        if label not in labels:
            labels.append(label)
        return labels.index(label)

    # table fallback, per distinct device name, only where a figure is missing (into an array: a frame's .loc per
    # figure costs a millisecond or two each at 10,000 launches)
    figures = frame[list(FIGURES)].to_numpy(dtype=np.float64, copy=True)
    needs = missing.any(axis=1) & names.notna().to_numpy()
    # the SM clock and count the report measured (NaN where it has none): what a table figure made of the boost
    # clock and the SM count is scaled to (ncu locks the clocks at base by default: a V100 measured at 1.31 GHz)
    measured = {basis: figures[:, FIGURES.index(basis)].copy() for basis in _FLOP_BASES}
    # a details page gives no SM clock: its "SM Frequency" is the GPC clock, the clock domain the SMs run in
    # (within 1 % of the SM clock on the H200 sample's raw page, but for launches of a few microseconds)
    clock = measured["sm_clock_hz"]
    measured["sm_clock_hz"] = np.where(np.isnan(clock), _first_values(values, (GPC_CLOCK,)), clock)
    for name in sorted(set(names[needs].dropna().astype(str))):
        spec = find_device(name)
        if spec is None:  # a GPU outside the table: the report's own peaks carry the analysis
            continue
        rows = needs & (names == name).fillna(False).to_numpy()
        table = table_figures(spec)
        scale = _at_measured(measured, table, rows)
        for fig, figure in table.items():
            j = FIGURES.index(fig)
            fill = rows & missing[:, j]  # distinct names fill distinct rows: still missing before this name
            figures[fill, j] = figure.value * (scale[fill] if fig in _PER_SM_CYCLE else 1.0)
            sources[fill, j] = code(f"{TABLE}{spec.name}")
    frame[list(FIGURES)] = figures

    series_cols = [c for c in frame.columns if c.startswith("tensor_") and c not in FIGURES and c.endswith("_flops")]
    # a clock or SM count given: the figures made of it follow it, each launch's scaled from the value it had
    # (ncu locks clocks at base by default: --peak sm_clock_hz=BOOST gives the compute roofs at the boost clock)
    for basis, made_of in _MADE_OF.items():
        if basis not in overrides:
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = float(overrides[basis]) / frame[basis].to_numpy(dtype=np.float64)
        known = np.isfinite(scale)
        for fig in [*made_of, *(series_cols if basis in _FLOP_BASES else ())]:
            if fig in overrides:
                continue  # a figure given itself wins over the one its clock would give
            col = frame[fig].to_numpy(dtype=np.float64)
            scaled = known & np.isfinite(col)
            frame[fig] = np.where(scaled, col * scale, col)
            if fig in FIGURES:
                sources[scaled, FIGURES.index(fig)] = code(OVERRIDE)
    for fig, value in overrides.items():
        frame[fig] = float(value)
        sources[:, FIGURES.index(fig)] = code(OVERRIDE)
        if fig.startswith("tensor_") and fig in FIGURES:
            dtype = fig[len("tensor_") : -len("_flops")]
            for col in series_cols:
                s = parse_series(col[len("tensor_") : -len("_flops")])
                if s is not None and s.dtype == dtype:
                    frame[col] = float(value) * (SPARSE_SPEEDUP if s.sparsity == "on" else 1.0)

    # built in one go in the final column order (not column by column into ``frame``)
    text: dict[str, Any] = {f"source_{fig}": taken(labels, sources[:, j]) for j, fig in enumerate(FIGURES)}
    text["peak_source"] = _summarise(sources, labels)
    parts = [frame[["device", *FIGURES]], pd.DataFrame(text, index=frame.index), frame[series_cols]]
    result: pd.DataFrame = pd.concat(parts, axis=1)
    return result


#: The figures each clock (and the SM count) makes: a peak is per-cycle work x clock, for the whole GPU.
_FLOP_FIGURES = ("fp64_flops", "fp32_flops", "fp16_flops", *(f"tensor_{t}_flops" for t in TENSOR_DTYPES))
_FLOP_BASES = ("sm_clock_hz", "sm_count")
_MADE_OF: dict[str, tuple[str, ...]] = {
    "sm_clock_hz": _FLOP_FIGURES,
    "sm_count": (*_FLOP_FIGURES, "l1_bytes_per_s"),  # L1 is per SM: its peak is the SMs' sum
    "dram_clock_hz": ("dram_bytes_per_s",),
    "l2_clock_hz": ("l2_bytes_per_s",),
    "l1_clock_hz": ("l1_bytes_per_s",),
}


#: The table's figures that are work per SM per cycle x SM count x boost clock: they follow the report's
#: SM clock and count (DRAM and L2 run on clocks of their own).
_PER_SM_CYCLE = (*_FLOP_FIGURES, "l1_bytes_per_s")


def _at_measured(measured: dict[str, np.ndarray], table: Mapping[str, Figure], rows: np.ndarray) -> np.ndarray:
    """Per launch, the factor that takes a ``_PER_SM_CYCLE`` figure of the table (at its boost clock and SM
    count) to the SM clock and count the report measured for the launch (``measured``: each basis per launch,
    NaN where the report has none; 1.0 there, and where the table lacks the basis). As ncu's roofs are: its
    peaks are per-cycle work x the measured clock, so a launch's fraction of a table roof is of what the GPU
    could do at the clock it ran at, not at one it did not (ncu runs kernels at the base clock by default).
    Never above the boost clock: a launch of a few microseconds can measure more (train_step: up to 2.50 GHz on
    an H200 whose boost is 1.98), which no GPU runs at."""
    scale = np.ones(len(rows))
    for basis in _FLOP_BASES:
        own = table.get(basis)
        if own is None or not own.value > 0:
            continue
        ratio = measured[basis] / own.value
        if basis == "sm_clock_hz":
            ratio = np.minimum(ratio, 1.0)
        scale = np.where(rows & np.isfinite(ratio) & (ratio > 0), scale * ratio, scale)
    return scale


def _summarise(sources: np.ndarray, labels: list[str]) -> Any:
    """Per launch (a row of ``sources``: codes into ``labels`` per figure), the distinct sources of its figures
    other than MISSING, "+"-joined: REPORT first, then the others sorted; MISSING when there are none. As the
    string dtype; each distinct combination of sources is joined once."""
    present: np.ndarray = np.stack([(sources == c).any(axis=1) for c in range(len(labels))], axis=1)
    used: list[bool] = np.any(present, axis=0).tolist()
    order = sorted(x for c, x in enumerate(labels) if used[c] and x != MISSING)
    if REPORT in order:  # report first, then the others
        order = [REPORT, *(x for x in order if x != REPORT)]
    if len(labels) < 63:  # each launch's set of sources as the bits of one integer
        bits = present.astype(np.int64) @ (np.int64(1) << np.arange(len(labels), dtype=np.int64))
        inverse, keys = pd.factorize(bits)
        combos = (np.asarray(keys)[:, None] >> np.arange(len(labels))) & 1 == 1
    else:
        combos, inverse = np.unique(present, axis=0, return_inverse=True)
    texts = ["+".join(x for x in order if row[labels.index(x)]) or MISSING for row in combos.tolist()]
    return taken(texts, np.asarray(inverse).reshape(-1))


# --------------------------------------------------------------------------------------------------------
# which GPU ran each launch

#: Columns of ``identify``.
IDENTITY_COLUMNS: tuple[str, ...] = ("device_name", "device", "device_basis")
#: A report's DRAM bandwidth (memory clock x 2 x bus width / 8) and a table entry's agree within this share.
BANDWIDTH_TOLERANCE = 0.03

#: The device attributes read (the ``device`` rows of the metric table, and the ``sm_count`` quantity).
DISPLAY_NAME = quantities.DEVICE_ATTRIBUTES["display_name"].metrics[0]
CC_MAJOR = quantities.DEVICE_ATTRIBUTES["cc_major"].metrics[0]
CC_MINOR = quantities.DEVICE_ATTRIBUTES["cc_minor"].metrics[0]
MEMORY_CLOCKS = quantities.DEVICE_ATTRIBUTES["memory_clock"].metrics
BUS_WIDTHS = quantities.DEVICE_ATTRIBUTES["bus_width"].metrics
SM_COUNTS = quantities.BY_NAME["sm_count"].metrics
#: The GPC clock: a details page's "SM Frequency" (the SM clock of the table's figures where the page lacks it).
GPC_CLOCK = next(m for m in quantities.BY_NAME["sm_clock"].metrics if m.startswith("gpc__"))


def _first_values(values: pd.DataFrame, names: tuple[str, ...]) -> np.ndarray:
    """Per launch, the first of the ``names`` columns that has a value (NaN where none has), as floats."""
    out = np.full(len(values.index), np.nan)
    for n in names:
        if n in values.columns:
            out = np.where(np.isnan(out), float_column(values, n).to_numpy(dtype=np.float64), out)
    return out


#: The least DRAM throughput (% of the DRAM peak) at which a launch's DRAM bytes per second give the peak
#: (``implied_bandwidth``): the throughput is printed to 0.01 %, the bytes to three digits.
IMPLIED_PEAK_MIN_PCT = 10.0


def implied_bandwidth(launches: pd.DataFrame, values: pd.DataFrame) -> np.ndarray:
    """Per launch, the DRAM peak of its device that ncu's own DRAM throughput implies (``implied_dram_peaks``'
    first: one figure per device, at the busiest launch's DRAM clock; what identifies the GPU)."""
    return implied_dram_peaks(launches, values)[0]


def implied_dram_peaks(launches: pd.DataFrame, values: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per launch, the DRAM peak ncu's own DRAM throughput implies: the launch's DRAM bytes per second over that
    throughput's share of the peak (``gpu__dram_throughput``, SOL's "DRAM Throughput", and "Memory Throughput"
    in byte/s of Memory Workload Analysis: a plain details page has both, and neither the attributes nor ncu's
    DRAM peak). Per device (``_device_groups``), the ratio of its busiest launch, the one with the highest DRAM
    throughput, at ``IMPLIED_PEAK_MIN_PCT`` or more: the throughput is the busiest of the DRAM's measures, so a
    launch's ratio is at most the peak, and the busiest launch's DRAM time is the likeliest to be all transfers
    and its bytes the most precisely printed (three digits: 4.32 Tbyte/s is 0.1 % off at most, 1.28 Tbyte/s 0.4 %).
    NaN where no launch of the device is there.

    Two figures per launch: the device's (the busiest launch's ratio: what identifies the GPU), and the peak at
    the launch's own DRAM clock, the roof: where the page gives each launch's DRAM clock (SOL's "DRAM
    Frequency", "Memory Frequency" in ncu 2019.5), the device's figure scaled by the ratio of the launch's
    clock to the busiest launch's, as ncu's percentage is of the bytes per cycle times the cycles the launch
    measured (a V100 page of ncu 2019.5 ran one launch at 739 MHz and the next at 852: its 34.51 % is of the
    faster clock's peak; the H200 sample's short launches measure 3.14-3.17 GHz, the others 3.20). Taken as
    the DRAM roof, it puts no launch above its own DRAM throughput by more than what the printed digits of
    both allow."""
    n = len(values.index)
    pct = quantities.quantities(values, ["dram_throughput_pct"])["dram_throughput_pct"].to_numpy(dtype=np.float64)
    there = np.nan_to_num(pct) >= IMPLIED_PEAK_MIN_PCT
    if not there.any():
        return np.full(n, np.nan), np.full(n, np.nan)
    rate = quantities.derive(values, "dram_bytes_per_s")[0]
    there &= ~np.isnan(rate)
    group = _device_groups(launches, n)
    rows = np.flatnonzero(there)
    busiest = rows[np.lexsort((-pct[rows], group[rows]))]  # per group, the highest throughput first
    groups, first = np.unique(group[busiest], return_index=True)
    best = np.full(int(group.max()) + 1, np.nan)
    at = busiest[first]
    best[groups] = rate[at] / pct[at] * 100.0
    device: np.ndarray = best[group]
    clock = quantities.quantities(values, ["dram_clock"])["dram_clock"].to_numpy(dtype=np.float64)
    at_clock = np.full(len(best), np.nan)
    at_clock[groups] = clock[at]
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = clock / at_clock[group]  # 1.0 exactly where the clocks are equal
    own = device.copy()
    scaled = np.isfinite(scale) & (scale > 0)
    own[scaled] *= scale[scaled]
    return device, own


#: ncu's waves per SM (``launch__waves_per_multiprocessor``): the grid's blocks over the SMs times the blocks one
#: SM holds (the least of the occupancy limits): printed to two decimals.
WAVES = quantities.BY_NAME["waves_per_sm"].metrics[0]
GRID_BLOCKS = quantities.BY_NAME["grid_size"].metrics[0]
OCCUPANCY_LIMITS = tuple(
    quantities.BY_NAME[f"occupancy_limit_{limit}"].metrics[0]
    for limit in ("blocks", "registers", "shared_mem", "warps", "barriers")
)


def _device_groups(launches: pd.DataFrame, n: int) -> np.ndarray:
    """Per launch, a code for its device (its report, device ID and CC; a missing one a code of its own: two
    reports read together, an H100's and an H200's, are two devices even where both say device 0, CC 9.0),
    numbered from 0."""
    group = np.zeros(n, dtype=np.int64)
    for column in ("report", "device", "cc"):
        if column in launches:
            codes, uniques = pd.factorize(launches[column], use_na_sentinel=False)
            group = group * (len(uniques) + 1) + codes
    out: np.ndarray = pd.factorize(group)[0]
    return out


def implied_sm_count(launches: pd.DataFrame, values: pd.DataFrame) -> np.ndarray:
    """Per launch, the SM count ncu's waves per SM imply where the page lacks it (``# SMs`` is in Launch
    Statistics from ncu 2024.1 on): the grid's blocks over the waves times the blocks an SM holds, as ncu
    computes the waves (every launch of the H200 raw pages: 132 to the waves' two decimals). Per device
    (``_device_groups``), from the launches whose printed waves fix it to a whole number (half the last digit, over the
    waves, under half an SM), where they all give the same one; NaN elsewhere."""
    n = len(values.index)
    if not {WAVES, GRID_BLOCKS} <= set(values.columns):
        return np.full(n, np.nan)
    limits = [float_column(values, c).to_numpy(dtype=np.float64) for c in OCCUPANCY_LIMITS if c in values.columns]
    if not limits:
        return np.full(n, np.nan)
    stacked = np.vstack(limits)
    # the least limit of each launch (np.fmin: NaN where a launch has none, without nanmin's all-NaN warning)
    per_sm = np.fmin.reduce(stacked, axis=0)
    waves = float_column(values, WAVES).to_numpy(dtype=np.float64)
    blocks = float_column(values, GRID_BLOCKS).to_numpy(dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        sms = blocks / (waves * per_sm)
        fixed = np.isfinite(sms) & (sms * 0.005 / waves < 0.5) & (per_sm > 0)
    whole = np.where(fixed, np.round(sms), np.nan)
    group = _device_groups(launches, n)
    lo, hi = np.full(int(group.max()) + 1, np.inf), np.full(int(group.max()) + 1, -np.inf)
    np.fmin.at(lo, group, np.nan_to_num(whole, nan=np.inf))
    np.fmax.at(hi, group, np.nan_to_num(whole, nan=-np.inf))
    agreed = np.where(np.isfinite(lo) & (lo == hi), lo, np.nan)  # every launch that fixes it, one number
    out: np.ndarray = agreed[group]
    return out


def sm_counts(launches: pd.DataFrame, values: pd.DataFrame) -> np.ndarray:
    """Per launch, the SM count the report gives (``SM_COUNTS``), else the one its waves imply
    (``implied_sm_count``)."""
    sms = _first_values(values, SM_COUNTS)
    if np.isnan(sms).any():
        sms = np.where(np.isnan(sms), implied_sm_count(launches, values), sms)
    return sms


def _bandwidth_values(launches: pd.DataFrame, values: pd.DataFrame, implied: np.ndarray | None = None) -> np.ndarray:
    """Per launch, the DRAM bandwidth the device attributes imply: memory clock x 2 (double data rate) x bus
    width / 8 [byte/s]; else ncu's own DRAM peak (the roofline's ``dram_bytes_per_s`` peak recipes: peak bytes
    per cycle x DRAM clock, which a details page of the roofline charts or of our sections has without the
    attributes); else the peak ncu's DRAM throughput implies (``implied``, where the caller has it already, or
    ``implied_bandwidth``: a plain details page); NaN without any. ncu prints the clock in kHz (CUDA's
    ``memoryClockRate``); a value already in Hz (above 1e8) is taken as such."""
    clock = _first_values(values, MEMORY_CLOCKS)
    with np.errstate(invalid="ignore"):
        clock_hz = np.where(clock > 1e8, clock, clock * 1e3)
    out: np.ndarray = clock_hz * 2 * _first_values(values, BUS_WIDTHS) / 8
    if np.isnan(out).any():
        peak = quantities.derive(values, "dram_bytes_per_s", table=PEAK_RECIPES)[0]
        out = np.where(np.isnan(out), peak, out)
    if np.isnan(out).any():
        out = np.where(np.isnan(out), implied_bandwidth(launches, values) if implied is None else implied, out)
    return out


def _cc_of(launches: pd.DataFrame, values: pd.DataFrame) -> pd.Series:
    major = float_column(values, CC_MAJOR).to_numpy(dtype=np.float64)
    minor = float_column(values, CC_MINOR).to_numpy(dtype=np.float64)
    known = ~(np.isnan(major) | np.isnan(minor))
    text = np.full(len(major), None, dtype=object)
    if known.any():  # "%d" truncates as int() does: 9.0 -> "9"
        text[known] = np.char.add(np.char.add(np.char.mod("%d", major[known]), "."), np.char.mod("%d", minor[known]))
    from_attrs = pd.Series(text, index=values.index, dtype="string")
    if "cc" in launches.columns:
        cc = pd.Series(launches["cc"].to_numpy(), index=values.index, dtype="string")
        return cc.fillna(from_attrs)
    return from_attrs


def _by_attributes(cands: tuple[DeviceSpec, ...], cc: str | None, sms: float, bw: float) -> list[DeviceSpec]:
    """The entries among ``cands`` whose CC, SM count and DRAM bandwidth agree with the report's (each only
    where the report has it). Bandwidth: within ``BANDWIDTH_TOLERANCE``; where several are, the closest
    when it is at least three times closer than the next (the H200's 4.815 TB/s: H200 4.8, not GH200 4.9)."""
    out = list(cands)
    if cc is not None:
        out = [d for d in out if d.cc == cc]
    if not math.isnan(sms):
        out = [d for d in out if d.sm_count is not None and d.sm_count.value == sms]
    if not math.isnan(bw) and bw > 0:
        err = sorted((abs(d.dram_bytes_per_s.value / bw - 1), i) for i, d in enumerate(out))
        err = [(e, i) for e, i in err if e <= BANDWIDTH_TOLERANCE]
        if len(err) > 1 and err[0][0] * 3 < err[1][0]:
            err = err[:1]
        out = [out[i] for _, i in sorted(err, key=lambda x: x[1])]
    return out


def gpu_traits(cc: pd.Series, table: pd.Series | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per launch: its GPU's compute capability as a number (``7.5``; the report's CC column, else the CC of
    the table entry the GPU was identified as, for a page from before ncu 2023 has no CC column; NaN where
    neither is known), and whether the GPU has tensor cores (False below CC 7.0, Volta, and where its table
    entry says it has none: TU116/TU117; True where unknown). ``table``: each launch's table entry
    (``identify``), None for none. Each distinct name is looked up once."""
    number = pd.to_numeric(pd.Series(cc.to_numpy(dtype=object)), errors="coerce").to_numpy(dtype=float, copy=True)
    tensor = np.ones(len(number), dtype=bool)
    names = np.full(len(number), "", dtype=object)
    if table is not None:
        names = table.astype("string").fillna("").to_numpy(dtype=object)
    for name in set(names.tolist()) - {""}:
        spec = find_device(name)
        if spec is not None:
            of = names == name
            number[of & np.isnan(number)] = float(spec.cc)
            tensor[of] = spec.tensor_cores
    return number, tensor & ~(number < TENSOR_CORES_FROM_CC)


def identify_one(name: str | None, cc: str | None, sms: float, bw: float) -> tuple[DeviceSpec | None, str | None]:
    """(table entry, basis) for one device: its display name first, then its attributes.

    A name the table knows decides, unless the report's CC or SM count contradicts the entry (the 70-SM RTX
    3080 12GB is named as the 68-SM 10GB card); where it matches several forms of a model (or several models),
    the attributes choose among those, and an entry they all contradict is not taken ("Quadro RTX 6000", CC
    7.5, is not the "RTX 6000 Ada Generation", CC 8.9, whose words it shares). A name the table does not know
    is kept as it is: no entry (attributes that happen to match another GPU do not rename it). Without a
    name, the attributes must single out one entry: CC and SM count, and the DRAM bandwidth where the report
    has the memory clock and bus width or ncu's DRAM peak.
    """
    if name:
        m = match_device(name)
        if m.exact and m.spec is not None:
            agrees = (cc is None or m.spec.cc == cc) and (
                math.isnan(sms) or m.spec.sm_count is None or m.spec.sm_count.value == sms
            )
            return (m.spec, "display_name") if agrees else (None, None)
        narrowed = _by_attributes(m.candidates, cc, sms, bw)
        if len(narrowed) == 1:  # the attributes chose, or checked the one candidate
            return narrowed[0], "display_name" if len(m.candidates) == 1 else "display_name+attributes"
        if m.spec is not None and len({d.family for d in narrowed}) == 1:  # forms the attributes cannot tell apart
            return (m.spec if m.spec in narrowed else narrowed[0]), "display_name"
        return None, None
    if cc is None or math.isnan(sms):
        return None, None
    found = _by_attributes(DEVICES, cc, sms, bw)
    if len(found) == 1:
        return found[0], "attributes"
    return None, None


def identify(report: Report, *, implied_dram: np.ndarray | None = None, sms: np.ndarray | None = None) -> pd.DataFrame:
    """Which GPU ran each launch. Returns ``IDENTITY_COLUMNS``, index LAUNCH_KEY (launch order), strings:

    ``device_name``   the name to show: ``device__attribute_display_name`` (or the session page's
                      ``display_name``), else the table entry the attributes identify; <NA> when neither
    ``device``        the built-in table entry (``DeviceSpec.name``) for peaks the report lacks; <NA> when the
                      GPU is not in the table (its own peak metrics carry the analysis)
    ``device_basis``  how the entry was found: ``display_name`` (the name, forgiving spelling),
                      ``display_name+attributes`` (the name matched several entries; CC, SM count and DRAM
                      bandwidth chose), ``attributes`` (no name: CC + SM count + DRAM bandwidth, from
                      memory clock x bus width, else ncu's DRAM peak, else the peak its DRAM throughput
                      implies, matched exactly one entry), or <NA>

    ``implied_dram``: ``implied_bandwidth`` of the report's launches, ``sms``: their ``sm_counts``, where the
    caller has computed them.
    """
    index = launch_index(report.launches)
    values = report.values.reindex(index)
    names = pd.Series(pd.NA, index=index, dtype="string")
    names = names.fillna(report.metric_texts(DISPLAY_NAME))  # without the long metrics frame where it can
    s = report.session
    display = s[s["attribute"] == "display_name"]["value"]
    if len(display) == 1:
        names = names.fillna(str(display.iloc[0]))
    names = names.str.strip()
    names = names.where(names != "", pd.NA)
    keys = [
        names.astype(object).to_numpy(),
        _cc_of(report.launches, values).astype(object).to_numpy(),
        sm_counts(report.launches, values) if sms is None else sms,
        np.round(_bandwidth_values(report.launches, values, implied_dram), -6),
    ]
    # each distinct (name, cc, sms, bw) once (missing values a group of their own): a group number per launch
    group, first = distinct_rows(*keys)  # and a launch of each group, in group order
    table = np.full(len(first), None, dtype=object)
    basis = np.full(len(first), None, dtype=object)
    for g, row in enumerate(first):
        name, cc, sms, bw = (k[row] for k in keys)
        spec, how = identify_one(
            None if pd.isna(name) else str(name), None if pd.isna(cc) else str(cc), float(sms), float(bw)
        )
        table[g] = None if spec is None else spec.name
        basis[g] = how
    device = pd.array(table[group], dtype="string")
    return pd.DataFrame(
        {
            "device_name": names.fillna(pd.Series(device, index=index)).array,
            "device": device,
            "device_basis": pd.array(basis[group], dtype="string"),
        },
        index=index,
    )


# --------------------------------------------------------------------------------------------------------
# what the roofline lacks


def missing_peaks(roof: pd.DataFrame, peaks: pd.DataFrame, *, positions: np.ndarray | None = None) -> pd.Series:
    """Per launch, the peak figures its roofline needs but nobody gave, comma-separated in ``FIGURES`` order
    (string; <NA> when none), index LAUNCH_KEY in ``peaks`` order.

    Needed: the FLOP/s roof of every precision with achieved work, and the bandwidth roof of every level with
    achieved traffic (``roof``: the ``ncu_roofline.roofline.roofline`` frame; ``peaks``: ``resolve_peaks``).
    ``missing_peaks_advice`` turns them into what to do. ``positions``: each roofline row's launch position in
    ``peaks``' index, when the caller has them (``vector.launch_positions``).
    """
    index = peaks.index
    out = pd.Series(pd.NA, index=index, dtype="string")
    if len(roof) == 0:
        return out
    no_flop_peak = (roof["achieved_flops"].fillna(0).to_numpy() > 0) & roof["peak_flops"].isna().to_numpy()
    no_bw_peak = roof["achieved_bytes_per_s"].notna().to_numpy() & roof["peak_bytes_per_s"].isna().to_numpy()
    if not (no_flop_peak.any() or no_bw_peak.any()):
        return out
    # the figure names of the rows that lack a peak: flop rows first, then bandwidth rows, in roofline order
    flop_rows, bw_rows = np.flatnonzero(no_flop_peak), np.flatnonzero(no_bw_peak)
    # each row's figure name, built once per distinct (precision, dtype) and level: codes into ``figures``
    flop_prec, flop_dtype = roof["precision"].take(flop_rows), roof["dtype"].take(flop_rows)
    pair, first_pair = distinct_rows(flop_prec, flop_dtype)
    prec = flop_prec.take(first_pair).astype(str).to_numpy(dtype=object)
    dtype = flop_dtype.take(first_pair).astype(object).fillna("bf16").astype(str).to_numpy(dtype=object)
    flop_fig = np.where(prec == "tensor", "tensor_" + dtype + "_flops", prec + "_flops")
    level_codes, levels = pd.factorize(roof["level"].take(bw_rows), use_na_sentinel=False)
    bw_fig = pd.Series(levels).astype(str).to_numpy(dtype=object) + "_bytes_per_s"
    name_codes, figures = pd.factorize(np.concatenate([flop_fig, bw_fig]).astype(object))
    codes = name_codes[np.concatenate([np.asarray(pair).reshape(-1), len(flop_fig) + level_codes])]
    pos = launch_positions(roof, index) if positions is None else positions
    at = np.concatenate([pos[flop_rows], pos[bw_rows]])
    order = {f: i for i, f in enumerate(FIGURES)}
    rank = np.array([order.get(str(f), len(order)) for f in figures], dtype=np.int64)[codes]
    keep = at >= 0
    _, first = np.unique(at[keep] * len(figures) + codes[keep], return_index=True)  # each pair once, first seen
    seen = np.flatnonzero(keep)[first]
    seen = seen[np.lexsort((seen, rank[seen], at[seen]))]  # per launch: FIGURES order, then as first seen
    launch, slot_start = at[seen], np.flatnonzero(np.r_[True, at[seen][1:] != at[seen][:-1]])
    slot = np.arange(len(seen)) - np.repeat(slot_start, np.diff(np.r_[slot_start, len(seen)]))
    names = np.asarray(figures, dtype=object)[codes[seen]]
    text = np.full(len(index), None, dtype=object)
    for k in range(int(slot.max()) + 1 if len(slot) else 0):  # the k-th figure of every launch at once
        sel = slot == k
        text[launch[sel]] = names[sel] if k == 0 else text[launch[sel]] + "," + names[sel]
    return pd.Series(text, index=index, dtype="string")


def missing_peaks_advice(figures: pd.Series, peaks: pd.DataFrame, names: pd.Series | None = None) -> pd.Series:
    """Per launch, what to do about the peaks ``missing_peaks`` lists (string; <NA> when none), same index.
    ``names``: the GPU each launch ran on, as the report names it (``identify``'s ``device_name``): a MIG
    instance's figures are not the whole GPU's the table holds, so its advice is ``--peak`` alone."""
    device = peaks["device"].astype(object).reindex(figures.index)
    mig = np.zeros(len(figures), dtype=bool) if names is None else is_mig(names.reindex(figures.index))
    # the text of each distinct (figures, device, MIG) once, taken by codes
    f, d = figures.astype(object).to_numpy(), device.to_numpy()
    pair, first = distinct_rows(f, d, mig)
    texts = [
        None
        if pd.isna(f[row])
        else _missing_text(tuple(str(f[row]).split(",")), None if pd.isna(d[row]) else str(d[row]), bool(mig[row]))
        for row in first.tolist()
    ]
    return pd.Series(taken(texts, pair), index=figures.index)


#: A MIG instance as CUDA names it: the GPU's name, "MIG", the instance's profile ("NVIDIA A100-SXM4-40GB MIG
#: 3g.20gb"; a compute instance of a larger GPU instance: "MIG 1c.3g.20gb").
MIG_NAME = r"\bMIG\b"


def is_mig(names: pd.Series) -> np.ndarray:
    """Per name, whether it is a MIG instance's (``MIG_NAME``): a slice of a GPU's SMs and memory, whose peaks are
    a fraction of the whole GPU's in the built-in table."""
    out: np.ndarray = names.astype("string").str.contains(MIG_NAME, regex=True).to_numpy(dtype=bool, na_value=False)
    return out


def _missing_text(figures: tuple[str, ...], table_entry: str | None, mig: bool = False) -> str:
    noun = "peak" if len(figures) == 1 else "peaks"
    if table_entry:
        return (
            f"{noun} {', '.join(figures)}: not in the report nor in the built-in table ({table_entry}); "
            f"give them with --peak {figures[0]}=VALUE"
        )
    if mig:
        return (
            f"{noun} {', '.join(figures)}: not in the report, and the built-in table holds whole GPUs, not MIG "
            f"instances; give them with --peak {figures[0]}=VALUE"
        )
    return (
        f"{noun} {', '.join(figures)}: not in the report, and the GPU is not identified in the built-in table; "
        f"give them with --peak {figures[0]}=VALUE or --device NAME (`ncu-roofline devices`)"
    )


def peaks_note(
    peaks: pd.DataFrame, weights: np.ndarray | None = None, device_names: pd.Series | None = None
) -> str | None:
    """One sentence for a report's header: the peak figures some launch's roofline lacks (``missing_peaks``,
    over every launch) and how to give them; None when nothing is missing. ``weights``: the launches each row
    stands for (a summary page's group: its invocations; ``summary.launch_weights``); ``device_names``: each
    launch's GPU as the report names it, in the peaks' order (MIG instances: ``--peak`` alone, as
    ``missing_peaks_advice``)."""
    if "missing_peaks" not in peaks.columns:
        return None
    lacking = peaks["missing_peaks"].dropna()
    if not len(lacking):
        return None
    w = np.ones(len(peaks)) if weights is None else np.asarray(weights, dtype=float)
    short, total = round(float(w[peaks["missing_peaks"].notna().to_numpy()].sum())), round(float(w.sum()))
    names = {f for text in lacking.unique() for f in str(text).split(",") if f}
    figures = [f for f in FIGURES if f in names] + sorted(names - set(FIGURES))
    # the launches lacking a peak whose GPU has no table entry, and those of them a MIG instance (positional: the
    # launches' order is the peaks')
    no_entry = peaks["missing_peaks"].notna().to_numpy() & peaks["device"].isna().to_numpy()
    mig = np.zeros(len(peaks), dtype=bool)
    if device_names is not None and len(device_names) == len(peaks):
        mig = is_mig(device_names)
    how = f"--peak {figures[0]}=VALUE"
    if not no_entry.any():
        where = "not in the report nor the table"
    elif mig[no_entry].all():
        where = "not in the report, and the built-in table holds whole GPUs, not MIG instances"
    else:
        where = "not in the report, and the GPU is not identified in the built-in table"
        how += " or --device NAME (`ncu-roofline devices`)"
    return (
        f"Roofline peaks missing for {short:,} of {total:,} launch{'es' if total != 1 else ''}: "
        f"{', '.join(figures)} ({where}); "
        f"give them with {how}."
    )
