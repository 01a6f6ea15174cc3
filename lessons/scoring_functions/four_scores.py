"""Section 1, four ways to score a key: the lecture's four similarity functions (dot, scaled dot, bilinear,
additive) with their equations and notes, the course's own score modules that compute them, their parameters
counted on the modules, and the exercises on them (a scaled dot score by hand, the additive and the bilinear
scores' parameters for unequal sizes)."""

from __future__ import annotations

import math

import torch
from torch import nn

from lessons.common.exercises import Exercise
from minimodels.attention import AdditiveAttention, BilinearAttention, DotProductAttention, ScaledDotProductAttention

TITLE = "1 · Four ways to score a key"
SCORES: tuple[str, ...] = ("dot", "scaled_dot", "bilinear", "additive")
LABELS = {
    "dot": "dot",
    "scaled_dot": "scaled dot",
    "bilinear": "bilinear (general)",
    "additive": "additive (MLP)",
}
COLORS = {"dot": "#1f77b4", "scaled_dot": "#2ca02c", "bilinear": "#ff7f0e", "additive": "#d62728"}
EQUATIONS = {
    "dot": r"\mathrm{sim}(q, k) = q^\top k",
    "scaled_dot": r"\mathrm{sim}(q, k) = \frac{q^\top k}{\sqrt{d}}",
    "bilinear": r"\mathrm{sim}(q, k) = q^\top W k,\quad W \in \mathbb{R}^{d \times d'}",
    "additive": r"\begin{gathered}\mathrm{sim}(q, k) = w_2^\top \tanh(W_1 [q; k] + b_1) \\"
    r"W_1 \in \mathbb{R}^{d'' \times (d + d')},\ b_1, w_2 \in \mathbb{R}^{d''}\end{gathered}",
}
NOTES = {
    "dot": "No parameters. Needs queries and keys of the same size (d = d′). Luong et al. 2015, “dot”.",
    "scaled_dot": "No parameters. For unit-variance entries, dividing by √d keeps the scores' spread near 1 "
    "whatever d is (Vaswani et al. 2017).",
    "bilinear": "A learned d × d′ matrix decides which directions of q and k should match; q and k may differ "
    "in size. Luong et al. 2015, “general”.",
    "additive": "A one-hidden-layer MLP on q and k: the most flexible, and the only non-linear one. "
    "Bahdanau et al. 2015.",
}
SCORES_NOTE = (
    "q has d entries and k has d′; the additive score's hidden layer has d″ units. The dot scores have nothing "
    "to learn; bilinear and additive learn *what* a good match is, which costs parameters (counted below on "
    "the modules themselves) and, for additive, a hidden layer per (query, key) pair."
)


def score_modules(query_size: int, key_size: int | None = None, hidden: int | None = None, seed: int = 0):
    """The four score modules for queries of ``query_size`` and keys of ``key_size`` (default: the same).

    Learned weights (bilinear ``W``, additive ``W_q``, ``W_k``, ``v``) are drawn from ``seed`` with PyTorch's
    default initialisation: an *untrained* score function. The dot scores need equal sizes: for unequal sizes
    they are left out.
    """
    key_size = key_size or query_size
    hidden = hidden or query_size
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        modules: dict[str, nn.Module] = {}
        if key_size == query_size:
            modules["dot"] = DotProductAttention()
            modules["scaled_dot"] = ScaledDotProductAttention()
        modules["bilinear"] = BilinearAttention(query_size, key_size)
        modules["additive"] = AdditiveAttention(query_size, key_size, hidden)
    return {name: m.eval() for name, m in modules.items()}


def parameter_count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def parameter_counts(query_size: int, key_size: int | None = None, hidden: int | None = None) -> dict[str, int]:
    """Parameters of each score function, counted on the modules themselves (dot: 0; bilinear: d·d′;
    additive: d·A + d′·A + A + A with ``W_k``'s bias). Scores that cannot compare the sizes are absent."""
    return {name: parameter_count(m) for name, m in score_modules(query_size, key_size, hidden).items()}


def accepts_sizes(score: str, query_size: int, key_size: int) -> bool:
    """Whether ``score``'s module can compare a query of ``query_size`` with keys of ``key_size``, found by
    trying it (the dot modules are built for matching sizes and fail on a mismatch)."""
    built = {
        "dot": DotProductAttention,
        "scaled_dot": ScaledDotProductAttention,
        "bilinear": lambda: BilinearAttention(query_size, key_size),
        "additive": lambda: AdditiveAttention(query_size, key_size, 8),
    }[score]()
    try:
        built.score(torch.zeros(1, 1, query_size), torch.zeros(1, 3, key_size))
    except RuntimeError:
        return False
    return True


HIDDEN = 24  # d″ of the by-hand additive count: not a size the page's own figures use
HAND_QUERY = (2.0, 0.0, 1.0, 1.0)
HAND_KEY = (1.0, 1.0, 1.0, 1.0)


def _by_hand_exercises() -> list[Exercise]:
    """By hand and by reading the modules: a scaled dot score, which scores compare a query and keys of unequal
    sizes, and how many parameters the bilinear score has for them."""
    q, k = torch.tensor([[HAND_QUERY]]), torch.tensor([[HAND_KEY]])
    dot = float(DotProductAttention().score(q, k))
    scaled = float(ScaledDotProductAttention().score(q, k))
    products = " + ".join(f"{a:g}·{b:g}" for a, b in zip(HAND_QUERY, HAND_KEY, strict=True))
    big_q, big_k = 64, 128
    bilinear = parameter_count(BilinearAttention(big_q, big_k))
    additive = parameter_count(AdditiveAttention(big_q, big_k, HIDDEN))
    d = len(HAND_QUERY)
    return [
        Exercise(
            key="scoring_functions.ex1",
            prompt=(
                f"By hand: the query is q = {HAND_QUERY} and a key is k = {HAND_KEY} (d = {d}). What is the "
                "**scaled dot** score q·k / √d?"
            ),
            answer=scaled,
            tolerance=0.01,
            explanation=(
                f"q·k = {products} = {dot:g} (the unscaled dot score), and √d = √{d} = {math.sqrt(d):g}, so "
                f"q·k / √d = {dot:g} / {math.sqrt(d):g} = {scaled:g}."
            ),
            hint="The usual slip is to stop at q·k, or to divide by d instead of √d.",
        ),
        Exercise(
            key="scoring_functions.ex2",
            prompt=(
                f"By hand, from the additive score's equation: a decoder state of size d = {big_q} attends over the "
                f"states of a bidirectional encoder, of size d′ = {big_k}, with d″ = {HIDDEN} hidden units. How many "
                "parameters do W₁, b₁ and w₂ hold together?"
            ),
            answer=additive,
            tolerance=0.5,
            explanation=(
                f"W₁ reads [q; k], {big_q} + {big_k} = {big_q + big_k} entries, into d″ = {HIDDEN} units: {HIDDEN} × "
                f"{big_q + big_k} = {HIDDEN * (big_q + big_k):,}; b₁ and w₂ add {HIDDEN} each: {additive:,} in all "
                "(counted on the module itself). Unlike q·k, which pairs entry j of q with entry j of k and so needs "
                f"d = d′ ({big_q} ≠ {big_k} here), W₁ reads the two sizes whatever they are."
            ),
            hint="W₁ has one row per hidden unit and one column per entry of [q; k]; then add b₁ and w₂.",
        ),
        Exercise(
            key="scoring_functions.ex3",
            prompt=f"By hand: how many parameters does the **bilinear** score qᵀWk have for that pair ({big_q} and "
            f"{big_k})?",
            answer=bilinear,
            tolerance=0.5,
            explanation=(
                f"qᵀWk is a number only if W has one row per entry of q and one column per entry of k: W is {big_q} × "
                f"{big_k} = {bilinear:,} numbers, and nothing else is learned (counted on the module itself)."
            ),
            hint="W has one row per query dimension and one column per key dimension.",
        ),
    ]
