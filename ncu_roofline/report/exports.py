"""Interim: replaced by the report issue's renderer. Markdown, CSV and Parquet of an analysis, kept tiny so the
command line can be built and tested on its own."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from ..aggregate import kernel_groups
from ..analysis import Analysis
from ..campaign import tidy_frames, to_arrow
from . import textfmt as f


def render_markdown(analysis: Analysis, *, top: int = 20) -> str:
    """A Markdown table of the ``top`` kernels by GPU time."""
    groups = kernel_groups(analysis)
    lines = ["| kernel | launches | GPU time | share | limiter | regime |", "|---|---:|---:|---:|---|---|"]
    for r in groups.head(top).itertuples():
        name = str(r.display_name).replace("|", "\\|").replace("<", "&lt;")
        lines.append(
            f"| {name} | {r.launches} | {f.duration(r.duration_ns)} | {r.share:.1%} | "
            f"{f.arrow(r.limiter, None)} | {f.arrow(r.regime, None)} |"
        )
    return "\n".join(lines) + "\n"


def render_csv(analysis: Analysis) -> str:
    """One row per launch: its keys and names, duration and verdict."""
    keys = ["report", "process_id", "launch_id"]
    frame = analysis.launches[[*keys, "kernel_name", "display_name", "nvtx_path", "duration_ns"]].merge(
        analysis.verdicts, on=keys, how="left"
    )
    text: str = frame.to_csv(index=False, lineterminator="\n")
    return text


def write_parquet(analysis: Analysis, directory: Path) -> list[Path]:
    """One Parquet file per tidy frame (``<frame>.parquet``) in ``directory``, which must exist."""
    written = []
    for name, frame in tidy_frames(analysis).items():
        path = Path(directory) / f"{name}.parquet"
        pq.write_table(to_arrow(frame), path)
        written.append(path)
    return written
