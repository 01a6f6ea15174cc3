"""Full-page screenshots of lesson pages in a real Chromium, at desktop width and at a 390 px phone.

    python scripts/screenshot.py rnn_cells bahdanau_attention --out /tmp/shots [--port 8650]

Starts its own ``streamlit run app.py`` on the port, opens each page (slug, or ``home``), waits until the script
has finished and no skeleton is left, and writes ``<out>/<slug>-desktop.png`` and ``<out>/<slug>-phone.png``.
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

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
SIZES = {"desktop": (1400, 3000), "phone": (390, 6000)}  # the height grows to the page's content


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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="+", help="lesson slugs, or 'home' for the course map")
    parser.add_argument("--out", type=Path, default=Path("/tmp/shots"))
    parser.add_argument("--port", type=int, default=8650)
    parser.add_argument("--timeout", type=float, default=180, help="seconds to wait for one page")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(args.port),
         "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        _wait_for_port(args.port)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for slug in args.slugs:
                url = f"http://127.0.0.1:{args.port}/" + ("" if slug == "home" else slug)
                for name, (width, height) in SIZES.items():
                    page = browser.new_page(viewport={"width": width, "height": height})
                    page.goto(url)
                    _settle(page, int(args.timeout * 1000))
                    # Streamlit scrolls inside its main section, not the document: grow the window to the content
                    tall = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
                    if tall > height:
                        page.set_viewport_size({"width": width, "height": tall + 50})
                        _settle(page, int(args.timeout * 1000))
                    path = args.out / f"{slug}-{name}.png"
                    page.screenshot(path=str(path), full_page=True)
                    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                    print(f"{path}  (horizontal overflow {overflow} px)", flush=True)
                    page.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    main()
