"""Switching moto on and off around each moto test keeps its tables and nothing else."""

from __future__ import annotations

import uuid

import boto3
from moto import mock_aws
from moto.core.models import responses_mock

from tests.conftest import switch_moto_off


def client():
    return boto3.client(
        "dynamodb",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def test_switching_moto_off_forgets_the_callbacks_its_start_registered():
    mock = mock_aws()
    registered = []
    for _ in range(3):
        mock.start(reset=False)
        registered.append(len(responses_mock.registered()))
        switch_moto_off(mock)

    # What a start adds, once: kept, a full run held millions of them until it exited.
    assert registered[0] > 100
    assert registered == [registered[0]] * 3
    assert len(responses_mock.registered()) == 0


def test_switching_moto_off_keeps_its_tables_for_the_next_moto_test():
    mock = mock_aws()
    name = f"test-{uuid.uuid4().hex[:8]}"
    mock.start(reset=False)
    try:
        client().create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
    finally:
        switch_moto_off(mock)

    mock.start(reset=False)
    try:
        assert name in client().list_tables()["TableNames"]
        client().delete_table(TableName=name)
    finally:
        switch_moto_off(mock)
