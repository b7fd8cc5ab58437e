"""PynamoDB models written the ways real projects write them, over tables their own
`create_table()` makes:

- a single-table design with a `DiscriminatorAttribute` (PynamoDB's polymorphism), each
  class registered on its own;
- camelCase attributes with typed maps, lists of typed maps and `[]`/`{}` defaults, and an
  attribute named `version` that is the model's data, not a `VersionAttribute`;
- custom attributes (an Enum, a number kept as JSON text) beside binary, JSON, TTL and
  date-time attributes and number and binary sets, under a float hash key and a date-time
  range key.
"""

from __future__ import annotations

import enum
import json
from decimal import Decimal

from pynamodb.attributes import (
    Attribute,
    BinaryAttribute,
    BinarySetAttribute,
    DiscriminatorAttribute,
    JSONAttribute,
    ListAttribute,
    MapAttribute,
    NumberAttribute,
    NumberSetAttribute,
    TTLAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
    UTCDateTimeAttribute,
)
from pynamodb.constants import STRING
from pynamodb.indexes import AllProjection, LocalSecondaryIndex
from pynamodb.models import Model

from .models import SampleMeta


class Entry(Model):
    """One table, several kinds of item told apart by `kind`."""

    class Meta(SampleMeta):
        table_name = "Entries"
        billing_mode = "PAY_PER_REQUEST"

    PK = UnicodeAttribute(hash_key=True)
    SK = UnicodeAttribute(range_key=True)
    kind = DiscriminatorAttribute()
    label = UnicodeAttribute(null=True)


class Circuit(Entry, discriminator="Circuit"):
    state = UnicodeAttribute(null=True)
    tags = UnicodeSetAttribute(null=True)


class Breaker(Entry, discriminator="Breaker"):
    amps = NumberAttribute(null=True)


class LatLng(MapAttribute):
    lat = NumberAttribute()
    lng = NumberAttribute()


class Location(MapAttribute):
    address = UnicodeAttribute()
    latlng = LatLng(null=True)


class Contact(MapAttribute):
    platform = UnicodeAttribute()
    value = UnicodeAttribute()


class Startup(Model):
    class Meta(SampleMeta):
        table_name = "Startups"
        billing_mode = "PAY_PER_REQUEST"

    hashKey = UnicodeAttribute(hash_key=True)
    startupName = UnicodeAttribute()
    version = NumberAttribute(null=True)  # the product's version, not a lock
    location = Location(null=True)
    contacts = ListAttribute(of=Contact, null=True)
    industries = ListAttribute(default=list)
    extras = MapAttribute(default=dict)
    founded = UTCDateTimeAttribute(null=True)


class Plan(enum.Enum):
    STANDARD = "standard"
    PREMIUM = "premium"


class EnumAttribute(Attribute[Plan]):
    """An Enum stored by its name, as projects write their own attribute classes."""

    attr_type = STRING

    def serialize(self, value: Plan) -> str:
        return value.name

    def deserialize(self, value: str) -> Plan:
        return Plan[value]


class JSONNumberAttribute(Attribute[Decimal]):
    """A number kept as JSON text ("12.50"), its digits as written."""

    attr_type = STRING

    def serialize(self, value: Decimal) -> str:
        return json.dumps(str(value))

    def deserialize(self, value: str) -> Decimal:
        return Decimal(json.loads(value))


class ReadingsByPlan(LocalSecondaryIndex):
    class Meta:
        index_name = "plan-index"
        projection = AllProjection()

    sensor = NumberAttribute(hash_key=True)
    planName = UnicodeAttribute(range_key=True)


class Reading(Model):
    class Meta(SampleMeta):
        table_name = "Readings"
        billing_mode = "PAY_PER_REQUEST"

    sensor = NumberAttribute(hash_key=True)  # a float key: 4.25
    taken = UTCDateTimeAttribute(range_key=True)
    note = UnicodeAttribute(null=True)
    planName = UnicodeAttribute(null=True)
    plan = EnumAttribute(null=True)
    price = JSONNumberAttribute(null=True)
    blob = BinaryAttribute(null=True, legacy_encoding=False)
    blobs = BinarySetAttribute(null=True, legacy_encoding=False)
    payload = JSONAttribute(null=True)
    expires = TTLAttribute(null=True)
    counts = NumberSetAttribute(null=True)

    by_plan = ReadingsByPlan()


STYLES = (Entry, Startup, Reading)
