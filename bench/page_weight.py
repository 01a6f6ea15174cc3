"""What the rest of a page costs a control: the bare page's slider and heatmap among N unchanging elements.

    python -m bench.page_weight [--moves 8] [--write]

Streamlit's browser side re-renders every element of the page when a fragment reruns, not only the
fragment's (measured with Chromium's JS profiler: markdown parsing and styling work grow with the elements
outside the fragment; streamlit/streamlit#12090, open, is about slow rendering of large pages). This prints,
for N = 0 … 200 markdown paragraphs (and a header every ten) around the fragment
(``bench/weighted_page.py``), the median latency of a slider move as ``bench/latency.py`` measures it,
against the bare page (``bench/bare_heatmap.py``) in the same run; and, for comparison, how many elements
each lesson page holds when it opens (AppTest's element tree: blocks, columns and elements). Figures are
printed, never asserted; ``--write`` stores them in ``bench/classroom.json`` (``python -m bench.classroom
render`` then writes ``bench/CLASSROOM.md``).
"""

from __future__ import annotations

import argparse
import json
import statistics

from playwright.sync_api import sync_playwright

from bench.harness import keep_figures, machine
from bench.latency import seed_moves, start, stop, with_ratio
from lessons.common.catalog import built_lessons
from tests.helpers import open_page

SIZES = (0, 25, 50, 100, 200)


def element_count(node) -> int:
    """The elements under an AppTest node (an AppTest's ``_tree.main``), blocks and columns included."""
    children = getattr(node, "children", {}).values()
    return sum(1 + element_count(child) for child in children)


def lesson_sizes() -> dict[str, int]:
    """Elements (blocks and columns included) on each lesson page as it opens, counted by AppTest."""

    return {lesson.url_path: element_count(open_page(lesson.page)._tree.main) for lesson in built_lessons()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=8, help="slider moves per page")
    parser.add_argument("--write", action="store_true", help="store the figures in bench/classroom.json")
    args = parser.parse_args()

    before = machine()
    rows = []

    weighted, weighted_url, _ = start("bench/weighted_page.py")
    bare, bare_url, _ = start("bench/bare_heatmap.py")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])

            def median_ms(url: str) -> float:
                return round(1000 * statistics.median(seed_moves(browser, url, args.moves)), 1)

            for n in SIZES:
                row = {
                    "static": n,
                    "page_ms": median_ms(f"{weighted_url}/?rows=8&cols=8&static={n}"),
                    "bare_ms": median_ms(f"{bare_url}/?rows=8&cols=8"),
                }
                with_ratio(row, rows, "page_ms")
    finally:
        stop(weighted, bare)
    elements = lesson_sizes()
    print(json.dumps({"lesson_elements": elements}), flush=True)
    if args.write:
        keep_figures("page_weight", {"rows": rows, "lesson_elements": elements, **before})


if __name__ == "__main__":
    main()
