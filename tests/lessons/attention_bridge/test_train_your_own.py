"""Section 5 of the attention bridge: a short live run, its reports, figure and caption."""

from lessons.attention_bridge import experiments, train_your_own
from minimodels.tasks.multilingual import LANGUAGES
from tests.helpers import recipe_of


def test_live_run_reports(monkeypatch):
    monkeypatch.setattr(train_your_own, "LIVE_SIZES", {"n_train": 40, "n_valid": 8, "n_test": 12})
    monkeypatch.setattr(
        train_your_own, "MODEL_OPTIONS", {"embedding_size": 8, "encoder_size": 6, "heads": 3, "bridge_hidden": 8}
    )
    model, corpus, train_fn = train_your_own.new_run(monolingual=False, penalty=False, seconds=60.0, steps=3)
    reports = []
    history = train_fn(reports.append)
    assert model.config.penalty_weight == 0.0 and [r.step for r in history] == [3]
    assert set(train_your_own.live_maps(history[-1])) == set(LANGUAGES)
    assert "zero-shot" in train_your_own.live_caption(history[-1])


def test_the_live_run_and_its_figure(monkeypatch):
    monkeypatch.setattr(train_your_own, "LIVE_SIZES", {"n_train": 40, "n_valid": 8, "n_test": 12})
    monkeypatch.setattr(
        train_your_own, "MODEL_OPTIONS", {"embedding_size": 8, "encoder_size": 6, "heads": 3, "bridge_hidden": 8}
    )
    run = train_your_own.live_run(monolingual=True, penalty=True, seconds=60.0)
    assert run.status == "queued" and recipe_of(run)[0].config.penalty_weight == experiments.PENALTY_ON
    _, _, train_fn = train_your_own.new_run(monolingual=False, penalty=False, seconds=60.0, steps=3)
    report = train_fn(lambda r: True)[-1]
    fig = train_your_own.live_figure(report)
    assert fig.layout.title.text == f"A after {report.step} steps" and len(fig.data) == len(LANGUAGES)
