"""Session-wide test set-up.

Transactional tests (live servers, WebSocket consumers, racing requests) end
by emptying every table, including what data migrations created: the
built-in variants and the "Moderators" group.  Django sends ``post_migrate``
after that flush: put them back then, so that the tests that run later find
the database as migrations left it, whatever the order.
"""

from __future__ import annotations

import importlib
import io
from typing import Any

from django.db.models.signals import post_migrate


def _reseed_after_flush(sender: Any, using: str = "default", **kwargs: Any) -> None:
    if getattr(sender, "name", None) != "games":
        return
    from django.contrib.auth.models import Group, Permission
    from django.core.management import call_command

    call_command("load_variants", stdout=io.StringIO())
    moderators = importlib.import_module("games.migrations.0005_moderators_group")
    group, _ = Group.objects.using(using).get_or_create(name=moderators.GROUP)
    for app_label, codename in moderators.PERMISSIONS:
        group.permissions.add(Permission.objects.using(using).get(content_type__app_label=app_label,
                                                                 codename=codename))


post_migrate.connect(_reseed_after_flush, dispatch_uid="tests-reseed-after-flush")
