"""The attention bridge's experiments and the grid's shipped results, which most sections read.

The toy languages' hub, the shipped runs' corpus and model sizes, the directions each experiment trains and leaves
for zero-shot (the paper's Table 1 in miniature), how a trained model is scored in every direction, and the file
``scripts/attention_bridge_results.py`` writes (``assets/results/attention_bridge.json``): its loader and the run
it keeps per experiment and seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from minimodels.bridge import BridgeModel, BridgeTrainConfig, Pair, all_pairs, evaluate_pair, pair_name
from minimodels.tasks.multilingual import LANGUAGES, MultilingualCorpus

HUB = "fr"  # the one language every trained direction goes into or out of (the paper's English)
SEED = 0
CORPUS_SIZES = {"n_train": 4000, "n_valid": 300, "n_test": 500}  # the shipped runs' corpus
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


def train_config(experiment: Experiment, steps: int, seed: int = SEED, **options) -> BridgeTrainConfig:
    pairs, held_out = experiment_pairs(experiment)
    return BridgeTrainConfig(
        pairs=pairs, held_out=held_out, max_steps=steps, max_seconds=float("inf"), seed=seed, **options
    )


WITH, WITHOUT = "hub-mono", "hub-mono-nopenalty"  # the two hub models that differ only in λ (section 2)


# ------------------------------------------------------------------------------------------- the grid's results
# ``assets/results/attention_bridge.json`` is a :class:`Comparison` made by ``scripts/attention_bridge_results.py``:
# variants are the EXPERIMENTS' names, params {"monolingual", "penalty_weight"}, the curve every validation report
# (step, seconds, loss, penalty, exact_match, zero_shot), the finals below (test sentences, weights as shipped), and
# extra the directions trained and held out, the steps, seconds and parameters, each direction's test scores
# ("test") and the final A on the probe meaning in every language ("probe"). The no-bridge model has params
# "bridge": False too, no redundancy (None) and no probe maps ({}): it has no A.
RESULTS = ROOT / "assets" / "results" / "attention_bridge.json"
FINALS = (
    "trained_exact",
    "trained_tokens",
    "zero_shot_exact",
    "zero_shot_tokens",
    "redundancy",
    "agreement",
    "en_fr_exact",
)
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
            raise ValueError(
                f"{path.name}: {run.variant} seed {run.seed} lacks {', '.join(lacks)}; run `python {SCRIPT}` again"
            )
    return results


def experiment_run(
    experiment: Experiment,
    seed: int,
    history: Sequence[Mapping],
    test: Mapping[str, Mapping],
    summary: Mapping[str, float],
    **extra,
) -> Run:
    """One measured experiment as the comparison keeps it (``extra``: pairs, held_out, steps, seconds, parameters,
    probe)."""
    params = {"monolingual": experiment.monolingual, "penalty_weight": experiment.penalty_weight}
    if not experiment.bridge:
        params["bridge"] = False  # the bridge models' params stay as they were measured
    return Run(experiment.name, seed, params, tuple(history), dict(summary), {"test": dict(test), **extra})


def has_bleu(results: Comparison) -> bool:
    """Whether every run of the grid was scored with BLEU too (files measured before it was added were not)."""
    return all(m in r.final for r in results.runs for m in BLEU_FINALS)


def score_directions(model: BridgeModel, corpus: MultilingualCorpus, pairs: Sequence[Pair], limit: int = 200) -> dict:
    return {pair_name(p): evaluate_pair(model, corpus, "test", *p, limit=limit) for p in pairs}


def direction_scores(model: BridgeModel, corpus: MultilingualCorpus, limit: int) -> dict[str, dict[str, float]]:
    """Greedy test scores of every direction between the four languages, as the results files keep them:
    ``{"en→fr": {"exact_match", "token_accuracy", "bleu"}}`` (BLEU 0–100, the others shares)."""
    directions = [(a, b) for a in LANGUAGES for b in LANGUAGES if a != b]
    return {
        name: {
            "exact_match": round(s.exact_match, 4),
            "token_accuracy": round(s.token_accuracy, 4),
            "bleu": round(s.bleu, 2),
        }
        for name, s in score_directions(model, corpus, directions, limit).items()
    }
