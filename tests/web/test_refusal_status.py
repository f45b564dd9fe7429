"""The views, not the services, decide the HTTP status of a refusal (``games.views.HTTP_STATUS``)."""

from __future__ import annotations

import pytest

from games import services, views


@pytest.mark.parametrize(
    "code, status",
    [
        # what the services' own table said before it moved to the views
        ("not_logged_in", 403),
        ("not_seated", 403),
        ("not_creator", 403),
        ("private_game", 403),
        ("not_found", 404),
        ("stale_version", 409),
        ("game_not_open", 409),
        ("game_not_active", 409),
        ("game_full", 409),
        ("already_seated", 409),
        ("not_your_turn", 409),
        ("wrong_phase", 409),
        ("game_over", 409),
        ("seats_open", 409),
        ("not_due", 409),
        ("seat_left", 409),
        ("game_not_finished", 409),
        ("game_aborted", 409),
        ("seat_played_by_bot", 409),
        # a move after its turn's deadline (the clock plays that turn)
        ("out_of_time", 409),
        # what the moderation services passed as status= before
        ("not_moderator", 403),
        ("game_not_abortable", 409),
        ("already_bot", 409),
        ("self_deactivate", 409),
        ("already_inactive", 409),
        # anything else
        ("bad_form", 400),
        ("cannot_go_out", 400),
    ],
)
def test_each_refusal_code_has_its_status(code, status):
    assert views.http_status(services.GameError(code, "refused")) == status


def test_a_refusal_carries_only_its_code_and_message():
    error = services.GameError("not_found", "There is no such game.")
    assert (error.code, error.message, str(error)) == ("not_found", "There is no such game.", "There is no such game.")
    assert not hasattr(error, "status")
