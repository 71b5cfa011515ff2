"""The limiter and regime of each launch, from the roofline fractions and the Speed Of Light throughputs.

``limiter`` is the unit closest to its roof: hbm, l2, l1 or compute (with ``compute_pipe``: fp64, fp32, fp16,
tensor or other). ``regime`` says whether that roof is what holds the kernel back (``bound``), or whether it
runs far below every roof (``latency``), or is too short and small for any roof to matter (``launch``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .model import LAUNCH_KEY

#: A unit at or above this share of its peak holds the kernel (ncu's SOLBottleneck rule calls >= 60 %
#: "high" and below it "latency"; the ncu Profiling Guide uses the same 60 % line).
BOUND_THRESHOLD = 0.60
#: Launch overhead: a kernel this short spends a comparable time in launch latency (a CUDA launch costs
#: 2-5 us of host/driver time; kernels under ~5 us are dominated by it).
LAUNCH_DURATION_S = 5e-6
#: ... and whose busiest unit is this idle is launch-bound rather than latency-bound.
LAUNCH_UTILIZATION = 0.20

UNITS = ("dram", "l2", "l1", "sm")
LIMITERS = ("hbm", "l2", "l1", "compute")
REGIMES = ("bound", "latency", "launch")
PIPES = ("fp64", "fp32", "fp16", "tensor", "other")

VERDICT_COLUMNS: dict[str, str] = {
    "report": "string",
    "process_id": "Int64",
    "launch_id": "Int64",
    "limiter": "string",
    "compute_pipe": "string",
    "regime": "string",
    "utilization": "float64",
    "basis": "string",
    "reason": "string",
    "missing": "string",
}


def utilization(quant: pd.DataFrame, roof: pd.DataFrame) -> pd.DataFrame:
    """Long per-unit utilisation (0..1): KEY, unit, value, source.

    Units: dram, l2, l1, sm from Speed Of Light; fp64/fp32/fp16/tensor from the roofline's compute fraction;
    pipe_* from the per-pipe instruction throughputs."""
    rows = []
    sol = {"dram": "dram_throughput_pct", "l2": "l2_throughput_pct", "l1": "l1_throughput_pct",
           "sm": "sm_throughput_pct"}  # fmt: skip
    for unit, col in sol.items():
        rows.append(_long(quant[col] / 100.0, unit, "speed-of-light"))
    for col in [c for c in quant.columns if c.startswith("pipe_")]:
        rows.append(_long(quant[col] / 100.0, col, "pipe"))
    if len(roof):
        r = roof[roof["level"] == "dram"]
        for prec in ("fp64", "fp32", "fp16", "tensor"):
            part = r[r["precision"] == prec].set_index(list(LAUNCH_KEY))["compute_fraction"]
            rows.append(_long(part.reindex(quant.index), prec, "roofline"))
        for level, unit in (("dram", "dram_roof"), ("l2", "l2_roof"), ("l1", "l1_roof")):
            part = roof[(roof["level"] == level) & (roof["precision"] == "fp32")]
            bw = part.set_index(list(LAUNCH_KEY))["bandwidth_fraction"]
            rows.append(_long(bw.reindex(quant.index), unit, "roofline"))
    frame = pd.concat(rows, ignore_index=True)
    return frame[frame["value"].notna()].reset_index(drop=True)


def _long(s: pd.Series, unit: str, source: str) -> pd.DataFrame:
    keys = s.index.to_frame(index=False)
    return pd.DataFrame(
        {
            "report": keys["report"].astype("string"),
            "process_id": keys["process_id"].astype("Int64"),
            "launch_id": keys["launch_id"].astype("Int64"),
            "unit": unit,
            "value": s.to_numpy(dtype=float),
            "source": source,
        }
    )


def classify(quant: pd.DataFrame, roof: pd.DataFrame) -> pd.DataFrame:
    """One verdict per launch (VERDICT_COLUMNS), same order as ``quant``.

    Takes the quantities frame (``ncu_roofline.quantities``) and the roofline frame."""
    n = len(quant)
    sol = pd.DataFrame(
        {
            "hbm": quant["dram_throughput_pct"] / 100.0,
            "l2": quant["l2_throughput_pct"] / 100.0,
            "l1": quant["l1_throughput_pct"] / 100.0,
            "compute": quant["sm_throughput_pct"] / 100.0,
        },
        index=quant.index,
    )
    have = sol.notna().any(axis=1).to_numpy()
    best = sol.fillna(-1).to_numpy()
    idx = best.argmax(axis=1)
    top = best[np.arange(n), idx]
    limiter = np.array(LIMITERS, dtype=object)[idx]
    duration = quant["duration"].to_numpy()
    regime = np.where(top >= BOUND_THRESHOLD, "bound", "latency").astype(object)
    short = (duration < LAUNCH_DURATION_S) & (top < LAUNCH_UTILIZATION)
    regime[short] = "launch"
    pipe = _compute_pipe(quant, roof)
    out = pd.DataFrame(
        {
            "limiter": np.where(have, limiter, None),
            "compute_pipe": np.where(have & (limiter == "compute"), pipe, None),
            "regime": np.where(have, regime, None),
            "utilization": np.where(have, top, np.nan),
            "basis": np.where(have, "speed-of-light", None),
            "reason": [
                f"{lim} at {u:.0%} of its peak" if h else None
                for lim, u, h in zip(limiter, top, have, strict=True)
            ],
            "missing": np.where(have, None, "Speed Of Light throughputs (ncu --section SpeedOfLight)"),
        },
        index=quant.index,
    )
    keys = quant.index.to_frame(index=False)
    out = out.reset_index(drop=True)
    for k in LAUNCH_KEY:
        out[k] = keys[k].to_numpy()
    result: pd.DataFrame = out[list(VERDICT_COLUMNS)].astype(VERDICT_COLUMNS)
    return result


def _compute_pipe(quant: pd.DataFrame, roof: pd.DataFrame) -> np.ndarray:
    """The FLOP precision doing most of its peak, or 'other' when no FP roof is near (integer/issue work)."""
    n = len(quant)
    if not len(roof):
        return np.full(n, "other", dtype=object)
    r = roof[roof["level"] == "dram"].pivot_table(
        index=list(LAUNCH_KEY), columns="precision", values="compute_fraction", dropna=False, observed=False
    )
    r = r.reindex(quant.index)
    cols = [c for c in ("fp64", "fp32", "fp16", "tensor") if c in r.columns]
    if not cols:
        return np.full(n, "other", dtype=object)
    arr = r[cols].fillna(0).to_numpy()
    best = arr.argmax(axis=1)
    frac = arr[np.arange(n), best]
    pipes = np.array(cols, dtype=object)[best]
    return np.where(frac >= 0.10, pipes, "other")
