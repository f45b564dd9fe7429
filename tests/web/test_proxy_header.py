"""Behind the proxy, Django trusts its ``X-Forwarded-Proto`` from a setting of its own, not from ``DEBUG``.

With ``DEBUG=1`` behind the proxy (an operator looking into a problem) every
request looked like plain HTTP, and every form's CSRF origin check failed
("https://… does not match any trusted origins"): a 403 on each post.
"""

from __future__ import annotations

import pytest

from .conftest import settings_read

SECRET = "a-test-secret-of-the-site-0123456789abcdefghijklmnopqrstuvwxyz"
FORWARDED_PROTO = ["HTTP_X_FORWARDED_PROTO", "https"]


def proxy_header(**env_vars: str) -> list[str] | None:
    return settings_read(
        "getattr(s, 'SECURE_PROXY_SSL_HEADER', None)",
        drop=("DEBUG", "SECURE_", "SECRET_KEY", "DATABASE_URL"),
        DATABASE_URL="sqlite:///unused.sqlite3",
        SECRET_KEY=SECRET,
        **env_vars,
    )


@pytest.mark.parametrize("debug", ["0", "1"])
def test_the_proxy_header_is_trusted_when_set_whatever_debug_says(debug):
    assert proxy_header(DEBUG=debug, SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto") == FORWARDED_PROTO


def test_by_default_only_production_trusts_it():
    assert proxy_header(DEBUG="0") == FORWARDED_PROTO
    assert proxy_header(DEBUG="1") is None  # a laptop without a proxy: a client could claim HTTPS


@pytest.mark.parametrize("off", ["0", ""])
def test_a_server_without_a_proxy_turns_it_off(off):
    assert proxy_header(DEBUG="0", SECURE_PROXY_SSL_HEADER=off) is None
