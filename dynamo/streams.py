"""Read a table's DynamoDB stream: its shards, parents before children, and their records.

A shard holds the changes of some of the table's keys in the order they were written; when
it closes (DynamoDB splits and rolls shards over every few hours) its children carry on. So a
reader finishes a parent before it starts that parent's children, remembers where it stopped
in each shard by sequence number, and asks for a new iterator whenever one has expired (they
last 15 minutes). Records stay readable for 24 hours.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import boto3
from boto3.dynamodb.types import TypeDeserializer
from botocore.exceptions import ClientError

from . import meter
from .models import DynamoModel

PAGE_LIMIT = 1000  # records a GetRecords call returns at most
# While a stream is busy, a reader applies what a shard gathered over this many seconds in one
# batch rather than each few records as they come: the Lambda's MaximumBatchingWindowInSeconds
# in the exported template, and the pace of `consume_streams`' rounds.
BATCH_WINDOW = 1
_clients: dict[tuple, Any] = {}
_deserializer = TypeDeserializer()


def client_for(model: type[DynamoModel]) -> Any:
    """Return a metered DynamoDB Streams client on the model's endpoint, region and keys."""
    meta = model.Meta
    key = (meta.host, meta.region, meta.aws_access_key_id)
    if key not in _clients:
        # In AWS, the regional endpoint: botocore's newer account-based one is unknown to moto.
        endpoint = meta.host or f"https://streams.dynamodb.{meta.region}.amazonaws.com"
        options: dict[str, Any] = {"region_name": meta.region, "endpoint_url": endpoint}
        if meta.aws_access_key_id:
            options["aws_access_key_id"] = meta.aws_access_key_id
            options["aws_secret_access_key"] = meta.aws_secret_access_key
        _clients[key] = meter.instrument(boto3.client("dynamodbstreams", **options))
    return _clients[key]


def sequence(number: str | None) -> int:
    """Return a sequence number as an integer (they compare as numbers, not as text)."""
    return int(number) if number else -1


@dataclass(frozen=True)
class Shard:
    """One shard of a stream: open until DynamoDB gives it an ending sequence number."""

    shard_id: str
    parent_id: str | None
    starting: str
    ending: str | None

    @property
    def closed(self) -> bool:
        return self.ending is not None

    def can_hold(self, number: str) -> bool:
        """Return whether the shard's range reaches a sequence number (an open one's has no end)."""
        wanted = sequence(number)
        return sequence(self.starting) <= wanted and (
            self.ending is None or wanted <= sequence(self.ending)
        )


def shards(client: Any, stream_arn: str) -> list[Shard]:
    """Return every shard the stream still holds, each parent before its children."""
    found: list[Shard] = []
    start: str | None = None
    while True:
        described = client.describe_stream(
            StreamArn=stream_arn, **({"ExclusiveStartShardId": start} if start else {})
        )["StreamDescription"]
        for shard in described.get("Shards", []):
            numbers = shard.get("SequenceNumberRange", {})
            found.append(
                Shard(
                    shard["ShardId"],
                    shard.get("ParentShardId"),
                    numbers.get("StartingSequenceNumber", ""),
                    numbers.get("EndingSequenceNumber"),
                )
            )
        start = described.get("LastEvaluatedShardId")
        if not start:
            break
    return parents_first(found)


def parents_first(found: list[Shard]) -> list[Shard]:
    """Order shards so that each comes after its parent (a trimmed parent is no constraint)."""
    by_id = {shard.shard_id: shard for shard in found}

    def depth(shard: Shard) -> int:
        steps = 0
        while shard.parent_id in by_id:
            shard, steps = by_id[shard.parent_id], steps + 1
        return steps

    return sorted(found, key=lambda shard: (depth(shard), sequence(shard.starting)))


def iterator(client: Any, stream_arn: str, shard_id: str, after: str | None) -> str | None:
    """Return an iterator just after a sequence number, or at the oldest record without one."""
    position = (
        {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": after}
        if after
        else {"ShardIteratorType": "TRIM_HORIZON"}
    )
    try:
        return client.get_shard_iterator(StreamArn=stream_arn, ShardId=shard_id, **position)[
            "ShardIterator"
        ]
    except ClientError as exc:
        code = exc.response["Error"]["Code"]
        # The shard aged out of the stream (24 hours): nothing is left to read in it.
        if code == "ResourceNotFoundException":
            return None
        # The records after `after` aged out: read what is left (a rebuild counts the rest).
        if code == "TrimmedDataAccessException" and after:
            return iterator(client, stream_arn, shard_id, None)
        raise


@dataclass
class Page:
    """The records one GetRecords call returned and where the next call goes on."""

    records: list[dict[str, Any]]
    next_iterator: str | None  # None: the shard is closed and read to its end


def read(client: Any, shard_iterator: str, limit: int | None = None) -> Page:
    """Return the next records of a shard (an expired iterator raises ExpiredIteratorException)."""
    got = client.get_records(ShardIterator=shard_iterator, Limit=limit or PAGE_LIMIT)
    return Page(got.get("Records", []), got.get("NextShardIterator"))


def first_after(client: Any, stream_arn: str, shard_id: str, after: str | None) -> Page | None:
    """Return a page of at most one record: the shard's first after a sequence number (its
    oldest without one). An empty page with no next iterator: the shard has closed and that
    number was its last. None: the shard is gone from the stream."""
    position = iterator(client, stream_arn, shard_id, after)
    return read(client, position, limit=1) if position is not None else None


def created_at(record: dict[str, Any]) -> datetime:
    """Return when a record's change was made, as DynamoDB gives it: rounded down to the second
    in AWS (moto rounds to the minute), so no later than the change. Lambda hands it over as
    epoch seconds, GetRecords as a time."""
    when = record["dynamodb"]["ApproximateCreationDateTime"]
    if isinstance(when, datetime):
        return when.astimezone(UTC)
    return datetime.fromtimestamp(float(when), UTC)


# How a shard answers for a sequence number that is not its own, seen on the engines: DynamoDB
# Local refuses one below its oldest record (ValidationException under the shard's starting
# number, TrimmedDataAccessException above it), gives its next record for one between two of
# its records, and an empty page past its latest; moto, whose numbers follow each other without
# gaps, gives an empty page past its latest (and fails outright below a shard's starting number,
# where no caller asks). A shard gone from the stream holds nothing either. DynamoDB may answer
# an empty page short of a record it holds: then the number looks held by no shard, and the
# caller fails rather than guesses.
NOT_HELD = ("ValidationException", "TrimmedDataAccessException", "ResourceNotFoundException")


def record_at(client: Any, stream_arn: str, shard_id: str, number: str) -> dict[str, Any] | None:
    """Return the shard's record with exactly this sequence number, or None when it has none.

    Two calls: an iterator AT_SEQUENCE_NUMBER and one record read from it. Whether the number
    is the shard's is told by the record that comes back, not by the calls succeeding.
    """
    try:
        position = client.get_shard_iterator(
            StreamArn=stream_arn,
            ShardId=shard_id,
            ShardIteratorType="AT_SEQUENCE_NUMBER",
            SequenceNumber=number,
        )["ShardIterator"]
        page = read(client, position, limit=1)
    except ClientError as exc:
        if exc.response["Error"]["Code"] in NOT_HELD:
            return None
        raise
    if page.records and sequence(page.records[0]["dynamodb"]["SequenceNumber"]) == sequence(number):
        return page.records[0]
    return None


def expired(exc: ClientError) -> bool:
    """Return whether a call failed because its shard iterator is older than 15 minutes."""
    return exc.response["Error"]["Code"] == "ExpiredIteratorException"


def records_after(
    client: Any, stream_arn: str, shard: Shard, after: str | None
) -> Iterator[list[dict[str, Any]]]:
    """Yield the shard's records after a sequence number, page by page, up to where it ends now.

    Stops at the first empty page of an open shard (its latest record was read) or at the end
    of a closed one; an iterator that expires on the way is renewed from the last record read.
    """
    shard_id = shard.shard_id
    position = iterator(client, stream_arn, shard_id, after)
    while position:
        try:
            page = read(client, position)
        except ClientError as exc:
            if not expired(exc):
                raise
            position = iterator(client, stream_arn, shard_id, after)
            continue
        if page.records:
            after = page.records[-1]["dynamodb"]["SequenceNumber"]
            yield page.records
        elif page.next_iterator and not shard.closed:
            return  # an open shard read to its latest record
        position = page.next_iterator


def image(record: dict[str, Any], which: str) -> dict[str, Any] | None:
    """Return a record's OldImage or NewImage as plain Python values (numbers as Decimal)."""
    raw = record.get("dynamodb", {}).get(which)
    if raw is None:
        return None
    return {name: _deserializer.deserialize(value) for name, value in raw.items()}
