"""Metric labels (what a default details CSV shows) to ncu metric names, and back.

ncu writes either the label (``DRAM Frequency``, default), the name (``--print-metric-name name``:
``dram__cycles_elapsed.avg.per_second``) or both (``label-name``: ``DRAM Frequency
(dram__cycles_elapsed.avg.per_second)``). A label is only unique within its section ("Memory Throughput" is
a percentage in Speed Of Light and a byte rate in Memory Workload Analysis), so the table is keyed by
(section display name, label). The table is data: ``data/labels.csv`` (read off real ncu exports by
``tools/make_label_table.py``) and ``data/section_labels.csv`` (the labels of our own section files).
"""

from __future__ import annotations

import csv
import functools
import io
import re
from importlib import resources

#: An ncu metric name: ``unit__counter[.rollup[.submetric]]``, optionally prefixed by a collection group
#: (``SM_A.TriageCompute.``) or ``breakdown:`` / ``derived__``.
METRIC_NAME = re.compile(
    r"^(breakdown:(\d+:)?)?([A-Za-z0-9_]+\.[A-Za-z0-9_]+\.)?[a-z][a-z0-9]*__[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$"
)
#: ``Label (metric__name.rollup)`` as written by ``--print-metric-name label-name``.
LABEL_NAME = re.compile(r"^(?P<label>.*\S)\s+\((?P<name>[^()\s]+)\)$")

DATA_FILES = ("labels.csv", "section_labels.csv")


@functools.lru_cache(maxsize=1)
def _entries() -> dict[tuple[str, str], list[tuple[str, float, float]]]:
    """(section, label) -> [(metric, cc_min, cc_max)], in file order (newest spelling first)."""
    table: dict[tuple[str, str], list[tuple[str, float, float]]] = {}
    data = resources.files("ncu_roofline") / "data"
    for name in DATA_FILES:
        f = data / name
        if not f.is_file():
            continue
        for row in csv.DictReader(io.StringIO(f.read_text(encoding="utf-8"))):
            lo = float(row.get("cc_min") or 0.0)
            hi = float(row.get("cc_max") or 99.0)
            table.setdefault((row["section"], row["label"]), []).append((row["metric"], lo, hi))
    return table


@functools.lru_cache(maxsize=1)
def _name_to_label() -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for (section, label), entries in _entries().items():
        for metric, _, _ in entries:
            out.setdefault((section, metric), label)
    return out


def is_metric_name(text: str) -> bool:
    return bool(METRIC_NAME.match(text))


def _cc_number(cc: str | None) -> float | None:
    try:
        return float(cc) if cc else None
    except ValueError:
        return None


def resolve(section: str, field: str, cc: str | None = None) -> tuple[str | None, str | None]:
    """(metric name, label) for the ``Metric Name`` field of a details row in ``section``.

    ``cc`` (e.g. "9.0") picks among labels whose metric differs by architecture."""
    if is_metric_name(field):
        return field, _name_to_label().get((section, field))
    m = LABEL_NAME.match(field)
    if m and is_metric_name(m.group("name")):
        return m.group("name"), m.group("label")
    entries = _entries().get((section, field))
    if not entries:
        return None, field
    number = _cc_number(cc)
    if number is not None:
        for metric, lo, hi in entries:
            if lo <= number <= hi:
                return metric, field
    return entries[0][0], field
