"""The DynamoDB Local launcher: find the jar, start on a free port, fall back to moto."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import boto3
import pytest

from dynamo import local
from tests.listening import beyond_loopback, descendants, listening

BASE_DIR = Path(__file__).resolve().parent.parent


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


def test_dynamodb_local_listens_on_loopback_only():
    with local.running(log=lambda _: None) as engine:
        port = int(engine.endpoint.rsplit(":", 1)[1])

        assert ("127.0.0.1", port) in listening([engine.process.pid])
        assert beyond_loopback([engine.process.pid]) == []


def test_a_listener_on_every_interface_is_seen_beyond_loopback():
    # The check above must be able to fail: a socket on 0.0.0.0 is reachable from the network.
    with socket.socket() as exposed:
        exposed.bind(("0.0.0.0", 0))
        exposed.listen()

        assert ("0.0.0.0", exposed.getsockname()[1]) in beyond_loopback([os.getpid()])


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_run_stops_its_command_and_the_engine_on_a_signal(signum):
    announce = "import os, time; print(os.environ['DYNAMODB_ENDPOINT'], flush=True); time.sleep(60)"
    runner = subprocess.Popen(
        [sys.executable, "-m", "dynamo.local", "run", "--", sys.executable, "-c", announce],
        cwd=BASE_DIR,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        endpoint = runner.stdout.readline().strip()
        port = int(endpoint.rsplit(":", 1)[1])
        started = descendants([runner.pid])
        assert port in {p for _, p in listening(list(started))}

        runner.send_signal(signum)
        runner.wait(timeout=30)

        assert listening(list(started)) == []  # the engine, even if it lost its parent
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    finally:
        if runner.poll() is None:
            runner.kill()
