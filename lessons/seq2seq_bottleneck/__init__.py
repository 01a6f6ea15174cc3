r"""Lesson: seq2seq and the fixed-size bottleneck (Part 1).

Follows the Transformer lecture's encoder–decoder slides ("Jane visite l'Afrique en septembre" → "Jane is
visiting Africa in September", then the long "Jane s'est rendue en Afrique en septembre dernier, …" sentence
where "it is not perfect") and the NLP lecture's "Problem 2: fixed-size representation of entire input
sequence" ("bottleneck"). The encoder reads the source into states :math:`h_1 \dots h_S`; without attention the
decoder is given only the last one, the context vector :math:`c = h_S`, at every step:

.. math:: h_t = \mathrm{GRU}(E x_t,\, h_{t-1}), \qquad c = h_S, \qquad
          s_t = \mathrm{GRU}([E y_{t-1};\, c],\, s_{t-1}),\ s_0 = c, \qquad
          p(y_t) = \mathrm{softmax}(W_o \tanh(W_c [c;\, s_t]))

(``minimodels.seq2seq.Seq2Seq`` with ``attention="none"``). However long the source, :math:`c` has D numbers. The
models copy strings of letters and spaces, and are scored by source length, with and without attention.

Sections, in page order:

- :mod:`.one_vector`: the whole string in one vector; the student's string through the encoder, and how much of
  each character survives in c.
- :mod:`.both_directions`: a bidirectional encoder, :math:`h_i = [\overrightarrow{h}_i; \overleftarrow{h}_i]`.
- :mod:`.where_it_breaks`: accuracy against source length, with and without attention, at every D (shipped).
- :mod:`.pooling`: attention generalises (mean) pooling; the lecture's weights by hand, then trained.
- :mod:`.rerun`: the student trains both models live and watches the attention learn.

Shared by the sections: :mod:`.experiment` (the copy task, the models, their recipe), :mod:`.scoring` (accuracy by
source length), :mod:`.shipped` (the shipped results, written and read; verdicts), :mod:`.live_training` (the
student's pair of runs).

Letters: B batch, S source positions (characters + EOS), T target positions, D context (hidden) size, H numbers per
direction of a bidirectional encoder (D = 2H).
"""

from __future__ import annotations

from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.seq2seq_bottleneck import both_directions, pooling, rerun

INTRO = (
    "An encoder–decoder translates *“Jane visite l'Afrique en septembre”* into *“Jane is visiting Africa in "
    "September”* in two halves. The **encoder** RNN reads the source one token at a time; its last hidden state "
    "is handed to the **decoder** RNN, which writes the translation from it. That one vector, the *context*, is "
    "all the decoder ever learns about the source. It has a fixed size D, chosen before training, whether the "
    "sentence has five words or forty. For the lecture's short sentence that works. For *“Jane s'est rendue en "
    "Afrique en septembre dernier, a apprécié la culture et a rencontré beaucoup de gens merveilleux; elle est "
    "revenue en parlant comment son voyage était merveilleux, et elle me tente d'y aller aussi”* it is not "
    "perfect: a human translator would not memorise the whole sentence either, but read it again, part by part."
)
EQUATIONS = (  # each on two lines: one long line overflows a phone
    r"\begin{gathered}\text{encoder: } h_t = \mathrm{GRU}(E\,x_t,\; h_{t-1}),\ t \le S \\ "
    r"\text{context: } c = h_S \in \mathbb{R}^D\end{gathered}",
    r"\begin{gathered}\text{decoder: } s_t = \mathrm{GRU}\big([E\,y_{t-1};\; c],\; s_{t-1}\big) \\ s_0 = c,\quad "
    r"p(y_t \mid y_{<t}, x) = \\ \mathrm{softmax}\big(W_o \tanh(W_c[c;\, s_t])\big)\end{gathered}",
)


def exercises(results: Comparison | None = None) -> list[Exercise]:
    """Computations by hand and one prediction, in page order; every answer computed by the lesson's code (the
    models, the pooling, the reading order), none read off a chart (``results`` is not needed any more; kept for
    the page)."""
    return [*both_directions.exercises(), *pooling.exercises(), *rerun.exercises()]
