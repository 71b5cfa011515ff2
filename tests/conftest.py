"""Shared fixtures: paths of the real ncu exports under tests/data and ../shared/ncu-samples."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "ncu-samples"


def data(name: str) -> Path:
    """A fixture file by name; '.gz' is appended when only the compressed copy exists."""
    p = DATA / name
    if p.exists():
        return p
    gz = DATA / f"{name}.gz"
    if gz.exists():
        return gz
    raise FileNotFoundError(p)


@pytest.fixture(scope="session")
def micro_full():
    import ncu_roofline

    return ncu_roofline.read(data("micro_full.raw.csv"))
