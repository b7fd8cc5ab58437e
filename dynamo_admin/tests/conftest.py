"""A fresh moto engine with the library's tables for each test, and named staff users.

Most tests run on moto (in process, no Java): they check the admin's behaviour and its calls,
not DynamoDB's fidelity; the project's suite runs the same admin on DynamoDB Local as well.
The tests on tables made elsewhere (boto3's sample tables, models as projects write them)
share one DynamoDB Local, `dynamodb_local`.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission
from django.contrib.auth.models import User as StaffUser
from django.test import Client
from django.urls import path
from moto import mock_aws

from dynamo import tables
from dynamo.models import configure
from dynamo_admin.sites import DynamoAdminSite

from .engines import local_engine

if "library" not in settings.INSTALLED_APPS:
    raise pytest.UsageError(
        "dynamo_admin's tests run on their own settings: "
        "python -m pytest dynamo_admin/tests --ds=dynamo_admin.tests.settings"
    )

# Imported only once the library is known to be installed.
from library.admin import BookAdmin, ShelfAdmin
from library.models import Book, Shelf


@pytest.fixture(scope="session")
def dynamodb_local():
    """One DynamoDB Local for the run, started when a module first asks for it."""
    with local_engine() as engine:
        yield engine


@pytest.fixture(scope="session")
def _moto():
    return mock_aws()


@pytest.fixture
def dynamo(_moto) -> Iterator[None]:
    """Every table the installed apps declare, created empty on a moto engine of the test's own."""
    _moto.start(reset=True)
    try:
        configure(endpoint=None, region="us-east-1")
        for model in tables.all_models():
            tables.create_missing(model)
        yield
    finally:
        _moto.stop()


def staff(username: str, *perms: str) -> StaffUser:
    """Create a staff user holding these `app_label.codename` permissions."""
    user = StaffUser.objects.create_user(username, f"{username}@example.com", "pw", is_staff=True)
    for perm in perms:
        app_label, codename = perm.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    return user


def logged_in(user: StaffUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def librarian(db, dynamo) -> Client:
    """Lena, a superuser."""
    return logged_in(StaffUser.objects.create_superuser("lena", "lena@example.com", "pw"))


@pytest.fixture
def reader(db, dynamo) -> Client:
    """Rita may view shelves and books, and change nothing."""
    return logged_in(staff("rita", "library.view_shelf", "library.view_book"))


@pytest.fixture
def fiction(dynamo) -> Shelf:
    """Shelf F1 with two novels."""
    shelf = Shelf("F1", name="Fiction, ground floor")
    shelf.save()
    Book("F1", "9780141439518", title="Pride and Prejudice", genre="Fiction").save()
    Book("F1", "9780140449136", title="Crime and Punishment", genre="Fiction", copies=2).save()
    return shelf


def calls(response) -> int:
    """Return how many DynamoDB calls the response's request made."""
    return response.wsgi_request.dynamo_meter.count


URLCONF = f"{__package__}.hook_urls"  # a module made by the serve fixture


@pytest.fixture
def serve(settings) -> Iterator[Callable[[dict], type]]:
    """Serve the admin with a ShelfAdmin subclass made of these methods; return the class."""

    def serve(methods: dict) -> type:
        admin_class = type("HookedShelfAdmin", (ShelfAdmin,), methods)
        site = DynamoAdminSite()
        site.register(Shelf, admin_class)
        site.register(Book, BookAdmin)
        module = types.ModuleType(URLCONF)
        module.urlpatterns = [path("admin/", site.urls)]
        sys.modules[URLCONF] = module
        settings.ROOT_URLCONF = URLCONF
        return admin_class

    yield serve
    sys.modules.pop(URLCONF, None)
    Shelf._meta = ShelfAdmin(Shelf, None).opts  # the project's site names it again
