"""Section 2: the alignment heatmap and the step figures draw the decoding's α, and the note under the heatmap follows
where the most-attended source token moves."""

import dataclasses

import numpy as np

from lessons.bahdanau_attention import alignment, step_by_step
from lessons.common import charts


def test_figures_show_the_decodings_alpha(pizza):
    heatmap = alignment.alignment_figure(pizza, "α")
    np.testing.assert_array_equal(heatmap.data[0].z, pizza.weights)
    assert list(heatmap.layout.xaxis.ticktext) == [charts.safe_label(t) for t in pizza.source]  # escaped: "&lt;/s&gt;"
    assert list(heatmap.layout.yaxis.ticktext) == [charts.safe_label(t) for t in pizza.target]
    alpha, context = step_by_step.step_figures(pizza, 2)
    np.testing.assert_array_equal(alpha.data[0].x, pizza.weights[1])  # horizontal bars: one per source token
    assert len(alpha.data[0].y) == len(pizza.source)
    np.testing.assert_allclose(np.asarray(context.data[0].z).ravel(), pizza.contexts[1], atol=1e-6)
    assert alpha.layout.title.text == "α at step 2 over the source"
    assert context.layout.title.text == f"context vector c_2 (D = {pizza.contexts.shape[1]})"


def test_alignment_note_counts_the_steps_where_attention_moves_back(pizza):
    assert "left to right (or stays) at every step" in alignment.alignment_note(pizza)
    path = pizza.weights.argmax(axis=1)
    assert (np.diff(path) >= 0).all()  # the note above is what the α's show
    reordered = pizza.weights[:, ::-1].copy()  # the same rows, the source read right to left: it moves back
    note = alignment.alignment_note(dataclasses.replace(pizza, weights=reordered))
    back = int((np.diff(reordered.argmax(axis=1)) < 0).sum())
    assert back > 0 and f"moves back {back} time" in note and "word-order change" in note
