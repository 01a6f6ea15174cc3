"""Section 6, what attention costs: both decoders measured with the weights' sizes, the sentence said from the
numbers, and the exercise that counts the weights of one sentence."""

from lessons.bahdanau_attention import attention_cost


def test_cost_is_measured_for_both_decoders_with_the_weights_sizes(model):
    cost = attention_cost.measure_cost(model.config, lengths=(4, 8), batch=2, repeats=2)
    assert len(cost.rows) == 2 * 2 * 2 and cost.lengths == [4, 8]
    D, A = model.config.decoder_size, model.config.attention_size
    for T in (4, 8):
        assert cost.values("additive", T, "alpha_bytes") == [T * T * 4] * 2  # T_y × T_x floats
        assert cost.values("none", T, "alpha_bytes") == [0, 0]
        assert cost.values("additive", T, "read_bytes") == [T * (D + A) * 4] * 2  # states and keys
        assert cost.values("none", T, "read_bytes") == [D * 4] * 2  # one context vector
        assert all(ms > 0 for ms in cost.values("additive", T) + cost.values("none", T))
    assert "bidirectional" in cost.models["additive"] and "no attention" in cost.models["none"]
    time_chart, memory_chart = attention_cost.cost_charts(cost)
    assert time_chart and memory_chart


def _cost(ms: dict) -> attention_cost.Cost:
    """A Cost with given times: ``ms[variant] = (times at length 16, times at length 256)`` per repeat."""
    rows = []
    for variant, (short, long) in ms.items():
        for T, times in ((16, short), (256, long)):
            for repeat, value in enumerate(times):
                alpha = T * T * 4 if variant == "additive" else 0
                rows.append(
                    {
                        "variant": variant,
                        "repeat": repeat,
                        "length": T,
                        "ms": value,
                        "alpha_bytes": alpha,
                        "read_bytes": 512,
                    }
                )
    return attention_cost.Cost(tuple(rows), 1, 16, 3, {"additive": "with", "none": "without"})


def test_cost_sentence_says_which_grew_faster_from_the_numbers():
    attention_faster = _cost({"additive": ((1, 1, 1), (40, 41, 39)), "none": ((1, 1, 1), (16, 16.5, 15.5))})
    sentence = attention_cost.cost_sentence(attention_faster)
    assert "40× longer to decode with attention (time ∝ T^1.33) and 16× longer without (∝ T^1.00" in sentence
    assert "grew clearly faster" in sentence and "weights grew 256×" in sentence
    assert "2.5× at T = 256" in sentence
    swapped = _cost({"additive": ((1, 1, 1), (16, 16.5, 15.5)), "none": ((1, 1, 1), (40, 41, 39))})
    assert "without attention grew faster" in attention_cost.cost_sentence(swapped)
    close = _cost({"additive": ((1, 1, 1), (20, 30, 10)), "none": ((1, 1, 1), (16, 26, 12))})
    assert "about as much" in attention_cost.cost_sentence(close)


def test_the_cost_exercise_counts_the_weights_a_real_decoder_computes():
    ex = attention_cost._cost_exercise()
    T_x, T_y = attention_cost.COST_EXERCISE.values()
    assert ex.answer == T_x * T_y  # counted by running the decoder, equal to one weight per (output, source) pair
    assert ex.check(T_x * T_y).correct and not ex.check(T_x + T_y).correct
    assert f"{T_y} × {T_x}" in ex.explanation
