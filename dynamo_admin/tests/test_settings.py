"""The package's settings: defaults for all but three, and the checks naming a bad one."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core import checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings
from library.models import Shelf

from dynamo.conf import check_settings, dynamo_settings
from dynamo.models import configure


def test_a_project_setting_only_the_endpoint_region_and_prefix_gets_every_default():
    assert not hasattr(settings, "DYNAMODB_CONNECT_TIMEOUT")
    assert dynamo_settings.DYNAMODB_CONNECT_TIMEOUT == 1.0
    assert dynamo_settings.DYNAMODB_MAX_POOL_CONNECTIONS == 10
    configure()
    assert Shelf.Meta.table_name == "dynamo-admin-test-shelves"
    assert Shelf.Meta.connect_timeout_seconds == 1.0
    assert Shelf.Meta.read_timeout_seconds == 1.5
    assert Shelf.Meta.max_retry_attempts == 1  # two attempts
    assert check_settings() == []


@override_settings(DYNAMODB_READ_TIMEOUT=4.0, DYNAMODB_MAX_ATTEMPTS=3)
def test_a_setting_the_project_sets_is_read_when_the_models_are_configured():
    configure()
    assert Shelf.Meta.read_timeout_seconds == 4.0
    assert Shelf.Meta.max_retry_attempts == 2


def test_the_checks_name_a_missing_required_setting_with_a_hint():
    with override_settings():
        del settings.DYNAMODB_TABLE_PREFIX
        errors = check_settings()
        assert [e.id for e in errors] == ["dynamo.E001"]
        assert "DYNAMODB_TABLE_PREFIX" in errors[0].msg
        assert "Set DYNAMODB_TABLE_PREFIX to a string" in errors[0].hint
        with pytest.raises(AttributeError):
            dynamo_settings.DYNAMODB_TABLE_PREFIX  # noqa: B018


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DYNAMODB_CONNECT_TIMEOUT", 0),
        ("DYNAMODB_READ_TIMEOUT", "1.5"),
        ("DYNAMODB_MAX_ATTEMPTS", 0),
        ("DYNAMODB_COMMAND_MAX_ATTEMPTS", 2.5),
        ("DYNAMODB_MAX_POOL_CONNECTIONS", True),
        ("DYNAMODB_ENDPOINT", "127.0.0.1:8000"),
        ("AWS_REGION", ""),
        ("DYNAMODB_TABLE_PREFIX", "my project/"),
    ],
)
def test_the_checks_name_a_bad_value_with_what_is_expected(name, value):
    with override_settings(**{name: value}):
        errors = check_settings()
    assert [(e.id, e.level) for e in errors] == [("dynamo.E002", checks.ERROR)]
    assert name in errors[0].msg and repr(value) in errors[0].msg
    assert errors[0].hint.startswith(f"Set {name} to ")


def test_manage_check_stops_on_a_missing_region():
    with override_settings():
        del settings.AWS_REGION
        with pytest.raises(SystemCheckError, match=r"dynamo\.E001.*AWS_REGION"):
            call_command("check")


def test_djangos_admin_app_beside_the_admin_config_is_a_check_error():
    from dynamo_admin.checks import check_admin_apps

    both = ["django.contrib.admin", "dynamo_admin.apps.AdminConfig", "dynamo_admin"]
    [error] = check_admin_apps(installed=both)
    assert error.id == "dynamo_admin.E100" and "Remove 'django.contrib.admin'" in error.hint
    assert check_admin_apps(installed=both[1:]) == []
