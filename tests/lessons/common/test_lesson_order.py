"""The course's order holds: no lesson page uses a concept that the catalog says a *later* lesson introduces.

Every lesson page is opened under AppTest and its visible text collected (markdown, captions, headers, widget labels
and options, metric labels, expander labels, table column names, chart titles; the sidebar's course map and the code
expanders are not prose). A sentence that names a later lesson's concept fails the test unless it is a forward
pointer: it names the lesson that teaches it ("… in lesson 9", "lesson 10 adds …"). The concepts and the words that
signal them are listed in :data:`SIGNALS`; each must be one the catalog's ``introduces`` declares, so the map follows
the catalog when lessons move.
"""

from __future__ import annotations

import re

import pytest

from lessons.common import catalog
from tests.helpers import open_page, plotly_specs, unfold, vega_specs

# concept (as the catalog's ``introduces`` names it) -> the words that signal it on a page
SIGNALS: dict[str, tuple[str, ...]] = {
    "heads": (r"\bheads?\b", r"\bmulti-?head"),
    "cross-attention": (r"\bcross-?attention\b", r"\bencoder[–-]decoder attention\b"),
    "padding mask": (r"\bpadding mask", r"\bpad(ding)? tokens? (are|is) masked"),
    "causal mask": (r"\bcausal\b", r"\bsequence mask\b", r"\bmask(s|ed|ing)?\b"),
    "positional encoding": (r"\bpositional (encoding|embedding)s?\b", r"\bposition (vectors?|encodings?)\b"),
    "residual": (r"\bresidual (connection|stream|block|path)s?\b", r"\bskip connection"),
    "layer norm": (r"\blayer ?norm", r"\blayer normali[sz]ation\b"),
    # the Transformer's block, not the lecture's "standard (feed-forward) network" of lesson 1 (an MLP in general)
    "feed-forward": (r"\bfeed-?forward (block|sublayer|layer)s?\b", r"\bposition-?wise feed-?forward", r"\bFFN\b"),
    "self-attention": (r"\bself-?attention\b",),
    "rotary position embedding": (r"\bRoPE\b", r"\brotary (position )?embeddings?\b"),
    "alibi": (r"\bALiBi\b",),
    "induction head": (r"\binduction heads?\b",),
    "in-context learning": (r"\bin-context (learning|accuracy)\b",),
}

# Known exceptions: (slug, a phrase of the sentence) that name a later concept in a way that is not a claim about
# it (none yet; a forward pointer needs no entry: it names its lesson).
ALLOWED: set[tuple[str, str]] = set()

LESSONS = catalog.all_lessons()
NUMBER = {lesson.slug: n for n, lesson in enumerate(LESSONS, 1)}
INTRODUCED = {concept: NUMBER[lesson.slug] for lesson in LESSONS for concept in lesson.introduces}


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (and lines, and table cells), blanks dropped."""
    parts = re.split(r"(?<=[.!?])\s+|\n+|\s\|\s", text)
    return [p.strip() for p in parts if p and p.strip()]


def points_forward(sentence: str, lesson_number: int) -> bool:
    """Whether ``sentence`` names lesson ``lesson_number`` ("lesson 9", "lessons 9–10", "Lesson 9's")."""
    for match in re.finditer(r"\blessons? (\d+)(?:\s*[–-]\s*(\d+))?", sentence, flags=re.IGNORECASE):
        first, last = int(match.group(1)), int(match.group(2) or match.group(1))
        if first <= lesson_number <= last:
            return True
    return False


def later_concepts(slug: str, texts: list[str]) -> list[tuple[str, int, str]]:
    """``(concept, its lesson, sentence)`` for every sentence of ``texts`` that uses a concept a later lesson than
    ``slug`` introduces, outside a forward pointer to that lesson."""
    here, found = NUMBER[slug], []
    for text in texts:
        for sentence in sentences(text):
            for concept, words in SIGNALS.items():
                taught = INTRODUCED[concept]
                if taught <= here or not any(re.search(w, sentence, flags=re.IGNORECASE) for w in words):
                    continue
                if points_forward(sentence, taught) or any(s == slug and p in sentence for s, p in ALLOWED):
                    continue
                found.append((concept, taught, sentence))
    return found


def _title_texts(spec: dict) -> list[str]:
    """A chart's titles (and Plotly annotations), which a student reads like a caption."""
    out = []
    for node in (spec, spec.get("layout", {})):
        title = node.get("title")
        out.append(title.get("text", "") if isinstance(title, dict) else title or "")
    out += [a.get("text", "") for a in spec.get("layout", {}).get("annotations", [])]
    return [re.sub(r"<br\s*/?>", " ", t) for t in out if isinstance(t, str) and t]


def visible_text(at) -> list[str]:
    """What a student reads on the page's main area (not the sidebar's course map, not the code listings)."""
    main = at.main
    texts = [
        e.value
        for kind in ("markdown", "caption", "header", "subheader", "title", "info", "warning", "success", "error")
        for e in getattr(main, kind)
    ]
    for kind in (
        "radio",
        "selectbox",
        "multiselect",
        "slider",
        "select_slider",
        "text_input",
        "text_area",
        "number_input",
        "checkbox",
        "toggle",
        "button",
    ):
        for widget in getattr(main, kind):
            texts.append(widget.label)
            texts += [str(o) for o in getattr(widget, "options", [])]
    texts += [m.label for m in main.metric]
    texts += [e.label for e in main.expander]
    texts += [" | ".join(str(c) for c in frame.value.columns) for frame in main.dataframe]
    for spec in plotly_specs(at) + vega_specs(at):
        texts += _title_texts(spec)
    return [t for t in texts if isinstance(t, str)]


def test_every_signalled_concept_is_one_the_catalog_introduces():
    assert set(SIGNALS) <= set(INTRODUCED), set(SIGNALS) - set(INTRODUCED)


def test_the_check_flags_a_later_concept_and_lets_a_forward_pointer_through():
    masking = "masking"
    assert later_concepts(masking, ["Each of the four heads looks elsewhere."])[0][:2] == (
        "heads",
        NUMBER["multi_head_attention"],
    )
    assert later_concepts(masking, [f"You will meet heads in lesson {NUMBER['multi_head_attention']}."]) == []
    assert later_concepts(masking, ["You will meet heads in lesson 3."])  # the wrong lesson is no pointer
    assert later_concepts(masking, ["Each sublayer sits on a residual connection."])[0][0] == "residual"
    assert later_concepts("seq2seq_bottleneck", ["The decoder reads the source through cross-attention."])[0][0] == (
        "cross-attention"
    )  # lesson 3 introduces it (Bahdanau's decoder reading the encoder), so lesson 2 may not use it yet
    assert later_concepts("queries_keys_values", ["The causal mask hides the future."])
    assert later_concepts(masking, ["The causal mask hides the future."]) == []  # its own concept
    assert later_concepts("transformer", ["Each head, the residual stream and the mask."]) == []  # all taught


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.slug for lesson in LESSONS])
def test_no_page_uses_a_concept_a_later_lesson_introduces(lesson):
    # the folded answers and tables too (not the code listings): a student who opens them reads them
    at = unfold(open_page(lesson.page), "Reveal", "Every", "These two models", "The language", strict=False)
    texts = visible_text(at)
    assert len(" ".join(texts)) > 500, "the page's text was not collected"
    found = later_concepts(lesson.slug, texts)
    assert not found, "\n".join(f"lesson {NUMBER[lesson.slug]} uses {c} (lesson {n}): {s!r}" for c, n, s in found)
