"""The maze: edges from annotated walkthrough moves, reverse-edge imputation, and edge/node order (spec §4.1–4.4)."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from playbench.suites.mango.formats import NEVER, JsonObject

# the ten directions and their reverses (spec §1)
OPPOSITE: dict[str, str] = {
    "north": "south",
    "south": "north",
    "east": "west",
    "west": "east",
    "northeast": "southwest",
    "southwest": "northeast",
    "northwest": "southeast",
    "southeast": "northwest",
    "up": "down",
    "down": "up",
}

Triple = tuple[str, str, str]  # (src, action, dst)


@dataclass(frozen=True)
class Move:
    """One annotated location-changing step of a walkthrough (spec §4.1)."""

    step: int
    before: str
    action: str
    after: str
    answerable: int | None = None  # defaults to ``step``

    @property
    def answerable_step(self) -> int:
        """The step at which the destination's name is known."""
        return self.step if self.answerable is None else self.answerable


def edge_record(src: str, action: str, dst: str, fwd: int, fwd_ans: int, rev: int, rev_ans: int) -> JsonObject:
    """An ``edges.json`` object with its keys in the official order."""
    return {
        "src_node": src,
        "dst_node": dst,
        "action": action,
        "seen_in_forward": fwd,
        "seen_in_reversed": rev,
        "edge_min_step": min(fwd, rev),
        "seen_in_forward_answerable": fwd_ans,
        "seen_in_reversed_answerable": rev_ans,
        "edge_min_step_answerable": min(fwd_ans, rev_ans),
    }


def build_edges(moves: Iterable[Move], reverse_works: Callable[[Triple], bool]) -> list[JsonObject]:
    """Edges in the official file order from annotated moves.

    A directional move proposes its reverse; the proposal is accepted when the reverse is itself a
    forward edge or when ``reverse_works`` says it works in the real game (spec §4.3).
    """
    moves = [Move(m.step, m.before.lower(), m.action.lower(), m.after.lower(), m.answerable) for m in moves]
    forward: dict[Triple, list[int]] = {}
    for m in sorted(moves, key=lambda m: m.step):
        key = (m.before, m.action, m.after)
        if key in forward:
            forward[key][0] = min(forward[key][0], m.step)
            forward[key][1] = min(forward[key][1], m.answerable_step)
        else:
            forward[key] = [m.step, m.answerable_step]
    reverse: dict[Triple, list[int]] = {}
    for m in sorted(moves, key=lambda m: m.step):
        if m.action not in OPPOSITE:
            continue
        key = (m.after, OPPOSITE[m.action], m.before)
        if key not in forward and not reverse_works(key):
            continue
        if key in reverse:
            reverse[key][0] = min(reverse[key][0], m.step)
            reverse[key][1] = min(reverse[key][1], m.answerable_step)
        else:
            reverse[key] = [m.step, m.answerable_step]
    inserted: list[JsonObject] = []
    for key, (fwd, fwd_ans) in sorted(forward.items(), key=lambda kv: kv[1][0]):
        rev, rev_ans = reverse.get(key, (NEVER, NEVER))
        inserted.append(edge_record(key[0], key[1], key[2], fwd, fwd_ans, rev, rev_ans))
    for key, (rev, rev_ans) in sorted(reverse.items(), key=lambda kv: kv[1][0]):
        if key not in forward:
            inserted.append(edge_record(key[0], key[1], key[2], NEVER, NEVER, rev, rev_ans))
    return file_order(inserted)


def insertion_order(edges: list[JsonObject]) -> list[JsonObject]:
    """Recover the insertion order from the edges' own fields: forward edges by step, then reverse-only ones."""
    def key(item: tuple[int, JsonObject]) -> tuple[int, int, int]:
        i, e = item
        if e["seen_in_forward"] != NEVER:
            return (0, e["seen_in_forward"], i)
        return (1, e["seen_in_reversed"], i)

    return [e for _, e in sorted(enumerate(edges), key=key)]


def node_order(inserted: list[JsonObject]) -> list[str]:
    """Locations in order of first appearance along the insertion order (source before destination)."""
    seen: dict[str, None] = {}
    for e in inserted:
        seen.setdefault(e["src_node"], None)
        seen.setdefault(e["dst_node"], None)
    return list(seen)


def file_order(inserted: list[JsonObject]) -> list[JsonObject]:
    """The ``edges.json`` order: by source in node order, then destination by first insertion, then insertion."""
    nodes = {n: i for i, n in enumerate(node_order(inserted))}
    first_pair: dict[tuple[str, str], int] = {}
    for i, e in enumerate(inserted):
        first_pair.setdefault((e["src_node"], e["dst_node"]), i)
    indexed = list(enumerate(inserted))
    indexed.sort(key=lambda ie: (nodes[ie[1]["src_node"]], first_pair[(ie[1]["src_node"], ie[1]["dst_node"])], ie[0]))
    return [e for _, e in indexed]


def action_order(edges: list[JsonObject]) -> list[str]:
    """Actions for a generated ``actions.json``: by first forward occurrence, then reverse-only actions."""
    seen: dict[str, None] = {}
    for e in insertion_order(edges):
        seen.setdefault(e["action"], None)
    return list(seen)


class Maze:
    """The evaluation multigraph of a game's edges (lower-case names), with fast lookups."""

    def __init__(self, edges: list[JsonObject], actions: list[str] | None = None, locations: list[str] | None = None):
        self.edges = edges
        self.nodes = node_order(insertion_order(edges))
        self.actions = list(actions) if actions is not None else action_order(edges)
        self.locations = list(locations) if locations is not None else list(self.nodes)
        self.triples: set[Triple] = {(e["src_node"], e["action"], e["dst_node"]) for e in edges}
        self.moves: dict[tuple[str, str], list[str]] = {}
        for s, a, d in ((e["src_node"], e["action"], e["dst_node"]) for e in edges):
            dsts = self.moves.setdefault((s, a), [])
            if d not in dsts:
                dsts.append(d)

    def step(self, locations: Iterable[str], action: str) -> set[str]:
        """Every location reachable from any of ``locations`` by ``action`` (nondeterministic execution)."""
        out: set[str] = set()
        for loc in locations:
            out.update(self.moves.get((loc, action), ()))
        return out

    def run(self, start: str, actions: Iterable[str]) -> set[str]:
        """The set of locations after executing ``actions`` from ``start``."""
        current = {start}
        for a in actions:
            current = self.step(current, a)
            if not current:
                break
        return current

    def exits(self, location: str) -> list[JsonObject]:
        """The edges leaving a location, in file order."""
        return [e for e in self.edges if e["src_node"] == location]

    def shortest_lengths(self, start: str) -> dict[str, int]:
        """Breadth-first distances from ``start`` (in moves)."""
        out = {start: 0}
        frontier = [start]
        succ: dict[str, list[str]] = {}
        for e in self.edges:
            succ.setdefault(e["src_node"], []).append(e["dst_node"])
        while frontier:
            nxt = []
            for n in frontier:
                for d in succ.get(n, ()):
                    if d not in out:
                        out[d] = out[n] + 1
                        nxt.append(d)
            frontier = nxt
        return out

    def with_auto_reverses(self) -> "Maze":
        """The compat evaluation graph: every directional edge's reverse added when missing (bug B3)."""
        extra: list[JsonObject] = []
        have = set(self.triples)
        for e in self.edges:
            opp = OPPOSITE.get(e["action"])
            if opp is None:
                continue
            key = (e["dst_node"], opp, e["src_node"])
            if key not in have:
                have.add(key)
                extra.append(edge_record(key[0], key[1], key[2], NEVER, NEVER, NEVER, NEVER))
        return Maze(self.edges + extra, self.actions, self.locations)
