"""Seq2Seq and TinyTransformer: shapes and names of every attention map, masking, step/forward parity."""

import ast
import dataclasses
import inspect
import itertools

import pytest
import torch

import minimodels.seq2seq as seq2seq_module
import minimodels.transformer as transformer_module
from minimodels.attention import AdditiveAttention, BilinearAttention
from minimodels.models import ModelOutput
from minimodels.seq2seq import ATTENTIONS, CELLS, Seq2Seq, Seq2SeqConfig
from minimodels.transformer import POSITIONALS, TinyTransformer, TransformerConfig

V_SRC, V_TGT = 23, 19
LENGTHS = [7, 5, 3, 7]


def _batch(seed=0, lengths=LENGTHS, T=5):
    g = torch.Generator().manual_seed(seed)
    S = max(lengths)
    lengths = torch.tensor(lengths)
    source = torch.randint(4, V_SRC, (len(lengths), S), generator=g)
    source = source.masked_fill(torch.arange(S) >= lengths[:, None], 0)  # PAD after each length
    source[torch.arange(len(lengths)), lengths - 1] = 2  # EOS last
    target_in = torch.randint(4, V_TGT, (len(lengths), T), generator=g)
    target_in[:, 0] = 1  # BOS
    return source, lengths, target_in


def _seq2seq(seed=0, **kw):
    torch.manual_seed(seed)
    return Seq2Seq(Seq2SeqConfig(V_SRC, V_TGT, embedding_size=8, hidden_size=12, attention_size=10, **kw))


def _transformer(seed=0, **kw):
    torch.manual_seed(seed)
    kw = {"d_model": 16, "n_heads": 2, "d_ff": 24, "encoder_layers": 2, "decoder_layers": 2, **kw}
    return TinyTransformer(TransformerConfig(V_SRC, V_TGT, **kw))


SEQ2SEQ_VARIANTS = [
    {"cell": c, "attention": a, "attention_query": q, "bidirectional": bi}
    for c, a, q, bi in itertools.product(CELLS, ATTENTIONS, ("previous", "current"), (False, True))
    if not (a == "none" and q == "current")  # query place is irrelevant without attention
]


def _check_rows(weights, lengths):
    """Each row sums to 1 over real source positions and is exactly 0 on padding."""
    S = weights.size(-1)
    pad = torch.arange(S) >= lengths[:, None]  # (B, S)
    pad = pad.view(pad.size(0), *[1] * (weights.dim() - 2), S).expand_as(weights)
    assert torch.all(weights[pad] == 0)
    torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1]))


@pytest.mark.parametrize("kw", SEQ2SEQ_VARIANTS, ids=lambda kw: "-".join(map(str, kw.values())))
def test_seq2seq_shapes_masking_and_step_parity(kw):
    model = _seq2seq(**kw)
    source, lengths, target_in = _batch()
    out = model(source, lengths, target_in)
    B, T = target_in.shape
    assert isinstance(out, ModelOutput)
    assert out.logits.shape == (B, T, V_TGT)
    if kw["attention"] == "none":
        assert out.attention == {}
    else:
        assert set(out.attention) == {"cross"}
        assert out.attention["cross"].shape == (B, T, source.size(1))
        _check_rows(out.attention["cross"], lengths)
    # the decoder driven step by step (as greedy/beam do) computes the teacher-forced pass
    memory = model.encode(source, lengths)
    state = model.initial_state(memory)
    logits, rows = [], []
    for t in range(T):
        step = model.step(target_in[:, t], state, memory)
        state = step.state
        logits.append(step.logits)
        rows.append(step.attention.get("cross"))
    torch.testing.assert_close(torch.stack(logits, 1), out.logits, atol=1e-5, rtol=1e-5)
    if kw["attention"] != "none":
        torch.testing.assert_close(torch.stack(rows, 1), out.attention["cross"], atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize(
    "kw",
    [kw for kw in SEQ2SEQ_VARIANTS if kw["attention"] in ("none", "additive", "dot")],
    ids=lambda kw: "-".join(map(str, kw.values())),
)
def test_seq2seq_padding_does_not_change_a_sentence(kw):
    """A sentence decoded alone (no padding) equals the same sentence inside a padded batch."""
    model = _seq2seq(seed=1, **kw)
    source, lengths, target_in = _batch(seed=1)
    batched = model(source, lengths, target_in)
    for b in range(len(lengths)):
        n = int(lengths[b])
        alone = model(source[b : b + 1, :n], lengths[b : b + 1], target_in[b : b + 1])
        torch.testing.assert_close(alone.logits[0], batched.logits[b], atol=1e-5, rtol=1e-5)
        if "cross" in alone.attention:
            torch.testing.assert_close(alone.attention["cross"][0], batched.attention["cross"][b, :, :n])


@pytest.mark.parametrize("attention", ["additive", "bilinear", "dot", "scaled_dot"])
def test_seq2seq_scores_match_the_score_module(attention):
    """The memory's precomputed key projection gives the score module's own scores."""
    model = _seq2seq(attention=attention, bidirectional=True)
    source, lengths, _ = _batch()
    memory = model.encode(source, lengths)
    query = torch.randn(len(lengths), 3, model.config.decoder_size)
    expected = model.attention.score(query, memory.states)
    torch.testing.assert_close(model.scores(query, memory), expected)
    if attention == "additive":
        assert isinstance(model.attention, AdditiveAttention)
    if attention == "bilinear":
        assert isinstance(model.attention, BilinearAttention)


@pytest.mark.parametrize("query", ["previous", "current"])
def test_seq2seq_attention_override_replaces_the_row(query):
    model = _seq2seq(attention="additive", attention_query=query)
    source, lengths, target_in = _batch()
    memory = model.encode(source, lengths)
    state = model.initial_state(memory)
    forced = torch.zeros(source.size(1))
    forced[1] = 1.0
    plain = model.step(target_in[:, 0], state, memory)
    step = model.step(target_in[:, 0], state, memory, attention_override=forced)
    assert torch.equal(step.attention["cross"], forced.expand(len(lengths), -1))
    assert not torch.allclose(step.logits, plain.logits)
    # the context really is the forced source state: it equals h_1
    context, _ = model.attend(torch.zeros(len(lengths), 1, model.config.decoder_size), memory, forced[None, None])
    torch.testing.assert_close(context[:, 0], memory.states[:, 1])


def test_seq2seq_without_attention_rejects_an_override():
    model = _seq2seq(attention="none")
    source, lengths, target_in = _batch()
    memory = model.encode(source, lengths)
    with pytest.raises(ValueError, match="no attention"):
        model.step(target_in[:, 0], model.initial_state(memory), memory, attention_override=torch.ones(7) / 7)


def test_seq2seq_query_place_follows_the_papers():
    assert Seq2SeqConfig(attention="additive").query == "previous"  # Bahdanau
    for a in ("dot", "scaled_dot", "bilinear"):
        assert Seq2SeqConfig(attention=a).query == "current"  # Luong
    assert Seq2SeqConfig(attention="none").query == "none"
    assert Seq2SeqConfig(bidirectional=True, hidden_size=10).decoder_size == 20


@pytest.mark.parametrize("bad", [{"cell": "transformer"}, {"attention": "cosine"}, {"attention_query": "next"}])
def test_seq2seq_config_rejects_unknown_choices(bad):
    with pytest.raises(ValueError, match="must be one of"):
        Seq2SeqConfig(**bad)


# ------------------------------------------------------------------------------------------ transformer
@pytest.mark.parametrize("positional", POSITIONALS)
@pytest.mark.parametrize("norm_first", [True, False])
def test_transformer_maps_named_shaped_and_masked(positional, norm_first):
    model = _transformer(positional=positional, norm_first=norm_first)
    source, lengths, target_in = _batch()
    out = model(source, lengths, target_in)
    B, S = source.shape
    T, h = target_in.size(1), model.config.n_heads
    assert out.logits.shape == (B, T, V_TGT)
    expected = {f"encoder.{i}.self": (B, h, S, S) for i in range(2)}
    expected |= {f"decoder.{i}.self": (B, h, T, T) for i in range(2)}
    expected |= {f"decoder.{i}.cross": (B, h, T, S) for i in range(2)}
    assert {k: tuple(v.shape) for k, v in out.attention.items()} == expected
    for name, w in out.attention.items():
        if name.endswith("self") and name.startswith("decoder"):
            assert torch.all(w.triu(diagonal=1) == 0)  # no peeking at later target tokens
            torch.testing.assert_close(w.sum(-1), torch.ones(w.shape[:-1]))
        else:
            _check_rows(w, lengths)


def test_transformer_step_parity_and_padding_invariance():
    model = _transformer()
    source, lengths, target_in = _batch()
    out = model(source, lengths, target_in)
    memory = model.encode(source, lengths)
    state = model.initial_state(memory)
    for t in range(target_in.size(1)):
        step = model.step(target_in[:, t], state, memory)
        state = step.state
        torch.testing.assert_close(step.logits, out.logits[:, t], atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(step.attention["decoder.1.cross"], out.attention["decoder.1.cross"][:, :, t])
        torch.testing.assert_close(step.attention["decoder.0.self"], out.attention["decoder.0.self"][:, :, t, : t + 1])
    for b in range(len(lengths)):
        n = int(lengths[b])
        alone = model(source[b : b + 1, :n], lengths[b : b + 1], target_in[b : b + 1])
        torch.testing.assert_close(alone.logits[0], out.logits[b], atol=1e-5, rtol=1e-5)


def test_transformer_embedding_scale_is_an_option():
    source, lengths, target_in = _batch()
    plain = _transformer(seed=3)
    scaled = _transformer(seed=3, scale_embeddings=True)
    scaled.load_state_dict(plain.state_dict())
    assert not torch.allclose(plain(source, lengths, target_in).logits, scaled(source, lengths, target_in).logits)
    assert TransformerConfig().scale_embeddings is False


def test_a_decoder_without_the_causal_mask_reads_the_future_and_steps_without_a_cache():
    model = _transformer(causal=False)
    source, lengths, target_in = _batch()
    out = model(source, lengths, target_in)
    assert any(torch.any(out.attention[f"decoder.{i}.self"].triu(diagonal=1) > 0) for i in range(2))
    # changing a later target token changes an earlier position's prediction: the "cheating decoder"
    changed = target_in.clone()
    changed[:, -1] = (changed[:, -1] + 1) % V_TGT
    assert not torch.allclose(model(source, lengths, changed).logits[:, 0], out.logits[:, 0])
    # step by step, position t sees exactly the prefix 0..t: the same as a full pass over that prefix
    memory = model.encode(source, lengths)
    state = model.initial_state(memory)
    for t in range(target_in.size(1)):
        step = model.step(target_in[:, t], state, memory)
        state = step.state
        prefix, _ = model.decode(target_in[:, : t + 1], memory)
        torch.testing.assert_close(step.logits, prefix[:, -1], atol=1e-5, rtol=1e-5)
        assert step.attention["decoder.0.self"].shape[-1] == t + 1
    picked = state.select(torch.tensor([1, 0]))
    assert torch.equal(picked.prefix, state.prefix[[1, 0]])


@pytest.mark.parametrize("flag", ["residual", "layer_norm"])
def test_residuals_and_layer_norm_can_be_ablated(flag):
    full = _transformer(seed=5)
    ablated = _transformer(seed=5, **{flag: False})
    names = {n for n, _ in ablated.named_parameters()}
    if flag == "layer_norm":
        assert not any("norm" in n for n in names)
    else:
        assert names == {n for n, _ in full.named_parameters()}
        ablated.load_state_dict(full.state_dict())
    source, lengths, target_in = _batch()
    out = ablated(source, lengths, target_in)
    assert torch.isfinite(out.logits).all()
    assert not torch.allclose(out.logits, full(source, lengths, target_in).logits)


def test_transformer_rejects_an_override_and_bad_configs():
    model = _transformer()
    source, lengths, target_in = _batch()
    memory = model.encode(source, lengths)
    with pytest.raises(ValueError, match="Seq2Seq only"):
        model.step(target_in[:, 0], model.initial_state(memory), memory, attention_override=torch.ones(7) / 7)
    with pytest.raises(ValueError, match="divisible"):
        TransformerConfig(d_model=10, n_heads=3)
    with pytest.raises(ValueError, match="positional"):
        TransformerConfig(positional="rotary")


# ------------------------------------------------------------------------------------ style contracts
@pytest.mark.parametrize("model", [_seq2seq(), _seq2seq(cell="lstm", attention="dot"), _transformer()])
def test_models_keep_no_attention_on_self(model):
    """Weights are returned, never stored: after a forward pass no module holds a tensor it did not own."""
    before = {id(m): set(vars(m)) for m in model.modules()}
    source, lengths, target_in = _batch()
    model(source, lengths, target_in)
    for m in model.modules():
        assert set(vars(m)) == before[id(m)]
        for k, v in vars(m).items():
            if isinstance(v, torch.Tensor):
                assert k in m._parameters or k in m._buffers


@pytest.mark.parametrize("module,cls", [(seq2seq_module, Seq2SeqConfig), (transformer_module, TransformerConfig)])
def test_configs_are_frozen_and_every_field_has_a_comment(module, cls):
    with pytest.raises(dataclasses.FrozenInstanceError):
        cls().d_model = 1  # type: ignore[misc]
    lines = inspect.getsource(module).splitlines()
    tree = ast.parse(inspect.getsource(module))
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
    fields = [n for n in node.body if isinstance(n, ast.AnnAssign)]
    assert {f.target.id for f in fields} == {f.name for f in dataclasses.fields(cls)}
    for f in fields:
        assert "#" in lines[f.lineno - 1], f"{cls.__name__}.{f.target.id} has no comment"


def test_seq2seq_config_describes_its_encoder_direction_cell_and_attention():
    from minimodels.seq2seq import Seq2SeqConfig

    uni = Seq2SeqConfig(hidden_size=32).describe()
    bi = Seq2SeqConfig(hidden_size=32, bidirectional=True).describe()
    assert uni.startswith("unidirectional GRU encoder (D = 32)") and "additive attention" in uni
    assert bi.startswith("bidirectional GRU encoder (H = 32 per direction, D = 64)")
    assert "no attention" in Seq2SeqConfig(attention="none", cell="lstm").describe()


def test_positional_layer_is_the_one_every_model_builds_from_its_setting():
    from minimodels.positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding, positional_layer
    from minimodels.small import SmallConfig, TinyEncoder

    assert isinstance(positional_layer("sinusoidal", 8, 10), SinusoidalPositionalEncoding)
    learned = positional_layer("learned", 8, 10)
    assert isinstance(learned, LearnedPositionalEmbedding) and sum(p.numel() for p in learned.parameters()) == 80
    assert positional_layer("none", 8, 10) is None
    assert TinyEncoder(SmallConfig(positional="none")).position is None
