"""The site's stylesheet parses as written: an unclosed block (a merge that lost a ``}``) would put
every later rule inside a media query, e.g. the chat's and the profile's styles into dark mode only."""

import re
from pathlib import Path

import games

SITE_CSS = Path(games.__file__).parent / "static" / "games" / "site.css"


def _depths(css: str) -> list[int]:
    """The nesting depth after each line, comments left out; a negative depth is a stray ``}``."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    depth, depths = 0, []
    for line in css.splitlines():
        depth += line.count("{") - line.count("}")
        depths.append(depth)
    return depths


def test_every_block_of_the_stylesheet_is_closed() -> None:
    depths = _depths(SITE_CSS.read_text())
    assert min(depths) >= 0
    assert depths[-1] == 0


def test_the_check_catches_a_lost_brace() -> None:
    assert _depths("@media (prefers-color-scheme: dark) {\n  .a { color: red; }\n.b { color: blue; }\n")[-1] == 1
