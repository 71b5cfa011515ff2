"""ncu's rule rows read by integer codes (``ncurules.RuleRows``) give what the frames keyed by launch give.

The keyed frames (``sol_bottleneck``, ``high_pipe``, ``fp_roofline``, ``cpi_stall``) are checked against ncu's
own messages in test_classify and test_hints; here the positional readings the analysis uses must say the
same per launch, on real details pages and on rule rows that repeat, come out of order or have a launch the
index lacks. ncu's rule hints must carry each OPT/WRN/ERR row's message, as written in the export.
"""

from __future__ import annotations

import csv
import gzip
import re

import numpy as np
import pandas as pd
import pytest
from conftest import data, read_shared

from ncu_roofline.classify import ncu_figures
from ncu_roofline.hints import _not_checked, ncu_rule_hints
from ncu_roofline.model import LAUNCH_KEY, launch_index
from ncu_roofline.ncurules import (
    cpi_stall,
    fp_roofline,
    high_pipe,
    ncu_pipe_figures,
    ncu_stalls,
    rule_rows,
    search,
    sol_bottleneck,
    sol_verdicts,
)
from ncu_roofline.vector import launch_positions, percent, strings

DETAILS = ("micro_full.details.csv", "llm_full.details.csv", "train_step.details.csv", "micro_full.details-all.csv")


def _variants(rules: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The rule rows as read, twice over (every launch's rows repeat), shuffled, and twice over with the
    second copy's messages of each rule moved one launch on (a launch with two different messages of a rule)."""
    shuffled = rules.sample(frac=1.0, random_state=7).reset_index(drop=True)
    moved = rules.copy()
    for _, rows in moved.groupby("rule").indices.items():
        moved.loc[moved.index[rows], "description"] = np.roll(moved["description"].to_numpy(dtype=object)[rows], 1)
    return {
        "as read": rules,
        "twice": pd.concat([rules, rules], ignore_index=True),
        "shuffled": shuffled,
        "two messages": pd.concat([rules, moved], ignore_index=True),
    }


def _objects(values: pd.Series | np.ndarray) -> list[object]:
    return [None if pd.isna(v) else v for v in np.asarray(values, dtype=object)]


@pytest.mark.parametrize("name", DETAILS)
def test_positional_readings_match_the_keyed_frames(name: str) -> None:
    report = read_shared(data(name))
    index = launch_index(report.launches)
    # one launch more than the rules know, and one the rules know left out
    extra = pd.MultiIndex.from_tuples([("elsewhere", 1, 999)], names=list(LAUNCH_KEY))
    index = index[1:].append(extra)
    for label, rules in _variants(report.rules).items():
        encoded = rule_rows(rules, index)
        sol = sol_bottleneck(rules)["ncu_bottleneck"].reindex(index)
        assert _objects(sol_verdicts(encoded, index)) == _objects(sol), label
        keyed = pd.concat([high_pipe(rules), fp_roofline(rules)], axis=1).reindex(index)
        for column, values in ncu_pipe_figures(encoded, index).items():
            assert _objects(values) == _objects(keyed[column]), (label, column)
        stalls = cpi_stall(rules).reindex(index)
        for column, values in ncu_stalls(encoded, index).items():
            assert _objects(values) == _objects(stalls[column]), (label, column)
        figures = ncu_figures(encoded, index)
        assert list(figures.columns) == [*keyed.columns]
        assert [str(t) for t in figures.dtypes] == ["string", "float64", "string", "float64", "float64"]


def test_rule_rows_read_for_another_index_are_read_again() -> None:
    report = read_shared(data("micro_full.details.csv"))
    index = launch_index(report.launches)
    encoded = rule_rows(report.rules, index)
    assert rule_rows(encoded, index) is encoded
    assert rule_rows(encoded, index.copy()) is encoded  # an equal index: the same positions
    reversed_index = index[::-1]
    again = rule_rows(encoded, reversed_index)
    assert again.pos is not None and encoded.pos is not None
    assert np.array_equal(again.pos, len(index) - 1 - encoded.pos)


@pytest.mark.parametrize("name", DETAILS[:2])
def test_ncu_rule_hints_carry_each_message_as_exported(name: str) -> None:
    """The message of every OPT/WRN/ERR row is its Rule Description in the file (read with the csv module)."""
    path = data(name)
    opener = gzip.open if path.read_bytes()[:2] == b"\x1f\x8b" else open
    with opener(path, "rt", newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    head = rows[0]
    kind, text = head.index("Rule Type"), head.index("Rule Description")
    expected = [r[text] for r in rows[1:] if len(r) == len(head) and r[kind] in ("OPT", "WRN", "ERR")]
    rules = read_shared(path).rules
    hints = ncu_rule_hints(rules)
    assert list(hints["message"]) == expected
    assert str(hints["message"].dtype) == "string"
    encoded = ncu_rule_hints(rule_rows(rules))
    pd.testing.assert_frame_equal(hints, encoded)
    assert set(hints["severity"]) <= {"high", "medium", "low"}
    assert all(h == "ncu:" + r for h, r in zip(hints["hint"], rules["rule"][rules["type"] != "INF"], strict=True))


def test_search_reads_each_distinct_text_once_and_non_ascii_by_python() -> None:
    texts = pd.Series(
        ["pipe FMA is 12.5%", None, "pipe FMA is 12.5%", "pipe \u00c4LU is 3%", "no pipe"], dtype="string"
    )
    found, groups = search(texts, re.compile(r"pipe (?P<name>\w+) is (?P<pct>[\d.]+)%"))
    assert found.tolist() == [True, False, True, True, False]
    assert groups["name"].tolist() == ["FMA", None, "FMA", "\u00c4LU", None]
    assert groups["pct"].tolist() == ["12.5", None, "12.5", "3", None]


def test_launch_positions_in_order_and_out_of_order_agree_with_a_lookup() -> None:
    frame = pd.DataFrame(
        {
            "report": pd.array(["a", "a", "a", "b", "b", None], dtype="string"),
            "process_id": pd.array([1, 1, None, None, 2, 2], dtype="Int64"),
            "launch_id": pd.array([1, 1, 2, 2, 3, 3], dtype="Int64"),
        }
    )
    index = launch_index(frame.drop_duplicates())
    in_order = launch_positions(frame, index)
    assert in_order.tolist() == [0, 0, 1, 2, 3, 4]
    shuffled = frame.iloc[[5, 0, 3, 1, 2, 4]].reset_index(drop=True)
    assert launch_positions(shuffled, index).tolist() == [4, 0, 2, 0, 1, 3]
    assert launch_positions(frame, index[:3]).tolist() == [0, 0, 1, 2, -1, -1]
    expected = index.get_indexer(launch_index(shuffled))
    assert launch_positions(shuffled, index).tolist() == expected.tolist()


def test_not_checked_with_more_notes_than_one_word_holds() -> None:
    n = 5
    notes = [(f"rule{i}: metric{i} not collected (--section S{i})", np.arange(n) % (i % 4 + 1) == 0) for i in range(70)]
    got = _not_checked(notes, n)
    for launch in range(n):
        on = [text for text, mask in notes if mask[launch]]
        assert got[launch] == "; ".join(on)
    assert str(got.dtype) == "string"
    none = _not_checked([("r: m not collected (o)", np.zeros(3, dtype=bool))], 3)
    assert none.isna().all()


def test_percent_and_strings_as_before() -> None:
    v = np.array([np.nan, 0.042, -0.0, 0.0, 0.87, 0.87, 0.0995, 0.0949, -0.004, 1.234])
    # Python's own percent presentation: one decimal under 10 %, none above
    expected = ["n/a" if np.isnan(x) else f"{x:.1%}" if abs(x) < 0.1 else f"{x:.0%}" for x in v]
    assert percent(v).tolist() == expected
    mixed = np.array(["a", None, np.nan, pd.NA, 1.5, True], dtype=object)
    assert list(strings(mixed)) == list(pd.array(mixed, dtype="string"))
    plain = np.array(["x", None, "y"], dtype=object)
    assert strings(plain).equals(pd.array(plain, dtype="string"))
