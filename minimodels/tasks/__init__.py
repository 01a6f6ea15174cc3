"""Generated seq2seq tasks whose true alignments are known, so a heatmap can be scored against the truth.

``get_task(name, seed=0, **options)`` builds a :class:`Task` in well under a second, with no downloads:

============================  ==================================================  ===========================
name                          pairs                                               tokens
============================  ==================================================  ===========================
``dates``                     "Sunday, November 22, 2026" -> "2026-11-22"         characters
``copy``                      "a3f9" -> "a3f9" (diagonal map)                     characters
``reverse``                   "a3f9" -> "9f3a" (anti-diagonal)                    characters
``sort``                      "a3f9" -> "39af" (a permutation, stable sort)       characters
``toy-translation``           "the green dog" ... -> "le chien vert" ...          sentencepiece (en -> fr)
``toy-translation-it``        "I like pizza" -> "mi piace la pizza"               sentencepiece (en -> it)
============================  ==================================================  ===========================

Not a seq2seq task: ``minimodels.tasks.coreference`` is the multi-head lesson's grammar in which "it" must be
resolved ("the animal didn't cross the street because it was too tired" -> il), built by ``it_task()``.

Options: every task takes ``n_train``, ``n_valid``, ``n_test`` (defaults: dates 6000/500/500, strings
4000/500/500, translation 6000/500/500); copy/reverse/sort take ``min_len``, ``max_len`` (3, 10) and
``alphabet`` (digits + lowercase letters); the translation tasks take ``verb_final`` (False).

Splits never share a source string; the same seed gives the same data. Results are memoised per
(name, seed, options) and shared: treat a Task as read-only.

For training, tokenize a split once and draw minibatches from it::

    task = get_task("dates")
    data = task.encoded("train")               # a Batch holding the whole split, cached on the task
    batch = data.select(torch.randint(len(data), (128,)))   # rows, trimmed to their longest row
    batch.source, batch.source_lengths, batch.target_in, batch.target_out

``make_batch(examples, task)`` does the same for any list of examples.
"""

from __future__ import annotations

import functools

from minimodels.tasks import coreference
from minimodels.tasks.core import Alignment, Batch, Example, Task, make_batch
from minimodels.tasks.dates import build_dates
from minimodels.tasks.strings import STRING_TASKS, build_string_task
from minimodels.tasks.translation import TRANSLATION_TASKS, build_translation, lecture_examples

TASK_NAMES: tuple[str, ...] = ("dates", *STRING_TASKS, *TRANSLATION_TASKS)


def get_task(name: str, seed: int = 0, **options) -> Task:
    """The task called ``name``, generated from ``seed``; see the module docstring for the options. Built once per
    process for each name, seed and options, however they are passed (``get_task("copy")`` and
    ``get_task("copy", seed=0)`` are the same object): a page and a shipped checkpoint's check share one task."""
    return _built(name, seed, tuple(sorted(options.items())))


@functools.lru_cache(maxsize=32)
def _built(name: str, seed: int, options: tuple) -> Task:
    return build_task(name, seed, **dict(options))


def build_task(name: str, seed: int = 0, **options) -> Task:
    """The task called ``name``, generated from ``seed`` anew on every call (:func:`get_task` keeps one)."""
    if name == "dates":
        return build_dates(seed, **options)
    if name in STRING_TASKS:
        return build_string_task(name, seed, **options)
    if name in TRANSLATION_TASKS:
        return build_translation(name, seed, **options)
    raise ValueError(f"unknown task {name!r}; choose from {', '.join(TASK_NAMES)}")


__all__ = [
    "TASK_NAMES",
    "Alignment",
    "Batch",
    "Example",
    "Task",
    "build_task",
    "get_task",
    "lecture_examples",
    "coreference",
    "make_batch",
]
