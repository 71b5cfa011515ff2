"""Shared fixtures: paths of the real ncu exports under tests/data and ../shared/ncu-samples."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
#: ../shared beside the checkout (CI clones the project next to a copy of it)
SHARED_ROOT = Path(__file__).resolve().parents[2] / "shared"
SHARED = SHARED_ROOT / "ncu-samples"


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


def _has_ncu_report() -> bool:
    """Whether the optional ``ncu-rep`` extra (NVIDIA's ncu_report module) can be imported."""
    try:
        import ncu_report  # noqa: F401
    except ImportError:
        return False
    return True


def _skip_missing_extra(exc: BaseException) -> None:
    from ncu_roofline.errors import MissingExtraError

    if isinstance(exc, MissingExtraError) and not _has_ncu_report():
        pytest.skip(f"optional extra not installed ({exc})")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> object:
    """A test (or its fixture) that reads a .ncu-rep file is skipped, saying why, where the ncu-rep extra is not
    installed; with the extra installed, a MissingExtraError fails the test as any error does."""
    try:
        return (yield)
    except Exception as exc:
        _skip_missing_extra(exc)
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> object:
    try:
        return (yield)
    except Exception as exc:
        _skip_missing_extra(exc)
        raise
