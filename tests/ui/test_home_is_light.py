"""The home page opens without importing torch: it is the first page of every class and must open at once."""

import subprocess
import sys

import pytest

from tests.helpers import ROOT

PROBE = """
import sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py").run(timeout=30)
assert not at.exception, at.exception
print("torch" in sys.modules, "Models run on" in " ".join(c.value for c in at.sidebar.caption))
"""


@pytest.mark.slow  # starts a Python process: a fresh interpreter
def test_home_page_does_not_import_torch():
    # a fresh interpreter: this test process has imported torch long ago
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]
