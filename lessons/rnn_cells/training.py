"""The training recipe of section 5 (:mod:`.agreement`): the lecture's agreement example as a task, trained live
and measured for the shipped comparison.

The Transformer lecture's "The cat, which already ate …, was full." asks a cell to carry the number of the
subject across a clause to choose the verb. Here that is a tiny synthetic task: a sequence starts with *cat*
or *cats*, then T distractor words follow, and the model must answer *was* or *were* from its last state.
A plain RNN, a GRU and an LSTM of the same size, from the same seed, see the same batches in turn; each report
holds each one's held-out accuracy and, for the gated cells, the keep gate of one fixed example over time,
computed by :mod:`minimodels.cells` from the trained weights. The shipped comparison is read back here too
(:func:`load_results`), with the chance level its sentences are measured against.

Letters: B batch, T distance (distractors between the subject and the verb), E embedding size, H hidden size.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from lessons.common.comparison import Comparison
from lessons.common.live import THREADS_PER_RUN, TrainingRun, check_budget
from lessons.common.runs import Run
from minimodels.adam import Adam
from minimodels.cells import GRUCell, LSTMCell

SUBJECTS = ("cat", "cats")  # class 0, class 1
VERBS = ("was", "were")  # what each subject needs
FILLERS = (
    "which",
    "already",
    "ate",
    "a",
    "the",
    "fish",
    "mouse",
    "mice",
    "and",
    "slept",
    "then",
    "very",
    "quickly",
    "yesterday",
)
VOCAB = SUBJECTS + FILLERS
KINDS = ("RNN", "GRU", "LSTM")
# The gate drawn for each gated cell: the fraction of the memory *kept* from one step to the next.
KEEP_GATE = {"GRU": ("update", "1 − Γ_u (kept)"), "LSTM": ("forget", "Γ_f (kept)")}

DISTANCES = (5, 10, 20, 40, 60, 80)  # the slider's values and the shipped chart's x
DEFAULT_DISTANCE = 20
EMBED = 8  # E
HIDDEN = 16  # H, the same for the three cells
BATCH = 32  # sequences per step, the same batch for the three cells
# Adam's learning rate, the same for every cell. At 0.03 (300 steps) the LSTM stayed at chance at T = 40 on seeds 0
# and 2 while the GRU solved it on all three: too large a step for our LSTM, not a limit of its gates; at 0.01 it
# solved T = 40 on 3 of 3 seeds, and at 0.003 (600 steps) every distance up to 80.
# Reproduce: scripts/rnn_cells_results.py --lr 0.03 --steps 300 --seeds 0 1 2 --distances 40 --out /tmp/lr.json
LR = 0.003
STEPS = 600  # at most, per cell
REPORT_EVERY = 25  # steps between held-out checks (and live redraws)
EVAL_SIZE = 256  # held-out sequences, drawn once from EVAL_SEED
EVAL_SEED = 12345
PROBE_SEED = 7  # the fixed example whose gates are drawn
TARGET = 0.99  # a cell stops once its held-out accuracy reaches this
# Initial bias of the keep gate (the LSTM's Γ_f, the GRU's 1 − Γ_u): σ(3) ≈ 0.95, so at the start the gated cells
# keep most of their memory. The usual recommendation (Jozefowicz et al., 2015) is a forget-gate bias of 1
# (σ(1) ≈ 0.73); the shipped comparison trains an LSTM with that bias too (:data:`STANDARD`), so the page shows what
# the larger bias buys instead of asserting it.
KEEP_BIAS = 3.0
STANDARD_BIAS = 1.0
STANDARD = "LSTM b=1"  # the shipped comparison's fourth variant: an LSTM whose forget-gate bias starts at 1
VARIANTS = KINDS + (STANDARD,)  # the shipped comparison's variants (the live panel trains the KINDS)
LABELS = {STANDARD: "LSTM, forget bias 1"}
CHANCE_SES = 3.0  # a cell is "at chance" while no seed beats chance by more than this many standard errors
LIVE_BUDGETS = (5, 10, 20, 30)  # seconds for the three cells together
RESULTS = Path(__file__).resolve().parents[2] / "assets" / "results" / "rnn_cells.json"

_INIT_LOCK = threading.Lock()


# ------------------------------------------------------------------------------------------------ the task
def make_batch(distance: int, size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """``size`` sequences: a subject (cat = 0, cats = 1) then ``distance`` distractors; ``(x (B, T+1), y (B,))``."""
    if not 1 <= distance <= 200:
        raise ValueError(f"distance {distance} is outside 1–200")
    y = torch.randint(0, len(SUBJECTS), (size,), generator=generator)  # (B,)
    fillers = torch.randint(len(SUBJECTS), len(VOCAB), (size, distance), generator=generator)  # (B, T)
    return torch.cat([y[:, None], fillers], dim=1), y  # (B, T+1)


def held_out(distance: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The held-out set: the same sequences for every cell and every run at this distance."""
    return make_batch(distance, EVAL_SIZE, torch.Generator().manual_seed(EVAL_SEED))


def probe(distance: int) -> torch.Tensor:
    """The fixed example whose gates are drawn: *cat* and ``distance`` distractors, ``(1, T+1)``."""
    _, fillers = make_batch(distance, 1, torch.Generator().manual_seed(PROBE_SEED))[0].split([1, distance], dim=1)
    return torch.cat([torch.zeros(1, 1, dtype=torch.long), fillers], dim=1)


def words(x: torch.Tensor) -> list[str]:
    """One sequence's ids as words."""
    return [VOCAB[int(i)] for i in x]


# ------------------------------------------------------------------------------------------------ the model
class AgreementModel(nn.Module):
    """Embedding → one recurrent layer (``torch.nn.RNN``/``GRU``/``LSTM``, fused and fast) → was/were from the
    last state. The gate maps re-run the trained layer through :mod:`minimodels.cells`, gate by gate."""

    def __init__(self, kind: str, hidden_size: int = HIDDEN, embed_size: int = EMBED, keep_bias: float = KEEP_BIAS):
        super().__init__()
        if kind not in KINDS:
            raise ValueError(f"unknown cell {kind!r}; choose one of {list(KINDS)}")
        self.kind = kind
        self.embedding = nn.Embedding(len(VOCAB), embed_size)
        self.rnn = getattr(nn, kind)(embed_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, len(VERBS))
        if kind != "RNN":  # rows H:2H are the LSTM's forget gate and the GRU's z = 1 − Γ_u
            with torch.no_grad():
                self.rnn.bias_ih_l0[hidden_size : 2 * hidden_size] += keep_bias

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        states, _ = self.rnn(self.embedding(x))  # (B, T+1, H)
        return self.out(states[:, -1])  # (B, 2)


def new_models(seed: int = 0, variants: Sequence[str] = KINDS) -> dict[str, AgreementModel]:
    """The models (default: the three cells; :data:`STANDARD` is an LSTM with forget bias 1), each initialised
    from ``seed`` (torch's global generator borrowed under a lock)."""
    models = {}
    for variant in variants:
        kind, bias = ("LSTM", STANDARD_BIAS) if variant == STANDARD else (variant, KEEP_BIAS)
        with _INIT_LOCK, torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            models[variant] = AgreementModel(kind, keep_bias=bias)
    return models


def accuracy(model: AgreementModel, x: torch.Tensor, y: torch.Tensor) -> float:
    with torch.inference_mode():
        return float((model(x).argmax(dim=1) == y).float().mean())


def cell_of(model: AgreementModel) -> nn.Module:
    """The trained layer as a :mod:`minimodels.cells` cell (GRU or LSTM), weight for weight, via ``from_torch``."""
    layer = model.rnn
    torch_cell = (nn.GRUCell if model.kind == "GRU" else nn.LSTMCell)(layer.input_size, layer.hidden_size)
    torch_cell.load_state_dict({name: getattr(layer, f"{name}_l0") for name in torch_cell.state_dict()})
    return (GRUCell if model.kind == "GRU" else LSTMCell).from_torch(torch_cell)


def gate_map(model: AgreementModel, x: torch.Tensor) -> np.ndarray | None:
    """The keep gate of one sequence ``x`` (T+1,), ``(H, T+1)``, from :mod:`minimodels.cells` (None for the RNN)."""
    if model.kind not in KEEP_GATE:
        return None
    cell = cell_of(model)
    name = KEEP_GATE[model.kind][0]
    columns, state = [], None
    with torch.inference_mode():
        for e in model.embedding(x[None, :]).unbind(1):  # (1, E) per step
            state, gates = cell(e, state)
            kept = 1.0 - gates[name] if model.kind == "GRU" else gates[name]  # GRU: 1 − Γ_u, the share kept
            columns.append(kept[0])
    return torch.stack(columns, dim=1).numpy()  # (H, T+1)


# ------------------------------------------------------------------------------------------------ training
@dataclass(frozen=True)
class Point:
    step: int
    seconds: float  # this cell's own compute so far
    loss: float  # training loss of the last step
    accuracy: float  # held-out


@dataclass(frozen=True)
class Report:
    """One report of a run. ``step``, ``seconds``, ``loss`` and ``exact_match`` are what ``ui.training_panel``
    reads: the step, the three cells' compute added up, and their mean loss and held-out accuracy."""

    step: int
    seconds: float
    loss: float
    exact_match: float
    distance: int
    histories: dict[str, tuple[Point, ...]]  # cell -> its reports so far
    gates: dict[str, np.ndarray]  # GRU/LSTM -> keep gate of the probe, (H, T+1)
    answers: dict[str, str]  # cell -> its verb for the probe
    tokens: tuple[str, ...]  # the probe's words


def train(
    models: Mapping[str, AgreementModel],
    distance: int,
    *,
    seed: int = 0,
    steps: int = STEPS,
    budget_seconds: float | None = None,
    on_progress: Callable[[Report], bool | None] | None = None,
    lr: float = LR,
) -> dict[str, tuple[Point, ...]]:
    """Train the cells in turn on the same batches (drawn from ``seed``), one step each, for ``steps`` steps.

    Every ``REPORT_EVERY`` steps each cell is scored on the held-out set; a cell stops once it reaches
    ``TARGET``. The run stops when every cell has, after ``budget_seconds`` of compute (all cells together), or
    when ``on_progress`` returns False. Returns each cell's reports.
    """
    torch.set_num_threads(THREADS_PER_RUN)  # per thread: a class server's runs do not fight for cores
    generator = torch.Generator().manual_seed(seed)
    x_eval, y_eval = held_out(distance)
    example = probe(distance)[0]
    optimizers = {k: Adam(m.parameters(), lr=lr) for k, m in models.items()}
    histories: dict[str, list[Point]] = {k: [] for k in models}
    with torch.inference_mode():  # step 0: where each cell starts (chance), so every curve has a start
        for kind, model in models.items():
            loss0 = nn.functional.cross_entropy(model(x_eval), y_eval).item()
            histories[kind].append(Point(0, 0.0, round(loss0, 4), accuracy(model, x_eval, y_eval)))
    seconds = dict.fromkeys(models, 0.0)
    losses = dict.fromkeys(models, float("nan"))
    training = set(models)
    for step in range(1, steps + 1):
        x, y = make_batch(distance, BATCH, generator)  # the same batch for every cell
        for kind in [k for k in models if k in training]:
            start = time.perf_counter()
            model = models[kind]
            loss = nn.functional.cross_entropy(model(x), y)
            optimizers[kind].zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizers[kind].step()
            losses[kind] = loss.item()
            if step % REPORT_EVERY == 0 or step == steps:
                acc = accuracy(model, x_eval, y_eval)
                histories[kind].append(
                    Point(step, round(seconds[kind] + time.perf_counter() - start, 3), round(losses[kind], 4), acc)
                )
                if acc >= TARGET:
                    training.discard(kind)
            seconds[kind] += time.perf_counter() - start
        over = budget_seconds is not None and sum(seconds.values()) >= budget_seconds
        reporting = on_progress is not None and (step % REPORT_EVERY == 0 or step == steps or not training or over)
        if reporting and on_progress(report(models, histories, distance, example)) is False:
            break
        if not training or over:
            break
    return {k: tuple(h) for k, h in histories.items()}


def report(
    models: Mapping[str, AgreementModel], histories: Mapping[str, Sequence[Point]], distance: int, example: torch.Tensor
) -> Report:
    latest = [h[-1] for h in histories.values() if h]
    with torch.inference_mode():
        answers = {k: VERBS[int(m(example[None, :]).argmax())] for k, m in models.items()}
    return Report(
        step=max((p.step for p in latest), default=0),
        seconds=sum(p.seconds for p in latest),
        loss=float(np.mean([p.loss for p in latest])) if latest else float("nan"),
        exact_match=float(np.mean([p.accuracy for p in latest])) if latest else 0.0,
        distance=distance,
        histories={k: tuple(h) for k, h in histories.items()},
        gates={k: g for k, m in models.items() if (g := gate_map(m, example)) is not None},
        answers=answers,
        tokens=tuple(words(example)),
    )


def new_run(distance: int, seed: int, budget_seconds: float):
    """Three fresh models for one student and the function that trains them: ``(models, train_fn(on_progress))``."""
    if distance not in DISTANCES:
        raise ValueError(f"distance {distance} is not one of {DISTANCES}")
    check_budget(budget_seconds)
    models = new_models(seed)

    def train_fn(on_progress):
        return train(models, distance, seed=seed, budget_seconds=budget_seconds, on_progress=on_progress)

    return models, train_fn


def live_run(distance: int, seed: int, budget_seconds: float) -> TrainingRun:
    """The training panel's run: :func:`new_run`'s three models and their trainer, built and run in a worker."""
    if distance not in DISTANCES:  # refused here, in the page, not in the worker
        raise ValueError(f"distance {distance} is not one of {DISTANCES}")
    check_budget(budget_seconds)
    return TrainingRun(functools.partial(new_run, distance, seed, budget_seconds), name="rnn-three-cells")


def replay_frame(snapshot: Report) -> np.ndarray | None:
    """The LSTM's forget gate of the probe, for the replay GIF."""
    return snapshot.gates.get("LSTM")


# ------------------------------------------------------------------------------------------------ shipped results
# ``assets/results/rnn_cells.json``: a :class:`~lessons.common.comparison.Comparison` of the three cells (variants)
# over seeds, one run per cell, seed and distance (``params={"distance": T}``), measured by
# ``scripts/rnn_cells_results.py``. Each run's ``final``: its held-out accuracy, its steps and its own seconds.
SCRIPT = "scripts/rnn_cells_results.py"
ACCURACY = "accuracy"  # the final metric the lesson compares: held-out accuracy when training ended


def measured_run(kind: str, seed: int, distance: int, steps: int = STEPS, lr: float = LR) -> Run:
    """Train one cell alone, exactly as the page's Train trains it beside the others (the same seeded weights and
    batches; no time budget), and measure it: one run of the shipped comparison. ``kind``: one of
    :data:`VARIANTS`."""
    model = new_models(seed, (kind,))[kind]
    history = train({kind: model}, distance, seed=seed, steps=steps, lr=lr)[kind]
    last = history[-1]
    curve = tuple(dataclasses.asdict(p) for p in history)  # step, seconds, loss, accuracy at every report
    final = {ACCURACY: round(last.accuracy, 4), "steps": last.step, "seconds": round(last.seconds, 2)}
    return Run(kind, seed, {"distance": distance}, curve, final)


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped comparison; ``FileNotFoundError``/``ValueError`` naming the script that makes it."""
    results = Comparison.load(RESULTS if path is None else path, script=SCRIPT)
    if set(results.variants) != set(VARIANTS) or not results.param_values("distance"):
        raise ValueError(f"{Path(path or RESULTS).name} must compare {', '.join(VARIANTS)} over distances")
    return results


def chance(distance: int) -> float:
    """Chance on the held-out set: the accuracy of always answering its more common verb (about 50%)."""
    share = float(held_out(distance)[1].float().mean())
    return max(share, 1.0 - share)


def chance_ceiling(distance: int) -> float:
    """The accuracy a guesser stays under: chance plus :data:`CHANCE_SES` binomial standard errors of the held-out
    set (√(p(1 − p)/n) with n = :data:`EVAL_SIZE`): a guesser beats it about once in a thousand tries."""
    p = chance(distance)
    return p + CHANCE_SES * math.sqrt(p * (1.0 - p) / EVAL_SIZE)


def as_dict(histories: Mapping[str, Sequence[Point]]) -> dict:
    return {k: [dataclasses.asdict(p) for p in h] for k, h in histories.items()}
