"""Ingestion benchmark: ncu_roofline.read against plain pandas.read_csv on the same large files.

Builds, from the real H200 samples in tests/data, two large exports with fresh launch IDs:
- a details page of >= 1,000,000 rows (micro_full.details.csv repeated: 10,000+ launches);
- a raw page of 10,000 launches x 2,240 columns (micro_full.raw.csv repeated).
Each measurement runs in its own process (peak RSS is per process); the baseline is measured in the same
run on the same file. Prints wall time, the ratio read/pandas (target <= 1.0), and peak memory over the
process's memory after imports, as a multiple of the file size (target < 3).

    python benchmarks/ingest.py [--launches 10240] [--keep DIR] [--repeat 3]
"""

from __future__ import annotations

import argparse
import csv
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
    lines = path.read_text().splitlines(keepends=True)
    return lines[0], lines[1:]


def build_details(out: Path, launches: int, *, distinct: bool = False) -> int:
    """micro_full.details.csv repeated with new IDs; returns the number of data rows.

    ``distinct``: every launch different, as in a real export of many launches: each copy of the 16 launches
    has its own kernel names (64 variants of each: 1,024 names), and what it measured (``_MEASURED``: times,
    cycles, counts, throughputs, and the numbers in ncu's rule messages) scaled by a factor of its own between
    0.5 and 1, written as ncu writes them (the same decimals, thousands separators where the original has them);
    the device's clocks and the launch configuration stay as they are. Without it, each copy is the 16 launches
    again, so that work done once per distinct row does the work of 640 launches at 10,240."""
    header, body = _rows(DATA / "micro_full.details.csv")
    per = 16
    copies = -(-launches // per)
    rows = 0
    template = _Template(header, body) if distinct else None
    with out.open("w") as fh:
        fh.write(header)
        for k in range(copies):
            base = k * per
            if template is not None:
                rows += template.write(fh, base, k)
                continue
            for line in body:
                # every record starts with "<ID>","<Process ID>"
                end = line.index('"', 1)
                fh.write(f'"{int(line[1:end]) + base}{line[end:]}')
                rows += 1
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
    else:
        raise SystemExit(kind)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"kind": kind, "seconds": seconds, "peak_bytes": peak - rss0, "n": n}))


def fastest(script: str, args: list[str], repeat: int) -> dict[str, float]:
    """The fastest of ``repeat`` runs of ``script --child ARGS``, each in a fresh process (its last stdout line is
    a JSON result with ``seconds``); a failed run ends the benchmark with its stderr."""
    best: dict[str, float] | None = None
    for _ in range(repeat):
        proc = subprocess.run([sys.executable, script, "--child", *args], check=False, capture_output=True, text=True)
        if proc.returncode:
            sys.exit(f"{' '.join(args)} failed:\n{proc.stderr[-2000:]}")
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    assert best is not None
    return best


def measure(kind: str, path: Path, repeat: int) -> dict[str, float]:
    """The fastest of ``repeat`` runs of one reader measurement."""
    return fastest(__file__, [kind, str(path)], repeat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--launches", type=int, default=10_240)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="write the generated files here and keep them")
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
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"details: {details.stat().st_size / 1e6:,.0f} MB, {n_rows:,} rows, {args.launches:,}+ launches")
    print(f"raw:     {raw.stat().st_size / 1e6:,.0f} MB, {n_raw:,} launches x 2,240 columns\n")
    print(f"{'file':8} {'what':14} {'seconds':>8} {'vs pandas':>9} {'peak MB':>8} {'x file':>7}")
    for name, path, kinds in (
        ("details", details, ("pandas", "read", "read+values")),
        ("raw", raw, ("pandas", "read", "read+values", "read+metrics")),
    ):
        size = path.stat().st_size
        base = measure("pandas", path, args.repeat)
        for kind in kinds:
            r = base if kind == "pandas" else measure(kind, path, args.repeat)
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
