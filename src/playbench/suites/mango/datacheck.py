"""Checks across the files of one official MANGO game, run before a task reads a data folder.

``formats.GameFiles`` checks each record on its own as it reads it; these checks tie the files together, so
that a truncated or edited file is refused with its file and line instead of producing wrong questions, wrong
scores or a crash in the middle of a run: edges name listed locations and actions, the walkthrough's blocks
are whole and numbered 0, 1, 2 ..., every DF path follows edges of the map with their step fields and labels,
and ``all_pairs`` holds one record per ordered pair with its path count and labels (spec §2).
"""

from playbench.core.errors import PlaybenchError
from playbench.suites.mango.formats import LABEL_FIELDS, NEVER, STEP_FIELDS, GameFiles, JsonObject, fault, show
from playbench.suites.mango.walkthrough import parse_walkthrough, walkthrough_problem

Triple = tuple[str, str, str]
Pair = tuple[str, str]
#: The edge field each DF label is the maximum of along the path (spec §2.4), in LABEL_FIELDS order.
LABEL_SOURCES = ("seen_in_forward", "edge_min_step", "seen_in_forward_answerable", "edge_min_step_answerable")


def check_game(game: GameFiles, skeletons: bool = True) -> None:
    """Refuse a game whose files disagree (PlaybenchError ``file:line: what``); ``skeletons`` adds the .jsonl files."""
    _check_names(game, "locations.json", game.locations, "location")
    _check_names(game, "actions.json", game.actions, "action")
    edges = _check_edges(game)
    _check_walkthrough(game)
    if skeletons:
        paths = _check_df(game, edges)
        _check_rf(game, paths)


def _check_names(game: GameFiles, suffix: str, names: list[str], what: str) -> None:
    first: dict[str, int] = {}
    for i, n in enumerate(names):
        if n in first:
            raise game.fault(suffix, i, f"{what} {show(n)} is listed twice")
        first[n] = i


def _check_edges(game: GameFiles) -> dict[Triple, JsonObject]:
    locations, actions = set(game.locations), set(game.actions)
    out: dict[Triple, JsonObject] = {}
    for i, e in enumerate(game.edges):
        for key in ("src_node", "dst_node"):
            if e[key] not in locations:
                raise game.fault("edges.json", i, f"edge {i}: {key} {show(e[key])} is not in {game.name}.locations.json")
        if e["action"] not in actions:
            raise game.fault("edges.json", i, f"edge {i}: action {show(e['action'])} is not in {game.name}.actions.json")
        triple = (e["src_node"], e["action"], e["dst_node"])
        if triple in out:
            raise game.fault("edges.json", i, f"edge {i}: {show(triple, 80)} is listed twice")
        out[triple] = e
    return out


def _check_walkthrough(game: GameFiles) -> None:
    problem = walkthrough_problem(game.walkthrough_text)
    if problem:
        raise fault(game.path("walkthrough"), *problem)
    last = len(parse_walkthrough(game.walkthrough_text)) - 1
    for i, e in enumerate(game.edges):
        beyond = [k for k in STEP_FIELDS if last < e[k] < NEVER]
        if beyond:
            raise game.fault("edges.json", i, f"edge {i}: {beyond[0]} {e[beyond[0]]} is beyond the walkthrough's "
                                              f"last step {last} (is {game.name}.walkthrough cut short?)")


def _path_problem(rec: JsonObject, edges: dict[Triple, JsonObject]) -> str | None:
    """What is wrong with a DF record's path against the map, or None."""
    path = rec["path_details"]
    nodes = [path[0]["prev_node"], *(s["node"] for s in path)]
    if (nodes[0], nodes[-1]) != (rec["src_node"], rec["dst_node"]):
        return "the path does not lead from 'src_node' to 'dst_node'"
    if any(a["node"] != b["prev_node"] for a, b in zip(path, path[1:], strict=False)):
        return "the path's steps do not chain (a step's 'node' is not the next step's 'prev_node')"
    if len(set(nodes)) != len(nodes):
        return "the path visits a location twice (skeletons are simple paths)"
    for i, step in enumerate(path):
        edge = edges.get((step["prev_node"], step["action"], step["node"]))
        if edge is None:
            return f"path step {i} ({step['prev_node']!r} -{step['action']}-> {step['node']!r}) is not an edge of the map"
        if any(step[k] != edge[k] for k in STEP_FIELDS):
            return f"path step {i}: its step fields differ from the edge's in edges.json"
    for label, source in zip(LABEL_FIELDS, LABEL_SOURCES, strict=True):
        if rec[label] != max(s[source] for s in path):
            return f"{label!r} is {rec[label]}, the maximum of the path's {source!r} is {max(s[source] for s in path)}"
    return None


def _check_df(game: GameFiles, edges: dict[Triple, JsonObject]) -> dict[Pair, list[JsonObject]]:
    """Every DF record against the map; returns the records of each (S, D) pair."""
    ids: set[str] = set()
    by_pair: dict[Pair, list[JsonObject]] = {}
    for i, rec in enumerate(game.all2all):
        problem = _path_problem(rec, edges)
        if problem is None and rec["id"] in ids:
            problem = f"id {show(rec['id'])} is used twice"
        if problem:
            raise game.fault("all2all.jsonl", i, problem)
        ids.add(rec["id"])
        by_pair.setdefault((rec["src_node"], rec["dst_node"]), []).append(rec)
    for i, rec in enumerate(game.all2all):
        shortest = min(r["step_count"] for r in by_pair[(rec["src_node"], rec["dst_node"])])
        if rec["diff_shortest"] != rec["step_count"] - shortest:
            raise game.fault("all2all.jsonl", i, f"'diff_shortest' is {rec['diff_shortest']}, expected "
                                                 f"{rec['step_count'] - shortest} (shortest path: {shortest} steps)")
    return by_pair


def _check_rf(game: GameFiles, paths: dict[Pair, list[JsonObject]]) -> None:
    """One RF record per ordered pair of distinct locations, with its path count and labels."""
    locations = game.locations
    known = set(locations)
    seen: set[Pair] = set()
    ids: set[str] = set()
    for i, rec in enumerate(game.all_pairs):
        pair = (rec["src_node"], rec["dst_node"])
        problem = _pair_problem(rec, pair, paths.get(pair, []), known, seen, ids)
        if problem:
            raise game.fault("all_pairs.jsonl", i, problem)
        seen.add(pair)
        ids.add(rec["id"])
    missing = next(((s, d) for s in locations for d in locations if s != d and (s, d) not in seen), None)
    if missing:
        raise PlaybenchError(f"{game.path('all_pairs.jsonl')}: no record for the pair {show(missing, 80)} "
                             f"(one per ordered pair of the {len(locations)} locations; is the file cut short?)")


def _pair_problem(rec: JsonObject, pair: Pair, paths: list[JsonObject], locations: set[str], seen: set[Pair],
                  ids: set[str]) -> str | None:
    for node in pair:
        if node not in locations:
            return f"location {show(node)} is not in locations.json"
    if pair[0] == pair[1]:
        return "'src_node' and 'dst_node' are the same location"
    if pair in seen:
        return f"the pair {show(pair, 80)} is listed twice"
    if rec["id"] in ids:
        return f"id {show(rec['id'])} is used twice"
    if rec["num_paths"] != len(paths):
        return f"'num_paths' is {rec['num_paths']}, all2all.jsonl has {len(paths)} paths for this pair"
    for label in LABEL_FIELDS:
        expected = min((p[label] for p in paths), default=NEVER)
        if rec[label] != expected:
            return f"{label!r} is {rec[label]}, expected {expected} (the minimum over the pair's paths)"
    return None
