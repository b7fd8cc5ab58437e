"""DynamoModelAdmin and inlines: Django's ModelAdmin options, over a PynamoDB model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property, wraps
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import flatten_fieldsets, model_format_dict
from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.db.models import BLANK_CHOICE_DASH
from django.http import Http404, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from pynamodb.attributes import Attribute
from pynamodb.expressions.condition import Condition

from dynamo.batch import Partition
from dynamo.indexes import GlobalIndex
from dynamo.limits import keys_fit
from dynamo.models import DynamoModel, client_for

from . import actions as builtin_actions
from .autocomplete import DynamoAutocompleteSelect
from .checks import DynamoModelAdminChecks
from .claims import condition_attributes, item_condition, split_for_query
from .deletion import delete_with_related
from .display import masked
from .filters import ListFilter, filter_class_for
from .forms import ItemForm, formfield_for, is_editable, item_form_class, unformable
from .inlines import InlineFormSet
from .keys import (
    hash_key_names,
    indexes_of,
    key_values,
    object_id,
    range_key_names,
    stored_key_names,
)
from .meta import (
    ModelOpts,
    attribute_name,
    automatic_fields,
    label_of,
    meta,
    pk_of,
    share_keyed_connection,
)
from .models import ADDITION, CHANGE, DELETION, AdminLog, secret_fields
from .permissions import perm_name
from .sources import LIST_READ_BUDGET
from .stored import get_item, misfit_text, misfits_of, tolerant
from .views.change import ChangeFormViews
from .views.changelist import ChangeListViews
from .views.delete import DeleteViews
from .views.history import HistoryViews
from .views.transfer import TransferViews
from .views.unclaimed import UnclaimedViews

# The actions every model admin has, as Django's site gives delete_selected to every one.
BUILTIN_ACTIONS = {
    "delete_selected": builtin_actions.delete_selected,
    "change_field": builtin_actions.change_field,
}


def not_editable(model) -> list[str]:
    """Return the attributes no form edits safely: shown read-only, never rewritten."""
    return [name for name, a in model.get_attributes().items() if not is_editable(a)]


def deleted_label(item: DynamoModel) -> str:
    """Return how a delete confirmation names an item: `Verbose name: item`."""
    return f"{capfirst(meta(type(item)).verbose_name)}: {label_of(item)}"


def admin_script_media(script: str) -> forms.Media:
    """Return the Media of Django's admin jQuery, jquery.init.js and `script`, from admin/js/."""
    extra = "" if settings.DEBUG else ".min"  # Django's admin picks its jQuery the same way
    js = [f"vendor/jquery/jquery{extra}.js", "jquery.init.js", script]
    return forms.Media(js=[f"admin/js/{name}" for name in js])


class BaseDynamoAdmin:
    """Options shared by model admins and inlines: which attributes, how they show."""

    model: type[DynamoModel]
    fields: Sequence[str] | None = None
    fieldsets: Sequence[tuple[str | None, dict[str, Any]]] | None = None
    readonly_fields: Sequence[str] = ()
    empty_value_display = "-"
    # Form field options by attribute class, as Django's formfield_overrides by field class.
    formfield_overrides: dict[type[Attribute], dict[str, Any]] = {}
    # References (the model's `references`) edited through Django's autocomplete select.
    autocomplete_fields: Sequence[str] = ()
    # Which items of a shared table are the model's: a PynamoDB condition on key attributes
    # (`Order.SK.startswith("ORDER#")`); a discriminator says it by itself (dynamo_admin.claims).
    item_condition: Condition | None = None

    # Key templates: a composed key's constant prefix by attribute ({"PK": "CUSTOMER#"}). The
    # admin shows and searches such a key by the part after it (`42` for `CUSTOMER#42`).
    key_prefixes: dict[str, str] = {}

    def get_item_condition(self) -> Condition | None:
        """Return the condition on key attributes that holds for every item of the model."""
        return self.item_condition

    def attribute_names(self) -> list[str]:
        """Return the model's attribute names, keys first, in declaration order."""
        keys = meta(self.model).key_names
        automatic = automatic_fields(self.model)
        rest = [name for name in self.model.get_attributes() if name not in keys]
        ordered = sorted(rest, key=lambda name: name in automatic)
        return keys + ordered

    def get_fields(self, request, obj: DynamoModel | None = None) -> list[str]:
        if self.fieldsets:
            return list(flatten_fieldsets(self.fieldsets))
        if self.fields:
            return list(self.fields)
        return self.attribute_names()

    def get_fieldsets(self, request, obj: DynamoModel | None = None):
        if self.fieldsets:
            return self.fieldsets
        return [(None, {"fields": self.get_fields(request, obj)})]

    def get_readonly_fields(self, request, obj: DynamoModel | None = None) -> list[str]:
        """Return read-only names: the option, the automatic ones and, once stored, the keys."""
        names = list(self.readonly_fields) + automatic_fields(self.model)
        names += [n for n in not_editable(self.model) if n not in names]
        if obj is not None:
            names += meta(self.model).key_names
            names += [
                n
                for n in condition_attributes(self.model, self.get_item_condition())
                if n not in names
            ]
            names += [n for n in [*misfits_of(obj), *unformable(obj)] if n not in names]
        return names

    def formfield_for_dbfield(self, db_field: Attribute, request, **kwargs: Any) -> forms.Field:
        """Return the form field of one attribute: by its type, formfield_overrides, kwargs.

        As Django's: an attribute with choices is a select (formfield_for_choice_field), one
        in `autocomplete_fields` Django's autocomplete select.
        """
        name = attribute_name(self.model, db_field)
        if meta(self.model).field_choices.get(name):
            return self.formfield_for_choice_field(db_field, request, **kwargs)
        if name in self.get_autocomplete_fields(request) and "widget" not in kwargs:
            kwargs["widget"] = DynamoAutocompleteSelect(self.model, name, self.admin_site)
        for attribute_class in type(db_field).__mro__:
            if attribute_class in self.formfield_overrides:
                kwargs = {**self.formfield_overrides[attribute_class], **kwargs}
                break
        # A plain model's nullable boolean is three-state: absent stays absent (a DynamoModel
        # keeps its checkbox, its booleans always stored).
        kwargs.setdefault("three_state", not issubclass(self.model, DynamoModel))
        return formfield_for(name, db_field, **kwargs)

    def formfield_for_choice_field(self, db_field: Attribute, request, **kwargs: Any):
        """Return the select of an attribute with choices, from the model's `field_choices`."""
        name = attribute_name(self.model, db_field)
        return formfield_for(name, db_field, choices=meta(self.model).field_choices[name], **kwargs)

    def get_autocomplete_fields(self, request) -> Sequence[str]:
        return self.autocomplete_fields

    @property
    def media(self) -> forms.Media:
        """Return Django's admin scripts every change form loads (jQuery, core.js)."""
        return admin_script_media("core.js")

    def form_class_for(self, request, names: list[str]) -> type[ItemForm]:
        """Return a form class over these attributes, each field from formfield_for_dbfield."""

        def formfield(name: str, attribute: Attribute) -> forms.Field:
            return self.formfield_for_dbfield(attribute, request)

        return item_form_class(self.model, names, formfield)

    def prepare_item(self, request, item: DynamoModel, form, change: bool) -> None:
        """Set what the form does not edit before the item is validated and written; a hook.

        The page's item and rows go in one transaction rather than through save(); the model's
        own clean() and written() hooks still run. Raise ValidationError to show it on the form.
        """

    def get_empty_value_display(self) -> str:
        return self.empty_value_display

    def value_for(self, item: DynamoModel, name: str | Callable) -> Any:
        """Return what a column or read-only field shows, found as Django's lookup_field does.

        A callable is called with the item; one of the model's attributes shows its value
        (an inline's `title` attribute is not its `title()` heading); any other name is looked
        up on the admin (a method called with the item), then on the item (an attribute, or a
        method called with nothing). Secret attributes show masked.
        """
        if callable(name):
            return name(item)
        if name == "__str__":
            return label_of(item)
        if name in misfits_of(item):
            return misfit_text(item.get_attributes()[name], misfits_of(item)[name])
        method = None if name in item.get_attributes() else getattr(self, name, None)
        if callable(method):
            return method(item)
        value = getattr(item, name, None)
        if callable(value):
            return value()
        prefix = self.key_prefixes.get(name, "")
        if prefix and isinstance(value, str) and value.startswith(prefix):
            return value[len(prefix) :]  # the part a person knows
        return masked(value) if name in secret_fields(item) else value

    def empty_value_for(self, name: str | Callable) -> str:
        """Return the empty-value text of a field: its own `empty_value_display` first."""
        function = name if callable(name) else getattr(self, name, None)
        default = self.get_empty_value_display()
        return getattr(function, "empty_value_display", default)

    def label_for(self, name: str | Callable) -> str:
        """Return a field's label: its `short_description`, the model's, else its name humanised."""
        if callable(name):
            attribute, name = name, name.__name__
        else:
            attribute = getattr(self, name, None) or getattr(self.model, name, None)
        description = getattr(attribute, "short_description", None)
        return capfirst(
            description or meta(self.model).field_labels.get(name) or name.replace("_", " ")
        )

    # Permissions of the admin's own model, with Django's names and signatures.
    def has_view_permission(self, request, obj: DynamoModel | None = None) -> bool:
        user = request.user
        return user.has_perm(perm_name("view", self.model)) or user.has_perm(
            perm_name("change", self.model)
        )

    def has_change_permission(self, request, obj: DynamoModel | None = None) -> bool:
        return request.user.has_perm(perm_name("change", self.model))

    def has_delete_permission(self, request, obj: DynamoModel | None = None) -> bool:
        return request.user.has_perm(perm_name("delete", self.model))

    def has_view_or_change_permission(self, request, obj: DynamoModel | None = None) -> bool:
        return self.has_view_permission(request, obj) or self.has_change_permission(request, obj)


class DynamoModelAdmin(
    ChangeListViews,
    ChangeFormViews,
    DeleteViews,
    HistoryViews,
    TransferViews,
    UnclaimedViews,
    BaseDynamoAdmin,
):
    """Admin options for one DynamoDB model, with Django's option names and view hooks.

    The changelist, add/change, delete and history pages are the methods of the mixins it
    inherits (dynamo_admin/views/), each step one of Django's ModelAdmin hooks, overridden as
    in Django.
    """

    list_display: Sequence[str | Callable] = ("__str__",)
    list_filter: Sequence[Any] = ()
    search_fields: Sequence[str] = ()
    # Under the search box, as Django's option: what a search finds, in plain words.
    search_help_text: str | None = None
    ordering: Sequence[str] = ()
    date_hierarchy: str | None = None
    inlines: Sequence[type[DynamoInline]] = ()
    actions: Sequence[str | Callable] = ()
    list_per_page = 50
    # On a shared table, what a page of a filtered Scan may read, in items (see get_type_read).
    list_read_budget = LIST_READ_BUDGET
    # A delete confirmation lists this many owned rows per table, then "and N more".
    deleted_objects_shown = 20
    save_on_top = False
    # The action bar, with Django's options and form (admin/actions.html renders it).
    action_form = helpers.ActionForm
    actions_on_top = True
    actions_on_bottom = False
    actions_selection_counter = True

    # What the admin's pages, index and sidebar call the model (default: its own names).
    verbose_name: str | None = None
    verbose_name_plural: str | None = None

    change_list_template: str | None = None
    change_form_template: str | None = None
    delete_confirmation_template: str | None = None
    object_history_template: str | None = None

    def __init__(self, model: type[DynamoModel], admin_site) -> None:
        self.model = model
        self.admin_site = admin_site
        self.opts = ModelOpts(model, type(self))

    def __str__(self) -> str:
        return f"{type(self).__module__}.{type(self).__name__}"

    # --- option hooks ---------------------------------------------------------------------
    def get_list_display(self, request) -> list[str | Callable]:
        return list(self.list_display)

    def get_list_filter(self, request) -> Sequence[Any]:
        return self.list_filter

    def get_list_filter_classes(self, request) -> list[type[ListFilter]]:
        classes = [filter_class_for(self.model, entry) for entry in self.get_list_filter(request)]
        return [cls for cls in classes if cls is not None]

    def get_search_fields(self, request) -> Sequence[str]:
        return self.search_fields

    def get_ordering(self, request) -> Sequence[str]:
        return self.ordering

    def get_list_per_page(self, request) -> int:
        return self.list_per_page

    def get_index_partitions(self, request, index: GlobalIndex) -> Sequence[Any]:
        """Return every partition value of an index, when few and known (else empty).

        A listing in the index's sort order reads each partition and merges them; by default
        the values are the model's `field_choices` for the index's partition key.
        """
        hash_names = hash_key_names(index)
        choices = meta(self.model).field_choices
        return choices.get(hash_names[0], ()) if len(hash_names) == 1 else ()

    def get_date_hierarchy_index(self, request) -> GlobalIndex | None:
        return indexes_of(self.model).get(self.date_hierarchy) if self.date_hierarchy else None

    def get_inlines(self, request, obj: DynamoModel | None = None) -> list[type[DynamoInline]]:
        return list(self.inlines)

    def get_inline_instances(self, request, obj: DynamoModel | None = None) -> list[DynamoInline]:
        """Return the inlines this user may see or use on obj's page, as Django's admin does."""
        instances = []
        for inline_class in self.get_inlines(request, obj):
            inline = inline_class(self.model, self.admin_site)
            if (
                inline.has_view_or_change_permission(request, obj)
                or inline.has_add_permission(request, obj)
                or inline.has_delete_permission(request, obj)
            ):
                instances.append(inline)
        return instances

    def get_actions(self, request) -> dict[str, tuple[Callable, str, str]]:
        """Return the actions this user may run: name -> (function, name, description)."""
        chosen: dict[str, tuple[Callable, str, str]] = {}
        for entry in [*BUILTIN_ACTIONS, *self.actions]:
            function = getattr(type(self), entry, None) if isinstance(entry, str) else entry
            if entry in BUILTIN_ACTIONS:
                function = BUILTIN_ACTIONS[entry]
            name = entry if isinstance(entry, str) else entry.__name__
            allowed = getattr(function, "allowed_permissions", ())
            if all(getattr(self, f"has_{p}_permission")(request) for p in allowed):
                description = getattr(function, "short_description", name.replace("_", " "))
                chosen[name] = (function, name, description)
        return chosen

    def get_action_choices(self, request, default_choices=BLANK_CHOICE_DASH):
        """Return the action select's (name, description) choices, as Django's admin does."""
        choices = [*default_choices]
        for _function, name, description in self.get_actions(request).values():
            choices.append((name, description % model_format_dict(self.opts)))
        return choices

    def get_all_action_names(self) -> set[str]:
        """Return every action's name, whether or not this user may run it."""
        names = set(BUILTIN_ACTIONS)
        return names | {a if isinstance(a, str) else a.__name__ for a in self.actions}

    # --- Django's hooks for the add, change and delete views -------------------------------
    def get_form(self, request, obj: DynamoModel | None = None, change: bool = False, **kwargs):
        """Return the form class of the add or change page: its editable attributes."""
        names = kwargs.get("fields")
        if names is None:
            readonly = self.get_readonly_fields(request, obj)
            names = [n for n in self.get_fields(request, obj) if n not in readonly]
        return self.form_class_for(request, list(names))

    def save_model(self, request, obj: DynamoModel, form, change: bool) -> None:
        """Set what the form does not edit before the item is validated and written.

        Unlike Django's, it does not write: the item, its inline rows and their history
        entries are written after it in one TransactWriteItems. Raise ValidationError to show
        it on the form.
        """
        self.prepare_item(request, obj, form, change)

    def save_related(self, request, form, formsets, change: bool) -> None:
        """Prepare each inline row for the page's one transaction; nothing is written here.

        Django's hook saves the inline formsets; here the rows go out with the item after it,
        so this sets what each row's form does not (the inline's prepare_item) and shows a
        ValidationError on the row it concerns.
        """
        for formset in formsets:
            formset.prepare_rows(request)

    def delete_model(self, request, obj: DynamoModel) -> None:
        """Delete obj on the version it holds, with its related items and history entries."""
        delete_with_related(
            obj,
            self.get_related_items(request, obj),
            actor=request.user.get_username(),
            # Each entry from log_deletions, written in the transaction that deletes the item.
            log_deletion=lambda item: self.log_deletions(request, [item])[0],
            owned=self.get_owned_partitions(request, obj),
        )

    # The history entries, with Django's names: each returns the entry written in the same
    # transaction as the change it records; `message` is {attribute: [old, new]}.
    def log_addition(self, request, obj: DynamoModel, message) -> AdminLog:
        return AdminLog.entry_for(obj, ADDITION, request.user.get_username(), message)

    def log_change(self, request, obj: DynamoModel, message) -> AdminLog:
        return AdminLog.entry_for(obj, CHANGE, request.user.get_username(), message)

    def log_deletion(self, request, obj: DynamoModel, object_repr: str) -> AdminLog:
        return AdminLog.entry_for(obj, DELETION, request.user.get_username())

    def message_user(
        self, request, message, level=messages.INFO, extra_tags="", fail_silently=False
    ) -> None:
        """Send the user a message; `level` may be a name such as "warning", as in Django."""
        if not isinstance(level, int):
            try:
                level = getattr(messages.constants, level.upper())
            except AttributeError as exc:
                raise ValueError(f"Bad message level string: `{level}`.") from exc
        messages.add_message(
            request, level, message, extra_tags=extra_tags, fail_silently=fail_silently
        )

    def response_add(self, request, obj: DynamoModel, post_url_continue: str | None = None):
        """Redirect after an add as Django's admin does for each save button."""
        return self._response_after_save(request, obj, adding=True, continue_url=post_url_continue)

    def response_change(self, request, obj: DynamoModel):
        """Redirect after a change as Django's admin does for each save button."""
        return self._response_after_save(request, obj, adding=False)

    def _response_after_save(self, request, obj, *, adding: bool, continue_url=None):
        names = {"name": self.opts.verbose_name, "obj": label_of(obj)}
        if "_continue" in request.POST:
            message = (
                _("The {name} “{obj}” was added successfully.")
                + " "
                + _("You may edit it again below.")
                if adding
                else _("The {name} “{obj}” was changed successfully. You may edit it again below.")
            )
            self.message_user(request, format_html(message, **names), messages.SUCCESS)
            return HttpResponseRedirect(continue_url or self.url_for("change", object_id(obj)))
        if "_addanother" in request.POST:
            message = (
                _("The {name} “{obj}” was added successfully. You may add another {name} below.")
                if adding
                else _(
                    "The {name} “{obj}” was changed successfully. You may add another {name} below."
                )
            )
            self.message_user(request, format_html(message, **names), messages.SUCCESS)
            return HttpResponseRedirect(self.url_for("add"))
        message = (
            _("The {name} “{obj}” was added successfully.")
            if adding
            else _("The {name} “{obj}” was changed successfully.")
        )
        self.message_user(request, format_html(message, **names), messages.SUCCESS)
        return HttpResponseRedirect(self.url_for("changelist"))

    # --- columns --------------------------------------------------------------------------
    def column_header(self, name: str | Callable) -> str:
        if name == "__str__":
            return capfirst(self.opts.verbose_name)
        return self.label_for(name)

    # --- permissions ----------------------------------------------------------------------
    def has_add_permission(self, request) -> bool:
        return request.user.has_perm(perm_name("add", self.model))

    def has_module_permission(self, request) -> bool:
        return request.user.has_module_perms(self.opts.app_label)

    def get_model_perms(self, request) -> dict[str, bool]:
        return {
            "add": self.has_add_permission(request),
            "change": self.has_change_permission(request),
            "delete": self.has_delete_permission(request),
            "view": self.has_view_permission(request),
        }

    def require(self, allowed: bool) -> None:
        if not allowed:
            raise PermissionDenied

    # --- items ----------------------------------------------------------------------------
    def key_or_404(self, object_id: str) -> tuple[Any, ...]:
        values = key_values(self.model, object_id)
        if values is None:
            message = _("No %(name)s has the key %(key)r.")
            raise Http404(message % {"name": self.opts.verbose_name, "key": object_id})
        return values

    def get_autocomplete_results(self, request, term: str) -> list[DynamoModel]:
        """Return the items an autocomplete term names: by default the item keyed by it.

        A model with a better lookup (the catalog: names starting with the term) overrides
        it; a Scan never answers a keystroke.
        """
        if not term or len(meta(self.model).key_names) != 1:
            return []
        values = key_values(self.model, term)
        item = get_item(self.model, values) if values is not None else None
        return [item] if item is not None else []

    def autocomplete_label(self, item: DynamoModel) -> str:
        """Return the text an autocomplete result shows."""
        return label_of(item)

    def get_related_items(self, request, obj: DynamoModel) -> list[DynamoModel]:
        """Return the items deleted together with obj: its inlines' items, seen or not."""
        # Kept on the request: the confirmation and the delete both need them, read once.
        memo = request.__dict__.setdefault("_dynamo_admin_related", {})
        key = (obj.Meta.table_name, pk_of(obj))
        if key not in memo:
            memo[key] = [
                item
                for inline_class in self.get_inlines(request, obj)
                for item in inline_class(self.model, self.admin_site).get_items(obj)
            ]
        return memo[key]

    def get_owned_partitions(self, request, obj: DynamoModel) -> list[Partition]:
        """Return the partitions a hard delete of obj empties (its `owned_partitions()`)."""
        return obj.owned_partitions() if isinstance(obj, DynamoModel) else []

    def get_deleted_objects(self, objs, request):
        """Return (to_delete, model_count, perms_needed, protected) as Django's admin does.

        `to_delete` nests each item's related items under it; `perms_needed` names the
        verbose names of the models whose admin refuses this user the delete. Owned rows
        (a learner's study history) are counted in full but listed up to
        `deleted_objects_shown` per table, then "and N more"; they go with their owner, so
        the owner's delete permission covers them (they have no delete of their own).
        """
        to_delete: list[Any] = []
        model_count: dict[str, int] = {}
        perms_needed: set[str] = set()
        for obj in objs:
            # A search index's entries go along unlisted: copies the system keeps, not data.
            related = [
                item
                for item in self.get_related_items(request, obj)
                if getattr(type(item), "keeps_history", True)
            ]
            for item in (obj, *related):
                model = type(item)
                plural = str(meta(model).verbose_name_plural)
                model_count[plural] = model_count.get(plural, 0) + 1
                if not self.admin_site.is_registered(model):
                    continue
                if not self.admin_site.get_model_admin(model).has_delete_permission(request, item):
                    perms_needed.add(str(meta(model).verbose_name))
            labels = [deleted_label(item) for item in related]
            for partition in self.get_owned_partitions(request, obj):
                shown = partition.first(self.deleted_objects_shown + 1)
                if not shown:
                    continue
                # One Query tells a short history's count; only a long one is counted apart.
                count = partition.count() if len(shown) > self.deleted_objects_shown else len(shown)
                shown = shown[: self.deleted_objects_shown]
                plural = str(meta(partition.model).verbose_name_plural)
                model_count[plural] = model_count.get(plural, 0) + count
                labels += [deleted_label(item) for item in shown]
                if count > len(shown):
                    more = _("…and %(count)s more %(name)s") % {
                        "count": f"{count - len(shown):,}",
                        "name": plural,
                    }
                    labels.append(more)
            to_delete.append(deleted_label(obj))
            if labels:
                to_delete.append(labels)
        return to_delete, model_count, perms_needed, []

    def url_for(self, view: str, *args: Any) -> str:
        return reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_{view}", args=args)

    # --- views, with Django's names and signatures ---------------------------------------
    def add_view(self, request, form_url="", extra_context=None):
        return self.changeform_view(request, None, form_url, extra_context)

    def change_view(self, request, object_id: str, form_url="", extra_context=None):
        return self.changeform_view(request, object_id, form_url, extra_context)

    def get_urls(self):
        prefix = f"{self.opts.app_label}_{self.opts.model_name}"

        def wrap(view):
            return self.admin_site.admin_view(self.metered(view))

        return [
            path("", wrap(self.changelist_view), name=f"{prefix}_changelist"),
            path("add/", wrap(self.add_view), name=f"{prefix}_add"),
            path("export/", wrap(self.export_view), name=f"{prefix}_export"),
            path("import/", wrap(self.import_view), name=f"{prefix}_import"),
            path("unclaimed/", wrap(self.unclaimed_view), name=f"{prefix}_unclaimed"),
            path("<path:object_id>/history/", wrap(self.history_view), name=f"{prefix}_history"),
            path("<path:object_id>/delete/", wrap(self.delete_view), name=f"{prefix}_delete"),
            path("<path:object_id>/change/", wrap(self.change_view), name=f"{prefix}_change"),
            path("<path:object_id>/raw/", wrap(self.raw_view), name=f"{prefix}_raw"),
        ]

    def connect(self) -> None:
        """Ready the model's and its inlines' connections for a door's calls (a page, a command).

        A subclass keyed by a class of its family shares that class's connection (PynamoDB
        would build one from the subclass's own schema, with no hash key); a DynamoModel's
        connection reports its calls itself, a plain PynamoDB model's client is made with the
        process's one loader and instrumented here, once, so its calls count in the meter and
        keep the deadline as every other's.
        Asked on every use: a reconfigured model has dropped its connection.
        """
        for model in {self.model, *(inline.model for inline in self.inlines)}:
            if not meta(model).keyed:  # its every keyed call would fail, saying less
                raise ImproperlyConfigured(
                    f"{model.__name__} declares no hash key, nor does a class it inherits from: "
                    "the admin cannot serve it (dynamo_admin.E014; `manage.py check` says what "
                    "to register instead)."
                )
            share_keyed_connection(model)
            client_for(model)

    def metered(self, view):
        """Wrap a view so its model's and its inlines' calls count in the page's meter."""

        @wraps(view)
        def metered_view(request, *args, **kwargs):
            self.connect()
            return view(request, *args, **kwargs)

        return metered_view

    @cached_property
    def urls(self):
        return self.get_urls()

    def templates(self, name: str, override: str | None = None) -> list[str]:
        """Return the template chain: the model's, the app's, then the default one."""
        if override:
            return [override]
        app, model = self.opts.app_label, self.opts.model_name
        return [f"admin/{app}/{model}/{name}", f"admin/{app}/{name}", f"dynamo_admin/{name}"]

    # The class whose check(admin) runs this registration's system checks, as in Django.
    checks_class = DynamoModelAdminChecks

    def check(self, **kwargs: Any) -> list:
        return self.checks_class().check(self, **kwargs)


class ViewOnlyModelAdmin(DynamoModelAdmin):
    """An admin that lists and shows its model's items and never adds, changes or deletes one.

    For what is written by something else (a log, a recorded history): whatever permissions a
    user holds, the pages offer no form and the actions none.
    """

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class DynamoInline(BaseDynamoAdmin):
    """Items of another table that belong to the page's item, edited on its change page.

    `fk_name` is the inline model's attribute holding the parent's hash key. When it is the
    inline table's hash key the items are one Query on the table; when it is the whole key,
    and on a save (the rows the page showed), they are read by key in the change page's
    BatchGetItem (item_keys); `max_num = 1` shows one stacked form.
    """

    fk_name = ""
    # Which items of the model are this inline's; None: its model admin's (dynamo_admin.claims).
    item_condition: Condition | None = None
    extra = 1
    min_num = 0
    max_num: int | None = None
    can_delete = True
    formset = InlineFormSet
    template = "dynamo_admin/edit_inline/tabular.html"
    verbose_name_plural: str | None = None

    def __init__(self, parent_model: type[DynamoModel], admin_site) -> None:
        self.parent_model = parent_model
        self.admin_site = admin_site
        self.opts = ModelOpts(self.model)

    def get_fields(self, request, obj: DynamoModel | None = None) -> list[str]:
        fields = super().get_fields(request, obj)
        return [name for name in fields if name != self.fk_name]

    def get_readonly_fields(self, request, obj: DynamoModel | None = None) -> list[str]:
        """Return read-only names; a stored row's key is fixed by its form, not listed here."""
        fixed = [*automatic_fields(self.model), *not_editable(self.model)]
        return [*self.readonly_fields, *dict.fromkeys(fixed)]

    def title(self) -> str:
        return capfirst(self.verbose_name_plural or self.opts.verbose_name_plural)

    def get_formset(self, request, obj: DynamoModel | None = None, **kwargs: Any):
        """Return the formset class of this inline's rows on obj's page, as Django's hook."""
        return self.formset

    # Django's hooks for the number of rows.
    def get_extra(self, request, obj: DynamoModel | None = None, **kwargs: Any) -> int:
        return self.extra

    def get_min_num(self, request, obj: DynamoModel | None = None, **kwargs: Any) -> int:
        return self.min_num

    def get_max_num(self, request, obj: DynamoModel | None = None, **kwargs: Any) -> int | None:
        return self.max_num

    @property
    def media(self) -> forms.Media:
        """Return Django's inline scripts: inlines.js adds and removes rows."""
        return admin_script_media("inlines.js")

    def parent_key(self, parent: DynamoModel) -> Any:
        """Return the value `fk_name` holds on the parent's rows: by default its hash key."""
        return pk_of(parent)[0]

    def reads_stored_parent(self) -> bool:
        """Return whether the rows' key comes from the stored parent, not from its key alone.

        An overridden parent_key (an adjacency list keyed by the parent's GSI1PK) reads an
        attribute of the parent: its rows are read once the parent is, not beside it.
        """
        return type(self).parent_key is not DynamoInline.parent_key

    def item_keys(self, request, parent: DynamoModel) -> list[tuple[Any, ...]] | None:
        """Return the keys of the rows the page needs when no Query must find them, else None.

        A save needs only the rows its page showed (their keys come back with the form); a
        page whose rows are one item keyed by the parent's key needs that key. The change page
        gets the items at these keys together with its own item, in one BatchGetItem; None
        leaves the rows to get_items (override both to read rows another way).
        """
        if self.fk_stored_name() != stored_key_names(self.model)[0]:
            return None  # rows by an index (an adjacency list): its Query finds them
        if request.method == "POST" and self.has_editable_rows(request, parent):
            shown = InlineFormSet.posted_keys(request.POST, meta(self.model).model_name)
            keys = [key_values(self.model, oid) if oid else None for oid in shown]
            parent_key = self.parent_key(parent)
            return [k for k in keys if k is not None and k[0] == parent_key and keys_fit(k)]
        if meta(self.model).key_names == [self.fk_name]:
            return [(self.parent_key(parent),)]
        return None

    def has_editable_rows(self, request, parent: DynamoModel | None) -> bool:
        """Return whether this user may add, change or delete rows (else they are shown only)."""
        return (
            self.has_add_permission(request, parent)
            or self.has_change_permission(request, parent)
            or (self.can_delete and self.has_delete_permission(request, parent))
        )

    def get_item_condition(self) -> Condition | None:
        """Return which items are this inline's: its own item_condition, else its model admin's."""
        if self.item_condition is not None:
            return self.item_condition
        return meta(self.model).item_condition

    def get_items(self, parent: DynamoModel) -> list[DynamoModel]:
        """Return the parent's items of this inline: one Query, or one GetItem.

        On a table the parent shares with its rows (an item collection) the Query holds the
        rows' item_condition as its range key condition (`SK begins_with "ORDER#"`), the rest
        of it and a discriminator as its filter: never the parent's own item or other types.
        An `fk_name` that is an index's partition key (an adjacency list) is a Query of that
        index.
        """
        if meta(self.model).key_names == [self.fk_name]:
            item = get_item(self.model, (self.parent_key(parent),), consistent_read=True)
            return [item] if item is not None else []
        condition = self.get_item_condition()
        queried, consistent = self.model, True
        fk_stored = self.fk_stored_name()
        if fk_stored not in stored_key_names(self.model):
            queried, consistent = self.fk_index(), False  # a GSI reads eventually consistent
        range_names = range_key_names(queried) if queried is not self.model else None
        if range_names is None:
            range_names = stored_key_names(self.model)[1:]
        range_condition, filter_condition = split_for_query(
            condition, fk_stored, range_names[0] if range_names else None
        )
        rows = queried.query(
            self.parent_key(parent),
            range_key_condition=range_condition,
            filter_condition=filter_condition,
            limit=self.max_num or None,
            consistent_read=consistent,
        )
        return [
            row
            for row in tolerant(rows, self.model, condition=item_condition(self.model, condition))
            if row is not None
        ]

    def fk_stored_name(self) -> str:
        """Return the stored name of `fk_name` (named by its Python or its stored name)."""
        attribute = self.model.get_attributes().get(self.fk_name)
        return attribute.attr_name if attribute is not None else self.fk_name

    def fk_index(self) -> GlobalIndex:
        """Return the index whose partition key is `fk_name` (checked at start-up)."""
        fk_stored = self.fk_stored_name()
        return next(i for i in indexes_of(self.model).values() if hash_key_names(i) == [fk_stored])

    def new_item(self, parent: DynamoModel) -> DynamoModel:
        item = self.model()
        setattr(item, self.fk_name, self.parent_key(parent))
        return item

    # `obj` is the parent item being edited (None on its add page), as in Django's inlines;
    # the permissions checked are the inline model's own.
    def has_add_permission(self, request, obj: DynamoModel | None) -> bool:
        return request.user.has_perm(perm_name("add", self.model))


class TabularInline(DynamoInline):
    """Inline items as rows of a table."""


class StackedInline(DynamoInline):
    """Inline items as stacked forms."""

    template = "dynamo_admin/edit_inline/stacked.html"
