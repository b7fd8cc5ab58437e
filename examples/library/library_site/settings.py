"""A new Django project's settings, plus dynamo and dynamo_admin: the three DynamoDB settings.

Everything else dynamo reads has a default (see the package README's settings table).
"""

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = "example-only-not-a-secret-0123456789-abcdefghijklmnopqrstuvwxyz"
DEBUG = True
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]

INSTALLED_APPS = [
    # Before Django's admin app: its admin/ templates extend Django's.
    "dynamo_admin",
    "dynamo_admin.apps.AdminConfig",  # Django's admin, on the site that serves DynamoDB models
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "dynamo",
    "library",
    "shop",  # customers, orders and order lines in one table (single-table design)
]

MIDDLEWARE = [
    "dynamo.middleware.RequestMeterMiddleware",  # each page's DynamoDB calls, for staff
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "library_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


# Django's own tables (users, sessions, permissions) stay in SQL; the library is in DynamoDB.
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("LIBRARY_DATABASE", BASE_DIR / "db.sqlite3"),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
STATIC_URL = "static/"

# The three settings dynamo needs: where the tables are (None: AWS itself) and their names.
DYNAMODB_ENDPOINT = os.environ.get("DYNAMODB_ENDPOINT") or None
AWS_REGION = os.environ.get("AWS_REGION", "us-east-1")
DYNAMODB_TABLE_PREFIX = os.environ.get("DYNAMODB_TABLE_PREFIX", "library-")
