"""What the server keeps for every session: a bounded map, the least recently used entry let go first.

Streamlit runs each session's script in a thread of one process, so a figure prepared, a table converted or a
shipped model's answer computed for one student serves the next (``ui.charts``, ``ui.pretrained``). What is kept is
shared: read it, never change it.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from collections import OrderedDict


def digest(*parts) -> bytes:
    """A short fingerprint of ``parts`` by content (pickled): equal numbers, labels and sizes give equal keys.
    Raises what pickling raises for what cannot be pickled."""
    return hashlib.blake2b(pickle.dumps(parts, protocol=5), digest_size=16).digest()


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
