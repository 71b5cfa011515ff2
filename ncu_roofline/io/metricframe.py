"""Build the long ``metrics`` frame from the columns of a details or summary page, vectorised."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import pyarrow as pa

from ..errors import UnitError
from ..labels import is_source_view_label, is_tensor_table_label, page_versions, resolve
from ..model import METRIC_COLUMNS, categories, conform, ext_array
from ..quantities import metric_names
from ..units import parse_numbers, unit_misfit, unit_or_none
from .records import categorical
from .sniff import Located, line_of


def check_units(loc: Located, unit: pa.Array) -> list[str]:
    """The units of a column that :mod:`ncu_roofline.units` does not know, each with the first line using it.

    Never raises: a cell in such a unit keeps its text and gets no value (``source.not_understood`` lists it)."""
    values = unit.dictionary if isinstance(unit.type, pa.DictionaryType) else unit.unique()
    unknown = [u for u in values.to_pylist() if u and unit_or_none(u) is None]
    out = []
    for u in unknown:
        line = line_of(loc.path, f'"{u}",', start=loc.data_offset)
        out.append(f"unit {u!r}" + (f" (line {line})" if line is not None else ""))
    return out


def check_unit_kinds(
    loc: Located, rows: Iterable[tuple[str, str, str]], cc: str | None, *, line: int | None = None
) -> None:
    """UnitError for the first (section, Metric Name field, unit) of ``rows`` whose metric (the field, or the
    metric its label stands for) is written in a unit of another kind than the metric is (``units.unit_misfit``):
    a damaged or edited cell, whose value read as its unit says would be wrong by orders of magnitude. ``line``:
    the line to name (a raw page's units row), else the first line that shows the field and unit."""
    read = metric_names()  # (a column named like no metric the analysis reads is not judged by its name)
    for section, field, unit in rows:
        metric = resolve(section, field, cc)[0]
        parsed = unit_or_none(unit) if unit and metric in read else None
        kind = unit_misfit(metric, parsed.base) if parsed is not None and metric is not None else None
        if kind is None:
            continue
        at = line if line is not None else line_of(loc.path, f'"{field}","{unit}",', start=loc.data_offset)
        if line is not None:  # a raw page's units row: the column is the metric
            raise UnitError(loc.path, f"unit {unit!r}: expected {kind}", line=at, column=field)
        what = field if metric == field else f"{field} ({metric})"
        raise UnitError(loc.path, f"unit {unit!r} for {what}: expected {kind}", line=at, column="Metric Unit")


def metric_units(section: pa.Array | None, field: pa.Array, unit: pa.Array) -> list[tuple[str, str, str]]:
    """The distinct (section, field, unit) of a page's metric rows (``section`` None: none, as on the raw page's
    summary), in the order of their codes, for :func:`check_unit_kinds`."""
    fld, uni = categorical(field), categorical(unit)
    sec = categorical(section) if section is not None else None
    n_f, n_u = len(fld.categories) + 1, len(uni.categories) + 1
    key = (fld.codes.astype(np.int64) + 1) * n_u + (uni.codes.astype(np.int64) + 1)
    if sec is not None:
        key += (sec.codes.astype(np.int64) + 1) * (n_f * n_u)
    out = []
    for k in np.unique(key).tolist():
        s_i, rest = divmod(k, n_f * n_u)
        f_i, u_i = divmod(rest, n_u)
        if f_i and u_i:
            section_name = str(sec.categories[s_i - 1]) if sec is not None and s_i else ""
            out.append((section_name, str(fld.categories[f_i - 1]), str(uni.categories[u_i - 1])))
    return out


def _unit_table(units: list[str]) -> tuple[np.ndarray, list[str | None]]:
    """Factor and base unit of each distinct unit (NaN and None for a unit we do not know)."""
    factors = np.ones(len(units), dtype=np.float64)
    bases: list[str | None] = []
    for i, u in enumerate(units):
        parsed = unit_or_none(u)
        factors[i] = np.nan if parsed is None else parsed.factor
        bases.append(None if parsed is None else parsed.base)
    return factors, bases


def unit_columns(units: pd.Categorical) -> tuple[np.ndarray, pd.Categorical]:
    """Per row: the factor to base units (NaN for a unit we do not know), and the base unit (categorical).
    (Where an unknown unit is first used was said when the page was read, ``check_units``: a page's rows may be
    built after its file is gone, e.g. a text page's CSV copy.)"""
    cats = [str(c) for c in units.categories]
    factors, bases = _unit_table(cats)
    factors = np.append(factors, 1.0)  # last slot: NA unit (empty)
    codes = units.codes
    row_factor = factors[np.where(codes < 0, len(cats), codes)]
    return row_factor, _remap(codes, bases)


def _remap(codes: np.ndarray, bases: list[str | None]) -> pd.Categorical:
    """Categorical of base units per row from the unit codes (NA unit, or a unit we do not know -> NA)."""
    uniq = list(dict.fromkeys(b for b in bases if b is not None))
    m = np.array([uniq.index(b) if b is not None else -1 for b in bases] + [-1], dtype=np.int32)
    return categories(m[np.where(codes < 0, len(bases), codes)], uniq)


def _distinct_pairs(section: pd.Categorical | None, field: pd.Categorical) -> tuple[list[tuple[str, str]], np.ndarray]:
    """The distinct (section, ``Metric Name`` field) pairs of the rows ("" where either is missing), and each
    row's pair (positions into them)."""
    f_codes = field.codes.astype(np.int64)
    s_codes = section.codes.astype(np.int64) if section is not None else np.full(len(f_codes), -1, dtype=np.int64)
    n_f = len(field.categories) + 1
    uniq, inverse = np.unique((s_codes + 1) * n_f + (f_codes + 1), return_inverse=True)
    pairs = []
    for p in uniq:
        s_i, f_i = divmod(int(p), n_f)
        sec = str(section.categories[s_i - 1]) if section is not None and s_i > 0 else ""
        pairs.append((sec, str(field.categories[f_i - 1]) if f_i > 0 else ""))
    return pairs, inverse


def resolve_names(
    section: pd.Categorical, field: pd.Categorical, cc: str | None = None, versions: frozenset[str] | None = None
) -> tuple[pd.Categorical, pd.Categorical]:
    """Per row (metric name, label) from the section and the ``Metric Name`` field (label, name, or both);
    ``cc`` and ``versions`` (the page's: ``labels.resolve``)."""
    pairs, inverse = _distinct_pairs(section, field)
    resolved = [resolve(sec, fld, cc, versions) if fld else (None, None) for sec, fld in pairs]
    return _cat_from([n for n, _ in resolved], inverse), _cat_from([lab for _, lab in resolved], inverse)


def unknown_labels(section: pa.Array, field: pa.Array, body_item: pa.Array | None, cc: str | None) -> list[str]:
    """The (section, label) pairs of metric rows whose label the label table does not know.

    Rows of a chart's body items (``--print-details all``) are not labels and are not listed. One pass over the
    rows' dictionary codes (no sort); each distinct pair is resolved once."""
    sec, fld = categorical(section), categorical(field)
    n_s, n_f = len(sec.categories) + 1, len(fld.categories) + 1
    pair = (sec.codes.astype(np.int64) + 1) * n_f + (fld.codes.astype(np.int64) + 1)
    if body_item is not None:
        body = categorical(body_item)
        pair = pair[body.codes < 0]  # an empty Body Item Label: a header metric, not a chart item
    if n_s * n_f <= 1 << 24:
        seen = np.zeros(n_s * n_f, dtype=bool)
        seen[pair] = True
        pairs = np.flatnonzero(seen)
    else:  # pragma: no cover - millions of distinct labels
        pairs = np.unique(pair)
    out = []
    for p in pairs.tolist():
        s_i, f_i = divmod(p, n_f)
        if f_i == 0:
            continue
        said = label_not_understood(str(sec.categories[s_i - 1]) if s_i > 0 else "", str(fld.categories[f_i - 1]), cc)
        if said is not None:
            out.append(said)
    return out


def label_not_understood(section: str, field: str, cc: str | None) -> str | None:
    """What ``source.not_understood`` says of a details label in ``section`` that the label table does not map to
    a metric name (None where it does, or where the label is one of the Tensor Core chart's table rows or a column
    of the source view, which are recognised and not read)."""
    if resolve(section, field, cc)[0] is not None:
        return None
    if is_tensor_table_label(section, field) or is_source_view_label(section, field):
        return None
    where = f" in {section!r}" if section else ""
    return f"label {field!r}{where}"


def resolved_names(
    section: pa.Array, field: pa.Array, cc: str | None, versions: frozenset[str] | None = None
) -> frozenset[str]:
    """Every metric name the (section, ``Metric Name`` field) pairs of these rows resolve to."""
    sec, fld = categorical(section), categorical(field)
    name, _label = resolve_names(sec, fld, cc, versions)
    return frozenset(str(c) for c in name.categories)


def versions_of(section: pa.Array | None, field: pa.Array) -> frozenset[str] | None:
    """``labels.page_versions`` of the (section, ``Metric Name`` field) pairs of a page's rows."""
    return page_versions(_distinct_pairs(None if section is None else categorical(section), categorical(field))[0])


def _cat_from(values: list[str | None], inverse: np.ndarray) -> pd.Categorical:
    uniq = list(dict.fromkeys(v for v in values if v is not None))
    index = {v: i for i, v in enumerate(uniq)}
    per = np.array([index[v] if v is not None else -1 for v in values], dtype=np.int32)
    return pd.Categorical.from_codes(per[inverse], categories=pd.Index(uniq, dtype=object), validate=False)


def long_metrics(
    report: str,
    *,
    process_id: np.ndarray,
    launch_id: np.ndarray,
    section: pa.Array,
    body_item: pa.Array | None,
    metric_field: pa.Array,
    unit: pa.Array,
    value: pa.Array,
    style: str,
    minimum: pa.Array | None = None,
    maximum: pa.Array | None = None,
    cc: str | None = None,
    versions: frozenset[str] | None = None,
    by_name: bool = False,
) -> pd.DataFrame:
    """The METRIC_COLUMNS frame for rows of a details/summary page (all arrays of equal length). ``by_name``: the
    ``Metric Name`` field is every row's metric name, as on the raw page (its summary), with no label."""
    n = len(value)
    sec = categorical(section)
    fld = categorical(metric_field)
    if by_name:
        name, label = fld, pd.Categorical.from_codes(np.full(n, -1, np.int32), categories=pd.Index([], dtype=object))
    else:
        name, label = resolve_names(sec, fld, cc, versions)
    unit_cat = categorical(unit)
    factor, base = unit_columns(unit_cat)
    raw = parse_numbers(value, style).to_numpy(zero_copy_only=False)
    frame = pd.DataFrame(
        {
            "report": categories(np.zeros(n, dtype=np.int8), [report]),
            "process_id": ext_array(process_id, "Int64"),
            "launch_id": ext_array(launch_id, "Int64"),
            "section": sec,
            "body_item": categorical(body_item) if body_item is not None else None,
            "metric": name,
            "label": label,
            "unit": unit_cat,
            "base_unit": base,
            "value": raw * factor,
            "text": ext_array(value, "string"),
        }
    )
    for col, arr in (("minimum", minimum), ("maximum", maximum)):
        if arr is not None:
            frame[col] = parse_numbers(arr, style).to_numpy(zero_copy_only=False) * factor
    return conform(frame, METRIC_COLUMNS)
