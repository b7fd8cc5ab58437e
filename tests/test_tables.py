"""create_tables and delete_tables: the tables and indexes the architecture names."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from dynamo import tables
from dynamo.models import client_for
from stats.models import UserStats
from users.models import UserSkill

EXPECTED = {
    "users": (
        [("username", "HASH")],
        {
            "gsi_created_month": [("created_month", "HASH"), ("created_at", "RANGE")],
            "gsi_deleted_at": [("deleted_at", "HASH")],
        },
    ),
    "skills": (
        [("skill_id", "HASH")],
        {
            "gsi_category": [("category", "HASH"), ("name", "RANGE")],
            "gsi_pending": [("pending", "HASH"), ("pending_since", "RANGE")],
            "gsi_name_key": [("name_key", "HASH")],
        },
    ),
    "user-skills": (
        [("username", "HASH"), ("skill_id", "RANGE")],
        {
            "gsi_skill_id": [("skill_id", "HASH"), ("username", "RANGE")],
            "gsi_user_created_at": [("username", "HASH"), ("created_at", "RANGE")],
            "gsi_skill_level": [
                ("listed_skill_name", "HASH"),
                ("level", "RANGE"),
                ("years", "RANGE"),
            ],
        },
    ),
    "user-stats": (
        [("username", "HASH")],
        {
            **{
                f"gsi_leaderboard_{metric}": [
                    ("leaderboard_partition", "HASH"),
                    (metric, "RANGE"),
                    ("username", "RANGE"),
                ]
                for metric in ("xp", "streak", "efficiency", "accuracy")
            },
            "gsi_user_stats_reminders": [
                ("next_reminder_bucket", "HASH"),
                ("next_reminder_at", "RANGE"),
            ],
            "gsi_streak_expires_on": [("streak_expires_on", "HASH")],
        },
    ),
    "admin-log": (
        [("object_key", "HASH"), ("logged_at", "RANGE")],
        {
            "gsi_user_logged_at": [("user", "HASH"), ("logged_at", "RANGE")],
            "gsi_logged_month": [("logged_month", "HASH"), ("logged_at", "RANGE")],
            "gsi_object_partition": [("object_partition", "HASH"), ("logged_at", "RANGE")],
        },
    ),
    "jobs": ([("name", "HASH")], {}),
    "rank-tiers": ([("board", "HASH"), ("ceiling", "RANGE")], {}),
    "study-sessions": (
        [("username", "HASH"), ("session_id", "RANGE")],
        {"gsi_started_month": [("started_month", "HASH"), ("session_id", "RANGE")]},
    ),
    "study-days": ([("username", "HASH"), ("day", "RANGE")], {}),
    "session-keys": ([("username", "HASH"), ("key", "RANGE")], {}),
    "learner-words": ([("head", "HASH"), ("entry", "RANGE")], {}),
}


def key_schema(entries):
    return [(e["AttributeName"], e["KeyType"]) for e in entries]


def test_it_creates_every_table_with_the_architecture_keys_and_indexes(created_tables):
    assert "created table" in created_tables.out

    stored = {}
    for model in tables.all_models():
        description = tables.describe(model)
        suffix = model.Meta.table_suffix
        assert description["TableName"].endswith(suffix)
        assert description["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
        stored[suffix] = (
            key_schema(description["KeySchema"]),
            {
                i["IndexName"]: key_schema(i["KeySchema"])
                for i in description.get("GlobalSecondaryIndexes", [])
            },
        )
        for index in description.get("GlobalSecondaryIndexes", []):
            assert index["Projection"]["ProjectionType"] == "ALL"
    assert stored == EXPECTED


def test_running_create_tables_twice_changes_nothing(created_tables, capsys):
    assert "created table" in created_tables.out  # the first run
    call_command("create_tables")

    assert "nothing to do" in capsys.readouterr().out
    call_command("create_tables", "--check")


def test_check_reports_a_missing_index_and_create_tables_adds_it(bare_engine, capsys):
    call_command("create_tables")
    client_for(UserSkill).update_table(
        TableName=UserSkill.Meta.table_name,
        GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "gsi_skill_level"}}],
    )
    tables.wait_until_active(UserSkill)
    tables.wait_until_index_gone(UserSkill, "gsi_skill_level")
    capsys.readouterr()

    with pytest.raises(CommandError, match="1 difference"):
        call_command("create_tables", "--check")
    assert "index gsi_skill_level is missing" in capsys.readouterr().out

    call_command("create_tables")
    assert tables.drift(UserSkill) == []


def test_check_reports_a_missing_table(bare_engine, capsys):
    with pytest.raises(CommandError):
        call_command("create_tables", "--check")
    assert f"{UserStats.Meta.table_name}: table is missing" in capsys.readouterr().out


def test_delete_tables_wants_confirmation_and_then_drops_every_table(bare_engine):
    call_command("create_tables")

    with pytest.raises(CommandError, match="--yes"):
        call_command("delete_tables")
    assert tables.describe(UserStats) is not None

    call_command("delete_tables", "--yes")
    assert all(tables.describe(model) is None for model in tables.all_models())


def test_a_verbose_run_reports_its_dynamodb_calls(created_tables):
    # The shared build is a verbose run that created every table.
    assert "DynamoDB: " in created_tables.err


def _index_names(request):
    return [i["IndexName"] for i in request.get("GlobalSecondaryIndexes", [])]


def test_on_a_local_engine_indexes_sharing_first_and_last_key_attributes_are_added_later():
    # DynamoDB Local builds one SQLite index per (first, last) key attribute pair named in a
    # CreateTable; the others are left for UpdateTable, which builds one each.
    stats = tables.creatable(tables.expected_table(UserStats), local=True)
    skills = tables.creatable(tables.expected_table(UserSkill), local=True)

    assert _index_names(stats) == [
        "gsi_leaderboard_accuracy",
        "gsi_streak_expires_on",
        "gsi_user_stats_reminders",
    ]
    assert _index_names(skills) == ["gsi_skill_level", "gsi_user_created_at"]
    defined = {d["AttributeName"] for d in stats["AttributeDefinitions"]}
    assert defined == {
        "username",
        "leaderboard_partition",
        "accuracy",
        "next_reminder_bucket",
        "next_reminder_at",
        "streak_expires_on",
    }


def test_amazon_dynamodb_gets_every_index_in_one_create_table():
    expected = tables.expected_table(UserStats)

    assert tables.creatable(expected, local=False) == expected
    assert len(_index_names(expected)) == 6


def test_user_stats_gets_a_stream_of_old_and_new_images(created_tables):
    stream = tables.describe(UserStats)["StreamSpecification"]
    assert stream == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert tables.stream_arn(UserStats)


def test_an_existing_user_stats_table_without_a_stream_is_given_one(bare_engine, capsys):
    # The table as an earlier release created it: its keys, no stream (indexes come later).
    request = tables.expected_table(UserStats)
    del request["StreamSpecification"], request["GlobalSecondaryIndexes"]
    request["AttributeDefinitions"] = [{"AttributeName": "username", "AttributeType": "S"}]
    client_for(UserStats).create_table(**request)
    tables.wait_until_active(UserStats)

    assert "stream is off, expected NEW_AND_OLD_IMAGES" in "\n".join(tables.drift(UserStats))
    call_command("create_tables")

    assert "added a NEW_AND_OLD_IMAGES stream" in capsys.readouterr().out
    assert tables.drift(UserStats) == []
    assert tables.stream_arn(UserStats)
