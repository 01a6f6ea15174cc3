"""The cheating decoder (section 3): the loss floor, and the measured results' sentences and prediction, which turn
round with the numbers."""

import dataclasses
import math

import pytest

from lessons.common.comparison import Comparison
from lessons.masking import causal, cheating, training, translator
from tests.lessons.said import opening


def test_the_loss_floor_is_the_random_letters_share_of_ln_26():
    assert cheating.loss_floor() == pytest.approx(7 / 16 * math.log(26))


def test_the_shipped_results_have_three_seeds_and_say_what_the_lesson_claims():
    results = training.load_results()
    assert len(results.seeds) >= 3
    sentences = cheating.results_sentences(results)
    loss = results.compare("no mask", "causal mask", "final training loss", higher_is_better=False)
    free = results.compare("causal mask", "no mask", "free-running exact match")
    assert sentences[0].startswith(opening(loss) + " on final training loss")
    assert "it read the answer" in sentences[0]
    assert sentences[2].startswith(opening(free) + " on free-running exact match")
    assert cheating.cheat_gap(results) > 0.5
    assert cheating.results_table(results)[0]["n"] == len(results.seeds)


def _swapped(results: Comparison, *metrics: str) -> Comparison:
    """The same comparison with the two decoders' values of ``metrics`` exchanged, seed by seed."""
    by = {(r.variant, r.seed): r for r in results.runs}
    other = {"causal mask": "no mask", "no mask": "causal mask"}
    runs = [
        dataclasses.replace(r, final={**r.final, **{m: by[(other[r.variant], r.seed)].final[m] for m in metrics}})
        for r in results.runs
    ]
    return dataclasses.replace(results, runs=tuple(runs))


def test_the_sentences_turn_round_with_the_numbers(rule_on_made_up_seeds):
    swapped = _swapped(training.load_results(), *training.METRICS)
    sentences = cheating.results_sentences(swapped)
    assert sentences[0].startswith("no mask (cheating decoder) does not beat causal mask on final training loss")
    assert "It is not below" in sentences[0]
    assert sentences[2].startswith("causal mask does not beat no mask (cheating decoder)")
    prediction = cheating.cheat_prediction(swapped)
    assert prediction.choices[prediction.answer].startswith("nearly all")
    assert (
        cheating.cheat_prediction(training.load_results())
        .choices[cheating.cheat_prediction(training.load_results()).answer]
        .startswith("almost none")
    )


def test_one_seed_a_side_is_never_a_clear_verdict():
    results = training.load_results()
    one = dataclasses.replace(results, runs=tuple(r for r in results.runs if r.seed == 0))
    assert all("too close to call" in s for s in cheating.results_sentences(one))


def test_captions_quote_what_they_are_given_and_the_note_reads_the_results():
    assert cheating.outputs_caption("sequence", quote=lambda t: f"[{t}]").startswith("The word [sequence]. Teacher")
    results = training.load_results()
    assert cheating.provenance_note(results).startswith(f"Means ± sd over seeds {', '.join(map(str, results.seeds))}")
    assert "lesson 10" in translator.NEXT_TEXT and "cross-attention" in translator.NEXT_TEXT
    assert "lesson 8" in causal.POSITIONS_NOTE


def test_the_floor_gap_is_split_by_kind_of_prediction_and_turns_with_the_numbers():
    results = training.load_results()
    worse_guesses = cheating.LossParts(200, random_letters=3.664, separator=0.004, cipher_letters=0.185, cipher_right=1)
    line = cheating.floor_gap_sentence(results, worse_guesses)
    honest = results.spread("final training loss", training.VARIANT[True]).mean
    assert f"is {honest - cheating.loss_floor():.3f} above the floor 1.425" in line
    assert "Each random letter costs 3.664, worse than a uniform guess: +0.178" in line
    assert "each cipher letter costs 0.185 though 100.0% of them" in line and "+0.093 on the mean" in line
    assert f"Together, {worse_guesses.total - cheating.loss_floor():+.3f}" in line
    swapped = dataclasses.replace(worse_guesses, random_letters=0.185 + 3.0, cipher_letters=0.0)
    line = cheating.floor_gap_sentence(results, swapped)
    assert "Each random letter costs 3.185, better than a uniform guess: -0.032" in line
    below = _swapped(results, "final training loss")  # the honest decoder given the cheater's loss
    assert "below the floor 1.425" in cheating.floor_gap_sentence(below, worse_guesses)


def test_the_shipped_causal_decoders_parts_add_up_to_its_loss():
    parts = cheating.shipped_loss_parts()
    seqs = training.held_out()
    model = cheating.load_model(True)[0]
    assert parts.total == pytest.approx(training.score(model, seqs).loss, rel=1e-5)
    assert 0 <= parts.cipher_right <= 1 and parts.words == len(seqs)
