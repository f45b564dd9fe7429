"""The "Moderators" group may read chat messages and reports and moderate chat
(hide a message, mute a user from chat, dismiss reports).

``tests/django_setup.py`` puts these back after a flush, like those of
``0005_moderators_group`` (it reads ``GROUP`` and ``PERMISSIONS`` of every
migration that has them).
"""

from django.db import migrations

GROUP = "Moderators"
PERMISSIONS = [
    ("games", "view_chatmessage"),
    ("games", "view_chatreport"),
    ("games", "view_chatsuspension"),
    ("games", "moderate_chat"),
]


def add_permissions(apps, schema_editor):
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


def remove_permissions(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=GROUP).first()
    if group is not None:
        for app_label, codename in PERMISSIONS:
            group.permissions.remove(*Permission.objects.filter(content_type__app_label=app_label, codename=codename))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0011_table_talk"),
    ]

    operations = [migrations.RunPython(add_permissions, remove_permissions)]
