"""Read Nsight Compute section files (protobuf text format, message ``ProfilerSection``) and check them.

ncu ships the schema of its section files as ``ProfilerSection.proto``; this project keeps its own copy of the
part it uses (field names and nesting as in NVIDIA's stock section files, field numbers of our choosing, which
text format never sees) and builds it at import time with ``descriptor_pb2``, so no ``protoc`` is needed.
A file that uses a field outside this schema is rejected, as ncu would reject a field outside its own.

Parsing needs the ``protobuf`` package (``pip install protobuf``; it is in the ``test`` extra).

What a section asks ncu to collect depends on the GPU: a metric entry has a ``Name`` with an optional
``Filter { MinArch MaxArch Items {...} }`` and ``Options`` with their own filters. ncu uses the first option
whose filter matches the device, else the entry's own name if its filter matches, else nothing;
:meth:`MetricRef.resolve` does the same. Compute capabilities are written ``"9.0"`` and handled as the
integers ncu's ``HWArchitectureType`` enum uses (``CC_90`` = 90).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ncu_roofline.errors import InputError, MissingExtraError

#: ncu's ``HWArchitectureType`` values, Volta to Blackwell (name -> number; ``MinArch: 80`` works too).
ARCH_ENUM: dict[str, int] = {
    "CC_70": 70,
    "CC_72": 72,
    "CC_75": 75,
    "CC_80": 80,
    "CC_86": 86,
    "CC_87": 87,
    "CC_88": 88,
    "CC_89": 89,
    "CC_90": 90,
    "CC_100": 100,
    "CC_101": 101,
    "CC_103": 103,
    "CC_110": 110,
    "CC_120": 120,
    "CC_121": 121,
}

#: ``CollectionFilter { CollectionScopes: ... }`` values used by the stock sections.
COLLECTION_SCOPES: tuple[str, ...] = (
    "CollectionScope_Launch",
    "CollectionScope_Range",
    "CollectionScope_Cmdlist",
)

#: The compute capabilities a section is evaluated for: every GPU architecture from Volta to Blackwell.
EVALUATION_CCS: tuple[str, ...] = (
    "7.0",
    "7.2",
    "7.5",
    "8.0",
    "8.6",
    "8.7",
    "8.9",
    "9.0",
    "10.0",
    "10.3",
    "11.0",
    "12.0",
    "12.1",
)

_PACKAGE = "ncu_roofline.sections"

# The schema: message -> fields (name, label, type). A type is a scalar, "enum:<Enum>" or another message.
# Field names and nesting follow ncu's ProfilerSection.proto as the stock section files use it.
_ENUMS: dict[str, dict[str, int]] = {
    "HWArchitectureType": ARCH_ENUM,
    "CollectionScope": {name: number for number, name in enumerate(COLLECTION_SCOPES, start=1)},
}
_MESSAGES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "ArchRange": (
        ("MinArch", "optional", "enum:HWArchitectureType"),
        ("MaxArch", "optional", "enum:HWArchitectureType"),
    ),
    "CollectionFilter": (("CollectionScopes", "repeated", "enum:CollectionScope"),),
    "Filter": (
        ("MinArch", "optional", "enum:HWArchitectureType"),
        ("MaxArch", "optional", "enum:HWArchitectureType"),
        ("Items", "repeated", "ArchRange"),
        ("CollectionFilter", "optional", "CollectionFilter"),
    ),
    "MetricOption": (
        ("Label", "optional", "string"),
        ("Name", "optional", "string"),
        ("Filter", "optional", "Filter"),
    ),
    "Metric": (
        ("Label", "optional", "string"),
        ("Name", "optional", "string"),
        ("Filter", "optional", "Filter"),
        ("Options", "repeated", "MetricOption"),
    ),
    "MetricList": (("Metrics", "repeated", "Metric"),),
    "MetricDefinition": (
        ("Name", "optional", "string"),
        ("Expression", "optional", "string"),
        ("Filter", "optional", "Filter"),
    ),
    "MetricDefinitionList": (("MetricDefinitions", "repeated", "MetricDefinition"),),
    "SetRef": (("Identifier", "optional", "string"),),
    "Axis": (("Label", "optional", "string"),),
    "ValueCyclesPerSecondExpression": (
        ("ValuePerCycleMetrics", "repeated", "Metric"),
        ("CyclesPerSecondMetric", "optional", "Metric"),
    ),
    "RooflineValue": (
        ("ValueCyclesPerSecondExpression", "optional", "ValueCyclesPerSecondExpression"),
        ("Metric", "optional", "Metric"),
    ),
    "ShowOnlyIfNotZero": (("Metric", "optional", "Metric"),),
    "RooflineOptions": (
        ("Label", "optional", "string"),
        ("ShowOnlyIfNotZero", "optional", "ShowOnlyIfNotZero"),
    ),
    "Roofline": (
        ("PeakWork", "optional", "RooflineValue"),
        ("PeakTraffic", "optional", "RooflineValue"),
        ("Options", "optional", "RooflineOptions"),
    ),
    # ncu's ProfilerSectionRooflineAchievedValueOptions: no ShowOnlyIfNotZero there (2022.3 and 2024.2 .proto).
    "AchievedValueOptions": (("Label", "optional", "string"),),
    "AchievedValue": (
        ("AchievedWork", "optional", "RooflineValue"),
        ("AchievedTraffic", "optional", "RooflineValue"),
        ("Options", "optional", "AchievedValueOptions"),
    ),
    "RooflineChart": (
        ("Label", "optional", "string"),
        ("AxisIntensity", "optional", "Axis"),
        ("AxisWork", "optional", "Axis"),
        ("Rooflines", "repeated", "Roofline"),
        ("AchievedValues", "repeated", "AchievedValue"),
    ),
    "BodyItem": (
        ("Filter", "optional", "Filter"),
        ("RooflineChart", "optional", "RooflineChart"),
    ),
    "Body": (
        ("DisplayName", "optional", "string"),
        ("SetDefault", "optional", "bool"),
        ("Items", "repeated", "BodyItem"),
    ),
    "ProfilerSection": (
        ("Identifier", "optional", "string"),
        ("DisplayName", "optional", "string"),
        ("Description", "optional", "string"),
        ("Order", "optional", "int32"),
        ("Sets", "repeated", "SetRef"),
        ("Extends", "optional", "string"),
        ("Filter", "optional", "Filter"),
        ("Header", "optional", "MetricList"),
        ("Metrics", "optional", "MetricList"),
        ("MetricDefinitions", "optional", "MetricDefinitionList"),
        ("Body", "repeated", "Body"),
    ),
}

IDENTIFIER_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
# A metric name: unit__counter with optional .rollup.submetric parts; derived names may carry dots too.
METRIC_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*__[a-z0-9_]+(?:\.[a-z_]+)*$")
_TOKEN_RE = re.compile(
    r"\s*(?:(?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_.]*)|(?P<op>[-+*/()]))"
)


class SectionFileError(InputError):
    """A section file that is not valid protobuf text format for the schema, or lacks a required field."""


def cc_number(cc: str | int) -> int:
    """``"9.0"`` -> 90, ``"12.1"`` -> 121; an int passes through. Raises ValueError on anything else."""
    if isinstance(cc, int):
        return cc
    major, sep, minor = cc.strip().partition(".")
    if not sep or not major.isdigit() or not minor.isdigit() or len(minor) != 1:
        raise ValueError(f"not a compute capability: {cc!r} (expected e.g. '9.0')")
    return int(major) * 10 + int(minor)


@dataclass(frozen=True)
class ArchRange:
    """An inclusive compute-capability range; a missing bound is open."""

    min_cc: int | None = None
    max_cc: int | None = None

    def contains(self, cc: int) -> bool:
        return (self.min_cc is None or cc >= self.min_cc) and (self.max_cc is None or cc <= self.max_cc)


@dataclass(frozen=True)
class ArchFilter:
    """``Filter { MinArch MaxArch Items {...} CollectionFilter {...} }``: every given part must match."""

    bounds: ArchRange = ArchRange()
    items: tuple[ArchRange, ...] = ()
    scopes: tuple[str, ...] = ()

    def matches(self, cc: int) -> bool:
        return self.bounds.contains(cc) and (not self.items or any(item.contains(cc) for item in self.items))


ANY_ARCH = ArchFilter()


@dataclass(frozen=True)
class MetricOption:
    """One ``Options { Name Label Filter }`` alternative of a metric entry."""

    name: str
    label: str | None
    filter: ArchFilter


@dataclass(frozen=True)
class MetricRef:
    """A metric a section refers to: in ``Header``, ``Metrics`` or a ``Body`` chart (``place``)."""

    name: str
    label: str | None
    filter: ArchFilter
    options: tuple[MetricOption, ...]
    place: str
    item_filter: ArchFilter = ANY_ARCH

    def resolve(self, cc: str | int) -> MetricOption | None:
        """The name and label ncu uses on this architecture, or None where the entry does not apply."""
        number = cc_number(cc)
        if not self.item_filter.matches(number):
            return None
        for option in self.options:
            if option.filter.matches(number):
                return MetricOption(option.name, option.label or self.label, option.filter)
        if self.filter.matches(number):
            return MetricOption(self.name, self.label, self.filter)
        return None

    def names(self) -> tuple[str, ...]:
        """Every name this entry can resolve to, on any architecture."""
        return (self.name, *(option.name for option in self.options))


@dataclass(frozen=True)
class MetricDefinition:
    """``MetricDefinitions { MetricDefinitions { Name Expression Filter } }``: a derived metric."""

    name: str
    expression: str
    filter: ArchFilter

    def tokens(self) -> list[tuple[str, str]]:
        """The expression as (kind, text) tokens, kind in number/name/function/op; ValueError if malformed."""
        tokens: list[tuple[str, str]] = []
        position = 0
        text = self.expression.rstrip()
        while position < len(text):
            match = _TOKEN_RE.match(text, position)
            if match is None or match.end() == position:
                raise ValueError(f"cannot read {text[position:]!r} in expression {self.expression!r}")
            kind = str(match.lastgroup)
            tokens.append((kind, match.group(kind)))
            position = match.end()
        for index, (kind, value) in enumerate(tokens[:-1]):
            if kind == "name" and tokens[index + 1] == ("op", "("):
                tokens[index] = ("function", value)
        return tokens

    def operands(self) -> list[str]:
        """The metric names the expression reads (functions such as ``simplify`` left out)."""
        return [value for kind, value in self.tokens() if kind == "name"]

    def binary_operations(self) -> int:
        """How many arithmetic operators the expression has."""
        return sum(1 for kind, value in self.tokens() if kind == "op" and value not in "()")


@dataclass(frozen=True)
class SectionFile:
    """A parsed section file, in the terms the rest of the project needs."""

    path: str | None
    identifier: str
    display_name: str
    description: str
    order: int | None
    sets: tuple[str, ...]
    extends: str | None
    filter: ArchFilter
    header: tuple[MetricRef, ...]
    metrics: tuple[MetricRef, ...]
    body: tuple[MetricRef, ...]
    definitions: tuple[MetricDefinition, ...]

    def references(self) -> tuple[MetricRef, ...]:
        """Every metric entry of the file: header first, then ``Metrics``, then the body charts."""
        return self.header + self.metrics + self.body

    def active_definitions(self, cc: str | int) -> dict[str, MetricDefinition]:
        """The derived metrics defined on this architecture, by name (a later duplicate would win)."""
        number = cc_number(cc)
        return {d.name: d for d in self.definitions if d.filter.matches(number)}

    def requested(self, cc: str | int) -> set[str]:
        """The names the section's entries resolve to on this architecture (derived names included)."""
        return {resolved.name for ref in self.references() if (resolved := ref.resolve(cc)) is not None}

    def collected(self, cc: str | int) -> set[str]:
        """Every metric ncu collects for this section on this architecture: the requested names and,
        transitively, the operands of the derived metrics among them (derived names included)."""
        definitions = self.active_definitions(cc)
        seen: set[str] = set()
        pending = list(self.requested(cc))
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in definitions:
                pending.extend(definitions[name].operands())
        return seen

    def hardware_metrics(self, cc: str | int) -> set[str]:
        """:meth:`collected` less the names this file defines itself."""
        return self.collected(cc) - set(self.active_definitions(cc))


@dataclass(frozen=True)
class Schema:
    """The part of one ncu version's ``ProfilerSection.proto`` these files use: the schema above less the fields
    that version has no place for, with the enum values it knows (``HWArchitectureType``, ``CollectionScope``)."""

    version: str
    arch_values: tuple[str, ...] = tuple(ARCH_ENUM)
    scopes: tuple[str, ...] = COLLECTION_SCOPES
    absent_fields: frozenset[tuple[str, str]] = frozenset()

    def fields(self, message: str) -> tuple[tuple[str, str, str], ...]:
        """(name, label, type) of the fields of one message of the schema that this version has."""
        return tuple(f for f in _MESSAGES[message] if (message, f[0]) not in self.absent_fields)

    def arch_numbers(self) -> tuple[int, ...]:
        """The compute capabilities of :attr:`arch_values`, ascending (``CC_90`` -> 90)."""
        return tuple(sorted(ARCH_ENUM[name] for name in self.arch_values))


#: The schema the shipped files are written in: ncu 2025.3's, as its stock section files use it.
NEWEST_SCHEMA = Schema("2025.3")


def schema_messages() -> dict[str, tuple[tuple[str, str, str], ...]]:
    """The schema's messages: name -> fields (name, label, type); a type is a scalar, ``enum:<Enum>`` or a message."""
    return dict(_MESSAGES)


@functools.lru_cache(maxsize=8)
def _section_class(schema: Schema = NEWEST_SCHEMA) -> Any:
    """The message class of ``ProfilerSection`` for one schema, built once from the tables above."""
    try:
        from google.protobuf import (  # noqa: PLC0415 - optional dependency, imported when first needed
            descriptor_pb2,
            descriptor_pool,
            message_factory,
        )
    except ImportError as exc:  # pragma: no cover - exercised only without protobuf installed
        raise MissingExtraError("reading ncu section files needs the protobuf package: pip install protobuf") from exc
    fdp = descriptor_pb2.FileDescriptorProto(
        name=f"ncu_roofline_profiler_section_{schema.version}.proto", package=_PACKAGE
    )
    fdp.syntax = "proto2"
    known = {"HWArchitectureType": set(schema.arch_values), "CollectionScope": set(schema.scopes)}
    for enum_name, values in _ENUMS.items():
        enum = fdp.enum_type.add(name=enum_name)
        for value_name, number in values.items():
            if value_name in known[enum_name]:
                enum.value.add(name=value_name, number=number)
    scalar = descriptor_pb2.FieldDescriptorProto
    scalars = {"string": scalar.TYPE_STRING, "bool": scalar.TYPE_BOOL, "int32": scalar.TYPE_INT32}
    labels = {"optional": scalar.LABEL_OPTIONAL, "repeated": scalar.LABEL_REPEATED}
    for message_name, fields in _MESSAGES.items():
        message = fdp.message_type.add(name=message_name)
        for number, (field_name, label, kind) in enumerate(fields, start=1):
            if (message_name, field_name) in schema.absent_fields:
                continue
            field = message.field.add(name=field_name, number=number, label=labels[label])
            field.json_name = field_name
            if kind in scalars:
                field.type = scalars[kind]
            elif kind.startswith("enum:"):
                field.type = scalar.TYPE_ENUM
                field.type_name = f".{_PACKAGE}.{kind[5:]}"
            else:
                field.type = scalar.TYPE_MESSAGE
                field.type_name = f".{_PACKAGE}.{kind}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.ProfilerSection"))


def parse_section_message(
    text: str, source: str | Path | None = None, schema: Schema = NEWEST_SCHEMA, *, skip_unknown: bool = False
) -> Any:
    """Parse one section file's text into the protobuf message of ``schema``; raise SectionFileError (with the
    line) if it does not fit that schema. ``skip_unknown``: fields outside the schema (the bar charts and
    tables of ncu's stock sections, which this project does not model) are passed over instead of rejected."""
    message = _section_class(schema)()  # first: it says how to install protobuf when it is missing
    from google.protobuf import text_format  # noqa: PLC0415 - optional dependency, present from here on

    try:
        text_format.Parse(text, message, allow_unknown_field=skip_unknown)
    except text_format.ParseError as exc:
        line = exc.GetLine() if exc.GetLine() > 0 else None
        version = "" if schema == NEWEST_SCHEMA else f" of ncu {schema.version}"
        raise SectionFileError(source, f"not a valid ProfilerSection{version}: {exc}", line=line) from exc
    if not message.Identifier:
        raise SectionFileError(source, "the required field Identifier is missing")
    return message


def message_to_section(message: Any, source: str | Path | None = None) -> SectionFile:
    """A parsed ``ProfilerSection`` message (of any :class:`Schema`) in the terms the rest of the project needs."""
    return _convert(message, None if source is None else str(source))


def parse_section_text(
    text: str, source: str | Path | None = None, schema: Schema = NEWEST_SCHEMA, *, skip_unknown: bool = False
) -> SectionFile:
    """Parse one section file's text; raise SectionFileError (with the line) if it does not fit the schema
    (``skip_unknown``: as :func:`parse_section_message`)."""
    return message_to_section(parse_section_message(text, source, schema, skip_unknown=skip_unknown), source)


def load_section(path: str | Path, *, skip_unknown: bool = False) -> SectionFile:
    """Parse one ``.section`` file (``skip_unknown``: as :func:`parse_section_message`, for ncu's stock files)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SectionFileError(path, f"cannot read the section file: {exc.strerror}") from exc
    return parse_section_text(text, path, skip_unknown=skip_unknown)


def _has(message: Any, field: str) -> bool:
    """Whether the message is set in ``field``, a field its schema may lack (older ncu versions)."""
    return field in message.DESCRIPTOR.fields_by_name and bool(message.HasField(field))


def _filter(message: Any, present: bool) -> ArchFilter:
    if not present:
        return ANY_ARCH

    def bound(msg: Any, field: str) -> int | None:
        return int(getattr(msg, field)) if msg.HasField(field) else None

    return ArchFilter(
        bounds=ArchRange(bound(message, "MinArch"), bound(message, "MaxArch")),
        items=tuple(ArchRange(bound(item, "MinArch"), bound(item, "MaxArch")) for item in message.Items),
        scopes=tuple(COLLECTION_SCOPES[scope - 1] for scope in message.CollectionFilter.CollectionScopes),
    )


def _metric(message: Any, place: str, item_filter: ArchFilter = ANY_ARCH) -> MetricRef:
    return MetricRef(
        name=message.Name,
        label=message.Label if message.HasField("Label") else None,
        filter=_filter(message.Filter, message.HasField("Filter")),
        options=tuple(
            MetricOption(
                option.Name,
                option.Label if option.HasField("Label") else None,
                _filter(option.Filter, option.HasField("Filter")),
            )
            for option in message.Options
        ),
        place=place,
        item_filter=item_filter,
    )


def _chart_metrics(chart: Any) -> Iterator[Any]:
    """Every metric message inside a RooflineChart."""

    def value(msg: Any) -> Iterator[Any]:
        expression = msg.ValueCyclesPerSecondExpression
        yield from expression.ValuePerCycleMetrics
        if expression.HasField("CyclesPerSecondMetric"):
            yield expression.CyclesPerSecondMetric
        if msg.HasField("Metric"):
            yield msg.Metric

    for roofline in chart.Rooflines:
        yield from value(roofline.PeakWork)
        yield from value(roofline.PeakTraffic)
        if _has(roofline.Options, "ShowOnlyIfNotZero") and roofline.Options.ShowOnlyIfNotZero.HasField("Metric"):
            yield roofline.Options.ShowOnlyIfNotZero.Metric
    for achieved in chart.AchievedValues:
        yield from value(achieved.AchievedWork)
        yield from value(achieved.AchievedTraffic)


def _convert(message: Any, path: str | None) -> SectionFile:
    body: list[MetricRef] = []
    for section_body in message.Body:
        for item in section_body.Items:
            item_filter = _filter(item.Filter, item.HasField("Filter"))
            body.extend(_metric(m, "Body", item_filter) for m in _chart_metrics(item.RooflineChart))
    return SectionFile(
        path=path,
        identifier=message.Identifier,
        display_name=message.DisplayName,
        description=message.Description,
        order=message.Order if message.HasField("Order") else None,
        sets=tuple(s.Identifier for s in message.Sets),
        extends=message.Extends if message.HasField("Extends") else None,
        filter=_filter(message.Filter, message.HasField("Filter")),
        header=tuple(_metric(m, "Header") for m in message.Header.Metrics),
        metrics=tuple(_metric(m, "Metrics") for m in message.Metrics.Metrics),
        body=tuple(body),
        definitions=tuple(
            MetricDefinition(d.Name, d.Expression, _filter(d.Filter, True) if _has(d, "Filter") else ANY_ARCH)
            for d in message.MetricDefinitions.MetricDefinitions
        ),
    )


# --- Which metric names exist -------------------------------------------------------------------------------

ROLLUPS = ("sum", "avg", "min", "max")
#: Sub-metrics of a counter after its rollup (Nsight Compute Profiling Guide, "Metrics Structure").
COUNTER_SUBMETRICS = frozenset(
    {
        "",
        "peak_sustained",
        "peak_sustained_active",
        "peak_sustained_active.per_second",
        "peak_sustained_elapsed",
        "peak_sustained_elapsed.per_second",
        "peak_sustained_region",
        "peak_sustained_region.per_second",
        "peak_sustained_frame",
        "peak_sustained_frame.per_second",
        "per_cycle_active",
        "per_cycle_elapsed",
        "per_cycle_in_region",
        "per_cycle_in_frame",
        "per_second",
        "pct_of_peak_sustained_active",
        "pct_of_peak_sustained_elapsed",
        "pct_of_peak_sustained_region",
        "pct_of_peak_sustained_frame",
    }
)
THROUGHPUT_SUBMETRICS = frozenset(
    {
        "pct_of_peak_sustained_active",
        "pct_of_peak_sustained_elapsed",
        "pct_of_peak_sustained_region",
        "pct_of_peak_sustained_frame",
    }
)
RATIO_SUFFIXES = frozenset({"ratio", "pct", "max_rate"})
_QUERY_LINE_RE = re.compile(r"^([A-Za-z_][\w.]*__\w+)\s+(Counter|Ratio|Throughput)\b")


class MetricCatalog:
    """The metric names one chip has: base metrics with their type (``ncu --query-metrics``) expanded by the
    naming grammar (base + rollup + sub-metric), plus full names known from real exports (launch__, device__,
    sass__ ... which --query-metrics does not list)."""

    def __init__(self, base_types: Mapping[str, str] | None = None, names: Iterable[str] = ()) -> None:
        self.base_types: dict[str, str] = dict(base_types or {})
        self.names: set[str] = set(names)

    @classmethod
    def from_query_metrics(cls, text: str) -> MetricCatalog:
        """Read the table ``ncu --query-metrics --chip <chip>`` prints (continuation lines are skipped)."""
        types: dict[str, str] = {}
        for line in text.splitlines():
            match = _QUERY_LINE_RE.match(line)
            if match:
                types[match.group(1)] = match.group(2)
        return cls(types)

    def add_names(self, names: Iterable[str]) -> None:
        """Add full metric names seen in a real export (e.g. the header row of a ``--page raw`` CSV)."""
        self.names.update(name for name in names if "__" in name)

    def knows(self, name: str) -> bool:
        """Whether ncu can collect this full metric name on the chip."""
        if name in self.names:
            return True
        base, _, suffix = name.partition(".")
        kind = self.base_types.get(base)
        if kind == "Ratio":
            return suffix in RATIO_SUFFIXES
        rollup, _, submetric = suffix.partition(".")
        if rollup not in ROLLUPS:
            return False
        if kind == "Counter":
            return submetric in COUNTER_SUBMETRICS
        if kind == "Throughput":
            return submetric in THROUGHPUT_SUBMETRICS
        return False


# --- Checks -------------------------------------------------------------------------------------------------


def check_section(
    section: SectionFile,
    catalogs: Mapping[str, MetricCatalog] | None = None,
    ccs: Iterable[str] = EVALUATION_CCS,
) -> list[str]:
    """Everything wrong with one section file, as messages (an empty list: it is fine).

    Checks the identifier, that header entries have labels unique per architecture, that each derived
    metric is one well-formed expression over metrics and earlier definitions active on the same
    architectures, that every derived name used is defined where it is used, and, for each compute
    capability in ``catalogs``, that every metric collected there exists on that chip.
    """
    where = section.path or section.identifier or "<section>"
    problems: list[str] = []
    if not IDENTIFIER_RE.match(section.identifier):
        problems.append(f"{where}: Identifier {section.identifier!r} must be a word without spaces")
    if not section.display_name:
        problems.append(f"{where}: DisplayName is empty")
    for ref in section.references():
        for name in ref.names():
            if not METRIC_NAME_RE.match(name):
                problems.append(f"{where}: {ref.place} metric {name!r} is not a plain metric name")
        if ref.place == "Header" and not ref.label:
            problems.append(f"{where}: Header metric {ref.name!r} has no Label")
    defined = {d.name for d in section.definitions}
    for index, definition in enumerate(section.definitions):
        problems.extend(_check_definition(where, definition, section.definitions[:index]))
    for cc in ccs:
        number = cc_number(cc)
        labels: dict[str, str] = {}
        active = section.active_definitions(number)
        names = [d.name for d in section.definitions if d.filter.matches(number)]
        problems.extend(
            f"{where}: CC {cc}: derived metric {name} is defined twice"
            for name in sorted({n for n in names if names.count(n) > 1})
        )
        for ref in section.header:
            resolved = ref.resolve(number)
            if resolved is None:
                continue
            label = resolved.label or ""
            if label in labels and labels[label] != resolved.name:
                problems.append(
                    f"{where}: CC {cc}: Header label {label!r} names both {labels[label]} and {resolved.name}"
                )
            labels[label] = resolved.name
        for name in sorted(section.requested(number)):
            if name.startswith("derived__") and name not in defined:
                problems.append(f"{where}: CC {cc}: derived metric {name} is used but never defined")
            elif name in defined and name not in active:
                problems.append(f"{where}: CC {cc}: derived metric {name} is used but not defined for this CC")
        catalog = (catalogs or {}).get(cc)
        if catalog is not None:
            problems.extend(
                f"{where}: CC {cc}: metric {name} does not exist on this chip"
                for name in sorted(section.hardware_metrics(number))
                if not catalog.knows(name)
            )
    return problems


def _check_definition(where: str, definition: MetricDefinition, earlier: tuple[MetricDefinition, ...]) -> list[str]:
    problems: list[str] = []
    try:
        tokens = definition.tokens()
    except ValueError as exc:
        return [f"{where}: derived metric {definition.name}: {exc}"]
    if not METRIC_NAME_RE.match(definition.name):
        problems.append(f"{where}: derived metric name {definition.name!r} is not a plain metric name")
    expect_operand = True
    depth = 0
    for kind, value in tokens:
        if kind == "function" and expect_operand:
            continue
        if value == "(" and expect_operand:
            depth += 1
        elif value == ")" and not expect_operand:
            depth -= 1
        elif kind in ("number", "name") and expect_operand:
            expect_operand = False
        elif kind == "op" and value not in "()" and not expect_operand:
            expect_operand = True
        else:
            problems.append(f"{where}: derived metric {definition.name}: unexpected {value!r}")
            break
        if depth < 0:
            problems.append(f"{where}: derived metric {definition.name}: unbalanced parentheses")
            break
    else:
        if expect_operand or depth != 0:
            problems.append(f"{where}: derived metric {definition.name}: incomplete expression")
    for operand in definition.operands():
        sources = [d for d in earlier if d.name == operand]
        if sources:
            for cc in EVALUATION_CCS:
                number = cc_number(cc)
                if definition.filter.matches(number) and not any(d.filter.matches(number) for d in sources):
                    problems.append(
                        f"{where}: derived metric {definition.name} reads {operand}, which is not defined for CC {cc}"
                    )
        elif operand.startswith("derived__"):
            problems.append(
                f"{where}: derived metric {definition.name} reads {operand}, which is not defined before it"
            )
    return problems


def check_sections(sections: Iterable[SectionFile]) -> list[str]:
    """Problems across files: identifiers (and display names) must be unique in a section folder."""
    problems: list[str] = []
    seen: dict[str, str] = {}
    names: dict[str, str] = {}
    for section in sections:
        where = section.path or section.identifier
        if section.identifier in seen:
            problems.append(f"{where}: Identifier {section.identifier!r} is also used by {seen[section.identifier]}")
        seen.setdefault(section.identifier, where)
        if section.display_name in names:
            problems.append(
                f"{where}: DisplayName {section.display_name!r} is also used by {names[section.display_name]}"
            )
        names.setdefault(section.display_name, where)
    return problems
