"""Print the rows of ``playbench/suites/balrog/textworld/published.py`` from BALROG's published TextWorld games.

    git clone https://github.com/conglu1997/intelligent-go-explore /tmp/ige
    python scripts/facts/textworld_games.py /tmp/ige/textworld/tw_games > /tmp/rows.py

Reads only each game's ``.json`` metadata (generation seeds, walkthrough, settings, uuid) and counts rooms
and the maximum score; the games themselves are not copied. Games are listed in BALROG's order: its
factory globs ``*.ulx`` then ``*.z8`` and sorts each list (balrog/environments/textworld/base.py).
"""

import hashlib
import json
import sys
from pathlib import Path

TASKS = ("treasure_hunter", "the_cooking_game", "coin_collector")


def short_sha(text: str) -> str:
    """The first 16 hex digits of the SHA-256 of a text (what the table keeps of long texts)."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def world_digest(facts: list) -> str:
    """The digest of the initial world facts (as ``generate.world_digest`` computes it)."""
    return short_sha("\n".join(sorted({json.dumps(fact, sort_keys=True) for fact in facts})))


def rows(folder: Path, task: str) -> list[str]:
    """One ``PublishedGame(...)`` line per game of a task, in BALROG's order."""
    import textworld

    files = sorted((folder / task).glob("*.ulx")) + sorted((folder / task).glob("*.z8"))
    out = []
    for game_file in files:
        meta_file = game_file.with_suffix(".json")
        data = json.loads(meta_file.read_text())
        meta = data["metadata"]
        rooms = sum(1 for _, info in data["infos"] if info["type"] == "r")
        max_score = textworld.Game.load(str(meta_file)).max_score
        seeds = tuple(meta["seeds"][k] for k in ("map", "objects", "quest", "grammar"))
        out.append(
            f'    PublishedGame("{game_file.stem}", {seeds}, {rooms}, {len(meta["walkthrough"])}, {max_score}, '
            f'"{meta["uuid"]}", "{short_sha(chr(10).join(meta["walkthrough"]))}", "{short_sha(data["objective"])}", '
            f'"{world_digest(data["world"])}"),'
        )
    return out


def main() -> None:
    """Print the three tasks' tuples."""
    folder = Path(sys.argv[1])
    for task in TASKS:
        print(f"{task.upper()} = (")
        print("\n".join(rows(folder, task)))
        print(")")


if __name__ == "__main__":
    main()
