"""The "Your own data" page in a real Chromium: a TSV file through the file uploader, what was read (markup shown as
text, right-to-left text laid out right to left), a few steps of training, the model file downloaded and loaded
back."""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.helpers import BROWSER_WAIT as WAIT
from tests.helpers import SCRIPT_DONE, assert_no_exception, goto

pytestmark = pytest.mark.browser

HOSTILE = '<script id="hostile">window.__hostile=1</script>'
PAIRS = "".join(
    [
        f"{HOSTILE}\tle script\n",
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
    expect(main.get_by_text(f"Your model, loaded from {kept.name}", exact=False).first).to_be_visible()
    assert_no_exception(page)
