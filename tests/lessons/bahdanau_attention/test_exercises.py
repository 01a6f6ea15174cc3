"""The check-yourself questions: every answer computed, every explanation with its numbers, never a direction."""

import torch

from lessons import bahdanau_attention
from lessons.bahdanau_attention import step_by_step, weighted_sum
from minimodels.attention import AdditiveAttention


def test_exercise_answers_are_computed_and_explained_with_their_numbers(model, task, pizza):
    exercises = bahdanau_attention.exercises(model)
    by_key = {ex.key: ex for ex in exercises}
    assert len(exercises) >= 3 and len(by_key) == len(exercises)
    for ex in exercises:  # nothing on the page to read the answer off: no "above", no "check by decoding"
        assert "above" not in ex.prompt and "to check" not in ex.prompt
    # softmax of three given scores, against torch's
    e = torch.tensor(step_by_step.SOFTMAX_SCORES)
    alpha = torch.softmax(e, dim=0)
    ex1 = by_key["bahdanau_attention.ex1"]
    assert ex1.check(float(alpha[0])).correct and f"{float(alpha[0]):.3f}" in ex1.explanation
    assert not ex1.check(float(e[0] / e.sum())).correct  # the usual slip: scores normalised without exp
    # a context vector as the lecture's weighted sum
    c = torch.tensor(weighted_sum.LECTURE_WEIGHTS) @ torch.tensor(weighted_sum.CONTEXT_STATES)
    ex4 = by_key["bahdanau_attention.ex4"]
    assert ex4.check(float(c[1])).correct and not ex4.check(float(c[0])).correct
    assert "0.6, 0.35, 0.05" in ex4.prompt  # the lecture's 60% / 35% / 5%
    # one additive score from given W, U, v: the course's own AdditiveAttention with those weights
    score = AdditiveAttention(2, 2, 2)
    with torch.no_grad():
        score.W_q.weight.copy_(torch.tensor(step_by_step.SCORE_W))
        score.W_k.weight.copy_(torch.tensor(step_by_step.SCORE_U))
        score.W_k.bias.zero_()
        score.v.weight.copy_(torch.tensor([step_by_step.SCORE_V]))
        expected = score.score(torch.tensor([[step_by_step.SCORE_S]]), torch.tensor([[step_by_step.SCORE_H]])).item()
    ex5 = by_key["bahdanau_attention.ex5"]
    assert ex5.check(expected).correct and f"{expected:.3f}" in ex5.explanation
    assert not ex5.check(-expected).correct
    # the score's parameters and the context's size, read off the model
    D, A = model.config.decoder_size, model.config.attention_size
    assert by_key["bahdanau_attention.ex2"].check(2 * A * D + 2 * A).correct
    assert not by_key["bahdanau_attention.ex2"].check(2 * A * D).correct
    ex6 = by_key["bahdanau_attention.ex6"]
    cell_input = model.config.embedding_size + pizza.contexts.shape[1]  # [embedding; context]
    assert ex6.check(cell_input).correct and not ex6.check(pizza.contexts.shape[1]).correct
    assert by_key["bahdanau_attention.ex3"].check(0).correct
    for ex in exercises:  # a wrong answer gets the worked solution, never a direction
        wrong = ex.check((ex.answer + 1) % len(ex.choices) if ex.choices else ex.answer + 7)
        assert not wrong.correct and ex.explanation in wrong.message
        assert "too high" not in wrong.message.lower() and "too low" not in wrong.message.lower()
