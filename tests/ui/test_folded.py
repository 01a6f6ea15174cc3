"""Folded expanders (``ui.folded``): the code listings, the reveals, the symbols and the "every figure" tables are
built only while open (a closed expander's content would still be sent and drawn on every run).

Every lesson page opens with them closed and empty, and a student who opens one gets its content."""

from __future__ import annotations

import pytest

from lessons.common.catalog import built_lessons
from tests.helpers import folded_key, open_page, predicted, unfold

FOLDED = ("Reveal", "Symbols on this page", "Every ")
CODE = ":material/code:"  # a listing's icon (``ui.show_code``): the labels vary


@pytest.mark.parametrize("lesson", built_lessons(), ids=lambda lesson: lesson.slug)
def test_folded_content_is_built_only_when_opened(lesson):
    at = open_page(lesson.page)
    code = [e.label for e in at.expander if e.proto.icon == CODE]
    assert code  # every lesson shows the code that ran
    folded = [e for e in at.expander if e.label.startswith(FOLDED) or e.proto.icon == CODE]
    for expander in folded:
        assert folded_key(expander), f"{expander.label!r} always holds its content"
        assert not expander.children, f"{expander.label!r} was built while closed"
    assert not at.main.code  # no listing is sent before a student asks for it
    at = unfold(at, *code)
    listings = [c.value for e in at.expander if e.proto.icon == CODE for c in e.code]
    assert listings and all(v.lstrip().startswith(("def ", "class ", "@")) for v in listings)
    assert not any(e.label.startswith("Reveal") for e in at.expander)  # not offered before its predictions
    at = predicted(at)
    reveals = [e.label for e in at.expander if e.label.startswith("Reveal")]
    if reveals:
        at = unfold(at, "Reveal")
        assert all(e.children for e in at.expander if e.label.startswith("Reveal"))
