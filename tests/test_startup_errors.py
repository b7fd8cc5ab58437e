"""Bad settings stop start-up naming the variable; an unreachable engine fails commands cleanly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from dynamo import local
from dynamo.models import configure

BASE_DIR = Path(__file__).resolve().parent.parent
GOOD = {
    "DJANGO_DEBUG": "false",
    "DJANGO_SECRET_KEY": "x" * 40,
    "SITE_URL": "http://127.0.0.1:8000",
    "PATH": "/usr/bin:/bin",
    "HOME": "/tmp",
    "DJANGO_ENV_FILE": "",  # a developer's .env must not hide what these tests check
}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env={**GOOD, "DJANGO_SETTINGS_MODULE": "project.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("LEADERBOARD_SHARDS", "many"),
        ("LEADERBOARD_SHARDS", "0"),
        ("USER_PURGE_AFTER_DAYS", "-1"),
        ("DJANGO_DEBUG", "perhaps"),
        ("DYNAMODB_ENDPOINT", "localhost:8000"),
        ("AWS_REGION", "moon"),
        ("DYNAMODB_TABLE_PREFIX", "bad prefix/"),
        ("DATABASE_URL", "nosuchdb://x"),
        ("DJANGO_SECRET_KEY", "short"),
        ("DJANGO_TRUSTED_PROXIES", "10.0.0.0/8,the-load-balancer"),
        ("SITE_URL", "skillboard.example.com"),
    ],
)
def test_a_bad_setting_stops_start_up_with_a_message_naming_it(variable, value):
    result = manage("check", **{variable: value})

    assert result.returncode != 0
    assert variable in result.stderr.splitlines()[-1]


@pytest.mark.parametrize("variable", ["DJANGO_SECRET_KEY", "SITE_URL"])
def test_a_setting_without_a_default_outside_debug_is_required(variable):
    env = {k: v for k, v in GOOD.items() if k != variable}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=BASE_DIR,
        env={**env, "DJANGO_SETTINGS_MODULE": "project.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode != 0
    assert variable in result.stderr.splitlines()[-1]


def test_a_command_against_an_unreachable_engine_exits_non_zero_with_one_line():
    result = manage("create_tables", DYNAMODB_ENDPOINT=f"http://127.0.0.1:{local.free_port()}")

    assert result.returncode == 1
    assert result.stderr.strip().startswith("CommandError: DynamoDB is unreachable")
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_call_command_raises_a_command_error_when_the_engine_is_unreachable():
    configure(endpoint=f"http://127.0.0.1:{local.free_port()}", prefix="gone-")
    try:
        with pytest.raises(CommandError, match="unreachable"):
            call_command("create_tables", "--check")
    finally:
        configure()
