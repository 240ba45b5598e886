"""What ``--resume`` may change: how a run talks to its model, never what it measures.

A resumed run replays its recorded configuration whole. An option given with ``--resume`` is an option
asked to change. The settings' own rules (``RunSettings``: each ``Option.resume``) say which may: a
``change`` or ``display`` setting (where the server is, how long to wait, the run's label) changes, and the
change is recorded in ``run.json`` as a resume event; an ``identity`` setting (the cache, the shard) would
change the results. So would every option of the config (tasks, agent, model, their parameters, seed,
episode counts): these are refused, naming the option, its recorded value and the given one, unless given
with their recorded value. ``log_dir`` means nothing for a run that exists and is refused.
"""

import os
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from playbench.api.config import Asked
from playbench.api.settings import check_settings
from playbench.api.workers import base_urls
from playbench.core.errors import PlaybenchError
from playbench.core.records import RUN_OPTIONS, RecordedSettings, RunConfig, RunSettings
from playbench.core.registry import get_task
from playbench.log.paths import RUN_JSON
from playbench.log.store import RunStore
from playbench.models.redact import mask_url

#: config option -> its flag: options that decide results (refused when they differ)
IDENTITY = {"tasks": "TASKS", "agent": "--agent", "model": "--model", "episodes": "--episodes", "seed": "--seed",
            "task_params": "-T", "agent_params": "-A", "model_params": "-M"}

#: options that mean nothing for a run that already exists
REFUSED = {"log_dir": "--log-dir"}


def resumed_config(store: RunStore, given: frozenset[str], asked: Asked, settings: RunSettings
                   ) -> tuple[RunConfig, RunSettings]:
    """The recorded config of a run and the settings to resume it with, after checking what ``given`` changes.

    ``given`` names the options the caller gave, ``asked`` and ``settings`` hold their values (defaults for
    the others). The settings a resume may change are applied and checked together before anything is
    written; then the changes are recorded in ``run.json`` as a resume event.
    """
    recorded, meta = store.meta.config, store.meta
    refuse_changes(recorded, meta.settings, given, asked, settings)
    merged, changed = apply_changes(meta.settings, settings, given)
    check_settings(merged, given)
    merged = merged.model_copy(update={"base_url": confirm_destinations(recorded, meta.settings, given, merged)})
    if changed:
        shown = merged.model_copy(update={"base_url": mask_url(merged.base_url)})
        store.save_meta(meta.model_copy(update={"settings": shown, "resumes": [*meta.resumes, resume_event(changed)]}))
    return recorded, merged


def refuse_changes(recorded: RunConfig, settings: RecordedSettings, given: frozenset[str], asked: Asked,
                   asked_settings: RunSettings) -> None:
    """Refuse the first option in ``given`` a resume may not change (PlaybenchError naming it).

    The recorded tasks are checked again first: their data may have changed since the run began.
    """
    current = []  # the recorded parameters under today's names (a run may predate a rename)
    for spec in recorded.tasks:
        task = get_task(spec.id)
        params = task.params(spec.params)
        task.validate_inputs(params)
        current.append(spec.model_copy(update={"params": params.model_dump(mode="json")}))
    for name in given & REFUSED.keys():
        raise PlaybenchError(f"{REFUSED[name]} has no meaning with --resume: the run stays where it is")
    for name, option in RUN_OPTIONS.items():
        was, now = getattr(settings, name), getattr(asked_settings, name)
        if option.resume == "identity" and name in given and was != now:
            raise _refuse(option.flag, was, now)
    if given & IDENTITY.keys():
        check_identity(recorded.model_copy(update={"tasks": current}), _asked_config(recorded, asked, given), given)


def _asked_config(recorded: RunConfig, asked: Asked, given: frozenset[str]) -> RunConfig:
    """The config the call asks for, the recorded values standing in for the options not given."""
    return replace(asked, tasks=asked.tasks or tuple(t.id for t in recorded.tasks),
                   agent=asked.agent if "agent" in given else recorded.agent,
                   model=asked.model if "model" in given else recorded.model,
                   seed=asked.seed if "seed" in given else recorded.seed).config()


def _refuse(flag: str, recorded: Any, given: Any) -> PlaybenchError:
    return PlaybenchError(
        f"{flag} would change the results of a resumed run: recorded {recorded!r}, given {given!r}; "
        "resume with --resume alone (or start a new run)"
    )


def check_identity(recorded: RunConfig, asked: RunConfig, given: frozenset[str]) -> None:
    """Refuse the first config option in ``given`` whose value differs from the recorded run's."""
    if "tasks" in given:
        ids, asked_ids = [t.id for t in recorded.tasks], [t.id for t in asked.tasks]
        if ids != asked_ids:
            raise _refuse("TASKS", ids, asked_ids)
    for name in ("agent", "model", "seed", "agent_params", "model_params"):
        if name in given and getattr(recorded, name) != getattr(asked, name):
            raise _refuse(IDENTITY[name], getattr(recorded, name), getattr(asked, name))
    for old, new in zip(recorded.tasks, asked.tasks, strict=False):
        if "episodes" in given and old.episodes != new.episodes:
            raise _refuse(f"--episodes ({old.id})", old.episodes, new.episodes)
        if "task_params" in given and old.params != new.params:
            changed = sorted(k for k in old.params.keys() | new.params.keys() if old.params.get(k) != new.params.get(k))
            key = changed[0]
            raise _refuse(f"-T {key} ({old.id})", old.params.get(key), new.params.get(key))


def apply_changes(recorded: RecordedSettings, asked: RunSettings, given: frozenset[str]
                  ) -> tuple[RecordedSettings, dict[str, list[Any]]]:
    """The settings to resume with (recorded, with the given ones a resume may change) and what changed.

    What changed is ``{name: [recorded, given]}``, a server's URL masked as ``run.json`` records it.
    """
    update: dict[str, Any] = {}
    changed: dict[str, list[Any]] = {}
    for name, option in RUN_OPTIONS.items():
        if name not in given or option.resume == "identity":
            continue
        value = getattr(asked, name)
        was, shown = getattr(recorded, name), mask_url(value) if name == "base_url" else value
        if was != shown:
            changed[name] = [was, shown]
        update[name] = value
    return recorded.model_copy(update=update), changed


def resume_event(changed: dict[str, list[Any]]) -> dict[str, Any]:
    """The entry a resume adds to ``run.json``."""
    return {"at": datetime.now(UTC).isoformat(timespec="seconds"), "changed": changed}


#: Ray addresses that name this machine's own cluster, not a host
_LOCAL_RAY = ("auto", "local")


def confirm_destinations(config: RunConfig, recorded: RunSettings, given: frozenset[str], settings: RunSettings
                         ) -> str | None:
    """Refuse to resume toward a model server or Ray cluster that only the run's own files name.

    A run folder may come from anyone, and its ``run.json`` could name a host that would then receive the
    user's key (or, for a Ray cluster, the run's work and answers). A recorded server is used only when it
    is the provider's default, the one the provider's URL variable names (its row in the provider table:
    ``$OPENAI_BASE_URL`` …; ``$<SERVICE>_BASE_URL`` for ``openai-api/<service>/…``), or when the caller gives
    ``base_url`` again; a recorded Ray address only when it is this machine's, the one
    ``$RAY_ADDRESS`` names, or given again. ``settings`` are those the resume would run with.

    Returns the base URL to resume with: the variable's own value when it names the recorded server (the
    record holds it masked), else ``settings.base_url``.
    """
    url, address, use = recorded.base_url, recorded.ray_address, settings.base_url
    if config.model and url and "base_url" not in given:
        use = _confirm_server(config.model, url, use)
    if settings.executor == "ray" and address and "ray_address" not in given:
        if address not in _LOCAL_RAY and address != os.environ.get("RAY_ADDRESS"):
            raise PlaybenchError(
                f"this run's {RUN_JSON} plays its episodes on the Ray cluster at {address}, a cluster you have not "
                f"named; nothing was sent: give --ray-address {address} again to play there, or --ray-address "
                "another cluster (or --executor local)")
    return use


def _confirm_server(model: str, url: str, use: str | None) -> str | None:
    """``use``, or the URL variable's own value when it names the recorded ``url``.

    Refused (PlaybenchError) when ``url`` is neither the provider's default nor the one its URL variable names.
    """
    from playbench.models.factory import default_server  # the provider table's row (the mock has no server)

    server = default_server(model)
    if server is None:
        return use
    default, url_var = server
    from_env = os.environ.get(url_var or "", "").strip()
    known = {_same(known_url) for known_url in (default, from_env) if known_url}
    urls = base_urls(url)
    if from_env and len(urls) == 1 and _same(urls[0]) == _same(from_env):
        use = from_env  # with the credentials the record could not keep
    for one in urls:
        if _same(one) not in known:
            shown = mask_url(one)
            hint = " (your own credentials in place of ***)" if "***" in (shown or "") else ""
            raise PlaybenchError(
                f"this run's {RUN_JSON} sends requests to {shown}, a server you have not named; nothing was sent: "
                f"give --base-url {shown} again{hint} to send requests (and your key) there, or --base-url "
                "another server")
    return use


def _same(url: str) -> str:
    """``url`` as compared with another: masked as recorded, without a trailing slash."""
    return (mask_url(url.strip()) or "").rstrip("/")
