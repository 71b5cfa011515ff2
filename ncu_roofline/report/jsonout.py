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

import gc
import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import orjson
import pandas as pd

from .. import __version__
from ..analysis import Analysis
from ..classify import LIMITERS, records
from ..model import LAUNCH_KEY
from ..summary import Summary, key_codes, summarize
from . import fmt
from .registry import FunctionRenderer, Options, Run

SCHEMA = 3
#: Launch objects per piece of streamed JSON.
CHUNK = 1024
#: Kernels listed in ``summary.top_kernels``.
TOP_KERNELS = 10


def _str(v: Any) -> str | None:
    return None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else str(v)


def _int(v: Any) -> int | None:
    return None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else int(v)


def _bool(v: Any) -> bool | None:
    return None if v is None or v is pd.NA else bool(v)


# Whole columns at once: what fmt.number, _str, _int and _bool do to each value, over a column (an object array of plain
# Python values, None for a missing one), so that a launch's object is built from list items, not from per-row
# records. The arrays are sliced per chunk of launches and turned into lists there (``.tolist()``).


def _column(frame: pd.DataFrame, name: str) -> pd.Series:
    """``frame[name]``, or a column of None where the frame has no such column."""
    if name in frame.columns:
        return frame[name]
    return pd.Series([None] * len(frame), index=frame.index, dtype=object)


class _Column:
    """A column's values, turned into plain Python values (None where missing) a slice at a time, so that the
    objects of a large report exist for one chunk of launches at once: ``values`` are floats (None where not
    finite), codes into ``table`` (-1: its last item, None), or Python objects."""

    def __init__(self, values: np.ndarray, table: np.ndarray | None = None) -> None:
        self.values, self.table = values, table

    def take(self, at: np.ndarray) -> _Column:
        """The values at ``at`` (-1: a missing value)."""
        v = self.values
        if self.table is not None:
            v = np.append(v, -1)
        elif v.dtype.kind == "f":
            v = np.append(v, np.nan)
        else:
            v = _with_none(v)
        return _Column(v[at], self.table)

    def list(self, a: int, b: int) -> list[Any]:
        v = self.values[a:b]
        if self.table is not None:
            out: list[Any] = self.table[v].tolist()
            return out
        if v.dtype.kind == "f":
            o = v.astype(object)
            o[~np.isfinite(v)] = None
            v = o
        values: list[Any] = v.tolist()
        return values


def _per_value(s: pd.Series, f: Any) -> _Column:
    out = np.empty(len(s), dtype=object)
    out[:] = [f(v) for v in s.tolist()]
    return _Column(out)


def _a_nums(s: pd.Series) -> _Column:
    """fmt.number over a column: floats, None where missing or not finite."""
    try:
        a = s.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        a = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    return _Column(a)


def _a_strs(s: pd.Series) -> _Column:
    """_str over a column: each distinct text once (a string column is factorised), None where missing."""
    if isinstance(s.dtype, pd.StringDtype):
        codes, uniques = pd.factorize(s)
        return _Column(codes, _with_none(np.array([str(u) for u in uniques], dtype=object)))
    if s.dtype == object:
        obj_codes, obj_uniques = pd.factorize(s.to_numpy())
        if all(type(u) is str for u in obj_uniques):  # text and missing values only: each distinct text once
            return _Column(obj_codes, _with_none(np.array(obj_uniques, dtype=object)))
    return _per_value(s, _str)


def _with_none(values: np.ndarray) -> np.ndarray:
    """``values`` (object) and one None after them, for a take where -1 means "none"."""
    out = np.empty(len(values) + 1, dtype=object)
    out[:-1] = values
    out[-1] = None
    return out


def _a_ints(s: pd.Series) -> _Column:
    """_int over a column: Python ints, None where missing."""
    if pd.api.types.is_integer_dtype(s.dtype) or pd.api.types.is_float_dtype(s.dtype):
        missing = s.isna().to_numpy()
        v = s.to_numpy(dtype=np.float64 if pd.api.types.is_float_dtype(s.dtype) else np.int64, na_value=0)
        if v.dtype.kind == "f" and not np.isfinite(v[~missing]).all():
            return _per_value(s, _int)  # int(inf) raises, as it always did
        out = v.astype(np.int64).astype(object)
        out[missing] = None
        return _Column(out)
    return _per_value(s, _int)


def _a_bools(s: pd.Series) -> _Column:
    """_bool over a column: Python bools, None where missing."""
    if pd.api.types.is_bool_dtype(s.dtype):
        missing = s.isna().to_numpy()
        out = s.to_numpy(dtype=bool, na_value=False).astype(object)
        out[missing] = None
        return _Column(out)
    return _per_value(s, _bool)


def _positions(launches: pd.DataFrame, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, int]:
    """Group codes by LAUNCH_KEY: one per launch row, one per ``frame`` row (equal codes, equal keys), and the
    number of codes."""
    codes = pd.factorize(np.concatenate(key_codes(launches, frame)))[0]  # numbered in order of first appearance
    n = len(launches)
    return codes[:n], codes[n:], int(codes.max()) + 1 if len(codes) else 0


class _Groups:
    """The rows of a frame grouped by launch code (input order kept within a group), with whole columns as object
    arrays in that order: ``lists(lo, hi)`` gives the values of the groups ``lo`` to ``hi`` - 1 only, and
    ``bounds`` says where each group's items start in the list of the groups from 0."""

    def __init__(self, codes: np.ndarray, keep: np.ndarray | None, n: int, columns: dict[str, _Column]) -> None:
        rows = np.arange(len(codes)) if keep is None else np.flatnonzero(keep)
        order = rows[np.argsort(codes[rows], kind="stable")]
        self.bounds = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(codes[order], minlength=n), out=self.bounds[1:])
        self.columns = {k: v.take(order) for k, v in columns.items()}

    def lists(self, lo: int, hi: int) -> tuple[list[int], dict[str, list[Any]]]:
        """The groups ``lo`` to ``hi`` - 1: where each one's items start (and the last ends) in their lists, and
        each column's values as a list."""
        a, b = int(self.bounds[lo]), int(self.bounds[hi])
        starts: list[int] = (self.bounds[lo : hi + 1] - a).tolist()
        return starts, {k: v.list(a, b) for k, v in self.columns.items()}


def _evidence(texts: list[str | None]) -> list[Any]:
    """Each hint row's evidence (a JSON list as text) parsed, all in one call; [] where there is none."""
    present = [t for t in texts if t]
    if not present:
        return [[] for _ in texts]
    joined = "[" + ",".join(present) + "]"
    try:
        values = orjson.loads(joined)
    except orjson.JSONDecodeError:  # what orjson does not read (an integer beyond 64 bits): the standard library
        values = json.loads(joined)
    parsed = iter(values)
    return [next(parsed) if t else [] for t in texts]


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused (objects are still freed by reference counting), then as it was."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


ROOF_NUMS = (
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
ROOF_TEXT = ("precision", "level", "dtype", "series", "bound", "work_recipe", "traffic_recipe")
VERDICT_TEXT = (
    "limiter",
    "compute_pipe",
    "regime",
    "basis",
    "reason",
    "missing",
    "pipe_basis",
    "explanation",
    "ncu_bottleneck",
)


def _split_cached(texts: list[str | None], sep: str, strip: bool) -> list[list[str]]:
    """Per value, the text split at ``sep`` ([] where missing or empty), each distinct text split once."""
    cache: dict[str, list[str]] = {}
    out: list[list[str]] = []
    for t in texts:
        if not t:
            out.append([])
            continue
        parts = cache.get(t)
        if parts is None:
            parts = cache[t] = [x.strip() for x in t.split(sep)] if strip else t.split(sep)
        out.append(list(parts))
    return out


def launch_objects(analysis: Analysis, chunk: int = CHUNK) -> Iterator[list[dict[str, Any]]]:
    """The ``launches`` objects (keys in the module docstring), in launch order, ``chunk`` at a time: built
    from whole columns of the analysis frames, chunk by chunk (the nested items too), so a large report never
    holds every object at once."""
    lf, vf = analysis.launches, analysis.verdicts
    n = len(lf)
    if not n:
        return
    util, roof, hints = analysis.utilization, analysis.roofline, analysis.hints
    # launches come first in each factorisation, so their codes are the same in the three
    l_codes, u_codes, n_util = _positions(lf, util)
    _, r_codes, n_roof = _positions(lf, roof)
    _, h_codes, n_hints = _positions(lf, hints)

    codes_u, names_u = pd.factorize(util["unit"], use_na_sentinel=False)
    unit = _Column(codes_u, np.array([str(u) for u in names_u], dtype=object))  # as str() gives it, "<NA>" too
    keep_unit = ~np.array([u.startswith("limiter_") for u in names_u.map(str)], dtype=bool)[codes_u]
    util_g = _Groups(u_codes, keep_unit, n_util, {"unit": unit, "value": _a_nums(util["value"])})

    roof_cols = {c: _a_nums(roof[c]) for c in ROOF_NUMS} | {c: _a_strs(_column(roof, c)) for c in ROOF_TEXT}
    roof_cols["estimate"] = _a_bools(_column(roof, "estimate"))
    flops = pd.to_numeric(roof["achieved_flops"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    has_work = np.isfinite(flops) & (flops > 0)
    # the memory items: the first row of each launch and level (traffic is precision-independent)
    level_key = roof["level"].astype(object).map(str)
    first = ~pd.concat([roof[list(LAUNCH_KEY)], level_key.rename("_level")], axis=1).duplicated().to_numpy()
    roof_g = _Groups(r_codes, has_work, n_roof, roof_cols)
    memory_g = _Groups(
        r_codes,
        first,
        n_roof,
        {k: roof_cols[k] for k in ("level", "achieved_bytes_per_s", "peak_bytes_per_s", "bandwidth_fraction")}
        | {"traffic_recipe": roof_cols["traffic_recipe"]},
    )
    hint_cols = {c: _a_strs(hints[c]) for c in ("hint", "severity", "source", "message", "advice", "evidence")}
    hint_cols["estimated_speedup"] = _a_nums(hints["estimated_speedup"])
    hint_g = _Groups(h_codes, None, n_hints, hint_cols)

    lcols: dict[str, _Column] = {c: _a_strs(lf[c]) for c in ("report", "kernel_name", "display_name", "nvtx_path")}
    lcols["device_name"] = _a_strs(_column(lf, "device_name"))
    lcols |= {c: _a_ints(lf[c]) for c in ("launch_id", "process_id", "grid_size", "block_size")}
    lcols["duration_ns"] = _a_nums(lf["duration_ns"])
    lcols |= {c: _a_strs(vf[c]) for c in VERDICT_TEXT}
    lcols |= {c: _a_nums(vf[c]) for c in ("roof_fraction", "headroom", "time_at_roof_ns")}
    lcols["partial"] = _a_bools(vf["partial"])
    lcols["agrees_with_ncu"] = _a_bools(vf["agrees_with_ncu"])
    lcols |= {f"score_{lim}": _a_nums(vf[f"score_{lim}"]) for lim in LIMITERS}
    unmeasured_text = _a_strs(vf["unmeasured"])
    not_checked_text = _a_strs(_column(vf, "not_checked"))
    recipes = analysis.recipes
    if len(recipes.columns) and len(recipes):
        recipes = recipes[~recipes.index.duplicated(keep="last")]
        at = recipes.index.get_indexer(pd.MultiIndex.from_frame(lf[list(LAUNCH_KEY)]))
        figures = [str(f) for f in recipes.columns]
        recipe_cols = [_a_strs(recipes[f]).take(at) for f in recipes.columns]  # at -1 (no row): None
    else:
        figures, recipe_cols = [], []

    def build(start: int) -> list[dict[str, Any]]:
        stop = min(n, start + chunk)
        codes = l_codes[start:stop]
        lo, hi = int(codes.min()), int(codes.max()) + 1
        col = {k: v.list(start, stop) for k, v in lcols.items()}
        unmeasured = _split_cached(unmeasured_text.list(start, stop), ",", strip=True)
        not_checked = _split_cached(not_checked_text.list(start, stop), "; ", strip=False)
        scores = [
            dict(zip(LIMITERS, row, strict=True))
            for row in zip(*(col[f"score_{lim}"] for lim in LIMITERS), strict=True)
        ]
        rec = [
            {f: v for f, v in zip(figures, row, strict=True) if v is not None}
            for row in zip(*(c.list(start, stop) for c in recipe_cols), strict=True)
        ] or [{} for _ in range(stop - start)]

        ub, u = util_g.lists(lo, hi)
        rb, r = roof_g.lists(lo, hi)
        roof_items = [
            {
                "precision": p,
                "level": lv,
                "dtype": dt,
                "series": se,
                "achieved_flops": af,
                "achieved_bytes_per_s": ab,
                "intensity": it,
                "peak_flops": pf,
                "peak_bytes_per_s": pb,
                "ridge_intensity": ri,
                "attainable_flops": at_,
                "roof_fraction": rf,
                "bound": bd,
                "work_recipe": wr,
                "traffic_recipe": tr,
                "estimate": es,
            }
            for p, lv, dt, se, af, ab, it, pf, pb, ri, at_, rf, bd, wr, tr, es in zip(
                r["precision"],
                r["level"],
                r["dtype"],
                r["series"],
                r["achieved_flops"],
                r["achieved_bytes_per_s"],
                r["intensity"],
                r["peak_flops"],
                r["peak_bytes_per_s"],
                r["ridge_intensity"],
                r["attainable_flops"],
                r["roof_fraction"],
                r["bound"],
                r["work_recipe"],
                r["traffic_recipe"],
                r["estimate"],
                strict=True,
            )
        ]
        mb, m = memory_g.lists(lo, hi)
        memory_items = [
            {"level": lv, "achieved_bytes_per_s": ab, "peak_bytes_per_s": pb, "fraction": fr, "recipe": tr}
            for lv, ab, pb, fr, tr in zip(
                m["level"],
                m["achieved_bytes_per_s"],
                m["peak_bytes_per_s"],
                m["bandwidth_fraction"],
                m["traffic_recipe"],
                strict=True,
            )
        ]
        hb, h = hint_g.lists(lo, hi)
        hint_items = [
            {
                "id": i_,
                "severity": sv,
                "source": so,
                "message": ms,
                "advice": ad,
                "evidence": ev,
                "estimated_speedup": sp,
            }
            for i_, sv, so, ms, ad, ev, sp in zip(
                h["hint"],
                h["severity"],
                h["source"],
                h["message"],
                h["advice"],
                _evidence(h["evidence"]),
                h["estimated_speedup"],
                strict=True,
            )
        ]
        units, values = u["unit"], u["value"]
        out = []
        for j, c in enumerate((codes - lo).tolist()):
            out.append(
                {
                    "report": col["report"][j],
                    "id": col["launch_id"][j],
                    "process_id": col["process_id"][j],
                    "kernel": col["kernel_name"][j],
                    "display_name": col["display_name"][j],
                    "device": col["device_name"][j],
                    "nvtx_path": col["nvtx_path"][j],
                    "grid_size": col["grid_size"][j],
                    "block_size": col["block_size"][j],
                    "duration_ns": col["duration_ns"][j],
                    "limiter": col["limiter"][j],
                    "compute_pipe": col["compute_pipe"][j],
                    "regime": col["regime"][j],
                    "basis": col["basis"][j],
                    "reason": col["reason"][j],
                    "missing": col["missing"][j],
                    "unmeasured": unmeasured[j],
                    "partial": col["partial"][j],
                    "recipes": rec[j],
                    "pipe_basis": col["pipe_basis"][j],
                    "roof_fraction": col["roof_fraction"][j],
                    "headroom": col["headroom"][j],
                    "time_at_roof_ns": col["time_at_roof_ns"][j],
                    "scores": scores[j],
                    "explanation": col["explanation"][j],
                    "ncu_bottleneck": col["ncu_bottleneck"][j],
                    "agrees_with_ncu": col["agrees_with_ncu"][j],
                    "not_checked": not_checked[j],
                    "utilization": dict(zip(units[ub[c] : ub[c + 1]], values[ub[c] : ub[c + 1]], strict=True)),
                    "memory": memory_items[mb[c] : mb[c + 1]],
                    "roofline": roof_items[rb[c] : rb[c + 1]],
                    "hints": hint_items[hb[c] : hb[c + 1]],
                }
            )
        return out

    for start in range(0, n, chunk):
        with _gc_paused():  # the items are acyclic; collecting during their build would double its time
            part = build(start)
        yield part


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
        return _a_strs(_column(frame, name)).list(0, len(frame))

    names, tables, bases = col(lv, "device_name"), col(lv, "device_table"), col(lv, "device_basis")
    sources = col(analysis.peaks, "peak_source") if len(analysis.peaks) == n else [None] * n
    lacking = col(analysis.peaks, "missing_peaks") if len(analysis.peaks) == n else [None] * n
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    seen: set[tuple[Any, ...]] = set()  # (device key, source, missing peaks) already counted in
    for key3 in zip(names, tables, bases, strict=True):
        out.setdefault(
            key3,
            {
                "name": key3[0],
                "table": key3[1],
                "basis": key3[2],
                "launches": 0,
                "peak_source": [],
                "missing_peaks": [],
            },
        )["launches"] += 1
    for key3, src, lack in zip(zip(names, tables, bases, strict=True), sources, lacking, strict=True):
        if (key3, src, lack) in seen:
            continue
        seen.add((key3, src, lack))
        row = out[key3]
        if src is not None and src not in row["peak_source"]:
            row["peak_source"].append(src)
        for fig in (lack or "").split(","):
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
                "duration_ns": fmt.number(x["duration_s"] * 1e9),
                "share": fmt.number(x["share"]),
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
                    "duration_ns": fmt.number(x["duration_ns"]),
                    "share": fmt.number(x["share"]),
                    "limiter": _str(x["limiter"]),
                    "compute_pipe": _str(x["compute_pipe"]),
                    "regime": _str(x["regime"]),
                }
                for x in records(top)
            ],
            "gpu_time_ns": fmt.number(summary.gpu_time_ns),
            "kernels": len(summary.kernels),
            "ranges": [
                {
                    "report": _str(x["report"]),
                    "range": _str(x["range"]),
                    "launches": _int(x["launches"]),
                    "kernels": _int(x["kernels"]),
                    "duration_ns": fmt.number(x["duration_ns"]),
                    "share": fmt.number(x["share"]),
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
                    "duration_ns": fmt.number(x["duration_ns"]),
                    "share": fmt.number(x["share"]),
                    "recoverable_ns": fmt.number(x["recoverable_ns"]),
                    "recoverable_share": fmt.number(x["recoverable_share"]),
                }
                for x in records(summary.findings)
            ],
            "ncu_agreement": {
                "launches_compared": summary.agreement.launches_compared,
                "share": fmt.number(summary.agreement.share),
            },
        },
    }


def json_chunks(analysis: Analysis, summary: Summary | None = None, *, pretty: bool = False) -> Iterator[str]:
    """The JSON document as text, in pieces (write each as it comes: a large report's document is never whole in
    memory): sorted keys, deterministic; compact (no spaces) unless ``pretty`` (two-space indent)."""
    if pretty:
        yield json.dumps(to_dict(analysis, summary), indent=2, sort_keys=True, allow_nan=False) + "\n"
        return
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


_STDLIB = json.JSONEncoder(sort_keys=True, allow_nan=False, separators=(",", ":")).encode


def encode(value: Any) -> str:
    """``value`` as compact JSON text with sorted keys, ASCII only (as ``json.dumps`` writes it, non-ASCII
    characters escaped): by orjson, five times the standard library's speed on the launch objects; by the standard
    library where orjson's text would not be ASCII or orjson cannot (a lone surrogate, an integer beyond 64 bits).
    Floats are written as their shortest round-trip form either way (orjson spells some differently, 1e-05 as
    0.00001: the same number)."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return _STDLIB(value)
    return text.decode("ascii") if text.isascii() else _STDLIB(value)


def render_json(analysis: Analysis, summary: Summary | None = None, *, pretty: bool = False) -> str:
    """The JSON document as text (``json_chunks`` joined)."""
    return "".join(json_chunks(analysis, summary, pretty=pretty))


def _render(run: Run, options: Options) -> Iterator[str]:
    return json_chunks(run.analysis, run.summary, pretty=options.pretty)


JSON: FunctionRenderer[Run] = FunctionRenderer("json", ".json", _render)
