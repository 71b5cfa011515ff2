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
