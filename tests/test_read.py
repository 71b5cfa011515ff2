"""ncu_roofline.read on every export flavour, checked against the numbers ncu itself wrote."""

from __future__ import annotations

import csv
import gzip
import math
import re
from pathlib import Path

import derive
import numpy as np
import pandas as pd
import pytest
from conftest import DATA, INSTANCE_UNIT_SLIP, SHARED, close_within_rounding, data, read_shared

import ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.model import (
    BODY_COLUMNS,
    LAUNCH_COLUMNS,
    METRIC_COLUMNS,
    RULE_COLUMNS,
    SOURCE_COLUMNS,
    launch_index,
)
from ncu_roofline.units import in_base_units, unit_or_none

MICRO_KERNELS = [
    "stream_triad", "strided_read", "l2_reread", "l1_reread", "smem_bank_conflict", "fp32_fma", "fp64_fma",
    "half_hfma2", "wmma_bf16", "spill_heavy", "low_occupancy", "atomic_hot",
    "tiny_launch", "tiny_launch", "tiny_launch", "tiny_launch",
]  # fmt: skip

ALL_FIXTURES = sorted(p.name for p in DATA.iterdir() if p.name.endswith((".csv", ".csv.gz", ".ncu-rep.gz")))


def _value(report: ncu_roofline.Report, launch_id: int, metric: str) -> float:
    v = report.values
    row = v[v.index.get_level_values("launch_id") == launch_id]
    assert len(row) == 1
    return float(row[metric].iloc[0])


def _dtypes(frame: pd.DataFrame) -> dict[str, str]:
    return {c: str(t) for c, t in frame.dtypes.items()}


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_every_fixture_reads_with_schema(name: str) -> None:
    report = read_shared(DATA / name)
    assert list(report.launches.columns) == list(LAUNCH_COLUMNS)
    assert list(report.metrics.columns) == list(METRIC_COLUMNS)
    assert list(report.rules.columns) == list(RULE_COLUMNS)
    assert list(report.source.columns) == list(SOURCE_COLUMNS)
    assert _dtypes(report.launches) == LAUNCH_COLUMNS
    assert _dtypes(report.metrics) == METRIC_COLUMNS
    assert _dtypes(report.rules) == RULE_COLUMNS
    if report.source["flavour"].iloc[0] != "session":
        assert len(report.launches) > 0
        assert len(report.metrics) > 0
        # every metric row belongs to a launch of the report
        keys = set(map(tuple, report.launches[["process_id", "launch_id"]].astype(object).to_numpy()))
        mk = set(map(tuple, report.metrics[["process_id", "launch_id"]].drop_duplicates().astype(object).to_numpy()))
        assert mk <= keys


@pytest.mark.skipif(not SHARED.exists(), reason="../shared/ncu-samples not present")
@pytest.mark.parametrize(
    "path",
    sorted(p for p in SHARED.glob("*/*") if p.suffix in (".csv", ".ncu-rep") and p.stat().st_size > 0),
    ids=lambda p: p.name,
)
def test_every_shared_sample_reads(path: Path) -> None:
    report = read_shared(path)
    assert report.source["launches"].iloc[0] == len(report.launches)


def test_micro_full_launches() -> None:
    for name in (
        "micro_full.details.csv",
        "micro_full.raw.csv",
        "micro_full.details-all.csv",
        "micro_full.details-base.csv",
    ):
        r = read_shared(data(name))
        assert len(r.launches) == 16
        assert r.launches["display_name"].tolist() == MICRO_KERNELS
        tiny = r.launches[r.launches["display_name"] == "tiny_launch"]
        assert tiny["launch_id"].tolist() == [12, 13, 14, 15]
        assert (r.launches["process_id"] == 663).all()
        assert r.launches["cc"].unique().tolist() == ["9.0"]
        assert r.launches["nvtx_path"].tolist() == ["memory"] * 5 + ["compute"] * 4 + ["pathologies"] * 7
        triad = r.launches.iloc[0]
        assert (triad.grid_x, triad.grid_size, triad.block_x, triad.block_size) == (1056, 1056, 256, 256)
        assert triad.kernel_name == "stream_triad(float4 *, const float4 *, const float4 *, float, unsigned long)"


def test_llm_and_train_launch_counts() -> None:
    assert len(read_shared(data("llm_full.details.csv")).launches) == 16
    assert len(read_shared(data("llm_full.raw.csv")).launches) == 16
    train = read_shared(data("train_step.details.csv"))
    assert len(train.launches) == 382
    # The samples README says 47 distinct kernels; the export itself holds 48 distinct demangled names.
    assert train.launches["kernel_name"].nunique() == 48
    assert train.launches["launch_id"].is_unique


def test_spot_values_match_the_files() -> None:
    # micro_full.details-base.csv: "Duration","ns","189,408"; raw-base the same; details: "us","189.41"
    base = read_shared(data("micro_full.details-base.csv"))
    assert _value(base, 0, "gpu__time_duration.sum") == pytest.approx(189_408e-9, rel=1e-12)
    raw_base = read_shared(data("micro_full.raw-base.csv"))
    assert _value(raw_base, 0, "gpu__time_duration.sum") == pytest.approx(189_408e-9, rel=1e-12)
    details = read_shared(data("micro_full.details.csv"))
    assert _value(details, 0, "gpu__time_duration.sum") == pytest.approx(189.41e-6, rel=1e-12)
    # "Memory Workload Analysis","Memory Throughput","Tbyte/s","4.17"
    assert _value(details, 0, "dram__bytes.sum.per_second") == pytest.approx(4.17e12, rel=1e-12)
    # "SM Frequency","Ghz","1.95" and "Elapsed Cycles","cycle","370,890"
    assert _value(details, 0, "gpc__cycles_elapsed.avg.per_second") == pytest.approx(1.95e9)
    assert _value(details, 0, "gpc__cycles_elapsed.max") == 370_890
    m = details.metrics
    row = m[(m["launch_id"] == 0) & (m["metric"] == "dram__bytes.sum.per_second")].iloc[0]
    assert (row.section, row.label, row.unit, row.base_unit, row.text) == (
        "Memory Workload Analysis", "Memory Throughput", "Tbyte/s", "byte/s", "4.17",
    )  # fmt: skip


@pytest.mark.parametrize("name", ["micro_full.raw.csv", "micro_full.raw-base.csv"])
def test_raw_values_do_not_depend_on_how_the_columns_are_grouped(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A raw page's metric columns are parsed as numbers in runs of whole columns (``raw.GROUP_CELLS`` cells a run):
    runs of one column, of a few and of them all give the same values, bit for bit (NaN where no number), and the
    value of a cell is the cell's own text read as a number in base units."""
    from ncu_roofline.io import raw

    whole = read_shared(data(name)).values
    for cells in (1, 40):  # one column a run (16 launches); three columns a run, the last run shorter
        monkeypatch.setattr(raw, "GROUP_CELLS", cells)
        pd.testing.assert_frame_equal(read_shared(data(name)).values, whole, check_exact=True)
    path = data(name)
    with gzip.open(path, "rt", newline="") if path.suffix == ".gz" else path.open(newline="") as fh:
        rows = list(csv.reader(fh))
    col = rows[0].index("gpu__time_duration.sum")
    unit = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3}[rows[1][col]]
    expected = [float(r[col].replace(",", "")) * unit for r in rows[2:]]
    assert whole["gpu__time_duration.sum"].to_numpy().tolist() == pytest.approx(expected, rel=1e-12)


def test_string_metrics_keep_their_text() -> None:
    m = read_shared(data("micro_full.details.csv")).metrics
    row = m[(m["launch_id"] == 0) & (m["metric"] == "launch__func_cache_config")].iloc[0]
    assert row.text == "CachePreferNone"
    assert math.isnan(row.value)


def test_raw_page_analysis_never_builds_the_long_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    """A raw page has no body items and carries the GPU's name as a column: the analysis reads both without the
    long metrics frame, and the name per launch is ncu's own cell text."""
    from ncu_roofline import model
    from ncu_roofline.analysis import analyze

    path = data("micro_full.raw.csv")
    with path.open(newline="") as fh:
        rows = list(csv.reader(fh))
    col = rows[0].index("device__attribute_display_name")
    expected = [r[col] for r in rows[2:]]  # after the header and the units row

    def no_long_frame(self: object) -> pd.DataFrame:
        raise AssertionError("the long metrics frame was built")

    monkeypatch.setattr(model.WideMetrics, "to_long", no_long_frame)
    report = ncu_roofline.read(path)
    assert report.metric_texts("device__attribute_display_name").tolist() == expected
    assert report.body_item_metrics.empty
    analysis = analyze(report)
    assert len(analysis.report.launches) == len(expected)


def _as_objects(frame: pd.DataFrame) -> pd.DataFrame:
    """Categorical columns as their values (categories in whatever order each frame made them)."""
    return frame.astype({c: object for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)})


@pytest.mark.parametrize("name", ["micro_full.details-all.csv", "micro_roof.details-all.csv"])
def test_body_item_metrics_are_the_long_frames_body_item_rows(name: str, tmp_path: Path) -> None:
    """A ``--print-details all`` page has body items: ``body_item_metrics`` gives the long frame's rows that are
    body items (BODY_COLUMNS, in its order), built without the long frame by the streamed reader, and the same
    rows once the long frame exists; a page without any gives an empty frame."""
    plain = tmp_path / name  # a plain file: the streamed reader's
    plain.write_bytes(gzip.decompress(data(name).read_bytes()))
    report = ncu_roofline.read(plain)
    items = report.body_item_metrics
    assert "metrics" not in report.__dict__  # the long frame was not built for them
    assert list(items.columns) == list(BODY_COLUMNS) and items["body_item"].notna().all()
    long = report.metrics
    expected = long.loc[long["body_item"].notna().to_numpy(), list(BODY_COLUMNS)].reset_index(drop=True)
    assert 0 < len(expected) < len(long)
    pd.testing.assert_frame_equal(_as_objects(items), _as_objects(expected), check_exact=True)
    pd.testing.assert_frame_equal(report.body_item_metrics, expected, check_exact=True)  # from the long frame now


def test_a_page_without_body_items_has_no_body_item_metrics() -> None:
    plain = ncu_roofline.read(data("micro_full.details.csv"))
    assert plain.body_item_metrics.empty
    assert len(plain.metrics) > 0
    assert plain.body_item_metrics.empty  # the same answer once the long frame exists


def test_labels_and_names_exports_agree() -> None:
    labels = read_shared(data("micro_full.details.csv")).metrics
    names = read_shared(data("micro_full.details-names.csv")).metrics
    assert len(labels) == len(names)
    assert labels["metric"].isna().sum() == 0
    assert labels["metric"].astype(str).tolist() == names["metric"].astype(str).tolist()
    np.testing.assert_array_equal(labels["value"].to_numpy(), names["value"].to_numpy())
    # the names export gets its labels back from the table
    assert names["label"].astype(str).tolist() == labels["label"].astype(str).tolist()


def test_label_name_mode(tmp_path: Path) -> None:
    text = derive.label_name(
        data("micro_full.details.csv").read_text(), data("micro_full.details-names.csv").read_text()
    )
    assert '"DRAM Frequency (dram__cycles_elapsed.avg.per_second)"' in text
    p = tmp_path / "label-name.csv"
    p.write_text(text)
    both = ncu_roofline.read(p).metrics
    labels = read_shared(data("micro_full.details.csv")).metrics
    assert both["metric"].astype(str).tolist() == labels["metric"].astype(str).tolist()
    assert both["label"].astype(str).tolist() == labels["label"].astype(str).tolist()


def test_repeated_labels_stay_distinct() -> None:
    # The Tensor roofline chart repeats labels within one body item with different units.
    m = read_shared(data("micro_full.details-all.csv")).metrics
    tensor = m[(m["launch_id"] == 8) & (m["section"] == "GPU Speed Of Light Hierarchical Roofline Chart (Tensor Core)")]
    counts = tensor[tensor["body_item"].isna()].groupby("label", observed=True).size()
    assert counts.max() >= 6
    # every metric row of launch 8 in the file is kept (counted independently with the csv module)
    with gzip.open(data("micro_full.details-all.csv"), "rt") as fh:
        rows = list(csv.reader(fh))
    vi = rows[0].index("Metric Value")
    expected = sum(1 for r in rows[1:] if len(r) == vi + 2 and r[0] == "8" and r[1] == "663")
    assert len(m[m["launch_id"] == 8]) == expected > 1000


def _rounding(report: ncu_roofline.Report) -> pd.DataFrame:
    """Half a unit in the last printed digit of each numeric cell, in base units (launch x metric)."""
    m = report.metrics
    m = m[m["metric"].notna() & m["value"].notna() & m["body_item"].isna()]
    text = m["text"].astype(str).str.replace(",", "", regex=False)
    number = pd.to_numeric(text, errors="coerce").to_numpy()
    decimals = text.str.extract(r"\.(\d*)$")[0].str.len().fillna(0).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(number != 0, np.abs(m["value"].to_numpy() / number), 1.0)
    half = 0.5 * 10.0 ** (-decimals) * factor
    # ncu_report values are exact doubles: no rounding
    half = np.where(text.str.fullmatch(r"-?\d+\.\d{9,}(e[-+]?\d+)?|.*e[-+]\d+").to_numpy(), 0.0, half)
    frame = pd.DataFrame({"launch_id": m["launch_id"].astype("int64").to_numpy(), "metric": m["metric"].astype(str),
                          "half": half})  # fmt: skip
    return frame.drop_duplicates(["launch_id", "metric"]).pivot(index="launch_id", columns="metric", values="half")


def _agree(a: ncu_roofline.Report, b: ncu_roofline.Report) -> int:
    """Every shared numeric metric agrees within the rounding of both CSV texts; return how many were compared."""
    va, vb = a.values.droplevel([0, 1]), b.values.droplevel([0, 1])
    shared = sorted(set(va.columns) & set(vb.columns))
    va, vb = va[shared], vb[shared]
    tol = _rounding(a).reindex(index=va.index, columns=shared).fillna(0) + _rounding(b).reindex(
        index=va.index, columns=shared
    ).fillna(0)
    both = va.notna() & vb.notna()
    diff = (va - vb).abs()
    ok = (diff <= tol + 1e-9 * np.maximum(va.abs(), vb.abs())) | ~both
    bad = [(lid, c, va.at[lid, c], vb.at[lid, c]) for c in shared for lid in va.index if not ok.at[lid, c]]
    assert not bad, bad[:5]
    return int(both.to_numpy().sum())


def test_details_raw_and_ncu_rep_agree_on_micro_roof() -> None:
    pytest.importorskip("ncu_report")
    details = read_shared(data("micro_roof.details.csv"))
    raw = read_shared(data("micro_roof.raw.csv"))
    rep = read_shared(data("micro_roof.ncu-rep"))
    assert len(details.launches) == len(raw.launches) == len(rep.launches) == 16
    assert rep.launches["kernel_name"].tolist() == details.launches["kernel_name"].tolist()
    assert (rep.launches["grid_size"] == details.launches["grid_size"]).all()
    n1 = _agree(details, rep)
    n2 = _agree(raw, rep)
    n3 = _agree(details, raw)
    assert n1 >= 16 * 50 and n2 >= 16 * 1400 and n3 >= 16 * 50
    # rule results: the same rules per launch
    key = ["launch_id", "section", "rule", "type"]
    a = details.rules[key].astype(str).sort_values(key).reset_index(drop=True)
    b = rep.rules[key].astype(str).sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_captures_skip_and_report_program_output() -> None:
    r = read_shared(data("direct_details.stdout.csv"))
    assert len(r.launches) == 16
    src = r.source.iloc[0]
    assert src.skipped_lines == 6
    assert "ncu message" in src.skipped and "program output" in src.skipped
    assert "line 1, 2, 6" in src.skipped
    raw = read_shared(data("direct_raw_metrics.stdout.csv"))
    identity = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
                "Grid Size", "Device", "CC"}  # fmt: skip
    header = next(csv.reader(line for line in data("direct_raw_metrics.stdout.csv").open() if line.startswith('"')))
    assert len(raw.launches) == 16 and raw.values.shape[1] == len([c for c in header if c not in identity]) == 338
    summary = read_shared(data("direct_summary.stdout.csv"))
    assert summary.launches["invocations"].sum() == 16


def test_details_all_reports_what_it_skipped() -> None:
    r = read_shared(data("micro_full.details-all.csv"))
    src = r.source.iloc[0]
    # 16 NVLink text lines and 16 embedded NUMA tables (header + row) in the real export
    assert src.skipped_lines == 48
    assert "NVLink" in src.skipped and "table embedded by ncu" in src.skipped
    assert r.metrics["body_item"].notna().sum() > 0


def test_summary_page() -> None:
    s = read_shared(data("micro_full.summary-per-kernel.csv"))
    tiny = s.launches[s.launches["display_name"] == "tiny_launch"]
    assert tiny["invocations"].tolist() == [4]
    assert s.launches["invocations"].sum() == 16
    m = s.metrics
    dur = m[(m["metric"] == "gpu__time_duration.sum") & (m["launch_id"] == int(tiny["launch_id"].iloc[0]))]
    assert dur["minimum"].iloc[0] <= dur["value"].iloc[0] <= dur["maximum"].iloc[0]


def test_session_page() -> None:
    s = read_shared(data("micro_full.session.csv"))
    assert s.source["ncu_version"].iloc[0] == "2025.3.1.0"  # "Nsight Compute Target","2025.3.1.0 (build ...)"
    attrs = dict(zip(s.session["attribute"], s.session["value"], strict=False))
    assert attrs["display_name"] == "NVIDIA H200"
    assert attrs["multiprocessor_count"] == "132"
    assert "--set full" in attrs["Profiler Command Line"]
    assert s.source["skipped_lines"].iloc[0] == 0


def test_nvtx_paths_nest() -> None:
    train = read_shared(data("train_step.details.csv")).launches
    first = train["nvtx_path"].iloc[0]
    assert first.split("/")[0].startswith("aten::embedding")
    assert len(first.split("/")) == 3
    llm = read_shared(data("llm_full.details.csv")).launches
    assert llm["nvtx_path"].iloc[0] == "prefill_gemm_bf16"


def test_instanced_metrics_keep_their_list() -> None:
    r = read_shared(data("micro_full.raw-instances.csv"))
    m = r.metrics
    inst = m[m["text"].str.startswith("(", na=False)]
    assert len(inst) > 0 and inst["value"].isna().all()
    plain = read_shared(data("micro_full.raw.csv"))
    assert _value(r, 0, "dram__bytes.sum.per_second") == _value(plain, 0, "dram__bytes.sum.per_second")
    # no value on ncu's plain page either
    both = inst.merge(plain.metrics, on=["launch_id", "metric"], how="left", suffixes=("", "_plain"))
    assert len(both) == len(inst) and both["value_plain"].isna().all()


def test_instances_in_a_scaled_unit_on_a_page_of_few_columns(tmp_path: Path) -> None:
    """A hand-picked list with instances (`--metrics launch__shared_mem_per_block_static
    --print-metric-instances values`): its one Kbyte/block column, without an empty cell, was parsed into a
    read-only view of Arrow's buffer and leaving out the instanced value of a unit of its own crashed ("assignment
    destination is read-only"). Read: the 4.10 (4.10) KB of smem_bank_conflict is left out as the full page
    leaves it, the zeros read."""
    raw = derive.raw_rows(data("micro_full.raw-instances.csv"))
    page = derive.picked(raw, ["launch__shared_mem_per_block_static"], tmp_path / "smem.raw.csv")
    r = ncu_roofline.read(page)
    got = r.values["launch__shared_mem_per_block_static"].to_numpy()
    assert np.isnan(got[4]) and (np.delete(got, 4) == 0).all()
    assert "scaled units" in str(r.source["not_understood"].iloc[0])


#: ``--print-metric-instances values``: a value, then its instances in parentheses (ncu 2024.2 and 2025.3).
_VALUE_AND_INSTANCES = r"^[^(\s][^(]* \(.*\)$"


#: The units whose values ncu writes in a prefix of their own when it scales units (data, frequency, time).
_SCALED_UNIT = r"byte|hz|^[mun]?s$|/[mun]?s$"


@pytest.mark.parametrize(
    ("instances", "plain"),
    [
        ("micro_full.raw-instances.csv", "micro_full.raw.csv"),  # ncu 2025.3 wrote both
        ("reexport/ncu-2024.2/micro_roof.raw-instances.csv.gz", "micro_roof.raw.csv"),  # 2024.2 beside 2025.3
        ("reexport/ncu-2024.2/micro_roof.raw-instances-base.csv.gz", "reexport/ncu-2024.2/micro_roof.raw-base.csv.gz"),
    ],
)
def test_a_value_followed_by_its_instances_reads_as_the_value(instances: str, plain: str) -> None:
    # ncu writes an instanced metric's value, then its instances ("1,056 (0; 0; 16; ...)", "1.60 (1.60)" for
    # launch__waves_per_multiprocessor); the plain raw page of the same launches has the value alone. It was
    # NaN, and the hints that read such a metric (tail_effect, small_grid, uncoalesced access) were not given.
    def page(name: str) -> pd.DataFrame:
        return read_shared(DATA / name if name.startswith("reexport") else data(name)).metrics

    m = page(instances)
    both = m[m["text"].str.contains(_VALUE_AND_INSTANCES, regex=True, na=False)]
    assert len(both) > 100
    joined = both.merge(page(plain), on=["launch_id", "metric"], suffixes=("", "_plain"))
    joined = joined[joined["value_plain"].notna()]  # (ncu's plain page has a few of them as text)
    # Scaling units, ncu writes such a value of data, frequency or time in a prefix of its own, not the column's:
    # its unit is unknown and it is not read (0 excepted: 0 in any unit)
    in_unit = joined["unit"].astype(str).str.contains(_SCALED_UNIT)  # the column's unit, on the page read
    scaled = in_unit & (joined["value_plain"] != 0) & (not plain.endswith("base.csv.gz"))
    assert scaled.sum() >= (16 if not plain.endswith("base.csv.gz") else 0)
    assert joined.loc[scaled, "value"].isna().all()
    read = joined[~scaled]
    assert len(read) > 100 and read["value"].notna().all()
    ok = close_within_rounding(read, "", "_plain")
    assert ok.all(), read.loc[~ok, ["launch_id", "metric", "text", "text_plain"]].head()


def test_an_instanced_value_in_a_prefix_of_its_own_is_not_read_as_the_columns() -> None:
    # ncu's own slip (2024.2 and 2025.3): this occupancy graph's value before its instances is written in %/Mbyte
    # under its %/Kbyte unit ("440 (50; 50; ...)" where the plain page has 0.440000 %/Kbyte) on the launches where
    # it is under 1 %/Kbyte: read as the column's unit it is 1000x. A shared memory size under 1 KB in a Kbyte/block
    # column would be the same. Not read, and the page says which and how to export them.
    r = read_shared(data("micro_full.raw-instances.csv"))
    cells = r.metrics[r.metrics["metric"] == INSTANCE_UNIT_SLIP].set_index("launch_id")
    plain = read_shared(data("micro_full.raw.csv")).metrics
    plain = plain[plain["metric"] == INSTANCE_UNIT_SLIP].set_index("launch_id")
    slipped = [i for i in cells.index if cells.at[i, "text"].startswith("440 (") and plain.at[i, "text"] == "0.440000"]
    assert slipped == [12, 13, 14, 15]  # (golden: ncu's two pages of the same launches)
    assert cells["value"].isna().all()
    (said,) = r.source["not_understood"]
    assert "in scaled units" in said and INSTANCE_UNIT_SLIP in said and "--print-units base" in said
    base = read_shared(DATA / "reexport/ncu-2024.2/micro_roof.raw-instances-base.csv.gz")
    assert pd.isna(base.source["not_understood"].iloc[0])  # in base units every value is read


def test_an_instanced_page_gives_the_plain_pages_verdicts_and_hints() -> None:
    def verdicts(name: str) -> pd.DataFrame:
        a = analyze(read_shared(data(name)))
        hints = a.hints.groupby("launch_id")["hint"].agg(lambda h: ",".join(sorted(h)))
        v = a.verdicts.set_index("launch_id")[["limiter", "regime", "compute_pipe"]].astype(object)
        return v.assign(hints=hints.reindex(v.index)).fillna("-")

    plain = verdicts("micro_full.raw.csv")
    assert plain["hints"].str.contains("small_grid").sum() == 5  # (golden: the plain page, ncu's own)
    pd.testing.assert_frame_equal(verdicts("micro_full.raw-instances.csv"), plain)


@pytest.mark.parametrize("style", ["c", "dot", "space", "no-break space", "narrow no-break space"])
def test_number_locales(tmp_path: Path, style: str) -> None:
    text = data("micro_full.details.csv").read_text()
    spaces = {"space": " ", "no-break space": "\u00a0", "narrow no-break space": "\u202f"}
    if style in spaces:  # sv_SE, fr_FR: nv-nsight-cu-cli 2020 on a Swedish system printed "23 982 976", "19,38"
        derived = derive.space_grouped(text, spaces[style])
        assert f'"370{spaces[style]}890"' in derived and '"3,20"' in derived
    else:
        derived = derive.c_locale(text) if style == "c" else derive.dot_grouped(text)
    assert derived != text
    if style == "dot":
        assert '"370.890"' in derived and '"3,20"' in derived
    p = tmp_path / f"{style}.csv"
    p.write_text(derived)
    a = ncu_roofline.read(p).metrics
    b = read_shared(data("micro_full.details.csv")).metrics
    np.testing.assert_allclose(a["value"].to_numpy(), b["value"].to_numpy(), rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("columns", [derive.LAYOUT_15, derive.LAYOUT_12], ids=["15-column", "12-column"])
def test_older_layouts(tmp_path: Path, columns: list[str]) -> None:
    text = derive.layout(data("micro_full.details.csv").read_text(), columns, old_units=len(columns) == 12)
    p = tmp_path / "old.csv"
    p.write_text(text)
    old = ncu_roofline.read(p)
    new = read_shared(data("micro_full.details.csv"))
    assert len(old.launches) == 16 and len(old.rules) == 0
    assert old.launches["kernel_name"].tolist() == new.launches["kernel_name"].tolist()
    if len(columns) == 12:
        assert old.launches["grid_size"].isna().all()
        assert '"usecond"' in text and '"cycle/nsecond"' in text
        # the launch's shape is in its Launch Statistics (ncu 2019.5-2020 pages): the analysis takes it there
        shaped = analyze(old).launches
        for size in ("grid_size", "block_size"):
            assert shaped[size].tolist() == new.launches[size].tolist()
    else:
        assert old.launches["grid_size"].tolist() == new.launches["grid_size"].tolist()
    np.testing.assert_allclose(
        old.metrics["value"].to_numpy(), new.metrics["value"].to_numpy(), rtol=1e-12, equal_nan=True
    )
    assert set(old.metrics["base_unit"].dropna()) <= set(new.metrics["base_unit"].dropna())


def test_gzip_and_plain_read_the_same(tmp_path: Path) -> None:
    plain = data("micro_full.details.csv")
    gz = tmp_path / "micro_full.details.csv.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    a, b = ncu_roofline.read(plain), ncu_roofline.read(gz)
    assert a.source["report"].iloc[0] == b.source["report"].iloc[0] == "micro_full.details"
    pd.testing.assert_frame_equal(a.launches, b.launches)
    np.testing.assert_array_equal(a.metrics["value"].to_numpy(), b.metrics["value"].to_numpy())


def test_several_files_keep_their_source() -> None:
    r = ncu_roofline.read([data("micro_full.details.csv"), data("llm_full.details.csv")])
    assert len(r.launches) == 32
    assert r.launches["report"].unique().tolist() == ["micro_full.details", "llm_full.details"]
    assert len(r.source) == 2
    assert r.values.shape[0] == 32
    assert set(r.metrics["report"].cat.categories) == {"micro_full.details", "llm_full.details"}


def test_merged_values_are_each_files_own_values_in_their_rows() -> None:
    # a raw page, a details page and a summary page of other runs (wide, streamed and long sources): the merged
    # Report.values holds each file's own values in that file's rows, NaN elsewhere, the metrics in order of
    # first appearance, file by file; its raw text (long form) each file's own
    paths = [data("micro_full.raw.csv"), data("micro_full.details.csv"), data("train_step.summary-per-kernel.csv.gz")]
    merged = ncu_roofline.read(paths)
    alone = [ncu_roofline.read(p) for p in paths]
    order = list(dict.fromkeys(c for r in alone for c in r.values.columns))
    assert list(merged.values.columns) == order
    start = 0
    for name, r in zip(merged.source["report"], alone, strict=True):
        part = merged.values.iloc[start : start + len(r.values)]
        assert part.index.get_level_values("report").unique().tolist() == [name]
        own = r.values.reindex(columns=order)
        np.testing.assert_array_equal(part.to_numpy(), own.to_numpy())
        start += len(r.values)
    assert start == len(merged.values)
    assert merged.source["metric_rows"].tolist() == [int(r.source["metric_rows"].iloc[0]) for r in alone]
    raw_texts = merged.metrics.loc[merged.metrics["report"] == "micro_full.raw", "text"].tolist()
    assert raw_texts == alone[0].metrics["text"].tolist()


def test_a_subset_of_a_raw_page_keeps_each_cells_text() -> None:
    r = ncu_roofline.read(data("micro_full.raw.csv"))
    keys = launch_index(r.launches).take([1, 5, 9])
    part = r.subset(keys)
    assert part.launches["launch_id"].tolist() == [1, 5, 9]
    full, sub = r.metrics, part.metrics
    want = full[full["launch_id"].isin([1, 5, 9])].sort_values(["metric", "launch_id"], kind="stable")
    got = sub.sort_values(["metric", "launch_id"], kind="stable")
    assert got["text"].tolist() == want["text"].tolist()
    assert part.metric_texts("device__attribute_display_name").tolist() == ["NVIDIA H200"] * 3


def test_a_raw_pages_text_is_one_buffer_when_small_and_its_columns_when_large(monkeypatch: pytest.MonkeyPatch) -> None:
    # a few launches' thousands of columns in one buffer (their small buffers pinned the heap); a large page's
    # columns kept as read, not copied: the same text, column after column, either way
    from ncu_roofline.io import raw

    r = ncu_roofline.read(data("micro_full.raw.csv"))
    small = r._sources[0].texts
    assert small.num_chunks == 1 and len(small) == 16 * 2227
    monkeypatch.setattr(raw, "JOINED_TEXT", 0)
    large = ncu_roofline.read(data("micro_full.raw.csv"))._sources[0].texts
    assert large.num_chunks == 2227
    assert large.equals(small)


def test_raw_and_details_long_forms_agree_on_values() -> None:
    raw = read_shared(data("micro_full.raw-base.csv"))
    m = raw.metrics
    assert len(m) == 35_440  # every non-empty cell of the 16 x 2,227 metric columns
    dur = m[(m["metric"] == "gpu__time_duration.sum")].sort_values("launch_id")
    assert dur["text"].iloc[0] == "189,408" and dur["unit"].iloc[0] == "ns"  # as written in raw-base


def test_display_names_of_templated_kernels() -> None:
    from ncu_roofline.io.identity import display_name

    k = (
        "void at::native::vectorized_elementwise_kernel<8, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase &, "
        "at::native::GeluType)::[lambda() (instance 2)]::operator ()() const::[lambda() (instance 4)]::operator ()() "
        "const::[lambda(c10::BFloat16) (instance 1)], std::array<char *, 2>>(int, T2, T3)"
    )
    assert display_name(k) == "vectorized_elementwise_kernel<GeluCUDAKernelImpl>"
    assert (
        display_name("stream_triad(float4 *, const float4 *, const float4 *, float, unsigned long)") == "stream_triad"
    )
    assert display_name("nvjet_sm90_tst_128x128_64x6_2x4_h_bz_NTT") == "nvjet_sm90_tst_128x128_64x6_2x4_h_bz_NTT"
    assert display_name(
        "void native::<unnamed>::cunn_SoftMaxForward<8, c10::BFloat16, float>(T4 *, const T2 *, int)"
    ) == ("cunn_SoftMaxForward<BFloat16>")
    assert re.match(r"^\w", display_name("void (anonymous namespace)::k<float>(float *)"))


@pytest.mark.parametrize(
    ("name", "base"),
    [
        ("micro_full.raw.csv", False),
        ("micro_full.raw-base.csv", True),  # ncu 2025.3 --print-units base
        ("reexport/ncu-2024.2/micro_roof.raw.csv.gz", False),
        ("reexport/ncu-2024.2/micro_roof.raw-base.csv.gz", True),
        ("reexport/ncu-2024.2/gene_dzv.raw.csv.gz", False),
        ("reexport/ncu-2024.2/gene_dzv.raw-base.csv.gz", True),
        ("reexport/ncu-2022.3/gene_dzv.raw.csv.gz", False),
        ("reexport/ncu-2022.3/gene_dzv.raw-base.csv.gz", True),
    ],
)
def test_a_page_in_base_units_is_told_by_its_units_row(name: str, base: bool) -> None:
    # (golden: the command line that wrote each page, --print-units base or ncu's default)
    path = DATA / name if name.startswith("reexport") else data(name)
    units = [unit_or_none(u) for u in derive.rows(derive.text_of(path))[1]]  # (the identity columns' are empty)
    assert in_base_units(u for u in units if u is not None) is base


@pytest.mark.parametrize("end", ["\n", ""])
def test_details_page_of_one_metric_row(tmp_path: Path, end: str) -> None:
    """`ncu --csv --metrics gpu__time_duration.sum` of one launch: a details page of one metric row (the file's
    last line, with or without its line break) reads; it was taken for a row cut short."""
    lines = data("micro_full.details.csv").read_text(encoding="utf-8").splitlines()
    row = next(x for x in lines[1:] if '"Duration","us","189.41"' in x)
    path = tmp_path / "one.csv"
    path.write_text(lines[0] + "\n" + row + end, encoding="utf-8")
    report = ncu_roofline.read(path)
    assert report.launches["duration_ns"].tolist() == [189410.0]
