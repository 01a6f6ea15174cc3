"""lessons.common.timing: the one timer of lessons 1 and 5."""

import torch

from lessons.common.timing import call_seconds


def test_call_seconds_warms_up_then_averages_each_repeat_over_at_least_one_call():
    calls = []

    def fn(x):
        calls.append(torch.is_inference_mode_enabled())
        return x * 2

    out = call_seconds(fn, torch.ones(3), budget=0.0, repeats=4)
    assert len(out) == 4 and all(s > 0 for s in out)
    assert len(calls) == 1 + 4 and all(calls)  # one warm-up, then one call a repeat at a zero budget; no autograd
    assert len(call_seconds(fn, torch.ones(3), budget=0.01, repeats=2)) == 2
