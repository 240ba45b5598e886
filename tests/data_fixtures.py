"""Small data files in the official MANGO, GRASP and Boxoban formats, written from the specs (not from the readers).

Tests use them instead of the official samples, and corrupt them to check that bad data is refused.
"""

import hashlib
import json
from pathlib import Path

NEVER = 9999

# -- MANGO: a three-room maze in the official six-file format (spec §2) ---------------------------------------

GAME = "tiny"
STEPS = [  # (number, action, observation): kitchen -north-> hall -east-> garden -west-> hall
    (0, "Init", "Kitchen\nA small kitchen. A door leads north."),
    (1, "north", "Hall\nA long hall. Exits: south, east."),
    (2, "east", "Garden\nA quiet garden. The hall is west."),
    (3, "west", "Hall\nA long hall again."),
]
# (src, action, dst, seen_in_forward, seen_in_reversed); answerable steps equal the steps
EDGES = [
    ("kitchen", "north", "hall", 1, NEVER),
    ("hall", "south", "kitchen", NEVER, 1),  # imputed reverse of step 1
    ("hall", "east", "garden", 2, 3),
    ("garden", "west", "hall", 3, 2),
]
PATHS = [  # every simple path between distinct locations, as edge indices
    [0], [0, 2], [1], [2], [3], [3, 1],
]
LOCATIONS = ["kitchen", "hall", "garden"]
ACTIONS = ["north", "south", "east", "west"]


def _edge(src: str, action: str, dst: str, fwd: int, rev: int) -> dict:
    return {"src_node": src, "dst_node": dst, "action": action, "seen_in_forward": fwd, "seen_in_reversed": rev,
            "edge_min_step": min(fwd, rev), "seen_in_forward_answerable": fwd, "seen_in_reversed_answerable": rev,
            "edge_min_step_answerable": min(fwd, rev)}


def _step(edge: dict) -> dict:
    out = {"prev_node": edge["src_node"], "node": edge["dst_node"], "action": edge["action"]}
    out.update({k: v for k, v in edge.items() if k.startswith(("seen", "edge"))})
    return out


def _sha(obj: object) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


def _labels(steps: list[dict]) -> dict:
    return {"min_step_forward": max(s["seen_in_forward"] for s in steps),
            "min_step_total": max(s["edge_min_step"] for s in steps),
            "min_step_forward_answerable": max(s["seen_in_forward_answerable"] for s in steps),
            "min_step_total_answerable": max(s["edge_min_step_answerable"] for s in steps)}


def write_mango(root: Path) -> Path:
    """A data folder holding the game ``tiny``; returns the data folder."""
    edges = [_edge(*e) for e in EDGES]
    df = []
    for path in PATHS:
        steps = [_step(edges[i]) for i in path]
        df.append({"src_node": steps[0]["prev_node"], "dst_node": steps[-1]["node"], "diff_shortest": 0,
                   "path_details": steps, "step_count": len(steps),
                   "id": _sha([{k: s[k] for k in ("prev_node", "node", "action")} for s in steps]), **_labels(steps)})
    rf = [{"src_node": d["src_node"], "dst_node": d["dst_node"], "num_paths": 1,
           "id": _sha({"src_node": d["src_node"], "dst_node": d["dst_node"]}),
           **{k: d[k] for k in ("min_step_forward", "min_step_total", "min_step_forward_answerable",
                                "min_step_total_answerable")}} for d in df]
    walkthrough = "".join(f"===========\n==>STEP NUM: {n}\n==>ACT: {a}\n==>OBSERVATION: {o}\n\n" for n, a, o in STEPS)
    folder = root / GAME
    folder.mkdir(parents=True)
    files = {
        "walkthrough": walkthrough + "===========\n",
        "locations.json": json.dumps(LOCATIONS, indent=4),
        "actions.json": json.dumps(ACTIONS, indent=4),
        "edges.json": json.dumps(edges, indent=4),
        "all2all.jsonl": "".join(json.dumps(r) + "\n" for r in df),
        "all_pairs.jsonl": "".join(json.dumps(r) + "\n" for r in rf),
    }
    for suffix, text in files.items():
        (folder / f"{GAME}.{suffix}").write_text(text, encoding="utf-8")
    return root


def mango_file(root: Path, suffix: str) -> Path:
    return root / GAME / f"{GAME}.{suffix}"


def edge_line(k: int) -> int:
    """The line where edge ``k`` starts in the 4-space-indented edges.json (a '[' line, then 11 lines per edge)."""
    return 2 + 11 * k


def walkthrough_line(k: int) -> int:
    """The '==>STEP NUM' line of block ``k`` (separator, number, action, two observation lines, blank line)."""
    return 2 + 6 * k


# -- GRASP: one official grid file with two grids (spec §3) --------------------------------------------------

ROWS = [  # '.' = empty cell
    "E..O....E.E", "..E..E.....", "E....O..E..", ".E..E...E..", "...E.....O.",
    "E....A..E..", "..O..E.....", ".E...E..E.E", "....E....O.", "E.E.....E..", "...E..E....",
]


def grid_text(rows: list[str]) -> str:
    """The §3 rendering: header, separators, rows with the cell character at offset 4 + 4*col."""
    cols = len(rows[0])
    sep = "  +" + "---+" * cols + "\n"
    out = "    " + "   ".join(str(c) for c in range(cols)) + " \n" + sep
    for r, row in enumerate(rows):
        out += f"{r:>2}|" + "".join(f" {ch.replace('.', ' ')} |" for ch in row) + "\n" + sep
    return out


def grid_record(index: int, rows: list[str] = ROWS, **changes: object) -> dict:
    rec = {"index": index, "energy": "random", "energy_probability": 0.5, "obstacle": "block",
           "start_position": "inner", "grid": grid_text(rows), "start": [5, 5]}
    rec.update(changes)
    return rec


GRID_FILE = "inner_random_block.jsonl"


def write_grasp(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / GRID_FILE).write_text("".join(json.dumps(grid_record(i)) + "\n" for i in range(2)), encoding="utf-8")
    (root / "notes.txt").write_text("not a grid file\n")  # other files beside the grids are ignored
    return root


def set_grid_line(root: Path, number: int, rec: dict | str) -> tuple[Path, int]:
    path = root / GRID_FILE
    lines = path.read_text().splitlines()
    lines[number - 1] = rec if isinstance(rec, str) else json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    return path, number


# -- Boxoban: one level file with two levels (``; N`` then ten rows) ----------------------------------------------

LEVEL = [
    "##########",
    "#        #",
    "# $ .    #",
    "#   $ .  #",
    "#  @     #",
    "# $ .    #",
    "#   $ .  #",
    "#        #",
    "#        #",
    "##########",
]


def write_boxoban(root: Path) -> Path:
    """``root/levels/000.txt`` with levels 0 and 1; returns the file."""
    folder = root / "levels"
    folder.mkdir(parents=True)
    path = folder / "000.txt"
    path.write_text("".join(f"; {n}\n" + "\n".join(LEVEL) + "\n\n" for n in range(2)))
    return path


def set_level_line(path: Path, number: int, text: str | None) -> tuple[Path, int]:
    """Replace (or with None remove) line ``number`` of a level file. Level 0: lines 1-11, level 1: lines 13-23."""
    lines = path.read_text().split("\n")
    if text is None:
        del lines[number - 1]
    else:
        lines[number - 1] = text
    path.write_text("\n".join(lines))
    return path, number
