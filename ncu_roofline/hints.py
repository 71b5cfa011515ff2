"""Diagnostic hints: a registry of small, pure rules over one launch's quantities.

Each rule looks at one launch (its quantities, its verdict, its roofline rows) and returns zero or one
:class:`Hint`, with the evidence that triggered it (metric, value, threshold) and what to do. Adding a hint
is adding one decorated function. ncu's own rule results ride along in the hints frame, marked as ncu's.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .model import LAUNCH_KEY

SEVERITIES = ("high", "medium", "low", "info")

HINT_COLUMNS: dict[str, str] = {
    "report": "string",
    "process_id": "Int64",
    "launch_id": "Int64",
    "hint": "string",
    "severity": "string",
    "source": "string",
    "message": "string",
    "advice": "string",
    "evidence": "string",  # JSON list of {metric, value, threshold, op}
    "estimated_speedup": "float64",  # fraction of this launch's time a fix could save (0..1), where known
}


@dataclass(frozen=True)
class Evidence:
    metric: str
    value: float
    threshold: float
    op: str  # ">", "<", ">=", "<="

    def as_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "value": _clean(self.value), "threshold": self.threshold, "op": self.op}


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
    """What a rule sees of one launch: quantities (base units), verdict fields, roofline rows, launch row."""

    q: dict[str, float]
    verdict: dict[str, Any]
    launch: dict[str, Any]
    roofline: pd.DataFrame
    repeats: int  # launches of the same kernel name in the report


Rule = Callable[[LaunchView], Hint | None]
RULES: dict[str, Rule] = {}


def rule(hint_id: str) -> Callable[[Rule], Rule]:
    """Register a hint rule under its id."""

    def deco(fn: Rule) -> Rule:
        RULES[hint_id] = fn
        return fn

    return deco


def _clean(v: float) -> float | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def _ok(*values: float) -> bool:
    return all(v is not None and not math.isnan(v) for v in values)


# --------------------------------------------------------------------------------------------- thresholds

#: Spilling: any spill instruction is worth a look; this many per launch makes it a finding.
SPILL_INSTRUCTIONS = 1.0
#: Achieved occupancy under this fraction of the theoretical one (ncu's AchievedOccupancy rule compares the
#: two, and flags a gap as load imbalance or tail effects).
OCCUPANCY_GAP = 0.80
#: Theoretical occupancy under this % limits latency hiding (a quarter of the SM's warps).
LOW_OCCUPANCY_PCT = 25.0
#: Sectors per global request for 4-byte accesses by a full warp: 4 (32 threads x 4 B / 32 B sectors).
IDEAL_SECTORS_PER_REQUEST = 4.0
#: Flag uncoalesced access at twice the ideal.
UNCOALESCED_FACTOR = 2.0


@rule("register_spilling")
def register_spilling(v: LaunchView) -> Hint | None:
    spills = v.q.get("spill_instructions", math.nan)
    local = v.q.get("local_load_sectors", math.nan) + v.q.get("local_store_sectors", math.nan)
    if not _ok(spills) or spills < SPILL_INSTRUCTIONS:
        return None
    regs = v.q.get("registers_per_thread", math.nan)
    ev = [Evidence("sass__inst_executed_register_spilling", spills, SPILL_INSTRUCTIONS, ">=")]
    if _ok(local):
        ev.append(Evidence("local memory sectors (ld+st)", local, 0.0, ">"))
    regs_text = f" at {regs:.0f} registers/thread" if _ok(regs) else ""
    return Hint(
        "register_spilling",
        "high",
        f"{spills:,.0f} instructions spill registers to local memory{regs_text}",
        "Raise the register budget (__launch_bounds__ with fewer threads per block, or -maxrregcount), "
        "shrink per-thread arrays indexed at run time, or move them to shared memory.",
        tuple(ev),
    )


@rule("uncoalesced_global_access")
def uncoalesced_global_access(v: LaunchView) -> Hint | None:
    sectors = v.q.get("global_load_sectors", math.nan)
    requests = v.q.get("global_load_requests", math.nan)
    if not _ok(sectors, requests) or requests <= 0:
        return None
    per = sectors / requests
    limit = IDEAL_SECTORS_PER_REQUEST * UNCOALESCED_FACTOR
    if per < limit:
        return None
    return Hint(
        "uncoalesced_global_access",
        "high",
        f"{per:.1f} sectors per global load request (ideal {IDEAL_SECTORS_PER_REQUEST:.0f} for 4-byte loads)",
        "Make consecutive threads read consecutive addresses (structure-of-arrays layout, transpose through "
        "shared memory, or vector loads).",
        (Evidence("global load sectors / requests", per, limit, ">="),),
        estimated_speedup=max(0.0, 1.0 - IDEAL_SECTORS_PER_REQUEST / per),
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
    """ncu's own rule results (optimisation and warning messages) as hints marked source='ncu'."""
    r = rules[rules["type"].isin(["OPT", "WRN", "ERR"])]
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
