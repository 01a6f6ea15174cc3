"""The attention bridge model and its toy languages: shapes, masking, the penalty, training, saving."""

import pytest
import torch

from minimodels.bridge import (
    AttentionBridge,
    BridgeConfig,
    BridgeModel,
    BridgeTrainConfig,
    all_pairs,
    evaluate_pair,
    head_overlap,
    load_bridge,
    new_bridge,
    redundancy,
    save_bridge,
    score_sentences,
    train_bridge,
)
from minimodels.tasks.multilingual import (
    LANGUAGES,
    MAX_LEN,
    WordTokenizer,
    get_multilingual,
    invented_word,
    render,
    sample_parallel,
)
from minimodels.tokenizers import EOS_ID, PAD_ID, UNK_ID


@pytest.fixture(scope="module")
def corpus():
    return get_multilingual(seed=0, n_train=120, n_valid=20, n_test=30)


def _tiny(corpus, **kw):
    torch.manual_seed(0)
    return new_bridge(corpus, embedding_size=8, encoder_size=6, heads=3, bridge_hidden=10, **kw)


# ------------------------------------------------------------------------------------------- the penalty
def test_penalty_is_zero_for_orthogonal_rows():
    A = torch.zeros(3, 5)
    A[0, 4] = A[1, 0] = A[2, 2] = 1.0  # each head on its own word: A Aᵀ = I
    assert torch.equal(A @ A.T, torch.eye(3))
    assert float(redundancy(A)) == 0.0


def test_penalty_counts_redundant_heads():
    uniform = torch.full((2, 4), 0.25)  # two identical spread-out heads: A Aᵀ = 0.25 everywhere
    assert float(redundancy(uniform)) == pytest.approx(2 * 0.75**2 + 2 * 0.25**2)
    same = torch.zeros(2, 4)
    same[:, 1] = 1.0  # both heads on one word: A Aᵀ = all ones, off-diagonal 1 each
    assert float(redundancy(same)) == pytest.approx(2.0)
    assert redundancy(torch.stack([uniform, same])).shape == (2,)


def test_head_overlap_is_the_mean_cosine_of_two_heads():
    apart = torch.eye(3, 5)  # three heads on three different words
    assert float(head_overlap(apart)) == 0.0
    same = torch.zeros(2, 4)
    same[:, 1] = 1.0
    assert float(head_overlap(same)) == pytest.approx(1.0)
    half = torch.tensor([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
    # pairs: (1, 2) cos = 0.25 / 0.5 = 0.5, (1, 3) cos = 0.5 / 0.707, (2, 3) 0
    assert float(head_overlap(half)) == pytest.approx((0.5 + 0.5 / 0.5**0.5) / 3)
    assert head_overlap(torch.stack([apart, apart])).shape == (2,)
    assert torch.isnan(head_overlap(torch.ones(4, 1, 6) / 6)).all()  # one head: no pair


# ------------------------------------------------------------------------------------------- the bridge
def test_bridge_shapes_rows_sum_to_one_and_padding_gets_nothing():
    torch.manual_seed(0)
    bridge = AttentionBridge(d_h=6, hidden=5, heads=4)
    H = torch.randn(2, 7, 6)
    mask = torch.arange(7) < torch.tensor([[7], [3]])
    M, A = bridge(H, mask)
    assert M.shape == (2, 4, 6) and A.shape == (2, 4, 7)
    assert torch.allclose(A.sum(-1), torch.ones(2, 4))
    assert torch.all(A[1, :, 3:] == 0)
    assert torch.allclose(M, A @ H)
    # eq. 1 written out for one sentence: A = softmax(W2 ReLU(W1 Hᵀ))
    expected = torch.softmax(bridge.W2.weight @ torch.relu(bridge.W1.weight @ H[0].T), dim=-1)
    assert torch.allclose(A[0], expected, atol=1e-6)


def test_model_shapes_for_every_direction(corpus):
    model = _tiny(corpus)
    for src, tgt in (("en", "vf"), ("it", "fr"), ("vf", "vf")):
        batch = corpus.pair_batch("train", src, tgt, torch.arange(5))
        out = model(batch)
        B, S = batch.source.shape
        T = batch.target_in.shape[1]
        assert out.logits.shape == (B, T, corpus.tokenizers[tgt].vocab_size)
        assert out.bridge.shape == (B, 3, S) and out.cross.shape == (B, T, 3) and out.penalty.shape == (B,)
        assert torch.allclose(out.penalty, redundancy(out.bridge))


def test_encoder_ignores_padding(corpus):
    model = _tiny(corpus).eval()
    batch = corpus.pair_batch("train", "fr", "en", torch.arange(4))
    M, A = model.encode("fr", batch.source, batch.source_lengths)
    k = int(batch.source_lengths[0])
    alone_M, alone_A = model.encode("fr", batch.source[:1, :k], batch.source_lengths[:1])
    assert torch.allclose(M[:1], alone_M, atol=1e-5)
    assert torch.allclose(A[:1, :, :k], alone_A, atol=1e-6)


def test_decoder_starts_from_the_mean_of_M():
    M = torch.arange(24.0).reshape(2, 3, 4)
    assert torch.equal(BridgeModel.initial_state(M)[0], M.mean(dim=1))


def test_greedy_translation_stops_at_eos(corpus):
    model = _tiny(corpus)
    batch = corpus.pair_batch("valid", "en", "it", torch.arange(6))
    ids, A = model.translate("en", "it", batch.source, batch.source_lengths, max_len=9)
    assert ids.shape[0] == 6 and ids.shape[1] <= 9 and A.shape[:2] == (6, 3)
    for row in ids.tolist():
        if EOS_ID in row:
            assert all(t == PAD_ID for t in row[row.index(EOS_ID) + 1 :])


def test_scores_by_sentence_add_up_to_the_pair_score(corpus):
    model = _tiny(corpus)
    s = score_sentences(model, corpus, "test", "en", "fr", limit=12)
    score = evaluate_pair(model, corpus, "test", "en", "fr", limit=12)
    assert s.exact.shape == s.matches.shape == s.source_words.shape == (12,)
    assert float(s.exact.float().mean()) == score.exact_match
    assert float(s.matches.sum() / s.lengths.sum()) == pytest.approx(score.token_accuracy)
    assert s.source_words.tolist() == [len(p.words("en")) for p in corpus.test[:12]]
    assert (s.matches <= s.lengths).all() and s.A.shape[:2] == (12, 3)


# ------------------------------------------------------------------------------------------- training
@pytest.mark.slow  # trains a model or starts a Python process
def test_training_lowers_the_loss_and_reports(corpus):
    model = _tiny(corpus)
    held = (("en", "vf"),)
    reports = []
    config = BridgeTrainConfig(
        pairs=(("en", "fr"), ("fr", "vf")),
        held_out=held,
        max_steps=24,
        report_every=12,
        batch_size=16,
        eval_sentences=4,
        learning_rate=1e-2,
    )
    history = train_bridge(model, corpus, config, reports.append)
    assert [r.step for r in history] == [12, 24] and reports == history
    assert history[-1].loss < history[0].loss
    assert set(history[-1].zero_shot) == {"en→vf"}
    assert set(history[-1].probe_maps) == set(LANGUAGES)
    for lang, A in history[-1].probe_maps.items():
        assert A.shape == (3, len(history[-1].probe_tokens[lang]))


def test_training_stops_when_told(corpus):
    model = _tiny(corpus)
    config = BridgeTrainConfig(pairs=(("en", "fr"),), max_steps=100, report_every=5, batch_size=8, eval_sentences=4)
    history = train_bridge(model, corpus, config, lambda report: False)
    assert [r.step for r in history] == [5]


def test_penalty_weight_changes_the_gradient_only_when_on(corpus):
    batch = corpus.pair_batch("train", "en", "fr", torch.arange(8))
    grads = {}
    for weight in (0.0, 1.0):
        model = _tiny(corpus, penalty_weight=weight)
        out = model(batch)
        loss = torch.nn.functional.cross_entropy(out.logits.transpose(1, 2), batch.target_out, ignore_index=PAD_ID)
        (loss + weight * out.penalty.mean()).backward()
        grads[weight] = model.bridge.W2.weight.grad.clone()
    assert not torch.allclose(grads[0.0], grads[1.0])


def test_all_pairs():
    assert len(all_pairs(LANGUAGES)) == 12
    pairs = all_pairs(LANGUAGES, held_out=(("en", "vf"), ("vf", "en")), monolingual=True)
    assert len(pairs) == 14 and ("en", "vf") not in pairs and ("it", "it") in pairs


def test_save_and_load_round_trip(corpus, tmp_path):
    model = _tiny(corpus)
    save_bridge(model, corpus.tokenizers, tmp_path, note="test")
    loaded, tokenizers, info = load_bridge(tmp_path)
    assert info == {"note": "test"} and loaded.config == model.config
    assert tokenizers["vf"].encode(corpus.probe.sentences["vf"]) == corpus.tokenizers["vf"].encode(
        corpus.probe.sentences["vf"]
    )
    batch = corpus.pair_batch("valid", "fr", "en", torch.arange(4))
    with torch.no_grad():
        assert torch.allclose(model.eval()(batch).logits, loaded(batch).logits, atol=5e-2)  # weights saved as fp16
    score = evaluate_pair(loaded, corpus, "valid", "fr", "en", limit=10)
    assert 0.0 <= score.token_accuracy <= 1.0 and score.redundancy >= 0.0


# ------------------------------------------------------------------------------------------- without the bridge
def test_no_bridge_decoder_attends_over_the_source_positions(corpus):
    model = _tiny(corpus, bridge=False).eval()
    assert model.bridge is None and not any(name.startswith("bridge.") for name in model.state_dict())
    batch = corpus.pair_batch("valid", "en", "fr", torch.arange(8))
    assert len(set(batch.source_lengths.tolist())) > 1  # some rows are padded
    with torch.no_grad():
        out = model(batch)
    B, S = batch.source.shape
    T = batch.target_in.shape[1]
    assert out.cross.shape == (B, T, S)  # one weight per source position, not per bridge head
    assert out.bridge.shape == (B, 0, S) and torch.equal(out.penalty, torch.zeros(B))
    assert torch.allclose(out.cross.sum(-1), torch.ones(B, T), atol=1e-6)
    for b, n in enumerate(batch.source_lengths.tolist()):
        assert (out.cross[b, :, :n] > 0).all()  # every real token (EOS included) gets some weight
        assert torch.equal(out.cross[b, :, n:], torch.zeros(T, S - n))  # padding gets exactly none
    # s_0 is the mean of the real positions' states, and padding changes nothing: one sentence alone gives the same
    H, _ = model.encode("en", batch.source, batch.source_lengths)
    short = int(batch.source_lengths.argmin())
    n = int(batch.source_lengths[short])
    mask = model.memory_mask(batch.source, batch.source_lengths)
    assert torch.allclose(model.initial_state(H, mask)[0, short], H[short, :n].mean(0), atol=1e-6)
    alone = corpus.pair_batch("valid", "en", "fr", torch.tensor([short]))
    with torch.no_grad():
        solo = model(alone)
    assert alone.source.shape[1] == n
    assert torch.allclose(solo.logits[0], out.logits[short, : solo.logits.shape[1]], atol=1e-5)
    ids, A = model.translate("en", "fr", batch.source, batch.source_lengths, max_len=6)
    assert ids.shape[0] == B and A.shape == (B, 0, S)


def test_no_bridge_model_trains_a_step_and_round_trips(corpus, tmp_path):
    model = _tiny(corpus, bridge=False, penalty_weight=0.0)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    config = BridgeTrainConfig(
        pairs=(("en", "fr"), ("fr", "en")), max_steps=2, report_every=1, batch_size=8, eval_sentences=4
    )
    history = train_bridge(model, corpus, config)
    assert [r.step for r in history] == [1, 2] and all(r.loss > 0 and r.penalty == 0.0 for r in history)
    changed = {k.split(".")[0] for k, v in model.state_dict().items() if not torch.equal(v, before[k])}
    assert changed == {"encoders", "decoders"}
    assert model.parameter_count() < _tiny(corpus).parameter_count()  # the bridge's W_1, W_2 are gone
    save_bridge(model, corpus.tokenizers, tmp_path)
    loaded, _, _ = load_bridge(tmp_path)
    assert loaded.config.bridge is False and loaded.bridge is None
    batch = corpus.pair_batch("valid", "fr", "en", torch.arange(4))
    with torch.no_grad():
        assert torch.allclose(model.eval()(batch).logits, loaded(batch).logits, atol=5e-2)


# ------------------------------------------------------------------------------------------- the languages
def test_same_meaning_in_every_language_with_alignments():
    import random

    p = sample_parallel(random.Random(3))
    assert set(p.sentences) == set(LANGUAGES)
    n_en = len(p.words("en"))
    for lang in LANGUAGES:
        assert len(p.alignments[lang]) == len(p.words(lang)) <= MAX_LEN
        assert all(0 <= i < n_en for row in p.alignments[lang] for i in row)
    # the verb-final language is the French-like one reordered (words replaced one for one), when no elision
    # differs between the two orders: the same alignments in another order
    if len(p.words("vf")) == len(p.words("fr")):
        assert sorted(p.alignments["vf"]) == sorted(p.alignments["fr"])


def test_invented_words_are_distinct_and_names_stay(corpus):
    french = {w for p in corpus.train + corpus.valid + corpus.test for w in p.words("fr")}
    invented = {invented_word(w) for w in french}
    assert len(invented) == len(french)
    assert invented_word("Jane") == "Jane" and invented_word("chien") != "chien"
    assert not (invented - {"Jane", "Paul", "Marie", "Tom", "Anna", "Leo", "Sara", "Max"}) & french


def test_verb_final_puts_the_verb_last():
    from minimodels.tasks.grammar import JANE

    p = render(JANE)
    assert p.sentences["en"] == "Jane visits Africa in September"
    assert p.sentences["vf"].split()[-1] == invented_word("visite")


def test_splits_share_no_sentence_in_any_language(corpus):
    for lang in LANGUAGES:
        train = {p.sentences[lang] for p in corpus.train}
        assert not train & {p.sentences[lang] for p in corpus.test + corpus.valid}
    assert corpus.probe in corpus.test
    again = get_multilingual.__wrapped__(seed=0, n_train=120, n_valid=20, n_test=30)
    assert again.train == corpus.train and again.test == corpus.test


def test_test_split_does_not_depend_on_train_size(corpus):
    small = get_multilingual(seed=0, n_train=5, n_valid=20, n_test=30)
    assert small.test == corpus.test
    assert get_multilingual(seed=0, n_train=5, n_valid=2, n_test=10).test == corpus.test[:10]


def test_word_tokenizer():
    tok = WordTokenizer(["b", "a"])
    assert tok.vocab_size == 6 and tok.encode("a b zz") == [5, 4, UNK_ID]
    assert tok.decode([5, 4, EOS_ID, 4]) == "a b"
    assert tok.encode_user_text("<b>hi</b> 😀", 4).unknown_positions == [0, 1]
    with pytest.raises(ValueError):
        WordTokenizer(["a", "a"])


def test_with_tokenizers_reads_the_same_sentences(corpus):
    other = corpus.with_tokenizers(corpus.tokenizers)
    batch = other.pair_batch("test", "it", "vf", torch.arange(3))
    assert torch.equal(batch.source, corpus.pair_batch("test", "it", "vf", torch.arange(3)).source)


def test_config_languages():
    assert BridgeConfig().languages == ("en", "fr") and BridgeConfig(encoder_size=5).d_h == 10
