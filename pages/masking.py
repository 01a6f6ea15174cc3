"""Lesson: masking (Part 2)."""

import streamlit as st

import ui
from lessons import masking
from lessons.common import charts
from lessons.common.live import TrainingRun
from minimodels.attention import causal_mask, masked_softmax, padding_mask
from minimodels.transformer import TinyTransformer

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
st.header("1 · The padding mask", divider="gray")
ui.explain(
    "A batch is one tensor, so its sentences are padded with `<pad>` to the longest one's length. The padding "
    "is a token like any other to the attention: it has an embedding, hence a key, and without a mask it takes "
    "a share of every row's weight. Worse, how much padding a sentence gets depends on *which other sentences "
    "share its batch*, so its result would too. Q, K and V below are the Q/K/V lesson's (a fixed random "
    "vector per word, seeded random W^Q, W^K, W^V): the mechanism, not a trained model."
)
padding_demo = st.cache_data(max_entries=64, show_spinner=False)(masking.padding_attention)


@st.fragment  # picking a sentence redraws its two maps only
def look_at(demo: masking.PaddingDemo) -> None:
    labels = demo.labels()
    index = min(st.session_state.get("masking.sentence", 0), len(labels) - 1)
    b = st.selectbox(
        "Sentence to look at", range(len(labels)), index=index, format_func=labels.__getitem__, key="masking.pick"
    )
    st.session_state["masking.sentence"] = b
    maps = [("padding mask OFF: weight leaks onto <pad>", demo.weights_off[b]),
            ("padding mask ON: <pad> columns exactly 0", demo.weights_on[b])]  # fmt: skip
    ui.plotly(masking.pair_figure(maps, demo.tokens[b], demo.tokens[b]), key="masking.padding.maps")  # one draw
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
    S, rows = len(demo.tokens[0]), [f"sentence {b + 1}" for b in range(len(demo.tokens))]
    st.markdown(f"Padded to **S = {S}** positions; the padding mask is True (1) where there is a real word:")
    cols = st.columns([3, 2])
    cols[0].dataframe(demo.table(), hide_index=True)
    mask_map = charts.attention_heatmap(demo.mask.float(), [str(j + 1) for j in range(S)], rows,
                                        title="padding_mask(lengths, S)", value_name="allowed", x_title="position",
                                        y_title="sentence", height=160 + 34 * len(rows))  # fmt: skip
    with cols[1]:
        ui.plotly(mask_map, key="masking.padding_mask")
    look_at(demo)


padding()

# --- 2. The causal mask ------------------------------------------------------------------------------------
st.header("2 · The sequence (causal) mask", divider="gray")
ui.explain(
    "A decoder is trained with **teacher forcing**: its input is the gold output shifted right (`<s>` then the "
    "target), and at every position it predicts the next token, all positions at once. Position t's input row "
    "is the answer to position t − 1. So query i may attend to keys j ≤ i only: the mask is the lower triangle. "
    "Here on the dates task (“Sunday, November 22, 2026” → “2026-11-22”, character by character)."
)


@st.cache_resource(show_spinner="Loading the two pretrained decoders…")
def decoders() -> dict:
    """Shared read-only by every student: never trained or modified."""
    return {causal: masking.load_model(causal)[0] for causal in (True, False)}


@st.cache_data(max_entries=64, show_spinner=False)
def decoder_view(causal: bool, index: int) -> masking.DecoderView:
    return masking.look(decoders()[causal], masking.examples()[index])


try:
    decoders()
except (FileNotFoundError, ValueError) as error:
    st.error(f"The pretrained decoders cannot be loaded: {error}")
    st.stop()


@st.fragment
def causal_demo(normal: masking.DecoderView, T: int, example_index: int) -> None:
    cols = st.columns(2)
    with cols[0]:
        ui.plotly(charts.attention_heatmap(causal_mask(T).float(), normal.inputs, normal.inputs,
                                           title=f"causal_mask({T}): 1 = allowed", value_name="allowed"),
                  key="masking.causal_mask")  # fmt: skip
    with cols[1]:
        t = ui.linked(st.slider, "Query position", 1, T, 4, key="masking.position", help="1 is <s>.") - 1
        row = masking.causal_row(T, t, seed=example_index)
        st.dataframe(row.table(normal.inputs), hide_index=True, height=36 * (T + 1) + 3)
        st.caption(
            f"Random scores (seeded) for query {t + 1} ({ui.literal(normal.inputs[t])}): keys after it get −∞ and "
            "then weight exactly 0; the allowed ones share all of it."
        )


@st.fragment
def trained_maps(normal: masking.DecoderView, cheater: masking.DecoderView) -> None:
    cols = st.columns(2)
    layers = sorted(normal.self_attention)
    layer = ui.linked(cols[0].radio, "Decoder layer", layers, index=len(layers) - 1, horizontal=True,
                      key="masking.layer", format_func=lambda i: f"layer {i + 1}")  # fmt: skip
    head = ui.linked(
        cols[1].selectbox, "Head", [None, *range(normal.self_attention[layer].shape[0])], key="masking.head",
        format_func=lambda h: "mean of the heads" if h is None else f"head {h + 1}",
    )  # fmt: skip
    maps = [(masking.LABELS[c], masking.head_map(view, layer, head)) for c, view in ((True, normal), (False, cheater))]
    ui.plotly(masking.pair_figure(maps, normal.inputs, normal.inputs), key="masking.decoder.maps")
    for column, (_, m) in zip(st.columns(2), maps, strict=True):
        column.metric("weight on later positions (mean of the rows)", f"{masking.future_weight(m):.3f}")


@st.fragment  # the example redraws sections 2 and 3 only; its own controls, their figures only
def on_the_example() -> None:
    choices = masking.examples()
    example_index = ui.linked(
        st.selectbox,
        "Example", range(len(choices)), format_func=lambda i: f"{choices[i].source} → {choices[i].target}",
        key="masking.example",
    )  # fmt: skip
    normal, cheater = decoder_view(True, example_index), decoder_view(False, example_index)
    causal_demo(normal, len(normal.inputs), example_index)
    ui.explain(
        "**On a trained decoder.** Two Transformers, the same size, trained on dates: one with the causal mask, "
        "one without (the *cheating decoder*). Their decoder self-attention on the example above, teacher forced. "
        "Rows: the position reading; columns: the position read."
    )
    trained_maps(normal, cheater)
    # --- 3. The cheating decoder -----------------------------------------------------------------------------
    st.header("3 · The cheating decoder", divider="gray")
    ui.explain(
        "Without the mask, position t can read position t + 1 of its own input, which under teacher forcing **is** "
        "the token it must predict. Training finds that shortcut within a hundred steps: the loss drops to nearly "
        "zero and teacher-forced accuracy to 100%. Then ask it to *generate*: each step now reads only what it has "
        "written so far, the future it learned to copy does not exist, and the dates come out wrong."
    )
    st.dataframe(masking.outputs_table(normal, cheater), hide_index=True, width="stretch")
    st.caption(
        f"The example {ui.literal(normal.source)}. Teacher forced, each character is predicted from the gold "
        "characters before it (and, for the cheater, after it); generating, from the model's own."
    )


on_the_example()

results = ui.shipped_results(lesson)
if results is not None:
    st.markdown(masking.results_intro(results))
    st.dataframe(masking.results_table(results), hide_index=True, width="stretch")
    commands = "; ".join(ui.literal(command) for command in masking.train_commands(results))
    ui.provenance(
        results.meta,
        note="One run of each shipped model (n = 1): a description of these two decoders. Token accuracy: share of "
        "output characters (the end-of-sequence included) right; exact match: share of dates with every character "
        "right. Teacher forced: fed the gold prefix; free-running: fed its own output, greedily (what "
        f"`minimodels.train.evaluate` and the training curves report). Torch {results.meta.get('torch', '?')}; the "
        f"models were trained with {commands}.",
    )

# --- 4. Train both yourself ----------------------------------------------------------------------------------
st.header("4 · Train both yourself", divider="gray")
ui.explain(
    "Train a fresh dates Transformer for you alone, with or without the causal mask, then the other one. Every "
    f"{masking.LIVE_REPORT_EVERY} steps the same 200 held-out dates are scored both ways, teacher-forced token "
    "accuracy and free-running exact match (the chart under the curves). With the mask the two "
    f"climb together (it stops at {masking.LIVE_TARGET:.0%} exact match); without it the loss collapses, "
    "teacher-forced accuracy races to 100% and exact match stays near 0."
)


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([2, 1, 2])
    live_causal = c[0].radio("Decoder", [True, False], format_func=masking.LABELS.get, key="masking.live_causal")
    live_seed = int(c[1].number_input("Seed", 0, 9999, 0, key="masking.seed"))
    budget = c[2].select_slider("Seconds of training", [5, 10, 20, 30, 60], value=30, key="masking.budget")
    panel_key = f"masking.train.{'causal' if live_causal else 'cheat'}"

    def make_run() -> TrainingRun:
        fresh, train_fn = masking.new_training(live_causal, live_seed, float(budget))
        return TrainingRun(train_fn, model=fresh, name=f"masking-{'causal' if live_causal else 'cheat'}")

    def draw(snapshot: masking.MaskingProgress, key: str) -> None:
        cols = st.columns([1, 1, 3])
        cols[0].metric("teacher-forced token accuracy", f"{snapshot.teacher_forced_accuracy:.1%}")
        cols[1].metric("free-running exact match", f"{snapshot.exact_match:.1%}")
        run = ui.current_run(panel_key)
        history = [s for s in run.snapshots if s.step <= snapshot.step] if run is not None else [snapshot]
        ui.vega(masking.two_measures_chart(history), key=f"{key}.measures", container=cols[2])
        weights, labels = masking.snapshot_map(snapshot)
        title = f"decoder self-attention (last layer, heads averaged) at step {snapshot.step}"
        ui.plotly(charts.attention_heatmap(weights, labels, labels, title=title), key=key)
        st.caption(f"Its output for {ui.literal(masking.examples()[0].source)} now: {ui.literal(snapshot.prediction)}")

    ui.training_panel(
        panel_key, make_run, draw, budget_seconds=budget, target=masking.LIVE_TARGET if live_causal else None,
        replay_frame=lambda snapshot: masking.snapshot_map(snapshot)[0],
    )  # fmt: skip


train_yourself()

ui.page_tail(
    lesson,
    code=[("The code that computes this", (masked_softmax, padding_mask, causal_mask, TinyTransformer.decode)),
          ("The code of this page's examples", (masking.padding_attention, masking.measure))],
    exercises=masking.exercises(results),
)  # fmt: skip
