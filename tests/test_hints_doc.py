"""docs/hints.md is generated from the hint registry and the thresholds module: it must be current."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from ncu_roofline.hints import RULES
from ncu_roofline.thresholds import THRESHOLDS

ROOT = Path(__file__).resolve().parents[1]


def _tool():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("make_hints_doc", ROOT / "tools" / "make_hints_doc.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_hints_page_is_generated_from_the_code() -> None:
    text = (ROOT / "docs" / "hints.md").read_text(encoding="utf-8")
    assert text == _tool().page(), "docs/hints.md is stale: run python tools/make_hints_doc.py"
    for name, t in THRESHOLDS.items():
        assert f"| `{name}` | {t.value:g} |" in text
        assert t.reason.strip()
    for hint_id in RULES:
        assert f"| `{hint_id}` |" in text
