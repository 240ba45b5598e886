"""``playbench verify`` on a BALROG submission folder (written by ``playbench export --format balrog``).

What such a folder holds decides what can be re-played (``submission.py``): each episode's JSON file has its
seed, its totals and its environment's statistics; its CSV has, per step, the agent's output, the reward,
done and the *next* observation. It holds no task parameters (BALROG's evaluator has none: episodes are
re-played with each task's defaults) and no executed actions as such: the ``Action`` column is the model's
answer when a model played. For a
reference policy's episodes (``random``, ``oracle``: BALROG's ``agent.type``) the column is the executed
action itself: they are re-played, the policy (lent by the library's verify) alongside, and every row and
total is checked. A model-played folder (a leaderboard row) is re-played from the recorded answers, fed through
BALROG's own validity check, as the BALROG code of the row's date played them (``leaderboard.py``). Every episode file the folder's figure counts is checked, each found and read as the
report reads it (``submission.episode_files``: no link followed); one whose name does not give its index
(``<task>_run_<NN>.json``) is not verifiable. The folder's ``summary.json`` is checked against its episode
files as well. A submission records no schedule, so an episode left out of it cannot be named.

This is the ``verify`` hook of the suite's ``balrog`` format (``folder.py``).
"""

import asyncio
import csv
import io
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord
from playbench.core.registry import find_task
from playbench.core.suite import Policy, PolicyLender
from playbench.core.task import Task
from playbench.core.verdict import (
    Difference,
    Finding,
    NotVerifiable,
    VerifyResult,
    fresh_game,
    same,
    settle,
    task_problem,
)
from playbench.suites.balrog import leaderboard
from playbench.suites.balrog.facts import TASKS
from playbench.suites.balrog.submission import (
    episode_files,
    episode_log,
    original_name,
    read_bytes,
    read_episode,
    read_submission,
)

#: keys of an episode file that re-play cannot give (model usage, BALROG's bookkeeping) or that name the folder's
#: own configuration
NOT_REPLAYED = frozenset({"input_tokens", "output_tokens", "process_num", "agent", "client"})
_EPISODE = re.compile(r"_run_(\d+)\.json$")


def _task_ids() -> dict[tuple[str, str], str]:
    """BALROG's (env, task) names -> playbench task ids (the export's ``original_name``, inverted)."""
    return {original_name(row.id): row.id for row in TASKS}


#: verify's ``-T`` settings of a BALROG folder: name -> what it gives
SETTINGS = {"levels": "PATH of the official Boxoban levels (a deepmind/boxoban-levels checkout): a leaderboard "
                      "row's Boxoban episode is re-played on the one level its first recorded map shows",
            "nethack": "PATH of a libnethack.so built from balrog-nle 0.9.0's source by another compiler (clang, as "
                       "its macOS wheels): a NetHack/MiniHack episode that parts on the installed build is tried on it"}


def verify_submission(folder: Path, lend: PolicyLender, settings: Mapping[str, str] | None = None) -> VerifyResult:
    """Re-play what can be re-played of the submission ``folder``; see the module doc.

    ``lend(agent)`` makes the reference policy BALROG's ``agent.type`` names (None: a model played);
    ``settings``: verify's ``-T`` values (``SETTINGS``: the format's ``verify_options``).
    """
    settings = dict(settings or {})
    library = settings.get("nethack")
    if library is not None:
        library = _nethack_library(library)
    result = VerifyResult(folder, kind="balrog-submission", label="BALROG submission")
    result.folder_differences = [f"summary.json {line}" for line in read_submission(folder)["mismatches"]]
    with asyncio.Runner() as runner:  # one event loop for every episode's re-play
        _check_folder(folder, result, runner, lend, settings.get("levels"), library)
    if any(f.verdict != "not-verifiable" for f in result.findings):
        result.notes.append("episodes were re-played with each task's default parameters (a submission records "
                            "none, BALROG's evaluator has none); a submission holds ok episodes only")
    result.notes.append("a submission records no schedule: episodes left out of it cannot be named")
    return result


def _nethack_library(path: str) -> str:
    """``-T nethack``'s PATH, absolute, once it is a regular file holding a shared library (else PlaybenchError)."""
    target = Path(path).expanduser().resolve()
    try:
        with target.open("rb") as fh:
            head = fh.read(4) if target.is_file() else b""
    except OSError:
        head = b""
    if head != b"\x7fELF":
        raise PlaybenchError(f"-T nethack={path}: not a shared library (a libnethack.so built from balrog-nle's source)")
    return str(target)


def _check_folder(folder: Path, result: VerifyResult, runner: asyncio.Runner, lend: PolicyLender,
                  levels: str | None = None, library: str | None = None) -> None:
    names = _task_ids()
    problems: dict[str, str | None] = {}
    files = [(env, relative) for env, found in episode_files(folder).items() for relative in found]
    row = leaderboard.Row(folder, _row_date(folder), "quoted")
    played: list[leaderboard.Played] = []
    for env, relative in files:
        data = read_episode(folder, relative)
        found = _EPISODE.search(relative)
        index = int(found.group(1)) if found else -1
        task_id = names.get((env, str(data.get("task"))))
        label = task_id or f"{env}/{data.get('task')}"
        task = find_task(task_id) if task_id else None
        seed = data.get("seed")
        has_seed = isinstance(seed, int) and not isinstance(seed, bool)
        if found is not None and isinstance(data.get("process_num"), str):
            row.processes.setdefault(data["process_num"], []).append(
                (env, str(data.get("task")), index, seed if isinstance(seed, int) and has_seed else None))
        reason = None
        if found is None:
            label, reason = relative, "its file name does not say which episode it is (<task>_run_<NN>.json)"
        elif task is None:
            reason = f"this playbench has no BALROG task {data.get('task')!r} in {env}"
        else:
            reason = task_problem(task, {}, problems)
        agent = data.get("agent")
        make_agent = lend(str(agent.get("type"))) if isinstance(agent, dict) else None
        if reason is None and not has_seed and (make_agent is not None or env not in leaderboard.SEEDLESS):
            reason = "its episode file holds no seed"
        steps_file = relative.removesuffix(".json") + ".csv"
        if reason is None and make_agent is None:  # a model played: its answers are re-played after the loop
            try:
                steps, early = leaderboard.read_steps(folder, steps_file)
            except PlaybenchError as exc:
                reason = str(exc)
            else:
                assert task_id is not None
                played.append(leaderboard.Played(env, str(data.get("task")), task_id, label, index,
                                                 seed if isinstance(seed, int) else 0, data, steps, early))
                continue
        rows: list[list[str]] | None = None
        if reason is None:
            rows, reason = _rows(folder, steps_file)
        if reason is not None:
            result.findings.append(Finding(label, index, "not-verifiable", reason=reason))
            continue
        assert task is not None and isinstance(seed, int) and make_agent is not None and rows is not None
        replay = _replay(task, index, seed, rows, data, env, make_agent)
        result.findings.append(settle(runner, label, index, replay))
    if played:
        from playbench.suites.balrog import leaderboard_crafter, leaderboard_nle
        from playbench.suites.balrog.leaderboard_games import OPENERS

        row.style = leaderboard.note_style((s.observation for e in played for s in e.steps), row.date)
        boxoban = leaderboard_nle.boxoban_levels(played, levels)

        taken: list[str] = []

        def open_nethack(episode: leaderboard.Played, row: leaderboard.Row) -> leaderboard.Player:
            return leaderboard_nle.open_nethack(episode, row, boxoban, library, taken)

        openers = {**OPENERS, "crafter": leaderboard_crafter.open_crafter, "minihack": open_nethack,
                   "nle": open_nethack}
        try:
            leaderboard.replay_all(played, row, openers, result, runner)
        finally:
            leaderboard_nle.stop_children()
        leaderboard.count_notes(result)
        result.notes.append(leaderboard.ROW_NOTE)
        if any(e.env in ("minihack", "nle") for e in played):
            result.notes.append(leaderboard_nle.CLOCK_NOTE.format(date=row.date))
            _build_notes(result, library, taken)


def _build_notes(result: VerifyResult, library: str | None, taken: list[str]) -> None:
    """Which NetHack build re-played which episodes; where they differ without another, the likely cause."""
    from playbench.suites.balrog import leaderboard_nle

    if taken:
        result.notes.append(leaderboard_nle.GIVEN_BUILD_NOTE.format(count=len(taken), path=library,
                                                                   names=", ".join(taken)))
    differing = sum(f.verdict == "differs" and f.task.startswith(("balrog/nle/", "balrog/minihack/"))
                    for f in result.findings)
    if differing and library is None:
        result.notes.append(leaderboard_nle.BUILD_NOTE.format(count=differing))


def _row_date(folder: Path) -> str | None:
    """The row's date: ``metadata.yaml``'s ``date``, else the folder name's ``YYYYMMDD`` prefix."""
    try:
        text = read_bytes(folder, "metadata.yaml").decode("utf-8", errors="replace")
    except (OSError, PlaybenchError):
        text = ""
    found = re.search(r"^date:\s*[\"']?(\d{4}-\d{2}-\d{2})", text, re.M)
    if found:
        return found.group(1)
    return leaderboard.Row(folder, None, "quoted").named_date()


def _rows(folder: Path, relative: str) -> tuple[list[list[str]] | None, str | None]:
    """The steps table's rows after its header (``Step, Action, Reasoning, Observation, Reward, Done``), or why not.

    Read as every file of the folder is (a link is a PlaybenchError).
    """
    name = relative.rpartition("/")[2]
    try:
        text = read_bytes(folder, relative).decode("utf-8")
    except FileNotFoundError:
        return None, f"its steps file {name} is missing"
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"its steps file {name} cannot be read ({type(exc).__name__})"
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), escapechar="˘"))
    except csv.Error:
        rows = []
    if not rows or rows[0] != ["Step", "Action", "Reasoning", "Observation", "Reward", "Done"]:
        return None, f"{name} is not BALROG's steps table"
    if any(len(row) != 6 for row in rows[1:]):
        return None, f"{name} is not BALROG's steps table"
    return rows[1:], None


async def _replay(task: Task, index: int, seed: int, rows: list[list[str]], data: dict[str, Any], env: str,
                  make_agent: Callable[[], Policy]) -> Difference | None:
    """The episode played with the policy alongside; each row and then the episode file compared."""
    if not rows:
        return Difference("num_steps", 0, "at least 1")
    params = task.params({})
    with fresh_game(task, params, index) as game:
        await game.prepare()
        obs, info = game.reset(seed=seed)
        agent = make_agent()
        await agent.start(task, index, seed, info, game)
        total, done = 0.0, False
        for k, (number, action, _reasoning, after, reward_text, done_text) in enumerate(rows):
            if done:
                return Difference("Done", False, True, k - 1)
            chosen = await agent.act(k, obs, info, game.legal_actions())
            difference = _first(("Step", number, str(k)), ("Action", action, chosen))
            if difference is None and not game.is_legal(action):
                difference = Difference("Action", action, "a legal action")
            if difference is not None:
                return Difference(difference.field, difference.recorded, difference.replayed, k)
            obs, reward, terminated, truncated, info = game.step(action)
            done = bool(terminated or truncated)
            total += float(reward)
            # the last row's observation: the game's after the step; "" where a run written before kept none
            shown = "" if k + 1 == len(rows) and after == "" else obs
            difference = _first(("Observation", after, shown),
                                ("Reward", leaderboard.recorded_number(reward_text), float(reward)), ("Done", done_text, str(done)))
            if difference is not None and difference.field == "Done" and k + 1 == len(rows) and done_text == "True":
                raise NotVerifiable(f"it ends at step {k}, before its game does: a step limit of the run "
                                    "(-T max_steps), which the folder does not record (the steps before agree)")
            if difference is not None:
                return Difference(difference.field, difference.recorded, difference.replayed, k)
        if not done:
            return Difference("Done", "False", "True", len(rows) - 1)
        replayed = EpisodeRecord(task=task.id, index=index, seed=seed, status="ok", agent="", reward=total,
                                 score=leaderboard.recorded_number(info.get("score")), steps=len(rows),
                                 metrics=dict(info.get("metrics", {})))
    again = json.loads(json.dumps(episode_log(replayed, env, str(data.get("task")), {}, {})))
    for key in [*data, *(k for k in again if k not in data)]:
        if key not in NOT_REPLAYED and not same(data.get(key), again.get(key)):
            return Difference(key, data.get(key), again.get(key))
    return None


def _first(*pairs: tuple[str, Any, Any]) -> Difference | None:
    for name, recorded, replayed in pairs:
        if not same(recorded, replayed):
            return Difference(name, recorded, replayed)
    return None


