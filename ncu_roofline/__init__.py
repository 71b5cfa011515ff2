"""ncu-roofline: hierarchical roofline, limiter classification and diagnostics from Nsight Compute exports.

>>> import ncu_roofline
>>> report = ncu_roofline.read("report.csv")          # doctest: +SKIP
>>> report.launches[["launch_id", "display_name"]]    # doctest: +SKIP
"""

from .errors import (
    AnalysisError,
    DuplicateLaunchError,
    FormatError,
    InputError,
    MissingExtraError,
    NcuError,
    NcuRooflineError,
    NoLaunchesError,
    OutputError,
    ParseError,
    SlowerError,
    UnitError,
)
from .io import read
from .model import LAUNCH_KEY, Report

#: The package's version: the one place it is written (pyproject.toml reads it from here, ``[tool.hatch.version]``),
#: so that it is known without importing ``importlib.metadata`` (about 25 ms of every command's start here).
__version__ = "0.1.0"

__all__ = [
    "LAUNCH_KEY",
    "AnalysisError",
    "DuplicateLaunchError",
    "FormatError",
    "InputError",
    "MissingExtraError",
    "NcuError",
    "NcuRooflineError",
    "NoLaunchesError",
    "OutputError",
    "ParseError",
    "Report",
    "SlowerError",
    "UnitError",
    "__version__",
    "read",
]
