"""Plain-text formatting shared by the command line's own outputs (diff, devices): numbers with SI prefixes,
durations, signed changes, and fixed-width tables. Formatting only: every number comes in computed."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def missing(value: Any) -> bool:
    """Whether a scalar is absent: None, pandas' NA or NaT, or a NaN float."""
    return value is None or bool(pd.isna(value))


def number(value: Any) -> float:
    """A scalar cell as a float; NaN where it is missing."""
    return math.nan if missing(value) else float(value)


def si(value: Any, unit: str = "", digits: int = 3) -> str:
    """``4.8e12, "B/s"`` -> ``"4.8 TB/s"``; "-" for a missing value; ``digits`` significant digits."""
    value = number(value)
    if not math.isfinite(value):
        return "-"
    mag = abs(value)
    for factor, prefix in _PREFIXES:
        if mag >= factor:
            return f"{value / factor:.{digits}g} {prefix}{unit}".rstrip()
    return f"{value:.{digits}g} {unit}".rstrip()


def duration(ns: Any) -> str:
    """Nanoseconds as ``"1.16 ms"``, ``"1.95 us"``, ``"2.1 s"``; "-" when missing."""
    ns = number(ns)
    if not math.isfinite(ns):
        return "-"
    for factor, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if abs(ns) >= factor:
            return f"{ns / factor:.3g} {unit}"
    return f"{ns:.3g} ns"


def change(fraction: Any) -> str:
    """``0.0282`` -> ``"+2.8%"``; "-" when missing."""
    fraction = number(fraction)
    if not math.isfinite(fraction):
        return "-"
    return f"{fraction * 100:+.1f}%"


def speedup(ratio: Any) -> str:
    """``1.0286`` -> ``"1.03x"``; "-" when missing."""
    ratio = number(ratio)
    if not math.isfinite(ratio):
        return "-"
    return f"{ratio:.2f}x"


def arrow(before: Any, after: Any) -> str:
    """``"l2"`` when unchanged, ``"l2 -> hbm"`` when changed, the side there is where the other is missing."""
    if missing(before) or missing(after):
        return "-" if missing(before) and missing(after) else str(after if missing(before) else before)
    return str(before) if str(before) == str(after) else f"{before} -> {after}"


def shorten(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, ending in an ellipsis when cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool] | None = None) -> list[str]:
    """Fixed-width columns, two spaces apart; ``right``: which columns are right-aligned (numbers)."""
    right = right or [False] * len(headers)
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        out = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)]
        return "  ".join(out).rstrip()

    return [line(headers), *(line(r) for r in rows)]
