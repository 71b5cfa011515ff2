"""``duration_ns`` on the reader's ``Report.launches``: each launch's GPU time from its own metrics.

Golden values are ncu's own cells, read by hand from the files: the ``gpu__time_duration.sum`` column of a raw
page, the ``Duration`` rows of a details and a summary page, and, where an export has no duration metric (ncu
2020's NERSC ``--metrics`` recipe), the ratio of its ``sm__cycles_elapsed.avg`` and
``sm__cycles_elapsed.avg.per_second`` cells. The 2019-2021 ``Kernel Time`` column is the wall-clock time the
launch was profiled ("2020-Aug-28 10:25:54"), not a duration, and is not used.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import DATA, data

import ncu_roofline
from ncu_roofline.analysis import analyze


def _ns(report: ncu_roofline.Report, launch_id: int) -> float:
    lv = report.launches
    return float(lv.loc[(lv["launch_id"] == launch_id).to_numpy(), "duration_ns"].iloc[0])


def test_raw_page_duration_is_gpu_time_duration(micro_full: ncu_roofline.Report) -> None:
    # micro_full.raw.csv, column gpu__time_duration.sum (unit row: ms): 0.189408, 0.039136, 0.280640, 2.533472
    for lid, ms in ((0, 0.189408), (1, 0.039136), (2, 0.280640), (3, 2.533472)):
        assert _ns(micro_full, lid) == pytest.approx(ms * 1e6, rel=1e-12)
    assert micro_full.launches["duration_ns"].dtype == np.float64


def test_details_page_duration_is_the_duration_row() -> None:
    # micro_full.details.csv, "GPU Speed Of Light Throughput","Duration": "us","189.41" / "us","39.14" / "ms","2.53"
    r = ncu_roofline.read(data("micro_full.details.csv"))
    for lid, ns in ((0, 189_410.0), (1, 39_140.0), (3, 2_530_000.0)):
        assert _ns(r, lid) == pytest.approx(ns, rel=1e-12)


def test_summary_page_duration_is_the_average() -> None:
    # train_step.summary-per-kernel.csv: the sdpa bprop kernel, 6 invocations, Duration us min 45.25 max 46.50
    # average 45.98: the group's row carries the average
    r = ncu_roofline.read(data("train_step.summary-per-kernel.csv"))
    lv = r.launches
    row = lv[lv["kernel_name"].str.startswith("cudnn_generated_fort_native_sdpa_sm90_flash_bprop").to_numpy()]
    assert len(row) == 1 and int(row["invocations"].iloc[0]) == 6
    assert float(row["duration_ns"].iloc[0]) == pytest.approx(45_980.0, rel=1e-12)


def test_2020_recipe_export_duration_is_cycles_over_clock() -> None:
    # ncu 2020.1 --metrics (NERSC recipe), launch 0: sm__cycles_elapsed.avg "cycle" 173,188,849.78 and
    # sm__cycles_elapsed.avg.per_second "cycle/second" 1,311,197,574.27; no gpu__time_duration.sum
    r = ncu_roofline.read(DATA / "wild" / "public" / "v100_summit_gene_dzv.csv.gz")
    assert _ns(r, 0) == pytest.approx(173_188_849.78 / 1_311_197_574.27 * 1e9, rel=1e-9)
    assert r.launches["duration_ns"].notna().all()


def test_no_duration_metric_means_nan_never_zero() -> None:
    # a100_opinsight_pooling: shared-memory metrics and launch statistics only (no duration, no cycles)
    r = ncu_roofline.read(DATA / "wild" / "public" / "a100_opinsight_pooling.csv.gz")
    assert len(r.launches) == 240
    assert r.launches["duration_ns"].isna().all()


def test_session_page_has_the_column_and_no_launches() -> None:
    r = ncu_roofline.read(data("micro_full.session.csv"))
    assert "duration_ns" in r.launches.columns and len(r.launches) == 0


def test_merged_reports_and_subsets_keep_it(micro_full: ncu_roofline.Report) -> None:
    both = ncu_roofline.read([data("micro_full.raw.csv"), data("micro_full.details.csv")])
    assert len(both.launches) == 32 and both.launches["duration_ns"].notna().all()
    sub = micro_full.subset(micro_full.values.index[:3])
    assert sub.launches["duration_ns"].tolist() == micro_full.launches["duration_ns"].iloc[:3].tolist()


@pytest.mark.parametrize("name", ["micro_full.raw.csv", "train_step.details.csv", "llm_full.summary-per-kernel.csv"])
def test_analysis_reports_the_readers_duration(name: str) -> None:
    r = ncu_roofline.read(data(name))
    a = analyze(r)
    got, want = r.launches["duration_ns"].to_numpy(float), a.launches["duration_ns"].to_numpy(float)
    assert np.array_equal(got, want, equal_nan=True)
    assert not any(math.isnan(x) for x in got)
