"""Lesson: the attention bridge (research lab, Vázquez et al.)."""

import streamlit as st
import torch

import ui
from lessons import attention_bridge as bridge
from lessons.common.live import TrainingRun
from minimodels.bridge import AttentionBridge, BridgeModel, redundancy, train_bridge
from minimodels.tasks.multilingual import LANGUAGE_NAMES, LANGUAGES

ui.page("The attention bridge", icon="🌉")

st.title("The attention bridge")
st.markdown(
    "One translator for many languages: every language gets its **own encoder and decoder**, and between them "
    "sits **one attention layer shared by all** of them, the *attention bridge* (Vázquez et al., "
    "“Multilingual NMT with a language-independent attention bridge”). The bridge turns any sentence, in any "
    "language and of any length, into the same fixed matrix M of k rows; every decoder reads only M. If M holds "
    "the *meaning* rather than the words, a model trained on French↔English and French↔Italian could translate "
    "English→Italian without ever seeing that pair: **zero-shot**."
)
st.latex(r"A = \mathrm{softmax}\big(W_2\,\mathrm{ReLU}(W_1 H^\top)\big) \in \mathbb{R}^{k\times n}, \qquad M = A H")
st.latex(r"\mathcal{L} = -\log p(Y \mid X) + \lambda\,\lVert A A^\top - I \rVert_F^2")
st.markdown(
    "H holds the encoder's n states (a BiGRU here, a BiLSTM in the paper); each of the k rows of A is one "
    "**head**: a softmax over the source words. Each decoder starts from the mean of M's rows and attends over "
    "them. The penalty is 0 only when each head puts all its weight on one word and no two heads share a word, "
    "so it pushes the heads to read *different* parts of the sentence."
)

# --- The toy languages ------------------------------------------------------------------------------
st.header("1 · One meaning, four languages", divider="gray")
st.markdown(
    "Four generated languages say the same things: English, a French-like and an Italian-like language "
    "(adjectives after the noun, pronouns before the verb; Italian drops “I”), and a **verb-final** language with "
    "invented words. Each meaning below is **held out**: none of its sentences, in any language, was ever "
    "trained on. The shipped model was trained only on directions into and out of the French-like *hub*, plus "
    "copying each language to itself (see section 3)."
)


@st.cache_resource(show_spinner="Loading the shipped bridge model…")
def shipped():
    return bridge.load_shipped()


@st.cache_data(max_entries=64, show_spinner=False)
def meaning_maps(index: int) -> dict:
    model, corpus, _ = shipped()
    with torch.inference_mode():
        return bridge.meaning_view(model, corpus, index)


@st.cache_data(max_entries=1, show_spinner=False)
def overall_agreement() -> float:
    model, corpus, _ = shipped()
    with torch.inference_mode():
        return bridge.mean_agreement(model, corpus, n=bridge.AGREEMENT_MEANINGS)


try:
    model, corpus, info = shipped()
except (FileNotFoundError, OSError, ValueError, KeyError) as error:
    model = corpus = info = None
    st.warning(f"The shipped bridge model cannot be loaded ({error}); run python scripts/attention_bridge_results.py.")


@st.fragment
def one_meaning() -> None:
    c = st.columns([1, 3])
    index = int(
        c[0].number_input("Held-out meaning no.", 0, bridge.SHOWN_MEANINGS - 1, 0, key="attention_bridge.meaning")
    )
    view = meaning_maps(index)
    c[1].dataframe(view["sentences"], hide_index=True, width="stretch")
    ui.plotly(bridge.heads_side_by_side(view["maps"], title="A: each head's weights over the words, per language"),
              key="attention_bridge.heads")  # fmt: skip
    st.markdown(
        "Does head j find **the same concept** in every language? Each cell names the word the head weighs most "
        "and, in brackets, the English words it expresses (from the grammar's gold alignment)."
    )
    st.dataframe(view["reading"], hide_index=True, width="stretch")
    st.markdown(
        f"On this meaning **{view['agreement']:.0%}** of (head, language) pairs have the top word mean what the "
        f"head's top word means in English; over {bridge.AGREEMENT_MEANINGS} held-out meanings, "
        f"**{overall_agreement():.0%}**. What the decoders make of each sentence (✱: a zero-shot direction, never "
        "trained; into its own language: the monolingual copy):"
    )
    st.dataframe(view["translations"], hide_index=True, width="stretch")


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
        read = bridge.read_sentence(model, corpus.tokenizers, lang, text)
        if read.error:
            st.warning(read.error)
            return
        if read.message:
            st.info(read.message)
        with torch.inference_mode():
            ui.plotly(bridge.heads_side_by_side({lang: (read.A, read.tokens)}), key="attention_bridge.own.heads")
        st.dataframe(read.translations, hide_index=True, width="stretch")

    your_sentence()

# --- The penalty ------------------------------------------------------------------------------------
st.header("2 · The penalty and head redundancy", divider="gray")
st.markdown(
    "A Aᵀ compares heads: entry (i, j) is the overlap of head i and head j (1 on the diagonal when a head looks at "
    "a single word). Without the penalty nothing stops several heads from reading the same words, which wastes "
    "rows of M. Two models, identical except for λ, on the probe sentence:"
)


@st.cache_data(max_entries=2, show_spinner=False)
def results_file(path: str, mtime: float) -> dict:
    """Keyed on the file's time stamp, so a re-measured file is read again."""
    return bridge.load_results(path)


try:
    results = results_file(str(bridge.RESULTS), bridge.RESULTS.stat().st_mtime if bridge.RESULTS.exists() else 0.0)
except (FileNotFoundError, ValueError) as error:
    results = None
    st.warning(f"The measured results cannot be shown: {error}")


@st.fragment
def penalty() -> None:
    lang = st.radio("Probe sentence in", LANGUAGES, format_func=LANGUAGE_NAMES.get, horizontal=True,
                    key="attention_bridge.penalty.lang")  # fmt: skip
    cols = st.columns(2)
    for column, name in zip(cols, ("hub-mono", "hub-mono-nopenalty"), strict=True):
        run = results["runs"][name]
        A, tokens = bridge.probe_map(results, name, lang)
        with column:
            st.markdown(f"**λ = {run['penalty_weight']}** · ‖AAᵀ − I‖²_F = **{bridge.penalty_value(A):.3f}** here")
            ui.plotly(
                bridge.gram_heatmap(A, title=f"A Aᵀ, λ = {run['penalty_weight']}"), key=f"attention_bridge.gram.{name}"
            )
            ui.plotly(bridge.heads_side_by_side({lang: (A, tokens)}), key=f"attention_bridge.penalty.heads.{name}")
    st.markdown(f"- {bridge.observations(results)[-1]}")


if results is not None:
    penalty()

# --- Zero-shot ------------------------------------------------------------------------------------
st.header("3 · Zero-shot, with and without monolingual data", divider="gray")
st.markdown(
    "The paper's Table 1: a model trained on {De, Fr, Cs} ↔ En could not translate De → Fr at all (BLEU below 1); "
    "adding *monolingual* pairs, each sentence copied to itself, lifted the unseen directions to 20–26 BLEU. Here "
    "the French-like language plays English: the models train on en↔fr, it↔fr, vf↔fr (six directions), with or "
    "without en→en, fr→fr, it→it, vf→vf, and are tested on the six directions that avoid French, which they "
    "never saw. Held-out test meanings, greedy decoding, exact match of the whole sentence and of each token."
)


@st.fragment
def zero_shot() -> None:
    percent = st.column_config.NumberColumn(format="percent")
    rows = bridge.zero_shot_rows(results)
    st.dataframe(rows, hide_index=True, width="stretch",
                 column_config={k: percent for k in rows[0] if k not in ("training data", "penalty λ")})  # fmt: skip
    st.markdown("\n".join(f"- {line}" for line in bridge.observations(results)[:-1]))
    with st.expander("Every direction", icon=":material/table_rows:"):
        st.dataframe(bridge.direction_rows(results), hide_index=True, width="stretch",
                     column_config={e.label: percent for e in bridge.EXPERIMENTS})  # fmt: skip
    st.altair_chart(bridge.history_chart(results), width="stretch", key="attention_bridge.history")
    meta = results["meta"]
    machine = meta.get("machine", {})
    st.caption(
        f"Measured {meta.get('date', '?')[:10]} with {ui.literal(meta.get('command', '?'))}: "
        f"{meta.get('steps')} steps of {meta.get('batch_size')} sentences per model, seed {meta.get('seed')}, "
        f"{meta.get('test_sentences')} test meanings per direction, weights rounded to float16 as shipped; "
        f"{machine.get('cpu_count', '?')} CPU cores, torch {machine.get('torch', '?')}, one thread per model, "
        f"1-minute load {meta.get('load_1min_before', '?')} before and {meta.get('load_1min_after', '?')} after "
        "(a shared machine). Step counts decide what is trained, so the figures do not depend on the load."
    )


if results is not None:
    zero_shot()

# --- Train your own ---------------------------------------------------------------------------------
st.header("4 · Train a bridge yourself", divider="gray")
st.markdown(
    "A fresh model for you alone, trained from scratch on the hub directions; choose whether it also sees "
    "monolingual pairs and whether the penalty is on. Watch the heads of the held-out probe meaning sharpen in "
    "all four languages. The bar's exact match is on the trained directions; the zero-shot one is printed below "
    "the heads. A minute on one core is far less than the shipped models' training, so expect low accuracies."
)


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([2, 2, 2])
    mono = c[0].checkbox("Monolingual pairs", value=True, key="attention_bridge.live.mono")
    penalty_on = c[1].checkbox("Penalty ‖AAᵀ − I‖²", value=True, key="attention_bridge.live.penalty")
    seconds = c[2].select_slider("Seconds", [10, 30, 60, 120], value=30, key="attention_bridge.live.seconds")

    def make_run() -> TrainingRun:
        model, _, train_fn = bridge.new_run(mono, penalty_on, seconds=float(seconds))
        return TrainingRun(train_fn, model=model, name="bridge")

    def draw(report, key: str) -> None:
        ui.plotly(bridge.heads_side_by_side(bridge.live_maps(report), title=f"A after {report.step} steps"),
                  key=f"{key}.heads")  # fmt: skip
        st.caption(bridge.live_caption(report))

    ui.training_panel("attention_bridge.live", make_run, draw, budget_seconds=float(seconds))


train_yourself()

ui.show_code(AttentionBridge, redundancy, BridgeModel.encode, label="The bridge and its penalty")
ui.show_code(train_bridge, label="Training: one direction per minibatch, in rotation")

# --- Check yourself ---------------------------------------------------------------------------------
st.header("Check yourself", divider="gray")
for ex in bridge.exercises(results):
    ui.exercise(ex)

st.caption(
    "Source: Vázquez, Raganato, Tiedemann & Creutz, *Multilingual NMT with a language-independent attention "
    "bridge* (RepL4NLP 2019): equations 1–3, Table 1 (zero-shot with and without monolingual data) and Table 3 "
    "(the penalty). Lin et al. 2017 introduced the structured self-attention and its penalty."
)
