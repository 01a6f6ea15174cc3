"""Text in a CSV cell that a spreadsheet opens: a cell that starts like a formula is kept as text.

A spreadsheet reads a cell that starts with one of :data:`FORMULA_STARTS` as a formula (``=1+cmd|' /C calc'!A0``
runs a program); the minus sign and the full-width forms too, in some. A leading apostrophe keeps such a cell as
the text it is. Every CSV the course writes (a heatmap's values, a class's data) goes through :func:`as_text`.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\u2212", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def as_text(text: str) -> str:
    """``text``, behind an apostrophe when a spreadsheet would read it as a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text
