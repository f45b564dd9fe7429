"""Rate every finished game that has no results yet, in the order the games ended.

Games that finish from now on are rated as they finish; this is for games
finished before ratings existed.  Running it twice changes nothing.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games.history.ratings import game_rate
from games.models import Game


class Command(BaseCommand):
    help = "Rate finished games that are not rated yet (in the order they ended)."

    def handle(self, *args: Any, **options: Any) -> None:
        pending = (
            Game.objects.filter(status=Game.Status.FINISHED, results__isnull=True)
            .order_by("finished_at", "pk")
            .values_list("pk", flat=True)
        )
        rated = sum(1 for game_id in list(pending) if game_rate(game_id=game_id))
        self.stdout.write(f"Rated {rated} game(s).")
