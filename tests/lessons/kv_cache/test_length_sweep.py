"""The sweep's models: the linear one starts from the softmax one's weights; each reads what the lesson says."""

import torch

from lessons.kv_cache import length_sweep as s
from minimodels.linear_attention import LinearAttentionSeq2Seq


def test_the_linear_model_starts_from_the_softmax_models_weights_and_attends_linearly():
    softmax, linear = s.build("gru-softmax", 3), s.build("gru-linear", 3)
    assert isinstance(linear, LinearAttentionSeq2Seq) and not isinstance(softmax, LinearAttentionSeq2Seq)
    for (name, a), (_, b) in zip(softmax.state_dict().items(), linear.state_dict().items(), strict=True):
        assert torch.equal(a, b), name
    assert s.build("gru-none", 3).config.attention == "none"


def test_what_each_decoder_reads_grows_only_for_softmax():
    assert s.what_it_reads("gru-none", 5) == s.what_it_reads("gru-none", 19) == s.D
    assert s.what_it_reads("gru-softmax", 19) == 19 * s.D
    assert s.what_it_reads("gru-linear", 5) == s.what_it_reads("gru-linear", 19) == s.D * s.D + s.D


def test_the_recipe_is_the_bottleneck_lessons_with_the_seed_and_steps_given():
    config = s.train_config("gru-linear", seed=4, steps=7)
    assert config.seed == 4 and config.max_steps == 7 and config.lr == 5e-3
