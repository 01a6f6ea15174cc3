"""The one presenter path for charts: every Plotly figure and Vega-Lite chart of a page is drawn here.

Presenter sizes, the toolbar's PNG download, the numbers under a heatmap (CSV and JSON) and a heatmap's text
alternative (its strongest cells as a sentence, its values as a table) live in this module only; a test fails if
a page calls ``st.plotly_chart``, ``st.altair_chart`` or ``st.vega_lite_chart`` itself.
"""

from __future__ import annotations

import contextvars
import re

import streamlit as st

from ui.presenter import PRESENTER_SCALE, presenting

_LIVE = contextvars.ContextVar("ui.live", default=False)  # True while a training panel redraws a running run
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")  # ASCII punctuation markdown (or KaTeX, or an icon) reads


def plain(text: str) -> str:
    """Text for a markdown element (``st.caption``), shown as it is: every character markdown would read escaped,
    so a token a student typed (``**x**``, ``$x$``, ``[a](b)``) is never formatted."""
    return _MARKDOWN.sub(r"\\\1", text)


def plotly(fig, key: str) -> None:
    """A Plotly figure with the toolbar's PNG download (drawn in the browser, works offline), no logo and no
    scroll-zoom; under a figure with heatmaps, its text alternative and its numbers (a table on demand, CSV and
    JSON, tokens on both axes). Larger in presenter mode; heatmaps in the high-contrast scales when the student asks.
    The page's width; a figure that sets a width (a diagram whose boxes need it) takes it as its least, and scrolls
    sideways inside its box on a narrower screen (``ui.style``)."""
    if presenting():  # explicit sizes: Streamlit's Plotly theme sets the axes' own fonts
        fig.update_layout(height=int((fig.layout.height or 450) * PRESENTER_SCALE), font_size=17, title_font_size=22,
                          hoverlabel_font_size=17)  # fmt: skip
        if fig.layout.width:
            fig.layout.width = int(fig.layout.width * PRESENTER_SCALE)
        fig.update_xaxes(tickfont_size=16, title_font_size=17)
        fig.update_yaxes(tickfont_size=16, title_font_size=17)
        fig.update_annotations(font_size=17)
    from lessons.common import charts, export
    from ui.style import high_contrast

    if high_contrast():
        charts.high_contrast(fig)
    charts.fit_margins(fig)  # margins that fit its labels: Plotly.js then draws it once, not twice
    here = st
    if fig.layout.width:  # Streamlit fits a chart to its column: this one goes in a box at least that wide
        least, fig.layout.width = int(fig.layout.width), None
        here = st.container(key=f"{key}.box")
        box = "st-key-" + re.sub(r"[^A-Za-z0-9_-]", "-", f"{key}.box")  # the class Streamlit gives a keyed container
        st.html(f"<style>.{box} {{min-width: {least}px}} :has(> .{box}) {{overflow-x: auto}}</style>")
    name = export.file_stem(key)
    here.plotly_chart(
        fig,
        key=key,
        width="stretch",
        config={"displaylogo": False, "scrollZoom": False,
                "toImageButtonOptions": {"format": "png", "filename": name, "scale": 2}},
    )  # fmt: skip
    if not _LIVE.get() and any(trace.type == "heatmap" for trace in fig.data):
        heatmap_downloads(fig, key, name)


def vega(spec: dict, key: str, height: int | None = None, container=None, width: str = "stretch") -> None:
    """A Vega-Lite chart (curves: see ``lessons.common.charts.with_values``), its text and height larger in presenter
    mode.

    Keyed, so that Streamlit updates the drawn chart in place when only its numbers change. ``container``: a column
    to draw it in (default: here). ``width="content"`` for a chart whose panels have a fixed width (a facet)."""
    if (spec.get("autosize") or {}).get("type") == "fit-x":
        height = None  # the spec sets its plot's height and the chart grows with its legend: Streamlit must not fit it
    if presenting():
        from lessons.common import charts

        spec = charts.presenter_vega(spec, PRESENTER_SCALE)
        height = int(height * PRESENTER_SCALE) if height else None
    (container or st).vega_lite_chart(spec=spec, key=key, width=width, **({"height": height} if height else {}))


def altair(chart, key: str, height: int | None = None, container=None, width: str = "stretch") -> None:
    """An Altair chart, drawn through :func:`vega` (so presenter mode enlarges it like every other chart)."""
    vega(chart.to_dict(), key, height=height, container=container, width=width)


def heatmap_downloads(fig, key: str, name: str) -> None:
    """The text alternative and a small "numbers" menu under a figure with heatmaps.

    The alternative, for a student who cannot see the colours (a screen reader, a colour-blind reader, a washed-out
    projector): a caption with each heatmap's strongest links in words (``lessons.common.export.describe``), and the
    values as a table on demand, in an expander whose table is built only while it is open (``on_change="rerun"``).
    The menu offers its cells as one CSV and one JSON, made when clicked: two buttons per figure, however many
    heatmaps it has, and the tables are read from the figure only on a click: a grid of heads had two buttons per
    heatmap, rebuilt on every move of a control (py-spy under the class load bench: a twelfth of the server's
    time)."""
    from lessons.common import charts, export

    tables = export.heatmap_tables(fig)
    count = len(tables)
    st.caption(plain(export.describe(tables)))
    values = st.expander("Values as a table", icon=":material/table:", key=f"{key}.values", on_change="rerun")
    if values.open:
        with values:
            table(charts.values_frame(tables), key=f"{key}.values.table")
    with st.popover("Numbers", icon=":material/download:", help="This figure's numbers as files"):
        st.caption(f"The values of {'this heatmap' if count == 1 else f'these {count} heatmaps'}, tokens on both axes.")
        cols = st.columns(2)
        cols[0].download_button(
            "CSV", lambda: export.tables_to_csv(export.heatmap_tables(fig)),
            file_name=f"{name}.csv", mime="text/csv", key=f"{key}.csv", on_click="ignore",
        )  # fmt: skip
        cols[1].download_button(
            "JSON", lambda: export.tables_to_json(export.heatmap_tables(fig)), file_name=f"{name}.json",
            mime="application/json", key=f"{key}.json", on_click="ignore",
        )  # fmt: skip


def comparison_curves(charts, key: str, *, names=("loss", "accuracy"), axis_key: str | None = None,
                      height: int | None = None) -> None:  # fmt: skip
    """A measured comparison's curves side by side (one column per chart, keyed ``{key}.{name}``).

    ``charts(x=…)`` builds the Vega-Lite specs (``lessons.common.comparison.curves_chart``) against the training
    step, or, with ``axis_key``, against the step or the seconds as the student picks (a control kept in the
    page's link); without it, ``charts()`` is called as it is. ``height``: the whole chart's, passed on to
    ``charts`` (whose specs give their plot what the title, axis and legend leave)."""
    sized = {"height": height} if height else {}  # the whole chart's: the builder gives its plot what is left
    if axis_key:
        from ui.links import linked

        axis = linked(st.radio, "Curves against", ["training step", "seconds"], horizontal=True, key=axis_key)
        specs = charts(x="step" if axis == "training step" else "seconds", **sized)
    else:
        specs = charts(**sized)
    for column, name, spec in zip(st.columns(len(names)), names, specs, strict=True):
        vega(spec, key=f"{key}.{name}", container=column)


def table(rows, *, formats: dict[str, str] | None = None, container=None, **kwargs) -> None:
    """A lesson's table of numbers, the one way: no index column, the page's width; ``formats`` gives a column's
    number format (``{"max |f|": "%.2e"}``). Other keyword arguments go to ``st.dataframe`` (``key``, ``height``)."""
    config = {name: st.column_config.NumberColumn(format=f) for name, f in (formats or {}).items()}
    (container or st).dataframe(
        rows, hide_index=True, **{"width": "stretch", "column_config": config or None, **kwargs}
    )
