"""The architecture lab's numbers: presets, checks, drawings, maps, a short training run, shipped results and the
paper's table (checked against the paper's text where the course's sources are at hand)."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from lessons import architecture_lab as archlab
from minimodels.chains import ChainConfig, ChainModel, walk
from minimodels.chains.language import format_chain
from minimodels.tasks import get_task
from tests.helpers import svg_parts

SOURCES = Path("/work/shared/sources/sockeye-architecture-poster.txt")


def drawing(encoder, decoder) -> tuple[list[str], int]:
    """The texts and the number of arrows of the architecture's drawing."""
    return svg_parts(archlab.architecture_svg(encoder, decoder))


@pytest.fixture(scope="module")
def task():
    return get_task("reverse")


@pytest.mark.parametrize("preset", archlab.PRESETS, ids=lambda p: p.key)
def test_every_preset_builds_with_the_counted_parameters_and_draws_every_map(preset, task):
    checked = archlab.check(preset.encoder, preset.decoder, task)
    assert checked.error is None
    model = archlab.build(checked.config, seed=0)
    assert archlab.parameter_count(model) == checked.parameters
    views = archlab.untrained_views(model, task)
    assert len(views) == archlab.attention_layers(checked.encoder + checked.decoder)
    source, target = archlab.probe_tokens(task)
    for view in views:
        assert view.weights.shape == (len(view.row_tokens), len(view.column_tokens))
        assert np.allclose(view.weights.sum(1), 1.0, atol=1e-5)
        assert view.column_tokens == tuple(
            target if view.name.startswith("decoder") and "self" in view.name else source
        )
    figure = archlab.attention_figure(views)
    assert [t.type for t in figure.data] == ["heatmap"] * min(len(views), archlab.MAX_MAPS)
    labels, _ = drawing(checked.encoder, checked.decoder)
    drawn_once = sum(1 for layer in walk(checked.decoder) if "src_att" in layer.name)  # repeats drawn once
    assert sum("_src_att" in label for label in labels) == drawn_once
    residuals = sum(format_chain(chain).count("res(") for chain in (checked.encoder, checked.decoder))
    assert labels.count("+") == residuals  # one ⊕ per residual block


def test_the_transformer_preset_is_the_tiny_transformers_size(task):
    from minimodels.train import build_model

    preset = archlab.PRESET_BY_KEY["transformer"]
    checked = archlab.check(preset.encoder, preset.decoder, task)
    reference = build_model("transformer", task)
    assert checked.parameters == archlab.parameter_count(reference)


def test_a_bad_chain_is_a_message_with_its_side_and_place_and_nothing_is_built(task):
    checked = archlab.check("pos->ff", "pos->repeat(2,ff", task)
    assert checked.config is None and checked.parameters is None
    assert checked.error == "decoder: expected ')', found the end of the text at column 17"
    assert (checked.side, checked.line, checked.column) == ("decoder", 1, 17)
    assert archlab.caret("pos->repeat(2,ff", 1, 17) == "pos->repeat(2,ff\n                ^"
    huge = archlab.check("repeat(12,ff->ff->ff->ff->ff->ff)", "dot_src_att", task)
    assert "layers once its repeats are unrolled" in huge.error and huge.side == "encoder"
    no_source = archlab.check("ff", "rnn->ff", task)
    assert no_source.error.startswith("decoder: it never reads the source") and no_source.line is None


def test_the_drawing_shows_parsed_names_only_and_repeats_once():
    from minimodels.chains import parse_chain

    labels, arrows = drawing(parse_chain("repeat(12,res(cnn(5)))", "encoder"), parse_chain("dot_src_att", "decoder"))
    assert labels.count("cnn(5)") == 1 and "× 12" in labels and labels.count("+") == 1
    assert arrows == 6  # embedding→cnn, cnn→⊕, skip, embedding→att, att→scores, encoder→attention


def test_layer_parameters_are_the_built_modules():
    from minimodels.attention import MultiHeadAttention

    assert archlab.layer_parameters("mh_dot_self_att") == archlab.parameter_count(MultiHeadAttention(64, 4))
    assert archlab.layer_parameters("rnn") == archlab.parameter_count(torch.nn.GRU(64, 64))
    rows = {r["layer"]: r for r in archlab.layer_table()}
    assert rows["birnn"]["allowed in"] == "encoder" and rows["dot_src_att"]["allowed in"] == "decoder"
    assert rows["birnn"]["parameters (d = 64)"] == archlab.parameter_count(torch.nn.GRU(64, 32, bidirectional=True))


def test_a_short_run_trains_reports_every_map_and_makes_a_table_row(task):
    preset = archlab.PRESET_BY_KEY["selfatt-rnn"]
    checked = archlab.check(preset.encoder, preset.decoder, task)
    model = archlab.build(checked.config, seed=0)
    config = archlab.train_config(60, seed=0, max_steps=20, eval_size=10, report_every=10, batch_size=32)
    before = [p.detach().clone() for p in model.parameters()]
    result = archlab.train_model(model, task, config)
    assert result.steps == 20 and result.stopped == "max_steps" and len(result.history) == 2
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert result.history[-1].loss < result.history[0].loss
    views = archlab.snapshot_views(result.history[-1])
    assert [v.name for v in views] == ["encoder.0.self", "encoder.1.self", "decoder.0.cross", "decoder.1.cross"]
    row = archlab.run_row(preset.label, preset.encoder, preset.decoder, "gru", "reverse", checked.parameters, result)
    assert row["steps"] == 20 and row["parameters"] == checked.parameters
    assert row["final exact match"] == round(result.exact_match, 3)
    first = archlab.reached(result.history)
    assert row[f"steps to {archlab.TARGET:.0%}"] == (first[0] if first else None)


def test_reached_is_the_first_report_at_the_target():
    class P:
        def __init__(self, step, seconds, em):
            self.step, self.seconds, self.exact_match = step, seconds, em

    history = [P(25, 1.0, 0.5), P(50, 2.0, 0.91), P(75, 3.0, 0.95)]
    assert archlab.reached(history) == (50, 2.0)
    assert archlab.reached(history, 0.99) is None


def test_new_run_refuses_unbuildable_chains_and_silly_budgets(task):
    with pytest.raises(ValueError, match="never reads the source"):
        archlab.new_run(archlab.check("ff", "ff", task), task, 0, 10)
    good = archlab.check(archlab.PRESETS[0].encoder, archlab.PRESETS[0].decoder, task)
    with pytest.raises(ValueError, match="outside"):
        archlab.new_run(good, task, 0, 10_000)


def test_label_for_names_presets_and_your_chains():
    p = archlab.PRESETS[1]
    assert archlab.label_for(p.encoder, p.decoder) == p.label
    assert archlab.label_for("ff", "dot_src_att") == "your chains"


# ------------------------------------------------------------------------------------------- paper's table
def test_the_paper_table_rows_name_the_preset_that_copies_them():
    rows = archlab.paper_rows()
    assert len(rows) == 9
    by_pair = {(r["encoder"], r["decoder"]): r for r in rows}
    assert by_pair[("RNN", "self-att")]["IWSLT EN→DE"] == "25.8 ± 0.1"
    assert by_pair[("self-att", "self-att")]["preset here"] == archlab.PRESET_BY_KEY["transformer"].label
    assert by_pair[("self-att", "combined")]["preset here"] == "–"


@pytest.mark.skipif(not SOURCES.exists(), reason="the course's source texts are not on this machine")
def test_the_quoted_bleu_table_is_the_papers():
    text = SOURCES.read_text(encoding="utf-8")
    for encoder, decoder, scores in archlab.PAPER_COMBINATIONS:
        line = f"{encoder} {decoder} " + " ".join(f"{m:.1f}± {s:.1f}" for m, s in scores)
        assert line in text, line


# ------------------------------------------------------------------------------------------- shipped results
def test_the_shipped_results_are_complete_and_consistent():
    results = archlab.load_results()
    keys = {r["chains"] for r in results.runs}
    assert keys <= {p.label for p in archlab.PRESETS} and len(keys) >= 6  # the paper's main combinations
    for run in results.runs:
        preset = next(p for p in archlab.PRESETS if p.label == run["chains"])
        assert (run["encoder"], run["decoder"]) == (preset.encoder, preset.decoder)
        task = get_task(run["task"])
        assert run["parameters"] == archlab.check(preset.encoder, preset.decoder, task).parameters
        assert 0.0 <= run["final exact match"] <= 1.0 and run["steps"] <= results.meta["max_steps"]
    for key, probe in results.probes.items():
        views = archlab.shipped_views(results, key)
        preset = archlab.PRESET_BY_KEY[key]
        model = ChainModel(archlab.chain_config(preset.encoder, preset.decoder, get_task(probe["task"])))
        assert [v.name for v in views] == [v.name for v in archlab.untrained_views(model, get_task(probe["task"]))]
    assert "architecture_lab_results.py" in results.meta["command"]
    assert archlab.observations(results, results.meta["tasks"][0])


def test_broken_results_files_get_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="architecture_lab_results.py"):
        archlab.load_results(tmp_path / "architecture_lab.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"runs": []}), encoding="utf-8")
    with pytest.raises(ValueError, match="must have runs"):
        archlab.load_results(bad)
    bad.write_text(json.dumps({"runs": [{"chains": "x"}]}), encoding="utf-8")
    with pytest.raises(ValueError, match="lacks"):
        archlab.load_results(bad)


def test_exercises_are_answered_by_the_lessons_own_numbers():
    ex1, ex2, ex3 = archlab.exercises()
    assert ex1.check(4 * (64 * 64 + 64)).correct
    assert ex2.choices[ex2.answer] == "birnn"
    assert ex3.check("RNN").correct and not ex3.check("CNN").correct
    assert re.search(r"25\.8", ex3.explanation)


def test_the_default_config_is_the_transformer_preset():
    assert ChainConfig().encoder == archlab.PRESET_BY_KEY["transformer"].encoder
    assert ChainConfig().decoder == archlab.PRESET_BY_KEY["transformer"].decoder
