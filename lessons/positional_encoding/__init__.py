r"""Lesson: positional encoding (Part 3).

Self-attention compares every token with every other by content alone, so it cannot tell "abc" from "cab": shuffle
the input and its outputs come back shuffled the same way (it is *permutation-equivariant*). The Transformer adds
a position vector to each token's embedding. The Transformer lecture's choice ("Positional encoding": its two
formulas) is the sinusoids of Vaswani et al. 2017, §3.5:

.. math:: PE_{(pos, 2i)} = \sin(pos\,\omega_i), \quad PE_{(pos, 2i+1)} = \cos(pos\,\omega_i), \quad
          \omega_i = 10000^{-2i/d}

"for any fixed offset k, PE_{pos+k} is a linear function of PE_pos": each pair of dimensions (2i, 2i+1) is a
point on a circle at angle pos·ω_i, and moving k positions turns it by k·ω_i, a 2×2 rotation that does not depend
on pos.

Letters: T positions, d d_model, i a frequency pair, k an offset. Never imports streamlit.

The sections, in page order:

- :mod:`.sinusoid_table`: the table, its frequencies and wavelengths;
- :mod:`.nearby_positions`: the similarity of positions, a function of their distance alone;
- :mod:`.offset_rotation`: the offset rotation M_k and its residual (in float64, where it is ~1e-15);
- :mod:`.bag_of_tokens`: the equivariance test on small models with one self-attention;
- :mod:`.longer_inputs`: the measured comparison of ``none`` / ``sinusoidal`` / ``learned`` on the previous-letter
  task, inside and beyond the training lengths;
- :mod:`.live_training`: one model trained live for the student.

:mod:`.models` holds what sections 4–6 share: the previous-letter task, the small model, its training and the
shipped checkpoints. Here: the introduction's words and formula, :func:`by_hand` (the computations the page's tail
asks) and :func:`exercises` (every exercise of the lesson, the predictions included).
"""

from __future__ import annotations

from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.positional_encoding import bag_of_tokens, longer_inputs, nearby_positions, offset_rotation
from minimodels.small import TinyEncoder

INTRO = (
    "Self-attention compares every token with every other **by content alone**: the score of a query with a key "
    "does not depend on where either of them sits. So, as the Transformer lecture puts it, *position information "
    "for words in sequence is lost*, yet translation needs it. The idea: *encode position information inside the "
    "input embedding*, by adding a vector PE_pos to the embedding of the token at position pos. The lecture's "
    "(and the paper's) choice is a fixed set of sinusoids:"
)

# in lines (gathered): as one row it is wider than a phone's 390 px (tests/browser/test_phone.py)
FORMULA = (
    r"\begin{gathered} PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right) \\"
    r" PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right) \end{gathered}"
)

FREQUENCIES = (
    "Each pair of dimensions (2i, 2i+1) is one **frequency** ω_i = 10000^(−2i/d): a point going round a circle, "
    "at angle pos·ω_i. The first pair turns one radian per position, the last one hardly moves, like the hands "
    "of a clock that has many hands."
)


def by_hand() -> list[Exercise]:
    """The computations by hand the page's tail shows, their answers computed by the sections' functions."""
    return [offset_rotation.angle_by_hand(), nearby_positions.dot_product_by_hand()]


def exercises(results: Comparison | None, none_model: TinyEncoder | None) -> list[Exercise]:
    """Every exercise of the lesson: the computations by hand and the predictions whose source is loaded."""
    return [
        *by_hand(),
        longer_inputs.rows_prediction(),
        *([bag_of_tokens.anagram_prediction(none_model)] if none_model is not None else []),
        *([longer_inputs.race_prediction(results)] if results is not None else []),
    ]
