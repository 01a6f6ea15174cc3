"""Join the seeds of one results script, run in several processes, into one results file.

    python -m scripts.join_seeds --out assets/results/attention_bridge_long_run.json seeds-0-2.json seeds-3-4.json

On 2 cores one process per core halves the wall time of a five-seed rerun, and seeds added later need not rerun
the ones a file has; each process writes its own file. The files must come from the same script with the same
settings on the same machine (everything in ``meta`` but the command, seeds, date, seconds and load equal), hold the
same variants and labels, and share no seed. The joined file has every run, its ``seeds`` the union, and its
``command`` every process's command, so the file says how it was made; ``joined`` keeps each process's own record
(command, date, seconds, load before and after). ``seconds`` is the processes' seconds added: what the file cost,
whether they ran side by side or one after another.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common.comparison import Comparison  # noqa: E402

OWN = ("command", "date", "seeds", "seconds", "load_1min_before", "load_1min_after")  # each process's own record
SCRIPT = "scripts/join_seeds.py"


def join(parts: list[Comparison]) -> Comparison:
    """One comparison with every part's runs; ``ValueError`` saying why when the parts are not one experiment."""
    if len(parts) < 2:
        raise ValueError("give two files or more to join")
    first = parts[0]
    settings = {k: v for k, v in first.meta.items() if k not in OWN}
    seen: set[int] = set()
    for i, part in enumerate(parts):
        if part.variants != first.variants or dict(part.labels) != dict(first.labels):
            raise ValueError(f"file {i + 1} has other variants or labels than file 1")
        other = {k: v for k, v in part.meta.items() if k not in OWN}
        if other != settings:
            differ = sorted(k for k in settings.keys() | other.keys() if settings.get(k) != other.get(k))
            raise ValueError(f"file {i + 1} was made with other settings than file 1: {', '.join(differ)}")
        shared = seen & set(part.seeds)
        if shared:
            raise ValueError(f"seed {min(shared)} is in more than one file")
        seen |= set(part.seeds)
    order = {v: i for i, v in enumerate(first.variants)}
    runs = sorted((r for p in parts for r in p.runs), key=lambda r: (order[r.variant], r.seed))
    meta = dict(first.meta)
    meta.update(
        seeds=sorted(seen),
        command="; ".join(p.meta.get("command", "?") for p in parts) + f" (their seeds joined by {SCRIPT})",
        seconds=round(sum(float(p.meta.get("seconds") or 0.0) for p in parts), 1),
        joined=[{k: p.meta[k] for k in OWN if k in p.meta} for p in parts],
    )
    return Comparison(first.variants, tuple(runs), meta, first.labels)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("parts", nargs="+", help="the results files of the processes, each with its own seeds")
    parser.add_argument("--out", required=True, help="where to write the joined file")
    args = parser.parse_args(argv)
    try:
        joined = join([Comparison.load(p) for p in args.parts])
    except (ValueError, FileNotFoundError) as error:
        print(f"not joined: {error}", file=sys.stderr)
        return 1
    joined.save(args.out)
    print(f"wrote {args.out}: seeds {', '.join(map(str, joined.seeds))}, {len(joined.runs)} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
