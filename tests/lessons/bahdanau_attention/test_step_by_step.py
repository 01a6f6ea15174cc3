"""Section 1, the whole step read off the model: e, α, c, s and p at every step of the greedy output, the tables and
the sentence shown for one step, the score function's parameters."""

import dataclasses

import numpy as np
import pytest
import torch

from lessons.bahdanau_attention import step_by_step
from minimodels.tokenizers import BOS_ID, EOS_ID, PAD_ID
from minimodels.train import build_model


@pytest.fixture(scope="module")
def steps(model, task):
    return step_by_step.walk(model, task, "I like pizza")


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
    rows = step_by_step.score_rows(steps, t)
    assert [r["source token hᵢ"] for r in rows] == steps.source
    np.testing.assert_allclose([r["score eₜ,ᵢ"] for r in rows], steps.scores[t - 1])
    np.testing.assert_allclose([r["αₜ,ᵢ = softmax(e)"] for r in rows], steps.weights[t - 1])
    vectors = step_by_step.vector_rows(steps, t)
    norms = [np.linalg.norm(v) for v in (steps.contexts[t - 1], steps.states[t - 1], steps.states[t])]
    np.testing.assert_allclose([r["‖·‖"] for r in vectors], norms, rtol=1e-6)
    top = step_by_step.top_rows(steps, t)
    assert top[0]["token yₜ"] == steps.written[t - 1] and len(top) == step_by_step.TOP_K
    sentence = step_by_step.step_sentence(steps, t)
    looked = steps.source[int(steps.weights[t - 1].argmax())]
    assert f"on `{looked}`" in sentence and f"wrote `{steps.written[t - 1]}`" in sentence
    # the sentence follows the numbers: move the weight elsewhere and it names the other token
    other = int(steps.weights[t - 1].argmin())
    flipped = steps.weights.copy()
    flipped[t - 1] = 0.0
    flipped[t - 1, other] = 1.0
    moved = step_by_step.step_sentence(dataclasses.replace(steps, weights=flipped), t)
    assert f"on `{steps.source[other]}`" in moved


def test_walk_refuses_empty_text_and_a_luong_model(model, task):
    assert isinstance(step_by_step.walk(model, task, "  "), str)
    luong = build_model("gru-dot", task)
    with pytest.raises(ValueError):
        step_by_step.walk(luong, task, "I like pizza")


def test_additive_parameter_count_is_2AD_plus_2A(model):
    D, A = model.config.decoder_size, model.config.attention_size
    assert step_by_step.additive_parameters(model) == 2 * A * D + 2 * A
