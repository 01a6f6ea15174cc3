"""The course's order holds: no lesson page uses a concept that the catalog says a *later* lesson introduces.

Every lesson page is opened under AppTest and its visible text collected (markdown, captions, headers, widget labels
and options, metric labels, expander labels, table column names, chart titles; the sidebar's course map and the code
expanders are not prose). A sentence that names a later lesson's concept fails the test unless it is a forward
pointer: it names the lesson that teaches it ("… in lesson 9", "lesson 10 adds …"), and one such pointer covers the
page's other uses of that concept (the student has been told where it is taught). The concepts and the words that
signal them are listed in :data:`SIGNALS`; each must be one the catalog's ``introduces`` declares, and every concept
the catalog introduces must have its words (or a reason in :data:`UNSIGNALLED`), so the map follows the catalog when
lessons move or a lesson is added.
"""

from __future__ import annotations

import re

import pytest

from lessons.common import catalog
from tests.helpers import PROSE_ELEMENTS, WIDGET_KINDS, chart_titles, plotly_specs, read_as_student, vega_specs

# concept (as the catalog's ``introduces`` names it) -> the words that signal it on a page. Where a word is also
# ordinary English ("value" as a number, "key" in "key point", "window", "chain rule", "scaled by tanh′"), the
# signal is its technical use; "the Transformer lecture" is the lecture's name, not the model.
SIGNALS: dict[str, tuple[str, ...]] = {
    "recurrence": (r"\brecurren(ce|t)\b",),
    "rnn": (r"\bRNNs?\b",),
    "gru": (r"\bGRUs?\b",),
    "lstm": (r"\bLSTMs?\b",),
    "encoder": (r"\bencoders?\b",),
    "decoder": (r"\bdecoders?\b",),
    "context vector": (r"\bcontext vectors?\b",),
    "bidirectional encoder": (r"\bbidirectional\b",),
    "pooling": (r"\bpool(ing|ed)\b", r"\bmean-pooled\b"),
    # the idea, not its later variants (self-attention, cross-attention: lessons of their own)
    "attention": (
        r"(?<!self-)(?<!cross-)(?<!linear )(?<!pay )(?<!pays )(?<!paid )(?<!paying )\battention\b",
        r"\battend(s|ed|ing)?\b",
    ),
    "additive score": (r"\badditive (score|attention)", r"\bBahdanau\b"),
    "alignment": (r"\balign(ment|ments|s|ed)?\b",),
    "cross-attention": (r"\bcross-?attention\b", r"\bencoder[–-]decoder attention\b"),
    "dot score": (r"\bdot[- ]product (score|attention)", r"\bdot score"),
    "bilinear score": (r"\bbilinear\b",),
    "scaled dot score": (r"\bscaled dot",),
    "query": (r"\bquer(y|ies)\b",),
    "key": (r"\bkeys?\b(?![- ](points?|ideas?|steps?|facts?|questions?|differences?)\b)",),
    "value": (
        r"\b(keys?|quer(y|ies))(,| and| or) values?\b",
        r"\bvalues? (vectors?|matrix|matrices)\b",
        r"\bsum of (the )?values\b",
        r"\b(the )?values (are|=) (the )?keys\b",
        r"\bkeys are (the )?values\b",
    ),
    "self-attention": (r"\bself-?attention\b",),
    # the lesson's name for dividing by √d_k; lesson 4's scaled dot score (q·k/√d) is its own concept
    "scaling": (r"\bscaling\b", r"\bscal(e|ed|es) by √", r"\bdivid(e|ed|es|ing) by √d"),
    "padding mask": (r"\bpadding mask", r"\bpad(ding)? tokens? (are|is) masked"),
    "causal mask": (r"\bcausal\b", r"\bsequence mask\b", r"\bmask(s|ed|ing)?\b"),
    "teacher forcing": (r"\bteacher[- ]forc",),
    "positional encoding": (r"\bpositional (encoding|embedding)s?\b", r"\bposition (vectors?|encodings?)\b"),
    "heads": (r"\bheads?\b", r"\bmulti-?head"),
    "multi-head attention": (r"\bmulti-?head",),
    "residual": (r"\bresidual (connection|stream|block|path)s?\b", r"\bskip connection"),
    "layer norm": (r"\blayer ?norm", r"\blayer normali[sz]ation\b"),
    # the Transformer's block, not the lecture's "standard (feed-forward) network" of lesson 1 (an MLP in general)
    "feed-forward": (r"\bfeed-?forward (block|sublayer|layer)s?\b", r"\bposition-?wise feed-?forward", r"\bFFN\b"),
    "transformer": (r"\bTransformers?\b(?!'s lecture| lecture| Circuits)",),
    "layer chains": (r"\blayer[- ]chains?\b",),
    "attention bridge": (r"\battention bridge",),
    "zero-shot": (r"\bzero-?shot",),
    "rotary position embedding": (r"\bRoPE\b", r"\brotary (position )?embeddings?\b"),
    "alibi": (r"\bALiBi\b",),
    "length extrapolation": (r"\bextrapolat\w*",),
    "kv cache": (r"\bKV[- ]cache", r"\bkey[–-]value cache", r"\bcach(e|es|ed|ing) (the |its )?keys"),
    "sliding window": (r"\bsliding[- ]window",),
    "linear attention": (r"\blinear attention\b",),
    "induction head": (r"\binduction heads?\b",),
    "previous-token head": (r"\bprevious[- ]token heads?\b",),
    "in-context learning": (r"\bin-context (learning|accuracy)\b",),
    "head knock-out": (r"\bknock(ed|ing)?[- ]?outs?\b",),
    "attention as explanation": (r"\battention (is|as) (not )?(an )?explanation",),
    "weight permutation": (
        r"\bweights? permutation",
        r"\bpermut(e|ed|es|ing|ation)s? (a head's |its |the )?(attention )?weights\b",
    ),
    # a token's importance by leaving it out, not the bridge lab's study that leaves a language pair out
    "leave-one-out importance": (r"\bleave-one-out (importance|score|ranking)s?\b", r"\bleave-one-token-out\b"),
    "rank correlation": (r"\bKendall\b", r"\brank correlation\b"),
}

# Concepts the catalog introduces that no word on a page could signal early, each with the reason (none today: every
# concept has its words above, and a new lesson's concepts need theirs, or an entry here that says why not).
UNSIGNALLED: dict[str, str] = {}

# Concepts whose bare name is also ordinary English, so their signals match only the technical use and not the name.
ORDINARY_NAMES = {"value", "feed-forward", "residual"}

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
    ``slug`` introduces, where no sentence of the page points forward to that lesson while using it (one sentence
    that names the concept and its lesson covers the page's other uses: the student has been told where it is
    taught)."""
    here, uses, pointed = NUMBER[slug], [], set()
    for text in texts:
        for sentence in sentences(text):
            for concept, words in SIGNALS.items():
                taught = INTRODUCED[concept]
                if taught <= here or not any(re.search(w, sentence, flags=re.IGNORECASE) for w in words):
                    continue
                if points_forward(sentence, taught):
                    pointed.add(concept)
                else:
                    uses.append((concept, taught, sentence))
    return [use for use in uses if use[0] not in pointed]


def visible_text(at) -> list[str]:
    """What a student reads on the page's main area (not the sidebar's course map, not the code listings)."""
    main = at.main
    texts = [e.value for kind in PROSE_ELEMENTS for e in getattr(main, kind)]
    for kind in WIDGET_KINDS:
        for widget in getattr(main, kind):
            texts.append(widget.label)
            texts += [str(o) for o in getattr(widget, "options", [])]
    texts += [m.label for m in main.metric]
    texts += [e.label for e in main.expander]
    texts += [" | ".join(str(c) for c in frame.value.columns) for frame in main.dataframe]
    for spec in plotly_specs(at) + vega_specs(at):
        texts += chart_titles(spec)
    return [t for t in texts if isinstance(t, str)]


def test_every_signalled_concept_is_one_the_catalog_introduces():
    assert set(SIGNALS) <= set(INTRODUCED), set(SIGNALS) - set(INTRODUCED)


def test_every_concept_the_catalog_introduces_has_signal_words_or_a_reason_it_has_none():
    missing = set(INTRODUCED) - set(SIGNALS) - set(UNSIGNALLED)
    assert not missing, (
        f"give {sorted(missing)} the words that signal them on a page in SIGNALS (or, where no word could, a reason "
        "in UNSIGNALLED): the order test knows only the concepts it can see"
    )
    assert not set(SIGNALS) & set(UNSIGNALLED)
    assert all(reason.strip() for reason in UNSIGNALLED.values())


def test_each_concept_is_signalled_by_its_own_name_unless_that_name_is_ordinary_english():
    for concept, words in SIGNALS.items():
        assert words, concept
        named = any(re.search(w, concept, flags=re.IGNORECASE) for w in words)
        assert named == (concept not in ORDINARY_NAMES), concept


@pytest.mark.parametrize(
    ("concept", "technical", "ordinary"),
    [
        ("value", "the weighted sum of the values", "Hover a cell for its exact value."),
        ("value", "each key and value comes from the same word", "Values as a table, CSV, JSON"),
        ("key", "score each key against the query", "The key point is the gap."),
        ("attention", "the decoder attends to every state", "Pay attention to the gap."),
        ("transformer", "a shipped Transformer reads your sentence", "the Transformer lecture's slide"),
        ("scaling", "scaling by √d_k keeps the spread", "each factor is W_aa scaled by tanh′"),
        ("sliding window", "a sliding window of w keys", "a standard network reads a window of T words"),
        ("layer chains", "the lab's layer chains", "by the chain rule"),
        ("previous-token head", "layer 1's previous-token head", "it is fed the correct previous token"),
        ("teacher forcing", "scored teacher forced", "the teacher hands out the link"),
        ("leave-one-out importance", "a token's leave-one-out importance", "the leave-one-out study drops en ↔ fr"),
    ],
)
def test_a_signal_matches_the_technical_use_and_not_the_ordinary_word(concept, technical, ordinary):
    def signals(sentence: str) -> bool:
        return any(re.search(w, sentence, flags=re.IGNORECASE) for w in SIGNALS[concept])

    assert signals(technical) and not signals(ordinary)


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


def test_one_pointer_on_a_page_covers_its_other_uses_of_that_concept_only():
    heads = NUMBER["multi_head_attention"]
    pointer = f"Heads come in lesson {heads}."
    assert later_concepts("masking", [pointer, "Each of the four heads looks elsewhere."]) == []
    assert later_concepts("masking", ["Each of the four heads looks elsewhere.", pointer]) == []  # a table's caption
    left = later_concepts("masking", [pointer, "Each head sits on a residual connection."])
    assert [concept for concept, _, _ in left] == ["residual"]
    assert later_concepts("scaling", [pointer, "Each of the four heads looks elsewhere."]) == []
    assert later_concepts("scaling", ["Heads come in lesson 3.", "Each of the four heads looks elsewhere."])


def test_teacher_forcing_is_a_concept_the_catalog_introduces():
    assert "teacher forcing" in INTRODUCED


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.slug for lesson in LESSONS])
def test_no_page_uses_a_concept_a_later_lesson_introduces(lesson):
    # the folded answers and tables too (not the code listings): a student who opens them reads them
    texts = visible_text(read_as_student(lesson.page))
    assert len(" ".join(texts)) > 500, "the page's text was not collected"
    found = later_concepts(lesson.slug, texts)
    assert not found, "\n".join(f"lesson {NUMBER[lesson.slug]} uses {c} (lesson {n}): {s!r}" for c, n, s in found)
