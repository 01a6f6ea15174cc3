"""Section 6: teacher forcing in training, then greedy decoding and beam search at inference.

The lecture's last slide: the model is trained to give P(next word | the words before and the source), and "beam
search is used to generate meaningful sentences". One teacher-forced pass of the task's probe example
(:func:`teacher_forcing`: the gold previous token fed at every position), then beam search on the student's
sentence, its tree of kept partial outputs drawn and compared with greedy decoding (:func:`beam_view`).

Letters: T decoded positions, V the target vocabulary, k the beam width.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch
from torch import nn

from lessons.common.charts import figure, safe_label
from lessons.transformer.reading import display_token
from minimodels.decode import BeamResult, translate
from minimodels.tasks import Task
from minimodels.tasks.core import make_batch

TITLE = "6 · Teacher forcing, then beam search"
TEXT = (
    "The lecture's last slide: the model is trained to give P(next word | the words before and the source), and "
    "“beam search is used to generate meaningful sentences”. In training the decoder is **teacher forced**: at "
    "every position it is fed the *correct* previous token, whatever it would have written, so all positions are "
    "trained in one pass. At inference there is no correct token to feed: the model feeds back its own. Greedy "
    "decoding keeps the single likeliest token at each step; **beam search** keeps the *k* likeliest partial "
    "outputs by log p(output so far | source), extends each by every token, and keeps the best *k* again."
)


@dataclass(frozen=True)
class TeacherForcing:
    """One training example as training sees it: the gold previous token fed at every position."""

    source: str
    target: str
    rows: list[dict]  # one per position: fed, the gold next token, the model's best guess, p(gold)


@torch.inference_mode()
def teacher_forcing(model: nn.Module, task: Task, example=None) -> TeacherForcing:
    """``example`` (default: the task's probe) through one teacher-forced pass: what the decoder is fed at each
    position (``<s>``, then the *gold* tokens, whatever the model would have written) and what it predicts."""

    example = example or task.probe or task.valid[0]
    batch = make_batch([example], task).to(next(model.parameters()).device)
    probs = model(batch.source, batch.source_lengths, batch.target_in).logits[0].softmax(-1)  # (T, V)
    piece = task.target_tokenizer.id_to_piece
    rows = []
    for t, (fed, gold) in enumerate(zip(batch.target_in[0].tolist(), batch.target_out[0].tolist(), strict=True)):
        best = int(probs[t].argmax())
        rows.append(
            {
                "position": t + 1,
                "fed (gold)": display_token(piece(fed)),
                "should write": display_token(piece(gold)),
                "model's best guess": display_token(piece(best)),
                "p(gold)": round(float(probs[t, gold]), 4),
            }
        )
    return TeacherForcing(example.source, example.target, rows)


def teacher_forcing_text(forced: TeacherForcing) -> str:
    """Above the teacher-forcing table: which example, and how many of its positions the model gets right when fed
    the gold prefix (computed)."""
    right = sum(r["model's best guess"] == r["should write"] for r in forced.rows)
    return (
        f"The training example *{forced.source}* → *{forced.target}*, one teacher-forced pass of the model: row t is "
        f"fed the gold token before it. Its best guess is the gold token at {right} of {len(forced.rows)} positions; "
        "the loss trained is −log p(gold) summed over the rows."
    )


MAX_BEAM = 8


@dataclass(frozen=True)
class BeamView:
    """Beam search on the student's sentence: the tree it kept, and its hypotheses best first."""

    width: int
    result: BeamResult
    pieces: dict[int, str]  # node id -> its token as a label
    texts: list[str]  # each hypothesis decoded


@torch.inference_mode()
def beam_view(model: nn.Module, task: Task, text: str, width: int) -> BeamView | str:
    """Beam search of ``width`` on ``text`` (``minimodels.decode.beam_search``); a message when there is no text."""
    if not 1 <= int(width) <= MAX_BEAM:
        return f"Pick a beam width from 1 to {MAX_BEAM}."
    result = translate(model, task, text, method="beam", width=int(width))
    if result.beam is None:
        return result.message or "Type a sentence first."
    piece = task.target_tokenizer.id_to_piece
    pieces = {n.id: display_token(piece(n.token)) for n in result.beam.nodes}  # the root's is <s>
    texts = [task.target_tokenizer.decode(h.tokens) for h in result.beam.hypotheses]
    return BeamView(int(width), result.beam, pieces, texts)


def beam_rows(view: BeamView) -> list[dict]:
    """The final hypotheses, best first: output, log-probability, probability, whether it ended with </s>."""
    return [
        {
            "rank": i + 1,
            "output": text,
            "log p": round(h.log_prob, 4),
            "p": round(float(np.exp(h.log_prob)), 4),
            "ended with </s>": h.finished,
        }
        for i, (h, text) in enumerate(zip(view.result.hypotheses, view.texts, strict=True))
    ]


def beam_figure(view: BeamView, height: int = 380) -> go.Figure:
    """Every partial output the beam kept, step by step: x the step, y its score log p(prefix | source), each
    labelled with the token it added and joined to the one it extends, from ``<s>`` at step 0; the best
    hypothesis's path in red, outputs that ended with </s> as squares."""
    nodes = view.result.nodes
    best = {0} | {n.id for n in view.result.path(view.result.best.node)}  # the root (<s>, score 0) starts every path
    edge_x, edge_y = [], []
    for n in nodes[1:]:
        parent = nodes[n.parent]
        edge_x += [parent.step + 1, n.step + 1, None]
        edge_y += [parent.log_prob, n.log_prob, None]
    data = [
        {
            "type": "scatter",
            "x": edge_x,
            "y": edge_y,
            "mode": "lines",
            "line": {"color": "#bbbbbb", "width": 1},
            "hoverinfo": "skip",
            "showlegend": False,
        }
    ]
    for name, keep, color in (("kept in the beam", False, "#4c78a8"), ("the best output's path", True, "#e45756")):
        chosen = [n for n in nodes if (n.id in best) == keep]
        data.append(
            {
                "type": "scatter",
                "x": [n.step + 1 for n in chosen],
                "y": [n.log_prob for n in chosen],
                "mode": "markers+text",
                "text": [safe_label(view.pieces[n.id], 8) for n in chosen],
                "textposition": "middle right",
                "name": name,
                "marker": {"size": 9, "color": color, "symbol": ["square" if n.finished else "circle" for n in chosen]},
                "customdata": [round(n.log_prob, 4) for n in chosen],
                "hovertemplate": "step %{x}: %{text}, log p = %{customdata}<extra></extra>",
            }
        )
    layout = {
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
        "title": {"text": f"Beam search, width {view.width}: every partial output kept"},
        "xaxis": {
            "title": {"text": "decoder step"},
            "dtick": 1,  # room on the right for the last step's labels
            "range": [-0.3, max(n.step for n in nodes) + 1.9],
        },
        "yaxis": {"title": {"text": "log p(output so far | source)"}},
        "legend": {"orientation": "h", "y": -0.2},
        "plot_bgcolor": "white",
    }
    return figure(data, layout)


def beam_text(view: BeamView, greedy_text: str) -> str:
    """What the search found against greedy decoding, computed (the two agree at width 1)."""
    best = view.result.best
    same = view.texts[0] == greedy_text
    kept = len(view.result.nodes) - 1
    return (
        f"Width {view.width} kept {kept} partial outputs over {max(n.step for n in view.result.nodes) + 1} steps. "
        f"Its best output, *{view.texts[0] or '(nothing)'}*, has log p = {best.log_prob:.3f} "
        f"(p = {np.exp(best.log_prob):.3f}); it is {'the same as' if same else '**not** the same as'} the greedy "
        f"output *{greedy_text or '(nothing)'}* of section 1."
    )
