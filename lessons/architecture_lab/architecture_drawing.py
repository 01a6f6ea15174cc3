"""The drawing of both chains as SVG (section 1): layers as boxes, data flowing upwards, repeats and residual blocks
as frames around their bodies, every source attention reading the encoder's output.
"""

from __future__ import annotations

import html

from minimodels.chains.language import Chain, Highway, Parallel, Repeat, Residual

_BOX_W, _BOX_H = 124, 22  # a layer's box
_GAP = 16  # between two stacked things: room for the arrow
_PAD, _LABEL = 8, 14  # a block's margin around its body, and the room under it for its "× n" or "res"
_SKIP = 14  # room right of a residual block for its skip arrow
_R = 8  # the ⊕'s radius
_COLUMN_GAP = 44
_FONT = 'font-family="Helvetica, Arial, sans-serif" font-size="11"'


def _width(items: Chain) -> float:
    """How wide a chain is drawn: a block is its body's width plus its margins (and a residual's skip arrow)."""
    widths = [_BOX_W]
    for item in items:
        if isinstance(item, Repeat):
            widths.append(_width(item.body) + 2 * _PAD)
        elif isinstance(item, Residual | Highway):
            widths.append(_width(item.body) + 2 * (_PAD + _SKIP))
        elif isinstance(item, Parallel):
            widths.append(sum(_width(b) for b in item.branches) + _GAP * (len(item.branches) - 1))
    return max(widths)


def architecture_svg(encoder: Chain, decoder: Chain) -> str:
    """A drawing of both chains as SVG, made here rather than by Graphviz in the browser, which costs a student's
    CPU about 0.3 s on each preset: data flows upwards, a repeat is a box marked × n (drawn once, not unrolled), a
    residual is a dashed box whose input also skips to its output (⊕), every source attention reads the encoder's
    output. Only parsed names appear in it, escaped, never raw text."""
    back: list[str] = []  # the blocks' boxes, drawn first
    front: list[str] = []  # layers, arrows and labels
    source_attentions: list[tuple[float, float]] = []  # the left middle of each source attention's box
    out = [0.0, 0.0, 0.0, 0.0]  # x, y, dx, dy: the encoder's output leaves its last box rightwards, a ⊕ upwards

    def arrow(x0: float, y0: float, x1: float, y1: float) -> None:
        front.append(
            f'<line x1="{x0:g}" y1="{y0:g}" x2="{x1:g}" y2="{y1 + 2:g}" stroke="#555555" marker-end="url(#head)"/>'
        )

    def text(x: float, y: float, label: str, extra: str = "") -> None:
        front.append(f'<text x="{x:g}" y="{y:g}" text-anchor="middle" {_FONT}{extra}>{html.escape(label)}</text>')

    def parallel(item: Parallel, cx: float, below: float, top: float) -> tuple[float, float]:
        widths = [_width(branch) for branch in item.branches]
        x = cx - (sum(widths) + _GAP * (len(widths) - 1)) / 2
        ends, tops = [], []
        for branch, w in zip(item.branches, widths, strict=True):
            end, branch_top = chain(branch, x + w / 2, below, top)
            ends.append((x + w / 2, end))
            tops.append(branch_top)
            x += w + _GAP
        # the one input, fanned out to every branch
        front.append(f'<line x1="{ends[0][0]:g}" y1="{below:g}" x2="{ends[-1][0]:g}" y2="{below:g}" stroke="#555555"/>')
        y = min(tops) - _GAP - _BOX_H
        for bx, end in ends:
            arrow(bx, end, cx, y + _BOX_H)
        label = "+ (sum)" if item.add else "concat → linear"
        front.append(
            f'<rect x="{cx - _BOX_W / 2:g}" y="{y:g}" width="{_BOX_W}" height="{_BOX_H}" rx="6" '
            'fill="#f4f6fb" stroke="#333333"/>'
        )
        text(cx, y + 15, label)
        out[:] = cx + _BOX_W / 2, y + _BOX_H / 2, 1, 0
        return y, y

    def chain(items: Chain, cx: float, below: float, top: float) -> tuple[float, float]:
        """Draws ``items`` upwards above ``top``, centred on ``cx``; ``below`` is where the arrow into the first
        one starts. Returns (the top of the last one drawn, the new ``top``)."""
        for item in items:
            if isinstance(item, Parallel):  # branches side by side from one input, merged above them
                below, top = parallel(item, cx, below, top)
            elif isinstance(item, Repeat | Residual | Highway):
                skips = not isinstance(item, Repeat)
                bottom = top - _GAP
                half = _width((item,)) / 2 - (_SKIP if skips else 0)
                below, top = chain(item.body, cx, below, bottom - _LABEL)
                top -= _PAD
                style = (
                    'stroke="#8888aa" rx="8"' if isinstance(item, Repeat) else 'stroke="#aaaaaa" stroke-dasharray="4 3"'
                )
                back.append(
                    f'<rect x="{cx - half:g}" y="{top:g}" width="{2 * half:g}" height="{bottom - top:g}" '
                    f'fill="none" {style}/>'
                )
                label = f"× {item.count}" if isinstance(item, Repeat) else _BLOCK_LABELS[type(item)]
                front.append(f'<text x="{cx - half + 5:g}" y="{bottom - 4:g}" {_FONT} fill="#555555">{label}</text>')
                if skips:  # the block's input skips it and is added to (a highway: gated with) its output
                    cy = top - _GAP - _R
                    arrow(cx, below, cx, cy + _R)
                    front.append(f'<circle cx="{cx:g}" cy="{cy:g}" r="{_R}" fill="white" stroke="#555555"/>')
                    text(cx, cy + 4, "+" if isinstance(item, Residual) else "t")
                    out[:] = cx, cy - _R, 0, -1
                    start = bottom + _GAP  # just above the block's input
                    bend = cx + half + _SKIP
                    front.append(
                        f'<path d="M{cx + 4:g},{start - 2:g} C{bend:g},{start - 8:g} {bend:g},{cy + 8:g} '
                        f'{cx + _R + 1:g},{cy:g}" fill="none" stroke="#999999" stroke-dasharray="4 3" '
                        'marker-end="url(#head)"/>'
                    )
                    below, top = cy - _R, cy - _R
            else:
                y = top - _GAP - _BOX_H
                label = item.name if item.option is None else f"{item.name}({item.option})"
                colour = _COLOURS.get(_family(item.name), "#f4f6fb")
                arrow(cx, below, cx, y + _BOX_H)
                front.append(
                    f'<rect x="{cx - _BOX_W / 2:g}" y="{y:g}" width="{_BOX_W}" height="{_BOX_H}" rx="6" '
                    f'fill="{colour}" stroke="#333333"/>'
                )
                text(cx, y + 15, label)
                out[:] = cx + _BOX_W / 2, y + _BOX_H / 2, 1, 0
                if item.name in ("dot_src_att", "mh_dot_src_att"):
                    source_attentions.append((cx - _BOX_W / 2, y + _BOX_H / 2))
                below = top = y
        return below, top

    widths = [max(_width(encoder), 150.0) + 2 * _PAD, max(_width(decoder), 150.0) + 2 * _PAD]
    centres = [widths[0] / 2, widths[0] + _COLUMN_GAP + widths[1] / 2]
    tops, leaves = [], []  # each chain's top, and where its output leaves its last box or ⊕
    for side, items, cx, width, start, colour in (
        ("encoder", encoder, centres[0], widths[0], "source tokens → embedding", "#4c72b0"),
        ("decoder", decoder, centres[1], widths[1], "target so far → embedding", "#dd8452"),
    ):
        text(cx, -30, start)
        out[:] = cx, -42, 0, -1
        below, top = chain(items, cx, -42, -42)
        if side == "decoder":
            text(cx, top - _GAP - 4, "linear → next-token scores")
            arrow(cx, below, cx, top - _GAP)
            top -= _GAP + 16
        tops.append(top)
        leaves.append(tuple(out))
        back.append(
            f'<rect x="{cx - width / 2:g}" y="{top - _PAD:g}" width="{width:g}" height="{-top + _PAD:g}" '
            f'fill="none" stroke="{colour}"/>'
        )
        text(cx, -8, side, ' font-weight="bold"')
    ex, ey, dx, dy = leaves[0]  # the encoder's output
    for ax, ay in source_attentions:  # from the encoder's output to each layer that reads it
        front.append(
            f'<path d="M{ex:g},{ey:g} C{ex + 30 * dx:g},{ey + 16 * dy:g} {ax - 40:g},{ay:g} {ax - 2:g},'
            f'{ay:g}" fill="none" stroke="#4c72b0" stroke-width="2" marker-end="url(#head)"/>'
        )
    top = min(tops) - _PAD - 1
    width = widths[0] + _COLUMN_GAP + widths[1] + 1
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="-1 {top:g} {width:g} {-top:g}" width="{width:g}" '
        f'height="{-top:g}"><defs><marker id="head" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" '
        'markerHeight="7" markerUnits="userSpaceOnUse" orient="auto-start-reverse">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#555555"/></marker></defs>' + "".join(back) + "".join(front) + "</svg>"
    )


def _family(name: str) -> str:
    if "att" in name:
        return "attention"
    if "rnn" in name:
        return "rnn"
    return "cnn" if name == "cnn" else "other"


_BLOCK_LABELS = {Residual: "res", Highway: "highway"}
_COLOURS = {"attention": "#fde2c8", "rnn": "#d4ecd4", "cnn": "#e3daf2"}
