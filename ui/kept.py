"""What the server keeps for every session: a bounded map, the least recently used entry let go first.

Streamlit runs each session's script in a thread of one process, so a figure prepared, a table converted or a
shipped model's answer computed for one student serves the next (``ui.charts``, ``ui.pretrained``). What is kept is
shared: read it, never change it.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import sys
import threading
from collections import OrderedDict

import streamlit as st


def digest(*parts) -> bytes:
    """A short fingerprint of ``parts`` by content (pickled): equal numbers, labels and sizes give equal keys.
    Raises what pickling raises for what cannot be pickled."""
    out = io.BytesIO()
    _Fingerprint(out, protocol=5).dump(parts)
    return hashlib.blake2b(out.getbuffer(), digest_size=16).digest()


def _tensor(dtype: str, shape: tuple, data: bytes) -> None:
    """What a tensor stands for in a fingerprint: never called (a fingerprint is never unpickled)."""


class _Fingerprint(pickle.Pickler):
    """A pickler for fingerprints: a tensor is its type, shape and bytes. Torch's own pickling of one goes through
    ``torch.save``, slow and different for each object of equal values; this is much quicker for a small tensor."""

    def reducer_override(self, obj):
        torch = sys.modules.get("torch")  # never imported here: the home page runs without it
        if torch is not None and isinstance(obj, torch.Tensor) and obj.layout == torch.strided:
            try:  # as bytes: numpy has no bfloat16
                data = obj.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
            except (RuntimeError, TypeError):  # a tensor with no plain memory: torch's own pickling
                return NotImplemented
            return _tensor, (str(obj.dtype), tuple(obj.shape), data)
        return NotImplemented


class Kept:
    """At most ``most`` values by key, shared by every thread; ``get_or_make`` makes a missing one outside the lock
    (two sessions asking at once may both make it: the second is kept)."""

    def __init__(self, most: int):
        self._most = most
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(self, key, make):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._most:
                self._items.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._items)


_WRAPPERS: dict = {}
_WRAPPERS_LOCK = threading.Lock()


def _made_once(api, fn, options: dict):
    """``api(**options)(fn)``, made the first time and handed out again after.

    A page is a script run again on every rerun, so a cached function made on it (``st.cache_data(...)(fn)`` or a
    decorated ``def``) was made again on every run: Streamlit reads the function's source and tokenizes it to name
    its cache, a cost on every run of every session. What is cached is the
    same either way (Streamlit names the cache by the function's module, name and source); this skips the making.

    A function defined on a page is a new object on each run, with the same code (Streamlit compiles a page once),
    so it is known by its code and closure; the wrapper made first calls the first run's object, whose globals are
    the first run's. Such a function may use only what is the same on every run (modules, other cached functions):
    what a cached function reads from a run's globals is not in its cache key, so it was a bug already."""
    cells = tuple(map(id, getattr(fn, "__closure__", None) or ()))  # alive while the wrapper is kept: ids unique
    key = (api, getattr(fn, "__code__", fn), cells, tuple(sorted(options.items())))
    with _WRAPPERS_LOCK:
        made = _WRAPPERS.get(key)
    if made is None:
        made = api(**options)(fn)
        with _WRAPPERS_LOCK:
            made = _WRAPPERS.setdefault(key, made)
            while len(_WRAPPERS) > MOST_WRAPPERS:  # tests compile pages again: bounded, the oldest let go
                del _WRAPPERS[next(iter(_WRAPPERS))]
    return made


MOST_WRAPPERS = 256  # a server has 38 (one per cached function in pages/)


def cached(fn=None, /, **options):
    """``st.cache_data(**options)`` on ``fn``, for a page: as a call (``ui.cached(lessons.x.f, max_entries=8)``)
    or a decorator (``@ui.cached(max_entries=8)``); the wrapper is made once per server (:func:`_made_once`)."""
    if fn is None:
        return lambda f: _made_once(st.cache_data, f, options)
    return _made_once(st.cache_data, fn, options)


def cached_resource(fn=None, /, **options):
    """``st.cache_resource(**options)`` on ``fn``, made once per server: as :func:`cached`. For what every session
    may share and nobody changes (tensors, a model's reading of a sentence): the very object is handed out, where
    ``st.cache_data`` hashes and unpickles a copy for every call."""
    if fn is None:
        return lambda f: _made_once(st.cache_resource, f, options)
    return _made_once(st.cache_resource, fn, options)
