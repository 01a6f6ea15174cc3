"""The shipped Streamlit config is the classroom server's: checked as Streamlit itself reads it."""

import subprocess
import sys

from tests.conftest import ROOT

EXPECTED = {
    "client.showSidebarNavigation": "false",
    "client.toolbarMode": '"viewer"',
    "client.showErrorDetails": '"none"',
    "server.headless": "true",
    "server.fileWatcherType": '"none"',
    "server.enableXsrfProtection": "true",
    "server.maxUploadSize": "1",
    "browser.gatherUsageStats": "false",
    "runner.postScriptGC": "false",
}


def test_streamlit_reads_the_classroom_config():
    shown = subprocess.run(
        [sys.executable, "-m", "streamlit", "config", "show"], cwd=ROOT, capture_output=True, text=True, timeout=60
    ).stdout
    values, section = {}, ""
    for line in shown.splitlines():
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
        elif " = " in line and not line.startswith("#"):
            name, value = line.split(" = ", 1)
            values[f"{section}.{name}"] = value
    assert {k: values.get(k) for k in EXPECTED} == EXPECTED
