"""Settings of the Three Thirteen site.

Everything that differs between a laptop and a server comes from environment
variables, with development defaults that need no set-up (SQLite, the
in-memory channel layer, e-mail printed on the console):

- ``DEBUG`` ("1"/"0", default "1")
- ``SECRET_KEY`` (required when ``DEBUG`` is off, and then never the development key)
- ``ALLOWED_HOSTS`` (comma-separated; default localhost names)
- ``CSRF_TRUSTED_ORIGINS`` (comma-separated origins, optional)
- ``DATABASE_URL`` (e.g. ``postgres://user:pass@host/db``; default SQLite, but required when ``DEBUG`` is off)
- ``DATABASE_POOL`` (PostgreSQL: "1"/"0", default "1": a connection pool per process),
  ``DATABASE_POOL_MIN_SIZE`` (2), ``DATABASE_POOL_MAX_SIZE`` (20), ``DATABASE_POOL_TIMEOUT`` (10 s)
- ``HTTP_THREADS`` (worker threads per server process for HTTP requests, default 4; keep the pool's
  ``DATABASE_POOL_MAX_SIZE`` above it: ``threethirteen_site/http.py``)
- ``CONN_MAX_AGE`` (seconds a database connection is kept between requests, default 0; without a pool)
- ``REDIS_URL`` (channel layer shared by several server processes), ``REDIS_SOCKET_TIMEOUT``
  (seconds, default 15; longer than the layer's 5 s blocking read), ``REDIS_MAX_CONNECTIONS``
  (per server process, the channel layer's and the shared cache's each, default 100),
  ``REDIS_CACHE_TIMEOUT`` (seconds the shared cache, which also holds the sessions, waits for Redis
  or for a free connection; default 2)
- ``EMAIL_BACKEND``, ``EMAIL_HOST``, ``EMAIL_PORT``, ``EMAIL_HOST_USER``,
  ``EMAIL_HOST_PASSWORD``, ``EMAIL_USE_TLS``, ``DEFAULT_FROM_EMAIL``
- ``EMAIL_TIMEOUT`` (seconds to wait for the mail server, default 10: the move clock sends the turn
  e-mails, and with Django's default of none a server that never answered stopped the clock for good)
- ``SITE_URL`` (the site's address, for links in e-mails)
- ``TURN_NOTICE_DELAY_SECONDS`` (how long a turn of a game over days waits before its "your turn"
  e-mail or push goes out, default 300: one who plays at the table moves before then)
- ``AWAY_DAYS_PER_YEAR`` (time away a player may take per calendar year, default 14)
- ``ANALYSIS_SECONDS_PER_PASS`` (seconds of game analysis per pass of the analysis worker, which
  runs beside the move clock: default 0.5 in the server process, 2 for ``manage.py gameclock``;
  0 turns the analysis off there)
- ``VAPID_PUBLIC_KEY``, ``VAPID_PRIVATE_KEY`` (Web Push turn notices; both or neither:
  ``manage.py vapid_keys`` makes a pair), ``VAPID_SUBJECT`` (a ``mailto:`` or ``https:``
  contact for the push services), ``PUSH_SERVICE_HOSTS`` (the push services a subscription
  may point at)
- ``SECURE_PROXY_SSL_HEADER`` (the header in which the proxy says the request came over HTTPS, e.g.
  ``X-Forwarded-Proto``, the default with ``DEBUG`` off; "0" for none, the default with ``DEBUG`` on)
- ``SECURE_SSL_REDIRECT``, ``SECURE_HSTS_SECONDS``, ``SECURE_HSTS_INCLUDE_SUBDOMAINS``, ``SECURE_HSTS_PRELOAD``
  (production only)
- ``STATIC_ROOT`` (where ``collectstatic`` writes the static files for the proxy; default ``staticfiles``)
- ``CLIENT_IP_HEADER`` (behind a proxy: the header with the client's address, e.g.
  ``X-Forwarded-For``; default ``REMOTE_ADDR``) and ``CLIENT_IP_PROXY_COUNT`` (default 1)
- ``LOGIN_FAILURE_LIMIT`` (default 5), ``LOGIN_COOLOFF_MINUTES`` (default 15),
  ``THROTTLE_PASSWORD_RESET_PER_IP`` ("5/15m"), ``THROTTLE_PASSWORD_RESET_PER_EMAIL`` ("3/h"),
  ``THROTTLE_SIGNUP_PER_IP`` ("10/h")
"""

from __future__ import annotations

import os
import tempfile
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)

# The development key signs sessions on laptops only: with DEBUG off the site refuses to start
# without a key of its own, and refuses this one (or any "django-insecure-" key) if it is set.
DEVELOPMENT_SECRET_KEY = "django-insecure-development-only-key-do-not-use-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", "").strip()
if not DEBUG and not SECRET_KEY:
    raise ImproperlyConfigured("Set SECRET_KEY when DEBUG is off.")
if not DEBUG and (SECRET_KEY == DEVELOPMENT_SECRET_KEY or SECRET_KEY.startswith("django-insecure-")):
    raise ImproperlyConfigured("SECRET_KEY is a development key: set a secret key of the site's own when DEBUG is off.")
SECRET_KEY = SECRET_KEY or DEVELOPMENT_SECRET_KEY

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",  # first, so that `runserver` serves the ASGI application
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "accounts",
    "games",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "threethirteen_site.csp.SiteCSPMiddleware",  # Content-Security-Policy (see its block below)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A log-out or password change while the session cache is down: "try again" before anything is written.
    "threethirteen_site.sessions.SessionCacheMustAnswer",
    "accounts.middleware.UserLanguageMiddleware",
    "accounts.middleware.UserTimeZoneMiddleware",  # the reader's time zone (profile, else browser cookie)
    "accounts.middleware.KnownDeviceMiddleware",  # a log-in makes the browser known to the account
    "threethirteen_site.middleware.RejectNulBytesMiddleware",  # a NUL byte is a 400 page (PostgreSQL refuses it)
    "django.contrib.messages.middleware.MessageMiddleware",
    # A GET of a button's address: a page, not a blank 405 (inside the messages: the page shows them, once).
    "threethirteen_site.middleware.NotAllowedPageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "threethirteen_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.turns_waiting",
            ],
        },
    },
]

WSGI_APPLICATION = "threethirteen_site.wsgi.application"
ASGI_APPLICATION = "threethirteen_site.asgi.application"

# A production process (DEBUG off) never falls back to the laptop's SQLite file: run without the site's
# environment (a bare `manage.py createsuperuser` on the server), it would quietly write to db.sqlite3 in
# the checkout, where the site never looks.  SQLite on purpose: DATABASE_URL=sqlite:///path.
if not DEBUG and not os.environ.get("DATABASE_URL", "").strip():
    raise ImproperlyConfigured(
        "DEBUG is off but DATABASE_URL is not set: refusing to use the SQLite file in the checkout instead of the "
        "site's database. Run manage.py with the site's environment (deploy/manage loads /etc/threethirteen/env), "
        "or set DATABASE_URL=sqlite:///path/to/file to choose SQLite on purpose."
    )
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
        # A kept connection is checked before a request uses it: one the database dropped meanwhile
        # (a restart) is replaced instead of failing the request.  A connection lost during a
        # request fails that request with a "try again" page (503, threethirteen_site/errors.py).
        conn_health_checks=True,
    )
}

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Take SQLite's write lock when a transaction starts: a move's read of the
    # version and its write then run one at a time instead of failing with
    # "database is locked" when two requests race (select_for_update is a
    # no-op on SQLite).
    DATABASES["default"].setdefault("OPTIONS", {}).update({"transaction_mode": "IMMEDIATE", "timeout": 20})
    # Tests use a file too: an in-memory database shared between threads
    # locks whole tables and never waits, unlike the real thing.  One file per
    # process, outside the work tree, so test runs side by side never meet.
    DATABASES["default"].setdefault("TEST", {}).setdefault(
        "NAME", os.path.join(tempfile.gettempdir(), f"threethirteen-test-{os.getpid()}.sqlite3")
    )

if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool("DATABASE_POOL", True):
    # A pool of open connections per server process (psycopg_pool), instead of a new connection
    # (a new PostgreSQL backend process) for every request.  Each request still takes a
    # connection at its first query and gives it back when it ends, so CONN_MAX_AGE must be 0
    # (Django refuses a pool with persistent connections); DATABASE_POOL=0 goes back to them.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": int(os.environ.get("DATABASE_POOL_MIN_SIZE", "2")),
        "max_size": int(os.environ.get("DATABASE_POOL_MAX_SIZE", "20")),
        "timeout": float(os.environ.get("DATABASE_POOL_TIMEOUT", "10")),
    }

#: Each HTTP request runs its middleware and view in one call on a pool of this many threads per server
#: process (``threethirteen_site/http.py``); each thread holds at most one database connection at a time.
#: Few: the threads share one interpreter lock with the event loop that carries the sockets, and at 200
#: games a move reached the other page at p95 80-151 ms with 2 or 4 threads, 310-1,354 ms with 16.
HTTP_THREADS = int(os.environ.get("HTTP_THREADS", "4"))

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    from threethirteen_site.redis_layer import redis_host

    # channels_redis with a socket timeout longer than its blocking read and a pool that waits for a
    # free connection: idle sockets stay open, bursts of connects queue (threethirteen_site/redis_layer.py).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "threethirteen_site.redis_layer.RedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    redis_host(
                        REDIS_URL,
                        socket_timeout=float(os.environ.get("REDIS_SOCKET_TIMEOUT", "15")),
                        max_connections=int(os.environ.get("REDIS_MAX_CONNECTIONS", "100")),
                    )
                ]
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "games:lobby"
LOGOUT_REDIRECT_URL = "games:lobby"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# -- Throttling of log-ins, password resets and sign-ups (accounts/throttle.py) -------------------
# django-axes counts failed log-ins (every authenticate(), the admin's too) in the database: after
# AXES_FAILURE_LIMIT failures for one account, or from one address, tries are refused until
# AXES_COOLOFF_TIME has passed since the last failure.  django-ratelimit counts reset and sign-up
# requests in the cache ("5/15m": five per fifteen minutes).
INSTALLED_APPS += ["axes", "django_ratelimit"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]  # last: it turns a lockout into the 429 page
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses locked-out tries before any password check
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
# Either one locks, per account and per address; a browser the account logged in on, per address alone.
AXES_LOCKOUT_PARAMETERS = "accounts.throttle.lockout_parameters"
AXES_RESET_ON_SUCCESS = False  # a success must not give an address its tries back
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # the cool-off ends when it says it does
AXES_USERNAME_CALLABLE = "accounts.throttle.axes_username"
AXES_CLIENT_IP_CALLABLE = "accounts.throttle.client_ip"
AXES_LOCKOUT_CALLABLE = "accounts.throttle.lockout_response"
# Not in the admin: unlock by hand with `manage.py axes_reset_username name` (the name in lower case,
# as accounts.throttle.axes_username records it) or `manage.py axes_reset_ip ADDRESS`.
AXES_ENABLE_ADMIN = False
# No row for every log-in (the address and the browser, kept for ever, read by nothing): the lock counts failures.
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False  # no start-up banner
THROTTLE_PASSWORD_RESET_PER_IP = os.environ.get("THROTTLE_PASSWORD_RESET_PER_IP", "5/15m")
THROTTLE_PASSWORD_RESET_PER_EMAIL = os.environ.get("THROTTLE_PASSWORD_RESET_PER_EMAIL", "3/h")
THROTTLE_SIGNUP_PER_IP = os.environ.get("THROTTLE_SIGNUP_PER_IP", "10/h")
# Behind a reverse proxy, REMOTE_ADDR is the proxy's: name the header it writes the client's address
# in (CLIENT_IP_HEADER=X-Forwarded-For or X-Real-IP) and how many proxies of yours append to it.
CLIENT_IP_HEADER = os.environ.get("CLIENT_IP_HEADER", "REMOTE_ADDR").strip().upper().replace("-", "_")
if CLIENT_IP_HEADER != "REMOTE_ADDR" and not CLIENT_IP_HEADER.startswith("HTTP_"):
    CLIENT_IP_HEADER = f"HTTP_{CLIENT_IP_HEADER}"
CLIENT_IP_PROXY_COUNT = int(os.environ.get("CLIENT_IP_PROXY_COUNT", "1"))
# The counts of django-ratelimit live in the cache: shared through Redis when the site runs several
# processes (REDIS_URL, as for the channel layer), else in this process's memory.
# (Django's Redis cache increments atomically, though django-ratelimit only knows django-redis by name.)
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.W001"]
if REDIS_URL:
    from threethirteen_site.redis_cache import cache_settings

    # One pool of connections per process (Django's own would open a connection per request).
    CACHES = {
        "default": cache_settings(
            REDIS_URL,
            timeout=float(os.environ.get("REDIS_CACHE_TIMEOUT", "2")),
            max_connections=int(os.environ.get("REDIS_MAX_CONNECTIONS", "100")),
        )
    }
    # Sessions are read from the shared cache, the database keeping them (threethirteen_site/sessions.py):
    # a signed-in request's first query saved.  Only with a cache every process shares.
    SESSION_ENGINE = "threethirteen_site.sessions"
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    SESSION_ENGINE = "threethirteen_site.sessions_db"
    # One process, one memory: the limits hold (several processes need REDIS_URL anyway).
    SILENCED_SYSTEM_CHECKS += ["django_ratelimit.E003"]

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("hr", _("Croatian")),
    ("af", _("Afrikaans")),
    ("cs", _("Czech")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
#: Date and number formats for languages Django has none for (Afrikaans).
FORMAT_MODULE_PATH = ["threethirteen_site.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Where `manage.py collectstatic` puts the static files, for the proxy to serve (deploy/nginx).
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", "").strip() or BASE_DIR / "staticfiles")
if not DEBUG:
    # In production the static files' names carry a hash of their content ("site.3f2a9c1b7e4d.css",
    # written by collectstatic with a manifest the pages' links are taken from), so that the proxy
    # can let browsers keep them for good: a changed file is a new name (threethirteen_site/static.py;
    # without the manifest, pages link the plain names and `manage.py check --deploy` says so).
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "threethirteen_site.static.HashedStaticFilesStorage"},
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# E-mail: printed on the console unless a backend is configured.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
# The move clock sends the turn e-mails between its passes' timeouts: never wait for ever on a mail
# server (Django's default is no timeout at all; tests/web/test_notice_faults.py).
EMAIL_TIMEOUT = float(os.environ.get("EMAIL_TIMEOUT", "10"))
# The site's address as people reach it, for links in e-mails.
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")
# A "your turn" notice waits this long and goes out only if the turn is still the person's
# (games/services/notices.py): a game over days played at the table sends no message a move.
TURN_NOTICE_DELAY_SECONDS = max(0, int(os.environ.get("TURN_NOTICE_DELAY_SECONDS", "300")))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Three Thirteen <noreply@localhost>")

# -- Web Push turn notices (accounts/push.py, games/services/push.py) -------------------------
# Off, and invisible (no profile control, no service worker, no sends), unless both keys are set.
# The keys are base64url as `manage.py vapid_keys` prints them: the public one is the uncompressed
# P-256 point browsers take as applicationServerKey, the private one its 32-byte scalar.
VAPID_PUBLIC_KEY = os.environ.get("VAPID_PUBLIC_KEY", "").strip()
VAPID_PRIVATE_KEY = os.environ.get("VAPID_PRIVATE_KEY", "").strip()
# Who the push services may write to about this site's notices (RFC 8292 "sub").
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", "").strip() or "mailto:" + (
    DEFAULT_FROM_EMAIL.rsplit("<", 1)[-1].rstrip(">").strip() or "noreply@localhost"
)
# A subscription's endpoint must be https on one of these hosts or a subdomain of one (the push
# services of Chrome/Edge/Opera/Samsung, Firefox, Safari and Windows): the server posts to it, so
# it must not be an address of the server's own network.
PUSH_SERVICE_HOSTS = env_list(
    "PUSH_SERVICE_HOSTS",
    ["fcm.googleapis.com", "push.services.mozilla.com", "push.apple.com", "notify.windows.com"],
)
# Tests only: also accept http endpoints on the loopback address (a local stand-in push service).
PUSH_ALLOW_LOOPBACK = False

# Time away (games.services.away): days per calendar year (UTC) during which a player's clocks in
# games over days stop.
AWAY_DAYS_PER_YEAR = int(os.environ.get("AWAY_DAYS_PER_YEAR", "14"))

# Analyses of finished games (games.services.analysis) are worked through by the move clock, a few
# decisions per pass: this many seconds per pass (unset: 0.5 in the server process, whose requests
# share its interpreter, and 2 for manage.py gameclock); 0 leaves the analysis to manage.py analyse.
ANALYSIS_SECONDS_PER_PASS = os.environ.get("ANALYSIS_SECONDS_PER_PASS", "").strip()

# Behind the proxy, the header in which it says that the browser came over HTTPS (deploy/nginx writes
# X-Forwarded-Proto): without it Django takes every request for plain HTTP, and with DEBUG on behind the proxy
# every form failed its CSRF origin check.  Its own setting, not DEBUG's: on by default only with DEBUG off;
# SECURE_PROXY_SSL_HEADER=0 (or empty) for a server that browsers reach without a proxy.
_proxy_ssl_header = os.environ.get("SECURE_PROXY_SSL_HEADER", "X-Forwarded-Proto" if not DEBUG else "").strip()
if _proxy_ssl_header.lower() not in ("", "0", "off", "no", "false", "none"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_ssl_header.upper().replace("-", "_"), "https")

# Production hardening: on whenever DEBUG is off (each can be overridden).
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    # A monitor on the server may ask a process for /healthz over plain HTTP (threethirteen_site/health.py).
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"

# -- Content-Security-Policy (django-csp) ---------------------------------------
# Scripts and styles come from this site's own static files only: no inline <script>, no
# on*= handler, no javascript: URL and no style= attribute in any template (a test scans them
# all), so neither needs 'unsafe-inline' nor a nonce.  Django's admin works under this
# policy as it is (its scripts are files and read their data from data- attributes).
# connect-src: fetch of the table and the WebSockets of this host; the middleware adds
# ws://host and wss://host for browsers that do not count them as 'self' (see
# threethirteen_site/csp.py).  img-src: no data: (nothing here uses data: images).
# frame-ancestors 'none' is the header form of X-Frame-Options DENY (both are sent).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# Warnings and errors of everything go to the console; the apps' own loggers (``games.*``,
# ``accounts.*``: game finishes, timeouts, moderation) also at INFO.  Their records reach the
# console through the root handler, so each line is written once.
APP_LOG_LEVEL = os.environ.get("APP_LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"}},
    "filters": {"quiet_security": {"()": "threethirteen_site.logs.QuietSecurityRecords"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
        "security": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["quiet_security"]},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        "games": {"level": APP_LOG_LEVEL},
        # A request refused as suspicious: one line (QuietSecurityRecords), not an ERROR with a traceback.
        "django.security": {"handlers": ["security"], "level": "WARNING", "propagate": False},
        "accounts": {"level": APP_LOG_LEVEL},
        # runserver (daphne) logs each request here: once, in our format (not again through "django"'s handler).
        "django.channels.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # A deployed server process (the daphne command) says where it listens and what it stopped: an operator
        # saw nothing in the journal between a start and the first warning.
        "daphne.server": {"level": "INFO"},
        "daphne.cli": {"level": "INFO"},
    },
}
