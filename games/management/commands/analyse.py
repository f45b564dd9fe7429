"""Analyse finished games now, in the foreground (the clock worker does it in the background, a slice a pass).

    python manage.py analyse GAME_ID [GAME_ID ...]   # these games (made if nobody asked yet)
    python manage.py analyse --waiting               # every analysis players asked for and not done

An analysis already done is left as it is; another worker holding one is
waited for.  Prints how long each game took.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import analysis, services
from games.models import Game, GameAnalysis


class Command(BaseCommand):
    help = "Analyse finished games move by move now (the move clock does it in the background otherwise)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_ids", nargs="*", type=int, help="the games to analyse")
        parser.add_argument("--waiting", action="store_true", help="every analysis asked for and not done yet")

    def handle(self, *args: Any, game_ids: list[int], waiting: bool, **options: Any) -> None:
        if waiting:
            game_ids = game_ids + list(
                GameAnalysis.objects.filter(
                    version=analysis.VERSION,
                    status__in=[GameAnalysis.Status.PENDING, GameAnalysis.Status.RUNNING],
                    game__status=Game.Status.FINISHED,
                )
                .order_by("requested_at")
                .values_list("game_id", flat=True)
            )
        if not game_ids:
            raise CommandError("name the games to analyse, or --waiting")
        for game_id in dict.fromkeys(game_ids):
            if not Game.objects.filter(pk=game_id).exists():
                raise CommandError(f"there is no game {game_id}")
            started = time.monotonic()
            try:
                job = services.analyse_game(game_id=game_id)
            except services.GameError as error:
                raise CommandError(f"game {game_id}: {error.message}") from None
            self.stdout.write(
                f"game {game_id}: analysis {job.status}, {job.decisions_done} decisions"
                f" in {time.monotonic() - started:.1f} s"
            )
