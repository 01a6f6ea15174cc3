"""The Bahdanau lesson's numbers: α rows, context vectors, the whole step (e, α, c, s, p), the lecture's c⟨1⟩, the cost
of attention, beam rows, the forced step, the exercises."""

import dataclasses

import numpy as np
import pytest
import torch

from lessons import bahdanau_attention
from lessons.common import charts
from lessons.common.pretrained import load_pretrained
from minimodels.attention import AdditiveAttention
from minimodels.decode import translate
from minimodels.tasks import get_task
from minimodels.tokenizers import BOS_ID, EOS_ID, PAD_ID
from minimodels.train import build_model

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


def test_exercise_answers_are_computed_and_explained_with_their_numbers(model, task, pizza):
    exercises = bahdanau_attention.exercises(model)
    by_key = {ex.key: ex for ex in exercises}
    assert len(exercises) >= 3 and len(by_key) == len(exercises)
    for ex in exercises:  # nothing on the page to read the answer off: no "above", no "check by decoding"
        assert "above" not in ex.prompt and "to check" not in ex.prompt
    # softmax of three given scores, against torch's
    e = torch.tensor(bahdanau_attention.SOFTMAX_SCORES)
    alpha = torch.softmax(e, dim=0)
    ex1 = by_key["bahdanau_attention.ex1"]
    assert ex1.check(float(alpha[0])).correct and f"{float(alpha[0]):.3f}" in ex1.explanation
    assert not ex1.check(float(e[0] / e.sum())).correct  # the usual slip: scores normalised without exp
    # a context vector as the lecture's weighted sum
    c = torch.tensor(bahdanau_attention.LECTURE_WEIGHTS) @ torch.tensor(bahdanau_attention.CONTEXT_STATES)
    ex4 = by_key["bahdanau_attention.ex4"]
    assert ex4.check(float(c[1])).correct and not ex4.check(float(c[0])).correct
    assert "0.6, 0.35, 0.05" in ex4.prompt  # the lecture's 60% / 35% / 5%
    # one additive score from given W, U, v: the course's own AdditiveAttention with those weights
    score = AdditiveAttention(2, 2, 2)
    with torch.no_grad():
        score.W_q.weight.copy_(torch.tensor(bahdanau_attention.SCORE_W))
        score.W_k.weight.copy_(torch.tensor(bahdanau_attention.SCORE_U))
        score.W_k.bias.zero_()
        score.v.weight.copy_(torch.tensor([bahdanau_attention.SCORE_V]))
        expected = score.score(
            torch.tensor([[bahdanau_attention.SCORE_S]]), torch.tensor([[bahdanau_attention.SCORE_H]])
        ).item()
    ex5 = by_key["bahdanau_attention.ex5"]
    assert ex5.check(expected).correct and f"{expected:.3f}" in ex5.explanation
    assert not ex5.check(-expected).correct
    # the score's parameters and the context's size, read off the model
    D, A = model.config.decoder_size, model.config.attention_size
    assert by_key["bahdanau_attention.ex2"].check(2 * A * D + 2 * A).correct
    assert not by_key["bahdanau_attention.ex2"].check(2 * A * D).correct
    ex6 = by_key["bahdanau_attention.ex6"]
    assert ex6.check(pizza.contexts.shape[1]).correct and not ex6.check(model.config.hidden_size).correct
    assert by_key["bahdanau_attention.ex3"].check(0).correct
    for ex in exercises:  # a wrong answer gets the worked solution, never a direction
        wrong = ex.check((ex.answer + 1) % len(ex.choices) if ex.choices else ex.answer + 7)
        assert not wrong.correct and ex.explanation in wrong.message
        assert "too high" not in wrong.message.lower() and "too low" not in wrong.message.lower()


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


# --- the whole step, read off the model -----------------------------------------------------------------
@pytest.fixture(scope="module")
def steps(model, task):
    return bahdanau_attention.walk(model, task, "I like pizza")


def test_walk_is_the_models_own_greedy_decoding(steps, pizza):
    """The walk writes what decoding writes, with the attention the model used and the contexts it read."""
    assert steps.written == pizza.target and steps.source == pizza.source
    np.testing.assert_allclose(steps.weights, pizza.weights, atol=1e-6)
    np.testing.assert_allclose(steps.contexts, pizza.contexts, atol=1e-5)
    np.testing.assert_allclose(steps.weights.sum(axis=1), 1.0, atol=1e-5)
    softmax = np.exp(steps.scores) / np.exp(steps.scores).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(softmax, steps.weights, atol=1e-5)  # α = softmax(e)
    assert steps.previous[0] == "<s>" and steps.previous[1:] == steps.written[:-1]  # y_{t-1} fed back


def test_walk_states_and_probabilities_are_the_models_step(model, task, steps):
    """Replay with the model's public ``step``: the same s_t, and p(y_t | ·) is the softmax of its logits; s_t is
    the GRU cell's update of s_{t-1} from [E y_{t-1}; c_t], computed here from the cell's weights."""
    ids = [*task.encode_source("I like pizza").ids, EOS_ID]
    with torch.inference_mode():
        memory = model.encode(torch.tensor([ids]), torch.tensor([len(ids)]))
        state = model.initial_state(memory)
        np.testing.assert_allclose(steps.states[0], state[0].numpy(), atol=1e-6)
        prev = torch.tensor([BOS_ID])
        cell, D = model.decoder, model.config.decoder_size
        for t in range(len(steps.written)):
            x = torch.cat([model.target_embedding(prev), torch.from_numpy(steps.contexts[t])[None]], dim=-1)
            gi, gh = x @ cell.weight_ih.T + cell.bias_ih, state @ cell.weight_hh.T + cell.bias_hh
            r, z = torch.sigmoid(gi[:, :-D] + gh[:, :-D]).chunk(2, dim=-1)
            n = torch.tanh(gi[:, -D:] + r * gh[:, -D:])
            by_hand = (1 - z) * n + z * state  # GRU: s_t = (1 - z) n + z s_{t-1}
            out = model.step(prev, state, memory)
            np.testing.assert_allclose(steps.states[t + 1], out.state[0].numpy(), atol=1e-5)
            np.testing.assert_allclose(by_hand[0].numpy(), out.state[0].numpy(), atol=1e-5)
            probs = torch.softmax(out.logits[0], dim=-1)
            top = probs.index_fill(0, torch.tensor([PAD_ID, BOS_ID]), -1).topk(len(steps.top_probs[t]))
            np.testing.assert_allclose(steps.top_probs[t], top.values.numpy(), atol=1e-6)
            assert steps.top_tokens[t] == [task.target_tokenizer.id_to_piece(int(i)) for i in top.indices]
            assert (np.diff(steps.top_probs[t]) <= 0).all()
            state, prev = out.state, top.indices[:1]


def test_step_tables_and_sentence_are_the_walks_numbers(steps):
    t = 2
    rows = bahdanau_attention.score_rows(steps, t)
    assert [r["source token hᵢ"] for r in rows] == steps.source
    np.testing.assert_allclose([r["score eₜ,ᵢ"] for r in rows], steps.scores[t - 1])
    np.testing.assert_allclose([r["αₜ,ᵢ = softmax(e)"] for r in rows], steps.weights[t - 1])
    vectors = bahdanau_attention.vector_rows(steps, t)
    norms = [np.linalg.norm(v) for v in (steps.contexts[t - 1], steps.states[t - 1], steps.states[t])]
    np.testing.assert_allclose([r["‖·‖"] for r in vectors], norms, rtol=1e-6)
    top = bahdanau_attention.top_rows(steps, t)
    assert top[0]["token yₜ"] == steps.written[t - 1] and len(top) == bahdanau_attention.TOP_K
    sentence = bahdanau_attention.step_sentence(steps, t)
    looked = steps.source[int(steps.weights[t - 1].argmax())]
    assert f"on `{looked}`" in sentence and f"wrote `{steps.written[t - 1]}`" in sentence
    # the sentence follows the numbers: move the weight elsewhere and it names the other token
    other = int(steps.weights[t - 1].argmin())
    flipped = steps.weights.copy()
    flipped[t - 1] = 0.0
    flipped[t - 1, other] = 1.0
    moved = bahdanau_attention.step_sentence(dataclasses.replace(steps, weights=flipped), t)
    assert f"on `{steps.source[other]}`" in moved


def test_walk_refuses_empty_text_and_a_luong_model(model, task):
    assert isinstance(bahdanau_attention.walk(model, task, "  "), str)
    luong = build_model("gru-dot", task)
    with pytest.raises(ValueError):
        bahdanau_attention.walk(luong, task, "I like pizza")


# --- the lecture's c<1> as a weighted sum -------------------------------------------------------------------
@pytest.fixture(scope="module")
def jane():
    french, _ = load_pretrained("toy-translation", bahdanau_attention.MODEL)
    return bahdanau_attention.decode(french, get_task("toy-translation"), bahdanau_attention.JANE)


def test_jane_is_translated_as_in_the_lecture(jane):
    assert jane.translation.text == "Jane visite l'Afrique en septembre"


@pytest.mark.parametrize("t", [1, 3])
def test_weighted_sum_rows_add_up_to_the_models_context(jane, t):
    fig = bahdanau_attention.weighted_sum_figure(jane, t)
    z = np.asarray(fig.data[0].z)
    S = len(jane.source)
    np.testing.assert_allclose(z[:S], jane.weights[t - 1][:, None] * jane.states, atol=1e-6)
    np.testing.assert_allclose(z[:S].sum(axis=0), z[S], atol=1e-5)  # the rows add up to the last row …
    np.testing.assert_allclose(z[S], jane.contexts[t - 1], atol=1e-6)  # … which is the model's c_t
    labels = list(fig.layout.yaxis.ticktext)
    assert labels[-1] == f"= c⟨{t}⟩" and labels[0].startswith(f"{jane.weights[t - 1][0]:.2f} · h(")


def test_weighted_sum_sentence_names_the_largest_weight_and_follows_it(jane):
    t = 1
    top = int(jane.weights[t - 1].argmax())
    assert f"h({jane.source[top]})" in bahdanau_attention.weighted_sum_sentence(jane, t).split(":")[0]
    swapped = jane.weights.copy()
    swapped[t - 1] = np.roll(swapped[t - 1], 1)
    moved = bahdanau_attention.weighted_sum_sentence(dataclasses.replace(jane, weights=swapped), t)
    assert f"h({jane.source[(top + 1) % len(jane.source)]})" in moved.split(":")[0]


def test_decoding_keeps_the_encoder_states_its_contexts_sum(jane):
    np.testing.assert_allclose(jane.weights @ jane.states, jane.contexts, atol=1e-5)


# --- what attention costs -----------------------------------------------------------------------------------
def test_cost_is_measured_for_both_decoders_with_the_weights_sizes(model):
    cost = bahdanau_attention.measure_cost(model.config, lengths=(4, 8), batch=2, repeats=2)
    assert len(cost.rows) == 2 * 2 * 2 and cost.lengths == [4, 8]
    D, A = model.config.decoder_size, model.config.attention_size
    for T in (4, 8):
        assert cost.values("additive", T, "alpha_bytes") == [T * T * 4] * 2  # T_y × T_x floats
        assert cost.values("none", T, "alpha_bytes") == [0, 0]
        assert cost.values("additive", T, "read_bytes") == [T * (D + A) * 4] * 2  # states and keys
        assert cost.values("none", T, "read_bytes") == [D * 4] * 2  # one context vector
        assert all(ms > 0 for ms in cost.values("additive", T) + cost.values("none", T))
    assert "bidirectional" in cost.models["additive"] and "no attention" in cost.models["none"]
    time_chart, memory_chart = bahdanau_attention.cost_charts(cost)
    assert time_chart and memory_chart


def _cost(ms: dict) -> bahdanau_attention.Cost:
    """A Cost with given times: ``ms[variant] = (times at length 16, times at length 256)`` per repeat."""
    rows = []
    for variant, (short, long) in ms.items():
        for T, times in ((16, short), (256, long)):
            for repeat, value in enumerate(times):
                alpha = T * T * 4 if variant == "additive" else 0
                rows.append({"variant": variant, "repeat": repeat, "length": T, "ms": value, "alpha_bytes": alpha,
                             "read_bytes": 512})  # fmt: skip
    return bahdanau_attention.Cost(tuple(rows), 1, 16, 3, {"additive": "with", "none": "without"})


def test_cost_sentence_says_which_grew_faster_from_the_numbers():
    attention_faster = _cost({"additive": ((1, 1, 1), (40, 41, 39)), "none": ((1, 1, 1), (16, 16.5, 15.5))})
    sentence = bahdanau_attention.cost_sentence(attention_faster)
    assert "40× longer to decode with attention (time ∝ T^1.33) and 16× longer without (∝ T^1.00" in sentence
    assert "grew clearly faster" in sentence and "weights grew 256×" in sentence
    assert "2.5× at T = 256" in sentence
    swapped = _cost({"additive": ((1, 1, 1), (16, 16.5, 15.5)), "none": ((1, 1, 1), (40, 41, 39))})
    assert "without attention grew faster" in bahdanau_attention.cost_sentence(swapped)
    close = _cost({"additive": ((1, 1, 1), (20, 30, 10)), "none": ((1, 1, 1), (16, 26, 12))})
    assert "about as much" in bahdanau_attention.cost_sentence(close)


# --- labels and the student's own bidirectional model -------------------------------------------------------
def test_every_model_is_labelled_with_what_it_is(model):
    assert model.config.bidirectional and model.config.describe() in bahdanau_attention.shipped_caption(model, {})
    own = bahdanau_attention.new_run("dates", 1, 5.0, bidirectional=True).model
    assert own.config.bidirectional and own.config.decoder_size == 2 * own.config.hidden_size
    caption = bahdanau_attention.model_caption(own, model, {})
    assert caption.startswith("Your model, trained on this page: bidirectional GRU encoder")
    plain = bahdanau_attention.new_run("dates", 1, 5.0).model
    assert "unidirectional" in bahdanau_attention.model_caption(plain, model, {})


def test_forced_note_says_whether_the_output_changed(pizza, model, task):
    same = bahdanau_attention.decode(model, task, "I like pizza", force=(0, 1))
    changed = bahdanau_attention.decode(model, task, "I like pizza", force=(3, 0))
    assert same.translation.text == pizza.translation.text != changed.translation.text  # both cases occur
    for forced, step, index in ((same, 0, 1), (changed, 3, 0)):
        note = bahdanau_attention.forced_note(forced, pizza, step, index)
        assert ("unchanged" in note) == (forced.translation.text == pizza.translation.text)


def test_alignment_note_counts_the_steps_where_attention_moves_back(pizza):
    assert "left to right (or stays) at every step" in bahdanau_attention.alignment_note(pizza)
    path = pizza.weights.argmax(axis=1)
    assert (np.diff(path) >= 0).all()  # the note above is what the α's show
    reordered = pizza.weights[:, ::-1].copy()  # the same rows, the source read right to left: it moves back
    note = bahdanau_attention.alignment_note(dataclasses.replace(pizza, weights=reordered))
    back = int((np.diff(reordered.argmax(axis=1)) < 0).sum())
    assert back > 0 and f"moves back {back} time" in note and "word-order change" in note


def test_the_cost_exercise_counts_the_weights_a_real_decoder_computes():
    ex = bahdanau_attention._cost_exercise()
    T_x, T_y = bahdanau_attention.COST_EXERCISE.values()
    assert ex.answer == T_x * T_y  # counted by running the decoder, equal to one weight per (output, source) pair
    assert ex.check(T_x * T_y).correct and not ex.check(T_x + T_y).correct
    assert f"{T_y} × {T_x}" in ex.explanation
