"""Diagnostic hints: a registry of small, pure rules over one launch's quantities.

Each rule looks at one launch (its quantities, its verdict, its unit utilisations, its roofline rows) and
returns zero or one :class:`Hint`, with the evidence that triggered it (metric, value, threshold, op), what to
do, and where a figure allows it the share of the launch's time a fix could save. Adding a hint is adding one
decorated function. A rule whose metrics the export lacks stays silent: no hint is ever made from a zero
that stands for a missing value. ncu's own rule results ride along in the hints frame, marked as ncu's.

Thresholds are named constants below, each with where it comes from.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .classify import LAUNCH_DURATION_S
from .model import LAUNCH_KEY

SEVERITIES = ("high", "medium", "low", "info")

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
    "estimated_speedup": "float64",  # fraction of this launch's time a fix could save (0..1), where known
}


@dataclass(frozen=True)
class Evidence:
    metric: str
    value: float
    threshold: float | None
    op: str  # ">", "<", ">=", "<=", "==", "in" (threshold None: context, not a test)

    def as_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "value": _clean(self.value), "threshold": _clean(self.threshold), "op": self.op}


@dataclass(frozen=True)
class Hint:
    id: str
    severity: str
    message: str
    advice: str
    evidence: tuple[Evidence, ...] = field(default_factory=tuple)
    estimated_speedup: float = math.nan


@dataclass(frozen=True)
class LaunchView:
    """What a rule sees of one launch.

    ``q``: quantities (``ncu_roofline.quantities``, base units, NaN when absent); ``verdict``: the verdict row
    (VERDICT_COLUMNS); ``launch``: the launches row (kernel_name, display_name, grid, block ...);
    ``roofline``: the launch's roofline rows; ``repeats``: launches of the same kernel in the report;
    ``units``: the unit table row (``ncu_roofline.classify.unit_table``, fractions); ``peaks``: the peaks row
    (``ncu_roofline.device.resolve_peaks``); ``ncu``: ncu's rule figures for the launch (ncu_pipe_family,
    ncu_fp32_pct ...), empty without rule rows; ``total_duration``: seconds, all launches of the kernel.
    """

    q: dict[str, float]
    verdict: dict[str, Any]
    launch: dict[str, Any]
    roofline: pd.DataFrame
    repeats: int
    units: dict[str, float] = field(default_factory=dict)
    peaks: dict[str, Any] = field(default_factory=dict)
    ncu: dict[str, Any] = field(default_factory=dict)
    total_duration: float = math.nan

    def get(self, name: str) -> float:
        """Quantity ``name`` (NaN where absent)."""
        v = self.q.get(name, math.nan)
        return math.nan if v is None else float(v)


Rule = Callable[[LaunchView], Hint | None]
RULES: dict[str, Rule] = {}


def rule(hint_id: str) -> Callable[[Rule], Rule]:
    """Register a hint rule under its id."""

    def deco(fn: Rule) -> Rule:
        RULES[hint_id] = fn
        return fn

    return deco


def _clean(v: Any) -> float | None:
    if v is None or v is pd.NA:
        return None
    f = float(v)
    return None if math.isnan(f) or math.isinf(f) else f


def _ok(*values: Any) -> bool:
    return all(v is not None and v is not pd.NA and not math.isnan(float(v)) for v in values)


def _nan0(v: float) -> float:
    return 0.0 if math.isnan(v) else v


def _regime(v: LaunchView) -> str | None:
    r = v.verdict.get("regime")
    return None if r is None or r is pd.NA else str(r)


def _limiter(v: LaunchView) -> str | None:
    r = v.verdict.get("limiter")
    return None if r is None or r is pd.NA else str(r)


def _utilization(v: LaunchView) -> float:
    u = v.verdict.get("utilization")
    return math.nan if u is None or u is pd.NA else float(u)


def _upper_bound_gain(v: LaunchView) -> float:
    """The most a latency fix can save: the time the launch would take at its busiest unit's peak vs now."""
    u = _utilization(v)
    return max(0.0, 1.0 - u) if _ok(u) else math.nan


# --------------------------------------------------------------------------------------------- thresholds

#: Spilling: any spill instruction is worth a look (the compiler spills only when it runs out of registers).
SPILL_INSTRUCTIONS = 1.0
#: ... and a high-severity finding when spills are this share of the L1 requests (ncu's
#: ``derived__local_spilling_requests_pct``) or local memory is this share of L1 sectors.
SPILL_TRAFFIC_SHARE = 0.10
#: Achieved occupancy under this % of the SM's warps hides latency poorly: with 4 schedulers per SM a
#: quarter of 64 warps leaves 4 warps per scheduler, about the fewest that cover the ~4-6 cycle dependent
#: issue latency (ncu's IssueSlotUtilization rule reasons in warps per scheduler).
LOW_OCCUPANCY_PCT = 25.0
#: Achieved under this fraction of theoretical: warps or blocks end unevenly (ncu's TailEffect/
#: AchievedOccupancy rules use 0.8 for the same comparison).
OCCUPANCY_GAP = 0.80
#: Under one wave per SM the grid leaves SMs idle (ncu's SOLBottleneck ``waves_threshold``).
SMALL_GRID_WAVES = 1.0
#: Launches of one kernel in a report from which repeated tiny launches are worth fusing or graph-capturing.
REPEATED_LAUNCHES = 2
#: Tail effect, as ncu 2025.3.1's LaunchConfiguration rule reports it: at least one full wave and a partial
#: wave that may account for >= 20 % of the run time, 1 / (full waves + 1) (so 1 to 4 full waves). ncu's
#: rule messages on the three samples are the test (tests/test_hints.py).
TAIL_MIN_EFFECT = 0.20
#: Uncoalesced global access (ncu's UncoalescedGlobalAccess rule: L2 sectors touched vs the ideal for the
#: same accesses): flag at >= 10 % excess sectors when the excess weighted by L2 busy time (ncu's own
#: speed-up estimate) is >= 5 % of the launch.
UNCOALESCED_EXCESS_SHARE = 0.10
UNCOALESCED_MIN_GAIN = 0.05
#: Without ncu's theoretical sectors: a warp-wide load of the widest per-thread access (16 bytes, float4) by
#: 32 threads touches 32 x 16 / 32 = 16 sectors when coalesced; more sectors per request is uncoalesced at
#: any access width (4-byte loads are ideal at 4, 8-byte at 8).
MAX_IDEAL_SECTORS_PER_REQUEST = 16.0
#: Shared-memory bank conflicts: replayed wavefronts >= 25 % of shared wavefronts (an average of 1.33-way
#: or worse), and worth >= 5 % of the launch when weighted by the L1 unit's utilisation.
BANK_CONFLICT_SHARE = 0.25
BANK_CONFLICT_MIN_GAIN = 0.05
#: Divergence: fewer than 24 of 32 threads active per executed warp instruction (75 % SIMT efficiency).
DIVERGENCE_THREADS = 24.0
WARP_SIZE = 32.0
#: Cache hit rate of reads in the band [10 %, 50 %) on a launch limited by the level behind the cache: some
#: data is re-read (a pure stream hits ~0 %) but most of it is evicted first. Under 10 % is a stream with
#: nothing to gain; 50 % and up the cache serves most reads.
STREAMING_HIT_PCT = 10.0
LOW_HIT_PCT = 50.0
#: FP32 work that tensor cores would serve: the FP32 roof at >= 30 % of peak, FMAs >= 80 % of the FP32
#: FLOPs (multiply-accumulate, the GEMM/convolution inner loop), operands loaded from memory (>= 1 % of
#: instructions are shared or global loads: a kernel of register-only FMAs is not a GEMM) and the tensor
#: pipe idle (< 5 %).
FP32_GEMM_MIN_FRACTION = 0.30
FMA_FLOP_SHARE = 0.80
OPERAND_LOAD_SHARE = 0.01
TENSOR_IDLE = 0.05
#: Kernel names that say "matrix multiply or convolution" (supporting evidence only).
GEMM_NAME = re.compile(r"gemm|matmul|mma|conv|dot|linear|bmm", re.IGNORECASE)
#: Atomic contention: the busiest L2 slice's atomic unit at >= 50 % while the average is 4x lower (the
#: atomics pile onto few addresses), or, without per-slice figures, atomics >= 50 % of the global memory
#: requests of a latency-bound launch.
ATOMIC_SLICE_BUSY_PCT = 50.0
ATOMIC_IMBALANCE = 4.0
ATOMIC_SHARE = 0.50
#: Compute-bound on non-FP work: the best FLOP roof under 10 % while the SM is the limiter (l1_reread: SM 76 %,
#: FP32 roof 3 %).
NON_FP_FLOP_MAX = 0.10


# --------------------------------------------------------------------------------------------- rules


@rule("register_spilling")
def register_spilling(v: LaunchView) -> Hint | None:
    spills = v.get("spill_instructions")
    requests = v.get("spill_requests")
    pct = v.get("spill_requests_pct")
    local = v.get("local_load_sectors") + v.get("local_store_sectors")
    glob = v.get("global_load_sectors") + v.get("global_store_sectors")
    ev: list[Evidence] = []
    if _ok(spills) and spills >= SPILL_INSTRUCTIONS:
        ev.append(Evidence("sass__inst_executed_register_spilling", spills, SPILL_INSTRUCTIONS, ">="))
    elif not _ok(spills) and _ok(requests) and requests >= SPILL_INSTRUCTIONS:
        ev.append(Evidence("derived__local_spilling_requests", requests, SPILL_INSTRUCTIONS, ">="))
    else:
        return None
    if _ok(pct):
        ev.append(Evidence("derived__local_spilling_requests_pct", pct, SPILL_TRAFFIC_SHARE * 100, ">="))
    share = local / (local + glob) if _ok(local, glob) and local + glob > 0 else math.nan
    if _ok(local):
        ev.append(Evidence("l1tex__t_sectors_pipe_lsu_mem_local_op_{ld,st}.sum", local, None, "=="))
    regs = v.get("registers_per_thread")
    if _ok(regs):
        ev.append(Evidence("launch__registers_per_thread", regs, None, "=="))
    heavy = (_ok(pct) and pct >= SPILL_TRAFFIC_SHARE * 100) or (_ok(share) and share >= SPILL_TRAFFIC_SHARE)
    count = spills if _ok(spills) else requests
    regs_text = f" at {regs:.0f} registers/thread" if _ok(regs) else ""
    share_text = f"; local memory is {share:.0%} of the L1 sectors" if _ok(share) else ""
    gain = share if _limiter(v) in ("hbm", "l2", "l1") and _ok(share) else math.nan
    return Hint(
        "register_spilling",
        "high" if heavy else "medium",
        f"{count:,.0f} spill instructions/requests to local memory{regs_text}{share_text}",
        "Give the kernel more registers (__launch_bounds__ with fewer threads per block, or a higher "
        "-maxrregcount / __maxnreg__), keep per-thread arrays indexed by compile-time constants (unrolled loops) "
        "so they stay in registers, or stage them in shared memory. Check with nvcc -Xptxas -v.",
        tuple(ev),
        estimated_speedup=gain,
    )


_LIMIT_NAMES = {
    "occupancy_limit_registers": "registers",
    "occupancy_limit_shared_mem": "shared memory",
    "occupancy_limit_blocks": "blocks per SM",
    "occupancy_limit_warps": "warps per SM",
    "occupancy_limit_barriers": "barriers",
}
_LIMIT_METRICS = {
    "occupancy_limit_registers": "launch__occupancy_limit_registers",
    "occupancy_limit_shared_mem": "launch__occupancy_limit_shared_mem",
    "occupancy_limit_blocks": "launch__occupancy_limit_blocks",
    "occupancy_limit_warps": "launch__occupancy_limit_warps",
    "occupancy_limit_barriers": "launch__occupancy_limit_barriers",
}
_LIMIT_ADVICE = {
    "registers": "fewer registers per thread (__launch_bounds__, -maxrregcount) or smaller blocks",
    "shared memory": "less shared memory per block (smaller tiles, or reuse one buffer) or a larger carve-out "
    "(cudaFuncAttributePreferredSharedMemoryCarveout)",
    "blocks per SM": "larger blocks (the SM holds at most 32 blocks; tiny blocks cap the warps)",
    "warps per SM": "the block size: the SM's warp slots are full (this is the hardware maximum)",
    "barriers": "fewer named barriers per block",
}


def occupancy_limiters(v: LaunchView) -> list[str]:
    """The occupancy limiters with the fewest blocks per SM (ncu's Occupancy section "Block Limit" rows)."""
    limits = {k: v.get(k) for k in _LIMIT_NAMES if _ok(v.get(k))}
    if not limits:
        return []
    low = min(limits.values())
    return [k for k, x in limits.items() if x == low]


@rule("low_occupancy")
def low_occupancy(v: LaunchView) -> Hint | None:
    achieved = v.get("achieved_occupancy_pct")
    theoretical = v.get("theoretical_occupancy_pct")
    waves = v.get("waves_per_sm")
    if not _ok(achieved) or achieved >= LOW_OCCUPANCY_PCT or _regime(v) != "latency":
        return None
    if _ok(waves) and waves < SMALL_GRID_WAVES:
        return None  # the grid, not the occupancy limits, keeps the SMs empty: small_grid says so
    ev = [Evidence("sm__warps_active.avg.pct_of_peak_sustained_active", achieved, LOW_OCCUPANCY_PCT, "<")]
    limiters = occupancy_limiters(v)
    if _ok(theoretical):
        ev.append(Evidence("sm__maximum_warps_per_active_cycle_pct", theoretical, None, "=="))
    for k in limiters:
        ev.append(Evidence(_LIMIT_METRICS[k], v.get(k), None, "=="))
    names = [_LIMIT_NAMES[k] for k in limiters]
    if _ok(theoretical) and achieved < OCCUPANCY_GAP * theoretical:
        cause = (
            f"achieved {achieved:.1f} % of a theoretical {theoretical:.1f} %: warps end unevenly "
            "(load imbalance across warps or blocks, a tail, or long-running blocks)"
        )
        advice = "Balance the work per block and per warp, and launch enough blocks to keep every SM busy."
    else:
        theo = f"theoretical {theoretical:.1f} %" if _ok(theoretical) else "theoretical occupancy unknown"
        limit = f", limited by {' and '.join(names)}" if names else ""
        cause = f"achieved {achieved:.1f} % ({theo}{limit})"
        advice = (
            "Raise the occupancy limit: " + "; ".join(_LIMIT_ADVICE[n] for n in names) + "."
            if names
            else ("Raise the theoretical occupancy (registers, shared memory and block size set it).")
        )
        advice += " Or give each warp more independent work (ILP) so fewer warps hide the latency."
    return Hint(
        "low_occupancy",
        "high",
        f"Low occupancy on a latency-bound launch: {cause}",
        advice,
        tuple(ev),
        estimated_speedup=_upper_bound_gain(v),
    )


@rule("launch_overhead")
def launch_overhead(v: LaunchView) -> Hint | None:
    if _regime(v) != "launch":
        return None
    duration = v.get("duration")
    ev = [Evidence("gpu__time_duration.sum", duration, LAUNCH_DURATION_S, "<")]
    ev.append(Evidence("launches of this kernel", float(v.repeats), float(REPEATED_LAUNCHES), ">="))
    repeated = v.repeats >= REPEATED_LAUNCHES
    total = f", {v.total_duration * 1e6:.1f} us in all" if _ok(v.total_duration) else ""
    if repeated:
        message = (
            f"Launch-bound: {duration * 1e6:.1f} us per launch, {v.repeats} launches of this kernel{total}; "
            "launch overhead costs as much as the work"
        )
        advice = (
            "Fuse the repeated launches into one kernel (loop inside the kernel, or batch the inputs), or capture "
            "the sequence in a CUDA graph (cudaStreamBeginCapture / torch.cuda.graphs) to pay the launch cost once."
        )
    else:
        message = f"Launch-bound: {duration * 1e6:.1f} us, too short for any roof to matter"
        advice = "Fuse this kernel with its neighbours, or capture the sequence it belongs to in a CUDA graph."
    return Hint("launch_overhead", "high" if repeated else "medium", message, advice, tuple(ev))


@rule("small_grid")
def small_grid(v: LaunchView) -> Hint | None:
    waves = v.get("waves_per_sm")
    grid = v.get("grid_size")
    sms = v.get("sm_count")
    if _regime(v) == "bound":
        return None
    under_wave = _ok(waves) and waves < SMALL_GRID_WAVES
    few_blocks = _ok(grid, sms) and grid < sms
    if not (under_wave or few_blocks):
        return None
    ev = []
    if _ok(waves):
        ev.append(Evidence("launch__waves_per_multiprocessor", waves, SMALL_GRID_WAVES, "<"))
    if _ok(grid, sms):
        ev.append(Evidence("launch__grid_size", grid, sms, "<" if few_blocks else ">="))
    what = f"{grid:.0f} block{'s' if grid != 1 else ''} for {sms:.0f} SMs" if _ok(grid, sms) else "the grid"
    wave_text = f" ({waves:.2f} waves)" if _ok(waves) else ""
    return Hint(
        "small_grid",
        "high" if few_blocks else "medium",
        f"Grid too small to fill the GPU: {what}{wave_text}; SMs sit idle",
        "Launch more blocks (smaller blocks, or split the work further: split-K, more tiles), or run independent "
        "kernels concurrently on separate streams so they share the GPU.",
        tuple(ev),
    )


@rule("tail_effect")
def tail_effect(v: LaunchView) -> Hint | None:
    waves = v.get("waves_per_sm")
    achieved = v.get("achieved_occupancy_pct")
    theoretical = v.get("theoretical_occupancy_pct")
    if not _ok(waves):
        return None
    whole = math.floor(waves)
    partial = waves - whole
    if whole < 1 or partial <= 1e-9:
        return None
    effect = 1.0 / (whole + 1.0)
    if effect < TAIL_MIN_EFFECT:
        return None
    occupancy = (
        f" (achieved occupancy {achieved:.1f} % of a theoretical {theoretical:.1f} %)"
        if _ok(achieved, theoretical)
        else ""
    )
    return Hint(
        "tail_effect",
        "medium",
        f"Tail effect: {waves:.2f} waves per SM, the last one partial ({partial:.0%} full); assuming blocks of "
        f"equal duration it may take up to {effect:.0%} of the run time{occupancy}",
        "Size the grid to a whole number of waves (blocks = SMs x blocks per SM x n), or use a persistent-kernel "
        "loop over the work; more, smaller blocks also shrink the tail.",
        (
            Evidence("launch__waves_per_multiprocessor", waves, None, "=="),
            Evidence("1 / (full waves + 1)", effect, TAIL_MIN_EFFECT, ">="),
        ),
        estimated_speedup=effect,
    )


@rule("uncoalesced_global_access")
def uncoalesced_global_access(v: LaunchView) -> Hint | None:
    total = v.get("l2_theoretical_sectors_global")
    ideal = v.get("l2_theoretical_sectors_global_ideal")
    advice = (
        "Make consecutive threads access consecutive addresses: structure-of-arrays instead of array-of-"
        "structures, transpose through shared memory, or give each thread a contiguous vector (float4) instead "
        "of a strided element."
    )
    if _ok(total, ideal) and total > 0:
        share = max(0.0, (total - ideal) / total)
        active, elapsed = v.get("l2_cycles_active"), v.get("l2_cycles_elapsed")
        busy = active / elapsed if _ok(active, elapsed) and elapsed > 0 else 1.0
        gain = busy * share
        if share < UNCOALESCED_EXCESS_SHARE or gain < UNCOALESCED_MIN_GAIN:
            return None
        return Hint(
            "uncoalesced_global_access",
            "high" if share >= 0.5 else "medium",
            f"Uncoalesced global access: {total - ideal:,.0f} excess L2 sectors, {share:.0%} of the "
            f"{total:,.0f} the accesses touch (ideal {ideal:,.0f})",
            advice,
            (
                Evidence(
                    "memory_l2_theoretical_sectors_global_excessive / _global", share, UNCOALESCED_EXCESS_SHARE, ">="
                ),
                Evidence("excess share x L2 busy (ncu's estimate)", gain, UNCOALESCED_MIN_GAIN, ">="),
            ),
            estimated_speedup=gain,
        )
    worst: tuple[str, float, float] | None = None
    for op in ("load", "store"):
        sectors, requests = v.get(f"global_{op}_sectors"), v.get(f"global_{op}_requests")
        if _ok(sectors, requests) and requests > 0:
            per = sectors / requests
            if per > MAX_IDEAL_SECTORS_PER_REQUEST and (worst is None or per > worst[1]):
                worst = (op, per, sectors)
    if worst is None:
        return None
    op, per, _ = worst
    share = 1.0 - MAX_IDEAL_SECTORS_PER_REQUEST / per  # at least this much is excess, at any access width
    gain = share if _limiter(v) in ("hbm", "l2", "l1") else math.nan
    return Hint(
        "uncoalesced_global_access",
        "high" if share >= 0.5 else "medium",
        f"Uncoalesced global {op}s: {per:.1f} sectors per request (a coalesced warp access touches at most "
        f"{MAX_IDEAL_SECTORS_PER_REQUEST:.0f}, for 16-byte accesses; 4 for 4-byte ones)",
        advice,
        (
            Evidence(
                f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op[:2]}.sum / requests",
                per,
                MAX_IDEAL_SECTORS_PER_REQUEST,
                ">",
            ),
        ),
        estimated_speedup=gain,
    )


@rule("shared_bank_conflicts")
def shared_bank_conflicts(v: LaunchView) -> Hint | None:
    conflicts = v.get("shared_bank_conflicts")
    wavefronts = v.get("shared_wavefronts")
    if not _ok(conflicts):
        conflicts = _nan0(v.get("shared_load_bank_conflicts")) + _nan0(v.get("shared_store_bank_conflicts"))
        wavefronts = _nan0(v.get("shared_load_wavefronts")) + _nan0(v.get("shared_store_wavefronts"))
        if not _ok(v.get("shared_load_bank_conflicts")):
            return None
    if not _ok(conflicts, wavefronts) or wavefronts <= 0 or conflicts <= 0:
        return None
    share = conflicts / wavefronts
    l1 = v.verdict.get("score_l1")
    l1u = float(l1) if l1 is not None and l1 is not pd.NA and not math.isnan(float(l1)) else 1.0
    gain = share * l1u
    if share < BANK_CONFLICT_SHARE or gain < BANK_CONFLICT_MIN_GAIN:
        return None
    ways = wavefronts / max(wavefronts - conflicts, 1.0)
    return Hint(
        "shared_bank_conflicts",
        "high" if _limiter(v) == "l1" else "medium",
        f"Shared-memory bank conflicts: {conflicts:,.0f} of {wavefronts:,.0f} shared wavefronts are replays "
        f"({share:.0%}, about {ways:.0f}-way)",
        "Make the threads of a warp hit different banks: pad shared arrays (e.g. [32][33] instead of [32][32]), "
        "swizzle the index (XOR), or change which thread reads which element.",
        (
            Evidence("l1tex__data_bank_conflicts_pipe_lsu_mem_shared / wavefronts", share, BANK_CONFLICT_SHARE, ">="),
            Evidence("conflict share x L1 utilisation", gain, BANK_CONFLICT_MIN_GAIN, ">="),
        ),
        estimated_speedup=gain,
    )


@rule("thread_divergence")
def thread_divergence(v: LaunchView) -> Hint | None:
    threads = v.get("threads_per_instruction")
    if not _ok(threads) or threads >= DIVERGENCE_THREADS or _regime(v) == "launch":
        return None
    block = v.get("block_size")
    partial = _ok(block) and block % WARP_SIZE != 0
    note = f" (block size {block:.0f} is not a multiple of 32: part of it is idle lanes)" if partial else ""
    return Hint(
        "thread_divergence",
        "medium",
        f"Thread divergence: {threads:.1f} of 32 threads active per executed warp instruction{note}",
        "Keep the threads of a warp on the same path: sort or bin the work so that warps take uniform branches, "
        "replace data-dependent branches by arithmetic (select, predication), and make the block size a "
        "multiple of 32.",
        (Evidence("smsp__thread_inst_executed_per_inst_executed.ratio", threads, DIVERGENCE_THREADS, "<"),),
        estimated_speedup=1.0 - threads / WARP_SIZE if _limiter(v) == "compute" else math.nan,
    )


@rule("low_cache_hit_rate")
def low_cache_hit_rate(v: LaunchView) -> Hint | None:
    lim = _limiter(v)
    if _regime(v) == "launch":
        return None
    if lim == "hbm":
        hit, metric, cache, behind = v.get("l2_read_hit_rate_pct"), "lts__t_sector_op_read_hit_rate.pct", "L2", "DRAM"
    elif lim == "l2":
        hit = v.get("l1_global_load_hit_rate_pct")
        metric, cache, behind = "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", "L1", "L2"
    else:
        return None
    if not _ok(hit) or not STREAMING_HIT_PCT <= hit < LOW_HIT_PCT:
        return None
    return Hint(
        "low_cache_hit_rate",
        "low",
        f"{cache} hit rate of reads {hit:.1f} % on a {behind}-limited launch: some data is re-read, most of it "
        f"after it was evicted, so {behind} serves it again",
        f"Improve temporal locality so re-read data stays in {cache}: tile or block the loops, rasterize/swizzle "
        "the block order (neighbouring blocks share inputs), or shrink the working set; for L2, cache-persistence "
        "hints (cudaAccessPolicyWindow) can pin a hot buffer.",
        (Evidence(metric, hit, LOW_HIT_PCT, "<"), Evidence(metric, hit, STREAMING_HIT_PCT, ">=")),
    )


@rule("fp32_instead_of_tensor")
def fp32_instead_of_tensor(v: LaunchView) -> Hint | None:
    name = str(v.launch.get("kernel_name") or "")
    named = bool(GEMM_NAME.search(name))
    fp32 = v.units.get("fp32", math.nan)
    tensor = v.units.get("pipe_tensor", math.nan)
    ffma, fadd, fmul = v.get("ffma_per_cycle"), v.get("fadd_per_cycle"), v.get("fmul_per_cycle")
    if _ok(fp32, ffma, fadd, fmul):
        flops = 2 * ffma + fadd + fmul
        fma_share = 2 * ffma / flops if flops > 0 else 0.0
        loads = max(
            _nan0(v.get("shared_load_instructions")),
            _nan0(v.get("global_load_instructions")),
            _nan0(v.get("global_load_requests")),
        )
        instructions = v.get("instructions")
        load_share = loads / instructions if _ok(instructions) and instructions > 0 else math.nan
        if (
            fp32 < FP32_GEMM_MIN_FRACTION
            or fma_share < FMA_FLOP_SHARE
            or not _ok(load_share)
            or load_share < OPERAND_LOAD_SHARE
            or (_ok(tensor) and tensor >= TENSOR_IDLE)
        ):
            return None
        ev = [
            Evidence("FP32 FLOP/s of the FP32 roof", fp32, FP32_GEMM_MIN_FRACTION, ">="),
            Evidence("FFMA share of FP32 FLOPs", fma_share, FMA_FLOP_SHARE, ">="),
            Evidence("shared/global load instructions per instruction", load_share, OPERAND_LOAD_SHARE, ">="),
        ]
        if _ok(tensor):
            ev.append(Evidence("sm__pipe_tensor_cycles_active (fraction)", tensor, TENSOR_IDLE, "<"))
    elif v.verdict.get("compute_pipe") == "fp32" and named and _ok(v.ncu.get("ncu_fp32_pct", math.nan)):
        fp32 = float(v.ncu["ncu_fp32_pct"]) / 100.0
        if fp32 < FP32_GEMM_MIN_FRACTION:
            return None
        ev = [Evidence("ncu SOLFPRoofline: % of FP32 peak", fp32 * 100, FP32_GEMM_MIN_FRACTION * 100, ">=")]
    else:
        return None
    if named:
        ev.append(Evidence("kernel name looks like a matrix multiply / convolution", 1.0, None, "=="))
    gain = _tensor_gain(v)
    return Hint(
        "fp32_instead_of_tensor",
        "high",
        f"FP32 FMA work at {fp32:.0%} of the FP32 peak with the tensor cores idle: a matrix multiply or "
        "convolution in plain FP32",
        "Let tensor cores do it: allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True, "
        "torch.set_float32_matmul_precision('high'), cuBLAS CUBLAS_COMPUTE_32F_FAST_TF32), or run in BF16/FP16 "
        "with FP32 accumulation (autocast).",
        tuple(ev),
        estimated_speedup=gain,
    )


def _tensor_gain(v: LaunchView) -> float:
    """1 - time at the TF32 tensor roof (capped by the launch's own memory roofs) / time now."""
    peak = v.peaks.get("tensor_tf32_flops")
    r = v.roofline
    if peak is None or not len(r) or not _ok(float(peak)):
        return math.nan
    rows = r[(r["precision"] == "fp32").fillna(False).to_numpy()]
    if not len(rows):
        return math.nan
    achieved = float(rows["achieved_flops"].iloc[0])
    attainable = float(peak)
    for i, bw in zip(
        rows["intensity"].to_numpy(dtype=float), rows["peak_bytes_per_s"].to_numpy(dtype=float), strict=True
    ):
        if _ok(i, bw) and math.isfinite(i):
            attainable = min(attainable, float(i * bw))
    if not _ok(achieved) or attainable <= 0 or achieved <= 0:
        return math.nan
    return max(0.0, 1.0 - achieved / attainable)


@rule("atomic_contention")
def atomic_contention(v: LaunchView) -> Hint | None:
    atom, red = v.get("global_atomic_requests"), v.get("global_reduction_requests")
    if not _ok(atom) and not _ok(red):
        return None
    atomics = _nan0(atom) + _nan0(red)
    if atomics <= 0:
        return None
    other = _nan0(v.get("global_load_requests")) + _nan0(v.get("global_store_requests"))
    share = atomics / (atomics + other)
    slice_max, slice_avg = v.get("l2_atomic_input_max_pct"), v.get("l2_atomic_input_pct")
    ev = [Evidence("l1tex__t_requests_pipe_lsu_mem_global_op_{atom,red}.sum", atomics, 0.0, ">")]
    if _ok(slice_max, slice_avg):
        hot = slice_max >= ATOMIC_SLICE_BUSY_PCT and slice_max >= ATOMIC_IMBALANCE * slice_avg
        if not hot:
            return None
        ev.append(
            Evidence(
                "lts__d_atomic_input_cycles_active.max (busiest L2 slice, %)", slice_max, ATOMIC_SLICE_BUSY_PCT, ">="
            )
        )
        ev.append(
            Evidence("busiest / average L2 slice atomic unit", slice_max / max(slice_avg, 1e-9), ATOMIC_IMBALANCE, ">=")
        )
        detail = f"the busiest L2 slice's atomic unit is {slice_max:.0f} % busy, the average {slice_avg:.1f} %"
    else:
        if share < ATOMIC_SHARE or _regime(v) != "latency":
            return None
        ev.append(Evidence("atomic share of global requests", share, ATOMIC_SHARE, ">="))
        detail = f"atomics are {share:.0%} of the global memory requests of a latency-bound launch"
    return Hint(
        "atomic_contention",
        "high",
        f"Atomic contention: {atomics:,.0f} global atomic requests on few addresses; {detail}",
        "Spread the updates: accumulate per thread/warp/block first (warp shuffles, shared-memory atomics) and "
        "issue one global atomic per block, or give each block its own counters and reduce them afterwards.",
        tuple(ev),
        estimated_speedup=_upper_bound_gain(v) if _regime(v) == "latency" else math.nan,
    )


@rule("non_fp_compute")
def non_fp_compute(v: LaunchView) -> Hint | None:
    if _limiter(v) != "compute" or v.verdict.get("compute_pipe") != "other" or _regime(v) != "bound":
        return None
    flops = [v.units.get(p, math.nan) for p in ("fp64", "fp32", "fp16", "tensor")]
    known = [x for x in flops if _ok(x)]
    best = max(known) if known else math.nan
    if _ok(best) and best >= NON_FP_FLOP_MAX:
        return None
    sm = v.units.get("sm", math.nan)
    pipes = {k: v.units.get(k, math.nan) for k in ("pipe_alu", "pipe_fma", "pipe_xu", "pipe_lsu", "pipe_uniform")}
    busy = {k: x for k, x in pipes.items() if _ok(x)}
    top = max(busy, key=lambda k: busy[k]) if busy else None
    pipe_text = f"; busiest pipe {top[5:].upper()} at {busy[top]:.0%}" if top else ""
    flop_text = f"the FLOP roofs show {best:.0%}" if _ok(best) else "the FLOP roofs show no FP work"
    ev = [Evidence("best FLOP roof fraction", best, NON_FP_FLOP_MAX, "<")]
    if _ok(sm):
        ev.append(Evidence("sm__throughput (fraction)", sm, None, "=="))
    if top:
        ev.append(Evidence(f"{top} (fraction)", busy[top], None, "=="))
    return Hint(
        "non_fp_compute",
        "medium",
        f"Compute-bound on non-floating-point work: SM at {sm:.0%} while {flop_text}{pipe_text}; the work is "
        "integer, address arithmetic or instruction issue, which the FP roofline does not show",
        "Cut the instruction count per useful operation: hoist index arithmetic out of loops, use 32-bit indices, "
        "strength-reduce divisions and modulos (powers of two, precomputed reciprocals), vectorize loads (one "
        "float4 instead of four floats), and unroll to amortize loop overhead.",
        tuple(ev),
    )


# ------------------------------------------------------------------------------------------------ running


def run_rules(views: list[tuple[tuple[Any, ...], LaunchView]]) -> pd.DataFrame:
    """HINT_COLUMNS for every launch and every registered rule."""
    rows: list[dict[str, Any]] = []
    for key, view in views:
        for hint_id, fn in RULES.items():
            h = fn(view)
            if h is None:
                continue
            rows.append(
                {
                    **dict(zip(LAUNCH_KEY, key, strict=True)),
                    "hint": hint_id,
                    "severity": h.severity,
                    "source": "ncu-roofline",
                    "message": h.message,
                    "advice": h.advice,
                    "evidence": json.dumps([e.as_dict() for e in h.evidence], sort_keys=True),
                    "estimated_speedup": h.estimated_speedup,
                }
            )
    frame = pd.DataFrame(rows, columns=list(HINT_COLUMNS))
    result: pd.DataFrame = frame.astype(HINT_COLUMNS)
    return result


def ncu_rule_hints(rules: pd.DataFrame) -> pd.DataFrame:
    """ncu's own rule results (optimisation and warning messages) as hints marked source='ncu'.

    The hint id is "ncu:<rule>"; severity ERR -> high, WRN -> medium, OPT -> low; estimated_speedup is ncu's
    own estimate (percent / 100)."""
    r = rules[rules["type"].isin(["OPT", "WRN", "ERR"]).fillna(False).to_numpy()]
    frame = pd.DataFrame(
        {
            "report": r["report"],
            "process_id": r["process_id"],
            "launch_id": r["launch_id"],
            "hint": "ncu:" + r["rule"].astype(str),
            "severity": r["type"].map({"ERR": "high", "WRN": "medium", "OPT": "low"}),
            "source": "ncu",
            "message": r["description"],
            "advice": pd.Series(pd.NA, index=r.index, dtype="string"),
            "evidence": "[]",
            "estimated_speedup": r["speedup"] / 100.0,
        }
    )
    result: pd.DataFrame = frame.astype(HINT_COLUMNS).reset_index(drop=True)
    return result
