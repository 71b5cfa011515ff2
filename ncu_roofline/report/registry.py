"""The renderers, behind one protocol, in one registry per subject (an analysis, or a diff of two).

A renderer is an object with a ``name`` (the ``--format`` value), a ``suffix`` (the file suffix of its output:
``-o x.json`` picks the renderer whose suffix is ``.json``) and ``render(subject, options)``, which returns the
output: text (whole, or in pieces), or for a folder format (Parquet) the files as ``{relative path: bytes}``.
Renderers never compute
a metric: an analysis is rendered from its :class:`Run`, which builds the Summary and the view model once and
shares them between every renderer of the run.

A new format is one module that defines a renderer and one line in ``ANALYSIS`` (or ``DIFF``) below. The
registry imports a renderer's module only when that format is used, so the command line starts fast.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Generic, Protocol, TypeVar

from ..analysis import Analysis
from ..diff import Diff
from ..summary import Summary, summarize
from . import gc_paused
from .viewmodel import ReportView, build_view

#: What ``render`` returns: text, text in pieces (an iterator of str, written as they come, so a large output is
#: never whole in memory), or the files of a folder format by relative path.
Output = str | Iterator[str] | Mapping[str, bytes]

S_contra = TypeVar("S_contra", contravariant=True)
S = TypeVar("S")


@dataclass(frozen=True)
class Options:
    """What the command line passes every renderer; each reads what it needs."""

    #: Kernels in a summary table.
    top: int = 15
    #: Terminal width and ANSI colour (the text summary).
    width: int | None = None
    color: bool = False
    #: Page title (HTML); the input names when None.
    title: str | None = None
    #: Indented JSON (two spaces) instead of compact.
    pretty: bool = False


class Renderer(Protocol[S_contra]):
    """One output format."""

    @property
    def name(self) -> str: ...

    @property
    def suffix(self) -> str: ...

    def render(self, subject: S_contra, options: Options) -> Output: ...


@dataclass(frozen=True)
class FunctionRenderer(Generic[S]):
    """A renderer made of a name, a suffix and a function (the usual way to define one)."""

    name: str
    suffix: str
    function: Callable[[S, Options], Output]
    #: The same output as UTF-8 bytes in pieces, where the renderer has them without a decode (the command line
    #: writes these to a file); None: the renderer has text only.
    binary: Callable[[S, Options], Iterator[bytes]] | None = None
    #: What the renderer does once per process whatever it renders (a template compiled, a script read), which
    #: the command line runs beside the read (``Registry.prepare``); None: nothing beyond its module's imports.
    prepare: Callable[[], object] | None = None

    def render(self, subject: S, options: Options) -> Output:
        return self.function(subject, options)


@dataclass
class Run:
    """An analysis as every renderer of one run sees it: the Summary and the view model are built once, on
    first use, and shared."""

    analysis: Analysis
    title: str | None = None

    @cached_property
    def summary(self) -> Summary:
        return summarize(self.analysis)

    @cached_property
    def view(self) -> ReportView:
        summary = self.summary
        with gc_paused():  # a row object per launch, none in a cycle
            return build_view(self.analysis, summary, title=self.title)


@dataclass(frozen=True)
class Entry:
    """One registry line: the format's name, its file suffix, and where its renderer is (``module:NAME``)."""

    name: str
    suffix: str
    target: str
    #: Whether the output is a folder of files (``render`` returns a mapping) rather than text.
    folder: bool = False


class Registry(Generic[S]):
    """The formats of one subject, in the order the command line lists them."""

    def __init__(self, *entries: Entry) -> None:
        self.entries = {e.name: e for e in entries}

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.entries)

    def entry(self, name: str) -> Entry:
        return self.entries[name]

    def suffixes(self) -> dict[str, str]:
        """File suffix -> format name (``.json`` -> ``json``), for ``-o`` without ``--format``."""
        return {e.suffix: e.name for e in self.entries.values()}

    def get(self, name: str) -> Renderer[S]:
        """The renderer of a format (its module imported now)."""
        entry = self.entries[name]
        module, _, attr = entry.target.partition(":")
        renderer: Renderer[S] = getattr(importlib.import_module(module), attr)
        if renderer.name != entry.name or renderer.suffix != entry.suffix:  # pragma: no cover - a registry typo
            raise RuntimeError(f"{entry.target} is {renderer.name!r}/{renderer.suffix!r}, not {entry}")
        return renderer

    def prepare(self, *names: str) -> threading.Thread:
        """Start importing the renderers of ``names`` and doing their one-time work (their ``prepare``) on a
        thread of its own, begun before the read: the read spends most of its time in Arrow's parsing threads,
        the interpreter lock free, so this work fills the idle core instead of following the analysis. Join the
        thread before rendering. A failure there is left for the render to meet and report."""

        def run() -> None:
            for name in names:
                try:
                    step = getattr(self.get(name), "prepare", None)
                    if step is not None:
                        step()
                except Exception:  # the render does the same and reports it
                    return

        thread = threading.Thread(target=run, name="ncu-roofline-prepare", daemon=True)
        thread.start()
        return thread


#: Formats of ``ncu-roofline REPORT...`` (subject: a :class:`Run`).
ANALYSIS: Registry[Run] = Registry(
    Entry("text", ".txt", "ncu_roofline.report.terminal:TEXT"),
    Entry("html", ".html", "ncu_roofline.report.html:HTML"),
    Entry("json", ".json", "ncu_roofline.report.jsonout:JSON"),
    Entry("csv", ".csv", "ncu_roofline.report.exports:CSV"),
    Entry("markdown", ".md", "ncu_roofline.report.exports:MARKDOWN"),
    Entry("parquet", ".parquet", "ncu_roofline.report.exports:PARQUET", folder=True),
)

#: Formats of ``ncu-roofline diff`` (subject: a :class:`ncu_roofline.diff.Diff`).
DIFF: Registry[Diff] = Registry(
    Entry("text", ".txt", "ncu_roofline.report.diffout:TEXT"),
    Entry("html", ".html", "ncu_roofline.report.diff_html:HTML"),
    Entry("json", ".json", "ncu_roofline.report.diffout:JSON"),
    Entry("csv", ".csv", "ncu_roofline.report.diffout:CSV"),
    Entry("markdown", ".md", "ncu_roofline.report.diffout:MARKDOWN"),
)
