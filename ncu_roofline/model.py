"""The tidy frames every reader returns, and the `Report` that holds them.

A launch is keyed by ``(report, process_id, launch_id)``: ``report`` names the source export (one file),
``process_id`` and ``launch_id`` are ncu's own ``Process ID`` and ``ID``. Repeated launches of one kernel
keep distinct keys; nothing is keyed by kernel name.

Frames and their columns (empty frames keep them, with the same dtypes):

``launches``  one row per kernel launch (or, for a summary page, per aggregated kernel group):
    report, process_id, launch_id, kernel_name (as exported: demangled by default), display_name (short),
    process_name, host_name, context, stream, device, cc ("9.0"), block_x/y/z, grid_x/y/z,
    block_size (threads per block), grid_size (blocks), invocations (1 per launch; N for a summary group),
    nvtx_path (push/pop range stack joined by "/", as ncu's --print-nvtx-rename does), nvtx_start_end,
    duration_ns (the launch's GPU time from its metrics, ``ncu_roofline.io.with_duration``; NaN: not measured).
``metrics``  long form, one row per metric value of the input:
    report, process_id, launch_id, section, body_item, metric (ncu metric name where known, else <NA>),
    label (as displayed, where known), unit (as written), base_unit (unit of ``value``), value (float, base SI
    units with decimal prefixes: s, hz, byte, byte/s, ...; percentages stay 0..100), text (the raw cell text;
    string-valued metrics have value NaN and keep their text), minimum, maximum (summary pages only).
``rules``  ncu's own rule results: report, process_id, launch_id, section (identifier), rule, type,
    description, speedup_type, speedup (percent, float).
``source``  one row per file read: report, path, flavour, ncu_version, launches, metric_rows, rule_rows,
    skipped_lines, skipped (what was skipped and where), not_understood (units and labels the reader did not
    know, and lines not in UTF-8: those cells keep their text, have no value, and are left out of the analysis).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pandas.api.types import union_categoricals

from .vocabulary import FLAVOURS as VOCABULARY_FLAVOURS

LAUNCH_KEY: tuple[str, str, str] = ("report", "process_id", "launch_id")

# String columns use pandas' nullable string dtype (pyarrow-backed where available); integers are nullable Int64.
STR = "string"
INT = "Int64"
FLOAT = "float64"
CAT = "category"

LAUNCH_COLUMNS: dict[str, str] = {
    "report": STR,
    "process_id": INT,
    "launch_id": INT,
    "kernel_name": STR,
    "display_name": STR,
    "process_name": STR,
    "host_name": STR,
    "context": INT,
    "stream": INT,
    "device": INT,
    "cc": STR,
    "block_x": INT,
    "block_y": INT,
    "block_z": INT,
    "grid_x": INT,
    "grid_y": INT,
    "grid_z": INT,
    "block_size": INT,
    "grid_size": INT,
    "invocations": INT,
    "nvtx_path": STR,
    "nvtx_start_end": STR,
    "duration_ns": FLOAT,  # filled by ncu_roofline.io.with_duration from the metric table's duration recipes
}

METRIC_COLUMNS: dict[str, str] = {
    "report": CAT,
    "process_id": INT,
    "launch_id": INT,
    "section": CAT,
    "body_item": CAT,
    "metric": CAT,
    "label": CAT,
    "unit": CAT,
    "base_unit": CAT,
    "value": FLOAT,
    "text": STR,
    "minimum": FLOAT,
    "maximum": FLOAT,
}

#: The columns of ``Report.body_item_metrics``: what the chart points and the Speed Of Light breakdown read.
BODY_COLUMNS: dict[str, str] = {
    c: METRIC_COLUMNS[c] for c in ("report", "process_id", "launch_id", "section", "body_item", "label", "value")
}

RULE_COLUMNS: dict[str, str] = {
    "report": STR,
    "process_id": INT,
    "launch_id": INT,
    "section": STR,
    "rule": STR,
    "type": STR,
    "description": STR,
    "speedup_type": STR,
    "speedup": FLOAT,
}

SOURCE_COLUMNS: dict[str, str] = {
    "report": STR,
    "path": STR,
    "flavour": STR,
    "ncu_version": STR,
    "launches": INT,
    "metric_rows": INT,
    "rule_rows": INT,
    "skipped_lines": INT,
    "skipped": STR,
    "not_understood": STR,
}

SESSION_COLUMNS: dict[str, str] = {"report": STR, "block": STR, "attribute": STR, "value": STR}

#: Flavours a reader can return in ``source.flavour``.
FLAVOURS = VOCABULARY_FLAVOURS  # ncu_roofline.vocabulary.Flavour


def ext_array(values: Any, dtype: str) -> Any:
    """``pd.array`` for the schema dtypes (pandas-stubs rejects mixed-None lists that pandas accepts)."""
    return pd.array(values, dtype=dtype)


def categories(codes: Any, cats: Any) -> pd.Categorical:
    """``pd.Categorical.from_codes`` without validation (codes are built by this package)."""
    result: pd.Categorical = pd.Categorical.from_codes(codes, categories=pd.Index(cats, dtype=object), validate=False)
    return result


def empty_frame(columns: Mapping[str, str]) -> pd.DataFrame:
    """An empty frame with exactly these columns and dtypes."""
    return pd.DataFrame({name: pd.Series([], dtype=dtype) for name, dtype in columns.items()})


def conform(frame: pd.DataFrame, columns: Mapping[str, str]) -> pd.DataFrame:
    """The frame with exactly ``columns`` in order and dtype; missing columns are filled with NA."""
    out: dict[str, pd.Series] = {}
    n = len(frame)
    for name, dtype in columns.items():
        if name in frame.columns:
            col = frame[name]
            out[name] = col if str(col.dtype) == dtype else col.astype(dtype)  # type: ignore[call-overload]
        else:
            out[name] = pd.Series(missing_array(dtype, n), index=frame.index)
    return pd.DataFrame(out, index=frame.index).reset_index(drop=True)


def missing_array(dtype: str, n: int) -> Any:
    """An all-NA array of ``n`` values in one of the schema dtypes, built without Python objects."""
    if dtype == CAT:
        return pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), categories=pd.Index([], dtype=object))
    if dtype == INT:
        return pd.arrays.IntegerArray(np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool))
    if dtype == FLOAT:
        return np.full(n, np.nan)
    return pd.array(pa.nulls(n, pa.string()), dtype=STR)


@dataclass(frozen=True)
class WideMetrics:
    """A metric table in the wide shape of ncu's raw page, kept as read until someone asks for the long form.

    ``keys``: report, process_id, launch_id; one row per launch.
    ``values``: float frame (row i = launch i of ``keys``; one column per metric name), base units.
    ``texts``: the raw cell text, same columns, column-major in one pyarrow chunked string array (column j's
    cells at ``j * n`` to ``(j + 1) * n``, n launches; a small page's in one buffer, see ``io.raw``).
    ``units``/``base_units``: per column, as written and after conversion.
    """

    keys: pd.DataFrame
    values: pd.DataFrame
    texts: Any  # pyarrow.ChunkedArray of strings, column-major
    units: list[str]
    base_units: list[str]

    def row_count(self) -> int:
        """Non-empty cells: the rows ``to_long`` gives (counted over every column at once: a raw page of a few
        launches has thousands of short columns, and a compute call per column cost 40 ms a page)."""
        return int(pc.sum(pc.not_equal(self.texts, "")).as_py() or 0) if len(self.texts) else 0

    def own_index(self) -> pd.MultiIndex:
        """The launches of this table (LAUNCH_KEY), in its order (built once: every reader of the table needs it)."""
        return self._own

    @functools.cached_property
    def _own(self) -> pd.MultiIndex:
        return launch_index(self.keys)

    def columns_for(self, index: pd.MultiIndex, names: Collection[str] | None = None) -> dict[str, np.ndarray]:
        """Metric name -> float array aligned with ``index`` (launches not in this table are NaN); only the
        metrics in ``names`` when given (the other columns are not touched)."""
        own = self._own
        values = self.values if names is None else self.values[[c for c in self.values.columns if c in names]]
        matrix = values.to_numpy(dtype=np.float64)
        if len(index) == len(own) and index.equals(own):  # its own launches: the columns as they are
            return {str(name): matrix[:, j] for j, name in enumerate(values.columns)}
        rows = index.get_indexer(own)
        have = rows >= 0
        out: dict[str, np.ndarray] = {}
        for j, name in enumerate(values.columns):
            col = np.full(len(index), np.nan)
            col[rows[have]] = matrix[have, j]
            out[str(name)] = col
        return out

    def has_body_items(self) -> bool:
        """A raw page has no chart or breakdown body items."""
        return False

    def body_rows(self) -> pd.DataFrame:
        return empty_frame(BODY_COLUMNS)

    def texts_for(self, metric: str, index: pd.MultiIndex) -> pd.Series:
        """The text of ``metric`` per launch of ``index`` (<NA> where empty or absent), without the long form."""
        out = pd.Series(pd.NA, index=index, dtype="string")
        if metric not in self.values.columns:
            return out
        n = len(self.keys)
        col = self.texts.slice(int(self.values.columns.get_indexer(pd.Index([metric]))[0]) * n, n)
        text = pd.Series(pd.array(col, dtype="string"))
        text = text.mask(text == "")
        rows = index.get_indexer(self._own)
        have = rows >= 0
        out.iloc[rows[have]] = text.to_numpy(dtype=object)[have]
        return out

    def subset(self, keys: pd.MultiIndex) -> WideMetrics:
        """Only the launches in ``keys``."""
        rows = self._own.isin(keys)
        n, kept = len(self.keys), np.flatnonzero(rows)
        cells = (np.arange(self.values.shape[1], dtype=np.int64)[:, None] * n + kept[None, :]).ravel()
        return WideMetrics(
            keys=self.keys.loc[rows].reset_index(drop=True),
            values=self.values.loc[rows].reset_index(drop=True),
            texts=self.texts.take(pa.array(cells, type=pa.int64())),
            units=self.units,
            base_units=self.base_units,
        )

    def to_long(self) -> pd.DataFrame:
        """The long ``metrics`` frame (METRIC_COLUMNS), column-major: all launches of one metric together.

        Empty cells (metric not collected for that launch) are not rows."""
        n_launch, n_metric = self.values.shape
        if n_launch == 0 or n_metric == 0:
            return empty_frame(METRIC_COLUMNS)
        texts = self.texts
        present = pc.not_equal(texts, "").to_numpy(zero_copy_only=False)
        codes = np.repeat(np.arange(n_metric, dtype=np.int32), n_launch)[present]
        launch_idx = np.tile(np.arange(n_launch, dtype=np.int64), n_metric)[present]

        def per_column(labels: list[str]) -> pd.Categorical:
            cats = list(dict.fromkeys(labels))
            pos = np.array([cats.index(x) for x in labels], dtype=np.int32)
            return pd.Categorical.from_codes(pos[codes], categories=pd.Index(cats, dtype=object), validate=False)

        unit = per_column(list(self.units))
        base_unit = per_column(list(self.base_units))
        unit = unit.remove_categories([""]) if "" in unit.categories else unit
        base_unit = base_unit.remove_categories([""]) if "" in base_unit.categories else base_unit
        frame = pd.DataFrame(
            {
                "report": _object_categories(pd.Categorical(self.keys["report"].to_numpy(dtype=object)[launch_idx])),
                "process_id": ext_array(self.keys["process_id"].to_numpy()[launch_idx], "Int64"),
                "launch_id": ext_array(self.keys["launch_id"].to_numpy()[launch_idx], "Int64"),
                "metric": pd.Categorical.from_codes(
                    codes,
                    categories=pd.Index([str(c) for c in self.values.columns], dtype=object),
                    validate=False,
                ),
                "unit": unit,
                "base_unit": base_unit,
                "value": self.values.to_numpy(dtype=np.float64).ravel(order="F")[present],
                "text": pd.array(texts.filter(pa.array(present)), dtype="string"),
            }
        )
        return conform(frame, METRIC_COLUMNS)


@dataclass(frozen=True)
class LongMetrics:
    """A metrics table already in the long shape (details and summary pages, .ncu-rep)."""

    frame: pd.DataFrame

    def row_count(self) -> int:
        return len(self.frame)

    def to_long(self) -> pd.DataFrame:
        return self.frame

    def own_index(self) -> pd.MultiIndex:
        return _frame_launches(self.frame)

    def columns_for(self, index: pd.MultiIndex, names: Collection[str] | None = None) -> dict[str, np.ndarray]:
        return long_to_wide(self.frame, index, names)

    def has_body_items(self) -> bool:
        return "body_item" in self.frame.columns and bool(self.frame["body_item"].notna().any())

    def body_rows(self) -> pd.DataFrame:
        return body_rows_of(self.frame)

    def texts_for(self, metric: str, index: pd.MultiIndex) -> pd.Series:
        return texts_from_long(self.frame, metric, index)

    def subset(self, keys: pd.MultiIndex) -> LongMetrics:
        return LongMetrics(self.frame.loc[launch_index(self.frame).isin(keys)].reset_index(drop=True))


@dataclass(frozen=True)
class WideValues:
    """The wide numeric view of one page as a reader builds it: ``matrix[j]`` holds metric ``names[j]`` for the
    launches of ``keys`` (LAUNCH_KEY), floats in base units, NaN where not measured."""

    keys: pd.MultiIndex
    names: list[str]
    matrix: np.ndarray  # (metrics, launches)

    def frame_for(self, index: pd.MultiIndex) -> pd.DataFrame | None:
        """``Report.values`` of this page alone, sharing the matrix; None unless ``index`` is its launches."""
        if not (len(index) == len(self.keys) and index.equals(self.keys)):
            return None
        frame = pd.DataFrame(self.matrix.T, index=index, columns=list(self.names), copy=False)
        return frame

    def own_index(self) -> pd.MultiIndex:
        return self.keys

    def columns_for(self, index: pd.MultiIndex, names: Collection[str] | None = None) -> dict[str, np.ndarray]:
        """Metric name -> float array aligned with ``index`` (launches not on this page are NaN)."""
        pick = [j for j, n in enumerate(self.names) if names is None or n in names]
        if len(index) == len(self.keys) and index.equals(self.keys):
            return {self.names[j]: self.matrix[j] for j in pick}
        rows = index.get_indexer(self.keys)
        have = rows >= 0
        out: dict[str, np.ndarray] = {}
        for j in pick:
            col = np.full(len(index), np.nan)
            col[rows[have]] = self.matrix[j][have]
            out[self.names[j]] = col
        return out


class LazyMetrics:
    """A long metrics table built on first use from the parsed columns a reader keeps (``build``).

    Reading validates everything that can fail (units, number style, launch keys) before it returns; only the
    conversion to a DataFrame waits until a caller asks for ``metrics`` or ``values``."""

    def __init__(
        self,
        rows: int,
        build: Callable[[], pd.DataFrame],
        *,
        body_items: bool = True,
        names: frozenset[str] | None = None,
        wide: WideValues | None = None,
        body: Callable[[], pd.DataFrame] | None = None,
    ) -> None:
        """``body_items``: whether any row is a body item; ``names``: every metric name the rows resolve to
        (None: not known). Both let the analysis skip the long form where it would find nothing. ``wide``: the
        wide numeric view, when the reader built it while reading (``values`` then never needs the long form).
        ``body``: builds the body item rows alone (``body_rows``) without the long form."""
        self._wide = wide
        self._body = body
        self._body_frame: pd.DataFrame | None = None
        self._rows = rows
        self._build: Callable[[], pd.DataFrame] | None = build
        self._frame: pd.DataFrame | None = None
        self._body_items = body_items
        self._names = names

    def row_count(self) -> int:
        return self._rows

    def to_long(self) -> pd.DataFrame:
        if self._frame is None:
            assert self._build is not None
            self._frame = self._build()
            self._build = self._body = None  # let the parsed columns go (the body rows come from the frame now)
        return self._frame

    def own_index(self) -> pd.MultiIndex:
        return self._wide.keys if self._wide is not None else _frame_launches(self.to_long())

    def columns_for(self, index: pd.MultiIndex, names: Collection[str] | None = None) -> dict[str, np.ndarray]:
        if self._wide is not None:
            return self._wide.columns_for(index, names)
        return long_to_wide(self.to_long(), index, names)

    def has_body_items(self) -> bool:
        return self._body_items

    def body_rows(self) -> pd.DataFrame:
        """The body item rows (BODY_COLUMNS): from the long frame where it is built, else from the reader's own
        builder of those rows alone (``body``), kept for the next call."""
        if self._frame is not None or self._body is None:
            return body_rows_of(self.to_long())
        if self._body_frame is None:
            self._body_frame = self._body()
        return self._body_frame

    def frame_for(self, index: pd.MultiIndex) -> pd.DataFrame | None:
        """The wide view as a frame over the reader's matrix (no copy), when ``index`` is this page's launches."""
        return None if self._wide is None else self._wide.frame_for(index)

    def texts_for(self, metric: str, index: pd.MultiIndex) -> pd.Series:
        if self._frame is None and self._names is not None and metric not in self._names:
            return pd.Series(pd.NA, index=index, dtype="string")
        return texts_from_long(self.to_long(), metric, index)

    def subset(self, keys: pd.MultiIndex) -> LongMetrics:
        return LongMetrics(self.to_long()).subset(keys)


class MetricSource(Protocol):
    """What a Report keeps of one file's metrics: the long form, the wide numeric view, a launch subset, and
    two questions answered without the long form where the source can (body items? a metric's text?)."""

    def row_count(self) -> int: ...
    def to_long(self) -> pd.DataFrame: ...
    def own_index(self) -> pd.MultiIndex: ...
    def columns_for(self, index: pd.MultiIndex, names: Collection[str] | None = None) -> dict[str, np.ndarray]: ...
    def subset(self, keys: pd.MultiIndex) -> MetricSource: ...
    def has_body_items(self) -> bool: ...
    def body_rows(self) -> pd.DataFrame: ...
    def texts_for(self, metric: str, index: pd.MultiIndex) -> pd.Series: ...


def _frame_launches(frame: pd.DataFrame) -> pd.MultiIndex:
    """The launches (LAUNCH_KEY) a long metrics frame has rows of, in order of their first row."""
    if not len(frame):
        return launch_index(frame)
    return launch_index(frame[list(LAUNCH_KEY)].drop_duplicates())


def body_rows_of(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a long metrics frame that are body items, BODY_COLUMNS only (index reset)."""
    if "body_item" not in frame.columns or not len(frame):
        return empty_frame(BODY_COLUMNS)
    rows: pd.DataFrame = frame.loc[frame["body_item"].notna().to_numpy(), list(BODY_COLUMNS)]
    return rows.reset_index(drop=True)


def texts_from_long(frame: pd.DataFrame, metric: str, index: pd.MultiIndex) -> pd.Series:
    """The first text of ``metric`` per launch of ``index`` in a long metrics frame (<NA> where none).

    Columns taken: LAUNCH_KEY, metric, text."""
    hit = frame[(frame["metric"] == metric).fillna(False).to_numpy()]
    if not len(hit):
        return pd.Series(pd.NA, index=index, dtype="string")
    per = pd.Series(hit["text"].to_numpy(), index=launch_index(hit)).groupby(level=[0, 1, 2]).first()
    out: pd.Series = per.reindex(index).astype("string")
    return out


def merged_columns(
    sources: Sequence[MetricSource], index: pd.MultiIndex, names: Collection[str] | None = None
) -> dict[str, np.ndarray]:
    """Metric name -> float array aligned with ``index``, over every source (all metrics, or only ``names``):
    where several sources have a metric, the first source's value wins and the others fill only its gaps.
    Columns in order of first appearance, source by source.

    Each source gives its columns over its own launches only (``own_index``, those of ``index``), scattered into
    one matrix: the work follows the cells, not sources x metrics x launches (100 raw pages of 2,000 metrics
    merged took 30 s, a column over every launch of the merge made per source and metric)."""
    if len(sources) == 1:
        return sources[0].columns_for(index, names)
    parts: list[tuple[np.ndarray, dict[str, np.ndarray]]] = []
    slot: dict[str, int] = {}
    for source in sources:
        own = source.own_index()
        at = index.get_indexer(own)
        inside = at >= 0
        if not inside.all():
            own, at = own[inside], at[inside]
        columns = source.columns_for(own, names)
        for name in columns:
            slot.setdefault(name, len(slot))
        parts.append((at, columns))
    out = np.full((len(slot), len(index)), np.nan)
    for at, columns in parts:
        if not len(columns) or not len(at):
            continue
        js = np.fromiter((slot[name] for name in columns), dtype=np.int64, count=len(columns))
        block = np.vstack(list(columns.values()))  # (its metrics, its launches)
        cells = np.ix_(js, at)
        merged = out[cells]
        gaps = np.isnan(merged)  # the earlier sources' values stay; this one fills their gaps
        merged[gaps] = block[gaps]
        out[cells] = merged
    return {name: out[j] for name, j in slot.items()}


@dataclass
class Report:
    """Everything read from one or more ncu exports, as tidy frames (see the module docstring)."""

    launches: pd.DataFrame
    rules: pd.DataFrame
    source: pd.DataFrame
    session: pd.DataFrame = field(default_factory=lambda: empty_frame(SESSION_COLUMNS))
    #: What a reader of the results must know of the files, one line each beginning with the file: a page that
    #: may be cut short, a metric a launch has twice with different values (``io.read_warnings`` adds inputs
    #: that hold the same launches). ``source.not_understood`` lists them too, among the rest.
    warnings: tuple[str, ...] = ()
    _sources: tuple[MetricSource, ...] = field(default=(), repr=False)

    @functools.cached_property
    def metrics(self) -> pd.DataFrame:
        """Long metrics frame (METRIC_COLUMNS); built on first use (raw pages are kept wide until then)."""
        parts = [s.to_long() for s in self._sources]
        parts = [p for p in parts if len(p)] or parts[:1]
        if not parts:
            return empty_frame(METRIC_COLUMNS)
        if len(parts) == 1:
            return parts[0]
        return concat_metrics(parts)

    def metric_texts(self, metric: str) -> pd.Series:
        """The text of one metric per launch (index LAUNCH_KEY, in ``launches`` order; <NA> where the launch has
        none), e.g. ``device__attribute_display_name``: the first row of that metric in ``metrics``, found
        without building the long frame where a source can (a raw page's column, a details page without it)."""
        index = launch_index(self.launches)
        if "metrics" in self.__dict__ or not self._sources:
            return texts_from_long(self.metrics, metric, index)
        out = pd.Series(pd.NA, index=index, dtype="string")
        for source in self._sources:
            out = out.fillna(source.texts_for(metric, index))
        return out

    @property
    def body_item_metrics(self) -> pd.DataFrame:
        """The rows of ``metrics`` that are body items (chart points, the Speed Of Light breakdown of
        ``--print-details all``), in its order, BODY_COLUMNS only; built without the long frame where a source
        can (a streamed details page), and an empty frame, without building anything, where no source has any."""
        with_items = [s for s in self._sources if s.has_body_items()]
        if not with_items:
            return empty_frame(BODY_COLUMNS)
        if "metrics" in self.__dict__:
            return body_rows_of(self.metrics)
        parts = [s.body_rows() for s in with_items]
        return parts[0] if len(parts) == 1 else concat_metrics(parts, BODY_COLUMNS)

    @functools.cached_property
    def values(self) -> pd.DataFrame:
        """Wide numeric view: one row per launch (index = LAUNCH_KEY, in ``launches`` order), one column per
        ncu metric name, floats in base units.

        Where a launch has the same metric name more than once (the name repeated in several sections or body
        items), the first numeric occurrence outside body items wins. Metrics without a known name are not in
        this view (they stay in ``metrics``).
        """
        index = launch_index(self.launches)
        if len(self._sources) == 1:
            source = self._sources[0]
            frame = source.frame_for(index) if isinstance(source, LazyMetrics) else None
            if frame is not None:  # the reader's own wide matrix, not copied
                return frame
        return pd.DataFrame(merged_columns(self._sources, index), index=index)

    def subset(self, keys: pd.MultiIndex) -> Report:
        """The Report restricted to the launches in ``keys`` (``source`` and ``session`` kept whole)."""

        def keep(frame: pd.DataFrame) -> pd.DataFrame:
            return frame.loc[launch_index(frame).isin(keys)].reset_index(drop=True)

        return Report(
            launches=keep(self.launches),
            rules=keep(self.rules),
            source=self.source,
            session=self.session,
            warnings=self.warnings,
            _sources=tuple(s.subset(keys) for s in self._sources),
        )

    def __len__(self) -> int:
        return len(self.launches)

    def __repr__(self) -> str:
        """One line: launches, reports, flavours, rule rows (``print(report)`` does not dump the frames)."""
        src = self.source
        names = ", ".join(str(x) for x in src["report"].dropna().unique()[:3]) if "report" in src else ""
        more = " …" if "report" in src and src["report"].nunique() > 3 else ""
        flavours = ", ".join(sorted({str(x) for x in src["flavour"].dropna()})) if "flavour" in src else ""
        return (
            f"<Report {names}{more}: {len(self.launches)} launches, {len(self.rules)} rule rows"
            + (f", {flavours} page" if flavours else "")
            + ">"
        )


def launch_index(frame: pd.DataFrame) -> pd.MultiIndex:
    """The LAUNCH_KEY columns of a frame as a MultiIndex (NA process IDs allowed)."""
    return pd.MultiIndex.from_arrays(
        [
            frame["report"].astype(object).to_numpy(),
            ext_array(frame["process_id"], INT),
            ext_array(frame["launch_id"], INT),
        ],
        names=list(LAUNCH_KEY),
    )


def long_to_wide(
    metrics: pd.DataFrame, index: pd.MultiIndex, names: Collection[str] | None = None
) -> dict[str, np.ndarray]:
    """Metric name -> float array aligned with ``index``; the first numeric value outside body items wins. Only
    the metrics in ``names`` when given.

    Columns taken: LAUNCH_KEY, metric, value, body_item."""
    keep = metrics["metric"].notna().to_numpy() & metrics["value"].notna().to_numpy()
    if names is not None:
        keep &= metrics["metric"].isin(list(names)).to_numpy()
    m = metrics.loc[keep]
    if m.empty:
        return {}
    rows = index.get_indexer(launch_index(m))
    codes = m["metric"].cat.codes.to_numpy()
    in_body = m["body_item"].notna().to_numpy()
    order = np.lexsort((np.arange(len(m)), in_body))  # header rows first, then input order
    rows, codes, values = rows[order], codes[order], m["value"].to_numpy(dtype=np.float64)[order]
    keep = rows >= 0
    rows, codes, values = rows[keep], codes[keep], values[keep]
    pair = rows.astype(np.int64) * (int(codes.max()) + 1) + codes
    _, first = np.unique(pair, return_index=True)
    cats = m["metric"].cat.categories
    used, slot = np.unique(codes[first], return_inverse=True)
    wide = np.full((len(used), len(index)), np.nan)  # one scatter for every metric, not one pass per metric
    wide[slot, rows[first]] = values[first]
    return {str(cats[code]): wide[j] for j, code in enumerate(used)}


def _object_categories(values: pd.Categorical) -> pd.Categorical:
    """``values`` with its categories as Python objects (pandas 3 infers its ``str`` dtype for categories built
    from text; the readers build them as objects), so that categoricals of every reader can be joined."""
    if values.categories.dtype == object:
        return values
    return pd.Categorical.from_codes(
        values.codes, categories=pd.Index(values.categories.to_numpy(dtype=object), dtype=object), validate=False
    )


def concat_metrics(parts: list[pd.DataFrame], columns: dict[str, str] = METRIC_COLUMNS) -> pd.DataFrame:
    """Concatenate long metric frames (or frames of some of their ``columns``), unifying categoricals."""
    out: dict[str, pd.Series | pd.Categorical] = {}
    for c, dtype in columns.items():
        if dtype == CAT:  # categories as objects in every part: union_categoricals wants one dtype
            out[c] = union_categoricals([_object_categories(p[c].array) for p in parts], ignore_order=True)
        else:
            out[c] = pd.concat([p[c] for p in parts], ignore_index=True)
    return conform(pd.DataFrame(out), columns)


#: How close two launches' durations must be to be the same launch exported twice (a details page prints three
#: significant digits: 0.5 % is its rounding at worst).
SAME_DURATION = 0.005


def repeated_reports(launches: pd.DataFrame) -> list[tuple[str, str, int]]:
    """Pairs of reports of ``launches`` (LAUNCH_COLUMNS) that hold the same launches: the same number, the same
    process, launch IDs, devices and kernel names in the same order, and each duration within SAME_DURATION of
    the other's where both measured it: one report given twice (two pages of it, two ncu versions' exports),
    whose launches a merged analysis counts twice. Each report that repeats an earlier one, paired with the
    first it repeats: (that report, this one, launches), in the order the reports come. Another process (an MPI
    rank's capture) or device is another report's; a summary page's rows are groups (invocations), not launches.
    Reports are compared only where those keys are alike (grouped by them), durations at once."""
    if not len(launches) or "report" not in launches:
        return []
    names = launches["report"].astype(object).to_numpy()
    order = list(dict.fromkeys(names.tolist()))
    if len(order) < 2:
        return []
    columns = ("process_id", "launch_id", "device", "kernel_name")
    blank = np.full(len(launches), "", dtype=object)
    keys = [launches[c].astype(str).to_numpy(dtype=object) if c in launches else blank for c in columns]
    # the keys as codes over every launch (equal codes: equal values), each report's run of them compared as bytes
    codes = np.vstack([pd.factorize(k)[0] for k in keys])
    groups = (
        launches["invocations"].to_numpy(dtype=np.float64, na_value=np.nan) > 1
        if "invocations" in launches
        else np.zeros(len(launches), dtype=bool)
    )
    durations = launches["duration_ns"].to_numpy(dtype=np.float64, na_value=np.nan)
    rows = pd.Series(np.arange(len(names))).groupby(names, sort=False, dropna=False).indices  # report -> rows
    alike_reports: dict[bytes, list[object]] = {}
    for name in order:
        at = rows[name]
        if groups[at].any():
            continue  # a summary page's groups
        alike_reports.setdefault(codes[:, at].tobytes(), []).append(name)
    out = []
    for alike in alike_reports.values():
        if len(alike) < 2:
            continue
        d = np.vstack([durations[rows[a]] for a in alike])  # reports x launches
        for i in range(1, len(alike)):
            mine = d[i]
            tol = SAME_DURATION * np.fmax(np.abs(d[:i]), np.abs(mine))
            close = np.isnan(d[:i]) | np.isnan(mine) | (np.abs(d[:i] - mine) <= tol)
            earlier = np.flatnonzero(close.all(axis=1))
            if len(earlier):  # the first report this one repeats
                out.append((str(alike[int(earlier[0])]), str(alike[i]), len(rows[alike[i]])))
    return out
