"""Regenerate ncu_roofline/data/labels.csv: (section display name, metric label) -> ncu metric name.

Four sources, all ncu's own:

1. ``labels-by-version.csv`` (``../shared/ncu-reference``): the ``Header`` and ``Body`` labels of every stock
   section of every ncu version 2019.5-2025.3 with their metric names, as the section files declare them (section
   display names of every version: "GPU Speed Of Light" up to 2021, "GPU Speed Of Light Throughput" after);
2. exports of the same report that differ only in ``--print-metric-name`` (labels vs names): their rows
   align one to one, so they show which of a label's names a real export printed: ncu 2025.3.1's details page
   of the H200 micro report, and ncu 2024.2's ``--print-details all`` pages of the 2025.3 ``micro_roof``
   report (``tests/data/reexport``, whose labels and names are the report's own sections': the 2025.3 names of
   the ``Metrics`` block labels of source 3, where they changed);
3. the labels of the stock sections' ``Metrics`` blocks, which ``--print-details all`` adds to a details page
   and (1) does not have ("Waves Per SM" in "GPU Speed Of Light Throughput", the hit rates and bytes per sector
   of "Memory Workload Analysis Tables", the roofline charts' FMA peaks ...), as the section files of the real
   ncu 2022.3 and 2024.2 declare them: ``tests/data/ncu-cli/metrics-blocks.csv``, written by
   ``--extract-stock`` from the ncu that ``tools/install_ncu.sh`` installs (a test holds it to that ncu).

4. a real ``--print-details all`` page and the raw page of the same report (ncu 2025.3.1's H200 micro report,
   16 launches: ``tests/data``): a label the page prints in a section whose 2025.3 file the other sources lack
   ("Elapsed Cycles" and "Duration" in "PM Sampling", "Instructions Executed" in "Memory Workload Analysis") is
   given the name that label has in the other sections, where that metric's raw-page value is the printed value,
   to its printed digits, on every launch (``measured``).

Each row also says which version's sections a real export that printed its name had (``exported_by``: sources 2
and 4, EXPORTS_VERSION), and which versions print its label at all, whatever the metric (``printed_by``: from
source 1, which has every version's sections): what a page's labels tell of the ncu that wrote it
(``ncu_roofline.labels.page_versions``), where a label's metric differs by version ("SM Busy": of active cycles
up to 2024.2, of elapsed cycles in 2025.3).

Per (section, label) the names are listed best first: those the real export printed, then by the newest ncu
version that uses the name. A name that only exists on some architectures gets its compute-capability range
(``ARCH_RANGES``); the reader picks the name by the export's CC (``ncu_roofline.labels.resolve``).

Names are ncu's metric names (``unit__counter.rollup``) and its source-level metrics' plain names
(``inst_executed``, ``memory_type``: the source view's columns, which the section files list with labels and the
details page prints with a total per launch). Left out, so that a label never stands for the wrong metric: empty
and templated labels ("{UNIT}: ..."), names that are not whole metrics (the tensor chart's per-series stems, the
PM sampling charts' ``pmsampling:`` series), and
labels one version's section uses for several metrics that are not architecture alternatives (the tensor
chart's "Theoretical Tensor Operations" is one label per series; body items are read by role, in
``ncu_roofline.chart``). ncu 2019.5 lists a Pascal and a Volta+ metric under one label; the Volta+ name (the
one with a rollup, ``name.avg``) is taken: on Pascal the old counter measures the same figure.

    python tools/make_label_table.py            # write the table
    python tools/make_label_table.py --check    # exit 1 if the table is not what the sources give
    python tools/make_label_table.py --extract-stock [PREFIX]   # rewrite source 3 from the installed real ncu
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import itertools
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from ncu_roofline.labels import is_metric_name, is_source_metric  # noqa: E402
from ncu_roofline.sectionfile import load_section  # noqa: E402
from ncu_roofline.sections import ncu_version  # noqa: E402
from ncu_roofline.units import UnitError, parse_unit  # noqa: E402

OUT = ROOT / "ncu_roofline" / "data" / "labels.csv"
SHARED = ROOT.parent / "shared"
REFERENCE = SHARED / "ncu-reference" / "labels-by-version.csv"
REEXPORT = ROOT / "tests" / "data" / "reexport" / "ncu-2024.2"
PAIRS = (
    (
        SHARED / "ncu-samples" / "h200-micro" / "micro_full.details.csv",
        SHARED / "ncu-samples" / "h200-micro" / "micro_full.details-names.csv",
    ),
    (REEXPORT / "micro_roof.details-all.csv.gz", REEXPORT / "micro_roof.details-all-names.csv.gz"),
)
#: Source 4: a real --print-details all page and the raw page of the same report, and the report's launch count.
MEASURED = (
    ((ROOT / "tests" / "data" / "micro_full.details-all.csv.gz", ROOT / "tests" / "data" / "micro_full.raw.csv"), 16),
)
HEADER = ("section", "label", "metric", "cc_min", "cc_max", "versions", "printed_by", "exported_by")
#: The version of the sections behind every real export of sources 2 and 4: ncu 2025.3.1's reports (the 2024.2
#: re-exports print the report's own sections).
EXPORTS_VERSION = "2025.3.1"
#: Source 3, in the columns of labels-by-version.csv.
STOCK_METRICS = ROOT / "tests" / "data" / "ncu-cli" / "metrics-blocks.csv"
STOCK_HEADER = ("version", "section_identifier", "section_display_name", "label", "metric_name")
#: The real ncu versions source 3 is read from, and where tools/install_ncu.sh puts them.
STOCK_VERSIONS = ("2022.3", "2024.2")
NCU_PREFIX = Path.home() / ".cache" / "ncu-roofline" / "ncu"

#: Metric names that exist only on some architectures: (pattern, cc_min, cc_max). From the stock sections'
#: per-architecture ``Options`` (NCU-FACTS.md): L1 global/local writeback ``_mem_lgds`` on CC 9.0+, ``_mem_lg``
#: on 7.5-8.9, neither before; ``_v2`` tensor pipe counters on CC 8.9; ``subpipe`` tensor counters on 10.0+.
ARCH_RANGES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"_mem_lgds\b"), "9.0", "12.1"),
    (re.compile(r"_mem_lg\b"), "7.5", "8.9"),
    (re.compile(r"^(derived__)?l1tex__lsu_writeback_(active|bytes)\.sum"), "7.0", "7.2"),
    (re.compile(r"_v2\b"), "8.9", "8.9"),
    (re.compile(r"subpipe"), "10.0", "12.1"),
)


def _partial_name(metric: str) -> bool:
    """A series stem the tensor chart completes per item (``sm__ops_path_tensor_op_hmma_src_bf16``), not a
    metric: tensor series counters always carry a rollup."""
    return metric.startswith("sm__ops_path_tensor_") and "." not in metric


def version_key(version: str) -> tuple[int, ...]:
    """ "2024.2.0" / "2019.5.x" -> sortable numbers."""
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))


def arch_range(metric: str) -> tuple[str, str]:
    for pattern, lo, hi in ARCH_RANGES:
        if pattern.search(metric):
            return lo, hi
    return "", ""


def _overlap(a: tuple[str, str], b: tuple[str, str]) -> bool:
    lo_a, hi_a = float(a[0] or 0), float(a[1] or 99)
    lo_b, hi_b = float(b[0] or 0), float(b[1] or 99)
    return lo_a <= hi_b and lo_b <= hi_a


def _open_text(path: Path) -> IO[str]:
    return gzip.open(path, "rt", newline="", encoding="utf-8") if path.suffix == ".gz" else path.open(newline="")


def pairs(labels_csv: Path, names_csv: Path) -> dict[tuple[str, str], str]:
    """(section, label) -> name, from two exports of one report (labels and names). Rows of a chart's body items
    (``--print-details all``) are left out: they are read by role, not by label. So is a label printed for
    several names in one export: it names a series (the tensor chart's "Src:fp16" over six sub-metrics), not a
    metric."""
    with _open_text(labels_csv) as a, _open_text(names_csv) as b:
        ra, rb = csv.reader(a), csv.reader(b)
        ha, hb = next(ra), next(rb)
        if ha != hb:
            raise SystemExit("headers differ: not two exports of the same report")
        si, mi, vi = ha.index("Section Name"), ha.index("Metric Name"), ha.index("Metric Value")
        bi = ha.index("Body Item Label") if "Body Item Label" in ha else None
        names: dict[tuple[str, str], set[str]] = {}
        for x, y in zip(ra, rb, strict=True):
            if x[:mi] != y[:mi] or len(x) != len(y):
                raise SystemExit(f"rows differ: {x[:3]} vs {y[:3]}")
            if len(x) <= vi or not x[mi] or (bi is not None and x[bi]):
                continue  # rule row, or a chart's body item
            names.setdefault((x[si], x[mi]), set()).add(y[mi])
        return {key: next(iter(found)) for key, found in names.items() if len(found) == 1}


def _launch_values(path: Path, *, raw: bool) -> dict[tuple[str, str, str], list[tuple[str, str]]]:
    """(section, label, "") of a details page's header rows (Body Item Label empty), or ("", metric, "") of a raw
    page's columns -> [(launch ID, unit, value as printed)]."""
    out: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    with _open_text(path) as fh:
        rows = csv.reader(fh)
        header = next(rows)
        if raw:
            units = next(rows)
            first = header.index("CC") + 1
            for row in rows:
                for name, unit, value in zip(header[first:], units[first:], row[first:], strict=True):
                    out.setdefault(("", name, ""), []).append((row[0], unit, value))
            return out
        si, mi, ui, vi = (header.index(c) for c in ("Section Name", "Metric Name", "Metric Unit", "Metric Value"))
        bi = header.index("Body Item Label")
        for row in rows:
            if len(row) > vi and row[0].isdigit() and row[mi] and not row[bi]:
                out.setdefault((row[si], row[mi], ""), []).append((row[0], row[ui], row[vi]))
    return out


def _in_base(unit: str, text: str) -> tuple[float, float] | None:
    """(value, half a unit of its last printed digit), in base units; None for a cell that is not one number."""
    plain = text.replace(",", "")
    try:
        number, factor = float(plain), parse_unit(unit).factor
    except (ValueError, UnitError):
        return None
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    return number * factor, 0.5 * 10.0**-decimals * factor


def _same(a: tuple[str, str], b: tuple[str, str]) -> bool:
    x, y = _in_base(*a), _in_base(*b)
    return x is not None and y is not None and abs(x[0] - y[0]) <= (x[1] + y[1]) * (1 + 1e-9) + 1e-12 * abs(x[0])


def measured(
    details_all: Path, raw: Path, launches: int, elsewhere: dict[str, set[str]], known: set[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """Source 4: (section, label) -> name, for each label of a ``--print-details all`` page's header rows that the
    other sources do not give in its section (``known``) and that one name stands for in the other sections
    (``elsewhere``), where that name's raw-page value equals the printed one on each of the report's ``launches``."""
    page, columns = _launch_values(details_all, raw=False), _launch_values(raw, raw=True)
    found: dict[tuple[str, str], str] = {}
    for (section, label, _), cells in page.items():
        names = elsewhere.get(label, set())
        if (section, label) in known or len(names) != 1:
            continue
        name = next(iter(names))
        by_launch = {launch: (unit, value) for launch, unit, value in columns.get(("", name, ""), [])}
        if len(cells) == launches and all(
            launch in by_launch and _same((unit, value), by_launch[launch]) for launch, unit, value in cells
        ):
            found[(section, label)] = name
    return found


def stock_sections_folder(prefix: Path, version: str) -> Path:
    """Where tools/install_ncu.sh unpacks one version's stock section files."""
    return prefix / version / "usr" / "lib" / "x86_64-linux-gnu" / "nsight-compute" / "sections"


def stock_metrics_rows(folder: Path, version: str) -> list[tuple[str, str, str, str, str]]:
    """(version, section identifier, display name, label, metric) of every labelled entry of the ``Metrics``
    blocks of the section files in ``folder``, each architecture alternative (``Options``) a row of its own.
    Entries without a label are left out: ncu prints those under their metric name, which needs no table."""
    rows: list[tuple[str, str, str, str, str]] = []
    for path in sorted(folder.glob("*.section")):
        section = load_section(path, skip_unknown=True)  # their bar charts and tables are not modelled
        for ref in section.metrics:
            for name, label in ((ref.name, ref.label), *((o.name, o.label or ref.label) for o in ref.options)):
                row = (version, section.identifier, section.display_name, label or "", name)
                if label and row not in rows:
                    rows.append(row)
    return rows


def extract_stock(prefix: Path) -> str:
    """Source 3 as CSV text, from the stock sections of the real ncu installed under ``prefix``."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(STOCK_HEADER)
    for short in STOCK_VERSIONS:
        version = ncu_version(str(prefix / "bin" / f"ncu-{short}"))
        w.writerows(stock_metrics_rows(stock_sections_folder(prefix, short), version))
    return buf.getvalue()


def reference_rows(path: Path) -> Iterable[tuple[str, str, str, str]]:
    """(version, section display name, label, metric) of the reference table, Pascal names of 2019.5 dropped."""
    with path.open(newline="") as fh:
        rows = [(r["version"], r["section_display_name"], r["label"], r["metric_name"]) for r in csv.DictReader(fh)]
    groups: dict[tuple[str, str, str], list[str]] = {}
    for v, s, lab, m in rows:
        groups.setdefault((v, s, lab), []).append(m)
    for v, s, lab, m in rows:
        if v.startswith("2019.5") and "." not in m and any("." in o for o in groups[(v, s, lab)] if o != m):
            continue  # the Pascal alternative: take the Volta+ name
        yield v, s, lab, m


def build(
    reference: Path,
    exports: Iterable[tuple[Path, Path]],
    stock: Path = STOCK_METRICS,
    measured_exports: Iterable[tuple[tuple[Path, Path], int]] = MEASURED,
) -> list[tuple[str, ...]]:
    """The rows of the label table (HEADER), sorted by section and label, best name first."""
    seen: dict[tuple[str, str], dict[str, set[str]]] = {}
    per_version: dict[tuple[str, str, str], list[str]] = {}
    # the versions whose stock sections' header prints a label, whatever its metric (source 1 only: every version)
    printed_by: dict[tuple[str, str], set[str]] = {}
    for v, s, lab, _m in reference_rows(reference):
        printed_by.setdefault((s, lab), set()).add(v)
    for v, s, lab, m in itertools.chain(reference_rows(reference), reference_rows(stock)):
        if not lab.strip() or "{" in lab or not s or not (is_metric_name(m) or is_source_metric(m)) or _partial_name(m):
            continue
        seen.setdefault((s, lab), {}).setdefault(m, set()).add(v)
        names = per_version.setdefault((v, s, lab), [])
        if m not in names:
            names.append(m)
    ambiguous = set()
    for (_v, s, lab), names in per_version.items():
        for i, a in enumerate(names):
            if any(_overlap(arch_range(a), arch_range(b)) for b in names[i + 1 :]):
                ambiguous.add((s, lab))
    printed: dict[tuple[str, str], str] = {}
    for labels_csv, names_csv in exports:
        printed.update(pairs(labels_csv, names_csv))
    out: list[tuple[str, ...]] = []
    elsewhere: dict[str, set[str]] = {}
    for (_s, lab), metrics in seen.items():
        elsewhere.setdefault(lab, set()).update(metrics)
    for (details_all, raw), launches in measured_exports:
        found = measured(details_all, raw, launches, elsewhere, set(seen) | set(printed) | ambiguous)
        printed.update(found)
    for key in sorted(set(seen) | set(printed)):
        metrics = seen.get(key, {})
        first = printed.get(key)
        if key in ambiguous and first is None:
            continue
        order = sorted(metrics, key=lambda m: (m != first, [-x for x in version_key(max(metrics[m], key=version_key))]))
        if first is not None and first not in metrics:
            order.insert(0, first)
        # per name, the versions it is read for: every version that lists it under the label
        read_for = {m: metrics.get(m, set()) for m in order}
        if key in ambiguous:
            # several metrics under one label in one version: only the one a real export printed, the names of
            # other architectures that replace it, and a name another version lists alone under the label, for
            # those versions (the L2 compression figures: 2025.3 lists lrc__ and lts__ names, 2020.3-2024.2 the
            # lts__ one alone)
            alone = {
                m: {v for (v, s, lab), names in per_version.items() if (s, lab) == key and names == [m]} for m in order
            }
            # the printed name, or one of another architecture: read for every version that lists it
            kept = {m: m == first or not _overlap(arch_range(m), arch_range(first or "")) for m in order}
            order = [m for m in order if kept[m] or alone[m]]
            read_for = {m: read_for[m] if kept[m] else alone[m] for m in order}
        for m in order:
            lo, hi = arch_range(m)
            versions = " ".join(sorted(read_for[m], key=version_key))
            printers = " ".join(sorted(printed_by.get(key, set()), key=version_key))
            exported = EXPORTS_VERSION if m == first else ""  # the name a real export printed: its sections' version
            out.append((key[0], key[1], m, lo, hi, versions or "export", printers, exported))
    return out


def render(rows: list[tuple[str, ...]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(HEADER)
    w.writerows(rows)
    return buf.getvalue()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", type=Path, default=REFERENCE)
    ap.add_argument("--check", action="store_true", help="exit 1 if the table differs from what the sources give")
    ap.add_argument(
        "--extract-stock",
        nargs="?",
        type=Path,
        const=NCU_PREFIX,
        metavar="PREFIX",
        help=f"rewrite {STOCK_METRICS.relative_to(ROOT)} from the real ncu under PREFIX (default {NCU_PREFIX})",
    )
    args = ap.parse_args(argv)
    if args.extract_stock is not None:
        STOCK_METRICS.write_text(extract_stock(args.extract_stock), encoding="utf-8")
        print(f"{STOCK_METRICS}: {STOCK_METRICS.read_text(encoding='utf-8').count(chr(10)) - 1} rows")
        return 0
    text = render(build(args.reference, PAIRS))
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT} is not current: run python tools/make_label_table.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"{OUT}: {text.count(chr(10)) - 1} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
