"""Section 1: the student's sentence, the cells stepped against PyTorch's fused layers, the figure and its captions."""

import numpy as np
import pytest
import torch
from torch import nn

from lessons import rnn_cells
from lessons.common import export
from lessons.common.sentences import word_embedding
from lessons.rnn_cells import kinds, seeded_cells, step_through, vanishing_gradient

TOKENS = step_through.parse_sentence(step_through.DEFAULT_SENTENCE).tokens


def test_the_lecture_sentence_splits_into_words_and_punctuation():
    assert TOKENS == ("The", "cat", ",", "which", "already", "ate", "…", ",", "was", "full", ".")
    assert step_through.tokenize("didn't Voulez-vous ... !!") == ("didn't", "Voulez-vous", "...", "!!")
    assert step_through.parse_sentence("Jane visite l'Afrique en septembre").error is None
    assert step_through.parse_sentence("שלום עולם café").tokens == ("שלום", "עולם", "café")


TOO_LONG = " ".join(["w"] * (step_through.MAX_TOKENS + 1))


@pytest.mark.parametrize("bad", ["", "   \n\t", TOO_LONG, "x" * 41, "I 🙂 pizza", "<b>bold</b>", "a\x00b", None])
def test_bad_input_is_refused_with_a_message_that_does_not_echo_it(bad):
    parsed = step_through.parse_sentence(bad)
    assert parsed.tokens == () and parsed.error
    assert "<b>" not in parsed.error and "🙂" not in parsed.error


def test_refusal_names_the_character():
    assert "Less-Than Sign" in step_through.parse_sentence("<script>alert(1)</script>").error
    assert "U+1F642" in step_through.parse_sentence("hi 🙂").error
    assert (
        step_through.parse_sentence(" ".join(["w"] * step_through.MAX_TOKENS)).error is None
    )  # the cap itself is fine


def test_embedding_is_the_qkv_lessons_word_vector():
    X = step_through.embed(("the", "cat", "The"))
    assert X.shape == (3, seeded_cells.INPUT_SIZE)
    torch.testing.assert_close(X[1], word_embedding("cat", seeded_cells.INPUT_SIZE))
    torch.testing.assert_close(X[0], X[2])  # case-insensitive, like the Q/K/V lesson


def _torch_layer(kind: str, cell: nn.Module) -> nn.RNNBase:
    layer = {"RNN": nn.RNN, "GRU": nn.GRU, "LSTM": nn.LSTM}[kind](cell.input_size, cell.hidden_size)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(layer, f"{name}_l0").copy_(getattr(cell, name))
    return layer


@pytest.mark.parametrize("kind", list(seeded_cells.CELLS))
def test_stepping_token_by_token_matches_pytorchs_fused_layer(kind):
    cell = seeded_cells.make_cell(kind, 6, seed=1)
    X = step_through.embed(TOKENS)
    panels = step_through.run_cell(cell, X)
    with torch.no_grad():
        out, _ = _torch_layer(kind, cell)(X)  # (T, H): every a⟨t⟩ at once
    torch.testing.assert_close(panels["hidden"], out.T, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("kind", list(seeded_cells.CELLS))
def test_a_prefix_of_the_sentence_gives_the_first_columns(kind):
    full = step_through.trace_sentence(kind, TOKENS, hidden_size=5, seed=2)
    part = step_through.trace_sentence(kind, TOKENS[:4], hidden_size=5, seed=2)
    for name, values in part.panels.items():
        torch.testing.assert_close(values, full.panels[name][:, :4])


@pytest.mark.parametrize("kind", list(seeded_cells.CELLS))
def test_every_panel_is_hidden_by_time_with_gates_in_zero_one(kind):
    H = 7
    trace = step_through.trace_sentence(kind, TOKENS, hidden_size=H, seed=0)
    assert set(trace.panels) == {name for name, _, _ in step_through.PANELS[kind]}
    for name, _, is_gate in step_through.PANELS[kind]:
        values = trace.panels[name]
        assert values.shape == (H, len(TOKENS))
        if is_gate:
            assert values.min() > 0 and values.max() < 1
        elif name != "memory":  # tanh outputs; the LSTM's c⟨t⟩ may leave [−1, 1]
            assert values.abs().max() < 1


def test_gru_memory_follows_its_update_gate():
    tr = step_through.trace_sentence("GRU", TOKENS, hidden_size=4, seed=0)
    u, c_tilde, c = tr.panels["update"], tr.panels["candidate"], tr.panels["hidden"]
    c_prev = torch.cat([torch.zeros(4, 1), c[:, :-1]], dim=1)
    torch.testing.assert_close(c, vanishing_gradient.gru_blend(u, c_tilde, c_prev))


def test_step_summary_reads_the_gates_at_that_step():
    tr = step_through.trace_sentence("GRU", TOKENS, hidden_size=8, seed=0)
    mean = float(tr.panels["update"][:, 2].mean())
    assert f"{mean:.2f}" in step_through.step_summary(tr, 3)
    lstm = step_through.trace_sentence("LSTM", TOKENS, hidden_size=8, seed=0)
    assert f"{float(lstm.panels['forget'][:, 0].mean()):.2f}" in step_through.step_summary(lstm, 1)
    assert "no gate" in step_through.step_summary(step_through.trace_sentence("RNN", TOKENS, 8, 0), 5)


@pytest.mark.parametrize("kind", list(seeded_cells.CELLS))
@pytest.mark.parametrize("hidden_size", [2, 4, 8, 16, 32])
def test_cell_figure_builds_for_every_cell_and_hidden_size(kind, hidden_size):
    tr = step_through.trace_sentence(kind, TOKENS, hidden_size=hidden_size, seed=0)
    for step in (1, len(TOKENS)):
        fig = step_through.cell_figure(tr, step)  # Plotly validates the layout
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
    tr = step_through.trace_sentence("LSTM", ("<b>cat</b>",) + TOKENS[1:], hidden_size=8, seed=0)
    fig = step_through.cell_figure(tr, step=3)
    assert [d.type for d in fig.data] == ["heatmap"] * len(step_through.PANELS["LSTM"]) + ["scatter"]
    outline = fig.data[-1]  # the column of step 3 (x = 2) outlined in each panel
    assert {x for x in outline.x if x is not None} == {1.5, 2.5} and outline.yaxis == "y2"
    assert sum(x is None for x in outline.x) == len(step_through.PANELS["LSTM"])
    for d in fig.data[:-1]:
        z = np.asarray(d.z, dtype=float)
        assert z.shape == (8, len(TOKENS))
        assert not np.isnan(z[:, :3]).any() and np.isnan(z[:, 3:]).all()
    assert "&lt;b&gt;cat" in fig.layout.xaxis.ticktext[0]  # typed markup is escaped, never rendered
    assert "step 3 of 11" in fig.layout.title.text
    with pytest.raises(ValueError):
        step_through.cell_figure(tr, step=len(TOKENS) + 1)


def test_moved_step_stays_between_the_first_and_the_last_token():
    assert step_through.moved_step(3, 1, 5) == 4
    assert step_through.moved_step(3, -1, 5) == 2
    assert step_through.moved_step(1, -1, 5) == 1  # ◀ back at the first token stays there
    assert step_through.moved_step(5, 1, 5) == 5  # next ▶ at the last token stays there


def test_the_captions_describe_what_the_page_draws():
    assert "torch.nn.GRUCell" in rnn_cells.EQUATION_NOTES and "typos fixed" in rnn_cells.EQUATION_NOTES
    assert "Grey columns are tokens not read yet" in step_through.CELL_FIGURE_CAPTION
    assert "encoder–decoder" in kinds.KINDS_CAPTION and "encoder–decoder" in kinds.kinds_markdown()
