"""import_items and export_items on a subclass that redeclares its hash key without the key flag
(samples/library.py's Map): PynamoDB keys maps by PK, but a connection made from Map's own
schema has none. The commands read and write through the same admin as the pages, before any
page has been opened in the process.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO

import pytest
from django.contrib import admin
from django.core.management import call_command

from dynamo_admin import ModelAdmin
from dynamo_admin.meta import ModelOpts

from .engines import SESSION, point
from .samples.library import LIBRARY, TABLE, Map, make_library_table
from .test_single_table_redeclared import ITEMS, s

# The map as the pages' tests store it.
ARCHIPELAGO = next(item for item in ITEMS if item["SK"] == s("MAP#earthsea"))
LOAN = {"PK": s("MEMBER#7"), "SK": s("LOAN#earthsea"), "GSI1PK": s("LOAN"), "member": s("Ged")}


class MapAdmin(ModelAdmin):
    list_display = ("PK", "SK", "label")


@pytest.fixture
def library(db, dynamo) -> Iterator:
    """The library table with a map and a loan, Map registered on the project's site, and no
    model of the family holding a connection yet (as in a fresh `manage.py` process)."""
    client = SESSION.client("dynamodb", region_name="us-east-1")
    make_library_table(client)
    point(LIBRARY, None)
    for item in (ARCHIPELAGO, LOAN):
        client.put_item(TableName=TABLE, Item=item)
    admin.site.register(Map, MapAdmin)
    try:
        yield client
    finally:
        admin.site.unregister(Map)
        Map._meta = ModelOpts(Map)
        point(LIBRARY, None)


def stored(client, pk: str, sk: str) -> dict | None:
    key = {"PK": s(pk), "SK": s(sk)}
    return client.get_item(TableName=TABLE, Key=key, ConsistentRead=True).get("Item")


def test_a_csv_import_adds_a_map_with_its_type_and_changes_only_the_edited_one(library, tmp_path):
    path = tmp_path / "maps.csv"
    path.write_text("PK,SK,label\nMAP,MAP#earthsea,The Reach\nMAP,MAP#kargad,The Kargad Lands\n")
    out = StringIO()

    call_command("import_items", "samples.Map", str(path), stdout=out)

    assert "Imported: 1 new, 1 changed, 0 unchanged, 0 refused" in out.getvalue()
    # The edited attribute only: the type and its copies in the index keys as they were.
    assert stored(library, "MAP", "MAP#earthsea") == {**ARCHIPELAGO, "label": s("The Reach")}
    added = stored(library, "MAP", "MAP#kargad")
    assert added["type"] == s("MAP") and added["label"] == s("The Kargad Lands")
    assert stored(library, "MEMBER#7", "LOAN#earthsea") == LOAN


def test_a_csv_export_writes_the_maps_and_nothing_of_another_type(library, tmp_path):
    path = tmp_path / "maps.csv"

    call_command(
        "export_items", "samples.Map", "--format", "csv", "-o", str(path), stdout=StringIO()
    )

    assert path.read_text().splitlines() == ["PK,SK,label", "MAP,MAP#earthsea,The Archipelago"]


def test_a_jsonl_export_writes_the_map_as_stored(library, tmp_path):
    path = tmp_path / "maps.jsonl"

    call_command("export_items", "samples.Map", "-o", str(path), stdout=StringIO())

    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["item"] for line in lines] == [ARCHIPELAGO]
