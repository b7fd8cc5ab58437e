"""The writes of one change page: its item and inline rows, all or none, in one transaction."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from pynamodb.attributes import BinarySetAttribute, NumberSetAttribute, UnicodeSetAttribute
from pynamodb.connection.base import BOTOCORE_EXCEPTIONS
from pynamodb.constants import KEY, TRANSACT_ITEMS, TRANSACT_WRITE_ITEMS
from pynamodb.exceptions import TransactWriteError
from pynamodb.models import Model

from dynamo.batch import TRANSACTION_LIMIT, delete_request
from dynamo.exceptions import AlreadyExists, ConflictError, StaleVersion
from dynamo.models import DynamoModel, client_for, taken_key_message

from .claims import MODELS, item_condition
from .meta import label_of, meta, pk_of
from .models import ADDITION, DELETION, AdminLog, object_key_for
from .stored import misfits_of, raw_of

if TYPE_CHECKING:
    from .forms import ItemForm

# Each write takes two of a transaction's actions: the item and its history entry.
MAX_TRANSACTION_ITEMS = TRANSACTION_LIMIT // 2
# CancellationReason codes the page explains (a transaction's, not an error's code such as
# dynamo.models.CONDITION_FAILED); any other cancellation is an error.
CANCELLED_BY_CONDITION, TRANSACTION_CONFLICT = "ConditionalCheckFailed", "TransactionConflict"


@dataclass
class Write:
    """One item to write: the form that edited it, the admin that shows it, what changed."""

    admin: Any  # the DynamoModelAdmin or DynamoInline the item belongs to (None outside it)
    form: ItemForm | None
    item: DynamoModel
    action: str  # ADDITION, CHANGE or DELETION
    changes: dict[str, list[Any]] = field(default_factory=dict)
    gone: bool = False  # the page showed a stored item that is no longer stored
    entry: AdminLog | None = None  # its history entry (the admin's log_* hook), else the default
    shown: dict[str, Any] | None = None  # without a version: the stored values the save read
    # A new item's attributes its model does not declare, as stored (an import's whole item).
    undeclared: dict[str, Any] = field(default_factory=dict)
    rows_written: bool = False  # the item's rows kept in sync went in its transaction
    logged: bool = True  # a History entry goes with it (not for a copy the system keeps)
    checked: bool = True  # on the version or values read (not a row deleted with its parent)
    # Its request built by the caller (a Tables item page's UpdateItem of stored attributes).
    request: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.form is not None:
            self.shown = self.shown if self.shown is not None else self.form.shown
            self.undeclared = self.undeclared or self.form.undeclared

    @property
    def key(self) -> tuple[str, tuple[Any, ...]]:
        return (self.item.Meta.table_name, pk_of(self.item))


@dataclass
class Update:
    """A copy kept in sync, updated in the page's transaction: no history entry, no new version.

    Its version stays, so a page opened before still saves the item it updates (as an
    UpdateItem of `DynamoModel.apply(bump_version=False)` after the save would leave it).
    """

    model: type[DynamoModel]
    key: tuple[Any, ...]
    actions: list[Any]
    condition: Any = None


class Cancelled(Exception):
    """DynamoDB cancelled the transaction: nothing was written. Holds (write, code) pairs."""

    def __init__(self, failures: list[tuple[Write, str]]) -> None:
        super().__init__(", ".join(f"{write.item}: {code}" for write, code in failures))
        self.failures = failures


def put_request(item: Model, condition=None) -> dict[str, Any]:
    """Return a transaction's Put of a whole item (its version set or bumped, as save() does)."""
    return {"Put": item.get_save_kwargs_from_instance(condition=condition)}


def write_together(writes: list[Write], actor: str, updates: Sequence[Update] = ()) -> None:
    """Write every item and its history entry, or none, in one TransactWriteItems.

    A change or delete is conditional on the version its form showed (without a version, on
    the values it showed), an addition on the key being free; `actor` is the name the history
    entries give; `updates` (copies kept in sync) go in the same transaction, and so do the
    rows derived from each put (DynamoModel.derived_rows: a rename's search words) while the
    transaction has room, marking the write `rows_written`. Items must be validated and
    prepared already; this stamps the puts. Raise Cancelled naming the writes that lost:
    DynamoDB gives one CancellationReason per item of the request, in the request's order.
    """
    requests: list[dict[str, Any]] = []
    owners: list[Write | None] = []  # the write each request is for (None: an entry, a row)
    logged = [w for w in writes if w.logged]
    room = TRANSACTION_LIMIT - len(writes) - len(logged) - len(updates)
    stamped = [w.item for w in writes if isinstance(w.item, DynamoModel)]
    stamps = {id(item): (item.created_at, item.updated_at) for item in stamped}
    versioned = []
    for write in writes:
        requests.append(item_request(write))
        owners.append(write)
        if write.action != DELETION and meta(type(write.item)).version_name:
            versioned.append(write.item)
    for write in logged:  # each item's history entry, in the same all-or-nothing request
        entry = write.entry or AdminLog.entry_for(
            write.item, write.action, actor, log_changes(write)
        )
        requests.append(put_request(entry))
        owners.append(None)
    for write in writes:
        if write.action == DELETION or write.request or not isinstance(write.item, DynamoModel):
            continue
        puts, deletes = write.item.derived_rows()
        if len(puts) + len(deletes) > room:
            continue
        room -= len(puts) + len(deletes)
        write.rows_written = True
        requests += [{"Put": {"TableName": r.Meta.table_name, "Item": r.serialize()}} for r in puts]
        requests += [
            {"Delete": {"TableName": r.Meta.table_name, **delete_request(r)["DeleteRequest"]}}
            for r in deletes
        ]
        owners += [None] * (len(puts) + len(deletes))
    for update in updates:
        hash_value, range_value = update.model._serialize_keys(*update.key)
        request = update.model._get_connection().get_operation_kwargs(
            hash_key=hash_value,
            range_key=range_value,
            key=KEY,
            actions=update.actions,
            condition=update.condition,
        )
        requests.append({"Update": request})
        owners.append(None)
    model = type(writes[0].item)  # a table's own key-only model too: metered like every call
    connection = model._get_connection().connection
    client_for(model)
    try:
        # The token makes botocore's own retry of a call that timed out after DynamoDB applied
        # it a success, not a second attempt refused by the conditions the first one met.
        token = uuid.uuid4().hex
        connection.dispatch(
            TRANSACT_WRITE_ITEMS, {TRANSACT_ITEMS: requests, "ClientRequestToken": token}
        )
    except BOTOCORE_EXCEPTIONS as exc:
        for write in writes:
            write.rows_written = False
        for item in stamped:
            item.created_at, item.updated_at = stamps[id(item)]
        error = TransactWriteError(_("The transaction was not written."), exc)
        reasons = list(error.cancellation_reasons or [])
        failures = [
            (write, reason.code)
            for write, reason in zip(owners, reasons, strict=False)
            if write is not None and reason is not None
        ]
        if not failures or any(
            code not in (CANCELLED_BY_CONDITION, TRANSACTION_CONFLICT) for _, code in failures
        ):
            raise error from exc
        raise Cancelled(failures) from exc
    for item in versioned:
        item.update_local_version_attribute()


def item_request(write: Write) -> dict[str, Any]:
    """Return the transaction's request for a write's item: a Delete, Put or Update.

    A change writes only the attributes whose values changed: every other one, declared or
    not, stays as stored. Without a version, the ones changed must still hold what was shown.
    """
    if write.request is not None:
        return write.request
    item, model = write.item, type(write.item)
    unversioned = meta(model).version_name is None
    still_there = model._hash_key_attribute().exists()
    # On a shared table the stored item must still be this model's (its discriminator, its
    # admin's item_condition): a write never turns another type's item into this one.
    own = type_condition(write)
    if write.action == DELETION and not write.checked:
        return {"Delete": item.get_delete_kwargs_from_instance(add_version_condition=False)}
    if write.action == DELETION:
        condition = still_there if unversioned else None
        if own is not None:
            condition = own if condition is None else condition & own
        return {"Delete": item.get_delete_kwargs_from_instance(condition=condition)}
    if isinstance(item, DynamoModel):
        item.stamp()
    if write.action == ADDITION:
        request = put_request(item, condition=model._hash_key_attribute().does_not_exist())
        request["Put"]["Item"] = {**write.undeclared, **request["Put"]["Item"]}
        return request
    condition = still_there
    if unversioned and write.shown:
        condition = shown_condition(model, write.shown, list(write.changes))
    if own is not None:
        condition &= own
    actions = update_actions(item, changed_names(item))
    return {"Update": item.get_update_kwargs_from_instance(actions, condition=condition)}


def type_condition(write: Write) -> Any:
    """Return the condition the stored item holds as its model's (None where there is none)."""
    get_declared = getattr(write.admin, "get_item_condition", None)
    declared = get_declared() if get_declared is not None else MODELS
    return item_condition(type(write.item), declared)


# --- what a change writes: the attributes whose values differ from what was read ----------
SET_ATTRIBUTES = (UnicodeSetAttribute, NumberSetAttribute, BinarySetAttribute)


def loaded_value(item: Model, name: str) -> Any:
    """Return an attribute's value as read from the table, its default where it was absent."""
    attribute = item.get_attributes()[name]
    raw = raw_of(item).get(attribute.attr_name)
    if raw is not None and "NULL" not in raw:
        return attribute.deserialize(attribute.get_value(raw))
    default = attribute.default
    return default() if callable(default) else default


def serialized(attribute, value: Any) -> Any:
    """Return a value as the attribute stores it, to compare two values by what they store."""
    if value is None or (isinstance(attribute, SET_ATTRIBUTES) and not value):
        return None
    return attribute.serialize(value)


def changed_names(item: Model) -> list[str]:
    """Return the attributes whose values differ from what was read (keys and version aside)."""
    opts = meta(type(item))
    skipped = {*opts.key_names, opts.version_name, *misfits_of(item)}
    return [
        name
        for name, attribute in item.get_attributes().items()
        if name not in skipped
        and serialized(attribute, getattr(item, name))
        != serialized(attribute, loaded_value(item, name))
    ]


def update_actions(item: Model, names: list[str]) -> list[Any]:
    """Return the UpdateItem actions writing these attributes: SET a value, REMOVE an absence."""
    actions = []
    attributes = item.get_attributes()
    for name in names:
        attribute, value = attributes[name], getattr(item, name)
        if serialized(attribute, value) is None:
            actions.append(attribute.remove())
        else:
            actions.append(attribute.set(value))
    return actions


def shown_condition(model: type[Model], shown: dict[str, Any], names: list[str]):
    """Return the condition that each of these attributes still holds the value shown.

    `shown` maps names to the raw values the page showed (None: absent). With no version
    attribute this is how a save finds that someone else changed what it changes.
    """
    attributes = model.get_attributes()
    condition = attributes[meta(model).key_names[0]].exists()
    for name in names:
        attribute, raw = attributes[name], shown.get(name)
        if raw is None:
            condition &= attribute.does_not_exist()
        else:
            condition &= attribute == attribute.deserialize(attribute.get_value(raw))
    return condition


def key_taken(item: Model) -> str:
    """Return what a write says when another item holds this item's key.

    A DynamoModel says it in its own words (its unique_error_message(), Django's hook); a
    plain PynamoDB model's message names the key.
    """
    if isinstance(item, DynamoModel):
        return taken_key_message(item)
    names = {"name": meta(type(item)).verbose_name, "item": label_of(item)}
    return _("A %(name)s with the key %(item)s already exists.") % names


def log_changes(write: Write) -> dict[str, list[Any]]:
    """Return what the history keeps of a write: no values of a deleted item (it is forgotten)."""
    return {} if write.action == DELETION else write.changes


def write_with_history(
    item: DynamoModel, action: str, actor: str, changes: dict[str, list[Any]] | None = None
) -> None:
    """Write one item (ADDITION, CHANGE or DELETION) and its history entry in one transaction.

    For other write paths (the API): a change or delete is conditional on `item.version`, an
    addition on the key being free; `changes` maps field to [old, new]. Raise ValidationError
    for a broken domain rule, AlreadyExists or StaleVersion when the condition fails.
    """
    if action != DELETION:
        item.full_clean()
    write = Write(None, None, item, action, changes or {})
    try:
        write_together([write], actor)
    except Cancelled as exc:
        [(_write, code)] = exc.failures
        names = {"name": meta(type(item)).verbose_name, "item": label_of(item)}
        if code == TRANSACTION_CONFLICT:
            message = _("Another write to the %(name)s %(item)s ran at once.")
            raise ConflictError(message % names) from exc
        if action == ADDITION:
            raise AlreadyExists(key_taken(item)) from exc
        message = _("The %(name)s %(item)s changed since it was read.")
        raise StaleVersion(message % names) from exc
    if action == DELETION:
        AdminLog.forget(object_key_for(item))
    else:
        item.mark_written(created=action == ADDITION, rows_written=write.rows_written)
