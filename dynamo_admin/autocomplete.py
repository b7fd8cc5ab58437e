"""Django's autocomplete_fields over DynamoDB: its select2 widget, its JSON answered by Queries.

A reference to another table (a user-skill's `skill_id`) names the referenced model in the
model's `references`. Its input is Django's AutocompleteSelect (select2 and autocomplete.js,
no inline script), posting to the site's `autocomplete/` URL as Django's does; the site
answers for a DynamoDB model here, asking the referenced model's admin for the items a term
names (`get_autocomplete_results`, a few key lookups or Queries, never a Scan).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from pynamodb.models import Model

from dynamo.models import DynamoModel

from .meta import meta, pk_of

# Django's AutocompleteJsonView pages by 20; a key lookup has no further pages to offer.
RESULTS_PER_PAGE = 20


class DynamoAutocompleteSelect(AutocompleteSelect):
    """Django's autocomplete select for an attribute holding another table's hash key."""

    def __init__(self, model: type[DynamoModel], name: str, admin_site, attrs=None) -> None:
        # Django's widget reads the field's model `_meta` and name for its data- attributes.
        field = SimpleNamespace(model=model, name=name)
        super().__init__(field, admin_site, attrs=attrs)

    def optgroups(self, name, value, attr=None):
        """Offer only the current value: the rest come from the JSON endpoint as typed."""
        chosen = [str(v) for v in value if v not in (None, "")]
        options = [self.create_option(name, v, v, True, index) for index, v in enumerate(chosen)]
        return [(None, options, 0)] if options else []


def autocomplete_view(admin_site, request):
    """Answer select2 as Django's AutocompleteJsonView does, for a DynamoDB model's reference."""
    app_label, model_name = request.GET.get("app_label"), request.GET.get("model_name")
    source = dynamo_model_named(admin_site, app_label, model_name)
    field_name = request.GET.get("field_name", "")
    target = meta(source).references.get(field_name) if source is not None else None
    if target is None or not admin_site.is_registered(target):
        raise PermissionDenied
    model_admin = admin_site.get_model_admin(target)
    model_admin.connect()  # the target's reads, from a page of another admin
    if not model_admin.has_view_permission(request):
        raise PermissionDenied
    term = request.GET.get("term", "").strip()
    items = model_admin.get_autocomplete_results(request, term)[:RESULTS_PER_PAGE]
    results = [
        {"id": str(pk_of(item)[0]), "text": model_admin.autocomplete_label(item)} for item in items
    ]
    return JsonResponse({"results": results, "pagination": {"more": False}})


def dynamo_model_named(admin_site, app_label: Any, model_name: Any) -> type[DynamoModel] | None:
    """Return the registered DynamoDB model with these names, or None."""
    for model in admin_site._registry:
        if (
            isinstance(model, type)
            and issubclass(model, Model)
            and meta(model).app_label == app_label
            and meta(model).model_name == model_name
        ):
            return model
    return None
