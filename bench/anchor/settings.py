"""Settings of the anchor: Django's startproject defaults, on SQLite or PostgreSQL."""

from __future__ import annotations

import os

import environ

DEBUG = False
SECRET_KEY = "anchor-bench-only-0123456789abcdefghijklmnopqrstuvwxyz"
ALLOWED_HOSTS = ["testserver"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "anchor.learners",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "anchor.urls"

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

# anchor.serve names the database: a SQLite file it makes in a temporary directory and removes
# after the run, or the URL of an empty PostgreSQL database (a throwaway cluster on loopback).
DATABASE = os.environ.get("ANCHOR_DATABASE", ":memory:")
if "://" in DATABASE:
    DATABASES = {"default": environ.Env.db_url_config(DATABASE)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": DATABASE,
            # DynamoDB Local runs in memory: the anchor keeps its whole file in SQLite's page
            # cache (57 MB at 100,000 learners) and does not wait for the disk on each commit
            # (WAL with synchronous=NORMAL syncs at checkpoints only).
            "OPTIONS": {
                "init_command": (
                    "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-131072;"
                )
            },
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# As Skillboard's settings.
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
