"""Section 4's reduced race: unscaled dot starts saturated on unit-variance vectors, and a seed makes the same run."""

import dataclasses

import pytest

from lessons.scoring_functions import reduced_race


def test_the_reduced_race_starts_saturated_without_scaling_and_is_seeded():
    config = reduced_race.RetrievalConfig(d=64, steps=20, every=10, held_out=200, early=10)
    dot = reduced_race.retrieval_run("dot", config, seed=0)
    scaled = reduced_race.retrieval_run("scaled_dot", config, seed=0)
    assert dot.final["score sd at step 0"] == pytest.approx(8.0, rel=0.25)  # √64 for unit-variance entries
    assert scaled.final["score sd at step 0"] == pytest.approx(1.0, rel=0.25)
    assert dot.final["largest α at step 0"] > 0.7 > 0.4 > scaled.final["largest α at step 0"]
    assert [p["step"] for p in dot.curve] == [0, 10, 20] and dot.params == {"d": 64, "sigma": 1.0}
    assert reduced_race.retrieval_run("dot", config, seed=0) == dot  # same seed, same run
    small = reduced_race.retrieval_run("dot", dataclasses.replace(config, sigma=reduced_race.SMALL_SIGMA), 0)
    assert small.final["score sd at step 0"] == pytest.approx(8.0 * 0.05, rel=0.3)  # √d·σ², not √d
