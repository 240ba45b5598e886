"""Viewer picture of a MANGO episode: the maze map as SVG with the asked route highlighted.

The map is rebuilt from what the episode record holds: procedural mazes are regenerated from the recorded seed
and size (``instance.maze_seed``, ``instance.locations``, ``instance.cutoff_rule``), official games are read from
the recorded data folder (``instance.data``) when it is still there. Layout: one column per breadth-first
distance (ignoring edge direction) from the map's first location (the walkthrough's start), nodes in map order
within a column, so the same episode always gives the same picture. Red: the correct route (the DF question's
path, or the RF pair's first shortest path); dashed blue: the agent's answer, hop by hop, when it names known
locations. Every piece of text is XML-escaped.
"""

import math
from collections import deque
from html import escape
from typing import Any

from playbench.core.records import EpisodeRecord, StepRecord
from playbench.core.suite import PictureHooks
from playbench.suites.mango.formats import JsonObject
from playbench.suites.mango.maze import insertion_order, node_order

_NODE_H = 24
_ROW = 58
_MARGIN = 30
_CHAR_W = 6.2  # average width of a 11px sans-serif character, for box sizes
_RED, _BLUE, _GREY = "#d62728", "#1f77b4", "#9a9a9a"


def _x(text: object) -> str:
    """Text or attribute value, XML-escaped (quotes included)."""
    return escape(str(text), quote=True)


def _maze_source(record: EpisodeRecord) -> tuple[list[JsonObject], list[JsonObject], list[JsonObject]] | None:
    """(edges, all2all, all_pairs) of the episode's game, or None when the record cannot rebuild it."""
    inst = record.instance
    if inst.get("source") == "procedural" and isinstance(inst.get("maze_seed"), int):
        from playbench.suites.mango.sources import procedural_game

        loc = inst.get("locations")
        d = procedural_game(inst["maze_seed"], int(loc) if isinstance(loc, int) else 8, str(inst.get("cutoff_rule", "release"))).data
        return d.edges, d.all2all, d.all_pairs
    if inst.get("source") == "data" and inst.get("data") and inst.get("game"):
        from playbench.core.errors import PlaybenchError
        from playbench.suites.mango.formats import open_data

        try:
            (g,) = open_data(str(inst["data"]), [str(inst["game"])])
            if not g.path("all2all.jsonl").is_file():
                return None
            return g.edges, g.all2all, g.all_pairs
        except (PlaybenchError, OSError, ValueError):
            return None  # the data folder is not on this machine (any more)
    return None


def _correct_route(task: str, sample_id: str | None, all2all: list[JsonObject], all_pairs: list[JsonObject]) -> tuple[str, str, list[JsonObject]] | None:
    """(source, destination, steps) of the question: the DF path, or the RF pair's first shortest path."""
    if not sample_id:
        return None
    if task == "df":
        hit = next((r for r in all2all if r["id"] == sample_id), None)
        return (hit["src_node"], hit["dst_node"], hit["path_details"]) if hit else None
    pair = next((r for r in all_pairs if r["id"] == sample_id), None)
    if pair is None:
        return None
    s, d = pair["src_node"], pair["dst_node"]
    best = next((r for r in all2all if r["src_node"] == s and r["dst_node"] == d and r["diff_shortest"] == 0), None)
    return s, d, (best["path_details"] if best else [])


def _answer_hops(record: EpisodeRecord, steps: list[StepRecord]) -> list[tuple[str, str, str]]:
    """The agent's trajectory as (before, action, after), parsed literally (never evaluated); [] when unparsable."""
    from playbench.suites.mango.parse import parse_answer
    from playbench.suites.mango.prompts import KEYS

    if not steps:
        return []
    text = steps[0].raw_output if steps[0].raw_output is not None else steps[0].executed
    style = "paper" if record.metrics.get("prompt") == "paper" else "release"
    parsed = parse_answer(text, KEYS[style])
    return [(s.before.lower(), s.action.lower(), s.after.lower()) for s in parsed.steps] if parsed.ok else []


def _layers(nodes: list[str], edges: list[JsonObject]) -> dict[str, int]:
    """Breadth-first distance from the first node, ignoring direction; unreached nodes go one column further."""
    near: dict[str, list[str]] = {n: [] for n in nodes}
    for e in edges:
        near[e["src_node"]].append(e["dst_node"])
        near[e["dst_node"]].append(e["src_node"])
    layer = {nodes[0]: 0} if nodes else {}
    queue = deque(nodes[:1])
    while queue:
        n = queue.popleft()
        for m in near[n]:
            if m not in layer:
                layer[m] = layer[n] + 1
                queue.append(m)
    last = max(layer.values(), default=-1) + 1
    return {n: layer.get(n, last) for n in nodes}


def _box(cx: float, cy: float, hw: float, tx: float, ty: float) -> tuple[float, float]:
    """Where the segment from a box's centre towards (tx, ty) leaves the box."""
    dx, dy = tx - cx, ty - cy
    if dx == 0 and dy == 0:
        return cx, cy
    t = min(hw / abs(dx) if dx else math.inf, (_NODE_H / 2 + 2) / abs(dy) if dy else math.inf)
    return cx + dx * t, cy + dy * t


def maze_svg(
    edges: list[JsonObject],
    route: tuple[str, str, list[JsonObject]] | None = None,
    answer: list[tuple[str, str, str]] | None = None,
    caption: str = "",
) -> str:
    """The map (locations, edges with their actions) with an optional highlighted route and answer overlay."""
    nodes = node_order(insertion_order(edges))
    layer = _layers(nodes, edges)
    columns: dict[int, list[str]] = {}
    for n in nodes:
        columns.setdefault(layer[n], []).append(n)
    half_w = {n: len(n) * _CHAR_W / 2 + 10 for n in nodes}
    widest = max(half_w.values(), default=20.0)
    col_w = 2 * widest + 70  # room for the edge labels between columns
    x0 = _MARGIN + 16 + widest  # 16: the S/D tag left of a box
    pos = {n: (x0 + c * col_w, _MARGIN + 24 + i * _ROW) for c, col in columns.items() for i, n in enumerate(col)}
    rows = max((len(col) for col in columns.values()), default=1)
    width = max(x0 + max(columns, default=0) * col_w + widest + _MARGIN, 560, 2 * _MARGIN + len(caption) * 7.2)
    height = _MARGIN + 24 + rows * _ROW + 30

    on_route: set[tuple[str, str, str]] = set()
    route_nodes: set[str] = set()
    src = dst = None
    if route:
        src, dst, path = route
        on_route = {(s["prev_node"], s["action"], s["node"]) for s in path}
        route_nodes = {src, dst} | {s["node"] for s in path}

    pairs: dict[tuple[str, str], list[str]] = {}
    loops: dict[str, list[str]] = {}
    for e in edges:
        s, a, d = e["src_node"], e["action"], e["dst_node"]
        if s == d:
            loops.setdefault(s, []).append(a)
        elif a not in pairs.setdefault((s, d), []):
            pairs[(s, d)].append(a)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif">',
        "<defs>",
        *(f'<marker id="arrow-{k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" '
          f'markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>'
          for k, c in (("grey", _GREY), ("red", _RED), ("blue", _BLUE))),
        "</defs>",
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>',
    ]
    if caption:
        out.append(f'<text x="{_MARGIN}" y="18" font-size="12" font-weight="bold">{_x(caption)}</text>')

    def curve(s: str, d: str, bend: float) -> tuple[str, float, float]:
        (x1, y1), (x2, y2) = pos[s], pos[d]
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        nx, ny = -(y2 - y1) / length, (x2 - x1) / length  # left normal of the direction s -> d
        same_column = abs(x2 - x1) < 1
        if same_column and abs(y2 - y1) > _ROW * 1.5:
            bend += 30 + 8 * abs(y2 - y1) / _ROW  # go around the boxes stacked in between
        mx, my = (x1 + x2) / 2 + nx * bend, (y1 + y2) / 2 + ny * bend
        ax, ay = _box(x1, y1, half_w[s], mx, my)
        bx, by = _box(x2, y2, half_w[d], mx, my)
        lx, ly = (ax + 2 * mx + bx) / 4 + nx * 7, (ay + 2 * my + by) / 4 + ny * 7  # beside the curve's midpoint
        return f"M{ax:.1f},{ay:.1f} Q{mx:.1f},{my:.1f} {bx:.1f},{by:.1f}", lx, ly

    for (s, d), actions in pairs.items():
        bend = 14.0 if (d, s) in pairs else 0.0  # two-way pairs: one curve on each side
        path_d, lx, ly = curve(s, d, bend)
        hot = [a for a in actions if (s, a, d) in on_route]
        colour, mark, stroke = (_RED, "red", 3) if hot else (_GREY, "grey", 1.2)
        out.append(f'<path d="{path_d}" fill="none" stroke="{colour}" stroke-width="{stroke}" '
                   f'marker-end="url(#arrow-{mark})"><title>{_x(s)} -&gt; {_x(d)}: {_x(" / ".join(actions))}</title></path>')
        weight = ' font-weight="bold"' if hot else ""
        out.append(f'<text x="{lx:.1f}" y="{ly + 3:.1f}" font-size="9" text-anchor="middle" fill="{colour}"{weight}>'
                   f'{_x(" / ".join(actions))}</text>')

    known = set(nodes)
    for before, action, after in answer or []:
        if before in known and after in known and before != after:
            path_d, lx, ly = curve(before, after, -6.0)
            out.append(f'<path d="{path_d}" fill="none" stroke="{_BLUE}" stroke-width="2" stroke-dasharray="5,4" '
                       f'marker-end="url(#arrow-blue)"><title>answer: {_x(before)} -&gt; {_x(after)}: {_x(action)}'
                       f'</title></path>')

    for n in nodes:
        cx, cy = pos[n]
        fill = "#fde0dc" if n in route_nodes else "#f4f4f4"
        edge = "#2ca02c" if n == src else (_RED if n == dst else "#555555")
        stroke = 2.5 if n in (src, dst) else 1
        out.append(f'<rect x="{cx - half_w[n]:.1f}" y="{cy - _NODE_H / 2:.1f}" width="{2 * half_w[n]:.1f}" '
                   f'height="{_NODE_H}" rx="6" fill="{fill}" stroke="{edge}" stroke-width="{stroke}"/>')
        out.append(f'<text x="{cx:.1f}" y="{cy + 4:.1f}" font-size="11" text-anchor="middle">{_x(n)}</text>')
        tag = "S" if n == src else ("D" if n == dst else "")
        if tag:
            out.append(f'<text x="{cx - half_w[n] - 4:.1f}" y="{cy + 4:.1f}" font-size="11" font-weight="bold" '
                       f'text-anchor="end" fill="{edge}">{tag}</text>')
        if n in loops:
            out.append(f'<text x="{cx:.1f}" y="{cy + _NODE_H / 2 + 10:.1f}" font-size="8" text-anchor="middle" '
                       f'fill="{_GREY}">(stays: {_x(" / ".join(loops[n]))})</text>')

    legend_y = height - 14
    out.append(f'<text x="{_MARGIN}" y="{legend_y}" font-size="10" fill="#333333">'
               f'<tspan fill="{_RED}">red: correct route</tspan>'
               + (f'   <tspan fill="{_BLUE}">dashed blue: the agent\'s answer</tspan>' if answer else "")
               + "   S: source   D: destination</text>")
    out.append("</svg>")
    return "\n".join(out)


def _caption(task: str, route: tuple[str, str, list[JsonObject]] | None, metrics: dict[str, Any]) -> str:
    if route is None:
        return f"MANGO {task.upper()}: question not found in this map"
    src, dst, path = route
    if task == "df":
        q = f"DF: from {src!r} via [{', '.join(s['action'] for s in path)}] -> {dst!r}"
    else:
        q = f"RF: from {src!r} to {dst!r} ({len(path)} moves)"
    outcome = metrics.get("status")
    if outcome:
        q += f" | {outcome}, strict {metrics.get('strict', 0)}"
        if metrics.get("difficulty"):
            q += f", {metrics['difficulty']}"
    return q


def episode_picture(record: EpisodeRecord, steps: list[StepRecord]) -> str | None:
    """The maze of a DF/RF episode with the asked route highlighted, or None when it cannot be rebuilt."""
    task = record.task.split("/", 1)[-1]
    if task not in ("df", "rf"):
        return None
    source = _maze_source(record)
    if source is None:
        return None
    edges, all2all, all_pairs = source
    if not edges:
        return None
    sample_id = record.metrics.get("id") or record.instance.get("id")
    route = _correct_route(task, sample_id, all2all, all_pairs)
    return maze_svg(edges, route, _answer_hops(record, steps), _caption(task, route, record.metrics))


#: what the viewer calls (``SUITE.pictures`` names it)
PICTURES = PictureHooks(episode_picture=episode_picture)
