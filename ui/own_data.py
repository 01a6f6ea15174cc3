"""Your own data in the UI: the pairs widget (upload, paste, the shipped example sets), the model the student trained
or loaded, kept in their session, and "your model" beside the shipped ones in the lessons' attention views.

Everything a student brings lives in their session (``st.session_state["own_data.*"]``), never in a shared cache
keyed by anything but the data's own fingerprint. Bad input changes nothing: a file the reader refuses, or a model
file the engine refuses, leaves the last good data and model in place and says why on the page.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import time
import weakref
from dataclasses import dataclass, field
from typing import NamedTuple

import streamlit as st

from ui.runs import current_run

log = logging.getLogger(__name__)

DATA = "own_data.data"  # the last pairs read without an error, with their task (:class:`Prepared`)
READ = "own_data.read"  # (what was read last, its error or None): read once per input, not on every rerun
MODELS = "own_data.models"  # architecture -> :class:`OwnModel`, the student's own models
RUNS = "own_data.runs"  # training run -> the task it trains on (weakly: a run dropped from the session goes)
SEEN_RUNS = "own_data.seen_runs"  # finished runs already made the student's model
_order = itertools.count()

# Right-to-left sentences (Arabic, Hebrew) read right to left: each paragraph of text, each text box, takes its
# direction from its first letter (what dir="auto" does), and aligns to its start. Static CSS, no user text in it.
BIDI_CSS = """<style>
[data-testid="stMain"] :is([data-testid="stText"], [data-testid="stTable"] td, input[type="text"], textarea) {
  unicode-bidi: plaintext; text-align: start; }
</style>"""


@dataclass(frozen=True)
class Prepared:
    """Sentence pairs read without an error, and their task (sentencepiece models trained on them)."""

    pairs: object  # minimodels.own_data.PairsFile
    task: object  # minimodels.own_data.PairsTask
    seconds: float  # how long the tokenizers took to train here


@dataclass(eq=False)
class OwnModel:
    """A model the student trained on the "Your own data" page or loaded from a file, with what it reads."""

    model: object  # nn.Module, eval mode; the student's alone
    task: object  # PairsTask: its tokenizers and sentences
    architecture: str  # "gru-additive" | "transformer"
    origin: str  # "trained on this page" | "loaded from <file>", as the model file keeps it
    meta: dict  # facts to show: data name, pairs, steps, exact match
    file: bytes | None = None  # the model file, made when first asked for (or the one uploaded)
    file_name: str = ""  # the name of the file it was loaded from, shown as text (never as markdown)
    order: int = field(default_factory=lambda: next(_order))  # later models win when one is asked for any

    @property
    def label(self) -> str:
        from lessons.own_data import quoted  # here: torch; the home page loads ui, never torch

        return f"yours, on {quoted(self.meta.get('data_name') or 'your data', 30)}"

    @property
    def sample(self) -> str:
        """A sentence of its own data to start a view with: the pair drawn while it trained."""
        probe = self.task.probe or (self.task.valid[0] if self.task.valid else None)
        return probe.source if probe is not None else ""

    @property
    def caption(self) -> str:
        from lessons import own_data  # here: torch; the home page loads ui, never torch

        origin = f"loaded from {own_data.quoted(self.file_name, 80)}" if self.file_name else self.origin
        return f"Your model, {origin}: {own_data.model_sentence(self.meta)}"


# ------------------------------------------------------------------------------------------- the pairs
@st.cache_resource(max_entries=8, show_spinner="Training sentencepiece tokenizers on your pairs…")
def _task(fingerprint: str, name: str, _pairs) -> tuple[object, float]:
    """The pairs' task, its tokenizers trained once per distinct data on this server (the same for everyone who
    brings the same pairs: keyed by their fingerprint). Shared read-only."""
    from minimodels.own_data import PairsTask  # here: torch; the home page loads ui, never torch

    start = time.perf_counter()
    task = PairsTask.from_pairs(_pairs, name=name)
    return task, time.perf_counter() - start


def _read(source, name: str, duplicates: str) -> Prepared:
    """Read and prepare pairs; raises PairsError (a sentence for the student) when they cannot be used."""
    from minimodels.own_data import read_pairs  # here: torch; the home page loads ui, never torch

    pairs = read_pairs(source, name=name, duplicates=duplicates)
    task, seconds = _task(f"{pairs.fingerprint}", pairs.name, pairs)
    return Prepared(pairs, task, seconds)


def pairs_input() -> Prepared | None:
    """The student's sentence pairs: an example set, an uploaded file or pasted text, read once per input.

    A refused input shows the reader's message and changes nothing: the last good pairs stay (returned)."""
    from lessons import own_data  # here: torch; the home page loads ui, never torch
    from minimodels.own_data import LIMITS, PairsError  # here: torch; the home page loads ui, never torch

    st.html(BIDI_CSS)
    sets = own_data.examples()
    ways = (["an example set"] if sets else []) + ["a file", "pasted text"]
    c = st.columns([3, 2])
    way = c[0].radio("Start from", ways, horizontal=True, key="own_data.from")
    duplicates = c[1].radio(
        "Repeated pairs",
        ["keep", "drop"],
        horizontal=True,
        key="own_data.duplicates",
        help="A pair found twice or more: keep every copy, or learn from it once.",
    )
    source = name = signature = None
    if way == "an example set":
        label = st.selectbox("Example set", list(sets), key="own_data.example")
        source, name, signature = sets[label], sets[label].name, ("example", label)
    elif way == "a file":
        upload = st.file_uploader(
            f"A .tsv or .csv file (at most {LIMITS.max_bytes / 1e6:g} MB)",
            type=["tsv", "csv", "txt"],
            key="own_data.upload",
            max_upload_size=own_data.upload_limit_mb(LIMITS),
        )
        if upload is not None:
            signature = ("file", upload.file_id)
            if upload.size > LIMITS.max_bytes:  # said before a byte of it is read
                _remember(
                    signature,
                    duplicates,
                    f"The file is {upload.size / 1e6:.1f} MB; the limit here is "
                    f"{LIMITS.max_bytes / 1e6:g} MB. Use fewer pairs.",
                )
            else:
                source, name = upload, upload.name
    else:
        text = st.text_area(
            "Your pairs, one a line: source, a tab or a comma, target",
            key="own_data.paste",
            height=160,
            max_chars=own_data.PASTE_MAX_CHARS,
            placeholder="I like tea.\tMe gusta el té.",
        )
        if text.strip():
            source, name = text, "pasted text"
            signature = ("paste", hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    if source is not None and st.session_state.get(READ, (None,))[0] != (signature, duplicates):
        try:
            st.session_state[DATA] = _read(source, name, duplicates)
            _remember(signature, duplicates, None)
        except PairsError as error:
            _remember(signature, duplicates, str(error))
    error = st.session_state.get(READ, (None, None))[1]
    data = st.session_state.get(DATA)
    if error and signature is not None and st.session_state[READ][0] == (signature, duplicates):
        kept = f" Still using {own_data.quoted(data.pairs.name)} ({len(data.pairs):,} pairs)." if data else ""
        st.error(f"{error}{kept}", icon=":material/block:")
    return data


def _remember(signature, duplicates: str, error: str | None) -> None:
    st.session_state[READ] = ((signature, duplicates), error)


# ------------------------------------------------------------------------------------------- the models
def track_run(run, task, continues: OwnModel | None = None) -> object:
    """Remember which task a training run of the page trains on (and which model of the student's it continues), so
    its model becomes the student's once over."""
    st.session_state.setdefault(RUNS, weakref.WeakKeyDictionary())[run] = (task, continues)
    return run


def _collect_finished_runs() -> None:
    """A run of the page that is over (finished or stopped, with at least one report) becomes the student's model
    of its architecture, once; a model loaded or trained later replaces it."""
    from lessons import own_data  # here: torch; the home page loads ui, never torch

    seen = st.session_state.setdefault(SEEN_RUNS, weakref.WeakSet())
    tasks = st.session_state.get(RUNS, {})
    for architecture in own_data.ARCHITECTURES:
        run = current_run(f"own_data.train.{architecture}")
        if run is None or run.active or not run.snapshots or run in seen or run not in tasks:
            continue
        seen.add(run)
        (task, before), last = tasks[run], run.snapshots[-1]
        run.model.eval()
        curve = own_data.curve(run.snapshots, after=before.meta.get("curve") if before is not None else None)
        meta = {
            "architecture": architecture,
            "data_name": task.source_name or task.name,
            "pairs": task.pairs_count,
            "steps": curve[-1]["step"],
            "exact_match": last.exact_match,
            "curve": curve,
        }
        _keep(OwnModel(run.model, task, architecture, "trained on this page", meta))


def _keep(mine: OwnModel) -> None:
    st.session_state.setdefault(MODELS, {})[mine.architecture] = mine


def own_model(architecture: str | None = None) -> OwnModel | None:
    """The student's own model of ``architecture`` (the latest of any when None), trained or loaded this session."""
    _collect_finished_runs()
    models = st.session_state.get(MODELS, {})
    if architecture is not None:
        return models.get(architecture)
    return max(models.values(), key=lambda m: m.order, default=None)


def model_file(architecture: str | None = None) -> tuple[str, bytes] | None:
    """``(file name, bytes)`` of the student's own model (the latest when ``architecture`` is None), or None.

    The one place the model file is made: the download button here, and a class store that shares a teacher's
    model, call it."""
    from minimodels.own_data import artifact_filename, save_model  # here: torch; the home page loads ui, never torch

    mine = own_model(architecture)
    if mine is None:
        return None
    if mine.file is None:
        mine.file = save_model(mine.model, mine.task, curve=mine.meta.get("curve", ()), extra={"origin": mine.origin})
    return artifact_filename(mine.architecture, getattr(mine.task, "fingerprint", "")), mine.file


def load_model_file(data: bytes, name: str) -> OwnModel:
    """Load a model file as the student's own model of its architecture; raises ArtifactError (a sentence for the
    student) and changes nothing when the file is refused. The file is checked whole by the engine before anything
    is built; the model replaces the student's only once everything shown about it is made."""
    from lessons import own_data  # here: torch; the home page loads ui, never torch
    from minimodels.own_data import load_model  # here: torch; the home page loads ui, never torch

    model, task, meta = load_model(data)
    architecture = meta["model_name"]
    if architecture not in own_data.ARCHITECTURES:
        from minimodels.own_data import ArtifactError  # here: torch; the home page loads ui, never torch

        raise ArtifactError(
            f"This file holds a {architecture} model; the lessons here draw only "
            f"{' and '.join(own_data.ARCHITECTURES.values())} models."
        )
    curve = meta.get("curve") or []
    facts = {
        "architecture": architecture,
        "data_name": (meta.get("data") or {}).get("name") or task.name,
        "pairs": sum((meta.get("data") or {}).get(k, 0) for k in ("train_pairs", "held_out_pairs")),
        "steps": curve[-1]["step"] if curve else None,
        "exact_match": curve[-1].get("exact_match") if curve else None,
        "curve": curve,
        "saved": meta.get("saved"),
    }
    name = str(name)
    own_data.model_sentence(facts)  # described first: a model that cannot be described never replaces the student's
    mine = OwnModel(model, task, architecture, f"loaded from {name}", facts, file=bytes(data), file_name=name)
    _keep(mine)
    return mine


REFUSED_ANYWAY = "This model file could not be loaded: it is not one this course can read."


def try_model_file(data: bytes, name: str) -> tuple[OwnModel | None, str | None]:
    """``(model, None)`` when the file loads as the student's own model, ``(None, a sentence)`` when it is refused;
    anything the engine did not foresee is logged and refused the same way, so a file never breaks the page."""
    from minimodels.own_data import ArtifactError  # here: torch; the home page loads ui, never torch

    try:
        return load_model_file(data, name), None
    except ArtifactError as refused:
        return None, str(refused)
    except Exception:  # noqa: BLE001 - a file is the student's input: a sentence for them, the details in the log
        log.warning("a model file could not be loaded", exc_info=True)
        return None, REFUSED_ANYWAY


# ------------------------------------------------------------------------------------- in the lessons' views
class ModelData(NamedTuple):
    """What a lesson's view reads with the chosen model: its task, a name for the view's widget keys, a sentence to
    start with, and a caption (None for the lesson's own models)."""

    task: object
    name: str
    text: str
    caption: str | None


def _owner(model) -> OwnModel | None:
    return next((m for m in st.session_state.get(MODELS, {}).values() if m.model is model), None)


def model_data(model, task, name: str, text: str) -> ModelData:
    """``task``, ``name`` and ``text`` as they are for the lesson's own models; for the student's own model (offered
    by ``ui.model_choice(..., own_data=...)``), its task, a key name of its own and a sentence of its data."""
    mine = _owner(model)
    if mine is None:
        return ModelData(task, name, text, None)
    st.html(BIDI_CSS)
    return ModelData(mine.task, f"own_data_{getattr(mine.task, 'fingerprint', '')[:8]}", mine.sample, mine.caption)


LOADED = "own_data.loaded"  # (file id, its error or None, the caption): a model file is read once, not every rerun


def model_upload() -> None:
    """Upload a model file kept earlier (here or on another machine): it becomes the student's model of its
    architecture. A refused file (another architecture, a newer format, damaged, not a model) is said plainly and
    changes nothing."""
    from lessons import own_data  # here: torch; the home page loads ui, never torch

    upload = st.file_uploader(
        "Load a model file you kept (.safetensors)",
        type=["safetensors"],
        key="own_data.model_upload",
        max_upload_size=own_data.upload_limit_mb(),
        help="Loading reads numbers and text only; it runs nothing.",
    )
    if upload is None:
        return
    if st.session_state.get(LOADED, (None,))[0] != upload.file_id:
        if upload.size > own_data.LIMITS.max_bytes:
            error = f"The file is {upload.size / 1e6:.1f} MB: larger than any model this page makes."
            loaded = None
        else:
            loaded, error = try_model_file(upload.getvalue(), upload.name)
        st.session_state[LOADED] = (upload.file_id, error, loaded.caption if loaded else None)
        if loaded is not None:
            st.rerun()  # the sections above draw the loaded model
    _, error, caption = st.session_state[LOADED]
    if error:
        st.error(f"{error} Nothing was changed.", icon=":material/block:")
    else:
        st.success(caption, icon=":material/check_circle:")
