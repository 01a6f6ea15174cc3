"""The course's symbol tables, one per part (lessons.common.notation, lessons.common.symbol_tables): every lecture
letter is in the lecture's text, every lesson page shows its rows, and every equation on a page uses only letters
its rows explain."""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

import pytest

from lessons.common import catalog, notation
from lessons.common.symbol_tables import Symbol
from tests.helpers import read_as_student

SOURCES = Path(os.environ.get("ATTENTION_LAB_SOURCES", "/work/shared/sources"))
LECTURES = {"nlp": "nlp-lecture-attention.txt", "transformer": "transformer-lecture.txt"}
LESSONS = catalog.all_lessons()

# How each text file spells what the table prints: the NLP lecture's PDF text turns α into ↵, a prime into 0 and a
# transpose into |; the Transformer lecture's is LaTeX (\alpha, a^{<t>}, W^Q, d_{model}).
SPELLING = {
    "nlp": {"α": "↵", "′": "0", "″": "00", "ᵀ": "|"},
    "transformer": {"α": "\\alpha", "Γ": "\\Gamma", "σ": "\\sigma", "ŷ": "\\haty", "c̃": "\\tildec", "′": "'"},
    "paper": {"ℒ": "\\mathcalL"},
}


def skeleton(text: str, source: str) -> str:
    """``text`` as the source's file spells it, without the marks that differ between a typeset letter and the
    file's: sub- and superscript marks and opening braces go, a closing brace ends a letter (``W_{aa}a^{<t>}`` is
    W_aa, then a⟨t⟩), formatting commands keep their content, spaces beside punctuation go."""
    for letter, spelled in SPELLING[source].items():
        text = text.replace(letter, spelled)
    text = unicodedata.normalize("NFKD", text).replace("⟨", "<").replace("⟩", ">").replace("−", "-")
    text = re.sub(r"\\(?:mathbf|text)\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"[_^{$]", "", text).replace("}", " ")
    return re.sub(r"\s*([,|()=<>;])\s*", r"\1", text)


def lecture_letters(column: str) -> list[str]:
    """A lecture column's letters: split at ", " outside parentheses, notes in parentheses dropped."""
    column = re.sub(r"\s\([^()]*(?:\([^()]*\)[^()]*)*\)", "", column)  # "Q, K, V (qⱼ = Qhⱼ)" -> "Q, K, V"
    parts, depth, current = [], 0, ""
    for ch in column:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    return [p for p in [*parts, current.strip()] if p]


def appears(letter: str, text: str, source: str) -> bool:
    """Whether the source's ``text`` has ``letter``, not inside a longer word."""
    spelled = skeleton(letter, source).strip()
    before = r"(?<![A-Za-z])" if spelled[0].isalnum() else ""
    after = r"(?![A-Za-z])" if spelled[-1].isalnum() else ""
    return re.search(before + re.escape(spelled) + after, skeleton(text, source)) is not None


def source_text(name: str) -> str:
    path = SOURCES / name
    if not path.is_file():
        pytest.skip(f"the lectures' text is not on this machine ({path}; set ATTENTION_LAB_SOURCES)")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("source", sorted(LECTURES))
def test_every_letter_in_a_lecture_column_is_in_that_lectures_text(source):
    text = source_text(LECTURES[source])
    missing = [
        (symbol.page, letter)
        for symbol in notation.SYMBOLS
        for letter in lecture_letters(getattr(symbol, source))
        if not appears(letter, text, source)
    ]
    assert not missing, f"letters the {source} lecture does not write: {missing}"


def test_every_letter_in_the_paper_column_is_in_the_attention_bridge_paper_or_the_sockeye_poster():
    text = source_text("attention-bridge-paper.txt") + "\n" + source_text("sockeye-architecture-poster.txt")
    missing = [(s.page, x) for s in notation.SYMBOLS for x in lecture_letters(s.paper) if not appears(x, text, "paper")]
    assert not missing


def test_the_letter_check_fails_on_a_made_up_letter():
    nlp, transformer = source_text(LECTURES["nlp"]), source_text(LECTURES["transformer"])
    for letter in ("gᵢ", "sᵢ", "αᵢ", "Enc(x, g)", "p(i | g)", "d′", "W₁"):
        assert appears(letter, nlp, "nlp"), letter
    for letter in ("score(·,·)", "e_{t,i}", "W^Q", "d_k", "a⟨t⟩"):
        assert not appears(letter, nlp, "nlp"), letter
    for letter in ("s⟨t−1⟩", "α⟨t,t′⟩", "W^Q", "d_model", "PE(pos,2i)", "Γ_u", "c̃⟨t⟩", "W^o"):
        assert appears(letter, transformer, "transformer"), letter
    for letter in ("score(·,·)", "gᵢ", "h", "W^O", "θ_i"):
        assert not appears(letter, transformer, "transformer"), letter


def test_a_lecture_column_splits_into_its_letters():
    assert lecture_letters("Q, K, V (qⱼ = Qhⱼ, kᵢ = Khᵢ)") == ["Q", "K", "V"]
    assert lecture_letters("PE(pos,2i), PE(pos,2i+1), pos") == ["PE(pos,2i)", "PE(pos,2i+1)", "pos"]
    assert lecture_letters("Enc(x), Enc(x, g)") == ["Enc(x)", "Enc(x, g)"]
    assert lecture_letters("") == []


def test_the_nlp_lectures_q_k_v_are_the_transformer_lectures_weights():
    weights = next(s for s in notation.SYMBOLS if s.page == "W^Q, W^K, W^V")
    assert lecture_letters(weights.nlp) == ["Q", "K", "V"] and weights.transformer == "W^Q, W^K, W^V"
    products = next(s for s in notation.SYMBOLS if s.page == "Q, K, V")
    assert lecture_letters(products.transformer) == ["Q", "K", "V"]


def test_every_row_belongs_to_one_part_and_every_part_has_a_table():
    for symbol in notation.SYMBOLS:
        assert symbol.lessons and symbol.meaning, symbol
        assert len({notation.part_of(slug) for slug in symbol.lessons}) == 1, symbol
    for part in catalog.COURSE:
        assert notation.table(part.title), part.title
    assert [s for part in catalog.COURSE for s in notation.table(part.title)] == list(notation.SYMBOLS)


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.slug for lesson in LESSONS])
def test_every_lesson_page_shows_its_rows_of_its_parts_table(lesson):
    rows = notation.rows(lesson.slug)
    assert rows, f"{lesson.slug} has no rows in its part's table"
    page = (catalog.ROOT / lesson.page).read_text(encoding="utf-8")
    assert f'ui.symbols("{lesson.slug}")' in page, f"{lesson.slug}'s page does not show its symbols"
    part = notation.table(notation.part_of(lesson.slug))
    assert [r["meaning"] for r in rows] == [s.meaning for s in part if lesson.slug in s.lessons]


def test_rows_show_both_lectures_and_the_paper_only_where_a_row_has_one():
    columns = set(notation.rows("scoring_functions")[0])
    assert columns == {"this course writes", "the NLP lecture", "the Transformer lecture", "meaning"}
    assert "the paper" in notation.rows("attention_bridge")[0]
    assert any(r["the NLP lecture"] == "gᵢ" for r in notation.rows("bahdanau_attention"))
    assert all("score(·,·)" not in value for s in notation.rows("bahdanau_attention") for value in s.values())


def test_the_letter_c_is_never_both_the_memory_cell_and_the_context_on_one_page():
    cell = next(s for s in notation.SYMBOLS if "memory cell" in s.meaning)
    context = [s for s in notation.SYMBOLS if s.meaning.startswith("the context")]
    assert context and not any(set(cell.lessons) & set(c.lessons) for c in context)


def test_letters_reads_an_equations_letters():
    words = frozenset({"pos", "PE"})
    assert notation.letters(r"\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V") == {"Q", "K", "V", "d_k"}
    assert notation.letters(r"\mathrm{head}_i = \mathrm{Attention}(QW_i^Q, KW_i^K, VW_i^V)") == {
        "i",
        "Q",
        "K",
        "V",
        "W_i^Q",
        "W_i^K",
        "W_i^V",
    }
    assert notation.letters(r"PE_{(pos,\,2i)} = \sin(pos/10000^{2i/d_{model}})", words) == {"PE", "pos", "i", "d_model"}
    assert notation.letters(r"\Gamma_u = \sigma(W_u[c^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_u)") == {
        r"\Gamma_u",
        "sigma",
        "W_u",
        "c",
        "t",
        "x",
        "b_u",
    }
    assert notation.letters(r"O(d^2)\quad \text{window } w") == {"O", "d", "w"}


def _page_letters(at) -> set[str]:
    words = notation.words()
    return set().union(set(), *(notation.letters(e.value, words) for e in at.main.latex))


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.slug for lesson in LESSONS])
def test_every_letter_of_a_pages_equations_is_in_its_rows_of_its_parts_table(lesson):
    at = read_as_student(lesson.page)
    explained = set().union(set(), *(notation.latex_letters(s) for s in notation.SYMBOLS if lesson.slug in s.lessons))
    unexplained = _page_letters(at) - explained
    assert not unexplained, f"{lesson.slug}'s equations use {sorted(unexplained)}, which its symbol table lacks"


def test_the_equation_check_finds_a_letter_no_row_explains():
    row = Symbol("Q, K, V", "queries, keys, values", ("queries_keys_values",), latex=("Q", "K", "V"))
    assert notation.letters(r"\frac{QK^\top}{\sqrt{d_k}}V") - notation.latex_letters(row) == {"d_k"}
