"""The one table of symbols for lessons 1–4 (lessons.common.notation)."""

from pathlib import Path

from lessons.common import catalog, notation

FIRST_FOUR = [lesson.slug for lesson in catalog.all_lessons()[:4]]


def test_every_symbol_belongs_to_lessons_one_to_four_and_each_of_them_shows_some():
    assert FIRST_FOUR == ["rnn_cells", "seq2seq_bottleneck", "bahdanau_attention", "scoring_functions"]
    for symbol in notation.SYMBOLS:
        assert symbol.lessons and set(symbol.lessons) <= set(FIRST_FOUR), symbol
    for slug in FIRST_FOUR:
        assert notation.rows(slug), slug
        page = (catalog.ROOT / "pages" / f"{slug}.py").read_text()
        assert f'ui.symbols("{slug}")' in page, f"{slug}'s page does not show its symbols"
    assert notation.rows("transformer") == []


def test_the_letter_c_is_never_both_the_memory_cell_and_the_context_on_one_page():
    cell = next(s for s in notation.SYMBOLS if "memory cell" in s.meaning)
    context = next(s for s in notation.SYMBOLS if s.meaning.startswith("the context vector"))
    assert not set(cell.lessons) & set(context.lessons)


def test_rows_keep_the_tables_order_and_columns():
    for slug in FIRST_FOUR:
        rows = notation.rows(slug)
        order = [next(i for i, s in enumerate(notation.SYMBOLS) if s.page == r["lessons 2–4 write"]) for r in rows]
        assert order == sorted(order)
        assert all(set(r) == {"lessons 2–4 write", "the lecture (and lesson 1) writes", "meaning"} for r in rows)
    assert Path(notation.__file__).parent.name == "common"
