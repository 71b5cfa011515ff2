"""Shared fixtures: paths of the real ncu exports under tests/data and ../shared/ncu-samples, and each export read
and analysed once per test session (per pytest-xdist worker): :func:`read_shared` and :func:`analysed`."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import pandas as pd
import pytest

if TYPE_CHECKING:
    from ncu_roofline import Report
    from ncu_roofline.analysis import Analysis
    from ncu_roofline.devices import DeviceSpec

T = TypeVar("T")

DATA = Path(__file__).resolve().parent / "data"
#: ../shared beside the checkout (CI clones the project next to a copy of it)
SHARED_ROOT = Path(__file__).resolve().parents[2] / "shared"
SHARED = SHARED_ROOT / "ncu-samples"
#: The --print-metric-instances cell seen written in a unit of its own on ncu's raw pages (2024.2 and 2025.3): this
#: occupancy graph's value before its instances is in %/Mbyte under its %/Kbyte unit ("440 (50; 50; ...)" where the
#: plain page has 0.440000 %/Kbyte) on the launches where it is under 1 %/Kbyte.
INSTANCE_UNIT_SLIP = "derived__pct_occupancy_per_shared_mem_size"


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``-n auto --dist loadfile`` unless ``-n`` is given, where pytest-xdist is installed (the test extra): one
    worker per CPU, each test file on one worker (its module fixtures built once). Without pytest-xdist, and for
    a run of named tests only (``file::test``), the tests run in this process, as with ``-n 0``."""
    option = config.option
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    named = bool(config.args) and all("::" in arg for arg in config.args)
    if getattr(option, "numprocesses", 0) is None and not (named or option.usepdb or option.collectonly):
        option.numprocesses = "auto"
        if option.dist == "no":
            option.dist = "loadfile"
            option.loadscopereorder = False  # in collection order, SLOW_FILES first, not the files with most tests


#: The longest test files (15 to 30 s of one core each) run first: under pytest-xdist a worker that draws one of
#: them last keeps running it while the others idle.
SLOW_FILES = ("test_cli.py", "test_cli_subprocess.py", "test_report_browser.py", "test_read_stream.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.name not in SLOW_FILES)  # stable: the order within files is kept


def data(name: str) -> Path:
    """A fixture file by name; '.gz' is appended when only the compressed copy exists."""
    p = DATA / name
    if p.exists():
        return p
    gz = DATA / f"{name}.gz"
    if gz.exists():
        return gz
    raise FileNotFoundError(p)


#: What read_shared, analysed (and test_cli's cache) handed out, by (what, how made, key...), with the
#: fingerprint of each of its frames when it was made.
_SHARED: dict[tuple[object, ...], tuple[object, dict[str, bytes]]] = {}


def _key(path: Path, how: str, *options: object) -> tuple[object, ...]:
    stat = path.stat()
    return (str(path), how, stat.st_size, stat.st_mtime_ns, *options)


def _frames(obj: object) -> dict[str, pd.DataFrame]:
    """The frames a Report or an Analysis holds (the Analysis's report's too), by field name."""
    out: dict[str, pd.DataFrame] = {}
    assert is_dataclass(obj)
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, pd.DataFrame):
            out[f.name] = value
        elif is_dataclass(value):
            out.update({f"{f.name}.{k}": v for k, v in _frames(value).items()})
    return out


def _fingerprint(frame: pd.DataFrame) -> bytes:
    """The frame's index, column names, dtypes and values, column by column (by value: not by memory layout)."""
    h = hashlib.sha1(repr((list(frame.columns), [str(t) for t in frame.dtypes])).encode())
    for i in range(-1, frame.shape[1]):
        part = frame.index.to_series() if i < 0 else frame.iloc[:, i]
        try:
            h.update(pd.util.hash_pandas_object(part, index=False).to_numpy().tobytes())
        except TypeError:  # values that are lists (instanced metrics)
            h.update(repr(part.tolist()).encode())
    return h.digest()


def _fingerprints(obj: object) -> dict[str, bytes]:
    return {name: _fingerprint(frame) for name, frame in _frames(obj).items()}


def shared(key: tuple[object, ...], make: Callable[[], T]) -> T:
    """``make()`` once per session for ``key`` = (what, how made, ...): the same object to every caller, checked
    unchanged at the end of the session (``_shared_samples_unchanged``) where it is a Report or an Analysis."""
    if key not in _SHARED:
        obj = make()
        _SHARED[key] = (obj, _fingerprints(obj) if is_dataclass(obj) else {})
    return _SHARED[key][0]  # type: ignore[return-value]


def read_shared(path: Path) -> Report:
    """``ncu_roofline.read(path)``, read once per session: the same object to every caller, so never change it
    (copy a frame before changing it); the session fails if a test did (``_shared_samples_unchanged``)."""
    import ncu_roofline

    report = shared(_key(path, "read"), lambda: ncu_roofline.read(path))
    assert isinstance(report, ncu_roofline.Report)
    return report


def analysed(path: Path, *, device: str | None = None, peaks: Mapping[str, float] | None = None) -> Analysis:
    """``analyze(read(path), device=..., peaks=...)``, once per session (of :func:`read_shared`'s report); the
    same object to every caller, never to be changed."""
    from ncu_roofline.analysis import Analysis, analyze

    options = (device, tuple(sorted((peaks or {}).items())))
    a = shared(_key(path, "analyze", options), lambda: analyze(read_shared(path), device=device, peaks=peaks))
    assert isinstance(a, Analysis)
    return a


@pytest.fixture(scope="session", autouse=True)
def _shared_samples_unchanged() -> Iterator[None]:
    """Fails the session (an error at its last test's teardown) if a test changed a frame of a shared report or
    analysis in place: later tests would have seen the change."""
    yield
    changed = [
        f"{key[0]} ({key[1]}): {name}"
        for key, (obj, then) in _SHARED.items()
        for name, now in _fingerprints(obj).items()
        if then.get(name) != now
    ]
    assert not changed, f"a test changed a shared report or analysis in place: {changed}"


@pytest.fixture(scope="session")
def micro_full() -> Report:
    """micro_full.raw.csv, read once per session (:func:`read_shared`: never change it)."""
    return read_shared(data("micro_full.raw.csv"))


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


# ------------------------------------------------------------ values of two exports of the same report


def half_unit(text: pd.Series, value: pd.Series) -> np.ndarray:
    """Half a unit of the last printed digit of each cell, in the value's (base) units (of the value before
    its instances, ``1,056 (0; 0; 16)``, where ``--print-metric-instances`` wrote them)."""
    plain = text.astype(str).str.replace(r"\s+\(.*\)$", "", regex=True).str.replace(",", "", regex=False)
    decimals = plain.str.extract(r"\.(\d+)$")[0].str.len().fillna(0).to_numpy(dtype=float)
    number = pd.to_numeric(plain, errors="coerce").to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(number != 0, value.to_numpy(dtype=float) / number, 1.0)
    return np.abs(0.5 * 10.0**-decimals * factor)


def close_within_rounding(frame: pd.DataFrame, a: str, b: str) -> pd.Series:
    """Values ``value<a>`` and ``value<b>`` agree within the rounding of their printed texts."""
    va, vb = frame[f"value{a}"], frame[f"value{b}"]
    tol = half_unit(frame[f"text{a}"], va) + half_unit(frame[f"text{b}"], vb)
    same = (va - vb).abs() <= tol * (1 + 1e-9) + 1e-12 * va.abs()
    return same | (va.isna() & vb.isna())


def at_measured(figure: str, spec: DeviceSpec, values: pd.DataFrame) -> np.ndarray:
    """Per launch of ``values`` (a report's wide values), the table's ``figure`` of ``spec`` (work per SM per
    cycle x SMs x boost clock) at the SM clock and SM count the report measured: ``sm__cycles_elapsed.avg.
    per_second``, else the GPC clock ``gpc__cycles_elapsed.avg.per_second`` (a details page's "SM Frequency"),
    at most the boost clock, and ``device__attribute_multiprocessor_count`` (the table's own where the report
    lacks one)."""
    value = getattr(spec, figure).value
    scale = np.ones(len(values.index))
    for metrics, basis, most in (
        (("sm__cycles_elapsed.avg.per_second", "gpc__cycles_elapsed.avg.per_second"), spec.sm_clock_hz, 1.0),
        (("device__attribute_multiprocessor_count",), spec.sm_count, np.inf),
    ):
        own = np.full(len(values.index), np.nan)
        for metric in metrics:
            if metric in values.columns:
                got = pd.to_numeric(values[metric], errors="coerce").to_numpy(dtype=np.float64)
                own = np.where(np.isnan(own), got, own)
        if basis is not None:
            scale *= np.where(np.isnan(own), 1.0, np.minimum(own / basis.value, most))
    out: np.ndarray = value * scale
    return out
