"""Section 3, why gates matter: the vanishing gradient, measured with autograd.

The NLP lecture's remark that attention "helps with vanishing gradient problem via shortcut to far-away states",
taken back to its cause: the gradient of the last state with respect to an early input is a product of one Jacobian
per step. :func:`vanishing_experiment` measures ‖∂a⟨T⟩/∂x⟨t⟩‖ for every t, for the three seeded random cells over
several seeds, with a slider on the keep gates' bias and one on the recurrent weights. The exercises compute by hand
what a gate keeps.

Letters: T sequence length, I input size, H hidden size (and the H copies of one backward pass), G gates.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.rnn_cells.seeded_cells import CELLS, INPUT_SIZE, make_cell, sigmoid, zero_state

TITLE = "3 · Why gates matter: the vanishing gradient"
TEXT = (
    "Training teaches the cell to keep *cat* by sending a gradient from the loss at *was* back to the input "
    "*cat*. By the chain rule that gradient is a product of one Jacobian per step in between. In a plain RNN "
    "each factor is W_aa scaled by tanh′ ≤ 1: if those factors are smaller than 1 the product shrinks "
    "exponentially with the distance (it **vanishes**), if larger it **explodes**. In the LSTM the memory's "
    "own path is multiplied by Γ_f at each step (in the GRU by 1 − Γ_u): a gate held near 1 copies the memory, "
    "and the gradient, across many steps."
)

EQUATION = (  # one short line each, so that a phone shows all three
    r"\begin{aligned}"
    r"\frac{\partial a^{\langle T\rangle}}{\partial x^{\langle t\rangle}} &= "
    r"\Bigg(\prod_{k=t+1}^{T} \frac{\partial a^{\langle k\rangle}}{\partial a^{\langle k-1\rangle}}\Bigg)"
    r"\frac{\partial a^{\langle t\rangle}}{\partial x^{\langle t\rangle}} \\"
    r"\text{RNN: } \frac{\partial a^{\langle k\rangle}}{\partial a^{\langle k-1\rangle}} &= "
    r"\operatorname{diag}\!\big(1 - (a^{\langle k\rangle})^2\big)\,W_{aa} \\"
    r"\text{LSTM: } \frac{\partial c^{\langle k\rangle}}{\partial c^{\langle k-1\rangle}} &= "
    r"\operatorname{diag}(\Gamma_f) + \dots"
    r"\end{aligned}"
)

GRADIENT_HIDDEN = 16
GRADIENT_SEEDS = (0, 1, 2, 3, 4)
DEFAULT_LENGTH = 60  # long enough for a plain RNN's gradient to fall by many powers of ten


def experiment_text(hidden: int, seeds: tuple[int, ...]) -> str:
    return (
        f"The experiment: a random sequence of T inputs, cells of H = {hidden} units with random weights (seeds "
        f"{', '.join(map(str, seeds))}), and autograd's ‖∂a⟨T⟩/∂x⟨t⟩‖ for every earlier input. With PyTorch's "
        "initialisation the gates start around 0.5, so expect every cell to forget; then push the keep gates "
        "towards 1, or scale the RNN's recurrent weights up."
    )


def jacobian_norms(cell: nn.Module, x: torch.Tensor, groups: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """‖∂a⟨T⟩/∂x⟨t⟩‖ for every t of the sequence ``x`` ``(T, I)``, and the mean "keep" gate over the run.

    One backward pass gives the whole Jacobian: the sequence is run as a batch of H copies and copy b
    back-propagates only unit b of a⟨T⟩, so the gradient reaching copy b's inputs is row b of ∂a⟨T⟩/∂x⟨t⟩.
    The norm is the Frobenius norm over (b, i). The "keep" gate is Γ_f (LSTM) or 1 − Γ_u (GRU); NaN for the
    RNN, which has none.

    ``groups``: the cell is that many cells run side by side (:func:`side_by_side`), each owning an equal block
    of the units and of the inputs; returned per cell: norms ``(groups, T)`` and keep gates ``(groups,)``.
    Copy b then back-propagates unit b of every cell at once: no cell reads another's inputs, so the gradient on
    cell g's block of inputs is row b of cell g's own Jacobian.
    """
    kind = next(name for name, cls in CELLS.items() if isinstance(cell, cls))
    T, H = x.shape[0], cell.hidden_size // groups  # H units per cell, H copies
    X = x[:, None, :].expand(T, H, x.shape[1]).clone().requires_grad_(True)  # (T, B=H, groups·I): H copies
    state = zero_state(kind, H, groups * H, x.dtype)
    kept = []
    for t in range(T):
        state, gates = cell(X[t], state)  # X[t]: (H, groups·I)
        if kind == "LSTM":
            kept.append(gates["forget"].detach())
        elif kind == "GRU":
            kept.append(gates["update"].detach())  # 1 − Γ_u taken below, once for the whole run
    a_T = state[0] if kind == "LSTM" else state  # (H copies, groups·H units)
    target = a_T.view(H, groups, H).diagonal(dim1=0, dim2=2).sum()  # copy b keeps only ∂a⟨T⟩_b of each cell
    target.backward(inputs=[X])  # the inputs' gradient only: the weights' would cost as much again, unused
    norms = X.grad.pow(2).view(T, H, groups, -1).sum(dim=(1, 3)).sqrt().T  # (groups, T) by time step t
    if not kept:
        return norms, torch.full((groups,), float("nan"), dtype=x.dtype)
    gate = torch.stack(kept).view(T, H, groups, H).mean(dim=(0, 1, 3))  # (groups,): over steps, copies, units
    return norms, gate if kind == "LSTM" else 1 - gate


def side_by_side(cells: list[nn.Module]) -> nn.Module:
    """One cell of the same kind that runs ``cells`` (equal sizes, their own weights) side by side.

    Its input is their inputs stacked, its state their states stacked, and each weight matrix is block-diagonal
    gate by gate, so block g computes exactly what cell g computes and nothing crosses between blocks. Why:
    autograd's cost here is Python's, one call per small operation; five seeds in one pass make five times fewer
    calls for the same numbers (a unit test checks them against the cells run one by one).
    """
    first, n = cells[0], len(cells)
    H, I, G = first.hidden_size, first.input_size, first.n_gates
    param = first.weight_ih
    with torch.device("meta"):  # shapes only: the values are copied in below
        big = type(first)(n * I, n * H)
    big = big.to_empty(device=param.device).to(param.dtype)
    with torch.no_grad():
        for name, width in (("weight_ih", I), ("weight_hh", H)):
            blocks = torch.zeros(G, n * H, n * width, dtype=param.dtype)  # (gates, units, inputs)
            for g, cell in enumerate(cells):
                blocks[:, g * H : (g + 1) * H, g * width : (g + 1) * width] = getattr(cell, name).view(G, H, width)
            getattr(big, name).copy_(blocks.view(G * n * H, n * width))
        for name in ("bias_ih", "bias_hh"):
            getattr(big, name).copy_(torch.stack([getattr(c, name).view(G, H) for c in cells], 1).view(-1))
    return big


def random_sequence(length: int, seed: int) -> torch.Tensor:
    """The experiment's seeded random inputs ``(T, I)``, float64."""
    g = torch.Generator().manual_seed(10_000 + seed)
    return torch.randn(length, INPUT_SIZE, generator=g, dtype=torch.float64)  # (T, I)


def gradient_norms(
    kind: str,
    length: int,
    seed: int,
    *,
    hidden_size: int = GRADIENT_HIDDEN,
    gate_bias: float = 0.0,
    recurrent_scale: float = 1.0,
) -> tuple[np.ndarray, float]:
    """:func:`jacobian_norms` of a seeded random cell on a seeded random sequence, indexed by distance T − t.

    Float64, so a gradient of 1e-30 is still a number, not an underflowed 0.
    """
    cell = make_cell(kind, hidden_size, seed, gate_bias=gate_bias, recurrent_scale=recurrent_scale, dtype=torch.float64)
    norms, keep = jacobian_norms(cell, random_sequence(length, seed))
    return norms[0].flip(0).numpy(), float(keep[0])  # index d = T − t


@dataclass(frozen=True)
class GradientExperiment:
    length: int
    gate_bias: float
    recurrent_scale: float
    norms: dict[str, np.ndarray]  # cell -> (T,) geometric mean over seeds, index = distance T − t
    keep: dict[str, float]  # cell -> mean keep gate (Γ_f, or 1 − Γ_u) over the runs
    per_seed: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)  # cell -> (seeds, T), same index
    seeds: tuple[int, ...] = ()

    def at(self, distance: int) -> dict[str, float]:
        return {kind: float(v[distance]) for kind, v in self.norms.items()}


def vanishing_experiment(
    length: int = DEFAULT_LENGTH,
    gate_bias: float = 0.0,
    recurrent_scale: float = 1.0,
    seeds: tuple[int, ...] = GRADIENT_SEEDS,
) -> GradientExperiment:
    """RNN vs GRU vs LSTM: the gradient of the last state w.r.t. every earlier input, over several seeds.

    Averaged geometrically (the mean of the logs), because the numbers span many powers of ten.
    Each cell kind runs once, its seeds side by side (:func:`side_by_side`): the same numbers as
    :func:`gradient_norms` seed by seed.
    """
    norms, keep, each = {}, {}, {}
    x = torch.cat([random_sequence(length, s) for s in seeds], dim=1)  # (T, seeds·I)
    for kind in CELLS:
        settings = {"gate_bias": gate_bias, "recurrent_scale": recurrent_scale, "dtype": torch.float64}
        cells = [make_cell(kind, GRADIENT_HIDDEN, s, **settings) for s in seeds]
        per_seed, kept = jacobian_norms(side_by_side(cells), x, groups=len(seeds))  # (seeds, T), (seeds,)
        each[kind] = per_seed.flip(1).numpy()  # index d = T − t
        norms[kind] = np.exp(np.log(each[kind]).mean(axis=0))
        keep[kind] = float(kept.mean())
    return GradientExperiment(length, gate_bias, recurrent_scale, norms, keep, each, tuple(seeds))


CELL_COLORS = ("#444444", "#1f77b4", "#ff7f0e")  # RNN, GRU, LSTM: apart in colour and in dash


def gradient_chart(exp: GradientExperiment) -> dict:
    """log₁₀ of the gradient norm against distance (a straight falling line is an exponential decay): the course's
    curve chart, each seed a faint line, the mean of the logs (the geometric mean the sentences quote) and ± one sd
    of the logs as a band. Logs, because the seeds' numbers span many powers of ten: their arithmetic mean would
    be the largest seed's alone."""
    points = [
        {"variant": kind, "order": i, "seed": seed, "x": d, "y": float(np.log10(v))}
        for i, (kind, runs) in enumerate(exp.per_seed.items())
        for seed, row in zip(exp.seeds, runs, strict=True)
        for d, v in enumerate(row)
        if v > 0
    ]
    n = len(exp.seeds)
    return curves_chart(
        points,
        y_title="log₁₀ gradient norm",
        x_title="distance T − t (steps back from the last token)",
        title=f"‖∂a⟨T⟩/∂x⟨t⟩‖, T = {exp.length}, {n} seed{'s' if n > 1 else ''}" + (", mean ± sd" if n > 1 else ""),
        height=420,
        colors=dict(zip(CELLS, CELL_COLORS, strict=True)),
    )


def _superscript(n: int) -> str:
    return str(n).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def gradient_summary(exp: GradientExperiment, distance: int = 30) -> str:
    """What the numbers show, said plainly (they are random untrained cells: no promise, just the reading)."""
    d = min(distance, exp.length - 1)
    at = exp.at(d)
    order = sorted(at, key=at.get)
    ratio = at[order[-1]] / at[order[0]]
    parts = [
        f"At distance {d}: " + ", ".join(f"{kind} {at[kind]:.1e}" for kind in CELLS) + ". ",
        f"The {order[0]}'s gradient is the smallest, about 10{_superscript(round(math.log10(ratio)))} times "
        f"smaller than the "
        f"{order[-1]}'s. ",
        f"The keep gates average Γ_f = {exp.keep['LSTM']:.2f} (LSTM) and 1 − Γ_u = {exp.keep['GRU']:.2f} (GRU).",
    ]
    if exp.norms["RNN"][d] > exp.norms["RNN"][0]:
        parts.append(" The plain RNN's gradient *grows* with distance here: it explodes instead of vanishing.")
    return "".join(parts)


READING = (
    "What to read from it: with random, untrained weights no cell *remembers* anything in particular, yet "
    "the shape of the curves is already set. The plain RNN's gradient falls by a roughly constant factor per "
    "step, a straight line on the log scale. The gated cells fall as fast as their keep gates let them: at "
    "Γ_f ≈ 0.5 they forget almost as quickly, and near 1 their curves flatten. Training (or initialising the "
    "forget-gate bias high, a common trick) is what puts the gates there. Attention (lesson 3) "
    "adds a direct shortcut from every output to every input instead."
)


# ------------------------------------------------------------------------------------------------- exercises
def gru_blend(update: float, candidate: float, previous: float) -> float:
    """The GRU's last line, c⟨t⟩ = Γ_u * c̃⟨t⟩ + (1 − Γ_u) * c⟨t−1⟩, for one unit."""
    return update * candidate + (1.0 - update) * previous


def memory_kept(forget: float, steps: int) -> float:
    """∂c⟨T⟩/∂c⟨T−steps⟩ of one LSTM unit whose update gate is closed (Γ_u = 0): the product of its Γ_f's."""
    return forget**steps


def exercises() -> list[Exercise]:
    """Two computations by hand of what a gate keeps: one GRU step, and an LSTM memory over 40 steps."""
    kept = {b: memory_kept(sigmoid(b), 40) for b in (1.0, 3.0)}
    return [
        Exercise(
            key="rnn_cells.ex1",
            prompt=(
                "Compute by hand. A GRU unit holds c⟨t−1⟩ = 0.8. The candidate is c̃⟨t⟩ = −0.5 and the update "
                "gate Γ_u = 0.1. What is c⟨t⟩? (two decimals)"
            ),
            answer=gru_blend(0.1, -0.5, 0.8),
            tolerance=0.005,
            explanation=(
                "c⟨t⟩ = Γ_u · c̃⟨t⟩ + (1 − Γ_u) · c⟨t−1⟩ = 0.1 · (−0.5) + 0.9 · 0.8 = −0.05 + 0.72 = "
                f"{gru_blend(0.1, -0.5, 0.8):.2f}. With Γ_u near 0 the unit mostly keeps what it had."
            ),
            hint="Γ_u weighs the candidate and 1 − Γ_u the old memory, not the other way round.",
        ),
        Exercise(
            key="rnn_cells.ex2",
            prompt=(
                "Compute by hand. An LSTM unit's update gate stays shut (Γ_u = 0) and its forget gate stays at its "
                "initial value Γ_f = σ(b) for 40 steps. With this lesson's bias b = 3, what fraction of c⟨t⟩ (and "
                "of the gradient flowing back through it) survives the 40 steps? (three decimals)"
            ),
            answer=kept[3.0],
            tolerance=0.003,
            explanation=(
                f"σ(3) = 1 / (1 + e⁻³) = {sigmoid(3.0):.4f}, and each step multiplies c by it: "
                f"{sigmoid(3.0):.4f}⁴⁰ = {kept[3.0]:.3f}. With the usual bias b = 1, σ(1) = {sigmoid(1.0):.4f} and "
                f"{sigmoid(1.0):.4f}⁴⁰ = {kept[1.0]:.1e}: at the start of training almost nothing of *cat* reaches "
                "the verb 40 steps later, which is what the measured chart's fourth curve is about."
            ),
            hint="σ(3) is not 3: take the sigmoid first, then the 40th power.",
        ),
    ]
