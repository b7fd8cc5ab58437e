"""The admin on models as real projects write them (dynamo_admin/tests/samples/styles.py),
their tables made by the models' own create_table() on DynamoDB Local: a discriminated single
table, typed maps and lists, defaults, custom attributes, binary, TTL, float and date-time keys.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.contrib.admin.utils import quote
from django.contrib.auth.models import User as StaffUser
from django.test import Client

from dynamo import local, tables
from dynamo.models import configure
from dynamo_admin.models import AdminLog

from .engines import empty, point, tables_dropped_after
from .pages import form_fields
from .samples.styles import (
    STYLES,
    Breaker,
    Circuit,
    Contact,
    LatLng,
    Location,
    Plan,
    Reading,
    Startup,
)

CIRCUIT = "/admin/samples/circuit/"
BREAKER = "/admin/samples/breaker/"
STARTUP = "/admin/samples/startup/"
READING = "/admin/samples/reading/"
TAKEN = datetime(2026, 11, 30, 8, 15, 30, 123456, tzinfo=UTC)


@pytest.fixture(scope="module")
def engine(dynamodb_local) -> Iterator[local.Engine]:
    with tables_dropped_after(dynamodb_local) as engine:
        point(STYLES, engine.endpoint)
        for model in STYLES:
            model.create_table(wait=True)
        yield engine


@pytest.fixture
def staff(db, engine) -> Iterator[Client]:
    configure(endpoint=engine.endpoint, region="us-east-1")
    tables.create_missing(AdminLog)
    Circuit("SITE#1", "CIRCUIT#1", label="Kitchen", state="on", tags={"a", "b"}).save()
    Breaker("SITE#1", "BREAKER#1", label="Main", amps=32).save()
    Startup(
        "STARTUP#1",
        startupName="Acme",
        version=3,
        location=Location(address="1 Main St", latlng=LatLng(lat=7.07, lng=125.6)),
        contacts=[Contact(platform="email", value="hi@acme.test")],
    ).save()
    Reading(
        4.25,
        TAKEN,
        note="first",
        plan=Plan.PREMIUM,
        price=Decimal("12.50"),
        blob=b"\x00\xffraw",
        blobs={b"\x01", b"\x02"},
        payload={"a": [1, 2]},
        expires=datetime(2030, 1, 1, tzinfo=UTC),
        counts={1, 2, 3},
    ).save()
    client = Client()
    client.force_login(StaffUser.objects.create_superuser("pat", "pat@example.com", "pw"))
    yield client
    empty(engine, "Entries", "Startups", "Readings")


def raw(engine, table: str, key: dict) -> dict:
    return engine.client.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]


def test_each_class_of_a_discriminated_table_lists_only_its_own_items(staff):
    circuits = staff.get(CIRCUIT).content.decode()
    breakers = staff.get(BREAKER).content.decode()

    assert "CIRCUIT#1" in circuits and "BREAKER#1" not in circuits
    assert "BREAKER#1" in breakers and "CIRCUIT#1" not in breakers


def test_another_class_s_key_under_a_subclass_url_is_not_found(staff):
    response = staff.get(f"{CIRCUIT}{quote('SITE#1')},{quote('BREAKER#1')}/change/")

    assert response.status_code == 302  # back to the listing: no such circuit
    assert response["Location"] == CIRCUIT


def test_the_discriminator_is_shown_not_edited_and_survives_a_save(staff, engine):
    url = f"{CIRCUIT}{quote('SITE#1')},{quote('CIRCUIT#1')}/change/"
    form = form_fields(staff, url)
    assert "kind" not in form
    form["state"] = "off"

    assert staff.post(url, {**form, "kind": "Breaker"}).status_code == 302
    item = raw(engine, "Entries", {"PK": {"S": "SITE#1"}, "SK": {"S": "CIRCUIT#1"}})
    assert item["kind"] == {"S": "Circuit"} and item["state"] == {"S": "off"}


def test_an_attribute_named_version_is_data_and_is_not_bumped(staff, engine):
    form = form_fields(staff, f"{STARTUP}{quote('STARTUP#1')}/change/")
    before = raw(engine, "Startups", {"hashKey": {"S": "STARTUP#1"}})
    form["startupName"] = "Acme Inc"

    assert staff.post(f"{STARTUP}{quote('STARTUP#1')}/change/", form).status_code == 302
    after = raw(engine, "Startups", {"hashKey": {"S": "STARTUP#1"}})
    # Typed maps, the list of maps and the absent defaulted list and map are as they were.
    assert after == {**before, "startupName": {"S": "Acme Inc"}}


def test_an_absent_attribute_with_a_default_stays_absent(staff, engine):
    engine.client.put_item(
        TableName="Startups", Item={"hashKey": {"S": "STARTUP#3"}, "startupName": {"S": "Gamma"}}
    )
    url = f"{STARTUP}{quote('STARTUP#3')}/change/"
    form = form_fields(staff, url)
    form["version"] = "2"

    assert staff.post(url, form).status_code == 302
    assert raw(engine, "Startups", {"hashKey": {"S": "STARTUP#3"}}) == {
        "hashKey": {"S": "STARTUP#3"},
        "startupName": {"S": "Gamma"},
        "version": {"N": "2"},
    }


def test_a_typed_map_that_does_not_fit_is_refused_naming_the_path(staff, engine):
    url = f"{STARTUP}{quote('STARTUP#1')}/change/"
    form = form_fields(staff, url)
    before = raw(engine, "Startups", {"hashKey": {"S": "STARTUP#1"}})
    form["location"] = json.dumps({"address": "2 Main St", "latlng": {"lat": "north", "lng": 1}})
    form["contacts"] = json.dumps([{"platform": "email", "value": "x"}, {"platform": "web"}])

    response = staff.post(url, form)

    page = response.content.decode()
    assert response.status_code == 200
    assert "Location.latlng.lat: not a number" in page
    assert "Contacts[1].value: required" in page
    assert raw(engine, "Startups", {"hashKey": {"S": "STARTUP#1"}}) == before


def test_a_typed_map_edited_as_json_is_written_as_a_map(staff, engine):
    url = f"{STARTUP}{quote('STARTUP#1')}/change/"
    form = form_fields(staff, url)
    form["location"] = json.dumps({"address": "2 Main St", "latlng": {"lat": 7.1, "lng": 125.6}})

    assert staff.post(url, form).status_code == 302
    location = raw(engine, "Startups", {"hashKey": {"S": "STARTUP#1"}})["location"]
    assert location["M"]["address"] == {"S": "2 Main St"}
    assert location["M"]["latlng"]["M"]["lat"] == {"N": "7.1"}


def test_custom_binary_and_ttl_attributes_round_trip_untouched(staff, engine):
    key = {"sensor": {"N": "4.25"}, "taken": {"S": Reading.taken.serialize(TAKEN)}}
    before = raw(engine, "Readings", key)
    url = f"{READING}{quote('4.25')},{quote(Reading.taken.serialize(TAKEN))}/change/"
    form = form_fields(staff, url)
    # A type the form cannot write back exactly is shown read-only, never posted.
    assert not {"plan", "price", "blob", "blobs", "expires"} & set(form)
    form["note"] = "second"

    assert staff.post(url, form).status_code == 302
    assert raw(engine, "Readings", key) == {**before, "note": {"S": "second"}}
    assert before["price"] == {"S": '"12.50"'} and before["plan"] == {"S": "PREMIUM"}


def test_a_float_and_a_date_time_key_round_trip_through_the_url(staff):
    listing = staff.get(READING).content.decode()
    url = f"{READING}{quote('4.25')},{quote(Reading.taken.serialize(TAKEN))}/change/"

    assert url in listing
    page = staff.get(url)
    assert page.status_code == 200 and "first" in page.content.decode()


def test_an_item_added_to_a_subclass_carries_its_discriminator(staff, engine):
    response = staff.post(f"{BREAKER}add/", {"PK": "SITE#2", "SK": "BREAKER#9", "amps": "16"})

    assert response.status_code == 302
    item = raw(engine, "Entries", {"PK": {"S": "SITE#2"}, "SK": {"S": "BREAKER#9"}})
    assert item == {
        "PK": {"S": "SITE#2"},
        "SK": {"S": "BREAKER#9"},
        "kind": {"S": "Breaker"},
        "amps": {"N": "16"},
    }


def test_a_defaulted_list_is_not_required_on_the_add_page(staff, engine):
    response = staff.post(f"{STARTUP}add/", {"hashKey": "STARTUP#2", "startupName": "Beta"})

    assert response.status_code == 302
    item = raw(engine, "Startups", {"hashKey": {"S": "STARTUP#2"}})
    assert item["startupName"] == {"S": "Beta"}


def test_an_item_of_a_class_no_model_declares_is_skipped(staff, engine):
    engine.client.put_item(
        TableName="Entries",
        Item={"PK": {"S": "SITE#1"}, "SK": {"S": "FUSE#1"}, "kind": {"S": "Fuse"}},
    )

    response = staff.get(CIRCUIT)

    assert response.status_code == 200
    assert "CIRCUIT#1" in response.content.decode() and "FUSE#1" not in response.content.decode()
