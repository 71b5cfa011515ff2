"""Cross-version equality: the same report exported by different ncu versions gives the same launches, values
(within the printed rounding) and verdicts (limiter, regime, hints).

- ``micro_roof.ncu-rep`` (ncu 2025.3.1, H200, 16 launches) exported by the real ncu 2024.2.0 in every flavour
  (``tests/data/reexport``, ``tools/reexport_ncu_rep.py``) against the 2025.3.1 exports
  (``../shared/ncu-samples/h200-micro``);
- ``v100_summit_gene_dzv.ncu-rep`` (ncu 2020.1, V100, 4 launches) exported by ncu 2022.3.0 and 2024.2.0 against
  the public 2020.1 CSV, the report itself, and the hand computation of ``test_quantities``.

The reference side is the other version's export of the same report, so a difference is a dialect the readers
or the label table do not understand the same way.
"""

from __future__ import annotations

import csv
import gzip
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import SHARED_ROOT, analysed
from test_quantities import CELLS

from ncu_roofline.analysis import Analysis
from ncu_roofline.report.terminal import render_terminal

SAMPLES = SHARED_ROOT / "ncu-samples" / "h200-micro"
PUBLIC = SHARED_ROOT / "ncu-wild" / "public"
#: The re-exports by the real ncu command lines (``tools/reexport_ncu_rep.py``; README there).
REEXPORT = Path(__file__).resolve().parent / "data" / "reexport"

#: 2024.2 flavour of micro_roof -> the 2025.3 export it is held against (same page; the 2025.3 report has
#: no names/units/kernel-base variants: they show the same metrics).
PAIRS = {
    "details": "details",
    "details-base": "details",
    "details-fp": "details",
    "details-names": "details",
    "details-label-names": "details",
    "details-function": "details",
    "details-mangled": "details",
    "details-nvtx-rename": "details",
    "details-all": "details-all",
    "details-body": "details-all",
    "raw": "raw",
    "raw-base": "raw",
    "raw-fp": "raw",
    "raw-instances": "raw",
    "raw-instance-details": "raw",
}
#: Flavours that rename kernels (mangled names, NVTX ranges as names): the kernel column differs by design.
RENAMED = {"details-mangled", "details-nvtx-rename"}
#: ncu 2024.2 itself crashed partway through these ("stold", exit 1; README of the re-exports): they hold
#: launch 0 only. details-body has no header metrics, so no duration.
CUT_SHORT = {"details-all", "details-body"}
#: Print rounding: a details page prints 3-4 significant digits, the raw page 6 decimals.
REL = 0.005


def _path(version: str, name: str) -> Path:
    return REEXPORT / f"ncu-{version}" / f"{name}.csv.gz"


def _file_ids(path: Path) -> set[int]:
    """Launch IDs in an export, read off the CSV itself (golden: the file, not the reader)."""
    with gzip.open(path, "rt", newline="") as fh:
        rows = csv.reader(fh)
        header = next(rows)
        i = header.index("ID")
        return {int(r[i]) for r in rows if len(r) > i and r[i].isdigit()}


def _verdicts(a: Analysis) -> pd.DataFrame:
    v = a.verdicts.set_index("launch_id")
    ours = a.hints[(a.hints["source"] != "ncu").to_numpy()]
    hints = ours.groupby("launch_id")["hint"].agg(lambda s: tuple(sorted(set(s))))
    out = pd.DataFrame(
        {
            "limiter": v["limiter"].astype(object),
            "compute_pipe": v["compute_pipe"].astype(object),
            "regime": v["regime"].astype(object),
            "utilization": v["utilization"].astype(float),
            "hints": hints.reindex(v.index).apply(lambda h: h if isinstance(h, tuple) else ()),
            "kernel": a.launches.set_index("launch_id")["display_name"].astype(object),
            "duration_ns": a.launches.set_index("launch_id")["duration_ns"].astype(float),
        }
    )
    return out.where(out.notna(), None)


@pytest.fixture(scope="module")
def ref() -> dict[str, pd.DataFrame]:
    return {f: _verdicts(analysed(SAMPLES / f"micro_roof.{f}.csv")) for f in set(PAIRS.values())}


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(float(a), float(b), rel_tol=REL, abs_tol=1e-4)


@pytest.mark.parametrize("flavour", list(PAIRS))
def test_2024_2_flavour_gives_the_2025_3_verdicts(flavour: str, ref: dict[str, pd.DataFrame]) -> None:
    path = _path("2024.2", f"micro_roof.{flavour}")
    old = _verdicts(analysed(path))
    new = ref[PAIRS[flavour]]
    ids = _file_ids(path)
    assert set(old.index) == ids
    assert len(ids) == (1 if flavour in CUT_SHORT else 16)
    cols = ("limiter", "compute_pipe", "regime", "hints") + (() if flavour in RENAMED else ("kernel",))
    for lid in sorted(ids):
        o, n = old.loc[lid], new.loc[lid]
        for col in cols:
            assert o[col] == n[col], (flavour, lid, col, o[col], n[col])
        assert _close(o["utilization"], n["utilization"]), (flavour, lid, o["utilization"], n["utilization"])
        if flavour != "details-body":
            assert _close(o["duration_ns"], n["duration_ns"]), (flavour, lid, o["duration_ns"], n["duration_ns"])
        else:
            assert o["duration_ns"] is None or math.isnan(o["duration_ns"])  # not in a body-only page: never 0


def test_a_details_page_of_picked_metrics_no_section_shows(ref: dict[str, pd.DataFrame]) -> None:
    """`--page details --metrics <NERSC's list>` of a report whose sections hold none of them: ncu prints every
    launch's rule results and no metric row (it was refused: "rule result for launch ID 0 ... which has no metric
    rows"). Its 16 launches are read from the rule rows, each with its kernel, and ncu's rules stand; no figure is
    made up (no verdict, no duration)."""
    path = _path("2024.2", "micro_roof.details-picked")
    a = analysed(path)
    got = _verdicts(a)
    assert set(got.index) == _file_ids(path) and len(got) == 16
    assert (got["kernel"] == ref["details"].loc[got.index, "kernel"]).all()
    assert got["limiter"].isna().all() and got["duration_ns"].isna().all()
    # ... and why: nothing measured (the reason was empty, the terminal's row "unclassified" with no line under it)
    assert (a.verdicts["reason"] == "no verdict: hbm, l2, l1, compute not measured").all()
    assert set(a.report.rules["launch_id"].astype(int)) == set(range(16))
    assert "SOLBottleneck" in set(a.report.rules["rule"])
    # ncu's hints fired and none of ours could: the terminal says whose did not, and where ncu's are (no estimate
    # of theirs leads a kernel's hints, so the table has no First hint column: it pointed there)
    text = " ".join(render_terminal(a).split())
    assert "First hint" not in text
    assert (
        "No hint of this tool fired (ncu's rules did: the HTML report and --format json list them), but some could "
        "not be checked" in text
    )


@pytest.mark.parametrize("flavour", ["summary-per-kernel", "summary-per-nvtx", "summary-per-gpu"])
def test_2024_2_summaries_give_each_kernels_verdict(flavour: str, ref: dict[str, pd.DataFrame]) -> None:
    """A summary page has one row per kernel (per NVTX range) with its invocations; its verdict is the one
    every launch of that kernel gets from the 2025.3 details page."""
    a = analysed(_path("2024.2", f"micro_roof.{flavour}"))
    rows = _verdicts(a)
    inv = a.launches.set_index("launch_id")["invocations"]
    per_launch = ref["details"]
    assert int(inv.sum()) == 16
    assert set(rows["kernel"]) == set(per_launch["kernel"])
    for lid, row in rows.iterrows():
        mine = per_launch[per_launch["kernel"] == row["kernel"]]
        assert len(mine) == int(inv.loc[lid])
        for col in ("limiter", "regime", "hints"):
            want = {tuple(x) if col == "hints" else x for x in mine[col]}
            got = tuple(row[col]) if col == "hints" else row[col]
            assert want == {got}, (flavour, row["kernel"], col, got, want)
        assert _close(row["utilization"], float(mine["utilization"].mean()))


# ------------------------------------------------------------------------------------------ gene_dzv


GENE = {
    "public csv (ncu 2020.1)": PUBLIC / "v100_summit_gene_dzv.csv",
    "ncu-rep": PUBLIC / "v100_summit_gene_dzv.ncu-rep",
    **{
        f"{v} {f}": _path(v, f"gene_dzv.{f}")
        for v in ("2022.3", "2024.2")
        for f in (
            "details",
            "details-base",
            "details-fp",
            "details-function",
            "details-mangled",
            "details-nvtx-rename",
            "raw",
            "raw-base",
            "raw-fp",
            "raw-instances",
            "summary-per-nvtx",
        )
    },
    "2024.2 details-all": _path("2024.2", "gene_dzv.details-all"),
    "2024.2 raw-instance-details": _path("2024.2", "gene_dzv.raw-instance-details"),
}


@pytest.mark.parametrize("name", list(GENE))
def test_gene_dzv_exports_agree(name: str) -> None:
    """4 launches; duration = cycles / rate and FP64 FLOP/s = (dadd + dmul + 2 dfma) / duration by hand from
    the 2020.1 CSV's cells, within the printing of each export; no settled verdict anywhere (no byte counts)."""
    a = analysed(GENE[name])
    v = a.verdicts.set_index("launch_id")
    dur = a.quantities["duration"].droplevel([0, 1])
    roof = a.roofline
    fp64 = roof[((roof["precision"] == "fp64") & (roof["level"] == "dram")).to_numpy()].set_index("launch_id")
    assert sorted(dur.index) == [0, 1, 2, 3]
    for lid, (cycles, rate, dadd, dfma, dmul) in CELLS.items():
        duration = cycles / rate
        assert math.isclose(float(dur.loc[lid]), duration, rel_tol=REL), (name, lid)
        flops = (dadd + dmul + 2 * dfma) / duration
        assert math.isclose(float(fp64.loc[lid, "achieved_flops"]), flops, rel_tol=REL), (name, lid)
        assert pd.isna(v.loc[lid, "limiter"]) and pd.isna(v.loc[lid, "regime"])
        assert {"hbm", "l2", "l1"} <= set(str(v.loc[lid, "unmeasured"]).split(", "))


@pytest.mark.parametrize(
    "path",
    [_path(v, f"gene_dzv.{f}") for v in ("2022.3", "2024.2") for f in ("summary-per-kernel", "summary-per-gpu")],
    ids=lambda p: f"{p.parent.name} {p.name}",
)
def test_gene_dzv_summary_per_kernel(path: Path) -> None:
    """One kernel, 4 invocations, its mean duration the mean of the four by hand."""
    a = analysed(path)
    assert len(a.launches) == 1 and int(a.launches["invocations"].iloc[0]) == 4
    mean = sum(c / r for c, r, *_ in CELLS.values()) / 4
    assert math.isclose(float(a.quantities["duration"].iloc[0]), mean, rel_tol=REL)
