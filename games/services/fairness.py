"""Provably fair shuffles, the database side (the scheme itself is ``games.engine.shuffle``).

A new game gets a fresh 256-bit server seed from ``secrets`` and shows its
SHA-256 commitment from the moment it exists; the seed stays secret (no
page, partial, JSON or live message, nor the admin, shows it) until the game
is finished.  Each seat adds a public contribution: the text a person types
when creating or joining, or 16 random hex digits when they type none; a
bot's seat, and anyone seated without being asked (invitees), gets random
ones when the seat is filled (a bot taking a seat at the start: at the
deal).  The contributions are fixed when the cards are dealt.

What the scheme proves, and what it does not (decisions written down):

* Every shuffle of the game (each deal, each rebuilt stock) was fixed by the
  committed seed before the first card was dealt: the server cannot stack a
  later round or a rebuild while the game is played.
* A contribution typed by a person *after* the commitment was shown (joining
  an open game) also keeps the server from choosing a seed that favours
  anyone, since it could not know that text when it drew the seed.  Random
  contributions made by the server add nothing against a dishonest server:
  in a game dealt at once (every seat filled at creation, a rematch with
  only bots beside its asker) the
  guarantee rests on the server drawing its seed from ``secrets``, as the
  code shows.
* The seed of a game called off after its first deal is revealed, as a
  finished game's is: it will never be played again, and its players may
  check the deals they played (a moderator's abort must not hide a stacked
  deal).  A game called off before its first deal has nothing to check, and
  its seed stays secret.

So every seat records who wrote its contribution and when it was fixed
(``Seat.Contribution``): the site's random ones are marked as such for good,
and :func:`protecting_seats` names the contributions that keep the site from
choosing the deals — typed by a player after the commitment was shown *and*
after every contribution the site made up (a site that made up the last one
could try text after text until the deals suited it).  The table and the record say which,
or that there were none.  The site makes a bot's or an invitee's random
contribution when the seat is filled (at the game's creation), not at the
deal, so that a player joining later types after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.utils import timezone
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
from games.models import Game, Seat

from .errors import GameError

__all__ = [
    "new_game_shuffle_fields",
    "clean_contribution",
    "typed_or_site_contribution",
    "site_contribution",
    "protecting_seats",
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


def site_contribution(at: datetime) -> dict[str, Any]:
    """A seat's contribution fields for random text the site makes up, marked as the site's for good."""
    return {
        "seed_contribution": random_contribution(),
        "seed_contribution_source": Seat.Contribution.SITE,
        "seed_contribution_at": at,
    }


def typed_or_site_contribution(text: Any, *, source: Seat.Contribution, at: datetime) -> dict[str, Any]:
    """A seat's contribution fields: the text a person typed, as ``source``, or the site's when they typed none.

    ``source`` is ``CREATOR`` for the creator's text (sent with the request
    that draws the seed, so the site knew it) and ``PLAYER`` for the text of
    a person taking a seat after the commitment was shown.
    """
    typed = clean_contribution(text)
    if not typed:
        return site_contribution(at)
    return {"seed_contribution": typed, "seed_contribution_source": source, "seed_contribution_at": at}


def protecting_seats(seats: Sequence[Seat]) -> list[Seat]:
    """The seats whose contribution kept the site from choosing the deals (none: the site could have).

    Those typed by a player after the commitment was shown, and after every
    contribution the site made up: the site could not know that text when
    it fixed its seed, nor change anything of its own afterwards.  A creator's
    text does not count (it came with the request that drew the seed).
    """
    site_times = [
        s.seed_contribution_at
        for s in seats
        if s.seed_contribution_source == Seat.Contribution.SITE and s.seed_contribution_at is not None
    ]
    last_site = max(site_times, default=None)
    return [
        s
        for s in seats
        if s.seed_contribution_source == Seat.Contribution.PLAYER
        and s.seed_contribution_at is not None
        and (last_site is None or s.seed_contribution_at > last_site)
    ]


def shuffle_at_deal(game: Game) -> Shuffle:
    """The game's shuffle, once every seat of a version-2 game has its contribution (fixed from now on).

    A seat still without one (a bot that took an open seat when the creator
    started the game) gets the site's random text now.
    """
    if game.shuffle_version == SHUFFLE_FAIR:
        now = timezone.now()
        for seat in game.seats.filter(seed_contribution="").order_by("position"):
            for name, value in site_contribution(now).items():
                setattr(seat, name, value)
            seat.save(update_fields=["seed_contribution", "seed_contribution_source", "seed_contribution_at"])
    return game.engine_shuffle()
