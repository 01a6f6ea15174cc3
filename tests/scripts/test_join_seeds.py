"""``scripts.join_seeds``: the seeds of one results script run in several processes, joined into one file that
says how it was made; files from other settings, other variants or the same seed are refused, and
``scripts.reproduce`` reruns a joined file from its first process's command."""

import pytest

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from scripts import join_seeds, reproduce

MACHINE = {"cpu_model": "Example CPU", "cpu_capability": "AVX2", "torch_threads": 1}


def part(seeds, *, steps=100, variants=("a", "b"), seconds=10.0) -> Comparison:
    runs = tuple(Run(v, s, {}, (), {"exact": 0.1 * s + (0.5 if v == "b" else 0.0)}) for v in variants for s in seeds)
    command = f"python scripts/x_results.py --seeds {' '.join(map(str, seeds))} --steps {steps} --threads 1"
    meta = {"command": command, "seeds": list(seeds), "steps": steps, "machine": MACHINE, "seconds": seconds}
    labels = {v: v.upper() for v in variants}
    return Comparison(variants, runs, {**meta, "date": f"2026-11-29 seeds {seeds[0]}"}, labels)


def test_two_processes_seeds_become_one_file_that_says_how_it_was_made(tmp_path):
    first, second = part([0, 1, 2], seconds=30.0), part([3, 4], seconds=20.0)
    paths = [first.save(tmp_path / "a.json"), second.save(tmp_path / "b.json")]
    assert join_seeds.main([*map(str, paths), "--out", str(tmp_path / "joined.json")]) == 0
    joined = Comparison.load(tmp_path / "joined.json")
    assert joined.seeds == (0, 1, 2, 3, 4) and joined.meta["seeds"] == [0, 1, 2, 3, 4]
    assert [(r.variant, r.seed) for r in joined.runs] == [(v, s) for v in "ab" for s in range(5)]
    saved = [Comparison.load(p) for p in paths]  # as written: floats to six significant digits
    assert {(r.variant, r.seed): r.final for r in joined.runs} == {
        (r.variant, r.seed): r.final for c in saved for r in c.runs
    }
    assert first.meta["command"] in joined.meta["command"] and second.meta["command"] in joined.meta["command"]
    assert [j["command"] for j in joined.meta["joined"]] == [first.meta["command"], second.meta["command"]]
    assert joined.meta["seconds"] == 50.0 and joined.meta["machine"] == MACHINE and joined.meta["steps"] == 100
    assert reproduce.first_command(joined.meta) == first.meta["command"]  # a rerun of its first seed
    module, args = reproduce.merged(reproduce.first_command(joined.meta), ["--seeds", "0", "--out", "/tmp/r.json"])
    assert module == "scripts.x_results"
    assert args == ["--seeds", "0", "--steps", "100", "--threads", "1", "--out", "/tmp/r.json"]


@pytest.mark.parametrize(
    ("second", "refused"),
    [
        (part([3, 4], steps=200), "other settings than file 1: steps"),
        (part([3, 4], variants=("a", "c")), "other variants or labels"),
        (part([2, 3]), "seed 2 is in more than one file"),
    ],
)
def test_files_that_are_not_one_experiment_are_refused(tmp_path, capsys, second, refused):
    paths = [part([0, 1, 2]).save(tmp_path / "a.json"), second.save(tmp_path / "b.json")]
    assert join_seeds.main([*map(str, paths), "--out", str(tmp_path / "joined.json")]) == 1
    assert refused in capsys.readouterr().err and not (tmp_path / "joined.json").exists()
    with pytest.raises(ValueError, match="two files or more"):
        join_seeds.join([part([0])])
