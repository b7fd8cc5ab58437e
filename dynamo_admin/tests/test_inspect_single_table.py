"""inspect_tables on a single table (samples/single.py's `Shop`, made by boto3): one model per
type its keys' prefixes tell, each admin with its item_condition, served as written."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.auth.models import User as StaffUser
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import clear_url_caches, path

from dynamo import tables
from dynamo.models import configure
from dynamo_admin.models import AdminLog

from .engines import point, tables_dropped_after
from .samples.single import make_shop_table
from .test_single_table import ALL_KEYS, ITEMS

APP = "inspected_shop"
# Each type the sort keys' prefixes tell, and the keys of its items in ITEMS.
TYPES = {
    "Event": {k for k in ALL_KEYS if k[1].startswith("EVENT#")},
    "Order": {k for k in ALL_KEYS if k[1].startswith("ORDER#")},
    "Profile": {k for k in ALL_KEYS if k[1] == "PROFILE"},
    "Setting": {k for k in ALL_KEYS if k[1].startswith("SETTING#")},
    "Shipment": {k for k in ALL_KEYS if k[1] == "SHIPMENT"},
    "Wishlist": {k for k in ALL_KEYS if k[1].startswith("WISHLIST#")},
}


@pytest.fixture(scope="module")
def shop(dynamodb_local) -> Iterator:
    with tables_dropped_after(dynamodb_local) as engine:
        make_shop_table(engine.client)
        for item in ITEMS:
            engine.client.put_item(TableName="Shop", Item=item)
        yield engine


def inspect_tables(engine, *args: str) -> str:
    out = StringIO()
    call_command("inspect_tables", *args, "--endpoint-url", engine.endpoint, stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module")
def written(shop, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("inspected")
    package = root / APP
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text(inspect_tables(shop, "Shop"))
    (package / "admin.py").write_text(inspect_tables(shop, "--admin", "Shop"))
    return root


@pytest.fixture
def staff(db, written, shop) -> Iterator[Client]:
    """The written app installed, its models pointed at the engine, its admin served."""
    sys.path.insert(0, str(written))
    urlconf = types.ModuleType(f"{APP}_urls")
    sys.modules[urlconf.__name__] = urlconf
    try:
        apps = [*settings.INSTALLED_APPS, APP]
        with override_settings(INSTALLED_APPS=apps, ROOT_URLCONF=urlconf.__name__):
            models = importlib.import_module(f"{APP}.models")
            classes = [getattr(models, name) for name in TYPES]
            for model in classes:
                model.Meta.region = "us-east-1"
                model.Meta.aws_access_key_id = model.Meta.aws_secret_access_key = "local"
            point(classes, shop.endpoint)
            importlib.import_module(f"{APP}.admin")
            urlconf.urlpatterns = [path("admin/", admin.site.urls)]
            configure(endpoint=shop.endpoint, region="us-east-1")
            tables.create_missing(AdminLog)
            client = Client()
            client.force_login(StaffUser.objects.create_superuser("ines", "i@example.com", "pw"))
            yield client
    finally:
        for model in list(admin.site._registry):
            if model.__module__.startswith(APP):
                admin.site.unregister(model)
        for name in [n for n in sys.modules if n.startswith(APP)]:
            del sys.modules[name]
        sys.path.remove(str(written))
        clear_url_caches()


def test_each_type_gets_its_model_and_its_admin_its_item_condition(written):
    models = (written / APP / "models.py").read_text()
    stub = (written / APP / "admin.py").read_text()

    assert [f"class {name}(Model):" in models for name in TYPES] == [True] * len(TYPES)
    assert 'item_condition = Order.SK.startswith("ORDER#")' in stub
    assert 'item_condition = Profile.SK == "PROFILE"' in stub
    # A customer's attributes are declared on the profiles, not on the orders.
    assert "    name = UnicodeAttribute()\n" in model_source(models, "Profile")
    order = model_source(models, "Order")
    assert "    name = " not in order and "    total = NumberAttribute()\n" in order


def model_source(models: str, name: str) -> str:
    """Return one written model's class, up to the next top-level class."""
    start = models.index(f"class {name}(Model):")
    end = models.find("\nclass ", start + 1)
    return models[start : end if end != -1 else None]


@pytest.mark.parametrize("name", list(TYPES))
def test_the_admin_serves_each_written_type_with_exactly_its_items(staff, name):
    listing = f"/admin/{APP}/{name.lower()}/"

    page = staff.get(listing).content.decode()

    shown = {k for k in ALL_KEYS if f"{listing}{quote(k[0])},{quote(k[1])}/change/" in page}
    assert shown == TYPES[name]
