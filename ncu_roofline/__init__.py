"""ncu-roofline: hierarchical roofline, limiter classification and diagnostics from Nsight Compute exports.

>>> import ncu_roofline
>>> report = ncu_roofline.read("report.csv")          # doctest: +SKIP
>>> report.launches[["launch_id", "display_name"]]    # doctest: +SKIP
"""

import importlib
from typing import TYPE_CHECKING, Any

from .errors import (
    AnalysisError,
    DuplicateLaunchError,
    EmptyExportError,
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

if TYPE_CHECKING:
    from .io import read
    from .model import LAUNCH_KEY, Report

#: Names imported on first use (PEP 562): ``import ncu_roofline`` loads no pandas or pyarrow until one is asked
#: for, so the command line (``ncu_roofline.cli``) makes Ctrl-C quiet before those slow imports begin.
_LAZY = {"read": ".io", "LAUNCH_KEY": ".model", "Report": ".model"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The package's version: the one place it is written (pyproject.toml reads it from here, ``[tool.hatch.version]``),
#: so that it is known without importing ``importlib.metadata`` (about 25 ms of every command's start here).
__version__ = "0.1.0"

__all__ = [
    "LAUNCH_KEY",
    "AnalysisError",
    "DuplicateLaunchError",
    "EmptyExportError",
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
