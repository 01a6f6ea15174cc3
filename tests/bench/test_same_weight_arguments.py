"""``bench.same_weight``'s counts: a figure is a median, so a count of nothing is refused with a message, not a
traceback at the end of the run."""

import argparse

import pytest

from bench.same_weight import _at_least


def test_a_count_below_one_or_not_a_number_is_refused_with_a_message():
    read = _at_least(1)
    assert read("3") == 3
    with pytest.raises(argparse.ArgumentTypeError, match="less than 1"):
        read("0")
    with pytest.raises(argparse.ArgumentTypeError, match="not a whole number"):
        read("three")
