"""Section 4: the NLP lecture's database analogy, a table looked up softly.

A query is compared with every key of a key → value table (English words and their Turkish translations); each row
is weighted by the similarity of its key with the query, p(i | q) ∝ exp(sharpness · sim(q, kᵢ)). Hand-written
feature vectors stand in for Enc(·), so a student can read why each row scores as it does; the exercise takes the
sharpness beyond the slider, where the soft lookup becomes a hard one.
"""

from __future__ import annotations

import math
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

    def tied_best(self) -> list[int]:
        """The rows with the largest weight (several when their keys score the same, every row at sharpness 0)."""
        top = float(self.weights.max())
        return [i for i, w in enumerate(self.weights.tolist()) if math.isclose(w, top, rel_tol=1e-5)]


def best_sentence(lookup: Lookup) -> str:
    """Which row weighs most, computed: one row, or every row tied for the best score, with each one's weight."""
    rows = lookup.tied_best()
    share = float(lookup.weights[rows[0]])
    named = [f"**{lookup.keys[i]} → {lookup.values[i]}**" for i in rows]
    if len(rows) == 1:
        return f"The row that weighs most: {named[0]} with {share:.0%} of the weight."
    if len(rows) == len(lookup.keys):
        return f"All {len(rows)} rows weigh the same, {share:.0%} each: at this sharpness no key stands out."
    listed = ", ".join(named[:-1]) + " and " + named[-1]
    return (
        f"{len(rows)} rows tie for the most weight: {listed}, {share:.0%} each. Their keys' feature vectors score "
        f"the same with this query ({float(lookup.similarity[rows[0]]):g}), so no sharpness can separate them."
    )


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


EXERCISE_QUERY = ("a creature", (1, 0, 0, 0, 0, 0))  # not one of QUERIES: the page cannot show its answer
EXERCISE_ROW = "fly"


def table_rows() -> list[dict]:
    """The hand-written table: each key, its value and its feature vector, one column a feature."""
    return [{"key": k, "value": v, **dict(zip(FEATURES, f, strict=True))} for k, v, f in TABLE]


def custom_lookup(q: tuple[float, ...], sharpness: float) -> torch.Tensor:
    """p(i | q) for a query vector ``q`` of its own (not one of :data:`QUERIES`): the same formula as
    :func:`soft_lookup`."""
    K = torch.tensor([row[2] for row in TABLE], dtype=torch.float32)  # (n_rows, F)
    return masked_softmax(sharpness * (K @ torch.tensor(q, dtype=torch.float32)))  # (n_rows,)


def hard_lookup_exercise() -> Exercise:
    """Sharpness 40, beyond the slider, for a query the page does not offer: the nearly hard lookup splits its
    weight between the tied best keys, which the student finds in the table of feature vectors."""
    name, q = EXERCISE_QUERY
    K = torch.tensor([row[2] for row in TABLE], dtype=torch.float32)  # (n_rows, F)
    similarity = K @ torch.tensor(q, dtype=torch.float32)  # (n_rows,)
    weights = custom_lookup(q, 40.0)
    keys = [row[0] for row in TABLE]
    row = keys.index(EXERCISE_ROW)
    tied = [keys[i] for i in torch.nonzero(similarity == similarity.max()).flatten()]
    rest = float(similarity[similarity < similarity.max()].max())
    return Exercise(
        key="queries_keys_values.ex3",
        prompt=(
            f"Predict, with the table of feature vectors: a query *{name}* = {q} (not in the list above) looks up "
            f"the database table with sharpness 40, a nearly hard lookup. What weight does *{EXERCISE_ROW} → "
            f"{TABLE[row][1]}* get? (two decimals)"
        ),
        answer=float(weights[row]),
        tolerance=0.01,
        explanation=f"{', '.join(tied)} all score {float(similarity.max()):g} with this query, every other row at "
        f"most {rest:g}. As the sharpness grows, all the weight goes to the best keys and splits equally between "
        f"tied ones: {float(weights[row]):.2f} for {EXERCISE_ROW}. A database's exact match returns one row; the "
        "hard limit of a soft lookup returns the average of the tied rows' values.",
        hint="Dot the query with each key's feature vector and look for ties among the best.",
    )
