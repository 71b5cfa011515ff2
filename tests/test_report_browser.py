"""The HTML report in a real headless Chromium, offline: no console errors, no network requests, the roofline
plots drawn, one table row per kernel, and the table's sorting, filtering, paging and expanding at work.

Skipped only when Chromium is not installed (CI installs Debian's ``chromium``; see .ci/run)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from _analyses import HOSTILE, hostile, sample
from _browser import Chromium, PageRun, find_chromium

from ncu_roofline.report import figures as figures_module
from ncu_roofline.report.html import render_html
from ncu_roofline.report.viewmodel import KernelRow, build_view

pytestmark = pytest.mark.skipif(
    find_chromium() is None, reason="chromium is not installed (apt-get install -y chromium); CI installs it"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    with Chromium() as b:
        yield b


def _open(browser: Chromium, html: str, path: Path) -> PageRun:
    path.write_text(html, encoding="utf-8")
    run = browser.open(path)
    assert run.errors == [], run.errors
    assert [u for u in run.requests if u != path.resolve().as_uri()] == []  # nothing but the file itself
    return run


def _count(browser: Chromium, selector: str) -> int:
    return int(browser.evaluate(f"document.querySelectorAll({json.dumps(selector)}).length"))


def test_training_step_report_renders(browser: Chromium, tmp_path: Path) -> None:
    a = sample("train_step.raw.csv")
    view = build_view(a)
    _open(browser, render_html(a), tmp_path / "train_step.roofline.html")
    assert browser.evaluate("document.body.getAttribute('data-ready')") == "1"
    # every figure drawn by plotly, with its points
    assert _count(browser, "#fig-time .main-svg") >= 1
    bars = [t for t in (*view.by_limiter, *view.by_regime) if t.share]
    assert _count(browser, "#fig-time .bars path") == len(bars) >= 4
    for p in view.rooflines:
        if p.note:
            assert _count(browser, f"#fig-roofline-{p.precision}") == 0
            continue
        assert _count(browser, f"#fig-roofline-{p.precision} .main-svg") >= 1
        assert _count(browser, f"#fig-roofline-{p.precision} .scatterlayer path.point") >= len(p.points)
    # one row per kernel, the top ten on the first screen, the top kernel diagnosed
    assert _count(browser, "#kernel-rows tr:not(.launch)") == len(view.kernels) == 48
    assert _count(browser, "#top-kernels tbody tr") == 10
    assert browser.evaluate("document.querySelector('#d-body h3').textContent") == view.kernels[0].display_name
    assert browser.evaluate("document.querySelector('#d-body .fullname').textContent") == view.kernels[0].kernel_name
    # a click on a roofline point diagnoses the point's kernel (customdata[0] is the kernel's index)
    browser.evaluate(
        "document.getElementById('fig-roofline-fp32').emit('plotly_click', {points: [{customdata: [5, 0, 0, 0]}]}), 1"
    )
    assert browser.evaluate("document.querySelector('#d-body h3').textContent") == view.kernels[5].display_name


def test_table_expands_filters_and_sorts(browser: Chromium, tmp_path: Path) -> None:
    a = sample("train_step.raw.csv")
    view = build_view(a)
    _open(browser, render_html(a), tmp_path / "table.roofline.html")
    browser.evaluate("document.querySelector('#kernel-rows button.expand').click(), 1")
    assert _count(browser, "#kernel-rows tr.launch") == view.kernels[0].launches == 63
    browser.evaluate("document.querySelector('#kernel-rows button.expand').click(), 1")
    assert _count(browser, "#kernel-rows tr.launch") == 0
    # filter by name
    browser.evaluate(
        "(() => { const f = document.getElementById('f-name'); f.value = 'nvjet';"
        " f.dispatchEvent(new Event('input')); return 1; })()"
    )
    nvjet = [k for k in view.kernels if "nvjet" in k.display_name]
    assert _count(browser, "#kernel-rows tr:not(.launch)") == len(nvjet)
    # ... and by limiter
    browser.evaluate(
        "(() => { const f = document.getElementById('f-limiter'); f.value = 'l1';"
        " f.dispatchEvent(new Event('change')); return 1; })()"
    )
    assert _count(browser, "#kernel-rows tr:not(.launch)") == len([k for k in nvjet if k.limiter == "l1"])
    # sort by launches, most first
    browser.evaluate(
        "(() => { for (const id of ['f-name', 'f-limiter']) { const f = document.getElementById(id); f.value = '';"
        " f.dispatchEvent(new Event(id === 'f-name' ? 'input' : 'change')); }"
        " document.querySelector('th[data-sort=launches]').click(); return 1; })()"
    )
    first = browser.evaluate("document.querySelector('#kernel-rows tr .kname').textContent")
    assert first == max(view.kernels, key=lambda k: (k.launches, -k.index)).display_name
    # clicking a row diagnoses that kernel
    browser.evaluate("document.querySelectorAll('#kernel-rows tr')[2].click(), 1")
    third = browser.evaluate("document.querySelectorAll('#kernel-rows tr .kname')[2].textContent")
    assert browser.evaluate("document.querySelector('#d-body h3').textContent") == third


def test_many_kernels_are_paged(browser: Chromium, tmp_path: Path) -> None:
    base = sample("train_step.raw.csv")
    launches = base.launches.copy()
    launches["kernel_name"] = launches["kernel_name"] + " #" + launches["launch_id"].astype(str)
    a = replace(base, launches=launches)
    _open(browser, render_html(a), tmp_path / "paged.roofline.html")
    assert _count(browser, "#kernel-rows tr") == 50
    assert browser.evaluate("document.getElementById('p-info').textContent") == "kernels 1–50 of 382"
    browser.evaluate("document.getElementById('p-next').click(), 1")
    assert browser.evaluate("document.getElementById('p-info').textContent") == "kernels 51–100 of 382"


def test_hostile_kernel_name_stays_text(browser: Chromium, tmp_path: Path) -> None:
    a = hostile(sample("micro_full.raw.csv"))
    _open(browser, render_html(a), tmp_path / "hostile.roofline.html")
    assert browser.evaluate("typeof window.__pwned") == "undefined"
    names = browser.evaluate("Array.from(document.querySelectorAll('#kernel-rows .kname')).map(e => e.textContent)")
    assert HOSTILE in names
    top = browser.evaluate("Array.from(document.querySelectorAll('#top-kernels .kname')).map(e => e.textContent)")
    assert HOSTILE in top
    assert _count(browser, "script") == 3


def test_webgl_charts_render_without_errors(browser: Chromium, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(figures_module, "WEBGL_THRESHOLD", 10)
    a = sample("llm_full.raw.csv")
    _open(browser, render_html(a), tmp_path / "webgl.roofline.html")
    assert _count(browser, "#fig-roofline-fp32 canvas") >= 1
    assert _count(browser, "#fig-roofline-fp32 .main-svg") >= 1


def _micro_kernel(browser: Chromium, tmp_path: Path, name: str) -> KernelRow:
    """Open micro_full's report and show kernel ``name`` in the diagnosis panel (a click on its row)."""
    a = sample("micro_full.raw.csv")
    view = build_view(a)
    _open(browser, render_html(a), tmp_path / "micro_full.roofline.html")
    i = next(i for i, k in enumerate(view.kernels) if k.display_name == name)
    browser.evaluate(f"document.querySelectorAll('#kernel-rows tr:not(.launch)')[{i}].click(), 1")
    assert browser.evaluate("document.querySelector('#d-body h3').textContent") == name
    return view.kernels[i]


def test_diagnosis_shows_each_hint_with_its_advice(browser: Chromium, tmp_path: Path) -> None:
    kernel = _micro_kernel(browser, tmp_path, "spill_heavy")
    advice = json.loads(
        browser.evaluate("JSON.stringify([...document.querySelectorAll('#d-body .advice')].map(e => e.textContent))")
    )
    expected = [h.advice for h in kernel.hints if h.advice]
    assert expected and [x.lstrip("\u2192 ") for x in advice][: len(expected)] == expected


def test_diagnosis_says_what_a_work_removing_fix_saves(browser: Chromium, tmp_path: Path) -> None:
    # smem_bank_conflict's card: under 1 % at today's work (the launch is at its L1 roof: "<1%", not "0%"), 96 %
    # without the replays (its SM's 4.11 % is what is left)
    _micro_kernel(browser, tmp_path, "smem_bank_conflict")
    text = browser.evaluate("document.querySelector('#d-body .hintcard').textContent")
    assert "Shared bank conflicts" in text
    assert "est. speedup 96% with less work (<1% at today's work)" in text
