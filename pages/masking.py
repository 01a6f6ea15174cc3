"""Lesson: masking (Part 2)."""

from functools import partial

import streamlit as st

import ui
from lessons import masking
from minimodels.attention import causal_mask, masked_softmax, padding_mask
from minimodels.small import TinyDecoder
from minimodels.tasks import get_task

lesson = ui.lesson("masking")
ui.explain(
    "The Transformer lecture's intuition for masking: *let the model only focus on what it should focus on.* "
    "Two masks do that. The **padding mask** sets “padded element attention to −inf”: sentences of different "
    "lengths share a batch by being padded to one length, and no word should attend to the padding. The "
    "**sequence mask** “bans the decoder from seeing future information” (set “future attention to −inf”): "
    "while it learns to predict word t + 1, the decoder must not read it. A mask adds −∞ to the scores it "
    "forbids; e^−∞ = 0, so the softmax gives them **exactly** zero weight and shares the rest among the "
    "allowed keys."
)
st.latex(
    r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)V,"
    r"\qquad M_{ij} = \begin{cases} 0 & \text{key } j \text{ allowed for query } i \\"
    r" -\infty & \text{masked} \end{cases}"
)

# --- 1. Padding -------------------------------------------------------------------------------------------
ui.section(
    "1 · The padding mask",
    "A batch is one tensor, so its sentences are padded with `<pad>` to the longest one's length. The padding "
    "is a token like any other to the attention: it has an embedding, hence a key, and without a mask it takes "
    "a share of every row's weight. Worse, how much padding a sentence gets depends on *which other sentences "
    "share its batch*, so its result would too. Q, K and V below are the Q/K/V lesson's (a fixed random "
    "vector per word, seeded random W^Q, W^K, W^V): the mechanism, not a trained model.",
)
padding_demo = ui.cached(masking.padding_attention, max_entries=64, show_spinner=False)


@st.fragment  # picking a sentence redraws its two maps only
def look_at(demo: masking.PaddingDemo) -> None:
    labels = demo.labels()
    index = min(st.session_state.get("masking.sentence", 0), len(labels) - 1)
    b = st.selectbox(
        "Sentence to look at", range(len(labels)), index=index, format_func=labels.__getitem__, key="masking.pick"
    )
    st.session_state["masking.sentence"] = b
    ui.plotly(masking.padding_pair_figure, demo, b, key="masking.padding.maps")  # both maps in one draw
    for column, masked in zip(st.columns(2), (False, True), strict=True):
        metrics = column.columns(2)
        metrics[0].metric("weight on <pad>, mean of the word rows", f"{demo.leak(b, masked):.3f}")
        metrics[1].metric("change in the words' outputs vs. alone", f"{demo.change_from_padding(masked)[b]:.1e}")
    st.markdown(demo.note(b))


@st.fragment
def padding() -> None:
    batch = ui.checked_text(
        st.text_area,
        f"Your batch: one sentence per line (at most {masking.MAX_SENTENCES} sentences of {masking.MAX_WORDS} words)",
        masking.DEFAULT_SENTENCES, key="masking.sentences", parse=masking.parse_batch, keep="sentences", what="batch",
        ok_key="masking.batch", max_chars=masking.MAX_CHARS, height=110,
    )  # fmt: skip
    demo = padding_demo(batch)
    S = len(demo.tokens[0])
    st.markdown(f"Padded to **S = {S}** positions; the padding mask is True (1) where there is a real word:")
    cols = st.columns([3, 2])
    ui.table(demo.table(), container=cols[0])
    with cols[1]:
        ui.plotly(masking.padding_mask_figure, demo, key="masking.padding_mask")
    look_at(demo)


padding()

# --- 2. The causal mask ------------------------------------------------------------------------------------
ui.section(
    "2 · The sequence (causal) mask",
    "A decoder predicts the next token at every position, all positions at once: its input is the sequence and its "
    "target the same sequence shifted by one. Position t's target is position t + 1's input. So query i may attend "
    "to keys j ≤ i only: the mask is the lower triangle. Here on sequences like “word=cipher” (section 3).",
)
if not all(ui.pretrained(*masking.PRETRAINED_KEYS[causal]) for causal in (True, False)):
    st.stop()
decoder_view = ui.cached(masking.shipped_view, max_entries=64, show_spinner=False)


@st.fragment
def causal_demo(labels: list[str]) -> None:
    T = len(labels)
    cols = st.columns(2)
    with cols[0]:
        ui.plotly(masking.causal_mask_figure, labels, key="masking.causal_mask")
    with cols[1]:
        t = ui.linked(st.slider, "Query position", 1, T, 4, key="masking.position") - 1
        row = masking.causal_row(T, t)
        ui.table(row.table(labels), height=36 * (T + 1) + 3)
        st.caption(masking.causal_row_caption(row, labels[t], quote=ui.literal))


@st.fragment  # the word redraws sections 2 and 3 only
def on_the_word() -> None:
    word = ui.checked_text(
        st.text_input, f"Your word ({masking.WORD} letters a–z)", masking.PROBE, key="masking.word",
        parse=masking.parse_word, keep="word", what="word", ok_key="masking.word_ok", max_chars=40,
    )  # fmt: skip
    normal, cheater = decoder_view(True, word), decoder_view(False, word)
    causal_demo(normal.inputs)
    ui.explain(masking.MAPS_TEXT)
    st.caption(masking.POSITIONS_NOTE)
    maps = [(masking.MAP_TITLES[c], view.attention) for c, view in ((True, normal), (False, cheater))]
    ui.plotly(masking.pair_figure, maps, normal.inputs, normal.inputs, key="masking.decoder.maps")
    for column, (_, m) in zip(st.columns(2), maps, strict=True):
        column.metric("weight on later positions (mean of the rows)", f"{masking.future_weight(m):.3f}")
    st.caption(masking.maps_caption(normal, cheater))
    # --- 3. The cheating decoder -----------------------------------------------------------------------------
    ui.section("3 · The cheating decoder", masking.CHEAT_TEXT)
    ui.exercise(masking.floor_prediction())
    if results is not None:
        ui.exercise(masking.cheat_prediction(results))

    def answer() -> None:
        ui.table(masking.outputs_table(normal, cheater))
        st.caption(masking.outputs_caption(word, quote=ui.literal))
        if results is not None:
            ui.measured(
                results, rows=masking.results_table(results), observations=masking.results_sentences(results),
                curves=partial(masking.results_curves, results), key="masking.shipped", names=("loss", "exact"),
                note=masking.provenance_note(results), axis_key="masking.axis",
            )  # fmt: skip

    ui.reveal("the outputs and the measured results", answer, key="masking.reveal", predictions=2)


results = ui.shipped_results(lesson)
on_the_word()

# --- 4. Train both yourself ----------------------------------------------------------------------------------
ui.section("4 · Train both yourself", masking.train_text())


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([2, 1, 2])
    live_causal = c[0].radio("Decoder", [True, False], format_func=masking.LABELS.get, key="masking.live_causal")
    live_seed = int(c[1].number_input("Seed", 0, 9999, 0, key="masking.seed"))
    budget = c[2].select_slider("Seconds of training", [5, 10, 20, 30, 60], value=20, key="masking.budget")
    panel_key = f"masking.train.{masking.RUN_NAMES[live_causal]}"

    def draw(snapshot: masking.MaskingProgress, key: str) -> None:
        cols = st.columns([1, 1, 3])
        cols[0].metric("teacher-forced accuracy", f"{snapshot.teacher_forced_accuracy:.1%}")
        cols[1].metric("free-running exact match", f"{snapshot.exact_match:.1%}")
        run = ui.current_run(panel_key)
        history = [s for s in run.snapshots if s.step <= snapshot.step] if run is not None else [snapshot]
        ui.vega(masking.two_measures_chart(history), key=f"{key}.measures", container=cols[2])
        ui.plotly(masking.snapshot_figure, snapshot, key=key)
        st.caption(f"Its cipher of {ui.literal(masking.PROBE)}, generated: {ui.literal(snapshot.prediction)}")

    ui.training_panel(
        panel_key, lambda: masking.new_run(live_causal, live_seed, budget), draw, budget_seconds=budget,
        target=masking.LIVE_TARGET if live_causal else None, replay_frame=lambda snapshot: snapshot.attention,
    )  # fmt: skip


train_yourself()

# --- 5. What comes next: a translator's decoder, the shipped one or yours ----------------------------------------
ui.section("5 · Next: the decoder that reads a source", f"{masking.NEXT_TEXT} {masking.TRANSLATOR_TEXT}")


@st.fragment
def translator() -> None:
    if (loaded := ui.pretrained(*masking.TRANSLATOR)) is None:
        return
    model = ui.model_choice(loaded[0], None, key="masking.translator_use", own_data=masking.TRANSLATOR[1])
    reads = ui.model_data(model, get_task(masking.TRANSLATOR[0]), "toy", masking.TRANSLATOR_SENTENCE)  # yours: yours
    st.caption(reads.caption or masking.translator_note(loaded[1]))
    key, c = f"masking.translator.{reads.name}", st.columns([3, 1])
    with c[0]:
        words = ui.sentence_input(
            "A sentence in the model's language", reads.text, key, masking.model_parser(reads.task)
        )
    layer = c[1].selectbox("Decoder layer", range(1, len(model.decoder_layers) + 1), key=f"{key}.layer") - 1
    view = ui.shared_view(masking.translator_view, model, reads.task, " ".join(words))
    if isinstance(view, str):
        st.warning(view)
        return
    st.text(f"Its translation: {view.translation}")
    for column, (name, figure) in zip(m := st.columns(2), masking.translator_figures(view, layer).items(), strict=True):
        with column:
            ui.plotly(figure, key=f"masking.translator.{name}")
    m[1].metric("weight on later positions (mean of the rows)", f"{view.future(layer):.3f}")
    m[0].metric("without the mask: layer 1's weight on later positions", f"{masking.future_weight(view.unmasked):.3f}")
    st.caption(masking.translator_caption(view, layer))


translator()

ui.page_tail(
    lesson,
    code=[("The code that computes this", (masked_softmax, padding_mask, causal_mask, TinyDecoder)),
          ("The code of this page's examples", (masking.padding_attention, masking.score, masking.translator_view))],
    exercises=masking.exercises(),
)  # fmt: skip
