"""MANGO's answer sets as a folder format: ``report`` counts the answers, ``compare`` pairs them with a run.

A path in this format is one answer set in the official sample layout (spec §5.5):
``{model}_{task}_{tag}/{game}/result_sample_id_{id}.json``, as the authors' inference scripts write it and as
their published examples hold it. ``results.read_official`` reads the files.

What pairs: a question, ``{game}/{id}@{cutoff}``: the game, the question's id (``sample_id``) and the walkthrough
cutoff it was asked at (``model_cutoff_num``), with a playbench record of ``mango/df`` or ``mango/rf`` on the
official data (``-T data=DIR``), keyed by its instance's ``game`` and ``id`` and its metrics' ``cutoff``. The
cutoff is part of the key because the question's prompt holds the walkthrough up to it: asked at another
cutoff, it is another prompt. A question of a procedural maze has no such key, and compare refuses the run in
one line. Answers are scored as the run's episodes are: by the evaluator ``-S mode`` names (``fixed``,
playbench's default; ``compat``: the official one, bugs included) against the maze in ``-S data=DIR``. An
answer the evaluator cannot score (its question is not in the data, not answerable at its cutoff) is left out.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from playbench.core.errors import PlaybenchError
from playbench.core.suite import Comparable, ComparedEpisode, FormatHooks

if TYPE_CHECKING:  # the records and the evaluator load when answers are read, not to detect a folder
    from playbench.core.records import EpisodeRecord

#: compare's ``-S`` settings of this format
OPTIONS = {"data": "the official MANGO data the answers are scored on (a folder of game folders)",
           "mode": "fixed (default: playbench's evaluator) or compat (the official mango-eval, bugs included)"}
_ANSWER = re.compile(r"result_sample_id_.*\.json$")
_SET = re.compile(r"_(desti_finding|route_finding)(_|$)")
#: answer statuses that are answers: scored, or not parsed (a failure, as a run counts it)
_ANSWERED = frozenset({"scored", "parse_error"})


def _holds_answers(folder: str) -> bool:
    with os.scandir(folder) as entries:
        return any(_ANSWER.match(e.name) and e.is_file(follow_symlinks=False) for e in entries)


def _subfolders(folder: str) -> list[os.DirEntry[str]]:
    with os.scandir(folder) as entries:
        return [e for e in entries if e.is_dir(follow_symlinks=False)]


def detect(path: Path) -> bool:
    """An answer set (game folders of ``result_sample_id_*.json``), or a folder of answer sets named as such."""
    try:
        if not path.is_dir():
            return False
        for sub in _subfolders(str(path)):
            if _holds_answers(sub.path):
                return True
            if _SET.search(sub.name) and any(_holds_answers(game.path) for game in _subfolders(sub.path)):
                return True
    except OSError:
        return False
    return False


def _answers(path: Path, mode: Literal["fixed", "compat"]) -> list[Any]:
    from playbench.log.confined import unsafe_entries
    from playbench.suites.mango.results import read_official

    for problem in unsafe_entries(path.resolve(), path):  # an answer set may come from anyone: no link is followed
        raise PlaybenchError(problem)
    items = read_official(path, mode)
    if not items:
        raise PlaybenchError(f"{path}: no MANGO answers (result_sample_id_*.json)")
    return items


def read(path: Path) -> dict[str, Any]:
    """What ``report`` shows: the answers per set and task and the unreadable files (nothing is scored)."""
    items = _answers(path, "fixed")
    counts: dict[str, Counter[str]] = {}
    for item in items:
        counts.setdefault(item.set, Counter())[item.task] += 1
    return {"path": str(path), "sets": {name: dict(c) for name, c in counts.items()},
            "games": sorted({item.game for item in items}), "unreadable": sum(not item.readable for item in items)}


def render(figures: dict[str, Any]) -> list[Any]:
    """The answers per set and task, and how to score or compare them (``read``'s result, its strings inert)."""
    from rich.table import Table
    from rich.text import Text

    def text(markup: str, style: str = "") -> Text:  # strings arrive escaped for markup: shown as written
        return Text.from_markup(markup, style=style, emoji=False)

    table = Table(title="MANGO answers")
    for col in ("answer set", "DF", "RF"):
        table.add_column(col, justify="left" if col == "answer set" else "right")
    for name, counts in figures["sets"].items():
        table.add_row(text(name), str(counts.get("df", 0)), str(counts.get("rf", 0)))
    shown: list[Any] = [text(figures["path"], "bold"), table,
                        text(f"games: {', '.join(figures['games'][:8])}" + (" …" if len(figures["games"]) > 8 else ""))]
    if figures["unreadable"]:
        shown.append(Text(f"{figures['unreadable']} answer files unreadable", style="yellow"))
    shown.append(Text("scored by 'playbench mango score PATH --data DIR'; 'playbench compare RUN PATH -S data=DIR' "
                      "pairs them with a run's questions", style="dim"))
    return shown


def _run_key(record: EpisodeRecord) -> str | None:
    instance, cutoff = record.instance, record.metrics.get("cutoff")
    game, question = instance.get("game"), instance.get("id")
    if instance.get("source") != "data" or not isinstance(game, str) or not isinstance(question, str) \
            or isinstance(cutoff, bool) or not isinstance(cutoff, int):
        return None
    return f"{game}/{question}@{cutoff}"


def _model(set_name: str) -> str:
    """``claude-instant-1_desti_finding_t1`` -> ``claude-instant-1`` (the whole name when it is not so)."""
    found = _SET.search(set_name)
    return set_name[:found.start()] if found and found.start() else set_name


def episodes(path: Path, options: Mapping[str, str]) -> Comparable:
    """One answer set, each answer scored on its maze and keyed by question (``FormatHooks.episodes``)."""
    mode = options.get("mode", "fixed")
    if mode not in ("fixed", "compat"):
        raise PlaybenchError(f"-S mode={mode}: expected fixed or compat")
    if not options.get("data"):
        raise PlaybenchError("MANGO's answers are scored on the official data: give -S data=DIR "
                             "(a folder of game folders)")
    evaluator: Literal["fixed", "compat"] = "compat" if mode == "compat" else "fixed"
    items = _answers(path, evaluator)
    sets = sorted({item.set for item in items})
    if len(sets) > 1:
        raise PlaybenchError(f"{path} holds {len(sets)} answer sets ({', '.join(sets)[:120]}); give one")
    from playbench.suites.mango.results import score_items

    rows = score_items(items, options["data"], evaluator)
    found = []
    left: Counter[str] = Counter()
    for item, row in zip(items, rows, strict=True):
        key = f"{item.game}/{item.sample_id}@{item.cutoff}"
        answered = item.readable and row["status"] in _ANSWERED
        status = row["status"] if item.readable else "unreadable"
        if not answered:
            left[status] += 1
        found.append(ComparedEpisode(f"mango/{item.task}", key, float(row["strict"]) if answered else None,
                                     "ok" if answered else status))
    notes = []
    if left:
        notes.append("answers left out (not scored): "
                     + ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in sorted(left.items())))
    tasks = {episode.task for episode in found}
    return Comparable(label=_model(sets[0]), episodes=tuple(found), key="question (game, id, cutoff)",
                      run_key=_run_key,
                      unpairable="its question comes from a procedural maze, not MANGO's data; a run with "
                                 "-T data=DIR (the official data) asks them",
                      task_params={task: {"mode": evaluator} for task in tasks}, notes=tuple(notes))


FORMAT = FormatHooks(title="MANGO answer set", detect=detect, read=read, render=render, episodes=episodes,
                     options=OPTIONS)
