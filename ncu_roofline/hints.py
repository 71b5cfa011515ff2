"""Diagnostic hints: a registry of rules, each a vectorised expression over every launch's quantities.

A rule takes the :class:`Frame` (one row per launch: quantities, unit utilisations, verdict columns, launch
attributes, ncu's rule figures) and returns a :class:`Found`: where it fires, its severity, message, advice
and evidence (metric, value, threshold, op), and its estimate: the share of the launch's time a fix could
save. Messages and evidence are built for the launches where the rule fires only; nothing loops per launch.

Two principles hold for every rule:

- **Every estimate is a bound physics allows.** The runner caps every estimate at the launch's headroom
  (1 - the limiting unit's fraction of its peak, ``verdicts.headroom``): no fix makes a launch faster than
  running its limiting unit at peak. Each rule's own bound is tighter where it knows more (tail effect: the
  emptiness of the last wave; small grid: the share of SMs without a block; a latency fix: the issue slots
  left idle). Where a fix removes work instead (bank conflicts, spills, uncoalesced sectors, a tensor roof
  instead of the FP32 one: the rule's ``relieves``), the message says how much work, the estimate stays
  capped, and ``estimated_speedup_less_work`` says what the launch saves once that work is gone: at most 1 -
  the busiest unit the fix does not relieve (``less_work_bound``).
- **Evidence or silence.** Each rule declares the evidence it needs (:class:`Need`: quantities and the ncu
  option that collects them). Where the rule would apply but that evidence is missing, the launch gets
  "not checked: <metric> not collected (<ncu option>)" (``not_checked``), never a finding made from a zero
  that stands for a missing value.

Thresholds live in ``ncu_roofline.thresholds`` with the reason for each value. ncu's own rule results ride
along in the hints frame, marked as ncu's (``ncu_rule_hints``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa

from .classify import ncu_figures
from .device import gpu_traits
from .model import LAUNCH_KEY, launch_index
from .ncurules import RuleRows, rule_rows
from .quantities import BY_NAME, ROOFLINE_SET, WORK_SECTIONS
from .thresholds import (
    ATOMIC_IMBALANCE,
    ATOMIC_SHARE,
    ATOMIC_SLICE_BUSY_PCT,
    BANK_CONFLICT_MIN_GAIN,
    BANK_CONFLICT_SHARE,
    DIVERGENCE_THREADS,
    ELIGIBLE_WARPS,
    FMA_FLOP_SHARE,
    FP32_GEMM_MIN_FRACTION,
    LAUNCH_DURATION_S,
    LOCAL_SECTOR_THREADS,
    LOW_OCCUPANCY_PCT,
    MAX_IDEAL_SECTORS_PER_REQUEST,
    NEAR_ROOF,
    NON_FP_FLOP_MAX,
    OCCUPANCY_GAP,
    OPERAND_LOAD_SHARE,
    REPEATED_LAUNCHES,
    SMALL_GRID_HALF_WAVE,
    SMALL_GRID_IDLE_SMS,
    SMALL_GRID_WAVES,
    SPILL_INSTRUCTIONS,
    SPILL_TRAFFIC_SHARE,
    TAIL_HIGH_EFFECT,
    TAIL_MIN_EFFECT,
    TENSOR_IDLE,
    TF32_FROM_CC,
    UNCOALESCED_EXCESS_SHARE,
    UNCOALESCED_MIN_GAIN,
)
from .vector import formatted, launch_positions, taken, text_codes, typed_frame
from .vocabulary import LIMITERS, MEMORY_LIMITERS, SEVERITIES

WARP_SIZE = 32.0
#: Kernel names that say "matrix multiply or convolution" (supporting evidence only).
GEMM_NAME = re.compile(r"gemm|matmul|mma|conv|dot|linear|bmm", re.IGNORECASE)

HINT_COLUMNS: dict[str, str] = {
    "report": "string",
    "process_id": "Int64",
    "launch_id": "Int64",
    "hint": "string",
    "severity": "string",
    "source": "string",  # "ncu-roofline" (ours) or "ncu" (ncu's own rule results)
    "message": "string",
    "advice": "string",
    "evidence": "string",  # JSON list of {metric, value, threshold, op}
    "estimated_speedup": "float64",  # share of this launch's time a fix could save (0..headroom), where known
    # where the fix removes work from units (the rule's ``relieves``) rather than moving the launch toward its roof:
    # the share of its time saved once that work is gone, bounded by the busiest unit it does not relieve
    # (>= estimated_speedup; above the headroom only where a relieved unit is the limiter); NaN for other hints
    "estimated_speedup_less_work": "float64",
}

Arr = np.ndarray
#: The pipes of non-FP work ``non_fp_compute`` names the busiest of (unit-table columns).
_NON_FP_PIPES = ("pipe_alu", "pipe_fma", "pipe_xu", "pipe_lsu", "pipe_uniform")
#: The quantities whose evidence names the metric (or recipe) that gave each launch's value: they have
#: alternatives (an older ncu's tensor pipe metric; a pipe's instructions or its active cycles, which differ: the
#: FMA pipe of an HFMA2 kernel 48 % against 97 %; a duration from cycles and clock).
SOURCED = ("duration", "pipe_tensor_pct", *(f"{p}_pct" for p in _NON_FP_PIPES))


# ------------------------------------------------------------------------------------------------ the frame


@dataclass(frozen=True)
class Frame:
    """What the rules see: one row per launch, by position (the order of ``launches``).

    ``q``: quantities (``ncu_roofline.quantities``, base units, NaN when absent); ``units``: the unit table
    (``ncu_roofline.classify.unit_table``, fractions); ``verdicts``: VERDICT_COLUMNS; ``kernel_name``;
    ``kernel_codes``: each launch's kernel (its report and kernel name) as a code, the groups of ``repeats``
    and :meth:`per_kernel`; ``repeats``: launches of the same kernel in the report; ``ncu``: ncu's
    HighPipeUtilization/SOLFPRoofline figures (ncu_pipe_family, ncu_fp32_pct ...);
    ``tensor_time``: the launch's time at the TF32 tensor roof (capped by its own memory roofs) over its time
    now, from the FP32 roofline rows (NaN where unknown); ``cc``: the GPU's compute capability (7.5; NaN where
    unknown); ``tensor_cores``: False where the GPU is known to have none."""

    keys: pd.DataFrame
    q: pd.DataFrame
    units: pd.DataFrame
    verdicts: pd.DataFrame
    kernel_name: Arr
    kernel_codes: Arr
    repeats: Arr
    ncu: pd.DataFrame
    tensor_time: Arr
    cc: Arr
    tensor_cores: Arr
    #: launches read from a details page, which prints the sections' header metrics, not their tables (the raw
    #: page of the same report has those): None for none
    details_page: Arr | None = None
    #: per quantity of SOURCED, the metric or recipe that gave each launch's value (``quantities.sources``)
    sources: Mapping[str, Arr] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.keys)

    def per_kernel(self, values: Arr) -> Arr:
        """Per launch, the sum of ``values`` over the launches of its kernel (NaN counted as 0)."""
        codes = self.kernel_codes
        sums: Arr = np.bincount(codes, weights=np.nan_to_num(np.asarray(values, dtype=np.float64)))
        return sums[codes] if len(codes) else np.zeros(0)

    def get(self, name: str) -> Arr:
        """Quantity ``name`` (NaN where absent)."""
        if name in self.q.columns:
            out: Arr = self.q[name].to_numpy(dtype=np.float64)
            return out
        return np.full(self.n, np.nan)

    def source(self, name: str) -> Arr:
        """Per launch, the ncu metric that gave quantity ``name``, or ``<name> (<recipe>)`` where a recipe of
        several metrics did (for SOURCED; any other quantity: its one metric, the table's first); the table's
        first metric where nothing did (the value is NaN, its evidence row left out): evidence names what the
        figure was read from, as the table spells it."""
        first = BY_NAME[name].metrics[0]
        given = self.sources.get(name)
        if given is None:
            return np.full(self.n, first, dtype=object)
        codes, distinct = pd.factorize(np.asarray(given, dtype=object))  # None: -1
        # a recipe's name has words (a metric's none): named with the quantity
        label = [f"{name} ({s})" if " " in s else s for s in map(str, distinct)]
        out: Arr = np.array([*label, first], dtype=object)[codes]
        return out

    def unit(self, name: str) -> Arr:
        """Unit-table column ``name`` (fraction of peak, NaN where unknown)."""
        if name in self.units.columns:
            out: Arr = self.units[name].to_numpy(dtype=np.float64)
            return out
        return np.full(self.n, np.nan)

    def ncu_figure(self, name: str) -> Arr:
        if name in self.ncu.columns:
            out: Arr = pd.to_numeric(self.ncu[name], errors="coerce").to_numpy(dtype=np.float64)
            return out
        return np.full(self.n, np.nan)

    def text(self, column: str) -> Arr:
        """A string verdict column as an object array ("" where missing)."""
        if column not in self.verdicts.columns:
            return np.full(self.n, "", dtype=object)
        col = self.verdicts[column]
        out: Arr = np.asarray(col.to_numpy(dtype=object, na_value=""), dtype=object)
        return out

    def number(self, column: str) -> Arr:
        if column not in self.verdicts.columns:
            return np.full(self.n, np.nan)
        out: Arr = self.verdicts[column].astype("float64").to_numpy()
        return out

    def with_quantity(self, name: str, values: Arr) -> Frame:
        """The frame with quantity ``name`` replaced (for tests and what-ifs)."""
        q = self.q.copy()
        q[name] = np.asarray(values, dtype=np.float64)
        return replace(self, q=q)  # every other field as it is (the evidence's sources, the details-page mask)


def ok(*arrays: Arr) -> Arr:
    """True where every array has a number."""
    out = np.ones(len(arrays[0]), dtype=bool)
    for a in arrays:
        out &= ~np.isnan(a)
    return out


def _ge(a: Arr, t: float | Arr) -> Arr:
    """a >= t, False where a is NaN."""
    with np.errstate(invalid="ignore"):
        out: Arr = np.asarray(a >= t) & ~np.isnan(a)
    return out


def _lt(a: Arr, t: float | Arr) -> Arr:
    with np.errstate(invalid="ignore"):
        out: Arr = np.asarray(a < t) & ~np.isnan(a)
    return out


def _div(a: Arr, b: Arr) -> Arr:
    with np.errstate(invalid="ignore", divide="ignore"):
        out: Arr = np.where(b > 0, a / np.where(b > 0, b, 1.0), np.nan)
    return out


# ------------------------------------------------------------------------------------------------ results


class Text:
    """Formats columns for the launches where a rule fires (positions ``idx``) into object arrays of str (numpy
    joins them element-wise: no Series built per piece of a message)."""

    def __init__(self, idx: Arr) -> None:
        self.idx = idx

    def f(self, values: Arr, spec: str) -> Arr:
        """``format(v, spec)`` per firing launch, each distinct value formatted once."""
        out: Arr = formatted(np.asarray(values, dtype=np.float64)[self.idx], "{:" + spec + "}")
        return out

    def pick(self, cond: Arr, yes: str | Arr, no: str | Arr) -> Arr:
        c = np.asarray(cond, dtype=bool)[self.idx]
        out: Arr = np.where(c, yes, no).astype(object)
        return out

    def s(self, values: Arr) -> Arr:
        out: Arr = np.asarray(values, dtype=object)[self.idx]
        return out


TextFn = Callable[[Text], "Arr | str"]


@dataclass(frozen=True)
class Ev:
    """One piece of evidence over every launch: ``value`` (per launch), compared with ``threshold`` by ``op``
    (threshold None: context, not a test); ``when``: only where True (default: where value is known)."""

    metric: str | Arr
    value: Arr
    threshold: float | Arr | None
    op: str
    when: Arr | None = None


@dataclass(frozen=True)
class Found:
    """A rule's result over every launch."""

    fires: Arr
    severity: str | Arr
    message: TextFn
    advice: TextFn
    evidence: Sequence[Ev]
    estimate: Arr | None = None
    #: where the rule would look, had it its evidence (for "not checked"); None: every launch
    applies: Arr | None = None
    #: evidence whose absence leaves the rule undecided on some launches although its needs are met (a test of
    #: the rule reads it): each Need (its metric and option, for the note) and those launches; a launch where the
    #: rule fired, or one already noted for a need, is not noted again
    undecided: Sequence[tuple[Need, Arr]] = ()


@dataclass(frozen=True)
class Need:
    """Evidence a rule needs: any of ``names`` present (quantities; ``u:`` unit-table columns; ``ncu:`` ncu's
    rule figures; ``v:`` verdict columns, present where not empty; ``a&b``: both); else ``metric`` is reported
    as not collected, with ``option``, the ncu option adding it."""

    names: tuple[str, ...]
    metric: str
    option: str

    def present(self, f: Frame) -> Arr:
        out = np.zeros(f.n, dtype=bool)
        for name in self.names:
            if "&" in name:
                out |= np.logical_and.reduce([Need((part,), "", "").present(f) for part in name.split("&")])
                continue
            if name.startswith("u:"):
                col = f.unit(name[2:])
            elif name.startswith("ncu:"):
                col = f.ncu_figure(name[4:])
            elif name.startswith("v:"):
                out |= f.text(name[2:]) != ""
                continue
            else:
                col = f.get(name)
            out |= ~np.isnan(col)
        return out


@dataclass(frozen=True)
class Rule:
    id: str
    fn: Callable[[Frame], Found]
    needs: tuple[Need, ...]
    summary: str
    bound: str
    #: the limiters (LIMITERS) whose work the fix removes, for ``estimated_speedup_less_work``; () for a fix that
    #: moves the launch toward its roof
    relieves: tuple[str, ...] = ()


RULES: dict[str, Rule] = {}


def rule(
    hint_id: str, *, needs: Sequence[Need] = (), summary: str, bound: str, relieves: Sequence[str] = ()
) -> Callable[[Callable[[Frame], Found]], Callable[[Frame], Found]]:
    """Register a hint rule under its id, with the evidence it needs, what it finds, how its estimate is
    bounded (the last two for docs/hints.md) and the limiters whose work its fix removes (``relieves``)."""
    unknown = set(relieves) - set(LIMITERS)
    if unknown:
        raise ValueError(f"rule {hint_id}: relieves {sorted(unknown)}, not limiters {LIMITERS}")

    def deco(fn: Callable[[Frame], Found]) -> Callable[[Frame], Found]:
        RULES[hint_id] = Rule(hint_id, fn, tuple(needs), summary, bound, tuple(relieves))
        return fn

    return deco


# ------------------------------------------------------------------------------------------------ shared figures

_OCC = "--section Occupancy"
_LAUNCH = "--section LaunchStats"
_SOL = "--section SpeedOfLight"
_MEM_TABLES = "--section MemoryWorkloadAnalysis_Tables"
_SOURCE = "--section SourceCounters"
_ROOF_CHART = f"--section {WORK_SECTIONS['fp32']} (or --set {ROOFLINE_SET})"


def _latency_launch(f: Frame) -> Arr:
    """How a message names a latency-bound launch: as such where the verdict is settled, and "as far as measured"
    where it is partial (a unit the export did not measure could be at its bound: metrics picked by hand)."""
    partial = f.number("partial") == 1.0
    return np.where(partial, "a launch latency-bound as far as measured (partial verdict)", "a latency-bound launch")


def _is(f: Frame, column: str, *values: str) -> Arr:
    """Where verdict column ``column`` is one of ``values`` (a missing value is "")."""
    if column in f.verdicts.columns and "" not in values:
        # compared in the column's own storage (Arrow for text), not copied out as objects
        found: Arr = f.verdicts[column].isin(values).to_numpy(dtype=bool)
        return found
    col = f.text(column)
    out = np.zeros(f.n, dtype=bool)
    for v in values:
        out |= col == v
    return out


def gemm_named(f: Frame) -> Arr:
    """True where the kernel name says matrix multiply or convolution (GEMM_NAME), matched once per name."""
    # factorized as they are (not copied to fixed-width text first); a missing name is matched as its str
    values = np.asarray(f.kernel_name, dtype=object)
    codes, names = pd.factorize(values)
    out: Arr = np.array([bool(GEMM_NAME.search(str(k))) for k in names] + [False], dtype=bool)[codes]
    for at in np.flatnonzero(codes < 0):
        out[at] = bool(GEMM_NAME.search(str(values[at])))
    return out


def idle_issue_share(f: Frame) -> Arr:
    """Latency evidence: the share of scheduler cycles with no instruction issued (1 - One or More Eligible),
    else 1 - the SM's issue-slot use. The most a latency fix can save (capped at the headroom)."""
    sched = f.get("issue_slot_busy_pct")
    sm = f.get("issue_active_pct")
    busy = np.where(np.isnan(sched), sm, sched)
    return np.clip(1.0 - busy / 100.0, 0.0, 1.0)


def _latency_evidence(f: Frame) -> list[Ev]:
    return [
        Ev(f.source("issue_slot_busy_pct"), f.get("issue_slot_busy_pct"), None, "=="),
        Ev(f.source("eligible_warps_per_scheduler"), f.get("eligible_warps_per_scheduler"), ELIGIBLE_WARPS, "<"),
    ]


# ------------------------------------------------------------------------------------------------ rules


@rule(
    "register_spilling",
    needs=(
        Need(
            (
                "spill_instructions",
                "spill_requests",
                "local_load_sectors&local_store_sectors&global_load_sectors&global_store_sectors",
            ),
            "sass__inst_executed_register_spilling",
            # no stock section of ncu 2019.5-2024.2 counts spills (labels-by-version; ncu 2022.3's and 2024.2's
            # --query-metrics): the compiler's report does, and their Memory Workload Analysis tables count the
            # local-memory sectors spills load and store (the third alternative)
            f"{_SOURCE}, in ncu 2025.3 (ncu 2024.2 and older count no spills, nvcc -Xptxas -v reports them)",
        ),
    ),
    summary="Spill instructions to local memory (ptxas ran out of registers); where ncu counts no spills (2024.2 "
    "and older), local memory that is a large share of the L1 sectors (spills, or per-thread arrays indexed at "
    "run time).",
    bound="The local-memory share of the L1 sectors on a memory-limited launch.",
    relieves=("l1", "l2", "hbm"),
)
def register_spilling(f: Frame) -> Found:
    spills, requests, pct = f.get("spill_instructions"), f.get("spill_requests"), f.get("spill_requests_pct")
    from_spills = ~np.isnan(spills)
    count = np.where(from_spills, spills, requests)
    local = f.get("local_load_sectors") + f.get("local_store_sectors")
    glob = f.get("global_load_sectors") + f.get("global_store_sectors")
    share = _div(local, local + glob)
    # no spill count (ncu 2024.2 and older): local memory a large share of the L1 sectors is spills or arrays,
    # where it is at least what one 4-byte spill store of every thread moves (a sector per 8 threads; no floor
    # without the launch's shape): not a stack frame touched by a few threads of a 2 us launch
    threads = f.get("grid_size") * f.get("block_size")
    floor = np.where(np.isnan(threads), 0.0, threads / LOCAL_SECTOR_THREADS)
    from_local = np.isnan(count) & _ge(share, SPILL_TRAFFIC_SHARE) & _ge(local, floor)
    regs = f.get("registers_per_thread")
    heavy = _ge(pct, SPILL_TRAFFIC_SHARE * 100) | _ge(share, SPILL_TRAFFIC_SHARE)
    memory = _is(f, "limiter", *MEMORY_LIMITERS)
    return Found(
        fires=_ge(count, SPILL_INSTRUCTIONS) | from_local,
        severity=np.where(heavy, "high", "medium"),
        message=lambda t: (
            t.pick(
                from_local,
                t.f(local, ",.0f") + " local-memory sectors",
                t.f(count, ",.0f") + " spill instructions/requests to local memory",
            )
            + t.pick(ok(regs), " at " + t.f(regs, ".0f") + " registers/thread", "")
            + t.pick(ok(share), "; local memory is " + t.f(share, ".0%") + " of the L1 sectors", "")
            + t.pick(from_local, ": spills, or per-thread arrays indexed at run time (this ncu counts no spills)", "")
        ),
        advice=lambda t: (
            "Give the kernel more registers (__launch_bounds__ with fewer threads per block, or a higher "
            "-maxrregcount / __maxnreg__), keep per-thread arrays indexed by compile-time constants (unrolled "
            "loops) so they stay in registers, or stage them in shared memory. Check with nvcc -Xptxas -v."
        ),
        evidence=(
            Ev(
                np.where(from_spills, "sass__inst_executed_register_spilling", "derived__local_spilling_requests"),
                count,
                SPILL_INSTRUCTIONS,
                ">=",
            ),
            Ev("derived__local_spilling_requests_pct", pct, SPILL_TRAFFIC_SHARE * 100, ">="),
            Ev("l1tex__t_sectors_pipe_lsu_mem_local_op_{ld,st}.sum", local, None, "=="),
            Ev(  # the test of a hint from local memory alone (no spill count)
                "local share of l1tex__t_sectors_pipe_lsu_mem_{global,local}_op_{ld,st}.sum",
                share,
                SPILL_TRAFFIC_SHARE,
                ">=",
                when=np.isnan(count),
            ),
            Ev("launch__registers_per_thread", regs, None, "=="),
        ),
        estimate=np.where(memory, share, np.nan),
    )


_LIMITS = (
    (
        "occupancy_limit_registers",
        "registers",
        "launch__occupancy_limit_registers",
        "fewer registers per thread (__launch_bounds__, -maxrregcount) or smaller blocks",
    ),
    (
        "occupancy_limit_shared_mem",
        "shared memory",
        "launch__occupancy_limit_shared_mem",
        "less shared memory per block (smaller tiles, or reuse one buffer) or a larger carve-out "
        "(cudaFuncAttributePreferredSharedMemoryCarveout)",
    ),
    (
        "occupancy_limit_blocks",
        "blocks per SM",
        "launch__occupancy_limit_blocks",
        "larger blocks (the SM holds at most 32 blocks; tiny blocks cap the warps)",
    ),
    (
        "occupancy_limit_warps",
        "warps per SM",
        "launch__occupancy_limit_warps",
        "the block size: the SM's warp slots are full (this is the hardware maximum)",
    ),
    ("occupancy_limit_barriers", "barriers", "launch__occupancy_limit_barriers", "fewer named barriers per block"),
)


#: The occupancy limits every ncu reports (2019.5 on: Block Limit SM, Registers, Shared Mem, Warps).
_EVERY_LIMIT = (
    "occupancy_limit_blocks",
    "occupancy_limit_registers",
    "occupancy_limit_shared_mem",
    "occupancy_limit_warps",
)


def occupancy_limiters(f: Frame) -> dict[str, Arr]:
    """Per occupancy limit (quantity name), True where it gives the fewest blocks per SM (ncu's Occupancy
    "Block Limit" rows); False everywhere on a launch without every one of _EVERY_LIMIT."""
    values = {k: f.get(k) for k, *_ in _LIMITS}
    stacked = np.vstack(list(values.values()))
    # the least of the limits only where every limit of every ncu is measured (the barriers' is newer): the
    # least of a few says nothing of the others
    have = ~np.isnan(np.vstack([values[k] for k in _EVERY_LIMIT])).any(axis=0)
    low = np.full(f.n, np.nan)
    low[have] = np.nanmin(stacked[:, have], axis=0)
    return {k: (v == low) & ~np.isnan(v) for k, v in values.items()}


def _join(parts: Sequence[Arr], sep: str) -> Arr:
    """Join per-row strings element-wise, skipping empty ones (no per-row Python loop)."""
    acc: Arr | None = None
    for p in parts:
        v = np.asarray(p, dtype=object)
        if acc is None:
            acc = v
            continue
        acc = np.where(v == "", acc, np.where(acc == "", v, acc + sep + v))
    return np.zeros(0, dtype=object) if acc is None else acc.astype(object)


@rule(
    "low_occupancy",
    needs=(
        Need(("achieved_occupancy_pct",), "sm__warps_active.avg.pct_of_peak_sustained_active", _OCC),
        # latency-bound only where every unit is measured under its bound: no verdict, not checked
        Need(("v:regime",), "a figure of every unit (no verdict: its reason names those missing)", _SOL),
    ),
    summary="Few warps per SM on a latency-bound launch whose schedulers lack eligible warps.",
    bound="The scheduler cycles with no instruction issued (1 - smsp__issue_active), capped at the headroom.",
)
def low_occupancy(f: Frame) -> Found:
    achieved, theoretical = f.get("achieved_occupancy_pct"), f.get("theoretical_occupancy_pct")
    waves, eligible = f.get("waves_per_sm"), f.get("eligible_warps_per_scheduler")
    latency = _is(f, "regime", "latency")
    full_waves = ~_lt(waves, SMALL_GRID_WAVES)  # under a wave: small_grid says so (not measured: below)
    applies = latency & full_waves
    # (not measured: the occupancy alone decides, and the message says the eligible warps were not measured)
    enough_eligible = _ge(eligible, ELIGIBLE_WARPS)  # the schedulers already have a warp to issue
    low = applies & _lt(achieved, LOW_OCCUPANCY_PCT) & ~enough_eligible
    fires = low & ~np.isnan(waves)  # a launch under a wave is small_grid's: without the waves, undecided
    lim = occupancy_limiters(f)
    one_block = np.zeros(f.n, dtype=bool)
    for k in ("occupancy_limit_registers", "occupancy_limit_shared_mem"):
        one_block |= lim[k] & (f.get(k) == 1)
    # limited by design: one block per SM by registers/shared memory and either near a roof (tensor pipe or the
    # limiting unit at NEAR_ROOF) or a matrix-multiply kernel using its tensor cores (a warp-specialised GEMM
    # whose tensor work the SOL figures may not count)
    tensor = f.unit("pipe_tensor")
    near = _ge(tensor, NEAR_ROOF) | _ge(f.number("utilization"), NEAR_ROOF)
    gemm_tiles = gemm_named(f) & (_ge(tensor, TENSOR_IDLE) | np.isnan(tensor))
    by_design = one_block & (near | gemm_tiles)
    gap = _lt(achieved, OCCUPANCY_GAP * theoretical)

    def message(t: Text) -> Arr:
        names = _join([t.pick(lim[k], name, "") for k, name, _, _ in _LIMITS], " and ")
        limit = np.where(names != "", ", limited by " + names, "").astype(object)
        theo = t.pick(ok(theoretical), "theoretical " + t.f(theoretical, ".1f") + " %", "theoretical unknown")
        on = " on " + t.s(_latency_launch(f))
        cause = t.pick(
            gap,
            t.f(achieved, ".1f")
            + " % achieved occupancy of a theoretical "
            + t.f(theoretical, ".1f")
            + " %"
            + on
            + ": warps end unevenly (load imbalance across warps or blocks, a tail, or long-running blocks)",
            t.f(achieved, ".1f") + " % achieved occupancy (" + theo + limit + ")" + on,
        )
        design = t.pick(
            by_design & near,
            "; one block per SM by design, near a roof",
            t.pick(by_design, "; one block per SM by design (a tensor-core GEMM's tiles)", ""),
        )
        elig = t.pick(
            ok(eligible), "; " + t.f(eligible, ".2f") + " eligible warps per scheduler", "; eligible warps not measured"
        )
        out: Arr = cause + elig + design
        return out

    def advice(t: Text) -> Arr:
        raise_ = _join([t.pick(lim[k], text, "") for k, _, _, text in _LIMITS], "; ")
        raised = np.where(
            raise_ != "",
            "Raise the occupancy limit: " + raise_ + ".",
            "Raise the theoretical occupancy (registers, shared memory and block size set it).",
        ).astype(object)
        ilp = " Or give each warp more independent work (ILP) so fewer warps hide the latency."
        # a whole number of waves fills every block slot from the start: blocks are not what is missing
        whole = ok(waves) & np.isclose(waves, np.round(waves))
        return t.pick(
            gap,
            "Balance the work per block and per warp"
            + t.pick(whole, ".", ", and launch enough blocks to keep every SM busy."),
            t.pick(
                by_design,
                "The kernel holds one block per SM on purpose (large tiles, warp specialisation)"
                + t.pick(near, " and is near its roof", "")
                + ": more warps would cost the reuse the tiles buy. Hide latency inside the block instead: "
                "deeper pipelining (more cp.async/TMA stages), more independent accumulators per warp.",
                raised + ilp,
            ),
        )

    ev = [
        Ev(f.source("achieved_occupancy_pct"), achieved, LOW_OCCUPANCY_PCT, "<"),
        Ev(f.source("theoretical_occupancy_pct"), theoretical, None, "=="),
    ]
    ev += [Ev(metric, f.get(k), None, "==", lim[k]) for k, _, metric, _ in _LIMITS]
    ev += _latency_evidence(f)
    return Found(
        fires=fires,
        severity=np.where(by_design, "low", "high"),
        message=message,
        advice=advice,
        evidence=ev,
        estimate=idle_issue_share(f),
        applies=applies | (_is(f, "regime", "") & full_waves),  # no verdict: this rule's launch, maybe
        undecided=((Need(("waves_per_sm",), "launch__waves_per_multiprocessor", _LAUNCH), low & np.isnan(waves)),),
    )


@rule(
    "launch_overhead",
    needs=(
        Need(("duration",), "gpu__time_duration.sum", "--section SpeedOfLight"),
        # a short launch is launch-bound only where every unit is measured under its bound: no verdict, not checked
        Need(("v:regime",), "a figure of every unit (no verdict: its reason names those missing)", _SOL),
    ),
    summary="A launch shorter than the launch cost itself (regime launch); repeated ones are worth fusing.",
    bound="None: no roof to move toward (the launch cost is host and driver time).",
)
def launch_overhead(f: Frame) -> Found:
    duration = f.get("duration")
    short = _is(f, "regime", "launch")
    # the kernel's launch-bound launches: what fusing or a graph saves the launch cost of (train_step's direct_copy:
    # 29 of its 63 launches, 125 us of its 868 us; a 364 us launch of it is latency-bound, not launch-bound)
    count = f.per_kernel(short)
    total = f.per_kernel(np.where(short, duration, np.nan))
    repeated = count >= REPEATED_LAUNCHES
    every = count >= f.repeats
    return Found(
        fires=short,
        applies=~(duration >= LAUNCH_DURATION_S),  # short, or of unknown duration
        severity=np.where(repeated, "high", "medium"),
        message=lambda t: t.pick(
            repeated,
            t.f(duration * 1e6, ".1f")
            + " us per launch, "
            + t.pick(
                every,
                t.f(f.repeats, ".0f") + " launches of this kernel",
                t.f(count, ".0f") + " of this kernel's " + t.f(f.repeats, ".0f") + " launches launch-bound",
            )
            + ", "
            + t.f(total * 1e6, ".1f")
            + " us in all; launch overhead costs as much as the work",
            t.f(duration * 1e6, ".1f") + " us, too short for any roof to matter",
        ),
        advice=lambda t: t.pick(
            repeated,
            "Fuse the repeated launches into one kernel (loop inside the kernel, or batch the inputs), or capture "
            "the sequence in a CUDA graph (cudaStreamBeginCapture / torch.cuda.graphs) to pay the launch cost once.",
            "Fuse this kernel with its neighbours, or capture the sequence it belongs to in a CUDA graph.",
        ),
        evidence=(
            Ev(f.source("duration"), duration, LAUNCH_DURATION_S, "<"),
            Ev("launch-bound launches of this kernel", count, REPEATED_LAUNCHES, ">="),
        ),
    )


@rule(
    "small_grid",
    needs=(
        Need(
            ("waves_per_sm", "grid_size&sm_count"),
            "launch__waves_per_multiprocessor, or launch__grid_size and the GPU's SM count "
            "(device__attribute_multiprocessor_count)",
            f"{_LAUNCH}, or for the SM count --device NAME",
        ),
    ),
    summary="A grid that leaves SMs without a block, or at most half a wave.",
    bound="The share of SMs without a block (1 - blocks / SMs); unquantified when every SM has a block, and on a "
    "launch-bound launch (regime launch: its time is the launch cost, which a wider grid does not shorten).",
)
def small_grid(f: Frame) -> Found:
    waves, grid, sms = f.get("waves_per_sm"), f.get("grid_size"), f.get("sm_count")
    idle = np.clip(1.0 - _div(grid, sms), 0.0, 1.0)
    few = _ge(idle, SMALL_GRID_IDLE_SMS)
    half = ~np.isnan(waves) & (waves <= SMALL_GRID_HALF_WAVE)
    applies = ~_is(f, "regime", "bound")
    # a launch shorter than the launch cost: spreading its few blocks over more SMs leaves that cost (1 block of 32
    # threads for 2 us: "99 % of the SMs idle" does not make it 99 % faster); launch_overhead is its hint
    launch = _is(f, "regime", "launch")

    def blocks(t: Text) -> Arr:
        out: Arr = t.f(grid, ".0f") + t.pick(grid == 1, " block", " blocks")
        return out

    waves_need = Need(("waves_per_sm",), "launch__waves_per_multiprocessor", _LAUNCH)
    grid_need = Need(
        ("grid_size&sm_count",),
        "launch__grid_size and the GPU's SM count (device__attribute_multiprocessor_count)",
        f"{_LAUNCH}, or for the SM count --device NAME",
    )
    return Found(
        # each test rules out its own case: without the waves half a wave is not ruled out; without the blocks
        # over the SMs a grid leaving SMs idle is not, under SMALL_GRID_IDLE_SMS of a wave (at one block per SM)
        undecided=(
            (waves_need, np.isnan(waves)),
            (grid_need, np.isnan(idle) & ~(waves > 1.0 - SMALL_GRID_IDLE_SMS)),
        ),
        fires=applies & (few | half),
        severity=np.where(launch, "low", np.where(_ge(idle, 0.5), "high", "medium")),
        message=lambda t: (
            t.pick(
                few,
                blocks(t)
                + " for "
                + t.f(sms, ".0f")
                + " SMs: "
                + t.f(idle, ".0%")
                + " of the SMs have no block"
                + t.pick(ok(waves), " (" + t.f(waves, ".2f") + " waves)", ""),
                t.pick(
                    ok(idle),
                    t.f(waves, ".2f")
                    + t.pick(
                        idle > 0,
                        " waves: "
                        + t.f(idle, ".0%")
                        + " of the SMs have no block, and the others at least half of their block slots empty, so "
                        "they have half the warps they could use to hide latency",
                        " waves: every SM has a block but at least half of its block slots are empty, so it has half "
                        "the warps it could use to hide latency",
                    ),
                    # no SM count: how many SMs have a block is not measured (a 1-block grid is 0.00 waves too)
                    t.f(waves, ".2f")
                    + " waves ("
                    + t.pick(
                        ok(grid),
                        blocks(t) + "; the GPU's SM count is not in the export",
                        "the grid size is not in the export",
                    )
                    + ", so how many SMs have none is not measured): at "
                    "least half of the GPU's block slots are empty, so its SMs have at most half the warps they "
                    "could use to hide latency",
                ),
            )
            + t.pick(launch, "; the launch cost, not the grid, holds this launch", "")
        ),
        advice=lambda t: t.pick(
            launch,
            # the launch cost holds it: a wider grid does not shorten it (launch_overhead's advice)
            "Its time is the launch cost, which more blocks do not shorten: fuse it with the launches around it, or "
            "capture them in a CUDA graph; once it does more work, launch more blocks.",
            "Launch more blocks (smaller blocks, or split the work further: split-K, more tiles), or run "
            "independent kernels concurrently on separate streams so they share the GPU.",
        ),
        evidence=(
            Ev("launch__waves_per_multiprocessor", waves, SMALL_GRID_HALF_WAVE, "<="),
            Ev(
                "1 - launch__grid_size / SMs (SMs without a block)",
                np.where(ok(grid, sms), idle, np.nan),
                SMALL_GRID_IDLE_SMS,
                ">=",
            ),
        ),
        estimate=np.where(few & ~launch, idle, np.nan),
        applies=applies,
    )


@rule(
    "tail_effect",
    needs=(Need(("waves_per_sm",), "launch__waves_per_multiprocessor", _LAUNCH),),
    summary="A partial last wave: SM block slots idle while the last blocks run.",
    bound="(1 - last-wave fill) / ceil(waves): the idle share of the SM slot time, blocks of equal duration.",
)
def tail_effect(f: Frame) -> Found:
    waves = f.get("waves_per_sm")
    achieved, theoretical = f.get("achieved_occupancy_pct"), f.get("theoretical_occupancy_pct")
    whole = np.floor(waves)
    fill = waves - whole
    with np.errstate(invalid="ignore", divide="ignore"):
        effect = np.where((whole >= 1) & (fill > 1e-9), (1.0 - fill) / np.ceil(waves), np.nan)
    return Found(
        fires=_ge(effect, TAIL_MIN_EFFECT),
        severity=np.where(_ge(effect, TAIL_HIGH_EFFECT), "medium", "low"),
        message=lambda t: (
            t.f(waves, ".2f")
            + " waves per SM, the last one "
            + t.f(fill, ".0%")
            + " full; with blocks of equal duration "
            + t.f(effect, ".0%")
            + " of the SM slot time is idle"
            + t.pick(
                ok(achieved, theoretical),
                " (achieved occupancy "
                + t.f(achieved, ".1f")
                + " % of a theoretical "
                + t.f(theoretical, ".1f")
                + " %)",
                "",
            )
        ),
        advice=lambda t: (
            "Size the grid to a whole number of waves (blocks = SMs x blocks per SM x n), or use a persistent-"
            "kernel loop over the work; more, smaller blocks also shrink the tail."
        ),
        evidence=(
            Ev("launch__waves_per_multiprocessor", waves, None, "=="),
            Ev("(1 - last-wave fill) / ceil(waves)", effect, TAIL_MIN_EFFECT, ">="),
        ),
        estimate=effect,
    )


_COALESCE_ADVICE = (
    "Make consecutive threads access consecutive addresses: structure-of-arrays instead of array-of-"
    "structures, transpose through shared memory, or give each thread a contiguous vector (float4) instead "
    "of a strided element."
)


@rule(
    "uncoalesced_global_access",
    needs=(
        Need(
            ("l2_theoretical_sectors_global", "global_load_requests", "global_store_requests"),
            "memory_l2_theoretical_sectors_global(_ideal) or "
            "l1tex__t_{sectors,requests}_pipe_lsu_mem_global_op_{ld,st}",
            f"{_MEM_TABLES} or {_SOURCE}",
        ),
    ),
    summary="Global accesses touching more sectors than the same accesses need when coalesced.",
    bound="ncu's estimate: the excess sector share x L2 busy time (the L2 throughput where its busy time is not "
    "measured; else, where neither or the ideal sectors are, the excess share on a memory-limited launch), capped "
    "at the headroom; the share taken of every L2 sector of L1/TEX's requests where those are measured (local "
    "spills and atomics keep the L2 busy too: ncu's share is of the global sectors alone).",
    relieves=("l1", "l2", "hbm"),
)
def uncoalesced_global_access(f: Frame) -> Found:
    total, ideal = f.get("l2_theoretical_sectors_global"), f.get("l2_theoretical_sectors_global_ideal")
    theo = ok(total, ideal) & (np.nan_to_num(total) > 0)
    share = np.where(theo, np.clip(_div(total - ideal, total), 0.0, None), np.nan)
    # ncu's estimate is the excess share x the L2's busy share; where that is not measured (a details page of the
    # memory tables prints one half of its pair), the L2 throughput of the SOL section stands in (it is at most
    # the busy share: a tensor kernel at 0.4 % of its L2 throughput gains nothing from its 25 % excess sectors);
    # where neither is, the share alone decides, as it does without the ideal, and gives the estimate only as that
    l2_busy = f.get("l2_busy")
    by_busy = ~np.isnan(l2_busy)
    busy = np.where(by_busy, l2_busy, f.get("l2_throughput_pct") / 100.0)
    # of the L2's work, the excess is its share of all the sectors the SMs send it, not of the global ones alone
    # (spill_heavy: 354,816 excess sectors are 18 % of its global sectors and 0.1 % of the 327.8 M its local
    # spills and loads bring to an L2 84 % busy: ncu's 17 % cannot be had from them)
    from_l1 = f.get("l2_sectors_from_l1")
    of_l2 = np.where(theo & (np.nan_to_num(from_l1) > 0), np.clip(_div(total - ideal, from_l1), 0.0, None), np.nan)
    gain = busy * np.fmin(share, of_l2)
    unknown_busy = np.isnan(busy)
    fires_theo = theo & _ge(share, UNCOALESCED_EXCESS_SHARE) & (_ge(gain, UNCOALESCED_MIN_GAIN) | unknown_busy)
    per_ld = _div(f.get("global_load_sectors"), f.get("global_load_requests"))
    per_st = _div(f.get("global_store_sectors"), f.get("global_store_requests"))
    load_worse = np.nan_to_num(per_ld, nan=-1.0) >= np.nan_to_num(per_st, nan=-1.0)
    per = np.where(load_worse, per_ld, per_st)
    # without the ideal sectors, the excess over the most a coalesced access touches, held to the same share as
    # ncu's rule (an llm_full store at 16.05 sectors per request is 0.3 % over a float4 access's 16)
    over = ~theo & (per > MAX_IDEAL_SECTORS_PER_REQUEST)
    share_req = np.where(over, 1.0 - MAX_IDEAL_SECTORS_PER_REQUEST / np.where(over, per, 1.0), np.nan)
    fires_req = over & _ge(share_req, UNCOALESCED_EXCESS_SHARE)
    memory = _is(f, "limiter", *MEMORY_LIMITERS)
    work = np.where(theo, share, share_req)
    op = np.where(load_worse, "load", "store")
    return Found(
        fires=fires_theo | fires_req,
        severity=np.where(_ge(work, 0.5), "high", "medium"),
        message=lambda t: t.pick(
            theo,
            t.f(total - ideal, ",.0f")
            + " excess L2 sectors, "
            + t.f(share, ".0%")
            + " of the "
            + t.f(total, ",.0f")
            + " the accesses touch (ideal "
            + t.f(ideal, ",.0f")
            + ")",
            t.f(per, ".1f") + " sectors per global " + t.s(op) + " request (a coalesced warp access touches at most "
            f"{MAX_IDEAL_SECTORS_PER_REQUEST:.0f}, for 16-byte accesses; 4 for 4-byte ones)",
        ),
        advice=lambda t: _COALESCE_ADVICE,
        evidence=(
            Ev("memory_l2_theoretical_sectors_global_excessive / _global", share, UNCOALESCED_EXCESS_SHARE, ">="),
            Ev("excess sectors / lts__t_sectors_srcunit_tex.sum", of_l2, None, "==", of_l2 < share),
            Ev(
                np.where(
                    of_l2 < share,
                    np.where(
                        by_busy,
                        "excess share of L2's sectors x L2 busy",
                        "excess share of L2's sectors x L2 throughput",
                    ),
                    np.where(by_busy, "excess share x L2 busy (ncu's estimate)", "excess share x L2 throughput"),
                ),
                np.where(theo, gain, np.nan),
                UNCOALESCED_MIN_GAIN,
                ">=",
            ),
            Ev(
                np.where(
                    load_worse,
                    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / requests",
                    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / requests",
                ),
                per,
                MAX_IDEAL_SECTORS_PER_REQUEST,
                ">",
                fires_req,
            ),
            Ev(
                "sectors over a coalesced access's (1 - 16 / sectors per request)",
                share_req,
                UNCOALESCED_EXCESS_SHARE,
                ">=",
                fires_req,
            ),
        ),
        estimate=np.where(theo & ~unknown_busy, gain, np.where(memory, work, np.nan)),
    )


@rule(
    "shared_bank_conflicts",
    needs=(
        Need(
            (
                "shared_bank_conflicts&shared_wavefronts",
                "shared_load_bank_conflicts&shared_store_bank_conflicts&shared_load_wavefronts&shared_store_wavefronts",
            ),
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared and l1tex__data_pipe_lsu_wavefronts_mem_shared",
            _MEM_TABLES,
        ),
    ),
    summary="Shared-memory wavefronts replayed for bank conflicts.",
    bound="The conflict share of the shared wavefronts x the L1 unit's utilisation, capped at the headroom.",
    relieves=("l1",),
)
def shared_bank_conflicts(f: Frame) -> Found:
    conflicts, wavefronts = f.get("shared_bank_conflicts"), f.get("shared_wavefronts")
    # the totals, else the loads' and stores' counts, all four (one alone is not the total)
    split = ~ok(conflicts, wavefronts)
    conflicts = np.where(split, f.get("shared_load_bank_conflicts") + f.get("shared_store_bank_conflicts"), conflicts)
    wavefronts = np.where(split, f.get("shared_load_wavefronts") + f.get("shared_store_wavefronts"), wavefronts)
    share = np.where(_ge(conflicts, 1e-12), _div(conflicts, wavefronts), np.nan)
    l1 = f.number("score_l1")
    gain = share * np.where(np.isnan(l1), 1.0, l1)
    ways = _div(wavefronts, np.fmax(wavefronts - conflicts, 1.0))
    return Found(
        fires=_ge(share, BANK_CONFLICT_SHARE) & _ge(gain, BANK_CONFLICT_MIN_GAIN),
        severity=np.where(_is(f, "limiter", "l1"), "high", "medium"),
        message=lambda t: (
            t.f(conflicts, ",.0f")
            + " of "
            + t.f(wavefronts, ",.0f")
            + " shared wavefronts are replays ("
            + t.f(share, ".0%")
            + ", about "
            + t.f(ways, ".0f")
            + "-way)"
        ),
        advice=lambda t: (
            "Make the threads of a warp hit different banks: pad shared arrays (e.g. [32][33] instead of "
            "[32][32]), swizzle the index (XOR), or change which thread reads which element."
        ),
        evidence=(
            Ev(  # the loads' and stores' counts picked by hand leave out other shared traffic (ldsm, cp.async)
                np.where(
                    split,
                    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld + _op_st / their wavefronts (loads and "
                    "stores only)",
                    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared / wavefronts",
                ),
                share,
                BANK_CONFLICT_SHARE,
                ">=",
            ),
            # without L1's utilisation the share alone decides (and bounds the estimate): no product to show
            Ev("conflict share x L1 utilisation", gain, BANK_CONFLICT_MIN_GAIN, ">=", ~np.isnan(l1)),
        ),
        estimate=gain,
    )


@rule(
    "thread_divergence",
    needs=(
        Need(
            ("threads_per_instruction",),
            "smsp__thread_inst_executed_per_inst_executed.ratio",
            "--section WarpStateStats",
        ),
    ),
    summary="Fewer than 24 of 32 threads active per executed warp instruction.",
    bound="The idle-lane share (1 - threads / 32) on a compute-limited launch, capped at the headroom.",
    relieves=("compute",),
)
def thread_divergence(f: Frame) -> Found:
    threads, block = f.get("threads_per_instruction"), f.get("block_size")
    partial = ok(block) & (np.nan_to_num(block) % WARP_SIZE != 0)
    applies = ~_is(f, "regime", "launch")
    return Found(
        fires=applies & _lt(threads, DIVERGENCE_THREADS),
        severity="medium",
        message=lambda t: (
            t.f(threads, ".1f")
            + " of 32 threads active per executed warp instruction"
            + t.pick(
                partial, " (block size " + t.f(block, ".0f") + " is not a multiple of 32: part of it is idle lanes)", ""
            )
        ),
        advice=lambda t: (
            "Keep the threads of a warp on the same path: sort or bin the work so that warps take uniform "
            "branches, replace data-dependent branches by arithmetic (select, predication), and make the block "
            "size a multiple of 32."
        ),
        evidence=(Ev("smsp__thread_inst_executed_per_inst_executed.ratio", threads, DIVERGENCE_THREADS, "<"),),
        estimate=np.where(_is(f, "limiter", "compute"), 1.0 - threads / WARP_SIZE, np.nan),
        applies=applies,
    )


@rule(
    "fp32_instead_of_tensor",
    needs=(
        Need(
            ("u:fp32", "ncu:ncu_fp32_pct", "u:pipe_fma"),
            "FP32 FLOPs (smsp__sass_thread_inst_executed_op_ffma)",
            _ROOF_CHART,
        ),
    ),
    summary="FP32 FMA work on a GEMM-shaped kernel with the tensor cores idle (from the FP32 FLOP roof, the FMA "
    "share, the instruction mix or ncu's SOLFPRoofline rule).",
    bound="1 - time at the TF32 tensor roof (capped by the launch's memory roofs) / time now, capped at the headroom.",
    relieves=("compute",),
)
def fp32_instead_of_tensor(f: Frame) -> Found:
    named = gemm_named(f)
    roof32, rule32 = f.unit("fp32"), f.ncu_figure("ncu_fp32_pct") / 100.0
    # the FP32 level: the FLOP roof, else ncu's SOLFPRoofline text, else the FMA pipe where the verdict's pipe
    # is FP32 (a raw page without FLOP counters)
    fma_pipe32 = np.where(_is(f, "compute_pipe", "fp32"), f.unit("pipe_fma"), np.nan)
    fp32 = np.where(np.isnan(roof32), np.where(np.isnan(rule32), fma_pipe32, rule32), roof32)
    ffma, fadd, fmul = f.get("ffma_per_cycle"), f.get("fadd_per_cycle"), f.get("fmul_per_cycle")
    fma_share = _div(2 * ffma, 2 * ffma + fadd + fmul)
    loads = np.fmax(
        np.fmax(f.get("shared_load_instructions"), f.get("global_load_instructions")), f.get("global_load_requests")
    )
    load_share = _div(loads, f.get("instructions"))
    # FMA work: the FFMA share of FP32 FLOPs, else the FMA pipe busy at the FP32 level, else a pipe family
    family = f.ncu["ncu_pipe_family"].astype("string").fillna("").to_numpy(dtype=object)
    fp32_family = _is(f, "compute_pipe", "fp32") | (family == "fp32")
    pipe_fma = f.unit("pipe_fma")
    fma = np.where(
        ~np.isnan(fma_share),
        _ge(fma_share, FMA_FLOP_SHARE),
        np.where(~np.isnan(pipe_fma), _ge(pipe_fma, FP32_GEMM_MIN_FRACTION), fp32_family),
    )
    gemm = _ge(load_share, OPERAND_LOAD_SHARE) | (named & np.isnan(load_share))
    tensor_busy = _ge(f.unit("pipe_tensor"), TENSOR_IDLE)
    no_tf32 = f.cc < TF32_FROM_CC  # NaN (unknown GPU) compares False: the TF32 advice stands
    fires = _ge(fp32, FP32_GEMM_MIN_FRACTION) & fma.astype(bool) & gemm & ~tensor_busy & f.tensor_cores
    at_tensor = f.tensor_time
    return Found(
        fires=fires,
        severity="high",
        message=lambda t: (
            "FP32 FMA work at " + t.f(fp32, ".0%") + " of the FP32 peak with the tensor cores idle: a matrix "
            "multiply or convolution in plain FP32"
            + t.pick(
                ok(at_tensor), "; at the TF32 tensor roof it would take " + t.f(at_tensor, ".0%") + " of its time", ""
            )
        ),
        advice=lambda t: t.pick(
            no_tf32,
            "Let tensor cores do it: run in FP16 with FP32 accumulation (autocast; cuBLAS/cuDNN with FP16 inputs "
            "and CUBLAS_COMPUTE_32F), where its 10-bit mantissa is accurate enough. This GPU (compute capability "
            "7.x) has no TF32 or BF16 tensor path.",
            "Let tensor cores do it: allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True, "
            "torch.set_float32_matmul_precision('high'), cuBLAS CUBLAS_COMPUTE_32F_FAST_TF32), or run in BF16/FP16 "
            "with FP32 accumulation (autocast), where their precision is enough: TF32 and FP16 keep 10 mantissa "
            "bits, BF16 7, FP32 23 (check the results against FP32).",
        ),
        evidence=(
            Ev("FP32 FLOP/s of the FP32 roof", roof32, FP32_GEMM_MIN_FRACTION, ">="),
            Ev(
                "ncu SOLFPRoofline: % of FP32 peak",
                rule32 * 100,
                FP32_GEMM_MIN_FRACTION * 100,
                ">=",
                np.isnan(roof32) & ~np.isnan(rule32),
            ),
            Ev(
                "FMA pipe (fraction; FP32 FLOPs not collected)",
                fma_pipe32,
                FP32_GEMM_MIN_FRACTION,
                ">=",
                np.isnan(roof32) & np.isnan(rule32),
            ),
            Ev("FFMA share of FP32 FLOPs", fma_share, FMA_FLOP_SHARE, ">="),
            Ev("shared/global load instructions per instruction", load_share, OPERAND_LOAD_SHARE, ">="),
            Ev(f.source("pipe_tensor_pct") + " (fraction)", f.unit("pipe_tensor"), TENSOR_IDLE, "<"),
            Ev("compute capability (no TF32 tensor path)", f.cc, TF32_FROM_CC, "<", no_tf32),
            Ev("kernel name looks like a matrix multiply / convolution", named.astype(float), None, "==", named),
            Ev("time at the TF32 tensor roof / time now", at_tensor, None, "=="),
        ),
        estimate=1.0 - at_tensor,
        applies=named | _is(f, "compute_pipe", "fp32"),
    )


@rule(
    "atomic_contention",
    needs=(
        Need(
            (
                "l2_atomic_input_max_pct&l2_atomic_input_pct",
                "global_atomic_requests&global_reduction_requests&global_load_requests&global_store_requests",
            ),
            "lts__d_atomic_input_cycles_active.{max,avg} or l1tex__t_requests_pipe_lsu_mem_global_op_{atom,red,ld,st}"
            ".sum",
            f"{_MEM_TABLES} (or --set full)",
        ),
    ),
    summary="Atomics piling onto few addresses: the busiest L2 slice's atomic unit far above the average, or "
    "(without per-slice figures) atomics most of the requests of a latency-bound launch.",
    bound="The busiest slice's atomic busy time above the average slice's ((max - avg) / 100), else the idle "
    "issue slots; capped at the headroom.",
)
def atomic_contention(f: Frame) -> Found:
    # the atomics' and reductions' requests, the loads' and stores': each pair both, or not measured
    atomics = f.get("global_atomic_requests") + f.get("global_reduction_requests")
    other = f.get("global_load_requests") + f.get("global_store_requests")
    share = _div(atomics, atomics + other)
    smax, savg = f.get("l2_atomic_input_max_pct"), f.get("l2_atomic_input_pct")
    slices = ok(smax, savg)
    hot = slices & _ge(smax, ATOMIC_SLICE_BUSY_PCT) & _ge(smax, ATOMIC_IMBALANCE * savg)
    by_requests = ~slices & _ge(atomics, 1e-12) & _ge(share, ATOMIC_SHARE) & _is(f, "regime", "latency")
    ratio = _div(smax, np.fmax(savg, 1e-9))
    return Found(
        fires=hot | by_requests,
        severity="high",
        message=lambda t: (
            t.pick(ok(atomics), t.f(atomics, ",.0f") + " global atomic requests on few addresses; the", "The")
            + t.pick(
                hot,
                " busiest L2 slice's atomic unit is "
                + t.f(smax, ".0f")
                + " % busy, the average "
                + t.f(savg, ".1f")
                + " %",
                " atomics are " + t.f(share, ".0%") + " of the global memory requests of " + t.s(_latency_launch(f)),
            )
        ),
        advice=lambda t: (
            "Spread the updates: accumulate per thread/warp/block first (warp shuffles, shared-memory atomics) "
            "and issue one global atomic per block, or give each block its own counters and reduce them afterwards."
        ),
        evidence=(
            Ev("l1tex__t_requests_pipe_lsu_mem_global_op_{atom,red}.sum", atomics, 0.0, ">"),
            Ev(
                "lts__d_atomic_input_cycles_active.max (busiest L2 slice, %)", smax, ATOMIC_SLICE_BUSY_PCT, ">=", slices
            ),
            Ev("busiest / average L2 slice atomic unit", ratio, ATOMIC_IMBALANCE, ">=", slices),
            Ev("atomic share of global requests", share, ATOMIC_SHARE, ">=", by_requests),
        ),
        estimate=np.where(hot, (smax - savg) / 100.0, idle_issue_share(f)),
    )


#: The FLOP roofs non_fp_compute reads, and the pipe whose utilisation bounds each from above where its roof is
#: not measured (FP32 on the FMA pipe, which integer multiply-adds share: a bound, not the figure).
_FLOP_PIPES = {"fp64": "pipe_fp64", "fp32": "pipe_fma", "fp16": "pipe_fp16", "tensor": "pipe_tensor"}
_FLOP_NEED = Need(
    (*(f"u:{p}" for p in _FLOP_PIPES), *(f"u:{p}" for p in _FLOP_PIPES.values())),
    "FLOP counts of every precision (smsp__sass_thread_inst_executed_op_*), or its pipe's utilisation",
    _ROOF_CHART,
)


@rule(
    "non_fp_compute",
    needs=(_FLOP_NEED,),
    summary="Compute-bound with the FP work measured and small: integer, address or issue work.",
    bound="None: the fix removes instructions rather than moving toward a roof.",
)
def non_fp_compute(f: Frame) -> Found:
    compute_bound = _is(f, "limiter", "compute") & _is(f, "regime", "bound")
    # the pipes tell the work is not FP, or nothing told the pipe: the FLOP roofs decide
    applies = compute_bound & (_is(f, "compute_pipe", "other") | _is(f, "compute_pipe", ""))
    flops = np.vstack([f.unit(p) for p in _FLOP_PIPES])
    bounds = np.vstack([f.unit(p) for p in _FLOP_PIPES.values()])
    by_pipe = np.isnan(flops) & ~np.isnan(bounds)
    known = np.where(np.isnan(flops), bounds, flops)  # each precision's roof fraction, or its pipe's bound on it
    every = ~np.isnan(known).any(axis=0)
    best = np.full(f.n, np.nan)
    best[every] = known[:, every].max(axis=0)
    small = every & _lt(best, NON_FP_FLOP_MAX)
    # FP work at a measured roof's threshold rules the rule out; a precision not measured, or bounded only above
    # the threshold by its pipe, leaves it open
    fp_work = (_ge(flops, NON_FP_FLOP_MAX)).any(axis=0)
    bounded = by_pipe.any(axis=0)
    pipes = _NON_FP_PIPES
    pv = np.vstack([f.unit(p) for p in pipes])
    have_pipe = ~np.isnan(pv).all(axis=0)
    top = np.full(f.n, np.nan)
    top[have_pipe] = np.nanmax(pv[:, have_pipe], axis=0)
    top_at = np.argmax(np.nan_to_num(pv, nan=-1.0), axis=0)
    top_label = np.array([p[5:].upper() for p in pipes], dtype=object)[top_at]
    # the busiest pipe's metric, as the launch's export spells it (instructions or active cycles)
    top_metric = np.vstack([f.source(f"{p}_pct") for p in pipes])[top_at, np.arange(f.n)]
    sm = f.unit("sm")
    return Found(
        fires=applies & small,
        severity="medium",
        message=lambda t: (
            "Compute-bound on non-floating-point work: SM at "
            + t.f(sm, ".0%")
            + t.pick(
                bounded,
                " while the FLOP roofs (a pipe's utilisation where one is not measured) show at most ",
                " while the FLOP roofs show ",
            )
            + t.f(best, ".0%")
            + t.pick(have_pipe, "; busiest pipe " + t.s(top_label) + " at " + t.f(top, ".0%"), "")
            + "; the work is integer, address arithmetic or instruction issue, which the FP roofline does not show"
        ),
        advice=lambda t: (
            "Cut the instruction count per useful operation: hoist index arithmetic out of loops, use 32-bit "
            "indices, strength-reduce divisions and modulos (powers of two, precomputed reciprocals), vectorize "
            "loads (one float4 instead of four floats), and unroll to amortize loop overhead."
        ),
        evidence=(
            Ev(
                np.where(
                    bounded,
                    "best FLOP roof fraction (a pipe's utilisation where its roof is not measured)",
                    "best FLOP roof fraction",
                ),
                best,
                NON_FP_FLOP_MAX,
                "<",
            ),
            Ev("sm__throughput (fraction)", sm, None, "=="),
            Ev(top_metric + " (fraction)", top, None, "=="),
        ),
        applies=applies,
        undecided=((_FLOP_NEED, ~small & ~fp_work),),
    )


# ------------------------------------------------------------------------------------------------ running


def _json_num(values: Arr) -> pd.Series:
    """JSON numbers (numpy's shortest round-trip repr, as ``json.dumps`` writes a float); null where not finite."""
    text, inverse = _json_distinct(values)
    return pd.Series(text[inverse], dtype=object)


def _json_distinct(values: Arr) -> tuple[Arr, Arr]:
    """``_json_num`` of each distinct value (by its bits: -0.0 is not 0.0), as an object array, and each
    element's position in it."""
    v = np.ascontiguousarray(values, dtype=np.float64)
    bits, inverse = np.unique(v.view(np.int64), return_inverse=True)
    u = bits.view(np.float64)
    text: Arr = np.where(np.isfinite(u), u.astype(str), "null").astype(object)
    return text, np.asarray(inverse).reshape(-1)


def read_evidence(text: str) -> Any:
    """An evidence text (a JSON list, as ``_evidence_json`` writes it; or several joined into one list) as Python
    values: by orjson, else by the standard library (what orjson does not read: an integer beyond 64 bits, NaN).
    ValueError where neither reads it."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


#: The evidence tests (``Ev.op``) as numpy comparisons.
_COMPARE: dict[str, Callable[[Arr, Arr], Arr]] = {
    "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal,
}  # fmt: skip


def _evidence_json(evidence: Sequence[Ev], idx: Arr) -> pd.Series:
    """The JSON list of evidence (sorted keys: metric, op, threshold, value) for the launches at ``idx``; an
    item is left out where its value is unknown or its ``when`` is False, and shown as context (op "==", no
    threshold) where the launch fails its test."""
    acc = np.full(len(idx), "", dtype=object)  # the items so far, ", "-joined
    for e in evidence:
        value = np.asarray(e.value, dtype=np.float64)[idx]
        keep = ~np.isnan(value)
        if e.when is not None:
            keep &= np.asarray(e.when, dtype=bool)[idx]
        if not keep.any():
            continue
        at = np.flatnonzero(keep)  # the items are written for these launches only
        if isinstance(e.metric, np.ndarray):
            names, inv = np.unique(np.asarray(e.metric, dtype=object)[idx[at]].astype(str), return_inverse=True)
            metric: Arr | str = np.array([json.dumps(m) for m in names], dtype=object)[inv]
        else:
            metric = json.dumps(e.metric)
        op: Arr | str = json.dumps(e.op)
        threshold: Arr | str = "null"
        if e.threshold is not None:
            if isinstance(e.threshold, np.ndarray):  # per launch: this item's launches'
                bound = np.asarray(e.threshold, dtype=np.float64)[idx[at]]
                texts, inverse = _json_distinct(bound)
                threshold = texts[inverse]
            else:
                bound = np.full(len(at), float(e.threshold))
                threshold = repr(float(e.threshold))
            # a test this launch fails (the rule fired on another of its conditions) is shown as context, its
            # value alone: not as a threshold the launch is said to meet
            met = _COMPARE[e.op](value[at], bound)
            if not met.all():
                threshold = np.where(met, threshold, "null").astype(object)
                op = np.where(met, op, json.dumps("==")).astype(object)
        texts, inverse = _json_distinct(value[at])
        head = '{"metric": ' + metric + ', "op": ' + op + ', "threshold": ' + threshold
        if isinstance(head, str):  # the same head on every launch: each distinct item written once
            item: Arr = (head + ', "value": ' + texts + "}")[inverse]
        else:
            item = head + ', "value": ' + texts[inverse] + "}"
        before = acc[at]
        acc[at] = np.where(before == "", item, before + ", " + item)
    return pd.Series("[" + acc + "]", dtype=object)


def _not_checked(notes: list[tuple[str, Arr]], n: int) -> pd.Series:
    """Per launch, "; "-joined notes ("<rule>: <metric> not collected (<option>)") whose mask is True there;
    <NA> where none. The text is built once per distinct combination of notes, not per launch."""
    if not notes or n == 0:
        return pd.Series(pd.array([None] * n, dtype="string"))
    masks = np.vstack([m for _, m in notes]).T  # launch x note
    # each launch's combination of notes as one number (bits packed into 64-bit words), factorized
    packed = np.packbits(masks, axis=1)
    words = np.zeros((n, -(-packed.shape[1] // 8) * 8), dtype=np.uint8)
    words[:, : packed.shape[1]] = packed
    key = words.view(np.uint64)
    if key.shape[1] == 1:
        inverse = pd.factorize(key[:, 0])[0]
    else:
        inverse = np.unique(key, axis=0, return_inverse=True)[1].reshape(-1)
    first = np.unique(inverse, return_index=True)[1]
    texts: list[str | None] = []
    for row in masks[first]:  # once per distinct combination
        grouped: dict[str, list[str]] = {}
        for (text, _), on in zip(notes, row, strict=True):
            if on:
                rule_id, note = text.split(": ", 1)
                grouped.setdefault(rule_id, []).append(note)
        texts.append("; ".join(f"{r}: {', '.join(ns)}" for r, ns in grouped.items()) or None)
    return pd.Series(taken(texts, inverse))


def _column(x: Any, n: int) -> Arr:
    """Per-row texts (an array or a Series) as an object array, or a constant repeated ``n`` times."""
    if isinstance(x, np.ndarray):
        out: Arr = x.astype(object)
        return out
    if isinstance(x, pd.Series):
        out = x.to_numpy(dtype=object)
        return out
    return np.full(n, x, dtype=object)


def less_work_bound(scores: dict[str, Arr], relieves: Sequence[str], n: int) -> Arr:
    """Per launch, the most of its time a fix that removes work from the limiters ``relieves`` can save: 1 - the
    busiest score among the limiters it does not relieve (each limiter's fraction of its peak, the verdicts'
    ``score_<limiter>``): without that work the launch still takes the busiest other unit's time. NaN where none
    of those is measured; unmeasured ones are left out, as the verdict leaves them out (it then says partial)."""
    others = [scores[k] for k in LIMITERS if k not in relieves and k in scores]
    if not others:
        return np.full(n, np.nan)
    stacked = np.vstack(others)
    have = ~np.isnan(stacked).all(axis=0)
    busiest = np.full(n, np.nan)
    busiest[have] = np.nanmax(stacked[:, have], axis=0)
    out: Arr = np.clip(1.0 - busiest, 0.0, 1.0)
    return out


def _note(notes: list[tuple[str, Arr]], f: Frame, hint_id: str, need: Need, missing: Arr) -> Arr:
    """Add the "not checked" note of ``need`` on the launches ``missing`` to ``notes``; returns ``missing``. On a
    details page, which leaves out what the sections' tables hold, the note says the raw page may have it."""
    paged = missing & f.details_page if f.details_page is not None and need.option.startswith("--") else None
    rest = missing
    if paged is not None and paged.any():
        rest = missing & ~paged
        notes.append((f"{hint_id}: {need.metric} not on this details page (the report's raw page may have it, "
                      f"else {need.option})", paged))  # fmt: skip
    if rest.any():
        notes.append((f"{hint_id}: {need.metric} not collected ({need.option})", rest))
    return missing


def _capped(est: Arr, cap: Arr) -> Arr:
    """The estimate ``est`` at most ``cap`` (a headroom, a less-work bound); NaN where either is unknown."""
    out: Arr = np.where(np.isnan(est) | np.isnan(cap), np.nan, np.fmin(est, cap))
    return out


def _less_work(est: Arr, bounded: Arr, bound: Arr) -> Arr:
    """``estimated_speedup_less_work``: the estimate ``est`` (clipped to 0..1) under the less-work ``bound``,
    never below the headroom-capped estimate ``bounded``; NaN where either is unknown."""
    less = _capped(np.clip(est, 0.0, 1.0), bound)
    out: Arr = np.where(np.isnan(less) | np.isnan(bounded), np.nan, np.fmax(less, bounded))
    return out


def evaluate(f: Frame) -> tuple[pd.DataFrame, pd.Series]:
    """Every registered rule over every launch: (HINT_COLUMNS, one row per launch and rule that fires, in
    launch order; ``not_checked`` per launch, positional: "; "-joined "<rule>: <metric> not collected
    (<option>)", <NA> where every rule had its evidence). Estimates are capped at the launch's headroom; a rule
    that removes work (``relieves``) also gets ``estimated_speedup_less_work``, bounded by ``less_work_bound``."""
    headroom = np.clip(f.number("headroom"), 0.0, 1.0)
    scores = {k: f.number(f"score_{k}") for k in LIMITERS}
    nothing = np.full(f.n, np.nan)
    parts: dict[str, list[Arr]] = {c: [] for c in [*HINT_COLUMNS, "_pos"]}
    notes: list[tuple[str, Arr]] = []
    keys = {k: f.keys[k].to_numpy() for k in LAUNCH_KEY}
    for hint_id, r in RULES.items():
        with np.errstate(invalid="ignore", divide="ignore"):
            found = r.fn(f)
        applies = np.ones(f.n, dtype=bool) if found.applies is None else np.asarray(found.applies, dtype=bool)
        fired = np.asarray(found.fires, dtype=bool)
        noted = np.zeros(f.n, dtype=bool)
        for need in r.needs:
            noted |= _note(notes, f, hint_id, need, applies & ~need.present(f))
        for need, where in found.undecided:
            noted |= _note(notes, f, hint_id, need, np.asarray(where, dtype=bool) & applies & ~fired & ~noted)
        idx = np.flatnonzero(fired)
        if not len(idx):
            continue
        t = Text(idx)
        est = np.full(f.n, np.nan) if found.estimate is None else np.asarray(found.estimate, dtype=np.float64)
        bounded = _capped(np.clip(est, 0.0, 1.0), headroom)
        less = _less_work(est, bounded, less_work_bound(scores, r.relieves, f.n)) if r.relieves else nothing
        sev, message, advice = found.severity, found.message(t), found.advice(t)

        for k in LAUNCH_KEY:
            parts[k].append(keys[k][idx])
        parts["hint"].append(_column(hint_id, len(idx)))
        severity = np.asarray(sev, dtype=object)[idx] if isinstance(sev, np.ndarray) else _column(sev, len(idx))
        parts["severity"].append(severity)
        parts["source"].append(_column("ncu-roofline", len(idx)))
        parts["message"].append(_column(message, len(idx)))
        parts["advice"].append(_column(advice, len(idx)))
        parts["evidence"].append(_evidence_json(found.evidence, idx).to_numpy(dtype=object))
        parts["estimated_speedup"].append(bounded[idx])
        parts["estimated_speedup_less_work"].append(less[idx])
        parts["_pos"].append(idx)
    if parts["_pos"]:
        order = np.argsort(np.concatenate(parts["_pos"]), kind="stable")
        data = {c: np.concatenate(parts[c])[order] for c in HINT_COLUMNS}
    else:
        data = {c: np.array([], dtype=object) for c in HINT_COLUMNS}
    return typed_frame(data, HINT_COLUMNS), _not_checked(notes, f.n)


# ------------------------------------------------------------------------------------------------ building


def tensor_time_share(
    roof: pd.DataFrame, peaks: pd.DataFrame, index: pd.MultiIndex, *, positions: Arr | None = None
) -> Arr:
    """Per launch (``index`` order): time at the TF32 tensor roof, capped by the launch's own memory roofs,
    over its time now (achieved FP32 FLOP/s / attainable at the TF32 peak). NaN without FP32 roofline rows or
    a TF32 peak. Takes ROOFLINE_COLUMNS and the peaks frame (``tensor_tf32_flops``, same order as index);
    ``positions``: each roofline row's launch position in ``index``, when the caller has them."""
    n = len(index)
    if not len(roof) or "tensor_tf32_flops" not in peaks.columns:
        return np.full(n, np.nan)
    fp32 = (roof["precision"] == "fp32").fillna(False).to_numpy()
    # only the columns read below are filtered (the roofline frame's text columns are not copied)
    r = roof[[*LAUNCH_KEY, "intensity", "peak_bytes_per_s", "achieved_flops"]][fp32]
    if not len(r):
        return np.full(n, np.nan)
    x, bw = r["intensity"].to_numpy(dtype=float), r["peak_bytes_per_s"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        memory = np.where(np.isfinite(x) & np.isfinite(bw), x * bw, np.nan)
    # per launch (by position; rows with a missing key are left out, as a groupby leaves them): the first
    # known achieved FLOP/s, and the least known memory roof
    pos = launch_positions(r, index) if positions is None else positions[fp32]
    pos[r[list(LAUNCH_KEY)].isna().any(axis=1).to_numpy()] = -1
    flops = r["achieved_flops"].to_numpy(dtype=float)
    rows = np.flatnonzero((pos >= 0) & ~np.isnan(flops))
    at, first = np.unique(pos[rows], return_index=True)
    achieved = np.full(n, np.nan)
    achieved[at] = flops[rows[first]]
    rows = np.flatnonzero((pos >= 0) & ~np.isnan(memory))
    least = np.full(n, np.inf)
    np.minimum.at(least, pos[rows], memory[rows])
    have = np.zeros(n, dtype=bool)
    have[pos[rows]] = True
    least[~have] = np.nan
    tf32 = pd.to_numeric(peaks["tensor_tf32_flops"], errors="coerce").to_numpy(dtype=float)
    attainable = np.where(np.isnan(tf32), np.nan, np.fmin(tf32, least))  # no TF32 peak, no roof to be at
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where((attainable > 0) & (achieved > 0), achieved / attainable, np.nan)
    out: Arr = np.clip(share, 0.0, 1.0)
    return out


def ncu_frame(rules: pd.DataFrame | RuleRows | None, index: pd.MultiIndex) -> pd.DataFrame:
    """ncu's HighPipeUtilization and SOLFPRoofline figures per launch, positional in ``index`` order
    (``ncu_roofline.classify.ncu_figures``)."""
    return ncu_figures(rules, index)


def build_frame(
    launches: pd.DataFrame,
    quant: pd.DataFrame,
    table: pd.DataFrame,
    verdicts: pd.DataFrame,
    roof: pd.DataFrame,
    peaks: pd.DataFrame,
    rules: pd.DataFrame | RuleRows | None,
    index: pd.MultiIndex,
    *,
    ncu: pd.DataFrame | None = None,
    roof_positions: Arr | None = None,
    gpu: tuple[Arr, Arr] | None = None,
    sm_counts: Arr | None = None,
    details_page: Arr | None = None,
    sources: Mapping[str, Arr] | None = None,
) -> Frame:
    """The rules' :class:`Frame`: every input in ``index`` (launch) order. Takes the launches, quantities,
    unit table, verdicts, roofline and peaks frames and ncu's rule rows (``ncu``: their ``ncu_frame`` when
    the caller has it already; ``roof_positions``: each roofline row's launch position in ``index``; ``gpu``:
    each launch's compute capability and whether its GPU has tensor cores, ``device.gpu_traits``; default
    theirs of the launches' CC column alone; ``sm_counts``: each launch's SM count as ``device.sm_counts`` finds
    it, the report's or the one its waves imply, before the table's or ``--peak``'s; ``sources``: SOURCED's
    ``quantities.sources``, for the evidence's metric names)."""
    keys = index.to_frame(index=False)
    name = launches["kernel_name"].astype("string").fillna("").to_numpy(dtype=object)
    codes = pd.MultiIndex.from_arrays([launches["report"].to_numpy(dtype=object), name]).factorize()[0]
    cc, tensor_cores = gpu_traits(launches["cc"]) if gpu is None else gpu
    q = quant.reset_index(drop=True)
    own = q["sm_count"].to_numpy(dtype=float) if "sm_count" in q.columns else np.full(len(q), np.nan)
    if sm_counts is not None and (np.isnan(own) & ~np.isnan(sm_counts)).any():  # the waves' SM count
        own = np.where(np.isnan(own), sm_counts, own)
        q = q.assign(sm_count=own)
    if "sm_count" in peaks.columns:  # the SM count the report lacks, from the table (--device) or --peak
        given = pd.to_numeric(peaks["sm_count"], errors="coerce").to_numpy(dtype=float)
        if (np.isnan(own) & ~np.isnan(given)).any():
            q = q.assign(sm_count=np.where(np.isnan(own), given, own))
    return Frame(
        keys=keys,
        q=q,
        units=table.reset_index(drop=True),
        verdicts=verdicts.reset_index(drop=True),
        kernel_name=name,
        kernel_codes=codes,
        repeats=np.bincount(codes)[codes] if len(codes) else np.zeros(0, dtype=np.int64),
        ncu=ncu_frame(rules, index) if ncu is None else ncu,
        tensor_time=tensor_time_share(roof, peaks, index, positions=roof_positions),
        cc=cc,
        tensor_cores=tensor_cores,
        details_page=details_page,
        sources={} if sources is None else sources,
    )


#: ncu's rule types that become hints, and their severity.
SEVERITY_OF_TYPE = {"ERR": "high", "WRN": "medium", "OPT": "low"}


def _hint_kinds(r: RuleRows) -> tuple[Arr, Arr, pa.Array]:
    """The rows of ``r`` that are hints (their type in SEVERITY_OF_TYPE), every row's type code, the types."""
    if not len(r):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), pa.array([], type=pa.large_string())
    kinds, kind_names = text_codes(r.frame["type"])
    wanted = [i for i, k in enumerate(kind_names.to_pylist()) if k in SEVERITY_OF_TYPE]
    return np.flatnonzero(np.isin(kinds, wanted)), kinds, kind_names


def ncu_hint_rows(rules: pd.DataFrame | RuleRows) -> Arr:
    """The rule rows ``ncu_rule_hints`` makes hints of, in its order (row numbers of the rules)."""
    return _hint_kinds(rule_rows(rules))[0]


#: ncu's rules whose fix removes work rather than moving the launch toward its roof, and the limiters whose work
#: it removes (as a rule's ``relieves``): replayed shared wavefronts, excess sectors of uncoalesced or scattered
#: accesses, non-fused FP32 instructions fused in pairs, FP64 work done in FP32 (SOLFPRoofline's advice on an
#: FP64-bound launch: its estimate, 49 % for micro_full's fp64_fma on an H200, is not a share of its headroom).
NCU_RULE_RELIEVES: dict[str, tuple[str, ...]] = {
    "ncu:SharedMemoryConflicts": ("l1",),
    "ncu:UncoalescedSharedAccess": ("l1",),
    "ncu:UncoalescedGlobalAccess": ("l1", "l2", "hbm"),
    "ncu:MemoryCacheAccessPattern": ("l1", "l2", "hbm"),
    "ncu:FPInstructions": ("compute",),
    "ncu:SOLFPRoofline": ("compute",),
}


def ncu_rule_hints(rules: pd.DataFrame | RuleRows) -> pd.DataFrame:
    """ncu's own rule results (optimisation and warning messages) as hints marked source='ncu'.

    The hint id is "ncu:<rule>"; severity ERR -> high, WRN -> medium, OPT -> low; estimated_speedup is ncu's
    own estimate (percent / 100) where it is of the whole workload, NaN where its type is "local" (the speedup of
    the part the rule is about, not a share of the launch's time); estimated_speedup_less_work the same for the
    rules of NCU_RULE_RELIEVES, else NaN (``cap_ncu_estimates`` bounds both). ncu's figure is kept in the
    evidence, as "ncu estimate" or "ncu estimate (local)". Takes ``Report.rules`` (or their ``ncurules.rule_rows``: the
    messages are then copied once, from their distinct texts, and nothing else of the rule rows is turned into
    text)."""
    r = rule_rows(rules)
    rows, kinds, kind_names = _hint_kinds(r)
    levels = [SEVERITY_OF_TYPE.get(k) for k in kind_names.to_pylist()]
    keys = r.frame[[*LAUNCH_KEY, "speedup"]].take(rows)
    hint = pa.array(["ncu:" + str(name) for name in r.rule_names], type=pa.large_string())
    rule = r.rule[rows]
    n = len(rows)
    speedup = keys["speedup"].to_numpy(dtype=np.float64) / 100.0
    relieving = np.array([f"ncu:{name}" in NCU_RULE_RELIEVES for name in r.rule_names] + [False], dtype=bool)
    local = (r.frame["speedup_type"].take(rows) == "local").fillna(False).to_numpy(dtype=bool)
    launch_share = np.where(local, np.nan, speedup)
    less = np.where(relieving[rule], launch_share, np.nan)
    frame = pd.DataFrame(
        {
            "report": keys["report"].array,
            "process_id": keys["process_id"].array,
            "launch_id": keys["launch_id"].array,
            "hint": taken(hint, rule),
            "severity": taken(levels, kinds[rows]),
            "source": taken(["ncu"], np.zeros(n, dtype=np.int64)),
            "message": pd.array(r.messages(rows), dtype="string"),
            "advice": pd.array(pa.nulls(n, pa.large_string()), dtype="string"),
            "evidence": _ncu_estimate_evidence(speedup, local),
            "estimated_speedup": launch_share,
            "estimated_speedup_less_work": less,
        }
    )
    result: pd.DataFrame = frame.astype(HINT_COLUMNS)
    return result


def _ncu_estimate_evidence(speedup: Arr, local: Arr) -> pd.Series:
    """Per rule row, its evidence: ncu's estimate as ``[{"metric": "ncu estimate", ...}]`` ("ncu estimate
    (local)" where it is of a part of the workload), ``[]`` where ncu gave none; each distinct text written once."""
    bits, inverse = np.unique(np.ascontiguousarray(speedup, dtype=np.float64).view(np.int64), return_inverse=True)
    # each distinct (estimate, local) pair as one integer: 1-D uniques, not a row-wise unique of a 2-D array
    pairs, first = np.unique(np.asarray(inverse).reshape(-1) * 2 + local.astype(np.int64), return_inverse=True)
    value = bits[pairs // 2].view(np.float64)
    metric = np.where(pairs % 2 == 1, '"ncu estimate (local)"', '"ncu estimate"').astype(object)
    ev = (
        '[{"metric": '
        + metric
        + ', "op": "==", "threshold": null, "value": '
        + _json_num(value).to_numpy(dtype=object)
        + "}]"
    )
    text = np.where(np.isnan(value), "[]", ev).astype(object)
    return pd.Series(taken(text.tolist(), np.asarray(first).reshape(-1)))


def cap_ncu_estimates(hints: pd.DataFrame, verdicts: pd.DataFrame, *, positions: Arr | None = None) -> pd.DataFrame:
    """ncu's rule hints (``ncu_rule_hints``) with ``estimated_speedup`` capped at the launch's headroom, like
    ours (NaN where the launch has no verdict), and ``estimated_speedup_less_work`` (the rules of
    NCU_RULE_RELIEVES) bounded by ``less_work_bound`` (ncu's own figure is in the evidence). Takes HINT_COLUMNS
    and VERDICT_COLUMNS (LAUNCH_KEY, headroom, score_<limiter>); ``positions``: each hint's launch position in the
    verdicts, when the caller has them (``ncu_hint_rows``: the rule rows' positions)."""
    if not len(hints):
        return hints
    pos = launch_positions(hints, launch_index(verdicts)) if positions is None else positions
    at = np.where(pos >= 0, pos, 0)

    def per_hint(column: str) -> Arr:
        values = np.clip(verdicts[column].to_numpy(dtype=np.float64), 0.0, 1.0)
        out: Arr = np.where(pos >= 0, values[at], np.nan) if len(values) else np.full(len(pos), np.nan)
        return out

    head = per_hint("headroom")
    est = hints["estimated_speedup"].to_numpy(dtype=np.float64)
    out = hints.copy()
    bounded = _capped(est, head)
    out["estimated_speedup"] = bounded
    raw = hints["estimated_speedup_less_work"].to_numpy(dtype=np.float64)
    less = np.full(len(hints), np.nan)
    hint_codes, hint_names = pd.factorize(hints["hint"])
    relieving = {i: NCU_RULE_RELIEVES[str(h)] for i, h in enumerate(hint_names) if str(h) in NCU_RULE_RELIEVES}
    if relieving:
        scores = {k: per_hint(f"score_{k}") for k in LIMITERS if f"score_{k}" in verdicts.columns}
        for code, relieves in relieving.items():
            rows = hint_codes == code
            bound = less_work_bound({k: v[rows] for k, v in scores.items()}, relieves, int(rows.sum()))
            less[rows] = _less_work(raw[rows], bounded[rows], bound)
    out["estimated_speedup_less_work"] = less
    return out


def hints_markdown() -> str:
    """The hint registry as Markdown: per rule, what it finds, the evidence it needs (and the ncu option
    collecting it), how its estimate is bounded and the limiters whose work its fix removes."""
    lines = [
        "| hint | finds | needs (ncu option) | estimate bounded by | relieves |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in RULES.values():
        needs = "; ".join(f"{n.metric} ({n.option})" for n in r.needs) or "-"
        relieves = ", ".join(r.relieves) or "-"
        lines.append(f"| `{r.id}` | {r.summary} | {needs} | {r.bound} | {relieves} |")
    return "\n".join(lines) + "\n"


__all__: Sequence[str] = (
    "HINT_COLUMNS",
    "RULES",
    "SEVERITIES",
    "Ev",
    "Found",
    "Frame",
    "Need",
    "build_frame",
    "evaluate",
    "hints_markdown",
    "ncu_rule_hints",
    "rule",
)
