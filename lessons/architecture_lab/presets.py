"""The presets: small copies of the paper's encoder/decoder combinations, baselines and ablations, written in its
chain language (the page's first control, the shipped grid's rows, the paper's table's "preset here").
"""

from __future__ import annotations

from dataclasses import dataclass

from lessons.architecture_lab.writing_chains import check, layer_parameters
from lessons.common.exercises import Exercise
from minimodels.chains import ChainConfig
from minimodels.tasks import get_task


def transformer_style(layer: str, side: str, n: int = 2) -> str:
    """The paper's §4 recipe: a Transformer whose self-attention sublayer is replaced by ``layer``.

    Encoder ``pos->repeat(n,res(norm->X)->res(norm->ff))->norm``; decoder the same with a source attention
    after X. ``layer=""`` in the decoder is the paper's decoder "none": source attention and ff only.
    """
    middle = f"res(norm->{layer})->" if layer else ""
    if side == "encoder":
        return f"pos->repeat({n},{middle}res(norm->ff))->norm"
    return f"pos->repeat({n},{middle}res(norm->mh_dot_src_att)->res(norm->ff))->norm"


# the poster's "RNN to Transformer" encoder: a bidirectional first layer, unidirectional ones after it
RNN_ENCODER = "pos->res(norm->birnn)->res(norm->ff)->repeat(1,res(norm->rnn)->res(norm->ff))->norm"
RNN_ENCODER_NO_FF = "pos->res(norm->birnn)->repeat(1,res(norm->rnn))->norm"  # the ablations before "+ ff"


@dataclass(frozen=True)
class Preset:
    key: str
    label: str  # "encoder → decoder"
    encoder: str
    decoder: str
    paper: tuple[str, str] | None  # the paper's table row it is a small copy of: (encoder, decoder)
    note: str
    group: str = "combinations"  # the poster's table it belongs to: "baselines", "combinations" or "ablations"


PRESETS: tuple[Preset, ...] = (
    Preset(
        "transformer",
        "Transformer: self-att → self-att",
        transformer_style("mh_dot_self_att", "encoder"),
        transformer_style("mh_dot_self_att", "decoder"),
        ("self-att", "self-att"),
        "The paper's baseline, as pre-LN: the same sizes as the course's TinyTransformer.",
    ),
    Preset(
        "rnn-rnn",
        "RNN → RNN (Transformer-style blocks)",
        RNN_ENCODER,
        transformer_style("rnn", "decoder"),
        ("RNN", "RNN"),
        "Recurrent layers in the Transformer's blocks: the paper's best RNN model.",
    ),
    Preset(
        "cnn-cnn",
        "CNN → CNN (Transformer-style blocks)",
        transformer_style("cnn", "encoder"),
        transformer_style("cnn", "decoder"),
        ("CNN", "CNN"),
        "Gated convolutions in the Transformer's blocks.",
    ),
    Preset(
        "selfatt-rnn",
        "self-att → RNN",
        transformer_style("mh_dot_self_att", "encoder"),
        transformer_style("rnn", "decoder"),
        ("self-att", "RNN"),
        "Self-attention reads the source; an RNN reads the target so far.",
    ),
    Preset(
        "selfatt-cnn",
        "self-att → CNN",
        transformer_style("mh_dot_self_att", "encoder"),
        transformer_style("cnn", "decoder"),
        ("self-att", "CNN"),
        "A causal convolution reads the target.",
    ),
    Preset(
        "rnn-selfatt",
        "RNN → self-att",
        RNN_ENCODER,
        transformer_style("mh_dot_self_att", "decoder"),
        ("RNN", "self-att"),
        "A recurrent encoder under a self-attention decoder.",
    ),
    Preset(
        "cnn-selfatt",
        "CNN → self-att",
        transformer_style("cnn", "encoder"),
        transformer_style("mh_dot_self_att", "decoder"),
        ("CNN", "self-att"),
        "Convolutions read the source.",
    ),
    Preset(
        "selfatt-none",
        "self-att → none",
        transformer_style("mh_dot_self_att", "encoder"),
        transformer_style("", "decoder"),
        ("self-att", "none"),
        "A decoder with no layer that reads earlier "
        "target tokens: each position sees its own token, its position and the source.",
    ),
    Preset(
        "rnmt",
        "RNMT-style RNN (the paper's RNN baseline)",
        "res(birnn)->repeat(1,res(rnn))",
        "repeat(2,res(rnn))->res(dot_src_att)->res(ff)",
        None,
        "The poster's RNN baseline "
        "dropout->res_d(birnn)->repeat(5,res_d(rnn)) / dropout->repeat(6,res_d(rnn))->res_d(dot_src_att)->"
        "res_d(ff), made small and without dropout. Its decoder starts from zeros, not the encoder's state.",
        "baselines",
    ),
    Preset(
        "convs2s",
        "CNN GLU (the paper's CNN baseline)",
        "pos->repeat(2,res(cnn))",
        "pos->repeat(2,res(cnn)->res(dot_src_att))",
        None,
        "The poster's CNN baseline pos->repeat(6,res_d(cnn)) "
        "/ pos->repeat(6,res_d(cnn)->res_d(dot_src_att)), made small and without dropout.",
        "baselines",
    ),
    Preset(
        "rnn-one-att",
        "RNN + mh + pos + norm (one source attention)",
        RNN_ENCODER_NO_FF,
        "pos->repeat(2,res(norm->rnn))->res(norm->mh_dot_src_att)->norm",
        None,
        "The poster's RNN ablation before "
        "'+ multi-att': multi-head attention, positions and layer norm, but one source attention on top of the "
        "decoder's RNNs and no feed-forward layers.",
        "ablations",
    ),
    Preset(
        "rnn-multi-att",
        "+ multi-att (a source attention in every decoder layer)",
        RNN_ENCODER_NO_FF,
        "pos->repeat(2,res(norm->rnn)->res(norm->mh_dot_src_att))->norm",
        None,
        "The same, with a source "
        "attention after each decoder RNN: the poster's '+ multi-att'. Adding the residual feed-forward layers "
        "to both sides gives RNN → RNN above (the poster's '+ ff').",
        "ablations",
    ),
)

PRESET_BY_KEY = {p.key: p for p in PRESETS}


def label_for(encoder: str, decoder: str) -> str:
    """The preset's label when the chains are a preset's, else "your chains"."""
    for p in PRESETS:
        if (p.encoder, p.decoder) == (encoder, decoder):
            return p.label
    return "your chains"


def none_decoder_exercise() -> Exercise:
    """By hand: the parameters the self-att → none decoder drops from the Transformer preset's, the answer counted
    from both presets' checked chains."""
    d = ChainConfig().d_model
    attention = layer_parameters("mh_dot_self_att")
    task = get_task("toy-translation")
    full, none = (
        check(PRESET_BY_KEY[k].encoder, PRESET_BY_KEY[k].decoder, task).parameters
        for k in ("transformer", "selfatt-none")
    )
    saved, layers = full - none, 2
    return Exercise(
        key="architecture_lab.ex4",
        prompt=f"Before you look at the tables: the decoder of **self-att → none** is the Transformer preset's "
        f"decoder with the self-attention sublayer, and the layer norm in front of it, taken out of each of its "
        f"{layers} layers. At d = {d}, how many parameters does that remove? (A layer norm has a gain and a bias "
        "per dimension.)",
        answer=saved,
        hint="Count the norm too, and both decoder layers (repeat(n, …) gives each copy its own weights).",
        explanation=f"Per layer: the attention's four d × d projections with biases, 4 × ({d}·{d} + {d}) = "
        f"{attention}, plus the norm's 2 × {d} = {2 * d}, together {attention + 2 * d}; × {layers} layers = "
        f"{saved}. The parameter column agrees: {full:,} − {none:,} = {saved:,}. Whether those weights matter "
        "is what the run measures: the poster's “none” decoder lost about 2 BLEU.",
    )
