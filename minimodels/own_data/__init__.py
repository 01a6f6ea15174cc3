"""Your own sentences, your own model: a teacher's parallel text, trained on with the course's engine, kept as one file.

The whole path, no streamlit here::

    pf = read_pairs(upload, name="words.tsv", duplicates="keep")   # PairsError: a sentence for the student
    pf.summary(), pf.skipped, pf.duplicates                         # what was read, before anything trains
    task = PairsTask.from_pairs(pf)                                 # sentencepiece trained here; 10% held out
    model = build_model("gru-additive", task)                       # minimodels.train, as for generated tasks
    result = train(model, task, own_data_train_config("gru-additive"), on_progress)
    data = save_model(model, task, curve=result.history, config=config)   # bytes of one .safetensors file
    model, task, meta = load_model(data)                            # ArtifactError: a sentence for the student

- :mod:`.limits`: :data:`LIMITS`, what a pairs file and a model file may hold, stated in one place;
- :mod:`.pairs`: :func:`read_pairs`, :class:`PairsFile`, :class:`PairsError`;
- :mod:`.tokenize`: :func:`train_tokenizers` (in-process sentencepiece, from memory);
- :mod:`.task`: :class:`PairsTask`, a :class:`~minimodels.tasks.Task` of the pairs with a held-out split;
- :mod:`.artifact`: :func:`save_model`, :func:`load_model`, :class:`ArtifactError`;
- :mod:`.record`: a model file's header and record checked whole, and what the model would cost, before it is built;
- :mod:`.recipes`: the models' sizes and training recipes measured on such data (``bench/own_data.py``);
- :mod:`.examples`: the shipped example sets (``assets/own_data/``) and the benchmark's generated language.
"""

from __future__ import annotations

from .artifact import ArtifactError, artifact_filename, load_model, model_name_of, read_meta, save_model
from .examples import EXAMPLE_SETS, example_path, read_example
from .limits import LIMITS, Limits
from .pairs import PairsError, PairsFile, read_pairs, write_pairs
from .recipes import OWN_DATA_MODELS, build_own_model, own_data_train_config
from .task import HOLDOUT, PairsTask, split_pairs
from .tokenize import train_tokenizer, train_tokenizers

__all__ = [
    "LIMITS",
    "Limits",
    "PairsError",
    "PairsFile",
    "read_pairs",
    "write_pairs",
    "train_tokenizer",
    "train_tokenizers",
    "HOLDOUT",
    "PairsTask",
    "split_pairs",
    "OWN_DATA_MODELS",
    "build_own_model",
    "own_data_train_config",
    "ArtifactError",
    "save_model",
    "load_model",
    "read_meta",
    "model_name_of",
    "artifact_filename",
    "EXAMPLE_SETS",
    "example_path",
    "read_example",
]
