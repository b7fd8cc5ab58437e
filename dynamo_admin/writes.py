"""The writes of one change page: its item and inline rows, all or none, in one transaction."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from dynamo.models import DynamoModel

if TYPE_CHECKING:
    from .forms import ItemForm

ADDITION, CHANGE, DELETION = "add", "change", "delete"
# DynamoDB takes up to 100 actions in one TransactWriteItems.
MAX_TRANSACTION_ITEMS = 100
# CancellationReason codes the page explains; any other cancellation is an error.
CONDITION_FAILED, TRANSACTION_CONFLICT = "ConditionalCheckFailed", "TransactionConflict"


@dataclass
class Write:
    """One item to write: the form that edited it, the admin that shows it, what changed."""

    admin: Any  # the DynamoModelAdmin or DynamoInline the item belongs to
    form: ItemForm
    item: DynamoModel
    action: str  # ADDITION, CHANGE or DELETION
    changes: dict[str, list[Any]] = field(default_factory=dict)
    gone: bool = False  # the page showed a stored item that is no longer stored

    @property
    def key(self) -> tuple[str, tuple[Any, ...]]:
        return (self.item.Meta.table_name, self.item.pk)


class Cancelled(Exception):
    """DynamoDB cancelled the transaction: nothing was written. Holds (write, code) pairs."""

    def __init__(self, failures: list[tuple[Write, str]]) -> None:
        super().__init__(", ".join(f"{write.item}: {code}" for write, code in failures))
        self.failures = failures


def write_together(writes: list[Write]) -> None:
    """Write every item or none in one TransactWriteItems; raise Cancelled naming the losers.

    A change or delete is conditional on the version its form showed, an addition on the key
    being free. Items must be validated and prepared already; this stamps the puts.
    """
    # PynamoDB sends deletes before puts; CancellationReasons follow the order sent.
    ordered = [w for w in writes if w.action == DELETION] + [
        w for w in writes if w.action != DELETION
    ]
    stamps = {id(w): (w.item.created_at, w.item.updated_at) for w in ordered}
    connection = type(ordered[0].item)._get_connection().connection  # metered like every call
    try:
        with TransactWrite(connection=connection) as transaction:
            for write in ordered:
                item = write.item
                if write.action == DELETION:
                    transaction.delete(item)
                    continue
                item.stamp()
                free_key = type(item)._hash_key_attribute().does_not_exist()
                transaction.save(item, condition=free_key if write.action == ADDITION else None)
    except TransactWriteError as exc:
        for write in ordered:
            write.item.created_at, write.item.updated_at = stamps[id(write)]
        reasons = list(exc.cancellation_reasons or [])
        failures = [
            (write, reason.code)
            for write, reason in zip(ordered, reasons, strict=False)
            if reason is not None
        ]
        if not failures or any(
            code not in (CONDITION_FAILED, TRANSACTION_CONFLICT) for _, code in failures
        ):
            raise
        raise Cancelled(failures) from exc
