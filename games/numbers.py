"""Numbers typed into an address or a form, read strictly."""

from __future__ import annotations


def plain_number(value: str, low: int, high: int) -> bool:
    """``value`` is written with the digits 0-9 only (no ``²``, no ``١``: ``str.isdigit`` takes them and
    ``int`` does not), short, and in ``low..high``."""
    return value.isascii() and value.isdigit() and len(value) <= len(str(high)) and low <= int(value) <= high
