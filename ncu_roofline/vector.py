"""Helpers for an analysis over columns, not launches.

Text: the verdict and hint texts are built over whole columns, as object arrays of ``str`` that numpy joins
element-wise (one C loop per piece, no Python loop per launch). Positions: where each row of a long frame
(the roofline's launch x precision x level rows) sits in the launch index, looked up once per run of rows of
one launch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .model import LAUNCH_KEY, launch_index


def one_of(values: np.ndarray, *words: str) -> np.ndarray:
    """Per element of an object array: equal to one of ``words`` (None and NaN are not)."""
    out = np.zeros(len(values), dtype=bool)
    for w in words:
        out |= values == w
    return out


def percent(v: np.ndarray) -> np.ndarray:
    """Fractions as the reasons write them, per element: "n/a" (NaN), "4.2%" (under 10 %), "87%". Each
    distinct value (by its bits: -0.0 is not 0.0) is formatted once (``formatted``)."""
    v = np.ascontiguousarray(v, dtype=np.float64)
    text = np.full(len(v), "n/a", dtype=object)
    known = ~np.isnan(v)
    small = known & (np.abs(v) < 0.1)
    large = known & ~small
    # Python's "%" presentation multiplies by 100 and formats as "f": f"{v:.1%}" == "{:.1f}%".format(v * 100)
    text[small] = formatted(v[small] * 100.0, "{:.1f}%")
    text[large] = formatted(v[large] * 100.0, "{:.0f}%")
    return text


def strings(values: Any) -> Any:
    """An object array of ``str`` (None, NaN or <NA> where missing) as the string dtype: what
    ``pd.array(values, dtype="string")`` gives, built by Arrow in one pass; values of other types are
    converted the pandas way (``str`` of each)."""
    try:
        arr = pa.array(values, type=pa.large_string(), from_pandas=True, memory_pool=pa.system_memory_pool())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pd.array(values, dtype="string")
    return pd.array(arr, dtype="string")


def text_codes(column: pd.Series) -> tuple[np.ndarray, pa.Array]:
    """The column dictionary-encoded: per row a code into the distinct texts, numbered in order of first appearance
    (-1: missing), and those texts (Arrow text, no copy of the column): ``pd.factorize``'s codes and uniques, by
    one pass of Arrow's hash kernel. Its table is allocated by the system's allocator (as ``texts_at``'s output:
    for the hints' 40 MB of messages, 0.06 s against mimalloc's 0.21 s the first time a process asks)."""
    arr = pa.array(column.astype("string").array)
    encoded = pc.dictionary_encode(arr, memory_pool=pa.system_memory_pool())
    if isinstance(encoded, pa.ChunkedArray):  # one dictionary for every chunk
        if not encoded.num_chunks:
            return np.zeros(0, dtype=np.int64), pa.array([], type=arr.type)
        encoded = encoded.combine_chunks(memory_pool=pa.system_memory_pool())
    code = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return code, encoded.dictionary


def as_text(values: np.ndarray) -> np.ndarray:
    """``str`` of each element (an f-string's text), as an object array."""
    out: np.ndarray = np.asarray(values, dtype=object).astype(str).astype(object)
    return out


def joined(parts: Sequence[tuple[np.ndarray, str | np.ndarray]], sep: str, n: int) -> np.ndarray:
    """Per row, the texts of the ``parts`` whose flag is set, in order, joined by ``sep`` ("" where none)."""
    out = np.full(n, "", dtype=object)
    have = np.zeros(n, dtype=bool)
    for mask, text in parts:
        flag = np.asarray(mask, dtype=bool)
        if not flag.any():
            continue
        piece = text[flag] if isinstance(text, np.ndarray) else text
        out[flag] = np.where(have[flag], out[flag] + sep + piece, piece)
        have |= flag
    return out


def append(base: np.ndarray, where: np.ndarray, *pieces: str | np.ndarray) -> np.ndarray:
    """``base`` with the ``pieces`` appended on the rows ``where`` is set (the others untouched)."""
    out = base.copy()
    if where.any():
        acc = out[where]
        for p in pieces:
            acc = acc + (p[where] if isinstance(p, np.ndarray) else p)
        out[where] = acc
    return out


def choose(where: np.ndarray, yes: str | np.ndarray | None, no: str | np.ndarray | None) -> np.ndarray:
    """An object array: ``yes`` on the rows ``where`` is set, else ``no`` (scalars or arrays)."""
    out = np.full(len(where), None, dtype=object)
    out[:] = no if not isinstance(no, np.ndarray) else no.astype(object)
    out[where] = yes[where] if isinstance(yes, np.ndarray) else yes
    return out


def per_distinct(values: np.ndarray, fn: Callable[[Any], Any]) -> np.ndarray:
    """``fn`` of each element, called once per distinct value (a small vocabulary: names, verdicts); a missing
    element (None, NaN, <NA>) gets ``fn(None)``."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    out: np.ndarray = np.array([*(fn(x) for x in uniques), fn(None)], dtype=object)[codes]
    return out


def first_of_each(codes: np.ndarray) -> np.ndarray:
    """The position of each code's first row, for codes numbered in order of first appearance (0, 1, 2, ... as
    ``pd.factorize`` numbers them): in code order, which is row order. (``np.unique(codes, return_index=True)[1]``
    without its sort.)"""
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    seen = np.maximum.accumulate(codes)
    return np.flatnonzero(np.r_[True, seen[1:] > seen[:-1]])


def distinct_rows(*columns: Any) -> tuple[np.ndarray, np.ndarray]:
    """Rows grouped by their values in ``columns`` (arrays or Series of one length; a missing value - None, NaN,
    <NA> - equal to a missing value): per row, the number of its distinct combination, numbered in order of
    first appearance, and the first row of each combination, in that order. Each column is factorized once and
    the codes combined into one number per row, so no tuple is built per row."""
    found = few_distinct_rows(columns)
    assert found is not None  # no limit
    return found


def few_distinct_rows(columns: Iterable[Any], at_most: int | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """``distinct_rows(*columns)``, or None as soon as the rows are seen to have more than ``at_most`` distinct
    combinations: the columns are taken from ``columns`` one at a time, and those after that point are not
    taken (a generator can leave them unbuilt: put the cheap and the varied ones first)."""
    group: np.ndarray | None = None
    for column in columns:
        codes, uniques = pd.factorize(column, use_na_sentinel=False)
        base = np.zeros(len(codes), dtype=np.int64) if group is None else group
        combined, seen = pd.factorize(base * (len(uniques) + 1) + codes)
        group = combined.astype(np.int64)
        if at_most is not None and len(seen) > at_most:
            return None
    if group is None:  # no column: no rows
        group = np.zeros(0, dtype=np.int64)
    return group, first_of_each(group)


def launch_positions(frame: pd.DataFrame, index: pd.Index) -> np.ndarray:
    """Per row of ``frame``, the position of its launch (LAUNCH_KEY columns) in ``index``; -1 where absent.

    Consecutive rows of one launch (a roofline frame has one per precision and level) are looked up once;
    where those runs are the launches of ``index`` in its order (a roofline, verdicts, rules of every
    launch), no lookup is needed at all."""
    if not len(frame):
        return np.zeros(0, dtype=np.int64)
    first = key_runs(frame)
    keys = frame[list(LAUNCH_KEY)].iloc[first]  # the key columns only: a frame's text is not copied
    if isinstance(index, pd.MultiIndex) and _in_order(keys, index):
        found = np.arange(len(index), dtype=np.int64)
    else:
        found = np.asarray(index.get_indexer(launch_index(keys)), dtype=np.int64)
    out: np.ndarray = np.repeat(found, run_lengths(first, len(frame)))
    return out


def key_runs(frame: pd.DataFrame) -> np.ndarray:
    """The first row of each run of consecutive rows with one LAUNCH_KEY (missing equals missing), in row order;
    empty for an empty frame. A per-launch frame (roofline, utilization, hints) is launch-major, so its runs are
    about as many as its launches, and what is computed per key can be computed per run."""
    n = len(frame)
    if not n:
        return np.zeros(0, dtype=np.int64)
    start = np.zeros(n, dtype=bool)
    start[0] = True
    for k in LAUNCH_KEY:
        start[1:] |= _changes(frame[k])
    return np.flatnonzero(start)


def run_lengths(first: np.ndarray, n: int) -> np.ndarray:
    """The length of each run of ``n`` rows, from the first row of each (``key_runs``)."""
    return np.diff(np.append(first, n))


def _changes(column: pd.Series) -> np.ndarray:
    """Per row after the first: whether its value differs from the row before (missing equals missing)."""
    values = column.array
    if isinstance(values, pd.arrays.NumpyExtensionArray) and values.dtype.kind in "biuf":
        plain = np.asarray(values)
        changed: np.ndarray = plain[1:] != plain[:-1]
        if plain.dtype.kind == "f":  # NaN equals NaN
            changed &= ~(np.isnan(plain[1:]) & np.isnan(plain[:-1]))
        return changed
    if isinstance(values, pd.arrays.IntegerArray):
        data = values.to_numpy(dtype=np.int64, na_value=0)
        mask = np.asarray(values.isna())
        out: np.ndarray = ((data[1:] != data[:-1]) & ~(mask[1:] & mask[:-1])) | (mask[1:] != mask[:-1])
        return out
    if isinstance(values, pd.arrays.ArrowStringArray):  # text compared by Arrow, no codes built
        arr = pa.array(values)  # chunks compared as they are (Arrow aligns them), not copied into one
        after, before = arr.slice(1), arr.slice(0, len(arr) - 1)
        differ = pc.fill_null(pc.not_equal(after, before), False)
        one_missing = pc.xor(pc.is_null(after), pc.is_null(before))
        out = pc.or_(differ, one_missing).to_numpy(zero_copy_only=False)
        return out
    codes = pd.factorize(column, use_na_sentinel=True)[0]  # NA: -1, equal to the next NA
    out = codes[1:] != codes[:-1]
    return out


def _in_order(keys: pd.DataFrame, index: pd.MultiIndex) -> bool:
    """Whether the LAUNCH_KEY rows of ``keys`` are exactly the entries of ``index``, in its order (missing
    equals missing, as a lookup finds it). Only for text reports and Int64 IDs; anything else: False."""
    if len(keys) != len(index) or index.nlevels != len(LAUNCH_KEY):
        return False
    for level, k in enumerate(LAUNCH_KEY):
        ours, theirs = index.get_level_values(level), keys[k]
        missing = np.asarray(ours.isna())
        if not np.array_equal(missing, theirs.isna().to_numpy()):
            return False
        if k == "report":
            if not (pd.api.types.is_string_dtype(ours.dtype) and pd.api.types.is_string_dtype(theirs.dtype)):
                return False
            a, b = ours.to_numpy(dtype=object), theirs.to_numpy(dtype=object)
        else:
            if not all(isinstance(x.array, pd.arrays.IntegerArray) for x in (ours, theirs)):
                return False
            a, b = ours.to_numpy(dtype=np.int64, na_value=0), theirs.to_numpy(dtype=np.int64, na_value=0)
        if not np.array_equal(a[~missing], b[~missing]):
            return False
    return True


def formatted(values: np.ndarray, template: str) -> np.ndarray:
    """``template.format(v)`` of each element (e.g. ``"{:.1f}%"``, ``"{:,.0f}"``), as an object array; each
    distinct value (by its bits: -0.0 is not 0.0) is formatted once."""
    v = np.ascontiguousarray(values, dtype=np.float64)
    bits, inverse = np.unique(v.view(np.int64), return_inverse=True)
    text = np.array([template.format(x) for x in bits.view(np.float64).tolist()], dtype=object)
    out: np.ndarray = text[np.asarray(inverse).reshape(-1)] if len(bits) else np.zeros(0, dtype=object)
    return out


def float_columns(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """Every column of an all-number frame as its own float64 array, copied out of one 2-D array (a Series
    per column costs more than the copy: the frame's index is copied along with each)."""
    rows = np.array(frame.to_numpy(dtype=np.float64).T, order="C")
    return {str(c): rows[i] for i, c in enumerate(frame.columns)}


def texts_at(texts: pa.Array, codes: np.ndarray) -> pa.Array:
    """``texts[codes]`` as Arrow text of the type of ``texts`` (null where a code is -1), in memory from the
    system's allocator: Arrow's own (mimalloc) is several times slower to grow for tens of megabytes the first
    time a process asks it (the hints' 40 MB of messages: 0.21 s against 0.06 s). From ``VIEW_ROWS`` rows on,
    gathered through views (``_gathered``), else by Arrow's take."""
    codes = np.asarray(codes, dtype=np.int64)
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()  # the distinct texts: few
    textual = pa.types.is_string(texts.type) or pa.types.is_large_string(texts.type)
    if _VIEWS_GATHER and textual and len(codes) >= VIEW_ROWS and int(codes.max()) < len(texts):
        return _gathered(texts, codes)  # (a code out of range: Arrow's take below says which)
    at = pa.array(codes, mask=codes < 0, type=pa.int64())
    out: pa.Array = pc.take(texts, at, memory_pool=pa.system_memory_pool())
    return out


#: Rows from which ``texts_at`` gathers through views (below it Arrow's take costs less than the views' setup).
VIEW_ROWS = 4096

#: One string view: 16 bytes (length; the text itself if it has at most 12 bytes, else its first 4 bytes, the
#: data buffer's number and the offset in it).
_VIEW = np.dtype((np.void, 16))


def _gathered(texts: pa.Array, codes: np.ndarray) -> pa.Array:
    """``texts[codes]`` (null where a code is -1) through Arrow's string views: each distinct text's 16-byte view
    made once (a cast that keeps the texts' bytes where they are), the views taken by numpy per row, and the
    view array cast back to the texts' type, which writes the text into a buffer of exactly its size. Arrow's
    take grows its buffer as it goes, each growth a new buffer and a copy (with the system's allocator): twice
    the result's memory touched, which costs more than the copy where new memory is dear (the hints' messages:
    83 MB of pages for 40 MB of text at 10,240 launches, 840 MB at 102,400)."""
    pool = pa.system_memory_pool()
    view = texts.cast(pa.string_view(), memory_pool=pool)
    buffers = view.buffers()
    table = np.frombuffer(cast(Any, buffers[1]), dtype=_VIEW)[view.offset : view.offset + len(view)]
    table = np.append(table, np.zeros(1, dtype=_VIEW))  # the view of a missing row: empty
    missing = np.append(np.asarray(view.is_null(), dtype=bool), True)
    at = np.where(codes < 0, len(view), codes)
    lost = missing[at]
    n_lost = int(lost.sum())
    valid = pa.py_buffer(np.packbits(~lost, bitorder="little")) if n_lost else None
    gathered = pa.Array.from_buffers(
        pa.string_view(), len(at), [valid, pa.py_buffer(table[at]), *buffers[2:]], null_count=n_lost
    )
    out: pa.Array = gathered.cast(texts.type, memory_pool=pool)
    return out


def _views_gather() -> bool:
    """Whether this pyarrow gathers text through views as ``_gathered`` does (string views since pyarrow 16, and
    views over buffers given to ``from_buffers`` since 25): checked on texts short, long and missing, against
    Arrow's take."""
    if not hasattr(pa, "string_view"):
        return False
    texts = pa.array(["short", None, "a text longer than twelve bytes", ""], type=pa.large_string()).slice(1)
    codes = np.array([2, -1, 0, 1, 1, 2, 0])
    try:
        want = pc.take(texts, pa.array(codes, mask=codes < 0, type=pa.int64()))
        return bool(_gathered(texts, codes).equals(want))
    except (pa.ArrowException, TypeError, ValueError):
        return False


_VIEWS_GATHER = _views_gather()


def taken(distinct: Sequence[str | None] | pa.Array, codes: np.ndarray, dtype: Any = "string") -> Any:
    """``distinct[codes]`` as the string dtype (<NA> where a code is -1 or the text is None): what
    ``strings`` gives for that object array, taken by Arrow from the few distinct texts, not from objects
    (``texts_at``). ``distinct``: the texts, or an Arrow string array of them; ``dtype``: another pandas text
    dtype (``str``)."""
    texts = distinct if isinstance(distinct, pa.Array) else pa.array(list(distinct), type=pa.large_string())
    return pd.array(texts_at(texts, codes), dtype=dtype)


def take_rows(column: pd.Series, at: np.ndarray) -> pd.Series:
    """``column.iloc[at]`` with the index dropped. An Arrow text column of several chunks is taken chunk by chunk
    and the rows put back in the order of ``at``: Arrow's take on a chunked array concatenates its chunks first,
    a copy of the whole column (of every message, say) for the few rows wanted."""
    at = np.asarray(at, dtype=np.int64)
    values = column.array
    arrow = pa.array(values) if isinstance(values, pd.arrays.ArrowStringArray) else None
    if not isinstance(arrow, pa.ChunkedArray) or arrow.num_chunks < 2 or not len(at):
        return column.iloc[at].reset_index(drop=True)
    if at.min() < 0 or at.max() >= len(column):  # counted from the end, or out of range: as iloc reads them
        return column.iloc[at].reset_index(drop=True)
    order = np.argsort(at, kind="stable")
    rows = at[order]  # ascending: each chunk's rows together, chunks in order
    ends = np.cumsum([len(chunk) for chunk in arrow.chunks])
    first = np.r_[0, ends[:-1]]  # each chunk's first row
    bounds: list[int] = np.asarray(np.searchsorted(rows, np.r_[0, ends])).tolist()  # each chunk's rows of ``rows``
    parts = [
        pc.take(chunk, pa.array(rows[a:b] - first[i], type=pa.int64()))
        for i, (chunk, a, b) in enumerate(zip(arrow.chunks, bounds[:-1], bounds[1:], strict=True))
        if b > a
    ]
    back = np.empty(len(at), dtype=np.int64)
    back[order] = np.arange(len(at))  # each row of ``at`` in the ascending rows
    out = pc.take(pa.concat_arrays(parts), pa.array(back, type=pa.int64()))
    return pd.Series(pd.array(out, dtype=column.dtype), name=column.name)


def typed_frame(columns: dict[str, Any], dtypes: dict[str, str], index: pd.Index | None = None) -> pd.DataFrame:
    """A frame of the ``dtypes`` columns, in that order, each built in its dtype from ``columns``: an object
    array of text by Arrow in one pass (``strings``), numbers as float64 or Int64, an extension array as it is.
    What ``pd.DataFrame(columns).astype(dtypes)`` gives, without a frame of objects converted afterwards."""
    out: dict[str, Any] = {}
    for c, dtype in dtypes.items():
        values = columns[c]
        if dtype == "string" and isinstance(values, np.ndarray) and values.dtype == object:
            values = strings(values)
        elif dtype == "float64":
            values = np.asarray(values, dtype=np.float64)
        elif dtype == "Int64":
            values = pd.array(values, dtype="Int64")
        out[c] = values
    return pd.DataFrame(out, index=index, columns=list(dtypes))
