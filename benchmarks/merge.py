"""Many small reports merged into one view: ``ncu-roofline FOLDER --format json`` on a folder of N raw pages.

A campaign of runs profiled one report each (a sweep of sizes, one report per rank) is analysed as one folder.
The folder holds N copies of the real H200 raw page ``tests/data/micro_full.raw.csv`` (16 launches, about 2,240
metric columns, 430 KB), each under its own name (so N reports of 16 launches). Each measurement runs in its own
process, N by N in rounds side by side (``--repeat``, the fastest kept), and prints:

- the JSON run's seconds, and as a ratio to the bare reads (``pandas.read_csv`` of every file of the folder, one
  after the other, in the same process kind: the floor the other figures are divided by);
- its peak RSS over the process after its imports, and as a multiple of the folder's bytes;
- the growth from the size before (twice the files: linear work gives 2.0x in time and about 2.0x in memory).

    python benchmarks/merge.py [--sizes 25,50,100,200] [--repeat 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

from ingest import in_rounds, touch_cost, versions

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "tests" / "data" / "micro_full.raw.csv"


def build_folder(folder: Path, n: int, sample: Path = SAMPLE) -> Path:
    """``folder``/N: n copies of ``sample`` named run0001.raw.csv ... (built once, kept while it has n files)."""
    out = folder / str(n)
    if out.is_dir() and len(list(out.glob("*.raw.csv"))) == n:
        return out
    shutil.rmtree(out, ignore_errors=True)
    part = folder / f"{n}.part"  # renamed when whole: an interrupted build is not taken for a folder of n files
    shutil.rmtree(part, ignore_errors=True)
    part.mkdir(parents=True)
    for i in range(n):
        shutil.copyfile(sample, part / f"run{i + 1:04d}.raw.csv")
    part.rename(out)
    return out


def child(kind: str, folder: str, out: str) -> None:
    """One measurement in this process, one JSON line: seconds and peak RSS after the imports."""
    import pandas as pd

    from ncu_roofline.cli import main

    files = sorted(Path(folder).glob("*.raw.csv"))
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    t0 = time.perf_counter()
    if kind == "pandas":
        for f in files:
            pd.read_csv(f)
    elif kind == "json":
        try:
            main([folder, "--format", "json", "-o", out, "--force", "--quiet"])
        except SystemExit as exc:  # the command line always exits with its code
            if exc.code:
                raise
    else:
        raise SystemExit(f"unknown measurement {kind}")
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss0
    print(json.dumps({"kind": kind, "seconds": seconds, "peak_bytes": peak}))


def growth(results: dict[int, dict[str, dict[str, float]]], kind: str, measure: str) -> dict[int, float]:
    """Per size after the first, ``measure`` of ``kind`` as a multiple of the same at the size before it."""
    sizes = sorted(results)
    return {b: results[b][kind][measure] / results[a][kind][measure] for a, b in pairwise(sizes)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="25,50,100,200", help="numbers of reports in the folder, comma-separated")
    ap.add_argument("--repeat", type=int, default=2, help="rounds side by side; the fastest of each counts")
    ap.add_argument("--keep", type=Path, help="build the folders here and keep them")
    ap.add_argument("--child", nargs=3, metavar=("KIND", "FOLDER", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    sizes = [int(s) for s in args.sizes.split(",") if s]
    first, again = touch_cost()
    print(
        f"machine: Python {sys.version.split()[0]}, {versions()}; "
        f"fresh memory {first:.1f} us per 4 KiB page, {again:.1f} again"
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        folders = {n: build_folder(root, n) for n in sizes}
        out = str(Path(tmp) / "out.json")
        runs = [[kind, str(folders[n]), out] for n in sizes for kind in ("pandas", "json")]
        measured = in_rounds(__file__, runs, args.repeat)
    results: dict[int, dict[str, dict[str, float]]] = {}
    for (kind, folder, _), r in zip(runs, measured, strict=True):
        results.setdefault(int(Path(folder).name), {})[kind] = r
    size_of = {n: n * SAMPLE.stat().st_size for n in sizes}
    time_growth, peak_growth = growth(results, "json", "seconds"), growth(results, "json", "peak_bytes")
    print(f"{'reports':>8} {'MB':>6} {'bare reads':>10} {'JSON run':>9} {'x read':>7} {'peak MB':>8} {'x files':>8}"
          f" {'growth time':>11} {'growth peak':>11}")  # fmt: skip
    for n in sizes:
        bare, run = results[n]["pandas"], results[n]["json"]
        grown = f"{time_growth[n]:>10.2f}x {peak_growth[n]:>10.2f}x" if n in time_growth else f"{'':>11} {'':>11}"
        print(
            f"{n:>8} {size_of[n] / 1e6:>6.1f} {bare['seconds']:>9.2f}s {run['seconds']:>8.2f}s"
            f" {run['seconds'] / bare['seconds']:>6.2f}x {run['peak_bytes'] / 1e6:>8.0f}"
            f" {run['peak_bytes'] / size_of[n]:>7.1f}x {grown}"
        )


if __name__ == "__main__":
    main()
