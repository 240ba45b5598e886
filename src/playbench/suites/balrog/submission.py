"""BALROG's submission folder: written from playbench records, read back and summarized as BALROG does.

The layout is the one BALROG's evaluator writes and the leaderboard (github.com/balrog-ai/experiments,
``submissions/LLM/<date>_<name>/``) publishes:

- ``<env>/<task>/<task>_run_<NN>.json``: one file per episode (``NN`` = the episode's index, two digits).
  ``<task>`` is BALROG's task name, which may hold a slash (``BabyAI-MixedTrainLocal-v0/goto``,
  ``env/goto_win``), so a BabyAI episode lives in ``babyai/BabyAI-MixedTrainLocal-v0/goto/
  BabyAI-MixedTrainLocal-v0/goto_run_00.json``, exactly as the evaluator's ``os.path.join`` makes it.
  Keys in the evaluator's order: ``task``, ``action_frequency``, ``input_tokens``, ``output_tokens``,
  ``done``, ``episode_return``, ``num_steps``, ``failed_candidates``, the environment's ``get_stats()``
  keys (``progression`` among them), ``process_num``, ``seed``, ``agent``, ``client``.
- ``<env>/<task>/<task>_run_<NN>.csv``: the steps (``Step, Action, Reasoning, Observation, Reward, Done``).
- ``<env>/<env>_summary.json`` and ``summary.json``: ``collect_and_summarize_results``'s output. The one
  ``export --format balrog`` writes adds a ``playbench`` key (``seeded_mark``): the episode files playbench wrote,
  whose seeds fix their instance. BALROG never reads ``summary.json`` back (its summarizer writes it afresh,
  which drops the key), and its reader of episode files skips it.

The figure (``summarize``) is computed as BALROG's ``collect_and_summarize_results`` computes it: every
``*.json`` under an environment folder except the summaries is an episode; its ``progression`` (0 when
absent) is pooled per environment; the standard error uses the population SD (0 for one episode); the
overall figure is the plain mean of the environments present and its error ``sqrt(sum se^2) / N``.
A leaderboard folder may publish its ``summary.json`` alone (no episode files): there is nothing to
recompute, and ``read_submission`` hands back the published figures as written, marked as not recomputed.

A submission may come from anyone, so it is read as a run folder is (``log/confined.py``): a symbolic link
anywhere in it is refused in one line, and every file is opened as a regular file reached from the folder
without a link. A file that is not a JSON object (JSON nested too deep to parse included) is one line too.
"""

import csv
import importlib.metadata
import json
import math
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, StepRecord
from playbench.log import is_run
from playbench.log.confined import read_file
from playbench.suites.balrog.facts import TASKS, BalrogTask
from playbench.suites.balrog.protocol import invalid_action_feedback

SUMMARY = "summary.json"
#: The key of ``summary.json`` under which an export says which episode files playbench seeded (``seeded_mark``)
MARK = "playbench"
#: BALROG's names of playbench's strategies (``config.agent.type``).
AGENT_TYPES = {"naive": "naive", "cot": "cot", "robust-naive": "robust_naive", "robust-cot": "robust_cot",
               "few-shot": "few_shot", "custom": "custom"}
#: The keys each environment's ``get_stats()`` returns, in its order (NLE's tracker: its own order).
_STATS_KEYS = {
    "babyai": ("mission", "progression"),
    "babaisai": ("target_plan", "progression"),
    "crafter": ("score", "progression", "achievements"),
    "textworld": ("progression",),
}
_CSV_HEADER = ["Step", "Action", "Reasoning", "Observation", "Reward", "Done"]
_TOLERANCE = 1e-9


def original_name(task_id: str) -> tuple[str, str]:
    """``balrog/babyai/goto`` -> ``("babyai", "BabyAI-MixedTrainLocal-v0/goto")``: BALROG's env and task names."""
    for row in TASKS:
        if row.id == task_id:
            return row.env, (row.aliases[0] if row.aliases else row.name)
    raise KeyError(task_id)


def episode_path(env: str, task: str, index: int, suffix: str = ".json") -> str:
    """The episode file's path inside a submission, as BALROG's evaluator joins it."""
    return f"{env}/{task}/{task}_run_{index:02d}{suffix}"


def episode_log(record: EpisodeRecord, env: str, task: str, agent: dict[str, Any],
                client: dict[str, Any]) -> dict[str, Any]:
    """One finished episode as BALROG's evaluator writes it (``episode_log``)."""
    m = record.metrics
    log: dict[str, Any] = {
        "task": task,
        "action_frequency": dict(m.get("action_frequency", {})),
        "input_tokens": int(record.usage.get("input_tokens", 0)),
        "output_tokens": int(record.usage.get("output_tokens", 0)),
        "done": True,  # a recorded ok episode ended with terminated or truncated
        "episode_return": m.get("episode_return", record.reward),
        "num_steps": m.get("num_steps", record.steps),
        "failed_candidates": list(m.get("failed_candidates", [])),
    }
    if env in _STATS_KEYS:
        for key in _STATS_KEYS[env]:
            if key == "achievements":  # playbench keeps BALROG's per-achievement counts under another name
                log[key] = m.get("achievement_counts", {})
            elif key == "progression":
                log[key] = m.get("progression", record.score or 0.0)
            elif key in m:
                log[key] = m[key]
    else:  # NetHack / MiniHack: the progress tracker's keys, in its order (episode_return overwritten in place)
        tracker = ("episode_return", "score", "depth", "gold", "experience_level", "time", "dlvl_list",
                   "xplvl_list", "highest_achievement", "progression", "end_reason")
        for key in tracker:
            if key in m:
                log[key] = m[key]
        log.setdefault("progression", record.score or 0.0)
    log.update({"process_num": None, "seed": record.seed, "agent": agent, "client": client})
    return log


def agent_config(agent: str, params: dict[str, Any]) -> dict[str, Any]:
    """BALROG's ``agent`` block: the strategy's BALROG name and its ``-A`` settings."""
    return {"type": AGENT_TYPES.get(agent, agent), **params}


def client_config(model: str | None, params: dict[str, Any]) -> dict[str, Any]:
    """BALROG's ``client`` block: provider, model id and generation settings (never credentials)."""
    provider, _, model_id = (model or "").partition("/")
    return {"client_name": provider or None, "model_id": model_id or None, "generate_kwargs": dict(params)}


def csv_rows(steps: Sequence[StepRecord], env_log: dict[str, Any]) -> list[list[Any]]:
    """The episode's CSV rows (after the header), as BALROG's evaluator writes them.

    ``Action`` is the answer as the agent parsed it (BALROG's ``response.completion``): the legal action it
    named, else the parsed completion (the raw output where none was kept); a reference policy's is the action
    itself. ``Observation`` is the game's long-term text after the step, which the next step's record holds and
    the last step's ``next_observation`` (a run written before kept none: ``""``), behind BALROG's
    invalid-action note where the answer named no legal action and the agent sent that note
    (``feedback_on_invalid_action``): the text the agent was shown next.
    """
    agent = env_log.get("agent")
    noted = isinstance(agent, dict) and agent.get("feedback_on_invalid_action") is True
    rows: list[list[Any]] = []
    for k, step in enumerate(steps):
        after = steps[k + 1].observation if k + 1 < len(steps) else step.next_observation
        if after is not None and noted and not step.valid:
            after = invalid_action_feedback(step.executed, after)
        extra = step.extra if isinstance(step.extra, dict) else {}
        rows.append([step.step, _answer(step, extra), extra.get("reasoning", "") or "", after or "", step.reward,
                     step.done])
    return rows


def _answer(step: StepRecord, extra: dict[str, Any]) -> str:
    """The step's answer as BALROG's agent parsed it: the legal action named, else the parsed completion."""
    if step.valid and step.action is not None:
        return step.action
    completion = extra.get("completion")
    if isinstance(completion, str):
        return completion
    return step.raw_output if step.raw_output is not None else step.executed


@dataclass
class Written:
    """What ``write_submission`` wrote and what it left out."""

    folder: Path
    episodes: int = 0
    left_out: dict[str, int] = field(default_factory=dict)  # status -> count (not ok: BALROG writes no file)
    other_tasks: list[str] = field(default_factory=list)  # tasks of other suites in the run


def _dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=4) + "\n")


def write_submission(folder: Path, episodes: Iterable[tuple[EpisodeRecord, Sequence[StepRecord] | None]],
                     agent: dict[str, Any], client: dict[str, Any]) -> Written:
    """Write the per-episode files and both summaries; only ``ok`` episodes (BALROG records no others)."""
    written = Written(folder)
    files: list[str] = []
    for record, steps in episodes:
        try:
            env, task = original_name(record.task)
        except KeyError:
            if record.task not in written.other_tasks:
                written.other_tasks.append(record.task)
            continue
        if record.status != "ok":
            written.left_out[record.status] = written.left_out.get(record.status, 0) + 1
            continue
        log = episode_log(record, env, task, agent, client)
        path = episode_path(env, task, record.index)
        if record.options is None:  # one played with reset options (--instances) is not fixed by its seed alone
            files.append(path)
        _dump(folder / path, log)
        if steps is not None:
            target = folder / episode_path(env, task, record.index, ".csv")
            with target.open("w", newline="", encoding="utf-8") as fh:
                writer = csv.writer(fh, escapechar="˘", quoting=csv.QUOTE_MINIMAL)
                writer.writerow(_CSV_HEADER)
                writer.writerows(csv_rows(steps, log))
        written.episodes += 1
    if written.episodes:
        summary, env_summaries = summarize(read_episodes(folder))
        for env, block in env_summaries.items():
            _dump(folder / env / f"{env}_summary.json", block)
        _dump(folder / SUMMARY, {**summary, "client": client, "agent": agent, MARK: seeded_mark(files)})
    return written


def seeded_mark(files: list[str]) -> dict[str, Any]:
    """What an export adds to ``summary.json``: playbench wrote ``files``, each seed fixing its episode's instance.

    BALROG's evaluator does not seed every environment's instance by the episode's seed (``seed_problem``);
    playbench does, so a file named here pairs by its seed in ``compare``. An episode played with reset options
    (``eval --instances`` of a BALROG row) is not named: its seed alone does not fix it. A folder can forge
    this mark: it then claims playbench's seeding, which ``playbench verify`` checks by playing the episodes again.
    """
    try:
        version = importlib.metadata.version("playbench")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return {"version": version, "seeded": True, "episodes": list(files)}


def seeded_episodes(folder: Path) -> frozenset[str]:
    """The episode files (paths inside ``folder``) its ``summary.json`` marks as seeded by playbench (``seeded_mark``).

    Empty without a ``summary.json``, a mark, or with ``"seeded"`` other than true (BALROG's own folders); a mark
    that is not one an export writes is refused in one line (PlaybenchError).
    """
    recorded = _read_summary(Path(folder))
    mark = None if recorded is None else recorded.get(MARK)
    if mark is None:
        return frozenset()
    files = mark.get("episodes") if isinstance(mark, dict) else None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise PlaybenchError(f"{Path(folder) / SUMMARY}: its {MARK!r} key is not the mark 'export --format balrog' "
                             "writes (an object whose \"episodes\" lists episode files)")
    return frozenset(files) if mark.get("seeded") is True else frozenset()


def read_bytes(folder: Path, relative: str) -> bytes:
    """The bytes of the submission's file ``relative``: a regular file of ``folder``, reached without a link.

    A link or special file on the way is a PlaybenchError; a missing file ``FileNotFoundError``; others ``OSError``.
    """
    return read_file(Path(folder).resolve(), relative, Path(folder))


def read_episode(folder: Path, relative: str) -> dict[str, Any]:
    """The episode file ``relative`` of a submission as a JSON object; a clear error when it is not one."""
    return _json_object(folder, relative, "is not a readable episode file", "episode file")


def _json_object(folder: Path, relative: str, unreadable: str, kind: str) -> dict[str, Any]:
    """The file read as a JSON object, else one line: ``PATH {unreadable}: why`` or ``not a BALROG {kind}``."""
    path = Path(folder) / relative
    try:
        data = json.loads(read_bytes(folder, relative).decode("utf-8"))
    except RecursionError:  # nested deeper than the parser goes: not a file BALROG writes
        raise PlaybenchError(f"{path} {unreadable}: JSON nested too deep") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise PlaybenchError(f"{path} {unreadable}: {exc}") from None
    if not isinstance(data, dict):
        raise PlaybenchError(f"{path} is not a BALROG {kind} (not a JSON object)")
    return data


def _no_link(folder: Path, entry: os.DirEntry[str], relative: str) -> None:
    if entry.is_symlink():
        raise PlaybenchError(f"{Path(folder) / relative} is a symbolic link; a submission's files must be regular "
                             "files inside it: refusing to read the folder")


def _entries(folder: Path, relative: str) -> list[tuple[str, bool]]:
    """``(path, is a folder)`` for each entry of the submission's folder ``relative``, sorted; a link refused."""
    found = []
    where = Path(folder) / relative if relative else Path(folder)
    try:
        with os.scandir(where) as entries:
            for entry in entries:
                path = f"{relative}/{entry.name}" if relative else entry.name
                _no_link(folder, entry, path)
                found.append((path, entry.is_dir(follow_symlinks=False)))
    except OSError as exc:
        raise PlaybenchError(f"cannot read {where}: {exc.strerror or exc}") from None
    return sorted(found)


def episode_files(folder: Path) -> dict[str, list[str]]:
    """Every episode file of a submission (its path inside ``folder``), by environment folder.

    BALROG's walk (``collect_and_summarize_results``): every ``*.json`` below an environment folder except the
    summaries, each folder's files before its sub-folders, sorted so that it is repeatable. A link anywhere
    in the folder is refused (PlaybenchError).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise PlaybenchError(f"{folder} is not a folder")
    found: dict[str, list[str]] = {}
    for env, is_folder in _entries(folder, ""):
        if is_folder:
            files = list(_walk(folder, env))
            if files:  # a folder without episode files is no environment (BALROG's defaultdict never sees it)
                found[env] = files
    return found


def _walk(folder: Path, top: str) -> Iterator[str]:
    """The episode files below ``top`` in ``os.walk``'s order, without recursion (a folder may nest deep)."""
    pending = [top]
    while pending:
        entries = _entries(folder, pending.pop())
        for path, is_folder in entries:
            name = path.rpartition("/")[2]
            if not is_folder and name.endswith(".json") and not name.endswith("_summary.json") and name != SUMMARY:
                yield path
        pending.extend(path for path, is_folder in reversed(entries) if is_folder)


def read_episodes(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Every episode file of a submission, by environment folder (``episode_files``' order)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for env, files in episode_files(folder).items():
        logs: list[dict[str, Any]] = []
        for relative in files:
            data = read_episode(folder, relative)
            value = data.get("progression", 0.0)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise PlaybenchError(f"{Path(folder) / relative}: progression {value!r} is not a number")
            logs.append(data)
        found[env] = logs
    return found


def _mean_se(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n if n else 0.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / n) if n > 1 else 0.0
    return mean, (sd / math.sqrt(n) if n > 1 else 0.0)


def summarize(episodes: dict[str, list[dict[str, Any]]]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """``(summary.json without client/agent, {env: <env>_summary.json})`` as BALROG computes them."""
    env_summaries: dict[str, dict[str, Any]] = {}
    env_means: list[float] = []
    total_in = total_out = 0
    for env, logs in episodes.items():
        xs = [float(log.get("progression", 0.0)) for log in logs]
        mean, se = _mean_se(xs)
        env_means.append(mean)
        by_task: dict[Any, list[float]] = defaultdict(list)
        for log, x in zip(logs, xs, strict=True):
            by_task[log.get("task")].append(x)
        tasks = {}
        for task, txs in by_task.items():
            t_mean, t_se = _mean_se(txs)
            tasks[task] = {"progression_percentage": 100 * t_mean, "standard_error": 100 * t_se,
                           "episodes_played": len(txs)}
        env_in = sum(int(log.get("input_tokens", 0)) for log in logs)
        env_out = sum(int(log.get("output_tokens", 0)) for log in logs)
        total_in += env_in
        total_out += env_out
        env_summaries[env] = {
            "progression_percentage": 100 * mean,
            "standard_error": 100 * se,
            "average_steps": sum(log.get("num_steps", 0) for log in logs) / len(logs) if logs else 0.0,
            "episodes_played": len(logs),
            "tasks": tasks,
            "input_tokens": env_in,
            "output_tokens": env_out,
        }
    n = len(env_means)
    overall = sum(env_means) / n if n else 0.0
    error = math.sqrt(sum(e["standard_error"] ** 2 for e in env_summaries.values())) / n if n else 0.0
    summary = {
        "average_progress": 100 * overall,
        "standard_error": error,
        "environments": {env: {k: block[k] for k in ("progression_percentage", "standard_error", "episodes_played")}
                         for env, block in env_summaries.items()},
        "total_input_tokens": total_in,
        "total_output_tokens": total_out,
    }
    return summary, env_summaries


def is_submission(folder: Path) -> bool:
    """A folder with BALROG's ``summary.json`` or an ``<env>/<env>_summary.json`` (and no playbench run)."""
    folder = Path(folder)
    if not folder.is_dir() or is_run(folder):
        return False
    if (folder / SUMMARY).is_file():
        return True
    return any((p / f"{p.name}_summary.json").is_file() for p in folder.iterdir() if p.is_dir())


def _close(a: Any, b: Any) -> bool:
    if not isinstance(a, int | float) or not isinstance(b, int | float):
        return bool(a == b)
    return math.isclose(float(a), float(b), rel_tol=_TOLERANCE, abs_tol=_TOLERANCE)


#: what ``report`` says of a folder that publishes its summary alone (18 of the leaderboard's folders do)
NOTHING_TO_RECOMPUTE = "no episode files to recompute: showing the published summary as published"


def _read_summary(folder: Path) -> dict[str, Any] | None:
    """The folder's ``summary.json`` as a JSON object, or None when it has none."""
    path = folder / SUMMARY
    if not path.is_symlink() and not path.is_file():
        return None
    return _json_object(folder, SUMMARY, "is not readable JSON", "summary")  # a link is refused there


def _number(path: Path, where: str, value: Any, *, whole: bool = False) -> float | int:
    ok = isinstance(value, int) if whole else isinstance(value, int | float) and math.isfinite(value)
    if isinstance(value, bool) or not ok:
        shown = repr(value)[:40]
        raise PlaybenchError(f"{path}: {where} {shown} is not {'a whole number' if whole else 'a finite number'}")
    number: float | int = value  # checked just above
    return number


def published_figures(folder: Path, recorded: dict[str, Any]) -> dict[str, Any]:
    """The figures ``summary.json`` states (overall and per environment), checked to be numbers, kept as written.

    Only what a summary shows is taken: ``average_progress``, ``standard_error`` and each environment's
    ``progression_percentage``, ``standard_error`` and ``episodes_played``; the token totals when present.
    """
    path = folder / SUMMARY
    figures: dict[str, Any] = {key: _number(path, key, recorded.get(key))
                               for key in ("average_progress", "standard_error")}
    stated = recorded.get("environments", {})
    if not isinstance(stated, dict):
        raise PlaybenchError(f"{path}: environments is not a JSON object")
    envs: dict[str, dict[str, Any]] = {}
    for env, block in stated.items():
        if not isinstance(block, dict):
            raise PlaybenchError(f"{path}: environment {env[:40]!r} is not a JSON object")
        envs[env] = {key: _number(path, f"{env[:40]} {key}", block.get(key), whole=key == "episodes_played")
                     for key in ("progression_percentage", "standard_error", "episodes_played")}
    figures["environments"] = envs
    for key in ("total_input_tokens", "total_output_tokens"):
        if key in recorded:
            figures[key] = _number(path, key, recorded[key], whole=True)
    return figures


def read_submission(folder: Path) -> dict[str, Any]:
    """A submission's figure recomputed from its episode files, beside what its ``summary.json`` states.

    Returns ``{"folder", "recomputed", "note", "summary", "envs", "recorded", "published", "mismatches"}``;
    ``mismatches`` lists the figures of ``summary.json`` that the episode files do not give (``[]`` when they
    agree or there is none). A folder without episode files (a leaderboard folder that publishes its
    ``summary.json`` alone) has nothing to recompute: ``recomputed`` is False, ``summary`` None, ``note`` says
    so and ``published`` holds the summary's figures as written. Neither an episode file nor a summary: refused.
    """
    folder = Path(folder)
    episodes = read_episodes(folder)
    recorded = _read_summary(folder)
    if not episodes:
        if recorded is None:
            raise PlaybenchError(f"{folder}: no episode files to recompute and no {SUMMARY} to show")
        return {"folder": str(folder), "recomputed": False, "note": NOTHING_TO_RECOMPUTE, "summary": None,
                "envs": {}, "recorded": recorded, "published": published_figures(folder, recorded),
                "mismatches": []}
    summary, env_summaries = summarize(episodes)
    mismatches: list[str] = []
    if recorded is not None:
        for key in ("average_progress", "standard_error"):
            if not _close(recorded.get(key), summary[key]):
                mismatches.append(f"{key}: summary.json {recorded.get(key)!r}, episode files {summary[key]!r}")
        stated = recorded.get("environments") or {}
        for env in sorted(set(stated) | set(summary["environments"])):
            got, want = summary["environments"].get(env, {}), stated.get(env, {}) if isinstance(stated, dict) else {}
            for key in ("progression_percentage", "standard_error", "episodes_played"):
                if not _close(want.get(key) if isinstance(want, dict) else None, got.get(key)):
                    mismatches.append(f"{env} {key}: summary.json {want.get(key) if isinstance(want, dict) else None!r}, "
                                      f"episode files {got.get(key)!r}")
    return {"folder": str(folder), "recomputed": True, "note": None, "summary": summary, "envs": env_summaries,
            "recorded": recorded, "published": None, "mismatches": mismatches}


def leaderboard_line(summary: dict[str, Any]) -> str:
    """BALROG's ``print_summary_table`` first line."""
    return f"Overall Average Progression: {summary['average_progress']:.2f}% ± {summary['standard_error']:.2f}%"


# -- what the seed fixes (``compare``; ``eval --instances``: ``leaderboard_instances``) -------------------------

#: Why an environment's episode of BALROG's evaluator is not the one playbench plays from the same seed
_NOT_BY_SEED = {
    "crafter": "BALROG's crafter.Env(seed=None) drew its world from the worker's NumPy state, not from the "
               "episode's seed",
    "textworld": "BALROG chose the TextWorld game by a per-process counter, not by the episode's seed",
    "minihack": "BALROG seeded NetHack with the episode's seed itself (and the run's calendar); playbench seeds it "
                "with a seed derived from the episode's",
    "boxoban": "BALROG drew the Boxoban level with random.choice over the level files in os.listdir order "
               "(machine-dependent), not by the episode's seed",
}
_NOT_BY_SEED["nle"] = _NOT_BY_SEED["minihack"]
#: An episode file's index in its name (``<task>_run_<NN>.json``)
RUN_INDEX = re.compile(r"_run_(\d+)\.json$")


def seed_problem(row: BalrogTask) -> str | None:
    """Why a BALROG episode of this task is not played again by playbench from its seed (None: it is).

    BabyAI's and Baba Is AI's levels are functions of the reset seed in both (``docs/suites/balrog.md``).
    """
    return _NOT_BY_SEED.get("boxoban" if row.kind == "boxoban" else row.env)
