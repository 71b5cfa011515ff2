"""The limiter and regime of each launch, from the hierarchical roofline and the Speed Of Light throughputs.

Every launch gets a score (0..1) per limiter: the fraction of that unit's peak it uses.

``hbm``      the larger of the DRAM byte roof (``dram__bytes`` / peak, roofline) and the Speed Of Light DRAM
             figures (``gpu__dram_throughput``, the busiest DRAM member of the memory breakdown);
``l2``       the larger of the L2 byte roof (L2 -> SM bytes) and the L2 unit's Speed Of Light figure: the busiest
             L2 member of ncu's memory breakdown (tag lookups, atomics, writes: work the byte roof does not
             see); where the export has no breakdown, the SOL header ``lts__throughput`` capped at ncu's
             ``Memory Throughput`` (the breakdown maximum, which bounds every member);
``l1``       the same for L1/TEX: byte roof (global/local L1 traffic), busiest L1 member of the breakdown (it sees
             shared memory and bank conflicts), else ``l1tex__throughput`` of elapsed cycles, else the SOL
             header's figure of *active* cycles capped at ``Memory Throughput`` (on a 2 us, one-block kernel the
             active-cycle figure reads ~100 % of almost nothing);
``compute``  the larger of ``sm__throughput`` (it includes every pipe and the issue slots, so integer and
             address work count) and the best FP64/FP32/FP16/tensor fraction of the FLOP roofs.

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
from typing import Any

import numpy as np
import pandas as pd

from .errors import NcuRooflineError
from .model import LAUNCH_KEY, launch_index
from .ncurules import cpi_stall, fp_roofline, high_pipe, sol_bottleneck
from .quantities import STALL_REASONS
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

# ------------------------------------------------------------------------------------------------ thresholds
# values and reasons: ncu_roofline.thresholds
from .vocabulary import LEVELS, LIMITER_OF_LEVEL, LIMITERS, MEMORY_LIMITERS, PRECISIONS, REGIMES

UNITS = (*LEVELS, "sm")
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
UNMEASURED_UNITS = (*LIMITERS, "sm")
#: Per unit, the figures that measure it and the exact ncu option that collects them (the ``missing`` text).
COLLECT: dict[str, str] = {
    "hbm": "DRAM: gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed (--section SpeedOfLight) or "
    "dram__bytes.sum.per_second (--metrics dram__bytes.sum.per_second)",
    "l2": "L2: lts__throughput.avg.pct_of_peak_sustained_elapsed (--section SpeedOfLight) or "
    "lts__t_bytes.sum.per_second (--metrics lts__t_bytes.sum.per_second)",
    "l1": "L1: l1tex__throughput.avg.pct_of_peak_sustained_active (--section SpeedOfLight) or "
    "l1tex__t_bytes.sum.per_second (--metrics l1tex__t_bytes.sum.per_second)",
    "compute": "compute: sm__throughput.avg.pct_of_peak_sustained_elapsed (--section SpeedOfLight)",
    "sm": "SM pipes (integer, tensor and issue work the FLOP counts miss): "
    "sm__throughput.avg.pct_of_peak_sustained_elapsed (--section SpeedOfLight) or the pipe utilisations "
    "(--section ComputeWorkloadAnalysis)",
    "duration": "kernel duration: gpu__time_duration.sum (--section SpeedOfLight, or --metrics gpu__time_duration.sum)",
    "pipes": "pipe utilisation: sm__inst_executed_pipe_*, sm__pipe_*_cycles_active (--section ComputeWorkloadAnalysis)",
}


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


def _roof_pivot(roof: pd.DataFrame, index: pd.Index, value: str, level: str) -> pd.DataFrame:
    """Roofline ``value`` at one level, per launch (rows ``index``) and precision (columns)."""
    if not len(roof):
        return pd.DataFrame(index=index)
    r = roof[(roof["level"] == level).fillna(False).to_numpy()].drop_duplicates([*LAUNCH_KEY, "precision"])
    wide = r.pivot(index=list(LAUNCH_KEY), columns="precision", values=value)
    wide.index = launch_index(wide.index.to_frame(index=False))
    out: pd.DataFrame = wide.reindex(index)
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
    ("pipe_fp16", "pipe", "FP16 on the FMA pipe"),
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
UNIT_SOURCE: dict[str, str] = {name: source for name, source, _ in UNIT_COLUMNS}

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


def unit_table(quant: pd.DataFrame, roof: pd.DataFrame) -> pd.DataFrame:
    """Per launch, every unit's utilisation as a fraction of its peak (UNIT_COLUMNS; NaN where unknown).

    Takes the quantities frame (index LAUNCH_KEY) and the roofline frame (ROOFLINE_COLUMNS)."""
    out: dict[str, np.ndarray] = {}
    for unit, quantity in _QUANTITY_OF_UNIT.items():
        out[unit] = _col(quant, quantity) / 100.0
    for level in ("dram", "l2", "l1"):
        # a level's traffic is the same on every precision's row: take the first precision that has it
        part = _roof_pivot(roof, quant.index, "bandwidth_fraction", level)
        out[f"{level}_roof"] = (
            part.bfill(axis=1).iloc[:, 0].to_numpy(dtype=float) if part.shape[1] else np.full(len(quant), np.nan)
        )
    comp = _roof_pivot(roof, quant.index, "compute_fraction", "dram")
    for prec in ("fp64", "fp32", "fp16", "tensor"):
        out[prec] = _col(comp, prec)
    frame = pd.DataFrame({name: out[name] for name, _, _ in UNIT_COLUMNS}, index=quant.index)
    return frame


def utilization(quant: pd.DataFrame, roof: pd.DataFrame, verdicts: pd.DataFrame | None = None) -> pd.DataFrame:
    """Long per-unit utilisation (0..1): report, process_id, launch_id, unit, value, source.

    Units (UNIT_COLUMNS): the Speed Of Light header (sm, memory, dram, l2, l1, l1_elapsed), the busiest
    member per unit of ncu's memory breakdown (*_busiest), the hierarchical roofline (dram_roof, l2_roof,
    l1_roof: bandwidth fractions; fp64, fp32, fp16, tensor: FLOP fractions) and the pipes (pipe_*). With
    ``verdicts``, also the classifier's score per limiter (limiter_hbm, limiter_l2, limiter_l1,
    limiter_compute; source "classifier"). Rows with no value are left out."""
    table = unit_table(quant, roof)
    parts = [_long(table[name], name, source) for name, source, _ in UNIT_COLUMNS]
    if verdicts is not None and len(verdicts):
        v = verdicts.set_index(list(LAUNCH_KEY))
        v.index = table.index if len(v) == len(table) else v.index
        for lim in LIMITERS:
            parts.append(_long(v[f"score_{lim}"].astype(float), f"limiter_{lim}", "classifier"))
    frame = pd.concat(parts, ignore_index=True)
    out: pd.DataFrame = frame[frame["value"].notna()].reset_index(drop=True)
    return out


def _long(s: pd.Series, unit: str, source: str) -> pd.DataFrame:
    keys = s.index.to_frame(index=False)
    return pd.DataFrame(
        {
            "report": keys["report"].astype("string"),
            "process_id": keys["process_id"].astype("Int64"),
            "launch_id": keys["launch_id"].astype("Int64"),
            "unit": unit,
            "value": s.to_numpy(dtype=float),
            "source": source,
        }
    )


# ------------------------------------------------------------------------------------------------ scores


def _nanmax(*arrays: np.ndarray) -> np.ndarray:
    stacked = np.vstack(arrays)
    have = ~np.isnan(stacked).all(axis=0)
    out = np.full(stacked.shape[1], np.nan)
    out[have] = np.nanmax(stacked[:, have], axis=0)
    return out


def _capped(value: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """``value`` capped at ``cap`` where the cap is known."""
    return np.where(np.isnan(cap), value, np.fmin(value, cap))


def scores(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per launch and limiter, the score (0..1) and the unit-table column that gave it.

    Takes ``unit_table``; returns (scores, sources), columns LIMITERS."""
    t = {c: table[c].to_numpy(dtype=float) for c in table.columns}
    cap = t["memory"]
    l2_sol = np.where(np.isnan(t["l2_busiest"]), _capped(t["l2"], cap), t["l2_busiest"])
    l1_header = _capped(t["l1"], cap)
    l1_sol = np.where(
        np.isnan(t["l1_busiest"]), np.where(np.isnan(t["l1_elapsed"]), l1_header, t["l1_elapsed"]), t["l1_busiest"]
    )
    sol_l2_name = np.where(np.isnan(t["l2_busiest"]), "l2", "l2_busiest")
    sol_l1_name = np.where(
        np.isnan(t["l1_busiest"]), np.where(np.isnan(t["l1_elapsed"]), "l1", "l1_elapsed"), "l1_busiest"
    )
    flop = _nanmax(t["fp64"], t["fp32"], t["fp16"], t["tensor"])
    pipes = _nanmax(*(t[c] for c in table.columns if c.startswith("pipe_")))
    sm = np.where(np.isnan(t["sm"]), pipes, t["sm"])  # pipes only where the SOL SM figure is missing
    sm_name = np.where(np.isnan(t["sm"]), "pipes", "sm")

    candidates: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {
        "hbm": [
            (t["dram_roof"], np.full(len(table), "dram_roof")),
            (t["dram_busiest"], np.full(len(table), "dram_busiest")),
            (t["dram"], np.full(len(table), "dram")),
        ],
        "l2": [(t["l2_roof"], np.full(len(table), "l2_roof")), (l2_sol, sol_l2_name)],
        "l1": [(t["l1_roof"], np.full(len(table), "l1_roof")), (l1_sol, sol_l1_name)],
        "compute": [(sm, sm_name), (flop, np.full(len(table), "flop roof"))],
    }
    score: dict[str, np.ndarray] = {}
    source: dict[str, np.ndarray] = {}
    for lim, cands in candidates.items():
        values = np.vstack([c[0] for c in cands])
        names = np.vstack([c[1] for c in cands]).astype(object)
        filled = np.where(np.isnan(values), -np.inf, values)
        best = filled.argmax(axis=0)
        cols = np.arange(values.shape[1])
        s = values[best, cols]
        score[lim] = s
        src = names[best, cols].astype(object)
        src[np.isnan(s)] = None
        source[lim] = src
    return pd.DataFrame(score, index=table.index), pd.DataFrame(source, index=table.index)


def pick_limiter(score: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The limiter per launch (LIMITERS, or None without any score) and its score.

    The highest score wins; when it is a memory unit, the outermost memory unit within TIE_MARGIN of it is
    taken instead (DRAM before L2 before L1), within TIE_MARGIN of the top score (relative)."""
    arr = score[list(LIMITERS)].to_numpy(dtype=float)
    filled = np.where(np.isnan(arr), -np.inf, arr)
    limiter = np.full(len(arr), None, dtype=object)
    value = np.full(len(arr), np.nan)
    for i, row in enumerate(filled):
        best = int(row.argmax())
        if not np.isfinite(row[best]):
            continue
        if LIMITERS[best] in MEMORY_LIMITERS:
            best = next(j for j in range(3) if row[j] >= row[best] * (1.0 - TIE_MARGIN))
        limiter[i] = LIMITERS[best]
        value[i] = arr[i, best]
    return limiter, value


# ------------------------------------------------------------------------------------------------ pipe


def _pipe_from_pipes(t: dict[str, float], rule: dict[str, Any] | None = None) -> str | None:
    pipes = {
        "tensor": t["pipe_tensor"],
        "fp64": t["pipe_fp64"],
        "fma": t["pipe_fma"],
        "alu": t["pipe_alu"],
        "xu": t["pipe_xu"],
        "lsu": t["pipe_lsu"],
        "uniform": t["pipe_uniform"],
        "adu": t["pipe_adu"],
        "cbu": t["pipe_cbu"],
        "tma": t["pipe_tma"],
        "tex": t["pipe_tex"],
    }
    if not math.isnan(t["pipe_tensor_int"]):
        pipes["tensor"] = max(_nan_to(pipes["tensor"], 0.0), t["pipe_tensor_int"])
    known = {k: v for k, v in pipes.items() if not math.isnan(v)}
    if not known:
        return None
    busiest = max(known, key=lambda k: known[k])
    if busiest in ("tensor", "fp64"):
        return busiest
    if busiest != "fma":
        return "other"
    fma = known["fma"]
    fp16 = t["pipe_fp16"]
    if not math.isnan(fp16) and fp16 >= FP16_SHARE_OF_FMA * fma:
        return "fp16"
    fp32 = t["fp32"]
    fp16_flops = t["fp16"]
    if not math.isnan(fp16_flops) and fp16_flops >= PIPE_FLOP_SHARE * fma and not fp16_flops <= fp32:
        return "fp16"  # no FP16 pipe figure (a details page), but the FP16 FLOP roof explains the busy FMA pipe
    if not math.isnan(fp32):
        # the FMA pipe busy with integer multiply-adds (IMAD) rather than FP32 FLOPs: "other"
        return "other" if fp32 < PIPE_FLOP_SHARE * fma else "fp32"
    if math.isnan(fp16):  # neither the FP16 share nor the FP32 FLOPs: ncu's rule tells FP16 from FP32/IMAD
        family = _pipe_from_rules(rule)
        if family in ("fp16", "fp32", "other"):
            return family
    return "fp32"


def _nan_to(v: float, default: float) -> float:
    return default if math.isnan(v) else v


def _pipe_from_flops(t: dict[str, float], sm: float) -> str | None:
    flops = {p: t[p] for p in ("fp64", "fp32", "fp16", "tensor") if not math.isnan(t[p])}
    if not flops:
        return None
    best = max(flops, key=lambda k: flops[k])
    frac = flops[best]
    if frac >= PIPE_FLOP_MIN and (math.isnan(sm) or frac >= PIPE_FLOP_SHARE * sm):
        return best
    if "tensor" not in flops:
        return None  # without tensor counters, idle FP roofs could hide tensor work as well as integer work
    return "other"


def _pipe_from_rules(rule: dict[str, Any] | None) -> str | None:
    if rule is None:
        return None
    family = rule.get("ncu_pipe_family")
    if family is None or family is pd.NA or family == "idle":
        return None
    fam = str(family)
    fp32_pct = rule.get("ncu_fp32_pct", math.nan)
    pipe_pct = rule.get("ncu_pipe_pct", math.nan)
    if fam == "fp32" and _finite(fp32_pct) and _finite(pipe_pct) and fp32_pct < PIPE_FLOP_SHARE * pipe_pct:
        return "other"
    return fam


def _finite(v: Any) -> bool:
    return v is not None and v is not pd.NA and isinstance(v, (int, float)) and math.isfinite(v)


#: Where ncu collects the stall reasons a latency verdict names.
STALL_SECTION = "--section WarpStateStats, exported with --page raw"


def stall_summary(quant: pd.DataFrame, rules: pd.DataFrame | None = None) -> np.ndarray:
    """Per launch (positional): the dominant warp stall reasons, "stalls: long scoreboard 45 %, ..." (each
    reason's share of the warp cycles per issued instruction, those at or above STALL_SHARE, at most three);
    without the stall metrics, ncu's CPIStall rule message (a details page); else the section that collects
    them. Takes the quantities (``stall_*`` columns, ``warp_cycles_per_issue``, index LAUNCH_KEY) and ncu's
    rule rows."""
    n = len(quant)
    cols = [f"stall_{r}" for r in STALL_REASONS if f"stall_{r}" in quant.columns and r != "selected"]
    missing = np.full(n, f"stall reasons not collected ({STALL_SECTION})", dtype=object)
    if rules is not None and len(rules) and "rule" in rules.columns:
        cpi = cpi_stall(rules).reindex(quant.index)
        what = cpi["ncu_stall"].astype("string").fillna("").to_numpy(dtype=object)
        cyc = cpi["ncu_stall_cycles"].to_numpy(dtype=float)
        said = (
            "stalls (ncu's CPIStall rule): " + np.char.mod("%.1f", cyc).astype(object)
            + " cycles per instruction " + what
        )  # fmt: skip
        missing = np.where(what != "", said, missing)
    if not cols:
        return missing
    stalls = quant[cols].to_numpy(dtype=np.float64)
    have = ~np.isnan(stalls).all(axis=1)
    total = _col(quant, "warp_cycles_per_issue")
    summed = np.nansum(stalls, axis=1)
    total = np.where(np.isnan(total) | (total <= 0), summed, total)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.nan_to_num(stalls / total[:, None], nan=0.0)
    order = np.argsort(-share, axis=1, kind="stable")[:, :3]
    names = np.array([c[len("stall_") :].replace("_", " ") for c in cols], dtype=object)
    text = np.full(n, "", dtype=object)
    for k in range(order.shape[1]):
        pick = order[:, k]
        val = share[np.arange(n), pick]
        part = names[pick] + " " + np.rint(val * 100).astype(np.int64).astype(str).astype(object) + "%"
        keep = val >= STALL_SHARE
        text = np.where(keep, np.where(text == "", part, text + ", " + part), text)
    found = np.where(text == "", f"no stall reason above {STALL_SHARE:.0%} of the warp cycles", "stalls: " + text)
    out: np.ndarray = np.where(have, found, missing)
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


def _fmt(v: float) -> str:
    if math.isnan(v):
        return "n/a"
    return f"{v:.1%}" if abs(v) < 0.1 else f"{v:.0%}"


def classify(
    quant: pd.DataFrame,
    roof: pd.DataFrame,
    rules: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One verdict per launch (VERDICT_COLUMNS), same order as ``quant``.

    Takes the quantities frame (``ncu_roofline.quantities``, index LAUNCH_KEY), the roofline frame, and
    optionally ncu's rule results (``Report.rules``) for the pipe fallback and the comparison with ncu's
    SOLBottleneck verdict (columns ncu_bottleneck, agrees_with_ncu)."""
    n = len(quant)
    table = unit_table(quant, roof)
    score, source = scores(table)
    limiter, value = pick_limiter(score)
    duration = _col(quant, "duration")
    waves = _col(quant, "waves_per_sm")
    stalls = stall_summary(quant, rules)
    rules = rules if rules is not None else pd.DataFrame(columns=[*LAUNCH_KEY, "rule", "description"])
    pipe_rules = ncu_figures(rules, quant.index)
    command = profile_command()

    roof_columns = ["dram_roof", "l2_roof", "l1_roof", "fp64", "fp32", "fp16", "tensor"]
    have_roof = table[roof_columns].notna().any(axis=1).to_numpy()
    have_sol = table[["sm", "memory", "dram", "l2", "l1"]].notna().any(axis=1).to_numpy()
    have_breakdown = table[["dram_busiest", "l2_busiest", "l1_busiest"]].notna().any(axis=1).to_numpy()
    have_pipes = table[[c for c in table.columns if c.startswith("pipe_")]].notna().any(axis=1).to_numpy()
    have_sm = table["sm"].notna().to_numpy() | have_pipes

    rows: list[dict[str, Any]] = []
    trec = records(table)
    srec = records(score)
    sources = records(source)  # plain lists and dicts in the loop: no pandas indexing per launch
    for i in range(n):
        t = trec[i]
        lim = limiter[i]
        u = float(value[i])
        basis = "+".join(
            name
            for name, flag in (
                ("roofline", bool(have_roof[i])),
                ("speed-of-light", bool(have_sol[i])),
                ("sol-breakdown", bool(have_breakdown[i])),
                ("pipes", bool(have_pipes[i])),
            )
            if flag
        )
        missing: list[str] = []
        if not have_roof[i]:
            missing.append(
                f"hierarchical roofline (achieved FLOP and bytes per memory level): --set roofline, or {command}"
            )
        unknown = [k for k in LIMITERS if math.isnan(float(srec[i][k]))]
        if "compute" not in unknown and not have_sm[i]:
            unknown.append("sm")  # compute from FLOP counts only
        if lim is not None and u < BOUND_THRESHOLD and set(unknown) - {"sm"}:
            # nothing measured is near its roof, and a memory level that was not measured may be the one that is:
            # no verdict. With every memory level measured and only the SM's non-FP pipes open (the NERSC
            # --metrics recipe), the latency/launch verdict stands, marked partial below.
            lim = None
        missing[:0] = [COLLECT[k] for k in unknown]
        unmeasured = ", ".join(unknown) if unknown else None
        if lim is None:
            rows.append(
                {
                    "basis": basis or None,
                    "missing": "; ".join(missing) or None,
                    "reason": f"no verdict: {unmeasured} not measured, and every measured unit is under "
                    f"{BOUND_THRESHOLD:.0%} of its peak"
                    if basis and unmeasured
                    else None,
                    "limiter": None,
                    "unmeasured": unmeasured,
                    "partial": None,  # no verdict to qualify
                }
            )
            continue
        # a unit at its bound holds the kernel; an unmeasured memory level (or, for a memory limiter, the SM
        # pipes) could be busier still, so the limiter is not settled
        open_units = [k for k in unknown if lim in MEMORY_LIMITERS or k in MEMORY_LIMITERS]
        if u < BOUND_THRESHOLD:
            open_units = list(unknown)  # no unit holds the kernel: any unmeasured one could be at its bound
        if math.isnan(duration[i]):
            missing.append(COLLECT["duration"])
        small = bool(waves[i] < SMALL_GRID_WAVES) if not math.isnan(waves[i]) else None
        short = not math.isnan(duration[i]) and duration[i] < LAUNCH_DURATION_S
        if u >= BOUND_THRESHOLD:
            regime = "bound"
        elif short:
            regime = "launch"
        else:
            regime = "latency"
        pipe, pipe_basis = None, None
        if lim == "compute":
            for basis_name, found in (
                ("pipes", _pipe_from_pipes(t, pipe_rules.get(i))),
                ("roofline", _pipe_from_flops(t, t["sm"])),
                ("ncu-rule", _pipe_from_rules(pipe_rules.get(i))),
            ):
                if found is not None:
                    pipe, pipe_basis = found, basis_name
                    break
            if pipe is None:
                missing.append(COLLECT["pipes"])
        roof_frac = _roof_fraction(lim, pipe, t)
        src = sources[i][lim]
        words = SOURCE_WORDS.get(str(src), str(src))
        if regime == "bound":
            reason = f"{lim} at {_fmt(u)} of its peak ({words}); bound (>= {BOUND_THRESHOLD:.0%})"
        else:
            # the regime leads: no unit holds the kernel; the busiest one is context, not "the limiter"
            every = "every measured unit" if unknown else "every unit"
            what = (
                f"launch-bound (under {LAUNCH_DURATION_S * 1e6:.0f} us, {every} under {BOUND_THRESHOLD:.0%})"
                if regime == "launch"
                else f"latency-bound ({every} under {BOUND_THRESHOLD:.0%})"
            )
            reason = f"{what}; busiest unit {lim} at {_fmt(u)} ({words}); {stalls[i]}"
        others = ", ".join(
            f"{k} {_fmt(float(srec[i][k]))}" for k in LIMITERS if k != lim and not math.isnan(float(srec[i][k]))
        )
        if open_units:
            reason += f"; partial: {', '.join(open_units)} not measured" + (
                " (could be at its bound)"
                if u < BOUND_THRESHOLD
                else " (could be busier)"
                if lim in MEMORY_LIMITERS
                else ""
            )
        explanation = f"{reason}; others: {others}" if others else reason
        tied = [
            k
            for k in MEMORY_LIMITERS
            if k != lim and lim in MEMORY_LIMITERS and float(srec[i][k]) >= u and float(srec[i][k]) > 0
        ]
        if tied:
            explanation += f"; tied with {', '.join(tied)}: the outer level holds (its traffic crosses the inner ones)"
        if lim == "compute" and pipe is not None:
            explanation += f"; pipe {pipe} ({pipe_basis})"
        if lim in MEMORY_LIMITERS and not math.isnan(roof_frac) and roof_frac < u - BALANCED_MARGIN:
            explanation += (
                f"; the byte roof shows only {_fmt(roof_frac)}: the unit is busy with work it does not count "
                "(shared memory, tag lookups, atomics, local memory)"
            )
        rows.append(
            {
                "limiter": lim,
                "compute_pipe": pipe,
                "regime": regime,
                "utilization": u,
                "basis": basis,
                "reason": reason,
                "missing": "; ".join(missing) if missing else None,
                "unmeasured": unmeasured,
                "partial": bool(open_units),
                "pipe_basis": pipe_basis,
                "roof_fraction": u,  # one "% of roof": the limiter's score (= 1 - headroom)
                "headroom": 1.0 - u,
                "time_at_roof_ns": duration[i] * 1e9 * min(u, 1.0),
                "small_grid": small,
                "explanation": explanation,
            }
        )
    out = pd.DataFrame(rows, index=range(n))
    for lim in LIMITERS:
        out[f"score_{lim}"] = score[lim].to_numpy()
    keys = quant.index.to_frame(index=False)
    for k in LAUNCH_KEY:
        out[k] = keys[k].to_numpy()
    out = compare_with_ncu(out, table, rules, quant.index)
    for c in VERDICT_COLUMNS:
        if c not in out.columns:
            out[c] = None
    result: pd.DataFrame = out[list(VERDICT_COLUMNS)].astype(VERDICT_COLUMNS)
    return result


def _roof_fraction(lim: str, pipe: str | None, t: dict[str, float]) -> float:
    if lim == "hbm":
        return t["dram_roof"]
    if lim in ("l2", "l1"):
        return t[f"{lim}_roof"]
    if pipe in ("fp64", "fp32", "fp16", "tensor"):
        return t[pipe]
    return math.nan


def ncu_figures(rules: pd.DataFrame | None, index: pd.Index) -> dict[int, dict[str, Any]]:
    """Row position in ``index`` (LAUNCH_KEY) -> ncu's HighPipeUtilization and SOLFPRoofline figures for that
    launch (``ncu_roofline.ncurules``); launches without those rule rows are absent."""
    if rules is None or not len(rules) or "rule" not in rules.columns:
        return {}
    hp = pd.concat([high_pipe(rules), fp_roofline(rules)], axis=1)
    if not len(hp):
        return {}
    pos = index.get_indexer(hp.index)
    return {int(p): r for p, r in zip(pos, records(hp), strict=True) if p >= 0}


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


def _why_disagree(ncu: str, row: dict[str, Any], t: dict[str, float]) -> str:
    """The figures behind a disagreement with ncu's SOLBottleneck verdict."""
    lim, regime, u = row["limiter"], row["regime"], row["utilization"]
    ncu_fig = f"ncu compares SM {_fmt(t['sm'])} with Memory {_fmt(t['memory'])} and reports {_ncu_words(ncu)}"
    ours = f"ncu-roofline: {lim} {regime} at {_fmt(u)}"
    scores = ", ".join(f"{k} {_fmt(float(row[f'score_{k}']))}" for k in LIMITERS)
    if regime in ("latency", "launch") and ncu not in ("latency", "small_grid"):
        return f"{ncu_fig}; {ours}: no unit reaches {BOUND_THRESHOLD:.0%} on the figures this export has ({scores})"
    if ncu in ("latency", "small_grid") and regime == "bound":
        return (
            f"{ncu_fig} (both under {BOUND_THRESHOLD:.0%}); {ours}: the {lim} figure is one that ncu's two "
            f"headline numbers do not carry ({scores})"
        )
    if ncu in ("dram", "l2", "l1", "memory") and lim in MEMORY_LIMITERS:
        return (
            f"{ncu_fig} (the busiest member of its memory breakdown); {ours} on byte roofs and per-unit Speed Of "
            f"Light ({scores}; memory ties go to the outer level)"
        )
    return f"{ncu_fig}; {ours} ({scores})"


def compare_with_ncu(
    verdicts: pd.DataFrame,
    table: pd.DataFrame,
    rules: pd.DataFrame | None,
    index: pd.Index,
) -> pd.DataFrame:
    """``verdicts`` plus ncu_bottleneck and agrees_with_ncu (where ``rules`` has a SOLBottleneck row for the
    launch), and the reason of every disagreement appended to ``explanation``.

    ``rules`` may come from another export of the same report (a raw page has no rule rows; its details
    page has them under the same launch IDs): rows are matched by LAUNCH_KEY, so pass rules whose ``report``
    column has been set to the verdicts' report name (``ncu_roofline.analysis.rules_for``)."""
    out = verdicts.copy()
    out["ncu_bottleneck"] = pd.Series(pd.NA, index=out.index, dtype="string")
    out["agrees_with_ncu"] = pd.Series(pd.NA, index=out.index, dtype="boolean")
    if rules is None or not len(rules) or "rule" not in rules.columns:
        return out
    sol = sol_bottleneck(rules)
    if not len(sol):
        return out
    pos = index.get_indexer(sol.index)
    ncu_col = sol["ncu_bottleneck"]
    keep = (pos >= 0) & ncu_col.notna().to_numpy()
    at = pos[keep]
    if not len(at):
        return out
    ncu = ncu_col.to_numpy(dtype=object)[keep].astype(str)
    n = len(out)

    def column(name: str) -> np.ndarray:
        if name not in out.columns:
            return np.full(len(at), None, dtype=object)
        v: np.ndarray = out[name].to_numpy(dtype=object)[at]
        v[pd.isna(v)] = None
        return v

    limiter, regime = column("limiter"), column("regime")
    # _agrees over the few distinct (ncu, limiter, regime) triples, not per launch
    triples = pd.DataFrame({"ncu": ncu, "limiter": limiter, "regime": regime})
    codes, uniques = pd.MultiIndex.from_frame(triples.astype(object).fillna("\0")).factorize()
    answers = np.array(
        [_agrees(n_, None if lim == "\0" else lim, None if reg == "\0" else reg) for n_, lim, reg in uniques],
        dtype=bool,
    )
    agree = answers[codes]
    ncu_all = np.full(n, None, dtype=object)
    ncu_all[at] = ncu
    agree_all = np.full(n, None, dtype=object)
    agree_all[at] = agree
    out["ncu_bottleneck"] = pd.array(ncu_all, dtype="string")
    out["agrees_with_ncu"] = pd.array(agree_all, dtype="boolean")
    differ = ~agree & (limiter != None)  # noqa: E711 (element-wise)
    if differ.any():
        rows = at[differ]
        cols = ["limiter", "regime", "utilization", *(f"score_{k}" for k in LIMITERS)]
        arrays = {c: out[c].to_numpy(dtype=object)[rows] for c in cols if c in out.columns}
        sm, memory = _col(table, "sm")[rows], _col(table, "memory")[rows]
        expl = out["explanation"].to_numpy(dtype=object).copy() if "explanation" in out.columns else np.full(n, None)
        for j, (p, why_ncu) in enumerate(zip(rows, ncu[differ], strict=True)):
            row = {c: a[j] for c, a in arrays.items()}
            why = _why_disagree(why_ncu, row, {"sm": float(sm[j]), "memory": float(memory[j])})
            before = expl[p]
            expl[p] = f"{before}; differs from ncu: {why}" if isinstance(before, str) and before else why
        out["explanation"] = expl
    return out


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
    "compare_with_ncu",
    "scores",
    "unit_table",
    "utilization",
)
