"""System checks: a DynamoModelAdmin that no index or key can serve fails at start-up."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.admin.utils import flatten_fieldsets
from django.core import checks
from pynamodb.exceptions import PynamoDBException, TableDoesNotExist
from pynamodb.expressions.condition import Condition

from .claims import attribute_names, holds, item_condition
from .filters import ListFilter, filter_class_for
from .keys import hash_key_names, indexes_of, python_name, range_key_names, stored_key_names
from .meta import meta
from .models import AdminLog
from .sources import FilteredScan, claimed_read, word_index_of

if TYPE_CHECKING:
    from .options import DynamoModelAdmin


def _error(model_admin: DynamoModelAdmin, message: str, hint: str, number: int) -> checks.Error:
    return checks.Error(message, hint=hint, obj=type(model_admin), id=f"dynamo_admin.E{number:03d}")


class DynamoModelAdminChecks:
    """A DynamoModelAdmin's checks_class, as Django's ModelAdminChecks: check(admin_obj)."""

    def check(self, admin_obj: DynamoModelAdmin, **kwargs: Any) -> list[checks.CheckMessage]:
        return check_model_admin(admin_obj)


def check_model_admin(model_admin: DynamoModelAdmin) -> list[checks.CheckMessage]:
    """Return every misconfiguration of one registration."""
    unkeyed = check_hash_key(model_admin)
    if unkeyed:
        return unkeyed  # every other check reads the key
    inlines = [inline(model_admin.model, model_admin.admin_site) for inline in model_admin.inlines]
    return [
        *[error for inline in inlines for error in check_autocomplete_fields(inline)],
        *check_list_filter(model_admin),
        *check_search_fields(model_admin),
        *check_date_hierarchy(model_admin),
        *check_ordering(model_admin),
        *check_ordering_is_served(model_admin),
        *check_autocomplete_fields(model_admin),
        *check_list_display(model_admin),
        *check_fields(model_admin),
        *check_inlines(model_admin),
        *check_list_per_page(model_admin),
        *check_item_condition(model_admin),
        *check_listed_by_scan(model_admin),
    ]


def check_hash_key(model_admin) -> list[checks.CheckMessage]:
    """Refuse a model no class of its family gives a hash key (a discriminator family's base).

    PynamoDB builds such a class and scans with it, but every keyed call (GetItem, a write, a
    Query) raises "No hash_key found in key schema": the admin could open none of its items.
    """
    model = model_admin.model
    if meta(model).keyed:
        return []
    keyed = sorted(c.__name__ for c in family_of(model) if c._hash_keyname is not None)
    if keyed:
        hint = (
            f"Register the classes of its family that declare the key ({', '.join(keyed)}) "
            f"instead of {model.__name__}."
        )
    else:
        hint = (
            f"Declare the table's partition key on {model.__name__} with hash_key=True "
            "(and its sort key with range_key=True), as the table's key schema has them."
        )
    message = (
        f"{model.__name__} declares no hash key, nor does a class it inherits from: the admin "
        "can neither read nor write one of its items by key."
    )
    return [_error(model_admin, message, hint, 14)]


def family_of(model) -> list[type]:
    """Return the model's subclasses, at every depth."""
    found = []
    for subclass in model.__subclasses__():
        found += [subclass, *family_of(subclass)]
    return found


def check_list_filter(model_admin) -> list[checks.CheckMessage]:
    errors = []
    model = model_admin.model
    for entry in model_admin.list_filter:
        if isinstance(entry, type) and issubclass(entry, ListFilter):
            if entry.index_name not in indexes_of(model):
                errors.append(
                    _error(
                        model_admin,
                        f"list_filter {entry.__name__} names the index {entry.index_name!r}, "
                        f"which {model.__name__} does not declare.",
                        f"Declare one of: {', '.join(sorted(indexes_of(model)))}.",
                        1,
                    )
                )
            continue
        valid_shape = isinstance(entry, str) or (isinstance(entry, tuple) and len(entry) == 2)
        if not valid_shape or filter_class_for(model, entry) is None:
            errors.append(
                _error(
                    model_admin,
                    f"list_filter entry {entry!r}: no global index of {model.__name__} has it as "
                    "its partition key, so filtering on it would need a Scan.",
                    "Filter on an index's partition key attribute, or add an index for it.",
                    1,
                )
            )
    return errors


def check_search_fields(model_admin) -> list[checks.CheckMessage]:
    errors = []
    keys = stored_key_names(model_admin.model)
    by_python_name = dict(zip(meta(model_admin.model).key_names, keys, strict=True))
    words = getattr(model_admin.model, "word_index", None)
    worded = set(words.fields) if words is not None else set()
    for entry in model_admin.search_fields:
        name = entry.lstrip("=^")
        name = by_python_name.get(name, name)  # a key named as Django names a field
        if name in worded and name not in keys:
            continue  # found through the model's word index
        if name not in keys:
            errors.append(
                _error(
                    model_admin,
                    f"search_fields entry {entry!r} is not a key attribute of the "
                    f"{model_admin.model.__name__} table nor in its word index, so searching it "
                    "would need a Scan.",
                    f"Search on the table's keys ({', '.join(keys)}) or give the model a "
                    "word_index (dynamo.words.WordIndex) holding the field.",
                    2,
                )
            )
        elif entry.startswith("^") and name == keys[0]:
            errors.append(
                _error(
                    model_admin,
                    f"search_fields entry {entry!r} asks for a prefix search on the partition key.",
                    "DynamoDB matches a partition key exactly; only a sort key takes a prefix.",
                    3,
                )
            )
    return errors


def check_date_hierarchy(model_admin) -> list[checks.CheckMessage]:
    name = model_admin.date_hierarchy
    if not name:
        return []
    index = indexes_of(model_admin.model).get(name)
    if index is None or not range_key_names(index):
        return [
            _error(
                model_admin,
                f"date_hierarchy {name!r} is not a global index with a sort key on "
                f"{model_admin.model.__name__}.",
                "Name an index partitioned by month (YYYY-MM) and sorted by time.",
                4,
            )
        ]
    return []


def sort_keys(model) -> set[str]:
    """Return the table's and the indexes' first sort keys."""
    sortable = set(stored_key_names(model)[1:])
    for index in indexes_of(model).values():
        sortable.update(range_key_names(index)[:1])
    return sortable


def check_ordering(model_admin) -> list[checks.CheckMessage]:
    model = model_admin.model
    sortable = sort_keys(model)
    return [
        _error(
            model_admin,
            f"ordering entry {entry!r} is not the sort key of {model.__name__}'s table or of "
            "one of its indexes.",
            f"Order by one of: {', '.join(sorted(sortable))} (prefix '-' for descending).",
            5,
        )
        for entry in model_admin.ordering
        if entry.lstrip("-") not in sortable
    ]


def served_orders(model_admin) -> set[str]:
    """Return the attributes this admin's reads list by: whole-table, filters, search, months."""
    model = model_admin.model
    served = set(model_admin.get_ordered_reads(None))
    for entry in model_admin.list_filter:
        filter_class = filter_class_for(model, entry)
        if filter_class is not None:
            served.update(filter_class.sort_keys(model))
    if model_admin.search_fields:
        served.update(stored_key_names(model)[1:])
        words = word_index_of(model)
        if words is not None and set(words.fields) & {
            f.lstrip("=^") for f in model_admin.search_fields
        }:
            served.update(words.fields[:1])  # a word search lists by the matched word
    date_index = model_admin.get_date_hierarchy_index(None)
    if date_index is not None:
        served.update(range_key_names(date_index)[:1])
    return served


def check_ordering_is_served(model_admin) -> list[checks.CheckMessage]:
    """Refuse an ordering entry none of this admin's reads lists by (it would need a Scan)."""
    model = model_admin.model
    served = served_orders(model_admin)
    return [
        _error(
            model_admin,
            f"ordering entry {entry!r}: no read of this admin lists {model.__name__} by it.",
            "Order the whole listing by an index partitioned by an attribute with "
            "field_choices (its partitions are merged) or by the date_hierarchy index's sort "
            "key (newest first), or add a list_filter or search whose index is sorted by it. "
            f"Served here: {', '.join(sorted(served)) or 'nothing'}.",
            10,
        )
        for entry in model_admin.ordering
        # An entry that is no sort key at all is E005's to report.
        if entry.lstrip("-") not in served and entry.lstrip("-") in sort_keys(model)
    ]


def check_autocomplete_fields(admin) -> list[checks.CheckMessage]:
    """Refuse an autocomplete field that names no other table (the model's `references`)."""
    references = meta(admin.model).references
    return [
        _error(
            admin,
            f"autocomplete_fields entry {name!r} is not one of {admin.model.__name__}'s "
            "references to another table.",
            f"Name it in {admin.model.__name__}.references ({{attribute: model}}) and register "
            "that model's admin; its get_autocomplete_results answers the widget.",
            11,
        )
        for name in admin.autocomplete_fields
        if name not in references
    ]


def _known(model_admin, name: Any) -> bool:
    if callable(name) or name == "__str__":
        return True
    return (
        name in model_admin.model.get_attributes()
        or callable(getattr(model_admin, name, None))
        or hasattr(model_admin.model, name)
    )


def check_list_display(model_admin) -> list[checks.CheckMessage]:
    return [
        _error(
            model_admin,
            f"list_display entry {name!r} is neither an attribute of "
            f"{model_admin.model.__name__} nor a method of the admin.",
            "Name an attribute, a callable or a method of the admin class.",
            6,
        )
        for name in model_admin.list_display
        if not _known(model_admin, name)
    ]


def check_fields(model_admin) -> list[checks.CheckMessage]:
    names = list(model_admin.fields or ())
    if model_admin.fieldsets:
        names += flatten_fieldsets(model_admin.fieldsets)
    names += list(model_admin.readonly_fields)
    return [
        _error(
            model_admin,
            f"{name!r} (in fields, fieldsets or readonly_fields) is not an attribute of "
            f"{model_admin.model.__name__}.",
            "Name the model's attributes (or, read-only, a method of the admin).",
            7,
        )
        for name in dict.fromkeys(names)
        if not _known(model_admin, name)
    ]


def check_inlines(model_admin) -> list[checks.CheckMessage]:
    errors = []
    for inline in model_admin.inlines:
        keys = stored_key_names(inline.model)
        fk_stored = stored_name(inline.model, inline.fk_name)
        index_keys = [hash_key_names(index) for index in indexes_of(inline.model).values()]
        # An adjacency list: an attribute outside the table's key holding the parent's key.
        adjacency = fk_stored not in keys and [fk_stored] in index_keys
        if fk_stored != keys[0] and not adjacency:
            errors.append(
                _error(
                    model_admin,
                    f"Inline {inline.__name__}: fk_name {inline.fk_name!r} is not the "
                    f"partition key of the {inline.model.__name__} table or of one of its "
                    "indexes: not one Query.",
                    f"Set fk_name = {keys[0]!r}.",
                    8,
                )
            )
            continue
        instance = inline(model_admin.model, model_admin.admin_site)
        shared = inline.model.Meta.table_name == model_admin.model.Meta.table_name
        if shared and item_condition(inline.model, instance.get_item_condition()) is None:
            errors.append(
                _error(
                    model_admin,
                    f"Inline {inline.__name__}: {inline.model.__name__} shares the "
                    f"{model_admin.model.__name__} table, and nothing says which of its items "
                    "are rows: the parent's own item and other types' would be rows too.",
                    f"Give {inline.model.__name__}'s admin (or the inline) an item_condition "
                    f"on its range key, e.g. item_condition = {inline.model.__name__}."
                    f'{python_name(inline.model, keys[-1])}.startswith("ORDER#").',
                    13,
                )
            )
    return errors


def stored_name(model, name: str) -> str:
    """Return the stored name of an attribute named by its Python or its stored name."""
    attribute = model.get_attributes().get(name)
    return attribute.attr_name if attribute is not None else name


def check_item_condition(model_admin) -> list[checks.CheckMessage]:
    """Refuse an item_condition that is no condition on key attributes DynamoDB can evaluate."""
    condition = model_admin.item_condition
    if condition is None:
        return []
    model = model_admin.model
    keys = set(stored_key_names(model))
    for index in indexes_of(model).values():
        keys |= {*hash_key_names(index), *range_key_names(index)}
    hint = (
        "Write it as in Model.query, on key attributes: "
        f'item_condition = {model.__name__}.{meta(model).key_names[-1]}.startswith("PREFIX#").'
    )
    if not isinstance(condition, Condition):
        message = f"item_condition of {model.__name__} is not a PynamoDB condition."
        return [_error(model_admin, message, hint, 12)]
    try:
        holds(condition, {})
    except ValueError as exc:
        return [_error(model_admin, f"item_condition of {model.__name__}: {exc}.", hint, 12)]
    others = attribute_names(condition) - keys
    if others:
        message = (
            f"item_condition of {model.__name__} reads {', '.join(sorted(others))}, which no "
            "key of the table or of an index holds: no read could keep to its items."
        )
        return [_error(model_admin, message, hint, 12)]
    return []


def check_listed_by_scan(model_admin) -> list[checks.CheckMessage]:
    """Warn where a type on a shared table can only be listed by a filtered Scan."""
    model = model_admin.model
    condition = item_condition(model)
    if not isinstance(claimed_read(model, condition), FilteredScan):
        return []
    indexes = indexes_of(model)
    name = meta(model).object_name
    if meta(model).discriminator_name:
        hint = (
            f"Add a global index partitioned by the discriminator "
            f"{meta(model).discriminator_name} (a type index): the listing is then one Query."
        )
    elif indexes:
        index_name, index = next(iter(sorted(indexes.items())))
        key = python_name(model, hash_key_names(index)[0])
        hint = (
            f"If every {name}'s {key} holds one value, say so in item_condition "
            f'(`& ({name}.{key} == "{name.upper()}")`) and the listing is a Query of the index '
            f"{index_name}; or add a sparse index keyed by an attribute only {name} items hold."
        )
    else:
        hint = (
            f"Add a sparse global index keyed by an attribute only {name} items hold (a constant "
            f'per type, e.g. GSI1PK = "{name.upper()}") and name it in item_condition.'
        )
    message = (
        f"{name} shares its table and only a filtered Scan lists its items: each page reads "
        "items of every type, up to list_read_budget."
    )
    return [checks.Warning(message, hint=hint, obj=type(model_admin), id="dynamo_admin.W013")]


def check_list_per_page(model_admin) -> list[checks.CheckMessage]:
    per_page = model_admin.list_per_page
    if isinstance(per_page, int) and 1 <= per_page <= 500:
        return []
    return [_error(model_admin, "list_per_page must be a whole number from 1 to 500.", "", 9)]


def check_admin_apps(app_configs=None, installed=None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Refuse Django's admin app installed beside the AdminConfig that replaces it."""
    installed = settings.INSTALLED_APPS if installed is None else installed
    if "django.contrib.admin" in installed and "dynamo_admin.apps.AdminConfig" in installed:
        return [
            checks.Error(
                "django.contrib.admin and dynamo_admin.apps.AdminConfig are both installed.",
                hint="Remove 'django.contrib.admin' from INSTALLED_APPS: "
                "dynamo_admin.apps.AdminConfig is Django's admin app, on a site that also "
                "serves PynamoDB models.",
                id="dynamo_admin.E100",
            )
        ]
    return []


def check_log_table(app_configs=None, databases=None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Warn when the admin's log table or one of its indexes is missing (a `database` check).

    Run by `manage.py check --database default` and by `migrate`: it reads DynamoDB
    (DescribeTable), so the plain `check` leaves it out, as Django does with its database checks.
    """
    if not databases:
        return []
    name = AdminLog.Meta.table_name
    fix = "Run `python manage.py create_tables`: it makes the table and its indexes."
    try:
        described = AdminLog.describe_table()
    except TableDoesNotExist:
        message = f"The admin's log table {name} does not exist: saves in the admin would fail."
        return [checks.Warning(message, hint=fix, id="dynamo_admin.W101")]
    except (PynamoDBException, OSError) as exc:
        message = f"The admin's log table {name} could not be read: {exc}"
        return [checks.Warning(message, id="dynamo_admin.W102")]
    present = {index["IndexName"] for index in described.get("GlobalSecondaryIndexes", [])}
    missing = sorted(set(AdminLog._indexes) - present)
    if missing:
        message = f"The admin's log table {name} lacks the index(es) {', '.join(missing)}."
        return [checks.Warning(message, hint=fix, id="dynamo_admin.W103")]
    return []
