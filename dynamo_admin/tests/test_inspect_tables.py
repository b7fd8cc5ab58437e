"""inspect_tables: the AWS guide's sample tables, made by boto3, written as models and served.

The models and the admin stub it prints go into an app package of the test's own, installed
for the test (Django's `override_settings(INSTALLED_APPS=...)`), and the admin serves them
unchanged: listed, opened, changed, added and deleted on DynamoDB Local.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import textwrap
import types
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.models import User as StaffUser
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from django.urls import clear_url_caches, path
from pynamodb.exceptions import AttributeDeserializationError

import dynamo_admin
from dynamo import local, tables
from dynamo.models import configure
from dynamo_admin import inspection
from dynamo_admin.models import AdminLog

from .engines import point, stored
from .pages import form_fields
from .test_existing_tables import engine, put_sample_items  # noqa: F401  (engine: a fixture)

PACKAGES = str(Path(dynamo_admin.__file__).resolve().parents[1])
SAMPLE_TABLES = ("ProductCatalog", "Forum", "Thread", "Reply")
APP = "inspected_samples"


def inspect_tables(on: local.Engine, *args: str) -> str:
    out = StringIO()
    call_command("inspect_tables", *args, "--endpoint-url", on.endpoint, stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module")
def sampled(engine) -> local.Engine:  # noqa: F811
    """The four tables with the guide's items, and an item whose Price is stored as text."""
    put_sample_items(engine.resource)
    engine.resource.Table("ProductCatalog").put_item(Item={"Id": 102, "Price": "two"})
    return engine


@pytest.fixture(scope="module")
def written(sampled, tmp_path_factory) -> Path:
    """The folder holding the app package made of what inspect_tables printed."""
    root = tmp_path_factory.mktemp("inspected")
    package = root / APP
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text(inspect_tables(sampled, *SAMPLE_TABLES))
    (package / "admin.py").write_text(inspect_tables(sampled, "--admin", *SAMPLE_TABLES))
    return root


@pytest.fixture
def installed(written, sampled) -> Iterator[types.ModuleType]:
    """The written app installed, its models pointed at the engine, its admin served."""
    sys.path.insert(0, str(written))
    urlconf = types.ModuleType(f"{APP}_urls")
    sys.modules[urlconf.__name__] = urlconf
    apps = [*settings.INSTALLED_APPS, APP]
    try:
        with override_settings(INSTALLED_APPS=apps, ROOT_URLCONF=urlconf.__name__):
            models = importlib.import_module(f"{APP}.models")
            classes = [getattr(models, name) for name in SAMPLE_TABLES]
            for model in classes:  # as a project's settings would: fake keys for a local engine
                model.Meta.region = "us-east-1"
                model.Meta.aws_access_key_id = model.Meta.aws_secret_access_key = "local"
            point(classes, sampled.endpoint)
            importlib.import_module(f"{APP}.admin")
            urlconf.urlpatterns = [path("admin/", admin.site.urls)]
            configure(endpoint=sampled.endpoint, region="us-east-1")
            tables.create_missing(AdminLog)
            yield models
    finally:
        for model in list(admin.site._registry):
            if model.__module__.startswith(APP):
                admin.site.unregister(model)
        for name in [n for n in sys.modules if n.startswith(APP)]:
            del sys.modules[name]
        sys.path.remove(str(written))
        clear_url_caches()


@pytest.fixture
def staff(db, installed) -> Client:
    client = Client()
    client.force_login(StaffUser.objects.create_superuser("ines", "ines@example.com", "pw"))
    return client


def test_the_models_declare_keys_indexes_and_every_sampled_attribute(written):
    source = (written / APP / "models.py").read_text()

    assert 'table_name = "ProductCatalog"' in source and "# host = " in source
    assert "    Id = NumberAttribute(hash_key=True)\n" in source
    assert "    Subject = UnicodeAttribute(range_key=True)\n" in source
    assert "    Authors = UnicodeSetAttribute(null=True)\n" in source
    assert "    RelatedItems = NumberSetAttribute(null=True)\n" in source
    assert "    Pictures = MapAttribute(null=True)\n" in source
    assert "    InPublication = BooleanAttribute(null=True)\n" in source
    # Forum's Category is on both items; Threads on one of two.
    assert "    Category = UnicodeAttribute()\n" in source
    assert "    Threads = NumberAttribute(null=True)\n" in source
    assert "# stored types disagree: N in 2 items, S in 1\n    Price = NumberAttribute(" in source
    assert 'index_name = "PostedBy-Message-Index"' in source
    assert "projection = AllProjection()" in source
    assert "    posted_by_message_index = PostedByMessageIndex()\n" in source


def test_the_models_read_every_sampled_item(installed, sampled):
    products = installed.ProductCatalog
    read = {name: list(getattr(installed, name).scan()) for name in ("Forum", "Thread", "Reply")}
    read["ProductCatalog"] = list(products.batch_get([101, 201]))

    assert sorted(p.Id for p in read["ProductCatalog"]) == [101, 201]
    # Its Price stored as S: PynamoDB refuses it, the admin shows it read-only.
    with pytest.raises(AttributeDeserializationError):
        products.get(102)
    bicycle = next(p for p in read["ProductCatalog"] if p.Id == 201)
    assert bicycle.Color == {"Red", "Black"} and bicycle.RelatedItems == {341, 472, 649}
    assert bicycle.Pictures["FrontView"] == "http://example.com/products/201_front.jpg"
    assert sorted(f.Name for f in read["Forum"]) == ["Amazon DynamoDB", "Amazon S3"]
    assert [t.Tags for t in read["Thread"]] == [{"index", "primarykey", "table"}]
    (reply,) = installed.Reply.posted_by_message_index.query("User A")
    assert reply.Message == "DynamoDB Thread 1 Reply 1 text"


def test_the_admin_lists_opens_changes_adds_and_deletes_with_the_written_models(staff, sampled):
    product, forum = f"/admin/{APP}/productcatalog/", f"/admin/{APP}/forum/"
    listing = staff.get(product).content.decode()
    assert f'href="{product}201/change/">201<' in listing
    assert f'href="{product}101/change/">101<' in listing

    form = form_fields(staff, f"{product}201/change/")
    form["Title"] = "18-Bike-201 (inspected)"
    before = stored(sampled, "ProductCatalog", Id=201)
    assert staff.post(f"{product}201/change/", form).status_code == 302
    assert stored(sampled, "ProductCatalog", Id=201) == {
        **before,
        "Title": {"S": "18-Bike-201 (inspected)"},
    }

    added = staff.post(f"{forum}add/", {"Name": "Amazon SQS", "Category": "Queues"})
    assert added.status_code == 302
    assert stored(sampled, "Forum", Name="Amazon SQS") == {
        "Name": {"S": "Amazon SQS"},
        "Category": {"S": "Queues"},
    }
    deleted = staff.post(f"{forum}Amazon%20SQS/delete/", {"post": "yes"})
    assert deleted.status_code == 302 and stored(sampled, "Forum", Name="Amazon SQS") is None


def test_the_sample_bounds_what_is_read_and_its_cost_is_printed(sampled):
    source = inspect_tables(sampled, "--sample", "1", *SAMPLE_TABLES)

    # At most one item a table: ProductCatalog's and Forum's other items are not seen.
    docstring = '    """The items of the table below (1 item sampled)."""'
    for name in ("ProductCatalog", "Forum"):
        assert f"class {name}(Model):\n{docstring}" in source
    (cost,) = re.findall(
        r"# Read (\d+) items? of 4 tables \(at most 1 a table\) for ([\d.]+) ", source
    )
    assert int(cost[0]) <= 4 and float(cost[1]) > 0
    compile(source, "models.py", "exec")


def test_every_table_is_inspected_when_none_is_named(sampled):
    source = inspect_tables(sampled, "--sample", "0")

    for name in SAMPLE_TABLES:
        assert f"class {name}(Model):" in source
    assert "0 read capacity units" in source


def test_an_unknown_table_is_a_one_line_error(sampled):
    with pytest.raises(CommandError, match="There is no table named 'Nope'"):
        inspect_tables(sampled, "Nope")


def test_create_tables_leaves_the_inspected_tables_as_they_were_and_adds_only_the_log(
    written, sampled, tmp_path
):
    def described() -> dict[str, dict]:
        names = sampled.client.list_tables()["TableNames"]
        return {
            name: without_times(sampled.client.describe_table(TableName=name)) for name in names
        }

    (tmp_path / "inspected_site.py").write_text(
        textwrap.dedent(
            f"""
            SECRET_KEY = "inspected"
            INSTALLED_APPS = [
                "dynamo_admin",
                "dynamo_admin.apps.AdminConfig",
                "django.contrib.auth",
                "django.contrib.contenttypes",
                "django.contrib.sessions",
                "django.contrib.messages",
                "dynamo",
                "{APP}",
            ]
            DATABASES = {{
                "default": {{"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
            }}
            MIDDLEWARE = [
                "django.contrib.sessions.middleware.SessionMiddleware",
                "django.contrib.auth.middleware.AuthenticationMiddleware",
                "django.contrib.messages.middleware.MessageMiddleware",
            ]
            TEMPLATES = [
                {{
                    "BACKEND": "django.template.backends.django.DjangoTemplates",
                    "APP_DIRS": True,
                    "OPTIONS": {{
                        "context_processors": [
                            "django.template.context_processors.request",
                            "django.contrib.auth.context_processors.auth",
                            "django.contrib.messages.context_processors.messages",
                        ]
                    }},
                }}
            ]
            DYNAMODB_ENDPOINT = "{sampled.endpoint}"
            AWS_REGION = "us-east-1"
            DYNAMODB_TABLE_PREFIX = "inspected-"
            """
        )
    )
    before = described()

    result = subprocess.run(
        [sys.executable, "-m", "django", "create_tables", "--settings", "inspected_site"],
        # Beside the package (a checkout, or the installed wheel's site-packages).
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(written), PACKAGES])},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stderr
    after = described()
    assert set(after) - set(before) == {"inspected-admin-log"}
    assert {name: after[name] for name in before} == before


def without_times(response: dict) -> dict:
    """A DescribeTable answer without its timestamps (and the request's metadata)."""

    def drop(value):
        if isinstance(value, dict):
            return {k: drop(v) for k, v in value.items() if not k.endswith("DateTime")}
        if isinstance(value, list):
            return [drop(v) for v in value]
        return value

    return drop({k: v for k, v in response.items() if k != "ResponseMetadata"})


def test_names_python_cannot_use_keep_their_stored_name_and_every_type_is_declared():
    table = {
        "TableName": "team-events.2026",
        "KeySchema": [
            {"AttributeName": "team id", "KeyType": "HASH"},
            {"AttributeName": "at", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": "team id", "AttributeType": "S"},
            {"AttributeName": "at", "AttributeType": "N"},
            {"AttributeName": "class", "AttributeType": "S"},
        ],
        "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 2},
        "LocalSecondaryIndexes": [
            {
                "IndexName": "by-class",
                "KeySchema": [
                    {"AttributeName": "team id", "KeyType": "HASH"},
                    {"AttributeName": "class", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["2fa", "count"]},
            }
        ],
    }
    item = {"team id": {"S": "t1"}, "at": {"N": "1"}, "class": {"S": "a"}, "2fa": {"BOOL": True}}
    items = [
        {**item, "count": {"N": "3"}, "blobs": {"BS": ["AA=="]}, "gone": {"NULL": True}},
        {**item, "count": {"S": "three"}, "steps": {"L": [{"S": "x"}]}},
    ]

    (model,) = [inspection.inspect(inspection.Sampled(table, items), set())]
    source = inspection.models_source([model])
    namespace: dict = {}
    exec(compile(source, "models.py", "exec"), namespace)

    events = namespace["TeamEvents2026"]
    assert events.Meta.table_name == "team-events.2026" and events.Meta.read_capacity_units == 5
    attributes = {name: a.attr_name for name, a in events.get_attributes().items()}
    assert attributes == {
        "team_id": "team id",
        "at": "at",
        "_2fa": "2fa",
        "blobs": "blobs",
        "class_": "class",
        "count_": "count",
        "gone": "gone",
        "steps": "steps",
    }
    assert "# stored types disagree: N in 1 item, S in 1\n" in source
    assert "    blobs = BinarySetAttribute(null=True, legacy_encoding=False)\n" in source
    assert "    steps = ListAttribute(null=True)\n" in source
    assert "    gone = NullAttribute(null=True)\n" in source
    index = events.by_class_index
    assert index.Meta.index_name == "by-class"
    assert index.Meta.projection.non_key_attributes == ["2fa", "count"]
    # search_fields name the key as Django names a field (the checks read either name).
    admin_py = inspection.admin_source([model])
    assert 'list_display = ("team_id", "at")\n    search_fields = ("=team_id",)\n' in admin_py
