"""The "Your own data" page in a real Chromium: a TSV file through the file uploader, what was read (markup shown as
text, right-to-left text laid out right to left), a few steps of training, the model file downloaded and loaded
back, a crafted model file refused with nothing changed, and a model that never ends decoded within its bounds with
no thread left behind its closed tab."""

import os
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.helpers import BROWSER_WAIT as WAIT
from tests.helpers import SCRIPT_DONE, assert_no_exception, goto

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hostile_models"

HOSTILE = '<script id="hostile">window.__hostile=1</script>'
MARKDOWN = "**the** $x^2$ :red[cat] - 1. ~a~"  # bold, an equation, coloured, a list, struck out: if read as Markdown
PAIRS = "".join(
    [
        f"{HOSTILE}\tle script\n",
        f"{MARKDOWN}\tle chat :tada:\n",
        "the big house\tالبيت الكبير\n",
        *(f"the {n} cat\tle chat {n}\n" for n in ("red", "black", "small", "old", "young", "happy", "quiet")),
        *(f"the {n} dog\tle chien {n}\n" for n in ("red", "black", "small", "old", "young", "happy", "quiet")),
        *(f"I see the {n}\tje vois le {n}\n" for n in ("cat", "dog", "house", "boat", "bird", "tree", "river")),
    ]
)


@pytest.fixture(autouse=True)
def patient(page):
    page.set_default_timeout(WAIT)


def uploader(page, label: str):
    return page.locator("[data-testid=stFileUploader]").filter(has_text=label).locator("input[type=file]")


def test_upload_read_train_download_and_load_back(page, streamlit_server, tmp_path):
    pairs = tmp_path / "mine.tsv"
    pairs.write_text(PAIRS, encoding="utf-8")
    goto(page, f"{streamlit_server}/own_data")
    main = page.locator("[data-testid=stMain]")
    main.get_by_text("a file", exact=True).click()
    uploader(page, "A .tsv or .csv file").set_input_files(pairs)
    expect(main.get_by_role("heading", name="What the page read from mine.tsv")).to_be_visible()
    assert_no_exception(page)
    # the markup is a sentence: shown literally, and no element was made from it
    expect(main.locator("[data-testid=stTable]").get_by_text(HOSTILE).first).to_be_visible()  # sample and pieces
    assert page.locator("#hostile").count() == 0 and page.evaluate("() => window.__hostile") is None
    cells = main.locator("[data-testid=stTable] td").all_inner_texts()
    assert MARKDOWN in cells and "le chat :tada:" in cells, cells  # as typed: no bold, equation, colour or emoji
    # right to left: the Arabic cell lays out from the right (its paragraph direction comes from its first letter)
    arabic = main.locator("[data-testid=stTable] td", has_text="البيت الكبير").first
    assert arabic.evaluate("e => getComputedStyle(e).unicodeBidi") == "plaintext"

    main.get_by_role("button", name="Train").click()
    expect(page.locator("[data-testid=stProgress]", has_text="step")).to_have_count(1)  # it reported: stop it
    try:  # a small set can reach the target and end on its own before Stop is pressed: then Stop stays disabled
        main.get_by_role("button", name="Stop", exact=True).click(timeout=15_000)
    except PlaywrightTimeout:
        expect(page.locator("[data-testid=stProgress]", has_text="done")).to_have_count(1)
    expect(main.get_by_text("Your model, trained on this page", exact=False).first).to_be_visible()
    page.wait_for_selector(SCRIPT_DONE)
    with page.expect_download() as download:
        main.get_by_role("button", name="Download your GRU").click()
    kept = tmp_path / download.value.suggested_filename
    download.value.save_as(kept)
    assert kept.suffix == ".safetensors" and kept.stat().st_size > 10_000

    uploader(page, "Load a model file").set_input_files(kept)
    loaded = main.locator("[data-testid=stAlertContentSuccess]", has_text="Your model, loaded from")
    expect(loaded.locator("code", has_text=kept.name)).to_be_visible()  # the file's name, as text
    assert_no_exception(page)

    # a crafted file: one sentence, and the model, its download and the upload control stay
    uploader(page, "Load a model file").set_input_files(FIXTURES / "target-1e6.safetensors")
    refused = main.locator("[data-testid=stAlertContentError]")
    expect(refused).to_contain_text("larger than this course loads")
    expect(refused).to_contain_text("Nothing was changed.")
    page.wait_for_selector(SCRIPT_DONE)
    expect(main.get_by_role("button", name="Download your GRU")).to_be_visible()
    expect(main.locator("[data-testid=stCaptionContainer]", has_text="Your model, loaded from").first).to_be_visible()
    expect(page.locator("[data-testid=stFileUploader]").filter(has_text="Load a model file")).to_be_visible()
    assert_no_exception(page)


def server_threads(url: str) -> int:
    """How many threads the `streamlit run` process listening at ``url`` has (Linux: its /proc entry)."""
    port = int(url.rsplit(":", 1)[1])
    inodes = {
        line.split()[9]
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
        if line.split()[3] == "0A" and int(line.split()[1].rsplit(":", 1)[1], 16) == port
    }
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and inodes & _sockets(proc):
            return len(list((proc / "task").iterdir()))
    raise AssertionError(f"no process listens on port {port}")


def _sockets(proc: Path) -> set[str]:
    """The socket inodes among a process's open files. A busy server opens and closes files all the time: a file
    closed between listing the folder and reading its link is skipped, not the whole process (which read as "no
    process listens" on a slow machine)."""
    try:
        fds = list((proc / "fd").iterdir())
    except OSError:  # a process gone, or not ours to read
        return set()
    found = set()
    for fd in fds:
        try:
            link = os.readlink(fd)
        except OSError:
            continue
        if link.startswith("socket:["):
            found.add(link[len("socket:[") : -1])
    return found


def settled_threads(url: str, at_most: int | None = None, timeout: float = 60.0) -> int:
    """The server's thread count once it has stayed the same for two seconds (or, given ``at_most``, once it is no
    more than that)."""
    deadline = time.monotonic() + timeout
    seen = [server_threads(url)]
    while time.monotonic() < deadline:
        time.sleep(0.5)
        seen.append(server_threads(url))
        if at_most is not None and seen[-1] <= at_most:
            return seen[-1]
        if at_most is None and len(seen) >= 5 and len(set(seen[-5:])) == 1:
            return seen[-1]
    return seen[-1]


def test_a_model_that_never_ends_leaves_no_thread_behind_its_closed_tab(browser, streamlit_server):
    """A valid file whose decoding never ends by itself: each run's sentence is decoded within the bounds, and the
    server's threads come back to what they were once the tab that asked for them is closed."""
    url = f"{streamlit_server}/own_data"
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(WAIT)
    page = context.new_page()
    goto(page, url)
    uploader(page, "Load a model file").set_input_files(FIXTURES / "never-ends.safetensors")
    main = page.locator("[data-testid=stMain]")
    expect(main.get_by_text("Its translation:", exact=False).first).to_be_visible()
    page.wait_for_selector(SCRIPT_DONE)
    before = settled_threads(streamlit_server)
    box = main.get_by_role("textbox", name="A sentence in its source language")
    for sentence in ("the red cat", "the old owl", "the shy fox", "the big bee"):  # a rerun each, at once
        box.fill(sentence)
        box.press("Enter")
    context.close()  # the tab goes while its runs decode
    after = settled_threads(streamlit_server, at_most=before)
    assert after <= before, f"{after - before} threads outlived the closed tab"
