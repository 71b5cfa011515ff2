"""What the tool tells a user to profile or export again, held to what ncu itself does.

The section sets come from the real ncu: ``--list-sets`` of ncu 2022.3 and 2024.2 (``tools/install_ncu.sh``; CI
installs both) and of ncu 2025.3.1 on the H200 (``data/ncu-cli/list-sets-2025.3.txt``, a copy of
``../shared/ncu-reference/list-sets.txt``). ``--set full`` holds the four hierarchical roofline charts only in
2025.3; ``--set roofline`` holds them in all three. The claim that a page left out roofline metrics ncu collected
is held to a report exported twice by ncu: its default details page and its raw page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _analyses import sample
from _ncu import VERSIONS, list_sets, require_ncu, run_list_sets, stock_sections

from ncu_roofline.classify import COLLECT, RAW_EXPORT
from ncu_roofline.hints import RULES
from ncu_roofline.ncurules import ROOFLINE_RULE
from ncu_roofline.quantities import ROOFLINE_SET, WORK_SECTIONS
from ncu_roofline.report.terminal import render_terminal
from ncu_roofline.report.viewmodel import NOT_COLLECTED, NOT_EXPORTED, build_view

DATA = Path(__file__).parent / "data"
#: "--section S (or --set X)": the advice that names a section and the stock set holding it.
SECTION_OR_SET = re.compile(r"--section (\w+) \(or --set (\w+)\)")


def _sets(version: str) -> dict[str, set[str]]:
    if version == "2025.3":
        return list_sets((DATA / "ncu-cli" / "list-sets-2025.3.txt").read_text(encoding="utf-8"))
    return run_list_sets(require_ncu(version))


ALL_VERSIONS = (*VERSIONS, "2025.3")


def test_the_list_sets_table_is_read_with_its_wrapped_section_names() -> None:
    sets = _sets("2025.3")
    assert set(sets) == {"basic", "detailed", "full", "nvlink", "pmsampling", "roofline"}
    assert sets["basic"] == {"LaunchStats", "Occupancy", "SpeedOfLight", "WorkloadDistribution"}
    # names the table wraps mid-word ("SpeedOfLight_Roof" / "lineChart") come back whole
    assert "SpeedOfLight_RooflineChart" in sets["detailed"] and "MemoryWorkloadAnalysis_Chart" in sets["detailed"]
    assert len(sets["full"]) == 21 and not any(" " in s for s in sets["full"])


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_the_roofline_set_holds_every_hierarchical_chart(version: str) -> None:
    sets = _sets(version)
    assert set(WORK_SECTIONS.values()) <= sets[ROOFLINE_SET]
    # why the advice is not "--set full": before 2025 that set leaves the hierarchical charts out
    assert (set(WORK_SECTIONS.values()) <= sets["full"]) == (version == "2025.3")


def _advice() -> list[str]:
    """Every text that names a section and a set: the hint rules' evidence and the roofline panels' notes."""
    texts = [need.option for rule in RULES.values() for need in rule.needs]
    panels = build_view(sample("direct_details.stdout.csv")).rooflines  # no roofline work in the export
    texts += [p.note or "" for p in panels]
    return [t for t in texts if SECTION_OR_SET.search(t)]


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_each_section_the_advice_names_is_in_the_set_it_names(version: str) -> None:
    sets = _sets(version)
    known = set().union(*sets.values())
    pairs = {m.groups() for text in _advice() for m in SECTION_OR_SET.finditer(text)}
    assert len(pairs) >= 5  # the four charts and MemoryWorkloadAnalysis_Tables at least
    for section, set_name in sorted(pairs):
        if section in known:  # a section this ncu ships in some set
            assert section in sets[set_name], (version, section, set_name)


@pytest.mark.parametrize("version", VERSIONS)
def test_every_section_the_advice_names_ships_with_ncu(version: str) -> None:
    texts = [*COLLECT.values(), *(need.option for rule in RULES.values() for need in rule.needs), *_advice()]
    named = {s for text in texts for s in re.findall(r"--section (\w+)", text)}
    stock = stock_sections(require_ncu(version))
    assert len(stock) >= 20 and "SpeedOfLight" in stock
    assert len(named) >= 9
    assert named <= stock, sorted(named - stock)


def test_a_page_that_leaves_out_the_roofline_ncu_collected_says_export_it_again() -> None:
    details = sample("micro_roof.details.csv.gz")  # the default details page of a roofline-sections report
    assert (details.report.rules["rule"] == ROOFLINE_RULE).sum() == 16  # ncu's rule ran for every launch
    missing = details.verdicts["missing"].astype(str)
    assert missing.str.contains(f"its {ROOFLINE_RULE} rule ran", regex=False).all()
    assert missing.str.contains(RAW_EXPORT, regex=False).all()
    # and the claim holds: ncu's raw page of the same report has the roofline of every launch
    raw = sample("micro_roof.raw.csv.gz")
    assert not raw.verdicts["missing"].astype(str).str.contains("hierarchical roofline", regex=False).any()
    assert raw.roofline["achieved_flops"].notna().groupby(raw.roofline["launch_id"]).any().all()
    panels = {p.precision: p for p in build_view(details).rooflines}
    assert {k: p.absent for k, p in panels.items()} == {
        "fp64": NOT_EXPORTED,
        "fp32": NOT_EXPORTED,
        "fp16": NOT_COLLECTED,  # the chart rule's section counts FP32 and FP64 work only
        "tensor": NOT_COLLECTED,
    }
    text = " ".join(render_terminal(details).split())
    assert f"No roofline: this page leaves out the FP64 and FP32 work ncu collected (its {ROOFLINE_RULE}" in text
    assert RAW_EXPORT in text


def test_an_export_without_any_roofline_work_names_every_precision_and_one_run() -> None:
    a = sample("direct_details.stdout.csv")  # --section SpeedOfLight --section LaunchStats --section Occupancy
    assert not (a.report.rules["rule"] == ROOFLINE_RULE).any()
    assert {p.absent for p in build_view(a).rooflines} == {NOT_COLLECTED}
    missing = a.verdicts["missing"].astype(str)
    assert missing.str.contains(f"--set {ROOFLINE_SET}", regex=False).all()
    assert not missing.str.contains(f"{ROOFLINE_RULE} rule ran", regex=False).any()
    text = " ".join(render_terminal(a).split())
    assert "No roofline: this export has no FP64, FP32, FP16 or Tensor work: profile with --set roofline" in text
    assert "--section NcuRoofline" in text
