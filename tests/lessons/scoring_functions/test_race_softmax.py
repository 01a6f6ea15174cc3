"""What the race's softmax sees: the race models' scores spread like √d·σ_q·σ_k, the paragraph written from the
measured statistics, and the prediction that follows the fresh models."""

import dataclasses

import pytest

from lessons import scoring_functions
from lessons.scoring_functions import race_softmax, race_training
from minimodels.tasks import get_task
from tests.lessons.scoring_functions.made_up_races import race_of, run, with_scores


def test_the_race_models_scores_spread_like_root_d_sigma_squared_and_scaling_flattens_them():
    task = get_task(race_training.TASK)
    models = race_training.new_models(task, seed=0)
    dot, scaled = (race_softmax.race_score_stats(models[s].eval(), task) for s in ("dot", "scaled_dot"))
    assert dot["d"] == 64 and dot["query variance"] == scaled["query variance"]  # the same weights from one seed
    assert dot["score sd"] == pytest.approx(race_softmax.predicted_sd(dot), rel=0.25)
    assert scaled["score sd"] == pytest.approx(dot["score sd"] / 8, rel=1e-4)
    assert dot["score sd"] < 1 and dot["uniform α"] < scaled["largest α"] < dot["largest α"] < 0.5
    with pytest.raises(ValueError, match="sₜ₋₁"):
        race_softmax.race_score_stats(models["additive"], task)


def test_why_dot_leads_is_written_from_the_measured_statistics():
    fast, slow = [(10, 0.96)], [(10, 0.5), (20, 0.96)]
    race = race_of(run("dot", 0, fast), run("scaled_dot", 0, slow), run("dot", 1, fast), run("scaled_dot", 1, slow))
    assert race_softmax.why_dot_leads(race) == ""  # no statistics, no explanation
    text = race_softmax.why_dot_leads(with_scores(race))
    assert "σ_q² = 0.050" in text and "√64·√(0.050·0.050) = 0.40" in text and "measured 0.40 ± 0.00 (n = 2)" in text
    assert "largest α 0.140 ± 0.000 (n = 2), where a uniform one gives 0.090" in text
    assert "sd 6.5 ± 0.0 (n = 2) (dot)" in race_softmax.why_dot_leads(with_scores(race, 6.5))
    assert "far below the √d = 8" in text and "the softmax is not saturated" in text
    wide = dataclasses.replace(
        race,
        runs=tuple(
            dataclasses.replace(
                r,
                extra={
                    **r.extra,
                    "scores": {
                        "start": {**r.extra["scores"]["start"], "score sd": 8.0, "largest α": 0.9},
                        "end": r.extra["scores"]["end"],
                    },
                },
            )
            for r in with_scores(race).runs
        ),
    )
    flipped = race_softmax.why_dot_leads(wide)  # scores as wide as unit-variance ones: the words follow
    assert "against the √d = 8" in flipped and "the softmax is already peaked" in flipped


def test_the_prediction_follows_the_measured_models(monkeypatch):
    """ex4's answer is the fresh models' own ratio: feed it widening scores and the answer flips."""
    stats = {64: {"score sd": 0.4, "query variance": 0.05, "key variance": 0.05},
             256: {"score sd": 0.9, "query variance": 0.05, "key variance": 0.05}}  # fmt: skip
    monkeypatch.setattr(race_softmax, "fresh_stats", lambda score, d, seed=0: stats[d])
    ex4 = next(e for e in scoring_functions.exercises(None) if e.key == "scoring_functions.ex4")
    assert ex4.choices[ex4.answer] == race_softmax.WIDER[0]
    stats[256]["score sd"] = 0.3
    ex4 = next(e for e in scoring_functions.exercises(None) if e.key == "scoring_functions.ex4")
    assert ex4.choices[ex4.answer] == race_softmax.WIDER[1]
