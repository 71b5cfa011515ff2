"""Helpers over columns (ncu_roofline.vector): each against the plain Python it replaces."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ncu_roofline import vector
from ncu_roofline.vector import distinct_rows, few_distinct_rows, formatted, take_rows, text_codes

_CELLS = st.one_of(st.none(), st.sampled_from(["a", "b", "c"]), st.sampled_from([0.0, -0.0, 1.5, float("nan")]))


def _by_tuples(rows: list[tuple[object, ...]]) -> tuple[list[int], list[int]]:
    """Codes in order of first appearance and the first row of each, with tuples (missing equals missing)."""
    seen: dict[tuple[object, ...], int] = {}
    codes, first = [], []
    for i, row in enumerate(rows):
        key = tuple(None if pd.isna(x) else x for x in row)
        if key not in seen:
            seen[key] = len(seen)
            first.append(i)
        codes.append(seen[key])
    return codes, first


@given(st.integers(1, 3).flatmap(lambda k: st.lists(st.tuples(*[_CELLS] * k), max_size=12)))
def test_distinct_rows_are_the_distinct_tuples(rows: list[tuple[object, ...]]) -> None:
    if not rows:
        return
    columns = [np.array([r[j] for r in rows], dtype=object) for j in range(len(rows[0]))]
    codes, first = distinct_rows(*columns)
    assert (codes.tolist(), first.tolist()) == _by_tuples(rows)


def test_few_distinct_rows_stops_at_the_limit_without_the_columns_after() -> None:
    taken: list[int] = []

    def columns() -> Iterator[np.ndarray]:
        for j, column in enumerate((np.array([1, 1, 2, 2]), np.array([5, 6, 7, 8]), np.array([0, 0, 0, 0]))):
            taken.append(j)
            yield column

    assert few_distinct_rows(columns(), 2) is None
    assert taken == [0, 1]  # the third column was never built
    found = few_distinct_rows(iter([np.array([1, 1, 2, 2]), np.array([0, 0, 0, 0])]), 2)
    assert found is not None
    assert found[0].tolist() == [0, 0, 1, 1] and found[1].tolist() == [0, 2]
    empty = few_distinct_rows(iter([]), 0)
    assert empty is not None and len(empty[0]) == 0


@given(st.lists(st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "", "é", "a b"])), max_size=6), max_size=3))
def test_text_codes_are_pandas_factorize(chunks: list[list[str | None]]) -> None:
    """Codes and distinct texts as ``pd.factorize`` gives them, over a column of several Arrow chunks (or none)."""
    arr = pa.chunked_array([pa.array(c, pa.large_string()) for c in chunks], pa.large_string())
    column = pd.Series(pd.arrays.ArrowStringArray(arr))
    codes, distinct = text_codes(column)
    want_codes, want_uniques = pd.factorize(column)
    assert codes.tolist() == want_codes.tolist()
    assert distinct.to_pylist() == list(want_uniques)


@given(
    st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0])), max_size=20),
    st.sampled_from(["{:.1f}%", "{:.0f}", "{:,.0f}", "{:.0%}", "{:.2f}"]),
)
def test_formatted_is_format_of_each_value(values: list[float], template: str) -> None:
    # each value by itself, -0.0 and 0.0 each as it is (the hints' messages used to format one of them for both)
    assert formatted(np.array(values, dtype=np.float64), template).tolist() == [template.format(v) for v in values]


def test_take_rows_of_a_chunked_text_column_is_iloc() -> None:
    """Rows taken chunk by chunk (Arrow's take would concatenate the chunks first) are iloc's, in its order."""
    rng = np.random.default_rng(1)
    sizes = [5, 0, 17, 3, 40]
    texts = [[None if rng.random() < 0.2 else f"t{i}-{j}" for j in range(n)] for i, n in enumerate(sizes)]
    chunks = [pa.array(t, type=pa.large_string()) for t in texts]
    for dtype in ("string", pd.StringDtype("pyarrow")):
        column = pd.Series(pd.array(pa.chunked_array(chunks), dtype=dtype), name="message")
        assert pa.array(column.array).num_chunks == len(sizes)
        for at in [rng.integers(0, len(column), n) for n in (0, 1, 7, 65, 200)]:
            taken = take_rows(column, at)
            assert taken.dtype == column.dtype
            pd.testing.assert_series_equal(taken, column.iloc[at].reset_index(drop=True))
    with pytest.raises(IndexError):
        take_rows(column, np.array([len(column)]))


_TEXTS = st.lists(
    st.one_of(st.none(), st.text(max_size=20), st.sampled_from(["", "a", "twelve bytes", "thirteen byte"]))
)


@given(_TEXTS.filter(len), st.data(), st.sampled_from([pa.string(), pa.large_string()]), st.integers(0, 2))
def test_texts_gathered_through_views_are_arrows_take(
    texts: list[str | None], data: st.DataObject, kind: pa.DataType, offset: int
) -> None:
    """``texts[codes]`` through views, for texts short (inline in the view) and long, missing, empty, non-ASCII,
    of either text type and sliced (an offset into the buffers): what Arrow's take gives, of the same type."""
    arr = pa.array(["pad"] * offset + texts, type=kind).slice(offset)
    codes = np.array(data.draw(st.lists(st.integers(-1, len(texts) - 1), min_size=1, max_size=40)), dtype=np.int64)
    want = pc.take(arr, pa.array(codes, mask=codes < 0, type=pa.int64()))
    got = vector._gathered(arr, codes)
    assert got.type == arr.type
    assert got.equals(want)
    assert got.null_count == want.null_count


def test_texts_at_gathers_through_views_from_view_rows_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """From VIEW_ROWS rows, ``texts_at`` gathers through views (this pyarrow can), with the text written once into
    a buffer of its size; below, and for a code out of range, Arrow's take (which names the bad index)."""
    assert vector._VIEWS_GATHER  # pyarrow >= 25, as CI installs
    texts = pa.array(["a text of some forty bytes, more than 12", None, "short"], type=pa.large_string())
    calls: list[int] = []
    real = vector._gathered

    def counting(t: pa.Array, codes: np.ndarray) -> pa.Array:
        calls.append(len(codes))
        return real(t, codes)

    monkeypatch.setattr(vector, "_gathered", counting)
    many = np.tile(np.array([0, 1, 2, -1]), vector.VIEW_ROWS // 4)
    out = vector.texts_at(texts, many)
    assert calls == [len(many)]
    assert out.equals(pc.take(texts, pa.array(many, mask=many < 0, type=pa.int64())))
    assert out.buffers()[2].size == 40 * (len(many) // 4) + 5 * (len(many) // 4)  # exactly the text's bytes
    assert vector.texts_at(texts, many[:8]).to_pylist() == [texts[0].as_py(), None, "short", None] * 2
    assert calls == [len(many)]  # few rows: Arrow's take
    with pytest.raises(pa.ArrowIndexError):
        vector.texts_at(texts, np.full(vector.VIEW_ROWS, 3))
    assert calls == [len(many)]


_KEY_ROW = st.tuples(st.sampled_from(["r1", "r2", None]), st.sampled_from([7, 1 << 40, None]), st.integers(0, 3))


def _key_frame(rows: list[tuple[str | None, int | None, int]], kind: str) -> pd.DataFrame:
    """LAUNCH_KEY columns as the analysis frames hold them (string and Int64), or as plain numpy columns."""
    report = pd.array([r[0] for r in rows], dtype="string")
    if kind == "numpy":
        return pd.DataFrame(
            {
                "report": np.array([r[0] for r in rows], dtype=object),
                "process_id": np.array([np.nan if r[1] is None else float(r[1]) for r in rows]),
                "launch_id": np.array([r[2] for r in rows], dtype=np.int64),
            }
        )
    return pd.DataFrame(
        {
            "report": report,
            "process_id": pd.array([r[1] for r in rows], dtype="Int64"),
            "launch_id": pd.array([r[2] for r in rows], dtype="Int64"),
        }
    )


@given(st.lists(st.lists(_KEY_ROW, max_size=12), min_size=1, max_size=4), st.sampled_from(["pandas", "numpy"]))
def test_key_codes_are_the_keys_numbered_in_order_of_first_appearance(
    frames_rows: list[list[tuple[str | None, int | None, int]]], kind: str
) -> None:
    """``summary.key_codes``, which numbers only each run's first row, against numbering every row's key tuple
    over the frames in turn (missing equals missing): runs of one key, keys back and forth, frames of no rows."""
    from ncu_roofline.summary import key_codes

    frames = [_key_frame(rows, kind) for rows in frames_rows]
    codes = key_codes(*frames)
    flat = [row for rows in frames_rows for row in rows]
    want, _ = _by_tuples(flat)
    assert [len(c) for c in codes] == [len(r) for r in frames_rows]
    assert np.concatenate(codes).tolist() == want
    assert all(c.dtype == np.int64 for c in codes)
