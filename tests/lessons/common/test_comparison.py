"""The one measured comparison (variants × seeds → runs): its spreads, its verdicts, its file and its chart."""

import dataclasses
import json

import numpy as np
import pytest

from lessons.common import curves, verdicts
from lessons.common.comparison import FORMAT, Comparison, measure
from lessons.common.curves import PALETTE, curves_chart
from lessons.common.runs import Run, Spread, curve_of, first_reached
from lessons.common.verdicts import verdict


def _curve(steps, losses, accuracies):
    return tuple(
        {"step": s, "seconds": s / 100, "loss": l, "exact_match": a}
        for s, l, a in zip(steps, losses, accuracies, strict=True)
    )


def _comparison(a_scores=(0.9, 0.92, 0.95), b_scores=(0.4, 0.45, 0.5)) -> Comparison:
    """Two variants, three seeds each: "attention" well ahead of "none" on "test exact"."""
    runs = []
    for variant, scores in (("attention", a_scores), ("none", b_scores)):
        for seed, score in enumerate(scores):
            curve = _curve([25, 50, 75], [2.0 - seed / 10, 1.0, 0.5 + seed / 10], [0.1, score / 2, score])
            runs.append(
                Run(
                    variant,
                    seed,
                    {"d": 64},
                    curve,
                    {"test exact": score, "steps to 90%": first_reached(curve, "exact_match", 0.9)},
                    {"parameters": 1234},
                )
            )
    meta = {"script": "scripts/example_results.py", "seeds": [0, 1, 2]}
    return Comparison(("attention", "none"), tuple(runs), meta, {"attention": "with attention", "none": "without"})


# ------------------------------------------------------------------------------------------------- spreads
@pytest.mark.parametrize("values", [(0.9, 0.92, 0.95), (3.0, 7.0), (0.5,), (1.0, 2.0, 4.0, 8.0, 16.0)])
def test_spread_is_numpys_mean_and_sample_sd(values):
    s = Spread(values)
    assert s.n == s.total == len(values) and s.missing == 0
    assert s.mean == pytest.approx(np.mean(values))
    assert s.sd == pytest.approx(np.std(values, ddof=1) if len(values) > 1 else 0.0)
    assert (s.min, s.max) == (min(values), max(values))


def test_a_spreads_fingerprint_is_its_values_whether_or_not_its_statistics_were_read():
    """The statistics are computed once per spread and kept on it; the server's shared caches key figures by a
    pickle of their arguments (``ui.kept.digest``), so reading them must not change that key."""
    import copy
    import pickle

    from ui.kept import digest

    s = Spread((0.9, None, 0.95))
    before = digest(s)
    assert (s.mean, s.n) == (pytest.approx(0.925), 2)
    assert digest(s) == before == digest(Spread((0.9, None, 0.95)))
    again = pickle.loads(pickle.dumps(s))
    assert again == s and again.text() == s.text() and copy.deepcopy(s).sd == s.sd


def test_spread_text_says_mean_sd_n_and_counts_what_is_missing():
    assert Spread((0.91, 0.93, 0.95)).text(".0%") == "93% ± 2% (n = 3)"
    assert Spread((0.93,)).text(".0%") == "93% (n = 1)"  # no ± for one value: there is no spread to show
    partial = Spread((100.0, None, 140.0))
    assert (partial.n, partial.total, partial.missing, partial.mean) == (2, 3, 1, 120.0)
    assert partial.sd == pytest.approx(np.std([100, 140], ddof=1))
    assert partial.text(".0f") == "120 ± 28 (n = 2; 1 of 3 not reached)"
    assert Spread((None, None)).text(".0f") == "not reached (2 of 2)"
    assert Spread((None, None)).mean is None and Spread(()).text() == "–"
    with pytest.raises(ValueError, match="number or None"):
        Spread(("0.5",))


def test_comparison_spreads_read_each_variants_final_metric():
    c = _comparison()
    assert c.seeds == (0, 1, 2) and [r.seed for r in c.runs_of("none")] == [0, 1, 2]
    spreads = c.spreads("test exact")
    assert list(spreads) == ["attention", "none"]
    assert spreads["attention"].mean == pytest.approx(np.mean([0.9, 0.92, 0.95]))
    assert spreads["none"].sd == pytest.approx(np.std([0.4, 0.45, 0.5], ddof=1))
    assert c.spread("steps to 90%", "none").missing == 3  # never reached: counted, not dropped
    assert c.spread("steps to 90%", "attention").values == (75.0, 75.0, 75.0)
    assert c.spreads("test exact", where={"d": 128}) == {}
    with pytest.raises(KeyError, match="no final 'bleu'"):
        c.spread("bleu", "none")
    with pytest.raises(KeyError, match="no variant"):
        c.runs_of("rnn")


def test_table_rows_are_text_per_metric_with_n():
    rows = _comparison().table({"test exact": ".0%", "steps to 90%": ".0f"})
    assert rows == [
        {"variant": "with attention", "n": 3, "test exact": "92% ± 3%", "steps to 90%": "75 ± 0"},
        {"variant": "without", "n": 3, "test exact": "45% ± 5%", "steps to 90%": "not reached (3 of 3)"},
    ]


def test_table_by_a_param_gives_a_row_per_setting():
    runs = [Run("LSTM", s, {"distance": d}, final={"acc": 0.5 + d / 100 + s / 100}) for d in (5, 20) for s in (0, 1)]
    c = Comparison(("LSTM",), tuple(runs))
    rows = c.table({"acc": ".3f"}, by="distance")
    assert [(r["distance"], r["n"], r["acc"]) for r in rows] == [(5, 2, "0.555 ± 0.007"), (20, 2, "0.705 ± 0.007")]
    assert c.param_values("distance") == (5, 20)


# -------------------------------------------------------------------------------------------------- verdicts
AHEAD, BEHIND = (0.9, 0.92, 0.95, 0.91, 0.93), (0.4, 0.45, 0.5, 0.42, 0.47)  # five seeds a side, far apart


@pytest.fixture
def drift(monkeypatch):
    """A drift table of known figures in place of the measured one: the rule's outcomes below follow from them."""
    table = {"metrics": {"test exact": 0.01, "steps to 90%": 1.0, "m": 0.0}}
    monkeypatch.setattr(verdicts, "drift_table", lambda: table)
    return table


def test_compare_says_better_when_the_test_and_the_drift_say_so(drift):
    v = _comparison(AHEAD, BEHIND).compare("attention", "none", "test exact")
    assert v.outcome == "better" and v.clear and v.winner == "attention"
    sentence = v.sentence(".0%", "test exact match")
    assert sentence.startswith("with attention beats without on test exact match: 92%")
    assert "Welch's t-test, α = 0.05" in sentence and "(n = 5)" in sentence and "drift 1%" in sentence


def test_compare_says_worse_from_the_other_side_and_for_lower_is_better(drift):
    c = _comparison(AHEAD, BEHIND)
    v = c.compare("none", "attention", "test exact")
    assert v.outcome == "worse" and v.winner == "attention"
    assert v.sentence().startswith("without does not beat with attention on test exact;")
    # fewer steps is better: the side that never reached 90% is behind, by Fisher's exact test on the counts
    steps = c.compare("none", "attention", "steps to 90%", higher_is_better=False)
    assert steps.outcome == "worse" and steps.winner == "attention" and "Fisher's exact test" in steps.reason
    assert c.compare("attention", "none", "steps to 90%", higher_is_better=False).outcome == "better"


def test_compare_lower_is_better_flips_the_verdict(drift):
    c = _comparison(AHEAD, BEHIND)
    assert c.compare("attention", "none", "test exact", higher_is_better=False).outcome == "worse"


def test_compare_is_too_close_when_welchs_test_is_not_below_alpha(drift):
    c = _comparison(a_scores=(0.90, 0.95, 0.80, 0.85, 0.88), b_scores=(0.85, 0.80, 0.90, 0.84, 0.86))
    v = c.compare("attention", "none", "test exact")
    assert v.outcome == "too close" and not v.clear and v.winner is None
    assert "too close to call" in v.sentence() and "not below α = 0.05" in v.reason
    assert v.p is not None and v.p >= verdicts.ALPHA


def test_compare_with_fewer_than_five_seeds_is_never_clear(drift):
    for a, b in (((0.99,), (0.01,)), (AHEAD[:4], BEHIND), (AHEAD, BEHIND[:3])):
        v = _comparison(a_scores=a, b_scores=b).compare("attention", "none", "test exact")
        assert v.outcome == "too close" and f"n = {len(a)} and {len(b)} seeds" in v.reason
        assert "Welch's t-test, α = 0.05" in v.sentence() and "at least 5 a side" in v.sentence()


def test_verdict_rule_on_its_edges(drift):
    five = Spread((1.0,) * 5)
    assert verdict(five, Spread((0.0,) * 5), metric="m")[0] == "better"  # no spread at all: any gap is clear
    assert verdict(five, Spread((0.99,) * 5), min_gap=0.05, metric="m")[0] == "too close"
    assert verdict(five, Spread((0.0,) * 5))[0] == "too close"  # no metric named: no drift measured for it
    # Welch on (1, 2, 3, 4, 5) against (3, 4, 5, 6, 7.5): t = -1.99, 7.9 degrees of freedom, p = 0.082
    outcome, reason = verdict(Spread((1.0, 2.0, 3.0, 4.0, 5.0)), Spread((3.0, 4.0, 5.0, 6.0, 7.5)), metric="m")
    assert outcome == "too close" and "p = 0.082" in reason
    assert verdict(Spread((1.0, 2.0, 3.0, 4.0, 5.0)), Spread((5.0, 6.0, 7.0, 8.0, 9.0)), metric="m")[0] == "worse"
    assert verdict(Spread((1.0, None, 1, 1, 1)), Spread((0.0,) * 5), metric="m")[0] == "too close"  # some lack one
    assert verdict(Spread((None,) * 5), Spread((5.0, 6.0, 5, 5, 5)), higher_is_better=False)[0] == "worse"
    assert verdict(Spread((None,) * 5), Spread((5.0, 6.0, 5, 5, 5)), none_is_worst=False)[0] == "too close"
    assert verdict(Spread((None,) * 3), Spread((5.0, 6.0, 5)), higher_is_better=False)[0] == "too close"


# -------------------------------------------------------------------------------------------- the file
def test_round_trip_through_dict_and_file(tmp_path):
    c = _comparison()
    document = c.to_dict()
    assert document["format"] == FORMAT
    assert Comparison.from_dict(json.loads(json.dumps(document))) == c
    path = c.save(tmp_path / "example.json")
    assert Comparison.load(path) == dataclasses.replace(c, source="example")  # it knows its file, for the drift
    text = path.read_text(encoding="utf-8")
    assert text == c.save(tmp_path / "again.json").read_text(encoding="utf-8")  # stable: same comparison, same bytes
    assert list(json.loads(text)) == sorted(json.loads(text))  # keys sorted


def test_save_rounds_floats_and_refuses_nan(tmp_path):
    run = Run("a", 0, final={"loss": 1 / 3, "big": 123456.789}, curve=({"step": 1, "seconds": np.float32(0.1)},))
    c = Comparison(("a",), (run,), {"script": "scripts/x.py"})
    loaded = Comparison.load(c.save(tmp_path / "x.json"))
    assert loaded.runs[0].final == {"loss": 0.333333, "big": 123457.0}
    assert loaded.runs[0].curve[0]["seconds"] == 0.1
    bad = Comparison(("a",), (Run("a", 0, final={"loss": float("nan")}),))
    with pytest.raises(ValueError, match="cannot save nan.json"):
        bad.save(tmp_path / "nan.json")


def test_a_missing_file_names_the_script_that_makes_it(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"masking\.json is missing: run `python scripts/masking_results\.py`"):
        Comparison.load(tmp_path / "masking.json")
    with pytest.raises(FileNotFoundError, match=r"scripts/other\.py"):
        Comparison.load(tmp_path / "masking.json", script="scripts/other.py")


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ({"variants": ["a"], "runs": []}, 'no "format" key'),
        ({"format": "attention-lab/comparison/0", "variants": ["a"], "runs": []}, f"expected {FORMAT!r}"),
        ({"format": FORMAT, "variants": [], "runs": []}, "must list its variants"),
        ({"format": FORMAT, "variants": ["a"], "runs": []}, "has no runs"),
        ({"format": FORMAT, "variants": ["a"], "runs": [{"seed": 0}]}, "run 0 lacks its variant or seed"),
        ({"format": FORMAT, "variants": ["a"], "runs": [{"variant": "b", "seed": 0}]}, "not one of the variants"),
        (
            {"format": FORMAT, "variants": ["a"], "runs": [{"variant": "a", "seed": 0, "final": {"x": "high"}}]},
            "final 'x' must be a number",
        ),
        ({"format": FORMAT, "variants": ["a"], "runs": [{"variant": "a", "seed": 0, "curve": {}}]}, "curve must be"),
        (
            {"format": FORMAT, "variants": ["a"], "runs": [{"variant": "a", "seed": 0}, {"variant": "a", "seed": 0}]},
            "two runs of a with seed 0",
        ),
    ],
)
def test_a_malformed_file_says_what_is_wrong_and_which_script_to_run(tmp_path, document, message):
    path = tmp_path / "scoring_functions.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document), encoding="utf-8")
    with pytest.raises(ValueError, match="scoring_functions.json") as error:
        Comparison.load(path)
    assert message in str(error.value)
    assert "python scripts/scoring_functions_results.py" in str(error.value)


def test_a_malformed_file_names_the_script_its_meta_gives(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"format": FORMAT, "variants": ["a"], "runs": [], "meta": {"script": "scripts/y.py"}}))
    with pytest.raises(ValueError, match=r"has no runs: run `python scripts/y\.py` again"):
        Comparison.load(path)


# ----------------------------------------------------------------------------------------------- measure
def test_measure_runs_every_variant_and_seed_and_reports_progress():
    calls, progress = [], []

    def run_one(variant, seed):
        calls.append((variant, seed))
        if variant == "LSTM":  # a sweep: one run per distance
            return [Run(variant, seed, {"distance": d}, final={"acc": 1.0}) for d in (5, 10)]
        return Run(variant, seed, final={"acc": 0.5})

    c = measure(
        ["RNN", "LSTM"],
        [0, 1],
        run_one,
        {"script": "scripts/rnn_cells_results.py"},
        on_run=lambda run, done, total: progress.append((run.variant, done, total)),
    )
    assert calls == [("RNN", 0), ("RNN", 1), ("LSTM", 0), ("LSTM", 1)]
    assert len(c.runs) == 6 and c.meta["script"] == "scripts/rnn_cells_results.py"
    assert progress[-1] == ("LSTM", 4, 4)
    with pytest.raises(ValueError, match=r"run_one\('RNN', 0\) returned a run of 'GRU'"):
        measure(["RNN"], [0], lambda v, s: Run("GRU", s), {})


# ------------------------------------------------------------------------------------------------- points
def test_curve_and_sweep_points_are_long_form():
    c = _comparison()
    points = c.curve_points("loss")
    assert len(points) == 2 * 3 * 3
    assert points[0] == {"variant": "attention", "label": "with attention", "order": 0, "seed": 0, "x": 25.0, "y": 2.0}
    assert {p["order"] for p in points if p["variant"] == "none"} == {1}
    assert [p["x"] for p in c.curve_points("loss", x="seconds")][:3] == [0.25, 0.5, 0.75]
    sweep = Comparison(
        ("GRU",), tuple(Run("GRU", s, {"distance": d}, final={"acc": d / 100}) for d in (5, 20) for s in (0, 1))
    )
    assert [(p["x"], p["y"]) for p in sweep.sweep_points("acc", "distance")] == [(5, 0.05)] * 2 + [(20, 0.2)] * 2
    with pytest.raises(ValueError, match="pick one with where="):
        sweep.curve_points("loss")
    assert sweep.curve_points("loss", where={"distance": 5}) == []  # no curves: nothing to draw, no error


# --------------------------------------------------------------------------------------------------- chart
def _layer_marks(spec):
    return [layer["mark"]["type"] for layer in spec["layer"]]


def test_curves_chart_draws_the_band_and_seeds_only_with_several_seeds():
    import altair as alt

    c = _comparison()
    many = curves_chart(c.curve_points("exact_match"), y_title="held-out exact match", x_title="step", percent=True)
    one = curves_chart(c.curve_points("exact_match", where=None)[:3], y_title="held-out exact match", x_title="step")
    for spec in (many, one):
        json.loads(json.dumps(spec))  # plain JSON
        alt.LayerChart.from_dict(spec)  # Altair validates it against the Vega-Lite schema
    assert _layer_marks(many) == ["area", "line", "line"]  # band, seeds, mean
    assert many["layer"][0]["encoding"]["y"]["field"] == "lo" and many["layer"][0]["encoding"]["y2"]["field"] == "hi"
    assert _layer_marks(one) == ["line"]  # one seed: one solid line, no band
    assert all(v["n"] == 1 for v in one["data"]["values"])
    assert "sd" in json.dumps(many["layer"][-1]["encoding"]["tooltip"])


def test_curves_chart_values_match_the_points():
    c = _comparison()
    points = c.curve_points("loss")
    spec = curves_chart(points, y_title="loss", x_title="step", title="Loss", height=300)
    values = spec["data"]["values"]
    seeds = [(v["label"], v["seed"], v["x"], v["y"]) for v in values if v["kind"] == "seed"]
    assert sorted(seeds) == sorted((p["label"], p["seed"], p["x"], p["y"]) for p in points)
    for v in (v for v in values if v["kind"] == "mean"):
        ys = [p["y"] for p in points if p["label"] == v["label"] and p["x"] == v["x"]]
        assert v["n"] == len(ys) == 3
        assert v["mean"] == pytest.approx(np.mean(ys)) and v["sd"] == pytest.approx(np.std(ys, ddof=1))
        assert (v["lo"], v["hi"]) == pytest.approx((v["mean"] - v["sd"], v["mean"] + v["sd"]))
    assert spec["title"] == "Loss"
    # 300 is the whole chart's height: the plot gets what the title, the x axis and the legend's rows leave,
    # and the height is not squeezed to fit (a y title longer than the plot hid the chart's title)
    legend = spec["encoding"]["color"]["legend"]
    rows = -(-len(c.variants) // legend["columns"])
    assert spec["height"] == 300 - curves.TITLE_HEIGHT - curves.X_AXIS_HEIGHT - curves.LEGEND_ROW * rows
    assert spec["autosize"] == {"type": "fit-x", "contains": "padding"}


def test_a_timing_chart_draws_the_median_and_the_fastest_to_slowest_band():
    """Timings are said as the median of their repeats: the line is that median (not the mean a slow repeat
    drags up) and the band runs from the fastest repeat to the slowest."""
    import altair as alt

    repeats = (1.0, 1.1, 9.0)  # one repeat slowed by the machine
    points = [{"variant": "rnn", "seed": r, "x": t, "y": ms * t} for t in (8, 16) for r, ms in enumerate(repeats)]
    spec = curves_chart(points, y_title="ms", x_title="T", log_y=True, center="median")
    alt.LayerChart.from_dict(spec)
    at_8 = next(v for v in spec["data"]["values"] if v["kind"] == "mean" and v["x"] == 8)
    assert at_8["mean"] == pytest.approx(8.8) and (at_8["lo"], at_8["hi"]) == pytest.approx((8.0, 72.0))
    tips = json.dumps(spec["layer"][-1]["encoding"]["tooltip"])
    assert '"median"' in tips and '"smallest"' in tips and '"n (repeats)"' in tips and "sd" not in tips
    mean = curves_chart(points, y_title="ms", x_title="T", log_y=True)
    assert next(v for v in mean["data"]["values"] if v["kind"] == "mean" and v["x"] == 8)["mean"] == pytest.approx(
        8 * np.mean(repeats)
    )
    with pytest.raises(ValueError, match="median"):
        curves_chart(points, y_title="ms", x_title="T", center="mode")


def test_curves_chart_legend_never_clips_a_label():
    c = _comparison()
    short = curves_chart(c.curve_points("loss"), y_title="loss", x_title="step")["encoding"]["color"]["legend"]
    assert short["labelLimit"] == 0 and short["columns"] == 2
    long_points = [
        {**p, "label": f"{p['variant']} with a label longer than half a column"} for p in c.curve_points("loss")
    ]
    long = curves_chart(long_points, y_title="loss", x_title="step")
    assert long["encoding"]["color"]["legend"]["columns"] == 1
    assert long["height"] >= curves.MIN_PLOT_HEIGHT


def test_curves_chart_colours_follow_the_comparisons_order_and_a_lone_variant_has_no_legend():
    c = _comparison()
    both = curves_chart(c.curve_points("loss"), y_title="loss", x_title="step")
    only_none = curves_chart([p for p in c.curve_points("loss") if p["variant"] == "none"], y_title="", x_title="")
    assert both["encoding"]["color"]["scale"] == {"domain": ["with attention", "without"], "range": list(PALETTE[:2])}
    assert only_none["encoding"]["color"]["scale"] == {"domain": ["without"], "range": [PALETTE[1]]}  # still its own
    assert only_none["encoding"]["color"]["legend"] is None
    mine = curves_chart(c.curve_points("loss"), y_title="", x_title="", colors={"none": "#000000"})
    assert mine["encoding"]["color"]["scale"]["range"] == [PALETTE[0], "#000000"]


def test_curves_chart_averages_seeds_that_report_at_different_x():
    points = [{"variant": "v", "seed": 0, "x": x, "y": y} for x, y in ((0, 0.0), (2, 2.0))]
    points += [{"variant": "v", "seed": 1, "x": x, "y": y} for x, y in ((1, 3.0), (3, 3.0))]
    means = {v["x"]: v for v in curves_chart(points, y_title="y", x_title="x")["data"]["values"] if v["kind"] == "mean"}
    assert means[0.0]["n"] == 1 and means[0.0]["mean"] == 0.0  # only seed 0 has begun
    assert means[1.0]["n"] == 2 and means[1.0]["mean"] == pytest.approx((1.0 + 3.0) / 2)  # seed 0 interpolated
    assert means[3.0]["n"] == 1 and means[3.0]["mean"] == 3.0  # seed 0 has stopped


def test_curves_chart_keeps_bands_on_their_axes():
    points = [{"variant": "v", "seed": s, "x": 1, "y": y} for s, y in enumerate((0.98, 1.0, 0.5))]
    (mean,) = [v for v in curves_chart(points, y_title="", x_title="", percent=True)["data"]["values"] if "mean" in v]
    assert mean["hi"] == 1.0 and mean["lo"] == pytest.approx(mean["mean"] - mean["sd"])
    logs = [{"variant": "v", "seed": s, "x": 1, "y": y} for s, y in enumerate((0.01, 0.02, 3.0))]
    (mean,) = [v for v in curves_chart(logs, y_title="", x_title="", log_y=True)["data"]["values"] if "mean" in v]
    assert mean["lo"] == 0.01  # mean − sd < 0: on a log axis the band stops at the lowest seed


def test_curves_chart_sweeps_and_empty_data():
    runs = tuple(
        Run(cell, s, {"distance": d}, final={"acc": 0.5 + 0.01 * d * (cell == "LSTM") + 0.01 * s})
        for cell in ("RNN", "LSTM")
        for d in (5, 10, 20)
        for s in (0, 1, 2)
    )
    c = Comparison(("RNN", "LSTM"), runs)
    spec = curves_chart(
        c.sweep_points("acc", "distance"), y_title="accuracy", x_title="distance T", log_x=True, percent=True
    )
    assert spec["encoding"]["x"]["scale"] == {"type": "log"}
    means = [(v["label"], v["x"], v["n"]) for v in spec["data"]["values"] if v["kind"] == "mean"]
    assert means == [(cell, d, 3) for cell in ("RNN", "LSTM") for d in (5.0, 10.0, 20.0)]
    empty = curves_chart([], y_title="loss", x_title="step")
    assert empty["data"]["values"] == [] and _layer_marks(empty) == ["line"]


def test_curves_chart_specs_are_fresh_copies():
    points = [{"variant": "v", "seed": 0, "x": 1, "y": 1.0}]
    first = curves_chart(points, y_title="loss", x_title="step")
    first["layer"][0]["mark"]["type"] = "bar"
    assert curves_chart(points, y_title="loss", x_title="step")["layer"][0]["mark"]["type"] == "line"


def test_a_too_close_sentence_gives_its_reason_in_the_sentences_own_format(drift):
    drift["metrics"]["m"] = 0.25
    near = Comparison(
        ("a", "b"),
        tuple(Run("a", s, final={"m": 0.9 + s / 100}) for s in range(5))
        + tuple(Run("b", s, final={"m": 0.7 + s / 100}) for s in range(5)),
    )
    sentence = near.compare("a", "b", "m").sentence(".0%")
    assert "but the gap 20% is no more than the cross-machine drift 25% measured for m" in sentence
    assert "(n = 5 and 5)" in sentence and "p < 0.001" in sentence


def test_a_training_history_becomes_a_runs_curve():
    from types import SimpleNamespace

    reports = [SimpleNamespace(step=25, seconds=1.23456, loss=0.1234567, exact_match=0.512345)]  # a Progress's fields
    assert curve_of(reports) == [{"step": 25, "seconds": 1.235, "loss": 0.12346, "exact_match": 0.5123}]


def test_by_outcome_groups_settings_by_their_verdict_in_order(drift):
    from lessons.common.verdicts import by_outcome

    c = _comparison(AHEAD, BEHIND)
    clear = c.compare("attention", "none", "test exact")
    behind = c.compare("none", "attention", "test exact")
    close = _comparison(AHEAD, AHEAD).compare("attention", "none", "test exact")
    groups = by_outcome({8: close, 32: clear, 128: behind, 512: clear})
    assert groups == {"better": [32, 512], "too close": [8], "worse": [128]}
    assert by_outcome({}) == {"better": [], "too close": [], "worse": []}


def test_a_curves_x_is_a_step_or_its_seconds_and_nothing_else():
    assert curves.x_title("step") == "training step"
    assert curves.x_title("seconds") == "seconds of its own training"
    with pytest.raises(ValueError, match="'step' or 'seconds'"):
        curves.x_title("epoch")
