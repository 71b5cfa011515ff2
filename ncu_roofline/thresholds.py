"""Every threshold the verdicts and the hints use, in one place, each with the reason for its value.

``THRESHOLDS`` is the registry (name -> :class:`Threshold`); the module-level names are the values the code
reads. ``docs/hints.md`` is generated from this registry and from the hint registry by
``tools/make_hints_doc.py`` (a test checks that the page is current), so the documentation cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Threshold:
    name: str
    value: float
    unit: str
    used_by: str  # "regime", "limiter", "pipe", or the hint id
    reason: str


THRESHOLDS: dict[str, Threshold] = {}


def _t(name: str, value: float, unit: str, used_by: str, reason: str) -> float:
    THRESHOLDS[name] = Threshold(name, value, unit, used_by, reason)
    return value


# ------------------------------------------------------------------------------------------------ verdicts

BOUND_THRESHOLD = _t(
    "BOUND_THRESHOLD", 0.60, "fraction of peak", "regime",
    "A unit at or above 60 % of its peak holds the kernel: ncu's SOLBottleneck rule "
    "(latency_bound_threshold = 60) calls a workload with compute and memory both under 60 % latency-bound. "
    "Every unit under it: the regime is latency (or launch, when short).",
)  # fmt: skip
BALANCED_MARGIN = _t(
    "BALANCED_MARGIN", 0.10, "fraction of peak", "limiter",
    "ncu's SOLBottleneck balanced_threshold: between 60 and 80 %, compute and memory within 10 points are "
    "well-balanced; a byte roof 10 points under its unit's figure means the unit does work the roof does not count.",
)  # fmt: skip
LAUNCH_DURATION_S = _t(
    "LAUNCH_DURATION_S", 5e-6, "s", "regime",
    "A kernel launch costs a few microseconds of host and driver time (CUDA Best Practices Guide, CUDA Graphs "
    "posts: 2-5 us) and the GPU needs about 1 us to ramp a grid up and drain it: under 5 us the fixed costs are "
    "as large as the work (regime launch).",
)  # fmt: skip
TIE_MARGIN = _t(
    "TIE_MARGIN", 0.01, "share of the top score", "limiter",
    "ncu prints Speed Of Light percentages to two decimals and a capped L2 figure equals Memory Throughput "
    "exactly: memory units within 1 % are tied and go to the outer level.",
)  # fmt: skip
PIPE_FLOP_MIN = _t(
    "PIPE_FLOP_MIN", 0.10, "fraction of peak", "pipe",
    "The FLOP roofs show real FP work when the best precision reaches 10 % of its peak (l1_reread: 3 % of FP32 "
    "at 76 % SM throughput is integer/address work).",
)  # fmt: skip
PIPE_FLOP_SHARE = _t(
    "PIPE_FLOP_SHARE", 0.30, "share of SM throughput", "pipe",
    "... and FP work explains a busy SM when it is at least 30 % of the SM throughput.",
)  # fmt: skip
FP16_SHARE_OF_FMA = _t(
    "FP16_SHARE_OF_FMA", 0.50, "share of FMA pipe", "pipe",
    "FP16 instructions make the FMA pipe fp16 when they are at least half of its utilisation.",
)  # fmt: skip
SMALL_GRID_WAVES = _t(
    "SMALL_GRID_WAVES", 1.0, "waves per SM", "verdict small_grid flag",
    "ncu's SOLBottleneck waves_threshold: under one wave per SM ncu calls the grid too small.",
)  # fmt: skip
STALL_SHARE = _t(
    "STALL_SHARE", 0.15, "share of stall cycles", "regime (latency verdicts)",
    "A latency verdict names the stall reasons that hold at least 15 % of the warp cycles per issued "
    "instruction (at most three): below that no single reason explains the wait.",
)  # fmt: skip

# ------------------------------------------------------------------------------------------------ hints

SPILL_INSTRUCTIONS = _t(
    "SPILL_INSTRUCTIONS", 1.0, "instructions", "register_spilling",
    "The compiler spills only when it runs out of registers: any spill instruction is worth a look.",
)  # fmt: skip
SPILL_TRAFFIC_SHARE = _t(
    "SPILL_TRAFFIC_SHARE", 0.10, "share of L1 requests/sectors", "register_spilling",
    "High severity when spills are 10 % of the L1 requests (ncu's derived__local_spilling_requests_pct) or local "
    "memory is 10 % of the L1 sectors; without a spill count (ncu 2024.2 and older) the hint fires from local "
    "memory at that share (spills, or per-thread arrays indexed at run time: no stack frame touched now and then).",
)  # fmt: skip
LOCAL_SECTOR_THREADS = _t(
    "LOCAL_SECTOR_THREADS", 8.0, "threads per local sector", "register_spilling",
    "Without a spill count (ncu 2024.2 and older) the hint also needs a local-memory sector per 8 threads of the "
    "launch: one 4-byte spill store by every thread (a warp's 32 x 4 bytes are 4 sectors), not a stack frame a "
    "few threads touch.",
)  # fmt: skip
LOW_OCCUPANCY_PCT = _t(
    "LOW_OCCUPANCY_PCT", 25.0, "% of the SM's warps", "low_occupancy",
    "With 4 schedulers per SM a quarter of 64 warps leaves 4 warps per scheduler, about the fewest that cover the "
    "4-6 cycle dependent-issue latency (ncu's IssueSlotUtilization rule reasons in warps per scheduler).",
)  # fmt: skip
OCCUPANCY_GAP = _t(
    "OCCUPANCY_GAP", 0.80, "achieved / theoretical", "low_occupancy",
    "Achieved under 80 % of theoretical: warps or blocks end unevenly (ncu's AchievedOccupancy rule uses the "
    "same comparison).",
)  # fmt: skip
ELIGIBLE_WARPS = _t(
    "ELIGIBLE_WARPS", 1.0, "warps per scheduler", "low_occupancy",
    "A scheduler with at least one eligible warp per cycle on average issues every cycle it can: more warps "
    "would not hide more latency (ncu's IssueSlotUtilization rule).",
)  # fmt: skip
NEAR_ROOF = _t(
    "NEAR_ROOF", 0.50, "fraction of peak", "low_occupancy",
    "A kernel that runs one block per SM by design (large shared-memory tiles, warp specialisation) and keeps "
    "its tensor pipe or its limiting unit at half of its peak or more is limited by design: fewer registers or "
    "smaller tiles would cost more than they give.",
)  # fmt: skip
SMALL_GRID_IDLE_SMS = _t(
    "SMALL_GRID_IDLE_SMS", 0.10, "share of SMs", "small_grid",
    "A grid that leaves at least 10 % of the SMs without a block (0.97 waves leaves 3 %: within the run-to-run "
    "spread of a kernel's time) wastes that share of the GPU.",
)  # fmt: skip
SMALL_GRID_HALF_WAVE = _t(
    "SMALL_GRID_HALF_WAVE", 0.50, "waves per SM", "small_grid",
    "At most half a wave: every SM has a block but at least half of its block slots are empty, so it has half "
    "the warps it could use to hide latency.",
)  # fmt: skip
REPEATED_LAUNCHES = _t(
    "REPEATED_LAUNCHES", 2.0, "launches", "launch_overhead",
    "From two launches of one tiny kernel in a report, fusing them or capturing a CUDA graph pays off.",
)  # fmt: skip
TAIL_MIN_EFFECT = _t(
    "TAIL_MIN_EFFECT", 0.02, "share of SM slot time", "tail_effect",
    "The tail costs (1 - last-wave fill) / ceil(waves) of the SM slot time with blocks of equal duration; under "
    "2 % it is below the run-to-run spread of a kernel's duration. (ncu's LaunchConfiguration rule quotes "
    "1 / (full waves + 1), the worst case of an empty last wave, which overstates a full one.)",
)  # fmt: skip
TAIL_HIGH_EFFECT = _t(
    "TAIL_HIGH_EFFECT", 0.10, "share of SM slot time", "tail_effect",
    "Medium severity from 10 % of the SM slot time idle in the tail; low below.",
)  # fmt: skip
UNCOALESCED_EXCESS_SHARE = _t(
    "UNCOALESCED_EXCESS_SHARE", 0.10, "share of L2 sectors", "uncoalesced_global_access",
    "ncu's UncoalescedGlobalAccess rule: flag at 10 % excess sectors over the ideal for the same accesses.",
)  # fmt: skip
UNCOALESCED_MIN_GAIN = _t(
    "UNCOALESCED_MIN_GAIN", 0.05, "share of the launch", "uncoalesced_global_access",
    "... when the excess weighted by L2 busy time (ncu's own estimate) is at least 5 % of the launch.",
)  # fmt: skip
MAX_IDEAL_SECTORS_PER_REQUEST = _t(
    "MAX_IDEAL_SECTORS_PER_REQUEST", 16.0, "sectors per request", "uncoalesced_global_access",
    "Without ncu's ideal sectors: a warp-wide 16-byte (float4) access touches 32 x 16 / 32 = 16 sectors when "
    "coalesced; more sectors per request is uncoalesced at any access width (flagged from 10 % over it, "
    "UNCOALESCED_EXCESS_SHARE: 17.8).",
)  # fmt: skip
BANK_CONFLICT_SHARE = _t(
    "BANK_CONFLICT_SHARE", 0.25, "share of shared wavefronts", "shared_bank_conflicts",
    "Replayed wavefronts at 25 % of the shared wavefronts: a 1.33-way average conflict or worse.",
)  # fmt: skip
BANK_CONFLICT_MIN_GAIN = _t(
    "BANK_CONFLICT_MIN_GAIN", 0.05, "share of the launch", "shared_bank_conflicts",
    "... and worth 5 % of the launch when weighted by the L1 unit's utilisation.",
)  # fmt: skip
DIVERGENCE_THREADS = _t(
    "DIVERGENCE_THREADS", 24.0, "threads per warp instruction", "thread_divergence",
    "Fewer than 24 of 32 threads active per executed warp instruction: SIMT efficiency under 75 %.",
)  # fmt: skip
FP32_GEMM_MIN_FRACTION = _t(
    "FP32_GEMM_MIN_FRACTION", 0.30, "fraction of FP32 peak", "fp32_instead_of_tensor",
    "FP32 FLOPs at 30 % of the FP32 peak: enough FP32 work for tensor cores to matter.",
)  # fmt: skip
FMA_FLOP_SHARE = _t(
    "FMA_FLOP_SHARE", 0.80, "share of FP32 FLOPs", "fp32_instead_of_tensor",
    "FMAs at 80 % of the FP32 FLOPs: the multiply-accumulate inner loop of a GEMM or convolution.",
)  # fmt: skip
OPERAND_LOAD_SHARE = _t(
    "OPERAND_LOAD_SHARE", 0.01, "load instructions per instruction", "fp32_instead_of_tensor",
    "Operands loaded from memory (1 % of instructions are shared or global loads): a kernel of register-only "
    "FMAs is not a GEMM.",
)  # fmt: skip
TENSOR_IDLE = _t(
    "TENSOR_IDLE", 0.05, "fraction of tensor pipe", "fp32_instead_of_tensor",
    "The tensor pipe under 5 %: the tensor cores are idle.",
)  # fmt: skip
TENSOR_CORES_FROM_CC = _t(
    "TENSOR_CORES_FROM_CC", 7.0, "compute capability", "fp32_instead_of_tensor",
    "Tensor cores came with Volta (CC 7.0; CUDA C++ Programming Guide, Warp Matrix Functions): on an older GPU "
    "there are none to move FP32 work to, and the hint does not fire.",
)  # fmt: skip
TF32_FROM_CC = _t(
    "TF32_FROM_CC", 8.0, "compute capability", "fp32_instead_of_tensor",
    "TF32 and BF16 tensor operations came with Ampere (CC 8.0; A100 whitepaper): on Volta and Turing the advice "
    "is FP16 with FP32 accumulation, and no time at a TF32 roof is estimated.",
)  # fmt: skip
ATOMIC_SLICE_BUSY_PCT = _t(
    "ATOMIC_SLICE_BUSY_PCT", 50.0, "% busy", "atomic_contention",
    "The busiest L2 slice's atomic unit at 50 % or more of the launch ...",
)  # fmt: skip
ATOMIC_IMBALANCE = _t(
    "ATOMIC_IMBALANCE", 4.0, "busiest / average slice", "atomic_contention",
    "... while the average slice is 4x lower: the atomics pile onto few addresses (one slice serves them).",
)  # fmt: skip
ATOMIC_SHARE = _t(
    "ATOMIC_SHARE", 0.50, "share of global requests", "atomic_contention",
    "Without per-slice figures: atomics at half of the global memory requests of a latency-bound launch.",
)  # fmt: skip
NON_FP_FLOP_MAX = _t(
    "NON_FP_FLOP_MAX", 0.10, "fraction of FLOP peak", "non_fp_compute",
    "Compute-bound with every measured FLOP roof under 10 % (l1_reread: SM 76 %, FP32 3 %): the work is not FP.",
)  # fmt: skip
FP16_MOVE_SHARE = _t(
    "FP16_MOVE_SHARE", 0.01, "fraction of FP16 peak", "FP16 chart",
    "FP16 points under 1 % of the FP16 peak and below the launch's other FP work are register moves the "
    "compiler makes with HFMA2.MMA (in integer or FP32 kernels), not FP16 arithmetic: not drawn.",
)  # fmt: skip
FP16_MOVE_NOISE = _t(
    "FP16_MOVE_NOISE", 0.001, "fraction of FP16 peak", "FP16 chart",
    "... and under 0.1 % of the FP16 peak in a kernel with no other FP work (an integer kernel's moves: "
    "train_step's index kernels reach 0.0002 %): not drawn either.",
)  # fmt: skip

NCU_RULE_LEADS = _t(
    "NCU_RULE_LEADS", 0.01, "share of the launch's time", "kernel table's first hint",
    "Where none of our hints fires, an ncu rule is a kernel's first hint only with an estimate of 1 % or more (the "
    "table prints whole percents): AchievedOccupancy on fp32_fma at 99 % of its roof, with a 'local' estimate, is "
    "no lead; it stays in the kernel's diagnosis with every other rule.",
)  # fmt: skip


def markdown_table() -> str:
    """The thresholds as a Markdown table (name, value, unit, used by, reason), in registry order."""
    lines = ["| name | value | unit | used by | why this value |", "| --- | --- | --- | --- | --- |"]
    for t in THRESHOLDS.values():
        lines.append(f"| `{t.name}` | {t.value:g} | {t.unit} | {t.used_by} | {t.reason} |")
    return "\n".join(lines) + "\n"
