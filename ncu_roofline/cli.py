"""Command line: ``ncu-roofline REPORT...`` (thin: parse options, call the library, map errors to exit codes)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from . import __version__
from .analysis import analyze, time_by
from .errors import NcuRooflineError
from .io import read
from .report.jsonout import render_json


@click.command()
@click.argument("reports", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.version_option(__version__, prog_name="ncu-roofline")
def main(reports: tuple[Path, ...], fmt: str) -> None:
    """Analyse Nsight Compute exports: hierarchical roofline, limiter and hints per kernel launch."""
    try:
        analysis = analyze(read(list(reports)))
    except NcuRooflineError as exc:
        click.echo(f"ncu-roofline: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    if fmt == "json":
        click.echo(render_json(analysis), nl=False)
        return
    for row in time_by(analysis, "limiter").itertuples():
        click.echo(f"{row.limiter!s:10} {row.share:6.1%}  {row.launches} launches")
