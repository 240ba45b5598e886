"""``eval --instances SOURCE``: play, for the tasks named, exactly the instances SOURCE played, by their seeds.

SOURCE is one of:

- a playbench run: its schedule, as ``run.json`` records it (each task's episodes in index order, each with
  the seed it was reset with: given, or derived from the run's seed);
- a folder of a format a suite declares with an ``instances`` hook (a BALROG leaderboard folder: its episode
  files' seeds, each task's in episode order, each instance saying whether playbench can play it again);
- a file of ``TASK SEED`` lines (a space, a tab or a comma between; blank lines and ``#`` comments skipped).

The run's k-th episode of a task is reset with the k-th seed the source holds for it (``TaskSpec.seeds``),
and with the reset options that fix that instance besides its seed where the source gives any
(``Instance.options``, ``TaskSpec.options``), under the run's own ``-T`` parameters, and is handed index k as
any episode is. ``--episodes K`` takes the
first K. A task the source lacks, an instance playbench cannot play again (with the reason), a malformed
line or a file that is not one of instances is refused in one line, before the run exists.
"""

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from playbench.api import formats
from playbench.core.bounds import MAX_EPISODES
from playbench.core.datafiles import read_data_text
from playbench.core.errors import PlaybenchError
from playbench.core.records import RunConfig, TaskSpec
from playbench.core.registry import find_task, get_task
from playbench.core.suite import Instance
from playbench.log import is_run, read_run

#: The largest file of instances read (a million ``TASK SEED`` lines fit): a larger one is no such file.
MAX_FILE_BYTES = 64 * 2**20
#: A seed is 32 bits (``TaskSpec.seeds``): playbench derives such seeds, and BALROG's evaluator draws them.
SEED_LIMIT = 2**32
_LINE = re.compile(r"([^\s,]+)[ \t]*[ \t,][ \t]*(\d{1,20})")


def read_instances(source: Path, tasks: Mapping[str, Mapping[str, Any]]) -> list[Instance]:
    """The instances ``source`` holds, in its order (PlaybenchError, one line, for what is none of the three).

    ``tasks``: the run's tasks and their ``-T`` values; a folder may leave out the instances of others (finding
    what fixed an instance may cost a game, or need a task's data: Boxoban's levels).
    """
    if is_run(source):
        return _run_instances(source)
    if source.is_dir():
        found = formats.format_of(source)
        if found is None:
            raise PlaybenchError(f"--instances {source}: neither a playbench run nor a folder of a known format "
                                 f"({', '.join(h.title for h in formats.every().values() if h.instances) or 'none'})")
        hooks = found[1]
        if hooks.instances is None:
            raise PlaybenchError(f"--instances {source}: a {hooks.title} names no instances")
        return hooks.instances(source, tasks)
    return _file_instances(source)


def with_instances(config: RunConfig, source: str, episodes: int | None) -> RunConfig:
    """``config`` whose tasks play ``source``'s instances of them (the first ``episodes``, when given).

    Refused (PlaybenchError naming the task): a task ``source`` holds no instance of, fewer instances than
    ``episodes``, or an instance playbench cannot play again from its seed (the first, with its reason).
    """
    found = read_instances(Path(source), {spec.id: spec.params for spec in config.tasks})
    by_task: dict[str, list[Instance]] = {}
    for instance in found:
        by_task.setdefault(instance.task, []).append(instance)
    specs = []
    for spec in config.tasks:
        held = by_task.get(spec.id)
        if not held:
            raise PlaybenchError(f"{spec.id}: --instances {source} holds no instance of it ({_holds(by_task)})")
        if episodes is not None:
            if episodes > len(held):
                raise PlaybenchError(f"--episodes {episodes}: --instances {source} holds {len(held)} instance(s) "
                                     f"of {spec.id}")
            held = held[:episodes]
        specs.append(_played(spec, held, source))
    return config.model_copy(update={"tasks": specs})


def _played(spec: TaskSpec, held: list[Instance], source: str) -> TaskSpec:
    """``spec`` playing the instances ``held``, each checked playable, their count held to the task's data."""
    refused = [(k, instance, instance.problem or _seed_problem(instance.seed)) for k, instance in enumerate(held)]
    refused = [(k, instance, problem) for k, instance, problem in refused if problem is not None]
    if refused:
        raise PlaybenchError(_refusal(spec.id, source, refused, len(held)))
    task = get_task(spec.id)
    task.check_episodes(task.params(spec.params), len(held))
    seeds = [instance.seed for instance in held if instance.seed is not None]
    # reset options only where an instance needs them: a source of seeds alone gives the run.json it gave before
    options = [dict(instance.options or {}) for instance in held] if any(i.options for i in held) else None
    return TaskSpec(id=spec.id, params=spec.params, episodes=len(seeds), seeds=seeds, options=options)


def _refusal(task: str, source: str, refused: list[tuple[int, Instance, str | None]], held: int) -> str:
    """One line naming the instances of ``task`` playbench cannot play again (by position and seed) and why.

    The reason shown is the first one's (how many others there are, when they differ); where the first
    instances can be played, it says that ``--episodes K`` takes them.
    """
    first = refused[0][2]
    named = [(k, i) for k, i, problem in refused if problem == first]
    shown = ", ".join(f"{k}" + ("" if i.seed is None else f" (seed {i.seed})") for k, i in named[:4])
    more = f" and {len(named) - 4} more" if len(named) > 4 else ""
    which = f"instance {shown}" if len(named) == 1 else f"instances {shown}{more}"
    other = len(refused) - len(named)
    others = f" ({other} more instance(s) refused, each with its own reason)" if other else ""
    take = f"; --episodes {refused[0][0]} takes the first {refused[0][0]}" if refused[0][0] > 0 else ""
    return (f"{task}: playbench cannot play {source}'s {which} of {held} again: {first}{others}{take}")


def _seed_problem(seed: int | None) -> str | None:
    if seed is None:
        return "it records no seed"
    if not 0 <= seed < SEED_LIMIT:
        return f"its seed is not a 32-bit one (0 .. {SEED_LIMIT - 1})"
    return None


def _holds(by_task: dict[str, list[Instance]]) -> str:
    """``it holds: a, b, c …`` (or that it holds none)."""
    if not by_task:
        return "it holds none"
    names = list(by_task)
    return "it holds " + ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")


def _run_instances(run: Path) -> list[Instance]:
    """A playbench run's schedule: every episode of each task, in index order, with the seed it is reset with.

    An episode recorded with its token counts carries them (one whose server sent none, or not played: None).
    """
    log = read_run(run)
    config, records = log.config, log.latest_episodes()
    found: list[Instance] = []
    for spec in config.tasks:
        task = find_task(spec.id)
        problem = f"this playbench has no task {spec.id}" if task is None else task.not_reproducible
        for index in range(spec.episodes):
            usage = records[(spec.id, index)].usage if (spec.id, index) in records else None
            counted = usage is not None and "input_tokens" in usage and not usage.get("tokens_unreported")
            tokens = (usage["input_tokens"], usage.get("output_tokens", 0)) if counted and usage else (None, None)
            found.append(Instance(spec.id, spec.seed_of(config.seed, index), problem, input_tokens=tokens[0],
                                  output_tokens=tokens[1], options=spec.options_of(index)))
    return found


def _file_instances(path: Path) -> list[Instance]:
    """The instances of a file of ``TASK SEED`` lines (task ids or aliases), in its order."""
    text = read_data_text(path, empty=None, limit=MAX_FILE_BYTES, what="--instances")
    found: list[Instance] = []
    ids: dict[str, str] = {}  # a name as written -> its task's id (each looked up once)
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        matched = _LINE.fullmatch(line)
        if matched is None:
            shown = line[:60] + ("…" if len(line) > 60 else "")
            raise PlaybenchError(f"{path}:{number}: not a TASK SEED line: {shown!r}")
        name, seed = matched.groups()
        if name not in ids:
            try:
                ids[name] = get_task(name).id
            except PlaybenchError as exc:
                raise PlaybenchError(f"{path}:{number}: {exc}") from None
        found.append(Instance(ids[name], int(seed)))
        if len(found) > MAX_EPISODES:  # more than any run plays: refused before it fills memory
            raise PlaybenchError(f"{path}: more than {MAX_EPISODES:,} instances: more than a run plays")
    if not found:
        raise PlaybenchError(f"{path}: no TASK SEED line")
    return found
