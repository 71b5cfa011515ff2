"""ncu's human-readable session page (``--page session`` without ``--csv``), read as the session CSV page it prints.

Blocks of attributes, each a title, then a table whose header names its columns (``Launch Attribute  Value``,
``Device Attribute  Device 0``)::

    Device Attributes
    --------------------------- ------------
    Device Attribute            Device 0
    --------------------------- ------------
    display_name                NVIDIA H200

A value wider than its column goes on in the lines under it, their first column empty (the profiler's command
line): it is joined again as printed, the line's end where ncu cut it (no space added). The CSV copy keeps each
title, header and row on the page's line (a wrapped row on its first), and is read by ``session.read_session``.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError
from .sniff import ANY_INDENT_DASHES, Skipped, skip_reason
from .textpage import cells_of, csv_on_lines, page_lines, quoted, raw_cells, spans_of

#: A block's title: text from the first column (the session page is not indented).
_TITLE = re.compile(r"^\S.*\S$|^\S$")


@dataclass
class SessionPage:
    """What :func:`parse` read: the CSV copy's records (line, text) and the lines skipped."""

    records: list[tuple[int, str]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)


def parse(path: Path) -> SessionPage:
    """Read a human-readable session page line by line."""
    page = SessionPage()
    title: tuple[int, str] | None = None
    spans: list[tuple[int, int]] | None = None
    state = ""  # "header": the header row comes next; "under": its dashed line; "rows": the rows
    row: tuple[int, list[str]] | None = None  # the open row: its line and cells as printed so far

    def close_row() -> None:
        nonlocal row
        if row is not None:
            page.records.append((row[0], quoted([c.strip() for c in row[1]])))
            row = None

    for number, text in page_lines(path):
        if not text.strip():
            close_row()
            spans, state = None, ""
            continue
        dashes = ANY_INDENT_DASHES.match(text)
        if dashes is not None:
            if state == "" and title is not None:
                spans, state = spans_of(dashes), "header"
            elif state == "under":
                state = "rows"
            continue
        if state == "header" and spans is not None:
            assert title is not None
            page.records.append((title[0], title[1]))
            page.records.append((number, quoted(cells_of(text, spans))))
            title, state = None, "under"
            continue
        if state == "rows" and spans is not None:
            cells = raw_cells(text, spans)
            if not cells[0].strip() and row is not None:  # a wrapped value goes on
                row = (row[0], [a + b for a, b in zip(row[1], cells, strict=True)])
                continue
            close_row()
            row = (number, cells)
            continue
        if title is not None:  # the line before was not a block's title after all
            page.skipped.append(Skipped(title[0], title[1], skip_reason(title[1])))
        title = (number, text.strip()) if _TITLE.match(text) else None
        if title is None:
            page.skipped.append(Skipped(number, text.strip(), skip_reason(text)))
    close_row()
    if title is not None:
        page.skipped.append(Skipped(title[0], title[1], skip_reason(title[1])))
    if not any(text.startswith('"') for _line, text in page.records):
        raise FormatError(path, "ncu's human-readable session page without an attribute table")
    return page


@contextlib.contextmanager
def as_session_csv(path: Path) -> Iterator[tuple[Path, SessionPage]]:
    """The page as a session CSV page in a temporary file (removed afterwards), each line on the page's line."""
    page = parse(path)
    with csv_on_lines(path.name + ".csv", None, page.records) as out:
        yield out, page
