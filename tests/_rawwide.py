"""An independent reader of ncu ``--page raw`` CSV -> the wide ``Report.values`` frame, for tests only.

The roofline, chart and device tests take ncu's numbers through it rather than through ``ncu_roofline.read``,
so their golden values never come from the reader under test (and a reader bug shows as a disagreement
between the two). It follows the same contract (``ncu_roofline.model``):
index ``(report, process_id, launch_id)``, one float column per ncu metric name, base SI units
(decimal prefixes), percentages 0..100. String-valued metrics (``device__attribute_display_name``) are
returned separately by ``raw_texts``; ``raw_rounding`` gives each cell's printing precision.
"""

from __future__ import annotations

import csv
import functools
import re
from pathlib import Path

import numpy as np
import pandas as pd

SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "ncu-samples"  # ../shared beside the checkout
RAW = {
    "micro_full": SAMPLES / "h200-micro" / "micro_full.raw.csv",
    "micro_roof": SAMPLES / "h200-micro" / "micro_roof.raw.csv",
    "llm_full": SAMPLES / "h200-llm" / "llm_full.raw.csv",
    "train_step": SAMPLES / "h200-train" / "train_step.raw.csv",
}
DETAILS_ALL = {
    "micro_full": SAMPLES / "h200-micro" / "micro_full.details-all.csv",
    "micro_roof": SAMPLES / "h200-micro" / "micro_roof.details-all.csv",
    "llm_full": SAMPLES / "h200-llm" / "llm_full.details-all.csv",
}

# Identity columns of the raw page (everything before the first metric column); NVTX columns vary.
_ID_COLUMNS = {
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
}

_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_TIME = {
    "ns": 1e-9,
    "us": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "nsecond": 1e-9,
    "usecond": 1e-6,
    "msecond": 1e-3,
    "second": 1.0,
}


def unit_factor(unit: str) -> float:
    """Multiplier from ``unit`` (as ncu prints it) to the base unit; KeyError for units not understood."""
    u = unit.strip()
    if u == "":
        return 1.0
    if u in _TIME:
        return _TIME[u]
    num, _, den = u.partition("/")
    factor = 1.0
    m = re.fullmatch(r"([KMGTP]?)(byte|hz|inst|sector|thread|warp|cycle|request|block)s?", num)
    if m:
        factor *= _PREFIX[m.group(1)]
    elif num.lower() in {"%", "sm", "branches", "cluster", "pass", "register", "sample", "sectors"}:
        pass
    else:
        raise KeyError(unit)
    if den:
        if den in _TIME:
            factor /= _TIME[den]
        elif den in {"Kbyte", "Mbyte"}:
            factor /= _PREFIX[den[0]]
        elif den in {"cycle", "block", "thread", "register", "sector", "byte", "SM"}:
            pass
        else:
            raise KeyError(unit)
    return factor


def parse_number(text: str) -> float:
    """An en-locale ncu number ("1,056", "1056.000000", "n/a", "") as float (NaN when not a number)."""
    t = text.strip().replace(",", "")
    if t in {"", "n/a"}:
        return float("nan")
    try:
        return float(t)
    except ValueError:
        return float("nan")


def half_ulp(text: str) -> float:
    """Half a unit in the last printed digit of a number as printed ("1.94" -> 0.005, "16,896" -> 0.5)."""
    t = text.strip().replace(",", "")
    decimals = len(t.split(".")[1]) if "." in t else 0
    return 0.5 * 10.0 ** (-decimals)


@functools.cache
def _read(report: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    with RAW[report].open(newline="") as f:
        rows = list(csv.reader(f))
    names, units, body = rows[0], rows[1], rows[2:]
    metric_cols = [i for i, n in enumerate(names) if n not in _ID_COLUMNS and ":" not in n]
    idx = pd.MultiIndex.from_arrays(
        [
            [report] * len(body),
            [int(r[names.index("Process ID")]) for r in body],
            [int(r[names.index("ID")]) for r in body],
        ],
        names=["report", "process_id", "launch_id"],
    )
    data = np.full((len(body), len(metric_cols)), np.nan)
    err = np.full((len(body), len(metric_cols)), np.nan)
    texts: dict[str, list[str]] = {}
    for j, i in enumerate(metric_cols):
        f = unit_factor(units[i])
        for k, r in enumerate(body):
            v = parse_number(r[i])
            data[k, j] = v * f
            err[k, j] = half_ulp(r[i]) * f
            if np.isnan(v) and r[i].strip() not in {"", "n/a"}:
                texts.setdefault(names[i], [""] * len(body))[k] = r[i]
    cols = [names[i] for i in metric_cols]
    values = pd.DataFrame(data, index=idx, columns=cols)
    errors = pd.DataFrame(err, index=idx, columns=cols)
    keep = ~values.columns.duplicated()
    values, errors = values.loc[:, keep], errors.loc[:, keep]
    for i in range(len(names)):
        if names[i] in {"Device", "CC"}:
            texts[names[i]] = [r[i] for r in body]
    return values.sort_index(), pd.DataFrame(texts, index=idx).sort_index(), errors.sort_index()


def raw_wide(report: str) -> pd.DataFrame:
    """The wide numeric view of one sample's raw page (a copy, safe to modify)."""
    return _read(report)[0].copy()


def raw_rounding(report: str) -> pd.DataFrame:
    """Per cell, half a unit in the last printed digit, in base units (the raw page's own rounding)."""
    return _read(report)[2].copy()


def raw_texts(report: str) -> pd.DataFrame:
    """String-valued cells of the raw page (e.g. ``device__attribute_display_name``), same index."""
    return _read(report)[1].copy()
