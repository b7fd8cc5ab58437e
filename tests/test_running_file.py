"""A command in another terminal reaches `make run`'s engine through the file it records."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from dynamo import local

BASE_DIR = Path(__file__).resolve().parent.parent
SHOW = "from django.conf import settings; print(settings.DYNAMODB_ENDPOINT, settings.SITE_URL)"


def manage(*args: str, running_file: Path, debug: str = "true", **env: str):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": "/tmp",
            "DJANGO_SETTINGS_MODULE": "project.settings",
            "DJANGO_ENV_FILE": "",  # a clean second shell: nothing set but the debug flag
            "DJANGO_DEBUG": debug,
            "DYNAMODB_LOCAL_RUNNING_FILE": str(running_file),
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def listener():
    """A port something listens on, standing in for a live engine."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def write_running_file(path: Path, endpoint: str, site: str = "http://127.0.0.1:8147") -> None:
    path.write_text(f"# as serve writes it\nDYNAMODB_ENDPOINT={endpoint}\nSITE_URL={site}\n")


def test_in_debug_settings_take_the_engine_and_the_address_from_the_file(tmp_path, listener):
    running_file = tmp_path / "running.env"
    write_running_file(running_file, f"http://127.0.0.1:{listener}")

    result = manage("shell", "-v", "0", "-c", SHOW, running_file=running_file)

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [f"http://127.0.0.1:{listener}", "http://127.0.0.1:8147"]


def test_a_variable_set_outright_wins_over_the_file(tmp_path, listener):
    running_file = tmp_path / "running.env"
    write_running_file(running_file, "http://127.0.0.1:1")  # stale, but never read

    result = manage(
        "shell",
        "-v",
        "0",
        "-c",
        SHOW,
        running_file=running_file,
        DYNAMODB_ENDPOINT=f"http://127.0.0.1:{listener}",
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [f"http://127.0.0.1:{listener}", "http://127.0.0.1:8000"]


def test_outside_debug_the_file_is_never_read(tmp_path, listener):
    running_file = tmp_path / "running.env"
    write_running_file(running_file, f"http://127.0.0.1:{listener}")

    result = manage(
        "shell",
        "-v",
        "0",
        "-c",
        SHOW,
        running_file=running_file,
        debug="false",
        DJANGO_SECRET_KEY="x" * 40,
        SITE_URL="https://skillboard.example.com",
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["None", "https://skillboard.example.com"]


def test_a_file_whose_engine_is_gone_stops_a_command_at_once_with_one_line(tmp_path):
    running_file = tmp_path / "running.env"
    port = local.free_port()
    write_running_file(running_file, f"http://127.0.0.1:{port}")
    started = time.monotonic()

    result = manage("verify_stats", running_file=running_file)

    assert result.returncode != 0
    assert time.monotonic() - started < 15  # python and Django's start-up, no retries
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1
    assert str(running_file) in message and f"127.0.0.1:{port}" in message
    assert "make run" in message and "DYNAMODB_ENDPOINT" in message


def test_the_recorded_file_is_removed_when_its_block_ends_and_only_if_still_its_own(tmp_path):
    running_file = tmp_path / "running.env"
    with local.recording(running_file, {"DYNAMODB_ENDPOINT": "http://127.0.0.1:1"}):
        assert "DYNAMODB_ENDPOINT=http://127.0.0.1:1" in running_file.read_text().splitlines()
    assert not running_file.exists()

    with local.recording(running_file, {"DYNAMODB_ENDPOINT": "http://127.0.0.1:1"}):
        write_running_file(running_file, "http://127.0.0.1:2")  # a later launcher's
    assert "DYNAMODB_ENDPOINT=http://127.0.0.1:2" in running_file.read_text().splitlines()


def test_a_command_in_a_second_shell_works_on_the_recorded_engines_data(tmp_path, dynamodb_local):
    running_file = tmp_path / "running.env"
    prefix = f"test-{uuid.uuid4().hex[:10]}-"
    write_running_file(running_file, dynamodb_local)

    try:
        created = manage("create_tables", running_file=running_file, DYNAMODB_TABLE_PREFIX=prefix)
        checked = manage(
            "create_tables", "--check", running_file=running_file, DYNAMODB_TABLE_PREFIX=prefix
        )
    finally:
        manage("delete_tables", "--yes", running_file=running_file, DYNAMODB_TABLE_PREFIX=prefix)

    assert created.returncode == 0, created.stderr
    assert checked.returncode == 0, checked.stderr
    assert "Tables match the models." in checked.stdout
