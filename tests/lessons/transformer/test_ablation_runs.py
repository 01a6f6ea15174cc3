"""Section 4's measurements: the results files and script, and the no-FFN variant's model."""

import json

import pytest

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.transformer import ablation_runs, by_hand, reading
from minimodels.tasks import get_task


def test_results_files_are_checked(tmp_path):
    with pytest.raises(FileNotFoundError, match="transformer_results.py"):
        ablation_runs.load_results(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text(json.dumps({"runs": {}}), encoding="utf-8")
    with pytest.raises(ValueError, match="transformer_results.py"):
        ablation_runs.load_results(tmp_path / "bad.json")
    odd = Comparison(("no attention",), (Run("no attention", 0, final={"test exact": 0.5}),))
    with pytest.raises(ValueError, match="unknown variants"):
        ablation_runs.load_results(odd.save(tmp_path / "odd.json"))


def test_the_results_script_writes_what_the_lesson_reads(tmp_path, monkeypatch):
    """The script's grid, with a stand-in for the training: one run per variant and seed, saved and read back."""
    import scripts.transformer_results as script

    def train_variant(variant, seed, steps, threads):
        history = [{"step": 25, "seconds": 1.0, "loss": 2.0, "exact_match": 0.1 * seed}]
        return {
            "parameters": 10,
            "steps": steps,
            "seconds": 1.0,
            "exact_match": 0.1 * seed,
            "test_exact_match": 0.1 * seed,
            "history": history,
        }

    monkeypatch.setattr(script, "train_variant", train_variant)
    out = tmp_path / "out.json"
    assert (
        script.main(["--seeds", "0", "1", "--variants", "full", "no residual", "--steps", "5", "--out", str(out)]) == 0
    )
    written = ablation_runs.load_results(out)
    assert written.variants == ("full", "no residual") and written.seeds == (0, 1)
    assert (
        written.meta["script"] == ablation_runs.RESULT_SCRIPT
        and written.label("full") == ablation_runs.VARIANT_LABELS["full"]
    )
    assert written.runs_of("no residual")[1].value("test exact") == 0.1


def test_a_model_without_feed_forward_networks_has_none_and_decodes_as_it_trains():
    import torch

    from minimodels.decode import greedy, teacher_forced
    from minimodels.train import build_model

    task = get_task("dates")
    full = build_model(reading.MODEL, task, seed=0)
    bare = build_model(reading.MODEL, task, seed=0, **ablation_runs.VARIANTS["no FFN"])
    assert not any(type(m).__name__ == "FeedForward" for m in bare.modules())
    c = full.config
    per_ffn = by_hand.feed_forward_parameters(c) + 2 * c.d_model  # the network and its layer norm
    count = sum(p.numel() for p in full.parameters()) - sum(p.numel() for p in bare.parameters())
    assert count == (c.encoder_layers + c.decoder_layers) * per_ffn
    batch = task.encoded("valid").select(torch.arange(4))
    decoded = greedy(bare, batch.source, batch.source_lengths, max_len=6)
    target_in = torch.cat([torch.full((4, 1), 1), decoded.tokens[:, :-1]], dim=1)  # BOS + its own output
    forced = teacher_forced(bare, batch.source, batch.source_lengths, target_in)
    assert torch.equal(forced.tokens, decoded.tokens)  # the step-by-step path computes what the whole pass does
