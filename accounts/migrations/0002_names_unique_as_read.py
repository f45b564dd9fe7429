"""Names are unique as a reader sees them (accounts.names.name_key), and user names case-insensitively.

Adds the two key columns, fills them from the existing names, then makes them unique.  On a database
where two user names (or two display names) already look alike (e.g. "ann" and "Ann", or a Cyrillic
"аnn") it stops with the list of clashes instead of picking a winner: rename those users and migrate
again.  A display name that looks like another user's user name is left as it is (the database does
not compare across the two columns); the profile form asks its owner to change it at the next save.
"""

import django.db.models.functions.text
from django.db import migrations, models


def fill_keys(apps, schema_editor):
    from accounts.names import name_key

    User = apps.get_model("accounts", "User")
    owners: dict[tuple[str, str], int] = {}
    clashes = []
    for user in User.objects.order_by("pk").only("pk", "username", "display_name"):
        user.username_key = name_key(user.username)
        user.display_name_key = name_key(user.display_name)
        for field in ("username", "display_name"):
            key = getattr(user, f"{field}_key")
            if not key:
                continue
            owner = owners.setdefault((field, key), user.pk)
            if owner != user.pk:
                clashes.append(f"{field} {getattr(user, field)!r} of user {user.pk} looks like that of user {owner}")
        user.save(update_fields=["username_key", "display_name_key"])
    if clashes:
        raise RuntimeError("Rename the users whose names look alike, then migrate again: " + "; ".join(clashes))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_key",
            field=models.TextField(default="", editable=False),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="user",
            name="display_name_key",
            field=models.TextField(default="", editable=False),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="user",
            name="username_key",
            field=models.TextField(editable=False, unique=True),
        ),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("username"),
                name="accounts_user_username_ci_unique",
                violation_error_message="A user with that username already exists.",
            ),
        ),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                condition=models.Q(("display_name_key", ""), _negated=True),
                fields=("display_name_key",),
                name="accounts_user_display_name_key_unique",
                violation_error_message="That name is in use, or looks too much like a name in use: choose another.",
            ),
        ),
    ]
