"""Bar charts drawn on the server as inline SVG (no JavaScript, no inline style).

Each chart carries role="img" and an aria-label; the page shows the same numbers in a table.
"""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

PALETTE = ("#0c326f", "#a35400", "#0b5a1f", "#6a1b9a")


def bar_chart(
    *,
    title: str,
    labels: list[str],
    series: dict[str, list[int]],
    width: int = 720,
    height: int = 260,
    newest_last: bool = False,
) -> SafeString:
    """Grouped vertical bars: one group per label, one bar per series. ``newest_last``: the
    labels are a time line, and a phone that scrolls the chart opens it at its right end
    (the latest months) rather than at the oldest; its scale and legend are then drawn on the
    right, in view where it opens."""
    left, bottom, top, right = (8, 48, 16, 40) if newest_last else (40, 48, 16, 8)
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max([max(values) for values in series.values() if values] + [1])
    n_groups, n_series = max(len(labels), 1), max(len(series), 1)
    group_w = plot_w / n_groups
    bar_w = max(group_w * 0.8 / n_series, 1)
    totals = ", ".join(f"{name}: {sum(values)}" for name, values in series.items())
    aria = f"{title}. Totais: {totals}. Os números estão na tabela abaixo."
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="{escape(aria)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<line x1="{left}" y1="{top + plot_h}" x2="{width - right}" y2="{top + plot_h}" stroke="#1b1b1b"/>',
    ]
    for tick in sorted({0, peak // 2, peak}):
        y = top + plot_h - plot_h * tick / peak
        tick_x, anchor = (width - right + 6, "start") if newest_last else (left - 6, "end")
        parts.append(
            f'<text x="{tick_x}" y="{y + 4:.1f}" text-anchor="{anchor}" font-size="11" fill="#1b1b1b">{tick}</text>'
        )
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="#d0d0d0"/>'
        )
    for gi, label in enumerate(labels):
        x0 = left + gi * group_w + group_w * 0.1
        for si, (name, values) in enumerate(series.items()):
            value = values[gi] if gi < len(values) else 0
            h = plot_h * value / peak
            x = x0 + si * bar_w
            parts.append(
                f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
                f'fill="{PALETTE[si % len(PALETTE)]}"><title>{escape(name)} — {escape(label)}: {value}</title></rect>'
            )
        parts.append(
            f'<text x="{left + gi * group_w + group_w / 2:.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
            f'font-size="11" fill="#1b1b1b">{escape(label)}</text>'
        )
    legend_w = sum(16 + 9 * len(name) + 24 for name in series) - 24
    lx = width - right - legend_w if newest_last else left
    for si, name in enumerate(series):
        parts.append(
            f'<rect x="{lx}" y="{height - 18}" width="12" height="12" fill="{PALETTE[si % len(PALETTE)]}"/>'
        )
        parts.append(
            f'<text x="{lx + 16}" y="{height - 8}" font-size="12" fill="#1b1b1b">{escape(name)}</text>'
        )
        lx += 16 + 9 * len(name) + 24
    parts.append("</svg>")
    # On a phone the chart keeps a readable width and scrolls sideways (portal.css .chart-scroll);
    # focusable so that the keyboard can scroll it too.
    box = "chart-scroll chart-scroll-end" if newest_last else "chart-scroll"
    return mark_safe(f'<div class="{box}" tabindex="0">' + "".join(parts) + "</div>")  # noqa: S308 - every interpolated text is escaped above
