"""The plain RNN at other learning rates: the sentence is computed from the runs and says which way they went."""

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.rnn_cells import learning_rates
from lessons.rnn_cells.training import LR


def rates(accuracies: dict[float, list[float]], distance: int = 20) -> Comparison:
    """A made-up measurement: per learning rate, the RNN's final accuracy for each seed at ``distance``."""
    runs = [
        Run(learning_rates.variant(lr), seed, {"distance": distance}, (), {"accuracy": a, "steps": 600.0})
        for lr, values in accuracies.items()
        for seed, a in enumerate(values)
    ]
    return Comparison(tuple(learning_rates.variant(lr) for lr in accuracies), tuple(runs), {})


def test_the_sentence_counts_seeds_past_chance_and_solved_at_each_rate():
    text = learning_rates.rates_summary(rates({LR: [0.5, 0.51, 0.49], 0.01: [0.99, 0.5, 0.5], 0.03: [0.5, 0.5, 0.5]}))
    assert f"lr {LR:g}: 0 of 3 seeds solved it, 0 above chance" in text
    assert "lr 0.01: 1 of 3 seeds solved it, 1 above chance" in text
    assert "holds at the learning rate chosen for the LSTM" in text and "At none of these rates" not in text


def test_the_sentence_says_so_when_no_rate_moves_the_plain_rnn():
    text = learning_rates.rates_summary(rates({LR: [0.99, 0.5, 0.5], 0.01: [0.5, 0.5, 0.5], 0.03: [0.5, 0.5, 0.5]}))
    assert "At none of these rates did any seed of the plain RNN get past chance" in text  # the page's rate may
    assert f"lr {LR:g}: 1 of 3 seeds solved it" in text


def test_the_shipped_rates_load_and_read():
    results = learning_rates.load_results()
    assert set(results.variants) == {learning_rates.variant(lr) for lr in learning_rates.RATES}
    assert results.param_values("distance") == learning_rates.DISTANCES
    text = learning_rates.rates_summary(results)
    for lr in learning_rates.RATES:
        assert f"lr {lr:g}: " in text
