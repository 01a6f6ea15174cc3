"""Greedy, beam search and teacher forcing: consistent with each other and with the model's probabilities."""

import pytest
import torch

from minimodels.decode import beam_search, greedy, one_hot_override, teacher_forced, translate
from minimodels.seq2seq import Seq2Seq, Seq2SeqConfig
from minimodels.tasks import get_task
from minimodels.tokenizers import BOS_ID, EOS_ID, PAD_ID
from minimodels.transformer import TinyTransformer, TransformerConfig

V_SRC, V_TGT = 23, 9  # a small target vocabulary so that untrained models emit EOS now and then


def _models():
    torch.manual_seed(0)
    yield "gru-additive", Seq2Seq(Seq2SeqConfig(V_SRC, V_TGT, embedding_size=8, hidden_size=12))
    torch.manual_seed(1)
    yield "lstm-dot-bi", Seq2Seq(Seq2SeqConfig(V_SRC, V_TGT, cell="lstm", attention="dot", bidirectional=True))
    torch.manual_seed(2)
    yield "rnn-none", Seq2Seq(Seq2SeqConfig(V_SRC, V_TGT, cell="rnn", attention="none", hidden_size=12))
    torch.manual_seed(3)
    yield "transformer", TinyTransformer(TransformerConfig(V_SRC, V_TGT, d_model=16, n_heads=2, d_ff=24))


MODELS = dict(_models())


def _source(seed=0, lengths=(6, 4, 2, 6, 5)):
    g = torch.Generator().manual_seed(seed)
    S = max(lengths)
    lengths = torch.tensor(lengths)
    source = torch.randint(4, V_SRC, (len(lengths), S), generator=g)
    source = source.masked_fill(torch.arange(S) >= lengths[:, None], PAD_ID)
    source[torch.arange(len(lengths)), lengths - 1] = EOS_ID
    return source, lengths


def _gold_log_prob(model, source, lengths, tokens, ended):
    """log p(tokens [+ EOS]) by teacher forcing: the reference every decoder must agree with."""
    out_tokens = [*tokens, EOS_ID] if ended else list(tokens)
    target_in = torch.tensor([[BOS_ID, *out_tokens[:-1]]])
    target_out = torch.tensor([out_tokens])
    return float(teacher_forced(model, source, lengths, target_in, target_out).log_prob[0])


@pytest.mark.parametrize("name", MODELS)
def test_beam_width_one_is_greedy(name):
    model = MODELS[name]
    source, lengths = _source()
    g = greedy(model, source, lengths, max_len=12)
    beams = beam_search(model, source, lengths, width=1, max_len=12)
    assert len(beams) == len(lengths)
    for b, (seq, beam) in enumerate(zip(g.sequences(), beams, strict=True)):
        best = beam.best
        assert best.tokens == seq
        assert best.finished == (int(g.lengths[b]) > len(seq))
        assert best.log_prob == pytest.approx(float(g.log_prob[b]), abs=1e-4)
        for key, m in best.attention.items():  # the same attention, step by step
            torch.testing.assert_close(m, g.attention[key][b, ..., : m.size(-2), : m.size(-1)])


@pytest.mark.parametrize("name", MODELS)
def test_greedy_batch_equals_one_sentence_at_a_time_and_matches_teacher_forcing(name):
    model = MODELS[name]
    source, lengths = _source(seed=1)
    batch = greedy(model, source, lengths, max_len=10)
    assert batch.tokens.shape[0] == len(lengths) and batch.tokens.shape[1] <= 10
    for b in range(len(lengths)):
        n = int(lengths[b])
        alone = greedy(model, source[b : b + 1, :n], lengths[b : b + 1], max_len=10)
        assert alone.sequences()[0] == batch.sequences()[b]
        ended = int(alone.lengths[0]) > len(alone.sequences()[0])
        expected = _gold_log_prob(model, source[b : b + 1, :n], lengths[b : b + 1], alone.sequences()[0], ended)
        assert float(batch.log_prob[b]) == pytest.approx(expected, abs=1e-4)


def test_greedy_attention_rows_sum_to_one_then_zero_after_eos():
    model = MODELS["gru-additive"]
    source, lengths = _source(seed=2)
    out = greedy(model, source, lengths, max_len=12)
    cross = out.attention["cross"]  # (B, T, S)
    assert cross.shape == (len(lengths), out.tokens.size(1), source.size(1))
    for b in range(len(lengths)):
        n = int(out.lengths[b])
        torch.testing.assert_close(cross[b, :n].sum(-1), torch.ones(n))
        assert torch.all(cross[b, n:] == 0)
        assert torch.all(cross[b, :, int(lengths[b]) :] == 0)
        assert torch.all(out.tokens[b, n:] == PAD_ID)


def test_transformer_greedy_returns_full_maps():
    model = MODELS["transformer"]
    source, lengths = _source()
    out = greedy(model, source, lengths, max_len=6)
    B, S, T = len(lengths), source.size(1), out.tokens.size(1)
    assert out.attention["encoder.0.self"].shape == (B, 2, S, S)
    assert out.attention["decoder.1.cross"].shape == (B, 2, T, S)
    assert out.attention["decoder.0.self"].shape == (B, 2, T, T)
    assert torch.all(out.attention["decoder.0.self"].triu(1) == 0)


def test_forced_attention_at_one_step():
    model = MODELS["gru-additive"]
    source, lengths = _source(lengths=(6,))
    plain = greedy(model, source, lengths, max_len=6)
    forced = greedy(model, source, lengths, max_len=6, attention_override={1: 3})
    assert torch.equal(forced.attention["cross"][0, 1], one_hot_override(3, 6))
    torch.testing.assert_close(forced.attention["cross"][0, 0], plain.attention["cross"][0, 0])  # before: same
    assert not torch.equal(forced.attention["cross"][0, 1], plain.attention["cross"][0, 1])
    with pytest.raises(ValueError, match="outside"):
        greedy(model, source, lengths, max_len=6, attention_override={0: 6})


@pytest.mark.parametrize("name", ["gru-additive", "transformer"])
@pytest.mark.parametrize("length_penalty", [0.0, 1.0])
def test_beam_tree_is_consistent(name, length_penalty):
    model = MODELS[name]
    source, lengths = _source(seed=3, lengths=(6,))
    result = beam_search(model, source, lengths, width=3, max_len=8, length_penalty=length_penalty)[0]
    nodes = result.nodes
    assert nodes[0].parent is None and nodes[0].token == BOS_ID
    for node in nodes[1:]:
        parent = nodes[node.parent]
        assert node.step == parent.step + 1 and not parent.finished
        assert node.tokens == (*parent.tokens, node.token)
        assert node.log_prob == pytest.approx(parent.log_prob + node.token_log_prob, abs=1e-5)
        assert node.finished == (node.token == EOS_ID)
    steps = [n.step for n in nodes[1:]]
    assert all(steps.count(s) <= 2 * 3 for s in set(steps))  # at most k live + k finished per step
    hyps = result.hypotheses
    assert 1 <= len(hyps) <= 3
    assert [h.score for h in hyps] == sorted((h.score for h in hyps), reverse=True)
    for h in hyps:  # each hypothesis's log-prob is the model's, recomputed by teacher forcing
        assert h.log_prob == pytest.approx(_gold_log_prob(model, source, lengths, h.tokens, h.finished), abs=1e-4)
        path = result.path(h.node)
        assert [n.token for n in path] == h.tokens + ([EOS_ID] if h.finished else [])
        assert all(m.size(-2) == len(path) for m in h.attention.values())


def test_beam_finds_at_least_greedys_probability_here():
    """Not a theorem of beam search, but true for these seeds: a wider beam does no worse than greedy."""
    model = MODELS["gru-additive"]
    source, lengths = _source(seed=4)
    g = greedy(model, source, lengths, max_len=8)
    for b, beam in enumerate(beam_search(model, source, lengths, width=4, max_len=8)):
        if beam.best.finished and int(g.lengths[b]) > len(g.sequences()[b]):
            assert beam.best.log_prob >= float(g.log_prob[b]) - 1e-5


def test_translate_one_user_sentence():
    task = get_task("copy")
    torch.manual_seed(0)
    model = Seq2Seq(Seq2SeqConfig(task.source_tokenizer.vocab_size, task.target_tokenizer.vocab_size))
    for method in ("greedy", "beam"):
        out = translate(model, task, "ab?c", method=method, width=2)
        assert out.source_pieces == ["a", "b", "<unk>", "c", "</s>"]
        assert "unknown" in out.message
        cross = out.attention["cross"]
        assert cross.shape == (len(out.target_pieces), len(out.source_pieces))
        assert (out.beam is not None) == (method == "beam")
    empty = translate(model, task, "   ")
    assert empty.text == "" and empty.message
    long = translate(model, task, "a" * 50)
    assert long.message and "too long" in long.message
    assert len(long.source_pieces) == task.max_source_len + 1
