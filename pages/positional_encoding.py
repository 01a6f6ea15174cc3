"""Lesson: positional encoding (Part 3)."""

from functools import partial

import streamlit as st

import ui
from lessons import positional_encoding
from minimodels.positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding, sinusoidal_encoding
from minimodels.small import TinyEncoder

lesson = ui.lesson("positional_encoding")
ui.explain(positional_encoding.INTRO)
st.latex(positional_encoding.FORMULA)
ui.explain(positional_encoding.FREQUENCIES)

# --- 1. The table -------------------------------------------------------------------------------------
ui.section("1 · The sinusoid matrix")
table = ui.cached(positional_encoding.encoding_table, max_entries=32, show_spinner=False)


def d_model_slider(column, name: str, value: int) -> int:
    """The d_model control each section has (its own key, so each section keeps its own choice)."""
    return column.select_slider(
        "d_model", positional_encoding.D_CHOICES, value=value, key=f"positional_encoding.{name}"
    )


@st.fragment
def the_table() -> None:
    c = st.columns(2)
    d_model = d_model_slider(c[0], "d_model", 64)
    length = c[1].slider("Positions", 8, positional_encoding.MAX_LENGTH, 100, key="positional_encoding.length")
    pe = table(length, d_model)
    ui.plotly(positional_encoding.table_figure, pe, key="positional_encoding.table")
    st.caption(positional_encoding.table_caption(pe))
    dims = st.multiselect("Dimensions to draw as curves", list(range(d_model)), key="positional_encoding.dims",
                          default=positional_encoding.default_dims(d_model), max_selections=8)  # fmt: skip
    if dims:
        ui.vega(positional_encoding.dimension_curves(pe, dims), key="positional_encoding.curves")
    else:
        st.info("Pick at least one dimension to draw its curve.")


the_table()

# --- 2. Similarity --------------------------------------------------------------------------------------
ui.section("2 · Nearby positions look alike", positional_encoding.SIMILARITY_TEXT)


@st.fragment
def the_similarity() -> None:
    c = st.columns(2)
    d_model = d_model_slider(c[0], "sim_d_model", 64)
    length = c[1].slider("Positions", 8, 100, 50, key="positional_encoding.sim_length")
    sim = positional_encoding.similarity(length, d_model)
    left, right = st.columns([0.45, 0.55])
    with left:
        ui.plotly(positional_encoding.similarity_figure, sim, key="positional_encoding.similarity")
    ui.vega(positional_encoding.offset_curve(positional_encoding.similarity_by_offset(d_model, length - 1)),
            "positional_encoding.by_offset", container=right)  # fmt: skip
    st.caption(positional_encoding.similarity_caption(d_model))


the_similarity()

# --- 3. The offset property --------------------------------------------------------------------------------
ui.section("3 · A fixed offset is a rotation", positional_encoding.OFFSET_TEXT)
st.latex(positional_encoding.ROTATION)
ui.explain(positional_encoding.ROTATION_TEXT)


@st.fragment
def the_offset() -> None:
    c = st.columns(3)
    d_model = d_model_slider(c[0], "offset_d_model", 16)
    k = c[1].slider("Offset k", 0, 50, 5, key="positional_encoding.k")
    pos = c[2].slider("Position pos (for the vectors on the right)", 0, 100, 3, key="positional_encoding.pos")
    check = positional_encoding.offset_check(d_model, k, pos, n_positions=positional_encoding.MAX_LENGTH)
    ui.plotly(positional_encoding.offset_figure, check, key="positional_encoding.offset")
    for column, (label, value) in zip(st.columns(3), positional_encoding.offset_metrics(check), strict=True):
        column.metric(label, value)
    st.caption(positional_encoding.OFFSET_CAPTION)
    ui.table(check.rows(), formats=positional_encoding.OFFSET_FORMATS)
    st.caption(positional_encoding.OFFSET_WHY)


the_offset()

# --- 4. Why positions are needed ---------------------------------------------------------------------------
ui.section("4 · Without positions, attention reads a bag of tokens", positional_encoding.EQUIVARIANCE_TEXT)
if not all(ui.pretrained(*positional_encoding.PRETRAINED_KEYS[name]) for name in positional_encoding.ENCODINGS):
    st.stop()
ui.exercise(ui.cached(positional_encoding.shipped_anagram_prediction, max_entries=1, show_spinner=False)())
shipped_checks = ui.cached(positional_encoding.shipped_checks, max_entries=64, show_spinner=False)
shipped_maps = ui.cached(positional_encoding.shipped_maps, max_entries=64, show_spinner=False)


@st.fragment
def the_permutation() -> None:
    c = st.columns([2, 2, 1])
    text = ui.checked_text(
        c[0].text_input,
        f"Your string ({positional_encoding.MIN_CHARS}–{positional_encoding.MAX_CHARS} lowercase letters)",
        positional_encoding.DEFAULT_TEXT, key="positional_encoding.text", parse=positional_encoding.parse_text,
        keep="text", what="string", ok_key="positional_encoding.text_ok", link=False, max_chars=200,
    )  # fmt: skip
    kind = c[1].radio("Shuffle", positional_encoding.PERMUTATIONS, horizontal=True,
                      key="positional_encoding.permutation")  # fmt: skip
    seed = int(c[2].number_input("Shuffle seed", 0, 9999, 0, key="positional_encoding.shuffle_seed",
                                 disabled=kind != "random shuffle"))  # fmt: skip
    checks = shipped_checks(text, tuple(positional_encoding.permutation(kind, len(text), seed)))
    st.caption(positional_encoding.shipped_caption(positional_encoding.load_model("none")[1]))
    st.markdown(f"The string {ui.literal(text)} shuffled: {ui.literal(checks[0].shuffled)}.")

    def answer() -> None:
        ui.table(positional_encoding.equivariance_rows(checks), formats={"max |f(shuffled) − shuffled f|": "%.2e"})
        st.caption(positional_encoding.equivariance_caption())
        st.markdown(positional_encoding.set_text(checks, quote=ui.literal))

    ui.reveal("what each model writes", answer, key="positional_encoding.reveal_writes")
    shown = st.radio("Self-attention for", positional_encoding.ENCODINGS, format_func=positional_encoding.LABELS.get,
                     horizontal=True, key="positional_encoding.attention_of")  # fmt: skip
    check = checks[positional_encoding.ENCODINGS.index(shown)]
    ui.plotly(positional_encoding.attention_pair_figure, check, key="positional_encoding.pair")  # once a server
    st.caption(positional_encoding.pair_caption(check))

    st.subheader("Where each model looks on your string")
    maps = shipped_maps(text)
    ui.plotly(positional_encoding.attention_maps_figure, maps, key="positional_encoding.maps")
    st.caption(positional_encoding.maps_caption(text, maps, quote=ui.literal))


the_permutation()

# --- 5. Measured -------------------------------------------------------------------------------------
ui.section("5 · none, sinusoidal, learned: trained, then longer inputs")
results = ui.shipped_results(lesson)
ui.explain(positional_encoding.measured_text(results))

if results is not None:
    ui.exercise(positional_encoding.rows_prediction())
    ui.exercise(positional_encoding.race_prediction(results))

    def measured() -> None:
        ui.measured(
            results, rows=positional_encoding.results_rows(results),
            observations=positional_encoding.observations(results),
            curves=partial(positional_encoding.results_curves, results), key="positional_encoding.shipped",
            note=positional_encoding.provenance_note(results.meta), names=("accuracy", "loss"),
            axis_key="positional_encoding.axis",
        )  # fmt: skip
        ui.vega(positional_encoding.length_chart(results), key="positional_encoding.lengths")
        st.caption(positional_encoding.length_caption())

    ui.reveal("the measured results", measured, key="positional_encoding.reveal_measured", predictions=2)

# --- 6. Train one yourself ----------------------------------------------------------------------------------
ui.section("6 · Train one yourself", positional_encoding.train_text())


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([2, 1, 2])
    live_encoding = c[0].selectbox(
        "Encoding", positional_encoding.ENCODINGS, index=1, key="positional_encoding.live_encoding",
        format_func=positional_encoding.LABELS.get,
    )  # fmt: skip
    live_seed = int(c[1].number_input("Seed", 0, 9999, 0, key="positional_encoding.live_seed"))
    budget = c[2].select_slider("Seconds", [5, 10, 20, 30, 60], value=10, key="positional_encoding.budget")

    def draw(snapshot, key: str) -> None:
        ui.plotly(positional_encoding.snapshot_figure, snapshot, live_encoding, key=key)
        st.caption(f"After {snapshot.step} steps it writes {ui.literal(snapshot.prediction)} under "
                   f"{ui.literal(positional_encoding.DEFAULT_TEXT)}.")  # fmt: skip

    ui.training_panel(f"positional_encoding.train.{live_encoding}",
                      lambda: positional_encoding.new_run(live_encoding, live_seed, budget), draw,
                      budget_seconds=float(budget), target=positional_encoding.LIVE_TARGET,
                      replay_frame=lambda snapshot: snapshot.attention)  # fmt: skip


train_yourself()

ui.page_tail(
    lesson,
    code=[("The code that computes this", (sinusoidal_encoding, SinusoidalPositionalEncoding,
                                           LearnedPositionalEmbedding, TinyEncoder)),
          ("The code of this page's checks", (positional_encoding.rotation, positional_encoding.offset_matrix,
                                              positional_encoding.offset_check, positional_encoding.equivariance))],
    exercises=positional_encoding.by_hand(),
)  # fmt: skip
