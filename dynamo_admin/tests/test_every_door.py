"""Every door that writes an item, driven with generated items and edits: the change page, an
inline row, the change-a-field action, the import page, `import_items` (CSV and JSON Lines),
the delete page and the delete action.

Over the AWS guide's ProductCatalog (a plain model whose items carry attributes it does not
declare, put by boto3) on DynamoDB Local, and over the example library (versioned models, a
shelf's books inline) on moto. Each item is read with GetItem before a door and after it: only
what the person changed differs (and a DynamoModel's version and updated_at), every other
attribute, declared or not, is byte-identical; a read-only field in the request changes
nothing; each write has its new History entry, and a refused one none.
"""

from __future__ import annotations

import html
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User as StaffUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from library.models import GENRES, Book, Shelf
from pynamodb.models import Model

from dynamo import local, meter, tables
from dynamo.codec import encode_item
from dynamo.models import DynamoModel, configure
from dynamo_admin.csvfiles import csv_lines
from dynamo_admin.forms import VERSION_FIELD
from dynamo_admin.meta import meta
from dynamo_admin.models import AdminLog

from .budget import examples
from .conftest import logged_in, staff
from .engines import SESSION, point, tables_dropped_after
from .pages import form_fields
from .samples.admin import ProductCatalogAdmin
from .samples.models import ProductCatalog

PRODUCTS = "/admin/samples/productcatalog/"
BOOKS = "/admin/library/book/"
SHELVES = "/admin/library/shelf/"
FORMATS = ("csv", "jsonl")
DELETED = "deleted"

# A dozen examples a door: the module runs in well under a minute on both engines.
DOOR = settings(
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

# Each example's items have keys of their own, so no example reads another's items or History.
_serial = itertools.count(1000)


# --- what is stored -----------------------------------------------------------------------
def normal(raw: Any) -> Any:
    """Return a raw value by its meaning: numbers as Decimals, set members sorted."""
    if raw is None:
        return None
    (kind, inner), *_ = raw.items()
    if kind == "N":
        return ("N", Decimal(inner))
    if kind == "NS":
        return ("NS", sorted(Decimal(v) for v in inner))
    if kind in ("SS", "BS"):
        return (kind, sorted(inner))
    if kind == "M":
        return ("M", {k: normal(v) for k, v in inner.items()})
    if kind == "L":
        return ("L", [normal(v) for v in inner])
    return (kind, inner)


def differing(before: dict, after: dict) -> set[str]:
    """Return the attributes whose stored values differ between two GetItems, byte for byte."""
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def raw_key(item: Model) -> dict[str, dict[str, str]]:
    """Return an item's key as the client takes it."""
    attributes = item.get_attributes()
    return {
        attributes[name].attr_name: {
            attributes[name].attr_type: attributes[name].serialize(getattr(item, name))
        }
        for name in meta(type(item)).key_names
    }


def history(item: Model) -> list[AdminLog]:
    """Return the item's History entries, newest first, read consistently."""
    return AdminLog.entries_about(item, consistent_read=True)


@dataclass(frozen=True)
class Edit:
    """One attribute as a person sets it: what its field posts, what DynamoDB then holds."""

    name: str  # the attribute's Python name
    posted: str  # what the change page's field posts (a CSV cell holds the same)
    stored: dict | None  # the raw value expected after (None: absent)
    valid: bool = True  # whether the model's rules take it

    def attr_name(self, model: type[Model]) -> str:
        return model.get_attributes()[self.name].attr_name


class Items:
    """Items read with GetItem (consistent) before a door and after it, and their History."""

    def __init__(self, client, user: str, **items: Model) -> None:
        self.client, self.user, self.items = client, user, items
        self.before = {role: self.stored(role) for role in items}
        self.logged = {role: len(history(item)) for role, item in items.items()}

    def stored(self, role: str) -> dict | None:
        item = self.items[role]
        return self.client.get_item(
            TableName=item.Meta.table_name, Key=raw_key(item), ConsistentRead=True
        ).get("Item")

    def same(self, role: str, edit: Edit) -> bool:
        """Return whether an edit sets the value the item holds already (nothing to write)."""
        name = edit.attr_name(type(self.items[role]))
        return normal(self.before[role].get(name)) == normal(edit.stored)

    def new_entries(self, role: str) -> list[AdminLog]:
        entries = history(self.items[role])
        return entries[: len(entries) - self.logged[role]]

    def assert_written(self, **done: Edit | str) -> int:
        """Assert each item holds what its door did (an Edit, DELETED), the others as before;
        return how many were written.

        An edited item differs in the edited attribute only (a DynamoModel's version and
        updated_at too), unless the model's rules refused the value or it was the stored one;
        each item written has one new History entry, every other none.
        """
        written = 0
        for role, item in self.items.items():
            model, before, after = type(item), self.before[role], self.stored(role)
            entries = self.new_entries(role)
            what = done.get(role)
            if isinstance(what, Edit):
                name = what.attr_name(model)
                if not what.valid or self.same(role, what):
                    what = None  # refused, or nothing to change
            if what is None:
                assert after == before, role
                assert entries == [], role
                continue
            assert len(entries) == 1, (role, entries)
            entry, written = entries[0], written + 1
            assert entry.user == self.user
            if what == DELETED:
                assert after is None and entry.action == "delete", role
                continue
            automatic = {"version", "updated_at"} if issubclass(model, DynamoModel) else set()
            assert differing(before, after) == {name, *automatic}, role
            assert normal(after.get(name)) == normal(what.stored), role
            if automatic:
                assert int(after["version"]["N"]) == int(before["version"]["N"]) + 1, role
            assert (entry.action, set(entry.changes)) == ("change", {what.name}), role
        return written

    def unchanged(self) -> None:
        self.assert_written()


def assert_one_transaction_each(calls: meter.Meter, writes: int) -> None:
    """Assert each write went out in one TransactWriteItems with its History entry: no item
    and no entry was written on its own (a delete's entries are blanked after, in batches)."""
    assert calls.count_of("TransactWriteItems") == writes
    assert calls.count_of("PutItem") == calls.count_of("UpdateItem") == 0
    assert calls.count_of("DeleteItem") == 0


# --- requests -----------------------------------------------------------------------------
def payload_of(page: str) -> str:
    return html.unescape(re.search(r'name="payload" value="([^"]+)"', page).group(1))


def states_of(page: str) -> list[str]:
    return [html.unescape(s) for s in re.findall(r'name="_state" value="([^"]+)"', page)]


def change_field(client: Client, url: str, selected: list[str], step: str, **data):
    """Post one step of the change-a-field action over the selected object ids."""
    return client.post(
        url, {"action": "change_field", "_selected_action": selected, "step": step, **data}
    )


def forged_value(name: str) -> dict[str, str]:
    """Return a value posted for a field, as a plain input and as a date and time's two."""
    return {f"value-{name}": "2", f"value-{name}_0": "2001-01-01", f"value-{name}_1": "00:00:00"}


def redirected_page(client: Client, response) -> str:
    """Return the page a redirect leads to (with the messages the redirected view left)."""
    assert response.status_code == 302, response.content.decode()[-2000:]
    return client.get(response["Location"]).content.decode()


def csv_text(header: list[str], *rows: list[str]) -> str:
    """Return a CSV file as the export writes one (cells escaped from spreadsheets)."""
    return "".join(csv_lines([header, *rows]))


def jsonl_text(*items: dict) -> str:
    """Return JSON Lines of raw items (the client's form) in DynamoDB JSON."""
    return "".join(json.dumps(encode_item(item)) + "\n" for item in items)


def preview_import(client: Client, url: str, kind: str, text: str) -> str:
    upload = SimpleUploadedFile(f"items.{kind}", text.encode())
    return client.post(f"{url}import/", {"file": upload}).content.decode()


def confirm_import(client: Client, url: str, preview: str, skip_refused: bool = False):
    data = {"payload": payload_of(preview), **({"skip_refused": "on"} if skip_refused else {})}
    return client.post(f"{url}import/", data)


def import_items(label: str, path, *args: str) -> tuple[str, meter.Meter]:
    """Run import_items as sam; return its output (a CommandError's message last), its calls."""
    out = StringIO()
    with meter.metered() as calls:
        try:
            call_command("import_items", label, str(path), "--user", "sam", *args, stdout=out)
        except CommandError as exc:
            out.write(f"CommandError: {exc}")
    return out.getvalue(), calls


# --- generated values ---------------------------------------------------------------------
WORD = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789", min_size=1, max_size=8)
TEXT = st.text(
    st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs")), min_size=1, max_size=24
)
NUMBER_TEXT = st.one_of(
    st.integers(-(10**12), 10**12).map(str),
    st.decimals(-10_000, 10_000, places=2, allow_nan=False, allow_infinity=False).map(str),
)


def any_value(binary: bool = True) -> st.SearchStrategy[dict]:
    """Any DynamoDB value as the client holds it: what a boto3 script puts beside a model's."""
    binaries = (
        st.binary(min_size=1, max_size=8).map(lambda b: {"B": b}),
        st.lists(st.binary(min_size=1, max_size=4), min_size=1, max_size=3, unique=True).map(
            lambda v: {"BS": v}
        ),
    )
    scalars = st.one_of(
        st.text(max_size=10).map(lambda s: {"S": s}),
        NUMBER_TEXT.map(lambda n: {"N": n}),
        st.booleans().map(lambda b: {"BOOL": b}),
        st.just({"NULL": True}),
        st.lists(WORD, min_size=1, max_size=4, unique=True).map(lambda v: {"SS": v}),
        st.lists(st.integers(-999, 999), min_size=1, max_size=4, unique=True).map(
            lambda v: {"NS": [str(n) for n in v]}
        ),
        *(binaries if binary else ()),
    )

    def containers(inner: st.SearchStrategy[dict]) -> st.SearchStrategy[dict]:
        return st.one_of(
            st.lists(inner, max_size=3).map(lambda v: {"L": v}),
            st.dictionaries(WORD, inner, max_size=3).map(lambda v: {"M": v}),
        )

    return st.recursive(scalars, containers, max_leaves=6)


def undeclared(model: type[Model]) -> st.SearchStrategy[dict]:
    """A few attributes the model does not declare, named clear of its own names.

    Clear of its Python names too: test_an_undeclared_attribute_named_as_a_declared_one_...
    shows what an import does with those.
    """
    taken = {n for name, a in model.get_attributes().items() for n in (name, a.attr_name)}
    names = st.text("abcdefghijklmnopqrstuvwxyzXYZ_", min_size=1, max_size=10)
    return st.dictionaries(names.filter(lambda name: name not in taken), any_value(), max_size=4)


def undeclared_name(stored: dict, model: type[Model]) -> str:
    """Return an attribute the item holds that its model does not declare (a new name if none)."""
    declared = {a.attr_name for a in model.get_attributes().values()}
    return next((name for name in sorted(stored) if name not in declared), "Dimensions")


# ==========================================================================================
# The AWS guide's ProductCatalog on DynamoDB Local: a plain model, undeclared attributes.
# ==========================================================================================
# Shown read-only here, as a project's admin may; the key is read-only once stored.
CATALOG_READONLY = ("product_category",)


def catalog_edits() -> st.SearchStrategy[Edit]:
    def three_state(word: str) -> Edit:
        stored = {"true": {"BOOL": True}, "false": {"BOOL": False}}.get(word)
        return Edit("in_publication", word, stored)

    return st.one_of(
        TEXT.map(lambda t: Edit("title", t, {"S": t})),
        NUMBER_TEXT.map(lambda n: Edit("price", n, {"N": n})),
        st.sampled_from(["true", "false", "unknown"]).map(three_state),
        st.lists(WORD, max_size=3, unique=True).map(
            lambda v: Edit("authors", "\n".join(v), {"SS": v} if v else None)
        ),
        st.lists(st.integers(-999, 999), max_size=3, unique=True).map(
            lambda v: Edit(
                "related_items", "\n".join(map(str, v)), {"NS": [str(n) for n in v]} if v else None
            )
        ),
        st.dictionaries(WORD, TEXT, min_size=1, max_size=3).map(
            lambda v: Edit("pictures", json.dumps(v), {"M": {k: {"S": s} for k, s in v.items()}})
        ),
    )


@st.composite
def catalog_items(draw) -> dict:
    """A ProductCatalog item as a boto3 script puts it: some declared values, some not."""
    declared = draw(st.lists(catalog_edits(), max_size=4, unique_by=lambda e: e.name))
    item = {"Id": {"N": str(next(_serial))}, "Title": {"S": draw(TEXT)}}
    item.update({e.attr_name(ProductCatalog): e.stored for e in declared if e.stored})
    if draw(st.booleans()):
        item["ProductCategory"] = {"S": draw(st.sampled_from(["Book", "Bicycle"]))}
    if draw(st.booleans()):
        # Any map a script wrote, but binary: test_the_change_page_opens_an_item_whose_map_...
        item["Pictures"] = {"M": draw(st.dictionaries(WORD, any_value(binary=False), max_size=3))}
    item.update(draw(undeclared(ProductCatalog)))
    return item


@pytest.fixture(scope="module")
def engine(dynamodb_local) -> Iterator[local.Engine]:
    """DynamoDB Local with ProductCatalog as the guide's boto3 script makes it."""
    with tables_dropped_after(dynamodb_local) as engine:
        engine.client.create_table(
            TableName="ProductCatalog",
            KeySchema=[{"AttributeName": "Id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "Id", "AttributeType": "N"}],
            BillingMode="PAY_PER_REQUEST",
        )
        point([ProductCatalog], engine.endpoint)
        yield engine


@pytest.fixture
def catalog(engine, db, monkeypatch) -> Client:
    """Sam, a superuser, on the catalog's admin; the admin's log on the same engine."""
    configure(endpoint=engine.endpoint, region="us-east-1")
    tables.create_missing(AdminLog)
    monkeypatch.setattr(ProductCatalogAdmin, "readonly_fields", CATALOG_READONLY)
    meter.instrument(ProductCatalog._get_connection().connection.client)  # as its pages do
    client = Client()
    client.force_login(StaffUser.objects.create_superuser("sam", "sam@example.com", "pw"))
    return client


def put_product(engine: local.Engine, item: dict) -> Items:
    engine.client.put_item(TableName="ProductCatalog", Item=item)
    return Items(engine.client, "sam", product=ProductCatalog(int(item["Id"]["N"])))


def forged_product_fields(product: Items) -> dict[str, str]:
    """Return what a request may carry and not change: the key, a read-only field, an
    undeclared attribute, a declared one by its stored name."""
    id_ = product.items["product"].id
    return {
        "id": str(id_ + 1),
        "Id": str(id_ + 1),
        "product_category": "Forged",
        undeclared_name(product.before["product"], ProductCatalog): "forged",
        "Title": "Forged by its stored name",
    }


@DOOR
@given(item=catalog_items(), edit=catalog_edits())
def test_the_change_page_writes_only_the_edited_attribute(catalog, engine, item, edit):
    product = put_product(engine, item)
    url = f"{PRODUCTS}{item['Id']['N']}/change/"
    forged = forged_product_fields(product)

    # Fields it may not change, alone: nothing is written, nothing logged.
    assert catalog.post(url, {**form_fields(catalog, url), **forged}).status_code == 302
    product.unchanged()

    form = form_fields(catalog, url)
    assert "product_category" not in form and "id" not in form
    saved = catalog.post(url, {**form, **forged, edit.name: edit.posted})

    assert saved.status_code == 302, saved.content.decode()[-2000:]
    written = product.assert_written(product=edit)
    assert_one_transaction_each(saved.wsgi_request.dynamo_meter, written)


@DOOR
@given(
    item=catalog_items(),
    edit=catalog_edits(),
    forged=st.sampled_from(["id", "product_category", "Title", "undeclared"]),
)
def test_the_change_a_field_action_writes_only_that_field(catalog, engine, item, edit, forged):
    product = put_product(engine, item)
    if forged == "undeclared":
        forged = undeclared_name(item, ProductCatalog)
    selected = [item["Id"]["N"]]
    state = json.dumps({"version": None, "shown": "{}"})

    # A field the change page shows read-only, or not at all, is not offered, nor written.
    refused = change_field(
        catalog, PRODUCTS, selected, "confirm", field=forged, _state=state, **forged_value(forged)
    )
    assert refused.status_code == 200
    product.unchanged()

    value = {f"value-{edit.name}": edit.posted, **forged_value("product_category")}
    preview = change_field(catalog, PRODUCTS, selected, "preview", field=edit.name, **value)
    states = states_of(preview.content.decode())
    assert len(states) == 1
    product.unchanged()  # a preview writes nothing
    confirmed = change_field(
        catalog, PRODUCTS, selected, "confirm", field=edit.name, _state=states, **value
    )

    assert "refused 0." in redirected_page(catalog, confirmed)
    written = product.assert_written(product=edit)
    assert_one_transaction_each(confirmed.wsgi_request.dynamo_meter, written)


def product_file(product: Items, edit: Edit, kind: str, forged: str | None = None) -> str:
    """Return a file setting the edited attribute; `forged`: and one it may not change."""
    stored = product.before["product"]
    if kind == "csv":
        header, row = ["id", edit.name], [stored["Id"]["N"], edit.posted]
        if forged:  # the only column a CSV may hold that the admin shows read-only
            header, row = [*header, "product_category"], [*row, "Forged"]
        return csv_text(header, row)
    line = {**stored, edit.attr_name(ProductCatalog): edit.stored}
    if forged == "undeclared":
        line[undeclared_name(stored, ProductCatalog)] = {"S": "Forged"}
    elif forged:
        line["ProductCategory"] = {"S": "Forged"}
    return jsonl_text(line)


@DOOR
@pytest.mark.parametrize("kind", FORMATS)
@given(
    item=catalog_items(),
    edit=catalog_edits(),
    forged=st.sampled_from(["readonly", "undeclared"]),
)
def test_the_import_page_writes_only_the_file_s_changes(catalog, engine, kind, item, edit, forged):
    # A JSON Lines row leaves out what it keeps: it cannot say "remove".
    assume(kind == "csv" or edit.stored is not None)
    product = put_product(engine, item)

    preview = preview_import(catalog, PRODUCTS, kind, product_file(product, edit, kind, forged))
    confirmed = confirm_import(catalog, PRODUCTS, preview, skip_refused=True)

    assert "0 new, 0 changed, 0 unchanged, 1 refused" in preview
    assert "0 new, 0 changed, 0 unchanged, 1 refused." in redirected_page(catalog, confirmed)
    product.unchanged()

    preview = preview_import(catalog, PRODUCTS, kind, product_file(product, edit, kind))
    assert "0 refused" in preview
    product.unchanged()  # a preview writes nothing
    confirmed = confirm_import(catalog, PRODUCTS, preview)

    assert "0 refused." in redirected_page(catalog, confirmed)
    written = product.assert_written(product=edit)
    assert_one_transaction_each(confirmed.wsgi_request.dynamo_meter, written)


@DOOR
@pytest.mark.parametrize("kind", FORMATS)
@given(
    item=catalog_items(),
    edit=catalog_edits(),
    forged=st.sampled_from(["readonly", "undeclared"]),
)
def test_import_items_writes_only_the_file_s_changes(
    catalog, engine, tmp_path, kind, item, edit, forged
):
    assume(kind == "csv" or edit.stored is not None)
    product = put_product(engine, item)
    path = tmp_path / f"products.{kind}"
    path.write_text(product_file(product, edit, kind, forged))

    assert "1 rows refused" in import_items("samples.ProductCatalog", path)[0]
    skipped, _calls = import_items("samples.ProductCatalog", path, "--skip-refused")
    assert "Imported: 0 new, 0 changed, 0 unchanged, 1 refused" in skipped
    product.unchanged()

    path.write_text(product_file(product, edit, kind))
    out, calls = import_items("samples.ProductCatalog", path)

    assert "0 refused" in out and "CommandError" not in out
    written = product.assert_written(product=edit)
    assert_one_transaction_each(calls, written)


@DOOR
@given(item=catalog_items())
def test_the_delete_page_deletes_the_item_with_its_entry(catalog, engine, item):
    product = put_product(engine, item)
    url = f"{PRODUCTS}{item['Id']['N']}/delete/"
    editor = logged_in(
        staff(
            f"ed{item['Id']['N']}", "samples.view_productcatalog", "samples.change_productcatalog"
        )
    )

    assert editor.post(url, {"post": "yes"}).status_code == 403
    assert catalog.get(url).status_code == 200  # the confirmation writes nothing
    product.unchanged()

    deleted = catalog.post(url, {"post": "yes", "id": "1"})

    assert deleted.status_code == 302
    assert_one_transaction_each(deleted.wsgi_request.dynamo_meter, 1)
    product.assert_written(product=DELETED)


# --- what the generated items once steered clear of: each a bug, mended ---
def test_the_change_page_opens_an_item_whose_map_holds_binary(catalog, engine):
    product = put_product(
        engine,
        {
            "Id": {"N": str(next(_serial))},
            "Title": {"S": "Scan"},
            "Pictures": {"M": {"raw": {"B": b"\x00"}}},
        },
    )
    url = f"{PRODUCTS}{product.items['product'].id}/change/"

    form = form_fields(catalog, url)  # a 500 before the fix; the map is read-only now
    saved = catalog.post(url, {**form, "title": "Scan, renamed"})

    assert saved.status_code == 302
    product.assert_written(product=Edit("title", "Scan, renamed", {"S": "Scan, renamed"}))


def test_an_undeclared_attribute_named_as_a_declared_one_is_kept_by_an_import(
    catalog, engine, tmp_path
):
    # Title is declared (python name `title`); `title` is another attribute a script wrote.
    product = put_product(
        engine,
        {"Id": {"N": str(next(_serial))}, "Title": {"S": "Kept"}, "title": {"S": "lowercase"}},
    )
    path = tmp_path / "products.jsonl"
    path.write_text(jsonl_text({**product.before["product"], "Title": {"S": "New title"}}))

    out, _calls = import_items("samples.ProductCatalog", path)

    # Before the fix: Title is written as "RawValue(raw={'S': 'lowercase'})".
    product.assert_written(product=Edit("title", "New title", {"S": "New title"}))
    assert "1 changed" in out


def test_an_undeclared_set_listed_in_another_order_is_as_stored(catalog, engine, tmp_path):
    product = put_product(
        engine,
        {
            "Id": {"N": str(next(_serial))},
            "Title": {"S": "Bike"},
            "Color": {"SS": ["Red", "Black"]},
        },
    )
    stored = product.before["product"]
    path = tmp_path / "products.jsonl"
    # The same set, its members in the other order (as another tool may list them).
    members = list(reversed(stored["Color"]["SS"]))
    path.write_text(jsonl_text({**stored, "Title": {"S": "Bike 2"}, "Color": {"SS": members}}))

    out, _calls = import_items("samples.ProductCatalog", path)

    assert "0 refused" in out, out
    product.assert_written(product=Edit("title", "Bike 2", {"S": "Bike 2"}))


# ==========================================================================================
# The example library on moto: versioned models, a shelf's books edited inline.
# ==========================================================================================
BOOK_FIELDS = ["shelf", "isbn", "title", "genre", "copies"]


def book_edits() -> st.SearchStrategy[Edit]:
    """An edit of a book, some breaking the model's rules (a genre, 0 to 1000 copies)."""
    return st.one_of(
        TEXT.map(lambda t: Edit("title", t, {"S": t})),
        st.just(Edit("title", "T" * 201, {"S": "T" * 201}, valid=False)),
        st.sampled_from([*GENRES, "Cookery"]).map(
            lambda g: Edit("genre", g, {"S": g}, valid=g in GENRES)
        ),
        st.integers(-2, 1002).map(
            lambda n: Edit("copies", str(n), {"N": str(n)}, valid=0 <= n <= 1000)
        ),
    )


@st.composite
def shelves(draw) -> dict:
    """A shelf and its two books, each with attributes a boto3 script added beside the model's."""
    code = f"S{next(_serial)}"
    books = [
        {
            "isbn": f"978{code[1:]}{n}",
            "title": draw(TEXT),
            "genre": draw(st.sampled_from(GENRES)),
            "copies": draw(st.integers(0, 20)),
            "undeclared": draw(undeclared(Book)),
        }
        for n in range(2)
    ]
    return {"code": code, "undeclared": draw(undeclared(Shelf)), "books": books}


@pytest.fixture
def moto_client(dynamo):
    return SESSION.client("dynamodb", region_name="us-east-1")


def put_shelf(client, shelf: dict) -> Items:
    """Save the shelf and its books through their models, then add what a script adds."""
    items = {"shelf": Shelf(shelf["code"], name=f"Shelf {shelf['code']}")}
    for n, book in enumerate(shelf["books"]):
        fields = {k: v for k, v in book.items() if k not in ("isbn", "undeclared")}
        items[f"book{n}"] = Book(shelf["code"], book["isbn"], **fields)
    extras = [shelf["undeclared"], *(book["undeclared"] for book in shelf["books"])]
    for item, extra in zip(items.values(), extras, strict=True):
        item.save()
        for name, value in extra.items():
            client.update_item(
                TableName=item.Meta.table_name,
                Key=raw_key(item),
                UpdateExpression="SET #n = :v",
                ExpressionAttributeNames={"#n": name},
                ExpressionAttributeValues={":v": value},
            )
    return Items(client, "lena", **items)


def book_id(shelf: dict, n: int) -> str:
    return f"{shelf['code']},{shelf['books'][n]['isbn']}"


def forged_book_fields(shelf: Items, role: str, prefix: str = "") -> dict[str, str]:
    """Return what a request may carry for a book and not change: its key, its version and
    times, an undeclared attribute."""
    fields = {
        "shelf": "ELSEWHERE",
        "isbn": "9780000000000",
        "version": "99",
        "created_at_0": "2001-01-01",
        "created_at_1": "00:00:00",
        "updated_at_0": "2001-01-01",
        "updated_at_1": "00:00:00",
        undeclared_name(shelf.before[role], Book): "forged",
    }
    return {f"{prefix}{name}": value for name, value in fields.items()}


@DOOR
@given(shelf=shelves(), edit=book_edits(), n=st.integers(0, 1))
def test_the_book_change_page_writes_only_the_edited_field(librarian, moto_client, shelf, edit, n):
    items = put_shelf(moto_client, shelf)
    url = f"{BOOKS}{book_id(shelf, n)}/change/"
    forged = forged_book_fields(items, f"book{n}")

    assert librarian.post(url, {**form_fields(librarian, url), **forged}).status_code == 302
    items.unchanged()
    # A save on a version the page did not show is refused whole, with no entry.
    stale = {**form_fields(librarian, url), edit.name: edit.posted, VERSION_FIELD: "2"}
    nothing_to_save = edit.valid and items.same(f"book{n}", edit)
    assert librarian.post(url, stale).status_code == (302 if nothing_to_save else 200)
    items.unchanged()

    saved = librarian.post(url, {**form_fields(librarian, url), **forged, edit.name: edit.posted})

    assert saved.status_code == (302 if edit.valid else 200)
    written = items.assert_written(**{f"book{n}": edit})
    assert_one_transaction_each(saved.wsgi_request.dynamo_meter, written)


@DOOR
@given(shelf=shelves(), edit=book_edits(), n=st.integers(0, 1))
def test_an_inline_row_writes_only_its_book(librarian, moto_client, shelf, edit, n):
    items = put_shelf(moto_client, shelf)
    url = f"{SHELVES}{shelf['code']}/change/"
    form = form_fields(librarian, url)
    [row] = [k.removesuffix("_key") for k, v in form.items() if v == book_id(shelf, n)]
    forged = {**forged_book_fields(items, f"book{n}", row), "code": "ELSEWHERE", "version": "99"}

    # The row's key, version and times, and the shelf's key, are fixed: nothing is written.
    assert librarian.post(url, {**form, **forged}).status_code == 302
    items.unchanged()
    stale = {**form, f"{row}{edit.name}": edit.posted, f"{row}{VERSION_FIELD}": "2"}
    nothing_to_save = edit.valid and items.same(f"book{n}", edit)
    assert librarian.post(url, stale).status_code == (302 if nothing_to_save else 200)
    items.unchanged()

    saved = librarian.post(url, {**form, **forged, f"{row}{edit.name}": edit.posted})

    assert saved.status_code == (302 if edit.valid else 200)
    written = items.assert_written(**{f"book{n}": edit})
    assert_one_transaction_each(saved.wsgi_request.dynamo_meter, written)


@DOOR
@given(
    shelf=shelves(),
    edit=book_edits(),
    forged=st.sampled_from(["shelf", "isbn", "version", "created_at", "updated_at", "undeclared"]),
)
def test_the_change_a_field_action_writes_that_field_of_each_book(
    librarian, moto_client, shelf, edit, forged
):
    items = put_shelf(moto_client, shelf)
    selected = [book_id(shelf, 0), book_id(shelf, 1)]
    if forged == "undeclared":
        forged = undeclared_name(items.before["book0"], Book)
    states = [json.dumps({"version": 1, "shown": "{}"})] * 2

    refused = change_field(
        librarian, BOOKS, selected, "confirm", field=forged, _state=states, **forged_value(forged)
    )
    assert refused.status_code == 200
    items.unchanged()

    value = {f"value-{edit.name}": edit.posted, **forged_value("version")}
    preview = change_field(librarian, BOOKS, selected, "preview", field=edit.name, **value)
    states = states_of(preview.content.decode())
    assert len(states) == 2
    confirmed = change_field(
        librarian, BOOKS, selected, "confirm", field=edit.name, _state=states, **value
    )

    assert ("refused 0." if edit.valid else "refused 2.") in redirected_page(librarian, confirmed)
    written = items.assert_written(book0=edit, book1=edit)
    assert_one_transaction_each(confirmed.wsgi_request.dynamo_meter, written)


def books_file(items: Items, n: int, edit: Edit, kind: str, forged: bool = False) -> str:
    """Return both books as stored, book n with the edit; `forged`: and its version changed."""
    if kind == "csv":
        rows = []
        for role in ("book0", "book1"):
            stored = items.before[role]
            values = {name: stored[name].get("S") or stored[name].get("N") for name in BOOK_FIELDS}
            if role == f"book{n}":
                values[edit.name] = edit.posted
            version = int(stored["version"]["N"]) + (role == f"book{n}" and forged)
            rows.append([*values.values(), str(version)])
        return csv_text([*BOOK_FIELDS, "version"], *rows)
    lines = [dict(items.before["book0"]), dict(items.before["book1"])]
    lines[n][edit.name] = edit.stored
    if forged:
        lines[n]["version"] = {"N": "99"}
    return jsonl_text(*lines)


def summary(items: Items, n: int, edit: Edit) -> str:
    """Return an import's counts for both books' rows, book n's edited."""
    if not edit.valid:
        return "0 new, 0 changed, 1 unchanged, 1 refused"
    same = items.same(f"book{n}", edit)
    return f"0 new, {0 if same else 1} changed, {2 if same else 1} unchanged, 0 refused"


@DOOR
@pytest.mark.parametrize("kind", FORMATS)
@given(shelf=shelves(), edit=book_edits(), n=st.integers(0, 1))
def test_the_import_page_writes_only_the_books_changes(
    librarian, moto_client, kind, shelf, edit, n
):
    items = put_shelf(moto_client, shelf)

    preview = preview_import(librarian, BOOKS, kind, books_file(items, n, edit, kind, forged=True))
    confirmed = confirm_import(librarian, BOOKS, preview, skip_refused=True)
    assert "1 refused" in preview and "1 refused." in redirected_page(librarian, confirmed)
    items.unchanged()

    preview = preview_import(librarian, BOOKS, kind, books_file(items, n, edit, kind))
    assert summary(items, n, edit) in preview
    items.unchanged()  # a preview writes nothing
    confirmed = confirm_import(librarian, BOOKS, preview, skip_refused=True)

    assert summary(items, n, edit) + "." in redirected_page(librarian, confirmed)
    written = items.assert_written(**{f"book{n}": edit})
    assert_one_transaction_each(confirmed.wsgi_request.dynamo_meter, written)


@DOOR
@pytest.mark.parametrize("kind", FORMATS)
@given(shelf=shelves(), edit=book_edits(), n=st.integers(0, 1))
def test_import_items_writes_only_the_books_changes(
    dynamo, moto_client, tmp_path, kind, shelf, edit, n
):
    items = put_shelf(moto_client, shelf)
    items.user = "sam"
    path = tmp_path / f"books.{kind}"
    path.write_text(books_file(items, n, edit, kind, forged=True))

    assert "1 rows refused" in import_items("library.Book", path)[0]
    items.unchanged()

    path.write_text(books_file(items, n, edit, kind))
    out, calls = import_items("library.Book", path, "--skip-refused")

    assert f"Imported: {summary(items, n, edit)}" in out
    written = items.assert_written(**{f"book{n}": edit})
    assert_one_transaction_each(calls, written)


@DOOR
@given(shelf=shelves(), target=st.sampled_from(["book0", "book1", "shelf"]), stale=st.booleans())
def test_the_delete_page_deletes_on_the_version_shown(librarian, moto_client, shelf, target, stale):
    items = put_shelf(moto_client, shelf)
    if target == "shelf":
        url = f"{SHELVES}{shelf['code']}/delete/"
    else:
        url = f"{BOOKS}{book_id(shelf, int(target[-1]))}/delete/"
    version = int(items.before[target]["version"]["N"])

    response = librarian.post(url, {"version": str(version + stale)})

    if stale:  # refused: a version the page did not show
        assert response.status_code == 200
        items.unchanged()
        return
    assert response.status_code == 302
    assert_one_transaction_each(response.wsgi_request.dynamo_meter, 1)
    if target == "shelf":  # its books go with it, in its transaction, each with its entry
        items.assert_written(shelf=DELETED, book0=DELETED, book1=DELETED)
    else:
        items.assert_written(**{target: DELETED})


@DOOR
@given(shelf=shelves(), stale=st.lists(st.booleans(), min_size=2, max_size=2))
def test_the_delete_action_deletes_each_book_on_its_version(librarian, moto_client, shelf, stale):
    items = put_shelf(moto_client, shelf)
    versions = [str(int(items.before[f"book{n}"]["version"]["N"]) + stale[n]) for n in range(2)]

    response = librarian.post(
        BOOKS,
        {
            "action": "delete_selected",
            "_selected_action": [book_id(shelf, 0), book_id(shelf, 1)],
            "_selected_version": versions,
            "post": "yes",
        },
    )

    assert response.status_code == 302
    written = items.assert_written(**{f"book{n}": DELETED for n in range(2) if not stale[n]})
    assert response.wsgi_request.dynamo_meter.count_of("TransactWriteItems") == written
