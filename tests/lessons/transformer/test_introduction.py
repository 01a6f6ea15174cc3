"""The introduction's layer-norm note, and the page's other fixed notes: each names what it describes."""

from lessons import transformer
from lessons.transformer import ablation, every_head, reading, train_it_yourself
from minimodels.train import default_train_config


def test_the_page_s_fixed_notes_name_what_they_describe():
    note = transformer.layer_norm_note()
    assert "pre-LN" in note and "post-LN" in note
    recipe = default_train_config(reading.MODEL)
    assert f"{recipe.warmup_steps}-step warm-up" in note and f"{recipe.lr:g}" in note  # read from the recipe
    assert "trains at a large learning rate" not in note  # no result stated before section 4 measures it
    assert every_head.DECODER_ROWS_NOTE.startswith("Decoder rows:") and "`<s>`" in every_head.DECODER_ROWS_NOTE
    assert train_it_yourself.live_config(30.0, seed=0).target_exact_match == train_it_yourself.LIVE_TARGET == 0.98
    assert ablation.CHART_HEIGHT > 240  # room for the title and legend above the spec's own plot height
