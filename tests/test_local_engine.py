"""The DynamoDB Local launcher: find the jar, start on a free port, fall back to moto."""

from __future__ import annotations

import os
import re
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
def test_run_stops_its_command_and_the_engine_on_a_signal(signum, tmp_path):
    # Started as a shell's `&` or `nohup` starts it, the runner inherits SIGINT ignored: it
    # must stop on SIGINT all the same (its own handler, not Python's KeyboardInterrupt).
    announce = "import os, time; print(os.environ['DYNAMODB_ENDPOINT'], flush=True); time.sleep(60)"
    running_file = tmp_path / "running.env"
    runner = subprocess.Popen(
        [
            *(sys.executable, "-m", "dynamo.local", "run", "--running-file", str(running_file)),
            *("--", sys.executable, "-c", announce),
        ],
        cwd=BASE_DIR,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        endpoint = runner.stdout.readline().strip()
        port = int(endpoint.rsplit(":", 1)[1])
        started = descendants([runner.pid])
        assert port in {p for _, p in listening(list(started))}
        assert f"DYNAMODB_ENDPOINT={endpoint}" in running_file.read_text().splitlines()

        runner.send_signal(signum)
        runner.wait(timeout=30)

        assert runner.returncode == 128 + signum
        assert listening(list(started)) == []  # the engine, even if it lost its parent
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        assert not running_file.exists()  # no door left open to an engine that is gone
    finally:
        if runner.poll() is None:
            runner.kill()


def test_run_records_nothing_unless_asked(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "dynamo.local", "run", "--", sys.executable, "-c", "pass"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(BASE_DIR)},
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("addrport", "host", "port"),
    [
        ("8147", "127.0.0.1", 8147),
        ("127.0.0.1:8147", "127.0.0.1", 8147),
        ("0.0.0.0:8147", "0.0.0.0", 8147),
        ("[::1]:8147", "::1", 8147),
    ],
)
def test_an_address_is_split_as_runserver_reads_it(addrport, host, port):
    assert local.split_address(addrport) == (host, port)


@pytest.mark.parametrize("addrport", ["localhost", "127.0.0.1:", "127.0.0.1:99999"])
def test_an_address_without_a_port_is_refused_naming_addr(addrport):
    with pytest.raises(local.EngineError, match=f"ADDR={re.escape(addrport)} has no port"):
        local.split_address(addrport)


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:8147"),
        ("0.0.0.0", "http://127.0.0.1:8147"),
        ("::1", "http://[::1]:8147"),
        ("skillboard.lan", "http://skillboard.lan:8147"),
    ],
)
def test_the_site_url_follows_the_address(host, url):
    assert local.site_url(host, 8147) == url


def test_the_commands_given_to_serve_are_split_with_the_site_in_them():
    line = "bootstrap_staff --url {site}/admin/ --username 'the staff'"

    assert local._command_line(line, "http://127.0.0.1:8147") == [
        *("bootstrap_staff", "--url", "http://127.0.0.1:8147/admin/"),
        *("--username", "the staff"),
    ]


def test_a_free_port_passes_the_check():
    port = local.free_port()

    assert local.check_address(f"127.0.0.1:{port}") == ("127.0.0.1", port)


def test_a_taken_port_stops_serve_within_seconds_before_the_engine_starts(tmp_path):
    running_file = tmp_path / "running.env"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        started = time.monotonic()

        result = subprocess.run(
            [
                *(sys.executable, "-m", "dynamo.local", "serve", f"127.0.0.1:{port}"),
                *("--then", "seed --users 1", "--beside", "run_schedule"),
                *("--running-file", str(running_file)),
            ],
            cwd=BASE_DIR,
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert result.returncode == 1
    assert time.monotonic() - started < 5
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1
    assert f"port {port} is taken" in message and f"ADDR=127.0.0.1:{port}" in message
    assert "listening" not in result.stdout  # no engine, so no migrate, seed or scheduler
    assert not running_file.exists()


def test_make_run_checks_the_address_before_anything_else():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        planned = subprocess.run(
            ["make", "--no-print-directory", "-n", "run", f"ADDR=127.0.0.1:{port}"],
            cwd=BASE_DIR,
            capture_output=True,
            text=True,
            timeout=60,
        )
        checked = subprocess.run(
            ["make", "--no-print-directory", "-s", "address-free", f"ADDR=127.0.0.1:{port}"],
            cwd=BASE_DIR,
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert planned.returncode == 0, planned.stderr
    assert "dynamo.local check-address" in planned.stdout.splitlines()[0]
    assert checked.returncode != 0
    assert f"port {port} is taken (ADDR=127.0.0.1:{port})" in checked.stderr
