"""Games, seats and the move log.

The ``Move`` rows are the truth: ``Game.state`` is a snapshot of the engine
state after the last move, kept for speed; replaying the moves from the
game's rule options and shuffle (``shuffle_version`` with ``seed``, or
``server_seed`` with the seats' contributions) gives the same snapshot (tested).  Every change
goes through ``games.services``.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

if TYPE_CHECKING:
    from games.engine.shuffle import Shuffle


#: The built-in variants' names (the engine's presets, in English) as people read them.  A variant
#: staff created or renamed shows its name as typed.
BUILT_IN_VARIANT_NAMES = {
    "Classic": _("Classic"),
    "One wild per meld, unused wilds 15": _("One wild per meld, unused wilds 15"),
    "Aces high or low": _("Aces high or low"),
    "Jokers": _("Jokers"),
    "Fourteens and fifteens": _("Fourteens and fifteens"),
    "Up and down (22 rounds)": _("Up and down (22 rounds)"),
    "Redemption": _("Redemption"),
    "Royal points 11-12-13": _("Royal points 11-12-13"),
    "Doubled royal rounds": _("Doubled royal rounds"),
}


def variant_label(name: str) -> str:
    """A variant's name in the reader's language (built-in names are translated, others shown as typed)."""
    label = BUILT_IN_VARIANT_NAMES.get(name)
    return str(label) if label is not None else name


class Variant(models.Model):
    """A named set of rule options (``Rules.to_dict()``), editable by staff.

    A game copies the options when it is created, so editing a variant never
    changes a game in progress.
    """

    slug = models.SlugField(_("slug"), unique=True)
    name = models.CharField(_("name"), max_length=80)
    description = models.TextField(_("description"), blank=True)
    options = models.JSONField(_("rule options"), default=dict)
    is_active = models.BooleanField(_("offered in the lobby"), default=True)
    position = models.PositiveIntegerField(_("order in lists"), default=0)

    class Meta:
        ordering = ("position", "name")
        verbose_name = _("variant")
        verbose_name_plural = _("variants")

    def __str__(self) -> str:
        return variant_label(self.name)

    def clean(self) -> None:
        """Refuse options the engine cannot play (the admin shows the engine's reason)."""
        from django.core.exceptions import ValidationError

        from games.engine import Rules, RulesError

        try:
            self.options = Rules.from_dict(self.options).to_dict()
        except RulesError as error:
            from games.services.rule_errors import describe_rules_error

            raise ValidationError({"options": describe_rules_error(error)}) from None


class BotLevel(models.TextChoices):
    EASY = "easy", _("easy")
    MEDIUM = "medium", _("medium")
    HARD = "hard", _("hard")
    EXPERT = "expert", _("expert")


class InvalidGameStatus(Exception):
    """A status change the pipeline of :attr:`Game.STATUS_PIPELINE` does not allow.

    A bug in the caller, not a refusal to show a person: the services check
    the status first and raise ``GameError`` themselves.
    """


class Game(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("waiting for players")
        ACTIVE = "active", _("in play")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    #: The statuses each status may move to (finished and aborted are for good).
    STATUS_PIPELINE: dict[str, frozenset[str]] = {
        Status.OPEN: frozenset({Status.ACTIVE, Status.ABORTED}),
        Status.ACTIVE: frozenset({Status.FINISHED, Status.ABORTED}),
        Status.FINISHED: frozenset(),
        Status.ABORTED: frozenset(),
    }

    LIVE_TIME_LIMITS = [
        (30, _("30 seconds")),
        (120, _("2 minutes")),
    ]
    ASYNC_TIME_LIMITS = [
        (12 * 3600, _("12 hours")),
        (24 * 3600, _("1 day")),
        (3 * 24 * 3600, _("3 days")),
        (7 * 24 * 3600, _("7 days")),
    ]
    TIME_LIMIT_CHOICES = [
        (_("Live"), LIVE_TIME_LIMITS),
        (_("Over days"), ASYNC_TIME_LIMITS),
    ]
    #: Limits of this length or more are asynchronous play: turn notices go by e-mail.
    ASYNC_MIN_SECONDS = 12 * 3600

    variant = models.ForeignKey(
        Variant, verbose_name=_("variant"), null=True, blank=True, on_delete=models.SET_NULL, related_name="games"
    )
    variant_name = models.CharField(_("variant name"), max_length=80)
    rules = models.JSONField(_("rule options"), help_text=_("Copied from the variant at creation."))
    #: How the cards are shuffled (``games.engine.shuffle``): 1 for games created
    #: before provably fair shuffles (``seed``), 2 since (``server_seed`` and the
    #: seats' ``seed_contribution``).  Never changes once the game exists.  The
    #: services create every new game as version 2; the default 1 is what rows
    #: written before version 2 existed hold.
    shuffle_version = models.PositiveSmallIntegerField(
        _("shuffle version"),
        default=1,
        choices=[(1, _("1: a secret whole-number seed")), (2, _("2: provably fair"))],
    )
    seed = models.BigIntegerField(
        _("seed"), null=True, blank=True, help_text=_("Shuffle version 1 only: secret, never shown.")
    )
    server_seed = models.CharField(
        _("server seed"),
        max_length=64,
        blank=True,
        help_text=_("Shuffle version 2: 256 bits in hex, secret until the game is over."),
    )
    seed_commitment = models.CharField(
        _("seed commitment"),
        max_length=64,
        blank=True,
        help_text=_("SHA-256 of the server seed in hex, shown from the moment the game exists."),
    )
    seat_count = models.PositiveSmallIntegerField(_("seats"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.OPEN)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="created_games",
    )
    time_limit_seconds = models.PositiveIntegerField(_("time limit per move (seconds)"), default=24 * 3600)
    coach = models.BooleanField(
        _("coach"), default=False, help_text=_("Show next to each card the penalty left if it is discarded.")
    )
    spectators_allowed = models.BooleanField(
        _("others may watch"),
        default=True,
        help_text=_("Signed-in people without a seat may follow the game live; they see only the public table."),
    )
    chat_enabled = models.BooleanField(
        _("table talk"),
        default=True,
        help_text=_("The players (and watchers, in a channel of their own) may post short messages at the table."),
    )
    version = models.PositiveIntegerField(
        _("version"), default=0, help_text=_("Goes up by one with every change of the game.")
    )
    # The last run of changes that only told the table of someone's time away (its start, its end) with
    # nothing played between them: from the version before its first to the version it left.  A move from
    # a page that saw any version of the run, while the run is the last change, is not stale.
    # A default in the database too, so that the code before them can still create games while the new one
    # is deployed; no CHECK (a PositiveIntegerField's), which PostgreSQL would test on every row under lock.
    notices_from_version = models.IntegerField(
        _("version before the last notices"), default=0, db_default=0, editable=False
    )
    notices_to_version = models.IntegerField(
        _("version after the last notices"), default=0, db_default=0, editable=False
    )
    state = models.JSONField(_("engine state"), null=True, blank=True)
    current_seat = models.PositiveSmallIntegerField(_("seat to play"), null=True, blank=True)
    turn_started_at = models.DateTimeField(_("turn started at"), null=True, blank=True)
    turn_number = models.PositiveIntegerField(
        _("turn number"), default=0, help_text=_("Goes up by one each time a turn is handed to the next seat.")
    )
    turn_deadline = models.DateTimeField(
        _("turn deadline"),
        null=True,
        blank=True,
        help_text=_("When a person's turn times out and the bot plays it (empty while a bot moves)."),
    )
    time_given_back_at = models.DateTimeField(
        _("time given back at"),
        null=True,
        blank=True,
        help_text=_("When the clock last gave a turn back the time that an outage of the site took from it."),
    )
    is_private = models.BooleanField(
        _("private"), default=False, help_text=_("Not listed in the lobby: people join through the invite link.")
    )
    invite_token = models.CharField(_("invite token"), max_length=40, blank=True)
    rematch_of = models.OneToOneField(
        "self", verbose_name=_("rematch of"), null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch"
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        ordering = ("-updated_at",)
        verbose_name = _("game")
        verbose_name_plural = _("games")
        indexes = [models.Index(fields=["status", "-updated_at"]), models.Index(fields=["status", "turn_deadline"])]
        constraints = [
            models.CheckConstraint(
                name="game_shuffle_has_its_seed",
                condition=Q(shuffle_version=1, seed__isnull=False)
                | (Q(shuffle_version=2, seed__isnull=True) & ~Q(server_seed="") & ~Q(seed_commitment="")),
            )
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.variant_label}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save as Django does; what was written is remembered as read (see :meth:`changed_fields`)."""
        super().save(*args, **kwargs)
        if self._loaded is not None:  # what was written is what the database holds now
            names = kwargs.get("update_fields")
            written = [f for f in self._meta.concrete_fields if names is None or f.name in names or f.attname in names]
            self._loaded.update({field.attname: getattr(self, field.attname) for field in written})

    def get_absolute_url(self) -> str:
        return reverse("games:table", args=[self.pk])

    #: The values of the concrete fields as read from the database (by attname), or as last saved.
    #: JSON fields (``state``, ``rules``) are compared by value: assign a new value, never change
    #: one in place (the services never do).
    _loaded: dict[str, Any] | None = None

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any) -> Game:
        """A game read from the database remembers the values it was read with (see :meth:`changed_fields`)."""
        game = super().from_db(db, field_names, values)
        game._loaded = dict(zip(field_names, values, strict=True))
        return game

    def refresh_from_db(self, *args: Any, **kwargs: Any) -> None:
        super().refresh_from_db(*args, **kwargs)
        self._loaded = None  # compared with nothing from now on: the next save_changes writes every field

    def changed_fields(self) -> list[str] | None:
        """The fields whose value differs from what was read, for ``save(update_fields=...)``, with
        ``updated_at``; ``None`` (save every field) for a game not read from the database, or read
        without every field."""
        loaded = self._loaded
        if loaded is None:
            return None
        changed = []
        for field in self._meta.concrete_fields:
            if field.attname not in loaded:
                return None  # read with .only() or .defer(): what was not read cannot be compared
            if getattr(self, field.attname) != loaded[field.attname]:
                changed.append(field.name)
        if "updated_at" not in changed:
            changed.append("updated_at")
        return changed

    def save_changes(self) -> None:
        """Write what changed since the game was read (every field for a new game).

        The engine state is the largest column by far: a change that played no move does not write it.
        """
        self.save(update_fields=self.changed_fields())

    def bump_for_notice(self) -> list[str]:
        """A new version that only tells the table of a moved deadline (someone's time away, or the time an outage
        took given back): it extends the run of such versions when it follows one, or begins one.  The fields to
        save (with ``updated_at``)."""
        if self.notices_to_version != self.version:
            self.notices_from_version = self.version
        self.version += 1
        self.notices_to_version = self.version
        return ["version", "notices_from_version", "notices_to_version", "updated_at"]

    def only_notices_since(self, version: int) -> bool:
        """Whether every change after ``version`` only told of a moved deadline: the table a page of that version
        showed is the table as it is (the clock's deadlines may have moved on), so a move from it is not stale."""
        return self.notices_to_version == self.version and self.notices_from_version <= version <= self.version

    @property
    def variant_label(self) -> str:
        """The variant's name in the reader's language (see :func:`variant_label`)."""
        return variant_label(self.variant_name)

    @property
    def is_open(self) -> bool:
        """Waiting for players: seats may be taken, nothing is dealt yet."""
        return self.status == self.Status.OPEN

    @property
    def in_play(self) -> bool:
        return self.status == self.Status.ACTIVE

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    @property
    def is_aborted(self) -> bool:
        """Called off by a moderator, or by the last person leaving before the start."""
        return self.status == self.Status.ABORTED

    @property
    def is_async(self) -> bool:
        """Played over days (turn notices by e-mail), as opposed to a live time limit."""
        return self.time_limit_seconds >= self.ASYNC_MIN_SECONDS

    def set_status(self, new_status: str, *, now: datetime.datetime | None = None) -> list[str]:
        """Move the game to ``new_status``, the one way its status changes.

        Raises :class:`InvalidGameStatus`, changing nothing, unless
        :attr:`STATUS_PIPELINE` allows the move.  Sets what goes with it: the
        start time when the game becomes active; the finish time, and no seat
        to play and no deadline, when it finishes or is aborted.  Returns the
        names of the fields it set (for ``save(update_fields=...)``); the
        caller saves.
        """
        if new_status not in self.STATUS_PIPELINE.get(self.status, frozenset()):
            raise InvalidGameStatus(f"game {self.pk}: the status cannot go from {self.status!r} to {new_status!r}")
        now = now or timezone.now()
        self.status = new_status
        if new_status == self.Status.ACTIVE:
            self.started_at = now
            return ["status", "started_at"]
        self.finished_at = now
        self.current_seat = None
        self.turn_deadline = None
        return ["status", "finished_at", "current_seat", "turn_deadline"]

    @property
    def is_provably_fair(self) -> bool:
        """Shuffled with shuffle version 2 (a committed server seed and the seats' contributions)."""
        return self.shuffle_version == 2

    @property
    def seed_revealed(self) -> bool:
        """Whether the server seed may be shown: once a version-2 game is over, finished or called off after
        its first deal (never in play; a game called off before it was dealt has nothing to check)."""
        if not self.is_provably_fair:
            return False
        return self.status == self.Status.FINISHED or (self.status == self.Status.ABORTED and self.state is not None)

    def engine_shuffle(self, contributions: Sequence[str] | None = None) -> Shuffle:
        """The engine's shuffle of this game: it holds the secret seed, for the engine only.

        ``contributions`` are the seats' in seat order (read from the seats when not given).
        """
        from games.engine.shuffle import FairShuffle, LegacyShuffle, seed_from_hex

        if not self.is_provably_fair:
            if self.seed is None:
                raise ValueError(f"game {self.pk}: shuffle version 1 without a seed")
            return LegacyShuffle(self.seed)
        if contributions is None:
            contributions = list(self.seats.order_by("position").values_list("seed_contribution", flat=True))
        return FairShuffle(seed_from_hex(self.server_seed), tuple(contributions))

    def invite_path(self) -> str:
        return reverse("games:invite", args=[self.pk, self.invite_token]) if self.invite_token else ""

    def time_limit_label(self) -> str:
        """ "1 day", "30 seconds"...: the choice's label (the choices are grouped, live and over days)."""
        labels = dict(self.LIVE_TIME_LIMITS + self.ASYNC_TIME_LIMITS)
        seconds = self.time_limit_seconds
        return str(
            labels.get(seconds) or ngettext("%(count)s second", "%(count)s seconds", seconds) % {"count": seconds}
        )


#: ``Seat.person_plays`` in a query: ``Seat.objects.filter(PERSON_PLAYS, ...)``.
PERSON_PLAYS = Q(user__isnull=False, bot_level="")


class Seat(models.Model):
    """A place at the table: a person, a bot, or (while the game is open) empty.

    ``bot_level`` set means a bot plays the seat.  ``user`` may be set as
    well: the person a bot has taken over from (after timeouts or a
    resignation), kept for history and standings.
    """

    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(_("position"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )
    #: An open seat held for a person invited by name: only they may take it (or a bot, when the game
    #: starts without them).  A person is never seated without taking the seat themselves.
    reserved_for = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("held for"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="held_seats",
    )
    #: Who held it (the table's creator, or the rematch's asker): the invitation names them while they sit there.
    reserved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("held by"),
        null=True,
        blank=True,
        editable=False,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    #: When the person the seat is held for was told of it (``notices``): once.
    invitation_sent_at = models.DateTimeField(_("invitation sent at"), null=True, blank=True, editable=False)
    bot_level = models.CharField(_("bot level"), max_length=10, choices=BotLevel.choices, blank=True)
    bot_name = models.CharField(_("bot name"), max_length=40, blank=True)
    seed_contribution = models.CharField(
        _("seed contribution"),
        max_length=64,
        blank=True,
        help_text=_("Public text mixed into every shuffle (shuffle version 2); fixed when the cards are dealt."),
    )

    class Contribution(models.TextChoices):
        """Who wrote a seat's seed contribution, and when: what it can prove (``games.services.fairness``)."""

        NONE = "", _("none yet")
        #: random text the site made for a seat whose player typed none (a bot, an invitee, a rematch)
        SITE = "site", _("made up by the site")
        #: typed by the creator in the request that drew the seed: the site knew it when it drew the seed
        CREATOR = "creator", _("typed when the game was created")
        #: typed by a person taking a seat, after the commitment was shown
        PLAYER = "player", _("typed after the commitment was shown")

    seed_contribution_source = models.CharField(
        _("seed contribution by"), max_length=10, choices=Contribution.choices, blank=True, default=""
    )
    seed_contribution_at = models.DateTimeField(_("seed contribution fixed at"), null=True, blank=True)

    class Left(models.TextChoices):
        STAYED = "", _("still playing")
        TIMED_OUT = "timed_out", _("left after timeouts")
        RESIGNED = "resigned", _("resigned")
        #: a moderator handed the seat to a bot (or deactivated the person): ranked below those who stayed, as
        #: one who left is (seats handed over before 2026-12-07 kept "")
        REMOVED = "removed", _("removed by a moderator")

    total_score = models.IntegerField(_("total score"), default=0)
    joined_at = models.DateTimeField(_("joined at"), null=True, blank=True)
    #: Timeouts in a row after which the bot keeps the seat and the person has left.
    TIMEOUTS_BEFORE_TAKEOVER = 3
    timeouts_in_row = models.PositiveSmallIntegerField(_("timeouts in a row"), default=0)
    left = models.CharField(_("left the game"), max_length=10, choices=Left.choices, blank=True, default="")
    left_at = models.DateTimeField(_("left at"), null=True, blank=True)
    summary_dismissed_round = models.PositiveSmallIntegerField(
        _("round summary dismissed"),
        default=0,
        help_text=_("The last round whose summary the player moved on from (0: none yet)."),
    )

    class Meta:
        ordering = ("game", "position")
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="seat_unique_position"),
            models.UniqueConstraint(fields=["game", "user"], condition=Q(user__isnull=False), name="seat_unique_user"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}:{self.position} {self.name}"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @staticmethod
    def bot_plays(seats: Iterable[Seat], position: int | None) -> bool:
        """Whether a bot plays the seat at ``position`` among ``seats`` (its turn has no clock: it is played
        after the answer to the move before)."""
        return position is not None and any(s.is_bot and s.position == position for s in seats)

    @property
    def has_left(self) -> bool:
        """The person resigned, timed out too often or was removed by a moderator: a bot plays the seat for good,
        and the person ranks below everyone who stayed."""
        return bool(self.left)

    @property
    def handed_over(self) -> bool:
        """A moderator handed the person's seat to a bot: they did not leave of their own accord (they are told
        the moderator's reason, and are not offered to resign)."""
        return self.is_bot and self.user_id is not None and self.left in (self.Left.STAYED, self.Left.REMOVED)

    @property
    def person_plays(self) -> bool:
        return self.user_id is not None and not self.bot_level

    @property
    def is_open(self) -> bool:
        return self.user_id is None and not self.bot_level

    def is_open_to(self, user_id: int | None) -> bool:
        """Whether the person ``user_id`` may take this seat: open, and held for nobody or for them
        (``services.game_join`` takes theirs first, else the first held for nobody)."""
        return self.is_open and self.reserved_for_id in (None, user_id)

    @property
    def name(self) -> str:
        if self.user is not None:
            return self.user.shown_name
        if self.bot_level:
            return self.bot_name or str(_("Bot"))
        if self.reserved_for is not None:
            return _("%(name)s (invited)") % {"name": self.reserved_for.shown_name}
        return str(_("open seat"))


class Move(models.Model):
    """One action of the append-only log: the source of truth of a game."""

    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField(_("sequence number"))
    seat = models.PositiveSmallIntegerField(_("seat"))
    action = models.JSONField(_("action"))
    by_bot = models.BooleanField(_("played by a bot"), default=False)
    events = models.JSONField(
        _("public events"), default=list, help_text=_("What everyone saw happen (the engine's events).")
    )
    round_number = models.PositiveSmallIntegerField(_("round"), default=1)
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        ordering = ("game", "seq")
        verbose_name = _("move")
        verbose_name_plural = _("moves")
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="move_unique_seq")]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} seat {self.seat}: {self.action}"


class RoundResult(models.Model):
    """How one seat ended one round: its best arrangement and the points."""

    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="round_results")
    round_number = models.PositiveSmallIntegerField(_("round"))
    seat = models.PositiveSmallIntegerField(_("seat"))
    hand_size = models.PositiveSmallIntegerField(_("hand size"))
    points = models.IntegerField(_("points"))
    went_out = models.BooleanField(_("went out"), default=False)
    melds = models.JSONField(_("melds"), default=list, help_text=_("Lists of card codes."))
    deadwood = models.JSONField(_("cards left over"), default=list)
    went_out_first = models.BooleanField(
        _("went out first"), default=False, help_text=_("This seat's going out ended the round.")
    )
    penalty = models.IntegerField(_("failed go-out penalty"), default=0)
    laid_off = models.JSONField(
        _("cards laid off"), default=list, help_text=_("Redemption: cards laid on melds on the table.")
    )

    class Meta:
        ordering = ("game", "round_number", "seat")
        verbose_name = _("round result")
        verbose_name_plural = _("round results")
        constraints = [models.UniqueConstraint(fields=["game", "round_number", "seat"], name="roundresult_unique_seat")]

    def __str__(self) -> str:
        return f"{self.game_id} round {self.round_number} seat {self.seat}: {self.points}"


class TurnNotice(models.Model):
    """An e-mail sent about one turn of one game; unique, so never sent twice."""

    class Kind(models.TextChoices):
        TURN = "turn", _("your turn")
        REMINDER = "reminder", _("reminder")

    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="notices")
    turn_number = models.PositiveIntegerField(_("turn number"))
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE, related_name="turn_notices"
    )
    sent_at = models.DateTimeField(_("sent at"))

    class Meta:
        ordering = ("game", "turn_number", "kind")
        verbose_name = _("turn notice")
        verbose_name_plural = _("turn notices")
        constraints = [models.UniqueConstraint(fields=["game", "turn_number", "kind"], name="turnnotice_once_per_turn")]

    def __str__(self) -> str:
        return f"{self.game_id} turn {self.turn_number} {self.kind} to {self.user_id}"


class InvitationNotice(models.Model):
    """An invitation told to a person (by e-mail or push): who held the seat for them, and when.

    At most one a day from one person to another (``notices.INVITATIONS_FROM_ONE_PERSON_EVERY``): a table
    left, called off and made again held a seat anew each time, and one account could have the site mail
    anyone, with its chosen name in the subject, every five minutes (found by a tester).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("person invited"),
        on_delete=models.CASCADE,
        related_name="invitation_notices",
    )
    inviter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("held by"),
        on_delete=models.CASCADE,
        related_name="invitation_notices_caused",
    )
    game = models.ForeignKey(Game, verbose_name=_("game"), null=True, on_delete=models.SET_NULL, related_name="+")
    sent_at = models.DateTimeField(_("sent at"))

    class Meta:
        ordering = ("-sent_at",)
        verbose_name = _("invitation notice")
        verbose_name_plural = _("invitation notices")
        indexes = [models.Index(fields=["user", "inviter", "sent_at"], name="invitationnotice_pair_time")]

    def __str__(self) -> str:
        return f"{self.inviter_id} invited {self.user_id} to {self.game_id} at {self.sent_at:%Y-%m-%d %H:%M}"
