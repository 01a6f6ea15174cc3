"""The claim under the introduction follows both measurements, the GRU race and the reduced race."""

from lessons.scoring_functions import headline
from tests.lessons.scoring_functions.made_up_races import race_of, run, sweep_of, with_scores


def test_the_headline_follows_both_measurements(rule_on_made_up_seeds):
    sweep = sweep_of({4: (0.07, 0.07), 64: (0.55, 0.79)})
    fast, slow = [(10, 0.92)], [(10, 0.5), (30, 0.92)]
    dot_first = with_scores(
        race_of(*(run(s, seed, fast if s == "dot" else slow) for s in ("dot", "scaled_dot") for seed in range(3)))
    )
    text = headline.headline(dot_first, sweep)
    assert "scaling clearly helps at d = 64" in text and "unscaled dot learns faster than scaled dot" in text
    assert "q·k starts with sd 0.40 (largest α 0.14), where unit-variance vectors at d = 64 start at sd 1.0" in text
    scaled_first = with_scores(
        race_of(*(run(s, seed, slow if s == "dot" else fast) for s in ("dot", "scaled_dot") for seed in range(3)))
    )
    assert "scaled dot learns faster than unscaled dot" in headline.headline(scaled_first, sweep)
    tied = with_scores(race_of(*(run(s, seed, fast) for s in ("dot", "scaled_dot") for seed in range(3))))
    assert "too close to call" in headline.headline(tied, None)
    assert headline.headline(None, sweep) == ""
