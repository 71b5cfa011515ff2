"""Whole-job benchmark: ingest, JSON and HTML on large details exports, as ratios to a bare pandas.read_csv.

Builds a details page of N launches from the real H200 sample ``micro_full.details.csv`` (16 launches, 98 rows
each) repeated with fresh launch IDs, for each N of ``--sizes`` (default 1,024 and 10,240; 102,400 needs about
3 GB of disk and several GB of memory: ask for it explicitly). Each measurement runs in its own process, so peak
RSS (``ru_maxrss``, over the process after its imports) is per measurement; the bare read is measured in the same
run on the same file, and every figure is printed as a ratio to it. Prints the growth of each measurement from
one size to the next (linear: the ratio of the launch counts), in time and in user CPU (the code's own work:
what page faults cost is system time, and on a virtual machine it is the host's to decide).

The page's launches are the sample's 16 again and again (``--page repeated``, the default, the page the goals
of issue 12 were set on) or each one different (``--page distinct``: kernel names and numbers of each copy its
own, as in a real export of many launches; work done once per distinct row gains nothing there); ``--page
2021`` is the repeated page in the 12 columns of ncu 2019.5-2021 (no rule rows, ``Kernel Time``, no launch
shape), ``--page all`` the sample's ``--print-details all`` page repeated (1,900 lines a launch, text body items
and embedded tables among them: 620 KB a launch, so ask for --sizes 256,1024).

    python benchmarks/pipeline.py [--sizes 1024,10240,102400] [--only pandas,ingest,json,html] [--repeat 1]
                                  [--page repeated|distinct|2021|all] [--keep DIR] [--cpus N]

``--cpus N`` runs every measurement on N of the CPUs the benchmark may use (Linux's affinity mask, inherited by
each measurement's process). The bare read (pandas 3 parses on one thread and builds its text columns on Arrow's)
and ncu-roofline's reader (one parsing thread per CPU, up to 8) use what they are given; the analysis, the summary
and the writers are one core's Python whatever the count. So the ratios depend on it: on this project's 2-core
machine the JSON run is 2.2-2.4x the bare read on both CPUs and 1.5x on one.

``--repeat N`` runs N rounds, each measurement once per round in the order given (the bare read first), and keeps
the fastest of each: measurements taken side by side, not N of one kind and then N of the next. On a virtual
machine the first touch of memory the guest has not used lately can cost ten times an ordinary page fault (the
host backs the page then), and how much of that a run pays depends on what ran just before it; the line
``fresh memory`` printed first measures it (a child process touches 256 MiB, frees it, touches it again).

What each measurement is:
- ``pandas``: ``pandas.read_csv(FILE)``, nothing else (the floor);
- ``ingest``: ``ncu_roofline.read(FILE)`` plus the frames the analysis reads (``values``, ``rules``);
- ``json``: ``ncu-roofline FILE --format json -o OUT`` in process (read, analyse, write);
- ``html``: ``ncu-roofline FILE --format html -o OUT`` in process (read, analyse, write);
- ``stages`` (asked for by name, not in the default set): the JSON and HTML runs' stages one after the other in
  one process, each timed, Arrow's buffers from malloc as the command line takes them: ``read``
  (``ncu_roofline.read``), ``analyse`` (``analyze``), ``summary`` (``summarize``), ``json`` (the JSON writer, its
  bytes to a file as the command line writes them), ``view`` (the HTML view model, with the summary's per-kernel
  tables it builds on first use) and ``page`` (the HTML page from the view model, to a file).

Beside each time: ``cpu s``, the CPU seconds of the process over the measurement (user and system, every thread),
and ``sys s``, the system part alone (page faults and copies: what new memory costs shows there). After the
stages a line sets the JSON run's stages after the read (analyse, summary, json: Python over pandas, one core's
work however many the machine has) against the bare read, and gives the read's and the bare read's CPU seconds:
the part of the ratio that more cores would not shorten, and the part they would.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# the page builder and the fresh-process runner are the reader benchmark's (run as scripts: this folder is on sys.path)
from ingest import COLUMNS_2021, build_details, in_rounds, touch_cost, versions

from ncu_roofline.io.records import usable_cpus  # (each measurement runs in a process of its own)

KINDS = ("pandas", "ingest", "json", "html")
#: ``--page`` -> the name its files begin with.
PAGES = {"repeated": "bench", "distinct": "distinct", "2021": "cols12", "all": "all"}
#: The stages of ``stages``, in order.
STAGES = ("read", "analyse", "summary", "json", "view", "page")


def child(kind: str, path: str, out: str) -> None:
    """Run one measurement in this process and print one JSON line."""
    import pandas as pd

    import ncu_roofline
    from ncu_roofline.cli import main

    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    rss0 = ru0.ru_maxrss * 1024
    t0 = time.perf_counter()
    if kind == "pandas":
        n = len(pd.read_csv(path))
    elif kind == "ingest":
        report = ncu_roofline.read(path)
        n = report.values.shape[0] + len(report.rules)
    elif kind in ("json", "html"):
        try:
            main([path, "--format", kind, "-o", out, "--force", "--quiet"])
        except SystemExit as exc:  # the command line always exits with its code
            if exc.code:
                raise
        n = Path(out).stat().st_size
    elif kind == "stages":
        stages = _stages(path, out)
        n = 0
    else:
        raise SystemExit(f"unknown measurement {kind}")
    seconds = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    result = {"kind": kind, "seconds": seconds, "peak_bytes": ru1.ru_maxrss * 1024 - rss0, "n": n}
    result |= cpu_between(ru0, ru1)
    if kind == "stages":
        result |= stages
    print(json.dumps(result))


def cpu_between(ru0: resource.struct_rusage, ru1: resource.struct_rusage, prefix: str = "") -> dict[str, float]:
    """The CPU seconds of the process (all its threads) between two ``getrusage`` readings: ``cpu`` (user and
    system) and ``sys`` (system alone: page faults, copies, the kernel's share), keys after ``prefix``."""
    user, system = ru1.ru_utime - ru0.ru_utime, ru1.ru_stime - ru0.ru_stime
    return {f"{prefix}cpu": user + system, f"{prefix}sys": system}


def _stages(path: str, out: str) -> dict[str, float]:
    """Seconds of each of STAGES, run one after the other in this process, and the CPU seconds of each
    (``<stage>_cpu``, ``<stage>_sys``)."""
    import ncu_roofline
    from ncu_roofline.analysis import analyze
    from ncu_roofline.arrowpool import keep_freed_memory, use_system_allocator
    from ncu_roofline.files import write_text
    from ncu_roofline.report.html import HTML
    from ncu_roofline.report.jsonout import json_bytes
    from ncu_roofline.report.registry import Options, Run

    use_system_allocator()  # as the command line does (the JSON and HTML runs' stages)
    keep_freed_memory()
    took: dict[str, float] = {}

    def timed(stage: str, f: Any) -> Any:
        ru0, t = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        value = f()
        took[stage] = time.perf_counter() - t
        took.update(cpu_between(ru0, resource.getrusage(resource.RUSAGE_SELF), f"{stage}_"))
        return value

    def write(pieces: Any) -> None:
        write_text(Path(out), pieces, force=True)  # as the command line writes its output

    report = timed("read", lambda: ncu_roofline.read(path))
    analysis = timed("analyse", lambda: analyze(report))
    run = Run(analysis)
    summary = timed("summary", lambda: run.summary)
    timed("json", lambda: write(json_bytes(analysis, summary)))
    timed("view", lambda: run.view)
    timed("page", lambda: write([str(HTML.render(run, Options()))]))
    return took


#: The JSON run's stages after the read: Python over pandas and the JSON writer, the interpreter lock held, so one
#: core's work however many the machine has.
AFTER_READ = ("analyse", "summary", "json")


def after_read(stages: dict[str, float], bare: dict[str, float]) -> str:
    """The JSON run's stages after the read (AFTER_READ) on one line: their seconds, as a ratio to the bare read
    (a part of the run that more cores do not shorten), and the CPU seconds of the read and of the bare read."""
    wall = sum(stages[s] for s in AFTER_READ)
    read, read_cpu = stages["read"], stages["read_cpu"]
    return (
        f"after the read: {' + '.join(AFTER_READ)} {wall:.2f} s, {wall / bare['seconds']:.2f}x the bare read "
        f"by themselves; the read {read:.2f} s with {read_cpu:.2f} s of CPU ({read_cpu / read:.1f} cores), "
        f"the bare read {bare['cpu']:.2f} s of CPU"
    )


def user_cpu(r: dict[str, float]) -> float:
    """A measurement's user CPU seconds (its CPU less the system's part: the code's own work, without what page
    faults and the kernel's copies cost, which on a virtual machine depends on the host)."""
    return r["cpu"] - r["sys"]


#: Issue 12's goals: (what, launches, measurement, how it is measured, comparison, limit), the measurement a ratio to
#: the bare read of the same size ("x read"), to the file's size ("x file"), to the same measurement at 10,240
#: launches ("x 10,240"), or peak bytes ("bytes"); met at or under the limit ("<=") or under it ("<").
GOALS = (
    ("JSON run <= 2.0x the bare read", 10_240, "json", "x read", "<=", 2.0),
    ("HTML run <= 2.0x the bare read", 10_240, "html", "x read", "<=", 2.0),
    ("ingest <= 1.0x the bare read", 10_240, "ingest", "x read", "<=", 1.0),
    ("ingest peak < 2x the file", 10_240, "ingest", "x file", "<", 2.0),
    ("JSON run <= 10.5x its 10,240-launch time", 102_400, "json", "x 10,240", "<=", 10.5),
    ("HTML run <= 10.5x its 10,240-launch time", 102_400, "html", "x 10,240", "<=", 10.5),
    ("JSON run peak < 4 GB", 102_400, "json", "bytes", "<", 4e9),
    ("HTML run peak < 4 GB", 102_400, "html", "bytes", "<", 4e9),
)


def goals(results: dict[int, dict[str, dict[str, float]]], sizes: dict[int, int]) -> list[tuple[str, float, bool]]:
    """Each of GOALS that this run measured: (what, the figure, met?). ``results``: launches -> measurement ->
    seconds and peak_bytes; ``sizes``: launches -> the file's bytes."""
    out: list[tuple[str, float, bool]] = []
    for what, launches, kind, measure, comparison, limit in GOALS:
        r = results.get(launches, {})
        if kind not in r:
            continue
        if measure == "x read":
            figure = r[kind]["seconds"] / r["pandas"]["seconds"]
        elif measure == "x file":
            figure = r[kind]["peak_bytes"] / sizes[launches]
        elif measure == "bytes":
            figure = r[kind]["peak_bytes"]
        else:  # x 10,240
            if kind not in results.get(10_240, {}):
                continue
            figure = r[kind]["seconds"] / results[10_240][kind]["seconds"]
        out.append((what, figure, figure <= limit if comparison == "<=" else figure < limit))
    return out


def per_cpu(r: dict[str, dict[str, float]]) -> str:
    """Each measurement's CPU seconds (user and system, every thread) as a ratio to the bare read's, on one line:
    issue 12's ratios with the CPU count taken out (the bare read and the reader run on every CPU they may, the
    stages after the read on one: see --cpus). Empty without the bare read."""
    bare = r.get("pandas", {}).get("cpu")
    if not bare:
        return ""
    return ", ".join(f"{k} {r[k]['cpu'] / bare:.2f}x" for k in ("ingest", "json", "html") if k in r)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1024,10240", help="launch counts, comma-separated (e.g. 1024,10240,102400)")
    ap.add_argument("--only", default=",".join(KINDS), help=f"measurements, comma-separated, of {', '.join(KINDS)}")
    ap.add_argument(
        "--repeat", type=int, default=1, help="rounds of every measurement, side by side; the fastest of each counts"
    )
    ap.add_argument(
        "--page",
        choices=tuple(PAGES),
        default="repeated",
        help="repeated: the sample's 16 launches again and again; distinct: every launch different (see "
        "build_details); 2021: the repeated page in the 12 columns of ncu 2019.5-2021; all: the sample's "
        "--print-details all page repeated",
    )
    ap.add_argument("--keep", type=Path, help="build the files here and keep them (reused when present)")
    ap.add_argument(
        "--cpus",
        type=int,
        help="run every measurement on this many of the CPUs this process may use (its affinity mask, which the "
        "measurements inherit; Linux): the bare read and the reader use every CPU they may, the stages after the "
        "read one, so the ratios depend on the count",
    )
    ap.add_argument("--child", nargs=3, metavar=("KIND", "PATH", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    sizes = [int(s) for s in args.sizes.split(",") if s]
    kinds = [k for k in args.only.split(",") if k]
    if "pandas" not in kinds:
        kinds.insert(0, "pandas")  # every ratio is against the bare read of the same run
    work = args.keep or Path(tempfile.mkdtemp(prefix="ncu-roofline-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.cpus:
        allowed = sorted(os.sched_getaffinity(0))
        if not 1 <= args.cpus <= len(allowed):
            ap.error(f"--cpus {args.cpus}: this process may use {len(allowed)} CPUs")
        os.sched_setaffinity(0, allowed[: args.cpus])
    cpus = usable_cpus()  # what the reader's parsing threads follow
    print(
        f"machine: {os.cpu_count()} cores, measurements on {cpus}, Python {sys.version.split()[0]}, {versions()};"
        f" the {args.page} page"
    )
    first, again = touch_cost()
    print(f"fresh memory: {first:.1f} us per 4 KiB page the first time, {again:.1f} us again")
    print(
        f"{'launches':>9} {'MB':>6} {'what':7} {'seconds':>8} {'x read':>7} {'peak MB':>8} {'x file':>7}"
        f" {'cpu s':>6} {'sys s':>6}"
    )
    results: dict[int, dict[str, dict[str, float]]] = {}
    file_bytes: dict[int, int] = {}
    for size in sizes:
        path = work / f"{PAGES[args.page]}-{size}.details.csv"
        if not path.exists():
            build_details(
                path,
                size,
                distinct=args.page == "distinct",
                columns=COLUMNS_2021 if args.page == "2021" else None,
                sample="micro_full.details-all.csv" if args.page == "all" else "micro_full.details.csv",
            )
        mb = file_bytes[size] = path.stat().st_size
        outs = [work / f"{path.name.removesuffix('.details.csv')}.out.{kind}" for kind in kinds]
        runs = [[kind, str(path), str(out)] for kind, out in zip(kinds, outs, strict=True)]
        results[size] = dict(zip(kinds, in_rounds(__file__, runs, args.repeat), strict=True))
        for out in outs:
            out.unlink(missing_ok=True)
        base = results[size]["pandas"]["seconds"]
        for kind in kinds:
            r = results[size][kind]
            print(
                f"{size:9,} {mb / 1e6:6.0f} {kind:7} {r['seconds']:8.2f} {r['seconds'] / base:7.2f} "
                f"{r['peak_bytes'] / 1e6:8.0f} {r['peak_bytes'] / mb:7.2f} {r['cpu']:6.2f} {r['sys']:6.2f}",
                flush=True,
            )
            if kind == "stages":
                for stage in STAGES:
                    print(
                        f"{'':9} {'':6}   {stage:7} {r[stage]:6.2f} {r[stage] / base:7.2f} {'':17}"
                        f" {r[f'{stage}_cpu']:6.2f} {r[f'{stage}_sys']:6.2f}",
                        flush=True,
                    )
                print(f"{'':9} {'':6}   {after_read(r, results[size]['pandas'])}", flush=True)
        if not args.keep:
            path.unlink()
    if len(sizes) > 1:
        print("\ngrowth (time ratio between sizes, and of user CPU; linear = launch ratio)")
        for a, b in itertools.pairwise(sizes):
            row = ", ".join(
                f"{k} {results[b][k]['seconds'] / results[a][k]['seconds']:.1f}x"
                for k in kinds
                if results[a][k]["seconds"]
            )
            print(f"  {a:,} -> {b:,} launches ({b / a:.1f}x): {row}")
            user = ", ".join(
                f"{k} {user_cpu(results[b][k]) / user_cpu(results[a][k]):.1f}x"
                for k in kinds
                if user_cpu(results[a][k])
            )
            print(f"  {'user CPU (no system time):':>{len(f'{a:,} -> {b:,} launches ({b / a:.1f}x):')}} {user}")
    measured = goals(results, file_bytes)
    if measured:
        print(f"\nissue 12's goals (the {args.page} page, this run)")
        if args.repeat < 3:
            rounds = "1 round" if args.repeat == 1 else f"{args.repeat} rounds"
            print(f"  ({rounds}: one slow bare read moves every ratio; judge the goals from --repeat 3)")
        in_bytes = {what for what, _, _, measure, _, _ in GOALS if measure == "bytes"}
        for what, figure, met in measured:
            shown = f"{figure / 1e9:.2f} GB" if what in in_bytes else f"{figure:.2f}x"
            print(f"  {what:42} {shown:>8}  {'met' if met else 'not met'}")
        cpu = per_cpu(results.get(10_240, {}))
        if cpu:
            print(f"  per CPU second (not the issue's measure: the restatement it is offered): {cpu}")
    if not args.keep:
        work.rmdir()


if __name__ == "__main__":
    main()
