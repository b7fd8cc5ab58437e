"""A throwaway PostgreSQL cluster on loopback: a free port, a temporary folder, gone after.

bench/admin_pages.py runs Django's admin on it beside SQLite; the many-host tests run Django's
own tables on it (tests/servers.py). Debian's `postgresql` package
(`bin/install-system-deps --servers`) gives the programs; nothing needs to be enabled or
running. PostgreSQL refuses to run as root, so under root its cluster belongs to the
`postgres` account the package creates.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg

from dynamo.local import free_port

START_TIMEOUT = 30.0
MISSING = "{} is missing: run bin/install-system-deps --servers"


def wait_for(ready, process: subprocess.Popen, what: str, log: Path) -> None:
    """Call `ready` until it stops raising; fail with the log's end if the server exits first."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"{what} exited with {process.returncode}: {log.read_text()[-2000:]}"
            )
        with contextlib.suppress(Exception):
            ready()
            return
        time.sleep(0.1)
    raise RuntimeError(
        f"{what} did not answer within {START_TIMEOUT:.0f}s: {log.read_text()[-2000:]}"
    )


def stop_server(process: subprocess.Popen, signum: int) -> None:
    """Send the server `signum` and wait for it to exit; kill it after 30 s."""
    if process.poll() is None:
        process.send_signal(signum)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def postgresql_bin() -> Path:
    """Return the newest installed PostgreSQL's program folder."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if not found:
        raise RuntimeError(MISSING.format("PostgreSQL"))
    return found[-1].parent


@contextlib.contextmanager
def postgresql() -> Iterator[str]:
    """Run a PostgreSQL cluster of its own; yield its DATABASE_URL."""
    programs = postgresql_bin()
    root = Path(tempfile.mkdtemp(prefix="skillboard-pg-"))
    owner: dict[str, str] = {}
    if os.geteuid() == 0:
        owner = {"user": "postgres", "group": "postgres"}
        shutil.chown(root, "postgres", "postgres")
    password = secrets.token_hex(16)
    password_file = root / "password"
    password_file.write_text(password)
    if owner:
        shutil.chown(password_file, "postgres", "postgres")
    data, log, port = root / "data", root / "postgres.log", free_port()
    initdb = [programs / "initdb", "-D", data, "-U", "skillboard", f"--pwfile={password_file}"]
    initdb += ["--auth=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync"]
    subprocess.run(
        initdb,
        check=True,
        capture_output=True,
        **owner,
    )
    settings = {
        "listen_addresses": "127.0.0.1",
        "port": str(port),
        "unix_socket_directories": str(root),
        # A throwaway cluster: durability buys nothing here and costs seconds.
        "fsync": "off",
        "synchronous_commit": "off",
        "full_page_writes": "off",
    }
    options = [item for name, value in settings.items() for item in ("-c", f"{name}={value}")]
    with log.open("w") as output:
        server = subprocess.Popen(
            [programs / "postgres", "-D", data, *options], stdout=output, stderr=output, **owner
        )
    url = f"postgres://skillboard:{password}@127.0.0.1:{port}"
    try:
        wait_for(lambda: psycopg.connect(f"{url}/postgres").close(), server, "PostgreSQL", log)
        with psycopg.connect(f"{url}/postgres", autocommit=True) as connection:
            connection.execute("CREATE DATABASE skillboard")
        yield f"{url}/skillboard"
    finally:
        stop_server(server, signal.SIGINT)  # PostgreSQL's fast shutdown
        shutil.rmtree(root, ignore_errors=True)
