"""Delete an item with what belongs to it, in one transaction, on the version the page showed."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.utils.translation import gettext as _

from dynamo.batch import Partition, batch_delete, batch_put
from dynamo.exceptions import StaleVersion
from dynamo.models import DynamoModel

from .meta import label_of, meta
from .models import DELETION, AdminLog, object_key_for
from .writes import MAX_TRANSACTION_ITEMS, TRANSACTION_CONFLICT, Cancelled, Write, write_together


def delete_with_related(
    item: DynamoModel,
    related: list[DynamoModel],
    actor: str,
    log_deletion: Callable[[DynamoModel], AdminLog] | None = None,
    owned: Sequence[Partition] = (),
) -> None:
    """Delete item (if its stored version is item.version) and the related items together.

    With `owned` partitions (a learner's study history), the item is claimed first on its
    version (its `claim_for_delete()`: nothing new lands under it), then each partition is
    emptied, then the item goes: a run that dies leaves the claimed item for a re-run. Owned
    rows get no history entry each (a learner's 700 sessions); the item's entry records it.

    Each deleted item gets its history entry in the same transaction, from `actor`. Up to 49
    related items go in the transaction (two actions each, of DynamoDB's 100). Beyond that, the
    item's conditional delete and its entry go first and the related items follow in batches:
    a run that dies half-way leaves only orphans that the same cascade (or the gardener)
    removes. Then every logged value of the deleted items is forgotten. `log_deletion` makes
    each entry (the admin's hook); by default one from `actor`. Related items of a model with
    `keeps_history = False` (a search index's entries) are deleted without an entry.
    """

    def entry(deleted: DynamoModel) -> AdminLog:
        if log_deletion is not None:
            return log_deletion(deleted)
        return AdminLog.entry_for(deleted, DELETION, actor)

    if owned:
        item.claim_for_delete()
        for partition in owned:
            partition.delete()
    # Copies the system keeps (a search index's entries) go without entries of their own.
    logged = [child for child in related if keeps_history(child)]
    # Each item a delete action, each logged one and the item itself an entry too.
    fits = len(related) + len(logged) + 2 <= 2 * MAX_TRANSACTION_ITEMS
    together = related if fits else []
    writes = [
        Write(None, None, child, DELETION, checked=False, logged=keeps_history(child))
        for child in together
    ]
    writes.append(Write(None, None, item, DELETION))
    for write in writes:  # each entry from the admin's hook, written with its delete
        write.entry = entry(write.item) if write.logged else None
    try:
        write_together(writes, actor)
    except Cancelled as exc:
        names = {"name": meta(type(item)).verbose_name, "item": label_of(item)}
        if all(code == TRANSACTION_CONFLICT for _write, code in exc.failures):
            message = _(
                "Another write to this %(name)s (%(item)s) ran at the same moment; nothing "
                "was deleted. Try again."
            )
        else:
            message = _(
                "Someone else changed or deleted this %(name)s (%(item)s) since the page was "
                "shown; nothing was deleted."
            )
        raise StaleVersion(message % names) from exc
    if not together:
        by_model: dict[type[DynamoModel], list[DynamoModel]] = {}
        for child in related:
            by_model.setdefault(type(child), []).append(child)
        for model, children in by_model.items():
            batch_delete(model, children)
        batch_put(AdminLog, [entry(child) for child in logged])
    for deleted in (item, *logged):
        AdminLog.forget(object_key_for(deleted))


def keeps_history(item: DynamoModel) -> bool:
    """Return whether an item's writes are logged (not a copy the system keeps, `keeps_history`)."""
    return getattr(type(item), "keeps_history", True)
