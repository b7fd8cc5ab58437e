"""export_cloudformation: a template cfn-lint accepts, of exactly the tables create_tables makes."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from dynamo import cloudformation, streams, tables
from dynamo.models import table_name_for
from stats.boards import upkeep
from tests.iam_audit import allowed, role_statements

CFN_LINT = Path(sys.executable).parent / "cfn-lint"


def export(*args: str) -> dict:
    out = StringIO()
    call_command("export_cloudformation", *args, stdout=out)
    return json.loads(out.getvalue())


def table_resources(template: dict) -> dict[str, dict]:
    return {
        r["Properties"]["TableName"]: r["Properties"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::DynamoDB::Table"
    }


def keys(entries: list[dict]) -> list[tuple[str, str]]:
    return [(e["AttributeName"], e["KeyType"]) for e in entries]


def indexes(entries: list[dict]) -> dict[str, tuple]:
    return {
        i["IndexName"]: (keys(i["KeySchema"]), i["Projection"]["ProjectionType"]) for i in entries
    }


def test_cfn_lint_accepts_the_template(tmp_path):
    path = tmp_path / "skillboard.json"
    path.write_text(json.dumps(export("--prefix", "skillboard-prod-")))

    result = subprocess.run([str(CFN_LINT), str(path)], capture_output=True, text=True, timeout=300)

    assert result.returncode == 0, result.stdout + result.stderr


def test_every_table_is_on_demand_recoverable_and_protected_from_deletion():
    described = table_resources(export("--prefix", "skillboard-prod-"))

    assert sorted(described) == sorted(
        table_name_for(m, "skillboard-prod-") for m in tables.all_models()
    )
    for properties in described.values():
        assert properties["BillingMode"] == "PAY_PER_REQUEST"
        assert properties["PointInTimeRecoverySpecification"] == {
            "PointInTimeRecoveryEnabled": True
        }
        assert properties["DeletionProtectionEnabled"] is True


def test_multi_attribute_index_keys_keep_their_query_order():
    described = table_resources(export("--prefix", "p-"))

    leaderboard = indexes(described["p-user-stats"]["GlobalSecondaryIndexes"])
    assert leaderboard["gsi_leaderboard_xp"][0] == [
        ("leaderboard_partition", "HASH"),
        ("xp", "RANGE"),
        ("username", "RANGE"),
    ]


def test_the_policy_names_only_this_prefixs_tables_and_indexes_and_no_schema_change():
    template = export("--prefix", "skillboard-prod-")

    granted = allowed(template)
    names = set(table_resources(template))
    on_tables = {(action, target) for action, target in granted if target != "*"}
    assert {
        target.partition("/index/")[0].removesuffix("/stream") for _, target in on_tables
    } == names
    assert {action for action, _ in granted}.isdisjoint(cloudformation.SCHEMA_ACTIONS)
    index_grants = {action for action, target in granted if "/index/" in target}
    assert index_grants == {"PartiQLSelect", "Query", "Scan"}
    # Only what IAM cannot scope to a table is granted account-wide.
    assert {action for action, target in granted if target == "*"} == {"ListTables"}
    statements = template["Resources"]["DynamoDBAccessPolicy"]["Properties"]["PolicyDocument"]
    assert all("*" not in action for s in statements["Statement"] for action in s["Action"])


def test_an_empty_prefix_is_refused():
    with pytest.raises(CommandError, match="prefix"):
        call_command("export_cloudformation", "--prefix", "")


@pytest.fixture
def created(bare_engine):
    """This test's own prefix with every table create_tables makes; dropped afterwards."""
    call_command("create_tables", stdout=StringIO())
    yield
    call_command("delete_tables", "--yes", stdout=StringIO())


def test_the_tables_it_describes_are_the_tables_create_tables_makes(created):
    prefix = tables.all_models()[0].Meta.table_name.removesuffix(
        tables.all_models()[0].Meta.table_suffix
    )

    described = table_resources(export("--prefix", prefix))
    for model in tables.all_models():
        stored = tables.describe(model)
        wanted = described[model.Meta.table_name]
        assert keys(stored["KeySchema"]) == keys(wanted["KeySchema"])
        assert indexes(stored.get("GlobalSecondaryIndexes", [])) == indexes(
            wanted.get("GlobalSecondaryIndexes", [])
        )
        assert {
            (a["AttributeName"], a["AttributeType"]) for a in stored["AttributeDefinitions"]
        } == {(a["AttributeName"], a["AttributeType"]) for a in wanted["AttributeDefinitions"]}


def test_the_policy_is_attached_to_the_hosts_role_given_at_deploy_time():
    template = export("--prefix", "skillboard-prod-")

    policy = template["Resources"]["DynamoDBAccessPolicy"]["Properties"]
    assert policy["Roles"] == [{"Ref": "HostRoleName"}]
    assert template["Parameters"]["HostRoleName"]["Type"] == "String"
    assert "Default" not in template["Parameters"]["HostRoleName"]  # no deploy without a role


def test_the_admin_log_is_exported_with_its_index_by_object_partition():
    described = table_resources(export("--prefix", "p-"))

    log = indexes(described["p-admin-log"]["GlobalSecondaryIndexes"])
    assert log["gsi_object_partition"][0] == [("object_partition", "HASH"), ("logged_at", "RANGE")]


def test_user_stats_is_exported_with_its_stream_of_old_and_new_images():
    described = table_resources(export("--prefix", "skillboard-prod-"))

    stream = described["skillboard-prod-user-stats"].get("StreamSpecification")
    assert stream == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert "StreamSpecification" not in described["skillboard-prod-users"]


def test_the_stream_gets_a_lambda_that_bisects_retries_and_keeps_what_fails():
    resources = export("--prefix", "skillboard-prod-")["Resources"]

    mapping = resources["UserStatsStreamMapping"]["Properties"]
    assert mapping["EventSourceArn"] == {"Fn::GetAtt": ["UserStatsTable", "StreamArn"]}
    assert mapping["BisectBatchOnFunctionError"] is True
    assert 0 < mapping["MaximumRetryAttempts"] <= 10
    assert mapping["ParallelizationFactor"] == 1  # a shard's batches in order
    # A second's changes a batch, as `consume_streams` gathers them where no Lambda runs.
    assert mapping["MaximumBatchingWindowInSeconds"] == streams.BATCH_WINDOW == 1
    queue = mapping["DestinationConfig"]["OnFailure"]["Destination"]["Fn::GetAtt"][0]
    assert resources[queue]["Type"] == "AWS::SQS::Queue"
    handler = resources["UserStatsStreamHandler"]["Properties"]
    assert handler["Handler"] == "stats.boards.lambda_function.handler"
    assert handler["Environment"]["Variables"]["DYNAMODB_TABLE_PREFIX"] == "skillboard-prod-"


def test_the_lambdas_role_reads_the_stream_and_writes_only_the_jobs_table():
    template = export("--prefix", "skillboard-prod-")
    statements = role_statements(template, "UserStatsStreamRole")

    assert allowed(template, statements) == {
        ("DescribeStream", "skillboard-prod-user-stats/stream"),
        ("GetRecords", "skillboard-prod-user-stats/stream"),
        ("GetShardIterator", "skillboard-prod-user-stats/stream"),
        ("ListStreams", "skillboard-prod-user-stats/stream/*"),
        ("BatchGetItem", "skillboard-prod-jobs"),
        ("GetItem", "skillboard-prod-jobs"),
        ("UpdateItem", "skillboard-prod-jobs"),
    }
    others = {a for s in statements for a in s["Action"] if not a.startswith("dynamodb:")}
    assert others == {"sqs:SendMessage", "logs:CreateLogStream", "logs:PutLogEvents"}
    assert all("*" not in s["Resource"] for s in statements)


def test_a_scheduled_lambda_watches_the_stream_for_a_minute_from_every_minute():
    resources = export("--prefix", "skillboard-prod-")["Resources"]

    rule = resources["UserStatsStreamWatchSchedule"]["Properties"]
    assert rule["ScheduleExpression"] == "rate(1 minute)"
    (target,) = rule["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": ["UserStatsStreamWatchHandler", "Arn"]}
    assert target["Input"] == {"Fn::Sub": '{"StreamArn": "${UserStatsTable.StreamArn}"}'}
    watcher = resources["UserStatsStreamWatchHandler"]["Properties"]
    assert watcher["Handler"] == "stats.boards.lambda_function.watcher"
    # Each run watches until its margin: past the minute, so the next has started by then,
    # and its last round ends well before the timeout.
    assert 60 <= watcher["Timeout"] - upkeep.WATCH_MARGIN <= 65
    assert upkeep.WATCH_MARGIN >= 5 * upkeep.WATCH_EVERY
    permission = resources["UserStatsStreamWatchInvoke"]["Properties"]
    assert permission["Principal"] == "events.amazonaws.com"
    assert permission["SourceArn"] == {"Fn::GetAtt": ["UserStatsStreamWatchSchedule", "Arn"]}


def test_the_watchers_role_reads_the_stream_and_writes_only_the_jobs_table():
    template = export("--prefix", "skillboard-prod-")
    statements = role_statements(template, "UserStatsStreamWatchRole")

    assert allowed(template, statements) == {
        ("DescribeStream", "skillboard-prod-user-stats/stream"),
        ("GetRecords", "skillboard-prod-user-stats/stream"),
        ("GetShardIterator", "skillboard-prod-user-stats/stream"),
        ("BatchGetItem", "skillboard-prod-jobs"),
        ("UpdateItem", "skillboard-prod-jobs"),
    }
    others = {a for s in statements for a in s["Action"] if not a.startswith("dynamodb:")}
    assert others == {"logs:CreateLogStream", "logs:PutLogEvents"}
    assert all("*" not in s["Resource"] for s in statements)


def test_tables_the_admin_may_browse_beyond_the_prefix_get_the_tables_pages_grants(
    settings, tmp_path
):
    settings.DYNAMO_ADMIN_TABLES = ["Music", "Product*", "skillboard-prod-users"]
    template = export("--prefix", "skillboard-prod-")
    path = tmp_path / "browsed.json"
    path.write_text(json.dumps(template))

    linted = subprocess.run([str(CFN_LINT), str(path)], capture_output=True, text=True, timeout=300)

    assert linted.returncode == 0, linted.stdout + linted.stderr
    statements = {
        s["Sid"]: s
        for s in template["Resources"]["DynamoDBAccessPolicy"]["Properties"]["PolicyDocument"][
            "Statement"
        ]
    }
    arn = "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/"
    # The prefix's own table is granted already; the others by name or pattern, and their
    # indexes for reads only.
    assert statements["BrowsedTables"]["Resource"] == [
        {"Fn::Sub": f"{arn}Music"},
        {"Fn::Sub": f"{arn}Product*"},
    ]
    assert statements["BrowsedIndexes"]["Resource"][0] == {"Fn::Sub": f"{arn}Music/index/*"}
    assert set(statements["BrowsedIndexes"]["Action"]) == {
        "dynamodb:Query",
        "dynamodb:Scan",
        "dynamodb:PartiQLSelect",
    }
    assert "dynamodb:CreateTable" not in statements["BrowsedTables"]["Action"]


def test_without_tables_beyond_the_prefix_the_policy_names_none():
    statements = export("--prefix", "p-")["Resources"]["DynamoDBAccessPolicy"]["Properties"][
        "PolicyDocument"
    ]["Statement"]

    assert not [s for s in statements if s["Sid"].startswith("Browsed")]
