r"""Lesson: the Transformer, the whole encoder–decoder (Part 2).

Every piece of the earlier lessons put together: an encoder of identical layers (self-attention, then a feed-forward
network), a decoder of identical layers (masked self-attention, encoder–decoder attention, then a feed-forward
network), every sublayer in a residual connection with layer normalisation, run on a trained model and measured.

Follows the Transformer lecture ("Overall architecture": an encoder stack and a decoder stack of identical
layers; "Self-Attention: focus on other words in the input sentence", "Encoder-Decoder Attention: focus on
relevant parts of the input sentence"; "Masking"; "Residual"; "Why feed forward NN?"; beam search on its last slide)
and Vaswani et al. 2017, §3. Each sublayer of ``minimodels.transformer.TinyTransformer`` sits in a residual
connection with layer normalisation:

.. math:: x + \mathrm{Sublayer}(\mathrm{LN}(x)) \;\text{(pre-LN, the course's default)} \qquad
          \mathrm{LN}(x + \mathrm{Sublayer}(x)) \;\text{(post-LN, the paper's)}

Letters: S source positions (EOS included), T decoded positions, d d_model, h heads, d_k = d / h, k the beam width.

The page, in order (every section's words, numbers, figures and exercises in its module):

* :mod:`~lessons.transformer.reading`: the task, its trained model and the student's sentence through it, every
  attention map kept (:func:`~lessons.transformer.reading.walk`); the kinds of map in
  :mod:`~lessons.transformer.maps`;
* :mod:`~lessons.transformer.diagram`: 1, the sentence through the model as a block diagram with its real shapes;
* :mod:`~lessons.transformer.every_head`: 2, every layer and every head of the three kinds of attention;
* :mod:`~lessons.transformer.resolving_it`: 3, what "it" refers to: the lecture's sentence against what the toy
  model can read, and what it does with the "it" of its grammar;
* :mod:`~lessons.transformer.ablation`: 4, residuals, layer norm and the feed-forward network by their effect: the
  convex-combination check (:mod:`~lessons.transformer.convex_combination`), two predictions, the shipped ablation
  (:mod:`~lessons.transformer.ablation_runs`, ``scripts/transformer_results.py``);
* :mod:`~lessons.transformer.depth`: 5, deeper stacks with and without residuals (``--experiment depth``);
* :mod:`~lessons.transformer.decoding`: 6, teacher forcing, then greedy decoding and beam search;
* :mod:`~lessons.transformer.train_it_yourself`: 7, a live training run of any variant;
* :mod:`~lessons.transformer.by_hand`: the check-yourself exercises of the page's end (:func:`exercises`).

Never imports streamlit.
"""

from __future__ import annotations

from torch import nn

from lessons.common.exercises import Exercise
from lessons.transformer import by_hand
from lessons.transformer.reading import MODEL
from minimodels.tasks import Task
from minimodels.train import default_train_config

INTRO = (
    "Put every piece of the last lessons together and you have the Transformer (Vaswani et al. 2017). An "
    "**encoder** of identical layers reads the whole source at once: in each layer every token looks at every "
    "other (*self-attention*: “focus on other words in the input sentence”, as the lecture puts it), then "
    "each token goes alone through a small feed-forward network. A **decoder** of identical layers writes "
    "the output one token at a time: *masked* self-attention over what it has written so far, "
    "*encoder–decoder attention* over the source (“focus on relevant parts of the input sentence”), then its "
    "own feed-forward network. Every sublayer sits in a **residual connection** with **layer normalisation**. "
    "No recurrence anywhere: the only way information moves between positions is attention."
)

# The layers' equations, one short line each, so that a phone's narrow column holds them
EQUATIONS = (
    r"\begin{aligned}"
    r"&\text{encoder layer:} \\ h &= x + \mathrm{MultiHead}(\mathrm{LN}(x)) \\"
    r"\mathrm{out} &= h + \mathrm{FFN}(\mathrm{LN}(h)) \\[4pt]"
    r"&\text{decoder layer:} \\ a &= y + \mathrm{MaskedMultiHead}(\mathrm{LN}(y)) \\"
    r"b &= a + \mathrm{MultiHead}(Q{=}\mathrm{LN}(a), \\ &\qquad K{=}V{=}\text{encoder output}) \\"
    r"\mathrm{out} &= b + \mathrm{FFN}(\mathrm{LN}(b)) \\[4pt]"
    r"\mathrm{FFN}(x) &= \max(0,\ xW_1 + b_1)\,W_2 + b_2 \\"
    r"\mathrm{LN}(x) &= \gamma \odot \frac{x - \mu(x)}{\sigma(x)} + \beta"
    r"\end{aligned}"
)


def layer_norm_note() -> str:
    """The caption under the layer equations: where the layer norm sits, and the recipe read from the training
    config. It states no result: section 4 measures one
    (:func:`lessons.transformer.ablation.warmup_sentence`)."""
    recipe = default_train_config(MODEL)
    return (
        "The course's models put the layer norm *before* each sublayer (pre-LN, Xiong et al. 2020); the paper puts "
        "it after the residual sum (post-LN), which Xiong et al. report needs a careful learning-rate warm-up. The "
        f"course trains every Transformer at a peak learning rate of {recipe.lr:g} after a {recipe.warmup_steps}-step "
        "warm-up. Section 4 trains both arrangements with that one recipe, and the same model without its residuals, "
        "its layer norms or its feed-forward networks, and says whether the short warm-up held post-LN back here."
    )


def exercises(model: nn.Module, task: Task) -> list[Exercise]:
    """The check-yourself list of the page's end: four on ``model`` (the shipped one) and ``task``, then two by hand;
    every answer computed by code (:mod:`lessons.transformer.by_hand`)."""
    return [*by_hand.model_exercises(model, task), *by_hand.hand_exercises()]
