"""A bounded load run: concurrent clients against gunicorn on loopback, board and admin.

The home page (a template, no DynamoDB) is the stack's own ceiling: the cached board is
measured against it in the same run.

Run: .venv/bin/python bench/load.py [--users 10000] [--clients 20] [--seconds 30]
Starts DynamoDB Local in memory, creates the tables, writes the learners, starts gunicorn
as `make serve` does (project/gunicorn.conf.py, DEBUG off, collected static files) on a free
loopback port, then runs each scenario for the given seconds with that many keep-alive
clients. Prints a Markdown table: requests/s, p50/p95/p99, errors, DynamoDB calls. The calls
are read from gunicorn's output: the one JSON line `skillboard.request` logs per request
carries its `dynamodb_calls`, for anonymous visitors too (their responses carry no
`X-DynamoDB-Calls`).
"""

from __future__ import annotations

import argparse
import http.client
import json
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
HOME = "home page (a template, no DynamoDB): the ceiling"
CACHED_BOARD = "leaderboard, xp, top 50, cache {} s"
ROUNDS = 3


def scenarios(cache_seconds: int) -> list[tuple[str, str, bool, bool]]:
    """Return (label, path, needs the staff session, alternates) for each run.

    The board alone runs uncached. The home page and the cached board alternate in ROUNDS
    slices, so the other load of a shared machine weighs on both alike.
    """
    if not cache_seconds:
        return [("leaderboard, xp, top 50, no cache", "/leaderboard/?metric=xp", False, False)]
    return [
        (HOME, "/", False, True),
        (CACHED_BOARD.format(cache_seconds), "/leaderboard/?metric=xp", False, True),
        ("leaderboard JSON, accuracy", "/leaderboard/?metric=accuracy&format=json", False, False),
        ("admin changelist, users, first page", "/admin/users/user/", True, False),
    ]


def server_env(endpoint: str, database: str, cache_seconds: int) -> dict[str, str]:
    return os.environ | {
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "DJANGO_ENV_FILE": "",
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": SECRET_KEY,
        "SITE_URL": "http://127.0.0.1:8000",
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
        # Production's JSON lines on stdout, one per request: the calls are counted there.
        "DJANGO_LOG_FORMAT": "json",
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
            if response.status != 200:
                errors.append(response.status)
                continue
        except (OSError, http.client.HTTPException) as exc:
            errors.append(type(exc).__name__)
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        out.append((time.perf_counter() - started) * 1000)
    connection.close()


def logged_requests(log: Path, offset: int) -> list[dict]:
    """Return the request lines the server logged after `offset` bytes of its output."""
    with log.open("rb") as output:
        output.seek(offset)
        lines = output.read().decode(errors="replace").splitlines()
    entries = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a traceback or another non-JSON line
        if isinstance(entry, dict) and entry.get("logger") == "skillboard.request":
            entries.append(entry)
    return entries


def run(port: int, path: str, cookie: str, clients: int, seconds: float, log: Path) -> dict:
    """Send GETs from `clients` connections for `seconds`; count calls in the server's log."""
    samples: list[float] = []
    errors: list = []
    offset = log.stat().st_size
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
    times = sorted(samples)
    if len(times) < 2:
        raise SystemExit(f"{path}: {len(times)} answers, errors {sorted(set(map(str, errors)))}")
    # Every answer was logged before it was sent, so the run's lines are all in the file now.
    path_only = path.partition("?")[0]
    logged = [e for e in logged_requests(log, offset) if e.get("path") == path_only]
    answered = len(times) + sum(1 for error in errors if isinstance(error, int))
    if len(logged) != answered:
        print(
            f"{path}: the server logged {len(logged):,} requests, the clients got {answered:,} "
            "answers",
            file=sys.stderr,
        )
    return {
        "times": times,
        "errors": len(errors),
        "calls": sum(entry["dynamodb_calls"] for entry in logged),
        "logged": len(logged),
        "answered": answered,
        "seconds": elapsed,
    }


def summary(runs: list[dict]) -> dict:
    """Return one scenario's figures over its runs: requests/s, percentiles, errors, calls."""
    times = sorted(t for r in runs for t in r["times"])
    totals = {name: sum(r[name] for r in runs) for name in ("errors", "calls", "logged")}
    totals |= {name: sum(r[name] for r in runs) for name in ("answered", "seconds")}
    cut = statistics.quantiles(times, n=100)
    return totals | {
        "requests": len(times),
        "rps": len(times) / totals["seconds"],
        "p50": cut[49],
        "p95": cut[94],
        "p99": cut[98],
    }


def calls_cell(result: dict) -> str:
    """Return the calls, saying how many requests were logged where that is not all of them."""
    if result["logged"] == result["answered"]:
        return f"{result['calls']:,}"
    return f"{result['calls']:,} in {result['logged']:,} logged of {result['answered']:,}"


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


def serve_and_measure(env, args, cookie: str, out: list[str], log: Path) -> dict[str, float]:
    """Run every scenario against one gunicorn; return each label's requests/s."""
    port = free_port()
    # Appended to by the master and every worker: each JSON line is one write.
    with log.open("ab") as output:
        server = subprocess.Popen(
            [
                # Not .venv/bin/gunicorn: its #! line names the interpreter it was installed by.
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                "project/gunicorn.conf.py",
                "--bind",
                f"127.0.0.1:{port}",
            ],
            env=env,
            cwd=BASE_DIR,
            stdout=output,
            stderr=output,
            start_new_session=True,
        )
    rates: dict[str, float] = {}
    plan = scenarios(int(env["LEADERBOARD_CACHE_SECONDS"]))
    slices = [(s, args.seconds / ROUNDS) for _ in range(ROUNDS) for s in plan if s[3]]
    slices += [(s, args.seconds) for s in plan if not s[3]]
    runs: dict[str, list[dict]] = {}
    try:
        wait_for(port, server)
        for (label, path, staff, _), seconds in slices:
            session = cookie if staff else ""
            if label not in runs:
                run(port, path, session, args.clients, 2, log)  # warm up
            runs.setdefault(label, []).append(run(port, path, session, args.clients, seconds, log))
        for label, *_ in plan:
            r = summary(runs[label])
            print(f"{label}: {r['rps']:.0f} req/s", file=sys.stderr)
            rates[label] = r["rps"]
            out.append(
                f"| {label} | {r['requests']:,} | **{r['rps']:.0f}** | {r['p50']:.0f} | "
                f"{r['p95']:.0f} | {r['p99']:.0f} | {r['errors']} | {calls_cell(r)} |"
            )
    finally:
        server.terminate()
        server.wait(timeout=30)
    return rates


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
        log = Path(tmp) / "gunicorn.log"
        log.touch()
        for cache_seconds in (0, 5):
            env = server_env(endpoint, database, cache_seconds)
            if cache_seconds == 0:
                manage(env, "migrate", "--no-input", "-v", "0")
                manage(env, "collectstatic", "--no-input", "-v", "0")
                cookie = staff_cookie(env)
            rates = serve_and_measure(env, args, cookie, out, log)
        board = rates[CACHED_BOARD.format(5)]
        ratio = (
            f"\nThe cached board serves **{board / rates[HOME]:.2f}x** the home page's requests/s."
        )
    out.append(
        "\nEach client is a keep-alive HTTP/1.1 connection sending GETs back to back (a thread "
        "in the bench process, on the same 2 cores as gunicorn and DynamoDB Local). gunicorn "
        "runs `project/gunicorn.conf.py` as `make serve` does (2 workers x 32 threads, DEBUG "
        "off). DynamoDB calls are the sum of `dynamodb_calls` over the run's request lines in "
        "gunicorn's output (one JSON line per request from `skillboard.request`; their number "
        "is checked against the answers), so anonymous pages are counted as staff pages are. "
        f"The home page and the cached board ran in {ROUNDS} alternating slices each, so a "
        "shared machine's other load weighs on both alike."
    )
    out.append(ratio)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
