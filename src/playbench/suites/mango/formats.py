"""The official MANGO file layout (one folder per game, six files) and its exact serialisation (spec §2)."""

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from playbench.core.errors import PlaybenchError

NEVER = 9999  # MANGO's sentinel for "never" (edges, paths, pairs)
SUFFIXES = ("walkthrough", "locations.json", "actions.json", "edges.json", "all2all.jsonl", "all_pairs.jsonl")
STEP_FIELDS = (
    "seen_in_forward",
    "seen_in_reversed",
    "edge_min_step",
    "seen_in_forward_answerable",
    "seen_in_reversed_answerable",
    "edge_min_step_answerable",
)


def json_line(obj: Any) -> str:
    """One ``.jsonl`` line as the original wrote it: ``json.dumps`` defaults plus a newline."""
    return json.dumps(obj) + "\n"


def json_file_text(obj: Any) -> str:
    """A ``.json`` file as the original wrote it: 4-space indent, ASCII escapes, no trailing newline."""
    return json.dumps(obj, indent=4)


def read_jsonl(path: Path) -> list[dict]:
    """Every record of a JSON-lines file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@dataclass
class GameFiles:
    """The six files of one game, read lazily from ``folder/<name>.<suffix>``."""

    folder: Path
    name: str

    def path(self, suffix: str) -> Path:
        """The path of one of the six files."""
        return self.folder / f"{self.name}.{suffix}"

    @cached_property
    def walkthrough_text(self) -> str:
        """The raw walkthrough text."""
        return self.path("walkthrough").read_text(encoding="utf-8")

    @cached_property
    def locations(self) -> list[str]:
        """``locations.json`` in file order (the order is pasted into every prompt)."""
        return json.loads(self.path("locations.json").read_text(encoding="utf-8"))

    @cached_property
    def actions(self) -> list[str]:
        """``actions.json`` in file order."""
        return json.loads(self.path("actions.json").read_text(encoding="utf-8"))

    @cached_property
    def edges(self) -> list[dict]:
        """``edges.json`` in file order."""
        return json.loads(self.path("edges.json").read_text(encoding="utf-8"))

    @cached_property
    def all2all(self) -> list[dict]:
        """The DF skeletons, in file order."""
        return read_jsonl(self.path("all2all.jsonl"))

    @cached_property
    def all_pairs(self) -> list[dict]:
        """The RF skeletons, in file order."""
        return read_jsonl(self.path("all_pairs.jsonl"))


def open_game(folder: Path | str) -> GameFiles:
    """One game folder (``X/`` holding ``X.edges.json`` ...); a missing file is a PlaybenchError."""
    folder = Path(folder)
    name = folder.name
    if not folder.is_dir():
        raise PlaybenchError(f"{folder} is not a folder")
    missing = [s for s in ("walkthrough", "locations.json", "actions.json", "edges.json") if not (folder / f"{name}.{s}").is_file()]
    if missing:
        raise PlaybenchError(f"{folder} is not a MANGO game folder (missing {name}.{missing[0]})")
    return GameFiles(folder, name)


def open_data(root: Path | str, games: list[str] | None = None) -> list[GameFiles]:
    """Every game folder of a data folder, sorted by name, optionally filtered to ``games``."""
    root = Path(root)
    if not root.is_dir():
        raise PlaybenchError(f"MANGO data folder {root} does not exist")
    found = {p.name: p for p in sorted(root.iterdir()) if p.is_dir() and (p / f"{p.name}.edges.json").is_file()}
    if not found:
        raise PlaybenchError(f"no MANGO game folders (X/X.edges.json) under {root}")
    if games:
        unknown = [g for g in games if g not in found]
        if unknown:
            raise PlaybenchError(f"unknown MANGO game {unknown[0]!r} in {root}; have {', '.join(found)}")
        return [open_game(found[g]) for g in games]
    return [open_game(p) for p in found.values()]


def write_game(folder: Path, name: str, files: dict[str, Any]) -> Path:
    """Write the six files of one game (``files`` maps suffix to text or objects) into ``folder/name``."""
    out = Path(folder) / name
    out.mkdir(parents=True, exist_ok=True)
    for suffix, content in files.items():
        if suffix.endswith(".jsonl") and not isinstance(content, str):
            content = "".join(json_line(r) for r in content)
        elif suffix.endswith(".json") and not isinstance(content, str):
            content = json_file_text(content)
        (out / f"{name}.{suffix}").write_text(content, encoding="utf-8")
    return out
