"""The masking page under AppTest: the padding batch (typed, refused, escaped), the causal mask and the two
trained single-self-attention decoders on the student's word, the shipped results (and their absence), live
training of both decoders, the exercises.

AppTest sessions share Streamlit's session-scoped caches, so a student's run (``ui.current_run``) outlives one
test: every test that starts a run leaves it over, and none assumes there is no run.
"""

import json
import re

import numpy as np

import ui.results
from lessons import masking
from lessons.masking import cheating, decoders, train_yourself, training, translator, word_cipher
from lessons.masking.causal import MAP_TITLES, maps_caption
from tests.helpers import (
    answer_every_exercise,
    answer_exercise,
    open_page,
    plotly_array,
    predicted,
    progress_text,
    train_and_stop_at_once,
    unfold,
    wait_for_run,
)

PAGE = "pages/masking.py"


def heatmaps(at) -> dict[str, dict]:
    """Every Plotly heatmap on the page by its title (a map drawn beside another in one figure,
    ``lessons.masking.side_by_side.pair_figure``, by its own name), as a figure of that one map with its figure's
    layout."""
    found = {}
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        for trace in spec["data"]:
            if trace["type"] == "heatmap":
                title = trace.get("name") or spec["layout"].get("title", {}).get("text", "")
                found.setdefault(title, {"data": [trace], "layout": spec["layout"]})
    return found


def x_labels(spec: dict) -> list[str]:
    """The column labels the student reads under one map: its axis's tick labels at the map's own columns."""
    axis = spec["layout"]["xaxis"]
    label_at = dict(zip(axis["tickvals"], axis["ticktext"], strict=True))
    return [label_at[x] for x in spec["data"][0]["x"]]


def heatmap_titled(at, start: str) -> dict:
    matches = [spec for title, spec in heatmaps(at).items() if title.startswith(start)]
    assert matches, f"no heatmap titled {start!r}: {list(heatmaps(at))}"
    return matches[0]


def z(spec: dict) -> np.ndarray:
    return plotly_array(spec["data"][0]["z"]).astype(float)


def causal_row(at):
    """The table of one query's scores, masked scores and weights."""
    (table,) = [df.value for df in at.dataframe if "future → −∞" in df.value.columns]
    return table


def test_page_opens_with_every_figure_and_the_shipped_results(at):
    assert not at.exception
    assert at.title[0].value == "Masking"
    assert at.latex
    off, on = heatmap_titled(at, "padding mask OFF"), heatmap_titled(at, "padding mask ON")
    assert x_labels(off) == x_labels(on) == ["I", "like", "pizza", "&lt;pad&gt;", "&lt;pad&gt;"]
    assert (z(on)[:, 3:] == 0).all() and (z(off)[:, 3:] > 0).all()  # exactly 0 with the mask, a leak without
    assert z(heatmap_titled(at, "padding_mask")).tolist() == [[1, 1, 1, 0, 0], [1] * 5, [1, 0, 0, 0, 0]]
    T = 2 * word_cipher.WORD
    causal = z(heatmap_titled(at, f"causal_mask({T})"))
    assert causal.tolist() == np.tril(np.ones((T, T))).tolist()
    normal, cheater = z(heatmap_titled(at, MAP_TITLES[True])), z(heatmap_titled(at, MAP_TITLES[False]))
    assert (normal[np.triu_indices(T, 1)] == 0).all()  # the trained decoder never reads the future
    assert cheater[np.triu_indices(T, 1)].sum() > 1
    views = decoders.shipped_view(True, word_cipher.PROBE), decoders.shipped_view(False, word_cipher.PROBE)
    assert maps_caption(*views) in [c.value for c in at.caption]
    results = training.load_results()
    assert not any(e.label.startswith("Reveal the outputs") and e.children for e in at.expander)  # folded: not built
    assert not any(e.label.startswith("Reveal") for e in at.expander)  # offered once the predictions are answered
    unfold(predicted(at), "Reveal the outputs")
    reveal = next(e for e in at.expander if e.label.startswith("Reveal the outputs"))
    tables = [df.value.to_dict("records") for df in reveal.dataframe]
    assert (
        cheating.outputs_table(*views) in tables and cheating.results_table(results) in tables
    )  # behind the predictions
    provenance = [c.value for c in at.caption if c.value.startswith("Measured by `python scripts/masking_results.py")]
    assert provenance and f"(n = {len(results.seeds)})" in provenance[0]
    for sentence in [
        *cheating.results_sentences(results),
        cheating.floor_gap_sentence(results, cheating.shipped_loss_parts()),
    ]:
        assert any(sentence in m.value for m in at.markdown), sentence  # the floor reconciled, behind the reveal
    assert any(translator.NEXT_TEXT in m.value for m in at.markdown)
    assert at.button(key="masking.train.causal.train").disabled is False


def test_a_typed_batch_is_padded_and_masked(at):
    at.text_area(key="masking.sentences").set_value("the cat sat on the mat\nhi").run()
    assert not at.exception and not at.warning
    assert at.session_state["masking.batch"] == (("the", "cat", "sat", "on", "the", "mat"), ("hi",))
    at.selectbox(key="masking.pick").set_value(1).run()
    on = z(heatmap_titled(at, "padding mask ON"))
    assert on.shape == (6, 6) and (on[:, 1:] == 0).all() and np.allclose(on[:, 0], 1)
    at.selectbox(key="masking.pick").set_value(0).run()
    assert any("no padding" in m.value for m in at.markdown)  # the longest sentence has none


def test_refused_text_gets_a_warning_and_keeps_the_last_batch(at):
    before = at.session_state["masking.batch"]
    for bad in ["", "   \n  ", "one\n" * 7, "word " * 13, "x" * 41, "word " * 500]:
        at.text_area(key="masking.sentences").set_value(bad).run()
        assert not at.exception
        assert at.warning and "last batch that worked" in at.warning[0].value, repr(bad)
        assert at.session_state["masking.batch"] == before


def test_html_emoji_and_rtl_are_shown_as_text_never_as_html(at):
    at.text_area(key="masking.sentences").set_value("<b>bold</b> <script>x</script>\n😀 مرحبا").run()
    assert not at.exception and not at.warning
    labels = x_labels(heatmap_titled(at, "padding mask OFF"))
    assert labels == ["&lt;b&gt;bold&lt;/b&gt;", "&lt;script&gt;x&lt;/script&gt;"]
    at.selectbox(key="masking.pick").set_value(1).run()
    assert x_labels(heatmap_titled(at, "padding mask ON")) == ["😀", "مرحبا"]


def test_the_word_and_the_position_change_the_decoder_maps(at):
    before = z(heatmap_titled(at, MAP_TITLES[False]))
    at.text_input(key="masking.word").set_value("abcdefgh").run()
    assert not at.exception and not at.warning
    at.slider(key="masking.position").set_value(2 * word_cipher.WORD).run()
    assert "-inf" not in set(causal_row(at)["future → −∞"])  # the last query reads every position
    at.slider(key="masking.position").set_value(1).run()
    assert list(causal_row(at)["future → −∞"])[1:] == ["-inf"] * (2 * word_cipher.WORD - 1)
    assert list(causal_row(at)["softmax"]) == ["1.000"] + ["0.000"] * (2 * word_cipher.WORD - 1)
    normal, cheater = z(heatmap_titled(at, MAP_TITLES[True])), z(heatmap_titled(at, MAP_TITLES[False]))
    assert (normal[np.triu_indices(len(normal), 1)] == 0).all()
    assert not np.array_equal(cheater, before)
    outputs = (
        next(e for e in unfold(predicted(at), "Reveal").expander if e.label.startswith("Reveal")).dataframe[0].value
    )
    assert list(outputs["gold cipher"]) == ["defghijk"] * 2


def test_a_refused_word_warns_and_keeps_the_last_one(at):
    at.text_input(key="masking.word").set_value("abcdefgh").run()
    for bad in ["abc", "abcdefg1", "<b>abcd</b>"]:
        at.text_input(key="masking.word").set_value(bad).run()
        assert not at.exception and at.warning and "last word that worked" in at.warning[0].value, bad
        assert at.session_state["masking.word_ok"] == "abcdefgh"


def test_missing_or_broken_results_get_a_message_and_the_rest_of_the_page_works(monkeypatch, tmp_path):
    monkeypatch.setattr(ui.results, "ROOT", tmp_path)  # the catalog's results path, under an empty folder
    at = open_page(PAGE)
    assert not at.exception
    assert at.warning and "cannot be shown" in at.warning[0].value and "masking_results.py" in at.warning[0].value
    assert heatmap_titled(at, MAP_TITLES[False])  # the decoders still load and draw
    assert "masking.ex6.answer" not in [r.key for r in at.radio]
    broken = tmp_path / "assets" / "results" / "masking.json"
    broken.parent.mkdir(parents=True)
    broken.write_text('{"models": []}', encoding="utf-8")  # the old format is refused too
    at = open_page(PAGE)
    assert not at.exception and at.warning and "masking_results.py" in at.warning[0].value


def test_exercises_are_checked(at):
    right = answer_every_exercise(at, masking.all_exercises(training.load_results()))
    answer_exercise(at, "masking.ex2", 256)
    assert any("Not quite" in w.value and "Worked answer" in w.value for w in at.warning)
    assert set(right) == {f"masking.ex{i}" for i in range(1, 7)}


def test_the_cheating_decoder_trains_live_to_the_end_and_replays(at):
    at.radio(key="masking.live_causal").set_value(False).run()
    at.select_slider(key="masking.budget").set_value(5).run()
    at.button(key="masking.train.cheat.train").click().run()
    assert not at.exception
    assert wait_for_run(at).startswith("done")
    metrics = {m.label: m.value for m in at.metric}
    assert "teacher-forced accuracy" in metrics and "free-running exact match" in metrics
    steps = int(re.search(r"step (\d+)", progress_text(at)).group(1))
    title = f"self-attention on “{word_cipher.PROBE}” at step"
    if steps <= train_yourself.LIVE_REPORT_EVERY:  # a very busy machine: one report, drawn without a replay
        assert heatmap_titled(at, f"{title} {steps}")
        return
    replay = at.slider(key="masking.train.cheat.replay")
    assert replay.value == replay.max > 1
    replay.set_value(1).run()
    assert not at.exception
    assert heatmap_titled(at, f"{title} {train_yourself.LIVE_REPORT_EVERY}")


def test_stop_ends_the_causal_run_and_train_is_offered_again(at):
    at.select_slider(key="masking.budget").set_value(60).run()
    train_and_stop_at_once(at, "masking.train.causal", timeout=120)
