"""Requests Django refuses as suspicious: a 400 page and one line in the log, never a 500 or a traceback.

Found by a tester: 1,200 parameters in an address were a 500 under ``make run`` (Django's own 400 page of
``DEBUG`` read them again), and with ``DEBUG`` off each such request, a Host header not allowed or an admin
filter the admin refuses wrote an ERROR with its whole traceback: anyone could fill the log with them.
"""

from __future__ import annotations

import io
import logging

import pytest
from django.test import Client

from threethirteen_site.logs import QuietSecurityRecords

pytestmark = pytest.mark.django_db

MANY = "&".join(f"a{i}=1" for i in range(1200))  # DATA_UPLOAD_MAX_NUMBER_FIELDS is 1,000


@pytest.fixture
def security_log():
    """What the handler of ``django.security`` writes (settings.LOGGING)."""
    (handler,) = [
        handler
        for handler in logging.getLogger("django.security").handlers
        if any(isinstance(f, QuietSecurityRecords) for f in handler.filters)
    ]
    assert isinstance(handler, logging.StreamHandler)
    written = io.StringIO()
    before = handler.setStream(written)
    yield written
    handler.setStream(before)


@pytest.mark.parametrize("debug", [False, True])
def test_too_many_fields_in_an_address_or_a_form_is_the_sites_400_page(settings, debug, security_log):
    settings.DEBUG = debug
    for response in (
        Client().get(f"/?{MANY}"),
        Client().post("/accounts/login/", MANY, content_type="application/x-www-form-urlencoded"),
    ):
        assert response.status_code == 400
        assert "That request could not be read" in response.content.decode()
    lines = security_log.getvalue().splitlines()
    assert len(lines) == 2 and all("WARNING django.security: TooManyFieldsSent" in line for line in lines)


def test_a_host_not_allowed_is_one_warning_line_without_its_traceback(settings, security_log):
    settings.ALLOWED_HOSTS = ["cards.example.com"]
    assert Client().get("/rules/", HTTP_HOST="evil.example").status_code == 400
    lines = security_log.getvalue().splitlines()
    assert len(lines) == 1 and "WARNING django.security.DisallowedHost: Invalid HTTP_HOST header" in lines[0]
