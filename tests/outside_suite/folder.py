"""The tiny suite's own folder format: ``tiny.json`` holds each episode's seed, actions and lefts.

``export --format tiny`` writes it, ``report`` reads and shows it, ``verify`` re-plays it with the recorded
agent's policy alongside (lent by playbench): all through ``FORMAT``, declared in ``tasks.py``.
"""

import asyncio
import json
from pathlib import Path
from typing import Any

from rich.table import Table

from playbench.core.errors import PlaybenchError
from playbench.core.records import RunConfig
from playbench.core.registry import get_task
from playbench.core.suite import Episodes, FormatHooks, PolicyLender
from playbench.core.verdict import Difference, Finding, VerifyResult, fresh_game, settle

FILE = "tiny.json"
TITLE = "TINY FOLDER"


def detect(folder: Path) -> bool:
    return (folder / FILE).is_file()


def _load(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / FILE).read_text())
    except (OSError, ValueError) as exc:
        raise PlaybenchError(f"{folder / FILE} is not a tiny folder file: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("episodes"), list):
        raise PlaybenchError(f"{folder / FILE} is not a tiny folder file")
    return data


def read(folder: Path) -> dict[str, Any]:
    data = _load(folder)
    return {"folder": str(folder), "agent": data["agent"], "episodes": len(data["episodes"]),
            "lefts": sum(e["lefts"] for e in data["episodes"])}


def render(figures: dict[str, Any]) -> list[Any]:
    table = Table(title=f"{TITLE} {figures['folder']}")
    table.add_column("episodes")
    table.add_column("lefts")
    table.add_row(str(figures["episodes"]), str(figures["lefts"]))
    return [table]


def write(folder: Path, episodes: Episodes, config: RunConfig) -> tuple[int, list[str]]:
    kept, left_out = [], 0
    for record, steps in episodes:
        if record.status != "ok" or steps is None:
            left_out += 1
            continue
        kept.append({"index": record.index, "seed": record.seed, "actions": [s.executed for s in steps],
                     "lefts": record.score})
    if kept:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / FILE).write_text(json.dumps({"agent": config.agent, "episodes": kept}))
    return len(kept), [f"tiny: {left_out} episodes left out"] if left_out else []


async def _replay(episode: dict[str, Any], lend: PolicyLender, agent: str) -> Difference | None:
    task = get_task("tiny/two")
    make = lend(agent)
    with fresh_game(task, task.params({}), episode["index"]) as game:
        obs, info = game.reset(seed=episode["seed"])
        policy = make() if make is not None else None
        if policy is not None:
            await policy.start(task, episode["index"], episode["seed"], info, game)
        for step, action in enumerate(episode["actions"]):
            if policy is not None:
                chosen = await policy.act(step, obs, info, game.legal_actions())
                if chosen != action:
                    return Difference("action", action, chosen, step)
            obs, _, _, _, info = game.step(action)
    return None if info["score"] == episode["lefts"] else Difference("lefts", episode["lefts"], info["score"])


def verify(folder: Path, lend: PolicyLender) -> VerifyResult:
    data = _load(folder)
    result = VerifyResult(folder, kind="tiny-folder", label=TITLE)
    with asyncio.Runner() as runner:
        for episode in data["episodes"]:
            if lend(data["agent"]) is None:
                result.findings.append(Finding("tiny/two", episode["index"], "not-verifiable", reason="a model played"))
            else:
                result.findings.append(settle(runner, "tiny/two", episode["index"],
                                              _replay(episode, lend, data["agent"])))
    return result


FORMAT = FormatHooks(title=TITLE, detect=detect, read=read, render=render, write=write, verify=verify)
