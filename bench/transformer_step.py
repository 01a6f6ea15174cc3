"""Training-step time of our TinyTransformer against a torch.nn.Transformer of the same size.

Both get the same embeddings, sinusoidal positions, output layer, masks (source padding, causal target,
memory padding), batch and lengths, and one Adam step per iteration (forward + backward + step). Ours also
returns every attention map; torch's does not compute them (need_weights=False inside its layers).

    python -m bench.transformer_step [--threads 2] [--steps 200] [--batch 128] [--source-len 30] [--target-len 11]

Prints one JSON line with each model's median step time and their ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings

import torch
from torch import nn

from minimodels.attention import causal_mask, padding_mask
from minimodels.positional import SinusoidalPositionalEncoding
from minimodels.transformer import TinyTransformer, TransformerConfig


class TorchTransformer(nn.Module):
    """The reference: nn.Transformer with the same embeddings, positions and output layer as ours."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        d = config.d_model
        self.source_embedding = nn.Embedding(config.source_vocab_size, d)
        self.target_embedding = nn.Embedding(config.target_vocab_size, d)
        self.position = SinusoidalPositionalEncoding(d, config.max_len)
        self.transformer = nn.Transformer(
            d_model=d,
            nhead=config.n_heads,
            num_encoder_layers=config.encoder_layers,
            num_decoder_layers=config.decoder_layers,
            dim_feedforward=config.d_ff,
            dropout=0.0,
            batch_first=True,
            norm_first=config.norm_first,
        )
        self.out = nn.Linear(d, config.target_vocab_size)

    def forward(self, source, source_lengths, target_in):
        S, T = source.size(1), target_in.size(1)
        pad = ~padding_mask(source_lengths, S)  # (B, S) torch's convention: True = ignore
        y = self.transformer(
            self.position(self.source_embedding(source)),
            self.position(self.target_embedding(target_in)),
            tgt_mask=~causal_mask(T),  # (T, T) True = not allowed
            src_key_padding_mask=pad,
            memory_key_padding_mask=pad,
            tgt_is_causal=True,
        )
        return self.out(y)  # (B, T, V)


def _data(batch: int, source_len: int, target_len: int, vocab: int, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(source_len // 2, source_len + 1, (batch,), generator=g)
    lengths[0] = source_len
    source = torch.randint(4, vocab, (batch, source_len), generator=g)
    source = source.masked_fill(~padding_mask(lengths, source_len), 0)
    target_in = torch.randint(4, vocab, (batch, target_len), generator=g)
    target_out = torch.randint(4, vocab, (batch, target_len), generator=g)
    return source, lengths, target_in, target_out


def time_steps(model: nn.Module, data, steps: int, warmup: int = 20) -> list[float]:
    """Seconds per training step (forward + cross-entropy + backward + Adam step), ``steps`` of them."""
    source, lengths, target_in, target_out = data
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    times = []
    for i in range(warmup + steps):
        start = time.perf_counter()
        out = model(source, lengths, target_in)
        logits = out.logits if hasattr(out, "logits") else out
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), target_out.flatten(), ignore_index=0)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if i >= warmup:
            times.append(time.perf_counter() - start)
    return times


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--rounds", type=int, default=3, help="alternate the two models this many times")
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--source-len", type=int, default=30)
    p.add_argument("--target-len", type=int, default=11)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--d-ff", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore", message="enable_nested_tensor")  # torch's note about its norm_first fast path
    config = TransformerConfig(
        source_vocab_size=64,
        target_vocab_size=64,
        d_model=args.d_model,
        n_heads=args.heads,
        d_ff=args.d_ff,
        encoder_layers=args.layers,
        decoder_layers=args.layers,
    )
    torch.manual_seed(0)
    ours, theirs = TinyTransformer(config), TorchTransformer(config)
    data = _data(args.batch, args.source_len, args.target_len, 64)
    t_ours, t_theirs = [], []
    for _ in range(args.rounds):  # interleave so that machine noise hits both alike
        t_ours += time_steps(ours, data, args.steps)
        t_theirs += time_steps(theirs, data, args.steps)
    result = {
        "bench": "transformer_step",
        "threads": args.threads,
        "batch": args.batch,
        "source_len": args.source_len,
        "target_len": args.target_len,
        "d_model": args.d_model,
        "heads": args.heads,
        "d_ff": args.d_ff,
        "layers": f"{args.layers}+{args.layers}",
        "steps": len(t_ours),
        "ours_ms": round(1e3 * statistics.median(t_ours), 2),
        "torch_ms": round(1e3 * statistics.median(t_theirs), 2),
    }
    result["ratio"] = round(result["ours_ms"] / result["torch_ms"], 3)
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
