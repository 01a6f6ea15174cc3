"""The architecture lab's training (section 2): a short run trains and reports every map, its row of the
comparison table, the first report at the target, and what a live run refuses."""

import pytest
import torch

from lessons.architecture_lab import presets, training, writing_chains
from minimodels.chains import ChainModel
from minimodels.tasks import get_task
from tests.helpers import recipe_of


@pytest.fixture(scope="module")
def task():
    return get_task("reverse")


def test_a_short_run_trains_reports_every_map_and_makes_a_table_row(task):
    preset = presets.PRESET_BY_KEY["selfatt-rnn"]
    checked = writing_chains.check(preset.encoder, preset.decoder, task)
    model = writing_chains.build(checked.config, seed=0)
    config = training.train_config(60, seed=0, max_steps=20, eval_size=10, report_every=10, batch_size=32)
    before = [p.detach().clone() for p in model.parameters()]
    result = training.train_model(model, task, config)
    assert result.steps == 20 and result.stopped == "max_steps" and len(result.history) == 2
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert result.history[-1].loss < result.history[0].loss
    views = training.snapshot_views(result.history[-1])
    assert [v.name for v in views] == ["encoder.0.self", "encoder.1.self", "decoder.0.cross", "decoder.1.cross"]
    row = training.run_row(preset.label, preset.encoder, preset.decoder, "gru", "reverse", checked.parameters, result)
    assert row["steps"] == 20 and row["parameters"] == checked.parameters
    assert row["final exact match"] == round(result.exact_match, 3)
    first = training.reached(result.history)
    assert row[f"steps to {training.TARGET:.0%}"] == (first[0] if first else None)


def test_reached_is_the_first_report_at_the_target():
    class P:
        def __init__(self, step, seconds, em):
            self.step, self.seconds, self.exact_match = step, seconds, em

    history = [P(25, 1.0, 0.5), P(50, 2.0, 0.91), P(75, 3.0, 0.95)]
    assert training.reached(history) == (50, 2.0)
    assert training.reached(history, 0.99) is None


def test_new_run_refuses_unbuildable_chains_and_silly_budgets(task):
    with pytest.raises(ValueError, match="never reads the source"):
        training.new_run(writing_chains.check("ff", "ff", task), task, 0, 10)
    good = writing_chains.check(presets.PRESETS[0].encoder, presets.PRESETS[0].decoder, task)
    with pytest.raises(ValueError, match="outside"):
        training.new_run(good, task, 0, 10_000)


def test_the_live_run_and_its_table_row(task):
    preset = presets.PRESETS[0]
    checked = writing_chains.check(preset.encoder, preset.decoder, task)
    run, row = training.live_run(checked, "reverse", "gru", preset.encoder, preset.decoder, 0, 10.0)
    assert run.status == "queued" and isinstance(recipe_of(run)[0], ChainModel)
    model = writing_chains.build(checked.config, seed=0)
    config = training.train_config(60, seed=0, max_steps=10, eval_size=10, report_every=10, batch_size=32)
    result = training.train_model(model, task, config)
    made = row(result)
    assert made == training.run_row(
        preset.label, preset.encoder, preset.decoder, "gru", "reverse", checked.parameters, result
    )
    assert made["chains"] == preset.label
    snapshot = result.history[-1]
    fig = training.snapshot_figure(snapshot)
    assert f"step {snapshot.step} · exact match" in fig.layout.title.text
    assert len(fig.data) == len(training.snapshot_views(snapshot))
    with pytest.raises(ValueError):
        training.live_run(writing_chains.check("ff", "ff", task), "reverse", "gru", "ff", "ff", 0, 10.0)
