"""Section 4: which head resolves "it"? The lecture's *The animal didn't cross the street because it was too
tired*.

A resolver trained on a small grammar translates "it" as il or elle by its referent; the student types a sentence of
its words and sees every head's weights from "it" (:func:`read_it`), the shipped model's heads measured on the test
split, and the comparison of 1 and 2 layers (:mod:`lessons.multi_head_attention.resolving_it_runs`). Layer 1's query
is made from "it" and its position alone, so only a later layer can move between the nouns: the prediction
(:func:`it_switch_prediction`) and the computation by hand (:func:`it_by_hand`) both rest on that.

Letters: T words, h heads.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.common.charts import attention_heatmap
from lessons.common.exercises import Exercise
from lessons.multi_head_attention import it_instead
from lessons.multi_head_attention.resolving_it_runs import (
    FLIPS,
    IT_CHECKPOINT,
    IT_HEADS,
    IT_SCRIPT,
    LARGEST,
    PREFERS,
    head_measures,
)
from minimodels.coreference import ItConfig, ItResolver
from minimodels.coreference import load as load_resolver
from minimodels.tasks import coreference

TITLE = "4 · Which head resolves “it”?"
TEXT = (
    "The lecture asks of *The animal didn't cross the street because **it** was too tired*: animal? street? End "
    "it with *…too wide* and “it” is the street. A model that translates into French must decide: *il* (l'animal) "
    "or *elle* (la rue). The model here learned exactly that on a small grammar (10 creatures, 10 places, 12 "
    "adjectives, 5 word orders; every noun has its French gender): it reads the sentence with "
    f"{IT_HEADS}-head self-attention layers (embeddings and sinusoidal positions, nothing else), and a last "
    "linear layer reads the vector at “it” and says il or elle. Type a sentence of its words and see each head's "
    "weights from “it”. In layer 1 the query of “it” is made from “it” and its position only, so it cannot depend "
    "on the adjective; but the keys and values are the words, the adjective among them, so a layer-1 head can put its "
    "weight on the adjective and bring it to “it”. Layer 2's query is what layer 1 wrote at “it”, and its keys and "
    "values are the words again."
)
IT_DEFAULT = "the animal didn't cross the street because it was too tired"
IT_MAX_CHARS = 300


@dataclass(frozen=True)
class ParsedIt:
    """The student's sentence as the grammar's words, or the reason it cannot be read (``error``)."""

    tokens: tuple[str, ...] = ()
    error: str | None = None


def _shown(word: str) -> str:
    """A word the student typed, quoted for a message: no backticks, control characters or length to break it."""
    cleaned = "".join(ch if ch.isprintable() and ch != "`" else "�" for ch in word)
    return f"`{cleaned[:20]}{'…' * (len(cleaned) > 20)}`"


def parse_it(text: str) -> ParsedIt:
    """Lower-cased words of the grammar's vocabulary, one "it", at most ``max_len`` of them; a message otherwise."""
    if not isinstance(text, str) or not text.strip():
        return ParsedIt(error="Type a sentence, e.g. “" + IT_DEFAULT + "”.")
    if len(text) > IT_MAX_CHARS:
        return ParsedIt(error=f"That is {len(text):,} characters; this model reads at most {IT_MAX_CHARS}.")
    words = text.lower().replace("’", "'").replace(".", " ").replace(",", " ").split()
    if len(words) > ItConfig().max_len:
        return ParsedIt(error=f"That is {len(words)} words; the model was built for at most {ItConfig().max_len}.")
    unknown = list(dict.fromkeys(w for w in words if w not in coreference.INDEX or w == coreference.PAD))
    if unknown:
        shown = ", ".join(_shown(w) for w in unknown[:5]) + (
            f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        )
        return ParsedIt(error=f"The model knows only its grammar's words, not {shown}. {IT_WORDS_NOTE}")
    if words.count(coreference.IT) != 1:
        return ParsedIt(error=f"The sentence needs exactly one “it” (it has {words.count(coreference.IT)}).")
    return ParsedIt(tuple(words))


IT_WORDS_NOTE = (
    f"Creatures: {', '.join(coreference.CREATURES)}. Places: {', '.join(coreference.PLACES)}. Their adjectives: "
    f"{', '.join(coreference.CREATURE_ADJECTIVES)} / {', '.join(coreference.PLACE_ADJECTIVES)}. Other words: "
    f"{', '.join(coreference.FUNCTION_WORDS)}."
)


def referent_of(tokens: Sequence[str]) -> tuple[int, int] | None:
    """``(referent, other)`` positions by the grammar's rule (one creature, one place, one adjective after "it":
    the noun of the adjective's kind), or None when the rule names none."""
    creatures = [i for i, w in enumerate(tokens) if w in coreference.CREATURES]
    places = [i for i, w in enumerate(tokens) if w in coreference.PLACES]
    it = tokens.index(coreference.IT)
    adjectives = [w for w in tokens[it:] if w in coreference.SWAPS]
    if len(creatures) != 1 or len(places) != 1 or len(adjectives) != 1:
        return None
    c, p = creatures[0], places[0]
    return (c, p) if adjectives[0] in coreference.CREATURE_ADJECTIVES else (p, c)


@dataclass(frozen=True)
class ItReading:
    """One sentence through the resolver: every head's weights from "it", and its answer."""

    tokens: tuple[str, ...]
    it: int
    weights: dict[str, np.ndarray]  # "layer 1" -> (h, T) each head's weights from "it"
    p_elle: float  # the model's probability that "it" is "elle"
    referent: tuple[int, int] | None  # (referent, other) by the grammar's rule

    @property
    def answer(self) -> str:
        return coreference.PRONOUNS[int(self.p_elle > 0.5)]


@torch.inference_mode()
def read_it(model: ItResolver, tokens: Sequence[str]) -> ItReading:
    """The resolver on one parsed sentence (:func:`parse_it`)."""
    ids = torch.tensor([[coreference.INDEX[w] for w in tokens]])  # (1, T)
    it = tokens.index(coreference.IT)
    out = model(ids, torch.tensor([len(tokens)]), torch.tensor([it]))
    weights = {name: w[0, :, it].numpy() for name, w in out.attention.items()}  # (h, T) each
    p = float(torch.softmax(out.logits[0], -1)[1])
    return ItReading(tuple(tokens), it, weights, p, referent_of(tuple(tokens)))


def it_answer(reading: ItReading) -> str:
    """What the model says, and whether the grammar agrees, in one markdown line."""
    p = max(reading.p_elle, 1 - reading.p_elle)
    text = f"The model translates “it” as **{reading.answer}** (probability {p:.0%})."
    if reading.referent is None:
        return text + " This sentence has no referent by the grammar's rule (one creature, one place, one adjective)."
    noun = reading.tokens[reading.referent[0]]
    right = coreference.PRONOUNS[int(coreference.GENDERS[noun] == "f")]
    verdict = "right" if right == reading.answer else "wrong"
    return text + f" By the grammar, “it” is the **{noun}** ({right}): the model is {verdict}."


def it_figure(reading: ItReading) -> go.Figure:
    """Every head's weights from "it" (one row per layer and head, one column per word), the referent's column
    outlined."""
    rows = [
        (f"layer {name.split()[-1]} · head {j + 1}", w)
        for name, ws in reading.weights.items()
        for j, w in enumerate(ws)
    ]
    labels = [f"{t} ({i})" if reading.tokens.count(t) > 1 else t for i, t in enumerate(reading.tokens)]
    fig = attention_heatmap(
        np.stack([w for _, w in rows]),
        labels,
        [r for r, _ in rows],
        value_name="α from “it”",
        x_title="word (attended to by “it”)",
        y_title="",
        height=120 + 30 * len(rows),
    )
    if reading.referent is not None:
        r = reading.referent[0]
        fig.add_shape(
            type="rect", x0=r - 0.5, x1=r + 0.5, y0=-0.5, y1=len(rows) - 0.5, line={"color": "#d62728", "width": 3}
        )
    return fig


IT_FIGURE_CAPTION = (
    "Each row: one head's weights from “it” over your sentence (they sum to 1); red outline: the noun “it” means "
    "by the grammar. Layer 1's queries are made from “it” and its position alone (its keys from the words, the "
    "adjective too); layer 2's from what layer 1 wrote at “it”, its keys and values from the words."
)


def load_it_model(path: Path | str | None = None) -> tuple[ItResolver, dict]:
    """The shipped resolver and its record; ``OSError``/``ValueError`` name the script that makes it."""
    try:
        return load_resolver(path or IT_CHECKPOINT)
    except (OSError, KeyError) as error:
        raise OSError(f"{error}. Make it with `python {IT_SCRIPT}`.") from error


@functools.cache
def shipped_resolver() -> tuple[ItResolver, dict]:
    """:func:`load_it_model` once per process: every student reads the same model (eval mode; never train it)."""
    return load_it_model()


def shipped_reading_it(tokens: tuple[str, ...]) -> ItReading:
    """:func:`read_it` by the shipped resolver (what the page caches for every student)."""
    return read_it(shipped_resolver()[0], tokens)


SWITCH_CHOICES = (
    "some head of layer 1, none of layer 2",
    "some head of layer 2, none of layer 1",
    "heads of both layers",
    "no head of either layer",
)


NOTABLE = 0.05  # a head prefers a noun in the switch only when it gives that noun at least this weight from "it"


def _nouns(reading: ItReading, layer: str, head: int) -> tuple[float, float]:
    """``(α on the referent, α on the other noun)`` of one head of ``layer`` from "it"."""
    ref, other = reading.referent
    return float(reading.weights[layer][head, ref]), float(reading.weights[layer][head, other])


def it_switch_prediction(model: ItResolver) -> Exercise:
    """Predict, before switching the default sentence's ending to its partner (tired -> wide): which heads will move
    from preferring one noun to preferring the other? The answer is the model's, head by head."""
    before = read_it(model, tuple(IT_DEFAULT.split()))
    after = read_it(model, coreference.swapped(coreference.sentence(0, "animal", "street", before.tokens[-1])).tokens)
    noun, other = (before.tokens[i] for i in before.referent)
    moved, lines = {}, []
    for layer in before.weights:
        for j in range(model.config.n_heads):
            (a0, o0), (o1, a1) = _nouns(before, layer, j), _nouns(after, layer, j)  # after: the other noun is referent
            moved[layer, j] = a0 > o0 and a0 >= NOTABLE and o1 > a1 and o1 >= NOTABLE
            tiny = not moved[layer, j] and a0 > o0 and o1 > a1  # the order flips, on weights of almost nothing
            lines.append(
                f"{layer} head {j + 1}: {noun} {a0:.3g} / {other} {o0:.3g} → {a1:.3g} / {o1:.3g}"
                + (" (moved)" if moved[layer, j] else f" (order flips below {NOTABLE:.0%}: not counted)" * tiny)
            )
    first = any(v for (layer, _), v in moved.items() if layer == "layer 1")
    later = any(v for (layer, _), v in moved.items() if layer != "layer 1")
    answer = {(True, False): 0, (False, True): 1, (True, True): 2, (False, False): 3}[first, later]
    why = {
        1: "A layer-2 query is what layer 1 wrote at “it”, the adjective included, so a layer-2 head can look for "
        "the other noun; layer 1's cannot.",
        3: "Layer 1 cannot; layer 2 could (its query has read the adjective through layer 1), but on this sentence "
        "none of its heads does: the model resolves “it” without a head moving between the nouns here. Below the "
        "table, what its heads weigh instead, measured.",
    }.get(answer, "Layer 1 moved, which its equations forbid: check the model.")
    return Exercise(
        key="multi_head_attention.ex5",
        prompt=f"**Predict before you change the ending.** Section 4's first sentence ends “{before.tokens[-1]}”: “it” "
        f"is the {noun}. Change it to “{after.tokens[-1]}”, so that “it” means the {other}. Which heads will move from "
        f"giving “{noun}” more weight from “it” than “{other}” to giving “{other}” more (counting a head only when "
        f"the noun it prefers gets at least {NOTABLE:.0%} of its weight, before and after)?",
        choices=SWITCH_CHOICES,
        answer=answer,
        explanation="Run by the shipped model, α from “it” on the two nouns before → after the change: "
        + "; ".join(lines)
        + f". Every layer-1 head keeps its ratio α({noun}) / α({other}): its query is made from “it” and its position "
        "alone, and neither noun's key changes. " + why,
        hint="Where does each layer's query come from, and what has it read by then?",
    )


@functools.cache
def shipped_instead() -> tuple[list[dict], list[str]]:
    """The shipped resolver set beside the lecture's picture (:mod:`lessons.multi_head_attention.it_instead`): the
    per-head table of where its weight from "it" goes on the test split, and the sentences computed from it and from
    the lecture's sentence; once per process, the same for every student."""
    measures = it_instead.weight_by_kind(shipped_resolver()[0], coreference.it_task().split("test"))
    default = shipped_reading_it(tuple(IT_DEFAULT.split()))
    referent = None if default.referent is None else default.referent[0]
    return it_instead.instead_rows(measures), it_instead.instead_lines(
        measures, default.weights, default.tokens, referent
    )


def shipped_switch_prediction() -> Exercise:
    """:func:`it_switch_prediction` on the shipped resolver (what the page caches)."""
    return it_switch_prediction(shipped_resolver()[0])


@functools.cache
def shipped_head_rows() -> list[dict]:
    """The shipped resolver's heads measured on the test split (:func:`head_measures`), one row each; once per
    process (~50 ms), the same for every student."""
    return head_measure_rows(head_measures(shipped_resolver()[0], coreference.it_task().split("test")))


def it_shipped_note(info: Mapping) -> str:
    """The caption under the shipped model's per-head table: which run it is and how it was chosen."""
    run = info.get("info", {})
    return (
        f"Per head of the shipped {IT_HEADS}-head model (seed {run.get('seed', '?')}, {run.get('steps', '?')} steps; "
        f"{run.get('test_accuracy', 0):.1%} il/elle right on the test sentences whose nouns differ in gender), on "
        "the 600 test sentences and each one's twin with the other ending. Of the seeds measured below, it is the "
        "median by its best last-layer head: a typical model, not the luckiest. Head numbers are this model's own: "
        "another seed's head 1 is a different head. “Prefers” counts any difference, however small (1e-5 against "
        "1e-8 counts): read how much weight the heads put where in the table below."
    )


def head_measure_rows(measures: Mapping[str, Mapping[str, Sequence[float]]]) -> list[dict]:
    """One row per head of the shipped model: :func:`head_measures`' three rates."""
    return [
        {"layer · head": f"{name} · head {j + 1}", **{m: f"{values[m][j]:.0%}" for m in (PREFERS, LARGEST, FLIPS)}}
        for name, values in measures.items()
        for j in range(len(values[PREFERS]))
    ]


# The computation by hand of the check-yourself section (the page's tail).
IT_HAND_SENTENCE = coreference.sentence(2, "hen", "tunnel", "sleepy")  # not the page's default: worked by hand


def it_by_hand(model: ItResolver) -> Exercise:
    """Compute by hand: a layer-1 head's weight on one noun after the ending changes, from the ratio that cannot
    change. Numbers from the shipped model on a sentence the page does not show; the answer from them."""
    s, t = IT_HAND_SENTENCE, coreference.swapped(IT_HAND_SENTENCE)
    before, after = read_it(model, s.tokens), read_it(model, t.tokens)
    c, p = s.creature, s.place
    head = int(np.argmax(before.weights["layer 1"][:, [c, p]].min(-1)))  # the head that reads both nouns most
    a, b = (round(float(before.weights["layer 1"][head, i]), 4) for i in (c, p))
    a2, b2 = round(float(after.weights["layer 1"][head, c]), 4), float(after.weights["layer 1"][head, p])
    answer = round(b * a2 / a, 4)
    creature, place = s.tokens[c], s.tokens[p]
    return Exercise(
        key="multi_head_attention.ex6",
        prompt=f"“{' '.join(s.tokens)}”: in the shipped model, head {head + 1} of layer 1 gives “{creature}” "
        f"α = {a} and “{place}” α = {b} from “it”. End the sentence with “{t.tokens[-1]}” instead: its weight on "
        f"“{creature}” becomes {a2}. What is its weight on “{place}” now (3 decimals)?",
        answer=answer,
        tolerance=0.002,
        explanation=f"A layer-1 query is made from “it” and its position only, and the two nouns' keys do not "
        f"change, so α({place}) / α({creature}) = e^((q·k_{place} − q·k_{creature}) / √d_k) stays {b} / {a} = "
        f"{b / a:.4f}. Only the total they share changes (the adjective's key is new). So α({place}) = {a2} × "
        f"{b / a:.4f} = {answer:.4f}; the model computes {b2:.4f}.",
        hint="Which of the scores q·k changes when only the last word changes?",
    )


@functools.cache
def shipped_it_by_hand() -> Exercise:
    """:func:`it_by_hand` of the shipped resolver, once per process rather than two forward passes on every page
    run. Raises what loading the resolver raises."""
    return it_by_hand(shipped_resolver()[0])
