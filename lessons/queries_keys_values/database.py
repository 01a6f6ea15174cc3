"""Section 4: the NLP lecture's database analogy, a table looked up softly.

A query is compared with every key of a key → value table (English words and their Turkish translations); each row
is weighted by the similarity of its key with the query, p(i | q) ∝ exp(sharpness · sim(q, kᵢ)). Hand-written
feature vectors stand in for Enc(·), so a student can read why each row scores as it does; the exercise takes the
sharpness beyond the slider, where the soft lookup becomes a hard one.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from lessons.common import charts
from lessons.common.exercises import Exercise
from minimodels.attention import masked_softmax

TITLE = "4 · A database you query softly"
TEXT = (
    "The NLP lecture's analogy: a table pairs **keys** (English words) with **values** (their Turkish "
    "translations). A database returns the value whose key *equals* the query. Attention returns every value, "
    "each weighted by how *similar* its key is to the query: p(i | q) ∝ exp(sharpness · sim(q, kᵢ)). Here Enc(·) "
    "is a hand-written feature vector per word ({features}), so you can read why each row scores as it does."
)
FEATURES = ("animal", "mammal", "person", "nature", "made by people", "small")

# The lecture's table (English key -> Turkish value), with a hand-written feature vector per key that stands
# in for Enc(k): the model would learn these; here they are written down so a student can read them.
TABLE: tuple[tuple[str, str, tuple[float, ...]], ...] = (
    ("sheep", "koyun", (1, 1, 0, 0.3, 0, 0)),
    ("river", "ırmak", (0, 0, 0, 1, 0, 0)),
    ("author", "yazar", (0, 0.2, 1, 0, 0, 0)),
    ("bull", "boğa", (1, 1, 0, 0.3, 0, 0)),
    ("fly", "sinek", (1, 0, 0, 0.3, 0, 1)),
    ("radio", "radyo", (0, 0, 0, 0, 1, 0.3)),
    ("farmer", "çiftçi", (0, 0.2, 1, 0.3, 0, 0)),
    ("plant", "bitki", (0, 0, 0, 1, 0, 0.3)),
    ("actress", "aktris", (0, 0.2, 1, 0, 0, 0)),
    ("home", "ev", (0, 0, 0, 0, 1, 0)),
    ("snail", "salyangoz", (1, 0, 0, 0.3, 0, 1)),
)

QUERIES: dict[str, tuple[float, ...]] = {
    "words for mammals": (0.5, 1, 0, 0, 0, 0),
    "small creatures": (0.5, 0, 0, 0, 0, 1),
    "people": (0, 0, 1, 0, 0, 0),
    "things in nature": (0, 0, 0, 1, 0, 0),
    "things people made": (0, 0, 0, 0, 1, 0),
}


@dataclass(frozen=True)
class Lookup:
    query: str
    keys: tuple[str, ...]
    values: tuple[str, ...]
    similarity: torch.Tensor  # (n_rows,) Enc(q)·Enc(k_i)
    weights: torch.Tensor  # (n_rows,) softmax(sharpness × similarity)

    def best(self) -> tuple[str, str, float]:
        i = int(self.weights.argmax())
        return self.keys[i], self.values[i], float(self.weights[i])


def soft_lookup(query: str, sharpness: float = 3.0) -> Lookup:
    """p(i | q) ∝ exp(sharpness · sim(Enc(q), Enc(k_i))): every row of the table answers, a little or a lot.

    ``sharpness`` plays the role of 1/temperature: as it grows the soft lookup becomes the database's hard
    one (all the weight on the best-matching key); at 0 every row gets the same weight.
    """
    if query not in QUERIES:
        raise ValueError(f"unknown query {query!r}; choose one of {sorted(QUERIES)}")
    q = torch.tensor(QUERIES[query], dtype=torch.float32)  # (F,)
    K = torch.tensor([row[2] for row in TABLE], dtype=torch.float32)  # (n_rows, F)
    similarity = K @ q  # (n_rows,)
    weights = masked_softmax(sharpness * similarity)
    return Lookup(
        query=query,
        keys=tuple(row[0] for row in TABLE),
        values=tuple(row[1] for row in TABLE),
        similarity=similarity,
        weights=weights,
    )


def lookup_figure(lookup: Lookup):
    """p(i | q) as one bar per row of the table, labelled "key → value"."""
    labels = [f"{k} → {v}" for k, v in zip(lookup.keys, lookup.values, strict=True)]
    return charts.weight_bars(labels, lookup.weights, title=f"p(i | “{lookup.query}”)")


def hard_lookup_exercise() -> Exercise:
    """Sharpness 40, beyond the slider: the nearly hard lookup splits its weight between the tied best keys."""
    hard = soft_lookup("things in nature", sharpness=40.0)
    river = hard.keys.index("river")
    tied = [hard.keys[i] for i in torch.nonzero(hard.similarity == hard.similarity.max()).flatten()]
    return Exercise(
        key="queries_keys_values.ex3",
        prompt=(
            "Predict, beyond the slider's range: query *things in nature* in the database table with "
            "sharpness 40, a nearly hard lookup. What weight does *river → ırmak* get? (two decimals)"
        ),
        answer=float(hard.weights[river]),
        tolerance=0.01,
        explanation=f"{' and '.join(tied)} both score {float(hard.similarity.max()):g} with this query, every "
        f"other row at most {float(hard.similarity[hard.similarity < hard.similarity.max()].max()):g}. As the "
        "sharpness grows, all the weight goes to the best keys and splits equally between tied ones: "
        f"{float(hard.weights[river]):.2f} for river. A database's exact match returns one row; the hard limit "
        "of a soft lookup returns the average of the tied rows' values.",
        hint="Look for ties among the best-matching keys.",
    )
