"""Rebuilding every maze's skeletons vs enumerating the same simple paths with networkx.all_simple_paths.

Usage: python benchmarks/mango_skeletons.py [DATA_DIR] [--repeat N]   (default: ../shared/data/mango, N=5)

Both sides get the same mazes (the official samples found in DATA_DIR plus 20 procedural ones) and enumerate the
same path multiset (checked below, outside the timings: every (S, D) pair, simple node paths expanded over
parallel edges). The baseline is the issue's: ``all_simple_paths(G, S, D)`` for every ordered pair, as §4.5
states the enumeration. networkx's multi-target mode (one call per source with a target set, the same trick the
builder uses) is the second anchor; against it the builder is only a few times faster. playbench's side does strictly more: it writes the complete ``all2all.jsonl`` and
``all_pairs.jsonl`` texts (records, labels, SHA-256 ids, serialisation); networkx only yields node lists.
The three sides are sampled N times, interleaved; min / median / max of CPU (process_time) and wall time are
printed, and the first line says whether the official mazes were found (without them only procedural mazes
are timed, and the line says so).
"""

import statistics
import sys
from collections import Counter
from pathlib import Path

import networkx as nx
from common import interleaved, machine_note, spread

from playbench.suites.mango.formats import open_data
from playbench.suites.mango.procedural import MazeParams, generate
from playbench.suites.mango.skeletons import build_skeletons, skeleton_texts


def _ours(mazes: list[tuple[str, list[dict]]]) -> int:
    lines = 0
    for _, edges in mazes:
        all2all, _pairs = skeleton_texts(edges)
        lines += all2all.count("\n")
    return lines


def _networkx(mazes: list[tuple[str, list[dict]]]) -> int:
    paths = 0
    for _, edges in mazes:
        graph = nx.MultiDiGraph()
        for e in edges:
            if e["src_node"] != e["dst_node"]:
                graph.add_edge(e["src_node"], e["dst_node"], action=e["action"])
        for s in graph.nodes:
            for d in graph.nodes:
                if s != d:
                    paths += sum(1 for _ in nx.all_simple_paths(graph, s, d))
    return paths


def _networkx_per_source(mazes: list[tuple[str, list[dict]]]) -> int:
    """networkx's own multi-target mode (one call per source), for reference: not the issue's baseline."""
    paths = 0
    for _, edges in mazes:
        graph = nx.MultiDiGraph()
        for e in edges:
            if e["src_node"] != e["dst_node"]:
                graph.add_edge(e["src_node"], e["dst_node"], action=e["action"])
        for s in graph.nodes:
            paths += sum(1 for _ in nx.all_simple_paths(graph, s, set(graph.nodes) - {s}))
    return paths


def _same_paths(edges: list[dict]) -> bool:
    """Whether both enumerate the same multiset of node paths (networkx yields one per parallel-edge choice)."""
    ours = Counter(
        (r["src_node"], *(s["node"] for s in r["path_details"])) for r in build_skeletons(edges)[0]
    )
    graph = nx.MultiDiGraph()
    graph.add_edges_from((e["src_node"], e["dst_node"]) for e in edges if e["src_node"] != e["dst_node"])
    theirs = Counter(tuple(p) for s in graph for d in graph if s != d for p in nx.all_simple_paths(graph, s, d))
    return ours == theirs


def main() -> None:
    """Time both enumerations on the official sample mazes plus procedural ones."""
    args = sys.argv[1:]
    repeat = 5
    if "--repeat" in args:
        i = args.index("--repeat")
        repeat = int(args[i + 1])
        del args[i : i + 2]
    root = Path(args[0]) if args else Path(__file__).resolve().parents[2] / "shared" / "data" / "mango"
    if root.is_dir():
        mazes = [(g.name, g.edges) for g in open_data(root)]
        print(f"data: {len(mazes)} official sample mazes from {root}, plus 20 procedural ones")
    else:
        mazes = []
        print(f"DATA MISSING: no MANGO data directory at {root}; timing 20 procedural mazes only "
              "(give DATA_DIR to include the official mazes)")
    print(machine_note())
    mazes += [(f"proc{s}", generate(s, MazeParams(locations=12)).edges) for s in range(20)]
    assert all(_same_paths(edges) for _, edges in mazes), "path sets differ"
    samples = interleaved({
        "playbench": lambda: _ours(mazes),
        "networkx per pair": lambda: _networkx(mazes),
        "networkx per source": lambda: _networkx_per_source(mazes),
    }, repeat)
    counts = {name: set(s.results) for name, s in samples.items()}
    assert counts["playbench"] == counts["networkx per pair"] == counts["networkx per source"], counts
    print(f"mazes: {len(mazes)}, DF skeletons: {samples['playbench'].results[0]} (same path multiset on every side)")
    print(f"{repeat} interleaved samples per side, one pass over every maze each; min / median / max")
    for name, s in samples.items():
        print(f"  {name:<20} wall {spread(s.wall)} s   CPU {spread(s.cpu)} s")
    ours = statistics.median(samples["playbench"].cpu)
    for name in ("networkx per pair", "networkx per source"):
        ratio = [theirs / mine for theirs, mine in zip(samples[name].cpu, samples["playbench"].cpu, strict=True)]
        print(f"speed-up over {name}: CPU {spread(ratio, digits=1)}x (per-sample ratios; goal > 1: faster than "
              f"networkx, which only yields node lists, while playbench writes whole files)")
    print(f"(playbench median CPU per pass {ours:.3f} s)")


if __name__ == "__main__":
    main()
