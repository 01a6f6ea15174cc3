"""The Bahdanau lesson's numbers: α rows, context vectors, beam rows, the forced step, the exercises."""

import numpy as np
import pytest
import torch

from lessons import bahdanau_attention
from lessons.common import charts
from lessons.common.pretrained import load_pretrained
from minimodels.decode import translate
from minimodels.tasks import get_task
from minimodels.tokenizers import EOS_ID

IT = "toy-translation-it"


@pytest.fixture(scope="module")
def model():
    shipped, _ = load_pretrained(IT, bahdanau_attention.MODEL)
    return shipped


@pytest.fixture(scope="module")
def task():
    return get_task(IT)


@pytest.fixture(scope="module")
def pizza(model, task):
    return bahdanau_attention.decode(model, task, "I like pizza")


def test_alpha_rows_are_distributions_over_the_source(pizza):
    T, S = len(pizza.target), len(pizza.source)
    assert pizza.weights.shape == (T, S) and pizza.contexts.shape[0] == T
    np.testing.assert_allclose(pizza.weights.sum(axis=1), np.ones(T), atol=1e-5)
    assert (pizza.weights >= 0).all()
    assert pizza.source[-1] == "</s>"


def test_the_lecture_sentence_becomes_mi_piace_la_pizza(pizza, model, task):
    assert pizza.translation.text == translate(model, task, "I like pizza").text
    assert "pizza" in pizza.translation.text and "piace" in pizza.translation.text


def test_context_is_the_alpha_weighted_sum_of_the_encoder_states(pizza, model, task):
    ids = [*task.encode_source("I like pizza").ids, EOS_ID]
    with torch.inference_mode():
        states = model.encode(torch.tensor([ids]), torch.tensor([len(ids)])).states[0].numpy()  # (S, D)
    assert pizza.contexts.shape == (len(pizza.target), states.shape[1])
    for t in range(len(pizza.target)):
        expected = sum(pizza.weights[t, s] * states[s] for s in range(len(ids)))
        np.testing.assert_allclose(pizza.contexts[t], expected, atol=1e-5)


def test_most_attended_is_the_argmax_of_the_row(pizza):
    for t in range(len(pizza.target)):
        assert bahdanau_attention.most_attended(pizza, t) == pizza.source[int(np.argmax(pizza.weights[t]))]


def test_unknown_words_are_marked_and_long_text_is_cut_with_a_message(model, task):
    unknown = bahdanau_attention.decode(model, task, "I like 🙂")
    assert "<unk>" in unknown.source and "unknown" in unknown.translation.message
    long = bahdanau_attention.decode(model, task, "I like pizza " * 200)
    assert "too long" in long.translation.message
    assert len(long.source) <= task.max_source_len + 1


@pytest.mark.parametrize("empty", ["", "   ", "\n\t"])
def test_empty_text_gets_a_message_not_a_decoding(model, task, empty):
    result = bahdanau_attention.decode(model, task, empty)
    assert isinstance(result, str) and result


@pytest.mark.parametrize("width", range(1, bahdanau_attention.MAX_BEAM + 1))
def test_beam_rows_are_the_hypotheses_best_first(model, task, width):
    result = bahdanau_attention.decode(model, task, "I like pizza", method="beam", width=width)
    rows = bahdanau_attention.beam_rows(result, task)
    assert 1 <= len(rows) <= width
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    scores = [r["log p(y | x)"] for r in rows]
    assert scores == sorted(scores, reverse=True) and all(s <= 0 for s in scores)
    assert rows[0]["output"] == result.translation.text
    if width == 1:
        assert (
            rows[0]["output"] == bahdanau_attention.decode(model, task, "I like pizza").translation.text
        )  # width 1: greedy


def test_greedy_has_no_beam_rows(pizza, task):
    assert bahdanau_attention.beam_rows(pizza, task) == []


def test_forcing_one_step_makes_its_row_one_hot_and_leaves_earlier_rows(pizza, model, task):
    step, source_index = 1, 0
    forced = bahdanau_attention.decode(model, task, "I like pizza", force=(step, source_index))
    expected = np.zeros(len(forced.source))
    expected[source_index] = 1.0
    np.testing.assert_array_equal(forced.weights[step], expected)
    np.testing.assert_allclose(forced.weights[:step], pizza.weights[:step], atol=1e-6)


def test_additive_parameter_count_is_2AD_plus_2A(model):
    D, A = model.config.decoder_size, model.config.attention_size
    assert bahdanau_attention.additive_parameters(model) == 2 * A * D + 2 * A


def test_exercise_answers_are_read_off_the_model(model, task, pizza):
    by_key = {ex.key: ex for ex in bahdanau_attention.exercises(model)}
    pizza_step = next(t for t, piece in enumerate(pizza.target) if "pizza" in piece)
    looked_at = bahdanau_attention.most_attended(pizza, pizza_step)
    ex1 = by_key["bahdanau_attention.ex1"]
    assert ex1.check(ex1.choices.index(looked_at)).correct
    assert not ex1.check((ex1.choices.index(looked_at) + 1) % len(ex1.choices)).correct
    D, A = model.config.decoder_size, model.config.attention_size
    assert by_key["bahdanau_attention.ex2"].check(2 * A * D + 2 * A).correct
    assert not by_key["bahdanau_attention.ex2"].check(2 * A * D).correct
    assert by_key["bahdanau_attention.ex3"].check(0).correct


def test_beam_note_says_whether_the_beam_found_another_output(pizza, model, task):
    """The caption under the beam table is computed from the two decodings, and says so both ways."""
    same = bahdanau_attention.decode(model, task, "I like pizza", method="beam", width=1)
    assert same.translation.text == pizza.translation.text
    assert bahdanau_attention.beam_note(same, pizza) == "The best beam hypothesis is the greedy output."
    other = bahdanau_attention.decode(model, task, "I like the sea", method="beam", width=3)
    assert other.translation.text != pizza.translation.text
    assert bahdanau_attention.beam_note(other, pizza) == "Beam search found a different output than greedy decoding."


def test_shipped_caption_is_read_off_the_model_and_its_training_record(model):
    info = {"training": {"seconds": 41.6, "steps": 1234, "exact_match": 0.97}}
    caption = bahdanau_attention.shipped_caption(model, info)
    assert f"{sum(p.numel() for p in model.parameters()):,} parameters" in caption
    assert "trained 42 s (1234 steps) to 97% held-out exact match" in caption
    assert "trained 0 s (? steps) to 0% held-out" in bahdanau_attention.shipped_caption(model, {})


def test_figures_show_the_decodings_alpha(pizza):
    heatmap = bahdanau_attention.alignment_figure(pizza, "α")
    np.testing.assert_array_equal(heatmap.data[0].z, pizza.weights)
    assert list(heatmap.layout.xaxis.ticktext) == [charts.safe_label(t) for t in pizza.source]  # escaped: "&lt;/s&gt;"
    assert list(heatmap.layout.yaxis.ticktext) == [charts.safe_label(t) for t in pizza.target]
    alpha, context = bahdanau_attention.step_figures(pizza, 2)
    np.testing.assert_array_equal(alpha.data[0].x, pizza.weights[1])  # horizontal bars: one per source token
    assert len(alpha.data[0].y) == len(pizza.source)
    np.testing.assert_allclose(np.asarray(context.data[0].z).ravel(), pizza.contexts[1], atol=1e-6)
    assert alpha.layout.title.text == "α at step 2 over the source"
    assert context.layout.title.text == f"context vector c_2 (D = {pizza.contexts.shape[1]})"


def test_a_run_is_the_students_own_fresh_model_not_yet_started(model):
    run = bahdanau_attention.new_run("dates", seed=0, budget_seconds=bahdanau_attention.budget_seconds("dates"))
    assert run.status == "queued" and not run.snapshots and run.model is not model
    assert bahdanau_attention.budget_seconds("dates") < bahdanau_attention.budget_seconds(IT) <= 120
