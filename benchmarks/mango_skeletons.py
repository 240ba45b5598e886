"""Rebuilding every maze's skeletons vs enumerating the same simple paths with networkx.all_simple_paths.

Usage: python benchmarks/mango_skeletons.py [DATA_DIR]   (default: ../shared/data/mango)
Prints both wall times from one run and the speed-up; also checks both enumerate the same number of paths.
"""

import sys
import time
from pathlib import Path

import networkx as nx

from playbench.suites.mango.formats import open_data
from playbench.suites.mango.procedural import MazeParams, generate
from playbench.suites.mango.skeletons import build_skeletons


def main() -> None:
    """Time both enumerations on the official sample mazes plus procedural ones."""
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "data" / "mango"
    mazes = [(g.name, g.edges) for g in open_data(root)] if root.is_dir() else []
    mazes += [(f"proc{s}", generate(s, MazeParams(locations=12)).edges) for s in range(20)]

    t0 = time.perf_counter()
    ours = 0
    for _, edges in mazes:
        all2all, _pairs = build_skeletons(edges)
        ours += len(all2all)
    t_ours = time.perf_counter() - t0

    t0 = time.perf_counter()
    theirs = 0
    for _, edges in mazes:
        graph = nx.MultiDiGraph()
        for e in edges:
            if e["src_node"] != e["dst_node"]:
                graph.add_edge(e["src_node"], e["dst_node"], action=e["action"])
        for s in graph.nodes:
            for d in graph.nodes:
                if s != d:
                    theirs += sum(1 for _ in nx.all_simple_paths(graph, s, d))
    t_nx = time.perf_counter() - t0

    print(f"mazes: {len(mazes)}, DF skeletons: playbench {ours}, networkx {theirs}")
    print(f"playbench skeleton builder (paths + records + ids): {t_ours:.3f} s")
    print(f"networkx all_simple_paths (paths only):              {t_nx:.3f} s")
    print(f"speed-up: {t_nx / t_ours:.1f}x")


if __name__ == "__main__":
    main()
