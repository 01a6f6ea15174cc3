"""The attention bridge's leave-one-pair-out study (the paper's Figure 1): its runs, table, figure and the finding
the page states, on made-up numbers that go both ways and on the shipped file."""

import dataclasses
import json

import numpy as np
import pytest

from lessons.attention_bridge import experiments, findings, leave_out
from lessons.common import verdicts
from lessons.common.comparison import Comparison
from lessons.common.runs import Run, Spread
from lessons.common.verdicts import verdict
from minimodels.tasks.multilingual import LANGUAGES

PAIRS = leave_out.LEAVE_OUT_PAIRS


def fake_leave_out(trained: float, zero: float, seeds=(0, 1, 2), spread: float = 0.5) -> Comparison:
    """Every pair scores ``trained`` BLEU in the model with every pair and ``zero`` in the model without it (the
    other pairs of a leave-out model score ``trained``), each seed ``spread`` above the last; exact match and
    token accuracy are the BLEU / 100."""
    runs = []
    for variant in leave_out.leave_out_variants():
        for seed in seeds:
            test = {}
            for a in LANGUAGES:
                for b in LANGUAGES:
                    if a == b:
                        continue
                    left = variant == leave_out.leave_out_variant(tuple(sorted((a, b), key=LANGUAGES.index)))
                    bleu = (zero if left else trained) + spread * seed
                    test[f"{a}→{b}"] = {"bleu": bleu, "exact_match": bleu / 100, "token_accuracy": bleu / 100}
            runs.append(Run(variant, seed, {}, (), leave_out.pair_finals(test), {"test": test}))
    return Comparison(
        leave_out.leave_out_variants(), tuple(runs), {"steps": 10, "seeds": list(seeds)}, leave_out.leave_out_labels()
    )


def test_six_pairs_each_left_out_in_both_directions():
    assert len(PAIRS) == 6 and len({frozenset(p) for p in PAIRS}) == 6
    everything = leave_out.leave_out_config(None, 10)
    assert everything.held_out == () and len(everything.pairs) == 12 + 4  # every direction and the copies
    for pair in PAIRS:
        config = leave_out.leave_out_config(pair, 10, seed=3)
        assert set(config.held_out) == {pair, pair[::-1]} and not set(config.held_out) & set(config.pairs)
        assert set(config.pairs) | set(config.held_out) == set(everything.pairs) and config.seed == 3


def test_pair_finals_average_both_directions():
    test = {
        f"{a}→{b}": {"bleu": 10.0 if a < b else 20.0, "exact_match": 0.1, "token_accuracy": 0.3}
        for a in LANGUAGES
        for b in LANGUAGES
        if a != b
    }
    finals = leave_out.pair_finals(test)
    assert (
        finals[leave_out.pair_final("bleu", ("en", "fr"))] == 15.0
        and finals[leave_out.pair_final("tokens", ("it", "vf"))] == 0.3
    )
    assert len(finals) == 3 * 6


@pytest.mark.parametrize(
    ("trained", "zero", "says", "paper"),
    [
        (30.0, 8.0, "clearly **worse** zero-shot", "does **not** hold"),
        (30.0, 28.0, "clearly **worse** zero-shot", "as the paper found"),  # within 10%: "very close"
        (20.0, 25.0, "clearly **better** zero-shot", "as the paper found"),
    ],
)
def test_the_finding_follows_the_numbers(rule_on_made_up_seeds, trained, zero, says, paper):
    results = fake_leave_out(trained, zero, spread=0.1)
    line = leave_out.leave_out_finding(results)
    assert says in line and paper in line
    assert f"{zero + 0.1:.1f} ± 0.1 zero-shot against {trained + 0.1:.1f} ± 0.1 trained" in line
    assert f"reaches {(zero + 0.1) / (trained + 0.1):.0%} of the trained BLEU" in line
    if zero < trained:
        assert "clearly below trained for 6 of 6 (en ↔ fr, en ↔ it" in line


def test_overlapping_seeds_are_too_close_to_call_and_one_seed_is_never_a_finding():
    assert "too close to call" in leave_out.leave_out_finding(fake_leave_out(30.0, 28.0, spread=5.0))
    assert "too close to call" in leave_out.leave_out_finding(fake_leave_out(30.0, 29.5, spread=0.01))  # within a point
    one = leave_out.leave_out_finding(fake_leave_out(30.0, 8.0, seeds=(0,)))
    assert "too close to call" in one and "for 0 of 6" in one


def test_rows_and_figure():
    results = fake_leave_out(30.0, 8.0, seeds=(0, 1))
    rows = leave_out.leave_out_rows(results)
    assert [r["pair"] for r in rows] == ["en ↔ fr", "en ↔ it", "en ↔ vf", "fr ↔ it", "fr ↔ vf", "it ↔ vf"]
    assert rows[0]["BLEU: trained"] == "30.2 ± 0.4" and rows[0]["BLEU: zero-shot"] == "8.2 ± 0.4"
    assert rows[0]["exact match: zero-shot"] == "8.2% ± 0.4%" and rows[0]["n"] == "2 / 2"
    figure = leave_out.leave_out_figure(results).to_plotly_json()
    trained, zero = figure["data"]
    assert list(trained["y"]) == pytest.approx([30.25] * 6) and list(zero["y"]) == pytest.approx([8.25] * 6)
    assert list(zero["error_y"]["array"]) == pytest.approx([np.std([8.0, 8.5], ddof=1)] * 6)


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="attention_bridge_leave_out.py"):
        leave_out.load_leave_out(tmp_path / "none.json")
    results = fake_leave_out(30.0, 8.0)
    Comparison(results.variants, results.runs[:5], results.meta).save(tmp_path / "partial.json")
    with pytest.raises(ValueError, match="without en-it"):
        leave_out.load_leave_out(tmp_path / "partial.json")
    results.save(tmp_path / "whole.json")
    assert leave_out.load_leave_out(tmp_path / "whole.json").seeds == (0, 1, 2)


# ------------------------------------------------------------------------------------------- the shipped study
@pytest.fixture(scope="module")
def shipped():
    return leave_out.load_leave_out()


def test_the_shipped_study_is_complete(shipped):
    assert len(shipped.seeds) >= 3 and shipped.meta["seeds"] == list(shipped.seeds)
    assert shipped.meta["script"] == leave_out.LEAVE_OUT_SCRIPT and shipped.meta["steps"] >= 1000
    for key in ("command", "seconds", "load_1min_before", "load_1min_after", "machine"):
        assert key in shipped.meta
    for variant in leave_out.leave_out_variants():
        runs = shipped.runs_of(variant)
        assert len(runs) == len(shipped.seeds)
        for run in runs:
            assert run.extra["steps"] == shipped.meta["steps"]
            assert run.final == {**run.final, **leave_out.pair_finals(run.extra["test"])}  # finals are the test's
            held = {tuple(p) for p in run.extra["held_out"]}
            if variant == leave_out.ALL_PAIRS:
                assert not held and run.final["zero_shot_bleu"] is None
            else:
                pair = next(p for p in PAIRS if leave_out.leave_out_variant(p) == variant)
                assert held == {pair, pair[::-1]} and not held & {tuple(p) for p in run.extra["pairs"]}


def test_the_stated_finding_agrees_with_the_shipped_numbers(shipped):
    """Recomputed here from each run's per-direction test scores, not from the lesson's helpers."""
    for measure, key, fmt in (("bleu", "bleu", ".1f"), ("tokens", "token_accuracy", ".1%")):
        trained, zero = [], []
        for seed in shipped.seeds:
            every = next(r for r in shipped.runs_of(leave_out.ALL_PAIRS) if r.seed == seed).extra["test"]
            t, z = [], []
            for a, b in PAIRS:
                without = next(r for r in shipped.runs_of(leave_out.leave_out_variant((a, b))) if r.seed == seed)
                t.append(np.mean([every[f"{a}→{b}"][key], every[f"{b}→{a}"][key]]))
                z.append(np.mean([without.extra["test"][f"{a}→{b}"][key], without.extra["test"][f"{b}→{a}"][key]]))
            trained.append(np.mean(t))
            zero.append(np.mean(z))
        line = leave_out.leave_out_finding(shipped, measure)
        minimum = findings.BLEU_MIN_GAP if measure == "bleu" else findings.MIN_GAP
        rule = {"min_gap": minimum, "metric": leave_out.mean_metric(measure), "results": shipped.source}
        outcome, _ = verdict(Spread(tuple(zero)), Spread(tuple(trained)), **rule)  # the course's rule, its drift
        word = {"too close": "too close to call", "worse": "clearly **worse**", "better": "clearly **better**"}[outcome]
        assert word in line, line
        assert f"{np.mean(zero):{fmt}} ± {np.std(zero, ddof=1):{fmt}} zero-shot" in line
        close = np.mean(zero) / np.mean(trained) >= leave_out.CLOSE_SHARE
        assert ("as the paper found" in line) == close and ("does **not** hold" in line) == (not close)


def test_every_pair_trained_is_the_grids_many_to_many_trained_again(shipped):
    """The same directions, steps, batch, seeds and code as the grid's m2m-mono: the same model, so the same
    scores (a check that the two files were measured alike)."""
    grid = experiments.load_results()
    if grid.meta["steps"] != shipped.meta["steps"] or grid.meta["batch_size"] != shipped.meta["batch_size"]:
        pytest.skip("the grid and the study were trained for different steps")
    for run in shipped.runs_of(leave_out.ALL_PAIRS):
        twin = [r for r in grid.runs_of("m2m-mono") if r.seed == run.seed]
        if twin:
            assert run.final["trained_exact"] == pytest.approx(twin[0].final["trained_exact"], abs=0.02)


def test_the_paper_is_quoted_verbatim():
    from pathlib import Path

    paper = Path("/work/shared/sources/attention-bridge-paper.txt")
    if not paper.exists():
        pytest.skip("the paper's text is not on this machine")
    text = " ".join(paper.read_text(encoding="utf-8").split())
    quote = leave_out.LEAVE_OUT_INTRO[leave_out.LEAVE_OUT_INTRO.index("“") + 1 : leave_out.LEAVE_OUT_INTRO.index("”")]
    assert quote in text and "very close to the supervised model" in text and leave_out.HUB_CLAIM in text
    assert json.dumps(leave_out.leave_out_labels())  # plain strings for the file


def grid_with_hub_zero_shot(bleu: float | None, tokens: float) -> Comparison:
    """A grid whose hub-mono runs score ``bleu`` (None: a file without BLEU) and ``tokens`` on every direction."""
    runs = []
    for seed in (0, 1, 2):
        test = {
            f"{a}→{b}": {
                "exact_match": 0.0,
                "token_accuracy": tokens + 0.01 * seed,
                **({} if bleu is None else {"bleu": bleu + 0.1 * seed}),
            }
            for a in LANGUAGES
            for b in LANGUAGES
            if a != b
        }
        final = {"zero_shot_exact": 0.0} | ({} if bleu is None else dict.fromkeys(experiments.BLEU_FINALS, bleu))
        runs.append(Run("hub-mono", seed, {}, (), final, {"test": test}))
    return Comparison(("hub-mono",), tuple(runs), {})


@pytest.mark.parametrize(
    ("bleu", "tokens", "says"),
    [
        (2.0, 0.5, "BLEU with one pair left out against the hub + monolingual model of the grid: clearly higher; the "
         "toy agrees (8.1 ± 0.1 against 2.1 ± 0.1, n = 3 seeds)"),
        (20.0, 0.5, "clearly lower; the toy finds the **opposite**"),
        (8.3, 0.5, "too close to call; no finding"),
        (None, 0.02, "token accuracy with one pair left out against the hub + monolingual model of the grid: clearly "
         "higher"),
    ],
)  # fmt: skip
def test_left_out_alone_against_the_hub_model(rule_on_made_up_seeds, bleu, tokens, says):
    line = leave_out.leave_out_against_hub(fake_leave_out(30.0, 8.0, spread=0.1), grid_with_hub_zero_shot(bleu, tokens))
    assert says in line and "on the 6 directions that avoid the French-like hub" in line
    assert line.startswith(f"The paper: “{leave_out.HUB_CLAIM}”")


def test_the_hub_comparison_agrees_with_the_shipped_numbers(shipped):
    grid = experiments.load_results()
    key, fmt = ("bleu", ".1f") if experiments.has_bleu(grid) else ("token_accuracy", ".1%")
    avoiding = [p for p in PAIRS if experiments.HUB not in p]
    alone, hub = [], []
    both = sorted(set(shipped.seeds) & {r.seed for r in grid.runs_of("hub-mono")})  # the seeds the two files share
    assert len(both) >= 3
    for seed in both:
        alone.append(
            np.mean(
                [
                    next(r for r in shipped.runs_of(leave_out.leave_out_variant(p)) if r.seed == seed).extra["test"][
                        f"{x}→{y}"
                    ][key]
                    for p in avoiding
                    for x, y in (p, p[::-1])
                ]
            )
        )
        test = next(r for r in grid.runs_of("hub-mono") if r.seed == seed).extra["test"]
        hub.append(np.mean([test[f"{x}→{y}"][key] for p in avoiding for x, y in (p, p[::-1])]))
    line = leave_out.leave_out_against_hub(shipped, grid)
    assert f"{np.mean(alone):{fmt}} ± {np.std(alone, ddof=1):{fmt}} against {np.mean(hub):{fmt}}" in line
    minimum = findings.BLEU_MIN_GAP if key == "bleu" else findings.MIN_GAP
    measure = "bleu" if key == "bleu" else "tokens"
    pair_drift = max(verdicts.measured_drift(f"{measure} {p[0]}-{p[1]}", shipped.source) for p in avoiding)
    drift = pair_drift + verdicts.measured_drift(f"zero_shot_{measure}", grid.source)  # both files' own, added
    outcome, _ = verdict(Spread(tuple(alone)), Spread(tuple(hub)), min_gap=minimum, drift=drift)  # the course's rule
    expected = {"too close": "too close", "better": "clearly higher", "worse": "clearly lower"}[outcome]
    assert expected in line, line


def fake_grid(bilingual_bleu: float, seeds=(0, 1, 2)) -> Comparison:
    """A grid with only its bilingual model, whose two trained directions score ``bilingual_bleu`` (± 0.5)."""
    names = [experiments.pair_name(p) for p in experiments.BILINGUAL_PAIRS]
    runs = tuple(
        Run("bilingual", s, {}, (), {}, {"test": {n: {"bleu": bilingual_bleu + 0.5 * s} for n in names}}) for s in seeds
    )
    return Comparison(("bilingual",), runs, {})


@pytest.mark.usefixtures("rule_on_made_up_seeds")  # made-up numbers, turned round
def test_the_trained_reference_is_set_against_the_bilingual_model_either_way():
    starved = leave_out.reference_note(fake_leave_out(29.0, 25.0), fake_grid(90.0))
    assert "against 90.5 ± 0.5 for the grid's bilingual model" in starved and "far below it" in starved
    strong = leave_out.reference_note(fake_leave_out(90.0, 85.0), fake_grid(29.0))
    assert "above it" in strong and "far below" not in strong
    assert leave_out.reference_note(fake_leave_out(29.0, 25.0), Comparison(("hub",), (), {})) == ""


def test_a_gap_across_two_files_is_held_against_both_files_drifts_added(monkeypatch):
    """The trained reference (the leave-out file) against the grid's bilingual model, and left-out pairs against the
    grid's hub model: each side can move by its own file's drift, so the rule holds the gap against the sum."""
    drifts = {("bleu, mean over the pairs", "left"): 20.0, ("en_fr_bleu", "grid"): 20.0}
    monkeypatch.setattr(verdicts, "measured_drift", lambda metric, results=None: drifts.get((metric, results)))
    left = dataclasses.replace(fake_leave_out(29.0, 25.0, seeds=range(5)), source="left")
    grid = dataclasses.replace(fake_grid(90.0, seeds=range(5)), source="grid")  # a gap of 61 BLEU
    assert "far below it" in leave_out.reference_note(left, grid)  # 61 > 20 + 20
    drifts[("en_fr_bleu", "grid")] = 45.0
    held = leave_out.reference_note(left, grid)
    assert "too close to call" in held and "drift 65 measured for BLEU (the two files' drifts added)" in held
    del drifts[("en_fr_bleu", "grid")]  # one side unmeasured: no drift for the gap, no verdict
    assert "no cross-machine drift has been measured" in leave_out.reference_note(left, grid)


def test_a_reference_on_too_few_seeds_says_why_it_is_not_called():
    """Under the course's own rule three seeds a side call nothing, however far apart: the note gives the reason
    instead of a bare "too close to call"."""
    note = leave_out.reference_note(fake_leave_out(29.0, 25.0), fake_grid(90.0))
    assert "29.5 ± 0.5 BLEU over the left-out pairs, against 90.5 ± 0.5" in note
    assert (
        "too close to call against it by the course's rule (n = 3 and 3 seeds" in note and "at least 5 a side" in note
    )
    assert "far below" not in note


def test_every_figure_the_finding_compares_has_its_drift_measured_under_the_same_name(monkeypatch):
    """``bench/drift.py`` measures each run's finals and what :func:`leave_out.drift_figures` returns (the means over
    the pairs, which no single run holds); the finding's verdicts ask the drift file for their figures by name, and
    every name they ask for is one the measurement writes (else the rule finds no drift and calls nothing)."""
    from lessons.common import verdicts

    results = fake_leave_out(30.0, 10.0, seeds=range(5))
    asked = set()
    monkeypatch.setattr(verdicts, "measured_drift", lambda metric, results=None: asked.add(metric) or 0.0)
    for measure in leave_out.LEAVE_OUT_MEASURES:
        leave_out.leave_out_finding(results, measure)
    figures = leave_out.drift_figures(results)
    measured = {m for found in figures.values() for m in found} | {m for r in results.runs for m in r.final}
    assert {leave_out.mean_metric(m) for m in leave_out.LEAVE_OUT_MEASURES} <= asked <= measured
    assert figures[("trained, mean over the pairs", 3, "{}")][leave_out.mean_metric("bleu")] == pytest.approx(31.5)
    assert figures[("zero-shot, mean over the pairs", 3, "{}")][leave_out.mean_metric("bleu")] == pytest.approx(11.5)


def test_the_drift_bench_holds_the_means_over_the_pairs_apart_between_settings():
    from bench import drift

    one, other = fake_leave_out(30.0, 10.0, seeds=(0,)), fake_leave_out(30.5, 10.0, seeds=(0,))
    found = drift.differences({"avx512/1": one, "default/1": other}, None, drift.combined("attention_bridge_leave_out"))
    assert found[leave_out.mean_metric("bleu")]["drift"] == pytest.approx(0.5)
    assert found[leave_out.mean_metric("bleu")]["where"].startswith("trained, mean over the pairs")
    assert found[leave_out.mean_metric("exact")]["drift"] == pytest.approx(0.005)


def test_the_sections_findings_are_the_two_measures_then_what_needs_the_grid(shipped):
    alone = leave_out.findings(shipped, None)
    assert alone == [leave_out.leave_out_finding(shipped, "bleu"), leave_out.leave_out_finding(shipped, "tokens")]
    grid = experiments.load_results()
    with_grid = leave_out.findings(shipped, grid)
    note = leave_out.reference_note(shipped, grid)
    assert with_grid == [*alone, leave_out.leave_out_against_hub(shipped, grid), *([note] if note else [])]
