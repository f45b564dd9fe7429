"""Provably fair shuffles, the database side (the scheme itself is ``games.engine.shuffle``).

A new game gets a fresh 256-bit server seed from ``secrets`` and shows its
SHA-256 commitment from the moment it exists; the seed stays secret (no
page, partial, JSON or live message, nor the admin, shows it) until the game
is finished.  Each seat adds a public contribution: the text a person types
when creating or joining, or 16 random hex digits when they type none; a
bot's seat, and anyone seated without being asked (invitees, a rematch),
gets random ones at the deal.  The contributions are fixed when the cards
are dealt.

What the scheme proves, and what it does not (decisions written down):

* Every shuffle of the game (each deal, each rebuilt stock) was fixed by the
  committed seed before the first card was dealt: the server cannot stack a
  later round or a rebuild while the game is played.
* A contribution typed by a person *after* the commitment was shown (joining
  an open game) also keeps the server from choosing a seed that favours
  anyone, since it could not know that text when it drew the seed.  Random
  contributions made by the server add nothing against a dishonest server:
  in a game dealt at once (every seat filled at creation, a rematch) the
  guarantee rests on the server drawing its seed from ``secrets``, as the
  code shows.
* The seed of an aborted game is never revealed: its hands were never shown
  either.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games.engine.shuffle import (
    MAX_CONTRIBUTION_LENGTH,
    SHUFFLE_FAIR,
    SHUFFLE_LEGACY,
    Shuffle,
    check_contribution,
    commitment,
    new_server_seed,
    random_contribution,
)
from games.models import Game

from .errors import GameError

__all__ = [
    "new_game_shuffle_fields",
    "clean_contribution",
    "contribution_or_random",
    "shuffle_at_deal",
]


def new_game_shuffle_fields(seed: int | None = None) -> dict[str, Any]:
    """The shuffle fields of a new ``Game``: version 2 with a fresh server seed and its commitment.

    A whole-number ``seed`` makes a version-1 game instead (the old scheme,
    deterministic: for tests and benches that replay known deals; no form
    or view passes one).
    """
    if seed is not None:
        return {"shuffle_version": SHUFFLE_LEGACY, "seed": seed}
    server_seed = new_server_seed()
    return {
        "shuffle_version": SHUFFLE_FAIR,
        "seed": None,
        "server_seed": server_seed.hex(),
        "seed_commitment": commitment(server_seed),
    }


def clean_contribution(text: Any) -> str:
    """A person's contribution with the spaces around it removed ('' for none); ``GameError`` if not allowed."""
    if text is None:
        return ""
    if isinstance(text, str):
        text = text.strip()
    try:
        return check_contribution(text)
    except ValueError:
        raise GameError(
            "bad_contribution",
            _("A seed contribution is at most %(count)s plain characters: letters A-Z, digits, spaces and punctuation.")
            % {"count": MAX_CONTRIBUTION_LENGTH},
        ) from None


def contribution_or_random(text: Any) -> str:
    """The person's contribution, or a random one when they gave none."""
    return clean_contribution(text) or random_contribution()


def shuffle_at_deal(game: Game) -> Shuffle:
    """The game's shuffle, once every seat of a version-2 game has its contribution (fixed from now on)."""
    if game.shuffle_version == SHUFFLE_FAIR:
        for seat in game.seats.filter(seed_contribution="").order_by("position"):
            seat.seed_contribution = random_contribution()
            seat.save(update_fields=["seed_contribution"])
    return game.engine_shuffle()
