"""The request meter counts each request's and command's DynamoDB calls and capacity."""

from __future__ import annotations

import pytest

from catalog.models import Skill
from dynamo import meter, tables
from dynamo.meter import Call, Meter


def test_it_counts_calls_time_and_read_and_write_capacity(dynamo):
    with meter.metered() as metered:
        Skill("python", name="Python", category="Programming").save()
        Skill.get("python")
        list(Skill.gsi_category.query("Programming"))

    # The save's Query looks for another skill of the same name (gsi_name_key).
    operations = ["Query", "PutItem", "GetItem", "Query"]
    assert [call.operation for call in metered.calls] == operations
    assert metered.write_units >= 1
    assert metered.read_units > 0
    assert metered.seconds > 0
    assert "4 DynamoDB calls" in metered.summary()


def test_nested_meters_each_see_their_own_calls_and_the_outer_sees_all(dynamo):
    with meter.metered() as outer:
        Skill.get_or_none("nothing")
        with meter.metered() as inner:
            Skill.get_or_none("nothing")

    assert (inner.count, outer.count) == (1, 2)


def test_calls_outside_a_meter_are_not_recorded(dynamo):
    Skill.get_or_none("nothing")

    assert meter.current() is None


def test_every_response_to_staff_carries_its_dynamodb_figures(dynamo, bare_staff_client):
    response = bare_staff_client.get("/healthz")

    assert response["X-DynamoDB-Calls"] == str(len(tables.all_models()))  # one per table
    assert response["X-DynamoDB-Capacity"] == "read=0; write=0"
    assert response["Server-Timing"].startswith("dynamodb;dur=")


def test_raw_client_calls_report_their_consumed_capacity_too(dynamo):
    from dynamo.models import client_for

    Skill("python", name="Python", category="Programming").save()
    with meter.metered() as metered:
        client_for(Skill).query(
            TableName=Skill.Meta.table_name,
            KeyConditionExpression="skill_id = :id",
            ExpressionAttributeValues={":id": {"S": "python"}},
            Select="COUNT",
        )

    assert metered.read_units > 0


def test_an_anonymous_visitor_gets_no_dynamodb_figures(dynamo, client):
    for url in ("/healthz", "/leaderboard/", "/"):
        response = client.get(url)

        assert "X-DynamoDB-Calls" not in response, url
        assert "X-DynamoDB-Capacity" not in response, url
        assert "Server-Timing" not in response, url
        assert "DynamoDB call" not in response.content.decode(), url


def test_staff_see_the_figures_in_the_page_footer_too(dynamo, bare_staff_client):
    response = bare_staff_client.get("/leaderboard/")

    assert response["X-DynamoDB-Calls"] == "1"
    assert '<footer class="meter">1 DynamoDB call' in response.content.decode()


def test_in_debug_everyone_gets_the_figures(dynamo, client, settings):
    settings.DEBUG = True

    response = client.get("/leaderboard/")

    assert response["X-DynamoDB-Calls"] == "1"
    assert response["Server-Timing"].startswith("dynamodb;dur=")


def test_calls_sent_together_count_once_in_the_time_waited():
    together = [
        Call("BatchGetItem", "t", 3.0, 0, 0, (), started=10.0),
        Call("Query", "t", 2.5, 0, 0, (), started=10.5),  # inside the first: already waited
        Call("GetItem", "t", 1.0, 0, 0, (), started=20.0),  # after both
    ]

    assert Meter(together).seconds == pytest.approx(4.0)


@pytest.mark.parametrize(
    ("operation", "params", "expected"),
    [
        (
            "ExecuteStatement",
            {"Statement": """SELECT * FROM "p-users"."gsi_x" WHERE a = 'FROM "other"'"""},
            (("PartiQLSelect", "p-users/index/gsi_x"),),
        ),
        (
            "ExecuteTransaction",
            {
                "TransactStatements": [
                    {"Statement": """update "p-users" SET a = 1 WHERE username = 'x'"""},
                    {"Statement": """INSERT INTO "p-admin-log" VALUE {'a': ?}"""},
                    {"Statement": "DELETE FROM plain WHERE a = 1"},
                    {"Statement": """EXISTS(SELECT * FROM "p-users" WHERE username = 'x')"""},
                ]
            },
            (
                ("PartiQLUpdate", "p-users"),
                ("PartiQLInsert", "p-admin-log"),
                ("PartiQLDelete", "plain"),
                ("PartiQLSelect", "p-users"),
            ),
        ),
        ("ExecuteStatement", {"Statement": "DROP TABLE x"}, (("ExecuteStatement", "*"),)),
    ],
)
def test_a_partiql_statement_is_authorized_as_its_own_action_on_its_table(
    operation, params, expected
):
    # What IAM asks for (and so what tests/iam_audit.py checks): the statement's, not the call's.
    assert meter.targets(operation, params) == expected
