"""Section 4's ablation: the table, sentences and predictions follow the numbers; the shipped results."""

import pytest

from lessons.common.comparison import Comparison
from lessons.transformer import ablation, ablation_runs


def fake_results(finals: dict[str, float], seeds=(0,), spread: float = 0.0) -> Comparison:
    """An ablation where each variant ends at ``finals[variant]`` exact match (± ``spread`` over ``seeds``)."""
    runs = []
    for variant, final in finals.items():
        for i, seed in enumerate(seeds):
            end = final + (spread if i % 2 else -spread) * (len(seeds) > 1)
            history = [
                {"step": 25, "seconds": 5.0, "loss": 1.0, "exact_match": end / 2},
                {"step": 50, "seconds": 10.0, "loss": 1.0 - end / 2, "exact_match": end},
            ]
            measured = {
                "parameters": 100,
                "steps": 50,
                "seconds": 10.0,
                "exact_match": end,
                "test_exact_match": end,
                "history": history,
            }
            runs.append(ablation_runs.ablation_run(variant, seed, measured))
    return Comparison(tuple(finals), tuple(runs), {"task": "dates", "seeds": list(seeds)}, ablation_runs.VARIANT_LABELS)


def test_table_and_observations_come_from_the_runs(tmp_path):
    results = fake_results({"full": 0.96, "no residual": 0.0, "no layer norm": 0.5})
    results = ablation_runs.load_results(results.save(tmp_path / "transformer.json"))  # a round trip
    rows = {r["variant"]: r for r in ablation.table_rows(results)}
    assert rows[ablation_runs.VARIANT_LABELS["full"]]["steps to 90%"] == "50"
    assert rows[ablation_runs.VARIANT_LABELS["full"]]["seconds to 90%"] == "10.0"
    assert rows[ablation_runs.VARIANT_LABELS["no residual"]]["steps to 90%"] == "never (1 of 1)"
    assert rows[ablation_runs.VARIANT_LABELS["no layer norm"]]["test exact"] == "50.0%"
    assert [r["n"] for r in rows.values()] == [1, 1, 1]
    lines = ablation.observations(results)
    assert lines[0].startswith("**no residual** never reached 90% in 50 steps")
    assert "ended at 0.0% test exact match against the full model's 96.0%" in lines[0]
    assert lines[-1].startswith("One seed (0) per variant")
    ex5 = ablation.residual_prediction(results)
    assert ex5.choices[ex5.answer].startswith("about as well")  # one seed a side: never a clear verdict


def test_every_sentence_about_the_ablation_follows_the_numbers(rule_on_made_up_seeds):
    """Who reached 90% first, and who is ahead on test exact match, turn round when the numbers do."""
    slower = ablation.observations(fake_results({"full": 0.96, "post-LN": 0.92}))
    assert "**post-LN** reached 90% at step 50 (full model: step 50)" in slower[0]
    never = ablation.observations(fake_results({"full": 0.6, "post-LN": 0.95}))
    assert "**post-LN** reached 90% at step 50, which the full model never did" in never[0]
    behind = ablation.observations(fake_results({"full": 0.96, "no layer norm": 0.5}, seeds=(0, 1, 2), spread=0.01))
    ahead = ablation.observations(fake_results({"full": 0.5, "no layer norm": 0.96}, seeds=(0, 1, 2), spread=0.01))
    assert "it is behind the full model, clearly by the course's rule" in behind[0]
    assert "it is ahead of the full model, clearly by the course's rule" in ahead[0]
    assert "± " in behind[0] and "(n = 3)" in behind[0]  # several seeds: mean ± sd and n
    close = ablation.observations(fake_results({"full": 0.95, "no layer norm": 0.94}, seeds=(0, 1), spread=0.02))
    assert "too close to call" in close[0] and "One seed" not in close[-1]


def test_the_predictions_and_the_warm_up_sentence_turn_round_with_the_numbers(rule_on_made_up_seeds):
    """The residual prediction's answer and the post-LN warm-up sentence are computed from the runs: swap the
    numbers and they say the other thing."""
    seeds = {"seeds": (0, 1, 2), "spread": 0.01}
    collapsed = ablation.residual_prediction(fake_results({"full": 0.96, "no residual": 0.02}, **seeds))
    assert collapsed.choices[collapsed.answer].startswith("it learns almost nothing")
    assert "depth problem" in collapsed.explanation
    partly = ablation.residual_prediction(fake_results({"full": 0.96, "no residual": 0.5}, **seeds))
    assert partly.choices[partly.answer].startswith("clearly worse")
    fine = ablation.residual_prediction(fake_results({"full": 0.96, "no residual": 0.96}, **seeds))
    assert fine.choices[fine.answer].startswith("about as well") and "depth problem" not in fine.explanation
    assert "cannot tell the two apart" in fine.explanation  # too close to call, not "residuals are not needed"
    assert "ended clearly ahead" not in fine.explanation + partly.explanation
    assert ablation.residual_prediction(fake_results({"full": 0.96, "post-LN": 0.9})) is None
    behind = ablation.warmup_sentence(fake_results({"full": 0.96, "post-LN": 0.5}, **seeds))
    ahead = ablation.warmup_sentence(fake_results({"full": 0.5, "post-LN": 0.96}, **seeds))
    close = ablation.warmup_sentence(fake_results({"full": 0.96, "post-LN": 0.955}, **seeds))
    assert "post-LN ends behind pre-LN" in behind and "does not suit" in behind
    assert "post-LN ends ahead of pre-LN" in ahead
    assert "too close to call" in close and "did not visibly hold post-LN back" in close
    shipped = ablation_runs.load_results()
    said = ablation.warmup_sentence(shipped)
    warm = shipped.meta["train_config"]["warmup_steps"]
    assert f"{warm}-step warm-up" in said and said in ablation.observations(shipped)
    assert "post-LN is known" not in ablation.provenance_note(shipped.meta)


def test_shipped_results_cover_every_variant_with_the_same_budget():
    results = ablation_runs.load_results()
    assert results.variants == tuple(ablation_runs.VARIANTS)
    assert results.meta["script"] == ablation_runs.RESULT_SCRIPT and results.meta["seeds"] == list(results.seeds)
    assert {r.value("steps") for r in results.runs} == {results.meta["max_steps"]}
    for run in results.runs:
        steps = [p["step"] for p in run.curve]
        assert steps == sorted(steps)
        assert run.curve[-1]["exact_match"] == run.value("held-out exact")
        assert run.value("steps to 90%") == run.reached("exact_match", 0.9)
        assert run.params == ablation_runs.VARIANTS[run.variant]
    loss, accuracy = ablation.ablation_curves(results, x="seconds")
    assert loss["encoding"]["x"]["title"] == "seconds" and loss["title"] == "Loss (log scale)"
    full = [v for v in accuracy["data"]["values"] if v["label"] == "full"]
    if len(results.seeds) > 1:  # each seed drawn faintly, at its own seconds
        for run in results.runs_of("full"):
            seed = [v["x"] for v in full if v["kind"] == "seed" and v["seed"] == run.seed]
            assert seed == [p["seconds"] for p in run.curve]
    every = sorted({p["seconds"] for run in results.runs_of("full") for p in run.curve})
    assert sorted(v["x"] for v in full if v["kind"] == "mean") == every  # the mean over seeds at every report
    assert accuracy["encoding"]["color"]["scale"]["domain"] == list(ablation_runs.VARIANTS)
    with pytest.raises(ValueError):
        ablation.ablation_curves(results, x="minutes")


def test_the_no_ffn_sentence_and_prediction_follow_the_numbers(rule_on_made_up_seeds):
    seeds = {"seeds": (0, 1, 2), "spread": 0.01}
    worse = fake_results({"full": 0.96, "no FFN": 0.5}, **seeds)
    slightly = fake_results({"full": 0.98, "no FFN": 0.94}, **seeds)
    same = fake_results({"full": 0.96, "no FFN": 0.955}, **seeds)
    better = fake_results({"full": 0.5, "no FFN": 0.96}, **seeds)
    assert "**no FFN** ends behind the full model" in ablation.ffn_sentence(worse)
    assert "**no FFN** ends ahead of the full model" in ablation.ffn_sentence(better)
    assert "**no FFN** and the full model are too close to call" in ablation.ffn_sentence(same)
    assert ablation.ffn_sentence(worse) in ablation.observations(worse)
    answers = [ablation.ffn_prediction(c) for c in (same, better, slightly, worse)]
    assert [e.answer for e in answers] == [0, 1, 2, 3]
    assert [e.choices[e.answer][:6] for e in answers] == ["about ", "better", "a litt", "far wo"]
    assert ablation.ffn_prediction(fake_results({"full": 0.9})) is None
