"""Re-export the .ncu-rep reports we have with the real ncu 2022.3 and 2024.2, in every CSV flavour each offers,
and as the pages ncu prints without ``--csv`` (details, raw, summary, session and source: :data:`TEXT_FLAVOURS`).

The same report exported by different ncu versions must give the same launches, values and verdicts (issue 9,
item 7); these exports are the fixtures for that. ncu runs without a GPU for ``-i REPORT`` exports; install both
with ``tools/install_ncu.sh PREFIX`` first.

    python tools/reexport_ncu_rep.py         # ncu from ~/.cache/ncu-roofline/ncu, into tests/data/reexport
    python tools/reexport_ncu_rep.py --ncu-prefix PREFIX --out DIR [--check]

Reports and versions (ncu 2022.3 cannot open micro_roof, whose format is 2025.3's):

- ``micro_roof``: ``../shared/ncu-samples/h200-micro/micro_roof.ncu-rep`` (or the copy in ``tests/data``), ncu 2025.3.1,
  H200, 16 launches; with ncu 2024.2;
- ``gene_dzv``: ``../shared/ncu-wild/public/v100_summit_gene_dzv.ncu-rep``, ncu 2020.1, V100, NVTX, NERSC recipe
  metrics, 4 launches; with ncu 2022.3 and 2024.2.

Flavours: :data:`FLAVOURS`, each the ``ncu -i REPORT --csv`` options it adds; a flavour whose options the version's
``--help`` does not list is skipped (2022.3 spells ``--print-details all`` as ``--details-all`` and has no metric
names, body-only details, instance details or session page). Output: ``OUT/ncu-VERSION/REPORT.FLAVOUR.csv.gz``
(``.txt.gz`` for the pages without ``--csv``; gzip without a timestamp, so a rerun is byte-identical), and
``OUT/README.md``: every file with its exact command, its size and the SHA-256 of its text; flavours that print
exactly what another flavour prints are listed there as such instead of written twice, and flavours ncu refuses for
a report are listed with ncu's message. ``--check`` writes nothing and exits 1 when the fixtures differ from what
ncu prints now.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DEFAULT_PREFIX = Path.home() / ".cache" / "ncu-roofline" / "ncu"
DEFAULT_OUT = REPO / "tests" / "data" / "reexport"

#: Report name -> (where it is, fallback copy in the repository (gzip), ncu versions that open it).
REPORTS: dict[str, tuple[Path, Path | None, tuple[str, ...]]] = {
    "micro_roof": (
        SHARED / "ncu-samples" / "h200-micro" / "micro_roof.ncu-rep",
        REPO / "tests" / "data" / "micro_roof.ncu-rep.gz",
        ("2024.2",),
    ),
    "gene_dzv": (SHARED / "ncu-wild" / "public" / "v100_summit_gene_dzv.ncu-rep", None, ("2022.3", "2024.2")),
}

#: A `--metrics` list as published roofline scripts pick it (NERSC's recipe, as in YipZLF/JaxProfiler's
#: run_roofline.sh): FP64/FP32/FP16 instruction counts, tensor instructions, bytes per level, cycles and clock.
PICKED = (
    "sm__cycles_elapsed.avg",
    "sm__cycles_elapsed.avg.per_second",
    *(f"sm__sass_thread_inst_executed_op_{p}{op}_pred_on.sum" for p in "dfh" for op in ("add", "fma", "mul")),
    "sm__inst_executed_pipe_tensor.sum",
    "dram__bytes.sum",
    "lts__t_bytes.sum",
    "l1tex__t_bytes.sum",
)

#: Flavour -> the options after ``ncu -i REPORT --csv``. Names follow the exports in ../shared.
FLAVOURS: dict[str, tuple[str, ...]] = {
    "details": ("--page", "details"),
    "details-base": ("--page", "details", "--print-units", "base"),
    "details-fp": ("--page", "details", "--print-fp"),
    "details-all": ("--page", "details", "--print-details", "all"),
    "details-body": ("--page", "details", "--print-details", "body"),
    "details-all-names": ("--page", "details", "--print-details", "all", "--print-metric-name", "name"),
    "details-names": ("--page", "details", "--print-metric-name", "name"),
    "details-label-names": ("--page", "details", "--print-metric-name", "label-name"),
    "details-mangled": ("--page", "details", "--print-kernel-base", "mangled"),
    "details-function": ("--page", "details", "--print-kernel-base", "function"),
    "details-nvtx-rename": ("--page", "details", "--print-nvtx-rename", "kernel"),
    "raw": ("--page", "raw"),
    "raw-base": ("--page", "raw", "--print-units", "base"),
    "raw-fp": ("--page", "raw", "--print-fp"),
    "raw-instances": ("--page", "raw", "--print-metric-instances", "values"),
    "raw-instance-details": ("--page", "raw", "--print-metric-instances", "details"),
    "raw-instances-base": ("--page", "raw", "--print-metric-instances", "values", "--print-units", "base"),
    "summary-per-kernel": ("--print-summary", "per-kernel"),
    "summary-per-nvtx": ("--print-summary", "per-nvtx"),
    "summary-per-gpu": ("--print-summary", "per-gpu"),
    "raw-summary-per-kernel": ("--page", "raw", "--print-summary", "per-kernel"),
    "raw-summary-per-nvtx": ("--page", "raw", "--print-summary", "per-nvtx"),
    "session": ("--page", "session"),
    "source-sass": ("--page", "source", "--print-source", "sass"),
    "source-ptx": ("--page", "source", "--print-source", "ptx"),
    "source-cuda-sass": ("--page", "source", "--print-source", "cuda,sass"),
    # a details page of a hand-picked list (the NERSC/JaxProfiler roofline counts): no section shows those
    # metrics, so ncu prints each launch's rule results and no metric row
    "details-picked": ("--page", "details", "--metrics", ",".join(PICKED)),
}
#: Flavours of ncu's human-readable pages (no ``--csv``; the details page is what ``ncu ./app`` prints by default).
TEXT_FLAVOURS: dict[str, tuple[str, ...]] = {
    "text": ("--page", "details"),
    "text-base": ("--page", "details", "--print-units", "base"),
    "text-names": ("--page", "details", "--print-metric-name", "name"),
    "text-rule-details": ("--page", "details", "--print-rule-details"),
    "text-nvtx": ("--page", "details", "--print-nvtx-rename", "kernel"),
    "text-all": ("--page", "details", "--print-details", "all"),
    "text-raw": ("--page", "raw"),
    "text-summary-per-kernel": ("--print-summary", "per-kernel"),
    "text-summary-per-gpu": ("--print-summary", "per-gpu"),
    "text-summary-per-nvtx": ("--print-summary", "per-nvtx"),
    "text-raw-summary-per-kernel": ("--page", "raw", "--print-summary", "per-kernel"),
    "text-session": ("--page", "session"),
    "text-source-sass": ("--page", "source", "--print-source", "sass"),
}


def file_name(version: str, report: str, flavour: str) -> str:
    """Where an export is written, under the fixture folder."""
    return f"ncu-{version}/{report}.{flavour}.{'txt' if flavour in TEXT_FLAVOURS else 'csv'}.gz"


#: What an older ncu calls the same thing.
SPELLINGS: dict[tuple[str, ...], tuple[str, ...]] = {("--print-details", "all"): ("--details-all",)}


@dataclass(frozen=True)
class Export:
    report: str
    version: str
    flavour: str
    argv: tuple[str, ...]  # from "ncu" on, with the report's file name
    text: bytes | None  # None: ncu printed nothing
    message: str  # ncu's last message when it failed, else ""
    status: int  # ncu's exit status


def offered(help_text: str, options: tuple[str, ...]) -> tuple[str, ...] | None:
    """The options as this version spells them, or None when its --help does not offer them."""
    out: list[str] = []
    index = 0
    while index < len(options):
        pair = options[index : index + 2]
        if pair in SPELLINGS and pair[0] not in help_text:
            if SPELLINGS[pair][0] not in help_text:
                return None
            out += SPELLINGS[pair]
            index += 2
            continue
        option = options[index]
        if option.startswith("--"):
            if option not in help_text:
                return None
            value = options[index + 1] if index + 1 < len(options) and not options[index + 1].startswith("--") else ""
            # values are listed under the option in --help (e.g. "label-name", "session"); a metric list is not
            if value and option != "--metrics" and value not in help_text:
                return None
        out.append(option)
        index += 1
    return tuple(out)


def crashed(status: int) -> bool:
    """Killed by SIGSEGV or SIGABRT: directly (negative) or as the shell launcher script reports it (128 + N)."""
    return status < 0 or status in (128 + 6, 128 + 11)


def report_file(name: str, scratch: Path) -> Path:
    path, fallback, _ = REPORTS[name]
    if path.exists():
        return path
    if fallback is not None and fallback.exists():
        target = scratch / path.name
        target.write_bytes(gzip.decompress(fallback.read_bytes()))
        return target
    raise SystemExit(f"reexport_ncu_rep.py: {path} is missing (and no copy in tests/data)")


def export_all(prefix: Path, scratch: Path) -> list[Export]:
    exports: list[Export] = []
    for report, (_, _, versions) in REPORTS.items():
        source = report_file(report, scratch)
        for version in versions:
            ncu = prefix / "bin" / f"ncu-{version}"
            if not ncu.exists():
                raise SystemExit(f"reexport_ncu_rep.py: {ncu} is missing: run tools/install_ncu.sh {prefix}")
            help_text = subprocess.run([str(ncu), "--help"], capture_output=True, text=True, check=True).stdout
            for flavour, options in {**FLAVOURS, **TEXT_FLAVOURS}.items():
                spelled = offered(help_text, options)
                if spelled is None:
                    continue
                csv = () if flavour in TEXT_FLAVOURS else ("--csv",)
                spelled = (*csv, *spelled)
                argv = ("ncu", "-i", source.name, *spelled)
                # ncu 2024.2 crashes (SIGSEGV or SIGABRT) in some runs, not all, after printing the whole session
                # page of the 2020.1 report: up to five tries, and a crash is recorded without its signal, so the
                # record says what ncu does, not what one run did
                for _ in range(5):
                    done = subprocess.run(
                        [str(ncu), "-i", str(source), *spelled], capture_output=True, timeout=600, check=False
                    )
                    if not crashed(done.returncode):
                        break
                error = done.stderr.decode("utf-8", "replace").strip()
                failed = done.returncode != 0 or "==ERROR==" in error
                message = (error.splitlines() or ["no message"])[-1] if failed else ""
                if crashed(done.returncode):
                    message = "crashed (killed by a signal) in five runs out of five"
                text = done.stdout if done.stdout.strip() else None
                status = -1 if crashed(done.returncode) else done.returncode
                exports.append(Export(report, version, flavour, argv, text, message, status))
    return exports


def gz(data: bytes) -> bytes:
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, compresslevel=9, filename="") as fh:
        fh.write(data)
    return out.getvalue()


def plan(exports: list[Export]) -> tuple[dict[str, bytes], str]:
    """Relative path -> gzip bytes, and the README text."""
    files: dict[str, bytes] = {}
    lines = [
        "# ncu 2022.3 and 2024.2 re-exports of the reports we have",
        "",
        "Written by `python tools/reexport_ncu_rep.py` (do not edit; rerun it). Each file is the exact output of",
        "the command beside it, run by the real ncu command line of that version (`tools/install_ncu.sh`), gzipped;",
        "`sha256` is of the uncompressed text. The same report in every flavour: the launches, values and verdicts",
        "must equal those of the report's other exports.",
        "",
        "| file | command | bytes | sha256 |",
        "| --- | --- | --- | --- |",
    ]
    same: list[str] = []
    refused: list[str] = []
    partial: list[str] = []
    seen: dict[tuple[str, str, str], str] = {}
    for e in exports:
        command = shlex.join(e.argv)
        if e.text is None:
            refused.append(f"| ncu {e.version} | `{command}` | {e.status} | {e.message} |")
            continue
        if e.message:
            lines_out = e.text.count(b"\n")
            partial.append(
                f"| `{file_name(e.version, e.report, e.flavour)}` | {e.status} | {e.message} | {lines_out} lines |"
            )
        digest = hashlib.sha256(e.text).hexdigest()
        name = file_name(e.version, e.report, e.flavour)
        key = (e.report, e.version, digest)
        if key in seen:
            same.append(f"| ncu {e.version} | `{command}` | `{seen[key]}` |")
            continue
        seen[key] = name
        files[name] = gz(e.text)
        lines.append(f"| `{name}` | `{command}` | {len(e.text)} | `{digest[:16]}` |")
    if same:
        lines += ["", "Flavours that print exactly what a file above holds (not written twice):", ""]
        lines += ["| ncu | command | same as |", "| --- | --- | --- |", *same]
    if partial:
        lines += [
            "",
            "**Cut short by ncu itself**: it failed partway and printed only the beginning (kept as printed: users get",
            "these files too; the exit status and ncu's last message on stderr):",
            "",
        ]
        lines += ["| file | exit | message | printed |", "| --- | --- | --- | --- |", *partial]
    if refused:
        lines += ["", "Flavours ncu refuses for the report (nothing printed; exit status and its last message):", ""]
        lines += ["| ncu | command | exit | message |", "| --- | --- | --- | --- |", *refused]
    return files, "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--ncu-prefix", type=Path, default=DEFAULT_PREFIX, help="where tools/install_ncu.sh put ncu")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the fixture folder")
    parser.add_argument("--check", action="store_true", help="compare with the fixtures instead of writing them")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        files, readme = plan(export_all(args.ncu_prefix, Path(scratch)))
    files["README.md"] = readme.encode("utf-8")
    if args.check:
        differ = [
            name
            for name, data in files.items()
            if not (args.out / name).exists()
            or (
                gzip.decompress((args.out / name).read_bytes()) != gzip.decompress(data)
                if name.endswith(".gz")
                else (args.out / name).read_bytes() != data
            )
        ]
        extra = sorted(
            str(p.relative_to(args.out))
            for p in args.out.rglob("*")
            if p.is_file() and str(p.relative_to(args.out)) not in files
        )
        for name in differ:
            print(f"differs: {name}")
        for name in extra:
            print(f"not written by this script: {name}")
        return 1 if differ or extra else 0
    for name, data in files.items():
        target = args.out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    print(f"wrote {len(files) - 1} exports and README.md to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
