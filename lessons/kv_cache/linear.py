r"""Section 4 of the KV-cache lesson: linear attention, an RNN again, on the bottleneck lesson's length sweep.

Katharopoulos et al. (2020) replace softmax's :math:`\exp(q^\top k/\sqrt{d})` by :math:`\phi(q)^\top\phi(k)`;
the sums over keys can then be kept as running sums, a state of fixed size: attention as a recurrence
(:mod:`minimodels.linear_attention`). The section checks on the page that both forms compute the same, then reads
the shipped length sweep (:mod:`lessons.kv_cache.length_sweep`): the GRU alone, softmax and linear attention on the
copy task, exact match by length over seeds, every claim through the verdict rule.

Letters: D the state size, S source positions, d the size of q, k, v.
"""

from __future__ import annotations

import numpy as np
import torch

from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.kv_cache.length_sweep import LONG, LONG_METRIC, MODELS, PER_LENGTH, SHORT, D, what_it_reads
from lessons.kv_cache.results import RESULTS
from lessons.seq2seq_bottleneck.experiment import MAX_LEN
from lessons.seq2seq_bottleneck.shipped import length_spread, versus
from minimodels.attention import causal_mask
from minimodels.linear_attention import linear_attention, linear_attention_recurrent, state_size

TITLE = "4 · Linear attention: an RNN again"
TEXT = (
    "The cache grows because softmax needs every key again for every new query. Katharopoulos and colleagues "
    "(2020) asked what happens if the similarity of a query and a key is a dot product of features, "
    "φ(q)·φ(k), with φ(x) = elu(x) + 1 keeping it positive. Then the query can be taken out of the sum: every "
    "output reads the same two running sums, S (a d × d matrix of φ(k)vᵀ) and u (a vector of φ(k)). Written one "
    "token at a time it is a recurrence, an RNN whose state is S and u: d² + d numbers, whatever the length. "
    "So the circle closes on lesson 2's bottleneck: is a fixed-size state, even a large one, enough to copy a long "
    "string?"
)
EQUATIONS = (
    r"\begin{gathered}z_i = \frac{\sum_{j \le i} \phi(q_i)^\top \phi(k_j)\, v_j}{\sum_{j \le i} \phi(q_i)^\top "
    r"\phi(k_j)} \\ = \frac{\phi(q_i)^\top S_i}{\phi(q_i)^\top u_i}\end{gathered}",
    r"\begin{gathered}S_i = S_{i-1} + \phi(k_i)\, v_i^\top,\quad u_i = u_{i-1} + \phi(k_i) \\ "
    r"\phi(x) = \mathrm{elu}(x) + 1\end{gathered}",
)


def parity(T: int, d: int = 8, seed: int = 0) -> float:
    """The largest difference between the recurrent and the parallel (causal) form on random q, k, v of ``T``
    positions (float64)."""
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(1, T, d, generator=g, dtype=torch.float64) for _ in range(3))
    parallel, _ = linear_attention(q, k, v, causal_mask(T))
    recurrent, _ = linear_attention_recurrent(q, k, v)
    return float((parallel - recurrent).abs().max())


def reads_rows(lengths: tuple[int, ...] = (2, 10, MAX_LEN)) -> list[dict]:
    """How many numbers each model's decoder can read of the source, at a few source lengths (EOS included)."""
    return [
        {"model": label, **{f"{n} characters": what_it_reads(model, n + 1) for n in lengths}}
        for model, label in MODELS.items()
    ]


def _length_points(results: Comparison) -> list[dict]:
    out = []
    for order, model in enumerate(MODELS):
        for run in results.runs_of(model):
            out += [
                {
                    "variant": model,
                    "label": MODELS[model],
                    "order": order,
                    "seed": run.seed,
                    "x": p["length"],
                    "y": p["exact_match"],
                }
                for p in run.curve
            ]
    return out


def chart(results: Comparison) -> dict:
    """Exact match against the string's length, per model: every seed faintly, the mean ± sd."""
    return curves_chart(
        _length_points(results),
        y_title="exact match",
        x_title="string length (characters)",
        title=f"Copying, by length (D = {D})",
        height=320,
        percent=True,
    )


def table(results: Comparison) -> list[dict]:
    """Per model: exact match on the short and on the long strings, mean ± sd over the seeds, and n."""
    rows = []
    for model, label in MODELS.items():
        short = length_spread(results, model, D, SHORT)
        long = length_spread(results, model, D, LONG)
        rows.append(
            {
                "model": label,
                "n": long.n,
                f"{SHORT[0]}–{SHORT[1]} characters": short.text(".1%", with_n=False),
                f"{LONG[0]}–{LONG[1]} characters": long.text(".1%", with_n=False),
            }
        )
    return rows


def verdicts(results: Comparison) -> dict:
    """The three comparisons the section draws, on the long strings, through the verdict rule."""
    spread = {m: length_spread(results, m, D, LONG) for m in MODELS}

    def pair(a: str, b: str):
        return versus((MODELS[a].capitalize(), spread[a]), (MODELS[b], spread[b]), LONG_METRIC, RESULTS.stem)

    return {
        "softmax vs linear": pair("gru-softmax", "gru-linear"),
        "linear vs gru": pair("gru-linear", "gru-none"),
        "softmax vs gru": pair("gru-softmax", "gru-none"),
    }


def sentences(results: Comparison) -> list[str]:
    found = verdicts(results)
    out = [v.sentence(".1%", v.metric) for v in found.values()]
    reach = {m: _reach(results, m) for m in MODELS}
    out.append(
        "The longest length at which each model still copies at least half of the strings (mean over seeds): "
        + ", ".join(f"{MODELS[m]} {reach[m]:.0f}" for m in MODELS)
        + "."
    )
    return out


def _reach(results: Comparison, model: str) -> float:
    lengths = []
    for run in results.runs_of(model):
        ok = [p["length"] for p in run.curve if p["exact_match"] >= 0.5]
        lengths.append(max(ok) if ok else 0)
    return float(np.mean(lengths))


LINEAR_CHOICES = (
    "as well as softmax attention: the state holds everything",
    "clearly worse than softmax attention: the fixed state is a bottleneck again",
    "no better than the GRU alone",
)


def linear_prediction(results: Comparison) -> Exercise:
    """Predict, before the reveal: how linear attention copies the longest strings (the answer from the verdicts;
    "too close to call" against softmax counts as the first choice)."""
    found = verdicts(results)
    if found["softmax vs linear"].outcome != "better":
        answer = 0
    elif found["linear vs gru"].outcome == "better":
        answer = 1
    else:
        answer = 2
    return Exercise(
        key="kv_cache.ex7",
        prompt=(
            f"**Predict before you reveal.** The copy task of lesson 2, with D = {D}: the decoder's state is the "
            f"query, the encoder's states are the keys and values. Linear attention's state has "
            f"{state_size(D):,} numbers, more than the {what_it_reads('gru-softmax', MAX_LEN + 1):,} softmax reads "
            f"for the longest string. On strings of {LONG[0]}–{LONG[1]} characters, linear attention copies…"
        ),
        choices=LINEAR_CHOICES,
        answer=answer,
        explanation=(
            " ".join(v.sentence(".1%", v.metric) for v in found.values())
            + " Size is not the whole story: softmax can pick out one key sharply (the exponential makes one score "
            "dominate), while φ(q)·φ(k) gives every key a share; the sums S and u blur the characters together "
            "and the decoder must read one of them back out of the mixture."
        ),
        hint="Can a sum of positive weights point at one character as sharply as a softmax can?",
    )


def provenance_note(results: Comparison) -> str:
    sweep = results.meta.get("sweep", {})
    return (
        f"The bottleneck lesson's copy task and recipe (Adam at its rate, no early stop), D = {D}, "
        f"{sweep.get('steps')} steps per model instead of its 800, {sweep.get('per_length', PER_LENGTH)} held-out "
        "strings of each length instead of 100, greedy decoding; the linear model starts from the softmax model's "
        "initial weights. Means ± sd over the seeds."
    )


def state_exercise() -> Exercise:
    """By hand: numbers in linear attention's state at half the page's D (the page states the count at D itself,
    in the prediction before this one)."""
    d = D // 2
    return Exercise(
        key="kv_cache.ex8",
        prompt=(
            f"Linear attention with queries, keys and values of d = {d} numbers keeps S (d × d) and u (d). How many "
            "numbers is its state, after 10 tokens and after 10,000?"
        ),
        answer=state_size(d),
        explanation=(
            f"d² + d = {d * d:,} + {d} = {state_size(d):,}, the same at any length. A key–value cache of the same d "
            f"holds 2·d numbers per token: {2 * d * 10:,} after 10 tokens, {2 * d * 10_000:,} after 10,000."
        ),
        hint="The sums do not grow with the tokens: count S and u.",
    )
