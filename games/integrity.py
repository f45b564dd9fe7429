"""Whether a game's move log still explains its stored state: nothing lost, nothing applied twice.

A game is stored twice over: the engine's state (``Game.state``, the
snapshot every move reads and writes) and the log of moves (``Move``, one row
per action, numbered from 1).  Replayed by the engine from the game's shuffle,
the log must give the snapshot exactly.  A move stored in the snapshot but
missing from the log (or the other way round), a move applied twice, or a
gap in the numbering shows up here.  The race tests and ``bench/load.py``
(after faults) ask this of every game they played.
"""

from __future__ import annotations

from games.engine import Rules, action_from_dict, replay
from games.models import Game


def log_replay_problem(game: Game) -> str | None:
    """What is wrong with the game's log as read from the database now, in words; None when it replays to the
    stored state."""
    game.refresh_from_db()
    moves = list(game.moves.order_by("seq").values_list("seq", "seat", "action"))
    numbers = [seq for seq, _seat, _action in moves]
    if numbers != list(range(1, len(moves) + 1)):
        return f"game {game.pk}: the log's moves are numbered {_ranges(numbers)}, not 1 to {len(moves)}"
    if game.state is None:
        return f"game {game.pk}: {len(moves)} moves logged and no state" if moves else None
    try:
        replayed = replay(
            Rules.from_dict(game.rules),
            game.seat_count,
            game.engine_shuffle(),
            [(seat, action_from_dict(action)) for _seq, seat, action in moves],
        )
    except (ValueError, KeyError, TypeError) as error:  # a move the engine refuses there, or unreadable
        return f"game {game.pk}: the log does not replay ({type(error).__name__}: {error})"
    if replayed.to_dict() != game.state:
        return f"game {game.pk}: the log's {len(moves)} moves replay to a state other than the stored one"
    return None


def _ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 5, 5]`` as ``1-3, 5, 5`` (short, for a message)."""
    parts: list[str] = []
    start = previous = None
    for number in numbers:
        if previous is not None and number == previous + 1:
            previous = number
            continue
        if start is not None:
            parts.append(f"{start}-{previous}" if previous != start else str(start))
        start = previous = number
    if start is not None:
        parts.append(f"{start}-{previous}" if previous != start else str(start))
    return ", ".join(parts) or "none"
