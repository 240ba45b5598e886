"""The skeleton builder's two outputs agree, on mazes with parallel edges and on non-integer step fields."""

import itertools
import json

from playbench.suites.mango.formats import json_line
from playbench.suites.mango.maze import edge_record
from playbench.suites.mango.procedural import MazeParams, generate
from playbench.suites.mango.skeletons import LABELS, SkeletonBuilder, df_id, skeleton_texts


def _by_brute_force(edges: list[dict], src: str, dst: str) -> list[list[dict]]:
    """Every simple edge path from src to dst, by trying every edge sequence (tiny mazes only)."""
    out = []
    for k in range(1, 5):
        for seq in itertools.product([e for e in edges if e["src_node"] != e["dst_node"]], repeat=k):
            nodes = [seq[0]["src_node"]] + [e["dst_node"] for e in seq]
            if (nodes[0] == src and nodes[-1] == dst and len(set(nodes)) == len(nodes)
                    and all(a["dst_node"] == b["src_node"] for a, b in itertools.pairwise(seq))):
                out.append(list(seq))
    return out


def test_texts_equal_serialised_records_on_procedural_mazes():
    for seed in range(30):
        edges = generate(seed, MazeParams(locations=9)).edges
        builder = SkeletonBuilder(edges)
        all2all, all_pairs = builder.build()
        assert builder.texts() == ("".join(map(json_line, all2all)), "".join(map(json_line, all_pairs)))


def test_parallel_edges_and_labels_against_brute_force():
    edges = [
        edge_record("a", "north", "b", 1, 1, 9999, 9999),
        edge_record("a", "climb", "b", 5, 6, 9999, 9999),  # a parallel edge
        edge_record("b", "east", "c", 2, 2, 4, 4),
        edge_record("b", "jump", "c", 9999, 9999, 3, 3),
        edge_record("a", "dive", "c", 7, 7, 9999, 9999),
        edge_record("c", "west", "b", 4, 4, 2, 2),
        edge_record("c", "wait", "c", 8, 8, 9999, 9999),  # a self-loop never appears in a path
    ]
    all2all, all_pairs = SkeletonBuilder(edges).build()
    records = {(r["src_node"], r["dst_node"], r["id"]): r for r in all2all}
    for pair in all_pairs:
        s, d = pair["src_node"], pair["dst_node"]
        paths = _by_brute_force(edges, s, d)
        assert pair["num_paths"] == len(paths)
        for path in paths:
            steps = [{"prev_node": e["src_node"], "node": e["dst_node"], "action": e["action"]} for e in path]
            r = records[(s, d, df_id(steps))]
            assert r["min_step_forward_answerable"] == max(e["seen_in_forward_answerable"] for e in path)
            assert r["min_step_total_answerable"] == max(e["edge_min_step_answerable"] for e in path)
        for label in LABELS:
            want = min((records[k][label] for k in records if k[:2] == (s, d)), default=9999)
            assert pair[label] == want
    # product order: first hop varies slowest, parallel edges in file order
    a_to_c = [[s["action"] for s in r["path_details"]] for r in all2all if (r["src_node"], r["dst_node"]) == ("a", "c")]
    assert a_to_c == [["dive"], ["north", "east"], ["north", "jump"], ["climb", "east"], ["climb", "jump"]]


def test_non_integer_step_fields_fall_back_to_json():
    edges = [edge_record("a", "north", "b", 1, 1, 9999, 9999), edge_record("b", "south", "a", 2.0, 2, 9999, 9999)]
    all2all, all_pairs = skeleton_texts(edges)
    lines = [json.loads(x) for x in all2all.splitlines()]
    assert any(r["min_step_forward"] == 2.0 and "2.0" in line for r, line in zip(lines, all2all.splitlines(), strict=True))
    assert all_pairs.count("\n") == 2
