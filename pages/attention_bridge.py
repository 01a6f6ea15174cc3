"""Lesson: the attention bridge (research lab, Vázquez et al.)."""

import streamlit as st

import ui
from lessons import attention_bridge
from lessons.attention_bridge import (
    experiments,
    grid_claims,
    leave_out,
    long_run,
    meaning_space,
    one_meaning,
    penalty,
    penalty_study,
    table_one,
    train_your_own,
    zero_shot,
)
from lessons.attention_bridge.findings import seeds_note
from minimodels.bridge import AttentionBridge, BridgeModel, redundancy, train_bridge
from minimodels.tasks.multilingual import LANGUAGE_NAMES, LANGUAGES

lesson = ui.lesson("attention_bridge", attention_bridge.INTRO, intro_folds=False)
results = ui.shipped_results(lesson, experiments.RESULTS, loader=experiments.load_results)
study = ui.shipped_results(
    lesson, penalty_study.PENALTY_RESULTS, loader=penalty_study.load_penalty, what="The penalty study"
)
left_out = ui.shipped_results(
    lesson, leave_out.LEAVE_OUT_RESULTS, loader=leave_out.load_leave_out, what="The leave-one-pair-out study"
)
long = ui.shipped_results(
    lesson, long_run.LONG_RUN_RESULTS, loader=long_run.load_long_run, what="The long leave-one-pair-out run"
)
st.latex(attention_bridge.BRIDGE_EQUATION)
st.latex(attention_bridge.LOSS_EQUATION)
st.markdown(attention_bridge.BRIDGE_EXPLAIN + penalty.penalty_weight_text(results))

ui.symbols("attention_bridge")

# --- One meaning, four languages ------------------------------------------------------------------
ui.section(one_meaning.TITLE, one_meaning.TEXT)

shipped = ui.cached_resource(one_meaning.load_shipped, show_spinner="Loading the shipped bridge model…")


@ui.cached(max_entries=64, show_spinner=False)
def meaning_view(index: int) -> dict:
    return one_meaning.meaning_view(*shipped()[:2], index)


@ui.cached(max_entries=256, show_spinner=False)  # a sentence read once per server: 3 greedy decodings each time
def own_reading(lang: str, text: str) -> one_meaning.SentenceReading:
    model, corpus, _ = shipped()
    return one_meaning.read_sentence(model, corpus.tokenizers, lang, text)


@ui.cached(max_entries=1, show_spinner=False)
def overall_agreement() -> float:
    return one_meaning.mean_agreement(*shipped()[:2], n=one_meaning.AGREEMENT_MEANINGS)


try:
    model, corpus, info = shipped()
except (FileNotFoundError, OSError, ValueError, KeyError) as error:
    model = corpus = info = None
    st.warning(f"The shipped bridge model cannot be loaded ({error}); run python {experiments.SCRIPT}.")


@st.fragment
def one_meaning_view() -> None:
    c = st.columns([1, 3])
    last = one_meaning.SHOWN_MEANINGS - 1
    index = int(c[0].number_input("Held-out meaning no.", 0, last, 0, key="attention_bridge.meaning"))
    view = meaning_view(index)
    ui.table(view["sentences"], container=c[1])
    ui.plotly(one_meaning.heads_side_by_side, view["maps"], title=one_meaning.HEADS_TITLE, key="attention_bridge.heads")
    st.markdown(one_meaning.READING_TEXT)
    ui.table(view["reading"])
    st.markdown(
        one_meaning.agreement_text(view["agreement"], overall_agreement(), results) + one_meaning.TRANSLATIONS_LEAD
    )
    ui.table(view["translations"])


if model is not None:
    one_meaning_view()

    @st.fragment
    def your_sentence() -> None:
        st.subheader("Your own sentence")
        c = st.columns([1, 3])
        lang = c[0].selectbox("Language", LANGUAGES, format_func=LANGUAGE_NAMES.get, key="attention_bridge.lang")
        default = corpus.probe.sentences[lang]
        text = c[1].text_input(
            "Sentence (words from the toy vocabulary)", default, max_chars=500, key=f"attention_bridge.text.{lang}"
        )
        read = own_reading(lang, text)
        if read.error:
            st.warning(read.error)
            return
        if read.message:
            st.info(read.message)
        ui.plotly(one_meaning.heads_side_by_side, {lang: (read.A, read.tokens)}, key="attention_bridge.own.heads")
        ui.table(read.translations)

    your_sentence()

# --- The penalty ------------------------------------------------------------------------------------
ui.section(penalty.TITLE, penalty.TEXT)


@st.fragment
def penalty_view() -> None:
    if results is None:
        return
    lang = st.radio(
        "Probe sentence in",
        LANGUAGES,
        format_func=LANGUAGE_NAMES.get,
        horizontal=True,
        key="attention_bridge.penalty.lang",
    )
    cols = st.columns(2)
    for column, name in zip(cols, (experiments.WITH, experiments.WITHOUT), strict=True):
        weight, A, tokens, value = ui.shared_view(penalty.probe_reading, results, name, lang)  # once per server
        with column:
            st.markdown(f"**λ = {weight}** · ‖AAᵀ − I‖²_F = **{value:.3f}** here")
            ui.plotly(penalty.gram_heatmap, A, title=f"A Aᵀ, λ = {weight}", key=f"attention_bridge.gram.{name}")
            heads = {lang: (A, tokens)}
            ui.plotly(one_meaning.heads_side_by_side, heads, key=f"attention_bridge.penalty.heads.{name}")

    def measured() -> None:
        lines = ui.shared_view(penalty.penalty_findings, results)
        st.markdown(seeds_note(results) + "\n" + "\n".join(f"- {line}" for line in lines))

    ui.folded(
        f"These two models, measured (n = {len(results.runs_of(experiments.WITH))})",
        measured,
        key="attention_bridge.penalty_measured",
        icon=":material/table_rows:",
    )


penalty_view()
st.markdown(penalty_study.study_intro())
if study is not None:  # drawn once with the page: no controls
    ui.table(ui.shared_view(penalty_study.study_rows, study))
    ui.plotly(penalty_study.study_figure, study, key="attention_bridge.study")
    st.markdown("\n".join(f"- {line}" for line in ui.shared_view(penalty_study.findings, study)))
    ui.provenance(study.meta, note=penalty_study.study_note(study.meta))

# --- Meaning space ----------------------------------------------------------------------------------
ui.section(meaning_space.TITLE, meaning_space.TEXT)


@ui.cached(max_entries=1, show_spinner="Encoding the held-out meanings…")
def space_of_meanings() -> dict:
    return meaning_space.meaning_space(*shipped()[:2])


@st.fragment
def meaning() -> None:
    space = space_of_meanings()
    by = st.radio("Colour by", ["language", "sentence"], horizontal=True, key="attention_bridge.meaning.by")
    ui.plotly(meaning_space.meaning_figure, space, by, key="attention_bridge.meaning.map")
    st.caption(meaning_space.meaning_alt(space))
    st.markdown(meaning_space.meaning_text(space))


if model is not None:
    meaning()

# --- Zero-shot ------------------------------------------------------------------------------------
ui.section(zero_shot.TITLE, zero_shot.zero_shot_intro())
if results is not None:  # no controls here: drawn once with the page
    ui.table(ui.shared_view(zero_shot.zero_shot_rows, results))
    lines = [*ui.shared_view(zero_shot.observations, results), *ui.shared_view(grid_claims.grid_findings, results)]
    st.markdown(seeds_note(results) + "\n" + "\n".join(f"- {line}" for line in lines))

    def every_direction() -> None:
        formats = dict.fromkeys(map(results.label, results.variants), "percent")
        ui.table(zero_shot.direction_rows(results), formats=formats)

    ui.folded("Every direction", every_direction, key="attention_bridge.directions", icon=":material/table_rows:")

    @st.fragment  # picking an experiment redraws its two grids only
    def table_one_view() -> None:
        st.markdown(f"**{table_one.TITLE}**")
        name = st.selectbox("Experiment", results.variants, format_func=results.label, key="attention_bridge.table_one")
        st.markdown("Here: test BLEU, source language down, target language across")
        ui.table(ui.shared_view(table_one.toy_grid, results, name), key="attention_bridge.table_one.toy")
        paper = table_one.paper_grid(name)
        if paper:
            st.markdown("The paper's Table 1, the same experiment (BLEU as printed)")
            ui.table(paper, key="attention_bridge.table_one.paper")
        st.caption(table_one.differences(results, name))

    table_one_view()
    for metric, spec in ui.shared_view(zero_shot.history_charts, results):  # made once per server
        ui.vega(spec, key=f"attention_bridge.history.{metric}", height=spec["height"])
    ui.provenance(results.meta, note=zero_shot.provenance_note(results.meta))
st.subheader(leave_out.TITLE)
st.markdown(leave_out.LEAVE_OUT_INTRO)
if left_out is not None:  # drawn once with the page: no controls
    ui.table(ui.shared_view(leave_out.leave_out_rows, left_out))
    ui.plotly(leave_out.leave_out_figure, left_out, key="attention_bridge.leave_out")
    st.markdown("\n".join(f"- {line}" for line in ui.shared_view(leave_out.findings, left_out, results)))
    ui.provenance(left_out.meta, note=leave_out.leave_out_note(left_out.meta))
if long is not None:  # drawn once with the page: no controls
    st.subheader(long_run.TITLE)
    st.markdown(long_run.long_run_intro(long))
    ui.vega(ui.shared_view(long_run.long_run_charts, long), key="attention_bridge.long_run", height=300)
    st.markdown(long_run.long_run_finding(long, left_out))
    ui.provenance(long.meta, note=long_run.long_run_note(long))
if results is not None:
    st.markdown(grid_claims.not_reproduced(results, long))

# --- Train your own ---------------------------------------------------------------------------------
ui.section(train_your_own.TITLE, train_your_own.TEXT)


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns(3)
    mono = c[0].checkbox("Monolingual pairs", value=True, key="attention_bridge.live.mono")
    penalty_on = c[1].checkbox(
        f"Penalty ‖AAᵀ − I‖², λ = {experiments.PENALTY_ON:g}", value=True, key="attention_bridge.live.penalty"
    )
    seconds = c[2].select_slider("Seconds", [10, 30, 60, 120], value=30, key="attention_bridge.live.seconds")

    def draw(report, key: str) -> None:
        ui.plotly(train_your_own.live_figure, report, key=f"{key}.heads")
        st.caption(train_your_own.live_caption(report))

    ui.training_panel(
        "attention_bridge.live",
        lambda: train_your_own.live_run(mono, penalty_on, float(seconds)),
        draw,
        budget_seconds=float(seconds),
    )


train_yourself()

ui.page_tail(
    lesson,
    code=[
        ("The bridge and its penalty", (AttentionBridge, redundancy, BridgeModel.encode)),
        ("Training: one direction per minibatch, in rotation", (train_bridge,)),
    ],
    exercises=ui.shared_view(attention_bridge.exercises, results),
)
