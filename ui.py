"""The one small UI helper module: page set-up, the shared sidebar (the course map), and display helpers.

Only this module and ``pages/`` import streamlit. Streamlit's own page list is turned off
(``client.showSidebarNavigation = false``) and every page calls :func:`page`, which draws the sectioned course
map with ``st.page_link``; ``st.navigation`` is never called while a ``pages/`` folder exists (it breaks
deep links such as ``/queries_keys_values``).
"""

from __future__ import annotations

import inspect

import streamlit as st

from lessons.catalog import COURSE
from lessons.exercises import Exercise

HOME = "app.py"


@st.cache_resource(show_spinner=False)
def _device_label() -> str:
    from minimodels.device import device_label

    return device_label()


def page(title: str, icon: str = "🔎") -> None:
    """Set up a page: its browser title, the wide layout, and the course map in the sidebar."""
    st.set_page_config(page_title=f"{title} · Attention Lab", page_icon=icon, layout="wide")
    sidebar()


def sidebar() -> None:
    with st.sidebar:
        st.page_link(HOME, label="Attention Lab · course map", icon=":material/school:")
        for part in COURSE:
            st.markdown(f"**{part.title}**")
            for lesson in part.lessons:
                if lesson.built:
                    st.page_link(lesson.page, label=lesson.title, icon=lesson.icon)
                else:
                    st.caption(f"{lesson.title} · coming")
        st.divider()
        st.caption(f"Models run on: **{_device_label()}**")


def show_code(*objects, label: str = "The code that computes this") -> None:
    """The source of the functions a figure comes from, read with ``inspect.getsource`` (never pasted)."""
    with st.expander(label, icon=":material/code:"):
        for obj in objects:
            st.code(inspect.getsource(obj), language="python")


def exercise(ex: Exercise) -> None:
    """One check-yourself question with its answer box and automatic feedback."""
    with st.container(border=True):
        st.markdown(ex.prompt)
        with st.form(key=f"{ex.key}.form", border=False):
            if ex.is_choice:
                response = st.radio("Your answer", ex.choices, index=None, key=f"{ex.key}.answer")
            else:
                response = st.number_input("Your answer", value=None, step=0.01, format="%.3f", key=f"{ex.key}.answer")
            submitted = st.form_submit_button("Check")
        if submitted:
            feedback = ex.check(response)
            (st.success if feedback.correct else st.warning)(feedback.message)


def plotly(fig, key: str) -> None:
    """A Plotly figure with the toolbar's PNG download, no logo and no scroll-zoom."""
    st.plotly_chart(
        fig,
        key=key,
        width="stretch",
        config={"displaylogo": False, "scrollZoom": False, "toImageButtonOptions": {"format": "png"}},
    )
