"""Discriminator families as public projects write them (samples/library.py), served as they
are: subclasses that redeclare a key attribute (a map's PK without its hash_key flag, which
PynamoDB still keys by), the type copied into an overloaded index's key (and named by an admin's
item_condition), a discriminator that is itself an index's hash or sort key. Each test runs
on moto and again on DynamoDB Local.
"""

from __future__ import annotations

import re
import sys
import types
from collections.abc import Iterator

import pytest
from django.contrib.admin.utils import quote
from django.contrib.auth.models import User as StaffUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import clear_url_caches, path

from dynamo_admin import ModelAdmin
from dynamo_admin.sites import DynamoAdminSite

from .engines import ENGINES, SESSION, canonical, empty, engine_for, point, tables_dropped_after
from .pages import form_fields
from .samples.library import (
    LIBRARY,
    TABLE,
    Author,
    Book,
    Loan,
    Map,
    Memo,
    make_library_table,
)


def s(text: str) -> dict:
    return {"S": text}


ITEMS = [
    {
        "PK": s("AUTHOR"),
        "SK": s("AUTHOR#le-guin"),
        "type": s("AUTHOR"),
        "GSI1PK": s("AUTHOR"),
        "GSI1SK": s("le-guin"),
        "name": s("Ursula K. Le Guin"),
    },
    {
        "PK": s("BOOK#earthsea"),
        "SK": s("BOOK"),
        "type": s("BOOK"),
        "GSI1PK": s("BOOK"),
        "GSI1SK": s("A Wizard of Earthsea"),
        "title": s("A Wizard of Earthsea"),
        "pages": {"N": "183"},
    },
    {
        "PK": s("MAP"),
        "SK": s("MAP#earthsea"),
        "type": s("MAP"),
        "GSI1PK": s("MAP"),
        "GSI1SK": s("Earthsea"),
        "label": s("The Archipelago"),
    },
    {
        "PK": s("MEMBER#7"),
        "SK": s("LOAN#earthsea"),
        "GSI1PK": s("LOAN"),
        "GSI1SK": s("2026-12-20"),
        "member": s("Ged"),
    },
    {
        "PK": s("MEMBER#7"),
        "SK": s("MEMO#1"),
        "GSI1PK": s("MEMBER#7"),
        "GSI1SK": s("MEMO"),
        "text": s("Return by Sunday"),
    },
]
# listing, the item's key, an attribute a person edits and its new value
SERVED = [
    ("author", ("AUTHOR", "AUTHOR#le-guin"), "name", "Ursula Le Guin"),
    ("book", ("BOOK#earthsea", "BOOK"), "title", "The Farthest Shore"),
    ("map", ("MAP", "MAP#earthsea"), "label", "The Reach"),
    ("loan", ("MEMBER#7", "LOAN#earthsea"), "member", "Tenar"),
    ("memo", ("MEMBER#7", "MEMO#1"), "text", "Return by Monday"),
]
URLCONF = f"{__package__}.library_urls"


class AuthorAdmin(ModelAdmin):
    # The discriminator's copy in the overloaded index key says it too, as a team writes it.
    item_condition = Author.GSI1PK == "AUTHOR"


@pytest.fixture(scope="module")
def local_library(dynamodb_local) -> Iterator:
    with tables_dropped_after(dynamodb_local) as engine:
        make_library_table(engine.client)
        yield engine


@pytest.fixture(params=ENGINES)
def library(request, db, settings) -> Iterator:
    """The table with ITEMS, and a site of this module's own serving each type."""
    engine = engine_for(request, "local_library", make_library_table)
    point(LIBRARY, engine.endpoint)
    for item in ITEMS:
        engine.client.put_item(TableName=TABLE, Item=item)
    site = DynamoAdminSite()
    site.register(Author, AuthorAdmin)
    for model in (Book, Map, Loan, Memo):
        site.register(model, ModelAdmin)
    module = types.ModuleType(URLCONF)
    module.urlpatterns = [path("admin/", site.urls)]
    sys.modules[URLCONF] = module
    settings.ROOT_URLCONF = URLCONF
    yield engine
    sys.modules.pop(URLCONF, None)
    clear_url_caches()
    if request.param == "local":
        engine.resource = SESSION.resource(
            "dynamodb",
            endpoint_url=engine.endpoint,
            region_name="us-east-1",
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )
        empty(engine, TABLE)


@pytest.fixture
def staff(library) -> Client:
    client = Client()
    client.force_login(StaffUser.objects.create_superuser("pat", "pat@example.com", "pw"))
    return client


def url(model: str, key: tuple[str, str], view: str = "change") -> str:
    return f"/admin/samples/{model}/{quote(key[0])},{quote(key[1])}/{view}/"


def stored(engine, key: tuple[str, str]) -> dict | None:
    typed = {"PK": s(key[0]), "SK": s(key[1])}
    return engine.client.get_item(TableName=TABLE, Key=typed, ConsistentRead=True).get("Item")


def other_items(engine, key: tuple[str, str]) -> list[str]:
    """Return every item but the one at this key, as stored."""
    items = engine.client.scan(TableName=TABLE, ConsistentRead=True)["Items"]
    return canonical([i for i in items if (i["PK"]["S"], i["SK"]["S"]) != key])


@pytest.mark.parametrize(("model", "key", "name", "value"), SERVED)
def test_each_type_lists_exactly_its_item(staff, model, key, name, value):
    response = staff.get(f"/admin/samples/{model}/")

    assert response.status_code == 200
    page = response.content.decode()
    shown = {k for _model, k, _name, _value in SERVED if url(model, k) in page}
    assert shown == {key}


@pytest.mark.parametrize(("model", "key", "name", "value"), SERVED)
def test_each_type_s_item_opens_with_its_attributes(staff, model, key, name, value):
    form = form_fields(staff, url(model, key))

    assert form[name] == next(i[name]["S"] for i in ITEMS if (i["PK"]["S"], i["SK"]["S"]) == key)


@pytest.mark.parametrize(("model", "key", "name", "value"), SERVED)
def test_an_edit_changes_only_the_edited_attribute(staff, library, model, key, name, value):
    form = form_fields(staff, url(model, key))
    form[name] = value
    before = stored(library, key)
    others = other_items(library, key)

    response = staff.post(url(model, key), form)

    assert response.status_code == 302, response.content.decode()[:2000]
    # Every attribute but the edited one byte-identical: the discriminator and its copies in
    # the index keys included; every other item untouched.
    assert stored(library, key) == {**before, name: s(value)}
    assert other_items(library, key) == others


@pytest.mark.parametrize(("model", "key", "name", "value"), SERVED)
def test_each_type_s_item_is_deleted_and_nothing_else(staff, library, model, key, name, value):
    others = other_items(library, key)

    response = staff.post(url(model, key, "delete"), {"post": "yes"})

    assert response.status_code == 302
    assert stored(library, key) is None
    assert other_items(library, key) == others


# --- the other doors of a subclass that redeclares its hash key without the flag (Map) ------
MAPS = "/admin/samples/map/"


def test_the_import_page_changes_and_adds_maps_and_nothing_else(staff, library):
    archipelago = ("MAP", "MAP#earthsea")
    before = stored(library, archipelago)
    csv = "PK,SK,label\nMAP,MAP#earthsea,The Reach\nMAP,MAP#kargad,The Kargad Lands\n"
    preview = staff.post(f"{MAPS}import/", {"file": SimpleUploadedFile("maps.csv", csv.encode())})
    page = preview.content.decode()
    assert "1 new, 1 changed, 0 unchanged, 0 refused" in page, page[-2000:]
    payload = re.search(r'name="payload" value="([^"]+)"', page).group(1)

    confirmed = staff.post(f"{MAPS}import/", {"payload": payload}, follow=True)

    assert "1 new, 1 changed, 0 unchanged, 0 refused" in confirmed.content.decode()
    assert stored(library, archipelago) == {**before, "label": s("The Reach")}
    assert stored(library, ("MAP", "MAP#kargad"))["type"] == s("MAP")


def test_the_export_page_writes_the_maps_only(staff):
    response = staff.get(f"{MAPS}export/", {"format": "csv"})

    text = b"".join(response.streaming_content).decode()
    assert response.status_code == 200
    assert [line.split(",")[:2] for line in text.splitlines()[1:]] == [["MAP", "MAP#earthsea"]]


def test_the_delete_action_deletes_the_selected_map_and_nothing_else(staff, library):
    key = ("MAP", "MAP#earthsea")
    listing = staff.get(MAPS).content.decode()
    selected = re.findall(r'name="_selected_action" value="([^"]*)"', listing)
    others = other_items(library, key)

    response = staff.post(
        MAPS, {"action": "delete_selected", "_selected_action": selected, "post": "yes"}
    )

    assert response.status_code == 302
    assert stored(library, key) is None
    assert other_items(library, key) == others
