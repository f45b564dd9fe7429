"""A newcomer who signs up lands in the lobby, where the tables are, welcomed by name."""

from __future__ import annotations

import pytest
from django.test import Client

from .conftest import logged_in

pytestmark = pytest.mark.django_db


def test_sign_up_redirects_to_the_lobby_and_welcomes():
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {
            "username": "marija",
            "email": "marija@example.com",
            "password1": "kartanje-uvecer-42",
            "password2": "kartanje-uvecer-42",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == "/"
    lobby = client.get("/")
    assert lobby.status_code == 200
    assert lobby.resolver_match.view_name == "games:lobby"
    assert "Welcome, marija! Your account is ready." in lobby.content.decode()


def test_a_signed_in_person_opening_sign_up_is_sent_to_the_lobby(make_user):
    response = logged_in(make_user("ann")).get("/accounts/signup/")
    assert response.status_code == 302 and response["Location"] == "/"
