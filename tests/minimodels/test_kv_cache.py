"""Decoding with the key–value cache computes what the uncached decoder computes, on several seeds and lengths.

Not bit for bit: the cached step multiplies one query row by t keys, the uncached pass a (T, T) matrix, and the
CPU's matrix kernels add the same products in a different order for different shapes, so float32 logits differ in
the last bits (measured below 1e-6). The tolerance is 1e-5 in float32 and 1e-12 in float64, and the greedy tokens
must be identical.
"""

from __future__ import annotations

import pytest
import torch

from minimodels.kv_cache import KVCache, WindowedDecoder, cache_bytes, decode_step, generate_cached, window_mask
from minimodels.small import SmallConfig, TinyDecoder


def _decoder(seed: int, positional: str = "learned", window: int | None = None, dtype=torch.float32):
    torch.manual_seed(seed)
    config = SmallConfig(vocab_size=23, d_model=16, positional=positional, max_len=48)
    model = TinyDecoder(config) if window is None else WindowedDecoder(config, window)
    return model.to(dtype).eval()


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize(("prompt_len", "n"), [(1, 5), (3, 20), (10, 37)])
def test_cached_greedy_decoding_equals_the_uncached_decoder(seed, prompt_len, n):
    model = _decoder(seed, positional="learned" if seed % 2 else "sinusoidal")
    prompt = torch.randint(1, 23, (3, prompt_len), generator=torch.Generator().manual_seed(seed))
    cached, logits, cache = generate_cached(model, prompt, n)
    uncached, _ = model.generate(prompt, n)
    assert torch.equal(cached, uncached)
    with torch.inference_mode():
        full = model(torch.cat([prompt, cached], dim=1)[:, :-1]).logits  # (B, P + n - 1, V)
    torch.testing.assert_close(logits, full, atol=1e-5, rtol=0)
    assert cache.length == prompt_len + n - 1


@pytest.mark.parametrize("seed", [0, 5])
def test_in_float64_the_cached_logits_agree_to_1e_12(seed):
    model = _decoder(seed, dtype=torch.float64)
    tokens = torch.randint(1, 23, (2, 30), generator=torch.Generator().manual_seed(seed))
    cache = KVCache.empty(2, 16, 30, dtype=torch.float64)
    with torch.inference_mode():
        steps = torch.stack([decode_step(model, tokens[:, t], cache)[0] for t in range(30)], dim=1)
        full = model(tokens).logits
    torch.testing.assert_close(steps, full, atol=1e-12, rtol=0)


def test_a_step_attends_over_exactly_the_keys_the_causal_row_allows():
    model = _decoder(0)
    tokens = torch.randint(1, 23, (1, 12), generator=torch.Generator().manual_seed(3))
    cache = KVCache.empty(1, 16, 12)
    with torch.inference_mode():
        rows = [decode_step(model, tokens[:, t], cache)[1][0] for t in range(12)]
        full = model(tokens).attention["self"][0]
    for t, row in enumerate(rows):
        assert row.shape == (t + 1,)
        torch.testing.assert_close(row, full[t, : t + 1], atol=1e-6, rtol=0)
        assert float(full[t, t + 1 :].abs().sum()) == 0.0


@pytest.mark.parametrize("window", [1, 3, 8])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_windowed_cache_equals_the_windowed_mask_and_never_grows(window, seed):
    model = _decoder(seed, window=window)
    prompt = torch.randint(1, 23, (2, 4), generator=torch.Generator().manual_seed(seed))
    cached, logits, cache = generate_cached(model, prompt, 25)
    with torch.inference_mode():
        full = model(torch.cat([prompt, cached], dim=1)[:, :-1]).logits
    torch.testing.assert_close(logits, full, atol=1e-5, rtol=0)
    assert cache.held == window
    assert cache.used_bytes == cache_bytes(window, 16, batch=2)


def test_the_window_mask_allows_the_last_w_positions_and_none_is_the_causal_mask():
    mask = window_mask(6, 2)
    assert mask.sum(1).tolist() == [1, 2, 2, 2, 2, 2]
    assert mask[5].tolist() == [False, False, False, False, True, True]
    assert torch.equal(window_mask(6, None), torch.ones(6, 6, dtype=torch.bool).tril())
    with pytest.raises(ValueError):
        window_mask(4, 0)


def test_the_cache_bytes_follow_its_shapes_and_its_buffers_hold_the_capacity():
    cache = KVCache.empty(3, 16, 40)
    for _ in range(10):
        cache.append(torch.ones(3, 16), torch.ones(3, 16))
    assert cache.used_bytes == 2 * 3 * 10 * 16 * 4 == cache_bytes(10, 16, batch=3)
    assert cache.allocated_bytes == 2 * 3 * 40 * 16 * 4  # the buffers were allocated for 40 positions
    assert cache_bytes(10, 16, dtype=torch.float64) == 2 * cache_bytes(10, 16)


def test_a_full_cache_and_a_decoder_without_the_mask_refuse():
    cache = KVCache.empty(1, 4, 2)
    cache.append(torch.zeros(1, 4), torch.zeros(1, 4))
    cache.append(torch.zeros(1, 4), torch.zeros(1, 4))
    with pytest.raises(ValueError, match="does not fit"):
        cache.append(torch.zeros(1, 4), torch.zeros(1, 4))
    torch.manual_seed(0)
    cheater = TinyDecoder(SmallConfig(vocab_size=5, d_model=4, causal=False))
    with pytest.raises(ValueError, match="cannot be cached"):
        decode_step(cheater, torch.tensor([1]), KVCache.empty(1, 4, 3))
