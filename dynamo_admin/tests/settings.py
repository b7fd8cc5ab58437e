"""Settings for dynamo_admin's own tests: the example library project's, on moto.

No Skillboard app and no Skillboard setting. The library app and its project live in
examples/library; in a checkout they are put on the path here, elsewhere (the installed-wheel
run) that folder is the working directory.
"""

import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "library"
if EXAMPLE.is_dir() and str(EXAMPLE) not in sys.path:
    sys.path.insert(0, str(EXAMPLE))

from library_site.settings import *  # noqa: E402, F403

DEBUG = False
ROOT_URLCONF = f"{__package__}.urls"
# request.dynamo_meter: the calls a page made, which the tests count.
MIDDLEWARE = ["dynamo.middleware.RequestMeterMiddleware", *MIDDLEWARE]  # noqa: F405
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
TIME_ZONE = "UTC"

# The three settings dynamo has no default for; every other one keeps its default.
DYNAMODB_ENDPOINT = None  # the conftest's moto
AWS_REGION = "us-east-1"
DYNAMODB_TABLE_PREFIX = "dynamo-admin-test-"

# The AWS guide's sample tables as plain PynamoDB models (their tests make the tables).
INSTALLED_APPS = [*INSTALLED_APPS, f"{__package__}.samples"]  # noqa: F405
