"""The "Moderators" group: moderate games and users, look at variants, change none of them.

Only superusers change variants (the variant admin checks ``is_superuser``
as well, so granting ``change_variant`` to someone gives them nothing).
"""

from django.db import migrations

GROUP = "Moderators"
PERMISSIONS = [
    ("games", "view_game"),
    ("games", "view_seat"),
    ("games", "view_move"),
    ("games", "view_roundresult"),
    ("games", "view_variant"),
    ("games", "view_auditrecord"),
    ("games", "moderate_game"),
    ("games", "moderate_user"),
    ("accounts", "view_user"),
]


def create_group(apps, schema_editor):
    # Permissions are normally created after all migrations ran (post_migrate);
    # create them now so the group can hold them on a fresh database.
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    for app_label, codename in PERMISSIONS:
        group.permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("accounts", "0001_initial"),
        ("games", "0004_auditrecord"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
