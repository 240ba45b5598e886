"""A run's settings as a caller gives them: typed by ``RunSettings`` (``core/records.py``), held to its bounds."""

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from playbench.api.workers import base_urls
from playbench.core.errors import PlaybenchError
from playbench.core.records import RUN_OPTIONS, RunSettings
from playbench.runner.shard import parse_shard


def run_settings(given: Mapping[str, Any]) -> RunSettings:
    """The settings ``given`` (by name; the others keep their defaults), typed and each within its bounds.

    A value of the wrong type, or out of its option's bounds, is a PlaybenchError naming the option's flag.
    ``shard`` is written the one way (``" 2 / 8 "`` -> ``"2/8"``). What settings must agree on together is
    checked by ``check_settings``, once a resume has merged them with the recorded ones.
    """
    values = {name: value for name, value in given.items() if name in RUN_OPTIONS}
    try:
        settings = RunSettings(**values)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else ""
        flag = RUN_OPTIONS[name].flag if name in RUN_OPTIONS else "a setting"
        raise PlaybenchError(f"{flag}: {first['msg'].lower()}, got {values.get(name)!r}") from None
    check_bounds(settings)
    shard = parse_shard(settings.shard)
    return settings.model_copy(update={"shard": None if shard is None else str(shard)})


def check_bounds(settings: RunSettings) -> None:
    """Refuse a setting outside its option's bounds (PlaybenchError naming its flag)."""
    for name, option in RUN_OPTIONS.items():
        value = getattr(settings, name)
        if value is None:
            continue
        if option.at_least is not None and value < option.at_least:
            raise PlaybenchError(f"{option.flag} must be at least {option.at_least}, got {value!r}")
        if option.more_than is not None and value <= option.more_than:
            raise PlaybenchError(f"{option.flag} must be more than {option.more_than}, got {value!r}")
        if option.choices is not None and value not in option.choices:
            raise PlaybenchError(f"{option.flag} must be one of {', '.join(option.choices)}, got {value!r}")
    label = settings.label
    if label is not None and (not label.strip() or len(label) > 200):
        raise PlaybenchError("--label must be a non-empty text of at most 200 characters")


def check_settings(settings: RunSettings, given: frozenset[str] = frozenset()) -> None:
    """Refuse settings no run can use together (PlaybenchError); ``given`` names those the caller gave."""
    check_bounds(settings)  # a resumed run's recorded ones too
    if settings.batch_timeout is not None and not settings.batch:
        raise PlaybenchError("--batch-timeout goes with --batch")
    if settings.batch and settings.executor == "ray":
        raise PlaybenchError("--batch goes with the local executor: one process collects the run's batches")
    if settings.executor != "ray" and len(base_urls(settings.base_url)) > 1:
        raise PlaybenchError("several --base-url servers need --executor ray (each worker takes one); on one "
                             "machine, put a load balancer in front of them and give its URL")
    if "ray_address" in given and settings.executor != "ray":
        raise PlaybenchError("--ray-address goes with --executor ray")
