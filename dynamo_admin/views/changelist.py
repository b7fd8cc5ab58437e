"""ChangeList: the query string turned into one DynamoDB read, its columns and its page links.

The search (a key lookup), a list filter or the date hierarchy each pick one Query or GetItem;
with none of them the listing is a Scan with a limit. The others chosen beside it narrow that
one read where DynamoDB can (its key condition or filter expression), and the page says which
cannot; as in Django's changelist, every link keeps the other choices and the sort. Pages move
through signed cursors, never offsets or counts. The reads are planned in
dynamo_admin/sources.py; ChangeListViews is the page, as DynamoModelAdmin's methods.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import partial
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.http import HttpResponseRedirect, QueryDict
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.http import urlencode
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from dynamo.batch import BATCH_GET_LIMIT, get_together
from dynamo.cursors import InvalidCursor
from dynamo.limits import keys_fit
from dynamo.models import DynamoModel
from dynamo.words import BadSearch

from .. import pagination
from ..claims import item_condition, split_for_query
from ..display import display
from ..keys import hash_key_names, key_values, object_id, range_key_names, stored_key_names
from ..meta import label_of, meta, pk_of
from ..sources import (
    IndexQuery,
    MonthWalk,
    OrderedReads,
    PartitionQuery,
    Source,
    TableQuery,
    TableScan,
    WordSearch,
    claimed_read,
    key_terms,
    ordered_reads,
    search_read,
    word_index_of,
)
from ..stored import load

if TYPE_CHECKING:
    from ..options import DynamoModelAdmin

SEARCH_VAR, ORDER_VAR, CURSOR_VAR, YEAR_VAR = "q", "o", "cursor", "year"
MONTH_RE = re.compile(r"\A\d{4}-(0[1-9]|1[0-2])\Z")


class BadQuery(ValueError):
    """A query string value the listing cannot read (shown as a 400 page)."""


@dataclass
class Column:
    """A changelist column: its name, header text and the sort link when it is the sort key."""

    name: str
    header: str
    sort_url: str = ""
    sorted: str = ""  # "ascending", "descending" or ""


@dataclass
class Row:
    """One item of the page: its cells, its change URL and its object id for actions."""

    item: DynamoModel
    object_id: str
    url: str
    cells: list[str]

    @property
    def label(self) -> str:
        return label_of(self.item)


class ChangeList:
    """The listing of one changelist request: which read, which page, which links."""

    def __init__(self, request, model_admin: DynamoModelAdmin) -> None:
        self.request = request
        self.model_admin = model_admin
        self.model: type[DynamoModel] = model_admin.model
        self.params: dict[str, str] = {k: v for k, v in request.GET.items()}
        self.query = self.params.get(SEARCH_VAR, "").strip()
        self.per_page = model_admin.get_list_per_page(request)
        self.search_fields = model_admin.get_search_fields(request)
        self.filters = [
            cls(request, self.params, self.model, model_admin)
            for cls in model_admin.get_list_filter_classes(request)
        ]
        self.date_index = model_admin.get_date_hierarchy_index(request)
        self.list_display = list(model_admin.get_list_display(request))
        self.order = self.get_order()
        # A search's narrowing: the filters in its Query, and those it cannot take.
        self.combined: list[str] = []
        self.uncombined: list[str] = []
        # Without a search: the filter (or month) whose read lists the page, the others
        # narrowing it, and those that cannot.
        self.applied = ""
        self.narrowed_by: list[str] = []
        self.not_applied: list[str] = []
        self.ordered_reads = model_admin.get_ordered_reads(request)
        # Set by get_search_results: the page then drops an item already listed on it.
        self.may_have_duplicates = False
        self.source, self.active = self.get_source()
        self.forward = self.get_direction()
        opts = meta(self.model)
        self.scope = f"{opts.app_label}.{opts.model_name}|{self.source.scope(self.forward)}"
        try:
            self.position = pagination.decode(self.params.get(CURSOR_VAR), self.scope)
        except InvalidCursor as exc:
            raise BadQuery(str(exc)) from exc
        try:
            self.page = self.source.page(
                self.model, self.per_page, self.position.start, self.forward
            )
        except BadSearch as exc:
            raise BadQuery(str(exc)) from exc
        if self.may_have_duplicates:
            # As Django's distinct(): each item once, where it first comes.
            first = {}
            for item in self.page.items:
                first.setdefault(pk_of(item), item)
            self.page.items = list(first.values())

    @property
    def search_help(self) -> str:
        """Return what the search finds, in words: `Finds by the exact username or ...`."""
        return search_help(self.model, self.search_fields)

    # --- which read -----------------------------------------------------------------------
    def get_source(self) -> tuple[Source, str]:
        """Return the read this query string asks for and the parameter that chose it."""
        listing = self.listing_source()
        if self.query:
            try:
                source, self.may_have_duplicates = self.model_admin.get_search_results(
                    self.request, listing, self.query
                )
            except ValueError as exc:
                raise BadQuery(str(exc)) from exc
            if source is not listing:
                return self.combine(source), SEARCH_VAR
        chosen = self.chosen_reads()
        if chosen:
            return self.narrowed(chosen)
        return listing, ""

    def chosen_reads(self) -> list[tuple[str, str, Source]]:
        """Return each chosen filter's and month's parameter, title and read, in sidebar order."""
        chosen = []
        for list_filter in self.filters:
            if list_filter.value() is not None:
                try:
                    source = list_filter.source(list_filter.value())
                except (ValueError, KeyError) as exc:
                    message = _("Bad %(title)s filter: %(problem)s")
                    raise BadQuery(message % {"title": list_filter.title, "problem": exc}) from exc
                chosen.append((list_filter.parameter_name, str(list_filter.title), source))
        month = self.chosen_month()
        if month:
            chosen.append((self.date_parameter, _("month"), IndexQuery(self.date_index, month)))
        return chosen

    def narrowed(self, chosen: list[tuple[str, str, Source]]) -> tuple[Source, str]:
        """Return the chosen read the other choices narrow best, and the parameter that chose it.

        Each other filter or month narrows it in the same Query (a key condition on its sort
        key, else a filter expression). The read kept leaves the fewest choices unapplied;
        among equals, one sorted by the `o` column (so the sort stays), else the sidebar's
        first. `not_applied` names the choices it cannot be narrowed by: the page says so.
        """
        sort = self.order[0]
        chosen = sorted(chosen, key=lambda read: sort is None or sort not in read[2].sort_keys[:1])
        best = None
        for parameter, title, source in chosen:
            narrowed_by, not_applied = self.narrow(source, self.chosen_narrowings(skip=parameter))
            if best is None or len(not_applied) < len(best[4]):
                best = (source, parameter, title, narrowed_by, not_applied)
            if not not_applied:
                break
        source, parameter, self.applied, self.narrowed_by, self.not_applied = best
        return source, parameter

    def chosen_month(self) -> str:
        """Return the date hierarchy's chosen month (`YYYY-MM`), or ""."""
        month = self.params.get(self.date_parameter, "") if self.date_index is not None else ""
        if month and not MONTH_RE.match(month):
            raise BadQuery(_("Choose a month as YYYY-MM."))
        return month

    def listing_source(self) -> Source:
        """Return the read of the whole table: in the chosen or declared order, else a Scan.

        On a table the model shares with other types, its own items' read (get_type_read: a
        Query where its condition or discriminator fixes a partition, else a filtered Scan)
        comes before a declared order, which would read the other types' items too.
        """
        reads = self.ordered_reads
        own = self.model_admin.get_type_read(self.request)
        declared = self.declared_order() if own is None else []
        for name, forward in [self.order, *declared]:
            if name in reads and forward in reads[name][1]:
                return reads[name][0]
        return own if own is not None else TableScan()

    def chosen_narrowings(self, skip: str = "") -> list[tuple[str, tuple[str, Any] | None]]:
        """Return each chosen filter's and month's title and (attribute, condition on items).

        `skip` leaves out the filter or month of that parameter (the one whose read is kept).
        """
        chosen = []
        for list_filter in self.filters:
            if list_filter.value() is not None and list_filter.parameter_name != skip:
                try:
                    narrowing = list_filter.condition(list_filter.value())
                except (ValueError, KeyError) as exc:
                    message = _("Bad %(title)s filter: %(problem)s")
                    raise BadQuery(message % {"title": list_filter.title, "problem": exc}) from exc
                chosen.append((str(list_filter.title), narrowing))
        month = self.chosen_month()
        if month and self.date_parameter != skip:
            name = self.date_parameter
            chosen.append((_("month"), (name, getattr(self.model, name) == month)))
        return chosen

    def combine(self, source: Source) -> Source:
        """Narrow a search's Query by the chosen filters, in the same Query.

        `combined` names the filters it is narrowed by, `uncombined` those it cannot be (see
        narrow()), and the page says so.
        """
        self.combined, self.uncombined = self.narrow(source, self.chosen_narrowings())
        return source

    def narrow(
        self, source: Source, narrowings: list[tuple[str, tuple[str, Any] | None]]
    ) -> tuple[list[str], list[str]]:
        """Narrow a Query by each (title, narrowing); return the titles it took and refused.

        On the Query's sort key a narrowing is its key condition; on another attribute, its
        filter expression (still one Query; its read capacity is that of what the Query
        walks, in the footer). A key attribute DynamoDB refuses in a filter expression, a
        GetItem, a Scan and a word search cannot be narrowed.
        """
        combined: list[str] = []
        uncombined: list[str] = []
        if not isinstance(source, PartitionQuery):
            return combined, [title for title, _ in narrowings]
        keys = set(stored_key_names(self.model))
        index = getattr(source, "index", None)
        if index is not None:
            keys |= {*hash_key_names(index), *range_key_names(index)}
        for title, narrowing in narrowings:
            name, condition = narrowing if narrowing is not None else ("", None)
            if condition is None:
                uncombined.append(title)
            elif name in source.sort_keys[:1] and source.range_key_condition is None:
                source.range_key_condition = condition
                combined.append(title)
            elif name in keys:
                uncombined.append(title)
            else:
                source.filter_condition = (
                    condition
                    if source.filter_condition is None
                    else source.filter_condition & condition
                )
                combined.append(title)
        return combined, uncombined

    def get_order(self) -> tuple[str, bool] | tuple[None, None]:
        """Return the column and direction Django's `?o=` asks for (`o=2`, `o=-2`)."""
        order = self.params.get(ORDER_VAR, "")
        number = order.removeprefix("-")
        if number.isascii() and number.isdigit() and int(number) < len(self.list_display):
            entry = self.list_display[int(number)]
            if isinstance(entry, str):
                return entry, not order.startswith("-")
        return None, None

    def declared_order(self) -> list[tuple[str, bool]]:
        """Return the admin's `ordering` as (attribute, ascending) pairs."""
        entries = self.model_admin.get_ordering(self.request)
        return [(entry.lstrip("-"), not entry.startswith("-")) for entry in entries]

    def get_direction(self) -> bool:
        """Return True for ascending sort-key order: the `o` parameter, else `ordering`."""
        if isinstance(self.source, MonthWalk):
            return False  # newest first only: the first month with sign-ups is not known
        order = self.params.get(ORDER_VAR)
        if order in ("asc", "desc"):
            return order == "asc"
        for name, forward in [self.order, *self.declared_order()]:
            if name is not None and name in self.source.sort_keys[:1]:
                return forward
        return True

    @property
    def date_parameter(self) -> str:
        return hash_key_names(self.date_index)[0] if self.date_index is not None else ""

    # --- links ----------------------------------------------------------------------------
    def get_query_string(self, new: dict[str, Any] | None = None, remove=()) -> str:
        """Return `?...` with parameters set or removed; any change restarts at page one."""
        params = {k: v for k, v in self.params.items() if k not in remove and k != CURSOR_VAR}
        for key, value in (new or {}).items():
            if value is None:
                params.pop(key, None)
            else:
                params[key] = value
        return f"?{urlencode(sorted(params.items()))}" if params else "?"

    def choose(self, parameter: str, value: str | None) -> str:
        """Return the link that sets one parameter and keeps the others, as Django's filters do.

        The search, the other filters, the month and the sort (`o`) stay: the listing reads
        through one of them and the others narrow that read where DynamoDB can.
        """
        return self.get_query_string({parameter: value})

    def page_link(self, position: pagination.Position | None) -> str | None:
        if position is None:
            return None
        token = pagination.encode(position, self.scope)
        params = QueryDict(mutable=True)
        params.update({k: v for k, v in self.params.items() if k != CURSOR_VAR})
        if token:
            params[CURSOR_VAR] = token
        return f"?{params.urlencode()}" if params else "?"

    @property
    def next_url(self) -> str | None:
        start = self.page.next_start
        return self.page_link(self.position.next(start)) if start else None

    @property
    def previous_url(self) -> str | None:
        return self.page_link(self.position.previous())

    @property
    def first_url(self) -> str | None:
        return self.page_link(pagination.Position()) if self.position.start else None

    # --- columns and rows -----------------------------------------------------------------
    def columns(self) -> list[Column]:
        """Return the headers; one an index can list by links to that order (Django's `?o=`).

        The column the page is sorted by toggles its direction where the read allows both.
        Without a filter, search or month, the columns an ordered read serves are sortable;
        with one, the column of that read's sort key.
        """
        columns = []
        sort_key = self.source.sort_keys[0] if self.source.ordered else None
        reads = {} if self.active else self.ordered_reads
        for number, entry in enumerate(self.list_display):
            name = entry if isinstance(entry, str) else entry.__name__
            column = Column(name, self.model_admin.column_header(entry))
            if name == sort_key:
                column.sorted = "ascending" if self.forward else "descending"
                directions = reads[name][1] if name in reads else (True, False)
                if (not self.forward) in directions:
                    column.sort_url = self.order_link(number, not self.forward)
            elif name in reads:
                column.sort_url = self.order_link(number, reads[name][1][0])
            columns.append(column)
        return columns

    def order_link(self, number: int, forward: bool) -> str:
        return self.get_query_string({ORDER_VAR: str(number) if forward else f"-{number}"})

    def rows(self) -> list[Row]:
        names = self.model_admin.get_list_display(self.request)
        empties = [self.model_admin.empty_value_for(name) for name in names]
        info = (meta(self.model).app_label, meta(self.model).model_name)
        rows = []
        for item in self.page.items:
            oid = object_id(item)
            url = reverse(f"admin:{info[0]}_{info[1]}_change", args=[oid])
            cells = [
                display(self.model_admin.value_for(item, name), empty)
                for name, empty in zip(names, empties, strict=True)
            ]
            rows.append(Row(item, oid, url, cells))
        return rows

    # --- what Django's actions bar reads ------------------------------------------------
    @property
    def result_list(self) -> list[DynamoModel]:
        """Return the items of this page."""
        return self.page.items

    @property
    def result_count(self) -> int:
        """Return the page's item count: DynamoDB counts no more without reading it all.

        Django's action bar offers "Select all N" across pages when this differs from the
        page's count; a cursor listing has no such total, so an action takes the page.
        """
        return len(self.page.items)

    @property
    def show_admin_actions(self) -> bool:
        return bool(self.page.items)

    # --- sidebar --------------------------------------------------------------------------
    def date_hierarchy(self) -> dict[str, Any] | None:
        """Return the year and month links of the date hierarchy, none after today's month."""
        if self.date_index is None:
            return None
        chosen = self.params.get(self.date_parameter, "")
        today = timezone.localdate()
        # isdigit() alone accepts "²", which int() refuses: ASCII digits only.
        year = int(chosen[:4]) if chosen[:4].isascii() and chosen[:4].isdigit() else today.year
        if self.params.get(YEAR_VAR, "").isascii() and self.params.get(YEAR_VAR, "").isdigit():
            year = int(self.params[YEAR_VAR])
        year = max(min(year, today.year), 1)  # nothing is created in the future
        last_month = today.month if year == today.year else 12
        months = [
            {
                "label": capfirst(formats.date_format(date(year, m, 1), "YEAR_MONTH_FORMAT")),
                "value": f"{year}-{m:02d}",
                "url": self.choose(self.date_parameter, f"{year}-{m:02d}"),
                "selected": chosen == f"{year}-{m:02d}",
            }
            for m in range(1, last_month + 1)
        ]
        return {
            "year": year,
            "previous_year_url": self.get_query_string({YEAR_VAR: str(year - 1)})
            if year > 1
            else None,
            "next_year_url": self.get_query_string({YEAR_VAR: str(year + 1)})
            if year < today.year
            else None,
            "all_url": self.choose(self.date_parameter, None),
            "months": months,
            "chosen": chosen,
        }

    @property
    def search_hidden(self) -> list[tuple[str, str]]:
        """Return the chosen filters, month and sort, kept by the search form as Django's are."""
        kept = {f.parameter_name for f in self.filters} | {self.date_parameter, YEAR_VAR, ORDER_VAR}
        return [(k, v) for k, v in sorted(self.params.items()) if k in kept and k]

    @property
    def has_filters(self) -> bool:
        return bool(self.filters)

    @property
    def clear_all_url(self) -> str | None:
        """Return the link without the search, filters and month (the sort stays), if any."""
        if not self.active:
            return None
        choosers = {SEARCH_VAR, self.date_parameter} | {f.parameter_name for f in self.filters}
        return self.get_query_string(remove=choosers)

    @property
    def index_name(self) -> str:
        index = getattr(self.source, "index", None)
        if isinstance(self.source, WordSearch):
            return self.source.words.Meta.table_name
        return index.Meta.index_name if index is not None else ""

    def describe_read(self) -> str:
        """Return what the page read, for the line above the results.

        A read of the project's own (from get_search_results or get_ordered_reads) says its
        `description`, else its class name; a subclass of ours says what its base reads. A
        filter's read names the filters that narrow it.
        """
        descriptions = {
            "TableScan": _("Scan of the table (one page)"),
            "FilteredScan": _(
                "Scan of the table kept to this type's items (no key or index serves them)"
            ),
            "PartitionMerge": _("Queries of every partition of the index %(index)s, merged"),
            "MonthWalk": _("Queries of the index %(index)s, month by month, newest first"),
            "IndexScan": _("Scan of the sparse index %(index)s (one page)"),
            "IndexQuery": _("Query of the index %(index)s"),
            "TableQuery": _("Query of the table by key"),
            "GetItem": _("GetItem by key"),
            "WordSearch": _(
                "Query of the word index %(index)s, then one BatchGetItem of the matches"
            ),
        }
        kinds = [k.__name__ for k in type(self.source).__mro__ if k.__name__ in descriptions]
        if self.source.description:
            read = self.source.description
        elif kinds:
            read = descriptions[kinds[0]] % {"index": self.index_name}
        else:
            read = type(self.source).__name__
        if self.narrowed_by:
            filters = ", ".join(self.narrowed_by)
            read = _("%(read)s, narrowed by %(filters)s") % {"read": read, "filters": filters}
        cost = self.page.cost
        if cost is not None:
            read += ngettext(
                "; read %(read)s item, kept %(kept)s, %(units)s RCU",
                "; read %(read)s items, kept %(kept)s, %(units)s RCU",
                cost.read,
            ) % {
                "read": f"{cost.read:,}",
                "kept": f"{cost.kept:,}",
                "units": f"{cost.read_units:,.1f}",
            }
            if cost.spent:
                read += _(
                    "; the page's read budget (%(budget)s items) ran out before it was full:"
                    " Next reads on"
                ) % {"budget": f"{cost.budget:,}"}
        return read


class ChangeListViews:
    """The changelist page of DynamoModelAdmin and its actions, each step one of Django's hooks."""

    def get_changelist(self, request, **kwargs: Any) -> type[ChangeList]:
        """Return the ChangeList class for use on the changelist page."""
        return ChangeList

    def get_changelist_instance(self, request) -> ChangeList:
        """Return the ChangeList of this request (raises BadQuery for a bad query string)."""
        changelist_class = self.get_changelist(request)
        return changelist_class(request, self)

    def get_ordered_reads(self, request) -> OrderedReads:
        """Return the reads that list the whole table by an attribute, and their directions.

        Planned from the model's indexes, get_index_partitions and the date hierarchy (see
        dynamo_admin.sources.ordered_reads); the sortable columns are these attributes.
        """
        return ordered_reads(
            self.model,
            partial(self.get_index_partitions, request),
            self.get_date_hierarchy_index(request),
        )

    def get_type_read(self, request) -> Source | None:
        """Return the read listing only the model's items of a shared table, else None.

        Planned from the item_condition and the discriminator (dynamo_admin.sources.
        claimed_read): a Query of a partition or an index they fix, else a filtered Scan that
        reads up to `list_read_budget` items a page.
        """
        return claimed_read(self.model, item_condition(self.model), self.list_read_budget)

    def get_search_results(
        self, request, queryset: Source, search_term: str
    ) -> tuple[Source, bool]:
        """Return the read that answers a search, and whether it may list an item twice.

        As Django's hook, with reads for querysets: `queryset` is what the listing reads
        without the search (a Scan, or an index in the chosen order), returned unchanged when
        the term searches nothing; the read returned replaces it, narrowed by the chosen
        filters where DynamoDB can. Raise ValueError to show the problem (a 400 page).
        """
        search_fields = self.get_search_fields(request)
        if not search_fields or not search_term.strip():
            return queryset, False
        source = search_read(self.model, search_fields, self.with_key_prefixes(search_term))
        keep_to_type(self.model, source, self.list_read_budget)
        # Two words of one name may both match: its owner may come again on a later page.
        return source, isinstance(source, WordSearch)

    def with_key_prefixes(self, search_term: str) -> str:
        """Return a key search with each key's declared prefix put before the part typed.

        With `key_prefixes = {"PK": "CUSTOMER#"}`, `42` searches `CUSTOMER#42` (and
        `CUSTOMER#42` itself still does); a word search is left as typed.
        """
        if not self.key_prefixes or word_index_of(self.model) is not None:
            return search_term
        terms = key_terms(search_term)
        for at, name in enumerate(meta(self.model).key_names[: len(terms)]):
            prefix = self.key_prefixes.get(name, "")
            caret = "^" if terms[at].startswith("^") else ""
            part = terms[at][len(caret) :]
            if prefix and not part.startswith(prefix):
                terms[at] = f"{caret}{prefix}{part}"
        return " ".join(terms)

    def changelist_view(self, request, extra_context=None):
        """List one page of items; a POST runs an action on the selected ones."""
        self.require(self.has_view_permission(request))
        if request.method == "POST" and "action" in request.POST:
            return self.response_action(request, self.get_selected_items(request))
        try:
            cl = self.get_changelist_instance(request)
        except BadQuery as exc:
            return self.bad_request(request, str(exc))
        if self.get_actions(request):
            action_form = self.action_form(auto_id=None)
            action_form.fields["action"].choices = self.get_action_choices(request)
        else:
            action_form = None
        if cl.not_applied:
            message = _(
                "Only the %(applied)s filter applies here: the rows below are not filtered by "
                "%(others)s, which cannot narrow the same read."
            )
            others = ", ".join(cl.not_applied)
            self.message_user(
                request, message % {"applied": cl.applied, "others": others}, messages.WARNING
            )
        rows = cl.rows()
        may_change = self.has_change_permission(request)
        title = _("Select %s to change") if may_change else _("Select %s to view")
        context = {
            **self.admin_site.each_context(request),
            "title": title % self.opts.verbose_name,
            "subtitle": None,
            "opts": self.opts,
            "cl": cl,
            "columns": cl.columns(),
            "rows": rows,
            "search_fields": cl.search_fields,
            "search_help_text": self.search_help_text,
            # What Django's admin/actions.html reads.
            "action_form": action_form,
            "actions_on_top": self.actions_on_top,
            "actions_on_bottom": self.actions_on_bottom,
            "actions_selection_counter": self.actions_selection_counter,
            "selection_note": _("0 of %(cnt)s selected") % {"cnt": len(rows)},
            "module_name": str(self.opts.verbose_name_plural),
            "has_add_permission": self.has_add_permission(request),
            # On a table other models share, the items none of them claims (views/unclaimed).
            "unclaimed_url": self.url_for("unclaimed") if len(self.table_models()) > 1 else None,
            "has_import_permission": self.has_add_permission(request)
            or self.has_change_permission(request),
            **(extra_context or {}),
        }
        request.current_app = self.admin_site.name
        template = self.templates("change_list.html", self.change_list_template)
        return TemplateResponse(request, template, context)

    def get_selected_items(self, request) -> list[DynamoModel]:
        """Return the items the action form selected: one BatchGetItem, none without a key.

        A key DynamoDB could not hold (too long) names no item, so it is left out.
        """
        keys = [key_values(self.model, oid) for oid in request.POST.getlist("_selected_action")]
        keys = [key for key in keys if key is not None and keys_fit(key)]
        if not keys:
            return []
        unique = list(dict.fromkeys(keys))
        found = []
        for at in range(0, len(unique), BATCH_GET_LIMIT):
            chunk = [(self.model, key) for key in unique[at : at + BATCH_GET_LIMIT]]
            found += get_together(chunk, load=load)
        return [item for item in found if item is not None]

    def response_action(self, request, queryset: list[DynamoModel]):
        """Run the chosen action on the selected items (`queryset`: a list, not a queryset)."""
        actions = self.get_actions(request)
        name = request.POST.get("action", "")
        if name not in actions:
            self.require(name not in self.get_all_action_names())
            return self.bad_request(request, _("No action %(name)r.") % {"name": name})
        redirect_to = request.get_full_path()
        if not queryset:
            # Django's own message, so its translations apply.
            self.message_user(
                request,
                _(
                    "Items must be selected in order to perform actions on them. No items have "
                    "been changed."
                ),
                messages.WARNING,
            )
            return HttpResponseRedirect(redirect_to)
        function = actions[name][0]
        response = function(self, request, queryset)
        return response if response is not None else HttpResponseRedirect(redirect_to)

    def bad_request(self, request, message: str):
        """Return the 400 page for a query string the listing cannot read."""
        context = {
            **self.admin_site.each_context(request),
            "title": _("Bad request"),
            "subtitle": None,
            "opts": self.opts,
            "message": message,
            "changelist_url": self.url_for("changelist"),
        }
        request.current_app = self.admin_site.name
        template = self.templates("bad_request.html")
        return TemplateResponse(request, template, context, status=400)


def keep_to_type(model, source: Source, budget: int) -> None:
    """Narrow a search's Query of a partition to the model's items on a shared table.

    A customer's partition holds their orders too: the item_condition's range part is the
    Query's key condition (`SK = "PROFILE"`), the rest its filter, and the page reads on
    until it is full or the budget is spent, as a type's listing does.
    """
    condition = item_condition(model)
    if condition is None or not isinstance(source, TableQuery):
        return
    if source.range_key_condition is not None or source.filter_condition is not None:
        return  # a prefix search holds its own range condition: load() keeps the type
    hash_name, *range_names = stored_key_names(model)
    range_condition, rest = split_for_query(
        condition, hash_name, range_names[0] if range_names else None
    )
    source.range_key_condition, source.filter_condition = range_condition, rest
    source.read_budget = budget


def search_help(model, search_fields) -> str:
    """Return a search's help from its fields: what each finds, as a person would say it."""
    words = word_index_of(model)
    word_fields = set(getattr(words, "fields", ()))
    parts = []
    for field in search_fields:
        name = field.lstrip("=^")
        label = name.replace("_", " ")
        if name in word_fields:
            parts.append(_("the start of any word of the %(name)s") % {"name": label})
        elif field.startswith("^"):
            parts.append(_("the start of the %(name)s") % {"name": label})
        else:
            parts.append(_("the exact %(name)s") % {"name": label})
    if not parts:
        return ""
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + _(" or ") + parts[-1]
    return _("Finds by %(what)s.") % {"what": listed}
