"""Plotly figures of the report, built from the view model (``ncu_roofline.report.viewmodel``).

- :func:`roofline_figure`: the hierarchical roofline of one precision: DRAM, L2 and L1 bandwidth roofs and the
  compute roof (one per tensor data type), ridge points labelled; each launch at each level, the three points
  of one launch joined as ncu's hierarchical chart joins them; marker size by duration, colour by limiter,
  symbol by level; log-log axes in FLOP/byte and FLOP/s. Above ``WEBGL_THRESHOLD`` points the launches are
  drawn with WebGL (``scattergl``).
- :func:`time_figure`: GPU time by limiter and by regime, as two 100 % stacked bars.

Figures only place and style what the view model holds; marker sizes and axis ranges are the only numbers
made here, and they are visual.
"""

from __future__ import annotations

import base64
import html
import json
import math
import pkgutil
from functools import cache
from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..vocabulary import LEVEL_LABELS, LEVELS, LIMITERS, Level
from . import fmt
from .viewmodel import (
    UNBOUND_LABELS,
    ReportView,
    RooflinePanel,
    RooflinePoints,
    TimeShare,
    limiter_color,
)

#: Above this many points on one chart the launches are drawn with WebGL: SVG stays responsive to a few
#: thousand markers; WebGL to hundreds of thousands.
WEBGL_THRESHOLD = 3000
#: Up to this many launches on one chart, the three points of each launch are joined by a line; above it the
#: lines would hide the points (and cost as much to draw as the points).
JOIN_LIMIT = 2000
#: Each log axis spans at least this many decades (a chart of one launch still reads as a roofline).
MIN_DECADES = 3.0
#: Marker symbol per memory level (plotly symbol numbers: circle, square, triangle-up).
LEVEL_SYMBOLS = {Level.DRAM.value: 0, Level.L2.value: 1, Level.L1.value: 5}
LEVEL_GLYPHS = {Level.DRAM.value: "●", Level.L2.value: "■", Level.L1.value: "▲"}
#: Marker diameter in px for the shortest and the longest launch (area grows with duration).
MARKER_MIN, MARKER_MAX = 5.0, 24.0
ROOF_COLOR = "#3a3a3a"
LEVEL_DASH = {Level.DRAM.value: "solid", Level.L2.value: "dash", Level.L1.value: "dot"}
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
#: Plotly's ``config`` for every figure: no logo, no links out, a PNG button that names the file.
CONFIG: dict[str, Any] = {
    "displaylogo": False,
    "responsive": True,
    "showLink": False,
    "showSendToCloud": False,
    "modeBarButtonsToRemove": ["lasso2d", "select2d", "autoScale2d"],
    "toImageButtonOptions": {"format": "png", "scale": 2},
}


def _e(text: str) -> str:
    """Plotly draws hover and annotation text as a small subset of HTML: escape input strings."""
    return html.escape(text, quote=False)


def _base_layout(height: int) -> dict[str, Any]:
    return {
        "template": "plotly_white",
        "height": height,
        "margin": {"l": 70, "r": 20, "t": 40, "b": 55},
        "font": {"family": FONT, "size": 12, "color": "#222"},
        "hoverlabel": {"font": {"family": FONT, "size": 12}, "align": "left"},
    }


def marker_sizes(durations: list[float | None], max_duration_ns: float | None) -> np.ndarray:
    """Marker diameters: area proportional to the launch's duration, from MARKER_MIN to MARKER_MAX."""
    d = np.array([np.nan if x is None else x for x in durations], dtype=float)
    if not max_duration_ns or max_duration_ns <= 0:
        return np.full(len(d), MARKER_MIN)
    rel = np.sqrt(np.clip(np.nan_to_num(d, nan=0.0) / max_duration_ns, 0.0, 1.0))
    out: np.ndarray = np.round(MARKER_MIN + (MARKER_MAX - MARKER_MIN) * rel, 2)
    return out


def _at_least(span: list[float], decades: float) -> list[float]:
    """A log10 axis range widened about its middle to at least ``decades`` (so that it has labelled ticks)."""
    width = span[1] - span[0]
    if width >= decades:
        return span
    grow = (decades - width) / 2
    return [span[0] - grow, span[1] + grow]


def _log_range(values: list[float], pad: float) -> list[float]:
    lo, hi = min(values), max(values)
    return [math.log10(lo) - pad, math.log10(hi) + pad]


#: The roofline plot area the label layout assumes: the narrowest a chart gets (a 560 px panel less its margins)
#: and its height (560 px less the top and bottom margins). Wider charts only spread labels further apart.
PLOT_MIN_WIDTH_PX = 440.0
PLOT_HEIGHT_PX = 380.0
#: A ridge label's size: line height, and width per character of the 10 px font (generous), in px.
LABEL_LINE_PX = 13.0
LABEL_CHAR_PX = 6.2
#: The first label sits this far above its ridge point.
LABEL_OFFSET_PX = 14.0


def place_ridge_labels(
    labels: list[tuple[float, float, str]], xr: list[float], yr: list[float]
) -> tuple[list[dict[str, Any]], list[float]]:
    """Annotations for the ridge points (log10 x, log10 y, text), each above its point at the lowest height
    where its box overlaps no label placed before it (left to right), on the narrowest chart the page draws;
    and the y range, raised when the labels need room above the highest roof."""
    xr_span = xr[1] - xr[0]
    yr = list(yr)
    for _ in range(3):  # raising the range shrinks the scale: settle in a few rounds
        px_x = PLOT_MIN_WIDTH_PX / xr_span
        px_y = PLOT_HEIGHT_PX / (yr[1] - yr[0])
        boxes: list[tuple[float, float, float, float]] = []
        out: list[dict[str, Any]] = []
        top = 0.0
        for lx, ly, text in sorted(labels):
            cx, base = (lx - xr[0]) * px_x, (ly - yr[0]) * px_y
            half = len(text) * LABEL_CHAR_PX / 2
            level = 0
            while True:
                cy = base + LABEL_OFFSET_PX + LABEL_LINE_PX * level
                box = (cx - half, cx + half, cy - LABEL_LINE_PX / 2, cy + LABEL_LINE_PX / 2)
                if not any(b[0] < box[1] and box[0] < b[1] and b[2] < box[3] and box[2] < b[3] for b in boxes):
                    break
                level += 1
            boxes.append(box)
            top = max(top, box[3])
            out.append(
                {
                    "x": lx,
                    "y": ly,
                    "xref": "x",
                    "yref": "y",
                    "ax": 0,
                    "ay": -(cy - base),
                    "showarrow": True,
                    "arrowwidth": 0.8,
                    "arrowcolor": "#999",
                    "text": _e(text),
                    "font": {"size": 10, "color": "#555"},
                }
            )
        if top <= PLOT_HEIGHT_PX:
            return out, yr
        yr[1] += (top - PLOT_HEIGHT_PX) / px_y + 0.05
    return out, yr


def _roofline_ranges(panel: RooflinePanel) -> tuple[list[float], list[float]]:
    """The log10 x and y ranges of a roofline chart: its points, peaks and ridge points, padded, with room above
    the highest roof for the staggered ridge labels, each at least MIN_DECADES wide."""
    pts = panel.points
    xs = [*pts.intensity]
    ys = [*pts.flops]
    for roof in panel.roofs:
        ys.append(roof.peak_flops)
        xs.extend(m.ridge_intensity for m in roof.memory if m.ridge_intensity)
    xr = _log_range(xs, 0.6) if xs else [-2.0, 4.0]
    yr = _log_range(ys, 0.5) if ys else [9.0, 16.0]
    yr[1] = max(yr[1], math.log10(max([r.peak_flops for r in panel.roofs], default=10 ** yr[1])) + 0.9)
    return _at_least(xr, MIN_DECADES), _at_least(yr, MIN_DECADES)


def _roof_traces(
    panel: RooflinePanel, xr: list[float], yr: list[float]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[tuple[float, float, str]]]:
    """The roofs of a roofline chart: per compute roof its peak line and label, per memory level its slope up to
    the ridge point and the ridge's marker; the level names beside the first roof's slopes (annotations); the
    ridge labels to place (log10 x, log10 y, text: ``place_ridge_labels``)."""
    x_lo, x_hi = 10 ** xr[0], 10 ** xr[1]
    traces: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    ridge_labels: list[tuple[float, float, str]] = []
    for ri, roof in enumerate(panel.roofs):
        ridges = [m.ridge_intensity for m in roof.memory if m.ridge_intensity]
        left = min(ridges) if ridges else x_lo
        peak_text = f"{roof.label} peak {fmt.si(roof.peak_flops, 'FLOP/s')}"
        traces.append(
            dict(
                type="scatter",
                x=[left, x_hi],
                y=[roof.peak_flops, roof.peak_flops],
                mode="lines",
                line={"color": ROOF_COLOR, "width": 2.0, "dash": "solid" if ri == 0 else "longdash"},
                name=_e(peak_text),
                legendgroup="roofs",
                legendgrouptitle={"text": "Roofs (ridge point in FLOP/byte)"},
                legendrank=2000,
                hovertemplate=_e(peak_text) + "<extra></extra>",
            )
        )
        annotations.append(
            {
                "x": xr[1],
                "y": math.log10(roof.peak_flops),
                "xref": "x",
                "yref": "y",
                "xanchor": "right",
                "yanchor": "top",
                "showarrow": False,
                "text": _e(peak_text),
                "font": {"size": 11, "color": ROOF_COLOR},
            }
        )
        for m in roof.memory:
            ridge = m.ridge_intensity or roof.peak_flops / m.peak_bytes_per_s
            bw_text = f"{m.label} {fmt.si(m.peak_bytes_per_s, 'B/s')}" + (f" · {roof.gpu}" if roof.gpu else "")
            traces.append(
                dict(
                    type="scatter",
                    x=[x_lo, ridge],
                    y=[m.peak_bytes_per_s * x_lo, roof.peak_flops],
                    mode="lines",
                    line={"color": ROOF_COLOR, "width": 1.2, "dash": LEVEL_DASH.get(m.level, "solid")},
                    name=_e(f"{bw_text} · ridge {fmt.si(ridge)}"),
                    legendgroup="roofs",
                    legendrank=2000,
                    showlegend=ri == 0 or len(panel.roofs) == 1 or roof.gpu is not None,  # each GPU's roofs
                    hovertemplate=_e(bw_text) + "<extra></extra>",
                )
            )
            traces.append(
                dict(
                    type="scatter",
                    x=[ridge],
                    y=[roof.peak_flops],
                    mode="markers",
                    marker={"symbol": "x-thin", "size": 9, "line": {"width": 2, "color": ROOF_COLOR}},
                    name=f"{m.label} ridge",
                    hovertemplate=_e(f"{roof.label} / {m.label} ridge point: {fmt.si(ridge, 'FLOP/byte')}")
                    + "<extra></extra>",
                    showlegend=False,
                )
            )
            # the ridge point, labelled above the roof; placed below so that no two labels overlap
            ridge_labels.append((math.log10(ridge), math.log10(roof.peak_flops), f"{m.label} ridge {fmt.si(ridge)}"))
            if ri == 0:
                # the level's name beside its roof, low on the chart, each level at its own height
                y = 10 ** (yr[0] + 0.3 + 0.45 * LEVELS.index(m.level) if m.level in LEVELS else yr[0] + 0.3)
                x = y / m.peak_bytes_per_s
                if x_lo < x < ridge:
                    annotations.append(
                        {
                            "x": math.log10(x),
                            "y": math.log10(y),
                            "xref": "x",
                            "yref": "y",
                            "xanchor": "right",
                            "yanchor": "middle",
                            "xshift": -3,
                            "showarrow": False,
                            "text": _e(m.label),
                            "font": {"size": 10, "color": ROOF_COLOR},
                        }
                    )
    return traces, annotations, ridge_labels


def _launch_lines(pts: RooflinePoints, scatter: str) -> dict[str, Any]:
    """The three points of each launch joined by a line (a NaN between launches breaks it)."""
    launch = np.asarray(pts.launch)
    breaks = np.flatnonzero(launch[1:] != launch[:-1]) + 1
    return dict(
        type=scatter,
        x=np.insert(np.asarray(pts.intensity, dtype=float), breaks, np.nan),
        y=np.insert(np.asarray(pts.flops, dtype=float), breaks, np.nan),
        mode="lines",
        line={"color": "rgba(110,110,110,0.45)", "width": 1},
        hoverinfo="skip",
        showlegend=False,
        name="launch",
        connectgaps=False,
    )


def _floats(values: list[float | None] | list[int | None], scale: float = 1.0) -> np.ndarray:
    """``values`` as float64, None as NaN, times ``scale``."""
    out: np.ndarray = np.array([math.nan if v is None else v for v in values], dtype=float) * scale
    return out


def _point_traces(pts: RooflinePoints, view: ReportView, scatter: str, gl: bool) -> list[dict[str, Any]]:
    """The launches' points: one trace per limiter, level and kind of verdict (a scalar marker symbol per trace:
    per-point symbol arrays make WebGL scatter an order of magnitude slower to draw), the legend one entry per
    limiter; a bound launch's limiter holds it, a latency- or launch-bound one's is only its busiest unit, so the
    two kinds of point are traces of their own (one hover text each) in one legend entry."""
    sizes = marker_sizes(pts.duration_ns, view.max_duration_ns)
    known = list(LIMITERS)
    keys = [*known, *sorted({x for x in pts.limiter if x and x not in known}), None]
    code = {key: k for k, key in enumerate(keys)}
    key_of = np.array([code.get(x, len(keys)) for x in pts.limiter], dtype=np.int64)  # "": no trace
    launch = np.asarray(pts.launch, dtype=np.int64)
    level = np.asarray(pts.level, dtype=object)
    held = np.array([r.regime not in UNBOUND_LABELS for r in view.launches], dtype=bool)[launch]
    x, y = np.asarray(pts.intensity, dtype=float), np.asarray(pts.flops, dtype=float)
    # per point: [kernel index, launch ID, duration (s), % of roof (the limiter's score), the point's own fraction
    # of the roof above it]; what is the same for the whole trace stays in the template (smaller pages)
    custom = np.column_stack(
        [
            np.asarray(pts.kernel, dtype=float),
            _floats(pts.launch_id),
            _floats(pts.duration_ns, 1e-9),
            _floats(pts.roof_fraction),
            _floats(pts.point_fraction),
        ]
    ).astype(np.float32)  # shown to 3-4 digits: half the bytes of float64
    names = [_e(name) for name in pts.name]
    traces: list[dict[str, Any]] = []
    for k, key in enumerate(keys):
        mine = key_of == k
        if not mine.any():
            continue
        first = True
        label = _e(view.limiter_label(key))
        launches = len(np.unique(launch[mine]))
        for lv in [*LEVELS, *sorted(set(level[mine].tolist()) - set(LEVELS))]:
            for bound in (True, False):
                idx = np.flatnonzero(mine & (level == lv) & (held == bound))
                if not len(idx):
                    continue
                role = f"limiter {label}" if bound else f"busiest unit {label} (latency- or launch-bound)"
                traces.append(
                    dict(
                        type=scatter,
                        x=x[idx],
                        y=y[idx],
                        mode="markers",
                        name=f"{label} ({launches:,})",
                        legendgroup=f"limiter-{key or 'none'}",
                        showlegend=first,
                        marker={
                            "color": limiter_color(key),
                            "size": sizes[idx].astype(np.float32),
                            "symbol": LEVEL_SYMBOLS.get(lv, 0),
                            # WebGL: no outline and no separate opacity pass (each costs a draw per trace)
                            "opacity": 1.0 if gl else 0.85,
                            "line": {"width": 0 if gl else 0.5, "color": "white"},
                        },
                        text=[names[i] for i in idx],
                        customdata=custom[idx],
                        hovertemplate=(
                            f"<b>%{{text}}</b><br>{_e(LEVEL_LABELS.get(lv, lv))} · launch %{{customdata[1]}} · "
                            "%{customdata[2]:.3~s}s<br>this point: %{customdata[4]:.1%} of the roof above it<br>"
                            f"{role}: %{{customdata[3]:.1%}} of roof<br>"
                            "%{x:.3~s} FLOP/byte · %{y:.3~s}FLOP/s<extra></extra>"
                        ),
                    )
                )
                first = False
    return traces


def _roofline_layout(
    panel: RooflinePanel, xr: list[float], yr: list[float], annotations: list[dict[str, Any]]
) -> dict[str, Any]:
    """The layout of a roofline chart: log axes over ``xr`` and ``yr``, the legend under the plot."""
    layout = _base_layout(560)
    layout["margin"] = {"l": 70, "r": 20, "t": 40, "b": 140}
    axis = {"dtick": 1, "minor": {"ticks": "inside", "ticklen": 3, "showgrid": False}, "showline": True,
            "mirror": True, "linecolor": "#bbb"}  # fmt: skip
    layout.update(
        {
            "xaxis": {
                "type": "log",
                "range": xr,
                "title": {"text": "Arithmetic intensity [FLOP/byte]"},
                "exponentformat": "SI",
                **axis,
            },
            "yaxis": {
                "type": "log",
                "range": yr,
                "title": {"text": "Performance [FLOP/s]"},
                "tickformat": "~s",  # 100G, 1T, 1P: SI prefixes past tera too
                **axis,
            },
            "legend": {
                "groupclick": "togglegroup",
                "font": {"size": 11},
                "orientation": "h",
                "x": 0,
                "xanchor": "left",
                "y": -0.16,
                "yanchor": "top",
                "tracegroupgap": 4,
                "itemsizing": "constant",
            },
            "annotations": annotations,
            "hovermode": "closest",
            "uirevision": panel.precision,
        }
    )
    return layout


def _roofline_spec(panel: RooflinePanel, view: ReportView) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The traces (each a dict of a plotly trace's properties, its ``type`` included) and the layout of the
    hierarchical roofline chart of one precision (see the module docstring): the roofs, each launch's points
    joined (up to JOIN_LIMIT launches), the points by limiter and level, the ridge labels placed last."""
    pts = panel.points
    gl = len(pts) > WEBGL_THRESHOLD
    scatter = "scattergl" if gl else "scatter"
    joined = bool(len(pts)) and panel.launches <= JOIN_LIMIT
    xr, yr = _roofline_ranges(panel)
    traces, annotations, ridge_labels = _roof_traces(panel, xr, yr)
    if joined:
        traces.append(_launch_lines(pts, scatter))
    if len(pts):
        traces += _point_traces(pts, view, scatter, gl)
    glyphs = "  ".join(f"{LEVEL_GLYPHS[lv]} {LEVEL_LABELS[lv]}" for lv in LEVELS)
    annotations.append(
        {
            "x": 0,
            "y": 1.0,
            "xref": "paper",
            "yref": "paper",
            "xanchor": "left",
            "yanchor": "bottom",
            "showarrow": False,
            "text": f"{glyphs}  (" + ("one launch's points joined; " if joined else "") + "size: duration)",
            "font": {"size": 11, "color": "#555"},
        }
    )
    placed, yr = place_ridge_labels(ridge_labels, xr, yr)
    annotations.extend(placed)
    return traces, _roofline_layout(panel, xr, yr, annotations)


def roofline_figure(panel: RooflinePanel, view: ReportView) -> go.Figure:
    """The hierarchical roofline chart of one precision (see the module docstring), as a plotly figure."""
    traces, layout = _roofline_spec(panel, view)
    fig = go.Figure()
    for trace in traces:
        kind = go.Scattergl if trace["type"] == "scattergl" else go.Scatter
        fig.add_trace(kind(**{k: v for k, v in trace.items() if k != "type"}))
    fig.update_layout(layout)
    return fig


def roofline_figure_json(panel: RooflinePanel, view: ReportView) -> dict[str, Any]:
    """``roofline_figure(panel, view)`` as plotly writes it in JSON (``json.loads(plotly.io.to_json(fig))``),
    built without plotly's figure objects, whose validation of every property took 0.2-0.3 s per page (0.5 s
    more the first time in a process): numpy arrays as plotly.js typed arrays (``_typed_array``), the named
    template from plotly's package data. ``tests/test_report_html.py`` checks the two are equal."""
    traces, layout = _roofline_spec(panel, view)
    layout["template"] = _template(layout["template"])
    return {"data": [_typed_arrays(t) for t in traces], "layout": layout}


#: numpy dtype -> plotly.js typed array type (plotly's ``_plotly_utils.utils.plotlyjsShortTypes``, the ones used).
_TYPED = {"float64": "f8", "float32": "f4", "int32": "i4", "int16": "i2", "int8": "i1", "uint8": "u1"}


def _typed_array(v: np.ndarray) -> Any:
    """A numpy array as plotly (6 and later) writes it in a figure's JSON: a typed array spec (dtype, base64
    bytes, shape if not flat) for the types plotly.js reads, int64 narrowed to the smallest int type that holds
    it as plotly does; an empty array as an empty list."""
    if v.size == 0:
        return []
    if v.dtype == np.int64:
        lo, hi = int(v.min()), int(v.max())
        for t in (np.int8, np.int16, np.int32):
            if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max:
                v = v.astype(t)
                break
    kind = _TYPED.get(str(v.dtype))
    if kind is None:
        return v.tolist()
    out: dict[str, Any] = {"dtype": kind, "bdata": base64.b64encode(np.ascontiguousarray(v).tobytes()).decode("ascii")}
    if v.ndim > 1:
        out["shape"] = str(v.shape)[1:-1]
    return out


def _typed_arrays(value: Any) -> Any:
    """``value`` with every numpy array in it (in dicts and lists, at any depth) a typed array spec
    (``_typed_array``), as plotly's ``convert_to_base64`` turns them."""
    if isinstance(value, np.ndarray):
        return _typed_array(value)
    if isinstance(value, dict):
        return {k: _typed_arrays(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed_arrays(v) for v in value]
    return value


def _bar_traces(row: str, shares: tuple[TimeShare, ...]) -> list[dict[str, Any]]:
    """The bars of one row of the time figure, as go.Bar's keyword arguments."""
    traces = []
    for t in shares:
        if not t.share or t.share <= 0:
            continue
        label = _e(t.label)
        traces.append(
            {
                "x": [round(t.share * 100, 4)],
                "y": [row],
                "orientation": "h",
                "name": label,
                "marker": {"color": t.color, "line": {"color": "white", "width": 1}},
                "text": [f"{label} {fmt.percent(t.share, 0)}" if t.share >= 0.06 else ""],
                "textposition": "inside",
                "insidetextanchor": "middle",
                "textfont": {"color": "white", "size": 12},
                "hovertemplate": f"<b>{label}</b>: {fmt.percent(t.share)} of GPU time<br>"
                f"{fmt.duration_ns(t.duration_ns)} in {fmt.counted(t.launches, 'launch', 'launches')}"
                "<extra></extra>",
                "showlegend": False,
            }
        )
    return traces


def _time_layout() -> dict[str, Any]:
    layout = _base_layout(150)
    layout.update(
        {
            "barmode": "stack",
            "margin": {"l": 80, "r": 10, "t": 6, "b": 30},
            "xaxis": {"range": [0, 100], "ticksuffix": "%", "title": None, "fixedrange": True, "dtick": 20},
            "yaxis": {"fixedrange": True, "categoryorder": "array", "categoryarray": ["by regime", "by limiter"]},
            "bargap": 0.25,
        }
    )
    return layout


def time_figure(view: ReportView) -> go.Figure:
    """GPU time by limiter and by regime: two horizontal 100 % stacked bars."""
    fig = go.Figure()
    for tr in (*_bar_traces("by regime", view.by_regime), *_bar_traces("by limiter", view.by_limiter)):
        fig.add_trace(go.Bar(**tr))
    fig.update_layout(_time_layout())
    return fig


def time_figure_json(view: ReportView) -> dict[str, Any]:
    """``time_figure(view)`` as plotly writes it in JSON (``json.loads(plotly.io.to_json(fig))``), built without
    plotly (whose figure objects and template validation cost a fifth of a second on first use): the bars and the
    layout as given, an unset title as ``{}``, and the named template from plotly's package data, as plotly loads
    it (``tests/test_report_html.py`` checks the two are equal)."""
    layout = _time_layout()
    layout["xaxis"]["title"] = {}  # None: unset
    layout["template"] = _template(layout["template"])
    data = [
        {**tr, "type": "bar"}
        for tr in (*_bar_traces("by regime", view.by_regime), *_bar_traces("by limiter", view.by_limiter))
    ]
    return {"data": data, "layout": layout}


@cache
def _template_text(name: str) -> bytes:
    data = pkgutil.get_data("plotly", f"package_data/templates/{name}.json")
    if data is None:  # pragma: no cover - plotly ships its named templates
        raise LookupError(f"plotly has no template {name!r}")
    return data


def _template(name: str) -> dict[str, Any]:
    """A named plotly template as a figure's JSON holds it (a new copy each time)."""
    out: dict[str, Any] = json.loads(_template_text(name))
    return out


def figures(view: ReportView) -> dict[str, go.Figure]:
    """Every figure of the page by its fixed div id: ``fig-time``, then ``fig-roofline-<precision>`` for each
    precision with points."""
    out = {"fig-time": time_figure(view)}
    for panel in view.rooflines:
        if len(panel.points):
            out[f"fig-roofline-{panel.precision}"] = roofline_figure(panel, view)
    return out


def figures_json(view: ReportView) -> dict[str, Any]:
    """``figures(view)``, each as plotly writes it in JSON, built without plotly's figure objects
    (``time_figure_json``, ``roofline_figure_json``)."""
    out = {"fig-time": time_figure_json(view)}
    for panel in view.rooflines:
        if len(panel.points):
            out[f"fig-roofline-{panel.precision}"] = roofline_figure_json(panel, view)
    return out
