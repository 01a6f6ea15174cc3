r"""The layer-chain language of Sockeye's "How much attention do you need?" (Domhan, ACL 2018), parsed safely.

The paper writes an encoder or a decoder as a chain of layers, each reading the previous one's output::

    pos->repeat(6,res(norm->mh_dot_self_att)->res(norm->ff))->norm      a Transformer encoder
    repeat(6,birnn)                                                    an RNN encoder

Grammar (whitespace is free between tokens)::

    chain   := element ("->" element)*
    element := "repeat" "(" INT "," chain ")"           n independent copies of the chain, one after another
             | ("res" | "res_nd" | "res_d") "(" chain ")"  x + chain(x); res_nd(l) = res(norm->l->dropout),
                                                          res_d(l) = res(l->dropout): the paper's shorthands
             | NAME [ "(" INT ")" ]                       one layer; cnn(k) kernel width, mh_*(h) heads

Text from a student is data, never code: a hand-written tokenizer and recursive-descent parser, no ``eval``.
Everything a class server could be made to build is capped *before* anything is built: the text's length
first, then the nesting depth (checked before each recursion, so 1,000 nested brackets give a
:class:`ChainError`, not a ``RecursionError``), the repeat count, the number of layers once repeats are
unrolled (counted by multiplication, never by unrolling), and later the parameters (``model.py``).
Every error names the place in the text: ``expected ')' at column 17``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

__all__ = [
    "SIDES",
    "LAYERS",
    "STRUCTURES",
    "Limits",
    "LIMITS",
    "ChainError",
    "Layer",
    "Repeat",
    "Residual",
    "Chain",
    "parse_chain",
    "format_chain",
    "count_layers",
    "walk",
]

SIDES = ("encoder", "decoder")

# layer name -> (what it does, the integer option it takes or None, the sides it is allowed on)
LAYERS: dict[str, tuple[str, str | None, tuple[str, ...]]] = {
    "pos": ("add sinusoidal positional embeddings", None, SIDES),
    "norm": ("layer normalisation", None, SIDES),
    "dropout": ("dropout (the model's rate; off at evaluation)", None, SIDES),
    "ff": ("position-wise feed-forward network, ReLU", None, SIDES),
    "linear": ("a linear map d → d", None, SIDES),
    "rnn": ("a unidirectional recurrent layer (GRU or LSTM)", None, SIDES),
    "birnn": ("a bidirectional recurrent layer, d/2 per direction", None, ("encoder",)),
    "cnn": ("a gated (GLU) convolution; cnn(k): kernel width k", "kernel width", SIDES),
    "dot_self_att": ("single-head dot-product self-attention", None, SIDES),
    "mh_dot_self_att": ("multi-head dot-product self-attention; mh_dot_self_att(h): h heads", "heads", SIDES),
    "dot_src_att": ("single-head dot-product attention to the encoder's output", None, ("decoder",)),
    "mh_dot_src_att": ("multi-head attention to the encoder's output; mh_dot_src_att(h): h heads", "heads",
                       ("decoder",)),
}  # fmt: skip
STRUCTURES = ("repeat", "res", "res_nd", "res_d")
OPTION_RANGES = {"kernel width": (1, 9), "heads": (1, 16)}

_WHY_ONLY = {
    "birnn": "it reads the future, which a decoder generating left to right does not have yet",
    "dot_src_att": "it attends to the encoder's output",
    "mh_dot_src_att": "it attends to the encoder's output",
}


@dataclass(frozen=True)
class Limits:
    """What one chain may ask for. Checked in this order, each before any work it guards."""

    max_chars: int = 2000  # text longer than this is refused before it is read
    max_depth: int = 8  # brackets inside brackets (repeat / res)
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
    option: int | None = None  # cnn's kernel width or mh_*'s heads; None: the model's default
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


Node = Layer | Repeat | Residual
Chain = tuple[Node, ...]


def format_chain(chain: Chain) -> str:
    """The canonical text of ``chain``; ``parse_chain(format_chain(c))`` gives ``c`` back (positions aside)."""
    parts = []
    for node in chain:
        if isinstance(node, Repeat):
            parts.append(f"repeat({node.count},{format_chain(node.body)})")
        elif isinstance(node, Residual):
            parts.append(f"res({format_chain(node.body)})")
        else:
            parts.append(node.name if node.option is None else f"{node.name}({node.option})")
    return "->".join(parts)


def count_layers(chain: Chain) -> int:
    """Layers once every repeat is unrolled (a residual counts as none: it adds no parameters)."""
    total = 0
    for node in chain:
        if isinstance(node, Repeat):
            total += node.count * count_layers(node.body)
        elif isinstance(node, Residual):
            total += count_layers(node.body)
        else:
            total += 1
    return total


def walk(chain: Chain):
    """Every :class:`Layer` of the chain once, in order, repeats *not* unrolled."""
    for node in chain:
        if isinstance(node, Layer):
            yield node
        else:
            yield from walk(node.body)


# --------------------------------------------------------------------------------------------- tokenizer
_TOKEN = re.compile(r"\s*(?:(?P<arrow>->|→)|(?P<punct>[(),])|(?P<int>[0-9]+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*))")
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
    if token.kind == "name" and len(token.text) > 40:
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
            raise self.error(f"unexpected character {_describe(token.text)}", token.position)
        return token

    def expect(self, text: str) -> _Token:
        token = self.token
        if token.text != text or token.kind == "end":
            raise self.error(f"expected '{text}', found {_shown(token)}", token.position)
        self.i += 1
        return token

    def chain(self, depth: int) -> Chain:
        nodes = [self.element(depth)]
        while self.token.kind == "arrow":
            self.i += 1
            nodes.append(self.element(depth))
        return tuple(nodes)

    def element(self, depth: int) -> Node:
        token = self.token
        if token.kind != "name":
            what = "a layer name" if token.kind != "end" else "a layer name after '->'"
            if token.kind == "end" and self.i == 0:
                raise self.error("the chain is empty: write at least one layer, e.g. ff", token.position)
            raise self.error(f"expected {what}, found {_shown(token)}", token.position)
        name = token.text
        self.i += 1
        if name in STRUCTURES:
            return self.structure(name, token.position, depth)
        if name not in LAYERS:
            raise self.error(_unknown(name, self.side), token.position)
        _, option_name, sides = LAYERS[name]
        if self.side not in sides:
            raise self.error(
                f"{name} is only allowed in a{'n' * (sides[0] == 'encoder')} {sides[0]}: {_WHY_ONLY[name]}",
                token.position,
            )
        option = None
        if self.token.text == "(" and self.token.kind == "punct":
            if option_name is None:
                raise self.error(f"{name} takes no options; write just {name}", self.token.position)
            self.i += 1
            option = self.integer(option_name, *OPTION_RANGES[option_name])
            self.expect(")")
        return Layer(name, option, token.position)

    def structure(self, name: str, position: int, depth: int) -> Node:
        opening = self.expect("(")
        if depth + 1 > self.limits.max_depth:  # checked before recursing: deep text cannot exhaust the stack
            raise self.error(f"chains may nest at most {self.limits.max_depth} brackets deep", opening.position)
        if name == "repeat":
            count = self.integer("repeat count", 1, self.limits.max_repeat)
            self.expect(",")
            body = self.chain(depth + 1)
            self.expect(")")
            return Repeat(count, body, position)
        body = self.chain(depth + 1)
        self.expect(")")
        if name == "res_nd":
            body = (Layer("norm", None, position), *body, Layer("dropout", None, position))
        elif name == "res_d":
            body = (*body, Layer("dropout", None, position))
        return Residual(body, position)

    def integer(self, what: str, low: int, high: int) -> int:
        token = self.token
        if token.kind != "int":
            raise self.error(f"expected the {what} (a whole number), found {_shown(token)}", token.position)
        self.i += 1
        if len(token.text) > 6 or not low <= int(token.text) <= high:  # never turns a huge digit string into int
            shown = token.text if len(token.text) <= 12 else f"a {len(token.text)}-digit number"
            raise self.error(f"{what} must be {low}–{high}, not {shown}", token.position)
        return int(token.text)


def _unknown(name: str, side: str) -> str:
    known = [layer for layer, (_, _, sides) in LAYERS.items() if side in sides] + list(STRUCTURES)
    close = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.6)
    shown = f"'{name}'" if len(name) <= 40 else f"'{name[:40]}…'"
    hint = f"; did you mean '{close[0]}'?" if close else f"; the {side}'s layers: {', '.join(known)}"
    return f"unknown layer {shown}{hint}"


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
        raise ChainError(f"the chain is {len(text):,} characters long; at most {limits.max_chars:,} are read")
    if not text.strip():
        raise ChainError("the chain is empty: write at least one layer, e.g. ff")
    parser = _Parser(text, side, limits)
    chain = parser.chain(0)
    if parser.token.kind != "end":
        token = parser.token
        expected = "'->' or the end of the chain"
        if token.text == ")":
            raise parser.error(f"unmatched ')': expected {expected}", token.position)
        raise parser.error(f"expected {expected}, found {_shown(token)}", token.position)
    layers = count_layers(chain)
    if layers > limits.max_layers:
        raise ChainError(
            f"the chain has {layers:,} layers once its repeats are unrolled; at most {limits.max_layers} are built"
        )
    return chain
