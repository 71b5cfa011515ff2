"""The Half chart of ncu 2022.3-2024.2 on a ``--print-details all`` page, counted as ncu 2025.3 counts it.

ncu 2025.3's Half chart counts an HFMA2 thread instruction as 4 FLOP and an HADD2 or HMUL2 as 2
(``derived__*_hfma_pred_on_x4``, ``derived__*_hadd_pred_on_x2``); ncu 2022.3-2024.2's counts them as 2 and 1
(``derived__*_hfma_pred_on_x2``, the plain HADD and HMUL per-cycle metrics), under the same labels, so a page of
such a report read by label gave every FP16 figure at half of 2025.3's (and of NVIDIA's datasheets), while its
raw page (the metrics by name) gave 2025.3's.

The pages are built from the real H200 page ``llm_full.details-all.csv`` (ncu 2025.3.1; six launches run HFMA)
by the definitions of ncu 2024.2.0's ``SpeedOfLight_HierarchicalHalfRooflineChart.section`` (its
``MetricDefinitions``: ``derived__sm__..._hfma_pred_on_x2 = sm__..._hfma_pred_on.sum.peak_sustained * 2``, the
same for the achieved ``smsp__`` per-cycle metric; its chart's HADD and HMUL items are the plain per-cycle
metrics; its ``Metrics`` block has the two HFMA metrics and no HADD or HMUL row). Golden values: ncu's own chart
points of the 2025.3 page, combined on the test side (``_ncuchart``, which does not import the code under test).
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import pytest
from _ncuchart import chart_points as ncu_points
from _rawwide import DETAILS_ALL

import ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.chart import CHART_RECIPE, HALF_RECOUNTED, half_chart_scale

SECTION = "GPU Speed Of Light Hierarchical Roofline Chart (Half Precision)"
PEAK_INSTRUCTIONS = "Theoretical Predicated-On HFMA Thread Instructions Executed"
HFMA_INSTRUCTIONS = "Predicated-On HFMA Thread Instructions Executed Per Cycle"
PEAK_OPERATIONS = "Theoretical Predicated-On HFMA Operations"
HFMA_OPERATIONS = "Predicated-On HFMA Operations Per Cycle"
HADD = "Predicated-On HADD Thread Instructions Executed Per Cycle"
HMUL = "Predicated-On HMUL Thread Instructions Executed Per Cycle"
#: HADD and HMUL instructions per cycle planted on one launch (the H200 page has none): the Metrics block's
#: plain figure; 2025.3's chart item is twice it (``derived__*_hadd_pred_on_x2``).
PLANTED = {HADD: 37.5, HMUL: 12.25}
PLANTED_LAUNCH = "5"
#: Launches whose Metrics block row of peak HFMA instructions is left out (the planted one and an HFMA one
#: among them): they take the version the report's other launches show.
WITHOUT_PEAK = frozenset({"0", "5", "9", "15"})
#: What two printed decimals of the instructions (x 4) and of the operations per cycle leave open, in FLOP/s.
ROUNDED = (4 + 1) * 0.005 * 2e9


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _written(value: float) -> str:
    """A value as ncu writes it: thousands grouped, two decimals unless a whole number."""
    return f"{int(value):,}" if value == int(value) else f"{value:,.2f}"


def _line(fields: list[str], ragged: bool) -> str:
    return ",".join('"' + f.replace('"', '""') + '"' for f in fields) + ("," if ragged else "")


class _Page:
    """The page's lines, each metric row of the Half chart parsed: (line number, fields, ragged)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.header = next(csv.reader(io.StringIO(self.lines[0])))
        self.at = {n: self.header.index(n) for n in ("ID", "Section Name", "Body Item Label", "Metric Name")}
        self.value = self.header.index("Metric Value")
        self.rows: dict[int, tuple[list[str], bool]] = {}
        for i, text_line in enumerate(self.lines):
            if SECTION not in text_line:
                continue
            fields = next(csv.reader(io.StringIO(text_line)))
            if len(fields) <= self.value or fields[self.at["Section Name"]] != SECTION:
                continue
            ragged = len(fields) == self.value + 2 and fields[-1] == ""
            self.rows[i] = (fields[: self.value + 1] if ragged else fields, ragged)

    def metrics_block(self) -> dict[tuple[str, str], float]:
        """(launch ID, label) -> value of the rows outside body items."""
        return {
            (f[self.at["ID"]], f[self.at["Metric Name"]]): _number(f[self.value])
            for f, _ in self.rows.values()
            if not f[self.at["Body Item Label"]]
        }

    def items(self) -> dict[tuple[str, str, str], float]:
        """(launch ID, body item, label) -> value of every row."""
        at = self.at
        return {
            (f[at["ID"]], f[at["Body Item Label"]], f[at["Metric Name"]]): _number(f[self.value])
            for f, _ in self.rows.values()
        }

    def text(self, edit: dict[int, str | None]) -> str:
        """The page with line i's value set to edit[i], or the line left out where it is None."""
        out = []
        for i, line in enumerate(self.lines):
            if i not in edit:
                out.append(line)
            elif (value := edit[i]) is not None:
                fields, ragged = self.rows[i]
                out.append(_line([*fields[: self.value], value, *fields[self.value + 1 :]], ragged))
        return "\n".join(out) + "\n"


def planted_2025(text: str) -> str:
    """The 2025.3 page with HADD and HMUL work on one launch: the Metrics block's rows PLANTED, the chart's
    items twice that (2025.3's ``_x2`` metrics)."""
    page = _Page(text)
    edit: dict[int, str | None] = {}
    for i, (f, _) in page.rows.items():
        label = f[page.at["Metric Name"]]
        if f[page.at["ID"]] == PLANTED_LAUNCH and label in PLANTED:
            edit[i] = _written(PLANTED[label] * (2 if f[page.at["Body Item Label"]] else 1))
    assert len(edit) == 2 * 4  # each label: the Metrics block's row and three Achieved Value items
    return page.text(edit)


def as_2024(text: str, without_peak: frozenset[str] = frozenset()) -> str:
    """A 2025.3 page's Half chart as ncu 2024.2's section writes it (the module docstring); the launches of
    ``without_peak`` without the Metrics block's peak HFMA instructions (the evidence of the version)."""
    page = _Page(text)
    block = page.metrics_block()
    edit: dict[int, str | None] = {}
    for i, (f, _) in page.rows.items():
        launch, item, label = f[page.at["ID"]], f[page.at["Body Item Label"]], f[page.at["Metric Name"]]
        if not item:
            if label in (HADD, HMUL) or (label == PEAK_INSTRUCTIONS and launch in without_peak):
                edit[i] = None  # not in 2024.2's Metrics block
        elif label == PEAK_OPERATIONS:
            edit[i] = _written(block[(launch, PEAK_INSTRUCTIONS)] * 2)
        elif label == HFMA_OPERATIONS:
            edit[i] = _written(block[(launch, HFMA_INSTRUCTIONS)] * 2)
        elif label in (HADD, HMUL):
            edit[i] = _written(block[(launch, label)])
    return page.text(edit)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("half")
    planted = planted_2025(DETAILS_ALL["llm_full"].read_text())
    out = {"2025": folder / "llm_2025.csv", "2024": folder / "llm_2024.csv", "partial": folder / "llm_partial.csv"}
    out["2025"].write_text(planted)
    out["2024"].write_text(as_2024(planted))
    out["partial"].write_text(as_2024(planted, WITHOUT_PEAK))
    return out


def _fp16_points(path: Path) -> dict[tuple[int, str], tuple[float, float]]:
    roof = analyze(ncu_roofline.read(path)).roofline
    half = roof[(roof["precision"] == "fp16").to_numpy()]
    return {(int(r.launch_id), str(r.level)): (float(r.achieved_flops), float(r.peak_flops)) for r in half.itertuples()}


def test_the_built_page_counts_as_2024_2_does() -> None:
    """The construction: the 2024 page's chart items are half of the 2025.3 page's, HADD and HMUL excepted
    (there the item is the Metrics block's figure, and 2025.3's twice it)."""
    text = planted_2025(DETAILS_ALL["llm_full"].read_text())
    new, old = _Page(as_2024(text)).items(), _Page(text).items()
    ratios: dict[str, set[float]] = {}
    for (launch, item, label), before in old.items():
        if item and label in (PEAK_OPERATIONS, HFMA_OPERATIONS, HADD, HMUL) and new[(launch, item, label)] > 1:
            ratios.setdefault(label, set()).add(round(before / new[(launch, item, label)], 2))
    assert ratios[PEAK_OPERATIONS] == {2.0}
    assert ratios[HADD] == ratios[HMUL] == {2.0}
    assert ratios[HFMA_OPERATIONS] <= {1.99, 2.0, 2.01}  # the 2025.3 item and the instructions rounded apart


def test_scale_is_two_on_every_launch_of_the_2024_page_and_one_on_2025s(pages: dict[str, Path]) -> None:
    new = half_chart_scale(ncu_roofline.read(pages["2024"]).values)
    partial = half_chart_scale(ncu_roofline.read(pages["partial"]).values)
    old = half_chart_scale(ncu_roofline.read(pages["2025"]).values)
    assert len(new) == len(partial) == len(old) == 16
    assert set(new.tolist()) == set(partial.tolist()) == {2.0}
    assert set(old.tolist()) == {1.0}


def test_a_report_of_both_countings_keeps_each_launchs_own(pages: dict[str, Path], tmp_path: Path) -> None:
    """Launches of both versions in one report (no real page has them): each counted by its own evidence, the
    launches without evidence as they are (1.0: the report's launches disagree)."""
    mixed = _Page(pages["partial"].read_text())
    as_2025 = _Page(pages["2025"].read_text()).items()
    edit: dict[int, str | None] = {}
    for i, (f, _) in mixed.rows.items():  # launch 3's chart as 2025.3 writes it
        key = (f[mixed.at["ID"]], f[mixed.at["Body Item Label"]], f[mixed.at["Metric Name"]])
        if key[0] == "3" and key[1] and key in as_2025:
            edit[i] = _written(as_2025[key])
    path = tmp_path / "mixed.csv"
    path.write_text(mixed.text(edit))
    scale = half_chart_scale(ncu_roofline.read(path).values)
    without = sorted(int(x) for x in WITHOUT_PEAK)
    assert scale[3] == 1.0 and scale[without].tolist() == [1.0] * len(without)
    assert set(np.delete(scale, [3, *without]).tolist()) == {2.0}


@pytest.mark.parametrize("page", ["2024", "partial"])
def test_fp16_points_of_the_2024_page_equal_ncu_2025_chart(pages: dict[str, Path], page: str) -> None:
    """Achieved and peak FP16 FLOP/s of every launch and level: those ncu 2025.3's chart draws for the same
    counters, within the printing of both pages (the 2024 items are the instructions, printed to two decimals,
    times two: 1e-3, and on the smallest figures half a hundredth of an instruction x 4, and of an operation,
    per cycle at 2 GHz). The partial page: launches without the evidence of the version take their report's."""
    got = _fp16_points(pages[page])
    checked = 0
    for pt in ncu_points(pages["2025"], "llm_2025"):
        if pt.precision != "fp16":
            continue
        achieved, peak = got[(pt.launch_id, pt.level)]
        assert math.isclose(peak, pt.quantity("peak_flops")[0], rel_tol=1e-3), (pt.launch_id, pt.level)
        want = pt.quantity("achieved_flops")[0]
        assert math.isclose(achieved, want, rel_tol=1e-3, abs_tol=ROUNDED), (pt.launch_id, pt.level, achieved, want)
        checked += want > 0
    assert checked == 6 * 3  # the six launches with HFMA work (the planted one among them), at three levels


def test_the_recipe_says_the_chart_was_counted_again(pages: dict[str, Path]) -> None:
    """The FP16 work recipe (JSON ``recipes.fp16_flops``, the roofline's ``work_recipe``) says so, on the launches
    whose figures were doubled only."""
    for page, says in (("2024", True), ("2025", False)):
        analysis = analyze(ncu_roofline.read(pages[page]))
        roof = analysis.roofline
        recipes = set(roof.loc[(roof["precision"] == "fp16").to_numpy(), "work_recipe"].dropna())
        assert recipes == {CHART_RECIPE + HALF_RECOUNTED if says else CHART_RECIPE}, page
        assert set(analysis.recipes["fp16_flops"].dropna()) == recipes, page


def test_planted_hadd_and_hmul_count_two_flop_each(pages: dict[str, Path]) -> None:
    """The planted launch: 2 x HADD + 2 x HMUL + 4 x HFMA instructions per cycle x its SM clock, on both pages."""
    block = _Page(pages["2025"].read_text()).metrics_block()
    per_cycle = 2 * PLANTED[HADD] + 2 * PLANTED[HMUL] + 4 * block[(PLANTED_LAUNCH, HFMA_INSTRUCTIONS)]
    point = next(
        p
        for p in ncu_points(pages["2025"], "llm_2025")
        if p.launch_id == int(PLANTED_LAUNCH) and p.precision == "fp16" and p.level == "dram"
    )
    clock = point.achieved_sm_frequency.value
    for page in ("2024", "2025"):
        achieved = _fp16_points(pages[page])[(int(PLANTED_LAUNCH), "dram")][0]
        assert math.isclose(achieved, per_cycle * clock, rel_tol=1e-3), page


def test_the_2025_page_reads_as_before(pages: dict[str, Path]) -> None:
    """The factor is 1 on ncu 2025.3's own page: its points are ncu's chart (test_chart holds the unplanted
    pages to it; here the planted one)."""
    got = _fp16_points(pages["2025"])
    for pt in ncu_points(pages["2025"], "llm_2025"):
        if pt.precision == "fp16":
            assert math.isclose(got[(pt.launch_id, pt.level)][1], pt.quantity("peak_flops")[0], rel_tol=1e-3)
            want = pt.quantity("achieved_flops")[0]
            assert math.isclose(got[(pt.launch_id, pt.level)][0], want, rel_tol=1e-3, abs_tol=1.0)  # the same items
