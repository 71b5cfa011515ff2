"""Launch identity columns: launch shape, NVTX ranges, kernel display names.

These turn the identity columns every ncu CSV repeats on each row (``Kernel Name``, ``Block Size``,
``Grid Size``, the NVTX columns, ...) into the typed columns of the ``launches`` frame.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..model import LAUNCH_COLUMNS, conform, ext_array
from ..vector import distinct_rows, per_distinct

#: ncu names NVTX columns by their format string: the details and raw pages of every version since 2019.5
#: ``thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg`` (scope ``thread`` or
#: ``process``) and ``Id:Domain:Start/Stop_Range:...``; the per-NVTX summary page a ``Domain`` column and a
#: ``Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg`` column.
NVTX_COLUMN = re.compile(r"(^|[\s:])(Push/Pop_|Start/Stop_)?Range(:|$)")
#: A cell holds the scope's id (thread or process) and then each range of the stack, outermost first, as a
#: quoted item whose colon-separated fields follow the column's format; the range name itself may hold colons
#: (``aten::linear``), so the fields before it are cut from the left and the payload/colour/message fields
#: from the right.
_NVTX_ITEM = re.compile(r'"([^"]*)"')
_DEFAULT_DOMAIN = ("<default domain>", "")
_DIMS = re.compile(r"^\(?\s*(\d+)\s*(?:[,x]\s*(\d+)\s*)?(?:[,x]\s*(\d+)\s*)?\)?$")

#: The identity columns of details/raw/summary pages -> launches columns.
IDENTITY_COLUMNS: Mapping[str, str] = {
    "ID": "launch_id",
    "Process ID": "process_id",
    "Process Name": "process_name",
    "Host Name": "host_name",
    "Kernel Name": "kernel_name",
    "Context": "context",
    "Stream": "stream",
    "Block Size": "block",
    "Grid Size": "grid",
    "Device": "device",
    "Device Id": "device",  # summary pages of ncu 2020-2022
    "CC": "cc",
    "Invocations": "invocations",
}


def is_nvtx_column(name: str) -> bool:
    """Whether a column of an ncu CSV header holds NVTX ranges (named by its format string, or just "Range")."""
    return (bool(NVTX_COLUMN.search(name)) and ":" in name) or name == "Range"


@dataclass(frozen=True)
class NvtxFormat:
    """Where the domain and the range name are among the colon-separated fields of one NVTX item."""

    before: int  # fields before the range name
    after: int  # fields after it
    domain: int | None  # index of the domain field (< before), None when the column holds no domain


def nvtx_format(column: str | None) -> NvtxFormat:
    """The item layout a column's format string declares (the 2019.5-2025.3 push/pop layout by default)."""
    if not column:
        return NvtxFormat(before=1, after=6, domain=0)
    fmt = column.split(" ", 1)[1] if " " in column.split(":", 1)[0] else column  # drop the "thread " scope
    fields = fmt.split(":")
    at = next((i for i, f in enumerate(fields) if f.endswith("Range")), 0)
    domain = next((i for i, f in enumerate(fields[:at]) if f == "Domain"), None)
    return NvtxFormat(before=at, after=len(fields) - at - 1, domain=domain)


def nvtx_ranges(cell: str | None, column: str | None = None, domain: str | None = None) -> list[str]:
    """The range names of one NVTX cell, outermost first, in the layout of ``column`` (its header name).

    A range in a domain other than the default one is written ``domain:range``; ``domain`` is the value of
    a separate ``Domain`` column (per-NVTX summary pages) where the items carry none."""
    if not cell:
        return []
    fmt = nvtx_format(column)
    out = []
    items = _NVTX_ITEM.findall(cell)
    if not items:  # no quoted items: the cell after its scope id is one range
        items = [re.sub(r"^\s*\d+\s+", "", cell).strip()]
    for item in items:
        if not item:
            continue
        parts = item.split(":", fmt.before) if fmt.before else [item]
        if len(parts) <= fmt.before:
            out.append(item)
            continue
        head, rest = parts[: fmt.before], parts[fmt.before]
        tail = rest.rsplit(":", fmt.after) if fmt.after else [rest]
        name = tail[0] if len(tail) == fmt.after + 1 else rest
        if not name or name == "none":  # a range known only by its message (the last field)
            name = tail[-1] if len(tail) == fmt.after + 1 and tail[-1] != "none" else name
        dom = head[fmt.domain] if fmt.domain is not None else (domain or "")
        out.append(name if dom in _DEFAULT_DOMAIN else f"{dom}:{name}")
    return out


def nvtx_path(cell: str | None, column: str | None = None, domain: str | None = None) -> str | None:
    """The NVTX ranges of a cell joined by "/" (as ``--print-nvtx-rename`` shows them), or None."""
    ranges = nvtx_ranges(cell, column, domain)
    return "/".join(ranges) if ranges else None


def parse_dims(text: str | None) -> tuple[int, int, int] | None:
    """``"(256, 1, 1)"`` -> (256, 1, 1); None for empty text, text that is not a launch shape, or a shape with
    a 0 (``(0, 0, 0)``: ncu's placeholder for a launch that failed, whose Launch Statistics say n/a)."""
    if text is None:
        return None
    m = _DIMS.match(text.strip())
    if not m:
        return None
    x, y, z = (int(g) if g is not None else 1 for g in m.groups())
    return (x, y, z) if x and y and z else None


#: What PyTorch's ``emit_nvtx`` appends to each range name: per-call counters (``, seq = 470``,
#: ``, op_id = 22``) and, with ``record_shapes``, the argument shapes (``, sizes = [[8, 512], []]``).
_NVTX_COUNTERS = re.compile(r", (?:seq|op_id) = \d+|, sizes = \[.*$")
#: ... and the prefix of the autograd engine's range around each backward node.
_NVTX_AUTOGRAD = "autograd::engine::evaluate_function: "


def nvtx_op(path: str | None, depth: int | None = 1) -> str | None:
    """The op an NVTX path stands for: its first ``depth`` ranges (all with ``depth=None``), each without
    PyTorch's per-call counters, so that every call of one op reads the same.

    ``"aten::linear, seq = 470, op_id = 22/aten::to, seq = 470, op_id = 23"`` -> ``"aten::linear"``;
    ``"autograd::engine::evaluate_function: AddmmBackward0, op_id = 2090/..."`` -> ``"AddmmBackward0"``.
    Paths split at "/" as ``nvtx_path`` joins them (a "/" inside a range name splits it too)."""
    if not path:
        return None
    parts = path.split("/")
    if depth is not None:
        parts = parts[: max(1, depth)]
    out = []
    for part in parts:
        name = _NVTX_COUNTERS.sub("", part)
        if name.startswith(_NVTX_AUTOGRAD):
            name = name[len(_NVTX_AUTOGRAD) :]
        out.append(name.strip())
    text = "/".join(out)
    return text or None


# ------------------------------------------------------------------------------------------ display names

_TEMPLATE_OPEN = "<"
_TEMPLATE_CLOSE = ">"


def _split_top(text: str, sep: str) -> list[str]:
    """Split at ``sep`` outside <>, () and []."""
    depth = 0
    out: list[str] = []
    cur: list[str] = []
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth = max(0, depth - 1)
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def _strip_balanced(text: str, open_ch: str, close_ch: str) -> str:
    out, depth = [], 0
    for ch in text:
        if ch == open_ch:
            depth += 1
            continue
        if ch == close_ch:
            depth = max(0, depth - 1)
            continue
        if depth == 0:
            out.append(ch)
    return "".join(out)


def _last_component(qualified: str) -> str:
    """``at::native::foo`` -> ``foo`` (namespaces and ``(anonymous namespace)``/``<unnamed>`` dropped)."""
    parts = [p for p in _split_top(qualified.replace("::", "\x00"), "\x00") if p.strip()]
    return parts[-1].strip() if parts else qualified.strip()


def _template_args(name: str) -> tuple[str, str]:
    """Split ``base<args>`` at its first top-level '<' -> (base, args) (args without the outer <>)."""
    depth = 0
    for i, ch in enumerate(name):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == _TEMPLATE_OPEN and depth == 0:
            end = name.rfind(_TEMPLATE_CLOSE)
            if end > i:
                return name[:i], name[i + 1 : end]
    return name, ""


#: A template argument that names no type or functor: a number (``8``, ``-1``, ``4ul``; cast as ncu 2025.3 does
#: not print it but older versions and a ``--print-nvtx-rename`` page do, ``(int)8``), a truth value, a built-in type.
_NOISE_ARG = re.compile(
    r"^((\([^()]*\))?\s*-?\d+[uUlL]*|true|false"
    r"|(unsigned |signed )?(char|short|int|long|long long|float|double|bool)\b.*)$"
)


#: A C++ name mangled by the Itanium ABI (what ``--print-kernel-base mangled`` exports): ``_Z`` and a name.
_MANGLED = re.compile(r"^_Z[A-Za-z0-9_$.]+$")


class _Demangler:
    """The C++ runtime's own demangler (``__cxa_demangle`` of libstdc++, else libc++abi), loaded on first use;
    ``None`` for a name it does not take or where the runtime is not found (the name is then shown as it is)."""

    def __init__(self) -> None:
        self.fn: Callable[..., int | None] | None = None
        self.free: Callable[[int], None] | None = None
        for lib in ("stdc++", "c++abi", "c++"):
            path = ctypes.util.find_library(lib)
            if path is None:
                continue
            try:
                runtime, libc = ctypes.CDLL(path), ctypes.CDLL(None)
                fn, free = getattr(runtime, "__cxa_demangle"), libc.free  # getattr: no private-name mangling
            except (OSError, AttributeError, TypeError):
                continue
            fn.restype = ctypes.c_void_p
            fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
            free.argtypes = [ctypes.c_void_p]
            free.restype = None
            self.fn, self.free = fn, free
            return

    def __call__(self, name: str) -> str | None:
        if self.fn is None or self.free is None or not _MANGLED.match(name):
            return None
        status = ctypes.c_int(0)
        buffer = self.fn(name.encode("ascii"), None, None, ctypes.byref(status))
        if not buffer:
            return None
        try:
            text = ctypes.string_at(buffer)
        finally:
            self.free(buffer)
        return text.decode("utf-8", "replace") if status.value == 0 else None


@functools.cache
def _demangler() -> _Demangler:
    return _Demangler()


def demangled(name: str) -> str | None:
    """The demangled form of an Itanium-ABI mangled kernel name (``_Z12stream_triadP6float4PKS_S2_fm`` ->
    ``stream_triad(float4*, float4 const*, float4 const*, float, unsigned long)``), by the C++ runtime's own
    ``__cxa_demangle``; None where ``name`` is not mangled or no C++ runtime is found."""
    return _demangler()(name.strip())


def nvtx_renamed(kernel: str, path: str | None) -> tuple[str, str] | None:
    """(range, kernel name) where ``kernel`` is a name as ``--print-nvtx-rename kernel`` prints it: the launch's
    innermost NVTX push/pop range, a "/" and the kernel's own name (``memory/stream_triad(float4 *, ...)`` in
    the range ``memory``); None where it is not. ``path``: the launch's ranges as ``nvtx_path`` joins them, of
    which the innermost is the shortest tail at a "/" that the name begins with (a range may hold a "/"). Only
    the name's own "/"s are tried (a path of PyTorch's ranges can be thousands of characters)."""
    if not path:
        return None
    cut = kernel.find("/")
    while cut >= 0:
        inner = kernel[:cut]
        if inner and cut + 1 < len(kernel) and (path == inner or path.endswith("/" + inner)):
            return inner, kernel[cut + 1 :]
        cut = kernel.find("/", cut + 1)
    return None


#: The longest NVTX range a display name keeps before the kernel's own short name (``renamed_display_name``).
_RANGE_IN_NAME = 24


def renamed_display_name(kernel: str, path: str | None) -> str:
    """``display_name`` of a kernel, where ncu renamed it by its NVTX range (``nvtx_renamed``) the range kept
    before the short name of the kernel itself (``dzv_ak/kernel_assign_6<gtensor_view>``; the range cut to
    ``_RANGE_IN_NAME`` characters), so that a renamed name reads alike whatever the kernel's own name is."""
    renamed = nvtx_renamed(kernel, path)
    if renamed is None:
        return display_name(kernel)
    return f"{_range_shown(renamed[0])}/{display_name(renamed[1])}"


def _range_shown(inner: str) -> str:
    """A range as a renamed kernel's display name shows it: cut to ``_RANGE_IN_NAME`` characters."""
    return inner if len(inner) <= _RANGE_IN_NAME else inner[: _RANGE_IN_NAME - 1] + "…"


def nvtx_renames(kernels: pd.Series, paths: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per launch (``kernels``: its kernel name; ``paths``: its ranges as ``nvtx_path`` joins them, or None):
    whether ncu renamed its kernel by its range (``nvtx_renamed``), that range and the kernel's own name (object
    arrays, None where not renamed). Tried once per distinct kernel and ranges, of the launches whose kernel name
    has a "/" only (PyTorch's ranges count each call: nearly every launch's differ)."""
    n = len(kernels)
    inner, own = np.full(n, None, dtype=object), np.full(n, None, dtype=object)
    if paths is None:
        return np.zeros(n, dtype=bool), inner, own
    codes, uniques = _distinct(kernels)
    ranges = np.asarray(paths, dtype=object)
    slashed = np.array([isinstance(k, str) and "/" in k for k in uniques] + [False])
    rows = np.flatnonzero(slashed[np.where(codes < 0, len(uniques), codes)] & pd.notna(ranges))
    if len(rows):
        at, first = distinct_rows(codes[rows], ranges[rows])
        found = [nvtx_renamed(str(uniques[codes[rows[i]]]), str(ranges[rows[i]])) for i in first]
        inner[rows] = np.array([None if f is None else f[0] for f in found], dtype=object)[at]
        own[rows] = np.array([None if f is None else f[1] for f in found], dtype=object)[at]
    return pd.notna(own), inner, own


#: The longest display name; a longer one is cut, ending in "…".
DISPLAY_LEN = 60


def short_names(kernels: np.ndarray, max_len: int = DISPLAY_LEN) -> np.ndarray:
    """``display_name`` of each kernel name (None where missing), made once per distinct name."""
    return per_distinct(kernels, lambda k: display_name(k, max_len) if isinstance(k, str) else None)


def function_names(kernels: np.ndarray) -> np.ndarray:
    """``function_name`` of each kernel name (None where missing), made once per distinct name."""
    return per_distinct(kernels, lambda k: function_name(k) if isinstance(k, str) else None)


def display_name(kernel: str, max_len: int = DISPLAY_LEN) -> str:
    """A short, readable name for a (demangled, possibly templated) kernel name.

    ``void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(...)::{lambda...},
    std::array<char *, 2>>(int, T2, T3)`` -> ``vectorized_elementwise_kernel<GeluCUDAKernelImpl>``.
    The function's own name, plus the first template argument that names a type or functor. A mangled name
    (``--print-kernel-base mangled``) is demangled first, so it is shown as the demangled export shows it.
    """
    name, hint = _name_parts(kernel)
    short = f"{name}<{hint}>" if hint else name
    if len(short) > max_len:
        short = short[: max_len - 1] + "…"
    return short


def function_name(kernel: str) -> str:
    """The function's own name of a kernel name, without namespaces, template arguments or parameters: what
    ``--print-kernel-base function`` prints (``void gt::detail::kernel_assign_6<...>(...)`` ->
    ``kernel_assign_6``)."""
    return _name_parts(kernel)[0]


def _name_parts(kernel: str) -> tuple[str, str]:
    """(the function's own name, the first template argument that names a type or functor, or "") of a kernel
    name, demangled first where mangled."""
    text = kernel.strip()
    if not text:
        return text, ""
    text = demangled(text) or text
    for prefix in ("void ", "__global__ "):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    # Anonymous namespaces look like template brackets or parameter lists: drop them first.
    text = re.sub(r"(<unnamed>|\(anonymous namespace\))::", "", text)
    # Cut the parameter list: the last top-level '(' group.
    depth = 0
    cut = len(text)
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                cut = i
                break
    head = text[:cut] if cut > 0 else text
    base, args = _template_args(head)
    name = _last_component(base)
    hint = ""
    for raw_arg in _split_top(args, ","):
        arg = raw_arg.strip()
        if not arg or _NOISE_ARG.match(arg) or arg.startswith("std::"):
            continue
        arg_base = _template_args(_strip_balanced(arg, "(", ")"))[0]
        # A lambda inside a function: keep the enclosing function's name.
        arg_base = re.sub(r"::\[lambda.*$|::\{lambda.*$", "", arg_base)
        hint = _last_component(arg_base)
        if hint:
            break
    return name, hint


# ------------------------------------------------------------------------------------------ launches frame


def _distinct(values: pd.Series) -> tuple[np.ndarray, list[object]]:
    """(code per row, distinct values): launches repeat kernel names and shapes; -1 where missing."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.cat.codes.to_numpy(), list(values.cat.categories)
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return np.asarray(codes), list(uniques)


def _per_unique(values: pd.Series, fn: Callable[[str], object], dtype: str) -> object:
    """``fn`` applied once per distinct string, as an array of ``dtype`` (NA where fn gives None or the cell
    is missing)."""
    codes, uniques = _distinct(values)
    mapped = ext_array([fn(v) if isinstance(v, str) else None for v in uniques] + [None], dtype)
    return mapped.take(np.where(codes < 0, len(uniques), codes))


def _display_names(kernels: pd.Series, paths: object) -> object:
    """Per launch, its kernel's display name, made once per distinct kernel; where ncu renamed the kernel by
    its NVTX range (``nvtx_renames``), the range before the short name of the kernel's own name, made once per
    own name (``renamed_display_name``: a renamed export's kernel names carry their ranges, nearly as many as
    launches)."""
    renamed, inner, own = nvtx_renames(kernels, paths)
    if not renamed.any():
        return _per_unique(kernels, display_name, "string")
    short = short_names(np.where(renamed, own, pd.Series(kernels).astype(object).to_numpy()))
    short[renamed] = per_distinct(inner[renamed], lambda r: _range_shown(r) if isinstance(r, str) else None) + (
        "/" + short[renamed]
    )
    return ext_array(short, "string")


def _int_column(values: pd.Series) -> object:
    """An Int64 identity column: integers as they are, text through :func:`_to_int`."""
    if pd.api.types.is_integer_dtype(values.dtype) and not isinstance(values.dtype, pd.CategoricalDtype):
        return ext_array(values.to_numpy(), "Int64")
    return _per_unique(values, _to_int, "Int64")


def build_launches(identity: pd.DataFrame, report: str) -> pd.DataFrame:
    """The ``launches`` frame from one row per launch of identity strings (ncu's column names).

    Columns taken: any of IDENTITY_COLUMNS and the NVTX columns, as strings (or categoricals of strings;
    integers for the integer columns).
    Returns LAUNCH_COLUMNS.
    """
    n = len(identity)
    out: dict[str, object] = {"report": ext_array(np.full(n, report, dtype=object), "string")}
    for col, name in IDENTITY_COLUMNS.items():
        if col not in identity.columns or name in ("block", "grid"):
            continue
        if LAUNCH_COLUMNS.get(name) == "Int64":
            out[name] = _int_column(identity[col])
        else:
            text = identity[col].astype("string")
            if name == "cc":  # compared as text ("9.0"): a CC spelled "9.0 " by an edited page is the same one
                text = text.str.strip()
            out[name] = text.mask(text == "")
    for col, prefix in (("Block Size", "block"), ("Grid Size", "grid")):
        if col not in identity.columns:
            continue
        codes, uniques = _distinct(identity[col])
        dims = [parse_dims(v) if isinstance(v, str) else None for v in uniques] + [None]
        at = np.where(codes < 0, len(uniques), codes)
        for axis, i in (("x", 0), ("y", 1), ("z", 2)):
            out[f"{prefix}_{axis}"] = ext_array([d[i] if d else None for d in dims], "Int64").take(at)
        out[f"{prefix}_size"] = ext_array([d[0] * d[1] * d[2] if d else None for d in dims], "Int64").take(at)
    nvtx_cols = [c for c in identity.columns if is_nvtx_column(c)]
    startend = [c for c in nvtx_cols if "Start/Stop" in c]
    push = [c for c in nvtx_cols if c not in startend]
    if push:
        col = push[0]
        if "Domain" in identity.columns and nvtx_format(col).domain is None:  # per-NVTX summary page
            domains = identity["Domain"].fillna("").astype(str).tolist()
            cells = identity[col].tolist()
            cache: dict[tuple[str, object], str | None] = {}
            paths: list[object] = []
            for d, c in zip(domains, cells, strict=True):
                if (d, c) not in cache:
                    cache[(d, c)] = nvtx_path(c, col, d) if isinstance(c, str) else None
                paths.append(cache[(d, c)])
            out["nvtx_path"] = ext_array(paths, "string")
        else:
            out["nvtx_path"] = _per_unique(identity[col], lambda v: nvtx_path(v, col), "string")
    if startend:
        col = startend[0]
        out["nvtx_start_end"] = _per_unique(identity[col], lambda v: nvtx_path(v, col), "string")
    if "Kernel Name" in identity.columns:
        out["display_name"] = _display_names(identity["Kernel Name"], out.get("nvtx_path"))
    if "invocations" not in out:
        out["invocations"] = ext_array(np.ones(n, np.int64), "Int64")
    return conform(pd.DataFrame(out), LAUNCH_COLUMNS)


def _to_int(value: object) -> int | None:
    if value is None:
        return None
    text = str(value).strip().replace(",", "")
    if text in ("", "n/a"):
        return None
    try:
        return int(text)
    except ValueError:
        try:
            f = float(text)
        except ValueError:
            return None
        return int(f) if f.is_integer() else None


def main_cc(launches: pd.DataFrame) -> str | None:
    """The compute capability most launches ran on (labels are resolved per architecture)."""
    cc = launches["cc"].dropna()
    return str(cc.mode().iloc[0]) if len(cc) else None
