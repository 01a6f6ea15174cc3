"""The Transformer lesson's numbers: maps of a real trained model, the diagram's shapes, the ablation table."""

import json
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from lessons import transformer
from lessons.common.comparison import Comparison, Run
from lessons.common.pretrained import load_pretrained
from minimodels.tasks import get_task
from minimodels.transformer import TransformerConfig


@pytest.fixture(scope="module")
def translator():
    model, _ = load_pretrained("toy-translation", transformer.MODEL)
    return model, get_task("toy-translation")


@pytest.fixture(scope="module")
def walked(translator):
    model, task = translator
    return transformer.walk(model, task, "Jane visits Africa in September")


def test_walk_has_every_map_with_the_sentence_shapes(walked):
    c = walked.config
    S, T = len(walked.source), len(walked.output)
    assert walked.source[-1] == "</s>" and walked.output[-1] == "</s>"
    assert walked.fed == ["<s>", *walked.output[:-1]]
    assert sorted(walked.maps) == sorted(
        transformer.map_name(kind, i) for kind in transformer.KINDS for i in range(transformer.layer_count(c, kind))
    )
    for kind in transformer.KINDS:
        rows, columns = walked.labels(kind)
        for i in range(transformer.layer_count(c, kind)):
            weights = walked.weights(kind, i)
            assert weights.shape == (c.n_heads, len(rows), len(columns))
            np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)  # every row is a softmax
    assert walked.weights("cross", 0).shape == (c.n_heads, T, S)
    masked = walked.weights("decoder_self", 1)
    assert np.all(np.triu(masked, k=1) == 0)  # the future is masked
    assert np.all(np.tril(masked)[:, 1:, 0] > 0)  # and the past is seen
    assert sum(m.shape[0] for m in walked.maps.values()) == transformer.maps_per_sentence(c) == 24


def test_maps_per_sentence_counts_heads_times_sublayers():
    assert transformer.maps_per_sentence(TransformerConfig(encoder_layers=6, decoder_layers=6, n_heads=8)) == 8 * (
        6 + 12
    )
    assert transformer.maps_per_sentence(TransformerConfig(encoder_layers=1, decoder_layers=3, n_heads=2)) == 2 * 7


def test_maps_caption_counts_the_config_s_maps_by_kind():
    caption = transformer.maps_caption(TransformerConfig(encoder_layers=1, decoder_layers=3, n_heads=2))
    assert caption.startswith(
        "14 attention maps in all for one sentence: 2 heads in each of 1 encoder self-attention, "
    )
    assert "3 masked self-attention and 3 encoder–decoder attention sublayers" in caption
    assert caption.endswith("Section 2 shows every one.")


def test_the_page_s_fixed_notes_name_what_they_describe():
    note = transformer.layer_norm_note()
    assert "pre-LN" in note and "post-LN" in note
    recipe = transformer.default_train_config(transformer.MODEL)
    assert f"{recipe.warmup_steps}-step warm-up" in note and f"{recipe.lr:g}" in note  # read from the recipe
    assert "trains at a large learning rate" not in note  # no result stated before section 4 measures it
    assert transformer.DECODER_ROWS_NOTE.startswith("Decoder rows:") and "`<s>`" in transformer.DECODER_ROWS_NOTE
    assert transformer.live_config(30.0, seed=0).target_exact_match == transformer.LIVE_TARGET == 0.98
    assert transformer.CHART_HEIGHT > 240  # room for the title and legend above the spec's own plot height


def test_head_summary_names_each_rows_argmax(walked):
    rows = transformer.head_summary(walked, "cross", 1)
    weights = walked.weights("cross", 1)
    assert [r["head"] for r in rows] == [1, 2, 3, 4]
    first = rows[0]["each row's strongest column"].split(" · ")
    assert first[0] == f"{walked.output[0]}→{walked.source[int(weights[0, 0].argmax())]}"
    assert rows[2]["mean largest weight"] == round(float(weights[2].max(-1).mean()), 3)


def test_parse_refuses_empty_and_too_long_text_and_accepts_unknown_characters():
    assert transformer.parse_sentence("toy-translation", "   ").error
    too_long = transformer.parse_sentence("toy-translation", transformer.LECTURE_SENTENCE)
    assert too_long.error and "at most 24" in too_long.error and not too_long.tokens
    odd = transformer.parse_sentence("toy-translation", "I see <b>it</b> 🙂")
    assert odd.error is None and odd.tokens == ("I", "see", "<b>it</b>", "🙂")
    assert transformer.parser("dates")("  1 May  1999 ").tokens == ("1", "May", "1999")


def test_walk_of_unknown_text_says_what_happened(translator):
    model, task = translator
    w = transformer.walk(model, task, "I see 🙂")
    assert "<unk>" in w.source and "unknown" in w.translation.message
    assert transformer.walk(model, task, "  ") == "Type at least one character."


def test_dates_labels_show_spaces():
    model, _ = load_pretrained("dates", transformer.MODEL)
    w = transformer.walk(model, get_task("dates"), "1 May 1999")
    assert w.source[1] == transformer.SPACE and " " not in w.source


def test_block_diagram_has_the_real_shapes_and_escapes_the_text(walked):
    diagram = transformer.block_diagram(walked)
    text = diagram.text()
    S, T, c = len(walked.source), len(walked.output), walked.config
    assert f"{c.n_heads} maps of {S} × {S}" in text
    assert f"{c.n_heads} maps of {T} × {T} (future masked)" in text
    assert f"{c.n_heads} maps of {T} × {S}" in text
    assert f"{T} × {c.target_vocab_size}" in text
    assert sum(1 for b in diagram.boxes if "encoder–decoder attention" in b.lines[0]) == c.decoder_layers
    memory = [a for a in diagram.arrows if a[2].startswith("keys, values")]
    assert [(a[0], a[1]) for a in memory] == [("e_norm", "d0_cross"), ("e_norm", "d1_cross")]
    hostile = transformer.Walk("<b>hi</b> " + "x" * 40, walked.translation, walked.maps, walked.config)
    fig = transformer.diagram_figure(transformer.block_diagram(hostile))
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
    assert transformer._sublayer(TransformerConfig(**flags), "FFN") == formula


def test_heads_grid_draws_one_heatmap_per_head_and_escapes_labels(walked):
    panels = transformer.every_map(walked)
    assert len(panels) == 2 + 2 * 2
    fig = transformer.heads_grid(panels[:2])
    assert len(fig.data) == 2 * 4 and {t.type for t in fig.data} == {"heatmap"}
    one = transformer.heads_grid([("x", np.full((2, 1, 2), 0.5), ["<b>q</b>"], ["k1", "k2"])])
    assert "&lt;b&gt;q&lt;/b&gt;" in one.layout.yaxis.ticktext
    with pytest.raises(ValueError):
        transformer.heads_grid([("x", np.ones((2, 3, 3)), ["a"], ["b"])])
    with pytest.raises(ValueError):
        transformer.heads_grid([])


def test_probe_panels_draw_the_last_decoder_layers_cross_attention():
    maps = {"decoder.1.cross": np.ones((4, 2, 3)) / 3, "decoder.0.cross": np.ones((4, 2, 3)) / 3,
            "encoder.0.self": np.ones((4, 3, 3))}  # fmt: skip
    snapshot = SimpleNamespace(attention_maps=maps, source_tokens=["a", " ", "</s>"], target_tokens=["x", "</s>"])
    panels = transformer.probe_panels(snapshot)
    assert [p[0] for p in panels] == ["encoder–decoder, layer 2"]  # the last layer's, as the page draws it live
    assert panels[0][1] is maps["decoder.1.cross"] and panels[0][3] == ["a", transformer.SPACE, "</s>"]


def test_the_lecture_sentence_is_out_of_reach_of_the_toy_model(translator):
    _, task = translator
    check = transformer.lecture_it(task)
    assert check.tokens == len(task.source_tokenizer.encode(transformer.LECTURE_SENTENCE)) > check.limit == 24
    assert not check.it_is_read
    assert {"animal", "street", "because"} <= set(check.unknown_words) and "it" not in check.unknown_words


def test_pronoun_check_reads_the_last_layers_cross_attention(translator):
    model, task = translator
    check = transformer.pronoun_check(model, task)
    assert (check.text, check.output, check.pronoun_piece) == ("I see it", "je le vois", "▁le")
    w = transformer.walk(model, task, "I see it")
    mean = w.weights("cross", 1)[:, check.step].mean(0)
    assert check.looked_at == w.source[int(mean.argmax())]
    assert check.weight == pytest.approx(float(mean.max()))


# ---------------------------------------------------------------------------------------- ablation results
def fake_results(finals: dict[str, float], seeds=(0,), spread: float = 0.0) -> Comparison:
    """An ablation where each variant ends at ``finals[variant]`` exact match (± ``spread`` over ``seeds``)."""
    runs = []
    for variant, final in finals.items():
        for i, seed in enumerate(seeds):
            end = final + (spread if i % 2 else -spread) * (len(seeds) > 1)
            history = [
                {"step": 25, "seconds": 5.0, "loss": 1.0, "exact_match": end / 2},
                {"step": 50, "seconds": 10.0, "loss": 1.0 - end / 2, "exact_match": end},
            ]
            measured = {"parameters": 100, "steps": 50, "seconds": 10.0, "exact_match": end, "test_exact_match": end,
                        "history": history}  # fmt: skip
            runs.append(transformer.ablation_run(variant, seed, measured))
    return Comparison(tuple(finals), tuple(runs), {"task": "dates", "seeds": list(seeds)}, transformer.VARIANT_LABELS)


def test_table_and_observations_come_from_the_runs(tmp_path):
    results = fake_results({"full": 0.96, "no residual": 0.0, "no layer norm": 0.5})
    results = transformer.load_results(results.save(tmp_path / "transformer.json"))  # a round trip
    rows = {r["variant"]: r for r in transformer.table_rows(results)}
    assert rows[transformer.VARIANT_LABELS["full"]]["steps to 90%"] == "50"
    assert rows[transformer.VARIANT_LABELS["full"]]["seconds to 90%"] == "10.0"
    assert rows[transformer.VARIANT_LABELS["no residual"]]["steps to 90%"] == "never (1 of 1)"
    assert rows[transformer.VARIANT_LABELS["no layer norm"]]["test exact"] == "50.0%"
    assert [r["n"] for r in rows.values()] == [1, 1, 1]
    lines = transformer.observations(results)
    assert lines[0].startswith("**no residual** never reached 90% in 50 steps")
    assert "ended at 0.0% test exact match against the full model's 96.0%" in lines[0]
    assert lines[-1].startswith("One seed (0) per variant")
    ex5 = transformer.residual_prediction(results)
    assert ex5.choices[ex5.answer].startswith("about as well")  # one seed a side: never a clear verdict


def test_every_sentence_about_the_ablation_follows_the_numbers():
    """Who reached 90% first, and who is ahead on test exact match, turn round when the numbers do."""
    slower = transformer.observations(fake_results({"full": 0.96, "post-LN": 0.92}))
    assert "**post-LN** reached 90% at step 50 (full model: step 50)" in slower[0]
    never = transformer.observations(fake_results({"full": 0.6, "post-LN": 0.95}))
    assert "**post-LN** reached 90% at step 50, which the full model never did" in never[0]
    behind = transformer.observations(fake_results({"full": 0.96, "no layer norm": 0.5}, seeds=(0, 1, 2), spread=0.01))
    ahead = transformer.observations(fake_results({"full": 0.5, "no layer norm": 0.96}, seeds=(0, 1, 2), spread=0.01))
    assert "it is behind the full model by more than the spread over seeds" in behind[0]
    assert "it is ahead of the full model by more than the spread over seeds" in ahead[0]
    assert "± " in behind[0] and "(n = 3)" in behind[0]  # several seeds: mean ± sd and n
    close = transformer.observations(fake_results({"full": 0.95, "no layer norm": 0.94}, seeds=(0, 1), spread=0.02))
    assert "too close to call" in close[0] and "One seed" not in close[-1]


def test_the_predictions_and_the_warm_up_sentence_turn_round_with_the_numbers():
    """The residual prediction's answer and the post-LN warm-up sentence are computed from the runs: swap the
    numbers and they say the other thing."""
    seeds = {"seeds": (0, 1, 2), "spread": 0.01}
    collapsed = transformer.residual_prediction(fake_results({"full": 0.96, "no residual": 0.02}, **seeds))
    assert collapsed.choices[collapsed.answer].startswith("it learns almost nothing")
    assert "straight path" in collapsed.explanation
    partly = transformer.residual_prediction(fake_results({"full": 0.96, "no residual": 0.5}, **seeds))
    assert partly.choices[partly.answer].startswith("clearly worse")
    fine = transformer.residual_prediction(fake_results({"full": 0.96, "no residual": 0.96}, **seeds))
    assert fine.choices[fine.answer].startswith("about as well") and "straight path" not in fine.explanation
    assert transformer.residual_prediction(fake_results({"full": 0.96, "post-LN": 0.9})) is None
    behind = transformer.warmup_sentence(fake_results({"full": 0.96, "post-LN": 0.5}, **seeds))
    ahead = transformer.warmup_sentence(fake_results({"full": 0.5, "post-LN": 0.96}, **seeds))
    close = transformer.warmup_sentence(fake_results({"full": 0.96, "post-LN": 0.955}, **seeds))
    assert "post-LN ends behind pre-LN" in behind and "does not suit" in behind
    assert "post-LN ends ahead of pre-LN" in ahead
    assert "too close to call" in close and "did not visibly hold post-LN back" in close
    shipped = transformer.load_results()
    said = transformer.warmup_sentence(shipped)
    warm = shipped.meta["train_config"]["warmup_steps"]
    assert f"{warm}-step warm-up" in said and said in transformer.observations(shipped)
    assert "post-LN is known" not in transformer.provenance_note(shipped.meta)


def test_results_files_are_checked(tmp_path):
    with pytest.raises(FileNotFoundError, match="transformer_results.py"):
        transformer.load_results(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text(json.dumps({"runs": {}}), encoding="utf-8")
    with pytest.raises(ValueError, match="transformer_results.py"):
        transformer.load_results(tmp_path / "bad.json")
    odd = Comparison(("no attention",), (Run("no attention", 0, final={"test exact": 0.5}),))
    with pytest.raises(ValueError, match="unknown variants"):
        transformer.load_results(odd.save(tmp_path / "odd.json"))


def test_shipped_results_cover_every_variant_with_the_same_budget():
    results = transformer.load_results()
    assert results.variants == tuple(transformer.VARIANTS)
    assert results.meta["script"] == transformer.RESULT_SCRIPT and results.meta["seeds"] == list(results.seeds)
    assert {r.value("steps") for r in results.runs} == {results.meta["max_steps"]}
    for run in results.runs:
        steps = [p["step"] for p in run.curve]
        assert steps == sorted(steps)
        assert run.curve[-1]["exact_match"] == run.value("held-out exact")
        assert run.value("steps to 90%") == run.reached("exact_match", 0.9)
        assert run.params == transformer.VARIANTS[run.variant]
    loss, accuracy = transformer.ablation_curves(results, x="seconds")
    assert loss["encoding"]["x"]["title"] == "seconds" and loss["title"] == "Loss (log scale)"
    full = [v for v in accuracy["data"]["values"] if v["label"] == "full"]
    if len(results.seeds) > 1:  # each seed drawn faintly, at its own seconds
        for run in results.runs_of("full"):
            seed = [v["x"] for v in full if v["kind"] == "seed" and v["seed"] == run.seed]
            assert seed == [p["seconds"] for p in run.curve]
    every = sorted({p["seconds"] for run in results.runs_of("full") for p in run.curve})
    assert sorted(v["x"] for v in full if v["kind"] == "mean") == every  # the mean over seeds at every report
    assert accuracy["encoding"]["color"]["scale"]["domain"] == list(transformer.VARIANTS)
    with pytest.raises(ValueError):
        transformer.ablation_curves(results, x="minutes")


def test_the_results_script_writes_what_the_lesson_reads(tmp_path, monkeypatch):
    """The script's grid, with a stand-in for the training: one run per variant and seed, saved and read back."""
    import scripts.transformer_results as script

    def train_variant(variant, seed, steps, threads):
        history = [{"step": 25, "seconds": 1.0, "loss": 2.0, "exact_match": 0.1 * seed}]
        return {"parameters": 10, "steps": steps, "seconds": 1.0, "exact_match": 0.1 * seed,
                "test_exact_match": 0.1 * seed, "history": history}  # fmt: skip

    monkeypatch.setattr(script, "train_variant", train_variant)
    out = tmp_path / "out.json"
    assert (
        script.main(["--seeds", "0", "1", "--variants", "full", "no residual", "--steps", "5", "--out", str(out)]) == 0
    )
    written = transformer.load_results(out)
    assert written.variants == ("full", "no residual") and written.seeds == (0, 1)
    assert (
        written.meta["script"] == transformer.RESULT_SCRIPT
        and written.label("full") == transformer.VARIANT_LABELS["full"]
    )
    assert written.runs_of("no residual")[1].value("test exact") == 0.1


# ------------------------------------------------------------------------------------------ training, exercises
def test_new_training_builds_the_chosen_variant():
    model, train_fn = transformer.new_training("dates", "no residual", seed=1, budget_seconds=5)
    assert model.config.residual is False and model.config.layer_norm is True and callable(train_fn)
    again, _ = transformer.new_training("dates", "no residual", seed=1, budget_seconds=5)
    pairs = zip(model.state_dict().values(), again.state_dict().values(), strict=True)
    assert all(np.array_equal(a, b) for a, b in pairs)
    with pytest.raises(ValueError):
        transformer.new_training("dates", "no attention", seed=0, budget_seconds=5)
    config = transformer.live_config(30, seed=4)
    assert (config.max_seconds, config.seed, config.target_exact_match) == (30, 4, 0.98)


def test_exercise_answers_are_computed_from_the_model(translator):
    model, task = translator
    exercises = {e.key: e for e in transformer.exercises(model, task)}
    assert set(exercises) == {f"transformer.ex{i}" for i in (1, 2, 3, 4, 8, 9)}  # the predictions sit in sections 4-5
    assert exercises["transformer.ex1"].answer == 6 * 8 + 2 * 6 * 8  # the paper's base model, not on the page
    assert "48" in exercises["transformer.ex1"].explanation and "96" in exercises["transformer.ex1"].explanation
    assert exercises["transformer.ex3"].answer == 2 * 512 * 2048 + 2048 + 512
    assert transformer.maps_per_sentence(model.config) != exercises["transformer.ex1"].answer  # not readable
    w = transformer.walk(model, task, task.probe.source)
    assert exercises["transformer.ex2"].answer == len(w.output) * len(w.source)
    assert exercises["transformer.ex4"].check(exercises["transformer.ex4"].choices[0]).correct


# ------------------------------------------------------------------------------------------ no feed-forward
def test_a_model_without_feed_forward_networks_has_none_and_decodes_as_it_trains():
    import torch

    from minimodels.decode import greedy, teacher_forced
    from minimodels.train import build_model

    task = get_task("dates")
    full = build_model(transformer.MODEL, task, seed=0)
    bare = build_model(transformer.MODEL, task, seed=0, **transformer.VARIANTS["no FFN"])
    assert not any(type(m).__name__ == "FeedForward" for m in bare.modules())
    c = full.config
    per_ffn = transformer.feed_forward_parameters(c) + 2 * c.d_model  # the network and its layer norm
    count = sum(p.numel() for p in full.parameters()) - sum(p.numel() for p in bare.parameters())
    assert count == (c.encoder_layers + c.decoder_layers) * per_ffn
    batch = task.encoded("valid").select(torch.arange(4))
    decoded = greedy(bare, batch.source, batch.source_lengths, max_len=6)
    target_in = torch.cat([torch.full((4, 1), 1), decoded.tokens[:, :-1]], dim=1)  # BOS + its own output
    forced = teacher_forced(bare, batch.source, batch.source_lengths, target_in)
    assert torch.equal(forced.tokens, decoded.tokens)  # the step-by-step path computes what the whole pass does


# ------------------------------------------------------------------------------------- the convex combination
def test_every_attention_output_is_a_convex_combination_of_the_values(translator):
    model, task = translator
    check = transformer.convex_check(model, task, "Jane visits Africa in September")
    assert check.min_weight >= 0 and check.max_sum_error < 1e-5 and check.max_reconstruction_error < 1e-5
    assert check.outside == 0 and check.coordinates == check.heads * len(check.tokens) * check.d_k
    assert all(transformer.inside_hull(z, check.values_2d) for z in check.outputs_2d)
    assert 0 < check.relu_zero_share < 1 and check.d_ff == model.config.d_ff
    text = transformer.convex_text(check)
    assert "every one of them lies within" in text and f"{check.relu_zero_share:.0%}" in text
    broken = transformer.convex_text(replace(check, outside=3))  # the sentence follows the count
    assert "**3** of them fall outside" in broken and "every one of them" not in broken
    fig = transformer.convex_figure(check)
    assert len(fig.data[1].x) == len(check.tokens) and len(fig.data[2].x) == len(check.tokens)
    assert isinstance(transformer.convex_check(model, task, "   "), str)


def test_convex_hull_and_inside_hull():
    square = np.array([[0, 0], [2, 0], [2, 2], [0, 2], [1, 1]], dtype=float)
    assert sorted(transformer.convex_hull(square)) == [0, 1, 2, 3]
    assert transformer.inside_hull(np.array([1.0, 0.5]), square)
    assert transformer.inside_hull(np.array([2.0, 1.0]), square)  # on an edge
    assert not transformer.inside_hull(np.array([2.1, 1.0]), square)
    assert not transformer.inside_hull(np.array([0.5, 0.5]), square[:2])  # no hull of two points


def test_the_no_ffn_sentence_and_prediction_follow_the_numbers():
    seeds = {"seeds": (0, 1, 2), "spread": 0.01}
    worse = fake_results({"full": 0.96, "no FFN": 0.5}, **seeds)
    slightly = fake_results({"full": 0.98, "no FFN": 0.94}, **seeds)
    same = fake_results({"full": 0.96, "no FFN": 0.955}, **seeds)
    better = fake_results({"full": 0.5, "no FFN": 0.96}, **seeds)
    assert "**no FFN** ends behind the full model" in transformer.ffn_sentence(worse)
    assert "**no FFN** ends ahead of the full model" in transformer.ffn_sentence(better)
    assert "**no FFN** and the full model are too close to call" in transformer.ffn_sentence(same)
    assert transformer.ffn_sentence(worse) in transformer.observations(worse)
    answers = [transformer.ffn_prediction(c) for c in (same, better, slightly, worse)]
    assert [e.answer for e in answers] == [0, 1, 2, 3]
    assert [e.choices[e.answer][:6] for e in answers] == ["about ", "better", "a litt", "far wo"]
    assert transformer.ffn_prediction(fake_results({"full": 0.9})) is None


# ---------------------------------------------------------------------------------------------- depth sweep
def fake_sweep(exact: dict[str, dict[int, float]], seeds=(0, 1, 2), spread: float = 0.01) -> Comparison:
    runs = []
    for variant, by_depth in exact.items():
        for i, seed in enumerate(seeds):
            for depth, value in by_depth.items():
                end = value + (spread if i % 2 else -spread)
                history = [{"step": 50, "seconds": 1.0, "loss": 1.0 - end, "exact_match": end}]
                measured = {"parameters": 10 * depth, "steps": 50, "seconds": 1.0, "exact_match": end,
                            "history": history}  # fmt: skip
                runs.append(transformer.depth_run(variant, seed, depth, measured))
    return Comparison(tuple(exact), tuple(runs), {"seeds": list(seeds)}, transformer.VARIANT_LABELS)


def test_depth_sentences_and_prediction_follow_the_numbers(tmp_path):
    collapse = fake_sweep({"full": {1: 0.5, 2: 0.7, 8: 0.8}, "no residual": {1: 0.5, 2: 0.1, 8: 0.0}})
    collapse = transformer.load_depth_results(collapse.save(tmp_path / "depth.json"))  # a round trip
    lines = transformer.depth_observations(collapse)
    assert lines[0] == (
        "**full**: held-out exact match rises from 49.7% ± 1.2% (n = 3) at 1 layer a stack to 79.7% ± 1.2% (n = 3) "
        "at 8 layers, and the final loss falls from 0.503 ± 0.012 to 0.203 ± 0.012."
    )
    assert lines[1].startswith("**no residual**: held-out exact match falls")
    assert "behind the full model by more than the spread at 2 and 8 layers" in lines[1]
    ex7 = transformer.depth_prediction(collapse)
    assert ex7.choices[ex7.answer] == "from 2 layers a stack"
    never = transformer.depth_prediction(fake_sweep({"full": {1: 0.5, 8: 0.8}, "no residual": {1: 0.5, 8: 0.8}}))
    assert never.choices[never.answer] == "at none of 1–8" and "never clearly behind" in never.explanation
    flipped = transformer.depth_observations(fake_sweep({"full": {1: 0.8, 8: 0.5}, "no residual": {1: 0.5, 8: 0.9}}))
    assert "match falls" in flipped[0] and "loss rises" in flipped[0] and "match rises" in flipped[1]
    assert "ahead of it at 8 layers" in flipped[1]
    rows = transformer.depth_rows(collapse)
    assert [(r["variant"], r["layers"]) for r in rows][:3] == [("full", 1), ("full", 2), ("full", 8)]
    assert rows[0]["n"] == 3 and "±" in rows[0]["held-out exact"]
    loss, exact = transformer.depth_curves(collapse)
    assert exact["encoding"]["x"]["scale"] == {"type": "log"} and loss["encoding"]["x"]["title"] == "layers per stack"
    assert {v["x"] for v in exact["data"]["values"]} == {1, 2, 8}
    seeds = [layer for layer in exact["layer"] if "seed" in layer["transform"][0]["filter"]]
    assert seeds and seeds[0]["mark"]["point"]["filled"]  # every seed's value drawn at every depth
    assert exact["encoding"]["x"]["axis"] == {"values": [1, 2, 8]}  # a tick at each depth measured


def test_depth_overrides_and_files_are_checked(tmp_path):
    assert transformer.depth_overrides("no layer norm", 4) == {**transformer.DEPTH_MODEL, "layer_norm": False,
                                                              "encoder_layers": 4, "decoder_layers": 4}  # fmt: skip
    with pytest.raises(ValueError):
        transformer.depth_overrides("no FFN", 2)
    with pytest.raises(ValueError):
        transformer.depth_overrides("full", 0)
    with pytest.raises(FileNotFoundError, match="--experiment depth"):
        transformer.load_depth_results(tmp_path / "missing.json")
    flat = Comparison(("full",), (Run("full", 0, final={"held-out exact": 0.5}),))
    with pytest.raises(ValueError, match="no depths"):
        transformer.load_depth_results(flat.save(tmp_path / "flat.json"))


def test_the_depth_script_writes_what_the_lesson_reads(tmp_path, monkeypatch):
    import scripts.transformer_results as script

    def train_depth(variant, seed, depth, steps, threads):
        history = [{"step": 50, "seconds": 1.0, "loss": 1.0 / depth, "exact_match": 0.1 * depth}]
        return {"parameters": depth, "steps": steps, "seconds": 1.0, "exact_match": 0.1 * depth, "history": history}

    monkeypatch.setattr(script, "train_depth", train_depth)
    out = tmp_path / "depth.json"
    argv = ["--experiment", "depth", "--seeds", "0", "1", "--depths", "1", "2", "--steps", "5", "--out", str(out)]
    assert script.main(argv) == 0
    written = transformer.load_depth_results(out)
    assert written.variants == tuple(transformer.DEPTH_VARIANTS) and written.param_values("depth") == (1, 2)
    assert written.meta["script"] == transformer.DEPTH_SCRIPT and written.meta["model"] == transformer.DEPTH_MODEL
    assert written.spread("held-out exact", "full", {"depth": 2}).mean == pytest.approx(0.2)


def test_shipped_depth_sweep_covers_every_variant_depth_and_seed():
    sweep = transformer.load_depth_results()
    assert sweep.variants == tuple(transformer.DEPTH_VARIANTS) and len(sweep.seeds) >= 3
    assert sweep.param_values("depth") == transformer.DEPTHS
    for variant in sweep.variants:
        for depth in transformer.DEPTHS:
            runs = sweep.runs_of(variant, {"depth": depth})
            assert sorted(r.seed for r in runs) == list(sweep.seeds)
            assert {r.value("steps") for r in runs} == {sweep.meta["max_steps"]}
    assert transformer.depth_observations(sweep) and transformer.depth_prediction(sweep) is not None


# ------------------------------------------------------------------------------ teacher forcing, beam search
def test_teacher_forcing_feeds_the_gold_prefix(translator):
    model, task = translator
    forced = transformer.teacher_forcing(model, task)
    gold = [transformer.display_token(p) for p in task.target_tokenizer.encode_pieces(task.probe.target)] if hasattr(
        task.target_tokenizer, "encode_pieces") else None  # fmt: skip
    rows = forced.rows
    assert rows[0]["fed (gold)"] == "<s>" and rows[-1]["should write"] == "</s>"
    assert [r["fed (gold)"] for r in rows[1:]] == [r["should write"] for r in rows[:-1]]  # gold, never its guess
    if gold is not None:
        assert [r["should write"] for r in rows[:-1]] == gold
    assert all(0 <= r["p(gold)"] <= 1 for r in rows)
    right = sum(r["model's best guess"] == r["should write"] for r in rows)
    assert f"at {right} of {len(rows)} positions" in transformer.teacher_forcing_text(forced)


@pytest.mark.parametrize(("task_name", "text"), [("toy-translation", "Jane visits Africa in September"),
                                                 ("dates", "Sunday, November 22, 2026")])  # fmt: skip
def test_beam_width_one_is_greedy_and_the_tree_is_drawn(task_name, text):
    model, _ = load_pretrained(task_name, transformer.MODEL)
    task = get_task(task_name)
    greedy = transformer.walk(model, task, text).translation
    one = transformer.beam_view(model, task, text, 1)
    assert one.texts == [greedy.text] and len(one.result.hypotheses) == 1
    assert [one.pieces[n.id] for n in one.result.path(one.result.best.node)] == greedy.target_pieces
    assert "it is the same as the greedy output" in transformer.beam_text(one, greedy.text)
    assert "**not** the same" in transformer.beam_text(one, greedy.text + "x")
    four = transformer.beam_view(model, task, text, 4)
    rows = transformer.beam_rows(four)
    assert 1 < len(rows) <= 4 and [r["log p"] for r in rows] == sorted((r["log p"] for r in rows), reverse=True)
    assert rows[0]["p"] == pytest.approx(np.exp(four.result.best.log_prob), abs=1e-4)
    fig = transformer.beam_figure(four)
    assert sum(len(t.x) for t in fig.data[1:]) == len(four.result.nodes)  # every node kept, from <s>
    best = fig.data[2]
    assert list(best.y) == [0.0, *(n.log_prob for n in four.result.path(four.result.best.node))]
    assert best.text[0] == "&lt;s&gt;" and list(best.x) == list(range(len(best.x)))
    for bad in (0, transformer.MAX_BEAM + 1):
        assert "beam width" in transformer.beam_view(model, task, text, bad)
    assert isinstance(transformer.beam_view(model, task, "  ", 2), str)


def test_hand_exercises_are_computed():
    assert transformer.two_step_beam(1) == ("Ax", pytest.approx(0.3))
    assert transformer.two_step_beam(2) == ("Bx", pytest.approx(0.36))
    ex8, ex9 = transformer.hand_exercises()
    assert ex8.answer == max(v[0] for v in transformer.CONVEX_VALUES) == 2
    assert ex9.answer == pytest.approx(0.36) and "0.36" in ex9.explanation and "0.30" in ex9.explanation
    assert ex9.check(0.3).correct is False and "Worked answer" in ex9.check(0.3).message
