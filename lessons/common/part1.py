"""Part 1 of the course map: its lessons, in order (the entries :mod:`lessons.common.catalog` reads)."""

from __future__ import annotations

from lessons.common.entries import Axis, Lesson, Part

PART = Part(
    "Part 1 · Recurrence and the bottleneck",
    (
        Lesson(
            slug="rnn_cells",
            title="RNN cells",
            promise="Step an RNN, a GRU and an LSTM through a sentence and watch every gate.",
            icon=":material/replay:",
            tab_icon="🔁",
            introduces=("recurrence", "rnn", "gru", "lstm"),
            results=("assets/results/rnn_cells.json", "assets/results/rnn_cells_learning_rates.json"),
            pretrained=(),
            sources=(
                "Sources: the Transformer lecture's “RNN cells” slides (RNN, GRU and LSTM equations; “The "
                "cat, which already ate …, was full.”), “Why not a standard network?”, “Different types of "
                "RNNs” and “Limitation? … Sequential”; the NLP lecture's note that attention helps with the "
                "vanishing gradient through a shortcut to far-away states."
            ),
            sweep=(
                Axis("rnn_cells.train.distance", "distance T", (5, 10, 20, 40, 60, 80)),
                Axis("rnn_cells.train.seed", "seed", (0, 1, 2, 3, 4)),
            ),
        ),
        Lesson(
            slug="seq2seq_bottleneck",
            title="Seq2seq and the fixed-size context",
            promise="Squeeze a whole sentence into one vector and see where it breaks.",
            icon=":material/compress:",
            tab_icon="🗜️",
            introduces=("encoder", "decoder", "context vector", "bidirectional encoder", "pooling"),
            results=("assets/results/seq2seq_bottleneck.json",),
            pretrained=(),
            sources=(
                "Sources: the Transformer lecture's encoder–decoder slides (“Jane visite l'Afrique en "
                "septembre”, and the long sentence where “it is not perfect”); the NLP lecture's “Problem "
                "2: fixed-size sequence embedding” (the bottleneck); Sutskever, Vinyals & Le 2014; Cho et "
                "al. 2014; Bahdanau, Cho & Bengio 2015."
            ),
            sweep=(
                Axis("seq2seq_bottleneck.train_d", "context size D", (16, 32, 64, 128)),
                Axis("seq2seq_bottleneck.train_encoder", "encoder", ("unidirectional", "bidirectional")),
                Axis("seq2seq_bottleneck.seed", "seed", (0, 1, 2, 3, 4)),
            ),
        ),
    ),
)
