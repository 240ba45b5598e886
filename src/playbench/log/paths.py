"""Names of the files in a run directory, and the rule that a record may only name files inside it."""

from pathlib import Path

EPISODES = "episodes.jsonl"
RUN_JSON = "run.json"
LOCK = ".lock"


def trajectory_path(task_id: str, index: int) -> str:
    """Where an episode's steps lived in the first layout (one JSON-lines file per episode).

    Relative to the run directory. Runs written since name a shard instead (``shard_path``); both are read.
    """
    return f"trajectories/{task_id}/{index:06d}.jsonl"


def shard_path(task_id: str) -> str:
    """The shard holding the steps of a task's episodes (``log/shard.py``), relative to the run directory."""
    return f"trajectories/{task_id}/steps.pbt"


def split_reference(reference: str) -> tuple[str, str | None]:
    """A record's ``trajectory`` split in two.

    ``(file, None)`` for a file of its own (the first layout), ``(shard, tag)`` for ``shard#tag``.
    """
    file, sep, tag = reference.rpartition("#")
    if sep and file.endswith(".pbt"):
        return file, tag
    return reference, None


def frame_path(task_id: str, index: int, step: int) -> str:
    """Where the frame an agent saw at ``step`` lives, relative to the run directory."""
    return f"trajectories/{task_id}/{index:06d}/{step:05d}.png"


def is_run(path: Path | str) -> bool:
    """Whether ``path`` looks like a run directory (it holds ``run.json``)."""
    return (Path(path) / RUN_JSON).is_file()


def inside_run(root: Path, relative: str | None) -> Path | None:
    """The file ``relative`` names if it lies inside the run directory ``root``, else None.

    Inside means reached from ``root`` without a symbolic link on the way, the file itself included (see
    ``log/confined.py``); a file not there (yet) counts as inside when its path does.
    """
    if not relative or Path(relative).is_absolute():
        return None
    try:
        base = root.resolve()
        file = (base / relative).resolve()
        if not file.is_relative_to(base) or file == base:
            return None
        walk = base  # each step of the way, as written (``link/..`` included), must be no link
        for part in Path(relative).parts:
            walk = walk / part
            if walk.is_symlink():
                return None
    except (OSError, ValueError):  # a NUL byte, a name too long, a symlink loop
        return None
    return file
