"""Lesson: the architecture lab (Part 4), after Domhan, "How much attention do you need?", ACL 2018 (Sockeye).

The student writes an encoder and a decoder as layer chains in the paper's language, sees the architecture
drawn and its parameters counted, trains it live, and compares runs with each other and with shipped runs of
the paper's main combinations, beside the paper's own BLEU table (quoted, credited, never recomputed).
No streamlit here: the page calls these functions.

Letters: d the model's width (d = 64 here), n a repeat count, l a layer.

The sections, in page order:

- :mod:`.layer_reference`: the chain language's reference table and rules (folded under the introduction);
- :mod:`.writing_chains`: 1 · write an encoder and a decoder: check, build, count, untrained maps;
- :mod:`.training`: 2 · train it: the lab's recipe, a live run, its row of the comparison table;
- :mod:`.compare`: 3 · compare: the poster's tables and findings as the shipped grid measured them;
- :mod:`.learning_curves`: how each preset of a poster table learned (its curves over seeds);
- :mod:`.paper_numbers`: the paper's own BLEU table and what of the poster is not reproduced, closing section 3.

Shared by several sections: :mod:`.presets` (the paper's combinations, made small), :mod:`.architecture_drawing`
(the SVG of both chains), :mod:`.attention_maps` (the maps' figures, heads averaged or each head) and
:mod:`.compare_runs` (the results script's run of a preset and the reading of the shipped grid). Here: the
introduction's words and equations, and :func:`exercises`, the questions of the page's tail.
"""

from __future__ import annotations

from lessons.architecture_lab import layer_reference, presets
from lessons.common.exercises import Exercise

INTRO = (
    "Is it the attention that makes the Transformer good, or everything around it? Domhan's *How much attention "
    "do you need?* (ACL 2018) answered by writing encoders and decoders as **chains of layers** in a small "
    "language, then swapping one kind of layer for another: self-attention, recurrent (RNN) or convolutional "
    "(CNN) layers, on the source side, the target side, or both. Here you write chains in the same language, "
    "see the architecture they make, train it, and compare it with the paper's combinations."
)
CHAINS = (
    "Every layer maps a sequence of d-dimensional vectors to another, so any chain of layers is a model. "
    "`res(l)` adds a layer's input to its output, and `repeat(n, l)` stacks n copies, each with its own weights:"
)
# in lines (gathered): as one row it is wider than a phone's 390 px (tests/browser/test_phone.py)
EQUATION = (
    r"\begin{gathered} \mathrm{res}(l)(x) = x + l(x) \\"
    r" \mathrm{repeat}(n, l) = l^{(n)} \circ \dots \circ l^{(1)} \end{gathered}"
)
TRANSFORMER_CHAIN = (  # in three lines under its name, as the equation above
    r"\begin{gathered} \text{a Transformer encoder:} \\ \texttt{pos}\to\texttt{repeat}(6,\ \\"
    r" \quad\texttt{res}(\texttt{norm}\to\texttt{mh\_dot\_self\_att}) \\"
    r" \quad\to\texttt{res}(\texttt{norm}\to\texttt{ff}))\to\texttt{norm} \end{gathered}"
)


def exercises() -> list[Exercise]:
    """The questions of the page's tail, each computed by the module it asks about."""
    return [
        layer_reference.attention_parameters_exercise(),
        layer_reference.decoder_layer_exercise(),
        presets.none_decoder_exercise(),
    ]
