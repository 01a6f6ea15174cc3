r"""Lesson: multi-head attention (Part 2).

Follows the Transformer lecture's "What is multi-head self-attention": the input *Thinking Machines* is embedded,
"split into 8 heads" (each head multiplies X by its own W_i^Q, W_i^K, W_i^V), each head computes attention, and
"the resulting Z matrices" are concatenated and multiplied by W^O. Why: "it expands the model's ability to focus
on different positions" and "gives the attention layer multiple representation subspaces". Vaswani et al. 2017,
§3.2.2:

.. math:: \mathrm{MultiHead}(Q,K,V) = \mathrm{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_h)\,W^O,\quad
          \mathrm{head}_i = \mathrm{Attention}(QW_i^Q, KW_i^K, VW_i^V)

The sections, in the page's order:

* :mod:`~lessons.multi_head_attention.split`: the split by hand, head by head, on the student's words, checked
  against :class:`minimodels.attention.MultiHeadAttention` and ``torch.nn.MultiheadAttention`` on the page itself,
  and the layer's learned numbers for every h; its figures in :mod:`~lessons.multi_head_attention.split_heatmaps`;
* :mod:`~lessons.multi_head_attention.every_head`: every head of every layer of a trained
  :class:`~minimodels.transformer.TinyTransformer` on the student's sentence, with numbers that say what each head
  does (its maps read by :mod:`~lessons.multi_head_attention.transformer_maps`, which section 3 shares);
* :mod:`~lessons.multi_head_attention.head_counts`: 1, 2, 4 and 8 heads trained with the same budget
  (``assets/results/multi_head_attention.json``, written by ``scripts/multi_head_attention_results.py`` with
  :mod:`~lessons.multi_head_attention.head_counts_runs`), then the same training live for one student
  (:mod:`~lessons.multi_head_attention.train_yourself`);
* :mod:`~lessons.multi_head_attention.resolving_it`: which head resolves "it" in the lecture's *The animal didn't
  cross the street because it was too tired*, on a resolver trained on a small grammar
  (``assets/results/multi_head_attention_it.json`` and the shipped model, written by
  ``scripts/multi_head_attention_coreference.py`` with :mod:`~lessons.multi_head_attention.resolving_it_runs`),
  set beside the lecture's picture with what its heads weigh instead (:mod:`~lessons.multi_head_attention.it_instead`).

Letters: S tokens (source), T output tokens, d = d_model, h heads, d_k = d / h. This package never imports
streamlit.
"""

from __future__ import annotations

from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.multi_head_attention import head_counts, resolving_it, split
from minimodels.coreference import ItResolver

INTRO = (
    "One attention layer gives every word **one** distribution over the others. But a word may need several "
    "things at once: the word before it, the subject of its verb, the source word it translates. Multi-head "
    "attention runs h attentions side by side, each in its own smaller space: d_model is cut into h heads of "
    "d_k = d_model / h numbers, each head has its own Wᵢ^Q, Wᵢ^K, Wᵢ^V and its own attention map, and the h "
    "results are concatenated and mixed by one more matrix, W^O. In the lecture's words, it “expands the model's "
    "ability to focus on different positions” and gives the layer multiple “representation subspaces”."
)
EQUATIONS = (  # short lines, centred, so a phone's narrow column holds them
    r"\begin{gathered}\mathrm{MultiHead}(Q,K,V) = \\ \mathrm{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_h)\,W^O \\"
    r"\mathrm{head}_i = \mathrm{Attention}(QW_i^Q,\, KW_i^K,\, VW_i^V) \\"
    r"d_k = d_\text{model} / h\end{gathered}"
)


def exercises() -> list[Exercise]:
    """The check-yourself section: :func:`split.by_hand <lessons.multi_head_attention.split.by_hand>`, and the "it"
    computation when the shipped resolver loads."""
    try:
        return [*split.by_hand(), resolving_it.shipped_it_by_hand()]
    except (OSError, ValueError):
        return [*split.by_hand()]


def every_exercise(results: Comparison | None = None, resolver: ItResolver | None = None) -> list[Exercise]:
    """Every exercise of the lesson: the computations by hand, the split prediction and, when the shipped results
    are loaded, the alignment prediction; with the shipped resolver, the "it" prediction and its hand computation.
    Every answer is computed by the modules, from the results or by the model."""
    found = [*split.by_hand(), split.split_prediction()]
    if results is not None:
        found.append(head_counts.alignment_prediction(results))
    if resolver is not None:
        found += [resolving_it.it_switch_prediction(resolver), resolving_it.it_by_hand(resolver)]
    return found
