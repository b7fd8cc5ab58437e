"""Every table the admin may browse: which ones, who may, what each holds, whose items.

`DYNAMO_ADMIN_TABLES` (names or glob patterns; by default the project's prefix) says which
tables the Tables pages show; `dynamo_admin.view_table` lets staff browse them and
`dynamo_admin.change_table` edit their items. An item of a table no registered model
describes is still written through `writes.write_together`, as an item of a key-only model
made here for its table, so its History is kept like any other item's.
"""

from __future__ import annotations

import fnmatch
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any

from botocore.exceptions import ClientError
from django.contrib import admin
from django.db import DEFAULT_DB_ALIAS, router
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from pynamodb.attributes import BinaryAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from dynamo import meter
from dynamo.conf import dynamo_settings
from dynamo.models import client_for

from .meta import ModelOpts
from .models import AdminLog, secret_fields
from .stored import load

SET_MEMBER_TYPES = {"SS": "S", "NS": "N", "BS": "B"}
VIEW_PERMISSION, CHANGE_PERMISSION = "dynamo_admin.view_table", "dynamo_admin.change_table"
PERMISSIONS = (
    # Stored as written, as Django stores its own permissions' names.
    ("view_table", gettext_noop("Can browse tables and their items")),
    ("change_table", gettext_noop("Can change any item of a browsed table")),
)


def may_browse(user) -> bool:
    """Return whether a staff user may see the Tables pages."""
    return (
        user.is_active
        and user.is_staff
        and (
            user.is_superuser or user.has_perm(VIEW_PERMISSION) or user.has_perm(CHANGE_PERMISSION)
        )
    )


def may_change(user) -> bool:
    """Return whether a staff user may write any item of a browsed table."""
    return may_browse(user) and (user.is_superuser or user.has_perm(CHANGE_PERMISSION))


def create_table_permissions(using: str = DEFAULT_DB_ALIAS, **kwargs: Any) -> None:
    """Create the `dynamo_admin.table` content type and its two permissions."""
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType

    if not router.allow_migrate_model(using, Permission):
        return
    content_type, _created = ContentType.objects.using(using).get_or_create(
        app_label="dynamo_admin", model="table"
    )
    for codename, name in PERMISSIONS:
        Permission.objects.using(using).get_or_create(
            content_type=content_type, codename=codename, defaults={"name": name}
        )


# --- which tables ---------------------------------------------------------------------
def allowed_patterns() -> list[str]:
    """Return `DYNAMO_ADMIN_TABLES`, by default every table under the project's prefix."""
    patterns = dynamo_settings.DYNAMO_ADMIN_TABLES
    if patterns is None:
        # The prefix in force, as the admin log's own table name holds it (commands and tests
        # may point the models at another prefix than the setting's).
        prefix = AdminLog.Meta.table_name.removesuffix(AdminLog.Meta.table_suffix)
        return [f"{fnmatch_escaped(prefix)}*"]
    return list(patterns)


def fnmatch_escaped(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def is_allowed(name: str) -> bool:
    """Return whether the Tables pages may show this table (case-sensitive, as DynamoDB is)."""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in allowed_patterns())


def client():
    """Return the metered botocore client of the project's engine (the admin log's)."""
    return meter.instrument(client_for(AdminLog))


def table_names() -> list[str]:
    """Return the names of the allowed tables, page after page of ListTables."""
    names: list[str] = []
    request: dict[str, Any] = {}
    while True:
        page = client().list_tables(**request)
        names += [name for name in page.get("TableNames", []) if is_allowed(name)]
        if "LastEvaluatedTableName" not in page:
            return names
        request["ExclusiveStartTableName"] = page["LastEvaluatedTableName"]


@dataclass
class Index:
    """A secondary index as the console offers it: its keys and what it projects.

    A global index's key may hold up to four partition and four sort attributes (DynamoDB's
    multi-attribute keys), listed in their order.
    """

    name: str
    kind: str  # "global" or "local"
    hash_keys: list[str]
    range_keys: list[str]
    projection: str  # ALL, KEYS_ONLY or INCLUDE: a, b

    @property
    def hash_key(self) -> str:
        return self.hash_keys[0]

    @property
    def range_key(self) -> str | None:
        return self.range_keys[0] if self.range_keys else None

    @property
    def multi_attribute(self) -> bool:
        return len(self.hash_keys) > 1 or len(self.range_keys) > 1

    @property
    def key_text(self) -> str:
        """Return the keys as the pages list them: "hash" or "hash, range" ("a + b" joined)."""
        return ", ".join(" + ".join(keys) for keys in (self.hash_keys, self.range_keys) if keys)


@dataclass
class Table:
    """One table as DescribeTable (and DescribeTimeToLive) tell it.

    A description is never changed once read (the console reuses it for a minute), so what
    is derived from it is worked out once: a page asks for the key names once per row.
    """

    name: str
    description: dict[str, Any]
    ttl_attribute: str | None = None
    ttl_status: str = "DISABLED"
    indexes: list[Index] = field(default_factory=list)

    @cached_property
    def key_names(self) -> list[str]:
        """Return the table's key attributes, hash key first."""
        schema = sorted(self.description["KeySchema"], key=lambda k: k["KeyType"] != "HASH")
        return [k["AttributeName"] for k in schema]

    @property
    def keys(self) -> list[tuple[str, str, str]]:
        """Return each key attribute as (name, type, HASH or RANGE)."""
        kinds = ("HASH", "RANGE")
        types = self.attribute_types
        return [(name, types[name], kinds[n]) for n, name in enumerate(self.key_names)]

    @property
    def hash_key(self) -> str:
        return self.key_names[0]

    @property
    def range_key(self) -> str | None:
        return self.key_names[1] if len(self.key_names) > 1 else None

    @cached_property
    def attribute_types(self) -> dict[str, str]:
        """Return the type (S, N or B) of every attribute the table's or an index's keys use."""
        return {
            d["AttributeName"]: d["AttributeType"] for d in self.description["AttributeDefinitions"]
        }

    @property
    def item_count(self) -> int:
        return self.description.get("ItemCount", 0)

    @property
    def size_bytes(self) -> int:
        return self.description.get("TableSizeBytes", 0)

    @property
    def scan_read_units(self) -> int:
        """Return what reading the whole table costs: 4 KB a unit, half when eventually read."""
        return max(1, -(-self.size_bytes // 4096) // 2)

    @property
    def billing_mode(self) -> str:
        summary = self.description.get("BillingModeSummary") or {}
        return summary.get("BillingMode", "PROVISIONED")

    @property
    def stream(self) -> str | None:
        spec = self.description.get("StreamSpecification") or {}
        return spec.get("StreamViewType") if spec.get("StreamEnabled") else None

    def index(self, name: str) -> Index | None:
        return next((index for index in self.indexes if index.name == name), None)

    def models(self) -> list[type[Model]]:
        """Return the registered models whose items live in this table."""
        return [
            model
            for model in admin.site._registry
            if isinstance(model, type)
            and issubclass(model, Model)
            and model.Meta.table_name == self.name
        ]

    def declared_types(self) -> dict[str, str]:
        """Return the DynamoDB type of each attribute the registered models declare (a set's
        members' type for a set): what a filter on it is typed as."""
        types: dict[str, str] = {}
        for model in self.models():
            for attribute in model.get_attributes().values():
                kind = SET_MEMBER_TYPES.get(attribute.attr_type, attribute.attr_type)
                if kind in ("S", "N", "B", "BOOL"):
                    types.setdefault(attribute.attr_name, kind)
        return types

    def secret_names(self) -> set[str]:
        """Return the stored names of what a registered model keeps secret (`secret_fields`):
        the Tables pages never show, export nor write those attributes."""
        return {
            model.get_attributes()[name].attr_name
            for model in self.models()
            for name in secret_fields(model)
            if name in model.get_attributes()
        }

    def without_secrets(self, raw: dict[str, Any]) -> dict[str, Any]:
        secrets = self.secret_names()
        return {name: value for name, value in raw.items() if name not in secrets}


def index_of(entry: dict[str, Any], kind: str) -> Index:
    schema = entry["KeySchema"]
    hash_keys = [k["AttributeName"] for k in schema if k["KeyType"] == "HASH"]
    range_keys = [k["AttributeName"] for k in schema if k["KeyType"] == "RANGE"]
    projection = entry.get("Projection", {})
    text = projection.get("ProjectionType", "ALL")
    if text == "INCLUDE":
        text = f"INCLUDE: {', '.join(projection.get('NonKeyAttributes', []))}"
    return Index(entry["IndexName"], kind, hash_keys, range_keys, text)


# A table's keys and indexes rarely change and its counts are estimates up to six hours old:
# the console reuses a description for a minute, two calls fewer on each of its pages
# (bench/RESULTS.md, "The Tables console"); the Tables page always describes afresh.
DESCRIPTION_SECONDS = 60.0
_described: dict[tuple[str, str], tuple[float, Table]] = {}


def describe(name: str, fresh: bool = False) -> Table:
    """Return an allowed table's description; raise Http404 for any other name."""
    if not is_allowed(name):
        raise Http404(_("No table %(name)s may be browsed here.") % {"name": name})
    dynamodb = client()
    cache_key = (name, dynamodb.meta.endpoint_url)
    expires, table = _described.get(cache_key, (0.0, None))
    if table is not None and not fresh and time.monotonic() < expires:
        return table
    try:
        description = dynamodb.describe_table(TableName=name)["Table"]
    except ClientError as exc:
        if exc.response["Error"]["Code"] in ("ResourceNotFoundException", "ValidationException"):
            raise Http404(_("There is no table %(name)s.") % {"name": name}) from None
        raise
    table = Table(name, description)
    table.indexes = [index_of(i, "global") for i in description.get("GlobalSecondaryIndexes", [])]
    table.indexes += [index_of(i, "local") for i in description.get("LocalSecondaryIndexes", [])]
    ttl = dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    table.ttl_status = ttl.get("TimeToLiveStatus", "DISABLED")
    if table.ttl_status in ("ENABLED", "ENABLING"):
        table.ttl_attribute = ttl.get("AttributeName")
    _described[cache_key] = (time.monotonic() + DESCRIPTION_SECONDS, table)
    return table


def expiry(raw: dict[str, Any] | None, now: datetime | None = None) -> tuple[datetime, str] | None:
    """Return a TTL value (epoch seconds, type N) as a UTC time and how long until it expires."""
    if not raw or "N" not in raw:
        return None
    try:
        when = datetime.fromtimestamp(int(float(raw["N"])), UTC)
    except (ValueError, OverflowError, OSError):
        return None
    from django.utils.timesince import timeuntil

    now = now or datetime.now(UTC)
    if when <= now:
        return when, _("expired, waiting for DynamoDB to delete it")
    return when, _("expires in %(time)s") % {"time": timeuntil(when, now)}


# --- whose items ----------------------------------------------------------------------
KEY_ATTRIBUTES = {"S": UnicodeAttribute, "N": NumberAttribute, "B": BinaryAttribute}
_item_models: dict[tuple[Any, ...], type[Model]] = {}


def item_model(table: Table) -> type[Model]:
    """Return a key-only PynamoDB model of a table: what its items are logged as.

    Its History label is `dynamo_admin.table.<name>`; it writes through the admin log's engine.
    """
    types = table.attribute_types
    host, region = AdminLog.Meta.host, AdminLog.Meta.region
    wanted = (table.name, tuple((n, types[n]) for n in table.key_names), host, region)
    if wanted in _item_models:
        return _item_models[wanted]
    options = {
        "table_name": table.name,
        "host": host,
        "region": region,
        "aws_access_key_id": getattr(AdminLog.Meta, "aws_access_key_id", None),
        "aws_secret_access_key": getattr(AdminLog.Meta, "aws_secret_access_key", None),
    }
    body: dict[str, Any] = {"Meta": type("Meta", (), options), "__module__": __name__}
    for position, name in enumerate(table.key_names):
        attribute_class = KEY_ATTRIBUTES[types[name]]
        extra = {"legacy_encoding": False} if attribute_class is BinaryAttribute else {}
        body[name] = attribute_class(hash_key=position == 0, range_key=position == 1, **extra)
    model = type(f"Table{len(_item_models)}", (Model,), body)
    opts = ModelOpts(model)
    opts.model_name = f"table.{table.name}"
    opts.verbose_name = opts.verbose_name_plural = table.name
    model._meta = opts
    _item_models[wanted] = model
    return model


def logged_item(table: Table, raw: dict[str, Any]) -> Model:
    """Return the item to log a write of a stored item under: as the registered model that
    claims it reads it, else as the table's own key-only model."""
    for model in table.models():
        item = load(model, raw)
        if item is not None:
            return item
    return item_model(table).from_raw_data({name: raw[name] for name in table.key_names})
