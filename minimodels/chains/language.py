r"""The layer-chain language of Sockeye's "How much attention do you need?" (Domhan, ACL 2018), parsed safely.

The paper writes an encoder or a decoder as a chain of layers, each reading the previous one's output::

    pos->repeat(6,res_nd(mh_dot_self_att)->res_nd(ff))->norm      a Transformer encoder
    repeat(6,birnn)                                               an RNN encoder

Grammar (whitespace is free between tokens)::

    chain   := element (ARROW element)*                 ARROW: "->", "→", or "!" (the poster's PDF text)
    element := "repeat" "(" INT "," chain ")"            n independent copies of the chain, one after another
             | STRUCTURE "(" chain ")"                   res, res_d, res_nd, highway (see STRUCTURES)
             | PARALLEL "(" chain ("|" chain)+ ")"       parallel, parallel_add: branches side by side
             | NAME [ "(" [KEY "="] VALUE ")" ]          one layer of LAYERS; ff(256), cnn(5), mh_dot_att(heads=2)

Names may be written the poster's way, with spaces for underscores (``res nd(mh dot self att)``), or by an
alias from :data:`ALIASES` (Sockeye's ``mh_dot_att``, ``ε`` for ``id``). :data:`LAYERS` and :data:`STRUCTURES`
are the one registry of the language: the parser, the model and the page's reference table all read them.

Text from a student is data, never code: a hand-written tokenizer and recursive-descent parser, no ``eval``.
Everything a class server could be made to build is capped *before* anything is built: the text's length
first, then the nesting depth (checked before each recursion, so 1,000 nested brackets give a
:class:`ChainError`, not a ``RecursionError``), the repeat count, the number of layers once repeats are
unrolled (counted by multiplication, never by unrolling), and later the parameters (``model.py``).
Every error names the place in the text and what was expected there: ``expected ')' at column 17``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

__all__ = [
    "SIDES",
    "LayerSpec",
    "LAYERS",
    "STRUCTURES",
    "ALIASES",
    "OPTIONS",
    "Limits",
    "LIMITS",
    "ChainError",
    "Layer",
    "Repeat",
    "Residual",
    "Highway",
    "Parallel",
    "Chain",
    "canonical",
    "parse_chain",
    "format_chain",
    "count_layers",
    "walk",
]

SIDES = ("encoder", "decoder")


@dataclass(frozen=True)
class LayerSpec:
    """One layer of the language: what it does, the one option it takes, and where it may stand."""

    what: str  # one line for the reference table
    option: str | None = None  # the keyword of its one option (a key of OPTIONS), or None: it takes none
    sides: tuple[str, ...] = SIDES  # the chains it is allowed in
    why_only: str = ""  # when it is allowed on one side only: why


# the options a layer may take: keyword -> (description, low, high) for whole numbers, or (description, choices)
OPTIONS: dict[str, tuple] = {
    "heads": ("number of heads", 1, 16),
    "kernel_width": ("kernel width", 1, 9),
    "num_hidden": ("hidden width", 1, 4096),
    "act_type": ("activation", ("relu", "tanh", "sigmoid", "gelu")),
}
_SOURCE = "it attends to the encoder's output"
LAYERS: dict[str, LayerSpec] = {
    "pos": LayerSpec("add fixed sinusoidal positional embeddings (Vaswani et al. §3.5)"),
    "learn_pos": LayerSpec("add a learned embedding per position"),
    "norm": LayerSpec("layer normalisation (each position on its own)"),
    "bnorm": LayerSpec(
        "batch normalisation (statistics over the batch's real positions)",
        None,
        ("encoder",),
        "its statistics mix every position of the batch, so a decoder's token would see later ones",
    ),
    "dropout": LayerSpec("dropout at the model's rate; off at evaluation"),
    "ff": LayerSpec("feed-forward: max(0, xW₁ + b₁)W₂ + b₂; ff(n): hidden width n", "num_hidden"),
    "linear": LayerSpec("a linear map xW + b, d → d"),
    "act": LayerSpec("an activation, position-wise; act(tanh): which one (relu by default)", "act_type"),
    "id": LayerSpec("the identity: passes its input on"),
    "rnn": LayerSpec("a unidirectional recurrent layer (GRU or LSTM)"),
    "birnn": LayerSpec(
        "a bidirectional recurrent layer, d/2 per direction",
        None,
        ("encoder",),
        "it reads the future, which a decoder generating left to right does not have yet",
    ),
    "cnn": LayerSpec("a gated (GLU) convolution, causal in a decoder; cnn(k): kernel width k", "kernel_width"),
    "dot_self_att": LayerSpec("single-head dot-product self-attention, causal in a decoder"),
    "mh_dot_self_att": LayerSpec("multi-head dot-product self-attention; (h) or (heads=h): h heads", "heads"),
    "dot_src_att": LayerSpec("single-head dot-product attention to the encoder's output", None, ("decoder",), _SOURCE),
    "mh_dot_src_att": LayerSpec(
        "multi-head attention to the encoder's output; (h) or (heads=h): h heads", "heads", ("decoder",), _SOURCE
    ),
}

# structure -> what it builds; each takes a chain in brackets (repeat a count first, parallel several chains)
STRUCTURES: dict[str, str] = {
    "repeat": "repeat(n, l): n copies of l one after another, each with its own weights",
    "res": "res(l): x + l(x), a residual connection",
    "res_d": "res_d(l) = res(l->dropout)",
    "res_nd": "res_nd(l) = res(norm->l->dropout)",
    "highway": "highway(l): t ⊙ l(x) + (1 − t) ⊙ x with a learned gate t = σ(xW + b)",
    "parallel": "parallel(l₁ | l₂ …): the branches side by side, concatenated, a linear map back to d",
    "parallel_add": "parallel_add(l₁ | l₂ …): the branches side by side, summed",
}

# other spellings -> the registry's name (the poster's and Sockeye's; spaces for underscores are read anyway)
ALIASES: dict[str, str] = {
    "mh_dot_att": "mh_dot_src_att",  # Sockeye's acl18 configurations: --custom-seq-decoder …->res(mh_dot_att)
    "dot_att": "dot_src_att",
    "ε": "id",  # the poster's empty layer
    "ϵ": "id",
    "✏": "ff",  # what the poster's PDF text shows in its chains where the paper's feed-forward layer stands
    "↵": "ff",  # ... and in its ablation rows ("+ ↵" is Sockeye's "+ ff")
}
_NAME_FORMS = {**{name: name for name in (*LAYERS, *STRUCTURES)}, **ALIASES}


def canonical(name: str) -> str | None:
    """The registry's name for a spelling (``"mh dot att"`` → ``"mh_dot_src_att"``), or None if unknown."""
    return _NAME_FORMS.get(re.sub(r"\s+", "_", name))


@dataclass(frozen=True)
class Limits:
    """What one chain may ask for. Checked in this order, each before any work it guards."""

    max_chars: int = 2000  # text longer than this is refused before it is read
    max_depth: int = 8  # brackets inside brackets (repeat / res / highway / parallel)
    max_repeat: int = 12  # repeat(n, …) takes 1 ≤ n ≤ this
    max_layers: int = 64  # layers once every repeat is unrolled


LIMITS = Limits()


class ChainError(ValueError):
    """A chain that cannot be built, with the 1-based column (and line) of the place it went wrong."""

    def __init__(self, message: str, position: int | None = None, text: str = "", side: str = ""):
        self.reason = message
        self.side = side  # "encoder" or "decoder" when the message is about one of the two chains
        self.position = position  # 0-based offset into the text, or None for the chain as a whole
        self.line, self.column = _line_column(text, position) if position is not None else (None, None)
        if position is not None:  # the place goes after the first clause: "unknown layer 'x' at column 3; did…"
            where = f" at column {self.column}" if self.line == 1 else f" at line {self.line}, column {self.column}"
            cut = min((i for i in (message.find("; "), message.find(": ")) if i >= 0), default=len(message))
            message = message[:cut] + where + message[cut:]
        super().__init__(f"{side}: {message}" if side else message)


def _line_column(text: str, position: int) -> tuple[int, int]:
    before = text[:position]
    line = before.count("\n") + 1
    return line, position - (before.rfind("\n") + 1) + 1


# -------------------------------------------------------------------------------------------------- tree
@dataclass(frozen=True)
class Layer:
    name: str  # a key of LAYERS
    option: int | str | None = None  # its one option (heads, kernel width, hidden width, activation); None: default
    position: int = 0  # where the layer's name starts in the text (0-based), for errors found later


@dataclass(frozen=True)
class Repeat:
    count: int  # n independent copies of ``body``, applied one after another
    body: Chain
    position: int = 0


@dataclass(frozen=True)
class Residual:
    body: Chain  # x + body(x)
    position: int = 0


@dataclass(frozen=True)
class Highway:
    body: Chain  # t * body(x) + (1 - t) * x, t = sigmoid(x W + b)
    position: int = 0


@dataclass(frozen=True)
class Parallel:
    branches: tuple[Chain, ...]  # each reads the same input
    add: bool = False  # True: summed (parallel_add); False: concatenated, then a linear map back to d
    position: int = 0


Node = Layer | Repeat | Residual | Highway | Parallel
Chain = tuple[Node, ...]


def format_chain(chain: Chain) -> str:
    """The canonical text of ``chain``; ``parse_chain(format_chain(c))`` gives ``c`` back (positions aside)."""
    parts = []
    for node in chain:
        if isinstance(node, Repeat):
            parts.append(f"repeat({node.count},{format_chain(node.body)})")
        elif isinstance(node, Residual | Highway):
            parts.append(f"{'res' if isinstance(node, Residual) else 'highway'}({format_chain(node.body)})")
        elif isinstance(node, Parallel):
            name = "parallel_add" if node.add else "parallel"
            parts.append(f"{name}({'|'.join(format_chain(b) for b in node.branches)})")
        else:
            parts.append(node.name if node.option is None else f"{node.name}({node.option})")
    return "->".join(parts)


def count_layers(chain: Chain) -> int:
    """Layers once every repeat is unrolled (a residual adds none; a highway's gate and a concatenation's linear
    map count one each)."""
    total = 0
    for node in chain:
        if isinstance(node, Repeat):
            total += node.count * count_layers(node.body)
        elif isinstance(node, Residual):
            total += count_layers(node.body)
        elif isinstance(node, Highway):
            total += 1 + count_layers(node.body)
        elif isinstance(node, Parallel):
            total += (not node.add) + sum(count_layers(b) for b in node.branches)
        else:
            total += 1
    return total


def walk(chain: Chain):
    """Every :class:`Layer` of the chain once, in order, repeats *not* unrolled."""
    for node in chain:
        if isinstance(node, Layer):
            yield node
        elif isinstance(node, Parallel):
            for branch in node.branches:
                yield from walk(branch)
        else:
            yield from walk(node.body)


# --------------------------------------------------------------------------------------------- tokenizer
_TOKEN = re.compile(
    r"\s*(?:(?P<arrow>->|→|!)|(?P<punct>[(),|=])|(?P<int>[0-9]+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*|[εϵ✏↵]))"
)
_SPACE = re.compile(r"\s*")


@dataclass(frozen=True)
class _Token:
    kind: str  # "arrow" | "punct" | "int" | "name" | "end" | "bad" (a character the language does not have)
    text: str
    position: int


def _describe(char: str) -> str:
    """A character for an error message, safe to show anywhere (a code point, never raw markup)."""
    if char.isascii() and char.isprintable():
        return f"'{char}' (U+{ord(char):04X})"
    return f"U+{ord(char):04X}"


def _tokenize(text: str) -> list[_Token]:
    tokens, i = [], 0
    while True:
        space = _SPACE.match(text, i)
        i = space.end()
        if i == len(text):
            tokens.append(_Token("end", "", i))
            return tokens
        match = _TOKEN.match(text, i)
        if match is None:  # reported when the parser reaches it, so errors come in reading order
            tokens.append(_Token("bad", text[i], i))
            return tokens
        kind = match.lastgroup
        start = match.start(kind)
        tokens.append(_Token(kind, match.group(kind), start))
        i = match.end()


def _shown(token: _Token) -> str:
    if token.kind == "end":
        return "the end of the text"
    if token.kind == "int" and len(token.text) > 12:
        return f"a {len(token.text)}-digit number"
    if len(token.text) > 40:
        return f"'{token.text[:40]}…'"
    return f"'{token.text}'"


# ------------------------------------------------------------------------------------------------ parser
class _Parser:
    def __init__(self, text: str, side: str, limits: Limits):
        self.text, self.side, self.limits = text, side, limits
        self.tokens = _tokenize(text)
        self.i = 0

    def error(self, message: str, position: int) -> ChainError:
        return ChainError(message, position, self.text)

    @property
    def token(self) -> _Token:
        token = self.tokens[self.i]
        if token.kind == "bad":
            raise self.error(f"unexpected character {_describe(token.text)}; expected {self.wanted()}", token.position)
        return token

    def wanted(self) -> str:
        """What may stand where the parser is, for an error about an unexpected character."""
        previous = self.tokens[self.i - 1] if self.i else None
        if previous is None or previous.kind == "arrow" or previous.text in ("(", "|"):
            return "a layer name"
        return "'->', a bracket or the end of the chain"

    def is_punct(self, text: str) -> bool:
        return self.tokens[self.i].kind == "punct" and self.tokens[self.i].text == text

    def expect(self, text: str, after: str = "") -> _Token:
        token = self.token
        if token.kind == "name" and text == ")":  # two layers with no arrow between them
            raise self.error(f"expected '->' or ')'{after}, found {_shown(token)}", token.position)
        if token.text != text or token.kind in ("end", "name"):
            raise self.error(f"expected '{text}'{after}, found {_shown(token)}", token.position)
        self.i += 1
        return token

    def chain(self, depth: int) -> Chain:
        nodes = [self.element(depth)]
        while self.token.kind == "arrow":
            self.i += 1
            nodes.append(self.element(depth))
        return tuple(nodes)

    def name(self) -> tuple[str | None, str, int]:
        """The longest run of words on one line that spells a known name (the poster writes ``res nd``).

        Returns (the registry's name or None, the words as written, their position); consumes the words.
        """
        first = self.token
        run = [first]
        while len(run) < 6:
            after = self.tokens[self.i + len(run)]
            gap = self.text[run[-1].position + len(run[-1].text) : after.position]
            if after.kind != "name" or "\n" in gap or not gap or not run[-1].text.isascii():
                break
            run.append(after)
        for k in range(len(run), 0, -1):
            written = " ".join(t.text for t in run[:k])
            if canonical(written) is not None:
                self.i += k
                return canonical(written), written, first.position
        self.i += len(run)
        return None, " ".join(t.text for t in run), first.position

    def element(self, depth: int) -> Node:
        token = self.token
        if token.kind != "name":
            if token.kind == "end" and self.i == 0:
                raise self.error("the chain is empty; expected a layer name, e.g. ff", token.position)
            what = "a layer name after '->'" if self.i and self.tokens[self.i - 1].kind == "arrow" else "a layer name"
            raise self.error(f"expected {what}, found {_shown(token)}", token.position)
        name, written, position = self.name()
        if name is None:
            raise self.error(_unknown(written, self.side), position)
        if name in STRUCTURES:
            return self.structure(name, position, depth)
        spec = LAYERS[name]
        if self.side not in spec.sides:
            raise self.error(
                f"{name} is only allowed in {_a(spec.sides[0])}; expected {_a(self.side)} layer: {spec.why_only}",
                position,
            )
        option = None
        if self.is_punct("("):
            if spec.option is None:
                raise self.error(
                    f"{name} takes no options; expected '->' or the end after {name}", self.tokens[self.i].position
                )
            self.i += 1
            option = self.option(name, spec.option)
            self.expect(")", f" after {name}'s {OPTIONS[spec.option][0]}")
        return Layer(name, option, position)

    def option(self, name: str, keyword: str) -> int | str:
        token = self.token
        if token.kind == "name" and self.tokens[self.i + 1].text == "=":
            if token.text != keyword:
                raise self.error(f"{name} has no option '{token.text}'; expected {keyword}=", token.position)
            self.i += 2
        what, *bounds = OPTIONS[keyword]
        if len(bounds) == 2:
            return self.integer(what, *bounds)
        choices = bounds[0]
        token = self.token
        if token.kind != "name" or token.text not in choices:
            raise self.error(f"expected the {what}, one of {', '.join(choices)}, found {_shown(token)}", token.position)
        self.i += 1
        return token.text

    def structure(self, name: str, position: int, depth: int) -> Node:
        opening = self.expect("(", f" after {name}")
        if depth + 1 > self.limits.max_depth:  # checked before recursing: deep text cannot exhaust the stack
            raise self.error(
                f"too deep; expected at most {self.limits.max_depth} brackets inside brackets", opening.position
            )
        if name == "repeat":
            count = self.integer("repeat count", 1, self.limits.max_repeat)
            self.expect(",", " after the repeat count")
            body = self.chain(depth + 1)
            self.expect(")", " to close the repeat")
            return Repeat(count, body, position)
        if name.startswith("parallel"):
            branches = [self.chain(depth + 1)]
            while self.is_punct("|"):
                self.i += 1
                branches.append(self.chain(depth + 1))
            if len(branches) == 1:
                self.expect("|", f" and a second branch of {name}")
            self.expect(")", f" or '|' to close {name}")
            return Parallel(tuple(branches), name == "parallel_add", position)
        body = self.chain(depth + 1)
        self.expect(")", f" to close {name}")
        if name == "highway":
            return Highway(body, position)
        if name == "res_nd":
            body = (Layer("norm", None, position), *body, Layer("dropout", None, position))
        elif name == "res_d":
            body = (*body, Layer("dropout", None, position))
        return Residual(body, position)

    def integer(self, what: str, low: int, high: int) -> int:
        token = self.token
        if token.kind != "int":
            raise self.error(
                f"expected the {what} (a whole number {low}–{high}), found {_shown(token)}", token.position
            )
        self.i += 1
        if len(token.text) > 6 or not low <= int(token.text) <= high:  # never turns a huge digit string into int
            shown = token.text if len(token.text) <= 12 else f"a {len(token.text)}-digit number"
            raise self.error(f"{what} out of range; expected {low}–{high}, found {shown}", token.position)
        return int(token.text)


def _a(side: str) -> str:
    return f"an {side}" if side == "encoder" else f"a {side}"


def _unknown(name: str, side: str) -> str:
    known = [layer for layer, spec in LAYERS.items() if side in spec.sides] + list(STRUCTURES)
    close = difflib.get_close_matches(name.lower().replace(" ", "_"), known, n=1, cutoff=0.6)
    shown = f"'{name}'" if len(name) <= 40 else f"'{name[:40]}…'"
    hint = f"; did you mean '{close[0]}'?" if close else f"; the {side}'s layers: {', '.join(known)}"
    return f"unknown layer {shown}; expected a layer name{hint}"


def _largest(chain: Chain) -> Node:
    """The node that makes the most layers once unrolled (where a too-long chain's error points)."""
    return max(chain, key=lambda node: count_layers((node,)))


def parse_chain(text: str, side: str, limits: Limits = LIMITS) -> Chain:
    """Parse one chain for ``side`` (``"encoder"`` or ``"decoder"``); raises :class:`ChainError` with the place.

    Checks, in order: the text's length, its characters and tokens, nesting depth, options' ranges, which
    side a layer may be on, and the number of layers once repeats are unrolled.
    """
    if side not in SIDES:
        raise ValueError(f"side must be one of {', '.join(SIDES)}; got {side!r}")
    if not isinstance(text, str):
        raise ChainError("the chain must be text")
    if len(text) > limits.max_chars:
        raise ChainError(
            f"the chain is {len(text):,} characters long; expected at most {limits.max_chars:,} "
            f"(it goes past the limit at column {limits.max_chars + 1:,}, and nothing of it was read)"
        )
    if not text.strip():
        raise ChainError("the chain is empty; expected a layer name, e.g. ff", 0, text)
    parser = _Parser(text, side, limits)
    chain = parser.chain(0)
    if parser.token.kind != "end":
        token = parser.token
        expected = "'->' or the end of the chain"
        if token.text == ")":
            raise parser.error(f"unmatched ')'; expected {expected}", token.position)
        raise parser.error(f"expected {expected}, found {_shown(token)}", token.position)
    layers = count_layers(chain)
    if layers > limits.max_layers:
        raise ChainError(
            f"too many layers: {layers:,} once its repeats are unrolled; expected at most {limits.max_layers}",
            _largest(chain).position,
            text,
        )
    return chain
