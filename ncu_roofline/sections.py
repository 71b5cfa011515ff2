"""The ncu section files ncu-roofline ships: where they are installed, what they collect, how to profile.

A wheel installs the repository's ``sections/`` folder as package data ``ncu_roofline/_sections`` (hatch
``force-include`` in pyproject.toml); a source checkout or an editable install uses ``<repo>/sections``.
Two variants, each its own section (and set) in its own file:

``full`` (``NcuRoofline``)
    every metric the roofline, the classifier and the hints read, tensor-core roofline included;
``lite`` (``NcuRooflineLite``)
    the fewest replay passes that still give the roofline, the limiter and the key hints.
"""

from __future__ import annotations

import csv
import io
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from ncu_roofline.errors import InputError, OutputError
from ncu_roofline.sectionfile import EVALUATION_CCS, SectionFile, cc_number, load_section

#: Variant -> (section file name, section identifier, set identifier).
VARIANTS: dict[str, tuple[str, str, str]] = {
    "full": ("NcuRoofline.section", "NcuRoofline", "ncu-roofline"),
    "lite": ("NcuRooflineLite.section", "NcuRooflineLite", "ncu-roofline-lite"),
}

#: (section display name, label) -> metric name for the labels of our own section files, per architecture.
LABEL_TABLE = Path(__file__).resolve().parent / "data" / "section_labels.csv"
LABEL_COLUMNS = ("section", "label", "metric", "cc_min", "cc_max")

#: What ``profile_commands`` puts where the application goes.
APP_PLACEHOLDER = "./app"


def section_folder(package: Path | None = None) -> Path:
    """The folder holding the installed ``.section`` files: ``<package>/_sections`` in a wheel, else
    ``<repo>/sections`` in a source checkout or an editable install (``package``: this package's folder).
    """
    package = package or Path(__file__).resolve().parent
    candidates = (package / "_sections", package.parent / "sections")
    for folder in candidates:
        if any(folder.glob("*.section")):
            return folder
    raise InputError(
        candidates[0],
        f"no ncu-roofline section files here nor in {candidates[1]}: the installation is incomplete, "
        "reinstall ncu-roofline",
    )


def list_section_files(folder: Path | None = None) -> list[Path]:
    """The ``.section`` files of ``folder`` (default: :func:`section_folder`), sorted by name."""
    return sorted((folder or section_folder()).glob("*.section"))


def _variant(variant: str) -> tuple[str, str, str]:
    try:
        return VARIANTS[variant]
    except KeyError:
        raise ValueError(f"unknown section variant {variant!r}: expected one of {', '.join(VARIANTS)}") from None


def section_path(variant: str = "full") -> Path:
    """The installed file of one variant."""
    return section_folder() / _variant(variant)[0]


def load_variant(variant: str = "full") -> SectionFile:
    """The parsed section file of one variant (needs the protobuf package)."""
    return load_section(section_path(variant))


def copy_sections(dest: Path, force: bool = False) -> list[Path]:
    """Copy the section files into ``dest`` (created if missing) and return the files written.

    Never overwrites silently: if any target exists and ``force`` is false, nothing is copied and OutputError
    names the files in the way.
    """
    dest = Path(dest)
    sources = list_section_files()
    if dest.exists() and not dest.is_dir():
        raise OutputError(f"{dest}: exists and is not a folder")
    if dest.exists() and dest.resolve() == sources[0].parent.resolve():
        raise OutputError(f"{dest}: is the installed section folder itself; nothing to copy")
    targets = [dest / source.name for source in sources]
    existing = [target for target in targets if target.exists()]
    if existing and not force:
        names = ", ".join(target.name for target in existing)
        raise OutputError(f"{dest}: {names} already exist; use --force to replace them")
    try:
        dest.mkdir(parents=True, exist_ok=True)
        for source, target in zip(sources, targets, strict=True):
            shutil.copyfile(source, target)
    except OSError as exc:
        raise OutputError(f"{dest}: cannot write the section files: {exc.strerror}") from exc
    return targets


@dataclass(frozen=True)
class ProfileCommand:
    """One step of the workflow: what it does and the exact command line."""

    purpose: str
    command: str


def profile_steps(folder: Path, app: str = APP_PLACEHOLDER) -> list[ProfileCommand]:
    """The ncu command lines that profile ``app`` with the sections in ``folder``, each with its purpose."""
    where = shlex.quote(str(folder))
    full, lite = VARIANTS["full"][1], VARIANTS["lite"][1]
    return [
        ProfileCommand(
            "one run, details CSV straight to a file (ncu-roofline skips the application's own output in it)",
            f"ncu --section-folder {where} --section {full} --csv {app} > report.csv",
        ),
        ProfileCommand(
            "or keep a report (opens in the ncu GUI with the roofline charts): writes report.ncu-rep",
            f"ncu --section-folder {where} --section {full} -o report {app}",
        ),
        ProfileCommand(
            "... and export its details page later, on any machine with ncu",
            "ncu -i report.ncu-rep --csv > report.csv",
        ),
        ProfileCommand(
            "long applications: the lite variant, fewer replay passes (no tensor roofline, no SOL %)",
            f"ncu --section-folder {where} --section {lite} --csv {app} > report.csv",
        ),
    ]


def profile_commands(folder: Path, app: str = APP_PLACEHOLDER) -> list[str]:
    """The exact ncu command lines of :func:`profile_steps`."""
    return [step.command for step in profile_steps(folder, app)]


def describe(folder: Path | None = None) -> str:
    """What ``ncu-roofline sections`` prints: the folder, the files, and the commands to profile with them."""
    folder = folder or section_folder()
    lines = [f"ncu-roofline section files: {folder}"]
    for variant, (file_name, identifier, set_name) in VARIANTS.items():
        lines.append(f"  {identifier:<16} {file_name:<26} variant {variant}, set {set_name}")
    lines += ["", f"Profile (replace {APP_PLACEHOLDER} with your application and its arguments):"]
    for step in profile_steps(folder):
        lines += [f"  # {step.purpose}", f"  {step.command}"]
    lines += [
        "",
        "--section-folder replaces ncu's own section folder: only these sections run, and no stock rules;",
        "`ncu-roofline sections --copy DIR` copies the files, e.g. into your ncu user section folder.",
    ]
    return "\n".join(lines) + "\n"


def collected_metrics(variant: str = "full", *, derived: bool = True) -> dict[str, set[str]]:
    """Compute capability (``"9.0"``) -> every metric name the variant collects there.

    ``derived=False`` leaves out the derived metrics the file defines itself (``derived__ncu_roofline__*``),
    leaving the names ncu measures or reads from the launch and the device.
    """
    section = load_variant(variant)
    return {cc: section.collected(cc) if derived else section.hardware_metrics(cc) for cc in EVALUATION_CCS}


@dataclass(frozen=True)
class LabelRow:
    """A Header label of our sections and the metric it shows on a run of compute capabilities."""

    section: str
    label: str
    metric: str
    cc_min: str
    cc_max: str


def label_rows(variants: tuple[str, ...] = tuple(VARIANTS)) -> list[LabelRow]:
    """The label table of our sections: one row per (section, label, metric) and contiguous run of the
    evaluated compute capabilities where the label shows that metric. Where a label's metric changes with the
    architecture (the L1 writeback spelling), the newest spelling comes first."""
    rows: list[LabelRow] = []
    for variant in variants:
        section = load_variant(variant)
        for ref in section.header:
            # Runs of consecutive CCs with the same (metric, label); ("", "") where the entry does not apply.
            runs: list[tuple[tuple[str, str], list[str]]] = []
            for cc in EVALUATION_CCS:
                resolved = ref.resolve(cc)
                key = (resolved.name, resolved.label or "") if resolved is not None else ("", "")
                if runs and runs[-1][0] == key:
                    runs[-1][1].append(cc)
                else:
                    runs.append((key, [cc]))
            found = [(key, ccs) for key, ccs in runs if key[0]]
            found.sort(key=lambda run: -cc_number(run[1][-1]))
            rows += [LabelRow(section.display_name, label, name, ccs[0], ccs[-1]) for (name, label), ccs in found]
    return rows


def label_table_text(rows: list[LabelRow]) -> str:
    """The rows as the CSV file ``ncu_roofline/data/section_labels.csv``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(LABEL_COLUMNS)
    writer.writerows((r.section, r.label, r.metric, r.cc_min, r.cc_max) for r in rows)
    return out.getvalue()
