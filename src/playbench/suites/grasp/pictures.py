"""Viewer pictures of GRASP episodes: the 11x11 grid as SVG with the executed plan drawn on it.

The grid is rebuilt from what the record holds: the §3 grid text stored in ``instance["grid"]`` (read back with
:meth:`Grid.from_text`), else the grid inside the first step's observation (the prompt, or the interactive view).
The plan is the one the game executed (``metrics["plan"]``); without it, the one-step answer is parsed again
with the safe plan parser (never evaluated) and the interactive steps' executed actions are used. Only the first
20 actions are drawn, as only they are executed. Every piece of text is XML-escaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any, Literal

from playbench.core.records import EpisodeRecord, StepRecord
from playbench.core.suite import PictureHooks
from playbench.suites.grasp.grid import BUDGET, MOVES, Constraints, Grid
from playbench.suites.grasp.render import parse_state
from playbench.suites.grasp.simulate import State, execute

CELL = 36
LEFT = 30  # room for the row numbers
TOP = 70  # room for the caption lines and the column numbers
_BLUE, _GREEN, _PURPLE, _RED, _GOLD = "#1f77b4", "#2ca02c", "#9467bd", "#d62728", "#f2c94c"
TASKS = ("grasp/energy", "grasp/energy-interactive")


def _x(text: object) -> str:
    """Text or attribute value, XML-escaped (quotes included)."""
    return escape(str(text), quote=True)


@dataclass(frozen=True)
class Event:
    """One executed action: where the agent was and went, what the action did and the units it moved."""

    step: int
    action: str
    before: tuple[int, int]
    after: tuple[int, int]
    kind: str  # "move", "take", "drop" or "none" (an action that changed nothing)
    units: int = 0


def trace(grid: Grid, constraints: Constraints, plan: list[str], budget: int = BUDGET) -> list[Event]:
    """The executed actions of ``plan`` (the first ``budget``), with what each one did (§6 semantics)."""
    state = State(grid, constraints)
    events = []
    for k, action in enumerate(plan[:budget]):
        before, carried = state.pos, state.carried
        changed = state.apply(action)
        name = action.upper()
        kind = "none" if not changed else "take" if name == "TAKE" else "drop" if name == "DROP" else "move"
        units = 1 if kind == "take" else carried if kind == "drop" else 0
        events.append(Event(k, name, before, state.pos, kind, units))
    return events


def _constraints(record: EpisodeRecord, steps: list[StepRecord] | None = None) -> Constraints:
    """The recorded constraints; without them, read from the prompt's system text (§5.1), else the defaults."""
    c = record.instance.get("constraints")
    if not isinstance(c, dict):
        text = steps[0].observation if steps else ""
        return Constraints(8 if "UPLEFT" in text else 4, 2 if "carry two unit" in text else None,
                           0.3 if "Each step costs you 0.3" in text else 0.0)
    try:
        movement = 8 if int(c.get("movement", 4)) == 8 else 4
        carry = None if c.get("carry") is None else int(c["carry"])
        return Constraints(movement, carry, float(c.get("cost", 0.0)))
    except (TypeError, ValueError):
        return Constraints()


def _grid(record: EpisodeRecord, steps: list[StepRecord]) -> Grid | None:
    """The episode's initial grid, from the recorded grid text or the first observation."""
    text = record.instance.get("grid")
    if isinstance(text, str):
        try:
            return Grid.from_text(text)
        except ValueError:
            pass
    if not steps:
        return None
    obs = steps[0].observation
    try:
        view = parse_state(obs)  # the interactive view: digits mean several units
    except ValueError:
        try:
            return Grid.from_text(obs)  # the one-step prompt holds the §3 text
        except ValueError:
            return None
    cells = {(r, c) for r, row in enumerate(view.energy) for c, n in enumerate(row) if n > 0}
    return Grid.build(cells, set(view.obstacles), view.start, len(view.chars), len(view.chars[0]))


def _plan(record: EpisodeRecord, steps: list[StepRecord]) -> list[str]:
    plan = record.metrics.get("plan")
    if isinstance(plan, list) and all(isinstance(a, str) for a in plan):
        return plan[:BUDGET]
    if record.task == "grasp/energy-interactive":
        return [s.executed for s in steps if s.executed.strip().upper() != "STOP"][:BUDGET]
    if not steps:
        return []
    from playbench.suites.grasp.parse import parse_plan

    answer = steps[0].raw_output if steps[0].raw_output is not None else steps[0].executed
    return parse_plan(answer[:100_000]).plan[:BUDGET]  # the safe regex parser, with the default options


def _centre(cell: tuple[int, int]) -> tuple[float, float]:
    return LEFT + cell[1] * CELL + CELL / 2, TOP + cell[0] * CELL + CELL / 2


def _header(width: int, height: int, captions: list[str]) -> list[str]:
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="sans-serif">',
        "<defs>",
        *(f'<marker id="arrow-{k}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" '
          f'markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>'
          for k, c in (("blue", _BLUE), ("red", _RED))),
        "</defs>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    for i, line in enumerate(captions[:3]):
        weight = ' font-weight="bold"' if i == 0 else ""
        out.append(f'<text x="6" y="{15 + 15 * i}" font-size="11"{weight}>{_x(line[:120])}</text>')
    return out


def _cells(grid: Grid, energy: Any, start: tuple[int, int]) -> list[str]:
    """Numbers, cells, obstacles, energy (with a count above one unit) and the start cell."""
    out = []
    for c in range(grid.cols):
        out.append(f'<text x="{LEFT + c * CELL + CELL / 2:.0f}" y="{TOP - 5}" font-size="10" text-anchor="middle" '
                   f'fill="#555555">{c}</text>')
    for r in range(grid.rows):
        out.append(f'<text x="{LEFT - 6}" y="{TOP + r * CELL + CELL / 2 + 4:.0f}" font-size="10" text-anchor="end" '
                   f'fill="#555555">{r}</text>')
        for c in range(grid.cols):
            x, y = LEFT + c * CELL, TOP + r * CELL
            blocked = (r, c) in grid.obstacles
            fill = "#444444" if blocked else "#ffffff"
            out.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="#cccccc">'
                       f'<title>({r}, {c}){" obstacle" if blocked else ""}</title></rect>')
            n = energy[r][c]
            if n > 0 and not blocked:
                cx, cy = _centre((r, c))
                out.append(f'<circle cx="{cx:.0f}" cy="{cy:.0f}" r="7" fill="{_GOLD}" stroke="#b8860b">'
                           f'<title>({r}, {c}): {n} unit(s) of energy</title></circle>')
                if n > 1:
                    out.append(f'<text x="{cx:.0f}" y="{cy + 3.5:.0f}" font-size="9" text-anchor="middle" '
                               f'font-weight="bold">{n}</text>')
    sx, sy = LEFT + start[1] * CELL, TOP + start[0] * CELL
    out.append(f'<rect x="{sx + 1.5}" y="{sy + 1.5}" width="{CELL - 3}" height="{CELL - 3}" fill="none" '
               f'stroke="{_GREEN}" stroke-width="3"><title>start ({start[0]}, {start[1]})</title></rect>')
    out.append(f'<text x="{sx + 4}" y="{sy + 11}" font-size="9" font-weight="bold" fill="{_GREEN}">S</text>')
    return out


def _moves(events: list[Event]) -> list[str]:
    """One arrow per move; repeated crossings of the same pair of cells are offset sideways to stay visible."""
    out = []
    seen: dict[frozenset[tuple[int, int]], int] = {}
    for e in events:
        if e.kind != "move":
            continue
        (x1, y1), (x2, y2) = _centre(e.before), _centre(e.after)
        key = frozenset((e.before, e.after))
        n = seen.get(key, 0)
        seen[key] = n + 1
        dx, dy = x2 - x1, y2 - y1
        length = (dx * dx + dy * dy) ** 0.5 or 1.0
        shift = 4.0 * ((n + 1) // 2) * (1 if n % 2 else -1) if n else 0.0
        ox, oy = -dy / length * shift, dx / length * shift
        # stop short of the centres so arrows of consecutive moves do not overlap
        ax, ay = x1 + dx * 0.18 + ox, y1 + dy * 0.18 + oy
        bx, by = x2 - dx * 0.18 + ox, y2 - dy * 0.18 + oy
        out.append(f'<line x1="{ax:.1f}" y1="{ay:.1f}" x2="{bx:.1f}" y2="{by:.1f}" stroke="{_BLUE}" '
                   f'stroke-width="2.2" marker-end="url(#arrow-blue)" class="move">'
                   f'<title>step {e.step + 1}: {_x(e.action)} ({e.before[0]}, {e.before[1]}) -&gt; '
                   f'({e.after[0]}, {e.after[1]})</title></line>')
    return out


def _resources(events: list[Event]) -> list[str]:
    """Badges: green +n where units were taken (top right), purple -n where they were dropped (bottom right)."""
    taken: dict[tuple[int, int], list[int]] = {}
    dropped: dict[tuple[int, int], list[int]] = {}
    for e in events:
        if e.kind == "take":
            taken.setdefault(e.before, []).append(e.step + 1)
        elif e.kind == "drop":
            dropped.setdefault(e.before, []).extend([e.step + 1] * e.units)
    out = []
    for cells, colour, sign, dy, what in ((taken, _GREEN, "+", 0, "taken"), (dropped, _PURPLE, "\u2212", 22, "dropped")):
        for (r, c), at in sorted(cells.items()):
            x, y = LEFT + c * CELL + CELL - 15, TOP + r * CELL + 1 + dy
            out.append(f'<rect x="{x}" y="{y}" width="14" height="12" rx="3" fill="{colour}" class="{what}">'
                       f'<title>({r}, {c}): {len(at)} unit(s) {what} at step(s) {", ".join(map(str, sorted(set(at))))}'
                       f'</title></rect>')
            out.append(f'<text x="{x + 7}" y="{y + 9.5}" font-size="9" text-anchor="middle" fill="#ffffff">'
                       f'{sign}{len(at)}</text>')
    return out


def _ring(cell: tuple[int, int], colour: str, label: str) -> str:
    cx, cy = _centre(cell)
    return (f'<circle cx="{cx:.0f}" cy="{cy:.0f}" r="{CELL / 2 - 4:.0f}" fill="none" stroke="{colour}" '
            f'stroke-width="2.5" stroke-dasharray="4,2" class="end"><title>{_x(label)}</title></circle>')


def _legend(y: int) -> str:
    return (f'<text x="6" y="{y}" font-size="10" fill="#333333"><tspan fill="{_GREEN}">S start</tspan>  '
            f'<tspan fill="#b8860b">\u25cf energy</tspan>  <tspan fill="#444444">\u25a0 obstacle</tspan>  '
            f'<tspan fill="{_BLUE}">\u2192 move</tspan>  <tspan fill="{_GREEN}">+n taken</tspan>  '
            f'<tspan fill="{_PURPLE}">\u2212n dropped</tspan>  <tspan fill="{_RED}">\u25cc end</tspan></text>')


def _size(grid: Grid, captions: list[str]) -> tuple[int, int]:
    widest = max((min(len(c), 120) for c in captions), default=0) * 6.3 + 12  # ~6.3 px per 11px character
    return max(LEFT + grid.cols * CELL + 14, int(widest)), TOP + grid.rows * CELL + 26


def _rules(constraints: Constraints) -> str:
    carry = "no carry limit" if constraints.carry is None else f"carry {constraints.carry}"
    return f"{constraints.movement} moves, {carry}, cost {constraints.cost:g}/step"


def _where(instance: dict[str, Any]) -> str:
    if instance.get("source") == "official":
        where = f"{instance.get('file', '?')} #{instance.get('index', '?')}"
    elif instance.get("source") == "generated":
        where = f"generated (seed {instance.get('seed', '?')})"
    else:
        where = "grid"
    kind = "/".join(str(instance[k]) for k in ("distribution", "obstacle", "start_region") if k in instance)
    return f"{where} {kind}".strip()


def grid_svg(grid: Grid, events: list[Event], captions: list[str]) -> str:
    """The grid with the executed actions drawn on it (moves, units taken and dropped, the end position)."""
    width, height = _size(grid, captions)
    out = _header(width, height, captions)
    out += _cells(grid, grid.energy, grid.start)
    out += _moves(events)
    out += _resources(events)
    end = events[-1].after if events else grid.start
    out.append(_ring(end, _RED, f"end ({end[0]}, {end[1]}) after {len(events)} action(s)"))
    out.append(_legend(height - 8))
    out.append("</svg>")
    return "\n".join(out)


def episode_picture(record: EpisodeRecord, steps: list[StepRecord]) -> str | None:
    """The grid of a GRASP episode with its executed plan, or None when the grid cannot be rebuilt."""
    if record.task not in TASKS:
        return None
    grid = _grid(record, steps)
    if grid is None:
        return None
    constraints = _constraints(record, steps)
    plan = _plan(record, steps)
    events = trace(grid, constraints, plan)
    outcome = execute(grid, constraints, plan)
    scoring: Literal["fixed", "compat"] = "compat" if record.metrics.get("scoring") == "compat" else "fixed"
    cell = "start cell" if scoring == "fixed" else "final cell"
    idle = sum(e.kind == "none" for e in events)
    captions = [
        f"GRASP {_where(record.instance)}",
        _rules(constraints),
        f"executed {outcome.length} action(s) ({idle} without effect), energy {outcome.energy(scoring):g} "
        f"({scoring}: units on the {cell} minus cost)",
    ]
    return grid_svg(grid, events, captions)


def step_picture(record: EpisodeRecord, step: StepRecord) -> str | None:
    """For ``grasp/energy-interactive``: the grid as the agent saw it at this step, with the action it took."""
    if record.task != "grasp/energy-interactive":
        return None
    try:
        view = parse_state(step.observation)
    except ValueError:
        return None
    cells = {(r, c) for r, row in enumerate(view.energy) for c, n in enumerate(row) if n > 0}
    grid = Grid.build(cells, set(view.obstacles), view.start, len(view.chars), len(view.chars[0]))
    constraints = _constraints(record)
    action = step.executed.strip().upper()
    captions = [
        f"step {step.step + 1}: {action[:40]}",
        f"at ({view.pos[0]}, {view.pos[1]}), carrying {view.carried}, steps used {view.used} of {view.budget}",
        _rules(constraints),
    ]
    width, height = _size(grid, captions)
    out = _header(width, height, captions)
    out += _cells(grid, view.energy, view.start)
    move = MOVES.get(action) if action in constraints.moves else None
    if move:
        target = (view.pos[0] + move[0], view.pos[1] + move[1])
        ok = grid.free(*target)
        (x1, y1), (x2, y2) = _centre(view.pos), _centre(target)
        colour, mark = (_BLUE, "blue") if ok else (_RED, "red")
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x1 + (x2 - x1) * 0.8:.1f}" y2="{y1 + (y2 - y1) * 0.8:.1f}" '
                   f'stroke="{colour}" stroke-width="2.5" marker-end="url(#arrow-{mark})" class="move">'
                   f'<title>{_x(action)}{"" if ok else " (blocked)"}</title></line>')
    out.append(_ring(view.pos, _RED, f"agent at ({view.pos[0]}, {view.pos[1]})"))
    out.append(_legend(height - 8))
    out.append("</svg>")
    return "\n".join(out)


#: what the viewer calls (``SUITE.pictures`` names it)
PICTURES = PictureHooks(episode_picture=episode_picture, step_picture=step_picture)
