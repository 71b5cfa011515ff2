"""One exception hierarchy for everything a user can get wrong, each with an exit code.

Library code raises these; the CLI turns them into one line on stderr and the exit code below.
A message names the file, the line (1-based, as an editor shows it) or column, and what was expected.
"""

from __future__ import annotations

from pathlib import Path

#: Exit codes of the command line, documented in the README.
EXIT_OK = 0
EXIT_FAILURE = 1  # e.g. `diff --fail-if-slower` tripped
EXIT_USAGE = 2  # bad option or argument (click's own code)
EXIT_INPUT = 3  # a file is missing, unreadable, not an ncu export we understand, or a capture of ncu's own error
EXIT_ANALYSIS = 4  # the report lacks what the analysis needs (e.g. no launches; never an unknown device)
EXIT_OUTPUT = 5  # an output file exists (without --force) or cannot be written
EXIT_MISSING_EXTRA = 6  # an optional dependency (e.g. ncu-report for .ncu-rep) is not installed
EXIT_INTERNAL = 70  # a bug in ncu-roofline (sysexits EX_SOFTWARE); `--debug` shows the traceback
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)


class NcuRooflineError(Exception):
    """Base of every error this package raises on purpose."""

    exit_code = EXIT_FAILURE


class InputError(NcuRooflineError):
    """A file that cannot be read as an ncu export."""

    exit_code = EXIT_INPUT

    def __init__(
        self,
        path: str | Path | None,
        message: str,
        *,
        line: int | None = None,
        column: str | None = None,
    ) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.column = column
        self.detail = message
        where = self.path or "<input>"
        if line is not None:
            where += f":{line}"
        if column is not None:
            where += f": column {column!r}"
        super().__init__(f"{where}: {message}")


class FormatError(InputError):
    """The bytes are not an ncu export of a flavour we know."""


class NcuError(FormatError):
    """A capture of ncu's output without CSV in which ncu says why (e.g. ERR_NVGPUCTRPERM, no kernel profiled)."""


class ParseError(InputError):
    """An ncu export that is damaged: a cut row, a wrong field count, a value that is not a number."""


class EmptyExportError(ParseError):
    """An export with its header and no rows under it (nothing profiled, or a page of nothing: e.g. ``--print-details
    body`` of a report whose sections have no body): the command line skips such a file found in a folder."""


class UnitError(ParseError):
    """A unit we cannot convert to base units."""


class DuplicateLaunchError(ParseError):
    """Two rows claim the same launch key with different identities."""


class MissingExtraError(NcuRooflineError):
    """An optional dependency is needed for this input."""

    exit_code = EXIT_MISSING_EXTRA


class AnalysisError(NcuRooflineError):
    """The report lacks what the analysis needs."""

    exit_code = EXIT_ANALYSIS


class OutputError(NcuRooflineError):
    """An output cannot be written (exists without --force, or the folder is missing)."""

    exit_code = EXIT_OUTPUT


class NoLaunchesError(AnalysisError):
    """Nothing to analyse: the input has no kernel launches, or a filter kept none."""


class SlowerError(NcuRooflineError):
    """``diff --fail-if-slower``: the after report is slower than allowed (not a user error, a verdict)."""

    exit_code = EXIT_FAILURE
