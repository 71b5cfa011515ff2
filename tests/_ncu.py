"""The real ncu command lines, where installed (``tools/install_ncu.sh``), and readers of what they ship.

Tests that need ncu take it from :func:`require_ncu`: it skips with the reason when ncu is not installed, but fails
when ``CI=true`` (CI installs both versions, so a missing ncu there is a broken CI, not a reason to skip).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from pathlib import Path

import pytest

from ncu_roofline.sections import parse_list_sections

#: Where tools/install_ncu.sh puts them unless told otherwise; NCU_ROOFLINE_NCU_PREFIX overrides.
DEFAULT_PREFIX = Path.home() / ".cache" / "ncu-roofline" / "ncu"
VERSIONS = ("2022.3", "2024.2")
#: The six chips with ncu 2024.2 catalogs in ../shared/ncu-reference/query-metrics-2024.2, and their CC.
CHIPS = {"gv100": "7.0", "tu102": "7.5", "ga100": "8.0", "ga102": "8.6", "ad102": "8.9", "gh100": "9.0"}


#: Chip name prefix -> compute capability, for the chips ``ncu --list-chips`` names (first match wins).
CHIP_CC = (
    ("gv100", "7.0"),
    ("gv11b", "7.2"),
    ("tu1", "7.5"),
    ("ga100", "8.0"),
    ("ga10b", "8.7"),
    ("ga10", "8.6"),
    ("ad10", "8.9"),
    ("gh100", "9.0"),
)


def chip_cc(chip: str) -> str | None:
    return next((cc for start, cc in CHIP_CC if chip.startswith(start)), None)


def list_chips(ncu: Path) -> list[str]:
    """``ncu --list-chips`` (no GPU needed)."""
    done = subprocess.run([str(ncu), "--list-chips"], capture_output=True, text=True, timeout=120, check=True)
    return [chip.strip() for chip in done.stdout.replace("\n", ",").split(",") if chip.strip()]


def prefix() -> Path:
    return Path(os.environ.get("NCU_ROOFLINE_NCU_PREFIX") or DEFAULT_PREFIX)


def installed_ncu(version: str) -> Path | None:
    """PREFIX/bin/ncu-VERSION when it exists."""
    path = prefix() / "bin" / f"ncu-{version}"
    return path if path.exists() else None


def require_ncu(version: str) -> Path:
    """The installed ncu of this version; skip without it, but fail under CI=true."""
    path = installed_ncu(version)
    if path is not None:
        return path
    why = f"ncu {version} is not installed in {prefix()} (install it with: tools/install_ncu.sh {prefix()})"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true: {why}")
    pytest.skip(why)


def share_dir(ncu: Path) -> Path:
    """The unpacked packages' ``usr/lib`` folder: PREFIX/VERSION/usr/lib."""
    return ncu.resolve().parents[1]


def stock_section_folder(ncu: Path) -> Path:
    return share_dir(ncu) / "x86_64-linux-gnu" / "nsight-compute" / "sections"


def proto_folder(ncu: Path) -> Path:
    return share_dir(ncu) / "nsight-compute" / "extras" / "FileFormat"


@functools.lru_cache(maxsize=32)
def query_metrics(ncu: Path, chip: str) -> str:
    """``ncu --query-metrics --chip CHIP`` (no GPU needed)."""
    done = subprocess.run(
        [str(ncu), "--query-metrics", "--chip", chip], capture_output=True, text=True, timeout=300, check=True
    )
    return done.stdout


def stock_metric_names(ncu: Path) -> set[str]:
    """Every metric name this ncu's own section files and rules name (``Name: "..."`` and quoted names in the
    Python rules): the launch__, sass__ and occupancy names --query-metrics does not list."""
    names: set[str] = set()
    folder = stock_section_folder(ncu)
    for path in folder.glob("*.section"):
        names.update(re.findall(r'Name:\s*"([a-z][a-z0-9_]*__[a-z0-9_.]+)"', path.read_text(encoding="utf-8")))
    for path in folder.glob("*.py"):
        names.update(re.findall(r'"([a-z][a-z0-9_]*__[a-z0-9_.]+)"', path.read_text(encoding="utf-8")))
    return names


# --- A reader of the .proto files ncu ships (extras/FileFormat), enough to compare schemas ---------------------

_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_FIELD_RE = re.compile(r"^(?:(optional|required|repeated)\s+)?([\w.]+)\s+(\w+)\s*=\s*\d+")
_ENUM_VALUE_RE = re.compile(r"^(\w+)\s*=\s*-?\d+")


def read_protos(folder: Path) -> tuple[dict[str, dict[str, str]], dict[str, list[str]]]:
    """Every ``.proto`` in folder -> (message -> field name -> type name without package), enum -> value names.
    Nested messages and enums are named by their own (unqualified) name; ``oneof`` members count as fields."""
    messages: dict[str, dict[str, str]] = {}
    enums: dict[str, list[str]] = {}
    for path in sorted(folder.glob("*.proto")):
        text = _COMMENT_RE.sub("", path.read_text(encoding="utf-8"))
        tokens = re.findall(r"\{|\}|;|[^{};]+", text)
        stack: list[tuple[str, str]] = []  # (kind, name) of the open blocks
        pending = ("other", "")  # the head of the next block
        for raw in tokens:
            token = raw.strip()
            if not token or token == ";":
                continue
            if token == "{":
                stack.append(pending)
                pending = ("other", "")
                continue
            if token == "}":
                stack.pop()
                continue
            head = re.match(r"^(message|enum|oneof)\s+(\w+)$", token)
            if head:
                kind, name = head.groups()
                pending = (kind, name)
                if kind == "message":
                    messages.setdefault(name, {})
                elif kind == "enum":
                    enums.setdefault(name, [])
                continue
            if not stack:
                continue
            kind, name = stack[-1]
            if kind == "enum":
                value = _ENUM_VALUE_RE.match(token)
                if value:
                    enums[name].append(value.group(1))
            elif kind in ("message", "oneof"):
                owner = name if kind == "message" else next(n for k, n in reversed(stack) if k == "message")
                field = _FIELD_RE.match(token)
                if field:
                    messages[owner][field.group(3)] = field.group(2).rsplit(".", 1)[-1]
    return messages, enums


def list_sets(text: str) -> dict[str, set[str]]:
    """The section sets ``ncu --list-sets`` prints (identifier -> section identifiers). Its table wraps the
    Sections column within the column's width, mid-word, so each set's pieces are joined and then split at
    the commas; the columns' widths are the header's runs of dashes."""
    lines = text.splitlines()
    rule = next(line for line in lines if line.startswith("-"))
    runs = [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]
    (_, id_end), (sec_start, sec_end) = runs[0], runs[1]
    sets: dict[str, str] = {}
    current = None
    for line in lines:
        if not line.strip() or line.startswith("-") or line.startswith("Identifier"):
            continue
        name = line[:id_end].strip()
        if name:
            current = name
            sets[current] = ""
        if current is not None:
            sets[current] += line[sec_start : sec_end + 1].rstrip()
    return {k: {s.strip() for s in v.split(",") if s.strip()} for k, v in sets.items()}


def run_list_sets(ncu: Path) -> dict[str, set[str]]:
    """``ncu --list-sets`` of a real ncu (no GPU needed), read by :func:`list_sets`."""
    done = subprocess.run([str(ncu), "--list-sets"], capture_output=True, text=True, timeout=120, check=True)
    return list_sets(done.stdout)


def stock_sections(ncu: Path) -> set[str]:
    """The identifiers of the sections a real ncu ships (``ncu --list-sections``: its own section folder)."""
    done = subprocess.run([str(ncu), "--list-sections"], capture_output=True, text=True, timeout=120, check=True)
    listed, errors = parse_list_sections(done.stdout)  # the reader `ncu-roofline sections` reads it with
    assert not errors, errors
    return set(listed)
