"""Idempotency-Keys expire: a TTL attribute, TTL on the table, and expired keys read as absent."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from dynamo import tables
from dynamo.models import client_for, utcnow
from stats.history.models import SessionKey, history_of

SESSION = {"xp": 50, "questions": 10, "correct": 8, "minutes": 5}
URL = "/api/learners/bob/sessions"


def test_a_key_carries_its_expiry_in_epoch_seconds(bob, api_client, settings):
    settings.SESSION_KEY_TTL_HOURS = 24
    api_client.post(URL, SESSION, **{"Idempotency-Key": "k1"})

    [named] = SessionKey.query("bob")
    raw = client_for(SessionKey).get_item(
        TableName=SessionKey.Meta.table_name,
        Key={"username": {"S": "bob"}, "key": {"S": named.key}},
    )["Item"]
    assert set(raw["expires_at"]) == {"N"}  # a number: what DynamoDB TTL reads
    # Whole seconds: what the epoch attribute holds.
    assert named.expires_at - named.created_at.replace(microsecond=0) == timedelta(hours=24)


def test_the_window_is_the_setting(bob, api_client, settings):
    settings.SESSION_KEY_TTL_HOURS = 48
    api_client.post(URL, SESSION, **{"Idempotency-Key": "k1"})

    [named] = SessionKey.query("bob")
    assert named.expires_at - named.created_at.replace(microsecond=0) == timedelta(hours=48)


def test_a_key_past_its_expiry_reads_as_absent_before_ttl_deletes_it(bob, api_client):
    api_client.post(URL, SESSION, **{"Idempotency-Key": "k1"})
    [named] = SessionKey.query("bob")
    later = named.expires_at + timedelta(seconds=1)  # the clock, moved past the window

    assert SessionKey.live("bob", named.key, now=named.expires_at - timedelta(seconds=1))
    assert SessionKey.live("bob", named.key, now=later) is None
    assert list(SessionKey.query("bob")) == []  # deleted on that read: the key is free again


def test_a_retry_after_the_window_records_a_new_session(bob, api_client):
    first = api_client.post(URL, SESSION, **{"Idempotency-Key": "k1"})
    [named] = SessionKey.query("bob")
    named.expires_at = utcnow() - timedelta(seconds=1)  # the window has passed
    named.save()

    again = api_client.post(URL, SESSION, **{"Idempotency-Key": "k1"})

    assert first.status_code == again.status_code == 201
    assert "Idempotent-Replayed" not in again
    assert len(history_of("bob")) == 2
    [renewed] = SessionKey.query("bob")
    assert renewed.expires_at > utcnow()
    assert renewed.session_id == history_of("bob")[-1].session_id


def test_create_tables_enables_ttl_and_describe_says_enabled(created_tables):
    described = client_for(SessionKey).describe_time_to_live(TableName=SessionKey.Meta.table_name)

    assert described["TimeToLiveDescription"]["TimeToLiveStatus"] == "ENABLED"
    assert described["TimeToLiveDescription"]["AttributeName"] == "expires_at"
    assert tables.drift(SessionKey) == []


# On the module's one build: this test leaves its tables as create_tables makes them.
def test_check_reports_ttl_disabled_and_create_tables_enables_it(created_tables, capsys):
    client_for(SessionKey).update_time_to_live(
        TableName=SessionKey.Meta.table_name,
        TimeToLiveSpecification={"Enabled": False, "AttributeName": "expires_at"},
    )

    with pytest.raises(CommandError, match="1 difference"):
        call_command("create_tables", "--check")
    assert "time to live is DISABLED" in capsys.readouterr().out

    call_command("create_tables", stdout=StringIO())
    assert tables.drift(SessionKey) == []


def test_the_template_enables_ttl_on_the_session_keys_only():
    out = StringIO()
    call_command("export_cloudformation", "--prefix", "skillboard-prod-", stdout=out)
    resources = json.loads(out.getvalue())["Resources"]

    specs = {
        r["Properties"]["TableName"]: r["Properties"].get("TimeToLiveSpecification")
        for r in resources.values()
        if r["Type"] == "AWS::DynamoDB::Table"
    }
    assert specs.pop("skillboard-prod-session-keys") == {
        "AttributeName": "expires_at",
        "Enabled": True,
    }
    assert set(specs.values()) == {None}
