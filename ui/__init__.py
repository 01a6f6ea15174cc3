"""The UI layer: the only code besides ``pages/`` and ``app.py`` that imports Streamlit. One module per concern:

- ``ui.page``: page set-up (``ui.lesson(slug)`` from the catalog), the sidebar's course map;
- ``ui.server``: the server's runtime (the collector, the memory thread, the queue for whole-page runs, torch's
  threads for a page, every use of Streamlit's internals); pages never call it;
- ``ui.presenter``: presenter mode and ``explain``;
- ``ui.links``: settings kept in the page's link (``linked``, ``sentence_input``);
- ``ui.charts``: the one presenter path for Plotly and Vega-Lite (sizes, downloads, text alternatives);
- ``ui.runs``: the student's training runs, kept in their session;
- ``ui.training``: the train-it-yourself panel and the model picker;
- ``ui.results``: shipped results and their provenance caption;
- ``ui.pretrained``: shipped checkpoints, one error contract;
- ``ui.kept``: what the server keeps for every session; ``cached`` and ``cached_resource``, Streamlit's caches made
  once per server for a page's functions;
- ``ui.own_data``: the student's own sentence pairs and models ("your model" in the lessons' views);
- ``ui.tail``: the code that ran, check-yourself questions, sources and the next lesson; ``folded``, an expander
  whose content is built only while it is open (the code listings and the reveals use it).

Pages use the names below (``ui.plotly(...)``, ``ui.training_panel(...)``).
"""

from ui.charts import altair, comparison_curves, heatmap_downloads, plotly, table, text_table, vega
from ui.classroom import class_models, class_page, progress_panel
from ui.kept import cached, cached_resource
from ui.links import checked_text, linked, sentence_input
from ui.own_data import model_data, model_file, own_model
from ui.page import HOME, lesson, page, section, sidebar, symbols, tool
from ui.presenter import (
    PRESENT_KEY,
    PRESENT_PARAM,
    PRESENTER_CSS,
    PRESENTER_SCALE,
    explain,
    literal,
    model_output,
    presenting,
)
from ui.pretrained import pretrained, shared_view
from ui.results import measured, provenance, provenance_text, shipped_results
from ui.runs import current_run, trained_model
from ui.style import narrow_screen
from ui.tail import after_answering, answered, check_yourself, exercise, folded, page_tail, reveal, show_code
from ui.training import POLL_SECONDS, model_choice, replay_gif_button, training_panel

__all__ = [
    "after_answering",
    "HOME",
    "POLL_SECONDS",
    "PRESENTER_CSS",
    "PRESENTER_SCALE",
    "PRESENT_KEY",
    "PRESENT_PARAM",
    "altair",
    "answered",
    "cached",
    "cached_resource",
    "check_yourself",
    "checked_text",
    "class_models",
    "class_page",
    "comparison_curves",
    "current_run",
    "exercise",
    "explain",
    "folded",
    "heatmap_downloads",
    "lesson",
    "linked",
    "literal",
    "measured",
    "narrow_screen",
    "model_choice",
    "model_data",
    "model_file",
    "model_output",
    "own_model",
    "page",
    "page_tail",
    "plotly",
    "presenting",
    "pretrained",
    "progress_panel",
    "provenance",
    "provenance_text",
    "replay_gif_button",
    "reveal",
    "section",
    "sentence_input",
    "shared_view",
    "shipped_results",
    "show_code",
    "sidebar",
    "symbols",
    "table",
    "text_table",
    "tool",
    "trained_model",
    "training_panel",
    "vega",
]
