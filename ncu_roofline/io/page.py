"""What one reader returns for one file: the frames of its page, and what it skipped or did not understand."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ..model import RULE_COLUMNS, MetricSource, empty_frame
from .sniff import Skipped

#: How many examples of each kind of thing not understood ``describe_not_understood`` names.
EXAMPLES = 5


@dataclass
class Page:
    """One file's launches, metrics and rules, and the lines skipped and cells not understood.

    ``not_understood``: one short description per unit (or other cell spelling) the reader did not know; those
    cells keep their text, get no value, and are left out of the analysis."""

    launches: pd.DataFrame
    metrics: MetricSource | None = None
    rules: pd.DataFrame = field(default_factory=lambda: empty_frame(RULE_COLUMNS))
    skipped: list[Skipped] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)


def describe_not_understood(items: list[str]) -> str | None:
    """One line for ``source.not_understood``: the count and the first few items."""
    if not items:
        return None
    shown = "; ".join(items[:EXAMPLES]) + (f"; and {len(items) - EXAMPLES} more" if len(items) > EXAMPLES else "")
    return f"{len(items)} not understood, kept as text and left out of the analysis: {shown}"
