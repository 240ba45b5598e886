"""What ``--resume`` may change: settings of how a run talks to its model, never what it measures.

A resumed run replays its recorded configuration whole. Options given with ``--resume`` fall in two
kinds: *settings* (where the server is, how long to wait, how many connections) may change, and the
change is recorded in ``run.json`` as a resume event; *identity* options (tasks, agent, model, their
parameters, seed, episode counts, the cache) would change the results and are refused, naming the
setting, its recorded value and the given one. Giving an identity option with its recorded value is
accepted.
"""

from datetime import UTC, datetime
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.records import RunConfig
from playbench.models.redact import mask_url

#: option name -> the CLI flag, for settings a resume may change
SETTINGS = {
    "base_url": "--base-url",
    "max_connections": "--max-connections",
    "max_episodes": "--max-episodes",
    "max_retries": "--max-retries",
    "timeout": "--timeout",
    "retry_backoff": "--retry-backoff",
    "max_connect_failures": "--max-connect-failures",
    "executor": "--executor",
    "ray_address": "--ray-address",
}

#: option name -> the CLI flag, for options that decide results (refused when they differ)
IDENTITY = {
    "tasks": "TASKS",
    "agent": "--agent",
    "model": "--model",
    "episodes": "--episodes",
    "seed": "--seed",
    "task_args": "-T",
    "agent_args": "-A",
    "model_args": "-M",
    "cache": "--cache",
}

#: options that mean nothing for a run that already exists
REFUSED = {"log_dir": "--log-dir"}


def _refuse(flag: str, recorded: Any, given: Any) -> PlaybenchError:
    return PlaybenchError(
        f"{flag} would change the results of a resumed run: recorded {recorded!r}, given {given!r}; "
        "resume with --resume alone (or start a new run)"
    )


def check_identity(recorded: RunConfig, asked: RunConfig, given: set[str], cache: tuple[bool, bool]) -> None:
    """Refuse the first identity option in ``given`` whose value differs from the recorded run's.

    ``asked`` is the config built from the command line (recorded values standing in for options not
    given); ``cache`` is (recorded, given).
    """
    for name in given & REFUSED.keys():
        raise PlaybenchError(f"{REFUSED[name]} has no meaning with --resume: the run stays where it is")
    if "cache" in given and cache[0] != cache[1]:
        raise _refuse("--cache", cache[0], cache[1])
    if "tasks" in given:
        ids, asked_ids = [t.id for t in recorded.tasks], [t.id for t in asked.tasks]
        if ids != asked_ids:
            raise _refuse("TASKS", ids, asked_ids)
    for name, field in (("agent", "agent"), ("model", "model"), ("seed", "seed"), ("agent_args", "agent_params"),
                        ("model_args", "model_params")):
        if name in given and getattr(recorded, field) != getattr(asked, field):
            raise _refuse(IDENTITY[name], getattr(recorded, field), getattr(asked, field))
    for old, new in zip(recorded.tasks, asked.tasks, strict=False):
        if "episodes" in given and old.episodes != new.episodes:
            raise _refuse(f"--episodes ({old.id})", old.episodes, new.episodes)
        if "task_args" in given and old.params != new.params:
            changed = sorted(k for k in old.params.keys() | new.params.keys() if old.params.get(k) != new.params.get(k))
            key = changed[0]
            raise _refuse(f"-T {key} ({old.id})", old.params.get(key), new.params.get(key))


def apply_settings(recorded: dict[str, Any], given: dict[str, Any]) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The settings to resume with (recorded, overridden by ``given``) and what changed: {name: [old, new]}."""
    settings = dict(recorded)
    changed: dict[str, list[Any]] = {}
    for name, value in given.items():
        shown = mask_url(value) if name == "base_url" else value
        if recorded.get(name) != shown:
            changed[name] = [recorded.get(name), shown]
        settings[name] = value
    return settings, changed


def resume_event(changed: dict[str, list[Any]]) -> dict[str, Any]:
    """The entry a resume adds to ``run.json``."""
    return {"at": datetime.now(UTC).isoformat(timespec="seconds"), "changed": changed}
