"""Ingestion benchmark: ncu_roofline.read against plain pandas.read_csv on the same large files.

Builds, from the real H200 samples in tests/data, two large exports with fresh launch IDs:
- a details page of >= 1,000,000 rows (micro_full.details.csv repeated: 10,000+ launches);
- a raw page of 10,000 launches x 2,240 columns (micro_full.raw.csv repeated).
Each measurement runs in its own process (peak RSS is per process); the baseline is measured in the same
run on the same file. Prints wall time, the ratio read/pandas (target <= 1.0), and peak memory over the
process's memory after imports, as a multiple of the file size (target < 3).

``--alternatives`` also times Polars (``pip install polars``; not a dependency of ncu-roofline) on the details
page, parse only, into Arrow: ``polars`` with the columns ncu-roofline's reader converts on every row (the launch
keys; kernel name, block and grid size for the one-identity-per-launch check; section, label and unit as
dictionaries; the value and the rule rows' fields as text), ``polars-floor`` with the launch ID, section, label,
unit and value only (no identity check, no rule rows: the floor quoted in issue 12). Neither checks or converts
anything after the parse, as ``read`` does.

    python benchmarks/ingest.py [--launches 10240] [--keep DIR] [--repeat 3] [--alternatives]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import importlib.util
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "tests" / "data"


def _rows(path: Path) -> tuple[str, list[str]]:
    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    lines = text.splitlines(keepends=True)
    return lines[0], lines[1:]


#: The columns of the details page of ncu 2019.5-2021: no rule columns, ``Kernel Time`` (when the launch was
#: profiled), no launch shape or device; every row a metric row of the header's width.
COLUMNS_2021 = (
    "ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time", "Context", "Stream",
    "Section Name", "Metric Name", "Metric Unit", "Metric Value",
)  # fmt: skip


def _record(fields: list[str]) -> str:
    """A record as ncu writes it: every field quoted, quotes doubled."""
    return ",".join(_quoted(f) for f in fields) + "\n"


def _in_columns(header: str, body: list[str], columns: tuple[str, ...]) -> tuple[str, list[str]]:
    """The metric rows of a details page in another column layout (rule rows left out: that layout has none; a
    ``Kernel Time`` column filled with one time), as ncu writes it."""
    names = next(csv.reader([header]))
    at = {c: names.index(c) for c in columns if c in names}
    rows = [r for r in csv.reader(body) if len(r) > at["Metric Name"] and r[at["Metric Name"]]]
    when = "2021-Mar-04 10:25:54"
    return _record(list(columns)), [_record([r[at[c]] if c in at else when for c in columns]) for r in rows]


#: A launch's record: its ID and Process ID first (the lines of an embedded table or a text item are none).
_LAUNCH_RECORD = re.compile(r'^"(\d+)","\d+",')


def build_details(
    out: Path,
    launches: int,
    *,
    distinct: bool = False,
    columns: tuple[str, ...] | None = None,
    sample: str = "micro_full.details.csv",
) -> int:
    """``sample`` (a details page of tests/data, by default micro_full.details.csv: 16 launches) repeated with new
    IDs; returns the number of data lines. ``columns``: in that column layout instead of 2025.3's
    (``COLUMNS_2021``); ``sample="micro_full.details-all.csv"``: the --print-details all page, whose text body
    items and embedded tables are copied as they are.

    ``distinct``: every launch different, as in a real export of many launches: each copy of the 16 launches
    has its own kernel names (64 variants of each: 1,024 names), and what it measured (``_MEASURED``: times,
    cycles, counts, throughputs, and the numbers in ncu's rule messages) scaled by a factor of its own between
    0.5 and 1, written as ncu writes them (the same decimals, thousands separators where the original has them);
    the device's clocks and the launch configuration stay as they are. Without it, each copy is the 16 launches
    again, so that work done once per distinct row does the work of 640 launches at 10,240."""
    path = DATA / sample
    if not path.exists():  # kept compressed in tests/data
        path = path.with_name(path.name + ".gz")
    header, body = _rows(path)
    if columns is not None:
        header, body = _in_columns(header, body, columns)
    per = 16
    copies = -(-launches // per)
    rows = 0
    template = _Template(header, body) if distinct else None
    part = out.with_name(out.name + ".part")  # renamed when whole: an interrupted build leaves no page to reuse
    with part.open("w") as fh:
        fh.write(header)
        for k in range(copies):
            base = k * per
            if template is not None:
                rows += template.write(fh, base, k)
                continue
            for line in body:
                record = _LAUNCH_RECORD.match(line)
                if record is None:  # a text body item, an embedded table's line, a blank line: as it is
                    fh.write(line)
                else:
                    fh.write(f'"{int(record.group(1)) + base}{line[record.end(1) :]}')
                rows += 1
    part.replace(out)
    return rows


#: The sections whose values a launch measures (the others: its configuration and the profiler's), and in any
#: section the metrics that are the device's, not the launch's.
_MEASURED = re.compile(
    r"GPU Speed Of Light|Workload Analysis|Scheduler Statistics|Warp State|Instruction Statistics|"
    r"Workload Distribution|Source Counters|Occupancy/Achieved"
)
_DEVICE = re.compile(r"Frequency|Persisting")
#: A number as ncu writes a metric value: digits, thousands separators, a decimal point.
_NUMBER = re.compile(r"-?[\d,]*\.?\d+")


def _scaled(text: str, factor: float) -> str:
    """``text`` (a number as ncu writes it) times ``factor``, with its decimals and thousands separators."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return f"{float(text.replace(',', '')) * factor:{',' if ',' in text else ''}.{decimals}f}"


class _Template:
    """The sample's records split into their fields, to write each copy with its own kernel names and numbers."""

    def __init__(self, header: str, body: list[str]) -> None:
        names = next(csv.reader([header]))
        self.id, self.kernel = names.index("ID"), names.index("Kernel Name")
        self.value, self.message = names.index("Metric Value"), names.index("Rule Description")
        self.records = [next(csv.reader([line])) for line in body]
        section, metric = names.index("Section Name"), names.index("Metric Name")
        self.measured = [
            len(r) == self.value + 2
            and bool(_MEASURED.search(f"{r[section]}/{r[metric]}"))
            and not _DEVICE.search(r[metric])
            and bool(_NUMBER.fullmatch(r[self.value]))
            for r in self.records
        ]

    def write(self, fh: Any, base: int, copy: int) -> int:
        factor = 0.5 + 0.5 * ((copy * 7919) % 1000) / 1000
        for record, measured in zip(self.records, self.measured, strict=True):
            r = list(record)
            r[self.id] = str(int(r[self.id]) + base)
            r[self.kernel] = r[self.kernel].replace("(", f"_v{copy % 64}(", 1)
            if len(r) == self.value + 2:  # a metric row (ragged: it ends after the value and one empty field)
                if measured:
                    r[self.value] = _scaled(r[self.value], factor)
                fh.write(",".join(_quoted(f) for f in r[:-1]) + ",\n")
            else:  # a rule row
                r[self.message] = re.sub(r"\d+\.\d+", lambda m: _scaled(m.group(0), factor), r[self.message])
                fh.write(",".join(_quoted(f) for f in r) + "\n")
        return len(self.records)


def _quoted(field: str) -> str:
    return '"' + field.replace('"', '""') + '"'


def build_raw(out: Path, launches: int) -> int:
    header, body = _rows(DATA / "micro_full.raw.csv")
    units, records = body[0], body[1:]
    per = len(records)
    copies = -(-launches // per)
    with out.open("w") as fh:
        fh.write(header)
        fh.write(units)
        for k in range(copies):
            base = k * per
            for line in records:
                end = line.index('"', 1)
                fh.write(f'"{int(line[1:end]) + base}{line[end:]}')
    return copies * per


def child(kind: str, path: str) -> None:
    """Run one measurement in this process and print JSON."""
    import pandas as pd

    import ncu_roofline

    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    t0 = time.perf_counter()
    if kind == "pandas":
        frame = pd.read_csv(path)
        n = len(frame)
    elif kind == "read":
        report = ncu_roofline.read(path)
        n = len(report.launches)
    elif kind == "read+metrics":
        report = ncu_roofline.read(path)
        n = len(report.metrics)
    elif kind == "read+values":
        report = ncu_roofline.read(path)
        n = report.values.shape[1]
    elif kind in POLARS:
        n = _polars(path, POLARS[kind])
    else:
        raise SystemExit(kind)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"kind": kind, "seconds": seconds, "peak_bytes": peak - rss0, "n": n}))


#: The --alternatives measurements: the columns Polars parses, and how (``_polars``).
POLARS = {
    "polars": {
        **{c: "int" for c in ("ID", "Process ID")},
        **{c: "dict" for c in ("Kernel Name", "Block Size", "Grid Size", "Section Name", "Metric Name", "Metric Unit")},
        **{c: "text" for c in ("Metric Value", "Rule Name", "Rule Type", "Rule Description")},
        **{c: "text" for c in ("Estimated Speedup Type", "Estimated Speedup")},
    },
    "polars-floor": {"ID": "int", "Section Name": "dict", "Metric Name": "dict", "Metric Unit": "dict",
                     "Metric Value": "text"},
}  # fmt: skip


def _polars(path: str, columns: dict[str, str]) -> int:
    """Parse the ``columns`` of a details page with Polars (a metric row's missing rule fields padded with
    nulls) and hand them over as Arrow, as a reader would; the number of rows."""
    import polars as pl  # only for --alternatives

    kinds = {"int": pl.Int64, "dict": pl.Categorical, "text": pl.String}
    with Path(path).open() as fh:
        have = set(next(csv.reader([fh.readline()])))
    types = {c: kinds[k] for c, k in columns.items() if c in have}
    table = pl.read_csv(path, columns=list(types), schema_overrides=types, infer_schema=False).to_arrow()
    return int(table.num_rows)


def in_rounds(script: str, runs: list[list[str]], repeat: int) -> list[dict[str, float]]:
    """Per ``runs`` entry (the ``--child`` arguments of one measurement), the fastest of ``repeat`` rounds, each
    round running every measurement once in the order given, each in a fresh process: measurements taken side by
    side, so a slow spell of the machine (or memory left warm or cold by the run before) falls on all of them."""
    best: list[dict[str, float] | None] = [None] * len(runs)
    for _ in range(max(1, repeat)):
        for i, args in enumerate(runs):
            proc = subprocess.run(
                [sys.executable, script, "--child", *args], check=False, capture_output=True, text=True
            )
            if proc.returncode:
                sys.exit(f"{' '.join(args)} failed:\n{proc.stderr[-2000:]}")
            result = json.loads(proc.stdout.strip().splitlines()[-1])
            prior = best[i]
            if prior is None or result["seconds"] < prior["seconds"]:
                best[i] = result
    return [b for b in best if b is not None]


def versions() -> str:
    """The versions of the libraries the figures depend on (the parsers and the arrays), as the machine line
    prints them: figures of different versions do not compare."""
    from importlib.metadata import PackageNotFoundError, version

    def one(name: str) -> str:
        try:
            return f"{name} {version(name)}"
        except PackageNotFoundError:
            return f"{name} not installed"

    return ", ".join(one(n) for n in ("pandas", "pyarrow", "numpy"))


def touch_cost(mib: int = 256) -> tuple[float, float]:
    """Microseconds per 4 KiB page to write ``mib`` MiB of new memory in a fresh process, the first time and again
    after freeing it. On a virtual machine the host may back a page only when the guest first touches it, which
    can cost ten times an ordinary page fault; how much of that a run pays depends on what ran before it."""
    code = (
        "import time, numpy as np\n"
        "def t():\n"
        f"    s = time.perf_counter(); a = np.ones({mib} << 17); d = time.perf_counter() - s; del a; return d\n"
        "print(t(), t())"
    )
    proc = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    first, again = (float(x) for x in proc.stdout.split())
    pages = mib << 8
    return first / pages * 1e6, again / pages * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--launches", type=int, default=10_240)
    ap.add_argument(
        "--repeat", type=int, default=3, help="rounds of every measurement side by side; the fastest counts"
    )
    ap.add_argument("--keep", type=Path, help="write the generated files here and keep them")
    ap.add_argument("--alternatives", action="store_true", help="also time Polars' parse of the details page")
    ap.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    work = args.keep or Path(tempfile.mkdtemp(prefix="ncu-roofline-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    details = work / "bench.details.csv"
    raw = work / "bench.raw.csv"
    n_rows = build_details(details, args.launches)
    n_raw = build_raw(raw, 10_000)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, {versions()}")
    print(f"details: {details.stat().st_size / 1e6:,.0f} MB, {n_rows:,} rows, {args.launches:,}+ launches")
    print(f"raw:     {raw.stat().st_size / 1e6:,.0f} MB, {n_raw:,} launches x 2,240 columns\n")
    first, again = touch_cost()
    print(f"fresh memory: {first:.1f} us per 4 KiB page the first time, {again:.1f} us again\n")
    alternatives: tuple[str, ...] = ()
    if args.alternatives:
        if importlib.util.find_spec("polars") is None:
            print("--alternatives: polars is not installed (pip install polars); measured without it\n")
        else:
            alternatives = tuple(POLARS)
    print(f"{'file':8} {'what':14} {'seconds':>8} {'vs pandas':>9} {'peak MB':>8} {'x file':>7}")
    for name, path, kinds in (
        ("details", details, ("pandas", "read", "read+values", *alternatives)),
        ("raw", raw, ("pandas", "read", "read+values", "read+metrics")),
    ):
        size = path.stat().st_size
        results = in_rounds(__file__, [[kind, str(path)] for kind in kinds], args.repeat)
        base = results[0]
        for kind, r in zip(kinds, results, strict=True):
            print(
                f"{name:8} {kind:14} {r['seconds']:8.2f} {r['seconds'] / base['seconds']:9.2f} "
                f"{r['peak_bytes'] / 1e6:8.0f} {r['peak_bytes'] / size:7.2f}"
            )
    if not args.keep:
        for p in (details, raw):
            p.unlink()
        work.rmdir()


if __name__ == "__main__":
    main()
