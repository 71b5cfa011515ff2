"""``analyze``'s arguments checked as the command line checks its options: ``peaks`` (as ``--peak``) and
``rules`` (another page's rule rows, for the launches without their own). Real exports of the H200 sample."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import data, read_shared

from ncu_roofline.analysis import analyze, rules_for
from ncu_roofline.errors import AnalysisError


@pytest.mark.parametrize("value", [0, -1.0, float("nan"), float("inf"), "3.35e12", True, None])
def test_a_peak_that_is_no_roof_is_refused(value: Any) -> None:
    # a DRAM roof of 0 took every verdict away (NA), -1 made HBM never the limiter, a text was converted
    with pytest.raises(AnalysisError, match=r"^peak override dram_bytes_per_s: .* must be a positive, finite number"):
        analyze(read_shared(data("micro_metrics.raw.csv")), peaks={"dram_bytes_per_s": value})


def test_a_peak_of_any_real_type_is_taken() -> None:
    r = read_shared(data("micro_metrics.raw.csv"))
    a, b = (analyze(r, peaks={"dram_bytes_per_s": v}) for v in (np.int64(4_800_000_000_000), 4.8e12))
    assert a.peaks["dram_bytes_per_s"].eq(4.8e12).all()
    assert a.verdicts["limiter"].equals(b.verdicts["limiter"])


def test_rules_of_a_page_named_otherwise_are_refused_naming_rules_for() -> None:
    # the raw and details pages of one run are micro_full.raw and micro_full.details: the details' rules matched
    # no launch of the raw page, yet became 17 findings of no launch ("ncu:CPIStall", launches 0)
    raw, details = (read_shared(data(f"micro_full.{page}.csv")) for page in ("raw", "details"))
    with pytest.raises(AnalysisError, match=r"rules: none of its 178 rows .* rules_for\(rules, 'micro_full.raw'\)$"):
        analyze(raw, rules=details.rules)


def test_rules_fall_back_only_where_a_launch_has_none() -> None:
    # the details page given its own rules again: every ncu hint was there twice (294 hints, not 153)
    details = read_shared(data("micro_full.details.csv"))
    own, again = analyze(details), analyze(details, rules=details.rules)
    assert len(own.hints) == len(again.hints) == 153
    # the raw page with the details' rules (relabelled): ncu's hints of every launch, compared with ours
    raw = read_shared(data("micro_full.raw.csv"))
    a = analyze(raw, rules=rules_for(details.rules, "micro_full.raw"))
    assert a.hints["source"].eq("ncu").sum() == own.hints["source"].eq("ncu").sum()
    assert a.verdicts["agrees_with_ncu"].eq(True).all()
