"""Train the sentencepiece models of the toy-translation tasks: ``assets/spm/{en,fr,it}.model``.

    python -m scripts.train_tokenizers            # (re)write the three models and assets/spm/manifest.json
    python -m scripts.train_tokenizers --check    # train in memory; exit 1 if a shipped model differs

Recipe: the grammar of ``minimodels.tasks.grammar`` writes 10,000 random meanings (seed 0, plus the
lecture's sentences first) in English, French and Italian; one BPE model per language is trained on its
side. The vocabularies (en 500, fr 700, it 700 pieces, specials included) are large enough that nearly
every word of the grammar is a single piece, so heatmaps read word by word, while plural and verb endings
and elisions ("l" "'" "Afrique") still show sentencepiece at work, and a word the grammar never uses falls
apart into smaller pieces. Specials are shared with every tokenizer: pad=0, bos=1, eos=2, unk=3.

Same seed -> byte-identical models: the corpus is generated in a fixed order and passed from memory (so no
file path is recorded in the model), with one thread, no sampling and no shuffling. The bytes can change
with the sentencepiece version, which is recorded in ``manifest.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
from pathlib import Path

import sentencepiece as spm

from minimodels.tasks.translation import SPM_DIR, tokenizer_corpus
from minimodels.tokenizers import BOS_ID, EOS_ID, PAD_ID, UNK_ID

CORPUS_SEED = 0
CORPUS_SENTENCES = 10_000
VOCAB_SIZES = {"en": 500, "fr": 700, "it": 700}
TRAINER_OPTIONS = dict(
    model_type="bpe",
    character_coverage=1.0,  # every character of the corpus is in the vocabulary
    normalization_rule_name="identity",  # NFKC happens in SentencePieceTokenizer; keeps models small
    pad_id=PAD_ID,
    bos_id=BOS_ID,
    eos_id=EOS_ID,
    unk_id=UNK_ID,
    unk_surface="<unk>",  # decode() shows unknown text as <unk>, like pieces()
    num_threads=1,  # determinism
    input_sentence_size=0,  # use every sentence: no sampling
    shuffle_input_sentence=False,
    minloglevel=2,
)
COMMAND = "python -m scripts.train_tokenizers"


def train_model(sentences: list[str], vocab_size: int) -> bytes:
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences), model_writer=out, vocab_size=vocab_size, **TRAINER_OPTIONS
    )
    return out.getvalue()


def train_all(seed: int = CORPUS_SEED, n: int = CORPUS_SENTENCES) -> dict[str, bytes]:
    """The three models' bytes, by language."""
    corpus = tokenizer_corpus(seed, n)
    return {lang: train_model(corpus[lang], size) for lang, size in VOCAB_SIZES.items()}


def manifest(models: dict[str, bytes], seed: int, n: int) -> dict:
    return {
        "command": COMMAND,
        "sentencepiece": spm.__version__,
        "corpus": {"seed": seed, "sentences": n},
        "models": {
            f"{lang}.model": {"vocab_size": VOCAB_SIZES[lang], "sha256": hashlib.sha256(data).hexdigest()}
            for lang, data in models.items()
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SPM_DIR, help="folder for the .model files")
    parser.add_argument("--seed", type=int, default=CORPUS_SEED)
    parser.add_argument("--sentences", type=int, default=CORPUS_SENTENCES)
    parser.add_argument("--check", action="store_true", help="compare with the files in --out, write nothing")
    args = parser.parse_args(argv)

    models = train_all(args.seed, args.sentences)
    if args.check:
        stale = [lang for lang, data in models.items() if (args.out / f"{lang}.model").read_bytes() != data]
        for lang in stale:
            print(f"{args.out / f'{lang}.model'} differs from what the recipe produces", file=sys.stderr)
        print("ok: shipped models match the recipe" if not stale else "rerun without --check to update")
        return 1 if stale else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for lang, data in models.items():
        (args.out / f"{lang}.model").write_bytes(data)
    info = manifest(models, args.seed, args.sentences)
    (args.out / "manifest.json").write_text(json.dumps(info, indent=2) + "\n")
    for name, entry in info["models"].items():
        print(f"{args.out / name}: vocab {entry['vocab_size']}, sha256 {entry['sha256'][:16]}…")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
