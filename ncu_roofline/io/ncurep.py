"""Reader of ncu's binary report (``.ncu-rep``) through NVIDIA's ``ncu_report`` module.

``ncu_report`` comes from the optional extra ``ncu-roofline[ncu-rep]`` (PyPI ``ncu-report``; it bundles
its native library and needs neither a GPU nor ncu). One action of the report is one launch; its ``launch_id``
is the action's position across all ranges, which is the ``ID`` ncu prints when it exports the same report
as CSV. The process ID is not exposed by ``ncu_report``: ``process_id`` is <NA> for these launches.

``ncu_report`` reads a report cut short without a word (its last result has no name and no metrics; a cut in the
first blocks leaves none), so the container is walked first (:func:`cut_short`) and a cut one is refused.
"""

from __future__ import annotations

import importlib
import math
import struct
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pandas as pd

from ..errors import FormatError, MissingExtraError, ParseError
from ..model import LAUNCH_COLUMNS, METRIC_COLUMNS, RULE_COLUMNS, LongMetrics, conform, empty_frame
from ..quantities import BY_NAME, DEVICE_ATTRIBUTES
from ..units import Unit, unit_or_none
from ..vocabulary import RAW_EXPORT
from .identity import display_name
from .page import Page
from .sniff import NCU_REP_MAGIC, Located

#: ncu_report.MsgType_* -> the "Rule Type" the CSV export writes (an OK message is exported as INF).
MSG_TYPES = {0: "NONE", 1: "INF", 2: "OPT", 3: "WRN", 4: "ERR"}
SPEEDUP_TYPES = {0: None, 1: "local", 2: "global"}  # ncu_report.SpeedupType_*
#: ``FILE: DAMAGED (what was found)``: a report cut short, or a result in it without what every result has.
DAMAGED = "the report is damaged or cut short"
#: The most bytes a file header's length may claim: ncu's is a few bytes; more, the bytes are not a container
#: we know (and are left to ncu_report), rather than a header cut short.
_MAX_FILE_HEADER = 1 << 16


def _module() -> Any:
    try:
        return importlib.import_module("ncu_report")
    except ImportError as exc:
        raise MissingExtraError(
            "reading .ncu-rep files needs NVIDIA's ncu_report module: pip install 'ncu-roofline[ncu-rep]' "
            f"(or export a CSV with: {RAW_EXPORT})"
        ) from exc


def _metric_value(m: Any) -> tuple[float, str]:
    """(numeric value or NaN, text) of an IMetric; instanced and string metrics keep their text."""
    if not m.has_value():
        return math.nan, ""
    value = m.value()
    if isinstance(value, str):
        return math.nan, value
    if isinstance(value, bool):
        return float(value), str(value)
    if isinstance(value, (int, float)):
        text = repr(value) if isinstance(value, float) else str(value)
        return float(value), text
    return math.nan, str(value)


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    """The protobuf varint at ``buf[i]`` and the offset after it; ValueError where it runs off the end."""
    value = shift = 0
    while i < len(buf) and shift < 64:
        byte = buf[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i
    raise ValueError("not a varint")


def _payload_size(header: bytes) -> int | None:
    """Field 5 of a block header (the bytes of the block's payload, 0 where absent); None where ``header`` is not
    a protobuf message."""
    i, size = 0, 0
    try:
        while i < len(header):
            key, i = _varint(header, i)
            field, wire = key >> 3, key & 7
            if field == 0:
                return None
            if wire == 0:
                value, i = _varint(header, i)
                size = value if field == 5 else size
            elif wire == 2:
                length, i = _varint(header, i)
                i += length
            elif wire in (1, 5):
                i += 8 if wire == 1 else 4
            else:
                return None
    except ValueError:
        return None
    return size if i == len(header) else None


def _length(fh: BinaryIO) -> int | None:
    """The little-endian 32-bit length at ``fh``'s position; None where fewer than 4 bytes are left."""
    raw = fh.read(4)
    return int(struct.unpack("<I", raw)[0]) if len(raw) == 4 else None


def _short(missing: int) -> str:
    return f"{missing} byte{'' if missing == 1 else 's'} short"


def cut_short(path: Path) -> str | None:
    """Where the report at ``path`` ends before its container does, in words; None where it ends where its
    container does, or is not laid out as ncu lays out a report (left to ncu_report to judge).

    The container as ncu writes it: ``NVR\\0``; a 32-bit little-endian length and the file header; then blocks,
    each a length and a block header (a protobuf message whose field 5 is the size of the payload that follows,
    the block's results). A file cut between two blocks cannot be told from a shorter report."""
    size = path.stat().st_size
    with path.open("rb") as fh:
        if fh.read(len(NCU_REP_MAGIC)) != NCU_REP_MAGIC:
            return None
        length = _length(fh)
        if length is None:
            return f"it ends at byte {size}, inside the length of the file header"
        if length > _MAX_FILE_HEADER:
            return None
        if fh.tell() + length > size:
            return f"it ends at byte {size}, inside the file header, {_short(fh.tell() + length - size)}"
        if _payload_size(fh.read(length)) is None:
            return None
        block = 0
        while fh.tell() < size:
            block += 1
            where = f"it ends at byte {size}, inside block {block} (from byte {fh.tell()})"
            length = _length(fh)
            if length is None:
                return f"{where}, in the length of its header"
            if fh.tell() + length > size:
                return f"{where}, in its header, {_short(fh.tell() + length - size)}"
            payload = _payload_size(fh.read(length))
            if payload is None:
                return None
            end = fh.tell() + payload
            if end > size:
                return f"{where}, {_short(end - size)}"
            fh.seek(end)
    return None


def read_ncurep(loc: Located, report: str) -> Page:
    """Launches, metrics, rules and units not understood of an .ncu-rep file."""
    ncu_report = _module()
    cut = cut_short(loc.path)
    if cut is not None:
        raise ParseError(loc.path, f"{DAMAGED} ({cut}; expected the whole report as ncu writes it)")
    try:
        ctx = ncu_report.load_report(str(loc.path))
    except Exception as exc:  # ncu_report raises its own RuntimeError subclasses
        raise FormatError(loc.path, f"ncu_report cannot load this report: {exc}") from exc
    launches: list[dict[str, object]] = []
    metric_cols: dict[str, list[Any]] = {c: [] for c in METRIC_COLUMNS}
    rule_rows: list[dict[str, object]] = []
    unknown: dict[str, str] = {}
    launch_id = 0
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            launches.append(_launch(ncu_report, action, report, launch_id, loc.path))
            _metrics(action, report, launch_id, metric_cols, unknown)
            rule_rows += _rules(action, report, launch_id)
            launch_id += 1
    if not launches:
        raise FormatError(loc.path, "the report holds no profiled kernels (expected at least one launch)")
    frame = pd.DataFrame(metric_cols)
    for c, t in METRIC_COLUMNS.items():
        if t == "category":
            frame[c] = frame[c].astype("category")
    metrics = conform(frame, METRIC_COLUMNS)
    rules = conform(pd.DataFrame(rule_rows), RULE_COLUMNS) if rule_rows else empty_frame(RULE_COLUMNS)
    return Page(
        conform(pd.DataFrame(launches), LAUNCH_COLUMNS),
        LongMetrics(metrics),
        rules,
        not_understood=[f"unit {u!r} (metric {m})" for u, m in unknown.items()],
    )


def _num(action: Any, name: str) -> int | None:
    m = action.metric_by_name(name)
    if m is None or not m.has_value():
        return None
    v = m.value()
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _launch(ncu_report: Any, action: Any, report: str, launch_id: int, path: Path) -> dict[str, object]:
    kernel = action.name(ncu_report.IAction.NameBase_DEMANGLED)
    if not isinstance(kernel, str):  # a result ncu_report could not read whole
        raise ParseError(path, f"{DAMAGED} (result {launch_id + 1} has no kernel name; expected one in every result)")
    dims = {
        k: _num(action, f"launch__{k.split('_')[0]}_dim_{k[-1]}")
        for k in ("block_x", "block_y", "block_z", "grid_x", "grid_y", "grid_z")
    }
    major = _num(action, DEVICE_ATTRIBUTES["cc_major"].metrics[0])
    minor = _num(action, DEVICE_ATTRIBUTES["cc_minor"].metrics[0])
    ranges: list[str] = []
    state = action.nvtx_state()
    if state is not None:
        for d in state.domains():
            dom = state.domain_by_id(d)
            prefix = "" if dom.name() in ("<default domain>", "") else f"{dom.name()}:"
            ranges += [prefix + str(x) for x in dom.push_pop_ranges()]
    return {
        "report": report,
        "process_id": None,
        "launch_id": launch_id,
        "kernel_name": kernel,
        "display_name": display_name(kernel),
        "context": _num(action, "launch__context_id"),
        "stream": _num(action, "launch__stream_id"),
        "device": _num(action, "launch__device_id"),
        "cc": f"{major}.{minor}" if major is not None and minor is not None else None,
        **dims,
        "block_size": _num(action, BY_NAME["block_size"].metrics[0]),
        "grid_size": _num(action, BY_NAME["grid_size"].metrics[0]),
        "invocations": 1,
        "nvtx_path": "/".join(ranges) if ranges else None,
    }


def _metrics(action: Any, report: str, launch_id: int, out: dict[str, list[Any]], unknown: dict[str, str]) -> None:
    """Append one action's metrics to ``out``; a unit we do not know goes to ``unknown`` (unit -> a metric)."""
    sections: dict[str, str] = {}
    for s in action.sections():
        for m in s.header_metrics():
            sections.setdefault(m.name(), s.name())
    for name in sorted(action.metric_names()):
        m = action.metric_by_name(name)
        if m is None:
            continue
        value, text = _metric_value(m)
        unit = m.unit() or ""
        parsed = unit_or_none(unit)
        if parsed is None:
            unknown.setdefault(unit, name)
            parsed = Unit(unit, math.nan, "")
        label = m.label() if hasattr(m, "label") else ""
        out["report"].append(report)
        out["process_id"].append(None)
        out["launch_id"].append(launch_id)
        out["section"].append(sections.get(name))
        out["body_item"].append(None)
        out["metric"].append(name)
        out["label"].append(label or None)
        out["unit"].append(unit or None)
        out["base_unit"].append(parsed.base or None)
        out["value"].append(value * parsed.factor if not np.isnan(value) else math.nan)
        out["text"].append(text)
        out["minimum"].append(math.nan)
        out["maximum"].append(math.nan)


def _rules(action: Any, report: str, launch_id: int) -> list[dict[str, object]]:
    rows = []
    for rr in action.rule_results():
        if not rr.has_rule_message():
            continue
        msg = rr.rule_message()
        speedup = rr.speedup_estimation() if rr.has_speedup_estimation() else None
        rows.append(
            {
                "report": report,
                "process_id": None,
                "launch_id": launch_id,
                "section": rr.section_identifier(),
                "rule": rr.rule_identifier(),
                "type": MSG_TYPES.get(int(msg.get("type", 0))),
                "description": msg.get("message"),
                "speedup_type": SPEEDUP_TYPES.get(int(speedup["type"])) if speedup else None,
                "speedup": float(speedup["speedup"]) if speedup else math.nan,
            }
        )
    return rows
