"""Lesson: positional encoding (Part 3)."""

from functools import partial

import streamlit as st

import ui
from lessons import positional_encoding
from lessons.positional_encoding import (
    bag_of_tokens,
    live_training,
    longer_inputs,
    models,
    nearby_positions,
    offset_rotation,
    sinusoid_table,
)
from minimodels.positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding, sinusoidal_encoding
from minimodels.small import TinyEncoder

lesson = ui.lesson("positional_encoding", positional_encoding.INTRO)
st.latex(positional_encoding.FORMULA)
ui.explain(positional_encoding.FREQUENCIES)

ui.symbols("positional_encoding")

# --- 1. The table -------------------------------------------------------------------------------------
ui.section(sinusoid_table.TITLE)
table = ui.cached(sinusoid_table.encoding_table, max_entries=32, show_spinner=False)


def d_model_slider(column, name: str, value: int) -> int:
    """The d_model control each section has (its own key, so each section keeps its own choice)."""
    return column.select_slider("d_model", sinusoid_table.D_CHOICES, value=value, key=f"positional_encoding.{name}")


@st.fragment
def the_table() -> None:
    c = st.columns(2)
    d_model = d_model_slider(c[0], "d_model", 64)
    length = c[1].slider("Positions", 8, sinusoid_table.MAX_LENGTH, 100, key="positional_encoding.length")
    pe = table(length, d_model)
    ui.plotly(sinusoid_table.table_figure, pe, key="positional_encoding.table")
    st.caption(sinusoid_table.table_caption(pe))
    dims = st.multiselect(
        "Dimensions to draw as curves",
        list(range(d_model)),
        key="positional_encoding.dims",
        default=sinusoid_table.default_dims(d_model),
        max_selections=8,
    )
    if dims:
        ui.vega(sinusoid_table.dimension_curves(pe, dims), key="positional_encoding.curves")
    else:
        st.info("Pick at least one dimension to draw its curve.")


the_table()

# --- 2. Similarity --------------------------------------------------------------------------------------
ui.section(nearby_positions.TITLE, nearby_positions.TEXT)


@st.fragment
def the_similarity() -> None:
    c = st.columns(2)
    d_model = d_model_slider(c[0], "sim_d_model", 64)
    length = c[1].slider("Positions", 8, 100, 50, key="positional_encoding.sim_length")
    sim = nearby_positions.similarity(length, d_model)
    left, right = st.columns([0.45, 0.55])
    with left:
        ui.plotly(nearby_positions.similarity_figure, sim, key="positional_encoding.similarity")
    by_offset = nearby_positions.similarity_by_offset(d_model, length - 1)
    ui.vega(nearby_positions.offset_curve(by_offset), "positional_encoding.by_offset", container=right)
    st.caption(nearby_positions.similarity_caption(d_model))


the_similarity()

# --- 3. The offset property --------------------------------------------------------------------------------
ui.section(offset_rotation.TITLE, offset_rotation.TEXT)
st.latex(offset_rotation.ROTATION)
ui.explain(offset_rotation.ROTATION_TEXT)


@st.fragment
def the_offset() -> None:
    c = st.columns(3)
    d_model = d_model_slider(c[0], "offset_d_model", 16)
    k = c[1].slider("Offset k", 0, 50, 5, key="positional_encoding.k")
    pos = c[2].slider("Position pos (for the vectors on the right)", 0, 100, 3, key="positional_encoding.pos")
    check = offset_rotation.offset_check(d_model, k, pos, n_positions=sinusoid_table.MAX_LENGTH)
    ui.plotly(offset_rotation.offset_figure, check, key="positional_encoding.offset")
    for column, (label, value) in zip(st.columns(3), offset_rotation.offset_metrics(check), strict=True):
        column.metric(label, value)
    st.caption(offset_rotation.OFFSET_CAPTION)
    ui.table(check.rows(), formats=offset_rotation.OFFSET_FORMATS)
    st.caption(offset_rotation.OFFSET_WHY)


the_offset()

# --- 4. Why positions are needed ---------------------------------------------------------------------------
ui.section(bag_of_tokens.TITLE, bag_of_tokens.TEXT)
if not all(ui.pretrained(*models.PRETRAINED_KEYS[name]) for name in models.ENCODINGS):
    st.stop()
anagram_prediction = ui.cached(bag_of_tokens.shipped_anagram_prediction, max_entries=1, show_spinner=False)()
ui.exercise(anagram_prediction)
shipped_checks = ui.cached(bag_of_tokens.shipped_checks, max_entries=64, show_spinner=False)
shipped_maps = ui.cached(bag_of_tokens.shipped_maps, max_entries=64, show_spinner=False)


@st.fragment
def the_permutation() -> None:
    c = st.columns([2, 2, 1])
    text = ui.checked_text(
        c[0].text_input,
        f"Your string ({bag_of_tokens.MIN_CHARS}–{bag_of_tokens.MAX_CHARS} lowercase letters)",
        bag_of_tokens.DEFAULT_TEXT,
        key="positional_encoding.text",
        parse=bag_of_tokens.parse_text,
        keep="text",
        what="string",
        ok_key="positional_encoding.text_ok",
        link=False,
        max_chars=200,
    )
    kind = c[1].radio("Shuffle", bag_of_tokens.PERMUTATIONS, horizontal=True, key="positional_encoding.permutation")
    seed = int(
        c[2].number_input(
            "Shuffle seed", 0, 9999, 0, key="positional_encoding.shuffle_seed", disabled=kind != "random shuffle"
        )
    )
    checks = shipped_checks(text, tuple(bag_of_tokens.permutation(kind, len(text), seed)))
    st.caption(bag_of_tokens.shipped_caption(models.load_model("none")[1]))
    st.markdown(f"The string {ui.literal(text)} shuffled: {ui.literal(checks[0].shuffled)}.")

    def answer() -> None:
        ui.table(bag_of_tokens.equivariance_rows(checks), formats={"max |f(shuffled) − shuffled f|": "%.2e"})
        st.caption(bag_of_tokens.equivariance_caption())
        st.markdown(bag_of_tokens.set_text(checks, quote=ui.literal))

    ui.reveal("what each model writes", answer, key="positional_encoding.reveal_writes", after=[anagram_prediction.key])
    shown = st.radio(
        "Self-attention for",
        models.ENCODINGS,
        format_func=models.LABELS.get,
        horizontal=True,
        key="positional_encoding.attention_of",
    )
    check = checks[models.ENCODINGS.index(shown)]
    ui.plotly(bag_of_tokens.attention_pair_figure, check, key="positional_encoding.pair")
    st.caption(bag_of_tokens.pair_caption(check))

    st.subheader("Where each model looks on your string")
    maps = shipped_maps(text)
    ui.plotly(bag_of_tokens.attention_maps_figure, maps, key="positional_encoding.maps")
    st.caption(bag_of_tokens.maps_caption(text, maps, quote=ui.literal))


ui.after_answering(anagram_prediction.key, "each model on your own string, shuffled", the_permutation)

# --- 5. Measured -------------------------------------------------------------------------------------
ui.section(longer_inputs.TITLE)
results = ui.shipped_results(lesson, loader=longer_inputs.load_results)
ui.explain(longer_inputs.measured_text(results))

if results is not None:
    length_predictions = [longer_inputs.rows_prediction(), longer_inputs.race_prediction(results)]
    for prediction in length_predictions:
        ui.exercise(prediction)

    def measured() -> None:
        ui.measured(
            results,
            rows=longer_inputs.results_rows(results),
            observations=longer_inputs.observations(results),
            curves=partial(longer_inputs.results_curves, results),
            key="positional_encoding.shipped",
            note=longer_inputs.provenance_note(results.meta),
            names=("accuracy", "loss"),
            axis_key="positional_encoding.axis",
        )
        ui.vega(longer_inputs.length_chart(results), key="positional_encoding.lengths")
        st.caption(longer_inputs.length_caption())

    ui.reveal(
        "the measured results",
        measured,
        key="positional_encoding.reveal_measured",
        predictions=2,
        after=[p.key for p in length_predictions],
    )

# --- 6. Train one yourself ----------------------------------------------------------------------------------
ui.section(live_training.TITLE, live_training.train_text())


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([2, 1, 2])
    live_encoding = c[0].selectbox(
        "Encoding",
        models.ENCODINGS,
        index=1,
        key="positional_encoding.live_encoding",
        format_func=models.LABELS.get,
    )
    live_seed = int(c[1].number_input("Seed", 0, 9999, 0, key="positional_encoding.live_seed"))
    budget = c[2].select_slider("Seconds", [5, 10, 20, 30, 60], value=10, key="positional_encoding.budget")

    def draw(snapshot, key: str) -> None:
        ui.plotly(live_training.snapshot_figure, snapshot, live_encoding, key=key)
        st.caption(
            f"After {snapshot.step} steps it writes {ui.literal(snapshot.prediction)} under "
            f"{ui.literal(bag_of_tokens.DEFAULT_TEXT)}."
        )

    ui.training_panel(
        f"positional_encoding.train.{live_encoding}",
        lambda: live_training.new_run(live_encoding, live_seed, budget),
        draw,
        budget_seconds=float(budget),
        target=live_training.LIVE_TARGET,
        replay_frame=lambda snapshot: snapshot.attention,
    )


train_yourself()

ui.page_tail(
    lesson,
    code=[
        (
            "The code that computes this",
            (sinusoidal_encoding, SinusoidalPositionalEncoding, LearnedPositionalEmbedding, TinyEncoder),
        ),
        (
            "The code of this page's checks",
            (
                offset_rotation.rotation,
                offset_rotation.offset_matrix,
                offset_rotation.offset_check,
                bag_of_tokens.equivariance,
            ),
        ),
    ],
    exercises=positional_encoding.by_hand(),
)
