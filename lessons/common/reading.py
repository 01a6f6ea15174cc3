"""What a lesson keeps of one sentence read by a trained model."""

from __future__ import annotations

from minimodels.decode import Translation


class ReadsSentence:
    """For a lesson's record of one sentence through a model (a dataclass with a ``translation``): the axis labels
    every heatmap of it uses, the source pieces as ``source`` and the output pieces as ``target``."""

    translation: Translation

    @property
    def source(self) -> list[str]:
        return self.translation.source_pieces

    @property
    def target(self) -> list[str]:
        return self.translation.target_pieces
