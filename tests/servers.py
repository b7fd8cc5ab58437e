"""Throwaway PostgreSQL and Redis servers for tests: loopback, a free port, a temporary folder.

Debian's `postgresql` and `redis-server` packages (`bin/install-system-deps --servers`) give the
programs; nothing needs to be enabled or running. PostgreSQL's cluster is the benchmarks' own
(bench/servers.py, where bench/admin_pages.py runs Django's admin on it too).
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import redis

from bench.servers import MISSING, postgresql, stop_server, wait_for
from dynamo.local import free_port

__all__ = ["RedisServer", "postgresql"]


class RedisServer:
    """A redis-server on one loopback port, in memory, that can be stopped and started again."""

    def __init__(self) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError(MISSING.format("redis-server"))
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.root = Path(tempfile.mkdtemp(prefix="skillboard-redis-"))
        self.log = self.root / "redis.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        """Start the server (empty: nothing is saved) and wait until it answers."""
        with self.log.open("a") as output:
            self.process = subprocess.Popen(
                [
                    *("redis-server", "--bind", "127.0.0.1", "--port", str(self.port)),
                    *("--save", "", "--appendonly", "no", "--dir", str(self.root)),
                ],
                stdout=output,
                stderr=output,
            )
        wait_for(self.client().ping, self.process, "redis-server", self.log)

    def stop(self) -> None:
        """Stop the server and wait for it to exit."""
        if self.process is not None:
            stop_server(self.process, signal.SIGTERM)

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_timeout=2)

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
