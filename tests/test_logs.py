"""Logs: one JSON line per request with its DynamoDB cost; commands log their summaries too."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

from django.core.management import call_command

from catalog.models import Skill
from dynamo import local
from project.logs import JsonFormatter
from tests.admin_fixtures import calls

BASE_DIR = Path(__file__).resolve().parent.parent


def records(caplog, name: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == name]


def test_each_request_logs_its_id_path_status_and_dynamodb_cost(client, dynamo, caplog, settings):
    settings.TRUSTED_PROXIES = ["127.0.0.0/8"]  # the test client's address: a trusted proxy
    Skill("python", name="Python", category="Programming").save()
    caplog.set_level(logging.INFO, logger="skillboard.request")

    response = client.get("/skills/search/?skill=Python", HTTP_X_REQUEST_ID="lb-req-42")

    (record,) = records(caplog, "skillboard.request")
    line = json.loads(JsonFormatter().format(record))
    assert line["request_id"] == "lb-req-42" == response["X-Request-ID"]
    assert (line["method"], line["path"], line["status"]) == ("GET", "/skills/search/", 200)
    assert line["dynamodb_calls"] == calls(response) > 0
    request_meter = response.wsgi_request.dynamo_meter
    assert (line["rcu"], line["wcu"]) == (request_meter.read_units, request_meter.write_units)
    assert line["ms"] >= line["dynamodb_ms"] >= 0
    assert line["level"] == "INFO" and line["time"].endswith("+00:00")


def test_a_request_id_that_is_not_one_is_replaced(client, caplog):
    caplog.set_level(logging.INFO, logger="skillboard.request")

    response = client.get("/", HTTP_X_REQUEST_ID="bad id\nwith a newline")

    assert len(response["X-Request-ID"]) == 32
    assert records(caplog, "skillboard.request")[0].request_id == response["X-Request-ID"]


def test_a_request_id_from_a_client_no_proxy_setting_trusts_is_logged_beside_a_new_one(
    client, caplog, settings
):
    caplog.set_level(logging.INFO, logger="skillboard.request")
    settings.TRUSTED_PROXIES = ["10.0.0.0/8", "fd00::/8"]

    response = client.get("/", HTTP_X_REQUEST_ID="another-requests-id")

    (record,) = records(caplog, "skillboard.request")
    assert response["X-Request-ID"] != "another-requests-id"
    assert record.request_id == response["X-Request-ID"] and len(record.request_id) == 32
    assert record.client_request_id == "another-requests-id"


def test_no_client_is_trusted_with_a_request_id_by_default(client, caplog):
    caplog.set_level(logging.INFO, logger="skillboard.request")

    response = client.get("/", HTTP_X_REQUEST_ID="lb-req-42")

    assert response["X-Request-ID"] != "lb-req-42"
    assert records(caplog, "skillboard.request")[0].client_request_id == "lb-req-42"


def test_a_trusted_proxy_in_a_cidr_block_keeps_its_request_id(client, caplog, settings):
    caplog.set_level(logging.INFO, logger="skillboard.request")
    settings.TRUSTED_PROXIES = ["10.0.0.0/16"]

    response = client.get("/", HTTP_X_REQUEST_ID="lb-req-43", REMOTE_ADDR="10.0.3.7")

    assert response["X-Request-ID"] == "lb-req-43"
    assert not hasattr(records(caplog, "skillboard.request")[0], "client_request_id")


def test_a_command_logs_its_dynamodb_summary(dynamo, caplog):
    caplog.set_level(logging.INFO, logger="dynamo.command")

    call_command("create_tables", "--check", stdout=open("/dev/null", "w"))  # noqa: SIM115

    (record,) = records(caplog, "dynamo.command")
    line = json.loads(JsonFormatter().format(record))
    assert line["command"] == "create_tables"
    assert line["dynamodb_calls"] > 0


def test_production_logs_are_json_lines_on_stdout_and_development_keeps_text():
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "DJANGO_ENV_FILE": "",
        "DJANGO_SECRET_KEY": "x" * 50,
        "SITE_URL": "http://127.0.0.1:8000",
        # Nothing listens there: the scheduler logs each command's failure and goes on.
        "DYNAMODB_ENDPOINT": f"http://127.0.0.1:{local.free_port()}",
    }

    def run(debug: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", "run_schedule", "--once"],
            cwd=BASE_DIR,
            env={**env, "DJANGO_DEBUG": debug},
            capture_output=True,
            text=True,
            timeout=120,
        )

    production, development = run("false"), run("true")

    lines = [json.loads(line) for line in production.stdout.splitlines()]
    assert {line["logger"] for line in lines} == {"skillboard.schedule"}
    assert {line["command"] for line in lines} >= {"send_reminders", "purge_deleted"}
    assert production.stderr == ""
    assert "purge_deleted failed: DynamoDB is unreachable" in development.stderr
    assert development.stdout == ""
