"""The writes of one change page: its item and inline rows, all or none, in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from pynamodb.constants import KEY
from pynamodb.exceptions import TransactWriteError
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from dynamo.batch import TRANSACTION_LIMIT, delete_request
from dynamo.exceptions import AlreadyExists, ConflictError, StaleVersion
from dynamo.models import DynamoModel, taken_key_message

from .meta import label_of, meta, pk_of
from .models import ADDITION, CHANGE, DELETION, AdminLog, object_key_for
from .stored import changed_names, shown_condition, update_actions

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
    rows_written: bool = False  # the item's rows kept in sync went in its transaction

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


class PageTransaction(TransactWrite):
    """PynamoDB's TransactWrite, with an update that leaves the item's version alone and
    unconditional writes of the rows kept in sync."""

    def put_row(self, row: DynamoModel) -> None:
        self._put_items.append({"TableName": row.Meta.table_name, "Item": row.serialize()})

    def delete_row(self, row: DynamoModel) -> None:
        """Delete a row by its key; it goes before every other delete (see write_together)."""
        request = delete_request(row)["DeleteRequest"]
        self._delete_items.insert(0, {"TableName": row.Meta.table_name, **request})

    def update_keeping_version(self, update: Update) -> None:
        hash_value, range_value = update.model._serialize_keys(*update.key)
        self._update_items.append(
            update.model._get_connection().get_operation_kwargs(
                hash_key=hash_value,
                range_key=range_value,
                key=KEY,
                actions=update.actions,
                condition=update.condition,
            )
        )


class Cancelled(Exception):
    """DynamoDB cancelled the transaction: nothing was written. Holds (write, code) pairs."""

    def __init__(self, failures: list[tuple[Write, str]]) -> None:
        super().__init__(", ".join(f"{write.item}: {code}" for write, code in failures))
        self.failures = failures


def write_together(writes: list[Write], actor: str, updates: Sequence[Update] = ()) -> None:
    """Write every item and its history entry, or none, in one TransactWriteItems.

    A change or delete is conditional on the version its form showed, an addition on the key
    being free; `actor` is the name the history entries give; `updates` (copies kept in sync)
    go in the same transaction, after them, and so do the rows derived from each put
    (DynamoModel.derived_rows: a rename's search words) while the transaction has room,
    marking the write `rows_written`. Items must be validated and prepared already; this
    stamps the puts. Raise Cancelled naming the writes that lost.
    """
    # PynamoDB sends deletes before puts; CancellationReasons follow the order sent.
    ordered = [w for w in writes if w.action == DELETION] + [
        w for w in writes if w.action != DELETION
    ]
    room = TRANSACTION_LIMIT - 2 * len(ordered) - len(updates)
    rows: dict[int, tuple[list[DynamoModel], list[DynamoModel]]] = {}
    for write in ordered:
        if write.action != DELETION and isinstance(write.item, DynamoModel):
            puts, deletes = write.item.derived_rows()
            if len(puts) + len(deletes) <= room:
                rows[id(write)] = (puts, deletes)
                room -= len(puts) + len(deletes)
    stamped = [w.item for w in ordered if isinstance(w.item, DynamoModel)]
    stamps = {id(item): (item.created_at, item.updated_at) for item in stamped}
    connection = type(ordered[0].item)._get_connection().connection  # metered like every call
    try:
        with PageTransaction(connection=connection) as transaction:
            for write in ordered:
                item, model = write.item, type(write.item)
                unversioned = meta(model).version_name is None
                still_there = model._hash_key_attribute().exists()
                if write.action == DELETION:
                    transaction.delete(item, condition=still_there if unversioned else None)
                    continue
                if isinstance(item, DynamoModel):
                    item.stamp()
                if write.action == ADDITION:
                    transaction.save(item, condition=model._hash_key_attribute().does_not_exist())
                    continue
                # A change writes only the attributes whose values changed: every other one,
                # declared or not, stays as stored. Without a version, the ones the person
                # changed must still hold what the page showed.
                condition = still_there
                if unversioned and write.form is not None and write.form.shown:
                    condition = shown_condition(model, write.form.shown, list(write.changes))
                actions = update_actions(item, changed_names(item))
                transaction.update(item, actions, condition=condition)
            # Entries go last, so the cancellation reasons of the items keep the order above.
            for write in ordered:
                transaction.save(
                    write.entry
                    or AdminLog.entry_for(write.item, write.action, actor, log_changes(write))
                )
            for puts, deletes in rows.values():
                for row in puts:
                    transaction.put_row(row)
                for row in deletes:
                    transaction.delete_row(row)
            for update in updates:  # PynamoDB sends updates after every put
                transaction.update_keeping_version(update)
    except TransactWriteError as exc:
        for item in stamped:
            item.created_at, item.updated_at = stamps[id(item)]
        # PynamoDB sends deletes (the rows' first), then puts (additions, the history entries,
        # the rows), then updates (changes, then the copies): the reasons follow that order.
        deleted_rows = sum(len(deletes) for _, deletes in rows.values())
        put_rows = sum(len(puts) for puts, _ in rows.values())
        sent: list[Write | None] = [
            *([None] * deleted_rows),
            *(w for w in ordered if w.action == DELETION),
            *(w for w in ordered if w.action == ADDITION),
            *([None] * (len(ordered) + put_rows)),
            *(w for w in ordered if w.action == CHANGE),
        ]
        reasons = list(exc.cancellation_reasons or [])
        failures = [
            (write, reason.code)
            for write, reason in zip(sent, reasons, strict=False)
            if write is not None and reason is not None
        ]
        if not failures or any(
            code not in (CANCELLED_BY_CONDITION, TRANSACTION_CONFLICT) for _, code in failures
        ):
            raise
        raise Cancelled(failures) from exc
    for write in ordered:
        write.rows_written = id(write) in rows


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
