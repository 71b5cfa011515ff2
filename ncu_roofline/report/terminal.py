"""The terminal summary: where the GPU time goes (one line per limiter, one for the regimes) and the top kernels
with their limiter, regime, % of roof and first hint. Plain text; ANSI colour only when asked (the CLI decides,
from whether stdout is a terminal)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..analysis import Analysis
from ..classify import profile_command
from ..ncurules import ROOFLINE_RULE
from ..quantities import DURATION_METRIC, ROOFLINE_SET
from ..vocabulary import RAW_EXPORT, Limiter, Regime
from . import fmt
from .registry import FunctionRenderer, Options, Run
from .viewmodel import (
    NO_DURATION,
    NOT_EXPORTED,
    KernelRow,
    ReportView,
    RooflinePanel,
    build_view,
    hints_note,
    limiter_cell,
    table_notes,
)

#: Width when the caller does not say (the summary is the same on every machine unless asked otherwise).
DEFAULT_WIDTH = 120
MIN_WIDTH = 60
BAR_WIDTH = 20

ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
_ANSI = {
    Limiter.HBM.value: "31",
    Limiter.L2.value: "34",
    Limiter.L1.value: "32",
    Limiter.COMPUTE.value: "35",
    Regime.BOUND.value: "1",
    Regime.LATENCY.value: "33",
    Regime.LAUNCH.value: "36",
}


def _c(text: str, key: str | None, color: bool) -> str:
    code = _ANSI.get(key or "")
    return f"\x1b[{code}m{text}\x1b[0m" if color and code else text


def _bold(text: str, color: bool) -> str:
    return f"\x1b[1m{text}\x1b[0m" if color else text


def _bar(share: float | None, width: int = BAR_WIDTH) -> str:
    s = fmt.number(share)
    if s is None or s <= 0:
        return " " * width
    n = max(1, round(min(1.0, s) * width))
    return ("█" * n).ljust(width)


def _header(view: ReportView) -> list[str]:
    h = view.header
    dev = ", ".join(h.gpus) or "unknown device"
    ncu = f" · ncu {', '.join(h.ncu_versions)}" if h.ncu_versions else ""
    return [
        f"ncu-roofline · {view.title}",
        f"{dev}{ncu} · {fmt.counted(h.launches, 'launch', 'launches')} of {fmt.counted(h.kernels, 'kernel')} · "
        f"GPU time {fmt.duration_ns(h.gpu_time_ns)}{h.untimed_note}",
    ]


def _hint_text(k: KernelRow) -> str:
    h = k.first_hint
    if h is None:
        return "–"
    return h.label


def _kernel_table(kernels: list[KernelRow], width: int, color: bool, view: ReportView) -> list[str]:
    """The top-kernels table, fitted to ``width``: the first hint is a column when the names still fit beside
    it, else a line under each kernel; on narrow terminals the launch count and then the time go first (the
    share stays)."""
    rank_w = max(1, len(str(len(kernels))))
    # a latency- or launch-bound kernel has no limiter: its busiest unit is context, in parentheses
    cells = [limiter_cell(view, k) for k in kernels]
    limiters = [
        f"({cell})" if k.regime in ("latency", "launch") and k.limiter else cell
        for cell, k in zip(cells, kernels, strict=True)
    ]
    lim_w = min(14, max(len("Limiter"), *(len(x) for x in limiters)))
    cols: list[tuple[str, int, str]] = [
        ("Launches", 8, ">"),
        ("GPU time", 8, ">"),
        ("Share", 6, ">"),
        ("Limiter", lim_w, "<"),
        ("Regime", 7, "<"),
        ("% roof", 6, ">"),
    ]
    min_name = 24

    def fixed() -> int:
        return 2 + rank_w + sum(w for _, w, _ in cols) + 2 * (len(cols) + 1)

    for drop in ("Launches", "GPU time"):
        if width - fixed() < min_name:
            cols = [c for c in cols if c[0] != drop]
    rest = width - fixed()
    hints = [_hint_text(k) for k in kernels]
    any_hint = any(k.first_hint is not None for k in kernels)
    hint_w = min(28, max(len("First hint"), *(len(h) for h in hints))) if any_hint else 0
    longest = max(len(k.display_name) for k in kernels)
    inline = any_hint and rest - hint_w - 2 >= min(36, longest)
    name_w = max(12, min(longest, rest - hint_w - 2 if inline else rest, 64))

    def cell(title: str, value: str, w: int, align: str) -> str:
        return fmt.shorten(value, w).rjust(w) if align == ">" else fmt.shorten(value, w).ljust(w)

    head = ["#".rjust(rank_w), "Kernel".ljust(name_w)] + [cell(t, t, w, a) for t, w, a in cols]
    if inline:
        head.append("First hint")
    lines = ["  " + "  ".join(head).rstrip()]
    names = fmt.shorten_apart([k.display_name for k in kernels], name_w)  # names cut alike keep their ends
    for i, k in enumerate(kernels, 1):
        values = {
            "Launches": f"{k.launches:,}",
            "GPU time": fmt.duration_ns(k.duration_ns),
            "Share": fmt.percent(k.share),
            "Limiter": limiters[i - 1],
            "Regime": k.regime or "–",
            "% roof": fmt.percent(k.peak_fraction, 0),
        }
        keys = {"Limiter": k.limiter, "Regime": k.regime}
        row = [str(i).rjust(rank_w), names[i - 1].ljust(name_w)]
        row += [_c(cell(t, values[t], w, a), keys.get(t), color) for t, w, a in cols]
        if inline:
            row.append(fmt.shorten(hints[i - 1], max(8, width - fixed() - name_w - 2)))
        lines.append("  " + "  ".join(row).rstrip())
        h = k.first_hint
        if not inline and h is not None:
            # ncu's rule by its name, then the start of its message (the name alone says little)
            sep = " · " if h.source == "ncu" else ": "
            msg = f"{h.label}{sep}{h.message}" if h.message else h.label
            lines.append(fmt.shorten(" " * (4 + rank_w) + "↳ " + msg, width))
    lines += [fmt.shorten(f"  {note}", width) for note in table_notes(kernels)]
    return lines


def render_view_terminal(view: ReportView, *, top: int = 15, width: int | None = None, color: bool = False) -> str:
    """The terminal summary of a view model (see :func:`render_terminal`)."""
    w = max(MIN_WIDTH, width or DEFAULT_WIDTH)
    first, second = _header(view)
    out = [_bold(fmt.shorten(first, w), color), *_wrap(second, w)]
    if view.header.averaged:
        out.extend(_wrap(view.header.averaged, w))
    out.append("")
    out.append("GPU time by limiter")
    label_w = max([len(t.label) for t in view.by_limiter] + [7])
    bar_w = max(6, min(BAR_WIDTH, w - label_w - 38))
    for t in view.by_limiter:
        launches = fmt.counted(t.launches, "launch", "launches")
        line = (
            f"  {_c(t.label.ljust(label_w), t.key, color)}  {fmt.percent(t.share).rjust(6)}  {_bar(t.share, bar_w)}  "
            f"{(fmt.duration_ns(t.duration_ns) if t.launches else '–').rjust(9)}  {launches}"
        )
        out.append(line.rstrip())
    regimes = " · ".join(f"{_c(t.label.lower(), t.key, color)} {fmt.percent(t.share)}" for t in view.by_regime)
    if len(ANSI_ESCAPE.sub("", f"GPU time by regime: {regimes}")) <= w:
        out.append(f"GPU time by regime: {regimes}")
    else:
        out += ["GPU time by regime", f"  {regimes}"]
    for line in view.lead[:1]:
        out.append("")
        out.extend(_wrap(line, w))
    kernels = list(view.kernels[: max(0, top)])
    if kernels:
        out.append("")
        out.append(f"Top {len(kernels)} kernel{'s' if len(kernels) != 1 else ''} by GPU time")
        out.extend(_kernel_table(kernels, w, color, view))
        more = len(view.kernels) - len(kernels)
        if more > 0:
            out.append(f"  … and {more:,} more kernel{'s' if more != 1 else ''}")
    ours = [f for f in view.findings if f.source != "ncu"]
    unchecked = hints_note(view, kernels)
    if not ours and unchecked:
        out.append("")
        out.extend(_wrap(unchecked, w))
    if ours:
        out.append("")
        out.append("Hints")
        for f in ours[:5]:
            out.append(
                fmt.shorten(
                    f"  {f.label}: {fmt.counted(f.kernels, 'kernel')}, "
                    + (f"{f.recoverable_text()}, " if f.recoverable_share is not None else "")
                    + f"{fmt.percent(f.share)} of GPU time touched",
                    w,
                )
            )
        more = len(ours) - 5
        if more > 0:  # the page and --format markdown list every hint
            out.append(f"  … and {more:,} more hint{'s' if more != 1 else ''} (the HTML report lists them all)")
        if unchecked:
            out.extend(_wrap(unchecked, w))
    if view.header.missing_peaks:
        out.append("")
        out.extend(_wrap(view.header.missing_peaks, w))
    if view.rooflines and all(p.absent for p in view.rooflines):
        out.append("")
        out.extend(_wrap(_no_roofline(view.rooflines), w))
    return "\n".join(out) + "\n"


def _no_roofline(panels: Sequence[RooflinePanel]) -> str:
    """Why no chart has a point when it is for what the export holds (every panel ``absent``): the work this
    page leaves out though ncu collected it (export it again), else the one precision's note, else every
    precision named and the one ncu run that collects them all (not the first precision's section alone)."""
    untimed = [p.label for p in panels if p.absent == NO_DURATION]
    if untimed:
        return (
            f"No roofline: the {_named(untimed, 'and')} work was counted, but no launch that counted it has a "
            f"duration to make FLOP/s of it: add {DURATION_METRIC} to --metrics."
        )
    left_out = [p.label for p in panels if p.absent == NOT_EXPORTED]
    if left_out:
        return (
            f"No roofline: this page leaves out the {_named(left_out, 'and')} work ncu collected (its "
            f"{ROOFLINE_RULE} rule ran): export the report's raw page ({RAW_EXPORT})."
        )
    if len(panels) == 1:
        return f"No roofline: {panels[0].label}: {panels[0].note}"
    return (
        f"No roofline: this export has no {_named([p.label for p in panels], 'or')} work counts: profile with --set "
        f"{ROOFLINE_SET}, or in one run with this tool's section: {profile_command()}; a report made with ncu's "
        f"roofline sections has it on its raw page ({RAW_EXPORT})."
    )


def _named(labels: Sequence[str], conjunction: str) -> str:
    """``A``, ``A and B``, ``A, B and C`` (or ``or``)."""
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + f" {conjunction} {labels[-1]}"


def _wrap(text: str, width: int) -> list[str]:
    words, lines, cur = [fmt.shorten(x, width) for x in text.split()], [], ""
    for word in words:
        if cur and len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    if cur:
        lines.append(cur)
    return lines


def render_terminal(analysis: Analysis, *, top: int = 15, width: int | None = None, color: bool = False) -> str:
    """The terminal summary of ``analysis``: header, one line per limiter with its share of GPU time, the
    regimes, and the ``top`` kernels by GPU time (limiter, regime, % of roof, first hint), fitted to ``width``
    columns (default ``DEFAULT_WIDTH``). ``color`` adds ANSI colours (the caller checks for a terminal)."""
    return render_view_terminal(build_view(analysis), top=top, width=width, color=color)


def _render(run: Run, options: Options) -> str:
    return render_view_terminal(run.view, top=options.top, width=options.width, color=options.color)


TEXT: FunctionRenderer[Run] = FunctionRenderer("text", ".txt", _render)
