"""Small pretrained checkpoints: a ``state_dict`` plus a JSON record of how to rebuild and what it was for.

A checkpoint is a directory::

    NAME/weights.pt    the model's state_dict (torch.save), loaded with torch.load(weights_only=True)
    NAME/config.json   model kind + config, task, seeds, the tokenizers' pieces, how it was trained

``weights_only=True`` means loading never runs pickled code: a page can open a checkpoint safely. The
tokenizers' pieces are stored so that a page can tell when a checkpoint no longer fits its task
(:func:`check_tokenizers`), e.g. after the sentencepiece models were retrained.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import torch
from torch import nn

from .seq2seq import Seq2Seq, Seq2SeqConfig
from .small import SmallConfig, TinyDecoder, TinyEncoder
from .transformer import TinyTransformer, TransformerConfig

__all__ = [
    "FORMAT",
    "PRETRAINED",
    "save_checkpoint",
    "load_checkpoint",
    "check_tokenizers",
    "tokenizer_record",
    "pretrained_path",
    "build_pretrained",
]

FORMAT = 1  # bump when the layout of config.json changes
WEIGHTS, CONFIG = "weights.pt", "config.json"
_KINDS = {
    "seq2seq": (Seq2Seq, Seq2SeqConfig),
    "transformer": (TinyTransformer, TransformerConfig),
    # one self-attention, no heads: the masking and positional lessons' models (saved by their results scripts)
    "small-decoder": (TinyDecoder, SmallConfig),
    "small-encoder": (TinyEncoder, SmallConfig),
}


def tokenizer_record(tokenizer) -> dict:
    """What identifies a tokenizer: its size and every id's piece."""
    return {
        "vocab_size": tokenizer.vocab_size,
        "pieces": [tokenizer.id_to_piece(i) for i in range(tokenizer.vocab_size)],
    }


def save_checkpoint(
    path: str | Path,
    model: nn.Module,
    *,
    model_name: str,
    task,
    task_seed: int = 0,
    seed: int = 0,
    training: dict | None = None,
) -> Path:
    """Write ``model`` to the directory ``path`` (created); returns the directory."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    torch.save(state, path / WEIGHTS)
    meta = {
        "format": FORMAT,
        "kind": model.kind,
        "model": model_name,
        "config": dataclasses.asdict(model.config),
        "task": task.name,
        "task_seed": task_seed,
        "seed": seed,
        "tokenizers": {
            "source": tokenizer_record(task.source_tokenizer),
            "target": tokenizer_record(task.target_tokenizer),
        },
        "training": training or {},
    }
    (path / CONFIG).write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def load_checkpoint(path: str | Path, device: str | torch.device | None = None) -> tuple[nn.Module, dict]:
    """``(model, meta)`` from a checkpoint directory (or either file inside it); the model is in eval mode.

    ``meta`` is the parsed ``config.json``. The model is on ``device`` (default: the CPU).
    """
    path = Path(path)
    if path.is_file():
        path = path.parent
    config_file, weights_file = path / CONFIG, path / WEIGHTS
    if not config_file.exists() or not weights_file.exists():
        raise FileNotFoundError(f"{path} is not a checkpoint: it needs {CONFIG} and {WEIGHTS}")
    meta = json.loads(config_file.read_text(encoding="utf-8"))
    if meta.get("format") != FORMAT:
        raise ValueError(f"{path}: checkpoint format {meta.get('format')!r}, this code reads {FORMAT}")
    if meta["kind"] not in _KINDS:
        raise ValueError(f"{path}: unknown model kind {meta['kind']!r}")
    model_cls, config_cls = _KINDS[meta["kind"]]
    model = model_cls(config_cls(**meta["config"]))
    state = torch.load(weights_file, map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    return model.to(device or "cpu").eval(), meta


def check_tokenizers(meta: dict, task) -> None:
    """Raise ``ValueError`` unless ``task``'s tokenizers are the ones the checkpoint was trained with."""
    for side, tokenizer in (("source", task.source_tokenizer), ("target", task.target_tokenizer)):
        if meta["tokenizers"][side] != tokenizer_record(tokenizer):
            raise ValueError(
                f"the checkpoint's {side} tokenizer differs from task {task.name!r}'s: retrain the checkpoint"
            )


# ----------------------------------------------------------------------------- the shipped checkpoints
ASSETS = Path(__file__).resolve().parents[1] / "assets" / "checkpoints"

# name -> the training command's arguments (``python -m minimodels.train`` + these + ``--out assets/...``).
# A fixed step budget (no accuracy target, no time limit) makes each one reproducible on the CPU: the
# same command on the same torch gives the same weights. Longer than the live runs, with a decaying
# learning rate, so that the maps a lesson opens with are clean.
PRETRAINED: dict[str, list[str]] = {
    **{
        f"dates-gru-{attention}": [
            "--task",
            "dates",
            "--model",
            f"gru-{attention}",
            "--max-steps",
            "800",
            "--warmup-steps",
            "100",
            "--decay",
        ]
        for attention in ("additive", "none", "dot", "scaled_dot", "bilinear")
    },
    "dates-transformer": ["--task", "dates", "--model", "transformer", "--max-steps", "800"],
    **{
        f"{task}-gru-additive": [
            "--task",
            task,
            "--model",
            "gru-additive",
            "--max-steps",
            "800",
            "--warmup-steps",
            "100",
            "--decay",
            "--set",
            "bidirectional=true",
        ]
        for task in ("toy-translation", "toy-translation-it")
    },
    "toy-translation-transformer": ["--task", "toy-translation", "--model", "transformer", "--max-steps", "800"],
}
COMMON = ["--seed", "0", "--threads", "1", "--target", "0", "--max-seconds", "0"]


def pretrained_path(name: str) -> Path:
    """The directory of shipped checkpoint ``name`` (a key of :data:`PRETRAINED`)."""
    if name not in PRETRAINED:
        raise ValueError(f"no shipped checkpoint {name!r}; choose from {', '.join(PRETRAINED)}")
    return ASSETS / name


def build_pretrained(names: list[str] | None = None) -> list[dict]:
    """Train the shipped checkpoints (all, or ``names``) with their commands; record what each run printed.

    Writes ``assets/checkpoints/NAME/`` and updates ``assets/checkpoints/manifest.json`` with the final JSON
    line each run printed (steps, seconds, accuracies, device, threads) and its exact command.
    """

    manifest_file = ASSETS / "manifest.json"
    rows = []
    for name in names or list(PRETRAINED):
        args = [*PRETRAINED[name], *COMMON, "--out", f"assets/checkpoints/{name}"]
        run = subprocess.run(
            [sys.executable, "-m", "minimodels.train", *args],
            capture_output=True,
            text=True,
            cwd=ASSETS.parents[1],
            check=True,
        )
        final = json.loads(run.stdout.strip().splitlines()[-1])
        final["command"] = "python -m minimodels.train " + " ".join(args)
        final["bytes"] = sum(f.stat().st_size for f in (ASSETS / name).iterdir())
        rows.append(final)
        print(json.dumps({"checkpoint": name, **final}), flush=True)
        # read just before writing: another build (of other names) may have finished while this one trained
        manifest = json.loads(manifest_file.read_text()) if manifest_file.exists() else {}
        manifest[name] = final
        manifest_file.write_text(json.dumps(manifest, indent=1) + "\n")
        (ASSETS / "README.md").write_text(render_manifest(manifest))
    return rows


def render_manifest(manifest: dict) -> str:
    """``assets/checkpoints/README.md``: how each shipped checkpoint was made, from what its run printed."""
    lines = [
        "# Pretrained checkpoints",
        "",
        "Each directory holds `weights.pt` (a `state_dict`, load with `torch.load(..., weights_only=True)`) and",
        "`config.json` (model kind and config, task, seeds, tokenizer pieces, training record). Load one with",
        "`minimodels.checkpoints.load_checkpoint(path) -> (model, meta)`.",
        "",
        "Made by `python -m minimodels.checkpoints [NAME ...]`, which runs the command below for each and",
        "records the final JSON line that run printed (also in `manifest.json`). A fixed step budget makes",
        "each run reproducible on the CPU. `held-out EM`: 200 validation sentences; `test EM`: the 500 test",
        "sentences, greedy; `alignment`: attention argmax on a gold source token (test split).",
        "",
        "| checkpoint | command | seed | steps | seconds | device, threads | held-out EM | test EM | alignment | KiB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in manifest.items():
        alignment = r.get("test_alignment_accuracy", "")
        lines.append(
            f"| `{name}` | `{r['command']}` | {r['seed']} | {r['steps']} | {r['seconds']} "
            f"| {r['device']}, {r['threads']} | {r['exact_match']} | {r.get('test_exact_match', '')} "
            f"| {alignment} | {r['bytes'] // 1024} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    build_pretrained(sys.argv[1:] or None)
