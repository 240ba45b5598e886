"""Reading answers to score: folders in the official sample format and playbench run directories (spec §5.5)."""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from playbench.core.errors import PlaybenchError
from playbench.log.paths import is_run
from playbench.suites.mango.aggregate import Row
from playbench.suites.mango.evaluate import GameEvaluator, Mode, Score, TaskKind
from playbench.suites.mango.formats import GameFiles, JsonObject, open_data
from playbench.suites.mango.prompts import KEYS
from playbench.suites.mango.sources import procedural_game

TASK_NAMES: dict[str, TaskKind] = {"desti_finding": "df", "route_finding": "rf"}
_FILE = re.compile(r"result_sample_id_(.*)\.json$")  # matches every name of the rglob pattern below


@dataclass
class AnswerItem:
    """One answer to score."""

    set: str  # the answer folder (``{model}_{task}_{tag}``) or ``run_id:task``
    game: str
    task: TaskKind
    sample_id: str | None
    cutoff: int | None
    answer: str | None
    file: str
    readable: bool = True
    maze: dict[str, Any] = field(default_factory=dict)  # procedural: maze_seed, locations, cutoff_rule
    prompt: str = "release"


def _task_of(folder: str, record: JsonObject) -> TaskKind | None:
    for name, kind in TASK_NAMES.items():
        if name in folder:
            return kind
    return TASK_NAMES.get(str(record.get("task", "")))


def read_official(root: Path, mode: Mode) -> list[AnswerItem]:
    """Every ``result_sample_id_*.json`` below ``root`` (``{set}/{game}/result_sample_id_*.json``)."""
    items = []
    for path in sorted(root.rglob("result_sample_id_*.json")):
        game_dir, set_dir = path.parent, path.parent.parent
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(record, dict):
                raise ValueError("not an object")
        except (ValueError, UnicodeDecodeError):
            record, readable = {}, False
        else:
            readable = True
        task = _task_of(set_dir.name, record)
        if task is None:
            raise PlaybenchError(f"{path}: cannot tell the task (folder name or 'task' field)")
        keys = ("response",) if mode == "compat" else ("response", "answer")  # bug B2 in compat
        answer = next((record[k] for k in keys if k in record), None)
        cutoff = record.get("model_cutoff_num")
        named = _FILE.search(path.name)
        assert named is not None  # the rglob pattern
        sample_id = record.get("sample_id") or named.group(1)
        ok = readable and answer is not None and isinstance(cutoff, int)
        items.append(
            AnswerItem(
                set=set_dir.name if set_dir != root.parent else root.name,
                game=str(record.get("game_name") or game_dir.name),
                task=task,
                sample_id=str(sample_id),
                cutoff=cutoff if isinstance(cutoff, int) else None,
                answer=answer if isinstance(answer, str) else None,
                file=str(path.relative_to(root)),
                readable=ok,
            )
        )
    return items


def read_run(path: Path) -> list[AnswerItem]:
    """The MANGO DF/RF episodes of a playbench run (the answer is the episode's single action)."""
    from playbench.log.read import read_run as open_run

    log = open_run(path)
    items = []
    for rec in log.episodes():
        task_id = rec.task
        if task_id not in ("mango/df", "mango/rf") or rec.status != "ok":
            continue
        steps = log.read_trajectory(rec)
        answer = steps[0].raw_output if steps and steps[0].raw_output is not None else (steps[0].executed if steps else None)
        m, inst = rec.metrics, rec.instance
        maze = {}
        if inst.get("source") == "procedural":
            maze = {"maze_seed": inst["maze_seed"], "locations": inst["locations"], "cutoff_rule": inst.get("cutoff_rule", "release")}
        items.append(
            AnswerItem(
                set=f"{log.run_id}:{task_id}",
                game=str(m.get("game", inst.get("game"))),
                task=task_id.split("/")[1],  # type: ignore[arg-type]
                sample_id=m.get("id", inst.get("id")),
                cutoff=m.get("cutoff"),
                answer=answer,
                file=rec.trajectory or "",
                maze=maze,
                prompt=m.get("prompt", "release"),
            )
        )
    return items


def load_answers(path: Path | str, mode: Mode) -> list[AnswerItem]:
    """Answers from a run directory (``run.json``) or from an official-format answer folder."""
    path = Path(path)
    if not path.exists():
        raise PlaybenchError(f"{path} does not exist")
    items = read_run(path) if is_run(path) else read_official(path, mode)
    if not items:
        raise PlaybenchError(f"no MANGO answers found under {path}")
    return items


def score_items(items: list[AnswerItem], data: Path | str | None, mode: Mode) -> list[Row]:
    """Score answers; each row is the ``Score`` dict plus game, task, id, set and file."""
    games = {g.name: g for g in open_data(data)} if data else {}
    evaluators: dict[tuple[str, int | None, str], GameEvaluator | None] = {}
    rows = []
    for item in items:
        key = (item.game, item.maze.get("maze_seed"), item.prompt)
        if key not in evaluators:
            evaluators[key] = _evaluator(item, games, mode)
        ev = evaluators[key]
        if not item.readable:
            score = Score("parse_error", item.task, parse_error="unreadable")
        elif ev is None:
            score = Score("id_error", item.task)
        else:
            score = ev.score(item.task, item.sample_id or "", item.cutoff if item.cutoff is not None else -1, item.answer)
        rows.append({**score.to_dict(), "game": item.game, "id": item.sample_id, "set": item.set, "file": item.file})
    return rows


def _evaluator(item: AnswerItem, games: dict[str, GameFiles], mode: Mode) -> GameEvaluator | None:
    style: Literal["release", "paper"] = "paper" if item.prompt == "paper" else "release"
    if item.maze:
        d = procedural_game(item.maze["maze_seed"], item.maze["locations"], item.maze.get("cutoff_rule", "release")).data
    elif item.game in games:
        d = games[item.game]
    else:
        if not games:
            raise PlaybenchError("these answers come from official data: give --data DATA_DIR")
        return None
    return GameEvaluator(d.edges, d.actions, d.all2all, d.all_pairs, mode, KEYS[style])
