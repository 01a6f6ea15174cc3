"""A bench server's log lives in this checkout's var/bench-logs (not a fixed name in the shared /tmp), is found again
from the server's URL, and only the newest logs are kept."""

import os

from bench import harness


def test_a_new_log_is_found_from_its_url_and_only_the_newest_are_kept(monkeypatch, tmp_path):
    monkeypatch.setattr(harness, "LOGS", tmp_path / "bench-logs")
    made = []
    for port in range(40000, 40000 + harness.KEEP_LOGS + 5):
        log = harness._new_log(port)
        log.write_text("started\n")
        os.utime(log, (port, port))  # each newer than the one before, whatever the clock's resolution
        made.append(log)
    assert made[-1] == harness.server_log(f"http://127.0.0.1:{40000 + harness.KEEP_LOGS + 4}")
    kept = sorted(harness.LOGS.glob("server-*.log"))
    assert kept == sorted(made[-harness.KEEP_LOGS :])


def test_the_logs_are_under_the_git_ignored_var_folder():
    assert harness.LOGS.is_relative_to(harness.ROOT / "var")
    ignored = (harness.ROOT / ".gitignore").read_text().split()
    assert "var/" in ignored
