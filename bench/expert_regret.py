"""What the noise of the expert's deals costs its discards, by its own measure; prints figures, never passes or fails.

    python bench/expert_regret.py --games 2 --reference 1920 --refine 0,192
    python bench/expert_regret.py --games 2 --reference 1920 --refine 192,384 --finalists 5 --refine-work 18000

Plays classic four-player games of hard bots (``--games``, the first
``--decisions`` decisions of each, seeded ``0``, ``1``, ...).  At each discard the expert
weighs on deals (at least two candidates, no going out, not a last turn),
every candidate is valued again on ``--reference`` deals of its own (no
limit on their cards), and the expert's choice under each budget (the
default one with ``--refine`` more deals for the ``--finalists`` cheapest
discards, until their turns hold ``--refine-work`` cards (``--big-refine-work``
in the biggest hands' rounds): ``0`` for none;
the first deals' turns holding at most ``--work`` cards)
is charged what it costs against the best there: the expert's expected
points plus the hard bot's feeding charge.  Prints, per budget, the share
of choices that are not the reference's best and the mean points that
costs a discard.  The reference has noise of its own, so neither figure
reaches 0.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Iterator
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.budget_flags import add_budget_flags, budget_from  # noqa: E402
from games.bots import choose_action, expert, hard  # noqa: E402
from games.bots.position import Position, remove  # noqa: E402
from games.bots.selfdraw import SelfDraws  # noqa: E402
from games.engine import Discard, GoOut, Rules, SeatView, apply, deal_event, new_game, view  # noqa: E402

#: The budget fields the script may set beside ``--refine`` (``--work``, ``--finalists``, ...).
BUDGET_FLAGS = ("work", "finalists", "refine_work", "big_refine_work")


def positions(seed: int, decisions: int) -> Iterator[tuple[SeatView, list[dict[str, Any]]]]:
    """The first decisions of a classic game of hard bots, each with the round's history before it."""
    rng = random.Random(seed)
    state = new_game(Rules(), 4, rng.getrandbits(62))
    history: list[dict[str, Any]] = [deal_event(state).to_dict()]  # the first deal has no event of its own
    for _ in range(decisions):
        if state.is_over:
            return
        seat = state.current_seat
        assert seat is not None  # a game that is not over has a seat to play
        seen = view(state, seat)
        yield seen, list(history)
        state, events = apply(state, seat, choose_action(seen, "hard", history))
        for event in events:
            if event.kind == "round_dealt":
                history = []
            history.append(event.to_dict())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--decisions", type=int, default=400, help="the first decisions of each game looked at")
    parser.add_argument("--reference", type=int, default=1920, help="deals each candidate is valued on again")
    parser.add_argument("--refine", default="0,192", help="the budgets' more deals for the finalists, by commas")
    add_budget_flags(parser, BUDGET_FLAGS)
    args = parser.parse_args()
    try:
        refines = [int(part) for part in args.refine.split(",")]
        budgets = [budget_from(args, BUDGET_FLAGS, refine=refine) for refine in refines]
    except ValueError:
        parser.error(
            "--refine takes whole numbers of at least 0, by commas, such as 0,192; "
            "--work at least 0 (0: no limit), --finalists, --refine-work and --big-refine-work at least 1"
        )
    if min(args.games, args.decisions, args.reference) < 1:
        parser.error("--games, --decisions and --reference are at least 1")
    regret = [0.0] * len(budgets)
    missed = [0] * len(budgets)
    weighed = 0
    for seed in range(args.games):
        for seen, history in positions(seed, args.decisions):
            legal = seen.legal_actions
            if (
                seen.final_lap
                or any(isinstance(a, GoOut) for a in legal)
                or not any(isinstance(a, Discard) for a in legal)
            ):
                continue
            pos = Position(seen)
            memory = hard.Memory(seen, history)
            options = expert.candidates(pos, legal, memory)
            if len(options) < 2:
                continue
            thrown = [option.card for option in options if isinstance(option, Discard)]
            rests = [remove(pos.hand, card) for card in thrown]
            wanted = hard.wanted_by_next(pos, memory)
            rng = random.Random(f"reference:{seed}:{weighed}")
            deals = SelfDraws(pos, history, rng, args.reference, expert.BUDGET.turns, tempo=expert.BUDGET.tempo)
            values = {
                card: value + hard.feeding_cost(pos, card, wanted)
                for card, value in zip(thrown, deals.values(rests), strict=True)
            }
            best = min(values.values())
            weighed += 1
            for i, budget in enumerate(budgets):
                chosen = expert.choose(pos, legal, history, budget)
                assert isinstance(chosen, Discard)  # a discard was asked for
                regret[i] += values[chosen.card] - best
                missed[i] += values[chosen.card] > best
    print(f"{weighed} searched discards of {args.games} game(s) of hard bots; reference: {args.reference} deals each")
    print(
        f"first deals holding at most {args.work} cards; finalists: {args.finalists}, "
        f"their deals holding at most {args.refine_work} cards "
        f"({args.big_refine_work} in rounds of {expert.BUDGET.big_hand} cards or more)"
    )
    for refine, lost, wrong in zip(refines, regret, missed, strict=True):
        share = 100 * wrong / max(1, weighed)
        print(
            f"refine {refine:>4}: not the reference's best {share:5.1f}%, "
            f"points lost a discard {lost / max(1, weighed):.4f}"
        )


if __name__ == "__main__":
    main()
