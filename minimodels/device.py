"""Where the models run: CUDA if there is a GPU, then Apple's MPS, then the CPU.

Everything in ``minimodels`` takes a ``device`` argument or follows its inputs, so each of the three works.
"""

from __future__ import annotations

import functools
import platform
from pathlib import Path

import torch

__all__ = ["pick_device", "device_label", "cpu_model"]


@functools.cache
def pick_device() -> torch.device:
    """The fastest device this machine has: ``cuda``, then ``mps``, then ``cpu``."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def device_label(device: torch.device | None = None) -> str:
    """A short name for the sidebar: ``"CUDA (NVIDIA H100)"``, ``"Apple MPS"``, ``"CPU (1 thread)"``."""
    device = device or pick_device()
    if device.type == "cuda":
        return f"CUDA ({torch.cuda.get_device_name(device)})"
    if device.type == "mps":
        return "Apple MPS"
    threads = torch.get_num_threads()
    return f"CPU ({threads} thread{'' if threads == 1 else 's'})"


def cpu_model() -> str:
    """The CPU's model name as the kernel reports it (``/proc/cpuinfo``), else what ``platform`` knows: what a
    results file or a bench figure says it was measured on."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
