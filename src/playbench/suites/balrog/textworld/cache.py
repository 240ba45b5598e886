"""The local TextWorld game set: generated on first use, cached in the user's cache directory.

Layout: ``{root}/textworld-{version}/{task}/{task}_seed{seed:04d}.z8`` (+ ``.json``) and one
``manifest.json`` per task recording, for every game, the task, seed, generator and settings, the
equivalent ``tw-make`` command, the TextWorld version and the SHA-256 of each file. A game whose
file is missing or whose hash no longer matches is generated again.

``root`` is ``$PLAYBENCH_TEXTWORLD_DIR``, else ``$PLAYBENCH_CACHE_DIR/textworld``, else the user
cache directory (``platformdirs``) ``playbench/textworld``.

Pre-generate from the shell: ``python -m playbench.suites.balrog.textworld.cache TASK N``.
"""

import hashlib
import json
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import platformdirs

from playbench.suites.balrog.textworld.generate import GENERATORS, generate, sha256_file


def textworld_version() -> str:
    """The installed TextWorld version (games from other versions are different games)."""
    import textworld

    return str(textworld.__version__)


def cache_root() -> Path:
    """Where generated games live (see the module docstring)."""
    if os.environ.get("PLAYBENCH_TEXTWORLD_DIR"):
        return Path(os.environ["PLAYBENCH_TEXTWORLD_DIR"])
    if os.environ.get("PLAYBENCH_CACHE_DIR"):
        return Path(os.environ["PLAYBENCH_CACHE_DIR"]) / "textworld"
    return Path(platformdirs.user_cache_dir("playbench")) / "textworld"


def task_dir(task: str, root: Path | None = None, settings: dict[str, Any] | None = None) -> Path:
    """The directory of one task's games for the installed TextWorld version.

    Non-default generator ``settings`` (used by tests and experiments) get their own directory.
    """
    name = task
    if settings is not None and settings != GENERATORS[task][1]:
        digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:8]
        name = f"{task}-{digest}"
    return (root or cache_root()) / f"textworld-{textworld_version()}" / name


def read_manifest(task: str, root: Path | None = None, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """The task's manifest (an empty one if none exists yet)."""
    path = task_dir(task, root, settings) / "manifest.json"
    if path.exists():
        return json.loads(path.read_text())
    challenge, defaults = GENERATORS[task]
    return {"task": task, "textworld": textworld_version(), "challenge": challenge,
            "settings": defaults if settings is None else settings, "games": {}}


def _write_manifest(task: str, manifest: dict[str, Any], root: Path | None, settings: dict[str, Any] | None) -> None:
    directory = task_dir(task, root, settings)
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".json")
    with os.fdopen(fd, "w") as fh:
        json.dump(manifest, fh, indent=2, sort_keys=True)
    os.replace(tmp, directory / "manifest.json")


def _valid(entry: dict[str, Any] | None, directory: Path) -> bool:
    if not entry:
        return False
    for name, digest in entry.get("files", {}).items():
        path = directory / name
        if not path.exists() or sha256_file(path) != digest:
            return False
    return bool(entry.get("files"))


def ensure_games(
    task: str,
    seeds: list[int],
    root: Path | None = None,
    show_progress: bool = True,
    settings: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Manifest entries of the games with these seeds, generating the missing ones (with a progress bar)."""
    directory = task_dir(task, root, settings)
    directory.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(task, root, settings)
    missing = [s for s in seeds if not _valid(manifest["games"].get(str(s)), directory)]
    if missing:
        _generate_missing(task, missing, directory, root, show_progress, settings)
        manifest = read_manifest(task, root, settings)
    return [manifest["games"][str(s)] for s in seeds]


def _generate_missing(
    task: str, seeds: list[int], directory: Path, root: Path | None, show_progress: bool,
    settings: dict[str, Any] | None,
) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(
        TextColumn(f"generating TextWorld {task} games (one-time)"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not show_progress,
        transient=False,
    ) as progress:
        bar = progress.add_task("gen", total=len(seeds))
        # One child process per game, as many at once as there are cores.
        with ThreadPoolExecutor(max_workers=max(1, min(len(seeds), os.cpu_count() or 1))) as pool:
            futures = [pool.submit(generate, task, seed, directory, settings) for seed in seeds]
            for future in as_completed(futures):
                entry = future.result()
                manifest = read_manifest(task, root, settings)  # another process may have added games
                manifest["games"][str(entry["seed"])] = entry
                _write_manifest(task, manifest, root, settings)
                progress.advance(bar)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry: ``TASK N`` generates games with seeds 1..N."""
    args = sys.argv[1:] if argv is None else argv
    entries = ensure_games(args[0], list(range(1, int(args[1]) + 1)))
    for entry in entries:
        print(entry["file"], entry["sha256"])


if __name__ == "__main__":
    main()
