"""Section 3's recipe: the compared models have the same parameters, and the results script writes what the
lesson reads."""

from lessons.multi_head_attention import head_counts, head_counts_runs, split, transformer_maps
from minimodels.tasks import get_task
from tests.lessons.multi_head_attention.made_up_results import fake_results


def test_the_number_of_heads_does_not_change_the_parameters():
    counts = {h: split.projection_parameters(64, h) for h in split.head_choices(64)}
    assert set(counts.values()) == {4 * (64 * 64 + 64)}
    task = get_task(head_counts_runs.RESULT_TASK)
    models = [head_counts_runs.new_model(task, h, seed=0) for h in head_counts_runs.RESULT_HEADS]
    assert len({transformer_maps.parameter_count(m) for m in models}) == 1
    assert [m.config.n_heads for m in models] == list(head_counts_runs.RESULT_HEADS)


def test_the_results_script_writes_what_the_lesson_reads(tmp_path, monkeypatch):
    """The script's grid, with a stand-in for the training: one run per head count and seed, saved and read back."""
    import scripts.multi_head_attention_results as script

    fake = {(r.variant, r.seed): r for r in fake_results().runs}
    monkeypatch.setattr(
        head_counts_runs,
        "measure_heads",
        lambda task, h, seed, steps, threads: fake[(head_counts_runs.variant(h), seed)],
    )
    out = tmp_path / "out.json"
    assert script.main(["--seeds", "0", "1", "--heads", "1", "8", "--steps", "5", "--out", str(out)]) == 0
    written = head_counts.load_results(out)
    assert written.variants == ("h = 1", "h = 8") and written.seeds == (0, 1)
    assert written.meta["script"] == head_counts_runs.RESULT_SCRIPT and written.meta["command"].endswith(str(out))
    assert written.runs_of("h = 8")[1].final == fake[("h = 8", 1)].final
