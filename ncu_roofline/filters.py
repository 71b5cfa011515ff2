"""Selecting launches: by kernel name (regular expression) and by NVTX range, then a view of an Analysis.

Filters apply to an analysis of the whole report (so whole-report facts, such as how often a kernel is launched,
stay true) and keep every frame's rows of the selected launches, keyed by LAUNCH_KEY.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from .analysis import Analysis
from .errors import NoLaunchesError
from .model import LAUNCH_KEY, Report, launch_index
from .vector import per_distinct


def compile_kernel_pattern(pattern: str) -> re.Pattern[str]:
    """A ``--kernel`` pattern as a regular expression; ``ValueError`` naming the mistake if it is not one."""
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from None


def _ranges(path: object) -> list[str]:
    return [] if path is None or path is pd.NA or not isinstance(path, str) else path.split("/")


def nvtx_matches(path: str | None, wanted: str) -> bool:
    """Whether an NVTX path (ranges joined by ``/``, outermost first) contains ``wanted``: one range, or
    several joined by ``/`` that must be nested in that order, each a glob pattern (``*``, ``?``, ``[..]``).

    ``nvtx_matches("train/step/fwd", "step")`` and ``nvtx_matches("train/step/fwd", "step/f*")`` are true;
    a trailing ``/`` (ncu's push/pop syntax, ``--nvtx-include "step/"``) is ignored."""
    have = _ranges(path)
    want = [w for w in wanted.strip("/").split("/") if w != ""] or [""]
    n = len(want)
    return any(all(fnmatch.fnmatchcase(have[i + j], want[j]) for j in range(n)) for i in range(len(have) - n + 1))


def launch_mask(launches: pd.DataFrame, kernel: Sequence[str] = (), nvtx: Sequence[str] = ()) -> np.ndarray:
    """Which launches to keep: a launch whose kernel name or display name matches any ``kernel`` regular
    expression (``re.search``), and whose NVTX push/pop or start/end path contains any ``nvtx`` range.
    An empty sequence does not filter.

    Columns taken: kernel_name, display_name, nvtx_path, nvtx_start_end."""
    keep = np.ones(len(launches), dtype=bool)
    # each test made once per distinct name or path (a few hundred kernels among 100,000 launches)
    if kernel:
        regexes = [compile_kernel_pattern(k) for k in kernel]

        def named(s: object) -> bool:
            return isinstance(s, str) and any(r.search(s) for r in regexes)

        keep &= _any_of(launches, ("kernel_name", "display_name"), named)
    if nvtx:

        def within(p: object) -> bool:
            return isinstance(p, str) and any(nvtx_matches(p, w) for w in nvtx)

        keep &= _any_of(launches, ("nvtx_path", "nvtx_start_end"), within)
    return keep


def _any_of(launches: pd.DataFrame, columns: tuple[str, ...], test: Callable[[object], bool]) -> np.ndarray:
    """Per launch, whether ``test`` holds for its value in any of ``columns`` (tested once per distinct value)."""
    out = np.zeros(len(launches), dtype=bool)
    for c in columns:
        out |= per_distinct(launches[c].to_numpy(dtype=object), test).astype(bool)
    return out


def _keep_rows(frame: pd.DataFrame, keys: pd.MultiIndex) -> pd.DataFrame:
    """The rows of a frame (LAUNCH_KEY columns, or a LAUNCH_KEY index) whose launch is in ``keys``."""
    if all(c in frame.columns for c in LAUNCH_KEY):
        rows = launch_index(frame).isin(keys)
        return frame.loc[rows].reset_index(drop=True)
    if list(frame.index.names) == list(LAUNCH_KEY):
        return frame.loc[frame.index.isin(keys)]
    return frame


def subset_report(report: Report, keys: pd.MultiIndex) -> Report:
    """The Report restricted to the launches in ``keys`` (metrics and rules too; ``source`` is kept whole)."""
    return report.subset(keys)


def subset_analysis(analysis: Analysis, keys: pd.MultiIndex) -> Analysis:
    """The Analysis restricted to the launches in ``keys``: every frame keyed by LAUNCH_KEY, in its order."""
    return replace(
        analysis,
        report=subset_report(analysis.report, keys),
        launches=_keep_rows(analysis.launches, keys),
        quantities=_keep_rows(analysis.quantities, keys),
        peaks=_keep_rows(analysis.peaks, keys),
        roofline=_keep_rows(analysis.roofline, keys),
        utilization=_keep_rows(analysis.utilization, keys),
        verdicts=_keep_rows(analysis.verdicts, keys),
        hints=_keep_rows(analysis.hints, keys),
    )


def describe_filters(kernel: Sequence[str] = (), nvtx: Sequence[str] = ()) -> str:
    r"""The filters as the options that set them, quoted as a shell takes them (``--kernel 'fp32_fma\('``), for
    messages."""
    return " ".join([*(f"--kernel {_quoted(k)}" for k in kernel), *(f"--nvtx {_quoted(r)}" for r in nvtx)])


def _quoted(text: str) -> str:
    """``text`` in single quotes, as a shell reads it back (a quote inside closed, escaped and reopened)."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def filter_analysis(
    analysis: Analysis, kernel: Sequence[str] = (), nvtx: Sequence[str] = (), *, allow_empty: bool = False
) -> Analysis:
    """The launches of ``analysis`` that the filters keep (see ``launch_mask``); the analysis itself when there
    are no filters. Raises ``NoLaunchesError`` when none is kept, naming a few of the kernels there are, unless
    ``allow_empty`` (a side of a diff: the kernel may be new, or gone)."""
    if not kernel and not nvtx:
        return analysis
    mask = launch_mask(analysis.launches, kernel, nvtx)
    if not mask.any() and not allow_empty:
        names = analysis.launches["display_name"].dropna().astype(str).unique().tolist()
        some = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        ranges = sorted({r for p in analysis.launches["nvtx_path"].dropna().astype(str) for r in p.split("/")})
        where = f"; NVTX ranges: {', '.join(ranges[:8])}" if nvtx and ranges else ""
        raise NoLaunchesError(
            f"{describe_filters(kernel, nvtx)} selects none of the {len(mask)} launches "
            f"(kernels: {some or 'none'}{where})"
        )
    keys = launch_index(analysis.launches.loc[mask])
    return subset_analysis(analysis, keys)
