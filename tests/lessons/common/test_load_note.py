"""How busy the machine was, said from a results file's meta: the seconds a page shows are worth that much."""

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.runs import load_note
from lessons.multi_head_attention import head_counts
from lessons.transformer import ablation


def test_the_load_before_the_run_says_whether_other_work_was_there():
    machine = {"cpu_count": 2}
    assert load_note({"load_1min_before": 0.1, "load_1min_after": 1.0, "machine": machine}) == (
        "1-minute load average 0.1 before and 1.0 after on 2 cores: the machine was otherwise idle when it started"
    )
    assert "held about 1.2 of them" in load_note(
        {"load_1min_before": 1.22, "load_1min_after": 1.16, "machine": machine}
    )
    assert "kept every core busy" in load_note({"load_1min_before": 10.24, "load_1min_after": 1.87, "machine": machine})
    assert load_note({"load_1min_before": 3.0}) == "1-minute load average 3.0 before and ? after"  # cores unknown
    assert load_note({}) == "How busy the machine was is not recorded"


def test_the_shipped_files_captions_say_their_own_load():
    for captioned, name in (
        (ablation.provenance_note, "transformer"),
        (head_counts.load_caption, "multi_head_attention"),
    ):
        meta = Comparison.load(ROOT / "assets" / "results" / f"{name}.json").meta
        assert load_note(meta) in captioned(meta)
        assert "was shared" not in captioned(meta)
