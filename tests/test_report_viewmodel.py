"""The report's view model: what goes into each figure, table and panel, checked against the analysis frames of
the real samples (counts, sums and rows taken straight from the frames, not from the code under test)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from _analyses import HOSTILE, all_missing, hostile, no_launches, sample
from conftest import data

import ncu_roofline
from ncu_roofline.analysis import Analysis, analyze
from ncu_roofline.report import fmt
from ncu_roofline.report.viewmodel import NOT_COLLECTED, build_view
from ncu_roofline.vocabulary import LIMITERS, REGIMES


def test_header_of_the_training_step() -> None:
    a = sample("train_step.raw.csv")
    v = build_view(a)
    h = v.header
    assert v.title == "train_step.raw.csv.gz"
    assert (h.launches, h.kernels) == (382, a.launches["kernel_name"].nunique())
    assert h.gpus == ("NVIDIA H200 (CC 9.0)",)
    assert h.gpu_time_ns == pytest.approx(a.launches["duration_ns"].sum())
    assert h.untimed_launches == 0
    assert [s.flavour for s in h.sources] == ["raw"]


def test_time_by_limiter_and_regime() -> None:
    a = sample("train_step.raw.csv")
    v = build_view(a)
    # every limiter, even with no time, then the time no roof holds: latency- and launch-bound launches
    assert [t.key for t in v.by_limiter] == [*LIMITERS, "latency", "launch"]
    assert [t.key for t in v.by_regime] == list(REGIMES)
    joined = a.verdicts.assign(duration_ns=a.launches["duration_ns"].to_numpy())
    for t in v.by_limiter:
        if t.key in ("latency", "launch"):
            mine = joined[joined["regime"] == t.key]
        else:
            mine = joined[(joined["limiter"] == t.key) & (joined["regime"] == "bound")]
        assert t.launches == len(mine)
        assert t.duration_ns == pytest.approx(mine["duration_ns"].sum())
    assert sum(t.launches for t in v.by_limiter) == 382
    # the lead names the largest of all rows
    top = max(v.by_limiter, key=lambda t: t.share or 0)
    assert top.key == "latency"
    assert any(line.startswith("Latency-bound launches hold the most GPU time") for line in v.lead)
    assert sum(t.share or 0 for t in v.by_regime) == pytest.approx(1.0)
    assert sum(t.launches for t in v.by_regime) == 382


def test_kernel_table_has_one_row_per_kernel_and_every_launch_once() -> None:
    a = sample("train_step.raw.csv")
    v = build_view(a)
    assert len(v.kernels) == a.launches["kernel_name"].nunique() == 48
    rows = sorted(j for k in v.kernels for j in k.launch_rows)
    assert rows == list(range(382)) == [r.position for r in v.launches]
    for k in v.kernels:
        assert {v.launches[j].kernel for j in k.launch_rows} == {k.index}
        names = {a.launches["kernel_name"].iloc[j] for j in k.launch_rows}
        assert names == {k.kernel_name}
        assert k.launches == len(k.launch_rows)
    # sorted by GPU time; the first is the bf16->fp32 copy of the backward pass, 63 launches
    d = [k.duration_ns for k in v.kernels]
    assert d == sorted(d, reverse=True)
    counts = a.launches.groupby("kernel_name")["duration_ns"].agg(["sum", "size"]).sort_values("sum")
    top = v.kernels[0]
    assert top.kernel_name == counts.index[-1] and top.launches == counts["size"].iloc[-1] == 63
    assert top.display_name == "unrolled_elementwise_kernel<direct_copy_kernel_cuda>"
    assert top.nvtx == "ToCopyBackward0"
    assert len({k.display_name for k in v.kernels}) == len(v.kernels)
    assert v.top_kernels == tuple(range(10))


def test_launch_rows_carry_the_verdicts() -> None:
    a = sample("train_step.raw.csv")
    v = build_view(a)
    for i in (0, 100, 381):
        r, lv, vd = v.launches[i], a.launches.iloc[i], a.verdicts.iloc[i]
        assert (r.launch_id, r.limiter, r.regime) == (lv["launch_id"], vd["limiter"], vd["regime"])
        assert r.peak_fraction == pytest.approx(vd["utilization"])
        assert r.duration_ns == pytest.approx(lv["duration_ns"])
        assert r.nvtx_path == lv["nvtx_path"] and "seq =" not in (r.nvtx_op or "")
    first = v.launches[0]
    assert first.grid == "(4096, 1, 1)" and first.block == "(192, 1, 1)"


def _expected_points(a, precision: str) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    r = a.roofline[a.roofline["precision"] == precision]
    ok = (r["achieved_flops"] > 0) & np.isfinite(r["intensity"]) & (r["intensity"] > 0)
    if precision == "fp16":
        # FP16 "work" under 1 % of the FP16 peak and at most the launch's FP32 work (or under 0.1 % with none)
        # is the compiler's HFMA2.MMA register moves, not drawn
        fp32 = a.roofline[a.roofline["precision"] == "fp32"].drop_duplicates("launch_id")
        other = r["launch_id"].map(fp32.set_index("launch_id")["achieved_flops"]).fillna(0.0)
        frac = r["compute_fraction"]
        ok &= ~(((frac < 0.01) & (r["achieved_flops"] <= other)) | (frac < 0.001))
    return r[ok]


def test_roofline_panels_of_the_training_step() -> None:
    a = sample("train_step.raw.csv")
    v = build_view(a)
    panels = {p.precision: p for p in v.rooflines}
    assert list(panels) == ["fp64", "fp32", "fp16", "tensor"]
    # the training step was profiled with the single and half precision charts only
    assert panels["fp64"].absent == NOT_COLLECTED and "DoubleRoofline" in (panels["fp64"].note or "")
    assert panels["tensor"].absent == NOT_COLLECTED and "--set roofline" in (panels["tensor"].note or "")
    for prec in ("fp32", "fp16"):
        p = panels[prec]
        exp = _expected_points(a, prec)
        assert p.note is None
        assert len(p.points) == len(exp)
        assert p.launches == exp["launch_id"].nunique()
        assert sorted(p.points.intensity) == pytest.approx(sorted(exp["intensity"]))
        assert sorted(p.points.flops) == pytest.approx(sorted(exp["achieved_flops"]))
        # each launch's points are together, DRAM then L2 then L1
        for i in range(0, len(p.points), 3):
            assert p.points.level[i : i + 3] == ["dram", "l2", "l1"]
            assert len(set(p.points.launch[i : i + 3])) == 1
        (roof,) = p.roofs
        rows = a.roofline[(a.roofline["precision"] == prec) & (a.roofline["launch_id"] == roof.launch_id)]
        assert roof.peak_flops == rows["peak_flops"].iloc[0]
        assert [m.level for m in roof.memory] == ["dram", "l2", "l1"]
        for m in roof.memory:
            row = rows[rows["level"] == m.level].iloc[0]
            assert (m.peak_bytes_per_s, m.ridge_intensity) == (row["peak_bytes_per_s"], row["ridge_intensity"])
        plotted = exp[exp["level"] == "dram"]["peak_flops"]
        assert (roof.peak_flops_min, roof.peak_flops_max) == (plotted.min(), plotted.max())
        assert roof.peak_flops == sorted(plotted)[(len(plotted) - 1) // 2]  # the median launch's roofs


def test_roofline_of_the_micro_benchmarks() -> None:
    a = sample("micro_full.raw.csv")
    v = build_view(a)
    panels = {p.precision: p for p in v.rooflines}
    fp64 = panels["fp64"]
    assert fp64.launches == 1 and set(fp64.points.name) == {"fp64_fma"}
    tensor = panels["tensor"]
    # wmma's mma.sync (HMMA) roof, ncu's sm__inst_executed_pipe_tensor_op_hmma... peak: 652 TFLOP/s on the H200,
    # not the warpgroup MMA's (HGMMA, 978): the label names the instruction
    assert set(tensor.points.name) == {"wmma_bf16"} and tensor.roofs[0].label == "Tensor BF16 HMMA (mma.sync)"


def test_tensor_panel_has_one_roof_per_data_type_and_instruction() -> None:
    v = build_view(sample("llm_full.raw.csv"))
    tensor = next(p for p in v.rooflines if p.precision == "tensor")
    assert [r.label for r in tensor.roofs] == ["Tensor BF16 HGMMA (wgmma)", "Tensor FP64"]
    assert tensor.roofs[0].peak_flops > 10 * tensor.roofs[1].peak_flops


def test_kernel_diagnosis_with_our_hints() -> None:
    a = sample("micro_full.raw.csv")
    v = build_view(a)
    k = {k.display_name: k for k in v.kernels}
    spill = k["spill_heavy"]
    (h,) = [h for h in spill.hints if h.hint == "register_spilling"]
    assert h.source == "ncu-roofline" and h.severity == "high" and h.launches == 1
    assert h.evidence[0]["metric"] == "sass__inst_executed_register_spilling"
    assert h.advice and "launch_bounds" in h.advice
    assert spill.first_hint is h
    (strided,) = [h for h in k["strided_read"].hints if h.hint == "uncoalesced_global_access"]
    # the estimate is ncu's own (its UncoalescedGlobalAccess rule gives strided_read "global","74.33") capped
    # at the headroom to the DRAM roof the launch runs at (ncu's dram__throughput 75.9 %)
    ncu = sample("micro_full.details.csv").report.rules
    rule = ncu[(ncu["launch_id"] == 1) & (ncu["rule"] == "UncoalescedGlobalAccess")]["speedup"].iloc[0]
    dram = float(a.quantities.reset_index().loc[1, "dram_throughput_pct"]) / 100
    assert strided.estimated_speedup == pytest.approx(min(rule / 100.0, 1 - dram), abs=5e-3)
    # utilisation per unit: the speed-of-light units first, from the analysis' own figures
    # utilisation per unit: the verdict's per-limiter scores first, then the classifier's unit table order
    units = [u.unit for u in spill.utilization]
    assert units[:4] == ["limiter_hbm", "limiter_l2", "limiter_l1", "limiter_compute"]
    by_unit = {u.unit: u.value for u in spill.utilization}
    mine = a.utilization[a.utilization["launch_id"] == 9].set_index("unit")["value"]
    for unit in ("l2", "dram", "sm", "limiter_l2"):
        assert by_unit[unit] == pytest.approx(mine[unit])
    # idle pipes are left out; busy ones kept with the analysis' own value
    assert all(not u.unit.startswith("pipe_") or u.value >= 0.005 for u in spill.utilization)
    tiny = k["tiny_launch"]
    assert tiny.launches == 4 and len(tiny.launch_rows) == 4


def test_findings_rank_hints_by_the_time_they_could_recover() -> None:
    a = sample("llm_full.raw.csv")
    v = build_view(a)
    assert v.findings
    ours = a.hints[a.hints["source"] == "ncu-roofline"]
    dur = a.launches.set_index("launch_id")["duration_ns"]
    total = float(dur.sum())
    mine = [f for f in v.findings if f.source != "ncu"]
    for f in mine:  # recoverable GPU time: the sum of estimate x duration over the launches it fires on
        fired = ours[ours["hint"] == f.hint]
        gain = fired["estimated_speedup"].to_numpy(dtype=float) * dur.loc[fired["launch_id"]].to_numpy(dtype=float)
        if np.isnan(gain).all():  # no estimate (launch overhead): nothing to rank by
            assert f.recoverable_share is None
        else:
            assert f.recoverable_share == pytest.approx(float(np.nansum(gain)) / total)
        # ... and once the work it counts is gone (where the fix removes work)
        less = fired["estimated_speedup_less_work"].to_numpy(dtype=float) * dur.loc[fired["launch_id"]].to_numpy(
            dtype=float
        )
        if np.isnan(less).all():
            assert f.recoverable_less_work_share is None
        else:
            assert f.recoverable_less_work_share == pytest.approx(float(np.nansum(less)) / total)
    # ranked by the larger of the two
    gains = [max(f.recoverable_share or 0.0, f.recoverable_less_work_share or 0.0) for f in mine]
    assert gains == sorted(gains, reverse=True)
    # the FP32 SGEMM (half the LLM's GPU time) leads: fp32_instead_of_tensor, not the 3 % tails
    assert mine[0].hint == "fp32_instead_of_tensor"
    for f in v.findings:
        fired = ours[ours["hint"] == f.hint]
        assert f.launches == fired["launch_id"].nunique()
        names = a.launches.set_index("launch_id").loc[fired["launch_id"].unique(), "kernel_name"]
        assert f.kernels == names.nunique()
        assert list(f.top_kernels) == sorted(f.top_kernels)  # kernels are listed by GPU time, so are these
    # the uncoalesced layer norm: ncu's own UncoalescedGlobalAccess rule fires on llm_full's launch 8 too
    assert "uncoalesced_global_access" in {f.hint for f in v.findings}


def test_ncu_rules_are_kept_apart_from_our_hints() -> None:
    a = sample("micro_full.details.csv")
    v = build_view(a)
    assert all(h.source == "ncu-roofline" for k in v.kernels for h in k.hints)
    assert all(h.source == "ncu" for k in v.kernels for h in k.ncu_rules)
    bank = next(k for k in v.kernels if k.display_name == "smem_bank_conflict")
    rules = {h.hint for h in bank.ncu_rules}
    assert "ncu:SharedMemoryConflicts" in rules
    expected = set(a.hints[(a.hints["launch_id"] == 4) & (a.hints["source"] == "ncu")]["hint"])
    assert rules == expected
    speedups = [round(h.estimated_speedup or 0, 3) for h in bank.ncu_rules]  # ranked to the 0.1 % printed
    assert speedups == sorted(speedups, reverse=True)


def test_a_near_zero_ncu_estimate_ranks_with_the_rules_that_give_none() -> None:
    # fp32_fma writes no compressible memory: ncu's MemoryL2Compression estimates 3e-7 of its time (its details
    # page), 0.0 % as printed; it no longer leads the kernel's rules, which give none (severity, then name, decide)
    v = build_view(sample("micro_full.details.csv"))
    fma = next(k for k in v.kernels if k.display_name == "fp32_fma")
    tiny = next(h for h in fma.ncu_rules if h.hint == "ncu:MemoryL2Compression")
    assert tiny.estimated_speedup is not None and 0 < tiny.estimated_speedup < 5e-4
    assert [h.hint for h in fma.ncu_rules] == ["ncu:AchievedOccupancy", "ncu:HighPipeUtilization", tiny.hint]


def test_lead_points_at_latency_bound_time_and_ranges() -> None:
    v = build_view(sample("train_step.raw.csv"))
    text = " ".join(v.lead)
    assert "latency-bound" in text and "AddmmBackward0" in text
    assert v.ranges[0].range == "AddmmBackward0"


def test_view_survives_missing_values_everywhere() -> None:
    base = sample("micro_full.raw.csv")
    v = build_view(all_missing(base))
    assert v.header.gpu_time_ns is None and v.header.untimed_launches == 16
    assert all(k.limiter is None and k.duration_ns is None for k in v.kernels)
    assert all(p.note for p in v.rooflines)
    assert [t.key for t in v.by_limiter][-1] is None  # the unclassified launches
    assert v.lead == ("No launch has a duration: the report has no GPU time to attribute.",)
    # no GPU time, so no share of it: not 0 % for the values no launch has ("launch 0.0%" it said)
    assert all(t.share is None and t.duration_ns is None for t in (*v.by_limiter, *v.by_regime))


def test_view_of_no_launches() -> None:
    v = build_view(no_launches(sample("micro_full.raw.csv")))
    assert v.kernels == () and v.launches == () and v.header.launches == 0


def test_new_verdict_columns_and_values_are_tolerated() -> None:
    base = sample("micro_full.raw.csv")
    verdicts = base.verdicts.copy()
    verdicts["confidence"] = 0.5
    verdicts.loc[0, "limiter"] = "tensor_pipe"  # a limiter this report does not know yet
    v = build_view(replace(base, verdicts=verdicts))
    keys = [t.key for t in v.by_limiter]
    assert keys[:4] == list(LIMITERS) and "tensor_pipe" in keys


def test_hostile_names_are_kept_verbatim_in_the_model() -> None:
    v = build_view(hostile(sample("micro_full.raw.csv")))
    assert any(k.display_name == HOSTILE for k in v.kernels)


def test_formatting() -> None:
    assert fmt.duration_ns(8_004_960) == "8.00 ms" and fmt.duration_ns(868_064) == "868 µs"
    assert fmt.duration_ns(2_110) == "2.11 µs" and fmt.duration_ns(None) == fmt.MISSING
    assert fmt.si(4.79e12, "B/s") == "4.79 TB/s" and fmt.si(0.5, "FLOP/byte") == "0.500 FLOP/byte"
    assert fmt.si(999.9e9, "FLOP/s") == "1.00 TFLOP/s"
    assert fmt.percent(0.4247) == "42.5%" and fmt.percent(float("nan")) == fmt.MISSING
    assert fmt.percent(pd.NA) == fmt.MISSING and fmt.text(pd.NA) is None and fmt.integer(np.int64(3)) == 3
    # above zero but under the least step shown: not "0%", which reads as nothing at all
    assert fmt.percent(0.004, 0) == "<1%" and fmt.percent(0.0004) == "<0.1%" and fmt.percent(0.005, 0) == "<1%"
    assert fmt.percent(0.006, 0) == "1%" and fmt.percent(0.0, 0) == "0%" and fmt.percent(0.00051) == "0.1%"


def test_the_fp16_chart_shows_fp16_work_only() -> None:
    # microbench.cu: half_hfma2 (7) is built to do FP16 FMAs (50 % of the FP16 peak); spill_heavy (9) is an
    # FP32 kernel whose HFMA2.MMA register moves ncu counts as 450 MFLOP/s of FP16 (0.0003 % of the peak).
    # llm_ops.py: the FP32 SGEMM (11) and the BF16 layernorm/GELU (8, 9) are not FP16 work either.
    micro = build_view(sample("micro_full.raw.csv"))
    (fp16,) = [p for p in micro.rooflines if p.precision == "fp16"]
    assert set(fp16.points.launch_id) == {7}
    llm = build_view(sample("llm_full.raw.csv"))
    (fp16,) = [p for p in llm.rooflines if p.precision == "fp16"]
    assert not {8, 9, 11} & set(fp16.points.launch_id)


def test_kernels_say_what_was_not_checked() -> None:
    # llm_full's default details page has no FLOP counts: the compute-bound softmax (5) cannot be told to do
    # non-FP work, and says which section would tell (the raw page of the same run measures 17 % of FP32)
    a = sample("llm_full.details.csv")
    v = build_view(a)
    name = a.launches.set_index("launch_id").loc[5, "display_name"]
    (k,) = [k for k in v.kernels if k.display_name == name]
    assert k.not_checked is not None
    assert "non_fp_compute: FLOP counts" in k.not_checked
    assert "not on this details page (the report's raw page may have it, else --section" in k.not_checked


@pytest.mark.parametrize("name", ["micro_full.raw.csv", "llm_full.raw.csv"])
def test_one_percent_of_roof_everywhere(name: str) -> None:
    # the launch table, the chart hover and the JSON roof_fraction show the same number: the limiter's score
    # (wmma_bf16: SM 68 %, although its tensor point sits at 9.7 % of the tensor roof)
    a = sample(name)
    v = build_view(a)
    rf = a.verdicts["roof_fraction"].to_numpy(dtype=float)
    assert np.allclose(rf, 1 - a.verdicts["headroom"].to_numpy(dtype=float), equal_nan=True)
    for lr in v.launches:
        assert (lr.peak_fraction is None and np.isnan(rf[lr.position])) or lr.peak_fraction == pytest.approx(
            rf[lr.position]
        )
    for panel in v.rooflines:
        for p, frac in zip(panel.points.launch, panel.points.roof_fraction, strict=True):
            assert frac == pytest.approx(rf[p])
    # beside it, each point's own place: achieved over attainable at its level, the roofline frame's figure
    r = a.roofline
    for panel in v.rooflines:
        pts = panel.points
        for p, level, own in zip(pts.launch, pts.level, pts.point_fraction, strict=True):
            lid = v.launches[p].launch_id
            row = r[(r["launch_id"] == lid) & (r["level"] == level) & (r["precision"] == panel.precision)]
            assert own == pytest.approx(float(row["roof_fraction"].iloc[0]))
    single = [k for k in v.kernels if k.launches == 1]
    for k in single:
        assert k.peak_fraction == pytest.approx(rf[k.launch_rows[0]])


def test_an_ncu_rule_leads_a_kernel_only_with_an_estimate() -> None:
    """micro_full's details page: fp32_fma (99 % of its FP32 roof) has no hint of ours and ncu's AchievedOccupancy
    with a "local" estimate (no share of the launch): no first hint, the rule stays in its card; stream_triad's
    CPIStall, a whole-launch estimate of 13 %, leads its row."""
    view = build_view(sample("micro_full.details.csv"))
    by_name = {k.display_name: k for k in view.kernels}
    fp32 = by_name["fp32_fma"]
    assert not fp32.hints and fp32.ncu_rules and fp32.first_hint is None
    assert all((r.estimated_speedup or 0.0) < 0.01 for r in fp32.ncu_rules[:1])
    triad = by_name["stream_triad"].first_hint
    assert triad is not None and triad.hint == "ncu:CPIStall" and (triad.estimated_speedup or 0.0) >= 0.01


def test_a_kernel_name_of_several_reports_says_its_report() -> None:
    # micro_roof's details and raw pages read together: each kernel twice, told apart as "wmma_bf16" and
    # "wmma_bf16 (2)" (which file is "(2)"?); a kernel name of one report alone stays as it is
    a = analyze(ncu_roofline.read([data("micro_roof.details.csv"), data("micro_roof.raw.csv")]))
    names = {k.display_name for k in build_view(a).kernels}
    assert {"wmma_bf16 [micro_roof.details]", "wmma_bf16 [micro_roof.raw]"} <= names
    assert not any(n.endswith(" (2)") for n in names)
    assert "wmma_bf16" in {
        k.display_name for k in build_view(analyze(ncu_roofline.read(data("micro_roof.raw.csv")))).kernels
    }


def _on(base: Analysis, tables: list[str | None], cc: str | None = None) -> Analysis:
    """``base`` with its launches' GPU table entries replaced, in turn, by ``tables`` (what identifies a GPU: the
    label follows the entry's memory), and the compute capability of those without one by ``cc``."""
    launches = base.launches.copy()
    launches["device_table"] = pd.array([tables[i % len(tables)] for i in range(len(launches))], dtype="string")
    if cc is not None:
        launches["cc"] = launches["cc"].where(launches["device_table"].notna(), cc)
    return replace(base, launches=launches)


@pytest.mark.parametrize(
    ("tables", "cc", "label"),
    [
        (["NVIDIA H200"], None, "HBM"),  # HBM3e
        ([None], None, "HBM"),  # no table entry, CC 9.0: every GPU of the table of that CC has HBM
        ([None], "8.9", "DRAM"),  # ... CC 8.9: L4, L40S, RTX 4090, GDDR6 (it was "HBM")
        ([None], "11.0", "DRAM"),  # ... a CC the table has no GPU of: its memory is not known (it was "HBM")
        (["Tesla T4"], None, "DRAM"),  # GDDR6 (Colab's GPU)
        (["Tesla T4", "NVIDIA GeForce RTX 4090"], None, "DRAM"),
        (["Tesla T4", "NVIDIA H200"], None, "HBM/DRAM"),
        (["Tesla T4", None], "7.5", "DRAM"),  # a GPU the table does not name beside a GDDR one, both Turing
        (["NVIDIA H200", None], "12.1", "HBM/DRAM"),  # ... beside an HBM one, of a CC the table does not know
    ],
)
def test_the_dram_limiter_is_called_after_the_gpus_memory(tables: list[str | None], cc: str | None, label: str) -> None:
    """ "HBM" on a T4 or a GeForce card said what it does not have: the DRAM limiter (``hbm`` in the frames and the
    JSON, unchanged) is named after the memory the device table gives its GPUs, in every rendering."""
    from ncu_roofline.devices import DEVICES

    specs = {d.name: d for d in DEVICES}
    assert all(t is None or t in specs for t in tables)
    assert specs["Tesla T4"].hbm is False and specs["NVIDIA H200"].hbm is True
    view = build_view(_on(sample("micro_full.raw.csv"), tables, cc))
    assert view.limiter_labels["hbm"] == label
    assert next(t.label for t in view.by_limiter if t.key == "hbm") == label
    assert all(view.limiter_label(k.limiter) == label for k in view.kernels if k.limiter == "hbm")
    stream = next(k for k in view.kernels if k.display_name == "stream_triad")
    assert stream.limiter == "hbm"  # the key stays
    uses = {u.label for k in view.kernels for u in k.utilization}
    assert f"score as limiter: {label}" in uses


def test_every_rendering_of_a_gddr_report_says_dram() -> None:
    from ncu_roofline.report.exports import render_markdown
    from ncu_roofline.report.html import render_html
    from ncu_roofline.report.terminal import render_terminal

    t4 = _on(sample("micro_full.raw.csv"), ["Tesla T4"])
    for text in (render_terminal(t4, width=120), render_markdown(t4), render_html(t4)):
        assert "DRAM" in text and "HBM" not in text
    assert '"limiter":{"compute":"Compute","hbm":"DRAM"' in render_html(t4)  # the page's script labels
    assert "HBM" in render_terminal(sample("micro_full.raw.csv"), width=120)


@pytest.mark.parametrize(
    ("now", "less", "decimals", "expected"),
    [
        (0.004, 0.963, 0, ("96%", "<1%")),  # at its roof: less work recovers more, and leads
        (0.07, None, 0, ("7%", None)),  # no less-work figure
        (0.07, 0.0704, 0, ("7%", None)),  # the same as printed: one figure
        (0.5, 0.3, 1, ("50.0%", None)),  # the same work done faster recovers more
        (None, 0.5, 1, None),  # no estimate today: none given
    ],
)
def test_a_hints_estimates_lead_with_the_larger_as_printed(
    now: float | None, less: float | None, decimals: int, expected: tuple[str, str | None] | None
) -> None:
    """One rule for the terminal's and Markdown's findings and the HTML page's hint cards (the page's script worded
    its cards with a rule of its own)."""
    assert fmt.less_work_first(now, less, decimals) == expected
