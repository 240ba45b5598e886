"""The on-disk cache of made TextWorld games: one directory per game, made on first use.

Layout: ``{root}/textworld-{version}/{task}/{stem}-{key}/`` holding ``{stem}.z8``, ``{stem}.json`` and
``entry.json`` (the spec, the command, the TextWorld version, the SHA-256 of each file and the facts of
the game: uuid, rooms, walkthrough length, maximum score). ``key`` is a digest of the whole spec, so
games made with different settings never share a directory. A game is made in a private temporary
directory next to its final one and renamed into place whole: concurrent processes making the same
game cannot corrupt the cache (the first rename wins, the others keep its result). A directory whose
files are missing or no longer match their hashes is made again.

``root`` is ``$PLAYBENCH_TEXTWORLD_DIR``, else ``$PLAYBENCH_CACHE_DIR/textworld``, else the user cache
directory (``platformdirs``) ``playbench/textworld``.

Pre-make BALROG's games from the shell: ``python -m playbench.suites.balrog.textworld.cache TASK [N]``.
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import platformdirs

from playbench.core.errors import PlaybenchError
from playbench.suites.balrog.textworld.generate import GameSpec, generate, sha256_file

ENTRY = "entry.json"
# re-entrant: abandon() cancels queued futures under it, and a cancelled future runs _forget (which takes it) at once
_lock = threading.RLock()
_pending: dict[Path, "Future[dict[str, Any]]"] = {}
_pool: ThreadPoolExecutor | None = None
_making: dict[Path, "subprocess.Popen[str]"] = {}  # the child process making each game, while it runs
_abandoned: set[Path] = set()  # games being made that nobody waits for any more


def textworld_version() -> str:
    """The installed TextWorld version (games made by other versions may differ)."""
    import textworld

    return str(textworld.__version__)


def cache_root() -> Path:
    """Where made games live (see the module docstring)."""
    if os.environ.get("PLAYBENCH_TEXTWORLD_DIR"):
        return Path(os.environ["PLAYBENCH_TEXTWORLD_DIR"])
    if os.environ.get("PLAYBENCH_CACHE_DIR"):
        return Path(os.environ["PLAYBENCH_CACHE_DIR"]) / "textworld"
    return Path(platformdirs.user_cache_dir("playbench")) / "textworld"


def game_dir(spec: GameSpec, root: Path | None = None) -> Path:
    """The directory of one game."""
    return (root or cache_root()) / f"textworld-{textworld_version()}" / spec.task / f"{spec.stem}-{spec.key()[:16]}"


def read_entry(directory: Path) -> dict[str, Any] | None:
    """The entry of a complete, intact game directory (None when missing or damaged)."""
    try:
        entry: dict[str, Any] = json.loads((directory / ENTRY).read_text())
        files = entry["files"]
        if not files or any(sha256_file(directory / name) != digest for name, digest in files.items()):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    entry["dir"] = str(directory)
    return entry


def _make(spec: GameSpec, root: Path | None) -> dict[str, Any]:
    """Make one game and rename it into place (or keep the copy another process put there first)."""
    final = game_dir(spec, root)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=".tmp-"))
    try:
        started = time.perf_counter()
        entry = generate(spec, tmp, lambda proc: _started(final, proc))
        entry["made_in_s"] = round(time.perf_counter() - started, 1)  # volatile: not part of the game
        (tmp / ENTRY).write_text(json.dumps(entry, indent=2, sort_keys=True))
        for _ in range(3):
            try:
                os.rename(tmp, final)  # atomic; fails if another process already put a directory there
                break
            except OSError:
                found = read_entry(final)
                if found is not None:
                    return found
                stale = final.with_name(f".stale-{os.getpid()}-{threading.get_ident()}")
                try:
                    os.rename(final, stale)  # a damaged directory: move it aside, then try again
                    shutil.rmtree(stale, ignore_errors=True)
                except OSError:
                    pass
    finally:
        with _lock:
            _making.pop(final, None)
            _abandoned.discard(final)
        shutil.rmtree(tmp, ignore_errors=True)
    made = read_entry(final)
    if made is None:  # the machine's fault (an infra-error), like any other OSError while making it
        raise OSError(None, "the made game could not be moved into place", str(final))
    return made


def check_writable(folder: Path) -> None:
    """Make ``folder`` if missing and prove it writable by creating and deleting a file in it (OSError if not).

    Permission bits do not say it: root writes through them, and a read-only mount refuses even root.
    """
    folder.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=folder, prefix=".write-check-")
    os.close(fd)
    os.unlink(name)


def check_cache(specs: list[GameSpec], root: Path | None = None) -> None:
    """Refuse, before a run exists, a cache where these games cannot be made (PlaybenchError, one line).

    A cache that cannot be written but already holds every one of them is fine: made games are only read.
    """
    if not specs:
        return
    folder = game_dir(specs[0], root).parent
    try:
        check_writable(folder)
        return
    except OSError as exc:
        problem = exc.strerror or str(exc)
    if all(read_entry(game_dir(spec, root)) is not None for spec in specs):
        return
    raise PlaybenchError(f"the TextWorld game cache {folder} cannot be written ({problem}); make it writable "
                         "or point PLAYBENCH_TEXTWORLD_DIR at a folder that is")


def _submit(spec: GameSpec, root: Path | None) -> "Future[dict[str, Any]]":
    """The future of one game; a game already being made in this process is not made twice."""
    global _pool
    path = game_dir(spec, root)
    with _lock:
        future = _pending.get(path)
        if future is None:
            if _pool is None:
                # At most one generation per core at once, however many episodes ask.
                _pool = ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1), thread_name_prefix="textworld")
            future = _pool.submit(_make, spec, root)
            _pending[path] = future
            future.add_done_callback(lambda _f: _forget(path))
    return future


def _started(path: Path, proc: "subprocess.Popen[str]") -> None:
    with _lock:
        _making[path] = proc
        if path in _abandoned:  # abandoned before its child started
            _kill(proc)


def _kill(proc: "subprocess.Popen[str]") -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # the child leads its own group: Inform's compilers go too


def abandon(specs: list[GameSpec], root: Path | None = None) -> None:
    """Stop making these games: one still queued never starts, one being made is killed.

    For a run that stops while its episodes wait for games: otherwise the process could only exit once
    they are made, which takes minutes for the largest. Nothing half-made reaches the cache (a game is
    made in a temporary directory that is removed), so the next run makes it again.
    """
    with _lock:
        for spec in specs:
            path = game_dir(spec, root)
            future = _pending.get(path)
            if future is None or future.done() or future.cancel():
                continue
            _abandoned.add(path)
            proc = _making.get(path)
            if proc is not None:
                _kill(proc)


def _forget(path: Path) -> None:
    with _lock:
        _pending.pop(path, None)


def ensure(specs: list[GameSpec], root: Path | None = None, show_progress: bool = True) -> list[dict[str, Any]]:
    """The entries of these games, making the missing ones in parallel (one progress line per game made)."""
    found = [read_entry(game_dir(spec, root)) for spec in specs]
    missing: dict[Path, GameSpec] = {game_dir(s, root): s for s, e in zip(specs, found, strict=True) if e is None}
    if missing:
        start = time.perf_counter()
        where = (root or cache_root())
        if show_progress:
            _say(f"TextWorld: making {len(missing)} game(s) (one-time, cached in {where}) ...")
        futures = {_submit(spec, root): spec for spec in missing.values()}
        try:
            for done, future in enumerate(as_completed(futures), 1):
                spec = futures[future]
                future.result()
                if show_progress:
                    _say(f"TextWorld: made {spec.task} {spec.stem} ({done}/{len(futures)}, "
                         f"{time.perf_counter() - start:.0f} s)")
        except KeyboardInterrupt:  # Ctrl-C reaches this process only: its children lead groups of their own
            abandon(list(missing.values()), root)
            raise
        found = [e if e is not None else read_entry(game_dir(s, root)) for s, e in zip(specs, found, strict=True)]
    out = []
    for spec, entry in zip(specs, found, strict=True):
        if entry is None:
            raise RuntimeError(f"the TextWorld game {spec.task} {spec.stem} is missing from {game_dir(spec, root)}")
        out.append(entry)
    return out


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry: ``TASK [N]`` makes the first N (default 25) of BALROG's games of the task."""
    from playbench.suites.balrog.textworld.sets import balrog_specs

    args = sys.argv[1:] if argv is None else argv
    specs = balrog_specs(args[0])[: int(args[1]) if len(args) > 1 else None]
    try:
        entries = ensure(specs)
    except KeyboardInterrupt:
        _say("TextWorld: interrupted; the games made so far are kept")
        raise SystemExit(130) from None
    for entry in entries:
        print(entry["dir"], entry["sha256"])


if __name__ == "__main__":
    main()
