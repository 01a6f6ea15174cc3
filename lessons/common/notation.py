"""The course's symbols, one table per part (:mod:`lessons.common.symbol_tables`), as each lesson page shows them.

Every lesson page folds, under its set-up, the rows of its part's table that it uses: the letter the page prints,
the NLP lecture's and the Transformer lecture's letters for the same thing, and what it means. The same letter may
mean two things in two parts (c is an LSTM's memory cell in lesson 1 and the context from lesson 2 on), never on one
page. :func:`letters` reads the letters of an equation, so a test can hold every page's equations to its table.
"""

from __future__ import annotations

import re

from lessons.common import catalog
from lessons.common.symbol_tables import PART_1, PART_2, PART_3, PART_4, Symbol

SYMBOLS: tuple[Symbol, ...] = (*PART_1, *PART_2, *PART_3, *PART_4)

COLUMNS = {
    "page": "this course writes",
    "nlp": "the NLP lecture",
    "transformer": "the Transformer lecture",
    "paper": "the paper",
    "meaning": "meaning",
}

GREEK = ("alpha", "beta", "gamma", "Gamma", "theta", "omega", "sigma", "mu", "phi", "lambda")
# names, not letters: the words of \text{…}, \mathrm{softmax}, \operatorname{Var}, \texttt{…}, and ℝ
_NAMES = re.compile(r"\\(?:text|mathrm|operatorname\*?|texttt|mathbb)\s*\{[^{}]*\}")
# weights, biases, gates and sizes keep their indices (W_aa, W^Q, W_i^Q, b_1, Γ_f, d_k); d^2 is a power, not an index
_GROUP = r"(?:\{\s*[A-Za-z0-9]+\s*\}|[A-Za-z0-9])"
_INDEXED = (
    re.compile(rf"(?<!\\)(W)((?:\s*[_^]\s*{_GROUP})+)"),
    re.compile(rf"(?<![A-Za-z\\])(w|b|d|\\Gamma)((?:\s*_\s*{_GROUP})+)"),
)
_TOKEN = re.compile(r"(?<![A-Za-z])(?:W(?:[_^][A-Za-z0-9]+)+|(?:\\Gamma|w|b|d)(?:_[A-Za-z0-9]+)+)")


def _indexed(match: re.Match) -> str:
    marks = re.findall(r"([_^])\s*\{?\s*([A-Za-z0-9]+)\s*\}?", match.group(2))
    return " " + match.group(1) + "".join(f"{mark}{index}" for mark, index in marks) + " "


def letters(latex: str, words: frozenset[str] = frozenset()) -> set[str]:
    """The letters of a LaTeX equation: Greek letters by name (``\\alpha`` as ``alpha``), indexed weights, biases,
    gates and sizes whole (``W^Q``, ``W_aa``, ``\\Gamma_f``, ``d_k``, ``d_model``), ``words`` whole (``pos``,
    ``Enc``) and every other Latin letter alone (``QK^\\top`` is Q and K). Names (``\\mathrm{softmax}``,
    ``\\text{…}``) and commands are not letters."""
    s = re.sub(r"\\\\\[[^\]]*\]", " ", latex.replace("$$", " "))  # a line break's spacing, \\[6pt]
    s = re.sub(r"\\(begin|end)\{\w+\}", " ", s)
    s = re.sub(r"d_\\text\{model\}|d_\{model\}|d_\\mathrm\{model\}", " d_{model} ", s)
    s = _NAMES.sub(" ", s)
    s = re.sub(r"\\mathcal\{(\w)\}", r" \1 ", s)
    for pattern in _INDEXED:
        s = pattern.sub(_indexed, s)
    found = {m.group(0) for m in _TOKEN.finditer(s)}
    s = _TOKEN.sub(" ", s)
    found |= {m.group(1) for m in re.finditer(r"\\([A-Za-z]+)(?![A-Za-z])", s) if m.group(1) in GREEK}
    s = re.sub(r"\\[A-Za-z]+", " ", s)
    for run in re.findall(r"[A-Za-z]+", s):
        found |= {run} if run in words else set(run)
    return found


def words() -> frozenset[str]:
    """The table's names of more than one letter that are not indexed (``pos``, ``PE``, ``Enc``, ``like``)."""
    return frozenset(t for s in SYMBOLS for t in s.latex if len(t) > 1 and "_" not in t and "^" not in t)


def latex_letters(symbol: Symbol) -> set[str]:
    """The letters a row explains, as :func:`letters` names them (``\\alpha`` as ``alpha``)."""
    return {t.removeprefix("\\") if t.removeprefix("\\") in GREEK else t for t in symbol.latex}


def part_of(slug: str) -> str:
    """The title of the catalog's part that holds lesson ``slug``."""
    return next(part.title for part in catalog.COURSE if any(lesson.slug == slug for lesson in part.lessons))


def table(part: str) -> list[Symbol]:
    """One part's table: the rows of the lessons in that part, in the table's order."""
    return [s for s in SYMBOLS if part_of(s.lessons[0]) == part]


def rows(slug: str) -> list[dict[str, str]]:
    """The rows of its part's table a lesson's page shows, in the table's order: the page's letters, each lecture's
    ("—" where it has none; the paper's column only where a row has one) and the meaning."""
    used = [s for s in table(part_of(slug)) if slug in s.lessons]
    fields = ["page", "nlp", "transformer"] + (["paper"] if any(s.paper for s in used) else []) + ["meaning"]
    return [{COLUMNS[f]: getattr(s, f) or "—" for f in fields} for s in used]
