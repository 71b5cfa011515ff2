"""THE metric table: every ncu metric name the analysis reads, and what it makes of it (``TABLE``).

One row per figure: its name, the ``role`` it plays, unit, rollup, description and its **recipes**, best first.
Adding a metric (a newer spelling, another architecture's counter, a stand-in measured another way) is one
line in that figure's row; adding a figure is one row. Everything that reads ncu metrics reads this table:

======================  ========================================================================================
role                    read by
======================  ========================================================================================
``quantity``            the quantities frame (``quantities``): hints, summary, report
``sol``                 the Speed Of Light throughputs the verdict reads (``ncu_roofline.classify``); the metric
                        that gave each is recorded per launch (``recipes``)
``sol-breakdown``       the busiest member per unit of ncu's memory breakdown (``classify``)
``time``                ``duration``: the quantities frame, the rates of the NERSC recipes, ``Report.launches``
``work``, ``traffic``   the roofline's achieved FLOP/s and bytes/s (``ncu_roofline.roofline``)
``peak``                the roofline's peaks and clocks from the report's own metrics (``ncu_roofline.device``)
``device``              the device attributes that identify the GPU (``ncu_roofline.device.identify``)
======================  ========================================================================================

A recipe is value = (sum over its terms) x ``times`` / ``per`` (``Recipe``); per launch, the first recipe whose
metrics the launch has gives the value, and its name is recorded (``derive``). A plain row lists its metrics:
each is a one-metric recipe named by the metric, and ``combine`` says how they combine per launch:

``first`` (default)  the first listed metric present wins (newer spellings first, then older ones or other
                     architectures, then stand-ins measured in another way);
``max``              the largest of the listed metrics present (e.g. the busiest unit of a breakdown);
``sum``              the sum of the listed metrics, where all are present.

Rows whose name holds ``{series}`` are templates, one figure per tensor series the report has
(``series_values``). ``rollup`` says how repeated launches of one kernel combine: ``sum`` for counts and
times, ``time_mean`` (weighted by duration) for rates and percentages, ``max``/``min`` for limits, ``first``
for launch attributes that are the same for every launch of a kernel shape.

Values are in the base units of ``Report.values``: seconds, bytes, byte/s, hz; percentages 0..100.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from .model import launch_index
from .vector import strings, taken

COMBINES = ("first", "max", "sum")
ROLLUPS = ("sum", "time_mean", "max", "min", "first")

#: The roles a row plays (``Quantity.role``; see the module docstring).
QUANTITY = "quantity"
SOL = "sol"
SOL_BREAKDOWN = "sol-breakdown"
TIME = "time"
WORK = "work"
TRAFFIC = "traffic"
PEAK = "peak"
DEVICE = "device"
ROLES = (QUANTITY, SOL, SOL_BREAKDOWN, TIME, WORK, TRAFFIC, PEAK, DEVICE)
#: Roles whose rows are columns of the quantities frame.
FRAME_ROLES = (QUANTITY, SOL, SOL_BREAKDOWN, TIME)

#: Clocks (cycles per second) that recipes multiply per-cycle counters by, or divide cycle counts by.
SM_CLOCK = "sm__cycles_elapsed.avg.per_second"
SMSP_CLOCK = "smsp__cycles_elapsed.avg.per_second"
DRAM_CLOCK = "dram__cycles_elapsed.avg.per_second"
DURATION_METRIC = "gpu__time_duration.sum"  # a launch's time, as ncu measures it
#: Metrics the table reads that no catalog at hand lists (``--query-metrics`` of ncu 2024.2 per chip up to
#: Hopper, ncu 2025.3's GH100), each with the real export that shows ncu collecting it.
SEEN_IN_EXPORTS: dict[str, str] = {
    "sm__pipe_tc_cycles_active": "public raw pages of ncu 2025 on a B200 (CC 10.0; github.com/meinie0826/"
    "Roofline-Analysis, decodebench/results/ncu at 98db3221): a cuDNN sm100 attention kernel's tensor cores "
    "36.3 % busy there while sm__pipe_tensor_cycles_active reads 3.5 %; FlashAttention-2's mma.sync kernel the "
    "other way round (61.7 % and 0)",
} | {
    name: "a public `--metrics` export of ncu 2026.2 on an RTX 5070 (CC 12.0; github.com/Olajide-Badejo/"
    "GPU-Roofline-Profiler, results/sample_run/ncu/saxpy.csv at b704e025): a saxpy over 2 x 16.8M floats read "
    "134,221,568 DRAM bytes (2 x 67,108,864 and 4,096 more)"
    for name in ("dram__bytes_op_read", "dram__bytes_op_write")
}
L2_CLOCK = "lts__cycles_elapsed.avg.per_second"
L1_CLOCK = "l1tex__cycles_elapsed.avg.per_second"
#: The integrated GPUs (Tegra, and the DGX Spark's GB10: the system's memory) on which ncu has no DRAM counter,
#: by compute capability, and the DRAM counters they lack. The evidence: ncu 2022.3's and 2024.2's
#: ``--query-metrics`` of gv11b (CC 7.2) and ga10b (CC 8.7) have no ``dram__`` metric and their stock sections skip
#: both for DRAM; ncu 2025.3's stock sections skip CC 8.7, 11.0 (Thor, CC 10.1 before CUDA 13) and 12.1.
#: What ``missing`` says of them (``classify.INTEGRATED_DRAM``) and what the section forms leave out there
#: (``sectionforms``) both read this.
NO_DRAM_CCS: tuple[str, ...] = ("7.2", "8.7", "10.1", "11.0", "12.1")
#: Compute capabilities whose FP16x2 instructions have a pipe of their own (``sm__inst_executed_pipe_fp16``, the FP16
#: pipe beside the FMA pipe: Volta, Turing, GA100), not the FMA pipe (``sm__inst_executed_pipe_fma_type_fp16`` from
#: CC 8.6): ncu 2024.2's ``--query-metrics`` of gv100, tu102 and ga100 against ga102, ad102 and gh100, and the CC
#: ranges of ncu's ComputeWorkloadAnalysis section (label "FP16"). On these an FP16 kernel leaves the FMA pipe idle.
FP16_PIPE_CCS: tuple[str, ...] = ("7.0", "7.2", "7.5", "8.0")
DRAM_COUNTERS: frozenset[str] = frozenset({"dram__bytes", "dram__cycles_elapsed", "gpu__dram_throughput"})
#: DRAM bytes as the memory controller of an integrated GPU counts them, where there is no ``dram__`` counter:
#: ncu 2024.2's SpeedOfLight_HierarchicalTensorRooflineChart reads ``.per_second`` and ``.peak_sustained`` of it
#: (times DRAM_CLOCK) for CC 8.7 (Orin).
MCC_DRAM_BYTES = "mcc__dram_data_bytes.sum"
#: Tensor series metrics: ``sm__ops_path_tensor_<series>.sum...`` (``ncu_roofline.device.parse_series``).
TENSOR_PREFIX = "sm__ops_path_tensor_"
SERIES = "{series}"

#: Bytes moved per active L2-to-crossbar cycle of one LTS port: the ``* 32`` in the stock sections'
#: ``derived__lts__lts2xbar_bytes`` MetricDefinition (ncu 2025.3.1, CC 7.5+).
L2_BYTES_PER_CYCLE = 32.0
#: Bytes per active L1TEX LSU writeback cycle: the ``* 128`` in ``derived__l1tex__lsu_writeback_bytes*``.
L1_BYTES_PER_CYCLE = 128.0
#: FLOP per predicated-on FMA thread instruction (fp32/fp64): a fused multiply-add is two operations.
FLOP_PER_FMA = 2.0
#: FLOP per predicated-on HFMA thread instruction: HFMA2 packs two half FMAs, 4 FLOP (``*_hfma_pred_on_x4``).
FLOP_PER_HFMA2 = 4.0


@dataclass(frozen=True)
class Recipe:
    """One way to compute a figure from metrics, recorded per launch under ``name``.

    value = (sum over ``terms``) x ``times`` / ``per``. Each term is a tuple of alternatives
    ``(metric, factor)``, the first present one counting; every term must be present. ``times`` is a tuple of
    alternative metrics (the first present; empty = 1); ``per`` is a figure name of ``RECIPES`` (e.g.
    ``duration``: counts become rates) or a metric name, or None. ``estimate``: the figure rests on an
    assumption the file cannot confirm (the tensor FLOPs of one instruction)."""

    name: str
    terms: tuple[tuple[tuple[str, float], ...], ...]
    times: tuple[str, ...] = ()
    per: str | None = None
    estimate: bool = False

    def metrics(self) -> tuple[str, ...]:
        """Every metric name the recipe can read."""
        names = [m for term in self.terms for m, _ in term] + list(self.times)
        if self.per is not None and "__" in self.per:  # a metric name, not a figure of the table
            names.append(self.per)
        return tuple(names)

    def for_series(self, series: str) -> Recipe:
        """The recipe of a template row (``{series}`` in its metric names) for one tensor series."""
        terms = tuple(tuple((m.replace(SERIES, series), f) for m, f in term) for term in self.terms)
        return replace(self, terms=terms)


@dataclass(frozen=True)
class Quantity:
    """A row of the table: one figure and the recipes that give it (see the module docstring)."""

    name: str
    metrics: tuple[str, ...]  # every metric name the row reads, in recipe order
    unit: str
    rollup: str
    description: str
    combine: str = "first"  # plain rows: how the listed metrics combine (derived rows: the first recipe)
    role: str = QUANTITY
    recipes: tuple[Recipe, ...] = field(default=(), repr=False)
    plain: bool = True  # one single-metric recipe per listed metric (combined by ``combine``)
    section: str | None = None  # the ncu section that collects the row's metrics (what to add when missing)

    @property
    def template(self) -> bool:
        """A row per tensor series (``{series}`` in its name and metric names)."""
        return SERIES in self.name


def _q(
    name: str,
    metrics: str | Iterable[str],
    unit: str,
    rollup: str,
    description: str,
    combine: str = "first",
    role: str = QUANTITY,
) -> Quantity:
    """A plain row: the listed metrics, each a recipe of its own (named by the metric)."""
    names = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    if combine not in COMBINES or rollup not in ROLLUPS or role not in ROLES:
        raise ValueError(f"quantity {name}: combine {combine!r} / rollup {rollup!r} / role {role!r} unknown")
    recipes = tuple(Recipe(m, (_one(m),)) for m in names)
    return Quantity(name, names, unit, rollup, description, combine, role, recipes)


def _f(
    name: str, role: str, unit: str, rollup: str, description: str, *recipes: Recipe, section: str | None = None
) -> Quantity:
    """A derived row: its recipes, best first."""
    if rollup not in ROLLUPS or role not in ROLES or not recipes:
        raise ValueError(f"figure {name}: rollup {rollup!r} / role {role!r} unknown, or no recipe")
    names = tuple(dict.fromkeys(m for r in recipes for m in r.metrics()))
    return Quantity(name, names, unit, rollup, description, "first", role, recipes, plain=False, section=section)


def _term(*alternatives: tuple[str, float]) -> tuple[tuple[str, float], ...]:
    return alternatives


def _one(metric: str, factor: float = 1.0) -> tuple[tuple[str, float], ...]:
    return ((metric, factor),)


def _per_cycle(op: str) -> str:
    return f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed"


def _derived_x(op: str, x: int) -> str:
    return f"derived__smsp__sass_thread_inst_executed_op_{op}_pred_on_x{x}"


def _peak_x(op: str, x: int) -> str:
    """The stock sections' peak FLOP per cycle of an FMA op (``derived__sm__..._x2``/``_x4``)."""
    return f"derived__sm__sass_thread_inst_executed_op_{op}_pred_on_x{x}"


def _peak(op: str) -> str:
    return f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum.peak_sustained"


def _count(op: str, factor: float) -> tuple[tuple[str, float], ...]:
    """A NERSC instruction count: ``smsp__`` or ``sm__`` spelling (the same sum over the GPU)."""
    return (
        (f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum", factor),
        (f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum", factor),
    )


#: Achieved FP work uses the SMSP clock (the counters are SMSP sums per SMSP cycle); the SM clock is the same
#: clock domain and stands in where only it was collected.
WORK_CLOCK: tuple[str, ...] = (SMSP_CLOCK, SM_CLOCK)

#: FLOP per predicated-on thread instruction, per precision and op, as ncu's hierarchical roofline sections
#: count them: an FMA is two operations; FP16 add/mul/FMA instructions are the packed HADD2/HMUL2/HFMA2
#: (the sections' ``derived__*_x2`` / ``_x4``).
FLOP_PER_INSTRUCTION: dict[str, dict[str, float]] = {
    "fp64": {"dadd": 1.0, "dmul": 1.0, "dfma": 2.0},
    "fp32": {"fadd": 1.0, "fmul": 1.0, "ffma": 2.0},
    "fp16": {"hadd": 2.0, "hmul": 2.0, "hfma": 4.0},
}


def _fp_recipes(precision: str) -> tuple[Recipe, ...]:
    ops = FLOP_PER_INSTRUCTION[precision]
    per_cycle = tuple(
        _term((_derived_x(op, int(f)), 1.0), (_per_cycle(op), f)) if f > 1 else _one(_per_cycle(op))
        for op, f in ops.items()
    )
    counts = tuple(_count(op, f) for op, f in ops.items())
    rates = tuple(tuple((f"{m}.per_second", factor) for m, factor in _count(op, f)) for op, f in ops.items())
    return (
        Recipe("per-cycle rates x SM clock (ncu chart)", per_cycle, times=WORK_CLOCK),
        Recipe("instruction counts / duration (NERSC)", counts, per="duration"),
        Recipe("instruction rates (.sum.per_second)", rates),
    )


#: Tensor FLOP per warp-level tensor-pipe instruction, by compute capability: the MMA shape the compilers
#: emit for FP16/BF16 on each architecture (PTX ISA ``mma`` shapes; 2 FLOP per multiply-add). Volta's
#: HMMA.884 step: 512, the factor of ncu's own Tensor chart (``derived__sm__inst_executed_pipe_tensor_x512``,
#: ncu 2022.3-2024.1); Turing HMMA.1688: 16x8x8x2 = 2048; Ampere/Ada HMMA.16816: 16x8x16x2 = 4096. Hopper
#: and later issue warp-group MMA of variable shape: no figure (ncu measures their operations directly).
#: An estimate: the real shape of each instruction is not in the file.
TENSOR_FLOP_PER_INSTRUCTION: dict[str, float] = {
    "7.0": 512.0,
    "7.2": 512.0,
    "7.5": 2048.0,
    "8.0": 4096.0,
    "8.6": 4096.0,
    "8.7": 4096.0,
    "8.9": 4096.0,
}

#: Derived figures, best recipe first; the first recipe whose metrics a launch has gives its value, and its
#: name is recorded for that launch (``derive``). Traffic: the hierarchical roofline's own metrics (as
#: ``ncu_roofline.roofline`` describes them), then byte counts or rates of the NERSC recipe (``dram__bytes``,


def _elapsed(*counters: str) -> tuple[str, ...]:
    return tuple(f"{c}.avg.pct_of_peak_sustained_elapsed" for c in counters)


#: ncu's warp stall reasons (Warp State Statistics, ``smsp__average_warps_issue_stalled_<reason>_per_issue_active``;
#: ncu 2025.3.1, CC 9.0): each is warp cycles per issued instruction spent in that state.
STALL_REASONS: tuple[str, ...] = (
    "barrier", "branch_resolving", "dispatch_stall", "drain", "gmma", "imc_miss", "lg_throttle",
    "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instruction",
    "not_selected", "selected", "short_scoreboard", "sleeping", "tex_throttle", "wait",
)  # fmt: skip

#: The members of ncu's Speed Of Light "Memory Throughput Breakdown" (``breakdown:gpu__compute_memory_
#: throughput``, ncu 2025.3.1, CC 9.0) by unit; the SOLBottleneck rule names the unit of the largest member
#: by its prefix (dram/fbpa -> DRAM, lts -> L2, l1tex -> L1). Read off micro_full.details-all.csv: every
#: label of that body item matches the raw metric below on all 16 launches (tests/test_classify.py).
DRAM_BREAKDOWN: tuple[str, ...] = _elapsed("dram__cycles_active", "fbpa__dram_sectors")
L2_BREAKDOWN: tuple[str, ...] = _elapsed(
    "lts__d_sectors",
    "lts__d_sectors_fill_device",
    "lts__d_sectors_fill_sysmem",
    "lts__t_sectors",
    "lts__t_tag_requests",
    "lts__xbar2lts_cycles_active",
    "lts__lts2xbar_cycles_active",
    "lts__d_atomic_input_cycles_active",
    "lts__d_decomp_input_sectors",
)
L1_BREAKDOWN: tuple[str, ...] = _elapsed(
    "l1tex__m_l1tex2xbar_req_cycles_active",
    "l1tex__data_pipe_lsu_wavefronts",
    "l1tex__lsu_writeback_active",
    "l1tex__m_xbar2l1tex_read_sectors",
    "l1tex__data_bank_reads",
    "l1tex__data_bank_writes",
    "l1tex__lsuin_requests",
    "l1tex__data_pipe_tex_wavefronts",
    "l1tex__f_wavefronts",
    "l1tex__tex_writeback_active",
    "l1tex__texin_sm2tex_req_cycles_active",
    "l1tex__tmain_requests",
)


#: THE metric table: every figure the analysis reads from ncu metrics, one row each, with its recipes.
TABLE: tuple[Quantity, ...] = (
    # --- time and clocks
    _f(
        "duration",
        TIME,
        "s",
        "sum",
        "kernel duration (derived: RECIPES['duration'])",
        Recipe(DURATION_METRIC, (_one(DURATION_METRIC),)),
        # one instance per launch: its .avg, .max and .min are its .sum (a list may pick any of them)
        *(Recipe(f"gpu__time_duration.{r}", (_one(f"gpu__time_duration.{r}"),)) for r in ("avg", "max", "min")),
        Recipe("SM cycles / SM clock", (_one("sm__cycles_elapsed.avg"),), per=SM_CLOCK),
        Recipe("GPC cycles / GPC clock", (_one("gpc__cycles_elapsed.avg"),), per="gpc__cycles_elapsed.avg.per_second"),
        Recipe(
            "GPC cycles (max) / GPC clock",
            (_one("gpc__cycles_elapsed.max"),),
            per="gpc__cycles_elapsed.avg.per_second",
        ),
        Recipe("SMSP cycles / SMSP clock", (_one("smsp__cycles_elapsed.avg"),), per=SMSP_CLOCK),
    ),
    _q("elapsed_cycles", ("gpc__cycles_elapsed.max", "sm__cycles_elapsed.max"), "cycle", "sum", "elapsed cycles"),
    _q(
        "sm_clock",
        (
            "sm__cycles_elapsed.avg.per_second",
            "gpc__cycles_elapsed.avg.per_second",
            "smsp__cycles_elapsed.avg.per_second",
        ),
        "hz",
        "time_mean",
        "SM clock",
    ),
    _q("dram_clock", "dram__cycles_elapsed.avg.per_second", "hz", "time_mean", "DRAM clock"),
    # --- Speed Of Light: % of each unit's peak throughput (the SpeedOfLight section header)
    _q(
        "sm_throughput_pct",
        ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm__throughput.avg.pct_of_peak_sustained_active"),
        "%",
        "time_mean",
        "Compute (SM) throughput",
        role=SOL,
    ),
    _q(
        "memory_throughput_pct",
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
        "%",
        "time_mean",
        "Memory throughput (busiest member of the memory breakdown)",
        role=SOL,
    ),
    _q(
        "dram_throughput_pct",
        (
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__bytes.sum.pct_of_peak_sustained_elapsed",  # a --metrics run: bytes as % of the DRAM peak
        ),
        "%",
        "time_mean",
        "DRAM throughput",
        role=SOL,
    ),
    _q(
        "l2_throughput_pct",
        (
            "lts__throughput.avg.pct_of_peak_sustained_elapsed",
            "lts__t_bytes.sum.pct_of_peak_sustained_elapsed",
            "lts__t_sectors.sum.pct_of_peak_sustained_elapsed",
        ),
        "%",
        "time_mean",
        "L2 cache throughput",
        role=SOL,
    ),
    _q(
        "l1_throughput_pct",
        "l1tex__throughput.avg.pct_of_peak_sustained_active",
        "%",
        "time_mean",
        "L1/TEX cache throughput (of the cycles L1 was active, as the SOL header shows it)",
        role=SOL,
    ),
    _q(
        "l1_throughput_elapsed_pct",
        ("l1tex__throughput.avg.pct_of_peak_sustained_elapsed", "l1tex__t_bytes.sum.pct_of_peak_sustained_elapsed"),
        "%",
        "time_mean",
        "L1/TEX cache throughput (of elapsed cycles)",
        role=SOL,
    ),
    # --- the memory breakdown, busiest member per unit (elapsed cycles)
    _q(
        "dram_busiest_pct",
        DRAM_BREAKDOWN,
        "%",
        "time_mean",
        "busiest DRAM member of the memory breakdown",
        combine="max",
        role=SOL_BREAKDOWN,
    ),
    _q(
        "l2_busiest_pct",
        L2_BREAKDOWN,
        "%",
        "time_mean",
        "busiest L2 member of the memory breakdown",
        combine="max",
        role=SOL_BREAKDOWN,
    ),
    _q(
        "l1_busiest_pct",
        L1_BREAKDOWN,
        "%",
        "time_mean",
        "busiest L1/TEX member of the memory breakdown",
        combine="max",
        role=SOL_BREAKDOWN,
    ),
    # --- compute pipes: % of peak (active cycles), instruction issue or pipe cycles; each's % of elapsed cycles last,
    # where only those were collected (a --metrics list, some raw pages: train_step's)
    _q(
        "pipe_alu_pct",
        (
            "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
            "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed",
            "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
        ),
        "%",
        "time_mean",
        "ALU pipe (integer, logic, conversions)",
    ),
    _q(
        "pipe_fma_pct",
        (
            "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
            "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_elapsed",
        ),
        "%",
        "time_mean",
        "FMA pipe (FP32, FP16x2, IMAD)",
    ),
    _q(
        "pipe_fp16_pct",
        (
            "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_fp16.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed_pipe_fp16.avg.pct_of_peak_sustained_elapsed",
        ),
        "%",
        "time_mean",
        "FP16 instructions: on the FMA pipe from CC 8.6, a pipe of their own before (FP16_PIPE_CCS)",
    ),
    _q(
        "pipe_fp64_pct",
        (
            "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_fp64_op_fp64.avg.pct_of_peak_sustained_active",  # CC 8.6-8.9
            "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed_pipe_fp64_op_fp64.avg.pct_of_peak_sustained_elapsed",
        ),
        "%",
        "time_mean",
        "FP64 pipe",
    ),
    _q(
        "pipe_tensor_pct",
        (
            "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__pipe_tensor_cycles_active_v2.avg.pct_of_peak_sustained_active",  # CC 8.9
            "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__pipe_tensor_op_hmma_cycles_active_v2.avg.pct_of_peak_sustained_active",  # CC 8.9
            "sm__pipe_tensor_subpipe_hmma_cycles_active.avg.pct_of_peak_sustained_active",  # CC 10.0+
            # CC 10.0: the tensor cores' own pipe, where tcgen05 MMA work shows (SEEN_IN_EXPORTS)
            "sm__pipe_tc_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
            "sm__pipe_tensor_cycles_active_v2.avg.pct_of_peak_sustained_elapsed",
            "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
            "sm__pipe_tensor_op_hmma_cycles_active_v2.avg.pct_of_peak_sustained_elapsed",
            "sm__pipe_tensor_subpipe_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
            "sm__pipe_tc_cycles_active.avg.pct_of_peak_sustained_elapsed",
        ),
        "%",
        "time_mean",
        "Tensor pipe (all MMA instructions): the busiest of its measures",
        combine="max",
    ),
    _q(
        "pipe_tensor_fp64_pct",
        (
            "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_tensor_op_dmma.avg.pct_of_peak_sustained_active",
            "sm__pipe_tensor_subpipe_dmma_cycles_active.avg.pct_of_peak_sustained_active",  # CC 10.0
            "sm__inst_executed_pipe_tensor_subpipe_dmma.avg.pct_of_peak_sustained_active",  # CC 10.0
            "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed_pipe_tensor_op_dmma.avg.pct_of_peak_sustained_elapsed",
            "sm__pipe_tensor_subpipe_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed_pipe_tensor_subpipe_dmma.avg.pct_of_peak_sustained_elapsed",
        ),
        "%",
        "time_mean",
        "Tensor pipe, FP64 MMA (DMMA)",
    ),
    _q(
        "pipe_lsu_pct",
        (
            "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed",
        ),
        "%",
        "time_mean",
        "LSU pipe (loads, stores, shared memory)",
    ),
    _q(
        "pipe_xu_pct",
        (
            "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed",
        ),
        "%",
        "time_mean",
        "XU pipe (special functions, conversions)",
    ),
    _q(
        "pipe_uniform_pct",
        (
            "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_elapsed",
        ),
        "%",
        "time_mean",
        "Uniform pipe",
    ),
    _q(
        "pipe_adu_pct",
        "sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_active",
        "%",
        "time_mean",
        "ADU pipe (address divergence, branches)",
    ),
    _q(
        "pipe_tensor_int_pct",
        (
            "sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__pipe_tensor_op_imma_cycles_active_v2.avg.pct_of_peak_sustained_active",  # CC 8.9
            "sm__pipe_tensor_subpipe_imma_cycles_active.avg.pct_of_peak_sustained_active",  # CC 10.0+
            "sm__inst_executed_pipe_tensor_op_imma.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_tensor_op_imma_v2.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_tensor_subpipe_imma.avg.pct_of_peak_sustained_active",
        ),
        "%",
        "time_mean",
        "Tensor pipe, integer MMA (IMMA)",
    ),
    _q(
        "pipe_tensor_hmma_inst_pct",
        (
            "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_tensor_op_hmma_v2.avg.pct_of_peak_sustained_active",  # CC 8.9
            "sm__inst_executed_pipe_tensor_subpipe_hmma.avg.pct_of_peak_sustained_active",  # CC 10.0+
        ),
        "%",
        "time_mean",
        "Tensor pipe, floating-point MMA instructions issued (HMMA)",
    ),
    _q(
        "pipe_tensor_gmma_inst_pct",
        "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active",
        "%",
        "time_mean",
        "Tensor pipe, warp-group MMA instructions issued (Hopper GMMA)",
    ),
    _q(
        "pipe_tma_pct",
        (
            "sm__pipe_tma_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__inst_executed_pipe_tma.avg.pct_of_peak_sustained_active",
        ),
        "%",
        "time_mean",
        "TMA pipe (tensor memory accelerator)",
    ),
    _q("pipe_tex_pct", "sm__inst_executed_pipe_tex.avg.pct_of_peak_sustained_active", "%", "time_mean", "TEX pipe"),
    _q(
        "pipe_cbu_pct",
        "sm__inst_executed_pipe_cbu.avg.pct_of_peak_sustained_active",
        "%",
        "time_mean",
        "CBU pipe (branches, barriers)",
    ),
    _q(
        "pipe_shared_pct",
        "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active",
        "%",
        "time_mean",
        "shared pipe (FP64 and tensor dispatch)",
    ),
    _q(
        "instruction_throughput_pct",
        "sm__instruction_throughput.avg.pct_of_peak_sustained_elapsed",
        "%",
        "time_mean",
        "SM instruction throughput (issue and pipes)",
    ),
    _q(
        "ipc_active",
        "sm__inst_executed.avg.per_cycle_active",
        "inst/cycle",
        "time_mean",
        "warp instructions executed per active SM cycle",
    ),
    _q(
        "ipc_elapsed",
        "sm__inst_executed.avg.per_cycle_elapsed",
        "inst/cycle",
        "time_mean",
        "warp instructions executed per elapsed SM cycle",
    ),
    _q("sm_active_cycles", "sm__cycles_active.avg", "cycle", "sum", "cycles an SM was active (average over SMs)"),
    _q(
        "issue_active_pct",
        ("sm__inst_issued.avg.pct_of_peak_sustained_active", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed"),
        "%",
        "time_mean",
        "issue slots busy",
    ),
    # --- launch shape and occupancy
    _q("grid_size", "launch__grid_size", "block", "first", "blocks in the grid"),
    _q("block_size", "launch__block_size", "thread", "first", "threads per block"),
    _q("sm_count", ("device__attribute_multiprocessor_count", "launch__sm_count"), "SM", "first", "SMs"),
    _q("waves_per_sm", "launch__waves_per_multiprocessor", "", "time_mean", "waves per SM"),
    _q("registers_per_thread", "launch__registers_per_thread", "register/thread", "max", "registers per thread"),
    _q(
        "achieved_occupancy_pct",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "%",
        "time_mean",
        "achieved occupancy",
    ),
    _q(
        "achieved_warps_per_sm",
        "sm__warps_active.avg.per_cycle_active",
        "warp",
        "time_mean",
        "achieved active warps per SM",
    ),
    _q(
        "theoretical_warps_per_sm",
        "sm__maximum_warps_avg_per_active_cycle",
        "warp",
        "min",
        "theoretical active warps per SM",
    ),
    _q("threads", "launch__thread_count", "thread", "first", "threads in the grid"),
    _q("cluster_size", "launch__cluster_size", "block", "first", "blocks per thread-block cluster"),
    _q(
        "shared_mem_config_size",
        "launch__shared_mem_config_size",
        "byte",
        "first",
        "shared memory carve-out per SM",
    ),
    _q(
        "driver_shared_mem_per_block",
        "launch__shared_mem_per_block_driver",
        "byte",
        "max",
        "shared memory the driver reserves per block",
    ),
    # --- device attributes (the same for every launch on one GPU; context for the report and the table)
    _q("device_l2_cache_size", "device__attribute_l2_cache_size", "byte", "first", "L2 cache size"),
    _q("device_memory_bus_width", "device__attribute_global_memory_bus_width", "bit", "first", "memory bus width"),
    _q("device_max_sm_clock", "device__attribute_max_gpu_frequency_khz", "khz", "first", "maximum SM clock"),
    _q("device_max_memory_clock", "device__attribute_max_mem_frequency_khz", "khz", "first", "maximum memory clock"),
    _q(
        "device_registers_per_sm",
        "device__attribute_max_registers_per_multiprocessor",
        "register",
        "first",
        "registers per SM",
    ),
    _q(
        "device_shared_mem_per_sm",
        "device__attribute_max_shared_memory_per_multiprocessor",
        "byte",
        "first",
        "shared memory per SM",
    ),
    _q(
        "device_shared_mem_per_block_optin",
        "device__attribute_max_shared_memory_per_block_optin",
        "byte",
        "first",
        "shared memory a block may opt in to",
    ),
    _q("device_warps_per_sm", "device__attribute_max_warps_per_multiprocessor", "warp", "first", "warps per SM"),
    _q("theoretical_occupancy_pct", "sm__maximum_warps_per_active_cycle_pct", "%", "min", "theoretical occupancy"),
    _q("occupancy_limit_registers", "launch__occupancy_limit_registers", "block", "min", "blocks/SM by registers"),
    _q(
        "occupancy_limit_shared_mem", "launch__occupancy_limit_shared_mem", "block", "min", "blocks/SM by shared memory"
    ),
    _q("occupancy_limit_blocks", "launch__occupancy_limit_blocks", "block", "min", "blocks/SM hardware limit"),
    _q("occupancy_limit_warps", "launch__occupancy_limit_warps", "block", "min", "blocks/SM by warps"),
    _q("occupancy_limit_barriers", "launch__occupancy_limit_barriers", "block", "min", "blocks/SM by barriers"),
    _f(  # (not the static part alone where the whole is not measured: the dynamic part may be most of it)
        "shared_mem_per_block",
        QUANTITY,
        "byte",
        "max",
        "shared memory per block: static, dynamic and the driver's",
        Recipe("launch__shared_mem_per_block", (_one("launch__shared_mem_per_block"),)),
        Recipe(
            "static + dynamic + driver",
            (
                _one("launch__shared_mem_per_block_static"),
                _one("launch__shared_mem_per_block_dynamic"),
                _one("launch__shared_mem_per_block_driver"),
            ),
        ),
    ),
    _q(
        "dynamic_shared_mem_per_block",
        "launch__shared_mem_per_block_dynamic",
        "byte",
        "max",
        "dynamic shared memory per block",
    ),
    # --- register spilling and local memory
    _q(
        "spill_instructions",
        "sass__inst_executed_register_spilling",
        "inst",
        "sum",
        "instructions spilling registers to local memory",
    ),
    _q(
        "spill_requests",
        "derived__local_spilling_requests",
        "request",
        "sum",
        "local-memory requests caused by register spilling",
    ),
    _q(
        "spill_requests_pct",
        "derived__local_spilling_requests_pct",
        "%",
        "time_mean",
        "share of L1 requests that are register spills",
    ),
    _q("local_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "sector", "sum", "local loads"),
    _q("local_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "sector", "sum", "local stores"),
    _q(
        "local_load_requests",
        "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
        "request",
        "sum",
        "local load requests",
    ),
    _q(
        "local_store_requests",
        "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
        "request",
        "sum",
        "local store requests",
    ),
    _q(
        "spill_instructions_local",
        "sass__inst_executed_register_spilling_mem_local",
        "inst",
        "sum",
        "spill instructions to local memory",
    ),
    _q(
        "spill_instructions_shared",
        "sass__inst_executed_register_spilling_mem_shared",
        "inst",
        "sum",
        "spill instructions to shared memory",
    ),
    # --- global memory access quality
    _q("global_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", "sum", "global loads"),
    _q(
        "global_load_requests",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "request",
        "sum",
        "global load requests",
    ),
    _q("global_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sector", "sum", "global stores"),
    _q(
        "global_store_requests",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        "request",
        "sum",
        "global store requests",
    ),
    _q(
        "l2_theoretical_sectors_global",
        "memory_l2_theoretical_sectors_global",
        "sector",
        "sum",
        "L2 sectors the global accesses touch (ncu's UncoalescedGlobalAccess rule)",
    ),
    _q(
        "l2_theoretical_sectors_global_ideal",
        "memory_l2_theoretical_sectors_global_ideal",
        "sector",
        "sum",
        "L2 sectors the same accesses would touch if perfectly coalesced",
    ),
    _q(
        "l2_theoretical_sectors_global_excessive",
        "derived__memory_l2_theoretical_sectors_global_excessive",
        "sector",
        "sum",
        "excess of the two",
    ),
    _f(  # one rollup for both: a details page may carry the active cycles' average and the elapsed cycles' sum
        "l2_busy",
        QUANTITY,
        "",
        "time_mean",
        "share of the elapsed L2 cycles the L2 was active (ncu's UncoalescedGlobalAccess estimate)",
        Recipe("lts__cycles_active.sum / elapsed", (_one("lts__cycles_active.sum"),), per="lts__cycles_elapsed.sum"),
        Recipe("lts__cycles_active.avg / elapsed", (_one("lts__cycles_active.avg"),), per="lts__cycles_elapsed.avg"),
    ),
    _q(
        "global_load_instructions",
        "smsp__sass_inst_executed_op_global_ld.sum",
        "inst",
        "sum",
        "global load warp instructions",
    ),
    # --- shared memory
    _q(
        "shared_bank_conflicts",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
        "",
        "sum",
        "shared-memory bank conflicts, all operations",
    ),
    _q(
        "shared_load_bank_conflicts",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "",
        "sum",
        "shared-memory bank conflicts of loads",
    ),
    _q(
        "shared_store_bank_conflicts",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "",
        "sum",
        "shared-memory bank conflicts of stores",
    ),
    _q(
        "shared_wavefronts",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
        "",
        "sum",
        "shared-memory wavefronts, all operations",
    ),
    _q(
        "shared_load_wavefronts",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "",
        "sum",
        "shared-memory load wavefronts",
    ),
    _q(
        "shared_store_wavefronts",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "",
        "sum",
        "shared-memory store wavefronts",
    ),
    _q(
        "shared_store_instructions",
        "smsp__sass_inst_executed_op_shared_st.sum",
        "inst",
        "sum",
        "shared-memory store warp instructions",
    ),
    _q(
        "shared_load_instructions",
        "smsp__sass_inst_executed_op_shared_ld.sum",
        "inst",
        "sum",
        "shared-memory load warp instructions",
    ),
    # --- divergence and instruction mix
    _q(
        "threads_per_instruction",
        "smsp__thread_inst_executed_per_inst_executed.ratio",
        "",
        "time_mean",
        "active threads per executed warp instruction (32 = no divergence)",
    ),
    _q(
        "predicated_threads_per_instruction",
        "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
        "",
        "time_mean",
        "threads with a true predicate per executed warp instruction",
    ),
    _q(
        "instructions",
        ("smsp__inst_executed.sum", "sm__inst_executed.sum"),
        "inst",
        "sum",
        "warp instructions executed",
    ),
    _q(
        "ffma_per_cycle",
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
        "inst/cycle",
        "time_mean",
        "FP32 FMA thread instructions per cycle",
    ),
    _q(
        "fadd_per_cycle",
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed",
        "inst/cycle",
        "time_mean",
        "FP32 add thread instructions per cycle",
    ),
    _q(
        "fmul_per_cycle",
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed",
        "inst/cycle",
        "time_mean",
        "FP32 multiply thread instructions per cycle",
    ),
    # --- caches
    _q("l2_hit_rate_pct", "lts__t_sector_hit_rate.pct", "%", "time_mean", "L2 hit rate (all operations)"),
    _q("l2_read_hit_rate_pct", "lts__t_sector_op_read_hit_rate.pct", "%", "time_mean", "L2 hit rate of reads"),
    _q("l1_hit_rate_pct", "l1tex__t_sector_hit_rate.pct", "%", "time_mean", "L1/TEX hit rate (all operations)"),
    _q(
        "l1_global_load_hit_rate_pct",
        "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
        "%",
        "time_mean",
        "L1/TEX hit rate of global loads",
    ),
    # --- atomics
    _q(
        "global_atomic_requests",
        "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
        "request",
        "sum",
        "global atomic requests",
    ),
    _q(
        "global_reduction_requests",
        "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
        "request",
        "sum",
        "global reduction requests (atomics whose result is unused)",
    ),
    _q("l2_atomic_sectors", "lts__t_sectors_srcunit_tex_op_atom.sum", "sector", "sum", "L2 atomic sectors"),
    _q("l2_reduction_sectors", "lts__t_sectors_srcunit_tex_op_red.sum", "sector", "sum", "L2 reduction sectors"),
    _q(
        "l2_atomic_input_pct",
        "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed",
        "%",
        "time_mean",
        "L2 atomic unit busy, average over slices",
    ),
    _q(
        "l2_atomic_input_max_pct",
        "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed",
        "%",
        "time_mean",
        "L2 atomic unit busy, busiest slice",
    ),
    # --- latency evidence (Scheduler Statistics, Warp State Statistics) and DRAM reads
    _q(
        "eligible_warps_per_scheduler",
        "smsp__warps_eligible.avg.per_cycle_active",
        "warp",
        "time_mean",
        "warps eligible to issue per scheduler and cycle",
    ),
    _q(
        "issue_slot_busy_pct",
        "smsp__issue_active.avg.pct_of_peak_sustained_active",
        "%",
        "time_mean",
        "scheduler cycles with an instruction issued (One or More Eligible)",
    ),
    _q(
        "warp_cycles_per_issue",
        "smsp__average_warp_latency_per_inst_issued.ratio",
        "cycle",
        "time_mean",
        "warp cycles per issued instruction (the sum of the stall reasons)",
    ),
    *(
        _q(
            f"stall_{reason}",
            f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio",
            "cycle",
            "time_mean",
            f"warp cycles per issued instruction stalled on {reason.replace('_', ' ')}",
        )
        for reason in STALL_REASONS
    ),
    _q("dram_read_bytes", "dram__bytes_read.sum", "byte", "sum", "bytes read from DRAM"),
    _q(
        "l2_read_sectors_from_l1",
        "lts__t_sectors_srcunit_tex_op_read.sum",
        "sector",
        "sum",
        "L2 sectors read by L1/TEX (the SMs' read requests to L2)",
    ),
    _q(
        "l2_sectors_from_l1",
        "lts__t_sectors_srcunit_tex.sum",
        "sector",
        "sum",
        "L2 sectors of L1/TEX's requests (global, local and atomic: the SMs' traffic to L2)",
    ),
    # --- the roofline's achieved work (FLOP/s) and traffic (byte/s) per launch
    _f(
        "fp64_flops",
        WORK,
        "FLOP/s",
        "time_mean",
        "achieved FP64 work",
        *_fp_recipes("fp64"),
        section="SpeedOfLight_HierarchicalDoubleRooflineChart",
    ),
    _f(
        "fp32_flops",
        WORK,
        "FLOP/s",
        "time_mean",
        "achieved FP32 work",
        *_fp_recipes("fp32"),
        section="SpeedOfLight_HierarchicalSingleRooflineChart",
    ),
    _f(
        "fp16_flops",
        WORK,
        "FLOP/s",
        "time_mean",
        "achieved FP16 work",
        *_fp_recipes("fp16"),
        section="SpeedOfLight_HierarchicalHalfRooflineChart",
    ),
    _f(
        "tensor_inst_per_s",
        WORK,
        "inst/s",
        "time_mean",
        "tensor-pipe warp instructions per second (the tensor FLOP estimate)",
        Recipe(
            "tensor instructions per cycle x SM clock",
            (_one("smsp__inst_executed_pipe_tensor.sum.per_cycle_elapsed"),),
            times=WORK_CLOCK,
            estimate=True,
        ),
        Recipe(
            "tensor instructions / duration",
            (
                _term(
                    ("sm__inst_executed_pipe_tensor.sum", 1.0),
                    ("smsp__inst_executed_pipe_tensor.sum", 1.0),
                    ("sm__inst_executed_pipe_tensor_op_hmma.sum", 1.0),
                    ("smsp__inst_executed_pipe_tensor_op_hmma.sum", 1.0),
                ),
            ),
            per="duration",
            estimate=True,
        ),
    ),
    _f(
        "dram_bytes_per_s",
        TRAFFIC,
        "byte/s",
        "time_mean",
        "achieved DRAM traffic",
        Recipe("dram__bytes.sum.per_second", (_one("dram__bytes.sum.per_second"),)),
        Recipe("dram__bytes.sum / duration", (_one("dram__bytes.sum"),), per="duration"),
        # read and write: dram__bytes_read/_write, or as a Blackwell run of ncu 2026 picked them,
        # dram__bytes_op_read/_op_write (a real RTX 5070 export: 134,221,568 bytes read by a 64 MB-per-array saxpy)
        Recipe(
            "DRAM read + write bytes per second",
            (
                _term(("dram__bytes_read.sum.per_second", 1.0), ("dram__bytes_op_read.sum.per_second", 1.0)),
                _term(("dram__bytes_write.sum.per_second", 1.0), ("dram__bytes_op_write.sum.per_second", 1.0)),
            ),
        ),
        Recipe(
            "DRAM read + write bytes / duration",
            (
                _term(("dram__bytes_read.sum", 1.0), ("dram__bytes_op_read.sum", 1.0)),
                _term(("dram__bytes_write.sum", 1.0), ("dram__bytes_op_write.sum", 1.0)),
            ),
            per="duration",
        ),
        # an integrated GPU (CC 8.7) has no dram__ counter: ncu's own tensor roofline chart reads these there
        Recipe("mcc__dram_data_bytes.sum.per_second", (_one(MCC_DRAM_BYTES + ".per_second"),)),
    ),
    _f(
        "l2_bytes_per_s",
        TRAFFIC,
        "byte/s",
        "time_mean",
        "achieved L2 -> SM traffic",
        Recipe(
            "L2 -> SM bytes per second (ncu chart)",
            (
                _term(
                    ("derived__lts__lts2xbar_bytes.sum.per_second", 1.0),
                    ("lts__lts2xbar_cycles_active.sum.per_second", 32.0),
                ),
            ),
        ),
        Recipe("lts__t_bytes.sum.per_second", (_one("lts__t_bytes.sum.per_second"),)),
        Recipe("lts__t_bytes.sum / duration", (_one("lts__t_bytes.sum"),), per="duration"),
    ),
    _f(
        "l1_bytes_per_s",
        TRAFFIC,
        "byte/s",
        "time_mean",
        "achieved L1 global/local traffic",
        Recipe(
            "L1 global/local bytes per second (ncu chart)",
            (
                _term(
                    ("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second", 1.0),
                    ("l1tex__lsu_writeback_active_mem_lgds.sum.per_second", 128.0),
                    ("derived__l1tex__lsu_writeback_bytes_mem_lg.sum.per_second", 1.0),
                    ("l1tex__lsu_writeback_active_mem_lg.sum.per_second", 128.0),
                    ("derived__l1tex__lsu_writeback_bytes.sum.per_second", 1.0),
                    ("l1tex__lsu_writeback_active.sum.per_second", 128.0),
                ),
            ),
        ),
        Recipe("l1tex__t_bytes.sum.per_second", (_one("l1tex__t_bytes.sum.per_second"),)),
        Recipe("l1tex__t_bytes.sum / duration", (_one("l1tex__t_bytes.sum"),), per="duration"),
    ),
    # --- tensor work per series (ncu counts tensor *operations*: FLOP for float sources, integer ops for int)
    _f(
        "tensor_{series}_flops",
        WORK,
        "FLOP/s",
        "time_mean",
        "achieved tensor operations of one series of ncu's Tensor Core chart",
        Recipe(
            "tensor operations per cycle x SM clock (ncu chart)",
            (_one(f"{TENSOR_PREFIX}{SERIES}.sum.per_cycle_elapsed"),),
            times=(SM_CLOCK, SMSP_CLOCK),
        ),
        section="SpeedOfLight_HierarchicalTensorRooflineChart",
    ),
    # --- peaks from the report's own metrics, as the stock hierarchical roofline sections combine them
    # (``SpeedOfLight_Hierarchical*RooflineChart``, ncu 2025.3.1). The sections' own ``derived__*`` metric (what
    # the chart plots) comes first; the base metric x factor is the same number, for inputs without the derived
    # column (e.g. a ``--metrics`` run). (The raw page prints each column in one auto-scaled unit with 6
    # decimals, so small values can keep more digits in the derived column.)
    _q("sm_count", "device__attribute_multiprocessor_count", "SM", "first", "SMs", role=PEAK),
    _q("sm_clock_hz", SM_CLOCK, "hz", "time_mean", "SM clock of every peak work figure", role=PEAK),
    _q("dram_clock_hz", DRAM_CLOCK, "hz", "time_mean", "DRAM clock", role=PEAK),
    _q("l2_clock_hz", L2_CLOCK, "hz", "time_mean", "L2 clock", role=PEAK),
    _q("l1_clock_hz", L1_CLOCK, "hz", "time_mean", "L1 clock", role=PEAK),
    _f(
        "fp64_flops",
        PEAK,
        "FLOP/s",
        "first",
        "FP64 peak: DFMA thread instructions per cycle x 2 x SM clock",
        Recipe(_peak_x("dfma", 2), (_one(_peak_x("dfma", 2)),), times=(SM_CLOCK,)),
        Recipe(_peak("dfma"), (_one(_peak("dfma"), FLOP_PER_FMA),), times=(SM_CLOCK,)),
    ),
    _f(
        "fp32_flops",
        PEAK,
        "FLOP/s",
        "first",
        "FP32 peak: FFMA thread instructions per cycle x 2 x SM clock",
        Recipe(_peak_x("ffma", 2), (_one(_peak_x("ffma", 2)),), times=(SM_CLOCK,)),
        Recipe(_peak("ffma"), (_one(_peak("ffma"), FLOP_PER_FMA),), times=(SM_CLOCK,)),
    ),
    _f(
        "fp16_flops",
        PEAK,
        "FLOP/s",
        "first",
        "FP16 peak: HFMA2 thread instructions per cycle x 4 x SM clock",
        Recipe(_peak_x("hfma", 4), (_one(_peak_x("hfma", 4)),), times=(SM_CLOCK,)),
        Recipe(_peak("hfma"), (_one(_peak("hfma"), FLOP_PER_HFMA2),), times=(SM_CLOCK,)),
    ),
    _f(
        "tensor_{series}_flops",
        PEAK,
        "FLOP/s",
        "first",
        "roof of one tensor series: its peak operations per cycle x SM clock",
        Recipe(
            "tensor series peak x SM clock", (_one(f"{TENSOR_PREFIX}{SERIES}.sum.peak_sustained"),), times=(SM_CLOCK,)
        ),
    ),
    _f(
        "dram_bytes_per_s",
        PEAK,
        "byte/s",
        "first",
        "DRAM bandwidth peak",
        Recipe("dram__bytes.sum.peak_sustained", (_one("dram__bytes.sum.peak_sustained"),), times=(DRAM_CLOCK,)),
        Recipe(
            "mcc__dram_data_bytes.sum.peak_sustained", (_one(MCC_DRAM_BYTES + ".peak_sustained"),), times=(DRAM_CLOCK,)
        ),
    ),
    _f(
        "l2_bytes_per_s",
        PEAK,
        "byte/s",
        "first",
        "L2 -> SM bandwidth peak",
        Recipe(
            "derived__lts__lts2xbar_bytes.sum.peak_sustained",
            (_one("derived__lts__lts2xbar_bytes.sum.peak_sustained"),),
            times=(L2_CLOCK,),
        ),
        Recipe(
            "lts__lts2xbar_cycles_active.sum.peak_sustained",
            (_one("lts__lts2xbar_cycles_active.sum.peak_sustained", L2_BYTES_PER_CYCLE),),
            times=(L2_CLOCK,),
        ),
    ),
    _f(
        "l1_bytes_per_s",
        PEAK,
        "byte/s",
        "first",
        "L1 global/local bandwidth peak (``_mem_lg`` before CC 9.0, ``l1tex__lsu_writeback_active`` before CC 7.5)",
        *(
            r
            for suffix in ("_mem_lgds", "_mem_lg", "")
            for r in (
                Recipe(
                    f"derived__l1tex__lsu_writeback_bytes{suffix}.sum.peak_sustained",
                    (_one(f"derived__l1tex__lsu_writeback_bytes{suffix}.sum.peak_sustained"),),
                    times=(L1_CLOCK,),
                ),
                Recipe(
                    f"l1tex__lsu_writeback_active{suffix}.sum.peak_sustained",
                    (_one(f"l1tex__lsu_writeback_active{suffix}.sum.peak_sustained", L1_BYTES_PER_CYCLE),),
                    times=(L1_CLOCK,),
                ),
            )
        ),
    ),
    # --- device attributes that identify the GPU (``ncu_roofline.device.identify``)
    _q("display_name", "device__attribute_display_name", "", "first", "GPU name (a text metric)", role=DEVICE),
    _q("cc_major", "device__attribute_compute_capability_major", "", "first", "compute capability", role=DEVICE),
    _q("cc_minor", "device__attribute_compute_capability_minor", "", "first", "compute capability", role=DEVICE),
    _q(
        "memory_clock",
        ("device__attribute_memory_clock_rate", "device__attribute_max_mem_frequency_khz"),
        "khz",
        "first",
        "memory clock (kHz as CUDA's memoryClockRate; a value above 1e8 is taken as Hz)",
        role=DEVICE,
    ),
    _q(
        "bus_width",
        ("device__attribute_global_memory_bus_width", "device__attribute_fb_bus_width"),
        "bit",
        "first",
        "memory bus width",
        role=DEVICE,
    ),
)

# ---- views of the table, by role (what each stage reads)

#: The columns of the quantities frame, in table order.
QUANTITIES: tuple[Quantity, ...] = tuple(q for q in TABLE if q.role in FRAME_ROLES)
BY_NAME: dict[str, Quantity] = {q.name: q for q in QUANTITIES}
#: Derived figures of the roofline and the duration: figure -> recipes, best first.
RECIPES: dict[str, tuple[Recipe, ...]] = {
    q.name: q.recipes for q in TABLE if q.role in (TIME, WORK, TRAFFIC) and not q.template
}
#: Peak figures (columns of ``ncu_roofline.device.PEAK_COLUMNS``): figure -> recipes, best first.
PEAK_RECIPES: dict[str, tuple[Recipe, ...]] = {q.name: q.recipes for q in TABLE if q.role == PEAK and not q.template}
#: Per tensor series: the achieved operations and the roof (template rows).
TENSOR_WORK: Quantity = next(q for q in TABLE if q.role == WORK and q.template)
TENSOR_PEAK: Quantity = next(q for q in TABLE if q.role == PEAK and q.template)
#: Per precision (fp64, fp32, fp16, tensor), the ncu section that collects its achieved work.
WORK_SECTIONS: dict[str, str] = {
    q.name.split("_")[0]: q.section for q in TABLE if q.role == WORK and q.section is not None
}
#: The stock ncu set that holds every one of WORK_SECTIONS in each ncu that has them (2022.3-2025.3): `--set full`
#: holds them only from 2025 on (2022.3 and 2024.2 leave the hierarchical charts out of it; tests/test_ncu_sets.py
#: reads the sets of the real ncu).
ROOFLINE_SET = "roofline"
#: The device attributes that identify the GPU: name -> row.
DEVICE_ATTRIBUTES: dict[str, Quantity] = {q.name: q for q in TABLE if q.role == DEVICE}
#: Quantities whose metric (of those listed) is recorded per launch beside the recipes: the Speed Of Light
#: throughputs the verdict reads.
RECORDED: tuple[str, ...] = tuple(q.name for q in TABLE if q.role == SOL)


def rows(role: str | None = None) -> tuple[Quantity, ...]:
    """The rows of the table (of one role)."""
    return tuple(q for q in TABLE if role is None or q.role == role)


def _combine(values: pd.DataFrame, q: Quantity) -> np.ndarray:
    present = [m for m in q.metrics if m in values.columns]
    n = len(values.index)
    if not present:
        return np.full(n, np.nan)
    cols = [values[m].to_numpy(dtype=np.float64) for m in present]
    if q.combine == "first":
        col = np.full(n, np.nan)
        for v in cols:
            col = np.where(np.isnan(col), v, col)
        return col
    stacked = np.vstack(cols)
    if q.combine == "max":
        have = ~np.isnan(stacked).all(axis=0)
        out = np.full(n, np.nan)
        out[have] = np.nanmax(stacked[:, have], axis=0)
        return out
    if len(present) < len(q.metrics):  # a sum needs every term
        return np.full(n, np.nan)
    total: np.ndarray = stacked.sum(axis=0)
    return total


def quantities(values: pd.DataFrame, names: Iterable[str] | None = None) -> pd.DataFrame:
    """Launch x quantity (float, base units), from ``Report.values``; NaN where no listed metric is present.

    Columns taken: the ncu metric names of QUANTITIES. Returns the quantity names, same index."""
    wanted = [BY_NAME[n] for n in names] if names is not None else list(QUANTITIES)
    done: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    out = {
        q.name: _combine(values, q)
        if q.plain and q.name not in RECIPES
        else derive(values, q.name, done, {q.name: q.recipes})[0]
        for q in wanted
    }
    return pd.DataFrame(out, index=values.index)


def metric_names() -> set[str]:
    """Every ncu metric name the table reads, every role (template rows: with ``{series}`` in the name)."""
    return {m for q in TABLE for m in q.metrics}


def _alt(values: pd.DataFrame, alternatives: tuple[tuple[str, float], ...]) -> np.ndarray:
    out = np.full(len(values.index), np.nan)
    for metric, factor in alternatives:
        if metric in values.columns:
            v = values[metric].to_numpy(dtype=np.float64) * factor
            out = np.where(np.isnan(out), v, out)
    return out


def derive(
    values: pd.DataFrame,
    figure: str,
    _done: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
    table: Mapping[str, tuple[Recipe, ...]] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(value per launch, recipe name per launch) of one figure of ``table`` (default RECIPES; PEAK_RECIPES
    for the peaks), from ``Report.values``. A ``per`` figure is one of RECIPES.

    The first recipe a launch has every metric of wins; NaN and None where no recipe applies."""
    done = _done if _done is not None else {}
    if figure in done:
        return done[figure]
    n = len(values.index)
    value = np.full(n, np.nan)
    recipe = np.full(n, None, dtype=object)
    for r in (RECIPES if table is None else table)[figure]:
        total = np.zeros(n)
        for term in r.terms:
            total = total + _alt(values, term)
        if r.times:
            total = total * _alt(values, tuple((m, 1.0) for m in r.times))
        if r.per is not None:
            den = derive(values, r.per, done)[0] if r.per in RECIPES else _alt(values, ((r.per, 1.0),))
            with np.errstate(divide="ignore", invalid="ignore"):
                total = np.where(den > 0, total / np.where(den > 0, den, 1.0), np.nan)
        take = np.isnan(value) & ~np.isnan(total)
        value[take] = total[take]
        recipe[take] = r.name
    done[figure] = (value, recipe)
    return value, recipe


def peaks(values: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per peak figure of the table (PEAK_RECIPES, table order), its value per launch from ``Report.values``."""
    done: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    return {name: derive(values, name, done, PEAK_RECIPES)[0] for name in PEAK_RECIPES}


def series_values(values: pd.DataFrame, template: Quantity, series: Sequence[str]) -> dict[str, np.ndarray]:
    """Per tensor series, the value per launch of a template row (TENSOR_WORK, TENSOR_PEAK) from ``Report.values``:
    the row's recipes with ``{series}`` filled in, the first a launch has."""
    out = {}
    for name in series:
        table = {name: tuple(r.for_series(name) for r in template.recipes)}
        out[name] = derive(values, name, None, table)[0]
    return out


def duration_metrics() -> frozenset[str]:
    """The metric names the recipes of ``duration`` read."""
    return frozenset(m for r in RECIPES["duration"] for m in r.metrics())


def duration_ns(values: pd.DataFrame) -> np.ndarray:
    """Per launch, the GPU time in ns by the first ``duration`` recipe the launch has (NaN: none)."""
    return seconds_to_ns(derive(values, "duration")[0])


def seconds_to_ns(seconds: np.ndarray) -> np.ndarray:
    """Seconds -> ns, rounded to 0.001 ns so that the conversion adds no float noise (1.952e-6 s * 1e9 =
    1952.0000000000002)."""
    with np.errstate(over="ignore"):  # a damaged cell of 1e307 us: infinite, which the readers refuse
        out: np.ndarray = np.round(np.asarray(seconds, dtype=np.float64) * 1e9, 3)
    return out


def recipes(values: pd.DataFrame) -> pd.DataFrame:
    """Launch x derived figure: the name of the recipe that gave each figure (<NA> where none applied), and
    for the Speed Of Light throughputs (``RECORDED``) the metric that gave them.

    Takes ``Report.values``; returns one string column per figure of RECIPES and of RECORDED, same index."""
    return pd.DataFrame(recipe_columns(values, RECIPES), index=values.index)


def recipe_columns(values: pd.DataFrame, figures: Iterable[str]) -> dict[str, Any]:
    """The columns of ``recipes`` for the RECIPES ``figures`` and every RECORDED quantity, by name: each
    string column taken from its few distinct names by codes (``vector.taken``), not converted from objects."""
    done: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    out: dict[str, Any] = {}
    for f in figures:
        names = derive(values, f, done)[1]
        codes, uniques = pd.factorize(names)  # None: -1
        out[f] = taken(list(uniques), codes) if all(isinstance(u, str) for u in uniques) else strings(names)
    for name in RECORDED:
        metrics = BY_NAME[name].metrics
        out[name] = taken(list(metrics), _first_present(values, metrics))
    return out


def _first_present(values: pd.DataFrame, metrics: Sequence[str]) -> np.ndarray:
    """Per launch, the position in ``metrics`` of the first one with a value (as ``_alt`` takes it); -1: none."""
    took = np.full(len(values.index), -1, dtype=np.int64)
    for i, m in enumerate(metrics):
        if m in values.columns:
            took[~np.isnan(values[m].to_numpy(dtype=np.float64)) & (took < 0)] = i
    return took


def sources(values: pd.DataFrame, names: Iterable[str], derived: pd.DataFrame | None = None) -> dict[str, np.ndarray]:
    """Per quantity of ``names``, what gave each launch its value: the ncu metric (the first of the row's
    alternatives present), or for a figure of RECIPES the recipe's name (a metric's name where the recipe is
    one metric: ``gpu__time_duration.sum``), taken from ``derived`` (the ``recipes`` frame of the same values)
    where the caller has it. Object arrays, None where nothing did (the quantity is NaN)."""
    out: dict[str, np.ndarray] = {}
    for name in names:
        q = BY_NAME[name]
        if derived is not None and name in derived.columns:
            given = derived[name].to_numpy(dtype=object)
            given[pd.isna(given)] = None
            out[name] = given
            continue
        if name in RECIPES or not q.plain:
            out[name] = derive(values, name, None, {name: q.recipes})[1]
            continue
        choice = np.array([*q.metrics, None], dtype=object)
        out[name] = choice[_first_present(values, q.metrics)]
    return out


# ----------------------------------------------------------------------------------------------------------
# the Speed Of Light breakdowns of a details page made with --print-details all

#: Section and body items of the breakdowns (ncu 2025.3.1 SpeedOfLight section, full set).
SOL_SECTION = "GPU Speed Of Light Throughput"
MEMORY_BREAKDOWN_ITEM = "Memory Throughput Breakdown"
COMPUTE_BREAKDOWN_ITEM = "Compute Throughput Breakdown"

#: Memory breakdown: label prefix -> quantity (the busiest member per unit), as the SOLBottleneck rule maps
#: metric prefixes to units.
BREAKDOWN_UNIT_PREFIX: dict[str, str] = {"DRAM:": "dram_busiest_pct", "L2:": "l2_busiest_pct", "L1:": "l1_busiest_pct"}
#: Compute breakdown: label -> pipe quantity. These members are % of *elapsed* cycles (the pipe quantities
#: prefer % of active cycles); on a launch that keeps the SMs busy the two agree.
BREAKDOWN_PIPE_LABELS: dict[str, str] = {
    "SM: Pipe Alu Cycles Active": "pipe_alu_pct",
    "SM: Pipe Fma Cycles Active": "pipe_fma_pct",
    "SM: Pipe Fp64 Cycles Active": "pipe_fp64_pct",
    "SM: Pipe Tensor Cycles Active": "pipe_tensor_pct",
    "SM: Pipe Tensor Op Dmma Cycles Active": "pipe_tensor_fp64_pct",
    "SM: Pipe Shared Cycles Active": "pipe_shared_pct",
    "SM: Inst Executed Pipe Lsu": "pipe_lsu_pct",
    "SM: Inst Executed Pipe Xu": "pipe_xu_pct",
    "SM: Inst Executed Pipe Uniform": "pipe_uniform_pct",
    "SM: Inst Executed Pipe Adu": "pipe_adu_pct",
}


def breakdown_quantities(metrics: pd.DataFrame, index: pd.MultiIndex) -> pd.DataFrame:
    """Quantities read from the Speed Of Light breakdown body items by label (a ``--print-details all``
    details page names them "DRAM: Cycles Active", "SM: Pipe Fma Cycles Active" ...).

    Takes the long ``Report.metrics`` frame; returns the dram/l2/l1 ``*_busiest_pct`` and pipe quantities
    that the body items give, rows ``index`` (LAUNCH_KEY), NaN elsewhere."""
    cols = [*BREAKDOWN_UNIT_PREFIX.values(), *BREAKDOWN_PIPE_LABELS.values()]
    out = pd.DataFrame(np.nan, index=index, columns=cols)
    if not len(metrics) or "body_item" not in metrics.columns:
        return out
    sel = (metrics["section"] == SOL_SECTION).fillna(False).to_numpy() & metrics["body_item"].isin(
        [MEMORY_BREAKDOWN_ITEM, COMPUTE_BREAKDOWN_ITEM]
    ).to_numpy()
    m = metrics.loc[sel, ["report", "process_id", "launch_id", "body_item", "label", "value"]]
    if m.empty:
        return out
    label = m["label"].astype(str)
    quantity = label.map(BREAKDOWN_PIPE_LABELS)
    memory = (m["body_item"] == MEMORY_BREAKDOWN_ITEM).to_numpy()
    for prefix, name in BREAKDOWN_UNIT_PREFIX.items():
        quantity = quantity.mask(memory & label.str.startswith(prefix).to_numpy(), name)
    m = m.assign(quantity=quantity.to_numpy()).dropna(subset=["quantity", "value"])
    if m.empty:
        return out
    keys = launch_index(m)
    frame = pd.DataFrame({"quantity": m["quantity"].to_numpy(), "value": m["value"].to_numpy()}, index=keys)
    frame = frame.set_index("quantity", append=True)
    wide = frame["value"].groupby(level=[0, 1, 2, 3]).max().unstack("quantity")
    for c in wide.columns:
        out[str(c)] = wide[c].reindex(index).to_numpy(dtype=float)
    return out
