"""Production settings: `.env.production.example` passes `check --deploy`; each knob is settable."""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent
EXAMPLE = BASE_DIR / ".env.production.example"
DEVELOPMENT_EXAMPLE = BASE_DIR / ".env.example"
PLACEHOLDER = re.compile(r"<[^>]*>")
FILLED = {
    "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
    "DJANGO_ALLOWED_HOSTS": "skillboard.example.com",
    "DJANGO_CSRF_TRUSTED_ORIGINS": "https://skillboard.example.com",
    "SITE_URL": "https://skillboard.example.com",
    "DATABASE_URL": "postgres://skillboard:secret@db.internal.example.com:5432/skillboard",
    "EMAIL_URL": "smtp+tls://user:secret@email-smtp.us-east-1.amazonaws.com:587",
    "CACHE_URL": "redis://cache.internal.example.com:6379/1",
}
MINIMAL = {
    "DJANGO_DEBUG": "false",
    "DJANGO_SECRET_KEY": FILLED["DJANGO_SECRET_KEY"],
    "DJANGO_ALLOWED_HOSTS": "skillboard.example.com",
    "SITE_URL": "https://skillboard.example.com",
}


def production_environment() -> dict[str, str]:
    """Return the example's variables with every placeholder filled in."""
    variables = {}
    for line in EXAMPLE.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, _, value = line.partition("=")
        if PLACEHOLDER.search(value):
            assert name in FILLED, f"{name} has a placeholder this test does not fill"
            value = FILLED[name]
        variables[name] = value
    return variables


def clean_environment(variables: dict[str, str]) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "DJANGO_ENV_FILE": "",  # only the variables given here
        "DYNAMODB_LOCAL_RUNNING_FILE": "",  # and not a running `make run`'s
        "DJANGO_SETTINGS_MODULE": "project.settings",
        **variables,
    }


def check_deploy(variables: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BASE_DIR,
        env=clean_environment(variables),
        capture_output=True,
        text=True,
        timeout=120,
    )


def make_serve(variables: dict[str, str]) -> subprocess.CompletedProcess:
    """Run `make serve` without its install step, on a port nothing would answer on."""
    return subprocess.run(
        ["make", "-o", "install", "serve", "ADDR=127.0.0.1:1"],
        cwd=BASE_DIR,
        env=clean_environment(variables),
        capture_output=True,
        text=True,
        timeout=120,
    )


def example_value(example: Path, name: str) -> str:
    (value,) = [
        line.partition("=")[2]
        for line in example.read_text().splitlines()
        if line.startswith(f"{name}=")
    ]
    return value


def test_the_production_example_passes_the_deploy_check_once_its_placeholders_are_filled():
    result = check_deploy(production_environment())

    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_debug_off_alone_gives_production_safe_defaults():
    result = check_deploy(MINIMAL)

    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("variable", "value", "warning"),
    [
        ("DJANGO_SECURE_HSTS_SECONDS", "0", "security.W004"),
        ("DJANGO_SECURE_SSL_REDIRECT", "false", "security.W008"),
        ("DJANGO_SESSION_COOKIE_SECURE", "false", "security.W012"),
        ("DJANGO_CSRF_COOKIE_SECURE", "false", "security.W016"),
    ],
)
def test_each_security_setting_can_be_turned_off_from_the_environment(variable, value, warning):
    result = check_deploy({**MINIMAL, variable: value})

    assert result.returncode != 0
    assert warning in result.stderr


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("DJANGO_X_FRAME_OPTIONS", "ALLOW-FROM x"),
        ("DJANGO_SECURE_REFERRER_POLICY", "nobody"),
        ("DJANGO_SECURE_PROXY_SSL_HEADER", "X-Forwarded-Proto"),
        ("DJANGO_CSRF_TRUSTED_ORIGINS", "skillboard.example.com"),
        ("DJANGO_SECURE_HSTS_SECONDS", "-1"),
    ],
)
def test_a_bad_security_setting_stops_start_up_naming_it(variable, value):
    result = check_deploy({**MINIMAL, variable: value})

    assert result.returncode != 0
    assert variable in result.stderr.strip().splitlines()[-1]


def test_the_proxy_header_setting_names_the_header_django_reads():
    from django.conf import settings

    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from project import settings; print(settings.SECURE_PROXY_SSL_HEADER)",
        ],
        cwd=BASE_DIR,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_ENV_FILE": "",
            **MINIMAL,
            "DJANGO_SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto=https",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.stdout.strip() == "('HTTP_X_FORWARDED_PROTO', 'https')"
    assert settings.SECURE_PROXY_SSL_HEADER is None  # not trusted unless configured


def test_a_development_env_file_stops_start_up_with_debug_off_in_one_line(tmp_path):
    development = tmp_path / ".env"
    development.write_text(DEVELOPMENT_EXAMPLE.read_text())

    result = check_deploy({**MINIMAL, "DJANGO_ENV_FILE": str(development)})

    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        f"ImproperlyConfigured: {development} is a development file and DJANGO_DEBUG is off: "
        "production reads only the real environment (see .env.production.example); remove the "
        "file, or set DJANGO_ENV_FILE= to ignore it"
    ]


def test_a_development_env_file_is_still_read_with_debug_on(tmp_path):
    development = tmp_path / ".env"
    development.write_text(DEVELOPMENT_EXAMPLE.read_text() + "DYNAMODB_TABLE_PREFIX=from-file-\n")

    result = subprocess.run(
        [sys.executable, "manage.py", "diffsettings", "--output", "unified"],
        cwd=BASE_DIR,
        env=clean_environment({"DJANGO_ENV_FILE": str(development)}),
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stderr
    assert "+ DEBUG = True" in result.stdout
    assert "+ DYNAMODB_TABLE_PREFIX = 'from-file-'" in result.stdout


@pytest.mark.parametrize("example", [DEVELOPMENT_EXAMPLE, EXAMPLE], ids=lambda p: p.name)
def test_a_secret_key_copied_from_an_example_file_stops_start_up(example):
    key = example_value(example, "DJANGO_SECRET_KEY")

    result = check_deploy({**MINIMAL, "DJANGO_SECRET_KEY": key})

    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        "ImproperlyConfigured: DJANGO_SECRET_KEY is the placeholder of an example env file: "
        "set 50 or more random characters from your secret store"
    ]


def test_make_serve_with_the_development_env_file_refuses_to_start_in_one_line(tmp_path):
    development = tmp_path / ".env"
    development.write_text(DEVELOPMENT_EXAMPLE.read_text())

    result = make_serve({"DJANGO_ENV_FILE": str(development)})

    assert result.returncode != 0
    ours = [line for line in result.stderr.splitlines() if not line.startswith("make: ")]
    assert len(ours) == 1 and "is a development file and DJANGO_DEBUG is off" in ours[0]


def test_make_serve_stops_on_a_deploy_warning_with_the_checks_own_message():
    result = make_serve({**MINIMAL, "DJANGO_SECURE_HSTS_SECONDS": "0"})

    assert result.returncode != 0
    assert "(security.W004) You have not set a value for the SECURE_HSTS_SECONDS" in result.stderr
    assert "collectstatic" not in result.stdout  # stopped before anything else ran
