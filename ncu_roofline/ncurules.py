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
import pyarrow as pa
import pyarrow.compute as pc

from .model import LAUNCH_KEY, launch_index
from .vector import choose, per_distinct

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
    rows = np.flatnonzero((rules["rule"] == rule).fillna(False).to_numpy())
    out: pd.DataFrame = rules[[*LAUNCH_KEY, "description"]].take(rows).reset_index(drop=True)
    return out


def search(texts: pd.Series, pattern: re.Pattern[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per text, whether ``pattern.search`` finds it, and its named groups (object arrays of str, None where
    not found), over the whole column. Each distinct text is searched once (the column dictionary-encoded):
    by Arrow's regular expressions (RE2: the same leftmost-first matches as ``re`` for these patterns) where
    it is ASCII, by Python's ``re`` where it has other characters (there ``\\w``, ``\\d`` and ``\\s`` mean
    more in Python). A missing text is not found."""
    n = len(texts)
    names = list(pattern.groupindex)
    groups = {g: np.full(n, None, dtype=object) for g in names}
    if not n:
        return np.zeros(0, dtype=bool), groups
    arr = pa.array(texts.astype("string"))
    encoded = pc.dictionary_encode(arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr)
    distinct = encoded.dictionary
    code = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    ascii_ = pc.fill_null(pc.string_is_ascii(distinct), False).to_numpy(zero_copy_only=False)
    found_d = np.zeros(len(distinct), dtype=bool)
    groups_d = {g: np.full(len(distinct), None, dtype=object) for g in names}
    if names:
        res = pc.extract_regex(distinct, pattern.pattern)
        found_d = pc.fill_null(pc.is_valid(res), False).to_numpy(zero_copy_only=False) & ascii_
        for i, g in enumerate(names):
            values = pc.struct_field(res, [i]).to_numpy(zero_copy_only=False)
            groups_d[g][found_d] = values[found_d]
    else:
        found_d = pc.fill_null(pc.match_substring_regex(distinct, pattern.pattern), False).to_numpy(
            zero_copy_only=False
        )
        found_d = found_d & ascii_
    other = np.flatnonzero(~ascii_)
    for row, text in zip(other, distinct.take(pa.array(other)).to_pylist(), strict=True):  # non-ASCII texts
        m = pattern.search(str(text))
        if m is not None:
            found_d[row] = True
            for g in names:
                groups_d[g][row] = m.group(g)
    known = code >= 0
    found = np.zeros(n, dtype=bool)
    found[known] = found_d[code[known]]
    for g in names:
        groups[g][known] = groups_d[g][code[known]]
    return found, groups


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
    that parses. Each pattern is searched over the whole column (``parse_sol_bottleneck`` per text)."""
    r = _by_rule(rules, "SOLBottleneck")
    verdicts = np.full(len(r), None, dtype=object)
    for pattern, verdict in reversed(_SOL_PATTERNS):  # the first pattern that matches decides: apply it last
        found, groups = search(r["description"], pattern)
        if verdict:
            verdicts[found] = verdict
        else:
            unit = per_distinct(groups["unit"], lambda u: _UNIT_WORDS.get(u, "compute" if u == "workloads" else None))
            verdicts[found] = unit[found]
    frame = pd.DataFrame(
        {"ncu_bottleneck": pd.array(verdicts, dtype="string"), "ncu_message": r["description"].astype("string").array},
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


def _numbers(text: np.ndarray, found: np.ndarray) -> np.ndarray:
    """``float`` of the texts where ``found``, NaN elsewhere."""
    out = np.full(len(text), np.nan)
    out[found] = text[found].astype(np.float64)
    return out


def high_pipe(rules: pd.DataFrame) -> pd.DataFrame:
    """ncu's HighPipeUtilization per launch: ncu_pipe (ncu's name), ncu_pipe_pct (0..100), ncu_pipe_family
    (fp64/fp32/fp16/tensor/other, "idle" when ncu calls every pipe under-utilised). Index LAUNCH_KEY."""
    r = _by_rule(rules, "HighPipeUtilization")
    texts = r["description"]
    idle, _ = search(texts, _PIPES_IDLE)
    top, top_g = search(texts, _PIPE_TOP)
    top &= ~idle
    sub, sub_g = search(texts, _PIPE_SUB)
    inst, inst_g = search(texts, _PIPE_INST)
    family = per_distinct(top_g["pipe"], lambda p: None if p is None else _pipe_family(p))
    family = choose(sub, per_distinct(sub_g["sub"], lambda p: None if p is None else _pipe_family(p)), family)
    inst_family = per_distinct(inst_g["pipe"], lambda p: None if p is None else _pipe_family(p))
    # the FMA pipe busy with FP16 instructions: "is FMA (FP16)"
    family = choose((family == "fp32") & inst & (inst_family == "fp16"), "fp16", family)
    family = choose(pd.isna(family) & inst, inst_family, family)
    family = choose(top, family, choose(idle, "idle", None))
    frame = pd.DataFrame(
        {
            "ncu_pipe": pd.array(choose(top, top_g["pipe"], None), dtype="string"),
            "ncu_pipe_pct": _numbers(top_g["pct"], top),
            "ncu_pipe_family": pd.array(family, dtype="string"),
        },
        index=launch_index(r),
    )
    out: pd.DataFrame = frame[~frame.index.duplicated(keep="first")]
    return out


def fp_roofline(rules: pd.DataFrame) -> pd.DataFrame:
    """ncu's SOLFPRoofline figures per launch: ncu_fp32_pct, ncu_fp64_pct (0..100). Index LAUNCH_KEY."""
    r = _by_rule(rules, "SOLFPRoofline")
    found, groups = search(r["description"], _FP_ROOF)
    frame = pd.DataFrame(
        {"ncu_fp32_pct": _numbers(groups["fp32"], found), "ncu_fp64_pct": _numbers(groups["fp64"], found)},
        index=launch_index(r),
        dtype=float,
    )
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
    found, groups = search(r["description"], _CPI_STALL)
    what = np.full(len(r), None, dtype=object)
    if found.any():
        what[found] = np.char.strip(groups["what"][found].astype(str)).astype(object)
    frame = pd.DataFrame(
        {"ncu_stall": pd.array(what, dtype="string"), "ncu_stall_cycles": _numbers(groups["cycles"], found)},
        index=launch_index(r),
    )
    frame = frame[frame["ncu_stall"].notna().to_numpy()]
    frame = frame[~frame.index.duplicated(keep="first")]
    issue = _by_rule(rules, "IssueSlotUtilization")
    every, every_g = search(issue["description"], _ISSUE_EVERY)
    per = pd.Series(_numbers(every_g["cycles"], every), index=launch_index(issue), dtype=float)
    per = per[~per.index.duplicated(keep="first")]
    frame["ncu_cycles_per_issue"] = per.reindex(frame.index).to_numpy(dtype=float)
    return frame
