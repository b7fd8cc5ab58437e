"""Django's ModelAdmin hooks, each overridden in a subclass of the shelves' admin and served.

Each test registers a subclass on a site of its own, served as the project's URLs for the
test, so the pages reach the overridden step exactly as a project's subclass would.
"""

from __future__ import annotations

from django.core import checks
from django.template.response import TemplateResponse
from library.models import Book, Shelf

from dynamo_admin.models import AdminLog
from dynamo_admin.sites import DynamoAdminSite
from dynamo_admin.views.changelist import ChangeList

from .test_change import NO_BOOKS, shelf_page

SHELVES = "/admin/library/shelf/"
F1 = f"{SHELVES}F1/change/"


def test_changelist_view_can_add_context(librarian, fiction, serve):
    def changelist_view(self, request, extra_context=None):
        return super(admin_class, self).changelist_view(request, {"title": "Our shelves"})

    admin_class = serve({"changelist_view": changelist_view})

    assert "<h1>Our shelves</h1>" in librarian.get(SHELVES).content.decode()


def test_get_changelist_returns_the_class_the_page_uses(librarian, fiction, serve):
    class OnlyF(ChangeList):
        def rows(self):
            return [row for row in super().rows() if row.object_id.startswith("F")]

    serve({"get_changelist": lambda self, request, **kwargs: OnlyF})
    Shelf("P1", name="Poetry").save()

    page = librarian.get(SHELVES).content.decode()
    assert 'value="F1"' in page and 'value="P1"' not in page


def test_get_changelist_instance_builds_the_listing(librarian, fiction, serve):
    def get_changelist_instance(self, request):
        listing = super(admin_class, self).get_changelist_instance(request)
        listing.per_page_note = "hooked"
        request.seen_listing = listing
        return listing

    admin_class = serve({"get_changelist_instance": get_changelist_instance})

    response = librarian.get(SHELVES)
    assert response.wsgi_request.seen_listing.per_page_note == "hooked"
    assert response.context["cl"] is response.wsgi_request.seen_listing


def test_changeform_view_serves_both_add_and_change(librarian, fiction, serve):
    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        context = {"title": "Add a shelf" if object_id is None else "Edit the shelf"}
        return super(admin_class, self).changeform_view(request, object_id, form_url, context)

    admin_class = serve({"changeform_view": changeform_view})

    assert "<h1>Add a shelf</h1>" in librarian.get(f"{SHELVES}add/").content.decode()
    assert "<h1>Edit the shelf</h1>" in librarian.get(F1).content.decode()


def test_add_view_has_djangos_signature(librarian, dynamo, serve):
    def add_view(self, request, form_url="", extra_context=None):
        return super(admin_class, self).add_view(request, form_url, {"title": "New shelf"})

    admin_class = serve({"add_view": add_view})

    assert "<h1>New shelf</h1>" in librarian.get(f"{SHELVES}add/").content.decode()
    librarian.post(f"{SHELVES}add/", {"code": "P7", "name": "Poetry", **NO_BOOKS})
    assert Shelf.get("P7").name == "Poetry"


def test_change_view_has_djangos_signature(librarian, fiction, serve):
    def change_view(self, request, object_id, form_url="", extra_context=None):
        return super(admin_class, self).change_view(
            request, object_id, form_url, extra_context={"title": f"Shelf {object_id}"}
        )

    admin_class = serve({"change_view": change_view})

    assert "<h1>Shelf F1</h1>" in librarian.get(F1).content.decode()


def test_delete_view_has_djangos_signature(librarian, fiction, serve):
    def delete_view(self, request, object_id, extra_context=None):
        return super(admin_class, self).delete_view(request, object_id, {"title": "Really?"})

    admin_class = serve({"delete_view": delete_view})

    assert "<h1>Really?</h1>" in librarian.get(f"{SHELVES}F1/delete/").content.decode()


def test_history_view_has_djangos_signature(librarian, fiction, serve):
    def history_view(self, request, object_id, extra_context=None):
        return super(admin_class, self).history_view(request, object_id, {"title": "Log"})

    admin_class = serve({"history_view": history_view})

    assert "<h1>Log</h1>" in librarian.get(f"{SHELVES}F1/history/").content.decode()


def test_render_change_form_gets_the_context_and_the_flags(librarian, fiction, serve):
    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        request.flags = (add, change, obj.code if obj else None)
        return TemplateResponse(request, "admin/base_site.html", {**context, "title": "Plain"})

    serve({"render_change_form": render_change_form})

    response = librarian.get(F1)
    assert response.wsgi_request.flags == (False, True, "F1")
    assert "<h1>Plain</h1>" in response.content.decode()


def test_save_related_prepares_the_rows_before_the_one_transaction(librarian, fiction, serve):
    def save_related(self, request, form, formsets, change):
        super(admin_class, self).save_related(request, form, formsets, change)
        for formset in formsets:
            for write in formset.writes:
                write.item.title = write.item.title.upper()

    admin_class = serve({"save_related": save_related})

    response = librarian.post(
        F1, shelf_page(**{"book-0-title": "Crime and punishment, new edition"})
    )

    assert response.status_code == 302
    assert Book.get("F1", "9780140449136").title == "CRIME AND PUNISHMENT, NEW EDITION"


def test_log_addition_makes_the_entry_written_with_the_item(librarian, dynamo, serve):
    def log_addition(self, request, obj, message):
        entry = super(admin_class, self).log_addition(request, obj, message)
        entry.object_repr = f"new shelf {obj.code}"
        return entry

    admin_class = serve({"log_addition": log_addition})

    librarian.post(f"{SHELVES}add/", {"code": "P7", "name": "Poetry", **NO_BOOKS})

    [entry] = AdminLog.history(Shelf.get("P7"))
    assert (entry.action, entry.object_repr) == ("add", "new shelf P7")


def test_log_change_makes_the_entry_of_each_changed_item(librarian, fiction, serve):
    def log_change(self, request, obj, message):
        return super(admin_class, self).log_change(request, obj, {**message, "note": [None, "x"]})

    admin_class = serve({"log_change": log_change})

    librarian.post(F1, shelf_page(name="Fiction, first floor"))

    [entry] = AdminLog.history(Shelf.get("F1"))
    assert entry.changes["note"] == [None, "x"]
    assert entry.changes["name"] == ["Fiction, ground floor", "Fiction, first floor"]


def test_log_deletion_makes_the_entry_of_each_deleted_item(librarian, fiction, serve):
    def log_deletion(self, request, obj, object_repr):
        entry = super(admin_class, self).log_deletion(request, obj, object_repr)
        entry.user = f"{entry.user} (deleting)"
        return entry

    admin_class = serve({"log_deletion": log_deletion})

    librarian.post(f"{SHELVES}F1/delete/", {"version": "1"})

    assert Shelf.get_or_none("F1") is None
    users = {e.user for e in AdminLog.query("library.shelf:F1")}
    assert users == {"lena (deleting)"}


def test_checks_class_runs_the_registrations_checks(serve):
    class StrictChecks:
        def check(self, admin_obj, **kwargs):
            return [checks.Error("Shelves need a search.", obj=admin_obj, id="library.E001")]

    admin_class = serve({"checks_class": StrictChecks})

    assert [e.id for e in admin_class(Shelf, DynamoAdminSite()).check()] == ["library.E001"]


def test_the_changelist_template_has_djangos_blocks(librarian, fiction, serve, tmp_path, settings):
    override = tmp_path / "admin" / "library" / "shelf"
    override.mkdir(parents=True)
    (override / "change_list.html").write_text(
        '{% extends "dynamo_admin/change_list.html" %}'
        '{% block object-tools-items %}<li><a href="/x/" class="ours">Import</a></li>'
        "{{ block.super }}{% endblock %}"
        '{% block result_list %}<p class="before-results"></p>{{ block.super }}{% endblock %}'
    )
    settings.TEMPLATES = [
        {**settings.TEMPLATES[0], "DIRS": [tmp_path, *settings.TEMPLATES[0].get("DIRS", [])]}
    ]
    serve({})

    page = librarian.get(SHELVES).content.decode()
    assert 'class="ours">Import</a>' in page and 'class="addlink"' in page
    assert page.index('class="before-results"') < page.index('id="result_list"')
