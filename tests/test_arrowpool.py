"""ncu_roofline.arrowpool: Arrow's buffers from malloc while the library works, the program's pool put back after;
a pool the program or its environment chose kept."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest
from conftest import data

import ncu_roofline
from ncu_roofline import analysis, summary
from ncu_roofline import io as nio
from ncu_roofline.arrowpool import from_malloc


def _backend() -> str:
    return str(pa.default_memory_pool().backend_name)


@pytest.fixture
def mimalloc() -> Iterator[pa.MemoryPool]:
    """pyarrow's default pool as a program starts with it (mimalloc), whatever a test before left (the command
    line's tests switch their process to the system pool); the pool before put back after."""
    try:
        pool = pa.mimalloc_memory_pool()
    except (NotImplementedError, pa.ArrowNotImplementedError):
        pytest.skip("this pyarrow has no mimalloc")
    before = pa.default_memory_pool()
    pa.set_memory_pool(pool)
    yield pool
    pa.set_memory_pool(before)


def test_switched_while_the_block_runs_and_put_back(mimalloc: pa.MemoryPool) -> None:
    with from_malloc({}) as switched:
        assert switched and _backend() == "system"
        buffer = pa.allocate_buffer(1 << 20)
    assert _backend() == "mimalloc"
    assert buffer.size == 1 << 20  # a buffer of the system's pool outlives the switch (its pool frees it)
    del buffer


def test_a_pool_the_program_chose_is_kept(mimalloc: pa.MemoryPool) -> None:
    with from_malloc({"ARROW_DEFAULT_MEMORY_POOL": "mimalloc"}) as switched:
        assert not switched and _backend() == "mimalloc"
    pa.set_memory_pool(pa.system_memory_pool())  # a program (or the command line) that chose the system's
    with from_malloc({}) as switched:
        assert not switched and _backend() == "system"
    assert _backend() == "system"
    try:
        jemalloc = pa.jemalloc_memory_pool()
    except (NotImplementedError, pa.ArrowNotImplementedError):
        return
    pa.set_memory_pool(jemalloc)
    with from_malloc({}) as switched:
        assert not switched and _backend() == "jemalloc"


def test_nested_blocks_share_one_switch(mimalloc: pa.MemoryPool) -> None:
    with from_malloc({}):
        with from_malloc({}) as inner:
            assert inner and _backend() == "system"
        assert _backend() == "system"  # the inner block does not put the pool back: the outer one runs on
    assert _backend() == "mimalloc"


def test_concurrent_blocks_put_the_pool_back_when_the_last_leaves(mimalloc: pa.MemoryPool) -> None:
    inside, leave = threading.Event(), threading.Event()
    seen: list[str] = []

    def other() -> None:
        with from_malloc({}):
            inside.set()
            leave.wait(10)
            seen.append(_backend())

    thread = threading.Thread(target=other)
    with from_malloc({}):
        thread.start()
        assert inside.wait(10)
    assert _backend() == "system"  # the other thread's block still runs
    leave.set()
    thread.join(10)
    assert seen == ["system"] and _backend() == "mimalloc"


def test_a_pool_chosen_meanwhile_is_kept(mimalloc: pa.MemoryPool) -> None:
    try:
        jemalloc = pa.jemalloc_memory_pool()
    except (NotImplementedError, pa.ArrowNotImplementedError):
        pytest.skip("this pyarrow has no jemalloc")
    with from_malloc({}):
        pa.set_memory_pool(jemalloc)  # the program chooses a pool while the library works
    assert _backend() == "jemalloc"  # not undone by putting mimalloc back


def test_read_analyze_and_summarize_take_their_buffers_from_malloc(
    mimalloc: pa.MemoryPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, str] = {}

    def spy(module: Any, name: str) -> None:
        real = getattr(module, name)

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            seen[name] = _backend()
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapped)

    spy(nio, "read_one")
    spy(analysis, "launch_index")
    spy(summary, "_launch_frame")
    report = ncu_roofline.read(data("micro_full.details.csv"))
    summary.summarize(analysis.analyze(report))
    assert seen == {"read_one": "system", "launch_index": "system", "_launch_frame": "system"}
    assert _backend() == "mimalloc"


# ------------------------------------------------------------------ malloc keeps what is freed (the command line)

_MALLINFO = """
import ctypes, json, sys
import numpy as np
from ncu_roofline.arrowpool import LIBC, keep_freed_memory

class MallInfo2(ctypes.Structure):
    _fields_ = [(f, ctypes.c_size_t) for f in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]

LIBC.mallinfo2.restype = MallInfo2
taken = keep_freed_memory({}) if sys.argv[1] == "keep" else None
before = LIBC.mallinfo2().hblks
# 30 MiB: its own mapping by default (glibc's threshold starts at 128 KiB and rises only as far as the largest
# mapped block freed, which no import here comes near), from the heap under keep_freed_memory's 32 MiB
block = np.ones(30 << 20, dtype=np.uint8)
print(json.dumps({"taken": taken, "mapped": LIBC.mallinfo2().hblks - before}))
"""


def _blocks_mapped(mode: str) -> dict[str, Any]:
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _MALLINFO, mode], capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def test_malloc_keeps_freed_memory_in_its_heap() -> None:
    """With keep_freed_memory, a 30 MiB block comes from malloc's heap (reused after it is freed), not from a
    mapping of its own that free hands back to the system (glibc's default for blocks from 128 KiB)."""
    from ncu_roofline.arrowpool import LIBC

    if not hasattr(LIBC, "mallopt") or not hasattr(LIBC, "mallinfo2"):
        pytest.skip("not glibc 2.33 or later")
    assert _blocks_mapped("default") == {"taken": None, "mapped": 1}
    assert _blocks_mapped("keep") == {"taken": True, "mapped": 0}


@pytest.mark.parametrize(
    "environ",
    [{"MALLOC_ARENA_MAX": "2"}, {"MALLOC_MMAP_THRESHOLD_": "65536"}, {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"}],
)
def test_malloc_tuned_by_the_user_is_left_alone(environ: dict[str, str]) -> None:
    from ncu_roofline.arrowpool import keep_freed_memory

    assert not keep_freed_memory(environ)


def test_the_command_line_keeps_freed_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from click.testing import CliRunner

    from ncu_roofline import cli

    calls: list[None] = []
    monkeypatch.setattr(cli, "keep_freed_memory", lambda: calls.append(None) or True)
    result = CliRunner().invoke(
        cli.main, [str(data("micro_full.details.csv")), "--format", "json", "-o", str(tmp_path / "out.json")]
    )
    assert result.exit_code == 0, result.output
    assert calls == [None]
