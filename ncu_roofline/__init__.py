"""ncu-roofline: hierarchical roofline, limiter classification and diagnostics from Nsight Compute exports.

>>> import ncu_roofline
>>> report = ncu_roofline.read("report.csv")          # doctest: +SKIP
>>> report.launches[["launch_id", "display_name"]]    # doctest: +SKIP
"""

from importlib.metadata import PackageNotFoundError, version

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

try:
    __version__ = version("ncu-roofline")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without installing
    __version__ = "0+unknown"

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
