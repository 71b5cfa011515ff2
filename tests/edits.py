"""Before/after variants of a real ncu raw-page export, for the diff and CLI tests.

Every value comes from the real H200 export; an edit removes launch rows, renames a kernel or renumbers NVTX
ranges, the way a changed program or a second run would, and writes the rows back as ncu does (``derive``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import derive

from ncu_roofline.quantities import duration_metrics

KERNEL = "Kernel Name"


def _edit(source: Path, target: Path, edit: Callable[[list[str], list[str]], list[str] | None]) -> Path:
    """Apply ``edit(header, row) -> row or None (dropped)`` to every launch row (rows after the units row)."""
    rows = derive.rows(source.read_text())
    header, units, launches = rows[0], rows[1], rows[2:]
    kept = [r for r in (edit(header, list(row)) for row in launches) if r is not None]
    target.write_text(derive.write([header, units, *kept]))
    return target


def without_kernel(source: Path, target: Path, kernel: str) -> Path:
    """The export without the launches of one kernel (its name as ncu prints it, before the parenthesis)."""

    def edit(header: list[str], row: list[str]) -> list[str] | None:
        return None if row[header.index(KERNEL)].split("(")[0] == kernel else row

    return _edit(source, target, edit)


def without_launch(source: Path, target: Path, launch_id: int) -> Path:
    """The export without one launch (by its ID)."""

    def edit(header: list[str], row: list[str]) -> list[str] | None:
        return None if row[header.index("ID")] == str(launch_id) else row

    return _edit(source, target, edit)


def reshaped(source: Path, target: Path, launch_id: int, block_x: int) -> Path:
    """The export with one launch's block of ``block_x`` threads (as a retuned launch: its other values kept)."""

    def edit(header: list[str], row: list[str]) -> list[str]:
        if row[header.index("ID")] == str(launch_id):
            row[header.index("Block Size")] = f"({block_x}, 1, 1)"
            for name in ("launch__block_dim_x", "launch__block_size"):
                if name in header:
                    row[header.index(name)] = str(block_x)
        return row

    return _edit(source, target, edit)


def renamed(source: Path, target: Path, old: str, new: str) -> Path:
    """The export with ``old`` replaced by ``new`` in every kernel name."""

    def edit(header: list[str], row: list[str]) -> list[str]:
        i = header.index(KERNEL)
        row[i] = row[i].replace(old, new)
        return row

    return _edit(source, target, edit)


def renumbered_nvtx(source: Path, target: Path, offset: int) -> Path:
    """The export with every number inside the NVTX range messages shifted by ``offset`` (PyTorch's
    ``seq = 470, op_id = 22`` counters differ from run to run; the range ids and process ids stay)."""

    def edit(header: list[str], row: list[str]) -> list[str]:
        for i, name in enumerate(header):
            if "Push/Pop_Range" in name and row[i]:
                row[i] = re.sub(r"(seq|op_id) = (\d+)", lambda m: f"{m[1]} = {int(m[2]) + offset}", row[i])
        return row

    return _edit(source, target, edit)


def without_nvtx(source: Path, target: Path) -> Path:
    """The export as if profiled without ``--nvtx``: every NVTX cell empty."""

    def edit(header: list[str], row: list[str]) -> list[str]:
        for i, name in enumerate(header):
            if "_Range:" in name:
                row[i] = ""
        return row

    return _edit(source, target, edit)


def untimed(source: Path, target: Path, kernel: str) -> Path:
    """The export with the launches of one kernel's time not collected: every metric a duration is derived from
    (``gpu__time_duration.sum``, the elapsed cycles and their rates: ``quantities.duration_metrics``) empty."""

    def edit(header: list[str], row: list[str]) -> list[str] | None:
        if row[header.index(KERNEL)].split("(")[0] == kernel:
            for i, name in enumerate(header):
                if name in duration_metrics():
                    row[i] = ""
        return row

    return _edit(source, target, edit)
