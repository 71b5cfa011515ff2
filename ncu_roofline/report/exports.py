"""Machine-readable exports: Markdown (a pull-request comment), CSV (one row per launch) and Parquet (the tidy
frames, in the layout of ``ncu-roofline export``). Deterministic: same analysis, same text; no timestamps."""

from __future__ import annotations

import io
import re

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..analysis import Analysis
from ..campaign import dataset_tables
from ..model import LAUNCH_KEY
from ..summary import NCU_SOURCE
from . import fmt
from .registry import FunctionRenderer, Options, Run
from .viewmodel import ReportView, TimeShare, build_view, hints_note, limiter_cell, table_notes

#: Launch columns that lead each CSV row (then every verdict column, then the hints).
#: ``duration_ns`` is one launch's (a summary page's row: the mean of its ``invocations``: its GPU time is the
#: product); ``device_name``: the GPU it ran on, as the report names it (a merged report's GPUs told apart).
CSV_LAUNCH_COLUMNS = (
    "kernel_name",
    "display_name",
    "nvtx_path",
    "grid_size",
    "block_size",
    "duration_ns",
    "invocations",
    "device_name",
)


# ------------------------------------------------------------------------------------------------ markdown

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#])")


def md_text(value: str) -> str:
    """Text for a Markdown table cell: one line, Markdown punctuation escaped, HTML brackets as entities
    (GitHub would otherwise read ``<float>`` as a tag and drop it)."""
    s = " ".join(value.split())
    s = _MD_SPECIAL.sub(r"\\\1", s)
    return s.replace("<", "&lt;").replace(">", "&gt;")


def md_code(value: str) -> str:
    """``value`` as an inline code span inside a table cell: the fence is longer than any backtick run in it,
    and ``|`` is escaped (GitHub splits table cells at ``|`` even inside code spans)."""
    s = " ".join(value.split()).replace("|", "\\|")
    runs = [len(r) for r in re.findall(r"`+", s)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or runs else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def _md_shares(title: str, shares: tuple[TimeShare, ...]) -> list[str]:
    lines = [f"| {title} | GPU time | Share | Launches |", "| --- | --: | --: | --: |"]
    for t in shares:
        lines.append(
            f"| {md_text(t.label)} | {fmt.duration_ns(t.duration_ns)} | {fmt.percent(t.share)} | {t.launches:,} |"
        )
    return lines


def render_view_markdown(view: ReportView, *, top: int = 20) -> str:
    """The Markdown summary of a view model (see :func:`render_markdown`)."""
    h = view.header
    out = [f"### ncu-roofline: {md_text(view.title)}", ""]
    dev = ", ".join(h.gpus) or "unknown device"
    ncu = f" · ncu {', '.join(h.ncu_versions)}" if h.ncu_versions else ""
    out.append(
        f"{md_text(dev + ncu)} · {fmt.counted(h.launches, 'launch', 'launches')} of "
        f"{fmt.counted(h.kernels, 'kernel')} · "
        f"**{fmt.duration_ns(h.gpu_time_ns)}** GPU time{h.untimed_note}"
    )
    out.append("")
    if h.averaged:
        out += [md_text(h.averaged), ""]
    for line in view.lead:
        out.append(f"- {md_text(line)}")
    if view.lead:
        out.append("")
    out += _md_shares("Limiter", view.by_limiter)
    out.append("")
    out += _md_shares("Regime", view.by_regime)
    kernels = view.kernels[: max(0, top)]
    if kernels:
        out += ["", f"**Top {fmt.counted(len(kernels), 'kernel')} by GPU time**", ""]
        out.append("| # | Kernel | Launches | GPU time | Share | Limiter | Regime | % of roof | First hint |")
        out.append("| --: | --- | --: | --: | --: | --- | --- | --: | --- |")
        for i, k in enumerate(kernels, 1):
            hint = k.first_hint
            hint_text = "–" if hint is None else md_text(hint.label)
            lim = limiter_cell(view, k)
            if k.regime in ("latency", "launch") and k.limiter:
                lim = f"({lim} busiest)"  # no roof holds it: the busiest unit is context, not the limiter
            out.append(
                f"| {i} | {md_code(k.display_name)} | {k.launches:,} | {fmt.duration_ns(k.duration_ns)} | "
                f"{fmt.percent(k.share)} | {md_text(lim)} | {md_text(k.regime or '–')} | "
                f"{fmt.percent(k.peak_fraction, 0)} | {hint_text} |"
            )
        more = len(view.kernels) - len(kernels)
        if more > 0:
            out.append(f"\n… and {more:,} more kernels.")
        notes = table_notes(kernels)
        if notes:
            out += ["", *(f"{md_text(note)}  " for note in notes)]  # two spaces: a line break
    ours = [f for f in view.findings if f.source != NCU_SOURCE]
    if ours:
        out += ["", "**Hints**", ""]
        for f in ours:
            where = ", ".join(md_code(view.kernels[i].display_name) for i in f.top_kernels)
            advice = f" {md_text(f.advice)}" if f.advice else ""
            out.append(
                f"- **{md_text(f.label)}** ({md_text(f.severity or '')}): {fmt.counted(f.kernels, 'kernel')}, "
                + (f"{f.recoverable_text()}, " if f.recoverable_share is not None else "")
                + f"{fmt.percent(f.share)} of GPU time touched ({where}).{advice}"
            )
    unchecked = hints_note(view, kernels)
    if unchecked:
        out += ["", md_text(unchecked)]
    if h.missing_peaks:
        out += ["", md_text(h.missing_peaks)]
    rules = [f for f in view.findings if f.source == NCU_SOURCE]
    if rules:
        out += ["", "<details><summary>ncu's own rules</summary>", ""]
        out.append("| Rule | Launches | Kernels | GPU time share |")
        out.append("| --- | --: | --: | --: |")
        for f in rules:
            out.append(f"| {md_text(f.label)} | {f.launches:,} | {f.kernels:,} | {fmt.percent(f.share)} |")
        out += ["", "</details>"]
    return "\n".join(out) + "\n"


def render_markdown(analysis: Analysis, *, top: int = 20) -> str:
    """A Markdown summary for a pull-request comment: header, the lead, GPU time by limiter and by regime, the
    ``top`` kernels (limiter, regime, % of roof, first hint), and the hints across the report. Kernel names are
    code spans; every input string is escaped."""
    return render_view_markdown(build_view(analysis), top=top)


# ------------------------------------------------------------------------------------------------ csv


def verdict_table(analysis: Analysis) -> pd.DataFrame:
    """One row per launch: LAUNCH_KEY, CSV_LAUNCH_COLUMNS, every verdict column, and ``hints`` (the launch's
    hint ids joined by ";"). Takes ``analysis.launches``, ``verdicts`` and ``hints``."""
    key = list(LAUNCH_KEY)
    lv = analysis.launches
    launch_cols = [c for c in CSV_LAUNCH_COLUMNS if c in lv.columns]
    left = lv[key + launch_cols].reset_index(drop=True)
    v = analysis.verdicts
    extra = [c for c in v.columns if c not in key and c not in launch_cols]
    table = left.merge(v[key + extra], on=key, how="left", sort=False)
    h = analysis.hints
    if len(h):
        ids = (
            h.dropna(subset=["hint"])
            .drop_duplicates([*key, "hint"])
            .groupby(key, sort=False, dropna=False)["hint"]
            .agg(lambda s: ";".join(str(x) for x in s))
            .rename("hints")
            .reset_index()
        )
        table = table.merge(ids, on=key, how="left", sort=False)
    else:
        table["hints"] = pd.NA
    return table


def render_csv(analysis: Analysis) -> str:
    """The verdicts as CSV, one row per launch with its names (see :func:`verdict_table`); missing values are
    empty cells, floats at full precision, ``\\n`` line ends."""
    buf = io.StringIO()
    verdict_table(analysis).to_csv(buf, index=False, lineterminator="\n")
    return buf.getvalue()


# ------------------------------------------------------------------------------------------------ parquet


def parquet_files(analysis: Analysis) -> dict[str, bytes]:
    """The Parquet dataset of ``analysis`` as files, relative path -> bytes: the layout of ``ncu-roofline export``
    (``<frame>/report=<name>/part-0.parquet``, ``ncu_roofline.campaign``), so one report written with
    ``--format parquet`` reads like a one-report campaign."""
    out = {}
    for path, table in dataset_tables(analysis).items():
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        out[path] = sink.getvalue().to_pybytes()
    return out


# ------------------------------------------------------------------------------------------------ renderers


def _markdown(run: Run, options: Options) -> str:
    return render_view_markdown(run.view, top=options.top)


CSV: FunctionRenderer[Run] = FunctionRenderer("csv", ".csv", lambda run, _options: render_csv(run.analysis))
MARKDOWN: FunctionRenderer[Run] = FunctionRenderer("markdown", ".md", _markdown)
PARQUET: FunctionRenderer[Run] = FunctionRenderer("parquet", ".parquet", lambda run, _o: parquet_files(run.analysis))
