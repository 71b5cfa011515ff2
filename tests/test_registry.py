"""The renderer registry: every format one protocol (name, suffix, render), the command line's formats and
suffix map taken from it, and a default run building the Summary and the view model once."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import click
import pytest
from _analyses import sample
from click.testing import CliRunner
from conftest import data

from ncu_roofline import cli
from ncu_roofline.report import registry
from ncu_roofline.report.registry import ANALYSIS, DIFF, Options, Run


@pytest.mark.parametrize("reg", [ANALYSIS, DIFF], ids=["analysis", "diff"])
def test_every_entry_loads_a_renderer_with_its_name_and_suffix(reg: registry.Registry[object]) -> None:
    for name in reg.names:
        r = reg.get(name)
        assert (r.name, r.suffix) == (name, reg.entry(name).suffix)
        assert callable(r.render)
    assert len(set(reg.suffixes())) == len(reg.names)  # one format per suffix


def _choices(command: click.Command) -> tuple[str, ...]:
    opt = next(p for p in command.params if p.name == "fmt")
    assert isinstance(opt.type, click.Choice)
    return tuple(opt.type.choices)


def test_the_command_line_formats_are_the_registry() -> None:
    assert _choices(cli.analyze_command) == ANALYSIS.names
    assert _choices(cli.diff_command) == DIFF.names
    assert cli._format_of(None, Path("x.md"), ANALYSIS.suffixes()) == "markdown"
    assert cli._format_of(None, Path("x.html"), ANALYSIS.suffixes()) is None  # the default: summary and page


def test_renderers_of_one_run_share_one_summary() -> None:
    run = Run(sample("micro_full.raw.csv"))
    text = ANALYSIS.get("text").render(run, Options(top=3))
    js = ANALYSIS.get("json").render(run, Options())
    assert isinstance(text, str) and not isinstance(js, Mapping)  # JSON: text in pieces, written as they come
    assert len(json.loads("".join(js))["launches"]) == 16
    assert run.view.kernels[0].display_name in text
    assert run.__dict__["summary"] is run.summary  # built once, cached


def test_a_default_run_builds_the_summary_and_view_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"summarize": 0, "build_view": 0}
    real_summarize, real_view = registry.summarize, registry.build_view

    def summarize(*a: object, **k: object) -> object:
        calls["summarize"] += 1
        return real_summarize(*a, **k)  # type: ignore[arg-type]

    def build_view(*a: object, **k: object) -> object:
        calls["build_view"] += 1
        return real_view(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(registry, "summarize", summarize)
    monkeypatch.setattr(registry, "build_view", build_view)
    out = tmp_path / "r.html"
    r = CliRunner().invoke(cli.main, [str(data("micro_full.raw.csv")), "-o", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert out.exists() and "Top" in r.stdout
    assert calls == {"summarize": 1, "build_view": 1}


def test_prepare_runs_each_renderers_one_time_work_on_a_thread_and_swallows_its_failure() -> None:
    """``Registry.prepare`` (begun by the command line before the read): each named renderer's ``prepare`` runs
    once, on a thread of its own; one that fails stops the thread quietly (the render meets the failure itself
    and reports it) and leaves the rest of the command to go on."""
    done: list[str] = []

    def fail() -> None:
        raise RuntimeError("no template")

    good = registry.FunctionRenderer("a", ".a", lambda s, o: "", prepare=lambda: done.append("a"))
    bad = registry.FunctionRenderer("b", ".b", lambda s, o: "", prepare=fail)
    reg: registry.Registry[object] = registry.Registry(
        registry.Entry("a", ".a", f"{__name__}:GOOD"), registry.Entry("b", ".b", f"{__name__}:BAD")
    )
    globals().update(GOOD=good, BAD=bad)
    thread = reg.prepare("a", "b")
    thread.join(timeout=10)
    assert not thread.is_alive() and thread.name == "ncu-roofline-prepare" and done == ["a"]


def test_the_page_is_the_same_whether_prepared_beside_the_read_or_not(tmp_path: Path) -> None:
    """The HTML renderer's one-time work (template, plotly.js, its script and style) changes nothing on the page:
    the command line's page (prepared on the thread) is the renderer's own, byte for byte."""
    out = tmp_path / "r.html"
    r = CliRunner().invoke(cli.main, [str(data("micro_full.raw.csv")), "--format", "html", "-o", str(out)])
    assert r.exit_code == 0, r.output
    page = ANALYSIS.get("html").render(Run(sample("micro_full.raw.csv")), Options())
    assert isinstance(page, str) and out.read_text(encoding="utf-8") == page
