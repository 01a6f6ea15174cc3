"""Lesson: the attention bridge (Vázquez et al.): one shared inner attention for four toy languages.

The numbers behind the page: the experiments (which directions are trained, which are left for zero-shot), the
shipped measurements (``assets/results/attention_bridge.json``, made by ``scripts/attention_bridge_results.py``) and
the shipped
model (``assets/attention_bridge/``), what each bridge head looks at in each language, head redundancy, the figures,
the live run and the exercises.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.common import charts
from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison, Run, Spread, curves_chart, verdict
from lessons.common.exercises import Exercise
from lessons.common.live import TrainingRun
from minimodels.bridge import (
    BridgeModel,
    BridgeProgress,
    BridgeTrainConfig,
    Pair,
    all_pairs,
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

RESULTS = ROOT / "assets" / "results" / "attention_bridge.json"
SHIPPED_MODEL = ROOT / "assets" / "attention_bridge" / "hub-mono"

# The page's prose (pages/attention_bridge.py stays a thin view)
INTRO = (
    "One translator for many languages: every language gets its **own encoder and decoder**, and between them "
    "sits **one attention layer shared by all** of them, the *attention bridge* (Vázquez et al., "
    "“Multilingual NMT with a language-independent attention bridge”). The bridge turns any sentence, in any "
    "language and of any length, into the same fixed matrix M of k rows; every decoder reads only M. If M holds "
    "the *meaning* rather than the words, a model trained on French↔English and French↔Italian could translate "
    "English→Italian without ever seeing that pair: **zero-shot**."
)
BRIDGE_EXPLAIN = (
    "H holds the encoder's n states (a BiGRU here, a BiLSTM in the paper); each of the k rows of A is one "
    "**head**: a softmax over the source words. Each decoder starts from the mean of M's rows and attends over "
    "them. The penalty is 0 only when each head puts all its weight on one word and no two heads share a word, "
    "so it pushes the heads to read *different* parts of the sentence. "
)
SECTIONS = {
    "languages": (
        "1 · One meaning, four languages",
        "Four generated languages say the same things: English, a French-like and an Italian-like language "
        "(adjectives after the noun, pronouns before the verb; Italian drops “I”), and a **verb-final** language "
        "with invented words. Each meaning below is **held out**: none of its sentences, in any language, was ever "
        "trained on. The shipped model was trained only on directions into and out of the French-like *hub*, plus "
        "copying each language to itself (see section 4).",
    ),
    "penalty": (
        "2 · The penalty and head redundancy",
        "A Aᵀ compares heads: entry (i, j) is the overlap of head i and head j (1 on the diagonal when a head looks "
        "at a single word). Without the penalty nothing stops several heads from reading the same words; the paper "
        "adds it so that the rows of M differ. First the two shipped multilingual models, identical but for λ (their "
        "first seed), on the probe sentence:",
    ),
    "study": (
        "The paper's section 6 trained its bilingual bridge models with and without the penalty, found "
        "similar BLEU ({paper}) and kept the penalty for less redundancy. The same experiment here, with seeds: "
        "λ ∈ {{0, 0.1, 1}} at k = {k} heads and, since the paper sized k = 10 to its 13.2-token sentences, k ∈ "
        "{{{heads}}} at λ = 0 and 1 on our 6–7-word sentences. Head overlap is the mean cosine between two "
        "heads' weights over the words (0: no shared word)."
    ),
    "meaning": (
        "3 · Do translations cluster together?",
        "If the bridge is language-independent, a sentence's M should sit next to its translations' M, whatever "
        "the language. Below, M (k × d_h numbers) of held-out meanings in each language, projected on its two "
        "principal directions, from the shipped model; the sentence under it is measured in all k × d_h "
        "dimensions, not only the two drawn.",
    ),
    "zero_shot": "4 · The paper's grid: bilingual, hub, many-to-many; zero-shot",
    "train": (
        "5 · Train a bridge yourself",
        "A fresh model for you alone, trained from scratch on the hub directions; choose whether it also sees "
        "monolingual pairs and whether the penalty is on. Watch the heads of the held-out probe meaning sharpen in "
        "all four languages. The bar's exact match is on the trained directions; the zero-shot one is printed below "
        "the heads. A minute on one core is far less than the shipped models' training, so expect low accuracies.",
    ),
}


def zero_shot_intro() -> str:
    return (
        f"The paper's Table 1: trained on {{De, Fr, Cs}} ↔ En, {paper_zero_shot_text()} (*monolingual* pairs: each "
        "sentence copied to itself). Here the French-like language plays English: the *hub* models train on en↔fr, "
        "it↔fr, vf↔fr (six directions), with or without en→en, fr→fr, it→it, vf→vf, and are tested on the six "
        "directions that avoid French, which they never saw. Beside them, as in the paper, *bilingual* en↔fr "
        "models, one with the bridge and one without (a plain attention model: the decoder attends over the "
        "encoder's states, the paper's baseline), and *many-to-many* models trained on all twelve directions (no "
        "zero-shot left), with and without monolingual pairs. Every model trains the same number of steps, so the "
        "more directions, the fewer steps each (the paper trained each model to its best). Held-out test meanings, "
        "greedy decoding, exact match of the whole sentence and of each token, and corpus BLEU where the shipped "
        "file has it. The paper's leave-one-pair-out study (its Figure 1) follows the grid."
    )


def study_intro() -> str:
    return SECTIONS["study"].format(paper=paper_penalty_text(), k=STUDY_K, heads=", ".join(map(str, STUDY_HEADS)))


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
    kind: str = "hub"  # "bilingual" (en ↔ fr only), "hub" (into and out of the hub), "m2m" (every direction)
    bridge: bool = True  # False: no bridge, the decoder attends over the encoder's states (a plain attention model)


# The paper's Table 1 in miniature: a bilingual baseline, {X} ↔ hub and many-to-many, each with and without
# monolingual pairs (and the hub model without the penalty, section 2)
EXPERIMENTS = (
    Experiment("bilingual", "bilingual en ↔ fr", monolingual=False, penalty_weight=PENALTY_ON, kind="bilingual"),
    Experiment(
        "bilingual-nobridge",
        "bilingual en ↔ fr, no bridge",
        monolingual=False,
        penalty_weight=0.0,
        kind="bilingual",
        bridge=False,
    ),
    Experiment("hub", "hub pairs only", monolingual=False, penalty_weight=PENALTY_ON),
    Experiment("hub-mono", "hub pairs + monolingual", monolingual=True, penalty_weight=PENALTY_ON),
    Experiment("hub-mono-nopenalty", "hub pairs + monolingual, no penalty", monolingual=True, penalty_weight=0.0),
    Experiment("m2m", "many-to-many", monolingual=False, penalty_weight=PENALTY_ON, kind="m2m"),
    Experiment("m2m-mono", "many-to-many + monolingual", monolingual=True, penalty_weight=PENALTY_ON, kind="m2m"),
)
BILINGUAL_PAIRS: tuple[Pair, ...] = (("en", "fr"), ("fr", "en"))  # the one pair every experiment trains


def experiment_pairs(experiment: Experiment) -> tuple[tuple[Pair, ...], tuple[Pair, ...]]:
    """(directions trained, directions left for zero-shot) of an experiment."""
    if experiment.kind == "bilingual":
        return BILINGUAL_PAIRS, ()
    if experiment.kind == "m2m":
        return all_pairs(LANGUAGES, monolingual=experiment.monolingual), ()
    return hub_pairs(experiment.monolingual), zero_shot_pairs()


# ------------------------------------------------------------------------------------------- the penalty study
# scripts/attention_bridge_penalty.py: bilingual bridge models (en ↔ fr in one model, the paper's Table 3 setting),
# λ ∈ STUDY_WEIGHTS at k = STUDY_K heads, and λ ∈ {0, 1} at every k of STUDY_HEADS, each over several seeds.
PENALTY_RESULTS = ROOT / "assets" / "results" / "attention_bridge_penalty.json"
PENALTY_SCRIPT = "scripts/attention_bridge_penalty.py"
STUDY_PAIRS = BILINGUAL_PAIRS
STUDY_CORPUS = {"n_train": 3000, "n_valid": 100, "n_test": 300}
STUDY_MODEL = {"embedding_size": 32, "encoder_size": 32, "bridge_hidden": 64}  # MODEL_OPTIONS less its heads
STUDY_K = MODEL_OPTIONS["heads"]
STUDY_WEIGHTS = (0.0, 0.1, 1.0)  # λ; the paper's Eq. 3 is λ = 1
STUDY_HEADS = (1, 6, 10)  # k; the paper chose 10 for sentences of 13.2 tokens
HEADS_WEIGHTS = (0.0, 1.0)  # λ for the heads sweep
SHORT_WORDS, LONG_WORDS = 5, 8  # source sentences of at most / at least this many words (EOS not counted)


def study_variant(heads: int, weight: float) -> str:
    return f"k={heads}, λ={weight:g}"


def study_settings() -> list[tuple[int, float]]:
    """(k, λ) of every model of the study, in the order its table lists them."""
    settings = [(STUDY_K, w) for w in STUDY_WEIGHTS]
    return settings + [(k, w) for k in STUDY_HEADS for w in HEADS_WEIGHTS if (k, w) not in settings]


STUDY_FINALS = ("exact", "tokens", "exact_short", "exact_long", "length_gap", "penalty", "overlap")


def load_penalty(path: Path | str | None = None) -> Comparison:
    """The shipped penalty study; ``FileNotFoundError``/``ValueError`` naming its script when unusable."""
    path = Path(path) if path is not None else PENALTY_RESULTS
    results = Comparison.load(path, script=PENALTY_SCRIPT)
    missing = [v for v in map(lambda s: study_variant(*s), study_settings())
               if v not in results.variants or not results.runs_of(v)]  # fmt: skip
    lacks = [f"{r.variant} seed {r.seed}" for r in results.runs if any(m not in r.final for m in STUDY_FINALS)]
    if missing or lacks:
        raise ValueError(f"{path.name} lacks {', '.join(missing + lacks)}; run `python {PENALTY_SCRIPT}` again")
    return results


def train_config(experiment: Experiment, steps: int, seed: int = SEED, **options) -> BridgeTrainConfig:
    pairs, held_out = experiment_pairs(experiment)
    return BridgeTrainConfig(pairs=pairs, held_out=held_out, max_steps=steps, max_seconds=float("inf"), seed=seed,
                             **options)  # fmt: skip


# ------------------------------------------------------------------------------------------- leave one pair out
# scripts/attention_bridge_leave_out.py: the paper's Figure 1 in miniature. Its six models each trained every pair of
# its four languages but one, with monolingual data; each left-out pair was then translated zero-shot and set
# beside the same pair in its best model (many-to-many + monolingual, every pair trained) and in a bilingual model.
# Here: the toy's six pairs, each left out (both directions) of a many-to-many + monolingual model, and the model
# with every pair, all at the grid's steps, batch and λ, over several seeds. No bilingual model per pair: the
# budget did not fit six more models × seeds (the grid's bilingual en ↔ fr is the one there is).
LEAVE_OUT_RESULTS = ROOT / "assets" / "results" / "attention_bridge_leave_out.json"
LEAVE_OUT_SCRIPT = "scripts/attention_bridge_leave_out.py"
LEAVE_OUT_PAIRS: tuple[Pair, ...] = tuple((a, b) for i, a in enumerate(LANGUAGES) for b in LANGUAGES[i + 1 :])
ALL_PAIRS = "all"  # the variant trained on every pair (the paper's red bar)
LEAVE_OUT_MEASURES = {"bleu": ("BLEU", ".1f"), "exact": ("exact match", ".1%"), "tokens": ("token accuracy", ".1%")}


def pair_label(pair: Pair) -> str:
    return f"{pair[0]} ↔ {pair[1]}"


def leave_out_variant(pair: Pair) -> str:
    return f"without {pair[0]}-{pair[1]}"


def leave_out_variants() -> tuple[str, ...]:
    return (ALL_PAIRS, *map(leave_out_variant, LEAVE_OUT_PAIRS))


def leave_out_labels() -> dict[str, str]:
    labels = {leave_out_variant(p): f"every pair but {pair_label(p)} + monolingual" for p in LEAVE_OUT_PAIRS}
    return {ALL_PAIRS: "every pair + monolingual", **labels}


def leave_out_config(pair: Pair | None, steps: int, seed: int = SEED, **options) -> BridgeTrainConfig:
    """Many-to-many + monolingual, without ``pair``'s two directions (held out for zero-shot); ``None``: every
    pair."""
    held = () if pair is None else (pair, pair[::-1])
    return BridgeTrainConfig(pairs=all_pairs(LANGUAGES, held_out=held, monolingual=True), held_out=held,
                             max_steps=steps, max_seconds=float("inf"), seed=seed, **options)  # fmt: skip


def pair_final(measure: str, pair: Pair) -> str:
    """The final that holds ``measure`` ("bleu", "exact", "tokens") of ``pair``, both directions averaged."""
    return f"{measure} {pair[0]}-{pair[1]}"


def pair_finals(test: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Every pair's measures from a run's per-direction test scores ({"en→fr": {"bleu", "exact_match",
    "token_accuracy"}}), the two directions of a pair averaged."""
    keys = {"bleu": "bleu", "exact": "exact_match", "tokens": "token_accuracy"}
    return {pair_final(m, p): round(float(np.mean([test[pair_name(d)][k] for d in (p, p[::-1])])), 4)
            for m, k in keys.items() for p in LEAVE_OUT_PAIRS}  # fmt: skip


def load_leave_out(path: Path | str | None = None) -> Comparison:
    """The shipped leave-one-pair-out study; ``FileNotFoundError``/``ValueError`` naming its script when unusable."""
    path = Path(path) if path is not None else LEAVE_OUT_RESULTS
    results = Comparison.load(path, script=LEAVE_OUT_SCRIPT)
    missing = [v for v in leave_out_variants() if v not in results.variants or not results.runs_of(v)]
    needed = [pair_final(m, p) for m in LEAVE_OUT_MEASURES for p in LEAVE_OUT_PAIRS]
    lacks = [f"{r.variant} seed {r.seed}" for r in results.runs if any(m not in r.final for m in needed)]
    if missing or lacks:
        raise ValueError(f"{path.name} lacks {', '.join(missing + lacks)}; run `python {LEAVE_OUT_SCRIPT}` again")
    return results


def leave_out_spreads(results: Comparison, pair: Pair, measure: str) -> tuple[Spread, Spread]:
    """(``pair`` trained, in the model with every pair; ``pair`` zero-shot, in the model without it), over seeds."""
    final = pair_final(measure, pair)
    return results.spread(final, ALL_PAIRS), results.spread(final, leave_out_variant(pair))


def leave_out_rows(results: Comparison) -> list[dict]:
    """One row per pair: BLEU, exact match and token accuracy with the pair trained and zero-shot, mean ± sd and n."""
    rows = []
    for pair in LEAVE_OUT_PAIRS:
        row = {"pair": pair_label(pair)}
        for measure, (name, fmt) in LEAVE_OUT_MEASURES.items():
            trained, zero = leave_out_spreads(results, pair, measure)
            row[f"{name}: trained"] = trained.text(fmt, with_n=False)
            row[f"{name}: zero-shot"] = zero.text(fmt, with_n=False)
        row["n"] = f"{len(results.runs_of(ALL_PAIRS))} / {len(results.runs_of(leave_out_variant(pair)))}"
        rows.append(row)
    return rows


def _over_pairs(results: Comparison, measure: str) -> tuple[Spread, Spread]:
    """Each seed's mean over the six pairs, trained (model with every pair) and zero-shot (each pair's own model
    without it): two spreads over the seeds that every variant has."""
    seeds = [s for s in results.seeds if all(results.runs_of(v) and any(r.seed == s for r in results.runs_of(v))
                                             for v in leave_out_variants())]  # fmt: skip

    def value(variant: str, seed: int, pair: Pair) -> float:
        return next(r for r in results.runs_of(variant) if r.seed == seed).value(pair_final(measure, pair))

    trained = Spread(tuple(float(np.mean([value(ALL_PAIRS, s, p) for p in LEAVE_OUT_PAIRS])) for s in seeds))
    zero = Spread(tuple(float(np.mean([value(leave_out_variant(p), s, p) for p in LEAVE_OUT_PAIRS])) for s in seeds))
    return trained, zero


CLOSE_SHARE = 0.9  # zero-shot within 10% of the trained score: "very close", the paper's words


def leave_out_finding(results: Comparison, measure: str = "bleu") -> str:
    """The paper's Figure 1 claim (left-out pairs zero-shot "very close to the supervised model") tested on the
    shipped runs: averaged over the pairs, and pair by pair (:func:`verdict`, mean ± sd over seeds)."""
    name, fmt = LEAVE_OUT_MEASURES[measure]
    trained, zero = _over_pairs(results, measure)
    gap = BLEU_MIN_GAP if measure == "bleu" else MIN_GAP  # one BLEU point, or 5 points of a share: no finding
    outcome, _ = verdict(zero, trained, min_gap=gap)
    share = zero.mean / trained.mean if trained.mean else float("nan")
    per_pair = {p: verdict(*leave_out_spreads(results, p, measure)[::-1], min_gap=gap)[0] for p in LEAVE_OUT_PAIRS}
    below = [pair_label(p) for p, o in per_pair.items() if o == "worse"]
    above = [pair_label(p) for p, o in per_pair.items() if o == "better"]
    numbers = (f"{zero.text(fmt, with_n=False)} zero-shot against {trained.text(fmt, with_n=False)} trained "
               f"(n = {zero.n} seeds, each the mean over the {len(LEAVE_OUT_PAIRS)} pairs)")  # fmt: skip
    if outcome == "too close":
        head = f"Left out of training or trained, a pair scores too close to call by {name}: {numbers}"
    else:
        word = "worse" if outcome == "worse" else "better"
        head = f"Left out of training, a pair is translated clearly **{word}** zero-shot than trained, by {name}: "
        head += numbers
    close = share >= CLOSE_SHARE
    paper = ("as the paper found (“very close to the supervised model”)" if close
             else "so the paper's “very close to the supervised model” does **not** hold here")  # fmt: skip
    pairs = (f" Pair by pair, zero-shot is clearly below trained for {len(below)} of {len(per_pair)}"
             + (f" ({', '.join(below)})" if below else "")
             + (f" and clearly above for {', '.join(above)}" if above else "") + ".")  # fmt: skip
    return f"{head}; zero-shot reaches {share:.0%} of the trained {name}, {paper}.{pairs}"


HUB_CLAIM = "those zero-shot models are generally better than the ones from the previously discussed"


def leave_out_against_hub(left_out: Comparison, grid: Comparison) -> str:
    """The paper's second Figure 1 claim: a pair left out alone is translated zero-shot better than by the hub
    model, which leaves out every pair without the hub. Tested on the pairs that avoid the hub, the same test
    directions in both files, per seed (BLEU where the grid has it, else token accuracy)."""
    measure, key = ("bleu", "bleu") if has_bleu(grid) else ("tokens", "token_accuracy")
    name, fmt = LEAVE_OUT_MEASURES[measure]
    pairs = [p for p in LEAVE_OUT_PAIRS if HUB not in p]
    seeds = sorted(set(left_out.seeds) & {r.seed for r in grid.runs_of("hub-mono")})

    def alone(seed: int) -> float:
        runs = [next(r for r in left_out.runs_of(leave_out_variant(p)) if r.seed == seed) for p in pairs]
        return float(np.mean([r.value(pair_final(measure, p)) for r, p in zip(runs, pairs, strict=True)]))

    def hub(seed: int) -> float:
        test = next(r for r in grid.runs_of("hub-mono") if r.seed == seed).extra["test"]
        return float(np.mean([test[pair_name(d)][key] for p in pairs for d in (p, p[::-1])]))

    a, b = Spread(tuple(map(alone, seeds))), Spread(tuple(map(hub, seeds)))
    outcome, _ = verdict(a, b, min_gap=BLEU_MIN_GAP if measure == "bleu" else MIN_GAP)
    said = {"better": "clearly higher; the toy agrees", "worse": "clearly lower; the toy finds the **opposite**"}
    numbers = f"{a.text(fmt, with_n=False)} against {b.text(fmt, with_n=False)}, n = {a.n} seeds"
    return (
        f"The paper: “{HUB_CLAIM}” hub model. Here, on the {2 * len(pairs)} directions that avoid the "
        f"{LANGUAGE_NAMES[HUB]} hub, zero-shot {name} with one pair left out against the hub + monolingual model of "
        f"the grid: {said.get(outcome, 'too close to call; no finding')} ({numbers})."
    )


LEAVE_OUT_INTRO = (
    "The paper's Figure 1 trained six models, each on every pair of its four languages but one (with monolingual "
    "data), and translated the left-out pair zero-shot: “In most cases, they come very close to the supervised "
    "model”. The same here: the toy's six pairs, each left out (both directions) of a many-to-many + monolingual "
    "model, against the model that trains every pair, same steps and seeds. Trained: the pair in the model with "
    "every pair; zero-shot: the pair in the model that never saw it. The paper's third bar, a bilingual model per "
    "pair, is not trained here (six more models per seed did not fit the budget)."
)


def leave_out_figure(results: Comparison, measure: str = "bleu") -> go.Figure:
    """The paper's Figure 1 in miniature: per pair, trained against zero-shot, mean bars with ± sd whiskers."""
    name, fmt = LEAVE_OUT_MEASURES[measure]
    labels = [pair_label(p) for p in LEAVE_OUT_PAIRS]
    spreads = [leave_out_spreads(results, p, measure) for p in LEAVE_OUT_PAIRS]
    traces = []
    for i, (what, colour) in enumerate((("trained (every pair)", "#e45756"), ("zero-shot (pair left out)", "#72b7b2"))):
        sides = [pair[i] for pair in spreads]
        traces.append({"type": "bar", "x": labels, "y": [s.mean for s in sides], "name": what,
                       "marker": {"color": colour},
                       "error_y": {"type": "data", "array": [s.sd for s in sides], "visible": True},
                       "customdata": [s.n for s in sides],
                       "hovertemplate": f"%{{x}} · {what}<br>{name} %{{y:{fmt}}} (n = %{{customdata}})"
                                        "<extra></extra>"})  # fmt: skip
    shown, lines = charts.wrapped_title(f"Each pair trained and zero-shot: test {name}, mean ± sd over seeds")
    layout = {"barmode": "group", "height": 360 + 18 * (lines - 1),
              "margin": {"l": 10, "r": 10, "t": 22 + 18 * lines, "b": 10}, "title": {"text": shown},
              "yaxis": {"title": {"text": name}, "rangemode": "tozero"} | ({"tickformat": ".0%"} if "%" in fmt else {}),
              "legend": {"orientation": "h", "y": -0.2}}  # fmt: skip
    return charts.figure(traces, layout)


def leave_out_note(meta: Mapping) -> str:
    """How the study was trained, for its provenance caption."""
    return (
        f"{meta.get('steps')} steps of {meta.get('batch_size')} sentences per model (the grid's), λ = "
        f"{meta.get('penalty_weight')}, {meta.get('test_sentences')} test meanings per direction, weights rounded "
        "to float16; BLEU is corpus BLEU over the words (minimodels.bleu, no smoothing). One torch thread, "
        f"1-minute load {meta.get('load_1min_after', '?')} after."
    )


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


# ------------------------------------------------------------------------------------------- meaning space
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
        "x": xy[:, 0].tolist(), "y": xy[:, 1].tolist(), "langs": langs, "meanings": meanings, "english": english,
        "explained": float((singular[:2] ** 2).sum() / (singular**2).sum()),
        "raw": nearest_rates(X, langs, meanings), "shifted": nearest_rates(shifted, langs, meanings),
        "plane": nearest_rates(xy, langs, meanings),
    }  # fmt: skip


CLUSTER = 0.5  # a nearest-neighbour rate above this: the points group that way


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
        answer = (" So translations do **not** cluster: M is grouped by **language**, not by meaning, as the failing "
                  "zero-shot directions suggest (a decoder then reads M from an encoder it never met).")  # fmt: skip
    else:
        answer = " So M groups neither by meaning nor by language."
    ratio = shifted["translation"] / shifted["chance_translation"]
    after = (
        f" Subtract each language's mean M (one shift per language) and a translation is nearest for "
        f"{shifted['translation']:.0%}, {ratio:.0f} times chance: "
        + ("most of the difference between languages is that shift." if shifted["translation"] > CLUSTER
           else "some meaning is shared beyond the shift, but little." if ratio >= 2
           else "no more meaning is shared beyond the shift.")
    )  # fmt: skip
    return told + answer + after


def meaning_alt(space: Mapping) -> str:
    """The chart's text alternative, one sentence from its own 2-D points."""
    plane = space["plane"]
    groups = ("four groups, one per language" if plane["same_language"] > CLUSTER
              else "groups of translations" if plane["translation"] > CLUSTER else "no clear groups")  # fmt: skip
    return (
        f"Chart in words: {len(space['langs'])} points ({len(set(space['meanings']))} held-out meanings × "
        f"{len(set(space['langs']))} languages) on M's first two principal components ({space['explained']:.0%} of "
        f"the variance) form {groups}: a point's nearest neighbour in the plane is in its own language "
        f"{plane['same_language']:.0%} of the time and a translation {plane['translation']:.0%}."
    )


LANGUAGE_COLOURS = {"en": "#4c78a8", "fr": "#f58518", "it": "#54a24b", "vf": "#b279a2"}


def meaning_figure(space: Mapping, by: str = "language") -> go.Figure:
    """The projected M's: one colour per language (``by="language"``), or per meaning with each meaning's four
    points joined by a grey line (``by="sentence"``: short lines = translations together)."""
    x, y, langs, meanings = space["x"], space["y"], space["langs"], space["meanings"]
    hover = [f"{LANGUAGE_NAMES[lang]} · meaning {m}<br>{charts.safe_label(e, 60)}"
             for lang, m, e in zip(langs, meanings, space["english"], strict=True)]  # fmt: skip
    traces = []
    if by == "language":
        for lang in LANGUAGES:
            idx = [i for i, g in enumerate(langs) if g == lang]
            traces.append({"type": "scatter", "mode": "markers", "x": [x[i] for i in idx], "y": [y[i] for i in idx],
                           "name": LANGUAGE_NAMES[lang], "marker": {"color": LANGUAGE_COLOURS[lang], "size": 8},
                           "text": [hover[i] for i in idx], "hovertemplate": "%{text}<extra></extra>"})  # fmt: skip
    else:
        lx, ly = [], []
        for m in sorted(set(meanings)):
            idx = [i for i, g in enumerate(meanings) if g == m]
            lx += [x[i] for i in idx] + [None]
            ly += [y[i] for i in idx] + [None]
        traces.append({"type": "scatter", "mode": "lines", "x": lx, "y": ly, "hoverinfo": "skip", "showlegend": False,
                       "line": {"color": "rgba(120,120,120,0.35)", "width": 1}})  # fmt: skip
        traces.append({"type": "scatter", "mode": "markers", "x": x, "y": y, "text": hover, "showlegend": False,
                       "marker": {"color": meanings, "colorscale": charts.SEQUENTIAL_COLORSCALE, "size": 8},
                       "hovertemplate": "%{text}<extra></extra>"})  # fmt: skip
    shown, lines = charts.wrapped_title(f"M of each sentence, by {by} ({space['explained']:.0%} of the variance)")
    layout = {"height": 420 + 18 * (lines - 1), "margin": {"l": 10, "r": 10, "t": 22 + 18 * lines, "b": 10},
              "xaxis": {"title": {"text": "principal component 1"}, "zeroline": False},
              "yaxis": {"title": {"text": "principal component 2"}, "zeroline": False},
              "legend": {"orientation": "h", "y": -0.2}, "title": {"text": shown}}  # fmt: skip
    return charts.figure(traces, layout)


# ------------------------------------------------------------------------------------------- figures
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
    shown, lines = charts.wrapped_title(title)  # in lines that fit a phone
    layout |= {"height": 330 + 18 * (lines - 1), "margin": {"l": 10, "r": 10, "t": 42 + 18 * lines if title else 40,
               "b": 10}, "title": {"text": shown} if title else None}  # fmt: skip
    return charts.figure(traces, layout)


def gram_heatmap(A: np.ndarray, *, title: str = "") -> go.Figure:
    """A Aᵀ with heads on both axes (numbered: "head 1 head 2 …" ran together at 390 px): bright off the diagonal
    means two heads read the same words."""
    heads = [str(j + 1) for j in range(A.shape[0])]
    return charts.attention_heatmap(gram(A), heads, heads, title=title, x_title="head", y_title="head",
                                    value_name="(A Aᵀ)ᵢⱼ", height=330, show_cell_text=True)  # fmt: skip


# ------------------------------------------------------------------------------------------- shipped things
# ``assets/results/attention_bridge.json`` is a :class:`Comparison` made by ``scripts/attention_bridge_results.py``:
# variants are the EXPERIMENTS' names, params {"monolingual", "penalty_weight"}, the curve every validation report
# (step, seconds, loss, penalty, exact_match, zero_shot), the finals below (test sentences, weights as shipped), and
# extra the directions trained and held out, the steps, seconds and parameters, each direction's test scores
# ("test") and the final A on the probe meaning in every language ("probe"). The no-bridge model has params
# "bridge": False too, no redundancy (None) and no probe maps ({}): it has no A.
FINALS = ("trained_exact", "trained_tokens", "zero_shot_exact", "zero_shot_tokens", "redundancy", "agreement",
          "en_fr_exact")  # fmt: skip
ZERO_SHOT_TABLE = {  # column -> (final, format)
    "en ↔ fr: exact match": ("en_fr_exact", ".1%"),
    "trained directions: exact match": ("trained_exact", ".1%"),
    "trained directions: BLEU": ("trained_bleu", ".1f"),
    "zero-shot: exact match": ("zero_shot_exact", ".1%"),
    "zero-shot: token accuracy": ("zero_shot_tokens", ".1%"),
    "zero-shot: BLEU": ("zero_shot_bleu", ".1f"),
}
BLEU_FINALS = ("trained_bleu", "zero_shot_bleu", "en_fr_bleu")  # in files measured since BLEU was added
SCRIPT = "scripts/attention_bridge_results.py"


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped measurements; ``FileNotFoundError``/``ValueError`` naming the script when unusable."""
    path = Path(path) if path is not None else RESULTS
    results = Comparison.load(path, script=SCRIPT)
    missing = [e.name for e in EXPERIMENTS if e.name not in results.variants or not results.runs_of(e.name)]
    if missing:
        raise ValueError(f"{path.name} has no run {', '.join(missing)}; run `python {SCRIPT}` again")
    for run in results.runs:
        lacks = [m for m in FINALS if m not in run.final] + [k for k in ("test", "probe") if k not in run.extra]
        if lacks:
            raise ValueError(f"{path.name}: {run.variant} seed {run.seed} lacks {', '.join(lacks)}; run `python "
                             f"{SCRIPT}` again")  # fmt: skip
    return results


def load_shipped(directory: Path | str = SHIPPED_MODEL) -> tuple[BridgeModel, MultilingualCorpus, dict]:
    """The shipped model (eval mode) and the held-out test meanings read with its vocabularies."""
    model, tokenizers, info = load_bridge(directory)
    # the test split is drawn first, so its first meanings are the shipped runs' whatever the other sizes
    n_test = max(SHOWN_MEANINGS, AGREEMENT_MEANINGS)
    corpus = get_multilingual(SEED, n_train=1, n_valid=1, n_test=n_test).with_tokenizers(tokenizers)
    return model, corpus, info


def experiment_run(experiment: Experiment, seed: int, history: Sequence[Mapping], test: Mapping[str, Mapping],
                   summary: Mapping[str, float], **extra) -> Run:  # fmt: skip
    """One measured experiment as the comparison keeps it (``extra``: pairs, held_out, steps, seconds, parameters,
    probe)."""
    params = {"monolingual": experiment.monolingual, "penalty_weight": experiment.penalty_weight}
    if not experiment.bridge:
        params["bridge"] = False  # the bridge models' params stay as they were measured
    return Run(experiment.name, seed, params, tuple(history), dict(summary), {"test": dict(test), **extra})


def zero_shot_rows(results: Comparison) -> list[dict]:
    """One row per experiment: test exact match/token accuracy on the trained and on the zero-shot directions,
    mean ± sd over seeds and n."""
    rows = []
    for e in EXPERIMENTS:
        weight = format(e.penalty_weight, "g") if e.bridge else "–"  # no bridge: no A, no penalty to weigh
        row = {"training data": results.label(e.name), "penalty λ": weight, "n": len(results.runs_of(e.name))}
        for column, (metric, fmt) in ZERO_SHOT_TABLE.items():
            if metric in BLEU_FINALS and not has_bleu(results):
                continue  # an older file: no BLEU column rather than a column of dashes
            spread = results.spread(metric, e.name)  # none for a model with no zero-shot direction
            row[column] = spread.text(fmt, with_n=False) if spread.n else "–"
        rows.append(row)
    return rows


def has_bleu(results: Comparison) -> bool:
    """Whether every run of the grid was scored with BLEU too (files measured before it was added were not)."""
    return all(m in r.final for r in results.runs for m in BLEU_FINALS)


def direction_rows(results: Comparison) -> list[dict]:
    """Test exact match of every direction in every experiment (zero-shot ones marked), the mean over seeds."""
    held = {pair_name(p) for p in zero_shot_pairs()}
    names = list(results.runs_of(EXPERIMENTS[0].name)[0].extra["test"])
    shown = {e.name: {pair_name(p) for p in sum(experiment_pairs(e), ())} for e in EXPERIMENTS}
    rows = []
    for name in names:
        row = {"direction": name + (" (zero-shot in the hub models)" if name in held else "")}
        for e in EXPERIMENTS:  # None: neither trained nor tested zero-shot (the bilingual model's other languages)
            scores = [r.extra["test"][name]["exact_match"] for r in results.runs_of(e.name)]
            row[results.label(e.name)] = float(np.mean(scores)) if name in shown[e.name] else None
        rows.append(row)
    return rows


# (a, b, final, the paper's words) for grid_findings: the claims of its Table 1 and section 4, quoted
PAPER_GRID_CLAIMS = (
    ("hub", "bilingual", "en_fr_exact", "the {X} ↔ En model gave “substantial improvements for the language pairs "
     "seen during training, exceeding both bilingual baselines” (here the one with the bridge)"),
    ("hub", "bilingual-nobridge", "en_fr_exact", "the {X} ↔ En model was “exceeding both bilingual baselines” (here "
     "the one without the bridge)"),
    ("hub-mono", "hub", "trained_exact", "monolingual data had “a positive effect on the seen language pairs”"),
    ("m2m-mono", "m2m", "trained_exact", "in the many-to-many model “the addition of monolingual data leads to even "
     "higher scores, producing the overall best model”"),
    ("m2m-mono", "bilingual-nobridge", "en_fr_exact", "“The improvements in BLEU range from 1.40 to a remarkable "
     "4.43 when compared to the standard bilingual model” (the one without the bridge)"),
)  # fmt: skip
GRID_METRICS = {"en_fr_exact": "exact match on en ↔ fr", "trained_exact": "exact match on its trained directions"}
GRID_BLEU = {"en_fr_exact": "en_fr_bleu", "trained_exact": "trained_bleu"}  # the same claims by the paper's BLEU
BLEU_MIN_GAP = 1.0  # BLEU points: a gap of one point or less is "little difference", whatever the seeds say


def grid_findings(results: Comparison) -> list[str]:
    """The paper's claims about its grid, each tested on the shipped runs (:meth:`Comparison.compare`): by exact
    match, and by BLEU too where the file has it."""
    lines = []
    bleu = has_bleu(results)

    def outcome(verdict) -> str:
        return {"better": "the toy agrees", "worse": "the toy finds the **opposite**"}.get(
            verdict.outcome, "the toy cannot tell: no finding")  # fmt: skip

    for a, b, metric, claim in PAPER_GRID_CLAIMS:
        verdict = results.compare(a, b, metric, min_gap=MIN_GAP)
        line = (f"The paper: {claim}. Here {results.label(a)} against {results.label(b)}, {GRID_METRICS[metric]}: "
                f"{_state(verdict, '.1%', 'higher', 'lower')}; {outcome(verdict)}.")  # fmt: skip
        if bleu:
            by_bleu = results.compare(a, b, GRID_BLEU[metric], min_gap=BLEU_MIN_GAP)
            line += f" By BLEU: {_state(by_bleu, '.1f', 'higher', 'lower')}; {outcome(by_bleu)}."
        lines.append(line)
    return [*lines, bridge_cost_finding(results), budget_note(results)]


# Table 1 (left) of the paper, the en ↔ fr cells: direction -> (BLEU with the attention bridge, without it)
PAPER_BILINGUAL_BLEU = {"en→fr": (53.03, 55.96), "fr→en": (48.93, 49.54)}
PAPER_BRIDGE_CLAIM = (
    "the attention bridge model is almost on par with the standard bilingual model for all language pairs in our "
    "data set"
)


def bridge_cost_finding(results: Comparison) -> str:
    """The bilingual en ↔ fr model with the bridge against the same model without it, set against the paper's Table 1
    (left): "almost on par", the bridge at most :data:`PAPER_BILINGUAL_BLEU`'s largest en ↔ fr gap behind. The toy
    reproduces it when the bridge model is within the spread of the plain one, or behind by no more than that."""
    with_bridge, without = "bilingual", "bilingual-nobridge"
    gaps = {d: plain - bridge for d, (bridge, plain) in PAPER_BILINGUAL_BLEU.items()}
    worst = max(gaps, key=gaps.get)
    paper = (f"The paper, Table 1: “{PAPER_BRIDGE_CLAIM}”; en ↔ fr BLEU with the bridge against without: "
             + ", ".join(f"{d} {b:.2f} against {p:.2f}" for d, (b, p) in PAPER_BILINGUAL_BLEU.items())
             + f" (at most {gaps[worst]:.1f} lower, {worst}).")  # fmt: skip
    exact = results.compare(with_bridge, without, "en_fr_exact", min_gap=MIN_GAP)
    a, b = (spread.text(".1%", with_n=False) for spread in (exact.a_spread, exact.b_spread))
    by_exact = f"exact match {a} against {b}"
    if not has_bleu(results):
        return (f"{paper} Here, en ↔ fr with the bridge against without: {by_exact}; this file has no BLEU, so the "
                "paper's gap cannot be set beside it.")  # fmt: skip
    v = results.compare(with_bridge, without, "en_fr_bleu", min_gap=BLEU_MIN_GAP)
    here = (f"Here, en ↔ fr with the bridge against without: BLEU {v.a_spread.text('.1f', with_n=False)} against "
            f"{v.b_spread.text('.1f', with_n=False)}, {by_exact}")  # fmt: skip
    cost = v.b_spread.mean - v.a_spread.mean
    if v.outcome == "too close":
        verdict = f"too close to call by BLEU ({v.why('.1f')}): on par, so the toy reproduces the paper's finding."
    elif v.outcome == "better":
        verdict = (f"the bridge model is clearly **ahead**, by {-cost:.1f} BLEU, where the paper's was slightly "
                   "behind: the toy does not reproduce the paper's small cost of the bridge.")  # fmt: skip
    elif cost <= gaps[worst]:
        verdict = (f"the bridge costs {cost:.1f} BLEU, beyond the spread but no more than the paper's largest gap "
                   f"({gaps[worst]:.1f}): almost on par, so the toy reproduces the paper's finding.")  # fmt: skip
    else:
        steps = results.meta.get("steps")
        trained = f"both trained the same {steps} steps" if isinstance(steps, int) else "both trained the same steps"
        verdict = (f"the bridge costs **{cost:.1f} BLEU**, beyond the spread and more than the paper's largest gap "
                   f"({gaps[worst]:.1f}), so the toy does **not** reproduce “almost on par”. Plausibly because every "
                   f"sentence passes through k = {MODEL_OPTIONS['heads']} rows of M here while the plain model attends "
                   f"over every word; and {trained}, where the bridge model may still be catching up and the paper "
                   "trained each model to its best.")  # fmt: skip
    return f"{paper} {here}: {verdict}"


def budget_note(results: Comparison) -> str:
    """Why the toy may disagree: the same steps for every model, so fewer per direction the more it has."""
    steps = results.meta.get("steps")
    if not isinstance(steps, int):
        return "Every model trained the same number of steps."
    per = {e.label: steps // len(experiment_pairs(e)[0]) for e in EXPERIMENTS}
    shown = ", ".join(f"{label} {n}" for label, n in per.items())
    return (f"Every model trained {steps} steps, one direction per step, so each direction got fewer the more "
            f"directions a model has ({shown} steps per direction): these are comparisons at equal compute, "
            "where the paper trained every model to its best.")  # fmt: skip


def probe_map(results: Comparison, experiment: str, lang: str) -> tuple[np.ndarray, list[str]]:
    """The shipped experiment's final A on the probe meaning in ``lang`` (its first seed), with its tokens."""
    probe = results.runs_of(experiment)[0].extra["probe"][lang]
    return np.asarray(probe["A"], dtype=float), list(probe["tokens"])


def _mean(results: Comparison, metric: str, experiment: str, fmt: str) -> str:
    """A final's mean over seeds, with its sd when there are several: "24.6%", "24.6% ± 1.2%"."""
    spread = results.spread(metric, experiment)
    return format(spread.mean, fmt) + (f" ± {format(spread.sd, fmt)}" if spread.n > 1 else "")


MIN_GAP = 0.05  # token accuracy: a gap of 5 points or less is "little difference", whatever the seeds say


RARE = 0.1  # zero-shot exact match below this: whole sentences right are rare


def seeds_note(results: Comparison) -> str:
    """How many seeds each shipped model has, and what that allows (computed from the runs)."""
    counts = sorted({len(results.runs_of(e.name)) for e in EXPERIMENTS})
    if counts == [1]:
        return ("**The shipped results are one seed per model (n = 1).** Every comparison below is one run against "
                "one run: an anecdote, not a finding (no spread can be measured). The script's `--seeds 0 1 2` makes "
                "three.")  # fmt: skip
    least = counts[0]
    return (
        f"The shipped results are {'/'.join(map(str, counts))} seeds per model: mean ± sd over n = {least}"
        f"{' or more' if len(counts) > 1 else ''} runs; a difference counts when it exceeds the spread."
    )


def zero_shot_finding(results: Comparison) -> str:
    """What the zero-shot directions show, whole sentences first, then by token accuracy (the paper's BLEU also
    counts partial matches), with or without monolingual pairs (:meth:`Comparison.compare`)."""
    exact = {name: results.spread("zero_shot_exact", name) for name in ("hub-mono", "hub")}
    whole = (f"{exact['hub-mono'].text('.1%', with_n=False)} with monolingual pairs against "
             f"{exact['hub'].text('.1%', with_n=False)} without")  # fmt: skip
    if max(s.mean for s in exact.values()) < RARE:
        first = (f"Whole sentences: almost no zero-shot translation is right ({whole}), so neither model translates "
                 "the unseen directions here; what follows is about single tokens in their place.")  # fmt: skip
    else:
        first = f"Whole zero-shot sentences right: {whole}."
    verdict = results.compare("hub-mono", "hub", "zero_shot_tokens", min_gap=MIN_GAP)
    numbers = (
        f"{verdict.a_spread.text('.0%', with_n=False)} against {verdict.b_spread.text('.0%', with_n=False)} of tokens"
    )
    if verdict.outcome == "better":
        second = ("By token accuracy the paper's finding holds here too: monolingual pairs lift the unseen directions "
                  f"({numbers}).")  # fmt: skip
    elif verdict.outcome == "worse":
        second = ("So on the toy languages the paper's finding does **not** hold: monolingual pairs hurt zero-shot "
                  f"({numbers}).")  # fmt: skip
    elif abs(verdict.a_spread.mean - verdict.b_spread.mean) <= MIN_GAP:
        second = ("So on the toy languages monolingual pairs make little difference to zero-shot, unlike the paper "
                  f"({numbers}).")  # fmt: skip
    else:
        lift = verdict.a_spread.mean > verdict.b_spread.mean
        second = (f"By token accuracy monolingual pairs {'lift' if lift else 'lower'} the unseen directions in these "
                  f"runs ({numbers}), {'as' if lift else 'unlike'} the paper found; but {verdict.why('.0%')}, so this "
                  "is a hint, not yet a finding.")  # fmt: skip
    return f"{first} {second}"


# (final, what it is, format, higher is better) for the penalty's two models
PENALTY_METRICS = (
    ("trained_exact", "exact match on the trained directions", ".1%", True),
    ("zero_shot_tokens", "zero-shot token accuracy", ".1%", True),
    ("agreement", "head agreement across languages", ".1%", True),
    ("redundancy", "head redundancy ‖AAᵀ − I‖_F (lower: less redundant)", ".2f", False),
)
WITH, WITHOUT = "hub-mono", "hub-mono-nopenalty"


def _penalty_verdict(results: Comparison, metric: str, higher: bool):
    return results.compare(WITH, WITHOUT, metric, higher_is_better=higher, min_gap=MIN_GAP if higher else 0.0)


def _ahead(verdict, higher: bool) -> str | None:
    """Which model's mean is ahead: "with" or "without" (the penalty), None when equal."""
    a, b = verdict.a_spread.mean, verdict.b_spread.mean
    if a == b:
        return None
    return "with" if (a > b) == higher else "without"


def penalty_findings(results: Comparison) -> list[str]:
    """One sentence per measure: which of the two models (λ on / off) is ahead, by the shipped numbers, and
    whether that is a finding (the gap beyond the spread over seeds) or only these runs."""
    lines = []
    for metric, name, fmt, higher in PENALTY_METRICS:
        verdict = _penalty_verdict(results, metric, higher)
        numbers = (f"{verdict.a_spread.text(fmt, with_n=False)} with the penalty against "
                   f"{verdict.b_spread.text(fmt, with_n=False)} without")  # fmt: skip
        ahead = _ahead(verdict, higher)
        if ahead is None:
            lines.append(f"On {name} the two models are equal: {numbers}.")
        elif verdict.clear:
            lines.append(f"On {name} the model **{ahead}** the penalty is clearly ahead: {numbers}.")
        else:
            lines.append(f"On {name} the model **{ahead}** the penalty is ahead in these runs ({numbers}); but "
                         f"{verdict.why(fmt)}, so it is not a finding.")  # fmt: skip
    return lines


# --- the penalty study (assets/results/attention_bridge_penalty.json): λ and k, several seeds
STUDY_COLUMNS = {  # column -> (final, format)
    "exact match": ("exact", ".1%"),
    "token accuracy": ("tokens", ".1%"),
    "BLEU": ("bleu", ".1f"),  # in files measured since BLEU was added
    f"short sources (≤ {SHORT_WORDS} words)": ("exact_short", ".0%"),
    f"long sources (≥ {LONG_WORDS} words)": ("exact_long", ".0%"),
    "‖AAᵀ − I‖²_F": ("penalty", ".2f"),
    "head overlap": ("overlap", ".2f"),
}


def study_rows(results: Comparison) -> list[dict]:
    """One row per (k, λ): mean ± sd over seeds of every measure (test sentences), and n."""
    rows = []
    for k, weight in study_settings():
        name = study_variant(k, weight)
        row = {"heads k": k, "penalty λ": weight, "n": len(results.runs_of(name))}
        for column, (metric, fmt) in STUDY_COLUMNS.items():
            if metric == "bleu" and not study_has_bleu(results):
                continue
            spread = results.spread(metric, name)  # no overlap for k = 1: no pair of heads
            row[column] = spread.text(fmt, with_n=False) if spread.n else "–"
        rows.append(row)
    return rows


def study_has_bleu(results: Comparison) -> bool:
    return all("bleu" in r.final for r in results.runs)


def _study(results: Comparison, a: tuple[int, float], b: tuple[int, float], metric: str, higher: bool = True):
    gap = MIN_GAP if metric.startswith("exact") else BLEU_MIN_GAP if metric == "bleu" else 0.0
    return results.compare(study_variant(*a), study_variant(*b), metric, higher_is_better=higher, min_gap=gap)


def _state(verdict, fmt: str, more: str, less: str) -> str:
    """A verdict in words: "clearly higher (50% ± 2% against 80% ± 1%)" or "too close to call (…)"."""
    numbers = f"{verdict.a_spread.text(fmt, with_n=False)} against {verdict.b_spread.text(fmt, with_n=False)}"
    a, b = verdict.a_spread.mean, verdict.b_spread.mean
    if not verdict.clear:
        return f"too close to call ({numbers}; {verdict.why(fmt)})"
    return f"clearly {more if a > b else less} ({numbers})"


def study_conclusion(results: Comparison, weight: float) -> str:
    """The paper's conclusion (similar scores, less redundancy with the penalty) tested at λ = ``weight`` against
    λ = 0, k = STUDY_K, on the shipped seeds: a sentence that says whether the toy reproduces it."""
    on, off = (STUDY_K, weight), (STUDY_K, 0.0)
    score = _study(results, on, off, "exact")
    overlap = _study(results, on, off, "overlap", higher=False)
    similar, less = not score.clear, overlap.outcome == "better"
    if similar and less:
        verdict = "reproduces the paper's conclusion (similar scores, less redundancy)"
    elif less:
        verdict = (f"reproduces the paper's *less redundancy* but **not** its *similar scores*: here the penalty "
                   f"{'adds' if score.outcome == 'better' else 'costs'} exact match")  # fmt: skip
    elif similar:
        verdict = "reproduces the paper's *similar scores* but **not** its *less redundancy*"
    else:
        verdict = "does **not** reproduce the paper's conclusion (similar scores, less redundancy)"
    n = min(score.a_spread.n, score.b_spread.n)
    said = (
        f"**λ = {weight:g} against λ = 0** (k = {STUDY_K}, n = {n} seeds each): exact match is "
        f"{_state(score, '.1%', 'higher', 'lower')} and head overlap is {_state(overlap, '.2f', 'higher', 'lower')}; "
        f"so the toy {verdict}."
    )
    if study_has_bleu(results):  # the paper's own measure for its "similar scores"
        bleu = _study(results, on, off, "bleu")
        similar = "similar, as the paper found." if not bleu.clear else "**not** similar, unlike the paper."
        said += f" By BLEU, the paper's measure: {_state(bleu, '.1f', 'higher', 'lower')}, {similar}"
    return said


def heads_finding(results: Comparison, weight: float = 0.0) -> str:
    """The paper's argument for k (fewer heads than about one per word is a bottleneck), tested at λ = ``weight``:
    is k = 1 worse than k = STUDY_K, and does it lose more on long sentences than on short ones?"""
    one, many, most = (1, weight), (STUDY_K, weight), (max(STUDY_HEADS), weight)
    score = _study(results, one, many, "exact")
    gap = _study(results, one, many, "length_gap")
    bigger = _study(results, most, many, "exact")
    return (
        f"**Heads, at λ = {weight:g}:** one head against {STUDY_K}: exact match "
        f"{_state(score, '.1%', 'higher', 'lower')}, and the drop from short to long sources "
        f"{_state(gap, '.1%', 'larger', 'smaller')}{_floor(results, one)}. {max(STUDY_HEADS)} heads, more than most "
        "sentences here have "
        f"words, against {STUDY_K}: exact match {_state(bigger, '.1%', 'higher', 'lower')}."
    )


def _floor(results: Comparison, setting: tuple[int, float]) -> str:
    """A warning when a setting gets almost no long sentence right: its short-to-long drop is then capped by its
    short sentences, not a measure of the bottleneck."""
    long = results.spread("exact_long", study_variant(*setting)).mean
    return f" (but one head gets only {long:.0%} of long sources right: a floor)" if long < MIN_GAP else ""


def study_figure(results: Comparison) -> go.Figure:
    """Exact match on short and long sources (left) and head overlap (right) against k, λ = 0 and 1, mean ± sd."""
    layout = charts.subplot_grid(1, 2, titles=["exact match (test)", "head overlap"],
                                 horizontal_spacing=0.12)  # fmt: skip
    traces = []
    colours = {0.0: "#4c78a8", 1.0: "#e45756"}
    for weight in HEADS_WEIGHTS:
        for metric, panel, dash, what in (("exact_short", "", "solid", f"≤ {SHORT_WORDS} words"),
                                          ("exact_long", "", "dot", f"≥ {LONG_WORDS} words"),
                                          ("overlap", "2", "solid", "overlap")):  # fmt: skip
            ks = [k for k in STUDY_HEADS if results.spread(metric, study_variant(k, weight)).n]
            spreads = [results.spread(metric, study_variant(k, weight)) for k in ks]
            name = f"λ = {weight:g}, {what}"
            traces.append({"type": "scatter", "mode": "lines+markers", "x": ks, "y": [s.mean for s in spreads],
                           "error_y": {"type": "data", "array": [s.sd for s in spreads], "visible": True},
                           "name": name, "line": {"color": colours[weight], "dash": dash},
                           "xaxis": f"x{panel}", "yaxis": f"y{panel}", "showlegend": metric != "overlap",
                           "hovertemplate": "k = %{x}<br>%{y:.3f}<extra>" + name + "</extra>"})  # fmt: skip
    for panel in ("", "2"):
        layout[f"xaxis{panel}"] |= {"title": {"text": "heads k"}, "type": "log", "tickvals": list(STUDY_HEADS)}
    layout["yaxis"] |= {"tickformat": ".0%", "range": [0, 1.02]}
    layout["yaxis2"] |= {"range": [0, 1.02]}
    layout |= {"height": 380, "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
               "legend": {"orientation": "h", "y": -0.3}}  # fmt: skip
    return charts.figure(traces, layout)


def study_note(meta: Mapping) -> str:
    """How the study was trained (smaller than the shipped models: said on the page)."""
    return (
        f"Bilingual bridge models (en ↔ fr in one model, as the paper's Table 3), {meta.get('steps')} steps of "
        f"{meta.get('batch_size')} sentences each, {meta.get('test_sentences')} "
        f"test meanings per direction; ‖AAᵀ − I‖²_F and head overlap averaged over the test sentences of both "
        f"languages. λ multiplies the penalty per sentence against the cross-entropy per token, so λ = 1 weighs it "
        f"several times more than the paper's sums over a batch did."
    )


# The paper's numbers, quoted (Vázquez et al. 2019), never recomputed: BLEU of the zero-shot directions of its
# Table 1 (centre), the {De, Fr, Cs} ↔ En model without and with monolingual data, and its Table 3, the bilingual
# bridge models with and without the penalty term.
PAPER_ZERO_SHOT = {  # direction -> (BLEU without monolingual data, with it)
    "de→cs": (0.35, 19.50), "de→fr": (0.83, 26.46), "cs→de": (0.65, 22.13),
    "cs→fr": (1.02, 22.80), "fr→de": (0.60, 25.96), "fr→cs": (0.30, 20.09),
}  # fmt: skip
PAPER_PENALTY = {  # direction -> (BLEU with the penalty term, without it)
    "en→de": (35.85, 34.67), "en→cs": (27.10, 27.22), "en→fr": (53.03, 54.39), "de→en": (38.19, 38.70),
    "de→cs": (23.97, 23.44), "de→fr": (37.40, 38.2), "cs→en": (36.41, 35.76), "cs→de": (27.28, 28.50),
    "cs→fr": (36.41, 36.4), "fr→en": (48.93, 48.76), "fr→de": (31.70, 31.60), "fr→cs": (25.96, 25.55),
}  # fmt: skip
PAPER_PENALTY_WEIGHT = 1.0  # Eq. 3 adds ‖AAᵀ − I‖²_F to the loss with no weight in front of it


def paper_zero_shot_text() -> str:
    """The paper's Table 1 zero-shot BLEU, without and with monolingual data, as ranges read from the quoted cells."""
    without, with_mono = zip(*PAPER_ZERO_SHOT.values(), strict=True)
    return (f"its {len(PAPER_ZERO_SHOT)} zero-shot directions scored {min(without):.2f}–{max(without):.2f} BLEU "
            f"without monolingual data and {min(with_mono):.2f}–{max(with_mono):.2f} with it")  # fmt: skip


def paper_penalty_text() -> str:
    gaps = [abs(a - b) for a, b in PAPER_PENALTY.values()]
    return (
        f"its {len(gaps)} bilingual directions differ by {np.mean(gaps):.2f} BLEU on average, {max(gaps):.2f} at most"
    )


def shipped_penalty_weight(results: Comparison | None) -> float:
    """λ of the shipped models trained with the penalty (the course's default when no results are loaded)."""
    return results.runs_of(WITH)[0].params["penalty_weight"] if results is not None else PENALTY_ON


def penalty_weight_text(results: Comparison | None) -> str:
    weight = shipped_penalty_weight(results)
    same = (
        "the paper's weight"
        if weight == PAPER_PENALTY_WEIGHT
        else f"{weight / PAPER_PENALTY_WEIGHT:g} times the paper's"
    )
    return (f"λ weighs the penalty: the paper's Eq. 3 adds it with weight {PAPER_PENALTY_WEIGHT:g} (it writes no λ); "
            f"the models here use λ = {weight:g}, {same}, and λ = 0 to turn it off.")  # fmt: skip


def agreement_text(one: float, overall: float, results: Comparison | None) -> str:
    """Section 1's sentence on head agreement: this meaning, the shipped model over many, and, from the shipped
    results, the same measure for the model trained without the penalty."""
    text = (f"On this meaning **{one:.0%}** of (head, language) pairs have the top word mean what the head's top word "
            f"means in English; over {AGREEMENT_MEANINGS} held-out meanings, **{overall:.0%}**.")  # fmt: skip
    if results is not None:
        without = results.spread("agreement", WITHOUT)
        shown = without.text(".0%", with_n=False)
        text += (f" The model trained the same way without the penalty reaches {shown} on the same "
                 f"measure ({'more' if without.mean > overall else 'less' if without.mean < overall else 'as much'}"
                 f"{'' if without.mean == overall else ' than the shipped one'}).")  # fmt: skip
    return text


def observations(results: Comparison) -> list[str]:
    """What the shipped comparison says about monolingual pairs, written from its numbers (a re-measured file
    rewrites them); the penalty's are :func:`penalty_findings`."""
    n_mono, n_all = len(LANGUAGES), len(hub_pairs(True))
    seeds = {len(results.runs_of(e.name)) for e in EXPERIMENTS}
    over = "one seed per model" if seeds == {1} else f"mean ± sd over {'/'.join(map(str, sorted(seeds)))} seeds"
    plain_trained, mono_trained = (results.spread("trained_exact", v).mean for v in ("hub", "hub-mono"))
    why = {-1: ": with the same number of steps,", 0: "; with the same number of steps,", 1: ", even though"}[
        int(np.sign(mono_trained - plain_trained))]  # fmt: skip

    def m(metric: str, experiment: str, fmt: str = ".0%") -> str:
        return _mean(results, metric, experiment, fmt)

    return [
        f"Without monolingual pairs the zero-shot directions reach **{m('zero_shot_exact', 'hub', '.1%')}** exact "
        f"match (**{m('zero_shot_tokens', 'hub')}** of tokens); with them, **{m('zero_shot_exact', 'hub-mono', '.1%')}"
        f"** (**{m('zero_shot_tokens', 'hub-mono')}** of tokens). The trained directions reach "
        f"{m('trained_exact', 'hub')} and {m('trained_exact', 'hub-mono')}{why} the monolingual pairs take {n_mono} "
        f"of every {n_all} minibatches away from them ({over}).",
        zero_shot_finding(results),
    ]


HISTORY_HEIGHT = 340  # each chart, legend and titles included (Streamlit fits the whole chart in it)


def history_charts(results: Comparison) -> list[tuple[str, dict]]:
    """Validation exact match against steps, every experiment a colour: the zero-shot directions and the trained
    ones, one chart each on the same 0–100% scale (:func:`curves_chart`)."""
    return [
        (
            metric,
            curves_chart(
                results.curve_points(metric),
                y_title="exact match",
                x_title="training step",
                title=title,
                height=HISTORY_HEIGHT,
                percent=True,
            ),
        )  # fmt: skip
        for metric, title in (
            ("zero_shot", "Zero-shot directions (validation)"),
            ("exact_match", "Trained directions (validation)"),
        )  # fmt: skip
    ]


def provenance_note(meta: Mapping) -> str:
    """What the page adds to the provenance caption: how much was trained and tested, as shipped, and the variants
    a later ``--variants`` command added (each with its own command, date, seconds and load)."""
    made = meta.get("command_variants")
    note = (
        (f"That command made {', '.join(made)}. " if made else "")
        + f"{meta.get('steps')} steps of {meta.get('batch_size')} sentences per model, {meta.get('test_sentences')} "
        "test meanings per direction, weights rounded to float16 as shipped; one torch thread per model, 1-minute "
        f"load {meta.get('load_1min_after', '?')} after (a shared machine). Step counts decide what is trained, so "
        "the figures do not depend on the load."
    )
    for added in meta.get("added", []):
        note += (f" Added later: {', '.join(added.get('variants', []))} by `{added.get('command')}` on "
                 f"{str(added.get('date', ''))[:10]}, {added.get('steps')} steps of {added.get('batch_size')}, seeds "
                 f"{', '.join(map(str, added.get('seeds', [])))}, {added.get('seconds')} s at a 1-minute load of "
                 f"{added.get('load_1min_before')}.")  # fmt: skip
    return note


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


def live_run(monolingual: bool, penalty: bool, seconds: float) -> TrainingRun:
    """The training panel's run: :func:`new_run`'s fresh model and its trainer."""
    model, _, train_fn = new_run(monolingual, penalty, seconds=seconds)
    return TrainingRun(train_fn, model=model, name="attention_bridge")


def live_figure(report: BridgeProgress) -> go.Figure:
    """The probe's heads in every language at one live report (:func:`heads_side_by_side`), titled with its step."""
    return heads_side_by_side(live_maps(report), title=f"A after {report.step} steps")


def live_caption(report: BridgeProgress) -> str:
    zero = np.mean(list(report.zero_shot.values())) if report.zero_shot else float("nan")
    return (
        f"Step {report.step}: loss {report.loss:.3f}, penalty ‖AAᵀ − I‖²_F {report.penalty:.3f} per sentence, "
        f"held-out exact match {report.exact_match:.0%} on the trained directions and {zero:.0%} zero-shot "
        f"({len(report.zero_shot)} directions, 32 validation sentences each)."
    )


def live_maps(report: BridgeProgress) -> dict[str, tuple[np.ndarray, list[str]]]:
    return {lang: (report.probe_maps[lang], report.probe_tokens[lang]) for lang in report.probe_maps}


def score_directions(model: BridgeModel, corpus: MultilingualCorpus, pairs: Sequence[Pair], limit: int = 200) -> dict:
    return {pair_name(p): evaluate_pair(model, corpus, "test", *p, limit=limit) for p in pairs}


def direction_scores(model: BridgeModel, corpus: MultilingualCorpus, limit: int) -> dict[str, dict[str, float]]:
    """Greedy test scores of every direction between the four languages, as the results files keep them:
    ``{"en→fr": {"exact_match", "token_accuracy", "bleu"}}`` (BLEU 0–100, the others shares)."""
    directions = [(a, b) for a in LANGUAGES for b in LANGUAGES if a != b]
    return {name: {"exact_match": round(s.exact_match, 4), "token_accuracy": round(s.token_accuracy, 4),
                   "bleu": round(s.bleu, 2)}
            for name, s in score_directions(model, corpus, directions, limit).items()}  # fmt: skip


# ------------------------------------------------------------------------------------------- exercises
def exercises(results: Comparison | None) -> list[Exercise]:
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
            key="attention_bridge.ex.too_many_heads",
            prompt="k = 4 heads read a sentence of 2 words (S = 2 positions with no EOS, for simplicity): heads 1 "
            "and 2 put all their weight on word 1, heads 3 and 4 on word 2. What is ‖AAᵀ − I‖²_F? (Can any A do "
            "better than 0 here?)",
            answer=penalty_value(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])),
            tolerance=1e-3,
            explanation="AAᵀ is 1 where two heads share a word: the diagonal (no error) and the pairs (1, 2), "
            "(2, 1), (3, 4), (4, 3): four squares of 1. No A reaches 0: AAᵀ has rank at most S = 2, so at least "
            "k − S = 2 of its eigenvalues are 0 where I has 1. With more heads than words, the penalty cannot be "
            "met, which is why the paper sized k to its sentence length.",
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
        plain = results.spread("zero_shot_tokens", "hub").mean
        mono = results.spread("zero_shot_tokens", "hub-mono").mean
        choices = ("the model trained with monolingual pairs", "the model trained without them", "neither: equal")
        answer = 2 if abs(mono - plain) <= MIN_GAP else (0 if mono > plain else 1)
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
