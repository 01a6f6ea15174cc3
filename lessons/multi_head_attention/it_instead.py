"""Section 4, set beside the lecture: where the shipped resolver's heads put their weight from "it".

The lecture asks of *The animal didn't cross the street because it was too tired* "Animal? Street?", and the
picture it invites is a head whose weight from "it" lands on the noun "it" means. This module measures, on the
shipped resolver and the test split, how much weight each head gives from "it" to each kind of word (the referent,
the other noun, the adjective, "it" itself, any other word: :func:`weight_by_kind`), and says in sentences computed
from those numbers whether the model draws the lecture's picture and what it weighs instead (:func:`instead_lines`).
One model (the shipped seed), 600 test sentences: a description of that model, not a comparison of variants.

Letters: B sentences, T words, h heads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch

from minimodels.coreference import ItResolver
from minimodels.tasks import coreference

KINDS: tuple[str, ...] = ("referent", "other noun", "adjective", "“it” itself", "another word")
LOOKS = 0.5  # a head "looks at" a kind of word when its mean weight from "it" there is at least this
LECTURE_PICTURE = (
    "The lecture asks “Animal? Street?” and gives no weights: the picture it invites is a head whose weight from "
    "“it” lands on the noun “it” means (the animal with *tired*, the street with *wide*)."
)


def weight_by_kind(model: ItResolver, sentences: Sequence[coreference.ItSentence]) -> dict[str, dict[str, list]]:
    """Per layer, per head: the mean weight from "it" on each of :data:`KINDS` over ``sentences`` (summing to 1 per
    head), ``"all"``; the same over the sentences ending in a creature's adjective (tired, …: "it" is the creature),
    ``"creature"``, and over those ending in a place's (wide, …), ``"place"``. Each (h, kinds)."""
    batch = coreference.encode(list(sentences))
    rows = torch.arange(len(sentences))
    kind = torch.full(batch["tokens"].shape, len(KINDS) - 1)  # (B, T) the kind of every word, "another word" first
    kind[rows, batch["referent"]] = 0
    kind[rows, batch["other"]] = 1
    kind[rows, batch["lengths"] - 1] = 2  # every sentence of the grammar ends with its adjective
    kind[rows, batch["it"]] = 3
    onehot = torch.nn.functional.one_hot(kind, len(KINDS)).float()  # (B, T, kinds)
    creature = torch.tensor([s.tokens[-1] in coreference.CREATURE_ADJECTIVES for s in sentences])  # (B,)
    with torch.inference_mode():
        out = model(batch["tokens"], batch["lengths"], batch["it"])
        found = {}
        for name, w in out.attention.items():
            from_it = w[rows, :, batch["it"]]  # (B, h, T)
            mass = torch.einsum("bht,btk->bhk", from_it, onehot)  # (B, h, kinds) weight on each kind of word
            found[name] = {
                "all": mass.mean(0).tolist(),
                "creature": mass[creature].mean(0).tolist(),
                "place": mass[~creature].mean(0).tolist(),
            }
    return found


def heads_of(measures: Mapping[str, Mapping[str, list]]) -> list[tuple[str, int, dict[str, np.ndarray]]]:
    """``(layer, head index, {"all" | "creature" | "place": mean weight per kind})``, every head in order."""
    return [
        (layer, j, {group: np.asarray(m[group][j]) for group in ("all", "creature", "place")})
        for layer, m in measures.items()
        for j in range(len(m["all"]))
    ]


def _name(head: tuple) -> str:
    return f"{head[0]} head {head[1] + 1}"


def instead_rows(measures: Mapping[str, Mapping[str, list]]) -> list[dict]:
    """One row per head: its mean weight from "it" on the referent, the other noun and "it" itself, and on the
    adjective, apart for the two kinds of adjective."""
    rows = []
    for layer, j, m in heads_of(measures):
        row = {"layer · head": f"{layer} · head {j + 1}"}
        row.update({f"α on {KINDS[k]}": f"{m['all'][k]:.2f}" for k in (0, 1, 3)})
        row["α on the adjective: a creature's (tired, …)"] = f"{m['creature'][2]:.2f}"
        row["α on the adjective: a place's (wide, …)"] = f"{m['place'][2]:.2f}"
        rows.append(row)
    return rows


INSTEAD_CAPTION = (
    "Per head of the shipped model, mean weight from “it” over the 600 test sentences: on the noun “it” means, the "
    "other noun and “it” itself, and on the last word, the adjective, over the 300 sentences ending in a creature's "
    "adjective and the 300 ending in a place's. Computed from the shipped checkpoint when the page starts, for this "
    "one model: the other seeds' heads were not measured this way."
)


def instead_lines(
    measures: Mapping[str, Mapping[str, list]],
    default: Mapping[str, np.ndarray],
    tokens: Sequence[str],
    referent: int | None,
) -> list[str]:
    """Whether the model draws the lecture's picture, and what it weighs instead, in sentences computed from
    :func:`weight_by_kind` (``measures``) and the weights from "it" on the lecture's sentence (``default``: layer ->
    (h, T) over ``tokens``, ``referent`` the position of the noun "it" means there, or None)."""
    heads = heads_of(measures)
    n = len(heads)
    by_ref = max(heads, key=lambda h: h[2]["all"][0])
    lookers = [h for h in heads if h[2]["all"][0] >= LOOKS]
    if lookers:
        picture = (
            f"The shipped model draws it: {len(lookers)} of its {n} heads put on average {LOOKS:.0%} or more of "
            f"their weight from “it” on the referent ({_name(by_ref)}: {by_ref[2]['all'][0]:.2f})."
        )
    else:
        picture = (
            f"The shipped model does **not** draw it: over the test sentences none of its {n} heads puts on average "
            f"{LOOKS:.0%} of its weight from “it” on the referent; the most any head puts there is "
            f"{by_ref[2]['all'][0]:.2f} ({_name(by_ref)}, against {by_ref[2]['all'][1]:.2f} on the other noun)."
        )
    lines = [f"{LECTURE_PICTURE} {picture}"]
    gap = lambda h: h[2]["creature"][2] - h[2]["place"][2]  # noqa: E731  how much more a creature's adjective gets
    sorter = max(heads, key=lambda h: abs(gap(h)))
    big, small = ("creature", "place") if gap(sorter) > 0 else ("place", "creature")
    lines.append(
        f"What it weighs instead: {_name(sorter)} puts on average {sorter[2][big][2]:.2f} of its weight from “it” on "
        f"the adjective when it is a {big}'s and {sorter[2][small][2]:.2f} when it is a {small}'s. Whether that head "
        "looks at the adjective tells which kind of noun “it” means, so the model can resolve “it” through the "
        "adjective, which decides the referent in this grammar; the noun-against-noun measures above cannot see that."
        if abs(gap(sorter)) >= LOOKS
        else f"No head's weight on the adjective differs by {LOOKS:.0%} between the two kinds of adjective (the most: "
        f"{abs(gap(sorter)):.2f}, {_name(sorter)}): the answer is spread over several heads' small weights."
    )
    if referent is not None:
        noun = tokens[referent]
        on_noun = max(float(w[:, referent].max()) for w in default.values())
        first = default["layer 1"]  # (h, T)
        head, pos = np.unravel_index(int(first.argmax()), first.shape)
        lines.append(
            f"On the lecture's sentence itself, the most any of the {n} heads puts on “{noun}” is {on_noun:.3f}; "
            f"the largest weight from “it” in layer 1 is head {head + 1}'s {first[head, pos]:.3f}, on "
            f"“{tokens[pos]}”."
        )
    return lines
