"""Section 2, why not a standard network?: the Transformer lecture's two reasons, measured.

The lecture's slide lists them: 1. variable length inputs, 2. no learned feature sharing. A standard
(feed-forward) network reads a fixed window: its first layer has one block of weights per position, T·E·H of
them, so its size is tied to T, a longer sentence does not fit and a shorter one must be padded. An RNN applies
the same cell at every step: its E·H + H·H + 2H weights do not depend on T. Both counts come from real torch
modules (:func:`parameter_counts`).

Sharing, shown rather than told (:func:`sharing_demo`): the lecture's named-entity example as a toy. Each
sentence of :data:`LENGTH` words holds one name (*Harry* or *Hermione*) and the model tags every word, name or
not. Both models see names only at positions 1–4 while they train, then are tested with names at positions
5–8. The window network's weights for positions 5–8 never saw a name; the RNN's one cell has, at every position.
The exercises count a window layer's parameters by hand, and ask which names the window network tags at a
position where it never saw one.

Letters: B batch, L sentence length (the window), E embedding size, H hidden size, T a window's length.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN
from lessons.common.runs import Spread
from lessons.common.verdicts import verdict
from minimodels.adam import Adam

EMBED, HIDDEN = 8, 16  # E, H: the sizes of the agreement task's models (lessons.rnn_cells.training)
NAMES = ("Harry", "Hermione")  # ids 0 and 1: the words to tag
OTHERS = ("Yesterday", "met", "the", "at", "school", "and", "then", "saw", "a", "friend", "owl", "wand", "in", "castle")
WORDS = NAMES + OTHERS
LENGTH = 8  # L: words per sentence, the window network's window
SEEN = (0, 1, 2, 3)  # positions (0-based) where names appear in training: the page says 1–4
UNSEEN = (4, 5, 6, 7)  # where they appear in the test: 5–8
STEPS, BATCH, LR = 100, 64, 0.01
TEST_SIZE = 512
SEEDS = (0, 1, 2)
MODELS = ("window network", "RNN")
# The exercise's sentence: a name at position 2 (seen in training) and one at position 6 (never seen).
PROBE = ("Yesterday", "Harry", "met", "the", "owl", "Hermione", "at", "school")
PROBE_OPTIONS = ("both names", "only Harry (position 2)", "only Hermione (position 6)", "neither")

TITLE = "2 · Why not a standard network?"
TEXT = (
    "The lecture's first question: why not a standard (feed-forward) network, reading the whole sentence at "
    "once? Its two answers are **variable length** and **no sharing across positions**. A standard network "
    "reads a window of T words: its first layer has a separate block of weights for every position, so its "
    "size is tied to T. An RNN applies one cell at every step, with the same weights. Pick T and count the "
    "parameters of both layers, taken from real `torch.nn` modules (E = "
    f"{EMBED} numbers per word, H = {HIDDEN} units):"
)


# ------------------------------------------------------------------------------------------------ sizes
def window_layer(length: int, embed: int = EMBED, hidden: int = HIDDEN) -> nn.Module:
    """A standard network's first layer over a window of ``length`` words: flatten (B, T, E) to (B, T·E), one
    linear map to H units."""
    return nn.Sequential(nn.Flatten(), nn.Linear(length * embed, hidden))


def count(module: nn.Module) -> int:
    """Its number of trainable numbers."""
    return sum(p.numel() for p in module.parameters())


def parameter_counts(lengths: Sequence[int], embed: int = EMBED, hidden: int = HIDDEN) -> list[dict]:
    """Per window length T: the window layer's parameters and the RNN layer's (``torch.nn.RNN``), counted."""
    if any(not 1 <= t <= 10_000 for t in lengths):
        raise ValueError("a window length must be between 1 and 10 000")
    rnn = count(nn.RNN(embed, hidden))
    with torch.device("meta"):  # shapes only: counting needs no numbers
        return [{"T": t, "window network": count(window_layer(t, embed, hidden)), "RNN": rnn} for t in lengths]


def counts_chart(lengths: Sequence[int], embed: int = EMBED, hidden: int = HIDDEN) -> dict:
    """The two counts against T, log-log: the window layer's line rises with T, the RNN's stays flat."""
    points = [
        {"variant": name, "seed": 0, "x": row["T"], "y": row[name], "order": i}
        for row in parameter_counts(lengths, embed, hidden)
        for i, name in enumerate(MODELS)
    ]
    return curves_chart(
        points,
        y_title="parameters of the layer that reads the words",
        x_title="words read T",
        title=f"Parameters vs length (E = {embed}, H = {hidden})",
        log_x=True,
        log_y=True,
        height=300,
        colors={"window network": "#8c564b", "RNN": "#d62728"},
    )


def counts_text(length: int, embed: int = EMBED, hidden: int = HIDDEN) -> str:
    """What the counts say at the student's T, computed from the modules."""
    (row,) = parameter_counts([length], embed, hidden)
    (longer,) = parameter_counts([length + 1], embed, hidden)
    return (
        f"At T = {length}: the window network's first layer has **{row['window network']:,}** parameters "
        f"(T·E·H + H), one more word adds {longer['window network'] - row['window network']:,}, and a sentence of "
        f"{length + 1} words does not fit it at all (a shorter one is padded). The RNN layer has "
        f"**{row['RNN']:,}** (E·H + H·H + 2H, `torch.nn.RNN` keeps two bias vectors) at any T, and reads a "
        "sentence of any length."
    )


# ------------------------------------------------------------------------------------------------ sharing
SHARING = (
    f"Sharing, shown: the lecture's named-entity example as a toy. Sentences of {LENGTH} words each hold one name "
    f"(*{NAMES[0]}* or *{NAMES[1]}*), and the model tags every word as name or not. A window network (the standard "
    "one, one hidden layer) and an RNN (one cell and one output layer for every position) train for "
    f"{STEPS} steps on sentences whose name is at positions 1–4 only, then are tested with names at "
    "positions 5–8: the share of names each finds, trained here on this server, once, "
    f"{len(SEEDS)} seeds each."
)


def tag_batch(size: int, positions: Sequence[int], generator: torch.Generator):
    """``size`` sentences with one name each, at one of ``positions``: ``(x (B, L), tags (B, L), where (B,))``."""
    x = torch.randint(len(NAMES), len(WORDS), (size, LENGTH), generator=generator)  # (B, L) other words
    where = torch.tensor(positions)[torch.randint(0, len(positions), (size,), generator=generator)]  # (B,)
    x[torch.arange(size), where] = torch.randint(0, len(NAMES), (size,), generator=generator)
    return x, (x < len(NAMES)).long(), where


class WindowTagger(nn.Module):
    """A standard network over the whole sentence: embed, flatten (B, L·E), one hidden layer, then two logits per
    position (B, L, 2). Each position has its own weights."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(len(WORDS), EMBED)
        self.net = nn.Sequential(
            nn.Flatten(), nn.Linear(LENGTH * EMBED, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, 2 * LENGTH)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(self.embedding(x)).view(-1, LENGTH, 2)  # (B, L, 2)


class RNNTagger(nn.Module):
    """An RNN that tags each word from its state there (many-to-many): one cell and one output layer, shared by
    every position."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(len(WORDS), EMBED)
        self.rnn = nn.RNN(EMBED, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.rnn(self.embedding(x))[0])  # (B, L, 2)


def train_tagger(model_name: str, seed: int, steps: int = STEPS) -> nn.Module:
    """Train one tagger on names at :data:`SEEN` positions only (seeded weights and batches)."""
    torch.set_num_threads(THREADS_PER_RUN)
    generator = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = (WindowTagger if model_name == "window network" else RNNTagger)()
    optimizer = Adam(model.parameters(), lr=LR)
    for _ in range(steps):
        x, tags, _ = tag_batch(BATCH, SEEN, generator)
        loss = nn.functional.cross_entropy(model(x).reshape(-1, 2), tags.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.eval()


def names_found(model: nn.Module, positions: Sequence[int]) -> float:
    """The share of names the model tags as names, on a fixed test set with names at ``positions``."""
    x, _, where = tag_batch(TEST_SIZE, positions, torch.Generator().manual_seed(99))
    with torch.inference_mode():
        predicted = model(x).argmax(-1)  # (B, L)
    return float((predicted[torch.arange(TEST_SIZE), where] == 1).float().mean())


def tags_of(model: nn.Module, words: Sequence[str]) -> tuple[bool, ...]:
    """Which of ``words`` (L of them, from :data:`WORDS`) the model tags as a name."""
    x = torch.tensor([[WORDS.index(w) for w in words]])
    with torch.inference_mode():
        return tuple(bool(v) for v in model(x).argmax(-1)[0])


@dataclass(frozen=True)
class SharingDemo:
    found: dict[str, dict[str, Spread]]  # model -> "seen"/"unseen" -> share of names found, over seeds
    probe: dict[str, tuple[int, ...]]  # model -> per seed, the index in PROBE_OPTIONS of what it tagged in PROBE
    seeds: tuple[int, ...]


def probe_option(tags: Sequence[bool]) -> int:
    """Which of :data:`PROBE_OPTIONS` a tagging of :data:`PROBE` is (the other words' tags are not asked)."""
    harry, hermione = tags[PROBE.index("Harry")], tags[PROBE.index("Hermione")]
    return {(True, True): 0, (True, False): 1, (False, True): 2, (False, False): 3}[(harry, hermione)]


def sharing_demo(seeds: Sequence[int] = SEEDS, steps: int = STEPS) -> SharingDemo:
    """Train both taggers per seed (about a second in all) and measure them on seen and unseen positions."""
    found: dict[str, dict[str, list[float]]] = {m: {"seen": [], "unseen": []} for m in MODELS}
    probe: dict[str, list[int]] = {m: [] for m in MODELS}
    for name in MODELS:
        for seed in seeds:
            model = train_tagger(name, seed, steps)
            found[name]["seen"].append(names_found(model, SEEN))
            found[name]["unseen"].append(names_found(model, UNSEEN))
            probe[name].append(probe_option(tags_of(model, PROBE)))
    spreads = {m: {k: Spread(tuple(v)) for k, v in d.items()} for m, d in found.items()}
    return SharingDemo(spreads, {m: tuple(v) for m, v in probe.items()}, tuple(seeds))


def sharing_rows(demo: SharingDemo) -> list[dict]:
    """The demo as a table: per model, names found at training's positions and at new ones (mean ± sd, n)."""
    return [
        {
            "model": m,
            "found at 1–4 (trained)": demo.found[m]["seen"].text(),
            "found at 5–8 (unseen)": demo.found[m]["unseen"].text(),
        }
        for m in MODELS
    ]


def sharing_summary(demo: SharingDemo) -> str:
    """The demo's result, computed: does the RNN find more names at unseen positions than the window network?"""
    rnn, window = demo.found["RNN"]["unseen"], demo.found["window network"]["unseen"]
    outcome, reason = verdict(rnn, window)
    numbers = f"{rnn.text()} of the names against {window.text()}"
    if outcome == "better":
        head = f"At positions it never saw a name, the RNN finds {numbers}: the same cell reads every position."
    elif outcome == "worse":
        head = f"At positions it never saw a name, the window network finds more than the RNN ({numbers} for the RNN)."
    else:
        head = f"At positions never seen in training the two are too close to call ({numbers} for the RNN; {reason})."
    return head + " Both were trained on names at positions 1–4 only."


# ------------------------------------------------------------------------------------------------ exercises
EXERCISE_SIZES = {"T": 25, "E": 4, "H": 10}  # the window of exercise 3: not the sizes the page's figure counts


def exercises() -> list[Exercise]:
    """A parameter count by hand (the sharing prediction is asked in the section, before its table:
    :func:`sharing_prediction`)."""
    T, E, H = EXERCISE_SIZES.values()
    window = count(window_layer(T, E, H))
    rnn = count(nn.RNN(E, H))
    return [
        Exercise(
            key="rnn_cells.ex3",
            prompt=(
                f"Compute by hand. A standard network reads a window of T = {T} words, each an embedding of E = {E} "
                f"numbers, into H = {H} hidden units (one `nn.Linear` with its bias). How many parameters does "
                "that layer have?"
            ),
            answer=window,
            tolerance=0.5,
            explanation=(
                f"The window flattens to T · E = {T * E} inputs; each of the {H} units has one weight per input and "
                f"one bias: {T * E} · {H} + {H} = {window}. An RNN layer with the same E and H (`nn.RNN`) has "
                f"E·H + H·H + 2H = {E * H} + {H * H} + {2 * H} = {rnn}, whatever T is."
            ),
            hint="Every unit sees every position's every number: T · E inputs, not E.",
        ),
    ]


def sharing_prediction(sharing: SharingDemo | None = None) -> Exercise:
    """Predict, before the table below it is shown: which names the window network tags at a position it never saw
    a name in, graded against the sharing demo (``sharing``, trained if None)."""
    demo = sharing or sharing_demo()
    picks = demo.probe["window network"]
    pick = max(set(picks), key=picks.count)
    told = {
        m: ", ".join(
            f"{PROBE_OPTIONS[o]} ({demo.probe[m].count(o)} of {len(demo.probe[m])} seeds)"
            for o in sorted(set(demo.probe[m]))
        )
        for m in demo.probe
    }
    return Exercise(
        key="rnn_cells.ex4",
        prompt=(
            "Predict, then see the table below. The window network was trained on names at positions "
            "1–4 only. It is now given “" + " ".join(PROBE) + "”: *Harry* at position 2, *Hermione* at "
            "position 6. Which names does it tag?"
        ),
        choices=PROBE_OPTIONS,
        answer=pick,
        explanation=(
            f"Run on this server: the window network tagged {told['window network']}; the RNN tagged "
            f"{told['RNN']}. "
            + (
                "The window network's weights for position 6 only ever saw ordinary words, so they learned "
                "“never a name here”; the RNN's one cell and output layer read position 6 with the weights that "
                "learned *Hermione* at positions 1–4."
                if pick == PROBE_OPTIONS.index("only Harry (position 2)")
                else "The expected reading (its weights for position 6 never saw a name) did not hold for this "
                "run: its position-6 weights still learned something from the ordinary words there."
            )
        ),
        hint="Ask which weights read position 6, and what they saw in training.",
    )
