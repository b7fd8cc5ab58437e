"""The admin on tables it did not make: the AWS guide's sample tables, made by boto3 first.

Plain PynamoDB models (dynamo_admin/tests/samples) over ProductCatalog, Forum, Thread and
Reply on DynamoDB Local. After an edit, the item read back with GetItem is the item before
with only the edited attribute changed: undeclared attributes, sets and maps stay, no
version or timestamp is added, an absent boolean stays absent.
"""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO

import pytest
from django.contrib.auth.models import User as StaffUser
from django.core.management import call_command
from django.test import Client

from dynamo import local, tables
from dynamo.exceptions import EngineUnavailable
from dynamo.models import configure
from dynamo_admin.checks import check_log_table
from dynamo_admin.models import AdminLog

from .engines import canonical, empty, point, stored, tables_dropped_after
from .pages import form_fields
from .samples import models as samples

PRODUCT = "/admin/samples/productcatalog/"
FORUM = "/admin/samples/forum/"
THREAD = "/admin/samples/thread/"
REPLY = "/admin/samples/reply/"

SAMPLE_MODELS = (samples.ProductCatalog, samples.Forum, samples.Thread, samples.Reply)
BOOK_101 = {
    "Id": 101,
    "Title": "Book 101 Title",
    "ISBN": "111-1111111111",
    "Authors": {"Author1"},
    "Price": 2,
    "Dimensions": "8.5 x 11.0 x 0.5",
    "PageCount": 500,
    "InPublication": True,
    "ProductCategory": "Book",
}
BICYCLE_201 = {
    "Id": 201,
    "Title": "18-Bike-201",
    "Description": "201 Description",
    "BicycleType": "Road",
    "Brand": "Mountain A",
    "Price": 100,
    "Color": {"Red", "Black"},
    "ProductCategory": "Bicycle",
    "RelatedItems": {341, 472, 649},
    "Pictures": {"FrontView": "http://example.com/products/201_front.jpg"},
}


def make_sample_tables(client) -> None:
    """Create the guide's four tables, as a team's boto3 script does."""

    def create(name: str, *keys: tuple[str, str], **options) -> None:
        client.create_table(
            TableName=name,
            KeySchema=[
                {"AttributeName": key, "KeyType": kind}
                for (key, _type), kind in zip(keys, ("HASH", "RANGE"), strict=False)
            ],
            AttributeDefinitions=[
                {"AttributeName": key, "AttributeType": kind}
                for key, kind in (*keys, *options.pop("indexed", ()))
            ],
            BillingMode="PAY_PER_REQUEST",
            **options,
        )

    create("ProductCatalog", ("Id", "N"))
    create("Forum", ("Name", "S"))
    create("Thread", ("ForumName", "S"), ("Subject", "S"))
    create(
        "Reply",
        ("Id", "S"),
        ("ReplyDateTime", "S"),
        indexed=[("PostedBy", "S"), ("Message", "S")],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "PostedBy-Message-Index",
                "KeySchema": [
                    {"AttributeName": "PostedBy", "KeyType": "HASH"},
                    {"AttributeName": "Message", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )


def put_sample_items(resource) -> None:
    resource.Table("ProductCatalog").put_item(Item=BOOK_101)
    resource.Table("ProductCatalog").put_item(Item=BICYCLE_201)
    resource.Table("Forum").put_item(
        Item={"Name": "Amazon DynamoDB", "Category": "Amazon Web Services", "Threads": 2}
    )
    resource.Table("Forum").put_item(Item={"Name": "Amazon S3", "Category": "Amazon Web Services"})
    resource.Table("Thread").put_item(
        Item={
            "ForumName": "Amazon DynamoDB",
            "Subject": "DynamoDB Thread 1",
            "Message": "DynamoDB thread 1 message",
            "LastPostedBy": "User A",
            "Tags": {"index", "primarykey", "table"},
            "Answered": 0,
        }
    )
    resource.Table("Reply").put_item(
        Item={
            "Id": "Amazon DynamoDB#DynamoDB Thread 1",
            "ReplyDateTime": "2015-09-15T19:58:22.947Z",
            "Message": "DynamoDB Thread 1 Reply 1 text",
            "PostedBy": "User A",
        }
    )


@pytest.fixture(scope="module")
def engine(dynamodb_local) -> Iterator[local.Engine]:
    """DynamoDB Local with the sample tables boto3 made."""
    with tables_dropped_after(dynamodb_local) as engine:
        make_sample_tables(engine.client)
        point(SAMPLE_MODELS, engine.endpoint)
        yield engine


@pytest.fixture
def tables_ready(engine) -> Iterator[local.Engine]:
    """The sample items as the guide puts them; the admin's log on the same engine."""
    configure(endpoint=engine.endpoint, region="us-east-1")
    tables.create_missing(AdminLog)
    put_sample_items(engine.resource)
    yield engine
    empty(engine, "ProductCatalog", "Forum", "Thread", "Reply")


@pytest.fixture
def staff(db, tables_ready) -> Client:
    client = Client()
    client.force_login(StaffUser.objects.create_superuser("sam", "sam@example.com", "pw"))
    return client


def test_plain_models_are_listed_with_their_stored_names(staff):
    page = staff.get(PRODUCT).content.decode()
    assert "Book 101 Title" in page and "18-Bike-201" in page
    assert "Product catalog" in staff.get("/admin/").content.decode()
    assert "Amazon DynamoDB" in staff.get(FORUM).content.decode()
    assert "DynamoDB Thread 1" in staff.get(THREAD).content.decode()
    assert "User A" in staff.get(REPLY).content.decode()


def test_an_edit_of_one_attribute_writes_that_attribute_only(staff, tables_ready):
    before = stored(tables_ready, "ProductCatalog", Id=201)
    form = form_fields(staff, f"{PRODUCT}201/change/")
    form["title"] = "18-Bike-201 (2026)"

    response = staff.post(f"{PRODUCT}201/change/", form)

    assert response.status_code == 302
    after = stored(tables_ready, "ProductCatalog", Id=201)
    # Undeclared attributes, the string and number sets and the map are as they were.
    assert after == {**before, "Title": {"S": "18-Bike-201 (2026)"}}
    assert not {"version", "created_at", "updated_at"} & set(after)
    entry = AdminLog.history(samples.ProductCatalog(201))[0]  # the newest first
    assert entry.changes == {"title": ["18-Bike-201", "18-Bike-201 (2026)"]}


def test_an_absent_boolean_stays_absent(staff, tables_ready):
    form = form_fields(staff, f"{PRODUCT}201/change/")
    assert form["in_publication"] == "unknown"  # Django's three-state select
    form["price"] = "120"

    staff.post(f"{PRODUCT}201/change/", form)

    after = stored(tables_ready, "ProductCatalog", Id=201)
    assert "InPublication" not in after and after["Price"] == {"N": "120"}


def test_a_raced_edit_of_another_attribute_keeps_both(staff, tables_ready):
    form = form_fields(staff, f"{PRODUCT}101/change/")
    tables_ready.resource.Table("ProductCatalog").update_item(
        Key={"Id": 101}, UpdateExpression="SET Price = :p", ExpressionAttributeValues={":p": 3}
    )
    form["title"] = "Book 101, second edition"

    response = staff.post(f"{PRODUCT}101/change/", form)

    assert response.status_code == 302
    after = stored(tables_ready, "ProductCatalog", Id=101)
    assert after["Price"] == {"N": "3"} and after["Title"] == {"S": "Book 101, second edition"}


def test_a_raced_edit_of_the_same_attribute_is_refused(staff, tables_ready):
    logged = len(AdminLog.history(samples.ProductCatalog(101)))
    form = form_fields(staff, f"{PRODUCT}101/change/")
    tables_ready.resource.Table("ProductCatalog").update_item(
        Key={"Id": 101},
        UpdateExpression="SET Title = :t",
        ExpressionAttributeValues={":t": "Theirs"},
    )
    form["title"] = "Mine"

    response = staff.post(f"{PRODUCT}101/change/", form)

    assert response.status_code == 200
    assert "since you opened it" in response.content.decode()
    assert stored(tables_ready, "ProductCatalog", Id=101)["Title"] == {"S": "Theirs"}
    assert len(AdminLog.history(samples.ProductCatalog(101))) == logged


def test_an_item_without_a_version_is_deleted(staff, tables_ready):
    response = staff.post(f"{FORUM}Amazon%20S3/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert stored(tables_ready, "Forum", Name="Amazon S3") is None


def test_selected_items_without_a_version_are_deleted(staff, tables_ready):
    response = staff.post(
        FORUM,
        {"action": "delete_selected", "_selected_action": ["Amazon S3"], "post": "yes"},
    )

    assert response.status_code == 302
    assert stored(tables_ready, "Forum", Name="Amazon S3") is None
    assert stored(tables_ready, "Forum", Name="Amazon DynamoDB") is not None


def test_an_item_that_does_not_fit_its_model_is_listed_opened_shown_and_deleted(
    staff, tables_ready
):
    tables_ready.client.put_item(
        TableName="ProductCatalog",
        Item={"Id": {"N": "999"}, "Title": {"S": "Odd one"}, "Price": {"SS": ["1", "2"]}},
    )

    listing = staff.get(PRODUCT).content.decode()
    change = staff.get(f"{PRODUCT}999/change/")
    raw = staff.get(f"{PRODUCT}999/raw/")
    form = form_fields(staff, f"{PRODUCT}999/change/")
    form["title"] = "Odd one, renamed"
    saved = staff.post(f"{PRODUCT}999/change/", form)

    assert "Odd one" in listing and "stored as SS" in listing
    assert change.status_code == 200 and "the model expects N" in change.content.decode()
    assert "price" not in form  # shown read-only, never rewritten
    assert raw.status_code == 200 and "&quot;SS&quot;" in raw.content.decode()
    assert saved.status_code == 302
    after = stored(tables_ready, "ProductCatalog", Id=999)
    assert after["Price"] == {"SS": ["1", "2"]} and after["Title"] == {"S": "Odd one, renamed"}
    deleted = staff.post(f"{PRODUCT}999/delete/", {"post": "yes"})
    assert deleted.status_code == 302 and stored(tables_ready, "ProductCatalog", Id=999) is None


def test_a_key_with_spaces_is_found_whole(staff):
    page = staff.get(FORUM, {"q": "Amazon DynamoDB"}).content.decode()
    assert "Amazon DynamoDB" in page and "0 results" not in page
    assert "Amazon S3" not in page


def test_an_item_is_added_without_a_version_or_timestamps(staff, tables_ready):
    response = staff.post(
        f"{FORUM}add/", {"Name": "Amazon Lambda", "Category": "Amazon Web Services"}
    )

    assert response.status_code == 302
    assert stored(tables_ready, "Forum", Name="Amazon Lambda") == {
        "Name": {"S": "Amazon Lambda"},
        "Category": {"S": "Amazon Web Services"},
    }


def test_a_thread_with_a_hash_and_range_key_is_changed(staff, tables_ready):
    url = f"{THREAD}Amazon%20DynamoDB,DynamoDB%20Thread%201/change/"
    before = stored(
        tables_ready, "Thread", ForumName="Amazon DynamoDB", Subject="DynamoDB Thread 1"
    )
    form = form_fields(staff, url)
    form["LastPostedBy"] = "User B"

    assert staff.post(url, form).status_code == 302
    after = stored(tables_ready, "Thread", ForumName="Amazon DynamoDB", Subject="DynamoDB Thread 1")
    assert after == {**before, "LastPostedBy": {"S": "User B"}}


def test_a_missing_log_table_is_named_by_check_and_by_the_pages(staff, tables_ready):
    configure(endpoint=tables_ready.endpoint, region="us-east-1", prefix="no-log-yet-")
    try:
        [warning] = check_log_table(databases=["default"])
        index = staff.get("/admin/")
        form = form_fields(staff, f"{PRODUCT}101/change/")
        form["title"] = "Unsaved"
        saved = staff.post(f"{PRODUCT}101/change/", form)
    finally:
        configure(endpoint=tables_ready.endpoint, region="us-east-1")

    assert warning.id == "dynamo_admin.W101" and "create_tables" in warning.hint
    assert index.status_code == 200 and "create_tables" in index.content.decode()
    assert saved.status_code == 200 and "create_tables" in saved.content.decode()
    assert stored(tables_ready, "ProductCatalog", Id=101)["Title"] == {"S": "Book 101 Title"}
    assert check_log_table(databases=["default"]) == []


def test_export_then_import_gives_the_same_items_undeclared_attributes_too(tables_ready, tmp_path):
    before = tables_ready.client.scan(TableName="ProductCatalog")["Items"]
    path = tmp_path / "products.jsonl"
    call_command("export_items", "samples.ProductCatalog", "-o", str(path), stdout=StringIO())
    empty(tables_ready, "ProductCatalog")

    call_command("import_items", "samples.ProductCatalog", str(path), stdout=StringIO())

    after = tables_ready.client.scan(TableName="ProductCatalog")["Items"]
    assert canonical(after) == canonical(before)


def test_a_csv_import_changes_one_attribute_and_keeps_the_rest(tables_ready, tmp_path):
    before = stored(tables_ready, "ProductCatalog", Id=201)
    path = tmp_path / "prices.csv"
    path.write_text("id,price\n201,150\n")

    call_command("import_items", "samples.ProductCatalog", str(path), stdout=StringIO())

    assert stored(tables_ready, "ProductCatalog", Id=201) == {**before, "Price": {"N": "150"}}


def test_the_admins_pages_are_not_cut_by_the_request_deadline(staff, settings, monkeypatch):
    from dynamo import middleware

    settings.DYNAMODB_REQUEST_DEADLINE = 0.000_001  # any other page is a 503 at once

    assert middleware.is_admin_path(PRODUCT) and not middleware.is_admin_path("/leaderboard/")
    served = staff.get(PRODUCT)
    monkeypatch.setattr(middleware, "is_admin_path", lambda path: False)

    assert served.status_code == 200 and "Book 101 Title" in served.content.decode()
    with pytest.raises(EngineUnavailable):  # a 503 where EngineFailureMiddleware is installed
        staff.get(PRODUCT)


def test_search_fields_name_a_key_as_django_does_or_as_stored():
    """`=id` (the Python name) and `=Id` (the stored name) are one search and pass the checks."""
    from dynamo_admin.checks import check_search_fields
    from dynamo_admin.keys import searched
    from dynamo_admin.options import DynamoModelAdmin

    for spelling in ("=id", "=Id"):
        model_admin = type("Admin", (DynamoModelAdmin,), {"search_fields": (spelling,)})(
            samples.ProductCatalog, None
        )
        assert check_search_fields(model_admin) == [], spelling
        assert searched(samples.ProductCatalog, (spelling,), "id", "=")
    assert not searched(samples.ProductCatalog, ("=Title",), "id", "=")
