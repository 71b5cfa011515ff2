"""Quantities from whatever the file has: the NERSC recipe (cycles, clock, instruction counts), recorded per
figure.

Golden values are written out by hand from the cells of the public V100 export
(``../shared/ncu-wild/public/v100_summit_gene_dzv.csv``, ncu 2020.1, ``--units base``): duration = cycles /
rate and FP64 FLOP/s = (dadd + dmul + 2 x dfma) / duration, as the NERSC roofline recipe defines them.
"""

from __future__ import annotations

import math
from pathlib import Path

import derive as pages
import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_ROOT, data, read_shared

import ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.quantities import RECIPES, derive, quantities, recipes

WILD = SHARED_ROOT / "ncu-wild"
V100_CSV = WILD / "public" / "v100_summit_gene_dzv.csv"
V100_RAW = WILD / "ncu-2022.3" / "gene_dzv.raw.csv"
V100_RAW_BASE = WILD / "ncu-2022.3" / "gene_dzv.raw-base.csv"

# The cells of the CSV, launch by launch (ID 0..3): sm__cycles_elapsed.avg [cycle],
# sm__cycles_elapsed.avg.per_second [cycle/second], dadd, dfma, dmul [inst].
CELLS = {
    0: (173_188_849.78, 1_311_197_574.27, 0, 330_301_440, 27_525_120),
    1: (159_966_902.07, 1_311_089_943.08, 0, 330_301_440, 27_525_120),
    2: (159_680_288.97, 1_311_192_791.89, 0, 330_301_440, 27_525_120),
    3: (173_329_169.80, 1_311_217_022.50, 0, 330_301_440, 27_525_120),
}
# By hand: launch 0: 173,188,849.78 / 1,311,197,574.27 = 0.13208452 s;
# (0 + 27,525,120 + 2 x 330,301,440) / 0.13208452 s = 688,128,000 / 0.13208452 = 5.2097567e9 FLOP/s.
HAND_DURATION_0 = 0.13208452
HAND_FP64_0 = 5.2097567e9


@pytest.fixture(scope="module", params=[V100_CSV, V100_RAW, V100_RAW_BASE], ids=["public-csv", "raw", "raw-base"])
def v100(request: pytest.FixtureRequest) -> ncu_roofline.Report:
    return read_shared(request.param)


def test_cells_are_what_the_test_says() -> None:
    """The hand-copied cells above are the file's (guards the golden numbers against a typo)."""
    text = V100_CSV.read_text()
    for cycles, rate, _dadd, dfma, dmul in CELLS.values():
        assert f'"{cycles:,.2f}"' in text and f'"{rate:,.2f}"' in text
        assert f'"{dfma:,}"' in text and f'"{dmul:,}"' in text


def test_nersc_duration_and_fp64_flops(v100: ncu_roofline.Report) -> None:
    q = quantities(v100.values)
    assert len(q) == 4
    for lid, (cycles, rate, dadd, dfma, dmul) in CELLS.items():
        row = q.xs(lid, level="launch_id").iloc[0]
        duration = cycles / rate  # by hand, the NERSC recipe
        assert math.isclose(row["duration"], duration, rel_tol=1e-6)
        flops = (dadd + dmul + 2 * dfma) / duration
        got = derive(v100.values, "fp64_flops")[0][list(q.index.get_level_values("launch_id")).index(lid)]
        assert math.isclose(got, flops, rel_tol=1e-6)
    first = q.xs(0, level="launch_id").iloc[0]
    assert math.isclose(first["duration"], HAND_DURATION_0, rel_tol=1e-6)


def test_nersc_recipe_is_recorded(v100: ncu_roofline.Report) -> None:
    r = recipes(v100.values)
    assert (r["duration"] == "SM cycles / SM clock").all()
    assert (r["fp64_flops"] == "instruction counts / duration (NERSC)").all()
    assert r["fp32_flops"].isna().all()  # not in the file: no recipe, no value
    assert r["dram_bytes_per_s"].isna().all()


def test_nersc_roofline_row_and_launch_duration(v100: ncu_roofline.Report) -> None:
    a = analyze(v100)
    fp64 = a.roofline[(a.roofline["precision"] == "fp64") & (a.roofline["level"] == "dram")]
    fp64 = fp64.sort_values("launch_id")
    assert math.isclose(float(fp64["achieved_flops"].iloc[0]), HAND_FP64_0, rel_tol=1e-6)
    assert (fp64["work_recipe"] == "instruction counts / duration (NERSC)").all()
    assert fp64["achieved_bytes_per_s"].isna().all()  # no byte counts collected: never zero
    ns = a.launches.sort_values("launch_id")["duration_ns"].to_numpy(dtype=float)
    assert math.isclose(ns[0], HAND_DURATION_0 * 1e9, rel_tol=1e-6)
    assert not np.isnan(ns).any()


def test_duration_prefers_the_measured_one() -> None:
    values = pd.DataFrame(
        {
            "gpu__time_duration.sum": [2e-6, np.nan],
            "sm__cycles_elapsed.avg": [1000.0, 3000.0],
            "sm__cycles_elapsed.avg.per_second": [1e9, 1.5e9],
        }
    )
    value, recipe = derive(values, "duration")
    assert value.tolist() == [2e-6, 2e-6]
    assert recipe.tolist() == ["gpu__time_duration.sum", "SM cycles / SM clock"]


def test_gpc_pair_and_byte_counts() -> None:
    values = pd.DataFrame(
        {
            "gpc__cycles_elapsed.max": [2000.0],
            "gpc__cycles_elapsed.avg.per_second": [2e9],
            "dram__bytes.sum": [4e6],
            "lts__t_bytes.sum.per_second": [3e12],
            "l1tex__t_bytes.sum": [8e6],
        }
    )
    d = {f: derive(values, f) for f in RECIPES}
    assert d["duration"][0][0] == pytest.approx(1e-6)
    assert d["dram_bytes_per_s"][0][0] == pytest.approx(4e12)  # 4 MB in 1 us
    assert d["l2_bytes_per_s"][0][0] == pytest.approx(3e12)
    assert d["l1_bytes_per_s"][0][0] == pytest.approx(8e12)
    assert d["l1_bytes_per_s"][1][0] == "l1tex__t_bytes.sum / duration"


def test_fma_counts_twice_and_half_is_packed() -> None:
    values = pd.DataFrame(
        {
            "gpu__time_duration.sum": [1.0],
            "sm__sass_thread_inst_executed_op_fadd_pred_on.sum": [1.0],
            "sm__sass_thread_inst_executed_op_fmul_pred_on.sum": [10.0],
            "sm__sass_thread_inst_executed_op_ffma_pred_on.sum": [100.0],
            "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum": [1.0],
            "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum": [10.0],
            "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum": [100.0],
        }
    )
    assert derive(values, "fp32_flops")[0][0] == 211.0
    assert derive(values, "fp16_flops")[0][0] == 422.0  # HADD2/HMUL2 2, HFMA2 4 (ncu's chart)


def test_tensor_instructions_give_an_estimate_marked_as_such() -> None:
    idx = pd.MultiIndex.from_tuples([("r", 1, 0), ("r", 1, 1)], names=["report", "process_id", "launch_id"])
    values = pd.DataFrame(
        {"gpu__time_duration.sum": [1e-3, 1e-3], "sm__inst_executed_pipe_tensor.sum": [1e6, 1e6]}, index=idx
    )
    peaks = pd.DataFrame(index=idx)
    from ncu_roofline.roofline import roofline

    cc = pd.Series(["7.0", "9.0"], index=idx)
    roof = roofline(values, peaks, cc=cc)
    t = roof[(roof["precision"] == "tensor") & (roof["level"] == "dram")]
    # V100: 512 FLOP per HMMA.884 instruction (ncu's own x512): 1e6 x 512 / 1 ms
    assert float(t["achieved_flops"].iloc[0]) == pytest.approx(512e9)
    assert bool(t["estimate"].iloc[0]) is True
    assert math.isnan(float(t["achieved_flops"].iloc[1]))  # Hopper: no per-instruction figure, no guess


def test_throughput_from_any_pct_of_peak_and_the_metric_is_recorded() -> None:
    values = pd.DataFrame(
        {
            "sm__throughput.avg.pct_of_peak_sustained_active": [40.0],
            "dram__bytes.sum.pct_of_peak_sustained_elapsed": [86.6],
            "lts__t_bytes.sum.pct_of_peak_sustained_elapsed": [30.0],
            "l1tex__t_bytes.sum.pct_of_peak_sustained_elapsed": [12.0],
        }
    )
    q = quantities(values).iloc[0]
    assert q["sm_throughput_pct"] == 40.0
    assert q["dram_throughput_pct"] == 86.6
    assert q["l2_throughput_pct"] == 30.0
    assert q["l1_throughput_elapsed_pct"] == 12.0
    r = recipes(values).iloc[0]
    assert r["dram_throughput_pct"] == "dram__bytes.sum.pct_of_peak_sustained_elapsed"
    assert r["sm_throughput_pct"] == "sm__throughput.avg.pct_of_peak_sustained_active"
    assert pd.isna(r["memory_throughput_pct"])


def test_fp_work_from_instruction_rates() -> None:
    values = pd.DataFrame(
        {
            "sm__sass_thread_inst_executed_op_dadd_pred_on.sum.per_second": [1e9],
            "sm__sass_thread_inst_executed_op_dmul_pred_on.sum.per_second": [2e9],
            "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.per_second": [3e9],
        }
    )
    value, recipe = derive(values, "fp64_flops")
    assert value[0] == pytest.approx(9e9)  # 1 + 2 + 2 x 3
    assert recipe[0] == "instruction rates (.sum.per_second)"


def test_shared_memory_per_block_is_the_whole_or_its_three_parts() -> None:
    # ncu's launch__shared_mem_per_block is a block's static + dynamic + driver shared memory. Where it is not
    # measured (the section files collect the parts), the parts give it; the static part alone, what it fell back
    # on, is not it: launch 10 of the H200 page has 200 KB of dynamic shared memory and no static.
    values = read_shared(SHARED_ROOT / "ncu-samples" / "h200-micro" / "micro_full.raw.csv").values
    whole = values["launch__shared_mem_per_block"].to_numpy()
    static, dynamic, driver = (f"launch__shared_mem_per_block_{p}" for p in ("static", "dynamic", "driver"))
    assert np.array_equal(whole, values[[static, dynamic, driver]].sum(axis=1).to_numpy())
    assert whole[10] == 205_824 and values[static].iloc[10] == 0  # (golden: the page's cells, in Kbyte/block)
    without = values.drop(columns=["launch__shared_mem_per_block"])
    assert np.array_equal(quantities(without, ["shared_mem_per_block"])["shared_mem_per_block"].to_numpy(), whole)
    assert quantities(without.drop(columns=[dynamic]), ["shared_mem_per_block"])["shared_mem_per_block"].isna().all()


def test_blackwells_tensor_core_pipe_counts_as_the_tensor_pipe(tmp_path: Path) -> None:
    """On a B200 (ncu 2025, public raw pages) tcgen05 MMA work shows in sm__pipe_tc_cycles_active (36.3 % on a
    cuDNN sm100 attention kernel whose sm__pipe_tensor_cycles_active reads 3.5 %): the tensor pipe is the busier
    of the two. The real H200 page with that column added as the B200 page has it (36.33 on launch 0, 0
    elsewhere): launch 0's tensor pipe is 36.33 %, every other launch's as ncu measured it."""
    rows = pages.raw_rows(data("micro_full.raw.csv"))
    tc = "sm__pipe_tc_cycles_active.avg.pct_of_peak_sustained_active"
    rows[0].append(tc)
    rows[1].append("%")
    for i, r in enumerate(rows[2:]):
        r.append("36.33" if i == 0 else "0")
    page = tmp_path / "tc.raw.csv"
    page.write_text(pages.write(rows))
    got = analyze(ncu_roofline.read(page)).quantities["pipe_tensor_pct"].to_numpy()
    was = analyze(read_shared(data("micro_full.raw.csv"))).quantities["pipe_tensor_pct"].to_numpy()
    assert was[0] < 36.33 and got[0] == 36.33
    np.testing.assert_array_equal(got[1:], was[1:])
