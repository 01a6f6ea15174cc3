"""The RNN-cells lesson's numbers: stepping against PyTorch's fused layers, gates, the vanishing gradient."""

import math

import altair as alt
import numpy as np
import pytest
import torch
from torch import nn

from lessons import queries_keys_values as qkv
from lessons import rnn_cells
from lessons.common import export

TOKENS = rnn_cells.parse_sentence(rnn_cells.DEFAULT_SENTENCE).tokens


# --- the sentence --------------------------------------------------------------------------------------------


def test_the_lecture_sentence_splits_into_words_and_punctuation():
    assert TOKENS == ("The", "cat", ",", "which", "already", "ate", "…", ",", "was", "full", ".")
    assert rnn_cells.tokenize("didn't Voulez-vous ... !!") == ("didn't", "Voulez-vous", "...", "!!")
    assert rnn_cells.parse_sentence("Jane visite l'Afrique en septembre").error is None
    assert rnn_cells.parse_sentence("שלום עולם café").tokens == ("שלום", "עולם", "café")


TOO_LONG = " ".join(["w"] * (rnn_cells.MAX_TOKENS + 1))


@pytest.mark.parametrize("bad", ["", "   \n\t", TOO_LONG, "x" * 41, "I 🙂 pizza", "<b>bold</b>", "a\x00b", None])
def test_bad_input_is_refused_with_a_message_that_does_not_echo_it(bad):
    parsed = rnn_cells.parse_sentence(bad)
    assert parsed.tokens == () and parsed.error
    assert "<b>" not in parsed.error and "🙂" not in parsed.error


def test_refusal_names_the_character():
    assert "Less-Than Sign" in rnn_cells.parse_sentence("<script>alert(1)</script>").error
    assert "U+1F642" in rnn_cells.parse_sentence("hi 🙂").error
    assert rnn_cells.parse_sentence(" ".join(["w"] * rnn_cells.MAX_TOKENS)).error is None  # the cap itself is fine


def test_embedding_is_the_qkv_lessons_word_vector():
    X = rnn_cells.embed(("the", "cat", "The"))
    assert X.shape == (3, rnn_cells.INPUT_SIZE)
    torch.testing.assert_close(X[1], qkv.word_embedding("cat", rnn_cells.INPUT_SIZE))
    torch.testing.assert_close(X[0], X[2])  # case-insensitive, like the Q/K/V lesson


# --- the cells ---------------------------------------------------------------------------------------------


def test_make_cell_is_seeded_and_leaves_the_global_random_state_alone():
    before = torch.random.get_rng_state()
    a = rnn_cells.make_cell("LSTM", 8, seed=3)
    assert torch.equal(torch.random.get_rng_state(), before)
    b = rnn_cells.make_cell("LSTM", 8, seed=3)
    c = rnn_cells.make_cell("LSTM", 8, seed=4)
    assert torch.equal(a.weight_hh, b.weight_hh) and not torch.equal(a.weight_hh, c.weight_hh)
    assert a.weight_hh.abs().max() <= 1 / math.sqrt(8)  # PyTorch's own initialisation range
    with pytest.raises(ValueError, match="unknown cell"):
        rnn_cells.make_cell("Transformer", 8, seed=0)


def test_gate_bias_shifts_only_the_keep_gate_and_scale_the_recurrent_weights():
    H = 4
    plain = rnn_cells.make_cell("LSTM", H, seed=0)
    biased = rnn_cells.make_cell("LSTM", H, seed=0, gate_bias=2.0, recurrent_scale=3.0)
    shift = biased.bias_ih - plain.bias_ih
    torch.testing.assert_close(shift[H : 2 * H], torch.full((H,), 2.0))  # the forget gate, PyTorch's order i f g o
    assert shift[:H].abs().max() == 0 and shift[2 * H :].abs().max() == 0
    torch.testing.assert_close(biased.weight_hh, 3.0 * plain.weight_hh)


def _torch_layer(kind: str, cell: nn.Module) -> nn.RNNBase:
    layer = {"RNN": nn.RNN, "GRU": nn.GRU, "LSTM": nn.LSTM}[kind](cell.input_size, cell.hidden_size)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(layer, f"{name}_l0").copy_(getattr(cell, name))
    return layer


@pytest.mark.parametrize("kind", list(rnn_cells.CELLS))
def test_stepping_token_by_token_matches_pytorchs_fused_layer(kind):
    cell = rnn_cells.make_cell(kind, 6, seed=1)
    X = rnn_cells.embed(TOKENS)
    panels = rnn_cells.run_cell(cell, X)
    with torch.no_grad():
        out, _ = _torch_layer(kind, cell)(X)  # (T, H): every a⟨t⟩ at once
    torch.testing.assert_close(panels["hidden"], out.T, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("kind", list(rnn_cells.CELLS))
def test_a_prefix_of_the_sentence_gives_the_first_columns(kind):
    full = rnn_cells.trace_sentence(kind, TOKENS, hidden_size=5, seed=2)
    part = rnn_cells.trace_sentence(kind, TOKENS[:4], hidden_size=5, seed=2)
    for name, values in part.panels.items():
        torch.testing.assert_close(values, full.panels[name][:, :4])


@pytest.mark.parametrize("kind", list(rnn_cells.CELLS))
def test_every_panel_is_hidden_by_time_with_gates_in_zero_one(kind):
    H = 7
    trace = rnn_cells.trace_sentence(kind, TOKENS, hidden_size=H, seed=0)
    assert set(trace.panels) == {name for name, _, _ in rnn_cells.PANELS[kind]}
    for name, _, is_gate in rnn_cells.PANELS[kind]:
        values = trace.panels[name]
        assert values.shape == (H, len(TOKENS))
        if is_gate:
            assert values.min() > 0 and values.max() < 1
        elif name != "memory":  # tanh outputs; the LSTM's c⟨t⟩ may leave [−1, 1]
            assert values.abs().max() < 1


def test_gru_memory_follows_its_update_gate():
    tr = rnn_cells.trace_sentence("GRU", TOKENS, hidden_size=4, seed=0)
    u, c_tilde, c = tr.panels["update"], tr.panels["candidate"], tr.panels["hidden"]
    c_prev = torch.cat([torch.zeros(4, 1), c[:, :-1]], dim=1)
    torch.testing.assert_close(c, rnn_cells.gru_blend(u, c_tilde, c_prev))


def test_step_summary_reads_the_gates_at_that_step():
    tr = rnn_cells.trace_sentence("GRU", TOKENS, hidden_size=8, seed=0)
    mean = float(tr.panels["update"][:, 2].mean())
    assert f"{mean:.2f}" in rnn_cells.step_summary(tr, 3)
    lstm = rnn_cells.trace_sentence("LSTM", TOKENS, hidden_size=8, seed=0)
    assert f"{float(lstm.panels['forget'][:, 0].mean()):.2f}" in rnn_cells.step_summary(lstm, 1)
    assert "no gate" in rnn_cells.step_summary(rnn_cells.trace_sentence("RNN", TOKENS, 8, 0), 5)


@pytest.mark.parametrize("kind", list(rnn_cells.CELLS))
@pytest.mark.parametrize("hidden_size", [2, 4, 8, 16, 32])
def test_cell_figure_builds_for_every_cell_and_hidden_size(kind, hidden_size):
    tr = rnn_cells.trace_sentence(kind, TOKENS, hidden_size=hidden_size, seed=0)
    for step in (1, len(TOKENS)):
        fig = rnn_cells.cell_figure(tr, step)  # Plotly validates the layout
        heatmaps = [d for d in fig.data if d.type == "heatmap"]
        assert {(d.xaxis, d.yaxis) for d in heatmaps} == {(None, None)}  # one pair of axes: draws fast
        bottom, top = fig.layout.yaxis.range  # reversed: the first panel on top
        rows = [np.asarray(d.y, dtype=float) for d in heatmaps]
        assert all(len(r) == hidden_size and np.allclose(np.diff(r), 1) for r in rows)  # one row per unit, in order
        edges = [(r[0] - 0.5, r[-1] + 0.5) for r in rows]
        assert top <= edges[0][0] and edges[-1][1] <= bottom + 1e-9  # every panel inside the y range
        assert all(a[1] < b[0] for a, b in zip(edges, edges[1:], strict=False))  # a gap between panels
        labels = dict(zip(fig.layout.yaxis.tickvals, fig.layout.yaxis.ticktext, strict=True))
        assert all([labels[y] for y in r] == [str(u) for u in range(1, hidden_size + 1)] for r in rows)
        assert len(fig.layout.annotations) == len(heatmaps)  # each panel named
        drawn = dict(zip(fig.layout.yaxis2.tickvals, fig.layout.yaxis2.ticktext, strict=True))
        assert all(drawn[r[0]] == "1" and drawn[r[-1]] == str(hidden_size) for r in rows)  # first and last unit
        tables = export.heatmap_tables(fig)  # the downloaded numbers name every row by its unit
        assert all(table.rows == [str(u) for u in range(1, hidden_size + 1)] for table in tables)


def test_cell_figure_draws_one_heatmap_per_panel_and_blanks_the_future():
    tr = rnn_cells.trace_sentence("LSTM", ("<b>cat</b>",) + TOKENS[1:], hidden_size=8, seed=0)
    fig = rnn_cells.cell_figure(tr, step=3)
    assert [d.type for d in fig.data] == ["heatmap"] * len(rnn_cells.PANELS["LSTM"]) + ["scatter"]
    outline = fig.data[-1]  # the column of step 3 (x = 2) outlined in each panel
    assert {x for x in outline.x if x is not None} == {1.5, 2.5} and outline.yaxis == "y2"
    assert sum(x is None for x in outline.x) == len(rnn_cells.PANELS["LSTM"])
    for d in fig.data[:-1]:
        z = np.asarray(d.z, dtype=float)
        assert z.shape == (8, len(TOKENS))
        assert not np.isnan(z[:, :3]).any() and np.isnan(z[:, 3:]).all()
    assert "&lt;b&gt;cat" in fig.layout.xaxis.ticktext[0]  # typed markup is escaped, never rendered
    assert "step 3 of 11" in fig.layout.title.text
    with pytest.raises(ValueError):
        rnn_cells.cell_figure(tr, step=len(TOKENS) + 1)


# --- the vanishing gradient ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(rnn_cells.CELLS))
def test_jacobian_norms_match_autograds_full_jacobian(kind):
    cell = rnn_cells.make_cell(kind, 3, seed=5, dtype=torch.float64)
    x = torch.randn(6, rnn_cells.INPUT_SIZE, dtype=torch.float64, generator=torch.Generator().manual_seed(0))

    def last_state(x):
        state = rnn_cells.zero_state(kind, 1, 3, torch.float64)
        for t in range(x.shape[0]):
            state, _ = cell(x[t : t + 1], state)
        return (state[0] if kind == "LSTM" else state)[0]

    J = torch.autograd.functional.jacobian(last_state, x)  # (H, T, I)
    norms, keep = rnn_cells.jacobian_norms(cell, x)
    torch.testing.assert_close(norms[0], J.pow(2).sum(dim=(0, 2)).sqrt())
    assert math.isnan(keep[0]) if kind == "RNN" else 0 < keep[0] < 1


@pytest.mark.parametrize("kind", list(rnn_cells.CELLS))
def test_cells_side_by_side_give_each_cells_own_numbers(kind):
    seeds = (0, 3, 7)
    cells = [rnn_cells.make_cell(kind, 4, s, gate_bias=1.5, recurrent_scale=2.0, dtype=torch.float64) for s in seeds]
    xs = [rnn_cells.random_sequence(9, s) for s in seeds]
    norms, keep = rnn_cells.jacobian_norms(rnn_cells.side_by_side(cells), torch.cat(xs, dim=1), groups=len(seeds))
    assert norms.shape == (len(seeds), 9)
    for g, (cell, x) in enumerate(zip(cells, xs, strict=True)):
        alone, kept = rnn_cells.jacobian_norms(cell, x)
        torch.testing.assert_close(norms[g], alone[0], rtol=1e-12, atol=0)
        torch.testing.assert_close(keep[g], kept[0], rtol=1e-12, atol=0, equal_nan=True)
    assert not torch.allclose(norms[0], norms[1])  # three different cells, not one repeated


def test_the_experiment_averages_each_seeds_own_gradient():
    exp = rnn_cells.vanishing_experiment(length=12, gate_bias=1.0, seeds=(0, 1))
    for kind in rnn_cells.CELLS:
        runs = [rnn_cells.gradient_norms(kind, 12, s, gate_bias=1.0) for s in (0, 1)]
        np.testing.assert_allclose(exp.norms[kind], np.sqrt(runs[0][0] * runs[1][0]), rtol=1e-12)
        if kind != "RNN":
            assert exp.keep[kind] == pytest.approx((runs[0][1] + runs[1][1]) / 2, rel=1e-12)


def test_plain_rnn_gradient_vanishes_with_distance():
    exp = rnn_cells.vanishing_experiment(length=40, seeds=(0, 1))
    rnn = exp.norms["RNN"]
    assert rnn.shape == (40,)
    assert all(rnn[d] > rnn[d + 5] for d in range(0, 35, 5))
    assert rnn[39] < 1e-8 * rnn[0]


def test_keep_gates_near_one_let_the_gradient_through():
    shut = rnn_cells.vanishing_experiment(length=40, gate_bias=0.0, seeds=(0, 1))
    open_ = rnn_cells.vanishing_experiment(length=40, gate_bias=4.0, seeds=(0, 1))
    assert open_.keep["LSTM"] > 0.9 > 0.6 > shut.keep["LSTM"]
    assert open_.keep["GRU"] > 0.9 > 0.6 > shut.keep["GRU"]
    for kind in ("GRU", "LSTM"):
        assert open_.at(30)[kind] > 1e3 * shut.at(30)[kind]
        assert open_.at(30)[kind] > 1e3 * open_.at(30)["RNN"]
    torch.testing.assert_close(torch.tensor(open_.norms["RNN"]), torch.tensor(shut.norms["RNN"]))  # no gate to bias


def test_large_recurrent_weights_make_the_rnn_gradient_explode():
    exp = rnn_cells.vanishing_experiment(length=40, recurrent_scale=4.0, seeds=(0, 1))
    assert exp.norms["RNN"][30] > exp.norms["RNN"][0]
    assert "explodes" in rnn_cells.gradient_summary(exp)
    assert "explodes" not in rnn_cells.gradient_summary(rnn_cells.vanishing_experiment(length=40, seeds=(0, 1)))


def test_gradient_chart_draws_each_seed_and_the_mean_and_spread_of_the_logs():
    exp = rnn_cells.vanishing_experiment(length=20, seeds=(0, 1, 2))
    spec = rnn_cells.gradient_chart(exp)
    assert "T = 20" in spec["title"] and "3 seeds" in spec["title"]
    values = spec["data"]["values"]
    seeds = [v for v in values if v["kind"] == "seed"]
    assert len(seeds) == 3 * 3 * 20  # every cell, seed and distance, each a faint line
    for kind in rnn_cells.CELLS:  # the mean line is the log of the geometric mean the sentences quote
        means = sorted((v["x"], v["mean"], v["sd"]) for v in values if v["kind"] == "mean" and v["label"] == kind)
        np.testing.assert_allclose([m for _, m, _ in means], np.log10(exp.norms[kind]), rtol=1e-9)
        np.testing.assert_allclose([sd for _, _, sd in means], np.log10(exp.per_seed[kind]).std(axis=0, ddof=1),
                                   rtol=1e-9, atol=1e-12)  # fmt: skip
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["area", "line", "line"]  # band, seeds, mean
    alt.LayerChart.from_dict(spec)  # Altair validates it against the Vega-Lite schema
    one = rnn_cells.gradient_chart(rnn_cells.vanishing_experiment(length=10, seeds=(0,)))
    assert "mean ± sd" not in one["title"] and len(one["data"]["values"]) == 3 * 10  # one seed: one line, no band


# --- the kinds of RNN and the exercises ---------------------------------------------------------------------


def test_kinds_table_covers_the_lectures_examples():
    names = [k.name for k in rnn_cells.KINDS]
    assert names[rnn_cells.kind_of("named entity recognition")] == "many-to-many"
    assert names[rnn_cells.kind_of("sentiment")] == "many-to-one"
    assert names[rnn_cells.kind_of("music")] == "one-to-many"
    assert "encoder" in names[rnn_cells.kind_of("translation")]
    assert rnn_cells.kinds_markdown().count("\n") == len(rnn_cells.KINDS) + 1
    with pytest.raises(ValueError):
        rnn_cells.kind_of("many")


def test_exercise_answers_come_from_the_computation():
    from lessons.rnn_cells import standard_network

    demo = standard_network.sharing_demo(seeds=(0,), steps=60)
    by_key = {ex.key: ex for ex in rnn_cells.exercises(demo)}
    assert len(by_key) >= 3
    assert by_key["rnn_cells.ex1"].check(0.67).correct and not by_key["rnn_cells.ex1"].check(0.15).correct
    sigma3 = 1 / (1 + math.exp(-3))
    assert by_key["rnn_cells.ex2"].check(sigma3**40).correct and not by_key["rnn_cells.ex2"].check(3.0).correct
    assert "0.143" in by_key["rnn_cells.ex2"].explanation and "σ(1)" in by_key["rnn_cells.ex2"].explanation
    window = sum(p.numel() for p in torch.nn.Linear(25 * 4, 10).parameters())  # counted by torch, not typed
    assert by_key["rnn_cells.ex3"].check(window).correct and not by_key["rnn_cells.ex3"].check(4 * 10 + 10).correct
    assert str(window) in by_key["rnn_cells.ex3"].explanation
    ex4 = by_key["rnn_cells.ex4"]  # the prediction is graded against what the trained window network did
    assert ex4.check(demo.probe["window network"][0]).correct
    assert "(1 of 1 seeds)" in ex4.explanation
    assert by_key["rnn_cells.ex5"].check("many-to-many").correct
    assert not by_key["rnn_cells.ex5"].check("many-to-many, encoder–decoder").correct


def test_no_exercise_is_a_reading_of_the_page_or_a_bisection():
    for ex in rnn_cells.exercises(rnn_cells.standard_network.sharing_demo(seeds=(0,), steps=60)):
        assert ex.prompt.startswith(("Compute by hand", "Predict")) or ex.is_choice
        assert "chart" not in ex.hint and "Read" not in ex.hint  # the old "Read the curves at that distance"
        wrong = ex.check((ex.answer + 1) % len(ex.choices) if ex.is_choice else ex.answer * 3 + 7)
        assert not wrong.correct and "Worked answer" in wrong.message and "too" not in wrong.message.split(".")[0]


def test_exercise_3_is_not_the_size_the_page_counts():
    from lessons.rnn_cells import standard_network

    assert (rnn_cells.EXERCISE_SIZES["E"], rnn_cells.EXERCISE_SIZES["H"]) != (
        standard_network.EMBED,
        standard_network.HIDDEN,
    )


def test_moved_step_stays_between_the_first_and_the_last_token():
    assert rnn_cells.moved_step(3, 1, 5) == 4
    assert rnn_cells.moved_step(3, -1, 5) == 2
    assert rnn_cells.moved_step(1, -1, 5) == 1  # ◀ back at the first token stays there
    assert rnn_cells.moved_step(5, 1, 5) == 5  # next ▶ at the last token stays there


def test_the_captions_describe_what_the_page_draws():
    assert "torch.nn.GRUCell" in rnn_cells.EQUATION_NOTES and "typos fixed" in rnn_cells.EQUATION_NOTES
    assert "Grey columns are tokens not read yet" in rnn_cells.CELL_FIGURE_CAPTION
    assert "encoder–decoder" in rnn_cells.KINDS_CAPTION and "encoder–decoder" in rnn_cells.kinds_markdown()


def test_steps_in_a_row_follow_the_grid_of_layers_and_steps():
    from lessons.rnn_cells.sequential import steps_in_a_row

    assert [steps_in_a_row(t, 1) for t in (1, 5, 30)] == [1, 5, 30]  # one layer: T steps in a row
    assert steps_in_a_row(30, 2) == 31 and steps_in_a_row(5, 3) == 7  # a wavefront: T + L − 1
    assert steps_in_a_row(500, 2, recurrent=False) == 2  # self-attention: its layers, whatever T
    ex = next(e for e in rnn_cells.exercises() if e.key == "rnn_cells.ex6")
    assert ex.answer == steps_in_a_row(*rnn_cells.STEPS_EXERCISE.values()) and not ex.check(60).correct
