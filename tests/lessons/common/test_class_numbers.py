"""The class's numbers, pure: pooling runs per setting, the sentences computed from them, the QR code."""

import base64
import math
from xml.etree import ElementTree

import pytest

from lessons.common import classroom


def _runs(table: dict) -> list[dict]:
    return [{"settings": {"d": d}, "metrics": {"exact_match": v}} for d, values in table.items() for v in values]


def test_pool_groups_runs_by_setting_in_the_grids_order_and_skips_bad_metrics():
    runs = _runs({4: [0.5, 0.7], 64: [0.9]}) + [
        {"settings": {"d": 4}, "metrics": {"exact_match": float("nan")}},
        {"settings": {"d": 4}, "metrics": {}},
    ]
    pooled = classroom.pool(runs, [{"d": 64}, {"d": 4}, {"d": 512}], {"d": "d_k"})
    assert [p.setting for p in pooled] == ["d_k = 64", "d_k = 4", "d_k = 512"]
    assert [p.n for p in pooled] == [1, 2, 0]
    assert pooled[1].mean == pytest.approx(0.6) and pooled[1].sd == pytest.approx(math.sqrt(0.02))


@pytest.mark.parametrize("flip", [False, True])
def test_the_pooled_sentence_follows_the_numbers(flip, rule_on_made_up_seeds):
    high, low = [0.9, 0.92, 0.88], [0.3, 0.35, 0.25]
    table = {4: low, 64: high} if not flip else {4: high, 64: low}
    pooled = classroom.pool(_runs(table), [{"d": 4}, {"d": 64}], {"d": "d_k"})
    text = classroom.pooled_sentence(pooled)
    winner, loser = ("d_k = 64", "d_k = 4") if not flip else ("d_k = 4", "d_k = 64")
    assert f"Highest mean held-out exact match: {winner} (90%" in text and f"leads {loser}" in text
    assert "clear difference" in text


def test_a_gap_within_the_spread_or_single_runs_is_not_called_a_difference(rule_on_made_up_seeds):
    close = classroom.pool(_runs({4: [0.5, 0.9, 0.7], 64: [0.6, 0.8, 0.75]}), [{"d": 4}, {"d": 64}])
    assert "not a clear difference" in classroom.pooled_sentence(close)
    single = classroom.pool(_runs({4: [0.5], 64: [0.9]}), [{"d": 4}, {"d": 64}])
    assert "too few runs" in classroom.pooled_sentence(single)
    assert classroom.pooled_sentence(classroom.pool([], [{"d": 4}])) == "No run has been posted to this sweep yet."


def test_the_reveal_sentence_counts_right_answers_and_names_the_most_chosen():
    dist = {"choices": [("a", 1, False), ("b", 5, False), ("c", 2, True)], "answered": 8}
    text = classroom.distribution_sentence(dist)
    assert text.startswith("2 of 8 (25%) chose the right answer, “c”") and "most chosen answer was “b”" in text
    numbers = {"values": [7.5, 8.0, 9.0], "truth": 8.0, "tolerance": 0.5, "right": 2, "answered": 3}
    assert classroom.distribution_sentence(numbers).startswith("2 of 3 (67%) gave the right number, 8")
    assert [r["right"] for r in classroom.distribution_rows(numbers)] == ["✓", "✓", ""]


def test_a_run_as_the_store_keeps_it_drops_nan_and_bounds_the_map():
    class Report:
        def __init__(self, step, em):
            self.step, self.seconds, self.loss, self.exact_match = step, step / 10, 1.0 / step, em

    assert classroom.run_curve([Report(1, 0.1), Report(2, float("nan")), Report(3, 0.5)]) == [
        [1.0, 0.1, 1.0, 0.1],
        [3.0, 0.3, 1 / 3, 0.5],
    ]
    shot = classroom.attention_snapshot([[0.5] * 100] * 100)
    assert len(shot["z"]) == 40 and len(shot["z"][0]) == 40 and len(shot["rows"]) == 40
    assert classroom.attention_snapshot([[float("nan")]]) is None and classroom.attention_snapshot("x") is None


def test_the_qr_code_is_well_formed_svg_made_offline():
    svg = classroom.qr_svg("http://127.0.0.1:8501/classroom?join=ACDEFG")
    root = ElementTree.fromstring(svg)
    assert root.tag.endswith("svg") and "QR code" in svg
    assert svg.startswith("<svg")  # no XML declaration: the image's data is the SVG document itself


def test_the_qr_code_goes_to_the_page_as_an_image_of_that_svg_with_its_title_as_alt_text():
    url = "http://127.0.0.1:8501/classroom?join=ACDEFG"
    img = ElementTree.fromstring(classroom.qr_image(url, scale=5))
    assert img.tag == "img" and img.get("alt") == classroom.QR_TITLE
    prefix, data = img.get("src").split(",", 1)
    assert prefix == "data:image/svg+xml;base64"  # drawn offline, no address to fetch
    assert base64.b64decode(data).decode("utf-8") == classroom.qr_svg(url, scale=5)
    assert img.get("width") == img.get("height") == ElementTree.fromstring(classroom.qr_svg(url, scale=5)).get("width")
