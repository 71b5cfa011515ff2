"""ncu's own rule results, read back into figures the classifier can use and compare with.

The details page carries one row per rule message (``Report.rules``). Three rules state, in words, what the
metrics of a default export do not: which unit the Speed Of Light says holds the kernel (``SOLBottleneck``),
which pipe is busiest (``HighPipeUtilization``) and what share of the FP32/FP64 peaks the kernel reached
(``SOLFPRoofline``). The patterns below are the messages of ncu 2025.3.1 (the rule scripts ship with ncu under
``sections/``); a message that matches none of them gives <NA>, never a guess.

Frames returned are keyed by LAUNCH_KEY (report, process_id, launch_id), one row per launch that has the rule.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .model import LAUNCH_KEY, launch_index
from .vector import choose, launch_positions, per_distinct, text_codes, texts_at

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


@dataclass(frozen=True)
class RuleRows:
    """ncu's rule rows (``Report.rules``: RULE_COLUMNS) read once for the analysis, by integer codes.

    ``frame``: the rows as given. ``rule``: per row, its rule (codes into ``rule_names``, -1: none).
    ``text``: per row, its message (codes into ``texts``, the distinct messages as Arrow text; -1: none).
    ``pos``: per row, its launch's position in ``index``, the launch index the rows were read for (-1: not
    there); both None where no index was given. A message is searched once per distinct text (``search_texts``) and
    copied out only where a frame shows it (``messages``)."""

    frame: pd.DataFrame
    rule: np.ndarray
    rule_names: np.ndarray
    text: np.ndarray
    texts: pa.Array
    pos: np.ndarray | None = None
    index: pd.Index | None = None

    def __len__(self) -> int:
        return len(self.frame)

    def rows(self, rule: str) -> np.ndarray:
        """Row numbers (ascending) of the rows of ``rule``."""
        at = np.flatnonzero(self.rule_names == rule)
        if not len(at):
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(self.rule == at[0])

    def messages(self, rows: np.ndarray) -> pa.Array:
        """The message text of ``rows`` (null where a row has none), as large Arrow text taken from the distinct
        texts (``vector.texts_at``)."""
        return texts_at(self.texts.cast(pa.large_string()), self.text[rows])

    def keys(self, rows: np.ndarray) -> pd.MultiIndex:
        """The LAUNCH_KEY of ``rows`` as a MultiIndex."""
        return launch_index(self.frame[list(LAUNCH_KEY)].take(rows))

    def first_per_launch(self, rows: np.ndarray, n: int) -> np.ndarray:
        """Per launch of the index (``n`` launches), the first of ``rows`` (row numbers, in the order given)
        that is one of its rows; -1 where none. Needs ``pos``."""
        assert self.pos is not None
        out = np.full(n, -1, dtype=np.int64)
        p = self.pos[rows]
        known = p >= 0
        launches, first = np.unique(p[known], return_index=True)
        out[launches] = rows[known][first]
        return out


def has_rules(rules: pd.DataFrame | RuleRows | None) -> bool:
    """Whether ``rules`` has rule rows to read (a frame with a ``rule`` column and at least one row)."""
    if rules is None:
        return False
    frame = rules.frame if isinstance(rules, RuleRows) else rules
    return bool(len(frame)) and "rule" in frame.columns


def rule_rows(rules: pd.DataFrame | RuleRows, index: pd.Index | None = None) -> RuleRows:
    """``rules`` (RULE_COLUMNS; at least LAUNCH_KEY, rule, description) encoded once (``RuleRows``); with
    ``index``, each row's launch position in it. A RuleRows is returned as it is (positions added when
    ``index`` is given and they were read for another one)."""
    if isinstance(rules, RuleRows):
        if index is None or (rules.index is not None and (rules.index is index or rules.index.equals(index))):
            return rules
        return dataclasses.replace(rules, pos=launch_positions(rules.frame, index), index=index)
    n = len(rules)
    if n and "rule" in rules.columns:
        rule, names = text_codes(rules["rule"])
        rule_names = np.asarray(names.to_pylist(), dtype=object)
    else:
        rule, rule_names = np.full(n, -1, dtype=np.int64), np.zeros(0, dtype=object)
    if n and "description" in rules.columns:
        text, texts = text_codes(rules["description"])
    else:
        text, texts = np.full(n, -1, dtype=np.int64), pa.array([], type=pa.large_string())
    pos = None if index is None else launch_positions(rules, index)
    return RuleRows(rules, rule, rule_names, text, texts, pos, index)


#: ncu's rule of its roofline chart section (SpeedOfLight_RooflineChart): where it ran for a launch, the chart's
#: metrics (FP32 and FP64 instruction counts, DRAM bytes) were collected, whether or not the page shows them.
ROOFLINE_RULE = "SOLFPRoofline"
#: The precisions whose work that section counts (its chart and its rule: FP32 and FP64).
ROOFLINE_RULE_PRECISIONS = ("fp64", "fp32")


def rule_ran_anywhere(rules: pd.DataFrame, rule: str) -> bool:
    """Whether ncu's ``rule`` has a row in ``rules`` (``Report.rules``): it ran for some launch (one comparison
    over the column; ``rule_ran`` says for which launches, from the encoded rows)."""
    if not has_rules(rules):
        return False
    return bool((rules["rule"] == rule).fillna(False).any())


def rule_ran(rules: pd.DataFrame | RuleRows | None, rule: str, index: pd.Index) -> np.ndarray:
    """Per launch of ``index``, positional: whether ncu's ``rule`` has a row for it (the rule ran, so the section
    that holds it was collected)."""
    if not has_rules(rules):
        return np.zeros(len(index), dtype=bool)
    assert rules is not None
    r = rule_rows(rules, index)
    ran: np.ndarray = r.first_per_launch(r.rows(rule), len(index)) >= 0
    return ran


def search_texts(distinct: pa.Array, pattern: re.Pattern[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per distinct text (an Arrow string array without repeats), whether ``pattern.search`` finds it, and
    its named groups (object arrays of str, None where not found): by Arrow's regular expressions (RE2: the
    same leftmost-first matches as ``re`` for these patterns) where it is ASCII, by Python's ``re`` where it
    has other characters (there ``\\w``, ``\\d`` and ``\\s`` mean more in Python). A null is not found."""
    names = list(pattern.groupindex)
    found_d = np.zeros(len(distinct), dtype=bool)
    groups_d = {g: np.full(len(distinct), None, dtype=object) for g in names}
    if not len(distinct):
        return found_d, groups_d
    ascii_ = pc.fill_null(pc.string_is_ascii(distinct), False).to_numpy(zero_copy_only=False)
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
    valid = pc.is_valid(distinct).to_numpy(zero_copy_only=False)
    other = np.flatnonzero(~ascii_ & valid)
    for row, text in zip(other, distinct.take(pa.array(other)).to_pylist(), strict=True):  # non-ASCII texts
        m = pattern.search(str(text))
        if m is not None:
            found_d[row] = True
            for g in names:
                groups_d[g][row] = m.group(g)
    return found_d, groups_d


def _spread(
    code: np.ndarray, found_d: np.ndarray, groups_d: dict[str, np.ndarray]
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per-distinct results spread over rows by their codes (-1: not found, groups None)."""
    known = code >= 0
    found = np.zeros(len(code), dtype=bool)
    found[known] = found_d[code[known]]
    groups = {g: np.full(len(code), None, dtype=object) for g in groups_d}
    for g, values in groups_d.items():
        groups[g][known] = values[code[known]]
    return found, groups


def search(texts: pd.Series, pattern: re.Pattern[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per text, whether ``pattern.search`` finds it, and its named groups (object arrays of str, None where
    not found), over the whole column. Each distinct text is searched once (the column dictionary-encoded,
    ``search_texts``). A missing text is not found."""
    if not len(texts):
        return np.zeros(0, dtype=bool), {g: np.full(0, None, dtype=object) for g in pattern.groupindex}
    code, distinct = text_codes(texts)
    return _spread(code, *search_texts(distinct, pattern))


def _distinct(r: RuleRows, rows: np.ndarray) -> tuple[np.ndarray, pa.Array]:
    """The distinct messages of ``rows`` (Arrow text; a null for rows without one) and, per row, the
    position of its message among them: what a rule's patterns are searched over, once per text."""
    used, inverse = np.unique(r.text[rows], return_inverse=True)
    return np.asarray(inverse, dtype=np.int64).reshape(-1), texts_at(r.texts, used)


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


def _sol_rows(r: RuleRows) -> tuple[np.ndarray, np.ndarray]:
    """The SOLBottleneck rows and the verdict each states (object array: NCU_BOTTLENECKS or None)."""
    rows = r.rows("SOLBottleneck")
    at, texts = _distinct(r, rows)
    verdicts = np.full(len(texts), None, dtype=object)
    for pattern, verdict in reversed(_SOL_PATTERNS):  # the first pattern that matches decides: apply it last
        found, groups = search_texts(texts, pattern)
        if verdict:
            verdicts[found] = verdict
        else:
            unit = per_distinct(groups["unit"], lambda u: _UNIT_WORDS.get(u, "compute" if u == "workloads" else None))
            verdicts[found] = unit[found]
    return rows, verdicts[at]


def sol_bottleneck(rules: pd.DataFrame | RuleRows) -> pd.DataFrame:
    """ncu's SOLBottleneck verdict per launch: ncu_bottleneck (NCU_BOTTLENECKS or <NA>), ncu_message.

    Takes ``Report.rules`` (or their ``rule_rows``); index LAUNCH_KEY. A launch with several SOLBottleneck
    rows keeps the first that parses (of the verdicts in name order). Each pattern is searched once per
    distinct message (``parse_sol_bottleneck`` per text)."""
    r = rule_rows(rules)
    rows, verdicts = _sol_rows(r)
    frame = pd.DataFrame(
        {
            "ncu_bottleneck": pd.array(verdicts, dtype="string"),
            "ncu_message": pd.array(r.messages(rows), dtype="string"),
        },
        index=r.keys(rows),
    )
    frame = frame.sort_values("ncu_bottleneck", na_position="last", kind="stable")
    out: pd.DataFrame = frame[~frame.index.duplicated(keep="first")]
    return out


def sol_verdicts(rules: pd.DataFrame | RuleRows, index: pd.Index) -> np.ndarray:
    """``sol_bottleneck``'s ncu_bottleneck per launch of ``index`` (positional object array, None where the
    launch has no SOLBottleneck row that parses), without a frame per rule row."""
    r = rule_rows(rules, index)
    rows, verdicts = _sol_rows(r)
    said = ~pd.isna(verdicts)
    rows, verdicts = rows[said], verdicts[said]
    order = np.argsort(verdicts.astype(str), kind="stable")  # as sol_bottleneck: the verdicts in name order
    first = r.first_per_launch(rows[order], len(index))
    out = np.full(len(index), None, dtype=object)
    have = first >= 0
    by_row = np.full(len(r), None, dtype=object)
    by_row[rows] = verdicts
    out[have] = by_row[first[have]]
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


def _high_pipe_rows(r: RuleRows) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The HighPipeUtilization rows and, per row, ncu_pipe (object), ncu_pipe_pct (float), ncu_pipe_family
    (object)."""
    rows = r.rows("HighPipeUtilization")
    at, texts = _distinct(r, rows)
    idle, _ = search_texts(texts, _PIPES_IDLE)
    top, top_g = search_texts(texts, _PIPE_TOP)
    top &= ~idle
    sub, sub_g = search_texts(texts, _PIPE_SUB)
    inst, inst_g = search_texts(texts, _PIPE_INST)
    family = per_distinct(top_g["pipe"], lambda p: None if p is None else _pipe_family(p))
    family = choose(sub, per_distinct(sub_g["sub"], lambda p: None if p is None else _pipe_family(p)), family)
    inst_family = per_distinct(inst_g["pipe"], lambda p: None if p is None else _pipe_family(p))
    # the FMA pipe busy with FP16 instructions: "is FMA (FP16)"
    family = choose((family == "fp32") & inst & (inst_family == "fp16"), "fp16", family)
    family = choose(pd.isna(family) & inst, inst_family, family)
    family = choose(top, family, choose(idle, "idle", None))
    columns = {
        "ncu_pipe": choose(top, top_g["pipe"], None),
        "ncu_pipe_pct": _numbers(top_g["pct"], top),
        "ncu_pipe_family": family,
    }
    return rows, {k: v[at] for k, v in columns.items()}


def high_pipe(rules: pd.DataFrame | RuleRows) -> pd.DataFrame:
    """ncu's HighPipeUtilization per launch: ncu_pipe (ncu's name), ncu_pipe_pct (0..100), ncu_pipe_family
    (fp64/fp32/fp16/tensor/other, "idle" when ncu calls every pipe under-utilised). Index LAUNCH_KEY."""
    r = rule_rows(rules)
    rows, columns = _high_pipe_rows(r)
    frame = pd.DataFrame(_typed(columns), index=r.keys(rows))
    out: pd.DataFrame = frame[~frame.index.duplicated(keep="first")]
    return out


def _fp_roofline_rows(r: RuleRows) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The SOLFPRoofline rows and, per row, ncu_fp32_pct and ncu_fp64_pct (float)."""
    rows = r.rows("SOLFPRoofline")
    at, texts = _distinct(r, rows)
    found, groups = search_texts(texts, _FP_ROOF)
    columns = {"ncu_fp32_pct": _numbers(groups["fp32"], found), "ncu_fp64_pct": _numbers(groups["fp64"], found)}
    return rows, {k: v[at] for k, v in columns.items()}


def fp_roofline(rules: pd.DataFrame | RuleRows) -> pd.DataFrame:
    """ncu's SOLFPRoofline figures per launch: ncu_fp32_pct, ncu_fp64_pct (0..100). Index LAUNCH_KEY."""
    r = rule_rows(rules)
    rows, columns = _fp_roofline_rows(r)
    frame = pd.DataFrame(columns, index=r.keys(rows), dtype=float)
    out: pd.DataFrame = frame[~frame.index.duplicated(keep="first")]
    return out


def _typed(columns: dict[str, np.ndarray]) -> dict[str, pd.api.extensions.ExtensionArray | np.ndarray]:
    """Object columns as the string dtype, float columns as they are."""
    return {k: pd.array(v, dtype="string") if v.dtype == object else v for k, v in columns.items()}


def _per_launch(r: RuleRows, rows: np.ndarray, columns: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """Per launch of the index (``n``), the columns' values of its first row among ``rows`` (None / NaN
    where it has none)."""
    first = r.first_per_launch(rows, n)
    have = first >= 0
    where = np.searchsorted(rows, first[have])
    out: dict[str, np.ndarray] = {}
    for k, v in columns.items():
        col = np.full(n, None, dtype=object) if v.dtype == object else np.full(n, np.nan)
        col[have] = v[where]
        out[k] = col
    return out


def ncu_pipe_figures(rules: pd.DataFrame | RuleRows, index: pd.Index) -> dict[str, np.ndarray]:
    """``high_pipe`` and ``fp_roofline`` per launch of ``index``, positional: ncu_pipe, ncu_pipe_pct,
    ncu_pipe_family, ncu_fp32_pct, ncu_fp64_pct (object arrays with None, float arrays with NaN)."""
    r = rule_rows(rules, index)
    return {
        **_per_launch(r, *_high_pipe_rows(r), len(index)),
        **_per_launch(r, *_fp_roofline_rows(r), len(index)),
    }


#: CPIStall: "each warp of this workload spends <x> cycles being stalled <what>." and IssueSlotUtilization:
#: "each scheduler only issues an instruction every <y> cycles".
_CPI_STALL = re.compile(r"spends (?P<cycles>[\d.]+) cycles being stalled (?P<what>[^.]+?)\.(?:\s|$)")
_ISSUE_EVERY = re.compile(r"issues an instruction every (?P<cycles>[\d.]+) cycles")


def _cpi_rows(r: RuleRows) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """The CPIStall rows that name a stall, with ncu_stall (object) and ncu_stall_cycles (float) per row,
    and the IssueSlotUtilization rows with their cycles per issue."""
    rows = r.rows("CPIStall")
    at, texts = _distinct(r, rows)
    found, groups = search_texts(texts, _CPI_STALL)
    what = np.full(len(texts), None, dtype=object)
    if found.any():
        what[found] = np.char.strip(groups["what"][found].astype(str)).astype(object)
    said = ~pd.isna(what)[at]
    columns = {"ncu_stall": what[at][said], "ncu_stall_cycles": _numbers(groups["cycles"], found)[at][said]}
    issue = r.rows("IssueSlotUtilization")
    at_issue, issue_texts = _distinct(r, issue)
    every, every_g = search_texts(issue_texts, _ISSUE_EVERY)
    return rows[said], columns, issue, _numbers(every_g["cycles"], every)[at_issue]


def cpi_stall(rules: pd.DataFrame | RuleRows) -> pd.DataFrame:
    """ncu's dominant warp stall per launch, from its CPIStall rule message (the details page says in words
    what the raw page's ``smsp__average_warps_issue_stalled_*`` metrics count): ncu_stall (what the warps wait
    on), ncu_stall_cycles, and ncu_cycles_per_issue (IssueSlotUtilization). Index LAUNCH_KEY."""
    r = rule_rows(rules)
    rows, columns, issue, per_issue = _cpi_rows(r)
    frame = pd.DataFrame(_typed(columns), index=r.keys(rows))
    frame = frame[~frame.index.duplicated(keep="first")]
    per = pd.Series(per_issue, index=r.keys(issue), dtype=float)
    per = per[~per.index.duplicated(keep="first")]
    frame["ncu_cycles_per_issue"] = per.reindex(frame.index).to_numpy(dtype=float)
    return frame


def ncu_stalls(rules: pd.DataFrame | RuleRows, index: pd.Index) -> dict[str, np.ndarray]:
    """``cpi_stall`` per launch of ``index``, positional: ncu_stall (object, None where none),
    ncu_stall_cycles, ncu_cycles_per_issue (float, NaN where none)."""
    r = rule_rows(rules, index)
    rows, columns, issue, per_issue = _cpi_rows(r)
    out = _per_launch(r, rows, columns, len(index))
    stalled = ~pd.isna(out["ncu_stall"])
    per = _per_launch(r, issue, {"ncu_cycles_per_issue": per_issue}, len(index))["ncu_cycles_per_issue"]
    out["ncu_cycles_per_issue"] = np.where(stalled, per, np.nan)
    return out
