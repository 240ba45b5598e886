"""DF and RF skeletons from a game's edges: simple paths on the multigraph, ids and labels (spec §2.4–2.5, §4.5–4.6)."""

import hashlib
import itertools
from collections.abc import Iterator
from json.encoder import encode_basestring_ascii as _quote  # what json.dumps uses for str (ASCII escapes)

from playbench.suites.mango.formats import NEVER, STEP_FIELDS, json_line
from playbench.suites.mango.maze import insertion_order, node_order

LABELS = ("min_step_forward", "min_step_total", "min_step_forward_answerable", "min_step_total_answerable")
_LABEL_FIELD = {
    "min_step_forward": "seen_in_forward",
    "min_step_total": "edge_min_step",
    "min_step_forward_answerable": "seen_in_forward_answerable",
    "min_step_total_answerable": "edge_min_step_answerable",
}


def step_fragment(step: dict) -> str:
    """A step reduced to prev_node, node and action, as sorted-key JSON with ``json.dumps`` defaults."""
    return (
        f'{{"action": {_quote(step["action"])}, "node": {_quote(step["node"])}, '
        f'"prev_node": {_quote(step["prev_node"])}}}'
    )


def df_id(steps: list[dict]) -> str:
    """The DF id: SHA-256 of the sorted-key JSON of the steps reduced to prev_node, node and action."""
    return _df_id_from_fragments([step_fragment(s) for s in steps])


def _df_id_from_fragments(fragments: list[str]) -> str:
    return hashlib.sha256(("[" + ", ".join(fragments) + "]").encode()).hexdigest()


def rf_id(src: str, dst: str) -> str:
    """The RF id: SHA-256 of the sorted-key JSON of ``{src_node, dst_node}``."""
    return hashlib.sha256(f'{{"dst_node": {_quote(dst)}, "src_node": {_quote(src)}}}'.encode()).hexdigest()


def _step(edge: dict) -> dict:
    step = {"prev_node": edge["src_node"], "node": edge["dst_node"], "action": edge["action"]}
    for f in STEP_FIELDS:
        step[f] = edge[f]
    return step


class SkeletonBuilder:
    """Enumerates the skeletons of one maze given its ``edges.json`` records (file order)."""

    def __init__(self, edges: list[dict]) -> None:
        self.edges = edges
        self.nodes = node_order(insertion_order(edges))
        self.succ: dict[str, list[str]] = {n: [] for n in self.nodes}
        self.parallel: dict[tuple[str, str], list[dict]] = {}
        for e in edges:
            s, d = e["src_node"], e["dst_node"]
            if s == d:
                continue  # a self-loop never appears in a simple path
            if (s, d) not in self.parallel:
                self.parallel[(s, d)] = []
                self.succ[s].append(d)
            step = _step(e)
            labels = tuple(step[_LABEL_FIELD[k]] for k in LABELS)
            self.parallel[(s, d)].append((step, step_fragment(step), labels))

    def node_paths(self, src: str) -> dict[str, list[tuple[str, ...]]]:
        """Every simple node sequence from ``src``, grouped by target, in depth-first discovery order."""
        found: dict[str, list[tuple[str, ...]]] = {}
        path = [src]
        on_path = {src}
        succ = self.succ
        # iterative DFS: a stack of successor iterators keeps discovery order identical to recursion
        stack = [iter(succ[src])]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                on_path.discard(path.pop())
                continue
            if nxt in on_path:
                continue
            path.append(nxt)
            on_path.add(nxt)
            found.setdefault(nxt, []).append(tuple(path))
            stack.append(iter(succ[nxt]))
        path.clear()
        return found

    def pairs(self) -> Iterator[tuple[str, str, list[dict]]]:
        """(S, D, DF records) for every ordered pair of distinct nodes, in node order."""
        for src in self.nodes:
            paths = self.node_paths(src)
            for dst in self.nodes:
                if dst == src:
                    continue
                yield src, dst, self._df_records(src, dst, paths.get(dst, []))

    def _df_records(self, src: str, dst: str, node_seqs: list[tuple[str, ...]]) -> list[dict]:
        if not node_seqs:
            return []
        node_seqs = sorted(node_seqs, key=len)  # stable: equal lengths keep discovery order
        shortest = len(node_seqs[0]) - 1
        out = []
        for seq in node_seqs:
            hops = [self.parallel[(a, b)] for a, b in itertools.pairwise(seq)]
            for combo in itertools.product(*hops):
                steps = [c[0] for c in combo]
                record = {
                    "src_node": src,
                    "dst_node": dst,
                    "diff_shortest": len(steps) - shortest,
                    "path_details": steps,
                    "step_count": len(steps),
                    "id": _df_id_from_fragments([c[1] for c in combo]),
                }
                for label, value in zip(LABELS, map(max, zip(*(c[2] for c in combo), strict=True)), strict=True):
                    record[label] = value
                out.append(record)
        return out

    def build(self) -> tuple[list[dict], list[dict]]:
        """(all2all records, all_pairs records) in file order."""
        all2all: list[dict] = []
        all_pairs: list[dict] = []
        for src, dst, records in self.pairs():
            all2all.extend(records)
            all_pairs.append(rf_record(src, dst, records))
        return all2all, all_pairs


def rf_record(src: str, dst: str, df_records: list[dict]) -> dict:
    """The ``all_pairs`` record of a pair: its path count and the minimum of each label over its DF skeletons."""
    record = {"src_node": src, "dst_node": dst, "num_paths": len(df_records), "id": rf_id(src, dst)}
    for label in LABELS:
        record[label] = min((r[label] for r in df_records), default=NEVER)
    return record


def build_skeletons(edges: list[dict]) -> tuple[list[dict], list[dict]]:
    """(all2all, all_pairs) records of a maze from its edges."""
    return SkeletonBuilder(edges).build()


def skeleton_texts(edges: list[dict]) -> tuple[str, str]:
    """The ``all2all.jsonl`` and ``all_pairs.jsonl`` file texts of a maze."""
    all2all, all_pairs = build_skeletons(edges)
    return "".join(json_line(r) for r in all2all), "".join(json_line(r) for r in all_pairs)
