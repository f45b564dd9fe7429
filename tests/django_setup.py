"""Session-wide set-up for the tests that use Django (every folder but tests/engine and tests/bots).

``tests/conftest.py`` registers this module as a plugin only when pytest-django
is active, so that ``make test-fast`` (the engine and the bots, run with
``-p no:django``) never imports Django.

Transactional tests (live servers, WebSocket consumers, racing requests) end
by emptying every table, including what data migrations created: the
built-in variants and the "Moderators" group.  Django sends ``post_migrate``
after that flush: put them back then, so that the tests that run later find
the database as migrations left it, whatever the order.
"""

from __future__ import annotations

import importlib
import io
import pkgutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.db.models.signals import post_migrate


def _reseed_after_flush(sender: Any, using: str = "default", **kwargs: Any) -> None:
    if getattr(sender, "name", None) != "games":
        return
    from django.contrib.auth.models import Group, Permission
    from django.core.management import call_command

    call_command("load_variants", stdout=io.StringIO())
    # Every migration that gives the "Moderators" group permissions (0005 and those after it).
    for module_info in pkgutil.iter_modules(importlib.import_module("games.migrations").__path__):
        migration = importlib.import_module(f"games.migrations.{module_info.name}")
        if getattr(migration, "GROUP", None) != "Moderators":
            continue
        group, _ = Group.objects.using(using).get_or_create(name=migration.GROUP)
        for app_label, codename in migration.PERMISSIONS:
            permission = Permission.objects.using(using).get(content_type__app_label=app_label, codename=codename)
            group.permissions.add(permission)


post_migrate.connect(_reseed_after_flush, dispatch_uid="tests-reseed-after-flush")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile the message catalogs changed since their .mo (as `make test` does), so a plain pytest run
    shows the translations of the .po files as they are now (threethirteen_site/catalogs.py)."""
    from threethirteen_site.catalogs import compile_catalogs

    compile_catalogs()


# -- fixtures shared by every Django test folder ---------------------------------


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Throttle counts of sign-ups and password resets live in the cache: each test starts with none."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Each test starts in the site's default language: a request in another one (the test client runs the
    locale middleware in this thread) left it active, and a later test that formats numbers or words outside
    a request read them in Croatian (test_charts after test_stats)."""
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture
def make_user(django_user_model: Any) -> Callable[..., Any]:
    def make(username: str, password: str = "a-long-pass-phrase-42") -> Any:
        return django_user_model.objects.create_user(
            username=username, email=f"{username}@example.com", password=password
        )

    return make


@pytest.fixture
def classic(db: Any) -> Any:
    """The built-in classic variant (transactional tests get it too: the marker decides the kind of db)."""
    from django.core.management import call_command

    from games.models import Variant

    if not Variant.objects.filter(slug="classic").exists():
        call_command("load_variants", stdout=io.StringIO())
    return Variant.objects.get(slug="classic")
