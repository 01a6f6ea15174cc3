"""Lesson: masking (Part 2)."""

from functools import partial

import streamlit as st

import ui
from lessons import masking
from lessons.masking import (
    causal,
    cheating,
    decoders,
    padding,
    side_by_side,
    train_yourself,
    training,
    translator,
    word_cipher,
)
from minimodels.attention import causal_mask, masked_softmax, padding_mask
from minimodels.small import TinyDecoder
from minimodels.tasks import get_task

lesson = ui.lesson("masking", masking.INTRO)
st.latex(masking.INTRO_EQUATION)

ui.symbols("masking")

# --- 1. Padding -------------------------------------------------------------------------------------------
ui.section(padding.TITLE, padding.TEXT)
padding_demo = ui.cached(padding.padding_attention, max_entries=64, show_spinner=False)


@st.fragment  # picking a sentence redraws its two maps only
def look_at(demo: padding.PaddingDemo) -> None:
    labels = demo.labels()
    index = min(st.session_state.get("masking.sentence", 0), len(labels) - 1)
    b = st.selectbox(
        "Sentence to look at", range(len(labels)), index=index, format_func=labels.__getitem__, key="masking.pick"
    )
    st.session_state["masking.sentence"] = b
    ui.plotly(padding.padding_pair_figure, demo, b, key="masking.padding.maps")  # both maps in one draw
    for column, masked in zip(st.columns(2), (False, True), strict=True):
        metrics = column.columns(2)
        metrics[0].metric("weight on <pad>, mean of the word rows", f"{demo.leak(b, masked):.3f}")
        metrics[1].metric("change in the words' outputs vs. alone", f"{demo.change_from_padding(masked)[b]:.1e}")
    st.markdown(demo.note(b))


@st.fragment
def batch_padding() -> None:
    batch = ui.checked_text(
        st.text_area,
        f"Your batch: one sentence per line (at most {padding.MAX_SENTENCES} sentences of {padding.MAX_WORDS} words)",
        padding.DEFAULT_SENTENCES,
        key="masking.sentences",
        parse=padding.parse_batch,
        keep="sentences",
        what="batch",
        ok_key="masking.batch",
        max_chars=padding.MAX_CHARS,
        height=110,
    )
    demo = padding_demo(batch)
    S = len(demo.tokens[0])
    st.markdown(f"Padded to **S = {S}** positions; the padding mask is True (1) where there is a real word:")
    cols = st.columns([3, 2])
    ui.table(demo.table(), container=cols[0])
    with cols[1]:
        ui.plotly(padding.padding_mask_figure, demo, key="masking.padding_mask")
    look_at(demo)


batch_padding()

# --- 2. The causal mask ------------------------------------------------------------------------------------
ui.section(causal.TITLE, causal.TEXT)
if not all(ui.pretrained(*decoders.PRETRAINED_KEYS[c]) for c in (True, False)):
    st.stop()
decoder_view = ui.cached(decoders.shipped_view, max_entries=64, show_spinner=False)


@st.fragment
def causal_demo(labels: list[str]) -> None:
    T = len(labels)
    cols = st.columns(2)
    with cols[0]:
        ui.plotly(causal.causal_mask_figure, labels, key="masking.causal_mask")
    with cols[1]:
        t = ui.linked(st.slider, "Query position", 1, T, 4, key="masking.position") - 1
        row = causal.causal_row(T, t)
        ui.table(row.table(labels), height=36 * (T + 1) + 3)
        st.caption(causal.causal_row_caption(row, labels[t], quote=ui.literal))


@st.fragment  # the word redraws sections 2 and 3 only
def on_the_word() -> None:
    word = ui.checked_text(
        st.text_input,
        f"Your word ({word_cipher.WORD} letters a–z)",
        word_cipher.PROBE,
        key="masking.word",
        parse=word_cipher.parse_word,
        keep="word",
        what="word",
        ok_key="masking.word_ok",
        max_chars=40,
    )
    normal, cheater = decoder_view(True, word), decoder_view(False, word)
    causal_demo(normal.inputs)
    ui.explain(causal.MAPS_TEXT)
    st.caption(causal.POSITIONS_NOTE)
    maps = [(causal.MAP_TITLES[c], view.attention) for c, view in ((True, normal), (False, cheater))]
    ui.plotly(side_by_side.pair_figure, maps, normal.inputs, normal.inputs, key="masking.decoder.maps")
    for column, (_, m) in zip(st.columns(2), maps, strict=True):
        column.metric("weight on later positions (mean of the rows)", f"{causal.future_weight(m):.3f}")
    st.caption(causal.maps_caption(normal, cheater))
    # --- 3. The cheating decoder -----------------------------------------------------------------------------
    ui.section(cheating.TITLE, cheating.CHEAT_TEXT)
    cheat_predictions = [cheating.floor_prediction()] + ([cheating.cheat_prediction(results)] if results else [])
    for prediction in cheat_predictions:
        ui.exercise(prediction)

    def answer() -> None:
        ui.table(cheating.outputs_table(normal, cheater))
        st.caption(cheating.outputs_caption(word, quote=ui.literal))
        if results is not None:
            ui.measured(
                results,
                rows=cheating.results_table(results),
                observations=[
                    *cheating.results_sentences(results),
                    cheating.floor_gap_sentence(results, cheating.shipped_loss_parts()),
                ],
                curves=partial(cheating.results_curves, results),
                key="masking.shipped",
                names=("loss", "exact"),
                note=cheating.provenance_note(results),
                axis_key="masking.axis",
            )

    ui.reveal(
        "the outputs and the measured results",
        answer,
        key="masking.reveal",
        predictions=2,
        after=[p.key for p in cheat_predictions],
    )


results = ui.shipped_results(lesson, loader=training.load_results)
on_the_word()

# --- 4. Train both yourself ----------------------------------------------------------------------------------
ui.section(train_yourself.TITLE, train_yourself.train_text())


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_both() -> None:
    c = st.columns([2, 1, 2])
    live_causal = c[0].radio("Decoder", [True, False], format_func=decoders.LABELS.get, key="masking.live_causal")
    live_seed = int(c[1].number_input("Seed", 0, 9999, 0, key="masking.seed"))
    budget = c[2].select_slider("Seconds of training", [5, 10, 20, 30, 60], value=20, key="masking.budget")
    panel_key = f"masking.train.{train_yourself.RUN_NAMES[live_causal]}"

    def draw(snapshot: train_yourself.MaskingProgress, key: str) -> None:
        cols = st.columns([1, 1, 3])
        cols[0].metric("teacher-forced accuracy", f"{snapshot.teacher_forced_accuracy:.1%}")
        cols[1].metric("free-running exact match", f"{snapshot.exact_match:.1%}")
        run = ui.current_run(panel_key)
        history = [s for s in run.snapshots if s.step <= snapshot.step] if run is not None else [snapshot]
        ui.vega(train_yourself.two_measures_chart(history), key=f"{key}.measures", container=cols[2])
        ui.plotly(train_yourself.snapshot_figure, snapshot, key=key)
        st.caption(f"Its cipher of {ui.literal(word_cipher.PROBE)}, generated: {ui.literal(snapshot.prediction)}")

    ui.training_panel(
        panel_key,
        lambda: train_yourself.new_run(live_causal, live_seed, budget),
        draw,
        budget_seconds=budget,
        target=train_yourself.LIVE_TARGET if live_causal else None,
        replay_frame=lambda snapshot: snapshot.attention,
    )


train_both()

# --- 5. What comes next: a translator's decoder, the shipped one or yours ----------------------------------------
ui.section(translator.TITLE, f"{translator.NEXT_TEXT} {translator.TRANSLATOR_TEXT}")


@st.fragment
def translator_section() -> None:
    if (loaded := ui.pretrained(*translator.TRANSLATOR)) is None:
        return
    model = ui.model_choice(loaded[0], None, key="masking.translator_use", own_data=translator.TRANSLATOR[1])
    # the shipped translator reads the course's task and sentence; the student's own, its own task and data
    reads = ui.model_data(model, get_task(translator.TRANSLATOR[0]), "toy", translator.TRANSLATOR_SENTENCE)
    st.caption(reads.caption or translator.translator_note(loaded[1]))
    key, c = f"masking.translator.{reads.name}", st.columns([3, 1])
    with c[0]:
        words = ui.sentence_input(
            "A sentence in the model's language", reads.text, key, translator.model_parser(reads.task)
        )
    layer = c[1].selectbox("Decoder layer", range(1, len(model.decoder_layers) + 1), key=f"{key}.layer") - 1
    view = ui.shared_view(translator.translator_view, model, reads.task, " ".join(words))
    if isinstance(view, str):
        st.warning(view)
        return
    st.text(f"Its translation: {view.translation}")
    m = st.columns(2)
    for column, (name, figure) in zip(m, translator.translator_figures(view, layer).items(), strict=True):
        with column:
            ui.plotly(figure, key=f"masking.translator.{name}")
    m[1].metric("weight on later positions (mean of the rows)", f"{view.future(layer):.3f}")
    m[0].metric("without the mask: layer 1's weight on later positions", f"{causal.future_weight(view.unmasked):.3f}")
    st.caption(translator.translator_caption(view, layer))


translator_section()

ui.page_tail(
    lesson,
    code=[
        ("The code that computes this", (masked_softmax, padding_mask, causal_mask, TinyDecoder)),
        ("The code of this page's examples", (padding.padding_attention, training.score, translator.translator_view)),
    ],
    exercises=masking.exercises(),
)
