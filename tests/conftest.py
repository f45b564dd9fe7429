"""Session-wide test set-up.

Transactional tests (live servers, WebSocket consumers, racing requests) end
by emptying every table, the built-in variants that a data migration seeded
included.  Django sends ``post_migrate`` after that flush: put the variants
back then (what ``manage.py load_variants`` does), so that the tests that run
later find the database as migrations left it, whatever the order.
"""

from __future__ import annotations

import io
from typing import Any

from django.db.models.signals import post_migrate


def _reseed_variants(sender: Any, using: str = "default", **kwargs: Any) -> None:
    if getattr(sender, "name", None) != "games":
        return
    from django.core.management import call_command

    call_command("load_variants", stdout=io.StringIO())


post_migrate.connect(_reseed_variants, dispatch_uid="tests-reseed-variants-after-flush")
