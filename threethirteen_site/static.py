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
"""

from __future__ import annotations

from django.contrib.staticfiles.storage import ManifestStaticFilesStorage


class HashedStaticFilesStorage(ManifestStaticFilesStorage):
    manifest_strict = False

    def stored_name(self, name: str) -> str:
        try:
            return super().stored_name(name)
        except ValueError:  # not in the manifest, and not in STATIC_ROOT to hash it now
            return name
