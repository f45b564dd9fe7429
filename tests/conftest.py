"""Session-wide test set-up, free of Django.

``make test-fast`` runs tests/engine and tests/bots with ``-p no:django``: the
rules and the bots are pure Python, and that run proves it (it fails if
anything imported Django).  When pytest-django is active (``make test``), the
Django set-up of ``tests/django_setup.py`` is registered as a plugin.

Markers (registered in pyproject.toml): ``browser`` on every test under
tests/browser and ``redis`` on the tests that start redis-server are set here
by folder and file; ``slow`` is set on each slow test where it is defined.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
MARKERS_BY_PATH = {
    HERE / "browser": "browser",
    HERE / "live" / "test_redis_processes.py": "redis",
    HERE / "live" / "test_redis_sockets.py": "redis",
    HERE / "live" / "test_redis_layer.py": "redis",
    HERE / "deploy" / "test_layout.py": "redis",  # the deployed layout: nginx, PostgreSQL, Redis, several servers
}


def pytest_configure(config: pytest.Config) -> None:
    # The ASGI application that tests drive in this process must not start the
    # in-server move clock (games.live.clock): it would play the tests' timeouts.
    # The served site of the browser tests turns it back on (tests/browser/conftest.py).
    os.environ.setdefault("GAMECLOCK_IN_SERVER", "0")
    if config.pluginmanager.has_plugin("django"):
        config.pluginmanager.import_plugin("tests.django_setup")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.path)).resolve()
        for where, marker in MARKERS_BY_PATH.items():
            if path == where or path.is_relative_to(where):
                item.add_marker(marker)


@pytest.fixture(autouse=True)
def _django_stays_out(request: pytest.FixtureRequest) -> Iterator[None]:
    """Without pytest-django, nothing may import Django: the engine and the bots stand alone."""
    yield
    if not request.config.pluginmanager.has_plugin("django"):
        assert "django" not in sys.modules, "Django was imported in a run without pytest-django (-p no:django)"


@pytest.fixture(autouse=True)
def _clock_remembers_no_outage() -> Iterator[None]:
    """The move clock's memory of its passes (``games.services.outage``) is its process's, and what it shares is
    in the cache: each test begins without a database outage, or a last pass, a test before it left there (before
    the test too: a test that put another memory in its place has it put back only after this ran)."""

    def forget() -> None:
        outage = sys.modules.get("games.services.outage")
        if outage is not None:
            outage.memory.forget()
            from django.core.cache import cache

            with contextlib.suppress(Exception):  # (a test's cache that is down: nothing was shared there)
                cache.delete(outage.SHARED_KEY)

    forget()
    yield
    forget()


@pytest.fixture(autouse=True)
def _after_answers_done() -> Iterator[None]:
    """A test that drove the site's ASGI application ends once the work left until after its answers (the
    bots' turns) has run, so that none of it runs into the next test's database."""
    yield
    asgi = sys.modules.get("threethirteen_site.asgi")
    if asgi is not None:
        asgi.django_asgi_app.after_executor.submit(lambda: None).result(timeout=120)  # one thread: in order
