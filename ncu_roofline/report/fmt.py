"""Number and text formatting shared by every renderer and command (terminal, Markdown, HTML, diff, devices):
the one dialect of the tool's output (``µs``, thin SI prefixes, ``–`` for a missing value).

Every function takes a value that may be missing (None, NaN, pandas NA) and returns a string; a missing value
reads as ``MISSING``. Pure formatting: nothing here computes a metric.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

#: How a missing number reads everywhere.
MISSING = "–"

_SI = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""), (1e-3, "m"))


def number(value: Any) -> float | None:
    """A finite float, or None for anything missing, non-numeric or infinite."""
    if value is None or value is pd.NA:
        return None
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def integer(value: Any) -> int | None:
    """An int, or None for anything missing."""
    f = number(value)
    return None if f is None else int(f)


def text(value: Any) -> str | None:
    """A string, or None for anything missing (None, NaN, pandas NA, empty)."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    s = str(value)
    return s if s else None


def _sig(v: float, digits: int = 3) -> str:
    """``v`` with ``digits`` significant digits, no exponent, trailing zeros kept up to the digits."""
    if v == 0:
        return "0"
    mag = math.floor(math.log10(abs(v)))
    rounded = round(v, digits - 1 - mag)
    if rounded and math.floor(math.log10(abs(rounded))) > mag:  # 0.9999 -> 1.00, not 1.000
        mag += 1
    decimals = max(0, digits - 1 - mag)
    return f"{v:.{decimals}f}"


def si(value: Any, unit: str = "", digits: int = 3) -> str:
    """``4.79e12, "B/s"`` -> ``"4.79 TB/s"``; ``0.5, "FLOP/byte"`` -> ``"500 mFLOP/byte"`` is avoided: values
    under 1 keep plain decimals (``"0.5 FLOP/byte"``)."""
    v = number(value)
    if v is None:
        return MISSING
    sep = " " if unit else ""
    a = abs(v)
    if a == 0:
        return f"0{sep}{unit}"
    if a < 1:
        return f"{_sig(v, digits)}{sep}{unit}"
    for i, (scale, prefix) in enumerate(_SI):
        if a >= scale:
            s = _sig(v / scale, digits)
            if abs(float(s)) >= 1000 and i > 0:  # rounding carried into the next prefix up
                up, up_prefix = _SI[i - 1]
                return f"{_sig(v / up, digits)}{sep}{up_prefix}{unit}"
            return f"{s}{sep}{prefix}{unit}"
    return f"{_sig(v, digits)}{sep}{unit}"  # pragma: no cover - a >= 1 always matches


def duration_ns(value: Any) -> str:
    """A duration given in ns: ``"8.01 ms"``, ``"868 µs"``, ``"2.11 µs"``, ``"950 ns"``."""
    v = number(value)
    if v is None:
        return MISSING
    a = abs(v)
    if a >= 1e9:
        return f"{_sig(v / 1e9)} s"
    if a >= 1e6:
        return f"{_sig(v / 1e6)} ms"
    if a >= 1e3:
        return f"{_sig(v / 1e3)} µs"
    return f"{_sig(v)} ns" if v else "0 ns"


def percent(value: Any, decimals: int = 1) -> str:
    """A fraction as a percentage: ``0.4247`` -> ``"42.5%"``; a fraction above zero that would round to zero is
    written as under the least step shown (``0.004`` at 0 decimals -> ``"<1%"``), not as none at all."""
    v = number(value)
    if v is None:
        return MISSING
    text = f"{v * 100:.{decimals}f}"
    if v > 0 and float(text) == 0:
        return f"<{10.0**-decimals:.{decimals}f}%"
    return f"{text}%"


def less_work_first(now: float | None, less: float | None, decimals: int = 1) -> tuple[str, str | None] | None:
    """A hint's two estimates as printed, the one to lead with first: (what less work recovers, what the same
    work done faster does) where removing the work recovers more, as printed (a kernel at its roof gains nothing
    from the same work done faster); else (today's figure, None). None where today's is not known."""
    if now is None:
        return None
    today = percent(now, decimals)
    if less is not None and less > now and percent(less, decimals) != today:
        return percent(less, decimals), today
    return today, None


def count(value: Any) -> str:
    """An integer with thousands separators."""
    v = integer(value)
    return MISSING if v is None else f"{v:,}"


def counted(n: int, noun: str, nouns: str | None = None) -> str:
    """``n`` with thousands separators and the noun in its number: "1 launch", "2,048 launches" (``nouns``: the
    plural, ``noun`` + "s" unless given)."""
    return f"{n:,} {noun if n == 1 else nouns or noun + 's'}"


def shorten(value: str, width: int) -> str:
    """``value`` cut to ``width`` characters with an ellipsis."""
    if width <= 0:
        return ""
    return value if len(value) <= width else value[: max(0, width - 1)] + "…"


def unique_names(names: Sequence[str], reports: Sequence[str] | None = None) -> list[str]:
    """Display names made unique: a name that kernels of several reports have is followed by its report's
    ("wmma_bf16 [micro_roof.raw]"), and later duplicates within one report get " (2)", " (3)", ..."""
    if reports is not None:
        of: dict[str, set[str]] = {}
        for n, r in zip(names, reports, strict=True):
            of.setdefault(n, set()).add(r)
        names = [f"{n} [{r}]" if r and len(of[n]) > 1 else n for n, r in zip(names, reports, strict=True)]
    seen: dict[str, int] = {}
    out = []
    for n in names:
        k = seen.get(n, 0) + 1
        seen[n] = k
        out.append(n if k == 1 else f"{n} ({k})")
    return out


def shorten_apart(values: Sequence[str], width: int) -> list[str]:
    """Each value cut to ``width`` as :func:`shorten` cuts it, except where different values would read alike
    (``nvjet_sm90_tst_256x128_64x4_1x2_h_b…`` twice): those keep their ends (``nvjet_sm90_tst_2…coopA_NNT``),
    where names of one family differ (tile shapes, layouts, template arguments)."""
    out = [shorten(v, width) for v in values]
    sources: dict[str, set[str]] = {}
    for v, s in zip(values, out, strict=True):
        sources.setdefault(s, set()).add(v)
    tail = (width - 1) // 2
    return [
        v[: width - 1 - tail] + "…" + v[len(v) - tail :] if len(sources[s]) > 1 and tail > 0 and len(v) > width else s
        for v, s in zip(values, out, strict=True)
    ]


def missing(value: Any) -> bool:
    """Whether a scalar is absent: None, pandas' NA or NaT, or a NaN float."""
    return value is None or bool(pd.isna(value))


def floating(value: Any) -> float:
    """A scalar cell as a float; NaN where it is missing (for arithmetic, not for display)."""
    return math.nan if missing(value) else float(value)


def change(fraction: Any) -> str:
    """``0.0282`` -> ``"+2.8%"``."""
    v = number(fraction)
    return MISSING if v is None else f"{v * 100:+.1f}%"


def speedup(ratio: Any) -> str:
    """``1.0286`` -> ``"1.03x"``."""
    v = number(ratio)
    return MISSING if v is None else f"{v:.2f}x"


def arrow(before: Any, after: Any, *, one_side: bool = False) -> str:
    """``"l2"`` when unchanged, ``"l2 -> hbm"`` when changed, ``"l2 -> –"`` where one side was not measured;
    ``one_side``: a kernel only one side ran, whose value is shown alone."""
    if missing(before) and missing(after):
        return MISSING
    if one_side and (missing(before) or missing(after)):
        return str(after if missing(before) else before)
    before, after = (MISSING if missing(v) else v for v in (before, after))
    return str(before) if str(before) == str(after) else f"{before} -> {after}"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool] | None = None) -> list[str]:
    """Fixed-width columns, two spaces apart; ``right``: which columns are right-aligned (numbers)."""
    right = right or [False] * len(headers)
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        out = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)]
        return "  ".join(out).rstrip()

    return [line(headers), *(line(r) for r in rows)]
