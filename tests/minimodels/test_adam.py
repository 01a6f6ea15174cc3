"""The course's Adam (minimodels.adam) against torch.optim.Adam, step for step, to the last bit; and what it is for:
training without importing torch._dynamo."""

import subprocess
import sys

import pytest
import torch
from torch import nn

from minimodels.adam import Adam, scheduled
from tests.helpers import ROOT


def _model(seed: int) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Embedding(7, 6), nn.Linear(6, 5), nn.Tanh(), nn.Linear(5, 3))


def _train(model: nn.Module, optimizer, set_lr, steps: int = 12) -> list[torch.Tensor]:
    """``steps`` steps on fixed random batches; at step 5 the second layer gets no gradient (frozen for a step)."""
    generator = torch.Generator().manual_seed(3)
    for k in range(steps):
        set_lr(k)
        optimizer.zero_grad(set_to_none=True)
        x = torch.randint(0, 7, (4,), generator=generator)
        y = torch.randint(0, 3, (4,), generator=generator)
        nn.functional.cross_entropy(model(x), y).backward()
        if k == 5:
            model[1].weight.grad = None
        optimizer.step()
    return [p.detach().clone() for p in model.parameters()]


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("warm", [False, True])
def test_same_weights_as_torch_adam_bit_for_bit(fused, warm):
    factor = (lambda k: min(1.0, (k + 1) / 4) * 0.9**k) if warm else (lambda k: 1.0)
    ours_model, torch_model = _model(0), _model(0)
    ours = Adam(ours_model.parameters(), lr=1e-2, betas=(0.8, 0.99), fused=fused)
    reference = torch.optim.Adam(torch_model.parameters(), lr=1e-2, betas=(0.8, 0.99), fused=fused)
    schedule = torch.optim.lr_scheduler.LambdaLR(reference, factor)
    got = _train(ours_model, ours, scheduled(ours, factor))
    expected = _train(torch_model, reference, lambda k: None if k == 0 else schedule.step())
    assert all(torch.equal(a, b) for a, b in zip(got, expected, strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(got, [p.detach() for p in _model(0).parameters()], strict=True))


def test_a_parameter_without_gradient_keeps_its_step_count():
    model = _model(1)
    optimizer = Adam(model.parameters(), lr=0.1)
    _train(model, optimizer, lambda k: None, steps=8)
    counts = {name: optimizer.state[p][0].item() for name, p in model.named_parameters()}
    assert counts["1.weight"] == 7 and counts["1.bias"] == 8


def test_zero_grad_keeps_the_tensors_when_asked():
    model = _model(2)
    optimizer = Adam(model.parameters())
    nn.functional.cross_entropy(model(torch.tensor([1, 2])), torch.tensor([0, 1])).backward()
    optimizer.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.any() for p in model.parameters())
    optimizer.zero_grad()
    assert all(p.grad is None for p in model.parameters())


@pytest.mark.parametrize("bad", [{"lr": -1.0}, {"betas": (1.0, 0.9)}, {"eps": -1e-8}])
def test_bad_settings_are_refused(bad):
    with pytest.raises(ValueError, match="Adam needs"):
        Adam(_model(0).parameters(), **bad)


def test_nothing_to_train_is_refused():
    with pytest.raises(ValueError, match="no parameter"):
        Adam([torch.zeros(2)])


@pytest.mark.slow  # starts a Python process
def test_training_never_imports_the_compiler():
    """What the class is for: in a fresh process, the engine's training loop (a GRU with attention, and a
    Transformer with its warm-up schedule), a lesson's own trainer and every lesson page leave ``torch._dynamo``
    unimported; ``torch.optim.Adam`` imports it on its first step (checked last, so the check can see it)."""
    script = """
import sys, torch
from minimodels.tasks import get_task
from minimodels.train import build_model, default_train_config, train
from lessons.rnn_cells.standard_network import train_tagger
from tests.helpers import open_page
task = get_task("copy")
for name in ("gru-additive", "transformer"):
    config = default_train_config(name, max_steps=3, report_every=3, threads=1)
    train(build_model(name, task), task, config)
train_tagger("window", seed=0, steps=2)
for page in ("pages/rnn_cells.py", "pages/masking.py", "pages/transformer.py"):
    open_page(page)
assert "torch._dynamo" not in sys.modules, "training imported torch._dynamo"
torch.optim.Adam(torch.nn.Linear(2, 2).parameters())
assert "torch._dynamo" in sys.modules, "the check cannot see torch.optim's import"
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("ok")
