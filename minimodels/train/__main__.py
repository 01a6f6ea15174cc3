"""``python -m minimodels.train``: the command line of :mod:`minimodels.train.cli`."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
