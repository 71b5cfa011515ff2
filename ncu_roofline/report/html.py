"""The self-contained HTML report: one file, plotly.js embedded once, no network requests, same bytes each run.

The page is ``templates/report.html.j2`` (jinja2, autoescaped) with the view model's data as JSON in a
``<script type="application/json">`` block (every ``<``, ``>`` and ``&`` written as a JSON ``\\u`` escape,
so no string from the input can close the block), the figures of ``figures.py``, and vanilla JavaScript
(``templates/report.js``) for the kernel table and the diagnosis panel. A Content-Security-Policy forbids
every network fetch. Div ids are fixed and JSON keys sorted, so two runs on one input give the same bytes.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import fields
from functools import cache
from importlib import resources
from typing import Any

import jinja2
import orjson
from markupsafe import Markup, escape
from plotly.offline import get_plotlyjs

from .. import __version__
from ..analysis import Analysis
from . import fmt, gc_paused
from . import viewmodel as vm
from .figures import CONFIG, figures_json
from .registry import FunctionRenderer, Options, Run
from .viewmodel import HintItem, KernelRow, ReportView, build_view

TEMPLATE = "report.html.j2"


_BREAK_AFTER = re.compile(r"(_|&lt;|,|::|/)")


def breakable(text: object) -> Markup:
    """``text`` escaped, with ``<wbr>`` after ``_``, ``<``, ``,``, ``::`` and ``/``: long kernel and range
    names wrap at their parts rather than anywhere."""
    escaped = str(escape("" if text is None else str(text)))
    return Markup(_BREAK_AFTER.sub(r"\1<wbr>", escaped))


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("ncu_roofline.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
    )
    env.filters["breakable"] = breakable
    return env


@cache
def _plotly_js() -> str:
    """plotly.js, as plotly's package holds it (4.8 MB, read once per process)."""
    text: str = get_plotlyjs()
    return text


@cache
def _asset(name: str) -> str:
    text = resources.files("ncu_roofline.report").joinpath("templates", name).read_text(encoding="utf-8")
    if "</script" in text.lower() or "</style" in text.lower():  # pragma: no cover - guards our own assets
        raise ValueError(f"{name} must not contain a closing script/style tag")
    return text


def script_json(obj: Any) -> str:
    """JSON for a ``<script type="application/json">`` block: sorted keys, no NaN, and ``<``, ``>``, ``&``
    escaped as ``\\u003c``, ``\\u003e``, ``\\u0026`` (they can only occur inside JSON strings, where the
    escape means the same character), so no input string can end the block or open a comment."""
    return _script_safe(json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False, ensure_ascii=False))


def page_json(data: dict[str, Any]) -> str:
    """``script_json(data)`` for ``page_data``'s data, whose numbers are all finite (the view model's are
    ``fmt.number``'s, the figures' plotly's, which writes NaN as null), in a sixth of the time on a large page:
    written by orjson (the same values; a float is spelled as orjson spells it, 1e-05 as 0.00001, as in the JSON
    output), by the standard library where orjson cannot write a value (a lone surrogate, an integer beyond 64 bits,
    a key that is not a string). Unlike ``script_json`` it does not refuse a NaN: orjson writes it as null."""
    try:
        text = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return script_json(data)
    return _script_safe(text.decode("utf-8"))


def _script_safe(text: str) -> str:
    """JSON text with ``<``, ``>``, ``&``, U+2028 and U+2029 written as ``\\u`` escapes (see ``script_json``)."""
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


#: The fields of a hint card (``dataclasses.asdict`` without its deep copy: the evidence is rebuilt below and
#: every other field is a number, a string or None); the estimates go as the card words them (``speedup``).
_HINT_FIELDS = tuple(
    f.name for f in fields(HintItem) if f.name not in ("estimated_speedup", "estimated_speedup_less_work")
)


def _hint(h: HintItem, advice: dict[str, int]) -> dict[str, Any]:
    """One hint card; its advice (the same text for every kernel with that hint) as an index into
    ``labels.advice``, stored once per page."""
    d = {name: getattr(h, name) for name in _HINT_FIELDS}
    d["evidence"] = [{k: (fmt.number(v) if isinstance(v, float) else v) for k, v in e.items()} for e in h.evidence]
    d["advice"] = None if h.advice is None else advice.setdefault(h.advice, len(advice))
    d["speedup"] = h.speedup_text
    return d


def _round(value: float | None, digits: int = 6) -> float | None:
    """A figure the page only shows as a percentage or a short number, to ``digits`` significant digits (the
    page's JSON is smaller). Six, not fewer: the page rounds again to show it, and at four a "% of roof" of
    0.83496 was stored as 0.835 and shown as 84 % where the terminal and the JSON say 83 %."""
    if value is None or value == 0:
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def _kernel(
    k: KernelRow, view: ReportView, units: dict[tuple[str, str, str], int], advice: dict[str, int]
) -> dict[str, Any]:
    first = k.first_hint
    nvtx_all = sorted({r for r in (view.launches[j].nvtx_op for j in k.launch_rows) if r})
    return {
        "name": k.display_name,
        "full": k.kernel_name,
        "report": k.report,
        "launches": k.launches,
        "dur": k.duration_ns,
        "mean": k.mean_duration_ns,
        "share": _round(k.share),
        "limiter": k.limiter,
        "pipe": k.compute_pipe,
        "regime": k.regime,
        "partial": k.partial,
        "peak": _round(k.peak_fraction),
        "reason": k.reason,
        "nc": k.not_checked,
        "nvtx": k.nvtx,
        "nvtx_n": k.nvtx_ranges,
        "nvtx_all": nvtx_all,
        "first": None
        if first is None
        else {"label": first.label, "severity": first.severity, "message": first.message},
        "hints": sorted({h.hint for h in (*k.hints, *k.ncu_rules)}),
        "rows": list(k.launch_rows),
        # [index into labels.units, value]: the unit's label and source are stored once per page
        "util": [[units.setdefault((u.unit, u.label, u.source), len(units)), _round(u.value)] for u in k.utilization],
        "diag": [_hint(h, advice) for h in k.hints],
        "ncu": [_hint(h, advice) for h in k.ncu_rules],
    }


def page_data(view: ReportView) -> dict[str, Any]:
    """Everything the page's script reads: kernels (rows of the table, with their diagnosis), launches
    (columnar), labels and colours, and the figures by div id."""
    ls = view.launches
    launches = {
        "kernel": [r.kernel for r in ls],
        "id": [r.launch_id for r in ls],
        "report": [r.report for r in ls],
        "dur": [r.duration_ns for r in ls],
        "limiter": [r.limiter for r in ls],
        "pipe": [r.compute_pipe for r in ls],
        "regime": [r.regime for r in ls],
        "partial": [r.partial for r in ls],
        "peak": [_round(r.peak_fraction) for r in ls],
        "reason": [r.reason for r in ls],
        "nvtx": [r.nvtx_op for r in ls],
        "nvtx_raw": [r.nvtx_path if r.nvtx_path != r.nvtx_op else None for r in ls],
        "grid": [r.grid for r in ls],
        "block": [r.block for r in ls],
        "hints": [list(r.hints) for r in ls],
    }
    if any(r.invocations != 1 for r in ls):  # a summary page's groups: the launches each row stands for
        launches["inv"] = [r.invocations for r in ls]
    figs = figures_json(view)
    units: dict[tuple[str, str, str], int] = {}
    advice: dict[str, int] = {}
    kernels = [_kernel(k, view, units, advice) for k in view.kernels]
    return {
        "kernels": kernels,
        "launches": launches,
        "labels": {
            "limiter": dict(view.limiter_labels),
            "limiter_colors": vm.LIMITER_COLORS,
            "regime_colors": vm.REGIME_COLORS,
            "missing_color": vm.MISSING_COLOR,
            "sources": vm.SOURCE_LABELS,
            "units": [[label, source] for (_, label, source) in units],
            "advice": list(advice),
        },
        "multi_report": len({r.report for r in ls}) > 1,
        "has_rules": any(k.ncu_rules for k in view.kernels),
        "figures": figs,
        "config": CONFIG,
    }


#: What stands in the template for a large block (the page's data, plotly.js) until the page is joined: the
#: template renders without copying them (a ``|safe`` block is copied into a Markup string, then into the page).
#: No escaped input string holds it ("<" is escaped), and neither does the template.
_SLOT = "<ncu-roofline-slot {}>"


def render_view_html(view: ReportView) -> str:
    """The page for a view model (see :func:`render_html`)."""
    template = _environment().get_template(TEMPLATE)
    with gc_paused():  # lists of each launch's values, none in a cycle
        data = page_json(page_data(view))
    blocks = {"data": data, "plotly_js": _plotly_js()}  # in the order of the page
    page = template.render(
        view=view,
        f=fmt,
        vm=vm,
        version=__version__,
        top_ranges=vm.TOP_RANGES,
        top_findings=vm.TOP_FINDINGS,
        any_hint=any(k.first_hint is not None for k in view.kernels),
        css=_asset("report.css"),
        js=_asset("report.js"),
        **{name: Markup(_SLOT.format(name)) for name in blocks},
    )
    pieces = []
    for name, text in blocks.items():
        head, slot, page = page.partition(_SLOT.format(name))
        if not slot:  # pragma: no cover - the template holds each slot once
            raise ValueError(f"{TEMPLATE} has no {name} block")
        pieces += [head, text]
    return "".join([*pieces, page])


def render_html(analysis: Analysis, *, title: str | None = None) -> str:
    """The self-contained HTML report of ``analysis`` (title: the input file names unless given)."""
    return render_view_html(build_view(analysis, title=title))


def _render(run: Run, _options: Options) -> str:
    return render_view_html(run.view)


def _prepare() -> None:
    """The page's one-time work, done before the first render where the command line runs it beside the read: the
    template compiled, plotly.js and the page's own script and style read."""
    _environment().get_template(TEMPLATE)
    _plotly_js()
    _asset("report.css")
    _asset("report.js")


HTML: FunctionRenderer[Run] = FunctionRenderer("html", ".html", _render, prepare=_prepare)
