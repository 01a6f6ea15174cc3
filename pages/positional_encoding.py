"""Lesson: positional encoding (Part 3)."""

from functools import partial

import streamlit as st

import ui
from lessons import positional_encoding
from minimodels.positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding, sinusoidal_encoding
from minimodels.tasks import get_task

lesson = ui.lesson("positional_encoding")
st.markdown(
    "Self-attention compares every token with every other **by content alone**: the score of a query with a key "
    "does not depend on where either of them sits. So, as the Transformer lecture puts it, *position information "
    "for words in sequence is lost*, yet translation needs it. The idea: *encode position information inside the "
    "input embedding*, by adding a vector PE_pos to the embedding of the token at position pos. The lecture's "
    "(and the paper's) choice is a fixed set of sinusoids:"
)
st.latex(
    r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right) \qquad "
    r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
)
st.markdown(
    "Each pair of dimensions (2i, 2i+1) is one **frequency** ω_i = 10000^(−2i/d): a point going round a circle, "
    "at angle pos·ω_i. The first pair turns one radian per position, the last one hardly moves, like the hands "
    "of a clock that has many hands."
)

# --- 1. The table -------------------------------------------------------------------------------------
st.header("1 · The sinusoid matrix", divider="gray")
table = st.cache_data(max_entries=32, show_spinner=False)(positional_encoding.encoding_table)


@st.fragment
def the_table() -> None:
    c = st.columns(2)
    d_model = c[0].select_slider("d_model", positional_encoding.D_CHOICES, value=64, key="positional_encoding.d_model")
    length = c[1].slider("Positions", 8, positional_encoding.MAX_LENGTH, 100, key="positional_encoding.length")
    pe = table(length, d_model)
    ui.plotly(positional_encoding.table_figure(pe), key="positional_encoding.table")
    st.caption(positional_encoding.TABLE_CAPTION)
    dims = st.multiselect("Dimensions to draw as curves", list(range(d_model)), key="positional_encoding.dims",
                          default=positional_encoding.default_dims(d_model), max_selections=8)  # fmt: skip
    if dims:
        ui.vega(positional_encoding.dimension_curves(pe, dims), key="positional_encoding.curves")
    else:
        st.info("Pick at least one dimension to draw its curve.")


the_table()

# --- 2. Similarity --------------------------------------------------------------------------------------
st.header("2 · Nearby positions look alike", divider="gray")
st.markdown(
    "Pair each sine with its cosine: sin a·sin b + cos a·cos b = cos(a − b). So the dot product of two position "
    "vectors is Σᵢ cos(ω_i (p − q)): it depends only on **how far apart** p and q are, is largest at distance 0 "
    "and falls off (not monotonically) as they move apart."
)


@st.fragment
def the_similarity() -> None:
    c = st.columns(2)
    d_model = c[0].select_slider("d_model", positional_encoding.D_CHOICES, value=64,
                                 key="positional_encoding.sim_d_model")  # fmt: skip
    length = c[1].slider("Positions", 8, 100, 50, key="positional_encoding.sim_length")
    sim = positional_encoding.similarity(length, d_model)
    left, right = st.columns([0.45, 0.55])
    with left:
        ui.plotly(positional_encoding.similarity_figure(sim), key="positional_encoding.similarity")
    ui.vega(positional_encoding.offset_curve(positional_encoding.similarity_by_offset(d_model, length - 1)),
            "positional_encoding.by_offset", container=right)  # fmt: skip
    st.caption(positional_encoding.similarity_caption(d_model))


the_similarity()

# --- 3. The offset property --------------------------------------------------------------------------------
st.header("3 · A fixed offset is a rotation", divider="gray")
st.markdown(
    "The lecture's reason for the sinusoids: *for any fixed offset k, $PE_{pos+k}$ can be represented as a linear "
    "function of $PE_{pos}$.* For one pair, the angle addition formulas give it:"
)
st.latex(
    r"\begin{pmatrix}\sin((pos+k)\,\omega_i)\\ \cos((pos+k)\,\omega_i)\end{pmatrix} = "
    r"\underbrace{\begin{pmatrix}\cos k\omega_i & \sin k\omega_i\\ -\sin k\omega_i & \cos k\omega_i\end{pmatrix}}"
    r"_{R_i(k)}\begin{pmatrix}\sin(pos\,\omega_i)\\ \cos(pos\,\omega_i)\end{pmatrix}"
)
st.markdown(
    "$R_i(k)$ depends on k, not on pos. Put one block per pair on the diagonal of a d × d matrix $M_k$, and "
    "$PE_{pos+k} = M_k\\,PE_{pos}$ for **every** pos. Below, $M_k$ is built from k alone and checked against every row "
    "of the table (in float64)."
)


@st.fragment
def the_offset() -> None:
    c = st.columns(3)
    d_model = c[0].select_slider("d_model", positional_encoding.D_CHOICES, value=16,
                                 key="positional_encoding.offset_d_model")  # fmt: skip
    k = c[1].slider("Offset k", 0, 50, 5, key="positional_encoding.k")
    pos = c[2].slider("Position pos (for the vectors on the right)", 0, 100, 3, key="positional_encoding.pos")
    check = positional_encoding.offset_check(d_model, k, pos, n_positions=positional_encoding.MAX_LENGTH)
    ui.plotly(positional_encoding.offset_figure(check), key="positional_encoding.offset")
    for column, (label, value) in zip(st.columns(3), positional_encoding.offset_metrics(check), strict=True):
        column.metric(label, value)
    st.caption(positional_encoding.OFFSET_CAPTION)
    ui.table(check.rows(), formats=positional_encoding.OFFSET_FORMATS)
    st.caption(positional_encoding.OFFSET_WHY)


the_offset()

# --- 4. Why positions are needed ---------------------------------------------------------------------------
st.header("4 · Without positions, attention reads a bag of tokens", divider="gray")
shipped_checks = st.cache_data(max_entries=64, show_spinner=False)(positional_encoding.shipped_checks)
shipped_cross_attention = st.cache_data(max_entries=64, show_spinner=False)(positional_encoding.shipped_cross_attention)
st.markdown(
    "Shuffle the input of a self-attention layer and its outputs come back shuffled **the same way**, nothing "
    "else changes: it is *permutation-equivariant*. Each output is a weighted sum over all tokens, with weights "
    "from content alone, so moving a token moves its row and nothing more. Layer norm and the feed-forward "
    "network act on each position separately, so a whole encoder stack keeps the property. Here are three "
    "shipped Transformers trained to **reverse** a string, identical except for the positional encoding. Type a "
    "string, shuffle it, and compare the encoder's outputs f(shuffled) with f(string) shuffled the same way."
)


@st.fragment
def the_permutation() -> None:
    c = st.columns([2, 2, 1])
    text = ui.checked_text(
        c[0].text_input,
        f"Your string ({positional_encoding.MIN_CHARS}–{positional_encoding.MAX_CHARS} digits or lowercase letters)",
        positional_encoding.DEFAULT_TEXT, key="positional_encoding.text", parse=positional_encoding.parse_text,
        keep="text", what="string", ok_key="positional_encoding.text_ok", link=False, max_chars=200,
    )  # fmt: skip
    kind = c[1].radio("Shuffle", positional_encoding.PERMUTATIONS, horizontal=True,
                      key="positional_encoding.permutation")  # fmt: skip
    seed = int(c[2].number_input("Shuffle seed", 0, 9999, 0, key="positional_encoding.shuffle_seed",
                                 disabled=kind != "random shuffle"))  # fmt: skip
    if not all(ui.pretrained(*positional_encoding.PRETRAINED_KEYS[name]) for name in positional_encoding.ENCODINGS):
        return
    checks = shipped_checks(text, tuple(positional_encoding.permutation(kind, len(text), seed)))
    st.caption(positional_encoding.shipped_caption())
    st.markdown(f"The string {ui.literal(text)} shuffled: {ui.literal(checks[0].shuffled)}.")
    ui.table(positional_encoding.equivariance_rows(checks), formats={"max |f(shuffled) − shuffled f|": "%.2e"})
    st.caption(positional_encoding.EQUIVARIANCE_CAPTION)
    shown = st.radio("Self-attention of the first encoder layer (heads averaged) for", positional_encoding.ENCODINGS,
                     format_func=positional_encoding.LABELS.get, horizontal=True,
                     key="positional_encoding.attention_of")  # fmt: skip
    pair = positional_encoding.attention_pair_figure(checks[positional_encoding.ENCODINGS.index(shown)])
    ui.plotly(pair, key="positional_encoding.pair")
    st.caption(positional_encoding.PAIR_CAPTION)
    st.markdown(
        "The cost shows in the outputs: without positions the decoder's cross-attention reads the encoder's "
        "outputs as a *set*, so every anagram of a string gets the same output, and reversing is impossible."
    )

    # --- 5. Trained on reverse: the shipped models' cross-attention on this string
    st.subheader("Where each model looks when it reverses your string")
    maps = shipped_cross_attention(text)
    ui.plotly(positional_encoding.cross_attention_figure(maps), key="positional_encoding.cross")
    st.caption(positional_encoding.cross_attention_caption(text, maps, quote=ui.literal))


the_permutation()

# --- 5. Measured -------------------------------------------------------------------------------------
st.header("5 · none, sinusoidal, learned: trained on reverse", divider="gray")
task = get_task(positional_encoding.TASK)
st.markdown(
    f"The same Transformer ({positional_encoding.architecture()}) trained on **reverse** (“a3f9” → "
    f"“{task.aligner.pair('a3f9').target}”, up to {task.max_source_len} characters) three ways: no position "
    "information, the fixed sinusoids, or a **learned** vector per position (as in BERT and GPT: more parameters, "
    "and nothing beyond the longest training position)."
)
results = ui.shipped_results(lesson)


@st.fragment
def measured() -> None:
    ui.table(positional_encoding.results_rows(results))
    st.markdown("\n".join(f"- {line}" for line in positional_encoding.observations(results)))
    ui.comparison_curves(partial(positional_encoding.results_curves, results), "positional_encoding.shipped",
                         names=("accuracy", "loss"), axis_key="positional_encoding.axis")  # fmt: skip
    ui.provenance(results.meta, note=positional_encoding.provenance_note(results.meta))


if results is not None:
    measured()

# --- 6. Train one yourself ----------------------------------------------------------------------------------
st.header("6 · Train one yourself", divider="gray")
st.markdown(
    "A fresh model for you alone, on one core. With a positional encoding it should reach most of the held-out "
    "strings within a few hundred steps; without one, the loss stalls and exact match stays near zero. The heatmap "
    f"is the cross-attention on the fixed string “{task.probe.source}” → “{task.probe.target}”."
)


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([2, 1, 2])
    live_encoding = c[0].selectbox(
        "Encoding", positional_encoding.ENCODINGS, index=1, key="positional_encoding.live_encoding",
        format_func=positional_encoding.LABELS.get,
    )  # fmt: skip
    live_seed = int(c[1].number_input("Seed", 0, 9999, 0, key="positional_encoding.live_seed"))
    budget = c[2].select_slider("Seconds", [5, 10, 20, 30, 60], value=20, key="positional_encoding.budget")

    def draw(snapshot, key: str) -> None:
        ui.plotly(positional_encoding.snapshot_figure(snapshot, live_encoding), key=key)
        st.caption(f"After {snapshot.step} steps the model outputs {ui.literal(snapshot.prediction)}.")

    ui.training_panel(f"positional_encoding.train.{live_encoding}",
                      lambda: positional_encoding.new_run(live_encoding, live_seed, budget), draw,
                      budget_seconds=float(budget), target=0.98)  # fmt: skip


train_yourself()

none = ui.pretrained(*positional_encoding.PRETRAINED_KEYS["none"])
ui.page_tail(
    lesson,
    code=[("The code that computes this", (sinusoidal_encoding, SinusoidalPositionalEncoding,
                                           LearnedPositionalEmbedding)),
          ("The code of this page's checks", (positional_encoding.rotation, positional_encoding.offset_matrix,
                                              positional_encoding.offset_check, positional_encoding.equivariance))],
    exercises=positional_encoding.exercises(results, none and none[0]),
)  # fmt: skip
