"""Device peaks for the roofline: from the report's own metrics, a built-in GPU table, or the user.

Three sources, in rising priority (``resolve_peaks``):

1. **report**: the ``.peak_sustained`` metrics and clocks ncu collected with the launch, combined exactly as
   the stock hierarchical roofline sections combine them (``SpeedOfLight_Hierarchical*RooflineChart``,
   ncu 2025.3.1; verified against the chart's body items in ``tests/test_roofline.py``);
2. **table:<gpu>**: the datasheet figures in ``ncu_roofline.devices`` (each with its source), per missing
   figure only;
3. **override**: figures the user passes (keys = the figure columns below), which win over everything.

The peaks frame (``PEAK_COLUMNS``) has one row per launch, indexed like ``Report.values``
(report, process_id, launch_id), floats in base SI units:

``device``            display name used for the table look-up (string; <NA> when none)
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
                      x sm clock over the non-sparse series of that source type (``tensor_dtype_series``)
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

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ncu_roofline.devices import DEVICES, DeviceSpec, Figure
from ncu_roofline.errors import AnalysisError

#: Bytes moved per active L2-to-crossbar cycle of one LTS port: the ``* 32`` in the stock sections'
#: ``derived__lts__lts2xbar_bytes`` MetricDefinition (ncu 2025.3.1, CC 7.5+).
L2_BYTES_PER_CYCLE = 32.0
#: Bytes per active L1TEX LSU writeback cycle: the ``* 128`` in ``derived__l1tex__lsu_writeback_bytes*``.
L1_BYTES_PER_CYCLE = 128.0
#: FLOP per predicated-on FMA thread instruction (fp32/fp64): a fused multiply-add is two operations.
FLOP_PER_FMA = 2.0
#: FLOP per predicated-on HFMA thread instruction: HFMA2 packs two half FMAs, 4 FLOP (``*_hfma_pred_on_x4``).
FLOP_PER_HFMA2 = 4.0

#: Rate of a 2:4 sparse MMA over the dense one (NVIDIA datasheets: "with sparsity"; dense is one-half).
SPARSE_SPEEDUP = 2.0
#: Tensor data types with a dense peak figure (datasheet names; ``int8`` counts integer operations).
TENSOR_DTYPES: tuple[str, ...] = ("fp64", "tf32", "bf16", "fp16", "fp8", "int8")

SM_CLOCK = "sm__cycles_elapsed.avg.per_second"
SMSP_CLOCK = "smsp__cycles_elapsed.avg.per_second"
DRAM_CLOCK = "dram__cycles_elapsed.avg.per_second"
L2_CLOCK = "lts__cycles_elapsed.avg.per_second"
L1_CLOCK = "l1tex__cycles_elapsed.avg.per_second"
SM_COUNT = "device__attribute_multiprocessor_count"
TENSOR_PREFIX = "sm__ops_path_tensor_"


@dataclass(frozen=True)
class PerCycle:
    """One way to read a peak: ``metric`` (per cycle) x ``factor`` x ``clock`` (cycles per second)."""

    metric: str
    factor: float
    clock: str


#: Per figure, the ways to compute it from report metrics, best first; the first whose metric and clock are
#: both present (per launch) wins. Names and factors are those of the stock section files. The sections' own
#: ``derived__*`` metric (what the chart plots) comes first; the base metric x factor is the same number, for
#: inputs without the derived column (e.g. a ``--metrics`` run). (The raw page prints each column in one
#: auto-scaled unit with 6 decimals, so small values can keep more digits in the derived column.)
PEAK_RECIPES: dict[str, tuple[PerCycle, ...]] = {
    "fp64_flops": (
        PerCycle("derived__sm__sass_thread_inst_executed_op_dfma_pred_on_x2", 1.0, SM_CLOCK),
        PerCycle("sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", FLOP_PER_FMA, SM_CLOCK),
    ),
    "fp32_flops": (
        PerCycle("derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2", 1.0, SM_CLOCK),
        PerCycle("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", FLOP_PER_FMA, SM_CLOCK),
    ),
    "fp16_flops": (
        PerCycle("derived__sm__sass_thread_inst_executed_op_hfma_pred_on_x4", 1.0, SM_CLOCK),
        PerCycle("sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", FLOP_PER_HFMA2, SM_CLOCK),
    ),
    "dram_bytes_per_s": (PerCycle("dram__bytes.sum.peak_sustained", 1.0, DRAM_CLOCK),),
    "l2_bytes_per_s": (
        PerCycle("derived__lts__lts2xbar_bytes.sum.peak_sustained", 1.0, L2_CLOCK),
        PerCycle("lts__lts2xbar_cycles_active.sum.peak_sustained", L2_BYTES_PER_CYCLE, L2_CLOCK),
    ),
    "l1_bytes_per_s": (
        PerCycle("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained", 1.0, L1_CLOCK),
        PerCycle("l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained", L1_BYTES_PER_CYCLE, L1_CLOCK),
        PerCycle("derived__l1tex__lsu_writeback_bytes_mem_lg.sum.peak_sustained", 1.0, L1_CLOCK),
        PerCycle("l1tex__lsu_writeback_active_mem_lg.sum.peak_sustained", L1_BYTES_PER_CYCLE, L1_CLOCK),
        PerCycle("derived__l1tex__lsu_writeback_bytes.sum.peak_sustained", 1.0, L1_CLOCK),
        PerCycle("l1tex__lsu_writeback_active.sum.peak_sustained", L1_BYTES_PER_CYCLE, L1_CLOCK),
    ),
}

#: Figures read directly from one metric.
DIRECT_FIGURES: dict[str, str] = {
    "sm_count": SM_COUNT,
    "sm_clock_hz": SM_CLOCK,
    "dram_clock_hz": DRAM_CLOCK,
    "l2_clock_hz": L2_CLOCK,
    "l1_clock_hz": L1_CLOCK,
}

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


# --------------------------------------------------------------------------------------------------------
# tensor series names


@dataclass(frozen=True)
class TensorSeries:
    """A tensor series of ncu's Tensor Core chart, parsed from its metric name suffix."""

    name: str  # metric suffix after ``sm__ops_path_tensor_``: ``op_hgmma_src_bf16_dst_fp32_sparsity_off``
    op: str | None  # ``hgmma``, ``hmma``, ``imma`` ...; None for the per-source aggregate series
    src: str  # ``bf16``, ``fp16``, ``tf32``, ``fp8``, ``int8``, ``int1``, ``fp64``
    dst: str | None
    sparsity: str | None  # "on", "off", or None (not split)

    @property
    def label(self) -> str:
        """The series as ncu's chart body items name it: ``Op:hmma Src:bf16 Dst:fp32 Sparsity:off``."""
        parts = []
        if self.op:
            parts.append(f"Op:{self.op}")
        parts.append(f"Src:{self.src}")
        if self.dst:
            parts.append(f"Dst:{self.dst}")
        if self.sparsity:
            parts.append(f"Sparsity:{self.sparsity}")
        return " ".join(parts)


_SERIES = re.compile(
    r"^(?:op_(?P<op>[a-z0-9]+)_)?src_(?P<src>[a-z0-9]+)(?:_dst_(?P<dst>[a-z0-9]+))?"
    r"(?:_sparsity_(?P<sp>on|off))?$"
)


def parse_series(name: str) -> TensorSeries | None:
    """The parsed series for a metric suffix such as ``op_hmma_src_bf16_dst_fp32_sparsity_off``."""
    m = _SERIES.match(name)
    if m is None:
        return None
    return TensorSeries(name, m.group("op"), m.group("src"), m.group("dst"), m.group("sp"))


def tensor_series(values: pd.DataFrame) -> list[TensorSeries]:
    """The tensor series whose ``.sum.peak_sustained`` metric the report has, sorted by name."""
    names = set()
    suffix = ".sum.peak_sustained"
    for col in values.columns:
        c = str(col)
        if c.startswith(TENSOR_PREFIX) and c.endswith(suffix):
            names.add(c[len(TENSOR_PREFIX) : -len(suffix)])
    out = [s for s in (parse_series(n) for n in sorted(names)) if s is not None]
    return out


def tensor_dtype_series(series: list[TensorSeries], dtype: str) -> list[TensorSeries]:
    """The dense series of one source type whose peak defines that type's dense tensor figure.

    Per-instruction series (``op_*``) where the type has any, without the sparse ones; otherwise the
    per-source aggregate series, without the sparse ones. The per-source aggregates of types that have
    per-instruction series (``src_bf16_dst_fp32``, ``src_int8`` ...) are left out: their peak is the largest
    over all instructions *including* sparse MMA (on the H200 sample ``src_bf16_dst_fp32`` = 1,081,344
    ops/cycle = the sparse HGMMA peak), which is not a dense figure.
    """
    of_type = [s for s in series if s.src == dtype and s.sparsity != "on"]
    per_op = [s for s in of_type if s.op is not None]
    return per_op if per_op else of_type


# --------------------------------------------------------------------------------------------------------
# from the report


def float_column(values: pd.DataFrame, name: str) -> pd.Series:
    """Column ``name`` as floats, or all-NaN where the frame lacks it."""
    out: pd.Series
    if name in values.columns:
        out = pd.to_numeric(values[name], errors="coerce").astype(float)
    else:
        out = pd.Series(np.nan, index=values.index, dtype=float)
    return out


def _first_available(values: pd.DataFrame, recipes: tuple[PerCycle, ...]) -> pd.Series:
    out: pd.Series = pd.Series(np.nan, index=values.index, dtype=float)
    for r in recipes:
        v = float_column(values, r.metric) * r.factor * float_column(values, r.clock)
        out = out.where(out.notna(), v)
    return out


def peaks_from_metrics(values: pd.DataFrame) -> pd.DataFrame:
    """Per launch, the peak figures the report's own metrics give, as ncu's roofline charts compute them.

    Takes the wide ``Report.values`` frame; returns the figure columns of ``PEAK_COLUMNS`` (without
    ``device``, sources and ``peak_source``) plus one ``tensor_<series>_flops`` column per tensor series in
    the report, same index. A figure whose metrics the report lacks is NaN (e.g. ``fp64_flops`` when the
    double-precision chart was not collected); ``resolve_peaks`` fills those.
    """
    out: dict[str, pd.Series] = {}
    for fig, metric in DIRECT_FIGURES.items():
        out[fig] = float_column(values, metric)
    for fig, recipes in PEAK_RECIPES.items():
        out[fig] = _first_available(values, recipes)
    series = tensor_series(values)
    sm_clock = float_column(values, SM_CLOCK)
    per_series = {s.name: float_column(values, f"{TENSOR_PREFIX}{s.name}.sum.peak_sustained") for s in series}
    per_series = {name: peak * sm_clock for name, peak in per_series.items()}
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
# the built-in table


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", name.lower()).strip()


def list_devices() -> list[str]:
    """Names of the GPUs in the built-in table, in table order."""
    return [d.name for d in DEVICES]


def lookup_device(name: str) -> DeviceSpec:
    """The table entry for a GPU name as ncu shows it (``device__attribute_display_name``) or an alias.

    Matching ignores case and punctuation ("NVIDIA A100-SXM4-80GB" == "nvidia a100 sxm4 80gb").
    Raises ``AnalysisError`` naming the known devices when nothing matches.
    """
    key = _norm(name)
    for d in DEVICES:
        if key in {_norm(a) for a in (d.name, *d.aliases)}:
            return d
    known = ", ".join(list_devices())
    raise AnalysisError(
        f"unknown device {name!r}: no built-in peak figures for it (known: {known}); "
        "collect the roofline sections (ncu --set roofline) so the report carries its own peaks, "
        "or pass the peaks as overrides"
    )


def table_figures(spec: DeviceSpec) -> dict[str, Figure]:
    """The table's figures for a device, keyed like the peaks frame columns (only those it has)."""
    figs: dict[str, Figure | None] = {
        "sm_count": spec.sm_count,
        "sm_clock_hz": spec.boost_clock_hz,
        "fp64_flops": spec.fp64_flops,
        "fp32_flops": spec.fp32_flops,
        "fp16_flops": spec.fp16_flops,
        "tensor_fp64_flops": spec.tensor_fp64_flops,
        "tensor_tf32_flops": spec.tensor_tf32_flops,
        "tensor_bf16_flops": spec.tensor_bf16_flops,
        "tensor_fp16_flops": spec.tensor_fp16_flops,
        "tensor_fp8_flops": spec.tensor_fp8_flops,
        "tensor_int8_flops": spec.tensor_int8_ops,
        "dram_bytes_per_s": spec.dram_bytes_per_s,
        "l2_bytes_per_s": spec.l2_bytes_per_s,
        "l1_bytes_per_s": spec.l1_bytes_per_s,
    }
    return {k: v for k, v in figs.items() if v is not None}


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
) -> pd.DataFrame:
    """Peaks per launch: report metrics first, the built-in table per missing figure, user overrides last.

    ``values``: the wide ``Report.values`` frame. ``device``: the GPU name for the table fallback, either one
    name for every launch or a Series of names indexed like ``values`` (the text of
    ``device__attribute_display_name``, which is a string metric and so not in ``values``); None: no
    table fallback. ``overrides``: figure -> value in base units (keys: ``OVERRIDE_KEYS``, e.g.
    ``dram_bytes_per_s``, ``fp32_flops``, ``tensor_bf16_flops``); an override of ``tensor_<t>_flops`` (a
    dense figure) also replaces the roof of every ``tensor_<series>_flops`` column of type t: the value for
    dense series, twice it for sparse ones (2:4 sparsity doubles the MMA rate, as the datasheets state).

    Returns ``PEAK_COLUMNS`` plus the per-series tensor columns, indexed like ``values``. A figure nobody
    provides stays NaN with source "missing". Raises ``AnalysisError`` for an unknown override key or a
    device name the table does not know (only when the table is needed for a missing figure).
    """
    overrides = dict(overrides or {})
    bad = sorted(set(overrides) - OVERRIDE_KEYS)
    if bad:
        raise AnalysisError(f"unknown peak override(s) {', '.join(bad)}; known: {', '.join(sorted(OVERRIDE_KEYS))}")
    frame = peaks_from_metrics(values)
    names = _device_names(values, device)
    frame.insert(0, "device", names)
    sources: dict[str, pd.Series] = {}
    for fig in FIGURES:
        sources[fig] = pd.Series(np.where(frame[fig].notna(), REPORT, MISSING), index=frame.index, dtype=object)

    # table fallback, per distinct device name, only where a figure is missing
    needs = frame[list(FIGURES)].isna().any(axis=1) & names.notna()
    for name in sorted(set(names[needs].dropna().astype(str))):
        spec = lookup_device(name)
        rows = needs & (names == name).fillna(False)
        for fig, figure in table_figures(spec).items():
            fill = rows & frame[fig].isna()
            frame.loc[fill, fig] = figure.value
            sources[fig] = sources[fig].where(~fill, f"table:{spec.name}")

    series_cols = [c for c in frame.columns if c.startswith("tensor_") and c not in FIGURES and c.endswith("_flops")]
    for fig, value in overrides.items():
        frame[fig] = float(value)
        sources[fig] = pd.Series(OVERRIDE, index=frame.index, dtype=object)
        if fig.startswith("tensor_") and fig in FIGURES:
            dtype = fig[len("tensor_") : -len("_flops")]
            for col in series_cols:
                s = parse_series(col[len("tensor_") : -len("_flops")])
                if s is not None and s.src == dtype:
                    frame[col] = float(value) * (SPARSE_SPEEDUP if s.sparsity == "on" else 1.0)

    for fig in FIGURES:
        frame[f"source_{fig}"] = sources[fig].astype("string")
    frame["peak_source"] = _summarise([sources[f] for f in FIGURES]).astype("string")
    ordered = list(PEAK_COLUMNS) + series_cols
    result: pd.DataFrame = frame[ordered]
    return result


def _summarise(parts: list[pd.Series]) -> pd.Series:
    if not parts:
        return pd.Series(dtype=object)
    stacked = pd.concat(parts, axis=1)

    def one(row: pd.Series) -> str:
        present = sorted({str(v) for v in row if v != MISSING})
        if not present:
            return MISSING
        if REPORT in present:  # report first, then the others
            present = [REPORT, *[p for p in present if p != REPORT]]
        return "+".join(present)

    return stacked.apply(one, axis=1)
