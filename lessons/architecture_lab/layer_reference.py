"""The chain language's reference, folded under the introduction: every layer and structure, its other spellings,
its option, the side it may sit on and the parameters it adds, all read from the language's own registry; and the
rules and limits of the grammar.
"""

from __future__ import annotations

from lessons.architecture_lab.writing_chains import layer_parameters
from lessons.common.exercises import Exercise
from minimodels.chains import LIMITS, MAX_PARAMETERS, ChainConfig
from minimodels.chains.language import ALIASES, LAYERS, OPTIONS, STRUCTURES, Highway, Parallel
from minimodels.chains.model import chain_parameters

TITLE = "The language: every layer, and what it costs"


def _spellings(name: str) -> str:
    """The other ways a name may be written: the poster's (spaces for underscores) and the registered aliases."""
    others = ([name.replace("_", " ")] if "_" in name else []) + [a for a, n in ALIASES.items() if n == name]
    return ", ".join(others) or "–"


def _option(keyword: str | None) -> str:
    if keyword is None:
        return "–"
    what, *bounds = OPTIONS[keyword]
    values = f"{bounds[0]}–{bounds[1]}" if len(bounds) == 2 else " | ".join(bounds[0])
    return f"{what}: ({values}) or ({keyword}=…)"


_STRUCTURE_PROBES = {  # each structure around nothing: the parameters it adds itself
    "highway": Highway(()),
    "parallel": Parallel(((), ())),
    "parallel_add": Parallel(((), ()), add=True),
}


def language_notes() -> str:
    """The paragraph under the reference table: the grammar's rules and limits, read from the language itself."""
    limits, config = LIMITS, ChainConfig()
    glyphs = ", ".join(f"`{a}`" for a, n in ALIASES.items() if n == "ff")
    return (
        "Layers are joined by `->`, `→` or `!` (the arrow as the poster's PDF text prints it). Names may be written "
        "the poster's way, with spaces for underscores: `res nd(mh dot self att)` is `res_nd(mh_dot_self_att)`. "
        f"{glyphs} are read as `ff`: the poster's extracted text shows them where its chains and ablation rows have "
        "the feed-forward layer (Sockeye's own configurations write `res(norm->ff(2048)->linear)` there); `ε` is "
        "`id`. An option goes in brackets, alone or by its keyword: `mh_dot_att(2)` = `mh_dot_att(heads=2)`. In a "
        "decoder, self-attention and convolutions are masked so that no position reads a later one, and a decoder "
        "must contain a source attention, its only way to read the source. Limits, so that no one can make the "
        f"class server build a giant: {limits.max_chars:,} characters, brackets {limits.max_depth} deep, "
        f"`repeat` 1–{limits.max_repeat} times, {limits.max_layers} layers once repeats are unrolled, "
        f"{MAX_PARAMETERS:,} parameters. Sizes: d = {config.d_model}, ff width {config.d_ff}, "
        f"{config.n_heads} heads for `mh_` layers, kernel width {config.kernel_width}."
    )


def layer_table() -> list[dict]:
    """The language's reference table, read from its own registry (LAYERS, STRUCTURES, ALIASES, OPTIONS):
    every layer and structure, its other spellings, its option, its side and the parameters it adds at d = 64."""
    config = ChainConfig()
    rows = [
        {
            "write": name,
            "also written": _spellings(name),
            "what it does": spec.what,
            "option": _option(spec.option),
            "allowed in": " and ".join(spec.sides),
            "parameters (d = 64)": f"{layer_parameters(name):,}",
        }
        for name, spec in LAYERS.items()
    ]
    for name, what in STRUCTURES.items():
        probe = _STRUCTURE_PROBES.get(name)
        added = chain_parameters((probe,), config) if probe else 0
        rows.append(
            {
                "write": f"{name}(…)",
                "also written": _spellings(name),
                "what it does": what,
                "option": "–",
                "allowed in": "encoder and decoder",
                "parameters (d = 64)": f"{added:,}"
                + (" (two branches) + the branches'" if probe and "parallel" in name else " + its chain's"),
            }
        )
    return rows


def attention_parameters_exercise() -> Exercise:
    """By hand: one self-attention layer's parameters, the answer counted from the built layer. At half the lab's
    d: the page's table of layers gives each one's count at the lab's own d, which would answer it."""
    d = ChainConfig().d_model // 2
    attention = layer_parameters("mh_dot_self_att", ChainConfig(d_model=d))
    return Exercise(
        key="architecture_lab.ex1",
        prompt=f"How many parameters does one `mh_dot_self_att` layer have at d = {d}, half the lab's d? (Four d × d "
        "projections, each with a bias; the number of heads does not change it.)",
        answer=attention,
        explanation=f"4 × ({d}·{d} + {d}) = {attention:,}: splitting d into heads changes how the projections are "
        "read, not how many weights they hold. Halving d does not halve the count: the d·d weights fall to a "
        "quarter, the biases to a half.",
    )


def decoder_layer_exercise() -> Exercise:
    """Which layer the language refuses in a decoder."""
    return Exercise(
        key="architecture_lab.ex2",
        prompt="Which layer may **not** appear in a decoder?",
        choices=("rnn", "birnn", "cnn", "mh_dot_self_att"),
        answer=1,
        explanation="A bidirectional RNN reads the sentence from both ends, so in a decoder it would read "
        "target tokens that have not been generated yet. Decoder self-attention and convolutions are masked "
        "to look only left.",
    )
