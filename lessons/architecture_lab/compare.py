"""Section 3, compare: the poster's three tables (baselines, encoder/decoder combinations, the RNN ablations) as
the shipped grid measured them on a toy translation, which of the poster's findings the toy reproduces (each
computed from the seeds by ``Comparison.compare``), the trained models' maps, and a shipped row to rerun live.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from lessons.architecture_lab.attention_maps import MapView, map_views
from lessons.architecture_lab.compare_runs import FINAL, GRIDS
from lessons.architecture_lab.paper_numbers import (
    PAPER_BASELINES,
    PAPER_COMBINATIONS,
    PAPER_LADDER_START,
    PAPER_RNN_LADDER,
)
from lessons.architecture_lab.presets import PRESET_BY_KEY, PRESETS
from lessons.architecture_lab.training import BUDGETS
from lessons.common.comparison import Comparison
from lessons.common.runs import load_note

TITLE = "3 · Compare"
YOUR_RUNS = "Your runs (this session)"
POSTER_TITLE = "The poster's tables, measured on a toy translation"


def grid_text(results: Comparison) -> str:
    """How the shipped grid was measured, from its meta: task, steps, seeds, metric."""
    meta = results.meta
    tasks = ", ".join(f"`{t}`" for t in meta.get("tasks", results.param_values("task")))
    seeds = ", ".join(str(s) for s in results.seeds)
    spreads = results.spreads(FINAL)
    worst, best = min(spreads, key=lambda v: spreads[v].mean), max(spreads, key=lambda v: spreads[v].mean)
    low, high = spreads[worst], spreads[best]
    return (
        f"Every row below is a preset of section 1, trained on {tasks} for exactly {meta.get('max_steps', '?')} steps "
        f"with the recipe of section 2, once per seed ({seeds}). The toy English → French grammar moves adjectives "
        "behind their noun and pronouns before the verb (I see it → je le vois), adds articles, agreement and "
        "ne … pas, so a model has to reorder and look back at the source, where `reverse` only reads it backwards. "
        f"After {meta.get('max_steps', '?')} steps the rows' means range from {low.mean:.1%} "
        f"({results.label(worst)}) to {high.mean:.1%} ({results.label(best)}); whether two rows differ is "
        "for the sentences under the tables to say, by the course's verdict rule (Welch's t-test at α = 0.05 on at "
        "least 5 seeds a side, and a gap above the drift measured between machines). "
        f"The main column is the {final_name(results)} on held-out sentences, mean ± sd over the seeds "
        "(n runs); seconds are one run's training time at one thread, on a machine as busy as the note on how these "
        "were made (below) says. The last column quotes "
        "the poster's BLEU for the row it copies: a direction to compare, not a number. The same grid is shipped "
        f"trained for {' and for '.join(GRIDS)}: a finding that holds at one length and not at the other is about "
        "how fast a model learns, not how good it ends up."
    )


POSTER_COLUMN = "poster: WMT'17 EN→DE BLEU"


def final_name(results: Comparison) -> str:
    """What the tables' main column measures: held-out exact match after the grid's fixed number of steps."""
    return f"exact match after {results.meta.get('max_steps', '?')} steps"


def _poster_row(results: Comparison, key: str, head: dict, paper: tuple[float, float] | None) -> dict:
    runs = results.runs_of(key)
    row = {**head, final_name(results): results.spread(FINAL, key).text(".1%", with_n=False)}
    row["parameters"] = runs[0].extra.get("parameters")
    row["seconds"] = results.spread("seconds", key).text(".1f", with_n=False)
    row["n"] = len(runs)
    row[POSTER_COLUMN] = f"{paper[0]:.1f} ± {paper[1]:.1f}" if paper else "–"
    return row


def _copies(encoder: str, decoder: str) -> tuple[str, ...]:
    """The preset that copies the poster's combination (encoder, decoder), if one does."""
    return tuple(p.key for p in PRESETS if p.paper == (encoder, decoder))


def combination_rows(results: Comparison) -> list[dict]:
    """The poster's "Encoder/Decoder Combinations" table, measured here: one row per combination the grid ran, in
    the poster's order, with mean ± sd over seeds, parameters, seconds, n and the poster's own BLEU."""
    by_pair = {p.paper: p.key for p in PRESETS if p.paper}
    rows = []
    for encoder, decoder, scores in PAPER_COMBINATIONS:
        key = by_pair.get((encoder, decoder))
        if key in results.variants and results.runs_of(key):
            rows.append(_poster_row(results, key, {"encoder": encoder, "decoder": decoder}, scores[1]))
    return rows


def ladder_rows(results: Comparison, ladder: Mapping[str, tuple[str, tuple[float, float]]]) -> list[dict]:
    """The poster's baselines or its RNN ablation ladder, measured here (the rows the grid ran)."""
    return [
        _poster_row(results, key, {"model": name}, paper)
        for key, (name, paper) in ladder.items()
        if key in results.variants and results.runs_of(key)
    ]


LADDER_TITLE = "The RNN ablations, one step at a time"
LADDER_NOTE = (
    f"The poster's ladder starts from a plain RNN ({PAPER_LADDER_START[1][0]:.1f} BLEU), which is not its RNMT "
    f"baseline ({PAPER_BASELINES['rnmt'][1][0]:.1f}); no preset here copies that first row, so the ladder is measured "
    "from its second, and the RNMT preset stands only beside the baseline row it copies."
)


BASELINES_TITLE = "Baselines: Transformer, RNMT and ConvS2S (CNN GLU)"
COMBINATIONS_TITLE = "Encoder/decoder combinations"
# the presets of each of the poster's tables, in its order
POSTER_GROUPS = {
    BASELINES_TITLE: tuple(PAPER_BASELINES),
    COMBINATIONS_TITLE: tuple(key for p in PAPER_COMBINATIONS for key in _copies(p[0], p[1])),
    LADDER_TITLE: tuple(PAPER_RNN_LADDER),
}


def poster_tables(results: Comparison) -> list[tuple[str, list[dict]]]:
    """The poster's three tables as the grid measured them, (title, rows), the empty ones left out."""
    tables = [
        (BASELINES_TITLE, ladder_rows(results, PAPER_BASELINES)),
        (COMBINATIONS_TITLE, combination_rows(results)),
        (LADDER_TITLE, ladder_rows(results, PAPER_RNN_LADDER)),
    ]
    return [(title, rows) for title, rows in tables if rows]


@dataclass(frozen=True)
class Finding:
    """One of the poster's findings, as pairs (a, b) of presets where the poster has a ahead of b."""

    claim: str
    pairs: tuple[tuple[str, str], ...]


FINDINGS = (
    Finding("Multiple source attention layers are key", (("rnn-multi-att", "rnn-one-att"),)),
    Finding("The residual feed-forward layer is key", (("rnn-rnn", "rnn-multi-att"),)),
    Finding(
        "Self-attention is more important on the source side",
        (("selfatt-rnn", "rnn-selfatt"), ("selfatt-cnn", "cnn-selfatt")),
    ),
    Finding("The Transformer beats the RNN and CNN baselines", (("transformer", "rnmt"), ("transformer", "convs2s"))),
    Finding(
        "The decoder needs a layer that reads the target so far (self-att → none loses to the Transformer)",
        (("transformer", "selfatt-none"),),
    ),
)


def finding_status(verdicts: Sequence) -> str:
    """ "reproduced" when every pair is clearly won the poster's way, "contradicted" when any is clearly won the
    other way, "partly reproduced" when some are won and the rest too close, else "too close to call"."""
    winners = [v.winner for v in verdicts]
    if any(w == v.b for w, v in zip(winners, verdicts, strict=True)):
        return "contradicted"
    if all(w == v.a for w, v in zip(winners, verdicts, strict=True)):
        return "reproduced"
    return "partly reproduced" if any(winners) else "too close to call"


def findings(results: Comparison) -> list[tuple[str, str, list[str]]]:
    """For each poster finding whose presets the grid ran: (claim, status, the computed sentences)."""
    name = final_name(results)
    out = []
    for finding in FINDINGS:
        pairs = [(a, b) for a, b in finding.pairs if {a, b} <= set(results.variants)]
        if not pairs:
            continue
        verdicts = [results.compare(a, b, FINAL) for a, b in pairs]
        sentences = [v.sentence(".1%", metric_name=name) + _sizes(results, v.a, v.b) for v in verdicts]
        out.append((finding.claim, finding_status(verdicts), sentences))
    return out


def _sizes(results: Comparison, a: str, b: str) -> str:
    """The two models' sizes, and a warning when the first is over 10% larger: its lead may be its size."""
    pa, pb = (results.runs_of(k)[0].extra.get("parameters") for k in (a, b))
    if not pa or not pb:
        return ""
    warning = " — more weights, so the gap is not the layout's alone" if pa > 1.1 * pb else ""
    return f" Parameters: {pa:,} against {pb:,}{warning}."


def findings_markdown(results: Comparison) -> str:
    """A summary line (which findings the toy reproduces, which in part, which not), then the findings as a list:
    "- **claim**: reproduced here. sentence …"."""
    found = findings(results)
    lines = [f"- **“{claim}”**: {status} here. " + " ".join(sentences) for claim, status, sentences in found]
    held = [claim for claim, status, _ in found if status == "reproduced"]
    partly = [claim for claim, status, _ in found if status == "partly reproduced"]
    other = [f"{claim} ({status})" for claim, status, _ in found if status not in ("reproduced", "partly reproduced")]
    summary = (
        f"The toy reproduces {len(held)} of the {len(found)} findings it can test"
        + (f": {'; '.join(held)}." if held else ".")
        + (f" In part: {'; '.join(partly)}." if partly else "")
        + (f" It does not reproduce: {'; '.join(other)}." if other else "")
    )
    return "\n".join([summary, "", *lines]) if found else ""


def provenance_note(meta: Mapping) -> str:
    """What the page adds to the provenance caption: the recipe, how long each run trained, the machine's load."""
    machine = meta.get("machine", {})
    steps, stop_at = meta.get("max_steps", "?"), meta.get("stop_at", 0)
    how = (
        f"for exactly {steps} steps (no early stop), so every row had the same training"
        if stop_at >= 1.0
        else f"for at most {steps} steps, stopping at {stop_at:.0%}"
    )
    return (
        f"Each preset trained with this page's recipe {how}. Torch {machine.get('torch', '?')} on "
        f"{machine.get('processor', '?')}; {load_note(meta)}. Your laptop's seconds will differ, and between rows "
        "they compare only roughly."
    )


def rerun_settings(results: Comparison, key: str) -> dict:
    """The page's state that sets section 1 and 2 to a shipped row: its preset, chains, task, seed and steps (the
    longest budget: a busy machine's 200 steps may take more than the shipped seconds)."""
    preset, run = PRESET_BY_KEY[key], results.runs_of(key)[0]
    return {
        "architecture_lab.preset": key,
        "architecture_lab.encoder": preset.encoder,
        "architecture_lab.decoder": preset.decoder,
        "architecture_lab.task": run.params["task"],
        "architecture_lab.cell": run.extra.get("cell", "gru"),
        "architecture_lab.seed": run.seed,
        "architecture_lab.budget": BUDGETS[-1],
        "architecture_lab.steps": int(results.meta.get("max_steps", 0)),
    }


def probes(results: Comparison) -> dict[str, dict]:
    """Preset -> its first run's probe (with that run's task and seed): the trained maps the page can show."""
    found = {}
    for run in results.runs:
        if "probe" in run.extra and run.variant not in found:
            found[run.variant] = {"task": run.params["task"], "seed": run.seed, **run.extra["probe"]}
    return found


def shipped_views(results: Comparison, key: str) -> list[MapView]:
    probe = probes(results)[key]
    maps = {name: np.asarray(probe["maps"][name], dtype=float) for name in probe["order"]}
    return map_views(maps, probe["source_tokens"], probe["target_tokens"])


def probe_caption(results: Comparison, key: str) -> str:
    probe = probes(results)[key]
    return f"TRAINED ({probe['task']}, seed {probe['seed']}, step {probe['step']}): writes “{probe['prediction']}”"
