"""The site keeps Django's one registry; what Django's site reads from `_meta` is pinned."""

from __future__ import annotations

import inspect
import re

import django.contrib.admin.sites
import pytest
from django.contrib import admin
from django.contrib.admin.sites import AlreadyRegistered

from catalog.models import Skill
from dynamo_admin.options import DynamoModelAdmin, ModelOpts
from dynamo_admin.sites import DynamoAdminSite

# Django's registry and what it reads from _meta: nothing here depends on the engine, so moto alone.
pytestmark = pytest.mark.engines("moto")


def test_every_model_attribute_djangos_site_reads_is_on_model_opts():
    # Django's AdminSite reads these from each registered model's _meta (no public hook
    # lists them); a Django release that reads another one fails here first.
    read = set(re.findall(r"_meta\.(\w+)", inspect.getsource(django.contrib.admin.sites)))
    opts = ModelOpts(Skill)

    assert read, "Django's site no longer reads model._meta: revisit ModelOpts"
    assert [name for name in sorted(read) if not hasattr(opts, name)] == []


def test_dynamodb_models_live_in_djangos_own_registry():
    site = admin.site

    assert isinstance(site.get_model_admin(Skill), DynamoModelAdmin)
    assert site._registry[Skill] is site.get_model_admin(Skill)
    assert not hasattr(site, "_dynamo_registry")


def test_a_model_registers_once_and_unregisters_as_in_django():
    site = DynamoAdminSite(name="pin")
    site.register(Skill)

    with pytest.raises(AlreadyRegistered):
        site.register(Skill, DynamoModelAdmin)
    site.unregister(Skill)
    assert not site.is_registered(Skill)


def test_the_app_index_of_a_dynamodb_app_is_djangos(admin_client_, dynamo):
    from django.apps import apps

    page = admin_client_.get("/admin/catalog/").content.decode()

    assert 'href="/admin/catalog/skill/"' in page
    assert f"{apps.get_app_config('catalog').verbose_name} administration" in page
