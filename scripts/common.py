"""What the results scripts in ``scripts/`` write beside their figures: the machine they were measured on."""

from __future__ import annotations

import os
import platform

import torch


def machine(threads: int) -> dict:
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_threads": threads,
    }
