"""The static files' storage in production: names with a hash of their content, and no page fails for one.

With ``DEBUG`` off, ``collectstatic`` writes each static file twice into
``STATIC_ROOT``, under its name and under a name with a hash of its content
("site.3f2a9c1b7e4d.css"), with a manifest (``staticfiles.json``) from which
the pages take the hashed names.  The proxy lets browsers keep those for good
(``deploy/nginx``): a changed file is a new name.

Django's ``ManifestStaticFilesStorage`` fails every page that links a file the
manifest does not know (the files not collected yet, or collected before the
file was added).  Here such a link falls back to the file's plain name, which
the proxy serves with a short cache, so a forgotten ``collectstatic`` costs
stale caching or missing styles, never a page; ``manage.py check --deploy``
reports the missing manifest (``threethirteen.E003``).

Each name's address is worked out once per process and kept: the manifest is
read when the process starts, so the answer does not change until
``collectstatic`` writes a new one (which forgets the kept addresses).  A page
links a dozen static files, and working each out again cost a page about as
much as a database query.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestStaticFilesStorage


class HashedStaticFilesStorage(ManifestStaticFilesStorage):
    manifest_strict = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The address of each name asked for, by (name, DEBUG): DEBUG links the plain names.
        self.urls: dict[tuple[str, bool], str] = {}

    def url(self, name: str, force: bool = False) -> str:  # type: ignore[override]  # (the stubs disagree)
        if force:
            return super().url(name, force)
        key = (name, settings.DEBUG)
        found = self.urls.get(key)
        if found is None:
            found = self.urls[key] = super().url(name)
        return found

    def post_process(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        self.urls.clear()
        yield from super().post_process(*args, **kwargs)
        self.urls.clear()

    def stored_name(self, name: str) -> str:
        try:
            return super().stored_name(name)
        except ValueError:  # not in the manifest, and not in STATIC_ROOT to hash it now
            return name
