"""An archive table as a public project writes it: times as ISO text without an offset, read
back naive, and a `__str__` that fails another way in each class (test_odd_data.py).

In the samples app, so Django finds the models' app whether the tests run from the checkout
or from the wheel's copy.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pynamodb.attributes import NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.models import Model


class NaiveDateTimeAttribute(UTCDateTimeAttribute):
    """A time stored as ISO text without an offset and read back naive, as an archive job does.

    Its own serialisation makes it read-only on the change page, shown through display().
    """

    def serialize(self, value: datetime) -> str:
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value.isoformat()

    def deserialize(self, value: str) -> datetime:
        return datetime.fromisoformat(value)


class Archive(Model):
    """Archived copies: `__str__` is the title, None for an untitled or a key-only item."""

    class Meta:
        table_name = "OddArchive"
        region = "us-east-1"
        aws_access_key_id = "testing"
        aws_secret_access_key = "testing"
        billing_mode = "PAY_PER_REQUEST"

    shelf = UnicodeAttribute(hash_key=True)
    number = NumberAttribute(range_key=True)
    title = UnicodeAttribute(null=True)
    archived_at = NaiveDateTimeAttribute(null=True)

    def __str__(self):
        return self.title


class FragileArchive(Archive):
    """The same table; `__str__` raises on an untitled item."""

    def __str__(self):
        return self.title.upper()


class BlankArchive(Archive):
    """The same table; `__str__` is empty on an untitled item."""

    def __str__(self):
        return self.title or ""


class NumberedArchive(Archive):
    """The same table; `__str__` returns the number itself, not text."""

    def __str__(self):
        return self.number
