"""ncu's own rule results, read back into figures the classifier can use and compare with.

The details page carries one row per rule message (``Report.rules``). Three rules state, in words, what the
metrics of a default export do not: which unit the Speed Of Light says holds the kernel (``SOLBottleneck``),
which pipe is busiest (``HighPipeUtilization``) and what share of the FP32/FP64 peaks the kernel reached
(``SOLFPRoofline``). The patterns below are the messages of ncu 2025.3.1 (the rule scripts ship with ncu under
``sections/``); a message that matches none of them gives <NA>, never a guess.

Frames returned are keyed by LAUNCH_KEY (report, process_id, launch_id), one row per launch that has the rule.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .model import LAUNCH_KEY, launch_index

#: Values of ``ncu_bottleneck``: the unit ncu's SOLBottleneck rule names, or the case it reports.
NCU_BOTTLENECKS = ("dram", "l2", "l1", "compute", "memory", "balanced", "latency", "small_grid")

_UNIT_WORDS = {"DRAM": "dram", "L2": "l2", "L1": "l1"}

#: (pattern, verdict) in the order tried; group "unit" (when present) names DRAM, L2, L1 or "workloads".
_SOL_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"too small to fill the available resources"), "small_grid"),
    (re.compile(r"low compute throughput and memory bandwidth utilization"), "latency"),
    (re.compile(r"Compute and Memory are well-balanced"), "balanced"),
    (re.compile(r"Compute is more heavily utilized than Memory"), "compute"),
    (re.compile(r"Memory is more heavily utilized than Compute.*?identify the (?P<unit>DRAM|L2|L1) bottleneck"), ""),
    (re.compile(r"Memory is more heavily utilized than Compute"), "memory"),
    (re.compile(r"greater than [\d.]+% of the available compute or memory.*?Start by analyzing (?P<unit>\w+) in"), ""),
)

#: HighPipeUtilization: "<pipe> is the highest-utilized pipeline (<pct>%)", optionally "dominated by its
#: <sub> sub-pipeline" and "Based on the number of executed instructions, the highest utilized pipeline
#: (<pct>%) is <pipe>".
_PIPE_TOP = re.compile(r"^(?P<pipe>[\w ()]+?) is the highest-utilized pipeline \((?P<pct>[\d.]+)%\)")
_PIPE_SUB = re.compile(r"dominated by its (?P<sub>[\w ()]+?) sub-pipeline")
_PIPE_INST = re.compile(r"highest utilized pipeline \((?P<pct>[\d.]+)%\) is (?P<pipe>[\w ()]+?)\.")
_PIPES_IDLE = re.compile(r"All compute pipelines are under-utilized")

#: SOLFPRoofline: "achieved <x>% of this device's FP32 peak performance and <y>% of its FP64 peak".
_FP_ROOF = re.compile(
    r"achieved\s+(?:close to\s+)?(?P<fp32>[\d.]+)% of this device's FP32 peak performance and\s+"
    r"(?:close to\s+)?(?P<fp64>[\d.]+)% of its FP64 peak"
)


def _by_rule(rules: pd.DataFrame, rule: str) -> pd.DataFrame:
    r = rules[(rules["rule"] == rule).fillna(False).to_numpy()]
    out: pd.DataFrame = r[[*LAUNCH_KEY, "description"]].reset_index(drop=True)
    return out


def parse_sol_bottleneck(text: str) -> str | None:
    """The verdict one SOLBottleneck message states (one of NCU_BOTTLENECKS), or None."""
    for pattern, verdict in _SOL_PATTERNS:
        m = pattern.search(text)
        if m is None:
            continue
        if verdict:
            return verdict
        unit = m.group("unit")
        return _UNIT_WORDS.get(unit, "compute" if unit == "workloads" else None)
    return None


def sol_bottleneck(rules: pd.DataFrame) -> pd.DataFrame:
    """ncu's SOLBottleneck verdict per launch: ncu_bottleneck (NCU_BOTTLENECKS or <NA>), ncu_message.

    Takes ``Report.rules``; index LAUNCH_KEY. A launch with several SOLBottleneck rows keeps the first
    that parses."""
    r = _by_rule(rules, "SOLBottleneck")
    verdicts = [parse_sol_bottleneck(str(t)) for t in r["description"]]
    frame = pd.DataFrame(
        {"ncu_bottleneck": pd.array(verdicts, dtype="string"), "ncu_message": r["description"].astype("string")},
        index=launch_index(r),
    )
    frame = frame.sort_values("ncu_bottleneck", na_position="last", kind="stable")
    out: pd.DataFrame = frame[~frame.index.duplicated(keep="first")]
    return out


def _pipe_family(name: str) -> str | None:
    """ncu's pipe name -> fp64, fp32, fp16, tensor, other (None for 'Shared', which is only a sum)."""
    n = name.strip().lower()
    if n.startswith("tensor") or n in ("dmma", "hmma", "imma"):
        return "tensor"
    if n.startswith("fp64"):
        return "fp64"
    if n == "fma (fp16)" or n.startswith("fp16"):
        return "fp16"
    if n.startswith("fma"):
        return "fp32"
    if n == "shared":
        return None
    return "other"


def high_pipe(rules: pd.DataFrame) -> pd.DataFrame:
    """ncu's HighPipeUtilization per launch: ncu_pipe (ncu's name), ncu_pipe_pct (0..100), ncu_pipe_family
    (fp64/fp32/fp16/tensor/other, "idle" when ncu calls every pipe under-utilised). Index LAUNCH_KEY."""
    r = _by_rule(rules, "HighPipeUtilization")
    rows: list[tuple[str | None, float, str | None]] = []
    for text in r["description"].astype(str):
        if _PIPES_IDLE.search(text):
            rows.append((None, np.nan, "idle"))
            continue
        top = _PIPE_TOP.search(text)
        if top is None:
            rows.append((None, np.nan, None))
            continue
        pipe, pct = top.group("pipe"), float(top.group("pct"))
        family = _pipe_family(pipe)
        sub = _PIPE_SUB.search(text)
        if sub is not None:
            family = _pipe_family(sub.group("sub"))
        inst = _PIPE_INST.search(text)
        if family == "fp32" and inst is not None and _pipe_family(inst.group("pipe")) == "fp16":
            family = "fp16"  # the FMA pipe busy with FP16 instructions: "is FMA (FP16)"
        if family is None and inst is not None:
            family = _pipe_family(inst.group("pipe"))
        rows.append((pipe, pct, family))
    frame = pd.DataFrame(
        {
            "ncu_pipe": pd.array([x[0] for x in rows], dtype="string"),
            "ncu_pipe_pct": np.array([x[1] for x in rows], dtype=float),
            "ncu_pipe_family": pd.array([x[2] for x in rows], dtype="string"),
        },
        index=launch_index(r),
    )
    out: pd.DataFrame = frame[~frame.index.duplicated(keep="first")]
    return out


def fp_roofline(rules: pd.DataFrame) -> pd.DataFrame:
    """ncu's SOLFPRoofline figures per launch: ncu_fp32_pct, ncu_fp64_pct (0..100). Index LAUNCH_KEY."""
    r = _by_rule(rules, "SOLFPRoofline")
    fp32, fp64 = [], []
    for text in r["description"].astype(str):
        m = _FP_ROOF.search(text)
        fp32.append(float(m.group("fp32")) if m else np.nan)
        fp64.append(float(m.group("fp64")) if m else np.nan)
    frame = pd.DataFrame({"ncu_fp32_pct": fp32, "ncu_fp64_pct": fp64}, index=launch_index(r), dtype=float)
    out: pd.DataFrame = frame[~frame.index.duplicated(keep="first")]
    return out


#: CPIStall: "each warp of this workload spends <x> cycles being stalled <what>." and IssueSlotUtilization:
#: "each scheduler only issues an instruction every <y> cycles".
_CPI_STALL = re.compile(r"spends (?P<cycles>[\d.]+) cycles being stalled (?P<what>[^.]+?)\.(?:\s|$)")
_ISSUE_EVERY = re.compile(r"issues an instruction every (?P<cycles>[\d.]+) cycles")


def cpi_stall(rules: pd.DataFrame) -> pd.DataFrame:
    """ncu's dominant warp stall per launch, from its CPIStall rule message (the details page says in words
    what the raw page's ``smsp__average_warps_issue_stalled_*`` metrics count): ncu_stall (what the warps wait
    on), ncu_stall_cycles, and ncu_cycles_per_issue (IssueSlotUtilization). Index LAUNCH_KEY."""
    r = _by_rule(rules, "CPIStall")
    what: list[str | None] = []
    cycles: list[float] = []
    for text in r["description"].astype(str):
        m = _CPI_STALL.search(text)
        what.append(m.group("what").strip() if m else None)
        cycles.append(float(m.group("cycles")) if m else np.nan)
    frame = pd.DataFrame(
        {"ncu_stall": pd.array(what, dtype="string"), "ncu_stall_cycles": np.array(cycles, dtype=float)},
        index=launch_index(r),
    )
    frame = frame[frame["ncu_stall"].notna().to_numpy()]
    frame = frame[~frame.index.duplicated(keep="first")]
    issue = _by_rule(rules, "IssueSlotUtilization")
    every = [
        float(m.group("cycles")) if (m := _ISSUE_EVERY.search(t)) else np.nan for t in issue["description"].astype(str)
    ]
    per = pd.Series(every, index=launch_index(issue), dtype=float)
    per = per[~per.index.duplicated(keep="first")]
    frame["ncu_cycles_per_issue"] = per.reindex(frame.index).to_numpy(dtype=float)
    return frame
