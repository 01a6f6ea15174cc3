"""Made-up comparisons of presets, for the tests of the shipped grid's reading and of the poster's findings."""

from lessons.architecture_lab import compare_runs, presets
from lessons.common.comparison import Comparison
from lessons.common.runs import Run


def comparison(steps: dict[str, tuple], finals: dict[str, tuple], task: str = "reverse") -> Comparison:
    """A made-up comparison of presets: their runs' steps to 90% (None: never reached) and final exact matches."""
    runs = [
        Run(
            key,
            seed,
            {"task": task},
            (),
            {
                compare_runs.STEPS_TO: s,
                compare_runs.SECONDS_TO: s,
                compare_runs.FINAL: f,
                "steps": 300,
                "seconds": 100.0,
            },
        )
        for key in steps
        for seed, (s, f) in enumerate(zip(steps[key], finals[key], strict=True))
    ]
    return Comparison(tuple(steps), tuple(runs), {}, {k: presets.PRESET_BY_KEY[k].label for k in steps})
