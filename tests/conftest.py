"""Engines for behaviour tests: each test asking for `dynamo` runs on moto and DynamoDB Local.

`pytest --engines=moto` runs the moto half alone; the default runs both, starting DynamoDB Local
(in memory) once for the session; a module whose tests cannot tell the engines apart says so
with `pytest.mark.engines("moto")`. Tables are created once per engine, and after each test
the tables it wrote are emptied (every table, if it started a process, which may have written
any); a test that creates or drops tables itself asks for `engine` and gets a prefix of its own.
"""

from __future__ import annotations

import gc
import io
import subprocess
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.core.management import call_command
from moto import mock_aws
from moto.core.custom_responses_mock import reset_responses_mock
from moto.core.models import responses_mock

from dynamo import local, meter, tables
from dynamo.models import client_for, configure
from tests import dynamodb_calls
from tests.helpers import clear_caches, empty_tables, forget_stream_records

ENGINES = ("moto", "local")
PARTIQL_OPERATIONS = ("ExecuteStatement", "ExecuteTransaction", "BatchExecuteStatement")
SHARED_PREFIX = f"test-{uuid.uuid4().hex[:8]}-"


def pytest_addoption(parser):
    parser.addoption(
        "--engines",
        default=",".join(ENGINES),
        help="comma-separated engines for behaviour tests: moto, local (DynamoDB Local)",
    )


def pytest_unconfigure(config):
    # pytest then collects garbage five times over (its unraisable-exception check), and the
    # interpreter again as it exits: one collection here finds whatever garbage there is (its
    # unraisable exceptions still reported), and freezing the survivors spares the later
    # collections a walk over a heap that is only waiting to be freed.
    gc.collect()
    gc.freeze()


# `make test` gives each worker whole modules (`--dist loadfile`), in the order collected
# (`--no-loadscope-reorder`, pyproject.toml): these modules, a few long tests each, first, and
# the others after them, the most tests first. pytest-xdist's own order (most tests first) sent
# them last, and one worker ran the last of them while the other had nothing left to run.
SENT_FIRST = (
    "test_anonymous_cost.py",  # a board of 2,000 learners seeded on DynamoDB Local
    "test_launcher_signals.py",  # `make run` started and stopped twice
    "test_accessibility_browser.py",  # axe-core on every page at two widths
    "test_serve_browser.py",  # `make serve`'s commands and gunicorn
    "test_outages.py",  # the web's deadline waited out on a frozen engine
)


def pytest_collection_modifyitems(items):
    def order(item: pytest.Item) -> tuple[int, int]:
        name = item.path.name
        first = SENT_FIRST.index(name) if name in SENT_FIRST else len(SENT_FIRST)
        return first, -tests_in[item.path]

    tests_in = Counter(item.path for item in items)
    items.sort(key=order)  # stable: a module's tests keep their order


def pytest_generate_tests(metafunc):
    if "engine" in metafunc.fixturenames:
        engines = [e.strip() for e in metafunc.config.getoption("engines").split(",") if e.strip()]
        unknown = set(engines) - set(ENGINES)
        if unknown:
            raise pytest.UsageError(f"unknown engines: {', '.join(sorted(unknown))}")
        marker = metafunc.definition.get_closest_marker("engines")
        if marker is not None:  # a test that only makes sense on some engines
            engines = [e for e in engines if e in marker.args]
        metafunc.parametrize("engine", engines, indirect=True)


@pytest.fixture(scope="session")
def dynamodb_local() -> Iterator[str]:
    """Start DynamoDB Local in memory for the session; fail, never skip, without it."""
    engine = local.start(allow_moto=False, log=lambda _: None)
    try:
        yield engine.endpoint
    finally:
        engine.stop()


@pytest.fixture(scope="session")
def _moto():
    """One moto mock for the session, switched on only around moto tests."""
    return mock_aws()


def switch_moto_off(mock: mock_aws) -> None:
    """Stop moto keeping its tables, and forget the URL callbacks its start registered.

    Each `start(reset=False)` registers moto's callbacks again (about a thousand) and only a
    reset forgets them: kept, a full run held millions of them, which pytest's garbage
    collections at exit walked for two minutes.
    """
    mock.stop(remove_data=False)
    reset_responses_mock(responses_mock)


@pytest.fixture
def engine(request, _moto) -> Iterator[str]:
    """Switch on one engine (moto or DynamoDB Local) and point every model at it."""
    if request.param == "moto":
        _moto.start(reset=False)
        configure(endpoint=None, prefix=SHARED_PREFIX, region="us-east-1")
    else:
        endpoint = request.getfixturevalue("dynamodb_local")
        configure(endpoint=endpoint, prefix=SHARED_PREFIX, region="us-east-1")
    try:
        yield request.param
    finally:
        if request.param == "moto":
            switch_moto_off(_moto)


@dataclass
class Unemptied:
    """What the session's tests wrote that no test's teardown has emptied yet."""

    # (endpoint, table name): a write on one engine leaves the other engine's tables alone.
    tables: set[tuple[str, str]] = field(default_factory=set)
    processes: int = 0  # processes started, from any thread: what they wrote goes unseen

    def record(self, endpoint: str, operation: str, params: dict) -> None:
        # A PartiQL call may write (the Tables pages' statements): its tables count as written.
        if operation in meter.WRITE_OPERATIONS or operation in PARTIQL_OPERATIONS:
            self.tables.update((endpoint, table) for _, table in meter.targets(operation, params))

    def written_at(self, endpoint: str) -> set[str]:
        return {name for at, name in self.tables if at == endpoint}

    def forget(self, endpoint: str) -> None:
        """Forget the writes on this endpoint: its tables have just been emptied."""
        self.tables = {(at, name) for at, name in self.tables if at != endpoint}


unemptied = Unemptied()


@pytest.fixture(scope="session", autouse=True)
def _watched_calls() -> Iterator[None]:
    """Watch each client the code meters; record the tables written and the processes started."""
    popen_init = subprocess.Popen.__init__

    def counted_init(self, *args, **kwargs) -> None:
        unemptied.processes += 1
        popen_init(self, *args, **kwargs)

    dynamodb_calls.watchers.append(unemptied.record)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(meter, "instrument", dynamodb_calls.instrument_and_watch)
        patch.setattr(subprocess.Popen, "__init__", counted_init)
        yield
    dynamodb_calls.watchers.remove(unemptied.record)


@pytest.fixture
def dynamo(engine) -> Iterator[str]:
    """All tables in place and empty on the test's engine; yields the engine's name."""
    models = tables.all_models()
    existing = set(tables.list_table_names(models[0]))
    for model in models:
        if model.Meta.table_name not in existing:
            tables.create_missing(model)
    endpoint = client_for(models[0]).meta.endpoint_url
    processes = unemptied.processes
    try:
        yield engine
    finally:
        # A process the test started (a command, a killed run) wrote where no handler sees.
        everything = unemptied.processes != processes
        written = unemptied.written_at(endpoint)
        emptied = [m for m in models if everything or m.Meta.table_name in written]
        empty_tables(emptied)
        if engine == "moto":
            forget_stream_records(emptied)
        unemptied.forget(endpoint)


@pytest.fixture(scope="session")
def tables_dynamodb_local() -> Iterator[str]:
    """A second DynamoDB Local, in memory, for the tests that create tables and indexes.

    DynamoDB Local builds an index added by UpdateTable in the background, one at a time;
    on the engine that has run the whole suite's workload such a build has been seen to stay
    CREATING for minutes, so the tests that build tables do it on an engine of their own.
    """
    engine = local.start(allow_moto=False, log=lambda _: None)
    try:
        yield engine.endpoint
    finally:
        engine.stop()


@pytest.fixture
def bare_engine(request, engine) -> Iterator[str]:
    """An engine with no tables yet: every model points at a table prefix of the test's own."""
    endpoint = None if engine == "moto" else request.getfixturevalue("tables_dynamodb_local")
    with tables_of_its_own(endpoint):
        yield engine


@contextmanager
def tables_of_its_own(endpoint: str | None) -> Iterator[str]:
    """Point every model at a fresh table prefix on `endpoint`; drop its tables after."""
    shared = configure_endpoint()
    prefix = f"test-{uuid.uuid4().hex[:10]}-"
    configure(endpoint=endpoint, prefix=prefix, region="us-east-1")
    try:
        yield prefix
    finally:
        configure(endpoint=endpoint, prefix=prefix, region="us-east-1")
        drop_tables_of(prefix)  # the next test's engine holds only its own tables
        configure(endpoint=shared, prefix=SHARED_PREFIX, region="us-east-1")


@dataclass
class Built:
    """Tables one verbose create_tables made on an engine, under a prefix of their own."""

    endpoint: str | None
    prefix: str
    out: str
    err: str


@pytest.fixture(scope="module")
def _built_tables(request, _moto) -> Iterator[dict[str, Built]]:
    """A module's one build per engine, on a table prefix of its own; dropped at the end.

    A build on DynamoDB Local takes seconds (it adds most indexes one UpdateTable at a time):
    a module's tests that read the tables, or run create_tables again, share one build. A test
    sharing it leaves the tables as create_tables makes them, or its module makes again what
    its tests change (test_migrate_skill_levels); others build their own (`bare_engine`).
    Nothing empties a shared build's items: its module does, if its tests write.
    """
    built: dict[str, Built] = {}
    yield built
    for engine, build in built.items():
        if engine == "moto":
            _moto.start(reset=False)
        configure(endpoint=build.endpoint, prefix=build.prefix, region="us-east-1")
        try:
            drop_tables_of(build.prefix)
        finally:
            configure(endpoint=None, prefix=SHARED_PREFIX, region="us-east-1")
            if engine == "moto":
                switch_moto_off(_moto)


@pytest.fixture
def created_tables(request, engine, _built_tables) -> Iterator[Built]:
    """Every table as one verbose create_tables run made them on the test's engine."""
    endpoint = None if engine == "moto" else request.getfixturevalue("tables_dynamodb_local")
    shared = configure_endpoint()
    build = _built_tables.get(engine)
    if build is None:
        prefix = f"test-{uuid.uuid4().hex[:10]}-"
        configure(endpoint=endpoint, prefix=prefix, region="us-east-1")
        out, err = io.StringIO(), io.StringIO()
        call_command("create_tables", verbosity=2, stdout=out, stderr=err)
        build = _built_tables[engine] = Built(endpoint, prefix, out.getvalue(), err.getvalue())
    configure(endpoint=endpoint, prefix=build.prefix, region="us-east-1")
    try:
        yield build
    finally:
        configure(endpoint=shared, prefix=SHARED_PREFIX, region="us-east-1")


def drop_tables_of(prefix: str) -> None:
    """Delete the tables the current configuration made under `prefix` (the test's own)."""
    models = tables.all_models()
    client = client_for(models[0])
    for name in tables.list_table_names(models[0]):
        if name.startswith(prefix):
            client.delete_table(TableName=name)


@pytest.fixture(autouse=True)
def _counts_caught_up_for_a_slow_test(monkeypatch) -> None:
    """Give the rank counts five minutes, not seconds, to count as caught up.

    A test reads pages seconds after the rebuild or consumer pass that caught the counts up,
    longer than the 5 s a page allows on a loaded machine; a test that wants the counts
    lagging makes them ten minutes old (`stall_the_consumer`).
    """
    from stats.boards import tiers

    monkeypatch.setattr(tiers, "UPKEEP_LAG", timedelta(minutes=5))


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Empty Django's caches after each test: throttles' counts must not leak into the next."""
    yield
    clear_caches()


def configure_endpoint() -> str | None:
    return tables.all_models()[0].Meta.host


# Admin and API test fixtures (staff users, logged-in and token clients, sample items).
pytest_plugins = [
    "tests.admin_fixtures",
    "tests.api_fixtures",
    "tests.browser_fixtures",
    "tests.clock",
    "tests.iam_audit",
]
