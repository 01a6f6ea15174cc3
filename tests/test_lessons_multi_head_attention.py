"""The multi-head lesson's numbers: the split by hand against the modules, shapes, head statistics, the trained
model's maps, the shipped comparison and the exercises."""

import dataclasses
import json

import numpy as np
import pytest
import torch
from torch import nn

from lessons import multi_head_attention as multihead
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
    hb = multihead.heads_by_hand(ours, X)
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
    hb = multihead.heads_by_hand(ours, X)
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
    ex = multihead.split_example(("Thinking", "Machines"), 512, 8, seed=3)
    assert all(v < 1e-5 for v in ex.differences.values()), ex.differences
    assert ex.parameters == {"W^Q": 512 * 512 + 512, "W^K": 512 * 512 + 512, "W^V": 512 * 512 + 512,
                             "W^O": 512 * 512 + 512}  # fmt: skip
    rows = multihead.shape_rows(ex)
    shapes = [r["shape"] for r in rows]
    assert shapes[0] == "2 × 512"
    assert shapes[1].startswith("8 × (2 × 64)")
    assert shapes[2].startswith("8 × 2 × 2")
    assert shapes[4].startswith("2 × 512 (h · d_k = 8 · 64)")
    assert sum(r["learned numbers"] for r in rows) == 4 * (512 * 512 + 512)
    other = multihead.split_example(("Thinking", "Machines"), 512, 8, seed=4)
    assert not torch.equal(ex.heads.weights, other.heads.weights)


def test_the_number_of_heads_does_not_change_the_parameters():
    counts = {h: multihead.projection_parameters(64, h) for h in multihead.head_choices(64)}
    assert set(counts.values()) == {4 * (64 * 64 + 64)}
    task = get_task(multihead.RESULT_TASK)
    models = [multihead.new_model(task, h, seed=0) for h in multihead.RESULT_HEADS]
    assert len({multihead.parameter_count(m) for m in models}) == 1
    assert [m.config.n_heads for m in models] == list(multihead.RESULT_HEADS)


def test_refused_splits_and_empty_input():
    assert multihead.head_choices(8) == (1, 2, 4, 8)
    assert 16 in multihead.head_choices(512)
    assert multihead.check_split(8, 16) and "whole" in multihead.check_split(8, 16)
    assert multihead.check_split(100, 4)
    assert multihead.check_split(64, 8) is None
    with pytest.raises(ValueError, match="whole"):
        multihead.split_example(("a",), 8, 16)
    with pytest.raises(ValueError):
        multihead.split_example((), 64, 8)
    assert multihead.parse("").error
    assert multihead.parse("w " * (multihead.MAX_TOKENS + 1)).error
    assert multihead.parse("<b>hi</b> 🙂").tokens == ("<b>hi</b>", "🙂")


def test_split_figures_mark_every_head():
    ex = multihead.split_example(("I", "like", "pizza"), 32, 4)
    fig = multihead.projection_figure(ex)
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
    grid = multihead.split_grid(ex)
    assert len(grid.data) == 4
    np.testing.assert_allclose(grid.data[1].z, ex.heads.weights[1].numpy())
    concat = multihead.concat_figure(ex)
    assert [t.type for t in concat.data] == ["heatmap", "heatmap", "scatter"]
    assert [y for y in concat.data[2].y if y is not None] == [0.5, 3.5] * 3  # only Concat(Zᵢ): after W^O the
    # columns belong to no head


def test_head_grid_escapes_tokens_and_draws_one_map_per_head():
    weights = np.full((3, 2, 2), 0.5)
    rows = [
        multihead.GridRow("encoder layer 1 · self-attention", weights, ["<b>x</b>", "y"], ["<b>x</b>", "y"]),
        multihead.GridRow("one head", weights[:1], ["a", "b"], ["c", "d"]),
    ]
    fig = multihead.head_grid(rows, title="<i>t</i>")
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
    np.testing.assert_allclose(multihead.entropy_bits(np.full(4, 0.25)), 2.0)
    np.testing.assert_allclose(multihead.entropy_bits(np.eye(3)), [0.0, 0.0, 0.0], atol=1e-9)
    eye, shifted = np.eye(3), np.roll(np.eye(3), 1, axis=1)
    assert multihead.head_distance(np.stack([eye, eye])) == 0.0
    assert multihead.head_distance(np.stack([eye, shifted])) == pytest.approx(1.0)
    assert multihead.head_distance(np.stack([eye, eye, shifted])) == pytest.approx(2 / 3)
    assert multihead.head_distance(eye[None]) == 0.0


def synthetic_reading() -> multihead.Reading:
    S, T = 4, 3
    source, target = ["a", "b", "c", "</s>"], ["x", "y", "</s>"]
    previous = np.eye(S, k=-1)
    previous[0, 0] = 1.0
    maps = {
        "encoder.0.self": np.stack([np.eye(S), previous]),
        "decoder.0.self": np.stack([np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]] * 2),
        "decoder.0.cross": np.stack([np.eye(T, S, k=1), np.tile(np.eye(S)[-1], (T, 1))]),
    }
    return multihead.Reading(Translation("x y", source, target, {}), maps)


def test_head_rows_say_where_each_head_looks():
    reading = synthetic_reading()
    encoder = multihead.head_rows(reading, "encoder.0.self")
    assert encoder[0]["most rows look at"] == "itself (4 of 4)"
    assert encoder[0]["entropy (bits)"] == 0.0 and encoder[0]["mean largest α"] == 1.0
    assert encoder[1]["most rows look at"] == "the previous token (3 of 4)"
    cross = multihead.head_rows(reading, "decoder.0.cross")
    assert cross[0]["most rows look at"] == "a source word (2 of 3)"
    assert cross[1]["most rows look at"] == "</s> (3 of 3)" and cross[1]["most-read token"] == "</s>"
    assert multihead.axes(reading, "decoder.0.self")[0] == ["<s>", "x", "y"]
    notes = multihead.specialisation_notes(reading, {"decoder.0.cross": [0.9, 0.2, 0.55]})
    assert "most in **encoder layer 1 · self-attention** (distance 0.75)" in notes[0]
    assert "least in **decoder layer 1 · masked self-attention** (0.00)" in notes[0]
    assert "20%–90%" in notes[1] and "head 1 best, head 2 worst" in notes[1]
    alike = multihead.specialisation_notes(reading, {"decoder.0.cross": [0.9, 0.88, 0.89]})
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
    assert multihead.sublayers(names) == [
        "encoder.0.self", "encoder.1.self", "decoder.0.self", "decoder.0.cross", "decoder.1.self", "decoder.1.cross",
    ]  # fmt: skip
    assert multihead.sublayers(names, "cross") == ["decoder.0.cross", "decoder.1.cross"]
    assert multihead.sublayers(names, "decoder") == ["decoder.0.self", "decoder.1.self"]
    assert multihead.sublayer_label("decoder.1.self") == "decoder layer 2 · masked self-attention"
    with pytest.raises(ValueError):
        multihead.sublayers(names, "bogus")


@pytest.fixture(scope="module")
def shipped():
    model, _ = load_pretrained(multihead.RESULT_TASK, multihead.MODEL)
    return model, get_task(multihead.RESULT_TASK)


def test_a_trained_model_reads_a_typed_sentence_with_every_head(shipped):
    model, task = shipped
    reading = multihead.read_sentence(model, task, multihead.default_text(multihead.RESULT_TASK))
    S, T, h = len(reading.source), len(reading.target), model.config.n_heads
    assert reading.translation.text == "Jane visite l'Afrique en septembre"
    assert {name: m.shape for name, m in reading.maps.items()} == {
        **{f"encoder.{i}.self": (h, S, S) for i in range(2)},
        **{f"decoder.{i}.self": (h, T, T) for i in range(2)},
        **{f"decoder.{i}.cross": (h, T, S) for i in range(2)},
    }
    np.testing.assert_allclose(reading.maps["decoder.1.cross"].sum(-1), 1.0, atol=1e-5)
    assert np.triu(reading.maps["decoder.0.self"][0], k=1).max() == 0.0  # never the future
    rows = multihead.grid_rows(reading, multihead.sublayers(list(reading.maps)))
    assert len(multihead.head_grid(rows).data) == 6 * h
    assert isinstance(multihead.read_sentence(model, task, "   "), str)
    odd = multihead.read_sentence(model, task, "<script>x</script> 🙂 שלום")
    assert not isinstance(odd, str) and odd.translation.message


def test_head_alignment_is_per_head_then_their_mean(shipped):
    model, task = shipped
    per_head = multihead.head_alignment(model, task)
    assert list(per_head) == ["decoder.0.cross", "decoder.1.cross"]
    assert all(len(v) == model.config.n_heads + 1 and all(0 <= a <= 1 for a in v) for v in per_head.values())
    reference = alignment_accuracy(model, task, "test")
    assert per_head["decoder.1.cross"][-1] == reference["accuracy"]
    assert per_head["decoder.0.cross"][2] == reference["maps"]["decoder.0.cross.h2"]


def fake_results(tmp_path, test_exact=(0.9, 0.95, 0.97, 0.93), worst=(0.9, 0.8, 0.7, 0.6)):
    runs = []
    for heads, test, low in zip(multihead.RESULT_HEADS, test_exact, worst, strict=True):
        for seed in (0, 1):
            curve = [{"step": s, "seconds": s / 10, "loss": 1 / s, "exact_match": min(1.0, s / (100 * heads))}
                     for s in (25, 50, 100, 200, 400, 800)]  # fmt: skip
            run = multihead.HeadRun(heads, seed, 800, 80.0 + heads, 60.0, curve[-1]["exact_match"], test, 0.9,
                                    [0.9] * (heads - 1) + [low], 1000, curve)  # fmt: skip
            runs.append(dataclasses.asdict(run))
    probe = {str(h): {"seed": 0, "step": 800, "source": ["a", "</s>"], "target": ["x", "</s>"],
                      "maps": {"decoder.1.cross": np.full((h, 2, 2), 0.5).tolist()}}
             for h in multihead.RESULT_HEADS}  # fmt: skip
    path = tmp_path / "multi_head_attention.json"
    path.write_text(json.dumps({"seeds": [0, 1], "runs": runs, "probe": probe}), encoding="utf-8")
    return multihead.load_results(path)


def test_results_table_and_observations(tmp_path):
    results = fake_results(tmp_path)
    rows = multihead.results_rows(results)
    assert [r["heads h"] for r in rows] == [1, 2, 4, 8]
    assert [r["d_k"] for r in rows] == [64, 32, 16, 8]
    assert [r["steps to 90%"] for r in rows] == ["100", "200", "400", "800"]
    assert rows[3]["steps to 95%"] == "800" and rows[2]["test exact"] == "97.0%"
    lines = multihead.observations(results)
    assert "**h = 1** (100, median)" in lines[0] and "most: h = 8 (800)" in lines[0]
    assert "90.0% to 97.0%." in lines[1]
    assert "h = 1: 90%, h = 2: 80%, h = 4: 70%, h = 8: 60%" in lines[2]
    assert "h = 1: 75 ms" in lines[3]  # CPU seconds (60) over 800 steps
    same = multihead.observations(fake_results(tmp_path, test_exact=(0.95,) * 4))
    assert "hardly matters" in same[1]
    assert rows[0]["CPU s"] == 60.0 and rows[0]["alignment, worst head"] == "90.0%"
    assert "exactly 1,000 parameters" in lines[-1]
    grid_rows = multihead.probe_rows(results, 4)
    assert grid_rows[0].weights.shape == (4, 2, 2)
    loss, accuracy = multihead.curves_chart(results.runs)
    assert len(accuracy.data) == 4 * 2 * 6


def test_results_that_are_missing_or_empty_name_the_script(tmp_path):
    with pytest.raises(FileNotFoundError, match="multi_head_attention_results.py"):
        multihead.load_results(tmp_path / "missing.json")
    (tmp_path / "empty.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="multi_head_attention_results.py"):
        multihead.load_results(tmp_path / "empty.json")


def test_shipped_results_when_present():
    if not multihead.RESULTS.exists():
        pytest.skip("assets/results/multi_head_attention.json not measured yet")
    results = multihead.load_results()
    assert sorted(results.runs) == list(multihead.RESULT_HEADS)
    assert len({runs[0].parameters for runs in results.runs.values()}) == 1
    assert len({r.steps for runs in results.runs.values() for r in runs}) == 1  # the same budget for all
    assert sorted(results.probe) == list(multihead.RESULT_HEADS)


def test_exercises_are_computed(tmp_path):
    ex1, ex2, ex3 = multihead.exercises()
    assert ex1.answer == 64 and ex1.check(64).correct and not ex1.check(8).correct
    assert ex2.answer == 4 * (512 * 512 + 512)
    assert ex3.choices[ex3.answer] == "the same number"
    four = multihead.exercises(fake_results(tmp_path))
    assert four[3].choices[four[3].answer] == "h = 8"
    tie = multihead.exercises(fake_results(tmp_path, worst=(0.9, 0.6, 0.7, 0.6)))
    assert len(tie) == 3  # no single answer: no question


def test_live_training_reports_every_cross_head():
    model, _ = multihead.new_training(2, seed=0, budget_seconds=1.0)
    assert model.config.n_heads == 2 and model.config.d_model == multihead.RESULT_D_MODEL
    maps = {"decoder.0.cross": np.full((2, 3, 4), 0.25), "decoder.0.self": np.zeros((2, 3, 3)),
            "decoder.1.cross": np.full((2, 3, 4), 0.25)}  # fmt: skip
    snapshot = Progress(25, 1.0, 1.0, 0.0, None, None, maps, list("abc") + ["</s>"], ["x", "y", "</s>"], "x")
    rows = multihead.snapshot_rows(snapshot)
    assert [r.title for r in rows] == ["decoder layer 1 · cross-attention", "decoder layer 2 · cross-attention"]
