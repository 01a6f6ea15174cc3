"""The shipped pretrained checkpoints in ``assets/checkpoints/``, found by what they are, not by file name.

Each checkpoint directory's ``config.json`` names its task and model (``minimodels.checkpoints``); a lesson
asks for ``(task, model)`` and gets the model in eval mode. Pages cache the result with
``st.cache_resource`` and share it read-only between students: never train or modify it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from torch import nn

from minimodels.checkpoints import check_tokenizers, load_checkpoint
from minimodels.tasks import get_task

CHECKPOINTS = Path(__file__).resolve().parents[2] / "assets" / "checkpoints"


@cache
def _index() -> dict[tuple[str, str], Path]:
    """``(task, model) -> folder``. A checkpoint answers under its folder's name (``copy-small-decoder-no-mask``
    is ``("copy", "small-decoder-no-mask")``, as the catalog names it) and, unless a plain ``TASK-MODEL`` folder
    exists, under the model name its config records (the same name for every checkpoint shipped today)."""
    found: dict[tuple[str, str], Path] = {}
    for config in sorted(CHECKPOINTS.glob("*/config.json")):
        meta = json.loads(config.read_text(encoding="utf-8"))
        task, folder = meta["task"], config.parent
        if folder.name.startswith(f"{task}-"):
            found[(task, folder.name[len(task) + 1 :])] = folder
        found.setdefault((task, meta["model"]), folder)
    return found


def available() -> list[tuple[str, str]]:
    """Every shipped ``(task, model)`` pair."""
    return sorted(_index())


@cache
def shipped_config(task_name: str, model_name: str) -> dict:
    """The model config a shipped checkpoint records (``bidirectional``, sizes, …), read without loading its
    weights; ``LookupError`` when none is shipped."""
    path = _index().get((task_name, model_name))
    if path is None:
        raise LookupError(f"no pretrained {model_name} for {task_name} is shipped")
    return dict(json.loads((path / "config.json").read_text(encoding="utf-8"))["config"])


@cache
def load_pretrained(task_name: str, model_name: str) -> tuple[nn.Module, dict]:
    """``(model, meta)`` of the shipped checkpoint for ``task_name`` and ``model_name`` (eval mode, CPU), loaded once
    per process: every page and lesson that asks for it gets the same object, to share read-only (never train or
    modify it). A checkpoint that cannot be loaded is not remembered: the next call tries again.

    Raises ``LookupError`` with the list of what is shipped when there is none, and ``ValueError`` when the
    checkpoint no longer fits the task's tokenizers.
    """
    path = _index().get((task_name, model_name))
    if path is None:
        shipped = ", ".join(f"{t}/{m}" for t, m in available()) or "none"
        raise LookupError(f"no pretrained {model_name} for {task_name} is shipped (shipped: {shipped})")
    model, meta = load_checkpoint(path)
    check_tokenizers(meta, get_task(task_name, seed=meta.get("task_seed", 0)))
    return model, meta
