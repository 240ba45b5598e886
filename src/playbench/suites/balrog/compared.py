"""A BALROG submission folder read for ``compare``: each episode's task, seed and progression, and the protocol.

What pairs: an episode file's ``seed`` with a playbench record's ``seed`` (``EpisodeRecord.seed``, the seed the
game was reset with, which ``export --format balrog`` writes as the file's ``seed``), within the playbench task
the file's environment folder and ``task`` name (``BabyAI-MixedTrainLocal-v0/goto``) stand for
(``balrog/babyai/goto``). A run plays BALROG's instance exactly when its record holds that seed. The score is
the file's ``progression`` (0 when absent, as BALROG counts it).

Except where the seed did not fix the instance: BALROG's evaluator drew Crafter's world, TextWorld's game,
NetHack's and Boxoban's levels otherwise (``submission.seed_problem``), so such an episode of a folder BALROG
made is not the one a run (or another folder) played from the same seed. Its key is the seed tagged with the
folder itself (``SEED@TAG``, ``TAG`` from the folder's resolved path): it pairs with the same folder's episode
(the folder compared with itself) and with a run's record that played it again (``eval --instances``): one
whose reset options (``EpisodeRecord.options``) are those that make that instance, checked against the folder
(``leaderboard_instances.Claims``). A record with other options pairs with nothing of the folder. Where
nothing pairs, the task falls back to compare's unpaired test, and a note says how many such episodes the
folder holds and why. The files an export names in its ``summary.json`` mark
(``submission.seeded_mark``) were seeded by playbench and pair by their seed; a folder can forge that mark,
which only makes it claim what ``playbench verify`` checks.

The protocol is read from the files' ``agent`` and ``client`` blocks: the model's ``generate_kwargs``
(temperature, max_tokens), the agent type, its text and image history and, where the block states it,
playbench's ``compat``; a block without ``compat`` is BALROG's own code, whose parsing is playbench's compat.
A setting the episode files disagree on is shown as ``mixed``. The date is ``metadata.yaml``'s, else the
leaderboard folder name's (``20241030_...``).

For ``board``, each episode also carries the token counts its file records (``input_tokens``,
``output_tokens``; ``num_steps`` as the calls, BALROG asking the model once a step) and its CSV of steps
when the folder holds one; the model is named as playbench names it (BALROG's ``gemini`` client is
``google``, ``claude`` is ``anthropic``), so that a listed price applies.
"""

import hashlib
import json
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord
from playbench.core.suite import NOT_SENT, Comparable, ComparedEpisode
from playbench.suites.balrog import leaderboard_instances, submission
from playbench.suites.balrog.facts import TASKS, BalrogTask

#: BALROG's strategy names -> playbench's agents (``submission.AGENT_TYPES`` read backwards).
AGENTS = {balrog: ours for ours, balrog in submission.AGENT_TYPES.items()}
#: Agent types BALROG's own evaluator runs: without a ``compat`` key, their parsing is BALROG's (compat).
BALROG_STRATEGIES = frozenset({"naive", "cot", "robust_naive", "robust_cot", "few_shot"})
_DATE = re.compile(rb"^date:\s*[\"']?(\d{4}-\d{2}-\d{2})", re.MULTILINE)
_NAME_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})_")
#: BALROG's client names -> playbench's providers, where they differ (BALROG's ``create_llm_client``)
PROVIDERS = {"gemini": "google", "claude": "anthropic"}


def _task_rows() -> dict[tuple[str, str], BalrogTask]:
    """(BALROG env folder, BALROG task name) -> playbench's task."""
    return {(row.env, name): row for row in TASKS for name in (row.name, *row.aliases)}


def _folder_tag(folder: Path) -> str:
    """A short tag of the folder itself: keys carrying it pair only with the same folder's."""
    return hashlib.sha256(str(Path(folder).resolve()).encode()).hexdigest()[:8]


def _scalar(value: Any) -> Any:
    """A stated value kept if it is a JSON scalar, else short text (a folder may hold anything)."""
    return value if value is None or isinstance(value, str | int | float | bool) else str(value)[:80]


def episode_settings(agent: Any, client: Any) -> dict[str, Any]:
    """The protocol one episode file's ``agent`` and ``client`` blocks state, in compare's names."""
    out: dict[str, Any] = {}
    if isinstance(client, dict) and client.get("model_id"):
        kwargs = client.get("generate_kwargs")
        kwargs = kwargs if isinstance(kwargs, dict) else {}
        out["temperature"] = _scalar(kwargs.get("temperature", NOT_SENT))
        out["max_tokens"] = _scalar(kwargs.get("max_tokens", kwargs.get("max_completion_tokens", NOT_SENT)))
    if not isinstance(agent, dict):
        return out
    kind = agent.get("type")
    if isinstance(kind, str):
        out["agent"] = AGENTS.get(kind, kind)
    history = agent.get("max_text_history", agent.get("max_history"))  # BALROG's newer name, then its older
    if history is not None:
        out["history"] = _scalar(history)
    if "max_image_history" in agent:
        out["images"] = _scalar(agent["max_image_history"])
    if "compat" in agent:  # written by playbench's export: its own switch
        out["parsing"] = "compat" if agent["compat"] is True else "default"
    elif kind in BALROG_STRATEGIES:
        out["parsing"] = "compat"
    return out


def _agreed(per_episode: list[dict[str, Any]]) -> dict[str, Any]:
    """Each setting as every episode states it, or ``mixed: a, b`` when they disagree."""
    out: dict[str, Any] = {}
    for name in dict.fromkeys(k for settings in per_episode for k in settings):
        values = Counter(repr(s.get(name)) for s in per_episode)
        if len(values) == 1:
            out[name] = per_episode[0].get(name)
        else:
            out[name] = "mixed: " + ", ".join(sorted(values))[:80]
    return out


def _date(folder: Path) -> str | None:
    try:
        found = _DATE.search(submission.read_bytes(folder, "metadata.yaml"))
    except (OSError, PlaybenchError):
        found = None
    if found:
        return found.group(1).decode()
    named = _NAME_DATE.match(Path(folder).resolve().name)
    return "-".join(named.groups()) if named else None


def key_text(key: int | str) -> str:
    """A key as a reader sees it: its seed (the ``@TAG`` that keeps a key to its folder says nothing to a reader)."""
    return str(key).partition("@")[0]


def _run_key(folder: Path, tag: str) -> Callable[[EpisodeRecord], int | str]:
    """A run's record keyed as the folder keys its episodes: by seed, or, played with reset options, by the key.

    The key is that of the folder's episode those options make (``SEED@TAG``), else one no episode of the
    folder holds.
    """
    claims = leaderboard_instances.Claims(folder)

    def key(record: EpisodeRecord) -> int | str:
        if record.options is None:
            return record.seed
        played = claims.episode(record.task, record.seed, record.options, record.instance)
        if played is not None:
            return f"{record.seed}@{tag}"
        return f"{record.seed}+" + json.dumps(record.options, sort_keys=True)[:200]

    return key


def episodes(folder: Path, options: Mapping[str, str]) -> Comparable:
    """The folder's episodes keyed by seed, its protocol and what was left out (``FormatHooks.episodes``)."""
    folder = Path(folder)
    logs = submission.read_episodes(folder)  # every file checked, links refused
    files = submission.episode_files(folder)
    if [len(v) for v in files.values()] != [len(v) for v in logs.values()]:
        raise PlaybenchError(f"{folder}: its episode files changed while it was read; read it again")
    if not logs:
        raise PlaybenchError(f"{folder}: no episode files (a published summary alone): nothing to pair")
    rows = _task_rows()
    seeded = submission.seeded_episodes(folder)
    tag = _folder_tag(folder)
    found: list[ComparedEpisode] = []
    unknown: Counter[str] = Counter()
    unseeded = 0
    unmatched: dict[str, Counter[str]] = {}  # why BALROG's seed did not fix the instance -> episodes by kind
    stated: list[dict[str, Any]] = []
    for env, env_logs in logs.items():
        for log, relative in zip(env_logs, files[env], strict=True):
            row = rows.get((env, str(log.get("task"))))
            seed = log.get("seed")
            if row is None:
                unknown[f"{env}/{str(log.get('task'))[:60]}"] += 1
                continue
            if isinstance(seed, bool) or not isinstance(seed, int):
                unseeded += 1
                continue
            key: int | str = seed
            problem = None if relative in seeded else submission.seed_problem(row)
            if problem is not None:
                key = f"{seed}@{tag}"
                unmatched.setdefault(problem, Counter())[row.kind if row.kind == "boxoban" else env] += 1
            found.append(ComparedEpisode(row.id, key, float(log.get("progression", 0.0)), usage=_usage(log),
                                         source=_steps_file(folder, relative)))
            stated.append(episode_settings(log.get("agent"), log.get("client")))
    notes = [_unmatched_note(folder, unmatched)] if unmatched else []
    if unknown:
        notes.append(f"{sum(unknown.values())} episodes of tasks playbench does not have, left out: "
                     + ", ".join(sorted(unknown)[:3]) + (" …" if len(unknown) > 3 else ""))
    if unseeded:
        notes.append(f"{unseeded} episode files hold no seed, left out (nothing to pair them by)")
    settings = _agreed(stated)
    date = _date(folder)
    if date is not None:
        settings["date"] = date
    models = _models(logs)
    model = next(iter(models), None)
    agent = settings.get("agent")
    label = " + ".join(str(x) for x in (model, agent) if x) or folder.name
    return Comparable(label=label, episodes=tuple(found), key="seed", run_key=_run_key(folder, tag),
                      unpairable="it holds no seed", settings=settings, notes=tuple(notes),
                      model=_playbench_model(models[0]) if len(models) == 1 else None, key_text=key_text)


def _unmatched_note(folder: Path, unmatched: dict[str, Counter[str]]) -> str:
    """One line: how many episodes of which kinds pair only within the folder, and why (``SEED@TAG`` keys)."""
    kinds = sorted({kind for counts in unmatched.values() for kind in counts})
    total = sum(sum(counts.values()) for counts in unmatched.values())
    why = "; ".join(f"{'/'.join(sorted(counts))}: {problem}" for problem, counts in unmatched.items())
    name = Path(folder).resolve().name
    return (f"{total} {'/'.join(kinds)} episodes of {name} are not paired with another folder's, nor with a run's "
            f"that did not play them again (eval --instances): BALROG's seed did not fix their instance ({why})")


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _usage(log: dict[str, Any]) -> dict[str, int]:
    """The episode file's token counts and steps (its model calls); empty unless it records both counts."""
    if not (_count(log.get("input_tokens")) and _count(log.get("output_tokens"))):
        return {}
    usage = {"input_tokens": log["input_tokens"], "output_tokens": log["output_tokens"]}
    if _count(log.get("num_steps")) and log["num_steps"] > 0:
        usage["calls"] = log["num_steps"]
    return usage


def _steps_file(folder: Path, relative: str) -> str | None:
    """The episode's CSV of steps beside its JSON file, when it is a regular file (a link is not shown)."""
    csv = relative.removesuffix(".json") + ".csv"
    try:
        return csv if stat.S_ISREG(os.lstat(Path(folder) / csv).st_mode) else None
    except OSError:
        return None


def _playbench_model(name: str) -> str:
    """``gemini/gemini-2.5-pro`` -> ``google/gemini-2.5-pro``: BALROG's client name as playbench's provider."""
    client, sep, model_id = name.partition("/")
    return f"{PROVIDERS.get(client, client)}{sep}{model_id}"


def _models(logs: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The model ids the episode files' client blocks name, in order of first appearance."""
    clients = [log.get("client") for env_logs in logs.values() for log in env_logs]
    names = ("/".join(str(part) for part in (c.get("client_name"), c.get("model_id")) if part)
             for c in clients if isinstance(c, dict) and c.get("model_id"))
    return list(dict.fromkeys(name[:80] for name in names))
