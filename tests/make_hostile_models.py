"""Write the crafted model files the tests load, into ``tests/fixtures/hostile_models/``:
``python -m tests.make_hostile_models``.


Two good files (a tiny GRU with additive attention and a tiny Transformer, seeded, on twenty-four made-up pairs) and
one file per way a model file can lie: a setting past its limit (the 1e6-piece target, the 202 GB hidden size), a
parameter count or a memory need past its bound while each setting is within its own, a record field of the wrong
type, a tensor table that does not add up, and a model that never writes its end token (a valid file: its decoding
must stop by itself). ``index.json`` says what each file is and what the loader must answer: a fragment of its
refusal, or ``"loads"``. The tests and ``bench/hostile_files.py`` read that index; nothing here is random, so running
the script again writes the same bytes.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from safetensors.torch import load, save

from minimodels.own_data import PairsTask, build_own_model, save_model
from minimodels.own_data.artifact import _digest
from minimodels.own_data.record import META_KEY
from minimodels.tokenizers import EOS_ID

OUT = Path(__file__).resolve().parent / "fixtures" / "hostile_models"
PAIRS = [
    (f"the {a} {b}", f"le {b} {a}")
    for a in ("red", "big", "old", "shy")
    for b in ("cat", "dog", "owl", "fox", "bee", "elk")
]
TINY = {  # the smallest models that are still the course's architectures
    "gru-additive": {"embedding_size": 8, "hidden_size": 8, "attention_size": 8},
    "transformer": {"d_model": 8, "n_heads": 2, "d_ff": 16, "encoder_layers": 1, "decoder_layers": 1},
}
OUTPUT_BIAS = "model.out.bias"  # the GRU's last layer: its logits' bias
TOO_LARGE = "larger than this course loads"
DAMAGED = "record is damaged"


def good_file(architecture: str) -> bytes:
    """A seeded, untrained tiny model of ``architecture`` as a model file, its clock and versions fixed."""
    task = PairsTask.from_pairs(PAIRS, name="hostile.tsv", vocab_size=40)
    task.source_name = "hostile.tsv"
    model = build_own_model(architecture, task, seed=0, **TINY[architecture]).eval()
    data = save_model(model, task, curve=[{"step": 10, "seconds": 1.0, "loss": 2.0, "exact_match": 0.25}])
    return rewrite(data, lambda meta: meta.update(saved="2026-01-01T00:00:00+00:00", torch="2"))


def parts(data: bytes) -> tuple[dict, bytes]:
    """A safetensors file's header (JSON) and its data part."""
    (size,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8 : 8 + size]), data[8 + size :]


def join(header: dict, body: bytes) -> bytes:
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + body


def rewrite(data: bytes, change) -> bytes:
    """``data`` with its record changed in place by ``change(meta)``; the tensors' bytes untouched."""
    header, body = parts(data)
    meta = json.loads(header["__metadata__"][META_KEY])
    change(meta)
    header["__metadata__"][META_KEY] = json.dumps(meta)
    return join(header, body)


def retable(data: bytes, change) -> bytes:
    """``data`` with its tensor table changed in place by ``change(header)``."""
    header, body = parts(data)
    change(header)
    return join(header, body)


def raw_record(data: bytes, text: str) -> bytes:
    """``data`` with its record replaced by ``text`` as it is (not necessarily JSON of a table)."""
    header, body = parts(data)
    header["__metadata__"][META_KEY] = text
    return join(header, body)


def never_ends(data: bytes) -> bytes:
    """The GRU file with its output layer's bias for the end token pushed far down, and a target of 512 pieces: a
    valid file whose greedy decoding never stops on its own."""
    header, _body = parts(data)
    tensors = load(data)
    meta = json.loads(header["__metadata__"][META_KEY])
    tensors[OUTPUT_BIAS][EOS_ID] = -1e4
    meta["task"]["max_target_len"] = 512
    meta["task"]["max_source_len"] = 512
    meta["tensors_sha256"] = _digest(tensors)
    return save(tensors, metadata={META_KEY: json.dumps(meta)})


def set_in(path: str, value):
    """A change that sets ``meta[a][b]...`` for ``path`` "a.b" to ``value``."""
    *keys, last = path.split(".")

    def change(meta: dict) -> None:
        node = meta
        for key in keys:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[int(last) if isinstance(node, list) else last] = value

    return change


def cases(gru: bytes, transformer: bytes) -> dict[str, tuple[bytes, str, str]]:
    """``{file name: (bytes, what it is, what the loader must answer)}``."""
    big_transformer = {  # each setting within its limit; together far more weights than the bound
        "source_vocab_size": 32_000, "target_vocab_size": 32_000, "d_model": 1024, "n_heads": 16, "d_ff": 4096,
        "encoder_layers": 6, "decoder_layers": 6, "max_len": 1026,
    }  # fmt: skip
    deep_decoder = {  # few weights, but decoding 1,025 steps at beam 8 over 6 layers of 16 heads: gigabytes
        "d_model": 64, "n_heads": 16, "d_ff": 64, "encoder_layers": 1, "decoder_layers": 6, "max_len": 1026,
    }  # fmt: skip

    def config(**fields):
        return lambda meta: meta["config"].update(fields)

    def both(*changes):
        return lambda meta: [change(meta) for change in changes]

    nested = '{"format": "attention-lab/own-data-model", "version": 1, "extra": ' + "[" * 5_000 + "]" * 5_000 + "}"
    return {
        "good-gru.safetensors": (gru, "a tiny GRU with additive attention, untrained", "loads"),
        "good-transformer.safetensors": (transformer, "a tiny Transformer, untrained", "loads"),
        "never-ends.safetensors": (
            never_ends(gru),
            "valid; its end token's bias is -1e4 and its targets 512 pieces long: decoding never ends by itself",
            "loads",
        ),
        "target-1e6.safetensors": (
            rewrite(gru, set_in("task.max_target_len", 1_000_000)),
            "task.max_target_len = 1,000,000 (the decoding budget of every page run)",
            TOO_LARGE,
        ),
        "hidden-1e6.safetensors": (
            rewrite(gru, config(hidden_size=1_000_000)),
            "config.hidden_size = 1,000,000 (terabytes once built)",
            TOO_LARGE,
        ),
        "vocab-1e9.safetensors": (rewrite(gru, config(target_vocab_size=10**9)), "a vocabulary of 1e9", TOO_LARGE),
        "positions-1e7.safetensors": (
            rewrite(transformer, config(max_len=10**7)),
            "a Transformer covering 1e7 positions (its two sinusoid tables alone: 640 MB)",
            TOO_LARGE,
        ),
        "layers-100.safetensors": (rewrite(transformer, config(decoder_layers=100)), "100 decoder layers", TOO_LARGE),
        "weights-past-bound.safetensors": (
            rewrite(transformer, both(config(**big_transformer), set_in("task.max_target_len", 64))),
            "every setting within its limit, about 275 million weights together",
            "parameter count",
        ),
        "memory-past-bound.safetensors": (
            rewrite(transformer, both(config(**deep_decoder), set_in("task.max_target_len", 512))),
            "few weights; 6 decoder layers x 16 heads decoding 1,025 steps at beam 8",
            "MB of memory",
        ),
        "heads-do-not-divide.safetensors": (rewrite(transformer, config(n_heads=3)), "d_model 8, 3 heads", DAMAGED),
        "config-not-a-table.safetensors": (rewrite(gru, set_in("config", [1, 2])), "config is a list", DAMAGED),
        "hidden-as-text.safetensors": (rewrite(gru, config(hidden_size="8")), 'hidden_size = "8"', DAMAGED),
        "bidirectional-as-text.safetensors": (
            rewrite(gru, config(bidirectional="no")),
            'bidirectional = "no"',
            DAMAGED,
        ),
        "cell-unknown.safetensors": (rewrite(gru, config(cell="transistor")), 'cell = "transistor"', DAMAGED),
        "dropout-nan.safetensors": (rewrite(transformer, config(dropout=float("nan"))), "dropout = NaN", DAMAGED),
        "curve-as-text.safetensors": (rewrite(gru, set_in("curve", "up and to the right")), "curve is text", DAMAGED),
        "curve-step-as-text.safetensors": (rewrite(gru, set_in("curve.0.step", "10")), 'a step of "10"', DAMAGED),
        "curve-no-seconds.safetensors": (
            rewrite(gru, lambda meta: meta["curve"][0].pop("seconds")),
            "a curve point without its seconds (continuing the model reads them)",
            DAMAGED,
        ),
        "exact-match-5.safetensors": (rewrite(gru, set_in("curve.0.exact_match", 5)), "exact match 500%", DAMAGED),
        "exact-match-as-list.safetensors": (
            rewrite(gru, set_in("curve.0.exact_match", [1])),
            "exact match [1]",
            DAMAGED,
        ),
        "loss-nan.safetensors": (rewrite(gru, set_in("curve.0.loss", float("nan"))), "loss NaN", DAMAGED),
        "task-as-list.safetensors": (rewrite(gru, set_in("task", ["x"])), "task is a list", DAMAGED),
        "source-len-as-text.safetensors": (
            rewrite(gru, set_in("task.max_source_len", "64")),
            'task.max_source_len = "64"',
            DAMAGED,
        ),
        "source-len-zero.safetensors": (rewrite(gru, set_in("task.max_source_len", 0)), "max_source_len 0", DAMAGED),
        "probe-as-number.safetensors": (rewrite(gru, set_in("probe", 7)), "probe = 7", DAMAGED),
        "probe-of-numbers.safetensors": (rewrite(gru, set_in("probe", [1, 2])), "probe = [1, 2]", DAMAGED),
        "probe-a-novel.safetensors": (
            rewrite(gru, set_in("probe.0", "word " * 200)),
            "a probe of 1,000 characters",
            DAMAGED,
        ),
        "examples-as-table.safetensors": (rewrite(gru, set_in("examples", {"a": "b"})), "examples is a table", DAMAGED),
        "pairs-as-text.safetensors": (rewrite(gru, set_in("data.train_pairs", "many")), 'train_pairs "many"', DAMAGED),
        "data-as-list.safetensors": (rewrite(gru, set_in("data", [])), "data is a list", DAMAGED),
        "name-a-novel.safetensors": (
            rewrite(gru, set_in("data.name", "x" * 2_000)),
            "a data name of 2,000 characters",
            DAMAGED,
        ),
        "fingerprint-as-number.safetensors": (rewrite(gru, set_in("fingerprint", 42)), "fingerprint 42", DAMAGED),
        "extra-as-list.safetensors": (rewrite(gru, set_in("extra", ["origin"])), "extra is a list", DAMAGED),
        "version-as-text.safetensors": (rewrite(gru, set_in("version", "1")), 'version "1"', DAMAGED),
        "version-true.safetensors": (rewrite(gru, set_in("version", True)), "version true", DAMAGED),
        "model-name-as-number.safetensors": (
            rewrite(gru, set_in("model_name", 7)),
            "model_name 7",
            "another architecture",
        ),
        "name-not-config.safetensors": (
            rewrite(gru, set_in("model_name", "lstm-dot")),
            "named lstm-dot, its config a GRU with additive attention",
            DAMAGED,
        ),
        "unknown-field.safetensors": (rewrite(gru, set_in("payload", "x")), "a field the course never writes", DAMAGED),
        "checksum-missing.safetensors": (rewrite(gru, lambda meta: meta.pop("tensors_sha256")), "no checksum", DAMAGED),
        "record-nested-5k.safetensors": (raw_record(gru, nested), "a record nested 5,000 lists deep", DAMAGED),
        "record-a-list.safetensors": (raw_record(gru, "[1, 2, 3]"), "the record is a JSON list", "another kind"),
        "tensor-f64.safetensors": (
            retable(gru, lambda h: next(v for k, v in h.items() if k.startswith("model.")).update(dtype="F64")),
            "a weight said to be float64",
            DAMAGED,
        ),
        "tensor-foreign.safetensors": (
            retable(gru, lambda h: h.update({"evil.x": h.pop(next(k for k in h if k.startswith("model.")))})),
            "a tensor named evil.x",
            DAMAGED,
        ),
        "tensor-shape-lies.safetensors": (
            retable(
                gru, lambda h: next(v for k, v in h.items() if k.startswith("model.")).update(shape=[10**6, 10**6])
            ),
            "a weight said to be 1e6 x 1e6 in the bytes of a small one",
            DAMAGED,
        ),
        "tensors-overlap.safetensors": (
            retable(gru, _overlap),
            "two weights said to share bytes, the file's last bytes unclaimed",
            DAMAGED,
        ),
        "metadata-not-text.safetensors": (
            retable(gru, lambda h: h.update(__metadata__={META_KEY: {"format": 1}})),
            "the record is a JSON table instead of text",
            "damaged",
        ),
    }


def _overlap(header: dict) -> None:
    first = next(v for k, v in header.items() if k.startswith("model.") and v["data_offsets"][0] > 0)
    begin, end = first["data_offsets"]
    first["data_offsets"] = [begin - 4, end - 4]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.safetensors"):
        old.unlink()
    gru, transformer = good_file("gru-additive"), good_file("transformer")
    index = {}
    for name, (data, what, expect) in cases(gru, transformer).items():
        (OUT / name).write_bytes(data)
        index[name] = {"what": what, "expect": expect, "bytes": len(data)}
    (OUT / "index.json").write_text(json.dumps(index, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(index)} files, {sum(e['bytes'] for e in index.values()):,} bytes, in {OUT}")


if __name__ == "__main__":
    main()
