"""Shipped results: a lesson's measured comparison loaded once per file version, and where it came from.

One contract for every page: :func:`shipped_results` returns the lesson's results, or None after a warning that
says why (missing or malformed file, and the script that makes it); :func:`provenance` is the one caption that
says how, when and where they were measured.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path

import streamlit as st

from lessons.common.catalog import ROOT, Lesson
from ui.charts import comparison_curves, table
from ui.pretrained import share


@st.cache_resource(max_entries=32, show_spinner=False)
def _load(module: str, loader: str, path: str, mtime: float):
    """Keyed on the file's time stamp, so a re-measured file is read again; one object shared by every student (a
    :class:`~lessons.common.comparison.Comparison` never changes; a data cache would unpickle a copy on each run).
    Registered as shipped (``ui.pretrained.share``): what a page computes from it with ``ui.shared_view`` is
    computed once per server."""

    return share(getattr(importlib.import_module(module), loader)(path))


def shipped_results(
    lesson: Lesson,
    path: str | Path | None = None,
    *,
    loader: Callable,
    what: str = "The measured results",
):
    """The lesson's shipped results, ``loader(path)`` (a lessons function), or None with a warning on the page.

    ``path``: one of the catalog entry's ``results`` (default: its first)."""
    if path is None:
        if not lesson.results:
            raise ValueError(f"the catalog declares no shipped results for {lesson.slug}")
        path = lesson.results[0]
    path = Path(path) if Path(path).is_absolute() else ROOT / path
    try:
        mtime = path.stat().st_mtime if path.exists() else 0.0
        return _load(loader.__module__, loader.__name__, str(path), mtime)
    except (FileNotFoundError, ValueError, KeyError) as error:
        st.warning(f"{what} cannot be shown: {error}")
        return None


def provenance_text(meta: Mapping) -> str:
    """One sentence: the command that measured the results, when, on what machine, over which seeds."""
    bits = []
    command = meta.get("command")
    if command:
        bits.append(f"Measured by `{command}`")
    else:
        bits.append("Measured")
    if meta.get("date"):
        bits.append(f"on {meta['date']}")
    machine = meta.get("machine") or {}
    cores = machine.get("cpu_count") or meta.get("cpus")
    threads = machine.get("torch_threads") or meta.get("threads")
    if cores:
        cpu = machine.get("cpu_model")
        unit = f", {machine['cpu_capability']} kernels" if machine.get("cpu_capability") else ""
        where = f"on a {cores}-core {cpu}{unit}" if cpu else f"on a {cores}-core machine"
        if threads:
            where += f" with {threads} torch thread{'s' if threads != 1 else ''}"
        bits.append(where)
    seeds = meta.get("seeds")
    if seeds:
        bits.append(f"over seeds {', '.join(str(s) for s in seeds)} (n = {len(seeds)})")
    load = meta.get("load_average_before") or meta.get("load_1min_before")
    if load:
        first = load[0] if isinstance(load, list | tuple) else load
        bits.append(f"at a load of {float(first):.1f}")
    seconds = meta.get("seconds") or meta.get("wall_seconds")
    if seconds:
        bits.append(f"in {float(seconds):.0f} s")
    return " ".join(bits) + "."


def provenance(meta: Mapping, note: str = "") -> None:
    """The provenance caption under a shipped table or chart (plus an optional note of the page's own)."""
    st.caption(provenance_text(meta) + (f" {note}" if note else ""))


@st.fragment  # the curves' axis control reruns this section only
def measured(
    results, *, rows, observations, curves, key: str, caption: str = "", note: str = "", **curve_options
) -> None:
    """A shipped comparison's section, in one order: its table (``rows``), a caption, the sentences the lesson
    computed from it (``observations``, one bullet each), its curves (``curves``, as :func:`ui.comparison_curves`
    takes them, with ``curve_options``: ``names``, ``axis_key``, ``height``) and its provenance."""

    table(rows)
    if caption:
        st.caption(caption)
    st.markdown("\n".join(f"- {line}" for line in observations))
    comparison_curves(curves, key, **curve_options)
    provenance(results.meta, note=note)
