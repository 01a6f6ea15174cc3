"""The multi-head lesson's numbers: the split by hand against the modules, shapes, head statistics, the trained
model's maps, the shipped comparison and the exercises."""

import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from torch import nn

from lessons import multi_head_attention
from lessons.common.comparison import Comparison, Run
from lessons.common.pretrained import load_pretrained
from minimodels.attention import MultiHeadAttention
from minimodels.decode import Translation
from minimodels.tasks import get_task
from minimodels.train import Progress, alignment_accuracy


def torch_pair(d_model: int, n_heads: int, seed: int = 0):
    """A torch.nn.MultiheadAttention with non-zero biases everywhere, and our copy of it."""
    torch.manual_seed(seed)
    reference = nn.MultiheadAttention(d_model, n_heads, batch_first=True).eval()
    with torch.no_grad():
        reference.in_proj_bias.normal_()
        reference.out_proj.bias.normal_()
    return reference, MultiHeadAttention.from_torch(reference).eval()


@pytest.mark.parametrize(("d_model", "n_heads"), [(8, 1), (12, 3), (16, 4), (64, 8), (32, 16)])
def test_heads_by_hand_reproduce_our_module_and_pytorchs(d_model, n_heads):
    reference, ours = torch_pair(d_model, n_heads)
    X = torch.randn(5, d_model)
    hb = multi_head_attention.heads_by_hand(ours, X)
    x = X[None]
    with torch.inference_mode():
        our_out, our_weights = ours(x, x, x)
        torch_out, torch_weights = reference(x, x, x, need_weights=True, average_attn_weights=False)
    torch.testing.assert_close(hb.output, our_out[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(hb.output, torch_out[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(hb.weights, our_weights[0], atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(hb.weights, torch_weights[0], atol=1e-6, rtol=1e-5)


def test_the_split_has_the_lectures_shapes_and_each_head_is_a_block_of_columns():
    _, ours = torch_pair(64, 8)
    X = torch.randn(3, 64)
    hb = multi_head_attention.heads_by_hand(ours, X)
    assert (hb.n_heads, hb.d_model, hb.d_k) == (8, 64, 8)
    for name in ("Q", "K", "V", "Z"):
        assert getattr(hb, name).shape == (8, 3, 8)
    assert hb.weights.shape == (8, 3, 3)
    assert hb.concat.shape == hb.output.shape == (3, 64)
    torch.testing.assert_close(hb.weights.sum(-1), torch.ones(8, 3))
    with torch.inference_mode():
        Q = ours.W_q(X)  # (3, 64)
    torch.testing.assert_close(hb.Q[2], Q[:, 16:24])  # head 3 owns columns 16..23
    torch.testing.assert_close(hb.concat[:, 16:24], hb.Z[2])  # ... and puts its Z back there


def test_split_example_matches_both_references_and_counts_parameters():
    ex = multi_head_attention.split_example(("Thinking", "Machines"), 512, 8, seed=3)
    assert all(v < 1e-5 for v in ex.differences.values()), ex.differences
    assert ex.parameters == {"W^Q": 512 * 512 + 512, "W^K": 512 * 512 + 512, "W^V": 512 * 512 + 512,
                             "W^O": 512 * 512 + 512}  # fmt: skip
    rows = multi_head_attention.shape_rows(ex)
    shapes = [r["shape"] for r in rows]
    assert shapes[0] == "2 × 512"
    assert shapes[1].startswith("8 × (2 × 64)")
    assert shapes[2].startswith("8 × 2 × 2")
    assert shapes[4].startswith("2 × 512 (h · d_k = 8 · 64)")
    assert sum(r["learned numbers"] for r in rows) == 4 * (512 * 512 + 512)
    other = multi_head_attention.split_example(("Thinking", "Machines"), 512, 8, seed=4)
    assert not torch.equal(ex.heads.weights, other.heads.weights)


def test_the_number_of_heads_does_not_change_the_parameters():
    counts = {h: multi_head_attention.projection_parameters(64, h) for h in multi_head_attention.head_choices(64)}
    assert set(counts.values()) == {4 * (64 * 64 + 64)}
    task = get_task(multi_head_attention.RESULT_TASK)
    models = [multi_head_attention.new_model(task, h, seed=0) for h in multi_head_attention.RESULT_HEADS]
    assert len({multi_head_attention.parameter_count(m) for m in models}) == 1
    assert [m.config.n_heads for m in models] == list(multi_head_attention.RESULT_HEADS)


def test_refused_splits_and_empty_input():
    assert multi_head_attention.head_choices(8) == (1, 2, 4, 8)
    assert 16 in multi_head_attention.head_choices(512)
    assert multi_head_attention.check_split(8, 16) and "whole" in multi_head_attention.check_split(8, 16)
    assert multi_head_attention.check_split(100, 4)
    assert multi_head_attention.check_split(64, 8) is None
    with pytest.raises(ValueError, match="whole"):
        multi_head_attention.split_example(("a",), 8, 16)
    with pytest.raises(ValueError):
        multi_head_attention.split_example((), 64, 8)
    assert multi_head_attention.parse("").error
    assert multi_head_attention.parse("w " * (multi_head_attention.MAX_TOKENS + 1)).error
    assert multi_head_attention.parse("<b>hi</b> 🙂").tokens == ("<b>hi</b>", "🙂")


def test_split_figures_mark_every_head():
    ex = multi_head_attention.split_example(("I", "like", "pizza"), 32, 4)
    fig = multi_head_attention.projection_figure(ex)
    assert [t.type for t in fig.data] == ["heatmap"] * 3 + ["scatter"]  # Q, K, V, then the heads' boundaries
    assert fig.data[0].z.shape == (3, 32) and [t.name for t in fig.data[:3]] == ["Q = XW^Q", "K = XW^K", "V = XW^V"]
    layout = fig.layout.to_plotly_json()
    assert not any(name.startswith(("xaxis2", "yaxis2")) for name in layout)  # one pair of axes
    assert [list(t.y) for t in fig.data[:3]] == [[1, 2, 3], [5, 6, 7], [9, 10, 11]]  # a blank row above each
    assert layout["yaxis"]["ticktext"] == ["I", "like", "pizza"] * 3
    texts = [a["text"] for a in layout["annotations"]]
    assert texts[:3] == ["<b>Q = XW^Q</b>  3 × 32", "<b>K = XW^K</b>  3 × 32", "<b>V = XW^V</b>  3 × 32"]
    assert texts[3:] == ["head 1", "head 2", "head 3", "head 4"]
    lines = fig.data[3]  # 3 boundaries through each of Q, K and V, from top to bottom
    assert [x for x in lines.x if x is not None] == [7.5, 7.5, 15.5, 15.5, 23.5, 23.5] * 3
    assert [y for y in lines.y if y is not None] == [0.5, 3.5] * 3 + [4.5, 7.5] * 3 + [8.5, 11.5] * 3
    grid = multi_head_attention.split_grid(ex)
    assert len(grid.data) == 4
    np.testing.assert_allclose(grid.data[1].z, ex.heads.weights[1].numpy())
    concat = multi_head_attention.concat_figure(ex)
    assert [t.type for t in concat.data] == ["heatmap", "heatmap", "scatter"]
    assert [y for y in concat.data[2].y if y is not None] == [0.5, 3.5] * 3  # only Concat(Zᵢ): after W^O the
    # columns belong to no head


def test_split_figures_come_in_the_lectures_order_each_with_its_caption():
    ex = multi_head_attention.split_example(("I", "like", "pizza"), 32, 4)
    shown = multi_head_attention.split_figures(ex)
    assert [key for key, _, _ in shown] == ["projections", "split.heads", "concat"]
    assert [caption.split(":")[0] for _, _, caption in shown] == ["Steps 2–3", "Step 4", "Step 5"]
    for (_, figure, _), builder in zip(shown, (multi_head_attention.projection_figure, multi_head_attention.split_grid,
                                               multi_head_attention.concat_figure), strict=True):  # fmt: skip
        assert figure.to_json() == builder(ex).to_json()
    assert "nn.MultiheadAttention" in multi_head_attention.PARITY_CAPTION


def test_head_grid_escapes_tokens_and_draws_one_map_per_head():
    weights = np.full((3, 2, 2), 0.5)
    rows = [
        multi_head_attention.GridRow("encoder layer 1 · self-attention", weights, ["<b>x</b>", "y"], ["<b>x</b>", "y"]),
        multi_head_attention.GridRow("one head", weights[:1], ["a", "b"], ["c", "d"]),
    ]
    fig = multi_head_attention.head_grid(rows, title="<i>t</i>")
    assert len(fig.data) == 4
    assert "&lt;b&gt;x&lt;/b&gt;" in fig.layout.xaxis.ticktext
    assert "<b>" not in json.dumps(fig.to_plotly_json()["layout"])
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["head 1", "head 2", "head 3", "head 1"]  # the second row has another head count
    assert fig.layout.yaxis.title.text == "encoder layer 1<br>self-attention"
    assert fig.layout.yaxis2.title.text == "one head"
    # the heads of a sublayer share its pair of axes (Plotly.js draws each pair: 24 maps, 48 axes took 0.6 s)
    assert [(t.xaxis, t.yaxis) for t in fig.data] == [("x", "y")] * 3 + [("x2", "y2")]
    assert not any(name.startswith(("xaxis3", "yaxis3")) for name in fig.layout.to_plotly_json())
    starts = [t.x[0] for t in fig.data[:3]]  # side by side, blank columns between
    assert starts[0] == 0 and starts[1] - starts[0] == starts[2] - starts[1] > 2
    assert list(fig.layout.xaxis.ticktext) == ["&lt;b&gt;x&lt;/b&gt;", "y"]  # under the first map: same tokens


def test_entropy_and_head_distance():
    np.testing.assert_allclose(multi_head_attention.entropy_bits(np.full(4, 0.25)), 2.0)
    np.testing.assert_allclose(multi_head_attention.entropy_bits(np.eye(3)), [0.0, 0.0, 0.0], atol=1e-9)
    eye, shifted = np.eye(3), np.roll(np.eye(3), 1, axis=1)
    assert multi_head_attention.head_distance(np.stack([eye, eye])) == 0.0
    assert multi_head_attention.head_distance(np.stack([eye, shifted])) == pytest.approx(1.0)
    assert multi_head_attention.head_distance(np.stack([eye, eye, shifted])) == pytest.approx(2 / 3)
    assert multi_head_attention.head_distance(eye[None]) == 0.0


def synthetic_reading() -> multi_head_attention.Reading:
    S, T = 4, 3
    source, target = ["a", "b", "c", "</s>"], ["x", "y", "</s>"]
    previous = np.eye(S, k=-1)
    previous[0, 0] = 1.0
    maps = {
        "encoder.0.self": np.stack([np.eye(S), previous]),
        "decoder.0.self": np.stack([np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]] * 2),
        "decoder.0.cross": np.stack([np.eye(T, S, k=1), np.tile(np.eye(S)[-1], (T, 1))]),
    }
    return multi_head_attention.Reading(Translation("x y", source, target, {}), maps)


def test_head_rows_say_where_each_head_looks():
    reading = synthetic_reading()
    encoder = multi_head_attention.head_rows(reading, "encoder.0.self")
    assert encoder[0]["most rows look at"] == "itself (4 of 4)"
    assert encoder[0]["entropy (bits)"] == 0.0 and encoder[0]["mean largest α"] == 1.0
    assert encoder[1]["most rows look at"] == "the previous token (3 of 4)"
    cross = multi_head_attention.head_rows(reading, "decoder.0.cross")
    assert cross[0]["most rows look at"] == "a source word (2 of 3)"
    assert cross[1]["most rows look at"] == "</s> (3 of 3)" and cross[1]["most-read token"] == "</s>"
    assert multi_head_attention.axes(reading, "decoder.0.self")[0] == ["<s>", "x", "y"]
    notes = multi_head_attention.specialisation_notes(reading, {"decoder.0.cross": [0.9, 0.2, 0.55]})
    assert "most in **encoder layer 1 · self-attention** (distance 0.75)" in notes[0]
    assert "least in **decoder layer 1 · masked self-attention** (0.00)" in notes[0]
    assert "20%–90%" in notes[1] and "head 1 best, head 2 worst" in notes[1]
    alike = multi_head_attention.specialisation_notes(reading, {"decoder.0.cross": [0.9, 0.88, 0.89]})
    assert "do not visibly divide the work" in alike[1]


def test_sublayers_are_ordered_and_filtered():
    names = [
        "decoder.1.cross",
        "encoder.1.self",
        "decoder.0.self",
        "decoder.1.self",
        "decoder.0.cross",
        "encoder.0.self",
    ]
    assert multi_head_attention.sublayers(names) == [
        "encoder.0.self", "encoder.1.self", "decoder.0.self", "decoder.0.cross", "decoder.1.self", "decoder.1.cross",
    ]  # fmt: skip
    assert multi_head_attention.sublayers(names, "cross") == ["decoder.0.cross", "decoder.1.cross"]
    assert multi_head_attention.sublayers(names, "decoder") == ["decoder.0.self", "decoder.1.self"]
    assert multi_head_attention.sublayer_label("decoder.1.self") == "decoder layer 2 · masked self-attention"
    with pytest.raises(ValueError):
        multi_head_attention.sublayers(names, "bogus")


@pytest.fixture(scope="module")
def shipped():
    model, _ = load_pretrained(multi_head_attention.RESULT_TASK, multi_head_attention.MODEL)
    return model, get_task(multi_head_attention.RESULT_TASK)


def test_a_trained_model_reads_a_typed_sentence_with_every_head(shipped):
    model, task = shipped
    reading = multi_head_attention.read_sentence(
        model, task, multi_head_attention.default_text(multi_head_attention.RESULT_TASK)
    )
    S, T, h = len(reading.source), len(reading.target), model.config.n_heads
    assert reading.translation.text == "Jane visite l'Afrique en septembre"
    assert {name: m.shape for name, m in reading.maps.items()} == {
        **{f"encoder.{i}.self": (h, S, S) for i in range(2)},
        **{f"decoder.{i}.self": (h, T, T) for i in range(2)},
        **{f"decoder.{i}.cross": (h, T, S) for i in range(2)},
    }
    np.testing.assert_allclose(reading.maps["decoder.1.cross"].sum(-1), 1.0, atol=1e-5)
    assert np.triu(reading.maps["decoder.0.self"][0], k=1).max() == 0.0  # never the future
    rows = multi_head_attention.grid_rows(reading, multi_head_attention.sublayers(list(reading.maps)))
    assert len(multi_head_attention.head_grid(rows).data) == 6 * h
    assert isinstance(multi_head_attention.read_sentence(model, task, "   "), str)
    odd = multi_head_attention.read_sentence(model, task, "<script>x</script> 🙂 שלום")
    assert not isinstance(odd, str) and odd.translation.message


def test_head_alignment_is_per_head_then_their_mean(shipped):
    model, task = shipped
    per_head = multi_head_attention.head_alignment(model, task)
    assert list(per_head) == ["decoder.0.cross", "decoder.1.cross"]
    assert all(len(v) == model.config.n_heads + 1 and all(0 <= a <= 1 for a in v) for v in per_head.values())
    reference = alignment_accuracy(model, task, "test")
    assert per_head["decoder.1.cross"][-1] == reference["accuracy"]
    assert per_head["decoder.0.cross"][2] == reference["maps"]["decoder.0.cross.h2"]


def fake_results(test_exact=(0.9, 0.95, 0.97, 0.93), worst=(0.9, 0.8, 0.7, 0.6), pace=(1, 2, 4, 8), spread=0.0):
    """A comparison of 1, 2, 4 and 8 heads, two seeds each: h reaches 100% exact match at step 100 · ``pace``,
    ends at ``test_exact`` (± ``spread`` between the seeds) and its worst head at ``worst``."""
    runs = []
    for heads, test, low, slow in zip(multi_head_attention.RESULT_HEADS, test_exact, worst, pace, strict=True):
        for seed, sign in ((0, -1), (1, 1)):
            curve = [{"step": s, "seconds": s / 10, "loss": 1 / s, "exact_match": min(1.0, s / (100 * slow))}
                     for s in (25, 50, 100, 200, 400, 800)]  # fmt: skip
            probe = {"seed": seed, "step": 800, "source": ["a", "</s>"], "target": ["x", "</s>"],
                     "maps": {"decoder.1.cross": np.full((heads, 2, 2), 0.5).tolist()}}  # fmt: skip
            runs.append(multi_head_attention.head_run(
                heads, seed, steps=800, seconds=80.0 + heads, cpu_seconds=60.0, exact_match=curve[-1]["exact_match"],
                test_exact_match=test + sign * spread, head_alignment=[0.9] * (heads - 1) + [low], alignment=0.9,
                parameters=1000, curve=curve, probe=probe if seed == 0 else None,
            ))  # fmt: skip
    variants = tuple(multi_head_attention.variant(h) for h in multi_head_attention.RESULT_HEADS)
    return Comparison(variants, tuple(runs), {"seeds": [0, 1], "script": multi_head_attention.RESULT_SCRIPT})


def test_results_table_and_observations(tmp_path):
    results = multi_head_attention.load_results(
        fake_results().save(tmp_path / "multi_head_attention.json")
    )  # a round trip
    rows = multi_head_attention.results_rows(results)
    assert [r["heads h"] for r in rows] == ["h = 1", "h = 2", "h = 4", "h = 8"]
    assert [r["d_k"] for r in rows] == [64, 32, 16, 8]
    assert [r["n"] for r in rows] == [2, 2, 2, 2]
    assert [r["steps to 90%"] for r in rows] == ["100 ± 0", "200 ± 0", "400 ± 0", "800 ± 0"]  # n: its own column
    assert rows[3]["steps to 95%"] == "800 ± 0" and rows[2]["test exact"] == "97.0% ± 0.0%"
    lines = multi_head_attention.observations(results)
    assert "**h = 1**, 100 ± 0 (n = 2); most: h = 8, 800 ± 0 (n = 2): a gap larger than" in lines[0]
    assert "from 90.0% (h = 1) to 97.0% (h = 4): h = 4 is ahead by more than the spread" in lines[1]
    assert "h = 1: 90%, h = 2: 80%, h = 4: 70%, h = 8: 60%" in lines[2]
    assert "some heads drift away from the alignment while their average still follows it" in lines[2]
    assert "h = 1: 75 ms" in lines[3]  # CPU seconds (60) over 800 steps
    assert rows[0]["CPU s"] == "60.0 ± 0.0" and rows[0]["alignment, worst head"] == "90.0% ± 0.0%"
    assert rows[0]["parameters"] == 1000 and rows[0]["steps"] == 800
    assert "exactly 1,000 parameters" in lines[-1]
    grid_rows = multi_head_attention.probe_rows(results, "h = 4")
    assert grid_rows[0].weights.shape == (4, 2, 2)
    assert multi_head_attention.probe(results, "h = 4")["seed"] == 0 and multi_head_attention.probe_variants(
        results
    ) == list(results.variants)
    loss, accuracy = multi_head_attention.curves(results)
    means = [v for v in accuracy["data"]["values"] if v["kind"] == "mean"]
    assert len(means) == 4 * 6 and {v["n"] for v in means} == {2}  # every report, over both seeds
    assert accuracy["encoding"]["color"]["scale"]["domain"] == ["h = 1", "h = 2", "h = 4", "h = 8"]
    assert loss["layer"][0]["encoding"]["y"]["scale"] == {"type": "log"}


def test_every_sentence_about_the_comparison_follows_the_numbers():
    """Each claim turns round when the numbers do: which h is fastest, whether h matters, whether heads drift."""
    slow_many = multi_head_attention.observations(fake_results(pace=(1, 2, 4, 8)))
    fast_many = multi_head_attention.observations(fake_results(pace=(8, 4, 2, 1)))
    assert "Fewest steps to 90%: **h = 1**" in slow_many[0] and "most: h = 8" in slow_many[0]
    assert "Fewest steps to 90%: **h = 8**" in fast_many[0] and "most: h = 1" in fast_many[0]
    close = multi_head_attention.observations(fake_results(test_exact=(0.95, 0.96, 0.95, 0.94), spread=0.02))
    assert "too close to call" in close[1] and "hardly matters" in close[1]
    apart = multi_head_attention.observations(fake_results(test_exact=(0.5, 0.96, 0.95, 0.94)))
    assert "hardly matters" not in apart[1] and "h = 2 is ahead by more than the spread" in apart[1]
    drift = multi_head_attention.observations(fake_results(worst=(0.9, 0.8, 0.7, 0.6)))[2]
    no_drift = multi_head_attention.observations(fake_results(worst=(0.6, 0.7, 0.8, 0.9)))[2]
    assert "some heads drift away" in drift
    assert "some heads drift away" not in no_drift and "does not clearly drift further" in no_drift
    ends = ("h = 1", "h = 8")
    single = multi_head_attention.observations(
        Comparison(ends, [r for r in fake_results().runs if r.seed == 0 and r.variant in ends])
    )
    assert "one seed is an anecdote" in single[0]  # one seed a side never makes a clear claim


def test_results_that_are_missing_or_malformed_name_the_script(tmp_path):
    with pytest.raises(FileNotFoundError, match="multi_head_attention_results.py"):
        multi_head_attention.load_results(tmp_path / "missing.json")
    (tmp_path / "empty.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="multi_head_attention_results.py"):
        multi_head_attention.load_results(tmp_path / "empty.json")


def test_shipped_results_when_present():
    results = multi_head_attention.load_results()
    assert results.variants == tuple(multi_head_attention.variant(h) for h in multi_head_attention.RESULT_HEADS)
    assert len(results.seeds) >= 2 and results.meta["script"] == multi_head_attention.RESULT_SCRIPT
    assert {r.params["heads"] for r in results.runs} == set(multi_head_attention.RESULT_HEADS)
    assert len({r.value("parameters") for r in results.runs}) == 1
    assert len({r.value("steps") for r in results.runs}) == 1  # the same budget for all
    assert multi_head_attention.probe_variants(results) == list(results.variants)
    for run in results.runs:  # the final metrics agree with the run's own curve and head alignments
        assert run.value("steps to 90%") == run.reached("exact_match", 0.9)
        assert run.value("alignment, worst head") == min(run.extra["head_alignment"])
    assert len(multi_head_attention.observations(results)) == 5


def test_probe_grid_draws_the_probe_rows_titled_with_the_kept_seed():
    results = multi_head_attention.load_results()
    name = multi_head_attention.probe_variants(results)[-1]
    figure = multi_head_attention.probe_grid(results, name)
    assert figure.layout.title.text == f"{name}, seed {multi_head_attention.probe(results, name)['seed']}"
    rows = multi_head_attention.probe_rows(results, name)
    heatmaps = [t for t in figure.data if t.type == "heatmap"]
    assert len(heatmaps) == sum(r.weights.shape[0] for r in rows)
    np.testing.assert_allclose(heatmaps[0].z, rows[0].weights[0])


def test_the_fixed_captions_say_what_the_figures_show():
    assert f"every {multi_head_attention.REPORT_EVERY} steps" in multi_head_attention.RESULTS_CAPTION
    assert multi_head_attention.GRID_CAPTION.startswith("Encoder rows:")
    assert "upper triangle is empty" in multi_head_attention.GRID_CAPTION
    assert multi_head_attention.HEAD_ROWS_CAPTION.startswith("Per head of this sublayer")
    assert "8 heads" in multi_head_attention.HEADS_CAUTION


def test_the_results_script_writes_what_the_lesson_reads(tmp_path, monkeypatch):
    """The script's grid, with a stand-in for the training: one run per head count and seed, saved and read back."""
    import scripts.multi_head_attention_results as script

    fake = {(r.variant, r.seed): r for r in fake_results().runs}
    monkeypatch.setattr(
        multi_head_attention,
        "measure_heads",
        lambda task, h, seed, steps, threads: fake[(multi_head_attention.variant(h), seed)],
    )
    out = tmp_path / "out.json"
    assert script.main(["--seeds", "0", "1", "--heads", "1", "8", "--steps", "5", "--out", str(out)]) == 0
    written = multi_head_attention.load_results(out)
    assert written.variants == ("h = 1", "h = 8") and written.seeds == (0, 1)
    assert written.meta["script"] == multi_head_attention.RESULT_SCRIPT and written.meta["command"].endswith(str(out))
    assert written.runs_of("h = 8")[1].final == fake[("h = 8", 1)].final


def test_exercises_are_computed_predicted_before_the_results_and_never_read_off_the_page():
    ex1, ex2 = multi_head_attention.by_hand()
    big = (multi_head_attention.BIG_D_MODEL, multi_head_attention.BIG_HEADS)
    assert big[0] not in multi_head_attention.D_MODEL_CHOICES  # not on the sliders: worked by hand, not read off
    assert ex1.answer == big[0] // big[1] and ex1.check(64).correct and not ex1.check(8).correct
    assert ex2.answer == 4 * (big[0] ** 2 + big[0]) and f"{ex2.answer:,}" in ex2.explanation
    ex3 = multi_head_attention.split_prediction()
    assert ex3.choices[ex3.answer] == "stay the same" and "1,050,624 with 1 head" in ex3.explanation
    assert ex3.prompt.startswith("**Predict")
    ex4 = multi_head_attention.alignment_prediction(fake_results())  # worst head 0.9 (h = 1) … 0.6 (h = 8)
    assert ex4.choices[ex4.answer].startswith("less often") and ex4.prompt.startswith("**Predict")
    assert "60% ± 0% (n = 2)" in ex4.explanation and "free to read something else" in ex4.explanation
    swapped = multi_head_attention.alignment_prediction(fake_results(worst=(0.6, 0.7, 0.8, 0.9)))
    assert swapped.choices[swapped.answer].startswith("more often")  # the numbers turned round: so does the answer
    assert "free to read something else" not in swapped.explanation
    close = multi_head_attention.alignment_prediction(fake_results(worst=(0.8, 0.8, 0.8, 0.8)))
    assert close.choices[close.answer].startswith("about as often")
    every = multi_head_attention.exercises(fake_results())
    assert [e.key for e in every] == [f"multi_head_attention.ex{i}" for i in (1, 2, 3, 4)]
    assert len(multi_head_attention.exercises()) >= 3  # at least three even without the shipped results
    for e in every:  # no "read the table" hints any more
        assert "Read" not in e.hint and "table above" not in e.prompt


def test_the_parameter_count_is_counted_on_modules_and_its_sentence_follows_the_counts():
    rows, sentence = multi_head_attention.parameter_table(64)
    assert [r["heads h"] for r in rows] == list(multi_head_attention.head_choices(64))
    assert [r["d_k = d_model / h"] for r in rows] == [64 // h for h in multi_head_attention.head_choices(64)]
    counted = [sum(p.numel() for p in MultiHeadAttention(64, r["heads h"]).parameters()) for r in rows]
    assert [r["learned numbers in W^Q, W^K, W^V, W^O"] for r in rows] == counted
    assert "every h (1, 2, 4, 8, 16) gives the same **16,640**" in sentence
    assert "Changing d_model changes it: d_model = 32 has 4,224 = 4 · (32² + 32)" in sentence
    # the sentence is computed from the counts: counts that moved with h would be said to move
    moved = multi_head_attention.parameter_sentence(64, {1: 16640, 8: 20000}, (32, 16640))
    assert "the count changes with h: 16,640 at h = 1, 20,000 at h = 8" in moved and "add none" not in moved
    assert "Changing d_model leaves it" in moved
    assert multi_head_attention.other_d_model(8) == 16 and multi_head_attention.other_d_model(512) == 256
    assert "does not move" not in multi_head_attention.SPLIT_TEXT


def test_section_texts_read_their_counts_from_the_settings_and_the_results():
    text = multi_head_attention.comparison_text(fake_results())
    assert "with 1, 2, 4 or 8 heads, so d_k = 64, 32, 16, 8" in text and "Every one has 1,000 parameters" in text
    runs = [r if r.variant != "h = 8" else Run(r.variant, r.seed, r.params, r.curve, {**r.final, "parameters": 2000})
            for r in fake_results().runs]  # fmt: skip
    differ = Comparison(fake_results().variants, tuple(runs))
    assert "Their parameter counts differ" in multi_head_attention.comparison_text(differ)
    assert "h = 8: 2,000" in multi_head_attention.observations(differ)[-1]
    assert "Every one" not in multi_head_attention.comparison_text(None)
    assert multi_head_attention.COMPARISON_TITLE == "3 · 1, 2, 4 or 8 heads for the same budget"
    config = SimpleNamespace(encoder_layers=3, decoder_layers=1, d_model=32, n_heads=2)
    shape = multi_head_attention.model_shape(SimpleNamespace(config=config))
    assert shape == "3 encoder layers, 1 decoder layer, d_model = 32, 2 heads in each of its 5 attention sublayers"
    assert not any(ch.isdigit() for ch in multi_head_attention.EVERY_HEAD_TEXT)  # no hard-coded count


def test_live_training_reports_every_cross_head():
    model, _ = multi_head_attention.new_training(2, seed=0, budget_seconds=1.0)
    assert model.config.n_heads == 2 and model.config.d_model == multi_head_attention.RESULT_D_MODEL
    maps = {"decoder.0.cross": np.full((2, 3, 4), 0.25), "decoder.0.self": np.zeros((2, 3, 3)),
            "decoder.1.cross": np.full((2, 3, 4), 0.25)}  # fmt: skip
    snapshot = Progress(25, 1.0, 1.0, 0.0, None, None, maps, list("abc") + ["</s>"], ["x", "y", "</s>"], "x")
    rows = multi_head_attention.snapshot_rows(snapshot)
    assert [r.title for r in rows] == ["decoder layer 1 · cross-attention", "decoder layer 2 · cross-attention"]
    figure = multi_head_attention.snapshot_grid(snapshot)
    assert figure.layout.title.text == "cross-attention heads on a fixed example after 25 steps"
    assert sum(t.type == "heatmap" for t in figure.data) == 4  # 2 layers × 2 heads


def test_yours_label_counts_the_students_heads():
    def own(heads):
        return SimpleNamespace(config=SimpleNamespace(n_heads=heads))

    assert multi_head_attention.yours_label(own(1)) == "yours, trained on this page (1 head)"
    assert multi_head_attention.yours_label(own(8)) == "yours, trained on this page (8 heads)"
    assert multi_head_attention.LIVE_BUDGET == 60.0


# ---------------------------------------------------------------------------------------- 4. which head resolves "it"
from minimodels.tasks import coreference  # noqa: E402


@pytest.mark.parametrize(
    "text, says",
    [("", "Type a sentence"), ("   ", "Type a sentence"), ("the zebra crossed it", "`zebra`"),
     ("the dog 🐙 it", "`🐙`"), ("<b>it</b> was too tired", "`<b>it</b>`"), ("it " * 200, "characters"),
     ("the dog " * 9 + "it", "words"), ("the dog was too tired", "exactly one “it”"),
     ("it was it", "exactly one “it”"), ("`it` was", "`�it�`"), ("<pad> it", "`<pad>`")],
)  # fmt: skip
def test_bad_it_sentences_get_a_message_and_no_tokens(text, says):
    parsed = multi_head_attention.parse_it(text)
    assert parsed.tokens == () and parsed.error and says in parsed.error


def test_it_sentences_are_read_in_the_grammars_words():
    parsed = multi_head_attention.parse_it("The animal didn’t cross the street because it was too tired.")
    assert parsed.error is None and parsed.tokens == tuple(multi_head_attention.IT_DEFAULT.split())
    tokens = parsed.tokens
    assert multi_head_attention.referent_of(tokens) == (1, 5)  # the animal
    assert multi_head_attention.referent_of(tokens[:-1] + ("wide",)) == (5, 1)  # the street
    assert multi_head_attention.referent_of(("the", "dog", "it", "was")) is None  # no adjective: no referent


def test_the_grammar_splits_by_noun_pair_and_translates_it_by_gender():
    task = coreference.it_task()
    pairs = {name: {(s.tokens[s.creature], s.tokens[s.place]) for s in task.split(name)} for name in task.splits}
    assert pairs["test"] == set(coreference.TEST_PAIRS) and not pairs["test"] & pairs["train"]
    tired = coreference.sentence(0, "animal", "street", "tired")
    assert (
        coreference.PRONOUNS[tired.pronoun] == "il"
        and coreference.PRONOUNS[coreference.swapped(tired).pronoun] == "elle"
    )
    assert tired.ambiguous and not coreference.sentence(0, "dog", "bridge", "tired").ambiguous


@pytest.fixture(scope="module")
def resolver():
    return multi_head_attention.shipped_resolver()[0]


def test_a_first_layer_head_cannot_move_between_the_nouns_but_a_second_layer_head_can(resolver):
    """The lesson's claim, on the shipped model: layer 1's ratio of the two nouns is the same with either ending."""
    measures = multi_head_attention.head_measures(resolver, coreference.it_task().split("test")[:120])
    first, second = measures["layer 1"], measures["layer 2"]
    assert max(first[multi_head_attention.FLIPS]) == 0 and max(first["ratio change"]) < 1e-4
    assert all(x == 0.5 for x in first[multi_head_attention.PREFERS])  # a fixed preference is right half the time
    assert max(second["ratio change"]) > 1  # layer 2's query has read the adjective


def test_the_it_exercises_answer_what_the_model_computes(resolver):
    by_hand = multi_head_attention.it_by_hand(resolver)
    s = multi_head_attention.IT_HAND_SENTENCE
    after = multi_head_attention.read_it(resolver, coreference.swapped(s).tokens)
    head = int(by_hand.prompt.split("head ")[1].split()[0]) - 1
    assert abs(after.weights["layer 1"][head, s.place] - by_hand.answer) < 0.01  # the ratio rule, on the model
    switch = multi_head_attention.it_switch_prediction(resolver)
    lines = switch.explanation.split(": ", 1)[1].split(". Every")[0].split("; ")
    assert len(lines) == 8 and not any(line.endswith("(moved)") for line in lines[:4])  # layer 1: never
    assert switch.answer == (1 if any(line.endswith("(moved)") for line in lines[4:]) else 3)
    assert len(multi_head_attention.exercises(None, resolver)) >= 5


def it_comparison(one_layer: float, best_second: float) -> Comparison:
    """A made-up comparison of 1 and 2 layers: accuracies and best layer-2 head around the given values."""
    acc, prefers = "test " + multi_head_attention.ACCURACY, multi_head_attention.PREFERS
    runs = []
    for seed, wobble in enumerate((-0.01, 0.0, 0.01)):
        common = {"CPU s": 1.0, "layer 1, ratio change": 1e-6, f"layer 1, best head: {prefers}": 0.5,
                  f"layer 1, best head: {multi_head_attention.FLIPS}": 0.0}  # fmt: skip
        runs.append(Run("1 layer", seed, final={**common, acc: one_layer + wobble}))
        runs.append(Run("2 layers", seed, final={**common, acc: 0.9 + wobble,
                                                  f"layer 2, best head: {prefers}": best_second + wobble}))  # fmt: skip
    return Comparison(("1 layer", "2 layers"), tuple(runs))


def test_it_sentences_follow_the_numbers_and_flip_when_they_are_swapped():
    lines = multi_head_attention.it_observations(it_comparison(0.6, 0.95))
    assert "2 layers beats 1 layer" in lines[0]
    assert "prefers the referent more often than" in lines[2] and "3 of 3 seeds" in lines[2]
    lines = multi_head_attention.it_observations(it_comparison(0.99, 0.5))
    assert "1 layer is ahead" in lines[0] or "about as well" in lines[0]
    assert "too close to call" in lines[2] and "0 of 3 seeds" in lines[2]
    assert "no head ever moved" in lines[1] and "float rounding" in lines[1]


def test_the_shipped_it_results_are_what_the_page_reads():
    c = multi_head_attention.load_it_results()
    assert set(c.variants) == {"1 layer", "2 layers"} and len(c.seeds) >= 3
    rows = multi_head_attention.it_rows(c)
    assert rows[0]["layer 2, best head: prefers the referent"] == "no such layer"
    assert c.meta["shipped_seed"] == multi_head_attention.shipped_resolver()[1]["info"]["seed"]
    assert c.meta["shipped_seed"] == multi_head_attention.median_seed(c, 2)
