"""One vocabulary: every limiter, regime, precision, level, severity and flavour the analysis writes into its
frames is a member of ``ncu_roofline.vocabulary``, and every word there has its label."""

from __future__ import annotations

import pytest
from _analyses import sample

from ncu_roofline import classify, model
from ncu_roofline.ncurules import NCU_BOTTLENECKS
from ncu_roofline.vocabulary import (
    FLAVOURS,
    LEVEL_LABELS,
    LEVEL_OF_LIMITER,
    LEVELS,
    LIMITER_LABELS,
    LIMITER_OF_LEVEL,
    LIMITERS,
    MEMORY_LIMITERS,
    PRECISION_LABELS,
    PRECISIONS,
    REGIME_LABELS,
    REGIMES,
    SEVERITIES,
    Level,
    Limiter,
)


def test_every_word_has_a_label_and_hbm_is_the_dram_level() -> None:
    assert set(LIMITER_LABELS) == set(LIMITERS) and set(REGIME_LABELS) == set(REGIMES)
    assert set(PRECISION_LABELS) == set(PRECISIONS) and set(LEVEL_LABELS) == set(LEVELS)
    assert LEVEL_OF_LIMITER[Limiter.HBM] == Level.DRAM and LIMITER_OF_LEVEL["dram"] == "hbm"
    assert set(LEVEL_OF_LIMITER) == set(MEMORY_LIMITERS) and set(LIMITER_OF_LEVEL) == set(LEVELS)
    # the modules that used to declare their own copies read these
    assert classify.LIMITERS == LIMITERS and classify.REGIMES == REGIMES and model.FLAVOURS == FLAVOURS


@pytest.mark.parametrize(
    "name", ["micro_full.raw.csv", "llm_full.raw.csv.gz", "micro_full.details.csv", "train_step.details.csv"]
)
def test_what_the_analysis_writes_is_in_the_vocabulary(name: str) -> None:
    a = sample(name)
    assert set(a.verdicts["limiter"].dropna()) <= set(LIMITERS)
    assert set(a.verdicts["regime"].dropna()) <= set(REGIMES)
    assert set(a.roofline["precision"].dropna()) <= set(PRECISIONS)
    assert set(a.roofline["level"].dropna()) <= set(LEVELS)
    assert set(a.hints["severity"].dropna()) <= set(SEVERITIES)
    assert set(a.report.source["flavour"].dropna()) <= set(FLAVOURS)
    assert set(a.verdicts["ncu_bottleneck"].dropna()) <= set(NCU_BOTTLENECKS)
