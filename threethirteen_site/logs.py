"""Filters of the site's logging (``settings.LOGGING``): imported while Django sets up, so nothing else here."""

from __future__ import annotations

import logging


class QuietSecurityRecords(logging.Filter):
    """A suspicious request (a Host header not allowed, too many form fields, an admin filter the admin
    refuses) as one WARNING line without its traceback: Django logs each at ERROR with the whole stack, and
    anyone could fill the log with them (a tester).  The site answered each with its 400 page anyway."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.WARNING:
            record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True
