"""The yardstick of bench/latency.py and bench/cold_start.py: a bare Streamlit page, one slider, one heatmap.

``?rows=R&cols=C`` sets the heatmap's size (the lesson's own). Run from the repository root so that it gets
the same ``.streamlit/config.toml`` as the app.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.title("Attention Lab")
rows = int(st.query_params.get("rows", 12))
cols = int(st.query_params.get("cols", 12))
seed = st.slider("Seed", 0, 100, 0)
z = np.random.default_rng(seed).random((rows, cols))
st.plotly_chart(go.Figure(go.Heatmap(z=z)), key="bare.heatmap")
