"""Settings for dynamo_admin's own tests: Django's contrib apps, the admin and a toy library.

No Skillboard app and no Skillboard setting: what the DynamoDB layer reads is set here.
"""

SECRET_KEY = "dynamo-admin-tests-only-secret-key-0123456789-abcdefghij"
DEBUG = False
ALLOWED_HOSTS = ["testserver"]

INSTALLED_APPS = [
    # Before Django's admin app: its admin/ templates (the meter footer, Recent actions)
    # override Django's, and extend them.
    "dynamo_admin",
    "dynamo_admin.apps.AdminConfig",  # Django's admin app, with the site over DynamoDB models
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "dynamo",
    "dynamo_admin.tests.library",
]

MIDDLEWARE = [
    "dynamo.middleware.RequestMeterMiddleware",  # request.dynamo_meter: the calls a page made
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "dynamo_admin.tests.urls"

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

DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

USE_TZ = True
TIME_ZONE = "UTC"
STATIC_URL = "static/"

# The three settings dynamo has no default for; every other one keeps its default.
DYNAMODB_ENDPOINT = None
AWS_REGION = "us-east-1"
DYNAMODB_TABLE_PREFIX = "dynamo-admin-test-"
