"""Gunicorn settings for `make serve`: threaded workers sized to the DynamoDB connection pool."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

from django.conf import settings

wsgi_app = "project.wsgi:application"
worker_class = "gthread"
# One pooled DynamoDB connection per thread: a thread never waits for a connection.
threads = settings.DYNAMODB_MAX_POOL_CONNECTIONS
# Workers: `--workers`, else WEB_CONCURRENCY (`make serve` passes WEB_CONCURRENCY, 2 by default).
# Requests are logged by the application (one JSON line each); gunicorn logs its own errors.
errorlog = "-"
# A load balancer in front keeps connections open; keep them a little longer than it does.
keepalive = 75
graceful_timeout = 20
# No control socket: one fixed path per user would collide between servers on one host.
control_socket_disable = True
if settings.LOG_FORMAT == "json":
    # Gunicorn's own lines (start, worker exits, timeouts) as JSON on stdout, like the app's.
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "project.logs.JsonFormatter"}},
        "handlers": {
            "json": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stdout",
                "formatter": "json",
            }
        },
        "root": {"handlers": ["json"], "level": "WARNING"},
        "loggers": {"gunicorn.error": {"handlers": ["json"], "level": "INFO", "propagate": False}},
    }
