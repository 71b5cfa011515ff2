"""Regenerate every example output in README.md and docs/ from the current code, so the docs cannot go stale.

    python3 tools/make_docs.py                 # rewrite the outputs in place
    python3 tools/make_docs.py --check         # exit 1, listing what differs (tests/test_docs.py runs this)
    python3 tools/make_docs.py --screenshots   # also docs/report-*.png (headless chromium: apt-get install chromium)

Two kinds of generated text:

- ```` ```console ```` blocks: each ``$ command`` line is run (bash, in a scratch copy of ``tests/data`` and
  ``sample_reports``, one scratch folder per block, so a block's commands see each other's files) and the lines
  after it, up to the next ``$``, are replaced by what it printed (stdout and stderr, as a terminal shows them).
- ``<!-- generated: NAME -->`` ... ``<!-- /generated -->`` regions: filled by the function ``NAME`` below (the
  table of commands, the JSON excerpt).

Blocks whose output depends on the machine (install paths) are written as ```` ```text ```` and left alone.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import ncu_roofline
from ncu_roofline import cli, quantities
from ncu_roofline.analysis import analyze
from ncu_roofline.quantities import Recipe
from ncu_roofline.report.jsonout import to_dict

ROOT = Path(__file__).resolve().parents[1]
#: The files whose examples this script owns.
FILES = ("README.md", "docs/cli.md", "docs/report.md", "docs/json.md", "docs/analysis.md")
#: Copied into each scratch folder (the paths the examples use).
FIXTURES = ("tests/data", "sample_reports")
CONSOLE = re.compile(r"^```console\n(.*?)^```\n", re.S | re.M)
REGION = re.compile(r"(<!-- generated: ([a-z-]+) -->\n)(.*?)(<!-- /generated -->)", re.S)
SEP = "\x1e"


# ------------------------------------------------------------------------------------------- console blocks


def _scratch() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="ncu-roofline-docs-"))
    for rel in FIXTURES:
        shutil.copytree(ROOT / rel, folder / rel)
    return folder


def run_block(commands: list[str]) -> list[str]:
    """The output of each command, run one after another by one bash in a fresh scratch folder."""
    folder = _scratch()
    try:
        script = ["set +e"]
        for cmd in commands:
            script += [cmd, "__rc=$?", f"printf '{SEP}\\n'", "(exit $__rc)"]
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONUNBUFFERED": "1",  # stdout and stderr in the order a terminal shows them
            "NO_COLOR": "1",
            "LC_ALL": "C.UTF-8",
        }
        env.pop("COLUMNS", None)
        done = subprocess.run(
            ["bash", "-c", "\n".join(script)],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=600,
            check=False,
        )
        parts = done.stdout.split(f"{SEP}\n")
        return [p.replace(str(folder) + os.sep, "") for p in parts[: len(commands)]]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def console(body: str) -> str:
    """A console block with every command's output regenerated."""
    commands = [line[2:] for line in body.splitlines() if line.startswith("$ ")]
    if not commands:
        return body
    outputs = run_block(commands)
    out = []
    for cmd, text in zip(commands, outputs, strict=True):
        out.append(f"$ {cmd}\n")
        out.append(text)
    return "".join(out)


# ------------------------------------------------------------------------------------------- regions


def commands_table() -> str:
    """The commands, from the command line's own help texts."""
    rows = ["| command | what it does |", "| --- | --- |"]
    usage = {
        "analyze": "ncu-roofline REPORT...",
        "diff": "ncu-roofline diff BEFORE AFTER",
        "export": "ncu-roofline export REPORT... --parquet DIR",
        "sections": "ncu-roofline sections [--copy DIR]",
        "devices": "ncu-roofline devices [NAME]",
    }
    for name, command in cli.main.commands.items():
        text = command.get_short_help_str(limit=200)
        rows.append(f"| `{usage.get(name, 'ncu-roofline ' + name)}` | {text} |")
    return "\n".join(rows) + "\n"


def _compact(value: object, indent: int = 0) -> str:
    """JSON with objects one key per line and lists of objects one object per line (readable excerpts)."""
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f'{pad}  "{k}": {_compact(v, indent + 1)}' for k, v in sorted(value.items())]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        items = [f"{pad}  {json.dumps(v, sort_keys=True)}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(value, sort_keys=True)


def json_excerpt() -> str:
    """One launch of the JSON output: ``strided_read`` of micro_full.raw.csv."""
    doc = to_dict(analyze(ncu_roofline.read(ROOT / "sample_reports" / "micro_full.raw.csv")))
    launch = next(x for x in doc["launches"] if x["display_name"] == "strided_read")
    launch["roofline"] = [r for r in launch["roofline"] if r["level"] == "dram"]
    launch["utilization"] = {k: v for k, v in launch["utilization"].items() if not k.startswith("pipe_")}
    return "```json\n" + _compact(launch) + "\n```\n"


def _recipe(r: Recipe) -> str:
    """A recipe as one line: its terms (first present alternative, x factor), x clock, / per."""

    def term(alts: tuple[tuple[str, float], ...]) -> str:
        names = " or ".join(f"`{m}`" + (f" x {f:g}" if f != 1 else "") for m, f in alts)
        return f"({names})" if len(alts) > 1 else names

    text = " + ".join(term(t) for t in r.terms)
    if r.times:
        clocks = " or ".join(f"`{m}`" for m in r.times)
        text += f" x ({clocks})" if len(r.times) > 1 else f" x {clocks}"
    if r.per:
        text += f" / `{r.per}`"
    return text + (" (estimate)" if r.estimate else "")


def metric_table() -> str:
    """The rows of ``quantities.TABLE`` beyond the plain quantities: role, figure, unit, recipes best first."""
    out = ["| role | figure | unit | recipes, best first |", "| --- | --- | --- | --- |"]
    for q in quantities.TABLE:
        if q.role in (quantities.QUANTITY, quantities.SOL_BREAKDOWN):  # plain rows, in the source
            continue
        recipes = "; ".join(_recipe(r) for r in q.recipes)
        out.append(f"| {q.role} | `{q.name}` | {q.unit} | {recipes} |")
    return "\n".join(out) + "\n"


REGIONS: dict[str, Callable[[], str]] = {
    "commands": commands_table,
    "json-excerpt": json_excerpt,
    "metric-table": metric_table,
}


# ------------------------------------------------------------------------------------------- files


def regenerate(text: str) -> str:
    """``text`` with every console block and generated region made current (the blocks run in parallel, each in
    its own scratch folder)."""
    blocks = [m.group(1) for m in CONSOLE.finditer(text)]
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        done = iter(list(pool.map(console, blocks)))
    text = CONSOLE.sub(lambda _m: "```console\n" + next(done) + "```\n", text)
    return REGION.sub(lambda m: m.group(1) + REGIONS[m.group(2)]() + m.group(4), text)


def screenshots() -> list[Path]:
    """docs/report-first-screen.png (the first screen at 1,280 x 800) and docs/report-diagnosis.png (a kernel's
    diagnosis), from the training step's report in headless chromium."""
    sys.path.insert(0, str(ROOT / "tests"))
    import _browser  # noqa: PLC0415 - the test suite's Chromium driver, found on the path added above

    folder = _scratch()
    try:
        page = folder / "sample_reports" / "train_step.raw.roofline.html"
        subprocess.run(
            [sys.executable, "-m", "ncu_roofline", "sample_reports/train_step.raw.csv.gz", "-q", "-o", str(page)],
            cwd=folder,
            check=True,
        )
        first, diag = ROOT / "docs" / "report-first-screen.png", ROOT / "docs" / "report-diagnosis.png"
        with _browser.Chromium(width=1280, height=800) as b:
            run = b.open(page)
            if run.errors:
                raise RuntimeError(f"the page logged errors: {run.errors}")
            b.screenshot(first)
            b.evaluate(
                "document.getElementById('diagnosis').scrollIntoView({behavior: 'instant', block: 'start'});"
                "window.scrollY"
            )
            time.sleep(0.5)  # let the page settle (fonts, the diagnosis panel's layout)
            b.screenshot(diag)
        return [first, diag]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 when a file is out of date")
    ap.add_argument("--screenshots", action="store_true", help="also regenerate the screenshots (chromium)")
    ap.add_argument("files", nargs="*", help=f"only these files (default: {', '.join(FILES)})")
    args = ap.parse_args(argv)
    stale = []
    for rel in args.files or FILES:
        path = ROOT / rel
        old = path.read_text(encoding="utf-8")
        new = regenerate(old)
        if new != old:
            stale.append(rel)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    if args.screenshots and not args.check:
        for p in screenshots():
            print(f"wrote {p.relative_to(ROOT)}")
    if stale:
        if args.check:
            print(f"out of date: {', '.join(stale)}; run python3 tools/make_docs.py and commit the result")
        else:
            print(f"regenerated: {', '.join(stale)}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
