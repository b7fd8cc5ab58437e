"""A registered class with no hash key (a discriminator family's base that leaves the key to its
subclasses, a model declaring none) is refused by `manage.py check` with dynamo_admin.E014, and
a page or command that runs anyway says so, not a ValueError from deep inside a read.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from io import StringIO

import pytest
from django.contrib import admin
from django.contrib.auth.models import User as StaffUser
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import CommandError, SystemCheckError
from django.test import Client
from django.urls import clear_url_caches, path
from pynamodb.attributes import DiscriminatorAttribute, UnicodeAttribute
from pynamodb.models import Model

from dynamo_admin import ModelAdmin
from dynamo_admin.meta import ModelOpts
from dynamo_admin.sites import DynamoAdminSite

from .samples.models import SampleMeta

# Models of the samples app: the package's tests install that app, not this module's
# folder (dynamo_admin.tests in the checkout, dynamo_admin_tests beside the wheel).
SAMPLES = f"{__package__}.samples"


class Event(Model):
    """The family's base: the type only; each subclass declares the key its items use."""

    __module__ = SAMPLES

    class Meta(SampleMeta):
        table_name = "Events"

    kind = DiscriminatorAttribute(attr_name="type")
    note = UnicodeAttribute(null=True)


class Signup(Event, discriminator="SIGNUP"):
    __module__ = SAMPLES

    PK = UnicodeAttribute(hash_key=True)
    SK = UnicodeAttribute(range_key=True)


class Payment(Signup, discriminator="PAYMENT"):
    __module__ = SAMPLES


class Loose(Model):
    """No key at all, as a model written before its table was designed."""

    __module__ = SAMPLES

    class Meta(SampleMeta):
        table_name = "Loose"

    name = UnicodeAttribute(null=True)


def check_messages(model):
    return ModelAdmin(model, admin.site).check()


def test_a_family_s_base_without_a_key_is_refused_naming_the_classes_to_register():
    [error] = check_messages(Event)

    assert error.id == "dynamo_admin.E014"
    assert "Event declares no hash key" in error.msg
    assert "(Payment, Signup)" in error.hint


def test_a_model_declaring_no_key_is_refused_with_how_to_declare_one():
    [error] = check_messages(Loose)

    assert error.id == "dynamo_admin.E014"
    assert "hash_key=True" in error.hint


def test_the_family_s_keyed_classes_pass():
    ids = {message.id for model in (Signup, Payment) for message in check_messages(model)}

    assert "dynamo_admin.E014" not in ids


@pytest.fixture
def event_registered():
    admin.site.register(Event, ModelAdmin)
    try:
        yield
    finally:
        admin.site.unregister(Event)
        Event._meta = ModelOpts(Event)


def test_manage_py_check_names_the_error_instead_of_raising_value_error(event_registered):
    # Before E014, check_listed_by_scan unpacked the missing key: a ValueError, no message.
    with pytest.raises(SystemCheckError) as raised:
        call_command("check")

    assert "dynamo_admin.E014" in str(raised.value)
    assert "Register the classes of its family that declare the key" in str(raised.value)


URLCONF = f"{__package__}.keyless_urls"


@pytest.fixture
def event_served(settings) -> Iterator[None]:
    """Event on a site of this module's own, its URLs the project's."""
    site = DynamoAdminSite()
    site.register(Event, ModelAdmin)
    module = types.ModuleType(URLCONF)
    module.urlpatterns = [path("admin/", site.urls)]
    sys.modules[URLCONF] = module
    settings.ROOT_URLCONF = URLCONF
    yield
    sys.modules.pop(URLCONF, None)
    clear_url_caches()
    Event._meta = ModelOpts(Event)


def test_its_listing_says_why_it_cannot_be_served(db, event_served):
    # Served without the checks (a WSGI server runs none): the door refuses before any read.
    client = Client()
    client.force_login(StaffUser.objects.create_superuser("pat", "pat@example.com", "pw"))

    with pytest.raises(ImproperlyConfigured, match=r"Event declares no hash key.*E014"):
        client.get("/admin/samples/event/")


@pytest.mark.parametrize("command", ["export_items", "import_items"])
def test_the_commands_say_in_one_line_why_they_cannot_serve_it(event_registered, command):
    arguments = ["samples.Event"] + (["events.csv"] if command == "import_items" else [])
    with pytest.raises(CommandError, match=r"^Event declares no hash key.*E014"):
        call_command(command, *arguments, stdout=StringIO())
