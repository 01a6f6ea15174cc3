"""Reading a teacher's parallel sentences: TSV or CSV, two columns, UTF-8, with every problem said plainly.

:func:`read_pairs` takes pasted text, bytes, an open binary file (an upload) or a path, and returns a
:class:`PairsFile`: the pairs it kept, the lines it skipped and why (with their line numbers), the duplicates, a
fingerprint of the data and a summary a page can show before anything trains. A problem with the whole file
(too large, empty, binary, not UTF-8, one column, too many lines, nothing usable left) raises :class:`PairsError`,
whose message is written for the student and holds no traceback. A problem with one line (a third column, an
over-long sentence, source equal to target, a control character, an empty side) skips that line only: a stray NUL
byte too (a line pasted from elsewhere), which makes its line one skipped with "control character: U+0000"; only a
file that is binary (NUL bytes in a file that is not UTF-8, or more of them than :data:`BINARY_NUL_SHARE` of its
bytes: UTF-16 without its mark, an image, a spreadsheet) is refused whole.

Text is kept as text: HTML or a ``<script>`` in a sentence is a sentence like any other (a page shows it with
``st.text``/escaped markdown, never as HTML). Each side is normalised as the tokenizers see it (NFKC, runs of
white space made one space: :meth:`~minimodels.tokenizers.SentencePieceTokenizer.normalize`), so the
fingerprint and the duplicates are those of what the model learns from.

The size limit is enforced before the whole upload is read: at most ``limits.max_bytes + 1`` bytes are read.
"""

from __future__ import annotations

import csv
import hashlib
import io
import statistics
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Literal

from ..tokenizers import SentencePieceTokenizer
from .limits import LIMITS, Limits

Pair = tuple[str, str]


class PairsError(ValueError):
    """A problem with the whole file; ``str(error)`` is a plain sentence for the student."""


# Scripts a summary names; the rest are named by their Unicode name's first word, capitalised.
_SCRIPT_NAMES = {"CJK": "Chinese characters (CJK)", "HANGUL": "Korean (Hangul)"}
_RIGHT_TO_LEFT = {"R", "AL"}  # bidirectional classes of right-to-left letters (Hebrew, Arabic, ...)
_ALLOWED_CONTROLS = {"\t"}  # inside a line; line ends are split off before
BINARY_NUL_SHARE = 0.1  # a file with more NUL bytes than this share of its bytes is binary (UTF-16 text: half)


@dataclass
class PairsFile:
    """What :func:`read_pairs` read: the usable pairs and everything it has to say about the rest."""

    name: str  # the file's name, or "pasted text"
    pairs: list[Pair]  # (source, target), normalised, in file order
    line_numbers: list[int]  # the line (1-based) each pair came from
    skipped: list[tuple[int, str]]  # (line number, plain reason) for every line not used
    duplicates: list[tuple[int, int]]  # (line number, line of its first occurrence) for each repeated pair
    duplicates_dropped: bool  # True when the repeats are not in ``pairs``
    format: str  # "TSV" or "CSV"
    blank_lines: int = 0  # empty lines, ignored
    size_bytes: int = 0  # bytes read
    _fingerprint: str | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.pairs)

    @property
    def fingerprint(self) -> str:
        """sha256 (hex) of the normalised pairs, one ``source<TAB>target`` line each, in order."""
        if self._fingerprint is None:
            self._fingerprint = fingerprint(self.pairs)
        return self._fingerprint

    @property
    def sources(self) -> list[str]:
        return [s for s, _ in self.pairs]

    @property
    def targets(self) -> list[str]:
        return [t for _, t in self.pairs]

    def summary(self) -> dict:
        """Counts, lengths and scripts, for a page to show before training (all plain values)."""
        sources_with_targets: dict[str, set[str]] = {}
        for s, t in self.pairs:
            sources_with_targets.setdefault(s, set()).add(t)
        return {
            "name": self.name,
            "format": self.format,
            "pairs": len(self.pairs),
            "skipped": len(self.skipped),
            "skipped_reasons": dict(Counter(_reason_kind(r) for _, r in self.skipped).most_common()),
            "duplicates": len(self.duplicates),
            "duplicates_dropped": self.duplicates_dropped,
            "distinct_pairs": len(set(self.pairs)),
            "ambiguous_sources": sum(len(ts) > 1 for ts in sources_with_targets.values()),
            "blank_lines": self.blank_lines,
            "bytes": self.size_bytes,
            "fingerprint": self.fingerprint,
            "scripts": describe_scripts([*self.sources, *self.targets]),
            "source": side_stats(self.sources),
            "target": side_stats(self.targets),
        }


def fingerprint(pairs: list[Pair]) -> str:
    """sha256 (hex) of ``pairs`` as UTF-8 ``source<TAB>target<LF>`` lines."""
    h = hashlib.sha256()
    for s, t in pairs:
        h.update(f"{s}\t{t}\n".encode())
    return h.hexdigest()


def side_stats(texts: list[str]) -> dict:
    """Length in characters and words (min, median, max) and the scripts of one side."""
    chars = [len(t) for t in texts] or [0]
    words = [len(t.split()) for t in texts] or [0]
    return {
        "chars": {"min": min(chars), "median": statistics.median(chars), "max": max(chars)},
        "words": {"min": min(words), "median": statistics.median(words), "max": max(words)},
        "distinct_characters": len(set("".join(texts)) - {" "}),
        "scripts": describe_scripts(texts),
    }


def scripts_of(texts: list[str]) -> Counter:
    """Letters per script (Latin, Cyrillic, Greek, Arabic, Hebrew, CJK, ...), most frequent first."""
    counts: Counter = Counter()
    for ch, n in Counter("".join(texts)).items():
        if not unicodedata.category(ch).startswith("L"):
            continue
        word = unicodedata.name(ch, "OTHER").split()[0]
        if word in ("HIRAGANA", "KATAKANA"):
            word = "Japanese kana"
        counts[word] += n
    return counts


def describe_scripts(texts: list[str]) -> str:
    """E.g. ``"Latin, Arabic (right to left)"``: the scripts of ``texts``' letters, most used first."""
    rtl = {
        unicodedata.name(ch, "OTHER").split()[0]
        for ch in set("".join(texts))
        if unicodedata.bidirectional(ch) in _RIGHT_TO_LEFT
    }
    names = []
    for word, _ in scripts_of(texts).most_common():
        name = _SCRIPT_NAMES.get(word, word if word == "Japanese kana" else word.capitalize())
        names.append(f"{name} (right to left)" if word in rtl else name)
    return ", ".join(names) or "no letters"


def _reason_kind(reason: str) -> str:
    """The reason's kind (its text up to a colon), for counting."""
    return reason.split(":", 1)[0]


# ---------------------------------------------------------------------------------------------------- reading
def _read_bytes(source, limits: Limits) -> bytes:
    """At most ``limits.max_bytes + 1`` bytes of ``source`` (str, bytes, binary file or path)."""
    cap = limits.max_bytes + 1
    if isinstance(source, str):
        return source.encode("utf-8", errors="surrogatepass")[:cap]
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source[:cap])
    if isinstance(source, Path):
        try:
            with source.open("rb") as f:
                return f.read(cap)
        except OSError as error:
            raise PairsError(f"Cannot open {source.name}: {error.strerror or error}.") from None
    if hasattr(source, "read"):
        if getattr(source, "seekable", lambda: False)():
            source.seek(0)  # an upload read before (a page's rerun) is read from its start again
        data = source.read(cap)
        if isinstance(data, str):
            data = data.encode("utf-8", errors="surrogatepass")[:cap]
        return bytes(data)
    raise TypeError(f"read_pairs reads str, bytes, a binary file or a Path, not {type(source).__name__}")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _decode(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise PairsError(
            "The file is in UTF-16, not UTF-8. Save it as “UTF-8” (plain text or CSV UTF-8) and try again."
        )
    nuls = data.count(b"\x00")
    if nuls and (nuls > BINARY_NUL_SHARE * len(data) or not _is_utf8(data)):
        raise PairsError("This looks like a binary file (it contains NUL bytes), not text. Choose a .tsv or .csv file.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise PairsError(
            f"The file is not UTF-8 text (line {line} has the byte 0x{data[error.start]:02x}, which UTF-8 "
            "does not allow there). Save it as “UTF-8” (e.g. “CSV UTF-8” in a spreadsheet) and try again."
        ) from None


def _lines(text: str) -> list[str]:
    """Lines split on LF, CRLF or CR only (not on the other characters str.splitlines breaks at)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _delimiter(lines: list[str]) -> str:
    """Tab when most non-blank lines have one, else comma when most have one; else one column: an error."""
    filled = [line for line in lines if line.strip()]
    tabs = sum("\t" in line for line in filled)
    commas = sum("," in line for line in filled)
    if tabs and tabs >= len(filled) / 2:
        return "\t"
    if commas and commas >= len(filled) / 2:
        return ","
    raise PairsError(
        "Each line needs two columns, the source sentence and its translation, separated by a tab (TSV) or a "
        "comma (CSV). Most lines of this file have only one column."
    )


def _control_character(text: str) -> str | None:
    for ch in text:
        if ch not in _ALLOWED_CONTROLS and (unicodedata.category(ch) == "Cc" or ch in "\u2028\u2029"):
            return f"U+{ord(ch):04X}"
    return None


def _unquote(field: str) -> str:
    """A TSV field as a spreadsheet quotes it (in quotes, inner quotes doubled) unquoted; other fields as they are."""
    inner = field.strip()
    if len(inner) >= 2 and inner[0] == inner[-1] == '"' and '"' not in inner[1:-1].replace('""', ""):
        return inner[1:-1].replace('""', '"')
    return field


def _trim(row: list[str] | None) -> list[str] | None:
    """``row`` without the empty columns a spreadsheet leaves at the end of a line ("a,b,," has two columns)."""
    while row is not None and len(row) > 2 and not row[-1].strip():
        row = row[:-1]
    return row


def _rows(lines: list[str], delimiter: str) -> list[list[str]]:
    if delimiter == "\t":
        return [_trim([_unquote(f) for f in line.split("\t")]) for line in lines]
    rows = []
    for line in lines:  # one line at a time: a quote left open must not swallow the rest of the file
        try:
            rows.append(_trim(next(csv.reader([line], strict=True))) if line.strip() else [])
        except csv.Error:
            rows.append(None)
    return rows


def read_pairs(
    source: str | bytes | BinaryIO | Path,
    *,
    name: str = "pasted text",
    limits: Limits = LIMITS,
    duplicates: Literal["keep", "drop"] = "keep",
) -> PairsFile:
    """The sentence pairs in ``source`` (see the module docstring); raises :class:`PairsError` if none are usable.

    ``source``: pasted text (str), bytes, a binary file-like object (read from its start, at most
    ``limits.max_bytes + 1`` bytes) or a Path. ``duplicates``: ``"keep"`` every repeated pair (reported) or
    ``"drop"`` the repeats.
    """
    if duplicates not in ("keep", "drop"):
        raise ValueError(f"duplicates must be 'keep' or 'drop', not {duplicates!r}")
    if isinstance(source, Path) and name == "pasted text":
        name = source.name
    data = _read_bytes(source, limits)
    if len(data) > limits.max_bytes:
        raise PairsError(
            f"The file is larger than {limits.max_bytes / 1e6:g} MB, the limit here. "
            f"Use fewer pairs (at most {limits.max_pairs:,})."
        )
    text = _decode(data)
    if not text.strip():
        raise PairsError("The file is empty: there are no sentence pairs in it.")
    lines = _lines(text)
    filled = sum(bool(line.strip()) for line in lines)
    if filled > limits.max_pairs:
        raise PairsError(f"The file has {filled:,} lines; the limit here is {limits.max_pairs:,} pairs.")
    delimiter = _delimiter(lines)
    pairs: list[Pair] = []
    numbers: list[int] = []
    skipped: list[tuple[int, str]] = []
    repeats: list[tuple[int, int]] = []
    first_seen: dict[Pair, int] = {}
    blank = 0
    for number, (line, row) in enumerate(zip(lines, _rows(lines, delimiter), strict=True), start=1):
        if not line.strip():
            blank += 1
            continue
        control = _control_character(line)
        if control:
            skipped.append((number, f"control character: {control} is not text"))
            continue
        if row is None:
            skipped.append((number, "unreadable CSV: a quote is not closed on this line"))
            continue
        if len(row) != 2:
            skipped.append((number, f"wrong number of columns: {len(row)} instead of 2"))
            continue
        src, tgt = (SentencePieceTokenizer.normalize(side) for side in row)
        if not src or not tgt:
            skipped.append((number, f"empty side: the {'source' if not src else 'target'} is empty"))
            continue
        longest = max(len(src), len(tgt))
        if longest > limits.max_chars:
            side = "source" if len(src) >= len(tgt) else "target"
            skipped.append((number, f"too long: the {side} has {longest:,} characters (limit {limits.max_chars})"))
            continue
        if src == tgt:
            skipped.append((number, "identical: the source and the target are the same text"))
            continue
        pair = (src, tgt)
        if pair in first_seen:
            repeats.append((number, first_seen[pair]))
            if duplicates == "drop":
                continue
        else:
            first_seen[pair] = number
        pairs.append(pair)
        numbers.append(number)
    if not pairs:
        first = f" The first one, line {skipped[0][0]}: {skipped[0][1]}." if skipped else ""
        raise PairsError(f"No usable sentence pair in the file: all {len(skipped)} lines were skipped.{first}")
    return PairsFile(
        name=name,
        pairs=pairs,
        line_numbers=numbers,
        skipped=skipped,
        duplicates=repeats,
        duplicates_dropped=duplicates == "drop",
        format="TSV" if delimiter == "\t" else "CSV",
        blank_lines=blank,
        size_bytes=len(data),
    )


def write_pairs(pairs: list[Pair]) -> str:
    """``pairs`` as TSV text (one ``source<TAB>target`` line each), the format :func:`read_pairs` reads back."""
    out = io.StringIO()
    for s, t in pairs:
        out.write(f"{s}\t{t}\n")
    return out.getvalue()
