"""Procedural mazes: seeded text-adventure-like worlds, a walkthrough through them, and the six official files.

The generator builds a true map (a two-way tree of compass moves plus extra two-way links, one-way
drops, non-directional passages and one nondeterministic lever), walks it with a guide that heads for
the nearest unvisited place (with detours and non-movement actions), annotates the walk, and then
runs the same pipeline as the official data (forward edges, reverse imputation checked against the
true map, skeletons). No model can have seen these mazes.
"""

import random
from collections import deque
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from playbench.suites.mango.formats import JsonObject
from playbench.suites.mango.maze import OPPOSITE, Move, Triple, action_order, build_edges, insertion_order, node_order
from playbench.suites.mango.skeletons import build_skeletons
from playbench.suites.mango.walkthrough import Step, render_walkthrough

# -- rules as data ------------------------------------------------------------------------------

ADJECTIVES = (
    "dusty", "mossy", "narrow", "sunlit", "damp", "crumbling", "silent", "windy", "painted", "hidden", "flooded",
    "frozen", "gilded", "overgrown", "smoky", "quiet", "ruined", "echoing", "cramped", "grand",
)
NOUNS = (
    "hall", "cellar", "library", "gallery", "kitchen", "chapel", "courtyard", "attic", "armory", "garden", "tunnel",
    "vault", "study", "pantry", "tower", "bridge", "cave", "workshop", "stable", "balcony",
)
COMPASS = ("north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest")
VERTICAL = ("up", "down")
PASSAGES = (  # non-directional moves: (way in, way back or None)
    ("enter wardrobe", "exit wardrobe"),
    ("climb rope", None),
    ("crawl through hole", "crawl back"),
    ("step into mirror", None),
    ("pray", None),
)
LEVER = "pull lever"
THINGS = ("lamp", "key", "note", "coin", "map", "rope", "box", "painting", "chest", "candle")
FILLERS = (  # (action template, observation template)
    ("examine {thing}", "You see nothing special about the {thing}."),
    ("take {thing}", "Taken."),
    ("open {thing}", "You can't open the {thing}."),
    ("inventory", "You are carrying a brass lantern."),
    ("look", None),  # repeats the room description
    ("wait", "Time passes."),
)
DARK_TEXT = "It is pitch black. You are likely to be eaten by a grue."
LIGHT_ACTION = "turn on lamp"


class MazeParams(BaseModel):
    """The generator's knobs (all documented in docs/suites/mango.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    locations: int = Field(8, ge=2, le=40, description="number of locations")
    extra_links: int = Field(2, ge=0, description="extra two-way compass links beyond the spanning tree")
    one_way: int = Field(1, ge=0, description="one-way compass drops (their reverse does not work)")
    passages: int = Field(1, ge=0, description="non-directional passages (enter wardrobe, pray ...)")
    levers: int = Field(1, ge=0, le=1, description="nondeterministic 'pull lever' moves with two destinations")
    dark: int = Field(1, ge=0, description="dark places whose name is revealed only at the next step")
    filler: float = Field(0.25, ge=0.0, lt=1.0, description="chance of a non-movement action at each step")
    detour: float = Field(0.2, ge=0.0, le=1.0, description="chance of a random exit instead of the guide's move")
    tail: int = Field(8, ge=0, description="extra exploring moves after every place has been visited")
    annotate_steps: int = Field(70, ge=1, description="steps annotated into the map (the release used 70)")
    max_steps: int = Field(200, ge=10, description="hard limit on walkthrough length")


@dataclass
class GameData:
    """A game's six files in memory (same attributes as ``formats.GameFiles``)."""

    name: str
    walkthrough_text: str
    locations: list[str]
    actions: list[str]
    edges: list[JsonObject]
    all2all: list[JsonObject]
    all_pairs: list[JsonObject]
    true_map: list[Triple] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)

    def files(self) -> dict[str, object]:
        """Suffix -> content, for ``formats.write_game``."""
        return {
            "walkthrough": self.walkthrough_text,
            "locations.json": self.locations,
            "actions.json": self.actions,
            "edges.json": self.edges,
            "all2all.jsonl": self.all2all,
            "all_pairs.jsonl": self.all_pairs,
        }


class _World:
    def __init__(self, rng: random.Random, p: MazeParams) -> None:
        self.rng = rng
        pool = [f"{a} {n}" for a in ADJECTIVES for n in NOUNS]
        self.names = rng.sample(pool, p.locations)
        self.exits: dict[str, dict[str, list[str]]] = {n: {} for n in self.names}
        self.dark: set[str] = set(rng.sample(self.names[1:], min(p.dark, len(self.names) - 1)))
        self.things = {n: rng.choice(THINGS) for n in self.names}

    def free(self, loc: str, options: tuple[str, ...]) -> list[str]:
        return [d for d in options if d not in self.exits[loc]]

    def link(self, a: str, action: str, b: str) -> None:
        self.exits[a].setdefault(action, [])
        if b not in self.exits[a][action]:
            self.exits[a][action].append(b)

    def triples(self) -> list[Triple]:
        return [(a, act, b) for a in self.names for act, dsts in self.exits[a].items() for b in dsts]


def _build_world(rng: random.Random, p: MazeParams) -> _World:
    w = _World(rng, p)
    dirs = COMPASS + VERTICAL
    for i, new in enumerate(w.names[1:], start=1):  # spanning tree of two-way compass moves
        while True:
            parent = w.names[rng.randrange(i)]
            free = [d for d in w.free(parent, dirs) if OPPOSITE[d] not in w.exits[new]]
            if free:
                break
        d = rng.choice(free)
        w.link(parent, d, new)
        w.link(new, OPPOSITE[d], parent)
    for _ in range(p.extra_links):
        a, b = rng.sample(w.names, 2)
        free = [d for d in w.free(a, dirs) if OPPOSITE[d] not in w.exits[b]]
        if free:
            d = rng.choice(free)
            w.link(a, d, b)
            w.link(b, OPPOSITE[d], a)
    for _ in range(p.one_way):  # a drop whose reverse does not work
        a, b = rng.sample(w.names, 2)
        free = [d for d in w.free(a, dirs) if OPPOSITE[d] not in w.exits[b]]
        if free:
            w.link(a, rng.choice(free), b)
    for way_in, way_back in rng.sample(PASSAGES, min(p.passages, len(PASSAGES))):
        a, b = rng.sample(w.names, 2)
        w.link(a, way_in, b)
        if way_back is not None:
            w.link(b, way_back, a)
    if p.levers and len(w.names) >= 3:
        a, b, c = rng.sample(w.names, 3)
        w.link(a, LEVER, b)
        w.link(a, LEVER, c)
    return w


def _describe(w: _World, loc: str) -> str:
    ways = [d for d in COMPASS + VERTICAL if d in w.exits[loc]]
    other = [a for a in w.exits[loc] if a not in COMPASS + VERTICAL]
    text = f"{loc.title()}\nYou are in the {loc}. A {w.things[loc]} lies here."
    if ways:
        text += f" Exits: {', '.join(ways)}."
    if other:
        text += " You could also " + " or ".join(other) + "."
    return text


def _next_hop(w: _World, here: str, unvisited: set[str]) -> str | None:
    """The first action of a shortest route to the nearest unvisited place (deterministic exits only)."""
    seen: dict[str, tuple[str, str] | None] = {here: None}
    queue = deque([here])
    while queue:
        loc = queue.popleft()
        if loc in unvisited:
            while (link := seen[loc]) is not None and link[0] != here:
                loc = link[0]
            return link[1] if link else None
        for act, dsts in w.exits[loc].items():
            if len(dsts) == 1 and dsts[0] not in seen:
                seen[dsts[0]] = (loc, act)
                queue.append(dsts[0])
    return None


def _walk(w: _World, p: MazeParams) -> tuple[list[Step], list[Move]]:
    rng = w.rng
    here = w.names[0]
    steps = [Step(0, "Init", "You wake up with a headache and a lamp in your hand.\n\n" + _describe(w, here))]
    moves: list[Move] = []
    visited = {here}
    walked: set[Triple] = set()
    tail = p.tail
    while len(steps) < p.max_steps:
        if len(visited) == len(w.names):
            if tail <= 0:
                break
            tail -= 1
        n = len(steps)
        if rng.random() < p.filler:
            template, obs = rng.choice(FILLERS)
            thing = w.things[here]
            steps.append(Step(n, template.format(thing=thing), _describe(w, here) if obs is None else obs.format(thing=thing)))
            continue
        action = _next_hop(w, here, set(w.names) - visited)
        if action is None or rng.random() < p.detour:  # explore, preferring exits not taken yet
            fresh = [a for a, dsts in w.exits[here].items() if any((here, a, d) not in walked for d in dsts)]
            action = rng.choice(fresh or list(w.exits[here]))
        there = rng.choice(w.exits[here][action])
        walked.add((here, action, there))
        if there in w.dark and there not in visited:
            steps.append(Step(n, action, DARK_TEXT))
            steps.append(Step(n + 1, LIGHT_ACTION, "The lamp is now on.\n\n" + _describe(w, there)))
            moves.append(Move(n, here, action, there, answerable=n + 1))
        else:
            steps.append(Step(n, action, _describe(w, there)))
            moves.append(Move(n, here, action, there))
        visited.add(there)
        here = there
    steps.append(Step(len(steps), "score", "You have visited every place there is to see. Well done."))
    return steps, moves


def generate(seed: int, params: MazeParams | None = None, name: str | None = None) -> GameData:
    """A procedural game in the official six-file form, fully determined by ``seed`` and ``params``."""
    p = params or MazeParams()
    rng = random.Random(seed)
    world = _build_world(rng, p)
    steps, moves = _walk(world, p)
    true_map = world.triples()
    truth = set(true_map)
    annotated = [m for m in moves if m.step <= p.annotate_steps]
    edges = build_edges(annotated, lambda t: t in truth)
    all2all, all_pairs = build_skeletons(edges)
    return GameData(
        name=name or f"proc{seed}",
        walkthrough_text=render_walkthrough(steps),
        locations=node_order(insertion_order(edges)),
        actions=action_order(edges),
        edges=edges,
        all2all=all2all,
        all_pairs=all_pairs,
        true_map=true_map,
        moves=moves,
    )
