"""Lesson: the attention bridge (Vázquez et al.): one shared inner attention for four toy languages.

The numbers behind the page: the experiments (which directions are trained, which are left for zero-shot), the
shipped measurements (``assets/results/attention_bridge.json``, made by ``scripts/attention_bridge_results.py``) and
the shipped
model (``assets/attention_bridge/``), what each bridge head looks at in each language, head redundancy, the figures,
the live run and the exercises.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.common import charts
from lessons.common.exercises import Exercise
from minimodels.bridge import (
    BridgeModel,
    BridgeProgress,
    BridgeTrainConfig,
    Pair,
    bridge_maps,
    evaluate_pair,
    load_bridge,
    new_bridge,
    pair_name,
    redundancy,
    train_bridge,
)
from minimodels.tasks.multilingual import (
    LANGUAGE_NAMES,
    LANGUAGES,
    MAX_LEN,
    MultilingualCorpus,
    Parallel,
    get_multilingual,
)
from minimodels.tokenizers import EOS_ID

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "assets" / "results" / "attention_bridge.json"
SHIPPED_MODEL = ROOT / "assets" / "bridge" / "hub-mono"

HUB = "fr"  # the one language every trained direction goes into or out of (the paper's English)
SEED = 0
CORPUS_SIZES = {"n_train": 4000, "n_valid": 300, "n_test": 500}  # the shipped runs' corpus
LIVE_SIZES = {"n_train": 1500, "n_valid": 100, "n_test": 500}  # the live run's (same test split: drawn first)
MODEL_OPTIONS = {"embedding_size": 32, "encoder_size": 32, "heads": 6, "bridge_hidden": 64}
PENALTY_ON = 0.1


def hub_pairs(monolingual: bool, languages: Sequence[str] = LANGUAGES, hub: str = HUB) -> tuple[Pair, ...]:
    """Into and out of the hub only (the paper's {De, Fr, Cs} ↔ En); with ``monolingual``, also lang → lang."""
    others = [lang for lang in languages if lang != hub]
    pairs = [(hub, lang) for lang in others] + [(lang, hub) for lang in others]
    if monolingual:
        pairs += [(lang, lang) for lang in languages]
    return tuple(pairs)


def zero_shot_pairs(languages: Sequence[str] = LANGUAGES, hub: str = HUB) -> tuple[Pair, ...]:
    """Every direction that avoids the hub: never trained in the hub experiments."""
    others = [lang for lang in languages if lang != hub]
    return tuple((a, b) for a in others for b in others if a != b)


@dataclass(frozen=True)
class Experiment:
    name: str  # key in the results file
    label: str  # for a table
    monolingual: bool
    penalty_weight: float


EXPERIMENTS = (
    Experiment("hub", "hub pairs only", monolingual=False, penalty_weight=PENALTY_ON),
    Experiment("hub-mono", "hub pairs + monolingual", monolingual=True, penalty_weight=PENALTY_ON),
    Experiment("hub-mono-nopenalty", "hub pairs + monolingual, no penalty", monolingual=True, penalty_weight=0.0),
)


def train_config(experiment: Experiment, steps: int, seed: int = SEED, **options) -> BridgeTrainConfig:
    return BridgeTrainConfig(pairs=hub_pairs(experiment.monolingual), held_out=zero_shot_pairs(), max_steps=steps,
                             max_seconds=float("inf"), seed=seed, **options)  # fmt: skip


# ------------------------------------------------------------------------------------------- reading heads
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


def gram(A: np.ndarray) -> np.ndarray:
    """A Aᵀ (k × k): entry (i, j) is how much heads i and j overlap; the identity when none do."""
    return A @ A.T


def penalty_value(A: np.ndarray) -> float:
    """‖A Aᵀ − I‖²_F of one (k, S) map, eq. 3's penalty."""
    return float(redundancy(torch.as_tensor(A, dtype=torch.float64)))


SHOWN_MEANINGS = 50  # held-out meanings a student can pick on the page
AGREEMENT_MEANINGS = 100  # held-out meanings the page's mean head agreement averages over


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
        ],  # fmt: skip
        "agreement": head_agreement(A, p),
        "translations": translation_rows(model, corpus.tokenizers, {"en": ids["en"]})
        + translation_rows(model, corpus.tokenizers, {lang: ids[lang] for lang in LANGUAGES if lang != "en"}),
    }


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


def probe_map(results: dict, run: str, lang: str) -> tuple[np.ndarray, list[str]]:
    """The shipped run's final A on the probe meaning in ``lang``, with its tokens."""
    probe = results["runs"][run]["probe"][lang]
    return np.asarray(probe["A"], dtype=float), list(probe["tokens"])


# ------------------------------------------------------------------------------------------- figures
def heads_side_by_side(maps: dict[str, tuple[np.ndarray, list[str]]], *, title: str = "") -> go.Figure:
    """One k × S heatmap of A per language, side by side, tokens on the x axis, head j on row j."""
    langs = list(maps)
    widths = [len(tokens) for _, tokens in maps.values()]
    layout = charts.subplot_grid(1, len(langs), titles=[LANGUAGE_NAMES.get(lang, lang) for lang in langs],
                                 horizontal_spacing=0.03, column_widths=widths, title_size=16)  # fmt: skip
    traces = []
    for c, lang in enumerate(langs):
        A, tokens = maps[lang]
        labels = [charts.safe_label(t) for t in tokens]
        heads = [f"head {j + 1}" for j in range(A.shape[0])]
        n = charts.panel_axis(0, c, len(langs))
        traces.append(
            {"type": "heatmap", "z": A, "x": list(range(len(labels))), "y": heads,
             "colorscale": charts.ATTENTION_COLORSCALE, "zmin": 0, "zmax": 1, "showscale": c == len(langs) - 1,
             "customdata": [labels] * A.shape[0], "xgap": 1, "ygap": 1,
             "hovertemplate": "%{y} → %{customdata}<br>A = %{z:.3f}<extra></extra>", "xaxis": f"x{n}",
             "yaxis": f"y{n}"}
        )  # fmt: skip
        layout[f"xaxis{n}"] |= {"tickmode": "array", "tickvals": list(range(len(labels))), "ticktext": labels,
                                "tickangle": -60}  # fmt: skip
        layout[f"yaxis{n}"] |= {"autorange": "reversed", "showticklabels": c == 0}
    layout |= {"height": 330, "margin": {"l": 10, "r": 10, "t": 60 if title else 40, "b": 10},
               "title": {"text": charts.safe_label(title, 200)} if title else None}  # fmt: skip
    return charts.figure(traces, layout)


def gram_heatmap(A: np.ndarray, *, title: str = "") -> go.Figure:
    """A Aᵀ with heads on both axes: bright off the diagonal means two heads read the same words."""
    heads = [f"head {j + 1}" for j in range(A.shape[0])]
    return charts.attention_heatmap(gram(A), heads, heads, title=title, x_title="head", y_title="head",
                                    value_name="(A Aᵀ)ᵢⱼ", height=330, show_cell_text=True)  # fmt: skip


# ------------------------------------------------------------------------------------------- shipped things
def load_results(path: Path | str | None = None) -> dict:
    """The shipped measurements; ``FileNotFoundError``/``ValueError`` with a clear message when unusable."""
    path = Path(path) if path is not None else RESULTS
    if not path.is_file():
        raise FileNotFoundError(
            f"{path.name} is not shipped; run python scripts/attention_bridge_results.py to make it"
        )
    data = json.loads(path.read_text(encoding="utf-8"))
    missing = [e.name for e in EXPERIMENTS if e.name not in data.get("runs", {})]
    if missing:
        raise ValueError(
            f"{path.name} has no run {', '.join(missing)}; run python scripts/attention_bridge_results.py again"
        )
    return data


def load_shipped(directory: Path | str = SHIPPED_MODEL) -> tuple[BridgeModel, MultilingualCorpus, dict]:
    """The shipped model (eval mode) and the held-out test meanings read with its vocabularies."""
    model, tokenizers, info = load_bridge(directory)
    # the test split is drawn first, so its first meanings are the shipped runs' whatever the other sizes
    n_test = max(SHOWN_MEANINGS, AGREEMENT_MEANINGS)
    corpus = get_multilingual(SEED, n_train=1, n_valid=1, n_test=n_test).with_tokenizers(tokenizers)
    return model, corpus, info


def zero_shot_rows(results: dict) -> list[dict]:
    """One row per experiment: mean test exact match/token accuracy on the trained and on the zero-shot directions."""
    rows = []
    for e in EXPERIMENTS:
        run = results["runs"][e.name]
        rows.append({
            "training data": e.label,
            "penalty λ": e.penalty_weight,
            "trained directions: exact match": run["summary"]["trained_exact"],
            "zero-shot: exact match": run["summary"]["zero_shot_exact"],
            "zero-shot: token accuracy": run["summary"]["zero_shot_tokens"],
        })  # fmt: skip
    return rows


def direction_rows(results: dict) -> list[dict]:
    """Test exact match of every direction in every experiment (zero-shot ones marked)."""
    held = {pair_name(p) for p in zero_shot_pairs()}
    names = list(results["runs"][EXPERIMENTS[0].name]["test"])
    rows = []
    for name in names:
        row = {"direction": name + (" (zero-shot)" if name in held else "")}
        for e in EXPERIMENTS:
            row[e.label] = results["runs"][e.name]["test"][name]["exact_match"]
        rows.append(row)
    return rows


def observations(results: dict) -> list[str]:
    """What the shipped table says, written from its numbers (a re-measured file rewrites them)."""
    runs = results["runs"]
    plain, mono = runs["hub"]["summary"], runs["hub-mono"]["summary"]
    off = runs["hub-mono-nopenalty"]["summary"]
    n_mono, n_all = len(LANGUAGES), len(hub_pairs(True))
    lines = [
        f"Without monolingual pairs the zero-shot directions reach **{plain['zero_shot_exact']:.1%}** exact match "
        f"(**{plain['zero_shot_tokens']:.0%}** of tokens); with them, **{mono['zero_shot_exact']:.1%}** "
        f"(**{mono['zero_shot_tokens']:.0%}** of tokens). The trained directions reach {plain['trained_exact']:.0%} "
        f"and {mono['trained_exact']:.0%}: with the same number of steps, the monolingual pairs take {n_mono} of "
        f"every {n_all} minibatches away from them.",
    ]
    gain = mono["zero_shot_tokens"] - plain["zero_shot_tokens"]  # the paper's BLEU also counts partial matches
    if gain > 0.05:
        lines.append(
            "By token accuracy the paper's finding holds here too: monolingual pairs lift the unseen directions. "
            "Whole sentences right stay rare at this amount of training, so the effect is partial, not a fix."
        )
    elif gain < -0.05:
        lines.append("So on the toy languages the paper's finding does **not** hold: monolingual pairs hurt zero-shot.")
    else:
        lines.append("So on the toy languages monolingual pairs make little difference to zero-shot, unlike the paper.")
    lines.append(
        f"Head redundancy ‖AAᵀ − I‖_F on the test sentences: **{mono['redundancy']:.2f}** with the penalty, "
        f"**{off['redundancy']:.2f}** without it; trained-direction exact match {mono['trained_exact']:.0%} and "
        f"{off['trained_exact']:.0%}. A head finds the same concept in another language (its top word there "
        f"expresses an English word its top English word expresses) in {mono['agreement']:.0%} of cases with the "
        f"penalty and {off['agreement']:.0%} without (100 test meanings)."
    )
    return lines


# ------------------------------------------------------------------------------------------- live training
def new_run(monolingual: bool, penalty: bool, seconds: float, steps: int = 3000, seed: int = SEED):
    """A fresh model and its training function for one student's run (from scratch, on the live corpus), stopped
    after ``seconds`` or ``steps``, whichever comes first."""
    corpus = get_multilingual(SEED, **LIVE_SIZES)
    torch.manual_seed(seed)
    model = new_bridge(corpus, **MODEL_OPTIONS, penalty_weight=PENALTY_ON if penalty else 0.0)
    config = BridgeTrainConfig(pairs=hub_pairs(monolingual), held_out=zero_shot_pairs(), max_steps=steps,
                               max_seconds=seconds, seed=seed, batch_size=128, learning_rate=1e-2, report_every=20,
                               eval_sentences=32)  # fmt: skip

    def train_fn(on_progress) -> list[BridgeProgress]:
        return train_bridge(model, corpus, config, on_progress)

    return model, corpus, train_fn


def live_caption(report: BridgeProgress) -> str:
    zero = np.mean(list(report.zero_shot.values())) if report.zero_shot else float("nan")
    return (
        f"Step {report.step}: loss {report.loss:.3f}, penalty ‖AAᵀ − I‖²_F {report.penalty:.3f} per sentence, "
        f"held-out exact match {report.exact_match:.0%} on the trained directions and {zero:.0%} zero-shot "
        f"({len(report.zero_shot)} directions, 32 validation sentences each)."
    )


def history_chart(results: dict):
    """Zero-shot exact match (validation, every report) against steps, one line per experiment."""
    import altair as alt
    import pandas as pd

    rows = [
        {"step": h["step"], "model": e.label, "zero-shot": h["zero_shot"], "trained": h["exact_match"]}
        for e in EXPERIMENTS
        for h in results["runs"][e.name]["history"]
    ]
    frame = pd.DataFrame(rows).melt(["step", "model"], var_name="directions", value_name="exact match")
    return (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("step:Q", title="training step"),
            y=alt.Y("exact match:Q", axis=alt.Axis(format="%")),
            color="model:N",
            strokeDash="directions:N",
            tooltip=["step", "model", "directions", alt.Tooltip("exact match:Q", format=".1%")],
        )  # fmt: skip
        .properties(height=280, title="Exact match on validation sentences during training")
    )


def live_maps(report: BridgeProgress) -> dict[str, tuple[np.ndarray, list[str]]]:
    return {lang: (report.probe_maps[lang], report.probe_tokens[lang]) for lang in report.probe_maps}


def score_directions(model: BridgeModel, corpus: MultilingualCorpus, pairs: Sequence[Pair], limit: int = 200) -> dict:
    return {pair_name(p): evaluate_pair(model, corpus, "test", *p, limit=limit) for p in pairs}


# ------------------------------------------------------------------------------------------- exercises
def exercises(results: dict | None) -> list[Exercise]:
    two_heads = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    out = [
        Exercise(
            key="attention_bridge.ex.penalty",
            prompt="Two heads over three words both put weight ½ on word 1 and ½ on word 2: "
            "A = [[½, ½, 0], [½, ½, 0]]. What is the penalty ‖AAᵀ − I‖²_F?",
            answer=penalty_value(two_heads),
            tolerance=1e-3,
            explanation="AAᵀ = [[½, ½], [½, ½]]; minus I leaves −½ on the diagonal and ½ off it: four squares of ¼.",
        ),
        Exercise(
            key="attention_bridge.ex.size",
            prompt=f"The shipped bridge has k = {MODEL_OPTIONS['heads']} heads over encoder states of size "
            f"d_h = {2 * MODEL_OPTIONS['encoder_size']}. How many numbers does M hold for a sentence of 12 words?",
            answer=MODEL_OPTIONS["heads"] * 2 * MODEL_OPTIONS["encoder_size"],
            explanation="M = AH is k × d_h whatever the length and the language: that is what makes it a bridge.",
        ),
    ]
    if results is not None:
        plain = results["runs"]["hub"]["summary"]["zero_shot_tokens"]
        mono = results["runs"]["hub-mono"]["summary"]["zero_shot_tokens"]
        choices = ("the model trained with monolingual pairs", "the model trained without them", "neither: equal")
        answer = 2 if abs(mono - plain) <= 0.05 else (0 if mono > plain else 1)
        out.append(
            Exercise(
                key="attention_bridge.ex.zero_shot",
                prompt="In the shipped measurements, which model translates the zero-shot directions better "
                "(token accuracy, more than 5 points apart)?",
                answer=answer,
                choices=choices,
                explanation=f"Measured: {mono:.0%} of tokens right with monolingual pairs, {plain:.0%} without.",
            )
        )
    return out
