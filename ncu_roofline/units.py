"""Units and numbers as ncu writes them, converted to base SI units with decimal prefixes.

ncu auto-scales units per value (``us``, ``Ghz``, ``Kbyte``, ``Tbyte/s``, ``sector/ns``); older versions spell
``usecond``, ``Gbyte/second``, ``cycle/nsecond``; ``--print-units base`` writes ``ns``, ``hz``, ``byte``.
Every unit is parsed into a numerator and an optional denominator; each side is a known base word with an
optional decimal prefix (K = 1000, as ncu uses) or a time unit. The result is a factor and a base unit:
time in seconds (``s``), frequency in ``hz`` (``cycle/s`` is written ``hz``), data in ``byte``.
Percentages stay percentages (0..100). A time unit in a denominator is physical (``sector/ns``); a decimal
prefix on any other denominator is ncu's scaling of the *number* (``%/Kbyte`` = the value in ``%/byte``
divided by 1000), as ncu's base-unit export of the same report shows. ncu 2024.2 writes dimensionless rates as
``1/cycle``, ``1/ns``, ``1/s`` (2025.3 leaves the unit empty for the same numbers; ``1/ns`` is per nanosecond:
444028.57 1/ns there is 444,028,573,834,586.50 in 2025.3's export of the same report) and one percentage as
``%/`` (an empty denominator; ``%`` in 2025.3).

A unit this module does not know is not an error for a reader: :func:`unit_or_none` gives None, and the reader
keeps the cell's text, leaves its value out (NaN) and lists the unit in ``source.not_understood``.

Numbers come in three styles: en (``2,840,177,056,935.29``), C (``2840177056935.29``) and the
dot-grouped style of other locales (``27.595.520``, ``65,77``). The style is decided once per file.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .errors import UnitError

PREFIXES: dict[str, float] = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}

#: Time units to seconds: the short ncu spellings and the older long ones.
TIME_UNITS: dict[str, float] = {
    "s": 1.0,
    "ms": 1e-3,
    "us": 1e-6,
    "ns": 1e-9,
    "second": 1.0,
    "msecond": 1e-3,
    "usecond": 1e-6,
    "nsecond": 1e-9,
}

#: The same, inverted exactly (a rate per nanosecond is 1e9 per second, not 999999999.9999999).
PER_TIME: dict[str, float] = {
    "s": 1.0,
    "ms": 1e3,
    "us": 1e6,
    "ns": 1e9,
    "second": 1.0,
    "msecond": 1e3,
    "usecond": 1e6,
    "nsecond": 1e9,
}

#: Base words ncu uses (Nsight Compute's metric units and the words seen in 2020.x-2025.x exports).
#: Plural spellings map to the singular.
BASE_WORDS: dict[str, str] = {
    "byte": "byte",
    "bytes": "byte",
    "hz": "hz",
    "Hz": "hz",
    "cycle": "cycle",
    "cycles": "cycle",
    "inst": "inst",
    "insts": "inst",
    "sector": "sector",
    "sectors": "sector",
    "request": "request",
    "requests": "request",
    "warp": "warp",
    "warps": "warp",
    "thread": "thread",
    "threads": "thread",
    "block": "block",
    "blocks": "block",
    "register": "register",
    "registers": "register",
    "branches": "branch",
    "branch": "branch",
    "pass": "pass",
    "passes": "pass",
    "SM": "SM",
    "TPC": "TPC",
    "GPC": "GPC",
    "cluster": "cluster",
    "clusters": "cluster",
    "sample": "sample",
    "samples": "sample",
    "wavefront": "wavefront",
    "wavefronts": "wavefront",
    "instance": "instance",
    "packet": "packet",
    "packets": "packet",
    "op": "op",
    "ops": "op",
    "flop": "flop",
    "%": "%",
    "bit": "bit",
    "bits": "bit",
    "lane": "lane",
    "queue": "queue",
    "access": "access",
    "transaction": "transaction",
    "transactions": "transaction",
    "stall": "stall",
    "event": "event",
    "message": "message",
    "prims": "prim",
    "prim": "prim",
    "triangle": "triangle",
    "pixel": "pixel",
    "vertex": "vertex",
    "attribute": "attribute",
    "count": "count",
    "entries": "entry",
    "entry": "entry",
    "slots": "slot",
    "slot": "slot",
    "1": "1",  # ncu 2024.2's dimensionless numerator: 1/cycle, 1/ns, 1/s
}

#: Which base words accept a decimal prefix (ncu auto-scales these).
PREFIXABLE = {
    "byte",
    "hz",
    "inst",
    "sector",
    "cycle",
    "warp",
    "request",
    "thread",
    "block",
    "flop",
    "op",
    "bit",
}


@dataclass(frozen=True)
class Unit:
    """A parsed unit: value_in_base = value * factor, expressed in ``base``."""

    text: str
    factor: float
    base: str


def _parse_side(token: str) -> tuple[float, str] | None:
    """One side of a unit (``Kbyte``, ``ns``, ``cycle``) as (factor, base word), or None if unknown."""
    if token in TIME_UNITS:
        return TIME_UNITS[token], "s"
    if token in BASE_WORDS:
        return 1.0, BASE_WORDS[token]
    if len(token) > 1 and token[0] in PREFIXES:
        rest = token[1:]
        base = BASE_WORDS.get(rest)
        if base is not None and base in PREFIXABLE:
            return PREFIXES[token[0]], base
    return None


@functools.lru_cache(maxsize=4096)
def parse_unit(unit: str) -> Unit:
    """Parse an ncu unit string; raise UnitError (without a path) when it is not one we know.

    >>> parse_unit("Tbyte/s").factor, parse_unit("Tbyte/s").base
    (1000000000000.0, 'byte/s')
    """
    text = unit.strip()
    if text == "":
        return Unit(unit, 1.0, "")
    parts = text.split("/")
    if len(parts) == 2 and parts[0].strip() and not parts[1].strip():
        parts = parts[:1]  # ncu 2024.2's "%/": the same percentage 2025.3 writes as "%"
    if len(parts) > 2 or any(p.strip() == "" for p in parts):
        raise UnitError(None, f"unknown unit {unit!r} (expected e.g. 'us', 'Gbyte/s', 'inst/cycle')")
    num = _parse_side(parts[0].strip())
    if num is None:
        raise UnitError(None, f"unknown unit {unit!r} (expected e.g. 'us', 'Gbyte/s', 'inst/cycle')")
    factor, base = num
    if len(parts) == 2:
        token = parts[1].strip()
        den = _parse_side(token)
        if den is None:
            raise UnitError(None, f"unknown unit {unit!r} (unknown denominator {parts[1]!r})")
        if den[1] == "1":  # "byte/1", "sector/1" (ncu --query-metrics): per one, the numerator's unit
            return Unit(unit, factor, "hz" if base == "cycle/s" else base)
        if token in TIME_UNITS:
            # sector/ns: physically scaled (203.3 sector/ns = 2.033e11 sector/s); 1/1e-9 is not exact in floats
            factor *= PER_TIME[token]
        else:
            # ncu scales the number, not the denominator: 2.614 %/Kbyte is 2,614 %/byte in the same
            # report's base-unit export (micro_full.raw.csv vs raw-base.csv, and ncu_report's value).
            factor *= den[0]
        base = f"{base}/{den[1]}"
    if base == "cycle/s":
        base = "hz"
    return Unit(unit, factor, base)


#: The base words whose values ncu writes in a unit of their own when it scales units (``--print-units auto``, its
#: default): data, frequency and time, alone or in a rate or ratio (``Kbyte/block``, ``Gbyte/s``, ``sector/ns``,
#: ``%/Kbyte``). Counts (``inst``, ``cycle``, ``thread``) are written whole, with grouping separators.
SCALED_WORDS = frozenset({"byte", "hz", "s"})


def scaled_per_value(unit: Unit) -> bool:
    """Whether ncu, scaling units, writes each value of ``unit`` in a prefix of its own (``SCALED_WORDS``): a
    raw page's column unit is then one value's, and only the cells ncu rescales to it (the plain cells, six
    decimals) are in it; a ``--print-metric-instances`` cell keeps its own (``440 (...)`` under ``%/Kbyte`` where
    the plain page has ``0.440000``: %/Mbyte)."""
    return any(word in SCALED_WORDS for word in unit.base.split("/"))


def in_base_units(units: Iterable[Unit]) -> bool:
    """Whether a page's units are ncu's base units (``--print-units base``): no decimal prefix on any of them,
    time in ``ns`` as ncu writes it then (a page of scaled units has ``Ghz``, ``Mbyte``, ``us`` ...)."""
    return all(u.factor == 1.0 or u.text.strip() in ("ns", "nsecond") for u in units)


#: The counters whose unit :func:`unit_misfit` checks: the duration, the Speed Of Light throughputs, the bytes and
#: the clocks a verdict and a roofline are made of, whose units every ncu writes alike. (Others vary: ncu writes
#: ``lts__d_decomp_input_sectors.avg.pct_of_peak_sustained_elapsed`` in ``sector``, a derived byte rate in Tbyte.)
CHECKED_COUNTERS = frozenset(
    {
        "gpu__time_duration", "dram__throughput", "gpu__dram_throughput", "gpu__compute_memory_throughput",
        "sm__throughput", "lts__throughput", "l1tex__throughput", "dram__bytes", "dram__bytes_read",
        "dram__bytes_write", "lts__t_bytes", "l1tex__t_bytes", "sm__cycles_elapsed", "smsp__cycles_elapsed",
        "dram__cycles_elapsed", "gpc__cycles_elapsed", "lts__cycles_elapsed", "l1tex__cycles_elapsed",
    }
)  # fmt: skip


def unit_misfit(metric: str, base: str) -> str | None:
    """What kind of unit ``metric`` (one of CHECKED_COUNTERS') is written in, where ``base`` (a parsed unit's base)
    is of another kind: "a percentage" for ``dram__throughput.avg.pct_of_peak_sustained_elapsed`` in ``Gbyte``;
    else None (the unit fits, or the metric is not checked). A cell in a unit of the wrong kind is damage: read
    as its unit says, a DRAM throughput of 86.58 "Gbyte" was 86,580,000 % of its peak."""
    counter, _, rest = metric.partition(".")
    if not base or counter not in CHECKED_COUNTERS:
        return None
    if rest.endswith("peak_sustained") or ".per_cycle" in rest:  # per cycle: not checked
        return None
    if ".pct" in rest or rest.endswith("pct"):
        return None if base == "%" else "a percentage"
    if rest.endswith("per_second"):
        return None if base.endswith("/s") or base == "hz" else "a rate per second"
    if counter == "gpu__time_duration":
        return None if base == "s" else "a time"
    if counter.endswith("bytes") or counter.endswith("__bytes_read") or counter.endswith("__bytes_write"):
        return None if base == "byte" else "bytes"
    if counter.endswith("__cycles_elapsed"):
        return None if base == "cycle" else "cycles"
    return None


def unit_or_none(unit: str) -> Unit | None:
    """:func:`parse_unit`, or None for a unit it does not know (readers keep such cells as text)."""
    try:
        return parse_unit(unit)
    except UnitError:
        return None


# ---------------------------------------------------------------------------------------------- numbers

#: A plain number once grouping separators are gone (also scientific notation and ncu's "inf"/"nan").
_PLAIN_NUMBER = r"^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$"
#: A value followed by its instances in parentheses (``--print-metric-instances values``): the value is group 1.
_WITH_INSTANCES = r"^\s*([^\s(;][^(;]*?)\s+\([^()]*\)\s*$"

# Evidence for the number style of a file.
_EN_EVIDENCE = re.compile(r"^[-+]?[0-9]{1,3}(,[0-9]{3})+\.[0-9]+$|^[-+]?[0-9]*\.([0-9]{1,2}|[0-9]{4,})$")
#: ... comma decimals, digits grouped by '.' (de_DE, es_ES) or by a space (sv_SE, fr_FR: ' ', a no-break or a narrow
#: no-break space; nv-nsight-cu-cli 2020 on a Swedish system printed "23 982 976" and "19,38")
_SPACES = " \u00a0\u202f"
_DOT_GROUPED_EVIDENCE = re.compile(
    r"^[-+]?[0-9]{1,3}(\.[0-9]{3})+,[0-9]+$|^[-+]?[0-9]{1,3}(\.[0-9]{3}){2,}$|^[-+]?[0-9]*,([0-9]{1,2}|[0-9]{4,})$"
)
#: A number grouped by a space: read only in a page whose other numbers show decimal commas (``space_grouped``); a
#: page of whole numbers ("524,288" is 524288 or 524.288) with one such cell says nothing of the others' style.
_SPACE_GROUPED = rf"^[-+]?[0-9]{{1,3}}(?:[{_SPACES}][0-9]{{3}})+(?:,[0-9]+)?$"
_NUMBERISH = re.compile(rf"^[-+]?[0-9][0-9.,{_SPACES}]*([eE][-+]?[0-9]+)?$")

NUMBER_STYLES = ("en", "dot-grouped")
#: Per style, its grouping separator and a number it groups: one to three digits, then groups of three, the
#: separator in the integer part only ("1,2,3", "12,34" and "1.5,000" are no number: a damaged cell, not 123).
_GROUPED: dict[str, tuple[str, str]] = {
    "en": (",", r"^\s*[-+]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?\s*$"),
    "dot-grouped": (".", r"^\s*[-+]?[0-9]{1,3}(?:\.[0-9]{3})+(?:,[0-9]*)?(?:[eE][-+]?[0-9]+)?\s*$"),
}


def detect_number_style(samples: list[str]) -> str | None:
    """'en' (comma groups, dot decimals; also the C locale), 'dot-grouped' (comma decimals, dot or space groups),
    or None when the samples disagree with each other (a mixed file)."""
    en = dot = False
    for s in samples:
        if not _NUMBERISH.match(s):
            continue
        if _EN_EVIDENCE.match(s):
            en = True
        elif _DOT_GROUPED_EVIDENCE.match(s):
            dot = True
        if en and dot:
            return None
    return "dot-grouped" if dot else "en"


def style_examples(samples: list[str]) -> tuple[str, str] | None:
    """The first sample that is evidence for the "en" style and the first for "dot-grouped" (as
    :func:`detect_number_style` weighs them), where there are both."""
    en = dot = None
    for s in samples:
        if not _NUMBERISH.match(s):
            continue
        if _EN_EVIDENCE.match(s):
            en = en or s
        elif _DOT_GROUPED_EVIDENCE.match(s):
            dot = dot or s
        if en and dot:
            return en, dot
    return None


#: A number grouped by an apostrophe (ASCII, or U+2019 as glibc's de_CH writes it), or by a space with a decimal
#: point: spellings no ncu export shows (its groups are ',', and in comma-decimal locales '.' or a space).
_OTHER_GROUPING = (
    "^-?[0-9]{1,3}(?:['\u2019][0-9]{3})+(?:[.,][0-9]+)?$" + f"|^-?[0-9]{{1,3}}(?:[{_SPACES}][0-9]{{3}})+\\.[0-9]+$"
)


def other_grouping(text: pa.Array) -> str | None:
    """The first distinct cell of a string array that groups its digits in a way ncu does not write (see
    ``_OTHER_GROUPING``), or None."""
    return _first_matching(text, _OTHER_GROUPING)


def space_grouped(text: pa.Array) -> str | None:
    """The first distinct cell of a string array whose digits are grouped by a space (``_SPACE_GROUPED``), or None."""
    return _first_matching(text, _SPACE_GROUPED)


def _first_matching(text: pa.Array, pattern: str) -> str | None:
    if isinstance(text.type, pa.DictionaryType):
        text = text.dictionary
    cells = text.unique()
    found = pc.filter(cells, pc.fill_null(pc.match_substring_regex(cells, pattern), False))
    return str(found[0].as_py()) if len(found) else None


def spaces_read(style: str | None, space_cell: str | None) -> bool:
    """Whether a page whose number ``style`` the evidence gives may hold ``space_cell``, a number grouped by a
    space: only a page of decimal commas ("dot-grouped": sv_SE, fr_FR), not one of decimal points or of whole
    numbers alone (where "524,288" could be either, and one stray space would turn every comma into a decimal)."""
    return space_cell is None or style == "dot-grouped"


def number_evidence(text: pa.Array) -> tuple[bool, bool]:
    """Whether some cell of a string array is evidence for the "en" style, and some for "dot-grouped", as
    :func:`detect_number_style` weighs each sample (Arrow's regexes over the distinct cells, no Python loop)."""
    cells = text.unique()
    numberish = pc.match_substring_regex(cells, _NUMBERISH.pattern)
    en = pc.and_(numberish, pc.match_substring_regex(cells, _EN_EVIDENCE.pattern))
    dot = pc.and_(pc.and_(numberish, pc.invert(en)), pc.match_substring_regex(cells, _DOT_GROUPED_EVIDENCE.pattern))
    return bool(pc.any(en).as_py()), bool(pc.any(dot).as_py())


def style_of(en: bool, dot: bool) -> str | None:
    """The number style that evidence gives (:func:`detect_number_style`): None for evidence of both."""
    if en and dot:
        return None
    return "dot-grouped" if dot else "en"


#: A cell that begins as a number does: a sign or none, then a digit (or a decimal mark and a digit), not a
#: hexadecimal ``0x``. Where such a cell is no number (digits grouped otherwise than by three,
#: ``1159,966,902.07``; a number beyond float64, ``1e999``; a number with something after it, ``189.41x``) it is
#: damaged, not one of the texts ncu writes for a metric (``n/a``, ``no data``, a shape ``(1, 1, 1)``, a word):
#: no metric cell of the real exports of ncu 2019.5-2025.3 in ``../shared`` begins with a digit and is no number
#: (those with their instances after the value, ``1,056 (0; 0; 16)``, read as the value).
NUMBER_LIKE = r"^\s*[-+]?[.,]?(?:[1-9]|0(?:[^xX]|$))"  # (RE2: no look-ahead)


#: The texts ncu writes in a cell of a metric with a unit where it has no number (lower case): not damage.
NO_NUMBER = frozenset({"n/a", "no data", "nan", "-nan", "inf", "-inf", "+inf"})


def unread_numbers(
    text: pa.Array | pa.ChunkedArray, parsed: np.ndarray, with_unit: np.ndarray | None = None
) -> list[str]:
    """The distinct cells of ``text`` that look like numbers (``NUMBER_LIKE``) and are none: ``parsed`` (what
    ``parse_numbers`` made of ``text``, as floats) is NaN there; and, where ``with_unit`` says which cells are of
    a metric with a unit (a boolean per cell), those cells without a digit that are none of ncu's texts
    (``NO_NUMBER``): ``"Duration","us","abc"`` is a damaged cell, ``"Device Name","","NVIDIA H200"`` a text. In
    the order they first come."""
    missing = np.isnan(np.asarray(parsed, dtype=np.float64))
    if not missing.any():
        return []
    text = _plain(text)
    cells = pc.unique(text.filter(pa.array(missing)).drop_null())
    number_like = pc.match_substring_regex(cells, NUMBER_LIKE).to_numpy(zero_copy_only=False)
    if with_unit is None or not (missing & with_unit).any():
        out: list[str] = cells.filter(pa.array(number_like)).to_pylist()
        return out
    worded = set(pc.unique(text.filter(pa.array(missing & with_unit)).drop_null()).to_pylist())
    return [
        c
        for c, like in zip(cells.to_pylist(), number_like.tolist(), strict=True)
        if like or (c in worded and _damaged_word(c))
    ]


def _plain(text: pa.Array | pa.ChunkedArray) -> pa.Array:
    """A text column as one array of its strings (chunks combined, a dictionary's values taken)."""
    if isinstance(text, pa.ChunkedArray):
        text = text.combine_chunks()
    if isinstance(text.type, pa.DictionaryType):
        text = text.cast(text.type.value_type)
    return text


def _damaged_word(cell: str) -> bool:
    """Whether a cell of a metric with a unit, not a number, is damage: text without a digit that ncu does not
    write (``NO_NUMBER``); an empty cell is a metric not collected."""
    word = cell.strip()
    return bool(word) and word.lower() not in NO_NUMBER and not any(ch.isdigit() for ch in word)


def has_unit(unit: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Per cell of a unit column, whether it names a unit (not empty, not null)."""
    named = pc.fill_null(pc.not_equal(pc.utf8_trim_whitespace(_plain(unit)), ""), False)
    out: np.ndarray = named.to_numpy(zero_copy_only=False)
    return out


def parse_numbers(text: pa.Array | pa.ChunkedArray, style: str) -> pa.Array | pa.ChunkedArray:
    """Vectorised: strings -> float64, null where the text is not a number (n/a, empty, words, lists of instances
    without a value, a number beyond float64's range).

    A string column without nulls takes a byte-level path (grouping separators dropped, each cell's characters
    checked against those of a plain number, the plain cells cast at once); only the cells with other characters,
    and columns of another kind, take the regex path."""
    if style not in NUMBER_STYLES:  # pragma: no cover - guarded by callers
        raise ValueError(style)
    if isinstance(text, pa.Array) and text.null_count == 0 and text.type in (pa.string(), pa.large_string()):
        return _parse_plain_cells(text, style)
    return _parse_numbers_regex(text, style)


def _finite(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """``values`` with a number beyond float64's range (``1e999``, cast to infinity) null, as ``inf`` is: no metric
    ncu writes is infinite, and an infinity carried on made every launch's DRAM peak 0."""
    if not len(values) or not pc.any(pc.is_inf(values)).as_py():
        return values
    return pc.if_else(pc.is_inf(values), pa.scalar(None, pa.float64()), values)


#: Byte classes of number text: 0 a character of a plain number, 1 a grouping separator (dropped), 2 another.
_EN_BYTES = np.full(256, 2, dtype=np.uint8)
_EN_BYTES[list(b"0123456789.eE+-")] = 0
_EN_BYTES[ord(",")] = 1
_DOT_BYTES = _EN_BYTES.copy()
_DOT_BYTES[ord(".")] = 1
_DOT_BYTES[ord(",")] = 0  # the decimal comma, written as a dot below


def _parse_plain_cells(text: pa.Array, style: str) -> pa.Array:
    """:func:`parse_numbers` of a string array without nulls, on its bytes, with the regex path's results: a cell of
    plain-number characters is a number exactly when Arrow's cast reads it; the few other cells go the regex path."""
    n = len(text)
    if n == 0:
        return pa.array([], pa.float64())
    kind = np.int64 if text.type == pa.large_string() else np.int32
    raw = np.frombuffer(text.buffers()[1], dtype=kind)[text.offset : text.offset + n + 1].astype(np.int64)
    data = np.frombuffer(text.buffers()[2], dtype=np.uint8)[raw[0] : raw[-1]]
    raw -= raw[0]
    cls = (_EN_BYTES if style == "en" else _DOT_BYTES)[data]
    drop = np.flatnonzero(cls == 1)  # grouping separators: the cells' bounds move back by those before them
    bounds = raw - np.searchsorted(drop, raw) if len(drop) else raw
    kept = np.delete(data, drop) if len(drop) else data
    if style != "en":
        kept = np.where(kept == ord(","), np.uint8(ord(".")), kept)
    other = np.zeros(n, dtype=bool)  # cells with bytes of no plain number: the regex path reads them
    other[np.searchsorted(raw, np.flatnonzero(cls == 2), side="right") - 1] = True
    if len(drop):  # cells with a separator: grouped as a number is, or the regex path (no number)
        grouped = np.unique(np.searchsorted(raw, drop, side="right") - 1)
        grouped = grouped[~other[grouped]]
        if len(grouped):
            ok = pc.match_substring_regex(text.take(pa.array(grouped)), _GROUPED[style][1])
            other[grouped[~np.asarray(ok, dtype=bool)]] = True
    plain = (bounds[1:] > bounds[:-1]) & ~other  # the rest are empty (once separators are dropped): null
    if plain.all():
        cells = pa.LargeStringArray.from_buffers(n, pa.py_buffer(bounds), pa.py_buffer(kept))
        try:
            return _finite(pc.cast(cells, pa.float64()))
        except pa.ArrowInvalid:  # plain-number characters that are no number ("1-2"): the regex path says
            return _parse_numbers_regex(text, style)
    valid = pa.py_buffer(np.packbits(plain, bitorder="little"))
    cells = pa.LargeStringArray.from_buffers(n, pa.py_buffer(bounds), pa.py_buffer(kept), valid)
    try:
        out = pc.cast(cells, pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:
        return _parse_numbers_regex(text, style)
    rest = np.flatnonzero(other)
    if len(rest):
        out[rest] = _parse_numbers_regex(text.take(pa.array(rest)), style).to_numpy(zero_copy_only=False)
    return _finite(pa.array(out, pa.float64(), from_pandas=True))


def with_instances(text: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Which cells are a value followed by its instances (``1.02 (1.02)``, ``1,056 (0; 0; 16)``, ``1 (0: 1)``):
    ``--print-metric-instances`` cells, as a boolean array."""
    if not pc.any(pc.match_substring(text, " (")).as_py():
        return np.zeros(len(text), dtype=bool)
    return np.asarray(pc.fill_null(pc.match_substring_regex(text, _WITH_INSTANCES), False), dtype=bool)


def _parse_numbers_regex(text: pa.Array | pa.ChunkedArray, style: str) -> pa.Array | pa.ChunkedArray:
    """:func:`parse_numbers` with Arrow's string kernels (any string array, nulls and chunks included). A cell of
    ``--print-metric-instances values`` (the value, then its instances: ``1,056 (0; 0; 16; ...)``) reads as its
    value; one of instances alone (``(49.39; 0; ...)``: ncu gives the metric no value) stays null."""
    if pc.any(pc.match_substring(text, " (")).as_py():
        text = pc.replace_substring_regex(text, _WITH_INSTANCES, r"\1")
    separator, grouped = _GROUPED[style]
    if pc.any(pc.match_substring(text, separator)).as_py():  # a separator: in a grouped number only
        bad = pc.and_(pc.match_substring(text, separator), pc.invert(pc.match_substring_regex(text, grouped)))
        text = pc.if_else(bad, pa.scalar(None, pa.string()), text)
    if style == "en":
        plain = pc.replace_substring(text, ",", "") if pc.any(pc.match_substring(text, ",")).as_py() else text
    else:
        if pc.any(pc.match_substring_regex(text, f"[{_SPACES}]")).as_py():  # digit groups of a space, strictly
            text = pc.utf8_trim_whitespace(text)
            spaced = pc.match_substring_regex(text, f"[{_SPACES}]")
            loose = pc.and_(spaced, pc.invert(pc.match_substring_regex(text, _SPACE_GROUPED)))
            text = pc.if_else(loose, pa.scalar(None, pa.string()), text)  # "1 2", "37 0890": no number
            for space in _SPACES:
                text = pc.replace_substring(text, space, "")
        plain = pc.replace_substring(pc.replace_substring(text, ".", ""), ",", ".")
    try:
        if not pc.any(pc.match_substring_regex(plain, r"^\s|\s$|^$|[^0-9.eE+-]")).as_py():
            return _finite(pc.cast(plain, pa.float64()))
    except pa.ArrowInvalid:
        pass
    plain = pc.utf8_trim_whitespace(plain)
    ok = pc.match_substring_regex(plain, _PLAIN_NUMBER)
    numeric = pc.if_else(ok, plain, pa.scalar(None, pa.string()))
    return _finite(pc.cast(numeric, pa.float64()))
