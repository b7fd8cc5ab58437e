"""Pages over data the admin did not write: times stored without an offset, and models whose
`__str__` names no key-only item. Every page answers 200 and says what it shows.

An archive table as a public project writes it: its times are ISO text without an offset, read
back naive, so the admin shows them as stored, taken as UTC, and says so. Each `__str__` below
fails another way on an item the page knows only by its key (History) or on an untitled one.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from django.contrib.admin.utils import quote
from django.test import Client
from django.urls import path
from pynamodb.models import Model

from dynamo_admin import ModelAdmin
from dynamo_admin.display import plain
from dynamo_admin.models import CHANGE, AdminLog
from dynamo_admin.sites import DynamoAdminSite

from .samples.archives import Archive, BlankArchive, FragileArchive, NumberedArchive

URLCONF = f"{__package__}.odd_data_urls"  # a module made by the `pages` fixture
ARCHIVED = datetime(2026, 3, 1, 9, 30)  # naive, as the archive job stored it
ARCHIVED_TEXT = "March 1, 2026, 9:30 a.m. UTC"  # not 5:30 p.m.: Manila is the admin's zone


MODELS = (Archive, FragileArchive, BlankArchive, NumberedArchive)


class ArchiveAdmin(ModelAdmin):
    list_display = ("__str__", "archived_at")


@pytest.fixture
def admin_pages(librarian, settings) -> Iterator[Client]:
    """Serve the models over one table holding an untitled item archived at 9:30 UTC."""
    site = DynamoAdminSite()
    for model in MODELS:
        site.register(model, ArchiveAdmin)
    module = types.ModuleType(URLCONF)
    module.urlpatterns = [path("admin/", site.urls)]
    sys.modules[URLCONF] = module
    settings.ROOT_URLCONF = URLCONF
    settings.TIME_ZONE = "Asia/Manila"
    Archive.create_table(wait=True)
    Archive("A", 7, archived_at=ARCHIVED).save()
    try:
        yield librarian
    finally:
        sys.modules.pop(URLCONF, None)
        for model in MODELS:
            if "_meta" in model.__dict__:
                delattr(model, "_meta")


def url_of(model: type[Model], page: str = "") -> str:
    return f"/admin/samples/{model.__name__.lower()}/{page}"


def item_url(model: type[Model], page: str) -> str:
    return url_of(model, f"{quote('A')},7/{page}/")


@pytest.mark.parametrize(
    "model",
    [pytest.param(model) for model in MODELS],
    ids=lambda m: m.__name__,
)
def test_the_listing_names_the_item_by_its_key_and_its_time_as_stored_in_utc(admin_pages, model):
    response = admin_pages.get(url_of(model))

    assert response.status_code == 200
    page = response.content.decode()
    assert "A / 7" in page
    assert ARCHIVED_TEXT in page


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_the_change_page_shows_the_key_and_the_stored_time_in_utc(admin_pages, model):
    response = admin_pages.get(item_url(model, "change"))

    assert response.status_code == 200
    page = response.content.decode()
    assert "A / 7" in page
    assert ARCHIVED_TEXT in page


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_the_history_page_names_a_key_only_item_by_its_key(admin_pages, model):
    response = admin_pages.get(item_url(model, "history"))

    assert response.status_code == 200
    assert "Change history: A / 7" in response.content.decode()


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_the_delete_page_names_the_item_and_the_delete_says_which(admin_pages, model):
    response = admin_pages.get(item_url(model, "delete"))
    assert response.status_code == 200
    assert "A / 7" in response.content.decode()

    response = admin_pages.post(item_url(model, "delete"), follow=True)

    assert response.status_code == 200
    assert "“A / 7” was deleted successfully" in response.content.decode()
    assert Archive.count() == 0


def test_a_logged_naive_time_reads_as_utc_in_the_history(admin_pages):
    """A project's archive job logs its change as the admin logs one, each value plain()."""
    moved = datetime(2026, 3, 2, 1, 30, tzinfo=UTC)
    changes = {"archived_at": [plain(ARCHIVED), plain(moved)]}
    AdminLog.record(Archive.get("A", 7), CHANGE, "archiver", changes)

    response = admin_pages.get(item_url(Archive, "history"))

    assert response.status_code == 200
    history = response.content.decode()
    assert ARCHIVED_TEXT in history  # the old time, logged without an offset
    assert "March 2, 2026, 9:30 a.m.<" in history  # the new one, in Manila, no "UTC"
