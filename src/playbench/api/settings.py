"""A run's settings (how it talks to its model, not what it measures) and what a resume may change."""

import os
from typing import Any

from playbench.api.config import build_config
from playbench.api.workers import base_urls
from playbench.core.errors import PlaybenchError
from playbench.core.records import RunConfig
from playbench.core.registry import get_task
from playbench.log.paths import RUN_JSON
from playbench.log.store import RunStore
from playbench.models.redact import mask_url
from playbench.runner.resume import IDENTITY, REFUSED, apply_settings, check_identity, resume_event
from playbench.runner.shard import parse_shard

#: connection settings and their defaults, in the order ``run.json`` records them
CONNECTION_DEFAULTS: dict[str, Any] = {"base_url": None, "max_connections": 8, "max_episodes": None, "max_retries": 6,
                                       "timeout": 120.0, "retry_backoff": 1.0, "max_connect_failures": 5,
                                       "executor": "local", "ray_address": None, "batch": False,
                                       "batch_timeout": None}
#: every recorded setting (the cache decides results, so a resume may not change it; nor may the shard;
#: ``label`` is the run's name in reports and plots, display only)
SETTING_DEFAULTS: dict[str, Any] = {**CONNECTION_DEFAULTS, "cache": False, "shard": None, "label": None}
#: where episodes can run: this process, or the workers of a Ray cluster
EXECUTORS = ("local", "ray")


def check_settings(settings: dict[str, Any]) -> None:
    """Refuse settings no run can use (PlaybenchError)."""
    if settings["max_connections"] < 1 or (settings["max_episodes"] is not None and settings["max_episodes"] < 1):
        raise PlaybenchError("--max-connections and --max-episodes must be at least 1")
    if settings["retry_backoff"] < 0:
        raise PlaybenchError("--retry-backoff must be >= 0")
    if settings["max_connect_failures"] < 1:
        raise PlaybenchError("--max-connect-failures must be at least 1")
    timeout = settings.get("batch_timeout")
    if timeout is not None and not (isinstance(timeout, (int, float)) and 0 < timeout < float("inf")):
        raise PlaybenchError(f"--batch-timeout must be a positive number of seconds, got {timeout!r}")
    if timeout is not None and not settings.get("batch"):
        raise PlaybenchError("--batch-timeout goes with --batch")
    if settings.get("batch") and settings["executor"] == "ray":
        raise PlaybenchError("--batch goes with the local executor: one process collects the run's batches")
    if settings["executor"] not in EXECUTORS:
        raise PlaybenchError(f"--executor must be one of {', '.join(EXECUTORS)}, got {settings['executor']!r}")
    if settings["executor"] != "ray" and len(base_urls(settings["base_url"])) > 1:
        raise PlaybenchError("several --base-url servers need --executor ray (each worker takes one); on one "
                             "machine, put a load balancer in front of them and give its URL")
    label = settings.get("label")
    if label is not None and (not isinstance(label, str) or not label.strip() or len(label) > 200):
        raise PlaybenchError("--label must be a non-empty text of at most 200 characters")


def resumed_config(store: RunStore, given: set[str], ask: dict[str, Any], settings: dict[str, Any]
                   ) -> tuple[RunConfig, dict[str, Any]]:
    """The recorded config and settings of a run, after checking what the caller asks to change.

    ``given`` names the options the caller gave; ``ask`` holds the asked config values (``tasks``,
    ``agent``, ``model``, ``episodes``, ``seed``, ``task_args``, ``agent_args``, ``model_args``) and
    ``settings`` every setting's asked value (defaults for those not given). Changed connection settings
    are applied and logged in ``run.json`` as a resume event.
    """
    recorded = store.meta.config
    current = []  # the recorded parameters under today's names (a run may predate a rename)
    for spec in recorded.tasks:  # the data may have changed since the run began
        task = get_task(spec.id)
        params = task.params(spec.params)
        task.validate_inputs(params)
        current.append(spec.model_copy(update={"params": params.model_dump(mode="json")}))
    if given & (IDENTITY.keys() | REFUSED.keys()):
        asked = build_config(
            ask["tasks"] or tuple(t.id for t in recorded.tasks),
            ask["agent"] if "agent" in given else recorded.agent,
            ask["model"] if "model" in given else recorded.model, ask["episodes"],
            ask["seed"] if "seed" in given else recorded.seed,
            ask["task_args"], ask["agent_args"], ask["model_args"])
        check_identity(recorded.model_copy(update={"tasks": current}), asked, given, (bool(store.meta.settings.get("cache")), settings["cache"]))
    if "shard" in given:
        was, asked_shard = store.meta.settings.get("shard"), parse_shard(settings["shard"])
        if str(asked_shard) != str(was):
            raise PlaybenchError(f"--shard would change the results of a resumed run: recorded {was!r}, given "
                                 f"{str(asked_shard)!r}; resume with --resume alone (or start a new run)")
    new = {k: v for k, v in settings.items() if k in given and k in CONNECTION_DEFAULTS}
    merged, changed = apply_settings({**SETTING_DEFAULTS, **store.meta.settings}, new)
    merged["base_url"] = confirm_destinations(recorded, store.meta.settings, given, merged)
    if changed:
        shown = {**merged, "base_url": mask_url(merged["base_url"])}
        if not shown["batch"]:  # recorded only when on (``--batch``), as when the run was created
            del shown["batch"]
        if shown["batch_timeout"] is None:
            del shown["batch_timeout"]
        meta = store.meta.model_copy(update={"settings": shown,
                                             "resumes": [*store.meta.resumes, resume_event(changed)]})
        store.save_meta(meta)
    return recorded, merged


#: Ray addresses that name this machine's own cluster, not a host
_LOCAL_RAY = ("auto", "local")


def confirm_destinations(config: RunConfig, recorded: dict[str, Any], given: set[str], settings: dict[str, Any]
                         ) -> str | None:
    """Refuse to resume toward a model server or Ray cluster that only the run's own files name.

    A run folder may come from anyone, and its ``run.json`` could name a host that would then receive the
    user's key (or, for a Ray cluster, the run's work and answers). A recorded server is used only when it
    is the provider's default, the one the provider's URL variable names (its row in the provider table:
    ``$OPENAI_BASE_URL`` …; ``$<SERVICE>_BASE_URL`` for ``openai-api/<service>/…``), or when the caller gives
    ``base_url`` again; a recorded Ray address only when it is this machine's, the one
    ``$RAY_ADDRESS`` names, or given again. ``settings`` are those the resume would run with.

    Returns the base URL to resume with: the variable's own value when it names the recorded server (the
    record holds it masked), else ``settings["base_url"]``.
    """
    url, address = recorded.get("base_url"), recorded.get("ray_address")
    use = settings.get("base_url")
    for name, value in (("base_url", url), ("ray_address", address)):
        if value is not None and not isinstance(value, str):
            raise PlaybenchError(f"{RUN_JSON}'s settings.{name} is not text: {type(value).__name__}")
    if config.model and url and "base_url" not in given:
        use = _confirm_server(config.model, url, use)
    if settings.get("executor") == "ray" and address and "ray_address" not in given:
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
