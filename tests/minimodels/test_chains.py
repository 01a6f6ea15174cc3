"""The layer-chain language (parser, errors, limits) and the ChainModel it builds (sizes, masks, decoding)."""

import math

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
from minimodels.chains.language import ALIASES, LAYERS, STRUCTURES, Layer, Repeat, Residual, canonical
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
# A corpus of bad input: (text, side, what the message must say). Every message names the place (a column) and
# what was expected there; nothing is built.
BAD_CHAINS = [
    ("pos->repeat(2,ff->norm", "encoder", "expected ')' to close the repeat, found the end of the text at column 23"),
    ("repeat(3,ff", "encoder", "expected ')' to close the repeat, found the end of the text at column 12"),
    ("res(ff))", "encoder", "unmatched ')' at column 8; expected '->' or the end of the chain"),
    ("ff->rnn)->(cnn", "encoder", "unmatched ')' at column 8"),
    ("((((ff))))", "encoder", "expected a layer name, found '(' at column 1"),
    ("mh_dot_att", "encoder", "mh_dot_src_att is only allowed in a decoder at column 1; expected an encoder layer"),
    ("ff->nrom", "encoder", "unknown layer 'nrom' at column 5; expected a layer name; did you mean 'norm'?"),
    ("res nd(mh dot self attention)", "encoder", "unknown layer 'mh dot self attention' at column 8"),
    ("dot_src_att", "encoder", "dot_src_att is only allowed in a decoder at column 1"),
    ("rnn->birnn", "decoder", "birnn is only allowed in an encoder at column 6; expected a decoder layer"),
    ("bnorm->dot_src_att", "decoder", "bnorm is only allowed in an encoder at column 1"),
    ("repeat(ff)", "encoder", "expected the repeat count (a whole number 1–12), found 'ff' at column 8"),
    ("repeat(n, ff)", "encoder", "expected the repeat count (a whole number 1–12), found 'n' at column 8"),
    ("repeat(2 ff)", "encoder", "expected ',' after the repeat count, found 'ff' at column 10"),
    ("repeat(2,)", "encoder", "expected a layer name, found ')' at column 10"),
    ("repeat(0,ff)", "encoder", "repeat count out of range at column 8; expected 1–12, found 0"),
    ("repeat(13,ff)", "encoder", "repeat count out of range at column 8; expected 1–12, found 13"),
    ("repeat(1000000000,ff)", "encoder", "expected 1–12, found 1000000000"),
    ("repeat(" + "9" * 50 + ",ff)", "encoder", "expected 1–12, found a 50-digit number"),
    ("repeat(10**9,ff)", "encoder", "unexpected character '*' (U+002A) at column 10"),
    ("repeat(12,repeat(12,ff))", "encoder", "too many layers at column 1: 144 once its repeats are unrolled; expected"),
    ("res(" * 9 + "ff" + ")" * 9, "encoder", "too deep at column 36; expected at most 8 brackets inside brackets"),
    ("", "encoder", "the chain is empty at column 1; expected a layer name"),
    ("   \n ", "decoder", "the chain is empty at column 1"),
    ("ff->", "encoder", "expected a layer name after '->', found the end of the text at column 5"),
    ("->ff", "encoder", "expected a layer name, found '->' at column 1"),
    ("ff norm", "encoder", "expected '->' or the end of the chain, found 'norm' at column 4"),
    ("res(ff norm)", "encoder", "expected '->' or ')' to close res, found 'norm' at column 8"),
    ("linear(2)", "encoder", "linear takes no options at column 7; expected '->' or the end after linear"),
    ("cnn(0)", "encoder", "kernel width out of range at column 5; expected 1–9, found 0"),
    ("mh_dot_self_att(99)", "encoder", "number of heads out of range at column 17; expected 1–16, found 99"),
    ("mh_dot_self_att(heads=)", "encoder", "expected the number of heads (a whole number 1–16), found ')'"),
    ("mh_dot_self_att(head=2)", "encoder", "has no option 'head' at column 17; expected heads="),
    ("ff(heads=4)", "encoder", "ff has no option 'heads' at column 4; expected num_hidden="),
    ("act(swish)", "encoder", "expected the activation, one of relu, tanh, sigmoid, gelu, found 'swish' at column 5"),
    ("parallel(ff)", "encoder", "expected '|' and a second branch of parallel, found ')' at column 12"),
    ("parallel(ff|)", "encoder", "expected a layer name, found ')' at column 13"),
    ("highway()", "encoder", "expected a layer name, found ')' at column 9"),
    ("ff->😀", "encoder", "unexpected character U+1F600 at column 5; expected a layer name"),
    ("ff->עברית", "encoder", "unexpected character U+05E2 at column 5"),
    ("<script>alert(1)</script>", "encoder", "unexpected character '<' (U+003C) at column 1; expected a layer name"),
    ("<img src=x onerror=alert(1)>", "encoder", "unexpected character '<' (U+003C) at column 1"),
    ("ff;import os", "encoder", "unexpected character ';' (U+003B) at column 3; expected '->', a bracket or the end"),
    ("__import__('os')", "encoder", "unknown layer '__import__' at column 1"),
    ("ff\n->nrom", "encoder", "unknown layer 'nrom' at line 2, column 3"),
    ("x" * 500, "encoder", "unknown layer 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' at column 1"),
    ("ff->" * 2500, "encoder", "10,000 characters long; expected at most 2,000 (it goes past the limit at column 2,"),
]


@pytest.mark.parametrize("text, side, message", BAD_CHAINS, ids=lambda v: repr(v[:24]) if isinstance(v, str) else "")
def test_malformed_chains_get_a_clear_message_with_the_place_and_what_was_expected(text, side, message):
    error = error_of(text, side)
    assert message in str(error)
    assert "expected" in str(error) and "column" in str(error)
    assert error.column is not None or len(text) > LIMITS.max_chars  # the caret's place (a long text: none drawn)
    assert "Traceback" not in str(error) and "<" not in str(error).replace("'<'", "")  # no markup echoed back


def test_the_bad_chain_corpus_is_large_and_varied():
    assert len(BAD_CHAINS) >= 20 and len({text for text, _, _ in BAD_CHAINS}) == len(BAD_CHAINS)


@pytest.mark.parametrize(
    "encoder, message",
    [
        ("mh_dot_self_att(3)", "mh_dot_self_att has 3 heads, which do not divide d_model 64 at column 1; expected"),
        ("repeat(2,mh_dot_self_att(heads=5))", "5 heads, which do not divide d_model 64 at column 10; expected one of"),
    ],
)
def test_heads_that_do_not_divide_d_are_refused_with_the_place(encoder, message):
    with pytest.raises(ChainError) as info:
        check_config(ChainConfig(encoder=encoder))
    assert message in str(info.value) and info.value.side == "encoder"


def test_the_error_knows_its_line_and_column():
    error = error_of("ff->\n  nrom")
    assert (error.line, error.column, error.position) == (2, 3, 7)


def test_nesting_a_thousand_deep_is_refused_cleanly_not_by_recursion_error():
    deep = "res(" * 1000 + "ff" + ")" * 1000
    assert "characters long" in str(error_of(deep))  # over the size cap: refused before it is read
    roomy = Limits(max_chars=10**6)
    error = error_of(deep, limits=roomy)  # with the size cap lifted, the depth cap refuses it
    assert "too deep at column 36; expected at most 8 brackets" in str(error)
    repeats = "repeat(2," * 1000 + "ff" + ")" * 1000
    assert "too deep" in str(error_of(repeats, limits=roomy))
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
    assert "mh_dot_self_att has 3 heads, which do not divide d_model 64 at column 1; expected" in message(
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
    for side, sublayers in (
        ("encoder", ("self_attention", "feed_forward")),
        ("decoder", ("self_attention", "cross_attention", "feed_forward")),
    ):
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
    assert shapes == {
        "encoder.0.self": (2, 1, 6, 6),
        "decoder.0.self": (2, 4, 5, 5),
        "decoder.0.cross": (2, 1, 5, 6),
        "decoder.1.cross": (2, 2, 5, 6),
    }
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


# ------------------------------------------------------------------------------- every layer, one by one
def _example(name: str) -> tuple[str, str]:
    """An (encoder, decoder) pair that uses ``name`` (a layer, a structure or an alias) where it is allowed."""
    canonical_name = canonical(name)
    if canonical_name in STRUCTURES:
        inner = {"repeat": "2,ff", "parallel": "rnn|cnn", "parallel_add": "ff|dot_self_att"}.get(canonical_name, "ff")
        body = f"{name}({inner})"
        return body, f"{body}->dot_src_att"
    if "encoder" in LAYERS[canonical_name].sides:
        return f"{name}->linear", "dot_src_att"
    return "ff", f"{name}->ff"


SPELLINGS = [*LAYERS, *STRUCTURES, *ALIASES, "res nd", "mh dot self att", "mh dot src att"]
OPTIONS_WRITTEN = [
    "ff(32)",
    "ff(num_hidden=24)",
    "cnn(5)",
    "cnn(kernel_width=2)",
    "mh_dot_self_att(heads=2)",
    "mh_dot_self_att(8)",
    "act(tanh)",
    "act(act_type=gelu)",
    "act(sigmoid)",
]


def _one_training_step(config: ChainConfig) -> tuple[float, dict[str, bool]]:
    """One Adam step on a random batch: the loss, and for every weight tensor of the chains whether it moved."""
    torch.manual_seed(0)
    model = ChainModel(config).train()
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    source = torch.randint(4, config.source_vocab_size, (4, 6))
    lengths = torch.tensor([6, 5, 3, 2])
    target_in = torch.randint(4, config.target_vocab_size, (4, 5))
    target_out = torch.randint(4, config.target_vocab_size, (4, 5))
    logits = model(source, lengths, target_in).logits  # (B, T, V)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), target_out.reshape(-1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss.backward()
    optimizer.step()
    moved = {name: not torch.equal(before[name], p) for name, p in model.named_parameters()}
    return loss.item(), moved


@pytest.mark.parametrize("written", SPELLINGS + OPTIONS_WRITTEN)
def test_every_layer_parses_builds_and_trains_one_step(written):
    encoder, decoder = _example(written.split("(")[0]) if "(" not in written else (f"{written}->linear", "dot_src_att")
    config = ChainConfig(
        encoder=encoder,
        decoder=decoder,
        source_vocab_size=12,
        target_vocab_size=10,
        d_model=16,
        n_heads=2,
        d_ff=32,
        max_len=16,
    )
    enc, dec, counted = check_config(config)
    loss, moved = _one_training_step(config)
    assert math.isfinite(loss) and loss > 0
    assert counted == sum(p.numel() for p in ChainModel(config).parameters())
    chain_weights = {name: m for name, m in moved.items() if name.startswith(("encoder.", "decoder."))}
    assert chain_weights and all(chain_weights.values()), [n for n, m in chain_weights.items() if not m]
    assert moved["out.weight"] and moved["source_embedding.weight"]  # the gradient reached the source


def test_the_registry_and_the_parse_agree_on_every_name():
    assert set(SPELLINGS) >= set(LAYERS) | set(STRUCTURES) | set(ALIASES)
    for alias, name in ALIASES.items():
        side = "encoder" if "encoder" in LAYERS[name].sides else "decoder"
        assert parse_chain(alias, side) == (Layer(name, None, 0),)
    assert parse_chain("mh dot self att(heads=2)", "encoder") == (Layer("mh_dot_self_att", 2, 0),)
    assert format_chain(parse_chain("ε → ff(256)!act(tanh)", "encoder")) == "id->ff(256)->act(tanh)"


def test_highway_and_parallel_compute_what_they_say():
    config = ChainConfig(
        encoder="highway(linear)->parallel(linear|id)->parallel_add(linear|id)",
        decoder="dot_src_att",
        d_model=8,
        source_vocab_size=10,
        target_vocab_size=10,
    )
    model = ChainModel(config).eval()
    highway, parallel, parallel_add = model.encoder.layers
    x = torch.randn(2, 3, 8)
    ctx = model_context(x)
    t = torch.sigmoid(highway.gate(x))
    inner = highway.body.layers[0].module(x)
    assert torch.allclose(highway(x, ctx)[0], t * inner + (1 - t) * x)
    linear = parallel.branches[0].layers[0].module
    assert torch.allclose(parallel(x, ctx)[0], parallel.merge(torch.cat([linear(x), x], -1)))
    assert torch.allclose(parallel_add(x, ctx)[0], parallel_add.branches[0].layers[0].module(x) + x)


def test_batch_norm_uses_real_positions_only_and_leaves_padding_zero():
    config = ChainConfig(encoder="bnorm", decoder="dot_src_att", d_model=4, source_vocab_size=10, target_vocab_size=10)
    layer = ChainModel(config).train().encoder.layers[0]
    x = torch.randn(2, 3, 4)
    x[1, 2] = 1000.0  # padding: must not move the statistics
    out, _ = layer(x, model_context(x, lengths=torch.tensor([3, 2])))
    real = torch.cat([x[0], x[1, :2]])  # (5, d)
    expected = (real - real.mean(0)) / torch.sqrt(real.var(0, unbiased=False) + 1e-5)
    assert torch.allclose(torch.cat([out[0], out[1, :2]]), expected, atol=1e-4)
    assert torch.equal(out[1, 2], torch.zeros(4))


def model_context(x: torch.Tensor, lengths: torch.Tensor | None = None):
    from minimodels.attention import padding_mask
    from minimodels.chains.model import _Context

    lengths = torch.full((x.size(0),), x.size(1)) if lengths is None else lengths
    return _Context(padding_mask(lengths, x.size(1)), lengths, causal=False)


# ------------------------------------------------------------------------------------- the poster's chains
# The chains of Domhan's poster ("How much attention do you need?", ACL 2018), as its PDF text prints them
# (../shared/sources/sockeye-architecture-poster.txt): "!" is its arrow, "res nd" its res_nd, "✏" its
# feed-forward layer; U_Ls is an encoder, Z_L a decoder.
POSTER = {
    "Transformer": (
        "pos!repeat(6, res nd(mh dot self att)!res nd(✏))!norm",  # its U_Ls with t_enc, n = 6 put in
        "pos!repeat(6, res nd(mh dot self att)!\nres nd(mh dot src att)!res nd(✏))!norm",
    ),
    "sockeye-train": ("repeat(6,birnn)", "pos->res(norm->mh_dot_self_att)->res(mh_dot_src_att)"),
    "RNMT": ("dropout!res d(birnn)!repeat(5, res d(rnn))", "dropout!repeat(6, res d(rnn))!res d(dot src att)!res d(✏)"),
    "RNN to Transformer": (
        "pos!res nd(birnn)!res nd(✏)\n!repeat(5, res nd(rnn)!res nd(✏))!norm",
        "pos!repeat(6, res nd(rnn)!\nres nd(mh dot src att)!res nd(✏))!norm",
    ),
    "CNN GLU": ("pos!repeat(6, res d(cnn))", "pos!repeat(6, res d(cnn)!res d(dot src att))"),
    "CNN to Transformer": (
        "pos!repeat(6, res nd(cnn)!res nd(✏))!norm",
        "pos!repeat(6, res nd(cnn)!\nres nd(mh dot src att)!res nd(✏))!norm",
    ),
}


@pytest.mark.parametrize("name", POSTER)
def test_every_chain_of_the_poster_parses_as_printed_and_builds(name):
    encoder, decoder = POSTER[name]
    config = ChainConfig(
        encoder=encoder, decoder=decoder, d_model=16, n_heads=2, d_ff=32, source_vocab_size=12, target_vocab_size=10
    )
    enc, dec, counted = check_config(config)
    assert counted == parameters(ChainModel(config))
    if name == "Transformer":  # the poster's Transformer is the course's, 6 layers deep
        six = ChainConfig(
            encoder=TRANSFORMER_ENCODER.replace("repeat(2", "repeat(6"),
            d_model=16,
            n_heads=2,
            d_ff=32,
            decoder=TRANSFORMER_DECODER.replace("repeat(2", "repeat(6"),
            source_vocab_size=12,
            target_vocab_size=10,
        )
        plain = [format_chain(c).replace("->dropout", "") for c in (enc, dec)]
        assert plain == [format_chain(c) for c in check_config(six)[:2]]


def test_the_posters_printed_rnn_encoder_lacks_a_bracket_and_is_told_where():
    printed = "pos!res nd(birnn)!res nd(✏)\n!repeat(5, res nd(rnn)!res nd(✏)!norm"  # as the PDF text has it
    error = error_of(printed)
    assert "expected ')' to close the repeat, found the end of the text at line 2, column 38" in str(error)
