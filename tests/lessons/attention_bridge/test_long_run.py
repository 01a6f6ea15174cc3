"""The long leave-one-pair-out run: its steps give each direction the bilingual model's share, the loader refuses a
file without BLEU at its checkpoints, and the finding reads its numbers from both files and follows them (made-up
runs where the gap closes and where it does not)."""

import pytest

from lessons.attention_bridge import leave_out, long_run
from lessons.common.comparison import Comparison
from lessons.common.runs import Run

VARIANT = leave_out.leave_out_variant(long_run.LONG_RUN_PAIR)


def made_up(trained: float, zero: float, seeds=(0, 1), steps: int = 14000) -> Comparison:
    """The left-out model: each seed ``trained`` and ``zero`` BLEU (seed s one point higher) at the end, half of
    that at the first checkpoint."""
    runs = []
    for seed in seeds:
        curve = (
            {"step": steps // 2, "trained_bleu": trained / 2 + seed, "zero_shot_bleu": zero / 2 + seed},
            {"step": steps, "trained_bleu": trained + seed, "zero_shot_bleu": zero + seed},
        )
        final = {"trained_bleu": trained + seed, "zero_shot_bleu": zero + seed}
        extra = {"steps": steps, "pairs": [["a", "b"]] * 14}
        runs.append(Run(VARIANT, seed, {}, curve, final, extra))
    meta = {"steps": steps, "grid_steps": 2000, "checkpoint_every": 2000}
    return Comparison((VARIANT,), tuple(runs), meta, {VARIANT: "without"})


def short(trained: float, zero: float, seeds=(0, 1, 2)) -> Comparison:
    """The leave-one-out study's same model at the grid's steps."""
    runs = [Run(VARIANT, s, {}, (), {"trained_bleu": trained + s, "zero_shot_bleu": zero + s}, {}) for s in seeds]
    return Comparison((VARIANT,), tuple(runs), {"steps": 2000}, {VARIANT: "without"})


def test_the_steps_give_each_direction_the_bilingual_models_share():
    assert long_run.steps_for_equal_share(2000, 14) == 14000  # 1000 a direction, as the bilingual model's two get
    assert long_run.steps_for_equal_share(2000, 16) == 16000


def test_the_loader_refuses_a_file_without_bleu_at_its_checkpoints(tmp_path):
    good = made_up(80.0, 10.0)
    path = good.save(tmp_path / "long.json")
    assert long_run.load_long_run(path).runs_of(VARIANT)
    bad = Comparison((VARIANT,), tuple(Run(VARIANT, r.seed, {}, (), r.final, r.extra) for r in good.runs), {}, {})
    with pytest.raises(ValueError, match="attention_bridge_long_run.py"):
        long_run.load_long_run(bad.save(tmp_path / "bad.json"))


def test_a_gap_that_stays_is_said_to_stay_with_the_numbers_of_both_files():
    text = long_run.long_run_finding(made_up(80.0, 10.0), short(30.0, 12.0))
    assert "After 14000 steps the zero-shot pair scores 10.5 ± 0.7 BLEU against 80.5 ± 0.7" in text
    assert ": 13% of it." in text  # 10.5 / 80.5
    assert "13.0 ± 1.0 zero-shot against 31.0 ± 1.0 trained (n = 3), 42%" in text  # 13 / 31
    assert "moved from 31.0 to 80.5 BLEU and the zero-shot pair from 13.0 to 10.5" in text
    assert "zero-shot's share of the trained BLEU went from 42% to 13%" in text
    assert "with 1000 steps a direction (the bilingual model's: 1000): steps alone did not close the gap" in text
    assert "a first look, not a finding" in text  # two seeds: the rule gives no verdict
    assert "2 seeds; 5 would make it a finding" in text


def test_a_run_stopped_short_of_the_bilingual_models_steps_neither_confirms_nor_rules_out():
    planned = made_up(60.0, 10.0, steps=7000)
    stopped = Comparison(planned.variants, planned.runs, {**planned.meta, "steps": 14000}, planned.labels)
    text = long_run.long_run_finding(stopped, short(30.0, 12.0))
    assert "the run stopped at 500 steps a direction, short of the bilingual model's 1000" in text
    assert "neither confirms nor rules out the equal-compute explanation" in text
    assert "did not close the gap" not in text and "does not account" not in text
    assert long_run.per_direction(stopped) == (500.0, 1000.0)


def test_a_gap_that_closes_is_said_to_close():
    text = long_run.long_run_finding(made_up(80.0, 76.0), short(30.0, 12.0))
    assert ": 95% of it." in text and "went from 42% to 95%" in text and "the gap closed" in text
    assert "did not close" not in text


def test_the_verdict_on_the_gap_is_the_rules(rule_on_made_up_seeds):
    text = long_run.long_run_finding(made_up(80.0, 10.0, seeds=(0, 1, 2)), None)
    assert "clearly **below**" in text and "first look" not in text


def test_the_chart_draws_both_curves_per_seed_and_the_intro_reads_the_file():
    chart = long_run.long_run_charts(made_up(80.0, 10.0))
    labels = chart["encoding"]["color"]["scale"]["domain"]
    assert labels == ["trained directions", "en ↔ fr zero-shot"]
    means = {(v["label"], v["x"]): v["mean"] for v in chart["data"]["values"] if v["kind"] == "mean"}
    assert means[("en ↔ fr zero-shot", 14000)] == pytest.approx(10.5)
    assert means[("trained directions", 7000)] == pytest.approx(40.5)
    intro = long_run.long_run_intro(made_up(80.0, 10.0))
    assert "(143 each for this model's 14 trained directions" in intro and "two get 1000 each" in intro
    assert "trained for 14000 steps: 1000 a direction, 7.0× the grid's" in intro


def test_a_run_stopped_by_its_budget_is_said_to_have_stopped_where_it_did():
    stopped = made_up(60.0, 10.0, steps=7000)
    stopped = Comparison(stopped.variants, stopped.runs, {**stopped.meta, "steps": 14000}, stopped.labels)
    intro = long_run.long_run_intro(stopped)
    assert "planned for 14000 steps (1000 a direction) but stopped" in intro
    assert "at step 7000: 500 a direction, 3.5× the grid's, short of the bilingual model's share" in intro
    assert long_run.long_run_finding(stopped).startswith("After 7000 steps")


def test_the_note_says_which_weights_the_final_scores_were_measured_with():
    finished = made_up(80.0, 10.0)
    assert "rounded to float16" in long_run.long_run_note(finished)
    runs = tuple(
        Run(r.variant, r.seed, r.params, r.curve, r.final, {**r.extra, "stopped": "checkpoint"}) for r in finished.runs
    )
    stopped = Comparison(finished.variants, runs, {**finished.meta, "max_seconds": 3000.0}, finished.labels)
    note = long_run.long_run_note(stopped)
    assert "last checkpoint's" in note and "float16" not in note and "at most 3000 s of training" in note
