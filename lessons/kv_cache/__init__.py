r"""Lesson: what attention costs, and the KV cache (Part 4).

A causal decoder that generates runs once per token. Recomputing the prefix at every step makes one step cost
:math:`O(t^2 d)` at length t; a cache of keys and values makes it :math:`O(t\,d)` and costs :math:`2\,t\,d` numbers of
memory that grow with every token. A sliding window bounds that memory and loses what lies further back; linear
attention (Katharopoulos et al. 2020, *Transformers are RNNs*) bounds it with running sums, an RNN again, and meets
lesson 2's bottleneck. The decoder is the masking lesson's (:class:`minimodels.small.TinyDecoder`); the cache, the
window and linear attention are in :mod:`minimodels.kv_cache` and :mod:`minimodels.linear_attention`. Measured results
are made by ``scripts/kv_cache_results.py`` (:mod:`.results`). This package never imports streamlit.

Letters: t the length (tokens so far), d d_model, q, k, v a query, key and value, K, V the cached keys and values, w
the window, φ the feature map, S and u linear attention's running sums, D a GRU's state size.

The page's sections, in order:

* :mod:`.cached_decoding` — 1, the shipped causal decoder generates the student's word both ways;
* :mod:`.cost` — 2, one step's time against the length (shipped and measured live) and the memory;
* :mod:`.window` — 3, a sliding window on a task whose answer may lie further back;
* :mod:`.linear` — 4, linear attention, its recurrent form, and the length sweep of lesson 2.

Shared: :mod:`.timing` (the step timer), :mod:`.window_task` (the capital-letter task and its training),
:mod:`.length_sweep` (the copy task's three models), :mod:`.results` (the shipped file).
"""

from __future__ import annotations

from lessons.common.exercises import Exercise
from lessons.kv_cache import cached_decoding, cost, linear, window

INTRO = (
    "Every lesson so far ran a model over a whole sequence at once. A decoder that *generates* cannot: it writes "
    "one token, reads it back, writes the next. Attention makes each of those steps look at everything written so "
    "far, so the question this lesson measures is what a step costs as the text grows, in time and in memory, and "
    "what the ways of making it cheaper give up. The decoder is the one the masking lesson trained; the tools are the "
    "key–value cache that generating decoders keep, the sliding window of Longformer (Beltagy et al. 2020), and "
    "linear attention from *Transformers are RNNs* (Katharopoulos et al. 2020)."
)
INTRO_EQUATION = (  # on two lines: one long line overflows a phone
    r"\begin{gathered}\text{step } t:\quad \underbrace{O(t^2 d)}_{\text{recompute}} \;\to\; "
    r"\underbrace{O(t\,d)}_{\text{cache: } 2td \text{ numbers}} \\ \to\; \underbrace{O(w\,d)}_{\text{window } w}"
    r" \;\to\; \underbrace{O(d^2)}_{\text{linear: a state of } d^2 + d}\end{gathered}"
)


def exercises() -> list[Exercise]:
    """The check-yourself questions at the end of the page, computed by hand: keys a recompute computes, a cache's
    kilobytes, a window's best accuracy, linear attention's state."""
    return [
        cached_decoding.keys_exercise(),
        cost.cache_size_exercise(),
        window.ceiling_exercise(),
        linear.state_exercise(),
    ]
