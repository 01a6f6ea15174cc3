"""The architecture lab's numbers: presets, checks, drawings, maps, a short training run, shipped results and the
paper's table (checked against the paper's text where the course's sources are at hand)."""

import json
import re
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


@pytest.mark.skipif(not SOURCES.exists(), reason="the course's source texts are not on this machine")
def test_the_quoted_bleu_table_is_the_papers():
    text = SOURCES.read_text(encoding="utf-8")
    for encoder, decoder, scores in architecture_lab.PAPER_COMBINATIONS:
        line = f"{encoder} {decoder} " + " ".join(f"{m:.1f}± {s:.1f}" for m, s in scores)
        assert line in text, line


# ------------------------------------------------------------------------------------------- shipped results
def test_the_shipped_results_are_complete_and_consistent():
    results = architecture_lab.load_results()
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
    assert architecture_lab.observations(results, results.meta["tasks"][0])


def test_the_shipped_table_has_one_row_per_preset_and_task_with_mean_sd_and_n():
    results = architecture_lab.load_results()
    rows = architecture_lab.table_rows(results)
    assert len(rows) == len({(r.variant, r.params["task"]) for r in results.runs})
    first = results.runs_of(results.variants[0], {"task": rows[0]["task"]})
    assert rows[0]["chains"] == results.label(results.variants[0]) and rows[0]["n"] == len(first)
    assert rows[0][architecture_lab.FINAL] == Spread(tuple(r.value(architecture_lab.FINAL) for r in first)).text(
        ".1%", with_n=False
    )
    assert rows[0]["parameters"] == first[0].extra["parameters"]
    assert rows[0]["stopped"] == ", ".join(sorted({r.extra["stopped"] for r in first}))  # every seed's reason


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


@pytest.mark.parametrize("transformer_first", [True, False])
def test_observations_say_who_leads_and_whether_the_lead_is_clear(transformer_first):
    fast, slow = ((100, 110, 105), (250, 240, 260))
    fast, slow = (fast, slow) if transformer_first else (slow, fast)
    results = comparison({"transformer": fast, "cnn-cnn": slow},
                         {"transformer": (0.99, 0.98, 0.99), "cnn-cnn": (0.6, 0.5, 0.55)})  # fmt: skip
    steps, best = architecture_lab.observations(results, "reverse")
    names = ["Transformer: self-att → self-att", "CNN → CNN (Transformer-style blocks)"]
    leader, other = names if transformer_first else names[::-1]
    assert steps.startswith(f"Fewest steps to 90% on reverse: **{leader}**.")
    assert f"{leader} beats {other} on steps to 90% on reverse" in steps
    assert best.startswith("Best final exact match on reverse: **Transformer: self-att → self-att**.")
    assert "beats CNN → CNN" in best


def test_observations_never_call_one_seed_a_win_and_name_who_missed():
    results = comparison({"transformer": (100,), "rnn-rnn": (150,), "cnn-cnn": (None,)},
                         {"transformer": (0.99,), "rnn-rnn": (0.98,), "cnn-cnn": (0.3,)})  # fmt: skip
    steps, missed, best = architecture_lab.observations(results, "reverse")
    assert "**Transformer: self-att → self-att**" in steps and "too close to call" in steps and "one seed" in steps
    assert missed == "Did not reach 90% within the budget: CNN → CNN (Transformer-style blocks)."
    assert "too close to call" in best and "beats" not in best
    assert architecture_lab.observations(results, "copy") == []  # no runs of that task: nothing to say


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
    ex1, ex2, ex3 = architecture_lab.exercises()
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
