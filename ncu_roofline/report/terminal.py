"""Interim: replaced by the report issue's renderer. The terminal summary of an analysis, kept tiny so the
command line can be built and tested on its own: GPU time by limiter, then the kernels with the most GPU time."""

from __future__ import annotations

from ..aggregate import kernel_groups
from ..analysis import Analysis, time_by
from . import textfmt as f


def render_terminal(analysis: Analysis, *, top: int = 15, width: int | None = None, color: bool = False) -> str:
    """GPU time by limiter and the ``top`` kernels by GPU time (``width``: cut names to fit; ``color``: unused)."""
    groups = kernel_groups(analysis)
    total = float(groups["duration_ns"].sum())
    lines = [f"{len(analysis.launches)} launches of {len(groups)} kernels, {f.duration(total)} of GPU time", ""]
    by = time_by(analysis, "limiter")
    limiter_rows = [
        [
            f.arrow(r.limiter, None),
            f.duration(f.number(r.duration_s) * 1e9),
            f"{f.number(r.share):.1%}",
            str(r.launches),
        ]
        for r in by.itertuples()
    ]
    lines += f.table(["limiter", "GPU time", "share", "launches"], limiter_rows, [False, True, True, True])
    name_width = max(16, (width or 120) - 60)
    rows = [
        [
            f.shorten(str(r.display_name), name_width),
            str(r.launches),
            f.duration(r.duration_ns),
            f"{f.number(r.share):.1%}",
            f.arrow(r.limiter, None),
            f.arrow(r.regime, None),
        ]
        for r in groups.head(top).itertuples()
    ]
    headers = ["kernel", "launches", "GPU time", "share", "limiter", "regime"]
    lines += ["", *f.table(headers, rows, [False, True, True, True, False, False])]
    if len(groups) > top:
        lines.append(f"... and {len(groups) - top} more kernels")
    return "\n".join(lines) + "\n"
