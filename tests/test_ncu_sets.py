"""What the tool tells a user to profile or export again, held to what ncu itself does.

The section sets come from the real ncu: ``--list-sets`` of ncu 2022.3 and 2024.2 (``tools/install_ncu.sh``; CI
installs both) and of ncu 2025.3.1 on the H200 (``data/ncu-cli/list-sets-2025.3.txt``, a copy of
``../shared/ncu-reference/list-sets.txt``). ``--set full`` holds the four hierarchical roofline charts only in
2025.3; ``--set roofline`` holds them in all three. The claim that a page left out roofline metrics ncu collected
is held to a report exported twice by ncu: its default details page and its raw page. What ``missing`` says of
DRAM on an integrated (Tegra) GPU is held to ncu 2024.2's metric catalogs of those chips.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import derive
import numpy as np
import pytest
from _analyses import sample
from _ncu import VERSIONS, list_sets, query_metrics, require_ncu, run_list_sets, stock_section_folder, stock_sections
from conftest import data

import ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.classify import COLLECT, COLLECT_SOL, INTEGRATED_DRAM
from ncu_roofline.device import resolve_peaks
from ncu_roofline.hints import RULES
from ncu_roofline.ncurules import ROOFLINE_RULE
from ncu_roofline.quantities import MCC_DRAM_BYTES, ROOFLINE_SET, WORK_SECTIONS
from ncu_roofline.report.terminal import render_terminal
from ncu_roofline.report.viewmodel import NO_DURATION, NOT_COLLECTED, NOT_EXPORTED, build_view
from ncu_roofline.roofline import achieved_traffic
from ncu_roofline.vocabulary import RAW_EXPORT

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
    # (not "not collected": a summary page of a report whose roofline sections ran says the same, and the report's
    # raw page, which the message names too, has them)
    a = sample("direct_details.stdout.csv")  # --section SpeedOfLight --section LaunchStats --section Occupancy
    assert not (a.report.rules["rule"] == ROOFLINE_RULE).any()
    assert {p.absent for p in build_view(a).rooflines} == {NOT_COLLECTED}
    missing = a.verdicts["missing"].astype(str)
    assert missing.str.contains(f"--set {ROOFLINE_SET}", regex=False).all()
    assert not missing.str.contains(f"{ROOFLINE_RULE} rule ran", regex=False).any()
    text = " ".join(render_terminal(a).split())
    assert "No roofline: this export has no FP64, FP32, FP16 or Tensor work counts: profile with --set roofline" in text
    assert "--section NcuRoofline" in text


def test_work_counted_without_a_duration_says_so(tmp_path: Path) -> None:
    """A `--metrics` list of FP32 instruction counts without gpu__time_duration (as a V100 run of ncu 2023.2
    was published): the work is there, its FLOP/s is not; the message says the duration is what is missing,
    not that there is no FP32 work (it said "this export has no FP64, FP32, FP16 or Tensor work")."""
    raw = derive.raw_rows(data("micro_metrics.raw.csv"))  # a real --metrics page (its counts, duration...)
    counts = [c for c in raw[0] if re.fullmatch(r"sm__sass_thread_inst_executed_op_f(add|mul|fma)_pred_on\.sum", c)]
    assert len(counts) == 3
    a = analyze(ncu_roofline.read(derive.picked(raw, counts, tmp_path / "counts.raw.csv")))
    assert a.quantities["duration"].isna().all()
    panels = {p.precision: p.absent for p in build_view(a).rooflines}
    assert panels == {"fp64": NOT_COLLECTED, "fp32": NO_DURATION, "fp16": NOT_COLLECTED, "tensor": NOT_COLLECTED}
    text = " ".join(render_terminal(a).split())
    assert "No roofline: the FP32 work was counted, but no launch that counted it has a duration" in text
    assert "add gpu__time_duration.sum to --metrics" in text
    assert "has no FP64, FP32" not in text


# --- DRAM on integrated (Tegra) GPUs ------------------------------------------------------------------------------


def _tegra_like(tmp: Path, cc: str) -> Path:
    """The H200 details page as an integrated GPU's export shows it: its CC set to ``cc`` and no DRAM rows (the
    stock SpeedOfLight section has none for CC 7.2 and 8.7)."""
    with (DATA / "micro_full.details.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    header = rows[0]
    at_cc, at_label = header.index("CC"), header.index("Metric Name")
    out = [header]
    for row in rows[1:]:
        if len(row) > at_label and row[at_label].startswith("DRAM"):
            continue
        out.append([cc if i == at_cc else v for i, v in enumerate(row)])
    path = tmp / f"tegra-{cc}.details.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(out)
    return path


def test_the_dram_an_integrated_gpu_has_is_what_ncu_itself_reads() -> None:
    ncu = require_ncu("2024.2")
    for chip in ("gv11b", "ga10b"):  # Xavier (CC 7.2) and Orin (CC 8.7)
        names = {line.split()[0] for line in query_metrics(ncu, chip).splitlines() if "__" in line.split(" ")[0]}
        assert len(names) > 1000
        assert not {n for n in names if n.startswith(("dram__", "gpu__dram"))}, chip
    assert "dram__bytes" in {line.split()[0] for line in query_metrics(ncu, "ga100").splitlines() if line.strip()}
    # on CC 8.7 ncu's own tensor roofline chart reads the memory controller's bytes; on CC 7.2 nothing
    tensor = (stock_section_folder(ncu) / f"{WORK_SECTIONS['tensor']}.section").read_text(encoding="utf-8")
    at = tensor.index(f'Name: "{MCC_DRAM_BYTES}.per_second"')
    assert f'Name: "{MCC_DRAM_BYTES}.peak_sustained"' in tensor
    assert "MinArch: CC_87" in tensor[:at] and "MaxArch: CC_87" in tensor[:at]
    assert MCC_DRAM_BYTES in INTEGRATED_DRAM["8.7"] and "mcc__" not in INTEGRATED_DRAM["7.2"]


def test_the_memory_controllers_dram_bytes_give_the_dram_roofline() -> None:
    # the H200 raw page with its DRAM bytes under the names ncu's tensor chart reads on CC 8.7, and every other
    # DRAM figure left out: the DRAM traffic and peak are ncu's own numbers, as with dram__bytes
    values = sample("micro_roof.raw.csv.gz").report.values
    rename = {f"dram__bytes.sum.{s}": f"{MCC_DRAM_BYTES}.{s}" for s in ("per_second", "peak_sustained")}
    dropped = [c for c in values.columns if c.startswith(("dram__bytes", "gpu__dram", "fbpa__", "dram__cycles_a"))]
    mcc = values.drop(columns=[c for c in dropped if c not in rename]).rename(columns=rename)
    assert not any(c.startswith(("dram__bytes", "gpu__dram")) for c in mcc.columns)
    got, want = achieved_traffic(mcc, "dram"), values["dram__bytes.sum.per_second"]
    assert want.notna().all() and np.allclose(got.to_numpy(), want.to_numpy(), rtol=1e-12)
    peak = resolve_peaks(mcc)["dram_bytes_per_s"].to_numpy()
    assert np.allclose(peak, resolve_peaks(values)["dram_bytes_per_s"].to_numpy(), rtol=1e-12)
    assert np.isfinite(peak).all()


@pytest.mark.parametrize("cc", ["7.2", "8.7", "12.1", "9.0"])
def test_what_missing_says_of_dram_on_an_integrated_gpu(cc: str, tmp_path: Path) -> None:
    a = analyze(ncu_roofline.read(_tegra_like(tmp_path, cc)))
    assert (a.verdicts["unmeasured"].astype(str).str.split(", ").map(lambda u: "hbm" in u)).all()
    missing = a.verdicts["missing"].astype(str)
    if cc in INTEGRATED_DRAM:  # what cannot be collected there is not asked for
        assert missing.str.contains(INTEGRATED_DRAM[cc], regex=False).all()
        assert not missing.str.contains(COLLECT["hbm"], regex=False).any()
    else:  # its DRAM bytes per second are on the page (Memory Workload Analysis), its DRAM share is not
        assert missing.str.contains(COLLECT_SOL["hbm"], regex=False).all()
        assert not missing.str.contains("integrated GPU", regex=False).any()


@pytest.mark.parametrize("name", ["micro_full.raw.csv", "llm_full.raw.csv.gz", "train_step.raw.csv.gz"])
def test_ncus_memory_throughput_is_at_least_its_dram_throughput(name: str) -> None:
    # the premise of reading an unmeasured memory level as at most Memory Throughput: ncu's own numbers
    q = sample(name).quantities
    dram, memory = q["dram_throughput_pct"].to_numpy(), q["memory_throughput_pct"].to_numpy()
    assert np.isfinite(dram).all() and np.isfinite(memory).all()
    assert (dram <= memory + 1e-9).all()


def test_an_integrated_gpu_without_dram_counters_still_gets_every_verdict(tmp_path: Path) -> None:
    full = sample("micro_full.details.csv")
    tegra = analyze(ncu_roofline.read(_tegra_like(tmp_path, "8.7")))
    v = tegra.verdicts
    assert v["limiter"].notna().all() and v["regime"].tolist() == full.verdicts["regime"].tolist()
    assert v["unmeasured"].astype(str).str.contains("hbm").all()
    memory = tegra.quantities["memory_throughput_pct"].to_numpy()
    # a verdict DRAM could overturn (Memory Throughput at or over the bound threshold) is partial, the others not
    assert (v["partial"].to_numpy(dtype=bool) == (memory >= 60)).all()
    # (the texts call an LPDDR GPU's DRAM unit dram; its key in unmeasured stays hbm)
    at_most = v["reason"].astype(str).str.contains("dram not measured, at most ncu's Memory Throughput", regex=False)
    assert (at_most.to_numpy() == (memory < 60)).all()
    # where the full export's limiter is not DRAM, the same limiter
    same = full.verdicts["limiter"].to_numpy() != "hbm"
    busiest_dram = full.verdicts["reason"].astype(str).str.contains("busiest unit hbm", regex=False).to_numpy()
    keep = same & ~busiest_dram
    assert keep.sum() >= 10
    assert (v["limiter"].to_numpy()[keep] == full.verdicts["limiter"].to_numpy()[keep]).all()


def test_work_counted_on_launches_without_a_duration_says_so_beside_timed_ones(tmp_path: Path) -> None:
    """Two runs in one capture (a public A100 log): one launch timed without FLOP counts, the others counted
    without a duration. No launch that counted FP32 work has a time: the same message, not "no FP32 work"."""
    raw = derive.raw_rows(data("micro_metrics.raw.csv"))
    counts = [c for c in raw[0] if re.fullmatch(r"sm__sass_thread_inst_executed_op_f(add|mul|fma)_pred_on\.sum", c)]
    page = derive.picked(raw, ["gpu__time_duration.sum", *counts], tmp_path / "mixed.raw.csv")
    rows = derive.rows(page.read_text())
    header = rows[0]
    for i, r in enumerate(rows[2:]):
        for c in counts if i == 15 else ["gpu__time_duration.sum"]:
            r[header.index(c)] = ""
    page.write_text(derive.write(rows))
    a = analyze(ncu_roofline.read(page))
    assert a.quantities["duration"].notna().sum() == 1
    assert {p.precision: p.absent for p in build_view(a).rooflines}["fp32"] == NO_DURATION
    assert "the FP32 work was counted, but no launch that counted it has a duration" in " ".join(
        render_terminal(a).split()
    )
