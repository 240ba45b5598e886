"""``write_run``: finished ChatEnv rollouts written as a playbench run, through ``RunStore`` (the one writer).

The run's ``run.json`` holds the config ``build_config`` makes for the same tasks, agent, model and seed,
each task scheduled up to its highest index played; each rollout's steps, frames and record are written
as the runner writes an episode's. ``report``, ``view``, ``compare``, ``export`` and ``verify`` then read it
like any other run.
"""

import shutil
from collections.abc import Iterable
from pathlib import Path

from playbench.api.settings import check_settings, run_settings
from playbench.api.versions import versions
from playbench.core.bounds import check_episode_count
from playbench.core.errors import PlaybenchError
from playbench.core.records import RunConfig, TaskSpec
from playbench.log.durable import StoreWriteError
from playbench.log.read import RunLog, read_run
from playbench.log.store import RunStore
from playbench.rl.chat_env import ChatEnv, Rollout

#: what every rollout of one run must share (the tasks may differ)
_SHARED = ("agent", "agent_params", "model", "model_params", "seed")


def run_config(rollouts: list[Rollout]) -> RunConfig:
    """The config of a run holding ``rollouts``: their shared agent, model and seed; each task up to its highest index.

    Refused (PlaybenchError): no rollout, rollouts that differ in agent, model, seed or a task's parameters,
    and two rollouts of one episode (a run holds one record per ``(task, index)``: write each member of a
    GRPO group to a run of its own).
    """
    if not rollouts:
        raise PlaybenchError("no rollout to write")
    first = rollouts[0].config
    tasks: dict[str, TaskSpec] = {}
    seen: set[tuple[str, int]] = set()
    for rollout in rollouts:
        config, record = rollout.config, rollout.record
        for name in _SHARED:
            if getattr(config, name) != getattr(first, name):
                raise PlaybenchError(f"the rollouts differ in {name} ({getattr(first, name)!r} and "
                                     f"{getattr(config, name)!r}); a run has one")
        if record.key in seen:
            raise PlaybenchError(f"two rollouts of {record.task} #{record.index}: a run holds one record per "
                                 "episode; write each member of a group to a run of its own")
        seen.add(record.key)
        spec = config.tasks[0]
        known = tasks.get(spec.id)
        if known is not None and known.params != spec.params:
            raise PlaybenchError(f"the rollouts of {spec.id} differ in their task parameters; a run has one set")
        episodes = max(record.index + 1, known.episodes if known is not None else 0)
        tasks[spec.id] = spec.model_copy(update={"episodes": episodes})
    check_episode_count(sum(t.episodes for t in tasks.values()))  # a run.json no reader would take is not written
    return first.model_copy(update={"tasks": list(tasks.values())})


def write_run(log_dir: str | Path, rollouts: Iterable[ChatEnv | Rollout], name: str | None = None,
              label: str | None = None) -> RunLog:
    """Write finished rollouts (``ChatEnv`` objects or their ``rollout()``) as a new run; returns it, read back.

    The run is made under ``log_dir`` (named ``name`` when given, else a fresh time-stamped name, as
    ``playbench eval`` names one); ``label`` is its name in reports. Episodes are written in task then
    index order. Whatever fails leaves no run folder behind (PlaybenchError, one line).
    """
    items = [r.rollout() if isinstance(r, ChatEnv) else r for r in rollouts]
    config = run_config(items)
    order = {spec.id: n for n, spec in enumerate(config.tasks)}
    settings = run_settings({"label": label})
    check_settings(settings)
    store = RunStore.create(Path(log_dir), {"config": config, "config_hash": config.hash(), "versions": versions(),
                                            "settings": settings}, name=name)
    try:
        for rollout in sorted(items, key=lambda r: (order[r.record.task], r.record.index)):
            record = rollout.record
            for step, image in sorted(rollout.frames.items()):
                store.write_frame(record.task, record.index, step, image)
            trajectory = store.write_trajectory(record.task, record.index, rollout.steps)
            store.append_episode(record.model_copy(update={"trajectory": trajectory}))
    except (StoreWriteError, OSError, PlaybenchError) as exc:
        store.close()
        shutil.rmtree(store.path, ignore_errors=True)
        raise PlaybenchError(f"writing the rollouts failed, nothing was written to {store.path}: {exc}") from None
    except BaseException:
        store.close()
        shutil.rmtree(store.path, ignore_errors=True)
        raise
    store.close()
    return read_run(store.path)
