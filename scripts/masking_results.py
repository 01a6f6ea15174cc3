"""Measure the two shipped dates Transformers of the masking lesson: ``assets/results/masking.json``.

    python scripts/masking_results.py [--split test] [--limit N]

``dates-transformer`` (decoder with the causal mask) and ``dates-transformer-no-causal`` (the "cheating
decoder", trained without it) are each measured twice on the same sentences (``lessons.masking.measure``):
fed the gold prefix (teacher forcing, what training optimises) and fed their own previous output (greedy
decoding, what using the model means), as token accuracy and as exact match of whole dates. Accuracies do not
depend on the machine's speed; the command, date and torch version are written with them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons import masking  # noqa: E402
from minimodels.checkpoints import PRETRAINED  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--split", default="test", choices=["valid", "test"])
    p.add_argument("--limit", type=int, default=None, help="only the split's first N sentences")
    p.add_argument("--out", default=str(masking.RESULTS))
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    data = masking.measure_shipped(args.split, args.limit)
    for name, row in data["models"].items():
        row.update({k: round(v, 4) for k, v in row.items() if isinstance(v, float)})
        row["train_command"] = "python -m minimodels.train " + " ".join(PRETRAINED[name])
    data["meta"] = {
        "command": " ".join(["python scripts/masking_results.py", *(sys.argv[1:] if argv is None else argv)]),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "torch": torch.__version__,
        "task": masking.TASK,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    masking.load_results(out)  # what was written reads back
    print(json.dumps(data, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
