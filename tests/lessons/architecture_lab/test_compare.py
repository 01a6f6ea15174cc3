"""The architecture lab's numbers: presets, checks, drawings, maps, a short training run, shipped results and the
paper's table (checked against the paper's text where the course's sources are at hand)."""

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from lessons import architecture_lab
from lessons.common.comparison import Comparison, Run, Spread
from minimodels.chains import ChainConfig, ChainModel, walk
from minimodels.chains.language import format_chain
from minimodels.tasks import get_task
from tests.helpers import svg_parts

SOURCES = Path("/work/shared/sources/sockeye-architecture-poster.txt")


def drawing(encoder, decoder) -> tuple[list[str], int]:
    """The texts and the number of arrows of the architecture's drawing."""
    return svg_parts(architecture_lab.architecture_svg(encoder, decoder))


@pytest.fixture(scope="module")
def task():
    return get_task("reverse")


@pytest.mark.parametrize("preset", architecture_lab.PRESETS, ids=lambda p: p.key)
def test_every_preset_builds_with_the_counted_parameters_and_draws_every_map(preset, task):
    checked = architecture_lab.check(preset.encoder, preset.decoder, task)
    assert checked.error is None
    model = architecture_lab.build(checked.config, seed=0)
    assert architecture_lab.parameter_count(model) == checked.parameters
    views = architecture_lab.untrained_views(model, task)
    assert len(views) == architecture_lab.attention_layers(checked.encoder + checked.decoder)
    source, target = architecture_lab.probe_tokens(task)
    for view in views:
        assert view.weights.shape == (len(view.row_tokens), len(view.column_tokens))
        assert np.allclose(view.weights.sum(1), 1.0, atol=1e-5)
        assert view.column_tokens == tuple(
            target if view.name.startswith("decoder") and "self" in view.name else source
        )
    figure = architecture_lab.attention_figure(views)
    assert [t.type for t in figure.data] == ["heatmap"] * min(len(views), architecture_lab.MAX_MAPS)
    labels, _ = drawing(checked.encoder, checked.decoder)
    drawn_once = sum(1 for layer in walk(checked.decoder) if "src_att" in layer.name)  # repeats drawn once
    assert sum("_src_att" in label for label in labels) == drawn_once
    residuals = sum(format_chain(chain).count("res(") for chain in (checked.encoder, checked.decoder))
    assert labels.count("+") == residuals  # one ⊕ per residual block


def test_the_transformer_preset_is_the_tiny_transformers_size(task):
    from minimodels.train import build_model

    preset = architecture_lab.PRESET_BY_KEY["transformer"]
    checked = architecture_lab.check(preset.encoder, preset.decoder, task)
    reference = build_model("transformer", task)
    assert checked.parameters == architecture_lab.parameter_count(reference)


def test_a_bad_chain_is_a_message_with_its_side_and_place_and_nothing_is_built(task):
    checked = architecture_lab.check("pos->ff", "pos->repeat(2,ff", task)
    assert checked.config is None and checked.parameters is None
    assert checked.error == "decoder: expected ')' to close the repeat, found the end of the text at column 17"
    assert (checked.side, checked.line, checked.column) == ("decoder", 1, 17)
    assert architecture_lab.caret("pos->repeat(2,ff", 1, 17) == "pos->repeat(2,ff\n                ^"
    huge = architecture_lab.check("repeat(12,ff->ff->ff->ff->ff->ff)", "dot_src_att", task)
    assert "too many layers at column 1: 72 once its repeats are unrolled" in huge.error and huge.side == "encoder"
    no_source = architecture_lab.check("ff", "rnn->ff", task)
    assert no_source.error.startswith("decoder: it never reads the source") and no_source.line is None


def test_the_drawing_shows_parsed_names_only_and_repeats_once():
    from minimodels.chains import parse_chain

    labels, arrows = drawing(parse_chain("repeat(12,res(cnn(5)))", "encoder"), parse_chain("dot_src_att", "decoder"))
    assert labels.count("cnn(5)") == 1 and "× 12" in labels and labels.count("+") == 1
    assert arrows == 6  # embedding→cnn, cnn→⊕, skip, embedding→att, att→scores, encoder→attention


def test_layer_parameters_are_the_built_modules():
    from minimodels.attention import MultiHeadAttention

    assert architecture_lab.layer_parameters("mh_dot_self_att") == architecture_lab.parameter_count(
        MultiHeadAttention(64, 4)
    )
    assert architecture_lab.layer_parameters("rnn") == architecture_lab.parameter_count(torch.nn.GRU(64, 64))
    rows = {r["write"]: r for r in architecture_lab.layer_table()}
    assert rows["birnn"]["allowed in"] == "encoder" and rows["dot_src_att"]["allowed in"] == "decoder"
    birnn = architecture_lab.parameter_count(torch.nn.GRU(64, 32, bidirectional=True))
    assert rows["birnn"]["parameters (d = 64)"] == f"{birnn:,}"


def test_the_reference_table_is_the_languages_own_registry():
    from minimodels.chains.language import ALIASES, LAYERS, STRUCTURES

    rows = {r["write"]: r for r in architecture_lab.layer_table()}
    assert list(rows) == [*LAYERS, *(f"{name}(…)" for name in STRUCTURES)]  # one list, read from the language
    for alias, name in ALIASES.items():
        assert alias in rows[name if name in rows else f"{name}(…)"]["also written"]
    assert "mh dot self att" in rows["mh_dot_self_att"]["also written"]
    assert rows["mh_dot_src_att"]["option"] == "number of heads: (1–16) or (heads=…)"
    model = ChainModel(ChainConfig(encoder="highway(id)->parallel(id|id)", decoder="dot_src_att"))
    gate, merge = model.encoder.layers[0].gate, model.encoder.layers[1].merge
    assert rows["highway(…)"]["parameters (d = 64)"].startswith(f"{architecture_lab.parameter_count(gate):,} ")
    assert rows["parallel(…)"]["parameters (d = 64)"].startswith(f"{architecture_lab.parameter_count(merge):,} ")


def test_a_short_run_trains_reports_every_map_and_makes_a_table_row(task):
    preset = architecture_lab.PRESET_BY_KEY["selfatt-rnn"]
    checked = architecture_lab.check(preset.encoder, preset.decoder, task)
    model = architecture_lab.build(checked.config, seed=0)
    config = architecture_lab.train_config(60, seed=0, max_steps=20, eval_size=10, report_every=10, batch_size=32)
    before = [p.detach().clone() for p in model.parameters()]
    result = architecture_lab.train_model(model, task, config)
    assert result.steps == 20 and result.stopped == "max_steps" and len(result.history) == 2
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert result.history[-1].loss < result.history[0].loss
    views = architecture_lab.snapshot_views(result.history[-1])
    assert [v.name for v in views] == ["encoder.0.self", "encoder.1.self", "decoder.0.cross", "decoder.1.cross"]
    row = architecture_lab.run_row(
        preset.label, preset.encoder, preset.decoder, "gru", "reverse", checked.parameters, result
    )
    assert row["steps"] == 20 and row["parameters"] == checked.parameters
    assert row["final exact match"] == round(result.exact_match, 3)
    first = architecture_lab.reached(result.history)
    assert row[f"steps to {architecture_lab.TARGET:.0%}"] == (first[0] if first else None)


def test_reached_is_the_first_report_at_the_target():
    class P:
        def __init__(self, step, seconds, em):
            self.step, self.seconds, self.exact_match = step, seconds, em

    history = [P(25, 1.0, 0.5), P(50, 2.0, 0.91), P(75, 3.0, 0.95)]
    assert architecture_lab.reached(history) == (50, 2.0)
    assert architecture_lab.reached(history, 0.99) is None


def test_new_run_refuses_unbuildable_chains_and_silly_budgets(task):
    with pytest.raises(ValueError, match="never reads the source"):
        architecture_lab.new_run(architecture_lab.check("ff", "ff", task), task, 0, 10)
    good = architecture_lab.check(architecture_lab.PRESETS[0].encoder, architecture_lab.PRESETS[0].decoder, task)
    with pytest.raises(ValueError, match="outside"):
        architecture_lab.new_run(good, task, 0, 10_000)


def test_label_for_names_presets_and_your_chains():
    p = architecture_lab.PRESETS[1]
    assert architecture_lab.label_for(p.encoder, p.decoder) == p.label
    assert architecture_lab.label_for("ff", "dot_src_att") == "your chains"


# ------------------------------------------------------------------------------------------- paper's table
def test_the_paper_table_rows_name_the_preset_that_copies_them():
    rows = architecture_lab.paper_rows()
    assert len(rows) == 9
    by_pair = {(r["encoder"], r["decoder"]): r for r in rows}
    assert by_pair[("RNN", "self-att")]["IWSLT EN→DE"] == "25.8 ± 0.1"
    assert by_pair[("self-att", "self-att")]["preset here"] == architecture_lab.PRESET_BY_KEY["transformer"].label
    assert by_pair[("self-att", "combined")]["preset here"] == "–"
    caption = architecture_lab.paper_caption()  # every row without a preset is said, with its reason
    assert caption.startswith(architecture_lab.PAPER_CAPTION) and "not built yet" not in caption
    assert [row["encoder"] + " → " + row["decoder"] for row in rows if row["preset here"] == "–"] == [
        part.split("”")[0] for part in caption.split("No preset copies “")[1:]
    ]


@pytest.mark.skipif(not SOURCES.exists(), reason="the course's source texts are not on this machine")
def test_the_quoted_bleu_table_is_the_papers():
    text = SOURCES.read_text(encoding="utf-8")
    for encoder, decoder, scores in architecture_lab.PAPER_COMBINATIONS:
        line = f"{encoder} {decoder} " + " ".join(f"{m:.1f}± {s:.1f}" for m, s in scores)
        assert line in text, line


# ------------------------------------------------------------------------------------------- shipped results
@pytest.mark.parametrize("grid", list(architecture_lab.GRIDS))
def test_the_shipped_results_are_complete_and_consistent(grid):
    results = architecture_lab.load_results(architecture_lab.GRIDS[grid])
    assert isinstance(results, Comparison) and results.meta["script"] == "scripts/architecture_lab_results.py"
    assert (
        set(results.variants) <= set(architecture_lab.PRESET_BY_KEY) and len(results.variants) >= 6
    )  # the paper's main ones
    assert results.labels == {v: architecture_lab.PRESET_BY_KEY[v].label for v in results.variants}
    assert list(results.seeds) == results.meta["seeds"]
    for run in results.runs:
        preset = architecture_lab.PRESET_BY_KEY[run.variant]
        assert (run.extra["encoder"], run.extra["decoder"]) == (preset.encoder, preset.decoder)
        task = get_task(run.params["task"])
        assert run.extra["parameters"] == architecture_lab.check(preset.encoder, preset.decoder, task).parameters
        assert 0.0 <= run.value(architecture_lab.FINAL) <= 1.0 and run.value("steps") <= results.meta["max_steps"]
        steps_to = run.value(architecture_lab.STEPS_TO)
        assert steps_to is None or steps_to <= run.value("steps")
    probes = architecture_lab.probes(results)
    assert set(probes) == set(results.variants)  # every preset's trained maps can be shown
    for key, probe in probes.items():
        views = architecture_lab.shipped_views(results, key)
        preset = architecture_lab.PRESET_BY_KEY[key]
        model = ChainModel(architecture_lab.chain_config(preset.encoder, preset.decoder, get_task(probe["task"])))
        assert [v.name for v in views] == [
            v.name for v in architecture_lab.untrained_views(model, get_task(probe["task"]))
        ]
    assert "architecture_lab_results.py" in results.meta["command"]


def comparison(steps: dict[str, tuple], finals: dict[str, tuple], task: str = "reverse") -> Comparison:
    """A made-up comparison of presets: their runs' steps to 90% (None: never reached) and final exact matches."""
    runs = [
        Run(
            key,
            seed,
            {"task": task},
            (),
            {
                architecture_lab.STEPS_TO: s,
                architecture_lab.SECONDS_TO: s,
                architecture_lab.FINAL: f,
                "steps": 300,
                "seconds": 100.0,
            },
        )  # fmt: skip
        for key in steps
        for seed, (s, f) in enumerate(zip(steps[key], finals[key], strict=True))
    ]
    return Comparison(tuple(steps), tuple(runs), {}, {k: architecture_lab.PRESET_BY_KEY[k].label for k in steps})


def test_broken_results_files_get_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="architecture_lab_results.py"):
        architecture_lab.load_results(tmp_path / "architecture_lab.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"runs": []}), encoding="utf-8")
    with pytest.raises(ValueError, match="format.*architecture_lab_results.py"):
        architecture_lab.load_results(bad)
    good = comparison({"transformer": (100,)}, {"transformer": (0.9,)})
    unknown = Comparison(("nope",), (Run("nope", 0, {"task": "reverse"}, (), good.runs[0].final),))
    unknown.save(bad)
    with pytest.raises(ValueError, match="unknown presets"):
        architecture_lab.load_results(bad)
    Comparison(good.variants, (Run("transformer", 0, {"task": "reverse"}, (), {architecture_lab.FINAL: 0.9}),)).save(
        bad
    )
    with pytest.raises(ValueError, match="lacks steps to 90%"):
        architecture_lab.load_results(bad)


@pytest.mark.slow  # trains (a few steps, two seeds)
def test_the_script_makes_what_the_page_reads(tmp_path):
    """The smallest run of scripts/architecture_lab_results.py: two seeds, a few steps, one preset."""
    from scripts import architecture_lab_results as script

    out = tmp_path / "architecture_lab.json"
    script.main(["--tasks", "reverse", "--seeds", "0", "1", "--max-steps", "4", "--budget", "30", "--presets",
                 "selfatt-none", "--out", str(out)])  # fmt: skip
    results = architecture_lab.load_results(out)
    assert results.variants == ("selfatt-none",) and results.seeds == (0, 1)
    assert all(run.curve and run.value("steps") == 4 for run in results.runs)
    assert set(architecture_lab.probes(results)) == {"selfatt-none"} and results.meta["script"].endswith("_results.py")


def test_exercises_are_answered_by_the_lessons_own_numbers():
    ex1, ex2, ex3, ex4 = architecture_lab.exercises()
    d = 64
    assert ex4.check(2 * (4 * (d * d + d) + 2 * d)).correct  # the hand count is the code's count
    assert not ex4.check(2 * 4 * (d * d + d)).correct and "norm" in ex4.hint  # forgetting the norms
    assert ex1.check(4 * (64 * 64 + 64)).correct
    assert ex2.choices[ex2.answer] == "birnn"
    assert ex3.check("RNN").correct and not ex3.check("CNN").correct
    assert re.search(r"25\.8", ex3.explanation)


def test_the_default_config_is_the_transformer_preset():
    assert ChainConfig().encoder == architecture_lab.PRESET_BY_KEY["transformer"].encoder
    assert ChainConfig().decoder == architecture_lab.PRESET_BY_KEY["transformer"].decoder


def test_the_live_run_and_its_table_row(task):
    preset = architecture_lab.PRESETS[0]
    checked = architecture_lab.check(preset.encoder, preset.decoder, task)
    run, row = architecture_lab.live_run(checked, "reverse", "gru", preset.encoder, preset.decoder, 0, 10.0)
    assert run.status == "queued" and isinstance(run.model, ChainModel)
    model = architecture_lab.build(checked.config, seed=0)
    config = architecture_lab.train_config(60, seed=0, max_steps=10, eval_size=10, report_every=10, batch_size=32)
    result = architecture_lab.train_model(model, task, config)
    made = row(result)
    assert made == architecture_lab.run_row(preset.label, preset.encoder, preset.decoder, "gru", "reverse",
                                            checked.parameters, result)  # fmt: skip
    assert made["chains"] == preset.label
    snapshot = result.history[-1]
    fig = architecture_lab.snapshot_figure(snapshot)
    assert f"step {snapshot.step} · exact match" in fig.layout.title.text
    assert len(fig.data) == len(architecture_lab.snapshot_views(snapshot))
    with pytest.raises(ValueError):
        architecture_lab.live_run(architecture_lab.check("ff", "ff", task), "reverse", "gru", "ff", "ff", 0, 10.0)


def test_the_page_captions_are_fixed_text():
    assert architecture_lab.PAPER_CAPTION.startswith(architecture_lab.PAPER_CREDIT + " Not comparable")
    assert architecture_lab.UNTRAINED_TITLE.startswith("UNTRAINED") and "uniform" in architecture_lab.UNTRAINED_CAPTION


# ------------------------------------------------------------------------------------- the poster's findings
FINDING_KEYS = sorted({key for f in architecture_lab.FINDINGS for pair in f.pairs for key in pair})


def poster_grid(finals: dict[str, tuple]) -> Comparison:
    """A made-up grid of every preset the findings name: ``finals`` per preset (0.5 ± 0.01 for the others)."""
    default = (0.5, 0.51, 0.49)
    return comparison({k: (100, 100, 100) for k in FINDING_KEYS},
                      {k: finals.get(k, default) for k in FINDING_KEYS}, task="toy-translation")  # fmt: skip


@pytest.mark.parametrize("finding", architecture_lab.FINDINGS, ids=lambda f: f.claim[:30])
def test_each_finding_is_reproduced_or_contradicted_as_the_numbers_say(finding):
    ahead, behind = (0.9, 0.91, 0.92), (0.6, 0.62, 0.61)
    favour = {a: ahead for a, _ in finding.pairs} | {b: behind for _, b in finding.pairs}
    swapped = {a: behind for a, _ in finding.pairs} | {b: ahead for _, b in finding.pairs}
    for finals, status in ((favour, "reproduced"), (swapped, "contradicted")):
        said = {claim: (s, sentences) for claim, s, sentences in architecture_lab.findings(poster_grid(finals))}
        got, sentences = said[finding.claim]
        assert got == status
        first, second = finding.pairs[0]
        winner, loser = (first, second) if status == "reproduced" else (second, first)
        assert f"{architecture_lab.PRESET_BY_KEY[winner].label} beats" in sentences[0] or (
            f"{architecture_lab.PRESET_BY_KEY[loser].label} does not beat" in sentences[0]
        )
        text = architecture_lab.findings_markdown(poster_grid(finals))
        assert f"**“{finding.claim}”**: {status} here." in text
        summary = text.split("\n")[0]
        assert (finding.claim + " (contradicted)" in summary) == (status == "contradicted")
        assert (finding.claim + "." in summary or finding.claim + ";" in summary) == (status == "reproduced")


def test_a_finding_within_the_spread_is_too_close_to_call_and_a_half_won_one_is_partly_reproduced():
    noisy = poster_grid({"rnn-multi-att": (0.6, 0.7, 0.5), "rnn-one-att": (0.58, 0.68, 0.52)})
    status = {claim: s for claim, s, _ in architecture_lab.findings(noisy)}
    assert status["Multiple source attention layers are key"] == "too close to call"
    half = poster_grid({"selfatt-rnn": (0.9, 0.91, 0.92), "rnn-selfatt": (0.6, 0.61, 0.62)})  # CNN pair: a tie
    assert {c: s for c, s, _ in architecture_lab.findings(half)}[
        "Self-attention is more important on the source side"
    ] == "partly reproduced"
    assert architecture_lab.findings(comparison({"transformer": (1, 2)}, {"transformer": (0.5, 0.6)})) == []


@pytest.mark.parametrize("grid", list(architecture_lab.GRIDS))
def test_the_shipped_findings_agree_with_the_shipped_means(grid):
    """Recomputed here by hand: a pair is won when the means are further apart than the two sds together."""
    results = architecture_lab.load_results(architecture_lab.GRIDS[grid])
    said = {claim: status for claim, status, _ in architecture_lab.findings(results)}
    assert len(said) == len(architecture_lab.FINDINGS)  # the grid ran every preset the findings name
    for finding in architecture_lab.FINDINGS:
        won = []
        for a, b in finding.pairs:
            sa, sb = (results.spread(architecture_lab.FINAL, k) for k in (a, b))
            gap = sa.mean - sb.mean
            won.append("a" if gap > sa.sd + sb.sd else "b" if -gap > sa.sd + sb.sd else None)
        expected = ("contradicted" if "b" in won else "reproduced" if all(w == "a" for w in won)
                    else "partly reproduced" if any(won) else "too close to call")  # fmt: skip
        assert said[finding.claim] == expected, finding.claim


@pytest.mark.parametrize("grid", list(architecture_lab.GRIDS))
def test_the_shipped_grid_is_the_posters_tables_with_three_seeds_on_a_task_that_does_not_saturate(grid):
    results = architecture_lab.load_results(architecture_lab.GRIDS[grid])
    assert len(results.seeds) >= 3 and results.meta["tasks"] == ["toy-translation"]
    assert f"{results.meta['max_steps']} steps" == grid and results.meta["stop_at"] >= 1.0  # no early stop
    assert all(len(results.runs_of(v)) == len(results.seeds) for v in results.variants)
    finals = [results.spread(architecture_lab.FINAL, v).mean for v in results.variants]
    assert max(finals) - min(finals) > 0.1 and min(finals) < 0.9  # the rows are separated, not all at 100%
    tables = dict(architecture_lab.poster_tables(results))
    assert [t for t, _ in architecture_lab.poster_tables(results)][0].startswith("Baselines")
    name = architecture_lab.final_name(results)
    combos = tables["Encoder/decoder combinations"]
    order = [(e, d) for e, d, _ in architecture_lab.PAPER_COMBINATIONS]
    assert [(r["encoder"], r["decoder"]) for r in combos] == [
        p for p in order if p in {(r["encoder"], r["decoder"]) for r in combos}
    ]
    for row in combos:
        key = next(p.key for p in architecture_lab.PRESETS if p.paper == (row["encoder"], row["decoder"]))
        runs = results.runs_of(key)
        assert row[name] == Spread(tuple(r.value(architecture_lab.FINAL) for r in runs)).text(".1%", with_n=False)
        assert row["parameters"] == runs[0].extra["parameters"] and row["n"] == len(runs)
        assert row["seconds"] == results.spread("seconds", key).text(".1f", with_n=False)
    ladder = tables["The RNN ablations, one step at a time"]
    assert [r["model"] for r in ladder] == [name for name, _ in architecture_lab.PAPER_RNN_LADDER.values()]
    assert [r["model"] for r in tables[next(iter(tables))]] == ["Transformer", "RNMT", "CNN GLU"]
    text = architecture_lab.grid_text(results)
    assert "toy-translation" in text and f"range from {min(finals):.1%}" in text and f"to {max(finals):.1%}" in text


@pytest.mark.parametrize("grid", list(architecture_lab.GRIDS))
def test_a_shipped_row_reruns_with_its_chains_seed_and_steps(grid):
    results = architecture_lab.load_results(architecture_lab.GRIDS[grid])
    key = results.variants[-1]
    settings = architecture_lab.rerun_settings(results, key)
    preset = architecture_lab.PRESET_BY_KEY[key]
    assert settings["architecture_lab.encoder"] == preset.encoder and settings["architecture_lab.preset"] == key
    assert settings["architecture_lab.task"] == "toy-translation"
    assert settings["architecture_lab.steps"] == results.meta["max_steps"]
    assert settings["architecture_lab.seed"] in results.seeds
    task = get_task("reverse")
    checked = architecture_lab.check(preset.encoder, preset.decoder, task)
    model, train_fn = architecture_lab.new_run(checked, task, 0, 60.0, max_steps=3)
    assert train_fn(None).steps == 3  # exactly the row's steps, no early stop


@pytest.mark.parametrize(("big", "warned"), [(120_000, True), (105_000, False)])
def test_a_finding_names_the_sizes_and_warns_when_the_winner_is_much_larger(big, warned):
    grid = poster_grid({})
    sizes = {"rnn-rnn": big, "rnn-multi-att": 100_000}
    runs = tuple(replace(r, extra={"parameters": sizes.get(r.variant, 1)}) for r in grid.runs)
    said = {c: s for c, _, s in architecture_lab.findings(Comparison(grid.variants, runs, {}, grid.labels))}
    sentence = said["The residual feed-forward layer is key"][0]
    assert f"Parameters: {big:,} against 100,000" in sentence
    assert ("more weights" in sentence) == warned


@pytest.mark.slow  # trains one shipped row again (~10 s at one thread on a quick machine), and its first reports
def test_rerunning_a_shipped_row_live_trains_it_as_the_results_script_did():
    """The page's "Rerun a row live" (rerun_settings -> new_run) is the results script's run of that row
    (scripts/architecture_lab_results.train_one), step for step: the script's first reports, trained here, are the
    live run's to the last digit (the schedule does not depend on the number of steps). Against the shipped file the
    steps are exact and the exact match close: another CPU's vector unit rounds the matmuls differently (the
    quickest row's seed: 0.97 shipped, 0.95 on an AVX2-only machine on 2026-11-28)."""
    from scripts.architecture_lab_results import train_one

    results = architecture_lab.load_results()
    key = min(results.variants, key=lambda v: results.spread("seconds", v).mean)  # the quickest row
    settings = architecture_lab.rerun_settings(results, key)
    preset, name, seed = (
        architecture_lab.PRESET_BY_KEY[key],
        settings["architecture_lab.task"],
        settings["architecture_lab.seed"],
    )
    task = get_task(name)
    checked = architecture_lab.check(settings["architecture_lab.encoder"], settings["architecture_lab.decoder"], task)
    _, train_fn = architecture_lab.new_run(checked, task, seed, 120.0, settings["architecture_lab.steps"])
    live = architecture_lab.shipped_run(preset, name, seed, train_fn(lambda progress: None), checked.parameters)
    first = 2 * architecture_lab.REPORT_EVERY
    script = train_one(preset, name, seed, results.meta["budget_seconds"], first, threads=1, probe=False,
                       stop_at=results.meta["stop_at"])  # fmt: skip
    untimed = lambda run: [{k: v for k, v in point.items() if k != "seconds"} for point in run.curve]  # noqa: E731
    assert len(untimed(script)) >= 2 and untimed(live)[:2] == untimed(script)[:2]  # step, loss, exact match
    shipped = next(r for r in results.runs_of(key) if r.seed == seed)
    assert live.value("steps") == shipped.value("steps")
    assert live.value(architecture_lab.FINAL) == pytest.approx(shipped.value(architecture_lab.FINAL), abs=0.05)
