"""The shipped Streamlit config is the classroom server's: checked as Streamlit itself reads it."""

import json
import subprocess
import sys

from tests.helpers import ROOT

EXPECTED = {
    "client.showSidebarNavigation": False,
    "client.toolbarMode": "viewer",
    "client.showErrorDetails": "none",
    "server.headless": True,
    "server.fileWatcherType": "none",
    "server.enableXsrfProtection": True,
    "server.maxUploadSize": 5,  # MB: the "Your own data" page's limit (minimodels.own_data.LIMITS)
    "browser.gatherUsageStats": False,
    "runner.postScriptGC": False,
}

PROBE = f"""
import json
from streamlit import config
config.get_config_options(force_reparse=True)  # reads ./.streamlit/config.toml like `streamlit run`
print(json.dumps({{name: config.get_option(name) for name in {list(EXPECTED)!r}}}))
"""


def test_streamlit_reads_the_classroom_config():
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == EXPECTED
