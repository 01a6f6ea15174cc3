"""What a lesson's page run would otherwise recompute for every student, every run, is computed once per server:
the check-yourself answers of the shipped models and a sentence read by the shipped bridge model, each a noticeable
share of its page's CPU when a class opens it at once."""

import functools
import importlib

import pytest

from lessons import (
    bahdanau_attention,
    queries_keys_values,
    transformer,
)
from lessons.attention_bridge import one_meaning as bridge_one_meaning
from lessons.attention_bridge import zero_shot as bridge_zero_shot
from lessons.bahdanau_attention import step_by_step as bahdanau_step_by_step
from lessons.multi_head_attention import resolving_it, split
from lessons.rnn_cells import agreement as rnn_agreement
from lessons.scoring_functions import side_by_side as scoring_side_by_side
from lessons.scoring_functions import where_scaling_matters as scoring_scaling_sweep
from lessons.seq2seq_bottleneck import where_it_breaks
from tests.helpers import open_page
from ui.kept import Kept


def counted(monkeypatch, module, name: str) -> list:
    calls = []
    original = getattr(module, name)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


@pytest.mark.parametrize(
    ("slug", "module", "name"),
    [
        ("transformer", transformer, "exercises"),  # of the shipped model: a forward pass and a module a run
        ("bahdanau_attention", bahdanau_attention, "exercises"),
        ("bahdanau_attention", bahdanau_step_by_step, "walk"),  # the shipped model's, shared by reference
        ("rnn_cells", rnn_agreement, "results_summary"),  # of the shipped results: chance levels from fresh batches
        ("scoring_functions", scoring_scaling_sweep, "load_sweep"),  # a comparison rebuilt from the results' meta
    ],
)
def test_what_a_page_asks_of_shipped_models_and_results_is_computed_once_for_every_student(
    monkeypatch, slug, module, name
):
    shared = importlib.import_module("ui.pretrained")  # the module (``ui.pretrained`` is also its function's name)
    monkeypatch.setattr(shared, "_VIEWS", Kept(256))  # nothing kept from earlier tests
    calls = counted(monkeypatch, module, name)
    first = open_page(f"pages/{slug}.py")
    second = open_page(f"pages/{slug}.py")
    assert len(calls) == 1
    prompts = [m.value for m in first.markdown if "Your answer" not in m.value]
    assert prompts == [m.value for m in second.markdown if "Your answer" not in m.value]


def test_the_multi_head_by_hand_answers_make_the_big_module_once(monkeypatch):
    """The paper's big model (d_model = 1024) is made once to count it and once for its d_k, however many times the
    page runs, and the shipped resolver reads the two sentences of the "it" exercise once."""
    from minimodels import attention

    split.by_hand.cache_clear()
    split.projection_parameters.cache_clear()
    resolving_it.shipped_it_by_hand.cache_clear()
    read = counted(monkeypatch, resolving_it, "it_by_hand")  # the shipped resolver's "it", by hand
    made = []
    original = attention.MultiHeadAttention.__init__

    def init(self, d_model, *args, **kwargs):
        made.append(d_model)
        original(self, d_model, *args, **kwargs)

    monkeypatch.setattr(attention.MultiHeadAttention, "__init__", init)
    for _ in range(2):
        at = open_page("pages/multi_head_attention.py")
        assert any(str(split.BIG_D_MODEL) in m.value for m in at.markdown)
    assert made.count(split.BIG_D_MODEL) <= 2  # once for d_k, once counted, over two page runs
    assert len(read) == 1


def test_a_sentence_is_read_by_the_shipped_bridge_model_once_per_server(monkeypatch):
    import streamlit as st

    st.cache_data.clear()
    calls = counted(monkeypatch, bridge_one_meaning, "read_sentence")
    first = open_page("pages/attention_bridge.py")
    second = open_page("pages/attention_bridge.py")
    assert len(calls) == 1
    assert [t.value.to_dict() for t in first.dataframe] == [t.value.to_dict() for t in second.dataframe]


@pytest.mark.parametrize(
    ("slug", "module", "name"),
    [
        ("scoring_functions", scoring_side_by_side, "race_charts"),  # every seed's curves averaged, for every run
        ("queries_keys_values", queries_keys_values.worked_example, "thinking_machines"),  # the worked example, seeded
        ("rnn_cells", rnn_agreement, "results_chart"),  # curves of shipped results drawn outside ui.measured
        ("attention_bridge", bridge_zero_shot, "history_charts"),
        ("seq2seq_bottleneck", where_it_breaks, "shipped_chart"),
    ],
)
def test_curves_of_shipped_results_and_the_seeded_worked_example_are_made_once(monkeypatch, slug, module, name):
    calls = counted(monkeypatch, module, name)
    first = open_page(f"pages/{slug}.py")
    calls.clear()  # made for the first student (or by an earlier test of this process)
    second = open_page(f"pages/{slug}.py")
    assert calls == []
    charts = [[c.proto.spec for c in at.get("vega_lite_chart")] for at in (first, second)]
    assert charts[0] == charts[1]
    assert slug == "queries_keys_values" or charts[0]  # the curves are on the page as it opens
