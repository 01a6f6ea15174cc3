"""The paper's Table 1 direction by direction: the quoted panels are the paper's, each toy cell is its direction's
mean ± sd and n over the seeds (made-up scores that tell directions apart), cells are marked by what the experiment
did with them, and the differences sentence reads its means from both grids."""

from pathlib import Path

import pytest

from lessons.attention_bridge import experiments, table_one
from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from minimodels.tasks.multilingual import LANGUAGES

PAPER = Path("/work/shared/sources/attention-bridge-paper.txt")
DIRECTIONS = [f"{a}→{b}" for a in LANGUAGES for b in LANGUAGES if a != b]


def made_up(bleu: dict[str, float], experiment: str = "hub-mono", seeds=(0, 1, 2)) -> Comparison:
    """One experiment whose every seed scores ``bleu[direction]`` + seed in each direction (0 where not given)."""
    runs = []
    for seed in seeds:
        test = {d: {"bleu": bleu.get(d, 0.0) + seed, "exact_match": 0.0, "token_accuracy": 0.0} for d in DIRECTIONS}
        runs.append(Run(experiment, seed, {}, (), {}, {"test": test}))
    return Comparison((experiment,), tuple(runs), {"steps": 2000, "test_sentences": 300}, {experiment: experiment})


@pytest.mark.skipif(not PAPER.exists(), reason="the paper's text is not on this machine")
def test_the_quoted_panels_are_the_papers_table_1():
    lines = PAPER.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("src/tgt\tBILINGUAL\t"))
    blocks = [lines[start + 2 : start + 6], lines[start + 9 : start + 13]]  # the top and the bottom half
    panels = (("bilingual-nobridge", "hub", "m2m"), ("bilingual", "hub-mono", "m2m-mono"))
    for rows, names in zip(blocks, panels, strict=True):
        for i, line in enumerate(rows):
            cells = line.split("\t")
            assert cells[0] == table_one.PAPER_LANGUAGES[i].upper()
            for k, name in enumerate(names):
                printed = [None if c == "-" else float(c) for c in cells[1 + 4 * k : 5 + 4 * k]]
                assert list(table_one.PAPER_TABLE_1[name][i]) == printed, (name, i)


def test_each_toy_cell_is_its_directions_mean_sd_and_n():
    results = made_up({"fr→it": 40.0, "it→vf": 7.0})
    rows = {row["source ↓ target →"]: row for row in table_one.toy_grid(results, "hub-mono")}
    assert rows["fr"]["it"] == "41.0 ± 1.0 · n 3"  # 40, 41, 42
    assert rows["it"]["vf"] == "8.0 ± 1.0 · n 3 *"  # avoids the hub: zero-shot
    assert rows["it"]["it"] == "–"
    swapped = {row["source ↓ target →"]: row for row in table_one.toy_grid(made_up({"fr→it": 7.0}), "hub-mono")}
    assert swapped["fr"]["it"] == "8.0 ± 1.0 · n 3"


def test_cells_are_marked_by_what_each_experiment_did_with_them():
    bilingual = {r["source ↓ target →"]: r for r in table_one.toy_grid(made_up({}, "bilingual"), "bilingual")}
    assert bilingual["en"]["fr"].endswith("· n 3") and bilingual["it"]["vf"] == "not trained"
    m2m = table_one.toy_grid(made_up({}, "m2m"), "m2m")
    assert not any("*" in str(v) or "not trained" in str(v) for row in m2m for v in row.values())
    paper = {r["source ↓ target →"]: r for r in table_one.paper_grid("hub")}
    assert paper["DE"]["CS"] == "0.35 *" and paper["DE"]["EN"] == "39.39"
    assert table_one.paper_grid("hub-mono-nopenalty") == []


def test_the_differences_read_the_means_of_both_grids():
    trained = {f"{a}→{b}": 50.0 for a in LANGUAGES for b in LANGUAGES if a != b and experiments.HUB in (a, b)}
    text = table_one.differences(made_up(trained), "hub-mono")
    paper = [v for i, row in enumerate(table_one.PAPER_TABLE_1["hub-mono"]) for j, v in enumerate(row) if v]
    zero = [
        row[j]
        for i, row in enumerate(table_one.PAPER_TABLE_1["hub-mono"])
        for j in range(4)
        if i != j and 0 not in (i, j)
    ]
    hub_cells = sum(paper) - sum(zero)
    assert f"trained cells: 51.0 ± 1.0 here (n = 3 seeds), {hub_cells / 6:.1f} in the paper" in text
    assert f"zero-shot cells: 1.0 ± 1.0 here (n = 3 seeds), {sum(zero) / 6:.1f} in the paper" in text
    assert "no panel" in table_one.differences(made_up({}, "hub-mono-nopenalty"), "hub-mono-nopenalty")


def test_the_shipped_grid_has_every_experiments_panel():
    results = experiments.load_results()
    for name in results.variants:
        rows = table_one.toy_grid(results, name)
        assert [r["source ↓ target →"] for r in rows] == list(LANGUAGES)
        assert f"n {len(results.runs_of(name))}" in rows[0][LANGUAGES[1]] or rows[0][LANGUAGES[1]] == "not trained"
        assert table_one.differences(results, name)
