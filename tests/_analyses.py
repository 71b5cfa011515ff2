"""Analyses of the real samples, computed once per test session, and variants made from them (a kernel with a
hostile name, every verdict missing, no launches) for the report's tests."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
from conftest import analysed, data

from ncu_roofline.analysis import Analysis

#: A kernel name that must not break the page: closes the script block, opens a new one, and carries markup.
HOSTILE = 'k<float></script><script>window.__pwned=1</script><b onmouseover="x">|`*_[x]</b>'


def sample(name: str) -> Analysis:
    """The analysis of one sample export (``train_step.raw.csv``, ``micro_full.raw.csv``, ...), made once per
    session (``conftest.analysed``: shared, never to be changed; the variants below copy what they change)."""
    return analysed(data(name))


def hostile(base: Analysis, launch_id: int = 0) -> Analysis:
    """``base`` with one launch's kernel (and its hints' messages) given the HOSTILE name."""
    launches = base.launches.copy()
    at = launches["launch_id"] == launch_id
    launches.loc[at, "kernel_name"] = HOSTILE
    launches.loc[at, "display_name"] = HOSTILE
    hints = base.hints.copy()
    if len(hints):
        hints.loc[hints["launch_id"] == launch_id, "message"] = HOSTILE
    return replace(base, launches=launches, hints=hints)


def all_missing(base: Analysis) -> Analysis:
    """``base`` with every number and verdict missing: NaN durations, NA verdicts, NaN roofline, no hints."""
    launches = base.launches.copy()
    launches["duration_ns"] = np.nan
    launches["nvtx_path"] = pd.array([None] * len(launches), dtype="string")
    verdicts = base.verdicts.copy()
    for c in verdicts.columns:
        if c not in ("report", "process_id", "launch_id"):
            verdicts[c] = pd.array([None] * len(verdicts), dtype=verdicts[c].dtype)
    quantities = base.quantities.copy() * np.nan
    roof = base.roofline.copy()
    for c in roof.columns:
        if roof[c].dtype == "float64":
            roof[c] = np.nan
    util = base.utilization.iloc[0:0]
    return replace(
        base,
        launches=launches,
        verdicts=verdicts,
        quantities=quantities,
        roofline=roof,
        utilization=util,
        hints=base.hints.iloc[0:0],
    )


def no_launches(base: Analysis) -> Analysis:
    """``base`` with every frame emptied (columns and dtypes kept)."""
    return replace(
        base,
        launches=base.launches.iloc[0:0],
        quantities=base.quantities.iloc[0:0],
        peaks=base.peaks.iloc[0:0],
        roofline=base.roofline.iloc[0:0],
        utilization=base.utilization.iloc[0:0],
        verdicts=base.verdicts.iloc[0:0],
        hints=base.hints.iloc[0:0],
    )
