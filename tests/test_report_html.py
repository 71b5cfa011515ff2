"""The HTML report: one self-contained, deterministic file; the data the page's script reads; escaping of every
input string; the figures built from the view model."""

from __future__ import annotations

import json
import re

import numpy as np
import plotly.offline
import pytest
from _analyses import HOSTILE, all_missing, hostile, no_launches, sample

from ncu_roofline.report import figures as figures_module
from ncu_roofline.report import fmt
from ncu_roofline.report.figures import (
    LEVEL_SYMBOLS,
    figures,
    roofline_figure,
    roofline_figure_json,
    time_figure,
    time_figure_json,
)
from ncu_roofline.report.html import page_data, page_json, render_html, script_json
from ncu_roofline.report.viewmodel import build_view

DATA_BLOCK = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def train_html() -> str:
    return render_html(sample("train_step.raw.csv"))


def _data(html: str) -> dict:  # type: ignore[type-arg]
    m = DATA_BLOCK.search(html)
    assert m is not None
    out: dict = json.loads(m.group(1))  # type: ignore[type-arg]
    return out


def test_self_contained_and_plotly_embedded_once(train_html: str) -> None:
    js = plotly.offline.get_plotlyjs()
    assert train_html.count(js) == 1
    assert train_html.count("plotly.js v") == js.count("plotly.js v")
    # nothing is fetched: no external scripts, styles, images or frames, and a policy that forbids it
    assert not re.search(r"<(script|img|iframe|link)\b[^>]*\b(src|href)=", train_html)
    assert "default-src 'none'" in train_html and "connect-src 'none'" in train_html
    assert train_html.count("<script") == 3  # the data, plotly.js, the page's own script


def test_templates_are_package_data() -> None:
    from importlib import resources

    folder = resources.files("ncu_roofline.report").joinpath("templates")
    for name in ("report.html.j2", "report.js", "report.css"):
        assert folder.joinpath(name).is_file()
    js = folder.joinpath("report.js").read_text(encoding="utf-8")
    assert "(?<=" not in js and "(?<!" not in js  # lookbehind: a syntax error in older browsers


def test_deterministic_output() -> None:
    a = sample("micro_full.raw.csv")
    assert render_html(a) == render_html(a)
    html = render_html(a)
    assert not re.search(r"20\d\d-\d\d-\d\d", html.replace(plotly.offline.get_plotlyjs(), ""))


def test_page_data_matches_the_view(train_html: str) -> None:
    view = build_view(sample("train_step.raw.csv"))
    data = _data(train_html)
    assert len(data["kernels"]) == len(view.kernels) == 48
    assert len(data["launches"]["id"]) == 382
    k0 = data["kernels"][0]
    assert k0["name"] == view.kernels[0].display_name and k0["launches"] == 63 and len(k0["rows"]) == 63
    assert sorted(data["figures"]) == ["fig-roofline-fp16", "fig-roofline-fp32", "fig-time"]
    for fid in data["figures"]:
        assert f'id="{fid}"' in train_html  # fixed div ids
    assert data["multi_report"] is False and data["has_rules"] is False
    assert page_data(view) == data  # the page holds exactly the view's data


def test_first_screen_content(train_html: str) -> None:
    # header, the lead, the top kernels and the NVTX ranges are static HTML (readable before any script runs)
    assert "NVIDIA H200" in train_html and "382" in train_html and "8.00 ms" in train_html
    table = train_html[train_html.index('id="top-kernels"') :].replace("<wbr>", "")
    table = table[: table.index("</table>")]
    assert table.count("<tr data-kernel=") == 10
    assert "unrolled_elementwise_kernel&lt;direct_copy_kernel_cuda&gt;" in table
    assert "AddmmBackward0" in train_html[train_html.index("NVTX ranges") :]


def test_script_json_escapes_markup() -> None:
    text = script_json({"k": "</script><!--<b>&"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"k": "</script><!--<b>&"}
    with pytest.raises(ValueError):
        script_json({"x": float("nan")})


def test_page_json_is_script_json() -> None:
    """orjson's text is the standard library's values (floats of every magnitude, strings that look like numbers,
    quotes, backslashes, markup, line separators) with the same escapes: nothing can end the block."""
    rng = np.random.default_rng(7)
    floats = [
        *(rng.uniform(0.5, 1.0, 400) * 10.0 ** rng.integers(-40, 40, 400) * rng.choice([-1, 1], 400)).tolist(),
        *(10.0 ** np.arange(-12, 20)).tolist(),
        *[0.0, -0.0, 5e-324, 1e-5, 2.5e-05, 9.999999e-05, 1e-4, 3e-7, 1.5e-9, 1e-10, 1e16, 1.7976931348623157e308],
    ]
    texts = ['"', "\\", '\\"', "e-5,", "0.00002", ",3e-7]", "</script>", "<!--", "<&>", "\u2028", "\u2029", "é"]
    strings = ["".join(rng.choice(texts, 6).tolist()) for _ in range(300)]
    data = {
        "floats": floats,
        "strings": strings,
        "mixed": [{s: f, "v": [f, s, None, True, 3]} for s, f in zip(strings, floats, strict=False)],
    }
    text = page_json(data)
    assert json.loads(text) == json.loads(script_json(data)) == data
    assert not any(c in text for c in "<>&\u2028\u2029")
    for value in ({"x": "\ud800"}, {"x": 2**70}, {1: 2}):  # what orjson cannot write: the standard library's text
        assert page_json(value) == script_json(value)


def test_hostile_kernel_name_is_escaped_everywhere() -> None:
    html = render_html(hostile(sample("micro_full.raw.csv")))
    assert HOSTILE not in html
    assert "<script>window.__pwned" not in html
    assert html.count("<script") == 3 and html.count("</script>") == 3
    assert re.sub(r"<wbr>", "", html).count("<b ") == 0
    # in the static top-kernel table, escaped (with <wbr> break opportunities, which are not text)
    assert "k&lt;float&gt;&lt;/script&gt;&lt;script&gt;" in html.replace("<wbr>", "")
    data = _data(html)
    assert any(k["name"] == HOSTILE for k in data["kernels"])  # the script gets the name verbatim
    texts = [t for f in data["figures"].values() for tr in f["data"] for t in (tr.get("text") or [])]
    assert any(t.startswith("k&lt;float&gt;") for t in texts)  # plotly reads its text as HTML: escaped


def test_renders_with_missing_values_and_no_launches() -> None:
    base = sample("micro_full.raw.csv")
    for a in (all_missing(base), no_launches(base)):
        html = render_html(a, title="edge case")
        data = _data(html)
        assert "<title>edge case · ncu-roofline</title>" in html
        assert list(data["figures"]) == ["fig-time"]
        # no launch has a duration: no time chart to draw (an empty frame of axes was drawn)
        assert 'id="fig-time"' not in html
    assert 'id="fig-time"' in render_html(base, title="timed")


def test_roofline_figure() -> None:
    view = build_view(sample("micro_full.raw.csv"))
    panel = next(p for p in view.rooflines if p.precision == "fp32")
    fig = roofline_figure(panel, view)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert "FLOP/byte" in fig.layout.xaxis.title.text and "FLOP/s" in fig.layout.yaxis.title.text
    markers = [t for t in fig.data if t.mode == "markers" and t.customdata is not None]
    assert sum(len(t.x) for t in markers) == len(panel.points)
    assert {t.marker.symbol for t in markers} <= set(LEVEL_SYMBOLS.values())
    assert all(t.type == "scatter" for t in markers)  # few points: SVG
    # every launch's points joined, one NaN between launches
    (line,) = [t for t in fig.data if t.name == "launch"]
    assert int(np.isnan(np.asarray(line.x, dtype=float)).sum()) == panel.launches - 1
    # roofs and ridges labelled
    notes = " ".join(a.text for a in fig.layout.annotations)
    for level in ("DRAM", "L2", "L1"):
        assert f"{level} ridge" in notes
    assert "FP32 peak" in notes
    # marker size grows with duration
    by_size = sorted((s, d) for t in markers for s, d in zip(t.marker.size, t.customdata[:, 2], strict=True))
    assert by_size[0][1] <= by_size[-1][1]


def test_roofline_figure_uses_webgl_above_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(figures_module, "WEBGL_THRESHOLD", 10)
    view = build_view(sample("micro_full.raw.csv"))
    panel = next(p for p in view.rooflines if p.precision == "fp32")
    fig = roofline_figure(panel, view)
    assert {t.type for t in fig.data if t.mode == "markers" and t.customdata is not None} == {"scattergl"}


def test_time_figure_stacks_to_the_whole() -> None:
    view = build_view(sample("train_step.raw.csv"))
    fig = time_figure(view)
    for row in ("by limiter", "by regime"):
        # each bar is rounded to 4 decimals: six limiter rows may lose 1e-4 each
        assert sum(t.x[0] for t in fig.data if t.y[0] == row) == pytest.approx(100.0, abs=6e-4)
    assert list(figures(view)) == ["fig-time", "fig-roofline-fp32", "fig-roofline-fp16"]


@pytest.mark.parametrize("name", ["train_step.raw.csv", "micro_full.details.csv", "llm_full.details.csv.gz"])
def test_the_time_figure_without_plotly_is_plotlys(name: str) -> None:
    """The page's time figure, built as plain JSON, is what plotly writes for the figure (template included)."""
    import plotly.io as pio

    for view in (build_view(sample(name)), build_view(no_launches(sample(name)))):
        assert time_figure_json(view) == json.loads(pio.to_json(time_figure(view), validate=False))


@pytest.mark.parametrize("webgl", [False, True])
@pytest.mark.parametrize("name", ["micro_full.raw.csv", "train_step.raw.csv", "llm_full.raw.csv.gz"])
def test_the_roofline_figures_without_plotly_are_plotlys(
    name: str, webgl: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each roofline chart, built as plain JSON (typed arrays, template and all), is what plotly writes for the
    figure, with SVG markers and with WebGL ones."""
    import plotly.io as pio

    if webgl:
        monkeypatch.setattr(figures_module, "WEBGL_THRESHOLD", 10)
    view = build_view(sample(name))
    panels = [p for p in view.rooflines if len(p.points)]
    assert panels
    for panel in panels:
        assert roofline_figure_json(panel, view) == json.loads(
            pio.to_json(roofline_figure(panel, view), validate=False)
        )


@pytest.mark.parametrize("name", ["llm_full.raw.csv.gz", "micro_full.raw.csv", "train_step.raw.csv.gz"])
def test_ridge_labels_never_overlap(name: str) -> None:
    """Every ridge label's box, on the narrowest chart the page draws, is clear of every other label's; the
    tensor chart of llm_full has several data types, each with three ridges."""
    from ncu_roofline.report import figures as fg
    from ncu_roofline.report.viewmodel import build_view

    view = build_view(sample(name))
    labelled = 0
    for fid, fig in fg.figures(view).items():
        if not fid.startswith("fig-roofline"):
            continue
        lay = fig.layout
        xr, yr = list(lay.xaxis.range), list(lay.yaxis.range)
        px_x, px_y = fg.PLOT_MIN_WIDTH_PX / (xr[1] - xr[0]), fg.PLOT_HEIGHT_PX / (yr[1] - yr[0])
        boxes = []
        for a in lay.annotations:
            if not a.showarrow or "ridge" not in a.text:
                continue
            cx, cy = (a.x - xr[0]) * px_x, (a.y - yr[0]) * px_y - a.ay  # ay < 0: above the point
            half = len(a.text) * fg.LABEL_CHAR_PX / 2
            boxes.append((cx - half, cx + half, cy - fg.LABEL_LINE_PX / 2, cy + fg.LABEL_LINE_PX / 2))
            assert cy + fg.LABEL_LINE_PX / 2 <= fg.PLOT_HEIGHT_PX + 1e-6  # inside the plot
        for i, b in enumerate(boxes):
            for c in boxes[i + 1 :]:
                assert not (b[0] < c[1] and c[0] < b[1] and b[2] < c[3] and c[2] < b[3]), (fid, b, c)
        labelled += len(boxes)
    assert labelled >= 3


def test_every_finding_is_on_the_page() -> None:
    """llm_full's details page has 19 findings (ours and ncu's rules): the first TOP_FINDINGS listed, the rest
    under "more findings", none dropped (the terminal sends the reader to the page for them)."""
    from ncu_roofline.report.viewmodel import TOP_FINDINGS

    a = sample("llm_full.details.csv")
    view = build_view(a)
    assert len(view.findings) > TOP_FINDINGS
    html = render_html(a)
    listed = re.findall(r'<li class="(?:ncu|ours)"><span class="sev[^"]*">[^<]*</span> <b>([^<]*)</b>', html)
    assert sorted(listed) == sorted(f.label for f in view.findings)
    assert f"{len(view.findings) - TOP_FINDINGS} more findings</summary>" in html


def test_a_summary_pages_rows_carry_the_launches_they_stand_for() -> None:
    """train_step's per-kernel summary page: 68 rows of 382 launches (the file's Invocations column); the page's
    launch data says how many launches each row stands for, so its tables count launches, not rows."""
    data = page_data(build_view(sample("train_step.summary-per-kernel.csv")))
    inv = data["launches"]["inv"]
    assert len(inv) == 68 and sum(inv) == 382
    assert "inv" not in page_data(build_view(sample("train_step.raw.csv")))["launches"]


def test_the_page_shows_the_percentages_the_terminal_shows(train_html: str) -> None:
    """Each kernel's "% of roof" as the page's script rounds it (half up, from the figure the page stores) is
    the terminal's (Python's rounding of the full figure): nvjet ..._TNT's 0.83496 read 84 % on the page and
    83 % in the terminal when the page stored four digits."""
    view = build_view(sample("train_step.raw.csv"))
    for k, shown in zip(view.kernels, _data(train_html)["kernels"], strict=True):
        if k.peak_fraction is None:
            continue
        js = int(np.floor(shown["peak"] * 100 + 0.5))  # toFixed(0): the nearer integer, ties up
        assert f"{js}%" == fmt.percent(k.peak_fraction, 0) or fmt.percent(k.peak_fraction, 0) == "<1%", k.display_name


def test_the_fp16_chart_says_which_launches_it_leaves_out(train_html: str) -> None:
    """The FP16 chart leaves out launches whose FP16 count is HFMA2.MMA register moves: it says how many, and
    they are the launches the JSON has FP16 work for that the chart does not draw."""
    a = sample("train_step.raw.csv")
    panel = next(p for p in build_view(a).rooflines if p.precision == "fp16")
    r = a.roofline
    work = r[(r["precision"] == "fp16") & (r["achieved_flops"] > 0)]
    with_work = len(work.drop_duplicates(["report", "process_id", "launch_id"]))
    assert panel.left_out is not None and with_work > panel.launches
    assert panel.left_out.startswith(f"Not drawn: {with_work - panel.launches} launches whose FP16 instructions")
    assert panel.left_out in train_html


def test_a_latency_bound_points_hover_names_its_busiest_unit_not_a_limiter() -> None:
    """micro_full's low_occupancy is latency-bound (the samples README: 8 % occupancy, no unit near its peak):
    its points' hover calls HBM its busiest unit; stream_triad's (HBM bound) calls HBM its limiter."""
    traces = figures(build_view(sample("micro_full.raw.csv")))["fig-roofline-fp32"]["data"]
    hovers = {t.hovertemplate for t in traces if t.text is not None and "low_occupancy" in list(t.text)}
    assert hovers and all("busiest unit HBM (latency- or launch-bound)" in h for h in hovers)
    triad = {t.hovertemplate for t in traces if t.text is not None and "stream_triad" in list(t.text)}
    assert triad and all("limiter HBM:" in h for h in triad)
