"""The tiny suite's report: a recognisable table, an extra key per task, and one figure."""

from typing import Any

from rich.table import Table

from playbench.core.figures import Bars, Figure, Panel, RunSummary, Series
from playbench.core.records import EpisodeRecord
from playbench.core.suite import SummaryHooks

TITLE = "TINY SUITE TABLE"


def summarize(records_by_task: dict[str, list[EpisodeRecord]], scheduled: dict[str, int]) -> dict[str, Any]:
    lefts = [r.score for recs in records_by_task.values() for r in recs if r.score is not None]
    return {"marker": "tiny-summary", "lefts": sum(lefts), "scheduled": scheduled}


def task_extras(task_id: str, records: list[EpisodeRecord]) -> dict[str, Any]:
    return {"tiny_episodes": len(records)}


def render(summary: dict[str, Any]) -> list[Any]:
    table = Table(title=TITLE, min_width=40)
    table.add_column("lefts")
    table.add_row(str(summary["lefts"]))
    return [table]


def figures(runs: list[RunSummary]) -> list[Figure]:
    return [Bars("tiny_lefts", "tiny lefts per run", "lefts", [Panel(["lefts"], [Series(k, [(s["lefts"], None)])
                                                                                for k, s in runs])], size=(4, 3))]


SUMMARY = SummaryHooks(summarize=summarize, task_extras=task_extras, render=render, figures=figures)
