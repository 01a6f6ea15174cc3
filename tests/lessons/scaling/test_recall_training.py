"""The self-attention layer of section 4 and its training: two models of a seed start equal, the recall task's
batches, the softmax at step 0, a short training, and the shipped comparison loaded (a missing or foreign file
refused)."""

import math

import pytest
import torch

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.scaling import recall_training, scores


def test_the_two_models_of_a_seed_start_equal_and_differ_only_in_the_attention_module():
    a, b = (recall_training.recall_model(32, s, seed=3) for s in ("dot", "scaled_dot"))
    sa, sb = a.state_dict(), b.state_dict()
    assert sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)
    assert type(a.attention).__name__ == "DotProductAttention"
    assert type(b.attention).__name__ == "ScaledDotProductAttention"
    state = torch.random.get_rng_state()
    recall_training.recall_model(8, "dot", seed=5)
    assert torch.equal(state, torch.random.get_rng_state())  # the seed does not move torch's global generator
    with pytest.raises(ValueError, match="d_k must be one of"):
        recall_training.recall_model(7, "dot", 0)
    with pytest.raises(ValueError, match="scale must be one of"):
        recall_training.recall_model(8, "additive", 0)


def test_recall_batches_ask_about_a_present_key_and_answer_its_value():
    batch = recall_training.recall_batch(200, torch.Generator().manual_seed(0))
    assert batch.keys.shape == (200, recall_training.RECALL_ITEMS)
    assert all(len(set(row.tolist())) == recall_training.RECALL_ITEMS for row in batch.keys)  # distinct keys
    where = (batch.keys == batch.question[:, None]).float().argmax(-1)
    assert torch.equal(batch.values[torch.arange(200), where], batch.answer)
    logits, weights = recall_training.recall_model(8, "dot", 0)(batch)
    assert logits.shape == (200, recall_training.RECALL_VALUES)
    assert weights.shape == (200, recall_training.RECALL_ITEMS + 1, recall_training.RECALL_ITEMS + 1)


def test_at_step_0_the_unscaled_softmax_saturates_as_d_k_grows_and_the_scaled_one_does_not():
    test = recall_training.recall_test()
    states = {
        (s, d): recall_training.initial_state(recall_training.recall_model(d, s, 0), test)
        for s in scores.SCORES
        for d in (8, 512)
    }
    alpha, entropy = "initial largest α", "initial entropy (bits)"
    assert states["dot", 512][alpha] > 0.9 > states["dot", 8][alpha] > states["scaled_dot", 8][alpha]
    assert states["dot", 512][entropy] < 0.3 < states["dot", 8][entropy]
    assert abs(states["scaled_dot", 512][alpha] - states["scaled_dot", 8][alpha]) < 0.1  # one scale for every d_k
    assert all(0 < state["initial ‖∂L/∂W^Q‖"] < math.inf for state in states.values())


def test_train_recall_learns_and_records_its_curve():
    run = recall_training.train_recall(32, "scaled_dot", seed=0, steps=60)
    assert (run.variant, run.seed, run.params) == ("scaled_dot", 0, {"d_k": 32})
    assert [p["step"] for p in run.curve] == [0, 25, 50, 60]
    assert run.curve[-1]["accuracy"] > run.curve[0]["accuracy"] + 0.2  # it learns, from chance (1/16)
    assert run.final["test accuracy"] == run.curve[-1]["accuracy"]
    assert set(recall_training.INIT_METRICS) <= set(run.final)
    stopped = recall_training.train_recall(8, "dot", seed=0, steps=60, on_report=lambda point: point["step"] < 25)
    assert stopped.curve[-1]["step"] == 25


def test_the_shipped_results_load_and_a_missing_or_foreign_file_is_refused(tmp_path):
    results = recall_training.load_results()
    assert len(results.seeds) >= 3 and results.param_values("d_k") == recall_training.RECALL_D_K
    assert results.meta["command"].startswith("python scripts/scaling_results.py")
    with pytest.raises(FileNotFoundError, match="scaling_results.py"):
        recall_training.load_results(tmp_path / "scaling.json")
    other = Comparison(("a", "b"), (Run("a", 0), Run("b", 0)))
    other.save(tmp_path / "scaling.json")
    with pytest.raises(ValueError, match="compares"):
        recall_training.load_results(tmp_path / "scaling.json")
