"""Every ncu version's labels mean their metrics: the label table is generated from ncu's own section labels
(``../shared/ncu-reference/labels-by-version.csv``, 2019.5-2025.3), the stock sections' ``Metrics`` blocks of
the real ncu 2022.3 and 2024.2, and real label/name export pairs, and is current. Golden mappings are read from
the reference file, the real ncu and its exports, never from the code under test."""

from __future__ import annotations

import csv
import functools
import importlib.util
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import pytest
from _ncu import VERSIONS, require_ncu, stock_section_folder
from conftest import SHARED_ROOT

from ncu_roofline.labels import page_versions, resolve
from ncu_roofline.sectionfile import SectionFileError, load_section
from ncu_roofline.sections import ncu_version

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = SHARED_ROOT / "ncu-reference" / "labels-by-version.csv"
TABLE = ROOT / "ncu_roofline" / "data" / "labels.csv"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_label_table", ROOT / "tools" / "make_label_table.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["make_label_table"] = mod
    spec.loader.exec_module(mod)
    return mod


@functools.cache
def _reference() -> dict[tuple[str, str, str], list[str]]:
    out: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    with REFERENCE.open(newline="") as fh:
        for r in csv.DictReader(fh):
            out[(r["version"], r["section_display_name"], r["label"])].append(r["metric_name"])
    return out


def test_generated_table_is_current() -> None:
    tool = _tool()
    assert TABLE.read_text(encoding="utf-8") == tool.render(tool.build(REFERENCE, tool.PAIRS)), (
        "run python tools/make_label_table.py"
    )


def test_section_display_names_of_every_version() -> None:
    sections = {r["section"] for r in csv.DictReader(TABLE.open(newline=""))}
    assert {"GPU Speed Of Light", "GPU Speed Of Light Throughput"} <= sections
    for name in ("Memory Workload Analysis", "Compute Workload Analysis", "Occupancy", "Launch Statistics"):
        assert name in sections


@pytest.mark.parametrize(
    ("section", "label", "version"),
    [
        ("GPU Speed Of Light", "SOL FB", "2019.5.x"),
        ("GPU Speed Of Light", "SOL DRAM", "2020.3.1"),
        ("GPU Speed Of Light", "Duration", "2021.1.x"),
        ("GPU Speed Of Light", "SM Frequency", "2019.5.x"),
        ("GPU Speed Of Light", "Memory Frequency", "2019.5.x"),
        ("GPU Speed Of Light Throughput", "DRAM Throughput", "2022.3.0"),
        ("GPU Speed Of Light Throughput", "Duration", "2024.2.0"),
        ("Memory Workload Analysis", "Memory Throughput", "2022.3.0"),
    ],
)
def test_old_labels_mean_their_metric(section: str, label: str, version: str) -> None:
    names = _reference()[(version, section, label)]
    dotted = [n for n in names if "." in n]  # the Volta+ name where 2019.5 also lists a Pascal one
    name, shown = resolve(section, label)
    assert name in (dotted or names) and shown == label


def test_pascal_alternatives_of_2019_5_take_the_volta_name() -> None:
    names = _reference()[("2019.5.x", "Compute Workload Analysis", "SM Busy")]
    assert set(names) == {"sm__instruction_throughput.avg.pct_of_peak_sustained_active", "sm__sol_pct"}
    assert resolve("Compute Workload Analysis", "SM Busy")[0] != "sm__sol_pct"
    assert resolve("GPU Speed Of Light", "SOL SM", "6.1")[0] == "sm__throughput.avg.pct_of_peak_sustained_elapsed"


def test_architecture_alternatives_follow_the_compute_capability() -> None:
    section = "GPU Speed Of Light Hierarchical Roofline Chart (Double Precision)"
    label = "L1 Cache Bandwidth (Global/Local)"
    names = set(_reference()[("2024.2.0", section, label)])
    assert resolve(section, label, "9.0")[0] == "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second"
    assert resolve(section, label, "8.0")[0] == "derived__l1tex__lsu_writeback_bytes_mem_lg.sum.per_second"
    assert {resolve(section, label, cc)[0] for cc in ("7.0", "8.0", "9.0")} <= names


def test_every_unambiguous_label_of_every_version_resolves_to_one_of_its_names() -> None:
    """For each version, (section, label) with one metric (after the Pascal rule) resolves to that metric."""
    checked = 0
    used: dict[tuple[str, str], set[str]] = defaultdict(set)
    for (_v, s, lab), ms in _reference().items():
        used[(s, lab)].update(ms)
    for (version, section, label), names in _reference().items():
        if not label.strip() or "{" in label:
            continue
        dotted = [n for n in names if "." in n] if version.startswith("2019.5") else names
        if len(set(dotted)) != 1 or "__" not in dotted[0] or dotted[0].startswith("pmsampling:"):
            continue
        name, _ = resolve(section, label)
        if name is None:
            continue  # left out: the label stands for another metric in some other version or section item
        checked += 1
        # another version may spell the same label with a newer name; both must be names ncu used for it
        assert name in used[(section, label)], (version, section, label, name)
    assert checked > 300


@pytest.mark.parametrize("version", sorted({v for v, _, _ in _reference()}))
def test_a_page_of_one_versions_labels_reads_that_versions_names(version: str) -> None:
    """A page whose labels are those of one ncu version's stock sections tells that version (``page_versions``),
    and each of its labels with one metric in that version resolves to exactly that metric, where versions
    differ too: "SM Busy" and "Issue Slots Busy" are of active cycles up to 2024.2, of elapsed cycles in 2025.3;
    2024's Half chart counts an HFMA as 2 operations (``_x2``), 2025.3's as 4 (``_x4``)."""
    labels = {(s, lab): names for (v, s, lab), names in _reference().items() if v == version}
    # where a real export of this version printed another name for a label, the export wins (the reference's name
    # is then a chart's body item: the Half chart's "Predicated-On HADD ... Per Cycle" rows print the plain counter)
    exported = {(r["section"], r["label"]): r["metric"] for r in csv.DictReader(TABLE.open()) if r["exported_by"]}
    versions = page_versions(labels)
    assert versions is not None and version in versions
    checked = 0
    for (section, label), names in labels.items():
        dotted = [n for n in names if "." in n] if version.startswith("2019.5") else names
        if len(set(dotted)) != 1 or "__" not in dotted[0] or dotted[0].startswith("pmsampling:"):
            continue
        name, _ = resolve(section, label, None, versions)
        if name is None or "." in name.split("__")[0]:
            continue  # left out, or a collection group's name (PM sampling)
        if version == _tool().EXPORTS_VERSION and exported.get((section, label), dotted[0]) != dotted[0]:
            assert name == exported[(section, label)]
            continue
        checked += 1
        assert name == dotted[0], (section, label, name)
    assert checked >= 20
    if version >= "2020" and version < "2025":
        for label, metric in (("SM Busy", "sm__instruction_throughput"), ("Issue Slots Busy", "sm__inst_issued")):
            assert resolve("Compute Workload Analysis", label, None, versions)[0] == (
                f"{metric}.avg.pct_of_peak_sustained_active"
            )


# --- Source 3: the labels of the stock sections' Metrics blocks (what --print-details all adds) ---------------

STOCK = ROOT / "tests" / "data" / "ncu-cli" / "metrics-blocks.csv"


@pytest.mark.parametrize("version", VERSIONS)
def test_metrics_block_labels_are_those_the_real_ncu_ships(version: str) -> None:
    """The committed extract is what this ncu's own section files declare (so the table is never built from a
    guess); its stock files parse only with the parts outside our schema passed over."""
    ncu = require_ncu(version)
    folder = stock_section_folder(ncu)
    full = ncu_version(str(ncu))
    rows = _tool().stock_metrics_rows(folder, full)
    with STOCK.open(newline="", encoding="utf-8") as fh:
        committed = [tuple(r) for r in csv.reader(fh)][1:]
    assert [r for r in committed if r[0] == full] == rows, "run python tools/make_label_table.py --extract-stock"
    assert len(rows) > 30
    with pytest.raises(SectionFileError):  # e.g. ComputeWorkloadAnalysis' bar charts
        for path in sorted(folder.glob("*.section")):
            load_section(path)


def test_every_metrics_block_label_a_real_ncu_printed_resolves_to_the_name_it_printed() -> None:
    """ncu 2024.2's --print-details all export of the 2025.3 micro_roof report, with labels and with names: every
    label it printed for one metric (outside the charts' body items) resolves, on the report's CC 9.0, to the
    name it printed beside it."""
    reexport = ROOT / "tests" / "data" / "reexport" / "ncu-2024.2"
    printed = _tool().pairs(
        reexport / "micro_roof.details-all.csv.gz", reexport / "micro_roof.details-all-names.csv.gz"
    )
    wrong = {key: (name, resolve(*key, "9.0")[0]) for key, name in printed.items() if resolve(*key, "9.0")[0] != name}
    assert wrong == {}
    assert len(printed) > 40
    assert printed[("GPU Speed Of Light Throughput", "Waves Per SM")] == "launch__waves_per_multiprocessor"
    # a label 2024.2's own section gives another name (..._active): the report's 2025.3 name wins
    assert printed[("Compute Workload Analysis", "Max. Issued Slots Busy")].endswith("pct_of_peak_sustained_elapsed")


def test_metrics_asked_for_are_read_by_the_names_ncu_lists() -> None:
    # ncu lists the --metrics it was given by name in this section, never by label: a name of another shape
    # (a 2025.3 report's inst_executed and derived_tempMetric0, on its raw page without --csv) is a name too
    section = "Command line profiler metrics"
    assert resolve(section, "dram__bytes.sum.per_second") == ("dram__bytes.sum.per_second", None)
    assert resolve(section, "inst_executed") == ("inst_executed", None)
    assert resolve(section, "derived_tempMetric0") == ("derived_tempMetric0", None)
    assert resolve(section, "Two words") == (None, "Two words")  # not a name: still not understood
    assert resolve("GPU Speed Of Light Throughput", "inst_executed") == (None, "inst_executed")  # a label elsewhere


def test_a_label_with_other_capitals_is_that_label_in_its_own_section() -> None:
    # ncu 2025.3's Memory Workload Analysis Chart prints "DRAM Bandwidth" for the metric 2024.2's section file
    # labels "DRAM bandwidth" (its Metrics block, as the real ncu ships it)
    with (ROOT / "tests" / "data" / "ncu-cli" / "metrics-blocks.csv").open(newline="") as fh:
        shipped = {(r["section_display_name"], r["label"]): r["metric_name"] for r in csv.DictReader(fh)}
    name = shipped[("Memory Workload Analysis Chart", "DRAM bandwidth")]
    assert resolve("Memory Workload Analysis Chart", "DRAM Bandwidth") == (name, "DRAM Bandwidth")
    # never from another section, nor for a section the table does not know (a custom one may mean another metric)
    assert resolve("Memory Workload Analysis", "DRAM bandwidth")[0] is None
    assert resolve("My Section", "DRAM bandwidth") == (None, "DRAM bandwidth")


def test_a_source_level_metric_is_read_by_its_plain_name_where_its_section_lists_it() -> None:
    # the section files list the source view's metrics by plain names (inst_executed: Instruction Statistics'
    # and Source Counters' "Instructions Executed"); a page of names prints them so, alone or after the label
    assert resolve("Instruction Statistics", "inst_executed") == ("inst_executed", "Instructions Executed")
    assert resolve("Instruction Statistics", "Instructions Executed (inst_executed)")[0] == "inst_executed"
    assert resolve("Launch Statistics", "inst_executed") == (None, "inst_executed")  # a section that does not list it


def test_a_label_is_measured_only_where_the_raw_page_agrees_on_every_launch() -> None:
    """Source 4 of the table gives a label printed outside the section files we have the name that label has in
    other sections, where the raw page of the same report has that metric's printed value on every launch: not
    where it differs on any (the name a candidate would wrongly give is rejected)."""
    tool = _tool()
    (details, raw), launches = tool.MEASURED[0]
    candidates = {"Duration": {"gpu__time_duration.sum"}, "Elapsed Cycles": {"dram__cycles_elapsed.avg"}}
    found = tool.measured(details, raw, launches, candidates, set())
    assert found[("PM Sampling", "Duration")] == "gpu__time_duration.sum"
    assert ("PM Sampling", "Elapsed Cycles") not in found
    assert found == {k: v for k, v in found.items() if k[1] == "Duration"}
    assert tool.measured(details, raw, launches + 1, candidates, set()) == {}  # not on every launch: none


def test_the_reader_names_a_label_as_the_ncu_whose_labels_the_page_has(tmp_path: Path) -> None:
    """The real 2025.3 details page, and the page ncu 2021.1's stock sections print for the same launches: its
    rows whose label 2021.1 prints, the Speed Of Light ones under 2021.1's section and labels ("GPU Speed Of
    Light", "SOL DRAM": the same metric as 2025.3's "DRAM Throughput", by the page of metric names). "SM Busy" is
    read as the 2025.3 metric on the first and as 2021.1's on the second (``labels-by-version.csv``), in the
    values and the long frame alike."""
    import derive
    from conftest import data

    import ncu_roofline

    labelled = derive.rows(derive.text_of(data("micro_full.details.csv")))
    named = derive.rows(derive.text_of(data("micro_full.details-names.csv")))
    assert len(labelled) == len(named)  # one row for one: the same page, labels or names
    section, field = labelled[0].index("Section Name"), labelled[0].index("Metric Name")
    old = "2021.1.x"
    printed = {(s, lab) for v, s, lab in _reference() if v == old}
    sol = {names[0]: lab for (v, s, lab), names in _reference().items() if v == old and s == "GPU Speed Of Light"}
    page = [labelled[0]]
    for row, names_row in zip(labelled[1:], named[1:], strict=True):
        if (row[section], row[field]) in printed:
            page.append(row)
        elif row[section] == "GPU Speed Of Light Throughput" and names_row[field] in sol:
            page.append([*row[:section], "GPU Speed Of Light", sol[names_row[field]], *row[field + 1 :]])
    assert any(r[field] == "SM Busy" for r in page) and any(r[field] == "SOL DRAM" for r in page)
    path = tmp_path / "labels-2021.1.details.csv"
    path.write_text(derive.write_like(page))
    for report, ncu in (
        (ncu_roofline.read(data("micro_full.details.csv")), "2025.3.1"),
        (ncu_roofline.read(path), old),
    ):
        expected = [n for n in _reference()[(ncu, "Compute Workload Analysis", "SM Busy")] if "." in n]
        busy = [c for c in report.values.columns if c.startswith("sm__instruction_throughput.")]
        assert busy == expected
        assert set(report.metrics.loc[report.metrics["label"] == "SM Busy", "metric"].astype(str)) == set(busy)
