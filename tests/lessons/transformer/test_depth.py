"""Section 5's depth sweep: sentences and prediction follow the numbers; the script and the shipped sweep."""

import pytest

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.transformer import ablation_runs
from lessons.transformer.depth import (
    DEPTH_MODEL,
    DEPTH_SCRIPT,
    DEPTH_VARIANTS,
    DEPTHS,
    depth_curves,
    depth_observations,
    depth_overrides,
    depth_prediction,
    depth_rows,
    depth_run,
    load_depth_results,
)


def fake_sweep(exact: dict[str, dict[int, float]], seeds=(0, 1, 2), spread: float = 0.01) -> Comparison:
    runs = []
    for variant, by_depth in exact.items():
        for i, seed in enumerate(seeds):
            for depth, value in by_depth.items():
                end = value + (spread if i % 2 else -spread)
                history = [{"step": 50, "seconds": 1.0, "loss": 1.0 - end, "exact_match": end}]
                measured = {
                    "parameters": 10 * depth,
                    "steps": 50,
                    "seconds": 1.0,
                    "exact_match": end,
                    "history": history,
                }
                runs.append(depth_run(variant, seed, depth, measured))
    return Comparison(tuple(exact), tuple(runs), {"seeds": list(seeds)}, ablation_runs.VARIANT_LABELS)


def test_depth_sentences_and_prediction_follow_the_numbers(rule_on_made_up_seeds, tmp_path):
    collapse = fake_sweep({"full": {1: 0.5, 2: 0.7, 8: 0.8}, "no residual": {1: 0.5, 2: 0.1, 8: 0.0}})
    collapse = load_depth_results(collapse.save(tmp_path / "depth.json"))  # a round trip
    lines = depth_observations(collapse)
    assert lines[0] == (
        "**full**: held-out exact match rises from 49.7% ± 1.2% (n = 3) at 1 layer a stack to 79.7% ± 1.2% (n = 3) "
        "at 8 layers, and the final loss falls from 0.503 ± 0.012 (n = 3) to 0.203 ± 0.012 (n = 3)."
    )
    assert lines[1].startswith("**no residual**: held-out exact match falls")
    assert "clearly behind the full model by the course's rule at 2 and 8 layers" in lines[1]
    ex7 = depth_prediction(collapse)
    assert ex7.choices[ex7.answer] == "from 2 layers a stack"
    never = depth_prediction(fake_sweep({"full": {1: 0.5, 8: 0.8}, "no residual": {1: 0.5, 8: 0.8}}))
    assert never.choices[never.answer] == "at none of 1–8" and "never clearly behind" in never.explanation
    flipped = depth_observations(fake_sweep({"full": {1: 0.8, 8: 0.5}, "no residual": {1: 0.5, 8: 0.9}}))
    assert "match falls" in flipped[0] and "loss rises" in flipped[0] and "match rises" in flipped[1]
    assert "ahead of it at 8 layers" in flipped[1]
    rows = depth_rows(collapse)
    assert [(r["variant"], r["layers"]) for r in rows][:3] == [("full", 1), ("full", 2), ("full", 8)]
    assert rows[0]["n"] == 3 and "±" in rows[0]["held-out exact"]
    loss, exact = depth_curves(collapse)
    assert exact["encoding"]["x"]["scale"] == {"type": "log"} and loss["encoding"]["x"]["title"] == "layers per stack"
    assert {v["x"] for v in exact["data"]["values"]} == {1, 2, 8}
    seeds = [layer for layer in exact["layer"] if "seed" in layer["transform"][0]["filter"]]
    assert seeds and seeds[0]["mark"]["point"]["filled"]  # every seed's value drawn at every depth
    assert exact["encoding"]["x"]["axis"] == {"values": [1, 2, 8]}  # a tick at each depth measured


def test_depth_overrides_and_files_are_checked(tmp_path):
    assert depth_overrides("no layer norm", 4) == {
        **DEPTH_MODEL,
        "layer_norm": False,
        "encoder_layers": 4,
        "decoder_layers": 4,
    }
    with pytest.raises(ValueError):
        depth_overrides("no FFN", 2)
    with pytest.raises(ValueError):
        depth_overrides("full", 0)
    with pytest.raises(FileNotFoundError, match="--experiment depth"):
        load_depth_results(tmp_path / "missing.json")
    flat = Comparison(("full",), (Run("full", 0, final={"held-out exact": 0.5}),))
    with pytest.raises(ValueError, match="no depths"):
        load_depth_results(flat.save(tmp_path / "flat.json"))


def test_the_depth_script_writes_what_the_lesson_reads(tmp_path, monkeypatch):
    import scripts.transformer_results as script

    def train_depth(variant, seed, depth, steps, threads):
        history = [{"step": 50, "seconds": 1.0, "loss": 1.0 / depth, "exact_match": 0.1 * depth}]
        return {"parameters": depth, "steps": steps, "seconds": 1.0, "exact_match": 0.1 * depth, "history": history}

    monkeypatch.setattr(script, "train_depth", train_depth)
    out = tmp_path / "depth.json"
    argv = ["--experiment", "depth", "--seeds", "0", "1", "--depths", "1", "2", "--steps", "5", "--out", str(out)]
    assert script.main(argv) == 0
    written = load_depth_results(out)
    assert written.variants == tuple(DEPTH_VARIANTS) and written.param_values("depth") == (1, 2)
    assert written.meta["script"] == DEPTH_SCRIPT and written.meta["model"] == DEPTH_MODEL
    assert written.spread("held-out exact", "full", {"depth": 2}).mean == pytest.approx(0.2)


def test_shipped_depth_sweep_covers_every_variant_depth_and_seed():
    sweep = load_depth_results()
    assert sweep.variants == tuple(DEPTH_VARIANTS) and len(sweep.seeds) >= 3
    assert sweep.param_values("depth") == DEPTHS
    for variant in sweep.variants:
        for depth in DEPTHS:
            runs = sweep.runs_of(variant, {"depth": depth})
            assert sorted(r.seed for r in runs) == list(sweep.seeds)
            assert {r.value("steps") for r in runs} == {sweep.meta["max_steps"]}
    assert depth_observations(sweep) and depth_prediction(sweep) is not None


FIVE = (0, 1, 2, 3, 4)  # enough seeds for a verdict by the shared rule; the gaps below are tens of points


def test_the_lecture_depth_picture_is_said_reproduced_or_not_from_the_sweep():
    from lessons.transformer.depth import lecture_beside_sweep

    fails_at_once = fake_sweep(
        {"full": {1: 0.6, 8: 0.7}, "no residual": {1: 0.01, 8: 0.0}, "no layer norm": {1: 0.6, 8: 0.9}}, FIVE
    )
    lines = lecture_beside_sweep(fails_at_once)
    assert lines[0].startswith("The lecture's picture")
    assert "**Not reproduced for residuals.**" in lines[1] and "behind already at 1 layer a stack" in lines[1]
    assert "**Not reproduced for layer norm.**" in lines[2] and "ahead of it at 8 layers" in lines[2]
    as_lecture = fake_sweep(  # the same numbers swapped to the lecture's side: no gap at 1 layer, one at 8
        {"full": {1: 0.6, 8: 0.9}, "no residual": {1: 0.6, 8: 0.01}, "no layer norm": {1: 0.6, 8: 0.7}}, FIVE
    )
    lines = lecture_beside_sweep(as_lecture)
    assert "not clearly behind at 1 layer a stack" in lines[1] and "Not reproduced" not in " ".join(lines)
    assert "behind the full one at 8 layers" in lines[2]


def test_a_drop_after_the_best_depth_is_said():
    peaked = depth_observations(fake_sweep({"full": {1: 0.5, 4: 0.9, 8: 0.6}}, FIVE))
    assert (
        "Its best depth is 4 layers, 89.8% ± 1.1% (n = 5); from there to 8 layers it falls to 59.8% ± 1.1% (n = 5)"
        in peaked[0]
    )
    rising = depth_observations(fake_sweep({"full": {1: 0.5, 4: 0.6, 8: 0.9}}, FIVE))
    assert "best depth" not in rising[0]
