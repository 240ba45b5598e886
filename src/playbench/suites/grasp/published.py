"""GRASP's published answers as a folder format: ``report`` counts them, ``compare`` pairs them with a run.

A path in this format is one agent's answers as the GRASP repository publishes them (``data/results/``): a
baseline's folder (``greedy_results/``, one ``<grid file>.jsonl`` per setting) or a model's output file
(``batch_gpt4o_output.jsonl``, ``gpt_o1_mini_output.jsonl``). ``official.read_results`` reads the lines.

What pairs: an answer's instance id, ``<grid file>-<index>-<movement>-<carry>-<cost>`` (its ``custom_id``, or
the baseline line's file, index and constraints), with a playbench record's ``instance["custom_id"]``, which an
episode of ``grasp/energy`` on the official grids (``-T data=DIR``) records. A generated instance has none, and
compare refuses the run in one line. Answers are scored as the run's episodes are: parsed (models) or taken as
they are (baselines), executed on the official grid (``-S data=DIR``, the repository's ``data/grids``), the
energy counted by ``-S scoring`` (``fixed``, playbench's default; ``compat``: Table 1's rule).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

from playbench.core.errors import PlaybenchError
from playbench.core.suite import NO_MODEL, Comparable, ComparedEpisode, FormatHooks

if TYPE_CHECKING:  # the records, readers and simulator load when answers are read, not to detect a folder
    from playbench.core.records import EpisodeRecord
    from playbench.suites.grasp.official import Answer

TASK = "grasp/energy"
#: compare's ``-S`` settings of this format
OPTIONS = {"data": "the official grids the answers are scored on (the GRASP repository's data/grids)",
           "scoring": "fixed (default: energy brought back to the start) or compat (Table 1: on the final cell)",
           "parser": "how a model's free-text answer becomes a plan: grasp-v1 (default), list-only, all-upper, "
                     "all-words"}
_BASELINES = ("greedy", "random")
_SCORINGS = ("fixed", "compat")
_FIRST_LINE = 1 << 20  # detect reads at most this much of a file


def _files(path: Path) -> list[Path]:
    """The answer files: the path itself, or the ``*.jsonl`` files directly in the folder (no link among them)."""
    if not path.is_dir():
        return [path]
    from playbench.log.confined import unsafe_entries

    for problem in unsafe_entries(path.resolve(), path):
        raise PlaybenchError(problem)
    return sorted(p for p in path.iterdir() if p.suffix == ".jsonl" and p.is_file())


def _is_answer_line(line: bytes) -> bool:
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and ("baseline" in data or ("custom_id" in data and "response" in data))


def detect(path: Path) -> bool:
    """A ``.jsonl`` file (or a folder of them) whose first line is a published answer (a baseline's or a model's)."""
    try:
        if path.is_dir():
            with os.scandir(path) as entries:
                names = sorted(e.name for e in entries if e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False))
            if not names:
                return False
            path = path / names[0]
        if path.suffix != ".jsonl" or not path.is_file():
            return False
        with path.open("rb") as fh:
            return _is_answer_line(fh.readline(_FIRST_LINE))
    except OSError:
        return False


def _answers(path: Path) -> tuple[list[Answer], list[str]]:
    """The answers under ``path`` and a line per unreadable answer line (``file:line: why``)."""
    from playbench.suites.grasp.official import read_results

    files = _files(path)
    if not files:
        raise PlaybenchError(f"{path}: no GRASP answer files (*.jsonl)")
    read = read_results(files)
    return read.answers, [f"{p.file}:{p.line}: {p.reason}" for p in read.problems]


def read(path: Path) -> dict[str, Any]:
    """What ``report`` shows: the answers per agent and the lines that could not be read (nothing is scored)."""
    answers, problems = _answers(path)
    return {"path": str(path), "agents": dict(Counter(a.agent for a in answers)), "problems": len(problems),
            "first_problem": problems[0] if problems else None}


def render(figures: dict[str, Any]) -> list[Any]:
    """The answers per agent, and how to score or compare them (``read``'s result, its strings inert)."""
    from rich.table import Table
    from rich.text import Text

    def text(markup: str, style: str = "") -> Text:  # strings arrive escaped for markup: shown as written
        return Text.from_markup(markup, style=style, emoji=False)

    table = Table(title="GRASP published answers")
    table.add_column("agent")
    table.add_column("answers", justify="right")
    for agent, n in figures["agents"].items():
        table.add_row(text(agent), str(n))
    shown: list[Any] = [text(figures["path"], "bold"), table]
    if figures["problems"]:
        shown.append(text(f"{figures['problems']} lines could not be read (first: {figures['first_problem']})",
                          "yellow"))
    shown.append(Text("scored on the official grids by 'playbench grasp rescore PATH --grids DIR'; "
                      "'playbench compare RUN PATH -S data=DIR' pairs them with a run's instances", style="dim"))
    return shown


def _choice(options: Mapping[str, str], name: str, allowed: tuple[str, ...]) -> str:
    value = options.get(name, allowed[0])
    if value not in allowed:
        raise PlaybenchError(f"-S {name}={value}: expected one of {', '.join(allowed)}")
    return value


def _run_key(record: EpisodeRecord) -> str | None:
    instance = record.instance
    key = instance.get("custom_id")
    return key if instance.get("source") == "official" and isinstance(key, str) else None


def episodes(path: Path, options: Mapping[str, str]) -> Comparable:
    """One agent's answers, each scored on its official grid and keyed by instance id (``FormatHooks.episodes``)."""
    from playbench.suites.grasp.official import custom_id, load_grids
    from playbench.suites.grasp.parse import ParserMode, ParserOptions, parse_plan
    from playbench.suites.grasp.simulate import execute

    scoring: Literal["fixed", "compat"] = "compat" if _choice(options, "scoring", _SCORINGS) == "compat" else "fixed"
    parser = ParserOptions(cast(ParserMode, _choice(options, "parser", get_args(ParserMode))))
    if not options.get("data"):
        raise PlaybenchError("GRASP's answers are scored on the official grids: give -S data=DIR "
                             "(the GRASP repository's data/grids)")
    answers, problems = _answers(path)
    agents = sorted({a.agent for a in answers})
    if len(agents) != 1:
        raise PlaybenchError(f"{path} holds answers of {len(agents)} agents ({', '.join(agents)[:120] or 'none'}); "
                             "give one agent's file or folder")
    grids = load_grids(options["data"])
    found = []
    for answer in answers:
        key = custom_id(answer.file, answer.index, answer.constraints)
        grid = grids.get((answer.file, answer.index))
        if grid is None:
            found.append(ComparedEpisode(TASK, key, None, "no-grid"))
            continue
        plan = answer.plan if answer.plan is not None else parse_plan(answer.text or "", parser).plan
        found.append(ComparedEpisode(TASK, key, execute(grid.grid, answer.constraints, plan).energy(scoring)))
    baseline = agents[0] in _BASELINES and all(a.plan is not None for a in answers)
    params: dict[str, Any] = {"scoring": scoring, "prompt": "official"}
    params.update({"planner": "compat"} if agents[0] == "greedy" and baseline else {})
    params.update({} if baseline else {"parser": parser.mode})
    notes = []
    if problems:
        notes.append(f"{len(problems)} answer lines could not be read, left out (first: {problems[0][:160]})")
    missing = sum(1 for e in found if e.status == "no-grid")
    if missing:
        notes.append(f"{missing} answers name a grid that {options['data']} does not hold, left out")
    return Comparable(label=agents[0], episodes=tuple(found), key="instance id (custom_id)", run_key=_run_key,
                      unpairable="its instance is not one of GRASP's official grids (a generated grid); a run "
                                 "with -T data=DIR (the official grids) plays them",
                      settings={"agent": agents[0], "temperature": NO_MODEL, "max_tokens": NO_MODEL} if baseline
                      else {}, task_params={TASK: params},
                      notes=tuple(notes))


FORMAT = FormatHooks(title="GRASP published answers", detect=detect, read=read, render=render, episodes=episodes,
                     options=OPTIONS)
