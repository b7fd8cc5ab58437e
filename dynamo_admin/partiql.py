"""PartiQL on one table page: what a statement does, which table it names, whether it scans.

A statement is read, not parsed: its first word says what it does (SELECT, INSERT, UPDATE,
DELETE), the names after FROM, INTO and UPDATE say which tables it touches (each must be the
page's), and a SELECT without an equality (or IN) on the partition key of the table or index
it reads is a full Scan. DynamoDB itself refuses what is not PartiQL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from pynamodb.attributes import UnicodeAttribute
from pynamodb.models import Model

from dynamo.meter import PARTIQL_STRING, PARTIQL_TARGET

from .tables import Table

KINDS = ("SELECT", "INSERT", "UPDATE", "DELETE")
MAX_STATEMENT_CHARS = 8192  # ExecuteStatement's own limit
# The names a statement reads or writes, as the meter (and so IAM) reads them.
TARGET, STRING = PARTIQL_TARGET, PARTIQL_STRING


class BadStatement(ValueError):
    """A statement this page does not run; the message says why."""


@dataclass
class Statement:
    text: str
    kind: str
    table: str
    index: str | None

    @property
    def is_select(self) -> bool:
        return self.kind == "SELECT"


def read(text: str, table: Table) -> Statement:
    """Return what a statement does on this page's table; raise BadStatement if not allowed."""
    text = text.strip()
    if not text:
        raise BadStatement(_("Write a statement."))
    if len(text) > MAX_STATEMENT_CHARS:
        raise BadStatement(_("A statement is at most 8,192 characters."))
    words = text.split(None, 1)
    kind = words[0].upper()
    if kind not in KINDS:
        raise BadStatement(_("A statement starts with SELECT, INSERT, UPDATE or DELETE."))
    bare = STRING.sub("''", text)  # names inside string literals are not targets
    targets = [
        ((quoted or plain).replace('""', '"'), index_quoted or index_plain)
        for quoted, plain, index_quoted, index_plain in TARGET.findall(bare)
    ]
    if not targets:
        raise BadStatement(_("The statement names no table."))
    if any(name != table.name for name, _index in targets):
        raise BadStatement(
            _("On this page a statement reads or writes %(table)s only.") % {"table": table.name}
        )
    index = targets[0][1] or None
    if index and table.index(index.replace('""', '"')) is None:
        raise BadStatement(_("The table has no index %(name)r.") % {"name": index})
    return Statement(text, kind, table.name, index)


def is_full_scan(statement: Statement, table: Table) -> bool:
    """Return whether a SELECT reads the whole table (or index): no equality on its hash key."""
    if not statement.is_select:
        return False
    index = table.index(statement.index) if statement.index else None
    hash_keys = index.hash_keys if index else [table.hash_key]
    bare = STRING.sub("''", statement.text)
    where = re.split(r"\bWHERE\b", bare, maxsplit=1, flags=re.IGNORECASE)
    if len(where) < 2:
        return True
    # An OR anywhere may read past the equality: treat it as a Scan, as DynamoDB would.
    if re.search(r"\bOR\b", where[1], re.IGNORECASE):
        return True
    return not all(_equality_on(key).search(where[1]) for key in hash_keys)


def _equality_on(attribute: str) -> re.Pattern[str]:
    name = rf'(?:"{re.escape(attribute)}"|\b{re.escape(attribute)}\b)'
    return re.compile(rf"(?<![\w.]){name}\s*(?:=(?!=)|\bIN\b)", re.IGNORECASE)


class LoggedStatement(Model):
    """What History logs a PartiQL write under: the table it wrote (its entries' object)."""

    class Meta:
        table_name = "partiql"  # never read nor written: the log's entries only name it

    table = UnicodeAttribute(hash_key=True)


def logged_insert(entry: Model, log_table: str) -> dict[str, Any]:
    """Return the PartiQL INSERT of a History entry, for the statement's own transaction."""
    values = entry.serialize()
    fields = ", ".join(f"'{name}': ?" for name in values)
    return {
        "Statement": f'INSERT INTO "{log_table}" VALUE {{{fields}}}',
        "Parameters": list(values.values()),
    }
