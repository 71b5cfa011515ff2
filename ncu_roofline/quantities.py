"""The declared table: ncu metric names -> the quantities the analysis reads.

Adding a metric is one line here. Each quantity lists the ncu metric names that give it, in order of
preference (newer spellings first, then older ones or other architectures); the first present wins per
launch. ``rollup`` says how repeated launches of one kernel combine: ``sum`` for counts and times,
``time_mean`` (weighted by duration) for rates and percentages, ``max``/``min`` for limits, ``first`` for
launch attributes that are the same for every launch of a kernel shape.

Values are in the base units of ``Report.values``: seconds, bytes, byte/s, hz; percentages 0..100.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Quantity:
    name: str
    metrics: tuple[str, ...]
    unit: str
    rollup: str
    description: str


def _q(name: str, metrics: str | Iterable[str], unit: str, rollup: str, description: str) -> Quantity:
    names = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    return Quantity(name, names, unit, rollup, description)


QUANTITIES: tuple[Quantity, ...] = (
    # --- time and clocks
    _q("duration", "gpu__time_duration.sum", "s", "sum", "kernel duration"),
    _q("elapsed_cycles", ("gpc__cycles_elapsed.max", "sm__cycles_elapsed.max"), "cycle", "sum", "elapsed cycles"),
    _q("sm_clock", ("sm__cycles_elapsed.avg.per_second", "gpc__cycles_elapsed.avg.per_second",
                    "smsp__cycles_elapsed.avg.per_second"), "hz", "time_mean", "SM clock"),  # fmt: skip
    _q("dram_clock", "dram__cycles_elapsed.avg.per_second", "hz", "time_mean", "DRAM clock"),
    # --- Speed Of Light: % of each unit's peak throughput
    _q("sm_throughput_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "time_mean",
       "Compute (SM) throughput"),  # fmt: skip
    _q("memory_throughput_pct", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "%",
       "time_mean", "Memory throughput (busiest memory unit)"),  # fmt: skip
    _q("dram_throughput_pct", ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                               "dram__throughput.avg.pct_of_peak_sustained_elapsed"), "%", "time_mean",
       "DRAM throughput"),  # fmt: skip
    _q("l2_throughput_pct", "lts__throughput.avg.pct_of_peak_sustained_elapsed", "%", "time_mean",
       "L2 cache throughput"),  # fmt: skip
    _q("l1_throughput_pct", "l1tex__throughput.avg.pct_of_peak_sustained_active", "%", "time_mean",
       "L1/TEX cache throughput"),  # fmt: skip
    # --- compute pipes: % of peak instructions issued (active cycles)
    _q("pipe_alu_pct", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", "%", "time_mean",
       "ALU pipe (integer, logic, conversions)"),  # fmt: skip
    _q("pipe_fma_pct", ("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
                        "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"), "%", "time_mean",
       "FMA pipe (FP32, FP16x2, IMAD)"),  # fmt: skip
    _q("pipe_fp16_pct", ("sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active",
                         "sm__inst_executed_pipe_fp16.avg.pct_of_peak_sustained_active"), "%", "time_mean",
       "FP16 instructions on the FMA pipe"),  # fmt: skip
    _q("pipe_fp64_pct", ("sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
                         "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active"), "%", "time_mean",
       "FP64 pipe"),  # fmt: skip
    _q("pipe_tensor_pct", ("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
                           "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"), "%",
       "time_mean", "Tensor pipe"),  # fmt: skip
    _q("pipe_lsu_pct", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", "%", "time_mean",
       "LSU pipe (loads, stores, shared memory)"),  # fmt: skip
    _q("pipe_xu_pct", "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", "%", "time_mean",
       "XU pipe (special functions)"),  # fmt: skip
    _q("pipe_shared_pct", "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active", "%", "time_mean",
       "shared pipe (FP16 and tensor dispatch)"),  # fmt: skip
    _q("issue_active_pct", "sm__inst_issued.avg.pct_of_peak_sustained_active", "%", "time_mean",
       "issue slots busy"),  # fmt: skip
    # --- launch shape and occupancy
    _q("grid_size", "launch__grid_size", "block", "first", "blocks in the grid"),
    _q("block_size", "launch__block_size", "thread", "first", "threads per block"),
    _q("sm_count", ("device__attribute_multiprocessor_count", "launch__sm_count"), "SM", "first", "SMs"),
    _q("waves_per_sm", "launch__waves_per_multiprocessor", "", "time_mean", "waves per SM"),
    _q("registers_per_thread", "launch__registers_per_thread", "register/thread", "max", "registers per thread"),
    _q("achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "time_mean",
       "achieved occupancy"),  # fmt: skip
    _q("theoretical_occupancy_pct", "sm__maximum_warps_per_active_cycle_pct", "%", "min", "theoretical occupancy"),
    _q("occupancy_limit_registers", "launch__occupancy_limit_registers", "block", "min", "blocks/SM by registers"),
    _q("occupancy_limit_shared_mem", "launch__occupancy_limit_shared_mem", "block", "min",
       "blocks/SM by shared memory"),  # fmt: skip
    _q("occupancy_limit_blocks", "launch__occupancy_limit_blocks", "block", "min", "blocks/SM hardware limit"),
    _q("occupancy_limit_warps", "launch__occupancy_limit_warps", "block", "min", "blocks/SM by warps"),
    _q("occupancy_limit_barriers", "launch__occupancy_limit_barriers", "block", "min", "blocks/SM by barriers"),
    _q("shared_mem_per_block", ("launch__shared_mem_per_block", "launch__shared_mem_per_block_static"), "byte",
       "max", "shared memory per block"),  # fmt: skip
    # --- memory access quality
    _q("spill_instructions", "sass__inst_executed_register_spilling", "inst", "sum",
       "instructions spilling registers to local memory"),  # fmt: skip
    _q("local_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "sector", "sum", "local loads"),
    _q("local_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "sector", "sum", "local stores"),
    _q("global_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", "sum", "global loads"),
    _q("global_load_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "request", "sum",
       "global load requests"),  # fmt: skip
    _q("global_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sector", "sum", "global stores"),
    _q("global_store_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "request", "sum",
       "global store requests"),  # fmt: skip
    _q("shared_bank_conflicts", ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",), "", "sum",
       "shared-memory bank conflicts"),  # fmt: skip
    _q("shared_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "", "sum",
       "shared-memory wavefronts"),  # fmt: skip
    _q("threads_per_instruction", "smsp__thread_inst_executed_per_inst_executed.ratio", "", "time_mean",
       "active threads per executed warp instruction (32 = no divergence)"),  # fmt: skip
    _q("l2_hit_rate_pct", "lts__t_sector_hit_rate.pct", "%", "time_mean", "L2 hit rate"),
    _q("l1_hit_rate_pct", "l1tex__t_sector_hit_rate.pct", "%", "time_mean", "L1/TEX hit rate"),
    _q("global_atomic_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "request", "sum",
       "global atomic requests"),  # fmt: skip
    _q("global_reduction_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "request", "sum",
       "global reduction requests"),  # fmt: skip
    _q("l2_atomic_input_pct", "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed", "%",
       "time_mean", "L2 atomic unit busy"),  # fmt: skip
    _q("instructions", ("smsp__inst_executed.sum", "sm__inst_executed.sum"), "inst", "sum",
       "warp instructions executed"),  # fmt: skip
)

BY_NAME: dict[str, Quantity] = {q.name: q for q in QUANTITIES}


def quantities(values: pd.DataFrame, names: Iterable[str] | None = None) -> pd.DataFrame:
    """Launch x quantity (float, base units), from ``Report.values``; NaN where no listed metric is present.

    Columns taken: the ncu metric names of QUANTITIES. Returns the quantity names, same index."""
    wanted = [BY_NAME[n] for n in names] if names is not None else list(QUANTITIES)
    out: dict[str, np.ndarray] = {}
    for q in wanted:
        col = np.full(len(values.index), np.nan)
        for metric in q.metrics:
            if metric in values.columns:
                v = values[metric].to_numpy(dtype=np.float64)
                col = np.where(np.isnan(col), v, col)
        out[q.name] = col
    return pd.DataFrame(out, index=values.index)


def source_metric(values: pd.DataFrame, name: str) -> str | None:
    """The ncu metric that gives quantity ``name`` in this report (the first listed that is present)."""
    for metric in BY_NAME[name].metrics:
        if metric in values.columns and values[metric].notna().any():
            return metric
    return None
