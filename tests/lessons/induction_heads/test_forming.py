"""The live section: a run for one student, what each report draws, and the shipped seeds' table and curves."""

import pytest

from lessons.common.live import MAX_BUDGET_SECONDS
from lessons.induction_heads import forming, training
from lessons.induction_heads import results as measured


@pytest.fixture(scope="module")
def reports():
    _, reports = training.train(0, steps=4, report_every=2)
    return reports


def test_a_run_trains_the_model_it_hands_the_page():
    run = forming.new_run(0, 5).start()
    assert run.wait(60)
    assert run.status == "finished" and run.snapshots and run.result is run.model
    with pytest.raises(ValueError):
        forming.new_run(0, MAX_BUDGET_SECONDS + 1)


def test_each_report_draws_every_head_and_both_scores(reports):
    fig = forming.heads_figure(reports[-1])
    heatmaps = [t for t in fig.data if t.type == "heatmap"]
    assert len(heatmaps) == training.CONFIG.n_layers * training.CONFIG.n_heads
    prefix, previous = forming.scores_charts(reports)
    for chart in (prefix, previous):
        variants = (
            {row["variant"] for row in chart["datasets"][next(iter(chart["datasets"]))]}
            if "datasets" in chart
            else None
        )
        assert variants is None or variants == {training.head_name(*h) for h in training.HEADS}
    assert forming.halves_chart(reports)
    caption = forming.snapshot_caption(reports[-1])
    assert caption.startswith(f"Step {reports[-1].step}: in-context accuracy")


def test_the_caption_names_an_induction_head_only_at_the_level():
    import numpy as np

    from lessons.induction_heads.training import Progress, Reading

    def reading(score):
        prefix = np.array([[0.0, 0.0], [score, 0.1]])
        return Reading(3.0, 0.5, 0.03, 0.9, np.array([[0.5, 0.1], [0.0, 0.0]]), prefix, None)

    assert "to copy, an induction head" in forming.snapshot_caption(Progress(100, 1.0, 2.0, reading(0.6)))
    assert "to copy, an induction head" not in forming.snapshot_caption(Progress(100, 1.0, 2.0, reading(0.1)))


def test_the_shipped_table_and_sentences(make_results, typical):
    rows = forming.results_rows(typical)
    assert [r["seed"] for r in rows] == [0, 1, 2, 3, 4]
    assert rows[0]["induction head formed at step"] == "150"
    never = make_results({v: [0.5] * 5 for v in measured.VARIANTS}, [None, 100, 100, 100, 100])
    assert forming.results_rows(never)[0]["induction head formed at step"] == "never"
    sentences = forming.results_sentences(typical)
    assert "in-context accuracy 92" in sentences[0]
    assert "5 of 5 seeds formed" in forming.expectation(measured.formation(typical))
    loss, score = forming.results_curves(typical)
    assert loss and score
