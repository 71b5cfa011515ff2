"""Build a SYNTHETIC ncu details export "made with" the NcuRoofline section, from real raw H200 samples,
and regenerate ncu_roofline/data/section_labels.csv.

No GPU and no ncu here: the export is what ``ncu --csv --section-folder sections --section NcuRoofline``
would print for the launches of a real ``--page raw`` export, in the exact shape of ncu 2025.3.1's details
page (same columns as ``micro_full.details-names.csv``; metric rows end with one empty field; LF endings):

* one row per launch and Header entry that applies to the launch's compute capability, in Header order,
  ``Section Name`` = the section's DisplayName, ``Metric Name`` = the label (default) or the metric name
  (``--print-metric-name name``);
* unit and value: copied from ncu's own details page where the same launch shows the same metric there
  (``micro_full.details-names.csv``), else taken from the raw page (``raw-base`` where it keeps more digits)
  and auto-scaled the way the details page does (1 <= value < 1000, two decimals, integers without);
* derived metrics: evaluated from their MetricDefinitions on base-unit values, printed in base units with
  an empty unit (ncu's own units for derived metrics are not reliable; see NCU-FACTS.md section 1).

    python tools/make_section_export.py                 # section_labels.csv + tests/data/sections/micro_*
    python tools/make_section_export.py --labels-only   # section_labels.csv only
    python tools/make_section_export.py --raw R.csv [--raw-base RB.csv] [--details-names DN.csv] \\
        --name llm                                       # another sample, e.g. llm_full.raw.csv
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ncu_roofline import sections  # noqa: E402
from ncu_roofline.sectionfile import MetricDefinition, SectionFile  # noqa: E402

SAMPLES = REPO.parent / "shared" / "ncu-samples"
OUT = REPO / "tests" / "data" / "sections"
METRIC_COLUMNS = ("Section Name", "Metric Name", "Metric Unit", "Metric Value")
RULE_COLUMNS = ("Rule Name", "Rule Type", "Rule Description", "Estimated Speedup Type", "Estimated Speedup")
MISSING = {"", "n/a", "N/A", "no data"}

# Unit families the details page scales: base unit -> prefixes in steps of 1000.
_BYTE_PREFIXES = ("", "K", "M", "G", "T", "P")
_FAMILIES: dict[str, tuple[str, ...]] = {
    "byte": tuple(f"{p}byte" for p in _BYTE_PREFIXES),
    "byte/s": tuple(f"{p}byte/s" for p in _BYTE_PREFIXES),
    "byte/cycle": tuple(f"{p}byte/cycle" for p in _BYTE_PREFIXES),
    "byte/block": tuple(f"{p}byte/block" for p in _BYTE_PREFIXES),
    "hz": ("hz", "Khz", "Mhz", "Ghz", "Thz"),
    "ns": ("ns", "us", "ms", "s"),
}
_SCALE: dict[str, tuple[str, float]] = {
    unit: (base, 1000.0**step) for base, units in _FAMILIES.items() for step, unit in enumerate(units)
}


def to_base(text: str, unit: str) -> tuple[float | None, str]:
    """A raw cell and its column unit -> (value in the base unit, base unit); None for missing or text."""
    base, factor = _SCALE.get(unit, (unit, 1.0))
    cleaned = text.strip().replace(",", "")
    if cleaned in MISSING:
        return None, base
    try:
        return float(cleaned) * factor, base
    except ValueError:
        return None, base


def format_number(value: float) -> str:
    """As the details page writes numbers: thousands separators, two decimals unless integral."""
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.2f}"


def display(value: float, base: str) -> tuple[str, str]:
    """(unit, value text) auto-scaled as on the details page: the largest prefix keeping value >= 1."""
    units = _FAMILIES.get(base)
    if not units or value == 0:
        return base, format_number(value)
    step = 0
    while step + 1 < len(units) and abs(value) >= 1000.0 ** (step + 1):
        step += 1
    return units[step], format_number(value / 1000.0**step)


@dataclass
class Launch:
    """One launch of a raw export: identity columns, cell texts, base values, and ncu's details cells."""

    identity: list[str]
    cc: str
    text: dict[str, str]
    base: dict[str, tuple[float | None, str]]
    details: dict[str, tuple[str, str]]


def read_raw(raw: Path, raw_base: Path | None, details_names: Path | None) -> tuple[list[str], list[Launch]]:
    """The identity header (``ID`` .. ``CC``) and the launches of a ``--page raw`` export."""
    with raw.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    header, units, data = rows[0], rows[1], rows[2:]
    base_rows: list[list[str]] = []
    base_units: list[str] = []
    if raw_base is not None:
        with raw_base.open(newline="", encoding="utf-8") as fh:
            base_all = list(csv.reader(fh))
        if base_all[0] != header or len(base_all) != len(rows):
            raise SystemExit(f"{raw_base}: not the --print-units base twin of {raw}")
        base_units, base_rows = base_all[1], base_all[2:]
    details = _details_cells(details_names) if details_names is not None else {}
    cc_column = header.index("CC")
    launches = []
    for index, row in enumerate(data):
        values: dict[str, tuple[float | None, str]] = {}
        for column in range(cc_column + 1, len(header)):
            name = header[column]
            # Prefer the base-unit page where it rescaled the value (more digits), else the raw page.
            if base_rows and base_units[column] != units[column]:
                values[name] = to_base(base_rows[index][column], base_units[column])
            else:
                values[name] = to_base(row[column], units[column])
        launches.append(
            Launch(
                identity=row[: cc_column + 1],
                cc=row[cc_column],
                text={header[c]: row[c] for c in range(cc_column + 1, len(header))},
                base=values,
                details=details.get(row[0], {}),
            )
        )
    return header[: cc_column + 1], launches


def _details_cells(path: Path) -> dict[str, dict[str, tuple[str, str]]]:
    """launch ID -> metric name -> (unit, value) from a real ``--print-metric-name name`` details export."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        name, unit, value = (header.index(c) for c in METRIC_COLUMNS[1:])
        for row in reader:
            if len(row) > value and row[name]:
                out.setdefault(row[0], {}).setdefault(row[name], (row[unit], row[value]))
    return out


def evaluate(expression: MetricDefinition, value_of: dict[str, float | None]) -> float | None:
    """The value of a derived metric's expression (+ - * / and parentheses), None if an operand is missing."""
    tokens = [text for _kind, text in expression.tokens()]
    position = 0

    def operand() -> float | None:
        nonlocal position
        token = tokens[position]
        position += 1
        if token == "(":
            result = sum_()
            position += 1  # ")"
            return result
        if re.fullmatch(r"\d+(\.\d+)?([eE][+-]?\d+)?", token):
            return float(token)
        return value_of.get(token)

    def product() -> float | None:
        nonlocal position
        result = operand()
        while position < len(tokens) and tokens[position] in "*/":
            op = tokens[position]
            position += 1
            right = operand()
            if result is None or right is None or (op == "/" and right == 0):
                result = None
            else:
                result = result * right if op == "*" else result / right
        return result

    def sum_() -> float | None:
        nonlocal position
        result = product()
        while position < len(tokens) and tokens[position] in "+-":
            op = tokens[position]
            position += 1
            right = product()
            result = None if result is None or right is None else result + right if op == "+" else result - right
        return result

    return sum_()


def metric_cells(section: SectionFile, launch: Launch) -> list[tuple[str, str, str, str]]:
    """(label, name, unit, value) for each Header entry of ``section`` on this launch's architecture."""
    definitions = section.active_definitions(launch.cc)
    values: dict[str, float | None] = {name: v for name, (v, _unit) in launch.base.items()}
    for name, definition in definitions.items():  # definitions come in dependency order
        values[name] = evaluate(definition, values)
    cells = []
    for ref in section.header:
        resolved = ref.resolve(launch.cc)
        if resolved is None:
            continue
        name, label = resolved.name, resolved.label or ""
        if name in definitions:
            value = values[name]
            unit, text = ("", "n/a") if value is None else ("", format_number(value))
        elif name in launch.details:
            unit, text = launch.details[name]
        elif name in launch.base:
            number, base = launch.base[name]
            if number is None:
                unit, text = base, launch.text[name]
            elif number == 0 and re.fullmatch(r"0\.00", launch.text[name]):
                unit, text = base, "0.00"  # a non-zero value below 0.005: the details page keeps "0.00"
            else:
                unit, text = display(number, base)
        else:
            raise SystemExit(f"{name} (launch {launch.identity[0]}) is not in the raw export")
        cells.append((label, name, unit, text))
    return cells


def _line(fields: list[str], trailing_empty: bool) -> str:
    quoted = ",".join('"' + field.replace('"', '""') + '"' for field in fields)
    return quoted + ("," if trailing_empty else "") + "\n"


def build_exports(
    raw: Path, raw_base: Path | None, details_names: Path | None, variant: str = "full"
) -> tuple[str, str]:
    """The (labels, names) details CSV texts for ``variant`` over the launches of ``raw``."""
    section = sections.load_variant(variant)
    identity, launches = read_raw(raw, raw_base, details_names)
    header = _line([*identity, *METRIC_COLUMNS, *RULE_COLUMNS], trailing_empty=False)
    labels, names = io.StringIO(header), io.StringIO(header)
    labels.seek(0, io.SEEK_END)
    names.seek(0, io.SEEK_END)
    for launch in launches:
        for label, name, unit, value in metric_cells(section, launch):
            labels.write(_line([*launch.identity, section.display_name, label, unit, value], trailing_empty=True))
            names.write(_line([*launch.identity, section.display_name, name, unit, value], trailing_empty=True))
    return labels.getvalue(), names.getvalue()


def write_label_table() -> None:
    sections.LABEL_TABLE.write_text(sections.label_table_text(sections.label_rows()), encoding="utf-8")
    sys.stdout.write(f"{sections.LABEL_TABLE}: written\n")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels-only", action="store_true", help="only regenerate section_labels.csv")
    parser.add_argument("--raw", type=Path, default=SAMPLES / "h200-micro" / "micro_full.raw.csv")
    parser.add_argument("--raw-base", type=Path, default=None, help="the --print-units base twin of --raw")
    parser.add_argument("--details-names", type=Path, default=None, help="a real --print-metric-name export")
    parser.add_argument("--name", default="micro", help="output prefix: <name>_ncuroofline.details*.csv")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    write_label_table()
    if args.labels_only:
        return
    if args.name == "micro" and args.raw_base is None and args.details_names is None:
        args.raw_base = SAMPLES / "h200-micro" / "micro_full.raw-base.csv"
        args.details_names = SAMPLES / "h200-micro" / "micro_full.details-names.csv"
    labels, names = build_exports(args.raw, args.raw_base, args.details_names)
    args.out.mkdir(parents=True, exist_ok=True)
    for suffix, text in (("details.csv", labels), ("details-names.csv", names)):
        path = args.out / f"{args.name}_ncuroofline.{suffix}"
        path.write_text(text, encoding="utf-8", newline="\n")
        sys.stdout.write(f"{path}: {text.count(chr(10)) - 1} metric rows\n")


if __name__ == "__main__":
    main(sys.argv[1:])
