"""The section files ncu-roofline ships: they parse against the project's schema, every metric they collect
exists for its architecture (CC 9.0: checked against ncu's own metric list and real H200 exports), and the
helpers that find, copy and describe them behave."""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("google.protobuf", reason="reading section files needs protobuf (the test extra)")

from ncu_roofline import sections
from ncu_roofline.errors import InputError, OutputError
from ncu_roofline.sectionfile import (
    EVALUATION_CCS,
    MetricCatalog,
    SectionFile,
    SectionFileError,
    cc_number,
    check_section,
    check_sections,
    load_section,
    parse_section_text,
)

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
QUERY_GH100 = SHARED / "ncu-reference" / "query-metrics-gh100.txt"
RAW_EXPORTS = [
    SHARED / "ncu-samples" / "h200-micro" / "micro_full.raw.csv",
    SHARED / "ncu-samples" / "h200-llm" / "llm_full.raw.csv",
]
needs_shared = pytest.mark.skipif(
    not QUERY_GH100.exists() or not all(p.exists() for p in RAW_EXPORTS),
    reason="../shared (query-metrics-gh100.txt and the H200 raw exports) is not next to the repository",
)

#: The enum values NVIDIA's own ncu 2025.3 section files use: an older or newer ncu may lack others, and a
#: section file with an unknown enum value does not load at all.
STOCK_ARCH_TOKENS = {
    "CC_72",
    "CC_75",
    "CC_80",
    "CC_86",
    "CC_89",
    "CC_90",
    "CC_100",
    "CC_103",
    "CC_110",
    "CC_120",
    "CC_121",
}

MINIMAL = """\
Identifier: "Tiny"
DisplayName: "Tiny"
Header {
  Metrics {
    Label: "Duration"
    Name: "gpu__time_duration.sum"
  }
}
"""


def raw_names(path: Path) -> list[str]:
    with path.open(newline="", encoding="utf-8") as fh:
        return next(csv.reader(fh))


@pytest.fixture(scope="module")
def gh100() -> MetricCatalog:
    """What ncu can collect on CC 9.0: --query-metrics plus every name seen in the real H200 raw exports."""
    catalog = MetricCatalog.from_query_metrics(QUERY_GH100.read_text(encoding="utf-8"))
    for path in RAW_EXPORTS:
        catalog.add_names(raw_names(path))
    return catalog


@pytest.fixture(scope="module")
def loaded() -> dict[str, SectionFile]:
    return {variant: sections.load_variant(variant) for variant in sections.VARIANTS}


# --- The files parse, and their identities ----------------------------------------------------------------


def test_every_section_file_parses_and_is_a_known_variant() -> None:
    files = sections.list_section_files()
    assert sorted(p.name for p in files) == sorted(v[0] for v in sections.VARIANTS.values())
    for variant, (file_name, identifier, set_name) in sections.VARIANTS.items():
        section = load_section(sections.section_folder() / file_name)
        assert section.identifier == identifier, variant
        assert section.sets == (set_name,), "each variant is its own set, so --set never collects both"
        assert section.filter.scopes == ("CollectionScope_Launch",)


def test_identifiers_and_display_names_are_unique() -> None:
    parsed = [load_section(p) for p in sections.list_section_files()]
    assert check_sections(parsed) == []
    assert check_sections([parsed[0], parsed[0]]), "the duplicate check must be able to fail"


def test_section_files_are_consistent_on_every_architecture() -> None:
    for path in sections.list_section_files():
        assert check_section(load_section(path)) == []


def test_derived_metrics_are_single_binary_operations() -> None:
    for path in sections.list_section_files():
        for definition in load_section(path).definitions:
            assert definition.binary_operations() == 1, definition.name
            assert definition.name.startswith("derived__ncu_roofline__"), definition.name


def test_arch_filters_use_only_enum_values_of_the_stock_sections() -> None:
    for path in sections.list_section_files():
        tokens = set(re.findall(r"\b(?:MinArch|MaxArch):\s*(\S+)", path.read_text(encoding="utf-8")))
        assert tokens <= STOCK_ARCH_TOKENS, f"{path.name}: {sorted(tokens - STOCK_ARCH_TOKENS)}"


def test_every_collected_metric_is_in_the_header(loaded: dict[str, SectionFile]) -> None:
    """A plain details CSV shows Header metrics only: nothing the section collects may live elsewhere."""
    for variant, section in loaded.items():
        for cc in EVALUATION_CCS:
            shown = {r.name for ref in section.header if (r := ref.resolve(cc)) is not None}
            missing = section.hardware_metrics(cc) - shown
            assert not missing, (variant, cc, sorted(missing))


# --- The metric names exist ---------------------------------------------------------------------------------


@needs_shared
def test_cc90_metrics_exist_on_gh100(gh100: MetricCatalog) -> None:
    for path in sections.list_section_files():
        assert check_section(load_section(path), {"9.0": gh100}) == []


@needs_shared
def test_cc90_hardware_metrics_are_in_query_metrics_or_real_exports() -> None:
    """Stronger than the grammar: each CC 9.0 name was collected by real ncu 2025.3.1 on an H200."""
    seen: set[str] = set()
    for path in RAW_EXPORTS:
        seen.update(raw_names(path))
    for variant in sections.VARIANTS:
        names = sections.collected_metrics(variant, derived=False)["9.0"]
        assert names, variant
        assert sorted(names - seen) == [], variant


@needs_shared
def test_catalog_grammar_accepts_every_name_of_the_real_exports() -> None:
    catalog = MetricCatalog.from_query_metrics(QUERY_GH100.read_text(encoding="utf-8"))
    assert len(catalog.base_types) > 3000
    checked = 0
    for path in RAW_EXPORTS:
        for name in raw_names(path):
            base, dot, _ = name.partition(".")
            if dot and base in catalog.base_types:  # bare counters are source-level (instanced) metrics
                assert catalog.knows(name), name
                checked += 1
    assert checked > 1000


@needs_shared
def test_catalog_rejects_names_that_do_not_exist_on_gh100() -> None:
    catalog = MetricCatalog.from_query_metrics(QUERY_GH100.read_text(encoding="utf-8"))
    assert catalog.knows("dram__bytes.sum.per_second")
    assert catalog.knows("lts__t_sector_hit_rate.pct")
    assert catalog.knows("sm__throughput.avg.pct_of_peak_sustained_elapsed")
    assert not catalog.knows("l1tex__lsu_writeback_active_mem_lg.sum.per_second"), "the pre-Hopper spelling"
    assert not catalog.knows("dram__bytes.sum.per_cycle_elapsd")
    assert not catalog.knows("dram__bytes.ratio"), "a counter has no .ratio"
    assert not catalog.knows("lts__t_sector_hit_rate.sum"), "a ratio has no rollup"
    assert not catalog.knows("sm__throughput.avg.per_second"), "a throughput is a percentage"
    assert not catalog.knows("launch__grid_size"), "launch metrics are known only from real exports"


@needs_shared
def test_validator_rejects_an_unknown_metric(gh100: MetricCatalog) -> None:
    broken = parse_section_text(MINIMAL.replace("gpu__time_duration.sum", "gpu__time_durations.sum"), "x.section")
    problems = check_section(broken, {"9.0": gh100})
    assert problems == ["x.section: CC 9.0: metric gpu__time_durations.sum does not exist on this chip"]


@needs_shared
def test_validator_rejects_the_pre_hopper_l1_name_on_cc90(gh100: MetricCatalog) -> None:
    text = sections.section_path("full").read_text(encoding="utf-8")
    wrong = text.replace('"l1tex__lsu_writeback_active_mem_lgds.', '"l1tex__lsu_writeback_active_mem_lg.')
    assert wrong != text
    problems = check_section(parse_section_text(wrong, "wrong.section"), {"9.0": gh100})
    assert any("l1tex__lsu_writeback_active_mem_lg.sum.per_second does not exist" in p for p in problems)


def test_l1_writeback_spelling_follows_the_architecture() -> None:
    collected = sections.collected_metrics("full")
    lsu, lg, lgds = (f"l1tex__lsu_writeback_active{suffix}.sum.per_second" for suffix in ("", "_mem_lg", "_mem_lgds"))
    assert lsu in collected["7.0"] and lg not in collected["7.0"]
    for cc in ("7.5", "8.0", "8.6", "8.9"):
        assert lg in collected[cc] and lgds not in collected[cc], cc
    for cc in ("9.0", "10.0", "12.0"):
        assert lgds in collected[cc] and lg not in collected[cc], cc


def test_dram_metrics_skip_the_integrated_gpus_like_the_stock_sections() -> None:
    collected = sections.collected_metrics("full")
    for cc in ("8.7", "11.0", "12.1"):
        assert "dram__bytes.sum.per_second" not in collected[cc], cc
    for cc in ("7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "10.3", "12.0"):
        assert "dram__bytes.sum.per_second" in collected[cc], cc


#: What the roofline, the classifier and the hints read on CC 9.0 (names as ncu 2025.3.1 writes them).
ANALYSIS_INPUTS_CC90 = {
    "gpu__time_duration.sum",
    "gpc__cycles_elapsed.max",
    "sm__cycles_elapsed.avg.per_second",
    "smsp__cycles_elapsed.avg.per_second",
    "dram__cycles_elapsed.avg.per_second",
    "lts__cycles_elapsed.avg.per_second",
    "l1tex__cycles_elapsed.avg.per_second",
    *(
        f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed"
        for op in ("fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "hadd", "hmul", "hfma")
    ),
    *(f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum.peak_sustained" for op in ("ffma", "dfma", "hfma")),
    "dram__bytes.sum.per_second",
    "dram__bytes.sum.peak_sustained",
    "lts__lts2xbar_cycles_active.sum.per_second",
    "lts__lts2xbar_cycles_active.sum.peak_sustained",
    "l1tex__lsu_writeback_active_mem_lgds.sum.per_second",
    "l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained",
    "sm__inst_executed.avg.per_cycle_active",
    "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__registers_per_thread",
    "launch__grid_size",
    "launch__block_size",
    "launch__waves_per_multiprocessor",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_registers",
    "device__attribute_multiprocessor_count",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "lts__t_sector_hit_rate.pct",
    "l1tex__t_sector_hit_rate.pct",
}
FULL_ONLY_CC90 = {
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum.per_cycle_elapsed",
    "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum.peak_sustained",
    "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.sum.per_cycle_elapsed",
    "sm__ops_path_tensor_src_fp8_sparsity_off.sum.per_cycle_elapsed",
    "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sass__inst_executed_register_spilling",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "lts__t_sectors_srcunit_tex_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "launch__occupancy_limit_barriers",
}


def test_full_collects_what_the_analysis_reads() -> None:
    collected = sections.collected_metrics("full")["9.0"]
    assert sorted((ANALYSIS_INPUTS_CC90 | FULL_ONLY_CC90) - collected) == []
    assert "derived__ncu_roofline__fp32_flop_per_second" in collected


def test_full_collects_the_latency_evidence_and_every_operations_bank_conflicts() -> None:
    """What the audit of the shipped sections found missing (2026-12-07): the stall reasons of a latency verdict's
    reason (every reason the table reads, GMMA's on CC 9.0 only), the schedulers' issue slots and eligible warps
    (the latency hints), the shared bank conflicts and wavefronts of every operation (the loads' and stores'
    alone made a 25 % share of a flash-attention kernel's 0.24 %), and the tensor-pipe instructions that
    estimate tensor work where no operation counter is collected (Volta to Ada)."""
    from ncu_roofline.quantities import BY_NAME

    full = sections.collected_metrics("full", derived=False)
    names = ("warp_cycles_per_issue", "issue_slot_busy_pct", "eligible_warps_per_scheduler")
    latency = {BY_NAME[q].metrics[0] for q in BY_NAME if q.startswith("stall_") or q in names}
    shared = {BY_NAME[q].metrics[0] for q in ("shared_bank_conflicts", "shared_wavefronts")}
    assert sorted((latency | shared) - full["9.0"]) == []
    gmma = BY_NAME["stall_gmma"].metrics[0]
    tensor_inst = "smsp__inst_executed_pipe_tensor.sum.per_cycle_elapsed"
    for cc in ("7.0", "7.5", "8.0", "8.6", "8.9"):
        assert sorted((latency - {gmma} | shared) - full[cc]) == [], cc
        assert gmma not in full[cc] and tensor_inst in full[cc], cc
    assert tensor_inst not in full["9.0"]


def test_lite_collects_the_roofline_and_key_hints_and_less_than_full() -> None:
    lite = sections.collected_metrics("lite", derived=False)
    full = sections.collected_metrics("full", derived=False)
    assert sorted(ANALYSIS_INPUTS_CC90 - lite["9.0"]) == []
    for cc in EVALUATION_CCS:
        assert lite[cc] <= full[cc], cc
        assert len(lite[cc]) < len(full[cc]), cc
    assert not {n for n in lite["9.0"] if n.startswith("sm__ops_path_tensor")}, "no tensor roofline in lite"
    assert "sm__throughput.avg.pct_of_peak_sustained_elapsed" not in lite["9.0"]


def test_tensor_roofline_names_per_architecture() -> None:
    collected = sections.collected_metrics("full", derived=False)
    ops = {cc: {n for n in names if n.startswith("sm__ops_path_tensor")} for cc, names in collected.items()}
    assert len(ops["9.0"]) == 2 * 23, "20 instruction/type pairs plus FP8 on/off and FP64, each achieved and peak"
    assert len(ops["8.9"]) == 2 * 16
    assert "sm__ops_path_tensor_src_int4_sparsity_off.sum.per_cycle_elapsed" in ops["8.9"]
    for cc in ("7.5", "8.0", "8.6", "10.0", "12.0"):
        assert ops[cc] == set(), cc


# --- The parser and the checks can fail -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (MINIMAL.replace("Header {", "Header "), r'^broken\.section:4: .*Expected "\{"'),
        (MINIMAL.replace("Header", "Headr"), "Headr"),
        (MINIMAL + "Filter {\n  MinArch: CC_95\n}\n", "CC_95"),
        (MINIMAL + 'Identifier: "Again"\n', "Identifier"),
        (MINIMAL.replace('Identifier: "Tiny"\n', ""), "Identifier is missing"),
        (MINIMAL.replace('Name: "gpu__time_duration.sum"', "Name: gpu__time_duration.sum"), "string"),
    ],
)
def test_parser_rejects_broken_text(text: str, expected: str) -> None:
    with pytest.raises(SectionFileError, match=expected) as info:
        parse_section_text(text, "broken.section")
    assert isinstance(info.value, InputError)
    assert str(info.value).startswith("broken.section")


def test_stock_files_parts_outside_the_schema_are_passed_over_only_when_asked() -> None:
    """ncu's stock sections have bar charts and tables this schema does not model: a file of ours with them is
    rejected, as ncu would reject a field it does not know; reading a stock file's labels passes over them."""
    text = (
        MINIMAL
        + """Metrics {
  Metrics {
    Label: "Waves Per SM"
    Name: "launch__waves_per_multiprocessor"
  }
}
Body {
  Items {
    BarChart {
      Label: "Pipe Utilization"
      Metrics { Name: "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active" }
    }
  }
}
"""
    )
    with pytest.raises(SectionFileError, match="BarChart"):
        parse_section_text(text, "stock.section")
    section = parse_section_text(text, "stock.section", skip_unknown=True)
    assert [(m.label, m.name) for m in section.metrics] == [("Waves Per SM", "launch__waves_per_multiprocessor")]
    assert [m.name for m in section.header] == ["gpu__time_duration.sum"]
    assert section.body == ()


def test_parser_without_protobuf_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from ncu_roofline import sectionfile
    from ncu_roofline.errors import MissingExtraError

    monkeypatch.setitem(sys.modules, "google.protobuf", None)  # makes "from google.protobuf import" fail
    sectionfile._section_class.cache_clear()
    try:
        with pytest.raises(MissingExtraError, match="pip install protobuf"):
            parse_section_text(MINIMAL)
    finally:
        sectionfile._section_class.cache_clear()


def test_parser_accepts_the_stock_idioms() -> None:
    """Colon before a block, numeric enum values, comments, Options with labels, body-item filters."""
    text = """
    # a comment
    Identifier: "Idioms"
    DisplayName: "Idioms"
    Header {
      Metrics {
        Label: "Pipe"
        Name: "sm__inst_executed_pipe_fp16.avg.pct_of_peak_sustained_active"
        Filter { MaxArch: CC_80 }
        Options {
          Label: "Pipe (FMA)"
          Name: "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active"
          Filter: { MinArch: 86 }
        }
      }
      Metrics {
        Label: "Shared"
        Name: "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active"
        Filter { Items { MinArch: CC_75 MaxArch: CC_75 } Items { MinArch: CC_90 MaxArch: CC_90 } }
      }
    }
    """
    section = parse_section_text(text)
    pipe, shared = section.header
    assert pipe.resolve("8.0") is not None and pipe.resolve("8.0").label == "Pipe"  # type: ignore[union-attr]
    resolved = pipe.resolve("8.6")
    assert resolved is not None
    assert (resolved.name, resolved.label) == (
        "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active",
        "Pipe (FMA)",
    )
    assert [cc for cc in EVALUATION_CCS if shared.resolve(cc)] == ["7.5", "9.0"]


def test_options_win_over_the_entry_and_the_entry_needs_its_own_filter() -> None:
    text = """
    Identifier: "Opt"
    DisplayName: "Opt"
    Header {
      Metrics {
        Label: "L1"
        Name: "l1tex__lsu_writeback_active_mem_lg.sum.per_second"
        Filter { MinArch: CC_75 MaxArch: CC_89 }
        Options { Name: "l1tex__lsu_writeback_active_mem_lgds.sum.per_second" Filter { MinArch: CC_90 } }
      }
    }
    """
    (ref,) = parse_section_text(text).header
    assert ref.resolve("7.0") is None, "no option and the entry's filter does not match"
    assert ref.resolve("8.9").name.endswith("_mem_lg.sum.per_second")  # type: ignore[union-attr]
    assert ref.resolve("12.1").name.endswith("_mem_lgds.sum.per_second")  # type: ignore[union-attr]


def test_checks_find_label_clashes_and_undefined_derived_metrics() -> None:
    text = """
    Identifier: "Bad Name"
    DisplayName: "Bad"
    Header {
      Metrics { Label: "Same" Name: "dram__bytes.sum.per_second" }
      Metrics { Label: "Same" Name: "lts__t_sector_hit_rate.pct" }
      Metrics { Name: "derived__x__late" }
      Metrics { Label: "Undefined on Volta" Name: "derived__x__hopper" }
      Metrics { Label: "Typo" Name: "derived__x__hoper" }
    }
    MetricDefinitions {
      MetricDefinitions { Name: "derived__x__early" Expression: "derived__x__late * 2" }
      MetricDefinitions { Name: "derived__x__late" Expression: "dram__bytes.sum.per_second * 8" }
      MetricDefinitions { Name: "derived__x__late" Expression: "dram__bytes.sum.per_second * 4" }
      MetricDefinitions {
        Name: "derived__x__hopper"
        Expression: "dram__bytes.sum.per_second +"
        Filter { MinArch: CC_90 }
      }
    }
    """
    problems = check_section(parse_section_text(text, "bad.section"), ccs=("7.5", "9.0"))
    joined = "\n".join(problems)
    assert "Identifier 'Bad Name' must be a word" in joined
    assert "Header label 'Same' names both" in joined
    assert "Header metric 'derived__x__late' has no Label" in joined
    assert "derived__x__early reads derived__x__late, which is not defined before it" in joined
    assert "derived__x__hopper: incomplete expression" in joined
    assert "CC 7.5: derived metric derived__x__hopper is used but not defined for this CC" in joined
    assert "CC 9.0: derived metric derived__x__hoper is used but never defined" in joined
    assert "CC 7.5: derived metric derived__x__late is defined twice" in joined


# --- Finding, copying and describing the files ------------------------------------------------------------


def test_section_folder_in_a_source_checkout() -> None:
    assert sections.section_folder() == REPO / "sections"


def test_section_folder_prefers_the_installed_package_data(tmp_path: Path) -> None:
    package = tmp_path / "site-packages" / "ncu_roofline"
    (package / "_sections").mkdir(parents=True)
    (package / "_sections" / "NcuRoofline.section").write_text(MINIMAL, encoding="utf-8")
    assert sections.section_folder(package) == package / "_sections"


def test_section_folder_missing_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="reinstall ncu-roofline"):
        sections.section_folder(tmp_path / "ncu_roofline")


def test_copy_sections_never_overwrites_silently(tmp_path: Path) -> None:
    dest = tmp_path / "my sections"
    written = sections.copy_sections(dest)
    assert sorted(p.name for p in written) == sorted(p.name for p in sections.list_section_files())
    for path in written:
        assert path.read_bytes() == (sections.section_folder() / path.name).read_bytes()
    written[0].write_text("# edited by the user\n", encoding="utf-8")
    with pytest.raises(OutputError, match="already exist; use --force") as info:
        sections.copy_sections(dest)
    assert info.value.exit_code == 5
    assert written[0].read_text(encoding="utf-8") == "# edited by the user\n", "nothing copied on refusal"
    assert sections.copy_sections(dest, force=True) == written
    assert written[0].read_bytes() == (sections.section_folder() / written[0].name).read_bytes()


def test_copy_sections_refuses_a_file_and_the_installed_folder(tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(OutputError, match="not a folder"):
        sections.copy_sections(a_file)
    with pytest.raises(OutputError, match="installed section folder itself"):
        sections.copy_sections(sections.section_folder(), force=True)


def test_profile_commands_are_exact_and_quote_the_folder() -> None:
    folder = Path("/opt/my sections")
    assert sections.profile_commands(folder) == [
        "ncu --section-folder '/opt/my sections' --section NcuRoofline --csv ./app > report.csv",
        "ncu --section-folder '/opt/my sections' --section NcuRoofline -o report ./app",
        "ncu -i report.ncu-rep --csv > report.csv",
        "ncu --section-folder '/opt/my sections' --section NcuRooflineLite --csv ./app > report.csv",
    ]
    assert sections.profile_commands(Path("/s"), app="python train.py")[0].endswith(
        "--csv python train.py > report.csv"
    )


def test_describe_names_the_folder_the_files_and_the_commands() -> None:
    text = sections.describe()
    assert f"ncu-roofline section files: {REPO / 'sections'}" in text
    for command in sections.profile_commands(REPO / "sections"):
        assert f"  {command}\n" in text
    assert "NcuRooflineLite.section" in text


def test_unknown_variant() -> None:
    with pytest.raises(ValueError, match="unknown section variant 'medium'"):
        sections.load_variant("medium")


# --- The label table the reader uses ----------------------------------------------------------------------


def test_label_table_is_up_to_date() -> None:
    expected = sections.label_table_text(sections.label_rows())
    assert sections.LABEL_TABLE.read_text(encoding="utf-8") == expected, (
        "regenerate with: python tools/make_section_export.py --labels-only"
    )


def test_labels_map_to_one_metric_per_architecture() -> None:
    rows = sections.label_rows()
    for cc in EVALUATION_CCS:
        seen: dict[tuple[str, str], str] = {}
        for row in rows:
            if cc_number(row.cc_min) <= cc_number(cc) <= cc_number(row.cc_max):
                key = (row.section, row.label)
                assert seen.setdefault(key, row.metric) == row.metric, (cc, key)
    first = {(r.section, r.label): r.metric for r in reversed(rows)}
    assert first[("ncu-roofline", "L1 Writeback Active Cycles Per Second")].endswith("_mem_lgds.sum.per_second")


# --- The synthetic export "made with" the section (tests/data/sections) ------------------------------------

EXPORTS = REPO / "tests" / "data" / "sections"
MICRO = SHARED / "ncu-samples" / "h200-micro"


def read_rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


def load_tool():  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_section_export", REPO / "tools" / "make_section_export.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_synthetic_export_has_the_shape_of_a_details_page() -> None:
    names = EXPORTS / "micro_ncuroofline.details-names.csv"
    data = names.read_bytes()
    assert b"\r\n" not in data
    rows = read_rows(names)
    header = rows[0]
    assert header[-9:] == [
        "Section Name",
        "Metric Name",
        "Metric Unit",
        "Metric Value",
        "Rule Name",
        "Rule Type",
        "Rule Description",
        "Estimated Speedup Type",
        "Estimated Speedup",
    ]
    width = header.index("Metric Value") + 2  # ncu ends a metric row with one empty field
    assert {len(row) for row in rows[1:]} == {width}
    assert {row[-1] for row in rows[1:]} == {""}
    assert {row[header.index("Section Name")] for row in rows[1:]} == {"ncu-roofline"}
    assert all(line.endswith('",') for line in data.decode().splitlines()[1:])


@needs_shared
def test_synthetic_export_has_the_columns_of_the_real_details_page() -> None:
    real = read_rows(MICRO / "micro_full.details-names.csv")[0]
    for name in ("micro_ncuroofline.details.csv", "micro_ncuroofline.details-names.csv"):
        assert read_rows(EXPORTS / name)[0] == real


def test_synthetic_export_rows_follow_the_section_header() -> None:
    rows = read_rows(EXPORTS / "micro_ncuroofline.details-names.csv")
    header = rows[0]
    id_col, cc_col, name_col = header.index("ID"), header.index("CC"), header.index("Metric Name")
    section = sections.load_variant("full")
    by_launch: dict[str, list[str]] = {}
    for row in rows[1:]:
        by_launch.setdefault(row[id_col], []).append(row[name_col])
        assert row[cc_col] == "9.0"
    assert sorted(by_launch, key=int) == [str(i) for i in range(16)]
    expected = [r.name for ref in section.header if (r := ref.resolve("9.0")) is not None]
    for launch, names in by_launch.items():
        assert names == expected, launch


def test_synthetic_labels_and_names_exports_align_with_the_label_table() -> None:
    labels = read_rows(EXPORTS / "micro_ncuroofline.details.csv")
    names = read_rows(EXPORTS / "micro_ncuroofline.details-names.csv")
    assert len(labels) == len(names)
    header = labels[0]
    section_col, name_col = header.index("Section Name"), header.index("Metric Name")
    table = {
        (r.section, r.label): r.metric
        for r in sections.label_rows()
        if cc_number(r.cc_min) <= 90 <= cc_number(r.cc_max)
    }
    for label_row, name_row in zip(labels[1:], names[1:], strict=True):
        assert label_row[:name_col] == name_row[:name_col]
        assert label_row[name_col + 1 :] == name_row[name_col + 1 :]
        assert table[(label_row[section_col], label_row[name_col])] == name_row[name_col]


@needs_shared
def test_synthetic_export_is_reproducible_from_the_real_samples() -> None:
    tool = load_tool()
    labels, names = tool.build_exports(
        MICRO / "micro_full.raw.csv",
        MICRO / "micro_full.raw-base.csv",
        MICRO / "micro_full.details-names.csv",
    )
    assert (EXPORTS / "micro_ncuroofline.details.csv").read_text(encoding="utf-8") == labels
    assert (EXPORTS / "micro_ncuroofline.details-names.csv").read_text(encoding="utf-8") == names


def number(text: str) -> float:
    return float(text.replace(",", ""))


@pytest.fixture(scope="module")
def export_values() -> dict[tuple[str, str], tuple[str, str]]:
    """(launch ID, metric name) -> (unit, value) of the synthetic names export."""
    rows = read_rows(EXPORTS / "micro_ncuroofline.details-names.csv")
    header = rows[0]
    i, n, u, v = (header.index(c) for c in ("ID", "Metric Name", "Metric Unit", "Metric Value"))
    return {(row[i], row[n]): (row[u], row[v]) for row in rows[1:]}


def test_synthetic_export_keeps_ncu_own_numbers(
    export_values: dict[tuple[str, str], tuple[str, str]],
) -> None:
    """Copied from ncu's details page of the same launches (micro_full.details-names.csv)."""
    assert export_values[("0", "gpu__time_duration.sum")] == ("us", "189.41")
    assert export_values[("0", "dram__bytes.sum.per_second")] == ("Tbyte/s", "4.17")
    assert export_values[("0", "launch__grid_size")] == ("", "1,056")
    assert export_values[("9", "sass__inst_executed_register_spilling")] == ("inst", "160,664,064")
    assert export_values[("0", "device__attribute_display_name")] == ("", "NVIDIA H200")


def test_derived_metrics_give_the_ground_truth_of_the_micro_kernels(
    export_values: dict[tuple[str, str], tuple[str, str]],
) -> None:
    """The fractions of peak ../shared/ncu-samples/README.md lists for the micro kernels (by construction and
    checked against ncu's own roofline charts): fp32_fma 91 %, fp64_fma 98 %, half_hfma2 50 %, stream_triad
    87 % of DRAM."""

    def fraction(launch: str, achieved: str, peak: str) -> float:
        return number(export_values[(launch, achieved)][1]) / number(export_values[(launch, peak)][1])

    d = "derived__ncu_roofline__"
    assert fraction("5", f"{d}fp32_flop_per_second", f"{d}fp32_peak_flop_per_second") == pytest.approx(0.91, abs=0.01)
    assert fraction("6", f"{d}fp64_flop_per_second", f"{d}fp64_peak_flop_per_second") == pytest.approx(0.98, abs=0.01)
    assert fraction("7", f"{d}fp16_flop_per_second", f"{d}fp16_peak_flop_per_second") == pytest.approx(0.50, abs=0.01)
    triad = number(export_values[("0", "dram__bytes.sum.per_second")][1]) * 1e12
    peak = number(export_values[("0", f"{d}dram_peak_bytes_per_second")][1])
    assert triad / peak == pytest.approx(0.87, abs=0.01)


@needs_shared
def test_derived_metrics_equal_those_of_the_stock_sections() -> None:
    """Our MetricDefinitions against the stock sections' own derived metrics in the real raw export."""
    raw = read_rows(MICRO / "micro_full.raw-base.csv")
    header = raw[0]
    exported = read_rows(EXPORTS / "micro_ncuroofline.details-names.csv")
    eh = exported[0]
    mine = {(row[eh.index("ID")], row[eh.index("Metric Name")]): row[eh.index("Metric Value")] for row in exported[1:]}
    d = "derived__ncu_roofline__"
    pairs = {
        f"{d}l1_lgds_bytes_per_second": "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second",
        f"{d}fp32_peak_flop_per_cycle": "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2",
        f"{d}fp64_peak_flop_per_cycle": "derived__sm__sass_thread_inst_executed_op_dfma_pred_on_x2",
        f"{d}fp16_peak_flop_per_cycle": "derived__sm__sass_thread_inst_executed_op_hfma_pred_on_x4",
    }
    for row in raw[2:]:
        for ours, stock in pairs.items():
            assert number(mine[(row[0], ours)]) == pytest.approx(number(row[header.index(stock)]), rel=1e-6)


@needs_shared
def test_auto_scaled_cells_reproduce_ncu_details_text() -> None:
    """Cells not copied from ncu's details page are scaled from the raw page; where ncu's own text exists,
    the scaling reproduces it exactly."""
    tool = load_tool()
    raw, base = MICRO / "micro_full.raw.csv", MICRO / "micro_full.raw-base.csv"
    _, plain = tool.read_raw(raw, base, None)
    _, real = tool.read_raw(raw, base, MICRO / "micro_full.details-names.csv")
    section = sections.load_variant("full")
    compared = 0
    for launch, reference in zip(plain, real, strict=True):
        for _label, name, unit, value in tool.metric_cells(section, launch):
            if name in reference.details:
                assert (unit, value) == reference.details[name], (launch.identity[0], name)
                compared += 1
    assert compared > 600


def test_a_version_given_without_its_ncu_names_the_form_it_loads() -> None:
    """``sections --ncu 2024.2`` (a version, no ncu run): the shipped files are the newest form, which ncu 2024.2
    rejects (tests/data/ncu-cli/list-sections-2024.2-rejected.txt), so it says so and gives the copy command; it
    said "the files here are the ncu 2024.2 form"."""
    from ncu_roofline.sectionforms import NEWEST_FORM
    from ncu_roofline.sections import COPY_PLACEHOLDER, NcuChoice, ncu_report, section_folder

    lines, check = ncu_report(NcuChoice(None, "2024.2", "given with --ncu"), section_folder())
    assert check is None
    assert f"the files here are the ncu {NEWEST_FORM.version} form; it loads the ncu 2024.2 form" in lines[0]
    assert lines[1].strip() == f"ncu-roofline sections --copy {COPY_PLACEHOLDER} --ncu 2024.2"
    newest, _ = ncu_report(NcuChoice(None, NEWEST_FORM.version, "given with --ncu"), section_folder())
    assert newest == [
        f"ncu {NEWEST_FORM.version} (given with --ncu, not run): the files here are the ncu {NEWEST_FORM.version} "
        "form, the one it loads."
    ]
    # a copy written for 2024.2 is that form
    copied, _ = ncu_report(NcuChoice(None, "2024.2", "given with --ncu"), section_folder(), folder_form="2024.2")
    assert "the files here are the ncu 2024.2 form, the one it loads" in copied[0]
