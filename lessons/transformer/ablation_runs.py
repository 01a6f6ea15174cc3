"""Section 4's measurements: the variants of the ablation, the recipe that trains them, and the shipped results.

The shipped Transformer trained on ``dates`` as shipped (pre-LN), post-LN (the paper's arrangement), without its
residual connections, without layer norm and without its feed-forward networks, every variant with one recipe, the
same seeds, batches and step budget (``scripts/transformer_results.py`` measures them). The variants, their labels
and colours serve section 5's depth sweep and section 7's live run too.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.runs import Run, first_reached
from lessons.transformer.reading import MODEL
from minimodels.train import TrainConfig, default_train_config

RESULTS = ROOT / "assets" / "results" / "transformer.json"

VARIANTS: dict[str, dict] = {
    "full": {},
    "post-LN": {"norm_first": False},
    "no residual": {"residual": False},
    "no layer norm": {"layer_norm": False},
    "no FFN": {"feed_forward": False},
}
VARIANT_LABELS = {
    "full": "full (pre-LN): x + Sublayer(LN(x))",
    "post-LN": "post-LN, the paper's: LN(x + Sublayer(x))",
    "no residual": "no residual: Sublayer(LN(x))",
    "no layer norm": "no layer norm: x + Sublayer(x)",
    "no FFN": "no FFN: attention sublayers only, no feed-forward network",
}
COLORS = {
    "full": "#1f77b4",
    "post-LN": "#2ca02c",
    "no residual": "#d62728",
    "no layer norm": "#ff7f0e",
    "no FFN": "#9467bd",
}
ABLATION_TASK = "dates"
LEVEL = 0.9  # the results table's "steps to" level


def results_config(steps: int, seed: int = 0, threads: int = 1) -> TrainConfig:
    """The shipped ablation's recipe: the Transformer's default training (peak lr 1e-2 after a 50-step
    warm-up, then inverse-square-root decay), a fixed step budget so every variant gets the same: no stopping at
    a target, which would stop a variant that reaches it early (with the weight average, the full model reaches 98%
    near step 250) short of the others."""
    return default_train_config(
        MODEL, max_steps=steps, max_seconds=None, target_exact_match=None, report_every=25, seed=seed, threads=threads
    )


# The shipped ablation is a :class:`~lessons.common.comparison.Comparison`: one variant per arrangement, one run per
# seed, each run's final metrics named as the table's columns.
RESULT_SCRIPT = "scripts/transformer_results.py"
STEPS_TO, SECONDS_TO = f"steps to {LEVEL:.0%}", f"seconds to {LEVEL:.0%}"
TABLE = {  # final metric -> its format in the table
    STEPS_TO: ".0f", SECONDS_TO: ".1f", "final loss": ".4f", "held-out exact": ".1%", "test exact": ".1%",
    "steps": ".0f", "seconds": ".1f",
}  # fmt: skip


def ablation_run(variant: str, seed: int, measured: Mapping) -> Run:
    """One run of the ablation from what one training measured: ``{"parameters", "steps", "seconds", "exact_match",
    "test_exact_match", "history": [{"step", "seconds", "loss", "exact_match"}, …]}``."""
    history = list(measured["history"])
    final = {
        STEPS_TO: first_reached(history, "exact_match", LEVEL),
        SECONDS_TO: first_reached(history, "exact_match", LEVEL, x="seconds"),
        "final loss": history[-1]["loss"],
        "held-out exact": measured["exact_match"],
        "test exact": measured["test_exact_match"],
        "steps": measured["steps"],
        "seconds": measured["seconds"],
        "parameters": measured["parameters"],
    }
    return Run(variant, seed, dict(VARIANTS[variant]), tuple(history), final)


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped measurements; ``FileNotFoundError`` or ``ValueError`` naming the script when unusable."""
    c = Comparison.load(path or RESULTS, script=RESULT_SCRIPT)
    unknown = sorted(set(c.variants) - set(VARIANTS))
    if unknown:
        raise ValueError(f"the results file has unknown variants: {', '.join(unknown)}: run python {RESULT_SCRIPT}")
    return c


def recipe_of(meta: Mapping) -> str:
    """The shipped ablation's learning rate and warm-up, read from its ``meta["train_config"]``."""
    config = meta.get("train_config") or {}
    return f"peak learning rate {config.get('lr', '?')} after a {config.get('warmup_steps', '?')}-step warm-up"
