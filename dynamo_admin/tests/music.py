"""The AWS guide's Music table, made by boto3 with no model: songs to query, and one item
holding every type (sets, binary, a 38-digit number, a map, a TTL a week away)."""

from __future__ import annotations

import time

SONGS = ["Call Me Today", "Happy Day", "PartiQL Rocks", "Scared of My Shadow", "Somewhere Down"]
BIG = "12345678901234567890123456789012345678"  # 38 digits
IN_A_WEEK = str(int(time.time()) + 7 * 86400)


def make_music(client) -> None:
    client.create_table(
        TableName="Music",
        KeySchema=[
            {"AttributeName": "Artist", "KeyType": "HASH"},
            {"AttributeName": "SongTitle", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "Artist", "AttributeType": "S"},
            {"AttributeName": "SongTitle", "AttributeType": "S"},
            {"AttributeName": "AlbumTitle", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "AlbumTitle-index",
                "KeySchema": [{"AttributeName": "AlbumTitle", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    client.update_time_to_live(
        TableName="Music", TimeToLiveSpecification={"Enabled": True, "AttributeName": "ExpiresAt"}
    )


ODD_SONG = {
    "Artist": {"S": "No One You Know"},
    "SongTitle": {"S": "Odd Song"},
    "AlbumTitle": {"S": "Somewhat Famous"},
    "Genres": {"SS": ["Country", "Folk"]},
    "Years": {"NS": ["2019", "2020"]},
    "Cover": {"B": b"\x00\xffcover"},
    "Plays": {"N": BIG},
    "ExpiresAt": {"N": IN_A_WEEK},
    "Credits": {"M": {"Mix": {"L": [{"S": "Ann"}, {"NULL": True}, {"BOOL": False}]}}},
}


def put_music(client) -> None:
    for title in SONGS:
        client.put_item(
            TableName="Music",
            Item={
                "Artist": {"S": "No One You Know"},
                "SongTitle": {"S": title},
                "AlbumTitle": {"S": "Somewhat Famous" if "Day" in title else "Hey Now"},
                "Awards": {"N": str(len(title))},
            },
        )
    client.put_item(
        TableName="Music",
        Item={"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "Happy Day"}, "Awards": {"N": "1"}},
    )
    client.put_item(TableName="Music", Item=ODD_SONG)
