"""The JSON output: its documented keys, the roofline rows it keeps, determinism."""

from __future__ import annotations

import dataclasses
import json

import pytest
from _analyses import sample
from click.testing import CliRunner
from conftest import analysed, data
from hypothesis import given, settings
from hypothesis import strategies as st

import ncu_roofline
from ncu_roofline.analysis import Analysis, analyze
from ncu_roofline.report import jsonout
from ncu_roofline.report.jsonout import encode, json_bytes, launch_json, launch_objects, render_json, to_dict

LAUNCH_KEYS = {
    "id", "process_id", "kernel", "duration_ns", "limiter", "compute_pipe", "regime", "utilization", "roofline",
    "hints", "report", "display_name", "basis", "reason", "missing", "explanation", "ncu_bottleneck",
    "agrees_with_ncu", "memory", "scores", "roof_fraction", "headroom", "device", "invocations",
}  # fmt: skip
ROOFLINE_KEYS = {"precision", "level", "achieved_flops", "achieved_bytes_per_s", "intensity", "peak_flops",
                 "peak_bytes_per_s"}  # fmt: skip
HINT_KEYS = {
    "id", "severity", "message", "evidence", "source", "advice", "estimated_speedup", "estimated_speedup_less_work",
}  # fmt: skip


@pytest.fixture(scope="module")
def doc(micro_full: ncu_roofline.Report) -> dict[str, object]:
    return json.loads(render_json(analysed(data("micro_full.raw.csv"))))


def launches(doc: dict[str, object]) -> dict[int, dict[str, object]]:
    return {int(x["id"]): x for x in doc["launches"]}  # type: ignore[attr-defined,index]


def test_keys(doc: dict[str, object]) -> None:
    assert set(doc) == {"schema", "tool", "sources", "launches", "devices", "summary"}
    assert doc["schema"] == 6
    assert doc["devices"] == [
        {
            "name": "NVIDIA H200",
            "cc": "9.0",
            "table": "NVIDIA H200",
            "basis": "display_name",
            "launches": 16,
            "peak_source": ["report"],
            "missing_peaks": [],
        }
    ]
    ls = launches(doc)
    assert len(ls) == 16
    for x in ls.values():
        assert set(x) >= LAUNCH_KEYS
        for r in x["roofline"]:
            assert set(r) >= ROOFLINE_KEYS
        for h in x["hints"]:
            assert set(h) >= HINT_KEYS
            assert isinstance(h["evidence"], list)
        assert all(0 <= v <= 1.5 for v in x["utilization"].values())


def test_micro_verdicts_in_json(doc: dict[str, object]) -> None:
    ls = launches(doc)
    assert (ls[0]["limiter"], ls[0]["regime"]) == ("hbm", "bound")
    assert (ls[5]["limiter"], ls[5]["compute_pipe"]) == ("compute", "fp32")
    assert ls[12]["regime"] == "launch"
    assert {h["id"] for h in ls[1]["hints"]} == {"uncoalesced_global_access"}
    assert ls[0]["hints"] == []
    assert ls[0]["process_id"] == 663 and ls[0]["kernel"].startswith("stream_triad")


def test_roofline_rows_are_the_points_ncu_draws(doc: dict[str, object]) -> None:
    ls = launches(doc)
    for x in ls.values():
        rows = x["roofline"]
        assert all(r["achieved_flops"] > 0 for r in rows)
        by_precision: dict[str, set[str]] = {}
        for r in rows:
            by_precision.setdefault(r["precision"], set()).add(r["level"])
        assert all(levels == {"dram", "l2", "l1"} for levels in by_precision.values())
    # by construction: fp64_fma does FP64 work only, wmma_bf16 tensor work (bf16), half_hfma2 FP16
    assert {r["precision"] for r in ls[6]["roofline"]} == {"fp64"}
    assert {(r["precision"], r["dtype"]) for r in ls[8]["roofline"]} >= {("tensor", "bf16")}
    assert "fp16" in {r["precision"] for r in ls[7]["roofline"]}
    assert "fp64" not in {r["precision"] for r in ls[5]["roofline"]}
    fp32 = next(r for r in ls[5]["roofline"] if r["precision"] == "fp32" and r["level"] == "dram")
    assert fp32["achieved_flops"] / fp32["peak_flops"] == pytest.approx(0.91, abs=0.01)  # README: 91 %


def test_memory_rows(doc: dict[str, object]) -> None:
    mem = {m["level"]: m for m in launches(doc)[0]["memory"]}
    assert set(mem) == {"dram", "l2", "l1"}
    assert mem["dram"]["fraction"] == pytest.approx(0.87, abs=0.01)  # README: DRAM 87 % of 4.76 TB/s
    assert mem["dram"]["achieved_bytes_per_s"] == pytest.approx(4.17e12, rel=0.01)  # NCU-FACTS: 4.17 TB/s


def test_summary(doc: dict[str, object]) -> None:
    s = doc["summary"]
    assert sum(x["share"] for x in s["by_limiter"]) == pytest.approx(1.0)
    assert sum(x["launches"] for x in s["by_regime"]) == 16
    assert s["top_kernels"][0]["display_name"] == "wmma_bf16"  # 5.12 ms, the longest micro kernel
    assert s["ncu_agreement"] == {"launches_compared": 0, "share": None}  # a raw page has no rule rows


def test_ncu_agreement_in_json() -> None:
    d = to_dict(sample("micro_full.details.csv"))
    assert d["summary"]["ncu_agreement"]["launches_compared"] == 16
    assert d["summary"]["ncu_agreement"]["share"] >= 0.9
    assert d["launches"][0]["ncu_bottleneck"] == "dram" and d["launches"][0]["agrees_with_ncu"] is True
    assert d["launches"][0]["missing"] is not None  # no roofline in a default details page


def test_deterministic(micro_full: ncu_roofline.Report) -> None:
    a = analyze(micro_full)
    text = render_json(a)
    assert text == render_json(a) == render_json(analyze(micro_full))
    assert "NaN" not in text and "Infinity" not in text


def test_cli_json() -> None:
    from ncu_roofline.cli import main

    result = CliRunner().invoke(main, [str(data("micro_full.raw.csv")), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["launches"][0]["limiter"] == "hbm"


def test_json_says_what_was_not_checked_and_what_a_fix_recovers() -> None:
    # llm_full's details page has no FLOP counts: the compute-bound softmax (5) lists non_fp_compute as not
    # checked; every estimate stays within its launch's headroom; findings carry recoverable GPU time
    d = to_dict(sample("llm_full.details.csv"))
    by_id = {x["id"]: x for x in d["launches"]}  # type: ignore[index,union-attr]
    nc = by_id[5]["not_checked"]
    assert isinstance(nc, list) and any(s.startswith("non_fp_compute: FLOP counts") for s in nc)
    for x in d["launches"]:  # type: ignore[union-attr]
        assert x["roof_fraction"] is None or x["roof_fraction"] == pytest.approx(1 - x["headroom"])
        for h in x["hints"]:
            if h["estimated_speedup"] is not None:
                assert h["estimated_speedup"] <= x["headroom"] + 1e-12
    findings = d["summary"]["findings"]  # type: ignore[index]
    assert all("recoverable_share" in f and "recoverable_less_work_share" in f for f in findings)
    # ranked by the larger of what a fix recovers at today's work and once the work it counts is gone
    ranked = [max(f["recoverable_share"] or 0.0, f["recoverable_less_work_share"] or 0.0) for f in findings]
    assert ranked == sorted(ranked, reverse=True)
    for f in findings:
        if f["recoverable_less_work_share"] is not None:
            assert f["recoverable_less_work_share"] >= f["recoverable_share"] - 1e-12


def test_compact_text_is_ascii_and_the_standard_librarys_value() -> None:
    """The compact encoder (orjson, the standard library where orjson would not write ASCII or cannot encode)
    writes the value json.dumps writes, as ASCII, keys sorted."""
    from ncu_roofline.report.jsonout import encode

    for value in (
        {"b": [1.5e-05, 1e16, -0.0, None, True, 2**62], "a": "k<float></script>"},
        {"kernel": "noyau_é_ü", "id": 3},  # non-ASCII: escaped as json.dumps escapes it
        {"kernel": "bad \udcff byte"},  # a lone surrogate (a byte the reader could not decode): orjson refuses it
    ):
        text = encode(value)
        assert text.isascii()
        assert json.loads(text) == json.loads(json.dumps(value))
    assert encode([{"z": 1, "y": {"b": 2, "a": 1}}]) == '[{"y":{"a":1,"b":2},"z":1}]'  # compact, keys sorted


def _variants() -> dict[str, Analysis]:
    """micro_full's analysis with what the compact text has to write the way ``encode`` writes it."""
    base = sample("micro_full.details.csv")
    launches, hints = base.launches.copy(), base.hints.copy()
    launches.loc[1, "display_name"] = "noyau_é"  # not ASCII: the standard library's text, floats as repr
    launches.loc[:5, "duration_ns"] = 1.5e-05  # spelled 0.000015 by orjson, 1.5e-05 by json.dumps
    odd = launches.astype({"kernel_name": object})  # Arrow holds no lone surrogate
    odd.loc[4, "kernel_name"] = "bad \udcff byte"  # a lone surrogate: orjson refuses it
    nan, big = hints.copy(), hints.copy()
    nan.loc[nan.index[0], "evidence"] = '[{"metric": "m", "value": NaN}]'  # orjson cannot read it; null
    big.loc[big.index[7], "evidence"] = f'[{{"metric": "m", "value": {2**70}}}]'  # orjson cannot write it
    return {
        "plain": base,
        "not ascii": dataclasses.replace(base, launches=launches),
        "surrogate": dataclasses.replace(base, launches=odd),
        "nan evidence": dataclasses.replace(base, hints=nan),
        "big evidence": dataclasses.replace(base, hints=big),
    }


@pytest.mark.parametrize("chunk", [3, 1024])
def test_launch_text_from_columns_is_the_objects_encoding(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The launches' text written straight from the columns is the text ``encode`` writes for the launch objects
    (orjson's where that is ASCII, else the standard library's), chunk by chunk, without building the objects."""
    variants = _variants()
    expected = {k: [encode(o)[1:-1].encode() for o in launch_objects(a, chunk)] for k, a in variants.items()}

    def refuse(*_: object) -> None:
        raise AssertionError("built the objects")

    monkeypatch.setattr(jsonout._Launches, "objects", refuse)
    for name, a in variants.items():
        assert list(launch_json(a, chunk)) == expected[name], name
    texts = expected["not ascii"]
    assert any(b"\\u00e9" in t and b"1.5e-05" in t for t in texts)  # that chunk in the standard library's dialect
    assert chunk > 6 or any(b"0.000015" in t for t in texts)  # the others in orjson's


def test_compact_bytes_are_the_text() -> None:
    a = sample("micro_full.details.csv")
    for pretty in (False, True):
        pieces = list(json_bytes(a, pretty=pretty))
        assert all(isinstance(p, bytes) for p in pieces)
        assert b"".join(pieces).decode("ascii") == render_json(a, pretty=pretty)


def test_devices_of_a_mixed_report() -> None:
    """Two GPUs in one report (launches interleaved), each with its own peak sources and missing peaks: one
    object per GPU in first-seen order, its launches counted, its sources and missing figures each once, in the
    order its launches first show them."""
    import pandas as pd

    a = analysed(data("micro_full.raw.csv"))
    n = len(a.launches)
    assert n == 16
    names = ["NVIDIA H200" if i % 3 else "NVIDIA A100-SXM4-80GB" for i in range(n)]  # the A100 first
    tables = [None if i % 3 == 0 else "NVIDIA H200" for i in range(n)]
    sources = [["report", "report+table:NVIDIA H200", "missing"][i % 3 - 1 if i % 3 else 2] for i in range(n)]
    sources[0] = None  # a launch without a source: not listed
    lacking = [None, "l1_bytes_per_s", "", "dram_bytes_per_s,l2_bytes_per_s"] * 4
    launches = a.launches.copy()
    launches["device_name"] = pd.array(names, dtype="string")
    launches["device_table"] = pd.array(tables, dtype="string")
    peaks = a.peaks.copy()
    peaks["peak_source"] = pd.array(sources, dtype="string")
    peaks["missing_peaks"] = pd.array(lacking, dtype="string")
    doc = to_dict(dataclasses.replace(a, launches=launches, peaks=peaks))
    a100 = [i for i in range(n) if i % 3 == 0]  # 0, 3, 6, 9, 12, 15
    assert doc["devices"] == [
        {
            "name": "NVIDIA A100-SXM4-80GB",
            "cc": "9.0",  # (the H200 launches' CC: only the names were changed)
            "table": None,
            "basis": "display_name",
            "launches": len(a100),
            "peak_source": ["missing"],  # launch 0 has none; 3, 6, ... "missing"
            # launches 0 (none), 3 (dram, l2), 6 ("" ), 9 (l1), ...: first shown by 3, then 9
            "missing_peaks": ["dram_bytes_per_s", "l2_bytes_per_s", "l1_bytes_per_s"],
        },
        {
            "name": "NVIDIA H200",
            "cc": "9.0",
            "table": "NVIDIA H200",
            "basis": "display_name",
            "launches": n - len(a100),
            "peak_source": ["report", "report+table:NVIDIA H200"],  # launch 1, then launch 2
            "missing_peaks": ["l1_bytes_per_s", "dram_bytes_per_s", "l2_bytes_per_s"],  # launch 1, then 7
        },
    ]


def test_two_gpus_named_by_neither_report_are_two_devices() -> None:
    # an A100's capture without its device name (CC 8.0, 240 launches, no table entry) and the H200 run's
    # per-kernel summary page (CC 9.0, 382 invocations, unidentified): one device {"name": null, launches: 622}
    a = analyze(
        ncu_roofline.read([data("wild/public/a100_opinsight_pooling.csv"), data("train_step.summary-per-kernel.csv")])
    )
    devices = to_dict(a)["devices"]
    assert [(d["name"], d["cc"], d["launches"]) for d in devices] == [(None, "8.0", 240), (None, "9.0", 382)]


@pytest.mark.parametrize("std", [False, True])
@pytest.mark.parametrize(
    "values",
    [
        ["a", "", 'say "hi"', '","', '"",""', "\\", 'x\\",', "]", None, "caf\u00e9", "tab\tnew\nline"],
        [None, None],
        [[], [{"metric": "a", "value": 1.5}], None, [{"metric": "],[", "op": ">"}], [1, [2, 3]]],
        [[[1], [2]], [3]],  # a nested list: "],[" inside an item, so each item is written alone
        ["a", ["b"], 1],  # mixed kinds: each alone
        ["\ud800"],  # a lone surrogate: orjson refuses it
    ],
)
def test_items_cut_from_one_encoding_are_each_items_text(values: list[object], std: bool) -> None:
    each = [jsonout._ENCODERS[std](v) for v in values]
    assert jsonout._each(values, std).tolist() == each


_TRICKY = st.text(alphabet='"\\,[]a\u00e9', max_size=5)


@settings(max_examples=400)
@given(
    st.lists(st.one_of(st.none(), _TRICKY), max_size=8)
    | st.lists(
        st.one_of(st.none(), st.lists(st.one_of(_TRICKY, st.integers(), st.lists(_TRICKY, max_size=2)), max_size=3)),
        max_size=6,
    ),
    st.booleans(),
)
def test_any_items_cut_from_one_encoding_are_each_items_text(values: list[object], std: bool) -> None:
    assert jsonout._each(values, std).tolist() == [jsonout._ENCODERS[std](v) for v in values]


@pytest.mark.parametrize("rows", [0, 1, 3])
@pytest.mark.parametrize(
    "around",
    [{}, {"a": b"[]"}, {"z": b"{}"}, {"a": b"[]", "m": b"[]", "z": b"{}"}],
)
def test_objects_are_the_json_of_their_rows_joined_whole_or_each(rows: int, around: dict[str, bytes]) -> None:
    # each row's value texts as encode writes them; the bracketed keys' texts are a list's items without brackets
    values = {
        "z": [{"u": i} for i in range(rows)],
        "a": [[i, "x"] for i in range(rows)],
        "m": [["m,]", None][: i % 3] for i in range(rows)],
        "b": [None if i % 2 else f"t{i}" for i in range(rows)],
    }
    texts = {
        k: [encode(v).encode()[1:-1] if k in around else encode(v).encode() for v in col] for k, col in values.items()
    }
    want = [encode({k: col[i] for k, col in values.items()}).encode() for i in range(rows)]
    assert jsonout._objects_json(texts, around) == want
    assert jsonout._objects_joined(texts, around) == b",".join(want)


def test_a_summary_pages_launch_says_how_many_launches_it_stands_for() -> None:
    """Schema 5: ``invocations`` per launch object, 1 for a launch, a summary group's Invocations (ncu's count) for
    a row of a summary page, whose ``duration_ns`` is their average: the JSON's launches then add up to the
    summary's GPU time (382 launches, 8.00 ms on train_step's per-kernel page, its raw page's)."""
    page = json.loads(render_json(analysed(data("train_step.summary-per-kernel.csv"))))
    rows = page["launches"]
    assert len(rows) == 68 and sum(x["invocations"] for x in rows) == 382
    total = sum(x["duration_ns"] * x["invocations"] for x in rows if x["duration_ns"] is not None)
    assert total == pytest.approx(page["summary"]["gpu_time_ns"])
    raw = json.loads(render_json(analysed(data("train_step.raw.csv"))))
    assert {x["invocations"] for x in raw["launches"]} == {1}
    assert total == pytest.approx(raw["summary"]["gpu_time_ns"], rel=1e-4)
    # the GPU ran 382 launches, as the header says (devices counted the 68 rows)
    assert [d["launches"] for d in page["devices"]] == [382] == [d["launches"] for d in raw["devices"]]


def test_a_summary_pages_missing_peaks_are_counted_in_launches() -> None:
    """The V100 per-GPU summary (4 invocations of one kernel, no FP64 peak): "missing for 4 of 4 launches", as the
    header's "4 launches" (it said "1 of 1")."""
    from ncu_roofline.report.viewmodel import build_view

    a = analysed(data("reexport/ncu-2024.2/gene_dzv.summary-per-gpu.csv.gz"))
    note = build_view(a).header.missing_peaks
    assert note is not None and note.startswith("Roofline peaks missing for 4 of 4 launches:")
