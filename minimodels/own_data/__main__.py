"""``python -m minimodels.own_data``: write the shipped example sets (``assets/own_data/*.tsv``) from their rules."""

from .examples import write_examples
from .pairs import read_pairs

if __name__ == "__main__":
    for path in write_examples():
        print(f"{path}: {len(read_pairs(path))} pairs")
