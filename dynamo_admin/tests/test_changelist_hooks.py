"""The changelist's steps are Django's ModelAdmin hooks: each overridden in a subclass, used."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from library.models import Shelf

from dynamo_admin.options import DynamoModelAdmin
from dynamo_admin.sources import GetItem, Page, Source, TableScan
from dynamo_admin.views.changelist import ChangeListViews

from .test_hooks import SHELVES


class EveryShelfTwice(Source):
    """A read that lists each shelf twice, as a search over two words of one name can."""

    description = "Scan of the shelves, twice"

    def page(self, model, per_page, start, forward=True) -> Page:
        items = sorted(model.scan(), key=lambda shelf: shelf.code)
        return Page(items + items, None)

    def scope(self, forward: bool) -> str:
        return "twice"


def test_the_changelist_steps_are_methods_of_the_model_admin():
    for name in (
        "changelist_view",
        "get_changelist",
        "get_changelist_instance",
        "get_ordered_reads",
        "get_search_results",
        "get_selected_items",
        "response_action",
        "get_actions",
        "get_action_choices",
        "message_user",
    ):
        assert callable(getattr(DynamoModelAdmin, name)), name
    # The page itself, not a trampoline to a module function.
    assert DynamoModelAdmin.changelist_view is ChangeListViews.changelist_view


def test_get_search_results_answers_a_search_with_its_own_read(librarian, fiction, serve):
    def get_search_results(self, request, queryset, search_term):
        request.unsearched = queryset
        if search_term == "novels":
            return GetItem(("F1",)), False
        return super(admin_class, self).get_search_results(request, queryset, search_term)

    admin_class = serve({"get_search_results": get_search_results})
    Shelf("P1", name="Poetry").save()

    response = librarian.get(SHELVES, {"q": "novels"})

    page = response.content.decode()
    assert 'value="F1"' in page and 'value="P1"' not in page
    # Without a search or an order the listing would be a Scan: that is the `queryset`.
    assert isinstance(response.wsgi_request.unsearched, TableScan)
    # The default still answers the declared key search.
    assert 'value="P1"' in librarian.get(SHELVES, {"q": "P1"}).content.decode()


def test_get_search_results_refuses_a_search_with_a_400(librarian, fiction, serve):
    def get_search_results(self, request, queryset, search_term):
        raise ValueError("Search shelves by their code.")

    serve({"get_search_results": get_search_results})

    response = librarian.get(SHELVES, {"q": "novels"})

    assert response.status_code == 400
    assert "Search shelves by their code." in response.content.decode()


def test_get_search_results_that_may_list_twice_shows_each_item_once(librarian, fiction, serve):
    may_have_duplicates = True

    def get_search_results(self, request, queryset, search_term):
        return EveryShelfTwice(), may_have_duplicates

    serve({"get_search_results": get_search_results})

    page = librarian.get(SHELVES, {"q": "f"}).content.decode()
    assert page.count('value="F1"') == 1 and "Scan of the shelves, twice" in page
    may_have_duplicates = False  # the read's own page, as it came
    assert librarian.get(SHELVES, {"q": "f"}).content.decode().count('value="F1"') == 2


def test_get_ordered_reads_makes_a_column_sortable_and_reads_it(librarian, fiction, serve):
    class ByCode(EveryShelfTwice):
        sort_keys, ordered = ("code",), True

        def page(self, model, per_page, start, forward=True) -> Page:
            return Page(sorted(model.scan(), key=lambda shelf: shelf.code), None)

    def get_ordered_reads(self, request):
        return {"code": (ByCode(), (True,))}

    serve({"get_ordered_reads": get_ordered_reads})
    Shelf("A1", name="Atlases").save()

    unsorted = librarian.get(SHELVES)
    by_code = librarian.get(SHELVES, {"o": "0"})

    assert 'href="?o=0"' in unsorted.content.decode()
    assert [row.object_id for row in by_code.context["rows"]] == ["A1", "F1"]
    assert type(by_code.context["cl"].source) is ByCode


def test_response_action_gets_the_selected_items(librarian, fiction, serve):
    def response_action(self, request, queryset):
        return HttpResponse(",".join(shelf.code for shelf in queryset))

    serve({"response_action": response_action})
    Shelf("P1", name="Poetry").save()

    response = librarian.post(
        SHELVES, {"action": "delete_selected", "_selected_action": ["F1", "P1"]}
    )

    assert sorted(response.content.decode().split(",")) == ["F1", "P1"]
    assert Shelf.get_or_none("F1") is not None  # the hook ran instead of the delete


def test_get_actions_adds_an_action_that_the_page_offers_and_runs(librarian, fiction, serve):
    def rename(model_admin, request, queryset):
        for shelf in queryset:
            shelf.name = f"{shelf.name} (closed)"
            shelf.save()

    def get_actions(self, request):
        actions = super(admin_class, self).get_actions(request)
        return {**actions, "rename": (rename, "rename", "Close the selected %(verbose_name)s")}

    def get_action_choices(self, request, default_choices=()):
        return super(admin_class, self).get_action_choices(request, [("", "Choose…")])

    admin_class = serve({"get_actions": get_actions, "get_action_choices": get_action_choices})

    page = librarian.get(SHELVES).content.decode()
    librarian.post(SHELVES, {"action": "rename", "_selected_action": ["F1"]})

    assert "Close the selected shelf" in page and "Choose…" in page
    assert Shelf.get("F1").name == "Fiction, ground floor (closed)"


def test_message_user_says_that_nothing_was_selected(librarian, fiction, serve):
    said = []

    def message_user(self, request, message, level=messages.INFO, **kwargs):
        said.append((level, str(message)))

    serve({"message_user": message_user})

    response = librarian.post(SHELVES, {"action": "delete_selected"})

    assert response.status_code == 302
    assert said == [
        (
            messages.WARNING,
            "Items must be selected in order to perform actions on them. No items have been "
            "changed.",
        )
    ]
    assert Shelf.get_or_none("F1") is not None
