"""Section 3, do translations cluster together? M of held-out meanings in the four languages, compared.

The shipped model's M (k × d_h numbers) of each sentence, projected on its two principal directions for the
figure, and measured in the full space: how often a sentence's nearest M is one of its translations, and how often
another sentence of its own language, against chance, before and after taking out each language's mean M. The
sentence under the figure is computed from those rates, whichever way they go. The exercise: how many numbers M
holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.attention_bridge.experiments import MODEL_OPTIONS
from lessons.common import charts, colorscales
from lessons.common.exercises import Exercise
from minimodels.bridge import BridgeModel
from minimodels.tasks.multilingual import LANGUAGE_NAMES, LANGUAGES, MultilingualCorpus

TITLE = "3 · Do translations cluster together?"
TEXT = (
    "If the bridge is language-independent, a sentence's M should sit next to its translations' M, whatever "
    "the language. Below, M (k × d_h numbers) of held-out meanings in each language, projected on its two "
    "principal directions, from the shipped model; the sentence under it is measured in all k × d_h "
    "dimensions, not only the two drawn."
)

MEANING_SENTENCES = 40  # held-out meanings whose M the page projects, in each of the four languages


@torch.inference_mode()
def sentence_matrices(
    model: BridgeModel, corpus: MultilingualCorpus, n: int
) -> tuple[np.ndarray, list[str], list[int]]:
    """M of the first ``n`` test meanings in every language, each flattened to one row (k · d_h numbers), with
    each row's language and meaning index."""
    rows, langs, meanings = [], [], []
    n = min(n, len(corpus.test))
    for lang in corpus.languages:
        batch = corpus.pair_batch("test", lang, lang, torch.arange(n))
        M, _ = model.encode(lang, batch.source, batch.source_lengths)  # (n, k, d_h)
        rows.append(M.reshape(n, -1).double())  # (n, k·d_h)
        langs += [lang] * n
        meanings += list(range(n))
    return torch.cat(rows).numpy(), langs, meanings


def nearest_rates(X: np.ndarray, langs: Sequence[str], meanings: Sequence[int]) -> dict[str, float]:
    """For each row, its nearest other row (Euclidean): how often it is a translation (same meaning, another
    language) and how often another sentence of the same language, with what chance alone gives."""
    X = np.asarray(X, dtype=float)
    distances = np.linalg.norm(X[:, None, :] - X[None, :, :], axis=-1)  # (N, N)
    np.fill_diagonal(distances, np.inf)
    nearest = distances.argmin(axis=1)
    langs, meanings = np.asarray(langs), np.asarray(meanings)
    same_meaning = meanings[nearest] == meanings
    same_lang = langs[nearest] == langs
    n_langs, n = len(set(langs.tolist())), len(set(meanings.tolist()))
    return {
        "translation": float(np.mean(same_meaning & ~same_lang)),
        "same_language": float(np.mean(same_lang)),
        "chance_translation": (n_langs - 1) / (n_langs * n - 1),
        "chance_same_language": (n - 1) / (n_langs * n - 1),
    }


def meaning_space(model: BridgeModel, corpus: MultilingualCorpus, n: int = MEANING_SENTENCES) -> dict:
    """Section 3's data: M of ``n`` held-out meanings in every language projected on its first two principal
    components (an SVD of the centred rows), and the nearest-neighbour rates in the full space, as they are and
    after subtracting each language's mean M (a shift per language taken out)."""
    X, langs, meanings = sentence_matrices(model, corpus, n)
    centred = X - X.mean(axis=0)
    _, singular, Vt = np.linalg.svd(centred, full_matrices=False)
    xy = centred @ Vt[:2].T  # (N, 2)
    shifted = X.copy()
    for lang in set(langs):
        rows = np.asarray(langs) == lang
        shifted[rows] -= shifted[rows].mean(axis=0)
    english = [corpus.test[i].sentences["en"] for i in meanings]
    return {
        "x": xy[:, 0].tolist(),
        "y": xy[:, 1].tolist(),
        "langs": langs,
        "meanings": meanings,
        "english": english,
        "explained": float((singular[:2] ** 2).sum() / (singular**2).sum()),
        "raw": nearest_rates(X, langs, meanings),
        "shifted": nearest_rates(shifted, langs, meanings),
        "plane": nearest_rates(xy, langs, meanings),
    }


LANGUAGE_COLOURS = {"en": "#4c78a8", "fr": "#f58518", "it": "#54a24b", "vf": "#b279a2"}


def meaning_figure(space: Mapping, by: str = "language") -> go.Figure:
    """The projected M's: one colour per language (``by="language"``), or per meaning with each meaning's four
    points joined by a grey line (``by="sentence"``: short lines = translations together)."""
    x, y, langs, meanings = space["x"], space["y"], space["langs"], space["meanings"]
    hover = [
        f"{LANGUAGE_NAMES[lang]} · meaning {m}<br>{charts.safe_label(e, 60)}"
        for lang, m, e in zip(langs, meanings, space["english"], strict=True)
    ]
    traces = []
    if by == "language":
        for lang in LANGUAGES:
            idx = [i for i, g in enumerate(langs) if g == lang]
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "x": [x[i] for i in idx],
                    "y": [y[i] for i in idx],
                    "name": LANGUAGE_NAMES[lang],
                    "marker": {"color": LANGUAGE_COLOURS[lang], "size": 8},
                    "text": [hover[i] for i in idx],
                    "hovertemplate": "%{text}<extra></extra>",
                }
            )
    else:
        lx, ly = [], []
        for m in sorted(set(meanings)):
            idx = [i for i, g in enumerate(meanings) if g == m]
            lx += [x[i] for i in idx] + [None]
            ly += [y[i] for i in idx] + [None]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": lx,
                "y": ly,
                "hoverinfo": "skip",
                "showlegend": False,
                "line": {"color": "rgba(120,120,120,0.35)", "width": 1},
            }
        )
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": x,
                "y": y,
                "text": hover,
                "showlegend": False,
                "marker": {"color": meanings, "colorscale": colorscales.SEQUENTIAL_COLORSCALE, "size": 8},
                "hovertemplate": "%{text}<extra></extra>",
            }
        )
    shown, lines = charts.wrapped_title(f"M of each sentence, by {by} ({space['explained']:.0%} of the variance)")
    layout = {
        "height": 420 + 18 * (lines - 1),
        "margin": {"l": 10, "r": 10, "t": 22 + 18 * lines, "b": 10},
        "xaxis": {"title": {"text": "principal component 1"}, "zeroline": False},
        "yaxis": {"title": {"text": "principal component 2"}, "zeroline": False},
        "legend": {"orientation": "h", "y": -0.2},
        "title": {"text": shown},
    }
    return charts.figure(traces, layout)


CLUSTER = 0.5  # a nearest-neighbour rate above this: the points group that way


def meaning_alt(space: Mapping) -> str:
    """The chart's text alternative, one sentence from its own 2-D points."""
    plane = space["plane"]
    groups = (
        "four groups, one per language"
        if plane["same_language"] > CLUSTER
        else "groups of translations"
        if plane["translation"] > CLUSTER
        else "no clear groups"
    )
    return (
        f"Chart in words: {len(space['langs'])} points ({len(set(space['meanings']))} held-out meanings × "
        f"{len(set(space['langs']))} languages) on M's first two principal components ({space['explained']:.0%} of "
        f"the variance) form {groups}: a point's nearest neighbour in the plane is in its own language "
        f"{plane['same_language']:.0%} of the time and a translation {plane['translation']:.0%}."
    )


def meaning_text(space: Mapping) -> str:
    """Do translations cluster together? Answered from :func:`meaning_space`'s rates, whichever way they go."""
    raw, shifted, n = space["raw"], space["shifted"], len(space["langs"])
    told = (
        f"For **{raw['translation']:.0%}** of the {n} sentence matrices M the nearest other M is one of its "
        f"translations (chance alone: {raw['chance_translation']:.1%}); for **{raw['same_language']:.0%}** it is "
        f"another sentence of the same language (chance: {raw['chance_same_language']:.0%})."
    )
    if raw["translation"] > CLUSTER:
        answer = " So translations **do** cluster: M holds the meaning more than the language."
    elif raw["same_language"] > CLUSTER:
        answer = (
            " So translations do **not** cluster: M is grouped by **language**, not by meaning, as the failing "
            "zero-shot directions suggest (a decoder then reads M from an encoder it never met)."
        )
    else:
        answer = " So M groups neither by meaning nor by language."
    ratio = shifted["translation"] / shifted["chance_translation"]
    after = (
        f" Subtract each language's mean M (one shift per language) and a translation is nearest for "
        f"{shifted['translation']:.0%}, {ratio:.0f} times chance: "
        + (
            "most of the difference between languages is that shift."
            if shifted["translation"] > CLUSTER
            else "some meaning is shared beyond the shift, but little."
            if ratio >= 2
            else "no more meaning is shared beyond the shift."
        )
    )
    return told + answer + after


def exercises() -> list[Exercise]:
    """M's size by hand: k × d_h, whatever the sentence."""
    return [
        Exercise(
            key="attention_bridge.ex.size",
            prompt=f"The shipped bridge has k = {MODEL_OPTIONS['heads']} heads over encoder states of size "
            f"d_h = {2 * MODEL_OPTIONS['encoder_size']}. How many numbers does M hold for a sentence of 12 words?",
            answer=MODEL_OPTIONS["heads"] * 2 * MODEL_OPTIONS["encoder_size"],
            explanation="M = AH is k × d_h whatever the length and the language: that is what makes it a bridge.",
        ),
    ]
