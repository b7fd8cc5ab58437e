"""Skillboard settings: every value comes from the environment through one `env` object."""

from __future__ import annotations

import ipaddress
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from dynamo import local

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
# Development reads .env; DJANGO_ENV_FILE names another file, or none when empty. Production
# never does: with DEBUG off an env file stops start-up (below), so a development checkout's
# file (its placeholder key, its test prefix) cannot become production's settings unseen.
ENV_FILE = env.str("DJANGO_ENV_FILE", default=str(BASE_DIR / ".env"))
ENV_FILE_READ = bool(ENV_FILE) and Path(ENV_FILE).is_file()
if ENV_FILE_READ:
    environ.Env.read_env(ENV_FILE, overwrite=False)
# The example files are public: a value copied from them is no secret.
EXAMPLE_FILES = (BASE_DIR / ".env.example", BASE_DIR / ".env.production.example")


BOOLEAN_WORDS = {"true", "false", "1", "0", "yes", "no", "on", "off", "y", "n", "t", "f"}


def setting(name: str, cast: str, check=None, hint: str = "", **kwargs: Any) -> Any:
    """Read one variable with an explicit cast; a bad value stops start-up naming the variable."""
    raw = env.str(name, default=None)
    if cast == "bool" and raw is not None and raw.strip().lower() not in BOOLEAN_WORDS:
        raise ImproperlyConfigured(f"{name} has a bad value {raw!r}: expected true or false")
    try:
        value = getattr(env, cast)(name, **kwargs)
    except Exception as exc:  # django-environ raises whatever the cast raises
        reason = " ".join(str(exc).split())
        raise ImproperlyConfigured(f"{name} has a bad value: {reason}") from exc
    if check is not None and value is not None and not check(value):
        raise ImproperlyConfigured(f"{name} has a bad value {value!r}: {hint}")
    return value


def example_values(name: str) -> set[str]:
    """Return the values the example env files give a variable."""
    values = set()
    for example in EXAMPLE_FILES:
        if example.is_file():
            for line in example.read_text().splitlines():
                key, equals, value = line.partition("=")
                if equals and key.strip() == name:
                    values.add(value.strip())
    return values


DEBUG = setting("DJANGO_DEBUG", "bool", default=False)
if not DEBUG and ENV_FILE_READ:
    raise ImproperlyConfigured(
        f"{ENV_FILE} is a development file and DJANGO_DEBUG is off: production reads only the "
        "real environment (see .env.production.example); remove the file, or set "
        "DJANGO_ENV_FILE= to ignore it"
    )
if DEBUG:
    SECRET_KEY = setting("DJANGO_SECRET_KEY", "str", default="django-insecure-skillboard-dev-only")
else:
    SECRET_KEY = setting(
        "DJANGO_SECRET_KEY",
        "str",
        check=lambda v: len(v) >= 32,
        hint="use at least 32 random characters",
    )
    if SECRET_KEY in example_values("DJANGO_SECRET_KEY"):
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is the placeholder of an example env file: set 50 or more "
            "random characters from your secret store"
        )
ALLOWED_HOSTS = setting(
    "DJANGO_ALLOWED_HOSTS", "list", default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else []
)
# `make run` records its engine and address here while it runs (dynamo/local.py): in debug, a
# command started in another terminal with DYNAMODB_ENDPOINT unset works on make run's data.
# Empty reads none (the tests do that); production never reads it.
RUNNING_FILE = setting("DYNAMODB_LOCAL_RUNNING_FILE", "str", default=str(local.RUNNING_FILE))
MAKE_RUN: dict[str, str] = {}
if DEBUG and RUNNING_FILE and env.str("DYNAMODB_ENDPOINT", default=None) is None:
    try:
        MAKE_RUN = local.read_running(Path(RUNNING_FILE))
    except local.EngineError as exc:
        raise ImproperlyConfigured(str(exc)) from None

# The public address, for absolute links where no request is at hand (reminder mails):
# required outside debug, so no mail ever links to a development host.
SITE_URL = setting(
    "SITE_URL",
    "str",
    check=lambda v: re.fullmatch(r"https?://[^\s/]+(:\d+)?(/[^\s]*)?", v) is not None,
    hint="expected the site's address, such as https://skillboard.example.com",
    **({"default": MAKE_RUN.get("SITE_URL", "http://127.0.0.1:8000")} if DEBUG else {}),
).rstrip("/")

# Transport security: production-safe defaults with DEBUG off, each one set from the
# environment (a TLS-terminating load balancer in front is the expected deployment).
SECURE_SSL_REDIRECT = setting("DJANGO_SECURE_SSL_REDIRECT", "bool", default=not DEBUG)
SECURE_HSTS_SECONDS = setting(
    "DJANGO_SECURE_HSTS_SECONDS",
    "int",
    default=0 if DEBUG else 31_536_000,
    check=lambda v: v >= 0,
    hint="seconds, 0 (off) or more",
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = setting(
    "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", "bool", default=not DEBUG
)
# The header's preload flag only allows a submission to the browsers' list; it submits nothing.
SECURE_HSTS_PRELOAD = setting("DJANGO_SECURE_HSTS_PRELOAD", "bool", default=not DEBUG)
SESSION_COOKIE_SECURE = setting("DJANGO_SESSION_COOKIE_SECURE", "bool", default=not DEBUG)
CSRF_COOKIE_SECURE = setting("DJANGO_CSRF_COOKIE_SECURE", "bool", default=not DEBUG)
# A refused form gets the site's styled 403 (templates/403.html), as 400/404/500 do.
CSRF_FAILURE_VIEW = "project.errors.csrf_failure"
CSRF_TRUSTED_ORIGINS = setting(
    "DJANGO_CSRF_TRUSTED_ORIGINS",
    "list",
    default=[],
    check=lambda v: all(re.fullmatch(r"https?://[^\s/]+", origin) for origin in v),
    hint="expected origins such as https://skillboard.example.com",
)
# Trust the proxy's scheme header only when a proxy that sets it is really in front.
_PROXY_SSL_HEADER = setting(
    "DJANGO_SECURE_PROXY_SSL_HEADER",
    "str",
    default="",
    check=lambda v: v == "" or re.fullmatch(r"[A-Za-z0-9-]+=https", v) is not None,
    hint="expected HEADER=https, such as X-Forwarded-Proto=https",
)
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_" + _PROXY_SSL_HEADER.split("=")[0].upper().replace("-", "_"), "https")
    if _PROXY_SSL_HEADER
    else None
)


def is_network(value: str) -> bool:
    """Return whether a value is an IP address or a CIDR block."""
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return False
    return True


# Peers (REMOTE_ADDR) trusted to set X-Request-ID: the load balancer's addresses or blocks.
# Anyone else's is logged beside a new id, so a client cannot pose as another request.
TRUSTED_PROXIES = setting(
    "DJANGO_TRUSTED_PROXIES",
    "list",
    default=[],
    check=lambda v: all(is_network(network) for network in v),
    hint="expected IP addresses or CIDR blocks such as 10.0.0.0/16",
)
# Load balancers probe /healthz over plain HTTP: it answers there rather than redirecting.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
X_FRAME_OPTIONS = setting(
    "DJANGO_X_FRAME_OPTIONS",
    "str",
    default="DENY",
    check=lambda v: v in {"DENY", "SAMEORIGIN"},
    hint="DENY or SAMEORIGIN",
)
SECURE_REFERRER_POLICY = setting(
    "DJANGO_SECURE_REFERRER_POLICY",
    "str",
    default="same-origin",
    check=lambda v: (
        v
        in {
            "no-referrer",
            "no-referrer-when-downgrade",
            "origin",
            "origin-when-cross-origin",
            "same-origin",
            "strict-origin",
            "strict-origin-when-cross-origin",
            "unsafe-url",
        }
    ),
    hint="a Referrer-Policy value such as same-origin",
)

INSTALLED_APPS = [
    # Before Django's admin app: its admin/ templates (the meter footer, Recent actions)
    # override Django's, and extend them.
    "dynamo_admin",
    "dynamo_admin.apps.AdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "csp",
    "axes",  # failed admin logins: attempts in Django's database, shared by every host
    "dynamo",
    "workers",  # the jobs table and run_schedule
    "catalog",
    "users",
    "stats",
    "ninja",  # its Swagger UI assets, served locally: /api/docs needs no CDN
    "api",
]

MIDDLEWARE = [
    "dynamo.middleware.RequestMeterMiddleware",
    # Inside the meter, so the request's line carries its DynamoDB calls and capacity.
    "project.logs.RequestLogMiddleware",
    "dynamo.middleware.EngineFailureMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Right after SecurityMiddleware, so static files skip the rest of the stack.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "project.urls"
WSGI_APPLICATION = "project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
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

# Django's form renderer (a project may name its own).
FORM_RENDERER = env.str("FORM_RENDERER", default="django.forms.renderers.DjangoTemplates")

DATABASES = {
    "default": setting(
        "DATABASE_URL",
        "db_url",
        default=f"sqlite:///{VAR_DIR / 'skillboard.sqlite3'}",
        check=lambda v: v.get("ENGINE") in set(environ.Env.DB_SCHEMES.values()),
        hint=f"the scheme must be one of {', '.join(sorted(environ.Env.DB_SCHEMES))}",
    ),
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-axes first: a locked-out username or address is refused before its password is hashed.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The admin's header and page titles: "Skillboard administration".
ADMIN_SITE_NAME = "Skillboard"
# The periodic commands `run_schedule` runs: (command, arguments, interval) entries or their path.
SCHEDULE = "project.schedule.SCHEDULE"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = setting("DJANGO_STATIC_ROOT", "path", default=VAR_DIR / "static")
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Compressed files with content hashes in their names, served by WhiteNoise with
    # far-future cache headers; with DEBUG on, templates link the unhashed names.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Files served at the site's root (favicon.ico), which browsers ask for on every site.
WHITENOISE_ROOT = BASE_DIR / "project" / "public"

# Content-Security-Policy: only this origin's scripts and styles, nothing inline, no frames.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

EMAIL_CONFIG = setting("EMAIL_URL", "email_url", default="consolemail://")
vars().update(EMAIL_CONFIG)
DEFAULT_FROM_EMAIL = "Skillboard <reminders@skillboard.local>"

LOGIN_URL = "admin:login"

# Login throttling (django-axes, project/logins.py): this many failures for one username from
# one client address lock that pair out for the cool-off; the username stays open from every
# other address, so nobody can lock a staff member out by guessing their password.
AXES_FAILURE_LIMIT = setting(
    "AXES_FAILURE_LIMIT", "int", default=5, check=lambda v: v >= 1, hint="1 or more"
)
# One address guessing many usernames is locked at this many failures in all.
AXES_ADDRESS_FAILURE_LIMIT = setting(
    "AXES_ADDRESS_FAILURE_LIMIT", "int", default=20, check=lambda v: v >= 1, hint="1 or more"
)
AXES_COOLOFF_TIME = timedelta(
    minutes=setting(
        "AXES_COOLOFF_MINUTES", "int", default=15, check=lambda v: v >= 1, hint="minutes, 1+"
    )
)
# The pair first, then the address: project.logins.LoginAttempts reads them in this order.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_HANDLER = "project.logins.LoginAttempts"
# Every failure is kept (up to axes' 1,000 per username), so a login can say how many came
# since the previous one.
AXES_ENABLE_ACCESS_FAILURE_LOG = True
# A success must not clear the count: axes would clear every attempt from the address, so one
# account's own login would reset the guesses made from there against another username.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "project.errors.locked_out"
# The client address (project/addresses.py) is REMOTE_ADDR; behind N proxies that each append
# to X-Forwarded-For, the N-th entry from its right: the entries a client sent are not trusted.
CLIENT_IP_PROXY_COUNT = setting(
    "DJANGO_CLIENT_IP_PROXY_COUNT", "int", default=0, check=lambda v: v >= 0, hint="0 or more"
)
AXES_CLIENT_IP_CALLABLE = "project.addresses.client_address"
# Failed API bearer tokens per client address (the same address as the login's), as
# django-ninja's rate strings: this many per period, then 429 with Retry-After.
API_TOKEN_FAILURE_RATE = setting(
    "API_TOKEN_FAILURE_RATE",
    "str",
    default="20/15m",
    check=lambda v: re.fullmatch(r"[1-9]\d*/\d*(s|sec|m|min|h|hour|d|day)", v) is not None,
    hint="requests/period, such as 20/15m or 100/h",
)

# DynamoDB
DYNAMODB_ENDPOINT = setting(
    "DYNAMODB_ENDPOINT",
    "str",
    default=MAKE_RUN.get("DYNAMODB_ENDPOINT"),
    check=lambda v: re.fullmatch(r"https?://[^\s/]+(:\d+)?/?", v) is not None,
    hint="expected a URL such as http://127.0.0.1:8000",
)
AWS_REGION = setting(
    "AWS_REGION",
    "str",
    default="us-east-1",
    check=lambda v: re.fullmatch(r"[a-z]{2}(-[a-z]+)+-\d", v) is not None,
    hint="expected an AWS region name such as us-east-1",
)
DYNAMODB_TABLE_PREFIX = setting(
    "DYNAMODB_TABLE_PREFIX",
    "str",
    default="skillboard-dev-",
    check=lambda v: re.fullmatch(r"[A-Za-z0-9_.-]{0,200}", v) is not None,
    hint="table names allow letters, digits, '_', '-' and '.'",
)
LEADERBOARD_SHARDS = setting(
    "LEADERBOARD_SHARDS", "int", default=1, check=lambda v: 1 <= v <= 64, hint="between 1 and 64"
)
# Seconds a leaderboard page is served from the cache: its DynamoDB reads are then bounded
# per page and process whatever the traffic; 0 reads DynamoDB on every request.
LEADERBOARD_CACHE_SECONDS = setting(
    "LEADERBOARD_CACHE_SECONDS", "int", default=5, check=lambda v: v >= 0, hint="0 or more"
)
# Django's cache: local memory per process by default; Redis shared by every host in
# production (CACHE_URL=redis://...), or memcache:// with its client library installed.
CACHES = {"default": setting("CACHE_URL", "cache_url", default="locmemcache://")}
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    # Django's, but a Redis that is down means misses (pages read DynamoDB), not 500s.
    CACHES["default"]["BACKEND"] = "project.cache.RedisCache"
    # Seconds per cache call while Redis is unreachable (CACHE_URL's ?socket_timeout=… wins).
    CACHES["default"]["OPTIONS"] = {
        "socket_connect_timeout": 1.0,
        "socket_timeout": 1.0,
        **CACHES["default"].get("OPTIONS", {}),
    }
# Each host's own memory, for counts that must hold while the shared cache is down (the API's
# failed-token throttle keeps them in both).
CACHES["host"] = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "host"}
# Each process's own copies of the leaderboard's fresh entries and their rendered HTML
# (stats/boards/cache.py), apart from "host" so that many boards never push its counts out.
CACHES["boards"] = {
    "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
    "LOCATION": "boards",
    "OPTIONS": {"MAX_ENTRIES": 512},  # 256 board variants, each with its HTML
}
# /healthz checks the engine at most once per process in this many seconds, whatever the
# number of probes; their answers within it share one check.
HEALTHZ_CHECK_SECONDS = 1.0
USER_PURGE_AFTER_DAYS = setting(
    "USER_PURGE_AFTER_DAYS", "int", default=30, check=lambda v: v >= 0, hint="days, 0 or more"
)
# How long the API keeps an Idempotency-Key (Stripe keeps them 24 hours): a retry after it
# records a new session. DynamoDB TTL deletes expired keys lazily; reads ignore them at once.
SESSION_KEY_TTL_HOURS = setting(
    "SESSION_KEY_TTL_HOURS", "int", default=24, check=lambda v: v >= 1, hint="hours, 1 or more"
)
# One pooled connection per server thread at least (runserver and gunicorn threads).
DYNAMODB_MAX_POOL_CONNECTIONS = 32
# A request's deadline: a page whose engine hangs fails (503) within a few seconds instead of
# holding a server thread for a minute. Commands run from the shell wait longer.
DYNAMODB_CONNECT_TIMEOUT = setting(
    "DYNAMODB_CONNECT_TIMEOUT", "float", default=1.0, check=lambda v: v > 0, hint="seconds, > 0"
)
DYNAMODB_READ_TIMEOUT = setting(
    "DYNAMODB_READ_TIMEOUT", "float", default=1.5, check=lambda v: v > 0, hint="seconds, > 0"
)
DYNAMODB_MAX_ATTEMPTS = setting(
    "DYNAMODB_MAX_ATTEMPTS", "int", default=2, check=lambda v: v >= 1, hint="1 or more"
)
# All a page's DynamoDB calls together (GET and HEAD): an unresponsive engine is a 503 within
# 3 s of the request's arrival, however many calls the page makes and however many wait beside it.
DYNAMODB_REQUEST_DEADLINE = setting(
    "DYNAMODB_REQUEST_DEADLINE", "float", default=2.0, check=lambda v: v > 0, hint="seconds, > 0"
)
DYNAMODB_COMMAND_READ_TIMEOUT = setting(
    "DYNAMODB_COMMAND_READ_TIMEOUT", "float", default=15.0, check=lambda v: v > 0, hint="> 0"
)
DYNAMODB_COMMAND_MAX_ATTEMPTS = setting(
    "DYNAMODB_COMMAND_MAX_ATTEMPTS", "int", default=5, check=lambda v: v >= 1, hint="1 or more"
)

# Production (DEBUG off) logs one JSON object per line on stdout, for CloudWatch or any log
# system; development keeps Django's readable console output (runserver logs each request).
LOG_FORMAT = setting(
    "DJANGO_LOG_FORMAT",
    "str",
    default="text" if DEBUG else "json",
    check=lambda v: v in {"json", "text"},
    hint="json or text",
)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "project.logs.JsonFormatter"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler"},
        "json": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": "json",
        },
    },
    "root": {"handlers": ["json" if LOG_FORMAT == "json" else "console"], "level": "WARNING"},
    "loggers": {
        # The scheduler's one line per run (the cache's warnings too).
        "skillboard": {"level": "INFO"},
        # One line per request and per command (the package's `dynamo.command`); runserver
        # already prints requests in development, and commands print their own summaries there.
        "skillboard.request": {"level": "INFO" if LOG_FORMAT == "json" else "WARNING"},
        "dynamo.command": {"level": "INFO" if LOG_FORMAT == "json" else "WARNING"},
    },
}
if LOG_FORMAT == "json":
    # Django's own loggers (django.request, django.server) go to the same JSON lines.
    LOGGING["loggers"]["django"] = {"handlers": [], "level": "INFO", "propagate": True}
