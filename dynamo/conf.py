"""The settings dynamo and dynamo_admin read, with their defaults, read when they are used.

`dynamo_settings.DYNAMODB_READ_TIMEOUT` is Django's setting when the project sets it, else its
default here; the three settings without a default say where the tables are and must be set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core import checks

# A DynamoDB table name is 3-255 of these; the prefix is the start of every table's name.
TABLE_NAME_CHARACTERS = re.compile(r"[A-Za-z0-9_.-]*")


def _positive_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _whole_number_from_one(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _endpoint(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.startswith(("http://", "https://")))


def _region(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _table_prefix(value: Any) -> bool:
    return isinstance(value, str) and TABLE_NAME_CHARACTERS.fullmatch(value) is not None


def _name(value: Any) -> bool:
    return isinstance(value, str)


def _table_patterns(value: Any) -> bool:
    return value is None or (
        isinstance(value, list | tuple) and all(isinstance(v, str) and v for v in value)
    )


@dataclass(frozen=True)
class Setting:
    """One setting: its default (REQUIRED: none), what a good value is, and the hint if not."""

    name: str
    default: Any
    valid: Any
    expected: str


REQUIRED = object()

SETTINGS = {
    setting.name: setting
    for setting in (
        Setting(
            "DYNAMODB_ENDPOINT",
            REQUIRED,
            _endpoint,
            "None for AWS itself, or an http(s) URL such as http://127.0.0.1:8000",
        ),
        Setting("AWS_REGION", REQUIRED, _region, "a region name such as eu-west-1"),
        Setting(
            "DYNAMODB_TABLE_PREFIX",
            REQUIRED,
            _table_prefix,
            "a string of letters, digits, '_', '-' and '.', such as 'myproject-dev-'",
        ),
        Setting("DYNAMODB_MAX_POOL_CONNECTIONS", 10, _whole_number_from_one, "an int, 1 or more"),
        Setting("DYNAMODB_CONNECT_TIMEOUT", 1.0, _positive_number, "seconds, a number > 0"),
        Setting("DYNAMODB_READ_TIMEOUT", 1.5, _positive_number, "seconds, a number > 0"),
        Setting("DYNAMODB_MAX_ATTEMPTS", 2, _whole_number_from_one, "an int, 1 or more"),
        Setting("DYNAMODB_REQUEST_DEADLINE", 2.0, _positive_number, "seconds, a number > 0"),
        Setting("DYNAMODB_COMMAND_READ_TIMEOUT", 15.0, _positive_number, "seconds, a number > 0"),
        Setting("DYNAMODB_COMMAND_MAX_ATTEMPTS", 5, _whole_number_from_one, "an int, 1 or more"),
        Setting("ADMIN_SITE_NAME", "", _name, "a string: the admin's title beside its header"),
        Setting(
            "DYNAMO_ADMIN_TABLES",
            None,
            _table_patterns,
            'a list of table names or glob patterns, such as ["Music", "Product*"]',
        ),
    )
}


class DynamoSettings:
    """Django's settings for dynamo and dynamo_admin, each falling back to its default."""

    def __getattr__(self, name: str) -> Any:
        setting = SETTINGS.get(name)
        if setting is None:
            raise AttributeError(f"dynamo has no setting {name!r}")
        if setting.default is REQUIRED:
            return getattr(settings, name)  # AttributeError: the checks name it (dynamo.E001)
        return getattr(settings, name, setting.default)

    def missing(self) -> list[str]:
        """Return the required settings the project does not set."""
        return [
            name
            for name, setting in SETTINGS.items()
            if setting.default is REQUIRED and not hasattr(settings, name)
        ]


dynamo_settings = DynamoSettings()


def check_settings(app_configs=None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Name each missing required setting (dynamo.E001) and each bad value (dynamo.E002)."""
    errors: list[checks.CheckMessage] = []
    for name, setting in SETTINGS.items():
        if not hasattr(settings, name):
            if setting.default is REQUIRED:
                errors.append(
                    checks.Error(
                        f"The {name} setting is missing: dynamo needs it to find its tables.",
                        hint=f"Set {name} to {setting.expected}.",
                        id="dynamo.E001",
                    )
                )
            continue
        value = getattr(settings, name)
        if not setting.valid(value):
            errors.append(
                checks.Error(
                    f"The {name} setting is {value!r}.",
                    hint=f"Set {name} to {setting.expected}.",
                    id="dynamo.E002",
                )
            )
    return errors
