"""The paper's own numbers: each row names the preset that copies it, the BLEU table is the paper's (checked
against its text where the course's sources are at hand), and the captions are the fixed text."""

from pathlib import Path

import pytest

from lessons.architecture_lab import paper_numbers, presets, writing_chains

SOURCES = Path("/work/shared/sources/sockeye-architecture-poster.txt")


def test_the_paper_table_rows_name_the_preset_that_copies_them():
    rows = paper_numbers.paper_rows()
    assert len(rows) == 9
    by_pair = {(r["encoder"], r["decoder"]): r for r in rows}
    assert by_pair[("RNN", "self-att")]["IWSLT EN→DE"] == "25.8 ± 0.1"
    assert by_pair[("self-att", "self-att")]["preset here"] == presets.PRESET_BY_KEY["transformer"].label
    assert by_pair[("self-att", "combined")]["preset here"] == "–"
    caption = paper_numbers.paper_caption()  # every row without a preset is said, with its reason
    assert caption.startswith(paper_numbers.PAPER_CAPTION) and "not built yet" not in caption
    assert [row["encoder"] + " → " + row["decoder"] for row in rows if row["preset here"] == "–"] == [
        part.split("”")[0] for part in caption.split("No preset copies “")[1:]
    ]


@pytest.mark.skipif(not SOURCES.exists(), reason="the course's source texts are not on this machine")
def test_the_quoted_bleu_table_is_the_papers():
    text = SOURCES.read_text(encoding="utf-8")
    for encoder, decoder, scores in paper_numbers.PAPER_COMBINATIONS:
        line = f"{encoder} {decoder} " + " ".join(f"{m:.1f}± {s:.1f}" for m, s in scores)
        assert line in text, line


def test_the_page_captions_are_fixed_text():
    assert paper_numbers.PAPER_CAPTION.startswith(paper_numbers.PAPER_CREDIT + " Not comparable")
    assert writing_chains.UNTRAINED_TITLE.startswith("UNTRAINED") and "uniform" in writing_chains.UNTRAINED_CAPTION
