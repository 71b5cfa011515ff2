"""Reader of ncu's session page (``--page session``): titled blocks of two-column attribute tables.

::

    Launch Settings
    "Launch Attribute","Value"
    "Profiler Command Line","/opt/.../ncu --set full ..."

    Device Attributes
    "Device Attribute","Device 0"
    "display_name","NVIDIA H200"

A block with several devices has one value column per device; each becomes its own block
(``Device Attributes (Device 1)``).
"""

from __future__ import annotations

import re

import pandas as pd

from ..errors import ParseError
from ..model import SESSION_COLUMNS, conform
from .sniff import Located, fields_of

_VERSION = re.compile(r"(\d{4}\.\d+(?:\.\d+)*)")


def read_session(loc: Located, report: str) -> tuple[pd.DataFrame, str | None]:
    """(session frame, ncu version if the page names it)."""
    rows: list[dict[str, str]] = []
    title = ""
    columns: list[str] | None = None
    with loc.path.open(encoding="utf-8", errors="replace", newline="") as fh:
        lines = fh.read().splitlines()
    for number, text in enumerate(lines, start=1):
        if number < loc.header_line:
            continue
        stripped = text.strip()
        if not stripped:  # between blocks (each begins with its title), or a line of a copy left empty
            continue
        if not stripped.startswith('"'):
            title = stripped
            columns = None
            continue
        fields = fields_of(stripped)
        if fields is None:
            raise ParseError(loc.path, "malformed CSV row (unbalanced quotes)", line=number)
        if columns is None:
            columns = fields
            continue
        if len(fields) != len(columns):
            raise ParseError(
                loc.path,
                f"row has {len(fields)} fields, expected {len(columns)} like its block header",
                line=number,
            )
        for i, value in enumerate(fields[1:], start=1):
            block = title if len(columns) == 2 else f"{title} ({columns[i]})"
            rows.append({"report": report, "block": block, "attribute": fields[0], "value": value})
    if not rows:
        raise ParseError(loc.path, "session page without attributes", line=loc.header_line)
    frame = conform(pd.DataFrame(rows), SESSION_COLUMNS)
    version = None
    for attr in ("Nsight Compute Target", "Nsight Compute Host", "Version"):
        hit = frame.loc[frame["attribute"] == attr, "value"]
        if len(hit):
            m = _VERSION.search(str(hit.iloc[0]))
            if m:
                version = m.group(1)
                break
    return frame, version
