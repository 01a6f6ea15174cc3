"""Section 7: a student's run is a fresh model of their own, and every model is labelled with what it is."""

from lessons.bahdanau_attention import decoding, training
from tests.helpers import recipe_of

IT = "toy-translation-it"


def test_a_run_is_the_students_own_fresh_model_not_yet_started(model):
    run = training.new_run("dates", seed=0, budget_seconds=training.budget_seconds("dates"))
    assert run.status == "queued" and not run.snapshots and run.model is not model
    assert training.budget_seconds("dates") < training.budget_seconds(IT) <= 120


def test_every_model_is_labelled_with_what_it_is(model):
    assert model.config.bidirectional and model.config.describe() in decoding.shipped_caption(model, {})
    own = recipe_of(training.new_run("dates", 1, 5.0, bidirectional=True))[0]
    assert own.config.bidirectional and own.config.decoder_size == 2 * own.config.hidden_size
    caption = decoding.model_caption(own, model, {})
    assert caption.startswith("Your model, trained on this page: bidirectional GRU encoder")
    plain = recipe_of(training.new_run("dates", 1, 5.0))[0]
    assert "unidirectional" in decoding.model_caption(plain, model, {})


def test_the_encoder_toggle_and_text_say_what_this_tasks_shipped_model_has():
    from lessons.bahdanau_attention import training

    assert training.bidirectional_label(True).endswith("shipped model: bidirectional)")
    assert training.bidirectional_label(False).endswith("shipped model: unidirectional)")
    assert "shipped model is unidirectional" in training.train_text(30, False)
    assert "shipped model is bidirectional" in training.train_text(30, True)
