"""The shipped grid of section 3: how the results script measures one preset's run, and the reading of its
comparison (``assets/results/architecture_lab.json`` and the same grid at 100 steps).
"""

from __future__ import annotations

from pathlib import Path

from lessons.architecture_lab.presets import PRESET_BY_KEY, Preset
from lessons.architecture_lab.training import TARGET, run_row
from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.runs import Run, curve_of
from minimodels.train import TrainResult

RESULTS = ROOT / "assets" / "results" / "architecture_lab.json"

# the same grid measured at two lengths: near the top (200 steps) and halfway there (100 steps: how fast each learns)
GRIDS = {"200 steps": RESULTS, "100 steps": ROOT / "assets" / "results" / "architecture_lab_100_steps.json"}

# ``assets/results/architecture_lab.json`` is a :class:`Comparison` made by ``scripts/architecture_lab_results.py``:
# variants are preset keys, one run per (preset, seed, task) with params {"task"}; finals below; extra holds the
# chains, cell, parameters, why it stopped and, for one run per preset, its final attention on the task's probe.
STEPS_TO, SECONDS_TO, FINAL = f"steps to {TARGET:.0%}", f"seconds to {TARGET:.0%}", "final exact match"
METRICS = (STEPS_TO, SECONDS_TO, FINAL, "steps", "seconds")  # every run's finals


def shipped_run(
    preset: Preset, task_name: str, seed: int, result: TrainResult, parameters: int, *, probe: bool = False
) -> Run:
    """One measured run of ``preset`` as the comparison keeps it: its reports, the finals of :func:`run_row`, and
    with ``probe`` its final attention on the task's probe sentence."""
    row = run_row(preset.label, preset.encoder, preset.decoder, "gru", task_name, parameters, result)
    curve = tuple(curve_of(result.history))
    extra = {k: row[k] for k in ("encoder", "decoder", "cell", "parameters", "stopped")}
    if probe:
        last = result.history[-1]
        maps = {
            name: [[[round(float(v), 4) for v in r] for r in head] for head in m]
            for name, m in last.attention_maps.items()
        }
        extra["probe"] = {
            "step": last.step,
            "source_tokens": list(last.source_tokens),
            "maps": maps,
            "order": list(maps),  # the order computed: a saved comparison sorts its keys
            "target_tokens": list(last.target_tokens),
            "prediction": last.prediction,
        }
    return Run(preset.key, seed, {"task": task_name}, curve, {m: row[m] for m in METRICS}, extra)


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped comparison; ``FileNotFoundError`` / ``ValueError`` naming the script when unusable."""
    script = "scripts/architecture_lab_results.py"
    results = Comparison.load(path if path is not None else RESULTS, script=script)
    unknown = [v for v in results.variants if v not in PRESET_BY_KEY]
    if unknown:
        raise ValueError(f"{Path(path or RESULTS).name} has runs of unknown presets {unknown}: run `python {script}`")
    for run in results.runs:
        missing = [m for m in METRICS if m not in run.final] + [k for k in ("task",) if k not in run.params]
        if missing:
            raise ValueError(f"run {run.variant} seed {run.seed} lacks {', '.join(missing)}: run `python {script}`")
        probe = run.extra.get("probe")
        if probe is not None and (
            not {"source_tokens", "target_tokens", "maps", "order"} <= set(probe)
            or sorted(probe["order"]) != sorted(probe["maps"])
        ):
            raise ValueError(f"the probe of {run.variant} lacks its tokens or maps: run `python {script}`")
    return results
