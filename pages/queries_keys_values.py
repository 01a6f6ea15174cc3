"""Lesson: queries, keys and values (Part 2)."""

import streamlit as st

import ui
from lessons import queries_keys_values
from lessons.queries_keys_values import (
    database,
    embeddings,
    matrix_form,
    no_parameters,
    no_recurrence,
    trained_weights,
    worked_example,
)
from minimodels.attention import masked_softmax, scaled_dot_product_attention
from minimodels.tasks import get_task

lesson = ui.lesson("queries_keys_values", queries_keys_values.INTRO)
embedding_map = ui.cached(
    embeddings.shipped_embedding_map,
    max_entries=1,
    show_spinner="Reading the embedding tables (once per server)…",
)
recurrence = ui.cached(
    no_recurrence.measure_recurrence,
    max_entries=1,
    show_spinner="Timing the GRU and self-attention (once per server)…",
)
exercises = ui.cached_resource(queries_keys_values.exercises, show_spinner=False)
thinking_machines = ui.cached_resource(worked_example.thinking_machines, show_spinner=False)  # seeded: once a server
st.latex(queries_keys_values.EQUATION)

ui.symbols("queries_keys_values")

# --- 1. Words as vectors ------------------------------------------------------------------------------------------
ui.section(embeddings.TITLE, embeddings.TEXT)


@st.fragment
def words_as_vectors() -> None:
    if ui.pretrained(*embeddings.EMBEDDING_MODEL) is None:
        return
    mapped = embedding_map(*embeddings.EMBEDDING_MODEL)
    st.markdown(embeddings.one_hot_sentence(mapped))
    cols = st.columns(2)
    prop = ui.linked(
        cols[0].radio,
        "Colour the words by",
        list(embeddings.PROPERTIES),
        horizontal=True,
        key="queries_keys_values.property",
    )
    table = ui.linked(
        cols[1].radio, "Embedding table", list(embeddings.TABLES), horizontal=True, key="queries_keys_values.table"
    )
    st.caption(f"{mapped.described}, {mapped.steps} training steps. Colour: {embeddings.PROPERTIES[prop]}.")
    ui.plotly(embeddings.embedding_figure, mapped, prop, table, key="queries_keys_values.embeddings")
    st.markdown(embeddings.embedding_sentence(mapped, prop))


words_as_vectors()

# --- 2. Self-attention with no parameters -------------------------------------------------------------------------
ui.section(no_parameters.TITLE, no_parameters.TEXT)
st.latex(no_parameters.dot_product(*no_parameters.LECTURE_DOT).latex())


@st.fragment
def attend_with_no_parameters() -> None:
    ui.explain(no_parameters.WORDS_TEXT)
    vectors = ui.checked_text(
        st.text_area,
        "Word vectors (word: numbers)",
        no_parameters.DEFAULT_WORDS,
        key="queries_keys_values.words",
        parse=no_parameters.parse_word_vectors,
        keep="vectors",
        what="table of vectors",
        max_chars=no_parameters.MAX_WORDS_TEXT,
        height=160,
    )
    result = no_parameters.plain_self_attention(vectors)
    cols = st.columns(2)
    with cols[0]:
        ui.plotly(no_parameters.plain_scores_figure, result, key="queries_keys_values.plain_scores")
    with cols[1]:
        ui.plotly(no_parameters.plain_weights_figure, result, key="queries_keys_values.plain_weights")
    ui.plotly(no_parameters.plain_outputs_figure, result, key="queries_keys_values.plain_outputs")
    st.markdown(no_parameters.symmetry_sentence(result.scores, result.words))
    st.markdown(no_parameters.diagonal_sentence(result.scores, result.words))
    ui.explain(no_parameters.WHY_PROJECTIONS)
    st.markdown(no_parameters.projection_sentence(result))


attend_with_no_parameters()

# --- 3. The lecture's worked example -------------------------------------------------------------------------------
example = thinking_machines()
ui.section(worked_example.TITLE, worked_example.TEXT.format(d_k=example.d_k))
ui.text_table(worked_example.worked_table(example))
ui.plotly(worked_example.vectors_figure, example, key="queries_keys_values.vectors")
ui.explain(worked_example.worked_sentence(example))


@st.fragment
def what_if_d_k() -> None:
    d_k = ui.linked(
        st.select_slider,
        "Same dot products (112, 96), other d_k",
        [1, 4, 16, 64, 256, 1024],
        value=64,
        key="queries_keys_values.d_k",
    )
    weights = worked_example.weights_at(example, d_k)
    cols = st.columns(2)
    cols[0].metric("weight on Thinking", f"{weights[0]:.3f}")
    cols[1].metric("weight on Machines", f"{weights[1]:.3f}")
    st.caption("Lesson 6, on scaling by √d_k, measures what this does to training.")


what_if_d_k()

# --- 4. The database analogy ------------------------------------------------------------------------------
features = ", ".join(database.FEATURES)
ui.section(database.TITLE, database.TEXT.format(features=features))


@st.fragment
def soft_database() -> None:
    cols = st.columns([2, 2])
    query = ui.linked(cols[0].selectbox, "Query", list(database.QUERIES), key="queries_keys_values.query")
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
    lookup = database.soft_lookup(query, sharpness)
    ui.plotly(database.lookup_figure, lookup, key="queries_keys_values.lookup")
    st.markdown(database.best_sentence(lookup))
    ui.folded(
        "The table's hand-written feature vectors Enc(key)",
        lambda: ui.table(database.table_rows()),
        key="queries_keys_values.features",
        icon=":material/table_rows:",
    )


soft_database()

# --- 5. The matrix form on your own sentence ---------------------------------------------------------------
ui.section(matrix_form.TITLE, matrix_form.TEXT)


@st.fragment
def all_queries_at_once() -> None:
    tokens = ui.sentence_input(
        f"Your sentence (up to {matrix_form.MAX_TOKENS} words)",
        matrix_form.DEFAULT_SENTENCE,
        "queries_keys_values.sentence",
        matrix_form.parse_sentence,
        tokens_key="queries_keys_values.tokens",
    )
    cols = st.columns(3)
    d_model = ui.linked(
        cols[0].select_slider, "d_model", [4, 8, 16, 32, 64], value=16, key="queries_keys_values.d_model"
    )
    d_k = ui.linked(cols[1].select_slider, "d_k", [2, 4, 8, 16, 32, 64], value=8, key="queries_keys_values.matrix_d_k")
    seed = int(ui.linked(cols[2].number_input, "seed of W^Q, W^K, W^V", 0, 10_000, 0, key="queries_keys_values.seed"))
    result = matrix_form.self_attention(tokens, d_model=d_model, d_k=d_k, seed=seed)
    ui.plotly(matrix_form.attention_figure, result, key="queries_keys_values.heatmap")
    st.caption("Each row sums to 1. Hover a cell for its exact weight.")

    def matrices() -> None:  # drawn only while open: a closed expander's three figures would redraw on every move
        for name, figure in matrix_form.matrix_figures(result).items():
            ui.plotly(figure, key=f"queries_keys_values.matrix.{name}")

    ui.folded("Q, K and V for this sentence", matrices, key="queries_keys_values.show_matrices")


all_queries_at_once()

# --- 6. A trained model's W^Q, W^K, W^V (the shipped Transformer, or yours) ------------------------------------------
ui.section(trained_weights.TITLE, trained_weights.TEXT)


@st.fragment
def trained_product() -> None:
    task, architecture = trained_weights.TRAINED_MODEL
    if (loaded := ui.pretrained(task, architecture)) is None:
        return
    model = ui.model_choice(loaded[0], None, key="queries_keys_values.trained_use", own_data=architecture)
    reads = ui.model_data(model, get_task(task), "toy", trained_weights.TRAINED_SENTENCE)  # yours: your data's
    st.caption(reads.caption or trained_weights.trained_note(loaded[1]))
    key, c = f"queries_keys_values.trained.{reads.name}", st.columns([3, 1, 1])
    with c[0]:
        words = ui.sentence_input(
            "A sentence in the model's language", reads.text, key, trained_weights.model_parser(reads.task)
        )
    layer = c[1].selectbox("Encoder layer", range(1, len(model.encoder_layers) + 1), key=f"{key}.layer")
    head = c[2].selectbox("Head (lesson 9)", range(1, model.config.n_heads + 1), key=f"{key}.head")
    view = ui.shared_view(trained_weights.trained_attention, model, reads.task, " ".join(words), layer - 1, head - 1)
    if isinstance(view, str):
        st.warning(view)
        return
    ui.plotly(trained_weights.trained_matrices_figure, view, key="queries_keys_values.trained_qkv")
    ui.plotly(trained_weights.trained_figure, view, key="queries_keys_values.trained_map")
    st.markdown(trained_weights.trained_sentence(view))


trained_product()

# --- 7. Why no recurrence ------------------------------------------------------------------------------------------
ui.section(
    no_recurrence.TITLE,
    no_recurrence.TEXT.format(width=no_recurrence.RECURRENCE_WIDTH, batch=no_recurrence.RECURRENCE_BATCH),
)
timed = recurrence()
ui.vega(no_recurrence.recurrence_chart(timed), key="queries_keys_values.recurrence")
ui.table(no_recurrence.recurrence_rows(timed), formats={"GRU ms": "%.3f", "attention ms": "%.3f"})
st.markdown(no_recurrence.recurrence_sentence(timed))

computed_by = (
    scaled_dot_product_attention,
    masked_softmax,
    embeddings.embedding_map,
    no_parameters.plain_self_attention,
    worked_example.thinking_machines,
    database.soft_lookup,
    matrix_form.self_attention,
    trained_weights.trained_attention,
    no_recurrence.matrix_product_chain,
    no_recurrence.measure_recurrence,
)
ui.page_tail(lesson, code=[("The code that computes this", computed_by)], exercises=exercises())
