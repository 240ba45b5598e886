"""DF and RF skeletons from a game's edges: simple paths on the multigraph, ids and labels (spec §2.4–2.5, §4.5–4.6).

Speed (spec §4.5 and the issue's ≥10× over ``networkx.all_simple_paths``): one iterative depth-first search per
source over integer node ids. Every prefix of the search is itself a simple path from the source, i.e. a DF
skeleton, so each search level carries the *expansions* of its node sequence over parallel edges (Cartesian
product order, first hop slowest) together with their running id text, steps and label maxima; a record then
costs one string and one tuple concatenation plus one SHA-256. Per-edge strings are built once, and file text is
written as pieces joined once at the end.
"""

import hashlib
from collections.abc import Iterator
from json.encoder import encode_basestring_ascii as _quote  # what json.dumps uses for str (ASCII escapes)
from operator import itemgetter
from typing import Any

from playbench.suites.mango.formats import NEVER, STEP_FIELDS, JsonObject, json_line
from playbench.suites.mango.maze import insertion_order, node_order

LABELS = ("min_step_forward", "min_step_total", "min_step_forward_answerable", "min_step_total_answerable")
_ABOVE = float("inf")  # start of the running minima (any real label is smaller)
# the edge field each label is the maximum of along a path (spec §2.4), in LABELS order
_LABEL_FIELDS = itemgetter("seen_in_forward", "edge_min_step", "seen_in_forward_answerable", "edge_min_step_answerable")
_STEP_FIELDS = itemgetter(*STEP_FIELDS)
# a step's JSON (json.dumps defaults) when its six step fields are plain ints: the same text, without the encoder
_STEP_JSON = "{{" + ", ".join(f'"{k}": {{}}' for k in ("prev_node", "node", "action", *STEP_FIELDS)) + "}}"


def step_fragment(step: JsonObject) -> str:
    """A step reduced to prev_node, node and action, as sorted-key JSON with ``json.dumps`` defaults."""
    return (
        f'{{"action": {_quote(step["action"])}, "node": {_quote(step["node"])}, '
        f'"prev_node": {_quote(step["prev_node"])}}}'
    )


def df_id(steps: list[JsonObject]) -> str:
    """The DF id: SHA-256 of the sorted-key JSON of the steps reduced to prev_node, node and action."""
    return _sha("[" + ", ".join(step_fragment(s) for s in steps) + "]")


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def rf_id(src: str, dst: str) -> str:
    """The RF id: SHA-256 of the sorted-key JSON of ``{src_node, dst_node}``."""
    return _sha(f'{{"dst_node": {_quote(dst)}, "src_node": {_quote(src)}}}')


def _step(edge: JsonObject) -> JsonObject:
    step = {"prev_node": edge["src_node"], "node": edge["dst_node"], "action": edge["action"]}
    for f in STEP_FIELDS:
        step[f] = edge[f]
    return step


# An expansion of a node sequence over parallel edges: (payload, id JSON bytes so far, the four label maxima). The
# payload is the tuple of its step dicts (records) or of their JSON texts, with separators (file text).
_Expansion = tuple[tuple[Any, ...], bytes, int, int, int, int]
# Per target: (hops, expansions) of each simple node sequence, sorted stably by length.
_Groups = list[tuple[int, list[_Expansion]]]
# Adjacency of one node: (successor, expansions of the one-hop path, additions to extend a longer path) per
# distinct successor in DFS order; one entry per parallel edge, in file order.
_Adjacency = tuple[tuple[int, tuple[_Expansion, ...], tuple[_Expansion, ...]], ...]


class SkeletonBuilder:
    """Enumerates the skeletons of one maze given its ``edges.json`` records (file order)."""

    def __init__(self, edges: list[JsonObject]) -> None:
        self.edges = edges
        self.nodes = node_order(insertion_order(edges))
        index = {n: i for i, n in enumerate(self.nodes)}
        parallel: list[dict[int, list[JsonObject]]] = [{} for _ in self.nodes]  # successors in first-edge order
        for e in edges:
            s, d = index[e["src_node"]], index[e["dst_node"]]
            if s != d:  # a self-loop never appears in a simple path
                parallel[s].setdefault(d, []).append(_step(e))
        self._parallel = parallel
        self._adjacency: dict[bool, list[_Adjacency]] = {}
        # the text fast path writes labels with str(); anything but plain ints goes through json.dumps
        self._plain = all(type(v) is int for e in edges for v in _STEP_FIELDS(e))
        self._quoted = [_quote(n) for n in self.nodes]

    def _adjacency_of(self, text: bool) -> list[_Adjacency]:
        """Per node, its successors with the one-hop expansions and the extensions of longer paths (cached)."""
        if text not in self._adjacency:
            table = []
            for out in self._parallel:
                row = []
                for d, steps in out.items():
                    first, add = [], []
                    for step in steps:
                        frag = step_fragment(step).encode()  # per-edge strings are built once
                        labels = _LABEL_FIELDS(step)
                        if text:
                            payload = _STEP_JSON.format(
                                _quote(step["prev_node"]), _quote(step["node"]), _quote(step["action"]),
                                *_STEP_FIELDS(step),
                            )
                            first.append(((payload,), b"[" + frag, *labels))
                            add.append(((", " + payload,), b", " + frag, *labels))
                        else:
                            first.append(((step,), b"[" + frag, *labels))
                            add.append(((step,), b", " + frag, *labels))
                    row.append((d, tuple(first), tuple(add)))
                table.append(tuple(row))
            self._adjacency[text] = table
        return self._adjacency[text]

    def _expansions(self, src: int, text: bool) -> list[_Groups]:
        """Per target index: (hops, expansions) of each simple node sequence from ``src``, sorted stably by length."""
        found: list[_Groups] = [[] for _ in self.nodes]
        adjacency = self._adjacency_of(text)
        on_path = bytearray(len(self.nodes))
        on_path[src] = 1
        # iterative DFS: a stack of (node, successor iterator, expansions) keeps recursion's discovery order
        for first_node, first, _ in adjacency[src]:
            grown = list(first)
            found[first_node].append((1, grown))
            on_path[first_node] = 1
            stack = [(first_node, iter(adjacency[first_node]), grown)]
            while stack:
                here, it, parts = stack[-1]
                for nxt, _, adds in it:  # noqa: B007 (the found successor is used after the break)
                    if not on_path[nxt]:
                        break
                else:
                    stack.pop()
                    on_path[here] = 0
                    continue
                if len(adds) == 1:
                    pa, ia, g0, g1, g2, g3 = adds[0]
                    if len(parts) == 1:  # the common case: no parallel edge so far
                        p, i, a, b, c, d = parts[0]
                        grown = [(
                            p + pa,
                            i + ia,
                            a if a >= g0 else g0,
                            b if b >= g1 else g1,
                            c if c >= g2 else g2,
                            d if d >= g3 else g3,
                        )]
                    else:
                        grown = [
                            (
                                p + pa,
                                i + ia,
                                a if a >= g0 else g0,
                                b if b >= g1 else g1,
                                c if c >= g2 else g2,
                                d if d >= g3 else g3,
                            )
                            for p, i, a, b, c, d in parts
                        ]
                else:  # parallel edges: product order, earlier hops vary slowest
                    grown = [
                        (p + pa, i + ia, max(a, g0), max(b, g1), max(c, g2), max(d, g3))
                        for p, i, a, b, c, d in parts
                        for pa, ia, g0, g1, g2, g3 in adds
                    ]
                found[nxt].append((len(stack) + 1, grown))
                on_path[nxt] = 1
                stack.append((nxt, iter(adjacency[nxt]), grown))
        for groups in found:
            if len(groups) > 1:
                groups.sort(key=_hops_of)  # stable: equal lengths keep discovery order
        return found

    def _pairs(self, text: bool) -> Iterator[tuple[int, int, _Groups]]:
        """(source index, target index, groups) for every ordered pair of distinct nodes, in node order."""
        n = len(self.nodes)
        for s in range(n):
            found = self._expansions(s, text)
            for d in range(n):
                if d != s:
                    yield s, d, found[d]

    def build(self) -> tuple[list[JsonObject], list[JsonObject]]:
        """(all2all records, all_pairs records) in file order."""
        all2all: list[JsonObject] = []
        all_pairs: list[JsonObject] = []
        nodes, quoted = self.nodes, self._quoted
        sha = hashlib.sha256
        l0, l1, l2, l3 = LABELS
        for s, d, groups in self._pairs(text=False):
            src, dst = nodes[s], nodes[d]
            shortest = groups[0][0] if groups else 0
            m0 = m1 = m2 = m3 = _ABOVE  # the pair's label minima (9999 when unreachable, below)
            count = 0
            for k, part in groups:
                count += len(part)
                for steps, id_text, a, b, c, e in part:
                    all2all.append({
                        "src_node": src,
                        "dst_node": dst,
                        "diff_shortest": k - shortest,
                        "path_details": list(steps),
                        "step_count": k,
                        "id": sha(id_text + b"]").hexdigest(),
                        l0: a,
                        l1: b,
                        l2: c,
                        l3: e,
                    })
                    if a < m0:
                        m0 = a
                    if b < m1:
                        m1 = b
                    if c < m2:
                        m2 = c
                    if e < m3:
                        m3 = e
            if not count:
                m0 = m1 = m2 = m3 = NEVER
            rid = sha(f'{{"dst_node": {quoted[d]}, "src_node": {quoted[s]}}}'.encode()).hexdigest()
            all_pairs.append({
                "src_node": src, "dst_node": dst, "num_paths": count, "id": rid, l0: m0, l1: m1, l2: m2, l3: m3,
            })
        return all2all, all_pairs

    def texts(self) -> tuple[str, str]:
        """The ``all2all.jsonl`` and ``all_pairs.jsonl`` texts, written straight from the cached strings."""
        if not self._plain:
            all2all, all_pairs = self.build()
            return "".join(map(json_line, all2all)), "".join(map(json_line, all_pairs))
        df_lines: list[str] = []
        rf_lines: list[str] = []
        quoted = self._quoted
        sha = hashlib.sha256
        for s, d, groups in self._pairs(text=True):
            head = f'{{"src_node": {quoted[s]}, "dst_node": {quoted[d]}, '
            shortest = groups[0][0] if groups else 0
            m0 = m1 = m2 = m3 = _ABOVE
            count = 0
            for k, part in groups:
                count += len(part)
                head_mid = f'{head}"diff_shortest": {k - shortest}, "path_details": ['
                tail = f'], "step_count": {k}, "id": "'
                for json_texts, id_text, a, b, c, e in part:
                    # pieces, not one f-string: the long path_details text is then copied once, by the final join
                    df_lines.append(head_mid)
                    df_lines += json_texts
                    df_lines.append(
                        f'{tail}{sha(id_text + b"]").hexdigest()}", '
                        f'"min_step_forward": {a}, "min_step_total": {b}, "min_step_forward_answerable": {c}, '
                        f'"min_step_total_answerable": {e}}}\n'
                    )
                    if a < m0:
                        m0 = a
                    if b < m1:
                        m1 = b
                    if c < m2:
                        m2 = c
                    if e < m3:
                        m3 = e
            if not count:
                m0 = m1 = m2 = m3 = NEVER
            rid = sha(f'{{"dst_node": {quoted[d]}, "src_node": {quoted[s]}}}'.encode()).hexdigest()
            rf_lines.append(
                f'{head}"num_paths": {count}, "id": "{rid}", "min_step_forward": {m0}, "min_step_total": {m1}, '
                f'"min_step_forward_answerable": {m2}, "min_step_total_answerable": {m3}}}\n'
            )
        return "".join(df_lines), "".join(rf_lines)


def _hops_of(group: tuple[int, list[_Expansion]]) -> int:
    return group[0]


def rf_record(src: str, dst: str, df_records: list[JsonObject]) -> JsonObject:
    """The ``all_pairs`` record of a pair: its path count and the minimum of each label over its DF skeletons."""
    record = {"src_node": src, "dst_node": dst, "num_paths": len(df_records), "id": rf_id(src, dst)}
    for label in LABELS:
        record[label] = min((r[label] for r in df_records), default=NEVER)
    return record


def build_skeletons(edges: list[JsonObject]) -> tuple[list[JsonObject], list[JsonObject]]:
    """(all2all, all_pairs) records of a maze from its edges."""
    return SkeletonBuilder(edges).build()


def skeleton_texts(edges: list[JsonObject]) -> tuple[str, str]:
    """The ``all2all.jsonl`` and ``all_pairs.jsonl`` file texts of a maze."""
    return SkeletonBuilder(edges).texts()
