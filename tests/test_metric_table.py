"""The one metric table (``ncu_roofline.quantities.TABLE``): every ncu metric name the code names is in it, every
metric in it is one ncu can collect, and the roofline, the device peaks and the Speed Of Light figures read it.

The catalogs are ncu's own: ``ncu --query-metrics`` for gh100 (ncu 2025.3) and for gv100/tu102/ga100/ga102/ad102/
gh100 (ncu 2024.2), the metric names of the stock sections of every ncu version 2019.5-2025.3
(``labels-by-version.csv``), and the header of the real H200 raw exports (launch__, device__, derived__ names that
--query-metrics does not list).
"""

from __future__ import annotations

import ast
import csv
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED, SHARED_ROOT

from ncu_roofline import classify, device, quantities, roofline
from ncu_roofline.quantities import PEAK_RECIPES, RECIPES, SERIES, TABLE, Recipe, metric_names
from ncu_roofline.sectionfile import MetricCatalog

PACKAGE = Path(quantities.__file__).resolve().parent
REFERENCE = SHARED_ROOT / "ncu-reference"
H200_RAW = (SHARED / "h200-micro" / "micro_full.raw.csv", SHARED / "h200-llm" / "llm_full.raw.csv")

#: Modules whose metric names are not analysis reads: the readers (identity attributes of a .ncu-rep launch),
#: and the section-file tools (our section's own ``derived__ncu_roofline__*`` names, per-version forms).
NOT_ANALYSIS = {"io", "sections.py", "sectionfile.py", "sectionforms.py"}

#: A metric name as code or text names it: ``unit__counter[.rollup[.submetric]]``, with ``{a,b}`` alternatives
#: and ``*`` wildcards as the hint texts write them.
TOKEN = re.compile(r"\b[a-z][a-z0-9]*__[a-z0-9_{},.*]*[a-z0-9_}*]")


def _expand(token: str) -> list[str]:
    m = re.search(r"\{([a-z0-9_,]+)\}", token)
    if m is None:
        return [token.rstrip(".")]
    return [x for alt in m.group(1).split(",") for x in _expand(token[: m.start()] + alt + token[m.end() :])]


def unknown_names(source: str, table: set[str]) -> set[str]:
    """The metric names in the string constants of ``source`` that the table does not read: a name counts as
    read when it is a metric of the table, the base name of one (before the first '.'), or, written as a
    prefix or with a wildcard (``sm__pipe_*_cycles_active``), the start of one."""
    bases = {m.split(".")[0] for m in table}
    out = set()
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        for token in TOKEN.findall(node.value):
            for name in _expand(token):
                if name in table or name.split(".")[0] in bases:
                    continue
                pattern = re.compile(re.escape(name.split("*")[0]))
                if any(pattern.match(m) for m in table):  # a prefix: "..._op_", "sm__pipe_*_cycles"
                    continue
                out.add(name)
    return out


def analysis_modules() -> list[Path]:
    return [
        p
        for p in sorted(PACKAGE.rglob("*.py"))
        if not ({p.relative_to(PACKAGE).parts[0], p.name} & NOT_ANALYSIS) and p.name != "quantities.py"
    ]


def test_every_metric_name_the_code_names_is_in_the_table() -> None:
    table = metric_names()
    found = {
        str(p.relative_to(PACKAGE)): unknown_names(p.read_text(encoding="utf-8"), table) for p in analysis_modules()
    }
    assert len(found) > 20  # the analysis, the hints, the report ...
    assert {k: v for k, v in found.items() if v} == {}


def test_the_grep_sees_a_name_outside_the_table() -> None:
    table = metric_names()
    src = 'X = "dram__bytes.sum.per_second"\nY = f"{a} lts__t_bytez.sum"\nZ = "l1tex__t_{sectors,requestz}_pipe_lsu"\n'
    assert unknown_names(src, table) == {"lts__t_bytez.sum", "l1tex__t_requestz_pipe_lsu"}


def test_roles_views_and_unique_names() -> None:
    assert {q.role for q in TABLE} == set(quantities.ROLES)
    frame = [q.name for q in quantities.QUANTITIES]
    peaks = [q.name for q in TABLE if q.role == quantities.PEAK]
    assert len(frame) == len(set(frame)) and len(peaks) == len(set(peaks))
    # the stages' tables are views of TABLE, not tables of their own
    assert device.PEAK_RECIPES is quantities.PEAK_RECIPES
    assert list(PEAK_RECIPES) == [q.name for q in TABLE if q.role == quantities.PEAK and not q.template]
    assert list(RECIPES) == [
        q.name for q in TABLE if q.role in (quantities.TIME, quantities.WORK, quantities.TRAFFIC) and not q.template
    ]
    assert tuple(q.name for q in TABLE if q.role == quantities.SOL) == quantities.RECORDED
    assert quantities.TENSOR_WORK.recipes[0].name == roofline.TENSOR_OPS_RECIPE
    # the SOL figures the verdict reads are rows of the table
    sol = {q.name for q in TABLE if q.role in (quantities.SOL, quantities.SOL_BREAKDOWN)}
    assert sol <= set(classify._QUANTITY_OF_UNIT.values())
    assert set(classify._QUANTITY_OF_UNIT.values()) <= set(frame)
    for q in TABLE:
        assert q.recipes and all(m in q.metrics for r in q.recipes for m in r.metrics()), q.name
        assert (SERIES in q.name) == any(SERIES in m for m in q.metrics), q.name


def test_a_new_peak_recipe_is_one_row(monkeypatch: pytest.MonkeyPatch) -> None:
    # a report whose DRAM peak comes under a name the table does not know yet: no figure, until one row says so
    values = pd.DataFrame(
        {"dram__bytes_new.sum.peak_sustained": [64.0], quantities.DRAM_CLOCK: [2.0e9]},
        index=pd.MultiIndex.from_tuples([("r", 1, 0)], names=["report", "process_id", "launch_id"]),
    )
    assert np.isnan(device.peaks_from_metrics(values)["dram_bytes_per_s"].iloc[0])
    row = Recipe("new", (((values.columns[0], 1.0),),), times=(quantities.DRAM_CLOCK,))
    monkeypatch.setitem(PEAK_RECIPES, "dram_bytes_per_s", (*PEAK_RECIPES["dram_bytes_per_s"], row))
    assert device.peaks_from_metrics(values)["dram_bytes_per_s"].iloc[0] == 64.0 * 2.0e9


def test_a_new_traffic_recipe_is_one_row(monkeypatch: pytest.MonkeyPatch) -> None:
    values = pd.DataFrame(
        {"lts__t_bytes_new.sum.per_second": [5.0e11]},
        index=pd.MultiIndex.from_tuples([("r", 1, 0)], names=["report", "process_id", "launch_id"]),
    )
    assert np.isnan(roofline.achieved_traffic(values, "l2").iloc[0])
    row = Recipe("new", (((values.columns[0], 1.0),),))
    monkeypatch.setitem(RECIPES, "l2_bytes_per_s", (*RECIPES["l2_bytes_per_s"], row))
    assert roofline.achieved_traffic(values, "l2").iloc[0] == 5.0e11


# --- every metric of the table is one ncu can collect -------------------------------------------------------

needs_reference = pytest.mark.skipif(
    not (REFERENCE / "query-metrics-gh100.txt").exists() or not all(p.exists() for p in H200_RAW),
    reason="../shared/ncu-reference and the H200 raw exports are not next to the repository",
)


@pytest.fixture(scope="module")
def ncu_names() -> tuple[list[MetricCatalog], set[str]]:
    catalogs = [MetricCatalog.from_query_metrics((REFERENCE / "query-metrics-gh100.txt").read_text(encoding="utf-8"))]
    catalogs += [
        MetricCatalog.from_query_metrics(p.read_text(encoding="utf-8"))
        for p in sorted((REFERENCE / "query-metrics-2024.2").glob("*.txt"))
    ]
    names: set[str] = set()
    for path in H200_RAW:
        with path.open(newline="", encoding="utf-8") as fh:
            names |= set(next(csv.reader(fh)))
    with (REFERENCE / "labels-by-version.csv").open(newline="", encoding="utf-8") as fh:
        names |= {row["metric_name"] for row in csv.DictReader(fh)}
    return catalogs, names


def _known(name: str, ncu: tuple[list[MetricCatalog], set[str]]) -> bool:
    """In ncu's catalogs or exports at hand, or (its base name) one the table declares it saw in a real export
    of a newer ncu (quantities.SEEN_IN_EXPORTS)."""
    catalogs, names = ncu
    return name in names or any(c.knows(name) for c in catalogs) or name.partition(".")[0] in quantities.SEEN_IN_EXPORTS


@needs_reference
def test_every_metric_of_the_table_is_in_ncus_catalogs(ncu_names: tuple[list[MetricCatalog], set[str]]) -> None:
    _, names = ncu_names
    prefix = quantities.TENSOR_PREFIX
    series = sorted({n[len(prefix) :].split(".")[0] for n in names if n.startswith(prefix)})
    assert len(series) >= 20  # the tensor series of the H200 exports fill the template rows
    metrics = set()
    for q in TABLE:
        for m in q.metrics:
            metrics |= {m.replace(SERIES, s) for s in series} if SERIES in m else {m}
    assert len(metrics) > 300
    assert sorted(m for m in metrics if not _known(m, ncu_names)) == []


@needs_reference
def test_the_catalog_check_can_fail(ncu_names: tuple[list[MetricCatalog], set[str]]) -> None:
    assert _known("dram__bytes.sum.per_second", ncu_names)
    assert not _known("dram__bytes.sum.per_secnd", ncu_names)
    assert not _known("dram__bytez.sum.per_second", ncu_names)
    assert not _known("dram__bytes_op_reads.sum", ncu_names)
