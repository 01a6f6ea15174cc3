"""Section 1, one meaning in four languages: what each bridge head reads in each language.

The shipped model (``assets/attention_bridge/hub-mono``) reads a held-out meaning in the four toy languages: A per
language side by side (:func:`heads_side_by_side`, also drawn by the penalty section and the live run), the word
each head weighs most and the English words it expresses (the grammar's gold alignment), how often a head finds
the same concept in every language, and what every decoder makes of each sentence, zero-shot directions marked.
A student's own sentence goes through the same model (:func:`read_sentence`, which never raises).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.attention_bridge.experiments import SEED, WITHOUT, zero_shot_pairs
from lessons.common import charts, colorscales, grids
from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from minimodels.bridge import BridgeModel, bridge_maps, load_bridge
from minimodels.tasks.multilingual import (
    LANGUAGE_NAMES,
    LANGUAGES,
    MAX_LEN,
    MultilingualCorpus,
    Parallel,
    get_multilingual,
)
from minimodels.tokenizers import EOS_ID

TITLE = "1 · One meaning, four languages"
TEXT = (
    "Four generated languages say the same things: English, a French-like and an Italian-like language "
    "(adjectives after the noun, pronouns before the verb; Italian drops “I”), and a **verb-final** language "
    "with invented words. Each meaning below is **held out**: none of its sentences, in any language, was ever "
    "trained on. The shipped model was trained only on directions into and out of the French-like *hub*, plus "
    "copying each language to itself (see section 4)."
)

SHIPPED_MODEL = ROOT / "assets" / "attention_bridge" / "hub-mono"
SHOWN_MEANINGS = 50  # held-out meanings a student can pick on the page
AGREEMENT_MEANINGS = 100  # held-out meanings the page's mean head agreement averages over


def load_shipped(directory: Path | str = SHIPPED_MODEL) -> tuple[BridgeModel, MultilingualCorpus, dict]:
    """The shipped model (eval mode) and the held-out test meanings read with its vocabularies."""
    model, tokenizers, info = load_bridge(directory)
    # the test split is drawn first, so its first meanings are the shipped runs' whatever the other sizes
    n_test = max(SHOWN_MEANINGS, AGREEMENT_MEANINGS)
    corpus = get_multilingual(SEED, n_train=1, n_valid=1, n_test=n_test).with_tokenizers(tokenizers)
    return model, corpus, info


def concept(p: Parallel, lang: str, position: int) -> frozenset[int]:
    """The English word indices the token at ``position`` of ``lang`` expresses; EOS (and words with no English
    source) give the empty set."""
    rows = p.alignments[lang]
    return frozenset(rows[position]) if position < len(rows) else frozenset()


def head_reading(A: dict[str, np.ndarray], p: Parallel) -> list[dict]:
    """For each head, the word it weighs most in each language and the English words that word expresses.

    ``A``: language -> (k, S) bridge weights for ``p`` written in that language (EOS last)."""
    english = p.words("en")
    rows = []
    for j in range(next(iter(A.values())).shape[0]):
        row = {"head": j + 1}
        for lang, weights in A.items():
            position = int(np.argmax(weights[j]))
            words = [*p.words(lang), "</s>"]
            meaning = concept(p, lang, position)
            gloss = " ".join(english[i] for i in sorted(meaning)) if meaning else "—"
            row[lang] = f"{words[position]} ({gloss}) {weights[j, position]:.0%}"
        rows.append(row)
    return rows


def head_agreement(A: dict[str, np.ndarray], p: Parallel, reference: str = "en") -> float:
    """Share of (head, language ≠ reference) where the head's top word expresses an English word that its top
    word in ``reference`` also expresses (or both are EOS / unaligned). 1: every head finds the same concept in
    every language."""
    hits, total = 0, 0
    for j in range(A[reference].shape[0]):
        ref = concept(p, reference, int(np.argmax(A[reference][j])))
        for lang, weights in A.items():
            if lang == reference:
                continue
            mine = concept(p, lang, int(np.argmax(weights[j])))
            hits += bool(ref & mine) or (not ref and not mine)
            total += 1
    return hits / total


def mean_agreement(model: BridgeModel, corpus: MultilingualCorpus, n: int = 100) -> float:
    """:func:`head_agreement` averaged over the first ``n`` test meanings (one batch per language)."""
    n = min(n, len(corpus.test))
    maps = {}
    with torch.no_grad():
        for lang in corpus.languages:
            batch = corpus.pair_batch("test", lang, lang, torch.arange(n))
            maps[lang] = model.encode(lang, batch.source, batch.source_lengths)[1].numpy()  # (n, k, S)
    return float(np.mean([head_agreement({lang: A[i] for lang, A in maps.items()}, corpus.test[i]) for i in range(n)]))


def translate_text(model: BridgeModel, tokenizers: dict, source_lang: str, target_lang: str, ids: list[int]) -> str:
    """Greedy translation of one tokenized sentence (``ids`` without EOS)."""
    source = torch.tensor([[*ids, EOS_ID]])
    out, _ = model.translate(source_lang, target_lang, source, torch.tensor([len(ids) + 1]), max_len=MAX_LEN + 4)
    return tokenizers[target_lang].decode(out[0].tolist())


def translation_rows(model: BridgeModel, tokenizers: dict, sentences: dict[str, list[int]]) -> list[dict]:
    """Each source language's sentence decoded into every language (into its own: the monolingual copy);
    zero-shot directions marked ✱."""
    held = set(zero_shot_pairs())
    rows = []
    for src, ids in sentences.items():
        row = {"from": LANGUAGE_NAMES[src]}
        for tgt in LANGUAGES:
            mark = " ✱" if (src, tgt) in held else ""
            row[f"into {LANGUAGE_NAMES[tgt]}"] = translate_text(model, tokenizers, src, tgt, ids) + mark
        rows.append(row)
    return rows


@torch.inference_mode()
def meaning_view(model: BridgeModel, corpus: MultilingualCorpus, index: int) -> dict:
    """Everything section 1 shows for held-out meaning ``index``: sentences, A per language, what each head
    reads, head agreement and the translations (plain data, cacheable)."""
    p = corpus.test[index]
    maps = bridge_maps(model, p.sentences, corpus.tokenizers)
    A = {lang: a for lang, (a, _) in maps.items()}
    ids = {lang: corpus.tokenizers[lang].encode(p.sentences[lang]) for lang in LANGUAGES}
    return {
        "sentences": [{"language": LANGUAGE_NAMES[lang], "sentence": p.sentences[lang]} for lang in LANGUAGES],
        "maps": maps,
        "reading": [
            {("head" if k == "head" else LANGUAGE_NAMES[k]): v for k, v in row.items()} for row in head_reading(A, p)
        ],
        "agreement": head_agreement(A, p),
        "translations": translation_rows(model, corpus.tokenizers, {"en": ids["en"]})
        + translation_rows(model, corpus.tokenizers, {lang: ids[lang] for lang in LANGUAGES if lang != "en"}),
    }


HEADS_TITLE = "A: each head's weights over the words, per language"


def heads_side_by_side(maps: dict[str, tuple[np.ndarray, list[str]]], *, title: str = "") -> go.Figure:
    """One k × S heatmap of A per language, side by side, tokens on the x axis, head j on row j."""
    langs = list(maps)
    widths = [len(tokens) for _, tokens in maps.values()]
    layout = grids.subplot_grid(
        1,
        len(langs),
        titles=[LANGUAGE_NAMES.get(lang, lang) for lang in langs],
        horizontal_spacing=0.03,
        column_widths=widths,
        title_size=16,
    )
    traces = []
    for c, lang in enumerate(langs):
        A, tokens = maps[lang]
        labels = [charts.safe_label(t) for t in tokens]
        heads = [f"head {j + 1}" for j in range(A.shape[0])]
        n = grids.panel_axis(0, c, len(langs))
        traces.append(
            {
                "type": "heatmap",
                "z": A,
                "x": list(range(len(labels))),
                "y": heads,
                "colorscale": colorscales.ATTENTION_COLORSCALE,
                "zmin": 0,
                "zmax": 1,
                "showscale": c == len(langs) - 1,
                "customdata": [labels] * A.shape[0],
                "xgap": 1,
                "ygap": 1,
                "hovertemplate": "%{y} → %{customdata}<br>A = %{z:.3f}<extra></extra>",
                "xaxis": f"x{n}",
                "yaxis": f"y{n}",
            }
        )
        layout[f"xaxis{n}"] |= {
            "tickmode": "array",
            "tickvals": list(range(len(labels))),
            "ticktext": labels,
            "tickangle": -60,
        }
        layout[f"yaxis{n}"] |= {"autorange": "reversed", "showticklabels": c == 0}
    shown, lines = charts.wrapped_title(title)  # in lines that fit a phone
    layout |= {
        "height": 330 + 18 * (lines - 1),
        "margin": {"l": 10, "r": 10, "t": 42 + 18 * lines if title else 40, "b": 10},
        "title": {"text": shown} if title else None,
    }
    return charts.figure(traces, layout)


READING_TEXT = (
    "Does head j find **the same concept** in every language? Each cell names the word the head weighs most "
    "and, in brackets, the English words it expresses (from the grammar's gold alignment)."
)


def agreement_text(one: float, overall: float, results: Comparison | None) -> str:
    """Section 1's sentence on head agreement: this meaning, the shipped model over many, and, from the shipped
    results, the same measure for the model trained without the penalty."""
    text = (
        f"On this meaning **{one:.0%}** of (head, language) pairs have the top word mean what the head's top word "
        f"means in English; over {AGREEMENT_MEANINGS} held-out meanings, **{overall:.0%}**."
    )
    if results is not None:
        without = results.spread("agreement", WITHOUT)
        shown = without.text(".0%", with_n=False)
        text += (
            f" The model trained the same way without the penalty reaches {shown} on the same "
            f"measure ({'more' if without.mean > overall else 'less' if without.mean < overall else 'as much'}"
            f"{'' if without.mean == overall else ' than the shipped one'})."
        )
    return text


TRANSLATIONS_LEAD = (
    " What the decoders make of each sentence (✱: a zero-shot direction, never trained; into its own "
    "language: the monolingual copy):"
)


@dataclass(frozen=True)
class SentenceReading:
    """A sentence a student typed, as the shipped model reads it."""

    error: str | None  # why nothing can be shown (empty text); None otherwise
    message: str | None  # unknown words, truncation
    A: np.ndarray | None = None  # (k, S) bridge weights
    tokens: list[str] | None = None  # the words as the model sees them ("<unk>" for unknown), "</s>" last
    translations: list[dict] | None = None


def read_sentence(model: BridgeModel, tokenizers: dict, lang: str, text: str) -> SentenceReading:
    """Encode any text a student typed (never raises): the bridge's A and the translations into the others."""
    encoded = tokenizers[lang].encode_user_text(text, MAX_LEN)
    if encoded.empty:
        return SentenceReading(error=encoded.message or "Type at least one word.", message=None)
    with torch.no_grad():
        source = torch.tensor([[*encoded.ids, EOS_ID]])
        _, A = model.encode(lang, source, torch.tensor([len(encoded.ids) + 1]))
        translations = translation_rows(model, tokenizers, {lang: encoded.ids})
    return SentenceReading(None, encoded.message, A[0].numpy(), [*encoded.pieces, "</s>"], translations)
