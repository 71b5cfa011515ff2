"""The facade: a Report in, an Analysis out (peaks, roofline, verdicts, utilisation, hints); the whole-program
rollups are ``ncu_roofline.summary``.

Pure: nothing here prints or plots. Each frame is keyed by LAUNCH_KEY (report, process_id, launch_id).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .arrowpool import malloc_arrow
from .chart import (
    CHART_BYTE_FIGURES,
    chart_peaks,
    chart_points,
    counted_half,
    counted_half_points,
    counted_half_recipes,
    fill_from_chart,
    half_chart_scale,
)
from .classify import classify, ncu_figures, unit_table, utilization
from .device import (
    find_device,
    given_forms,
    gpu_traits,
    identify,
    implied_dram_peaks,
    is_mig,
    memory_is_hbm,
    missing_peaks,
    missing_peaks_advice,
    resolve_peaks,
    sm_counts,
)
from .errors import AnalysisError
from .hints import SOURCED, build_frame, cap_ncu_estimates, evaluate, ncu_hint_rows, ncu_rule_hints
from .model import Report, launch_index
from .ncurules import rule_rows
from .quantities import RECIPES, breakdown_quantities, quantities, recipe_columns, recipes, seconds_to_ns, sources
from .roofline import roofline
from .vector import distinct_rows, launch_positions, taken


@dataclass(repr=False)
class Analysis:
    """Everything ncu-roofline concludes about a report.

    ``launches``: the report's launches plus ``duration_ns``, ``device_name`` (the GPU as the report names it,
    else the table entry identified or given), ``device_table`` (the built-in table entry that fills missing
    peaks, <NA>: none) and ``device_basis`` (how it was found: ``ncu_roofline.device.identify``, or
    ``--device``).
    ``quantities``: launch x quantity (``ncu_roofline.quantities``), index LAUNCH_KEY.
    ``peaks``: per launch, every peak figure and its source (``ncu_roofline.device.resolve_peaks``), and
    ``missing_peaks``: the figures its roofline needs that nobody gave (``ncu_roofline.device.missing_peaks``).
    ``roofline``: ROOFLINE_COLUMNS, one row per launch x precision x level.
    ``utilization``: long, per launch and unit, 0..1, with the source of the figure
    (``ncu_roofline.classify.utilization``).
    ``verdicts``: VERDICT_COLUMNS, one row per launch: limiter, compute_pipe, regime, why.
    ``hints``: HINT_COLUMNS, ours and ncu's rule results.
    ``recipes``: launch x derived figure (``ncu_roofline.quantities.RECIPES``): the recipe that gave it.
    """

    report: Report
    launches: pd.DataFrame
    quantities: pd.DataFrame
    peaks: pd.DataFrame
    roofline: pd.DataFrame
    utilization: pd.DataFrame
    verdicts: pd.DataFrame
    hints: pd.DataFrame
    recipes: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)

    def __repr__(self) -> str:
        """One line: the report, launches, kernels and GPU time (``print(analysis)`` does not dump the frames)."""
        kernels = self.launches["kernel_name"].nunique() if "kernel_name" in self.launches else 0
        d = pd.to_numeric(self.launches["duration_ns"], errors="coerce") if "duration_ns" in self.launches else None
        t = "no GPU time" if d is None or d.isna().all() else f"{float(d.sum()) / 1e6:.3f} ms GPU time"
        return f"<Analysis of {self.report!r}: {len(self.launches)} launches of {kernels} kernels, {t}>"


def analysed_values(report: Report, index: pd.MultiIndex) -> tuple[pd.DataFrame, np.ndarray]:
    """``report.values`` of the launches of ``index``, as the analysis reads them: the FP16 figures of a Half
    chart of ncu 2022.3-2024.2 counted as ncu 2025.3 counts them; and the factor each launch's took
    (``chart.half_chart_scale``: the chart points and recipes take it too)."""
    values = report.values.reindex(index)
    half = half_chart_scale(values)
    return counted_half(values, half), half


def report_quantities(
    report: Report, index: pd.MultiIndex | None = None, values: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The quantities of every launch (``ncu_roofline.quantities``), index LAUNCH_KEY in launch order
    (``index``: that index, ``values``: ``analysed_values`` of it, when the caller has them).

    Metric names first; where an export names the Speed Of Light breakdown members only by label
    (``--print-details all``), those labels fill the pipe quantities and join the busiest-member ones."""
    index = launch_index(report.launches) if index is None else index
    quant = quantities(analysed_values(report, index)[0] if values is None else values)
    extra = breakdown_quantities(report.body_item_metrics, index)
    for c in extra.columns:
        if quant[c].dtype == np.float64 and extra[c].isna().all():  # nothing labelled: the column as it is
            continue
        if c.endswith("_busiest_pct"):  # the busiest member: over the named and the labelled members
            quant[c] = np.fmax(quant[c].to_numpy(dtype=float), extra[c].to_numpy(dtype=float))
        else:
            quant[c] = quant[c].fillna(extra[c])
    return quant


def rules_for(rules: pd.DataFrame, report: str) -> pd.DataFrame:
    """ncu's rule rows of another export of the same report (e.g. its details page, for a raw page that has
    none), relabelled to ``report`` so they match its launches by LAUNCH_KEY."""
    out = rules.copy()
    out["report"] = pd.Series(report, index=out.index, dtype="string")
    return out


def given_rules(report: Report, rules: pd.DataFrame | None, index: pd.MultiIndex) -> pd.DataFrame:
    """The rule rows the analysis reads: the report's own, and of ``rules`` (``analyze``'s) those of its launches
    that have none of their own (a raw page's, from the details page of the same run). AnalysisError where
    ``rules`` has rows and none is of a launch of the report (rows of a page named otherwise: ``rules_for``)."""
    if rules is None or not len(rules):
        return report.rules
    at = launch_positions(rules, index)
    if not (at >= 0).any():
        theirs = ", ".join(sorted({str(x) for x in rules["report"].dropna().unique()})[:3]) or "none"
        ours = ", ".join(sorted({str(x) for x in report.launches["report"].dropna().unique()})[:3])
        raise AnalysisError(
            f"rules: none of its {len(rules)} rows is of a launch of the report (its reports: {theirs}; the "
            f"report's: {ours}): name them after the report's, rules_for(rules, {ours.split(', ')[0]!r})"
        )
    own = np.zeros(len(index), dtype=bool)
    theirs_at = launch_positions(report.rules, index)
    own[theirs_at[theirs_at >= 0]] = True
    keep = (at >= 0) & ~own[np.maximum(at, 0)]
    extra: pd.DataFrame = rules.loc[keep]
    return extra if not len(report.rules) else pd.concat([report.rules, extra], ignore_index=True)


@malloc_arrow
def analyze(
    report: Report,
    *,
    device: str | None = None,
    peaks: Mapping[str, float] | None = None,
    rules: pd.DataFrame | None = None,
) -> Analysis:
    """Analyse every launch of ``report``.

    ``device``: GPU name for the built-in peak table, used only for figures the report lacks (default: the
    name the report carries), for the launches of its compute capability or of none known (a merged report's
    launches of another GPU keep theirs), each in the form of the GPU the name matches with its SM count
    (``device.given_forms``; none for a MIG instance). ``peaks``: overrides, figure -> value in base units (e.g.
    ``dram_bytes_per_s``).
    ``rules``: ncu rule rows to compare with and fall back on, for the launches that have none of their own
    (a raw page's): e.g. ``rules_for(read(details).rules, report_name)``; its rows of other launches are left
    out, and AnalysisError is raised where none is of a launch of ``report`` (``given_rules``).
    """
    index = launch_index(report.launches)
    values, half = analysed_values(report, index)  # a Half chart of ncu 2022.3-2024.2 counts half 2025.3's FLOP
    quant = report_quantities(report, index, values)
    # the DRAM peak its DRAM throughput implies: the device's (identifies it), and at each launch's DRAM clock
    implied, implied_own = implied_dram_peaks(report.launches, values)
    sms = sm_counts(report.launches, values)  # the report's, else the one its waves imply
    ident = identify(report, implied_dram=implied, sms=sms)
    given = None if device is None else find_device(device)  # forgiving; unknown or ambiguous: no table
    table, basis = ident["device"], ident["device_basis"]
    if device is not None:  # the given GPU, for the launches of its CC (or of none known): not another GPU's
        fits = _fits(report.launches["cc"], given.cc if given is not None else None)
        if given is None:
            forms = np.full(len(index), None, dtype=object)
        else:  # nor a part of it (a MIG instance), nor another form of it (another SM count)
            forms = given_forms(device, given, sms)
            fits &= ~pd.isna(forms) & ~is_mig(ident["device_name"])
        table = table.where(~fits, pd.Series(forms, index=index, dtype="string"))
        basis = basis.where(~fits, pd.Series("--device", index=index, dtype="string"))
    points = counted_half_points(chart_points(report.body_item_metrics), half, index)
    chart = chart_peaks(points, index) if len(points) else None  # the report's own roofs, before the table's
    if np.isfinite(implied_own).any():
        dram, own = CHART_BYTE_FIGURES["dram"], pd.Series(implied_own, index=index)
        chart = pd.DataFrame({dram: own}) if chart is None else chart.assign(**{dram: chart[dram].fillna(own)})
    peak_frame = resolve_peaks(values, table if table.notna().any() else None, peaks, chart)
    cc = pd.Series(report.launches["cc"].to_numpy(dtype=object), index=index)
    roof = counted_half_recipes(fill_from_chart(roofline(values, peak_frame, cc=cc), points), half, index)
    roof_pos = launch_positions(roof, index)  # each roofline row's launch, found once for every reader
    # ncu's rule rows, read once: rule names and messages by integer codes, each row's launch position
    all_rules = rule_rows(given_rules(report, rules, index), index)
    units = unit_table(quant, roof, positions=roof_pos)
    ncu = ncu_figures(all_rules, index)  # ncu's pipe and FP figures, read once for the verdicts and the hints
    verdicts = classify(
        quant, roof, all_rules, units=units, ncu=ncu, cc=cc.to_numpy(), hbm=memory_is_hbm(table, cc.to_numpy())
    )
    # the peaks the roofline needs and nobody gave, with how to give them, join what the export lacks
    peak_frame["missing_peaks"] = missing_peaks(roof, peak_frame, positions=roof_pos)
    advice = missing_peaks_advice(peak_frame["missing_peaks"], peak_frame, ident["device_name"])
    verdicts["missing"] = _joined_missing(verdicts["missing"], advice)
    util = utilization(quant, roof, verdicts, units=units)

    launches = report.launches.copy()
    launches["duration_ns"] = seconds_to_ns(quant["duration"].to_numpy())  # as the reader's Report.launches
    for size in ("grid_size", "block_size"):  # a page whose launch lines carry no shape: Launch Statistics'
        if size in launches.columns and size in quant.columns and launches[size].isna().any():
            shape = quant[size].to_numpy(dtype=float, copy=True)
            shape[~(np.abs(shape) < 2.0**53)] = np.nan  # none beyond an exact integer, NaN and infinities too
            measured = pd.array(np.round(shape), dtype="Int64")
            launches[size] = launches[size].fillna(pd.Series(measured, index=launches.index))
    launches["device_name"] = _as_text(ident["device_name"].fillna(table))
    launches["device_table"] = _as_text(table)
    launches["device_basis"] = _as_text(basis)

    # the recipe of each figure, derived once: the evidence names the duration's too
    figures_from = figure_recipes(values, roof, positions=roof_pos)
    frame = build_frame(
        launches,
        quant,
        units,
        verdicts,
        roof,
        peak_frame,
        all_rules,
        index,
        ncu=ncu,
        roof_positions=roof_pos,
        gpu=gpu_traits(cc, table),
        sm_counts=sms,
        details_page=_from_details_page(report, launches),
        sources=sources(values, SOURCED, figures_from),
    )
    ours, not_checked = evaluate(frame)
    verdicts = verdicts.copy()
    verdicts["not_checked"] = not_checked.astype("string").array  # positional
    hint_pos = None if all_rules.pos is None else all_rules.pos[ncu_hint_rows(all_rules)]  # ncu's hints' launches
    ncu_hints = cap_ncu_estimates(ncu_rule_hints(all_rules), verdicts, positions=hint_pos)
    hints = pd.concat([ours, ncu_hints], ignore_index=True)
    return Analysis(
        report=report,
        launches=launches,
        quantities=quant,
        peaks=peak_frame,
        roofline=roof,
        utilization=util,
        verdicts=verdicts,
        hints=hints,
        recipes=figures_from,
    )


def _fits(cc: pd.Series, device_cc: str | None) -> np.ndarray:
    """Per launch (positional), whether a GPU of compute capability ``device_cc`` can be the one it ran on: its
    CC is that one or not known (every launch where the GPU is not known: an unknown ``--device`` name)."""
    if device_cc is None:
        return np.ones(len(cc), dtype=bool)
    own = cc.astype("string").str.strip()
    out: np.ndarray = (own.isna() | (own == device_cc.strip())).to_numpy(dtype=bool, na_value=True)
    return out


def _from_details_page(report: Report, launches: pd.DataFrame) -> np.ndarray:
    """Per launch, whether its report was read from a details page, which prints the sections' headers and not
    their tables: a CSV details page, or a text page with rule results (ncu prints those on its details page,
    not on its raw page)."""
    src = report.source
    rules = pd.to_numeric(src["rule_rows"], errors="coerce").fillna(0).to_numpy() > 0
    flavour = src["flavour"].astype(object).to_numpy()
    details = set(src["report"].astype(object).to_numpy()[(flavour == "details") | ((flavour == "text") & rules)])
    if not details:
        return np.zeros(len(launches), dtype=bool)
    out: np.ndarray = launches["report"].astype(object).isin(details).to_numpy(dtype=bool)
    return out


def _as_text(texts: pd.Series) -> Any:
    """A text column, positionally, in the string dtype of the frames' other text columns (<NA> where missing)."""
    return texts.astype("string").array


def _joined_missing(said: pd.Series, lacking: pd.Series) -> Any:
    """Per launch (positional: both in launch order), what the verdict says is missing and the peaks advice,
    "; "-joined (either alone where the other is missing), as the string dtype. The texts are few: each
    distinct pair is joined once and taken by codes."""
    a_texts, b_texts = said.to_numpy(dtype=object), lacking.to_numpy(dtype=object)
    pair, first = distinct_rows(a_texts, b_texts)
    texts: list[str | None] = []
    for row in first.tolist():
        a = None if pd.isna(a_texts[row]) else a_texts[row]
        b = None if pd.isna(b_texts[row]) else b_texts[row]
        texts.append(a if b is None else b if a is None else a + "; " + b)
    return taken(texts, pair)


def figure_recipes(values: pd.DataFrame, roof: pd.DataFrame, *, positions: np.ndarray | None = None) -> pd.DataFrame:
    """Launch x figure: the recipe that computed it (``quantities.recipes``), with the roofline's own record
    of its work and traffic (which includes ncu's chart body items): duration, fp64/fp32/fp16/tensor_flops,
    dram/l2/l1_bytes_per_s. Index LAUNCH_KEY; <NA> where the export has no recipe for a figure.
    ``positions``: each roofline row's launch position in ``values``' index, when the caller has them."""
    if not len(roof):
        return recipes(values).drop(columns=["tensor_inst_per_s"])
    # the figures the roofline records are taken from it below: only the others' recipes are derived here
    out: dict[str, Any] = dict.fromkeys(f for f in RECIPES if f != "tensor_inst_per_s")
    out.update(recipe_columns(values, ["duration"]))
    n = len(values.index)
    pos = launch_positions(roof, values.index) if positions is None else positions
    known = pos >= 0

    def rows_of(column: str, value: str) -> np.ndarray:
        """Whether each row's ``column`` is ``value`` (factorized once per column: no text compared per row)."""
        if column not in codes_of:
            codes_of[column] = pd.factorize(roof[column])
        codes, names = codes_of[column]
        at = np.flatnonzero(np.asarray(names, dtype=object) == value)
        return codes == at[0] if len(at) else np.zeros(len(codes), dtype=bool)

    codes_of: dict[str, tuple[np.ndarray, pd.Index]] = {}

    def column(sel: np.ndarray, recipe: str) -> Any:
        """The ``recipe`` text of each launch's first selected row; <NA> for a launch without one: the string
        dtype of the other recipe columns. Built by codes: taken from the distinct names by Arrow."""
        launches, first = np.unique(pos[sel], return_index=True)
        if recipe not in codes_of:
            codes_of[recipe] = pd.factorize(roof[recipe])  # <NA>: -1
        codes, names = codes_of[recipe]
        col = np.full(n, -1, dtype=np.int64)
        col[launches] = codes[np.flatnonzero(sel)[first]]
        return taken([str(x) for x in names], col)

    dram = known & rows_of("level", "dram")
    for prec in ("fp64", "fp32", "fp16", "tensor"):
        out[f"{prec}_flops"] = column(dram & rows_of("precision", prec), "work_recipe")
    for lv in ("dram", "l2", "l1"):
        out[f"{lv}_bytes_per_s"] = column(known & rows_of("level", lv), "traffic_recipe")
    return pd.DataFrame(out, index=values.index)
