"""`make run` stops everything it started when make itself is stopped.

The real Makefile's `run` recipe on a free loopback port, with no demo data; its engine is moto's
server (no `java` on the PATH) and its files are under a temporary folder, so nothing of the
checkout's var/ or .env is read or written. `-o dynamodb-local -o .env`: nothing is installed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from dynamo import local
from tests.listening import descendants, listening

BASE_DIR = Path(__file__).resolve().parent.parent
START_TIMEOUT = 120  # moto, the tables, migrate and the staff login: about 25 s
STOP_TIMEOUT = 15


def make_run(tmp_path: Path, port: int, log) -> subprocess.Popen:
    """Start `make run` as a developer does, with everything it writes under tmp_path."""
    env = {
        "PATH": str(tmp_path / "bin"),  # no java: moto's server, in memory
        "DJANGO_ENV_FILE": "",
        "DJANGO_DEBUG": "true",
        "DJANGO_SECRET_KEY": "launcher-signals-" + "k" * 40,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DYNAMODB_LOCAL_HOME": str(tmp_path),  # its running.env, not the checkout's
        "DYNAMODB_LOCAL_RUNNING_FILE": "",
        "DYNAMODB_TABLE_PREFIX": "launcher-signals-",
        "AWS_REGION": "us-east-1",
    }
    return subprocess.Popen(
        [
            *(shutil.which("make"), "--no-print-directory", "-o", "dynamodb-local", "-o", ".env"),
            *("run", f"ADDR=127.0.0.1:{port}", "SEED_USERS=0", f"PYTHON={sys.executable}"),
        ],
        cwd=BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def wait_until_serving(make: subprocess.Popen, port: int, log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if make.poll() is not None:
            pytest.fail(f"make run exited with {make.returncode}: {log_path.read_text()[-2000:]}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).close()
            return
        except urllib.error.HTTPError:
            return  # an answer all the same
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"make run did not serve on 127.0.0.1:{port} in {START_TIMEOUT} s")


def alive(pids: set[int]) -> set[int]:
    """Return the processes still running (a zombie waiting for its reaper is gone)."""
    running = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            running.add(pid)
    return running


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_make_run_stops_everything_it_started_when_make_is_stopped(signum, tmp_path):
    # SIGKILL: make passes nothing on; the launcher must notice it lost its parent.
    (tmp_path / "bin").mkdir()
    port = local.free_port()
    log_path = tmp_path / "make.log"
    with log_path.open("w") as log:
        make = make_run(tmp_path, port, log)
    started: set[int] = set()
    try:
        wait_until_serving(make, port, log_path)
        started = descendants([make.pid]) - {make.pid}
        # The launcher, the engine, the server (and its reloader's child), the scheduler.
        assert len(started) >= 4
        assert port in {p for _, p in listening(list(started))}

        make.send_signal(signum)
        make.wait(timeout=STOP_TIMEOUT)
        deadline = time.monotonic() + STOP_TIMEOUT
        while alive(started) and time.monotonic() < deadline:
            time.sleep(0.2)

        assert alive(started) == set()
        assert not (tmp_path / "running.env").exists()  # removed by the launcher's clean stop
    finally:
        make.kill()
        make.wait(timeout=STOP_TIMEOUT)
        for pid in alive(started):
            os.kill(pid, signal.SIGKILL)
