"""The one presenter path for charts: every Plotly figure and Vega-Lite chart of a page is drawn here.

Presenter sizes, the toolbar's PNG download, the numbers under a heatmap (CSV and JSON) and a heatmap's text
alternative (its strongest cells as a sentence, its values as a table) live in this module only; a test fails if
a page calls ``st.plotly_chart``, ``st.altair_chart`` or ``st.vega_lite_chart`` itself.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import json
import numbers
import pickle
import re
from dataclasses import dataclass

import streamlit as st

from lessons.common.vega import presenter_vega
from ui import server
from ui.kept import Kept, digest
from ui.links import linked
from ui.presenter import PRESENTER_SCALE, presenting
from ui.pretrained import shared_view
from ui.server import arrow_table
from ui.style import high_contrast, narrow_screen

_LIVE = contextvars.ContextVar("ui.live", default=False)  # True while a training panel redraws a running run
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")  # ASCII punctuation markdown (or KaTeX, or an icon) reads


def plain(text: str) -> str:
    """Text for a markdown element (``st.caption``), shown as it is: every character markdown would read escaped,
    so a token a student typed (``**x**``, ``$x$``, ``[a](b)``) is never formatted."""
    return _MARKDOWN.sub(r"\\\1", text)


@dataclass(frozen=True)
class _Drawn:
    """A figure as a page draws it, prepared once for every session that draws the same figure (presenter sizes,
    scales, fitted margins, its text alternative); never changed after it is made."""

    frozen: object  # the prepared Plotly figure, as handed to Streamlit (its ``to_dict`` made once: :func:`_frozen`)
    least: int | None  # the width it needs at least (a diagram), else None
    tables: tuple  # its heatmaps' values with every row's and column's label (``export.heatmap_tables``), read
    # before a phone's tick labels are thinned: the downloads and the text alternative name every cell
    caption: str | None  # the heatmaps' text alternative; None when it has no heatmap
    unlabelled: str | None  # which of its points' labels had no room on this screen, and where to read them; or None


_DRAWN = Kept(512)  # the server's figures by content: a class on every lesson at its defaults, and what students try
_BUILT = Kept(512)  # the same figures by who built them from what (``_built``): no Plotly object is made


def _frozen(fig):
    """``fig`` as a figure whose ``to_dict`` (what Streamlit serialises, a deep copy each time) is made once, in
    plain JSON types: Plotly's JSON writer then writes it straight away instead of first walking it to convert its
    NumPy arrays, each time a page is drawn."""
    import plotly.graph_objects as go  # here: the home page loads ui, never Plotly
    import plotly.io  # here: the home page loads ui, never Plotly

    class Frozen(go.Figure):
        def to_dict(self):
            return self._spec

    spec = json.loads(plotly.io.to_json(fig, validate=False))
    frozen = Frozen(spec, _validate=False)
    frozen._spec = spec
    return frozen


def _prepared(fig, flags: tuple | None = None, *, twin: bool = False) -> _Drawn:
    """``fig`` made ready to draw: the same figure met before (by any session) is prepared once. ``flags``: the
    settings to draw it for (presenter, contrast, phone), this student's by default; ``twin``: prepare its
    high-contrast twin later (:func:`_twin_wanted`), as for a figure a builder made.

    Preparing costs more than building: fitting the margins reads every label, the text alternative every cell."""

    flags = flags or _settings()
    key = _drawn_key(fig, flags)

    def make() -> _Drawn:
        if twin and _twin_wanted(flags):  # the figure as handed over, before preparing changes it: pickled, which
            # is quick, where copying the Plotly figure would cost this run milliseconds
            twin_flags = _twin_flags(flags)
            saved = pickle.dumps((fig._data, fig._layout), protocol=pickle.HIGHEST_PROTOCOL)
            server.later(functools.partial(_prepare_twin, saved, _drawn_key(fig, twin_flags), twin_flags))
        return _prepare(fig, *flags)

    return _DRAWN.get_or_make(key, make)


def _settings() -> tuple:
    """This student's settings a figure is drawn for: (presenter, contrast, phone)."""
    return presenting(), high_contrast(), narrow_screen()


def _drawn_key(fig, flags: tuple) -> bytes:
    """Who a figure is, prepared: its traces and layout as Plotly holds them (numbers, labels, sizes), and the
    settings. A twin is kept under the key the page run in its settings will look for."""
    return digest(fig._data, fig._layout, flags)


def _built_name(builder, args: tuple, kwargs: dict, flags: tuple) -> bytes:
    """Who a builder's figure is: the builder, its arguments and the settings (a twin's as the page run's)."""
    return digest(builder.__module__, builder.__qualname__, args, kwargs, *flags)


def _prepare_twin(saved: bytes, key: bytes, flags: tuple) -> None:
    """The twin of a figure handed over whole (``saved``: its traces and layout), prepared for ``flags`` and kept
    under ``key``."""
    import plotly.graph_objects as go  # here: the home page loads ui, never Plotly

    data, layout = pickle.loads(saved)  # the server's own bytes, made a moment ago
    _DRAWN.get_or_make(key, lambda: _prepare(go.Figure({"data": data, "layout": layout}), *flags))


def _twin_wanted(flags: tuple) -> bool:
    """Whether a figure just made for ``flags`` should get its high-contrast twin made too, later: one made in the
    normal scales by a page drawn whole (a page's figures as a student opens it; not each new value a section's
    control gives, which few switch high contrast over).

    Otherwise the first student of a class to switch high contrast on waits for every figure of the page to be built
    and prepared in those scales (about twice the next switch's wait, bench/class_scenario.md); made beforehand, when
    no page is being drawn (``ui.server.later``), that switch waits no longer than the next."""
    return not flags[1] and not server.fragment_rerun()


def _twin_flags(flags: tuple) -> tuple:
    presenter, _, narrow = flags
    return presenter, True, narrow


def _prepare(fig, presenter: bool, contrast: bool, narrow: bool) -> _Drawn:
    """Presenter sizes, the high-contrast scales, a phone's one panel a row, fitted margins and the text
    alternative, made on ``fig`` itself."""
    from lessons.common import colorscales, export, grids, margins, point_labels  # here: the home page loads no Plotly

    tables = tuple(export.heatmap_tables(fig))  # before a phone's every k-th tick label leaves the others unnamed
    if presenter:  # explicit sizes: Streamlit's Plotly theme sets the axes' own fonts
        fig.update_layout(
            height=int((fig.layout.height or 450) * PRESENTER_SCALE),
            font_size=17,
            title_font_size=22,
            hoverlabel_font_size=17,
        )
        if fig.layout.width:
            fig.layout.width = int(fig.layout.width * PRESENTER_SCALE)
        fig.update_xaxes(tickfont_size=16, title_font_size=17)
        fig.update_yaxes(tickfont_size=16, title_font_size=17)
        fig.update_annotations(font_size=17)
    if contrast:
        colorscales.high_contrast(fig)
    if narrow:  # the panels one a row, a colour bar under the chart, then the labels for the width the margins leave
        grids.stack_panels(fig)
        grids.phone_colorbar(fig)
        margins.fit_margins(fig)
        grids.phone_ticks(fig)
        grids.phone_cell_text(fig)
    margins.fit_margins(fig)  # margins that fit its labels: Plotly.js then draws it once, not twice
    # words beside points: each where it covers no other, for the width the figure gets on this screen
    left_off = point_labels.place_point_labels(
        fig, fig.layout.width or (grids.PHONE_CHART_PX if narrow else point_labels.DESKTOP_CHART_PX)
    )
    # The margins hold the labels now, so Plotly.js need not check each one: its default for a numeric axis ("hide
    # past div") measures every tick label's box in the browser on every draw, a cost a page of many maps feels
    # (bench/same_weight.md).
    fig.update_xaxes(ticklabeloverflow="allow")
    fig.update_yaxes(ticklabeloverflow="allow")
    least = None
    if fig.layout.width:  # Streamlit fits a chart to its column: this one goes in a box at least that wide
        least, fig.layout.width = int(fig.layout.width), None
    caption = plain(export.describe(tables)) if tables else None
    return _Drawn(_frozen(fig), least, tables, caption, point_labels.left_off_text(fig, left_off))


def _built(builder, args: tuple, kwargs: dict) -> _Drawn:
    """``builder(*args, **kwargs)`` prepared, built once per server for the same builder, arguments and settings.

    Building costs too: Plotly's constructors and ``update_*`` calls are a large part of a whole-page run, for figures
    the server had built before. Only a module-level function is
    kept by its arguments (a closure or a method may draw on more than them); arguments that cannot be pickled
    (:func:`ui.kept.digest`) are built each time."""

    def build() -> _Drawn:
        return _prepared(builder(*args, **kwargs))

    pure = inspect.isfunction(builder) and builder.__closure__ is None and "<locals>" not in builder.__qualname__
    if not pure:
        return build()
    try:
        flags = _settings()
        name = _built_name(builder, args, kwargs, flags)
    except Exception:  # something pickle cannot take (a model, a generator): built this time
        return build()

    def build_and_twin() -> _Drawn:
        drawn = build()
        if _twin_wanted(flags):
            twin = _twin_flags(flags)
            server.later(
                functools.partial(_build_twin, builder, args, kwargs, twin, _built_name(builder, args, kwargs, twin))
            )
        return drawn

    return _BUILT.get_or_make(name, build_and_twin)


def _build_twin(builder, args: tuple, kwargs: dict, flags: tuple, name: bytes) -> None:
    """``builder``'s figure built and prepared for ``flags`` (a high-contrast twin, :func:`_twin_wanted`), kept as a
    page run would keep it."""
    from lessons.common import grids  # here: Plotly; the home page never loads it

    token = grids.NARROW.set(flags[2])  # the builder draws for that screen, as in the page's run
    try:
        _BUILT.get_or_make(name, lambda: _prepared(builder(*args, **kwargs), flags))
    finally:
        grids.NARROW.reset(token)


def plotly(fig, *args, key: str, **kwargs) -> None:
    """A Plotly figure with the toolbar's PNG download (drawn in the browser, works offline), no logo and no
    scroll-zoom; under a figure with heatmaps, its text alternative and its numbers (a table on demand, CSV and
    JSON, tokens on both axes). Larger in presenter mode; heatmaps in the high-contrast scales when the student asks.
    The page's width; a figure that sets a width (a diagram whose boxes need it) takes it as its least, and scrolls
    sideways inside its box on a narrower screen, which says so (``ui.style``). On a phone (``ui.style.narrow_screen``)
    a figure of several panels side by side is drawn one panel a row, its one colour bar laid under it, and a heatmap's
    cells too narrow to hold a readable number go without; on a touch screen or a phone no toolbar covers its title
    (``ui.style.APP_CSS``).

    ``fig``: a figure, or a lesson's function that builds one from ``args`` and ``kwargs``
    (``ui.plotly(masking.causal_mask_figure, labels, key=…)``): a figure built before from the same arguments (by
    any session) is not built again (:func:`_built`). A figure handed over may be changed on the way: hand over one
    made for this call. A figure the server has drawn before (same traces, layout and settings, from any session)
    is prepared once (:func:`_prepared`)."""
    from lessons.common import export, grids  # here: Plotly; the home page loads ui, never Plotly

    grids.NARROW.set(narrow_screen())  # a builder draws for the student's screen, here and for the rest of this run
    drawn = _built(fig, args, kwargs) if callable(fig) and not hasattr(fig, "to_dict") else _prepared(fig, twin=True)
    here = st
    if drawn.least:
        here = st.container(key=f"{key}.box")
        box = "st-key-" + re.sub(r"[^A-Za-z0-9_-]", "-", f"{key}.box")  # the class Streamlit gives a keyed container
        st.html(f"<style>.{box} {{min-width: {drawn.least}px}} :has(> .{box}) {{overflow-x: auto}}</style>")
    name = export.file_stem(key)
    here.plotly_chart(
        drawn.frozen,
        key=key,
        width="stretch",
        config={
            "displaylogo": False,
            "scrollZoom": False,
            "toImageButtonOptions": {"format": "png", "filename": name, "scale": 2},
        },
    )
    if not _LIVE.get() and drawn.caption is not None:
        heatmap_downloads(drawn.tables, key, name, caption=drawn.caption)
    if drawn.unlabelled:
        st.caption(drawn.unlabelled)


def vega(spec: dict, key: str, height: int | None = None, container=None, width: str = "stretch") -> None:
    """A Vega-Lite chart (curves: see ``lessons.common.vega.with_values``), its text and height larger in presenter
    mode.

    Keyed, so that Streamlit updates the drawn chart in place when only its numbers change. ``container``: a column
    to draw it in (default: here). ``width="content"`` for a chart whose panels have a fixed width (a facet)."""
    if (spec.get("autosize") or {}).get("type") == "fit-x":
        height = None  # the spec sets its plot's height and the chart grows with its legend: Streamlit must not fit it
    if presenting():
        spec = presenter_vega(spec, PRESENTER_SCALE)
        height = int(height * PRESENTER_SCALE) if height else None
    data, inline = None, spec.get("data")
    values = inline.get("values") if isinstance(inline, dict) else None
    if isinstance(values, list) and values and all(isinstance(row, dict) for row in values):
        spec = {k: v for k, v in spec.items() if k != "data"}  # the caller's spec stays as it was
        data = _arrow(values)  # what Streamlit sends apart from the spec anyway, made once per content
    (container or st).vega_lite_chart(data, spec=spec, key=key, width=width, **({"height": height} if height else {}))


def altair(chart, key: str, height: int | None = None, container=None, width: str = "stretch") -> None:
    """An Altair chart, drawn through :func:`vega` (so presenter mode enlarges it like every other chart)."""
    vega(chart.to_dict(), key, height=height, container=container, width=width)


def heatmap_downloads(tables, key: str, name: str, caption: str) -> None:
    """The text alternative under a figure with heatmaps, and its numbers on demand. ``tables``: its heatmaps
    (``lessons.common.export.heatmap_tables``); ``caption``: their text alternative.

    The alternative, for a student who cannot see the colours (a screen reader, a colour-blind reader, a washed-out
    projector): a caption with each heatmap's strongest links in words (``lessons.common.export.describe``). Its
    numbers: in one expander whose content is built only while it is open (``on_change="rerun"``), the values as a
    table and the cells as one CSV and one JSON file, made when clicked. Two elements per figure until a student
    asks: the menu that held the files had been seven more (a popover, its caption, columns, two buttons) under
    every heatmap, for every student on every run (a quarter of the masking lesson's 198 elements)."""
    from lessons.common import export  # here: Plotly; the home page loads ui, never Plotly

    st.caption(caption)
    values = st.expander(
        "Values as a table, CSV, JSON", icon=":material/table:", key=f"{key}.values", on_change="rerun"
    )
    if not values.open:
        return
    with values:
        count = len(tables)
        table(export.values_frame(tables), key=f"{key}.values.table")
        st.caption(
            f"The values of {'this heatmap' if count == 1 else f'these {count} heatmaps'}, tokens on both axes, "
            "as files:"
        )
        cols = st.columns(2)
        cols[0].download_button(
            "CSV",
            lambda: export.tables_to_csv(tables),
            icon=":material/download:",
            file_name=f"{name}.csv",
            mime="text/csv",
            key=f"{key}.csv",
            on_click="ignore",
        )
        cols[1].download_button(
            "JSON",
            lambda: export.tables_to_json(tables),
            icon=":material/download:",
            file_name=f"{name}.json",
            mime="application/json",
            key=f"{key}.json",
            on_click="ignore",
        )


def comparison_curves(
    charts, key: str, *, names=("loss", "accuracy"), axis_key: str | None = None, height: int | None = None
) -> None:
    """A measured comparison's curves side by side (one column per chart, keyed ``{key}.{name}``).

    ``charts(x=…)`` builds the Vega-Lite specs (``lessons.common.curves.curves_chart``) against the training
    step, or, with ``axis_key``, against the step or the seconds as the student picks (a control kept in the
    page's link); without it, ``charts()`` is called as it is. ``height``: the whole chart's, passed on to
    ``charts`` (whose specs give their plot what the title, axis and legend leave)."""
    sized = {"height": height} if height else {}  # the whole chart's: the builder gives its plot what is left
    if axis_key:
        axis = linked(st.radio, "Curves against", ["training step", "seconds"], horizontal=True, key=axis_key)
        specs = _curve_specs(charts, x="step" if axis == "training step" else "seconds", **sized)
    else:
        specs = _curve_specs(charts, **sized)
    for column, name, spec in zip(st.columns(len(names)), names, specs, strict=True):
        vega(spec, key=f"{key}.{name}", container=column)


def _curve_specs(charts, **options):
    """``charts(**options)``; once per server when ``charts`` is a lesson's function of its shipped results
    (``partial(masking.results_curves, results)``, as every page passes them): the specs are then shared, read only.
    Averaging every seed's curves on every run was ~3% of the server's time with a class on the lessons."""

    if isinstance(charts, functools.partial) and charts.args:
        return shared_view(charts.func, *charts.args, **{**charts.keywords, **options})  # as the partial merges them
    return charts(**options)


def table(rows, *, formats: dict[str, str] | None = None, container=None, **kwargs) -> None:
    """A lesson's table of numbers, the one way: no index column, the page's width; ``formats`` gives a column's
    number format (``{"max |f|": "%.2e"}``). Other keyword arguments go to ``st.dataframe`` (``key``, ``height``).

    On a phone a table of words (sentences, a head's words, beside whole numbers) is a static table whose cells wrap:
    a data frame's cells never wrap, and a sentence ran up to four screens wide, read by swiping cell by cell."""
    wrapped = _once(("phone", rows), lambda: _phone_table(_frame(rows))) if narrow_screen() and not formats else None
    if wrapped is not None:
        (container or st).table(wrapped, hide_index=True)
        return
    config = {name: st.column_config.NumberColumn(format=f) for name, f in (formats or {}).items()}
    (container or st).dataframe(
        _arrow(rows), hide_index=True, **{"width": "stretch", "column_config": config or None, **kwargs}
    )


def text_table(rows, *, container=None) -> None:
    """A static table whose cells wrap, no index column; every header and cell that is text shown as the text it is
    (``st.table`` reads Markdown in both: a sentence ``**x** $y$`` would come out bold and as an equation)."""
    (container or st).table(_once(("text", rows), lambda: _escaped(_frame(rows))), hide_index=True)


def _escaped(frame):
    """``frame`` as an Arrow table whose text, headers included, Markdown shows as it is written."""
    return arrow_table(
        frame.rename(columns=lambda name: plain(str(name))).map(lambda v: plain(v) if isinstance(v, str) else v)
    )


def _phone_table(frame):
    """On a phone, ``frame`` as :func:`text_table` draws it when it is a table of words (:func:`_words_only`), else
    None: decided and escaped in one go, once per content."""
    return _escaped(frame) if _words_only(frame) else None


def _frame(rows):
    import pandas as pd  # here: the home page loads ui, never pandas

    return rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)


WRAPPED_ROWS = 30  # a longer table stays a data frame on a phone: it scrolls within its height, not the page's


def _words_only(frame) -> bool:
    """Whether a table's cells are text and whole numbers (a head's number, a step's), text in at least one, in at
    most :data:`WRAPPED_ROWS` rows (a measured number keeps the data frame's own format)."""
    cells = frame.to_numpy().ravel()
    words = any(isinstance(cell, str) for cell in cells)
    return len(frame) <= WRAPPED_ROWS and words and all(isinstance(cell, str | numbers.Integral) for cell in cells)


_TABLES = Kept(512)  # the server's tables as Arrow, by content


def _once(key, make):
    """``make()``, made once per ``key``'s content for every session (rows that cannot be pickled: every time)."""
    try:
        fingerprint = digest(key)
    except (pickle.PicklingError, TypeError, AttributeError):
        return make()
    return _TABLES.get_or_make(fingerprint, make)


def _arrow(rows):
    """``rows`` (dicts or a data frame) as the Arrow table Streamlit would make of them, made once per content for
    every session: converting through pandas is a noticeable part of a lesson's run."""
    return _once(rows, lambda: arrow_table(_frame(rows)))
