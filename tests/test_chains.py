"""The layer-chain language (parser, errors, limits) and the ChainModel it builds (sizes, masks, decoding)."""

import pytest
import torch

from minimodels.chains import (
    LIMITS,
    TRANSFORMER_DECODER,
    TRANSFORMER_ENCODER,
    ChainConfig,
    ChainError,
    ChainModel,
    Limits,
    check_config,
    count_layers,
    format_chain,
    parse_chain,
)
from minimodels.chains.language import Layer, Repeat, Residual
from minimodels.decode import greedy
from minimodels.transformer import TinyTransformer, TransformerConfig


def parameters(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def error_of(text: str, side: str = "encoder", limits: Limits = LIMITS) -> ChainError:
    with pytest.raises(ChainError) as info:
        parse_chain(text, side, limits)
    return info.value


# ------------------------------------------------------------------------------------------------ parsing
def test_the_papers_transformer_encoder_parses_to_its_tree():
    chain = parse_chain("pos->repeat(6,res(norm->mh_dot_self_att)->res(norm->ff))->norm", "encoder")
    assert [type(n).__name__ for n in chain] == ["Layer", "Repeat", "Layer"]
    repeat = chain[1]
    assert repeat.count == 6
    assert [type(n) for n in repeat.body] == [Residual, Residual]
    assert [n.name for n in repeat.body[0].body] == ["norm", "mh_dot_self_att"]
    assert count_layers(chain) == 2 + 6 * 4


@pytest.mark.parametrize(
    "text, side",
    [
        (TRANSFORMER_ENCODER, "encoder"),
        (TRANSFORMER_DECODER, "decoder"),
        ("repeat(6,birnn)", "encoder"),
        ("pos->repeat(6,res(cnn(5))->res(mh_dot_src_att(2)))", "decoder"),
        ("dropout->linear->rnn->dot_self_att->dot_src_att", "decoder"),
        ("repeat(2,repeat(3,res(res(ff))))", "encoder"),
    ],
)
def test_formatting_a_parsed_chain_gives_the_canonical_text_back(text, side):
    chain = parse_chain(text, side)
    assert format_chain(chain) == text
    spaced = text.replace("->", " -> ").replace(",", ", ")
    assert format_chain(parse_chain(spaced, side)) == text  # whitespace is free
    assert parse_chain(format_chain(chain), side) == chain


def test_the_papers_shorthands_and_arrow_are_read():
    assert format_chain(parse_chain("res_nd(rnn)→res_d(ff)", "encoder")) == "res(norm->rnn->dropout)->res(ff->dropout)"


def test_options_are_kept_and_positions_point_at_the_text():
    chain = parse_chain("cnn(5) -> mh_dot_self_att(8)", "encoder")
    assert chain == (Layer("cnn", 5, 0), Layer("mh_dot_self_att", 8, 10))
    assert parse_chain("repeat(3,ff)", "encoder") == (Repeat(3, (Layer("ff", None, 9),), 0),)


# ------------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "text, side, message",
    [
        ("pos->repeat(2,ff->norm", "encoder", "expected ')', found the end of the text at column 23"),
        ("repeat(2,res(ff)->norm", "encoder", "expected ')', found the end of the text at column 23"),
        ("res(ff))", "encoder", "unmatched ')' at column 8"),
        ("mh_dot_att", "encoder", "unknown layer 'mh_dot_att' at column 1; did you mean 'mh_dot_self_att'?"),
        ("ff->nrom", "encoder", "unknown layer 'nrom' at column 5; did you mean 'norm'?"),
        ("dot_src_att", "encoder", "dot_src_att is only allowed in a decoder at column 1"),
        ("rnn->birnn", "decoder", "birnn is only allowed in an encoder at column 6"),
        ("repeat(13,ff)", "encoder", "repeat count must be 1–12, not 13 at column 8"),
        ("repeat(0,ff)", "encoder", "repeat count must be 1–12, not 0"),
        ("repeat(1000000000,ff)", "encoder", "repeat count must be 1–12, not 1000000000"),
        ("repeat(" + "9" * 5000 + ",ff)", "encoder", "characters long; at most 2,000"),
        ("repeat(10**9,ff)", "encoder", "unexpected character '*' (U+002A) at column 10"),
        ("repeat(ff)", "encoder", "expected the repeat count (a whole number), found 'ff' at column 8"),
        ("repeat(2 ff)", "encoder", "expected ',', found 'ff' at column 10"),
        ("", "encoder", "the chain is empty"),
        ("   \n ", "decoder", "the chain is empty"),
        ("ff->", "encoder", "expected a layer name after '->', found the end of the text at column 5"),
        ("->ff", "encoder", "expected a layer name, found '->' at column 1"),
        ("ff norm", "encoder", "expected '->' or the end of the chain, found 'norm' at column 4"),
        ("((((ff))))", "encoder", "expected a layer name, found '(' at column 1"),
        ("ff(2)", "encoder", "ff takes no options at column 3; write just ff"),
        ("cnn(0)", "encoder", "kernel width must be 1–9, not 0 at column 5"),
        ("mh_dot_self_att(99)", "encoder", "heads must be 1–16, not 99"),
        ("ff->😀", "encoder", "unexpected character U+1F600 at column 5"),
        ("ff->עברית", "encoder", "unexpected character U+05E2 at column 5"),
        ("<script>alert(1)</script>", "encoder", "unexpected character '<' (U+003C) at column 1"),
        ("ff;import os", "encoder", "unexpected character ';' (U+003B) at column 3"),
        ("__import__('os')", "encoder", "unknown layer '__import__' at column 1"),
        ("ff\n->nrom", "encoder", "unknown layer 'nrom' at line 2, column 3"),
        ("repeat(12,repeat(12,ff))", "encoder", "144 layers once its repeats are unrolled; at most 64"),
        ("x" * 500, "encoder", "unknown layer 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' at column 1"),
    ],
)
def test_malformed_chains_get_a_clear_message_with_the_place(text, side, message):
    assert message in str(error_of(text, side))


def test_the_error_knows_its_line_and_column():
    error = error_of("ff->\n  nrom")
    assert (error.line, error.column, error.position) == (2, 3, 7)


def test_nesting_a_thousand_deep_is_refused_cleanly_not_by_recursion_error():
    deep = "res(" * 1000 + "ff" + ")" * 1000
    assert "characters long" in str(error_of(deep))  # over the size cap: refused before it is read
    roomy = Limits(max_chars=10**6)
    error = error_of(deep, limits=roomy)  # with the size cap lifted, the depth cap refuses it
    assert "nest at most 8 brackets deep at column 36" in str(error)
    repeats = "repeat(2," * 1000 + "ff" + ")" * 1000
    assert "nest at most 8" in str(error_of(repeats, limits=roomy))
    assert parse_chain("res(" * 8 + "ff" + ")" * 8, "encoder")  # 8 deep is allowed


def test_100_kb_of_text_is_refused_before_it_is_read():
    assert str(error_of("ff->" * 25_600)).startswith("the chain is 102,400 characters long")


def test_text_that_is_not_a_string_is_refused():
    assert "must be text" in str(error_of(None))


# ------------------------------------------------------------------------------------------ model checks
def test_build_time_checks_say_what_is_wrong_before_building():
    def message(**fields) -> str:
        with pytest.raises(ChainError) as info:
            ChainModel(ChainConfig(**fields))
        return str(info.value)

    assert "decoder: it never reads the source" in message(decoder="pos->rnn->ff")
    assert message(decoder="nrom").startswith("decoder: unknown layer 'nrom' at column 1")
    assert "mh_dot_self_att has 3 heads, which do not divide d_model 64 at column 1" in message(
        encoder="mh_dot_self_att(3)"
    )
    assert "parameters; at most 2,000,000 are built" in message(d_model=512)
    assert "parameters" in message(encoder="repeat(12,ff->ff->ff->ff->ff)", d_model=256, d_ff=1024)
    assert "cell must be one of gru, lstm" in message(cell="transformer")


@pytest.mark.parametrize(
    "encoder, decoder, cell",
    [
        (TRANSFORMER_ENCODER, TRANSFORMER_DECODER, "gru"),
        ("res(birnn)->repeat(2,res(rnn))", "repeat(2,res(rnn))->res(dot_src_att)->res(ff)", "lstm"),
        ("pos->repeat(2,res(cnn(3)))->linear->dropout", "pos->repeat(2,res(cnn(2))->res(dot_src_att))", "gru"),
    ],
)
def test_the_counted_parameters_are_the_built_ones(encoder, decoder, cell):
    config = ChainConfig(encoder=encoder, decoder=decoder, cell=cell, source_vocab_size=30, target_vocab_size=20)
    assert parameters(ChainModel(config)) == check_config(config)[2]


@pytest.mark.parametrize("sizes", [{}, {"d_model": 32, "n_heads": 2, "d_ff": 64}, {"d_model": 128, "d_ff": 512}])
def test_the_transformer_chains_have_exactly_tiny_transformers_parameters(sizes):
    vocab = {"source_vocab_size": 71, "target_vocab_size": 17}
    chains = ChainModel(ChainConfig(**vocab, **sizes))
    reference = TinyTransformer(TransformerConfig(**vocab, **sizes))
    assert parameters(chains) == parameters(reference)
    shapes = sorted(tuple(p.shape) for p in chains.parameters())
    assert shapes == sorted(tuple(p.shape) for p in reference.parameters())


def test_the_transformer_chains_compute_what_tiny_transformer_computes_with_its_weights():
    vocab = {"source_vocab_size": 30, "target_vocab_size": 20}
    torch.manual_seed(0)
    reference = TinyTransformer(TransformerConfig(**vocab)).eval()
    chains = ChainModel(ChainConfig(**vocab)).eval()
    ref, ours = dict(reference.named_parameters()), dict(chains.named_parameters())
    shared = ("source_embedding.weight", "target_embedding.weight", "out.weight", "out.bias")
    mapping = {name: name for name in shared}
    for side, sublayers in (("encoder", ("self_attention", "feed_forward")),
                            ("decoder", ("self_attention", "cross_attention", "feed_forward"))):  # fmt: skip
        for i in range(2):
            block = 1 + i  # layers[0] is pos
            for j, sub in enumerate(sublayers):
                inner = "attention" if "attention" in sub else "module"
                for name in [n for n in ref if n.startswith(f"{side}_layers.{i}.{sub}.")]:
                    tail = name.split(f"{sub}.", 1)[1]
                    mapping[f"{side}.layers.{block}.layers.{j}.body.layers.1.{inner}.{tail}"] = name
                for p in ("weight", "bias"):
                    mapping[f"{side}.layers.{block}.layers.{j}.body.layers.0.module.{p}"] = (
                        f"{side}_layers.{i}.residual{j + 1}.norm.{p}"
                    )
        for p in ("weight", "bias"):
            mapping[f"{side}.layers.3.module.{p}"] = f"{side}_norm.{p}"
    assert set(mapping) == set(ours)
    with torch.no_grad():
        for mine, theirs in mapping.items():
            ours[mine].copy_(ref[theirs])
    source = torch.randint(4, 30, (3, 7))
    lengths = torch.tensor([7, 5, 2])
    target_in = torch.randint(4, 20, (3, 6))
    expected, got = reference(source, lengths, target_in), chains(source, lengths, target_in)
    assert torch.allclose(got.logits, expected.logits, atol=1e-5)
    assert set(got.attention) == set(expected.attention)
    for name, weights in expected.attention.items():
        assert torch.allclose(got.attention[name], weights, atol=1e-5), name


MIXED = ChainConfig(
    encoder="pos->res(birnn)->res(cnn(4))->res(dot_self_att)->norm",
    decoder="pos->res(rnn)->res(cnn(3))->res(mh_dot_self_att)->res(dot_src_att)->res(mh_dot_src_att(2))->norm",
    source_vocab_size=30,
    target_vocab_size=20,
    cell="lstm",
)


def test_every_attention_layer_returns_its_named_map_with_padding_and_the_future_masked():
    torch.manual_seed(0)
    model = ChainModel(MIXED).eval()
    source = torch.randint(4, 30, (2, 6))
    lengths = torch.tensor([6, 3])
    with torch.no_grad():
        out = model(source, lengths, torch.randint(4, 20, (2, 5)))
    shapes = {name: tuple(w.shape) for name, w in out.attention.items()}
    assert shapes == {"encoder.0.self": (2, 1, 6, 6), "decoder.0.self": (2, 4, 5, 5),
                      "decoder.0.cross": (2, 1, 5, 6), "decoder.1.cross": (2, 2, 5, 6)}  # fmt: skip
    assert model.main_map == "decoder.1.cross"
    for weights in out.attention.values():
        assert torch.allclose(weights.sum(-1), torch.ones(weights.shape[:-1]), atol=1e-5)
    assert float(out.attention["decoder.1.cross"][1, :, :, 3:].abs().sum()) == 0.0  # padding never read
    assert float(out.attention["encoder.0.self"][1, :, :, 3:].abs().sum()) == 0.0
    assert float(out.attention["decoder.0.self"].triu(1).abs().sum()) == 0.0  # causal


def test_the_decoder_never_reads_a_later_token_and_the_encoder_never_reads_padding():
    torch.manual_seed(0)
    model = ChainModel(MIXED).eval()
    source = torch.randint(4, 30, (1, 6))
    target = torch.randint(4, 20, (1, 5))
    changed = target.clone()
    changed[0, 3:] = (changed[0, 3:] + 1 - 4) % 16 + 4
    lengths = torch.tensor([4])
    a = model(source, lengths, target).logits
    b = model(source, lengths, changed).logits
    assert torch.allclose(a[0, :3], b[0, :3], atol=1e-5)  # positions 0..2 do not see tokens 3, 4
    assert not torch.allclose(a[0, 3:], b[0, 3:])
    padded = source.clone()
    padded[0, 4:] = 7  # whatever sits after the source's length
    assert torch.allclose(model(padded, lengths, target).logits, a, atol=1e-5)


def test_greedy_steps_agree_with_the_teacher_forced_pass():
    torch.manual_seed(1)
    model = ChainModel(MIXED).eval()
    source = torch.randint(4, 30, (3, 6))
    lengths = torch.tensor([6, 4, 2])
    decoded = greedy(model, source, lengths, max_len=5)
    bos = torch.full((3, 1), 1)
    forced = model(source, lengths, torch.cat([bos, decoded.tokens[:, :-1]], dim=1))
    first_row = decoded.lengths.argmax()  # a row that ran the longest
    n = int(decoded.lengths[first_row])
    expected = forced.logits[first_row, :n].argmax(-1)
    assert decoded.tokens[first_row, :n].tolist() == expected.tolist()
    step_map = decoded.attention["decoder.1.cross"][first_row, :, :n]
    assert torch.allclose(step_map, forced.attention["decoder.1.cross"][first_row, :, :n], atol=1e-5)
