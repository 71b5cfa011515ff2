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
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ncu_roofline.errors import InputError, OutputError
from ncu_roofline.sectionfile import EVALUATION_CCS, SectionFile, cc_number, load_section
from ncu_roofline.sectionforms import NEWEST_FORM, Form, FormChoice, form_for, parse_version, rewrite

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


def copy_sections(dest: Path, force: bool = False, form: Form = NEWEST_FORM) -> list[Path]:
    """Write the section files into ``dest`` (created if missing) in one ncu version's form and return the files
    written: the newest form is a plain copy; an older form is the rewrite :mod:`ncu_roofline.sectionforms` makes.

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
    texts = [section_text(source, form) for source in sources]
    try:
        dest.mkdir(parents=True, exist_ok=True)
        for text, target in zip(texts, targets, strict=True):
            target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"{dest}: cannot write the section files: {exc.strerror}") from exc
    return targets


def section_text(source: Path, form: Form = NEWEST_FORM) -> str:
    """One shipped section file's text in ``form`` (the file's own text for the newest form)."""
    from ncu_roofline import __version__  # noqa: PLC0415 - the package imports this module's users lazily

    text = source.read_text(encoding="utf-8")
    if form.newest:
        return text

    def banner(changes: list[str]) -> str:
        lines = [
            f"ncu-roofline section file {source.name}, written for ncu {form.version} by ncu-roofline {__version__}",
            f"(`ncu-roofline sections --copy DIR --ncu {form.version}`) from its newest form (for ncu "
            f"{NEWEST_FORM.version}), whose comments explain each entry: `ncu-roofline sections` shows where it is.",
            f"Changed for ncu {form.version} (what its ProfilerSection.proto and metric catalog lack):",
            *(f"  - {change}" for change in changes),
        ]
        return "".join(f"# {line}\n" for line in lines)

    return rewrite(text, form, str(source), banner).text


# --- The ncu at hand -----------------------------------------------------------------------------------------

#: How long one ncu command line (``--version``, ``--list-sections``) may take.
NCU_TIMEOUT_S = 120
_VERSION_ARG_RE = re.compile(r"\d{4}\.\d+(?:\.\d+)*")


@dataclass(frozen=True)
class NcuChoice:
    """The ncu the section files are written for: its command (None when only a version was given), its version
    (None when there is no ncu at all), and how it was found."""

    command: str | None
    version: str | None
    how: str

    def form(self) -> FormChoice | None:
        return None if self.version is None else form_for(self.version)


def ncu_version(command: str) -> str:
    """``COMMAND --version`` -> ``"2024.2.0"``; InputError when it does not run or names no version."""
    try:
        done = subprocess.run(
            [command, "--version"], capture_output=True, text=True, timeout=NCU_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(command, f"cannot run `{command} --version`: {exc}") from exc
    try:
        year, minor, patch = parse_version(done.stdout + done.stderr)
    except ValueError:
        tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
        raise InputError(
            command, f"`{command} --version` names no ncu version (exit {done.returncode}: {tail[0][:120]})"
        ) from None
    return f"{year}.{minor}.{patch}"


def resolve_ncu(spec: str | None = None) -> NcuChoice:
    """``--ncu BIN|VERSION``: a version (``2024.2``) as given; a command (a path, or a name on PATH) with the
    version its ``--version`` prints; nothing: the ``ncu`` on PATH, else no ncu at all."""
    if spec is None:
        found = shutil.which("ncu")
        if found is None:
            return NcuChoice(None, None, "no ncu on PATH")
        return NcuChoice(found, ncu_version(found), "the ncu on PATH")
    if _VERSION_ARG_RE.fullmatch(spec.strip()):
        return NcuChoice(None, spec.strip(), "--ncu")
    found = shutil.which(spec) or (spec if Path(spec).is_file() else None)
    if found is None:
        raise InputError(spec, "no such ncu command: give the path of an ncu executable, or a version like 2024.2")
    return NcuChoice(found, ncu_version(found), "--ncu")


@dataclass(frozen=True)
class LoadCheck:
    """What ``ncu --list-sections --section-folder FOLDER`` says about a folder of section files."""

    command: list[str]
    listed: tuple[str, ...]
    errors: tuple[str, ...]

    def loads(self, identifiers: tuple[str, ...] | None = None) -> bool:
        """Every given section (default: both variants) listed and no error."""
        wanted = identifiers if identifiers is not None else tuple(entry[1] for entry in VARIANTS.values())
        return not self.errors and set(wanted) <= set(self.listed)


def parse_list_sections(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``ncu --list-sections`` output -> (identifiers listed, errors); an error is ``"FILE: message"`` with its
    continuation lines joined (ncu exits 0 with errors, so the text is what tells)."""
    listed: list[str] = []
    errors: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        error = re.match(r"^(\S+)\s+(Error:.*)$", stripped)
        if error:
            current = [f"{Path(error.group(1)).name}: {error.group(2).strip()}"]
            errors.append("")
        elif current is not None and line[:1].isspace() and stripped:
            current.append(stripped)
        else:
            current = None
            if stripped.startswith("==ERROR=="):
                errors.append(stripped)
            elif re.match(r"^\S+\s+.*\s\S+\.section$", stripped) and not stripped.startswith("Identifier "):
                listed.append(stripped.split()[0])
        if current is not None:
            errors[-1] = " ".join(current)
    return tuple(listed), tuple(errors)


def check_load(command: str, folder: Path) -> LoadCheck:
    """Run ``COMMAND --list-sections --section-folder FOLDER`` (no GPU needed) and read what it says."""
    argv = [command, "--list-sections", "--section-folder", str(folder)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=NCU_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(command, f"cannot run `{shlex.join(argv)}`: {exc}") from exc
    listed, errors = parse_list_sections(done.stdout + "\n" + done.stderr)
    if done.returncode != 0 and not errors:
        errors = (f"exit status {done.returncode}",)
    return LoadCheck(argv, listed, errors)


@dataclass(frozen=True)
class ProfileCommand:
    """One step of the workflow: what it does and the exact command line."""

    purpose: str
    command: str


def profile_steps(folder: Path, app: str = APP_PLACEHOLDER, ncu: str = "ncu") -> list[ProfileCommand]:
    """The ncu command lines that profile ``app`` with the sections in ``folder``, each with its purpose
    (``ncu``: the ncu executable to name in them)."""
    where = shlex.quote(str(folder))
    run = shlex.quote(ncu)
    full, lite = VARIANTS["full"][1], VARIANTS["lite"][1]
    return [
        ProfileCommand(
            "one run, details CSV straight to a file (ncu-roofline skips the application's own output in it)",
            f"{run} --section-folder {where} --section {full} --csv {app} > report.csv",
        ),
        ProfileCommand(
            "or keep a report (opens in the ncu GUI with the roofline charts): writes report.ncu-rep",
            f"{run} --section-folder {where} --section {full} -o report {app}",
        ),
        ProfileCommand(
            "... and export its details page later, on any machine with ncu",
            f"{run} -i report.ncu-rep --csv > report.csv",
        ),
        ProfileCommand(
            "long applications: the lite variant, fewer replay passes (no tensor roofline, no SOL %)",
            f"{run} --section-folder {where} --section {lite} --csv {app} > report.csv",
        ),
    ]


def profile_commands(folder: Path, app: str = APP_PLACEHOLDER) -> list[str]:
    """The exact ncu command lines of :func:`profile_steps`."""
    return [step.command for step in profile_steps(folder, app)]


#: Where ``ncu-roofline sections`` suggests writing a copy for an older ncu.
COPY_PLACEHOLDER = "./ncu-roofline-sections"


def ncu_report(choice: NcuChoice, folder: Path, folder_form: str | None = None) -> tuple[list[str], LoadCheck | None]:
    """What ``ncu-roofline sections`` says about the ncu at hand and the files in ``folder`` (in the ncu
    ``folder_form`` form; default the newest, the form shipped): which ncu, whether they load in it (run there:
    ``ncu --list-sections --section-folder FOLDER``), and the exact command that writes files it loads when they
    do not. Also returns the check (None when no ncu could be run)."""
    newest = NEWEST_FORM.version
    folder_form = folder_form or newest
    if choice.version is None:
        return [
            f"ncu: none on PATH. These files are the newest form, for ncu {newest}; for an older ncu (2022.3 or",
            "newer) write files it loads, naming its executable or its version:",
            f"  ncu-roofline sections --copy {COPY_PLACEHOLDER} --ncu /path/to/ncu",
            f"  ncu-roofline sections --copy {COPY_PLACEHOLDER} --ncu 2024.2",
        ], None
    form = form_for(choice.version).form
    if choice.command is None:
        if form.version == folder_form:
            return [
                f"ncu {choice.version} (given with --ncu, not run): the files here are the ncu {form.version} form, "
                "the one it loads."
            ], None
        return [
            f"ncu {choice.version} (given with --ncu, not run): the files here are the ncu {folder_form} form; it "
            f"loads the ncu {form.version} form. Write files it loads:",
            f"  ncu-roofline sections --copy {COPY_PLACEHOLDER} --ncu {shlex.quote(choice.version)}",
        ], None
    check = check_load(choice.command, folder)
    lines = [f"ncu: {choice.command}, version {choice.version} ({choice.how})"]
    if check.loads():
        lines.append(f"  it loads both sections in {folder}, checked with: {shlex.join(check.command)}")
        return lines, check
    lines.append(f"  the files in {folder} do not load in it ({shlex.join(check.command)}):")
    missing = [i for i in (v[1] for v in VARIANTS.values()) if i not in check.listed]
    lines += [f"    {error}" for error in check.errors] or [f"    not listed: {', '.join(missing)}"]
    lines += [
        "  write files it loads:",
        f"  ncu-roofline sections --copy {COPY_PLACEHOLDER} --ncu {shlex.quote(choice.command)}",
    ]
    return lines, check


def describe(
    folder: Path | None = None,
    ncu_lines: list[str] | None = None,
    *,
    profile_folder: Path | None = None,
    ncu: str = "ncu",
) -> str:
    """What ``ncu-roofline sections`` prints: the folder, the files, what the ncu at hand makes of them
    (``ncu_lines``, from :func:`ncu_report`), and the commands to profile with them: with the sections in
    ``profile_folder`` (default: ``folder``; the copy to write, where the ncu at hand does not load ``folder``),
    run by ``ncu``."""
    folder = folder or section_folder()
    lines = [f"ncu-roofline section files: {folder}"]
    for variant, (file_name, identifier, set_name) in VARIANTS.items():
        lines.append(f"  {identifier:<16} {file_name:<26} variant {variant}, set {set_name}")
    if ncu_lines:
        lines += ["", *ncu_lines]
    where = "" if profile_folder is None else f", once the files are written to {profile_folder}"
    lines += ["", f"Profile (replace {APP_PLACEHOLDER} with your application and its arguments{where}):"]
    for step in profile_steps(profile_folder or folder, ncu=ncu):
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
