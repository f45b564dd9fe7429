"""What the hard bot's last-turn draws cost against the exact ones; prints figures, never passes or fails.

    python bench/last_turn.py --games 60 --seed 1

Plays classic four-player games of hard bots.  At each last turn after
someone went out where both piles may be drawn from, it works out what each
draw leaves in expectation, exactly (``expert.least_left`` over the pile's
card and every card the stock may give, ``Knowledge.next_stock_card``), as
the expert bot chooses, and counts how often the hard bot's rule of thumb
drew from the costlier pile and the points that cost in expectation (round
multipliers included), per seat and game.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots import choose_action, expert  # noqa: E402
from games.bots.position import Position  # noqa: E402
from games.bots.sampling import Knowledge  # noqa: E402
from games.engine import Draw, Rules, apply, deal_event, new_game, view  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games must be at least 1")
    rules = Rules.from_dict({})
    decisions = wrong = 0
    lost_per_seat: list[float] = []
    for index in range(args.games):
        rng = random.Random(f"last-turn:{args.seed}:{index}")
        state = new_game(rules, 4, rng.getrandbits(62))
        history: list[dict[str, Any]] = [deal_event(state).to_dict()]  # the first deal has no event of its own
        lost = 0.0
        while not state.is_over:
            seat = state.current_seat
            assert seat is not None  # a game that is not over has a seat to play
            seen = view(state, seat)
            action = choose_action(seen, "hard", history)
            if seen.final_lap and {Draw("stock"), Draw("discard")} <= set(seen.legal_actions) and seen.discard_top:
                pos = Position(seen)
                take = expert.least_left(pos, [*pos.hand, seen.discard_top], forbidden=seen.discard_top)
                chances = Knowledge(seen, history).next_stock_card()
                stock = sum(chance * expert.least_left(pos, [*pos.hand, card]) for card, chance in chances.items())
                chosen = take if action == Draw("discard") else stock
                decisions += 1
                wrong += chosen > min(take, stock)
                lost += (chosen - min(take, stock)) * rules.round_multiplier(seen.hand_size)
            state, events = apply(state, seat, action)
            for event in events:
                if event.kind == "round_dealt":
                    history = []
                history.append(event.to_dict())
        lost_per_seat.append(lost / 4)
    print(f"{args.games} four-player classic games of hard bots, seed {args.seed}")
    print(f"last-turn draws with a choice: {decisions}; the hard bot drew from the costlier pile in {wrong}")
    print(
        f"points that cost in expectation, per seat and game: {statistics.fmean(lost_per_seat):.2f} "
        f"(the hard bot's mean score per game is about 90: tournament above)"
    )


if __name__ == "__main__":
    main()
