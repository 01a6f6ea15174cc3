"""Lesson: queries, keys and values (Part 2)."""

import streamlit as st

import ui
from lessons import queries_keys_values
from minimodels.attention import masked_softmax, scaled_dot_product_attention

lesson = ui.lesson("queries_keys_values")
ui.explain(queries_keys_values.INTRO)
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")

# --- 1. Self-attention with no parameters ---------------------------------------------------------------
ui.section("1 · Self-attention with no parameters: Softmax(XXᵀ)X", queries_keys_values.NO_PARAMETERS_TEXT)
st.latex(queries_keys_values.dot_product(*queries_keys_values.LECTURE_DOT).latex())


@st.fragment
def no_parameters() -> None:
    ui.explain(queries_keys_values.WORDS_TEXT)
    vectors = ui.checked_text(
        st.text_area, "Word vectors (word: numbers)", queries_keys_values.DEFAULT_WORDS,
        key="queries_keys_values.words", parse=queries_keys_values.parse_word_vectors, keep="vectors",
        what="table of vectors", max_chars=queries_keys_values.MAX_WORDS_TEXT, height=160,
    )  # fmt: skip
    result = queries_keys_values.plain_self_attention(vectors)
    cols = st.columns(2)
    with cols[0]:
        ui.plotly(queries_keys_values.plain_scores_figure(result), key="queries_keys_values.plain_scores")
    with cols[1]:
        ui.plotly(queries_keys_values.plain_weights_figure(result), key="queries_keys_values.plain_weights")
    ui.plotly(queries_keys_values.plain_outputs_figure(result), key="queries_keys_values.plain_outputs")
    st.markdown(queries_keys_values.symmetry_sentence(result.scores, result.words))
    st.markdown(queries_keys_values.diagonal_sentence(result.scores, result.words))
    ui.explain(queries_keys_values.WHY_PROJECTIONS)
    st.markdown(queries_keys_values.projection_sentence(result))


no_parameters()

# --- 2. The lecture's worked example -------------------------------------------------------------------
ui.section("2 · “Thinking Machines”, step by step")
example = queries_keys_values.thinking_machines()
ui.explain(
    f"The Transformer lecture works one query through by hand: the input *Thinking Machines*, "
    f"d_k = {example.d_k}. The lecture does not print the vectors, so we chose q₁, k₁ and k₂ (small "
    "integers, seeded) so that its dot products come out exactly; v₁ and v₂ are random. Everything below is "
    "computed by `minimodels.attention.scaled_dot_product_attention`."
)
st.table(queries_keys_values.worked_table(example))
ui.plotly(queries_keys_values.vectors_figure(example), key="queries_keys_values.vectors")
ui.explain(queries_keys_values.worked_sentence(example))


@st.fragment
def what_if_d_k() -> None:
    d_k = ui.linked(
        st.select_slider,
        "Same dot products (112, 96), other d_k",
        [1, 4, 16, 64, 256, 1024],
        value=64,
        key="queries_keys_values.d_k",
    )
    weights = queries_keys_values.weights_at(example, d_k)
    cols = st.columns(2)
    cols[0].metric("weight on Thinking", f"{weights[0]:.3f}")
    cols[1].metric("weight on Machines", f"{weights[1]:.3f}")
    st.caption("The lesson on scaling by √d_k measures what this does to training.")


what_if_d_k()

# --- 3. The database analogy ------------------------------------------------------------------------------
ui.section(
    "3 · A database you query softly",
    "The NLP lecture's analogy: a table pairs **keys** (English words) with **values** (their Turkish "
    "translations). A database returns the value whose key *equals* the query. Attention returns every value, "
    "each weighted by how *similar* its key is to the query: p(i | q) ∝ exp(sharpness · sim(q, kᵢ)). "
    "Here Enc(·) is a hand-written feature vector per word ("
    + ", ".join(queries_keys_values.FEATURES)
    + "), so you can read why each row scores as it does.",
)


@st.fragment
def database() -> None:
    cols = st.columns([2, 2])
    query = ui.linked(cols[0].selectbox, "Query", list(queries_keys_values.QUERIES), key="queries_keys_values.query")
    sharpness = ui.linked(
        cols[1].slider,
        "Sharpness (1 / temperature)",
        0.0,
        20.0,
        3.0,
        0.5,
        key="queries_keys_values.sharpness",
        help="0 weighs every row equally; a large value turns the soft lookup into a hard one.",
    )
    lookup = queries_keys_values.soft_lookup(query, sharpness)
    ui.plotly(queries_keys_values.lookup_figure(lookup), key="queries_keys_values.lookup")
    key, value, weight = lookup.best()
    st.markdown(f"The row that weighs most: **{key} → {value}** with {weight:.0%} of the weight.")


database()

# --- 4. The matrix form on your own sentence ---------------------------------------------------------------
ui.section(
    "4 · All queries at once: softmax(QKᵀ/√d_k)V",
    "Stack the words' embeddings into X; then Q = XW^Q, K = XW^K, V = XW^V and one matrix product scores "
    "every query against every key. Row *i* of the heatmap is the attention of word *i*. The W matrices here "
    "are random (seeded), not trained: the figure shows the mechanism, not what a trained model learns.",
)


@st.fragment
def matrix_form() -> None:
    tokens = ui.sentence_input(
        f"Your sentence (up to {queries_keys_values.MAX_TOKENS} words)",
        queries_keys_values.DEFAULT_SENTENCE,
        "queries_keys_values.sentence",
        queries_keys_values.parse_sentence,
        tokens_key="queries_keys_values.tokens",
    )
    cols = st.columns(3)
    d_model = ui.linked(
        cols[0].select_slider, "d_model", [4, 8, 16, 32, 64], value=16, key="queries_keys_values.d_model"
    )
    d_k = ui.linked(cols[1].select_slider, "d_k", [2, 4, 8, 16, 32, 64], value=8, key="queries_keys_values.matrix_d_k")
    seed = int(ui.linked(cols[2].number_input, "seed of W^Q, W^K, W^V", 0, 10_000, 0, key="queries_keys_values.seed"))
    result = queries_keys_values.self_attention(tokens, d_model=d_model, d_k=d_k, seed=seed)
    ui.plotly(queries_keys_values.attention_figure(result), key="queries_keys_values.heatmap")
    st.caption("Each row sums to 1. Hover a cell for its exact weight.")
    matrices = st.expander("Q, K and V for this sentence", key="queries_keys_values.show_matrices", on_change="rerun")
    if matrices.open:  # drawn only while open: a closed expander's three figures would redraw on every move
        with matrices:
            for name, figure in queries_keys_values.matrix_figures(result).items():
                ui.plotly(figure, key=f"queries_keys_values.matrix.{name}")


matrix_form()

ui.page_tail(
    lesson,
    code=[
        (
            "The code that computes this",
            (
                scaled_dot_product_attention,
                masked_softmax,
                queries_keys_values.plain_self_attention,
                queries_keys_values.thinking_machines,
                queries_keys_values.soft_lookup,
                queries_keys_values.self_attention,
            ),
        )
    ],
    exercises=queries_keys_values.exercises(),
)
