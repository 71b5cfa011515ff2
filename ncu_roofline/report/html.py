"""Interim: replaced by the report issue's renderer. A minimal self-contained HTML page of an analysis (one table
of launches with their verdicts), kept tiny so the command line can be built and tested on its own."""

from __future__ import annotations

import html

from ..analysis import Analysis
from . import textfmt as f


def render_html(analysis: Analysis, *, title: str | None = None) -> str:
    """An HTML page: title, and one row per launch (kernel, duration, limiter, regime, reason); names escaped."""
    name = title or "+".join(str(r) for r in analysis.report.source["report"]) or "ncu-roofline"
    rows = []
    for lrow, vrow in zip(analysis.launches.itertuples(), analysis.verdicts.itertuples(), strict=True):
        cells = [lrow.display_name, f.duration(lrow.duration_ns), vrow.limiter, vrow.regime, vrow.reason]
        rows.append("<tr>" + "".join(f"<td>{html.escape(f.arrow(c, None))}</td>" for c in cells) + "</tr>")
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>{html.escape(name)}</title></head>\n'
        f"<body>\n<h1>{html.escape(name)}</h1>\n<table>\n"
        "<tr><th>kernel</th><th>duration</th><th>limiter</th><th>regime</th><th>why</th></tr>\n"
        + "\n".join(rows)
        + "\n</table>\n</body>\n</html>\n"
    )
