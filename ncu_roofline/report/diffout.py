"""Text, Markdown, CSV and JSON of a diff (``ncu-roofline diff``); the HTML is ``diff_html``.

JSON layout (``schema`` 2, sorted keys; every key in docs/diff-schema.json): ``before``/``after`` ({name,
sources: [{report, path, flavour, ncu_version, launches}]}), ``total`` (before_ns, after_ns, delta_ns, change,
speedup, before_launches, after_launches, matched, before_only, after_only, matched_before_ns, matched_after_ns,
matched_change), ``matched_by`` ({pass: launches}), ``kernels`` (one object per row of ``Diff.kernels``, keys as
its columns), ``hints`` (``Diff.hints``), ``pairs`` (``Diff.pairs``), ``caveats`` (strings). Missing numbers are
``null``. The CSV is ``Diff.kernels``, one row per kernel.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd

from .. import __version__
from ..diff import AFTER_ONLY, BEFORE_ONLY, Diff
from . import fmt as f
from .registry import FunctionRenderer

SCHEMA = 2
KERNEL_WIDTH = 36

PASS_TEXT = {
    "name+nvtx": "kernel name and NVTX range",
    "name+nvtx-shape": "kernel name and NVTX range with numbers masked",
    "name": "kernel name and launch order",
    "short-name": "short kernel name",
    "function": "function name (--print-kernel-base function)",
}


def _plain(v: Any) -> Any:
    """A cell as a JSON value: None for missing, Python numbers, strings."""
    if f.missing(v):
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return None if math.isinf(v) else float(v)
    return str(v)


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A frame as JSON-ready records."""
    cols = [str(c) for c in frame.columns]
    return [dict(zip(cols, (_plain(v) for v in row), strict=True)) for row in frame.itertuples(index=False)]


def _sources(diff: Diff, side: str) -> list[dict[str, Any]]:
    analysis = diff.before if side == "before" else diff.after
    return records(analysis.report.source[["report", "path", "flavour", "ncu_version", "launches"]])


def to_dict(diff: Diff) -> dict[str, Any]:
    """The JSON document as Python objects (see the module docstring)."""
    t = diff.total
    total = {
        "before_ns": t.before_ns,
        "after_ns": t.after_ns,
        "delta_ns": t.delta_ns,
        "change": t.change,
        "speedup": t.speedup,
        "before_launches": t.before_launches,
        "after_launches": t.after_launches,
        "matched": t.matched,
        "before_only": t.before_only,
        "after_only": t.after_only,
        "matched_before_ns": t.matched_before_ns,
        "matched_after_ns": t.matched_after_ns,
        "matched_change": t.matched_change,
    }
    return {
        "schema": SCHEMA,
        "tool": {"name": "ncu-roofline", "version": __version__},
        "before": {"name": diff.before_name, "sources": _sources(diff, "before")},
        "after": {"name": diff.after_name, "sources": _sources(diff, "after")},
        "total": {k: _plain(v) for k, v in total.items()},
        "matched_by": diff.match_counts(),
        "kernels": records(diff.kernels),
        "hints": records(diff.hints),
        "pairs": records(diff.pairs),
        "caveats": list(diff.caveats),
    }


def render_diff_json(diff: Diff, pretty: bool = False) -> str:
    """The diff as JSON: sorted keys, deterministic; compact (one line) unless ``pretty`` (two-space indent)."""
    layout: dict[str, Any] = {"indent": 2} if pretty else {"separators": (",", ":")}
    return json.dumps(to_dict(diff), sort_keys=True, allow_nan=False, **layout) + "\n"


def render_diff_csv(diff: Diff) -> str:
    """One row per kernel (``Diff.kernels`` columns), missing values empty."""
    text: str = diff.kernels.to_csv(index=False, lineterminator="\n")
    return text


# ------------------------------------------------------------------------------------------------- text


def headline(diff: Diff) -> str:
    """One line: the whole program before -> after, change and speedup."""
    t = diff.total
    program = f"{f.change(t.change)}, speedup {f.speedup(t.speedup)}"
    matched = f"{f.change(t.matched_change)}, speedup {f.speedup(t.matched_speedup)}"
    if t.untimed:  # the two times add up different launches: the launches timed on both sides
        how = f"(launches without a duration; those timed on both sides: {matched})"
    elif (t.before_only or t.after_only) and not math.isnan(t.matched_change):
        # launches left unpaired move the program's time by themselves: the launches paired, beside it
        how = f"({program}; {f.counted(t.matched, 'launch', 'launches')} matched: {matched})"
    else:
        how = f"({program})"
    return (
        f"{diff.before_name} -> {diff.after_name}: {f.duration_ns(t.before_ns)} -> {f.duration_ns(t.after_ns)} "
        f"of GPU time {how}, {t.before_launches} -> {t.after_launches} launches"
    )


def matching_line(diff: Diff) -> str:
    """How many launches were matched, and by which pass."""
    t = diff.total
    by = diff.match_counts()
    how = "; ".join(f"{n} by {PASS_TEXT.get(p, p)}" for p, n in by.items())
    line = f"matched {t.matched} of {t.before_launches} BEFORE and {t.after_launches} AFTER launches"
    line += f" ({how})" if how else ""
    if not t.before_only and not t.after_only:
        return line + "; every launch matched"
    if not t.matched and t.before_launches and t.after_launches:
        return line + "; no kernel in common: the totals above compare different kernels (see the caveats)"
    return line + f"; could not match {t.before_only} BEFORE and {t.after_only} AFTER launches (listed below)"


def roofline_text(precision: Any, b_flops: Any, a_flops: Any, b_ai: Any, a_ai: Any, *, one_side: bool = False) -> str:
    """A kernel's move on the roofline: ``"fp32: 711 G -> 709 G FLOP/s at 0.17 -> 0.17 FLOP/B"`` (``one_side``:
    a kernel only one side ran)."""
    if f.missing(precision):
        return f.MISSING

    def two(b: Any, a: Any) -> str:
        return f.arrow(None if f.missing(b) else f.si(b), None if f.missing(a) else f.si(a), one_side=one_side)

    return f"{precision}: {two(b_flops, a_flops)} FLOP/s at {two(b_ai, a_ai)} FLOP/B"


def _launches(b: Any, a: Any) -> str:
    return str(int(b)) if b == a else f"{int(b)} -> {int(a)}"


def kernel_labels(diff: Diff, width: int = KERNEL_WIDTH) -> dict[str, str]:
    """Each kernel of the diff (by its full name) as the text lists show it: its short name, numbered where
    kernels share one (``gemm (2)``), cut to ``width`` so that no two read alike (``fmt.shorten_apart``)."""
    k = diff.kernels
    full = [str(x) for x in k["kernel"]]
    base = [n if f.missing(d) else str(d) for d, n in zip(k["display_name"], full, strict=True)]
    return dict(zip(full, f.shorten_apart(f.unique_names(base), width), strict=True))


def _label(labels: dict[str, str], row: Any) -> str:
    """A row's kernel as ``kernel_labels`` gives it (its short name cut to KERNEL_WIDTH if the diff's kernels lack
    it)."""
    name = str(row.kernel)
    return labels.get(name) or f.shorten(name if f.missing(row.display_name) else str(row.display_name), KERNEL_WIDTH)


def _kernel_rows(diff: Diff, top: int) -> tuple[list[list[str]], int]:
    k = diff.kernels
    labels = kernel_labels(diff)
    rows = []
    for r in k.head(top).itertuples(index=False):
        name = _label(labels, r)
        if r.status == BEFORE_ONLY:
            change, speed = "removed", f.MISSING
        elif r.status == AFTER_ONLY:
            change, speed = "new", f.MISSING
        else:
            change, speed = f.change(r.change), f.speedup(r.speedup)
        one = r.status in (BEFORE_ONLY, AFTER_ONLY)  # one side's values alone; a pair's missing side is "–"
        limiter = f.arrow(r.before_limiter, r.after_limiter, one_side=one)
        roof = roofline_text(
            r.precision, r.before_flops, r.after_flops, r.before_intensity, r.after_intensity, one_side=one
        )
        rows.append(
            [
                name,
                _launches(r.before_launches, r.after_launches),
                f.duration_ns(r.before_ns),
                f.duration_ns(r.after_ns),
                change,
                speed,
                limiter,
                f.arrow(r.before_regime, r.after_regime, one_side=one),
                roof,
            ]
        )
    return rows, max(0, len(k) - top)


def _total_row(diff: Diff) -> list[str]:
    t = diff.total
    return [
        "whole program",
        _launches(t.before_launches, t.after_launches),
        f.duration_ns(t.before_ns),
        f.duration_ns(t.after_ns),
        f.change(t.change),
        f.speedup(t.speedup),
        "",
        "",
        "",
    ]


HEADERS = ["kernel", "launches", "before", "after", "change", "speedup", "limiter", "regime", "roofline (DRAM)"]
RIGHT = [False, True, True, True, True, True, False, False, False]


def _hint_lines(diff: Diff, top: int) -> list[str]:
    h = diff.hints
    if h.empty:
        return []
    lines = ["", "hints (+ appeared, - went away; ? the other report may not have measured what the hint needs):"]
    labels = kernel_labels(diff)
    names = [_label(labels, r) for r in h.head(top * 4).itertuples(index=False)]
    width = max(len(n) for n in names)
    for r, name in zip(h.head(top * 4).itertuples(index=False), names, strict=True):
        sign = "+" if r.status == "appeared" else "-"
        mark = "" if r.comparable else " ?"
        lines.append(f"  {name:<{width}}  {sign} {r.hint} ({r.severity}){mark}")
    if len(h) > top * 4:
        lines.append(f"  ... and {len(h) - top * 4} more (--format json lists them all)")
    return lines


def group_part(invocations: object) -> str:
    """What an unmatched row adds to its launch where it is launches of a summary page's group (else nothing)."""
    n = f.integer(invocations) or 1
    return f", {n} launches of its group" if n > 1 else ""


def _unmatched_lines(diff: Diff, top: int) -> list[str]:
    u = diff.unmatched
    if u.empty:
        return []
    n = int(u["invocations"].sum())
    lines = ["", f"could not match {f.counted(n, 'launch', 'launches')}:"]
    labels = kernel_labels(diff)
    for r in u.head(top).itertuples(index=False):
        side = "before" if r.status == BEFORE_ONLY else "after"
        report, launch = getattr(r, f"{side}_report"), getattr(r, f"{side}_launch_id")
        nvtx = "" if f.missing(r.nvtx_path) else f", NVTX {r.nvtx_path}"
        dur = r.before_duration_ns if side == "before" else r.after_duration_ns
        lines.append(
            f"  {'only in BEFORE' if side == 'before' else 'only in AFTER '}  {_label(labels, r)}  "
            f"({report} launch {launch}{nvtx}{group_part(r.invocations)}), {f.duration_ns(dur)}"
        )
    if len(u) > top:
        more = int(u["invocations"].iloc[top:].sum())
        lines.append(f"  ... and {more:,} more {'launch' if more == 1 else 'launches'} (--format json lists them all)")
    return lines


def render_diff_text(diff: Diff, *, top: int = 15) -> str:
    """The terminal summary of a diff: headline, matching, per-kernel table (the ``top`` biggest changes),
    the whole-program total, hints that appeared or went away, unmatched launches, caveats."""
    rows, more = _kernel_rows(diff, top)
    lines = [headline(diff), matching_line(diff), ""]
    body = f.table(HEADERS, [*rows, _total_row(diff)], RIGHT)
    lines += body[:-1]
    if more:
        lines.append(f"... and {more} more kernels (--top N shows more)")
    lines.append(body[-1])
    lines += _hint_lines(diff, top)
    lines += _unmatched_lines(diff, top)
    for c in diff.caveats:
        lines += ["", f"caveat: {c}"]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")


def render_diff_markdown(diff: Diff, *, top: int = 20) -> str:
    """The diff as Markdown: headline, a table of the ``top`` biggest changes with the total, hints, unmatched
    launches and caveats."""
    rows, more = _kernel_rows(diff, top)
    # the first line: the mark a re-run recognises (files.HEAD_MARKERS), as the analysis' Markdown has it
    title = f"### ncu-roofline: {_md(diff.before_name)} → {_md(diff.after_name)}"
    out = [title, "", _md(headline(diff)), "", _md(matching_line(diff))]
    out += ["", "| " + " | ".join(HEADERS) + " |", "|" + "|".join("---:" if r else "---" for r in RIGHT) + "|"]
    for row in [*rows, _total_row(diff)]:
        out.append("| " + " | ".join(_md(c) for c in row) + " |")
    if more:
        out += ["", f"{more} more kernels not shown."]
    hints = _hint_lines(diff, top)
    if hints:
        out += ["", _md(hints[1]), ""] + [f"- {_md(h.strip())}" for h in hints[2:]]
    unmatched = _unmatched_lines(diff, top)
    if unmatched:
        out += ["", _md(unmatched[1]), ""] + [f"- {_md(u.strip())}" for u in unmatched[2:]]
    for c in diff.caveats:
        out += ["", f"> caveat: {_md(c)}"]
    return "\n".join(out) + "\n"


TEXT: FunctionRenderer[Diff] = FunctionRenderer("text", ".txt", lambda d, o: render_diff_text(d, top=o.top))
JSON: FunctionRenderer[Diff] = FunctionRenderer("json", ".json", lambda d, o: render_diff_json(d, o.pretty))
CSV: FunctionRenderer[Diff] = FunctionRenderer("csv", ".csv", lambda d, _o: render_diff_csv(d))
MARKDOWN: FunctionRenderer[Diff] = FunctionRenderer("markdown", ".md", lambda d, o: render_diff_markdown(d, top=o.top))
