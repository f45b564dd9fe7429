"""Compiling the message catalogs (``locale/*/LC_MESSAGES/*.po`` to ``.mo``) in pure Python.

Django reads compiled catalogs only.  ``manage.py compilemessages`` needs GNU gettext's
``msgfmt``, a system tool a fresh machine may lack; polib (a dependency, installed by
``make install``) writes the same files.  The ``.mo`` files are build products (git-ignored):
``make run`` and ``make test`` compile the ones older than their ``.po`` (``manage.py
compile_catalogs``), and the test session does too, so a plain ``pytest`` sees fresh catalogs.

Like ``msgfmt``, fuzzy and obsolete entries are left out: a fuzzy guess is never shown.
No Django import here (``make test-fast`` runs without Django).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import polib

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"


def catalogs(locale_dirs: Iterable[Path] = (LOCALE_DIR,)) -> list[Path]:
    """Every ``.po`` file under the locale directories, sorted."""
    return sorted(po for root in locale_dirs for po in Path(root).glob("*/LC_MESSAGES/*.po"))


def is_stale(po: Path) -> bool:
    mo = po.with_suffix(".mo")
    return not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime


def compile_catalog(po: Path) -> Path:
    """Write ``po``'s ``.mo`` beside it (atomically: a reader never sees half a file)."""
    mo = po.with_suffix(".mo")
    handle, temporary = tempfile.mkstemp(dir=po.parent, prefix=".", suffix=".mo.tmp")
    os.close(handle)
    try:
        polib.pofile(str(po)).save_as_mofile(temporary)
        os.chmod(temporary, 0o644)
        os.replace(temporary, mo)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return mo


def compile_catalogs(locale_dirs: Iterable[Path] = (LOCALE_DIR,), *, force: bool = False) -> list[Path]:
    """Compile every catalog whose ``.mo`` is missing or older than its ``.po``; the ``.mo`` files written."""
    return [compile_catalog(po) for po in catalogs(locale_dirs) if force or is_stale(po)]
