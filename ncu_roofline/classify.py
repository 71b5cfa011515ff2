"""The limiter and regime of each launch, from the hierarchical roofline and the Speed Of Light throughputs.

Every launch gets a score (0..1) per limiter: the fraction of that unit's peak it uses.

``hbm``      the larger of the DRAM byte roof (``dram__bytes`` / peak, roofline) and the Speed Of Light DRAM
             figures (``gpu__dram_throughput``, the busiest DRAM member of the memory breakdown);
``l2``       the larger of the L2 byte roof (L2 -> SM bytes) and the L2 unit's Speed Of Light figure: the busiest
             L2 member of ncu's memory breakdown (tag lookups, atomics, writes: work the byte roof does not
             see); where the export has no breakdown, the SOL header ``lts__throughput`` capped at ncu's
             ``Memory Throughput`` (the breakdown maximum, which bounds every member) where DRAM's own figure
             is known (else the cap may be DRAM's figure); without them the header is only an upper bound of
             the level (HEADER_BOUNDS);
``l1``       the same for L1/TEX: byte roof (global/local L1 traffic), busiest L1 member of the breakdown (it sees
             shared memory and bank conflicts), else ``l1tex__throughput`` of elapsed cycles, else the SOL
             header's figure of *active* cycles capped at ``Memory Throughput`` (on a 2 us, one-block kernel the
             active-cycle figure reads ~100 % of almost nothing); without ``Memory Throughput`` that figure is
             no score, only an upper bound of the level (its active cycles are at most the elapsed ones:
             HEADER_BOUNDS);
``compute``  the larger of ``sm__throughput`` (it includes every pipe and the issue slots, so integer and
             address work count; else the busiest pipe, a lower bound of it that cannot settle the SM under its
             bound) and the best FP64/FP32/FP16/tensor fraction of the FLOP roofs.

The limiter is the unit with the highest score. Memory units within ``TIE_MARGIN`` of each other go to the
outer level (DRAM, then L2, then L1): every DRAM byte also crosses L2 and L1, so a tie means the inner
level's activity is the outer level's traffic passing through (stream_triad: DRAM 86.6 % vs L2 header
90.4 % capped at Memory Throughput 86.6 %).

The regime says whether that roof is what holds the kernel back:

``launch``   shorter than ``LAUNCH_DURATION_S`` and below ``BOUND_THRESHOLD`` on every unit: launch latency and
             ramp-up dominate, no roof matters;
``bound``    the limiter is at or above ``BOUND_THRESHOLD`` of its peak;
``latency``  every unit below ``BOUND_THRESHOLD``: the kernel waits (memory latency, dependencies,
             synchronisation, too few warps or blocks); the hints say why.

``compute_pipe`` (only where the limiter is compute): fp64, fp32, fp16, tensor or other (integer, address,
special-function or issue work), from the per-pipe utilisations, else the FLOP roofs, else ncu's own
HighPipeUtilization/SOLFPRoofline rule messages; ``pipe_basis`` says which.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .errors import NcuRooflineError
from .model import LAUNCH_KEY
from .ncurules import ROOFLINE_RULE, RuleRows, has_rules, ncu_pipe_figures, ncu_stalls, rule_ran, sol_verdicts
from .quantities import FP16_PIPE_CCS, MCC_DRAM_BYTES, NO_DRAM_CCS, ROOFLINE_SET, STALL_REASONS, WORK_SECTIONS
from .sections import profile_commands, section_folder
from .thresholds import (
    BALANCED_MARGIN,
    BOUND_THRESHOLD,
    FP16_SHARE_OF_FMA,
    LAUNCH_DURATION_S,
    PIPE_FLOP_MIN,
    PIPE_FLOP_SHARE,
    SMALL_GRID_WAVES,
    STALL_SHARE,
    TIE_MARGIN,
)
from .vector import (
    append,
    as_text,
    choose,
    distinct_rows,
    float_columns,
    formatted,
    joined,
    launch_positions,
    one_of,
    per_distinct,
    percent,
    strings,
    typed_frame,
)

# ------------------------------------------------------------------------------------------------ thresholds
# values and reasons: ncu_roofline.thresholds
from .vocabulary import LIMITER_OF_LEVEL, LIMITERS, MEMORY_LIMITERS, PRECISIONS, RAW_EXPORT, REGIMES

PIPES = (*PRECISIONS, "other")

VERDICT_COLUMNS: dict[str, str] = {
    "report": "string",
    "process_id": "Int64",
    "launch_id": "Int64",
    "limiter": "string",
    "compute_pipe": "string",
    "regime": "string",
    "utilization": "float64",  # the limiter's score, 0..1
    "basis": "string",  # families of figures the verdict used: roofline, speed-of-light, sol-breakdown, pipes
    "reason": "string",  # one line: the limiter, its figure and the regime rule
    "missing": "string",  # what the export lacks for a full verdict, with the ncu option that adds it
    "unmeasured": "string",  # units the export did not measure (UNMEASURED_UNITS, comma-separated); <NA>: none
    "partial": "boolean",  # the verdict stands on the measured units only: an unmeasured unit could change it
    "pipe_basis": "string",  # where compute_pipe comes from: pipes, roofline, ncu-rule
    "roof_fraction": "float64",  # "% of roof": the limiter's score (fraction of its peak) = 1 - headroom
    "headroom": "float64",  # 1 - utilization: share of the limiting unit's peak left unused
    "time_at_roof_ns": "float64",  # the launch's duration had the limiting unit run at its peak
    "score_hbm": "float64",
    "score_l2": "float64",
    "score_l1": "float64",
    "score_compute": "float64",
    "small_grid": "boolean",  # under SMALL_GRID_WAVES waves per SM
    "explanation": "string",  # the figures that decided it, and any disagreement with ncu
    "ncu_bottleneck": "string",  # ncu's SOLBottleneck verdict (NCU_BOTTLENECKS), where the export has it
    "agrees_with_ncu": "boolean",
    "not_checked": "string",  # hint rules that lacked their evidence: "<rule>: <metric> not collected (<option>)"
}

#: Where the analysis sends a user whose export lacks the roofline: our section, one ncu run.
FALLBACK_COMMAND = "ncu --section-folder <ncu-roofline sections> --section NcuRoofline --csv ./app > report.csv"

#: Units a verdict may lack a figure for (``unmeasured``): the four limiters, and ``sm``: the SM's pipes and
#: issue slots, when compute is known only from FLOP counts (which miss integer, tensor and issue work).
UNMEASURED_UNITS = (*LIMITERS, "sm", "shared", "l2_other")
#: The work a memory level's bytes leave out (``shared``: L1's shared-memory work; ``l2_other``: L2's atomics,
#: tag lookups and fills): open where the level is measured by its bytes alone.
BYTES_MISS = ("shared", "l2_other")
#: The memory levels and the work their bytes miss: ncu's Memory Throughput (the busiest of them) caps each.
L1_AND_MEMORY = (*MEMORY_LIMITERS, *BYTES_MISS)
#: Per unit, the figures that measure it and the exact ncu option that collects them (the ``missing`` text).
COLLECT: dict[str, str] = {
    "hbm": "DRAM: gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed (--section SpeedOfLight) or "
    "dram__bytes.sum.per_second (--metrics dram__bytes.sum.per_second)",
    "l2": "L2: lts__throughput.avg.pct_of_peak_sustained_elapsed with the Memory Throughput that caps it "
    "(--section SpeedOfLight) or lts__t_bytes.sum.per_second (--metrics lts__t_bytes.sum.per_second)",
    "l1": "L1: l1tex__throughput.avg.pct_of_peak_sustained_active with the Memory Throughput that caps it "
    "(--section SpeedOfLight), l1tex__throughput.avg.pct_of_peak_sustained_elapsed or "
    "l1tex__t_bytes.sum.per_second (--metrics l1tex__t_bytes.sum.per_second)",
    "compute": "compute: sm__throughput.avg.pct_of_peak_sustained_elapsed (--section SpeedOfLight)",
    "sm": "SM throughput (integer, tensor and issue work the FLOP counts and the pipes miss): "
    "sm__throughput.avg.pct_of_peak_sustained_elapsed (--section SpeedOfLight)",
    "shared": "L1's shared-memory work (its bytes count global and local traffic only): "
    "l1tex__throughput.avg.pct_of_peak_sustained_elapsed (--metrics, or --section SpeedOfLight)",
    "l2_other": "L2's atomics, tag lookups and fills (its bytes count the sectors it sends the SMs only): "
    "lts__throughput.avg.pct_of_peak_sustained_elapsed with the Memory Throughput that caps it (--metrics, or "
    "--section SpeedOfLight)",
    "duration": "kernel duration: gpu__time_duration.sum (--section SpeedOfLight, or --metrics gpu__time_duration.sum)",
    "pipes": "pipe utilisation: sm__inst_executed_pipe_*, sm__pipe_*_cycles_active (--section ComputeWorkloadAnalysis)",
}
#: ... of a memory level whose bytes were measured but whose peak is missing: its Speed Of Light figure (the peaks
#: advice says how to give the peak).
COLLECT_SOL: dict[str, str] = {
    "hbm": "DRAM: gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed (--section SpeedOfLight; its bytes were "
    "measured, its peak is not known)",
    "l2": "L2: lts__throughput.avg.pct_of_peak_sustained_elapsed with the Memory Throughput that caps it "
    "(--section SpeedOfLight; its bytes were measured, its peak is not known)",
    "l1": "L1: l1tex__throughput.avg.pct_of_peak_sustained_elapsed (--section SpeedOfLight; its bytes were "
    "measured, its peak is not known)",
}
#: Integrated GPUs (``quantities.NO_DRAM_CCS``: no ``dram__`` counter, no DRAM throughput in ncu's Speed Of
#: Light): what ``missing`` says of their DRAM instead of COLLECT["hbm"], which they cannot collect. On CC 8.7
#: ncu 2024.2's tensor roofline chart alone reads the memory controller's bytes (MCC_DRAM_BYTES), which the DRAM
#: recipes read too.
_NO_DRAM = "DRAM: ncu has no DRAM counter on this integrated GPU (CC {cc}, the system's memory): not measurable"
_MCC_NOTE = (
    f", but for ncu 2024.2's tensor roofline chart (--section {WORK_SECTIONS['tensor']}), which reads the memory "
    f"controller's {MCC_DRAM_BYTES}, as this analysis does"
)
INTEGRATED_DRAM: dict[str, str] = {
    cc: _NO_DRAM.format(cc=cc) + (_MCC_NOTE if cc == "8.7" else "") for cc in NO_DRAM_CCS
}
#: The roofline's entry in ``missing`` (``{command}``: ``profile_command()``): what collects it, and, since a
#: details page leaves out the charts' metrics a report holds (the hierarchical charts' without a trace), where a
#: report that has them shows them; ...
ROOFLINE_MISSING = (
    f"hierarchical roofline (achieved FLOP and bytes per memory level): --set {ROOFLINE_SET}, or {{command}} (a "
    f"report made with ncu's roofline sections has them on its raw page: {RAW_EXPORT})"
)
#: ... where ncu's roofline chart rule ran for the launch, its metrics were collected and this page leaves them
#: out (the default details page does): the report exported again has them, no second profile needed.
ROOFLINE_NOT_EXPORTED = (
    "hierarchical roofline (achieved FLOP and bytes per memory level): ncu collected the roofline chart's metrics "
    f"(its {ROOFLINE_RULE} rule ran) and this page leaves them out: export the report's raw page ({RAW_EXPORT}); "
    f"every level and precision: --set {ROOFLINE_SET}, or {{command}}"
)
#: ... where a compute-bound launch's busiest pipe is the tensor pipe and its roofline has no tensor work (the
#: tensor chart was not collected): its FP32 and FP16 points say nothing of the work that holds it. (This tool's
#: section collects the tensor work on CC 7.0-9.0 only: the stock section is the advice on every GPU.)
TENSOR_ROOF_MISSING = (
    "tensor roofline (the tensor pipe is this launch's busiest: its tensor FLOPs and their roof): --section "
    f"{WORK_SECTIONS['tensor']} (in --set {ROOFLINE_SET})"
)


def profile_command() -> str:
    """The ncu command that collects everything the analysis reads (with the installed section folder)."""
    try:
        return profile_commands(section_folder())[0]
    except NcuRooflineError:  # an installation without the section files: the generic command stands
        return FALLBACK_COMMAND


# ------------------------------------------------------------------------------------------------ unit table


def _col(frame: pd.DataFrame, name: str) -> np.ndarray:
    if name in frame.columns:
        out: np.ndarray = frame[name].to_numpy(dtype=np.float64)
        return out
    return np.full(len(frame), np.nan)


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``frame`` as dicts keyed by column name (str)."""
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict(orient="records")]


def _roof_columns(
    roof: pd.DataFrame, pos: np.ndarray, n: int, precision: tuple[np.ndarray, pd.Index], value: str, level: str
) -> dict[str, np.ndarray]:
    """Roofline ``value`` at one level per launch (``pos``: each row's launch position, -1 for none; ``n``
    launches), per precision in name order (as a pivot sorts them): the first row of each launch and
    precision. ``precision``: the factorized precision column (codes, names)."""
    if not len(roof):
        return {}
    codes, names = precision
    at_level = (roof["level"] == level).fillna(False).to_numpy(dtype=bool) & (pos >= 0)
    values = roof[value].to_numpy(dtype=np.float64)
    out: dict[str, np.ndarray] = {}
    for code in sorted(range(len(names)), key=lambda c: str(names[c])):
        sel = np.flatnonzero(at_level & (codes == code))
        if not len(sel):
            continue
        launches, first = np.unique(pos[sel], return_index=True)
        column = np.full(n, np.nan)
        column[launches] = values[sel[first]]
        out[str(names[code])] = column
    return out


#: Unit table columns: (name, source, description). Percentages become fractions (0..1).
UNIT_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("sm", "speed-of-light", "Compute (SM) throughput"),
    ("memory", "speed-of-light", "Memory throughput (busiest member of the memory breakdown)"),
    ("dram", "speed-of-light", "DRAM throughput"),
    ("l2", "speed-of-light", "L2 cache throughput"),
    ("l1", "speed-of-light", "L1/TEX cache throughput, of the cycles L1 was active"),
    ("l1_elapsed", "speed-of-light", "L1/TEX cache throughput, of elapsed cycles"),
    ("dram_busiest", "sol-breakdown", "busiest DRAM member of the memory breakdown"),
    ("l2_busiest", "sol-breakdown", "busiest L2 member of the memory breakdown"),
    ("l1_busiest", "sol-breakdown", "busiest L1/TEX member of the memory breakdown"),
    ("dram_roof", "roofline", "DRAM bytes/s of the DRAM roof"),
    ("l2_roof", "roofline", "L2 -> SM bytes/s of the L2 roof"),
    ("l1_roof", "roofline", "L1 global/local bytes/s of the L1 roof"),
    ("fp64", "roofline", "FP64 FLOP/s of the FP64 roof"),
    ("fp32", "roofline", "FP32 FLOP/s of the FP32 roof"),
    ("fp16", "roofline", "FP16 FLOP/s of the FP16 roof"),
    ("tensor", "roofline", "tensor operations/s of the roof of the launch's tensor series"),
    ("pipe_alu", "pipe", "ALU pipe"),
    ("pipe_fma", "pipe", "FMA pipe"),
    ("pipe_fp16", "pipe", "FP16 instructions (on the FMA pipe from CC 8.6)"),
    ("pipe_fp64", "pipe", "FP64 pipe"),
    ("pipe_tensor", "pipe", "tensor pipe"),
    ("pipe_tensor_fp64", "pipe", "tensor pipe, FP64 (DMMA)"),
    ("pipe_tensor_int", "pipe", "tensor pipe, integer (IMMA)"),
    ("pipe_lsu", "pipe", "LSU pipe"),
    ("pipe_xu", "pipe", "XU pipe"),
    ("pipe_uniform", "pipe", "uniform pipe"),
    ("pipe_adu", "pipe", "ADU pipe"),
    ("pipe_cbu", "pipe", "CBU pipe"),
    ("pipe_tma", "pipe", "TMA pipe"),
    ("pipe_tex", "pipe", "TEX pipe"),
    ("pipe_shared", "pipe", "shared pipe (FP64 + tensor dispatch)"),
)

_QUANTITY_OF_UNIT: dict[str, str] = {
    "sm": "sm_throughput_pct",
    "memory": "memory_throughput_pct",
    "dram": "dram_throughput_pct",
    "l2": "l2_throughput_pct",
    "l1": "l1_throughput_pct",
    "l1_elapsed": "l1_throughput_elapsed_pct",
    "dram_busiest": "dram_busiest_pct",
    "l2_busiest": "l2_busiest_pct",
    "l1_busiest": "l1_busiest_pct",
    **{
        p: f"{p}_pct"
        for p, source, _ in UNIT_COLUMNS
        if source == "pipe"  # pipe_alu -> pipe_alu_pct ...
    },
}


def unit_table(quant: pd.DataFrame, roof: pd.DataFrame, *, positions: np.ndarray | None = None) -> pd.DataFrame:
    """Per launch, every unit's utilisation as a fraction of its peak (UNIT_COLUMNS; NaN where unknown).

    Takes the quantities frame (index LAUNCH_KEY) and the roofline frame (ROOFLINE_COLUMNS); ``positions``:
    each roofline row's launch position in the quantities' index, when the caller has them
    (``vector.launch_positions``)."""
    n = len(quant)
    out: dict[str, np.ndarray] = {}
    for unit, quantity in _QUANTITY_OF_UNIT.items():
        out[unit] = _col(quant, quantity) / 100.0
    pos = launch_positions(roof, quant.index) if positions is None else positions
    precision = pd.factorize(roof["precision"]) if len(roof) else (np.zeros(0, dtype=np.int64), pd.Index([]))
    for level in ("dram", "l2", "l1"):
        # a level's traffic is the same on every precision's row: take the first precision that has it
        first = np.full(n, np.nan)
        for column in _roof_columns(roof, pos, n, precision, "bandwidth_fraction", level).values():
            first = np.where(np.isnan(first), column, first)
        out[f"{level}_roof"] = first
    comp = _roof_columns(roof, pos, n, precision, "compute_fraction", "dram")
    for prec in ("fp64", "fp32", "fp16", "tensor"):
        out[prec] = comp[prec] if prec in comp else np.full(n, np.nan)
    frame = pd.DataFrame({name: out[name] for name, _, _ in UNIT_COLUMNS}, index=quant.index)
    return frame


def utilization(
    quant: pd.DataFrame,
    roof: pd.DataFrame,
    verdicts: pd.DataFrame | None = None,
    *,
    units: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Long per-unit utilisation (0..1): report, process_id, launch_id, unit, value, source.

    Units (UNIT_COLUMNS): the Speed Of Light header (sm, memory, dram, l2, l1, l1_elapsed), the busiest
    member per unit of ncu's memory breakdown (*_busiest), the hierarchical roofline (dram_roof, l2_roof,
    l1_roof: bandwidth fractions; fp64, fp32, fp16, tensor: FLOP fractions) and the pipes (pipe_*). With
    ``verdicts``, also the classifier's score per limiter (limiter_hbm, limiter_l2, limiter_l1,
    limiter_compute; source "classifier"). Rows with no value are left out. Unit-major: every launch of one
    unit, then the next unit. ``units``: ``unit_table(quant, roof)`` when the caller has it already."""
    table = unit_table(quant, roof) if units is None else units
    keys = [table.index.to_frame(index=False)]
    parts: list[tuple[int, np.ndarray, str, str]] = [  # (which keys, values, unit, source)
        (0, table[name].to_numpy(dtype=float), name, source) for name, source, _ in UNIT_COLUMNS
    ]
    if verdicts is not None and len(verdicts):
        if len(verdicts) != len(table):
            keys.append(verdicts[list(LAUNCH_KEY)].reset_index(drop=True))
        for lim in LIMITERS:
            parts.append(
                (len(keys) - 1, verdicts[f"score_{lim}"].to_numpy(dtype=float), f"limiter_{lim}", "classifier")
            )
    base = pd.concat(keys, ignore_index=True)
    offset = np.cumsum([0, *(len(k) for k in keys)])
    value = np.concatenate([p[1] for p in parts])
    have = ~np.isnan(value)
    rows = np.concatenate([offset[p[0]] + np.arange(len(p[1])) for p in parts])[have]
    part = np.repeat(np.arange(len(parts)), [len(p[1]) for p in parts])[have]  # each row's part
    out = pd.DataFrame(
        {
            "report": pd.array(base["report"].to_numpy(dtype=object), dtype="string").take(rows),
            "process_id": base["process_id"].astype("Int64").array.take(rows),
            "launch_id": base["launch_id"].astype("Int64").array.take(rows),
            "unit": pd.array(pa.array([p[2] for p in parts], type=pa.large_string()).take(part), dtype="string"),
            "value": value[have],
            "source": pd.array(pa.array([p[3] for p in parts], type=pa.large_string()).take(part), dtype="string"),
        }
    )
    return out


# ------------------------------------------------------------------------------------------------ scores


def _nanmax(*arrays: np.ndarray) -> np.ndarray:
    stacked = np.vstack(arrays)
    have = ~np.isnan(stacked).all(axis=0)
    out = np.full(stacked.shape[1], np.nan)
    out[have] = np.nanmax(stacked[:, have], axis=0)
    return out


def _memory_cap(t: dict[str, np.ndarray]) -> np.ndarray:
    """Memory Throughput as the cap of the SOL headers' L2 and L1 figures, where DRAM's own figure is known too
    (NaN elsewhere). Memory Throughput is the busiest unit of ncu's memory breakdown, DRAM's included: without
    DRAM's figure beside it, a header capped at it may be DRAM's number given to L2 (a `--metrics` list of
    gpu__compute_memory_throughput, lts__throughput and sm__throughput: stream_triad's L2 "87 %" was its DRAM's
    86.8 %, its busiest L2 member 58 %), so the header stays what it is without a cap, a bound. An integrated GPU
    (``no_dram``, set from its CC by ``classify``) has no DRAM in the breakdown: there the cap holds."""
    # DRAM's Speed Of Light figures, of which Memory Throughput is made (its byte roof is not one of them: a
    # DRAM byte roof of 85.0 % beside a Memory Throughput of 86.6 % left the cap DRAM's and L2 at 86.6 %)
    dram_known = ~(np.isnan(t["dram_busiest"]) & np.isnan(t["dram"]))
    if "no_dram" in t:  # an integrated GPU (its CC): no DRAM in the breakdown, so the cap is L2's or L1's
        dram_known |= t["no_dram"] == 1.0
    out: np.ndarray = np.where(dram_known, t["memory"], np.nan)
    return out


def _capped_header(value: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """A SOL header figure capped at Memory Throughput; NaN where either is missing (a cap is no value, and a
    figure without its cap is only a bound: HEADER_BOUNDS)."""
    out: np.ndarray = np.minimum(value, cap)  # NaN if either is
    return out


#: The SOL header figures that bound a memory level from above where Memory Throughput, which caps them, is not
#: in the export: the level (the unit-table column of the same name) -> what the reason calls its figure.
#: ``lts__throughput`` counts more than ncu's memory breakdown does (up to 36 points over its busiest L2 member on
#: the H200 samples: stream_triad's 90 % against DRAM's 87 %); L1's figure of *active* cycles is at least its
#: figure of elapsed ones (a one-block launch reads 67-178 % against 0.2 %). Under the bound threshold such a
#: bound settles its level.
HEADER_BOUNDS: dict[str, str] = {
    "l2": "SOL L2 throughput",
    "l1": "its throughput of active cycles",
}


def scores(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per launch and limiter, the score (0..1) and the unit-table column that gave it.

    Takes ``unit_table``; returns (scores, sources), columns LIMITERS."""
    score, source = _scores(float_columns(table), [c for c in table.columns if c.startswith("pipe_")])
    return pd.DataFrame(score, index=table.index), pd.DataFrame(source, index=table.index)


def _scores(
    t: dict[str, np.ndarray], pipe_columns: Sequence[str]
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """``scores`` over the unit table's columns ``t`` (``pipe_columns``: its pipe_* columns): per limiter,
    the score and its source (object array, None where no score)."""
    # The SOL headers' L2 and L1 figures score only capped at Memory Throughput: without it each is an upper
    # bound of the level (HEADER_BOUNDS; classify keeps it as such), not a score
    cap = _memory_cap(t)
    l2_sol = np.where(np.isnan(t["l2_busiest"]), _capped_header(t["l2"], cap), t["l2_busiest"])
    l1_sol, sol_l1_name = _l1_sol(t)
    sol_l2_name = choose(np.isnan(t["l2_busiest"]), "l2", "l2_busiest")
    flop = _nanmax(t["fp64"], t["fp32"], t["fp16"], t["tensor"])
    pipes = _nanmax(*(t[c] for c in pipe_columns))
    sm = np.where(np.isnan(t["sm"]), pipes, t["sm"])  # pipes only where the SOL SM figure is missing
    sm_name = choose(np.isnan(t["sm"]), "pipes", "sm")

    # each candidate's name: one for every launch, or per launch (object arrays)
    candidates: dict[str, list[tuple[np.ndarray, str | np.ndarray]]] = {
        "hbm": [(t["dram_roof"], "dram_roof"), (t["dram_busiest"], "dram_busiest"), (t["dram"], "dram")],
        "l2": [(t["l2_roof"], "l2_roof"), (l2_sol, sol_l2_name)],
        "l1": [(t["l1_roof"], "l1_roof"), (l1_sol, sol_l1_name)],
        "compute": [(sm, sm_name), (flop, "flop roof")],
    }
    score: dict[str, np.ndarray] = {}
    source: dict[str, np.ndarray] = {}
    for lim, cands in candidates.items():
        values = np.vstack([c[0] for c in cands])
        filled = np.where(np.isnan(values), -np.inf, values)
        best = filled.argmax(axis=0)
        s = values[best, np.arange(values.shape[1])]
        score[lim] = s
        src = np.full(len(s), None, dtype=object)
        for i, (_, name) in enumerate(cands):
            at = best == i
            src[at] = name[at] if isinstance(name, np.ndarray) else name
        src[np.isnan(s)] = None
        source[lim] = src
    return score, source


def _l1_sol(t: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """L1's Speed Of Light figure (it sees shared memory and bank conflicts, which L1's bytes do not): the busiest
    L1 member of the breakdown or ``l1tex__throughput`` of elapsed cycles, whichever is higher (they are equal on
    every launch of the H200 raw pages: the throughput is the busiest member; a member left out of the export
    leaves the others' busiest below it), else the SOL header's capped at Memory Throughput; NaN where none.
    With it, the unit-table column that gave it (object array)."""
    l1_header = _capped_header(t["l1"], _memory_cap(t))
    elapsed = np.fmax(t["l1_busiest"], t["l1_elapsed"])
    out: np.ndarray = np.where(np.isnan(elapsed), l1_header, elapsed)
    name = choose(
        np.isnan(t["l1_busiest"]) | (t["l1_elapsed"] > t["l1_busiest"]),
        choose(np.isnan(t["l1_elapsed"]), "l1", "l1_elapsed"),
        "l1_busiest",
    )
    return out, name


def pick_limiter(score: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The limiter per launch (LIMITERS, or None without any score) and its score.

    The highest score wins; when it is a memory unit, the outermost memory unit within TIE_MARGIN of it is
    taken instead (DRAM before L2 before L1), within TIE_MARGIN of the top score (relative)."""
    arr = score[list(LIMITERS)].to_numpy(dtype=float)
    n = len(arr)
    limiter = np.full(n, None, dtype=object)
    value = np.full(n, np.nan)
    if not n:
        return limiter, value
    names = np.asarray(LIMITERS, dtype=object)
    filled = np.where(np.isnan(arr), -np.inf, arr)
    rows = np.arange(n)
    best = filled.argmax(axis=1)  # the first of equal scores, as a scan in LIMITERS order
    top = filled[rows, best]
    ok = np.isfinite(top)
    outer = len(MEMORY_LIMITERS)  # the memory limiters lead LIMITERS, outermost first
    with np.errstate(invalid="ignore"):
        near = filled[:, :outer] >= (top * (1.0 - TIE_MARGIN))[:, None]
    best = np.where(ok & one_of(names[best], *MEMORY_LIMITERS), near.argmax(axis=1), best)
    limiter[ok] = names[best[ok]]
    value[ok] = arr[rows[ok], best[ok]]
    return limiter, value


# ------------------------------------------------------------------------------------------------ pipe

#: The pipes ``pipes_pipe`` compares, in the order that breaks a tie. ``fp16``: the FP16 instructions, a pipe of
#: their own on FP16_PIPE_CCS, a share of the FMA pipe's from CC 8.6 (there at most the FMA pipe's figure, so busiest
#: only where the FMA pipe's own figure would have named FP16 as well).
BUSIEST_PIPES = ("tensor", "fp64", "fma", "fp16", "alu", "xu", "lsu", "uniform", "adu", "cbu", "tma", "tex")


def _first_max(columns: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the position of the largest known value among ``columns`` (the first of equal ones), that
    value, and whether any is known."""
    stacked = np.vstack(columns)
    known = ~np.isnan(stacked)
    best = np.where(known, stacked, -np.inf).argmax(axis=0)
    return best, stacked[best, np.arange(stacked.shape[1])], known.any(axis=0)


def pipes_pipe(t: dict[str, np.ndarray], rule_pipe: np.ndarray) -> np.ndarray:
    """Per launch, the compute pipe its busiest pipe names (PIPES; None where the tensor, FP64, FMA or ALU pipe's
    figure is not known, or where the answer would be "other" on a GPU whose FP16 instructions have a pipe of
    their own (FP16_PIPE_CCS: the FMA pipe does not see them) and neither that pipe nor the FP16 FLOPs are known).

    ``t``: the unit table's columns (``fp16_pipe``: 1.0 on a launch of FP16_PIPE_CCS); ``rule_pipe``:
    ``rules_pipe`` (ncu's HighPipeUtilization family), which tells FP16 from FP32/IMAD on a busy FMA pipe when
    neither the FP16 share nor the FP32 FLOPs are known."""
    tensor, tensor_int = t["pipe_tensor"], t["pipe_tensor_int"]
    tensor = np.where(np.isnan(tensor_int), tensor, np.maximum(np.where(np.isnan(tensor), 0.0, tensor), tensor_int))
    best, _, known = _first_max([tensor, *(t[f"pipe_{p}"] for p in BUSIEST_PIPES[1:])])
    # the busiest of the pipes measured names the work only where the pipes of every kind of work are (a tensor
    # GEMM without its tensor pipe's figure would read as its busiest other pipe: "other")
    known &= np.logical_and.reduce([~np.isnan(tensor), *(~np.isnan(t[f"pipe_{p}"]) for p in ("fp64", "fma", "alu"))])
    busiest = np.asarray(BUSIEST_PIPES, dtype=object)[best]
    fma, fp16, fp32, fp16_flops = t["pipe_fma"], t["pipe_fp16"], t["fp32"], t["fp16"]
    with np.errstate(invalid="ignore"):
        fp16_share = ~np.isnan(fp16) & (fp16 >= FP16_SHARE_OF_FMA * fma)
        # no FP16 pipe figure (a details page), but the FP16 FLOP roof explains the busy FMA pipe
        fp16_roof = ~np.isnan(fp16_flops) & (fp16_flops >= PIPE_FLOP_SHARE * fma) & ~(fp16_flops <= fp32)
        imad = fp32 < PIPE_FLOP_SHARE * fma  # the FMA pipe busy with integer multiply-adds, not FP32 FLOPs
    on_fma = np.full(len(fma), "fp32", dtype=object)
    ruled = np.isnan(fp16) & one_of(rule_pipe, "fp16", "fp32", "other")
    on_fma[ruled] = rule_pipe[ruled]
    on_fma = choose(~np.isnan(fp32), choose(imad, "other", "fp32"), on_fma)
    on_fma[fp16_roof | fp16_share] = "fp16"
    out = choose(one_of(busiest, "tensor", "fp64", "fp16"), busiest, choose(busiest == "fma", on_fma, "other"))
    out[~known] = None
    own_fp16 = t.get("fp16_pipe", np.zeros(len(fma))) == 1.0
    out[(out == "other") & own_fp16 & np.isnan(fp16) & np.isnan(fp16_flops)] = None  # FP16 work unseen
    return out


def flops_pipe(t: dict[str, np.ndarray], sm: np.ndarray) -> np.ndarray:
    """Per launch, the precision whose FLOP roof explains the SM's work (None where the roofs cannot say)."""
    best, frac, known = _first_max([t[p] for p in PRECISIONS])
    with np.errstate(invalid="ignore"):
        explains = (frac >= PIPE_FLOP_MIN) & (np.isnan(sm) | (frac >= PIPE_FLOP_SHARE * sm))
    # "other" (integer, address, issue work) only where every precision's roof is measured and none explains
    # the SM: an idle tensor roof beside unmeasured FP roofs (one chart's section picked by hand) could hide FP64
    # work (fp64_fma), as idle FP roofs without tensor counters could hide tensor work
    every = np.logical_and.reduce([~np.isnan(t[p]) for p in PRECISIONS])
    out = choose(explains, np.asarray(PRECISIONS, dtype=object)[best], choose(every, "other", None))
    out[~known] = None
    return out


def rules_pipe(ncu: pd.DataFrame) -> np.ndarray:
    """Per launch, the pipe family of ncu's HighPipeUtilization rule (None: no rule, or every pipe idle); FP32
    becomes "other" when SOLFPRoofline's FP32 figure is under PIPE_FLOP_SHARE of the pipe's.

    Takes ``ncu_figures``."""
    named = ncu["ncu_pipe_family"].astype("string").fillna("").to_numpy(dtype=object)
    family = choose((named == "") | (named == "idle"), None, named)
    fp32_pct = ncu["ncu_fp32_pct"].to_numpy(dtype=np.float64)
    pipe_pct = ncu["ncu_pipe_pct"].to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        imad = np.isfinite(fp32_pct) & np.isfinite(pipe_pct) & (fp32_pct < PIPE_FLOP_SHARE * pipe_pct)
    return choose((family == "fp32") & imad, "other", family)


#: Where ncu collects the stall reasons a latency verdict names.
STALL_SECTION = "--section WarpStateStats, exported with --page raw"


def stall_summary(quant: pd.DataFrame, rules: pd.DataFrame | RuleRows | None = None) -> np.ndarray:
    """Per launch (positional): the dominant warp stall reasons, "stalls: long scoreboard 45 %, ..." (each
    reason's share of the warp cycles per issued instruction, those at or above STALL_SHARE, at most three);
    without the stall metrics, ncu's CPIStall rule message (a details page); else the section that collects
    them. Takes the quantities (``stall_*`` columns, ``warp_cycles_per_issue``, index LAUNCH_KEY) and ncu's
    rule rows (or their ``ncu_roofline.ncurules.rule_rows``)."""
    n = len(quant)
    cols = [f"stall_{r}" for r in STALL_REASONS if f"stall_{r}" in quant.columns and r != "selected"]
    missing = np.full(n, f"stall reasons not collected ({STALL_SECTION})", dtype=object)
    # the section ran (its warp cycles per instruction are here), its reasons are on the raw page only
    missing[~np.isnan(_col(quant, "warp_cycles_per_issue"))] = (
        "stall reasons not on this page (WarpStateStats collected them: export the raw page, --page raw)"
    )
    if rules is not None and has_rules(rules):
        cpi = ncu_stalls(rules, quant.index)
        what = cpi["ncu_stall"]
        what[pd.isna(what)] = ""
        cyc = cpi["ncu_stall_cycles"]
        said = what != ""
        missing[said] = (
            "stalls (ncu's CPIStall rule): " + formatted(cyc[said], "{:.1f}")
            + " cycles per instruction " + what[said]
        )  # fmt: skip
    if not cols:
        return missing
    stalls = quant[cols].to_numpy(dtype=np.float64)
    have = ~np.isnan(stalls).all(axis=1)
    total = _col(quant, "warp_cycles_per_issue")
    summed = np.nansum(stalls, axis=1)
    of_sum = np.isnan(total) | (total <= 0)  # the shares of the reasons' sum: said so below
    total = np.where(of_sum, summed, total)
    # reasons not measured: a share not shown is not a small one (but for the warp-group MMA's, Hopper's and newer
    # only: every chip of ncu 2024.2's catalogs has the others)
    every_chip = np.array([c != "stall_gmma" for c in cols])
    unread = np.isnan(stalls[:, every_chip]).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.nan_to_num(stalls / total[:, None], nan=0.0)
    order = np.argsort(-share, axis=1, kind="stable")[:, :3]
    names = np.array([c[len("stall_") :].replace("_", " ") for c in cols], dtype=object)
    rows = np.arange(n)
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    for k in range(order.shape[1]):  # the k-th busiest reason of every launch at once
        pick = order[:, k]
        val = share[rows, pick]
        keep = val >= STALL_SHARE
        part = np.full(n, "", dtype=object)
        part[keep] = (
            names[pick[keep]] + " " + np.rint(val[keep] * 100).astype(np.int64).astype(str).astype(object) + "%"
        )
        parts.append((keep, part))
    text = joined(parts, ", ", n)
    found = text.copy()
    found[text != ""] = "stalls: " + text[text != ""]
    found[(text == "") & (unread == 0)] = f"no stall reason above {STALL_SHARE:.0%} of the warp cycles"
    found[(text == "") & (unread > 0)] = f"no measured stall reason above {STALL_SHARE:.0%} of the warp cycles"
    found = append(
        found, have & of_sum, " (shares of the measured reasons' sum: warp cycles per instruction not measured)"
    )
    found = append(
        found,
        have & (unread > 0),
        "; ",
        unread.astype(str).astype(object),
        f" of {int(every_chip.sum())} stall reasons not measured",
    )
    out: np.ndarray = choose(have, found, missing)
    return out


# ------------------------------------------------------------------------------------------------ classify


#: How the reason names the figure that gave a score (``scores`` sources).
SOURCE_WORDS: dict[str, str] = {
    "dram_roof": "DRAM byte roof",
    "l2_roof": "L2 byte roof",
    "l1_roof": "L1 byte roof",
    "dram": "SOL DRAM throughput",
    "dram_busiest": "busiest DRAM unit of the SOL memory breakdown",
    "l2": "SOL L2 throughput, capped at Memory Throughput",
    "l2_busiest": "busiest L2 unit of the SOL memory breakdown",
    "l1": "SOL L1/TEX throughput of active cycles, capped at Memory Throughput",
    "l1_elapsed": "SOL L1/TEX throughput",
    "l1_busiest": "busiest L1 unit of the SOL memory breakdown",
    "sm": "SOL SM throughput",
    "pipes": "busiest pipe",
    "flop roof": "FLOP roof",
}


def _roof_measured(roof: pd.DataFrame, index: pd.Index) -> dict[str, np.ndarray]:
    """Per memory limiter (hbm, l2, l1), the launches (``index`` order) whose achieved bytes per second at
    that level the roofline frame has, with or without the level's peak; and under ``tensor``, those whose
    tensor work it has (measured or estimated)."""
    n = len(index)
    if not len(roof) or "achieved_bytes_per_s" not in roof.columns:
        return {}
    pos = launch_positions(roof, index)
    has = ~np.isnan(roof["achieved_bytes_per_s"].to_numpy(dtype=float, na_value=np.nan)) & (pos >= 0)
    levels = roof["level"].astype(object).to_numpy()
    out: dict[str, np.ndarray] = {}
    for level, limiter in LIMITER_OF_LEVEL.items():
        at = np.zeros(n, dtype=bool)
        at[pos[has & (levels == level)]] = True
        out[limiter] = at
    work = ~np.isnan(roof["achieved_flops"].to_numpy(dtype=float, na_value=np.nan)) & (pos >= 0)
    tensor = np.zeros(n, dtype=bool)
    tensor[pos[work & (roof["precision"].astype(object).to_numpy() == "tensor")]] = True
    out["tensor"] = tensor
    return out


@dataclass(frozen=True)
class _Decision:
    """Every launch's verdict before its texts (``_decide``), each field positional over the launches.

    ``t``: the unit table's float columns; ``s`` and ``source``: each limiter's score and the figure that gave it;
    ``lim``/``value``: the limiter (None: no verdict) and its score (NaN without a verdict); ``unknown``: per
    UNMEASURED_UNITS, where it was not measured; ``open_level``: where such a unit could still be at its bound
    (nothing caps it under the threshold); ``upper``: a level's SOL header figure where only that measures it
    (HEADER_BOUNDS); ``capped``: ncu's Memory Throughput measured and under the threshold; ``basis``: the figure
    families a launch has; ``have_roof``: where it has the roofline's work."""

    t: dict[str, np.ndarray]
    s: dict[str, np.ndarray]
    source: dict[str, np.ndarray]
    lim: np.ndarray
    value: np.ndarray
    verdict: np.ndarray
    bound: np.ndarray
    below: np.ndarray
    regime: np.ndarray
    duration: np.ndarray
    unknown: dict[str, np.ndarray]
    open_level: dict[str, np.ndarray]
    upper: dict[str, np.ndarray]
    capped: np.ndarray
    basis: np.ndarray
    have_roof: np.ndarray

    @property
    def lim_memory(self) -> np.ndarray:
        return one_of(self.lim, *MEMORY_LIMITERS)


def _decide(table: pd.DataFrame, cc_text: pd.Series | None, duration: np.ndarray) -> _Decision:
    """The limiter, its score and the regime of every launch of the unit table (see ``classify``), and what was
    left unmeasured on the way."""
    t = float_columns(table)
    if cc_text is not None:  # an integrated GPU has no DRAM: Memory Throughput is its L2's and L1's busiest
        t["no_dram"] = cc_text.isin(list(NO_DRAM_CCS)).fillna(False).to_numpy(dtype=float)
        t["fp16_pipe"] = cc_text.isin(list(FP16_PIPE_CCS)).fillna(False).to_numpy(dtype=float)
    s, source = _scores(t, [c for c in table.columns if c.startswith("pipe_")])
    limiter, value = pick_limiter(pd.DataFrame(s))

    # the roofline's work: without it a launch has no point on the roofline (a details page's DRAM bytes over a
    # table's DRAM peak give a byte roof, not the hierarchical roofline the report may hold)
    have_roof = table[["fp64", "fp32", "fp16", "tensor"]].notna().any(axis=1).to_numpy()
    have_sol = table[["sm", "memory", "dram", "l2", "l1"]].notna().any(axis=1).to_numpy()
    have_breakdown = table[["dram_busiest", "l2_busiest", "l1_busiest"]].notna().any(axis=1).to_numpy()
    have_pipes = table[[c for c in table.columns if c.startswith("pipe_")]].notna().any(axis=1).to_numpy()
    # sm__throughput is the busiest of the SM's sub-units (pipes, issue slots, ...): the pipes alone are a lower
    # bound of it (two llm_full launches: busiest pipe 37-40 %, SM throughput over 60 %), so they can show the SM
    # at its bound but cannot settle that it is under it
    have_sm = table["sm"].notna().to_numpy()
    families = ("roofline", "speed-of-light", "sol-breakdown", "pipes")
    basis_of = np.array(["+".join(f for b, f in enumerate(families) if code >> b & 1) for code in range(16)], object)
    basis = basis_of[have_roof * 1 + have_sol * 2 + have_breakdown * 4 + have_pipes * 8]

    unknown = {k: np.isnan(s[k]) for k in LIMITERS}
    unknown["sm"] = ~unknown["compute"] & ~have_sm  # compute from FLOP counts or pipes only
    # L1 from its bytes only (the NERSC recipe, a --metrics list): its shared-memory work is not in them (a 32-way
    # bank-conflict kernel at 100 % of L1 reads 0 % of L1 bytes), so L1 could be busier than its score
    unknown["shared"] = ~unknown["l1"] & np.isnan(_l1_sol(t)[0])
    # L2 from its bytes only, likewise: atomics on few addresses keep L2 busy with few bytes (atomic_hot: 1 % of
    # L2's bytes, its atomic unit 100 % busy)
    unknown["l2_other"] = ~unknown["l2"] & np.isnan(t["l2_busiest"]) & np.isnan(t["l2"])
    with np.errstate(invalid="ignore"):
        bound = value >= BOUND_THRESHOLD
        below = value < BOUND_THRESHOLD
    # nothing measured is near its roof, and a memory level that was not measured may be the one that is: no
    # verdict. With every memory level measured and only the SM's non-FP pipes open (the NERSC --metrics
    # recipe), the latency/launch verdict stands, marked partial below.
    # ncu's Memory Throughput is its busiest memory unit (the breakdown holds DRAM, L2 and L1; DRAM is at most
    # Memory Throughput on every launch of the H200 exports, L2 and L1 are capped at it here): a level left
    # unmeasured is at most that, so under the bound threshold it cannot be the one at its bound (an integrated
    # GPU, which has no DRAM counter, still gets its latency and launch verdicts)
    # a level with only its SOL header figure and nothing to cap it (HEADER_BOUNDS) is at most that figure
    upper = {k: np.where(unknown[k], t[k], np.nan) for k in HEADER_BOUNDS}
    with np.errstate(invalid="ignore"):
        capped = ~np.isnan(t["memory"]) & (t["memory"] < BOUND_THRESHOLD)
        open_level = {k: unknown[k] & ~capped if k in L1_AND_MEMORY else unknown[k] for k in UNMEASURED_UNITS}
        for k, bound_of in upper.items():
            open_level[k] &= ~(bound_of < BOUND_THRESHOLD)
    lim = limiter.copy()
    lim[below & np.logical_or.reduce([open_level[k] for k in LIMITERS])] = None
    # ncu's Memory Throughput at its bound while every memory level measured is under it: the work their bytes
    # miss is (the L1 bank-conflict kernel measured by its bytes reads latency-bound, ncu's memory 100 %)
    with np.errstate(invalid="ignore"):
        unseen = t["memory"] >= BOUND_THRESHOLD
    lim[below & unseen & np.logical_or.reduce([open_level[k] for k in BYTES_MISS])] = None
    verdict = ~pd.isna(lim)
    value = np.where(verdict, value, np.nan)

    short = ~np.isnan(duration) & (duration < LAUNCH_DURATION_S)
    regime = choose(verdict, choose(bound, "bound", choose(short, "launch", "latency")), None)
    return _Decision(
        t=t, s=s, source=source, lim=lim, value=value, verdict=verdict, bound=bound, below=below, regime=regime,
        duration=duration, unknown=unknown, open_level=open_level, upper=upper, capped=capped, basis=basis,
        have_roof=have_roof,
    )  # fmt: skip


def _compute_pipe(d: _Decision, ncu: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per compute-bound launch, the busiest compute pipe and what named it (``pipe_basis``): the pipe
    utilisations, else the FLOP counts of the roofline, else ncu's rule, the first of these that answers; None
    elsewhere."""
    n = len(d.lim)
    compute = d.lim == "compute"
    rule_pipe = rules_pipe(ncu)
    pipe = np.full(n, None, dtype=object)
    pipe_basis = np.full(n, None, dtype=object)
    for found, name in (  # in reverse order: a later answer overwrites an earlier one
        (rule_pipe, "ncu-rule"),
        (flops_pipe(d.t, d.t["sm"]), "roofline"),
        (pipes_pipe(d.t, rule_pipe), "pipes"),
    ):
        answers = compute & ~pd.isna(found)
        pipe[answers] = found[answers]
        pipe_basis[answers] = name
    return pipe, pipe_basis


def _missing(
    d: _Decision,
    measured: dict[str, np.ndarray],
    cc_text: pd.Series | None,
    chart_ran: np.ndarray,
    pipe: np.ndarray,
    command: str,
) -> np.ndarray:
    """Per launch, "; "-joined, what collects each figure it lacks (``missing``): the unmeasured units, the
    roofline's work, the duration of a verdict, the pipes of a compute verdict, the tensor roofline of a launch
    its tensor pipe holds. ``measured``: per memory limiter, where its bytes were measured (there its peak is
    missing, not its metrics), and where the tensor work was (``_roof_measured``)."""
    n = len(d.lim)
    collect = []  # per unmeasured unit what collects it; DRAM on an integrated GPU: why nothing can
    for k in UNMEASURED_UNITS:
        unknown = d.unknown[k]
        bytes_known = measured.get(k, np.zeros(n, dtype=bool))
        if k == "hbm" and cc_text is not None:
            on = {c: cc_text.eq(c).fillna(False).to_numpy(dtype=bool) & unknown for c in INTEGRATED_DRAM}
            integrated = np.logical_or.reduce([np.zeros(n, dtype=bool), *on.values()])
            collect.append((unknown & ~integrated & ~bytes_known, COLLECT[k]))
            collect.append((unknown & ~integrated & bytes_known, COLLECT_SOL[k]))
            collect += [(where, INTEGRATED_DRAM[c]) for c, where in on.items()]
        else:
            collect.append((unknown & ~bytes_known, COLLECT[k]))
            if k in COLLECT_SOL:
                collect.append((unknown & bytes_known, COLLECT_SOL[k]))
    have_roof = d.have_roof
    return joined(
        [
            *collect,
            (~have_roof & ~chart_ran, ROOFLINE_MISSING.format(command=command)),
            (~have_roof & chart_ran, ROOFLINE_NOT_EXPORTED.format(command=command)),
            (d.verdict & np.isnan(d.duration), COLLECT["duration"]),
            ((d.lim == "compute") & pd.isna(pipe), COLLECT["pipes"]),
            (
                (d.lim == "compute") & (pipe == "tensor") & have_roof & ~measured.get("tensor", np.zeros(n, bool)),
                TENSOR_ROOF_MISSING,
            ),
        ],
        "; ",
        n,
    )


def _reason(d: _Decision, unmeasured: np.ndarray, stalls: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per launch, the verdict's reason (``reason``; "" where there is none), whether the verdict is partial
    (a unit that could hold the launch not measured, or a latency verdict without the duration), and where there
    is no verdict for want of a unit's figures (``no_verdict``: the reason says which). ``unmeasured``: the
    launches' ", "-joined unmeasured units; ``stalls``: ``stall_summary``."""
    n = len(d.lim)
    t, verdict, bound, below, lim_memory = d.t, d.verdict, d.bound, d.below, d.lim_memory
    # a unit at its bound holds the kernel; an unmeasured memory level (or, for a memory limiter, the SM
    # pipes) could be busier still, so the limiter is not settled; no unit holding it: any unmeasured one
    still_open = [(d.open_level[k] & (below | lim_memory | (k in L1_AND_MEMORY)), k) for k in UNMEASURED_UNITS]
    open_units = joined(still_open, ", ", n)
    several_open = np.sum([where for where, _ in still_open], axis=0) > 1
    # without the duration a latency verdict may be a launch-bound one (a 2 us launch of one block): not settled
    untimed_latency = (d.regime == "latency") & np.isnan(d.duration)
    partial = verdict & ((open_units != "") | untimed_latency)
    bounded = joined([(verdict & d.unknown[k] & d.capped, k) for k in MEMORY_LIMITERS], ", ", n)

    words = per_distinct(
        choose(verdict, np.stack([d.source[k] for k in LIMITERS], axis=1)[np.arange(n), _limiter_position(d.lim)], ""),
        lambda src: SOURCE_WORDS.get(str(src), str(src)),
    )
    u = percent(d.value)
    any_unknown = np.logical_or.reduce([d.unknown[k] for k in UNMEASURED_UNITS])
    every = choose(any_unknown, "every measured unit", "every unit")
    unit_text = np.where(verdict, d.lim, "").astype(object)
    reason = choose(
        bound, unit_text + " at " + u + " of its peak (" + words + f"); bound (>= {BOUND_THRESHOLD:.0%})", ""
    )
    # the regime leads: no unit holds the kernel; the busiest one is context, not "the limiter"
    launch = d.regime == "launch"
    latency = d.regime == "latency"
    reason = append(
        reason,
        launch,
        f"launch-bound (under {LAUNCH_DURATION_S * 1e6:.0f} us, ",
        every,
        f" under {BOUND_THRESHOLD:.0%})",
    )
    reason = append(reason, latency, "latency-bound (", every, f" under {BOUND_THRESHOLD:.0%})")
    # without the kernel's duration a short launch cannot be told from a latency-bound one: say so
    reason = append(
        reason,
        untimed_latency,
        f" or launch-bound (duration not measured: launch-bound if under {LAUNCH_DURATION_S * 1e6:.0f} us)",
    )
    reason = append(reason, launch | latency, "; busiest unit ", unit_text, " at ", u, " (", words, "); ", stalls)
    reason = append(
        reason,
        partial & (open_units != ""),
        "; partial: ",
        open_units,
        " not measured",
        choose(
            below,
            choose(several_open, " (could be at their bound)", " (could be at its bound)"),
            choose(lim_memory, " (could be busier)", ""),
        ),
    )
    reason = append(
        reason,
        bounded != "",
        "; ",
        bounded,
        " not measured, at most ncu's Memory Throughput (",
        percent(t["memory"]),
        ")",
    )
    nothing_scored = np.logical_and.reduce([d.unknown[k] for k in LIMITERS])
    # no verdict, and why: the units not measured (every one, where nothing was: a page of ncu's rule results only)
    no_verdict = ~verdict & (unmeasured != "") & ((d.basis != "") | nothing_scored)
    with np.errstate(invalid="ignore"):
        memory_bound = t["memory"] >= BOUND_THRESHOLD  # ncu's busiest memory unit: some level is at its bound
    at = no_verdict & ~memory_bound
    reason[at] = (
        "no verdict: " + unmeasured[at] + f" not measured, and every measured unit is under "
        f"{BOUND_THRESHOLD:.0%} of its peak"
    )
    at &= nothing_scored  # no unit has a score: nothing to be under its bound
    reason[at] = "no verdict: " + unmeasured[at] + " not measured"
    at = no_verdict & memory_bound
    reason[at] = (
        "no verdict: "
        + unmeasured[at]
        + " not measured, and ncu's Memory Throughput (its busiest memory unit) is "
        + percent(t["memory"])[at]
        + ": a memory level that was not measured is at its bound"
    )
    for k, words_of in HEADER_BOUNDS.items():
        reason = append(
            reason,
            # where the bound decides something: no verdict, the level left open, or a latency/launch verdict
            (no_verdict | (verdict & (d.open_level[k] | below))) & ~np.isnan(d.upper[k]),
            f"; {k} at most ",
            percent(d.upper[k]),
            f" ({words_of}; no Memory Throughput to cap it)",
        )
    return reason, partial, no_verdict


def _explanation(d: _Decision, reason: np.ndarray, pipe: np.ndarray, pipe_basis: np.ndarray) -> np.ndarray:
    """Per launch, the reason with the other units' scores, the memory levels tied with the limiter, the compute
    pipe and a byte roof well under a memory limiter's score (``explanation``)."""
    n = len(d.lim)
    lim, s, value, t, lim_memory = d.lim, d.s, d.value, d.t, d.lim_memory
    others = joined([(d.verdict & (lim != k) & ~np.isnan(s[k]), k + " " + percent(s[k])) for k in LIMITERS], ", ", n)
    explanation = append(reason, others != "", "; others: ", others)
    with np.errstate(invalid="ignore"):
        tied = joined([(lim_memory & (lim != k) & (s[k] >= value) & (s[k] > 0), k) for k in MEMORY_LIMITERS], ", ", n)
        roof_frac = np.full(n, np.nan)
        for name, column in (("hbm", "dram_roof"), ("l2", "l2_roof"), ("l1", "l1_roof")):
            roof_frac = np.where(lim == name, t[column], roof_frac)
        busy = lim_memory & ~np.isnan(roof_frac) & (roof_frac < value - BALANCED_MARGIN)
    explanation = append(
        explanation, tied != "", "; tied with ", tied, ": the outer level holds (its traffic crosses the inner ones)"
    )
    with_pipe = (lim == "compute") & ~pd.isna(pipe)
    explanation = append(explanation, with_pipe, "; pipe ", pipe, " (", pipe_basis, ")")
    return append(
        explanation,
        busy,
        "; the byte roof shows only ",
        percent(roof_frac),
        ": the unit is busy with work it does not count (shared memory, tag lookups, atomics, local memory)",
    )


def _dram_word(texts: np.ndarray, where: np.ndarray) -> np.ndarray:
    """``texts`` with the DRAM unit's key (the word ``hbm``) said ``dram`` at ``where`` (GPUs not known to have
    HBM: a T4's, a GeForce card's GDDR)."""
    if not where.any():
        return texts
    said = pc.replace_substring_regex(pa.array(texts[where], pa.string()), pattern=r"\bhbm\b", replacement="dram")
    out = texts.copy()
    out[where] = said.to_numpy(zero_copy_only=False)
    return out


def classify(
    quant: pd.DataFrame,
    roof: pd.DataFrame,
    rules: pd.DataFrame | RuleRows | None = None,
    *,
    units: pd.DataFrame | None = None,
    ncu: pd.DataFrame | None = None,
    cc: Sequence[object] | np.ndarray | None = None,
    hbm: Sequence[object] | np.ndarray | None = None,
) -> pd.DataFrame:
    """One verdict per launch (VERDICT_COLUMNS), same order as ``quant``.

    Takes the quantities frame (``ncu_roofline.quantities``, index LAUNCH_KEY), the roofline frame, and
    optionally ncu's rule results (``Report.rules``, or their ``ncurules.rule_rows``) for the pipe fallback
    and the comparison with ncu's SOLBottleneck verdict (columns ncu_bottleneck, agrees_with_ncu). Every
    figure and text is computed over whole columns (no loop over launches). When the caller has them
    already: ``units``, the ``unit_table(quant, roof)``; ``ncu``, the ``ncu_figures(rules, quant.index)``.
    ``cc``: each launch's compute capability (the launches' ``cc``), for what ``missing`` says an integrated
    GPU cannot collect (INTEGRATED_DRAM). ``hbm``: whether each launch's GPU has HBM (``device.memory_is_hbm``:
    True, False or None); the reason and the explanation of a launch whose GPU is not known to have it call the
    DRAM unit ``dram`` (its limiter is ``hbm`` still, as everywhere; the summaries' label says DRAM there).

    The stages: the verdict (``_decide``), the compute pipe of a compute verdict (``_compute_pipe``), what
    collects the figures missing (``_missing``), the reason (``_reason``) and the explanation (``_explanation``),
    ncu's own verdict beside ours (``_compare``)."""
    n = len(quant)
    table = unit_table(quant, roof) if units is None else units
    cc_text = None if cc is None else pd.Series(np.asarray(cc, dtype=object), dtype=object).astype("string")
    duration = _col(quant, "duration")
    d = _decide(table, cc_text, duration)
    pipe, pipe_basis = _compute_pipe(d, ncu_figures(rules, quant.index) if ncu is None else ncu)
    chart_ran = rule_ran(rules, ROOFLINE_RULE, quant.index)  # the chart's metrics collected, shown or not
    missing = _missing(d, _roof_measured(roof, quant.index), cc_text, chart_ran, pipe, profile_command())
    unmeasured = joined([(d.unknown[k], k) for k in UNMEASURED_UNITS], ", ", n)
    reason, partial, no_verdict = _reason(d, unmeasured, stall_summary(quant, rules))
    explanation = _explanation(d, reason, pipe, pipe_basis)
    if hbm is not None:
        not_hbm = np.asarray(hbm, dtype=object) != True  # noqa: E712 (None: not known to be HBM)
        reason, explanation = _dram_word(reason, not_hbm), _dram_word(explanation, not_hbm)
    verdict, value, waves = d.verdict, d.value, _col(quant, "waves_per_sm")

    ncu_bottleneck, agrees, compared = _compare(
        d.lim, d.regime, value, d.s, choose(verdict, explanation, None), table, rules, quant.index
    )
    # every column built in its dtype (text by Arrow in one pass): no frame of objects converted afterwards
    keys = quant.index.to_frame(index=False)
    columns: dict[str, Any] = {
        "report": keys["report"].to_numpy(),
        "process_id": keys["process_id"].to_numpy(),
        "launch_id": keys["launch_id"].to_numpy(),
        "limiter": d.lim,
        "compute_pipe": pipe,
        "regime": d.regime,
        "utilization": value,
        "basis": choose(verdict | (d.basis != ""), d.basis, None),
        "reason": choose(verdict | no_verdict, reason, None),
        "missing": choose(missing != "", missing, None),
        "unmeasured": choose(unmeasured != "", unmeasured, None),
        "partial": pd.arrays.BooleanArray(partial, ~verdict),
        "pipe_basis": pipe_basis,
        "roof_fraction": value,  # one "% of roof": the limiter's score (= 1 - headroom)
        "headroom": 1.0 - value,
        "time_at_roof_ns": duration * 1e9 * np.minimum(value, 1.0),
        **{f"score_{k}": d.s[k] for k in LIMITERS},
        "small_grid": pd.arrays.BooleanArray(waves < SMALL_GRID_WAVES, ~(verdict & ~np.isnan(waves))),
        "explanation": choose(verdict, explanation, None) if compared is None else compared,
        "ncu_bottleneck": ncu_bottleneck,
        "agrees_with_ncu": agrees,
        "not_checked": np.full(n, None, dtype=object),
    }
    return typed_frame(columns, VERDICT_COLUMNS, pd.RangeIndex(n))


def _limiter_position(lim: np.ndarray) -> np.ndarray:
    """Per element, the position of the limiter in LIMITERS (-1: none)."""
    pos = np.full(len(lim), -1, dtype=np.int64)
    for i, k in enumerate(LIMITERS):
        pos[lim == k] = i
    return pos


def ncu_figures(rules: pd.DataFrame | RuleRows | None, index: pd.Index) -> pd.DataFrame:
    """ncu's HighPipeUtilization and SOLFPRoofline figures per launch (``ncu_roofline.ncurules``), positional
    in ``index`` (LAUNCH_KEY) order: ncu_pipe_family, ncu_fp32_pct, ncu_pipe_pct (<NA>/NaN without the rule),
    and where the export has rule rows ncu_pipe and ncu_fp64_pct. Takes ``Report.rules`` or their
    ``ncurules.rule_rows``."""
    cols = {"ncu_pipe_family": "string", "ncu_fp32_pct": "float64", "ncu_pipe_pct": "float64"}
    if rules is None or not has_rules(rules):
        return pd.DataFrame({c: pd.Series([None] * len(index), dtype=t) for c, t in cols.items()})
    figures = ncu_pipe_figures(rules, index)
    return pd.DataFrame(
        {k: pd.array(v, dtype="string") if v.dtype == object else v for k, v in figures.items()},
        index=pd.RangeIndex(len(index)),
    )


# ------------------------------------------------------------------------------------------------ ncu


def _agrees(ncu: str, limiter: str | None, regime: str | None) -> bool:
    """Does our verdict say what ncu's SOLBottleneck category says?"""
    if limiter is None or regime is None:
        return False
    if ncu in LIMITER_OF_LEVEL:  # ncu names the levels (dram, l2, l1); our memory limiters are hbm, l2, l1
        return regime == "bound" and limiter == LIMITER_OF_LEVEL[ncu]
    if ncu == "memory":
        return regime == "bound" and limiter in MEMORY_LIMITERS
    if ncu == "compute":
        return regime == "bound" and limiter == "compute"
    if ncu == "balanced":
        return regime == "bound"
    if ncu == "latency":
        return regime in ("latency", "launch")
    if ncu == "small_grid":
        return regime in ("latency", "launch")
    return False


def _ncu_words(ncu: str) -> str:
    return {
        "dram": "DRAM",
        "l2": "L2",
        "l1": "L1",
        "compute": "compute (SM)",
        "memory": "memory",
        "balanced": "compute and memory well-balanced",
        "latency": "a latency issue (compute and memory under 60 %)",
        "small_grid": "a grid too small to fill the GPU",
    }.get(ncu, ncu)


def _why_disagree(
    ncu: np.ndarray,
    limiter: np.ndarray,
    regime: np.ndarray,
    u: np.ndarray,
    score: dict[str, np.ndarray],
    t: dict[str, np.ndarray],
) -> np.ndarray:
    """Per disagreeing launch, the figures behind a disagreement with ncu's SOLBottleneck verdict (``ncu``:
    its verdicts; ``limiter``, ``regime``, ``u``: ours; ``score``: ours per limiter; ``t``: SOL sm and memory)."""
    ncu_fig = (
        "ncu compares SM " + percent(t["sm"]) + " with Memory " + percent(t["memory"]) + " and reports "
        + per_distinct(ncu, lambda x: _ncu_words(str(x)))
    )  # fmt: skip
    ours = "ncu-roofline: " + as_text(limiter) + " " + as_text(regime) + " at " + percent(u)
    scores = joined([(np.ones(len(ncu), dtype=bool), k + " " + percent(score[k])) for k in LIMITERS], ", ", len(ncu))
    waits = one_of(regime, "latency", "launch") & ~one_of(ncu, "latency", "small_grid")
    holds = ~waits & one_of(ncu, "latency", "small_grid") & (regime == "bound")
    memory = ~waits & ~holds & one_of(ncu, "dram", "l2", "l1", "memory") & one_of(limiter, *MEMORY_LIMITERS)
    out = ncu_fig + "; " + ours + " (" + scores + ")"
    out = choose(
        waits,
        ncu_fig
        + "; "
        + ours
        + f": no unit reaches {BOUND_THRESHOLD:.0%} on the figures this export has ("
        + scores
        + ")",
        out,
    )
    out = choose(
        holds,
        ncu_fig + f" (both under {BOUND_THRESHOLD:.0%}); " + ours + ": the " + as_text(limiter)
        + " figure is one that ncu's two headline numbers do not carry (" + scores + ")",
        out,
    )  # fmt: skip
    out = choose(
        memory,
        ncu_fig + " (the busiest member of its memory breakdown); " + ours
        + " on byte roofs and per-unit Speed Of Light (" + scores + "; memory ties go to the outer level)",
        out,
    )  # fmt: skip
    return out


def _compare(
    limiter: np.ndarray,
    regime: np.ndarray,
    utilization: np.ndarray,
    score: dict[str, np.ndarray],
    explanation: np.ndarray | None,
    table: pd.DataFrame,
    rules: pd.DataFrame | RuleRows | None,
    index: pd.Index,
) -> tuple[pd.api.extensions.ExtensionArray, pd.api.extensions.ExtensionArray, np.ndarray | None]:
    """ncu's SOLBottleneck verdict against ours, over the verdicts' columns (object arrays, None where missing;
    positional): ncu_bottleneck (string), agrees_with_ncu (boolean, where ``rules`` has a SOLBottleneck row for
    the launch) and the explanations with every disagreement's reason appended (None where none was appended).
    ``rules`` may come from another export of the same report (a raw page has no rule rows; its details page has
    them under the same launch IDs): rows are matched by LAUNCH_KEY (``ncu_roofline.analysis.rules_for``)."""
    n = len(limiter)
    none = pd.array(np.full(n, None, dtype=object), dtype="string")
    unknown = pd.arrays.BooleanArray(np.zeros(n, dtype=bool), np.ones(n, dtype=bool))
    if rules is None or not has_rules(rules):
        return none, unknown, None
    verdict = sol_verdicts(rules, index)
    keep = ~pd.isna(verdict)
    at = np.flatnonzero(keep)
    if not len(at):
        return none, unknown, None
    ncu = verdict[keep].astype(str).astype(object)
    lim, reg = limiter[at], regime[at]
    # _agrees over the few distinct (ncu, limiter, regime) triples, not per launch (None where missing)
    which, first = distinct_rows(ncu, lim, reg)
    answers = np.array([_agrees(ncu[i], lim[i], reg[i]) for i in first.tolist()], dtype=bool)
    agree = answers[which]
    ncu_all = np.full(n, None, dtype=object)
    ncu_all[at] = ncu
    agree_all = np.zeros(n, dtype=bool)
    agree_all[at] = agree
    checked = np.zeros(n, dtype=bool)
    checked[at] = ~pd.isna(reg)  # a launch without our verdict is not compared (nor counted as a disagreement)
    expl: np.ndarray | None = None
    differ = ~agree & ~pd.isna(lim)
    if differ.any():
        rows = at[differ]
        why = _why_disagree(
            ncu[differ],
            lim[differ],
            reg[differ],
            utilization[rows],
            {k: v[rows] for k, v in score.items()},
            {"sm": _col(table, "sm")[rows], "memory": _col(table, "memory")[rows]},
        )
        expl = explanation.copy() if explanation is not None else np.full(n, None)
        before = expl[rows]
        said = ~pd.isna(before) & (before != "")
        expl[rows] = choose(said, append(before, said, "; differs from ncu: ", why), why)
    return strings(ncu_all), pd.arrays.BooleanArray(agree_all, ~checked), expl


def agreement(verdicts: pd.DataFrame) -> float:
    """Share of launches with an ncu verdict on which ours agrees (NaN when ncu gave none)."""
    a = verdicts["agrees_with_ncu"].dropna()
    return float(a.astype(bool).mean()) if len(a) else math.nan


__all__: Sequence[str] = (
    "BOUND_THRESHOLD",
    "LAUNCH_DURATION_S",
    "LIMITERS",
    "PIPES",
    "REGIMES",
    "VERDICT_COLUMNS",
    "agreement",
    "classify",
    "scores",
    "unit_table",
    "utilization",
)
