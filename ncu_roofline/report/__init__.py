"""Rendering: terminal summary, self-contained HTML, and machine-readable exports of an Analysis.

Renderers take an :class:`ncu_roofline.analysis.Analysis` and return text (or write files); they never compute
a metric: every number comes from the analysis frames.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused (objects are still freed by reference counting), then as it was. For
    the stages that build an object per launch (the JSON writer's items, the view model's rows, the page's
    data): those objects hold no cycles, and the collector, set off every 700 new objects, would walk the young
    ones again and again (the HTML run of 10,240 launches: 110 collections, 70 ms; 35 and 16 ms with its view
    model and page data built with the collector paused)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
