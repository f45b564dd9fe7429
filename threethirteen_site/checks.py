"""``manage.py check --deploy``: what an operator has left misconfigured for the multi-process set-up.

Django's own deployment checks cover the secret key, HTTPS, cookies and HSTS;
these cover what this site needs beside them (``deploy/`` and the README's
"Deploying"): PostgreSQL, Redis for several server processes, the collected
static files, e-mail that leaves the machine, links in e-mails that lead to
the site, client addresses behind the proxy, and a move clock whose turns
reach the pages.  They read the settings only (no connection is opened), so
they can run before the services start.  Each has an id (``threethirteen.W001``
...) that ``SILENCED_SYSTEM_CHECKS`` can silence where the choice is deliberate
(e.g. one process on SQLite for a few friends).

The messages are in English and not translated, like Django's own system
checks beside which they are printed: they are read in a terminal by whoever
runs the servers, not shown on any page of the site.
"""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestStaticFilesStorage
from django.core.checks import CheckMessage, Error, Warning, register
from django.http.request import split_domain_port, validate_host
from django.utils.module_loading import import_string

#: The names ``ALLOWED_HOSTS`` has on a laptop (the settings' default): no public name among them.
LOCAL_HOSTS = {"localhost", "127.0.0.1", "[::1]", "::1"}
#: E-mail backends that deliver nothing to anybody.
UNDELIVERED_EMAIL = {
    "django.core.mail.backends.console.EmailBackend",
    "django.core.mail.backends.locmem.EmailBackend",
    "django.core.mail.backends.dummy.EmailBackend",
    "django.core.mail.backends.filebased.EmailBackend",
}


def _host_allowed(netloc: str) -> bool:
    """Whether a URL's host (``name[:port]``) is one the site answers for (``ALLOWED_HOSTS``)."""
    domain, _port = split_domain_port(netloc.rsplit("@", 1)[-1])
    return bool(domain) and validate_host(domain, list(settings.ALLOWED_HOSTS))


def check_database(**kwargs: Any) -> list[CheckMessage]:
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
        return []
    return [
        Warning(
            "The database is SQLite: the server processes and the move clock take turns for its one write lock, "
            "and rows are never locked (select_for_update does nothing).",
            hint="Set DATABASE_URL to a PostgreSQL database, e.g. postgres://threethirteen@127.0.0.1/threethirteen.",
            id="threethirteen.W001",
        )
    ]


def check_channel_layer(**kwargs: Any) -> list[CheckMessage]:
    if settings.REDIS_URL:
        return []
    return [
        Warning(
            "The channel layer is in memory (no REDIS_URL): only one server process can serve the site; "
            "with several, a move made through one never reaches the pages connected to another.",
            hint="Set REDIS_URL (e.g. redis://127.0.0.1:6379/0) in the environment of every server process "
            "and of the move clock.",
            id="threethirteen.W002",
        )
    ]


def check_static_files(**kwargs: Any) -> list[CheckMessage]:
    backend = settings.STORAGES["staticfiles"]["BACKEND"]
    if not issubclass(import_string(backend), ManifestStaticFilesStorage):
        return []
    manifest = Path(settings.STATIC_ROOT) / ManifestStaticFilesStorage.manifest_name
    if manifest.is_file():
        return []
    return [
        Error(
            f"The static files have not been collected: {manifest} is missing, so the proxy has no styles or "
            "scripts to serve, and the pages link them by names browsers must ask for again and again.",
            hint="Run `manage.py collectstatic --noinput` (with the same STATIC_ROOT) before starting the servers, "
            "after every update.",
            id="threethirteen.E003",
        )
    ]


def check_email(**kwargs: Any) -> list[CheckMessage]:
    if settings.EMAIL_BACKEND not in UNDELIVERED_EMAIL:
        return []
    return [
        Warning(
            f"E-mail is not sent ({settings.EMAIL_BACKEND}): password resets and turn e-mails reach nobody.",
            hint="Set EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend with EMAIL_HOST, EMAIL_PORT, "
            "EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS and DEFAULT_FROM_EMAIL.",
            id="threethirteen.W004",
        )
    ]


def check_site_url(**kwargs: Any) -> list[CheckMessage]:
    url = urllib.parse.urlsplit(settings.SITE_URL)
    if url.scheme == "https" and _host_allowed(url.netloc):
        return []
    return [
        Warning(
            f"SITE_URL ({settings.SITE_URL}) is not an https address of a host in ALLOWED_HOSTS: the links in "
            "turn e-mails and push notices will not lead to the site.",
            hint="Set SITE_URL to the address people use, e.g. https://cards.example.com.",
            id="threethirteen.W005",
        )
    ]


def check_allowed_hosts(**kwargs: Any) -> list[CheckMessage]:
    hosts = set(settings.ALLOWED_HOSTS)
    if hosts and not hosts <= LOCAL_HOSTS:
        return []
    return [
        Warning(
            "ALLOWED_HOSTS names only this machine (" + ", ".join(sorted(hosts)) + "): requests for the site's "
            "public name are refused (400 Bad Request).",
            hint="Set ALLOWED_HOSTS to the names people use, comma-separated, e.g. cards.example.com.",
            id="threethirteen.W006",
        )
    ]


def check_csrf_trusted_origins(**kwargs: Any) -> list[CheckMessage]:
    wrong = []
    for origin in settings.CSRF_TRUSTED_ORIGINS:
        parts = urllib.parse.urlsplit(origin)
        # "https://*.example.com" trusts the subdomains, which ALLOWED_HOSTS allows as ".example.com".
        host = "a" + parts.netloc[1:] if parts.netloc.startswith("*.") else parts.netloc
        if parts.scheme != "https" or not _host_allowed(host):
            wrong.append(origin)
    if not wrong:
        return []
    return [
        Warning(
            "CSRF_TRUSTED_ORIGINS has origins that are not https addresses of a host in ALLOWED_HOSTS: "
            + ", ".join(wrong)
            + ". Forms posted from the site's own address do not need them; these are likely mistyped.",
            hint="Write each as https://name (with :port if not 443), the name as in ALLOWED_HOSTS, or leave "
            "CSRF_TRUSTED_ORIGINS empty.",
            id="threethirteen.W007",
        )
    ]


def check_client_address(**kwargs: Any) -> list[CheckMessage]:
    behind_proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None) is not None
    if not behind_proxy or settings.CLIENT_IP_HEADER != "REMOTE_ADDR":
        return []
    return [
        Warning(
            "Behind the proxy every request comes from the proxy's address (CLIENT_IP_HEADER is REMOTE_ADDR): "
            "a few failed log-ins from anyone lock everybody out, and everybody shares one sign-up limit.",
            hint="Set CLIENT_IP_HEADER=X-Forwarded-For (the header deploy/nginx writes) and CLIENT_IP_PROXY_COUNT "
            "to the number of proxies of yours in front of the servers (1).",
            id="threethirteen.W008",
        )
    ]


def check_move_clock(**kwargs: Any) -> list[CheckMessage]:
    from games.live.clock import enabled as clock_in_server

    if settings.REDIS_URL or clock_in_server():
        return []
    return [
        Warning(
            f"GAMECLOCK_IN_SERVER is {os.environ.get('GAMECLOCK_IN_SERVER')!r} and there is no REDIS_URL: the "
            "server does not play timed-out turns, and those a separate `manage.py gameclock` plays reach no "
            "open page until it reloads.",
            hint="Unset GAMECLOCK_IN_SERVER with one server process, or set REDIS_URL and run one "
            "`manage.py gameclock` beside the servers (deploy/systemd/threethirteen-gameclock.service).",
            id="threethirteen.W009",
        )
    ]


def check_database_pool(**kwargs: Any) -> list[CheckMessage]:
    pool = settings.DATABASES["default"].get("OPTIONS", {}).get("pool")
    if not isinstance(pool, dict) or pool.get("max_size", 0) > settings.HTTP_THREADS:
        return []
    return [
        Warning(
            f"The database pool holds at most {pool.get('max_size')} connections a process, and each of its "
            f"{settings.HTTP_THREADS} HTTP threads may hold one while its sockets and move clock need more: "
            "requests will wait for a connection, and fail after DATABASE_POOL_TIMEOUT.",
            hint="Set DATABASE_POOL_MAX_SIZE above HTTP_THREADS (e.g. HTTP_THREADS + 4), within PostgreSQL's "
            "max_connections for all the processes together.",
            id="threethirteen.W010",
        )
    ]


DEPLOY_CHECKS = [
    check_database,
    check_channel_layer,
    check_static_files,
    check_email,
    check_site_url,
    check_allowed_hosts,
    check_csrf_trusted_origins,
    check_client_address,
    check_move_clock,
    check_database_pool,
]


def register_deploy_checks() -> None:
    for check in DEPLOY_CHECKS:
        register(check, "threethirteen", deploy=True)
