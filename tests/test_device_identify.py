"""Which GPU ran a launch, and GPUs outside the built-in table (issue 9, item 6).

Real inputs: the V100 raw page ncu 2022.3 re-exported (``../shared/ncu-wild``) and the H200 raw pages. GPUs we
have no export of are stood in for by a real H200 raw page whose device name (or attributes) is changed, and
nothing else: every metric, peak and clock stays the H200's. So the peaks a test expects "from the report" are
the H200 page's own ``*.peak_sustained`` x clock figures, and those "from the table" the datasheet figures of
the GPU the page was renamed to.
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Callable
from pathlib import Path

import derive
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import SHARED, analysed, at_measured, data, read_shared

import ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.cli import main
from ncu_roofline.device import (
    identify,
    identify_one,
    implied_bandwidth,
    implied_dram_peaks,
    implied_sm_count,
    lookup_device,
    peaks_from_metrics,
)
from ncu_roofline.errors import EXIT_OK, EXIT_USAGE
from ncu_roofline.report.viewmodel import build_view

WILD = SHARED.parent / "ncu-wild"
V100_RAW = WILD / "ncu-2022.3" / "gene_dzv.raw.csv"
NAME = "device__attribute_display_name"


def _text(path: Path) -> str:
    return gzip.open(path, "rt").read() if path.suffix == ".gz" else path.read_text()


def edited(
    source: Path, target: Path, edit: Callable[[list[str], list[str]], list[str]], keep: Callable[[str], bool] = bool
) -> Path:
    """The raw page with ``edit(header, row)`` applied to every launch row and only the columns ``keep``s."""
    rows = derive.rows(_text(source))
    header = rows[0]
    out = [header, rows[1], *(edit(header, list(r)) for r in rows[2:])]
    cols = [i for i, c in enumerate(header) if keep(c)]
    target.write_text(derive.write([[r[i] for i in cols] for r in out]))
    return target


def renamed(source: Path, target: Path, name: str) -> Path:
    """The raw page with another ``device__attribute_display_name`` (empty: no name)."""

    def edit(header: list[str], row: list[str]) -> list[str]:
        row[header.index(NAME)] = name
        return row

    return edited(source, target, edit)


def as_gpu(source: Path, target: Path, name: str) -> Path:
    """The raw page renamed to table entry ``name`` with its CC and SM count (the CC column and attributes,
    ``device__attribute_multiprocessor_count``): a page that names that GPU consistently."""
    spec = lookup_device(name)
    assert spec.sm_count is not None
    major, minor = spec.cc.split(".")
    new = {
        NAME: name,
        "CC": spec.cc,
        "device__attribute_compute_capability_major": major,
        "device__attribute_compute_capability_minor": minor,
        "device__attribute_multiprocessor_count": str(int(spec.sm_count.value)),
    }

    def edit(header: list[str], row: list[str]) -> list[str]:
        for column, value in new.items():
            row[header.index(column)] = value
        return row

    return edited(source, target, edit)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("devices")


# ---- identification -----------------------------------------------------------------------------------------


def test_v100_page_names_its_device_and_the_table_fills_its_peaks() -> None:
    """The real V100 page (ncu 2022.3) carries no peak metrics: the roofline peaks come from the V100 table, at
    the SM clock the page measured (1.311 GHz, where ncu locked the clocks; the datasheet's 7.8 TFLOP/s FP64 is
    at the 1.53 GHz boost clock, a roof 17 % above what the launches could reach)."""
    report = read_shared(V100_RAW)
    ident = identify(report)
    assert set(ident["device_name"]) == {"Tesla V100-SXM2-16GB"}
    assert set(ident["device_basis"]) == {"display_name"}
    a = analyze(report)
    spec = lookup_device("Tesla V100-SXM2-16GB")
    assert spec.fp64_flops is not None and spec.sm_clock_hz is not None
    clock = report.values["sm__cycles_elapsed.avg.per_second"].to_numpy(dtype=float)
    assert np.allclose(clock, 1.3112e9, rtol=1e-4)
    np.testing.assert_allclose(a.peaks["fp64_flops"], 7.8e12 * clock / 1.53e9)
    np.testing.assert_allclose(a.peaks["fp64_flops"], at_measured("fp64_flops", spec, report.values))
    assert (a.peaks["source_fp64_flops"] == "table:Tesla V100-SXM2-16GB").all()
    assert set(a.launches["device_name"]) == {"Tesla V100-SXM2-16GB"}


def test_attributes_identify_a_page_without_its_name(work: Path) -> None:
    """The H200 page without its display name: CC 9.0, 132 SMs and 3,201 MHz x 6,016 bit (4.815 TB/s) single
    out the H200 (the GH200 144 GB, also CC 9.0 with 132 SMs, has 4.9 TB/s)."""
    page = renamed(data("micro_full.raw.csv"), work / "nameless.raw.csv", "")
    ident = identify(ncu_roofline.read(page))
    assert set(ident["device"]) == {"NVIDIA H200"}
    assert set(ident["device_basis"]) == {"attributes"}
    assert set(ident["device_name"]) == {"NVIDIA H200"}


def test_a_print_details_all_page_is_identified_by_ncus_dram_peak() -> None:
    """A details page has no device attributes; a --print-details all page has ncu's DRAM peak (the chart's
    "Theoretical DRAM Bytes Accessible" 1.50 Kbyte/cycle x "DRAM Frequency" 3.20 GHz = 4.8 TB/s): with CC 9.0
    and 132 SMs that is the H200, the GPU the raw page of the same report names (its display name)."""
    named = set(identify(read_shared(data("micro_full.raw.csv")))["device_name"])
    ident = identify(read_shared(data("micro_full.details-all.csv")))
    assert named == {"NVIDIA H200"}
    assert set(ident["device"]) == named and set(ident["device_basis"]) == {"attributes"}


def _details_edited(target: Path, edit: Callable[[str, str, str, str], str]) -> Path:
    """The H200 details page with ``edit(section, label, unit, value)`` as each metric row's value."""
    rows = derive.rows(data("micro_full.details.csv").read_text(encoding="utf-8"))
    h = rows[0]
    si, li, ui, vi = (h.index(c) for c in ("Section Name", "Metric Name", "Metric Unit", "Metric Value"))
    for r in rows[1:]:
        if len(r) > vi and r[li]:
            r[vi] = edit(r[si], r[li], r[ui], r[vi])
    target.write_text(derive.write(rows, ragged_from=vi + 1), encoding="utf-8")
    return target


def test_a_default_details_page_is_identified_by_the_dram_peak_its_throughput_implies(work: Path) -> None:
    """A default details page has no device attributes and no DRAM peak, but each launch's DRAM bytes per second
    (Memory Workload Analysis' "Memory Throughput") and their share of the peak (SOL's "DRAM Throughput"): the
    ratio of the busiest launch, 4.17 TB/s / 86.58 % = 4.82 TB/s, is ncu's own DRAM peak on
    the raw page of the same report (dram__bytes.sum.peak_sustained x DRAM clock, 4.81 TB/s) to 0.2 %, and with
    CC 9.0 and 132 SMs singles out the H200 (an H100 SXM, 3.35 TB/s, would be told apart by it alone)."""
    page = read_shared(data("micro_full.details.csv"))
    raw = read_shared(data("micro_full.raw.csv")).values.reset_index(drop=True)
    ncu_peak = raw["dram__bytes.sum.peak_sustained"] * raw["dram__cycles_elapsed.avg.per_second"]
    implied = implied_bandwidth(page.launches, page.values)
    assert np.unique(implied).size == 1 and implied[0] == pytest.approx(float(ncu_peak.iloc[0]), rel=2e-3)
    ident = identify(page)
    assert set(ident["device"]) == {"NVIDIA H200"} and set(ident["device_basis"]) == {"attributes"}
    # that figure is the page's own DRAM roof (the table's 4.8 TB/s fills only what the page lacks: L2, L1, FLOP/s)
    # and the page's own DRAM roof at each launch's DRAM clock (3.14-3.17 GHz measured by its four short
    # launches, 3.20 by the rest): ncu's peak of each launch on the raw page, to the clock's three digits
    device, own = implied_dram_peaks(page.launches, page.values)
    assert (device == implied).all() and own == pytest.approx(ncu_peak.to_numpy(), rel=2e-3)
    assert np.unique(own).size == 5
    peaks = analyze(page).peaks.reset_index(drop=True)
    assert (peaks["dram_bytes_per_s"] == own).all() and set(peaks["source_dram_bytes_per_s"]) == {"report"}
    assert set(peaks["source_l2_bytes_per_s"]) == {"table:NVIDIA H200"}
    # where the report has ncu's DRAM peak (a raw page), that one
    raw_peaks = analyze(read_shared(data("micro_full.raw.csv"))).peaks.reset_index(drop=True)
    assert raw_peaks["dram_bytes_per_s"].to_numpy() == pytest.approx(ncu_peak.to_numpy())
    # the same page with the bytes of a 3.35 TB/s GPU (every other figure the H200's): the H100 SXM
    h100 = _details_edited(
        work / "h100.details.csv",
        lambda s, lab, unit, v: (
            f"{float(v) * 3.35 / 4.815:.2f}"
            if (s, lab) == ("Memory Workload Analysis", "Memory Throughput") and unit == "Tbyte/s"
            else v
        ),
    )
    assert set(identify(ncu_roofline.read(h100))["device"]) == {"NVIDIA H100 SXM"}
    # read together (a folder of both runs: device 0, CC 9.0 in each), each report is its own device
    both = ncu_roofline.read([data("micro_full.details.csv"), h100])
    named = identify(both).groupby(level="report")["device"].unique()
    assert {k: list(v) for k, v in named.items()} == {
        "micro_full.details": ["NVIDIA H200"],
        "h100.details": ["NVIDIA H100 SXM"],
    }
    # no launch at 10 % of the DRAM peak: no ratio close enough to tell, no guess
    quiet = _details_edited(
        work / "quiet.details.csv",
        lambda s, lab, unit, v: "9.99" if lab == "DRAM Throughput" and float(v.replace(",", "")) >= 10 else v,
    )
    assert identify(ncu_roofline.read(quiet))["device"].isna().all()


def test_the_charts_roofs_win_over_the_table() -> None:
    """The table fills what the report lacks, and ncu's chart is the report's: with the H200 named (or
    identified), a --print-details all page's roofs (FP, tensor series, bandwidth) are still its charts',
    launch by launch those the raw page of the same report gives from its metrics (within the page's three
    digits; the H200 datasheet's FP32 roof, 67 TFLOP/s at 1.98 GHz, is 2 % above the chart's at the
    launches' 1.94 GHz)."""
    raw = analysed(data("micro_full.raw.csv")).roofline
    for device in (None, "NVIDIA H200"):
        page = analyze(read_shared(data("micro_full.details-all.csv")), device=device)
        key = ["launch_id", "precision", "level", "series"]
        joined = page.roofline.merge(raw, on=key, suffixes=("_all", "_raw"))
        assert joined["launch_id"].nunique() == 16 and (joined["precision"] == "tensor").sum() == 48
        for col in ("peak_flops", "peak_bytes_per_s"):
            np.testing.assert_allclose(joined[f"{col}_all"], joined[f"{col}_raw"], rtol=6e-3)
        peaks = page.peaks
        assert set(peaks["source_fp32_flops"]) == {"report"} and set(peaks["source_dram_bytes_per_s"]) == {"report"}


def test_attributes_alone_do_not_guess() -> None:
    """Four V100 forms share CC 7.0, 80 SMs and 900 GB/s: without a name, none is chosen."""
    assert identify_one(None, "7.0", 80.0, 877e6 * 2 * 4096 / 8) == (None, None)
    assert identify_one(None, "9.0", 132.0, float("nan")) == (None, None)  # H100 SXM, H100 NVL, H200, GH200
    spec, how = identify_one(None, "8.0", 108.0, 1215e6 * 2 * 5120 / 8)  # A100 40 GB: SXM4 and PCIe, 1,555 GB/s
    assert spec is None and how is None
    spec, how = identify_one(None, "8.0", 108.0, 1593e6 * 2 * 5120 / 8)  # 2,039 GB/s: the A100-SXM4-80GB
    assert spec is not None and spec.name == "NVIDIA A100-SXM4-80GB" and how == "attributes"


def test_a_name_that_matches_several_forms_is_settled_by_the_attributes() -> None:
    spec, how = identify_one("NVIDIA A100 80GB", "8.0", 108.0, 1512e6 * 2 * 5120 / 8)  # 1,935 GB/s: PCIe
    assert spec is not None and spec.name == "NVIDIA A100 80GB PCIe" and how == "display_name+attributes"


def test_a_name_whose_attributes_contradict_its_entry_takes_no_entry() -> None:
    """The table's figures are not borrowed for another GPU: a 70-SM "RTX 3080" (the 12 GB card; the entry is
    the 68-SM 10 GB one), a "Quadro RTX 6000" (Turing, CC 7.5; its words are all in "RTX 6000 Ada Generation",
    CC 8.9), an "RTX 2080" (46 SMs; the table has the 2080 Ti, 68) get none; the right attributes do."""
    assert identify_one("NVIDIA GeForce RTX 3080", "8.6", 70.0, float("nan")) == (None, None)
    assert identify_one("NVIDIA GeForce RTX 3080", "8.6", 68.0, float("nan"))[1] == "display_name"
    assert identify_one("Quadro RTX 6000", "7.5", 72.0, 7001e6 * 2 * 384 / 8) == (None, None)
    assert identify_one("NVIDIA GeForce RTX 2080", "7.5", 46.0, float("nan")) == (None, None)
    spec, how = identify_one("NVIDIA GeForce RTX 2080", None, float("nan"), float("nan"))  # nothing against it
    assert spec is not None and spec.name == "NVIDIA GeForce RTX 2080 Ti" and how == "display_name"


def test_a_renamed_page_whose_cc_contradicts_the_name_takes_no_entry(work: Path) -> None:
    """The H200 page named "NVIDIA B200" but still CC 9.0 with 132 SMs: its name is shown, no B200 figure is
    taken (the B200 is CC 10.0 with 148 SMs), and the page's own peaks carry it."""
    page = renamed(data("micro_full.raw.csv"), work / "not-b200.raw.csv", "NVIDIA B200")
    [dev] = _json([str(page)])["devices"]
    assert (dev["name"], dev["table"], dev["basis"], dev["peak_source"]) == ("NVIDIA B200", None, None, ["report"])


def test_a_cc_spelled_with_a_space_is_the_same_cc(work: Path) -> None:
    """A page whose CC column reads "9.0 " (edited by hand): the same GPU, and the same verdicts (the H200 was
    refused, its name contradicted by a CC of "9.0 ", and every verdict lost)."""

    def edit(header: list[str], row: list[str]) -> list[str]:
        row[header.index("CC")] = "9.0 "
        return row

    page = edited(data("micro_full.raw.csv"), work / "cc-space.raw.csv", edit)
    [dev] = _json([str(page)])["devices"]
    assert dev["table"] == "NVIDIA H200"
    spaced = analyze(ncu_roofline.read(page)).verdicts
    clean = analyze(read_shared(data("micro_full.raw.csv"))).verdicts
    assert spaced["limiter"].tolist() == clean["limiter"].tolist()


def test_an_unknown_name_is_kept_whatever_the_attributes() -> None:
    """A name outside the table is not renamed to the table entry its (here: H200) attributes match."""
    assert identify_one("NVIDIA RTX PRO 6000 Blackwell", "9.0", 132.0, 4.815e12) == (None, None)


# ---- GPUs outside the table, and renamed pages --------------------------------------------------------------


def _json(args: list[str]) -> dict:
    r = CliRunner().invoke(main, [*args, "--format", "json", "-q"])
    assert r.exit_code == EXIT_OK, r.output
    doc: dict = json.loads(r.stdout)
    return doc


@pytest.mark.parametrize(
    ("page", "raw"),
    [
        ("micro_full.details.csv", "micro_full.raw.csv"),
        ("llm_full.details.csv", "llm_full.raw.csv"),
        ("train_step.details.csv", "train_step.raw.csv"),  # 382 launches, each its own grid
        ("reexport/ncu-2022.3/gene_dzv.raw.csv.gz", "reexport/ncu-2022.3/gene_dzv.raw.csv.gz"),  # V100, ncu 2022.3
    ],
)
def test_the_waves_imply_the_sm_count_ncu_gives(page: str, raw: str) -> None:
    """ncu's waves per SM are the grid's blocks over the SMs times the blocks an SM holds: from the waves, the
    grid and the occupancy limits a page prints (every version), the SM count, which a details page has only
    from ncu 2024.1 on (# SMs), is the one ncu gives on the raw page of the same report (launch__sm_count, or the
    V100's device attribute: 80)."""
    details = read_shared(data(page))
    sms = implied_sm_count(details.launches, details.values)
    given = read_shared(data(raw)).values
    column = "launch__sm_count" if "launch__sm_count" in given else "device__attribute_multiprocessor_count"
    assert set(np.unique(sms)) == set(given[column].unique()) and len(set(np.unique(sms))) == 1


def test_the_waves_imply_the_sm_count_of_an_a100_page() -> None:
    # a real A100 details page (ncu 2022.2-2023.2: Launch Statistics and Occupancy, no # SMs): 108 SMs, the
    # A100's (its datasheet; the built-in table's entries)
    page = read_shared(WILD / "public" / "a100_opinsight_pooling.csv.gz")
    assert set(np.unique(implied_sm_count(page.launches, page.values))) == {108.0}
    assert lookup_device("A100 SXM4 40GB").sm_count.value == 108


def test_a_details_page_without_its_sm_count_is_identified_by_its_waves(work: Path) -> None:
    # the H200 details page without Launch Statistics' "# SMs" (as ncu 2023 prints it): CC 9.0, the SM count
    # its waves imply (132) and the DRAM peak its throughput implies still single out the H200
    rows = derive.rows(data("micro_full.details.csv").read_text(encoding="utf-8"))
    li = rows[0].index("Metric Name")
    kept = [r for r in rows if not (len(r) > li and r[li] in ("# SMs", "# TPCs"))]
    assert len(kept) < len(rows)
    page = work / "no-sms.details.csv"
    page.write_text(derive.write(kept, ragged_from=li + 3), encoding="utf-8")
    report = ncu_roofline.read(page)
    assert "launch__sm_count" not in report.values.columns
    assert set(identify(report)["device"]) == {"NVIDIA H200"}


@pytest.mark.parametrize("name", ["micro_full.details.csv", "llm_full.details.csv"])
def test_the_implied_dram_roof_puts_no_launch_above_its_dram_throughput(name: str) -> None:
    # each launch's bytes over the busiest launch's bytes-to-throughput ratio: its own DRAM throughput (SOL's
    # percentage, ncu's figure) to what the printed digits allow (bytes to three digits: 0.4 % of 1.28 Tbyte/s)
    _roofs_agree_with_sol(_json([str(data(name))]))


def _roofs_agree_with_sol(doc: dict) -> None:
    for x in doc["launches"]:
        sol, roof, achieved = x["utilization"]["dram"], x["utilization"].get("dram_roof"), x["memory"][0]
        digits = 0.5 * 10 ** (math.floor(math.log10(achieved["achieved_bytes_per_s"])) - 2)  # half the last digit
        assert abs(roof - sol) <= sol * (digits / achieved["achieved_bytes_per_s"] + 1e-3) + 5e-5, x["display_name"]


def test_the_implied_dram_roof_follows_each_launchs_dram_clock(work: Path) -> None:
    """A launch at another DRAM clock (ncu 2019.5 on a V100 printed one launch at 739 MHz, the next at 852) has
    its peak at that clock: micro_full's strided_read (launch 1) given a 1.25x faster DRAM clock and so 0.8x its
    DRAM Throughput share (its bytes per second as measured): its roof is 1.25x the busiest launch's, and every
    launch's DRAM roof fraction is still ncu's own percentage (it was 0.8 x 75.90 / 75.90 off)."""
    rows = derive.rows(data("micro_full.details.csv").read_text(encoding="utf-8"))
    header = rows[0]
    li, vi, ii = header.index("Metric Name"), header.index("Metric Value"), header.index("ID")
    for r in rows[1:]:
        if len(r) > vi and r[ii] == "1" and r[li] == "DRAM Frequency":
            assert r[vi] == "3.20"
            r[vi] = "4.00"
        if len(r) > vi and r[ii] == "1" and r[li] == "DRAM Throughput":
            assert r[vi] == "75.90"
            r[vi] = "60.72"
    page = work / "two-clocks.details.csv"
    page.write_text(derive.write_like(rows), encoding="utf-8")
    doc = _json([str(page)])
    _roofs_agree_with_sol(doc)
    dram = {x["id"]: next(m for m in x["memory"] if m["level"] == "dram") for x in doc["launches"]}
    assert dram[1]["peak_bytes_per_s"] == pytest.approx(1.25 * dram[0]["peak_bytes_per_s"], rel=1e-12)
    assert dram[2]["peak_bytes_per_s"] == dram[0]["peak_bytes_per_s"]


def test_b200_display_name_names_the_device(work: Path) -> None:
    """A B200 page is analysed from its own peaks and named in the JSON, the terminal and the HTML."""
    page = as_gpu(data("micro_full.raw.csv"), work / "b200.raw.csv", "NVIDIA B200")
    doc = _json([str(page)])
    assert {x["device"] for x in doc["launches"]} == {"NVIDIA B200"}
    [dev] = doc["devices"]
    assert dev == {
        "name": "NVIDIA B200",
        "cc": "10.0",
        "table": "NVIDIA B200",
        "basis": "display_name",
        "launches": 16,
        "peak_source": ["report"],  # every figure from the page itself, none from the B200 table
        "missing_peaks": [],
    }
    own = peaks_from_metrics(read_shared(data("micro_full.raw.csv")).values)
    dram = [m["peak_bytes_per_s"] for x in doc["launches"] for m in x["memory"] if m["level"] == "dram"]
    np.testing.assert_allclose(dram, own["dram_bytes_per_s"].to_numpy())  # the page's 4.8 TB/s, not 7.7
    a = analyze(ncu_roofline.read(page))
    assert build_view(a).header.gpus == ("NVIDIA B200 (CC 10.0)",)
    r = CliRunner().invoke(main, [str(page), "-o", str(work / "b200.html")])
    assert r.exit_code == EXIT_OK
    assert r.stdout.splitlines()[1].startswith("NVIDIA B200 (CC 10.0)")
    assert "<dd>NVIDIA B200 (CC 10.0)</dd>" in (work / "b200.html").read_text()


def test_two_gpus_get_a_roof_each(work: Path) -> None:
    """A run over two GPUs (the H200 sample, and the same page as an H100 whose SM clock is 10 % lower): each
    chart has one roof per GPU, each labelled with its GPU and drawn at the peaks of one of that GPU's launches;
    one GPU: one roof, labelled as before."""
    clock = "sm__cycles_elapsed.avg.per_second"

    def h100(header: list[str], row: list[str]) -> list[str]:
        row[header.index(NAME)] = "NVIDIA H100 SXM"
        row[header.index(clock)] = str(float(row[header.index(clock)].replace(",", "")) * 0.9)
        return row

    other = edited(data("micro_full.raw.csv"), work / "h100.raw.csv", h100)
    both = build_view(analyze(ncu_roofline.read([data("micro_full.raw.csv"), other])))
    fp32 = next(p for p in both.rooflines if p.precision == "fp32")
    assert [(r.label, r.report) for r in fp32.roofs] == [
        ("FP32 · NVIDIA H200", "micro_full.raw"),
        ("FP32 · NVIDIA H100 SXM", "h100.raw"),
    ]
    assert fp32.roofs[1].peak_flops == pytest.approx(0.9 * fp32.roofs[0].peak_flops, rel=1e-3)
    one = build_view(analyze(ncu_roofline.read(data("micro_full.raw.csv"))))
    assert [r.label for r in next(p for p in one.rooflines if p.precision == "fp32").roofs] == ["FP32"]


def test_a40_page_is_analysed_from_its_own_peaks(work: Path) -> None:
    """train_step has no FP64 or tensor peak metrics: those come from the A40 entry, the rest from the page."""
    page = as_gpu(data("train_step.raw.csv.gz"), work / "a40.raw.csv", "NVIDIA A40")
    a = analyze(ncu_roofline.read(page))
    own = peaks_from_metrics(read_shared(data("train_step.raw.csv.gz")).values)
    np.testing.assert_allclose(a.peaks["dram_bytes_per_s"], own["dram_bytes_per_s"])
    assert (a.peaks["source_dram_bytes_per_s"] == "report").all()
    spec = lookup_device("NVIDIA A40")
    assert spec.fp64_flops is not None
    np.testing.assert_allclose(a.peaks["fp64_flops"], at_measured("fp64_flops", spec, ncu_roofline.read(page).values))
    assert set(a.launches["device_name"]) == {"NVIDIA A40"}
    assert (
        a.verdicts["limiter"].notna().sum() == analysed(data("train_step.raw.csv.gz")).verdicts["limiter"].notna().sum()
    )


def test_gpu_outside_the_table_is_analysed(work: Path) -> None:
    """Exit 0, not 4: same verdicts as the original page, whose peaks it carries."""
    page = renamed(data("train_step.raw.csv.gz"), work / "pro6000.raw.csv", "NVIDIA RTX PRO 6000 Blackwell")
    doc = _json([str(page)])
    ref = _json([str(data("train_step.raw.csv.gz"))])
    assert [x["limiter"] for x in doc["launches"]] == [x["limiter"] for x in ref["launches"]]
    assert doc["devices"][0]["name"] == "NVIDIA RTX PRO 6000 Blackwell"
    assert doc["devices"][0]["table"] is None


def test_without_any_bandwidth_peak_the_speed_of_light_still_stands(work: Path) -> None:
    """The micro page without its ``*.peak_sustained`` columns (and its DRAM throughput percentages, which imply
    the DRAM peak), on a GPU outside the table: no bandwidth roof, but every launch keeps its limiter, regime and
    hints (the Speed Of Light percentages need no peaks), and ``missing`` says which peaks are missing and how to
    give them."""
    implying = ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "dram__throughput.avg.pct_of_peak")
    page = edited(
        data("micro_full.raw.csv"),
        work / "nopeaks.raw.csv",
        lambda h, r: [*r[: h.index(NAME)], "NVIDIA RTX PRO 6000 Blackwell", *r[h.index(NAME) + 1 :]],
        keep=lambda c: not c.endswith(".peak_sustained") and not c.startswith(implying),
    )
    doc = _json([str(page)])
    ref = _json([str(data("micro_full.raw.csv"))])
    assert all(m["peak_bytes_per_s"] is None for x in doc["launches"] for m in x["memory"])
    assert all(x["limiter"] is not None for x in doc["launches"])
    # the same verdicts and hints as the page with its peaks: the Speed Of Light percentages carry them
    pairs = list(zip(doc["launches"], ref["launches"], strict=True))
    assert [(x["limiter"], x["regime"]) for x, _ in pairs] == [(y["limiter"], y["regime"]) for _, y in pairs]
    assert [sorted(h["id"] for h in x["hints"]) for x, _ in pairs] == [
        sorted(h["id"] for h in y["hints"]) for _, y in pairs
    ]
    assert sum(len(x["hints"]) for x in doc["launches"]) > 0
    for x in doc["launches"]:
        assert (
            "peaks dram_bytes_per_s, l2_bytes_per_s, l1_bytes_per_s: not in the report, and the GPU is not "
            "identified in the built-in table" in x["missing"]
        )
        assert "--peak dram_bytes_per_s=VALUE or --device NAME" in x["missing"]
    assert doc["devices"][0]["missing_peaks"] == ["dram_bytes_per_s", "l2_bytes_per_s", "l1_bytes_per_s"]
    # the terminal and the HTML say it once, above the roofline
    r = CliRunner().invoke(main, [str(page), "-o", str(work / "nopeaks.html")])
    assert r.exit_code == EXIT_OK
    said = "Roofline peaks missing for 16 of 16 launches: dram_bytes_per_s, l2_bytes_per_s, l1_bytes_per_s"
    assert said in " ".join(r.stdout.split())
    assert f'<p class="note" id="missing-peaks">{said}' in (work / "nopeaks.html").read_text()
    # given with --peak, the roofline is whole again
    fixed = _json(
        [str(page), "--peak", "dram_bytes_per_s=4.8T", "--peak", "l2_bytes_per_s=10T", "--peak", "l1_bytes_per_s=33T"]
    )
    assert fixed["devices"][0]["missing_peaks"] == []
    assert all("peak" not in (x["missing"] or "") for x in fixed["launches"])


# ---- --device -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "entry"),
    [
        ("v100", "Tesla V100-SXM2-16GB"),
        ("V100-PCIE-32GB", "Tesla V100-PCIE-32GB"),
        ("v100 pcie", "Tesla V100-PCIE-16GB"),
    ],
)
def test_device_option_forgives(given: str, entry: str) -> None:
    r = CliRunner().invoke(main, [str(V100_RAW), "--device", given, "--format", "json"])
    assert r.exit_code == EXIT_OK, r.output
    doc = json.loads(r.stdout)
    assert doc["devices"][0]["table"] == entry and doc["devices"][0]["basis"] == "--device"
    assert doc["devices"][0]["name"] == "Tesla V100-SXM2-16GB"  # the report's own name stays
    if given == "v100":
        assert f"device 'v100' taken as {entry}" in r.stderr


def test_device_option_is_for_the_launches_of_its_cc() -> None:
    # a V100's launches (gene_dzv, CC 7.0) and an H200's (micro_roof, CC 9.0) read together with --device a100
    # (CC 8.0), then --device v100: the given GPU's figures are for the launches of its CC alone (the H200's were
    # relabelled "Tesla V100-SXM2-16GB (CC 9.0)" and would have taken the V100's peaks for what they lack)
    both = ncu_roofline.read([V100_RAW, data("micro_roof.raw.csv")])
    h200 = both.launches["cc"].eq("9.0").to_numpy()
    a = analyze(both, device="a100")  # each GPU identified by its name, as without --device
    assert a.launches["device_basis"].ne("--device").all()
    assert a.launches["device_table"].tolist() == analyze(both).launches["device_table"].tolist()
    assert set(a.launches["device_table"][h200]) == {"NVIDIA H200"}
    assert set(a.launches["device_table"][~h200]) == {"Tesla V100-SXM2-16GB"}
    v = analyze(both, device="v100")
    assert v.launches["device_basis"].eq("--device").to_numpy().tolist() == (~h200).tolist()
    assert set(v.launches["device_name"][h200]) == {"NVIDIA H200"}
    r = CliRunner().invoke(
        main, [str(V100_RAW), str(data("micro_roof.raw.csv")), "--device", "v100", "--format", "json"]
    )
    assert r.exit_code == EXIT_OK
    said = "warning: --device Tesla V100-SXM2-16GB is not used for 16 launches of another compute capability (CC 9.0)"
    assert said in r.stderr


def test_device_option_ambiguous_lists_candidates() -> None:
    r = CliRunner().invoke(main, [str(V100_RAW), "--device", "ti"])
    assert r.exit_code == EXIT_USAGE
    assert "ambiguous" in r.output and "NVIDIA GeForce RTX 2080 Ti" in r.output and "RTX 5060 Ti" in r.output


def test_devices_command_prints_only_peak_keys() -> None:
    """`devices NAME` lists each figure under the key --peak takes (issue 13)."""
    from ncu_roofline.device import OVERRIDE_KEYS

    r = CliRunner().invoke(main, ["devices", "h200"])
    assert r.exit_code == EXIT_OK
    keys = [line.split()[0] for line in r.stdout.splitlines()[2:] if line.startswith("  ") and "notes:" not in line]
    assert keys and set(keys) <= OVERRIDE_KEYS
    assert "boost_clock_hz" not in r.stdout and "tensor_int8_ops" not in r.stdout


def test_analysis_frame_columns() -> None:
    a = analysed(V100_RAW)
    assert {"device_name", "device_table", "device_basis"} <= set(a.launches.columns)
    assert isinstance(a.peaks["missing_peaks"], pd.Series)


def test_library_device_argument_forgives_and_never_fails() -> None:
    report = read_shared(V100_RAW)
    a = analyze(report, device="v100 pcie")
    assert set(a.launches["device_table"]) == {"Tesla V100-PCIE-16GB"}
    assert (a.peaks["source_fp64_flops"] == "table:Tesla V100-PCIE-16GB").all()
    b = analyze(report, device="Voodoo 5")  # no such entry: no table fallback, no error
    assert b.launches["device_table"].isna().all()
    assert (b.peaks["source_fp64_flops"] == "missing").all()
    assert set(b.launches["device_name"]) == {"Tesla V100-SXM2-16GB"}


def test_a_chart_of_two_gpus_names_each_gpus_memory_roofs(work: Path) -> None:
    # the H200 sample and a copy of it named B200: each precision's chart draws both GPUs' roofs; the compute
    # roofs were named per GPU and the DRAM, L2 and L1 roofs were not (the second GPU's left out of the legend)
    from ncu_roofline.report.figures import roofline_figure

    page = as_gpu(data("micro_full.raw.csv"), work / "b200.raw.csv", "NVIDIA B200")
    view = build_view(analyze(ncu_roofline.read([data("micro_full.raw.csv"), page])))
    panel = next(p for p in view.rooflines if p.precision == "fp32")
    assert [r.gpu for r in panel.roofs] == ["NVIDIA H200", "NVIDIA B200"]
    names = {str(t.name) for t in roofline_figure(panel, view).data if t.showlegend is not False}
    for gpu in ("NVIDIA H200", "NVIDIA B200"):
        assert any(n.startswith("DRAM ") and f"· {gpu} · ridge" in n for n in names), (gpu, names)
    one = build_view(analyze(ncu_roofline.read(data("micro_full.raw.csv"))))
    assert all(r.gpu is None for p in one.rooflines for r in p.roofs)


# ---- MIG instances and other forms of a GPU: another SM count than the table entry's -------------------------
# The H200 NERSC-recipe raw page (its peaks come from the table) renamed as a MIG instance with 16 of the
# H200's 132 SMs: the table's whole-GPU figures (67 TFLOP/s FP32, 4.8 TB/s) are not the instance's.
SM_COLUMNS = ("device__attribute_multiprocessor_count", "launch__sm_count")
WAVES = "launch__waves_per_multiprocessor"


def _sliced(work: Path, name: str, sms: int | None = 16, waves: bool = True, cc: str | None = None) -> Path:
    """The NERSC-recipe page named ``name``, on ``sms`` SMs (None: no SM count, and its waves as a 16-SM GPU's
    where ``waves``, else none: nothing to tell its SM count by); ``cc``: another CC."""

    def edit(header: list[str], row: list[str]) -> list[str]:
        row[header.index(NAME)] = name
        for column in SM_COLUMNS:
            row[header.index(column)] = str(sms)
        if sms is None:  # the waves of the same grid on 16 SMs: 132 / 16 times as many
            row[header.index(WAVES)] = f"{float(row[header.index(WAVES)]) * 132 / 16:g}"
        if cc is not None:
            row[header.index("CC")] = cc
        return row

    def keep(column: str) -> bool:
        return bool(column) and not (sms is None and (column in SM_COLUMNS or (column == WAVES and not waves)))

    target = work / f"slice-{sms}-{waves}-{cc}-{name.replace(' ', '_')}.raw.csv"
    return edited(data("micro_metrics.raw.csv"), target, edit, keep)


def test_a_mig_instance_takes_no_table_entry_and_is_told_to_give_its_peaks(work: Path) -> None:
    a = analyze(ncu_roofline.read(_sliced(work, "NVIDIA H200 MIG 1g.18gb")))
    assert a.launches["device_table"].isna().all()
    assert a.peaks["fp32_flops"].isna().all() and a.peaks["dram_bytes_per_s"].isna().all()
    missing = a.verdicts["missing"].astype(str)
    assert missing.str.contains("the built-in table holds whole GPUs, not MIG instances; give them with --peak").all()
    assert not missing.str.contains("--device NAME").any()  # its whole GPU's figures are not the instance's
    note = build_view(a).header.missing_peaks
    assert note is not None and "not MIG instances" in note and "--device" not in note
    # a GPU the table does not know, not a MIG instance: --device is the advice still, in the header too
    other = analyze(ncu_roofline.read(_sliced(work, "NVIDIA Foo X", sms=100)))
    note = build_view(other).header.missing_peaks
    assert note is not None and "not identified in the built-in table" in note and "--device NAME" in note
    assert other.verdicts["missing"].astype(str).str.contains("or --device NAME").all()


def _warned(page: Path, device: str) -> str:
    r = CliRunner().invoke(main, [str(page), "--device", device, "--format", "json"])
    assert r.exit_code == EXIT_OK
    return r.stderr


def test_device_option_is_not_used_for_a_mig_instance(work: Path) -> None:
    """``--device h200`` on the MIG instance's launches: not used (not the whole GPU's 67 TFLOP/s), whether its
    SM count is reported (16), implied by its waves (16) or unknown (its name says MIG); a warning says why. On
    the whole H200's page (132 SMs) it is used as before."""
    for page, on in (
        (_sliced(work, "NVIDIA H200 MIG 1g.18gb"), " on 16 SMs"),
        (_sliced(work, "NVIDIA H200 MIG 1g.18gb", sms=None), " on 16 SMs"),  # the waves' SM count
        (_sliced(work, "NVIDIA H200 MIG 1g.18gb", sms=None, waves=False), ""),  # the name alone
    ):
        a = analyze(ncu_roofline.read(page), device="h200")
        assert a.launches["device_basis"].isna().all() and a.launches["device_table"].isna().all()
        assert a.peaks["fp32_flops"].isna().all()
        said = (
            f"warning: --device NVIDIA H200 is not used for 16 launches of a MIG instance{on}: its figures are "
            "those of NVIDIA H200 (132 SMs), not theirs; give their peaks with --peak"
        )
        assert said in _warned(page, "h200"), page
    # a slice whose name does not say so: its SM count tells it apart all the same
    unnamed = analyze(ncu_roofline.read(_sliced(work, "NVIDIA H200")), device="h200")
    assert unnamed.launches["device_basis"].isna().all() and unnamed.peaks["dram_bytes_per_s"].isna().all()
    page = ncu_roofline.read(data("micro_metrics.raw.csv"))
    whole = analyze(page, device="h200")
    assert whole.launches["device_basis"].eq("--device").all()
    np.testing.assert_allclose(whole.peaks["fp32_flops"], at_measured("fp32_flops", lookup_device("h200"), page.values))


def test_device_option_takes_the_form_of_each_launchs_sm_count(work: Path) -> None:
    """``--device h100`` names three forms (SXM, 132 SMs, first; PCIe, 114; NVL, 132): an unnamed CC 9.0 page on
    114 SMs takes the PCIe's figures, not refused for the SXM's count; a 100-SM one no form has."""
    pcie = lookup_device("h100 pcie")
    assert pcie.sm_count is not None and pcie.sm_count.value == 114
    page = ncu_roofline.read(_sliced(work, "", sms=114))
    a = analyze(page, device="h100")
    assert a.launches["device_table"].eq(pcie.name).all() and a.launches["device_basis"].eq("--device").all()
    np.testing.assert_allclose(a.peaks["fp32_flops"], at_measured("fp32_flops", pcie, page.values))
    none = analyze(ncu_roofline.read(_sliced(work, "", sms=100)), device="h100")
    assert none.launches["device_table"].isna().all()
    said = "warning: --device NVIDIA H100 SXM is not used for 16 launches on 100 SMs: its figures are those of "
    assert said in _warned(_sliced(work, "", sms=100), "h100")
    taken = "(also: NVIDIA H100 PCIe, NVIDIA H100 NVL; a launch on the SM count of one of them takes that one; name"
    assert taken in _warned(_sliced(work, "", sms=114), "h100")
    listed = CliRunner().invoke(main, ["devices", "h100"])  # one GPU's figures: no launches to take a form
    assert "(also: NVIDIA H100 PCIe, NVIDIA H100 NVL; name one to choose)" in listed.stderr


def test_device_option_on_more_sms_keeps_the_launches_own_gpu() -> None:
    """The H200 summary page (132 SMs, identified) with ``--device "h100 pcie"`` (114 SMs): not used, and the
    warning says the launches keep the H200's figures (not that they are a MIG instance, nor to give peaks)."""
    said = _warned(data("llm_full.summary-per-kernel.csv"), "h100 pcie")
    assert (
        "--device NVIDIA H100 PCIe is not used for 16 launches on 132 SMs: its figures are those of NVIDIA H100 "
        "PCIe (114 SMs), not theirs; they keep their own GPU's figures (NVIDIA H200)"
    ) in said
    assert "MIG" not in said and "--peak" not in said


def test_a_small_grid_without_any_sm_count_says_it_is_not_measured(work: Path) -> None:
    """The NERSC-recipe page of a GPU outside the table (no SM count there either), without its SM count and the
    occupancy limits the waves imply one from: how many SMs
    a 1-block grid leaves without a block is not measured, and the hint says so (it said "every SM has a block")."""
    from ncu_roofline.device import OCCUPANCY_LIMITS

    page = edited(
        data("micro_metrics.raw.csv"),
        work / "no-sm-count.raw.csv",
        lambda header, row: [*row[: header.index(NAME)], "NVIDIA Foo X", *row[header.index(NAME) + 1 :]],
        lambda c: bool(c) and c not in SM_COLUMNS and c not in OCCUPANCY_LIMITS,
    )
    a = analyze(ncu_roofline.read(page))
    h = a.hints[a.hints["hint"] == "small_grid"].merge(a.launches[["launch_id", "grid_size"]], on="launch_id")
    tiny = h[h["grid_size"] == 1]
    assert len(tiny) == 4  # tiny_launch x 4: 1 block of 32 threads
    for message in tiny["message"].astype(str):
        assert (
            "(1 block; the GPU's SM count is not in the export, so how many SMs have none is not measured)" in message
        )
        assert "every SM has a block" not in message
