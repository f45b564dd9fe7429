"""Production's static files (``threethirteen_site/static.py``): hashed names once collected, plain names before.

With ``DEBUG`` off the pages link each static file by a name with a hash of
its content, which the proxy lets browsers keep for good; before
``collectstatic`` (no manifest) they link the plain names instead of failing.
That the proxy serves them with those caches is in ``tests/deploy``.
"""

from __future__ import annotations

import re
from pathlib import Path
from unittest import mock

import pytest
from django.core.management import call_command
from django.templatetags.static import static
from django.test import Client

HASHED = {"BACKEND": "threethirteen_site.static.HashedStaticFilesStorage"}


@pytest.fixture
def production_static(settings, tmp_path: Path) -> Path:
    settings.DEBUG = False
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {**settings.STORAGES, "staticfiles": HASHED}
    return tmp_path


def stylesheet_link(page: str) -> str:
    found = re.search(r'<link rel="stylesheet" href="([^"]+)"', page)
    assert found is not None, "the page links no stylesheet"
    return found.group(1)


@pytest.mark.django_db
def test_before_collectstatic_pages_link_the_plain_names(production_static):
    assert static("games/site.css") == "/static/games/site.css"
    response = Client().get("/rules/")
    assert response.status_code == 200 and stylesheet_link(response.content.decode()) == "/static/games/site.css"


@pytest.mark.slow
@pytest.mark.django_db
def test_once_collected_pages_link_names_with_a_hash_of_the_content(production_static):
    assert static("games/site.css") == "/static/games/site.css"  # kept, until collectstatic writes a manifest
    call_command("collectstatic", interactive=False, verbosity=0)
    url = static("games/site.css")
    hashed = re.fullmatch(r"/static/games/site\.([0-9a-f]{12})\.css", url)
    assert hashed is not None, url
    assert (production_static / "games" / f"site.{hashed.group(1)}.css").is_file()
    assert (production_static / "staticfiles.json").is_file()
    response = Client().get("/rules/")
    assert response.status_code == 200 and stylesheet_link(response.content.decode()) == url


@pytest.mark.django_db
def test_each_address_is_worked_out_once_per_process(production_static):
    from django.contrib.staticfiles.storage import ManifestStaticFilesStorage, staticfiles_storage

    with mock.patch.object(ManifestStaticFilesStorage, "stored_name", side_effect=lambda name: name) as stored_name:
        first = [static("games/site.css"), static("games/live.js")]
        again = [static("games/site.css"), static("games/live.js")]
        assert again == first == ["/static/games/site.css", "/static/games/live.js"]
        assert stored_name.call_count == 2
        assert staticfiles_storage.url("games/site.css", force=True) == first[0]  # forced: worked out again
        assert stored_name.call_count == 3
