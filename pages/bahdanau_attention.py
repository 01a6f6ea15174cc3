"""Lesson: Bahdanau (additive) attention (Part 2)."""

import streamlit as st

import ui
from lessons import bahdanau_attention
from lessons.bahdanau_attention import (
    alignment,
    attention_cost,
    beam_search,
    decoding,
    forced_attention,
    lecture_pizza,
    step_by_step,
    training,
    weighted_sum,
)
from minimodels.attention import AdditiveAttention
from minimodels.seq2seq import Seq2Seq
from minimodels.tasks import get_task

lesson = ui.lesson("bahdanau_attention", bahdanau_attention.intro(bahdanau_attention.shipped_encoders()))
st.latex(bahdanau_attention.equations())
ui.symbols("bahdanau_attention")


measured_cost = ui.cached(attention_cost.measure_cost, max_entries=4, show_spinner="Timing both decoders…")
STEP = "bahdanau_attention.step"


@st.fragment  # the task, the model and the sentence rerun what depends on them, not the lesson's introduction
def on_the_task() -> None:
    cols = st.columns([2, 3])
    task_name = ui.linked(
        cols[0].selectbox,
        "Task",
        list(decoding.TASKS),
        format_func=decoding.TASKS.get,
        key="bahdanau_attention.task",
    )
    task = get_task(task_name)
    loaded = ui.pretrained(task_name, decoding.MODEL)
    if loaded is None:
        return
    shipped, info = loaded
    model = ui.model_choice(
        shipped,
        ui.trained_model(f"bahdanau_attention.train.{task_name}"),
        key=f"bahdanau_attention.use.{task_name}",
        own_data=decoding.MODEL,
    )
    reads = ui.model_data(model, task, task_name, decoding.default_text(task_name))  # your own data's, if yours
    task = reads.task

    def run(fn, text: str, **how):
        """The chosen model's decoding or walk (a shipped one's computed once per server, shared by every student)."""
        return ui.shared_view(fn, model, task, text, **how)

    st.caption(reads.caption or decoding.model_caption(model, shipped, info))
    text = ui.linked(
        cols[1].text_input,
        "Source sentence",
        value=reads.text,
        key=f"bahdanau_attention.text.{reads.name}",
        max_chars=500,
        help="Type your own. Words the model never saw become <unk>.",
    )
    decoded = ui.model_output(run(decoding.decode, text))  # nothing to decode: the student is told why

    ui.section(step_by_step.TITLE, step_by_step.TEXT)
    T = len(decoded.target)
    st.session_state[STEP] = min(max(1, st.session_state.get(STEP, 1)), T)

    def _next_token() -> None:
        st.session_state[STEP] = min(st.session_state[STEP] + 1, T)

    @st.fragment
    def step_by_step_view() -> None:
        c = st.columns([1, 4])
        c[0].button(
            "Next token",
            on_click=_next_token,
            icon=":material/skip_next:",
            key="bahdanau_attention.next",
            disabled=st.session_state[STEP] >= T,
        )
        t = c[1].slider("Decoder step t", 1, T, key=STEP) if T > 1 else 1
        st.markdown(f"Written so far: {ui.literal(' '.join(decoded.target[:t]))}")
        steps = run(step_by_step.walk, text)
        alpha, context = step_by_step.step_figures(decoded, t)
        left, right = st.columns(2)
        with left:
            ui.plotly(alpha, key="bahdanau_attention.alpha")
        ui.table(
            step_by_step.score_rows(steps, t),
            formats={"score eₜ,ᵢ": "%.3f", "αₜ,ᵢ = softmax(e)": "%.4f"},
            container=right,
        )
        ui.plotly(context, key="bahdanau_attention.context")
        left, right = st.columns(2)
        ui.table(step_by_step.vector_rows(steps, t), formats={"‖·‖": "%.3f"}, container=left)
        ui.table(step_by_step.top_rows(steps, t), formats={"p(yₜ | y₍<t₎, x)": "%.4f"}, container=right)
        st.caption(step_by_step.step_sentence(steps, t))

    step_by_step_view()

    ui.section(alignment.TITLE)
    figure = alignment.alignment_figure(decoded, alignment.FIGURE_TITLE)
    ui.plotly(figure, key="bahdanau_attention.heatmap")
    st.caption(alignment.alignment_note(decoded))

    ui.section(weighted_sum.TITLE, weighted_sum.TEXT)

    @st.fragment
    def weighted_sum_view() -> None:
        french = ui.pretrained("toy-translation", decoding.MODEL)
        if french is None:
            return
        fr = model if task_name == "toy-translation" and reads.caption is None else french[0]  # not your own data's
        c = st.columns([3, 2])
        jane = ui.linked(
            c[0].text_input, "English sentence", value=weighted_sum.JANE, key="bahdanau_attention.jane", max_chars=200
        )
        result = ui.shared_view(decoding.decode, fr, get_task("toy-translation"), jane)
        if isinstance(result, str):
            st.warning(result)
            return
        t = c[1].slider("Output step t", 1, len(result.target), 1, key="bahdanau_attention.jane_step")
        st.markdown(f"**French-like output:** {ui.literal(result.translation.text)}")
        if result.translation.message:  # unknown words, text cut
            st.info(result.translation.message)
        ui.plotly(weighted_sum.weighted_sum_figure, result, t, key="bahdanau_attention.jane_sum")
        st.caption(f"{weighted_sum.weighted_sum_sentence(result, t)} Model: {fr.config.describe()}.")

    weighted_sum_view()
    pizza_model = ui.pretrained(lecture_pizza.PIZZA_TASK, decoding.MODEL)
    if pizza_model is not None:  # the shipped model's, whatever the student trained: the slide is set beside it
        pizza = ui.shared_view(decoding.decode, pizza_model[0], get_task(lecture_pizza.PIZZA_TASK), lecture_pizza.PIZZA)
        if not isinstance(pizza, str):
            st.markdown("**The lecture's *I like pizza* weights beside the model's**")
            ui.table(lecture_pizza.pizza_rows(pizza))
            st.caption(lecture_pizza.pizza_sentence(pizza))

    ui.section(beam_search.TITLE, beam_search.TEXT)

    @st.fragment
    def beam() -> None:
        width = ui.linked(st.slider, "Beam width k", 1, beam_search.MAX_BEAM, 3, key="bahdanau_attention.beam")
        result = run(decoding.decode, text, method="beam", width=width)
        if isinstance(result, str):
            st.warning(result)
            return
        ui.table(beam_search.beam_rows(result, task))
        st.caption(beam_search.beam_note(result, decoded))

    beam()

    ui.section(forced_attention.TITLE, forced_attention.TEXT)

    @st.fragment
    def what_if() -> None:
        left, right = st.columns(2)
        step = left.selectbox(
            "Step",
            range(T),
            format_func=lambda i: f"{i + 1}: {decoded.target[i]}",
            key="bahdanau_attention.force_step",
        )
        source_index = right.selectbox(
            "Force attention onto",
            range(len(decoded.source)),
            format_func=lambda i: decoded.source[i],
            key="bahdanau_attention.force_source",
        )
        forced = run(decoding.decode, text, force=(step, source_index))
        st.markdown(
            f"**Original:** {ui.literal(decoded.translation.text)}  \n**Forced:** {ui.literal(forced.translation.text)}"
        )
        ui.plotly(alignment.alignment_figure, forced, forced_attention.FIGURE_TITLE, key="bahdanau_attention.forced")
        st.caption(forced_attention.forced_note(forced, decoded, step, source_index))

    what_if()

    ui.section(attention_cost.TITLE)
    cost = measured_cost(shipped.config)
    ui.explain(attention_cost.TEXT.format(batch=cost.batch, repeats=cost.repeats))
    left, right = st.columns(2)
    time_chart, memory_chart = attention_cost.cost_charts(cost)
    ui.vega(time_chart, key="bahdanau_attention.cost.time", container=left)
    ui.vega(memory_chart, key="bahdanau_attention.cost.memory", container=right)
    st.markdown(attention_cost.cost_sentence(cost))
    st.caption(attention_cost.cost_caption(cost))

    budget = training.budget_seconds(task_name)
    ui.section(training.TITLE, training.train_text(budget, shipped.config.bidirectional))

    @st.fragment  # moving these controls reruns this section only, not the whole lesson
    def train_yourself() -> None:
        c = st.columns([1, 2])
        seed = int(ui.linked(c[0].number_input, "Seed", 0, 9999, 0, key="bahdanau_attention.seed"))
        both_ways = ui.linked(
            c[1].toggle,
            training.bidirectional_label(shipped.config.bidirectional),
            value=False,
            key="bahdanau_attention.bidirectional",
        )

        def draw(snapshot, key: str) -> None:
            ui.plotly(training.snapshot_figure, snapshot, key=key)
            st.caption(f"The model's output for it now: {ui.literal(snapshot.prediction)}")

        ui.training_panel(
            f"bahdanau_attention.train.{task_name}",
            lambda: training.new_run(task_name, seed, budget, both_ways),
            draw,
            budget_seconds=budget,
            target=0.98,
        )
        run_now = ui.current_run(f"bahdanau_attention.train.{task_name}")
        if run_now is not None:
            st.caption(f"This run's model: {run_now.label}.")

    train_yourself()


on_the_task()
italian = ui.pretrained("toy-translation-it", decoding.MODEL)
ui.page_tail(
    lesson,
    code=[("The code that computes this", (AdditiveAttention, Seq2Seq._previous_step, step_by_step.walk))],
    exercises=ui.shared_view(bahdanau_attention.exercises, italian[0]) if italian else None,  # once per server
)
