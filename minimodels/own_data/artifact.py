"""One file that keeps a model trained on a teacher's sentences: save it, download it, load it back anywhere.

The file is a single safetensors file (https://huggingface.co/docs/safetensors): a JSON header, then raw
tensors. Nothing in it is code, and reading it runs none (no pickle): the header is parsed as JSON here and the
tensors by ``safetensors``, which only copies bytes. It holds

- ``model.*``: the model's weights (its ``state_dict``);
- ``tokenizer.source`` / ``tokenizer.target``: both sentencepiece models, their bytes as uint8 tensors;
- in the header's ``__metadata__["attention_lab"]``, JSON: a format name and version, the model's name and
  config, the training config and curve, the data's fingerprint and summary, a few of its sentences (the
  probe and up to :data:`EXAMPLES` held-out pairs, so a loaded model has sentences to show), and a sha256 of
  every tensor's bytes, so a damaged download is told from a good one.

:func:`load_model` refuses, with :class:`ArtifactError` and a plain sentence, anything that is not such a file:
random bytes, another safetensors file, a truncated or altered download, a newer format, a model of an
architecture this code does not build, weights that do not fit the config, and a file that asks for more than
:data:`~.limits.LIMITS` allows. The whole file is checked before anything is built from it (:mod:`.record`): the
header's tensor table, every field of the record, the parameter count and the memory the model would take; the
model's shapes are then worked out on PyTorch's ``meta`` device (no memory, no weights) and must be the header's,
and only then are the weights read and the model made.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import struct

import torch
from safetensors import SafetensorError
from safetensors.torch import load, save
from torch import nn

from ..seq2seq import Seq2Seq
from ..tasks import Example
from ..tokenizers import SentencePieceTokenizer
from ..transformer import TinyTransformer
from .limits import LIMITS, Limits
from .record import (
    CONFIGS,
    FORMAT_NAME,
    FORMAT_VERSION,
    META_KEY,
    ArtifactError,
    check_cost,
    check_header,
    check_record,
    damaged,
    memory_needed,
)
from .task import PairsTask

__all__ = ["ArtifactError", "FORMAT_NAME", "FORMAT_VERSION", "META_KEY", "load_model", "read_meta", "save_model"]

EXAMPLES = 50  # held-out pairs kept in the file
MAX_HEADER = 10_000_000  # bytes of a header that is parsed at all
FILE_SUFFIX = ".safetensors"
MODELS = {"seq2seq": Seq2Seq, "transformer": TinyTransformer}


def model_name_of(model: nn.Module) -> str:
    """The course's name of ``model`` (see ``minimodels.train.MODEL_NAMES``): ``"gru-additive"``, ``"transformer"``."""
    if isinstance(model, TinyTransformer):
        return "transformer"
    if isinstance(model, Seq2Seq):
        return f"{model.config.cell}-{model.config.attention}"
    raise TypeError(f"cannot save a {type(model).__name__}: only Seq2Seq and TinyTransformer models")


def _digest(tensors: dict[str, torch.Tensor]) -> str:
    h = hashlib.sha256()
    for key in sorted(tensors):
        t = tensors[key]
        h.update(f"{key}:{t.dtype}:{list(t.shape)}\n".encode())
        h.update(t.contiguous().view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return h.hexdigest()


def _curve_points(curve) -> list[dict]:
    points = []
    for p in curve or []:
        d = p.as_json() if hasattr(p, "as_json") else dict(p)
        points.append({k: d[k] for k in ("step", "seconds", "loss", "exact_match") if k in d})
    return points


def _config_dict(config) -> dict:
    if config is None:
        return {}
    if dataclasses.is_dataclass(config):
        return dataclasses.asdict(config)
    return dict(config)


def save_model(model: nn.Module, task: PairsTask, *, curve=(), config=None, extra: dict | None = None) -> bytes:
    """The bytes of one model file for ``model`` trained on ``task`` (see the module docstring).

    ``curve``: the run's reports (``TrainResult.history``: Progress objects, or dicts with step, seconds, loss,
    exact_match); ``config``: the ``TrainConfig`` (or a dict). ``extra``: more JSON-able facts to keep.
    """

    name = model_name_of(model)
    tensors = {f"model.{k}": v.detach().cpu().contiguous().clone() for k, v in model.state_dict().items()}
    for side, tok in (("source", task.source_tokenizer), ("target", task.target_tokenizer)):
        proto = getattr(tok, "_proto", None)
        if proto is None:
            raise TypeError(f"the {side} tokenizer is not a sentencepiece model; only those can be saved")
        tensors[f"tokenizer.{side}"] = torch.frombuffer(bytearray(proto), dtype=torch.uint8).clone()
    probe = task.probe or task.valid[0]
    meta = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "model_name": name,
        "kind": model.kind,
        "config": dataclasses.asdict(model.config),
        "train_config": _config_dict(config),
        "curve": _curve_points(curve),
        "fingerprint": getattr(task, "fingerprint", ""),
        "data": {
            "name": getattr(task, "source_name", ""),
            "train_pairs": len(task.train),
            "held_out_pairs": len(task.valid),
            "held_out_from": getattr(task, "held_out_from", ""),
        },
        "task": {
            "name": task.name,
            "max_source_len": task.max_source_len,
            "max_target_len": task.max_target_len,
            "description": task.description,
        },
        "probe": [probe.source, probe.target],
        "examples": [[ex.source, ex.target] for ex in task.valid[:EXAMPLES]],
        "parameters": sum(p.numel() for p in model.parameters()),
        "saved": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "torch": torch.__version__,
        "tensors_sha256": _digest(tensors),
        **({"extra": extra} if extra else {}),
    }
    return save(tensors, metadata={META_KEY: json.dumps(meta, ensure_ascii=False)})


def _header(data: bytes) -> tuple[dict, int]:
    """The safetensors JSON header of ``data`` and the length of the data part after it, or ArtifactError for
    anything that is not one."""
    not_ours = ArtifactError(
        "This is not a model file from Attention Lab (it does not start like a safetensors file). Choose the "
        f"{FILE_SUFFIX} file the “Your own data” page or `python -m minimodels.train --pairs` wrote."
    )
    if len(data) < 8:
        raise not_ours
    (size,) = struct.unpack("<Q", data[:8])
    if size > len(data) - 8 or size > MAX_HEADER:
        if data[8:9] == b"{" and size < MAX_HEADER:
            raise ArtifactError("This model file is incomplete (it was cut short, e.g. an interrupted download).")
        raise not_ours
    try:
        header = json.loads(data[8 : 8 + size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise not_ours from None
    if not isinstance(header, dict):
        raise not_ours
    return header, len(data) - 8 - size


def _record(header: dict, limits: Limits) -> dict:
    """The course's record in ``header``, parsed and checked whole (:func:`.record.check_record`)."""
    stored = header.get("__metadata__")
    raw = stored.get(META_KEY) if isinstance(stored, dict) else None
    if raw is None:
        raise ArtifactError(
            "This safetensors file was not made by Attention Lab's “Your own data” page (it has no course "
            "record): its weights cannot be matched to a model here."
        )
    if not isinstance(raw, str):
        raise ArtifactError("This model file's record is damaged (it is not valid JSON).")
    try:
        meta = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        raise ArtifactError("This model file's record is damaged (it is not valid JSON).") from None
    return check_record(meta, limits)


def read_meta(data: bytes, limits: Limits = LIMITS) -> dict:
    """The record of a model file, every field typed and within ``limits``, without loading any weights."""
    if len(data) > limits.max_model_bytes:
        raise ArtifactError(
            f"The file is larger than {limits.max_model_bytes / 1e6:g} MB: not a model this course loads."
        )
    header, _data_bytes = _header(bytes(data[: min(len(data), MAX_HEADER + 8)]))
    return _record(header, limits)


def planned(meta: dict) -> tuple[dict[str, tuple[int, ...]], int, int]:
    """The model ``meta`` describes, worked out on PyTorch's meta device (no memory, no weights): its weights'
    shapes by name, its parameter count and the size of its fixed tables (buffers). Only for a checked record."""
    kind = meta["kind"]
    with torch.device("meta"):
        model = MODELS[kind](CONFIGS[kind](**meta["config"]))
    shapes = {f"model.{name}": tuple(value.shape) for name, value in model.state_dict().items()}
    parameters = sum(p.numel() for p in model.parameters())
    buffers = sum(b.numel() for b in model.buffers())
    return shapes, parameters, buffers


def load_model(
    data: bytes, *, device: str | torch.device = "cpu", limits: Limits = LIMITS
) -> tuple[nn.Module, PairsTask, dict]:
    """``(model, task, meta)`` from the bytes of a model file; the model in eval mode on ``device``.

    ``task`` is a :class:`PairsTask` holding the file's tokenizers, its probe (``train``) and the held-out pairs
    it kept (``valid``/``test``): enough for every attention view, not for training on. ``meta`` is the file's
    record (model name, configs, curve, fingerprint, ...). Raises :class:`ArtifactError` for anything else, before
    anything is built when the file is not what it says or asks for more than ``limits`` allow.
    """

    data = bytes(data)
    meta = read_meta(data, limits)
    header, data_bytes = _header(data)
    tensors_listed = check_header(header, data_bytes, limits)
    shapes, parameters, buffers = planned(meta)
    listed = sum(torch.Size(shape).numel() for name, (_, shape) in tensors_listed.items() if name.startswith("model."))
    check_cost(max(parameters, listed), memory_needed(meta["config"], meta["kind"], parameters, buffers, meta["task"]))
    weights = {name: shape for name, (_, shape) in tensors_listed.items() if name.startswith("model.")}
    if weights != shapes:
        raise ArtifactError(
            "This file's weights do not fit the model it describes (another architecture, or a damaged file)."
        )
    try:
        tensors = load(data)
    except SafetensorError:
        raise ArtifactError("This model file is damaged or incomplete (e.g. an interrupted download).") from None
    if _digest(tensors) != meta["tensors_sha256"]:
        raise ArtifactError("This model file is damaged: its weights are not the ones it was saved with.")
    config = meta["config"]
    try:
        tokenizers = [
            SentencePieceTokenizer(tensors[f"tokenizer.{side}"].numpy().tobytes(), name=side)
            for side in ("source", "target")
        ]
    except (RuntimeError, ValueError, TypeError, OSError):
        raise damaged("its tokenizers cannot be read") from None
    if (tokenizers[0].vocab_size, tokenizers[1].vocab_size) != (
        config["source_vocab_size"],
        config["target_vocab_size"],
    ):
        raise ArtifactError("This file's tokenizers do not fit its model (their vocabularies differ in size).")
    kind = meta["kind"]
    model = MODELS[kind](CONFIGS[kind](**config))
    state = {k[len("model.") :]: v for k, v in tensors.items() if k.startswith("model.")}
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as error:
        raise ArtifactError(
            "This file's weights do not fit the model it describes (another architecture, or a damaged file): "
            f"{str(error).splitlines()[0][:200]}"
        ) from None
    task_meta = meta["task"]
    probe = Example(*meta["probe"]) if meta.get("probe") else None
    examples = [Example(s, t) for s, t in meta.get("examples") or []]
    data_meta = meta.get("data") or {}
    task = PairsTask(
        name=task_meta.get("name", "your data"),
        source_tokenizer=tokenizers[0],
        target_tokenizer=tokenizers[1],
        train=[probe] if probe else [],
        valid=examples,
        test=examples,
        max_source_len=task_meta["max_source_len"],
        max_target_len=task_meta["max_target_len"],
        description=task_meta.get("description", ""),
        probe=probe,
        fingerprint=meta.get("fingerprint", ""),
        source_name=data_meta.get("name", ""),
        held_out_from=data_meta.get("held_out_from", ""),
    )
    return model.to(device).eval(), task, meta


def artifact_filename(meta_or_name, fingerprint: str = "") -> str:
    """A file name for a download: ``attention-lab-<model>-<first 8 of the fingerprint>.safetensors``."""
    if isinstance(meta_or_name, dict):
        meta_or_name, fingerprint = meta_or_name.get("model_name", "model"), meta_or_name.get("fingerprint", "")
    tail = f"-{fingerprint[:8]}" if fingerprint else ""
    return f"attention-lab-{meta_or_name}{tail}{FILE_SUFFIX}"
