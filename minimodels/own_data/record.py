"""What a model file must be before anything is built from it: its header and its record, checked whole.

A model file (:mod:`.artifact`) is a safetensors header (JSON: each tensor's type, shape and place in the file, and
the course's record under ``__metadata__``), then raw bytes. Nothing of it is trusted. :func:`check_header` types the
tensor table; :func:`check_record` types every field of the record and holds each setting of the model to
:data:`~.limits.LIMITS`; :func:`check_cost` bounds the parameter count and the memory the model would take (its
weights as the header lists them, its fixed tables, and one page's decoding at the widest beam), worked out before a
weight is made. A file that fails any of them is refused with :class:`ArtifactError`, one sentence for the student:
a wrong type is "damaged", a setting beyond a limit is "larger than this course loads".
"""

from __future__ import annotations

import dataclasses
import json
import math
import re

from ..decode import MAX_STEPS
from ..seq2seq import ATTENTIONS, CELLS, QUERIES, Seq2SeqConfig
from ..train.models import MODEL_NAMES
from ..transformer import POSITIONALS, TransformerConfig
from .limits import LIMITS, Limits

FORMAT_NAME = "attention-lab/own-data-model"
FORMAT_VERSION = 1  # bump when the layout changes; a file with a higher version is refused
META_KEY = "attention_lab"
CONFIGS = {"seq2seq": Seq2SeqConfig, "transformer": TransformerConfig}
TENSOR_TYPES = {"F32": 4, "U8": 1}  # what the course writes: float32 weights, the tokenizers' bytes as uint8
TOKENIZERS = ("tokenizer.source", "tokenizer.target")

# Every setting of the two configs: (what the student reads, its kind, its bound). An int's bound is the name of its
# limit in LIMITS (from 1; from 0 for "layers"); a str's, the values the model takes; a float's, (low, high).
CONFIG_FIELDS: dict[str, tuple[str, str, object]] = {
    "source_vocab_size":  ("source vocabulary", "int", "max_vocab"),
    "target_vocab_size":  ("target vocabulary", "int", "max_vocab"),
    "cell":               ("recurrent cell", "str", CELLS),
    "attention":          ("attention", "str", ATTENTIONS),
    "attention_query":    ("attention query", "str", QUERIES),
    "bidirectional":      ("bidirectional setting", "bool", None),
    "embedding_size":     ("embedding size", "int", "max_width"),
    "hidden_size":        ("hidden size", "int", "max_width"),
    "attention_size":     ("attention size", "int", "max_width"),
    "d_model":            ("d_model", "int", "max_width"),
    "n_heads":            ("number of heads", "int", "max_heads"),
    "d_ff":               ("feed-forward width", "int", "max_feed_forward"),
    "encoder_layers":     ("number of encoder layers", "layers", "max_layers"),
    "decoder_layers":     ("number of decoder layers", "int", "max_layers"),
    "positional":         ("positional encoding", "str", POSITIONALS),
    "max_len":            ("number of positions", "int", "max_positions"),
    "dropout":            ("dropout", "float", (0.0, 0.99)),
    "norm_first":         ("layer norm placement", "bool", None),
    "scale_embeddings":   ("embedding scaling", "bool", None),
    "causal":             ("causal mask setting", "bool", None),
    "residual":           ("residual setting", "bool", None),
    "layer_norm":         ("layer norm setting", "bool", None),
    "feed_forward":       ("feed-forward setting", "bool", None),
}  # fmt: skip
RECORD_FIELDS = {  # every field a record may hold; the first six are required
    "format", "version", "model_name", "kind", "config", "tensors_sha256", "train_config", "curve", "fingerprint",
    "data", "task", "probe", "examples", "parameters", "saved", "torch", "extra",
}  # fmt: skip
CURVE_FIELDS = ("step", "seconds", "loss", "exact_match")
DEFAULT_SENTENCE = 64  # pieces of the longest sentence, for a record that does not say


class ArtifactError(ValueError):
    """A model file that cannot be loaded; ``str(error)`` is a plain sentence for the student."""


def damaged(what: str) -> ArtifactError:
    return ArtifactError(f"This model file's record is damaged: {what}.")


def too_large(what: str, value: float, limit: float) -> ArtifactError:
    return ArtifactError(f"This model is larger than this course loads: {what} is {value:,} (at most {limit:,}).")


# ------------------------------------------------------------------------------------------------- typed values
def _whole(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise damaged(f"{what} is not a whole number")
    return value


def _bounded(value, what: str, low: int, high: int) -> int:
    value = _whole(value, what)
    if value > high:
        raise too_large(what, value, high)
    if value < low:
        raise damaged(f"{what} is {value:,} (it must be between {low:,} and {high:,})")
    return value


def _number(value, what: str, low: float = -math.inf, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise damaged(f"{what} is not a number")
    if not low <= value <= high:
        raise damaged(f"{what} is {value:g} (it must be between {low:g} and {high:g})")
    return float(value)


def _text(value, what: str, limit: int) -> str:
    if not isinstance(value, str):
        raise damaged(f"{what} is not text")
    if len(value) > limit:
        raise damaged(f"{what} is {len(value):,} characters long (at most {limit:,})")
    return value


def _mapping(value, what: str) -> dict:
    if not isinstance(value, dict):
        raise damaged(f"{what} is not a table of fields")
    return value


def _pair(value, what: str, limits: Limits) -> tuple[str, str]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise damaged(f"{what} is not a pair of sentences")
    return _text(value[0], f"{what}'s source", limits.max_chars), _text(value[1], f"{what}'s target", limits.max_chars)


# ----------------------------------------------------------------------------------------------------- the header
def check_header(header: dict, data_bytes: int, limits: Limits = LIMITS) -> dict[str, tuple[str, tuple[int, ...]]]:
    """The tensor table of a safetensors ``header`` whose data part is ``data_bytes`` long: ``{name: (dtype,
    shape)}``, every entry typed, sized by its offsets and laid end to end over the data; only the model's weights
    (``model.*``, float32) and the two tokenizers (uint8). Raises :class:`ArtifactError`."""
    tensors: dict[str, tuple[str, tuple[int, ...]]] = {}
    spans = []
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(name, str) or not (name.startswith("model.") or name in TOKENIZERS) or len(name) > 200:
            raise damaged(f"it holds a tensor this course does not write ({str(name)[:60]!r})")
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
            raise damaged(f"its tensor {name} is not described as safetensors describes one")
        dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        wanted = "U8" if name in TOKENIZERS else "F32"
        if dtype != wanted:
            raise damaged(f"its tensor {name} holds {str(dtype)[:10]!r} values, not {wanted}")
        if not isinstance(shape, list) or len(shape) > 4:
            raise damaged(f"its tensor {name} has no usable shape")
        shape = tuple(_bounded(n, f"the shape of its tensor {name}", 0, limits.max_model_bytes) for n in shape)
        if not isinstance(offsets, list) or len(offsets) != 2:
            raise damaged(f"its tensor {name} has no place in the file")
        begin, end = (_whole(n, f"the place of its tensor {name}") for n in offsets)
        if not 0 <= begin <= end:
            raise damaged(f"its tensor {name} has no place in the file")
        if end > data_bytes:
            raise ArtifactError("This model file is incomplete (it was cut short, e.g. an interrupted download).")
        if end - begin != math.prod(shape) * TENSOR_TYPES[dtype]:
            raise damaged(f"its tensor {name} does not fill the bytes it says it fills")
        tensors[name] = (dtype, shape)
        spans.append((begin, end))
    position = 0
    for begin, end in sorted(spans):
        if begin != position:
            raise damaged("its tensors overlap or leave gaps between them")
        position = end
    if position != data_bytes:
        raise damaged("its tensors do not fill the file")
    missing = [name for name in TOKENIZERS if name not in tensors]
    if missing or not any(name.startswith("model.") for name in tensors):
        raise damaged(f"it lacks {'its ' + missing[0] if missing else 'the weights of its model'}")
    return tensors


# ----------------------------------------------------------------------------------------------------- the record
def check_record(meta, limits: Limits = LIMITS) -> dict:
    """``meta`` (the record, parsed from JSON) with every field typed and within ``limits``; its ``config`` is the
    config dataclass's fields (missing ones take their defaults). Raises :class:`ArtifactError`."""
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ArtifactError("This safetensors file holds another kind of record, not an Attention Lab model.")
    version = meta.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise damaged("it has no format version")
    if version > FORMAT_VERSION:
        raise ArtifactError(
            f"This model file was written by a newer version of Attention Lab (format {version}; this one reads "
            f"format {FORMAT_VERSION} and older). Update the course, or train the model again here."
        )
    unknown = sorted(str(key)[:40] for key in set(meta) - RECORD_FIELDS)
    if unknown:
        raise damaged(f"it has fields this course does not write ({', '.join(unknown[:3])})")
    name, kind = meta.get("model_name"), meta.get("kind")
    if kind not in CONFIGS or name not in MODEL_NAMES:
        shown = name if isinstance(name, str) else kind if isinstance(kind, str) else "?"
        raise ArtifactError(
            f"This file holds a model of another architecture ({shown[:40]!r}); this course builds "
            f"{', '.join(MODEL_NAMES)}."
        )
    config = _check_config(meta.get("config"), kind, limits)
    if (name == "transformer") != (kind == "transformer") or (
        kind == "seq2seq" and name != f"{config['cell']}-{config['attention']}"
    ):
        raise damaged(f"it names a {name} model but describes another one")
    if not isinstance(meta.get("tensors_sha256"), str) or not re.fullmatch(r"[0-9a-f]{64}", meta["tensors_sha256"]):
        raise damaged("it has no checksum of its weights")
    task = _check_task(meta.get("task", {}), limits)
    if kind == "transformer" and config["positional"] != "none":
        needed = max(task["max_source_len"] + 1, 2 * task["max_target_len"] + 2)
        if config["max_len"] < needed:
            raise damaged(f"its Transformer covers {config['max_len']:,} positions, fewer than its sentences need")
    _check_curve(meta.get("curve", []), limits)
    _check_data(meta.get("data", {}), limits)
    if meta.get("probe") is not None:
        _pair(meta["probe"], "the probe", limits)
    examples = meta.get("examples", [])
    if not isinstance(examples, list) or len(examples) > limits.max_examples:
        raise damaged(f"its examples are not a list of at most {limits.max_examples} pairs")
    for i, pair in enumerate(examples):
        _pair(pair, f"example {i + 1}", limits)
    for field, what in (("fingerprint", "its data's fingerprint"), ("saved", "its date"), ("torch", "its version")):
        if field in meta:
            _text(meta[field], what, 100)
    if "parameters" in meta:
        _bounded(meta["parameters"], "its parameter count", 0, limits.max_parameters)
    for field, what in (("train_config", "its training config"), ("extra", "its list of extra facts")):
        if field in meta:
            _mapping(meta[field], what)
            if len(json.dumps(meta[field])) > 10_000:
                raise damaged(f"{what} is too long")
    return {**meta, "config": config, "task": task}


def _check_config(config, kind: str, limits: Limits) -> dict:
    """The config's fields, typed and within ``limits``; the dataclass's defaults for fields the file leaves out."""
    config = _mapping(config, "its model's config")
    cls = CONFIGS[kind]
    fields = {f.name: f.default for f in dataclasses.fields(cls)}
    unknown = sorted(str(key)[:40] for key in set(config) - set(fields))
    if unknown:
        raise ArtifactError(
            f"This file holds a model of another architecture (settings this course does not know: "
            f"{', '.join(unknown[:5])})."
        )
    checked = {}
    for field, default in fields.items():
        value = config.get(field, default)
        label, kind_of, bound = CONFIG_FIELDS[field]
        label = f"its {label}"
        if kind_of in ("int", "layers"):
            value = _bounded(value, label, 0 if kind_of == "layers" else 1, getattr(limits, bound))
        elif kind_of == "str":
            if value not in bound:
                raise damaged(f"{label} is not one of {', '.join(bound)}")
        elif kind_of == "bool":
            if not isinstance(value, bool):
                raise damaged(f"{label} is not true or false")
        else:
            value = _number(value, label, *bound)
        checked[field] = value
    if kind == "transformer" and checked["d_model"] % checked["n_heads"]:
        raise damaged(f"its d_model ({checked['d_model']}) does not divide into its {checked['n_heads']} heads")
    return checked


def _check_task(task, limits: Limits) -> dict:
    task = _mapping(task, "its task")
    out = {"max_source_len": DEFAULT_SENTENCE, "max_target_len": DEFAULT_SENTENCE, **task}
    for field in ("max_source_len", "max_target_len"):
        out[field] = _bounded(out[field], f"its longest {field[4:10]} sentence", 1, limits.max_sentence)
    for field in ("name", "description"):
        if field in task:
            _text(task[field], f"its task's {field}", limits.max_text)
    if set(task) - {"name", "description", "max_source_len", "max_target_len"}:
        raise damaged("its task has fields this course does not write")
    return out


def _check_curve(curve, limits: Limits) -> None:
    if not isinstance(curve, list) or len(curve) > limits.max_curve:
        raise damaged(f"its training curve is not a list of at most {limits.max_curve:,} points")
    for i, point in enumerate(curve, start=1):
        point = _mapping(point, f"point {i} of its training curve")
        if set(point) - set(CURVE_FIELDS) or not {"step", "seconds"} <= set(point):
            raise damaged(f"point {i} of its training curve does not hold a step and its seconds")
        _bounded(point["step"], f"the step at point {i} of its training curve", 0, 10**9)
        _number(point["seconds"], f"the seconds at point {i} of its training curve", 0.0)
        if "loss" in point:
            _number(point["loss"], f"the loss at point {i} of its training curve")
        if "exact_match" in point:
            _number(point["exact_match"], f"the exact match at point {i} of its training curve", 0.0, 1.0)


def _check_data(data, limits: Limits) -> None:
    data = _mapping(data, "its data summary")
    if set(data) - {"name", "train_pairs", "held_out_pairs", "held_out_from"}:
        raise damaged("its data summary has fields this course does not write")
    for field in ("train_pairs", "held_out_pairs"):
        if field in data:
            _bounded(data[field], f"its number of {field.replace('_', ' ')}", 0, 10**7)
    for field in ("name", "held_out_from"):
        if field in data:
            _text(data[field], f"its data's {field.replace('_', ' ')}", limits.max_text)


# ------------------------------------------------------------------------------------------------------ the cost
def memory_needed(config: dict, kind: str, parameters: int, buffers: int, task: dict, limits: Limits = LIMITS) -> int:
    """Bytes the model takes on a page, at most: its weights twice (the file's tensors and the model's own), its
    fixed tables (``buffers``: a Transformer's sinusoids), and decoding one sentence at the widest beam a page offers
    (:attr:`~.limits.Limits.beam_width`) for as many steps as the file's longest target allows (at most
    :data:`~minimodels.decode.MAX_STEPS`), keeping every step's attention rows and a Transformer's cached keys and
    values."""
    steps = min(MAX_STEPS, 2 * task["max_target_len"] + 1)
    source = task["max_source_len"] + 1
    beam = limits.beam_width
    if kind == "transformer":
        layers, heads, d = config["decoder_layers"], config["n_heads"], config["d_model"]
        rows = layers * heads * (steps * steps // 2 + steps * source)  # every node's self and cross rows
        rows += 2 * layers * steps * d + 2 * layers * source * d  # cached keys and values, self and cross
    else:
        rows = steps * source
    decoding = beam * (rows + config["target_vocab_size"])
    return 4 * (2 * parameters + buffers + decoding)


def check_cost(parameters: int, memory: int, limits: Limits = LIMITS) -> None:
    """Refuse a model above the stated bounds on its parameters or the memory it would take."""
    if parameters > limits.max_parameters:
        raise too_large("its parameter count", parameters, limits.max_parameters)
    if memory > limits.max_memory_bytes:
        raise ArtifactError(
            f"This model is larger than this course loads: it would take about {memory / 1e6:,.0f} MB of memory "
            f"on a page (at most {limits.max_memory_bytes / 1e6:,.0f} MB)."
        )
