"""A bench row names the code it measured: the commit, with a "+" where tracked code differs from it, but not where
only the benches' own records (``bench/*.json``, ``bench/*.md``) do, as they do after every row written."""

import subprocess

from bench import harness


def _git(folder, *args) -> None:
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)


def test_a_changed_record_is_not_a_change_to_the_code_and_a_changed_module_is(monkeypatch, tmp_path):
    (tmp_path / "bench").mkdir()
    (tmp_path / "app.py").write_text("print('a lesson')\n")
    (tmp_path / "bench" / "classroom.json").write_text("{}\n")
    (tmp_path / "bench" / "CLASSROOM.md").write_text("# rows\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "first")
    monkeypatch.setattr(harness, "ROOT", tmp_path)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tmp_path, capture_output=True, text=True)
    assert harness.code_version() == head.stdout.strip()
    (tmp_path / "bench" / "classroom.json").write_text('{"rows": []}\n')
    (tmp_path / "bench" / "CLASSROOM.md").write_text("# rows, one more\n")
    assert harness.code_version() == head.stdout.strip()
    (tmp_path / "app.py").write_text("print('a lesson, changed')\n")
    assert harness.code_version() == head.stdout.strip() + "+"


def test_outside_a_git_checkout_there_is_no_version(monkeypatch, tmp_path):
    monkeypatch.setattr(harness, "ROOT", tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert harness.code_version() is None
