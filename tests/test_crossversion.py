"""Cross-version equality: the same report exported by different ncu versions gives the same launches, values
(within the printed rounding) and verdicts (limiter, regime, hints).

- ``micro_roof.ncu-rep`` (ncu 2025.3.1, H200, 16 launches) exported by ncu 2024.2.0 in every flavour
  (``../shared/ncu-wild/ncu-2024.2``) against the 2025.3.1 exports (``../shared/ncu-samples/h200-micro``);
- ``v100_summit_gene_dzv.ncu-rep`` (ncu 2020.1, V100, 4 launches) exported by ncu 2022.3.0
  (``../shared/ncu-wild/ncu-2022.3``) against the public 2020.1 CSV and the report itself.

The reference side is the other version's export of the same report, so a difference is a dialect the readers
or the label table do not understand the same way.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from test_quantities import CELLS

import ncu_roofline
from ncu_roofline.analysis import Analysis, analyze

SAMPLES = Path("/work/shared/ncu-samples/h200-micro")
V2024 = Path("/work/shared/ncu-wild/ncu-2024.2")
V2022 = Path("/work/shared/ncu-wild/ncu-2022.3")
PUBLIC = Path("/work/shared/ncu-wild/public")

#: 2024.2 flavour -> the 2025.3 export of the same flavour (details-names: the 2025.3 report has no names
#: export; its details page shows the same header metrics by label).
PAIRS = {
    "details": "details",
    "details-names": "details",
    "details-all": "details-all",
    "raw": "raw",
    "raw-base": "raw",
}
#: Print rounding: a details page prints 3-4 significant digits, the raw page 6 decimals.
REL = 0.005


def _file_ids(path: Path) -> set[int]:
    """Launch IDs in an export, read off the CSV itself (golden: the file, not the reader)."""
    with path.open(newline="") as fh:
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
    return {f: _verdicts(analyze(ncu_roofline.read(SAMPLES / f"micro_roof.{f}.csv"))) for f in set(PAIRS.values())}


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(float(a), float(b), rel_tol=REL, abs_tol=1e-4)


@pytest.mark.parametrize("flavour", list(PAIRS))
def test_2024_2_flavour_gives_the_2025_3_verdicts(flavour: str, ref: dict[str, pd.DataFrame]) -> None:
    path = V2024 / f"micro_roof.{flavour}.csv"
    old = _verdicts(analyze(ncu_roofline.read(path)))
    new = ref[PAIRS[flavour]]
    ids = _file_ids(path)
    assert set(old.index) == ids
    # every flavour has all 16 launches except the 2024.2 --print-details all export, which ncu wrote for
    # launch 0 only (4,815 rows, one ID): there the launches it has are compared
    assert len(ids) == 16 or flavour == "details-all"
    for lid in sorted(ids):
        o, n = old.loc[lid], new.loc[lid]
        for col in ("kernel", "limiter", "compute_pipe", "regime", "hints"):
            assert o[col] == n[col], (flavour, lid, col, o[col], n[col])
        assert _close(o["utilization"], n["utilization"]), (flavour, lid, o["utilization"], n["utilization"])
        assert _close(o["duration_ns"], n["duration_ns"]), (flavour, lid, o["duration_ns"], n["duration_ns"])


@pytest.mark.parametrize("flavour", ["summary-per-kernel", "summary-per-nvtx"])
def test_2024_2_summaries_give_each_kernels_verdict(flavour: str, ref: dict[str, pd.DataFrame]) -> None:
    """A summary page has one row per kernel (per NVTX range) with its invocations; its verdict is the one
    every launch of that kernel gets from the 2025.3 details page."""
    a = analyze(ncu_roofline.read(V2024 / f"micro_roof.{flavour}.csv"))
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
    "2022.3 details": V2022 / "gene_dzv.details-nvtx.csv",
    "2022.3 raw": V2022 / "gene_dzv.raw.csv",
    "2022.3 raw base": V2022 / "gene_dzv.raw-base.csv",
    "2022.3 summary per nvtx": V2022 / "gene_dzv.summary-per-nvtx.csv",
}


@pytest.mark.parametrize("name", list(GENE))
def test_gene_dzv_exports_agree(name: str) -> None:
    """4 launches; duration = cycles / rate and FP64 FLOP/s = (dadd + dmul + 2 dfma) / duration by hand from
    the 2020.1 CSV's cells, within the printing of each export; no settled verdict anywhere (no byte counts)."""
    a = analyze(ncu_roofline.read(GENE[name]))
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


def test_gene_dzv_summary_per_kernel() -> None:
    """One kernel, 4 invocations, its mean duration the mean of the four by hand."""
    a = analyze(ncu_roofline.read(V2022 / "gene_dzv.summary-per-kernel.csv"))
    assert len(a.launches) == 1 and int(a.launches["invocations"].iloc[0]) == 4
    mean = sum(c / r for c, r, *_ in CELLS.values()) / 4
    assert math.isclose(float(a.quantities["duration"].iloc[0]), mean, rel_tol=REL)
