"""The base PynamoDB model: table settings from Django settings, validation, timestamps."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar
from urllib.parse import urlsplit

import botocore.loaders
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from pynamodb.attributes import UTCDateTimeAttribute, VersionAttribute
from pynamodb.constants import ALL_NEW
from pynamodb.exceptions import DeleteError, PutError, UpdateError
from pynamodb.models import Model

from . import limits, meter
from .conf import dynamo_settings
from .exceptions import AlreadyExists, BadKey, StaleVersion

_M = TypeVar("_M", bound="DynamoModel")

# The error code of a write whose condition failed (a transaction's cancellation reasons say
# "ConditionalCheckFailed" instead: see dynamo_admin.writes).
CONDITION_FAILED = "ConditionalCheckFailedException"


def condition_failed(exc: Exception) -> bool:
    """Return whether a PynamoDB write error is a failed condition."""
    return getattr(exc, "cause_response_code", None) == CONDITION_FAILED


def utcnow() -> datetime:
    """Return the current time, timezone-aware in UTC, to the millisecond."""
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def json_time(moment: datetime) -> str:
    """Return a moment as every JSON answer writes it: ISO 8601 to the second, UTC offset."""
    return moment.astimezone(UTC).isoformat(timespec="seconds")


class DynamoMeta:
    """Table settings read from Django settings each time a model is configured."""

    table_suffix: str = ""
    region: str | None = None
    host: str | None = None
    max_pool_connections = 10
    connect_timeout_seconds = 1.0
    read_timeout_seconds = 1.5
    max_retry_attempts = 1  # retries after the first attempt
    billing_mode = "PAY_PER_REQUEST"


class DynamoModel(Model):
    """A PynamoDB model whose table name, endpoint and region come from settings."""

    registry: ClassVar[list[type[DynamoModel]]] = []
    # Set by subclasses: the app and model names Django's admin and permissions use.
    app_label: ClassVar[str] = ""
    model_name: ClassVar[str] = ""
    verbose_name: ClassVar[str] = ""
    verbose_name_plural: ClassVar[str] = ""
    # The values an attribute may take, by attribute name: its rule and the admin's select.
    field_choices: ClassVar[dict[str, tuple[str, ...]]] = {}
    # An attribute's name in words where its Python name says it badly, as a field's
    # verbose_name: {"xp": "XP"} (others read as their name with spaces).
    field_labels: ClassVar[dict[str, str]] = {}
    # The model each attribute holding another table's hash key refers to, by attribute name.
    references: ClassVar[dict[str, type[DynamoModel]]] = {}

    created_at = UTCDateTimeAttribute(null=True)
    updated_at = UTCDateTimeAttribute(null=True)
    version = VersionAttribute()

    class Meta(DynamoMeta):
        pass

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not getattr(cls.Meta, "table_suffix", ""):
            return  # an abstract base: no table of its own
        cls.model_name = cls.model_name or cls.__name__.lower()
        cls.verbose_name = cls.verbose_name or cls.__name__.lower()
        cls.verbose_name_plural = cls.verbose_name_plural or f"{cls.verbose_name}s"
        DynamoModel.registry.append(cls)
        configure_model(cls)

    # --- identity -------------------------------------------------------------------------
    @classmethod
    def key_attribute_names(cls) -> list[str]:
        """Return the table's key attribute names, hash key first."""
        names = [cls._hash_key_attribute().attr_name]
        if cls._range_key_attribute() is not None:
            names.append(cls._range_key_attribute().attr_name)
        return names

    @property
    def pk(self) -> tuple[Any, ...]:
        """The item's primary key values, hash key first."""
        return tuple(getattr(self, name) for name in self.key_attribute_names())

    def __str__(self) -> str:
        return " / ".join(str(value) for value in self.pk)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self}>"

    # --- validation -----------------------------------------------------------------------
    def unique_error_message(
        self, model_class: type[DynamoModel], unique_check: tuple[str, ...]
    ) -> ValidationError:
        """Return the error of a write whose key another item holds, as Django's hook does.

        DynamoDB keeps one item per key, so `unique_check` is always the key's attribute names;
        a model says what a taken key means in its own words by overriding this.
        """
        return ValidationError(
            gettext("A %(model_name)s with the key %(key)s already exists."),
            code="unique",
            params={
                "model": self,
                "model_class": model_class,
                "model_name": self.verbose_name,
                "unique_check": unique_check,
                "key": str(self),
            },
        )

    def field_errors(self) -> dict[str, list[str]]:
        """Return the domain-rule violations of this item, one message list per field."""
        return {}

    def clean(self) -> None:
        """Derive what depends on other items before the rules are checked; a hook.

        Raise ValidationError for a problem that is not one field's. Every write path (save,
        batches, the admin's transactions) runs it through full_clean().
        """

    def full_clean(self) -> None:
        """Run clean(), then raise a ValidationError naming every field that breaks a rule."""
        # DynamoDB's limits first: clean() may read other items by these very keys.
        errors = limits.attribute_errors(self)
        if not errors:
            self.clean()
        try:
            domain = self.field_errors()
        except (ArithmeticError, TypeError, ValueError):
            if not errors:
                raise
            domain = {}  # a rule choked on a value the limits already named
        # A domain rule's message says more than a limit's, so it wins on the same field.
        errors.update({name: messages for name, messages in domain.items() if messages})
        if not errors:
            errors = limits.size_errors(self)  # after clean(): it may add derived values
        if errors:
            raise ValidationError(errors)

    # --- writes ---------------------------------------------------------------------------
    def stamp(self) -> None:
        """Set the timestamps and attributes derived from others before a write."""
        now = utcnow()
        if self.created_at is None:
            self.created_at = now
        self.updated_at = now

    def save(self, condition=None, *, add_version_condition: bool = True) -> dict[str, Any]:
        """Validate, stamp and store the item; a lost version race raises a ConflictError."""
        self.full_clean()
        is_new = self.version is None
        previous = (self.created_at, self.updated_at)
        self.stamp()
        try:
            result = super().save(condition=condition, add_version_condition=add_version_condition)
        except PutError as exc:
            self.created_at, self.updated_at = previous
            raise _conflict(exc, is_new, self) from exc
        self.mark_written(created=is_new)
        return result

    def derived_rows(self) -> tuple[list[DynamoModel], list[DynamoModel]]:
        """Return the rows derived from the item, to put and to delete with its write; a hook.

        Rows derived from the item that nobody edits (a search index's entries): no version,
        no history, written unconditionally. The admin's transactions (write_together) carry
        them in the item's own TransactWriteItems; after any other committed write,
        mark_written sends them in BatchWriteItems.
        """
        return [], []

    def mark_written(self, *, created: bool, rows_written: bool = False) -> None:
        """Follow up a committed write, then remember the item as stored.

        The derived rows are written first, unless the write's transaction carried them
        (`rows_written`); then the written() hook runs.
        """
        if not rows_written:
            from .batch import write_rows

            write_rows(*self.derived_rows())
        self.written(created=created)
        self._stored = self.serialize()

    def written(self, *, created: bool) -> None:
        """Follow up a committed write of the whole item (send signals); a hook.

        save() and the admin's transactions (write_together, write_with_history) run it
        through mark_written; batch_put and an UpdateItem (apply(), update()) do not, so
        their callers follow up themselves.
        """

    def claim_for_delete(self) -> None:
        """Stop new rows being written under the item before a hard delete reads them; a hook.

        A model whose owned rows (see `owned_partitions`) are written under a condition on it
        marks itself here, on its version, so the rows a cascade reads are all there will be.
        """

    def owned_partitions(self) -> list:
        """Return the partitions (dynamo.batch.Partition) a hard delete takes with it; a hook."""
        return []

    def was_stored_with(self, attribute: str) -> bool:
        """Return whether the item, as last read or written, carried the attribute."""
        return self._stored is not None and attribute in self._stored

    def stored_value(self, name: str) -> Any:
        """Return an attribute's value as last read or written (None if absent or unknown)."""
        attribute = self.get_attributes()[name]
        raw = (self._stored or {}).get(attribute.attr_name)
        return None if raw is None else attribute.deserialize(attribute.get_value(raw))

    def delete(self, condition=None, *, add_version_condition: bool = True) -> Any:
        """Delete the item if its stored version is the one this object holds."""
        try:
            return super().delete(condition=condition, add_version_condition=add_version_condition)
        except DeleteError as exc:
            raise _conflict(exc, False, self) from exc

    def update(self, actions, condition=None, *, add_version_condition: bool = True) -> Any:
        """Apply update actions if the stored version is the one this object holds."""
        try:
            return super().update(
                actions, condition=condition, add_version_condition=add_version_condition
            )
        except UpdateError as exc:
            raise _conflict(exc, self.version is None, self) from exc

    @classmethod
    def apply(
        cls: type[_M],
        hash_key: Any,
        actions: list,
        condition=None,
        *,
        range_key: Any = None,
        bump_version: bool = True,
    ) -> _M | None:
        """Apply a conditional UpdateItem; return the stored item, None if the condition failed.

        It bumps `version` so a stale edit made before it is refused, unless `bump_version` is
        False (a marker nobody edits, a copy the system keeps in sync). Nothing is read first.
        """
        if bump_version:
            actions = [*actions, cls.version.add(1)]
        try:
            data = cls._get_connection().update_item(
                hash_key,
                range_key=range_key,
                actions=actions,
                condition=condition,
                return_values=ALL_NEW,
            )
        except UpdateError as exc:
            if condition_failed(exc):
                return None
            raise
        return cls.from_raw_data(data["Attributes"])

    @classmethod
    def _get_connection(cls):
        connection = super()._get_connection()
        _client(connection.connection)
        return connection

    # --- reads ----------------------------------------------------------------------------
    _stored: dict[str, Any] | None = None  # the item as last read or written

    @classmethod
    def from_raw_data(cls: type[_M], data: dict[str, Any]) -> _M:
        item = super().from_raw_data(data)
        item._stored = data
        return item

    def refresh(self, consistent_read: bool = False) -> None:
        """Reload the item from its table."""
        super().refresh(consistent_read=consistent_read)
        self._stored = self.serialize()

    @classmethod
    def get(cls: type[_M], hash_key: Any, range_key: Any = None, **kwargs: Any) -> _M:
        """Return the item with these key values; a key DynamoDB cannot hold names no item."""
        if not limits.keys_fit((hash_key, range_key)):
            raise cls.DoesNotExist()
        return super().get(hash_key, range_key, **kwargs)

    @classmethod
    def batch_get(cls: type[_M], items: Any, *args: Any, **kwargs: Any) -> Iterator[_M]:
        """Return the stored items among these keys; keys DynamoDB cannot hold name none."""
        keys = [key if isinstance(key, tuple | list) else (key,) for key in items]
        fitting = [key for key in keys if limits.keys_fit(key)]
        if not fitting:
            return iter(())
        if all(len(key) == 1 for key in fitting):
            fitting = [key[0] for key in fitting]
        return super().batch_get(fitting, *args, **kwargs)

    @classmethod
    def query(cls: type[_M], hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        """Query the table or an index; a partition key DynamoDB cannot hold raises BadKey."""
        problem = limits.key_problem(hash_key)
        if problem:
            raise BadKey(problem)
        return super().query(hash_key, *args, **kwargs)

    @classmethod
    def get_or_none(cls: type[_M], *keys: Any, consistent_read: bool = False) -> _M | None:
        """Return the item with these key values, or None."""
        try:
            return cls.get(*keys, consistent_read=consistent_read)
        except cls.DoesNotExist:
            return None

    @classmethod
    def iter_all(cls: type[_M], page_size: int = 500) -> Iterator[_M]:
        """Scan the whole table: for maintenance commands only, never for a page."""
        return cls.scan(page_size=page_size)

    def to_display(self) -> dict[str, Any]:
        """Return the item's attributes as plain Python values, keyed by attribute name."""
        return {name: getattr(self, name) for name in self.get_attributes()}


def _conflict(exc: Exception, is_new: bool, item: DynamoModel) -> Exception:
    if not condition_failed(exc):
        return exc
    if is_new:
        return AlreadyExists(taken_key_message(item))
    return StaleVersion(
        f"Someone else changed or deleted this {item.verbose_name} ({item}) since it was read."
    )


def taken_key_message(item: DynamoModel) -> str:
    """Return what a write says when another item holds this item's key."""
    key = tuple(item.key_attribute_names())
    return " ".join(item.unique_error_message(type(item), key).messages)


def table_name_for(model: type[DynamoModel], prefix: str | None = None) -> str:
    """Return the model's table name under a prefix (the configured one by default)."""
    if prefix is None:
        prefix = dynamo_settings.DYNAMODB_TABLE_PREFIX
    return f"{prefix}{model.Meta.table_suffix}"


_connections: dict[tuple[Any, ...], Any] = {}
# Web requests fail fast; a command run from the shell can afford to wait
# (see use_command_timeouts()).
_command_timeouts = False


def is_local_endpoint(endpoint: str | None) -> bool:
    """Return whether an endpoint URL is on this machine (loopback address or localhost)."""
    host = urlsplit(endpoint or "").hostname
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def timeouts() -> tuple[float, float, int]:
    """Return the connect timeout, read timeout and total attempts DynamoDB calls get now."""
    if _command_timeouts:
        return (
            dynamo_settings.DYNAMODB_CONNECT_TIMEOUT,
            dynamo_settings.DYNAMODB_COMMAND_READ_TIMEOUT,
            dynamo_settings.DYNAMODB_COMMAND_MAX_ATTEMPTS,
        )
    return (
        dynamo_settings.DYNAMODB_CONNECT_TIMEOUT,
        dynamo_settings.DYNAMODB_READ_TIMEOUT,
        dynamo_settings.DYNAMODB_MAX_ATTEMPTS,
    )


def call_deadline() -> float:
    """Return the longest one DynamoDB call may take now: every attempt timing out."""
    connect, read, attempts = timeouts()
    # botocore's standard mode waits up to 2^(n-1) s (at most 20) before the n-th retry.
    backoff = sum(min(2 ** (n - 1), 20) for n in range(1, attempts))
    return attempts * (connect + read) + backoff


def use_command_timeouts() -> None:
    """Give every model the longer timeouts and retries of a command run from the shell."""
    global _command_timeouts
    _command_timeouts = True
    configure()  # the timeouts are part of a model's configuration: new ones, new connection


def configure_model(
    model: type[DynamoModel],
    *,
    endpoint: str | None = None,
    region: str | None = None,
    prefix: str | None = None,
) -> None:
    """Point one model at an endpoint, region and table prefix, dropping its cached connection."""
    if not settings.configured or dynamo_settings.missing():
        return  # the checks framework names what is missing (dynamo.E001)
    table_name = table_name_for(model, prefix)
    host = endpoint if endpoint is not None else dynamo_settings.DYNAMODB_ENDPOINT
    region = region or dynamo_settings.AWS_REGION
    meta = model.Meta
    wanted = (table_name, host, region, timeouts())
    if getattr(meta, "configured_as", None) == wanted and meta.table_name == table_name:
        return  # unchanged: keep the cached connection and its botocore client
    if model._connection is not None and getattr(meta, "configured_as", None):
        _connections[(model, *meta.configured_as)] = model._connection
    meta.table_name, meta.host, meta.region = table_name, host, region
    meta.configured_as = wanted
    meta.max_pool_connections = dynamo_settings.DYNAMODB_MAX_POOL_CONNECTIONS
    connect, read, attempts = wanted[3]
    meta.connect_timeout_seconds, meta.read_timeout_seconds = connect, read
    meta.max_retry_attempts = attempts - 1  # PynamoDB counts retries, botocore attempts
    # Fake keys only for an engine on this machine (DynamoDB Local, moto's server); any other
    # endpoint, and AWS itself, signs with the standard credential chain.
    local_keys = "local" if is_local_endpoint(host) else None
    meta.aws_access_key_id = meta.aws_secret_access_key = local_keys
    # Creating a botocore client is slow (it loads DynamoDB's service model): reuse one made
    # for these settings.
    model._connection = _connections.get((model, *wanted))


def configure(
    *, endpoint: str | None = None, region: str | None = None, prefix: str | None = None
) -> None:
    """Point every DynamoDB model at another endpoint or prefix (tests and commands use it)."""
    for model in DynamoModel.registry:
        configure_model(model, endpoint=endpoint, region=region, prefix=prefix)


# One botocore loader for the process. PynamoDB gives each model's connection a botocore
# session of its own in each thread, and a session of its own reads DynamoDB's service model
# and the endpoints file again to make its client: 50 ms a client against 8 with this one's
# (bench/RESULTS.md, "One botocore loader").
_LOADER = botocore.loaders.create_loader()


def _client(connection: Any) -> Any:
    """Return a PynamoDB connection's botocore client, made with the process's loader, metered."""
    session = connection.session  # this thread's, made by PynamoDB with the model's credentials
    if getattr(session, "dynamo_loader", None) is not _LOADER:
        session.register_component("data_loader", _LOADER)
        session.dynamo_loader = _LOADER
    return meter.instrument(connection.client)


def client_for(model: type[Model]) -> Any:
    """Return the metered botocore client of any PynamoDB model's connection."""
    return _client(model._get_connection().connection)
