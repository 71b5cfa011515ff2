"""Derive other export styles from a real ncu export, the way ncu itself writes them.

Used by the tests to cover locales and older column layouts with real data: every value comes from a real
H200 export; only its spelling or the column layout changes.
"""

from __future__ import annotations

import csv
import gzip
import io
import re
from pathlib import Path

NUMBER = re.compile(r"^-?\d{1,3}(,\d{3})*(\.\d+)?$|^-?\d+(\.\d+)?$")

#: Spellings of units in ncu 2020-2022 (Nsight Compute's "long" unit names).
OLD_UNITS = {
    "ns": "nsecond",
    "us": "usecond",
    "ms": "msecond",
    "Ghz": "cycle/nsecond",
    "Mhz": "cycle/usecond",
    "byte/s": "byte/second",
    "Kbyte/s": "Kbyte/second",
    "Mbyte/s": "Mbyte/second",
    "Gbyte/s": "Gbyte/second",
    "Tbyte/s": "Tbyte/second",
}


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def write(rows_: list[list[str]], ragged_from: int | None = None) -> str:
    """Write rows like ncu: every field quoted, CRLF-free; metric rows may be ragged."""
    out = io.StringIO()
    for r in rows_:
        out.write(",".join('"' + f.replace('"', '""') + '"' for f in r))
        if ragged_from is not None and len(r) == ragged_from:
            out.write(",")
        out.write("\n")
    return out.getvalue()


def _convert_numbers(text: str, column: str, convert) -> str:
    rs = rows(text)
    header = rs[0]
    i = header.index(column)
    for r in rs[1:]:
        if len(r) > i and NUMBER.match(r[i]):
            r[i] = convert(r[i])
    return write_like(rs)


def write_like(rs: list[list[str]]) -> str:
    """``rs`` written as ncu writes its pages: metric rows of a ragged details page (a header wider than Metric
    Value and its one empty field) end with one empty field."""
    header = rs[0]
    ragged = "Metric Value" in header and header.index("Metric Value") + 2 < len(header)
    if not ragged:
        return write(rs)
    vi = header.index("Metric Value")
    # ncu writes metric rows up to Metric Value plus one empty field: "...","value",
    fixed = [r[: vi + 1] if len(r) == vi + 2 else r for r in rs]
    return write(fixed, ragged_from=vi + 1)


def c_locale(text: str, column: str = "Metric Value") -> str:
    """Numbers without thousands separators, as in the C locale."""
    return _convert_numbers(text, column, lambda v: v.replace(",", ""))


def dot_grouped(text: str, column: str = "Metric Value") -> str:
    """Numbers in the style of locales that group with '.' and use ',' for decimals (de_DE)."""
    return _convert_numbers(text, column, lambda v: v.replace(",", "\x00").replace(".", ",").replace("\x00", "."))


def space_grouped(text: str, space: str = " ", column: str = "Metric Value") -> str:
    """Numbers in the style of locales that group with a space and use ',' for decimals (sv_SE, fr_FR: a space,
    a no-break or a narrow no-break one; nv-nsight-cu-cli 2020 printed '23 982 976' and '19,38')."""
    return _convert_numbers(text, column, lambda v: v.replace(",", "\x00").replace(".", ",").replace("\x00", space))


def label_name(labels_text: str, names_text: str) -> str:
    """``--print-metric-name label-name``: ``Label (name)``, from a labels and a names export of one report."""
    a, b = rows(labels_text), rows(names_text)
    mi = a[0].index("Metric Name")
    for x, y in zip(a[1:], b[1:], strict=True):
        if len(x) > mi and x[mi]:
            x[mi] = f"{x[mi]} ({y[mi]})"
    return write_like(a)


LAYOUT_15 = [
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
]
LAYOUT_12 = [
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Kernel Time",
    "Context",
    "Stream",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
]


def layout(text: str, columns: list[str], old_units: bool = False) -> str:
    """The same metric rows in an older column layout (no NVTX columns, no rule rows, not ragged)."""
    rs = rows(text)
    header = rs[0]
    idx = {c: header.index(c) for c in header}
    mi = idx["Metric Name"]
    out = [columns]
    for r in rs[1:]:
        if len(r) <= mi or not r[mi]:
            continue  # a rule row: older layouts have none
        row = []
        for c in columns:
            if c == "Kernel Time":
                row.append("2026-Nov-30 16:17:13")
            else:
                row.append(r[idx[c]])
        if old_units:
            u = columns.index("Metric Unit")
            row[u] = OLD_UNITS.get(row[u], row[u])
        out.append(row)
    return write(out)


def text_of(path: Path) -> str:
    """An export's text, gzip-compressed or not."""
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode()


def raw_rows(path: Path) -> list[list[str]]:
    """The rows of a raw page (or any export), gzip-compressed or not."""
    return rows(text_of(path))


def picked(raw: list[list[str]], metrics: tuple[str, ...] | list[str], target: Path) -> Path:
    """A raw page of the metrics picked by hand (``ncu --metrics``): ``raw``'s identity columns (up to CC) and
    ``metrics``, each once, in the page's order, every value ncu's own, written as ncu writes it."""
    header = raw[0]
    keep = [*range(header.index("CC") + 1), *sorted({header.index(m) for m in metrics})]
    target.write_text(write([[r[i] for i in keep] for r in raw]))
    return target
