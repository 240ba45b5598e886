"""Generate BALROG's three TextWorld game types locally with TextWorld's own generators (§6.3).

A game is a pure function of (task, seed, generator settings, TextWorld version): generation runs
in a child process with a fixed ``PYTHONHASHSEED`` (TextWorld iterates over sets while building
worlds), and the compile date that Inform writes into the story file's header (its "serial
number", shown only in the banner that playbench removes) is replaced by ``000000``. So the same
seed gives a byte-identical ``.z8`` file whatever the calling process's hash seed or the day.

Run as ``python -m playbench.suites.balrog.textworld.generate TASK SEED OUT_DIR``; prints one JSON
line describing the files written.
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

#: Task -> (TextWorld challenge, generator settings), as ``tw-make`` takes them (paper §C).
GENERATORS: dict[str, tuple[str, dict[str, Any]]] = {
    "treasure_hunter": ("tw-treasure_hunter", {"level": 30}),
    "the_cooking_game": (
        "tw-cooking",
        {"recipe": 5, "take": 5, "go": 12, "open": True, "cook": True, "cut": True, "drop": True,
         "recipe_seed": 0, "split": None},
    ),
    "coin_collector": ("tw-coin_collector", {"level": 120}),
}
TASKS: tuple[str, ...] = tuple(GENERATORS)

#: The hash seed of the generating process (any fixed value works; 0 disables randomisation).
HASH_SEED = "0"
_SERIAL = slice(0x12, 0x18)


def tw_make_command(task: str, seed: int, settings: dict[str, Any] | None = None) -> str:
    """The equivalent ``tw-make`` command line, for the manifest and the docs."""
    challenge, defaults = GENERATORS[task]
    parts = ["tw-make", challenge]
    for key, value in (settings if settings is not None else defaults).items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            parts.append(flag)
        elif value not in (None, False):
            parts += [flag, str(value)]
    return " ".join(parts + ["--seed", str(seed), "--format", "z8"])


def sha256_file(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _normalise_serial(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[_SERIAL] = b"000000"  # the header is outside the story file's checksum
    path.write_bytes(bytes(data))


def generate_here(task: str, seed: int, out_dir: Path, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """Generate one game in this process (call through ``generate`` for hash-seed independence)."""
    import textworld
    import textworld.challenges

    challenge, defaults = GENERATORS[task]
    settings = dict(defaults if settings is None else settings)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{task}_seed{seed:04d}"
    options = textworld.GameOptions()
    options.seeds = seed
    options.path = str(out_dir / f"{stem}.z8")
    options.file_ext = ".z8"
    options.force_recompile = True
    _, make_game, _ = textworld.challenges.CHALLENGES[challenge]
    game = make_game(settings=settings, options=options)
    game_file = Path(textworld.generator.compile_game(game, options))
    _normalise_serial(game_file)
    (out_dir / f"{stem}.ni").unlink(missing_ok=True)
    files = {p.name: sha256_file(p) for p in (game_file, game_file.with_suffix(".json"))}
    return {
        "task": task,
        "seed": seed,
        "challenge": challenge,
        "settings": settings,
        "command": tw_make_command(task, seed, settings),
        "textworld": textworld.__version__,
        "file": game_file.name,
        "sha256": files[game_file.name],
        "files": files,
        "walkthrough_length": len(game.metadata.get("walkthrough", []) or []),
    }


def generate(task: str, seed: int, out_dir: Path, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """Generate one game in a child process with a fixed hash seed; return its manifest entry."""
    env = dict(os.environ, PYTHONHASHSEED=HASH_SEED)
    out_dir.mkdir(parents=True, exist_ok=True)
    # Build in a private directory, then move the finished files in: readers never see half a game.
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".gen-") as tmp:
        cmd = [sys.executable, "-m", "playbench.suites.balrog.textworld.generate", task, str(seed), tmp]
        if settings is not None:
            cmd.append(json.dumps(settings))
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"TextWorld generation of {task} seed {seed} failed:\n{proc.stderr[-2000:]}")
        entry = json.loads(proc.stdout.strip().splitlines()[-1])
        for name in entry["files"]:
            os.replace(Path(tmp) / name, out_dir / name)
    return entry


def main(argv: list[str] | None = None) -> None:
    """Command-line entry: ``TASK SEED OUT_DIR [SETTINGS_JSON]``."""
    args = sys.argv[1:] if argv is None else argv
    settings = json.loads(args[3]) if len(args) > 3 else None
    entry = generate_here(args[0], int(args[1]), Path(args[2]), settings)
    print(json.dumps(entry, sort_keys=True))


if __name__ == "__main__":
    main()
