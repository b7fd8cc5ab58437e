"""A bounded load run: concurrent clients against gunicorn on loopback, board and admin.

Run: .venv/bin/python bench/load.py [--users 10000] [--clients 20] [--seconds 30]
Starts DynamoDB Local in memory, creates the tables, writes the learners, starts gunicorn
as `make serve` does (project/gunicorn.conf.py, DEBUG off, collected static files) on a free
loopback port, then runs each scenario for the given seconds with that many keep-alive
clients. Prints a Markdown table: requests/s, p50/p95/p99, errors, DynamoDB calls.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import BASE_DIR, engine, write_learners

from dynamo.local import free_port

SECRET_KEY = "bench-only-secret-key-0123456789abcdefghij"


def scenarios(cache_seconds: int) -> list[tuple[str, str, bool]]:
    """Return (label, path, needs the staff session) for each run: the board alone uncached."""
    if not cache_seconds:
        return [("leaderboard, xp, top 50, no cache", "/leaderboard/?metric=xp", False)]
    return [
        (f"leaderboard, xp, top 50, cache {cache_seconds} s", "/leaderboard/?metric=xp", False),
        ("leaderboard JSON, accuracy", "/leaderboard/?metric=accuracy&format=json", False),
        ("admin changelist, users, first page", "/admin/users/user/", True),
    ]


def server_env(endpoint: str, database: str, cache_seconds: int) -> dict[str, str]:
    return os.environ | {
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "DJANGO_ENV_FILE": "",
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": SECRET_KEY,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        # Plain HTTP on loopback: no TLS redirect, no secure-only cookies.
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DJANGO_SESSION_COOKIE_SECURE": "false",
        "DJANGO_CSRF_COOKIE_SECURE": "false",
        "DATABASE_URL": f"sqlite:///{database}",
        "DYNAMODB_ENDPOINT": endpoint,
        "DYNAMODB_TABLE_PREFIX": "bench-",
        "EMAIL_URL": "memorymail://",
        "LEADERBOARD_CACHE_SECONDS": str(cache_seconds),
    }


def manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [sys.executable, str(BASE_DIR / "manage.py"), *args],
        env=env,
        cwd=BASE_DIR,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def staff_cookie(env: dict[str, str]) -> str:
    """Create a superuser and a logged-in session in the server's database; return its id."""
    code = (
        "from django.contrib.auth import get_user_model;"
        "from django.test import Client;"
        "u, _ = get_user_model().objects.get_or_create(username='bench',"
        " defaults={'is_staff': True, 'is_superuser': True});"
        "c = Client(); c.force_login(u); print(c.cookies['sessionid'].value)"
    )
    return manage(env, "shell", "-c", code).strip().splitlines()[-1]


def client_loop(port: int, path: str, cookie: str, stop: float, out: list, errors: list) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Cookie": f"sessionid={cookie}"} if cookie else {}
    while time.perf_counter() < stop:
        started = time.perf_counter()
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.read()
            calls = int(response.getheader("X-DynamoDB-Calls", "0"))
            if response.status != 200:
                errors.append(response.status)
                continue
        except (OSError, http.client.HTTPException) as exc:
            errors.append(type(exc).__name__)
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        out.append(((time.perf_counter() - started) * 1000, calls))
    connection.close()


def run(port: int, path: str, cookie: str, clients: int, seconds: float) -> dict:
    samples: list[tuple[float, int]] = []
    errors: list = []
    stop = time.perf_counter() + seconds
    threads = [
        threading.Thread(target=client_loop, args=(port, path, cookie, stop, samples, errors))
        for _ in range(clients)
    ]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    times = sorted(ms for ms, _ in samples)
    if len(times) < 2:
        raise SystemExit(f"{path}: {len(times)} answers, errors {sorted(set(map(str, errors)))}")
    cut = statistics.quantiles(times, n=100)
    return {
        "requests": len(times),
        "rps": len(times) / elapsed,
        "p50": cut[49],
        "p95": cut[94],
        "p99": cut[98],
        "errors": len(errors),
        "calls": sum(calls for _, calls in samples),
        "seconds": elapsed,
    }


def wait_for(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited with {process.returncode}")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/healthz")
            connection.getresponse().read()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not answer within 60 s")


def serve_and_measure(env, args, cookie: str, out: list[str]) -> None:
    port = free_port()
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "-c",
            "project/gunicorn.conf.py",
            "--bind",
            f"127.0.0.1:{port}",
        ],
        env=env,
        cwd=BASE_DIR,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for(port, server)
        for label, path, staff in scenarios(int(env["LEADERBOARD_CACHE_SECONDS"])):
            run(port, path, cookie if staff else "", args.clients, 2)  # warm up
            r = run(port, path, cookie if staff else "", args.clients, args.seconds)
            print(f"{label}: {r['rps']:.0f} req/s", file=sys.stderr)
            out.append(
                f"| {label} | {r['requests']:,} | **{r['rps']:.0f}** | {r['p50']:.0f} | "
                f"{r['p95']:.0f} | {r['p99']:.0f} | {r['errors']} | {r['calls']:,} |"
            )
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=int(os.environ.get("BENCH_USERS", 10_000)))
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    out = [
        f"## Load: {args.clients} clients x {args.seconds:.0f} s against gunicorn on loopback, "
        f"{args.users:,} learners\n",
        "| page | requests | requests/s | p50 ms | p95 ms | p99 ms | errors | DynamoDB calls |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    with engine() as endpoint, tempfile.TemporaryDirectory() as tmp:
        print(f"DynamoDB Local on {endpoint}; writing {args.users:,} learners", file=sys.stderr)
        write_learners(args.users)
        database = str(Path(tmp) / "django.sqlite3")
        for cache_seconds in (0, 5):
            env = server_env(endpoint, database, cache_seconds)
            if cache_seconds == 0:
                manage(env, "migrate", "--no-input", "-v", "0")
                manage(env, "collectstatic", "--no-input", "-v", "0")
                cookie = staff_cookie(env)
            serve_and_measure(env, args, cookie, out)
    out.append(
        "\nEach client is a keep-alive HTTP/1.1 connection sending GETs back to back (a thread "
        "in the bench process, on the same 2 cores as gunicorn and DynamoDB Local). gunicorn "
        "runs `project/gunicorn.conf.py` as `make serve` does (2 workers x 32 threads, DEBUG "
        "off). DynamoDB calls are the sum of the responses' `X-DynamoDB-Calls`."
    )
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
