"""Lesson: masking (Part 2)."""

from pathlib import Path

import streamlit as st

import ui
from lessons import masking
from lessons.common import charts
from lessons.common.live import TrainingRun
from minimodels.attention import causal_mask, masked_softmax, padding_mask
from minimodels.transformer import TinyTransformer

ui.page("Masking", icon="🎭")

st.title("Masking")
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


def heatmap(weights, x_labels, y_labels, title: str, key: str, value_name: str = "weight", **kwargs) -> None:
    ui.plotly(
        charts.attention_heatmap(weights, x_labels, y_labels, title=title, value_name=value_name, **kwargs), key=key
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


@st.cache_data(max_entries=64, show_spinner=False)
def padding_demo(sentences: tuple[tuple[str, ...], ...]) -> masking.PaddingDemo:
    return masking.padding_attention(sentences)


@st.fragment  # picking a sentence redraws its two maps only
def look_at(demo: masking.PaddingDemo) -> None:
    labels = [f"{b + 1}: {' '.join(s)}" for b, s in enumerate(demo.sentences)]
    index = min(st.session_state.get("masking.sentence", 0), len(labels) - 1)
    b = st.selectbox(
        "Sentence to look at", range(len(labels)), index=index, format_func=labels.__getitem__, key="masking.pick"
    )
    st.session_state["masking.sentence"] = b
    tokens = demo.tokens[b]
    maps = [("padding mask OFF: weight leaks onto <pad>", demo.weights_off[b]),
            ("padding mask ON: <pad> columns exactly 0", demo.weights_on[b])]  # fmt: skip
    ui.plotly(masking.pair_figure(maps, tokens, tokens), key="masking.padding.maps")  # one figure: one draw
    cols = st.columns(2)
    for column, masked in zip(cols, (False, True), strict=True):
        with column:
            real = demo.mask[b]
            leak = demo.pad_weight(masked)[b][real]  # the real words' rows
            change = demo.change_from_padding(masked)[b]
            metrics = st.columns(2)
            metrics[0].metric("weight on <pad>, mean of the word rows", f"{float(leak.mean()):.3f}")
            metrics[1].metric("change in the words' outputs vs. alone", f"{change:.1e}")
    pads = len(tokens) - int(demo.lengths[b])  # every sentence is padded to the batch's length S
    if pads:
        st.markdown(
            f"This sentence carries **{pads}** `<pad>`. With the mask, each `<pad>` column is exactly 0 and the "
            "words' outputs equal the sentence attended alone, up to float rounding (≈10⁻⁷). Without it they "
            "differ: the result depends on the batch. The `<pad>` *rows* are computed either way and thrown "
            "away (the training loss ignores them)."
        )
    else:
        st.markdown(
            "This sentence is the longest, so it has no padding and both maps are the same. Pick a shorter one, "
            "or add a longer sentence to the batch and watch this one get padded."
        )


@st.fragment
def padding() -> None:
    st.session_state.setdefault("masking.batch", masking.parse_batch(masking.DEFAULT_SENTENCES).sentences)
    text = ui.linked(
        st.text_area,
        f"Your batch: one sentence per line (at most {masking.MAX_SENTENCES} sentences of {masking.MAX_WORDS} words)",
        value=masking.DEFAULT_SENTENCES,
        key="masking.sentences",
        max_chars=masking.MAX_CHARS,
        height=110,
    )
    parsed = masking.parse_batch(text)
    if parsed.error:
        st.warning(f"{parsed.error} Showing the last batch that worked.")
    else:
        st.session_state["masking.batch"] = parsed.sentences
    demo = padding_demo(st.session_state["masking.batch"])
    S = len(demo.tokens[0])
    st.markdown(f"Padded to **S = {S}** positions; the padding mask is True (1) where there is a real word:")
    rows = [f"sentence {b + 1}" for b in range(len(demo.tokens))]
    cols = st.columns([3, 2])
    cols[0].dataframe(
        {"": rows, **{f"position {j + 1}": [row[j] for row in demo.tokens] for j in range(S)}}, hide_index=True
    )
    with cols[1]:
        heatmap(demo.mask.float(), [str(j + 1) for j in range(S)], rows, "padding_mask(lengths, S)",
                "masking.padding_mask", value_name="allowed", x_title="position", y_title="sentence",
                height=160 + 34 * len(rows))  # fmt: skip
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
def pretrained(causal: bool):
    """Shared read-only by every student: never trained or modified."""
    return masking.load_model(causal)


@st.cache_data(max_entries=64, show_spinner=False)
def decoder_view(causal: bool, index: int) -> masking.DecoderView:
    model, _ = pretrained(causal)
    return masking.look(model, masking.examples()[index])


try:
    for causal in (True, False):
        pretrained(causal)
except (FileNotFoundError, ValueError) as error:
    st.error(f"The pretrained decoders cannot be loaded: {error}")
    st.stop()


@st.fragment
def causal_demo(normal: masking.DecoderView, T: int, example_index: int) -> None:
    cols = st.columns(2)
    with cols[0]:
        heatmap(causal_mask(T).float(), normal.inputs, normal.inputs, f"causal_mask({T}): 1 = allowed",
                "masking.causal_mask", value_name="allowed")  # fmt: skip
    with cols[1]:
        t = ui.linked(st.slider, "Query position", 1, T, 4, key="masking.position", help="1 is <s>.") - 1
        row = masking.causal_row(T, t, seed=example_index)
        st.dataframe(
            {
                "key": [f"{j + 1}: {tok}" for j, tok in enumerate(normal.inputs)],
                "score": [f"{v:.2f}" for v in row.scores.tolist()],
                "future → −∞": [f"{v:.2f}" for v in row.masked_scores.tolist()],
                "softmax": [f"{v:.3f}" for v in row.weights.tolist()],
            },
            hide_index=True,
            height=36 * (T + 1) + 3,
        )
        st.caption(
            f"Random scores (seeded) for query {t + 1} ({ui.literal(normal.inputs[t])}): keys after it get −∞ and "
            "then weight exactly 0; the allowed ones share all of it."
        )


@st.fragment
def trained_maps(normal: masking.DecoderView, cheater: masking.DecoderView) -> None:
    cols = st.columns(2)
    layers = sorted(normal.self_attention)
    layer = ui.linked(
        cols[0].radio,
        "Decoder layer",
        layers,
        index=len(layers) - 1,
        horizontal=True,
        key="masking.layer",
        format_func=lambda i: f"layer {i + 1}",
    )
    heads = normal.self_attention[layer].shape[0]
    head = ui.linked(
        cols[1].selectbox,
        "Head",
        [None, *range(heads)],
        key="masking.head",
        format_func=lambda h: "mean of the heads" if h is None else f"head {h + 1}",
    )
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
    T = len(normal.inputs)
    causal_demo(normal, T, example_index)
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
    rows = []
    for causal, view in ((True, normal), (False, cheater)):
        rows.append(
            {
                "decoder": masking.LABELS[causal],
                "gold": view.target,
                "teacher forced: next token at each position": "".join(view.teacher_forced[:-1]),
                "generating on its own (greedy)": view.free_running,
            }
        )
    st.dataframe(rows, hide_index=True, width="stretch")
    st.caption(
        f"The example {ui.literal(normal.source)}. Teacher forced, each character is predicted from the gold "
        "characters before it (and, for the cheater, after it); generating, from the model's own."
    )


on_the_example()


@st.cache_data(max_entries=2, show_spinner=False)
def shipped(path: str, mtime: float) -> dict:
    """Keyed on the file's time stamp, so a re-measured file is read again."""
    return masking.load_results(Path(path))


try:
    path = masking.RESULTS
    results = shipped(str(path), path.stat().st_mtime if path.exists() else 0.0)
except (FileNotFoundError, ValueError) as error:
    results = None
    st.warning(f"The measured results cannot be shown: {error}")

if results is not None:
    sentences = results["models"][masking.CHECKPOINTS[True]].get("sentences", "?")
    st.markdown(f"Measured on **{sentences}** dates of the {results.get('split', '?')} split:")
    st.dataframe(masking.results_table(results), hide_index=True, width="stretch")
    meta = {key: results["meta"].get(key, "?") for key in ("date", "command", "torch")}
    commands = "; ".join(
        ui.literal(results["models"][name].get("train_command", "?")) for name in masking.CHECKPOINTS.values()
    )
    st.caption(
        f"Token accuracy: share of output characters (the end-of-sequence included) right; exact match: share of "
        f"dates with every character right. Teacher forced: fed the gold prefix; free-running: fed its own "
        f"output, greedily (what `minimodels.train.evaluate` and the training curves report). Measured "
        f"{str(meta['date'])[:10]} with {ui.literal(meta['command'])} (torch {meta['torch']}); the "
        f"models were trained with {commands}."
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

    def make_run() -> TrainingRun:
        fresh, train_fn = masking.new_training(live_causal, live_seed, float(budget))
        return TrainingRun(train_fn, model=fresh, name=f"masking-{'causal' if live_causal else 'cheat'}")

    def draw(snapshot: masking.MaskingProgress, key: str) -> None:
        cols = st.columns([1, 1, 3])
        cols[0].metric("teacher-forced token accuracy", f"{snapshot.teacher_forced_accuracy:.1%}")
        cols[1].metric("free-running exact match", f"{snapshot.exact_match:.1%}")
        run = ui.current_run(panel_key)
        history = [s for s in run.snapshots if s.step <= snapshot.step] if run is not None else [snapshot]
        cols[2].altair_chart(masking.two_measures_chart(history), width="stretch", key=f"{key}.measures")
        weights, labels = masking.snapshot_map(snapshot)
        heatmap(weights, labels, labels, f"decoder self-attention (last layer, heads averaged) at step {snapshot.step}",
                key)  # fmt: skip
        st.caption(f"Its output for {ui.literal(masking.examples()[0].source)} now: {ui.literal(snapshot.prediction)}")

    panel_key = f"masking.train.{'causal' if live_causal else 'cheat'}"
    ui.training_panel(
        panel_key,
        make_run,
        draw,
        budget_seconds=budget,
        target=masking.LIVE_TARGET if live_causal else None,
        replay_frame=lambda snapshot: masking.snapshot_map(snapshot)[0],
    )


train_yourself()

ui.show_code(masked_softmax, padding_mask, causal_mask, TinyTransformer.decode)
ui.show_code(masking.padding_attention, masking.measure, label="The code of this page's examples")

# --- Check yourself ------------------------------------------------------------------------------------------
st.header("Check yourself", divider="gray")
for ex in masking.exercises(results):
    ui.exercise(ex)

st.caption(
    "Sources: the Transformer lecture's “Masking” slide (padding mask, sequence mask, “set future attention to "
    "−inf”); Vaswani et al., *Attention Is All You Need*, NeurIPS 2017, §3.2.3 (“masking out (setting to −∞) "
    "all values in the input of the softmax which correspond to illegal connections”)."
)
