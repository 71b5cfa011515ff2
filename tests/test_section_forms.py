"""Section files for older ncu versions: ``sections --copy DIR --ncu BIN|VERSION`` writes what that ncu loads.

The decisive checks run the real ncu 2022.3 and 2024.2 (``tools/install_ncu.sh``; CI installs both, and with CI=true
a missing ncu fails these tests instead of skipping them): the written files load (``--list-sections``), every
metric they collect on gv100, tu102, ga100, ga102, ad102 and gh100 is in that ncu's ``--query-metrics`` or in its
own stock sections, and each form's schema is the one in that ncu's own ``ProfilerSection.proto``. Without ncu, the
same metric check runs on ncu 2024.2's catalogs in ../shared, and the rewrite is checked against the newest form.
"""

from __future__ import annotations

import csv
import os
import re
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("google.protobuf", reason="reading section files needs protobuf (the test extra)")

from _ncu import (
    CHIPS,
    VERSIONS,
    chip_cc,
    installed_ncu,
    list_chips,
    proto_folder,
    query_metrics,
    read_protos,
    require_ncu,
    stock_metric_names,
)

from ncu_roofline import sections
from ncu_roofline.cli import EXIT_OK, main
from ncu_roofline.sectionfile import (
    ARCH_ENUM,
    MetricCatalog,
    SectionFile,
    cc_number,
    check_section,
    load_section,
    parse_section_text,
    schema_messages,
)
from ncu_roofline.sectionforms import FORMS, NEWEST_FORM, Form, form_for, parse_version, rewrite

REPO = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data" / "ncu-cli"
SHARED = REPO.parent / "shared"
CATALOGS_2024_2 = SHARED / "ncu-reference" / "query-metrics-2024.2"
LABELS_BY_VERSION = SHARED / "ncu-reference" / "labels-by-version.csv"
#: A raw page exported by the real ncu 2022.3 from a 2020.1 report: the device attributes every report carries.
RAW_2022_3 = SHARED / "ncu-wild" / "ncu-2022.3" / "gene_dzv.raw.csv"
IDENTIFIERS = tuple(v[1] for v in sections.VARIANTS.values())
OLD_FORMS = [v for v in FORMS if v != NEWEST_FORM.version]


#: written()'s result per form (by identity: a Form holds dicts), with the form it was made for.
_WRITTEN: dict[int, tuple[Form, dict[str, SectionFile]]] = {}


def written(form: Form) -> dict[str, SectionFile]:
    """Each variant, rewritten into the form and parsed back against the form's own schema (once per form: the
    tests only read the parsed files)."""
    if id(form) not in _WRITTEN:
        out = {}
        for variant in sections.VARIANTS:
            path = sections.section_path(variant)
            text = sections.section_text(path, form)
            out[variant] = parse_section_text(text, path.name, form.schema)
        _WRITTEN[id(form)] = (form, out)
    return _WRITTEN[id(form)][1]


def hardware_names(section: SectionFile, cc: str) -> set[str]:
    return section.hardware_metrics(cc)


def is_device_attribute(name: str) -> bool:
    return name.startswith("device__attribute_")


# --- Versions ------------------------------------------------------------------------------------------------


def test_version_from_real_ncu_version_text() -> None:
    assert parse_version((DATA / "version-2022.3.txt").read_text()) == (2022, 3, 0)
    assert parse_version((DATA / "version-2024.2.txt").read_text()) == (2024, 2, 0)
    assert parse_version("2024.2.0.16") == (2024, 2, 0)
    with pytest.raises(ValueError, match="no ncu version"):
        parse_version("Copyright (c) 2018-2024 NVIDIA Corporation")


@pytest.mark.parametrize(
    ("version", "form", "noted"),
    [
        ("2022.3.0.0", "2022.3", False),
        ("2023.1", "2022.3", True),  # between checked versions: the older neighbour
        ("2024.2.1", "2024.2", False),
        ("2025.1.0", "2024.2", True),
        ("2025.3.1", "2025.3", False),
        ("2026.1", "2025.3", True),  # newer than the newest: the newest form
        ("2021.2.1", "2022.3", True),  # older than checked: the oldest form, said to be unchecked
    ],
)
def test_form_for_each_version(version: str, form: str, noted: bool) -> None:
    choice = form_for(version)
    assert choice.form.version == form
    assert (choice.note is not None) == noted


# --- The rewrite, offline --------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", OLD_FORMS)
def test_rewritten_files_use_only_what_the_form_knows(version: str) -> None:
    form = FORMS[version]
    for variant in sections.VARIANTS:
        text = sections.section_text(sections.section_path(variant), form)
        tokens = set(re.findall(r"\b(?:MinArch|MaxArch):\s*(\w+)", text))
        assert tokens <= set(form.schema.arch_values), (variant, sorted(tokens - set(form.schema.arch_values)))
        assert text.startswith(
            f"# ncu-roofline section file {sections.VARIANTS[variant][0]}, written for ncu {version}"
        )
        # parse_section_text with the form's schema rejects any field it lacks
        parse_section_text(text, variant, form.schema)
    if ("MetricDefinition", "Filter") in form.schema.absent_fields:
        filtered = 'Identifier: "T"\nDisplayName: "T"\nMetricDefinitions { MetricDefinitions {\n'
        filtered += '  Name: "derived__t" Expression: "a__b.sum * 2" Filter { MinArch: CC_90 } } }\n'
        parse_section_text(filtered, "T")  # the newest schema has the field
        with pytest.raises(Exception, match='no field named "Filter"'):
            parse_section_text(filtered, "T", form.schema)


@pytest.mark.parametrize("version", OLD_FORMS)
def test_rewrite_collects_what_the_newest_form_collects_on_every_architecture_the_version_knows(version: str) -> None:
    """Moving bounds and leaving out entries must not change what an entry resolves to on any known CC: only the
    form's renames, its unavailable metrics, the derived metrics it cannot define and the counters a chip lacks
    (Xavier's DRAM, with the derived metrics that read them) differ."""
    form = FORMS[version]
    newest = {variant: sections.load_variant(variant) for variant in sections.VARIANTS}
    for variant, section in written(form).items():
        defined = {d.name for d in section.definitions}
        operands = {d.name: d.operands() for d in newest[variant].definitions}
        for cc in form.evaluation_ccs():
            expected = set()
            for name in newest[variant].requested(cc):
                base, dot, rest = name.partition(".")
                if not form.can_collect(base) or (name.startswith("derived__") and name not in defined):
                    continue
                if cc_number(cc) in form.absent_archs([name, *operands.get(name, ())]):
                    continue
                expected.add(form.renames.get(base, base) + dot + rest)
            assert section.requested(cc) == expected, (variant, cc)
        assert check_section(section, ccs=form.evaluation_ccs()) == [], variant


def test_the_2022_3_form_keeps_derived_metrics_defined_everywhere() -> None:
    full = written(FORMS["2022.3"])["full"]
    names = {d.name for d in full.definitions}
    assert "derived__ncu_roofline__fp32_flop_per_second" in names
    assert "derived__ncu_roofline__l2_peak_bytes_per_second" in names
    # defined on some architectures only (a Filter 2022.3 has no place for): left out, operands still collected
    assert "derived__ncu_roofline__l1_lgds_bytes_per_second" not in names
    assert "l1tex__lsu_writeback_active_mem_lgds.sum.per_second" in full.requested("9.0")
    assert "l1tex__lsu_writeback_active_mem_lg.sum.per_second" in full.requested("8.6")


def test_newest_form_is_the_shipped_file_unchanged() -> None:
    for variant in sections.VARIANTS:
        path = sections.section_path(variant)
        assert sections.section_text(path, NEWEST_FORM) == path.read_text(encoding="utf-8")
        assert rewrite(path.read_text(encoding="utf-8"), NEWEST_FORM).changes == []


def test_an_entry_only_for_newer_architectures_is_left_out_and_bounds_move_inside() -> None:
    text = """\
Identifier: "T"
DisplayName: "T"
Header {
  Metrics { Label: "Blackwell only" Name: "sm__a.sum" Filter { MinArch: CC_100 } }
  Metrics { Label: "Ada to Blackwell" Name: "sm__b.sum" Filter { MinArch: CC_89 MaxArch: CC_100 } }
  Metrics { Label: "Items" Name: "sm__c.sum" Filter { Items { MaxArch: CC_72 } Items { MinArch: CC_103 } } }
  Metrics {
    Label: "Options" Name: "sm__d.sum"
    Options { Name: "sm__d_new.sum" Filter { MinArch: CC_120 } }
  }
}
"""
    form = FORMS["2024.2"]
    out = rewrite(text, form).text
    parsed = parse_section_text(out, "T", form.schema)
    assert [ref.name for ref in parsed.header] == ["sm__b.sum", "sm__c.sum", "sm__d.sum"]
    b, c, d = parsed.header
    assert (b.filter.bounds.min_cc, b.filter.bounds.max_cc) == (89, 90)
    assert [(i.min_cc, i.max_cc) for i in c.filter.items] == [(None, 72)]
    assert d.options == ()


def test_an_older_ncu_rejects_the_newest_form_for_its_enum_values() -> None:
    """The reason for the rewrite, as our parser sees it with each form's schema."""
    for version in OLD_FORMS:
        with pytest.raises(Exception, match="CC_100"):
            parse_section_text(sections.section_path("lite").read_text(), "lite", FORMS[version].schema)


# --- Metric names on the six chips, from ncu 2024.2's own catalogs in ../shared ---------------------------------


def attested_2024_2() -> set[str]:
    """Names ncu 2024.2's stock sections use (labels-by-version.csv) and the device attributes of a real raw page."""
    with LABELS_BY_VERSION.open(newline="", encoding="utf-8") as fh:
        names = {row["metric_name"] for row in csv.DictReader(fh) if row["version"].startswith("2024.2")}
    with RAW_2022_3.open(newline="", encoding="utf-8") as fh:
        names.update(n for n in next(csv.reader(fh)) if is_device_attribute(n))
    return names


@pytest.mark.skipif(
    not CATALOGS_2024_2.is_dir() or not LABELS_BY_VERSION.exists() or not RAW_2022_3.exists(),
    reason="../shared/ncu-reference (ncu 2024.2 catalogs) and ../shared/ncu-wild are not next to the repository",
)
def test_2024_2_form_metrics_exist_in_ncu_2024_2_catalogs_of_six_chips() -> None:
    form = FORMS["2024.2"]
    known = attested_2024_2()
    checked = 0
    for chip, cc in CHIPS.items():
        catalog = MetricCatalog.from_query_metrics((CATALOGS_2024_2 / f"{chip}.txt").read_text(encoding="utf-8"))
        for variant, section in written(form).items():
            names = hardware_names(section, cc)
            missing = sorted(n for n in names if not catalog.knows(n) and n.split(".")[0] not in known)
            assert not missing, (variant, chip, missing)
            checked += len(names)
    assert checked > 400


@pytest.mark.skipif(not CATALOGS_2024_2.is_dir(), reason="../shared/ncu-reference/query-metrics-2024.2 is missing")
def test_the_catalog_check_can_fail_on_the_newest_form() -> None:
    """The newest form's Ada names (``_v2``) are not in ncu 2024.2's ad102 catalog: the rename is needed."""
    catalog = MetricCatalog.from_query_metrics((CATALOGS_2024_2 / "ad102.txt").read_text(encoding="utf-8"))
    names = hardware_names(sections.load_variant("full"), "8.9")
    assert "sm__pipe_tensor_cycles_active_v2.avg.pct_of_peak_sustained_active" in names
    assert not catalog.knows("sm__pipe_tensor_cycles_active_v2.avg.pct_of_peak_sustained_active")


# --- ncu --list-sections output --------------------------------------------------------------------------------


def test_list_sections_output_of_real_ncu_is_read() -> None:
    listed, errors = sections.parse_list_sections((DATA / "list-sections-2022.3-loaded.txt").read_text())
    assert listed == IDENTIFIERS and errors == ()
    listed, errors = sections.parse_list_sections((DATA / "list-sections-2024.2-rejected.txt").read_text())
    assert listed == ()
    assert errors == (
        'NcuRoofline.section: Error: Line=163 Column=6 Unknown enumeration value of "CC_100" for field "MaxArch".',
        'NcuRooflineLite.section: Error: Line=156 Column=6 Unknown enumeration value of "CC_100" for field "MaxArch".',
    )


# --- The command, with a stand-in ncu (a script that answers as the real one does) ------------------------------


def fake_ncu(folder: Path, version_file: str, listing: str) -> Path:
    """An ``ncu`` that prints a real ncu's ``--version`` text and a saved ``--list-sections`` output."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "ncu"
    script.write_text(
        f'#!/bin/sh\nif [ "$1" = "--version" ]; then cat "{DATA / version_file}"; else cat "{DATA / listing}"; fi\n',
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def run_cli(*args: str, path: str) -> tuple[int, str]:
    from click.testing import CliRunner

    result = CliRunner().invoke(main, list(args), env={"PATH": path})
    return result.exit_code, result.output


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script stands in for ncu")
def test_copy_writes_the_form_of_the_ncu_on_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    fake_ncu(bin_dir, "version-2022.3.txt", "list-sections-2022.3-loaded.txt")
    code, output = run_cli("sections", "--copy", str(tmp_path / "out"), path=f"{bin_dir}:/usr/bin:/bin")
    assert code == EXIT_OK, output
    assert "version 2022.3.0 (the ncu on PATH)" in output
    assert "it loads both sections" in output
    text = (tmp_path / "out" / "NcuRoofline.section").read_text()
    assert "written for ncu 2022.3" in text
    assert "CC_100" not in "".join(line for line in text.splitlines() if not line.startswith("#"))


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script stands in for ncu")
def test_sections_says_the_files_do_not_load_and_gives_the_command(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    ncu = fake_ncu(bin_dir, "version-2024.2.txt", "list-sections-2024.2-rejected.txt")
    code, output = run_cli("sections", path=f"{bin_dir}:/usr/bin:/bin")
    assert code == EXIT_OK, output
    assert f"ncu: {ncu}, version 2024.2.0 (the ncu on PATH)" in output
    assert "do not load in it" in output
    assert 'Unknown enumeration value of "CC_100"' in output
    assert f"ncu-roofline sections --copy ./ncu-roofline-sections --ncu {ncu}" in output
    # the profile commands use the files it will load, not the ones it refused
    assert "ncu --section-folder ncu-roofline-sections --section NcuRoofline --csv ./app" in output
    assert f"--section-folder {sections.section_folder()} --section" not in output
    # an ncu named with --ncu is the one the commands run
    code, output = run_cli("sections", "--ncu", str(ncu), path="/usr/bin:/bin")
    assert code == EXIT_OK, output
    assert f"{ncu} --section-folder ncu-roofline-sections --section NcuRooflineLite --csv ./app" in output


def test_without_ncu_the_copy_is_the_newest_form_and_says_how_to_write_an_older_one(tmp_path: Path) -> None:
    code, output = run_cli("sections", "--copy", str(tmp_path / "out"), path=str(tmp_path))
    assert code == EXIT_OK, output
    assert "ncu: none on PATH" in output and "--ncu 2024.2" in output
    for variant in sections.VARIANTS:
        path = sections.section_path(variant)
        assert (tmp_path / "out" / path.name).read_bytes() == path.read_bytes()


def test_copy_for_a_version_given_by_number(tmp_path: Path) -> None:
    code, output = run_cli("sections", "--copy", str(tmp_path / "out"), "--ncu", "2024.2", path=str(tmp_path))
    assert code == EXIT_OK, output
    assert "written for ncu 2024.2" in (tmp_path / "out" / "NcuRooflineLite.section").read_text()


def test_an_ncu_that_is_not_there_is_a_one_line_error(tmp_path: Path) -> None:
    code, output = run_cli("sections", "--ncu", str(tmp_path / "nope"), path=str(tmp_path))
    assert code != EXIT_OK
    assert "no such ncu command" in output
    assert "Traceback" not in output


# --- The real ncu (installed by tools/install_ncu.sh; always in CI) ------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_real_ncu_loads_what_sections_copy_writes_for_it(version: str, tmp_path: Path) -> None:
    ncu = require_ncu(version)
    dest = tmp_path / f"sections-{version}"
    done = subprocess.run(
        [sys.executable, "-m", "ncu_roofline", "sections", "--copy", str(dest), "--ncu", str(ncu)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"in the ncu {version} form" in done.stderr
    listing = subprocess.run(
        [str(ncu), "--list-sections", "--section-folder", str(dest)], capture_output=True, text=True, check=True
    )
    listed, errors = sections.parse_list_sections(listing.stdout + listing.stderr)
    assert errors == (), listing.stdout
    assert set(listed) == set(IDENTIFIERS), listing.stdout
    assert "Error" not in listing.stdout + listing.stderr


@pytest.mark.parametrize("version", VERSIONS)
def test_real_ncu_rejects_the_newest_form(version: str) -> None:
    """The check can fail: the shipped files (ncu 2025.3's enum values) do not load in an older ncu."""
    ncu = require_ncu(version)
    check = sections.check_load(str(ncu), sections.section_folder())
    assert not check.loads()
    assert any('"CC_100"' in error for error in check.errors), check.errors


@pytest.mark.parametrize("version", VERSIONS)
def test_form_metrics_exist_on_every_chip_the_real_ncu_supports(version: str) -> None:
    """Every metric the form collects on each chip ncu lists (``--list-chips``: the six of the shared catalogs, and
    the other Volta to Hopper chips, the integrated ga10b and gv11b among them): in that ncu's --query-metrics for
    the chip, or a device attribute, or named by its own stock sections and rules and listed by --query-metrics
    for no chip at all (launch__, sass__, occupancy). A counter some chip lists is held to each chip's list: the
    stock sections name ``dram__bytes``, which gv11b (Xavier) does not have."""
    ncu = require_ncu(version)
    form = form_for(version).form
    chips = list_chips(ncu)
    assert set(CHIPS) <= set(chips)
    with ThreadPoolExecutor(4) as pool:  # ncu mostly waits: four at a time
        listings = dict(zip(chips, pool.map(lambda chip: query_metrics(ncu, chip), chips), strict=True))
    catalogs = {chip: MetricCatalog.from_query_metrics(listings[chip]) for chip in chips}
    queried = set().union(*(catalog.base_types for catalog in catalogs.values()))
    stock_bases = {name.split(".")[0] for name in stock_metric_names(ncu)} - queried
    assert {"launch__grid_size", "dram__bytes"} & stock_bases == {"launch__grid_size"}
    checked = 0
    for chip in chips:
        cc = chip_cc(chip)
        assert cc is not None, f"ncu {version} lists chip {chip}, which this test does not know"
        catalog = catalogs[chip]
        assert len(catalog.base_types) > 1000, chip
        for variant, section in written(form).items():
            names = hardware_names(section, cc)
            missing = sorted(
                name
                for name in names
                if not catalog.knows(name) and name.split(".")[0] not in stock_bases and not is_device_attribute(name)
            )
            assert not missing, (version, variant, chip, missing)
            checked += len(names)
    assert checked > 1000


@pytest.mark.parametrize("version", VERSIONS)
def test_form_schema_is_the_real_ncu_proto(version: str) -> None:
    """The fields each form keeps exist, nested the same way, in that ncu's ProfilerSection.proto; the fields it
    leaves out do not; its architecture and scope enum values are exactly those of the .proto."""
    ncu = require_ncu(version)
    messages, enums = read_protos(proto_folder(ncu))
    form = FORMS[version]
    ours = schema_messages()
    problems: list[str] = []
    enum_types: dict[str, set[str]] = {}

    def walk(our: str, real: str, path: str, seen: set[tuple[str, str]]) -> None:
        if (our, real) in seen:
            return
        seen.add((our, real))
        for name, _label, kind in ours[our]:
            absent = (our, name) in form.schema.absent_fields
            if name not in messages[real]:
                if not absent:
                    problems.append(f"{path}.{name}: not in ncu {version}'s {real}")
                continue
            if absent:
                problems.append(f"{path}.{name}: left out of the form, but ncu {version}'s {real} has it")
            real_type = messages[real][name]
            if kind.startswith("enum:"):
                enum_types.setdefault(kind[5:], set()).add(real_type)
            elif kind in ours:
                walk(kind, real_type, f"{path}.{name}", seen)

    walk("ProfilerSection", "ProfilerSection", "ProfilerSection", set())
    assert problems == []
    (arch_enum,) = enum_types["HWArchitectureType"]
    real_archs = {v for v in enums[arch_enum] if re.fullmatch(r"CC_\d+", v) and ARCH_ENUM.get(v, 0) >= 70}
    assert real_archs == set(form.schema.arch_values)
    (scope_enum,) = enum_types["CollectionScope"]
    assert set(enums[scope_enum]) == set(form.schema.scopes)


def test_ncu_discovery_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NCU_ROOFLINE_NCU_PREFIX", str(tmp_path))
    assert installed_ncu("2024.2") is None
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        require_ncu("2024.2")
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match=r"tools/install_ncu\.sh"):
        require_ncu("2024.2")
    assert os.environ["NCU_ROOFLINE_NCU_PREFIX"] == str(tmp_path)


def test_load_section_of_the_written_files_round_trips(tmp_path: Path) -> None:
    written_paths = sections.copy_sections(tmp_path, form=FORMS["2022.3"])
    for path in written_paths:
        assert load_section(path).identifier in IDENTIFIERS  # the newest schema reads every older form too


# --- The re-exports of tools/reexport_ncu_rep.py (fixtures for the cross-version tests) ----------------------------

REEXPORT = Path(__file__).resolve().parent / "data" / "reexport"


def test_reexport_fixtures_are_the_files_their_readme_lists() -> None:
    readme = (REEXPORT / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `(ncu-[\d.]+/[^`]+\.csv\.gz)` \| `ncu ", readme, flags=re.MULTILINE))
    present = {str(p.relative_to(REEXPORT)) for p in REEXPORT.rglob("*.csv.gz")}
    assert listed == present
    assert len(present) >= 50


@pytest.mark.parametrize(
    ("version", "report", "flavour", "options"),
    [
        ("2022.3", "v100_summit_gene_dzv.ncu-rep", "gene_dzv.raw", ("--page", "raw")),
        ("2024.2", "v100_summit_gene_dzv.ncu-rep", "gene_dzv.summary-per-kernel", ("--print-summary", "per-kernel")),
    ],
)
def test_reexport_fixture_is_what_real_ncu_prints(
    version: str, report: str, flavour: str, options: tuple[str, ...]
) -> None:
    """Spot check: the fixture is byte for byte what the real ncu prints today (the whole set: --check)."""
    import gzip

    ncu = require_ncu(version)
    source = SHARED / "ncu-wild" / "public" / report
    if not source.exists():
        pytest.skip(f"{source} is not next to the repository")
    done = subprocess.run([str(ncu), "-i", str(source), "--csv", *options], capture_output=True, check=True)
    fixture = REEXPORT / f"ncu-{version}" / f"{flavour}.csv.gz"
    assert gzip.decompress(fixture.read_bytes()) == done.stdout
