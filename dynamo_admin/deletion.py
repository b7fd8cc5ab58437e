"""Delete an item with what belongs to it, in one transaction, on the version the page showed."""

from __future__ import annotations

from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from dynamo.batch import batch_delete
from dynamo.exceptions import StaleVersion
from dynamo.models import DynamoModel

from .writes import MAX_TRANSACTION_ITEMS


def delete_with_related(item: DynamoModel, related: list[DynamoModel]) -> None:
    """Delete item (if its stored version is item.version) and the related items together.

    Up to 99 related items go in the same transaction. Beyond that, the item's conditional
    delete goes first and the related items follow in batches: a run that dies half-way leaves
    only orphans that the same cascade (or the gardener) removes.
    """
    if len(related) < MAX_TRANSACTION_ITEMS:
        connection = type(item)._get_connection().connection  # metered like every other call
        try:
            with TransactWrite(connection=connection) as transaction:
                for child in related:
                    transaction.delete(child, add_version_condition=False)
                transaction.delete(item)
        except TransactWriteError as exc:
            reasons = [r for r in (exc.cancellation_reasons or []) if r is not None]
            if any(r.code == "ConditionalCheckFailed" for r in reasons):
                raise StaleVersion(
                    f"Someone else changed or deleted this {item.verbose_name} ({item}) "
                    "since the page was shown; nothing was deleted."
                ) from exc
            raise
        return
    item.delete()
    by_model: dict[type[DynamoModel], list[DynamoModel]] = {}
    for child in related:
        by_model.setdefault(type(child), []).append(child)
    for model, children in by_model.items():
        batch_delete(model, children)
