"""The section-file parser and its checks: schema, per-architecture resolution, metric-name catalog."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

pytest.importorskip("google.protobuf", reason="reading section files needs protobuf (the test extra)")

from ncu_roofline.errors import InputError
from ncu_roofline.sectionfile import (
    EVALUATION_CCS,
    MetricCatalog,
    SectionFileError,
    check_section,
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
    broken = parse_section_text(
        MINIMAL.replace("gpu__time_duration.sum", "gpu__time_durations.sum"), "x.section"
    )
    problems = check_section(broken, {"9.0": gh100})
    assert problems == ["x.section: CC 9.0: metric gpu__time_durations.sum does not exist on this chip"]


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
    }
    MetricDefinitions {
      MetricDefinitions { Name: "derived__x__early" Expression: "derived__x__late * 2" }
      MetricDefinitions { Name: "derived__x__late" Expression: "dram__bytes.sum.per_second * 8" }
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
