"""Section 6 of the scoring lesson on the page: the shipped translator's additive scores on a sentence, and the
student's own GRU + attention (from Your own data) offered beside it, on a sentence of its own language."""

from __future__ import annotations

from minimodels.own_data import PairsTask, build_own_model, own_data_train_config, read_example, save_model
from minimodels.train import train
from tests.helpers import open_page, plotly_array, plotly_specs

PAGE = "pages/scoring_functions.py"


def _maps(at):
    return [s for s in plotly_specs(at) if "raw scores e" in str(s["layout"].get("title"))]


def test_the_shipped_translators_scores_on_the_lectures_sentence():
    at = open_page(PAGE)
    assert "6 · A trained model's scores, on your sentence" in [h.value for h in at.header]
    (raw,) = _maps(at)
    assert raw["data"][0]["zmid"] == 0.0
    assert any("The raw scores run from" in m.value for m in at.markdown)
    at.text_input(key="scoring_functions.trained.toy-translation").input("").run()
    assert not at.exception and at.warning  # an empty sentence: a message, the last map stays


def test_your_own_gru_is_offered_and_drawn_on_its_own_language():
    pairs = [(t, s) for s, t in read_example("en-ar").pairs]  # Arabic -> English
    task = PairsTask.from_pairs(pairs, name="ar-en.tsv")
    model = build_own_model("gru-additive", task, seed=0)
    config = own_data_train_config("gru-additive", max_steps=20, max_seconds=20, report_every=10, eval_size=10)
    result = train(model, task, config)
    data = save_model(model.eval(), task, curve=result.history, config=config)
    at = open_page("pages/own_data.py")
    at.file_uploader(key="own_data.model_upload").set_value(("ar-en.safetensors", data, "x")).run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    choice = at.radio(key="scoring_functions.trained.model")
    mine = next(option for option in choice.options if "own" in option.lower() or "your" in option.lower())
    choice.set_value(mine).run()
    assert not at.exception, at.exception
    (raw,) = _maps(at)
    labels = raw["layout"]["xaxis"]["ticktext"]
    assert any(any("\u0600" <= ch <= "\u06ff" for ch in label) for label in labels)  # Arabic source pieces
    z = plotly_array(raw["data"][0]["z"])
    assert z.shape[1] == len(labels)
