"""What a careful tester's inputs get: ``python -m bench.hostile_files [models|pairs|races|export|all]``.

Prints markdown tables, recorded in ``bench/hostile_files.md``:

- ``models``: every crafted model file of ``tests/fixtures/hostile_models/`` (``tests/make_hostile_models.py``)
  through the loader: its answer, how long it took, and how much the process's peak memory grew; then the model that
  never ends, decoded greedily and with the widest beam a page offers, and with a slow step (a busy server);
- ``pairs``: pairs files with NUL bytes and other binary starts through the reader;
- ``races``: thirty rounds of each first write two or three sessions make at once, with real threads, on a SQLite
  file and on a throwaway PostgreSQL cluster (``store.throwaway``): how many writes landed, how many were refused with
  a message, and how many met a database error (the store's answer to a lost race before it made them upserts);
- ``export``: hostile names and answers through the teacher's CSV export, cell by cell.

The races run whatever ``store`` package is first on the path: ``PYTHONPATH=<an older store> python -m
bench.hostile_files races`` measures the code before, as the record does.
"""

from __future__ import annotations

import csv
import io
import json
import resource
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import store
from store import throwaway

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "hostile_models"
ROUNDS = 30


def cell(text: str) -> str:
    """Text for a markdown table's cell: its pipes escaped."""
    return str(text).replace("|", "\\|")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def models() -> None:
    import torch  # here: torch; the races part runs without it (and with an older store)

    from minimodels.decode import translate  # here: torch, as above
    from minimodels.own_data import ArtifactError, load_model  # here: torch, as above

    torch.set_num_threads(1)
    index = json.loads((FIXTURES / "index.json").read_text())
    print("| file | what it is | what the loader answered | ms | peak memory growth (MB) |")
    print("|---|---|---|---:|---:|")
    for name, entry in index.items():
        data = (FIXTURES / name).read_bytes()
        peak, start = _peak_mb(), time.perf_counter()
        try:
            load_model(data)
            answer = "loads"
        except ArtifactError as refused:
            answer = str(refused)
        ms = (time.perf_counter() - start) * 1000
        print(f"| `{name}` | {cell(entry['what'])} | {cell(answer)} | {ms:.0f} | {_peak_mb() - peak:.0f} |")
    model, task, _meta = load_model((FIXTURES / "never-ends.safetensors").read_bytes())
    print("\n| never-ends.safetensors, decoded | pieces written | seconds | message |")
    print("|---|---:|---:|---|")
    for method, width in (("greedy", 1), ("beam", 8)):
        start = time.perf_counter()
        result = translate(model, task, "the red cat", method=method, width=width)
        seconds = time.perf_counter() - start
        print(f"| {method}, width {width} | {len(result.target_pieces)} | {seconds:.2f} | {result.message or '—'} |")
    step = model.step

    def slow(*args, **kwargs):  # a busy server: 20 ms a step
        time.sleep(0.02)
        return step(*args, **kwargs)

    model.step = slow
    for method in ("greedy", "beam"):
        start = time.perf_counter()
        result = translate(model, task, "the red cat", method=method, width=8)
        seconds = time.perf_counter() - start
        print(f"| {method}, 20 ms a step | {len(result.target_pieces)} | {seconds:.2f} | {result.message or '—'} |")


PAIRS = {
    "one NUL byte in line 2 of 3": b"the dog\tle chien\nthe c\x00at\tle chat\nthe owl\tle hibou\n",
    "a NUL byte in every line": b"the dog\x00\tle chien\nthe cat\tle\x00 chat\n",
    "UTF-16 without its mark": "the dog\tle chien\nthe cat\tle chat\n".encode("utf-16-le"),
    "a PNG image": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200),
    "a zip (a spreadsheet)": b"PK\x03\x04" + bytes(300),
}


def pairs() -> None:
    from minimodels.own_data import PairsError, read_pairs  # here: torch; the races part runs without it

    print("| pairs file | what the reader answered |")
    print("|---|---|")
    for what, data in PAIRS.items():
        try:
            read = read_pairs(data)
            answer = f"{len(read.pairs)} pairs kept; skipped: {read.skipped}"
        except PairsError as refused:
            answer = str(refused)
        print(f"| {what} | {cell(answer)} |")


def _race(*writes) -> list:
    barrier = threading.Barrier(len(writes))
    results: list = [None] * len(writes)

    def run(i: int, write) -> None:
        barrier.wait()
        try:
            results[i] = write()
        except Exception as error:  # noqa: BLE001 - what each write met is the measurement
            results[i] = error

    threads = [threading.Thread(target=run, args=(i, w)) for i, w in enumerate(writes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _one_round(i: int, classes, learners, teacher, code: str) -> dict[str, list]:
    """One round of each race: ``{race: what each of its writes returned or raised}``."""
    fresh = store.Learners.fresh_key()
    known = learners.new_key()
    other, _ = classes.create_class(f"names {i}")
    member, _token = classes.join(code, f"S{i}")
    question = teacher.open_question("scaling", f"scaling.ex{i}", "?", ["a", "b"], 0, "e")
    return {
        "a new learner's first visit, exercise count and answer": _race(
            lambda: learners.visit(fresh, "scaling"),
            lambda: learners.set_exercises(fresh, "scaling", 3),
            lambda: learners.solve(fresh, "scaling", "scaling.ex1", "1", True),
        ),
        "three first visits of one lesson": _race(*[lambda: learners.visit(known, f"lesson{i}")] * 3),
        "three joins with the same name": _race(*[lambda: classes.join(other.code, "Ana")] * 3),
        "one student's answer sent twice at once": _race(
            lambda: classes.answer(member, question.id, 0), lambda: classes.answer(member, question.id, 1)
        ),
    }


def _races(url: str) -> dict[str, tuple[int, int, int]]:
    """``{race: (landed, refused with a message, database errors)}`` over :data:`ROUNDS` rounds each."""
    classes, learners = store.open_store(url)
    info, key = classes.create_class("races")
    teacher = classes.teacher(info.code, key)
    tally: dict[str, list[int]] = {}
    for i in range(ROUNDS):
        for name, results in _one_round(i, classes, learners, teacher, info.code).items():
            row = tally.setdefault(name, [0, 0, 0])
            for r in results:
                row[0 if not isinstance(r, Exception) else 1 if isinstance(r, store.StoreError) else 2] += 1
    classes.engine.dispose()
    return {name: tuple(row) for name, row in tally.items()}


def races() -> None:
    print(f"store code: {Path(store.__file__).parent}")
    print("| race (30 rounds) | database | landed | refused with a message | database errors |")
    print("|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp, throwaway.cluster() as server:
        for database, url in (("SQLite", f"sqlite:///{tmp}/races.sqlite3"), ("PostgreSQL 15", server)):
            for name, (landed, refused, errors) in _races(url).items():
                print(f"| {name} | {database} | {landed} | {refused} | {errors} |")


def export() -> None:
    from ui.classroom import export_files  # here: Streamlit; only the export part needs it

    with tempfile.TemporaryDirectory() as tmp:
        classes, _ = store.open_store(f"sqlite:///{tmp}/export.sqlite3")
        info, key = classes.create_class("=1+1 class")
        for name in ("=1+cmd|' /C calc'!A0", "@SUM(A1:A9)", "+1 555 0100", "-2+3", "−1", "＝1+1", "Ana"):
            member, _ = classes.join(info.code, name)
            classes.check_exercise(member, "scaling", "scaling.ex1", '=HYPERLINK("http://x","y")', False)
        _json, as_zip = export_files(classes.teacher(info.code, key))
    with zipfile.ZipFile(io.BytesIO(as_zip)) as archive:
        rows = list(csv.DictReader(io.StringIO(archive.read("students.csv").decode())))
        checked = list(csv.DictReader(io.StringIO(archive.read("exercises.csv").decode())))
    print("| name typed | students.csv cell |\n|---|---|")
    for row in rows:
        print(f"| `{cell(row['name'].lstrip(chr(39)))}` | `{cell(row['name'])}` |")
    print(f"\nexercises.csv answer cell: `{cell(checked[0]['answer'])}`")


PARTS = {"models": models, "pairs": pairs, "races": races, "export": export}


def main(argv: list[str]) -> None:
    chosen = argv[1:] or ["all"]
    for name, part in PARTS.items():
        if "all" in chosen or name in chosen:
            print(f"\n### {name}\n")
            part()


if __name__ == "__main__":
    main(sys.argv)
