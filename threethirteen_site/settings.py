"""Settings of the Three Thirteen site.

Everything that differs between a laptop and a server comes from environment
variables, with development defaults that need no set-up (SQLite, the
in-memory channel layer, e-mail printed on the console):

- ``DEBUG`` ("1"/"0", default "1")
- ``SECRET_KEY`` (required when ``DEBUG`` is off)
- ``ALLOWED_HOSTS`` (comma-separated; default localhost names)
- ``CSRF_TRUSTED_ORIGINS`` (comma-separated origins, optional)
- ``DATABASE_URL`` (e.g. ``postgres://user:pass@host/db``; default SQLite)
- ``REDIS_URL`` (channel layer shared by several server processes)
- ``EMAIL_BACKEND``, ``EMAIL_HOST``, ``EMAIL_PORT``, ``EMAIL_HOST_USER``,
  ``EMAIL_HOST_PASSWORD``, ``EMAIL_USE_TLS``, ``DEFAULT_FROM_EMAIL``
- ``SITE_URL`` (the site's address, for links in e-mails)
- ``SECURE_SSL_REDIRECT``, ``SECURE_HSTS_SECONDS`` (production only)
"""

from __future__ import annotations

import os
import tempfile
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

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("Set SECRET_KEY when DEBUG is off.")
    SECRET_KEY = "django-insecure-development-only-key-do-not-use-in-production"

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
    "accounts.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
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

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
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

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
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

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("hr", _("Croatian")),
    ("af", _("Afrikaans")),
    ("cs", _("Czech")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# E-mail: printed on the console unless a backend is configured.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
# The site's address as people reach it, for links in e-mails.
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Three Thirteen <noreply@localhost>")

# Production hardening: on whenever DEBUG is off (each can be overridden).
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
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
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        "games": {"level": APP_LOG_LEVEL},
        "accounts": {"level": APP_LOG_LEVEL},
    },
}
