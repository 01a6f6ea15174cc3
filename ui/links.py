"""Shareable state: a lesson's main settings live in its link (``?matrix_d_k=16&sentence=I+like+pizza``)."""

from __future__ import annotations

import functools
import inspect

import streamlit as st

from lessons.common import url_state
from ui.presenter import literal

_CHOICE_WIDGETS = ("select_slider", "selectbox", "radio")
_NUMBER_WIDGETS = ("number_input", "slider")
_TEXT_WIDGETS = ("text_input", "text_area")
_BOOL_WIDGETS = ("toggle", "checkbox")


def _signature(widget) -> inspect.Signature:
    """``inspect.signature(widget)``, read once per widget function: ``cols[0].slider`` is a new bound method on
    every run, its function the same."""
    func = getattr(widget, "__func__", None)
    return _method_signature(func) if func is not None else _function_signature(widget)


@functools.cache
def _function_signature(func) -> inspect.Signature:
    return inspect.signature(func)


@functools.cache
def _method_signature(func) -> inspect.Signature:
    signature = inspect.signature(func)
    return signature.replace(parameters=list(signature.parameters.values())[1:])  # as bound: without ``self``


def _widget_spec(widget, args: tuple, kwargs: dict):
    """(default value, parse(raw) -> value) of a widget call, read from its own signature."""
    bound = _signature(widget).bind(*args, **kwargs)
    bound.apply_defaults()
    a = bound.arguments
    kind = widget.__name__
    if kind in _CHOICE_WIDGETS:
        options = list(a["options"])
        if kind == "select_slider":
            default = options[0] if a["value"] is None else a["value"]
        else:
            default = None if a["index"] is None else options[a["index"]]
        return default, lambda raw: url_state.parse_choice(raw, options, a.get("format_func"))
    if kind in _NUMBER_WIDGETS:
        lo, hi, value = a["min_value"], a["max_value"], a["value"]
        default = lo if value in (None, "min") else value
        integer = all(isinstance(x, int) for x in (lo, hi, default, a["step"]) if x is not None)
        return default, lambda raw: url_state.parse_number(raw, lo, hi, integer=integer)
    if kind in _TEXT_WIDGETS:
        return a["value"], lambda raw: url_state.parse_text(raw, a["max_chars"])
    if kind in _BOOL_WIDGETS:
        return a["value"], url_state.parse_bool
    if kind == "multiselect":  # repeated parameters: ?heads=1&heads=3
        options, chosen = list(a["options"]), a["default"]
        default = [] if chosen is None else list(chosen) if isinstance(chosen, list | tuple) else [chosen]

        def parse(raws: list[str]) -> list:
            picked = list(dict.fromkeys(url_state.parse_choice(r, options, a.get("format_func")) for r in raws))
            if a.get("max_selections") and len(picked) > a["max_selections"]:
                raise url_state.LinkValueError(f"it picks more than {a['max_selections']}")
            return picked

        return default, parse
    raise TypeError(f"ui.linked does not know the widget {kind}")


def linked(widget, *args, key: str, param: str | None = None, **kwargs):
    """Call ``widget(*args, key=key, **kwargs)`` with its value kept in the page's link.

    A page adopts it by wrapping the call: ``cols[1].select_slider("d_k", [2, 4, 8], value=4, key="x.d_k")``
    becomes ``ui.linked(cols[1].select_slider, "d_k", [2, 4, 8], value=4, key="x.d_k")``. The query
    parameter is the key without its lesson prefix (``d_k``), or ``param``. When the widget first appears, a
    valid value in the link becomes its value; a refused one (not a choice, out of range, not a finite
    number, too long) leaves the default and a note under the widget, never an exception. Afterwards the link
    follows the widget: a value other than the default is written into it, so copying the address shares
    the lesson as it is set. Text boxes only check the length here; the page checks the text as it would
    check typed text.
    """
    param = param or key.split(".", 1)[-1]
    st.session_state.setdefault("ui.linked", set()).add(param)  # the page's link parameters, for tests
    default, parse = _widget_spec(widget, args, {"key": key, **kwargs})
    note = None
    call = _signature(widget).bind(*args, key=key, **kwargs)
    if key not in st.session_state and param in st.query_params:  # the widget's first appearance
        raw = st.query_params.get_all(param) if widget.__name__ == "multiselect" else st.query_params[param]
        try:
            st.session_state[key] = parse(raw)
            for name in ("value", "index", "default"):  # the value comes from session state; a default as well would be
                call.arguments.pop(name, None)  # logged as a conflict (a keyed widget's id does not depend on it)
        except url_state.LinkValueError as reason:
            shown = url_state.shown(raw if isinstance(raw, str) else ",".join(raw))
            note = f"The link's {literal(f'{param}={shown}')} was not used: {reason}. Showing the default."
    value = widget(*call.args, **call.kwargs)
    if note:
        getattr(widget, "__self__", st).caption(f":material/link_off: {note}")
    if isinstance(value, list):  # a multiselect: one repeated parameter per chosen option
        chosen = [] if value == default else [url_state.to_param(v) for v in value]
        if st.query_params.get_all(param) != chosen:
            if chosen:
                st.query_params[param] = chosen
            else:
                del st.query_params[param]
        return value
    written = None if value == default or value is None else url_state.to_param(value)
    if st.query_params.get(param) != written:
        if written is None:
            del st.query_params[param]
        else:
            st.query_params[param] = written
    return value


def checked_text(
    widget,
    label: str,
    default: str,
    *,
    key: str,
    parse,
    keep: str = "tokens",
    what: str = "sentence",
    ok_key: str | None = None,
    link: bool = True,
    **kwargs,
):
    """A text box (``st.text_input``, ``st.text_area``, or a column's) whose text the lesson checks.

    ``parse(text)`` returns an object with ``error`` (None when the text is usable) and the attribute ``keep`` (the
    tokens, the sentences…). Refused text gets a warning and the last value that worked, kept in
    ``st.session_state[ok_key]``, is returned, so the figures below never see unusable input. With ``link`` the
    text is part of the page's link (:func:`linked`)."""
    ok_key = ok_key or f"{key}.ok"
    st.session_state.setdefault(ok_key, getattr(parse(default), keep))
    text = (
        linked(widget, label, value=default, key=key, **kwargs) if link else widget(label, default, key=key, **kwargs)
    )
    parsed = parse(text)
    if parsed.error:
        st.warning(f"{parsed.error} Showing the last {what} that worked.")
    else:
        st.session_state[ok_key] = getattr(parsed, keep)
    return st.session_state[ok_key]


def sentence_input(label: str, default: str, key: str, parse, tokens_key: str | None = None) -> tuple[str, ...]:
    """A text box for the student's sentence, in the page's link: :func:`checked_text` of its tokens."""
    return checked_text(st.text_input, label, default, key=key, parse=parse, ok_key=tokens_key, max_chars=2000)
