"""The architecture lab's language reference: the table is the language's own registry."""

from lessons.architecture_lab import layer_reference, writing_chains
from minimodels.chains import ChainConfig, ChainModel


def test_the_reference_table_is_the_languages_own_registry():
    from minimodels.chains.language import ALIASES, LAYERS, STRUCTURES

    rows = {r["write"]: r for r in layer_reference.layer_table()}
    assert list(rows) == [*LAYERS, *(f"{name}(…)" for name in STRUCTURES)]  # one list, read from the language
    for alias, name in ALIASES.items():
        assert alias in rows[name if name in rows else f"{name}(…)"]["also written"]
    assert "mh dot self att" in rows["mh_dot_self_att"]["also written"]
    assert rows["mh_dot_src_att"]["option"] == "number of heads: (1–16) or (heads=…)"
    model = ChainModel(ChainConfig(encoder="highway(id)->parallel(id|id)", decoder="dot_src_att"))
    gate, merge = model.encoder.layers[0].gate, model.encoder.layers[1].merge
    assert rows["highway(…)"]["parameters (d = 64)"].startswith(f"{writing_chains.parameter_count(gate):,} ")
    assert rows["parallel(…)"]["parameters (d = 64)"].startswith(f"{writing_chains.parameter_count(merge):,} ")
