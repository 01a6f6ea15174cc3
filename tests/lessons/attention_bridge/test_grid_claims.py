"""The attention-bridge lesson's numbers: experiments, head reading, redundancy, figures, results, exercises."""

import json

import numpy as np
import pytest
import torch

from lessons import attention_bridge
from lessons.common.comparison import Comparison, Run
from minimodels.bridge import new_bridge
from minimodels.tasks.multilingual import LANGUAGES, Parallel, get_multilingual


@pytest.fixture(scope="module")
def corpus():
    return get_multilingual(seed=0, n_train=60, n_valid=10, n_test=12)


@pytest.fixture(scope="module")
def model(corpus):
    torch.manual_seed(0)
    return new_bridge(corpus, embedding_size=8, encoder_size=6, heads=3, bridge_hidden=10).eval()


def fake_results(plain=0.02, mono=0.4, seeds=(0,)) -> Comparison:
    """A comparison shaped like scripts/attention_bridge_results.py's, with chosen zero-shot numbers (each seed a
    little apart from the next, so that several seeds have a spread)."""
    runs = []
    zeros = {"hub": plain, "hub-mono": mono, "hub-mono-nopenalty": mono}  # the others have no zero-shot direction
    for e in attention_bridge.EXPERIMENTS:
        A = np.eye(3, 5) if e.penalty_weight else np.full((3, 5), 0.2)
        for seed in seeds:
            z = zeros[e.name] + 0.01 * seed if e.name in zeros else None
            test = {
                "en→it": {"exact_match": z or 0.0, "token_accuracy": z or 0.0},
                "fr→en": {"exact_match": 0.9, "token_accuracy": 0.95},
            }
            summary = {"trained_exact": 0.9, "trained_tokens": 0.95, "zero_shot_exact": z, "en_fr_exact": 0.9,
                       "zero_shot_tokens": None if z is None else z + 0.1,
                       "redundancy": 0.5 if e.penalty_weight else 2.0, "agreement": 0.6}  # fmt: skip
            probe = {lang: {"A": A.tolist(), "tokens": ["a", "b", "c", "d", "</s>"]} for lang in LANGUAGES}
            history = [
                {"step": 10, "exact_match": 0.5, "zero_shot": z},
                {"step": 20, "exact_match": 0.6, "zero_shot": z},
            ]
            runs.append(attention_bridge.experiment_run(e, seed, history, test, summary, probe=probe))
    meta = {"command": "python scripts/attention_bridge_results.py", "seeds": list(seeds)}
    return Comparison(tuple(e.name for e in attention_bridge.EXPERIMENTS), tuple(runs), meta,
                      {e.name: e.label for e in attention_bridge.EXPERIMENTS})  # fmt: skip


# ------------------------------------------------------------------------------------------- experiments
def test_hub_experiments_leave_every_non_hub_direction_for_zero_shot():
    plain, mono = attention_bridge.hub_pairs(False), attention_bridge.hub_pairs(True)
    assert len(plain) == 6 and all(attention_bridge.HUB in p for p in plain)
    assert set(mono) - set(plain) == {(lang, lang) for lang in LANGUAGES}
    held = attention_bridge.zero_shot_pairs()
    assert len(held) == 6 and not set(held) & set(mono)
    assert set(held) | set(plain) == {(a, b) for a in LANGUAGES for b in LANGUAGES if a != b}


# ------------------------------------------------------------------------------------------- reading heads
P = Parallel(
    sentences={"en": "I see the dog", "fr": "je vois le chien", "it": "vedo il cane", "vf": "x y z"},
    alignments={
        "en": [[0], [1], [2], [3]],
        "fr": [[0], [1], [2], [3]],
        "it": [[0, 1], [2], [3]],
        "vf": [[0], [2, 3], [1]],
    },  # fmt: skip
)


def one_hot(k_positions, S):
    A = np.zeros((len(k_positions), S))
    A[range(len(k_positions)), k_positions] = 1.0
    return A


def test_head_agreement_counts_heads_that_find_the_same_concept():
    # head 1 on "dog" everywhere, head 2 on "see" (vedo = I + see) and on "I" in vf: a miss there
    A = {"en": one_hot([3, 1], 5), "fr": one_hot([3, 1], 5), "it": one_hot([2, 0], 4), "vf": one_hot([1, 0], 4)}
    assert attention_bridge.head_agreement(A, P) == pytest.approx(5 / 6)
    A["vf"] = one_hot([1, 2], 4)  # vf word 2 means "see"
    assert attention_bridge.head_agreement(A, P) == 1.0
    eos = {lang: one_hot([len(P.words(lang))], len(P.words(lang)) + 1) for lang in LANGUAGES}
    assert attention_bridge.head_agreement(eos, P) == 1.0  # EOS is the same "concept" everywhere


def test_head_reading_names_the_top_word_and_its_english():
    A = {"en": one_hot([3], 5), "it": one_hot([0], 4)}
    rows = attention_bridge.head_reading(A, P)
    assert rows == [{"head": 1, "en": "dog (dog) 100%", "it": "vedo (I see) 100%"}]


def test_gram_and_penalty():
    A = one_hot([0, 2], 3)
    assert np.array_equal(attention_bridge.gram(A), np.eye(2)) and attention_bridge.penalty_value(A) == 0.0
    assert attention_bridge.penalty_value(np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])) == pytest.approx(1.0)


def test_mean_agreement_equals_the_mean_of_single_meanings(model, corpus):
    from minimodels.bridge import bridge_maps

    single = []
    for p in corpus.test[:5]:
        maps = bridge_maps(model, p.sentences, corpus.tokenizers)
        single.append(attention_bridge.head_agreement({lang: A for lang, (A, _) in maps.items()}, p))
    assert attention_bridge.mean_agreement(model, corpus, n=5) == pytest.approx(np.mean(single), abs=1e-9)


# ------------------------------------------------------------------------------------------- views
def test_meaning_view(model, corpus):
    view = attention_bridge.meaning_view(model, corpus, 1)
    assert [row["sentence"] for row in view["sentences"]] == [corpus.test[1].sentences[lang] for lang in LANGUAGES]
    for A, tokens in view["maps"].values():
        assert A.shape == (3, len(tokens)) and tokens[-1] == "</s>"
    assert len(view["reading"]) == 3 and 0.0 <= view["agreement"] <= 1.0
    assert len(view["translations"]) == 4
    marked = [v for row in view["translations"] for v in row.values() if v.endswith("✱")]
    assert len(marked) == 6  # the six zero-shot directions


@pytest.mark.parametrize(
    "text",
    ["", "   ", "😀 <script>alert(1)</script>", "\u202ele chien", "mot " * 400],
    ids=["empty", "blank", "emoji-html", "rtl", "long"],
)
def test_read_sentence_never_raises(model, corpus, text):
    read = attention_bridge.read_sentence(model, corpus.tokenizers, "fr", text)
    if not text.strip():
        assert read.error and read.A is None
    else:
        assert read.error is None and read.message  # unknown words or truncation are said
        assert read.A.shape == (3, len(read.tokens)) and len(read.tokens) <= 17
        assert len(read.translations) == 1


def test_read_sentence_of_known_words(model, corpus):
    read = attention_bridge.read_sentence(model, corpus.tokenizers, "en", corpus.test[0].sentences["en"])
    assert read.error is None and read.message is None and "<unk>" not in read.tokens


def test_heads_side_by_side_escapes_labels():
    maps = {"en": (np.eye(2, 3), ["<b>x</b>", "y", "</s>"]), "vf": (np.eye(2, 4), ["a", "b", "c", "</s>"])}
    fig = attention_bridge.heads_side_by_side(maps, title="t")
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    assert "&lt;b&gt;x&lt;/b&gt;" in fig.layout.xaxis.ticktext
    assert fig.data[1].z.shape == (2, 4)


def test_gram_heatmap():
    fig = attention_bridge.gram_heatmap(np.full((2, 4), 0.25))
    assert np.allclose(fig.data[0].z, 0.25)
    assert list(fig.layout.xaxis.ticktext) == ["1", "2"] and fig.layout.xaxis.title.text == "head"


# ------------------------------------------------------------------------------------------- results
def test_load_results_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="attention_bridge_results"):
        attention_bridge.load_results(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"runs": {"hub": {}}}))
    with pytest.raises(ValueError, match="format.*attention_bridge_results"):
        attention_bridge.load_results(broken)
    results = fake_results()
    Comparison(results.variants, results.runs_of("hub"), results.meta).save(broken)
    with pytest.raises(
        ValueError, match="no run bilingual, bilingual-nobridge, hub-mono, hub-mono-nopenalty, m2m, m2m"
    ):
        attention_bridge.load_results(broken)
    run = results.runs[0]
    lacking = Run(run.variant, run.seed, run.params, run.curve, run.final, {"test": run.extra["test"]})
    Comparison(results.variants, (lacking, *results.runs[1:]), results.meta).save(broken)
    with pytest.raises(ValueError, match="bilingual seed 0 lacks probe"):
        attention_bridge.load_results(broken)


@pytest.mark.parametrize(
    ("plain", "mono", "seeds", "says"),
    [
        (0.0, 0.4, (0, 1, 2), "finding holds here too"),
        (0.5, 0.1, (0, 1, 2), "does **not** hold"),
        (0.3, 0.31, (0, 1, 2), "little difference"),
        (0.3, 0.31, (0,), "little difference"),
        (0.0, 0.4, (0,), "lift the unseen directions in these runs"),
        (0.4, 0.0, (0,), "lower the unseen directions in these runs"),
    ],
)  # fmt: skip
def test_the_zero_shot_finding_follows_the_numbers_and_the_seeds(plain, mono, seeds, says):
    results = fake_results(plain, mono, seeds)
    lines = attention_bridge.observations(results)
    assert says in lines[1] and lines[1] == attention_bridge.zero_shot_finding(results)
    if len(seeds) == 1:  # one seed is never a finding, whichever way it goes
        assert "one seed is an anecdote" in lines[1] or "little difference" in lines[1]
        assert f"**{plain:.1%}**" in lines[0] and f"**{mono:.1%}**" in lines[0] and "(one seed per model)" in lines[0]
    else:
        assert "mean ± sd over 3 seeds" in lines[0] and f"**{plain + 0.01:.1%} ± 1.0%**" in lines[0]
    assert "4 of every 10" in lines[0]
    redundancy = attention_bridge.penalty_findings(results)[-1]
    assert "0.50" in redundancy and "2.00" in redundancy  # redundancy with the penalty and without
    zero_shot = next(e for e in attention_bridge.exercises(results) if e.key == "attention_bridge.ex.zero_shot")
    expected = (
        "neither"
        if abs(mono - plain) <= 0.05
        else ("the model trained with" if mono > plain else "the model trained without")
    )
    assert zero_shot.choices[zero_shot.answer].startswith(expected)


@pytest.mark.parametrize(
    ("plain_trained", "mono_trained", "says"),
    [(0.6, 0.3, ": with the same number of steps,"), (0.3, 0.6, ", even though the monolingual")],
)
def test_the_cost_of_monolingual_pairs_is_said_only_when_they_cost(plain_trained, mono_trained, says):
    results = fake_results()
    runs = [Run(r.variant, r.seed, r.params, r.curve, {**r.final, "trained_exact": plain_trained if r.variant == "hub"
                                                       else mono_trained}, r.extra) for r in results.runs]  # fmt: skip
    line = attention_bridge.observations(Comparison(results.variants, tuple(runs), results.meta, results.labels))[0]
    assert f"reach {plain_trained:.0%} and {mono_trained:.0%}{says}" in line


def test_tables_and_charts():
    results = fake_results(seeds=(0, 1))
    rows = attention_bridge.zero_shot_rows(results)
    assert [r["zero-shot: exact match"] for r in rows] == [
        "–",
        "–",
        "2.5% ± 0.7%",
        "40.5% ± 0.7%",
        "40.5% ± 0.7%",
        "–",
        "–",
    ]  # no zero-shot direction: bilingual (with and without the bridge), many-to-many
    assert [r["penalty λ"] for r in rows] == ["0.1", "–", "0.1", "0.1", "0", "0.1", "0.1"]  # –: no bridge, no penalty
    assert {r["n"] for r in rows} == {2}
    assert {r["en ↔ fr: exact match"] for r in rows} == {"90.0% ± 0.0%"}
    directions = attention_bridge.direction_rows(results)
    assert directions[0]["direction"] == "en→it (zero-shot in the hub models)" and directions[1]["direction"] == "fr→en"
    assert directions[0]["hub pairs only"] == pytest.approx(0.025)  # the mean over seeds
    assert directions[0]["bilingual en ↔ fr"] is None and directions[1]["bilingual en ↔ fr"] == pytest.approx(0.9)
    assert directions[0]["many-to-many"] == 0.0  # trained there
    A, tokens = attention_bridge.probe_map(results, "hub-mono-nopenalty", "it")
    assert A.shape == (3, 5) and tokens[-1] == "</s>"
    charts = dict(attention_bridge.history_charts(results))
    assert list(charts) == ["zero_shot", "exact_match"]
    means = [v for v in charts["zero_shot"]["data"]["values"] if v["kind"] == "mean"]
    assert {v["label"] for v in means} == {e.label for e in attention_bridge.EXPERIMENTS if e.kind == "hub"}
    assert [v["mean"] for v in means if v["label"] == "hub pairs only"] == pytest.approx([0.025, 0.025])
    trained = [v["mean"] for v in charts["exact_match"]["data"]["values"] if v["kind"] == "mean"]
    assert trained == pytest.approx([0.5, 0.6] * 7) and charts["exact_match"]["title"].startswith("Trained")


def test_shipped_results_are_consistent():
    results = attention_bridge.load_results()
    assert (
        results.meta["script"] == "scripts/attention_bridge_results.py" and list(results.seeds) == results.meta["seeds"]
    )
    held = [f"{a}→{b}" for a, b in attention_bridge.zero_shot_pairs()]
    assert len(results.seeds) >= 3
    for e in attention_bridge.EXPERIMENTS:
        assert results.label(e.name) == e.label and len(results.runs_of(e.name)) == len(results.seeds)
        for run in results.runs_of(e.name):
            mean = np.mean([run.extra["test"][n]["exact_match"] for n in held])
            if e.kind == "hub":
                assert run.value("zero_shot_exact") == pytest.approx(mean, abs=1e-3)
            else:  # every direction trained (many-to-many) or only en ↔ fr (bilingual): nothing zero-shot
                assert run.value("zero_shot_exact") is None and run.extra["held_out"] == []
            en_fr = np.mean([run.extra["test"][n]["exact_match"] for n in ("en→fr", "fr→en")])
            assert run.value("en_fr_exact") == pytest.approx(en_fr, abs=1e-3)
            assert [tuple(p) for p in run.extra["pairs"]] == list(attention_bridge.experiment_pairs(e)[0])
            bridge = {} if e.bridge else {"bridge": False}
            assert run.params == {"penalty_weight": e.penalty_weight, "monolingual": e.monolingual, **bridge}
            assert run.curve and run.curve[-1]["step"] == run.extra["steps"] == results.meta["steps"]
    assert attention_bridge.SHIPPED_MODEL.is_dir()  # the model the page loads is the one the script saved


# ------------------------------------------------------------------------------------------- exercises
def test_exercises_answers_are_computed():
    exercises = {e.key: e for e in attention_bridge.exercises(None)}
    assert exercises["attention_bridge.ex.penalty"].check(1.0).correct
    assert not exercises["attention_bridge.ex.penalty"].check(0.0).correct
    size = attention_bridge.MODEL_OPTIONS["heads"] * 2 * attention_bridge.MODEL_OPTIONS["encoder_size"]
    assert exercises["attention_bridge.ex.size"].check(size).correct
    assert exercises["attention_bridge.ex.too_many_heads"].check(4.0).correct  # two shared pairs, both ways
    assert not exercises["attention_bridge.ex.too_many_heads"].check(0.0).correct
    assert "attention_bridge.ex.zero_shot" not in exercises


def test_live_run_reports(monkeypatch):
    monkeypatch.setattr(attention_bridge, "LIVE_SIZES", {"n_train": 40, "n_valid": 8, "n_test": 12})
    monkeypatch.setattr(attention_bridge, "MODEL_OPTIONS", {"embedding_size": 8, "encoder_size": 6, "heads": 3,
                                                  "bridge_hidden": 8})  # fmt: skip
    model, corpus, train_fn = attention_bridge.new_run(monolingual=False, penalty=False, seconds=60.0, steps=3)
    reports = []
    history = train_fn(reports.append)
    assert model.config.penalty_weight == 0.0 and [r.step for r in history] == [3]
    assert set(attention_bridge.live_maps(history[-1])) == set(LANGUAGES)
    assert "zero-shot" in attention_bridge.live_caption(history[-1])


def test_the_live_run_and_its_figure(monkeypatch):
    monkeypatch.setattr(attention_bridge, "LIVE_SIZES", {"n_train": 40, "n_valid": 8, "n_test": 12})
    monkeypatch.setattr(attention_bridge, "MODEL_OPTIONS", {"embedding_size": 8, "encoder_size": 6, "heads": 3,
                                                  "bridge_hidden": 8})  # fmt: skip
    run = attention_bridge.live_run(monolingual=True, penalty=True, seconds=60.0)
    assert run.status == "queued" and run.model.config.penalty_weight == attention_bridge.PENALTY_ON
    _, _, train_fn = attention_bridge.new_run(monolingual=False, penalty=False, seconds=60.0, steps=3)
    report = train_fn(lambda r: True)[-1]
    fig = attention_bridge.live_figure(report)
    assert fig.layout.title.text == f"A after {report.step} steps" and len(fig.data) == len(LANGUAGES)


# ----------------------------------------------------------------------------- honest text: the penalty
def with_finals(results: Comparison, finals: dict[str, dict[str, float]]) -> Comparison:
    """``results`` with some finals replaced per experiment (every seed keeps its 0.01 offset)."""
    runs = [Run(r.variant, r.seed, r.params, r.curve,
                {**r.final, **{k: v + 0.01 * r.seed for k, v in finals.get(r.variant, {}).items()}}, r.extra)
            for r in results.runs]  # fmt: skip
    return Comparison(results.variants, tuple(runs), results.meta, results.labels)


SHIPPED_LIKE = {  # the shipped numbers' shape: no penalty ahead on scores and agreement, the penalty less redundant
    "hub-mono": {"trained_exact": 0.334, "zero_shot_tokens": 0.246, "agreement": 0.077, "redundancy": 0.63},
    "hub-mono-nopenalty": {"trained_exact": 0.644, "zero_shot_tokens": 0.334, "agreement": 0.863, "redundancy": 1.31},
}
SWAPPED = {"hub-mono": SHIPPED_LIKE["hub-mono-nopenalty"], "hub-mono-nopenalty": SHIPPED_LIKE["hub-mono"]}


@pytest.mark.parametrize("seeds", [(0,), (0, 1, 2)])
def test_the_penalty_findings_say_who_is_ahead_and_flip_when_the_numbers_swap(seeds):
    shipped_like = attention_bridge.penalty_findings(with_finals(fake_results(seeds=seeds), SHIPPED_LIKE))
    swapped = attention_bridge.penalty_findings(with_finals(fake_results(seeds=seeds), SWAPPED))
    for metric, line, flipped in zip(attention_bridge.PENALTY_METRICS, shipped_like, swapped, strict=True):
        ahead = "**with**" if metric[0] == "redundancy" else "**without**"
        other = "**without**" if ahead == "**with**" else "**with**"
        assert f"the model {ahead} the penalty" in line and f"the model {other} the penalty" in flipped
        if len(seeds) == 1:
            assert "one seed is an anecdote" in line and "not a finding" in line and "clearly" not in line
        else:
            assert "clearly ahead" in line and ("± 1.0%" in line or "± 0.01" in line)  # 3 seeds 0.01 apart
    mean = 0.01 * np.mean(seeds)  # each seed 0.01 above the last
    with_penalty, without = f"{0.334 + mean:.1%}", f"{0.644 + mean:.1%}"
    assert shipped_like[0].index(with_penalty) < shipped_like[0].index("with the penalty against")
    assert shipped_like[0].index("with the penalty against") < shipped_like[0].index(without)


def test_the_papers_numbers_are_quoted_as_printed():
    from pathlib import Path

    assert attention_bridge.paper_zero_shot_text().endswith(
        "zero-shot directions scored 0.30–1.02 BLEU without monolingual data and 19.50–26.46 with it"
    )
    assert "differ by 0.59 BLEU on average, 1.36 at most" in attention_bridge.paper_penalty_text()
    paper = Path("/work/shared/sources/attention-bridge-paper.txt")
    if paper.exists():  # the course's sources, where they are at hand: every quoted cell is in the paper's text
        text = paper.read_text()
        for cells in (*attention_bridge.PAPER_ZERO_SHOT.values(), *attention_bridge.PAPER_PENALTY.values()):
            for cell in cells:
                assert f"{cell:.2f}" in text or f"{cell:g}" in text, cell
        assert r"\mathcal{L} = -\log(p(Y|X)) + \|AA^T - I\|_F^2" in text  # Eq. 3: weight 1, no λ
    assert attention_bridge.PAPER_PENALTY_WEIGHT == 1.0


def test_lambda_is_said_from_the_runs():
    results = fake_results()
    assert "the models here use λ = 0.1, 0.1 times the paper's" in attention_bridge.penalty_weight_text(results)
    runs = [Run(r.variant, r.seed, {**r.params, "penalty_weight": 1.0} if r.params["penalty_weight"] else r.params,
                r.curve, r.final, r.extra) for r in results.runs]  # fmt: skip
    paper_like = Comparison(results.variants, tuple(runs), results.meta, results.labels)
    assert "the models here use λ = 1, the paper's weight" in attention_bridge.penalty_weight_text(paper_like)


def test_zero_shot_exact_match_is_said_first_and_honestly():
    rare = attention_bridge.zero_shot_finding(fake_results(plain=0.0, mono=0.005))
    assert rare.startswith("Whole sentences: almost no zero-shot translation is right (0.5% with monolingual pairs")
    assert "neither model translates the unseen directions here" in rare
    many = attention_bridge.zero_shot_finding(fake_results(plain=0.0, mono=0.4))
    assert many.startswith("Whole zero-shot sentences right: 40.0% with monolingual pairs against 0.0% without.")
    assert "neither model" not in many


def test_the_seeds_note_says_n():
    assert "one seed per model (n = 1)" in attention_bridge.seeds_note(fake_results(seeds=(0,)))
    three = attention_bridge.seeds_note(fake_results(seeds=(0, 1, 2)))
    assert "3 seeds per model: mean ± sd over n = 3" in three and "anecdote" not in three


def test_agreement_text_compares_with_the_model_without_the_penalty():
    results = with_finals(fake_results(), SHIPPED_LIKE)
    assert "without the penalty reaches 86% on the same measure (more than the shipped one)" in (
        attention_bridge.agreement_text(0.2, 0.077, results)
    )
    assert "(less than the shipped one)" in attention_bridge.agreement_text(0.2, 0.95, results)


# ------------------------------------------------------------------------------------------- the penalty study
def fake_study(finals: dict[tuple[int, float], dict], seeds=(0, 1, 2)) -> Comparison:
    """A study shaped like scripts/attention_bridge_penalty.py's: ``finals`` gives a setting's values (each seed
    0.01 above the last, so that there is a spread); any setting or measure not given is 0.5."""
    runs = []
    for k, w in attention_bridge.study_settings():
        for seed in seeds:
            given = finals.get((k, w), {})
            final = {m: given.get(m, 0.5) + 0.01 * seed for m in attention_bridge.STUDY_FINALS}
            runs.append(Run(attention_bridge.study_variant(k, w), seed, {"heads": k, "penalty_weight": w}, (), final))
    variants = tuple(attention_bridge.study_variant(k, w) for k, w in attention_bridge.study_settings())
    return Comparison(variants, tuple(runs), {"command": "python scripts/attention_bridge_penalty.py", "steps": 9})


K = attention_bridge.STUDY_K
PAPER_LIKE = {(K, 1.0): {"exact": 0.80, "overlap": 0.05}, (K, 0.0): {"exact": 0.81, "overlap": 0.40}}
HURTS = {(K, 1.0): {"exact": 0.40, "overlap": 0.40}, (K, 0.0): {"exact": 0.80, "overlap": 0.05}}


def test_study_conclusion_reproduces_the_paper_only_when_the_numbers_do():
    holds = attention_bridge.study_conclusion(fake_study(PAPER_LIKE), 1.0)
    assert "the toy reproduces the paper's conclusion (similar" in holds and "n = 3 seeds" in holds
    assert "exact match is too close to call (81.0% ± 1.0% against 82.0% ± 1.0%" in holds
    assert "head overlap is clearly lower (0.06 ± 0.01 against 0.41 ± 0.01)" in holds
    fails = attention_bridge.study_conclusion(fake_study(HURTS), 1.0)  # the same numbers, swapped: it flips
    assert "does **not** reproduce" in fails and "exact match is clearly lower" in fails
    assert "head overlap is clearly higher" in fails
    half = {(K, 1.0): {"exact": 0.40, "overlap": 0.05}, (K, 0.0): {"exact": 0.80, "overlap": 0.40}}
    said = attention_bridge.study_conclusion(fake_study(half), 1.0)
    assert "reproduces the paper's *less redundancy* but **not** its *similar scores*" in said
    assert "the penalty costs exact match" in said
    more = {(K, 1.0): {"exact": 0.90, "overlap": 0.05}, (K, 0.0): {"exact": 0.50, "overlap": 0.40}}
    assert "the penalty adds exact match" in attention_bridge.study_conclusion(fake_study(more), 1.0)
    same = {(K, 1.0): {"exact": 0.80, "overlap": 0.40}, (K, 0.0): {"exact": 0.80, "overlap": 0.40}}
    assert "*similar scores* but **not** its *less redundancy*" in attention_bridge.study_conclusion(
        fake_study(same), 1.0
    )
    one_seed = attention_bridge.study_conclusion(fake_study(HURTS, seeds=(0,)), 1.0)
    assert "too close to call" in one_seed and "anecdote" in one_seed and "does **not**" not in one_seed


def test_heads_finding_follows_the_numbers():
    bottleneck = {(1, 0.0): {"exact": 0.3, "length_gap": 0.4}, (K, 0.0): {"exact": 0.8, "length_gap": 0.1},
                  (10, 0.0): {"exact": 0.8}}  # fmt: skip
    said = attention_bridge.heads_finding(fake_study(bottleneck), 0.0)
    assert "one head against 6: exact match clearly lower" in said and "long sources clearly larger" in said
    assert "a floor" not in said
    floored = {**bottleneck, (1, 0.0): {"exact": 0.3, "length_gap": 0.4, "exact_long": 0.01}}
    assert "one head gets only 2% of long sources right: a floor" in attention_bridge.heads_finding(
        fake_study(floored), 0.0
    )  # seeds 0.01, 0.02, 0.03
    assert "10 heads" in said and "against 6: exact match too close to call" in said
    flipped = {(1, 0.0): {"exact": 0.8, "length_gap": 0.1}, (K, 0.0): {"exact": 0.3, "length_gap": 0.4},
               (10, 0.0): {"exact": 0.1}}  # fmt: skip
    said = attention_bridge.heads_finding(fake_study(flipped), 0.0)
    assert "one head against 6: exact match clearly higher" in said and "long sources clearly smaller" in said
    assert "against 6: exact match clearly lower" in said


def test_study_rows_and_figure():
    study = fake_study(PAPER_LIKE)
    rows = attention_bridge.study_rows(study)
    assert [(r["heads k"], r["penalty λ"]) for r in rows] == attention_bridge.study_settings()
    first = rows[[(r["heads k"], r["penalty λ"]) for r in rows].index((K, 1.0))]
    assert first["n"] == 3 and first["exact match"] == "81.0% ± 1.0%" and first["head overlap"] == "0.06 ± 0.01"
    figure = attention_bridge.study_figure(study).to_dict()
    assert len(figure["data"]) == 3 * len(attention_bridge.HEADS_WEIGHTS)
    assert figure["data"][0]["x"] == list(attention_bridge.STUDY_HEADS)


def test_load_penalty_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="attention_bridge_penalty.py"):
        attention_bridge.load_penalty(tmp_path / "none.json")
    study = fake_study({})
    partial = Comparison(study.variants, study.runs[:3], study.meta)
    partial.save(tmp_path / "partial.json")
    with pytest.raises(ValueError, match="attention_bridge_penalty.py"):
        attention_bridge.load_penalty(tmp_path / "partial.json")
    study.save(tmp_path / "whole.json")
    assert attention_bridge.load_penalty(tmp_path / "whole.json").seeds == (0, 1, 2)


def test_shipped_penalty_study_is_complete():
    study = attention_bridge.load_penalty()
    assert len(study.seeds) >= 3 and study.meta["seeds"] == list(study.seeds)
    for k, w in attention_bridge.study_settings():
        runs = study.runs_of(attention_bridge.study_variant(k, w))
        assert len(runs) == len(study.seeds) and all(r.params == {"heads": k, "penalty_weight": w} for r in runs)
        assert all(r.extra["steps"] == study.meta["steps"] for r in runs)
        assert all((r.final["overlap"] is None) == (k == 1) for r in runs)  # one head: no pair to overlap
    for key in ("command", "seconds", "load_1min_before", "load_1min_after", "machine"):
        assert key in study.meta


# ------------------------------------------------------------------------------------------- meaning space
def test_nearest_rates():
    # two meanings in two languages: each sentence nearest its translation
    X = np.array([[0.0, 0.0], [10.0, 0.0], [0.1, 0.0], [10.1, 0.0]])
    rates = attention_bridge.nearest_rates(X, ["en", "en", "fr", "fr"], [0, 1, 0, 1])
    assert rates["translation"] == 1.0 and rates["same_language"] == 0.0
    assert rates["chance_translation"] == pytest.approx(1 / 3)
    by_language = attention_bridge.nearest_rates(X, ["en", "fr", "en", "fr"], [0, 0, 1, 1])
    assert by_language["translation"] == 0.0 and by_language["same_language"] == 1.0


def space_with(raw, shifted, plane=None):
    plane = plane or raw
    rates = lambda t, s: {"translation": t, "same_language": s, "chance_translation": 0.02,  # noqa: E731
                          "chance_same_language": 0.25}  # fmt: skip
    return {"raw": rates(*raw), "shifted": rates(*shifted), "plane": rates(*plane), "langs": ["en"] * 8,
            "meanings": [0, 1] * 4, "explained": 0.3}  # fmt: skip


def test_meaning_text_answers_from_the_rates():
    apart = attention_bridge.meaning_text(space_with((0.01, 0.99), (0.14, 0.7)))
    assert "For **1%**" in apart and "do **not** cluster" in apart and "by **language**" in apart
    assert "7 times chance: some meaning is shared" in apart
    together = attention_bridge.meaning_text(space_with((0.9, 0.05), (0.95, 0.0)))
    assert "translations **do** cluster" in together and "most of the difference" in together
    assert "four groups, one per language" in attention_bridge.meaning_alt(space_with((0.0, 0.99), (0, 0)))
    assert "groups of translations" in attention_bridge.meaning_alt(space_with((0.9, 0.0), (0, 0)))


def test_meaning_space_from_a_model(model, corpus):
    space = attention_bridge.meaning_space(model, corpus, n=6)
    assert len(space["x"]) == len(space["langs"]) == 4 * 6 and 0 < space["explained"] <= 1
    assert space["raw"]["chance_translation"] == pytest.approx(3 / 23)
    for by in ("language", "sentence"):
        figure = attention_bridge.meaning_figure(space, by).to_dict()
        points = sum(len([v for v in t["x"] if v is not None]) for t in figure["data"] if t["mode"] == "markers")
        assert points == 24


# ------------------------------------------------------------------------------------------- the grid
def with_grid(results: Comparison, values: dict[str, dict]) -> Comparison:
    """``results`` with some finals replaced per experiment (each seed 0.01 above the last, for a spread)."""
    runs = [Run(r.variant, r.seed, r.params, r.curve, {**r.final, **{m: v + 0.01 * r.seed for m, v in
                values.get(r.variant, {}).items()}}, r.extra) for r in results.runs]  # fmt: skip
    return Comparison(results.variants, tuple(runs), results.meta, results.labels)


def test_grid_findings_test_the_papers_claims_and_flip_with_the_numbers():
    as_paper = {"bilingual": {"en_fr_exact": 0.5}, "bilingual-nobridge": {"en_fr_exact": 0.5},
                "hub": {"en_fr_exact": 0.7, "trained_exact": 0.6},
                "hub-mono": {"trained_exact": 0.8}, "m2m": {"trained_exact": 0.5},
                "m2m-mono": {"trained_exact": 0.7, "en_fr_exact": 0.8}}  # fmt: skip
    lines = attention_bridge.grid_findings(with_grid(fake_results(seeds=(0, 1, 2)), as_paper))
    *lines, bridge, budget = lines
    assert len(lines) == len(attention_bridge.PAPER_GRID_CLAIMS) and all("the toy agrees" in line for line in lines)
    assert bridge == attention_bridge.bridge_cost_finding(with_grid(fake_results(seeds=(0, 1, 2)), as_paper))
    assert "hub pairs only against bilingual en ↔ fr, exact match on en ↔ fr: clearly higher (71.0%" in lines[0]
    opposite = {name: {m: 1.3 - v for m, v in values.items()} for name, values in as_paper.items()}
    flipped = attention_bridge.grid_findings(with_grid(fake_results(seeds=(0, 1, 2)), opposite))[:-2]
    assert all("the toy finds the **opposite**" in line and "clearly lower" in line for line in flipped)
    one_seed = attention_bridge.grid_findings(with_grid(fake_results(), as_paper))[:-2]
    assert all("cannot tell" in line and "anecdote" in line for line in one_seed)
    assert budget == "Every model trained the same number of steps."  # the fake has no steps in its meta
    results = fake_results()
    stepped = Comparison(results.variants, results.runs, {**results.meta, "steps": 2000}, results.labels)
    said = attention_bridge.budget_note(stepped)
    assert "bilingual en ↔ fr 1000, bilingual en ↔ fr, no bridge 1000, hub pairs only 333" in said
    assert "many-to-many 166, many-to-many + monolingual 125 steps per direction" in said


def test_the_papers_grid_claims_are_quoted_verbatim():
    from pathlib import Path

    paper = Path("/work/shared/sources/attention-bridge-paper.txt")
    if not paper.exists():
        pytest.skip("the paper's text is not on this machine")
    text = " ".join(paper.read_text(encoding="utf-8").split())
    for *_, claim in attention_bridge.PAPER_GRID_CLAIMS:
        quote = claim[claim.index("“") + 1 : claim.index("”")]
        assert quote in text, quote


def test_grid_findings_add_bleu_where_the_file_has_it():
    results = fake_results(seeds=(0, 1, 2))
    assert not attention_bridge.has_bleu(results)
    assert all("By BLEU" not in line for line in attention_bridge.grid_findings(results))
    assert all("trained directions: BLEU" not in row for row in attention_bridge.zero_shot_rows(results))
    runs = [Run(r.variant, r.seed, r.params, r.curve, {**r.final, "trained_bleu": 10.0, "en_fr_bleu": 10.0,
                "zero_shot_bleu": None if r.final["zero_shot_exact"] is None else 5.0}, r.extra)
            for r in results.runs]  # fmt: skip
    results = Comparison(results.variants, tuple(runs), results.meta, results.labels)
    as_paper = {"bilingual": {"en_fr_bleu": 20.0}, "bilingual-nobridge": {"en_fr_bleu": 20.0},
                "hub": {"en_fr_bleu": 30.0, "trained_bleu": 20.0},
                "hub-mono": {"trained_bleu": 30.0}, "m2m": {"trained_bleu": 20.0},
                "m2m-mono": {"trained_bleu": 30.0, "en_fr_bleu": 30.0}}  # fmt: skip
    scored = with_grid(results, as_paper)
    assert attention_bridge.has_bleu(scored)
    lines = attention_bridge.grid_findings(scored)[:-2]
    assert all("By BLEU: clearly higher" in line and line.endswith("the toy agrees.") for line in lines)
    assert "By BLEU: clearly higher (30.0 ± 0.0 against 20.0 ± 0.0)" in lines[0]
    flipped = {name: {m: 40.0 - v for m, v in values.items()} for name, values in as_paper.items()}
    lines = attention_bridge.grid_findings(with_grid(results, flipped))[:-2]
    assert all("By BLEU: clearly lower" in line and line.endswith("the toy finds the **opposite**.") for line in lines)
    close = {"hub": {"en_fr_bleu": 10.5}}  # half a point above the bilingual model: no finding
    lines = attention_bridge.grid_findings(with_grid(results, close))
    assert "By BLEU: too close to call" in lines[0] and "no more than 1" in lines[0]
    rows = attention_bridge.zero_shot_rows(scored)
    assert rows[0]["trained directions: BLEU"] == "10.0 ± 0.0" and rows[0]["zero-shot: BLEU"] == "–"
    assert rows[2]["trained directions: BLEU"] == "20.0 ± 0.0" and rows[2]["zero-shot: BLEU"] == "5.0 ± 0.0"


def _with_bleu(results: Comparison, values: dict[str, float]) -> Comparison:
    """``results`` scored with BLEU: en ↔ fr BLEU per experiment from ``values`` (10 for the others), each seed 0.1
    above the last."""
    runs = [Run(r.variant, r.seed, r.params, r.curve, {**r.final, "trained_bleu": 10.0, "zero_shot_bleu": None,
                "en_fr_bleu": values.get(r.variant, 10.0) + 0.1 * r.seed}, r.extra) for r in results.runs]  # fmt: skip
    return Comparison(results.variants, tuple(runs), results.meta, results.labels)


def test_the_bridge_cost_sentence_agrees_with_the_shipped_numbers():
    results = attention_bridge.load_results()
    said = attention_bridge.bridge_cost_finding(results)
    assert said in attention_bridge.grid_findings(results)  # what the page shows, under the grid's table
    bleu = {v: [r.final["en_fr_bleu"] for r in results.runs_of(v)] for v in ("bilingual", "bilingual-nobridge")}
    exact = {v: [r.final["en_fr_exact"] for r in results.runs_of(v)] for v in bleu}
    assert all(len(values) >= 3 for values in bleu.values())
    mean = {v: float(np.mean(x)) for v, x in bleu.items()}
    sd = {v: float(np.std(x, ddof=1)) for v, x in bleu.items()}
    assert (f"BLEU {mean['bilingual']:.1f} ± {sd['bilingual']:.1f} against {mean['bilingual-nobridge']:.1f} ± "
            f"{sd['bilingual-nobridge']:.1f}") in said  # fmt: skip
    assert (f"exact match {np.mean(exact['bilingual']):.1%} ± {np.std(exact['bilingual'], ddof=1):.1%} against "
            f"{np.mean(exact['bilingual-nobridge']):.1%}") in said  # fmt: skip
    cost = mean["bilingual-nobridge"] - mean["bilingual"]  # BLEU the bridge loses
    clear = abs(cost) > sd["bilingual"] + sd["bilingual-nobridge"] and abs(cost) > attention_bridge.BLEU_MIN_GAP
    paper_gap = max(p - b for b, p in attention_bridge.PAPER_BILINGUAL_BLEU.values())
    assert paper_gap == pytest.approx(55.96 - 53.03)
    if clear and cost > paper_gap:
        assert f"the bridge costs **{cost:.1f} BLEU**" in said and "does **not** reproduce" in said
    elif clear and cost < 0:
        assert "clearly **ahead**" in said and "does not reproduce" in said
    else:
        assert said.endswith("so the toy reproduces the paper's finding.")


@pytest.mark.parametrize(
    ("bridge", "plain", "seeds", "says"),
    [
        (90.0, 98.0, (0, 1, 2), "the bridge costs **8.0 BLEU**, beyond the spread and more than the paper's largest"),
        (96.0, 98.0, (0, 1, 2), "the bridge costs 2.0 BLEU, beyond the spread but no more than the paper's largest"),
        (98.0, 98.5, (0, 1, 2), "too close to call by BLEU (the gap 0.5 is no more than 1)"),
        (99.0, 95.0, (0, 1, 2), "the bridge model is clearly **ahead**, by 4.0 BLEU"),
        (90.0, 98.0, (0,), "too close to call by BLEU (one seed is an anecdote"),
    ],
)
def test_the_bridge_cost_sentence_follows_the_numbers(bridge, plain, seeds, says):
    results = _with_bleu(fake_results(seeds=seeds), {"bilingual": bridge, "bilingual-nobridge": plain})
    said = attention_bridge.bridge_cost_finding(results)
    assert says in said
    reproduces = said.endswith("so the toy reproduces the paper's finding.")
    assert reproduces == (says.startswith("too close") or "no more than the paper's" in says)
    assert "“the attention bridge model is almost on par with the standard bilingual model" in said
    assert "en→fr 53.03 against 55.96, fr→en 48.93 against 49.54 (at most 2.9 lower, en→fr)" in said
    without_bleu = attention_bridge.bridge_cost_finding(fake_results(seeds=seeds))
    assert "exact match 90.0%" in without_bleu and "this file has no BLEU" in without_bleu


def test_the_papers_bilingual_claim_and_numbers_are_quoted_verbatim():
    from pathlib import Path

    paper = Path("/work/shared/sources/attention-bridge-paper.txt")
    if not paper.exists():
        pytest.skip("the paper's text is not on this machine")
    text = paper.read_text(encoding="utf-8")
    assert attention_bridge.PAPER_BRIDGE_CLAIM in " ".join(text.split())
    # Table 1 comes first, columns "EN DE CS FR" in each block: its first EN and FR rows are the plain bilingual
    # models (BILINGUAL), its second ones those with the bridge (BILINGUAL + ATT BRIDGE); Table 3 repeats the latter
    en = [line.split("\t") for line in text.splitlines() if line.startswith("EN\t")][:2]
    fr = [line.split("\t") for line in text.splitlines() if line.startswith("FR\t")][:2]
    bridge_en_fr, plain_en_fr = attention_bridge.PAPER_BILINGUAL_BLEU["en→fr"]
    bridge_fr_en, plain_fr_en = attention_bridge.PAPER_BILINGUAL_BLEU["fr→en"]
    assert float(en[0][4]) == plain_en_fr and float(en[1][4]) == bridge_en_fr  # row EN, column FR
    assert float(fr[0][1]) == plain_fr_en and float(fr[1][1]) == bridge_fr_en  # row FR, column EN


def test_the_penalty_study_says_bleu_where_the_file_has_it():
    study = fake_study(PAPER_LIKE)
    assert "By BLEU" not in attention_bridge.study_conclusion(study, 1.0)
    assert all("BLEU" not in row for row in attention_bridge.study_rows(study))

    def with_bleu(on: float, off: float) -> Comparison:
        runs = [Run(r.variant, r.seed, r.params, r.curve, {**r.final, "bleu": (on if r.params["penalty_weight"] == 1.0
                    else off if r.params["penalty_weight"] == 0.0 else 50.0) + 0.1 * r.seed}, r.extra)
                for r in study.runs]  # fmt: skip
        return Comparison(study.variants, tuple(runs), study.meta)

    similar = attention_bridge.study_conclusion(with_bleu(60.0, 60.5), 1.0)
    assert "By BLEU, the paper's measure: too close to call (60.1 ± 0.1 against 60.6 ± 0.1" in similar
    assert similar.endswith("similar, as the paper found.")
    apart = attention_bridge.study_conclusion(with_bleu(40.0, 60.0), 1.0)
    assert "By BLEU, the paper's measure: clearly lower (40.1 ± 0.1 against 60.1 ± 0.1)" in apart
    assert apart.endswith("**not** similar, unlike the paper.")
    rows = attention_bridge.study_rows(with_bleu(40.0, 60.0))
    assert [r["BLEU"] for r in rows if r["heads k"] == K][:2] == ["60.1 ± 0.1", "50.1 ± 0.1"]  # λ = 0, then 0.1
