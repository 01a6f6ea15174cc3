"""axe-core inside the real Chromium: no serious or critical WCAG 2.1 A/AA violation on any page beyond those of
Streamlit's own bare page (the baseline, measured here on a one-slider, one-heatmap page served by its own
``streamlit run``), on a phone (every page) and at desktop width (two lessons, their sidebar open); and every
control of those two lessons reachable with the Tab key."""

import pytest

from tests.browser.audit import pages, run_axe, serious, settle, visit
from tests.helpers import goto, streamlit_run

pytestmark = pytest.mark.browser

BARE_PAGE = "bench/bare_heatmap.py"  # Streamlit's own elements only: a title, a slider, a Plotly heatmap


@pytest.fixture(scope="module")
def bare_server(tmp_path_factory):
    """``streamlit run bench/bare_heatmap.py`` from the repository root (the app's config) on a free port."""
    with streamlit_run(BARE_PAGE, tmp_path_factory.mktemp("bare"), what="the bare page's streamlit") as url:
        yield url


@pytest.fixture(scope="module")
def baseline(browser, bare_server) -> set[str]:
    """The rules Streamlit's own bare page breaks (serious or critical): not ours to fix."""
    return {v["id"] for v in serious(visit(browser, bare_server, "")["axe"])}


@pytest.mark.parametrize("path", pages(), ids=lambda path: path or "home")
def test_no_serious_accessibility_violation_beyond_streamlits_own(path, browser, streamlit_server, baseline):
    found = visit(browser, streamlit_server, path)
    touch = "target-size"  # the phone test's
    ours = [v for v in serious(found["axe"]) if v["id"] not in baseline and v["id"] != touch]
    assert ours == [], "\n".join(f"{v['id']} ({v['impact']}): {v['help']}: {v['nodes'][:3]}" for v in ours)


# Every control of the main section a student can use now (not inside a closed expander: its content is inert),
# marked with what Tab must reach: a radio group is one stop (the arrow keys move inside it, as in every browser),
# and a widget's own helper buttons out of the tab order are none when the widget's main control is in it (a number
# box's −/+: its arrow keys step; a select box's "Open": its arrow keys open it).
CONTROLS = """() => {
  const found = [...document.querySelectorAll(
      '[data-testid=stMain] :is(input, textarea, select, button, [role=slider], [role=combobox], summary)')]
    .filter((el) => { const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden' && !el.disabled
        && !el.closest('[inert], .modebar, [data-testid=stElementToolbar]')  // a chart's hover toolbar: the mouse's
        && !(el.tabIndex < 0 && el.closest('[data-testid=stElementContainer]')
             ?.querySelector('input:not([tabindex="-1"]), textarea, [tabindex="0"]')); });
  found.forEach((el, i) => { el.dataset.tabCheck = el.type === 'radio' ? 'radio:' + el.name : String(i); });
  return new Set(found.map((el) => el.dataset.tabCheck)).size;
}"""


@pytest.mark.parametrize("path", ["scaling", "multi_head_attention"])
def test_at_desktop_width_axe_passes_and_the_tab_key_reaches_every_control(path, page, streamlit_server, baseline):
    goto(page, f"{streamlit_server}/{path}")
    settle(page)
    ours = [v for v in serious(run_axe(page)) if v["id"] not in baseline]  # the sidebar is open here, unlike a phone's
    assert ours == [], "\n".join(f"{v['id']} ({v['impact']}): {v['help']}: {v['nodes'][:3]}" for v in ours)
    total = page.evaluate(CONTROLS)
    assert total >= 5
    # what took the focus, noted by the page itself; one lap of the page: every stop there is, plus slack
    stops = page.evaluate("""() => {
      window.tabReached = new Set();
      document.addEventListener('focusin', (e) => {
        if (e.target.dataset.tabCheck) tabReached.add(e.target.dataset.tabCheck);
      });
      return document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]').length;
    }""")
    page.locator("body").focus()
    for pressed in range(1, stops + 20):
        page.keyboard.press("Tab")
        if pressed % 25 == 0 and page.evaluate("tabReached.size") == total:
            break
    missing = page.evaluate(
        "() => [...document.querySelectorAll('[data-tab-check]')].filter((el) => !tabReached.has("
        "el.dataset.tabCheck)).map((el) => (el.getAttribute('aria-label') || el.textContent || el.tagName).trim()"
        ".slice(0, 40))"
    )
    assert missing == [], f"{len(missing)} of {total} controls never received the focus: {missing}"
