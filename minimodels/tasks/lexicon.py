"""The toy-translation vocabulary: English, French and Italian side by side.

Small on purpose (about 150 lemmas per language) and regular where the languages are regular; irregular
forms are spelled out where they occur. Plurals follow each language's regular rule unless given.
"""

from __future__ import annotations

from dataclasses import dataclass

VOWELS = set("aeiouhàâéèêëîïôûùœAEIOUHÉÈÊ")


def starts_with_vowel(word: str) -> bool:
    return word[:1] in VOWELS


def english_plural(word: str) -> str:
    if word.endswith(("s", "x", "sh", "ch")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def french_plural(word: str) -> str:
    if word.endswith(("s", "x", "z")):
        return word
    if word.endswith("eau"):
        return word + "x"
    if word.endswith("al"):
        return word[:-2] + "aux"
    return word + "s"


def italian_plural(word: str, gender: str) -> str:
    if word[-1] not in "aeio":  # accented or consonant ending: invariable (caffè, computer)
        return word
    if word.endswith(("ca", "ga")) and gender == "f":
        return word[:-1] + "he"
    if word.endswith("io"):
        return word[:-1]
    if word.endswith("a") and gender == "f":
        return word[:-1] + "e"
    return word[:-1] + "i"


@dataclass(frozen=True)
class Noun:
    en: str
    fr: str
    fr_gender: str  # "m" | "f"
    it: str
    it_gender: str  # "m" | "f"
    kind: str  # "animal" | "person" | "thing" | "food" | "building"
    en_pl: str
    fr_pl: str
    it_pl: str
    mass: bool  # no plural; a bare object of like/love/hate ("I like pizza")


def noun(
    en: str,
    fr: str,
    it: str,
    kind: str,
    *,
    en_pl: str | None = None,
    fr_pl: str | None = None,
    it_pl: str | None = None,
    mass: bool = False,
) -> Noun:
    """``fr``/``it`` are "word gender", e.g. ``noun("dog", "chien m", "cane m", "animal")``."""
    fr_word, fr_gender = fr.split()
    it_word, it_gender = it.split()
    return Noun(
        en,
        fr_word,
        fr_gender,
        it_word,
        it_gender,
        kind,
        en_pl or english_plural(en),
        fr_pl or french_plural(fr_word),
        it_pl or italian_plural(it_word, it_gender),
        mass,
    )


NOUNS: tuple[Noun, ...] = (
    # animals
    noun("dog", "chien m", "cane m", "animal"),
    noun("cat", "chat m", "gatto m", "animal"),
    noun("horse", "cheval m", "cavallo m", "animal"),
    noun("bird", "oiseau m", "uccello m", "animal"),
    noun("mouse", "souris f", "topo m", "animal", en_pl="mice"),
    noun("cow", "vache f", "mucca f", "animal"),
    noun("duck", "canard m", "anatra f", "animal"),
    # people
    noun("girl", "fille f", "ragazza f", "person"),
    noun("boy", "garçon m", "ragazzo m", "person"),
    noun("woman", "femme f", "donna f", "person", en_pl="women"),
    noun("man", "homme m", "uomo m", "person", en_pl="men", it_pl="uomini"),
    noun("child", "enfant m", "bambino m", "person", en_pl="children"),
    noun("friend", "ami m", "amico m", "person", it_pl="amici"),
    noun("student", "étudiant m", "studente m", "person"),
    noun("teacher", "professeur m", "maestro m", "person"),
    # things
    noun("book", "livre m", "libro m", "thing"),
    noun("car", "voiture f", "macchina f", "thing"),
    noun("bike", "vélo m", "bicicletta f", "thing"),
    noun("boat", "bateau m", "barca f", "thing"),
    noun("train", "train m", "treno m", "thing"),
    noun("plane", "avion m", "aereo m", "thing"),
    noun("hat", "chapeau m", "cappello m", "thing"),
    noun("coat", "manteau m", "cappotto m", "thing"),
    noun("dress", "robe f", "vestito m", "thing"),
    noun("shirt", "chemise f", "camicia f", "thing", it_pl="camicie"),
    noun("shoe", "chaussure f", "scarpa f", "thing"),
    noun("bag", "sac m", "borsa f", "thing"),
    noun("ball", "ballon m", "palla f", "thing"),
    noun("pen", "stylo m", "penna f", "thing"),
    noun("letter", "lettre f", "lettera f", "thing"),
    noun("table", "table f", "tavolo m", "thing"),
    noun("chair", "chaise f", "sedia f", "thing"),
    noun("lamp", "lampe f", "lampada f", "thing"),
    noun("cup", "tasse f", "tazza f", "thing"),
    noun("key", "clé f", "chiave f", "thing"),
    noun("computer", "ordinateur m", "computer m", "thing"),
    noun("flower", "fleur f", "fiore m", "thing"),
    noun("tree", "arbre m", "albero m", "thing"),
    # food
    noun("apple", "pomme f", "mela f", "food"),
    noun("orange", "orange f", "arancia f", "food", it_pl="arance"),
    noun("cake", "gâteau m", "torta f", "food"),
    noun("banana", "banane f", "banana f", "food"),
    noun("pizza", "pizza f", "pizza f", "food", mass=True),
    noun("soup", "soupe f", "zuppa f", "food", mass=True),
    noun("bread", "pain m", "pane m", "food", mass=True),
    noun("cheese", "fromage m", "formaggio m", "food", mass=True),
    noun("coffee", "café m", "caffè m", "food", mass=True),
    noun("milk", "lait m", "latte m", "food", mass=True),
    noun("water", "eau f", "acqua f", "food", mass=True),
    noun("rice", "riz m", "riso m", "food", mass=True),
    # buildings
    noun("house", "maison f", "casa f", "building"),
    noun("school", "école f", "scuola f", "building"),
    noun("garden", "jardin m", "giardino m", "building"),
    noun("museum", "musée m", "museo m", "building"),
    noun("church", "église f", "chiesa f", "building"),
    noun("castle", "château m", "castello m", "building"),
    noun("market", "marché m", "mercato m", "building"),
    noun("library", "bibliothèque f", "biblioteca f", "building"),
    noun("station", "gare f", "stazione f", "building"),
)


@dataclass(frozen=True)
class Adjective:
    en: str
    fr: tuple[str, str, str, str]  # masculine, feminine, masculine plural, feminine plural
    it: tuple[str, str, str, str]
    kinds: frozenset[str]  # the noun kinds it describes


def _fr_forms(m: str, f: str | None = None) -> tuple[str, str, str, str]:
    f = f or (m if m.endswith("e") else m + "e")
    return m, f, french_plural(m), f + "s"


def _it_forms(m: str, pl: tuple[str, str] | None = None) -> tuple[str, str, str, str]:
    if m.endswith("o"):
        f = m[:-1] + "a"
        mp, fp = pl or (m[:-1] + "i", m[:-1] + "e")
        return m, f, mp, fp
    if m.endswith("e"):
        return m, m, m[:-1] + "i", m[:-1] + "i"  # verde, verde, verdi, verdi
    return m, m, m, m  # blu: invariable


COLORED = frozenset({"animal", "thing", "food", "building"})
ADJECTIVES: tuple[Adjective, ...] = (
    Adjective("green", _fr_forms("vert"), _it_forms("verde"), COLORED),
    Adjective("red", _fr_forms("rouge"), _it_forms("rosso"), COLORED),
    Adjective("black", _fr_forms("noir"), _it_forms("nero"), COLORED),
    Adjective("white", _fr_forms("blanc", "blanche"), _it_forms("bianco", ("bianchi", "bianche")), COLORED),
    Adjective("blue", _fr_forms("bleu", "bleue"), _it_forms("blu"), COLORED),
    Adjective("grey", _fr_forms("gris", "grise"), _it_forms("grigio", ("grigi", "grigie")), COLORED),
    Adjective("yellow", _fr_forms("jaune"), _it_forms("giallo"), COLORED),
    Adjective("happy", _fr_forms("content"), _it_forms("contento"), frozenset({"person", "animal"})),
    Adjective("sad", _fr_forms("triste"), _it_forms("triste"), frozenset({"person", "animal"})),
    Adjective(
        "tired", _fr_forms("fatigué"), _it_forms("stanco", ("stanchi", "stanche")), frozenset({"person", "animal"})
    ),
    Adjective("angry", _fr_forms("fâché"), _it_forms("arrabbiato"), frozenset({"person", "animal"})),
    Adjective("new", _fr_forms("neuf", "neuve"), _it_forms("nuovo"), frozenset({"thing", "building"})),
    Adjective("heavy", _fr_forms("lourd"), _it_forms("pesante"), frozenset({"thing"})),
    Adjective("empty", _fr_forms("vide"), _it_forms("vuoto"), frozenset({"thing", "building"})),
    Adjective("broken", _fr_forms("cassé"), _it_forms("rotto"), frozenset({"thing"})),
    Adjective("round", _fr_forms("rond"), _it_forms("rotondo"), frozenset({"thing", "food"})),
    Adjective("hot", _fr_forms("chaud"), _it_forms("caldo"), frozenset({"food"})),
    Adjective("cold", _fr_forms("froid"), _it_forms("freddo"), frozenset({"food"})),
    Adjective("fresh", _fr_forms("frais", "fraîche"), _it_forms("fresco", ("freschi", "fresche")), frozenset({"food"})),
    Adjective("sweet", _fr_forms("sucré"), _it_forms("dolce"), frozenset({"food"})),
)


@dataclass(frozen=True)
class Verb:
    en: str  # base form; two words for a phrasal verb ("look for")
    en_3sg: str
    fr: tuple[str, str, str, str, str]  # je, tu, il/elle, nous, ils
    it: tuple[str, str, str, str, str]  # io, tu, lui/lei, noi, loro
    objects: frozenset[str]  # noun kinds (and "place") it takes as objects
    preference: bool = False  # like/love/hate: also takes bare generic objects ("I like dogs")


def _en_3sg(base: str) -> str:
    head, _, rest = base.partition(" ")
    if head.endswith(("s", "x", "sh", "ch", "o")):
        head += "es"
    elif head.endswith("y") and head[-2:-1] not in "aeiou":
        head = head[:-1] + "ies"
    else:
        head += "s"
    return f"{head} {rest}".strip()


def _fr_er(stem: str) -> tuple[str, str, str, str, str]:
    return stem + "e", stem + "es", stem + "e", stem + "ons", stem + "ent"


def _it_are(stem: str) -> tuple[str, str, str, str, str]:
    return stem + "o", stem + "i", stem + "a", stem + "iamo", stem + "ano"


def _it_ere(stem: str) -> tuple[str, str, str, str, str]:
    return stem + "o", stem + "i", stem + "e", stem + "iamo", stem + "ono"


def verb(en: str, fr, it, objects: str, preference: bool = False) -> Verb:
    return Verb(en, _en_3sg(en), tuple(fr), tuple(it), frozenset(objects.split()), preference)


ANIMATE, FOOD = "animal person", "food"
THINGS = "thing food animal"
# Italian "like" is piacere, whose sentence is built differently (mi piace la pizza): see grammar.py.
VERBS: tuple[Verb, ...] = (
    verb("see", ("vois", "vois", "voit", "voyons", "voient"), _it_ere("ved"), f"{ANIMATE} {THINGS} building"),
    verb(
        "like",
        _fr_er("aim"),
        ("piaccio", "piaci", "piace", "piacciamo", "piacciono"),
        f"{ANIMATE} {THINGS} place",
        True,
    ),
    verb("love", _fr_er("ador"), _it_are("am"), f"{ANIMATE} {THINGS} place", True),
    verb("hate", _fr_er("détest"), ("odio", "odi", "odia", "odiamo", "odiano"), f"{THINGS}", True),
    verb(
        "eat", _fr_er("mang")[:3] + ("mangeons", "mangent"), ("mangio", "mangi", "mangia", "mangiamo", "mangiano"), FOOD
    ),
    verb("buy", ("achète", "achètes", "achète", "achetons", "achètent"), _it_are("compr"), THINGS),
    verb("sell", ("vends", "vends", "vend", "vendons", "vendent"), _it_ere("vend"), THINGS),
    verb("find", _fr_er("trouv"), _it_are("trov"), f"{ANIMATE} {THINGS}"),
    verb("take", ("prends", "prends", "prend", "prenons", "prennent"), _it_ere("prend"), "thing food"),
    verb(
        "want",
        ("veux", "veux", "veut", "voulons", "veulent"),
        ("voglio", "vuoi", "vuole", "vogliamo", "vogliono"),
        THINGS,
    ),
    verb("visit", _fr_er("visit"), _it_are("visit"), "place building person"),
    verb("watch", _fr_er("regard"), _it_are("guard"), f"{ANIMATE} thing"),
    verb("draw", _fr_er("dessin"), _it_are("disegn"), f"{ANIMATE} thing building"),
    verb("carry", _fr_er("port"), _it_are("port"), "thing food animal"),
    verb("wash", _fr_er("lav"), _it_are("lav"), "thing animal"),
    verb("cook", _fr_er("cuisin"), _it_are("cucin"), FOOD),
    verb("look for", _fr_er("cherch"), ("cerco", "cerchi", "cerca", "cerchiamo", "cercano"), f"{ANIMATE} thing"),
)


@dataclass(frozen=True)
class Place:
    en: str
    fr: str
    fr_gender: str  # "m" | "f" | "" for a city (no article)
    it: str
    it_gender: str


PLACES: tuple[Place, ...] = (
    Place("Africa", "Afrique", "f", "Africa", "f"),
    Place("Europe", "Europe", "f", "Europa", "f"),
    Place("Asia", "Asie", "f", "Asia", "f"),
    Place("France", "France", "f", "Francia", "f"),
    Place("Italy", "Italie", "f", "Italia", "f"),
    Place("Spain", "Espagne", "f", "Spagna", "f"),
    Place("China", "Chine", "f", "Cina", "f"),
    Place("Egypt", "Égypte", "f", "Egitto", "m"),
    Place("Canada", "Canada", "m", "Canada", "m"),
    Place("Japan", "Japon", "m", "Giappone", "m"),
    Place("Brazil", "Brésil", "m", "Brasile", "m"),
    Place("Mexico", "Mexique", "m", "Messico", "m"),
    Place("Peru", "Pérou", "m", "Perù", "m"),
    Place("Paris", "Paris", "", "Parigi", ""),
    Place("Rome", "Rome", "", "Roma", ""),
    Place("London", "Londres", "", "Londra", ""),
)

NAMES = ("Jane", "Paul", "Marie", "Tom", "Anna", "Leo", "Sara", "Max")


def words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


MONTHS = {
    "en": words("January February March April May June July August September October November December"),
    "fr": words("janvier février mars avril mai juin juillet août septembre octobre novembre décembre"),
    "it": words("gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre"),
}
WEEKDAYS = {  # in datetime.date.weekday() order
    "en": words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday"),
    "fr": words("lundi mardi mercredi jeudi vendredi samedi dimanche"),
    "it": words("lunedì martedì mercoledì giovedì venerdì sabato domenica"),
}

# Person slots used by the verb tables: 0 I, 1 you, 2 he/she/it, 3 we, 4 they.
SUBJECT_PRONOUNS = {
    "en": ("I", "you", "he", "she", "we", "they"),
    "fr": ("je", "tu", "il", "elle", "nous", "ils"),
}
PRONOUN_PERSON = (0, 1, 2, 2, 3, 4)  # index into SUBJECT_PRONOUNS -> person slot
ITALIAN_DATIVE = ("mi", "ti", "gli", "le", "ci", "gli")  # mi piace, ti piace, ... per subject pronoun
OBJECT_PRONOUNS = {  # English object pronoun -> (French, Italian, plural?)
    "it": ("le", "lo", False),
    "him": ("le", "lo", False),
    "her": ("la", "la", False),
    "them": ("les", "li", True),
}
# Determiners: English word -> (French m, f, plural; Italian possessive m, f, m pl, f pl) where they apply.
NUMBERS = {"two": ("deux", "due"), "three": ("trois", "tre"), "four": ("quatre", "quattro")}
POSSESSIVES = {
    "my": (("mon", "ma", "mes"), ("mio", "mia", "miei", "mie")),
    "your": (("ton", "ta", "tes"), ("tuo", "tua", "tuoi", "tue")),
}
# Time adverbials: English words -> French words, Italian words (aligned word by word).
ADVERBIALS = {
    "today": (("aujourd'hui",), ("oggi",)),
    "every day": (("chaque", "jour"), ("ogni", "giorno")),
    "every morning": (("chaque", "matin"), ("ogni", "mattina")),
    "every evening": (("chaque", "soir"), ("ogni", "sera")),
}
