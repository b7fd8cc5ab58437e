"""Test settings: the project's settings with a test key, a test table prefix and fast hashing."""

import os

os.environ.setdefault("DJANGO_ENV_FILE", "")  # tests never read a developer's .env
os.environ.setdefault("DYNAMODB_LOCAL_RUNNING_FILE", "")  # nor reach a running `make run`
os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-secret-key-that-is-long-enough-0123456789")
os.environ.setdefault("DYNAMODB_TABLE_PREFIX", "skillboard-test-")
os.environ.setdefault("EMAIL_URL", "memorymail://")
os.environ.setdefault("SITE_URL", "https://skillboard.test")
os.environ.setdefault("DYNAMODB_READ_TIMEOUT", "15")  # a busy test machine is slow, not down
os.environ.setdefault("DYNAMODB_MAX_ATTEMPTS", "4")
os.environ.setdefault("DYNAMODB_REQUEST_DEADLINE", "60")
os.environ.pop("DYNAMODB_ENDPOINT", None)  # each test points the models at its own engine

from project.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ALLOWED_HOSTS = ["*"]
# The test client and live servers speak plain HTTP; production's TLS settings are tested
# separately (tests/test_deploy_settings.py runs `check --deploy` with them).
SECURE_SSL_REDIRECT = False
SECURE_HSTS_SECONDS = 0
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = False
# Manifest storage needs `collectstatic` first; tests link the source files.
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Nor do they collect them: WhiteNoise then has no STATIC_ROOT to scan (and no "No directory
# at var/static/" warning on every request handler); the served tests collect into their own.
STATIC_ROOT = None
# Tests read the board right after writing; tests/test_leaderboard_cache.py turns it on.
LEADERBOARD_CACHE_SECONDS = 0
# Tests change the engine under /healthz between requests; tests/test_healthz.py turns it on.
HEALTHZ_CHECK_SECONDS = 0
