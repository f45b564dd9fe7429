"""Where a table page's time goes, part by part, in one process; prints figures, never fails.

    python bench/table_parts.py [--repeat 300]

Builds a throwaway SQLite database in a temporary directory, deals a classic
game to Ann and Bob, and times, as Ann sees it (each the mean of ``--repeat``
calls after one to warm up): reading the table (``selectors.game_table``), the
chat beside it (``chat_selectors.chat_panel``), rendering ``table.html`` and its
parts, the site's base template around an empty page, the header's count of
games waiting, and Django's template tags the pages use most, then the two
views whole (the page and the partial that live updates fetch).  This is
Django's own cost, without a server or PostgreSQL: ``bench/throughput.py``
measures the served pages.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench.throwaway import django_on_a_throwaway_database  # noqa: E402

django_on_a_throwaway_database(GAMECLOCK_IN_SERVER="0")

from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.template import engines  # noqa: E402
from django.template.loader import get_template  # noqa: E402
from django.test import RequestFactory  # noqa: E402

from games import chat_selectors, context_processors, selectors, services, views  # noqa: E402
from games.models import Variant  # noqa: E402


def timed(label: str, call: Callable[[], Any], repeat: int) -> None:
    call()
    start = time.perf_counter()
    for _ in range(repeat):
        call()
    print(f"{label:<44} {(time.perf_counter() - start) / repeat * 1000:7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=300)
    repeat = parser.parse_args().repeat

    call_command("migrate", verbosity=0)
    User = get_user_model()
    ann = User.objects.create_user(username="ann", password="a-long-pass-phrase-42")
    bob = User.objects.create_user(username="bob", password="a-long-pass-phrase-42")
    game = services.game_create(
        creator=ann, variant=Variant.objects.get(slug="classic"), seat_count=2, invitees=[bob], seed=3
    )
    request = RequestFactory().get(f"/games/{game.pk}/")
    request.user, request.session = ann, SessionStore()

    context = selectors.game_table(game=game, user=ann, sort="suit", hand_view="own")
    context["chat"] = chat_selectors.chat_panel(game=game, user=ann, seated_ids=context["seated_ids"])
    django_engine = engines["django"]
    base_only = django_engine.from_string('{% extends "base.html" %}{% block content %}{% endblock %}')
    translates = django_engine.from_string("{% load i18n %}" + '{% translate "Lobby" %}' * 100)
    urls = django_engine.from_string('{% url "games:lobby" %}' * 20)

    print(f"The table page of a classic game in play, as a player sees it; the mean of {repeat} calls:")
    timed("reading the table (game_table)", lambda: selectors.game_table(game=game, user=ann), repeat)
    timed(
        "the chat beside it (chat_panel)",
        lambda: chat_selectors.chat_panel(game=game, user=ann, seated_ids=context["seated_ids"]),
        repeat,
    )
    timed("rendering table.html", lambda: get_template("games/table.html").render(context, request), repeat)
    timed("  of it: _table.html", lambda: get_template("games/_table.html").render(context, request), repeat)
    timed("  of it: _chat.html", lambda: get_template("games/_chat.html").render(context, request), repeat)
    timed("  of it: base.html around an empty page", lambda: base_only.render({}, request), repeat)
    timed(
        "    of it: the header's games-waiting count",
        lambda: context_processors.turns_waiting(request)["turns_waiting"](),
        repeat,
    )
    timed("100 {% translate %}", lambda: translates.render({}, request), repeat)
    timed("20 {% url %}", lambda: urls.render({}, request), repeat)
    timed("the page's view, whole", lambda: views.table(request, game.pk), repeat)
    timed("the partial's view, whole (live updates)", lambda: views.table_partial(request, game.pk), repeat)


if __name__ == "__main__":
    main()
