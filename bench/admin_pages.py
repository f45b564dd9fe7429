"""Time the moderation pages of the admin on a whole game; prints figures, never passes or fails.

    python bench/admin_pages.py [--players 4] [--variant classic] [--repeat 5]

Builds a throw-away SQLite database in a temporary directory, plays a whole
game with bots in every seat (a moderator hands the creator's seat to a bot,
so the bots play it to the end), then fetches as a moderator, with Django's
test client: the game's admin page (seats, audit, round results and the
whole move log), the game list, the user's admin page, and a variant's change
page as a superuser.  Prints the median wall and CPU time of each page, its
database queries and its size.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="bench-admin-")
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "threethirteen_site.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from games import services
    from games.models import Variant

    call_command("migrate", verbosity=0)
    User = get_user_model()
    boss = User.objects.create_superuser("boss", "boss@example.com", "a-long-pass-phrase-42")
    mod = User.objects.create_user("mod", "mod@example.com", "a-long-pass-phrase-42", is_staff=True)
    mod.groups.add(Group.objects.get(name="Moderators"))
    ann = User.objects.create_user("ann", "ann@example.com", "a-long-pass-phrase-42")
    variant = Variant.objects.get(slug=args.variant)
    started = time.perf_counter()
    game = services.game_create(
        creator=ann, variant=variant, seat_count=args.players, bot_count=args.players - 1, seed=1
    )
    services.seat_hand_to_bot(game_id=game.pk, position=0, moderator=mod, reason="benchmark: bots play it out")
    game.refresh_from_db()
    print(
        f"game #{game.pk}: {variant.name}, {args.players} seats, {game.status}, {game.moves.count()} moves, "
        f"{game.round_results.count()} round results (played by bots in {time.perf_counter() - started:.1f} s)"
    )

    moderator, superuser = Client(), Client()
    moderator.force_login(mod)
    superuser.force_login(boss)
    pages = [
        (moderator, f"/admin/games/game/{game.pk}/change/"),
        (moderator, "/admin/games/game/"),
        (moderator, f"/admin/accounts/user/{ann.pk}/change/"),
        (superuser, f"/admin/games/variant/{variant.pk}/change/"),
    ]
    for client, url in pages:
        client.get(url)  # warm up templates and caches
        wall, cpu = [], []
        for _ in range(args.repeat):
            with CaptureQueriesContext(connection) as queries:
                w, c = time.perf_counter(), time.process_time()
                response = client.get(url)
                wall.append(time.perf_counter() - w)
                cpu.append(time.process_time() - c)
        print(
            f"{url:40} {response.status_code}  wall {statistics.median(wall) * 1000:6.0f} ms  "
            f"cpu {statistics.median(cpu) * 1000:6.0f} ms  {len(queries.captured_queries):3} queries  "
            f"{len(response.content) // 1024:4} KiB"
        )
    connection.close()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
