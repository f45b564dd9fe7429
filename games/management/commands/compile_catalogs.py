"""Compile the message catalogs to ``.mo`` files, without GNU gettext (threethirteen_site.catalogs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from threethirteen_site.catalogs import compile_catalogs


class Command(BaseCommand):
    help = "Compile every locale/*/LC_MESSAGES/*.po whose .mo is missing or older (pure Python: no msgfmt needed)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true", help="Compile every catalog, even the up-to-date ones.")

    def handle(self, *args: Any, **options: Any) -> None:
        written = compile_catalogs([Path(p) for p in settings.LOCALE_PATHS], force=options["force"])
        if options["verbosity"] >= 1:
            for mo in written:
                self.stdout.write(f"compiled {mo}")
            self.stdout.write(f"{len(written)} catalog(s) compiled, the others were up to date.")
