"""The example sets a teacher can start from (``assets/own_data/``), and the generated language of the benchmark.

Every set is written by this module from its own rules, so the course has the right to ship it and anyone can
make it again: ``python -m minimodels.own_data`` rewrites ``assets/own_data/*.tsv``.

- ``en-fr``: 400 pairs of the course's toy English -> French grammar (``minimodels.tasks.translation``);
- ``en-ar``: English noun phrases and short sentences -> Arabic (right to left), from a small hand-written
  lexicon with gender agreement: the adjective follows its noun and repeats its article
  ("the big house is new" -> "البيت الكبير جديد");
- ``en-zel``: English -> Zelan, a made-up language (not one of the course's tasks) whose adjectives follow the
  noun in mirror order, whose object is marked by "ta", whose verb goes last and whose time word goes first:
  "the old farmer saw a red small boat yesterday" -> "ilo bako muren tul lira na ta venu". The benchmark
  (``bench/own_data.py``) trains on 5,000 of these.
"""

from __future__ import annotations

import random
from pathlib import Path

from ..tasks import get_task
from .pairs import Pair, read_pairs, write_pairs

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "own_data"

EXAMPLE_SETS: dict[str, dict] = {
    "en-fr": {"file": "en-fr.tsv", "title": "English → French (the course's toy grammar)", "pairs": 400},
    "en-ar": {"file": "en-ar.tsv", "title": "English → Arabic, noun phrases (right to left)", "pairs": 300},
    "en-zel": {"file": "en-zel.tsv", "title": "English → Zelan, a made-up language with the verb last", "pairs": 400},
}


def example_path(name: str) -> Path:
    """The shipped file of example set ``name`` (a key of :data:`EXAMPLE_SETS`)."""
    if name not in EXAMPLE_SETS:
        raise ValueError(f"no example set {name!r}; choose from {', '.join(EXAMPLE_SETS)}")
    return ASSETS / EXAMPLE_SETS[name]["file"]


def read_example(name: str, **options):
    """The shipped example set ``name`` read by :func:`~minimodels.own_data.read_pairs` (a PairsFile)."""
    path = example_path(name)
    return read_pairs(path, name=path.name, **options)


# ------------------------------------------------------------------------------------------------- Zelan
ZELAN_NOUNS = {  # English singular -> Zelan; the plural adds "ek"
    "farmer": "bako",
    "sailor": "tiru",
    "child": "mip",
    "teacher": "sorun",
    "baker": "pelo",
    "horse": "gavi",
    "goat": "meku",
    "bird": "fip",
    "lamp": "ludo",
    "boat": "lira",
    "stone": "kem",
    "river": "suna",
    "apple": "opa",
    "letter": "vesi",
    "basket": "kolu",
    "song": "anri",
}
ZELAN_PLURALS = {"child": "children"}  # English plurals that are not noun + "s"
ZELAN_ADJECTIVES = {
    "old": "muren",
    "young": "desa",
    "tall": "hoki",
    "small": "tul",
    "red": "rask",
    "quiet": "nole",
    "happy": "sivi",
    "heavy": "broma",
    "clever": "itsa",
    "bright": "lumi",
}
ZELAN_VERBS = {
    "saw": "venu",
    "carried": "porak",
    "found": "trovi",
    "painted": "dipa",
    "followed": "sekal",
    "washed": "lavo",
    "sold": "venda",
    "heard": "oru",
    "opened": "apri",
    "pushed": "puso",
}
ZELAN_TIMES = {"yesterday": "ilo", "today": "sama", "at night": "nuvi"}
ZELAN_OBJECT = "ta"  # follows the object's noun phrase
ZELAN_INDEFINITE = "na"  # "a": follows the noun and its adjectives


def _zelan_phrase(rng: random.Random, max_adjectives: int) -> tuple[str, str]:
    noun = rng.choice(list(ZELAN_NOUNS))
    adjectives = rng.sample(list(ZELAN_ADJECTIVES), rng.randint(0, max_adjectives))
    plural = rng.random() < 0.3
    article = "the" if plural or rng.random() < 0.6 else "a"
    english_noun = ZELAN_PLURALS.get(noun, noun + "s") if plural else noun
    english = " ".join([article, *adjectives, english_noun])
    zelan = [ZELAN_NOUNS[noun] + ("ek" if plural else ""), *(ZELAN_ADJECTIVES[a] for a in reversed(adjectives))]
    if article == "a":
        zelan.append(ZELAN_INDEFINITE)
    return english, " ".join(zelan)


def zelan_pair(rng: random.Random) -> Pair:
    """One English -> Zelan pair (see the module docstring)."""
    subject_en, subject_zel = _zelan_phrase(rng, 1)
    object_en, object_zel = _zelan_phrase(rng, 2)
    verb = rng.choice(list(ZELAN_VERBS))
    time = rng.choice(list(ZELAN_TIMES)) if rng.random() < 0.35 else None
    english = " ".join([subject_en, verb, object_en, *([time] if time else [])])
    zelan = " ".join([*([ZELAN_TIMES[time]] if time else []), subject_zel, object_zel, ZELAN_OBJECT, ZELAN_VERBS[verb]])
    return english, zelan


def zelan_pairs(n: int, seed: int = 0) -> list[Pair]:
    """``n`` distinct English -> Zelan pairs drawn from ``random.Random(seed)``."""
    rng, seen, out = random.Random(seed), set(), []
    while len(out) < n:
        pair = zelan_pair(rng)
        if pair[0] not in seen:
            seen.add(pair[0])
            out.append(pair)
    return out


# ------------------------------------------------------------------------------------------------- Arabic
# English noun -> (Arabic indefinite, Arabic with the article, feminine?)
ARABIC_THINGS = {
    "house": ("بيت", "البيت", False),
    "book": ("كتاب", "الكتاب", False),
    "pen": ("قلم", "القلم", False),
    "door": ("باب", "الباب", False),
    "car": ("سيارة", "السيارة", True),
    "city": ("مدينة", "المدينة", True),
    "tree": ("شجرة", "الشجرة", True),
    "room": ("غرفة", "الغرفة", True),
}
ARABIC_PEOPLE = {
    "boy": ("ولد", "الولد", False),
    "man": ("رجل", "الرجل", False),
    "girl": ("بنت", "البنت", True),
    "woman": ("امرأة", "المرأة", True),
}
# English adjective -> (masculine, feminine); "al" + either makes it definite
ARABIC_THING_ADJECTIVES = {
    "big": ("كبير", "كبيرة"),
    "small": ("صغير", "صغيرة"),
    "new": ("جديد", "جديدة"),
    "old": ("قديم", "قديمة"),
    "beautiful": ("جميل", "جميلة"),
    "clean": ("نظيف", "نظيفة"),
}
ARABIC_PERSON_ADJECTIVES = {
    "tall": ("طويل", "طويلة"),
    "short": ("قصير", "قصيرة"),
    "happy": ("سعيد", "سعيدة"),
    "young": ("صغير", "صغيرة"),
}


def arabic_pairs() -> list[Pair]:
    """Every English -> Arabic pair of the small lexicon above (noun phrases and "X is Y" sentences)."""
    out: list[Pair] = []
    for nouns, adjectives in ((ARABIC_THINGS, ARABIC_THING_ADJECTIVES), (ARABIC_PEOPLE, ARABIC_PERSON_ADJECTIVES)):
        for noun, (bare, definite, feminine) in nouns.items():
            for adj, forms in adjectives.items():
                a = forms[feminine]
                out.append((f"the {adj} {noun}", f"{definite} ال{a}"))
                out.append((f"a {adj} {noun}", f"{bare} {a}"))
                out.append((f"the {noun} is {adj}", f"{definite} {a}"))
                for adj2, forms2 in adjectives.items():
                    if adj2 != adj:
                        out.append((f"the {adj} {noun} is {adj2}", f"{definite} ال{a} {forms2[feminine]}"))
    return out


def example_pairs(name: str) -> list[Pair]:
    """The pairs of example set ``name``, as :func:`write_examples` writes them."""
    n = EXAMPLE_SETS[name]["pairs"]
    if name == "en-fr":
        task = get_task("toy-translation")
        return [(ex.source, ex.target) for ex in task.train[:n]]
    if name == "en-ar":
        pairs = arabic_pairs()
        return random.Random(0).sample(pairs, min(n, len(pairs)))
    if name == "en-zel":
        return zelan_pairs(n, seed=1)  # the benchmark draws with seed 0
    raise ValueError(f"no example set {name!r}")


def write_examples() -> list[Path]:
    """Write every example set to ``assets/own_data/``; returns the files."""
    ASSETS.mkdir(parents=True, exist_ok=True)
    written = []
    for name in EXAMPLE_SETS:
        path = example_path(name)
        path.write_text(write_pairs(example_pairs(name)), encoding="utf-8")
        written.append(path)
    return written
