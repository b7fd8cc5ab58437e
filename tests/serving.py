"""Run what `make serve` runs: the project's commands and gunicorn hosts, DEBUG off."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

from dynamo import local

BASE_DIR = Path(__file__).resolve().parent.parent
START_TIMEOUT = 60


def served_environment(tmp: Path, endpoint: str) -> dict[str, str]:
    """Return production's environment, with TLS relaxed because the test speaks plain HTTP."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp),
        "DJANGO_ENV_FILE": "",
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "SITE_URL": "http://127.0.0.1:8000",
        # The test stands where the load balancer would: its X-Request-IDs name the requests.
        "DJANGO_TRUSTED_PROXIES": "127.0.0.1",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DJANGO_SESSION_COOKIE_SECURE": "false",
        "DJANGO_CSRF_COOKIE_SECURE": "false",
        "DJANGO_STATIC_ROOT": str(tmp / "static"),
        "DATABASE_URL": f"sqlite:///{tmp / 'django.sqlite3'}",
        "DYNAMODB_ENDPOINT": endpoint,
        "DYNAMODB_TABLE_PREFIX": f"serve-{uuid.uuid4().hex[:8]}-",
    }


def manage(*args: str, env: dict[str, str]) -> str:
    """Run a management command; return its output, failing the test if it fails."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def wait_until_serving(url: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stderr.read() if server.stderr else server.returncode
        try:
            with urllib.request.urlopen(f"{url}/admin/login/", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"gunicorn did not answer on {url} within {START_TIMEOUT}s")


def start_gunicorn(
    env: dict[str, str], log: Path, workers: int = 1
) -> tuple[str, subprocess.Popen]:
    """Start gunicorn as `make serve` does, in a process group of its own; return URL, process."""
    url = f"http://127.0.0.1:{local.free_port()}"
    gunicorn = [sys.executable, "-m", "gunicorn", "-c", "project/gunicorn.conf.py"]
    with log.open("w") as stdout:
        server = subprocess.Popen(
            [*gunicorn, "--workers", str(workers), "--bind", url.removeprefix("http://")],
            cwd=BASE_DIR,
            env=env,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # so one signal reaches the master and its workers
        )
    return url, server


def stop_gunicorn(server: subprocess.Popen) -> None:
    """Stop gunicorn (a graceful SIGTERM, then SIGKILL) with its workers."""
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
