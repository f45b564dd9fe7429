from typing import Any

from django.core.management.base import BaseCommand

from games.engine import PRESETS
from games.models import Variant


class Command(BaseCommand):
    help = "Create the built-in variants from the engine's presets that are missing (staff edits are kept)."

    def handle(self, *args: Any, **options: Any) -> None:
        for position, (slug, (name, rules)) in enumerate(PRESETS.items()):
            _, created = Variant.objects.get_or_create(
                slug=slug, defaults={"name": name, "options": rules.to_dict(), "position": position}
            )
            self.stdout.write(f"{'created' if created else 'kept'} {slug}")
