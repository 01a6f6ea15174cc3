"""No exercise is answered by reading its page, or by setting the page's own controls to the exercise's numbers.

Every lesson page is opened under AppTest with nothing answered. Its readable text is collected: the prose, the
captions, the notes, the metrics, the tables' cells, the charts' titles and annotations, and the content of every
fold a student can open (a fold gated on answering, ``ui.reveal(after=…)``/``ui.after_answering``, is not on the
page yet; an ungated one is read open). The exercises are the ones the page asks (recorded as ``ui.exercise`` draws
them). A leak is:

- a numeric answer: a number on the page within the exercise's tolerance of it (a percentage read as the fraction
  it is). An everyday number (0–10, a half, 100: :data:`EVERYDAY`), a model size (:data:`SIZES`), a number the
  question itself gives, and a round number on the page ("0.4", "300") turn up everywhere, so those count only in
  a sentence that also holds one of the question's givens (its other numbers, not everyday, not sizes): the worked
  case written out. A table holds many numbers: a cell counts in a row that holds a given, or when it is the
  computed value itself (to six digits; a count of 100 or more exactly);
- a choice answer: a sentence that states the right option's phrase (the option up to its first colon, comma or
  bracket) as a finding: it shares at least two words with the question, and names none of the other options (a
  sentence that lists the options is not a finding). The options themselves, and the question, are not findings.
- a predict-first answer on show: a "Reveal …" fold on the page before its prediction is answered.

"By setting the page's own controls": for each numeric exercise, every slider, number box or select box of the
page that can take one of the numbers the question gives is set to it (together, as the question's setting) and the
page's text read again; a new leak (by the rules above) is one. What is not checked mechanically:
a choice question whose answer a control shows (moving a slider is how a predict-then-run question ends; those are
gated by the question's own wording only), a choice read off a table's cells (the paper's table of scores), an
answer the page writes as words or as an expression ("twice", "T(T + 1)/2"), a value the student reads by
hovering a chart's cells, a setting the page reaches by typing (a sentence, a chain), and an answer two steps away
(read ω off a table, multiply by k). The known cases are in :data:`NOT_LEAKS`, each with why it is not one.
"""

from __future__ import annotations

import itertools
import re

import pytest

from lessons.common import catalog
from lessons.common.exercises import Exercise
from tests.helpers import (
    PROSE_ELEMENTS,
    WIDGET_KINDS,
    chart_titles,
    opened_unanswered,
    plotly_specs,
    table_as_read,
    vega_specs,
)
from ui import classroom

EVERYDAY = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0.5, 0.25, 0.75, 1.5, 2.5, -0.5, -1, 100)
SIZES = tuple(2**n for n in range(4, 13))  # 16 … 4,096: the sizes of every model in the course
STOPWORDS = {
    *("about", "above", "after", "again", "against", "also", "before", "being", "below", "between", "both", "does"),
    *("each", "every", "from", "have", "into", "itself", "many", "more", "most", "much", "only", "other", "same"),
    *("should", "such", "than", "that", "their", "them", "then", "there", "these", "they", "this", "those"),
    *("through", "under", "very", "what", "when", "where", "which", "while", "with", "would", "your", "whose"),
}
# (exercise key, a phrase of the sentence) found by the check that does not give the answer away, and why.
NOT_LEAKS: dict[tuple[str, str], str] = {
    ("bahdanau_attention.ex4", "Attention costs"): "a ratio of timings measured on this server, not a context entry",
    ("rnn_cells.ex6", "median time grew"): "a ratio of timings measured on this server, not a count of steps",
    ("rnn_cells.ex1", "The keep gates average"): (
        "a random model's average gate (the section's keep-gate bias set to the question's c⟨t−1⟩), not the "
        "question's one unit"
    ),
    ("queries_keys_values.it", "hand-written feature vector per word"): "lists the features, names no winner",
    ("scaling.ex4", "In its shipped race"): (
        "lesson 4's GRU race at its own d, whose unscaled softmax does not start saturated; the question is the "
        "d_k = 512 Transformer of section 5, which starts at a mean largest α of 0.95"
    ),
}

_NUMBER = re.compile(r"(?<![\w.,])([−-])?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w])(\s*%)?")
_SCIENTIFIC = re.compile(r"\d(?:\.\d+)?e[-+]?\d+", re.IGNORECASE)  # 1.1e-16: rounding noise, not a figure


# --- the matching ---------------------------------------------------------------------------------------------
def written(text: str) -> list[tuple[float, bool]]:
    """The numbers written in ``text`` ("1,010", "−0.5", "0.67"; a percentage as the fraction it is), each with
    whether it is round (one significant digit: "0.4", "300"), a number that turns up anywhere."""
    found = []
    for sign, whole, decimals, percent in _NUMBER.findall(_SCIENTIFIC.sub(" ", text)):
        digits = (whole.replace(",", "") + decimals.lstrip(".")).strip("0")
        value = float(whole.replace(",", "") + decimals) * (-1 if sign else 1)
        found.append((value / 100 if percent else value, len(digits) <= 1))
    return found


def numbers(text: str) -> list[float]:
    return [value for value, _ in written(text)]


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences and lines ("0.67." ends a sentence, "0.67" does not)."""
    parts = re.split(r"(?<=[.!?])\s+(?=\S)|\n+", text)
    return [p.strip() for p in parts if p and p.strip()]


def _near(value: float, answer: float, tolerance: float) -> bool:
    return abs(value - answer) <= tolerance + 1e-9 * max(1.0, abs(answer))


def _everyday(answer: float, tolerance: float) -> bool:
    return any(_near(v, answer, tolerance) for v in EVERYDAY)


def _plain(text: str) -> str:
    text = re.sub(r"[*_`“”\"'‘’\\]", "", text).replace("−", "-")
    return re.sub(r"\s+", " ", text).strip().lower()


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z-]{3,}", _plain(text)) if w not in STOPWORDS}


def core(option: str) -> str:
    """An option's phrase: its text up to the first colon, comma or bracket, plain ("*animal*" -> "animal")."""
    return _plain(re.split(r"[:,(]", option, maxsplit=1)[0]).rstrip(". ")


def _says(sentence: str, phrase: str) -> bool:
    return bool(phrase) and re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", _plain(sentence)) is not None


def givens(ex: Exercise) -> list[float]:
    """The numbers the question gives that single out its setting: not everyday ones, not model sizes, not the
    answer itself."""
    return [
        g
        for g in numbers(ex.prompt)
        if not _everyday(g, 0) and g not in SIZES and not _near(g, float(ex.answer), ex.tolerance)
    ]


def _states_choice(ex: Exercise, sentence: str) -> bool:
    right = core(ex.choices[int(ex.answer)])
    others = {core(o) for i, o in enumerate(ex.choices) if i != int(ex.answer)} - {right}
    topic = _words(ex.prompt) - set().union(*(_words(o) for o in ex.choices))
    return _says(sentence, right) and not any(_says(sentence, o) for o in others) and len(_words(sentence) & topic) >= 2


def _states_number(ex: Exercise, text: str, *, in_context: bool) -> bool:
    """Whether ``text`` holds ``ex``'s answer; with ``in_context`` (or for a round number), only beside one of the
    question's givens."""
    values = written(text)
    hits = [rough for v, rough in values if _near(v, float(ex.answer), ex.tolerance)]
    if not hits:
        return False
    return not (in_context or all(hits)) or any(_near(v, g, 0) for v, _ in values for g in givens(ex))


def leaks(ex: Exercise, texts: list[str], rows: list[str] = (), questions: tuple[str, ...] = ()) -> list[str]:
    """The sentences of ``texts`` (prose), and the rows of ``rows`` (tables' cells, a row a string), that give away
    ``ex``'s answer (see the module's docstring). A sentence of ``ex``'s prompt, or of another question the page asks
    (``questions``), asks rather than states: it is no finding."""
    asked = {_plain(ex.prompt), *(_plain(o) for o in ex.choices)}
    prompts = [_plain(ex.prompt), *(_plain(q) for q in questions)]
    # a number that is everyday, a model size, or that the question itself gives, says nothing by being on the page
    weak = (
        _everyday(float(ex.answer), ex.tolerance)
        or any(_near(v, float(ex.answer), ex.tolerance) for v in SIZES)
        or any(_near(g, float(ex.answer), ex.tolerance) for g in numbers(ex.prompt))
    )
    found = []
    for sentence in (s for text in texts for s in sentences(text)):
        if _plain(sentence) in asked or any(_plain(sentence) in prompt for prompt in prompts):
            continue
        if "on this server" in sentence.lower():  # a time measured live: its digits are the machine's, no answer's
            continue
        states = _states_choice(ex, sentence) if ex.is_choice else _states_number(ex, sentence, in_context=weak)
        if states:
            found.append(sentence)
    if not ex.is_choice:  # a table holds many numbers: a cell leaks in its setting's row, or as the very value
        # the computed value itself (to 6 digits), or a count that is no everyday number
        exact = not weak and (not float(ex.answer).is_integer() or abs(float(ex.answer)) >= 100)
        found += [
            row
            for row in rows
            if _states_number(ex, row, in_context=True)
            or (exact and any(_near(v, float(ex.answer), 1e-6 * abs(float(ex.answer))) for v in numbers(row)))
        ]
    return [s for s in found if not any(k == ex.key and phrase in s for (k, phrase) in NOT_LEAKS)]


# --- the check on made-up pages -------------------------------------------------------------------------------
SOFTMAX = Exercise(
    key="demo.softmax",
    prompt="By hand: softmax of e = (2, 1, 0.1), first weight?",
    answer=0.659,
    explanation="",
    tolerance=0.002,
)
COUNT = Exercise(
    key="demo.count",
    prompt="A decoder writes T = 30 tokens. How many weights can be other than 0?",
    answer=465,
    explanation="",
)
HEADS = Exercise(key="demo.heads", prompt="d_model = 384 and h = 4 heads: what is d_k?", answer=96, explanation="")
SMALL = Exercise(
    key="demo.small", prompt="A GRU reads T = 40 tokens both ways: how long is the chain?", answer=2, explanation=""
)
CHOICE = Exercise(
    key="demo.choice",
    prompt="Predict: trained on 16 letters, which model writes the right letter more often on 32-letter strings?",
    answer=0,
    explanation="",
    choices=("sinusoidal (fixed)", "learned (one vector each)", "too close to call"),
)


def test_a_number_on_the_page_within_tolerance_is_a_leak_and_a_gated_page_is_not():
    assert leaks(SOFTMAX, ["The first token gets α = 0.66 of the weight."])  # within 0.002 of 0.659
    assert leaks(SOFTMAX, ["Its weights are 65.9%, 24.2% and 9.9%."])  # a percentage, read as a fraction
    assert not leaks(SOFTMAX, ["The first token gets α = 0.7 of the weight."])  # rounded past the tolerance
    gated = ["Answer the question above first (press Check) to see the worked softmax here."]
    assert not leaks(SOFTMAX, gated)
    assert leaks(COUNT, ["Of its 900 weights, 465 can be other than 0."])
    assert leaks(COUNT, ["that leaves 1,465 or 465 of them"])
    assert not leaks(COUNT, ["Of its 900 weights, 4650 can be other than 0 (d = 0.465)."])
    assert leaks(HEADS, ["Each head is d_k = 96 wide."])  # not an everyday number: on the page at all is a leak
    assert not leaks(SOFTMAX, ["The time grew as T^0.7 and its cost as T^1.8."])  # a round 0.7: a coincidence


def test_an_everyday_number_leaks_only_beside_the_questions_own_setting():
    assert not leaks(SMALL, ["Step 2 of the encoder reads two tokens."])
    assert leaks(SMALL, ["Over 40 tokens a bidirectional GRU's chain is 2 products long."])
    assert leaks(HEADS, [], rows=["384 | 4 | 96.0"])  # a table's row in the question's setting
    assert not leaks(HEADS, [], rows=["512 | 2 | 96.0"])  # another setting: a coincidence
    assert leaks(COUNT, [], rows=["masked self-attention | 465"])  # a count past 100, in a table's cell
    assert not leaks(SOFTMAX, [], rows=["0 | 0.6601 | 0.2 | 0.1399"])  # a cell of a large table, by chance
    assert leaks(SOFTMAX, [], rows=["0 | 0.659 | 0.2"])  # the computed value itself


def test_a_choice_leaks_when_a_sentence_states_it_not_when_it_lists_it():
    assert leaks(CHOICE, ["On 32-letter strings the sinusoidal model writes the right letter more often."])
    assert not leaks(CHOICE, ["Which writes the right letter more often: sinusoidal or learned?"])  # both named
    assert not leaks(CHOICE, ["The sinusoidal encoding turns each pair of dimensions."])  # not about the question
    assert not leaks(CHOICE, [CHOICE.prompt, *CHOICE.choices])  # the question and its options
    # another question of the page that names the option asks, it does not state: no leak, while the same
    # sentence as prose is one
    other = "Predict: on 32-letter strings the sinusoidal model writes the right letter more often, by how much?"
    assert not leaks(CHOICE, [other], questions=(other,))
    assert leaks(CHOICE, [other])


def test_numbers_are_read_as_a_student_reads_them():
    assert numbers("1,010 parameters, −0.5 and 0.67.") == [1010, -0.5, 0.67]
    assert numbers("(1, 2) and 51%, 1.1e-16") == [1, 2, 0.51]
    assert numbers("h1 and d_k=16 and 3×4") == [16, 3, 4]
    assert core("*animal*") == "animal" and core("about twice as wide, as √(256/64) = 2 says") == "about twice as wide"


# --- the pages ------------------------------------------------------------------------------------------------
def readable_text(at) -> tuple[list[str], list[str]]:
    """What a student can read on the page's main area without answering: the prose (notes, widget labels but not
    their options, which are choices, not findings; metrics with their values; charts' titles), and the tables'
    rows (their column names with each row's cells)."""
    main = at.main
    texts = [e.value for kind in (*PROSE_ELEMENTS, "latex") for e in getattr(main, kind)]
    for kind in WIDGET_KINDS:
        texts += [w.label for w in getattr(main, kind)]
    texts += [f"{m.label}: {m.value}" for m in main.metric]
    texts += [e.label for e in main.expander]
    rows = []
    for value in (*(frame.value for frame in main.dataframe), *(table_as_read(table) for table in main.table)):
        rows += [" | ".join(str(c) for c in row) for row in value.astype(str).itertuples(index=False)]
    for spec in plotly_specs(at) + vega_specs(at):
        texts += chart_titles(spec)
    return [t for t in texts if isinstance(t, str)], rows


@pytest.fixture
def asked(monkeypatch) -> dict[str, Exercise]:
    """The exercises the page draws, by key, as ``ui.exercise`` draws them (each ends with ``ask_button``)."""
    seen: dict[str, Exercise] = {}
    ask = classroom.ask_button

    def record(ex: Exercise) -> None:
        seen[ex.key] = ex
        ask(ex)

    monkeypatch.setattr(classroom, "ask_button", record)
    return seen


LESSONS = catalog.built_lessons()


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.slug for lesson in LESSONS])
def test_no_exercise_is_answered_by_reading_its_page(lesson, asked):
    at = opened_unanswered(lesson.page)
    assert asked, "the page asked no exercise, or the exercises were not recorded"
    texts, rows = readable_text(at)
    assert len(" ".join(texts)) > 500, "the page's text was not collected"
    reveals = [e.label for e in at.expander if e.label.startswith("Reveal")]
    assert not reveals, f"a prediction's answer can be opened before the prediction is answered: {reveals}"
    questions = tuple(other.prompt for other in asked.values())
    found = {key: leaks(ex, texts, rows, questions) for key, ex in asked.items()}
    found = {key: sorted(set(sentences)) for key, sentences in found.items() if sentences}
    assert not found, "\n".join(f"{key} ({asked[key].answer}): {s!r}" for key, ss in found.items() for s in ss)


# --- setting the page's controls to the question's numbers ----------------------------------------------------
MAX_SETTINGS = 8  # settings tried per exercise (the product of each control's candidates, cut here)


def _accepts(widget, value: float) -> object | None:
    """The value ``widget`` takes for ``value`` (an option whose number it is, a number in range), or None."""
    kind = type(widget).__name__
    if kind in ("Slider", "NumberInput"):
        current = widget.value
        if not isinstance(current, int | float) or isinstance(current, bool):
            return None
        low = getattr(widget, "min", None)
        high = getattr(widget, "max", None)
        if (low is not None and value < low) or (high is not None and value > high):
            return None
        if isinstance(current, int):
            return int(value) if float(value).is_integer() else None
        return float(value)
    for option in getattr(widget, "options", []):
        if [float(n) for n in numbers(str(option))[:1]] == [value] and len(numbers(str(option))) == 1:
            return option
    return None


def settings(at, ex: Exercise) -> list[list[tuple[object, object]]]:
    """The ways to set the page's controls to the numbers ``ex`` gives: each control that takes one of them."""
    givens = sorted(set(numbers(ex.prompt)))
    choices = []
    for widget in (*at.main.slider, *at.main.number_input, *at.main.select_slider, *at.main.selectbox):
        if (widget.key or "").endswith(".answer"):
            continue
        taken = [(widget, v) for g in givens if (v := _accepts(widget, g)) is not None and v != widget.value]
        if taken:
            choices.append(taken)
    return [list(combo) for combo in itertools.islice(itertools.product(*choices), MAX_SETTINGS)] if choices else []


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.slug for lesson in LESSONS])
def test_no_exercise_is_answered_by_setting_the_pages_controls_to_its_numbers(lesson, asked):
    at = opened_unanswered(lesson.page)
    before = readable_text(at)
    questions = tuple(other.prompt for other in asked.values())
    before = {key: leaks(ex, *before, questions) for key, ex in asked.items()}
    numeric = [ex for ex in asked.values() if not ex.is_choice]
    tried = [(ex, setting) for ex in numeric for setting in settings(at, ex)]
    # one session for every setting: each run puts every control a setting touches to that setting's value or back
    # to the page's own, so a run reads the page as a fresh student who set just those controls
    touched = {(type(w).__name__, w.key, w.label): w.value for _, setting in tried for w, _ in setting}
    found = []
    for ex, setting in tried:
        wanted = dict(touched)
        wanted.update({(type(w).__name__, w.key, w.label): v for w, v in setting})
        for (kind, key, label), value in wanted.items():
            match = [w for w in _widgets(at, kind) if w.key == key and w.label == label]
            if match and match[0].value != value:
                match[0].set_value(value)
        at.run()
        assert not at.exception, at.exception
        new = [s for s in leaks(ex, *readable_text(at), questions) if s not in before[ex.key]]
        found += [f"{ex.key} ({ex.answer}) with {[(w.label, v) for w, v in setting]}: {s!r}" for s in new]
    assert not found, "\n".join(found)


def _widgets(at, kind: str) -> list:
    """The main area's widgets of a kind named as their classes are (``Slider``, ``NumberInput``, …)."""
    attribute = {"NumberInput": "number_input", "SelectSlider": "select_slider"}.get(kind, kind.lower())
    return list(getattr(at.main, attribute))
