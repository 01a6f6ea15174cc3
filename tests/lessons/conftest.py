"""Fixtures for the lessons' tests."""

import pytest

from lessons.common import verdicts


@pytest.fixture
def rule_on_made_up_seeds(monkeypatch):
    """The course's verdict rule with its seed minimum lowered to two and no cross-machine drift, for tests that
    turn a lesson's made-up two- or three-seed numbers round to check that its sentences follow the rule's outcome
    whichever way it goes. Welch's t-test at α = 0.05 still decides. The rule itself, with its five seeds and the
    measured drift, is tested in ``tests/lessons/common/test_verdicts.py``."""
    monkeypatch.setattr(verdicts, "MIN_SEEDS", 2)
    monkeypatch.setattr(verdicts, "measured_drift", lambda metric, results=None: 0.0)
