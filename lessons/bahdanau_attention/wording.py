"""How the Bahdanau lesson writes a model's tokens and its numbers in its sentences and exercises: a token as
inline code, a probability as a percentage, a short vector in brackets."""

from __future__ import annotations


def as_code(piece: str) -> str:
    """A model's token as inline code in markdown (its pieces come from a fixed vocabulary)."""
    return "`" + piece.replace("`", "ʼ") + "`"


def percent(p: float) -> str:
    """A probability or weight as a percentage, tiny ones in scientific notation rather than a misleading 0%."""
    return f"{p:.1%}" if p >= 0.001 else f"{p:.1e}"


def as_tuple(values) -> str:
    """A few given numbers as the exercises write them: (2, 1, 0.1)."""
    return "(" + ", ".join(f"{x:g}" for x in values) + ")"
