"""Section 4's comparison of 1 and 2 layers: sentences that follow the numbers, and the shipped results and
model the page reads."""

from lessons.multi_head_attention import resolving_it, resolving_it_runs
from tests.lessons.multi_head_attention.made_up_results import it_comparison


def test_it_sentences_follow_the_numbers_and_flip_when_they_are_swapped(rule_on_made_up_seeds):
    lines = resolving_it_runs.it_observations(it_comparison(0.6, 0.95))
    assert "2 layers beats 1 layer" in lines[0]
    assert "prefers the referent more often than" in lines[2] and "3 of 3 seeds" in lines[2]
    lines = resolving_it_runs.it_observations(it_comparison(0.99, 0.5))
    assert "1 layer is ahead" in lines[0] or "about as well" in lines[0]
    assert "too close to call" in lines[2] and "0 of 3 seeds" in lines[2]
    assert "no head ever moved" in lines[1] and "float rounding" in lines[1]


def test_the_shipped_it_results_are_what_the_page_reads():
    c = resolving_it_runs.load_it_results()
    assert set(c.variants) == {"1 layer", "2 layers"} and len(c.seeds) >= 3
    rows = resolving_it_runs.it_rows(c)
    assert rows[0]["layer 2, best head: prefers the referent"] == "no such layer"
    assert c.meta["shipped_seed"] == resolving_it.shipped_resolver()[1]["info"]["seed"]
    assert c.meta["shipped_seed"] == resolving_it_runs.median_seed(c, 2)
