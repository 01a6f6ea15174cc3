"""The task that needs long range, for the sliding-window section: find the one capital letter.

A sequence is ``LETTERS`` random lower-case letters, one of them (at a uniformly random place) written as a capital,
then “?”; the decoder must answer, at “?”, which letter was the capital (in lower case). The capital can be anywhere,
so the answer lies 1 to ``LETTERS`` positions back. A decoder whose window is w positions (“?” itself included) sees
the w − 1 letters before “?”; when the capital is further back, nothing it can read tells the answer, and the best
it can do is guess one of the 26 letters: :func:`ceiling`.

Each window is a :class:`minimodels.kv_cache.WindowedDecoder` (the masking lesson's one self-attention decoder with
the window's mask), trained on the answer only, then scored on ``TEST`` held-out sequences.

Letters: L = ``LETTERS`` letters per sequence, w the window, T = L + 1 positions.
"""

from __future__ import annotations

import string
from collections.abc import Callable

import torch

from lessons.common.runs import Run
from minimodels.kv_cache import WindowedDecoder
from minimodels.small import Report, SmallConfig, fit
from minimodels.tokenizers import PAD_ID

LETTERS = 24
ASK = "?"
VOCAB = ("<pad>", *string.ascii_lowercase, *string.ascii_uppercase, ASK)  # id 0 is PAD
ID = {token: i for i, token in enumerate(VOCAB)}
WINDOWS: tuple[int, ...] = (2, 7, 13, 19, LETTERS + 1)  # the last one sees the whole sequence
D_MODEL = 32
STEPS = 400
BATCH = 64
LR = 3e-3
TEST = 2000
TEST_SEED = 12345  # the held-out sequences: drawn from their own generator, never trained on
VARIANT = "window"
METRIC = "accuracy"


def sequences(n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """``(tokens (n, L + 1), answers (n,))``: L lower-case letters with one made a capital, then “?”; the answer is
    the capital's lower-case id."""
    letters = torch.randint(26, (n, LETTERS), generator=generator)  # (n, L): 0..25
    where = torch.randint(LETTERS, (n,), generator=generator)  # (n,): the capital's position
    tokens = letters + ID["a"]  # (n, L)
    rows = torch.arange(n)
    tokens[rows, where] = letters[rows, where] + ID["A"]
    ask = torch.full((n, 1), ID[ASK])
    return torch.cat([tokens, ask], dim=1), letters[rows, where] + ID["a"]


def text(tokens: torch.Tensor) -> str:
    return "".join(VOCAB[int(t)] for t in tokens)


def ceiling(window: int) -> float:
    """The best accuracy a decoder with this window can reach: the capital is in sight for w − 1 of the L places
    (always right there), out of sight otherwise (one guess in 26)."""
    seen = min(window - 1, LETTERS) / LETTERS
    return seen + (1 - seen) / 26


def new_model(window: int, seed: int) -> WindowedDecoder:
    torch.manual_seed(seed)
    return WindowedDecoder(SmallConfig(len(VOCAB), D_MODEL, "learned", max_len=LETTERS + 1), window)


def train_window(
    window: int,
    seed: int,
    steps: int = STEPS,
    *,
    on_report: Callable[[WindowedDecoder, Report], bool | None] | None = None,
    report_every: int = 50,
    max_seconds: float | None = None,
) -> tuple[WindowedDecoder, list[dict]]:
    """A fresh decoder with this window, trained on the answer at “?” only (Adam at ``LR``, ``BATCH`` sequences a
    step, drawn from ``seed``); returns it and its loss curve. ``on_report(model, report)`` returning False stops
    it (a live panel's Stop)."""
    model = new_model(window, seed)
    generator = torch.Generator().manual_seed(seed)

    def batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
        tokens, answers = sequences(BATCH, generator)
        targets = torch.full_like(tokens, PAD_ID)  # (B, T): no loss anywhere...
        targets[:, -1] = answers  # ...but at "?"
        return tokens, targets

    def report(r: Report) -> bool | None:
        return None if on_report is None else on_report(model, r)

    reports = fit(
        model,
        batch,
        steps=steps,
        lr=LR,
        seed=seed,
        report_every=report_every,
        on_report=report,
        max_seconds=max_seconds,
    )
    return model, [{"step": r.step, "seconds": round(r.seconds, 3), "loss": round(r.loss, 5)} for r in reports]


def test_set() -> tuple[torch.Tensor, torch.Tensor]:
    return sequences(TEST, torch.Generator().manual_seed(TEST_SEED))


@torch.inference_mode()
def accuracy(model: WindowedDecoder, tokens: torch.Tensor, answers: torch.Tensor) -> float:
    """The share of sequences whose answer at “?” is the capital's letter."""
    predicted = model(tokens).logits[:, -1].argmax(-1)  # (n,)
    return float((predicted == answers).float().mean())


def measured_run(window: int, seed: int, steps: int = STEPS) -> Run:
    """One window and seed, trained and scored on the test sequences (``params``: the window, the ceiling)."""
    model, curve = train_window(window, seed, steps)
    score = accuracy(model, *test_set())
    params = {"window": window, "letters": LETTERS, "steps": steps}
    return Run(VARIANT, seed, params, curve, {METRIC: round(score, 4)}, {"ceiling": round(ceiling(window), 4)})
