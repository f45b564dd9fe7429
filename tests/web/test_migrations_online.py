"""Migrations run while the code before them still serves (README, "Deploying"): a column they add must not
break that code's inserts, nor hold the table locked while PostgreSQL reads every row.

Checked for every migration after the ones deployed when this test was written (those are history)."""

from __future__ import annotations

import pytest
from django.db import models
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.operations import AddField

#: The last migration of each app deployed before this check (later ones must pass it).
CHECKED_AFTER = {"games": "0019_analysis_explanations", "accounts": "0007_case_insensitive_names"}


#: Fields whose column carries a CHECK (``>= 0``).
CHECKED_FIELDS = (models.PositiveIntegerField, models.PositiveSmallIntegerField, models.PositiveBigIntegerField)


def added_columns() -> list[tuple[str, str, AddField]]:
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return [
        (app, name, operation)
        for (app, name), migration in sorted(loader.disk_migrations.items())
        if app in CHECKED_AFTER and name > CHECKED_AFTER[app]
        for operation in migration.operations
        if isinstance(operation, AddField)
    ]


def problems(operation: AddField) -> list[str]:
    field = operation.field
    found = []
    if not (field.null or field.many_to_many or field.db_default is not models.NOT_PROVIDED):
        found.append("no default in the database (db_default=) and not null: the old code's inserts fail")
    if isinstance(field, CHECKED_FIELDS):
        found.append("a CHECK that PostgreSQL tests on every row while the table is locked")
    return found


def test_the_check_finds_a_column_the_old_code_cannot_insert_without():
    plain = AddField("game", "n", models.PositiveIntegerField(default=0))
    assert len(problems(plain)) == 2
    assert problems(AddField("game", "n", models.IntegerField(default=0, db_default=0))) == []
    assert problems(AddField("game", "n", models.CharField(max_length=5, null=True))) == []


@pytest.mark.parametrize("app, name, operation", added_columns(), ids=lambda v: getattr(v, "name", v))
def test_a_column_added_since_suits_the_code_still_serving(app, name, operation):
    assert problems(operation) == [], f"{app}.{name}: {operation.model_name}.{operation.name}"
