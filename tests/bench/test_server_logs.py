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


def test_a_log_another_bench_removes_meanwhile_is_passed_over(monkeypatch, tmp_path):
    monkeypatch.setattr(harness, "LOGS", tmp_path / "bench-logs")
    harness.LOGS.mkdir()
    for port in range(41000, 41000 + harness.KEEP_LOGS + 3):
        (harness.LOGS / f"server-{port}.log").write_text("started\n")
    removed = harness.LOGS / "server-41001.log"
    real_stat = type(removed).stat

    def stat(path, *args, **kwargs):
        if path == removed:
            path.unlink(missing_ok=True)  # the other bench got there between the listing and the look
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(type(removed), "stat", stat)
    log = harness._new_log(42000)
    assert log.name == "server-42000.log" and not removed.exists()
    assert len(list(harness.LOGS.glob("server-*.log"))) < harness.KEEP_LOGS + 3
