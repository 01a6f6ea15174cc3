"""How fast each lesson's sliders answer one student, against the bare page.

    python -m bench.controls [--lessons rnn_cells scaling ...] [--moves 5]

One simulated student (``bench.streamlit_client``, Streamlit's own websocket protocol, no browser) opens each
lesson on a fresh ``streamlit run app.py`` (``bench.harness.server``, the shipped config) and moves every
slider of the page ``--moves`` times, one step at a time from where it stands (up, or down once at the top),
so every move asks for a value that server has not computed yet: the cost the first student of a class pays
(later students may find it in ``st.cache_data``). One interaction lasts from sending the rerun to its
``script_finished``: the server's work (the script or fragment run, building and sending the figures),
not the browser's drawing. Beside it, the server process's CPU time per move (user + system, all threads,
``/proc/PID/stat``, averaged over the slider's moves): what the move cost the server, which a busy machine
stretches much less than the wall-clock figure.

The yardstick, measured in the same run: ``bench/bare_heatmap.py``, one slider and one 12×12 heatmap, its
slider moved the same way. Printed: one row per slider: lesson, label, whether it lives in an
``st.fragment`` (a fragment's change reruns only the fragment), median ms and CPU ms per move, and the bare
page's; then the machine's 1-minute load average before and after. Wall-clock figures are only comparable on
a quiet machine: check the load.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys

from bench.harness import cpu_seconds, machine, server
from bench.latency import start, stop
from bench.streamlit_client import Student, Widget
from lessons.common.catalog import built_lessons


def _position(student: Student, widget: Widget) -> float:
    """The slider's current value: the one this student sent, else the page's (an option's index for a
    select_slider)."""
    state = student.states.get(widget.id)
    if state is not None and widget.proto.options:
        return list(widget.proto.options).index(state.string_array_value.data[0])
    if state is not None:
        return state.double_array_value.data[0]
    values = widget.proto.value if widget.proto.set_value else widget.proto.default
    return values[0]


def _next_value(student: Student, widget: Widget) -> float:
    """One step from where the slider stands: up, or down at the top."""
    p = widget.proto
    lo, hi, step = (0, len(p.options) - 1, 1) if p.options else (p.min, p.max, p.step or 1)
    here = _position(student, widget)
    return here + step if here + step <= hi + 1e-9 else max(lo, here - step)


async def move_sliders(url: str, pid: int, page: str, moves: int) -> list[dict]:
    """Open ``page`` on the server ``pid`` and move each of its sliders ``moves`` times; one row per slider."""
    student = Student(url, name=page or "bare")
    await student.open(page)
    rows = []
    try:
        for label in [w.label for w in student.sliders()]:
            times = []
            cpu = cpu_seconds(pid)
            for _ in range(moves):
                widget = student.widgets.get(label)  # the latest run's: a fragment rerun may redraw it
                if widget is None or widget.proto.disabled:
                    break
                try:
                    times.append(await student.change(label, _next_value(student, widget)))
                except (TimeoutError, OSError) as error:
                    print(f"  {page}: {label}: {error!r}", file=sys.stderr)
                    break
            if times:
                rows.append(
                    {
                        "lesson": page,
                        "label": label,
                        "fragment": bool(student.widgets[label].fragment_id),
                        "ms": 1000 * statistics.median(times),
                        "cpu_ms": 1000 * (cpu_seconds(pid) - cpu) / len(times),
                    }
                )
        if student.exceptions:
            print(f"  {page}: exceptions on the page: {student.exceptions}", file=sys.stderr)
    finally:
        await student.close()
    return rows


def bare_page(moves: int) -> dict:
    """The bare page's row: its one slider moved ``moves`` times on a server of its own."""
    proc, url, _ = start("bench/bare_heatmap.py")
    try:
        (row,) = asyncio.run(move_sliders(url, proc.pid, "", moves))
    finally:
        stop(proc)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lessons", nargs="*", help="url paths (default: every built lesson)")
    parser.add_argument("--moves", type=int, default=5, help="moves per slider (default 5)")
    args = parser.parse_args()
    lessons = [lesson.url_path for lesson in built_lessons()]
    if args.lessons:
        unknown = set(args.lessons) - set(lessons)
        if unknown:
            parser.error(f"not a built lesson: {', '.join(sorted(unknown))}")
        lessons = [page for page in lessons if page in args.lessons]
    before = machine()
    bare = bare_page(max(args.moves, 10))
    print(f"{'lesson':22} {'slider':44} {'fragment':8} {'median ms':>9} {'CPU ms':>6} {'bare ms':>7} {'bare CPU':>8}")
    with server() as (url, pid):
        for page in lessons:
            for row in asyncio.run(move_sliders(url, pid, page, args.moves)):
                print(
                    f"{row['lesson']:22} {row['label'][:44]:44} {'yes' if row['fragment'] else 'no':8} "
                    f"{row['ms']:9.0f} {row['cpu_ms']:6.0f} {bare['ms']:7.0f} {bare['cpu_ms']:8.0f}",
                    flush=True,
                )
    after = os.getloadavg()[0]
    print(f"1-minute load before {before['load_before']}, after {after:.2f}; {before['nproc']} cores, {before['date']}")


if __name__ == "__main__":
    main()
