"""Fixtures shared by the lesson's test files: the shipped results, and one tiny live run of both models."""

import pytest

from lessons.seq2seq_bottleneck import live_training, shipped


@pytest.fixture(scope="module")
def results():
    return shipped.load_results()


@pytest.fixture(scope="module")
def pair_run():
    """One tiny run of both models (D = 16, 8 steps each, a report every 4) and its reports."""
    models, train_fn = live_training.new_training(16, seed=2, steps=8, per_length=2, report_every=4)
    reports = []
    results = train_fn(lambda report: reports.append(report) or True)
    return models, results, reports
