"""What the message catalogs must hold: the project's messages, extracted in pure Python.

``manage.py makemessages`` runs GNU gettext's ``xgettext``; this reads the same sources the
same way for the checks of tests/web/test_translations.py, so those checks run in a second
and need no system tool.  Sources are the files ``makemessages`` would read, skipping
``.venv``, ``tests``, ``bench`` (as the catalogs' extraction does), hidden folders and
``staticfiles`` (collectstatic's copies): the ``django`` domain reads ``.py``, ``.html`` and
``.txt`` files (templates go through Django's ``templatize`` first, as makemessages does),
the ``djangojs`` domain ``.js`` files.

A message is ``(context, msgid, plural)``; ``context`` and ``plural`` are ``""`` when absent.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings

Message = tuple[str, str, str]

SKIPPED_DIRS = {".venv", "tests", "bench", "staticfiles", "node_modules", "__pycache__", "locale"}
# keyword -> the roles of its leading string arguments (c: context, s: msgid, p: plural)
PYTHON_KEYWORDS = {
    "_": "s",
    "gettext": "s",
    "gettext_lazy": "s",
    "gettext_noop": "s",
    "ngettext": "sp",
    "ngettext_lazy": "sp",
    "pgettext": "cs",
    "pgettext_lazy": "cs",
    "npgettext": "csp",
    "npgettext_lazy": "csp",
}
JS_KEYWORDS = {"gettext": "s", "gettext_noop": "s", "ngettext": "sp", "pgettext": "cs", "npgettext": "csp"}

_PY_STRING = r"""(?:[rRuU]?(?:"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))"""
_JS_STRING = r"""(?:"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')"""


def _call(keywords: dict[str, str], string: str) -> re.Pattern[str]:
    names = "|".join(sorted((re.escape(k) for k in keywords), key=len, reverse=True))
    literal = rf"{string}(?:\s*{string})*"  # adjacent literals are joined (Python)
    return re.compile(rf"(?<![\w$])({names})\s*\(\s*((?:{literal})(?:\s*,\s*(?:{literal}))*)", re.S)


_PY_CALL = _call(PYTHON_KEYWORDS, _PY_STRING)
_JS_CALL = _call(JS_KEYWORDS, _JS_STRING)
_PY_LITERALS = re.compile(rf"{_PY_STRING}(?:\s*{_PY_STRING})*")
_JS_LITERALS = re.compile(rf"{_JS_STRING}(?:\s*\+\s*{_JS_STRING})*")


def _py_value(literals: str) -> str:
    value = ast.literal_eval("(" + literals + ")")
    assert isinstance(value, str)
    return value


def _js_value(literal: str) -> str:
    # JavaScript string escapes that the site uses are Python's too; "'" quoted strings as well.
    return _py_value(literal)


def _messages(pattern: re.Pattern[str], keywords: dict[str, str], source: str, *, js: bool) -> Iterator[Message]:
    for match in pattern.finditer(source):
        roles = keywords[match.group(1)]
        if js:
            args = [_py_value(m.group(0).replace("+", " ")) for m in re.finditer(_JS_STRING, match.group(2))]
        else:
            args = [_py_value(m.group(0)) for m in _PY_LITERALS.finditer(match.group(2))]
        if len(args) < len(roles):
            continue  # an argument that is not a literal: not extractable (xgettext skips it too)
        by_role = dict(zip(roles, args, strict=False))
        yield by_role.get("c", ""), by_role["s"], by_role.get("p", "")


def python_file_messages(path: Path) -> set[Message]:
    """The messages of one Python source file (e.g. the Django messages a module lists for the catalogs)."""
    return set(_messages(_PY_CALL, PYTHON_KEYWORDS, path.read_text(encoding="utf-8"), js=False))


def source_files(extensions: tuple[str, ...], root: Path | None = None) -> list[Path]:
    base = Path(root or settings.BASE_DIR)
    found = []
    for path in base.rglob("*"):
        parts = path.relative_to(base).parts
        if any(part in SKIPPED_DIRS or part.startswith(".") for part in parts[:-1]):
            continue
        if path.is_file() and path.suffix in extensions:
            found.append(path)
    return sorted(found)


def extract(domain: str, root: Path | None = None) -> set[Message]:
    """Every message of ``domain`` ("django" or "djangojs") in the project's sources."""
    from django.utils.translation.template import templatize

    messages: set[Message] = set()
    if domain == "djangojs":
        for path in source_files((".js",), root):
            messages |= set(_messages(_JS_CALL, JS_KEYWORDS, path.read_text(encoding="utf-8"), js=True))
        return messages
    for path in source_files((".py", ".html", ".txt"), root):
        text = path.read_text(encoding="utf-8")
        if path.suffix != ".py":
            text = templatize(text, origin=str(path))
        messages |= set(_messages(_PY_CALL, PYTHON_KEYWORDS, text, js=False))
    return messages
