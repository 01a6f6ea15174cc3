"""The training engine: build a model by name, train it live with progress reports, measure it, run it from a shell.

``train(model, task, config, on_progress)`` trains in the calling thread and reports every few steps with a
:class:`Progress` snapshot, so a page can redraw a heatmap while the model learns; ``with stop_when(event):`` lets
another thread stop it after the current step. This package never imports streamlit. One module per concern:

- :mod:`.models`: the model names (:data:`MODEL_NAMES`) and :func:`build_model`, seeded and thread-safe;
- :mod:`.config`: :class:`TrainConfig` and each model's measured recipe, :func:`default_train_config`;
- :mod:`.loop`: :func:`train` itself, a step and the stopping rules;
- :mod:`.batches`: which rows make a minibatch, and its slices of similar length;
- :mod:`.schedules`: the learning rate's warm-up and decay, and the weight average;
- :mod:`.metrics`: exact match (greedy and teacher forced), the main attention map, alignment accuracy;
- :mod:`.snapshots`: :class:`Progress`, :class:`TrainResult`, and the probe sentence a snapshot shows;
- :mod:`.stopping`: :func:`stop_when`, the per-thread Stop a page's button sets;
- :mod:`.cli`: ``python -m minimodels.train``, one JSON line per report (``main``, imported on first use: it builds
  on :mod:`minimodels.own_data`, which builds on this package).

Everything callers use is imported here, so ``from minimodels.train import ...`` stays the one way in; the
underscored names are the internals the tests check against a reference.
"""

from __future__ import annotations

from .batches import _length_slices
from .config import TrainConfig, default_train_config
from .loop import _backward, train
from .metrics import _teacher_forced_exact_match, alignment_accuracy, evaluate, exact_match, main_map_name
from .models import MODEL_NAMES, build_model, model_config, model_from_config
from .schedules import _lr_factor, _WeightAverage
from .snapshots import Progress, TrainResult
from .stopping import stop_event, stop_requested, stop_when

__all__ = [
    "MODEL_NAMES",
    "TrainConfig",
    "Progress",
    "TrainResult",
    "model_config",
    "model_from_config",
    "build_model",
    "default_train_config",
    "train",
    "evaluate",
    "exact_match",
    "alignment_accuracy",
    "main_map_name",
    # not in the old module's __all__, imported by name all the same
    "stop_when",
    "stop_event",
    "stop_requested",
    # internals that tests import
    "_backward",
    "_length_slices",
    "_lr_factor",
    "_teacher_forced_exact_match",
    "_WeightAverage",
]


def __getattr__(name: str):
    """``main``, the command line, imported on first use."""
    if name == "main":
        from .cli import main  # here: the command line imports minimodels.own_data, which imports this package

        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
