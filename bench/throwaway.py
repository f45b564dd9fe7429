"""Django set up on a throwaway SQLite database, in a temporary directory removed at exit: for the benches that
time the site in their own process.  Call it before importing anything of the site."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile


def django_on_a_throwaway_database(**environ: str) -> None:
    """Point ``DATABASE_URL`` at a new SQLite file, set ``environ`` (e.g. ``GAMECLOCK_IN_SERVER="0"``) and
    ``django.setup()``; the database is not migrated."""
    directory = tempfile.mkdtemp(prefix="threethirteen-bench-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    os.environ["DATABASE_URL"] = f"sqlite:///{directory}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "threethirteen_site.settings")
    os.environ.update(environ)

    import django

    django.setup()
