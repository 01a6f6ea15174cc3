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


@pytest.mark.skipif(not SOURCES.exists(), reason="the course's source texts are not on this machine")
def test_the_quoted_cnn_ladders_and_rnn_rows_are_the_posters():
    lines = SOURCES.read_text(encoding="utf-8").splitlines()

    def en_de(line: str) -> tuple[float, float]:  # the WMT'17 EN→DE column: the second "m± s" of a table line
        values = [v.strip() for v in line.split("±")]
        return float(values[1].split()[-1]), float(values[2].split()[0])

    for base, steps in paper_numbers.PAPER_CNN_LADDERS.items():
        start = next(i for i, line in enumerate(lines) if line.startswith(base + " "))
        block = lines[start : start + 6]
        for name, score in steps:
            printed = name.replace("ff", "↵")  # the poster's text shows the feed-forward layer as ↵
            found = next(line for line in block if line.startswith(printed + " "))
            assert en_de(found) == score, (base, name)
    ladder = lines[next(i for i, line in enumerate(lines) if line.startswith("RNMT ")) :]
    for name, score in paper_numbers.PAPER_RNN_ROWS_NOT_COPIED.items():
        assert en_de(next(line for line in ladder if line.startswith(name + " "))) == score, name


def test_what_is_not_reproduced_names_each_quoted_number_in_order():
    text = paper_numbers.not_reproduced()
    for steps in paper_numbers.PAPER_CNN_LADDERS.values():
        assert " → ".join(f"{name} {m:.1f}" for name, (m, _) in steps) in text
    for name, (m, _) in paper_numbers.PAPER_RNN_ROWS_NOT_COPIED.items():
        assert f"“{name}” ({m:.1f})" in text
    assert "CNN ablations" in text and "METEOR" in text and "LV→EN" in text
