"""One measured comparison: variants × seeds → runs, their spread, and the one chart of curves every lesson draws.

A lesson that says "attention beats no attention at D = 64" measures it: several seeds per variant
(``scripts/<lesson>_results.py`` runs the grid with :func:`measure` and ships it with :meth:`Comparison.save`),
tables say mean ± sd and n (:meth:`Comparison.table`), charts draw the mean with a band of ± one sd and each
seed faintly (:func:`curves_chart`), and the sentence is computed by :meth:`Comparison.compare`, which can also
say "does not" or "too close to call". One seed is an anecdote: it never makes a comparison clear.

Pure Python and numpy: no streamlit, no Altair (the chart is a Vega-Lite dict written here, its JSON made once
per set of options, so a live panel redrawn a few times a second only fills in the numbers).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

FORMAT = "attention-lab/comparison/1"  # the ``"format"`` key of a saved comparison; bump on an incompatible change
SIGNIFICANT_DIGITS = 6  # floats in a saved file: 0.123457, 1234.57 (seconds to the hundredth, losses to 1e-6)
# Vega's "tableau10": one colour per variant, by its place in the comparison, so every chart of it agrees
PALETTE = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac")

Outcome = Literal["better", "worse", "too close"]


def _number(value: Any, what: str) -> float | None:
    """``value`` as a float (None stays None: "never reached", "not measured"); ``ValueError`` naming ``what``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{what} must be a number or None, not {value!r}")
    return float(value)


def first_reached(curve: Sequence[Mapping[str, float]], metric: str, level: float, x: str = "step") -> float | None:
    """``x`` (step, seconds…) of the first report of ``curve`` whose ``metric`` is at least ``level``; None if none
    is. What goes in a run's ``final`` as "steps to 90%"."""
    for point in curve:
        value = point.get(metric)
        if value is not None and value >= level:
            return float(point[x])
    return None


def curve_of(history: Sequence) -> list[dict]:
    """A training run's reports (``minimodels.train.Progress``: step, seconds, loss, exact match) as the per-report
    record a :class:`Run` keeps for its ``curve``."""
    return [
        {
            "step": p.step,
            "seconds": round(p.seconds, 3),
            "loss": round(p.loss, 5),
            "exact_match": round(p.exact_match, 4),
        }
        for p in history
    ]


# ---------------------------------------------------------------------------------------------------- a run
@dataclass(frozen=True)
class Run:
    """One training of one variant with one seed, as measured."""

    variant: str  # which arm of the comparison ("dot", "h = 4", "LSTM")
    seed: int  # initial weights and batch order
    # the settings that define it beyond the variant: {"distance": 20}, {"cell": "LSTM", "heads": 4}
    params: Mapping[str, Any] = field(default_factory=dict)
    # every report, in order: {"step", "seconds", "loss", "exact_match", …}
    curve: tuple[Mapping[str, float], ...] = ()
    # the final metrics, by name: {"test exact match": 0.93, "steps to 90%": None (never reached), …}
    final: Mapping[str, float | None] = field(default_factory=dict)
    # anything else kept with it: probe maps, parameter counts, why it stopped
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.variant, str) or not self.variant:
            raise ValueError(f"a run's variant must be a non-empty string, not {self.variant!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer):
            raise ValueError(f"run {self.variant}: the seed must be an integer, not {self.seed!r}")
        what = f"run {self.variant} seed {self.seed}"
        final = {str(k): _number(v, f"{what}: final {k!r}") for k, v in dict(self.final).items()}
        curve = tuple(dict(point) for point in self.curve)
        object.__setattr__(self, "seed", int(self.seed))
        object.__setattr__(self, "params", dict(self.params))
        object.__setattr__(self, "curve", curve)
        object.__setattr__(self, "final", final)
        object.__setattr__(self, "extra", dict(self.extra))

    def value(self, metric: str) -> float | None:
        """The final ``metric``; ``KeyError`` naming the metrics it has when it has no such metric at all."""
        if metric not in self.final:
            has = ", ".join(sorted(self.final)) or "none"
            raise KeyError(f"run {self.variant} seed {self.seed} has no final {metric!r} (it has: {has})")
        return self.final[metric]

    def matches(self, where: Mapping[str, Any] | None) -> bool:
        """Whether every setting of ``where`` is one of this run's params."""
        return not where or all(k in self.params and self.params[k] == v for k, v in where.items())

    def reached(self, metric: str, level: float, x: str = "step") -> float | None:
        """:func:`first_reached` on this run's curve."""
        return first_reached(self.curve, metric, level, x)

    def to_dict(self) -> dict:
        return {
            "variant": self.variant,
            "seed": self.seed,
            "params": dict(self.params),
            "curve": list(self.curve),
            "final": dict(self.final),
            "extra": dict(self.extra),
        }


# ------------------------------------------------------------------------------------------------- a spread
@dataclass(frozen=True)
class Spread:
    """A metric over seeds: mean ± sample sd and n; the runs without a value (None) counted, never dropped silently."""

    values: tuple[float | None, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(_number(v, "a spread's value") for v in self.values))

    def __getstate__(self) -> dict:
        """Its values only: a pickle (and so ``ui.kept.digest``'s fingerprint) is the same before and after the
        properties below were first read."""
        return {"values": self.values}

    # Computed once per spread (its values never change): a lesson's verdicts and exercises read the same spreads
    # on every run of the page, for every student.
    @functools.cached_property
    def present(self) -> tuple[float, ...]:
        return tuple(v for v in self.values if v is not None)

    @property
    def n(self) -> int:
        """How many values the mean and sd are of (the runs that have one)."""
        return len(self.present)

    @property
    def total(self) -> int:
        """How many runs, with a value or without."""
        return len(self.values)

    @property
    def missing(self) -> int:
        """How many runs have no value (None: never reached, not measured)."""
        return self.total - self.n

    @functools.cached_property
    def mean(self) -> float | None:
        return float(np.mean(self.present)) if self.present else None

    @functools.cached_property
    def sd(self) -> float | None:
        """Sample standard deviation (ddof = 1); 0 for a single value, None for none."""
        if not self.present:
            return None
        return float(np.std(self.present, ddof=1)) if self.n > 1 else 0.0

    @property
    def min(self) -> float | None:
        return min(self.present) if self.present else None

    @property
    def max(self) -> float | None:
        return max(self.present) if self.present else None

    def text(self, fmt: str = ".0%", missing: str = "not reached", with_n: bool = True) -> str:
        """Mean ± sd and n: "93% ± 2% (n = 3)"; "93% (n = 1)"; "93% ± 2% (n = 2; 1 of 3 not reached)";
        "not reached (3 of 3)"; "–" for no runs. ``with_n=False`` (a table with its own n column) leaves out n
        where every run has a value: "93% ± 2%"."""
        if not self.values:
            return "–"
        if not self.present:
            return f"{missing} ({self.total} of {self.total})"
        text = format(self.mean, fmt) + (f" ± {format(self.sd, fmt)}" if self.n > 1 else "")
        if self.missing:
            return f"{text} (n = {self.n}; {self.missing} of {self.total} {missing})"
        return f"{text} (n = {self.n})" if with_n else text


# ----------------------------------------------------------------------------------------------- a verdict
@dataclass(frozen=True)
class Verdict:
    """Whether variant ``a`` is better than ``b`` on ``metric``, and whether the gap is larger than the spread."""

    a: str  # variant keys
    b: str
    a_label: str
    b_label: str
    metric: str
    higher_is_better: bool
    a_spread: Spread
    b_spread: Spread
    outcome: Outcome  # "better" / "worse": a is clearly ahead / behind; "too close": the gap is within the spread
    reason: str  # why, in words: "the gap 3% is within the spread (sd 2% + 2%)"

    @property
    def clear(self) -> bool:
        return self.outcome != "too close"

    @property
    def winner(self) -> str | None:
        """The variant clearly ahead, or None when too close to call."""
        return {"better": self.a, "worse": self.b}.get(self.outcome)

    def sentence(self, fmt: str = ".0%", metric_name: str | None = None, missing: str = "not reached") -> str:
        """The claim as a lesson states it: "A beats B on test exact match: 93% ± 2% (n = 3) against …"."""
        name = metric_name or self.metric
        numbers = f"{self.a_spread.text(fmt, missing)} against {self.b_spread.text(fmt, missing)}"
        if self.outcome == "better":
            return f"{self.a_label} beats {self.b_label} on {name}: {numbers}."
        if self.outcome == "worse":
            return f"{self.a_label} does not beat {self.b_label} on {name}; {self.b_label} is ahead: {numbers}."
        return f"{self.a_label} and {self.b_label} are too close to call on {name}: {numbers}; {self.why(fmt)}."

    def why(self, fmt: str) -> str:
        """Why a comparison is too close to call, its numbers in ``fmt`` (the format of the metric's values)."""
        a, b = self.a_spread, self.b_spread
        if a.total < 2 or b.total < 2 or a.missing or b.missing:
            return self.reason
        gap = abs(a.mean - b.mean)
        if gap == 0:
            return "the means are equal"
        if gap <= a.sd + b.sd:
            return f"the gap {gap:{fmt}} is within the spread over seeds (sd {a.sd:{fmt}} + {b.sd:{fmt}})"
        return self.reason


def by_outcome(verdicts: Mapping[Any, Verdict]) -> dict[Outcome, list]:
    """The keys of ``verdicts`` (a setting -> its verdict, e.g. d_k -> scaled vs unscaled) grouped by outcome, each
    group in the mapping's order: ``{"better": [...], "too close": [...], "worse": [...]}``."""
    groups: dict[Outcome, list] = {"better": [], "too close": [], "worse": []}
    for key, v in verdicts.items():
        groups[v.outcome].append(key)
    return groups


def verdict(
    a: Spread, b: Spread, *, higher_is_better: bool = True, none_is_worst: bool = True, min_gap: float = 0.0
) -> tuple[Outcome, str]:
    """The rule of :meth:`Comparison.compare`, on two spreads: ``(outcome for a, reason)``.

    Clear only with at least two values a side and the means further apart than the two sds together (the drawn
    mean ± sd bands do not overlap) and than ``min_gap``. Runs without a value: with ``none_is_worst`` (steps to a
    level never reached) a side where every run got there is clearly ahead of a side where none did (again with
    two runs a side at least); any other mix of present and missing values is too close to call.
    """
    if a.total < 2 or b.total < 2:
        return "too close", "one seed is an anecdote: it takes at least two a side"
    if a.missing or b.missing:
        if none_is_worst and not a.missing and b.n == 0:
            return "better", "every run of the first has a value and none of the second has"
        if none_is_worst and not b.missing and a.n == 0:
            return "worse", "no run of the first has a value and every run of the second has"
        return "too close", f"{a.missing + b.missing} of {a.total + b.total} runs have no value"
    gap = a.mean - b.mean
    ahead = gap if higher_is_better else -gap
    spread = a.sd + b.sd
    if abs(gap) > spread and abs(gap) > min_gap:
        outcome: Outcome = "better" if ahead > 0 else "worse"
        return outcome, f"the gap {abs(gap):.4g} exceeds the spread (sd {a.sd:.4g} + {b.sd:.4g})"
    if abs(gap) <= min_gap:
        return "too close", f"the gap {abs(gap):.4g} is no more than {min_gap:.4g}"
    return "too close", f"the gap {abs(gap):.4g} is within the spread over seeds (sd {a.sd:.4g} + {b.sd:.4g})"


# --------------------------------------------------------------------------------------------- a comparison
@dataclass(frozen=True)
class Comparison:
    """Variants × seeds → runs: what a lesson measured, how (``meta``), and each variant's display label."""

    variants: tuple[str, ...]  # in the order tables and legends list them (and colours are given)
    runs: tuple[Run, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)  # script, command, date, machine, budget, task, …
    labels: Mapping[str, str] = field(default_factory=dict)  # variant -> what a student reads; default the key

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
        """Is ``a`` better than ``b`` on ``metric``, by more than the spread over seeds? (Rule: :func:`verdict`.)"""
        sa, sb = self.spread(metric, a, where), self.spread(metric, b, where)
        outcome, reason = verdict(
            sa, sb, higher_is_better=higher_is_better, none_is_worst=none_is_worst, min_gap=min_gap
        )
        return Verdict(a, b, self.label(a), self.label(b), metric, higher_is_better, sa, sb, outcome, reason)

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
        """Every report of every run (matching ``where``), long form for :func:`curves_chart`:
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
        sweep), long form for :func:`curves_chart`. Runs without a value are left out: the table counts them."""
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
            return cls.from_dict(data, source=path.name)
        except ValueError as error:
            raise ValueError(f"{error}: run `python {make}` again") from error


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


# ----------------------------------------------------------------------------------------------- the chart
def curves_chart(
    points: Sequence[Mapping[str, Any]],
    *,
    y_title: str,
    x_title: str,
    title: str | None = None,
    height: int = 240,
    log_x: bool = False,
    log_y: bool = False,
    percent: bool = False,
    colors: Mapping[str, str] | None = None,
) -> dict:
    """The course's one chart of curves, a Vega-Lite spec (for ``ui.vega``): per variant, the mean over seeds as a
    solid line, a band of mean ± sd and each seed as a thin faint line; one seed alone is drawn as one solid line,
    without band.

    ``points``: :meth:`Comparison.curve_points` (per report) or :meth:`Comparison.sweep_points` (per setting), or
    rows of the same form: ``{"variant", "seed", "x", "y"}`` with optional ``"label"`` (legend text) and
    ``"order"`` (the variant's place in its comparison: picks its colour from :data:`PALETTE`, so every chart of a
    comparison agrees). ``colors``: variant -> colour, over the palette. Where seeds report at different x
    (seconds), each seed is interpolated onto the union of their x within its own range; ``n`` at each x is the
    number of seeds there (tooltip). ``percent``: y from 0 to 1, as percentages.
    """
    variants: dict[str, dict] = {}
    for i, p in enumerate(points):
        entry = variants.setdefault(
            p["variant"], {"label": str(p.get("label", p["variant"])), "order": p.get("order", i), "seeds": {}}
        )
        entry["seeds"].setdefault(p["seed"], []).append((float(p["x"]), float(p["y"])))
    values: list[dict] = []
    for entry in variants.values():
        values += _aggregate(entry, percent=percent, log_y=log_y)
    spread = any(v["kind"] == "mean" and v["n"] > 1 for v in values)
    spec = json.loads(_curves_template(y_title, x_title, title, height, log_x, log_y, percent, spread))
    spec["data"] = {"values": values}
    ordered = sorted(variants.items(), key=lambda item: item[1]["order"])
    colors = colors or {}
    color = spec["encoding"]["color"]
    color["scale"] = {
        "domain": [e["label"] for _, e in ordered],
        "range": [colors.get(v, PALETTE[int(e["order"]) % len(PALETTE)]) for v, e in ordered],
    }
    if len(ordered) <= 1:
        color["legend"] = None
    else:  # two labels a row where they fit half a narrow column; otherwise one a row, never clipped
        longest = max(len(e["label"]) for _, e in ordered)
        columns = 2 if longest <= LEGEND_TWO_COLUMNS else 1
        color["legend"]["columns"] = columns
        spec["height"] = max(MIN_PLOT_HEIGHT, spec["height"] - LEGEND_ROW * -(-len(ordered) // columns))
    return spec


def _aggregate(entry: dict, *, percent: bool, log_y: bool) -> list[dict]:
    """One variant's rows for the chart: its seeds' points (when there are several) and the mean, sd, n at each x."""
    label, seeds = entry["label"], entry["seeds"]
    lines = {seed: sorted(pts) for seed, pts in seeds.items()}
    rows = []
    if len(lines) == 1:
        (line,) = lines.values()
        return [
            {"kind": "mean", "label": label, "x": x, "mean": y, "sd": 0.0, "lo": y, "hi": y, "n": 1} for x, y in line
        ]
    for seed, line in lines.items():
        rows += [{"kind": "seed", "label": label, "seed": seed, "x": x, "y": y} for x, y in line]
    grid = np.unique([x for line in lines.values() for x, _ in line])
    stack = np.full((len(lines), len(grid)), np.nan)
    for i, line in enumerate(lines.values()):
        xs, ys = np.array([x for x, _ in line]), np.array([y for _, y in line])
        inside = (grid >= xs[0]) & (grid <= xs[-1])
        stack[i, inside] = np.interp(grid[inside], xs, ys)
    n = np.sum(~np.isnan(stack), axis=0)  # every x has at least one seed: the grid is made of their x
    mean = np.nanmean(stack, axis=0)
    sd = np.sqrt(np.nansum((stack - mean) ** 2, axis=0) / np.maximum(n - 1, 1))  # sample sd; 0 where n = 1
    lo, hi = mean - sd, mean + sd
    if percent:
        lo, hi = np.maximum(lo, 0.0), np.minimum(hi, 1.0)
    if log_y:  # a log axis has no room below zero: there the band stops at the lowest seed
        lo = np.where(lo > 0, lo, np.nanmin(stack, axis=0))
    rows += [
        {"kind": "mean", "label": label, "x": x, "mean": m, "sd": d, "lo": a, "hi": b, "n": k}
        for x, m, d, a, b, k in zip(
            grid.tolist(), mean.tolist(), sd.tolist(), lo.tolist(), hi.tolist(), n.tolist(), strict=True
        )
    ]
    return rows


X_AXIS_HEIGHT, TITLE_HEIGHT, LEGEND_ROW = 45, 25, 20  # pixels a curves chart spends besides its plot
MIN_PLOT_HEIGHT = 120  # the plot never gets smaller than this (the y title has to fit beside it)
LEGEND_TWO_COLUMNS = 16  # labels up to this many characters go two a row in the legend


@functools.lru_cache(maxsize=64)
def _curves_template(
    y_title: str, x_title: str, title: str | None, height: int, log_x: bool, log_y: bool, percent: bool, spread: bool
) -> str:
    """:func:`curves_chart`'s spec without its numbers and colours, as JSON: written once per set of options."""
    y_scale = {"domain": [0, 1]} if percent else ({"type": "log"} if log_y else {"zero": True})
    number = ".1%" if percent else ".4~g"

    def y(name: str) -> dict:
        encoding = {"field": name, "type": "quantitative", "title": y_title, "scale": y_scale}
        return encoding | {"axis": {"format": "%"}} if percent else encoding

    label = {"field": "label", "type": "nominal", "title": "variant"}
    x_tip = {"field": "x", "type": "quantitative", "title": x_title}
    mean = {
        "transform": [{"filter": "datum.kind === 'mean'"}],
        "mark": {"type": "line", "strokeWidth": 2.5, "point": {"size": 18, "filled": True}},
        "encoding": {
            "y": y("mean"),
            "tooltip": [label, x_tip, {"field": "mean", "type": "quantitative", "title": y_title, "format": number}],
        },
    }
    layers = [mean]
    if spread:
        mean["encoding"]["tooltip"][-1]["title"] = "mean"
        mean["encoding"]["tooltip"] += [
            {"field": "sd", "type": "quantitative", "format": number},
            {"field": "n", "type": "quantitative", "title": "n (seeds)"},
        ]
        band = {
            "transform": [{"filter": "datum.kind === 'mean' && datum.n > 1"}],
            "mark": {"type": "area", "opacity": 0.18},
            "encoding": {"y": y("lo") | {"stack": None}, "y2": {"field": "hi"}, "tooltip": mean["encoding"]["tooltip"]},
        }
        seeds = {
            "transform": [{"filter": "datum.kind === 'seed'"}],
            "mark": {"type": "line", "strokeWidth": 1, "opacity": 0.35},
            "encoding": {
                "y": y("y"),
                "detail": {"field": "seed", "type": "nominal"},
                "tooltip": [
                    label,
                    {"field": "seed", "type": "nominal"},
                    x_tip,
                    {"field": "y", "type": "quantitative", "title": y_title, "format": number},
                ],
            },
        }
        layers = [band, seeds, mean]
    legend = {"orient": "bottom", "title": None, "labelLimit": 0, "symbolOpacity": 1}  # whole labels, full colour
    x = {"field": "x", "type": "quantitative", "title": x_title, "scale": {"type": "log"} if log_x else {"zero": False}}
    # ``height`` is the whole chart's; Vega-Lite's is the plot's alone. The width fits the column (fit-x) but the
    # height does not shrink to fit: under Streamlit's "fit" a y title longer than a squeezed plot pushed the
    # chart's own title out of view. The legend's rows come off in curves_chart.
    plot = max(MIN_PLOT_HEIGHT, height - X_AXIS_HEIGHT - (TITLE_HEIGHT if title else 0))
    spec = {
        "height": plot,
        "autosize": {"type": "fit-x", "contains": "padding"},
        "encoding": {"x": x, "color": {"field": "label", "type": "nominal", "legend": legend}},
        "layer": layers,
    }
    if title:
        spec["title"] = title
    return json.dumps(spec)
