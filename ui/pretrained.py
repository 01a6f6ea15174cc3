"""Pretrained models: the shipped checkpoints, loaded once per server and shared read-only by every student.

One error contract for every page: :func:`pretrained` returns ``(model, info)``, or None after an error on the
page naming the checkpoint and why it cannot be loaded. Never train, hook or set attributes on what it returns.
"""

from __future__ import annotations

import streamlit as st


@st.cache_resource(show_spinner="Loading the pretrained model…")
def _load(task: str, model: str):
    from lessons.common.pretrained import load_pretrained

    return load_pretrained(task, model)


def pretrained(task: str, model: str, loader=None):
    """``(model, info)`` of the shipped checkpoint ``<task>-<model>`` (``.eval()``), or None with an error shown.

    ``loader``: for a checkpoint of another kind than ``lessons.common.pretrained`` reads, the lesson's own
    function returning ``(model, info)`` (loaded once per server by the lesson), under the same error contract."""
    try:
        return loader() if loader is not None else _load(task, model)
    except (LookupError, ValueError, OSError, RuntimeError) as error:
        st.error(f"The pretrained model {task}-{model} cannot be loaded: {error}")
        return None
