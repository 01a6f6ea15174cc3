"""Full-page screenshots of lesson pages in a real Chromium, at desktop width and at a 390 px phone.

    python scripts/screenshot.py rnn_cells bahdanau_attention --out /tmp/shots [--port 8650]

Starts its own ``streamlit run app.py`` on the port, opens each page (slug, or ``home``), waits until the script
has finished and no skeleton is left, and writes ``<out>/<slug>-desktop.png`` and ``<out>/<slug>-phone.png``,
printing each page's horizontal overflow and every element that sticks out past the window's right edge
(:data:`OVERFLOW_JS`).
Pages are opened without presenter mode; nothing is clicked.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SIZES = {"desktop": (1400, 3000), "phone": (390, 6000)}  # the height grows to the page's content
# A phone as the server sees one: touch, and a phone browser's user agent (the app draws a figure's panels one a row
# for a browser that calls itself mobile: ui.style.narrow_screen).
PHONE_UA = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile "
    "Safari/537.36"
)
PHONE = {"is_mobile": True, "has_touch": True, "user_agent": PHONE_UA}


# What sticks out past the right edge of the window, measured in the page: the document's width against the window's,
# and every element of the main section whose box ends right of the window, except where the student can still
# reach it: inside a box that scrolls sideways itself (overflow-x auto or scroll: a wide equation, table or chart
# scrolls there), or hidden by design (KaTeX's MathML copy for screen readers, clipped to 1 px; the parts of a
# stretchy brace or root cut to their box). Inside a chart's SVG, only text counts, and wherever it is cut: a legend
# or a title past the drawing's own edge is lost even in a box that scrolls; shapes the SVG cuts (Plotly's invisible
# drag handles) do not. tests/browser/test_phone.py asserts it is empty at
# 390 × 844 px on every page.
OVERFLOW_JS = r"""() => {
  const width = document.documentElement.clientWidth;
  const main = document.querySelector('[data-testid=stMain]') || document.body;
  const reachable = (el) => {
    for (let p = el.parentElement; p && p !== main; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX === 'auto' || s.overflowX === 'scroll') return true;
      if (s.clip !== 'auto' || p.getBoundingClientRect().width <= 1) return true;
      if ((s.overflowX === 'hidden' || s.overflowX === 'clip') && p.closest('.katex')) return true;
    }
    return false;
  };
  const cutByItsChart = (el, r) => {  // a text past its drawing's edge: no scrolling brings it back
    let svg = el.closest('svg');
    while (svg.parentElement && svg.parentElement.closest('svg')) svg = svg.parentElement.closest('svg');
    return r.right > svg.getBoundingClientRect().right + 2;  // a glyph's box runs ~1.5 px past a label set flush
  };
  const out = [];
  for (const el of main.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
    const inSvg = el.closest('svg');
    if (inSvg && !['text', 'tspan'].includes(el.tagName.toLowerCase())) continue;
    if (!(inSvg && cutByItsChart(el, r)) && (r.right <= width + 1 || reachable(el))) continue;
    if (out.some((o) => o.el.contains(el))) continue;  // its container is already listed
    const owner = el.closest('[data-testid]');
    out.push({el, what: `${el.tagName.toLowerCase()} in ${owner ? owner.dataset.testid : 'the page'}`,
              right: Math.round(r.right), text: (el.textContent || '').trim().slice(0, 60)});
  }
  return {documentWidth: document.documentElement.scrollWidth, windowWidth: window.innerWidth,
          stickingOut: out.map(({el, ...rest}) => rest)};
}"""


def overflow(page) -> dict:
    """``{"documentWidth", "windowWidth", "stickingOut": [{"what", "right", "text"}, …]}`` for an open page."""
    return page.evaluate(OVERFLOW_JS)


def _wait_for_port(port: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise SystemExit(f"streamlit did not open port {port} within {seconds:.0f} s")


def _settle(page, timeout_ms: int) -> None:
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=timeout_ms)
    page.wait_for_function("!document.querySelector('[data-testid=stSkeleton]')", timeout=timeout_ms)
    page.wait_for_timeout(1500)  # charts draw after the script is done


def whole_page(page, settle) -> None:
    """Grow the window until it holds the whole page, calling ``settle()`` after each step. Streamlit scrolls inside
    its main section, not the document; and parts out of sight are drawn only once near the screen (ui.style:
    content-visibility), so the page grows as the window does."""
    for _ in range(8):
        tall = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
        if tall + 50 <= page.viewport_size["height"]:
            return
        page.set_viewport_size({"width": page.viewport_size["width"], "height": tall + 50})
        settle()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="+", help="lesson slugs, or 'home' for the course map")
    parser.add_argument("--out", type=Path, default=Path("/tmp/shots"))
    parser.add_argument("--port", type=int, default=8650)
    parser.add_argument("--timeout", type=float, default=180, help="seconds to wait for one page")
    args = parser.parse_args(argv)

    args.out.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.port",
            str(args.port),
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        _wait_for_port(args.port)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for slug in args.slugs:
                url = f"http://127.0.0.1:{args.port}/" + ("" if slug == "home" else slug)
                for name, (width, height) in SIZES.items():
                    phone = PHONE if name == "phone" else {}
                    page = browser.new_page(viewport={"width": width, "height": height}, **phone)
                    page.goto(url)
                    _settle(page, int(args.timeout * 1000))
                    whole_page(page, lambda page=page: _settle(page, int(args.timeout * 1000)))
                    path = args.out / f"{slug}-{name}.png"
                    page.screenshot(path=str(path), full_page=True)
                    found = overflow(page)
                    wider = found["documentWidth"] - found["windowWidth"]
                    print(f"{path}  (horizontal overflow {wider} px)", flush=True)
                    for item in found["stickingOut"]:
                        print(f"    sticks out to {item['right']} px: {item['what']} {item['text']!r}", flush=True)
                    page.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    main()
