"""The app's own stylesheet, injected once per page run by :func:`ui.page.page`, and the high-contrast switch.

Phones (390 px wide): a display equation, a table or a chart wider than the screen scrolls inside its
own box instead of pushing the page sideways (tests/browser/test_phone.py measures every page); a chart of several
panels is drawn one panel a row (:func:`narrow_screen`); a chart that still needs more than the screen's width says
so above it (the scroll boxes' cue), and a data frame whose columns scroll inside its grid says so under it (above,
its own toolbar would cover the words when tapped); on a touch screen or a phone, Plotly's toolbar is hidden: it
stays on screen there, over the chart's title (a heatmap's numbers still download under it). Contrast: captions are
Streamlit's grey at 60 % opacity (3.8:1 on white, under WCAG's 4.5:1 for small text: axe-core's finding on every
page, tests/browser/test_accessibility.py); here they are the body text's colour at 80 %, in a light or a dark theme.

High contrast (a sidebar switch, kept in the link as ``?contrast=high`` like presenter mode): every heatmap's
colour scale becomes the high-contrast one (:func:`lessons.common.colorscales.high_contrast`, applied by
``ui.plotly``) and text is drawn at full strength: body text and captions at the text colour, links underlined,
a thick focus ring.
"""

from __future__ import annotations

import streamlit as st

# A phone's screen: charts of several panels are drawn one panel a row there (``ui.plotly``). The server draws a page
# without knowing the window's width; it goes by what the browser said on its last visit (a cookie this page's
# script keeps up to date: "narrow" below Streamlit's own breakpoint, where it stacks a row's columns), else by
# whether the browser calls itself mobile ("Mobi" in every phone browser's user agent, in no tablet's or desktop's).
SCREEN_COOKIE = "attention_lab_screen"
NARROW_PX = 640
CONTRAST_PARAM = "contrast"  # ?contrast=high opens any page in high contrast
CONTRAST_KEY = "ui.high_contrast"  # plain session state (not a widget's), so it outlives page switches

# Fixed stylesheets: nothing a user typed ever goes into them.
# The last rule: a part of the page out of sight is laid out and painted when it comes near the screen, not while the
# page opens (content-visibility): a lesson is 3,400–6,200 DOM nodes, most of them below the fold, and Chromium laid
# out and painted all of them as the page arrived (bench/same_weight.md has the comparison). Such a box clips what it
# holds, 12 px past its edges (overflow-clip-margin): room for a control's 5 px focus ring (high contrast) where it
# pokes out of its box (a data frame's toolbar sits 4 px above it), so a browser without overflow-clip-margin (Safari)
# skips the rule. No exception by selector: `:not(:has(…))` on every box cost the browser more than the rule saved. A
# student scrolling sees the same page (axe-core finds the same on the masking page with the rule and with every part
# forced visible); tests/browser/test_every_page_by_url.py checks the rings; a full-page screenshot first makes the
# window as tall as the page (scripts/screenshot.py).
APP_CSS = """<style>
.katex-display { overflow-x: auto; overflow-y: hidden; max-width: 100%; }
[data-testid="stMarkdownContainer"] table { display: block; max-width: 100%; overflow-x: auto; }
[data-testid="stElementContainer"]:has(.stVegaLiteChart),
[data-testid="stElementContainer"]:has([data-testid="stPlotlyChart"]) { max-width: 100%; overflow-x: auto; }
[data-testid="stCaptionContainer"] { color: inherit; opacity: 0.8; }
@media (hover: none), (max-width: 639px) { [data-testid="stPlotlyChart"] .modebar-container { display: none; } }
[data-scroll-box][role="region"]:not(.katex-display)::before {
  content: "↔ Swipe or scroll sideways to see all of it"; display: block; position: sticky;
  left: 0; width: max-content; max-width: 90vw; font-size: 0.85rem; opacity: 0.8; padding-bottom: 0.25rem; }
[data-wide-table] { position: relative; padding-bottom: 1.6rem; }
[data-wide-table]::after {
  content: "↔ Scroll the table sideways to see all of it"; position: absolute; left: 0; right: 0; bottom: 0;
  font-size: 0.85rem; line-height: 1.5rem; opacity: 0.8; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; }
@supports (overflow-clip-margin: 12px) {
  [data-testid="stMain"] [data-testid="stElementContainer"] {
    content-visibility: auto; contain-intrinsic-size: auto 120px; overflow-clip-margin: 12px; }
}
</style>"""
# A box that scrolls sideways must take the keyboard's focus (WCAG 2.1.1; axe-core's scrollable-region-focusable),
# or a keyboard user cannot scroll it: while an equation, a table or a chart is wider than its box, the box gets
# tabindex=0 and a name. Installed once per browser tab; fixed text, nothing a user typed.
SCROLL_BOXES_JS = """<script>
(() => {
  if (window.attentionLabScrollBoxes) return;
  window.attentionLabScrollBoxes = true;
  const boxes = '.katex-display, [data-testid="stMarkdownContainer"] table, [data-testid="stTable"] > div, '
    + '[data-testid="stElementContainer"], [data-testid="stLayoutWrapper"]';  // the last two: a chart's box
  const name = (el) => el.matches('.katex-display') ? 'Equation, scrolls sideways'
    : el.matches('table, [data-testid="stTable"] > div') ? 'Table, scrolls sideways' : 'Chart, scrolls sideways';
  const mark = () => {
    for (const el of document.querySelectorAll(boxes)) {
      const wide = el.scrollWidth > el.clientWidth + 1 && ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
      if (wide && !el.hasAttribute('tabindex')) {
        el.tabIndex = 0;
        el.setAttribute('aria-label', name(el));
        if (!el.matches('table')) el.setAttribute('role', 'region');
        el.dataset.scrollBox = '1';
      } else if (!wide && el.dataset.scrollBox) {
        ['tabindex', 'aria-label', 'role', 'data-scroll-box'].forEach((a) => el.removeAttribute(a));
      }
    }
    // a data frame scrolls inside its own grid (which takes the keyboard itself): its box only says so
    for (const grid of document.querySelectorAll('[data-testid="stDataFrame"]')) {
      const scroller = grid.querySelector('.dvn-scroller'), box = grid.closest('[data-testid="stElementContainer"]');
      const wide = !!scroller && scroller.scrollWidth > scroller.clientWidth + 1;
      if (box && wide !== box.hasAttribute('data-wide-table')) box.toggleAttribute('data-wide-table', wide);
    }
  };
  let queued = false;
  const soon = () => { if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; mark(); }); } };
  new MutationObserver(soon).observe(document.body, {childList: true, subtree: true});
  const screen = () => {  // the window's width class, for the server's next visit (ui.style.narrow_screen)
    const said = window.innerWidth < NARROW_PX ? 'narrow' : 'wide';
    document.cookie = `SCREEN_COOKIE=${said}; Max-Age=31536000; Path=/; SameSite=Lax`;
  };
  window.addEventListener('resize', () => { soon(); screen(); });
  mark();
  screen();
})();
</script>""".replace("SCREEN_COOKIE", SCREEN_COOKIE).replace("NARROW_PX", str(NARROW_PX))
HIGH_CONTRAST_CSS = """<style>
[data-testid="stCaptionContainer"] { opacity: 1; }
[data-testid="stMain"] :is(p, li, td, th, label) { font-weight: 500; }
[data-testid="stMain"] a { text-decoration: underline; }
:is(a, button, input, textarea, [role="slider"], [role="combobox"], summary):focus-visible {
  outline: 3px solid currentColor !important; outline-offset: 2px; }
</style>"""


def high_contrast() -> bool:
    """Whether this student's pages are in high contrast (the sidebar switch, or ``?contrast=high``)."""
    if CONTRAST_KEY not in st.session_state:  # the session's first page: the link decides
        st.session_state[CONTRAST_KEY] = st.query_params.get(CONTRAST_PARAM, "") == "high"
    return st.session_state[CONTRAST_KEY]


def narrow_screen() -> bool:
    """Whether this student's screen is a phone's (see :data:`SCREEN_COOKIE`); False where nothing says so."""
    try:
        said = st.context.cookies.get(SCREEN_COOKIE)
        if said in ("narrow", "wide"):
            return said == "narrow"
        return "Mobi" in (st.context.headers.get("User-Agent") or "")
    except Exception:  # noqa: BLE001 - no browser behind this run (AppTest): a desktop's page
        return False


def _contrast_changed() -> None:
    st.session_state[CONTRAST_KEY] = st.session_state[f"{CONTRAST_KEY}.toggle"]


def apply() -> None:
    """The stylesheet for this page, and the high-contrast switch at the top of the sidebar."""
    on = high_contrast()
    st.session_state[f"{CONTRAST_KEY}.toggle"] = on
    with st.sidebar:
        st.toggle(
            "High contrast",
            key=f"{CONTRAST_KEY}.toggle",
            on_change=_contrast_changed,
            help="Stronger text; heatmaps in black and white (signed ones: dark red to dark blue).",
        )
    if on and st.query_params.get(CONTRAST_PARAM) != "high":
        st.query_params[CONTRAST_PARAM] = "high"
    elif not on and CONTRAST_PARAM in st.query_params:
        del st.query_params[CONTRAST_PARAM]
    st.html(APP_CSS + (HIGH_CONTRAST_CSS if on else "") + SCROLL_BOXES_JS, unsafe_allow_javascript=True)
