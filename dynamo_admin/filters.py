"""List filters: each one is an index, and choosing a value turns the listing into one read of it.

An `IndexFilter` queries a GSI on a partition value; a `SparseIndexFilter` scans a sparse GSI
(only the items that carry its key, such as soft-deleted users). A `list_filter` entry is an
attribute name (the GSI whose partition key it is, values typed in), an `(attribute, choices)`
pair, or a subclass of either class.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pynamodb.expressions.condition import Condition

from dynamo.indexes import GlobalIndex
from dynamo.models import DynamoModel

from .keys import hash_key_names, indexes_of, parse_key_value, range_key_names
from .sources import IndexQuery, IndexScan, Source


def index_partitioned_by(model: type[DynamoModel], attribute: str) -> GlobalIndex | None:
    """Return the GSI whose (single) partition key is this attribute, if one serves it."""
    for index in indexes_of(model).values():
        if hash_key_names(index) == [attribute]:
            return index
    return None


class ListFilter:
    """A filter of the changelist sidebar, with the API of Django's SimpleListFilter.

    `lookups(request, model_admin)` offers (value, label) pairs (None offers a text box),
    `value()` is the chosen one, `choices(changelist)` yields the links Django's
    `admin/filter.html` renders, and `source(value)` (where Django has `queryset()`) returns
    the one read that serves the chosen value.
    """

    title = ""
    parameter_name = ""
    index_name = ""
    template = "admin/filter.html"

    def __init__(self, request, params, model: type[DynamoModel], model_admin) -> None:
        self.request = request
        self.model = model
        self.model_admin = model_admin
        self.used_parameters: dict[str, str] = {}
        chosen = params.get(self.parameter_name)
        if chosen:
            self.used_parameters[self.parameter_name] = chosen
        lookups = self.lookups(request, model_admin)
        self.lookup_choices = None if lookups is None else list(lookups)
        if self.lookup_choices is None:
            self.template = "dynamo_admin/filter_text.html"

    def value(self) -> str | None:
        """Return the value chosen in the query string, or None."""
        return self.used_parameters.get(self.parameter_name)

    def has_output(self) -> bool:
        return True

    def expected_parameters(self) -> list[str]:
        return [self.parameter_name]

    def lookups(self, request, model_admin) -> Iterable[tuple[str, str]] | None:
        """Return (value, label) pairs to offer; None offers a text box instead."""
        return None

    def choices(self, changelist) -> Iterable[dict[str, Any]]:
        """Yield each choice's `selected`, `query_string` and `display`, as Django's filters."""
        yield {
            "selected": self.value() is None,
            "query_string": changelist.choose(self.parameter_name, None),
            "display": _("All"),
        }
        for lookup, label in self.lookup_choices or ():
            yield {
                "selected": self.value() == str(lookup),
                "query_string": changelist.choose(self.parameter_name, str(lookup)),
                "display": label,
            }

    def index(self) -> GlobalIndex:
        return indexes_of(self.model)[self.index_name]

    @classmethod
    def sort_keys(cls, model: type[DynamoModel]) -> list[str]:
        """Return the attributes the filter's reads list by (its index's first sort key)."""
        index = indexes_of(model).get(cls.index_name)
        return range_key_names(index)[:1] if index is not None else []

    def source(self, value: str) -> Source:
        """Return the read that lists the items of the chosen value (Django's queryset())."""
        raise NotImplementedError

    def condition(self, value: str) -> tuple[str, Condition] | None:
        """Return the chosen value as (attribute, condition on items) to narrow a search."""
        index = indexes_of(self.model).get(self.index_name)
        if index is None:
            return None
        name = hash_key_names(index)[0]
        attribute = self.model.get_attributes()[name]
        return name, getattr(self.model, name) == parse_key_value(attribute, value)


class IndexFilter(ListFilter):
    """Query one GSI on the chosen partition value."""

    def source(self, value: str) -> Source:
        index = self.index()
        attribute = self.model.get_attributes()[hash_key_names(index)[0]]
        return IndexQuery(index, parse_key_value(attribute, value))


class SparseIndexFilter(ListFilter):
    """Scan a sparse GSI: only items carrying its key are in it (one page, with a limit)."""

    label = gettext_lazy("Yes")

    def lookups(self, request, model_admin) -> Iterable[tuple[str, str]] | None:
        return [("yes", self.label)]

    def source(self, value: str) -> Source:
        return IndexScan(self.index())

    def condition(self, value: str) -> tuple[str, Condition] | None:
        name = hash_key_names(self.index())[0]
        return name, getattr(self.model, name).exists()


def filter_class_for(model: type[DynamoModel], entry: Any) -> type[ListFilter] | None:
    """Return the filter class a `list_filter` entry declares; None if no index serves it."""
    if isinstance(entry, type) and issubclass(entry, ListFilter):
        return entry
    attribute, choices = (entry, None) if isinstance(entry, str) else entry
    index = index_partitioned_by(model, attribute)
    if index is None:
        return None
    fixed = None if choices is None else [(str(c), str(c)) for c in choices]
    return type(
        f"{attribute.title().replace('_', '')}Filter",
        (IndexFilter,),
        {
            "title": attribute.replace("_", " "),
            "parameter_name": attribute,
            "index_name": index.Meta.index_name,
            "lookups": lambda self, request, model_admin: fixed,
        },
    )
