"""Lesson: what attention costs, and the KV cache (Part 4)."""

import streamlit as st

import ui
from lessons import kv_cache
from lessons.kv_cache import cached_decoding, cost, length_sweep, linear, timing, train_window, window, window_task
from lessons.kv_cache import results as shipped
from lessons.masking import decoders, word_cipher
from minimodels.kv_cache import KVCache, WindowedDecoder, decode_step, generate_cached, window_mask
from minimodels.linear_attention import LinearAttentionSeq2Seq, linear_attention, linear_step

lesson = ui.lesson("kv_cache", kv_cache.INTRO)
st.latex(kv_cache.INTRO_EQUATION)
results = ui.shipped_results(lesson, loader=shipped.load_results)


def bullets(lines: list[str]) -> None:
    st.markdown("\n".join(f"- {line}" for line in lines))


ui.symbols("kv_cache")

# --- 1. Decoding with a cache ------------------------------------------------------------------------------------
ui.section(cached_decoding.TITLE, cached_decoding.TEXT)
st.latex(cached_decoding.EQUATION)
two_ways = ui.cached(cached_decoding.two_ways, max_entries=64, show_spinner=False)
parity = ui.cached(linear.parity, max_entries=4, show_spinner=False)  # the same two numbers for every student


@st.fragment  # the word reruns this section only
def both_ways() -> None:
    word = ui.checked_text(
        st.text_input,
        f"Your word ({word_cipher.WORD} letters a–z)",
        word_cipher.PROBE,
        key="kv_cache.word",
        parse=word_cipher.parse_word,
        keep="word",
        what="word",
        ok_key="kv_cache.word_ok",
        max_chars=40,
    )
    view = two_ways(word)
    prediction = cached_decoding.gap_prediction(view)
    ui.exercise(prediction)

    def answer() -> None:
        ui.table(cached_decoding.comparison_rows(view))
        st.caption(cached_decoding.comparison_caption(view, quote=ui.literal))

    ui.reveal("both ways' ciphers", answer, key="kv_cache.reveal.both", after=prediction.key)


if ui.pretrained(*decoders.PRETRAINED_KEYS[True]) is not None:
    both_ways()

# --- 2. What one more token costs --------------------------------------------------------------------------------
ui.section(cost.TITLE, cost.TEXT)
if results is not None:
    shipped_rows = results.meta["timing"]
    doubling = cost.doubling_prediction(shipped_rows)
    ui.exercise(doubling)

    def shipped_timing() -> None:
        ui.plotly(
            cost.timing_figure, shipped_rows, "One step, as the results script measured it", key="kv_cache.timing"
        )
        bullets(cost.growth_sentences(shipped_rows))
        st.caption("Measured on: " + cost.machine_text(results.meta["machine"], timing.REPEATS))

    ui.reveal("the measured timings", shipped_timing, key="kv_cache.reveal.timing", after=doubling.key)


@st.fragment  # timing again reruns this section only
def time_it_here() -> None:
    st.markdown(
        f"Time it on the computer that serves this page: each way at t = "
        f"{', '.join(f'{t:,}' for t in timing.LENGTHS)}, {timing.REPEATS} repeats each (a few seconds)."
    )
    if st.button("Time one step three ways", key="kv_cache.time_it", icon=":material/timer:"):
        with st.spinner("Timing…"):
            st.session_state["kv_cache.timed"] = {"rows": timing.measure(), "machine": timing.machine()}
    timed = st.session_state.get("kv_cache.timed")
    if timed is not None:
        ui.plotly(cost.timing_figure, timed["rows"], "One step, measured just now here", key="kv_cache.timing.here")
        bullets(cost.growth_sentences(timed["rows"]))
        st.caption("This server's: " + cost.machine_text(timed["machine"], timing.REPEATS))


time_it_here()
st.markdown(
    "**Memory for one sequence**, one layer, float32: the cache from its shapes and as torch allocated its buffers "
    "(allocated once for the whole length), the score table a recompute builds at that step, and linear attention's "
    "state (section 4)."
)
ui.table(cost.memory_table(timing.memory_rows()))

# --- 3. A sliding window -----------------------------------------------------------------------------------------
ui.section(window.TITLE, window.TEXT)
columns = st.columns([3, 2])
with columns[0]:
    st.markdown("One sequence of the task (the answer is the capital, in lower case):")
    st.text(window.example_text())
with columns[1]:
    ui.plotly(window.mask_figure, key="kv_cache.window.mask")
if results is not None:
    reach = window.window_prediction(results)
    ui.exercise(reach)

    def window_results() -> None:
        ui.table(window.rows(results))
        bullets(window.sentences(results))
        ui.vega(window.chart(results), key="kv_cache.window.chart")
        ui.provenance(results.meta, note=window.provenance_note(results))

    ui.reveal("the measured windows", window_results, key="kv_cache.reveal.window", after=reach.key)

st.subheader(train_window.TITLE)
ui.explain(train_window.train_text())


@st.fragment  # moving these controls reruns this panel only
def train_a_window() -> None:
    c = st.columns([2, 1, 2])
    live_window = c[0].select_slider("Window w", window_task.WINDOWS, value=7, key="kv_cache.live_window")
    live_seed = int(c[1].number_input("Seed", 0, 9999, 0, key="kv_cache.live_seed"))
    budget = c[2].select_slider("Seconds of training", [5, 10, 20, 30], value=10, key="kv_cache.budget")

    def draw(snapshot: train_window.WindowProgress, key: str) -> None:
        ui.plotly(train_window.snapshot_figure, snapshot, key=key)
        st.caption(train_window.snapshot_caption(snapshot))

    ui.training_panel(
        "kv_cache.train.window",
        lambda: train_window.new_run(live_window, live_seed, budget),
        draw,
        budget_seconds=budget,
    )


train_a_window()

# --- 4. Linear attention -----------------------------------------------------------------------------------------
ui.section(linear.TITLE, linear.TEXT)
for equation in linear.EQUATIONS:
    st.latex(equation)
gaps = st.columns(2)
for column, T in zip(gaps, (16, 256), strict=True):
    column.metric(f"recurrent vs parallel form, T = {T}: largest gap (float64)", f"{parity(T):.1e}")
st.caption(
    "Both forms on the same random queries, keys and values: the running sums give what the masked matrix gives, "
    "to the last bits of float64. What each decoder of lesson 2's copy task can read of the source, in numbers:"
)
ui.table(linear.reads_rows())
if results is not None:
    sweep = linear.linear_prediction(results)
    ui.exercise(sweep)

    def sweep_results() -> None:
        ui.table(linear.table(results))
        bullets(linear.sentences(results))
        ui.vega(linear.chart(results), key="kv_cache.sweep.chart")
        ui.provenance(results.meta, note=linear.provenance_note(results))

    ui.reveal("the length sweep", sweep_results, key="kv_cache.reveal.sweep", after=sweep.key)

ui.page_tail(
    lesson,
    code=[
        (
            "The code that computes this",
            (KVCache, decode_step, generate_cached, window_mask, linear_attention, linear_step),
        ),
        (
            "The code of this page's measurements",
            (timing.measure, WindowedDecoder, window_task.train_window, LinearAttentionSeq2Seq, length_sweep.build),
        ),
    ],
    exercises=kv_cache.exercises(),
)
