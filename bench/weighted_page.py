"""The bare page of ``bench/bare_heatmap.py`` inside a page of other elements that computes nothing.

    ?static=N      N markdown paragraphs that never change (half above the fragment, half below), a header every ten
    ?plotly=K      K more Plotly heatmaps (rows × cols, fixed numbers), spread through the paragraphs
    ?vega=K        K Vega-Lite line charts of 50 fixed points
    ?tables=K      K data frames of 8 rows × 4 columns
    ?prepared=1    every fixed figure built once per server and handed to Streamlit already serialised, as the lessons
                   hand theirs (``ui.plotly``: figures prepared once, ``to_dict`` made once): the true floor of a lesson
                   page, whose figures at their defaults are all prepared before (``bench.same_weight`` uses it)
    ?queue=1       after its title, the run waits for its turn as a lesson's does (``ui.server.admit``: at most two
                   whole-page runs at once); ``bench.classroom full --reference`` uses it, so that the class's
                   floor is measured with the same queue as the lessons

The slider and the heatmap sit in a fragment, as a lesson's section does. With a lesson's own counts
(``bench/same_weight.py`` reads them off the lesson page), this is the lesson's same-weight reference: the same
number of elements and charts, nothing computed (``bench/page_weight.py`` varies
``static`` alone).
"""

import numpy as np
import pandas  # noqa: F401 - first, as every lesson page does (ui.page): Plotly looks pandas up in sys.modules
import plotly.graph_objects as go
import streamlit as st

rows = int(st.query_params.get("rows", 12))
cols = int(st.query_params.get("cols", 12))
static = int(st.query_params.get("static", 0))
extra = {kind: int(st.query_params.get(kind, 0)) for kind in ("plotly", "vega", "tables")}
prepared = st.query_params.get("prepared") == "1"
FIXED = np.random.default_rng(0).random((rows, cols))
CURVE = [{"step": i, "loss": float(np.exp(-i / 10)), "run": "a"} for i in range(50)]
TABLE = {f"column {j}": [round(float(v), 3) for v in np.random.default_rng(j).random(8)] for j in range(4)}


@st.cache_resource
def prepared_heatmap(rows: int, cols: int):
    """The fixed heatmap of that size as the lessons hand a figure to Streamlit: built once, its ``to_dict`` made
    once."""
    from ui.charts import _frozen  # here: the lessons' own way; the bare reference never loads ui

    return _frozen(go.Figure(go.Heatmap(z=np.random.default_rng(0).random((rows, cols)))))


def charts(count: dict[str, int], part: str) -> None:
    """This part's share of the extra charts and tables, in the page's order."""
    for i in range(count["plotly"]):
        fig = prepared_heatmap(rows, cols) if prepared else go.Figure(go.Heatmap(z=FIXED))
        st.plotly_chart(fig, key=f"{part}.plotly.{i}")
    for i in range(count["vega"]):
        spec = {
            "mark": "line",
            "encoding": {
                "x": {"field": "step", "type": "quantitative"},
                "y": {"field": "loss", "type": "quantitative"},
            },
            "data": {"values": CURVE},
        }
        st.vega_lite_chart(spec=spec, key=f"{part}.vega.{i}")
    for _ in range(count["tables"]):
        st.dataframe(TABLE, hide_index=True)


def text(part: str, count: int, extras: dict[str, int]) -> None:
    every = max(1, count // (sum(extras.values()) + 1)) if any(extras.values()) else count + 1
    placed = dict.fromkeys(extras, 0)
    for i in range(count):
        if i % 10 == 0:
            st.header(f"Section {part}{i // 10 + 1}", divider="gray")
        st.markdown(f"Paragraph {part}{i + 1} of the lesson's text, which this control does **not** change.")
        if (i + 1) % every == 0:
            kind = next((k for k in extras if placed[k] < extras[k]), None)
            if kind is not None:
                charts({k: int(k == kind) for k in extras}, f"{part}{i}")
                placed[kind] += 1
    charts({k: extras[k] - placed[k] for k in extras}, f"{part}.end")


@st.fragment
def section() -> None:
    seed = st.slider("Seed", 0, 100, 0)
    z = np.random.default_rng(seed).random((rows, cols))
    st.plotly_chart(go.Figure(go.Heatmap(z=z)), key="bare.heatmap")


st.title("Attention Lab")
queued = st.query_params.get("queue") == "1"
if queued:
    from ui import server

    server.admit()
text("A", static // 2, {k: v // 2 for k, v in extra.items()})
section()
text("B", static - static // 2, {k: v - v // 2 for k, v in extra.items()})
if queued:
    server.page_drawn()
