"""The two models a teacher's data trains, and their recipes (sizes, learning rates) measured by ``bench/own_data.py``.

The course's recipes (``minimodels.train.default_train_config``) were measured on its generated tasks; the
overrides below are what the benchmark's 5,000 generated pairs with reordering needed (see bench/RESULTS.md).
"""

from __future__ import annotations

from torch import nn

from ..train.config import TrainConfig, default_train_config
from ..train.models import build_model

OWN_DATA_MODELS: tuple[str, ...] = ("gru-additive", "transformer")  # the names the page and the CLI offer
MODEL_OVERRIDES: dict[str, dict] = {
    "gru-additive": {},
    "transformer": {},
}
TRAIN_OVERRIDES: dict[str, dict] = {
    "gru-additive": {},
    "transformer": {},
}


def build_own_model(name: str, task, seed: int = 0, **overrides) -> nn.Module:
    """Model ``name`` (one of :data:`OWN_DATA_MODELS`, or any course model name) sized for ``task``."""
    return build_model(name, task, seed=seed, **{**MODEL_OVERRIDES.get(name, {}), **overrides})


def own_data_train_config(name: str, **overrides) -> TrainConfig:
    """The training recipe of model ``name`` on a teacher's data, with ``overrides`` on top."""
    return default_train_config(name, **{**TRAIN_OVERRIDES.get(name, {}), **overrides})
