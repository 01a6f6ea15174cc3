"""The class page's QR code is drawn in a real Chromium and reads as the students' join link.

No QR decoder is installed (none of zbar, zxing, OpenCV; the course adds no dependency for a test), so the drawing is
read back module by module: the element's screenshot sampled at the centre of every module, dark or light, must be the
module matrix segno makes of the join link the page shows (the same encoder, error level and mask choice as the page's
``qr_svg``, so an equal matrix is the same code a phone's camera reads). A blank, cut, squashed or misplaced drawing
fails it."""

import io

import pytest
import segno
from PIL import Image

import store
from lessons.common import classroom
from tests.helpers import BROWSER_WAIT as WAIT
from tests.helpers import assert_no_exception, goto

pytestmark = pytest.mark.browser

BORDER = classroom.QR_BORDER  # the light margin the page draws, in modules
DARK_BELOW = 96  # a sampled pixel's grey level: dark modules are drawn #000, light ones #fff


def test_the_class_qr_code_is_drawn_and_reads_as_the_join_link(browser, streamlit_server):
    classes, _ = store.open_store()
    info, key = classes.create_class("qr code", hours=1)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(WAIT)
    page = context.new_page()
    goto(page, f"{streamlit_server}/classroom?class={info.code}&teacher={key}")
    main = page.locator("[data-testid=stMain]")
    link = main.locator("code", has_text=f"/classroom?join={info.code}").first.inner_text().strip()
    assert link.endswith(f"/classroom?join={info.code}")

    qr = main.get_by_role("img", name=classroom.QR_TITLE, exact=True)
    qr.wait_for()
    box = qr.bounding_box()
    assert box is not None and box["width"] > 50 and box["height"] > 50, box
    assert abs(box["width"] - box["height"]) <= 1, box  # square, not squashed

    matrix = segno.make(link, error="m").matrix
    n = len(matrix)
    shot = Image.open(io.BytesIO(qr.screenshot())).convert("L")
    module = shot.width / (n + 2 * BORDER)
    assert module >= 2, f"{module:.1f} px a module: too small to sample"
    drawn = [
        [shot.getpixel((int((BORDER + c + 0.5) * module), int((BORDER + r + 0.5) * shot.height / (n + 2 * BORDER))))
         < DARK_BELOW for c in range(n)]
        for r in range(n)
    ]  # fmt: skip
    wrong = [(r, c) for r in range(n) for c in range(n) if drawn[r][c] != bool(matrix[r][c])]
    assert wrong == [], f"{len(wrong)} of {n * n} modules differ from the join link's code, first {wrong[:5]}"
    quiet = [shot.getpixel((int(0.5 * module), int(y * module))) for y in range(BORDER, n + BORDER)]
    assert min(quiet) >= 255 - DARK_BELOW  # the quiet zone is light: a camera finds the code's edge
    assert_no_exception(page)
    context.close()
