"""The steps of the add, change and delete pages are Django's ModelAdmin hooks: overridable."""

from __future__ import annotations

from django.http import HttpResponse
from library.models import Book, Shelf

from dynamo_admin.models import AdminLog
from dynamo_admin.options import DynamoModelAdmin

from .test_change import NO_BOOKS, shelf_page
from .test_hooks import F1, SHELVES

DELETE_F1 = f"{SHELVES}F1/delete/"


def test_the_view_steps_are_methods_of_the_model_admin():
    for name in (
        "changeform_view",
        "_changeform_view",
        "get_formsets_with_inlines",
        "construct_change_message",
        "save_model",
        "save_related",
        "save_forms",
        "writes_are_valid",
        "change_form_context",
        "render_change_form",
        "response_add",
        "response_change",
        "delete_view",
        "get_deleted_objects",
        "render_delete_form",
        "response_delete",
        "log_deletions",
        "history_view",
    ):
        assert callable(getattr(DynamoModelAdmin, name)), name
    assert isinstance(DynamoModelAdmin.__dict__.get("checks_class"), type)


def test_construct_change_message_is_what_the_history_entry_records(librarian, fiction, serve):
    def construct_change_message(self, request, form, formsets, add=False):
        return {**form.changes, "via": [None, "the hook"]}

    serve({"construct_change_message": construct_change_message})

    librarian.post(F1, shelf_page(name="Fiction, first floor"))

    [entry] = AdminLog.history(Shelf.get("F1"))
    assert entry.changes == {
        "name": ["Fiction, ground floor", "Fiction, first floor"],
        "via": [None, "the hook"],
    }


def test_get_formsets_with_inlines_chooses_the_page_s_inlines(librarian, fiction, serve):
    def get_formsets_with_inlines(self, request, obj=None):
        return iter(())  # no books on this page

    serve({"get_formsets_with_inlines": get_formsets_with_inlines})

    page = librarian.get(F1).content.decode()
    assert "Pride and Prejudice" not in page
    librarian.post(F1, {"name": "Fiction, first floor", "_version": "1"})
    assert Shelf.get("F1").name == "Fiction, first floor"
    assert Book.get("F1", "9780141439518").title == "Pride and Prejudice"


def test_writes_are_valid_can_refuse_a_save(librarian, fiction, serve):
    def writes_are_valid(self, request, form, writes, formsets, change):
        form.add_error(None, "Closed for inventory.")
        return False

    serve({"writes_are_valid": writes_are_valid})

    response = librarian.post(F1, shelf_page(name="Fiction, first floor"))

    assert response.status_code == 200 and "Closed for inventory." in response.content.decode()
    assert Shelf.get("F1").name == "Fiction, ground floor"


def test_save_forms_can_wrap_the_write(librarian, dynamo, serve):
    def save_forms(self, request, form, stored, formsets):
        saved, stale = super(admin_class, self).save_forms(request, form, stored, formsets)
        request.saved_code = saved.code
        return saved, stale

    admin_class = serve({"save_forms": save_forms})

    response = librarian.post(f"{SHELVES}add/", {"code": "P7", "name": "Poetry", **NO_BOOKS})

    assert response.wsgi_request.saved_code == "P7" and Shelf.get("P7").name == "Poetry"


def test_change_form_context_adds_what_the_template_reads(librarian, fiction, serve):
    def change_form_context(self, request, form, item, readonly, formsets, can_save):
        context = super(admin_class, self).change_form_context(
            request, form, item, readonly, formsets, can_save
        )
        return {**context, "title": f"Shelf {item.code} of {len(formsets)} inline"}

    admin_class = serve({"change_form_context": change_form_context})

    assert "<h1>Shelf F1 of 1 inline</h1>" in librarian.get(F1).content.decode()


def test_response_change_runs_only_after_a_saved_change(librarian, fiction, serve):
    def response_change(self, request, obj):
        return HttpResponse(f"saved {obj.name}")

    serve({"response_change": response_change})

    refused = librarian.post(F1, shelf_page(name="F"))  # too short: the form shows the error
    saved = librarian.post(F1, shelf_page(name="Fiction, first floor"))

    assert refused.status_code == 200 and b"saved" not in refused.content
    assert saved.content == b"saved Fiction, first floor"


def test_render_delete_form_gets_the_confirmation_context(librarian, fiction, serve):
    def render_delete_form(self, request, context):
        names = sorted(context["model_count"])
        return HttpResponse(f"{context['object'].code}: {names}")

    serve({"render_delete_form": render_delete_form})

    assert librarian.get(DELETE_F1).content == b"F1: [('books', 2), ('shelves', 1)]"
    assert Shelf.get_or_none("F1") is not None


def test_response_delete_answers_after_the_delete(librarian, fiction, serve):
    def response_delete(self, request, obj_display, obj_id):
        return HttpResponse(f"gone: {obj_display} ({obj_id})")

    serve({"response_delete": response_delete})

    response = librarian.post(DELETE_F1, {"version": "1"})

    assert response.content == b"gone: F1 (F1)"
    assert Shelf.get_or_none("F1") is None


def test_log_deletions_makes_the_entries_of_the_deleted_items(librarian, fiction, serve):
    def log_deletions(self, request, queryset):
        entries = super(admin_class, self).log_deletions(request, queryset)
        for entry in entries:
            entry.user = f"{entry.user} (clearing)"
        return entries

    admin_class = serve({"log_deletions": log_deletions})

    librarian.post(DELETE_F1, {"version": "1"})

    assert Shelf.get_or_none("F1") is None
    assert {e.user for e in AdminLog.query("library.shelf:F1")} == {"lena (clearing)"}
    books = AdminLog.query("library.book:F1/9780141439518")
    assert {e.user for e in books} == {"lena (clearing)"}
