"""The Transformer lesson's numbers: maps of a real trained model, the diagram's shapes, the ablation table."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from lessons import transformer as tr
from lessons.common.pretrained import load_pretrained
from minimodels.tasks import get_task
from minimodels.transformer import TransformerConfig


@pytest.fixture(scope="module")
def translator():
    model, _ = load_pretrained("toy-translation", tr.MODEL)
    return model, get_task("toy-translation")


@pytest.fixture(scope="module")
def walked(translator):
    model, task = translator
    return tr.walk(model, task, "Jane visits Africa in September")


def test_walk_has_every_map_with_the_sentence_shapes(walked):
    c = walked.config
    S, T = len(walked.source), len(walked.output)
    assert walked.source[-1] == "</s>" and walked.output[-1] == "</s>"
    assert walked.fed == ["<s>", *walked.output[:-1]]
    assert sorted(walked.maps) == sorted(
        tr.map_name(kind, i) for kind in tr.KINDS for i in range(tr.layer_count(c, kind))
    )
    for kind in tr.KINDS:
        rows, columns = walked.labels(kind)
        for i in range(tr.layer_count(c, kind)):
            weights = walked.weights(kind, i)
            assert weights.shape == (c.n_heads, len(rows), len(columns))
            np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)  # every row is a softmax
    assert walked.weights("cross", 0).shape == (c.n_heads, T, S)
    masked = walked.weights("decoder_self", 1)
    assert np.all(np.triu(masked, k=1) == 0)  # the future is masked
    assert np.all(np.tril(masked)[:, 1:, 0] > 0)  # and the past is seen
    assert sum(m.shape[0] for m in walked.maps.values()) == tr.maps_per_sentence(c) == 24


def test_maps_per_sentence_counts_heads_times_sublayers():
    assert tr.maps_per_sentence(TransformerConfig(encoder_layers=6, decoder_layers=6, n_heads=8)) == 8 * (6 + 12)
    assert tr.maps_per_sentence(TransformerConfig(encoder_layers=1, decoder_layers=3, n_heads=2)) == 2 * 7


def test_head_summary_names_each_rows_argmax(walked):
    rows = tr.head_summary(walked, "cross", 1)
    weights = walked.weights("cross", 1)
    assert [r["head"] for r in rows] == [1, 2, 3, 4]
    first = rows[0]["each row's strongest column"].split(" · ")
    assert first[0] == f"{walked.output[0]}→{walked.source[int(weights[0, 0].argmax())]}"
    assert rows[2]["mean largest weight"] == round(float(weights[2].max(-1).mean()), 3)


def test_parse_refuses_empty_and_too_long_text_and_accepts_unknown_characters():
    assert tr.parse_sentence("toy-translation", "   ").error
    too_long = tr.parse_sentence("toy-translation", tr.LECTURE_SENTENCE)
    assert too_long.error and "at most 24" in too_long.error and not too_long.tokens
    odd = tr.parse_sentence("toy-translation", "I see <b>it</b> 🙂")
    assert odd.error is None and odd.tokens == ("I", "see", "<b>it</b>", "🙂")
    assert tr.parser("dates")("  1 May  1999 ").tokens == ("1", "May", "1999")


def test_walk_of_unknown_text_says_what_happened(translator):
    model, task = translator
    w = tr.walk(model, task, "I see 🙂")
    assert "<unk>" in w.source and "unknown" in w.translation.message
    assert tr.walk(model, task, "  ") == "Type at least one character."


def test_dates_labels_show_spaces():
    model, _ = load_pretrained("dates", tr.MODEL)
    w = tr.walk(model, get_task("dates"), "1 May 1999")
    assert w.source[1] == tr.SPACE and " " not in w.source


def test_block_diagram_has_the_real_shapes_and_escapes_the_text(walked):
    diagram = tr.block_diagram(walked)
    text = diagram.text()
    S, T, c = len(walked.source), len(walked.output), walked.config
    assert f"{c.n_heads} maps of {S} × {S}" in text
    assert f"{c.n_heads} maps of {T} × {T} (future masked)" in text
    assert f"{c.n_heads} maps of {T} × {S}" in text
    assert f"{T} × {c.target_vocab_size}" in text
    assert sum(1 for b in diagram.boxes if "encoder–decoder attention" in b.lines[0]) == c.decoder_layers
    memory = [a for a in diagram.arrows if a[2].startswith("keys, values")]
    assert [(a[0], a[1]) for a in memory] == [("e_norm", "d0_cross"), ("e_norm", "d1_cross")]
    hostile = tr.Walk("<b>hi</b> " + "x" * 40, walked.translation, walked.maps, walked.config)
    fig = tr.diagram_figure(tr.block_diagram(hostile))
    source = next(a.text for a in fig.layout.annotations if a.text.startswith("source:"))
    assert source.startswith("source: “&lt;b&gt;hi&lt;/b&gt; xxx") and "…”" in source
    assert len(fig.layout.shapes) == len(diagram.boxes) + 2  # every box, and the two stacks' frames
    assert not fig.data


@pytest.mark.parametrize(
    ("flags", "formula"),
    [
        ({}, "x + FFN(LN(x))"),
        ({"norm_first": False}, "LN(x + FFN(x))"),
        ({"residual": False}, "FFN(LN(x))"),
        ({"layer_norm": False}, "x + FFN(x)"),
    ],
)
def test_diagram_formula_follows_the_config(flags, formula):
    assert tr._sublayer(TransformerConfig(**flags), "FFN") == formula


def test_heads_grid_draws_one_heatmap_per_head_and_escapes_labels(walked):
    panels = tr.every_map(walked)
    assert len(panels) == 2 + 2 * 2
    fig = tr.heads_grid(panels[:2])
    assert len(fig.data) == 2 * 4 and {t.type for t in fig.data} == {"heatmap"}
    one = tr.heads_grid([("x", np.full((2, 1, 2), 0.5), ["<b>q</b>"], ["k1", "k2"])])
    assert "&lt;b&gt;q&lt;/b&gt;" in one.layout.yaxis.ticktext
    with pytest.raises(ValueError):
        tr.heads_grid([("x", np.ones((2, 3, 3)), ["a"], ["b"])])
    with pytest.raises(ValueError):
        tr.heads_grid([])


def test_probe_panels_draw_the_last_decoder_layers_cross_attention():
    maps = {"decoder.1.cross": np.ones((4, 2, 3)) / 3, "decoder.0.cross": np.ones((4, 2, 3)) / 3,
            "encoder.0.self": np.ones((4, 3, 3))}  # fmt: skip
    snapshot = SimpleNamespace(attention_maps=maps, source_tokens=["a", " ", "</s>"], target_tokens=["x", "</s>"])
    panels = tr.probe_panels(snapshot)
    assert [p[0] for p in panels] == ["encoder–decoder, layer 2"]  # the last layer's, as the page draws it live
    assert panels[0][1] is maps["decoder.1.cross"] and panels[0][3] == ["a", tr.SPACE, "</s>"]


def test_the_lecture_sentence_is_out_of_reach_of_the_toy_model(translator):
    _, task = translator
    check = tr.lecture_it(task)
    assert check.tokens == len(task.source_tokenizer.encode(tr.LECTURE_SENTENCE)) > check.limit == 24
    assert not check.it_is_read
    assert {"animal", "street", "because"} <= set(check.unknown_words) and "it" not in check.unknown_words


def test_pronoun_check_reads_the_last_layers_cross_attention(translator):
    model, task = translator
    check = tr.pronoun_check(model, task)
    assert (check.text, check.output, check.pronoun_piece) == ("I see it", "je le vois", "▁le")
    w = tr.walk(model, task, "I see it")
    mean = w.weights("cross", 1)[:, check.step].mean(0)
    assert check.looked_at == w.source[int(mean.argmax())]
    assert check.weight == pytest.approx(float(mean.max()))


# ---------------------------------------------------------------------------------------- ablation results
def fake_results(finals: dict[str, float]) -> tr.Results:
    runs = {}
    for variant, final in finals.items():
        history = [
            {"step": 25, "seconds": 5.0, "loss": 1.0, "exact_match": final / 2},
            {"step": 50, "seconds": 10.0, "loss": 1.0 - final / 2, "exact_match": final},
        ]
        runs[variant] = {"steps": 50, "seconds": 10.0, "exact_match": final, "test_exact_match": final,
                         "history": history}  # fmt: skip
    return tr.results_from_dict({"task": "dates", "runs": runs})


def test_table_and_observations_come_from_the_runs():
    results = fake_results({"full": 0.96, "no residual": 0.0, "no layer norm": 0.5})
    rows = {r["variant"]: r for r in tr.table_rows(results)}
    assert rows[tr.VARIANT_LABELS["full"]]["steps to 90%"] == "50"
    assert rows[tr.VARIANT_LABELS["no residual"]]["steps to 90%"] == "never"
    assert rows[tr.VARIANT_LABELS["no layer norm"]]["test exact"] == "50.0%"
    lines = tr.observations(results)
    assert lines[0].startswith("**no residual** never reached 90% in 50 steps")
    assert tr.worst_variant(results) == "no residual"
    ex5 = next(e for e in tr.exercises(*load_pretrained("dates", tr.MODEL)[:1], get_task("dates"), results)
               if e.key == "transformer.ex5")  # fmt: skip
    assert ex5.choices[ex5.answer] == tr.VARIANT_LABELS["no residual"]


def test_results_files_are_checked(tmp_path):
    with pytest.raises(FileNotFoundError, match="transformer_results.py"):
        tr.load_results(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text(json.dumps({"runs": {}}), encoding="utf-8")
    with pytest.raises(ValueError, match="must have runs"):
        tr.load_results(tmp_path / "bad.json")
    (tmp_path / "odd.json").write_text(json.dumps({"runs": {"no attention": {}}}), encoding="utf-8")
    with pytest.raises(ValueError, match="unknown variants"):
        tr.load_results(tmp_path / "odd.json")


def test_shipped_results_cover_every_variant_with_the_same_budget():
    results = tr.load_results()
    assert set(results.runs) == set(tr.VARIANTS)
    assert {run["steps"] for run in results.runs.values()} == {results.meta["max_steps"]}
    for run in results.runs.values():
        assert [p["step"] for p in run["history"]] == sorted(p["step"] for p in run["history"])
        assert run["history"][-1]["exact_match"] == run["exact_match"]
    loss, accuracy = tr.ablation_curves(results, x="seconds")
    assert loss.to_dict()["encoding"]["x"]["field"] == "seconds"
    with pytest.raises(ValueError):
        tr.ablation_curves(results, x="minutes")


# ------------------------------------------------------------------------------------------ training, exercises
def test_new_training_builds_the_chosen_variant():
    model, train_fn = tr.new_training("dates", "no residual", seed=1, budget_seconds=5)
    assert model.config.residual is False and model.config.layer_norm is True and callable(train_fn)
    again, _ = tr.new_training("dates", "no residual", seed=1, budget_seconds=5)
    pairs = zip(model.state_dict().values(), again.state_dict().values(), strict=True)
    assert all(np.array_equal(a, b) for a, b in pairs)
    with pytest.raises(ValueError):
        tr.new_training("dates", "no attention", seed=0, budget_seconds=5)
    config = tr.live_config(30, seed=4)
    assert (config.max_seconds, config.seed, config.target_exact_match) == (30, 4, 0.98)


def test_exercise_answers_are_computed_from_the_model(translator):
    model, task = translator
    exercises = {e.key: e for e in tr.exercises(model, task)}
    assert "transformer.ex5" not in exercises  # no results, no question about them
    assert exercises["transformer.ex1"].answer == 24
    c = model.config
    assert exercises["transformer.ex3"].answer == 2 * c.d_model * c.d_ff + c.d_ff + c.d_model
    w = tr.walk(model, task, task.probe.source)
    assert exercises["transformer.ex2"].answer == len(w.output) * len(w.source)
    assert exercises["transformer.ex4"].check(exercises["transformer.ex4"].choices[0]).correct
