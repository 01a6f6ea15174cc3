"""What a run hands out: a :class:`Progress` snapshot at every report and a :class:`TrainResult` at the end.

A snapshot holds numpy arrays on the CPU, never tensors of the model, so a page may read it from another thread
while training goes on. It carries the attention of the task's fixed probe sentence (:class:`_Probe`), so a page
can redraw one heatmap while the model learns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from ..decode import greedy
from ..tasks import Task, make_batch
from ..tokenizers import EOS_ID


@dataclass
class Progress:
    """One report from :func:`train`. Everything is on the CPU (numpy), safe to hand to another thread."""

    step: int  # optimizer steps done
    seconds: float  # wall time since training started (evaluation included)
    loss: float  # mean training cross-entropy per target token since the previous report
    exact_match: float  # share of the held-out subset decoded (greedy) exactly right
    attention: np.ndarray | None  # the probe's main map (T, S): "cross", or the last decoder layer's head mean
    attention_name: str | None  # which map ``attention`` is; None for a model without attention
    attention_maps: dict[str, np.ndarray]  # every map of the probe, batch axis removed
    source_tokens: list[str]  # the probe's source labels (S of them, "</s>" last)
    target_tokens: list[str]  # the probe's target labels (T of them, "</s>" last): rows of the maps
    prediction: str  # the probe decoded greedily by the model as it is now

    def as_json(self) -> dict:
        """The scalar part, for a JSON line."""
        return {
            "step": self.step,
            "seconds": round(self.seconds, 3),
            "loss": round(self.loss, 5),
            "exact_match": round(self.exact_match, 4),
            "prediction": self.prediction,
        }


@dataclass
class TrainResult:
    """What :func:`train` returns once it stops (the model itself is trained in place)."""

    steps: int  # optimizer steps done
    seconds: float  # wall time of the whole run (evaluation included)
    loss: float  # training loss at the last report
    exact_match: float  # held-out subset exact match at the end
    stopped: str  # why it stopped: "target" | "max_steps" | "max_seconds" | "callback"
    device: str  # where it ran
    history: list[Progress] = field(default_factory=list, repr=False)  # every report
    evaluations: int = 0  # held-out evaluations made (one per report, plus the checks between reports)
    evaluation_seconds: float = 0.0  # wall time they took, included in ``seconds``


class _Probe:
    """The task's fixed probe sentence, ready to be fed through the model at every report."""

    def __init__(self, task: Task, device: torch.device):
        example = task.probe or task.valid[0]
        self.batch = make_batch([example], task).to(device)
        src, tgt = task.source_tokenizer, task.target_tokenizer
        self.source_tokens = [*src.pieces(example.source), src.id_to_piece(EOS_ID)]
        self.target_tokens = [*tgt.pieces(example.target), tgt.id_to_piece(EOS_ID)]
        self.target_tokenizer = tgt

    @torch.inference_mode()
    def look(self, model: nn.Module) -> tuple[dict[str, np.ndarray], str]:
        b = self.batch
        maps = model(b.source, b.source_lengths, b.target_in).attention
        decoded = greedy(model, b.source, b.source_lengths, max_len=2 * b.target_out.size(1))
        maps = {k: v[0].float().cpu().numpy() for k, v in maps.items()}
        return maps, self.target_tokenizer.decode(decoded.tokens[0].tolist())
