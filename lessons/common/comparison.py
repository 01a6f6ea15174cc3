"""One measured comparison: variants × seeds → runs, its file, and what a lesson reads from it.

A lesson that says "attention beats no attention at D = 64" measures it: several seeds per variant
(``scripts/<lesson>_results.py`` runs the grid with :func:`measure` and ships it with :meth:`Comparison.save`),
tables say mean ± sd and n (:meth:`Comparison.table`), charts draw the mean with a band of ± one sd and each
seed faintly (:meth:`Comparison.curve_points` for :func:`~lessons.common.curves.curves_chart`), and the sentence
is computed by :meth:`Comparison.compare` (the rule: :func:`~lessons.common.verdicts.verdict`: five seeds a side,
Welch's t-test at α = 0.05, a gap above the cross-machine drift), which can also say "does not" or "too close to
call".

Pure Python and numpy: no streamlit.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lessons.common.runs import Run, Spread
from lessons.common.verdicts import Verdict, verdict

FORMAT = "attention-lab/comparison/1"  # the ``"format"`` key of a saved comparison; bump on an incompatible change
SIGNIFICANT_DIGITS = 6  # floats in a saved file: 0.123457, 1234.57 (seconds to the hundredth, losses to 1e-6)


# --------------------------------------------------------------------------------------------- a comparison
@dataclass(frozen=True)
class Comparison:
    """Variants × seeds → runs: what a lesson measured, how (``meta``), and each variant's display label."""

    variants: tuple[str, ...]  # in the order tables and legends list them (and colours are given)
    runs: tuple[Run, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)  # script, command, date, machine, budget, task, …
    labels: Mapping[str, str] = field(default_factory=dict)  # variant -> what a student reads; default the key
    source: str | None = None  # the results file's name ("transformer") when loaded from one: its metrics' drift

    def __post_init__(self) -> None:
        variants, runs = tuple(self.variants), tuple(self.runs)
        if len(set(variants)) != len(variants):
            raise ValueError(f"variants are listed twice: {list(variants)}")
        seen = set()
        for run in runs:
            if not isinstance(run, Run):
                raise ValueError(f"runs must be Run objects, not {type(run).__name__}")
            if run.variant not in variants:
                raise ValueError(f"a run of {run.variant!r}, which is not one of the variants {list(variants)}")
            key = (run.variant, run.seed, json.dumps(run.params, sort_keys=True, default=str))
            if key in seen:
                raise ValueError(f"two runs of {run.variant} with seed {run.seed} and params {run.params}")
            seen.add(key)
        object.__setattr__(self, "variants", variants)
        object.__setattr__(self, "runs", runs)
        object.__setattr__(self, "meta", dict(self.meta))
        object.__setattr__(self, "labels", {str(k): str(v) for k, v in dict(self.labels).items()})

    # --- reading it
    def label(self, variant: str) -> str:
        return self.labels.get(variant, variant)

    def runs_of(self, variant: str, where: Mapping[str, Any] | None = None) -> tuple[Run, ...]:
        """``variant``'s runs (those whose params match ``where``), in the order measured."""
        if variant not in self.variants:
            raise KeyError(f"no variant {variant!r} (there are: {list(self.variants)})")
        return tuple(r for r in self.runs if r.variant == variant and r.matches(where))

    @property
    def seeds(self) -> tuple[int, ...]:
        return tuple(sorted({r.seed for r in self.runs}))

    def param_values(self, name: str) -> tuple:
        """The values a param takes over the runs, sorted (a sweep's x: the distances, the sizes)."""
        return tuple(sorted({r.params[name] for r in self.runs if name in r.params}))

    def spread(self, metric: str, variant: str, where: Mapping[str, Any] | None = None) -> Spread:
        """``metric`` (a final metric) over ``variant``'s runs. Computed once per question: a comparison never
        changes, and a page asks the same ones on every run, for every student (the shipped results are shared)."""

        def measure() -> Spread:
            return Spread(tuple(r.value(metric) for r in self.runs_of(variant, where)))

        try:
            key = (metric, variant, tuple(sorted((where or {}).items())))
            hash(key)
        except TypeError:  # a ``where`` with a list in it: asked as it is
            return measure()
        memo = self.__dict__.setdefault("_spreads", {})
        if key not in memo:
            memo[key] = measure()
        return memo[key]

    def spreads(self, metric: str, where: Mapping[str, Any] | None = None) -> dict[str, Spread]:
        """Variant -> :meth:`spread`, for the variants with runs (matching ``where``)."""
        out = {v: self.spread(metric, v, where) for v in self.variants}
        return {v: s for v, s in out.items() if s.total}

    def compare(
        self,
        a: str,
        b: str,
        metric: str,
        *,
        higher_is_better: bool = True,
        where: Mapping[str, Any] | None = None,
        none_is_worst: bool = True,
        min_gap: float = 0.0,
    ) -> Verdict:
        """Is ``a`` better than ``b`` on ``metric``, by the course's rule (:func:`verdict`: enough seeds, Welch's
        t-test at its α, a gap above the cross-machine drift measured for ``metric``)?"""
        sa, sb = self.spread(metric, a, where), self.spread(metric, b, where)
        rule = {"none_is_worst": none_is_worst, "min_gap": min_gap, "results": self.source}
        outcome, reason = verdict(sa, sb, higher_is_better=higher_is_better, metric=metric, **rule)
        return Verdict(a, b, self.label(a), self.label(b), metric, higher_is_better, sa, sb, outcome, reason, **rule)

    def table(
        self,
        columns: Mapping[str, str],
        *,
        by: str | None = None,
        where: Mapping[str, Any] | None = None,
        variant_header: str = "variant",
        missing: str = "not reached",
    ) -> list[dict]:
        """Rows for ``st.dataframe``: one per variant (and value of the param ``by``), "n" the runs, and for each
        ``metric: format`` of ``columns`` a column ``metric`` holding "mean ± sd" (text: one type per
        column)."""
        rows = []
        for variant in self.variants:
            for value in self.param_values(by) if by else (None,):
                scope = {**(where or {}), **({by: value} if by else {})}
                runs = self.runs_of(variant, scope)
                if not runs:
                    continue
                row = {variant_header: self.label(variant), **({by: value} if by else {}), "n": len(runs)}
                for metric, fmt in columns.items():
                    row[metric] = self.spread(metric, variant, scope).text(fmt, missing, with_n=False)
                rows.append(row)
        return rows

    def run_rows(self, metrics: Sequence[str] | None = None) -> list[dict]:
        """Every run, one row: variant label, seed, params and final metrics (all of them, or ``metrics``)."""
        return [
            {
                "variant": self.label(r.variant),
                "seed": r.seed,
                **r.params,
                **{m: r.final.get(m) for m in (metrics if metrics is not None else r.final)},
            }
            for r in self.runs
        ]

    def _point(self, run: Run, x: float, y: float) -> dict:
        return {
            "variant": run.variant,
            "label": self.label(run.variant),
            "order": self.variants.index(run.variant),
            "seed": run.seed,
            "x": float(x),
            "y": float(y),
        }

    def curve_points(self, metric: str, x: str = "step", where: Mapping[str, Any] | None = None) -> list[dict]:
        """Every report of every run (matching ``where``), long form for :func:`~lessons.common.curves.curves_chart`:
        ``{"variant", "label", "order", "seed", "x", "y"}``. Reports without ``metric`` are left out."""
        points, lines = [], {}
        for run in self.runs:
            if not run.matches(where):
                continue
            other = lines.setdefault((run.variant, run.seed), run.params)
            if other is not run.params:
                raise ValueError(
                    f"{run.variant} seed {run.seed} has runs with params {other} and {run.params}: pick one with where="
                )
            points += [self._point(run, p[x], p[metric]) for p in run.curve if p.get(metric) is not None]
        return points

    def sweep_points(self, metric: str, x_param: str, where: Mapping[str, Any] | None = None) -> list[dict]:
        """Each run's final ``metric`` against its param ``x_param`` (one line per variant and seed across the
        sweep), long form for :func:`~lessons.common.curves.curves_chart`. Runs without a value are left out: the
        table counts them."""
        return [
            self._point(r, r.params[x_param], r.final[metric])
            for r in self.runs
            if r.matches(where) and x_param in r.params and r.final.get(metric) is not None
        ]

    # --- storing it
    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "variants": list(self.variants),
            "labels": dict(self.labels),
            "meta": dict(self.meta),
            "runs": [r.to_dict() for r in self.runs],
        }

    @classmethod
    def from_dict(cls, data: Mapping, source: str = "the comparison") -> Comparison:
        """Check and read :meth:`to_dict`'s document; ``ValueError`` saying what is wrong (``source``: a file name)."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{source} is not a JSON object")
        if data.get("format") != FORMAT:
            found = f'"format": {data["format"]!r}' if "format" in data else 'no "format" key'
            raise ValueError(f"{source} has {found}; expected {FORMAT!r}")
        variants = data.get("variants")
        if not isinstance(variants, list) or not variants or not all(isinstance(v, str) for v in variants):
            raise ValueError(f"{source} must list its variants (strings)")
        raw_runs = data.get("runs")
        if not isinstance(raw_runs, list) or not raw_runs:
            raise ValueError(f"{source} has no runs")
        runs = []
        for i, raw in enumerate(raw_runs):
            if not isinstance(raw, Mapping) or "variant" not in raw or "seed" not in raw:
                raise ValueError(f"{source}: run {i} lacks its variant or seed")
            for key, kind in (("params", Mapping), ("final", Mapping), ("extra", Mapping), ("curve", list)):
                if key in raw and not isinstance(raw[key], kind):
                    raise ValueError(f"{source}: run {i} ({raw['variant']}): {key} must be a {kind.__name__}")
            if not all(isinstance(p, Mapping) for p in raw.get("curve", [])):
                raise ValueError(f"{source}: run {i} ({raw['variant']}): every report of its curve must be an object")
            try:
                runs.append(
                    Run(
                        raw["variant"],
                        raw["seed"],
                        raw.get("params", {}),
                        tuple(raw.get("curve", ())),
                        raw.get("final", {}),
                        raw.get("extra", {}),
                    )
                )
            except ValueError as error:
                raise ValueError(f"{source}: run {i}: {error}") from error
        try:
            return cls(tuple(variants), tuple(runs), dict(data.get("meta") or {}), dict(data.get("labels") or {}))
        except ValueError as error:
            raise ValueError(f"{source}: {error}") from error

    def save(self, path: Path | str) -> Path:
        """Write the comparison as stable JSON (keys sorted, floats to :data:`SIGNIFICANT_DIGITS`), one file."""
        path = Path(path)
        try:
            text = json.dumps(_rounded(self.to_dict()), indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False)
        except ValueError as error:  # NaN or infinity: not JSON; a measured value that is not a number is a bug
            raise ValueError(f"cannot save {path.name}: {error} (use None for a value that is missing)") from error
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: Path | str, script: str | None = None) -> Comparison:
        """Read a saved comparison; ``FileNotFoundError``/``ValueError`` naming the file and the script that makes it
        (``script``, else the file's ``meta["script"]``, else ``scripts/<name>_results.py`` by the course's naming)."""
        path = Path(path)
        make = script or f"scripts/{path.stem}_results.py"
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: run `python {make}` to make it")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ValueError(f"{path.name} is not valid JSON ({error}): run `python {make}` again") from error
        if script is None and isinstance(data, Mapping) and isinstance(data.get("meta"), Mapping):
            make = data["meta"].get("script") or make
        try:
            loaded = cls.from_dict(data, source=path.name)
        except ValueError as error:
            raise ValueError(f"{error}: run `python {make}` again") from error
        return dataclasses.replace(loaded, source=path.stem)


def _rounded(value: Any) -> Any:
    """``value`` with every float to :data:`SIGNIFICANT_DIGITS` significant digits (NaN and infinity left for
    ``json.dumps`` to refuse)."""
    if isinstance(value, float | np.floating):
        value = float(value)
        return float(f"{value:.{SIGNIFICANT_DIGITS}g}") if math.isfinite(value) else value
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [_rounded(v) for v in value]
    return value


def measure(
    variants: Sequence[str],
    seeds: Sequence[int],
    run_one: Callable[[str, int], Run | Iterable[Run]],
    meta: Mapping[str, Any],
    on_run: Callable[[Run, int, int], None] | None = None,
    labels: Mapping[str, str] | None = None,
) -> Comparison:
    """Run the grid: ``run_one(variant, seed)`` for every variant and seed, in that order, into a Comparison.

    ``run_one`` returns a :class:`Run`, or several (one per setting of a sweep: every distance, say), each of
    ``variant`` and ``seed``. ``on_run(run, done, total)`` after each call (``total``: variants × seeds), to print
    progress. ``meta``: how it was measured (put ``"script"`` in it: error messages name it)."""
    runs, total, done = [], len(variants) * len(seeds), 0
    for variant in variants:
        for seed in seeds:
            made = run_one(variant, seed)
            made = [made] if isinstance(made, Run) else list(made)
            for run in made:
                if (run.variant, run.seed) != (variant, seed):
                    raise ValueError(f"run_one({variant!r}, {seed}) returned a run of {run.variant!r} seed {run.seed}")
            runs += made
            done += 1
            if on_run is not None:
                for run in made:
                    on_run(run, done, total)
    return Comparison(tuple(variants), tuple(runs), dict(meta), dict(labels or {}))
