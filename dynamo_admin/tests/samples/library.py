"""A library's single table as public PynamoDB projects write one: discriminator families whose
subclasses redeclare key attributes (with or without the key flag), and the type copied into
the overloaded index's key.

`PK`/`SK` keys; `GSI1` is overloaded (each type copies its discriminator value into `GSI1PK`,
so one Query lists a type); `ByKind` is keyed by the discriminator attribute `type` itself.
Loans keep their type in `GSI1PK` only: their discriminator is the index's hash key; memos in
`GSI1SK`, the index's sort key.
"""

from __future__ import annotations

from pynamodb.attributes import DiscriminatorAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from .models import SampleMeta

TABLE = "Library"


class LibraryMeta(SampleMeta):
    table_name = TABLE


class Gsi1(GlobalSecondaryIndex):
    class Meta:
        index_name = "GSI1"
        projection = AllProjection()

    GSI1PK = UnicodeAttribute(hash_key=True)
    GSI1SK = UnicodeAttribute(range_key=True)


class ByKind(GlobalSecondaryIndex):
    class Meta:
        index_name = "ByKind"
        projection = AllProjection()

    kind = UnicodeAttribute(hash_key=True, attr_name="type")
    SK = UnicodeAttribute(range_key=True)


class Entry(Model):
    class Meta(LibraryMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)
    SK = UnicodeAttribute(range_key=True)
    kind = DiscriminatorAttribute(attr_name="type")
    GSI1PK = UnicodeAttribute(null=True)  # the type again: AUTHOR, BOOK
    GSI1SK = UnicodeAttribute(null=True)

    gsi1 = Gsi1()
    by_kind = ByKind()


class Author(Entry, discriminator="AUTHOR"):
    PK = UnicodeAttribute(hash_key=True, default="AUTHOR")  # redeclared: one partition
    name = UnicodeAttribute(null=True)


class Book(Entry, discriminator="BOOK"):
    SK = UnicodeAttribute(range_key=True, default="BOOK")  # redeclared: one item per PK
    title = UnicodeAttribute(null=True)
    pages = NumberAttribute(null=True)


class Map(Entry, discriminator="MAP"):
    # Redeclared with a default but without hash_key=True: PynamoDB still keys maps by PK,
    # yet a connection made from this class's own schema has no hash key.
    PK = UnicodeAttribute(default="MAP")
    label = UnicodeAttribute(null=True)


class Record(Model):
    class Meta(LibraryMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)
    SK = UnicodeAttribute(range_key=True)
    GSI1PK = DiscriminatorAttribute()  # the type is the overloaded index's hash key
    GSI1SK = UnicodeAttribute(null=True)

    gsi1 = Gsi1()


class Loan(Record, discriminator="LOAN"):
    member = UnicodeAttribute(null=True)


class Note(Model):
    class Meta(LibraryMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)
    SK = UnicodeAttribute(range_key=True)
    GSI1PK = UnicodeAttribute(null=True)
    GSI1SK = DiscriminatorAttribute()  # the type is the overloaded index's sort key


class Memo(Note, discriminator="MEMO"):
    text = UnicodeAttribute(null=True)

    gsi1 = Gsi1()  # declared on the subclass only


LIBRARY = (Entry, Author, Book, Map, Record, Loan, Note, Memo)


def make_library_table(client) -> None:
    """Create `Library` as a team's boto3 script does: PK/SK, GSI1 and ByKind."""
    client.create_table(
        TableName=TABLE,
        KeySchema=[
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": name, "AttributeType": "S"}
            for name in ("PK", "SK", "GSI1PK", "GSI1SK", "type")
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "GSI1",
                "KeySchema": [
                    {"AttributeName": "GSI1PK", "KeyType": "HASH"},
                    {"AttributeName": "GSI1SK", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            },
            {
                "IndexName": "ByKind",
                "KeySchema": [
                    {"AttributeName": "type", "KeyType": "HASH"},
                    {"AttributeName": "SK", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            },
        ],
        BillingMode="PAY_PER_REQUEST",
    )
