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
``block_size``, ``duration_ns``, ``invocations`` (1; a summary page's group: its count, whose average the row
holds), ``limiter``, ``compute_pipe``, ``regime``, ``basis``, ``reason``, ``missing``,
``unmeasured`` (list of the units the export did not measure: hbm, l2, l1, compute, sm, shared), ``partial`` (the
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
``hints`` (list of {id, severity, source, message, advice, evidence, estimated_speedup,
estimated_speedup_less_work}).

Which roofline rows: the points ncu's hierarchical roofline charts draw, i.e. the precisions (fp64, fp32,
fp16, and the launch's dominant tensor series) with achieved work above zero, at each of the three levels. A
precision the launch does no work in has no point on a log-log chart and is left out; a launch without any
floating-point or tensor work has an empty list (its traffic is in ``memory``). Missing numbers, and the
infinite intensity of work without traffic, are ``null``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from itertools import chain, pairwise, repeat
from typing import Any

import numpy as np
import orjson
import pandas as pd

from .. import __version__
from ..analysis import Analysis
from ..classify import LIMITERS, records
from ..hints import read_evidence
from ..model import LAUNCH_KEY
from ..summary import LaunchKeys, Summary, launch_weights, summarize
from ..vector import distinct_rows, few_distinct_rows, first_of_each, text_codes
from . import fmt, gc_paused
from .registry import FunctionRenderer, Options, Run

SCHEMA = 6
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


#: The piece written for a value orjson cannot write (a lone surrogate, an integer beyond 64 bits): not ASCII, so
#: the text it is in is written again by the standard library, as ``encode`` does.
_NOT_ORJSON = b"\xff"


def _orjson_text(value: Any) -> bytes:
    """``value`` as orjson writes it (sorted keys), or _NOT_ORJSON."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return _NOT_ORJSON


def _stdlib_text(value: Any) -> bytes:
    """``value`` as the standard library writes it in ``encode`` (ASCII, sorted keys, floats as repr)."""
    return _STDLIB(value).encode("ascii")


#: The two dialects of ``encode``'s text: orjson's (``std`` False) and the standard library's (``std`` True).
_ENCODERS = {False: _orjson_text, True: _stdlib_text}


def _each(values: list[Any], std: bool) -> np.ndarray:
    """An object array of the JSON text of each value, in the dialect ``std`` says (texts, or lists: in one call)."""
    out = np.empty(len(values), dtype=object)
    texts = _in_one(values, std)
    if texts is None:
        encoder = _ENCODERS[std]
        texts = [encoder(v) for v in values]
    out[:] = texts
    return out


#: Per kind of item: the text between two items of a list of them, and that text with a NUL (a byte JSON text
#: never holds: control characters are escaped) where the cut goes.
_BETWEEN: dict[type, tuple[bytes, bytes]] = {str: (b'","', b'"\0"'), list: (b"],[", b"]\0[")}


def _in_one(values: list[Any], std: bool) -> list[bytes] | None:
    """The JSON text of each of some texts or lists (None: null), cut from one encoding of the list of them; None
    where they are of other kinds, where orjson cannot write one of them (each is then written alone), or where the
    cut may not be between items. In a list of texts, ``","`` is found between two items, and inside one only as
    an escaped quote, a comma and a quote (``\\","``: the cut is not used where those four bytes are found).
    ``],[`` lies between two lists, and inside one only within a string or a nested list: then it is found more
    than once per gap (it cannot overlap itself), and the cut is not used."""
    present = [v for v in values if v is not None]  # None: null
    kind = type(present[0]) if present else None
    if kind not in _BETWEEN or not all(type(v) is kind for v in present):
        return None
    between, cut = _BETWEEN[kind]
    try:
        whole = orjson.dumps(present, option=orjson.OPT_SORT_KEYS) if not std else _STDLIB(present).encode("ascii")
    except orjson.JSONEncodeError:
        return None
    if kind is str and b'\\","' in whole:
        return None
    # from inside the first item (a match at its opening quote would not be a gap), its opening put back
    pieces = (whole[1:2] + whole[2:-2].replace(between, cut) + whole[-2:-1]).split(b"\0")
    if len(pieces) != len(present):
        return None
    if len(present) == len(values):
        return pieces
    if len(present) == len(values) - 1 and values[-1] is None:  # a table and its None (``_with_none``)
        return [*pieces, b"null"]
    it = iter(pieces)
    return [b"null" if v is None else next(it) for v in values]


class _Column:
    """A column's values, turned into plain Python values (None where missing) or into JSON text a slice at a
    time, so that the objects of a large report exist for one chunk of launches at once: ``values`` are floats
    (None where not finite), codes into ``table`` (-1: its last item, None), or Python objects (``scalars``: ints,
    bools and None only, whose JSON text has no comma and is the same in both dialects)."""

    def __init__(self, values: np.ndarray, table: np.ndarray | None = None, *, scalars: bool = False) -> None:
        self.values, self.table, self.scalars = values, table, scalars
        #: The JSON text of each item of ``table``, per dialect (shared by the columns taken from this one).
        self.texts: dict[bool, np.ndarray] = {}

    def take(self, at: np.ndarray) -> _Column:
        """The values at ``at`` (-1: a missing value)."""
        v = self.values
        if self.table is not None:
            v = np.append(v, -1)
        elif v.dtype.kind == "f":
            v = np.append(v, np.nan)
        else:
            v = _with_none(v)
        out = _Column(v[at], self.table, scalars=self.scalars)
        out.texts = self.texts
        return out

    def python(self, a: int, b: int) -> list[Any]:
        """The values of rows ``a`` to ``b`` - 1 as plain Python values (None where missing)."""
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

    def json(self, a: int, b: int, std: bool) -> list[bytes]:
        """The JSON text of each value of rows ``a`` to ``b`` - 1 in the dialect ``std`` says: floats and integers
        by one call per slice, a table's items encoded once."""
        v = self.values[a:b]
        if self.table is not None:
            if std not in self.texts:
                self.texts[std] = _each(self.table.tolist(), std)
            out: list[bytes] = self.texts[std][v].tolist()
            return out
        if not len(v):
            return []
        if v.dtype.kind == "f" and not std:  # NaN and infinities are null, as fmt.number's None
            return orjson.dumps(np.ascontiguousarray(v), option=orjson.OPT_SERIALIZE_NUMPY)[1:-1].split(b",")
        if v.dtype.kind == "f" or self.scalars:
            return _ENCODERS[std](self.python(a, b))[1:-1].split(b",")
        return _each(v.tolist(), std).tolist()  # type: ignore[no-any-return]

    def at(self, rows: np.ndarray) -> _Column:
        """The rows ``rows`` (positions), sharing the table's texts."""
        out = _Column(self.values[rows], self.table, scalars=self.scalars)
        out.texts = self.texts
        return out

    def codes(self) -> np.ndarray:
        """One int64 per row, equal where the JSON text is equal: table codes, a float's bits, an object's
        factorisation (-1: missing)."""
        v = self.values
        if self.table is not None:
            return v.astype(np.int64)
        if v.dtype.kind == "f":  # by bits: 0.0 and -0.0 are written differently
            return pd.factorize(np.ascontiguousarray(v, dtype=np.float64).view(np.int64))[0].astype(np.int64)
        return pd.factorize(v)[0].astype(np.int64)


class _Rows:
    """The JSON texts of the rows of some columns (all of one length), written by a ``make`` function from each
    column's texts; where rows repeat (at most half of them distinct: every value the same), each distinct row is
    written once and its text taken for every row like it."""

    def __init__(self, columns: dict[str, _Column], n: int) -> None:
        self.columns, self.n = columns, n
        self._distinct: tuple[np.ndarray, np.ndarray] | None = None  # (row codes, a row of each code)
        self._checked = False
        self._texts: dict[tuple[str, bool], np.ndarray] = {}

    def distinct(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Each row's code (numbered in order of first appearance) and the first row of each code, where at most
        half of the rows are distinct; else None."""
        if not self._checked:
            self._checked = True
            if self.columns:  # tables' codes first (no hashing), stopped once more than half are distinct
                ordered = sorted(self.columns.values(), key=lambda column: column.table is None)
                self._distinct = few_distinct_rows((column.codes() for column in ordered), self.n // 2)
            else:  # no column: every row alike
                self._distinct = (np.zeros(self.n, dtype=np.int64), np.zeros(min(self.n, 1), dtype=np.int64))
        return self._distinct

    def texts(self, a: int, b: int, std: bool, name: str, make: Callable[[Getter], list[bytes]]) -> list[bytes]:
        """The texts of rows ``a`` to ``b`` - 1: ``make(get)``, ``get(column)`` giving the column's texts (cached
        by ``name`` and dialect where rows repeat)."""
        distinct = self.distinct()
        if distinct is None:
            return make(lambda c: self.columns[c].json(a, b, std))
        codes, first = distinct
        if (name, std) not in self._texts:
            table = np.empty(len(first), dtype=object)
            table[:] = make(lambda c: self.columns[c].at(first).json(0, len(first), std))
            self._texts[name, std] = table
        out: list[bytes] = self._texts[name, std][codes[a:b]].tolist()
        return out


#: A column's JSON texts by its name (what ``_Rows.texts`` hands its ``make`` function).
Getter = Callable[[str], list[bytes]]


def _per_value(s: pd.Series, f: Any) -> _Column:
    out = np.empty(len(s), dtype=object)
    out[:] = [f(v) for v in s.tolist()]
    return _Column(out, scalars=f is not _str)


def _a_nums(s: pd.Series) -> _Column:
    """fmt.number over a column: floats, None where missing or not finite."""
    try:
        a = s.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        a = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    return _Column(a)


def _a_strs(s: pd.Series) -> _Column:
    """_str over a column: each distinct text once (a string column is factorised), None where missing."""
    if isinstance(s.array, pd.arrays.ArrowStringArray):
        codes, distinct = text_codes(s)
        return _Column(codes, _with_none(distinct.to_numpy(zero_copy_only=False)))
    if isinstance(s.dtype, pd.StringDtype):
        codes, uniques = pd.factorize(s)
        return _Column(codes, _with_none(uniques.to_numpy(dtype=object)))
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
        return _Column(out, scalars=True)
    return _per_value(s, _int)


def _a_bools(s: pd.Series) -> _Column:
    """_bool over a column: Python bools, None where missing."""
    if pd.api.types.is_bool_dtype(s.dtype):
        missing = s.isna().to_numpy()
        out = s.to_numpy(dtype=bool, na_value=False).astype(object)
        out[missing] = None
        return _Column(out, scalars=True)
    return _per_value(s, _bool)


def _positions(codes: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray, int]:
    """Group codes by LAUNCH_KEY from the key codes of the launches and of a frame's rows: one per launch row, one
    per row of the frame (equal codes, equal keys), and the number of codes."""
    n = len(codes[0])
    both = pd.factorize(np.concatenate(codes))[0]  # numbered in order of first appearance
    return both[:n], both[n:], int(both.max()) + 1 if len(both) else 0


class _Groups:
    """The rows of a frame grouped by launch code (the order of ``rows`` kept within a group; all rows in order
    unless given, as positions or a mask), with whole columns as object arrays in that order: ``lists(lo, hi)``
    gives the values of the groups ``lo`` to ``hi`` - 1 only, and ``bounds`` says where each group's items start
    in the list of the groups from 0."""

    def __init__(self, codes: np.ndarray, rows: np.ndarray | None, n: int, columns: dict[str, _Column]) -> None:
        if rows is None:
            rows = np.arange(len(codes))
        elif rows.dtype == bool:
            rows = np.flatnonzero(rows)
        order = rows[np.argsort(codes[rows], kind="stable")]
        self.bounds = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(codes[order], minlength=n), out=self.bounds[1:])
        self.columns = {k: v.take(order) for k, v in columns.items()}
        self.rows = _Rows(self.columns, len(order))

    def span(self, lo: int, hi: int) -> tuple[list[int], int, int]:
        """The groups ``lo`` to ``hi`` - 1: where each one's items start (and the last ends) in their slice, and
        the slice (start, stop) of the columns."""
        a, b = int(self.bounds[lo]), int(self.bounds[hi])
        starts: list[int] = (self.bounds[lo : hi + 1] - a).tolist()
        return starts, a, b

    def lists(self, lo: int, hi: int) -> tuple[list[int], dict[str, list[Any]]]:
        """The groups ``lo`` to ``hi`` - 1: where each one's items start (and the last ends) in their lists, and
        each column's values as a list."""
        starts, a, b = self.span(lo, hi)
        return starts, {k: v.python(a, b) for k, v in self.columns.items()}

    def json(self, lo: int, hi: int, keys: dict[str, str], std: bool) -> list[bytes]:
        """Per group ``lo`` to ``hi`` - 1, the JSON text (dialect ``std``) of its items, comma-separated, each an
        object (``keys``: JSON key -> column, written in sorted order): the list without its brackets (the
        enclosing object writes them, ``_objects_json``'s ``around``)."""
        starts, a, b = self.span(lo, hi)

        def make(get: Getter) -> list[bytes]:
            return _objects_json({k: get(c) for k, c in keys.items()})

        return _grouped(self.rows.texts(a, b, std, "objects", make), starts)


def _objects_json(columns: dict[str, list[bytes]], around: dict[str, bytes] | None = None) -> list[bytes]:
    """Per row, the JSON object of ``columns`` (key -> the JSON text of each row's value), keys sorted: the text of
    a row joined from its pieces in one call. ``around``: key -> the two brackets its texts go between (b"[]" for
    a list's items), written with the key and the key after it, so that the texts are not copied to add them."""
    return list(map(b"".join, zip(*_object_pieces(columns, around or {}), strict=False)))  # the keys repeat


def _objects_joined(columns: dict[str, list[bytes]], around: dict[str, bytes]) -> bytes:
    """``b",".join(_objects_json(columns, around))``, joined from every row's pieces in one call (each row's text is
    not made and copied again)."""
    return b"".join(chain.from_iterable(zip(*_object_pieces(columns, around, b","), strict=False)))


def _object_pieces(columns: dict[str, list[bytes]], around: dict[str, bytes], between: bytes = b"") -> list[Any]:
    """The pieces of each row's object (``_objects_json``), as iterables to zip: the keys' texts repeated, each
    column's texts between them; ``between`` goes before every row's object but the first."""
    parts: list[Any] = []
    close = b""  # what the key before leaves to close
    for i, key in enumerate(sorted(columns)):
        brackets = around.get(key, b"")
        parts.append(repeat(close + (b"," if i else b"{") + orjson.dumps(key) + b":" + brackets[:1]))
        parts.append(columns[key])
        close = brackets[1:]
    parts.append(repeat(close + b"}"))
    if between:  # the first row's opening alone, every later row's after ``between``
        opening = next(parts[0])
        parts[0] = chain([opening], repeat(between + opening))
    return parts


def _grouped(items: list[bytes], starts: list[int]) -> list[bytes]:
    """Per group (its items from ``starts[g]`` to ``starts[g + 1]``), the items comma-separated (no brackets)."""
    return [b",".join(items[a:b]) for a, b in pairwise(starts)]


def _evidence(texts: list[str | None]) -> list[Any]:
    """Each hint row's evidence (a JSON list as text) parsed, all in one call; [] where there is none."""
    present = [t for t in texts if t]
    if not present:
        return [[] for _ in texts]
    parsed = iter(read_evidence("[" + ",".join(present) + "]"))
    return [next(parsed) if t else [] for t in texts]


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
#: The items of ``roofline`` (JSON key -> roofline column).
ROOF_ITEM = {c: c for c in (*ROOF_TEXT[:4], *ROOF_NUMS[:-1], *ROOF_TEXT[4:], "estimate")}
#: The items of ``memory``.
MEMORY_ITEM = {
    "level": "level",
    "achieved_bytes_per_s": "achieved_bytes_per_s",
    "peak_bytes_per_s": "peak_bytes_per_s",
    "fraction": "bandwidth_fraction",
    "recipe": "traffic_recipe",
}
#: The items of ``hints``.
HINT_ITEM = {
    "id": "hint",
    "severity": "severity",
    "source": "source",
    "message": "message",
    "advice": "advice",
    "evidence": "evidence",
    "estimated_speedup": "estimated_speedup",
    "estimated_speedup_less_work": "estimated_speedup_less_work",
}
#: A launch's keys taken straight from one of its columns (JSON key -> column).
LAUNCH_ITEM = {
    "report": "report",
    "id": "launch_id",
    "process_id": "process_id",
    "kernel": "kernel_name",
    "display_name": "display_name",
    "device": "device_name",
    "nvtx_path": "nvtx_path",
    "grid_size": "grid_size",
    "block_size": "block_size",
    "duration_ns": "duration_ns",
    "invocations": "invocations",
    **{c: c for c in VERDICT_TEXT},
    "partial": "partial",
    "roof_fraction": "roof_fraction",
    "headroom": "headroom",
    "time_at_roof_ns": "time_at_roof_ns",
    "agrees_with_ncu": "agrees_with_ncu",
}


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


class _Launches:
    """The columns of the ``launches`` objects, prepared once from the analysis frames; ``objects`` and ``json``
    build the objects of a slice of launches (as Python objects, or as JSON text straight from the columns)."""

    def __init__(self, analysis: Analysis, keys: LaunchKeys | None = None) -> None:
        lf, vf = analysis.launches, analysis.verdicts
        self.n = len(lf)
        util, roof, hints = analysis.utilization, analysis.roofline, analysis.hints
        # launches come first in each factorisation, so their codes are the same in the three
        keys = LaunchKeys(analysis) if keys is None else keys
        self.codes, u_codes, n_util = _positions(keys.codes("utilization"))
        _, r_codes, n_roof = _positions(keys.codes("roofline"))
        _, h_codes, n_hints = _positions(keys.codes("hints"))

        codes_u, names_u = pd.factorize(util["unit"], use_na_sentinel=False)
        unit_names = [str(u) for u in names_u]  # as str() gives it, "<NA>" too
        unit = _Column(codes_u, np.array(unit_names, dtype=object))
        keep_unit = ~np.array([u.startswith("limiter_") for u in unit_names], dtype=bool)[codes_u]
        value = _a_nums(util["value"])
        self.util = _Groups(u_codes, keep_unit, n_util, {"unit": unit, "value": value})
        # for the JSON text: per launch, each unit once (its last row, as a dict keeps it) in sorted order
        rows = np.flatnonzero(keep_unit)
        pair = u_codes[rows] * max(len(unit_names), 1) + codes_u[rows]
        last = rows[len(rows) - 1 - first_of_each(pd.factorize(pair[::-1])[0])]
        rank = np.argsort(np.argsort(np.array(unit_names, dtype=object), kind="stable"))
        last = last[np.argsort(rank[codes_u[last]], kind="stable")]
        self.util_json = _Groups(u_codes, last, n_util, {"unit": unit, "value": value})

        roof_cols = {c: _a_nums(roof[c]) for c in ROOF_NUMS} | {c: _a_strs(_column(roof, c)) for c in ROOF_TEXT}
        roof_cols["estimate"] = _a_bools(_column(roof, "estimate"))
        flops = pd.to_numeric(roof["achieved_flops"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        has_work = np.isfinite(flops) & (flops > 0)
        # the memory items: the first row of each launch and level (traffic is precision-independent)
        level = pd.factorize(roof["level"], use_na_sentinel=False)[0] if len(roof) else np.zeros(0, dtype=np.int64)
        first = np.zeros(len(roof), dtype=bool)
        first[
            first_of_each(
                pd.factorize(r_codes.astype(np.int64) * (int(level.max()) + 1 if len(level) else 1) + level)[0]
            )
        ] = True
        self.roof = _Groups(r_codes, has_work, n_roof, roof_cols)
        self.memory = _Groups(r_codes, first, n_roof, {k: roof_cols[k] for k in MEMORY_ITEM.values()})
        hint_cols = {c: _a_strs(hints[c]) for c in ("hint", "severity", "source", "message", "advice", "evidence")}
        hint_cols |= {c: _a_nums(hints[c]) for c in ("estimated_speedup", "estimated_speedup_less_work")}
        self.hints = _Groups(h_codes, None, n_hints, hint_cols)

        cols: dict[str, _Column] = {c: _a_strs(lf[c]) for c in ("report", "kernel_name", "display_name", "nvtx_path")}
        cols["device_name"] = _a_strs(_column(lf, "device_name"))
        cols |= {c: _a_ints(lf[c]) for c in ("launch_id", "process_id", "grid_size", "block_size", "invocations")}
        cols["duration_ns"] = _a_nums(lf["duration_ns"])
        cols |= {c: _a_strs(vf[c]) for c in VERDICT_TEXT}
        cols |= {c: _a_nums(vf[c]) for c in ("roof_fraction", "headroom", "time_at_roof_ns")}
        cols["partial"] = _a_bools(vf["partial"])
        cols["agrees_with_ncu"] = _a_bools(vf["agrees_with_ncu"])
        cols |= {f"score_{lim}": _a_nums(vf[f"score_{lim}"]) for lim in LIMITERS}
        self.columns = cols
        self.unmeasured = _a_strs(vf["unmeasured"])
        self.not_checked = _a_strs(_column(vf, "not_checked"))
        recipes = analysis.recipes
        if len(recipes.columns) and len(recipes):
            recipes = recipes[~recipes.index.duplicated(keep="last")]
            at = recipes.index.get_indexer(pd.MultiIndex.from_frame(lf[list(LAUNCH_KEY)]))
            self.figures = [str(f) for f in recipes.columns]
            self.recipes = [_a_strs(recipes[f]).take(at) for f in recipes.columns]  # at -1 (no row): None
        else:
            self.figures, self.recipes = [], []
        self.recipe_rows = _Rows(dict(zip(self.figures, self.recipes, strict=True)), self.n)
        self.evidence: list[Any] | None = None  # each distinct evidence text parsed, once
        self.split_texts: dict[tuple[str, bool], np.ndarray] = {}

    def objects(self, start: int, stop: int) -> list[dict[str, Any]]:
        """The launch objects of rows ``start`` to ``stop`` - 1."""
        codes = self.codes[start:stop]
        lo, hi = int(codes.min()), int(codes.max()) + 1
        col = {k: v.python(start, stop) for k, v in self.columns.items()}
        unmeasured = _split_cached(self.unmeasured.python(start, stop), ",", strip=True)
        not_checked = _split_cached(self.not_checked.python(start, stop), "; ", strip=False)
        scores = [
            dict(zip(LIMITERS, row, strict=True))
            for row in zip(*(col[f"score_{lim}"] for lim in LIMITERS), strict=True)
        ]
        rec = [
            {f: v for f, v in zip(self.figures, row, strict=True) if v is not None}
            for row in zip(*(c.python(start, stop) for c in self.recipes), strict=True)
        ] or [{} for _ in range(stop - start)]

        ub, u = self.util.lists(lo, hi)
        rb, r = self.roof.lists(lo, hi)
        roof_items = [
            dict(zip(ROOF_ITEM, row, strict=True)) for row in zip(*(r[c] for c in ROOF_ITEM.values()), strict=True)
        ]
        mb, m = self.memory.lists(lo, hi)
        memory_items = [
            dict(zip(MEMORY_ITEM, row, strict=True)) for row in zip(*(m[c] for c in MEMORY_ITEM.values()), strict=True)
        ]
        hb, h = self.hints.lists(lo, hi)
        h["evidence"] = _evidence(h["evidence"])
        hint_items = [
            dict(zip(HINT_ITEM, row, strict=True)) for row in zip(*(h[c] for c in HINT_ITEM.values()), strict=True)
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
                    "invocations": col["invocations"][j],
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

    def json(self, start: int, stop: int, std: bool) -> bytes:
        """The JSON text of the launch objects of rows ``start`` to ``stop`` - 1, comma-separated, in the dialect
        ``std`` says (``encode(self.objects(start, stop))[1:-1]``, the orjson text where it is ASCII, else the
        standard library's): each value's text from its column (a distinct text encoded once), each object's text
        joined from its pieces."""
        codes = self.codes[start:stop]
        lo, hi = int(codes.min()), int(codes.max()) + 1
        rel = (codes - lo).tolist()
        parts = {key: self.columns[name].json(start, stop, std) for key, name in LAUNCH_ITEM.items()}
        parts["scores"] = _objects_json({lim: self.columns[f"score_{lim}"].json(start, stop, std) for lim in LIMITERS})
        parts["unmeasured"] = self._split_json("unmeasured", start, stop, std)
        parts["not_checked"] = self._split_json("not_checked", start, stop, std)
        parts["recipes"] = self._recipes_json(start, stop, std)
        starts, a, b = self.util_json.span(lo, hi)

        def unit_value(get: Getter) -> list[bytes]:  # "unit":value, the unit's text as a key
            return [u + b":" + v for u, v in zip(get("unit"), get("value"), strict=True)]

        per_group = {
            "utilization": _grouped(self.util_json.rows.texts(a, b, std, "units", unit_value), starts),
            "memory": self.memory.json(lo, hi, MEMORY_ITEM, std),
            "roofline": self.roof.json(lo, hi, ROOF_ITEM, std),
            "hints": self._hints_json(lo, hi, std),
        }
        for key, texts in per_group.items():
            parts[key] = [texts[c] for c in rel]
        return _objects_joined(parts, GROUP_BRACKETS)

    def _hints_json(self, lo: int, hi: int, std: bool) -> list[bytes]:
        """Per launch group ``lo`` to ``hi`` - 1, its ``hints`` list as JSON text; each distinct evidence text
        parsed once (as ``_evidence`` parses it) and written once."""
        evidence = self.hints.columns["evidence"]
        if evidence.table is None:
            raise _NotPlain("evidence")
        if std not in evidence.texts:
            if self.evidence is None:
                self.evidence = [read_evidence(t) if t else [] for t in evidence.table.tolist()]
            evidence.texts[std] = _each(self.evidence, std)
        return self.hints.json(lo, hi, HINT_ITEM, std)

    def _recipes_json(self, start: int, stop: int, std: bool) -> list[bytes]:
        """Per launch, its ``recipes`` object (figure -> recipe, the figures it has) as JSON text (each distinct
        set of recipes written once where they repeat)."""
        if not self.recipes:
            return [b"{}"] * (stop - start)
        if len(set(self.figures)) < len(self.figures):
            raise _NotPlain("recipes")  # a figure twice: the object keeps one
        figures = sorted(self.figures)

        def make(get: Getter) -> list[bytes]:
            cols = []
            for figure in figures:
                key = b"," + _ENCODERS[std](figure) + b":"
                cols.append([b"" if t == b"null" else key + t for t in get(figure)])
            return [b"{" + b"".join(row)[1:] + b"}" for row in zip(*cols, strict=True)]

        return self.recipe_rows.texts(start, stop, std, "recipes", make)

    def _split_json(self, name: str, start: int, stop: int, std: bool) -> list[bytes]:
        """Per row, the ``unmeasured`` (split at ",", stripped) or ``not_checked`` (split at "; ") text as a JSON
        list ([] where missing or empty), each distinct text once."""
        column = self.unmeasured if name == "unmeasured" else self.not_checked
        sep, strip = (",", True) if name == "unmeasured" else ("; ", False)
        if column.table is None:
            return _each(_split_cached(column.python(start, stop), sep, strip), std).tolist()  # type: ignore[no-any-return]
        if (name, std) not in self.split_texts:
            self.split_texts[name, std] = _each(_split_cached(column.table.tolist(), sep, strip), std)
        out: list[bytes] = self.split_texts[name, std][column.values[start:stop]].tolist()
        return out


#: The brackets of a launch's grouped values (``_Launches.json``: each group's text is written without them).
GROUP_BRACKETS = {"utilization": b"{}", "memory": b"[]", "roofline": b"[]", "hints": b"[]"}


class _NotPlain(Exception):
    """The JSON text cannot be written from the columns for this analysis (the objects are encoded instead)."""


def launch_objects(analysis: Analysis, chunk: int = CHUNK) -> Iterator[list[dict[str, Any]]]:
    """The ``launches`` objects (keys in the module docstring), in launch order, ``chunk`` at a time: built
    from whole columns of the analysis frames, chunk by chunk (the nested items too), so a large report never
    holds every object at once."""
    if not len(analysis.launches):
        return
    launches = _Launches(analysis)
    for start in range(0, launches.n, chunk):
        with gc_paused():  # the items are acyclic; collecting during their build would double its time
            part = launches.objects(start, min(launches.n, start + chunk))
        yield part


def launch_json(analysis: Analysis, chunk: int = CHUNK, *, keys: LaunchKeys | None = None) -> Iterator[bytes]:
    """The ``launches`` objects as compact JSON text, ``chunk`` at a time, comma-separated within a piece: the
    bytes ``encode`` writes for ``launch_objects``' pieces (orjson's text where it is ASCII, else the standard
    library's), written straight from the columns; through the objects where that cannot be done."""
    if not len(analysis.launches):
        return
    launches = _Launches(analysis, keys)
    plain = True
    for start in range(0, launches.n, chunk):
        stop = min(launches.n, start + chunk)
        text = None
        if plain:
            try:
                text = launches.json(start, stop, std=False)
                if not text.isascii():  # non-ASCII text (or what orjson cannot write): the standard library's
                    text = launches.json(start, stop, std=True)
            except (_NotPlain, ValueError):  # e.g. evidence the standard library does not write (NaN)
                plain, text = False, None
        if text is None:
            with gc_paused():
                text = _encode_bytes(launches.objects(start, stop))[1:-1]
        yield text


def device_rows(analysis: Analysis) -> list[dict[str, Any]]:
    """One object per GPU the launches ran on (first-seen order; per name, table entry and basis, and per compute
    capability where it has no name: two unknown GPUs of different CCs are two): ``name`` (as the report names
    it, else the table entry), ``cc`` (its first launch's compute capability, null: not in the export), ``table``
    (the built-in entry that fills peaks the report lacks; null: none, the report's own peaks only), ``basis``
    (how it was identified: display_name, display_name+attributes, attributes, --device; null), ``launches``,
    ``peak_source`` (per figure source summary: report, report+table:<gpu>, override, missing ...; the distinct
    values over its launches) and ``missing_peaks`` (the peak figures some launch's roofline needs that nobody
    gave: give them with ``--peak KEY=VALUE`` or ``--device NAME``)."""
    lv = analysis.launches
    n = len(lv)
    device = [_a_strs(_column(lv, c)) for c in ("device_name", "device_table", "device_basis", "cc")]
    per_launch = (  # no peaks per launch: no sources, no missing peaks
        [_a_strs(_column(analysis.peaks, c)) for c in ("peak_source", "missing_peaks")]
        if len(analysis.peaks) == n
        else []
    )
    name_codes, table_codes, basis_codes, cc_codes = (c.codes() for c in device)
    # a GPU without a name is told apart by its CC (two unnamed GPUs were one); a named one is one whatever its CCs
    unnamed_cc = np.where(np.asarray(name_codes) < 0, np.asarray(cc_codes), -2)
    key = distinct_rows(name_codes, table_codes, basis_codes, unnamed_cc)[0]
    counts = np.bincount(key, weights=launch_weights(lv)).round().astype(np.int64)  # a summary group: its count
    out: dict[int, dict[str, Any]] = {}
    # each distinct (device, source, missing peaks) once, at its first launch: devices in first-seen order, and
    # each device's sources and missing peaks in the order its launches first show them
    for row in distinct_rows(key, *(c.codes() for c in per_launch))[1].tolist():
        k = int(key[row])
        if k not in out:
            name, table, basis, cc = (c.python(row, row + 1)[0] for c in device)
            out[k] = {
                "name": name,
                "cc": cc,
                "table": table,
                "basis": basis,
                "launches": int(counts[k]),
                "peak_source": [],
                "missing_peaks": [],
            }
        src, lack = (c.python(row, row + 1)[0] for c in per_launch) if per_launch else (None, None)
        entry = out[k]
        if src is not None and src not in entry["peak_source"]:
            entry["peak_source"].append(src)
        for fig in (lack or "").split(","):
            if fig and fig not in entry["missing_peaks"]:
                entry["missing_peaks"].append(fig)
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
                    "recoverable_less_work_ns": fmt.number(x["recoverable_less_work_ns"]),
                    "recoverable_less_work_share": fmt.number(x["recoverable_less_work_share"]),
                }
                for x in records(summary.findings)
            ],
            "ncu_agreement": {
                "launches_compared": summary.agreement.launches_compared,
                "share": fmt.number(summary.agreement.share),
            },
        },
    }


def json_bytes(analysis: Analysis, summary: Summary | None = None, *, pretty: bool = False) -> Iterator[bytes]:
    """The JSON document as ASCII bytes, in pieces (write each as it comes: a large report's document is never
    whole in memory): sorted keys, deterministic; compact (no spaces) unless ``pretty`` (two-space indent).
    The launches' text is written straight from the analysis columns (``launch_json``)."""
    if pretty:
        text = json.dumps(to_dict(analysis, summary), indent=2, sort_keys=True, allow_nan=False) + "\n"
        yield text.encode("ascii")
        return
    summary = summarize(analysis) if summary is None else summary
    rest = _document(analysis, summary)
    # sorted keys: those before "launches" (devices), the launches as they come, then the others
    before = {k: v for k, v in rest.items() if k < "launches"}
    after = {k: v for k, v in rest.items() if k > "launches"}
    yield b"{" + (_encode_bytes(before)[1:-1] + b"," if before else b"") + b'"launches":['
    first = True
    keys = summary.keys if summary.keys.analysis is analysis else None  # the summary's key codes, if of this analysis
    for part in launch_json(analysis, keys=keys):
        if not first:
            yield b","
        yield part
        first = False
    yield b"]" + (b"," + _encode_bytes(after)[1:] if after else b"}") + b"\n"


def json_chunks(analysis: Analysis, summary: Summary | None = None, *, pretty: bool = False) -> Iterator[str]:
    """The JSON document as text, in pieces (``json_bytes`` decoded: the text is ASCII)."""
    for piece in json_bytes(analysis, summary, pretty=pretty):
        yield piece.decode("ascii")


_STDLIB = json.JSONEncoder(sort_keys=True, allow_nan=False, separators=(",", ":")).encode


def _encode_bytes(value: Any) -> bytes:
    """``encode`` as ASCII bytes."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return _STDLIB(value).encode("ascii")
    return text if text.isascii() else _STDLIB(value).encode("ascii")


def encode(value: Any) -> str:
    """``value`` as compact JSON text with sorted keys, ASCII only (as ``json.dumps`` writes it, non-ASCII
    characters escaped): by orjson, five times the standard library's speed on the launch objects; by the standard
    library where orjson's text would not be ASCII or orjson cannot (a lone surrogate, an integer beyond 64 bits).
    Floats are written as their shortest round-trip form either way (orjson spells some differently, 1e-05 as
    0.00001: the same number)."""
    return _encode_bytes(value).decode("ascii")


def render_json(analysis: Analysis, summary: Summary | None = None, *, pretty: bool = False) -> str:
    """The JSON document as text (``json_chunks`` joined)."""
    return "".join(json_chunks(analysis, summary, pretty=pretty))


def _render(run: Run, options: Options) -> Iterator[str]:
    return json_chunks(run.analysis, run.summary, pretty=options.pretty)


def _render_bytes(run: Run, options: Options) -> Iterator[bytes]:
    return json_bytes(run.analysis, run.summary, pretty=options.pretty)


JSON: FunctionRenderer[Run] = FunctionRenderer("json", ".json", _render, binary=_render_bytes)
