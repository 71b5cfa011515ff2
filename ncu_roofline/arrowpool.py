"""Where Arrow's buffers come from: the C library's allocator (``malloc``) rather than the mimalloc pool pyarrow ships.

On a virtual machine whose host backs a guest page only when the guest first touches it, mimalloc's arenas take
fresh pages where ``malloc`` reuses those freed moments before; on the development machine, in a spell when a fresh
page cost 45-54 us, ``ncu_roofline.read`` of the 10,240-launch details page took 0.5-1.8 s with mimalloc and
0.47-0.52 s with ``malloc`` (peak 273-303 MB against 231-253 MB), and ``analyze`` of it 0.33-0.74 s against
0.34 s; in a spell of cheap pages they are alike (docs/performance.md).

- The command line switches for its whole process (:func:`use_system_allocator`: the process is its own).
- The library switches only while its heavy calls run (:func:`from_malloc`, the decorator :func:`malloc_arrow`
  on ``ncu_roofline.read``, ``analyze`` and ``summarize``), and puts the program's pool back after.

Either way a pool chosen by ``ARROW_DEFAULT_MEMORY_POOL`` is kept, and the library keeps any default that is not
mimalloc (a program that chose jemalloc or the system pool). A buffer is always freed by the pool that allocated
it, so switching the default changes only where new buffers come from.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

import pyarrow as pa

#: The environment variable by which a program chooses pyarrow's default pool (read by pyarrow itself too).
POOL_ENV = "ARROW_DEFAULT_MEMORY_POOL"

P = ParamSpec("P")
R = TypeVar("R")


def use_system_allocator(environ: Mapping[str, str] | None = None) -> bool:
    """Arrow's buffers from the C library's allocator (``malloc``) for the rest of the process, instead of the
    mimalloc pool pyarrow ships, unless ``ARROW_DEFAULT_MEMORY_POOL`` chooses a pool. Whether it was switched.

    The command line calls this (its process is its own; the library switches only while it works, see
    :func:`from_malloc`). Measured on the 10,240-launch details page, side by side, 3 rounds: the JSON run
    1.21-1.40 s against 1.41-1.55 s, the HTML run 1.18-1.20 s against 1.29-1.37 s, peak 15 % lower."""
    if _chosen(environ):
        return False
    pa.set_memory_pool(pa.system_memory_pool())
    return True


def _chosen(environ: Mapping[str, str] | None) -> bool:
    """Whether the environment (``os.environ`` unless given) chooses pyarrow's pool."""
    return bool((os.environ if environ is None else environ).get(POOL_ENV))


class _Switch:
    """The one switch :func:`from_malloc` blocks share: how many run now (in any thread), and the program's pool
    while the system's is switched in (None: not switched)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.restore: pa.MemoryPool | None = None


_SWITCH = _Switch()


@contextmanager
def from_malloc(environ: Mapping[str, str] | None = None) -> Iterator[bool]:
    """For as long as the block runs, pyarrow's default pool is the system's (``malloc``), then the program's
    again; yields whether the switch is on (by this block or one around it). Not switched where
    ``ARROW_DEFAULT_MEMORY_POOL`` chooses a pool or the default is not mimalloc (the program chose another, or
    the command line switched already). Nested and concurrent blocks share one switch: the first to enter
    switches, the last to leave puts the pool back, unless the program chose yet another pool meanwhile (its
    choice is kept)."""
    sw = _SWITCH
    with sw.lock:
        if sw.depth == 0:
            current = pa.default_memory_pool()
            sw.restore = current if not _chosen(environ) and current.backend_name == "mimalloc" else None
            if sw.restore is not None:
                pa.set_memory_pool(pa.system_memory_pool())
        sw.depth += 1
        switched = sw.restore is not None
    try:
        yield switched
    finally:
        with sw.lock:
            sw.depth -= 1
            if sw.depth == 0 and sw.restore is not None:
                if pa.default_memory_pool().backend_name == "system":
                    pa.set_memory_pool(sw.restore)
                sw.restore = None


def malloc_arrow(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` run inside :func:`from_malloc`."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with from_malloc():
            return fn(*args, **kwargs)

    return wrapper
