"""A toy grammar in which "it" must be resolved: the lecture's *The animal didn't cross the street because it was
too tired* (it = the animal) and *…because it was too wide* (it = the street).

Every sentence names one creature (``animal``, ``dog``, …) and one place (``street``, ``road``, …), in either
order, and ends "because it was too ADJ". Creature adjectives (tired, hungry, …) make "it" the creature; place
adjectives (wide, busy, …) make it the place. The label is the referent's position in the sentence, so a model
must read the adjective *after* "it" to know which noun it means: neither the word order nor the nouns alone tell.

The test split holds the sentences of :data:`TEST_PAIRS` (a fixed tenth of the creature–place pairs, the lecture's
``animal``/``street`` among them): a model is tested on pairs of nouns it never saw together.
"""

from __future__ import annotations

import functools
import itertools
import random
from dataclasses import dataclass

import torch

# Each noun with its French gender (l'animal, la rue): "it" becomes "il" or "elle" by its referent's gender.
GENDERS: dict[str, str] = {
    "animal": "m",
    "dog": "m",
    "cat": "m",
    "horse": "m",
    "fox": "m",  # l'animal, chien, chat, cheval, renard
    "cow": "f",
    "goat": "f",
    "mouse": "f",
    "owl": "f",
    "hen": "f",  # la vache, chèvre, souris, chouette, poule
    "street": "f",
    "road": "f",
    "river": "f",
    "track": "f",
    "highway": "f",  # la rue, route, rivière, piste, autoroute
    "bridge": "m",
    "path": "m",
    "field": "m",
    "canal": "m",
    "tunnel": "m",  # le pont, chemin, champ, canal, tunnel
}
CREATURES: tuple[str, ...] = ("animal", "dog", "cat", "horse", "fox", "cow", "goat", "mouse", "owl", "hen")
PLACES: tuple[str, ...] = ("street", "road", "river", "track", "highway", "bridge", "path", "field", "canal", "tunnel")
PRONOUNS: tuple[str, ...] = ("il", "elle")  # the model's two answers: French "it" for a masculine / feminine referent
CREATURE_ADJECTIVES: tuple[str, ...] = ("tired", "hungry", "scared", "sleepy", "weak", "lazy")
PLACE_ADJECTIVES: tuple[str, ...] = ("wide", "long", "busy", "icy", "muddy", "steep")
# C: the creature, P: the place, A: the adjective. Two templates put the place first.
TEMPLATES: tuple[str, ...] = (
    "the C didn't cross the P because it was too A",
    "the C avoided the P because it was too A",
    "the C never reached the P because it was too A",
    "the P stopped the C because it was too A",
    "the P slowed the C because it was too A",
)
SWAPS: dict[str, str] = {  # the lecture's pair, and each adjective's partner of the other kind (for "swap the ending")
    **dict(zip(CREATURE_ADJECTIVES, PLACE_ADJECTIVES, strict=True)),
    **dict(zip(PLACE_ADJECTIVES, CREATURE_ADJECTIVES, strict=True)),
}
PAD, IT = "<pad>", "it"
FUNCTION_WORDS: tuple[str, ...] = (
    "the",
    "didn't",
    "cross",
    "avoided",
    "never",
    "reached",
    "stopped",
    "slowed",
    "because",
    "it",
    "was",
    "too",
)
VOCAB: tuple[str, ...] = (PAD, *FUNCTION_WORDS, *CREATURES, *PLACES, *CREATURE_ADJECTIVES, *PLACE_ADJECTIVES)
INDEX: dict[str, int] = {w: i for i, w in enumerate(VOCAB)}
TEST_PAIRS: tuple[tuple[str, str], ...] = (  # every creature once, every place once; 6 of the 10 differ in gender
    ("animal", "street"),
    ("dog", "river"),
    ("cat", "bridge"),
    ("horse", "highway"),
    ("fox", "path"),
    ("cow", "field"),
    ("goat", "road"),
    ("mouse", "canal"),
    ("owl", "track"),
    ("hen", "tunnel"),
)


@dataclass(frozen=True)
class ItSentence:
    """One sentence of the grammar, with where "it" is and which noun it means."""

    tokens: tuple[str, ...]
    it: int  # position of "it"
    creature: int  # position of the creature noun
    place: int  # position of the place noun
    referent: int  # position of the noun "it" means (= creature or place)
    template: int  # which of TEMPLATES

    @property
    def pronoun(self) -> int:
        """The answer: 0 for "il" (masculine referent), 1 for "elle"."""
        return int(GENDERS[self.tokens[self.referent]] == "f")

    @property
    def ambiguous(self) -> bool:
        """Whether the two nouns differ in gender: only then does the answer depend on which one "it" means."""
        return GENDERS[self.tokens[self.creature]] != GENDERS[self.tokens[self.place]]

    @property
    def other(self) -> int:
        """Position of the noun "it" does not mean."""
        return self.place if self.referent == self.creature else self.creature


def sentence(template: int, creature: str, place: str, adjective: str) -> ItSentence:
    """The sentence of ``TEMPLATES[template]`` with these words, and its referent by the grammar's rule."""
    words = TEMPLATES[template].split()
    tokens = tuple({"C": creature, "P": place, "A": adjective}.get(w, w) for w in words)
    c, p = words.index("C"), words.index("P")
    return ItSentence(tokens, words.index(IT), c, p, c if adjective in CREATURE_ADJECTIVES else p, template)


def swapped(s: ItSentence) -> ItSentence:
    """The same sentence ending with the other kind of adjective (tired <-> wide, …): "it" changes referent."""
    return sentence(s.template, s.tokens[s.creature], s.tokens[s.place], SWAPS[s.tokens[-1]])


@dataclass(frozen=True)
class ItTask:
    """The grammar's splits: ``train`` and ``valid`` from the training pairs of nouns, ``test`` from TEST_PAIRS."""

    splits: dict[str, tuple[ItSentence, ...]]

    def split(self, name: str) -> tuple[ItSentence, ...]:
        return self.splits[name]


@functools.lru_cache(maxsize=4)
def it_task(seed: int = 0, n_valid: int = 300) -> ItTask:
    """Every sentence of the grammar (10 creatures × 10 places × 12 adjectives × 5 templates = 6000), split by
    pair of nouns: the 10 test pairs' 600 sentences are the test split, ``n_valid`` of the rest (drawn with
    ``seed``) are held out for checks during training, the others are for training."""
    test_pairs = set(TEST_PAIRS)
    held, rest = [], []
    adjectives = CREATURE_ADJECTIVES + PLACE_ADJECTIVES
    for t, c, p, a in itertools.product(range(len(TEMPLATES)), CREATURES, PLACES, adjectives):
        (held if (c, p) in test_pairs else rest).append(sentence(t, c, p, a))
    random.Random(seed).shuffle(rest)
    return ItTask({"train": tuple(rest[n_valid:]), "valid": tuple(rest[:n_valid]), "test": tuple(held)})


def encode(sentences: tuple[ItSentence, ...] | list[ItSentence]) -> dict[str, torch.Tensor]:
    """A batch: ``tokens (B, T)`` padded with 0, ``lengths (B,)``, the positions ``it``, ``referent``, ``other`` and
    the answer ``pronoun`` (0 il, 1 elle) and ``ambiguous`` (bool), each ``(B,)``."""
    T = max(len(s.tokens) for s in sentences)
    tokens = torch.zeros(len(sentences), T, dtype=torch.long)  # (B, T)
    for row, s in enumerate(sentences):
        tokens[row, : len(s.tokens)] = torch.tensor([INDEX[w] for w in s.tokens])
    column = {
        name: torch.tensor([getattr(s, name) for s in sentences])
        for name in ("it", "referent", "other", "pronoun", "ambiguous")
    }
    return {"tokens": tokens, "lengths": torch.tensor([len(s.tokens) for s in sentences]), **column}
