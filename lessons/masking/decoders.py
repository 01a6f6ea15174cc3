"""The lesson's two decoders: one self-attention (:class:`minimodels.small.TinyDecoder`, nothing the course has not
taught by lesson 7) that predicts the next character of "word=cipher" sequences, with the causal mask and without
it (the *cheating decoder*), and what one of them does with one word.

Letters: W = ``WORD`` letters per word, T = 2·W the decoder's input positions, V the vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from lessons.common.pretrained import load_pretrained
from lessons.masking.word_cipher import TASK, WORD, encode_word, input_labels, sequences, tokenizer
from minimodels.small import SmallConfig, TinyDecoder

D_MODEL = 64
MODELS = {True: "small-decoder-causal", False: "small-decoder-no-mask"}  # causal -> shipped model name
PRETRAINED_KEYS = {c: (TASK, name) for c, name in MODELS.items()}  # ui.pretrained's (task, model)
LABELS = {True: "causal mask", False: "no mask (cheating decoder)"}


def model_config(causal: bool) -> SmallConfig:
    return SmallConfig(tokenizer().vocab_size, D_MODEL, "learned", max_len=2 * WORD, causal=causal)


def new_model(causal: bool, seed: int) -> TinyDecoder:
    torch.manual_seed(seed)
    return TinyDecoder(model_config(causal))


def load_model(causal: bool) -> tuple[TinyDecoder, dict]:
    """``(model, meta)`` of the shipped decoder with or without the causal mask: the one copy ``load_pretrained``
    keeps per process, shared read-only."""
    shipped = load_pretrained(*PRETRAINED_KEYS[causal])
    if shipped[0].config.causal != causal:
        raise ValueError(f"checkpoint {MODELS[causal]} has causal={shipped[0].config.causal}, expected {causal}")
    return shipped


@dataclass(frozen=True)
class DecoderView:
    """One word through one decoder: its self-attention (teacher forced) and its two outputs."""

    word: str
    inputs: list[str]  # 2·WORD labels: rows and columns of the map
    attention: np.ndarray  # (T, T)
    teacher_forced: str  # the cipher letters it predicts when fed the gold sequence
    free_running: str  # the cipher it generates after "word="


@torch.inference_mode()
def look(model: TinyDecoder, word: str) -> DecoderView:
    seqs = sequences(encode_word(word))  # (1, 2W + 1)
    output = model(seqs[:, :-1])
    forced = output.logits[0, WORD:].argmax(-1).tolist()
    generated, _ = model.generate(seqs[:, : WORD + 1], WORD)
    return DecoderView(
        word,
        input_labels(word),
        output.attention["self"][0].double().numpy(),
        tokenizer().decode(forced),
        tokenizer().decode(generated[0].tolist()),
    )


def shipped_view(causal: bool, word: str) -> DecoderView:
    return look(load_model(causal)[0], word)
