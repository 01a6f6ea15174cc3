"""Lesson: positions that travel (Part 4)."""

from functools import partial

import streamlit as st

import ui
from lessons import positions_that_travel
from lessons.positions_that_travel import distance_penalty, live_training, longer_inputs, rotation, training
from minimodels.positional import ALiBi, RotaryPositionalEmbedding, alibi_bias, alibi_slopes, rotate_pairs
from minimodels.positioned import SCHEMES, PositionedAttention

lesson = ui.lesson("positions_that_travel", positions_that_travel.INTRO)

ui.symbols("positions_that_travel")

# --- 1. RoPE ---------------------------------------------------------------------------------------------------
ui.section(rotation.TITLE, rotation.TEXT)
st.latex(rotation.FORMULA)
ui.explain(rotation.WHY)
st.latex(rotation.PROPERTY)


@st.fragment
def the_rotation() -> None:
    tokens = ui.sentence_input(
        f"Your sentence (1–{rotation.MAX_WORDS} words)",
        rotation.DEFAULT_SENTENCE,
        "positions_that_travel.sentence",
        rotation.parse,
    )
    pair = st.radio(
        "Pair of dimensions",
        range(rotation.D_DRAW // 2),
        format_func=rotation.pair_label,
        horizontal=True,
        key="positions_that_travel.pair",
    )
    ui.plotly(rotation.rotation_figure, tokens, pair, key="positions_that_travel.rotation")
    st.caption(
        "Each word is the course's fixed random vector for it (d = 8, the same in every lesson); the drawing shows one "
        "pair of its dimensions, dotted before turning and solid after. A word that appears twice starts from the "
        "same arrow and ends at two angles: its position, not the word, sets the turn. Lengths do not change:"
    )
    ui.table(rotation.rotation_rows(tokens, pair))


the_rotation()

shift_prediction = rotation.shift_prediction()
ui.exercise(shift_prediction)


def the_scores() -> None:
    words = rotation.SHIFT_WORDS
    grid = rotation.score_grid(*words)
    ui.plotly(rotation.score_figure, grid, *words, key="positions_that_travel.scores")
    st.caption(rotation.score_caption(grid))


ui.reveal(
    "the score at every pair of positions",
    the_scores,
    key="positions_that_travel.reveal_scores",
    after=shift_prediction.key,
)

# --- 2. ALiBi --------------------------------------------------------------------------------------------------
ui.section(distance_penalty.TITLE, distance_penalty.TEXT)
st.latex(distance_penalty.FORMULA)


@st.fragment
def the_penalty() -> None:
    head = st.select_slider(
        "Head h", list(range(1, distance_penalty.HEADS + 1)), value=1, key="positions_that_travel.head"
    )
    ui.plotly(distance_penalty.bias_figure, head, key="positions_that_travel.penalty")
    st.caption(distance_penalty.bias_caption(head))
    ui.table(distance_penalty.slopes_rows(), formats={"slope m_h": "%.4f"})


the_penalty()

# --- 3. Measured -----------------------------------------------------------------------------------------------
ui.section(longer_inputs.TITLE, longer_inputs.text())
results = ui.shipped_results(lesson, loader=longer_inputs.load_results)

if results is not None:
    predictions = (longer_inputs.learned_prediction(results), longer_inputs.race_prediction(results))
    for prediction in predictions:
        ui.exercise(prediction)

    def measured() -> None:
        ui.measured(
            results,
            rows=longer_inputs.results_rows(results),
            observations=longer_inputs.observations(results),
            curves=partial(longer_inputs.results_curves, results),
            key="positions_that_travel.shipped",
            note=longer_inputs.provenance_note(results.meta),
            names=("accuracy", "loss"),
            axis_key="positions_that_travel.axis",
        )
        ui.vega(longer_inputs.length_chart(results), key="positions_that_travel.lengths")
        st.caption(longer_inputs.length_caption(results))

    ui.reveal(
        "the measured results",
        measured,
        key="positions_that_travel.reveal_measured",
        predictions=2,
        after=[p.key for p in predictions],
    )

# --- 4. Train one yourself -------------------------------------------------------------------------------------
ui.section(live_training.TITLE, live_training.train_text())


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([2, 1, 2])
    scheme = c[0].selectbox(
        "Position scheme", SCHEMES, index=3, key="positions_that_travel.live_scheme", format_func=training.LABELS.get
    )
    seed = int(c[1].number_input("Seed", 0, 9999, 0, key="positions_that_travel.live_seed"))
    budget = c[2].select_slider("Seconds", [5, 10, 20, 30, 60], value=10, key="positions_that_travel.budget")

    def draw(snapshot, key: str) -> None:
        ui.plotly(live_training.snapshot_figure, snapshot, scheme, key=key)
        st.caption(live_training.by_length_text(snapshot))

    ui.training_panel(
        f"positions_that_travel.train.{scheme}",
        lambda: live_training.new_run(scheme, seed, budget),
        draw,
        budget_seconds=float(budget),
        target=live_training.LIVE_TARGET,
        replay_frame=lambda snapshot: snapshot.attention,
    )


train_yourself()

ui.page_tail(
    lesson,
    code=[
        ("The code of RoPE and ALiBi", (rotate_pairs, RotaryPositionalEmbedding, alibi_slopes, alibi_bias, ALiBi)),
        ("The model the five schemes share", (PositionedAttention,)),
        (
            "The code of this page's checks",
            (rotation.score_grid, rotation.diagonal_spread, distance_penalty.self_share),
        ),
    ],
    exercises=positions_that_travel.by_hand(),
)
