"""The HTML page of a diff: one self-contained file (plotly.js embedded, no network), deterministic.

A roofline chart (DRAM level, log-log: FLOP per DRAM byte against achieved FLOP/s) with one arrow per kernel
from its BEFORE point to its AFTER point, the roofs of the precisions on the chart, then the per-kernel table,
hints that appeared or went away, unmatched launches and caveats. Every name is escaped: in the page by
Jinja's autoescaping, in the chart's JSON by escaping ``<``, ``>`` and ``&`` so no text can close the script.
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pandas as pd
from plotly.offline import get_plotlyjs

from ..diff import AFTER_ONLY, BEFORE_ONLY, Diff
from . import fmt as f
from .diffout import group_part, headline, matching_line, roofline_text
from .registry import FunctionRenderer

TEMPLATE = "diff.html.j2"
PLOT_ID = "diff-roofline"
#: Marker colours: faster, slower, unchanged (within NOISE), before.
FASTER, SLOWER, SAME, BEFORE = "#1a9850", "#d73027", "#4d4d4d", "#9e9e9e"
#: A change smaller than this (1 %) is drawn as unchanged.
NOISE = 0.01
#: Characters of the full kernel name shown in a point's hover label.
HOVER_NAME = 120
PRECISION_DASH = {"fp64": "dot", "fp32": "solid", "fp16": "dash", "tensor": "longdash"}


@dataclass(frozen=True)
class KernelRow:
    name: str
    full_name: str
    status: str
    launches: str
    before: str
    after: str
    change: str
    speedup: str
    trend: str  # faster, slower, same, new, removed
    limiter: str
    regime: str
    roofline: str
    hints_appeared: str
    hints_gone: str


@dataclass(frozen=True)
class DiffPage:
    """The view model the template renders: text only, already formatted."""

    title: str
    headline: str
    matching: str
    kernels: list[KernelRow]
    total: KernelRow
    hints: list[dict[str, str]]
    unmatched: list[dict[str, str]]
    caveats: list[str]
    off_chart: list[str]
    #: Why the chart has no arrows (a whole side without roofline points); None when it has them.
    chart_note: str | None
    figure_json: str
    plotly_js: str


def _trend(status: str, change: Any) -> str:
    if status == BEFORE_ONLY:
        return "removed"
    if status == AFTER_ONLY:
        return "new"
    value = f.floating(change)
    if not math.isfinite(value) or abs(value) < NOISE:
        return "same"
    return "slower" if value > 0 else "faster"


def _name(row: Any) -> str:
    return str(row.display_name if not f.missing(row.display_name) else row.kernel)


def _kernel_row(r: Any) -> KernelRow:
    trend = _trend(str(r.status), r.change)
    one = r.status in (BEFORE_ONLY, AFTER_ONLY)  # one side's values alone; a pair's missing side is "–"
    return KernelRow(
        name=_name(r),
        full_name=str(r.kernel),
        status=str(r.status),
        launches=f"{r.before_launches} → {r.after_launches}"
        if r.before_launches != r.after_launches
        else str(r.before_launches),
        before=f.duration_ns(r.before_ns),
        after=f.duration_ns(r.after_ns),
        change=trend if trend in ("new", "removed") else f.change(r.change),
        speedup=f.speedup(r.speedup),
        trend=trend,
        limiter=f.arrow(r.before_limiter, r.after_limiter, one_side=one).replace("->", "→"),
        regime=f.arrow(r.before_regime, r.after_regime, one_side=one).replace("->", "→"),
        roofline=roofline_text(
            r.precision, r.before_flops, r.after_flops, r.before_intensity, r.after_intensity, one_side=one
        ).replace("->", "→"),
        hints_appeared=str(r.hints_appeared) if not f.missing(r.hints_appeared) else "",
        hints_gone=str(r.hints_gone) if not f.missing(r.hints_gone) else "",
    )


def _positive(*values: Any) -> bool:
    return all(math.isfinite(f.floating(v)) and f.floating(v) > 0 for v in values)


def chart_note(diff: Diff) -> str | None:
    """Why the chart has no arrows, when a whole side has no roofline point (None otherwise)."""
    k = diff.kernels
    if not len(k):
        return None
    missing = [
        side.upper()
        for side in ("before", "after")
        if not any(_positive(a, b) for a, b in zip(k[f"{side}_intensity"], k[f"{side}_flops"], strict=True))
    ]
    if not missing:
        return None
    return (
        f"No arrows: {' and '.join(missing)} {'has' if len(missing) == 1 else 'have'} no roofline point (no FLOP "
        "count or no DRAM traffic for any kernel: a page without the roofline metrics). Profile with the "
        "ncu-roofline section files (`ncu-roofline sections`) or --section "
        "SpeedOfLight_HierarchicalSingleRooflineChart to see where each kernel moved."
    )


def figure(diff: Diff) -> tuple[dict[str, Any], list[str]]:
    """The plotly figure (as a plain dict) and the kernels that have no point on it (no FLOPs)."""
    k = diff.kernels
    traces: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    off_chart: list[str] = []
    xs: list[float] = []
    ys: list[float] = []
    pts: dict[str, dict[str, list[Any]]] = {
        side: {"x": [], "y": [], "text": [], "color": []} for side in ("before", "after")
    }
    for r in k.itertuples(index=False):
        name = html.escape(_name(r))
        has_b = _positive(r.before_intensity, r.before_flops)
        has_a = _positive(r.after_intensity, r.after_flops)
        if not has_b and not has_a:
            off_chart.append(_name(r))
            continue
        trend = _trend(str(r.status), r.change)
        color = {"faster": FASTER, "slower": SLOWER}.get(trend, SAME)
        full = html.escape(f.shorten(str(r.kernel), HOVER_NAME))
        label = (
            f"<b>{name}</b><br>{full}<br>"
            f"{html.escape(f.duration_ns(r.before_ns))} → {html.escape(f.duration_ns(r.after_ns))}"
            f" ({html.escape(trend if trend in ('new', 'removed') else f.change(r.change))})"
            f"<br>{html.escape(str(r.precision))}"
        )
        for side, ok in (("before", has_b), ("after", has_a)):
            if ok:
                x, y = f.floating(getattr(r, f"{side}_intensity")), f.floating(getattr(r, f"{side}_flops"))
                pts[side]["x"].append(x)
                pts[side]["y"].append(y)
                pts[side]["text"].append(f"{label}<br>{side}: {f.si(y, 'FLOP/s')} at {f.si(x, 'FLOP/B')}")
                pts[side]["color"].append(BEFORE if side == "before" else color)
                xs.append(x)
                ys.append(y)
        if has_b and has_a:
            annotations.append(
                {
                    "x": math.log10(f.floating(r.after_intensity)),
                    "y": math.log10(f.floating(r.after_flops)),
                    "ax": math.log10(f.floating(r.before_intensity)),
                    "ay": math.log10(f.floating(r.before_flops)),
                    "xref": "x",
                    "yref": "y",
                    "axref": "x",
                    "ayref": "y",
                    "showarrow": True,
                    "arrowhead": 2,
                    "arrowsize": 1.2,
                    "arrowwidth": 1.5,
                    "arrowcolor": color,
                    "text": "",
                }
            )
    if xs:
        lo, hi = min(xs) / 10.0, max(xs) * 10.0
        traces += _roofs(k, lo, hi, ys)
    for side in ("before", "after"):
        p = pts[side]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": side.upper(),
                "x": p["x"],
                "y": p["y"],
                "text": p["text"],
                "hovertemplate": "%{text}<extra></extra>",
                "marker": {
                    "size": 9,
                    "color": p["color"],
                    "symbol": "circle-open" if side == "before" else "circle",
                    "line": {"width": 2},
                },
            }
        )
    layout = {
        "xaxis": {"type": "log", "title": {"text": "arithmetic intensity (FLOP per DRAM byte)"}},
        "yaxis": {"type": "log", "title": {"text": "achieved FLOP/s"}},
        "annotations": annotations,
        "height": 560,
        "margin": {"l": 70, "r": 20, "t": 30, "b": 60},
        "legend": {"orientation": "h"},
        "template": None,
    }
    return {"data": traces, "layout": layout}, off_chart


def _roofs(k: pd.DataFrame, lo: float, hi: float, ys: list[float]) -> list[dict[str, Any]]:
    """One roof line per precision on the chart: min(peak FLOP/s, intensity x DRAM bandwidth)."""
    out: list[dict[str, Any]] = []
    bw = k["peak_bytes_per_s"].dropna()
    if bw.empty:
        return out
    bandwidth = float(bw.median())
    for prec, group in k.dropna(subset=["precision", "peak_flops"]).groupby("precision", sort=True):
        peak = float(group["peak_flops"].median())
        ridge = peak / bandwidth
        x = [lo, *([ridge] if lo < ridge < hi else []), hi]
        y = [min(peak, xi * bandwidth) for xi in x]
        out.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"{prec} roof ({f.si(peak, 'FLOP/s')}, DRAM {f.si(bandwidth, 'B/s')})",
                "x": x,
                "y": y,
                "hoverinfo": "name",
                "line": {"color": "#777777", "width": 1, "dash": PRECISION_DASH.get(str(prec), "solid")},
            }
        )
    return out


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no ``<``, ``>`` or ``&`` characters at all."""
    text = json.dumps(value, sort_keys=True, allow_nan=False, default=_json_default)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _json_default(value: Any) -> Any:
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    raise TypeError(f"not JSON: {type(value).__name__}")


def view(diff: Diff, *, title: str | None = None, top: int | None = None) -> DiffPage:
    """The view model of the page (``top``: at most that many kernels in the table; all by default)."""
    fig, off = figure(diff)
    k = diff.kernels if top is None else diff.kernels.head(top)
    t = diff.total
    total = KernelRow(
        name="whole program",
        full_name="",
        status="",
        launches=f"{t.before_launches} → {t.after_launches}"
        if t.before_launches != t.after_launches
        else str(t.before_launches),
        before=f.duration_ns(t.before_ns),
        after=f.duration_ns(t.after_ns),
        change=f.change(t.change),
        speedup=f.speedup(t.speedup),
        trend=_trend("matched", t.change),
        limiter="",
        regime="",
        roofline="",
        hints_appeared="",
        hints_gone="",
    )
    hints = [
        {
            "kernel": _name(r),
            "sign": "+" if r.status == "appeared" else "−",
            "status": str(r.status),
            "hint": str(r.hint),
            "severity": str(r.severity),
            "message": "" if f.missing(r.message) else str(r.message),
            "comparable": "" if r.comparable else "the other report may not have measured what this hint needs",
        }
        for r in diff.hints.itertuples(index=False)
    ]
    unmatched = []
    for r in diff.unmatched.itertuples(index=False):
        side = "before" if r.status == BEFORE_ONLY else "after"
        unmatched.append(
            {
                "side": "only in BEFORE" if side == "before" else "only in AFTER",
                "kernel": _name(r),
                "full_name": str(r.kernel),
                "report": str(getattr(r, f"{side}_report")),
                "launch": str(getattr(r, f"{side}_launch_id")) + group_part(r.invocations),
                "nvtx": "" if f.missing(r.nvtx_path) else str(r.nvtx_path),
                "duration": f.duration_ns(getattr(r, f"{side}_duration_ns")),
            }
        )
    return DiffPage(
        title=title or f"{diff.before_name} → {diff.after_name}",
        headline=headline(diff).replace("->", "→"),
        matching=matching_line(diff),
        kernels=[_kernel_row(r) for r in k.itertuples(index=False)],
        total=total,
        hints=hints,
        unmatched=unmatched,
        caveats=list(diff.caveats),
        off_chart=off,
        chart_note=chart_note(diff),
        figure_json=_script_json(fig),
        plotly_js=get_plotlyjs(),
    )


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def render_diff_html(diff: Diff, *, title: str | None = None, top: int | None = None) -> str:
    """The self-contained HTML page of a diff."""
    page = view(diff, title=title, top=top)
    return _environment().get_template(TEMPLATE).render(page=page, plot_id=PLOT_ID)


HTML: FunctionRenderer[Diff] = FunctionRenderer("html", ".html", lambda d, o: render_diff_html(d, title=o.title))
