"""Lesson: the attention bridge (research lab): one shared inner attention for four toy languages.

Follows Vázquez, Raganato, Tiedemann & Creutz, "Multilingual NMT with a language-independent attention bridge"
(RepL4NLP 2019): its equations 1–3 (the bridge and its penalty), Table 1 (bilingual, {De, Fr, Cs} ↔ En and
many-to-many models; zero-shot with and without monolingual data), Figure 1 (leave one pair out) and section 6 with
Table 3 (the penalty). Every language has its own encoder and decoder (:mod:`minimodels.bridge`); one attention
layer shared by all turns any sentence into the same fixed matrix M, and the lesson asks whether M holds the
meaning rather than the words: do heads find the same concept in every language, do translations' M cluster, can
a decoder translate a direction it never saw?

Letters: H the encoder's n states (n × d_h; S in the code, the source positions with EOS), k the bridge heads, A
the bridge's weights (k × n, one softmax over the words per head), M = AH (k × d_h), W_1 and W_2 the bridge's
weights, λ the penalty's weight, I the identity, X and Y a source and a target sentence.

Sections, in page order:

- :mod:`one_meaning`: one held-out meaning in four languages, what each head reads, your own sentence;
- :mod:`penalty`: A Aᵀ and the penalty on the two shipped hub models, with λ and without;
  :mod:`penalty_study`: the paper's penalty experiment with seeds, λ and k;
- :mod:`meaning_space`: do translations' M cluster together?
- :mod:`zero_shot`: the paper's grid and zero-shot; :mod:`table_one`: its Table 1 direction by direction;
  :mod:`grid_claims`: its claims tested and what is not reproduced; :mod:`leave_out`: leave one pair out (its
  Figure 1); :mod:`long_run`: one left-out model trained longer, testing the equal-compute explanation;
- :mod:`train_your_own`: train a bridge live.

Shared by the sections: :mod:`experiments` (the experiments, the shipped grid and its loader) and :mod:`findings`
(how a difference between seeds is put into words).
"""

from __future__ import annotations

from lessons.attention_bridge import meaning_space, penalty, zero_shot
from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise

INTRO = (
    "One translator for many languages: every language gets its **own encoder and decoder**, and between them "
    "sits **one attention layer shared by all** of them, the *attention bridge* (Vázquez et al., "
    "“Multilingual NMT with a language-independent attention bridge”). The bridge turns any sentence, in any "
    "language and of any length, into the same fixed matrix M of k rows; every decoder reads only M. If M holds "
    "the *meaning* rather than the words, a model trained on French↔English and French↔Italian could translate "
    "English→Italian without ever seeing that pair: **zero-shot**."
)
BRIDGE_EXPLAIN = (
    "H holds the encoder's n states (a BiGRU here, a BiLSTM in the paper); each of the k rows of A is one "
    "**head**: a softmax over the source words. Each decoder starts from the mean of M's rows and attends over "
    "them. The penalty is 0 only when each head puts all its weight on one word and no two heads share a word, "
    "so it pushes the heads to read *different* parts of the sentence. "
)
# two lines: on one, a phone's width showed A's half and hid M = AH past the right edge
BRIDGE_EQUATION = (
    r"\begin{gathered} A = \mathrm{softmax}\big(W_2\,\mathrm{ReLU}(W_1 H^\top)\big) \in \mathbb{R}^{k\times n} \\"
    r" M = A H \end{gathered}"
)
LOSS_EQUATION = r"\mathcal{L} = -\log p(Y \mid X) + \lambda\,\lVert A A^\top - I \rVert_F^2"


def exercises(results: Comparison | None) -> list[Exercise]:
    """The page's check-yourself questions, in page order (the zero-shot one only with the shipped results)."""
    return [*penalty.exercises(), *meaning_space.exercises(), *zero_shot.exercises(results)]
