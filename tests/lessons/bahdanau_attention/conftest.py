"""The shipped English → Italian-like model, its task and its decoding of the lecture's "I like pizza", made once
per test file."""

import pytest

from lessons.bahdanau_attention import decoding
from lessons.common.pretrained import load_pretrained
from minimodels.tasks import get_task

IT = "toy-translation-it"


@pytest.fixture(scope="module")
def model():
    shipped, _ = load_pretrained(IT, decoding.MODEL)
    return shipped


@pytest.fixture(scope="module")
def task():
    return get_task(IT)


@pytest.fixture(scope="module")
def pizza(model, task):
    return decoding.decode(model, task, "I like pizza")
