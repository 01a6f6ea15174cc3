"""The code stays ruff-clean (lint and format), with the settings in pyproject.toml."""

import subprocess
import sys

from tests.helpers import ROOT


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_check():
    out = _ruff("check", ".")
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_format():
    out = _ruff("format", "--check", ".")
    assert out.returncode == 0, out.stdout + out.stderr
