"""Tool: your own data. Sentence pairs in, what was read, tokenizers, a model trained live, kept as one file."""

import streamlit as st

import ui
from lessons import own_data
from ui import own_data as mine

entry = ui.tool("own_data", device=True)
st.markdown(own_data.INTRO)

# --- 1. The pairs ---------------------------------------------------------------------------------------------
ui.section("1 · Your sentence pairs", own_data.format_text())
data = mine.pairs_input()


def what_was_read(pairs) -> None:
    ui.section(f"2 · What the page read from {own_data.quoted(pairs.name)}")
    for column, (label, value, why) in zip(st.columns(4), own_data.count_metrics(pairs), strict=True):
        column.metric(label, value, help=why)
    ui.table(own_data.side_rows(pairs))
    ui.vega(own_data.length_chart(pairs), key="own_data.lengths", height=220)
    st.markdown("**The first pairs, as read** (text is shown as text: markup in a sentence stays visible).")
    ui.text_table(own_data.sample_rows(pairs))
    st.markdown(own_data.duplicates_sentence(pairs))
    st.markdown(own_data.skipped_sentence(pairs))
    if pairs.skipped:
        with st.expander(f"The {min(len(pairs.skipped), 200):,} first skipped lines and why"):
            ui.table(own_data.skipped_rows(pairs))
    ui.section("3 · The tokenizers, trained on your pairs", own_data.tokenizer_sentence(data.task, data.seconds))
    ui.text_table(own_data.pieces_rows(data.task))


# --- 4. Train --------------------------------------------------------------------------------------------------
@st.fragment  # these controls rerun this section only
def train_yourself(task) -> None:
    c = st.columns([3, 1, 2])
    architecture = c[0].radio(
        "Model",
        list(own_data.ARCHITECTURES),
        format_func=own_data.ARCHITECTURES.get,
        key="own_data.architecture",
        horizontal=True,
    )
    seed = int(c[1].number_input("Seed", 0, 9999, 0, key="own_data.seed"))
    budget = c[2].select_slider("Seconds at most", own_data.BUDGETS, value=60, key="own_data.budget")
    current = mine.own_model(architecture)
    same_data = current is not None and getattr(current.task, "fingerprint", None) == task.fingerprint
    carry_on = same_data and st.toggle(
        f"Continue your {own_data.ARCHITECTURES[architecture]} where it stopped",
        key="own_data.continue",
        help="Its weights; a new optimizer.",
    )
    config = own_data.live_config(architecture, seed, budget)

    def make_run():
        start = current.model if carry_on else None
        return mine.track_run(
            own_data.new_run(task, architecture, config, seed, start=start), task, current if carry_on else None
        )

    def draw(snapshot, key: str) -> None:
        ui.plotly(own_data.snapshot_figure, snapshot, key=key)
        st.text(f"Its translation of this pair now: {snapshot.prediction}")

    ui.training_panel(
        f"own_data.train.{architecture}",
        make_run,
        draw,
        budget_seconds=float(budget),
        target=own_data.TARGET,
        train_label="Continue" if carry_on else "Train",
    )


if data is None:
    st.info("Choose an example set, upload a file or paste pairs: the page shows what it read before anything trains.")
else:
    what_was_read(data.pairs)
    ui.section("4 · Train a model on them", own_data.train_text(data.task))
    train_yourself(data.task)

# --- 5. Your model on a sentence -------------------------------------------------------------------------------
ui.section("5 · Your model on a sentence")
models = {m.architecture: m for m in filter(None, (mine.own_model(a) for a in own_data.ARCHITECTURES))}
if models:
    shown = models[
        st.radio(
            "Your model", list(models), format_func=own_data.ARCHITECTURES.get, horizontal=True, key="own_data.shown"
        )
    ]
    st.caption(shown.caption)
    text = st.text_input(
        "A sentence in its source language",
        value=shown.sample,
        max_chars=own_data.LIMITS.max_chars,
        key=f"own_data.sentence.{shown.architecture}.{shown.task.fingerprint[:8]}",
    )
    reading = own_data.read_sentence(shown.model, shown.task, text)
    if isinstance(reading, str):
        st.warning(reading)
    else:
        st.text(f"Its translation: {reading.text}")
        if reading.message:
            st.info(reading.message)
        ui.plotly(reading.figure, key="own_data.reading")
    st.markdown("Use it in the lessons, on sentences of your language:")
    for path, label in own_data.LESSON_VIEWS[shown.architecture]:
        st.page_link(path, label=label, icon=":material/arrow_forward:")
else:
    st.info("Train a model above, or load one you kept (below): it shows here and in the lessons' attention views.")

# --- 6. Keep it ------------------------------------------------------------------------------------------------
ui.section("6 · Keep it: one file, and back", own_data.keep_text())
for architecture in models:
    name, data_bytes = ui.model_file(architecture)
    st.download_button(
        f"Download your {own_data.ARCHITECTURES[architecture]} ({len(data_bytes) / 1e6:.1f} MB)",
        data_bytes,
        file_name=name,
        mime="application/octet-stream",
        on_click="ignore",
        key=f"own_data.download.{architecture}",
        icon=":material/download:",
    )
mine.model_upload()
ui.class_models()  # in a class: the teacher shares a model; a student loads one the teacher shared
