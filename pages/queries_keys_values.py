"""Lesson: queries, keys and values (Part 2)."""

import streamlit as st

import ui
from lessons import queries_keys_values
from minimodels.attention import masked_softmax, scaled_dot_product_attention
from minimodels.tasks import get_task

lesson = ui.lesson("queries_keys_values")
embedding_map = ui.cached(
    queries_keys_values.shipped_embedding_map,
    max_entries=1,
    show_spinner="Reading the embedding tables (once per server)…",
)
recurrence = ui.cached(
    queries_keys_values.measure_recurrence,
    max_entries=1,
    show_spinner="Timing the GRU and self-attention (once per server)…",
)
exercises = ui.cached_resource(queries_keys_values.exercises, show_spinner=False)
worked_example = ui.cached_resource(queries_keys_values.thinking_machines, show_spinner=False)  # seeded: once a server
ui.explain(queries_keys_values.INTRO)
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")

# --- 1. Words as vectors ------------------------------------------------------------------------------------------
ui.section("1 · Words as vectors: 1-hot or learned", queries_keys_values.EMBEDDINGS_TEXT)


@st.fragment
def embeddings() -> None:
    if ui.pretrained(*queries_keys_values.EMBEDDING_MODEL) is None:
        return
    mapped = embedding_map(*queries_keys_values.EMBEDDING_MODEL)
    st.markdown(queries_keys_values.one_hot_sentence(mapped))
    cols = st.columns(2)
    prop = ui.linked(cols[0].radio, "Colour the words by", list(queries_keys_values.PROPERTIES), horizontal=True,
                     key="queries_keys_values.property")  # fmt: skip
    table = ui.linked(cols[1].radio, "Embedding table", list(queries_keys_values.TABLES), horizontal=True,
                      key="queries_keys_values.table")  # fmt: skip
    st.caption(f"{mapped.described}, {mapped.steps} training steps. Colour: {queries_keys_values.PROPERTIES[prop]}.")
    ui.plotly(queries_keys_values.embedding_figure, mapped, prop, table, key="queries_keys_values.embeddings")
    st.markdown(queries_keys_values.embedding_sentence(mapped, prop))


embeddings()

# --- 2. Self-attention with no parameters -------------------------------------------------------------------------
ui.section("2 · Self-attention with no parameters: Softmax(XXᵀ)X", queries_keys_values.NO_PARAMETERS_TEXT)
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
        ui.plotly(queries_keys_values.plain_scores_figure, result, key="queries_keys_values.plain_scores")
    with cols[1]:
        ui.plotly(queries_keys_values.plain_weights_figure, result, key="queries_keys_values.plain_weights")
    ui.plotly(queries_keys_values.plain_outputs_figure, result, key="queries_keys_values.plain_outputs")
    st.markdown(queries_keys_values.symmetry_sentence(result.scores, result.words))
    st.markdown(queries_keys_values.diagonal_sentence(result.scores, result.words))
    ui.explain(queries_keys_values.WHY_PROJECTIONS)
    st.markdown(queries_keys_values.projection_sentence(result))


no_parameters()

# --- 3. The lecture's worked example -------------------------------------------------------------------------------
example = worked_example()
ui.section("3 · “Thinking Machines”, step by step", queries_keys_values.WORKED_TEXT.format(d_k=example.d_k))
st.table(queries_keys_values.worked_table(example))
ui.plotly(queries_keys_values.vectors_figure, example, key="queries_keys_values.vectors")
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

# --- 4. The database analogy ------------------------------------------------------------------------------
features = ", ".join(queries_keys_values.FEATURES)
ui.section("4 · A database you query softly", queries_keys_values.DATABASE_TEXT.format(features=features))


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
    ui.plotly(queries_keys_values.lookup_figure, lookup, key="queries_keys_values.lookup")
    key, value, weight = lookup.best()
    st.markdown(f"The row that weighs most: **{key} → {value}** with {weight:.0%} of the weight.")


database()

# --- 5. The matrix form on your own sentence ---------------------------------------------------------------
ui.section("5 · All queries at once: softmax(QKᵀ/√d_k)V", queries_keys_values.MATRIX_TEXT)


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
    ui.plotly(queries_keys_values.attention_figure, result, key="queries_keys_values.heatmap")
    st.caption("Each row sums to 1. Hover a cell for its exact weight.")

    def matrices() -> None:  # drawn only while open: a closed expander's three figures would redraw on every move
        for name, figure in queries_keys_values.matrix_figures(result).items():
            ui.plotly(figure, key=f"queries_keys_values.matrix.{name}")

    ui.folded("Q, K and V for this sentence", matrices, key="queries_keys_values.show_matrices")


matrix_form()

# --- 6. A trained model's W^Q, W^K, W^V (the shipped Transformer, or yours) ------------------------------------------
ui.section("6 · The same product with a trained model's W^Q, W^K, W^V", queries_keys_values.TRAINED_TEXT)


@st.fragment
def trained(qkv=queries_keys_values) -> None:
    if (loaded := ui.pretrained(*qkv.TRAINED_MODEL)) is None:
        return
    model = ui.model_choice(loaded[0], None, key="queries_keys_values.trained_use", own_data=qkv.TRAINED_MODEL[1])
    reads = ui.model_data(model, get_task(qkv.TRAINED_MODEL[0]), "toy", qkv.TRAINED_SENTENCE)  # yours: your data's
    st.caption(reads.caption or qkv.trained_note(loaded[1]))
    key, c = f"queries_keys_values.trained.{reads.name}", st.columns([3, 1, 1])
    with c[0]:
        words = ui.sentence_input("A sentence in the model's language", reads.text, key, qkv.model_parser(reads.task))
    layer = c[1].selectbox("Encoder layer", range(1, len(model.encoder_layers) + 1), key=f"{key}.layer")
    head = c[2].selectbox("Head (lesson 9)", range(1, model.config.n_heads + 1), key=f"{key}.head")
    view = ui.shared_view(qkv.trained_attention, model, reads.task, " ".join(words), layer - 1, head - 1)
    if isinstance(view, str):
        st.warning(view)
        return
    ui.plotly(qkv.trained_matrices_figure, view, key="queries_keys_values.trained_qkv")
    ui.plotly(qkv.trained_figure, view, key="queries_keys_values.trained_map")
    st.markdown(qkv.trained_sentence(view))


trained()

# --- 7. Why no recurrence ------------------------------------------------------------------------------------------
ui.section(
    "7 · Why no recurrence: all positions at once",
    queries_keys_values.RECURRENCE_TEXT.format(
        width=queries_keys_values.RECURRENCE_WIDTH, batch=queries_keys_values.RECURRENCE_BATCH
    ),
)
timed = recurrence()
ui.vega(queries_keys_values.recurrence_chart(timed), key="queries_keys_values.recurrence")
ui.table(queries_keys_values.recurrence_rows(timed), formats={"GRU ms": "%.3f", "attention ms": "%.3f"})
st.markdown(queries_keys_values.recurrence_sentence(timed))

q = queries_keys_values
ui.page_tail(
    lesson,
    code=[("The code that computes this", (
        scaled_dot_product_attention, masked_softmax, q.embedding_map, q.plain_self_attention, q.thinking_machines,
        q.soft_lookup, q.self_attention, q.trained_attention, q.matrix_product_chain, q.measure_recurrence,
    ))],
    exercises=exercises(),
)  # fmt: skip
