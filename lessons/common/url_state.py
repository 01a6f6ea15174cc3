"""A lesson's settings in its link: reading a query parameter back into a widget's value, safely.

A teacher's link (``/queries_keys_values?matrix_d_k=16&sentence=I+like+pizza``) opens the lesson as they set
it. Anyone can type anything into a URL, so every value is checked against what the widget accepts (its
choices, its range, its length) and refused with a reason a person can read (:class:`LinkValueError`);
``ui.linked`` then shows that reason and the widget's default. Pure Python, tested without Streamlit.

Why not Streamlit's own ``bind="query-params"``: measured on Streamlit 1.67, an integer ``number_input``
bound to the URL raises ``OverflowError`` (an uncaught exception on the page) for ``?seed=1e400`` or
``?seed=inf``, and refused values vanish from the link without a word to the reader.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

MAX_PARAM_CHARS = 2000  # longer values are refused whatever the widget (a link is not a document)
SHOWN_CHARS = 40  # how much of a refused value a note quotes


class LinkValueError(ValueError):
    """A query parameter's value that the widget cannot take; the message says why, in plain words."""


def parse_number(raw: str, lo: float | None, hi: float | None, *, integer: bool) -> int | float:
    """A finite number within [lo, hi]; a whole number for an integer widget."""
    try:
        value = float(raw.strip())
    except ValueError:
        raise LinkValueError("it is not a number") from None
    if not math.isfinite(value):
        raise LinkValueError("it is not a finite number")
    if integer:
        if not value.is_integer():
            raise LinkValueError("it is not a whole number")
        value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise LinkValueError(f"it is outside the range {_number(lo)} to {_number(hi)}")
    return value


def parse_choice(raw: str, options: Sequence[Any], label: Callable[[Any], Any] | None = None) -> Any:
    """The option whose text (``str(option)``) or shown label (``label(option)``) is ``raw``."""
    for option in options:
        if raw == str(option):
            return option
    if label is not None:
        for option in options:
            if raw == str(label(option)):
                return option
    raise LinkValueError("it is not one of the choices")


def parse_text(raw: str, max_chars: int | None) -> str:
    """Text, at most ``max_chars`` characters (what the page makes of it is the page's own check)."""
    limit = min(max_chars or MAX_PARAM_CHARS, MAX_PARAM_CHARS)
    if len(raw) > limit:
        raise LinkValueError(f"it is longer than {limit} characters")
    return raw


def parse_bool(raw: str) -> bool:
    """``1``/``true``/``on``/``yes`` or ``0``/``false``/``off``/``no``, any case."""
    word = raw.strip().lower()
    if word in ("1", "true", "on", "yes"):
        return True
    if word in ("0", "false", "off", "no"):
        return False
    raise LinkValueError("it is neither on (1) nor off (0)")


def to_param(value: Any) -> str:
    """A widget value as it is written into the link: 16, 0.5, dates, 1 for on."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def shown(raw: str) -> str:
    """A refused value, cut short for a note (the note shows it as literal text, never as markup)."""
    return raw if len(raw) <= SHOWN_CHARS else raw[:SHOWN_CHARS] + "…"


def _number(x: float | None) -> str:
    return "…" if x is None else f"{x:g}"
