"""Section 4 of the attention bridge: the zero-shot finding, the monolingual pairs' cost, the grid's tables and
charts."""

import pytest

from lessons import attention_bridge
from lessons.attention_bridge import experiments, penalty
from lessons.attention_bridge import zero_shot as zero_shot_section
from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from tests.lessons.attention_bridge.fakes import fake_results


@pytest.mark.parametrize(
    ("plain", "mono", "seeds", "says"),
    [
        (0.0, 0.4, (0, 1, 2), "finding holds here too"),
        (0.5, 0.1, (0, 1, 2), "does **not** hold"),
        (0.3, 0.31, (0, 1, 2), "little difference"),
        (0.3, 0.31, (0,), "barely move the unseen directions in these runs"),
        (0.0, 0.4, (0,), "lift the unseen directions in these runs"),
        (0.4, 0.0, (0,), "lower the unseen directions in these runs"),
    ],
)  # fmt: skip
def test_the_zero_shot_finding_follows_the_numbers_and_the_seeds(rule_on_made_up_seeds, plain, mono, seeds, says):
    results = fake_results(plain, mono, seeds)
    lines = zero_shot_section.observations(results)
    assert says in lines[1] and lines[1] == zero_shot_section.zero_shot_finding(results)
    if len(seeds) == 1:  # one seed is never a finding, whichever way it goes
        assert "one seed is an anecdote" in lines[1] and "little difference" not in lines[1]
        assert f"**{plain:.1%}**" in lines[0] and f"**{mono:.1%}**" in lines[0] and "(one seed per model)" in lines[0]
    else:
        assert "mean ± sd over 3 seeds" in lines[0] and f"**{plain + 0.01:.1%} ± 1.0%**" in lines[0]
    assert "4 of every 10" in lines[0]
    redundancy = penalty.penalty_findings(results)[-1]
    assert "0.50" in redundancy and "2.00" in redundancy  # redundancy with the penalty and without
    zero_shot = next(e for e in attention_bridge.exercises(results) if e.key == "attention_bridge.ex.zero_shot")
    expected = (
        "neither"
        if abs(mono - plain) <= 0.05
        else ("the model trained with" if mono > plain else "the model trained without")
    )
    assert zero_shot.choices[zero_shot.answer].startswith(expected)


@pytest.mark.parametrize(
    ("plain_trained", "mono_trained", "says"),
    [(0.6, 0.3, ": with the same number of steps,"), (0.3, 0.6, ", even though the monolingual")],
)
def test_the_cost_of_monolingual_pairs_is_said_only_when_they_cost(plain_trained, mono_trained, says):
    results = fake_results()
    runs = [
        Run(
            r.variant,
            r.seed,
            r.params,
            r.curve,
            {**r.final, "trained_exact": plain_trained if r.variant == "hub" else mono_trained},
            r.extra,
        )
        for r in results.runs
    ]
    line = zero_shot_section.observations(Comparison(results.variants, tuple(runs), results.meta, results.labels))[0]
    assert f"reach {plain_trained:.0%} and {mono_trained:.0%}{says}" in line


def test_tables_and_charts():
    results = fake_results(seeds=(0, 1))
    rows = zero_shot_section.zero_shot_rows(results)
    assert [r["zero-shot: exact match"] for r in rows] == [
        "–",
        "–",
        "2.5% ± 0.7%",
        "40.5% ± 0.7%",
        "40.5% ± 0.7%",
        "–",
        "–",
    ]  # no zero-shot direction: bilingual (with and without the bridge), many-to-many
    assert [r["penalty λ"] for r in rows] == ["0.1", "–", "0.1", "0.1", "0", "0.1", "0.1"]  # –: no bridge, no penalty
    assert {r["n"] for r in rows} == {2}
    assert {r["en ↔ fr: exact match"] for r in rows} == {"90.0% ± 0.0%"}
    directions = zero_shot_section.direction_rows(results)
    assert directions[0]["direction"] == "en→it (zero-shot in the hub models)" and directions[1]["direction"] == "fr→en"
    assert directions[0]["hub pairs only"] == pytest.approx(0.025)  # the mean over seeds
    assert directions[0]["bilingual en ↔ fr"] is None and directions[1]["bilingual en ↔ fr"] == pytest.approx(0.9)
    assert directions[0]["many-to-many"] == 0.0  # trained there
    A, tokens = penalty.probe_map(results, "hub-mono-nopenalty", "it")
    assert A.shape == (3, 5) and tokens[-1] == "</s>"
    charts = dict(zero_shot_section.history_charts(results))
    assert list(charts) == ["zero_shot", "exact_match"]
    means = [v for v in charts["zero_shot"]["data"]["values"] if v["kind"] == "mean"]
    assert {v["label"] for v in means} == {e.label for e in experiments.EXPERIMENTS if e.kind == "hub"}
    assert [v["mean"] for v in means if v["label"] == "hub pairs only"] == pytest.approx([0.025, 0.025])
    trained = [v["mean"] for v in charts["exact_match"]["data"]["values"] if v["kind"] == "mean"]
    assert trained == pytest.approx([0.5, 0.6] * 7) and charts["exact_match"]["title"].startswith("Trained")


def test_zero_shot_exact_match_is_said_first_and_honestly():
    rare = zero_shot_section.zero_shot_finding(fake_results(plain=0.0, mono=0.005))
    assert rare.startswith("Whole sentences: almost no zero-shot translation is right (0.5% with monolingual pairs")
    assert "neither model translates the unseen directions here" in rare
    many = zero_shot_section.zero_shot_finding(fake_results(plain=0.0, mono=0.4))
    assert many.startswith("Whole zero-shot sentences right: 40.0% with monolingual pairs against 0.0% without.")
    assert "neither model" not in many
