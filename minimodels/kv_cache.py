r"""Decoding token by token with a cache of keys and values, for the course's causal decoder
(:class:`minimodels.small.TinyDecoder`), and the same decoder with attention over a sliding window.

With the causal mask, the key and value of position j never change once position j is written: a later token is
never read by an earlier position. So a decoder that generates does not need to run the whole prefix again at every
step (what :meth:`TinyDecoder.generate` does): it keeps every position's key and value in a cache and, for the new
token alone, computes one query, one key and one value:

.. math:: k_t = x_t W^K,\quad v_t = x_t W^V,\quad K_{\le t} = [K_{<t}; k_t],\quad V_{\le t} = [V_{<t}; v_t],\qquad
          z_t = \mathrm{softmax}\!\Big(\frac{q_t K_{\le t}^\top}{\sqrt{d}}\Big) V_{\le t}

One step then costs :math:`O(t\,d)` for the scores and :math:`O(d^2)` for the projections, instead of
:math:`O(t^2 d + t\,d^2)` for recomputing the prefix; the price is memory, :math:`2\,t\,d` numbers per sequence (per
layer), growing with every token.

A *sliding window* of ``w`` lets position t read positions :math:`t - w + 1 \dots t` only (:func:`window_mask`):
the cache never holds more than ``w`` keys and values (a ring buffer), whatever the length, and anything further back
is out of reach. :class:`WindowedDecoder` is a :class:`TinyDecoder` trained with that mask.

Letters: B batch, t positions so far, C the cache's capacity, d d_model, V vocabulary, w the window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .attention import causal_mask, masked_softmax
from .models import ModelOutput
from .small import SmallConfig, TinyDecoder

__all__ = ["KVCache", "window_mask", "WindowedDecoder", "decode_step", "generate_cached", "cache_bytes"]


def window_mask(T: int, window: int | None, device: torch.device | str | None = None) -> torch.Tensor:
    """``(T, T)`` bool, True where query i may read key j: :math:`i - w < j \\le i` (``window=None``: the causal
    mask, every j ≤ i)."""
    mask = causal_mask(T, device=device)  # (T, T), lower triangle
    if window is None:
        return mask
    if window < 1:
        raise ValueError(f"a window holds at least one position, not {window}")
    i = torch.arange(T, device=device)
    return mask & (i[:, None] - i[None, :] < window)  # (T, T): at most ``window`` keys per row


class WindowedDecoder(TinyDecoder):
    """A :class:`TinyDecoder` whose position t reads only the last ``window`` positions (itself included)."""

    kind = "small-decoder-windowed"

    def __init__(self, config: SmallConfig, window: int | None):
        if not config.causal:
            raise ValueError("a sliding window is a causal decoder's: set causal=True")
        super().__init__(config)
        self.window = window

    def forward(self, tokens: torch.Tensor) -> ModelOutput:
        """``tokens (B, T)``; logits ``(B, T, V)``, ``attention["self"] (B, T, T)`` (zero outside the window)."""
        return self._run(tokens, window_mask(tokens.size(1), self.window, device=tokens.device))


def cache_bytes(positions: int, d_model: int, *, batch: int = 1, layers: int = 1, dtype=torch.float32) -> int:
    """Bytes a cache of ``positions`` keys and values takes, from its shapes: 2 (K and V) × B × layers × t × d ×
    the bytes of one number."""
    itemsize = torch.empty((), dtype=dtype).element_size()
    return 2 * batch * layers * positions * d_model * itemsize


@dataclass
class KVCache:
    """Keys and values of the positions decoded so far, in buffers allocated once (``capacity`` rows).

    Without a window the buffers hold the first ``capacity`` positions in order; with one they are a ring of
    ``window`` rows: position p lives in row ``p mod w``, so the oldest is overwritten when a new one comes.
    """

    keys: torch.Tensor  # (B, C, d)
    values: torch.Tensor  # (B, C, d)
    length: int = 0  # positions written so far (the next one's index)
    window: int | None = None

    @classmethod
    def empty(
        cls, batch: int, d_model: int, capacity: int, *, window: int | None = None, dtype=torch.float32, device=None
    ) -> KVCache:
        rows = capacity if window is None else min(window, capacity)
        keys = torch.zeros(batch, rows, d_model, dtype=dtype, device=device)  # (B, C, d)
        return cls(keys, torch.zeros_like(keys), 0, window)

    @property
    def held(self) -> int:
        """How many positions the cache holds now (at most the window)."""
        return self.length if self.window is None else min(self.length, self.window)

    def append(self, k: torch.Tensor, v: torch.Tensor) -> None:
        """Write position ``length``'s key and value ``(B, d)``."""
        row = self.length if self.window is None else self.length % self.window
        if row >= self.keys.size(1):
            raise ValueError(f"the cache holds {self.keys.size(1)} positions; position {self.length} does not fit")
        self.keys[:, row] = k
        self.values[:, row] = v
        self.length += 1

    def read(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The keys and values it holds, ``(B, held, d)`` each (with a window: in ring order, which the softmax's
        weighted sum does not depend on)."""
        n = self.held
        return self.keys[:, :n], self.values[:, :n]

    @property
    def used_bytes(self) -> int:
        """Bytes of the keys and values held, from the shapes (what :func:`cache_bytes` computes)."""
        B, _, d = self.keys.shape
        return cache_bytes(self.held, d, batch=B, dtype=self.keys.dtype)

    @property
    def allocated_bytes(self) -> int:
        """Bytes torch allocated for the two buffers, read from their storage (the capacity, not the use)."""
        return self.keys.untyped_storage().nbytes() + self.values.untyped_storage().nbytes()


def decode_step(model: TinyDecoder, token: torch.Tensor, cache: KVCache) -> tuple[torch.Tensor, torch.Tensor]:
    """One step of a causal (or windowed) :class:`TinyDecoder` from the cache: the token ``(B,)`` at position
    ``cache.length`` -> its next-token logits ``(B, V)`` and its attention weights ``(B, held)`` over the cached
    positions (itself included). Appends its key and value to the cache."""
    if not model.config.causal:
        raise ValueError("a decoder without the causal mask cannot be cached: each new token changes earlier rows")
    x = model.embedding(token)[:, None]  # (B, 1, d)
    if model.position is not None:
        x = model.position(x, offset=cache.length)  # (B, 1, d) + the position vector of row t
    attention = model.attention
    q, k, v = attention.W_q(x), attention.W_k(x), attention.W_v(x)  # (B, 1, d) each
    cache.append(k[:, 0], v[:, 0])
    keys, values = cache.read()  # (B, held, d)
    scores = q @ keys.transpose(1, 2) / math.sqrt(q.size(-1))  # (B, 1, d) @ (B, d, held) -> (B, 1, held)
    weights = masked_softmax(scores)  # (B, 1, held): every cached key is allowed
    z = weights @ values  # (B, 1, held) @ (B, held, d) -> (B, 1, d)
    return model.out(z[:, 0]), weights[:, 0]  # (B, V), (B, held)


@torch.inference_mode()
def generate_cached(
    model: TinyDecoder, prompt: torch.Tensor, n: int, *, window: int | None = None
) -> tuple[torch.Tensor, torch.Tensor, KVCache]:
    """Greedy decoding with the cache: ``prompt (B, P)`` is fed one token at a time (filling the cache), then the
    most likely token is appended ``n`` times. Returns the ``(B, n)`` new tokens, the logits of every step ``(B,
    P + n - 1, V)`` (row i predicts token i + 1, as the uncached model's rows) and the cache. ``window`` defaults to
    the model's own (a :class:`WindowedDecoder`'s)."""
    window = getattr(model, "window", None) if window is None else window
    B, P = prompt.shape
    capacity = P + n
    cache = KVCache.empty(B, model.config.d_model, capacity, window=window, device=prompt.device)
    logits, new = [], []
    token = prompt[:, 0]
    for i in range(P + n - 1):
        step_logits, _ = decode_step(model, token, cache)  # (B, V)
        logits.append(step_logits)
        if i + 1 < P:
            token = prompt[:, i + 1]
        else:
            token = step_logits.argmax(-1)  # (B,)
            new.append(token)
    return torch.stack(new, dim=1), torch.stack(logits, dim=1), cache
