"""A toy English -> French / Italian grammar whose word alignments cross, with the gold alignment.

One random *meaning* (who does what to whom, when, where) is written in English and in the target
language; each target word records which English words it comes from. What makes the alignments cross:

- adjectives follow the noun and agree with it: "the green dog" -> "le chien vert",
  "the green house" -> "la maison verte";
- object pronouns come before the verb: "I see it" -> "je le vois", and negation wraps the verb:
  "I do not see it" -> "je ne le vois pas";
- Italian drops subject pronouns ("I see the dog" -> "vedo il cane": "vedo" comes from "I" and "see") and
  turns "like" around: "I like pizza" -> "mi piace la pizza";
- ``verb_final=True`` moves the verb (with its clitics and negation) to the end of the sentence.

Alignment choices, so a heatmap can be scored against them:

- a target word aligns to every English word it translates; words that merge ("j'aime" = "je" + "aime",
  "lundi" = "on Monday", "cherche" = "look for") align to all of them;
- an article aligns to the English article or possessive it translates ("le" <- "the"); an article with
  no English counterpart ("I like pizza" -> "la pizza", "Africa" -> "l'Afrique") aligns to its noun;
- English words with no target word ("do"/"does" in negation, "it" in "I like it" -> "mi piace") are left
  unaligned.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from minimodels.tasks.lexicon import (
    ADJECTIVES,
    ADVERBIALS,
    ITALIAN_DATIVE,
    MONTHS,
    NAMES,
    NOUNS,
    NUMBERS,
    OBJECT_PRONOUNS,
    PLACES,
    POSSESSIVES,
    PRONOUN_PERSON,
    SUBJECT_PRONOUNS,
    VERBS,
    WEEKDAYS,
    Adjective,
    Noun,
    Place,
    Verb,
    starts_with_vowel,
)

LANGUAGES = ("fr", "it")
ANIMATE = frozenset({"person", "animal"})


@dataclass(frozen=True)
class NounPhrase:
    noun: Noun
    det: str  # "the" | "a" | "my" | "your" | "two" | "three" | "four" | "" (bare: "I like dogs")
    adj: Adjective | None
    plural: bool


Subject = int | str | NounPhrase  # index into SUBJECT_PRONOUNS["en"] | a name | a noun phrase
Object = str | NounPhrase | Place | None  # an English object pronoun ("it") | ... | intransitive
Modifier = tuple[str, object]  # ("in", Place) | ("month", int) | ("weekday", int) | ("adverbial", str)


@dataclass(frozen=True)
class Meaning:
    subject: Subject
    verb: Verb
    negated: bool
    obj: Object
    modifiers: tuple[Modifier, ...]


@dataclass(frozen=True)
class Translation:
    english: str
    target: str
    alignment: list[list[int]]  # per target word, the English word indices it comes from


# ---------------------------------------------------------------- sampling


@functools.cache
def _nouns_of(kinds: frozenset[str]) -> tuple[Noun, ...]:
    return tuple(n for n in NOUNS if n.kind in kinds)


@functools.cache
def _adjectives_for(kind: str) -> tuple[Adjective, ...]:
    return tuple(a for a in ADJECTIVES if kind in a.kinds)


def _noun_phrase(rng: random.Random, kinds: frozenset[str], bare: bool = False) -> NounPhrase:
    noun = rng.choice(_nouns_of(kinds))
    adjectives = _adjectives_for(noun.kind)
    adj = rng.choice(adjectives) if adjectives and rng.random() < 0.4 else None
    if bare:
        return NounPhrase(noun, "", adj, plural=not noun.mass)
    if noun.mass:
        return NounPhrase(noun, rng.choice(("the", "the", "my", "your")), adj, plural=False)
    det = rng.choices(("the", "a", "my", "your", "number"), weights=(40, 20, 15, 10, 15))[0]
    if det == "number":
        return NounPhrase(noun, rng.choice(tuple(NUMBERS)), adj, plural=True)
    plural = det != "a" and rng.random() < 0.3
    return NounPhrase(noun, det, adj, plural)


def sample_meaning(rng: random.Random) -> Meaning:
    r = rng.random()
    if r < 0.4:
        subject: Subject = rng.randrange(len(SUBJECT_PRONOUNS["en"]))
    elif r < 0.65:
        subject = rng.choice(NAMES)
    else:
        subject = _noun_phrase(rng, ANIMATE)
    verb = rng.choice(VERBS)
    kinds = verb.objects - {"place"}
    r = rng.random()
    if r < 0.15:
        obj: Object = rng.choice(tuple(OBJECT_PRONOUNS))
    elif "place" in verb.objects and r < 0.45:
        obj = rng.choice(PLACES)
    elif verb.preference and r < 0.6:
        obj = _noun_phrase(rng, kinds, bare=True)
    else:
        obj = _noun_phrase(rng, kinds)
    # At most one place and one time; "in" is left out when the object is already a place.
    r = rng.random()
    n_modifiers = 0 if r < 0.45 else 1 if r < 0.9 else 2
    slots = [("in",) if not isinstance(obj, Place) else (), ("weekday", "month", "adverbial")]
    candidates = [rng.choice(slot) for slot in slots if slot]
    chosen = rng.sample(candidates, min(n_modifiers, len(candidates)))
    modifiers = []
    for kind in sorted(chosen, key=MODIFIER_ORDER.index):
        if kind == "in":
            modifiers.append(("in", rng.choice(PLACES)))
        elif kind == "month":
            modifiers.append(("month", rng.randrange(12)))
        elif kind == "weekday":
            modifiers.append(("weekday", rng.randrange(7)))
        else:
            modifiers.append(("adverbial", rng.choice(tuple(ADVERBIALS))))
    return Meaning(subject, verb, rng.random() < 0.15, obj, tuple(modifiers))


MODIFIER_ORDER = ("in", "weekday", "month", "adverbial")  # "in Paris on Monday", "in May every day"


# ---------------------------------------------------------------- writing


class _Words:
    """Words being written, each with the roles ("subj.noun", "verb", ...) it realises."""

    def __init__(self):
        self.words: list[str] = []
        self.roles: list[tuple[str, ...]] = []

    def add(self, text: str, *roles: str) -> None:
        for word in text.split():
            self.words.append(word)
            self.roles.append(roles)

    def extend(self, other: _Words) -> None:
        self.words += other.words
        self.roles += other.roles


def _english_np(out: _Words, np: NounPhrase, role: str) -> None:
    if np.det:
        out.add(np.det, f"{role}.det")
    if np.adj:
        out.add(np.adj.en, f"{role}.adj")
    out.add(np.noun.en_pl if np.plural else np.noun.en, f"{role}.noun")


def _is_third_singular(subject: Subject) -> bool:
    if isinstance(subject, int):
        return PRONOUN_PERSON[subject] == 2
    return isinstance(subject, str) or not subject.plural


def _person(subject: Subject) -> int:
    if isinstance(subject, int):
        return PRONOUN_PERSON[subject]
    return 4 if isinstance(subject, NounPhrase) and subject.plural else 2


def write_english(m: Meaning) -> _Words:
    out = _Words()
    if isinstance(m.subject, int):
        out.add(SUBJECT_PRONOUNS["en"][m.subject], "subj")
    elif isinstance(m.subject, str):
        out.add(m.subject, "subj")
    else:
        _english_np(out, m.subject, "subj")
    third = _is_third_singular(m.subject)
    if m.negated:
        out.add("does" if third else "do")  # no role: nothing in the target comes from it
        out.add("not", "neg")
        out.add(m.verb.en, "verb")
    else:
        out.add(m.verb.en_3sg if third else m.verb.en, "verb")
    if isinstance(m.obj, str):
        out.add(m.obj, "obj")
    elif isinstance(m.obj, Place):
        out.add(m.obj.en, "obj")
    elif isinstance(m.obj, NounPhrase):
        _english_np(out, m.obj, "obj")
    for k, (kind, value) in enumerate(m.modifiers):
        if kind == "in":
            out.add("in", f"mod{k}.prep")
            out.add(value.en, f"mod{k}.head")
        elif kind == "month":
            out.add("in", f"mod{k}.prep")
            out.add(MONTHS["en"][value], f"mod{k}.head")
        elif kind == "weekday":
            out.add("on", f"mod{k}.prep")
            out.add(WEEKDAYS["en"][value], f"mod{k}.head")
        else:
            for j, word in enumerate(value.split()):
                out.add(word, f"mod{k}.w{j}")
    return out


# French and Italian determiners ------------------------------------------------


def _french_article(gender: str, plural: bool) -> str:
    return "les" if plural else {"m": "le", "f": "la"}[gender]


def _italian_article(gender: str, plural: bool, next_word: str) -> str:
    """il/lo/l'/la/i/gli/le, chosen by the word that follows (elision to l' happens later)."""
    w = next_word.lower()
    special = (
        starts_with_vowel(w)
        or w.startswith(("z", "gn", "ps", "x", "y"))
        or (w.startswith("s") and w[1:2] not in "aeiouàèéìòù")
    )
    if gender == "f":
        return "le" if plural else "la"
    if plural:
        return "gli" if special else "i"
    return "lo" if special else "il"


def _french_np(out: _Words, np: NounPhrase, role: str) -> None:
    noun = np.noun.fr_pl if np.plural else np.noun.fr
    gender = np.noun.fr_gender
    if np.det in ("the", ""):
        out.add(_french_article(gender, np.plural), f"{role}.det" if np.det else f"{role}.noun")
    elif np.det == "a":
        out.add({"m": "un", "f": "une"}[gender], f"{role}.det")
    elif np.det in POSSESSIVES:
        m, f, pl = POSSESSIVES[np.det][0]
        out.add(pl if np.plural else (m if gender == "m" or starts_with_vowel(noun) else f), f"{role}.det")
    else:
        out.add(NUMBERS[np.det][0], f"{role}.det")
    out.add(noun, f"{role}.noun")
    if np.adj:
        out.add(np.adj.fr[(gender == "f") + 2 * np.plural], f"{role}.adj")


def _italian_np(out: _Words, np: NounPhrase, role: str) -> None:
    noun = np.noun.it_pl if np.plural else np.noun.it
    gender = np.noun.it_gender
    if np.det in ("the", ""):
        out.add(_italian_article(gender, np.plural, noun), f"{role}.det" if np.det else f"{role}.noun")
    elif np.det == "a":
        w = noun.lower()
        s_impura = w.startswith("z") or (w.startswith("s") and w[1:2] not in "aeiou")
        out.add("una" if gender == "f" else ("uno" if s_impura else "un"), f"{role}.det")
    elif np.det in POSSESSIVES:
        possessive = POSSESSIVES[np.det][1][(gender == "f") + 2 * np.plural]
        out.add(_italian_article(gender, np.plural, possessive), f"{role}.det")  # il mio, la mia
        out.add(possessive, f"{role}.det")
    else:
        out.add(NUMBERS[np.det][1], f"{role}.det")
    out.add(noun, f"{role}.noun")
    if np.adj:
        out.add(np.adj.it[(gender == "f") + 2 * np.plural], f"{role}.adj")


def _place_object(out: _Words, place: Place, lang: str) -> None:
    """A country as an object takes an article that aligns to the name: "visits Africa" -> "l'Afrique"."""
    name, gender = (place.fr, place.fr_gender) if lang == "fr" else (place.it, place.it_gender)
    if gender:
        article = _french_article(gender, False) if lang == "fr" else _italian_article(gender, False, name)
        out.add(article, "obj")
    out.add(name, "obj")


def _modifiers(out: _Words, modifiers: tuple[Modifier, ...], lang: str) -> None:
    for k, (kind, value) in enumerate(modifiers):
        prep, head = f"mod{k}.prep", f"mod{k}.head"
        if kind == "in":
            if lang == "fr":
                name, gender = value.fr, value.fr_gender
                word = "à" if not gender else "en" if gender == "f" or starts_with_vowel(name) else "au"
            else:
                name, word = value.it, "in" if value.it_gender else "a"
            out.add(word, prep)
            out.add(name, head)
        elif kind == "month":
            out.add("en" if lang == "fr" else "in", prep)
            out.add(MONTHS[lang][value], head)
        elif kind == "weekday":
            out.add(WEEKDAYS[lang][value], prep, head)  # "on Monday" -> "lundi"
        else:
            for j, word in enumerate(ADVERBIALS[value][0 if lang == "fr" else 1]):
                out.add(word, f"mod{k}.w{j}")  # word by word: "every day" -> "chaque jour"


# Sentences ----------------------------------------------------------------------


def _write_french(m: Meaning) -> tuple[_Words, _Words, _Words, _Words]:
    subject, verb, obj, mods = _Words(), _Words(), _Words(), _Words()
    if isinstance(m.subject, int):
        subject.add(SUBJECT_PRONOUNS["fr"][m.subject], "subj")
    elif isinstance(m.subject, str):
        subject.add(m.subject, "subj")
    else:
        _french_np(subject, m.subject, "subj")
    if m.negated:
        verb.add("ne", "neg")
    if isinstance(m.obj, str):
        verb.add(OBJECT_PRONOUNS[m.obj][0], "obj")
    verb.add(m.verb.fr[_person(m.subject)], "verb")
    if m.negated:
        verb.add("pas", "neg")
    if isinstance(m.obj, Place):
        _place_object(obj, m.obj, "fr")
    elif isinstance(m.obj, NounPhrase):
        _french_np(obj, m.obj, "obj")
    _modifiers(mods, m.modifiers, "fr")
    return subject, verb, obj, mods


ITALIAN_A = {"il": "al", "lo": "allo", "la": "alla", "i": "ai", "gli": "agli", "le": "alle"}


def _write_italian(m: Meaning) -> tuple[_Words, _Words, _Words, _Words]:
    subject, verb, obj, mods = _Words(), _Words(), _Words(), _Words()
    liking = m.verb.en == "like"  # piacere: the liked thing is the grammatical subject
    pronoun_subject = isinstance(m.subject, int)
    if isinstance(m.subject, str):
        if liking:
            subject.add("a", "subj")
        subject.add(m.subject, "subj")
    elif isinstance(m.subject, NounPhrase):
        _italian_np(subject, m.subject, "subj")
        if liking:  # "al cane piace", "a un cane piace"
            first = subject.words[0]
            if first in ITALIAN_A:
                subject.words[0] = ITALIAN_A[first]
            else:
                subject.words.insert(0, "a")
                subject.roles.insert(0, subject.roles[0])
    if m.negated:
        verb.add("non", "neg")
    if liking:
        if pronoun_subject:
            verb.add(ITALIAN_DATIVE[m.subject], "subj")
        plural = (isinstance(m.obj, NounPhrase) and m.obj.plural) or (
            isinstance(m.obj, str) and OBJECT_PRONOUNS[m.obj][2]
        )
        verb.add("piacciono" if plural else "piace", "verb")
    else:
        if isinstance(m.obj, str):
            verb.add(OBJECT_PRONOUNS[m.obj][1], "obj")
        roles = ("subj", "verb") if pronoun_subject else ("verb",)  # "I see" -> "vedo"
        verb.add(m.verb.it[_person(m.subject)], *roles)
    if isinstance(m.obj, Place):
        _place_object(obj, m.obj, "it")
    elif isinstance(m.obj, NounPhrase):
        _italian_np(obj, m.obj, "obj")
    _modifiers(mods, m.modifiers, "it")
    return subject, verb, obj, mods


ELISIONS = {
    "fr": {"le": "l'", "la": "l'", "je": "j'", "ne": "n'", "me": "m'", "te": "t'"},
    "it": {"lo": "l'", "la": "l'", "una": "un'", "allo": "all'", "alla": "all'"},
}


def _elide(words: _Words, lang: str, barriers: set[int]) -> tuple[list[str], list[tuple[str, ...]]]:
    """Elide before a vowel and glue: "je" "aime" -> "j'aime", whose roles are both words' roles.

    No elision across a barrier (the index of a word that starts a chunk which does not belong with
    the chunk before it: in verb-final order "je" + "en mai" must stay "je en mai")."""
    table = ELISIONS[lang]
    out_words: list[str] = []
    out_roles: list[tuple[str, ...]] = []
    glue = False
    for k, (word, roles) in enumerate(zip(words.words, words.roles, strict=True)):
        following = words.words[k + 1] if k + 1 < len(words.words) else ""
        if word in table and following and k + 1 not in barriers and starts_with_vowel(following):
            word = table[word]
        if glue:
            out_words[-1] += word
            out_roles[-1] = out_roles[-1] + roles
        else:
            out_words.append(word)
            out_roles.append(roles)
        glue = word.endswith("'")
    return out_words, out_roles


def translate(m: Meaning, lang: str, verb_final: bool = False) -> Translation:
    """Write ``m`` in English and in ``lang`` ("fr" | "it"), with the word alignment between them."""
    english = write_english(m)
    where: dict[str, list[int]] = {}
    for i, roles in enumerate(english.roles):
        for role in roles:
            where.setdefault(role, []).append(i)
    subject, verb, obj, mods = _write_french(m) if lang == "fr" else _write_italian(m)
    target, barriers, previous = _Words(), set(), None
    for chunk in (subject, obj, mods, verb) if verb_final else (subject, verb, obj, mods):
        if chunk.words and previous is not None and not (previous is subject and chunk is verb):
            barriers.add(len(target.words))
        if chunk.words:
            target.extend(chunk)
            previous = chunk
    words, roles = _elide(target, lang, barriers)
    alignment = [list(where[r[0]]) if len(r) == 1 else sorted({i for role in r for i in where[role]}) for r in roles]
    return Translation(" ".join(english.words), " ".join(words), alignment)


# The lecture's sentences, as meanings of this grammar (tests check they come out right).
JANE = Meaning(
    "Jane",
    next(v for v in VERBS if v.en == "visit"),
    False,
    next(p for p in PLACES if p.en == "Africa"),
    (("month", 8),),
)
PIZZA = Meaning(
    0,
    next(v for v in VERBS if v.en == "like"),
    False,
    NounPhrase(next(n for n in NOUNS if n.en == "pizza"), "", None, False),
    (),
)
I_SEE_IT = Meaning(0, next(v for v in VERBS if v.en == "see"), False, "it", ())
LECTURE_MEANINGS = {"fr": (JANE, I_SEE_IT), "it": (PIZZA,)}
