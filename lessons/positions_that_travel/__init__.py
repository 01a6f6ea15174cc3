r"""Lesson: positions that travel (Part 4).

Lesson 8's position vectors are added to the input, one per position: a learned table ends where training ended, and
the sinusoids, though defined everywhere, still mix each position into every product. Two later schemes put position
into the attention score itself, as a function of the distance between query and key alone:

- RoPE (Su et al., *RoFormer: Enhanced Transformer with Rotary Position Embedding*, 2021) turns each pair of a query's
  and a key's dimensions by an angle proportional to its position, so that :math:`(R_m q)\cdot(R_n k) = q^\top
  R_{n-m} k`;
- ALiBi (Press, Smith & Lewis, *Train Short, Test Long: Attention with Linear Biases Enables Input Length
  Extrapolation*, ICLR 2022) subtracts slope × distance from each head's score, the slopes geometric across heads.

The lesson draws both, then tests the claim in ALiBi's title on a small model: trained on strings of 4–16 letters, it
reads strings 1×, 2× and 4× as long, with each of the five schemes, over five seeds.

Letters: m, n (or i, j) the query's and the key's positions, d a vector's size, θ_i a pair's angle per position,
H heads, m_h head h's slope. Never imports streamlit.

The sections, in page order:

- :mod:`.rotation`: RoPE's rotation, drawn for the student's sentence; the score of one query and key at every pair
  of positions (a Toeplitz matrix);
- :mod:`.distance_penalty`: ALiBi's slopes and each head's penalty as a heatmap;
- :mod:`.longer_inputs`: the measured comparison of the five schemes at 1×, 2×, 4× the training length;
- :mod:`.live_training`: one model trained live for the student.

:mod:`.training` holds what sections 3 and 4 share: the task, the model, its training and scores. Here: the
introduction's words and :func:`exercises` (every exercise of the lesson, the predictions included).
"""

from __future__ import annotations

from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.positions_that_travel import distance_penalty, longer_inputs, rotation

INTRO = (
    "Lesson 8 gave attention a sense of order by **adding** a vector to each token: the fixed sinusoids or a "
    "learned row per position. Its last section showed the catch: a learned table has no rows past the training "
    "range, and even the sinusoids mix each absolute position into every query and key. Two schemes used in today's "
    "language models put position into the **score** instead, as a function of how far apart the query and the key "
    "are: rotary embeddings (RoPE) turn queries and keys, ALiBi subtracts a penalty for distance. The ALiBi paper's "
    "title is its claim, *Train Short, Test Long*: this lesson trains each scheme on short strings and tests it on "
    "strings up to four times as long."
)


def by_hand() -> list[Exercise]:
    """The computations by hand the page's tail shows, their answers computed by the sections' functions."""
    return [rotation.angle_by_hand(), distance_penalty.penalty_by_hand(), distance_penalty.self_share_prediction()]


def exercises(results: Comparison | None = None) -> list[Exercise]:
    """Every exercise of the lesson: the computations by hand and the predictions whose source is loaded."""
    return [
        *by_hand(),
        rotation.shift_prediction(),
        *(
            [longer_inputs.learned_prediction(results), longer_inputs.race_prediction(results)]
            if results is not None
            else []
        ),
    ]
