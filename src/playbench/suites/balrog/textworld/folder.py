"""A folder of TextWorld games the user supplies (``-T games=PATH``).

PATH may hold the games themselves or, like BALROG's ``tw_games``, one sub-folder per task (then the
task's sub-folder is used). Games are listed in BALROG's order: the ``.ulx`` files sorted, then the
``.z8`` files sorted, then games given only as a ``.json``. A ``.z8`` is played as it is, with the
TextWorld ``.json`` that must lie beside it (TextWorld reads the goal, score and walkthrough there). textworld 1.7
cannot play Glulx (``.ulx``): a ``.ulx`` with its TextWorld ``.json`` beside it is compiled from that
``.json`` to ``.z8`` (once, into the cache); a ``.ulx`` without one is refused in one line before the run
starts, as is a folder with no game.
"""

import hashlib
import json
from pathlib import Path

from playbench.core.errors import PlaybenchError
from playbench.suites.balrog.textworld.generate import GameSpec
from playbench.suites.balrog.textworld.sets import GameRef

#: Formats of interactive fiction that textworld 1.7 does not play (Glulx and blorb archives).
UNPLAYABLE = (".ulx", ".gblorb", ".blorb", ".zblorb")


def task_folder(folder: Path, task: str) -> Path:
    """The folder holding the task's games: ``PATH/task`` when it exists, else PATH."""
    return folder / task if (folder / task).is_dir() else folder


def _is_game_json(path: Path) -> bool:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "world" in data and "quests" in data


def folder_games(folder: Path, task: str) -> list[GameRef]:
    """The playable games of a folder, in BALROG's order; a PlaybenchError names what cannot be played."""
    if not folder.is_dir():
        raise PlaybenchError(f"-T games={folder}: not a folder of TextWorld games")
    base = task_folder(folder, task)
    files = sorted(p for p in base.iterdir() if p.is_file())
    stems: list[str] = []
    for suffix in (".ulx", ".z8"):
        stems += [p.stem for p in files if p.suffix == suffix and p.stem not in stems]
    stems += [p.stem for p in files if p.suffix == ".json" and p.stem not in stems and _is_game_json(p)]
    refs = []
    for stem in stems:
        z8, meta = base / f"{stem}.z8", base / f"{stem}.json"
        has_meta = meta.is_file() and _is_game_json(meta)
        if z8.is_file():
            if not has_meta:  # without it TextWorld tracks no score, objective or win
                raise PlaybenchError(f"-T games={folder}: {z8} has no TextWorld .json beside it (its goal, score and "
                                     "walkthrough come from that file)")
            refs.append(GameRef(stem, path=z8))
        elif has_meta:
            sha = hashlib.sha256(meta.read_bytes()).hexdigest()
            refs.append(GameRef(stem, spec=GameSpec(task=task, stem=stem, source=str(meta.resolve()), source_sha=sha)))
        else:
            raise PlaybenchError(
                f"-T games={folder}: {base / stem}.ulx is a Glulx game, which textworld 1.7 cannot play; "
                f"give its TextWorld .json beside it (playbench compiles it to .z8) or a .z8"
            )
    if not refs:
        other = sorted({p.suffix for p in files if p.suffix in UNPLAYABLE})
        extra = f" (found {', '.join(other)}: formats textworld 1.7 cannot play)" if other else ""
        raise PlaybenchError(f"-T games={folder}: no TextWorld game (.z8, .ulx with its .json, or .json) in {base}{extra}")
    return refs
