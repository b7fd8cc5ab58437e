"""The DynamoDB Local launcher: find the jar, start on a free port, fall back to moto."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import boto3
import pytest

from dynamo import local


def list_tables(endpoint: str) -> list[str]:
    client = boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    return client.list_tables()["TableNames"]


def test_java_17_or_newer_is_on_this_machine():
    assert (local.java_major_version() or 0) >= local.MIN_JAVA


def test_the_installed_jar_is_dynamodb_local_3_3_or_newer():
    jar = local.find_jar()

    assert jar is not None, "run `python -m dynamo.local install`"
    notes = (jar.parent / "README.txt").read_text()
    version = notes.split("Release Notes")[1].split("(")[1].split(")")[0]
    assert tuple(int(part) for part in version.split(".")) >= (3, 3)


def test_it_starts_and_stops_dynamodb_local_with_data_on_disk(tmp_path):
    with local.running(data_dir=tmp_path, log=lambda _: None) as engine:
        assert engine.kind == "dynamodb-local"
        assert list_tables(engine.endpoint) == []
    assert engine.process.poll() is not None
    assert list(tmp_path.iterdir())  # the shared database file


def test_without_java_it_falls_back_to_moto_and_says_so(monkeypatch):
    monkeypatch.setattr(local, "java_major_version", lambda: None)
    said = []

    with local.running(log=said.append) as engine:
        assert engine.kind == "moto"
        assert list_tables(engine.endpoint) == []
    assert "falling back to moto" in said[0]


def test_without_java_and_without_fallback_it_refuses(monkeypatch):
    monkeypatch.setattr(local, "java_major_version", lambda: 11)

    with pytest.raises(local.EngineError, match="Java 17"):
        local.start(allow_moto=False, log=lambda _: None)


def test_a_child_that_ignores_sigint_is_stopped_at_once():
    # What `make run &` in a script gives its children: SIGINT ignored, inherited by exec.
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    started = time.monotonic()

    local._stop_group(child)

    assert child.returncode is not None
    assert time.monotonic() - started < 5  # stopped by SIGTERM, not the SIGKILL 10 s later
