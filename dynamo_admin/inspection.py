"""Plain PynamoDB models written from existing tables, as Django's `inspectdb` writes models.

What a table says of itself (DescribeTable: keys, their types, indexes and projections) is
certain; what its items hold is read from a bounded sample and may be incomplete, so an
attribute absent from a sampled item gets `null=True`, and one stored with several types gets
the most frequent with a comment naming the others. The admin shows an item whose stored type
does not fit read-only, so a model written from a sample never rewrites what it misread.

No name read from a table is trusted: a table, attribute or index name enters the written
code only as a string literal made by `repr()`, never in a docstring or a comment, and the
Python names beside it are ASCII identifiers of our own making that shadow nothing.
"""

from __future__ import annotations

import keyword
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pynamodb.indexes import GlobalSecondaryIndex, LocalSecondaryIndex
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
INDEX_KINDS = {
    "GlobalSecondaryIndexes": "GlobalSecondaryIndex",
    "LocalSecondaryIndexes": "LocalSecondaryIndex",
}
# Every name a written models.py may import, and the names a written admin.py imports.
MODELS_IMPORTS = frozenset(
    {"Model", *ATTRIBUTE_CLASSES.values(), *PROJECTIONS.values(), *INDEX_KINDS.values()}
)
ADMIN_IMPORTS = frozenset({"ModelAdmin", "register"})
# Names a model attribute must not take: PynamoDB's own on a model or an index (save, query,
# count, Meta...), the attribute_values each instance sets, and what the admin reads off a
# model (_meta, word_index).
MEMBERS = (
    frozenset(dir(Model))
    | frozenset(dir(GlobalSecondaryIndex))
    | frozenset(dir(LocalSecondaryIndex))
    | {"Meta", "DoesNotExist", "attribute_values", "_meta", "word_index"}
)
# Legal attribute names, but a reader would stumble on them (`type` is soft from Python 3.12).
SOFT_KEYWORDS = frozenset(keyword.softkwlist) | {"match", "case", "type", "_"}
# Long enough for any name a person gives; a 255-character stored name is cut to this.
MAX_NAME = 60


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
    renamed_because: str = ""

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
        lines = [f"{self.python} = {ATTRIBUTE_CLASSES[self.kind]}({', '.join(options)})"]
        if len(self.seen) > 1 and not in_index:
            lines.insert(0, f"# stored types disagree: {_counts(self.seen)}")
        if self.renamed_because and not in_index:
            lines.insert(0, f"# Attribute renamed because {self.renamed_because}.")
        return "\n".join(lines)


def _counts(seen: Counter) -> str:
    """Return "N in 3 items, S in 1": each stored type and how many sampled items hold it."""
    (first, n), *others = [(_kind(k), m) for k, m in seen.most_common()]
    return ", ".join([f"{first} in {count(n, 'item')}", *(f"{k} in {m}" for k, m in others)])


def _kind(descriptor: str) -> str:
    """Return a type descriptor as a comment may show it: DynamoDB's, else its repr()."""
    return descriptor if descriptor in ATTRIBUTE_CLASSES else repr(descriptor)


def _ascii_words(name: str) -> list[str]:
    """Return the runs of ASCII letters and digits of a name, its accents dropped (`é` is `e`).

    Python folds identifiers with NFKC, so a full-width `\uff2deta` is its `Meta`: we fold the
    same compatibility forms (NFKD) and keep only ASCII, so no two names we write fold to one.
    """
    folded = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return [w for w in re.split(r"[^0-9A-Za-z]+", folded) if w]


def class_name(table_name: str, taken: set[str]) -> str:
    """Return a CamelCase class name for a table (`user-stats` -> `UserStats`), unused so far.

    It shadows no name a written module imports, and differs from the others in more than
    case: Django names a model's URLs and permissions by its lowercased class name.
    """
    name = "".join(w[0].upper() + w[1:] for w in _ascii_words(table_name)) or "Table"
    if name[0].isdigit():
        name = f"Table{name}"
    return _unused(name[:MAX_NAME], taken, MODELS_IMPORTS | ADMIN_IMPORTS, fold_case=True)


def python_name(
    stored: str, taken: set[str], reserved: frozenset[str] = frozenset()
) -> tuple[str, str]:
    """Return the Python name of a stored attribute name, and why it differs ("" if not).

    The stored name is kept when it is an ASCII identifier that is no keyword and shadows
    nothing (a PynamoDB member, or `reserved`: the module's imports and classes); else it is
    made one, as Django's inspectdb renames a column, and the model keeps it in `attr_name`.
    """
    name, why = stored, []
    if not (stored.isascii() and stored.isidentifier()):
        why.append("it was not an ASCII Python identifier")
    elif "__" in stored:  # a dunder, or a `__name` Python mangles; Django's lookups join on `__`
        why.append("it held a double underscore")
    elif stored == "_":
        why.append("it was a Python keyword")
    if why:
        name = "_".join(_ascii_words(stored)) or "attribute"
    if name[0].isdigit():
        name = f"_{name}"
    if len(name) > MAX_NAME:
        name = name[:MAX_NAME]
        why.append(f"it was longer than {MAX_NAME} characters")
    if keyword.iskeyword(name) or name in SOFT_KEYWORDS:
        name = f"{name[: MAX_NAME - 1]}_"
        why.append("it was a Python keyword")
    elif name in MEMBERS or name in reserved:
        name = f"{name[: MAX_NAME - 1]}_"
        why.append("PynamoDB or the module uses that name")
    unused = _unused(name, taken, MEMBERS | reserved)
    if unused != name:
        why.append("another attribute took that name")
    return unused, "; ".join(why)


def _string(value: str) -> str:
    """Return a string literal of the value: its repr(), in double quotes when it needs none."""
    literal = repr(value)
    if literal.startswith("'") and '"' not in value:
        # A '...' repr escapes only ', and only when the value holds a " as well: none here.
        return f'"{literal[1:-1]}"'
    return literal


def _tuple(values: list[str]) -> str:
    """Return a tuple literal of strings, as ruff format writes one."""
    inside = ", ".join(_string(value) for value in values)
    return f"({inside},)" if len(values) == 1 else f"({inside})"


def _unused(
    name: str, taken: set[str], reserved: frozenset[str] = frozenset(), *, fold_case=False
) -> str:
    """Return name, else name2, name3...: the first neither taken, reserved nor a keyword."""
    used = {t.lower() for t in taken} if fold_case else taken

    def free(candidate: str) -> bool:
        return (
            (candidate.lower() if fold_case else candidate) not in used
            and candidate not in reserved
            and not keyword.iskeyword(candidate)
        )

    candidate, n = name, 1
    while not free(candidate):
        n += 1
        candidate = f"{name[: MAX_NAME - len(str(n))]}{n}"
    taken.add(candidate)
    return candidate


def _key_roles(key_schema: list[dict[str, str]]) -> dict[str, str]:
    return {k["AttributeName"]: k["KeyType"] for k in key_schema}


@dataclass
class Inspected:
    """A model to write for one table (or one type of a shared table): class, attributes,
    index classes and, for a type, the item_condition its admin says its items by."""

    sampled: Sampled
    class_name: str
    attributes: list[Attribute]
    indexes: list[tuple[str, str, dict[str, Any], str]]  # class, attribute, index, kind
    item_condition: str = ""

    @property
    def keys(self) -> list[Attribute]:
        return [a for a in self.attributes if a.hash_key] + [
            a for a in self.attributes if a.range_key
        ]


# At most this many types are told apart in one table by their key prefixes; more is taken
# for data (a range key of dates or names), one model for the whole table.
MAX_TYPES = 12
TYPE_WORD = re.compile(r"\A[A-Za-z][A-Za-z0-9_]{0,29}\Z")


def split_by_type(sampled: Sampled) -> tuple[str, list[tuple[str, str, Sampled]]]:
    """Return a single table's key that tells its types, and its sampled items by type.

    The types are the prefixes before `#` of the range key's values (`PROFILE`, `ORDER#…`),
    else of the hash key's: (type, "equal" where every value of it is the prefix itself,
    else "prefix", its items). One type, more than MAX_TYPES, or no text key: ("", []).
    """
    table = sampled.table
    defined = {d["AttributeName"]: d["AttributeType"] for d in table["AttributeDefinitions"]}
    roles = _key_roles(table["KeySchema"])
    for role in ("RANGE", "HASH"):
        name = next((n for n, r in roles.items() if r == role), None)
        if name is None or defined.get(name) != "S":
            continue
        groups: dict[str, list[dict[str, Any]]] = {}
        for item in sampled.items:
            value = item.get(name, {}).get("S", "")
            groups.setdefault(value.split("#", 1)[0], []).append(item)
        types = [
            (
                prefix,
                "equal" if all(i[name]["S"] == prefix for i in items) else "prefix",
                Sampled(table, items),
            )
            for prefix, items in sorted(groups.items())
        ]
        # A type is a word (`ORDER`, `Profile`), and some type's keys go on after a `#`: a
        # key of names or dates (`Amazon S3`, `2015-09-15`) is data, not types.
        words = all(TYPE_WORD.match(prefix) for prefix in groups)
        if 2 <= len(types) <= MAX_TYPES and words and any(k == "prefix" for _, k, _ in types):
            return name, types
    return "", []


def inspect_types(sampled: Sampled, classes: set[str]) -> list[Inspected]:
    """Work out the models of one sampled table: one per type on a single table, else one.

    Each type's model declares the attributes its own items hold, and its admin says which
    items are its own with an item_condition on the key that told the types apart.
    """
    key_name, types = split_by_type(sampled)
    if not types:
        return [inspect(sampled, classes)]
    models = []
    for prefix, kind, items in types:
        one = inspect(items, classes, type_name=prefix)
        key = f"{one.class_name}.{next(a.python for a in one.attributes if a.stored == key_name)}"
        if kind == "equal":
            one.item_condition = f"{key} == {_string(prefix)}"
        else:
            one.item_condition = f"{key}.startswith({_string(prefix + '#')})"
        models.append(one)
    return models


def inspect(sampled: Sampled, classes: set[str], type_name: str = "") -> Inspected:
    """Work out the model of one sampled table, or of one type's items: keys, attributes,
    indexes."""
    table = sampled.table
    model_class = class_name(type_name.lower() or sampled.name, classes)
    index_classes = [
        (_index_class_name(index["IndexName"], model_class, classes), index, kind)
        for key, kind in INDEX_KINDS.items()
        for index in table.get(key, [])
    ]
    defined = {d["AttributeName"]: d["AttributeType"] for d in table["AttributeDefinitions"]}
    roles = _key_roles(table["KeySchema"])
    seen: dict[str, Counter] = {}
    for item in sampled.items:
        for stored, typed in item.items():
            seen.setdefault(stored, Counter())[next(iter(typed))] += 1
    # The table's keys first (hash, range), then every other attribute by its stored name.
    keys = sorted(roles, key=lambda n: roles[n] != "HASH")
    others = sorted((set(defined) | set(seen)) - set(roles), key=lambda n: (n.lower(), n))
    # Named in this order: the keys (so the admin stub, which samples no item, names them as
    # the models do), then the names kept as they are, then those renamed.
    taken: set[str] = set()
    reserved = MODELS_IMPORTS | frozenset(classes)  # the model's body calls its index classes
    named = {stored: python_name(stored, taken, reserved) for stored in keys}
    for kept in (True, False):
        for stored in others:
            if _kept(stored, reserved) == kept:
                named[stored] = python_name(stored, taken, reserved)
    attributes = []
    for stored in keys + others:
        counts = seen.get(stored, Counter())
        kind = defined.get(stored) if stored in roles else None
        kind = kind or (counts.most_common(1)[0][0] if counts else defined[stored])
        python, why = named[stored]
        attributes.append(
            Attribute(
                stored=stored,
                python=python,
                kind=kind,
                hash_key=roles.get(stored) == "HASH",
                range_key=roles.get(stored) == "RANGE",
                # Absent from a sampled item, or never sampled (an index key of an empty table).
                null=stored not in roles
                and (not counts or sum(counts.values()) < len(sampled.items)),
                seen=counts,
                renamed_because=why,
            )
        )
    indexes = [
        (index_class, python_name(_snake(index_class), taken, reserved)[0], index, kind)
        for index_class, index, kind in index_classes
    ]
    return Inspected(sampled, model_class, attributes, indexes)


def _kept(stored: str, reserved: frozenset[str]) -> bool:
    """Return whether python_name keeps this stored name as it is (when no other took it)."""
    return python_name(stored, set(), reserved)[0] == stored


def _index_class_name(index_name: str, model_class: str, classes: set[str]) -> str:
    """Return `PostedByMessageIndex` for `PostedBy-Message-Index`, led by the model's if taken."""
    name = class_name(index_name, set())
    if not name.endswith("Index"):
        name = f"{name[: MAX_NAME - len('Index')]}Index"
    if name.lower() in {c.lower() for c in classes}:
        name = f"{model_class[: MAX_NAME - len(name)]}{name}"
    return _unused(name, classes, MODELS_IMPORTS | ADMIN_IMPORTS, fold_case=True)


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
    return [
        f"{indent}read_capacity_units = {int(read or 0)}",
        f"{indent}write_capacity_units = {int(write or 0)}",
    ]


def _index_source(inspected: Inspected, index_class: str, index: dict, kind: str) -> list[str]:
    by_stored = {a.stored: a for a in inspected.attributes}
    roles = _key_roles(index["KeySchema"])
    keys = sorted(roles, key=lambda n: roles[n] != "HASH")
    lines = [
        f"class {index_class}({kind}):",
        f'    """An index by {", ".join(by_stored[k].python for k in keys)}."""',
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
        f'    """The items of the table below ({count(len(sampled.items), "item")} sampled)."""'
        if not inspected.item_condition
        else f'    """One type of the table below ({count(len(sampled.items), "item")} sampled): '
        f'its admin\'s item_condition says which."""',
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
    lines = [
        f'"""Plain PynamoDB models of {count(len(inspected), "table")}.',
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
    taken = set(classes)
    lines = [
        '"""The admin of the models `manage.py inspect_tables` wrote: one registration each."""',
        "",
        "from dynamo_admin import ModelAdmin, register",
        "",
        f"from {models_module} import {', '.join(classes)}",
        "",
    ]
    for one in inspected:
        admin_class = f"{one.class_name[: MAX_NAME - len('Admin')]}Admin"
        admin_class = _unused(admin_class, taken, ADMIN_IMPORTS)
        lines += [
            "",
            f"@register({one.class_name})",
            f"class {admin_class}(ModelAdmin):",
            f"    list_display = {_tuple([k.python for k in one.keys])}",
            f"    {_search_fields(one.keys[0])}",
            *([f"    item_condition = {one.item_condition}"] if one.item_condition else []),
            "",
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


def _search_fields(hash_key: Attribute) -> str:
    """Return the search by partition key, naming the key as Django names a field."""
    return f"search_fields = {_tuple([f'={hash_key.python}'])}"
