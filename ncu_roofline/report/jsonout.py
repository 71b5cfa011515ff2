"""The JSON output (``ncu-roofline REPORT --format json``): stable keys, documented in the README.

Top level: ``schema`` (version of this layout), ``tool``, ``sources`` (files read), ``launches`` (one object per
launch, keys below), ``summary`` (``ncu_roofline.summary.Summary`` serialised: GPU time by limiter and by
regime, the top kernels by GPU time, the NVTX ranges, the findings (each hint across the report), the total GPU
time and kernel count, and the agreement with ncu's SOLBottleneck rule). ``docs/json.md`` and
``docs/schema.json`` describe every key.

``devices``: one object per GPU (``device_rows``).

Per launch: ``report``, ``id``, ``process_id``, ``kernel``, ``display_name``, ``device`` (the GPU's name as
the report gives it, else the built-in table entry identified or given with ``--device``; null: unknown),
``nvtx_path``, ``grid_size``,
``block_size``, ``duration_ns``, ``limiter``, ``compute_pipe``, ``regime``, ``basis``, ``reason``, ``missing``,
``unmeasured`` (list of the units the export did not measure: hbm, l2, l1, compute, sm), ``partial`` (the
verdict stands on the measured units only; an unmeasured one could change it), ``recipes`` ({figure: the
recipe that computed it}, ``ncu_roofline.quantities.RECIPES``), ``pipe_basis``, ``roof_fraction`` (the
limiter's score, "% of roof" everywhere; = 1 - ``headroom``), ``headroom``, ``time_at_roof_ns``, ``scores``
({hbm, l2, l1, compute}: 0..1), ``explanation``, ``ncu_bottleneck``, ``agrees_with_ncu``, ``not_checked``
(hint rules that lacked their evidence, each "<rule>: <metric> not collected (<ncu option>)"),
``utilization`` ({unit: 0..1}, the units of
``ncu_roofline.classify.UNIT_COLUMNS``), ``memory`` (list of {level, achieved_bytes_per_s, peak_bytes_per_s,
fraction, recipe}: the three bandwidth roofs, whatever the precision), ``roofline`` (list of {precision,
level, dtype, series, achieved_flops, achieved_bytes_per_s, intensity, peak_flops, peak_bytes_per_s,
ridge_intensity, attainable_flops, roof_fraction, bound, work_recipe, traffic_recipe, estimate}) and
``hints`` (list of {id, severity, source, message, advice, evidence, estimated_speedup}).

Which roofline rows: the points ncu's hierarchical roofline charts draw, i.e. the precisions (fp64, fp32,
fp16, and the launch's dominant tensor series) with achieved work above zero, at each of the three levels. A
precision the launch does no work in has no point on a log-log chart and is left out; a launch without any
floating-point or tensor work has an empty list (its traffic is in ``memory``). Missing numbers, and the
infinite intensity of work without traffic, are ``null``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from .. import __version__
from ..analysis import Analysis
from ..classify import LIMITERS, records
from ..model import LAUNCH_KEY
from ..summary import Summary, summarize
from .registry import FunctionRenderer, Options, Run

SCHEMA = 3
#: Launch objects per piece of streamed JSON.
CHUNK = 1024
#: Kernels listed in ``summary.top_kernels``.
TOP_KERNELS = 10


def _num(v: Any) -> float | None:
    if v is None or v is pd.NA:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) or math.isinf(f) else f


def _str(v: Any) -> str | None:
    return None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else str(v)


def _int(v: Any) -> int | None:
    return None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else int(v)


def _bool(v: Any) -> bool | None:
    return None if v is None or v is pd.NA else bool(v)


def _list(v: Any) -> list[str]:
    """A comma-separated verdict column as a list ([] where empty)."""
    text = _str(v)
    return [] if not text else [x.strip() for x in text.split(",")]


# Whole columns at once: what _num, _str, _int and _bool do to each value, over a column (plain Python values,
# None for a missing one), so that a launch's object is built from list items, not from per-row records.


def _objects(s: pd.Series) -> list[Any]:
    """The values of ``s`` as Python objects, None where missing."""
    a = s.to_numpy(dtype=object, copy=True)
    a[pd.isna(a)] = None
    values: list[Any] = a.tolist()
    return values


def _nums(s: pd.Series) -> list[float | None]:
    try:
        a = s.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        a = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    out = a.astype(object)
    out[~np.isfinite(a)] = None
    values: list[float | None] = out.tolist()
    return values


def _strs(s: pd.Series) -> list[str | None]:
    if isinstance(s.dtype, pd.StringDtype):
        values: list[str | None] = _objects(s)
        return values
    return [_str(v) for v in s.tolist()]


def _ints(s: pd.Series) -> list[int | None]:
    return [_int(v) for v in s.tolist()]


def _column(frame: pd.DataFrame, name: str) -> pd.Series:
    """``frame[name]``, or a column of None where the frame has no such column."""
    if name in frame.columns:
        return frame[name]
    return pd.Series([None] * len(frame), index=frame.index, dtype=object)


def _bools(s: pd.Series) -> list[bool | None]:
    return [_bool(v) for v in s.tolist()]


def _positions(launches: pd.DataFrame, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, int]:
    """Group codes by LAUNCH_KEY: one per launch row, one per ``frame`` row (equal codes, equal keys), and the
    number of codes."""
    keys = pd.concat([launches[list(LAUNCH_KEY)], frame[list(LAUNCH_KEY)]], ignore_index=True)
    codes = keys.groupby(list(LAUNCH_KEY), dropna=False, sort=False).ngroup().to_numpy()
    n = len(launches)
    return codes[:n], codes[n:], int(codes.max()) + 1 if len(codes) else 0


def _grouped(codes: np.ndarray, n: int, items: list[Any]) -> list[list[Any]]:
    """``items`` (one per frame row) in lists by group code, input order kept."""
    out: list[list[Any]] = [[] for _ in range(n)]
    for c, item in zip(codes.tolist(), items, strict=True):
        out[c].append(item)
    return out


def _roofline_items(roof: pd.DataFrame) -> tuple[list[dict[str, Any] | None], list[dict[str, Any] | None]]:
    """Per roofline row: its ``roofline`` object (None unless achieved work > 0) and its ``memory`` object (None
    unless it is the first row of its launch and level: traffic is precision-independent)."""
    cols = {
        c: _nums(roof[c])
        for c in (
            "achieved_flops",
            "achieved_bytes_per_s",
            "intensity",
            "peak_flops",
            "peak_bytes_per_s",
            "ridge_intensity",
            "attainable_flops",
            "roof_fraction",
            "bandwidth_fraction",
        )
    }
    text = {
        c: _strs(_column(roof, c))
        for c in ("precision", "level", "dtype", "series", "bound", "work_recipe", "traffic_recipe")
    }
    estimate = _bools(_column(roof, "estimate"))
    level_key = roof["level"].astype(object).map(str)
    first = ~pd.concat([roof[list(LAUNCH_KEY)], level_key.rename("_level")], axis=1).duplicated().to_numpy()
    rows: list[dict[str, Any] | None] = []
    memory: list[dict[str, Any] | None] = []
    for i in range(len(roof)):
        flops = cols["achieved_flops"][i]
        rows.append(
            {
                "precision": text["precision"][i],
                "level": text["level"][i],
                "dtype": text["dtype"][i],
                "series": text["series"][i],
                "achieved_flops": flops,
                "achieved_bytes_per_s": cols["achieved_bytes_per_s"][i],
                "intensity": cols["intensity"][i],
                "peak_flops": cols["peak_flops"][i],
                "peak_bytes_per_s": cols["peak_bytes_per_s"][i],
                "ridge_intensity": cols["ridge_intensity"][i],
                "attainable_flops": cols["attainable_flops"][i],
                "roof_fraction": cols["roof_fraction"][i],
                "bound": text["bound"][i],
                "work_recipe": text["work_recipe"][i],
                "traffic_recipe": text["traffic_recipe"][i],
                "estimate": estimate[i],
            }
            if (flops or 0.0) > 0
            else None
        )
        memory.append(
            {
                "level": text["level"][i],
                "achieved_bytes_per_s": cols["achieved_bytes_per_s"][i],
                "peak_bytes_per_s": cols["peak_bytes_per_s"][i],
                "fraction": cols["bandwidth_fraction"][i],
                "recipe": text["traffic_recipe"][i],
            }
            if first[i]
            else None
        )
    return rows, memory


def _hint_items(hints: pd.DataFrame) -> list[dict[str, Any]]:
    """One ``hints`` object per hint row; every row's evidence parsed in one pass."""
    evidence_text = _strs(hints["evidence"])
    present = [t for t in evidence_text if t]
    parsed = iter(json.loads("[" + ",".join(present) + "]") if present else [])
    evidence = [next(parsed) if t else [] for t in evidence_text]
    ids, severity, source = _strs(hints["hint"]), _strs(hints["severity"]), _strs(hints["source"])
    message, advice, speedup = _strs(hints["message"]), _strs(hints["advice"]), _nums(hints["estimated_speedup"])
    return [
        {
            "id": ids[i],
            "severity": severity[i],
            "source": source[i],
            "message": message[i],
            "advice": advice[i],
            "evidence": evidence[i],
            "estimated_speedup": speedup[i],
        }
        for i in range(len(hints))
    ]


def _launch_recipes(recipes: pd.DataFrame, launches: pd.DataFrame) -> list[dict[str, str]]:
    """Per launch (rows of ``launches``): {figure: recipe} of the recipes frame (index LAUNCH_KEY), figures
    without a recipe left out."""
    n = len(launches)
    if not len(recipes.columns) or not len(recipes):
        return [{} for _ in range(n)]
    recipes = recipes[~recipes.index.duplicated(keep="last")]
    keys = pd.MultiIndex.from_frame(launches[list(LAUNCH_KEY)])
    at = recipes.index.get_indexer(keys)
    names = [str(f) for f in recipes.columns]
    columns = [_strs(recipes[f]) for f in recipes.columns]
    out: list[dict[str, str]] = []
    for i in range(n):
        p = int(at[i])
        row: dict[str, str] = {}
        if p >= 0:
            for f, c in zip(names, columns, strict=True):
                v = c[p]
                if v is not None:
                    row[f] = v
        out.append(row)
    return out


def launch_objects(analysis: Analysis, chunk: int = CHUNK) -> Iterator[list[dict[str, Any]]]:
    """The ``launches`` objects (keys in the module docstring), in launch order, ``chunk`` at a time: built
    from whole columns of the analysis frames, so a large report need not hold every object at once."""
    lf, vf = analysis.launches, analysis.verdicts
    n = len(lf)
    if not n:
        return
    util, roof, hints = analysis.utilization, analysis.roofline, analysis.hints
    # launches come first in each factorisation, so their codes are the same in the three
    l_codes, u_codes, n_util = _positions(lf, util)
    _, r_codes, n_roof = _positions(lf, roof)
    _, h_codes, n_hints = _positions(lf, hints)
    units = [str(u) for u in util["unit"].tolist()]
    keep_unit = np.array([not u.startswith("limiter_") for u in units], dtype=bool)
    unit_values = _nums(util["value"])
    util_groups = _grouped(
        u_codes[keep_unit], n_util, [(u, v) for u, v, k in zip(units, unit_values, keep_unit, strict=True) if k]
    )
    roof_rows, memory_items = _roofline_items(roof)
    kept = np.array([x is not None for x in roof_rows], dtype=bool)
    firsts = np.array([x is not None for x in memory_items], dtype=bool)
    roof_groups = _grouped(r_codes[kept], n_roof, [x for x in roof_rows if x is not None])
    memory_groups = _grouped(r_codes[firsts], n_roof, [x for x in memory_items if x is not None])
    hint_groups = _grouped(h_codes, n_hints, _hint_items(hints))

    lcol = {c: _strs(lf[c]) for c in ("report", "kernel_name", "display_name", "nvtx_path")}
    lcol["device_name"] = _strs(_column(lf, "device_name"))
    lint = {c: _ints(lf[c]) for c in ("launch_id", "process_id", "grid_size", "block_size")}
    duration = _nums(lf["duration_ns"])
    vstr = {
        c: _strs(vf[c])
        for c in ("limiter", "compute_pipe", "regime", "basis", "reason", "missing", "pipe_basis", "explanation")
    }
    vstr["ncu_bottleneck"] = _strs(vf["ncu_bottleneck"])
    vnum = {c: _nums(vf[c]) for c in ("roof_fraction", "headroom", "time_at_roof_ns")}
    unmeasured = [_list(v) for v in vf["unmeasured"].tolist()]
    partial = _bools(vf["partial"])
    recipes = _launch_recipes(analysis.recipes, lf)
    not_checked = [[] if t is None else t.split("; ") for t in _strs(_column(vf, "not_checked"))]
    scores = {lim: _nums(vf[f"score_{lim}"]) for lim in LIMITERS}
    agrees = _bools(vf["agrees_with_ncu"])
    codes = l_codes.tolist()
    for start in range(0, n, chunk):
        out = []
        for i in range(start, min(n, start + chunk)):
            c = codes[i]
            out.append(
                {
                    "report": lcol["report"][i],
                    "id": lint["launch_id"][i],
                    "process_id": lint["process_id"][i],
                    "kernel": lcol["kernel_name"][i],
                    "display_name": lcol["display_name"][i],
                    "device": lcol["device_name"][i],
                    "nvtx_path": lcol["nvtx_path"][i],
                    "grid_size": lint["grid_size"][i],
                    "block_size": lint["block_size"][i],
                    "duration_ns": duration[i],
                    "limiter": vstr["limiter"][i],
                    "compute_pipe": vstr["compute_pipe"][i],
                    "regime": vstr["regime"][i],
                    "basis": vstr["basis"][i],
                    "reason": vstr["reason"][i],
                    "missing": vstr["missing"][i],
                    "unmeasured": unmeasured[i],
                    "partial": partial[i],
                    "recipes": recipes[i],
                    "pipe_basis": vstr["pipe_basis"][i],
                    "roof_fraction": vnum["roof_fraction"][i],
                    "headroom": vnum["headroom"][i],
                    "time_at_roof_ns": vnum["time_at_roof_ns"][i],
                    "scores": {lim: scores[lim][i] for lim in LIMITERS},
                    "explanation": vstr["explanation"][i],
                    "ncu_bottleneck": vstr["ncu_bottleneck"][i],
                    "agrees_with_ncu": agrees[i],
                    "not_checked": not_checked[i],
                    "utilization": dict(util_groups[c]),
                    "memory": memory_groups[c],
                    "roofline": roof_groups[c],
                    "hints": list(hint_groups[c]),
                }
            )
        yield out


def device_rows(analysis: Analysis) -> list[dict[str, Any]]:
    """One object per GPU the launches ran on (first-seen order): ``name`` (as the report names it, else the
    table entry), ``table`` (the built-in entry that fills peaks the report lacks; null: none, the report's
    own peaks only), ``basis`` (how it was identified: display_name, display_name+attributes, attributes,
    --device; null), ``launches``, ``peak_source`` (per figure source summary: report, report+table:<gpu>,
    override, missing ...; the distinct values over its launches) and ``missing_peaks`` (the peak figures some
    launch's roofline needs that nobody gave: give them with ``--peak KEY=VALUE`` or ``--device NAME``)."""
    lv = analysis.launches
    n = len(lv)

    def col(frame: pd.DataFrame, name: str) -> list[Any]:
        return frame[name].astype(object).tolist() if name in frame.columns else [None] * len(frame)

    names, tables, bases = col(lv, "device_name"), col(lv, "device_table"), col(lv, "device_basis")
    sources = col(analysis.peaks, "peak_source") if len(analysis.peaks) == n else [None] * n
    lacking = col(analysis.peaks, "missing_peaks") if len(analysis.peaks) == n else [None] * n
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for i in range(n):
        key = (_str(names[i]), _str(tables[i]), _str(bases[i]))
        row = out.setdefault(
            key,
            {"name": key[0], "table": key[1], "basis": key[2], "launches": 0, "peak_source": [], "missing_peaks": []},
        )
        row["launches"] += 1
        src = _str(sources[i])
        if src is not None and src not in row["peak_source"]:
            row["peak_source"].append(src)
        for fig in (_str(lacking[i]) or "").split(","):
            if fig and fig not in row["missing_peaks"]:
                row["missing_peaks"].append(fig)
    return list(out.values())


def to_dict(analysis: Analysis, summary: Summary | None = None) -> dict[str, Any]:
    """The JSON document as Python objects (see the module docstring for the keys); the ``summary`` part
    serialises ``summary`` (``ncu_roofline.summary.summarize(analysis)`` unless given)."""
    doc = _document(analysis, summary)
    doc["launches"] = [x for part in launch_objects(analysis) for x in part]
    return doc


def _document(analysis: Analysis, summary: Summary | None) -> dict[str, Any]:
    """The document without its ``launches``."""
    summary = summarize(analysis) if summary is None else summary

    def time_rows(column: str, t: pd.DataFrame) -> list[dict[str, Any]]:
        return [
            {
                column: _str(x[column]),
                "duration_ns": _num(x["duration_s"] * 1e9),
                "share": _num(x["share"]),
                "launches": _int(x["launches"]),
            }
            for x in records(t)
        ]

    top = summary.kernels.head(TOP_KERNELS)
    src = analysis.report.source
    return {
        "schema": SCHEMA,
        "tool": {"name": "ncu-roofline", "version": __version__},
        "sources": [
            {
                "report": _str(x["report"]),
                "path": _str(x["path"]),
                "flavour": _str(x["flavour"]),
                "ncu_version": _str(x["ncu_version"]),
                "launches": _int(x["launches"]),
                "skipped_lines": _int(x["skipped_lines"]),
                "skipped": _str(x["skipped"]),
                "not_understood": _str(x["not_understood"]),
            }
            for x in records(src)
        ],
        "devices": device_rows(analysis),
        "summary": {
            "by_limiter": time_rows("limiter", summary.by_limiter),
            "by_regime": time_rows("regime", summary.by_regime),
            "top_kernels": [
                {
                    "report": _str(x["report"]),
                    "kernel": _str(x["kernel_name"]),
                    "display_name": _str(x["display_name"]),
                    "launches": _int(x["launches"]),
                    "duration_ns": _num(x["duration_ns"]),
                    "share": _num(x["share"]),
                    "limiter": _str(x["limiter"]),
                    "compute_pipe": _str(x["compute_pipe"]),
                    "regime": _str(x["regime"]),
                }
                for x in records(top)
            ],
            "gpu_time_ns": _num(summary.gpu_time_ns),
            "kernels": len(summary.kernels),
            "ranges": [
                {
                    "report": _str(x["report"]),
                    "range": _str(x["range"]),
                    "launches": _int(x["launches"]),
                    "kernels": _int(x["kernels"]),
                    "duration_ns": _num(x["duration_ns"]),
                    "share": _num(x["share"]),
                    "limiter": _str(x["limiter"]),
                    "regime": _str(x["regime"]),
                }
                for x in records(summary.ranges)
            ],
            "findings": [
                {
                    "hint": _str(x["hint"]),
                    "source": _str(x["source"]),
                    "severity": _str(x["severity"]),
                    "launches": _int(x["launches"]),
                    "kernels": _int(x["kernels"]),
                    "duration_ns": _num(x["duration_ns"]),
                    "share": _num(x["share"]),
                    "recoverable_ns": _num(x["recoverable_ns"]),
                    "recoverable_share": _num(x["recoverable_share"]),
                }
                for x in records(summary.findings)
            ],
            "ncu_agreement": {
                "launches_compared": summary.agreement.launches_compared,
                "share": _num(summary.agreement.share),
            },
        },
    }


def json_chunks(analysis: Analysis, summary: Summary | None = None, *, pretty: bool = False) -> Iterator[str]:
    """The JSON document as text, in pieces (write each as it comes: a large report's document is never whole in
    memory): sorted keys, deterministic; compact (no spaces) unless ``pretty`` (two-space indent)."""
    if pretty:
        yield json.dumps(to_dict(analysis, summary), indent=2, sort_keys=True, allow_nan=False) + "\n"
        return
    encode = json.JSONEncoder(sort_keys=True, allow_nan=False, separators=(",", ":")).encode
    rest = _document(analysis, summary)
    # sorted keys: those before "launches" (devices), the launches as they come, then the others
    before = {k: v for k, v in rest.items() if k < "launches"}
    after = {k: v for k, v in rest.items() if k > "launches"}
    yield "{" + (encode(before)[1:-1] + "," if before else "") + '"launches":['
    first = True
    for part in launch_objects(analysis):
        yield ("" if first else ",") + encode(part)[1:-1]
        first = False
    yield "]" + ("," + encode(after)[1:] if after else "}") + "\n"


def render_json(analysis: Analysis, summary: Summary | None = None, *, pretty: bool = False) -> str:
    """The JSON document as text (``json_chunks`` joined)."""
    return "".join(json_chunks(analysis, summary, pretty=pretty))


def _render(run: Run, options: Options) -> Iterator[str]:
    return json_chunks(run.analysis, run.summary, pretty=options.pretty)


JSON: FunctionRenderer[Run] = FunctionRenderer("json", ".json", _render)
