"""Report benchmark: render the HTML report (and the terminal and Markdown summaries) of a 10,000-launch analysis.

The analysis is built from the real H200 samples: ``micro_full.raw.csv`` and ``llm_full.raw.csv.gz`` (32 launches
of 29 kernels) are analysed once, then every frame of the analysis is repeated with fresh launch IDs until it holds
``--launches`` launches. With ``--distinct`` every copy also gets its own kernel names (10,000 launches of ~9,000
kernels: the kernel table's worst case). Prints the HTML file's size, the render times, and, where Chromium is
installed, the time the page takes to load and draw its figures in headless Chromium and any console error.

    python3 benchmarks/report.py [--launches 10000] [--distinct] [--out DIR] [--screenshot PNG] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT / "tests" / "data"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import ncu_roofline  # noqa: E402
from ncu_roofline.analysis import Analysis, analyze  # noqa: E402
from ncu_roofline.model import LAUNCH_KEY  # noqa: E402
from ncu_roofline.report.exports import render_markdown  # noqa: E402
from ncu_roofline.report.html import render_html  # noqa: E402
from ncu_roofline.report.terminal import render_terminal  # noqa: E402


def _shift(frame: pd.DataFrame, copy: int, stride: int, rename: bool) -> pd.DataFrame:
    """``frame`` with launch IDs moved to copy ``copy`` (columns or a LAUNCH_KEY index)."""
    out = frame.copy()
    if "launch_id" in out.columns:
        out["launch_id"] = out["launch_id"] + copy * stride
        if rename and "kernel_name" in out.columns:
            out["kernel_name"] = out["kernel_name"] + f" [copy {copy}]"
            out["display_name"] = out["display_name"] + f" #{copy}"
    elif list(out.index.names) == list(LAUNCH_KEY):
        idx = out.index.to_frame(index=False)
        idx["launch_id"] = idx["launch_id"] + copy * stride
        out.index = pd.MultiIndex.from_frame(idx)
    return out


def scaled(base: Analysis, launches: int, *, distinct: bool = False) -> Analysis:
    """``base`` repeated with fresh launch IDs until it holds ``launches`` launches."""
    n = len(base.launches)
    copies = -(-launches // n)
    stride = int(base.launches["launch_id"].max()) + 1

    def rep(frame: pd.DataFrame) -> pd.DataFrame:
        parts = [_shift(frame, c, stride, distinct) for c in range(copies)]
        out = pd.concat(parts, ignore_index=not isinstance(frame.index, pd.MultiIndex))
        return out

    frames = {
        name: rep(getattr(base, name))
        for name in ("launches", "quantities", "peaks", "roofline", "utilization", "verdicts", "hints")
    }
    kept = frames["launches"].iloc[:launches]
    keys = pd.MultiIndex.from_frame(kept[["report", "launch_id"]].astype(object))

    def cut(frame: pd.DataFrame) -> pd.DataFrame:
        if "launch_id" in frame.columns:
            mine = pd.MultiIndex.from_frame(frame[["report", "launch_id"]].astype(object))
            return frame[mine.isin(keys)].reset_index(drop=True)
        idx = frame.index.to_frame(index=False)[["report", "launch_id"]].astype(object)
        return frame[pd.MultiIndex.from_frame(idx).isin(keys)]

    frames = {k: cut(v) for k, v in frames.items()}
    source = base.report.source.copy()
    source["launches"] = source["launches"] * copies
    report = replace(base.report, source=source)
    return Analysis(report=report, **frames)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--launches", type=int, default=10_000)
    ap.add_argument("--distinct", action="store_true", help="a kernel name per copy (thousands of kernels)")
    ap.add_argument("--out", type=Path, help="folder to keep the HTML in (default: a temporary one)")
    ap.add_argument("--screenshot", type=Path, help="PNG of the page's first screen in Chromium")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    base = analyze(ncu_roofline.read([DATA / "micro_full.raw.csv", DATA / "llm_full.raw.csv.gz"]))
    analysis = scaled(base, args.launches, distinct=args.distinct)
    t_build = time.perf_counter() - t0
    kernels = analysis.launches.groupby(["report", "kernel_name"]).ngroups
    print(f"analysis: {len(analysis.launches):,} launches of {kernels:,} kernels (built in {t_build:.1f} s)")

    def best(fn: object, label: str) -> tuple[float, str]:
        times, out = [], ""
        for _ in range(max(1, args.repeat)):
            t = time.perf_counter()
            out = fn()  # type: ignore[operator]
            times.append(time.perf_counter() - t)
        print(f"{label:<22} {min(times):7.2f} s  (best of {len(times)})")
        return min(times), out

    _, html = best(lambda: render_html(analysis, title=f"{args.launches:,}-launch benchmark"), "render_html")
    best(lambda: render_terminal(analysis), "render_terminal")
    best(lambda: render_markdown(analysis), "render_markdown")
    size = len(html.encode())
    print(f"{'HTML size':<22} {size / 1e6:7.2f} MB  (limit 25 MB)")

    out_dir = args.out or Path(tempfile.mkdtemp(prefix="ncu-roofline-bench-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    page = out_dir / f"bench-{args.launches}{'-distinct' if args.distinct else ''}.roofline.html"
    page.write_text(html, encoding="utf-8")
    print(f"{'written':<22} {page}")

    if args.no_browser:
        return 0
    from _browser import Chromium, find_chromium

    if find_chromium() is None:
        print("chromium not installed: no browser timing (apt-get install -y chromium)")
        return 0
    with Chromium() as browser:
        run = browser.open(page, timeout=300)
        gl = browser.evaluate("document.querySelectorAll('.fig-roofline canvas').length")
        svg = browser.evaluate("document.querySelectorAll('.fig-roofline .main-svg').length")
        rows = browser.evaluate("document.querySelectorAll('#kernel-rows tr').length")
        marks = browser.evaluate(
            "Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name, m.startTime / 1000]))"
        )
        print(f"{'chromium load':<22} {run.load_s:7.2f} s  (load event: tables and text shown)")
        first = marks.get("ncu-roofline:drawn:fig-time")
        if first is not None:
            print(f"{'chromium first screen':<22} {first:7.2f} s  (GPU-time bars drawn)")
        print(f"{'chromium ready':<22} {run.ready_s:7.2f} s  (every figure drawn)")
        print(f"{'figures':<22} {svg} svg layers, {gl} WebGL canvases; {rows} table rows on the first page")
        print(f"{'console errors':<22} {len(run.errors)}")
        for e in run.errors[:10]:
            print(f"  {e[:300]}")
        print(f"{'network requests':<22} {[u for u in run.requests if not u.startswith('file:')]}")
        if args.screenshot:
            browser.screenshot(args.screenshot)
            print(f"{'screenshot':<22} {args.screenshot}")
    return 1 if run.errors else 0


if __name__ == "__main__":
    sys.exit(main())
