"""The shipped results: how a measured run is written, how the file is read back, and the verdicts drawn from it.

``assets/results/seq2seq_bottleneck.json`` is made by ``scripts/seq2seq_bottleneck_results.py --threads 1 --seeds 0 1
2``: a :class:`~lessons.common.comparison.Comparison` of the models (variants, :data:`~.experiment.LABELS`) over seeds,
one run per model, seed and context size (``params={"hidden_size": D}``). A run's ``curve`` is its score by source
length, one point per length (``{"length", "exact_match", "token_accuracy", "count"}``), on the whole test split
after training; its ``final``: the training loss at the last report, the steps and the seconds it trained; its
``extra``: its parameter count, why it stopped, what it wrote for :data:`~.experiment.EXAMPLES` and the model it
trained (:func:`~.experiment.describe`). The file also records the command, seeds, task, recipe, date, torch's version
and the machine's load. Every model of it has a *unidirectional* encoder.

Pages never type what the numbers show: every sentence that states a result is computed from the loaded comparison
with the course's ``verdict`` rule (:func:`compare_lengths`), and can also say "does not" or "too close to call".
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from torch import nn

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.runs import Run, Spread
from lessons.common.verdicts import Verdict, verdict
from lessons.seq2seq_bottleneck.experiment import LABELS, METRICS, MODELS, SEED, describe
from lessons.seq2seq_bottleneck.scoring import LengthAccuracy, longest_length_above

RESULTS_PATH = ROOT / "assets" / "results" / "seq2seq_bottleneck.json"
SCRIPT = "scripts/seq2seq_bottleneck_results.py"


def measured_run(
    model_name: str, model: nn.Module, result, accuracy: LengthAccuracy, outputs: dict, seed: int = SEED
) -> Run:
    """One run of the shipped comparison: ``model`` trained from ``seed`` (``result``: its
    ``minimodels.train.TrainResult``), scored by length on the test split, and its copies of the examples."""
    curve = tuple(
        {"length": n, "exact_match": round(e, 4), "token_accuracy": round(t, 4), "count": c}
        for n, e, t, c in zip(
            accuracy.lengths, accuracy.exact_match, accuracy.token_accuracy, accuracy.counts, strict=True
        )
    )
    final = {"loss": round(result.loss, 4), "seconds": round(result.seconds, 2), "steps": result.steps}
    extra = {
        "parameters": sum(p.numel() for p in model.parameters()),
        "stopped": result.stopped,
        "outputs": outputs,
        "model": describe(model),
    }
    return Run(model_name, seed, {"hidden_size": model.config.decoder_size}, curve, final, extra)


def load_results(path: Path | str = RESULTS_PATH) -> Comparison:
    """The shipped comparison; ``FileNotFoundError`` or ``ValueError`` naming the script that makes it."""
    results = Comparison.load(path, script=SCRIPT)
    if not set(MODELS) <= set(results.variants) <= set(LABELS) or not results.param_values("hidden_size"):
        raise ValueError(
            f"{Path(path).name} must compare {', '.join(MODELS)} over context sizes: run `python {SCRIPT}`"
        )
    return results


def hidden_sizes(results: Comparison) -> tuple[int, ...]:
    """The context sizes D the comparison measured."""
    return results.param_values("hidden_size")


def shipped_run(results: Comparison, model: str, hidden_size: int) -> Run:
    """The first run (seed) of ``model`` at D = ``hidden_size``; ``LookupError`` if there is none."""
    runs = results.runs_of(model, {"hidden_size": hidden_size})
    if not runs:
        raise LookupError(f"no shipped run of {model} with D = {hidden_size}")
    return runs[0]


def accuracy_of(results: Comparison, model: str, hidden_size: int) -> LengthAccuracy:
    """``model``'s scores by source length at D = ``hidden_size``: the mean over its seeds at each length."""
    runs = results.runs_of(model, {"hidden_size": hidden_size})
    if not runs:
        raise LookupError(f"no shipped run of {model} with D = {hidden_size}")
    first = runs[0].curve

    def mean(metric: str) -> tuple[float, ...]:
        return tuple(float(np.mean([r.curve[i][metric] for r in runs])) for i in range(len(first)))

    return LengthAccuracy(
        tuple(int(p["length"]) for p in first),
        mean("exact_match"),
        mean("token_accuracy"),
        tuple(int(p["count"]) for p in first),
    )


def lengths_text(lengths: tuple[int, int]) -> str:
    return f"strings of {lengths[0]}–{lengths[1]} characters"


def length_spread(
    results: Comparison, model: str, hidden_size: int, lengths: tuple[int, int], metric: str = "exact_match"
) -> Spread:
    """Over ``model``'s seeds at D = ``hidden_size``: each seed's mean ``metric`` over the source lengths
    ``lengths[0]``..``lengths[1]`` (a spread of n = the seeds, not of the lengths)."""
    runs = results.runs_of(model, {"hidden_size": hidden_size})
    if not runs:
        raise LookupError(f"no shipped run of {model} with D = {hidden_size}")
    return Spread(tuple(length_mean(r, lengths, metric) for r in runs))


def length_mean(run: Run, lengths: tuple[int, int], metric: str = "exact_match") -> float:
    """One run's mean ``metric`` over the source lengths ``lengths[0]``..``lengths[1]`` (one seed of
    :func:`length_spread`)."""
    return float(np.mean([p[metric] for p in run.curve if lengths[0] <= p["length"] <= lengths[1]]))


def reach_spread(results: Comparison, model: str, hidden_size: int, metric: str = "exact_match") -> Spread:
    """Over the seeds: the longest length up to which each seed copies at least half (``longest_length_above``)."""
    runs = results.runs_of(model, {"hidden_size": hidden_size})
    return Spread(tuple(reach(r, metric) for r in runs))


def reach(run: Run, metric: str = "exact_match") -> float:
    """One seed of :func:`reach_spread`."""
    return float(longest_length_above(_one_seed(run), metric))


def _one_seed(run: Run) -> LengthAccuracy:
    c = run.curve
    return LengthAccuracy(
        tuple(int(p["length"]) for p in c),
        tuple(p["exact_match"] for p in c),
        tuple(p["token_accuracy"] for p in c),
        tuple(int(p["count"]) for p in c),
    )


def versus(a: tuple[str, Spread], b: tuple[str, Spread], metric: str, results: str = RESULTS_PATH.stem) -> Verdict:
    """The course's verdict (``lessons.common.verdicts.verdict``) of ``a = (label, spread)`` against ``b``, the
    metric's drift read for the results file named ``results`` (this lesson's unless another lesson's spreads)."""
    outcome, reason = verdict(a[1], b[1], metric=metric, results=results)
    return Verdict(a[0], b[0], a[0], b[0], metric, True, a[1], b[1], outcome, reason, results=results)


def length_metric(metric: str, lengths: tuple[int, int]) -> str:
    """The name a verdict on ``metric`` over the strings of ``lengths`` gives its figure (and the drift file its
    drift): "exact match on strings of 13–18 characters"."""
    return f"{METRICS[metric]} on {lengths_text(lengths)}"


REACH = "the longest length copied at least half the time"


def reach_metric(metric: str) -> str:
    """The name of :func:`reach_spread`'s figure for ``metric`` in a verdict and in the drift file."""
    return f"{REACH} ({METRICS[metric]})"


def compare_lengths(
    results: Comparison, a: str, b: str, hidden_size: int, lengths: tuple[int, int], metric: str = "exact_match"
) -> Verdict:
    """Model ``a`` against ``b`` at D = ``hidden_size`` on the strings of ``lengths``, over the seeds."""
    name = length_metric(metric, lengths)
    return versus(
        (LABELS.get(a, a).capitalize(), length_spread(results, a, hidden_size, lengths, metric)),
        (LABELS.get(b, b), length_spread(results, b, hidden_size, lengths, metric)),
        name,
    )
