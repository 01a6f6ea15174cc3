"""The bare page of ``bench/bare_heatmap.py`` inside a page of ``?static=N`` other elements (bench/page_weight.py).

The slider and the heatmap sit in a fragment, as a lesson's section does; N markdown paragraphs that never
change surround it (half above, half below), with a header every ten, as a lesson's text does.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

rows = int(st.query_params.get("rows", 12))
cols = int(st.query_params.get("cols", 12))
static = int(st.query_params.get("static", 0))


def text(part: str, count: int) -> None:
    for i in range(count):
        if i % 10 == 0:
            st.header(f"Section {part}{i // 10 + 1}", divider="gray")
        st.markdown(f"Paragraph {part}{i + 1} of the lesson's text, which this control does **not** change.")


@st.fragment
def section() -> None:
    seed = st.slider("Seed", 0, 100, 0)
    z = np.random.default_rng(seed).random((rows, cols))
    st.plotly_chart(go.Figure(go.Heatmap(z=z)), key="bare.heatmap")


st.title("Attention Lab")
text("A", static // 2)
section()
text("B", static - static // 2)
