"""``dates``: human-written dates -> ISO 8601, character by character.

"Sunday, November 22, 2026", "22 nov 2026", "11/22/26" -> "2026-11-22". Every date is a real calendar day
between 1950-01-01 and 2049-12-31 (``datetime.date``), and a weekday, when written, is that day's weekday.
Two-digit years follow one pivot rule the model has to learn: 50-99 -> 19xx, 00-49 -> 20xx.
Numeric formats never share a separator (US month/day/year with "/", European day.month.year with ".",
year-first with "/" and a four-digit year first), so every source has exactly one reading.

Gold alignment: each ISO character aligns to every source character of the field it comes from (the
year's digits; the month's digits or the whole month word; the day's digits without an ordinal suffix);
the two "-" align to nothing (``[]``).
"""

from __future__ import annotations

import datetime
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

from minimodels.tasks.core import Alignment, Example, Task, draw_splits
from minimodels.tasks.lexicon import MONTHS as LEXICON_MONTHS
from minimodels.tasks.lexicon import WEEKDAYS as LEXICON_WEEKDAYS
from minimodels.tokenizers import CharTokenizer

SOURCE_ALPHABET = string.digits + string.ascii_lowercase + string.ascii_uppercase + " ,./-"
TARGET_ALPHABET = string.digits + "-"
FIRST_DAY, LAST_DAY = datetime.date(1950, 1, 1), datetime.date(2049, 12, 31)
MAX_SOURCE_LEN = 32  # the longest format ("Wednesday, September 30, 2026") is 29 characters
MAX_TARGET_LEN = 10  # "YYYY-MM-DD"

MONTHS, WEEKDAYS = LEXICON_MONTHS["en"], LEXICON_WEEKDAYS["en"]  # not ``calendar``: it follows the locale

Part = tuple[str, str | None]  # a piece of the source text and the ISO field it spells, if any
Spans = dict[str, tuple[int, int]]  # field -> [start, end) in the source string


def _style(word: str, case: str) -> str:
    return {"title": word, "lower": word.lower(), "upper": word.upper()}[case]


def _ordinal(day: int) -> str:
    if day in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


class _Writer:
    """The pieces one example is written with: its date, letter case and zero padding."""

    def __init__(self, day: datetime.date, case: str, pad: bool):
        self.date, self.case, self.pad = day, case, pad

    def weekday(self, short: bool = False) -> Part:
        name = WEEKDAYS[self.date.weekday()]
        return _style(name[:3] if short else name, self.case), None

    def month_name(self, short: bool = False) -> Part:
        name = MONTHS[self.date.month - 1]
        return _style(name[:3] if short else name, self.case), "month"

    def month(self, pad: bool | None = None) -> Part:
        return self._number(self.date.month, self.pad if pad is None else pad), "month"

    def day(self, pad: bool | None = None) -> Part:
        return self._number(self.date.day, self.pad if pad is None else pad), "day"

    def year(self, digits: int = 4) -> Part:
        return f"{self.date.year % 10**digits:0{digits}d}", "year"

    @staticmethod
    def _number(n: int, pad: bool) -> str:
        return f"{n:02d}" if pad else str(n)


def _lit(text: str) -> Part:
    return text, None


# Each format writes one date as a list of parts; the comment shows 2026-11-22 in title case.
FORMATS: dict[str, Callable[[_Writer], list[Part]]] = {
    # Sunday, November 22, 2026
    "full": lambda w: [w.weekday(), _lit(", "), w.month_name(), _lit(" "), w.day(False), _lit(", "), w.year()],
    # November 22, 2026
    "long": lambda w: [w.month_name(), _lit(" "), w.day(False), _lit(", "), w.year()],
    # Nov 22, 2026
    "medium": lambda w: [w.month_name(True), _lit(" "), w.day(False), _lit(", "), w.year()],
    # 22 November 2026
    "day-month-year": lambda w: [w.day(False), _lit(" "), w.month_name(), _lit(" "), w.year()],
    # 22 Nov 2026
    "day-mon-year": lambda w: [w.day(False), _lit(" "), w.month_name(True), _lit(" "), w.year()],
    # 22nd November 2026
    "ordinal": lambda w: [
        w.day(False),
        _lit(_ordinal(w.date.day) if w.case != "upper" else _ordinal(w.date.day).upper()),
        _lit(" "),
        w.month_name(),
        _lit(" "),
        w.year(),
    ],
    # Sun 22 Nov 2026
    "short-weekday": lambda w: [
        w.weekday(True),
        _lit(" "),
        w.day(False),
        _lit(" "),
        w.month_name(True),
        _lit(" "),
        w.year(),
    ],
    # 22-Nov-2026
    "dash-mon": lambda w: [w.day(True), _lit("-"), w.month_name(True), _lit("-"), w.year()],
    # 11/22/26
    "us-short": lambda w: [w.month(), _lit("/"), w.day(), _lit("/"), w.year(2)],
    # 11/22/2026
    "us": lambda w: [w.month(), _lit("/"), w.day(), _lit("/"), w.year()],
    # 22.11.2026
    "european": lambda w: [w.day(), _lit("."), w.month(), _lit("."), w.year()],
    # 22.11.26
    "european-short": lambda w: [w.day(), _lit("."), w.month(), _lit("."), w.year(2)],
    # 2026/11/22
    "year-first": lambda w: [w.year(), _lit("/"), w.month(), _lit("/"), w.day()],
    # 2026-11-22
    "iso": lambda w: [w.year(), _lit("-"), w.month(True), _lit("-"), w.day(True)],
}
CASES = ("title", "lower", "upper")
CASE_WEIGHTS = (6, 3, 1)


def write_date(day: datetime.date, fmt: str, case: str = "title", pad: bool = False) -> tuple[Example, Spans]:
    """One date in one format, and where its year/month/day fields sit in the source string."""
    parts = FORMATS[fmt](_Writer(day, case, pad))
    source, spans = "", {}
    for text, field_name in parts:
        if field_name is not None:
            spans[field_name] = (len(source), len(source) + len(text))
        source += text
    return Example(source, day.isoformat()), spans


def iso_alignment(spans: Spans) -> Alignment:
    """Per ISO character (YYYY-MM-DD), the source characters of its field; "-" aligns to nothing."""
    year, month, day = (list(range(*spans[f])) for f in ("year", "month", "day"))
    return [year] * 4 + [[]] + [month] * 2 + [[]] + [day] * 2


@dataclass
class DateAligner:
    """Gold alignment for the sources a task generated (a typed date has none: None)."""

    spans_of: dict[str, Spans]  # source -> where its fields are

    def __call__(self, ex: Example) -> Alignment | None:
        spans = self.spans_of.get(ex.source)
        if spans is None or len(ex.target) != MAX_TARGET_LEN:
            return None
        return iso_alignment(spans)


PROBE_DATE = datetime.date(2026, 11, 22)


def build_dates(seed: int = 0, n_train: int = 6000, n_valid: int = 500, n_test: int = 500) -> Task:
    spans_of: dict[str, Spans] = {}
    n_days = (LAST_DAY - FIRST_DAY).days + 1
    fmts = tuple(FORMATS)

    def sample(rng: random.Random) -> Example:
        day = FIRST_DAY + datetime.timedelta(days=rng.randrange(n_days))
        fmt = rng.choice(fmts)
        case = rng.choices(CASES, CASE_WEIGHTS)[0]
        ex, spans = write_date(day, fmt, case, pad=rng.random() < 0.5)
        spans_of[ex.source] = spans
        return ex

    probe, probe_spans = write_date(PROBE_DATE, "full")
    spans_of[probe.source] = probe_spans
    splits = draw_splits(sample, {"train": n_train, "valid": n_valid, "test": n_test}, seed, pinned=[probe])

    return Task(
        name="dates",
        source_tokenizer=CharTokenizer(SOURCE_ALPHABET),
        target_tokenizer=CharTokenizer(TARGET_ALPHABET),
        **splits,
        max_source_len=MAX_SOURCE_LEN,
        max_target_len=MAX_TARGET_LEN,
        description=f"Human-written dates in {len(FORMATS)} formats -> ISO 8601 (YYYY-MM-DD), character by character.",
        probe=probe,
        aligner=DateAligner(spans_of),
    )
