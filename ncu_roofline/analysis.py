"""The facade: a Report in, an Analysis out (peaks, roofline, verdicts, utilisation, hints, rollups).

Pure: nothing here prints or plots. Each frame is keyed by LAUNCH_KEY (report, process_id, launch_id).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .classify import classify, utilization
from .device import resolve_peaks
from .hints import LaunchView, ncu_rule_hints, run_rules
from .model import LAUNCH_KEY, Report, launch_index
from .quantities import quantities
from .roofline import roofline


@dataclass
class Analysis:
    """Everything ncu-roofline concludes about a report.

    ``launches``: the report's launches plus ``duration_ns`` and ``device_name``.
    ``quantities``: launch x quantity (``ncu_roofline.quantities``), index LAUNCH_KEY.
    ``peaks``: per launch, every peak figure and its source (``ncu_roofline.device.resolve_peaks``).
    ``roofline``: ROOFLINE_COLUMNS, one row per launch x precision x level.
    ``utilization``: long, per launch and unit, 0..1, with the source of the figure.
    ``verdicts``: VERDICT_COLUMNS, one row per launch: limiter, compute_pipe, regime, why.
    ``hints``: HINT_COLUMNS, ours and ncu's rule results.
    """

    report: Report
    launches: pd.DataFrame
    quantities: pd.DataFrame
    peaks: pd.DataFrame
    roofline: pd.DataFrame
    utilization: pd.DataFrame
    verdicts: pd.DataFrame
    hints: pd.DataFrame


def device_names(report: Report) -> pd.Series:
    """The GPU name per launch (``device__attribute_display_name``, or the session page), index LAUNCH_KEY."""
    index = launch_index(report.launches)
    names = pd.Series(pd.NA, index=index, dtype="string")
    m = report.metrics
    hit = m[m["metric"] == "device__attribute_display_name"]
    if len(hit):
        per = pd.Series(hit["text"].to_numpy(), index=launch_index(hit)).groupby(level=[0, 1, 2]).first()
        names = names.fillna(per.reindex(index).astype("string"))
    s = report.session
    display = s[s["attribute"] == "display_name"]["value"]
    if len(display) == 1:
        names = names.fillna(str(display.iloc[0]))
    return names


def analyze(
    report: Report,
    *,
    device: str | None = None,
    peaks: Mapping[str, float] | None = None,
) -> Analysis:
    """Analyse every launch of ``report``.

    ``device``: GPU name for the built-in peak table, used only for figures the report lacks (default: the
    name the report carries). ``peaks``: overrides, figure -> value in base units (e.g. ``dram_bytes_per_s``).
    """
    values = report.values
    index = launch_index(report.launches)
    values = values.reindex(index)
    quant = quantities(values)
    names = device_names(report)
    dev: str | pd.Series | None = device if device is not None else (names if names.notna().any() else None)
    peak_frame = resolve_peaks(values, dev, peaks)
    roof = roofline(values, peak_frame)
    util = utilization(quant, roof)
    verdicts = classify(quant, roof)

    launches = report.launches.copy()
    launches["duration_ns"] = quant["duration"].to_numpy() * 1e9
    launches["device_name"] = names.to_numpy()

    repeats = launches.groupby(["report", "kernel_name"], dropna=False)["launch_id"].transform("size")
    views = []
    qrec = quant.to_dict(orient="records")
    vrec = verdicts.to_dict(orient="records")
    lrec = launches.to_dict(orient="records")
    by_launch = {k: g for k, g in roof.groupby(list(LAUNCH_KEY), dropna=False, sort=False)}
    empty = roof.iloc[0:0]
    for i, key in enumerate(index):
        views.append(
            (
                tuple(key),
                LaunchView(
                    q={k: float(v) for k, v in qrec[i].items()},
                    verdict=vrec[i],
                    launch=lrec[i],
                    roofline=by_launch.get(tuple(key), empty),
                    repeats=int(repeats.iloc[i]),
                ),
            )
        )
    hints = pd.concat([run_rules(views), ncu_rule_hints(report.rules)], ignore_index=True)
    return Analysis(
        report=report,
        launches=launches,
        quantities=quant,
        peaks=peak_frame,
        roofline=roof,
        utilization=util,
        verdicts=verdicts,
        hints=hints,
    )


def time_by(analysis: Analysis, column: str) -> pd.DataFrame:
    """GPU time per value of a verdict column (limiter or regime): seconds, share of the total, launches."""
    v = analysis.verdicts.copy()
    v["duration_s"] = analysis.quantities["duration"].to_numpy()
    g = v.groupby(column, dropna=False).agg(duration_s=("duration_s", "sum"), launches=("launch_id", "size"))
    total = float(np.nansum(v["duration_s"]))
    g["share"] = g["duration_s"] / total if total > 0 else np.nan
    result: pd.DataFrame = g.sort_values("duration_s", ascending=False).reset_index()
    return result
