"""``playbench.merge``: join the shards of a run (``--shard K/N`` runs) into one run directory.

Before anything is written, every check is made and the first failure is one ``PlaybenchError`` line:
each directory is a run whose ``run.json`` config matches its hash; all share one config hash and the
versions of the packages that decide results; no episode ``(task, index)`` is in two shards; none of the
config's episodes is missing. The merged run then holds each episode's record (its last, as readers
count it) with its trajectory and frames, copied through ``RunStore`` and written in (task, index) order.
"""

import shutil
from collections.abc import Iterable
from pathlib import Path

from playbench.api.versions import NOT_DECIDING
from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord
from playbench.log.durable import StoreWriteError
from playbench.log.read import RunLog, read_run
from playbench.log.store import RunStore

#: episodes named in a "missing" message before "and N more"
_SHOWN = 3


def _key_text(key: tuple[str, int]) -> str:
    return f"{key[0]} #{key[1]}"


def check_shards(paths: Iterable[str | Path]) -> tuple[list[RunLog], dict[tuple[str, int], tuple[RunLog, EpisodeRecord]]]:
    """Open the shards and make every check; returns them and, for each episode, its shard and record."""
    logs = [read_run(p) for p in paths]
    if not logs:
        raise PlaybenchError("give the shard run directories to merge")
    first = logs[0]
    for log in logs:
        if log.config.hash() != log.meta.config_hash:
            raise PlaybenchError(f"{log.path}: run.json's config does not match its config hash "
                                 f"{log.meta.config_hash}; it was edited, and cannot be merged")
    for log in logs[1:]:
        if log.meta.config_hash != first.meta.config_hash:
            raise PlaybenchError(f"{log.path} has config hash {log.meta.config_hash} but {first.path} has "
                                 f"{first.meta.config_hash}: shards of one run share their config")
        for name in sorted((log.meta.versions.keys() | first.meta.versions.keys()) - NOT_DECIDING):
            if log.meta.versions.get(name) != first.meta.versions.get(name):
                raise PlaybenchError(f"{log.path} ran with {name} {log.meta.versions.get(name)} but {first.path} "
                                     f"with {first.meta.versions.get(name)}: shards must run the same versions")
    owner: dict[tuple[str, int], tuple[RunLog, EpisodeRecord]] = {}
    for log in logs:
        for key, record in log.latest_episodes().items():
            if key in owner:
                raise PlaybenchError(f"episode {_key_text(key)} is in both {owner[key][0].path} and {log.path}: "
                                     "give each shard once, and shards of one split (same N)")
            owner[key] = (log, record)
    expected = {(t.id, i) for t in first.config.tasks for i in range(t.episodes)}
    missing = sorted(expected - owner.keys())
    if missing:
        shown = ", ".join(_key_text(k) for k in missing[:_SHOWN])
        more = f" and {len(missing) - _SHOWN} more" if len(missing) > _SHOWN else ""
        raise PlaybenchError(f"{len(missing)} episode(s) missing from the shards: {shown}{more}; give every "
                             "shard, and finish unfinished ones with --resume first")
    extra = sorted(owner.keys() - expected)
    if extra:
        raise PlaybenchError(f"episode {_key_text(extra[0])} ({owner[extra[0]][0].path}) is not in the run's config")
    return logs, owner


def merge(shards: Iterable[str | Path], output: str | Path) -> RunLog:
    """Merge the shard runs ``shards`` into the new run directory ``output`` (see the module doc)."""
    logs, owner = check_shards(shards)
    output = Path(output)
    if output.exists():
        raise PlaybenchError(f"{output} already exists; give a new directory")
    first = logs[0]
    settings = first.meta.settings.model_copy(update={"shard": None, "merged_from": [log.run_id for log in logs]})
    store = RunStore.create(output.parent, {"config": first.config, "config_hash": first.meta.config_hash,
                                            "versions": first.meta.versions, "settings": settings}, name=output.name)
    try:
        for key in sorted(owner):
            log, record = owner[key]
            store.append_episode(store.copy_episode(log, record))
    except (StoreWriteError, OSError, PlaybenchError) as exc:
        store.close()
        shutil.rmtree(store.path, ignore_errors=True)
        raise PlaybenchError(f"merge failed, nothing was written to {output}: {exc}") from None
    store.close()
    return read_run(store.path)
