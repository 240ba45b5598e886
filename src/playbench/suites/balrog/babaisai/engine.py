"""The Baba Is AI world: a grid of object stacks, the rules read from it, and one step of dynamics.

Semantics follow nacloos/baba-is-ai as BALROG runs it (spec §6.4): each cell is a stack whose top
object is what collides and what is seen; rules ``N IS P`` are read horizontally and vertically
around every ``is`` block; YOU objects move (pushing PUSH objects and rule blocks first), win and
lose are judged on the destination's top object before moving, and the rules are re-read after
every non-idle step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from playbench.suites.balrog.babaisai.data import DIR_VECTORS, FACING, IS, MAX_STEPS, MOVES, NOUNS, PROPERTIES

# Object kinds. An object is an immutable tuple (kind, word, color, facing); moving one replaces it.
BORDER = "border"  # the outer wall: fixed, never overlappable, not subject to rules
OBJ = "obj"  # a flexible object: word is its noun (baba, wall, ball, key, door)
NOUN = "noun"  # a rule block naming a noun
ISB = "is"  # the rule block "is"
PROP = "prop"  # a rule block naming a property

Obj = tuple[str, str, str | None, int]  # (kind, word, color, facing)
#: A hashable layout: per cell, its stack as (kind, word, color) (``World.key``).
LayoutKey = tuple[tuple[tuple[str, str, str | None], ...], ...]
RULE_KINDS = (NOUN, ISB, PROP)


def make_obj(noun: str, color: str | None = None, facing: int = 0) -> Obj:
    """A flexible object of type ``noun`` (default colour from the rules data)."""
    return (OBJ, noun, color or NOUNS[noun]["color"], facing)


def make_block(word: str) -> Obj:
    """A rule block for a noun, ``is`` or a property word."""
    if word == IS:
        return (ISB, IS, None, 0)
    if word in NOUNS:
        return (NOUN, word, None, 0)
    if word in PROPERTIES:
        return (PROP, word, None, 0)
    raise ValueError(f"unknown rule word {word!r}")


BORDER_OBJ: Obj = (BORDER, "wall", "grey", 0)
_GLYPHS = {"baba": "@", "wall": "W", "ball": "o", "key": "k", "door": "d"}


@dataclass
class Rules:
    """The active rules: ``N IS P`` properties, ``N IS N2`` replacements, and all in reading order."""

    props: dict[str, set[str]] = field(default_factory=dict)  # property word -> nouns that have it
    replace: list[tuple[str, str]] = field(default_factory=list)
    order: list[tuple[str, str]] = field(default_factory=list)  # (noun, word) as read, both kinds
    cells: list[tuple[tuple[int, int], ...]] = field(default_factory=list)  # block cells of each rule in order

    def has(self, noun: str, prop: str) -> bool:
        """Whether objects of type ``noun`` have property ``prop``."""
        return noun in self.props.get(prop, ())

    def lines(self) -> list[str]:
        """``N is P`` for every property rule, in reading order (replace rules are not listed)."""
        return [f"{n} is {p}" for n, p in self.order if p in PROPERTIES]

    def you_noun(self) -> str | None:
        """The noun of the last ``N is you`` rule read (what BALROG's text view centres on)."""
        nouns = [n for n, p in self.order if p == "you"]
        return nouns[-1] if nouns else None


class World:
    """A Baba Is AI level in play. ``cells[y * width + x]`` is the stack at (x, y), bottom first."""

    def __init__(self, width: int, height: int, max_steps: int = MAX_STEPS) -> None:
        self.width = width
        self.height = height
        self.max_steps = max_steps
        self.cells: list[list[Obj]] = [[] for _ in range(width * height)]
        self.rules = Rules()
        self.step_count = 0
        self.facing = 0  # the agent's facing (0 right, 1 down, 2 left, 3 up)

    # -- grid access ----------------------------------------------------------------------------

    def top(self, x: int, y: int) -> Obj | None:
        """The object on top of cell (x, y), or None when empty."""
        c = self.cells[y * self.width + x]
        return c[-1] if c else None

    def put(self, x: int, y: int, obj: Obj) -> None:
        """Stack ``obj`` on cell (x, y)."""
        self.cells[y * self.width + x].append(obj)

    def inside(self, x: int, y: int) -> bool:
        """Whether (x, y) lies inside the grid."""
        return 0 <= x < self.width and 0 <= y < self.height

    def copy(self) -> World:
        """An independent copy (objects are immutable tuples, so stacks are copied shallowly)."""
        w = World.__new__(World)
        w.width, w.height, w.max_steps = self.width, self.height, self.max_steps
        w.cells = [c[:] for c in self.cells]
        w.rules = self.rules  # never mutated in place: extract_rules builds a new one
        w.step_count, w.facing = self.step_count, self.facing
        return w

    def key(self) -> LayoutKey:
        """A hashable summary of the layout (facings ignored: no level can form a MOVE rule)."""
        return tuple(tuple((o[0], o[1], o[2]) for o in c) if c else () for c in self.cells)

    def border_rect(self) -> None:
        """Surround the grid with the fixed outer wall."""
        for x in range(self.width):
            self.put(x, 0, BORDER_OBJ)
            self.put(x, self.height - 1, BORDER_OBJ)
        for y in range(1, self.height - 1):
            self.put(0, y, BORDER_OBJ)
            self.put(self.width - 1, y, BORDER_OBJ)

    def move_top(self, src: tuple[int, int], dst: tuple[int, int], facing: int | None = None) -> None:
        """Move the top object of ``src`` onto ``dst`` (optionally turning it to ``facing``)."""
        if src == dst:
            return
        stack = self.cells[src[1] * self.width + src[0]]
        if not stack:
            return
        obj = stack.pop()
        if facing is not None and obj[0] == OBJ and obj[3] != facing:
            obj = (obj[0], obj[1], obj[2], facing)
        self.cells[dst[1] * self.width + dst[0]].append(obj)

    # -- object properties under the current rules ------------------------------------------------

    def _prop(self, obj: Obj | None, prop: str) -> bool:
        return obj is not None and obj[0] == OBJ and obj[1] in self.rules.props.get(prop, ())

    def is_push(self, obj: Obj | None) -> bool:
        """Rule blocks are always pushable; flexible objects when PUSH."""
        return obj is not None and (obj[0] in RULE_KINDS or self._prop(obj, "push"))

    def can_overlap(self, obj: Obj | None) -> bool:
        """Empty cells and non-STOP flexible objects can be entered; rule blocks and the border not."""
        return obj is None or (obj[0] == OBJ and not self._prop(obj, "stop"))

    def is_you(self, obj: Obj | None) -> bool:
        """Whether ``obj`` is controlled by the player."""
        return self._prop(obj, "you")

    def is_win(self, obj: Obj | None) -> bool:
        """Whether entering ``obj`` wins."""
        return self._prop(obj, "win")

    # -- rules --------------------------------------------------------------------------------

    def extract_rules(self) -> Rules:
        """Read the rules: for each ``is`` block in row-major order, horizontal then vertical."""
        rules = Rules()
        w = self.width
        for idx, stack in enumerate(self.cells):
            if not stack or stack[-1][0] != ISB:
                continue
            x, y = idx % w, idx // w
            for (ax, ay), (bx, by) in (((x - 1, y), (x + 1, y)), ((x, y - 1), (x, y + 1))):
                if not (self.inside(ax, ay) and self.inside(bx, by)):
                    continue
                first, last = self.top(ax, ay), self.top(bx, by)
                if first is None or last is None or first[0] != NOUN or last[0] not in (NOUN, PROP):
                    continue
                rules.order.append((first[1], last[1]))
                rules.cells.append(((ax, ay), (x, y), (bx, by)))
                if last[0] == PROP:
                    rules.props.setdefault(last[1], set()).add(first[1])
                else:
                    rules.replace.append((first[1], last[1]))
        return rules

    def apply_replacements(self) -> None:
        """``N IS N2``: a new N2 (default colour) is stacked on every cell whose top object is an N."""
        for src, dst in self.rules.replace:
            for stack in self.cells:
                if stack and stack[-1][0] == OBJ and stack[-1][1] == src:
                    stack.append(make_obj(dst))

    def refresh_rules(self) -> None:
        """Re-read the rules from the grid (done at reset and after every non-idle step)."""
        self.rules = self.extract_rules()

    # -- dynamics -------------------------------------------------------------------------------

    def _open_shut(self, pos: tuple[int, int], fwd: tuple[int, int]) -> None:
        a, b = self.top(*pos), self.top(*fwd)
        if (self._prop(a, "open") and self._prop(b, "shut")) or (self._prop(a, "shut") and self._prop(b, "open")):
            self.cells[pos[1] * self.width + pos[0]].pop()
            self.cells[fwd[1] * self.width + fwd[0]].pop()

    def _move(self, pos: tuple[int, int], d: tuple[int, int], moved: dict[int, Obj]) -> tuple[tuple[int, int], bool, bool]:
        """Try to move the top object at ``pos`` by ``d``; returns (new position, win, lose)."""
        fwd = (pos[0] + d[0], pos[1] + d[1])
        fwd_obj = self.top(*fwd)  # read before open/shut, as the original does
        self._open_shut(pos, fwd)
        if self.is_push(fwd_obj):
            self._move(fwd, d, moved)
        new = fwd if self.can_overlap(self.top(*fwd)) else pos
        dest = self.top(*new)
        win, lose = self._prop(dest, "win"), self._prop(dest, "lose")
        if new != pos:
            self.move_top(pos, new, DIR_VECTORS.index(d))
        back = (pos[0] - d[0], pos[1] - d[1])
        if self.inside(*back) and self._prop(self.top(*back), "pull"):
            self._move(back, d, moved)
        return new, win, lose

    def step(self, action: str) -> tuple[float, bool, bool, bool]:
        """Play one action; returns (reward, done, won, lost)."""
        self.step_count += 1
        won = lost = False
        reward, done = 0.0, False
        if action != "idle":
            d = MOVES[action]
            self.facing = FACING[action]
            # ids of objects that moved this step (the dict keeps them alive, so ids stay unique)
            moved: dict[int, Obj] = {}
            # YOU objects move in grid order; the scan sees the grid as it changes (an object that
            # already moved is skipped), and only the last mover's win/lose counts, as the original.
            for idx in range(len(self.cells)):
                stack = self.cells[idx]
                if stack and self.is_you(stack[-1]) and id(stack[-1]) not in moved:
                    obj = stack[-1]
                    if obj[3] != self.facing:  # face the move even when blocked
                        stack[-1] = obj = (obj[0], obj[1], obj[2], self.facing)
                    moved[id(obj)] = obj
                    _, won, lost = self._move((idx % self.width, idx // self.width), d, moved)
            for idx in range(len(self.cells)):
                stack = self.cells[idx]
                if stack and self._prop(stack[-1], "move") and id(stack[-1]) not in moved:
                    obj = stack[-1]
                    moved[id(obj)] = obj
                    self._move((idx % self.width, idx // self.width), DIR_VECTORS[obj[3]], moved)
            if won:
                reward, done = 1.0 - 0.9 * (self.step_count / self.max_steps), True
            elif lost:
                reward, done = -1.0, True
            self.refresh_rules()
            self.apply_replacements()
        if self.step_count >= self.max_steps:
            done = True
        return reward, done, won, lost

    # -- queries ----------------------------------------------------------------------------------

    def you_positions(self) -> list[tuple[int, int]]:
        """Positions whose top object is YOU, row-major."""
        w = self.width
        return [(i % w, i // w) for i, c in enumerate(self.cells) if c and self.is_you(c[-1])]

    def find_top(self, noun: str) -> list[tuple[int, int]]:
        """Positions whose top object is a flexible ``noun``, row-major."""
        w = self.width
        return [(i % w, i // w) for i, c in enumerate(self.cells) if c and c[-1][0] == OBJ and c[-1][1] == noun]

    def render_rows(self) -> list[str]:
        """A compact ASCII picture (tests and debugging): one token per cell's top object."""
        rows = []
        for y in range(self.height):
            row = []
            for x in range(self.width):
                o = self.top(x, y)
                if o is None:
                    row.append(".")
                elif o[0] == BORDER:
                    row.append("#")
                elif o[0] == OBJ:
                    row.append(_GLYPHS[o[1]])
                else:
                    row.append(o[1].upper()[:3])
            rows.append(" ".join(f"{t:>3}" for t in row))
        return rows
