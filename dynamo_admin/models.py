"""The admin's change log: who changed what, when, with the changed fields."""

from __future__ import annotations

import binascii
import json
import re
import secrets
from base64 import b64decode, b64encode
from collections.abc import Iterable
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.urls import NoReverseMatch, reverse
from django.utils.http import urlencode
from django.utils.text import capfirst, get_text_list
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from pynamodb.attributes import (
    Attribute,
    JSONAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
)
from pynamodb.constants import BINARY, NUMBER
from pynamodb.models import Model

from dynamo.batch import batch_put
from dynamo.indexes import AllProjection, GlobalIndex
from dynamo.models import DynamoMeta, DynamoModel, utcnow

from .display import logged_text
from .keys import object_id, parse_key_value
from .meta import field_label, label_of, meta, pk_of
from .permissions import perm_name, served_models

# How History labels the items of a table no registered model describes (tables.item_model),
# and the PartiQL writes of the Tables pages (partiql.LoggedStatement).
TABLE_LABEL_PREFIX = "dynamo_admin.table."
LOGGED_STATEMENT_LABEL = "dynamo_admin.loggedstatement"

ADDITION, CHANGE, DELETION = "add", "change", "delete"
# What the log writes instead of a secret's value (a password hash, a token).
HIDDEN = "********"
# A logged value is cut to this many characters, so any entry stays far below DynamoDB's
# 400 KB item limit whatever was written (a 1 MB text is refused by the model anyway).
MAX_LOGGED_VALUE_CHARS = 1000
# The entry's changes may take this many bytes of JSON; beyond it only field names stay.
MAX_LOGGED_CHANGES_BYTES = 300_000


def secret_fields(item: DynamoModel | type[DynamoModel]) -> tuple[str, ...]:
    """Return the attributes of a model never shown in full nor logged (its `secret_fields`)."""
    return tuple(getattr(item, "secret_fields", ()))


def shortened(value: Any) -> Any:
    """Return a logged value cut to MAX_LOGGED_VALUE_CHARS, as text if it had to be cut."""
    if isinstance(value, str):
        text = value
    elif value is None or isinstance(value, bool | int | float):
        return value
    else:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
        if len(text) <= MAX_LOGGED_VALUE_CHARS:
            return value
    if len(text) <= MAX_LOGGED_VALUE_CHARS:
        return text
    return text[: MAX_LOGGED_VALUE_CHARS - 1] + "…"


def loggable_changes(item: DynamoModel, changes: dict[str, Any] | None) -> dict[str, Any]:
    """Return `changes` as the log keeps them: secrets hidden, values shortened to fit."""
    hidden = secret_fields(item)
    logged = {
        name: [HIDDEN, HIDDEN] if name in hidden else [shortened(v) for v in values]
        for name, values in (changes or {}).items()
    }
    if len(json.dumps(logged, ensure_ascii=False, default=str).encode()) > MAX_LOGGED_CHANGES_BYTES:
        return {name: [None, None] for name in logged}
    return logged


def object_key_for(item: Model) -> str:
    """Return the log key of an item: `app.model:key[/range]`, each value escaped.

    A value's '%' and '/' are written `%25` and `%2F`, so a '/' can only join two values: the
    items ("A/B", "C") and ("A", "B/C") get keys of their own, and a key holding neither reads
    as it did before values were escaped.
    """
    texts = "/".join(escaped(text) for text in key_texts(item))
    return f"{meta(type(item))}:{texts}"


def legacy_object_key_for(item: Model) -> str:
    """Return the log key written before values were escaped: `str()` of each, '/'-joined."""
    return f"{meta(type(item))}:{'/'.join(str(value) for value in pk_of(item))}"


def object_keys_for(item: Model) -> list[str]:
    """Return the keys an item's entries are under: its key, then its legacy one if it differs."""
    key, legacy = object_key_for(item), legacy_object_key_for(item)
    return [key] if legacy == key else [key, legacy]


def key_texts(item: Model) -> list[str]:
    """Return the item's key values as its log key holds them, hash key first."""
    attributes = item.get_attributes()
    names = meta(type(item)).key_names
    return [
        key_value_text(attributes[name], value)
        for name, value in zip(names, pk_of(item), strict=True)
    ]


def key_value_text(attribute: Attribute, value: Any) -> str:
    """Return a key value as its attribute stores it: a number normalised, bytes in base64.

    The stored form, so an item keeps one key however its values were typed (a date in any
    time zone, 2.0 or 2): DynamoDB hands numbers back normalised, as this writes them.
    """
    if value is None:
        return ""
    stored = attribute.serialize(value)
    if attribute.attr_type == BINARY:
        return b64encode(stored).decode("ascii")
    if attribute.attr_type == NUMBER:
        number = Decimal(stored)
        if number == number.to_integral_value():
            return str(int(number))
        return format(number.normalize(), "f")
    return stored


def key_value_of(attribute: Attribute, text: str) -> Any:
    """Return the key value `key_value_text` wrote as text; raise ValueError if it wrote none."""
    if text == "":
        raise ValueError("A key value is never empty.")
    try:
        return attribute.deserialize(
            b64decode(text, validate=True) if attribute.attr_type == BINARY else text
        )
    except (TypeError, KeyError, AttributeError, binascii.Error) as exc:
        raise ValueError(text) from exc


def escaped(text: str) -> str:
    # '%' first, so the '%' of an escape is never escaped again.
    return text.replace("%", "%25").replace("/", "%2F")


def unescaped(text: str) -> str:
    return re.sub("%2F|%25", lambda escape: "/" if escape[0] == "%2F" else "%", text)


def item_keyed_by(object_key: str) -> Model | None:
    """Return an unsaved item holding the key an escaped log key names, or None if none does.

    A key that does not come back the same from its item is no escaped key: written before
    values were escaped (`12/0`, a date's `str()`), or by a model no longer served.
    """
    label, _, joined = object_key.partition(":")
    model = model_labelled(label)
    if model is None:
        return None
    names, parts = meta(model).key_names, joined.split("/")
    if len(parts) != len(names):
        return None
    attributes = model.get_attributes()
    try:
        item = model(
            *(key_value_of(attributes[n], unescaped(p)) for n, p in zip(names, parts, strict=True))
        )
        return item if object_key_for(item) == object_key else None
    except (TypeError, ValueError, InvalidOperation):
        return None


def legacy_item_keyed_by(object_key: str, partition: str | None = None) -> Model | None:
    """Return an unsaved item holding the key a legacy log key names, or None if it is unclear.

    Values were '/'-joined as they were, so a range-keyed item's are split after its partition
    (kept on every entry since gsi_object_partition), else at the last '/'. Only text, number
    and date-and-time values are read back: another attribute's `str()` names no value.
    """
    label, _, joined = object_key.partition(":")
    model = model_labelled(label)
    if model is None:
        return None
    names = meta(model).key_names
    if len(names) == 1:
        texts = [joined]
    elif partition is not None and joined.startswith(f"{partition}/"):
        texts = [partition, joined[len(partition) + 1 :]]
    else:
        texts = joined.rsplit("/", 1)
    attributes = model.get_attributes()
    readable = (UnicodeAttribute, NumberAttribute, UTCDateTimeAttribute)
    if len(texts) != len(names) or not all(isinstance(attributes[n], readable) for n in names):
        return None
    try:
        return model(
            *(parse_key_value(attributes[n], t) for n, t in zip(names, texts, strict=True))
        )
    except ValueError:
        return None


def object_partition_for(item: Model) -> str:
    """Return the item's partition (hash key) value as the log keeps it, whatever its model."""
    return str(pk_of(item)[0])


def object_partition_of(object_key: str, *, legacy: bool = False) -> str:
    """Return the partition value inside a log key (`app.model:key[/range]`).

    `legacy=True` reads a key as written before values were escaped (a value holding `%2F`
    as written is read both ways): a model with a range key logged `key/range` and its
    partition is what comes before the last '/', a model without one logged its whole key.
    """
    item = None if legacy else item_keyed_by(object_key)
    if item is not None:
        return object_partition_for(item)
    label, _, values = object_key.partition(":")
    model = model_labelled(label)
    if model is not None and len(meta(model).key_names) == 1:
        return values
    return values.rsplit("/", 1)[0]


def model_labelled(label: str) -> type[DynamoModel] | None:
    """Return the model of an `app.model` label, or None if no model has it."""
    return next((m for m in served_models() if str(meta(m)) == label), None)


class ActorIndex(GlobalIndex):
    """One staff user's entries, newest last: the admin index's Recent actions."""

    class Meta:
        index_name = "gsi_user_logged_at"
        projection = AllProjection()

    user = UnicodeAttribute(hash_key=True)
    logged_at = UnicodeAttribute(range_key=True)


class LoggedMonthIndex(GlobalIndex):
    """Every entry of one month (`YYYY-MM`, UTC) by time: the log listing, newest first.

    The table's partitions are items, so no read of it gives the whole log in time order; a
    month partition gives it one Query per month walked.
    """

    class Meta:
        index_name = "gsi_logged_month"
        projection = AllProjection()

    logged_month = UnicodeAttribute(hash_key=True)
    logged_at = UnicodeAttribute(range_key=True)


class ObjectPartitionIndex(GlobalIndex):
    """Every entry about items of one partition value, by time: all the log says of a learner.

    Tables that share a hash-key attribute (a username) share its values, so one partition
    gathers one owner's entries across models: their item, skills, stats and sessions.
    """

    class Meta:
        index_name = "gsi_object_partition"
        projection = AllProjection()

    object_partition = UnicodeAttribute(hash_key=True)
    logged_at = UnicodeAttribute(range_key=True)


MISSING_LOG = _(
    "The admin's log table %(table)s or one of its indexes is missing, so nothing can be "
    "saved here. Run `python manage.py create_tables` to make it."
)


def is_missing_table(exc: Exception) -> bool:
    """Return whether a DynamoDB error says a table or an index is not there."""
    code = getattr(exc, "cause_response_code", None)
    message = getattr(exc, "cause_response_message", None) or ""
    return code == "ResourceNotFoundException" or (
        code == "ValidationException" and "specified" in message and "index" in message
    )


class AdminLog(DynamoModel):
    """One add, change or delete made through the admin."""

    app_label = "dynamo_admin"
    model_name = "adminlog"
    # Django's LogEntry's names, so its translations apply.
    verbose_name = _("log entry")
    verbose_name_plural = _("log entries")

    class Meta(DynamoMeta):
        table_suffix = "admin-log"

    object_key = UnicodeAttribute(hash_key=True)
    # ISO-8601 time plus a random suffix, so two entries in one instant never collide.
    logged_at = UnicodeAttribute(range_key=True)
    action = UnicodeAttribute()
    user = UnicodeAttribute()
    object_repr = UnicodeAttribute(null=True)
    changes = JSONAttribute(null=True)
    logged_month = UnicodeAttribute(null=True)
    # The logged item's hash-key value (absent on entries older than the index until
    # `backfill_log_partitions` runs): the log of one owner, whichever of its models.
    object_partition = UnicodeAttribute(null=True)

    gsi_user_logged_at = ActorIndex()
    gsi_logged_month = LoggedMonthIndex()
    gsi_object_partition = ObjectPartitionIndex()

    @classmethod
    def entry_for(
        cls,
        item: DynamoModel,
        action: str,
        user: str,
        changes: dict[str, Any] | None = None,
        when: datetime | None = None,
    ) -> AdminLog:
        """Return an unsaved entry for an item; `changes` maps field to [old, new]."""
        when = when or utcnow()
        entry = cls(
            object_key_for(item),
            f"{when.isoformat(timespec='microseconds')}#{secrets.token_hex(3)}",
            action=action,
            user=user,
            object_repr=label_of(item)[:200],
            changes=loggable_changes(item, changes),
            logged_month=when.astimezone(UTC).strftime("%Y-%m"),
            object_partition=object_partition_for(item),
        )
        entry.stamp()
        return entry

    @classmethod
    def record(
        cls,
        item: DynamoModel,
        action: str,
        user: str,
        changes: dict[str, Any] | None = None,
        when: datetime | None = None,
    ) -> AdminLog:
        """Write a log entry for an item on its own (for writes made outside a transaction)."""
        entry = cls.entry_for(item, action, user, changes, when)
        entry.save()
        return entry

    @classmethod
    def entries_about(
        cls, item: Model, limit: int | None = None, consistent_read: bool = False
    ) -> list[AdminLog]:
        """Return an item's entries, newest first: its key's, and its legacy key's if it differs.

        One Query, a second only for a key whose values the legacy form wrote otherwise.
        """
        keys = object_keys_for(item)
        # The legacy key of ("A/B", "C") is that of ("A", "B/C") too, and an escaped key may be
        # another item's legacy one (a value holding "%2F"): the entry's partition says whose.
        own = (cls.object_partition == object_partition_for(item)) | (
            cls.object_partition.does_not_exist()
        )
        entries = []
        for key in keys:
            query = cls.query(
                key,
                scan_index_forward=False,
                limit=limit,
                consistent_read=consistent_read,
                filter_condition=own if key != keys[0] or "%" in key else None,
            )
            entries.extend(query)
        entries.sort(key=lambda entry: entry.logged_at, reverse=True)
        return entries[:limit]

    @classmethod
    def forget(cls, object_key: str) -> int:
        """Blank the values in every entry of one object, keeping who did what and when.

        The object's entries as History reads them (`entries_about`), then the blanked ones
        written back 25 at a time.
        """
        item = item_keyed_by(object_key)
        if item is None:  # no served model names the key: its own entries are all it has
            return cls.blank(cls.query(object_key, consistent_read=True))
        return cls.blank(cls.entries_about(item, consistent_read=True))

    @classmethod
    def forget_items(cls, items: Iterable[Model | None]) -> int:
        """Blank the logged values of each item (a purged learner and what it owned)."""
        return sum(
            cls.blank(cls.entries_about(item, consistent_read=True))
            for item in items
            if item is not None
        )

    @classmethod
    def blank(cls, entries: Iterable[AdminLog]) -> int:
        """Write back these entries with their values blanked; return how many changed."""
        blanked = []
        for entry in entries:
            changes = {name: [None, None] for name in entry.changes or {}}
            if changes != entry.changes:
                entry.changes = changes
                blanked.append(entry)
        return batch_put(cls, blanked, prepare=False)

    @classmethod
    def history(cls, item: Model, limit: int = 100) -> list[AdminLog]:
        """Return an item's log entries, newest first (one Query, two for a legacy key)."""
        return cls.entries_about(item, limit)

    @classmethod
    def history_with_rows(
        cls, item: DynamoModel, row_models: Iterable[type[DynamoModel]], limit: int = 100
    ) -> list[AdminLog]:
        """Return an item's entries and those of its inline rows, newest first.

        The item's own entries are one Query on its key; its rows' are one Query on
        gsi_object_partition, since a row's hash key is its parent's (entries of other models
        sharing the partition are filtered out; rows logged before the index need
        `backfill_log_partitions`).
        """
        entries = cls.history(item, limit)
        labels = [f"{meta(model)}:" for model in row_models]
        if labels:
            wanted = AdminLog.object_key.startswith(labels[0])
            for label in labels[1:]:
                wanted = wanted | AdminLog.object_key.startswith(label)
            rows = cls.gsi_object_partition.query(
                object_partition_for(item),
                scan_index_forward=False,
                filter_condition=wanted,
                limit=limit,
            )
            entries.extend(rows)
        entries.sort(key=lambda entry: entry.logged_at, reverse=True)
        return entries[:limit]

    @property
    def row_change_message(self) -> str:
        """Return the entry as a parent's History tells a row's change, in Django's words."""
        row = self.object_repr or self.object_key.split(":", 1)[-1]
        # A row named by its key ("alice / python") is named on its parent's page by the rest.
        row = row.removeprefix(f"{self.object_partition} / ")
        names = {
            "name": meta(self.logged_model).verbose_name if self.logged_model else "",
            "object": row,
        }
        if self.action == ADDITION:
            return gettext("Added {name} “{object}”.").format(**names)
        if self.action == DELETION:
            return gettext("Deleted {name} “{object}”.").format(**names)
        message = self.described_change()
        fields = [field_label(self.logged_model, name) for name in self.changes or {}]
        if message is None and fields:
            names["fields"] = get_text_list(fields, gettext("and"))
            return gettext("Changed {fields} for {name} “{object}”.").format(**names)
        message = message or self.get_change_message()
        return f"{capfirst(names['name'])} “{names['object']}”: {message}"

    @classmethod
    def recent_for(cls, user: str, limit: int = 10) -> list[AdminLog]:
        """Return a staff user's latest entries, newest first (one Query on gsi_user_logged_at)."""
        query = cls.gsi_user_logged_at.query(user, scan_index_forward=False, limit=limit)
        return list(query)

    def __str__(self) -> str:
        # Django's LogEntry.__str__, with its msgids.
        names = {"object": self.object_repr or self.object_key}
        if self.is_addition():
            return gettext("Added “%(object)s”.") % names
        if self.is_change():
            names["changes"] = self.get_change_message()
            return gettext("Changed “%(object)s” — %(changes)s") % names
        return gettext("Deleted “%(object)s.”") % names

    @property
    def logged_time(self) -> datetime:
        return datetime.fromisoformat(self.logged_at.split("#", 1)[0])

    # What Django's admin templates read from a LogEntry (the index's Recent actions).
    @property
    def action_time(self) -> datetime:
        return self.logged_time

    def is_addition(self) -> bool:
        return self.action == ADDITION

    @property
    def action_label(self) -> str:
        """Return the action as Django's LogEntry shows its flag: Addition, Change, Deletion."""
        labels = {ADDITION: gettext("Addition"), CHANGE: gettext("Change")}
        return labels.get(self.action, gettext("Deletion"))

    def get_change_message(self) -> str:
        """Return the entry in Django's words: "Added.", "Changed name and category.", …

        A logged model may say it better: its `history_message(changes)` returns a sentence
        ("Soft-deleted.", "Recorded a session: …") or None for Django's words.
        """
        message = self.described_change()
        if message:
            return message
        if self.action == ADDITION:
            return gettext("Added.")
        if self.action == DELETION:
            return gettext("Deleted.")
        fields = [field_label(self.logged_model, name) for name in self.changes or {}]
        if not fields:
            return gettext("No fields changed.")
        return gettext("Changed {fields}.").format(fields=get_text_list(fields, gettext("and")))

    def described_change(self) -> str | None:
        """Return the logged model's own sentence for the entry, or None for Django's words."""
        describe = getattr(self.logged_model, "history_message", None)
        return describe(self.changes or {}) if describe and self.action != DELETION else None

    @property
    def change_lines(self) -> list[tuple[str, str, str]]:
        """Return each changed field as (label, old, new) in words: no stored ISO time or map.

        Fields the model's `history_message()` puts in words (`history_message_fields`, a
        recorded session) are not listed again.
        """
        described = getattr(self.logged_model, "history_message_fields", ())
        return [
            (capfirst(field_label(self.logged_model, name)), logged_text(old), logged_text(new))
            for name, (old, new) in (self.changes or {}).items()
            if name not in described
        ]

    def is_change(self) -> bool:
        return self.action == CHANGE

    def is_deletion(self) -> bool:
        return self.action == DELETION

    @property
    def logged_model(self) -> type[DynamoModel] | None:
        """Return the model of the logged object, or None if no model has its label."""
        return model_labelled(self.object_key.split(":", 1)[0])

    def values_hidden_from(self, user) -> AdminLog:
        """Return the entry with its values hidden unless `user` may view the logged model."""
        model = self.logged_model
        if model is not None and any(
            user.has_perm(perm_name(action, model)) for action in ("view", "change")
        ):
            return self
        # Who, when and which fields stay: only the values are another model's data.
        self.changes = {name: [HIDDEN, HIDDEN] for name in self.changes or {}}
        return self

    @property
    def model_verbose_name(self) -> str:
        model = self.logged_model
        return capfirst(meta(model).verbose_name) if model else self.object_key.split(":", 1)[0]

    @property
    def logged_item(self) -> Model | None:
        """Return an unsaved item holding the logged object's key, or None if it cannot tell.

        An escaped key is read as one unless the partition the entry kept says it is another
        item's legacy key (a value that held "%2F" as written).
        """
        item = item_keyed_by(self.object_key)
        if item is not None and self.object_partition in (None, object_partition_for(item)):
            return item
        return legacy_item_keyed_by(self.object_key, self.object_partition)

    def get_admin_url(self) -> str | None:
        """Return the change page of the logged object, as LogEntry.get_admin_url does."""
        item = self.logged_item
        if item is None:
            return self.table_url()
        opts = meta(type(item))
        try:
            return reverse(
                f"admin:{opts.app_label}_{opts.model_name}_change", args=[object_id(item)]
            )
        except NoReverseMatch:
            return None

    def table_url(self) -> str | None:
        """Return the Tables page of an item no registered model claims, or None.

        Such an item is logged as `dynamo_admin.table.<table>:<key>` (a PartiQL write as
        `dynamo_admin.loggedstatement:<table>`); the link carries the log key as it is, and
        the item page reads it against the table's key schema, so a listing of entries
        describes no table.
        """
        label, _sep, key = self.object_key.partition(":")
        try:
            if label == LOGGED_STATEMENT_LABEL:
                return reverse("admin:dynamo_table", args=[unescaped(key)])
            if label.startswith(TABLE_LABEL_PREFIX):
                url = reverse("admin:dynamo_table_item", args=[label[len(TABLE_LABEL_PREFIX) :]])
                return f"{url}?{urlencode({'logged': key})}"
        except NoReverseMatch:  # a site without the Tables pages
            return None
        return None
