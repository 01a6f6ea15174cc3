"""A real Chromium against a real `streamlit run` server: every page opened by its URL."""

import pytest
from playwright.sync_api import expect

from lessons.common.catalog import COURSE, built_lessons
from tests.browser.audit import visit
from tests.helpers import HEATMAP, SCRIPT_DONE, assert_no_exception, goto, plotly_heatmap, watch_redraws

pytestmark = pytest.mark.browser
expect.set_options(timeout=30_000)


def link_to(lesson) -> str:
    """st.page_link writes a relative href ("queries_keys_values"); accept an absolute one too."""
    return f"a[href='{lesson.url_path}'], a[href$='/{lesson.url_path}']"


def assert_course_map_in_sidebar(page) -> None:
    sidebar = page.locator("[data-testid=stSidebar]")
    text = sidebar.inner_text()
    for part in COURSE:
        assert part.title in text
    for lesson in built_lessons():
        # waits (up to 30 s): on a fresh server the first page draws, then reruns (the presenter switch's state)
        expect(sidebar.locator(link_to(lesson)), f"no sidebar link to {lesson.url_path}").to_have_count(1)
    assert "Models run on" in text
    # Streamlit's own flat page list is off: only our sectioned map is there
    assert page.locator("[data-testid=stSidebarNav]").count() == 0


def test_home_page(page, streamlit_server, screenshot_dir):
    goto(page, streamlit_server + "/")
    assert_no_exception(page)
    assert page.get_by_role("heading", name="Attention Lab").count() == 1
    assert_course_map_in_sidebar(page)
    main = page.locator("[data-testid=stMain]")
    for lesson in built_lessons():
        expect(main.locator(link_to(lesson))).to_have_count(1)
    unbuilt = [lesson for part in COURSE for lesson in part.lessons if not lesson.built]
    assert ("coming" in main.inner_text()) == bool(unbuilt)  # a lesson not built yet is listed, never linked
    page.screenshot(path=screenshot_dir / "home.png", full_page=True)


DRAWN_AFTER_TRAINING = {"induction_heads"}


@pytest.mark.parametrize("lesson", built_lessons(), ids=lambda lesson: lesson.url_path)
def test_lesson_opens_by_url(lesson, browser, streamlit_server):
    """A fresh tab on the lesson's own URL (the visit the phone and accessibility tests read too): no error, the
    lesson's title, its heatmaps drawn, and the course map in the sidebar, not Streamlit's own page list."""
    seen = visit(browser, streamlit_server, lesson.url_path)
    assert seen["exceptions"] == []
    assert seen["title"] == lesson.title
    # its heatmaps drawn; the induction lesson draws its heads' maps once the student trains (nothing to map before)
    assert seen["heatmaps"] > 0 or lesson.slug in DRAWN_AFTER_TRAINING
    sidebar = seen["sidebar"]
    assert all(part.title in sidebar["text"] for part in COURSE) and "Models run on" in sidebar["text"]
    for other in built_lessons():
        assert sum(href == other.url_path or href.endswith(f"/{other.url_path}") for href in sidebar["hrefs"]) == 1
    assert sidebar["streamlitNav"] == 0


def test_qkv_heatmap_follows_the_typed_sentence(page, streamlit_server):
    goto(page, f"{streamlit_server}/queries_keys_values")
    box = page.get_by_label("Your sentence")
    box.fill("I like <b>pizza</b>")
    box.press("Enter")
    heatmap = plotly_heatmap(page, "row i attends")
    heatmap.locator("text", has_text="<b>pizza</b>").first.wait_for(timeout=30_000)
    assert_no_exception(page)
    # the typed markup is shown as text, never rendered: no <b> element was created from it
    assert heatmap.locator("b").count() == 0


def select_option(page, label: str, option: str) -> None:
    page.get_by_role("combobox", name=label).click()
    page.get_by_role("option", name=option).click()
    page.wait_for_selector(SCRIPT_DONE, timeout=60_000)


def test_live_training_redraws_the_heatmap_and_survives_clicks(page, streamlit_server, screenshot_dir):
    goto(page, f"{streamlit_server}/bahdanau_attention")
    select_option(page, "Task", "Written dates → ISO dates (character by character)")
    # The training panel's widgets are keyed by task: wait for the dates panel's own Train button, since a
    # click on the previous task's button while the page is still rerunning is dropped with that widget.
    train = page.locator(".st-key-bahdanau_attention-train-dates-train button")
    train.wait_for(timeout=60_000)
    train.click()
    live_title = page.locator(".js-plotly-plot .gtitle", has_text="on a fixed example after").first
    # a click elsewhere on the page while the model trains must not lose the run
    next_token = page.locator("[data-testid=stMain]").get_by_role("button", name="Next token")
    # three states: Next token is clicked after the second, and the third is a redraw after the click. (Waiting for
    # a fourth the test did not ask for held a slow machine for the whole 90 s once the short run had ended.)
    seen = watch_redraws(page, live_title, next_token.click, wanted=3, timeout=90.0)
    assert len(seen) == 3, f"the live heatmap was redrawn only for {seen}"  # so Next token was clicked
    # the page stayed interactive: the click was answered while the model trained (step 1 -> 2)
    expect(page.locator(".js-plotly-plot .gtitle", has_text="α at step 2 over the source")).to_have_count(1)
    assert_no_exception(page)
    page.screenshot(path=screenshot_dir / "bahdanau_training.png", full_page=True)
    stop = page.locator("[data-testid=stMain]").get_by_role("button", name="Stop")  # not the header's Stop
    if stop.is_enabled():
        stop.click()
    # one replay slider once the run has ended (while the panel reruns, its old one may still be on screen)
    expect(page.locator("[data-testid=stSlider]", has_text="Replay the run")).to_have_count(1, timeout=30_000)
    assert_no_exception(page)


SKIPPED_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const texts = [...main.querySelectorAll('[data-testid=stMarkdown] p')];
  const drawn = (el) => el.checkVisibility({contentVisibilityAuto: true, visibilityProperty: true});
  return {first: drawn(texts[0]), last: drawn(texts.at(-1))};
}"""
# Every control the eye can see (a toolbar's too, shown on hover or focus) in a box that draws only near the screen:
# by how many px it pokes out of that box
RINGS_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const box = (el) => { for (let e = el.parentElement; e && e !== main; e = e.parentElement) {
    if (getComputedStyle(e).contentVisibility !== 'visible') return e; } return null; };
  const hidden = (el) => { for (let e = el; e && e !== main; e = e.parentElement) {  // visually hidden, for readers
    const s = getComputedStyle(e); if (s.clip !== 'auto' || s.clipPath !== 'none') return true; } return false; };
  const controls = [...main.querySelectorAll('input, button, textarea, select, a, [role=slider], [tabindex]')]
    .filter((c) => c.checkVisibility({contentVisibilityAuto: true, visibilityProperty: true}))  // shown on hover too
    .filter((c) => !hidden(c) && c.getBoundingClientRect().width > 0);
  const boxed = controls.filter((c) => box(c));
  return {controls: controls.length, boxed: boxed.length, out: boxed.map((c) => {
    const r = c.getBoundingClientRect(), b = box(c).getBoundingClientRect();
    const clip = parseFloat(getComputedStyle(box(c)).overflowClipMargin) || 0;  // drawn up to this far outside
    return [(c.getAttribute('aria-label') || c.textContent).slice(0, 40),
            Math.max(b.left - r.left, b.top - r.top, r.right - b.right, r.bottom - b.bottom) + 5 - clip];
  }).filter(([, cut]) => cut > 0)};  // the 5 px ring: outline 3 px, 2 px away (ui.style's high contrast)
}"""


def test_text_out_of_sight_is_drawn_only_near_the_screen_and_no_focus_ring_is_cut(browser, streamlit_server):
    """ui.style's content-visibility: the lesson's first paragraph is drawn, its last (far below) only once the
    student scrolls there. Such a box clips what it holds beyond its overflow-clip-margin, so every control in one
    must have room there for its 5 px focus ring (high contrast): a data frame's toolbar sits 4 px above its box.
    The page as shipped: not the ``page`` fixture, which draws every part at once."""
    from scripts.screenshot import whole_page

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        goto(page, f"{streamlit_server}/masking")
        page.wait_for_selector(HEATMAP, state="attached", timeout=30_000)
        found = page.evaluate(SKIPPED_JS)
        assert found["first"] and not found["last"]
        whole_page(page, lambda: page.wait_for_timeout(1000))  # every part drawn, as a student scrolling sees each
        assert page.evaluate(SKIPPED_JS)["last"]
        rings = page.evaluate(RINGS_JS)
        assert rings["boxed"] >= 20 and rings["boxed"] / rings["controls"] > 0.8  # the rule reaches the controls
        assert rings["out"] == []
    finally:
        context.close()
