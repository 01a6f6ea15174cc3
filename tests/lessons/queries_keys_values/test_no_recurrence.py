"""The Q/K/V lesson's why-no-recurrence section: the counts come from the models' graphs, the timing covers every
length, and the sentence follows the numbers it describes."""

import pytest
import torch

from lessons.queries_keys_values import no_recurrence

GRU, ATT = no_recurrence.GRU_ENCODER, no_recurrence.SELF_ATTENTION


@pytest.fixture(scope="module")
def models():
    return no_recurrence.recurrence_models(width=16, vocab=50)


def test_the_stepped_gru_is_the_encoder_it_counts(models):
    source = torch.randint(4, 50, (3, 11), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        torch.testing.assert_close(models.gru_stepped(source), models.gru(source), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("T", [1, 5, 17, 64])
def test_a_gru_needs_t_products_in_a_row_and_self_attention_three(models, T):
    steps = no_recurrence.sequential_steps(models, T)
    assert steps == {GRU: T, ATT: 3}  # X W^Q, then QKᵀ, then αV, whatever T


def test_the_count_follows_what_each_step_reads(models):
    T = 12
    assert no_recurrence.sequential_steps(models, T, bidirectional=True)[GRU] == T  # the two passes run side by side
    assert no_recurrence.sequential_steps(models, T, layers=2)[GRU] == T + 1  # a wavefront, one step behind
    assert no_recurrence.sequential_steps(models, T, layers=3)[GRU] == T + 2
    assert (
        no_recurrence.sequential_steps(models, T, layers=2, bidirectional=True)[GRU] == 2 * T
    )  # layer 2 waits for all of 1


def test_the_chain_counts_only_products_that_wait_for_each_other():
    x = torch.randn(4, 4, requires_grad=True)
    W = torch.randn(4, 4)
    assert no_recurrence.matrix_product_chain(x @ W + x @ W.T) == 1  # two products side by side
    assert no_recurrence.matrix_product_chain(((x @ W) @ W) @ W) == 3
    assert no_recurrence.matrix_product_chain(torch.tanh(x @ W).exp() @ W) == 2


def test_multiply_adds_from_the_shapes(models):
    d, T = 16, 10
    assert no_recurrence.multiply_adds(models, T) == {
        GRU: T * (3 * d * d + 3 * d * d),
        ATT: 3 * T * d * d + 2 * T * T * d,
    }


def test_measure_recurrence_times_and_counts_every_length():
    timing = no_recurrence.measure_recurrence((4, 8), batch=2, width=8, budget=0.001, repeats=2)
    assert timing.lengths == (4, 8) and timing.batch == 2 and timing.width == 8
    for name in (GRU, ATT):
        assert [len(r) for r in timing.ms[name]] == [2, 2] and all(v > 0 for r in timing.ms[name] for v in r)
    assert timing.steps == {GRU: (4, 8), ATT: (3, 3)}
    rows = no_recurrence.recurrence_rows(timing)
    assert [r["T"] for r in rows] == [4, 8] and rows[1]["GRU steps"] == 8
    assert rows[0]["GRU ms"] == sum(timing.ms[GRU][0]) / 2  # the median of two: their mean
    assert rows[0]["GRU range"] == f"{min(timing.ms[GRU][0]):.3f}–{max(timing.ms[GRU][0]):.3f}"
    with pytest.raises(ValueError, match="lengths"):
        no_recurrence.measure_recurrence((0,))


def _timing(gru_ms, att_ms, lengths=(8, 64, 512)):
    d = 64
    return no_recurrence.RecurrenceTiming(
        lengths=lengths,
        ms={GRU: tuple((v * 0.95, v, v * 1.1) for v in gru_ms), ATT: tuple((v * 1.2, v, v * 0.9) for v in att_ms)},
        steps={GRU: lengths, ATT: (3,) * len(lengths)},
        work={GRU: tuple(6 * t * d * d for t in lengths), ATT: tuple(3 * t * d * d + 2 * t * t * d for t in lengths)},
        batch=8,
        width=d,
        threads=1,
        seconds=1.0,
    )


def test_the_recurrence_sentence_says_who_was_faster_from_the_numbers():
    faster = no_recurrence.recurrence_sentence(_timing((0.1, 1.0, 8.0), (0.05, 0.5, 4.0)))
    assert "self-attention was faster at every length measured" in faster and "median of 3" in faster
    slower = no_recurrence.recurrence_sentence(_timing((0.05, 0.5, 4.0), (0.1, 1.0, 8.0)))  # the same numbers swapped
    assert "self-attention was slower at every length measured" in slower
    crossing = no_recurrence.recurrence_sentence(_timing((0.1, 1.0, 4.0), (0.05, 0.5, 8.0)))
    assert "self-attention was faster at T = 8, 64 and slower at T = 512" in crossing
    assert "(its time was 0.50× the GRU's at T = 8, 2.00× at T = 512)" in crossing
    # ×4 and ×16 over 8× the length; repeat by repeat: (0.95, 1, 1.1) → ×4 each, (1.2, 1, 0.9) → ×16 each
    assert "the GRU's median time grew as T^0.7 (repeat by repeat T^0.7 to T^0.7)" in crossing
    assert "self-attention's as T^1.3 (T^1.3 to T^1.3)" in crossing
    close = no_recurrence.recurrence_sentence(_timing((0.1, 1.0, 4.0), (0.05, 1.05, 8.0)))
    assert "too close to tell at T = 64 (the repeats' ranges overlap)" in close
    assert "512 at T = 512; self-attention's stays at 3 whatever T" in crossing
    # the times are one measurement's; lesson 1's timing of other models is pointed to, not contradicted in silence
    assert "another run, or another machine, moves them" in faster
    assert "Lesson 1 times other models" in faster and "may find the opposite at long T" in faster


def test_the_recurrence_sentence_reads_the_arithmetic():
    long = no_recurrence.recurrence_sentence(_timing((0.1, 1.0, 8.0), (0.05, 0.5, 4.0)))
    assert "not less arithmetic (at T = 512 it does 3.2× the GRU's multiply-adds" in long
    short = no_recurrence.recurrence_sentence(_timing((0.1, 1.0), (0.05, 0.5), lengths=(8, 16)))
    assert "even does less arithmetic" in short and "not less arithmetic" not in short
