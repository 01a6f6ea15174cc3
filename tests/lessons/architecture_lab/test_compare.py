"""The architecture lab's comparison (section 3): each poster finding reproduced, contradicted, partly
reproduced or too close to call as the seeds say, the poster's tables from the shipped grid, a shipped row to rerun."""

from dataclasses import replace

import pytest

from lessons.architecture_lab import compare, compare_runs, paper_numbers, presets, training, writing_chains
from lessons.common import verdicts
from lessons.common.comparison import Comparison
from lessons.common.runs import Spread
from lessons.common.significance import welch
from minimodels.tasks import get_task
from tests.lessons.architecture_lab.made_up import comparison

FINDING_KEYS = sorted({key for f in compare.FINDINGS for pair in f.pairs for key in pair})


def poster_grid(finals: dict[str, tuple]) -> Comparison:
    """A made-up grid of every preset the findings name: ``finals`` per preset (0.5 ± 0.01 for the others)."""
    default = (0.5, 0.51, 0.49)
    return comparison(
        {k: (100, 100, 100) for k in FINDING_KEYS},
        {k: finals.get(k, default) for k in FINDING_KEYS},
        task="toy-translation",
    )


@pytest.mark.parametrize("finding", compare.FINDINGS, ids=lambda f: f.claim[:30])
def test_each_finding_is_reproduced_or_contradicted_as_the_numbers_say(rule_on_made_up_seeds, finding):
    ahead, behind = (0.9, 0.91, 0.92), (0.6, 0.62, 0.61)
    favour = {a: ahead for a, _ in finding.pairs} | {b: behind for _, b in finding.pairs}
    swapped = {a: behind for a, _ in finding.pairs} | {b: ahead for _, b in finding.pairs}
    for finals, status in ((favour, "reproduced"), (swapped, "contradicted")):
        said = {claim: (s, sentences) for claim, s, sentences in compare.findings(poster_grid(finals))}
        got, sentences = said[finding.claim]
        assert got == status
        first, second = finding.pairs[0]
        winner, loser = (first, second) if status == "reproduced" else (second, first)
        assert f"{presets.PRESET_BY_KEY[winner].label} beats" in sentences[0] or (
            f"{presets.PRESET_BY_KEY[loser].label} does not beat" in sentences[0]
        )
        text = compare.findings_markdown(poster_grid(finals))
        assert f"**“{finding.claim}”**: {status} here." in text
        summary = text.split("\n")[0]
        assert (finding.claim + " (contradicted)" in summary) == (status == "contradicted")
        assert (finding.claim + "." in summary or finding.claim + ";" in summary) == (status == "reproduced")


def test_a_finding_within_the_spread_is_too_close_to_call_and_a_half_won_one_is_partly_reproduced(
    rule_on_made_up_seeds,
):
    noisy = poster_grid({"rnn-multi-att": (0.6, 0.7, 0.5), "rnn-one-att": (0.58, 0.68, 0.52)})
    status = {claim: s for claim, s, _ in compare.findings(noisy)}
    assert status["Multiple source attention layers are key"] == "too close to call"
    half = poster_grid({"selfatt-rnn": (0.9, 0.91, 0.92), "rnn-selfatt": (0.6, 0.61, 0.62)})  # CNN pair: a tie
    assert {c: s for c, s, _ in compare.findings(half)}[
        "Self-attention is more important on the source side"
    ] == "partly reproduced"
    summary = compare.findings_markdown(half).split("\n")[0]
    assert "In part: Self-attention is more important on the source side." in summary
    assert "(partly reproduced)" not in summary  # never among what it does not reproduce
    assert compare.findings(comparison({"transformer": (1, 2)}, {"transformer": (0.5, 0.6)})) == []


@pytest.mark.parametrize("grid", list(compare_runs.GRIDS))
def test_the_shipped_findings_agree_with_the_shipped_means(grid):
    """Recomputed here by hand: a pair is won with five seeds a side, Welch's p below α and a gap above the drift
    measured for the metric."""
    results = compare_runs.load_results(compare_runs.GRIDS[grid])
    said = {claim: status for claim, status, _ in compare.findings(results)}
    assert len(said) == len(compare.FINDINGS)  # the grid ran every preset the findings name
    drift = verdicts.measured_drift(compare_runs.FINAL, results.source)
    for finding in compare.FINDINGS:
        won = []
        for a, b in finding.pairs:
            sa, sb = (results.spread(compare_runs.FINAL, k) for k in (a, b))
            gap = sa.mean - sb.mean
            clear = (
                min(sa.n, sb.n) >= verdicts.MIN_SEEDS
                and welch(sa.present, sb.present)[2] < verdicts.ALPHA
                and drift is not None
                and abs(gap) > drift
            )
            won.append(("a" if gap > 0 else "b") if clear else None)
        expected = (
            "contradicted"
            if "b" in won
            else "reproduced"
            if all(w == "a" for w in won)
            else "partly reproduced"
            if any(won)
            else "too close to call"
        )
        assert said[finding.claim] == expected, finding.claim


@pytest.mark.parametrize("grid", list(compare_runs.GRIDS))
def test_the_shipped_grid_is_the_posters_tables_with_three_seeds_on_a_task_that_does_not_saturate(grid):
    results = compare_runs.load_results(compare_runs.GRIDS[grid])
    assert len(results.seeds) >= 3 and results.meta["tasks"] == ["toy-translation"]
    assert f"{results.meta['max_steps']} steps" == grid and results.meta["stop_at"] >= 1.0  # no early stop
    assert all(len(results.runs_of(v)) == len(results.seeds) for v in results.variants)
    finals = [results.spread(compare_runs.FINAL, v).mean for v in results.variants]
    assert max(finals) - min(finals) > 0.1 and min(finals) < 0.9  # the rows are separated, not all at 100%
    tables = dict(compare.poster_tables(results))
    assert [t for t, _ in compare.poster_tables(results)][0].startswith("Baselines")
    name = compare.final_name(results)
    combos = tables["Encoder/decoder combinations"]
    order = [(e, d) for e, d, _ in paper_numbers.PAPER_COMBINATIONS]
    assert [(r["encoder"], r["decoder"]) for r in combos] == [
        p for p in order if p in {(r["encoder"], r["decoder"]) for r in combos}
    ]
    for row in combos:
        key = next(p.key for p in presets.PRESETS if p.paper == (row["encoder"], row["decoder"]))
        runs = results.runs_of(key)
        assert row[name] == Spread(tuple(r.value(compare_runs.FINAL) for r in runs)).text(".1%", with_n=False)
        assert row["parameters"] == runs[0].extra["parameters"] and row["n"] == len(runs)
        assert row["seconds"] == results.spread("seconds", key).text(".1f", with_n=False)
    ladder = tables[compare.LADDER_TITLE]
    assert "rnmt" not in paper_numbers.PAPER_RNN_LADDER  # one preset beside one poster row
    assert "plain RNN (23.8 BLEU), which is not its RNMT baseline (25.5)" in compare.LADDER_NOTE
    assert [r["model"] for r in ladder] == [name for name, _ in paper_numbers.PAPER_RNN_LADDER.values()]
    assert [r["model"] for r in tables[next(iter(tables))]] == ["Transformer", "RNMT", "CNN GLU"]
    text = compare.grid_text(results)
    assert "toy-translation" in text and f"range from {min(finals):.1%}" in text and f"to {max(finals):.1%}" in text


@pytest.mark.parametrize("grid", list(compare_runs.GRIDS))
def test_a_shipped_row_reruns_with_its_chains_seed_and_steps(grid):
    results = compare_runs.load_results(compare_runs.GRIDS[grid])
    key = results.variants[-1]
    settings = compare.rerun_settings(results, key)
    preset = presets.PRESET_BY_KEY[key]
    assert settings["architecture_lab.encoder"] == preset.encoder and settings["architecture_lab.preset"] == key
    assert settings["architecture_lab.task"] == "toy-translation"
    assert settings["architecture_lab.steps"] == results.meta["max_steps"]
    assert settings["architecture_lab.seed"] in results.seeds
    task = get_task("reverse")
    checked = writing_chains.check(preset.encoder, preset.decoder, task)
    model, train_fn = training.new_run(checked, task, 0, 60.0, max_steps=3)
    assert train_fn(None).steps == 3  # exactly the row's steps, no early stop


@pytest.mark.parametrize(("big", "warned"), [(120_000, True), (105_000, False)])
def test_a_finding_names_the_sizes_and_warns_when_the_winner_is_much_larger(big, warned):
    grid = poster_grid({})
    sizes = {"rnn-rnn": big, "rnn-multi-att": 100_000}
    runs = tuple(replace(r, extra={"parameters": sizes.get(r.variant, 1)}) for r in grid.runs)
    said = {c: s for c, _, s in compare.findings(Comparison(grid.variants, runs, {}, grid.labels))}
    sentence = said["The residual feed-forward layer is key"][0]
    assert f"Parameters: {big:,} against 100,000" in sentence
    assert ("more weights" in sentence) == warned
