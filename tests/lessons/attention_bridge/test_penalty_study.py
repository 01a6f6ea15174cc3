"""The attention bridge's penalty study (λ and k over seeds): its verdicts, table, figure, loader and shipped
file, and the paper's numbers quoted as printed."""

import pytest

from lessons.attention_bridge import penalty, penalty_study, zero_shot
from lessons.common.comparison import Comparison
from lessons.common.runs import Run


def fake_study(finals: dict[tuple[int, float], dict], seeds=(0, 1, 2)) -> Comparison:
    """A study shaped like scripts/attention_bridge_penalty.py's: ``finals`` gives a setting's values (each seed
    0.01 above the last, so that there is a spread); any setting or measure not given is 0.5."""
    runs = []
    for k, w in penalty_study.study_settings():
        for seed in seeds:
            given = finals.get((k, w), {})
            final = {m: given.get(m, 0.5) + 0.01 * seed for m in penalty_study.STUDY_FINALS}
            runs.append(Run(penalty_study.study_variant(k, w), seed, {"heads": k, "penalty_weight": w}, (), final))
    variants = tuple(penalty_study.study_variant(k, w) for k, w in penalty_study.study_settings())
    return Comparison(variants, tuple(runs), {"command": "python scripts/attention_bridge_penalty.py", "steps": 9})


K = penalty_study.STUDY_K


PAPER_LIKE = {(K, 1.0): {"exact": 0.80, "overlap": 0.05}, (K, 0.0): {"exact": 0.81, "overlap": 0.40}}


HURTS = {(K, 1.0): {"exact": 0.40, "overlap": 0.40}, (K, 0.0): {"exact": 0.80, "overlap": 0.05}}


def test_study_conclusion_reproduces_the_paper_only_when_the_numbers_do(rule_on_made_up_seeds):
    holds = penalty_study.study_conclusion(fake_study(PAPER_LIKE), 1.0)
    assert "the toy reproduces the paper's conclusion (similar" in holds and "n = 3 seeds" in holds
    assert "exact match is too close to call (81.0% ± 1.0% against 82.0% ± 1.0%" in holds
    assert "head overlap is clearly lower (0.06 ± 0.01 against 0.41 ± 0.01)" in holds
    fails = penalty_study.study_conclusion(fake_study(HURTS), 1.0)  # the same numbers, swapped: it flips
    assert "does **not** reproduce" in fails and "exact match is clearly lower" in fails
    assert "head overlap is clearly higher" in fails
    half = {(K, 1.0): {"exact": 0.40, "overlap": 0.05}, (K, 0.0): {"exact": 0.80, "overlap": 0.40}}
    said = penalty_study.study_conclusion(fake_study(half), 1.0)
    assert "reproduces the paper's *less redundancy* but **not** its *similar scores*" in said
    assert "the penalty costs exact match" in said
    more = {(K, 1.0): {"exact": 0.90, "overlap": 0.05}, (K, 0.0): {"exact": 0.50, "overlap": 0.40}}
    assert "the penalty adds exact match" in penalty_study.study_conclusion(fake_study(more), 1.0)
    same = {(K, 1.0): {"exact": 0.80, "overlap": 0.40}, (K, 0.0): {"exact": 0.80, "overlap": 0.40}}
    assert "*similar scores* but **not** its *less redundancy*" in penalty_study.study_conclusion(fake_study(same), 1.0)
    one_seed = penalty_study.study_conclusion(fake_study(HURTS, seeds=(0,)), 1.0)
    assert "too close to call" in one_seed and "anecdote" in one_seed and "does **not**" not in one_seed


def test_heads_finding_follows_the_numbers(rule_on_made_up_seeds):
    bottleneck = {
        (1, 0.0): {"exact": 0.3, "length_gap": 0.4},
        (K, 0.0): {"exact": 0.8, "length_gap": 0.1},
        (10, 0.0): {"exact": 0.8},
    }
    said = penalty_study.heads_finding(fake_study(bottleneck), 0.0)
    assert "one head against 6: exact match clearly lower" in said and "long sources clearly larger" in said
    assert "a floor" not in said
    floored = {**bottleneck, (1, 0.0): {"exact": 0.3, "length_gap": 0.4, "exact_long": 0.01}}
    assert "one head gets only 2% of long sources right: a floor" in penalty_study.heads_finding(
        fake_study(floored), 0.0
    )  # seeds 0.01, 0.02, 0.03
    assert "10 heads" in said and "against 6: exact match too close to call" in said
    flipped = {
        (1, 0.0): {"exact": 0.8, "length_gap": 0.1},
        (K, 0.0): {"exact": 0.3, "length_gap": 0.4},
        (10, 0.0): {"exact": 0.1},
    }
    said = penalty_study.heads_finding(fake_study(flipped), 0.0)
    assert "one head against 6: exact match clearly higher" in said and "long sources clearly smaller" in said
    assert "against 6: exact match clearly lower" in said


def test_study_rows_and_figure():
    study = fake_study(PAPER_LIKE)
    rows = penalty_study.study_rows(study)
    assert [(r["heads k"], r["penalty λ"]) for r in rows] == penalty_study.study_settings()
    first = rows[[(r["heads k"], r["penalty λ"]) for r in rows].index((K, 1.0))]
    assert first["n"] == 3 and first["exact match"] == "81.0% ± 1.0%" and first["head overlap"] == "0.06 ± 0.01"
    figure = penalty_study.study_figure(study).to_dict()
    assert len(figure["data"]) == 3 * len(penalty_study.HEADS_WEIGHTS)
    assert figure["data"][0]["x"] == list(penalty_study.STUDY_HEADS)


def test_load_penalty_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="attention_bridge_penalty.py"):
        penalty_study.load_penalty(tmp_path / "none.json")
    study = fake_study({})
    partial = Comparison(study.variants, study.runs[:3], study.meta)
    partial.save(tmp_path / "partial.json")
    with pytest.raises(ValueError, match="attention_bridge_penalty.py"):
        penalty_study.load_penalty(tmp_path / "partial.json")
    study.save(tmp_path / "whole.json")
    assert penalty_study.load_penalty(tmp_path / "whole.json").seeds == (0, 1, 2)


def test_shipped_penalty_study_is_complete():
    study = penalty_study.load_penalty()
    assert len(study.seeds) >= 3 and study.meta["seeds"] == list(study.seeds)
    for k, w in penalty_study.study_settings():
        runs = study.runs_of(penalty_study.study_variant(k, w))
        assert len(runs) == len(study.seeds) and all(r.params == {"heads": k, "penalty_weight": w} for r in runs)
        assert all(r.extra["steps"] == study.meta["steps"] for r in runs)
        assert all((r.final["overlap"] is None) == (k == 1) for r in runs)  # one head: no pair to overlap
    for key in ("command", "seconds", "load_1min_before", "load_1min_after", "machine"):
        assert key in study.meta


def test_the_penalty_study_says_bleu_where_the_file_has_it(rule_on_made_up_seeds):
    study = fake_study(PAPER_LIKE)
    assert "By BLEU" not in penalty_study.study_conclusion(study, 1.0)
    assert all("BLEU" not in row for row in penalty_study.study_rows(study))

    def with_bleu(on: float, off: float) -> Comparison:
        runs = [
            Run(
                r.variant,
                r.seed,
                r.params,
                r.curve,
                {
                    **r.final,
                    "bleu": (
                        on if r.params["penalty_weight"] == 1.0 else off if r.params["penalty_weight"] == 0.0 else 50.0
                    )
                    + 0.1 * r.seed,
                },
                r.extra,
            )
            for r in study.runs
        ]
        return Comparison(study.variants, tuple(runs), study.meta)

    similar = penalty_study.study_conclusion(with_bleu(60.0, 60.5), 1.0)
    assert "By BLEU, the paper's measure: too close to call (60.1 ± 0.1 against 60.6 ± 0.1" in similar
    assert similar.endswith("similar, as the paper found.")
    apart = penalty_study.study_conclusion(with_bleu(40.0, 60.0), 1.0)
    assert "By BLEU, the paper's measure: clearly lower (40.1 ± 0.1 against 60.1 ± 0.1)" in apart
    assert apart.endswith("**not** similar, unlike the paper.")
    rows = penalty_study.study_rows(with_bleu(40.0, 60.0))
    assert [r["BLEU"] for r in rows if r["heads k"] == K][:2] == ["60.1 ± 0.1", "50.1 ± 0.1"]  # λ = 0, then 0.1


def test_the_papers_numbers_are_quoted_as_printed():
    from pathlib import Path

    assert zero_shot.paper_zero_shot_text().endswith(
        "zero-shot directions scored 0.30–1.02 BLEU without monolingual data and 19.50–26.46 with it"
    )
    assert "differ by 0.59 BLEU on average, 1.36 at most" in penalty_study.paper_penalty_text()
    paper = Path("/work/shared/sources/attention-bridge-paper.txt")
    if paper.exists():  # the course's sources, where they are at hand: every quoted cell is in the paper's text
        text = paper.read_text()
        for cells in (*zero_shot.PAPER_ZERO_SHOT.values(), *penalty_study.PAPER_PENALTY.values()):
            for cell in cells:
                assert f"{cell:.2f}" in text or f"{cell:g}" in text, cell
        assert r"\mathcal{L} = -\log(p(Y|X)) + \|AA^T - I\|_F^2" in text  # Eq. 3: weight 1, no λ
    assert penalty.PAPER_PENALTY_WEIGHT == 1.0


def test_a_comparison_the_rule_cannot_weigh_is_said_as_no_evidence_not_as_similar(rule_on_made_up_seeds, monkeypatch):
    """A gap the rule cannot weigh (here: no drift measured for head overlap and BLEU) is no verdict: the conclusion
    says what the weighed comparisons show and that the others wait, never "similar" or "reproduces" for them."""
    from lessons.common import verdicts

    monkeypatch.setattr(verdicts, "measured_drift", lambda metric, results=None: None if metric != "exact" else 0.0)
    said = penalty_study.study_conclusion(fake_study(HURTS), 1.0)
    assert "does **not** reproduce the paper's *similar scores* (here the penalty costs exact match)" in said
    assert "*less redundancy* the rule cannot weigh yet" in said
    same = {(K, 1.0): {"exact": 0.80, "overlap": 0.05}, (K, 0.0): {"exact": 0.80, "overlap": 0.40}}
    said = penalty_study.study_conclusion(fake_study(same), 1.0)  # exact weighed and too close: similar
    assert "reproduces the paper's *similar scores*; whether it has *less redundancy* the rule cannot weigh" in said
    runs = [Run(r.variant, r.seed, r.params, r.curve, {**r.final, "bleu": 50.0 + r.seed}) for r in fake_study({}).runs]
    study = Comparison(fake_study({}).variants, tuple(runs), {"steps": 9})
    assert penalty_study.study_conclusion(study, 1.0).endswith(
        "neither the paper's similar BLEU nor a difference is shown."
    )


def test_the_findings_are_the_claim_at_both_weights_then_the_heads_sweep(rule_on_made_up_seeds):
    study = fake_study(PAPER_LIKE)
    said = penalty_study.findings(study)
    conclusions = [penalty_study.study_conclusion(study, w) for w in (1.0, 0.1)]
    assert said == conclusions + [penalty_study.heads_finding(study, w) for w in penalty_study.HEADS_WEIGHTS]
