"""Lesson: the attention bridge (research lab, Vázquez et al.)."""

import streamlit as st

import ui
from lessons import attention_bridge
from minimodels.bridge import AttentionBridge, BridgeModel, redundancy, train_bridge
from minimodels.tasks.multilingual import LANGUAGE_NAMES, LANGUAGES

lesson = ui.lesson("attention_bridge")
results = ui.shipped_results(lesson, attention_bridge.RESULTS)
study = ui.shipped_results(lesson, attention_bridge.PENALTY_RESULTS, loader="load_penalty", what="The penalty study")
left_out = ui.shipped_results(lesson, attention_bridge.LEAVE_OUT_RESULTS, loader="load_leave_out",
                              what="The leave-one-pair-out study")  # fmt: skip
st.markdown(attention_bridge.INTRO)
st.latex(r"A = \mathrm{softmax}\big(W_2\,\mathrm{ReLU}(W_1 H^\top)\big) \in \mathbb{R}^{k\times n}, \qquad M = A H")
st.latex(r"\mathcal{L} = -\log p(Y \mid X) + \lambda\,\lVert A A^\top - I \rVert_F^2")
st.markdown(attention_bridge.BRIDGE_EXPLAIN + attention_bridge.penalty_weight_text(results))

# --- The toy languages ------------------------------------------------------------------------------
ui.section(*attention_bridge.SECTIONS["languages"])

shipped = ui.cached_resource(attention_bridge.load_shipped, show_spinner="Loading the shipped bridge model…")


@ui.cached(max_entries=64, show_spinner=False)
def meaning_view(index: int) -> dict:
    return attention_bridge.meaning_view(*shipped()[:2], index)


@ui.cached(max_entries=256, show_spinner=False)  # a sentence read once per server: 3 greedy decodings each time
def own_reading(lang: str, text: str) -> attention_bridge.SentenceReading:
    model, corpus, _ = shipped()
    return attention_bridge.read_sentence(model, corpus.tokenizers, lang, text)


@ui.cached(max_entries=1, show_spinner=False)
def overall_agreement() -> float:
    return attention_bridge.mean_agreement(*shipped()[:2], n=attention_bridge.AGREEMENT_MEANINGS)


try:
    model, corpus, info = shipped()
except (FileNotFoundError, OSError, ValueError, KeyError) as error:
    model = corpus = info = None
    st.warning(f"The shipped bridge model cannot be loaded ({error}); run python {attention_bridge.SCRIPT}.")


@st.fragment
def one_meaning() -> None:
    c = st.columns([1, 3])
    last = attention_bridge.SHOWN_MEANINGS - 1
    index = int(c[0].number_input("Held-out meaning no.", 0, last, 0, key="attention_bridge.meaning"))
    view = meaning_view(index)
    c[1].dataframe(view["sentences"], hide_index=True, width="stretch")
    title = "A: each head's weights over the words, per language"
    ui.plotly(attention_bridge.heads_side_by_side, view["maps"], title=title, key="attention_bridge.heads")
    st.markdown(
        "Does head j find **the same concept** in every language? Each cell names the word the head weighs most "
        "and, in brackets, the English words it expresses (from the grammar's gold alignment)."
    )
    ui.table(view["reading"])
    st.markdown(
        attention_bridge.agreement_text(view["agreement"], overall_agreement(), results)
        + " What the decoders make of each sentence (✱: a zero-shot direction, never trained; into its own "
        "language: the monolingual copy):"
    )
    ui.table(view["translations"])


if model is not None:
    one_meaning()

    @st.fragment
    def your_sentence() -> None:
        st.subheader("Your own sentence")
        c = st.columns([1, 3])
        lang = c[0].selectbox("Language", LANGUAGES, format_func=LANGUAGE_NAMES.get, key="attention_bridge.lang")
        default = corpus.probe.sentences[lang]
        text = c[1].text_input("Sentence (words from the toy vocabulary)", default, max_chars=500,
                               key=f"attention_bridge.text.{lang}")  # fmt: skip
        read = own_reading(lang, text)
        if read.error:
            st.warning(read.error)
            return
        if read.message:
            st.info(read.message)
        ui.plotly(attention_bridge.heads_side_by_side, {lang: (read.A, read.tokens)}, key="attention_bridge.own.heads")
        ui.table(read.translations)

    your_sentence()

# --- The penalty ------------------------------------------------------------------------------------
ui.section(*attention_bridge.SECTIONS["penalty"])


@st.fragment
def penalty() -> None:
    if results is None:
        return
    lang = st.radio("Probe sentence in", LANGUAGES, format_func=LANGUAGE_NAMES.get, horizontal=True,
                    key="attention_bridge.penalty.lang")  # fmt: skip
    cols = st.columns(2)
    for column, name in zip(cols, ("hub-mono", "hub-mono-nopenalty"), strict=True):
        weight = results.runs_of(name)[0].params["penalty_weight"]
        A, tokens = attention_bridge.probe_map(results, name, lang)
        with column:
            st.markdown(f"**λ = {weight}** · ‖AAᵀ − I‖²_F = **{attention_bridge.penalty_value(A):.3f}** here")
            gram = attention_bridge.gram_heatmap(A, title=f"A Aᵀ, λ = {weight}")
            ui.plotly(gram, key=f"attention_bridge.gram.{name}")
            heads = attention_bridge.heads_side_by_side({lang: (A, tokens)})
            ui.plotly(heads, key=f"attention_bridge.penalty.heads.{name}")

    def measured() -> None:
        lines = attention_bridge.penalty_findings(results)
        st.markdown(attention_bridge.seeds_note(results) + "\n" + "\n".join(f"- {line}" for line in lines))

    ui.folded(f"These two models, measured (n = {len(results.runs_of('hub-mono'))})", measured,
              key="attention_bridge.penalty_measured", icon=":material/table_rows:")  # fmt: skip


penalty()
st.markdown(attention_bridge.study_intro())
if study is not None:  # drawn once with the page: no controls
    ui.table(attention_bridge.study_rows(study))
    ui.plotly(attention_bridge.study_figure, study, key="attention_bridge.study")
    findings = [*(attention_bridge.study_conclusion(study, w) for w in (1.0, 0.1)),
                *(attention_bridge.heads_finding(study, w) for w in attention_bridge.HEADS_WEIGHTS)]  # fmt: skip
    st.markdown("\n".join(f"- {line}" for line in findings))
    ui.provenance(study.meta, note=attention_bridge.study_note(study.meta))

# --- Meaning space ----------------------------------------------------------------------------------
ui.section(*attention_bridge.SECTIONS["meaning"])


@ui.cached(max_entries=1, show_spinner="Encoding the held-out meanings…")
def meaning_space() -> dict:
    return attention_bridge.meaning_space(*shipped()[:2])


@st.fragment
def meaning() -> None:
    space = meaning_space()
    by = st.radio("Colour by", ["language", "sentence"], horizontal=True, key="attention_bridge.meaning.by")
    ui.plotly(attention_bridge.meaning_figure, space, by, key="attention_bridge.meaning.map")
    st.caption(attention_bridge.meaning_alt(space))
    st.markdown(attention_bridge.meaning_text(space))


if model is not None:
    meaning()

# --- Zero-shot ------------------------------------------------------------------------------------
ui.section(attention_bridge.SECTIONS["zero_shot"], attention_bridge.zero_shot_intro())
if results is not None:  # no controls here: drawn once with the page
    ui.table(attention_bridge.zero_shot_rows(results))
    lines = [*attention_bridge.observations(results), *attention_bridge.grid_findings(results)]
    st.markdown(attention_bridge.seeds_note(results) + "\n" + "\n".join(f"- {line}" for line in lines))

    def every_direction() -> None:
        formats = dict.fromkeys(map(results.label, results.variants), "percent")
        ui.table(attention_bridge.direction_rows(results), formats=formats)

    ui.folded("Every direction", every_direction, key="attention_bridge.directions", icon=":material/table_rows:")
    for metric, spec in ui.shared_view(attention_bridge.history_charts, results):  # made once per server
        ui.vega(spec, key=f"attention_bridge.history.{metric}", height=spec["height"])
    ui.provenance(results.meta, note=attention_bridge.provenance_note(results.meta))
st.subheader("Leave one pair out (the paper's Figure 1)")
st.markdown(attention_bridge.LEAVE_OUT_INTRO)
if left_out is not None:  # drawn once with the page: no controls
    ui.table(attention_bridge.leave_out_rows(left_out))
    ui.plotly(attention_bridge.leave_out_figure, left_out, key="attention_bridge.leave_out")
    lines = [attention_bridge.leave_out_finding(left_out, m) for m in ("bleu", "tokens")]
    if results is not None:
        lines.append(attention_bridge.leave_out_against_hub(left_out, results))
    st.markdown("\n".join(f"- {line}" for line in lines))
    ui.provenance(left_out.meta, note=attention_bridge.leave_out_note(left_out.meta))

# --- Train your own ---------------------------------------------------------------------------------
ui.section(*attention_bridge.SECTIONS["train"])


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns(3)
    mono = c[0].checkbox("Monolingual pairs", value=True, key="attention_bridge.live.mono")
    penalty_on = c[1].checkbox(f"Penalty ‖AAᵀ − I‖², λ = {attention_bridge.PENALTY_ON:g}", value=True,
                               key="attention_bridge.live.penalty")  # fmt: skip
    seconds = c[2].select_slider("Seconds", [10, 30, 60, 120], value=30, key="attention_bridge.live.seconds")

    def draw(report, key: str) -> None:
        ui.plotly(attention_bridge.live_figure, report, key=f"{key}.heads")
        st.caption(attention_bridge.live_caption(report))

    ui.training_panel(
        "attention_bridge.live", lambda: attention_bridge.live_run(mono, penalty_on, float(seconds)), draw,
        budget_seconds=float(seconds),
    )  # fmt: skip


train_yourself()

ui.page_tail(
    lesson,
    code=[
        ("The bridge and its penalty", (AttentionBridge, redundancy, BridgeModel.encode)),
        ("Training: one direction per minibatch, in rotation", (train_bridge,)),
    ],
    exercises=attention_bridge.exercises(results),
)
