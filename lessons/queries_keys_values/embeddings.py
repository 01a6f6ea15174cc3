"""Section 1: words as vectors, 1-hot against learned embeddings (the lecture's "Bringing tensors into the picture").

A 1-hot vector is as long as the vocabulary and makes every two words equally unlike; a learned embedding is a
table of |V| rows of d numbers. The shipped Bahdanau translator's source table, before and after training, is
projected to 2-D with PCA, and whether words that share a property (word class, French gender) are each other's
nearest neighbours is measured against shuffled labels. The exercise asks what Softmax(XXᵀ) of section 2 does with
1-hot vectors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lessons.common import charts
from lessons.common.exercises import Exercise
from lessons.common.pretrained import load_pretrained
from lessons.queries_keys_values.no_parameters import plain_self_attention
from minimodels.tasks import get_task
from minimodels.tasks import lexicon as lex
from minimodels.train.models import build_model

TITLE = "1 · Words as vectors: 1-hot or learned"
TEXT = (
    "Before a word can attend to anything it must be a vector. The lecture's first answer is the **1-hot** "
    "vector: list the vocabulary V, and word number i is a column of |V| zeros with a 1 in row i. Every two "
    "different words are then equally unlike (their dot product is 0), and a vector is as long as the "
    "vocabulary. The second answer is a **learned embedding**: a table of |V| rows of d numbers, one row per "
    "word, trained with the model, so that words used alike get similar rows (the lecture's features *Gender*, "
    "*Royal*, *Food* are what one hopes a dimension means; a trained table's dimensions have no names). The "
    "lecture then draws a trained table in 2-D (with t-SNE). Below is the source embedding table of the "
    "translator the Bahdanau lesson ships, before and after its training, projected to 2-D with PCA (the plane "
    "that keeps most of the table's variance): "
)

EMBEDDING_MODEL = ("toy-translation", "gru-additive")  # the Bahdanau lesson's shipped translator (lessons 2–3)
NEIGHBOURS = 5  # k: each word's nearest neighbours, by cosine similarity in the model's full embedding space
SHUFFLES = 1000  # label shuffles for the chance level and how often chance reaches the trained share
LECTURE_VOCAB, LECTURE_FEATURES = 10_000, 300  # the lecture's |V| = 10,000 and its 300 features (Gender, Royal, …)
PROPERTIES = {  # how the words are coloured and grouped: a property the toy language gives them
    "French gender (nouns)": "the gender of the noun's French translation (le chien, la voiture); English "
    "nouns carry none, so the encoder's embeddings can only have learned it from the translations",
    "word class": "the word's class in the toy English grammar (noun, verb, adjective, name, place, …)",
}
PROPERTY_NOUN = {"word class": "word class", "French gender (nouns)": "French gender"}


def _word_properties() -> dict[str, dict[str, str]]:
    """English word -> its value of each :data:`PROPERTIES`, read from the toy grammar's lexicon."""

    word_class: dict[str, str] = {}
    gender: dict[str, str] = {}
    for n in lex.NOUNS:
        for w in (n.en, n.en_pl):
            word_class[w] = "noun"
            gender[w] = {"m": "masculine", "f": "feminine"}[n.fr_gender]
    for v in lex.VERBS:
        if " " not in v.en:  # "look for" is two pieces
            word_class[v.en] = word_class[v.en_3sg] = "verb"
    for a in lex.ADJECTIVES:
        word_class[a.en] = "adjective"
    for kind, names in (
        ("name", lex.NAMES),
        ("place", [p.en for p in lex.PLACES]),
        ("month", lex.MONTHS["en"]),
        ("weekday", lex.WEEKDAYS["en"]),
        ("number", tuple(lex.NUMBERS)),
    ):
        word_class.update(dict.fromkeys(names, kind))
    for w in (*lex.SUBJECT_PRONOUNS["en"], *lex.OBJECT_PRONOUNS):
        word_class.setdefault(w, "pronoun")
    return {"word class": word_class, "French gender (nouns)": gender}


@dataclass(frozen=True)
class NeighbourShare:
    """How often a word's k nearest neighbours (cosine, full space) share its label, averaged over the words."""

    share: float
    chance: float  # the mean share over :data:`SHUFFLES` random relabellings of the same points
    reached: int  # how many of those relabellings reached ``share``
    shuffles: int

    @property
    def above_chance(self) -> bool:
        """Clearly above chance: at most 1% of the shuffled labellings reached the share."""
        return self.reached <= 0.01 * self.shuffles


def neighbour_share(
    vectors: np.ndarray, labels, k: int = NEIGHBOURS, shuffles: int = SHUFFLES, seed: int = 0
) -> NeighbourShare:
    """For each word, the share of its ``k`` nearest neighbours (largest cosine similarity, itself excluded) with
    its label; the mean over words, against the same with the labels shuffled ``shuffles`` times (seeded)."""
    labels = np.asarray(labels)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)  # (n, d)
    similarity = unit @ unit.T  # (n, n)
    np.fill_diagonal(similarity, -np.inf)
    nearest = np.argsort(-similarity, axis=1, kind="stable")[:, :k]  # (n, k)

    def share_of(lab: np.ndarray) -> float:
        return float((lab[nearest] == lab[:, None]).mean())

    rng = np.random.default_rng(seed)
    observed = share_of(labels)
    shuffled = np.array([share_of(rng.permutation(labels)) for _ in range(shuffles)])
    return NeighbourShare(observed, float(shuffled.mean()), int((shuffled >= observed - 1e-12).sum()), shuffles)


def pca_2d(vectors: np.ndarray) -> tuple[np.ndarray, float]:
    """The rows projected onto their first two principal axes (numpy's SVD of the centred table), each axis's
    sign fixed so its largest loading is positive; and the share of the variance those two axes keep."""
    centred = vectors - vectors.mean(axis=0)  # (n, d)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)  # vt: (d, d), rows are the principal axes
    axes = vt[:2] * np.sign(vt[:2][np.arange(2), np.abs(vt[:2]).argmax(axis=1)])[:, None]  # (2, d)
    return centred @ axes.T, float((s[:2] ** 2).sum() / (s**2).sum())  # (n, 2)


@dataclass(frozen=True)
class EmbeddingView:
    """One property's words in one state of the table: their 2-D PCA (of these words' rows only) and neighbours."""

    words: tuple[str, ...]  # the words the property is defined for
    labels: tuple[str, ...]  # each word's value of the property
    coords: np.ndarray  # (n, 2)
    kept: float  # share of these rows' variance the two axes keep
    neighbours: NeighbourShare


@dataclass(frozen=True)
class EmbeddingMap:
    views: dict[tuple[str, str], EmbeddingView]  # (table, property) -> view; table "trained" | "before training"
    vocab_size: int  # |V|: the source tokenizer's pieces
    dim: int  # d: the embedding's width
    described: str  # the model, as its config describes itself
    steps: int  # training steps of the shipped checkpoint
    seed: int  # its initial weights' seed


TABLES = ("trained", "before training")


def embedding_map(model, meta: dict) -> EmbeddingMap:
    """The shipped model's source embedding table and the one it started from (rebuilt by the trainer's own
    :func:`minimodels.train.models.build_model` from the checkpoint's seed and config), for every source piece
    that is a whole word of the toy lexicon (``▁dog``, not ``▁hor`` + ``se``)."""

    task = get_task(meta["task"], seed=meta.get("task_seed", 0))  # already built by load_pretrained's check
    initial = build_model(meta["model"], task, seed=meta["seed"], **meta["config"])
    pieces = meta["tokenizers"]["source"]["pieces"]
    views = {}
    for prop, values in _word_properties().items():
        rows = [(i, p[1:]) for i, p in enumerate(pieces) if p.startswith("▁") and p[1:] in values]
        ids, words = [i for i, _ in rows], tuple(w for _, w in rows)
        labels = tuple(values[w] for w in words)
        for table, m in zip(TABLES, (model, initial), strict=True):
            vectors = m.source_embedding.weight.detach().double().numpy()[ids]  # (n, d)
            coords, kept = pca_2d(vectors)
            views[table, prop] = EmbeddingView(words, labels, coords, kept, neighbour_share(vectors, labels))
    return EmbeddingMap(
        views,
        len(pieces),
        int(model.source_embedding.embedding_dim),
        model.config.describe(),
        int(meta.get("training", {}).get("steps", 0)),
        int(meta["seed"]),
    )


def shipped_embedding_map(task: str = EMBEDDING_MODEL[0], model: str = EMBEDDING_MODEL[1]) -> EmbeddingMap:
    """:func:`embedding_map` of the shipped checkpoint ``task``/``model`` (raises ``LookupError`` when none)."""

    return embedding_map(*load_pretrained(task, model))


def one_hot_sentence(m: EmbeddingMap) -> str:
    """|V| × |V| against |V| × d, for this model and for the lecture's numbers."""
    V, d = m.vocab_size, m.dim
    return (
        f"This model's source vocabulary has |V| = {V:,} pieces. As 1-hot vectors each piece would be {V:,} "
        f"numbers long ({V - 1:,} zeros and one 1), the whole vocabulary a {V:,} × {V:,} table of {V * V:,} numbers; "
        f"its embedding table is {V:,} × {d} = {V * d:,} numbers, {V / d:.1f}× fewer, and each word is {d} numbers "
        f"it learned. With the lecture's |V| = {LECTURE_VOCAB:,} and {LECTURE_FEATURES} features: "
        f"{LECTURE_VOCAB**2:,} against {LECTURE_VOCAB * LECTURE_FEATURES:,}."
    )


def _chance_text(s: NeighbourShare) -> str:
    if s.above_chance:
        reached = "none" if s.reached == 0 else f"only {s.reached}"
        return f"above chance ({s.chance:.0%}: {reached} of {s.shuffles:,} random relabellings reached it)"
    if s.share <= s.chance:
        return f"no more than chance ({s.chance:.0%})"
    return f"not clearly above chance ({s.chance:.0%}: {s.reached / s.shuffles:.0%} of random relabellings reached it)"


def embedding_sentence(m: EmbeddingMap, prop: str) -> str:
    """What the neighbours show for ``prop``, trained against before training, computed from the shares."""
    trained, before = m.views["trained", prop], m.views["before training", prop]
    a, b = trained.neighbours, before.neighbours
    change = (
        f"training raised it by {100 * (a.share - b.share):.0f} points"
        if a.share > b.share + 0.005
        else f"training lowered it by {100 * (b.share - a.share):.0f} points"
        if a.share < b.share - 0.005
        else "training left it where it was"
    )
    return (
        f"Of each of these {len(trained.words)} words' {NEIGHBOURS} nearest neighbours in the full {m.dim}-dimensional "
        f"table (cosine similarity), **{a.share:.0%} share its {PROPERTY_NOUN[prop]}** after training, "
        f"{_chance_text(a)}; before training {b.share:.0%}, {_chance_text(b)}: {change}. The plane keeps "
        f"{trained.kept:.0%} of these rows' variance ({before.kept:.0%} before training), so judge the neighbours "
        "by these numbers more than by eye. "
        f"One trained model (seed {m.seed}, {m.steps} steps): another seed would place the words elsewhere."
    )


PALETTE = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#b279a2", "#9d755d", "#eeca3b", "#ff9da6")


def embedding_figure(m: EmbeddingMap, prop: str, table: str = "trained"):
    """The words' rows in 2-D (PCA), each point labelled by its word, one colour per value of ``prop``."""
    v = m.views[table, prop]
    groups = sorted(set(v.labels), key=lambda g: (-v.labels.count(g), g))  # the largest group first
    data = []
    for g, group in enumerate(groups):
        idx = [j for j, label in enumerate(v.labels) if label == group]
        data.append(
            {
                "type": "scatter",
                "mode": "markers+text",
                "name": group,
                "x": v.coords[idx, 0],
                "y": v.coords[idx, 1],
                "text": [charts.safe_label(v.words[j]) for j in idx],
                "textposition": "top center",
                "textfont": {"size": 9, "color": PALETTE[g % len(PALETTE)]},
                "marker": {"size": 7, "color": PALETTE[g % len(PALETTE)]},
                "hovertemplate": f"%{{text}} · {group}<extra></extra>",
            }
        )
    layout = {
        "title": {"text": f"{prop}, {table}<br>PCA to 2-D: {v.kept:.0%} of the variance"},  # two lines fit a phone
        "xaxis": {"title": {"text": "principal axis 1"}, "zeroline": False},
        "yaxis": {"title": {"text": "principal axis 2"}, "zeroline": False},
        "legend": {"orientation": "h", "y": -0.12},
        "height": 560,
        "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
    }
    return charts.figure(data, layout)


EXERCISE_ONE_HOT = 5  # words in the 1-hot exercise's vocabulary (the page never shows 1-hot attention)


def one_hot_exercise() -> Exercise:
    """Softmax(XXᵀ) of 1-hot vectors: the same weight on every other word, whichever words they are."""
    n = EXERCISE_ONE_HOT
    words = tuple((f"w{i + 1}", tuple(float(i == j) for j in range(n))) for i in range(n))
    r = plain_self_attention(words)  # X is the n × n identity
    own, other = float(r.weights[0, 0]), float(r.weights[0, 1])
    return Exercise(
        key="queries_keys_values.one_hot",
        prompt=f"By hand: a vocabulary of {n} words, each a 1-hot vector (section 1), and a sentence that uses each "
        f"word once. In section 2's Softmax(XXᵀ), what weight does a word give itself? (two decimals)",
        answer=own,
        tolerance=0.005,
        explanation=f"X is the {n} × {n} identity, so XXᵀ is too: a word's dot product with itself is 1 and with "
        f"every other word 0. Its row of scores is [1, 0, 0, 0, 0]: e¹ / (e¹ + {n - 1}·e⁰) = 2.718 / "
        f"{math.e + n - 1:.3f} = {own:.2f} on itself and 1 / {math.e + n - 1:.3f} = {other:.2f} on each other word, "
        "whichever words they are. 1-hot vectors say nothing about which words are alike; a learned embedding "
        "can, and section 1 measures whether it does.",
        hint="Two different 1-hot vectors have no 1 in the same row.",
    )
