"""What the Transformer lesson's tests share: the shipped toy translator, and one sentence walked through it."""

import pytest

from lessons.common.pretrained import load_pretrained
from lessons.transformer import reading
from minimodels.tasks import get_task


@pytest.fixture(scope="module")
def translator():
    model, _ = load_pretrained("toy-translation", reading.MODEL)
    return model, get_task("toy-translation")


@pytest.fixture(scope="module")
def walked(translator):
    model, task = translator
    return reading.walk(model, task, "Jane visits Africa in September")
