"""minimodels.device picks CUDA, then Apple MPS, then the CPU, and names it for the sidebar."""

import pytest
import torch

from minimodels import device as device_module


@pytest.fixture
def pick(monkeypatch):
    """pick_device with the machine's answers replaced; the cached real answer is restored afterwards."""

    def run(cuda: bool, mps: bool | None) -> torch.device:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
        if mps is None:  # a torch built without the MPS backend at all
            monkeypatch.delattr(torch.backends, "mps")
        else:
            monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
        return device_module.pick_device.__wrapped__()

    yield run
    device_module.pick_device.cache_clear()


@pytest.mark.parametrize(
    ("cuda", "mps", "expected"),
    [(True, True, "cuda"), (True, False, "cuda"), (False, True, "mps"), (False, False, "cpu"), (False, None, "cpu")],
)
def test_cuda_then_mps_then_cpu(pick, cuda, mps, expected):
    assert pick(cuda, mps).type == expected


def test_labels_name_the_device():
    assert device_module.device_label(torch.device("mps")) == "Apple MPS"


@pytest.mark.parametrize(("threads", "label"), [(1, "CPU (1 thread)"), (2, "CPU (2 threads)")])
def test_cpu_label_counts_threads_in_good_english(monkeypatch, threads, label):
    monkeypatch.setattr(torch, "get_num_threads", lambda: threads)
    assert device_module.device_label(torch.device("cpu")) == label


def test_this_machine_gets_a_device_that_computes():
    picked = device_module.pick_device()
    assert picked.type in ("cuda", "mps", "cpu")
    x = torch.ones(2, 3, device=picked)
    assert float((x @ x.T).sum().cpu()) == 12.0
