"""Section 3: the race's attention grid, curves and tables, and the sentences computed from the measured table."""

import numpy as np
import pytest

from lessons.scoring_functions import four_scores, race_training, shipped_race, side_by_side
from tests.lessons.scoring_functions.made_up_races import race_of, run


def test_attention_grid_draws_one_heatmap_per_score_with_safe_labels():
    maps = {
        s: {"attention": np.full((2, 3), 1 / 3), "source_tokens": ["<b>", " ", "</s>"], "target_tokens": ["a", "b"]}
        for s in four_scores.SCORES
    }
    fig = side_by_side.attention_grid(maps)
    assert [t.type for t in fig.data] == ["heatmap"] * 4
    ticks = fig.layout.xaxis.ticktext
    assert ticks[0] == "&lt;b&gt;" and ticks[1] == side_by_side.SPACE
    maps["dot"]["attention"] = np.zeros((3, 3))
    with pytest.raises(ValueError, match="does not match"):
        side_by_side.attention_grid(maps)
    with pytest.raises(ValueError):
        side_by_side.attention_grid({})


def test_race_charts_draw_every_seed_and_the_mean_against_steps_or_seconds():
    results = shipped_race.load_results()
    loss, accuracy = side_by_side.race_charts(results, x="seconds")
    assert loss["encoding"]["x"]["title"] == "seconds of its own training" and loss["title"] == "Loss"
    seeds = [v for v in loss["data"]["values"] if v["kind"] == "seed" and v["label"] == "dot"]
    assert sorted((v["seed"], v["x"], v["y"]) for v in seeds) == sorted(
        (r.seed, p["seconds"], p["loss"]) for r in results.runs_of("dot") for p in r.curve
    )  # every report of every seed, in its own seconds
    assert accuracy["layer"][-1]["encoding"]["y"]["axis"]["format"] == "%"  # exact match in per cent
    assert accuracy["encoding"]["color"]["scale"]["range"] == [four_scores.COLORS[s] for s in four_scores.SCORES]
    steps, _ = side_by_side.race_charts(results)
    assert {v["x"] for v in steps["data"]["values"]} == {p["step"] for r in results.runs for p in r.curve}
    with pytest.raises(ValueError):
        side_by_side.race_charts(results, x="loss")


def test_table_gives_mean_sd_and_n_and_says_when_a_level_was_not_reached():
    c = race_of(
        run("dot", 0, [(10, 0.5), (20, 0.92), (30, 0.96)]),
        run("dot", 1, [(10, 0.91), (20, 0.97)]),
        run("dot", 2, [(10, 0.2), (20, 0.5), (30, 0.93), (40, 0.99)]),
        run("additive", 0, [(10, 0.3), (20, 0.6)]),
        models={"dot": {"parameters": {"score": 0}}, "additive": {"parameters": {"score": 10}}},
    )
    rows = {r["score"]: r for r in side_by_side.table_rows(c)}
    assert list(rows) == ["dot", "additive (MLP)"]
    dot = rows["dot"]
    assert dot["n"] == 3 and dot["parameters"] == 0
    assert dot["steps to 90%"] == "20 ± 10"  # 20, 10, 30
    assert dot["steps to 95%"] == "30 ± 10"  # 30, 20, 40
    assert dot["seconds to 90%"] == "2.0 ± 1.0"
    assert dot["test exact match"] == "90.0% ± 0.0%"
    assert rows["additive (MLP)"]["steps to 90%"] == "not reached (1 of 1)"
    assert rows["additive (MLP)"]["parameters"] == 10
    assert rows["additive (MLP)"]["attends from"].startswith("sₜ₋₁")
    per_seed = side_by_side.seed_rows(c)
    assert [(r["score"], r["seed"], r["steps to 90%"], r["stopped by"]) for r in per_seed] == [
        ("dot", 0, 20, "target"),
        ("dot", 1, 10, "target"),
        ("dot", 2, 30, "target"),
        ("additive (MLP)", 0, None, "target"),
    ]
    c = race_of(run("dot", 0, [(10, 0.96)]), run("dot", 1, [(10, 0.99)]), run("dot", 2, [(10, 0.2)], test=None))
    (row,) = side_by_side.table_rows(c)
    assert row["steps to 95%"] == "10 ± 0 (n = 2; 1 of 3 not reached)"
    assert row["test exact match"] == "90.0% ± 0.0% (n = 2; 1 of 3 not measured)"  # stopped before its checks
    assert "parameters" not in row  # a live race does not record them


def mean_steps(results, level):
    return {
        s: np.mean([r.final[race_training.level_metric("steps", level)] for r in results.runs_of(s)])
        for s in four_scores.SCORES
    }


def test_observations_are_read_off_the_results():
    results = shipped_race.load_results()
    lines = side_by_side.observations(results)
    at_95 = mean_steps(results, 0.95)
    tied = [four_scores.LABELS[s] for s in four_scores.SCORES if at_95[s] == pytest.approx(min(at_95.values()))]
    assert lines[0].startswith("Fewest steps to 95%, on average: " + " and ".join(f"**{t}**" for t in tied))
    assert "too close to call" in lines[0]  # a tie is never a win
    align = {s: results.spread("alignment accuracy", s).mean for s in four_scores.SCORES}
    assert f"**{four_scores.LABELS[max(align, key=align.get)]}**" in lines[3]
    per_step = {s: results.spread("seconds per 100 steps", s).mean for s in four_scores.SCORES}
    slowest, fastest = max(per_step, key=per_step.get), min(per_step, key=per_step.get)
    clear = results.compare(fastest, slowest, "seconds per 100 steps", higher_is_better=False).clear
    head = "Slowest step: **{}**" if clear else "Slowest step on average: {}"  # bold only when the rule calls it
    assert (
        lines[2].startswith(head.format(four_scores.LABELS[slowest])) and "the shipping machine's seconds" in lines[2]
    )


def test_every_sentence_says_which_way_the_numbers_go_and_whether_it_is_clear(rule_on_made_up_seeds):
    """Each observation, fed a race that goes one way and then the other, names the right score and says "beats"
    only when the gap is larger than the spread over seeds."""

    def race(dot_steps, additive_steps, dot_align, additive_align, dot_speed, additive_speed):
        runs = []
        for seed, (d, a) in enumerate(zip(dot_steps, additive_steps, strict=True)):
            runs.append(run("dot", seed, [(d - 10, 0.5), (d, 0.96)], align=dot_align[seed], seconds_per_step=dot_speed))
            runs.append(
                run(
                    "additive",
                    seed,
                    [(a - 10, 0.5), (a, 0.96)],
                    align=additive_align[seed],
                    seconds_per_step=additive_speed,
                )
            )
        return race_of(*runs)

    clear = side_by_side.observations(
        race([100, 110, 120], [300, 310, 320], [0.9, 0.91, 0.92], [0.5, 0.51, 0.52], 0.1, 0.3)
    )
    assert clear[0].startswith("Fewest steps to 95%, on average: **dot**.")
    assert "dot beats additive (MLP) on steps to 95%" in clear[0]
    assert clear[2].startswith("Slowest step: **additive (MLP)**, 3.0× the time of dot's")
    assert "dot beats additive (MLP) on seconds per 100 steps" in clear[2]
    assert clear[3].startswith("Sharpest alignment with the gold one, on average: **dot** (91%")
    assert "dot beats additive (MLP) on alignment accuracy" in clear[3]

    other = side_by_side.observations(
        race([300, 310, 320], [100, 110, 120], [0.5, 0.51, 0.52], [0.9, 0.91, 0.92], 0.3, 0.1)
    )
    assert other[0].startswith("Fewest steps to 95%, on average: **additive (MLP)**.")
    assert "additive (MLP) beats dot on steps to 95%" in other[0]
    assert other[2].startswith("Slowest step: **dot**") and "additive (MLP) beats dot" in other[2]
    assert other[3].startswith("Sharpest alignment with the gold one, on average: **additive (MLP)**")

    close = side_by_side.observations(
        race([100, 200, 300], [150, 250, 350], [0.5, 0.7, 0.9], [0.6, 0.8, 1.0], 0.1, 0.1)
    )
    assert close[0].startswith("Fewest steps to 95%, on average: **dot**.") and "too close to call" in close[0]
    assert "too close to call" in close[3] and " beats " not in close[3]

    one_seed = side_by_side.observations(race([100], [300], [0.9], [0.5], 0.1, 0.3))  # one seed is an anecdote
    assert all("too close to call" in line and " beats " not in line for line in one_seed)


def three_seed_race(test, align, speeds):
    """A race of dot and scaled dot over three seeds: per score its test exact match and alignment (means, ± 0.005
    over seeds) and its seconds per step for each seed."""
    runs = []
    for score in ("dot", "scaled_dot"):
        for seed in range(3):
            jitter = 0.005 * (seed - 1)
            runs.append(
                run(
                    score,
                    seed,
                    [(10, 0.5), (20, 0.96)],
                    test=test[score] + jitter,
                    align=align[score] + jitter,
                    seconds_per_step=speeds[score][seed],
                )
            )
    return race_of(*runs)


@pytest.mark.usefixtures("rule_on_made_up_seeds")  # made-up numbers, turned round
def test_the_clear_differences_on_test_exact_match_and_alignment_are_named_either_way():
    """The pairs the rule calls clear are named with the leader first; swapping the numbers swaps the sentence."""
    speeds = {"dot": [0.1, 0.2, 0.3], "scaled_dot": [0.1, 0.2, 0.3]}
    lines = side_by_side.observations(
        three_seed_race({"dot": 0.947, "scaled_dot": 0.977}, {"dot": 0.81, "scaled_dot": 0.65}, speeds)
    )
    assert any(
        line.startswith("Clear on test exact match, pair by pair: **scaled dot** ahead of dot (97.7%") for line in lines
    )
    assert any(
        line.startswith("Clear on alignment accuracy, pair by pair: **dot** ahead of scaled dot (81.0%")
        for line in lines
    )
    swapped = side_by_side.observations(
        three_seed_race({"dot": 0.977, "scaled_dot": 0.947}, {"dot": 0.65, "scaled_dot": 0.81}, speeds)
    )
    assert any(
        line.startswith("Clear on test exact match, pair by pair: **dot** ahead of scaled dot (97.7%")
        for line in swapped
    )
    assert any(
        line.startswith("Clear on alignment accuracy, pair by pair: **scaled dot** ahead of dot (81.0%")
        for line in swapped
    )
    close = side_by_side.clear_pairs(
        three_seed_race({"dot": 0.95, "scaled_dot": 0.951}, {"dot": 0.8, "scaled_dot": 0.8}, speeds),
        "test exact match",
        ".1%",
    )
    assert close.startswith("On test exact match, the rule calls none of the 1 pairs") and "ahead" not in close


def test_the_seconds_are_said_to_measure_the_load_only_when_every_score_orders_the_seeds_alike():
    same = {"dot": [0.1, 0.2, 0.3], "scaled_dot": [0.15, 0.25, 0.35]}
    c = three_seed_race({"dot": 0.9, "scaled_dot": 0.9}, {"dot": 0.8, "scaled_dot": 0.8}, same)
    note = side_by_side.load_note(c, "seconds per 100 steps")
    assert "fastest with seed 0 and slowest with seed 2" in note
    reversed_seeds = {"dot": [0.3, 0.2, 0.1], "scaled_dot": [0.35, 0.25, 0.15]}
    c = three_seed_race({"dot": 0.9, "scaled_dot": 0.9}, {"dot": 0.8, "scaled_dot": 0.8}, reversed_seeds)
    assert "fastest with seed 2 and slowest with seed 0" in side_by_side.load_note(c, "seconds per 100 steps")
    mixed = {"dot": [0.1, 0.2, 0.3], "scaled_dot": [0.35, 0.25, 0.15]}
    c = three_seed_race({"dot": 0.9, "scaled_dot": 0.9}, {"dot": 0.8, "scaled_dot": 0.8}, mixed)
    assert side_by_side.load_note(c, "seconds per 100 steps") == ""


def test_the_race_intro_does_not_say_additive_steps_are_slower_before_the_table_does():
    assert "why its steps take longer" not in side_by_side.race_intro()
    assert "whether that shows in the seconds" in side_by_side.race_intro()
