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

The command line also tells ``malloc`` to keep what is freed for the next allocation (:func:`keep_freed_memory`),
where glibc would hand it back to the system and take it again as new pages a moment later.
"""

from __future__ import annotations

import ctypes
import ctypes.util
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


#: glibc's ``mallopt`` parameters (malloc.h).
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3

#: What :func:`keep_freed_memory` sets: blocks under 32 MiB (the most glibc allows on 64-bit systems) from the
#: heap, not a mapping of their own that ``free`` unmaps; the heap's free top kept up to 1 GiB; and each growth
#: of the heap 64 MiB ahead (address space only: a page costs when first touched).
MALLOC_SETTINGS = {M_MMAP_THRESHOLD: 32 << 20, M_TRIM_THRESHOLD: 1 << 30, M_TOP_PAD: 64 << 20}

#: The environment by which a user tunes glibc's ``malloc`` (read by glibc itself): any of them set, nothing is
#: changed.
MALLOC_ENV = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_ARENA_MAX")


def libc() -> ctypes.CDLL | None:
    """The C library (for glibc's ``mallopt`` and ``malloc_trim``), or None where it cannot be loaded."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:  # pragma: no cover - no C library by that name
        return None


LIBC = libc()


def keep_freed_memory(environ: Mapping[str, str] | None = None) -> bool:
    """Tell glibc's ``malloc`` to keep freed memory for reuse (MALLOC_SETTINGS) for the rest of the process,
    unless the environment tunes ``malloc`` (MALLOC_ENV, or ``glibc.malloc`` in ``GLIBC_TUNABLES``) or the C
    library has no ``mallopt`` (musl, macOS). Whether every setting was taken.

    By default glibc gives each block from 128 KiB (the threshold grows as such blocks are freed) a mapping of
    its own, unmapped when it is freed, and hands the heap's free top back past 128 KiB: the analysis and the
    writers, which build and drop column after column of tens of megabytes, take new pages from the system for
    each, and a new page costs a fault, zeroed by the kernel (and, on a virtual machine whose host backs the
    guest's memory lazily, backed by the host: see docs/performance.md). The command line calls this (its
    process is its own); the library never does. Measured on the 10,240-launch details page, side by side, 8
    rounds: the JSON run's median 1.20 s against 1.25 s, its system time 0.32 s against 0.38 s."""
    env = os.environ if environ is None else environ
    if any(v in env for v in MALLOC_ENV) or "glibc.malloc" in env.get("GLIBC_TUNABLES", ""):
        return False
    mallopt = getattr(LIBC, "mallopt", None)
    if mallopt is None:
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return all([bool(mallopt(param, value)) for param, value in MALLOC_SETTINGS.items()])


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
