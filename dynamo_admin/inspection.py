"""Plain PynamoDB models written from existing tables, as Django's `inspectdb` writes models.

What a table says of itself (DescribeTable: keys, their types, indexes and projections) is
certain; what its items hold is read from a bounded sample and may be incomplete, so an
attribute absent from a sampled item gets `null=True`, and one stored with several types gets
the most frequent with a comment naming the others. The admin shows an item whose stored type
does not fit read-only, so a model written from a sample never rewrites what it misread.
"""

from __future__ import annotations

import json
import keyword
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pynamodb.models import Model

# DynamoDB's type descriptors and the PynamoDB attribute of each.
ATTRIBUTE_CLASSES = {
    "S": "UnicodeAttribute",
    "N": "NumberAttribute",
    "B": "BinaryAttribute",
    "BOOL": "BooleanAttribute",
    "SS": "UnicodeSetAttribute",
    "NS": "NumberSetAttribute",
    "BS": "BinarySetAttribute",
    "L": "ListAttribute",
    "M": "MapAttribute",
    "NULL": "NullAttribute",
}
PROJECTIONS = {
    "ALL": "AllProjection",
    "KEYS_ONLY": "KeysOnlyProjection",
    "INCLUDE": "IncludeProjection",
}
# Names a model attribute must not take: PynamoDB's own (save, query, count, Meta...).
RESERVED = frozenset(dir(Model)) | {"Meta", "DoesNotExist"}


@dataclass
class Sampled:
    """A table as DescribeTable gives it and the items a bounded Scan read from it."""

    table: dict[str, Any]
    items: list[dict[str, Any]] = field(default_factory=list)
    capacity: float = 0.0

    @property
    def name(self) -> str:
        return self.table["TableName"]


@dataclass
class Attribute:
    """One attribute of a model to write: its names, type, key role and what the sample saw."""

    stored: str
    python: str
    kind: str
    hash_key: bool = False
    range_key: bool = False
    null: bool = False
    seen: Counter = field(default_factory=Counter)

    def declaration(self, *, in_index: bool = False) -> str:
        options = []
        if self.hash_key:
            options.append("hash_key=True")
        if self.range_key:
            options.append("range_key=True")
        if (self.null or self.kind == "NULL") and not in_index:
            options.append("null=True")
        if self.python != self.stored:
            options.append(f"attr_name={_string(self.stored)}")
        if self.kind in ("B", "BS"):  # the bytes as stored, not base64 inside them (PynamoDB 5)
            options.append("legacy_encoding=False")
        line = f"{self.python} = {ATTRIBUTE_CLASSES[self.kind]}({', '.join(options)})"
        if len(self.seen) > 1 and not in_index:
            return f"# stored types disagree: {_counts(self.seen)}\n{line}"
        return line


def _counts(seen: Counter) -> str:
    """Return "N in 3 items, S in 1": each stored type and how many sampled items hold it."""
    (first, n), *others = seen.most_common()
    return ", ".join([f"{first} in {count(n, 'item')}", *(f"{k} in {m}" for k, m in others)])


def class_name(table_name: str, taken: set[str]) -> str:
    """Return a CamelCase class name for a table (`user-stats` -> `UserStats`), unused so far."""
    words = [w for w in re.split(r"[^0-9A-Za-z]+", table_name) if w]
    name = "".join(w[0].upper() + w[1:] for w in words) or "Table"
    if name[0].isdigit():
        name = f"Table{name}"
    return _unused(name, taken)


def python_name(stored: str, taken: set[str]) -> str:
    """Return the stored name if Python may use it as an attribute, else a close one."""
    name = stored
    if not name.isidentifier():
        name = re.sub(r"\W", "_", name) or "attribute"
        if not name.isidentifier():  # starts with a digit
            name = f"_{name}"
    if keyword.iskeyword(name) or keyword.issoftkeyword(name) or name in RESERVED:
        name = f"{name}_"
    return _unused(name, taken)


def _string(value: str) -> str:
    """Return a string literal in double quotes, as ruff format writes one."""
    return json.dumps(value, ensure_ascii=False)


def _tuple(values: list[str]) -> str:
    """Return a tuple literal of strings, as ruff format writes one."""
    inside = ", ".join(_string(value) for value in values)
    return f"({inside},)" if len(values) == 1 else f"({inside})"


def _unused(name: str, taken: set[str]) -> str:
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}{n}"
    taken.add(candidate)
    return candidate


def _key_roles(key_schema: list[dict[str, str]]) -> dict[str, str]:
    return {k["AttributeName"]: k["KeyType"] for k in key_schema}


@dataclass
class Inspected:
    """A model to write for one table: its class, attributes and index classes."""

    sampled: Sampled
    class_name: str
    attributes: list[Attribute]
    indexes: list[tuple[str, str, dict[str, Any], str]]  # class, attribute, index, kind

    @property
    def keys(self) -> list[Attribute]:
        return [a for a in self.attributes if a.hash_key] + [
            a for a in self.attributes if a.range_key
        ]


def inspect(sampled: Sampled, classes: set[str]) -> Inspected:
    """Work out the model of one sampled table: keys, attributes seen, indexes."""
    table = sampled.table
    defined = {d["AttributeName"]: d["AttributeType"] for d in table["AttributeDefinitions"]}
    roles = _key_roles(table["KeySchema"])
    seen: dict[str, Counter] = {}
    for item in sampled.items:
        for stored, typed in item.items():
            seen.setdefault(stored, Counter())[next(iter(typed))] += 1
    # The table's keys first (hash, range), then every other attribute by its stored name.
    ordered = sorted(roles, key=lambda n: roles[n] != "HASH")
    ordered += sorted((set(defined) | set(seen)) - set(roles), key=lambda n: (n.lower(), n))
    taken: set[str] = set()
    attributes = []
    for stored in ordered:
        counts = seen.get(stored, Counter())
        kind = defined.get(stored) if stored in roles else None
        kind = kind or (counts.most_common(1)[0][0] if counts else defined[stored])
        attributes.append(
            Attribute(
                stored=stored,
                python=python_name(stored, taken),
                kind=kind,
                hash_key=roles.get(stored) == "HASH",
                range_key=roles.get(stored) == "RANGE",
                # Absent from a sampled item, or never sampled (an index key of an empty table).
                null=stored not in roles
                and (not counts or sum(counts.values()) < len(sampled.items)),
                seen=counts,
            )
        )
    model_class = class_name(sampled.name, classes)
    indexes = []
    for kind, key in (
        ("GlobalSecondaryIndex", "GlobalSecondaryIndexes"),
        ("LocalSecondaryIndex", "LocalSecondaryIndexes"),
    ):
        for index in table.get(key, []):
            index_class = class_name(index["IndexName"], set())
            if not index_class.endswith("Index"):
                index_class += "Index"
            if index_class in classes:
                index_class = f"{model_class}{index_class}"
            index_class = _unused(index_class, classes)
            attribute = python_name(_snake(index_class), taken)
            indexes.append((index_class, attribute, index, kind))
    return Inspected(sampled, model_class, attributes, indexes)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _projection(index: dict[str, Any]) -> str:
    projection = index.get("Projection", {})
    kind = projection.get("ProjectionType", "ALL")
    if kind == "INCLUDE":
        names = ", ".join(_string(name) for name in sorted(projection["NonKeyAttributes"]))
        return f"IncludeProjection([{names}])"
    return f"{PROJECTIONS[kind]}()"


def _capacity_lines(described: dict[str, Any], indent: str) -> list[str]:
    throughput = described.get("ProvisionedThroughput") or {}
    read, write = throughput.get("ReadCapacityUnits"), throughput.get("WriteCapacityUnits")
    if not read and not write:
        return []
    return [f"{indent}read_capacity_units = {read}", f"{indent}write_capacity_units = {write}"]


def _index_source(inspected: Inspected, index_class: str, index: dict, kind: str) -> list[str]:
    by_stored = {a.stored: a for a in inspected.attributes}
    roles = _key_roles(index["KeySchema"])
    keys = sorted(roles, key=lambda n: roles[n] != "HASH")
    lines = [
        f"class {index_class}({kind}):",
        f'    """{index["IndexName"]}: keys {", ".join(keys)}; projects '
        f'{index.get("Projection", {}).get("ProjectionType", "ALL")}."""',
        "",
        "    class Meta:",
        f"        index_name = {_string(index['IndexName'])}",
        f"        projection = {_projection(index)}",
        *_capacity_lines(index, "        "),
        "",
    ]
    for stored in keys:
        source = by_stored[stored]
        key = Attribute(
            stored=source.stored,
            python=source.python,
            kind=source.kind,
            hash_key=roles[stored] == "HASH",
            range_key=roles[stored] == "RANGE",
        )
        lines.append(f"    {key.declaration(in_index=True)}")
    return lines


def _model_source(inspected: Inspected, endpoint: str | None, region: str | None) -> list[str]:
    sampled = inspected.sampled
    table = sampled.table
    billing = (table.get("BillingModeSummary") or {}).get("BillingMode")
    lines = [
        f"class {inspected.class_name}(Model):",
        f'    """The {sampled.name} table ({count(len(sampled.items), "item")} sampled)."""',
        "",
        "    class Meta:",
        f"        table_name = {_string(sampled.name)}",
        "        # Where the table is: set host for DynamoDB Local or another endpoint, and",
        "        # the region (PynamoDB's default is us-east-1).",
        f"        # host = {_string(endpoint or 'http://127.0.0.1:8000')}",
        f"        # region = {_string(region or 'us-east-1')}",
    ]
    if billing == "PAY_PER_REQUEST":
        lines.append('        billing_mode = "PAY_PER_REQUEST"')
    else:
        lines += _capacity_lines(table, "        ")
    lines.append("")
    for attribute in inspected.attributes:
        for line in attribute.declaration().splitlines():
            lines.append(f"    {line}")
    for index_class, attribute_name, _index, _kind in inspected.indexes:
        lines.append(f"    {attribute_name} = {index_class}()")
    return lines


def count(n: int, noun: str) -> str:
    """Return "1 item" or "3 items"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def models_source(
    inspected: list[Inspected], *, endpoint: str | None = None, region: str | None = None
) -> str:
    """Return the text of a models.py holding one plain PynamoDB model per inspected table."""
    used = {a.kind for i in inspected for a in i.attributes}
    index_kinds = {kind for i in inspected for *_, kind in i.indexes}
    projections = {
        PROJECTIONS[index.get("Projection", {}).get("ProjectionType", "ALL")]
        for i in inspected
        for _, _, index, _ in i.indexes
    }
    names = ", ".join(i.sampled.name for i in inspected) or "no table"
    lines = [
        f'"""Plain PynamoDB models of {names}.',
        "",
        "Written by `manage.py inspect_tables` from DescribeTable and a sample of each table's",
        "items: review them. An attribute absent from a sampled item is `null=True`; one the",
        "sample never held is not declared (the admin keeps what a model does not declare).",
        '"""',
        "",
    ]
    if used:
        classes = sorted(ATTRIBUTE_CLASSES[kind] for kind in used)
        lines += ["from pynamodb.attributes import (", *(f"    {c}," for c in classes), ")"]
    if index_kinds:
        imported = ", ".join(sorted(projections | index_kinds))
        lines.append(f"from pynamodb.indexes import {imported}")
    lines += ["from pynamodb.models import Model", ""]
    for one in inspected:
        for index_class, _attribute, index, kind in one.indexes:
            lines += ["", *_index_source(one, index_class, index, kind), ""]
        lines += ["", *_model_source(one, endpoint, region), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def admin_source(inspected: list[Inspected], models_module: str = ".models") -> str:
    """Return the text of an admin.py registering each model, its keys in the listing."""
    classes = sorted(i.class_name for i in inspected)
    lines = [
        '"""The admin of the models `manage.py inspect_tables` wrote: one registration each."""',
        "",
        "from dynamo_admin import ModelAdmin, register",
        "",
        f"from {models_module} import {', '.join(classes)}",
        "",
    ]
    for one in inspected:
        keys = _tuple([k.python for k in one.keys])
        lines += [
            "",
            f"@register({one.class_name})",
            f"class {one.class_name}Admin(ModelAdmin):",
            f"    list_display = {keys}",
            f"    search_fields = {_tuple(['=' + one.keys[0].python])}",
            "",
        ]
    return "\n".join(lines).rstrip("\n") + "\n"
