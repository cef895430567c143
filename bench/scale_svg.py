"""A small SVG writer for bench/scale.py: panels of log-log plots, measured points and their fitted laws carried
on to the sizes the fits are read at. Standard library only; the file it writes has no script and no external
reference (fonts are generic families).

panel = {"title": str, "xlabel": str, "ylabel": str, "marks": [(x, label)],
         "series": [{"name": str, "points": [(x, y)], "curve": [(x, y)] or None}]}
"""

import math
from xml.sax.saxutils import escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f")
PANEL_W, PANEL_H = 520, 330
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 64, 14, 30, 44
LEGEND_H = 15


def _decades(lo, hi):
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if a == b:
        b += 1
    return a, b


def _tick_label(e):
    v = 10.0 ** e
    if 0 <= e < 4:
        return f"{int(v)}"
    if -3 <= e < 0:
        return f"{v:g}"
    return f"1e{e}"


def _panel(p, ox, oy):
    out = []
    pts = [(x, y) for s in p["series"] for x, y in (s["points"] + (s.get("curve") or [])) if x > 0 and y > 0]
    if not pts:
        return out
    xe = _decades(min(x for x, _ in pts), max(x for x, _ in pts))
    ye = _decades(min(y for _, y in pts), max(y for _, y in pts))
    legend = len(p["series"]) * LEGEND_H
    x0, x1 = ox + MARGIN_L, ox + PANEL_W - MARGIN_R
    y0, y1 = oy + MARGIN_T + legend, oy + PANEL_H + legend - MARGIN_B

    def sx(x):
        return x0 + (math.log10(x) - xe[0]) / (xe[1] - xe[0]) * (x1 - x0)

    def sy(y):
        return y1 - (math.log10(y) - ye[0]) / (ye[1] - ye[0]) * (y1 - y0)

    out.append(f'<text x="{ox + PANEL_W / 2:.1f}" y="{oy + 18}" text-anchor="middle" font-weight="bold">'
               f'{escape(p["title"])}</text>')
    for i, s in enumerate(p["series"]):  # the legend, above the plot
        c = PALETTE[i % len(PALETTE)]
        ly = oy + MARGIN_T + i * LEGEND_H + 4
        out.append(f'<circle cx="{x0 + 6}" cy="{ly}" r="3" fill="{c}"/>')
        out.append(f'<line x1="{x0 + 12}" y1="{ly}" x2="{x0 + 30}" y2="{ly}" stroke="{c}" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{x0 + 36}" y="{ly + 4}" font-size="11">{escape(s["name"])}</text>')
    out.append(f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" fill="none" stroke="#444"/>')
    for e in range(xe[0], xe[1] + 1):
        x = sx(10.0 ** e)
        out.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y1}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{y1 + 14}" text-anchor="middle" font-size="11">{_tick_label(e)}</text>')
    for e in range(ye[0], ye[1] + 1):
        y = sy(10.0 ** e)
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 - 4}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{_tick_label(e)}</text>')
    for i, (x, label) in enumerate(p.get("marks", [])):
        if 10.0 ** xe[0] <= x <= 10.0 ** xe[1]:
            out.append(f'<line x1="{sx(x):.1f}" y1="{y0}" x2="{sx(x):.1f}" y2="{y1}" stroke="#999" '
                       f'stroke-dasharray="2 2"/>')
            right = sx(x) > x1 - 50  # a label at the right edge goes left of its line
            out.append(f'<text x="{sx(x) + (-2 if right else 2):.1f}" y="{y0 + 11 + 11 * (i % 2)}" font-size="10" fill="#555" '
                       f'text-anchor="{"end" if right else "start"}">{escape(label)}</text>')
    out.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{y1 + 32}" text-anchor="middle" font-size="12">'
               f'{escape(p["xlabel"])}</text>')
    out.append(f'<text x="{ox + 14}" y="{(y0 + y1) / 2:.1f}" text-anchor="middle" font-size="12" '
               f'transform="rotate(-90 {ox + 14} {(y0 + y1) / 2:.1f})">{escape(p["ylabel"])}</text>')
    for i, s in enumerate(p["series"]):
        c = PALETTE[i % len(PALETTE)]
        curve = [(x, y) for x, y in (s.get("curve") or []) if x > 0 and y > 0]
        if len(curve) > 1:
            d = " ".join(f"{'M' if k == 0 else 'L'}{sx(x):.1f},{sy(y):.1f}" for k, (x, y) in enumerate(curve))
            out.append(f'<path d="{d}" fill="none" stroke="{c}" stroke-width="1.2" stroke-dasharray="4 3"/>')
        for x, y in s["points"]:  # a series of points only (no curve): a reference line has no points
            if x > 0 and y > 0:
                out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3" fill="{c}"/>')
    return out


def write_svg(path, panels, title, columns=2):
    """Writes the panels in a grid of `columns`, under a title line."""
    tallest = max((len(p["series"]) for p in panels), default=0) * LEGEND_H
    cell_h = PANEL_H + tallest
    rows = (len(panels) + columns - 1) // columns
    width, height = columns * PANEL_W, rows * cell_h + 30
    body = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">{escape(title)}</text>']
    for i, p in enumerate(panels):
        body += _panel(p, (i % columns) * PANEL_W, 30 + (i // columns) * cell_h)
    body.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(body) + "\n")
