"""Section 3 of the masking lesson: the cheating decoder.

Trained without the causal mask, a decoder's position t reads position t + 1 of its input, which in training *is*
the token it must predict: its training loss falls below what any decoder that reads only the past can reach
(:func:`loss_floor`), and it fails once it must generate, where position t + 1 does not exist yet. The student
predicts both before the shipped decoders' outputs and the measured comparison (``scripts/masking_results.py``,
read by :func:`lessons.masking.training.load_results`) are revealed.

Letters: W = ``WORD`` letters per word, T = 2·W the predictions in a sequence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import torch

from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.masking.decoders import D_MODEL, LABELS, DecoderView, load_model
from lessons.masking.training import BATCH, HELD_OUT, LR, METRICS, REPORT_EVERY, TEST, VARIANT, held_out
from lessons.masking.word_cipher import LETTERS, SEP, WORD, cipher

TITLE = "3 · The cheating decoder"
CHEAT_TEXT = (
    "Without the mask, position t can read position t + 1 of its input, which during training **is** the token it "
    "must predict. Training rewards only that prediction, so nothing stops it from learning to copy. Then ask it "
    "to *generate*: after “word=”, each step reads only what is there so far, and the position it learned to copy "
    "does not exist yet. So each decoder is scored two ways: *teacher forced*, fed the gold sequence as in "
    "training and judged letter by letter (lesson 10 trains the Transformer this way), and *generating*, from its "
    "own letters so far. Predict what that does before you reveal the outputs."
)


def loss_floor() -> float:
    """The lowest mean loss a decoder that reads only the past can reach: of the 2·WORD predictions, the WORD − 1
    later letters of the random word cannot be predicted better than uniformly (ln 26 each); the rest can be
    certain."""
    return (WORD - 1) / (2 * WORD) * math.log(len(LETTERS))


@dataclass(frozen=True)
class LossParts:
    """A decoder's mean loss over a set of sequences, split by what each prediction is (each a mean per prediction,
    natural log): the random letters of the word (the floor's ln 26 each), the separator and the cipher letters (the
    floor's 0 each)."""

    words: int  # sequences measured
    random_letters: float
    separator: float
    cipher_letters: float
    cipher_right: float  # share of the cipher letters whose most likely prediction is the right one

    @property
    def total(self) -> float:
        """The mean over all 2·W predictions, as training reports it."""
        return ((WORD - 1) * self.random_letters + self.separator + WORD * self.cipher_letters) / (2 * WORD)


@torch.inference_mode()
def loss_parts(model, seqs: torch.Tensor) -> LossParts:
    """:class:`LossParts` of ``model`` on ``seqs`` (B, 2·W + 1), teacher forced as in training."""
    logits = model(seqs[:, :-1]).logits  # (B, 2W, V)
    nll = -torch.log_softmax(logits, -1).gather(-1, seqs[:, 1:, None])[..., 0].mean(0)  # (2W,) per position
    right = (logits[:, WORD:].argmax(-1) == seqs[:, WORD + 1 :]).float().mean()  # rows WORD.. predict the cipher
    return LossParts(
        len(seqs), float(nll[: WORD - 1].mean()), float(nll[WORD - 1]), float(nll[WORD:].mean()), float(right)
    )


@cache
def shipped_loss_parts() -> LossParts:
    """:func:`loss_parts` of the shipped causal decoder on the held-out words, once per process."""
    return loss_parts(load_model(True)[0], held_out())


def floor_gap_sentence(results: Comparison, parts: LossParts) -> str:
    """Why the causal decoder's measured loss sits where it does against :func:`loss_floor`: the floor assumes
    certain cipher letters and uniform guesses at the random ones; ``parts`` (the shipped causal decoder's loss split
    by kind of prediction) says how far the decoder is from each assumption. Computed from both."""
    floor, uniform = loss_floor(), math.log(len(LETTERS))
    honest = results.spread("final training loss", VARIANT[True])
    gap = honest.mean - floor
    where = f"{gap:.3f} above" if gap > 0 else f"{-gap:.3f} below"
    extra_random = (WORD - 1) * (parts.random_letters - uniform) / (2 * WORD)
    extra_cipher = (WORD * parts.cipher_letters + parts.separator) / (2 * WORD)
    guesses = "worse" if parts.random_letters > uniform else "better"
    return (
        f"The causal decoder's final training loss, {honest.text('.3f')}, is {where} the floor {floor:.3f}. The "
        f"floor is a bound: it assumes every cipher letter certain (loss 0) and every random letter guessed "
        f"uniformly (ln 26 = {uniform:.3f}). Split on the shipped causal decoder ({parts.words} held-out words, mean "
        f"loss {parts.total:.3f}): each cipher letter costs {parts.cipher_letters:.3f} though "
        f"{parts.cipher_right:.1%} of them are its most likely letter: it is not certain of them. The separator "
        f"costs {parts.separator:.3f}; with the cipher letters, {extra_cipher:+.3f} on the mean. Each "
        f"random letter costs {parts.random_letters:.3f}, {guesses} than a uniform guess: {extra_random:+.3f}. "
        f"Together, {parts.total - floor:+.3f} against the floor."
    )


def floor_prediction() -> Exercise:
    """Predict, before section 3's results: the least mean loss a decoder that reads only the past can reach (by
    hand; the answer is :func:`loss_floor`)."""
    T, floor = 2 * WORD, loss_floor()
    return Exercise(
        key="masking.ex4",
        prompt=(
            "**Predict before you reveal the results.** A decoder that reads only the past cannot guess the "
            f"random letters of the word. Of the {T} predictions in a sequence ({WORD} letters, “{SEP}”, "
            f"{WORD} cipher letters; the first letter is never predicted), {WORD - 1} are such letters, each "
            "one of 26 equally likely. What is the lowest mean loss (cross-entropy, natural log) such a decoder "
            "can reach over the whole sequence? (three decimals)"
        ),
        answer=floor,
        tolerance=0.01,
        explanation=(
            f"A random letter is predicted at best uniformly: loss ln 26 = {math.log(26):.3f}. “{SEP}” and the "
            f"cipher letters follow from the word: loss 0 at best. Mean over the {T} predictions: {WORD - 1} × "
            f"{math.log(26):.3f} / {T} = {floor:.3f}. A decoder whose training loss goes below it must be reading "
            "letters it should not see."
        ),
        hint="Only the unpredictable letters cost anything; average their cost over every prediction.",
    )


CHEAT_CHOICES = ("nearly all (at least 90%)", "some (10% to 90%)", "almost none (under 10%)")


def cheat_prediction(results: Comparison) -> Exercise:
    """Predict, before section 3's outputs are revealed: how many test words the cheating decoder ciphers exactly
    right when it generates. The answer is read from the measured results."""
    cheat = VARIANT[False]
    free = results.spread("free-running exact match", cheat)
    forced = results.spread("teacher-forced accuracy", cheat)
    answer = 0 if free.mean >= 0.9 else 2 if free.mean < 0.1 else 1
    return Exercise(
        key="masking.ex6",
        prompt=(
            "**Predict before you reveal the outputs.** The decoder trained *without* the causal mask now generates "
            "the cipher on its own, greedily, after “word=”, for test words it never saw. How many does it get "
            "exactly right?"
        ),
        choices=CHEAT_CHOICES,
        answer=answer,
        explanation=(
            f"Measured: {free.text('.1%')} exactly right on its own, against {forced.text('.1%')} of the cipher "
            "letters right when fed the gold sequence. "
            + (
                "Its training score was earned by copying the next input token, which generating never provides."
                if forced.mean - free.mean > 0.1
                else "Here generating does as well as teacher forcing: these models did not learn the shortcut."
            )
        ),
        hint="Which input did its training score depend on, and is that input there when it generates?",
    )


def outputs_table(normal: DecoderView, cheater: DecoderView) -> list[dict]:
    """Each decoder's cipher of one word: the gold, predicted when fed the gold sequence, generated on its own."""
    return [
        {
            "decoder": LABELS[causal],
            "gold cipher": cipher(view.word),
            "teacher forced": view.teacher_forced,
            "generating on its own": view.free_running,
        }
        for causal, view in ((True, normal), (False, cheater))
    ]


def outputs_caption(word: str, quote=repr) -> str:
    return (
        f"The word {quote(word)}. Teacher forced, each cipher letter is predicted from the gold sequence (for the "
        "cheating decoder, the letters after it too); generating, from the decoder's own letters so far."
    )


def results_table(results: Comparison) -> list[dict]:
    return results.table(METRICS, variant_header="decoder")


def results_sentences(results: Comparison) -> list[str]:
    """What the measured table says, each computed with the verdict rule (a file where it goes the other way says
    so): training loss, teacher-forced accuracy, then generating."""
    causal, cheat = VARIANT[True], VARIANT[False]
    loss = results.compare(cheat, causal, "final training loss", higher_is_better=False)
    forced = results.compare(cheat, causal, "teacher-forced accuracy")
    free = results.compare(causal, cheat, "free-running exact match")
    floor = loss_floor()
    below = results.spread("final training loss", cheat).mean < floor
    return [
        loss.sentence(".3f", "final training loss (lower is better)")
        + (
            f" It is below {floor:.3f}, the least a decoder that reads only the past can reach: it read the answer."
            if below
            else f" It is not below {floor:.3f}, the least a decoder that reads only the past can reach."
        ),
        forced.sentence(".1%", "teacher-forced accuracy"),
        free.sentence(".1%", "free-running exact match (generating the cipher itself)"),
    ]


def results_curves(results: Comparison, x: str = "step") -> tuple[dict, dict]:
    """Training loss and held-out free-running exact match against ``x``, every seed and the mean ± sd."""
    title = {"step": "training step", "seconds": "seconds"}[x]
    loss = curves_chart(
        results.curve_points("loss", x=x),
        y_title="training loss",
        x_title=title,
        title="Loss (what training sees)",
        height=280,
    )
    exact = curves_chart(
        results.curve_points("exact_match", x=x),
        y_title="held-out exact match",
        x_title=title,
        title="Generating the cipher itself",
        height=280,
        percent=True,
    )
    return loss, exact


def provenance_note(results: Comparison) -> str:
    meta = results.meta
    return (
        f"Means ± sd over seeds {', '.join(map(str, results.seeds))}: {meta.get('steps')} steps of {BATCH} random "
        f"words each, Adam at {LR:g}, d = {D_MODEL}; a held-out check ({HELD_OUT} words) every {REPORT_EVERY} steps. "
        f"Scored at the end on {TEST} test words. Teacher forced: fed the gold sequence, the cipher letters "
        "predicted right; free-running: after “word=”, each letter generated from its own output (greedy); exact "
        "match: the whole cipher right."
    )


def cheat_gap(results: Comparison) -> float:
    """The cheating decoder's teacher-forced accuracy minus its free-running exact match (means over seeds)."""
    cheat = VARIANT[False]
    return (
        results.spread("teacher-forced accuracy", cheat).mean - results.spread("free-running exact match", cheat).mean
    )


def shortcut_exercise() -> Exercise:
    """By reasoning: what a decoder trained without the mask reads in training and cannot read when generating."""
    return Exercise(
        key="masking.ex5",
        prompt=(
            "A decoder is trained **without** the causal mask. What can position t read during training that it "
            "cannot read when it generates?"
        ),
        choices=(
            "the very token it must predict, which sits in its input one position later; when generating it "
            "does not exist yet",
            "the random word",
            "its own earlier outputs",
            "nothing: training and generating feed it the same input",
        ),
        answer=0,
        explanation="In training the input is the whole sequence and the target the same sequence shifted by one: "
        "input position t + 1 holds the very token position t must predict. Without the mask its attention can "
        "read it, so copying it scores perfectly. Generating, position t + 1 has not been written yet: the "
        "shortcut is gone.",
        hint="The target at position t is which token of the input?",
    )
