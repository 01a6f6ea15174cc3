"""Presenter mode, for a projector: larger text and figures, explanations folded away, every control kept."""

from __future__ import annotations

import streamlit as st

from lessons.common import url_state

PRESENT_PARAM = "present"  # ?present=1 opens any page in presenter mode
PRESENT_KEY = "ui.present"  # plain session state (not a widget's), so it outlives page switches
PRESENTER_SCALE = 1.35  # figures' height and font in presenter mode
# A fixed stylesheet: nothing a user typed ever goes into it.
PRESENTER_CSS = """<style>
[data-testid="stMain"] [data-testid="stMarkdownContainer"] :is(p, li, td, th) { font-size: 1.45rem; line-height: 1.5; }
[data-testid="stMain"] [data-testid="stCaptionContainer"] :is(p, li) { font-size: 1.15rem; }
[data-testid="stMain"] h1 { font-size: 3.4rem; }
[data-testid="stMain"] h2 { font-size: 2.5rem; }
[data-testid="stMain"] h3 { font-size: 2rem; }
[data-testid="stMain"] [data-testid="stWidgetLabel"] p { font-size: 1.25rem; }
[data-testid="stMain"] .katex { font-size: 1.7em; }
[data-testid="stMain"] [data-testid="stMetricValue"] { font-size: 3rem; }
[data-testid="stMain"] :is(input, textarea) { font-size: 1.25rem; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding-left: 2.5rem; padding-right: 2.5rem; }
</style>"""


def presenting() -> bool:
    """Whether this student's pages are in presenter mode (the sidebar toggle, or ``?present=1``)."""
    if PRESENT_KEY not in st.session_state:  # the session's first page: the link decides
        try:
            st.session_state[PRESENT_KEY] = url_state.parse_bool(st.query_params.get(PRESENT_PARAM, "0"))
        except url_state.LinkValueError:
            st.session_state[PRESENT_KEY] = False
    return st.session_state[PRESENT_KEY]


def _presenter_changed() -> None:
    st.session_state[PRESENT_KEY] = st.session_state[f"{PRESENT_KEY}.toggle"]


def presenter_toggle() -> None:
    """The sidebar switch; the mode is written into the link (``present=1``) so a shared link presents."""
    on = presenting()
    st.session_state[f"{PRESENT_KEY}.toggle"] = on
    st.toggle(
        "Presenter mode",
        key=f"{PRESENT_KEY}.toggle",
        on_change=_presenter_changed,
        help="For a projector: larger text and figures, explanations folded into expanders.",
    )
    if on and st.query_params.get(PRESENT_PARAM) != "1":
        st.query_params[PRESENT_PARAM] = "1"
    elif not on and PRESENT_PARAM in st.query_params:
        del st.query_params[PRESENT_PARAM]


def explain(markdown: str) -> None:
    """A lesson's explanatory text: shown as it is, or folded into an expander in presenter mode (the
    teacher says it; the screen keeps the figure). Developer text only: never pass what a user typed."""
    if presenting():
        with st.expander("Explanation", icon=":material/notes:"):
            st.markdown(markdown)
    else:
        st.markdown(markdown)


def literal(text: str) -> str:
    """User or model text as an inline code span in markdown: shown verbatim, never formatted or rendered."""
    return "`" + str(text).replace("`", "'").replace("\n", " ") + "`"


def model_output(result):
    """A model's reading of the student's sentence, shown the same way on every page: a refusal (a string: why
    the text cannot be read) is a warning and ends the page's run; otherwise the decoder's note, if any, and
    "**Output:**" with the model's text shown verbatim. Returns ``result``."""
    if isinstance(result, str):
        st.warning(result)
        st.stop()
    if result.translation.message:
        st.info(result.translation.message)
    st.markdown(f"**Output:** {literal(result.translation.text)}")
    return result
