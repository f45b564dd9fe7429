"""Seed the Variant table with the engine's presets (idempotent: existing rows, maybe edited by staff, are kept)."""

from django.db import migrations


def seed_variants(apps, schema_editor):
    from games.engine import PRESETS

    Variant = apps.get_model("games", "Variant")
    for position, (slug, (name, rules)) in enumerate(PRESETS.items()):
        Variant.objects.get_or_create(
            slug=slug, defaults={"name": name, "options": rules.to_dict(), "position": position}
        )


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [migrations.RunPython(seed_variants, migrations.RunPython.noop)]
