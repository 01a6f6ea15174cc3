"""Pretrained models: the shipped checkpoints, loaded once per server and shared read-only by every student.

One error contract for every page: :func:`pretrained` returns ``(model, info)``, or None after an error on the
page naming the checkpoint and why it cannot be loaded. Never train, hook or set attributes on what it returns.
"""

from __future__ import annotations

import streamlit as st

from ui.kept import Kept


@st.cache_resource(show_spinner="Loading the pretrained model…")
def _load(task: str, model: str):
    from lessons.common.pretrained import load_pretrained  # here: torch; the home page loads ui, never torch

    loaded = load_pretrained(task, model)
    share(loaded[0])
    return loaded


_SHIPPED: dict[int, object] = {}  # the shipped models and results handed out, by id: kept for the server's life
_VIEWS = Kept(256)  # (function, model, arguments) -> (result, the arguments kept)


def share(shipped):
    """Mark ``shipped`` (a shipped model, or a lesson's shipped results) as the server's, never changed: from now on
    :func:`shared_view` computes what a page asks of it once. Returns it."""
    _SHIPPED[id(shipped)] = shipped
    return shipped


def shared_view(fn, model, *args, **kwargs):
    """``fn(model, *args, **kwargs)``: what a lesson computes from a model (a translation and its attention maps,
    say) or from its shipped results (a summary's sentences), once per server for a shipped one (:func:`share`) and
    the same arguments, then shared by every student. Another model (a student's own, one training) is asked every time.
    The result is shared: read it, never change it.

    Arguments that cannot be hashed (a task) count by identity, and are kept with the result so that no other
    object takes their place while it is kept."""
    if model is None or _SHIPPED.get(id(model)) is not model:  # None: no shipped object (its id is no key)
        return fn(model, *args, **kwargs)
    named = tuple(sorted(kwargs.items()))
    key = (
        fn.__module__,
        fn.__qualname__,
        id(model),
        tuple(_identity(a) for a in args),
        tuple((name, _identity(value)) for name, value in named),
    )
    return _VIEWS.get_or_make(key, lambda: (fn(model, *args, **kwargs), args, named))[0]


def _identity(arg):
    try:
        hash(arg)
    except TypeError:
        return ("id", id(arg))
    return arg


def pretrained(task: str, model: str, loader=None):
    """``(model, info)`` of the shipped checkpoint ``<task>-<model>`` (``.eval()``), or None with an error shown.

    ``loader``: for a checkpoint of another kind than ``lessons.common.pretrained`` reads, the lesson's own
    function returning ``(model, info)`` (loaded once per server by the lesson), under the same error contract."""
    try:
        return loader() if loader is not None else _load(task, model)
    except (LookupError, ValueError, OSError, RuntimeError) as error:
        st.error(f"The pretrained model {task}-{model} cannot be loaded: {error}")
        return None
