"""One visit per page, by its URL, on a phone (390 × 844 px, touch, a phone browser's user agent), for every test
that reads a page as it opens: the page opened by its URL, the phone and the accessibility tests.

A page is opened once in a fresh tab, fully drawn (no skeleton left), and measured in one go: its errors, title,
heatmaps and sidebar; what sticks out past the right edge (``scripts/screenshot.py``'s :data:`OVERFLOW_JS`, which
the screenshot script prints too); its display equations wider than the screen; its touch targets; axe-core's
audit (WCAG 2.1 A and AA, and WCAG 2.2's target size); and, the window grown to the whole page, its charts' text
boxes and which tables scroll sideways. The results are kept for the test session, so
``tests/browser/test_every_page_by_url.py``, ``tests/browser/test_phone.py`` and
``tests/browser/test_accessibility.py`` share the visit: drawing a page is the costly part.

axe-core comes from npm (``tests/a11y/package.json``, installed by the test command: ``npm ci --prefix tests/a11y``),
never at run time of the app; it is injected into the page under test.
"""

from __future__ import annotations

import os

import pytest

from lessons.common.catalog import TOOLS, built_lessons
from scripts.screenshot import PHONE as PHONE_BROWSER
from scripts.screenshot import overflow, whole_page
from tests.helpers import HEATMAP, ROOT, goto

PHONE = {"width": 390, "height": 844}
AXE = ROOT / "tests" / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_21 = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SERIOUS = ("serious", "critical")
# axe.run: WCAG 2.1 A/AA, and WCAG 2.2's 24 × 24 px target size (2.5.8, with its spacing exception) for touch
AXE_RUN = """async (tags) => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: tags},
                                          rules: {'target-size': {enabled: true}}, resultTypes: ['violations']});
  return result.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => n.target.join(' ') + ' :: ' + (n.failureSummary || '').split('\\n')[1])}));
}"""
# the sidebar as the document holds it (on a phone it is folded away, its text still there)
SIDEBAR_JS = """() => {
  const bar = document.querySelector('[data-testid=stSidebar]');
  return {text: bar ? bar.textContent : '',
          hrefs: bar ? [...bar.querySelectorAll('a')].map((a) => a.getAttribute('href')) : [],
          streamlitNav: document.querySelectorAll('[data-testid=stSidebarNav]').length};
}"""
# every display equation wider than its box: the part past its right edge is hidden until the reader scrolls it (KaTeX's
# glyphs overhang their box by up to 2 px, which hides nothing)
EQUATION_OVERHANG_PX = 3
WIDE_EQUATIONS_JS = """(slack) => [...document.querySelectorAll('[data-testid=stMain] .katex-display')]
  .filter((e) => e.scrollWidth > e.clientWidth + slack)
  .map((e) => ({width: e.scrollWidth, box: e.clientWidth, text: e.textContent.slice(0, 60)}))"""
# every link of the course map (home page): its box, for a finger
LINKS_JS = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPageLink-NavLink]')]
  .filter((a) => a.getBoundingClientRect().width > 0)
  .map((a) => ({text: a.textContent.trim().slice(0, 40), width: a.getBoundingClientRect().width,
                height: a.getBoundingClientRect().height, top: a.getBoundingClientRect().top}))"""


# Every pair of text boxes of one Plotly chart that overlap: its title, its annotations (a panel's title, a head's
# name), every tick label, every axis or colour bar title, the words beside its points and bars, and its legend's. A
# box is the text's own box turned as the text is (a tick label at -60° is a slanted rectangle, not the upright box
# around it), each side pulled in by TOLERANCE_PX (a glyph's box runs a pixel past its ink), and two boxes overlap
# when no side of either separates them.
TOLERANCE_PX = 1.5
CHART_TEXT_OVERLAPS_JS = r"""(tolerance) => {
  const corners = (el) => {
    const b = el.getBBox(), m = el.getScreenCTM();
    if (!m || b.width <= 2 * tolerance || b.height <= 2 * tolerance) return null;
    const t = tolerance;
    return [[b.x + t, b.y + t], [b.x + b.width - t, b.y + t], [b.x + b.width - t, b.y + b.height - t],
            [b.x + t, b.y + b.height - t]].map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  const separated = (p, q) => {
    for (const poly of [p, q]) {
      for (let i = 0; i < 4; i++) {
        const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4], nx = y1 - y2, ny = x2 - x1;
        const span = (r) => r.map(([x, y]) => nx * x + ny * y);
        const a = span(p), b = span(q);
        if (Math.max(...a) <= Math.min(...b) || Math.max(...b) <= Math.min(...a)) return true;
      }
    }
    return false;
  };
  const found = [];
  const charts = [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')];
  charts.forEach((chart, n) => {
    const texts = [...chart.querySelectorAll(
      '.gtitle, .annotation-text, .xtick > text, .ytick > text, .infolayer text[class$="title"], .cbtitle text, '
      + '.textpoint text, .bartext text, .legendtext')]
      .filter((el) => el.textContent.trim() && getComputedStyle(el).display !== 'none'
              && getComputedStyle(el).visibility !== 'hidden' && el.getAttribute('opacity') !== '0')
      .map((el) => ({el, text: el.textContent.trim().slice(0, 40), box: corners(el)}))
      .filter((t) => t.box);
    const title = (chart.querySelector('.gtitle') || {}).textContent || `chart ${n + 1}`;
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        if (!separated(texts[i].box, texts[j].box)) {
          found.push({chart: title.trim().slice(0, 60), a: texts[i].text, b: texts[j].text});
        }
      }
    }
  });
  return {charts: charts.length, overlaps: found};
}"""

# every data frame: whether its columns scroll inside its grid, whether its box says so (``ui.style``), and the room
# under the grid for those words (a grid stretched to its box's height covers them)
DATA_FRAMES_JS = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stDataFrame]')]
  .map((grid) => {
  const scroller = grid.querySelector('.dvn-scroller');
  const box = grid.closest('[data-testid=stElementContainer]');
  const after = box ? getComputedStyle(box, '::after') : null, cue = after ? after.content : 'none';
  return {scrolls: !!scroller && scroller.scrollWidth > scroller.clientWidth + 1,
          room: box ? box.getBoundingClientRect().bottom - grid.getBoundingClientRect().bottom : 0,
          line: after ? parseFloat(after.lineHeight) || 0 : 0,
          width: scroller ? scroller.scrollWidth : 0, box: scroller ? scroller.clientWidth : 0,
          says: cue !== 'none' && cue.includes('sideways'),
          columns: [...grid.querySelectorAll('[role=columnheader]')].map((h) => h.textContent.trim()).join(' | ')};
})"""
# every static table (``ui.text_table``): whether its box scrolls sideways, and whether the box says so above it
STATIC_TABLES_JS = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stTable] > div')]
  .map((box) => ({scrolls: box.scrollWidth > box.clientWidth + 1, width: box.scrollWidth, box: box.clientWidth,
                  says: getComputedStyle(box, '::before').content.includes('sideways'),
                  columns: [...box.querySelectorAll('thead th')].map((h) => h.textContent.trim()).join(' | ')}))"""


def pages() -> list[str]:
    """Every page's path: the course map (""), each built lesson, each tool page that exists."""
    return ["", *(lesson.url_path for lesson in built_lessons()), *(tool.slug for tool in TOOLS if tool.built)]


def axe_path():
    if not AXE.exists():
        message = f"axe-core not installed at {AXE} (npm ci --prefix tests/a11y)"
        if os.environ.get("CI"):
            pytest.fail(message)  # in CI the accessibility audit must run, never skip
        pytest.skip(message)
    return AXE


# true once the page's element count has not changed for 400 ms: the charts have drawn what they draw
STILL_JS = """() => {
  const n = document.getElementsByTagName('*').length, t = performance.now(), last = window.__stillSince;
  if (last && last.n === n) return t - last.t > 400;
  window.__stillSince = {n: n, t: t};
  return false;
}"""


def settle(page) -> None:
    """Wait until the page is fully drawn: script done, no skeleton, and nothing added or removed for 400 ms."""
    page.wait_for_function("!document.querySelector('[data-testid=stSkeleton]')", timeout=120_000)
    page.wait_for_function(STILL_JS, polling=100, timeout=120_000)


def run_axe(page) -> list[dict]:
    page.add_script_tag(path=str(axe_path()))
    return page.evaluate(AXE_RUN, WCAG_21)


def serious(violations: list[dict]) -> list[dict]:
    return [v for v in violations if v["impact"] in SERIOUS]


_visits: dict[tuple[str, str], dict] = {}


def visit(browser, base_url: str, path: str) -> dict:
    """The page at ``base_url/path`` on a phone, measured once per test session (see the module's docstring)."""
    key = (base_url, path)
    if key not in _visits:
        axe_path()
        context = browser.new_context(viewport=PHONE, **PHONE_BROWSER)
        try:
            page = context.new_page()
            goto(page, f"{base_url}/{path}")
            settle(page)
            _visits[key] = {
                "exceptions": page.locator("[data-testid=stException]").all_inner_texts(),
                "title": page.locator("h1").first.inner_text().strip() if page.locator("h1").count() else "",
                "heatmaps": page.locator(HEATMAP).count(),
                "sidebar": page.evaluate(SIDEBAR_JS),
                "overflow": overflow(page),
                "equations": page.evaluate(WIDE_EQUATIONS_JS, EQUATION_OVERHANG_PX),
                "links": page.evaluate(LINKS_JS),
                "axe": run_axe(page),
            }
            whole_page(page, lambda: settle(page))  # last: every chart drawn, the window as tall as the page
            _visits[key]["chart_texts"] = page.evaluate(CHART_TEXT_OVERLAPS_JS, TOLERANCE_PX)
            _visits[key]["data_frames"] = page.evaluate(DATA_FRAMES_JS)
            _visits[key]["static_tables"] = page.evaluate(STATIC_TABLES_JS)
        finally:
            context.close()
    return _visits[key]
