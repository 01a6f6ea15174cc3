"""Tokenizers: text <-> integer ids, with one set of special ids shared by every task.

Two kinds, one interface (:class:`Tokenizer`):

- :class:`CharTokenizer` for ``dates``/``copy``/``reverse``/``sort``: one id per character of a fixed
  alphabet, in alphabet order after the four specials, so the ids never depend on the data.
- :class:`SentencePieceTokenizer` for ``toy-translation``: a small sentencepiece unigram model per language,
  trained from the generated corpus by ``python -m scripts.train_tokenizers`` and shipped in
  ``assets/spm/`` (see that script for the exact, reproducible recipe).

Every tokenizer uses ``<pad>``=0, ``<s>``=1 (BOS), ``</s>``=2 (EOS), ``<unk>``=3. ``encode`` adds no BOS/EOS;
batching (``minimodels.tasks.make_batch``) adds them.

Text typed by a user goes through :meth:`Tokenizer.encode_user_text`, which never raises: characters the
model does not know become ``<unk>`` (and are labelled so in ``pieces``), overly long text is cut to the
model's limit, and each of these comes back as a plain-language ``message`` for the page to show.
"""

from __future__ import annotations

import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import sentencepiece as spm

PAD_ID, BOS_ID, EOS_ID, UNK_ID = 0, 1, 2, 3
SPECIAL_PIECES = ("<pad>", "<s>", "</s>", "<unk>")  # indexed by the ids above
SPECIAL_IDS = frozenset((PAD_ID, BOS_ID, EOS_ID, UNK_ID))

EMPTY_TEXT_MESSAGE = "Type at least one character."


@dataclass(frozen=True)
class EncodedText:
    """User text as the model will see it, with everything a page needs to explain what happened."""

    ids: list[int]  # token ids, at most max_len of them, no BOS/EOS
    pieces: list[str]  # one label per id; "<unk>" where the model does not know the text
    unknown_positions: list[int]  # indices into ids where ids[i] == UNK_ID
    truncated: bool  # True when the text was longer than max_len tokens and was cut
    message: str | None  # plain-language note for the user; None when nothing needs saying

    @property
    def empty(self) -> bool:
        return not self.ids


class Tokenizer(ABC):
    """What a model, a trainer and a page need from a tokenizer."""

    vocab_size: int

    @abstractmethod
    def encode(self, text: str) -> list[int]:
        """Ids for ``text``, no BOS/EOS; unknown characters become UNK_ID."""

    @abstractmethod
    def id_to_piece(self, i: int) -> str:
        """The label of one id ("<unk>", "<pad>", ... for the specials)."""

    @abstractmethod
    def _decode_known(self, ids: list[int]) -> str:
        """Text for ids that contain no PAD/BOS/EOS (UNK allowed)."""

    def decode(self, ids: Sequence[int]) -> str:
        """Text for ``ids``: stops at the first EOS, skips PAD and BOS, shows UNK as "<unk>"."""
        kept: list[int] = []
        for i in ids:
            i = int(i)
            if i == EOS_ID:
                break
            if i not in (PAD_ID, BOS_ID):
                kept.append(i)
        return self._decode_known(kept)

    def pieces(self, text: str) -> list[str]:
        """One label per id of ``encode(text)``, so a heatmap axis lines up with the model's positions."""
        return [self.id_to_piece(i) for i in self.encode(text)]

    def encode_user_text(self, text: str, max_len: int) -> EncodedText:
        """Encode anything a user typed; never raises. See :class:`EncodedText`."""
        text = (text or "").strip()
        if not text:
            return EncodedText([], [], [], False, EMPTY_TEXT_MESSAGE)
        # Cut absurdly long input before tokenizing so a pasted novel costs nothing; a token spans at most
        # a few dozen characters, so the first max_len tokens are unaffected.
        char_budget = 64 * max_len + 64
        cut_chars = len(text) > char_budget
        ids = self.encode(text[:char_budget])
        total = len(ids)
        truncated = cut_chars or total > max_len
        ids = ids[:max_len]
        unknown = [p for p, i in enumerate(ids) if i == UNK_ID]
        notes = []
        if truncated:
            shown = f"more than {total}" if cut_chars else str(total)
            notes.append(f"The text is too long: only the first {max_len} of its {shown} tokens are used.")
        if unknown:
            n = len(unknown)
            notes.append(
                f"{n} token{'s' if n > 1 else ''} {'are' if n > 1 else 'is'} unknown to this model and shown as <unk>."
            )
        return EncodedText(
            ids=ids,
            pieces=[self.id_to_piece(i) for i in ids],
            unknown_positions=unknown,
            truncated=truncated,
            message=" ".join(notes) or None,
        )


class VocabularyTokenizer(Tokenizer):
    """One id per unit of a fixed vocabulary (ids 4, 5, ... in the order given, after the four specials); any other
    unit is UNK. Subclasses say what a unit is (:meth:`units`) and how decoded units are joined (``joiner``)."""

    joiner = ""

    def __init__(self, vocabulary: Sequence[str], what: str):
        if len(set(vocabulary)) != len(vocabulary):
            raise ValueError(f"{what} has repeated entries: {list(vocabulary)!r}")
        self._ids = {unit: len(SPECIAL_PIECES) + k for k, unit in enumerate(vocabulary)}
        self._pieces = [*SPECIAL_PIECES, *vocabulary]
        self.vocab_size = len(self._pieces)

    @abstractmethod
    def units(self, text: str) -> Sequence[str]:
        """``text`` cut into the vocabulary's units (characters, words)."""

    def encode(self, text: str) -> list[int]:
        return [self._ids.get(unit, UNK_ID) for unit in self.units(text)]

    def id_to_piece(self, i: int) -> str:
        if not 0 <= i < self.vocab_size:
            raise ValueError(f"id {i} is outside this vocabulary of {self.vocab_size}")
        return self._pieces[i]

    def _decode_known(self, ids: list[int]) -> str:
        return self.joiner.join(self.id_to_piece(i) for i in ids)


class CharTokenizer(VocabularyTokenizer):
    """One id per character of ``alphabet`` (ids 4, 5, ... in alphabet order); anything else is UNK."""

    def __init__(self, alphabet: str):
        super().__init__(alphabet, "alphabet")
        self.alphabet = alphabet

    def units(self, text: str) -> str:
        return text

    def __repr__(self) -> str:
        return f"CharTokenizer({self.alphabet!r})"


class SentencePieceTokenizer(Tokenizer):
    """A trained sentencepiece model (``assets/spm/*.model``) behind the :class:`Tokenizer` interface.

    Input text is NFKC-normalised in Python (the models are trained with sentencepiece's ``identity`` rule,
    which keeps each ``.model`` file a few KB instead of ~240 KB of normalisation tables).
    """

    def __init__(self, model_proto: bytes, name: str = ""):
        self.name = name
        self._proto = model_proto
        self._sp = spm.SentencePieceProcessor(model_proto=model_proto)
        self.vocab_size = self._sp.get_piece_size()
        specials = [self._sp.pad_id(), self._sp.bos_id(), self._sp.eos_id(), self._sp.unk_id()]
        if specials != [PAD_ID, BOS_ID, EOS_ID, UNK_ID]:
            raise ValueError(f"sentencepiece model {name!r} has special ids {specials}, expected 0..3")

    @classmethod
    def load(cls, path: str | Path) -> SentencePieceTokenizer:
        path = Path(path)
        return cls(path.read_bytes(), name=path.stem)

    @staticmethod
    def normalize(text: str) -> str:
        return " ".join(unicodedata.normalize("NFKC", text).split())

    def encode(self, text: str) -> list[int]:
        return self._sp.encode(self.normalize(text), out_type=int)

    def surface_pieces(self, text: str) -> list[str]:
        """The pieces as sentencepiece cut them ("▁" marks a word start); unknown text kept as typed."""
        return self._sp.encode(self.normalize(text), out_type=str)

    def word_index_of_pieces(self, text: str) -> list[int]:
        """For each id of ``encode(text)``, the index of the whitespace-separated word it belongs to."""
        words, out = -1, []
        for piece in self.surface_pieces(text):
            if piece.startswith("▁") or words < 0:
                words += 1
            out.append(words)
        return out

    def id_to_piece(self, i: int) -> str:
        if not 0 <= i < self.vocab_size:
            raise ValueError(f"id {i} is outside this vocabulary of {self.vocab_size}")
        return self._sp.id_to_piece(i)

    def _decode_known(self, ids: list[int]) -> str:
        return self._sp.decode(ids)

    # The processor is a C++ object; pickle the model bytes instead (st.cache_data pickles return values).
    def __getstate__(self) -> dict:
        return {"name": self.name, "proto": self._proto}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["proto"], name=state["name"])

    def __repr__(self) -> str:
        return f"SentencePieceTokenizer({self.name!r}, vocab_size={self.vocab_size})"
