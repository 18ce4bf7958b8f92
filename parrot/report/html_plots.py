"""The run page's plots: matplotlib figures rendered to inline SVG (text kept as text, no fonts
embedded, deterministic ids), so the page needs no script or network to show them. Figures are
made with matplotlib's object API, never pyplot: no global backend or figure state."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from markupsafe import escape
from matplotlib import colormaps, rc_context
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

STYLE: dict[Any, Any] = {
    "svg.fonttype": "none",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
REASON_COLORS = (
    "#2e7d32",
    "#c62828",
    "#ef6c00",
    "#6a1b9a",
    "#1565c0",
    "#00838f",
    "#ad1457",
    "#827717",
    "#4e342e",
    "#37474f",
    "#9e9d24",
    "#5d4037",
)


def _svg(fig: Figure, name: str) -> str:
    with rc_context({**STYLE, "svg.hashsalt": name}):
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    return _prefix_ids(text[text.index("<svg") :], name)  # no XML prolog or doctype: inline SVG


_ID = re.compile(r'\bid="([^"]+)"')


def _prefix_ids(svg: str, name: str) -> str:
    """Every id of one figure, and every reference to it (``url(#…)``, ``href="#…"``), prefixed
    with the figure's name: matplotlib numbers ``figure_1``, ``axes_1``, ``patch_1``… afresh in
    each figure, so a page of several figures would repeat them. Links that are not ids (a
    heat-map cell's ``#pair=…``) are left as they are."""
    ids = set(_ID.findall(svg))

    def ref(m: re.Match[str]) -> str:
        return f"{m.group(1)}#{name}-{m.group(2)}" if m.group(2) in ids else m.group(0)

    svg = _ID.sub(lambda m: f'id="{name}-{m.group(1)}"', svg)
    return re.sub(r'(url\(|href=")#([^")]+)', ref, svg)


def heatmap(by_pair: Mapping[str, Mapping[str, Any]]) -> str:
    """Strict Acc_RES per source × target; each cell links to that pair's failing items."""
    pairs = [k.split("→") for k in by_pair]
    sources = sorted({s for s, _ in pairs})
    targets = sorted({t for _, t in pairs})
    with rc_context(STYLE):
        fig = Figure(figsize=(1.1 * len(targets) + 1.6, 0.6 * len(sources) + 1.2))
        ax = fig.subplots()
        cmap = colormaps["RdYlGn"]
        for (s, t), (key, score) in zip(pairs, by_pair.items(), strict=True):
            acc = score["acc_strict"]
            x, y = targets.index(t), sources.index(s)
            cell = Rectangle(
                (x, y),
                1,
                1,
                facecolor="#ddd" if acc is None else cmap(acc / 100),
                edgecolor="white",
            )
            link = f"#pair={quote(key)}&strict=fail"
            cell.set_url(link)
            ax.add_patch(cell)
            label = "–" if acc is None else f"{acc:.1f}%\nn={score['evaluated']}"
            text = ax.text(x + 0.5, y + 0.5, label, ha="center", va="center", fontsize=8)
            text.set_url(link)
        ax.set_xlim(0, len(targets))
        ax.set_ylim(len(sources), 0)
        ax.set_xticks([i + 0.5 for i in range(len(targets))], targets, rotation=30, ha="right")
        ax.set_yticks([i + 0.5 for i in range(len(sources))], sources)
        ax.set_xlabel("target")
        ax.set_ylabel("source")
        ax.tick_params(length=0)
    return _svg(fig, "heatmap")


def bars(groups: Mapping[str, Mapping[str, Any]], name: str, title: str) -> str:
    """Horizontal bars of strict Acc_RES per group, each labelled with its denominator."""
    labels = list(groups)
    with rc_context(STYLE):
        fig = Figure(figsize=(5.5, 0.28 * len(labels) + 1.0))
        ax = fig.subplots()
        values = [groups[k]["acc_strict"] or 0.0 for k in labels]
        ax.barh(labels, values, color="#1565c0")
        for i, k in enumerate(labels):
            acc = groups[k]["acc_strict"]
            ax.text(
                values[i] + 1,
                i,
                f"{'–' if acc is None else f'{acc:.1f}%'} (n={groups[k]['evaluated']})",
                va="center",
                fontsize=7,
            )
        ax.set_xlim(0, 115)
        ax.invert_yaxis()
        ax.set_xlabel("strict Acc_RES %")
        ax.set_title(title, loc="left")
    return _svg(fig, name)


def stacked_reasons(reasons_by_pair: Mapping[str, Mapping[str, int]]) -> str:
    """Strict verdict reasons per dialect pair, stacked (counts of evaluated items)."""
    reasons = sorted(
        {r for counts in reasons_by_pair.values() for r in counts}, key=lambda r: (r != "match", r)
    )
    labels = list(reasons_by_pair)
    with rc_context(STYLE):
        fig = Figure(figsize=(6.5, 0.28 * len(labels) + 1.4))
        ax = fig.subplots()
        left = [0] * len(labels)
        for i, reason in enumerate(reasons):
            counts = [reasons_by_pair[p].get(reason, 0) for p in labels]
            ax.barh(
                labels, counts, left=left, label=reason, color=REASON_COLORS[i % len(REASON_COLORS)]
            )
            left = [a + b for a, b in zip(left, counts, strict=True)]
        ax.invert_yaxis()
        ax.set_xlabel("evaluated items")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return _svg(fig, "reasons")


def status(translation: Mapping[str, int], execution: Mapping[str, int]) -> str:
    """Translation status and execution status of the translations, as counts."""
    with rc_context(STYLE):
        fig = Figure(figsize=(7, 0.3 * max(len(translation), len(execution), 1) + 1.2))
        axes = fig.subplots(1, 2)
        for ax, counts, title in (
            (axes[0], translation, "translation"),
            (axes[1], execution, "execution (gold ok)"),
        ):
            ax.barh(list(counts), list(counts.values()), color="#546e7a")
            ax.invert_yaxis()
            ax.set_title(title, loc="left")
            ax.set_xlabel("items")
    return _svg(fig, "status")


def latency(seconds: list[float]) -> str:
    """Histogram of translation latency (seconds per item)."""
    with rc_context(STYLE):
        fig = Figure(figsize=(5.5, 2.4))
        ax = fig.subplots()
        ax.hist(seconds, bins=30, color="#6a1b9a")
        ax.set_xlabel("translation latency (s)")
        ax.set_ylabel("items")
    return _svg(fig, "latency")


HEAT_STEPS = 10  # the heat map's colour classes h0 … h10 (accuracy rounded to 10%)


def heat_css() -> str:
    """The heat map's colour classes: the pale middle of RdYlGn, one per 10% of accuracy."""
    out = []
    for step in range(HEAT_STEPS + 1):
        r, g, b, _ = colormaps["RdYlGn"](0.15 + 0.7 * step / HEAT_STEPS)
        out.append(
            f".heat .h{step}{{background:#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}}}"
        )
    return "\n".join(out) + "\n"


def _cell_link(construct: str, pair: str) -> str:
    kind, _, value = construct.partition(": ")
    return f"#pair={quote(pair)}&{kind}={quote(value)}&strict=fail"


def reliability_heatmap(matrix: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """Construct × dialect pair as an HTML table coloured by strict Acc_RES (no script, no
    image: a few bytes a cell). Each cell shows the accuracy, carries strictly right / judged
    and the 95% Wilson interval in its title (on hover), and links to its failing items."""
    pairs = sorted({p for cells in matrix.values() for p in cells})
    head = "".join(f'<th scope="col">{escape(p)}</th>' for p in pairs)
    rows = []
    for construct, cells in matrix.items():
        tds = []
        for pair in pairs:
            c = cells.get(pair)
            if c is None:
                tds.append("<td></td>")
                continue
            acc = 100.0 * c["strict"] / c["evaluated"]
            ci = "–" if c["ci95"] is None else f"[{c['ci95'][0]:.1f}–{c['ci95'][1]:.1f}]"
            title = f"{c['strict']}/{c['evaluated']} right, 95% CI {ci}"
            tds.append(
                f'<td class="h{round(acc / 100 * HEAT_STEPS)}" title="{title}">'
                f'<a href="{escape(_cell_link(construct, pair))}">{acc:.0f}</a></td>'
            )
        rows.append(f'<tr><th scope="row">{escape(construct)}</th>{"".join(tds)}</tr>')
    return (
        '<div class="scroll"><table class="heat" id="reliability-heatmap">'
        "<caption>strict Acc_RES % by construct × dialect pair (hover: counts and "
        "interval; click: the failing items)"
        f"</caption><thead><tr><th>construct</th>{head}</tr></thead><tbody>"
        f"{''.join(rows)}</tbody></table></div>"
    )


def accuracy_cost(points: list[tuple[str, float, list[float] | None, float]], unit: str) -> str:
    """Strict Acc_RES (with its 95% Wilson interval as an error bar) against the cost of one
    strictly-right item, one point per run (``points``: label, accuracy %, interval, cost);
    the cost axis is logarithmic when the costs span more than a factor of 20."""
    with rc_context(STYLE):
        fig = Figure(figsize=(6.0, 3.6))
        ax = fig.subplots()
        for i, (label, acc, ci, cost) in enumerate(points):
            low, high = (acc - ci[0], ci[1] - acc) if ci else (0.0, 0.0)
            color = REASON_COLORS[i % len(REASON_COLORS)]
            ax.errorbar([cost], [acc], yerr=[[low], [high]], fmt="o", color=color, capsize=3)
            ax.annotate(label, (cost, acc), textcoords="offset points", xytext=(6, 4), fontsize=7)
        costs = [p[3] for p in points if p[3] > 0]
        if costs and max(costs) / min(costs) > 20:
            ax.set_xscale("log")
        ax.set_xlabel(f"{unit} per strictly-right item")
        ax.set_ylabel("strict Acc_RES % (95% CI)")
        ax.set_ylim(0, 100)
    return _svg(fig, "accuracy-cost")
