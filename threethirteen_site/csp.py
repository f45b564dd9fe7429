"""The Content-Security-Policy header: django-csp's middleware, plus this host's WebSocket origins.

The policy itself is in settings (``CONTENT_SECURITY_POLICY``).  ``connect-src 'self'``
covers same-host ``ws:``/``wss:`` in CSP Level 3 browsers (Chrome 71+, Firefox, Safari 16+),
but Safari 15 and older (iPhones that cannot update past iOS 15) read ``'self'`` as
http(s) only and would refuse the live table's socket.  So each response also names the
WebSocket origins of the host the request came to: ``ws://host`` and ``wss://host``, both,
because a proxy that ends TLS may hide the scheme from Django (and a browser refuses
``ws://`` from an https page as mixed content anyway).  Not ``ws: wss:`` (any host): a
script that got in could then send what it read anywhere.
"""

from __future__ import annotations

from typing import Any

from csp.middleware import CSPMiddleware, PolicyParts
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest
from django.http.response import HttpResponseBase


class SiteCSPMiddleware(CSPMiddleware):
    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        try:
            host = request.get_host()  # checked against ALLOWED_HOSTS: letters, digits, dots, a port
        except DisallowedHost:
            return parts  # refused with a 400 already; the policy from settings is enough for that
        update: dict[str, Any] = dict(parts.update or {})
        update["connect-src"] = [*update.get("connect-src", []), f"ws://{host}", f"wss://{host}"]
        parts.update = update
        return parts
