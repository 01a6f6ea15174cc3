"""Section 2 of the attention bridge: A Aᵀ and the penalty, its figure, the two shipped models' findings and λ."""

import numpy as np
import pytest

from lessons.attention_bridge import penalty
from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from tests.lessons.attention_bridge.fakes import SHIPPED_LIKE, fake_results, one_hot, with_finals


def test_gram_and_penalty():
    A = one_hot([0, 2], 3)
    assert np.array_equal(penalty.gram(A), np.eye(2)) and penalty.penalty_value(A) == 0.0
    assert penalty.penalty_value(np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])) == pytest.approx(1.0)


def test_gram_heatmap():
    fig = penalty.gram_heatmap(np.full((2, 4), 0.25))
    assert np.allclose(fig.data[0].z, 0.25)
    assert list(fig.layout.xaxis.ticktext) == ["1", "2"] and fig.layout.xaxis.title.text == "head"


def test_a_probe_reading_is_the_models_weight_map_and_its_penalty():
    results = fake_results(seeds=(0,))
    weight, A, tokens, value = penalty.probe_reading(results, penalty.WITH, "fr")
    assert weight == results.runs_of(penalty.WITH)[0].params["penalty_weight"]
    expected, words = penalty.probe_map(results, penalty.WITH, "fr")
    assert np.array_equal(A, expected) and tokens == words and value == penalty.penalty_value(expected)


SWAPPED = {"hub-mono": SHIPPED_LIKE["hub-mono-nopenalty"], "hub-mono-nopenalty": SHIPPED_LIKE["hub-mono"]}


@pytest.mark.parametrize("seeds", [(0,), (0, 1, 2)])
def test_the_penalty_findings_say_who_is_ahead_and_flip_when_the_numbers_swap(rule_on_made_up_seeds, seeds):
    shipped_like = penalty.penalty_findings(with_finals(fake_results(seeds=seeds), SHIPPED_LIKE))
    swapped = penalty.penalty_findings(with_finals(fake_results(seeds=seeds), SWAPPED))
    for metric, line, flipped in zip(penalty.PENALTY_METRICS, shipped_like, swapped, strict=True):
        ahead = "**with**" if metric[0] == "redundancy" else "**without**"
        other = "**without**" if ahead == "**with**" else "**with**"
        assert f"the model {ahead} the penalty" in line and f"the model {other} the penalty" in flipped
        if len(seeds) == 1:
            assert "one seed is an anecdote" in line and "not a finding" in line and "clearly" not in line
        else:
            assert "clearly ahead" in line and ("± 1.0%" in line or "± 0.01" in line)  # 3 seeds 0.01 apart
    mean = 0.01 * np.mean(seeds)  # each seed 0.01 above the last
    with_penalty, without = f"{0.334 + mean:.1%}", f"{0.644 + mean:.1%}"
    assert shipped_like[0].index(with_penalty) < shipped_like[0].index("with the penalty against")
    assert shipped_like[0].index("with the penalty against") < shipped_like[0].index(without)


def test_lambda_is_said_from_the_runs():
    results = fake_results()
    text = penalty.penalty_weight_text(results, tokens=7.0)  # per token, λ = 0.1 is 0.7 of the paper's 1/n
    assert "use λ = 0.1; with 7.0 target tokens a sentence on average, that is λ·n = 0.1 × 7.0 = 0.70" in text
    assert "about 0.7 times the paper's" in text
    assert "about 0.2 times the paper's" in penalty.penalty_weight_text(results, tokens=2.0)
    assert 6 < penalty.mean_target_tokens() < 9  # the corpus's 6–7 words and an end mark
    runs = [
        Run(
            r.variant,
            r.seed,
            {**r.params, "penalty_weight": 1.0} if r.params["penalty_weight"] else r.params,
            r.curve,
            r.final,
            r.extra,
        )
        for r in results.runs
    ]
    paper_like = Comparison(results.variants, tuple(runs), results.meta, results.labels)
    assert "λ·n = 1 × 1.0 = 1.00, about the paper's weight" in penalty.penalty_weight_text(paper_like, tokens=1.0)
