"""The shipped section files rewritten for an older ncu: what its schema and its metric catalog accept.

The files in ``sections/`` are written for ncu 2025.3 (the newest form). An older ncu rejects a whole file for one
architecture enum value it does not know (``Unknown enumeration value of "CC_100" for field "MaxArch"``) or one field
it has no place for (``Filter`` on a ``MetricDefinitions`` entry in ncu 2022.3), and cannot collect a metric its
catalog lacks. :func:`rewrite` turns the newest form into the form of one checked ncu version (:data:`FORMS`):

- architecture filters: each ``MinArch``/``MaxArch`` bound moves to the nearest architecture the version knows
  inside the range (``MaxArch: CC_100`` -> ``CC_90`` for ncu 2024.2), and an entry, option, filter item or body
  item whose range holds none of its architectures is left out (``MinArch: CC_100``);
- fields the version has no place for are left out; a derived metric that needs its ``Filter`` there (one defined
  on some architectures only) is left out with everything that reads it;
- metric names: the version's spelling where it names the same counter otherwise (``..._v2`` on CC 8.9 before
  ncu 2025), and entries of metrics it cannot collect left out.

Each form's facts come from that ncu itself (its ``extras/FileFormat/ProfilerSection.proto`` and
``ProfilerMetricOptions.proto``, ``--query-metrics --chip`` for gv100, tu102, ga100, ga102, ad102 and gh100, and the
metric names of its stock section files); ``tests/test_section_forms.py`` checks them against the real ncu
2022.3 and 2024.2 where they are installed (``tools/install_ncu.sh``; always in CI) and against the shared catalogs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ncu_roofline.quantities import DRAM_COUNTERS, NO_DRAM_CCS
from ncu_roofline.sectionfile import (
    ARCH_ENUM,
    EVALUATION_CCS,
    NEWEST_SCHEMA,
    Schema,
    cc_number,
    parse_section_message,
)

#: ncu's architecture enum values from Volta to Hopper: what ncu 2022.3 and 2024.2 know (their GpuArch enum also
#: has CC_40 to CC_62, which these files never use).
_VOLTA_TO_HOPPER = ("CC_70", "CC_72", "CC_75", "CC_80", "CC_86", "CC_87", "CC_89", "CC_90")

#: Ada's tensor-pipe counters took a ``_v2`` suffix in ncu 2025 (2025.3's stock Compute Workload Analysis uses
#: them on CC 8.9); ncu 2024.2 and older name the same counters without it (``--query-metrics --chip ad102``).
_ADA_V2_NAMES = {
    f"{base}_v2": base
    for base in (
        "sm__inst_executed_pipe_tensor_op_hmma",
        "sm__inst_executed_pipe_tensor_op_imma",
        "sm__pipe_tensor_cycles_active",
        "sm__pipe_tensor_op_hmma_cycles_active",
        "sm__pipe_tensor_op_imma_cycles_active",
    )
}

#: The integrated GPUs have no DRAM counters (``quantities.NO_DRAM_CCS``). 2025.3's enum values stop at ``CC_72``
#: from below, so the shipped files' DRAM entries read "up to CC_72" and cannot leave Xavier (CC 7.2) out; the
#: forms of the ncu versions that know ``CC_70`` narrow them to "up to CC_70" (the other integrated GPUs are outside
#: the shipped filters already, or unknown to those versions).
_NO_DRAM = {cc_number(cc): DRAM_COUNTERS for cc in NO_DRAM_CCS}

#: SASS register-spilling counts: in no stock section file nor rule of ncu 2022.3 or 2024.2 and not in their
#: ``--query-metrics`` (first seen collected by ncu 2025.3.1 on the H200 samples).
_SPILLING = frozenset(
    {
        "sass__inst_executed_register_spilling",
        "sass__inst_executed_register_spilling_mem_local",
        "sass__inst_executed_register_spilling_mem_shared",
    }
)


def _absent_archs(absent_on: Mapping[int, Iterable[str]], names: Iterable[str]) -> tuple[int, ...]:
    bases = {name.partition(".")[0] for name in names}
    return tuple(arch for arch, absent in sorted(absent_on.items()) if bases & set(absent))


@dataclass(frozen=True)
class Form:
    """What one ncu version accepts in a section file, as far as these files need it."""

    schema: Schema
    #: Newer metric name -> this version's name of the same counter.
    renames: Mapping[str, str] = field(default_factory=dict)
    #: Metric base names (the part before the first ``.``) this version cannot collect.
    unavailable: frozenset[str] = frozenset()
    #: ... and the beginnings of such names, for whole families.
    unavailable_prefixes: tuple[str, ...] = ()
    #: Architecture number -> metric base names that chip does not have, though the newest form's filters (whose
    #: enum values are ncu 2025.3's, without ``CC_70``) cannot leave it out: the entries are narrowed around it.
    absent_on: Mapping[int, frozenset[str]] = field(default_factory=dict)

    def can_collect(self, name: str) -> bool:
        """Whether this version can collect a metric (the newest form's spelling, before :attr:`renames`)."""
        base = name.partition(".")[0]
        return base not in self.unavailable and not base.startswith(self.unavailable_prefixes)

    def absent_archs(self, names: Iterable[str]) -> tuple[int, ...]:
        """The architectures of :attr:`absent_on` that lack one of these metrics (names or expressions' operands)."""
        return _absent_archs(self.absent_on, names)

    @property
    def version(self) -> str:
        return self.schema.version

    @property
    def newest(self) -> bool:
        return self.schema == NEWEST_SCHEMA

    def evaluation_ccs(self) -> tuple[str, ...]:
        """The compute capabilities of :data:`EVALUATION_CCS` this version knows."""
        known = set(self.schema.arch_numbers())
        return tuple(cc for cc in EVALUATION_CCS if cc_number(cc) in known)


#: The checked forms, oldest first; the last one is the shipped files' own.
FORMS: dict[str, Form] = {
    "2022.3": Form(
        Schema(
            "2022.3",
            arch_values=_VOLTA_TO_HOPPER,
            scopes=("CollectionScope_Launch", "CollectionScope_Range"),
            absent_fields=frozenset(
                {("MetricDefinition", "Filter"), ("RooflineOptions", "ShowOnlyIfNotZero"), ("Body", "SetDefault")}
            ),
        ),
        renames=_ADA_V2_NAMES,
        # launch__sm_count and launch__occupancy_limit_barriers: not in 2022.3's stock sections or rules;
        # the TMA pipe and the per-instruction tensor counters: not in its --query-metrics for gh100 and ad102
        # (its Ada and Hopper catalogs have no sm__ops_path_tensor* at all), so no tensor roofline there.
        unavailable=_SPILLING
        | {
            "launch__sm_count",
            "launch__occupancy_limit_barriers",
            "sm__inst_executed_pipe_tma",
            "sm__pipe_tma_cycles_active",
        },
        unavailable_prefixes=("sm__ops_path_tensor",),
        absent_on=_NO_DRAM,
    ),
    "2024.2": Form(
        Schema(
            "2024.2",
            arch_values=_VOLTA_TO_HOPPER,
            scopes=("CollectionScope_Launch", "CollectionScope_Range", "CollectionScope_Cmdlist"),
        ),
        renames=_ADA_V2_NAMES,
        # launch__occupancy_limit_barriers: not in 2024.2's stock sections or rules (2025.3's Occupancy has it).
        unavailable=_SPILLING | {"launch__occupancy_limit_barriers"},
        absent_on=_NO_DRAM,
    ),
    NEWEST_SCHEMA.version: Form(NEWEST_SCHEMA),
}
NEWEST_FORM = FORMS[NEWEST_SCHEMA.version]
OLDEST_FORM = next(iter(FORMS.values()))

_VERSION_RE = re.compile(r"(?<![\d.])(\d{4})\.(\d+)(?:\.(\d+))?")


def parse_version(text: str) -> tuple[int, int, int]:
    """``"2024.2"``, ``"2024.2.0.16"`` or ncu's ``--version`` text (``Version 2024.2.0.0 (build ...)``) ->
    (year, minor, patch); ValueError when there is no such version in the text."""
    match = _VERSION_RE.search(text.split("Version", 1)[1] if "Version" in text else text)
    if match is None:
        raise ValueError(f"no ncu version (like 2024.2) in {text.strip()[:80]!r}")
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def version_key(version: str) -> tuple[int, int]:
    year, minor, _ = parse_version(version)
    return year, minor


@dataclass(frozen=True)
class FormChoice:
    """The form written for one ncu version, and why."""

    form: Form
    ncu_version: str
    note: str | None  # what the user should know (an unchecked version), else None


def form_for(version: str) -> FormChoice:
    """The form for an ncu version: the newest checked form not newer than it. Versions between checked ones get
    the older neighbour (a subset of what they accept); versions older than the oldest form get the oldest, with
    a note that it is unchecked there."""
    year, minor, patch = parse_version(version)
    wanted = (year, minor)
    shown = f"{year}.{minor}" + (f".{patch}" if patch else "")
    candidates = [form for key, form in FORMS.items() if version_key(key) <= wanted]
    if not candidates:
        return FormChoice(
            OLDEST_FORM,
            shown,
            f"ncu {shown} is older than ncu {OLDEST_FORM.version}, the oldest version these files are checked with; "
            f"writing the {OLDEST_FORM.version} form, which it may reject",
        )
    form = candidates[-1]
    if version_key(form.version) == wanted:
        return FormChoice(form, shown, None)
    if form.newest:
        note = (
            f"ncu {shown} is newer than ncu {form.version}: writing the newest form (checked with ncu {form.version})"
        )
    else:
        note = (
            f"ncu {shown} is not one of the checked versions ({', '.join(FORMS)}): writing the ncu {form.version} "
            "form, which it accepts too, but which leaves out what is newer than ncu "
            f"{form.version} (architectures after {form.schema.arch_values[-1]})"
        )
    return FormChoice(form, shown, note)


# --- Rewriting one file ------------------------------------------------------------------------------------


@dataclass
class Rewrite:
    """The state and the record of one rewrite."""

    form: Form
    known: tuple[int, ...]
    dropped_derived: set[str] = field(default_factory=set)
    notes: dict[str, set[str]] = field(default_factory=dict)
    #: :attr:`Form.absent_on`, and the derived metrics left out there because they read such a metric.
    absent_on: dict[int, set[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.absent_on = {arch: set(names) for arch, names in self.form.absent_on.items()}

    def note(self, kind: str, what: str) -> None:
        self.notes.setdefault(kind, set()).add(what)

    def summary(self) -> list[str]:
        """One line per kind of change, the affected names sorted."""
        return [f"{kind}: {', '.join(sorted(whats))}" for kind, whats in sorted(self.notes.items())]


def _arch_name(number: int) -> str:
    return next(name for name, value in ARCH_ENUM.items() if value == number)


def _map_bounds(lo: int | None, hi: int | None, known: tuple[int, ...]) -> tuple[int | None, int | None] | None:
    """An inclusive range moved onto the known architectures: None when it holds none of them."""
    inside = [k for k in known if (lo is None or k >= lo) and (hi is None or k <= hi)]
    if not inside:
        return None
    return (None if lo is None else inside[0]), (None if hi is None else inside[-1])


def _rewrite_bounds(message: Any, state: Rewrite) -> bool:
    """Move a message's MinArch/MaxArch onto the known architectures; False when the range holds none."""

    def get(name: str) -> int | None:
        return int(getattr(message, name)) if message.HasField(name) else None

    lo, hi = get("MinArch"), get("MaxArch")
    mapped = _map_bounds(lo, hi, state.known)
    if mapped is None:
        return False
    for name, old, new in (("MinArch", lo, mapped[0]), ("MaxArch", hi, mapped[1])):
        if old != new and new is not None:
            setattr(message, name, new)
            state.note(
                f"architecture bounds moved to those ncu {state.form.version} knows",
                f"{_arch_name(old or 0)}->{_arch_name(new)}",
            )
    return True


def _range_text(message: Any) -> str:
    lo = message.MinArch if message.HasField("MinArch") else None
    hi = message.MaxArch if message.HasField("MaxArch") else None
    return f"{'' if lo is None else _arch_name(lo)}..{'' if hi is None else _arch_name(hi)}"


def _narrow(holder: Any, names: Iterable[str], state: Rewrite) -> bool:
    """Leave out of ``holder``'s Filter (a metric entry, option or derived metric) the architectures of
    :attr:`Form.absent_on` that lack one of ``names``: each filter item holding one is split around it. False
    when nothing is left."""
    filt = holder.Filter
    lo_all = int(filt.MinArch) if filt.HasField("MinArch") else None
    hi_all = int(filt.MaxArch) if filt.HasField("MaxArch") else None
    archs = [
        a
        for a in _absent_archs(state.absent_on, names)
        if a in state.known and (lo_all is None or a >= lo_all) and (hi_all is None or a <= hi_all)
    ]  # an architecture the filter's own bounds leave out needs no narrowing
    if not archs:
        return True
    ranges = [
        (int(i.MinArch) if i.HasField("MinArch") else None, int(i.MaxArch) if i.HasField("MaxArch") else None)
        for i in filt.Items
    ] or [(None, None)]
    for arch in archs:
        below = max((k for k in state.known if k < arch), default=None)
        above = min((k for k in state.known if k > arch), default=None)
        parts: list[tuple[int | None, int | None]] = []
        for lo, hi in ranges:
            if (lo is not None and arch < lo) or (hi is not None and arch > hi):
                parts.append((lo, hi))
                continue
            if below is not None and (lo is None or lo <= below):
                parts.append((lo, below))
            if above is not None and (hi is None or hi >= above):
                parts.append((above, hi))
        if parts != ranges:
            state.note(f"left out where the chip has no such counter (ncu {state.form.version})", _arch_name(arch))
        ranges = parts
    if not ranges:
        return False
    del filt.Items[:]
    for lo, hi in ranges:
        item = filt.Items.add()
        if lo is not None:
            item.MinArch = lo
        if hi is not None:
            item.MaxArch = hi
    return True


def _rewrite_filter(message: Any, state: Rewrite) -> bool:
    """Rewrite a ``Filter`` in place; False when it can match no architecture (or scope) the version knows."""
    shown = _range_text(message)
    if not _rewrite_bounds(message, state):
        state.note(f"entries only for architectures ncu {state.form.version} does not know, left out", shown)
        return False
    if len(message.Items):
        kept = []
        for item in message.Items:
            shown = _range_text(item)
            if _rewrite_bounds(item, state):
                kept.append(item)
            else:
                state.note(f"architecture filter items outside what ncu {state.form.version} knows, left out", shown)
        if not kept:
            return False
        _keep(message.Items, kept)
    if message.HasField("CollectionFilter"):
        scopes = message.CollectionFilter.CollectionScopes
        known_scopes = {
            number for number, name in enumerate(_scope_names(), start=1) if name in state.form.schema.scopes
        }
        kept_scopes = [scope for scope in scopes if scope in known_scopes]
        if not kept_scopes:
            return False
        del scopes[:]
        scopes.extend(kept_scopes)
    return True


def _scope_names() -> tuple[str, ...]:
    from ncu_roofline.sectionfile import COLLECTION_SCOPES  # noqa: PLC0415 - one source for the enum order

    return COLLECTION_SCOPES


def _keep(container: Any, kept: list[Any]) -> None:
    """Keep only ``kept`` (a sublist, in order) of a repeated message field."""
    ids = {id(item) for item in kept}
    for index in range(len(container) - 1, -1, -1):
        if id(container[index]) not in ids:
            del container[index]


def _rename(name: str, state: Rewrite) -> str | None:
    """This version's spelling of a metric name; None when it cannot collect it (or it reads a dropped derived
    metric)."""
    base, dot, rest = name.partition(".")
    if not state.form.can_collect(base):
        state.note(f"metrics ncu {state.form.version} cannot collect, left out", base)
        return None
    if name in state.dropped_derived:
        return None
    new_base = state.form.renames.get(base)
    if new_base is None:
        return name
    state.note(f"metric names in ncu {state.form.version}'s spelling", f"{base}->{new_base}")
    return new_base + dot + rest


def _rewrite_metric(message: Any, state: Rewrite) -> bool:
    """Rewrite one metric entry (Name, Filter, Options) in place; False when it should be left out."""
    if message.HasField("Filter") and not _rewrite_filter(message.Filter, state):
        return False
    if not _narrow(message, [message.Name], state):
        return False
    kept = []
    for option in message.Options:
        if option.HasField("Filter") and not _rewrite_filter(option.Filter, state):
            continue
        if not _narrow(option, [option.Name], state):
            continue
        name = _rename(option.Name, state)
        if name is None:
            continue
        option.Name = name
        kept.append(option)
    _keep(message.Options, kept)
    name = _rename(message.Name, state)
    if name is None:
        return False
    message.Name = name
    return True


def _rewrite_metric_list(container: Any, state: Rewrite) -> None:
    _keep(container, [m for m in container if _rewrite_metric(m, state)])


def _matches_all(message: Any, state: Rewrite) -> bool:
    """Whether a (rewritten) Filter matches every architecture of the form from Volta on."""

    def contains(msg: Any, cc: int) -> bool:
        lo = int(msg.MinArch) if msg.HasField("MinArch") else None
        hi = int(msg.MaxArch) if msg.HasField("MaxArch") else None
        return (lo is None or cc >= lo) and (hi is None or cc <= hi)

    ccs = [cc_number(cc) for cc in state.form.evaluation_ccs()]
    return all(
        contains(message, cc) and (not len(message.Items) or any(contains(item, cc) for item in message.Items))
        for cc in ccs
    )


def _rewrite_definitions(section: Any, state: Rewrite) -> None:
    """Derived metrics: renamed operands, filters rewritten; left out (with what reads them) where impossible."""
    has_filter = ("MetricDefinition", "Filter") not in state.form.schema.absent_fields
    kept = []
    for definition in section.MetricDefinitions.MetricDefinitions:
        keep = True
        operands = re.findall(r"[A-Za-z_][A-Za-z0-9_.]*__[A-Za-z0-9_.]+", definition.Expression)
        for arch in _absent_archs(state.absent_on, operands):
            state.absent_on[arch].add(definition.Name)  # what reads it is left out there too
        if not _narrow(definition, operands, state):
            keep = False
        elif definition.HasField("Filter"):
            if not _rewrite_filter(definition.Filter, state):
                keep = False
            elif not has_filter:
                if _matches_all(definition.Filter, state):
                    definition.ClearField("Filter")
                else:
                    state.note(
                        f"derived metrics defined on some architectures only (ncu {state.form.version} has no Filter "
                        "on MetricDefinitions), left out with what reads them; their operands stay in the Header",
                        definition.Name,
                    )
                    keep = False
        if keep:
            expression = definition.Expression

            def swap(match: re.Match[str]) -> str:
                nonlocal keep
                new = _rename(match.group(0), state)
                if new is None:
                    keep = False
                    return match.group(0)
                return new

            definition.Expression = re.sub(r"[A-Za-z_][A-Za-z0-9_.]*__[A-Za-z0-9_.]+", swap, expression)
        if keep:
            kept.append(definition)
        else:
            state.dropped_derived.add(definition.Name)
    _keep(section.MetricDefinitions.MetricDefinitions, kept)


def _rewrite_value(value: Any, state: Rewrite) -> bool:
    """A RooflineValue: False when nothing is left of it."""
    if value.HasField("Metric") and not _rewrite_metric(value.Metric, state):
        value.ClearField("Metric")
    if value.HasField("ValueCyclesPerSecondExpression"):
        expression = value.ValueCyclesPerSecondExpression
        _rewrite_metric_list(expression.ValuePerCycleMetrics, state)
        if expression.HasField("CyclesPerSecondMetric") and not _rewrite_metric(
            expression.CyclesPerSecondMetric, state
        ):
            return False
        if not len(expression.ValuePerCycleMetrics):
            value.ClearField("ValueCyclesPerSecondExpression")
    return bool(value.HasField("Metric") or value.HasField("ValueCyclesPerSecondExpression"))


def _rewrite_options(options: Any, state: Rewrite) -> None:
    if not options.HasField("ShowOnlyIfNotZero"):
        return
    if ("RooflineOptions", "ShowOnlyIfNotZero") in state.form.schema.absent_fields:
        state.note(f"fields ncu {state.form.version} has no place for, left out", "RooflineOptions.ShowOnlyIfNotZero")
        options.ClearField("ShowOnlyIfNotZero")
    elif options.ShowOnlyIfNotZero.HasField("Metric") and not _rewrite_metric(options.ShowOnlyIfNotZero.Metric, state):
        options.ClearField("ShowOnlyIfNotZero")


def _rewrite_body(section: Any, state: Rewrite) -> None:
    for body in section.Body:
        kept_items = []
        for item in body.Items:
            if item.HasField("Filter") and not _rewrite_filter(item.Filter, state):
                continue
            chart = item.RooflineChart
            kept = []
            for line in chart.Rooflines:
                if _rewrite_value(line.PeakWork, state) and _rewrite_value(line.PeakTraffic, state):
                    _rewrite_options(line.Options, state)
                    kept.append(line)
            _keep(chart.Rooflines, kept)
            kept = []
            for point in chart.AchievedValues:
                if _rewrite_value(point.AchievedWork, state) and _rewrite_value(point.AchievedTraffic, state):
                    kept.append(point)
            _keep(chart.AchievedValues, kept)
            if len(chart.Rooflines) or len(chart.AchievedValues):
                kept_items.append(item)
        _keep(body.Items, kept_items)
    _keep(section.Body, [body for body in section.Body if len(body.Items)])


def rewrite_message(section: Any, form: Form) -> list[str]:
    """Rewrite a parsed newest-form ``ProfilerSection`` message in place into ``form``; what changed, one line per
    kind of change."""
    state = Rewrite(form, form.schema.arch_numbers())
    if section.HasField("Filter") and not _rewrite_filter(section.Filter, state):
        raise ValueError(f"section {section.Identifier} applies to no architecture ncu {form.version} knows")
    _rewrite_definitions(section, state)
    _rewrite_metric_list(section.Header.Metrics, state)
    _rewrite_metric_list(section.Metrics.Metrics, state)
    _rewrite_body(section, state)
    if not len(section.Metrics.Metrics):
        section.ClearField("Metrics")
    _clear_absent(section, state)
    return state.summary()


def _clear_absent(message: Any, state: Rewrite) -> None:
    """Clear, anywhere in the message, the fields the form's schema has no place for."""
    name = message.DESCRIPTOR.name
    for descriptor, value in message.ListFields():
        if (name, descriptor.name) in state.form.schema.absent_fields:
            state.note(f"fields ncu {state.form.version} has no place for, left out", f"{name}.{descriptor.name}")
            message.ClearField(descriptor.name)
        elif descriptor.message_type is not None:
            for child in [value] if hasattr(value, "DESCRIPTOR") else value:  # one message, or a repeated field
                _clear_absent(child, state)


@dataclass(frozen=True)
class Rewritten:
    """A section file's text in one form, and what was changed to get there."""

    text: str
    changes: list[str]


def rewrite(
    text: str, form: Form, source: str = "<section>", banner: Callable[[list[str]], str] | None = None
) -> Rewritten:
    """A newest-form section file's text in ``form``: the same text for the newest form, else the rewritten
    message in protobuf text format (comments are not kept; ``banner`` makes the comment block that heads it).
    The result is parsed back against the form's schema before it is returned."""
    if form.newest:
        return Rewritten(text, [])
    from google.protobuf import text_format  # noqa: PLC0415 - optional dependency, parse_section_message checks it

    message = parse_section_message(text, source)
    changes = rewrite_message(message, form)
    body = text_format.MessageToString(message, as_utf8=True)
    head = banner(changes) if banner is not None else ""
    out = head + body
    parse_section_message(out, f"{source} (ncu {form.version} form)", form.schema)
    return Rewritten(out, changes)
