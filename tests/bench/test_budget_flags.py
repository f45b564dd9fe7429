"""The expert's budget flags of the bench scripts (bench/budget_flags.py): one flag per field, read back."""

import argparse

import pytest

from bench.budget_flags import add_budget_flags, budget_from
from games.bots import expert

FIELDS = ("deals", "work", "refine_work", "tempo", "draws")


def parsed(*argv: str, prefix: str = "") -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_budget_flags(parser, FIELDS, prefix)
    return parser.parse_args(argv)


def test_no_flag_is_the_default_budget():
    assert budget_from(parsed(), FIELDS) == expert.BUDGET
    assert budget_from(parsed(prefix="expert-"), FIELDS, "expert-") == expert.BUDGET


def test_the_flags_set_their_fields_and_leave_the_rest():
    args = parsed(
        *("--expert-deals", "7", "--expert-refine-work", "900", "--expert-tempo", "0.5", "--no-expert-draws"),
        prefix="expert-",
    )
    budget = budget_from(args, FIELDS, "expert-", refine=5)
    assert (budget.deals, budget.refine_work, budget.tempo, budget.draws, budget.refine) == (7, 900, 0.5, False, 5)
    assert budget.turns == expert.BUDGET.turns and budget.big_refine_work == expert.BUDGET.big_refine_work


def test_work_0_is_no_limit_and_counts_it_cannot_search_with_are_refused():
    assert budget_from(parsed("--work", "0"), FIELDS).work is None
    for flag in ("--deals", "--refine-work"):
        with pytest.raises(ValueError, match="an expert budget counts"):
            budget_from(parsed(flag, "0"), FIELDS)
    with pytest.raises(SystemExit):
        parsed("--deals", "many")  # argparse refuses a count that is not a number
