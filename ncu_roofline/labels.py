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
def label_table() -> dict[tuple[str, str], str]:
    """(section display name, label) -> metric name."""
    table: dict[tuple[str, str], str] = {}
    data = resources.files("ncu_roofline") / "data"
    for name in DATA_FILES:
        f = data / name
        if not f.is_file():
            continue
        for row in csv.DictReader(io.StringIO(f.read_text(encoding="utf-8"))):
            table.setdefault((row["section"], row["label"]), row["metric"])
    return table


@functools.lru_cache(maxsize=1)
def _name_to_label() -> dict[tuple[str, str], str]:
    return {(section, metric): label for (section, label), metric in label_table().items()}


def is_metric_name(text: str) -> bool:
    return bool(METRIC_NAME.match(text))


def resolve(section: str, field: str) -> tuple[str | None, str | None]:
    """(metric name, label) for the ``Metric Name`` field of a details row in ``section``."""
    if is_metric_name(field):
        return field, _name_to_label().get((section, field))
    m = LABEL_NAME.match(field)
    if m and is_metric_name(m.group("name")):
        return m.group("name"), m.group("label")
    return label_table().get((section, field)), field
