"""A tiny bridge model and corpus, shared by the attention bridge's tests that run one."""

import pytest
import torch

from minimodels.bridge import new_bridge
from minimodels.tasks.multilingual import get_multilingual


@pytest.fixture(scope="module")
def corpus():
    return get_multilingual(seed=0, n_train=60, n_valid=10, n_test=12)


@pytest.fixture(scope="module")
def model(corpus):
    torch.manual_seed(0)
    return new_bridge(corpus, embedding_size=8, encoder_size=6, heads=3, bridge_hidden=10).eval()
