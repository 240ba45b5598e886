"""Make one TextWorld game file (``.z8``) from a ``GameSpec``, in a child process.

A game is a pure function of its spec and the TextWorld version: generation runs in a child process
with a fixed ``PYTHONHASHSEED`` (TextWorld iterates over sets while building worlds), and the compile
date that Inform writes into the story file's header (its "serial number", shown only in the banner
that playbench removes) is replaced by ``000000``. So the same spec gives a byte-identical ``.z8``
whatever the calling process's hash seed or the day.

A spec either generates a game with one of TextWorld's challenges (``challenge``, ``settings``,
``seeds``) or compiles a game's ``.json`` description (``source``: a user's game whose ``.ulx`` textworld
1.7 cannot play).

Run as ``python -m playbench.suites.balrog.textworld.generate SPEC_JSON OUT_DIR``; prints one JSON line
describing the files written.
"""

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: The hash seed of the generating process (any fixed value works; 0 disables randomisation).
HASH_SEED = "0"
#: Bumped when the way a spec becomes a file changes (part of every cache key).
FORMAT = 3
_SERIAL = slice(0x12, 0x18)


@dataclass(frozen=True)
class GameSpec:
    """Everything that decides a game file.

    ``seeds``: an int (``tw-make --seed``) or TextWorld's four seeds (map, objects, quest, grammar);
    ``stem``: the file name without extension; ``source``/``source_sha``: a game ``.json`` to compile
    instead of generating (its SHA-256 is part of the key, its path is not).
    """

    task: str
    stem: str
    challenge: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    seeds: int | dict[str, int] = 0
    only_last_action: bool = False
    source: str = ""
    source_sha: str = ""
    #: False: the cooking game's oven has no open/closed state, as in the TextWorld that made BALROG's
    #: games (textworld 1.7 makes it a closed container: same story file, but "open oven" becomes an
    #: admissible command and the world differs from the published one)
    closed_oven: bool = True

    def key(self) -> str:
        """A digest of everything that decides the file (the source path excluded)."""
        data = {k: v for k, v in asdict(self).items() if k != "source" and not (k == "closed_oven" and v)}
        data["format"] = FORMAT
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def describe(self) -> str:
        """How the game is made, in one line (recorded with each game)."""
        if self.source:
            return f"compile {Path(self.source).name} (sha256 {self.source_sha[:16]}) to .z8"
        if isinstance(self.seeds, int):
            flags = []
            for key, value in self.settings.items():
                flag = "--" + key.replace("_", "-")
                if value is True:
                    flags.append(flag)
                elif value not in (None, False):
                    flags += [flag, str(value)]
            return " ".join(["tw-make", self.challenge, *flags, "--seed", str(self.seeds), "--format", "z8"])
        return (f"textworld.challenges {self.challenge} settings={json.dumps(self.settings, sort_keys=True)} "
                f"seeds={json.dumps(self.seeds, sort_keys=True)} only_last_action={self.only_last_action} format=z8")

    def to_json(self) -> str:
        """The spec as one JSON text (how it reaches the child process)."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "GameSpec":
        """The spec back from ``to_json``."""
        return cls(**json.loads(text))


def sha256_file(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def short_sha(text: str) -> str:
    """The first 16 hex digits of the SHA-256 of a text (the published table's digests)."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def world_digest(facts: list[Any]) -> str:
    """The first 16 hex digits of the SHA-256 of a game's initial world facts (as a sorted set of JSON texts)."""
    texts = sorted({json.dumps(fact, sort_keys=True) for fact in facts})
    return short_sha("\n".join(texts))


def _normalise_serial(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[_SERIAL] = b"000000"  # the header is outside the story file's checksum
    path.write_bytes(bytes(data))


def _make_game(spec: GameSpec, options: Any) -> Any:
    import textworld
    import textworld.challenges

    if spec.source:
        return textworld.Game.load(spec.source)
    options.seeds = spec.seeds
    options.grammar.only_last_action = spec.only_last_action
    if not spec.closed_oven:
        from textworld.challenges.tw_cooking import cooking

        cooking.ENTITIES["oven"]["properties"] = []  # this child process makes one game, then exits
    _, make_game, _ = textworld.challenges.CHALLENGES[spec.challenge]
    return make_game(settings=dict(spec.settings), options=options)


def generate_here(spec: GameSpec, out_dir: Path) -> dict[str, Any]:
    """Make the game in this process (call through ``generate`` for hash-seed independence)."""
    import textworld
    import textworld.generator

    out_dir.mkdir(parents=True, exist_ok=True)
    options = textworld.GameOptions()
    options.path = str(out_dir / f"{spec.stem}.z8")
    options.file_ext = ".z8"
    options.force_recompile = True
    game = _make_game(spec, options)
    game_file = Path(textworld.generator.compile_game(game, options))
    _normalise_serial(game_file)
    (out_dir / f"{spec.stem}.ni").unlink(missing_ok=True)
    files = {p.name: sha256_file(p) for p in (game_file, game_file.with_suffix(".json"))}
    walkthrough = list(game.metadata.get("walkthrough") or [])
    return {
        "task": spec.task,
        "spec": json.loads(spec.to_json()),
        "key": spec.key(),
        "command": spec.describe(),
        "textworld": textworld.__version__,
        "file": game_file.name,
        "sha256": files[game_file.name],
        "files": files,
        "uuid": game.metadata.get("uuid"),
        "rooms": sum(1 for info in game.infos.values() if info.type == "r"),
        "walkthrough_length": len(walkthrough),
        "walkthrough_sha": short_sha("\n".join(walkthrough)),
        "objective_sha": short_sha(game.objective or ""),
        "max_score": game.max_score,
        "world_sha": world_digest(json.loads(game_file.with_suffix(".json").read_text())["world"]),
    }


def generate(spec: GameSpec, out_dir: Path,
             started: "Callable[[subprocess.Popen[str]], None] | None" = None) -> dict[str, Any]:
    """Make the game into ``out_dir`` in a child process with a fixed hash seed; return its entry.

    The child leads a process group of its own (Inform's compilers run under it), so that a caller
    told of it through ``started`` can stop the whole group (see ``cache.abandon``).
    """
    env = dict(os.environ, PYTHONHASHSEED=HASH_SEED)
    cmd = [sys.executable, "-m", "playbench.suites.balrog.textworld.generate", spec.to_json(), str(out_dir)]
    with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as proc:
        if started is not None:
            started(proc)
        out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"TextWorld could not make {spec.task} game {spec.stem}:\n{err[-2000:]}")
    entry: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return entry


def main(argv: list[str] | None = None) -> None:
    """Command-line entry: ``SPEC_JSON OUT_DIR``."""
    args = sys.argv[1:] if argv is None else argv
    entry = generate_here(GameSpec.from_json(args[0]), Path(args[1]))
    print(json.dumps(entry, sort_keys=True))


if __name__ == "__main__":
    main()
