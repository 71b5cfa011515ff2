"""Test-side reader of ncu's own hierarchical roofline chart inputs (``--print-details all`` CSV).

Golden values for ``tests/test_roofline.py``: the body items ncu prints for its roofline charts, combined
into ncu's chart points by the chart's own recipe (``RooflineChart`` in the stock section files): peak work
= ops per cycle x SM frequency; peak traffic = bytes per cycle x memory frequency; achieved work = sum of the
per-cycle work items x SM frequency; achieved traffic = the bandwidth item. Nothing here imports the code
under test.

Every printed value becomes an interval (value +- half a unit in its last printed digit, in base units),
and chart points are computed with interval arithmetic, so a test's tolerance is exactly what ncu's printing
allows. Stray non-CSV lines in these exports (an NVLink text line, an embedded "GPU ID, GPU Name, NUMA ID"
table) are skipped: only rows with a numeric ``ID`` that reach the ``Metric Value`` column are kept.
"""

from __future__ import annotations

import csv
import functools
import math
import re
from dataclasses import dataclass
from pathlib import Path

from _rawwide import half_ulp, parse_number, unit_factor

SECTION_PRECISION = {
    "GPU Speed Of Light Hierarchical Roofline Chart (Single Precision)": "fp32",
    "GPU Speed Of Light Hierarchical Roofline Chart (Double Precision)": "fp64",
    "GPU Speed Of Light Hierarchical Roofline Chart (Half Precision)": "fp16",
    "GPU Speed Of Light Hierarchical Roofline Chart (Tensor Core)": "tensor",
}
_ITEM = re.compile(
    r"^(?P<level>DRAM|L2|L1|L1/TEX)(?: Cache)? (?P<kind>Roofline|Achieved Value)(?: \((?P<series>.*)\))?$"
)


@dataclass(frozen=True)
class Iv:
    """A closed interval [lo, hi] (interval arithmetic for rounding bounds)."""

    lo: float
    hi: float

    @staticmethod
    def around(value: float, half_width: float) -> Iv:
        return Iv(value - half_width, value + half_width)

    @property
    def mid(self) -> float:
        return (self.lo + self.hi) / 2

    def __add__(self, other: Iv) -> Iv:
        return Iv(self.lo + other.lo, self.hi + other.hi)

    def __mul__(self, other: Iv) -> Iv:
        p = (self.lo * other.lo, self.lo * other.hi, self.hi * other.lo, self.hi * other.hi)
        return Iv(min(p), max(p))

    def __truediv__(self, other: Iv) -> Iv:
        if other.lo <= 0 <= other.hi:
            return Iv(-math.inf, math.inf)
        return self * Iv(1 / other.hi, 1 / other.lo)

    def scale(self, k: float) -> Iv:
        return Iv(min(self.lo * k, self.hi * k), max(self.lo * k, self.hi * k))

    def overlaps(self, other: Iv, slack: float = 0.0) -> bool:
        return self.lo <= other.hi + slack and other.lo <= self.hi + slack

    def contains(self, x: float, slack: float = 0.0) -> bool:
        return self.lo - slack <= x <= self.hi + slack


@dataclass(frozen=True)
class Printed:
    """One printed body item: label, unit and text as exported, and its interval in base units."""

    label: str
    unit: str
    text: str

    @property
    def value(self) -> float:
        return parse_number(self.text) * unit_factor(self.unit)

    @property
    def iv(self) -> Iv:
        return Iv.around(self.value, half_ulp(self.text) * unit_factor(self.unit))


@dataclass(frozen=True)
class ChartPoint:
    """ncu's chart inputs for one launch x precision x level (x tensor series)."""

    report: str
    process_id: int
    launch_id: int
    precision: str
    level: str
    series: str  # tensor series as ncu labels it ("Op:hmma Src:bf16 Dst:fp32 Sparsity:off"); "" for fp charts
    roof_items: tuple[Printed, ...]
    achieved_items: tuple[Printed, ...]

    @staticmethod
    def _one(items: tuple[Printed, ...], pattern: str) -> Printed:
        hits = [p for p in items if re.search(pattern, p.label)]
        assert len(hits) == 1, (pattern, [p.label for p in items])
        return hits[0]

    # -- the inputs, by role --
    @property
    def achieved_sm_frequency(self) -> Printed:
        return self._one(self.achieved_items, r"^SM Frequency$")

    @property
    def peak_sm_frequency(self) -> Printed:
        return self._one(self.roof_items, r"^SM Frequency$")

    @property
    def peak_ops_per_cycle(self) -> Printed:
        return self._one(self.roof_items, r"^Theoretical .*Operations$")

    @property
    def peak_bytes_per_cycle(self) -> Printed:
        return self._one(self.roof_items, r"^Theoretical .*Bytes Accessible$")

    @property
    def memory_frequency(self) -> Printed:
        return self._one(self.roof_items, r"^(DRAM|L2 Cache|L1/TEX Cache) Frequency$")

    @property
    def bandwidth(self) -> Printed:
        return self._one(self.achieved_items, r"Bandwidth")

    @property
    def work_items(self) -> tuple[Printed, ...]:
        return tuple(p for p in self.achieved_items if p.label != "SM Frequency" and "Bandwidth" not in p.label)

    # -- ncu's chart point, as intervals --
    @property
    def achieved_flops(self) -> Iv:
        total = Iv(0.0, 0.0)
        for p in self.work_items:
            total = total + p.iv
        return total * self.achieved_sm_frequency.iv

    @property
    def achieved_bytes_per_s(self) -> Iv:
        return self.bandwidth.iv

    @property
    def intensity(self) -> Iv:
        return self.achieved_flops / self.achieved_bytes_per_s

    @property
    def peak_flops(self) -> Iv:
        return self.peak_ops_per_cycle.iv * self.peak_sm_frequency.iv

    @property
    def peak_bytes_per_s(self) -> Iv:
        return self.peak_bytes_per_cycle.iv * self.memory_frequency.iv

    def quantity(self, name: str) -> tuple[float, Iv]:
        """(ncu's value from the printed numbers, its rounding interval) for one chart quantity."""
        iv: Iv = getattr(self, name)
        if name == "achieved_flops":
            value = sum(p.value for p in self.work_items) * self.achieved_sm_frequency.value
        elif name == "achieved_bytes_per_s":
            value = self.bandwidth.value
        elif name == "intensity":
            b = self.bandwidth.value
            value = self.quantity("achieved_flops")[0] / b if b else math.nan
        elif name == "peak_flops":
            value = self.peak_ops_per_cycle.value * self.peak_sm_frequency.value
        else:
            value = self.peak_bytes_per_cycle.value * self.memory_frequency.value
        return value, iv


def series_metric_suffix(label: str) -> str:
    """ncu's series label -> metric suffix: "Op:hmma Src:bf16" -> "op_hmma_src_bf16"."""
    return "_".join(part.replace(":", "_").lower() for part in label.split())


def _level(name: str) -> str:
    return {"DRAM": "dram", "L2": "l2", "L1": "l1", "L1/TEX": "l1"}[name]


@functools.cache
def chart_points(path: Path, report: str) -> tuple[ChartPoint, ...]:
    """Every hierarchical-roofline chart point in a ``--print-details all`` CSV."""
    items: dict[tuple[int, int, str, str, str, str], list[Printed]] = {}
    with path.open(newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        col = {n: i for i, n in enumerate(header)}
        i_val = col["Metric Value"]
        for row in reader:
            if len(row) <= i_val or not row[0].isdigit():
                continue  # stray lines: the NVLink text, the NUMA table
            precision = SECTION_PRECISION.get(row[col["Section Name"]])
            if precision is None:
                continue
            m = _ITEM.match(row[col["Body Item Label"]])
            if m is None:
                continue
            series = m.group("series") or ""
            if series == "Global/Local":
                series = ""
            key = (
                int(row[col["Process ID"]]),
                int(row[col["ID"]]),
                precision,
                _level(m.group("level")),
                series,
                m.group("kind"),
            )
            items.setdefault(key, []).append(Printed(row[col["Metric Name"]], row[col["Metric Unit"]], row[i_val]))
    points = []
    for (pid, lid, prec, level, series, kind), roof in items.items():
        if kind != "Roofline":
            continue
        ach = items.get((pid, lid, prec, level, series, "Achieved Value"), [])
        points.append(ChartPoint(report, pid, lid, prec, level, series, tuple(roof), tuple(ach)))
    return tuple(sorted(points, key=lambda p: (p.launch_id, p.precision, p.level, p.series)))
